//! Pushing scheduled frames through a card: the engine behind `tsnic push` and `tsnic replay`.
//!
//! A [`Job`] is a list of frames, each with a queue, a length and an absolute launch time (TAI ns of
//! the card's PHC). [`run`] brings the card up, creates one ring per queue the job uses and one
//! completion ring, then posts the frames **in launch-time order** (ties in job order), each on its
//! queue, as far ahead as ring and buffer space allow, and polls completions until every frame has
//! exactly one. The result holds each frame's status and departure time; [`Report`] summarises them.
//!
//! Posting in launch-time order keeps the calendar's ties in job (trace) order within a queue. A frame
//! more than the card's horizon after the frame posted before it can be dropped `DROPPED_HORIZON`:
//! the tool does not hold frames back for the horizon (so a trace can exercise that policy).

use std::collections::BTreeMap;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use serde::Serialize;
use thiserror::Error;

use crate::contract::{reg, HorizonPolicy, LatePolicy, Status};
use crate::device::{Backend, Caps, Card, DeviceError};
use crate::regs::{Control, CtrlStatus, IrqCtrl};
use crate::ring::RingError;

/// One frame to send.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct JobFrame {
    /// Index in the job (trace row index, or packet index of a capture).
    pub index: u64,
    /// TX queue.
    pub queue: u16,
    /// Frame length without FCS.
    pub len: u32,
    /// Absolute requested launch time, TAI ns of the card's PHC.
    pub launch_ns: u64,
}

/// Where frame bytes come from: generated from the row (push) or copied from a capture (replay).
pub trait FrameSource {
    /// Write the bytes of job frame `f` into `out` (cleared first); `out.len()` must equal `f.len`.
    fn frame(&self, f: &JobFrame, out: &mut Vec<u8>);
}

/// How to run a job.
#[derive(Debug, Clone)]
pub struct PushOptions {
    /// log2 of each queue's ring size (refused above what the card and the driver allow).
    pub ring_log2: u32,
    /// log2 of the completion ring size (refused above the card's maximum), or
    /// [`DEFAULT_CPL_LOG2`] (lowered to the card's maximum).
    pub cpl_log2: Option<u32>,
    /// Doorbell batch.
    pub batch: u32,
    /// Late policy of every queue used.
    pub late: LatePolicy,
    /// Horizon policy of every queue used.
    pub horizon: HorizonPolicy,
    /// Payload lookahead to program (`CTRL_LOOKAHEAD_NS`), or keep the card's.
    pub lookahead_ns: Option<u32>,
    /// Give up when no completion arrives for this long (card time, ns) while frames are outstanding
    /// and their launch times have passed.
    pub stall_timeout_ns: u64,
    /// Shortest wait, and the poll interval on a backend without an interrupt path, ns.
    pub idle_wait_ns: u64,
    /// Hold margin: a row is posted once its launch time is within the card's horizon less this
    /// (`None`: [`default_hold_margin_ns`]).
    pub hold_margin_ns: Option<u64>,
    /// Refuse a job whose last launch time is more than this after the PHC when it starts (card time,
    /// ns): a push holds every row until the card can take it, so a wrong `--absolute` time base
    /// would otherwise wait for years.
    pub hold_limit_ns: u64,
    /// Set by someone else (a Ctrl-C or SIGTERM handler) to stop the job early: posting stops, the
    /// card flushes what it holds, and [`run`] returns [`PushError::Cut`] with what was completed.
    pub stop: Option<Arc<AtomicBool>>,
    /// Threads that post to the TX queues (`--threads`), each its own queues (queue % threads);
    /// 1: the loop's own thread posts. See [`crate::pipeline::shards`].
    pub threads: usize,
}

/// Default of [`PushOptions::hold_limit_ns`]: one day.
pub const DEFAULT_HOLD_LIMIT_NS: u64 = 86_400_000_000_000;

impl Default for PushOptions {
    fn default() -> Self {
        PushOptions {
            ring_log2: 10,
            cpl_log2: None,
            batch: 16,
            late: LatePolicy::Send,
            horizon: HorizonPolicy::Drop,
            lookahead_ns: None,
            stall_timeout_ns: 5_000_000,
            idle_wait_ns: 200,
            hold_margin_ns: None,
            hold_limit_ns: DEFAULT_HOLD_LIMIT_NS,
            stop: None,
            threads: 1,
        }
    }
}

/// What became of one frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct FrameResult {
    /// Job index.
    pub index: u64,
    /// Queue.
    pub queue: u16,
    /// Length.
    pub len: u32,
    /// Requested launch time (absolute TAI ns).
    pub launch_ns: u64,
    /// Status name from the completion.
    #[serde(serialize_with = "ser_status")]
    pub status: Status,
    /// Departure (SENT, SENT_LATE) or decision time, TAI ns, as the card reported it.
    pub depart_ns: u64,
    /// Reject reason code (0 unless REJECTED).
    pub reason: u8,
    /// Launch time was capped to the horizon.
    pub capped: bool,
}

fn ser_status<S: serde::Serializer>(s: &Status, ser: S) -> Result<S::Ok, S::Error> {
    ser.serialize_str(s.name())
}

impl FrameResult {
    /// True for SENT and SENT_LATE: the frame went out on the wire.
    pub fn on_wire(&self) -> bool {
        matches!(self.status, Status::Sent | Status::SentLate)
    }
    /// Departure minus request, ns (negative: early, which only a capped launch time may be),
    /// saturated to the i64 range.
    pub fn error_ns(&self) -> i64 {
        sub_ns(self.depart_ns, self.launch_ns)
    }
}

/// Errors of a push.
#[derive(Debug, Error)]
pub enum PushError {
    /// The card or backend failed.
    #[error(transparent)]
    Device(#[from] DeviceError),
    /// A ring failed.
    #[error(transparent)]
    Ring(#[from] RingError),
    /// The job asks for something the card cannot do.
    #[error("{0}")]
    Job(String),
    /// The card stopped completing frames.
    #[error("the card stopped completing frames: {outstanding} of {total} still outstanding after {stalled_ns} ns without a completion (PHC at {phc_ns} ns); check `tsnic stats`")]
    Stalled {
        /// Frames without completion.
        outstanding: u64,
        /// Frames in the job.
        total: u64,
        /// How long nothing came back.
        stalled_ns: u64,
        /// PHC then.
        phc_ns: u64,
    },
    /// A row launches so far after the start that holding it would take longer than the limit.
    #[error("frame {index} launches at {launch_ns} ns, {} after the card's PHC now ({phc_ns} ns), beyond the hold limit of {}: nothing was sent; check the time base (`--absolute` times are TAI ns of the card's PHC: `tsnic phc get`) or raise --hold-limit", fmt_span(*launch_ns - *phc_ns), fmt_span(*limit_ns))]
    HoldTooLong {
        /// Job index of the row.
        index: u64,
        /// Its launch time.
        launch_ns: u64,
        /// PHC at the start.
        phc_ns: u64,
        /// The limit.
        limit_ns: u64,
    },
    /// The job was stopped from outside ([`PushOptions::stop`]: Ctrl-C, SIGTERM).
    #[error("stopped before the end (a signal: Ctrl-C or SIGTERM)")]
    Stopped,
    /// The PHC, or a launch time, is past the range the driver's time arithmetic covers.
    #[error("{0}")]
    TimeRange(String),
    /// The job did not run to its end: why, and what the card had done by then (every posted frame's
    /// completion, SENT or FLUSHED; the rest in [`Outcome::unfinished`]).
    #[error("{error}")]
    Cut {
        /// Why it stopped.
        error: Box<PushError>,
        /// What was done.
        partial: Box<Outcome>,
    },
    /// The input was refused part way (a bad row or packet, out of order beyond the hold window).
    #[error(transparent)]
    Input(Box<crate::pipeline::schedule::ScheduleError>),
    /// An output (the report, the capture) could not take a frame.
    #[error("{0}")]
    Output(String),
    /// A completion came back twice or for nothing posted.
    #[error("completion for queue {queue} cookie {cookie} does not match a frame in flight: a card or driver bug")]
    Unmatched {
        /// Queue.
        queue: u16,
        /// Cookie.
        cookie: u32,
    },
}

/// A span of ns for a message: `1 ns`, `30000 ns`, `1.500000000 s` (never rounded to `0 s`).
fn fmt_span(ns: u64) -> String {
    if ns < 1_000_000_000 {
        format!("{ns} ns")
    } else {
        format!("{}.{:09} s", ns / 1_000_000_000, ns % 1_000_000_000)
    }
}

/// Progress callback: (frames completed, frames in the job).
pub type Progress<'a> = &'a mut dyn FnMut(u64, u64);

/// The outcome of a job: one result per frame, in job order.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// Per frame, in job index order.
    pub results: Vec<FrameResult>,
    /// PHC when posting started.
    pub start_phc_ns: u64,
    /// PHC when the last completion was taken.
    pub end_phc_ns: u64,
    /// Doorbells written.
    pub doorbells: u64,
    /// Wall-clock (host `CLOCK_MONOTONIC`) ns of the pipeline's loop: from just before the first
    /// frame is posted to the last completion taken (taking frames from the schedule and the source,
    /// posting, doorbells, completion reaping, buffer recycling, the sinks, waits); not opening the
    /// card or setting up rings.
    pub loop_wall_ns: u64,
    /// What relates the PHC to simulated time during the run.
    pub clock: ClockMap,
    /// Frames without a completion (job order): none after a job that ran to its end; after a cut
    /// ([`PushError::Cut`]), the frames not posted and any posted one the card gave no completion
    /// for.
    pub unfinished: Vec<JobFrame>,
}

impl Outcome {
    /// The outcome of a job refused or failed before anything was posted: every frame unfinished.
    pub fn nothing_done(frames: &[JobFrame]) -> Outcome {
        Outcome {
            results: Vec::new(),
            start_phc_ns: 0,
            end_phc_ns: 0,
            doorbells: 0,
            loop_wall_ns: 0,
            clock: ClockMap::default(),
            unfinished: frames.to_vec(),
        }
    }
}

/// The PHC against simulated time over a run (simulated backends only).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ClockMap {
    /// The PHC reading (ns) taken at the start.
    pub sample_phc_ns: u64,
    /// Simulated time just before that reading's TIME_LO access, ns (None: not a simulated backend);
    /// on a backend that knows when the card served the read ([`Backend::last_read_served_ns`]:
    /// sim:board), the start of that window instead of the PCIe round trip's.
    pub sim_before_ns: Option<u64>,
    /// Simulated time just after it (or the window's end), ns: the PHC was latched in between.
    pub sim_after_ns: Option<u64>,
    /// PHC steps (SET/ADJ) during the run.
    pub phc_steps: u32,
    /// The PHC ran at exactly one ns per ns of simulated time all run long: its period was the core
    /// clock period and its frequency trim 0, at the start and at the end.
    pub rate_nominal: bool,
}

