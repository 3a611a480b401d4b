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

use serde::Serialize;
use thiserror::Error;

use crate::contract::{reg, Completion, HorizonPolicy, LatePolicy, Status};
use crate::device::{Backend, Caps, Card, DeviceError};
use crate::regs::{Control, CtrlStatus, DescFlags};
use crate::ring::{CplRing, QueueConfig, RingError, Rings, TxQueue};

/// One frame to send.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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
    /// log2 of each queue's ring size (clamped to what the card and the driver allow).
    pub ring_log2: u32,
    /// log2 of the completion ring size.
    pub cpl_log2: u32,
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
    /// Poll interval when there is nothing to do, ns.
    pub idle_wait_ns: u64,
}

impl Default for PushOptions {
    fn default() -> Self {
        PushOptions {
            ring_log2: 10,
            cpl_log2: 12,
            batch: 16,
            late: LatePolicy::Send,
            horizon: HorizonPolicy::Drop,
            lookahead_ns: None,
            stall_timeout_ns: 5_000_000,
            idle_wait_ns: 200,
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
    /// Departure minus request, ns (negative would be early: the contract forbids it).
    pub fn error_ns(&self) -> i64 {
        self.depart_ns as i64 - self.launch_ns as i64
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
    /// A completion came back twice or for nothing posted.
    #[error("completion for queue {queue} cookie {cookie} does not match a frame in flight: a card or driver bug")]
    Unmatched {
        /// Queue.
        queue: u16,
        /// Cookie.
        cookie: u32,
    },
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
/// two host read latencies, the frame's beats on a `bus_bits` bus at `clk_period_ns`, and 1 us.
pub fn lookahead_for(max_len: u32, bus_bits: u32, clk_period_ns: f64, read_latency_ns: u64) -> u32 {
    let beats = (max_len as u64).div_ceil((bus_bits.max(8) / 8) as u64);
    let ns = 2 * read_latency_ns + (beats as f64 * clk_period_ns).ceil() as u64 + 1000;
    ns.min(u32::MAX as u64) as u32
}

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

/// Run a job: post every frame, collect every completion. Either way the card is left quiet for the
/// next process (see [`leave_quiet`]).
pub fn run(
    card: &mut Card,
    frames: &[JobFrame],
    src: &dyn FrameSource,
    opts: &PushOptions,
    progress: Progress<'_>,
) -> Result<Outcome, PushError> {
    let r = run_job(card, frames, src, opts, progress);
    let (caps, b) = card.parts();
    let mut queues: Vec<u16> = frames.iter().map(|f| f.queue).collect();
    queues.sort_unstable();
    queues.dedup();
    leave_quiet(b, caps, &queues, r.is_err());
    r
}

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
        let _ = b.wait_ns(1_000_000);
    }
    b.write32(reg::CPL_CTRL, 0);
}

fn run_job(
    card: &mut Card,
    frames: &[JobFrame],
    src: &dyn FrameSource,
    opts: &PushOptions,
    progress: Progress<'_>,
) -> Result<Outcome, PushError> {
    let (caps, b) = card.parts();
    let caps = caps.clone();
    check_job(&caps, frames)?;
    bring_up(b, opts)?;

    let max_log2 = caps.ring_log2_max.clamp(1, crate::ring::MAX_RING_LOG2);
    let ring_log2 = opts.ring_log2.clamp(1, max_log2);
    let cpl_log2 = opts.cpl_log2.clamp(1, caps.ring_log2_max.max(1));
    let cpl = CplRing::create(b, &caps, cpl_log2)?;
    let used: BTreeMap<u16, ()> = frames.iter().map(|f| (f.queue, ())).collect();
    let mut queues = Vec::new();
    // queue number -> position in `queues`
    let mut qpos = vec![usize::MAX; caps.num_queues as usize];
    let qcfg = QueueConfig {
        ring_log2,
        buffers: 0,
        buf_size: 0,
        batch: opts.batch.max(1),
        late: opts.late,
        horizon: opts.horizon,
        quota: 0,
    };
    for &q in used.keys() {
        qpos[q as usize] = queues.len();
        // Buffers as large as this queue's largest frame (rounded to 64 bytes), not the card's maximum.
        let longest = frames
            .iter()
            .filter(|f| f.queue == q)
            .map(|f| f.len as usize)
            .max()
            .unwrap_or(64);
        let cfg = QueueConfig {
            buf_size: longest.div_ceil(64) * 64,
            ..qcfg.clone()
        };
        queues.push(TxQueue::create(b, &caps, q, &cfg)?);
    }
    let mut rings = Rings { queues, cpl };
    // (queue position, cookie) -> job position
    let mut in_flight: Vec<Vec<usize>> = rings
        .queues
        .iter()
        .map(|q| vec![usize::MAX; q.size() as usize * 2])
        .collect();

    // Posting order: launch time, then job order.
    let mut order: Vec<usize> = (0..frames.len()).collect();
    order.sort_by_key(|&i| (frames[i].launch_ns, i));

    let total = frames.len() as u64;
    let mut results: Vec<Option<FrameResult>> = vec![None; frames.len()];
    let mut done = 0u64;
    let mut next = 0usize;
    let mut buf = Vec::with_capacity(9600);
    let mut cpls: Vec<Completion> = Vec::with_capacity(1024);
    let start_phc_ns = phc_now(b);
    let mut last_progress_phc = start_phc_ns;
    let mut polls_since_phc = 0u32;
    let mut progressed = false;
    // Position in `order` of the earliest posted frame still without completion.
    let mut oldest = 0usize;

    while done < total {
        // Post as much as fits, in order.
        let mut posted_any = false;
        while next < order.len() {
            let f = &frames[order[next]];
            let qp = qpos[f.queue as usize];
            let q = &mut rings.queues[qp];
            src.frame(f, &mut buf);
            debug_assert_eq!(buf.len(), f.len as usize);
            match q.post(b, &buf, f.launch_ns, DescFlags::empty())? {
                Ok(cookie) => {
                    let slot = &mut in_flight[qp];
                    if cookie as usize >= slot.len() {
                        slot.resize(cookie as usize + 1, usize::MAX);
                    }
                    slot[cookie as usize] = order[next];
                    next += 1;
                    posted_any = true;
                }
                Err(_full) => break,
            }
        }
        if next == order.len() || !posted_any {
            rings.doorbell_all(b);
        }
        // Completions.
        cpls.clear();
        let n = rings.poll(b, &mut cpls, 1024)?;
        for c in &cpls {
            let qp = qpos.get(c.queue as usize).copied().unwrap_or(usize::MAX);
            let pos = in_flight
                .get_mut(qp)
                .and_then(|s| s.get_mut(c.cookie as usize))
                .map(|p| std::mem::replace(p, usize::MAX))
                .unwrap_or(usize::MAX);
            if pos == usize::MAX || results[pos].is_some() {
                return Err(PushError::Unmatched {
                    queue: c.queue,
                    cookie: c.cookie,
                });
            }
            let f = &frames[pos];
            let status = Status::from_code(c.status).ok_or_else(|| {
                PushError::Job(format!(
                    "completion with unknown status code {} for frame {}",
                    c.status, f.index
                ))
            })?;
            results[pos] = Some(FrameResult {
                index: f.index,
                queue: f.queue,
                len: f.len,
                launch_ns: f.launch_ns,
                status,
                depart_ns: c.depart_ns,
                reason: c.reason,
                capped: c.flags & crate::contract::CPL_FLAG_CAPPED != 0,
            });
            done += 1;
        }
        if n > 0 {
            progress(done, total);
            progressed = true;
            continue;
        }
        if next < order.len() && posted_any {
            continue;
        }
        // Nothing to do: let time pass, and watch for a stall once every launch time has passed.
        b.wait_ns(opts.idle_wait_ns)?;
        polls_since_phc += 1;
        if polls_since_phc >= 256 {
            polls_since_phc = 0;
            let now = phc_now(b);
            if progressed {
                progressed = false;
                last_progress_phc = now;
            }
            while oldest < next && results[order[oldest]].is_some() {
                oldest += 1;
            }
            let pending_due = oldest < next && frames[order[oldest]].launch_ns <= now;
            let idle_for = now.saturating_sub(last_progress_phc);
            if !pending_due {
                last_progress_phc = now;
            } else if idle_for > opts.stall_timeout_ns {
                return Err(PushError::Stalled {
                    outstanding: total - done,
                    total,
                    stalled_ns: idle_for,
                    phc_ns: now,
                });
            }
        }
    }
    let end_phc_ns = phc_now(b);
    let doorbells = rings.queues.iter().map(|q| q.doorbells()).sum();
    for q in &mut rings.queues {
        q.disable(b, &caps);
    }
    Ok(Outcome {
        results: results
            .into_iter()
            .map(|r| r.expect("every frame completed"))
            .collect(),
        start_phc_ns,
        end_phc_ns,
        doorbells,
    })
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
    /// Departure minus requested launch, over SENT and SENT_LATE frames.
    pub error_ns: ErrorStats,
    /// First departure to last departure of frames on the wire, ns.
    pub duration_ns: u64,
    /// Frame bits on the wire (frame + FCS) per second over `duration_ns`, in Gb/s.
    pub achieved_gbps: f64,
    /// Frames on the wire per second over `duration_ns`, in millions.
    pub achieved_mpps: f64,
    /// Time 0 of a relative trace (absolute TAI ns), or 0 for absolute times.
    pub t0_ns: u64,
    /// The lead chosen: time 0 minus the PHC when the push started, ns.
    pub lead_ns: u64,
    /// Frames on the wire that were early (must be 0).
    pub early: u64,
    /// Per queue: frames and statuses.
    pub queues: BTreeMap<u16, QueueReport>,
    /// Backend description.
    pub backend: String,
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

impl Report {
    /// Summarise an outcome.
    pub fn new(out: &Outcome, t0_ns: u64, lead_ns: u64, backend: String) -> Report {
        let mut r = Report {
            packets: out.results.len() as u64,
            sent: 0,
            sent_late: 0,
            dropped_late: 0,
            dropped_horizon: 0,
            rejected: 0,
            flushed: 0,
            error_ns: ErrorStats::default(),
            duration_ns: 0,
            achieved_gbps: 0.0,
            achieved_mpps: 0.0,
            t0_ns,
            lead_ns,
            early: 0,
            queues: BTreeMap::new(),
            backend,
        };
        let mut errs = Vec::new();
        let mut wire: Vec<(u64, u32)> = Vec::new();
        for f in &out.results {
            match f.status {
                Status::Sent => r.sent += 1,
                Status::SentLate => r.sent_late += 1,
                Status::DroppedLate => r.dropped_late += 1,
                Status::DroppedHorizon => r.dropped_horizon += 1,
                Status::Rejected => r.rejected += 1,
                Status::Flushed => r.flushed += 1,
            }
            let q = r.queues.entry(f.queue).or_default();
            q.packets += 1;
            if f.on_wire() {
                q.sent += 1;
                errs.push(f.error_ns());
                if f.depart_ns < f.launch_ns {
                    r.early += 1;
                }
                wire.push((f.depart_ns, f.len));
            } else {
                q.not_sent += 1;
            }
        }
        r.error_ns = ErrorStats::of(&mut errs);
        wire.sort_unstable();
        if wire.len() >= 2 {
            let span = wire[wire.len() - 1].0 - wire[0].0;
            r.duration_ns = span;
            if span > 0 {
                // Rate of departures: every frame but the last one, over the span.
                let n = (wire.len() - 1) as f64;
                let bits: f64 = wire[..wire.len() - 1]
                    .iter()
                    .map(|&(_, l)| (l as f64 + 4.0) * 8.0)
                    .sum();
                r.achieved_mpps = n / span as f64 * 1e3;
                r.achieved_gbps = bits / span as f64;
            }
        }
        r
    }

    /// The summary table for stdout.
    pub fn table(&self) -> String {
        let mut s = String::new();
        let row = |s: &mut String, k: &str, v: String| s.push_str(&format!("  {k:<18} {v}\n"));
        row(&mut s, "backend", self.backend.clone());
        row(&mut s, "packets", self.packets.to_string());
        row(&mut s, "sent", self.sent.to_string());
        row(&mut s, "sent_late", self.sent_late.to_string());
        row(&mut s, "dropped_late", self.dropped_late.to_string());
        row(&mut s, "dropped_horizon", self.dropped_horizon.to_string());
        row(&mut s, "rejected", self.rejected.to_string());
        row(&mut s, "flushed", self.flushed.to_string());
        let e = &self.error_ns;
        row(
            &mut s,
            "error_ns",
            format!(
                "min {} / p50 {} / p99 {} / p99.9 {} / max {}",
                e.min, e.p50, e.p99, e.p999, e.max
            ),
        );
        row(&mut s, "early", self.early.to_string());
        row(&mut s, "duration_ns", self.duration_ns.to_string());
        row(
            &mut s,
            "achieved",
            format!(
                "{:.3} Gb/s, {:.3} Mpps",
                self.achieved_gbps, self.achieved_mpps
            ),
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
    (lookahead_ns + 20_000 + frames_first_window * 100).max(30_000)
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

    #[test]
    fn report_counts_and_rates() {
        let out = Outcome {
            results: vec![
                res(0, Status::Sent, 1000, 1002),
                res(1, Status::Sent, 1000, 1069),
                res(2, Status::SentLate, 500, 1200),
                res(3, Status::DroppedHorizon, 10_000_000, 900),
            ],
            start_phc_ns: 0,
            end_phc_ns: 2000,
            doorbells: 1,
        };
        let r = Report::new(&out, 900, 100, "test".into());
        assert_eq!(
            (r.packets, r.sent, r.sent_late, r.dropped_horizon),
            (4, 2, 1, 1)
        );
        assert_eq!(r.error_ns.min, 2);
        assert_eq!(r.error_ns.max, 700);
        assert_eq!(r.duration_ns, 198);
        assert_eq!(r.early, 0);
        // two frame gaps of 64 bytes (60 + FCS) over 198 ns
        assert!((r.achieved_gbps - 2.0 * 64.0 * 8.0 / 198.0).abs() < 1e-9);
        assert_eq!(r.queues[&0].packets, 2);
        let json = serde_json::to_value(&r).unwrap();
        for k in [
            "packets",
            "sent",
            "sent_late",
            "dropped_late",
            "dropped_horizon",
            "rejected",
            "flushed",
            "duration_ns",
            "achieved_gbps",
            "achieved_mpps",
        ] {
            assert!(json.get(k).is_some(), "{k}");
        }
        for k in ["min", "p50", "p99", "p999", "max"] {
            assert!(json["error_ns"].get(k).is_some(), "{k}");
        }
        assert!(r.table().contains("dropped_horizon"));
    }

    #[test]
    fn lookahead_covers_the_longest_frame() {
        // 9000 bytes on 64 bits at 4 ns: 1125 beats = 4500 ns, + 2 x 800 + 1000.
        assert_eq!(lookahead_for(9000, 64, 4.0, 800), 7100);
        assert_eq!(lookahead_for(60, 512, 4.0, 800), 2604);
    }

    #[test]
    fn lead_has_a_floor() {
        assert_eq!(default_lead_ns(0, 0), 30_000);
        assert_eq!(default_lead_ns(1000, 4000), 4000 + 20_000 + 100_000);
    }
}
