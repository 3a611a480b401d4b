//! `tsnic push TRACE`: send a pacing trace (format v1, docs/TRACE_FORMAT.md) through the card.
//!
//! Also the output side shared with `tsnic replay`: opening the card (with the sim's wire tap),
//! the progress bar, `--pcap`, `--report`, `--plot` and the summary table.

use crate::cli::out::{out, outln};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context, Result};
use clap::{Args, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use tsnic::capture::PcapNgOut;
use tsnic::contract::{reg, HorizonPolicy, LatePolicy};
#[cfg(feature = "sim")]
use tsnic::device::sim::{CoreSize, LineRate, SimBackend, SimConfig, Width, WireTap};
#[cfg(feature = "sim")]
use tsnic::device::DeviceError;
use tsnic::device::{BackendSpec, Card, SimOptions};
use tsnic::push::{
    self, FrameSource, JobFrame, Outcome, PushError, PushOptions, Report, ReportContext,
};
use tsnic::trace::{self, Limits};

use super::common::{check_outputs, OutPath};

/// Late policy on the command line.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum LateArg {
    /// Send a late frame at once (SENT_LATE).
    Send,
    /// Drop it (DROPPED_LATE).
    Drop,
}

/// Horizon policy on the command line.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum HorizonArg {
    /// Drop a frame beyond the horizon (DROPPED_HORIZON).
    Drop,
    /// Cap its launch time to the horizon.
    Cap,
}

/// Options shared by `push` and `replay`.
#[derive(Args, Debug, Clone)]
pub struct RunArgs {
    /// Card to use: `sim` (the Verilated RTL at the board's size: 4096 queues, 65536 entries, 10 s
    /// horizon; default; `sim:small`: 8 queues, 1024 entries, 100 ms horizon, a shorter reset, for
    /// tests; `sim:state=PATH|none` chooses the saved card, see `tsnic sim`), `vfio:DDDD:BB:DD.F`
    /// (a real card) or `null` (no card: a host thread completes every descriptor SENT at its
    /// launch time, at once, so the host path alone is measured; the summary ends with `host: N ns
    /// per frame, M Mpps`, N = wall time of the post+reap loop (posting, doorbells, completion
    /// reaping, buffer recycling; not reading the input, opening the card or writing outputs)
    /// divided by the frames completed, M = 1000 / N).
    #[arg(long, default_value = "sim")]
    pub backend: String,
    /// Write the wire as pcapng (name it .pcapng), nanosecond timestamps = actual departure (TAI ns).
    #[arg(long, value_name = "FILE")]
    pub pcap: Option<PathBuf>,
    /// Write a JSON report (counts, departure error percentiles, duration, rates, every frame); `-`:
    /// to stdout, in place of the summary table. A job cut short (an error, Ctrl-C) still writes
    /// it, marked `partial`.
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
    /// Leave the per-frame list out of --report (long runs: it takes ~190 bytes per frame).
    #[arg(long, requires = "report")]
    pub report_no_frames: bool,
    /// Draw the departure-error histogram (.png or .svg, by extension).
    #[arg(long, value_name = "FILE")]
    pub plot: Option<PathBuf>,
    /// Time 0 of a relative schedule is the PHC at start plus this lead (default: chosen from the
    /// card's lookahead and the first ring-fulls). ns, or with a unit: 50us, 2ms.
    #[arg(long, value_name = "NS", allow_hyphen_values = true, value_parser = super::common::ns_arg)]
    pub lead_ns: Option<u64>,
    /// What each queue does with a frame whose launch time has passed when the card sees it (a lead
    /// too short for the first rows, a ring that fell behind).
    #[arg(long, value_enum, default_value = "send")]
    pub late: LateArg,
    /// What each queue does with a launch time beyond the card's horizon. Rows are held in host memory
    /// and posted once within the horizon (less 1 ms), so this only decides for a frame the card
    /// still refuses (e.g. after the PHC was stepped back while it waited).
    #[arg(long, value_enum, default_value = "drop")]
    pub horizon: HorizonArg,
    /// Program this payload lookahead (CTRL_LOOKAHEAD_NS) instead of choosing one from the longest
    /// frame. ns, or with a unit: 4us.
    #[arg(long, value_name = "NS", allow_hyphen_values = true, value_parser = super::common::ns32_arg)]
    pub lookahead_ns: Option<u32>,
    /// log2 of each TX ring's size (at most the card's CAP_RING_LOG2_MAX and 15).
    #[arg(long, default_value_t = 10, allow_hyphen_values = true, value_parser = super::common::u32_arg)]
    pub ring_log2: u32,
    /// Exit non-zero when any frame was not sent (dropped late, dropped beyond the horizon, rejected
    /// or flushed). The outputs are written either way.
    #[arg(long)]
    pub strict: bool,
    /// Refuse a job whose last launch time is more than this after the card's PHC at the start
    /// (every row is held until the card can take it; e.g. 3600s, 1.5ms).
    #[arg(long, value_name = "TIME", default_value = "86400s", allow_hyphen_values = true, value_parser = parse_duration_ns)]
    pub hold_limit: u64,
    /// sim: line rate in Gb/s (10, 25 or 100).
    #[arg(long, default_value = "10")]
    pub line_rate: String,
    /// sim: the 512-bit configuration (needed for 25 and 100 Gb/s; build with `--features wide`).
    #[arg(long)]
    pub wide: bool,
    /// sim: host-memory read latency in ns (or with a unit: 2us), 1..=100000 (PCIe-like: about 1 us). For this command
    /// only: a kept card does not keep it.
    #[arg(long, default_value_t = 800, allow_hyphen_values = true, value_parser = super::common::ns_arg)]
    pub read_latency_ns: u64,
    /// sim: only count wire frames, do not keep their bytes (long benchmarks; no wire check).
    #[arg(long)]
    pub no_wire_record: bool,
    /// Print no summary table.
    #[arg(long)]
    pub quiet: bool,
}

