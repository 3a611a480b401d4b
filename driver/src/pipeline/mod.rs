//! The push/replay pipeline: one way through, in constant memory.
//!
//! ```text
//! source -> schedule -> post -> reap -> sinks
//! ```
//!
//! 1. [`source`] / [`capture`]: frames read one at a time from a trace (CSV) or a capture (pcap,
//!    pcapng), each checked as it is read; an error names the row or packet.
//! 2. [`schedule`]: launch-time order within a hold window, absolute launch times on the card's PHC.
//! 3. [`post`]: the rings; a frame is posted once its launch time is within the card's reach and its
//!    ring has room. With `--threads N`, [`shards`]: the queues shared out over N posting threads.
//! 4. [`reap`]: completions matched to the frames in flight.
//! 5. [`sink`]: results to the report ([`report`], [`histogram`]) and the `--pcap` capture as they
//!    come, or all kept ([`sink::Collect`], for [`crate::push::run`]).
//!
//! `tsnic push` and `tsnic replay` differ only in their source. Memory: the rings, the hold window,
//! the sinks' fixed windows; nothing grows with the input. [`run`] is the loop that moves frames
//! along; it is [`crate::push::run`]'s engine too.

pub mod capture;
pub mod histogram;
pub mod post;
pub mod reap;
pub mod report;
pub mod schedule;
pub mod shards;
pub mod sink;
pub mod source;

use std::sync::atomic::Ordering;

use crate::device::{Backend, Caps, Card};
use crate::push::{
    bring_up, check_options, phc_now, posting_reach_ns, ClockMap, FrameSource, PushError,
    PushOptions,
};
use crate::ring::QueueConfig;

use post::{Post, QueuePlan};
use reap::Reap;
use schedule::{Held, Schedule};
use sink::Sink;

/// Frames posted in one burst before the completions are taken (see [`run`]).
pub const BURST: u32 = 64;

/// How a run went, whatever its end.
#[derive(Debug, Clone, Default)]
pub struct RunEnd {
    /// PHC when posting started.
    pub start_phc_ns: u64,
    /// PHC when the last completion was taken.
    pub end_phc_ns: u64,
    /// Doorbells written.
    pub doorbells: u64,
    /// Wall-clock ns of the post+reap loop (see [`crate::push::Outcome::loop_wall_ns`]).
    pub loop_wall_ns: u64,
    /// CPU time of the loop's thread over the loop, ns (None: the OS does not say: no
    /// `/proc/thread-self/schedstat`).
    pub loop_cpu_ns: Option<u64>,
    /// The PHC against simulated time over the run.
    pub clock: ClockMap,
    /// Frames posted.
    pub posted: u64,
    /// Frames completed.
    pub completed: u64,
    /// Frames read (given to the sinks as completed or unfinished).
    pub frames: u64,
    /// Frames without completion.
    pub unfinished: u64,
    /// Queues the job used.
    pub queues: Vec<u16>,
}

/// A run that started posting: its end, and why it stopped early (None: it ran to its end).
pub struct Ran {
    /// What was done.
    pub end: RunEnd,
    /// Why it stopped before the end; everything read was reported to the sinks either way.
    pub error: Option<PushError>,
}

/// Run a job: frames from `sched` posted to `card` as it can take them (bytes from each frame, or
/// made by `gen`), completions to `sink`. `Err` only when refused before anything was posted (the
/// card untouched but for its checks); after that, every frame read is reported to `sink`, completed
/// or unfinished, and the card left quiet.
pub fn run(
    card: &mut Card,
    sched: &mut Schedule<'_>,
    gen: &dyn FrameSource,
    plan: &QueuePlan,
    opts: &PushOptions,
    sink: &mut dyn Sink,
    progress: crate::push::Progress<'_>,
) -> Result<Ran, PushError> {
    run_beside(card, sched, gen, plan, opts, sink, progress, None)
}

/// Something that runs beside a job on the same card (PTP: `ptp::card::BesideClock`, docs/PTP.md
/// "Who owns the card"), given one turn per turn of the job's loop.
pub trait Beside {
    /// One round; never blocks. `post`: the job's rings (the card has one completion ring: set
    /// your queue's records aside with [`crate::ring::CplRing::set_aside`], and reserve the queue,
    /// [`Post::reserved`]). Returns the PHC time by which it wants its next turn (the loop does not
    /// sleep past it).
    fn turn(&mut self, b: &mut dyn Backend, caps: &Caps, post: &mut Post)
        -> Result<u64, PushError>;
}