/// Read the PHC bracketed by simulated time: (PHC ns, sim before, sim after).
pub(crate) fn phc_sample(b: &mut dyn Backend) -> (u64, Option<u64>, Option<u64>) {
    let before = b.sim_time_ns();
    let lo = b.read32(reg::PHC_TIME_LO) as u64;
    let after = b.sim_time_ns();
    // where the card served the read, when the backend knows it better (sim:board: not the PCIe
    // round trip around it)
    let (before, after) = match (before, after, b.last_read_served_ns()) {
        (Some(s0), Some(s1), Some((a, z))) if s0 <= a && a <= z && z <= s1 => (Some(a), Some(z)),
        _ => (before, after),
    };
    let hi = b.read32(reg::PHC_TIME_HI) as u64;
    (lo | (hi << 32), before, after)
}

/// True when the PHC runs at one ns per ns of the core clock: period = clock period, no trim.
pub(crate) fn phc_rate_nominal(b: &mut dyn Backend, caps: &Caps) -> bool {
    let period = crate::phc::period(b);
    let trim = crate::phc::freq(b);
    caps.clk_freq_hz != 0
        && 1_000_000_000_000u64.is_multiple_of(u64::from(caps.clk_freq_hz))
        && u128::from(period) * 1000
            == u128::from(1_000_000_000_000u64 / u64::from(caps.clk_freq_hz)) << 48
        && trim == 0
}

/// Read the PHC (ns) through the driver's PHC module.
pub fn phc_now(b: &mut dyn Backend) -> u64 {
    crate::phc::get_ns(b)
}

/// Enable the core (idempotent), program the lookahead if asked, and wait until CTRL_STATUS says
/// RUNNING and not RESET_BUSY (at most 10 ms of card time).
pub fn bring_up(b: &mut dyn Backend, opts: &PushOptions) -> Result<(), PushError> {
    if let Some(l) = opts.lookahead_ns {
        b.write32(reg::CTRL_LOOKAHEAD_NS, l);
    }
    let ctrl = Control::from_bits_truncate(b.read32(reg::CTRL_CONTROL));
    if !ctrl.contains(Control::ENABLE) {
        b.write32(
            reg::CTRL_CONTROL,
            (ctrl | Control::ENABLE).bits() & !Control::RESET.bits(),
        );
    }
    let mut waited = 0u64;
    loop {
        let st = CtrlStatus::from_bits_truncate(b.read32(reg::CTRL_STATUS));
        if st.contains(CtrlStatus::RUNNING) && !st.contains(CtrlStatus::RESET_BUSY) {
            return Ok(());
        }
        if waited >= 10_000_000 {
            return Err(PushError::Device(DeviceError::Timeout {
                what: format!(
                    "the core to run after enabling it (CTRL_STATUS = {:#x})",
                    st.bits()
                ),
                ns: waited,
            }));
        }
        b.wait_ns(1000)?;
        waited += 1000;
    }
}

/// A payload lookahead long enough to prefetch the longest frame of a job before its launch time:
/// one host read latency for the descriptor, one for each round of payload reads, the frame's beats
/// on a `bus_bits` bus at `clk_period_ns`, and 1 us. `read_window` is how many payload bytes the card
/// can have in flight at once ([`BOARD_READ_WINDOW`] on a board); `None`, host memory without such a
/// limit (the core build's AXI model), is one round whatever the length.
pub fn lookahead_for(
    max_len: u32,
    bus_bits: u32,
    clk_period_ns: f64,
    read_latency_ns: u64,
    read_window: Option<u64>,
) -> u32 {
    let beats = (max_len as u64).div_ceil((bus_bits.max(8) / 8) as u64);
    let rounds = read_window.map_or(1, |w| (max_len as u64).div_ceil(w.max(1)).max(1));
    let ns = read_latency_ns
        .saturating_mul(1 + rounds)
        .saturating_add((beats as f64 * clk_period_ns).ceil() as u64)
        .saturating_add(1000);
    ns.min(u32::MAX as u64) as u32
}

/// Payload bytes a board can have in flight from host memory, at least: its PCIe block's completion
/// buffer paces the reads. tsnic_pcie_us_rd reserves ceil((address mod 64 + bytes) / 64) + 1
/// completion headers per read (one per 64-byte RCB, one for the misalignment) before it sends the
/// read, against the buffer's headers (tsnic_board_core CPLH_LIMIT: 64 on the SUME's Gen3 block, 128
/// on the Alveos' PCIE4 block, docs/BOARDS.md). The host's max read request size is not known here:
/// at the smallest, 128 bytes (3 headers), the SUME keeps 21 reads = 2688 bytes in flight (at 512
/// bytes, 7 reads = 3584); the Alveos at least twice that. 2688 covers every board and MRRS.
pub const BOARD_READ_WINDOW: u64 = 2688;

/// Check a job against the card before anything is posted.
pub fn check_job(caps: &Caps, frames: &[JobFrame]) -> Result<(), PushError> {
    for f in frames {
        if u32::from(f.queue) >= caps.num_queues {
            return Err(PushError::Job(format!(
                "frame {} is for queue {}, but the card has {} queue(s)",
                f.index, f.queue, caps.num_queues
            )));
        }
        if f.len == 0 || (caps.max_frame_len != 0 && f.len > caps.max_frame_len) {
            return Err(PushError::Job(format!(
                "frame {} is {} bytes; the card takes 1..={} bytes (without FCS)",
                f.index, f.len, caps.max_frame_len
            )));
        }
    }
    Ok(())
}

/// The hold margin used when [`PushOptions::hold_margin_ns`] is `None`: 1 ms, or half the horizon on a
/// card whose horizon is under 2 ms.
///
/// A held row is posted once `launch_ns <= PHC + horizon - margin`, where PHC is a reading taken before
/// the post; the card checks `launch_ns > PHC + horizon` later (when it fetches the descriptor), so a
/// PHC that only moves forward never refuses a held row, whatever the fetch delay. The margin covers
/// the PHC being stepped back while a row waits in the ring (a servo such as `tsnic phc sync` or
/// phc2sys running beside the push steps by up to its first-step threshold, 20 us): up to 1 ms of
/// backward step costs nothing.
pub fn default_hold_margin_ns(horizon_ns: u64) -> u64 {
    1_000_000u64.min(horizon_ns / 2)
}

/// How far ahead of the PHC a row may be posted: the horizon less the hold margin (at least 1 ns).
pub fn posting_reach_ns(caps: &Caps, opts: &PushOptions) -> u64 {
    let margin = opts
        .hold_margin_ns
        .unwrap_or_else(|| default_hold_margin_ns(caps.horizon_ns));
    caps.horizon_ns.saturating_sub(margin).max(1)
}

