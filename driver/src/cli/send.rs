//! `tsnic send`: the EDT TCP sender over a simulated path.

use crate::cli::out::{out, outln};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use clap::{Args, ValueEnum};

use super::common::{check_outputs, OutPath};

use tsnic::edt::cc::CcKind;
use tsnic::edt::pcap::write_pcapng;
use tsnic::edt::run::{
    parse_duration_ns, parse_path, parse_rate_bps, parse_size, run as run_loop, CardKind, RunConfig,
};
use tsnic::edt::sender::{Pacer, PacingModel, SampleStamp};
use tsnic::peer::netns::stop_flag;
use tsnic::peer::path::{parse_burst, Burst};
use tsnic::peer::realtime::{run_edt, run_edt_sim, run_kernel, LinuxRunConfig, PeerSpec};

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

#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
pub enum CardArg {
    /// The Verilated RTL (tsnic_core) through the driver's rings and completions, in-process:
    /// real departure times, about one wall second per simulated millisecond.
    Sim,
    /// The board build (tsnic_board_core behind the PCIe hard-block model, 10G; build with the
    /// `board` feature): the same through MSI-X, the PCIe link and the MAC clock domain.
    #[value(name = "sim:board")]
    SimBoard,
    /// The software card model (IdealCardModel, not the RTL): frames depart at
    /// max(launch time, line free) at line rate. Fast; for unit tests and long runs.
    Model,
}

/// On or off.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum OnOff {
    On,
    Off,
}

/// `--tso-rtt-log`: a shift of 0-31, or none.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RttLog(pub Option<u32>);