/// [`run`] with `beside` turned once per turn of the loop while the job runs.
#[allow(clippy::too_many_arguments)]
pub fn run_beside(
    card: &mut Card,
    sched: &mut Schedule<'_>,
    gen: &dyn FrameSource,
    plan: &QueuePlan,
    opts: &PushOptions,
    sink: &mut dyn Sink,
    progress: crate::push::Progress<'_>,
    mut beside: Option<&mut dyn Beside>,
) -> Result<Ran, PushError> {
    if opts.threads > 1 && beside.is_some() {
        // The shards take the job's queues and completion ring off the loop's `Post`.
        return Err(PushError::Job(
            "--ptp and --threads cannot run together yet: drop one of them".into(),
        ));
    }
    let (caps, b) = card.parts();
    let caps = caps.clone();
    let irq_wired = b.has_irq();
    let reach = posting_reach_ns(&caps, opts);
    let setup = (|| -> Result<(Post, u32), PushError> {
        let (ring_log2, cpl_log2) = check_options(&caps, opts)?;
        bring_up(b, opts)?;
        let qcfg = QueueConfig {
            ring_log2,
            buffers: 0,
            buf_size: 0,
            // One doorbell per burst: the loop (and a posting thread) rings after each burst,
            // with the burst's descriptors written to the ring in one DMA write.
            batch: opts.batch.max(BURST),
            late: opts.late,
            horizon: opts.horizon,
            quota: 0,
        };
        Ok((Post::new(b, &caps, cpl_log2, qcfg, plan)?, ring_log2))
    })();
    let (mut post, ring_log2) = match setup {
        Ok(p) => p,
        Err(e) => {
            // Refused before anything was posted: the card is left as a failed job leaves it.
            let qs: Vec<u16> = plan.iter().map(|p| p.0).collect();
            crate::push::leave_quiet(b, &caps, &qs, true);
            return Err(e);
        }
    };
    let mut reap = Reap::default();
    let phc_steps0 = crate::phc::step_count(b);
    let nominal0 = crate::push::phc_rate_nominal(b, &caps);
    let (start_phc_ns, sim_before_ns, sim_after_ns) = crate::push::phc_sample(b);
    let mut clock = ClockMap {
        sample_phc_ns: start_phc_ns,
        sim_before_ns,
        sim_after_ns,
        phc_steps: 0,
        rate_nominal: nominal0,
    };
    sink.started(&clock);
    let mod_count = opts.batch.min((1u32 << ring_log2) / 4).max(1);
    let irq = irq_wired.then(|| crate::push::IrqSetup::arm(b, mod_count, 2000));
    let mut phc = start_phc_ns;
    let mut last_progress_phc = start_phc_ns;
    let mut progressed = false;
    let mut done = 0u64;
    // The next frame to post, taken from the schedule and not posted yet.
    let mut pending: Option<Held> = None;
    let mut input_done = false;
    // The input was refused part way: the job ends with this once what was read before is sent.
    let mut input_error: Option<PushError> = None;

    let loop_start = std::time::Instant::now();
    let cpu_start = thread_cpu_ns();
    // Frames handed to a posting thread (`--threads`) and never posted.
    let mut left: Vec<Held> = Vec::new();
    let streamed = if opts.threads > 1 {
        shards::stream(
            shards::Ctx {
                b: &mut *b,
                caps: &caps,
                sched: &mut *sched,
                gen,
                post: &mut post,
                sink: &mut *sink,
                opts,
                reach,
                irq_wired,
                ring_log2,
                progress: &mut *progress,
                pending: &mut pending,
                input_done: &mut input_done,
                input_error: &mut input_error,
                done: &mut done,
            },
            &mut left,
        )
    } else {
        // One thread posts each frame before it reads the next: a capture's frame is copied once,
        // from the input's buffer into the card's memory.
        sched.set_lending(true);
        (|| -> Result<(), PushError> {
            let mut beside_wake = u64::MAX;
            loop {
                if let Some(s) = beside.as_deref_mut() {
                    beside_wake = s.turn(b, &caps, &mut post)?;
                }
                if opts
                    .stop
                    .as_ref()
                    .is_some_and(|s| s.load(Ordering::Relaxed))
                {
                    return Err(PushError::Stopped);
                }
                // Post what the card can take now, in order: stop at the first frame beyond reach or whose
                // ring is full (frames behind it wait, so the posting order stays the launch order).
                let mut ring_full = false;
                // A burst: at most BURST frames posted before the completions are looked at, so the
                // frames in flight on a fast card (the null one) stay few and their buffers, descriptors
                // and completion records stay in cache.
                let mut burst = 0u32;
                let mut burst_cut = false;
                loop {
                    if burst >= BURST {
                        burst_cut = true;
                        break;
                    }
                    if pending.is_none() && !input_done {
                        // The fast lane: the frames of the batch the schedule read ahead, posted
                        // where they are (same frames, same order, same card calls as one at a
                        // time below, without moving each into `pending`). The frame it stops at
                        // (beyond reach, ring full, refused) goes to `pending`, as below.
                        let (frames, offs, block) = sched.ready_lent();
                        let room = frames.len().min((BURST - burst) as usize);
                        let mut k = 0usize;
                        let mut stopped = false;
                        let mut failed = None;
                        while k < room {
                            let h = &frames[k];
                            let launch = h.job.launch_ns;
                            if launch > phc.saturating_add(reach) {
                                phc = phc_now(b);
                                if launch > phc.saturating_add(reach) {
                                    stopped = true;
                                    break;
                                }
                            }
                            let off = offs[k] as usize;
                            let bytes = block.get(off..off + h.job.len as usize).unwrap_or(&[]);
                            match post.post_bytes(b, &caps, &h.job, h.raw.seq, bytes) {
                                Ok(true) => k += 1,
                                Ok(false) => {
                                    ring_full = true;
                                    stopped = true;
                                    break;
                                }
                                Err(e) => {
                                    failed = Some(e);
                                    stopped = true;
                                    break;
                                }
                            }
                        }
                        if room > 0 {
                            burst += k as u32;
                            sched.take_ready(k);
                            if stopped {
                                // The frame it stopped at, given out to `pending` as below.
                                sched
                                    .next_frame_into(&mut pending)
                                    .map_err(|e| PushError::Input(Box::new(e)))?;
                                if let Some(e) = failed {
                                    return Err(e);
                                }
                                if pending.is_none() {
                                    return Err(PushError::Job(
                                        "the schedule lost a frame of its batch: a driver bug"
                                            .into(),
                                    ));
                                }
                                break;
                            }
                            continue;
                        }
                    }
                    if pending.is_none() && !input_done {
                        match sched.next_frame_into(&mut pending) {
                            Ok(()) => {
                                input_done = pending.is_none();
                            }
                            Err(e) => {
                                // A bad row or packet: read no further, but send what was read before
                                // it (the frames held in the window too), then end with the error.
                                input_error.get_or_insert(PushError::Input(Box::new(e)));
                                sched.end_input();
                                continue;
                            }
                        }
                    }
                    let Some(h) = &pending else { break };
                    let launch = h.job.launch_ns;
                    if launch > phc.saturating_add(reach) {
                        phc = phc_now(b);
                        if launch > phc.saturating_add(reach) {
                            break;
                        }
                    }
                    let lent = if h.raw.lent { sched.lent() } else { &[] };
                    if post.post(b, &caps, h, gen, lent)? {
                        burst += 1;
                        if let Some(h) = &mut pending {
                            let data = std::mem::take(&mut h.data);
                            sched.recycle(data);
                        }
                        pending = None;
                    } else {
                        ring_full = true;
                        break;
                    }
                }
                post.doorbell_all(b);
                if input_done && pending.is_none() && post.outstanding() == 0 {
                    return Ok(());
                }
                let mut n = reap.take(b, &mut post, sink)?;
                if n == 0 && irq_wired {
                    // Acknowledge, then look once more: a completion written after the acknowledgement
                    // raises the interrupt again, so the wait below cannot miss it.
                    b.write32(crate::contract::reg::CTRL_IRQ_STATUS, 1);
                    n = reap.take(b, &mut post, sink)?;
                }
                if n > 0 {
                    done += n;
                    progress(done, sched.read());
                    progressed = true;
                    continue;
                }
                if burst_cut {
                    // More to post now: no wait.
                    continue;
                }
                // Nothing to post, nothing came back: find when something is next due, watch for a stall.
                let now = phc_now(b);
                phc = now;
                if progressed {
                    progressed = false;
                    last_progress_phc = now;
                }
                let mut wake = u64::MAX;
                if let Some(due) = post.oldest_due() {
                    let since = last_progress_phc.max(due);
                    let idle_for = now.saturating_sub(since);
                    if due <= now && idle_for > opts.stall_timeout_ns {
                        return Err(PushError::Stalled {
                            outstanding: post.outstanding(),
                            total: sched.read(),
                            stalled_ns: idle_for,
                            phc_ns: now,
                        });
                    }
                    wake = since
                        .saturating_add(opts.stall_timeout_ns)
                        .saturating_add(1);
                    if !irq_wired {
                        wake = wake.min(due.max(now.saturating_add(opts.idle_wait_ns)));
                    }
                } else {
                    last_progress_phc = now;
                }
                if let Some(h) = pending.as_ref().filter(|_| !ring_full) {
                    wake = wake.min(h.job.launch_ns.saturating_sub(reach));
                }
                if wake == u64::MAX {
                    return Err(PushError::Job(format!(
                        "{} frame(s) neither posted nor outstanding: a driver bug",
                        post.outstanding()
                    )));
                }
                let wake = wake.min(beside_wake);
                let timeout = wake.saturating_sub(now).max(opts.idle_wait_ns.max(1));
                b.wait_irq(timeout)?;
            }
        })()
    };
    let loop_wall_ns = loop_start.elapsed().as_nanos() as u64;
    let loop_cpu_ns = cpu_start
        .zip(thread_cpu_ns())
        .map(|(a, b)| b.saturating_sub(a));
    if let Some(i) = irq {
        i.restore(b);
    }
    let queues = post.queues();
    let mut error = if let Err(e) = streamed {
        // Cut short: the card flushes what it holds; take every completion it gives back. Stopped from
        // outside, until each posted frame has one (or CUT_DRAIN_LIMIT_NS of card time passed); after
        // a card, driver or output failure, once after FAILED_JOB_GRACE_NS. (A bad input is no cut:
        // what was read before it is sent, then the job ends with its error.)
        for &q in &queues {
            b.write32(
                caps.q_reg(q, crate::contract::reg::Q_CTRL),
                crate::contract::reg::Q_CTRL_FLUSH,
            );
        }
        let (step, limit) = if matches!(e, PushError::Stopped) {
            (100_000, crate::push::CUT_DRAIN_LIMIT_NS)
        } else {
            (
                crate::push::FAILED_JOB_GRACE_NS,
                crate::push::FAILED_JOB_GRACE_NS,
            )
        };
        let mut waited = 0u64;
        loop {
            while let Ok(n) = reap.take(b, &mut post, sink) {
                if n == 0 {
                    break;
                }
                done += n;
            }
            if post.outstanding() == 0 || waited >= limit {
                break;
            }
            if b.wait_ns(step).is_err() {
                break;
            }
            waited += step;
        }
        Some(e)
    } else {
        for q in &mut post.queues {
            q.disable(b, &caps);
        }
        input_error
    };
    // Frames without a completion: in flight still, the one taken from the schedule, those held.
    let mut unfinished = 0u64;
    let mut report_unfinished = |seq: u64, f: &crate::push::JobFrame| -> Result<(), PushError> {
        unfinished += 1;
        sink.unfinished(seq, f).map_err(PushError::Output)
    };
    let mut sink_err = None;
    for f in post.drain_in_flight() {
        if let Err(e) = report_unfinished(f.seq, &f.job) {
            sink_err.get_or_insert(e);
        }
    }
    let mut rest: Vec<Held> = left;
    rest.extend(pending);
    rest.extend(sched.drain_held());
    for h in rest {
        if let Err(e) = report_unfinished(h.raw.seq, &h.job) {
            sink_err.get_or_insert(e);
        }
    }
    if error.is_none() {
        error = sink_err;
    }
    clock.phc_steps = crate::phc::step_count(b).wrapping_sub(phc_steps0);
    clock.rate_nominal = nominal0 && crate::push::phc_rate_nominal(b, &caps);
    let end = RunEnd {
        start_phc_ns,
        end_phc_ns: phc_now(b),
        doorbells: post.doorbells(),
        loop_wall_ns,
        loop_cpu_ns,
        clock,
        posted: post.posted(),
        completed: done,
        frames: done + unfinished,
        unfinished,
        queues: queues.clone(),
    };
    // A job cut short has flushed its queues and waited for them already.
    crate::push::leave_quiet(b, &caps, &queues, false);
    Ok(Ran { end, error })
}

/// ns this thread has run on a CPU (Linux: `/proc/thread-self/schedstat`, first field).
fn thread_cpu_ns() -> Option<u64> {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}
