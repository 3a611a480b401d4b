//! Stage 3, post: the card's rings. One TX ring per queue the job uses (created when its first frame
//! comes, buffers as large as the card's longest frame, or as a [`QueuePlan`] says), doorbells
//! batched per [`crate::push::PushOptions::batch`], and the table of frames in flight that stage 4
//! ([`super::reap`]) matches completions against. Memory: the rings and that table, whatever the
//! job's length.

use std::collections::VecDeque;

use crate::contract::Completion;
use crate::device::{Backend, Caps};
use crate::push::{FrameSource, JobFrame, PushError};
use crate::regs::DescFlags;
use crate::ring::{CplRing, QueueConfig, RingError, TxQueue};

use super::schedule::Held;

/// Bytes of a queue's small buffers (see [`TxQueue::create_with_small`]): frames up to this long go
/// to a pool of their own, the rest to buffers as large as the longest frame.
pub const SMALL_BUF: usize = 256;

/// Posts between two trims of the FIFO of frames in flight ([`Post::oldest_due`]).
const TRIM: u64 = 64;

/// Queues to create before the first post, each with its buffer size in bytes (a job known whole:
/// buffers as large as its longest frame on that queue).
pub type QueuePlan = Vec<(u16, usize)>;

/// The card's longest frame, bytes (9000 when it does not say).
fn longest(caps: &Caps) -> usize {
    if caps.max_frame_len == 0 {
        9000
    } else {
        caps.max_frame_len as usize
    }
}

/// A TX queue with its table of frames in flight (by cookie), as it passes between `Post`s.
pub type OwnedQueue = (TxQueue, Vec<Option<InFlight>>);

/// A posted frame waiting for its completion.
#[derive(Debug, Clone, Copy)]
pub struct InFlight {
    /// The job frame.
    pub job: JobFrame,
    /// Its input position.
    pub seq: u64,
    /// Post number (for the oldest-outstanding FIFO).
    post_no: u64,
}

/// Stage 3: the rings and what is in flight on them. With `--threads` each posting thread has a
/// `Post` of its own queues and no completion ring ([`Post::shard`]); the loop's thread keeps the
/// completion ring.
pub struct Post {
    /// TX queues in creation order.
    pub queues: Vec<TxQueue>,
    /// The completion ring (None: a posting thread's share, see [`super::shards`]).
    pub cpl: Option<CplRing>,
    /// Queue number -> position in `rings.queues`.
    pub qpos: Vec<usize>,
    /// Per queue position, per cookie: the frame in flight.
    pub in_flight: Vec<Vec<Option<InFlight>>>,
    /// Posted frames in posting (launch) order: (post number, launch, queue position, cookie).
    fifo: VecDeque<(u64, u64, usize, u32)>,
    posts: u64,
    qcfg: QueueConfig,
    buf: Vec<u8>,
    /// A queue something beside the job uses (PTP, [`super::Beside`]): a frame for it is refused.
    pub reserved: Option<u16>,
}

impl Post {
    /// The completion ring of 2^`cpl_log2` entries and the queues of `plan`.
    pub fn new(
        b: &mut dyn Backend,
        caps: &Caps,
        cpl_log2: u32,
        qcfg: QueueConfig,
        plan: &QueuePlan,
    ) -> Result<Post, PushError> {
        let cpl = CplRing::create(b, caps, cpl_log2)?;
        let mut p = Post {
            queues: Vec::new(),
            cpl: Some(cpl),
            qpos: vec![usize::MAX; caps.num_queues as usize],
            in_flight: Vec::new(),
            fifo: VecDeque::new(),
            posts: 0,
            qcfg,
            buf: Vec::with_capacity(9600),
            reserved: None,
        };
        for &(q, size) in plan {
            p.create(b, caps, q, size)?;
        }
        Ok(p)
    }

    fn create(
        &mut self,
        b: &mut dyn Backend,
        caps: &Caps,
        q: u16,
        buf_size: usize,
    ) -> Result<usize, PushError> {
        let (tq, table) = self.make_queue(b, caps, q, buf_size)?;
        Ok(self.adopt(tq, table))
    }

    /// Make queue `q` (buffers of `buf_size` bytes and a small-buffer pool) and its empty table of
    /// frames in flight, without taking it over.
    pub fn make_queue(
        &self,
        b: &mut dyn Backend,
        caps: &Caps,
        q: u16,
        buf_size: usize,
    ) -> Result<OwnedQueue, PushError> {
        let cfg = QueueConfig {
            buf_size: buf_size.max(64).div_ceil(64) * 64,
            ..self.qcfg.clone()
        };
        let tq = TxQueue::create_with_small(b, caps, q, &cfg, SMALL_BUF)?;
        let n = tq.size() as usize;
        Ok((tq, vec![None; 2 * n]))
    }