/// Check the ring sizes asked for against the card and the driver. Returns (TX ring log2, completion
/// ring log2). Nothing is clamped: a size the card cannot take is an error that says the largest.
pub fn check_options(caps: &Caps, opts: &PushOptions) -> Result<(u32, u32), PushError> {
    let max = caps.ring_log2_max.min(crate::ring::MAX_RING_LOG2);
    if opts.ring_log2 == 0 || opts.ring_log2 > max {
        return Err(PushError::Job(format!(
            "--ring-log2 {} is outside what this card and driver take: 1..={max} (the card allows 2^{}, the driver's 16-bit ring indices 2^{})",
            opts.ring_log2,
            caps.ring_log2_max,
            crate::ring::MAX_RING_LOG2
        )));
    }
    let cpl_log2 = match opts.cpl_log2 {
        Some(l) if l == 0 || l > caps.ring_log2_max => {
            return Err(PushError::Job(format!(
                "completion ring size 2^{l} is outside what this card takes: 2^1..=2^{}",
                caps.ring_log2_max
            )))
        }
        Some(l) => l,
        None => DEFAULT_CPL_LOG2.clamp(1, caps.ring_log2_max.max(1)),
    };
    if opts.batch == 0 {
        return Err(PushError::Job(
            "the doorbell batch must be at least 1".into(),
        ));
    }
    Ok((opts.ring_log2, cpl_log2))
}

/// Refuse a job whose last launch time is more than `limit_ns` after `phc_ns`.
pub fn check_hold(frames: &[JobFrame], phc_ns: u64, limit_ns: u64) -> Result<(), PushError> {
    if let Some(last) = frames
        .iter()
        .max_by_key(|f| (f.launch_ns, std::cmp::Reverse(f.index)))
    {
        if last.launch_ns.saturating_sub(phc_ns) > limit_ns {
            return Err(PushError::HoldTooLong {
                index: last.index,
                launch_ns: last.launch_ns,
                phc_ns,
                limit_ns,
            });
        }
    }
    Ok(())
}

/// Completion ring size when [`PushOptions::cpl_log2`] is `None` (smaller if the card's maximum is).
pub const DEFAULT_CPL_LOG2: u32 = 12;

/// Save the interrupt registers, program them for the push, and give them back at the end.
pub(crate) struct IrqSetup {
    saved: [u32; 3],
}

impl IrqSetup {
    /// Enable the interrupt with moderation: after `count` completions, or `time_ns` after the first
    /// unsignalled one. Clears a pending interrupt.
    pub(crate) fn arm(b: &mut dyn Backend, count: u32, time_ns: u32) -> IrqSetup {
        let saved = [
            b.read32(reg::CTRL_IRQ_CTRL),
            b.read32(reg::CTRL_IRQ_MOD_COUNT),
            b.read32(reg::CTRL_IRQ_MOD_TIME_NS),
        ];
        b.write32(reg::CTRL_IRQ_MOD_COUNT, count);
        b.write32(reg::CTRL_IRQ_MOD_TIME_NS, time_ns);
        b.write32(reg::CTRL_IRQ_CTRL, IrqCtrl::ENABLE.bits());
        b.write32(reg::CTRL_IRQ_STATUS, 1);
        IrqSetup { saved }
    }
    pub(crate) fn restore(self, b: &mut dyn Backend) {
        b.write32(reg::CTRL_IRQ_CTRL, self.saved[0]);
        b.write32(reg::CTRL_IRQ_MOD_COUNT, self.saved[1]);
        b.write32(reg::CTRL_IRQ_MOD_TIME_NS, self.saved[2]);
        b.write32(reg::CTRL_IRQ_STATUS, 1);
    }
}

/// Run a job: post every frame when the card can take it, collect every completion.
///
/// Rows are held in host memory, as a qdisc holds packets, and each is posted (in launch-time order,
/// ties in job order) once its launch time is within the card's reach ([`posting_reach_ns`]: the
/// horizon less a margin, measured on the card's PHC) and its ring has room. So a job of any length
/// goes out whole; a frame the card still refuses (a late post, a PHC stepped back) follows the queue's
/// late/horizon policy and comes back with that status.
///
/// When there is nothing to post and nothing to take, the loop waits with [`Backend::wait_irq`] (the
/// card's interrupt, moderated, is armed for the push) until the next row becomes postable or the next
/// stall check is due; every decision uses card (PHC) time only, so a simulated run is deterministic.
/// Backends without an interrupt path ([`Backend::has_irq`] false: vfio opened with `,poll`, the mem
/// backend) poll every `idle_wait_ns` while a posted frame is due.
///
/// Either way the card is left quiet for the next process (see [`leave_quiet`]).
pub fn run(
    card: &mut Card,
    frames: &[JobFrame],
    src: &dyn FrameSource,
    opts: &PushOptions,
    progress: Progress<'_>,
) -> Result<Outcome, PushError> {
    run_beside(card, frames, src, opts, progress, None)
}

/// [`run`] with something (a PTP clock) turned beside the job ([`crate::pipeline::Beside`]).
pub fn run_beside(
    card: &mut Card,
    frames: &[JobFrame],
    src: &dyn FrameSource,
    opts: &PushOptions,
    progress: Progress<'_>,
    beside: Option<&mut dyn crate::pipeline::Beside>,
) -> Result<Outcome, PushError> {
    use crate::pipeline::{schedule, sink::Collect, source::SliceSource};
    let (caps, b) = card.parts();
    let caps = caps.clone();
    let checked = (|| {
        check_job(&caps, frames)?;
        check_options(&caps, opts)?;
        check_hold(frames, phc_now(b), opts.hold_limit_ns)?;
        check_time_range(frames, phc_now(b))
    })();
    let mut longest: BTreeMap<u16, usize> = BTreeMap::new();
    for f in frames {
        let l = longest.entry(f.queue).or_insert(64);
        *l = (*l).max(f.len as usize);
    }
    if let Err(e) = checked {
        let queues: Vec<u16> = longest.keys().copied().collect();
        leave_quiet(b, &caps, &queues, true);
        return Err(e);
    }
    // The whole job is in memory already: the hold window takes all of it, so the posting order is
    // the job sorted by launch time, ties in job order.
    let mut sched = schedule::Schedule::new(
        Box::new(SliceSource::new(frames, src)),
        schedule::Config {
            window: usize::MAX,
            absolute: true,
            from_first: false,
            clamp_backwards: false,
            hold_limit_ns: u64::MAX,
            retime: schedule::Retime::Capture,
        },
    );
    sched
        .set_time_zero(0, 0)
        .map_err(|e| PushError::Input(Box::new(e)))?;
    // Buffers as large as each queue's largest frame (rounded to 64 bytes), not the card's maximum.
    let plan: Vec<(u16, usize)> = longest.into_iter().collect();
    let mut sink = Collect::default();
    let ran = crate::pipeline::run_beside(
        card, &mut sched, src, &plan, opts, &mut sink, progress, beside,
    )?;
    let mut unfinished = sink.unfinished;
    unfinished.sort_by_key(|u| u.0);
    let e = ran.end;
    let mut out = Outcome {
        results: Vec::with_capacity(frames.len()),
        start_phc_ns: e.start_phc_ns,
        end_phc_ns: e.end_phc_ns,
        doorbells: e.doorbells,
        loop_wall_ns: e.loop_wall_ns,
        clock: e.clock,
        unfinished: unfinished.into_iter().map(|u| u.1).collect(),
    };
    if let Some(error) = ran.error {
        out.results = sink.results.into_iter().flatten().collect();
        return Err(PushError::Cut {
            error: Box::new(error),
            partial: Box::new(out),
        });
    }
    for (i, r) in sink.results.iter().enumerate() {
        if r.is_none() {
            return Err(PushError::Job(format!(
                "frame {} has no completion: a driver bug",
                frames[i].index
            )));
        }
    }
    if sink.results.len() != frames.len() || !out.unfinished.is_empty() {
        return Err(PushError::Job(format!(
            "{} of {} frame(s) have no completion: a driver bug",
            frames.len() - sink.results.len() + out.unfinished.len(),
            frames.len()
        )));
    }
    out.results = sink.results.into_iter().flatten().collect();
    Ok(out)
}

/// Most card time a job cut short ([`PushError::Cut`]) waits for the completions of the frames it
/// posted (the card flushes them, or sends those already due).
pub const CUT_DRAIN_LIMIT_NS: u64 = 100_000_000;

/// Card time a failed job waits, after disabling its queues, for their flush completions.
pub const FAILED_JOB_GRACE_NS: u64 = 1_000_000;

/// What a driver does before its process exits and its DMA memory is unmapped (VFIO does that at
/// exit): disable the job's TX queues (done already after a job that completed) and the completion
/// ring, so the card touches none of this process's memory afterwards. After a failed job the card may
/// still hold descriptors: disabling a queue flushes them, and their completions still land in this
/// process's ring, so we let 1 ms of card time pass before the completion ring goes. (A completion
/// the card still held after that would be written, once the next process enables its ring, there.)
pub fn leave_quiet(b: &mut dyn Backend, caps: &Caps, queues: &[u16], failed: bool) {
    if failed {
        for &q in queues {
            if u32::from(q) < caps.num_queues {
                b.write32(caps.q_reg(q, reg::Q_CTRL), 0);
            }
        }
        let _ = b.wait_ns(FAILED_JOB_GRACE_NS);
    }
    b.write32(reg::CPL_CTRL, 0);
}