/// Arguments of `tsnic push`.
#[derive(Args, Debug)]
pub struct PushArgs {
    /// The pacing trace (CSV, format v1: `launch_ns,queue,len`); `-`: read it from stdin.
    pub trace: PathBuf,
    /// Launch times are absolute TAI ns of the card's PHC, not relative to the start.
    #[arg(long)]
    pub absolute: bool,
    #[command(flatten)]
    pub run: RunArgs,
}

/// An open card plus, on sim, the tap on its wire.
pub struct Opened {
    /// The card.
    pub card: Card,
    /// The wire tap (sim only).
    #[cfg(feature = "sim")]
    pub tap: Option<WireTap>,
}

/// Open the card for a push or replay; on sim with the wire tapped.
pub fn open(args: &RunArgs) -> Result<Opened> {
    let spec: BackendSpec = args
        .backend
        .parse()
        .with_context(|| format!("cannot open the card `{}`", args.backend))?;
    let BackendSpec::Sim(sim_opts) = spec else {
        if args.wide || args.line_rate != "10" || args.read_latency_ns != 800 {
            bail!("--wide, --line-rate and --read-latency-ns configure the simulator; drop them for `--backend {}`", args.backend);
        }
        let card = Card::open(&args.backend)
            .with_context(|| format!("cannot open the card `{}`", args.backend))?;
        return Ok(Opened {
            card,
            #[cfg(feature = "sim")]
            tap: None,
        });
    };
    open_sim(args, &sim_opts)
}

/// Without the `sim` feature: the backend's error, which says how to get a build with the simulator.
#[cfg(not(feature = "sim"))]
fn open_sim(_args: &RunArgs, _opts: &SimOptions) -> Result<Opened> {
    let card = Card::open("sim").context("cannot open the card `sim`")?;
    Ok(Opened { card })
}

/// A simulated run whose schedule spans this long (10 ms) says so up front.
#[cfg(feature = "sim")]
const LONG_RUN_NS: u64 = 10_000_000;

/// Longest `--read-latency-ns`: 100 us.
#[cfg(feature = "sim")]
pub const MAX_READ_LATENCY_NS: u64 = 100_000;