fn rtt_log_arg(s: &str) -> Result<RttLog, String> {
    if s == "off" {
        return Ok(RttLog(None));
    }
    match s.parse::<u32>() {
        Ok(n) if n <= 31 => Ok(RttLog(Some(n))),
        _ => Err(format!(
            "`{s}` is not a tcp_tso_rtt_log; use 0-31 (Linux: 9) or off"
        )),
    }
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
/// `--max-rate`: bits/s, at least 8. The sender keeps the cap in whole bytes per second, as Linux's
/// SO_MAX_PACING_RATE (a rate of 0 there means no pacing at all): below 8 bit/s it cannot express it.
fn max_rate_arg(s: &str) -> Result<u64, String> {
    let r = rate_arg(s)?;
    if r < 8 {
        return Err(format!(
            "`{s}` is {r} bit/s: the sender paces in whole bytes per second (as SO_MAX_PACING_RATE), so the lowest --max-rate is 8 (1 byte/s); --max-rate is in bits per second, e.g. 24M, 8G"
        ));
    }
    Ok(r)
}

/// The sender's MSS as configured (`SenderConfig::new`: 1460 bytes).
const SENDER_MSS: u64 = 1460;

/// Refuse a `--max-rate` at which `--bytes` cannot be sent within `--time-limit` (each flow sends
/// `--bytes`; the first UNPACED_SEGS segments of a connection leave unpaced, as in Linux).
fn check_max_rate_fits(a: &SendArgs) -> Result<()> {
    let Some(rate) = a.max_rate else {
        return Ok(());
    };
    let bytes_per_s = rate / 8;
    let paced = a
        .bytes
        .saturating_sub(tsnic::edt::pacing::UNPACED_SEGS * SENDER_MSS);
    let need_ns = (u128::from(paced) * 1_000_000_000 / u128::from(bytes_per_s.max(1)))
        .min(u128::from(u64::MAX)) as u64;
    if need_ns > a.time_limit {
        bail!(
            "--max-rate {rate} bit/s ({bytes_per_s} bytes/s) sends --bytes {} in at least {:.3} s (the first {} segments leave unpaced), beyond --time-limit {:.3} s: raise --max-rate or --time-limit, or send fewer --bytes",
            a.bytes,
            need_ns as f64 / 1e9,
            tsnic::edt::pacing::UNPACED_SEGS,
            a.time_limit as f64 / 1e9
        );
    }
    Ok(())
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
tsnic send --card model --cc bbr --bytes 20MB --path rate=1G,rtt=1ms,buffer=100KB\n  \
tsnic send --card model --peer linux --cc cubic --bytes 20MB   (real Linux TCP receiver; root)\n  \
tsnic send --card model --peer linux --path rate=1G,rtt=1ms,buffer=1MB,loss=0.01 --drop-burst 10@300"
)]
pub struct SendArgs {
    /// Congestion control.
    #[arg(long, value_enum, default_value = "cubic")]
    pub cc: CcArg,
    /// Bytes per flow (in --rr mode: request bytes per flow). Sizes: 10MB, 64KB, 1500.
    #[arg(long, default_value = "10MB", allow_hyphen_values = true, value_parser = size_arg)]
    pub bytes: u64,
    /// Network path: rate=10G,rtt=100us,buffer=1MB[,loss=0.001][,reorder=0.01][,reorder_delay=20us]
    /// [default: rate=10G,rtt=100us,buffer=1MB; with --peer linux: no path model unless given]
    #[arg(long)]
    pub path: Option<String>,
    /// Number of parallel flows (each to its own receiver port).
    #[arg(long, default_value_t = 1, allow_hyphen_values = true, value_parser = super::common::usize_arg)]
    pub flows: usize,
    /// Maximum pacing rate per flow (SO_MAX_PACING_RATE), in bits per second: 24M, 8G, 500k, 9600.
    /// At least 8 (1 byte/s: the cap is kept in whole bytes per second, as Linux does, rounded
    /// down); as in Linux the first 10 segments of a connection leave unpaced.
    #[arg(long, allow_hyphen_values = true, value_parser = max_rate_arg)]
    pub max_rate: Option<u64>,
    /// TCP_NOTSENT_LOWAT: the application writes only while unsent bytes are below this.
    #[arg(long, allow_hyphen_values = true, value_parser = size_arg)]
    pub notsent_lowat: Option<u64>,
    /// Request/response mode: requests of SIZE bytes, one outstanding; reports latency.
    #[arg(long, allow_hyphen_values = true, value_parser = size_arg)]
    pub rr: Option<u64>,
    /// Pacing model: edt (the sender stamps launch times) or queue (pre-EDT sch_fq pacer,
    /// samples stamped at enqueue).
    #[arg(long, value_enum, default_value = "edt")]
    pub pacing_model: PacingModelArg,
    /// As Linux without sch_fq (this machine's kernel; the `--sender kernel` baseline): a flow is
    /// paced only if its congestion control asks (BBR) or --max-rate is set, so CUBIC's segments
    /// leave as cwnd allows. Default: every flow paced, as behind fq (the card is the EDT qdisc).
    #[arg(long)]
    pub no_fq: bool,
    /// As Linux with net.ipv4.tcp_slow_start_after_idle=0: cwnd is kept across idle periods.
    /// Default (Linux's): after more than an RTO without sending, cwnd restarts
    /// (`tcp_cwnd_restart`: halved per idle RTO, down to the initial window).
    #[arg(long)]
    pub no_slow_start_after_idle: bool,
    /// The simulated receiver's NAPI poll and GRO: `on` (as Linux: back-to-back segments of one
    /// poll are merged up to 64 KB and ACKed as one) or `off` (the default: every segment
    /// reaches TCP alone). See docs/EDT.md "The network model".
    #[arg(long, value_enum, default_value = "off")]
    pub gro: OnOff,
    /// BBR's ACK-aggregation cwnd term (`bbr_extra_acked`, on in Linux 4.20+): `on` or `off`
    /// (the default; docs/EDT.md "Differences from Linux").
    #[arg(long, value_enum, default_value = "off")]
    pub bbr_extra_acked: OnOff,
    /// net.ipv4.tcp_tso_rtt_log of the sender (Linux 5.18+: 9): below 2^N us of min RTT a burst
    /// grows toward 64 KB (`tcp_tso_autosize`); `off` (the default, see docs/EDT.md "TSO
    /// autosizing"): bursts from the pacing rate alone, as before 5.18.
    #[arg(long, default_value = "off", value_parser = rtt_log_arg)]
    pub tso_rtt_log: RttLog,
    /// With --pacing-model edt: where RTT and delivery-rate samples start.
    #[arg(long, value_enum, default_value = "scheduled")]
    pub stamp: StampArg,
    /// Who waits for launch times: the card, or a host pacing timer (see --jitter).
    #[arg(long, value_enum, default_value = "card")]
    pub pacer: PacerArg,
    /// Injected sender wake-up jitter: each pacing-timer wake-up is late by U[0, JITTER].
    #[arg(long, default_value = "0ns", allow_hyphen_values = true, value_parser = dur_arg)]
    pub jitter: u64,
    /// Turn off the EDT jitter credit (to measure what it buys).
    #[arg(long)]
    pub no_jitter_credit: bool,
    /// Seed of every random choice (same seed, same run).
    #[arg(long, default_value_t = 1, allow_hyphen_values = true, value_parser = super::common::u64_arg)]
    pub seed: u64,
    /// Card to send through: `sim` (the Verilated RTL, 10G line only), `sim:board` (the board build,
    /// 10G) or `model` (software model).
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
    /// Write the report as JSON to FILE (`-`: to stdout, in place of the table).
    #[arg(long)]
    pub report: Option<PathBuf>,
    /// Write the frames the card sent to FILE as pcapng (name it .pcapng; ns timestamps = departure time).
    /// With --peer linux: both directions as the TAP saw them.
    #[arg(long)]
    pub pcap: Option<PathBuf>,
    /// Send to the real Linux TCP stack in real time: `linux` creates a network namespace, a
    /// TAP into it and a socket receiver (all removed at the end); `linux:NETNS` uses an
    /// existing namespace. Needs root and /dev/net/tun. --card model: real time on the
    /// host clock; --card sim: the Verilated card, unsynchronised (function, not timing).
    #[arg(long, value_name = "linux[:NETNS]")]
    pub peer: Option<String>,
    /// With --peer linux: `edt` (this sender) or `kernel` (Linux's own TCP from a second
    /// namespace over the same path: the baseline to compare with).
    #[arg(long, value_enum, default_value = "edt")]
    pub sender: SenderArg,
    /// With --peer linux and --path: drop COUNT consecutive data frames from data frame START
    /// on (e.g. 10@500).
    #[arg(long, value_name = "COUNT@START", value_parser = burst_arg)]
    pub drop_burst: Option<Burst>,
    /// With --peer linux: the Linux receiver's SO_RCVBUF (default: autotuning).
    #[arg(long, value_parser = size_arg)]
    pub peer_rcvbuf: Option<u64>,
    /// With --peer linux: the Linux receiver reads at most this many bytes per second
    /// (a slow reader, to see the sender honour its window). Sizes: 2MB.
    #[arg(long, value_parser = size_arg)]
    pub peer_read_rate: Option<u64>,
    /// With --peer linux: the Linux receiver process itself writes its own account to FILE
    /// (JSON: bytes read from the socket, their SHA-256, whether it read EOF, i.e. the sender's
    /// FIN, and whether the sender acknowledged Linux's FIN), not through this process.
    #[arg(long, value_name = "FILE")]
    pub peer_evidence: Option<PathBuf>,
    /// Run a PTP ordinary clock beside the sender on the card (docs/PTP.md): ROLE slave|master|auto,
    /// then options as `tsnic push --ptp` (one-step, log-sync=N, log-announce=N, domain=N,
    /// priority1=N, queue=N, rx-queue=N, poll=US, mac=, ip=). L2 transport only: the clock gets PTP
    /// by EtherType on RX queue 1 (rx-queue=N), the sender's ACKs keep queue 0; --card sim only. A
    /// slave's steps and trims of the PHC do not move the sender's clock: launch times are mapped
    /// to the PHC as they are posted (docs/PTP.md, "A slave beside send").
    #[arg(long, value_name = "ROLE[,OPT...]", value_parser = parse_ptp)]
    pub ptp: Option<String>,
    /// Simulation: a grandmaster in software at the far end of the path for `--ptp slave` to follow
    /// (the path model carries TCP only; docs/PTP.md "A slave beside send"): offset=T (its clock
    /// minus the card's PHC; ns, us, ms, s), ppb=N (its rate), log-sync=N, log-announce=N,
    /// delay=T (one way). Default offset=0,ppb=0,log-sync=-7,log-announce=-3,delay=2345ns.
    #[arg(long, value_name = "OPT[,OPT...]", value_parser = parse_ptp_master, allow_hyphen_values = true)]
    pub ptp_master: Option<tsnic::ptp::path_master::PathMasterConfig>,
}