/// Refuse a job on a PHC, or with a launch time, past [`crate::phc::PHC_MAX_NS`] (2^63 - 1 ns): the
/// driver's time arithmetic (and the card's 64-bit counter, which wraps at 2^64) is exact below it.
pub fn check_time_range(frames: &[JobFrame], phc_ns: u64) -> Result<(), PushError> {
    let max = crate::phc::PHC_MAX_NS;
    if phc_ns > max {
        return Err(PushError::TimeRange(format!(
            "the card's PHC reads {phc_ns} ns, past the latest time the driver schedules at ({max} ns = 2^63 - 1, TAI 2262-04-11; the card's 64-bit counter wraps to 0 at 2^64): step the clock back first, e.g. `tsnic phc set --host`; nothing was sent"
        )));
    }
    if let Some(f) = frames.iter().find(|f| f.launch_ns > max) {
        return Err(PushError::TimeRange(format!(
            "frame {} launches at {} ns, past the latest time the driver schedules at ({max} ns = 2^63 - 1, TAI 2262-04-11): check the time base (`--absolute` times are TAI ns of the card's PHC: `tsnic phc get`); nothing was sent",
            f.index, f.launch_ns
        )));
    }
    Ok(())
}

/// `a - b` in ns as a signed count, saturated to the i64 range (never wraps).
pub fn sub_ns(a: u64, b: u64) -> i64 {
    (a as i128 - b as i128).clamp(i64::MIN as i128, i64::MAX as i128) as i64
}

/// Distribution of departure errors, ns.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct ErrorStats {
    /// Smallest.
    pub min: i64,
    /// Median.
    pub p50: i64,
    /// 99th percentile.
    pub p99: i64,
    /// 99.9th percentile.
    pub p999: i64,
    /// Largest.
    pub max: i64,
}

impl ErrorStats {
    /// Nearest-rank percentiles of `v` (sorted in place); all zero for no samples.
    pub fn of(v: &mut [i64]) -> ErrorStats {
        if v.is_empty() {
            return ErrorStats::default();
        }
        v.sort_unstable();
        // Nearest rank with integer arithmetic: rank = ceil(permille * n / 1000).
        let pct = |permille: usize| {
            let rank = (permille * v.len()).div_ceil(1000);
            v[rank.clamp(1, v.len()) - 1]
        };
        ErrorStats {
            min: v[0],
            p50: pct(500),
            p99: pct(990),
            p999: pct(999),
            max: v[v.len() - 1],
        }
    }
}

/// What the report needs besides the outcome.
#[derive(Debug, Clone, Default)]
pub struct ReportContext {
    /// Time 0 of a relative trace (absolute TAI ns), or 0 for absolute times.
    pub t0_ns: u64,
    /// The lead chosen.
    pub lead_ns: u64,
    /// Backend description.
    pub backend: String,
    /// Line rate in bits/s, when known (the simulated wire's; a real card does not report it).
    pub line_rate_bps: Option<u64>,
    /// The launch gate's clock period in ps, and on a board the lag of its PHC copy
    /// ([`crate::link::LinkStatus::gate_tolerance_ps`]): a frame that leaves more than this (rounded
    /// up to whole ns) after its launch time, or after the line was free, is late.
    pub clk_period_ps: u64,
    /// When each frame on the simulated wire started on the line (its preamble, ps of simulated time),
    /// in departure order (one per SENT/SENT_LATE completion), when the wire was recorded.
    pub wire_start_ps: Option<Vec<u64>>,
}

/// One frame in the JSON report.
#[derive(Debug, Clone, Serialize)]
pub struct FrameReport {
    /// Job index (trace row, capture packet).
    pub index: u64,
    /// Queue.
    pub queue: u16,
    /// Length without FCS.
    pub len: u32,
    /// Requested launch, TAI ns.
    pub launch_ns: u64,
    /// Completion status.
    pub status: &'static str,
    /// Departure (or decision) time the card reported, TAI ns.
    pub depart_ns: u64,
    /// The card capped the launch time to its horizon.
    pub capped: bool,
    /// Departure minus launch, ns (frames on the wire).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error_ns: Option<i64>,
    /// Earliest departure physics allowed: max(launch, end of the frame before it on the wire, its
    /// gap as short as the MAC's deficit idle count may make it: 9 octets at 10G, 5 at 100G).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub earliest_ns: Option<u64>,
    /// Departure minus `earliest_ns`, ns: never negative where the card stamps the frame's start on
    /// the line (the simulated card; a card that stamps the first beat at the MAC can show a small
    /// negative delay behind a busy line, up to the MAC's FIFO of wire time).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delay_ns: Option<i64>,
    /// Departure error in simulated time: the wire's first beat minus the launch time mapped to
    /// simulated time, ns.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sim_error_ns: Option<i64>,
    /// For a frame that left more than one core cycle after its launch time: `line` (it waited for
    /// the frame ahead on a busy line) or `card` (it left later than the line allowed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub waited_for: Option<&'static str>,
}

impl FrameReport {
    /// The report line of `f` before any wire or line analysis (error only if it went on the wire).
    pub fn of(f: &FrameResult, on_wire: bool) -> FrameReport {
        FrameReport {
            index: f.index,
            queue: f.queue,
            len: f.len,
            launch_ns: f.launch_ns,
            status: f.status.name(),
            depart_ns: f.depart_ns,
            capped: f.capped,
            error_ns: on_wire.then(|| f.error_ns()),
            earliest_ns: None,
            delay_ns: None,
            sim_error_ns: None,
            waited_for: None,
        }
    }
}

/// The `--report` JSON and the summary table.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// Frames in the job.
    pub packets: u64,
    /// Completed SENT.
    pub sent: u64,
    /// Completed SENT_LATE.
    pub sent_late: u64,
    /// Completed DROPPED_LATE.
    pub dropped_late: u64,
    /// Completed DROPPED_HORIZON.
    pub dropped_horizon: u64,
    /// Completed REJECTED.
    pub rejected: u64,
    /// Completed FLUSHED.
    pub flushed: u64,
    /// Completed DMA_ERROR (the card could not read the descriptor or the payload from host memory).
    pub dma_error: u64,
    /// Frames whose launch time the card capped to its horizon (they leave early, by request).
    pub capped: u64,
    /// Frames without a completion: the job was cut short (see `partial`) before they were posted, or
    /// the card gave none back.
    pub unfinished: u64,
    /// Why the job did not run to its end (an error, a signal); absent for a job that did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub partial: Option<String>,
    /// Departure minus requested launch (the card's PHC), over every frame on the wire (SENT and
    /// SENT_LATE); null when no frame went on the wire.
    pub error_ns: Option<ErrorStats>,
    /// The same over SENT frames only; null when none was SENT.
    pub error_sent_ns: Option<ErrorStats>,
    /// Departure error in simulated time (wire first beat minus launch mapped through a PHC reading),
    /// over every frame on the wire; absent when not measured (see `sim_clock`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sim_error_ns: Option<ErrorStats>,
    /// The same over SENT frames only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sim_error_sent_ns: Option<ErrorStats>,
    /// How the PHC was mapped to simulated time, or why it was not.
    pub sim_clock: String,
    /// Departure minus the earliest departure physics allowed (launch time, or the end of the frame
    /// ahead on the wire at line rate), over every frame on the wire; absent without a line rate.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delay_ns: Option<ErrorStats>,
    /// Frames that left more than one core cycle after their launch time.
    pub late: u64,
    /// Of those, frames that waited only for the frames ahead of them on a busy line.
    pub late_busy_line: u64,
    /// Of those, frames that left more than one core cycle after the line allowed.
    pub late_card: u64,
    /// First departure to last departure of frames on the wire, ns.
    pub duration_ns: u64,
    /// Frame bits on the wire (frame + FCS) per second over `duration_ns`, in Gb/s; null when there is
    /// no rate (see `no_rate`).
    pub achieved_gbps: Option<f64>,
    /// Frames on the wire per second over `duration_ns`, in millions; null when there is no rate.
    pub achieved_mpps: Option<f64>,
    /// Why there is no achieved rate (fewer than two frames on the wire, or all left at one time).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub no_rate: Option<String>,
    /// Time 0 of a relative trace (absolute TAI ns), or 0 for absolute times.
    pub t0_ns: u64,
    /// The lead chosen: time 0 minus the PHC when the push started, ns.
    pub lead_ns: u64,
    /// Frames on the wire that left before their launch time without a capped launch time (must be 0).
    pub early: u64,
    /// Per queue: frames and statuses.
    pub queues: BTreeMap<u16, QueueReport>,
    /// Backend description.
    pub backend: String,
    /// The PTP clock that ran beside the job (`--ptp`): its state, counters and offsets.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ptp: Option<crate::ptp::beside::BesideSummary>,
    /// Every frame, in job order (written by [`Report::write_json`], one compact line each).
    #[serde(skip)]
    pub frames: Vec<FrameReport>,
}

/// Per-queue counts.
#[derive(Debug, Clone, Default, Serialize)]
pub struct QueueReport {
    /// Frames.
    pub packets: u64,
    /// On the wire.
    pub sent: u64,
    /// Not on the wire.
    pub not_sent: u64,
}