/// The simulated card as the command line configures it (on the saved card `state` names), with its
/// wire tapped.
#[cfg(feature = "sim")]
fn open_sim(args: &RunArgs, opts: &SimOptions) -> Result<Opened> {
    if args.read_latency_ns == 0 || args.read_latency_ns > MAX_READ_LATENCY_NS {
        bail!(
            "--read-latency-ns {} is outside 1..={MAX_READ_LATENCY_NS} (1 ns to 100 us; PCIe reads take about 1 us, a few us through switches): a longer latency only makes the card idle through a lookahead and lead of twice the latency",
            args.read_latency_ns
        );
    }
    let line_rate = LineRate::parse(&args.line_rate)
        .ok_or_else(|| anyhow!("--line-rate {} is not one of 10, 25, 100", args.line_rate))?;
    if opts.board {
        // the SUME build: 10G, its own width; the PCIe model's read latency from the command line
        if args.wide || line_rate != LineRate::G10 {
            bail!("`--backend sim:board` is the SUME build (10 Gb/s, 256-bit): drop --wide and --line-rate");
        }
        let mut cfg = tsnic_sim::board::BoardConfig::default();
        cfg.pcie.read_latency_ns = args.read_latency_ns;
        let mut b = tsnic::device::sim_board::BoardBackend::new(cfg)
            .context("cannot start the simulated board")?;
        b.card().wire_mut().set_recording(!args.no_wire_record);
        let tap = b.tap();
        let card = Card::from_backend(Box::new(b), args.backend.clone())
            .context("the simulated board did not identify itself")?;
        return Ok(Opened {
            card,
            tap: Some(tap),
        });
    }
    let cfg = SimConfig {
        width: if args.wide || opts.wide {
            Width::W512
        } else {
            Width::W64
        },
        size: if opts.small {
            CoreSize::Small
        } else {
            CoreSize::Shipped
        },
        line_rate,
        read_latency_ns: args.read_latency_ns,
        ..SimConfig::default()
    };
    let mut sim = SimBackend::open(cfg, &opts.state)
        .map_err(|e| match e {
            DeviceError::Sim(m) if m.contains("Gb/s") => {
                anyhow!("{m}; pass --wide (and build with `--features wide`)")
            }
            e => anyhow!(e),
        })
        .context("cannot start the simulated card")?;
    sim.card().wire_mut().set_recording(!args.no_wire_record);
    let tap = sim.tap();
    let card = Card::from_backend(Box::new(sim), args.backend.clone())
        .context("the simulated card did not identify itself")?;
    Ok(Opened {
        card,
        tap: Some(tap),
    })
}

/// Push options from the command line.
pub fn options(args: &RunArgs) -> PushOptions {
    PushOptions {
        ring_log2: args.ring_log2,
        hold_limit_ns: args.hold_limit,
        late: match args.late {
            LateArg::Send => LatePolicy::Send,
            LateArg::Drop => LatePolicy::Drop,
        },
        horizon: match args.horizon {
            HorizonArg::Drop => HorizonPolicy::Drop,
            HorizonArg::Cap => HorizonPolicy::Cap,
        },
        ..PushOptions::default()
    }
}

/// How long the null backend's card thread may go without completing a due frame before the push
/// says the card stalled (a real card: [`PushOptions::default`]'s 5 ms).
pub const NULL_STALL_TIMEOUT_NS: u64 = 2_000_000_000;

/// The card's payload lookahead after reset (`tsnic_regs.v` LOOKAHEAD_NS_DEFAULT).
pub const RESET_LOOKAHEAD_NS: u32 = 4000;

/// Program the payload lookahead this job runs with: `--lookahead-ns`, or what the job's longest frame
/// needs (see [`push::lookahead_for`]; the host read latency is the simulator's, or 2 us on a real
/// card), never below the card's reset value. It is set, not only raised: a value an earlier command
/// left on a kept card (e.g. one run with a long `--read-latency-ns`) does not carry over. Returns
/// the value in effect.
pub fn tune_lookahead(card: &mut Card, args: &RunArgs, max_len: u32) -> u32 {
    let (caps, b) = card.parts();
    let latency = if args.backend.starts_with("sim") {
        args.read_latency_ns
    } else {
        2000
    };
    let need = push::lookahead_for(max_len, caps.tx_data_width, caps.clk_period_ns(), latency);
    let want = args
        .lookahead_ns
        .unwrap_or_else(|| need.max(RESET_LOOKAHEAD_NS));
    if b.read32(reg::CTRL_LOOKAHEAD_NS) != want {
        b.write32(reg::CTRL_LOOKAHEAD_NS, want);
    }
    want
}

