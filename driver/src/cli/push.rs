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
use tsnic::pipeline::{
    self,
    capture::{self as pcapin, ReplayLimits},
    histogram::Histogram,
    post::QueuePlan,
    report::ReportBuilder,
    schedule::{Config as ScheduleConfig, Retime, Schedule, ScheduleError},
    sink::{Outputs, Sink, WireTake},
    source::{open_input, CsvSource, InputError, Looped, Reopen, Source},
    RunEnd,
};
use tsnic::push::{self, FrameSource, JobFrame, PushError, PushOptions, Report, ReportContext};
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
    /// per frame, M Mpps`, N = wall time of the pipeline's loop (reading the input as it goes,
    /// posting, doorbells, completion reaping, buffer recycling, feeding the report and --pcap; not
    /// opening the card or the first ring-full read ahead) divided by the frames completed,
    /// M = 1000 / N).
    #[arg(long, default_value = "sim")]
    pub backend: String,
    /// Write the wire as pcapng (name it .pcapng), nanosecond timestamps = actual departure (TAI ns);
    /// `-`: to stdout (the summary table then goes to stderr).
    #[arg(long, value_name = "FILE")]
    pub pcap: Option<PathBuf>,
    /// Write a JSON report (counts, departure error percentiles, duration, rates, every frame); `-`:
    /// to stdout, in place of the summary table. The frame list is kept in a temporary file (about
    /// 72 bytes a frame) until the end, not in memory. A job cut short (an error, Ctrl-C) still writes
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
    /// Post from N threads, each with its own TX queues (queue q: thread q % N); `replay` spreads
    /// the flows over N queues unless --queues says otherwise, `push` follows the trace's queue
    /// column. Each queue still gets its frames in launch order. On a backend that one thread
    /// drives (the simulated card) the N shares are posted in turns by one thread.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = threads_arg)]
    pub threads: usize,
    /// Print no summary table.
    #[arg(long)]
    pub quiet: bool,
    /// Run a PTP ordinary clock on the card's port while the job runs (docs/PTP.md, "Who owns
    /// the card"): ROLE[,OPT...], ROLE slave|master|auto; OPT l2 (default) or udp4, one-step
    /// (master), log-sync=N, domain=N, priority1=N, queue=N (its TX queue, default the card's
    /// last; the job may not use it), rx-queue=N (default 0, made the default RX queue), poll=US
    /// (longest gap between its polls, default 1000), mac=XX:XX:XX:XX:XX:XX, ip=A.B.C.D. Its state,
    /// counters and offsets end the summary and go in --report as `ptp`; state changes go to
    /// stderr. Start from a clock `tsnic ptp` has locked: its first step would move the job's
    /// launch times. With one-step the default --lead-ns grows by 200 us (the clock measures its TX
    /// latency with one frame first).
    #[arg(long, value_name = "ROLE[,OPT...]", value_parser = parse_ptp)]
    pub ptp: Option<tsnic::ptp::beside::BesideSpec>,
}

fn parse_ptp(s: &str) -> std::result::Result<tsnic::ptp::beside::BesideSpec, String> {
    tsnic::ptp::beside::BesideSpec::parse(s)
}

/// `--threads`: 1..=64.
fn threads_arg(s: &str) -> Result<usize, String> {
    match super::common::u64_arg(s)? {
        n @ 1..=64 => Ok(n as usize),
        _ => Err(format!("`{s}`: give 1 to 64 threads")),
    }
}

