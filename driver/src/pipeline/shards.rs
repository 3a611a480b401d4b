//! Stage 3 with `--threads N`: the TX queues shared out over N posting threads.
//!
//! Queue `q` belongs to shard `q % N`, a [`Post`] of its own (rings, buffers, frames in flight)
//! behind a lock, with an inbox of frames to post. The loop's thread reads and schedules the input
//! as with one thread, makes each frame's bytes (a trace row's), hands the frames to their shards'
//! inboxes in launch order, takes the completion ring (there is one for all queues: the card's
//! contract) and gives each completion to its shard and its result to the sinks, in the ring's
//! order. A shard's thread posts its inbox in order while its rings have room and rings their
//! doorbells, through its own handle on the card ([`crate::device::Backend::tx_port`]: the null
//! card's). So each queue gets its frames in launch order, as with one thread, and every descriptor
//! still gets its one completion. A backend without such handles (the simulated card, whose model
//! runs on one thread) gets the same shards posted in turns by the loop's thread.
//!
//! When the loop ends, each shard's queues and frames in flight go back to the loop's [`Post`] (the
//! end of [`super::run`] flushes and reports them as with one thread), and frames handed to a shard
//! but never posted are returned for the report as unfinished.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::Duration;

use crate::device::{Backend, Caps};
use crate::push::{phc_now, FrameSource, JobFrame, PushError, PushOptions};
use crate::ring::RingError;

use super::post::Post;
use super::reap;
use super::schedule::{Held, Schedule};
use super::sink::Sink;
use super::BURST;

/// One posting thread's share.
struct Shard {
    post: Post,
    /// Frames handed over, in launch order, not posted yet.
    inbox: VecDeque<Held>,
    /// Buffers of frames posted, for the schedule to read into again.
    recycled: Vec<Vec<u8>>,
    /// Why the thread stopped.
    error: Option<PushError>,
    /// The thread waits to be told (a notification costs a system call: only then is one sent).
    asleep: bool,
}

/// Frames given to a shard carry their bytes: nothing is generated there.
struct HasBytes;

impl FrameSource for HasBytes {
    fn frame(&self, _f: &JobFrame, out: &mut Vec<u8>) {
        out.clear();
    }
}

impl Shard {
    /// Post the inbox in order while the rings have room, then ring the doorbells. Returns how many.
    fn post_inbox(&mut self, b: &mut dyn Backend, caps: &Caps) -> Result<usize, PushError> {
        let mut n = 0;
        while let Some(h) = self.inbox.front() {
            if !self.post.post(b, caps, h, &HasBytes, &[])? {
                break;
            }
            if let Some(h) = self.inbox.pop_front() {
                self.recycled.push(h.data);
            }
            n += 1;
        }
        self.post.doorbell_all(b);
        Ok(n)
    }
}

struct Slot {
    shard: Mutex<Shard>,
    wake: Condvar,
}

fn lock(s: &Slot) -> MutexGuard<'_, Shard> {
    // A posting thread that panicked leaves its shard as it was: still consistent to report from.
    s.shard.lock().unwrap_or_else(|e| e.into_inner())
}

/// A posting thread: post what comes, until told to quit.
fn worker(slot: &Slot, port: &mut dyn Backend, caps: &Caps, quit: &AtomicBool) {
    let mut g = lock(slot);
    loop {
        if quit.load(Ordering::Acquire) || g.error.is_some() {
            return;
        }
        match g.post_inbox(port, caps) {
            Err(e) => {
                g.error = Some(e);
                return;
            }
            Ok(0) => {
                // Nothing to post, or the rings are full: wait to be told (frames came, or
                // completions made room), or look again after a while.
                g.asleep = true;
                g = match slot.wake.wait_timeout(g, Duration::from_micros(200)) {
                    Ok((g, _)) => g,
                    Err(e) => e.into_inner().0,
                };
                g.asleep = false;
            }
            Ok(_) => {
                // Let the loop's thread in (it hands frames over and completes under this lock).
                drop(g);
                std::thread::yield_now();
                g = lock(slot);
            }
        }
    }
}