/// Time 0 for a relative schedule: the PHC now plus the lead. Returns (t0, lead). `queues` is the
/// number of queues the job uses: only their rings fill before the first launch (with the card's
/// 4096 queues, sizing the lead for all of them would idle the card for 100 ms before a big job).
pub fn time_zero(
    card: &mut Card,
    args: &RunArgs,
    frames: usize,
    queues: usize,
) -> Result<(u64, u64)> {
    let (caps, b) = card.parts();
    let queues = (queues as u64).clamp(1, caps.num_queues.max(1) as u64);
    let window = (frames as u64).min(queues * (1u64 << args.ring_log2.min(15)));
    let lookahead = b.read32(reg::CTRL_LOOKAHEAD_NS) as u64;
    let lead = args
        .lead_ns
        .unwrap_or_else(|| push::default_lead_ns(window, lookahead));
    let now = push::phc_now(b);
    let t0 = now.checked_add(lead).ok_or_else(|| {
        anyhow!("--lead-ns {lead}: the card's PHC ({now} ns) plus the lead overflows 64 bits; nothing was sent")
    })?;
    Ok((t0, lead))
}

/// Parse a duration (ns, or with a unit: us, ms, s) that must not be negative.
pub fn parse_duration_ns(s: &str) -> std::result::Result<u64, String> {
    let v = super::common::parse_signed_ns(s)?;
    u64::try_from(v).map_err(|_| format!("`{s}` is negative"))
}

/// Check the outputs (`--pcap`, `--report`, `--plot`) against each other and the input, and the
/// plot's font, before anything runs.
pub fn check_run_outputs(args: &RunArgs, input_what: &str, input: &Path) -> Result<()> {
    let mut outs = Vec::new();
    if let Some(p) = &args.pcap {
        outs.push(OutPath {
            flag: "--pcap",
            path: p,
            exts: &["pcapng"],
        });
    }
    if let Some(p) = args.report.as_ref().filter(|p| p.as_os_str() != "-") {
        outs.push(OutPath {
            flag: "--report",
            path: p,
            exts: &[],
        });
    }
    if let Some(p) = &args.plot {
        outs.push(OutPath {
            flag: "--plot",
            path: p,
            exts: &["png", "svg"],
        });
        plot_font().context("--plot cannot label its axes; nothing was run")?;
    }
    check_outputs(&[(input_what, input)], &outs)
}