/// Shortest time from a frame's start to the next frame's start at `rate_bps`, in ps: its wire bytes
/// (preamble to the end of a 12-octet gap) less the octets a MAC's deficit idle count may take off
/// the gap to align the next start ([`crate::wire_time::dic_max_bytes`]).
pub fn frame_wire_ps(len: u32, rate_bps: u64) -> u64 {
    let bytes =
        crate::wire_time::wire_bytes(len as usize) - crate::wire_time::dic_max_bytes(rate_bps);
    (u128::from(bytes) * 8 * 1_000_000_000_000 / u128::from(rate_bps.max(1))) as u64
}

impl Report {
    /// A report of nothing yet for a job run in `ctx`: every count 0, no figures.
    pub fn empty(ctx: &ReportContext) -> Report {
        Report {
            packets: 0,
            unfinished: 0,
            partial: None,
            sent: 0,
            sent_late: 0,
            dropped_late: 0,
            dropped_horizon: 0,
            rejected: 0,
            dma_error: 0,
            flushed: 0,
            capped: 0,
            error_ns: None,
            error_sent_ns: None,
            sim_error_ns: None,
            sim_error_sent_ns: None,
            sim_clock: String::new(),
            delay_ns: None,
            late: 0,
            late_busy_line: 0,
            late_card: 0,
            duration_ns: 0,
            achieved_gbps: None,
            achieved_mpps: None,
            no_rate: None,
            t0_ns: ctx.t0_ns,
            lead_ns: ctx.lead_ns,
            early: 0,
            queues: BTreeMap::new(),
            backend: ctx.backend.clone(),
            ptp: None,
            frames: Vec::new(),
        }
    }

    /// Summarise an outcome.
    pub fn new(out: &Outcome, ctx: &ReportContext) -> Report {
        let mut r = Report {
            packets: (out.results.len() + out.unfinished.len()) as u64,
            unfinished: out.unfinished.len() as u64,
            frames: Vec::with_capacity(out.results.len()),
            ..Report::empty(ctx)
        };
        let tol = ctx.clk_period_ps.div_ceil(1000).max(1) as i64;
        let mut errs = Vec::new();
        let mut errs_sent = Vec::new();
        for f in &out.results {
            match f.status {
                Status::Sent => r.sent += 1,
                Status::SentLate => r.sent_late += 1,
                Status::DroppedLate => r.dropped_late += 1,
                Status::DroppedHorizon => r.dropped_horizon += 1,
                Status::Rejected => r.rejected += 1,
                Status::Flushed => r.flushed += 1,
                Status::DmaError => r.dma_error += 1,
            }
            r.capped += f.capped as u64;
            let q = r.queues.entry(f.queue).or_default();
            q.packets += 1;
            let on_wire = f.on_wire();
            if on_wire {
                q.sent += 1;
                errs.push(f.error_ns());
                if f.status == Status::Sent {
                    errs_sent.push(f.error_ns());
                }
                if f.depart_ns < f.launch_ns && !f.capped {
                    r.early += 1;
                }
            } else {
                q.not_sent += 1;
            }
            r.frames.push(FrameReport::of(f, on_wire));
        }
        r.error_ns = (!errs.is_empty()).then(|| ErrorStats::of(&mut errs));
        r.error_sent_ns = (!errs_sent.is_empty()).then(|| ErrorStats::of(&mut errs_sent));

        // Frames on the wire in departure order (ties in job order, as `wire_packets`).
        let mut wire: Vec<usize> = (0..out.results.len())
            .filter(|&i| out.results[i].on_wire())
            .collect();
        wire.sort_by_key(|&i| (out.results[i].depart_ns, i));

        // Earliest departure physics allowed, and what late frames waited for.
        if let Some(rate) = ctx.line_rate_bps.filter(|_| !wire.is_empty()) {
            let mut delays = Vec::with_capacity(wire.len());
            // End of the previous frame on the wire, ps of PHC time (ps keeps back-to-back trains exact).
            let mut line_free_ps: u128 = 0;
            for &i in &wire {
                let f = &out.results[i];
                let earliest_ps = (u128::from(f.launch_ns) * 1000).max(line_free_ps);
                // whole ns rounded down, as the card's stamp is (its PHC counts whole ns)
                let earliest = (earliest_ps / 1000).min(u64::MAX as u128) as u64;
                let delay = sub_ns(f.depart_ns, earliest);
                delays.push(delay);
                let fr = &mut r.frames[i];
                fr.earliest_ns = Some(earliest);
                fr.delay_ns = Some(delay);
                if f.error_ns() > tol {
                    r.late += 1;
                    if delay <= tol {
                        r.late_busy_line += 1;
                        fr.waited_for = Some("line");
                    } else {
                        r.late_card += 1;
                        fr.waited_for = Some("card");
                    }
                }
                line_free_ps =
                    u128::from(f.depart_ns) * 1000 + u128::from(frame_wire_ps(f.len, rate));
            }
            r.delay_ns = Some(ErrorStats::of(&mut delays));
        } else {
            r.late = wire
                .iter()
                .filter(|&&i| out.results[i].error_ns() > tol)
                .count() as u64;
        }

        // Departure error in simulated time.
        let c = &out.clock;
        r.sim_clock = match (&ctx.wire_start_ps, c.sim_before_ns, c.sim_after_ns) {
            _ if wire.is_empty() => "not measured: no frame went on the wire".into(),
            (_, None, _) | (_, _, None) => "not a simulated card".into(),
            (None, _, _) => "not measured: the wire was not recorded".into(),
            (Some(w), _, _) if w.len() != wire.len() => format!(
                "not measured: the wire carried {} frames, the completions say {}",
                w.len(),
                wire.len()
            ),
            _ if c.phc_steps > 0 => format!(
                "not measured: the PHC was stepped {} time(s) during the run",
                c.phc_steps
            ),
            _ if !c.rate_nominal => {
                "not measured: the PHC's period or frequency trim was not nominal during the run (adjusted)".into()
            }
            (Some(w), Some(sa), Some(sb)) => {
                // The PHC sample was latched during the register read, between sa and sb (simulated
                // ns). Mapped at sa, the earliest it can have been latched, each error is an upper
                // bound: the true error is at most sb - sa below it, never above. (On the Verilated
                // core the map at sa agrees with the card's own departure stamps to the ns.)
                let mut all = Vec::with_capacity(w.len());
                let mut sent = Vec::new();
                for (&i, &start_ps) in wire.iter().zip(w) {
                    let f = &out.results[i];
                    // launch in simulated ps = sa + (launch - sample) ns
                    let launch_sim_ps = 1000
                        * (i128::from(sa) + i128::from(f.launch_ns) - i128::from(c.sample_phc_ns));
                    let e = (i128::from(start_ps) - launch_sim_ps).div_euclid(1000);
                    let e = e.clamp(i64::MIN as i128, i64::MAX as i128) as i64;
                    r.frames[i].sim_error_ns = Some(e);
                    all.push(e);
                    if f.status == Status::Sent {
                        sent.push(e);
                    }
                }
                r.sim_error_ns = Some(ErrorStats::of(&mut all));
                r.sim_error_sent_ns = (!sent.is_empty()).then(|| ErrorStats::of(&mut sent));
                format!(
                    "PHC latched by a register read during simulated {sa}..{sb} ns, mapped at its start: each figure is at most {} ns above the true error, never below; nominal PHC rate, no steps",
                    sb - sa
                )
            }
        };

        if wire.len() >= 2 {
            let first = out.results[wire[0]].depart_ns;
            let last = out.results[wire[wire.len() - 1]].depart_ns;
            let span = last - first;
            r.duration_ns = span;
            if span > 0 {
                // Rate of departures: every frame but the last one, over the span.
                let n = (wire.len() - 1) as f64;
                let bits: f64 = wire[..wire.len() - 1]
                    .iter()
                    .map(|&i| (out.results[i].len as f64 + 4.0) * 8.0)
                    .sum();
                r.achieved_mpps = Some(n / span as f64 * 1e3);
                r.achieved_gbps = Some(bits / span as f64);
            } else {
                r.no_rate = Some(format!(
                    "no rate: all {} frames on the wire have one departure time",
                    wire.len()
                ));
            }
        } else {
            r.no_rate = Some(match wire.len() {
                0 => "no rate: no frame went on the wire".to_string(),
                _ => {
                    "no rate: one frame went on the wire (a rate needs two departures)".to_string()
                }
            });
        }
        // Frames without a completion, in their place in job order.
        for f in &out.unfinished {
            let q = r.queues.entry(f.queue).or_default();
            q.packets += 1;
            q.not_sent += 1;
            r.frames.push(FrameReport {
                index: f.index,
                queue: f.queue,
                len: f.len,
                launch_ns: f.launch_ns,
                status: "UNFINISHED",
                depart_ns: 0,
                capped: false,
                error_ns: None,
                earliest_ns: None,
                delay_ns: None,
                sim_error_ns: None,
                waited_for: None,
            });
        }
        if !out.unfinished.is_empty() {
            r.frames.sort_by_key(|f| f.index);
        }
        r
    }

    /// Mark the report as the record of a job that did not run to its end, and why.
    pub fn mark_partial(&mut self, why: String) {
        self.partial = Some(why);
    }

