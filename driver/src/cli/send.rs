//! `tsnic send`: the EDT TCP sender over a simulated path.

use std::fs::File;
use std::io::BufWriter;
use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use clap::{Args, ValueEnum};

use tsnic::edt::cc::CcKind;
use tsnic::edt::pcap::write_pcapng;
use tsnic::edt::run::{
    parse_duration_ns, parse_path, parse_rate_bps, parse_size, run as run_loop, CardKind, RunConfig,
};
use tsnic::edt::sender::{Pacer, PacingModel, SampleStamp};

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum CcArg {
    Cubic,
    Bbr,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum PacingModelArg {
    /// Earliest Departure Time: the sender stamps launch times; RTT from actual departure.
    Edt,
    /// Pre-EDT: an fq-like pacer queue releases packets; RTT stamped at enqueue.
    Queue,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum StampArg {
    /// The launch time the sender scheduled (Linux: skb_mstamp_ns = tcp_wstamp_ns).
    Scheduled,
    /// The card's reported departure time.
    Departure,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum PacerArg {
    /// The card holds each frame until its launch time (the sender posts ahead).
    Card,
    /// Linux internal pacing: a host timer (subject to --jitter) releases each burst.
    Host,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum CardArg {
    /// The Verilated RTL (tsnic_core) through the driver's rings and completions, in-process:
    /// real departure times, about one wall second per simulated millisecond.
    Sim,
    /// The software card model (IdealCardModel, not the RTL): frames depart at
    /// max(launch time, line free) at line rate. Fast; for unit tests and long runs.
    Model,
}

fn size_arg(s: &str) -> Result<u64, String> {
    parse_size(s).ok_or_else(|| format!("`{s}` is not a size; use e.g. 10MB, 64KB, 1500"))
}
/// A number (with or without a unit) whose value is zero, like `0`, `0M`, `0.0ms`.
fn is_zero(s: &str) -> bool {
    let t = s.trim();
    let end = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    end > 0 && t[..end].parse::<f64>().is_ok_and(|v| v == 0.0)
}
fn rate_arg(s: &str) -> Result<u64, String> {
    if is_zero(s) {
        return Err(format!(
            "`{s}`: the rate must be positive; use bits/s like 24M, 8G"
        ));
    }
    parse_rate_bps(s).ok_or_else(|| format!("`{s}` is not a rate; use bits/s like 24M, 8G"))
}
/// A duration that may be zero (e.g. --jitter).
fn dur_arg(s: &str) -> Result<u64, String> {
    if is_zero(s) {
        return Ok(0);
    }
    parse_duration_ns(s).ok_or_else(|| format!("`{s}` is not a duration; use e.g. 5us, 2ms, 1s"))
}
/// A duration that must be positive (--tick, --time-limit).
fn pos_dur_arg(s: &str) -> Result<u64, String> {
    match dur_arg(s)? {
        0 => Err(format!(
            "`{s}`: the duration must be positive; use e.g. 5us, 2ms, 1s"
        )),
        v => Ok(v),
    }
}

/// Arguments of `tsnic send`.
#[derive(Args, Debug)]
#[command(
    after_help = "Runs on the simulated card (the Verilated RTL) by default; --card model uses \
the fast software model instead. The sim card simulates every core cycle (about one wall \
second per simulated millisecond here), so keep --bytes small on it. Examples:\n  \
tsnic send --cc cubic --bytes 200KB --path rate=10G,rtt=100us,buffer=1MB\n  \
tsnic send --card model --cc bbr --bytes 20MB --path rate=1G,rtt=1ms,buffer=100KB"
)]
pub struct SendArgs {
    /// Congestion control.
    #[arg(long, value_enum, default_value = "cubic")]
    pub cc: CcArg,
    /// Bytes per flow (in --rr mode: request bytes per flow). Sizes: 10MB, 64KB, 1500.
    #[arg(long, default_value = "10MB", value_parser = size_arg)]
    pub bytes: u64,
    /// Network path: rate=10G,rtt=100us,buffer=1MB[,loss=0.001][,reorder=0.01][,reorder_delay=20us]
    #[arg(long, default_value = "rate=10G,rtt=100us,buffer=1MB")]
    pub path: String,
    /// Number of parallel flows (each to its own receiver port).
    #[arg(long, default_value_t = 1)]
    pub flows: usize,
    /// Maximum pacing rate per flow (SO_MAX_PACING_RATE), bits/s: 24M, 8G.
    #[arg(long, value_parser = rate_arg)]
    pub max_rate: Option<u64>,
    /// TCP_NOTSENT_LOWAT: the application writes only while unsent bytes are below this.
    #[arg(long, value_parser = size_arg)]
    pub notsent_lowat: Option<u64>,
    /// Request/response mode: requests of SIZE bytes, one outstanding; reports latency.
    #[arg(long, value_parser = size_arg)]
    pub rr: Option<u64>,
    /// Pacing model: edt (the sender stamps launch times) or queue (pre-EDT sch_fq pacer,
    /// samples stamped at enqueue).
    #[arg(long, value_enum, default_value = "edt")]
    pub pacing_model: PacingModelArg,
    /// With --pacing-model edt: where RTT and delivery-rate samples start.
    #[arg(long, value_enum, default_value = "scheduled")]
    pub stamp: StampArg,
    /// Who waits for launch times: the card, or a host pacing timer (see --jitter).
    #[arg(long, value_enum, default_value = "card")]
    pub pacer: PacerArg,
    /// Injected sender wake-up jitter: each pacing-timer wake-up is late by U[0, JITTER].
    #[arg(long, default_value = "0ns", value_parser = dur_arg)]
    pub jitter: u64,
    /// Turn off the EDT jitter credit (to measure what it buys).
    #[arg(long)]
    pub no_jitter_credit: bool,
    /// Seed of every random choice (same seed, same run).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Card to send through: `sim` (the Verilated RTL, 10G line only) or `model` (software model).
    #[arg(long, value_enum, default_value = "sim")]
    pub card: CardArg,
    /// Card port speed, bits/s.
    #[arg(long, default_value = "10G", value_parser = rate_arg)]
    pub line_rate: u64,
    /// TCP timer tick (Linux jiffy); timers round up to it.
    #[arg(long, default_value = "1ms", value_parser = pos_dur_arg)]
    pub tick: u64,
    /// Stop after this much simulated time even if not finished.
    #[arg(long, default_value = "60s", value_parser = pos_dur_arg)]
    pub time_limit: u64,
    /// Write the report as JSON to FILE.
    #[arg(long)]
    pub report: Option<PathBuf>,
    /// Write the frames the card sent to FILE as pcapng (ns timestamps = departure time).
    #[arg(long)]
    pub pcap: Option<PathBuf>,
}

pub fn run(a: SendArgs) -> Result<()> {
    let path = parse_path(&a.path).context("the --path value is not valid")?;
    let cfg = RunConfig {
        card: match a.card {
            CardArg::Model => CardKind::Model,
            CardArg::Sim => CardKind::Sim,
        },
        cc: match a.cc {
            CcArg::Cubic => CcKind::Cubic,
            CcArg::Bbr => CcKind::Bbr,
        },
        flows: a.flows,
        bytes: a.bytes,
        path,
        path_text: a.path.clone(),
        line_rate_bps: a.line_rate,
        max_rate_bps: a.max_rate,
        notsent_lowat: a.notsent_lowat,
        rr: a.rr,
        pacing_model: match a.pacing_model {
            PacingModelArg::Edt => PacingModel::Edt,
            PacingModelArg::Queue => PacingModel::Queue,
        },
        stamp: match a.stamp {
            StampArg::Scheduled => SampleStamp::Scheduled,
            StampArg::Departure => SampleStamp::Departure,
        },
        pacer: match a.pacer {
            PacerArg::Card => Pacer::Card,
            PacerArg::Host => Pacer::Host,
        },
        jitter_ns: a.jitter,
        jitter_credit: !a.no_jitter_credit,
        seed: a.seed,
        time_limit_ns: a.time_limit,
        tick_ns: a.tick,
        capture: a.pcap.is_some(),
        ..RunConfig::default()
    };
    let report = run_loop(&cfg).context("the simulation could not start; check the options")?;
    print!("{}", report.table());
    if let Some(p) = &a.report {
        let f = File::create(p).with_context(|| {
            format!(
                "cannot create report file {}; check the directory exists",
                p.display()
            )
        })?;
        serde_json::to_writer_pretty(BufWriter::new(f), &report)
            .with_context(|| format!("cannot write JSON report to {}", p.display()))?;
    }
    if let Some(p) = &a.pcap {
        let f = File::create(p).with_context(|| {
            format!(
                "cannot create pcap file {}; check the directory exists",
                p.display()
            )
        })?;
        write_pcapng(BufWriter::new(f), &report.pcap)
            .with_context(|| format!("cannot write pcapng to {}", p.display()))?;
    }
    if !report.completed {
        bail!(
            "the transfer did not complete: {}",
            report
                .incomplete_reason
                .as_deref()
                .unwrap_or("no reason recorded")
        );
    }
    Ok(())
}