fn parse_ptp_master(s: &str) -> Result<tsnic::ptp::path_master::PathMasterConfig, String> {
    tsnic::ptp::path_master::PathMasterConfig::parse(s)
}

/// `--ptp`: push's syntax, then what beside send allows (L2, not the ACKs' RX queue 0).
fn parse_ptp(s: &str) -> Result<String, String> {
    tsnic::ptp::beside::BesideSpec::parse(s)?.for_send(s)?;
    Ok(s.to_string())
}

#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
pub enum SenderArg {
    /// The EDT TCP sender of this tool.
    Edt,
    /// Linux's own TCP (baseline; --peer linux only).
    Kernel,
}

fn burst_arg(s: &str) -> Result<Burst, String> {
    parse_burst(s).ok_or_else(|| format!("`{s}` is not COUNT@START; use e.g. 10@500"))
}

const DEFAULT_PATH: &str = "rate=10G,rtt=100us,buffer=1MB";

fn run_peer(a: SendArgs, peer: &str) -> Result<()> {
    let spec = match peer.split_once(':') {
        None if peer == "linux" => PeerSpec::Create,
        Some(("linux", ns)) if !ns.is_empty() => PeerSpec::Existing(ns.to_string()),
        _ => anyhow::bail!("--peer `{peer}` is not known; use `linux` or `linux:NETNS`"),
    };
    let mut unsupported = Vec::new();
    if a.flows != 1 {
        unsupported.push("--flows (one connection)");
    }
    if a.rr.is_some() {
        unsupported.push("--rr");
    }
    if a.notsent_lowat.is_some() {
        unsupported.push("--notsent-lowat");
    }
    if !matches!(a.pacing_model, PacingModelArg::Edt) || !matches!(a.pacer, PacerArg::Card) {
        unsupported.push("--pacing-model queue / --pacer host");
    }
    if a.jitter != 0 || a.no_jitter_credit {
        unsupported.push("--jitter / --no-jitter-credit (real time has its own jitter)");
    }
    if a.ptp.is_some() || a.ptp_master.is_some() {
        unsupported.push("--ptp / --ptp-master (they run beside the simulated path's sender only)");
    }
    if !unsupported.is_empty() {
        anyhow::bail!(
            "--peer linux does not support {} yet; drop them",
            unsupported.join(", ")
        );
    }
    if a.card == CardArg::SimBoard {
        anyhow::bail!(
            "--peer linux runs with --card sim or --card model, not on the simulated board yet"
        );
    }
    if matches!(a.card, CardArg::Sim) && a.sender == SenderArg::Kernel {
        anyhow::bail!("--sender kernel is the kernel's own TCP: use it with --card model");
    }
    let path = match &a.path {
        Some(p) => Some(parse_path(p).context("the --path value is not valid")?),
        None => None,
    };
    let small = |v: Option<u64>, what: &str| -> Result<Option<u32>> {
        v.map(|x| u32::try_from(x).with_context(|| format!("{what} must be below 4 GB")))
            .transpose()
    };
    let cfg = LinuxRunConfig {
        peer: spec,
        cc: match a.cc {
            CcArg::Cubic => CcKind::Cubic,
            CcArg::Bbr => CcKind::Bbr,
        },
        bytes: a.bytes,
        line_rate_bps: a.line_rate,
        path,
        path_text: a.path.clone(),
        burst: a.drop_burst,
        seed: a.seed,
        time_limit_ns: a.time_limit,
        tick_ns: a.tick,
        max_rate_bps: a.max_rate,
        fq: !a.no_fq,
        slow_start_after_idle: !a.no_slow_start_after_idle,
        tso_rtt_log: a.tso_rtt_log.0,
        rcvbuf: small(a.peer_rcvbuf, "--peer-rcvbuf")?,
        read_rate: a.peer_read_rate,
        capture: a.pcap.is_some(),
        evidence: match &a.peer_evidence {
            // The receiver runs under `ip netns exec`: give it a path that does not depend on
            // its working directory; an old file is removed so it is never taken for this run's.
            Some(p) => {
                let abs = std::path::absolute(p)
                    .with_context(|| format!("--peer-evidence {}", p.display()))?;
                match std::fs::remove_file(&abs) {
                    Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                        return Err(e).with_context(|| {
                            format!("cannot replace --peer-evidence {}", abs.display())
                        })
                    }
                    _ => {}
                }
                Some(abs)
            }
            None => None,
        },
    };
    let stop = stop_flag()?;
    let report = match (a.card, a.sender) {
        (CardArg::SimBoard, _) => unreachable!("refused above"),
        (CardArg::Sim, _) => {
            eprintln!(
                "note: --card sim --peer linux is UNSYNCHRONISED: the Verilated card runs on \
                 simulated time (about a wall second per simulated ms), Linux on the host's; \
                 this checks function, not timing"
            );
            run_edt_sim(&cfg, stop)
        }
        (CardArg::Model, SenderArg::Edt) => run_edt(&cfg, stop),
        (CardArg::Model, SenderArg::Kernel) => run_kernel(&cfg, stop),
    }
    .context("the run against Linux did not happen")?;
    write_outputs(&a, &report.table(), &report, &report.pcap)?;
    if !report.ok() {
        anyhow::bail!(
            "the transfer to Linux did not complete cleanly (completed={}, sha256_match={}, \
             RSTs={}); see the report",
            report.completed,
            report.peer.sha256_match,
            report.peer.rst_from_linux + report.peer.rst_from_sender
        );
    }
    Ok(())
}