/// Run the job with a progress bar on a terminal, then write the outputs.
pub fn run_and_report(
    opened: Opened,
    args: &RunArgs,
    frames: &[JobFrame],
    src: &dyn FrameSource,
    t0: u64,
    lead: u64,
    check_tags: bool,
) -> Result<Report> {
    let mut opts = options(args);
    if args.backend == "null" {
        // The null card is an ordinary thread: on a loaded machine the OS may not run it for many
        // ms, which is no stall of a card. A card thread that died is still caught, after 2 s.
        opts.stall_timeout_ns = NULL_STALL_TIMEOUT_NS;
    }
    // Ctrl-C / SIGTERM stop the job: the card flushes what it holds, is saved with what it sent, and
    // the outputs are written from what was done, marked partial (a second signal exits at once).
    let stop = super::common::stop_on_signals()?;
    opts.stop = Some(stop.clone());
    let bar = if std::io::stderr().is_terminal() {
        let pb = ProgressBar::new(frames.len() as u64);
        pb.set_style(
            ProgressStyle::with_template(
                "{spinner} [{elapsed_precise}] {bar:40} {pos}/{len} frames completed ({per_sec})",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        Some(pb)
    } else {
        None
    };
    let mut progress = |done: u64, _total: u64| {
        if let Some(b) = &bar {
            b.set_position(done);
        }
    };
    let mut card = opened.card;
    if args.backend == "mem" {
        // The mem backend is registers without a card: the job is checked as on a card (so every
        // refusal reads the same), then refused, instead of waiting for a card that never runs.
        let (caps, b) = card.parts();
        push::check_job(caps, frames)?;
        push::check_options(caps, &opts)?;
        push::check_hold(frames, push::phc_now(b), opts.hold_limit_ns)?;
        push::check_time_range(frames, push::phc_now(b))?;
        bail!("`--backend mem` is a register file with no card behind it: it cannot send frames; use `sim` (the simulated card, e.g. `sim:small`) or `vfio:DDDD:BB:DD.F` (a real card); nothing was sent");
    }
    #[cfg(feature = "sim")]
    let tap = opened.tap;
    // What is in effect for this job: the backend (on sim: this command's simulator options, never a
    // kept card's earlier ones) and the payload lookahead programmed for it.
    let describe = format!(
        "{}; payload lookahead {} ns",
        card.backend().describe(),
        card.backend().read32(reg::CTRL_LOOKAHEAD_NS)
    );
    #[cfg(feature = "sim")]
    let (wall, cycles0, wire0) = (
        std::time::Instant::now(),
        tap.as_ref().map_or(0, |t| t.cycles()),
        // The wire (the card's MAC) keeps its counters across commands on a persistent card: this
        // job's share is the difference.
        tap.as_ref().map(|t| t.wire_stats()).unwrap_or_default(),
    );
    // A long simulated run says up front how much simulated time it is (it prints nothing until the
    // end without a terminal for the progress bar).
    #[cfg(feature = "sim")]
    if tap.is_some() {
        let now = push::phc_now(card.backend());
        if let Some(last) = frames.iter().map(|f| f.launch_ns).max() {
            let span = last.saturating_sub(now);
            if span >= LONG_RUN_NS {
                eprintln!(
                    "push: {} frame(s), the last launch {} after the card's PHC now: that much simulated time to run (the simulator runs slower than real time)",
                    frames.len(),
                    super::common::fmt_ns(span)
                );
            }
        }
    }
    // A job that did not run to its end still has outputs: what the card did until then, marked
    // partial; the error comes after them.
    // `posted`: false when the job was refused before anything was posted (no table then: the
    // error says it all; a --report still records it).
    let (outcome, failure, posted): (Outcome, Option<PushError>, bool) =
        match push::run(&mut card, frames, src, &opts, &mut progress) {
            Ok(o) => (o, None, true),
            Err(PushError::Cut { error, partial }) => (*partial, Some(*error), true),
            Err(e) => (Outcome::nothing_done(frames), Some(e), false),
        };
    let clk_freq_hz = card.caps().clk_freq_hz;
    // The card's part is over: a persistent simulated card is saved now, whatever the outputs do.
    super::common::close_card(card)?;
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    #[cfg(feature = "sim")]
    if let Some(t) = &tap {
        let secs = wall.elapsed().as_secs_f64();
        let cycles = t.cycles() - cycles0;
        let (mut w, m) = (t.wire_stats(), t.mem_stats());
        w.frames -= wire0.frames;
        w.underruns -= wire0.underruns;
        w.keep_errors -= wire0.keep_errors;
        eprintln!(
            "sim: {cycles} core cycles in {secs:.2} s wall ({:.2} M cycles/s); wire: {} frames, {} underruns, {} tkeep errors; host memory: {} bad accesses",
            cycles as f64 / secs.max(1e-9) / 1e6,
            w.frames,
            w.underruns,
            w.keep_errors,
            m.errors
        );
        if w.underruns > 0 || w.keep_errors > 0 || m.errors > 0 {
            bail!("the simulated wire or host memory saw protocol errors (see the line above): an RTL bug");
        }
    }
    // The simulated wire, once: for the report's simulated-time figures and for --pcap.
    #[cfg(feature = "sim")]
    let (wire_start_ps, wire_bytes, line_rate_bps) = {
        let (beats, bytes): (Option<Vec<u64>>, Option<Vec<Vec<u8>>>) = match &tap {
            Some(t) if !args.no_wire_record => {
                let w = t.take();
                (
                    Some(w.iter().map(|f| f.start_ps).collect()),
                    Some(w.into_iter().map(|f| f.bytes).collect()),
                )
            }
            _ => (None, None),
        };
        let rate = if tap.is_some() {
            LineRate::parse(&args.line_rate).map(|r| r.bits_per_s())
        } else {
            None
        };
        (beats, bytes, rate)
    };
    #[cfg(not(feature = "sim"))]
    let (wire_start_ps, wire_bytes, line_rate_bps) = (None, None::<Vec<Vec<u8>>>, None);
    let ctx = ReportContext {
        t0_ns: t0,
        lead_ns: lead,
        backend: describe,
        line_rate_bps,
        clk_period_ps: if clk_freq_hz == 0 {
            0
        } else {
            1_000_000_000_000 / u64::from(clk_freq_hz)
        },
        wire_start_ps,
    };
    let mut report = Report::new(&outcome, &ctx);
    let done = outcome.results.len();
    if let Some(e) = &failure {
        report.mark_partial(e.to_string());
    }

    if let Some(path) = &args.pcap {
        let packets = match push::wire_packets(&outcome.results, frames, src, wire_bytes) {
            Ok(p) => p,
            // A job cut short may leave frames on the wire whose completion never came back: the
            // partial capture then holds the bytes that were posted for the completed frames.
            Err(e) if failure.is_some() => {
                eprintln!("warning: --pcap of the partial run: {e}; writing the posted bytes of the frames the card completed as sent");
                push::wire_packets(&outcome.results, frames, src, None).map_err(|e| anyhow!(e))?
            }
            Err(e) => bail!("the wire does not match the completions: {e}"),
        };
        if check_tags {
            for p in &packets {
                match trace::parse_frame(&p.data) {
                    Some(tag) if tag.index == p.index => {}
                    _ => bail!("the wire frame at {} ns is not trace row {}: the card reordered or corrupted it", p.ts_ns, p.index),
                }
            }
        }
        let mut w = PcapNgOut::create(path)
            .with_context(|| format!("cannot write --pcap {}", path.display()))?;
        for p in &packets {
            w.write(p.ts_ns, &p.data)?;
        }
        w.finish()?;
    }
    let report_to_stdout = args.report.as_deref() == Some(Path::new("-"));
    if let Some(path) = args.report.as_ref().filter(|_| !report_to_stdout) {
        let write = || -> std::io::Result<()> {
            let mut w = std::io::BufWriter::new(std::fs::File::create(path)?);
            report.write_json(&mut w, !args.report_no_frames)?;
            std::io::Write::flush(&mut w)
        };
        write().with_context(|| format!("cannot write --report {}", path.display()))?;
    }
    if let Some(path) = &args.plot {
        let mut errs: Vec<i64> = outcome
            .results
            .iter()
            .filter(|r| r.on_wire())
            .map(|r| r.error_ns())
            .collect();
        errs.sort_unstable();
        plot_histogram(path, &errs)
            .with_context(|| format!("cannot draw --plot {}", path.display()))?;
    }
    if report_to_stdout {
        // `--report -`: the JSON on stdout, in place of the table.
        let mut json = Vec::new();
        report.write_json(&mut json, !args.report_no_frames)?;
        out!("{}", String::from_utf8_lossy(&json));
    } else if !args.quiet && posted {
        out!("{}", report.table());
    }
    if args.backend == "null" && posted && !outcome.results.is_empty() {
        // The null backend's figure: the host path alone (see --backend). On stderr when stdout
        // carries the JSON report; printed with --quiet too.
        let line = host_line(outcome.loop_wall_ns, outcome.results.len() as u64);
        if report_to_stdout {
            eprintln!("{line}");
        } else {
            outln!("{line}");
        }
    }
    if posted {
        for w in report.warnings() {
            eprintln!("warning: {w}");
        }
    }
    if let Some(e) = failure {
        let outputs: Vec<&str> = [
            (args.report.is_some(), "--report"),
            (args.pcap.is_some(), "--pcap"),
            (args.plot.is_some(), "--plot"),
        ]
        .iter()
        .filter_map(|&(on, f)| on.then_some(f))
        .collect();
        let kept = if outputs.is_empty() {
            String::new()
        } else {
            format!(
                "; {} hold(s) what was done until then{}",
                outputs.join(", "),
                if args.report.is_some() {
                    ", the report marked `partial`"
                } else {
                    ""
                }
            )
        };
        if !posted {
            let kept = if outputs.is_empty() {
                String::new()
            } else {
                format!(" ({} say(s) so)", outputs.join(", "))
            };
            return Err(anyhow!(e).context(format!("nothing was sent{kept}")));
        }
        return Err(anyhow!(e).context(format!(
            "the push did not run to its end ({done} of {} frame(s) completed{kept})",
            frames.len()
        )));
    }
    if stop.load(std::sync::atomic::Ordering::Relaxed) {
        bail!("interrupted by a signal after the job had run to its end: the outputs are complete");
    }
    let not_sent = report.not_sent();
    if args.strict && not_sent > 0 {
        bail!(
            "--strict: {not_sent} of {} frame(s) were not sent (see the warning above)",
            report.packets
        );
    }
    Ok(report)
}

/// The null backend's summary line: `host: N ns per frame, M Mpps` for `frames` completed in
/// `wall_ns` of the post+reap loop.
pub fn host_line(wall_ns: u64, frames: u64) -> String {
    let per = wall_ns as f64 / frames.max(1) as f64;
    let mpps = if wall_ns == 0 {
        0.0
    } else {
        frames as f64 * 1e3 / wall_ns as f64
    };
    format!("host: {per:.1} ns per frame, {mpps:.2} Mpps")
}

/// Frames of a trace: generated from the row (header, row index, launch time, pattern).
pub struct TraceFrames;

impl FrameSource for TraceFrames {
    fn frame(&self, f: &JobFrame, out: &mut Vec<u8>) {
        trace::build_frame(f.index, f.launch_ns, f.len as usize, out);
    }
}

/// Run `tsnic push`.
pub fn run(args: PushArgs) -> Result<()> {
    // From the start: a signal while the trace is read or the card opened is caught too (the job
    // then stops before posting anything, and the card is still saved).
    super::common::stop_on_signals()?;
    // `-`: the trace on stdin (as `--report -` is stdout)
    let from_stdin = args.trace.as_os_str() == "-";
    if !from_stdin {
        check_run_outputs(&args.run, "the trace", &args.trace)?;
    } else {
        check_run_outputs(&args.run, "the trace", Path::new("/dev/stdin"))?;
    }
    let shown = if from_stdin {
        "the trace on stdin".to_string()
    } else {
        args.trace.display().to_string()
    };
    let bytes = if from_stdin {
        use std::io::Read;
        let mut b = Vec::new();
        std::io::stdin()
            .lock()
            .read_to_end(&mut b)
            .context("cannot read the trace from stdin")?;
        b
    } else {
        std::fs::read(&args.trace).with_context(|| format!("cannot read the trace {shown}"))?
    };
    let text = trace_text(bytes)
        .map_err(|e| anyhow!("{}: {e}; nothing was sent (docs/TRACE_FORMAT.md)", shown))?;
    let mut opened = open(&args.run)?;
    let caps = opened.card.caps().clone();
    let limits = Limits::for_card(caps.num_queues, caps.max_frame_len);
    let tr = trace::parse(&text, &limits).map_err(|e| {
        anyhow!(
            "{}: {e}; nothing was sent (fix the trace, see docs/TRACE_FORMAT.md)",
            shown
        )
    })?;
    let max_len = tr.rows.iter().map(|r| r.len).max().unwrap_or(60);
    tune_lookahead(&mut opened.card, &args.run, max_len);
    let (t0, lead) = if args.absolute {
        (0, 0)
    } else {
        let queues: std::collections::BTreeSet<u32> = tr.rows.iter().map(|r| r.queue).collect();
        time_zero(&mut opened.card, &args.run, tr.rows.len(), queues.len())?
    };
    let mut frames = Vec::with_capacity(tr.rows.len());
    for r in &tr.rows {
        let launch_ns = t0.checked_add(r.launch_ns).ok_or_else(|| {
            anyhow!(
                "{}: line {}, field `launch_ns`: time 0 ({t0} ns) plus {} overflows 64 bits; nothing was sent",
                shown,
                r.line,
                r.launch_ns
            )
        })?;
        frames.push(JobFrame {
            index: r.index,
            queue: r.queue as u16,
            len: r.len,
            launch_ns,
        });
    }
    run_and_report(opened, &args.run, &frames, &TraceFrames, t0, lead, true)?;
    Ok(())
}

/// The trace file as text: UTF-8 (a BOM at the start is skipped by the parser); UTF-16 is named.
pub fn trace_text(bytes: Vec<u8>) -> std::result::Result<String, String> {
    if bytes.starts_with(&[0xff, 0xfe]) || bytes.starts_with(&[0xfe, 0xff]) {
        return Err(
            "the file is UTF-16 (it starts with a UTF-16 byte order mark): save it as UTF-8".into(),
        );
    }
    String::from_utf8(bytes).map_err(|e| {
        format!(
            "byte {} is not UTF-8: a trace is UTF-8 text",
            e.utf8_error().valid_up_to()
        )
    })
}

/// The DejaVu Sans font the plot's labels need (read once).
pub fn plot_font() -> Result<&'static [u8]> {
    static FONT: std::sync::OnceLock<Option<&'static [u8]>> = std::sync::OnceLock::new();
    FONT.get_or_init(|| {
        [
            "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
            "/usr/share/fonts/TTF/DejaVuSans.ttf",
        ]
        .iter()
        .find_map(|p| std::fs::read(p).ok())
        .map(|f| &*Box::leak(f.into_boxed_slice()))
    })
    .ok_or_else(|| {
        anyhow!(
            "no DejaVu Sans font for the labels: install it (`apt-get install fonts-dejavu-core`)"
        )
    })
}

/// Draw a histogram of departure errors (ns) as PNG or SVG.
pub fn plot_histogram(path: &Path, sorted_errs: &[i64]) -> Result<()> {
    use plotters::prelude::*;
    let font = plot_font()?;
    plotters::style::register_font("sans-serif", FontStyle::Normal, font)
        .map_err(|_| anyhow!("the DejaVu Sans font file does not load"))?;
    let (lo, hi) = match (sorted_errs.first(), sorted_errs.last()) {
        (Some(&a), Some(&b)) => (a, b),
        _ => (0, 0),
    };
    let bins = 50i64;
    // i128: the errors may span the whole i64 range (a capped launch time near 2^64).
    let width =
        ((hi as i128 - lo as i128) / bins as i128 + 1).clamp(1, i64::MAX as i128 / 64) as i64;
    let mut counts = vec![0u64; bins as usize + 1];
    for &e in sorted_errs {
        let bin = ((e as i128 - lo as i128) / width as i128).min(bins as i128) as usize;
        counts[bin] += 1;
    }
    let x_end = lo.saturating_add(width.saturating_mul(bins + 1));
    let ymax = counts.iter().copied().max().unwrap_or(1).max(1);
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    let title = format!(
        "departure error (departure - requested), {} frames",
        sorted_errs.len()
    );
    macro_rules! draw {
        ($root:expr) => {{
            let root = $root.into_drawing_area();
            root.fill(&WHITE)?;
            let mut chart = ChartBuilder::on(&root)
                .caption(&title, ("sans-serif", 20))
                .margin(15)
                .x_label_area_size(40)
                .y_label_area_size(60)
                .build_cartesian_2d(lo..x_end, 0u64..(ymax + ymax / 10 + 1))?;
            chart
                .configure_mesh()
                .x_desc("error (ns)")
                .y_desc("frames")
                .draw()?;
            chart.draw_series(counts.iter().enumerate().map(|(i, &c)| {
                let x0 = lo.saturating_add(i as i64 * width);
                Rectangle::new([(x0, 0), (x0.saturating_add(width), c)], BLUE.filled())
            }))?;
            root.present()?;
        }};
    }
    match ext.as_str() {
        "svg" => draw!(SVGBackend::new(path, (900, 500))),
        "png" => draw!(BitMapBackend::new(path, (900, 500))),
        _ => bail!("--plot {} must end in .png or .svg", path.display()),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histogram_png_and_svg() {
        let errs: Vec<i64> = (0..1000).map(|i| (i * i) % 97).collect::<Vec<_>>();
        let mut sorted = errs.clone();
        sorted.sort_unstable();
        for ext in ["png", "svg"] {
            let p = std::env::temp_dir().join(format!("tsnic-hist-{}.{ext}", std::process::id()));
            plot_histogram(&p, &sorted).unwrap();
            assert!(std::fs::metadata(&p).unwrap().len() > 1000, "{ext}");
            if std::env::var_os("TSNIC_KEEP_PLOT").is_none() {
                std::fs::remove_file(&p).ok();
            }
        }
        let bad = std::env::temp_dir().join("tsnic-hist.gif");
        assert!(plot_histogram(&bad, &sorted).is_err());
        // errors spanning the whole i64 range (a capped launch time near 2^64) do not overflow
        let p = std::env::temp_dir().join(format!("tsnic-hist-wide-{}.svg", std::process::id()));
        plot_histogram(&p, &[i64::MIN, -5, 0, 7, i64::MAX]).unwrap();
        std::fs::remove_file(&p).ok();
        // empty input still draws
        let p = std::env::temp_dir().join(format!("tsnic-hist-empty-{}.svg", std::process::id()));
        plot_histogram(&p, &[]).unwrap();
        std::fs::remove_file(&p).ok();
    }
}