/// What the loop's thread shares with [`stream`]: the state of [`super::run`]'s loop.
pub(super) struct Ctx<'r, 's> {
    pub b: &'r mut dyn Backend,
    pub caps: &'r Caps,
    pub sched: &'r mut Schedule<'s>,
    pub gen: &'r dyn FrameSource,
    pub post: &'r mut Post,
    pub sink: &'r mut dyn Sink,
    pub opts: &'r PushOptions,
    pub reach: u64,
    pub irq_wired: bool,
    pub ring_log2: u32,
    pub progress: &'r mut dyn FnMut(u64, u64),
    pub pending: &'r mut Option<Held>,
    pub input_done: &'r mut bool,
    pub input_error: &'r mut Option<PushError>,
    pub done: &'r mut u64,
}

/// The loop of [`super::run`] with `opts.threads` posting shards. On return, whatever its end,
/// every shard's queues and frames in flight are back in `cx.post`, and `left` holds the frames
/// handed to a shard and never posted.
pub(super) fn stream(cx: Ctx<'_, '_>, left: &mut Vec<Held>) -> Result<(), PushError> {
    let n = cx.opts.threads.max(1);
    let slots: Vec<Slot> = (0..n)
        .map(|_| Slot {
            shard: Mutex::new(Shard {
                post: cx.post.shard(),
                inbox: VecDeque::new(),
                recycled: Vec::new(),
                error: None,
                asleep: false,
            }),
            wake: Condvar::new(),
        })
        .collect();
    // Queues made before the loop (a job known whole) go to their shards.
    let (made, _) = cx.post.release();
    let mut has = vec![false; cx.caps.num_queues as usize];
    for (tq, table) in made {
        let q = tq.queue();
        has[q as usize] = true;
        lock(&slots[q as usize % n]).post.adopt(tq, table);
    }
    let mut ports: Vec<Box<dyn Backend + Send>> = Vec::new();
    for _ in 0..n {
        match cx.b.tx_port() {
            Some(p) => ports.push(p),
            None => break,
        }
    }
    let threaded = ports.len() == n;
    if !threaded {
        ports.clear();
    }
    let quit = AtomicBool::new(false);
    let caps = cx.caps;
    let b = &mut *cx.b;
    let post = &mut *cx.post;
    let sched = &mut *cx.sched;
    let res = std::thread::scope(|s| {
        for (port, slot) in ports.iter_mut().zip(&slots) {
            let quit = &quit;
            std::thread::Builder::new()
                .name("tsnic-post".into())
                .spawn_scoped(s, move || worker(slot, port.as_mut(), caps, quit))
                .map_err(|e| PushError::Job(format!("cannot start a posting thread: {e}")))?;
        }
        let r = main_loop(
            &slots,
            threaded,
            &mut has,
            Ctx {
                b: &mut *b,
                caps,
                sched: &mut *sched,
                gen: cx.gen,
                post: &mut *post,
                sink: cx.sink,
                opts: cx.opts,
                reach: cx.reach,
                irq_wired: cx.irq_wired,
                ring_log2: cx.ring_log2,
                progress: cx.progress,
                pending: cx.pending,
                input_done: cx.input_done,
                input_error: cx.input_error,
                done: cx.done,
            },
        );
        quit.store(true, Ordering::Release);
        for slot in &slots {
            slot.wake.notify_all();
        }
        r
    });
    drop(ports);
    let mut res = res;
    for slot in slots {
        let mut sh = slot.shard.into_inner().unwrap_or_else(|e| e.into_inner());
        let (queues, posted) = sh.post.release();
        for (tq, table) in queues {
            post.adopt(tq, table);
        }
        post.add_posted(posted);
        left.extend(sh.inbox.drain(..));
        for d in sh.recycled.drain(..) {
            sched.recycle(d);
        }
        if let (Ok(()), Some(e)) = (&res, sh.error.take()) {
            res = Err(e);
        }
    }
    left.sort_by_key(|h| h.raw.seq);
    res
}