/// Check --report and --pcap before the run (a long one must not end in "cannot create"): a
/// folder, a missing folder, an unwritable place, the two on one file, a --pcap not named .pcapng
/// are refused with nothing run.
fn check_send_outputs(a: &SendArgs) -> Result<()> {
    let mut outs = Vec::new();
    if let Some(p) = &a.pcap {
        outs.push(OutPath {
            flag: "--pcap",
            path: p,
            exts: &["pcapng"],
        });
    }
    if let Some(p) = &a.peer_evidence {
        outs.push(OutPath {
            flag: "--peer-evidence",
            path: p,
            exts: &[],
        });
    }
    if let Some(p) = a.report.as_ref().filter(|p| p.as_os_str() != "-") {
        outs.push(OutPath {
            flag: "--report",
            path: p,
            exts: &[],
        });
    }
    check_outputs(&[], &outs)
}

/// The table (or, with `--report -`, the JSON report in its place) on stdout, then the files. A
/// write that fails (a full disk) fails the command: a half-written file is not presented as whole.
fn write_outputs<R: serde::Serialize>(
    a: &SendArgs,
    table: &str,
    report: &R,
    frames: &[(u64, Vec<u8>)],
) -> Result<()> {
    let to_stdout = a.report.as_deref().is_some_and(|p| p.as_os_str() == "-");
    if to_stdout {
        outln!("{}", serde_json::to_string_pretty(report)?);
    } else {
        out!("{table}");
    }
    if let Some(p) = a.report.as_ref().filter(|_| !to_stdout) {
        let write = || -> Result<()> {
            let mut w = BufWriter::new(File::create(p)?);
            serde_json::to_writer_pretty(&mut w, report)?;
            w.flush()?;
            Ok(())
        };
        write().with_context(|| format!("cannot write --report {}", p.display()))?;
    }
    if let Some(p) = &a.pcap {
        let write = || -> Result<()> {
            let mut w = BufWriter::new(File::create(p)?);
            write_pcapng(&mut w, frames)?;
            w.flush()?;
            Ok(())
        };
        write().with_context(|| format!("cannot write --pcap {}", p.display()))?;
    }
    Ok(())
}