/// Arguments of `tsnic push`.
#[derive(Args, Debug)]
pub struct PushArgs {
    /// The pacing trace (CSV, format v1: `launch_ns,queue,len`); `-`: read it from stdin.
    pub trace: PathBuf,
    /// Launch times are absolute TAI ns of the card's PHC, not relative to the start.
    #[arg(long)]
    pub absolute: bool,
    /// Rows the trace may be out of launch-time order by: the rows held in memory to put them in
    /// order (~100 bytes each). A row further out of order is refused, naming it: sort the trace.
    #[arg(long, value_name = "ROWS", default_value_t = 16384, allow_hyphen_values = true, value_parser = super::common::usize_arg)]
    pub hold_window: usize,
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
        // the board's own width and line rate; the PCIe model's read latency from the command line
        let mut cfg = opts.board_kind.config();
        if args.wide || line_rate != cfg.line_rate {
            let gbps = cfg.line_rate.bits_per_s() / 1_000_000_000;
            bail!(
                "`--backend sim:board` runs the {} build at its own width and line rate ({gbps} Gb/s): drop --wide and give --line-rate {gbps}",
                opts.board_kind.name(),
            );
        }
        cfg.pcie.read_latency_ns = args.read_latency_ns;
        // the board card kept in its state file (the PCIe model's settings are this command's)
        let mut b = tsnic::device::sim_board::BoardBackend::open(cfg, &opts.state)
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
        threads: args.threads,
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
/// card; on a board (MAC_LINK_STATUS) the reads are paced by its completion buffer,
/// [`push::BOARD_READ_WINDOW`]), never below the card's reset value. It is set, not only raised: a value an earlier command
/// left on a kept card (e.g. one run with a long `--read-latency-ns`) does not carry over. Returns
/// the value in effect.
pub fn tune_lookahead(card: &mut Card, args: &RunArgs, max_len: u32) -> u32 {
    let (caps, b) = card.parts();
    let latency = if args.backend.starts_with("sim") {
        args.read_latency_ns
    } else {
        2000
    };
    let board = tsnic::link::LinkStatus::from_raw(b.read32(reg::MAC_LINK_STATUS)).board;
    let need = push::lookahead_for(
        max_len,
        caps.tx_data_width,
        caps.clk_period_ns(),
        latency,
        board.then_some(push::BOARD_READ_WINDOW),
    );
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
    // a one-step clock beside the job measures its TX latency with one frame before the job's first
    let clock_start = match &args.ptp {
        Some(p) if p.cfg.one_step => tsnic::ptp::card::ONE_STEP_START_NS,
        _ => 0,
    };
    let lead = args
        .lead_ns
        .unwrap_or_else(|| push::default_lead_ns(window, lookahead) + clock_start);
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
    let dash = |p: &Option<PathBuf>| p.as_deref() == Some(Path::new("-"));
    if dash(&args.pcap) && dash(&args.report) {
        bail!("--pcap - and --report - both ask for stdout: one output can go there, give the other a file");
    }
    if let Some(p) = args.pcap.as_ref().filter(|p| p.as_os_str() != "-") {
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

/// What the job reads: a trace (push) or a capture (replay).
pub enum Input {
    /// A pacing trace; rows out of order by at most `window` rows.
    Trace {
        /// Hold window, rows.
        window: usize,
    },
    /// A capture, every packet on `queue`.
    Capture {
        /// TX queue.
        queue: u16,
        /// Re-timing (`--speed`, `--pps`, `--mbps`).
        retime: Retime,
        /// Passes over the capture (`--loop`).
        passes: u32,
        /// Frames at most, over all passes (`--limit`).
        limit: u64,
        /// Queues to spread the flows over (`--queues`), from `queue`; with `by_interface`, the
        /// queues the interfaces may use (0: up to the card's last).
        spread: u16,
        /// Each packet on `queue` + its pcapng interface (`--queue-by interface`).
        by_interface: bool,
    },
}

/// Frames read ahead before the first post of a replay: the first ring-full (bytes held: at most a
/// ring of the longest frames).
fn prime_count(args: &RunArgs, input: &Input) -> usize {
    match input {
        Input::Trace { window } => (*window).min(1 << 20),
        Input::Capture { .. } => 1usize << args.ring_log2.min(15),
    }
}

/// Run `tsnic push` or `tsnic replay`: the input streamed through the pipeline (source, schedule,
/// post, reap, sinks; see `tsnic::pipeline`), then the summary. `path` is the input (`-`: stdin).
pub fn run_job(args: &RunArgs, path: &Path, absolute: bool, input: Input) -> Result<Report> {
    // From the start: a signal while the input is read or the card opened is caught too (the job
    // then stops before posting anything, and the card is still saved).
    let stop = super::common::stop_on_signals()?;
    let from_stdin = path.as_os_str() == "-";
    let (what, stdin_name) = match input {
        Input::Trace { .. } => ("the trace", "the trace on stdin"),
        Input::Capture { .. } => ("the capture", "the capture on stdin"),
    };
    check_run_outputs(
        args,
        what,
        if from_stdin {
            Path::new("/dev/stdin")
        } else {
            path
        },
    )?;
    let is_trace = matches!(input, Input::Trace { .. });
    let retime = match input {
        Input::Capture { retime, .. } => retime,
        Input::Trace { .. } => Retime::Capture,
    };
    if let Input::Capture { passes, .. } = input {
        if passes > 1 && from_stdin {
            bail!("--loop {passes} reads the capture {passes} times: give a file, stdin (`-`) can be read once");
        }
        if absolute && (passes > 1 || retime != Retime::Capture) {
            bail!("--absolute sends at the capture's own TAI times: it cannot be combined with --loop, --speed, --pps or --mbps (drop --absolute to re-time from time 0)");
        }
    }
    // Why a bad input is refused, with what a user does about it.
    let refusal = move |e: &ScheduleError| -> &'static str {
        match e {
            ScheduleError::Input(InputError::Trace { .. }) => {
                "; nothing was sent (fix the trace, see docs/TRACE_FORMAT.md)"
            }
            ScheduleError::Input(InputError::Text { .. }) => {
                "; nothing was sent (docs/TRACE_FORMAT.md)"
            }
            _ => "; nothing was sent",
        }
    };
    let (reader, name) = match open_input(path, stdin_name) {
        Ok(x) => x,
        Err(e) if is_trace => {
            return Err(anyhow!(e)).context(format!("cannot read the trace {}", path.display()))
        }
        Err(e) => {
            let e = tsnic::capture::CaptureError::Io {
                path: path.display().to_string(),
                source: e,
            };
            return Err(anyhow!(e)).context("cannot replay it");
        }
    };
    // A capture's header is read before the card is opened (a file that is no capture is refused
    // without starting the card).
    let (mut capture, mut reader) = match input {
        Input::Capture { queue, .. } => (
            Some(
                pcapin::open_capture(
                    reader,
                    name,
                    ReplayLimits {
                        queue,
                        max_len: 9000,
                        spread: 1,
                        by_interface: false,
                    },
                )
                .map_err(|e| anyhow!(e))
                .context("cannot replay it")?,
            ),
            None,
        ),
        Input::Trace { .. } => (None, Some((reader, name))),
    };
    let mut opened = open(args)?;
    let caps = opened.card.caps().clone();
    let max_frame = if caps.max_frame_len == 0 {
        9000
    } else {
        caps.max_frame_len
    };
    let (source, window, replay): (Box<dyn Source>, usize, bool) = match (
        &input,
        capture.take(),
        reader.take(),
    ) {
        (
            Input::Capture {
                queue,
                passes,
                limit,
                spread,
                by_interface,
                ..
            },
            Some(mut c),
            _,
        ) => {
            if u32::from(*queue) >= caps.num_queues {
                bail!(
                    "--queue {queue} does not exist: the card has {} queue(s)",
                    caps.num_queues
                );
            }
            let spread = &if *by_interface && *spread == 0 {
                u16::try_from(caps.num_queues - u32::from(*queue)).unwrap_or(u16::MAX)
            } else {
                *spread
            };
            if u32::from(*queue) + u32::from(*spread) > caps.num_queues {
                bail!(
                        "--queues {spread} from queue {queue} needs queues {queue}..={}, but the card has {} queue(s)",
                        u32::from(*queue) + u32::from(*spread) - 1,
                        caps.num_queues
                    );
            }
            let limits = ReplayLimits {
                queue: *queue,
                max_len: max_frame,
                spread: *spread,
                by_interface: *by_interface,
            };
            c.set_limits(limits);
            // Each further pass opens the file again (stdin was refused with --loop).
            let file = path.to_path_buf();
            let reopen: Reopen<'static> = Box::new(move || {
                let (r, name) = open_input(&file, "the capture").map_err(|e| {
                    InputError::Capture(tsnic::capture::CaptureError::Io {
                        path: file.display().to_string(),
                        source: e,
                    })
                })?;
                Ok(Box::new(pcapin::open_capture(r, name, limits)?) as Box<dyn Source>)
            });
            // One whole pass: the capture itself (the wrapper would number its frames the same).
            let src: Box<dyn Source> = if *passes == 1 && *limit == u64::MAX {
                Box::new(c)
            } else {
                Box::new(Looped::new(Box::new(c), reopen, *passes, *limit))
            };
            (src, 0, true)
        }
        (Input::Trace { window }, _, Some((r, name))) => {
            let limits = Limits::for_card(caps.num_queues, caps.max_frame_len);
            (Box::new(CsvSource::new(r, name, limits)), *window, false)
        }
        _ => bail!("the input was not opened: a driver bug"),
    };
    let mut sched = Schedule::new(
        source,
        ScheduleConfig {
            window,
            absolute,
            from_first: replay,
            clamp_backwards: replay,
            hold_limit_ns: args.hold_limit,
            retime,
        },
    );
    let prime = prime_count(args, &input);
    let bad_input = |e: ScheduleError, replay: bool| -> anyhow::Error {
        let tail = refusal(&e);
        let e = anyhow!("{e}{tail}");
        if replay {
            e.context("cannot replay it")
        } else {
            e
        }
    };
    sched.prime(prime).map_err(|e| bad_input(e, replay))?;
    // (an empty trace is refused by the parser)
    if sched.at_end() && sched.read() == 0 && replay {
        bail!("{} holds no packets: nothing to replay", path.display());
    }
    // The longest frame and the queues: of the whole input when it was read whole, else the card's
    // longest frame (a frame further on may be that long) and the queues seen so far.
    let held_max = sched.held().map(|h| h.job.len).max().unwrap_or(60);
    let max_len = if sched.at_end() { held_max } else { max_frame };
    tune_lookahead(&mut opened.card, args, max_len);
    let queues: std::collections::BTreeSet<u16> = sched.held().map(|h| h.job.queue).collect();
    let (t0, lead) = if absolute {
        (0, 0)
    } else {
        let frames = if sched.at_end() {
            sched.read() as usize
        } else {
            usize::MAX
        };
        time_zero(&mut opened.card, args, frames, queues.len())?
    };
    let phc0 = push::phc_now(opened.card.backend());
    // A launch time beyond the hold limit or the PHC's range refuses the job as before, with a report.
    let mut refused: Option<PushError> = push::check_time_range(&[], phc0).err();
    if refused.is_some() {
        // (the PHC itself is past the range: that is the error, whatever the frames)
    } else if let Err(e) = sched.set_time_zero(t0, phc0) {
        match e {
            ScheduleError::HoldTooLong { .. } | ScheduleError::TimeRange { .. } => {
                refused = Some(PushError::Input(Box::new(e)))
            }
            e => return Err(bad_input(e, replay)),
        }
    }
    let plan: QueuePlan = if sched.at_end() {
        let mut longest: std::collections::BTreeMap<u16, usize> = Default::default();
        for h in sched.held() {
            let l = longest.entry(h.job.queue).or_insert(64);
            *l = (*l).max(h.job.len as usize);
        }
        longest.into_iter().collect()
    } else {
        Vec::new()
    };