    /// Write the report as JSON: the summary pretty-printed, then `"frames"` (unless `with_frames` is
    /// false) with one compact line per frame, streamed (a million-frame job writes ~190 MB without
    /// building it in memory first).
    pub fn write_json(
        &self,
        out: &mut dyn std::io::Write,
        with_frames: bool,
    ) -> std::io::Result<()> {
        if !with_frames {
            return self
                .write_json_head(out)
                .and_then(|_| out.write_all(b"\n}\n"));
        }
        self.write_json_frames(out, &mut |out| {
            for (i, f) in self.frames.iter().enumerate() {
                out.write_all(if i == 0 { b"\n    " } else { b",\n    " })?;
                serde_json::to_writer(&mut *out, f).map_err(std::io::Error::other)?;
            }
            Ok(())
        })
    }

    fn write_json_head(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        let head = serde_json::to_string_pretty(self).map_err(std::io::Error::other)?;
        let body = head
            .trim_end()
            .strip_suffix('}')
            .unwrap_or(&head)
            .trim_end();
        out.write_all(body.as_bytes())
    }

    /// Write the report as JSON with the `"frames"` list written by `frames` (each line preceded by
    /// `\n    ` for the first, `,\n    ` for the others), as [`Report::write_json`] does.
    pub fn write_json_frames(
        &self,
        out: &mut dyn std::io::Write,
        frames: &mut dyn FnMut(&mut dyn std::io::Write) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        self.write_json_head(out)?;
        out.write_all(b",\n  \"frames\": [")?;
        frames(out)?;
        out.write_all(b"\n  ]")?;
        out.write_all(b"\n}\n")
    }

    /// Frames that did not go on the wire (dropped, rejected, flushed, DMA errors).
    pub fn not_sent(&self) -> u64 {
        self.dropped_late
            + self.dropped_horizon
            + self.rejected
            + self.flushed
            + self.dma_error
            + self.unfinished
    }

    /// Sentences for stderr about what a user must not miss: frames not sent, capped, early.
    pub fn warnings(&self) -> Vec<String> {
        let mut w = Vec::new();
        let n = self.not_sent();
        if n > 0 {
            let mut parts = Vec::new();
            for (count, what) in [
                (
                    self.dropped_late,
                    "dropped late (their launch time had passed: --late drop)",
                ),
                (
                    self.dropped_horizon,
                    "dropped beyond the card's horizon (--horizon drop)",
                ),
                (self.rejected, "rejected by the card"),
                (self.flushed, "flushed"),
                (
                    self.unfinished,
                    "unfinished (no completion: the job stopped before they were posted, or the card gave none back)",
                ),
                (
                    self.dma_error,
                    "lost to DMA errors (the card could not read host memory: check the IOMMU \
                     mapping and bus mastering)",
                ),
            ] {
                if count > 0 {
                    parts.push(format!("{count} {what}"));
                }
            }
            w.push(format!(
                "{n} of {} frame(s) were not sent: {}; the report lists each frame's status",
                self.packets,
                parts.join(", ")
            ));
        }
        if self.capped > 0 {
            w.push(format!(
                "{} frame(s) had their launch time capped to the card's horizon (--horizon cap): they left before the time they asked for",
                self.capped
            ));
        }
        if self.late_card > 0 {
            w.push(format!(
                "{} frame(s) left more than a launch-gate cycle after the line allowed (not because of a busy line): the card, or the driver feeding it, was late; `waited_for` in the report names them",
                self.late_card
            ));
        }
        if self.early > 0 {
            w.push(format!(
                "{} frame(s) left before their launch time without being capped: a card bug",
                self.early
            ));
        }
        w
    }

    /// The summary table for stdout.
    pub fn table(&self) -> String {
        let mut s = String::new();
        let row = |s: &mut String, k: &str, v: String| s.push_str(&format!("  {k:<18} {v}\n"));
        let stats = |e: &ErrorStats| {
            format!(
                "min {} / p50 {} / p99 {} / p99.9 {} / max {}",
                e.min, e.p50, e.p99, e.p999, e.max
            )
        };
        if self.partial.is_some() {
            row(
                &mut s,
                "PARTIAL",
                format!(
                    "the job did not run to its end: {} of {} frame(s) completed (`partial` in the report says why)",
                    self.packets - self.unfinished,
                    self.packets
                ),
            );
        }
        row(&mut s, "backend", self.backend.clone());
        row(&mut s, "packets", self.packets.to_string());
        row(&mut s, "sent", self.sent.to_string());
        row(&mut s, "sent_late", self.sent_late.to_string());
        row(&mut s, "dropped_late", self.dropped_late.to_string());
        row(&mut s, "dropped_horizon", self.dropped_horizon.to_string());
        row(&mut s, "rejected", self.rejected.to_string());
        row(&mut s, "flushed", self.flushed.to_string());
        if self.unfinished > 0 {
            row(&mut s, "unfinished", self.unfinished.to_string());
        }
        if self.dma_error > 0 {
            row(&mut s, "dma_error", self.dma_error.to_string());
        }
        if self.capped > 0 {
            row(&mut s, "capped", self.capped.to_string());
        }
        let or =
            |e: &Option<ErrorStats>, none: &str| e.as_ref().map_or_else(|| none.to_string(), stats);
        row(
            &mut s,
            "error_ns (wire)",
            or(&self.error_ns, "no frames sent"),
        );
        row(
            &mut s,
            "error_ns (SENT)",
            or(&self.error_sent_ns, "no frame SENT on time"),
        );
        match &self.sim_error_ns {
            Some(a) => {
                row(&mut s, "sim error (wire)", stats(a));
                row(
                    &mut s,
                    "sim error (SENT)",
                    or(&self.sim_error_sent_ns, "no frame SENT on time"),
                );
            }
            None => row(&mut s, "sim error", self.sim_clock.clone()),
        }
        if let Some(d) = &self.delay_ns {
            row(&mut s, "delay beyond line", stats(d));
        }
        let late = if self.delay_ns.is_some() {
            format!(
                "{} more than a cycle after launch: {} waited for a busy line, {} for the card",
                self.late, self.late_busy_line, self.late_card
            )
        } else {
            format!("{} more than a cycle after launch", self.late)
        };
        row(&mut s, "late", late);
        row(&mut s, "early", self.early.to_string());
        row(&mut s, "duration_ns", self.duration_ns.to_string());
        row(
            &mut s,
            "achieved",
            match (self.achieved_gbps, self.achieved_mpps) {
                (Some(g), Some(m)) => format!("{g:.3} Gb/s, {m:.3} Mpps"),
                _ => self.no_rate.clone().unwrap_or_else(|| "no rate".into()),
            },
        );
        if self.t0_ns != 0 {
            row(
                &mut s,
                "time 0",
                format!("{} ns TAI (lead {} ns)", self.t0_ns, self.lead_ns),
            );
        }
        for (q, c) in &self.queues {
            row(
                &mut s,
                &format!("queue {q}"),
                format!(
                    "{} packets, {} sent, {} not sent",
                    c.packets, c.sent, c.not_sent
                ),
            );
        }
        s
    }
}

/// One packet of the output capture: departure time (TAI ns, as the card reported it) and bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WirePacket {
    /// Departure, TAI ns.
    pub ts_ns: u64,
    /// Job index of the frame.
    pub index: u64,
    /// Bytes as they left (from the wire model on sim, else the bytes that were posted).
    pub data: Vec<u8>,
}

/// The frames that went out, in departure order, each with its completion's departure time.
///
/// With `wire` (the sim backend's wire model) the bytes are what the core actually put on the wire,
/// and the wire must hold exactly one frame per SENT/SENT_LATE completion, in the same order, with the
/// same length; otherwise the bytes are the ones posted (`src`).
pub fn wire_packets(
    results: &[FrameResult],
    frames: &[JobFrame],
    src: &dyn FrameSource,
    wire: Option<Vec<Vec<u8>>>,
) -> Result<Vec<WirePacket>, String> {
    let mut sent: Vec<usize> = (0..results.len())
        .filter(|&i| results[i].on_wire())
        .collect();
    sent.sort_by_key(|&i| (results[i].depart_ns, i));
    match wire {
        Some(w) => {
            if w.len() != sent.len() {
                return Err(format!(
                    "the wire carried {} frames but the card completed {} as sent",
                    w.len(),
                    sent.len()
                ));
            }
            let mut out = Vec::with_capacity(sent.len());
            for (k, (bytes, &i)) in w.into_iter().zip(&sent).enumerate() {
                let r = &results[i];
                if bytes.len() != r.len as usize {
                    return Err(format!(
                        "wire frame {k} is {} bytes, but the completion in that place (frame {}) says {}",
                        bytes.len(),
                        r.index,
                        r.len
                    ));
                }
                out.push(WirePacket {
                    ts_ns: r.depart_ns,
                    index: r.index,
                    data: bytes,
                });
            }
            Ok(out)
        }
        None => {
            let mut out = Vec::with_capacity(sent.len());
            for &i in &sent {
                let mut data = Vec::new();
                src.frame(&frames[i], &mut data);
                out.push(WirePacket {
                    ts_ns: results[i].depart_ns,
                    index: results[i].index,
                    data,
                });
            }
            Ok(out)
        }
    }
}