pub fn run(a: SendArgs) -> Result<()> {
    check_max_rate_fits(&a)?;
    check_send_outputs(&a)?;
    if let Some(peer) = a.peer.clone() {
        return run_peer(a, &peer);
    }
    if a.sender != SenderArg::Edt
        || a.drop_burst.is_some()
        || a.peer_rcvbuf.is_some()
        || a.peer_read_rate.is_some()
        || a.peer_evidence.is_some()
    {
        anyhow::bail!(
            "--sender, --drop-burst, --peer-rcvbuf, --peer-read-rate and --peer-evidence need --peer linux"
        );
    }
    if matches!(a.pacing_model, PacingModelArg::Queue) && matches!(a.stamp, StampArg::Departure) {
        anyhow::bail!(
            "--stamp departure is for --pacing-model edt (the queue model stamps samples at enqueue): drop one of them"
        );
    }
    let path_text = a.path.clone().unwrap_or_else(|| DEFAULT_PATH.to_string());
    let path = parse_path(&path_text).context("the --path value is not valid")?;
    let cfg = RunConfig {
        card: match a.card {
            CardArg::Model => CardKind::Model,
            CardArg::Sim => CardKind::Sim,
            CardArg::SimBoard => CardKind::SimBoard,
        },
        cc: match a.cc {
            CcArg::Cubic => CcKind::Cubic,
            CcArg::Bbr => CcKind::Bbr,
        },
        flows: a.flows,
        bytes: a.bytes,
        path,
        path_text,
        line_rate_bps: a.line_rate,
        max_rate_bps: a.max_rate,
        notsent_lowat: a.notsent_lowat,
        rr: a.rr,
        pacing_model: match a.pacing_model {
            PacingModelArg::Edt => PacingModel::Edt,
            PacingModelArg::Queue => PacingModel::Queue,
        },
        fq: !a.no_fq,
        slow_start_after_idle: !a.no_slow_start_after_idle,
        gro: a.gro == OnOff::On,
        tso_rtt_log: a.tso_rtt_log.0,
        bbr_extra_acked: a.bbr_extra_acked == OnOff::On,
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
        ptp: a.ptp.clone(),
        ptp_master: a.ptp_master,
        // Ctrl-C / SIGTERM end the run at its next event: the outputs are written from what was
        // done and the command fails, saying so.
        stop: Some(super::common::stop_on_signals()?),
        ..RunConfig::default()
    };
    let report = run_loop(&cfg).context("the simulation could not start; check the options")?;
    write_outputs(&a, &report.table(), &report, &report.pcap)?;
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