fn main_loop(
    slots: &[Slot],
    threaded: bool,
    has: &mut [bool],
    cx: Ctx<'_, '_>,
) -> Result<(), PushError> {
    let Ctx {
        b,
        caps,
        sched,
        gen,
        post,
        sink,
        opts,
        reach,
        irq_wired,
        ring_log2,
        progress,
        pending,
        input_done,
        input_error,
        done,
    } = cx;
    let n = slots.len();
    // Frames waiting in a shard's inbox at most: a ring-full.
    let cap = (1usize << ring_log2).max(BURST as usize);
    let mut backlog = vec![0usize; n];
    // Frames handed over and not completed at most, with posting threads: a card that does not
    // schedule (the null one) completes each thread's frames as they come, so one thread's queues
    // may run ahead of another's; this bounds how far, well inside the sinks' departure window
    // ([`super::sink::DEPART_WINDOW`]), so a --pcap capture is still in departure order.
    let ahead = (super::sink::DEPART_WINDOW / 4) as u64;
    let mut handed = 0u64;
    let mut batches: Vec<Vec<Held>> = (0..n).map(|_| Vec::new()).collect();
    let mut cpls = Vec::with_capacity(1024);
    let mut bytes = Vec::new();
    // Reused each round (no allocation in the loop): every shard's lock, and who to wake.
    let mut gs: Vec<MutexGuard<'_, Shard>> = Vec::with_capacity(n);
    let mut tell = vec![false; n];
    let mut phc = phc_now(b);
    let mut last_progress_phc = phc;
    let mut progressed = false;
    loop {
        if opts
            .stop
            .as_ref()
            .is_some_and(|s| s.load(Ordering::Relaxed))
        {
            return Err(PushError::Stopped);
        }
        // Take up to a burst of frames from the schedule, in order, for their shards.
        let mut took = 0u32;
        let mut blocked = false;
        while took < BURST {
            if pending.is_none() && !*input_done {
                match sched.next_frame() {
                    Ok(p) => {
                        *pending = p;
                        *input_done = pending.is_none();
                    }
                    Err(e) => {
                        input_error.get_or_insert(PushError::Input(Box::new(e)));
                        sched.end_input();
                        continue;
                    }
                }
            }
            let Some(h) = pending.as_mut() else { break };
            let launch = h.job.launch_ns;
            if launch > phc.saturating_add(reach) {
                phc = phc_now(b);
                if launch > phc.saturating_add(reach) {
                    break;
                }
            }
            let q = h.job.queue;
            let k = q as usize % n;
            if backlog[k] + batches[k].len() >= cap
                || (threaded && handed.saturating_sub(*done) >= ahead)
            {
                blocked = true;
                break;
            }
            if !has.get(q as usize).copied().unwrap_or(false) {
                if u32::from(q) >= caps.num_queues {
                    return Err(PushError::Job(format!(
                        "frame {} is for queue {q}, but the card has {} queue(s)",
                        h.job.index, caps.num_queues
                    )));
                }
                let (tq, table) = post.make_longest(b, caps, q)?;
                lock(&slots[k]).post.adopt(tq, table);
                has[q as usize] = true;
            }
            if !h.raw.has_bytes {
                gen.frame(&h.job, &mut h.data);
                h.raw.has_bytes = true;
            }
            if let Some(h) = pending.take() {
                batches[k].push(h);
            }
            took += 1;
            handed += 1;
        }
        // Hand them over (posted at once in turns when there are no posting threads).
        for (k, slot) in slots.iter().enumerate() {
            if batches[k].is_empty() && (threaded || backlog[k] == 0) {
                continue;
            }
            let mut g = lock(slot);
            g.inbox.extend(batches[k].drain(..));
            if !threaded {
                g.post_inbox(b, caps)?;
            }
            backlog[k] = g.inbox.len();
            for d in g.recycled.drain(..) {
                sched.recycle(d);
            }
            let tell = g.asleep;
            drop(g);
            if tell {
                slot.wake.notify_one();
            }
        }
        // Completions, in the ring's order, each to its shard and its result to the sinks.
        cpls.clear();
        let ring = post
            .cpl
            .as_mut()
            .ok_or_else(|| PushError::Job("no completion ring: a driver bug".into()))?;
        let mut got = ring.poll(b, &mut cpls, 1024);
        if got == 0 && irq_wired {
            // As with one thread: acknowledge, then look once more.
            b.write32(crate::contract::reg::CTRL_IRQ_STATUS, 1);
            got = ring.poll(b, &mut cpls, 1024);
        }
        if got > 0 {
            let want_bytes = sink.wants_bytes();
            gs.extend(slots.iter().map(lock));
            for c in &cpls {
                let g = &mut gs[c.queue as usize % n];
                let p =
                    g.post
                        .position(c.queue)
                        .ok_or(PushError::Ring(RingError::BadCompletion {
                            queue: c.queue,
                            cookie: c.cookie,
                            record: *c,
                        }))?;
                g.post.queues[p].complete(c)?;
                let (qp, f) = g.post.take_in_flight(c)?;
                let r = reap::result(c, &f)?;
                bytes.clear();
                if want_bytes && r.on_wire() {
                    // Before the lock is let go: nothing is posted into the buffer until then.
                    g.post.queues[qp].read_buffer(b, c.cookie, &mut bytes, r.len as usize);
                }
                sink.completed(f.seq, &r, &bytes)
                    .map_err(PushError::Output)?;
            }
            for (k, g) in gs.iter_mut().enumerate() {
                if !threaded && !g.inbox.is_empty() {
                    g.post_inbox(b, caps)?;
                }
                backlog[k] = g.inbox.len();
                for d in g.recycled.drain(..) {
                    sched.recycle(d);
                }
                // Room was made: a thread waiting on full rings may go on.
                tell[k] = g.asleep && !g.inbox.is_empty();
            }
            gs.clear();
            for (slot, _) in slots.iter().zip(&tell).filter(|(_, &t)| t) {
                slot.wake.notify_one();
            }
            *done += got as u64;
            progress(*done, sched.read());
            progressed = true;
            continue;
        }
        for slot in slots {
            if let Some(e) = lock(slot).error.take() {
                return Err(e);
            }
        }
        if *input_done && pending.is_none() {
            let idle = slots.iter().all(|s| {
                let g = lock(s);
                g.inbox.is_empty() && g.post.outstanding() == 0
            });
            if idle {
                return Ok(());
            }
        }
        if took > 0 && !blocked {
            continue;
        }
        // Nothing came back: when is something next due, and is the card stalled?
        let now = phc_now(b);
        phc = now;
        if progressed {
            progressed = false;
            last_progress_phc = now;
        }
        let (mut oldest, mut waiting) = (None::<u64>, 0usize);
        for s in slots {
            let mut g = lock(s);
            waiting += g.inbox.len();
            if let Some(d) = g.post.oldest_due() {
                oldest = Some(oldest.map_or(d, |o| o.min(d)));
            }
        }
        let mut wake = u64::MAX;
        if let Some(due) = oldest {
            let since = last_progress_phc.max(due);
            let idle_for = now.saturating_sub(since);
            if due <= now && idle_for > opts.stall_timeout_ns {
                let outstanding = slots.iter().map(|s| lock(s).post.outstanding()).sum();
                return Err(PushError::Stalled {
                    outstanding,
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
        if waiting > 0 && now.saturating_sub(last_progress_phc) > opts.stall_timeout_ns {
            // Frames handed over that no thread posts, and nothing completes: a stalled card (full
            // rings) or a posting thread that stopped.
            let outstanding = slots.iter().map(|s| lock(s).post.outstanding()).sum();
            return Err(PushError::Stalled {
                outstanding,
                total: sched.read(),
                stalled_ns: now.saturating_sub(last_progress_phc),
                phc_ns: now,
            });
        }
        if waiting > 0 {
            // Frames in an inbox: a posting thread is on them (or their ring is full and a
            // completion will make room): look again soon.
            wake = wake.min(now.saturating_add(opts.idle_wait_ns.max(1000)));
        }
        if let Some(h) = pending.as_ref().filter(|_| !blocked) {
            wake = wake.min(h.job.launch_ns.saturating_sub(reach));
        }
        if wake == u64::MAX {
            return Err(PushError::Job(
                "frames neither posted nor outstanding with --threads: a driver bug".into(),
            ));
        }
        let timeout = wake.saturating_sub(now).max(opts.idle_wait_ns.max(1));
        b.wait_irq(timeout)?;
    }
}