    let mut opts = options(args);
    if args.backend == "null" {
        // The null card is an ordinary thread: on a loaded machine the OS may not run it for many
        // ms, which is no stall of a card. A card thread that died is still caught, after 2 s.
        opts.stall_timeout_ns = NULL_STALL_TIMEOUT_NS;
    }
    opts.stop = Some(stop.clone());
    let mut card = opened.card;
    if args.backend == "mem" {
        // The mem backend is registers without a card: the job is checked as on a card (so every
        // refusal reads the same), then refused, instead of waiting for a card that never runs.
        if let Some(e) = refused {
            return Err(anyhow!(e)).context("nothing was sent");
        }
        while sched
            .next_frame()
            .map_err(|e| bad_input(e, replay))?
            .is_some()
        {}
        push::check_options(card.caps(), &opts)?;
        bail!("`--backend mem` is a register file with no card behind it: it cannot send frames; use `sim` (the simulated card, e.g. `sim:small`) or `vfio:DDDD:BB:DD.F` (a real card); nothing was sent");
    }
    #[cfg(feature = "sim")]
    let tap = opened.tap;
    let describe = format!(
        "{}; payload lookahead {} ns",
        card.backend().describe(),
        card.backend().read32(reg::CTRL_LOOKAHEAD_NS)
    );
    #[cfg(feature = "sim")]
    let (wall, cycles0, wire0) = (
        std::time::Instant::now(),
        tap.as_ref().map_or(0, |t| t.cycles()),
        tap.as_ref().map(|t| t.wire_stats()).unwrap_or_default(),
    );
    #[cfg(feature = "sim")]
    if tap.is_some() {
        let now = push::phc_now(card.backend());
        if let Some(last) = sched.held().map(|h| h.job.launch_ns).max() {
            let span = last.saturating_sub(now);
            if span >= LONG_RUN_NS {
                if sched.at_end() {
                    eprintln!(
                        "push: {} frame(s), the last launch {} after the card's PHC now: that much simulated time to run (the simulator runs slower than real time)",
                        sched.read(),
                        super::common::fmt_ns(span)
                    );
                } else {
                    eprintln!(
                        "push: the first {} frame(s) read launch up to {} after the card's PHC now, and the input goes on: at least that much simulated time to run (the simulator runs slower than real time)",
                        sched.read(),
                        super::common::fmt_ns(span)
                    );
                }
            }
        }
    }
    #[cfg(feature = "sim")]
    let (wire_take, line_rate_bps): (Option<WireTake>, Option<u64>) = match &tap {
        Some(t) => (
            (!args.no_wire_record).then(|| {
                let t = t.clone();
                // the clock beside the job (--ptp) sends on the same wire: its frames are not the job's
                let clock_mac = args.ptp.as_ref().map(|p| p.cfg.addr.mac);
                Box::new(move || {
                    t.take()
                        .into_iter()
                        .filter(|f| {
                            !clock_mac
                                .is_some_and(|m| tsnic::ptp::beside::is_clock_frame(m, &f.bytes))
                        })
                        .map(|f| (f.start_ps, f.bytes))
                        .collect()
                }) as WireTake
            }),
            LineRate::parse(&args.line_rate).map(|r| r.bits_per_s()),
        ),
        None => (None, None),
    };
    #[cfg(not(feature = "sim"))]
    let (wire_take, line_rate_bps): (Option<WireTake>, Option<u64>) = (None, None);
    // on time within one launch-gate clock: the core clock, or a board's MAC clock (and its lag)
    let clk_freq_hz = card.caps().clk_freq_hz;
    let link = tsnic::link::LinkStatus::from_raw(card.backend().read32(reg::MAC_LINK_STATUS));
    let ctx = ReportContext {
        t0_ns: t0,
        lead_ns: lead,
        backend: describe,
        line_rate_bps,
        clk_period_ps: link.gate_tolerance_ps(clk_freq_hz),
        wire_start_ps: wire_take.as_ref().map(|_| Vec::new()),
    };
    let with_frames = args.report.is_some() && !args.report_no_frames;
    let builder = ReportBuilder::new(&ctx, with_frames)
        .context("cannot make a temporary file for the report's frame list")?;
    let pcap = match &args.pcap {
        Some(p) if p.as_os_str() == "-" => Some(
            PcapNgOut::to_writer(Box::new(std::io::stdout()), "--pcap on stdout".into())
                .context("cannot write --pcap to stdout")?,
        ),
        Some(p) => Some(
            PcapNgOut::create(p).with_context(|| format!("cannot write --pcap {}", p.display()))?,
        ),
        None => None,
    };
    let mut sinks = Outputs::new(builder, pcap, wire_take, is_trace);
    let bar = if std::io::stderr().is_terminal() {
        let pb = if sched.at_end() {
            ProgressBar::new(sched.read())
        } else {
            ProgressBar::new_spinner()
        };
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
    let mut progress = |done: u64, _read: u64| {
        if let Some(b) = &bar {
            b.set_position(done);
        }
    };
    // A job that did not run to its end still has outputs: what the card did until then, marked
    // partial; the error comes after them. `posted`: false when the job was refused before anything
    // was posted (no table then: the error says it all; a --report still records it).
    let gen = TraceFrames;
    let mut ptp = args.ptp.clone().map(|spec| {
        tsnic::ptp::beside::BesideClock::new(
            spec,
            Box::new(|r: &tsnic::ptp::Report| {
                if let Some(l) = tsnic::ptp::clock::state_line(r) {
                    eprintln!("ptp: {l}");
                }
            }),
        )
    });
    // what the clock of the command before left on this card (docs/PTP.md, "Between commands")
    let saved_path = match ptp.as_mut() {
        Some(c) => {
            let path = tsnic::ptp::saved::path_for(&mut card, &args.backend);
            // a master follows nobody: nothing to resume
            let skip = args
                .ptp
                .as_ref()
                .is_some_and(|s| s.fresh || s.cfg.role == tsnic::ptp::Role::Master);
            if let (Some(p), false) = (&path, skip) {
                match tsnic::ptp::saved::load(p) {
                    Ok(Some(s)) => c.resume_from(s),
                    Ok(None) => {}
                    Err(e) => eprintln!("ptp: not resumed: {e}"),
                }
            }
            path
        }
        None => None,
    };
    let (end, failure, posted) = match refused {
        Some(e) => (None, Some(e), false),
        None => match pipeline::run_beside(
            &mut card,
            &mut sched,
            &gen,
            &plan,
            &opts,
            &mut sinks,
            &mut progress,
            ptp.as_mut().map(|c| c as &mut dyn pipeline::Beside),
        ) {
            Ok(ran) => (Some(ran.end), ran.error, true),
            Err(e) => (None, Some(e), false),
        },
    };
    let end = match end {
        Some(e) => e,
        None => {
            // Refused: every frame read is unfinished.
            let mut n = 0;
            for h in sched.drain_held() {
                n += 1;
                sinks
                    .unfinished(h.raw.seq, &h.job)
                    .map_err(|e| anyhow!(e))?;
            }
            RunEnd {
                frames: n,
                unfinished: n,
                ..RunEnd::default()
            }
        }
    };
    let ptp_summary = match ptp.as_mut() {
        Some(c) => {
            if let Some(p) = &saved_path {
                let s = c.saved(card.backend());
                if let Err(e) = tsnic::ptp::saved::store(p, s.as_ref()) {
                    eprintln!(
                        "ptp: the clock's master and servo were not kept for the next command: {e}"
                    );
                }
            }
            if let Some(m) = c.summary().resumed {
                eprintln!("ptp: {m}");
            }
            Some(
                c.close(card.backend())
                    .context("cannot stop the PTP clock that ran beside the job")?,
            )
        }
        None => None,
    };
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
    let (mut report, sink_warnings) = sinks
        .finish(&end.clock, failure.is_some())
        .map_err(|e| anyhow!(e))?;
    report.ptp = ptp_summary.clone();
    let done = end.completed;
    if let Some(e) = &failure {
        let rest = if sched.at_end() {
            String::new()
        } else {
            " (the input was not read past the frame the error names, or the stop)".to_string()
        };
        report.mark_partial(format!("{e}{rest}"));
    }
    let report_to_stdout = args.report.as_deref() == Some(Path::new("-"));
    if let Some(path) = args.report.as_ref().filter(|_| !report_to_stdout) {
        let mut write = || -> std::io::Result<()> {
            let mut w = std::io::BufWriter::new(std::fs::File::create(path)?);
            sinks.report.write_json(&report, &mut w, with_frames)?;
            std::io::Write::flush(&mut w)
        };
        write().with_context(|| format!("cannot write --report {}", path.display()))?;
    }
    if let Some(path) = &args.plot {
        plot_histogram(path, sinks.report.errors())
            .with_context(|| format!("cannot draw --plot {}", path.display()))?;
    }
    let pcap_to_stdout = args.pcap.as_deref() == Some(Path::new("-"));
    if report_to_stdout {
        // `--report -`: the JSON on stdout, in place of the table.
        let mut json = Vec::new();
        sinks.report.write_json(&report, &mut json, with_frames)?;
        out!("{}", String::from_utf8_lossy(&json));
    } else if !args.quiet && posted {
        let mut table = report.table();
        if let Some(p) = &ptp_summary {
            table.push_str(&ptp_row(p));
        }
        if pcap_to_stdout {
            eprint!("{table}");
        } else {
            out!("{table}");
        }
    }
    if args.backend == "null" && posted && done > 0 {
        // The null backend's figure: the host path alone (see --backend). On stderr when stdout
        // carries the JSON report or the capture; printed with --quiet too.
        let line = host_line(end.loop_wall_ns, done);
        if let Some(cpu) = end.loop_cpu_ns {
            // What the loop's thread itself used, whatever else the machine runs (the wall figure
            // on a shared machine is mostly waiting for a CPU); on stderr, so `host:` stays the
            // summary's last line and --quiet's only one.
            eprintln!(
                "loop thread: {:.1} ns on a CPU per frame",
                cpu as f64 / done as f64
            );
        }
        if report_to_stdout || pcap_to_stdout {
            eprintln!("{line}");
        } else {
            outln!("{line}");
        }
    }
    for note in sched.notes() {
        eprintln!("warning: {note}");
    }
    let back = sched.backwards();
    if let Some((i, by)) = back.first {
        eprintln!(
            "warning: {} packet timestamp(s) go backwards (the first: packet {i}, {by} ns before packet {}); each is sent with the packet before it, in capture order",
            back.count,
            i - 1
        );
    }
    if posted {
        for w in sink_warnings.iter().chain(&report.warnings()) {
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
        let rest = if sched.at_end() {
            String::new()
        } else {
            "; the input was not read past the frame the error names, or the stop".to_string()
        };
        return Err(anyhow!(e).context(format!(
            "the push did not run to its end ({done} of {} frame(s) completed{kept}{rest})",
            end.frames
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
    if args.hold_window == 0 {
        bail!("--hold-window 0: the window must hold at least 1 row");
    }
    run_job(
        &args.run,
        &args.trace,
        args.absolute,
        Input::Trace {
            window: args.hold_window,
        },
    )?;
    Ok(())
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

/// Draw a histogram of departure errors (ns, counted exactly in `errs`) as PNG or SVG.
pub fn plot_histogram(path: &Path, errs: &Histogram) -> Result<()> {
    use plotters::prelude::*;
    let font = plot_font()?;
    plotters::style::register_font("sans-serif", FontStyle::Normal, font)
        .map_err(|_| anyhow!("the DejaVu Sans font file does not load"))?;
    let (lo, hi) = errs.range().unwrap_or((0, 0));
    let bins = 50i64;
    // i128: the errors may span the whole i64 range (a capped launch time near 2^64).
    let width =
        ((hi as i128 - lo as i128) / bins as i128 + 1).clamp(1, i64::MAX as i128 / 64) as i64;
    let mut counts = vec![0u64; bins as usize + 1];
    for (e, c) in errs.iter() {
        let bin = ((e as i128 - lo as i128) / width as i128).min(bins as i128) as usize;
        counts[bin] += c;
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
        errs.len()
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

/// The summary's `ptp` row: the clock's state, its locked samples and their largest |offset|, its
/// last sample as ptp4l prints it.
fn ptp_row(p: &tsnic::ptp::beside::BesideSummary) -> String {
    let state = p.state.map(|s| s.name()).unwrap_or("never started");
    let max = p
        .max_abs_offset_ns
        .map(|m| format!(", max |offset| {m} ns"))
        .unwrap_or_default();
    let last = p
        .last
        .as_ref()
        .map(|s| format!("; last: {}", tsnic::ptp::clock::status_line(s).trim()))
        .unwrap_or_default();
    format!(
        "  {:<18} {state} on TX queue {}, {} samples ({} locked{max}), {} steps{last}\n",
        "ptp",
        p.tx_queue.map(|q| q.to_string()).unwrap_or("-".into()),
        p.samples,
        p.locked_samples,
        p.counters.steps,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hist(v: &[i64]) -> Histogram {
        let mut h = Histogram::default();
        for &x in v {
            h.add(x);
        }
        h
    }

    #[test]
    fn histogram_png_and_svg() {
        let errs: Vec<i64> = (0..1000).map(|i| (i * i) % 97).collect::<Vec<_>>();
        let sorted = hist(&errs);
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
        plot_histogram(&p, &hist(&[i64::MIN, -5, 0, 7, i64::MAX])).unwrap();
        std::fs::remove_file(&p).ok();
        // empty input still draws
        let p = std::env::temp_dir().join(format!("tsnic-hist-empty-{}.svg", std::process::id()));
        plot_histogram(&p, &hist(&[])).unwrap();
        std::fs::remove_file(&p).ok();
    }
}