/// Lead for a relative trace: enough to post the first ring-fulls and for the card to fetch and
/// prefetch them before the first launch time. `lookahead_ns` is the card's prefetch lookahead.
///
/// lookahead + 20 us + 100 ns per frame of the first window, at least 30 us. The 20 us also cover a
/// card just out of reset: the calendar's initial sweep (16 us on the default core) is not shown in
/// CTRL_STATUS, and entries that come due during it leave in insertion order, not launch order.
pub fn default_lead_ns(frames_first_window: u64, lookahead_ns: u64) -> u64 {
    lookahead_ns
        .saturating_add(20_000)
        .saturating_add(frames_first_window.saturating_mul(100))
        .max(30_000)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn res(index: u64, status: Status, launch: u64, depart: u64) -> FrameResult {
        FrameResult {
            index,
            queue: (index % 2) as u16,
            len: 60,
            launch_ns: launch,
            status,
            depart_ns: depart,
            reason: 0,
            capped: false,
        }
    }

    #[test]
    fn percentiles_nearest_rank() {
        let mut v: Vec<i64> = (1..=1000).collect();
        let s = ErrorStats::of(&mut v);
        assert_eq!(
            (s.min, s.p50, s.p99, s.p999, s.max),
            (1, 500, 990, 999, 1000)
        );
        assert_eq!(ErrorStats::of(&mut []), ErrorStats::default());
        let mut one = vec![7];
        let s = ErrorStats::of(&mut one);
        assert_eq!((s.min, s.p50, s.p999, s.max), (7, 7, 7, 7));
    }

    fn outcome(results: Vec<FrameResult>) -> Outcome {
        Outcome {
            results,
            start_phc_ns: 0,
            end_phc_ns: 2000,
            doorbells: 1,
            loop_wall_ns: 0,
            clock: ClockMap::default(),
            unfinished: Vec::new(),
        }
    }

    fn ctx() -> ReportContext {
        ReportContext {
            t0_ns: 900,
            lead_ns: 100,
            backend: "test".into(),
            line_rate_bps: Some(10_000_000_000),
            clk_period_ps: 4000,
            wire_start_ps: None,
        }
    }

    #[test]
    fn report_counts_and_rates() {
        let out = outcome(vec![
            res(0, Status::Sent, 1000, 1002),
            res(1, Status::Sent, 1000, 1069),
            res(2, Status::SentLate, 500, 1200),
            res(3, Status::DroppedHorizon, 10_000_000, 900),
        ]);
        let r = Report::new(&out, &ctx());
        assert_eq!(
            (r.packets, r.sent, r.sent_late, r.dropped_horizon),
            (4, 2, 1, 1)
        );
        assert_eq!(r.error_ns.unwrap().min, 2);
        assert_eq!(r.error_ns.unwrap().max, 700);
        assert_eq!(r.error_sent_ns.unwrap().max, 69);
        assert_eq!(r.duration_ns, 198);
        assert_eq!(r.early, 0);
        // two frame gaps of 64 bytes (60 + FCS) over 198 ns
        assert!((r.achieved_gbps.unwrap() - 2.0 * 64.0 * 8.0 / 198.0).abs() < 1e-9);
        assert_eq!(r.queues[&0].packets, 2);
        assert_eq!(r.not_sent(), 1);
        let w = r.warnings();
        assert_eq!(w.len(), 2, "{w:?}");
        assert_eq!(r.late_card, 1, "frame 2 left 63 ns after the line was free");
        assert!(
            w[0].contains("1 of 4 frame(s) were not sent: 1 dropped beyond"),
            "{w:?}"
        );
        let json = serde_json::to_value(&r).unwrap();
        for k in [
            "packets",
            "sent",
            "sent_late",
            "dropped_late",
            "dropped_horizon",
            "rejected",
            "flushed",
            "capped",
            "duration_ns",
            "achieved_gbps",
            "achieved_mpps",
            "late_busy_line",
            "late_card",
            "sim_clock",
        ] {
            assert!(json.get(k).is_some(), "{k}");
        }
        for k in ["min", "p50", "p99", "p999", "max"] {
            assert!(json["error_ns"].get(k).is_some(), "{k}");
            assert!(json["error_sent_ns"].get(k).is_some(), "{k}");
            assert!(json["delay_ns"].get(k).is_some(), "{k}");
        }
        let mut text = Vec::new();
        r.write_json(&mut text, true).unwrap();
        let json: serde_json::Value = serde_json::from_slice(&text).unwrap();
        assert_eq!(json["packets"], 4);
        assert_eq!(json["frames"].as_array().unwrap().len(), 4);
        assert_eq!(json["frames"][3]["status"], "DROPPED_HORIZON");
        assert!(json["frames"][3].get("error_ns").is_none());
        assert!(r.table().contains("dropped_horizon"));
    }

    #[test]
    fn late_frames_are_split_into_busy_line_and_card() {
        // 10G: a 60-byte frame takes (8 + 60 + 4 + 12) x 0.8 = 67.2 ns on the wire; the deficit idle
        // count may take 3 octets off a gap (IEEE 802.3 46.3.1.4), so the next may start 64.8 ns on.
        let out = outcome(vec![
            res(0, Status::Sent, 1000, 1000),
            // asked for 1000 too: the line is free at 1064.8 at the earliest, it left at 1067
            // (stamped 1067): the busy line
            res(1, Status::SentLate, 1000, 1067),
            // asked for 1100, left at 1300 although the line was free at 1131.8: the card
            res(2, Status::SentLate, 1100, 1300),
            // back-to-back train behind it, exact in ps: free at 1364.8 at the earliest (stamped 1364
            // as a MAC that shortened the gap by 3 would), then from 1364: 1428.8 (it left at 1431)
            res(3, Status::SentLate, 1300, 1364),
            res(4, Status::SentLate, 1300, 1431),
        ]);
        let r = Report::new(&out, &ctx());
        assert_eq!((r.late, r.late_busy_line, r.late_card), (4, 3, 1));
        let f = &r.frames;
        assert_eq!(f[1].earliest_ns, Some(1064));
        assert_eq!(f[1].delay_ns, Some(3));
        assert_eq!(f[2].earliest_ns, Some(1131));
        assert_eq!(f[2].delay_ns, Some(169));
        assert_eq!(f[2].waited_for, Some("card"));
        assert_eq!(f[3].earliest_ns, Some(1364));
        assert_eq!(f[3].waited_for, Some("line"));
        assert_eq!(f[4].earliest_ns, Some(1428));
        assert_eq!(f[4].delay_ns, Some(3));
        assert_eq!(f[0].waited_for, None);
        let d = r.delay_ns.unwrap();
        assert_eq!((d.min, d.max), (0, 169));
        assert!(
            r.table()
                .contains("3 waited for a busy line, 1 for the card"),
            "{}",
            r.table()
        );
        assert!(
            r.warnings().iter().any(|w| w.starts_with(
                "1 frame(s) left more than a launch-gate cycle after the line allowed"
            )),
            "{:?}",
            r.warnings()
        );
        // Without a line rate there is no physics to compare with.
        let r = Report::new(
            &out,
            &ReportContext {
                line_rate_bps: None,
                ..ctx()
            },
        );
        assert_eq!((r.late, r.late_busy_line, r.late_card), (4, 0, 0));
        assert!(r.delay_ns.is_none());
    }

    #[test]
    fn errors_never_wrap() {
        // A launch time near 2^64 capped to the horizon leaves ~2^64 ns early: saturated, counted as
        // capped, not as a late frame and not as an early-frame bug.
        let mut f = res(0, Status::Sent, u64::MAX - 5, 100_000_000);
        f.capped = true;
        assert_eq!(f.error_ns(), i64::MIN);
        assert_eq!(sub_ns(u64::MAX, 0), i64::MAX);
        assert_eq!(sub_ns(5, 7), -2);
        let r = Report::new(&outcome(vec![f]), &ctx());
        assert_eq!((r.capped, r.early, r.late), (1, 0, 0));
        assert!(r.warnings()[0].contains("capped"), "{:?}", r.warnings());
    }

    #[test]
    fn simulated_time_error_uses_the_bracketed_phc_sample() {
        let mut out = outcome(vec![
            res(0, Status::Sent, 10_000, 10_002),
            res(1, Status::SentLate, 10_000, 10_070),
        ]);
        out.clock = ClockMap {
            sample_phc_ns: 5_000,
            sim_before_ns: Some(1_000),
            sim_after_ns: Some(1_040),
            phc_steps: 0,
            rate_nominal: true,
        };
        // PHC 5000 latched at simulated 1000 at the earliest: launch 10000 is simulated 6000 ns.
        let c = ReportContext {
            wire_start_ps: Some(vec![6_010_000, 6_070_000]),
            ..ctx()
        };
        let r = Report::new(&out, &c);
        assert_eq!(r.frames[0].sim_error_ns, Some(10));
        assert_eq!(r.frames[1].sim_error_ns, Some(70));
        assert_eq!(r.sim_error_sent_ns.unwrap().max, 10);
        assert_eq!(r.sim_error_ns.unwrap().max, 70);
        assert!(
            r.sim_clock.contains("at most 40 ns above"),
            "{}",
            r.sim_clock
        );
        // A stepped PHC: the map is not used, and the report says why.
        out.clock.phc_steps = 1;
        let r = Report::new(&out, &c);
        assert!(r.sim_error_ns.is_none());
        assert!(r.sim_clock.contains("stepped"), "{}", r.sim_clock);
        out.clock.phc_steps = 0;
        out.clock.rate_nominal = false;
        assert!(Report::new(&out, &c).sim_clock.contains("adjusted"));
    }

    #[test]
    fn hold_margin_and_reach() {
        assert_eq!(default_hold_margin_ns(100_000_000), 1_000_000);
        assert_eq!(default_hold_margin_ns(1_000_000), 500_000);
        let mut m = crate::device::mem::MemBackend::new_identity();
        let caps = Caps::read(&mut m).unwrap();
        let o = PushOptions::default();
        assert_eq!(
            posting_reach_ns(&caps, &o),
            caps.horizon_ns - default_hold_margin_ns(caps.horizon_ns)
        );
        let o = PushOptions {
            hold_margin_ns: Some(u64::MAX),
            ..o
        };
        assert_eq!(posting_reach_ns(&caps, &o), 1);
    }

    #[test]
    fn ring_sizes_above_the_card_are_refused_not_clamped() {
        let mut m = crate::device::mem::MemBackend::new_identity();
        let caps = Caps::read(&mut m).unwrap();
        let max = caps.ring_log2_max.min(crate::ring::MAX_RING_LOG2);
        let ok = PushOptions {
            ring_log2: max,
            ..PushOptions::default()
        };
        assert_eq!(check_options(&caps, &ok).unwrap().0, max);
        for bad in [0, max + 1, 40] {
            let o = PushOptions {
                ring_log2: bad,
                ..PushOptions::default()
            };
            let e = check_options(&caps, &o).unwrap_err().to_string();
            assert!(
                e.contains(&format!("--ring-log2 {bad}")) && e.contains(&format!("1..={max}")),
                "{e}"
            );
        }
        let o = PushOptions {
            cpl_log2: Some(caps.ring_log2_max + 1),
            ..PushOptions::default()
        };
        assert!(check_options(&caps, &o).is_err());
    }

    /// The mem backend, counting `wait_irq` calls.
    /// (`.2` false: hide the simulated time, as a real card's backend does, so the push polls).
    struct CountWaits(
        crate::device::mem::MemBackend,
        std::rc::Rc<std::cell::Cell<u32>>,
        bool,
    );

    impl Backend for CountWaits {
        fn describe(&self) -> String {
            self.0.describe()
        }
        fn read32(&mut self, o: usize) -> u32 {
            self.0.read32(o)
        }
        fn write32(&mut self, o: usize, v: u32) {
            self.0.write32(o, v)
        }
        fn dma_alloc(&mut self, len: usize) -> Result<crate::device::DmaRegion, DeviceError> {
            self.0.dma_alloc(len)
        }
        fn dma_free(&mut self, r: crate::device::DmaRegion) -> Result<(), DeviceError> {
            self.0.dma_free(r)
        }
        fn dma_write(&mut self, r: &crate::device::DmaRegion, off: usize, d: &[u8]) {
            self.0.dma_write(r, off, d)
        }
        fn dma_read(&mut self, r: &crate::device::DmaRegion, off: usize, b: &mut [u8]) {
            self.0.dma_read(r, off, b)
        }
        fn now_ns(&mut self) -> u64 {
            self.0.now_ns()
        }
        fn wait_ns(&mut self, ns: u64) -> Result<(), DeviceError> {
            self.0.wait_ns(ns)
        }
        fn wait_irq(&mut self, ns: u64) -> Result<bool, DeviceError> {
            self.1.set(self.1.get() + 1);
            self.0.wait_irq(ns)
        }
        fn sim_time_ns(&mut self) -> Option<u64> {
            self.0.sim_time_ns().filter(|_| self.2)
        }
        fn has_irq(&self) -> bool {
            self.2
        }
    }

    /// Push one frame 1 ms out to a card that never completes anything (the mem backend says RUNNING
    /// and does nothing). Returns the outcome, the number of waits and the PHC time it took.
    fn push_to_a_silent_card(simulated: bool) -> (Result<Outcome, PushError>, u32, u64, Card) {
        let mut m = crate::device::mem::MemBackend::new_identity()
            .with_hook(Box::new(crate::phc::PhcModel::new(4, 1)));
        m.set_reg(reg::CTRL_STATUS, reg::CTRL_STATUS_RUNNING);
        let waits = std::rc::Rc::new(std::cell::Cell::new(0u32));
        let counting = CountWaits(m, waits.clone(), simulated);
        let mut card = Card::from_backend(Box::new(counting), "mem".into()).unwrap();
        let now = phc_now(card.backend());
        let frames = [JobFrame {
            index: 0,
            queue: 0,
            len: 60,
            launch_ns: now + 1_000_000,
        }];
        struct Zeros;
        impl FrameSource for Zeros {
            fn frame(&self, f: &JobFrame, out: &mut Vec<u8>) {
                out.clear();
                out.resize(f.len as usize, 0);
            }
        }
        let r = run(
            &mut card,
            &frames,
            &Zeros,
            &PushOptions::default(),
            &mut |_, _| {},
        );
        let took = phc_now(card.backend()) - now;
        (r, waits.get(), took, card)
    }

    fn assert_stalled(r: Result<Outcome, PushError>) {
        let timeout = PushOptions::default().stall_timeout_ns;
        // A failure after posting comes with the partial outcome: here the one frame, unfinished.
        let r = match r {
            Err(PushError::Cut { error, partial }) => {
                assert_eq!(partial.unfinished.len(), 1, "{partial:?}");
                Err(*error)
            }
            r => r,
        };
        match r {
            Err(PushError::Stalled {
                outstanding: 1,
                total: 1,
                stalled_ns,
                ..
            }) => assert!(
                stalled_ns > timeout && stalled_ns < timeout + 100_000,
                "{stalled_ns}"
            ),
            other => panic!("expected a stall, got {other:?}"),
        }
    }

    /// On a simulated backend the push waits in long steps (at most 4 waits, not 6 ms / 200 ns of
    /// them: an idle card can be fast-forwarded) and reports the stall once the frame is overdue by
    /// the stall timeout; the interrupt registers are given back.
    #[test]
    fn a_silent_card_is_reported_as_stalled() {
        let (r, waits, took, mut card) = push_to_a_silent_card(true);
        assert_stalled(r);
        // the stall after 1 ms + the 5 ms timeout, then the failed job's grace for flush completions
        let took = took - FAILED_JOB_GRACE_NS;
        assert!((6_000_000..6_500_000).contains(&took), "{took}");
        assert!(waits <= 4, "{waits} waits");
        assert_eq!(card.backend().read32(reg::CTRL_IRQ_CTRL), 0);
    }

    /// Without an interrupt path (vfio `,poll`, the mem backend) the push sleeps until the frame is
    /// due, then polls every `idle_wait_ns`, and reports the same stall.
    #[test]
    fn a_silent_card_is_reported_as_stalled_when_polling() {
        let (r, waits, took, _) = push_to_a_silent_card(false);
        assert_stalled(r);
        // the stall after 1 ms + the 5 ms timeout, then the failed job's grace for flush completions
        let took = took - FAILED_JOB_GRACE_NS;
        assert!((6_000_000..6_500_000).contains(&took), "{took}");
        let polls = PushOptions::default().stall_timeout_ns / PushOptions::default().idle_wait_ns;
        assert!(
            u64::from(waits) > polls / 2 && u64::from(waits) < polls * 2,
            "{waits} waits"
        );
    }

    #[test]
    fn lookahead_covers_the_longest_frame() {
        // 9000 bytes on 64 bits at 4 ns: 1125 beats = 4500 ns, + 2 x 800 + 1000.
        assert_eq!(lookahead_for(9000, 64, 4.0, 800, None), 7100);
        assert_eq!(lookahead_for(60, 512, 4.0, 800, None), 2604);
        // a board: 9000 bytes take ceil(9000 / 2688) = 4 rounds of reads: 5 latencies, 282 beats of
        // 256 bits at 4 ns (1128 ns), + 1000
        assert_eq!(
            lookahead_for(9000, 256, 4.0, 800, Some(BOARD_READ_WINDOW)),
            4000 + 1128 + 1000
        );
        // a frame within the window: as without one
        assert_eq!(
            lookahead_for(1514, 256, 4.0, 800, Some(BOARD_READ_WINDOW)),
            lookahead_for(1514, 256, 4.0, 800, None)
        );
    }

    #[test]
    fn lead_has_a_floor() {
        assert_eq!(default_lead_ns(0, 0), 30_000);
        assert_eq!(default_lead_ns(1000, 4000), 4000 + 20_000 + 100_000);
    }
}