    /// Take over queue `tq` with its table of frames in flight (by cookie). Returns its position.
    pub fn adopt(&mut self, tq: TxQueue, table: Vec<Option<InFlight>>) -> usize {
        let pos = self.queues.len();
        self.qpos[tq.queue() as usize] = pos;
        self.queues.push(tq);
        self.in_flight.push(table);
        pos
    }

    /// A `Post` with no queue and no completion ring, for a posting thread (`--threads`): it gets
    /// its queues with [`Post::adopt`].
    pub fn shard(&self) -> Post {
        Post {
            queues: Vec::new(),
            cpl: None,
            qpos: vec![usize::MAX; self.qpos.len()],
            in_flight: Vec::new(),
            fifo: VecDeque::new(),
            posts: 0,
            qcfg: self.qcfg.clone(),
            buf: Vec::new(),
            reserved: self.reserved,
        }
    }

    /// Give up every queue with its table of frames in flight (to a posting thread, or back to
    /// the loop's `Post` at the end); frames posted counted here so far go with `posts`.
    pub fn release(&mut self) -> (Vec<OwnedQueue>, u64) {
        for q in &self.queues {
            self.qpos[q.queue() as usize] = usize::MAX;
        }
        self.fifo.clear();
        let v = self
            .queues
            .drain(..)
            .zip(self.in_flight.drain(..))
            .collect();
        (v, std::mem::take(&mut self.posts))
    }

    /// Count `n` frames posted elsewhere (a posting thread's, its queues given back).
    pub fn add_posted(&mut self, n: u64) {
        self.posts += n;
    }

    /// Make queue `q` for frames up to the card's longest (a queue first seen mid-job), not taken
    /// over (see [`Post::make_queue`]).
    pub fn make_longest(
        &self,
        b: &mut dyn Backend,
        caps: &Caps,
        q: u16,
    ) -> Result<OwnedQueue, PushError> {
        self.make_queue(b, caps, q, longest(caps))
    }

    /// Position of queue `q`, if this `Post` has it.
    pub fn position(&self, q: u16) -> Option<usize> {
        self.qpos
            .get(q as usize)
            .copied()
            .filter(|&p| p != usize::MAX)
    }

    /// Take the completion ring's records (at most `max`) into `out`; each buffer goes back to its
    /// queue. The queues must be this `Post`'s (one thread: all of them).
    pub fn poll(
        &mut self,
        b: &mut dyn Backend,
        out: &mut Vec<Completion>,
        max: usize,
    ) -> Result<usize, PushError> {
        let Some(cpl) = &mut self.cpl else {
            return Ok(0);
        };
        let start = out.len();
        let n = cpl.poll(b, out, max);
        for c in &out[start..] {
            match self.qpos.get(c.queue as usize) {
                Some(&p) if p != usize::MAX => self.queues[p].complete(c)?,
                _ => {
                    return Err(PushError::Ring(RingError::BadCompletion {
                        queue: c.queue,
                        cookie: c.cookie,
                        record: *c,
                    }))
                }
            }
        }
        Ok(n)
    }

    /// The frame a completion is for, taken from the table (its buffer was given back already).
    #[inline]
    pub fn take_in_flight(&mut self, c: &Completion) -> Result<(usize, InFlight), PushError> {
        let qp = self
            .qpos
            .get(c.queue as usize)
            .copied()
            .unwrap_or(usize::MAX);
        let f = self
            .in_flight
            .get_mut(qp)
            .and_then(|s| s.get_mut(c.cookie as usize))
            .and_then(Option::take)
            .ok_or(PushError::Unmatched {
                queue: c.queue,
                cookie: c.cookie,
            })?;
        Ok((qp, f))
    }

    /// [`Post::take_in_flight`], None when no frame is in flight under that queue and cookie.
    #[inline(always)]
    pub fn take_in_flight_opt(&mut self, c: &Completion) -> Option<(usize, InFlight)> {
        let qp = *self.qpos.get(c.queue as usize)?;
        let f = self
            .in_flight
            .get_mut(qp)?
            .get_mut(c.cookie as usize)?
            .take()?;
        Some((qp, f))
    }

    /// Queue numbers in use.
    pub fn queues(&self) -> Vec<u16> {
        self.queues.iter().map(|q| q.queue()).collect()
    }

    /// Post `h` (bytes from `h.data`, from `lent` when the frame is lent ([`super::source::Raw::lent`]:
    /// still in the input's buffer, copied from there straight into the card's memory), or
    /// generated by `gen`). Returns false when its ring (or its buffers) are full: poll
    /// completions, then retry.
    pub fn post(
        &mut self,
        b: &mut dyn Backend,
        caps: &Caps,
        h: &Held,
        gen: &dyn FrameSource,
        lent: &[u8],
    ) -> Result<bool, PushError> {
        let bytes: &[u8] = if h.raw.lent {
            lent
        } else if h.raw.has_bytes {
            &h.data
        } else {
            gen.frame(&h.job, &mut self.buf);
            // (moved out and back: `post_bytes` takes `self` whole)
            let buf = std::mem::take(&mut self.buf);
            let r = self.post_bytes(b, caps, &h.job, h.raw.seq, &buf);
            self.buf = buf;
            return r;
        };
        self.post_bytes(b, caps, &h.job, h.raw.seq, bytes)
    }

    /// Post job frame `f` (input position `seq`) of bytes `bytes`; as [`Post::post`].
    #[inline]
    pub fn post_bytes(
        &mut self,
        b: &mut dyn Backend,
        caps: &Caps,
        f: &JobFrame,
        seq: u64,
        bytes: &[u8],
    ) -> Result<bool, PushError> {
        if self.reserved == Some(f.queue) {
            return Err(PushError::Job(format!(
                "frame {} is for queue {}, which the clock beside the job (--ptp) uses: put the \
                 frame on another queue or give the clock another one (--ptp ...,queue=N)",
                f.index, f.queue
            )));
        }
        let qp = match self.qpos.get(f.queue as usize) {
            Some(&p) if p != usize::MAX => p,
            Some(_) => self.create(b, caps, f.queue, longest(caps))?,
            None => {
                return Err(PushError::Job(format!(
                    "frame {} is for queue {}, but the card has {} queue(s)",
                    f.index, f.queue, caps.num_queues
                )))
            }
        };
        if bytes.len() != f.len as usize {
            return Err(PushError::Job(format!(
                "frame {} has {} bytes at hand where {} were read: a driver bug",
                f.index,
                bytes.len(),
                f.len
            )));
        }
        match self.queues[qp].post(b, bytes, f.launch_ns, DescFlags::empty())? {
            Ok(cookie) => {
                let slot = &mut self.in_flight[qp];
                if cookie as usize >= slot.len() {
                    slot.resize(cookie as usize + 1, None);
                }
                slot[cookie as usize] = Some(InFlight {
                    job: *f,
                    seq,
                    post_no: self.posts,
                });
                self.fifo.push_back((self.posts, f.launch_ns, qp, cookie));
                self.posts += 1;
                // Drop completed frames from the front every TRIM posts, so the FIFO holds no more
                // than what is in flight behind the oldest outstanding frame (and TRIM), however
                // long the job.
                if self.posts.is_multiple_of(TRIM) {
                    self.oldest_due();
                }
                Ok(true)
            }
            Err(_full) => Ok(false),
        }
    }

    /// Ring every queue's doorbell.
    pub fn doorbell_all(&mut self, b: &mut dyn Backend) {
        for q in &mut self.queues {
            q.doorbell(b);
        }
    }

    /// Launch time of the earliest posted frame still without completion.
    pub fn oldest_due(&mut self) -> Option<u64> {
        while let Some(&(no, launch, qp, cookie)) = self.fifo.front() {
            match self.in_flight[qp].get(cookie as usize) {
                Some(Some(f)) if f.post_no == no => return Some(launch),
                _ => {
                    self.fifo.pop_front();
                }
            }
        }
        None
    }

    /// Frames posted whose completion has not come back.
    pub fn outstanding(&self) -> u64 {
        self.queues.iter().map(|q| u64::from(q.outstanding())).sum()
    }

    /// Frames posted so far.
    pub fn posted(&self) -> u64 {
        self.posts
    }

    /// Doorbells written so far.
    pub fn doorbells(&self) -> u64 {
        self.queues.iter().map(|q| q.doorbells()).sum()
    }

    /// Every frame still in flight, emptying the table (a job cut short: they have no completion).
    pub fn drain_in_flight(&mut self) -> Vec<InFlight> {
        let mut v: Vec<InFlight> = self
            .in_flight
            .iter_mut()
            .flat_map(|s| s.iter_mut().filter_map(Option::take))
            .collect();
        v.sort_by_key(|f| f.seq);
        self.fifo.clear();
        v
    }
}
