//! TX rings (one per queue) and the completion ring.
//!
//! - [`TxQueue`]: a descriptor ring plus a pool of frame buffers inside the queue's DMA window.
//!   [`TxQueue::post`] copies a frame into a free buffer, writes its descriptor and counts it pending;
//!   the doorbell (`Q_PROD`) is written once per `batch` descriptors or on [`TxQueue::doorbell`]
//!   (doorbell batching). A descriptor slot is reusable once the card has fetched it (`Q_CONS`, read only
//!   when the ring looks full); a **buffer** is reusable only after its completion, whatever order the
//!   completions come in (frames leave in launch-time order, not posting order).
//! - [`CplRing`]: one completion ring for all queues. [`CplRing::poll`] reads a record's last dword first,
//!   takes it only when its phase bit equals the expected phase (which flips at every wrap), then reads
//!   the rest after an acquire fence, and writes `CPL_CONS` once per poll.
//! - [`Rings`]: the queues and the completion ring together; `poll` hands each completion back to its
//!   queue, which frees the buffer.

use thiserror::Error;

use crate::contract::{
    reg, Completion, HorizonPolicy, LatePolicy, TxDescriptor, CPL_SIZE, DESC_SIZE,
};
use crate::device::{Backend, Caps, DeviceError, DmaRegion};
use crate::regs::{CplFlags, DescFlags, QCtrl};

/// Largest ring size the driver uses: the 16-bit Q_PROD/Q_CONS indices cannot tell a full 2^16 ring
/// from an empty one.
pub const MAX_RING_LOG2: u32 = 15;

/// Ring errors.
#[derive(Debug, Error)]
pub enum RingError {
    /// A backend error.
    #[error(transparent)]
    Device(#[from] DeviceError),
    /// The frame does not fit a buffer or the card's limit.
    #[error("frame of {len} bytes does not fit: the largest this queue takes is {max} bytes")]
    FrameTooLong {
        /// Length asked.
        len: usize,
        /// Largest accepted.
        max: usize,
    },
    /// A bad configuration.
    #[error("bad ring configuration: {0}")]
    Config(String),
    /// The card wrote a completion the driver cannot match to a posted descriptor.
    #[error("completion for queue {queue} cookie {cookie} matches no descriptor in flight: the card or the driver has a bug (record: {record:?})")]
    BadCompletion {
        /// Queue in the record.
        queue: u16,
        /// Cookie in the record.
        cookie: u32,
        /// The record.
        record: Completion,
    },
}

/// Why a post did not happen (not an error: retry after polling completions).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Full {
    /// Every descriptor slot is fetched-pending by the card.
    Ring,
    /// Every buffer waits for its completion.
    Buffers,
}

/// Configuration of one TX queue.
#[derive(Debug, Clone)]
pub struct QueueConfig {
    /// log2 of the descriptor count.
    pub ring_log2: u32,
    /// Number of frame buffers (0: as many as descriptors).
    pub buffers: u32,
    /// Bytes per buffer (0: the card's max frame length rounded up to 64).
    pub buf_size: usize,
    /// Doorbell every this many descriptors (1: every post).
    pub batch: u32,
    /// Late policy.
    pub late: LatePolicy,
    /// Horizon policy.
    pub horizon: HorizonPolicy,
    /// Calendar quota (0: card default).
    pub quota: u32,
}

impl Default for QueueConfig {
    fn default() -> Self {
        Self {
            ring_log2: 10,
            buffers: 0,
            buf_size: 0,
            batch: 32,
            late: LatePolicy::Send,
            horizon: HorizonPolicy::Drop,
            quota: 0,
        }
    }
}

/// One TX queue: descriptor ring, buffer pool, doorbell batching.
#[derive(Debug)]
pub struct TxQueue {
    queue: u16,
    mask: u32,
    size: u32,
    desc: DmaRegion,
    bufs: DmaRegion,
    buf_size: usize,
    max_len: usize,
    /// Descriptors written (free running, low 16 bits go to Q_PROD).
    prod: u32,
    /// Last value written to Q_PROD (free running).
    rung: u32,
    /// Card's consumer index as last read (free running, reconstructed from 16 bits).
    cons: u32,
    batch: u32,
    free: Vec<u32>,
    /// Small buffers (cookies `nbufs..nbufs + small_free capacity`), `small_size` bytes each, after
    /// the large ones in the window: a short frame goes to one of these, so the short frames in flight
    /// stay on a few pages (0: none).
    small_size: usize,
    nbufs: u32,
    small_free: Vec<u32>,
    in_flight: Vec<bool>,
    outstanding: u32,
    prod_reg: usize,
    cons_reg: usize,
    doorbells: u64,
    /// Descriptors written since the last flush (at most [`STAGE`], in ring order, not wrapping),
    /// to go to the ring in one DMA write before the doorbell that announces them.
    stage: Vec<u8>,
}

/// Descriptors a queue gathers before it writes them to its ring in one DMA write.
pub const STAGE: usize = 64;

impl TxQueue {
    /// Allocate the ring and buffers, program queue `q`'s registers and enable it.
    pub fn create(
        b: &mut dyn Backend,
        caps: &Caps,
        q: u16,
        cfg: &QueueConfig,
    ) -> Result<TxQueue, RingError> {
        Self::create_with_small(b, caps, q, cfg, 0)
    }

    /// [`TxQueue::create`] with, when `small_size` > 0, a second pool of as many buffers of
    /// `small_size` bytes (a multiple of 64) for frames that fit one: a queue sized for the longest
    /// frame then keeps its short frames close together (one page holds 16 of 256 bytes, not one of
    /// 9 kB), which keeps a stream of short frames in the caches and the TLB.
    pub fn create_with_small(
        b: &mut dyn Backend,
        caps: &Caps,
        q: u16,
        cfg: &QueueConfig,
        small_size: usize,
    ) -> Result<TxQueue, RingError> {
        if q as u32 >= caps.num_queues {
            return Err(RingError::Config(format!(
                "queue {q} does not exist: the card has {}",
                caps.num_queues
            )));
        }
        let max_log2 = caps.ring_log2_max.min(MAX_RING_LOG2);
        if cfg.ring_log2 == 0 || cfg.ring_log2 > max_log2 {
            return Err(RingError::Config(format!(
                "ring size 2^{} outside 2^1..=2^{max_log2}",
                cfg.ring_log2
            )));
        }
        if cfg.batch == 0 {
            return Err(RingError::Config(
                "doorbell batch must be at least 1".into(),
            ));
        }
        let size = 1u32 << cfg.ring_log2;
        let nbufs = if cfg.buffers == 0 { size } else { cfg.buffers };
        let buf_size = if cfg.buf_size == 0 {
            (caps.max_frame_len as usize).max(64).div_ceil(64) * 64
        } else {
            cfg.buf_size
        };
        let max_len = buf_size.min(caps.max_frame_len as usize);
        let small_size = if small_size > 0 && small_size < buf_size {
            small_size.div_ceil(64) * 64
        } else {
            0
        };
        let nsmall = if small_size > 0 { nbufs } else { 0 };
        let desc = b.dma_alloc(size as usize * DESC_SIZE)?;
        let bufs = b.dma_alloc(nbufs as usize * buf_size + nsmall as usize * small_size)?;

        let r = |x| caps.q_reg(q, x);
        b.write32(r(reg::Q_CTRL), 0);
        b.write32(r(reg::Q_BASE_LO), desc.iova() as u32);
        b.write32(r(reg::Q_BASE_HI), (desc.iova() >> 32) as u32);
        b.write32(r(reg::Q_SIZE_LOG2), cfg.ring_log2);
        b.write32(r(reg::Q_WIN_BASE_LO), bufs.iova() as u32);
        b.write32(r(reg::Q_WIN_BASE_HI), (bufs.iova() >> 32) as u32);
        b.write32(r(reg::Q_WIN_LEN_LO), bufs.len() as u32);
        b.write32(r(reg::Q_WIN_LEN_HI), (bufs.len() as u64 >> 32) as u32);
        b.write32(r(reg::Q_QUOTA), cfg.quota);
        let cons = b.read32(r(reg::Q_CONS)) & 0xffff;
        let mut ctrl = QCtrl::ENABLE;
        if cfg.late == LatePolicy::Drop {
            ctrl |= QCtrl::LATE_DROP;
        }
        if cfg.horizon == HorizonPolicy::Cap {
            ctrl |= QCtrl::HORIZON_CAP;
        }
        b.write32(r(reg::Q_PROD), cons);
        b.write32(r(reg::Q_CTRL), ctrl.bits());
        Ok(TxQueue {
            queue: q,
            mask: size - 1,
            size,
            desc,
            bufs,
            buf_size,
            max_len,
            prod: cons,
            rung: cons,
            cons,
            batch: cfg.batch.min(size),
            free: (0..nbufs).rev().collect(),
            small_size,
            nbufs,
            small_free: (nbufs..nbufs + nsmall).rev().collect(),
            in_flight: vec![false; (nbufs + nsmall) as usize],
            outstanding: 0,
            prod_reg: r(reg::Q_PROD),
            cons_reg: r(reg::Q_CONS),
            doorbells: 0,
            stage: Vec::with_capacity(STAGE * DESC_SIZE),
        })
    }

    /// Queue number.
    pub fn queue(&self) -> u16 {
        self.queue
    }
    /// Descriptors in the ring.
    pub fn size(&self) -> u32 {
        self.size
    }
    /// Largest frame this queue takes.
    pub fn max_len(&self) -> usize {
        self.max_len
    }
    /// Posted descriptors whose completion has not come back.
    pub fn outstanding(&self) -> u32 {
        self.outstanding
    }
    /// Descriptors written but not yet announced by a doorbell.
    pub fn pending(&self) -> u32 {
        self.prod.wrapping_sub(self.rung)
    }
    /// Doorbells written so far.
    pub fn doorbells(&self) -> u64 {
        self.doorbells
    }
    /// Free buffers.
    pub fn free_buffers(&self) -> usize {
        self.free.len() + self.small_free.len()
    }
    /// DMA address of buffer `i` (tests and diagnostics).
    pub fn buffer_iova(&self, i: u32) -> u64 {
        self.bufs.iova() + self.buffer_offset(i) as u64
    }
    /// Offset of buffer `i` in the window, and its size.
    #[inline]
    fn buffer_at(&self, i: u32) -> (usize, usize) {
        if i < self.nbufs {
            (i as usize * self.buf_size, self.buf_size)
        } else {
            (
                self.nbufs as usize * self.buf_size + (i - self.nbufs) as usize * self.small_size,
                self.small_size,
            )
        }
    }
    #[inline]
    fn buffer_offset(&self, i: u32) -> usize {
        self.buffer_at(i).0
    }

    /// Read back the first `len` bytes of buffer `cookie` (a completed frame's, before anything else is
    /// posted into it): the bytes a capture of the posted frames records.
    pub fn read_buffer(&self, b: &mut dyn Backend, cookie: u32, out: &mut Vec<u8>, len: usize) {
        let (off, size) = self.buffer_at(cookie);
        out.resize(len.min(size), 0);
        b.dma_read(&self.bufs, off, out);
    }

    /// Post one frame with launch time `launch_ns`. Returns the cookie (the buffer index) the completion
    /// will carry, or `Ok(Err(Full))` when no descriptor slot or buffer is free (poll completions, retry).
    #[inline(always)]
    pub fn post(
        &mut self,
        b: &mut dyn Backend,
        frame: &[u8],
        launch_ns: u64,
        flags: DescFlags,
    ) -> Result<Result<u32, Full>, RingError> {
        if frame.len() > self.max_len || frame.is_empty() {
            return Err(RingError::FrameTooLong {
                len: frame.len(),
                max: self.max_len,
            });
        }
        Ok(self.post_checked(b, frame, launch_ns, flags))
    }

    /// [`TxQueue::post`] of a frame whose length was checked. Its small result comes back in
    /// registers: the post's large `Result` written in memory and read back at once cost a
    /// store-forwarding stall per frame.
    fn post_checked(
        &mut self,
        b: &mut dyn Backend,
        frame: &[u8],
        launch_ns: u64,
        flags: DescFlags,
    ) -> Result<u32, Full> {
        if self.prod.wrapping_sub(self.cons) >= self.size {
            self.refresh_cons(b);
            if self.prod.wrapping_sub(self.cons) >= self.size {
                // Make sure the card knows about what is pending, or it will never free a slot.
                self.doorbell(b);
                return Err(Full::Ring);
            }
        }
        let small = if frame.len() <= self.small_size {
            self.small_free.pop()
        } else {
            None
        };
        let Some(buf) = small.or_else(|| self.free.pop()) else {
            self.doorbell(b);
            return Err(Full::Buffers);
        };
        self.in_flight[buf as usize] = true;
        self.outstanding += 1;
        let off = self.buffer_offset(buf);
        b.dma_write(&self.bufs, off, frame);
        let d = TxDescriptor {
            addr: self.bufs.iova() + off as u64,
            len: frame.len() as u32,
            cookie: buf,
            launch_ns,
            flags: flags.bits(),
            reserved: 0,
        };
        // Gathered, written to the ring with the others of the burst (`flush`): one DMA write per
        // burst, not one per frame. A block never wraps: it is flushed at the ring's end.
        if self.stage.len() >= STAGE * DESC_SIZE
            || (self.prod & self.mask == 0 && !self.stage.is_empty())
        {
            self.flush(b);
        }
        self.stage.extend_from_slice(&encode_desc(&d));
        self.prod = self.prod.wrapping_add(1);
        if self.pending() >= self.batch {
            self.doorbell(b);
        }
        Ok(buf)
    }

    /// Write the gathered descriptors to the ring (one DMA write): those of slots `prod - n .. prod`.
    #[inline]
    fn flush(&mut self, b: &mut dyn Backend) {
        if self.stage.is_empty() {
            return;
        }
        let n = (self.stage.len() / DESC_SIZE) as u32;
        let first = self.prod.wrapping_sub(n) & self.mask;
        b.dma_write(&self.desc, first as usize * DESC_SIZE, &self.stage);
        self.stage.clear();
    }

    /// Announce every pending descriptor: the gathered ones written to the ring, then one Q_PROD
    /// write (the backend orders it after the DMA writes).
    #[inline]
    pub fn doorbell(&mut self, b: &mut dyn Backend) {
        self.flush(b);
        if self.rung != self.prod {
            b.write32(self.prod_reg, self.prod & 0xffff);
            self.rung = self.prod;
            self.doorbells += 1;
        }
    }

    /// Re-read the card's consumer index.
    fn refresh_cons(&mut self, b: &mut dyn Backend) {
        let hw = b.read32(self.cons_reg) & 0xffff;
        // Reconstruct the free-running index: the card is at most `size` behind prod.
        let delta = (self.prod as u16).wrapping_sub(hw as u16) as u32;
        if delta <= self.size {
            self.cons = self.prod.wrapping_sub(delta);
        }
    }

    /// Take back the buffer of a completion for this queue.
    pub fn complete(&mut self, c: &Completion) -> Result<(), RingError> {
        let i = c.cookie as usize;
        match self.in_flight.get_mut(i) {
            Some(f) if *f => {
                *f = false;
                if c.cookie < self.nbufs {
                    self.free.push(c.cookie);
                } else {
                    self.small_free.push(c.cookie);
                }
                self.outstanding -= 1;
                Ok(())
            }
            _ => Err(RingError::BadCompletion {
                queue: c.queue,
                cookie: c.cookie,
                record: *c,
            }),
        }
    }

    /// Disable the queue (the card flushes what it holds; completions still come back).
    pub fn disable(&mut self, b: &mut dyn Backend, caps: &Caps) {
        b.write32(caps.q_reg(self.queue, reg::Q_CTRL), 0);
    }

    /// Free the ring's DMA memory (after every completion came back).
    pub fn destroy(self, b: &mut dyn Backend) -> Result<(), RingError> {
        b.dma_free(self.desc)?;
        b.dma_free(self.bufs)?;
        Ok(())
    }
}

/// The descriptor record, byte for byte what [`TxDescriptor::to_bytes`] gives (a test checks it), but
/// inlined into the post path: the generated encoder is an out-of-line call that costs about a fifth of
/// a post.
#[inline(always)]
fn encode_desc(d: &TxDescriptor) -> [u8; DESC_SIZE] {
    let mut b = [0u8; DESC_SIZE];
    b[0..8].copy_from_slice(&d.addr.to_le_bytes());
    b[8..12].copy_from_slice(&d.len.to_le_bytes());
    b[12..16].copy_from_slice(&d.cookie.to_le_bytes());
    b[16..24].copy_from_slice(&d.launch_ns.to_le_bytes());
    b[24..28].copy_from_slice(&d.flags.to_le_bytes());
    b[28..32].copy_from_slice(&d.reserved.to_le_bytes());
    b
}

/// Completion records [`CplRing::poll`] takes in one backend call.
pub const CPL_BATCH: usize = 32;

/// The completion ring.
#[derive(Debug)]
pub struct CplRing {
    region: DmaRegion,
    mask: u32,
    cons: u32,
    phase: bool,
    cons_reg: usize,
    /// A queue whose completions [`CplRing::poll`] sets aside instead of returning (a clock running
    /// beside a job on the same card: [`CplRing::set_aside`]), and the records set aside.
    aside: Option<(u16, Vec<Completion>)>,
    /// Where [`CplRing::poll`] copies a batch of records.
    buf: Vec<u8>,
}

impl CplRing {
    /// Allocate a ring of 2^`log2` records, program and enable it (producer 0, phase 1).
    pub fn create(b: &mut dyn Backend, caps: &Caps, log2: u32) -> Result<CplRing, RingError> {
        if log2 == 0 || log2 > caps.ring_log2_max {
            return Err(RingError::Config(format!(
                "completion ring size 2^{log2} outside 2^1..=2^{}",
                caps.ring_log2_max
            )));
        }
        let region = b.dma_alloc((1usize << log2) * CPL_SIZE)?;
        b.write32(reg::CPL_CTRL, 0);
        b.write32(reg::CPL_BASE_LO, region.iova() as u32);
        b.write32(reg::CPL_BASE_HI, (region.iova() >> 32) as u32);
        b.write32(reg::CPL_SIZE_LOG2, log2);
        b.write32(reg::CPL_CONS, 0);
        b.write32(reg::CPL_CTRL, 1);
        Ok(CplRing {
            region,
            mask: (1 << log2) - 1,
            cons: 0,
            phase: true,
            cons_reg: reg::CPL_CONS,
            aside: None,
            buf: vec![0; CPL_BATCH * CPL_SIZE],
        })
    }

    /// From now on, keep the completions of queue `q` apart from what [`CplRing::poll`] returns, for
    /// [`CplRing::take_aside`] (the card has one completion ring for all queues: this is how a job
    /// and a clock beside it share it without either seeing the other's records).
    pub fn set_aside(&mut self, q: u16) {
        self.aside = Some((q, Vec::new()));
    }

    /// Move the records set aside so far to `out`. Returns how many.
    pub fn take_aside(&mut self, out: &mut Vec<Completion>) -> usize {
        match &mut self.aside {
            Some((_, v)) => {
                let n = v.len();
                out.append(v);
                n
            }
            None => 0,
        }
    }

    /// Records in the ring.
    pub fn size(&self) -> u32 {
        self.mask + 1
    }

    /// The host's consumer index (free running).
    pub fn cons(&self) -> u32 {
        self.cons
    }

    /// The phase a valid record at `cons` must carry.
    pub fn expected_phase(&self) -> bool {
        self.phase
    }

    /// Take up to `max` valid records into `out` (those of a queue set aside go aside instead, and
    /// count towards `max`); writes CPL_CONS once if any were taken. Returns how many went to `out`.
    pub fn poll(&mut self, b: &mut dyn Backend, out: &mut Vec<Completion>, max: usize) -> usize {
        let mut n = 0;
        let mut to_out = 0;
        // Records taken CPL_BATCH at a time, in one backend call each ([`Backend::dma_read_valid`]:
        // the phase dwords read first, then the records in one copy), never across the ring's end
        // (the phase flips there).
        let buf = &mut self.buf;
        while n < max {
            let idx = (self.cons & self.mask) as usize;
            let room = (self.mask as usize + 1 - idx).min(max - n).min(CPL_BATCH);
            let k = b.dma_read_valid(
                &self.region,
                idx * CPL_SIZE,
                CPL_SIZE,
                CplFlags::PHASE.bits(),
                self.phase,
                &mut buf[..room * CPL_SIZE],
            );
            for rec in buf[..k * CPL_SIZE].chunks_exact(CPL_SIZE) {
                let mut r = [0u8; CPL_SIZE];
                r.copy_from_slice(rec);
                let c = Completion::from_bytes(&r);
                match &mut self.aside {
                    Some((q, v)) if *q == c.queue => v.push(c),
                    _ => {
                        out.push(c);
                        to_out += 1;
                    }
                }
            }
            self.cons = self.cons.wrapping_add(k as u32);
            if k > 0 && self.cons & self.mask == 0 {
                self.phase = !self.phase;
            }
            n += k;
            if k < room {
                break;
            }
        }
        if n > 0 {
            b.write32(self.cons_reg, self.cons);
        }
        to_out
    }

    /// The region (tests play the card through it).
    pub fn region(&self) -> &DmaRegion {
        &self.region
    }
}

/// Every queue plus the completion ring.
#[derive(Debug)]
pub struct Rings {
    /// TX queues, indexed by queue number order of creation.
    pub queues: Vec<TxQueue>,
    /// The completion ring.
    pub cpl: CplRing,
}

impl Rings {
    /// Poll completions, give each buffer back to its queue, and append the records to `out`.
    pub fn poll(
        &mut self,
        b: &mut dyn Backend,
        out: &mut Vec<Completion>,
        max: usize,
    ) -> Result<usize, RingError> {
        let start = out.len();
        let n = self.cpl.poll(b, out, max);
        for c in &out[start..] {
            let q = self.queues.iter_mut().find(|q| q.queue == c.queue);
            match q {
                Some(q) => q.complete(c)?,
                None => {
                    return Err(RingError::BadCompletion {
                        queue: c.queue,
                        cookie: c.cookie,
                        record: *c,
                    })
                }
            }
        }
        Ok(n)
    }

    /// Ring every queue's doorbell.
    pub fn doorbell_all(&mut self, b: &mut dyn Backend) {
        for q in &mut self.queues {
            q.doorbell(b);
        }
    }

    /// Descriptors posted whose completion has not come back, over all queues.
    pub fn outstanding(&self) -> u64 {
        self.queues.iter().map(|q| q.outstanding as u64).sum()
    }
}

/// A software stand-in for the card's ring side on the `mem` backend (tests and benches): fetches
/// descriptors like the descriptor-fetch engine and writes completions like the completion writer,
/// following the contract's index and phase rules. It does not schedule: the caller chooses the order.
pub mod fake_card {
    use super::*;
    use crate::device::mem::MemBackend;

    /// The fake card's state.
    #[derive(Debug, Default)]
    pub struct FakeCard {
        /// Completion producer index (free running).
        pub cpl_prod: u32,
        /// Per queue: consumer index (free running, low 16 bits are Q_CONS).
        pub q_cons: Vec<u32>,
    }

    impl FakeCard {
        /// For `queues` queues.
        pub fn new(queues: usize) -> Self {
            Self {
                cpl_prod: 0,
                q_cons: vec![0; queues],
            }
        }

        /// Fetch up to `max` announced descriptors of queue `q`; returns them with their ring index.
        pub fn fetch(
            &mut self,
            m: &mut MemBackend,
            caps: &Caps,
            q: u16,
            max: usize,
        ) -> Vec<(u16, TxDescriptor)> {
            let prod = m.reg(caps.q_reg(q, reg::Q_PROD)) & 0xffff;
            let log2 = m.reg(caps.q_reg(q, reg::Q_SIZE_LOG2));
            let base = (m.reg(caps.q_reg(q, reg::Q_BASE_LO)) as u64)
                | ((m.reg(caps.q_reg(q, reg::Q_BASE_HI)) as u64) << 32);
            let mut out = Vec::new();
            while out.len() < max && (self.q_cons[q as usize] & 0xffff) != prod {
                let idx = self.q_cons[q as usize] & ((1 << log2) - 1);
                let (rid, off) = m
                    .iova_to(base + idx as u64 * DESC_SIZE as u64)
                    .expect("ring mapped");
                let bytes: [u8; 32] = m.dma_mut(rid)[off..off + 32].try_into().expect("32");
                out.push((
                    (self.q_cons[q as usize] & 0xffff) as u16,
                    TxDescriptor::from_bytes(&bytes),
                ));
                self.q_cons[q as usize] = self.q_cons[q as usize].wrapping_add(1);
            }
            m.set_reg(caps.q_reg(q, reg::Q_CONS), self.q_cons[q as usize] & 0xffff);
            out
        }

        /// Bytes of a frame as the card would read them.
        pub fn frame(&self, m: &MemBackend, d: &TxDescriptor) -> Vec<u8> {
            let (rid, off) = m.iova_to(d.addr).expect("frame mapped");
            m.region_bytes(rid)[off..off + d.len as usize].to_vec()
        }

        /// Room for another completion (the card never overwrites an unconsumed record).
        pub fn cpl_room(&self, m: &MemBackend) -> bool {
            let size = 1u32 << m.reg(reg::CPL_SIZE_LOG2);
            self.cpl_prod.wrapping_sub(m.reg(reg::CPL_CONS)) < size
        }

        /// Write one completion record (phase from the producer's pass); false if the ring is full.
        pub fn complete(&mut self, m: &mut MemBackend, mut c: Completion) -> bool {
            if !self.cpl_room(m) {
                return false;
            }
            let log2 = m.reg(reg::CPL_SIZE_LOG2);
            let base = (m.reg(reg::CPL_BASE_LO) as u64) | ((m.reg(reg::CPL_BASE_HI) as u64) << 32);
            let idx = self.cpl_prod & ((1 << log2) - 1);
            let pass = self.cpl_prod >> log2;
            let phase = pass & 1 == 0; // first pass writes 1
            c.flags = (c.flags & !CplFlags::PHASE.bits())
                | if phase { CplFlags::PHASE.bits() } else { 0 };
            let (rid, off) = m
                .iova_to(base + idx as u64 * CPL_SIZE as u64)
                .expect("cpl ring mapped");
            m.dma_mut(rid)[off..off + CPL_SIZE].copy_from_slice(&c.to_bytes());
            self.cpl_prod = self.cpl_prod.wrapping_add(1);
            m.set_reg(reg::CPL_PROD, self.cpl_prod);
            true
        }

        /// A SENT completion for a fetched descriptor.
        pub fn sent(q: u16, ring_index: u16, d: &TxDescriptor, depart_ns: u64) -> Completion {
            Completion {
                depart_ns,
                launch_ns: d.launch_ns,
                cookie: d.cookie,
                ring_index,
                queue: q,
                status: crate::contract::Status::Sent as u8,
                reason: 0,
                len: d.len as u16,
                flags: 0,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::fake_card::FakeCard;
    use super::*;
    use crate::device::mem::MemBackend;
    use proptest::prelude::*;
    use std::collections::HashMap;

    fn setup(ring_log2: u32, buffers: u32, batch: u32, cpl_log2: u32) -> (MemBackend, Caps, Rings) {
        let mut m = MemBackend::new_identity();
        let caps = Caps::read(&mut m).unwrap();
        let cfg = QueueConfig {
            ring_log2,
            buffers,
            batch,
            buf_size: 128,
            ..Default::default()
        };
        let q0 = TxQueue::create(&mut m, &caps, 0, &cfg).unwrap();
        let q1 = TxQueue::create(&mut m, &caps, 1, &cfg).unwrap();
        let cpl = CplRing::create(&mut m, &caps, cpl_log2).unwrap();
        (
            m,
            caps,
            Rings {
                queues: vec![q0, q1],
                cpl,
            },
        )
    }

    fn frame(tag: u32, len: usize) -> Vec<u8> {
        (0..len).map(|i| (tag as usize * 31 + i) as u8).collect()
    }

    proptest! {
        #[test]
        fn inlined_descriptor_encoder_matches_the_contract(
            addr: u64, len: u32, cookie: u32, launch_ns: u64, flags: u32, reserved: u32,
        ) {
            let d = TxDescriptor { addr, len, cookie, launch_ns, flags, reserved };
            prop_assert_eq!(encode_desc(&d), d.to_bytes());
        }
    }

    #[test]
    fn create_programs_the_queue_registers() {
        let (m, caps, rings) = setup(4, 0, 1, 4);
        let q = &rings.queues[1];
        assert_eq!(m.reg(caps.q_reg(1, reg::Q_SIZE_LOG2)), 4);
        assert_eq!(m.reg(caps.q_reg(1, reg::Q_CTRL)), QCtrl::ENABLE.bits());
        assert_eq!(
            m.reg(caps.q_reg(1, reg::Q_WIN_BASE_LO)) as u64,
            q.buffer_iova(0) & 0xffff_ffff
        );
        assert_eq!(m.reg(caps.q_reg(1, reg::Q_WIN_LEN_LO)), 4096); // 16 x 128 rounded to a page
        assert_eq!(m.reg(reg::CPL_CTRL), 1);
        assert_eq!(m.reg(reg::CPL_SIZE_LOG2), 4);
    }

    #[test]
    fn bad_configs_are_refused() {
        let mut m = MemBackend::new_identity();
        let caps = Caps::read(&mut m).unwrap();
        let bad = |cfg: QueueConfig, q: u16, m: &mut MemBackend| {
            TxQueue::create(m, &caps, q, &cfg).unwrap_err().to_string()
        };
        assert!(bad(QueueConfig::default(), 8, &mut m).contains("the card has 8"));
        assert!(bad(
            QueueConfig {
                ring_log2: 16,
                ..Default::default()
            },
            0,
            &mut m
        )
        .contains("2^16"));
        assert!(bad(
            QueueConfig {
                batch: 0,
                ..Default::default()
            },
            0,
            &mut m
        )
        .contains("batch"));
        assert!(CplRing::create(&mut m, &caps, 17).is_err());
    }

    #[test]
    fn doorbells_are_batched() {
        let (mut m, caps, mut rings) = setup(6, 0, 4, 6);
        let prod = caps.q_reg(0, reg::Q_PROD);
        let q = &mut rings.queues[0];
        for i in 0..3 {
            q.post(&mut m, &frame(i, 60), 1000, DescFlags::empty())
                .unwrap()
                .unwrap();
        }
        assert_eq!(m.reg(prod), 0, "no doorbell before the batch is full");
        assert_eq!(q.pending(), 3);
        q.post(&mut m, &frame(3, 60), 1000, DescFlags::empty())
            .unwrap()
            .unwrap();
        assert_eq!(m.reg(prod), 4);
        assert_eq!(q.doorbells(), 1);
        q.post(&mut m, &frame(4, 60), 1000, DescFlags::empty())
            .unwrap()
            .unwrap();
        q.doorbell(&mut m);
        assert_eq!(m.reg(prod), 5);
        q.doorbell(&mut m); // nothing pending: no write
        assert_eq!(q.doorbells(), 2);
    }

    #[test]
    fn completions_of_a_queue_set_aside_stay_apart() {
        // Queue 1 is a clock's beside a job on queue 0: one completion ring, two readers.
        let (mut m, caps, mut rings) = setup(3, 0, 1, 4);
        let mut q1 = rings.queues.pop().unwrap();
        rings.cpl.set_aside(1);
        let mut card = FakeCard::new(2);
        for i in 0..2 {
            rings.queues[0]
                .post(&mut m, &frame(i, 64), 5, DescFlags::empty())
                .unwrap()
                .unwrap();
            q1.post(&mut m, &frame(10 + i, 64), 6, DescFlags::empty())
                .unwrap()
                .unwrap();
        }
        for q in [1u16, 0] {
            for (idx, d) in card.fetch(&mut m, &caps, q, 8) {
                assert!(card.complete(&mut m, FakeCard::sent(q, idx, &d, 7)));
            }
        }
        let mut out = Vec::new();
        // the job's poll sees queue 0's records only, in order, and errs on none of queue 1's
        assert_eq!(rings.poll(&mut m, &mut out, 16).unwrap(), 2);
        assert!(out.iter().all(|c| c.queue == 0));
        assert_eq!(m.reg(reg::CPL_CONS), 4, "every record consumed");
        let mut aside = Vec::new();
        assert_eq!(rings.cpl.take_aside(&mut aside), 2);
        assert!(aside.iter().all(|c| c.queue == 1));
        for c in &aside {
            q1.complete(c).unwrap();
        }
        assert_eq!(q1.outstanding(), 0);
        assert_eq!(rings.cpl.take_aside(&mut aside), 0);
    }

    #[test]
    fn full_ring_then_full_buffers_then_recycle_after_completion() {
        let (mut m, caps, mut rings) = setup(3, 0, 8, 4);
        let mut card = FakeCard::new(8);
        for i in 0..8 {
            rings.queues[0]
                .post(&mut m, &frame(i, 64), 5, DescFlags::empty())
                .unwrap()
                .unwrap();
        }
        assert_eq!(
            rings.queues[0]
                .post(&mut m, &frame(9, 64), 5, DescFlags::empty())
                .unwrap(),
            Err(Full::Ring)
        );
        let fetched = card.fetch(&mut m, &caps, 0, 8);
        assert_eq!(fetched.len(), 8);
        // Slots are free now, buffers are not: they wait for completions.
        assert_eq!(
            rings.queues[0]
                .post(&mut m, &frame(9, 64), 5, DescFlags::empty())
                .unwrap(),
            Err(Full::Buffers)
        );
        let (idx, d) = fetched[5];
        assert!(card.complete(&mut m, FakeCard::sent(0, idx, &d, 7)));
        let mut out = Vec::new();
        assert_eq!(rings.poll(&mut m, &mut out, 16).unwrap(), 1);
        assert_eq!(out[0].cookie, d.cookie);
        assert_eq!(m.reg(reg::CPL_CONS), 1);
        let cookie = rings.queues[0]
            .post(&mut m, &frame(9, 64), 5, DescFlags::empty())
            .unwrap()
            .unwrap();
        assert_eq!(
            cookie, d.cookie,
            "the only free buffer is the completed one"
        );
    }

    /// A queue with a small-buffer pool: short frames go to the small buffers (packed after the
    /// large ones, inside the window), long ones to the large; the card reads each frame's own bytes,
    /// each buffer comes back to its own pool, and a short frame takes a large buffer when the small
    /// ones are all in flight.
    #[test]
    fn small_buffers_hold_short_frames_and_come_back_to_their_pool() {
        let mut m = MemBackend::new_identity();
        let caps = Caps::read(&mut m).unwrap();
        let cfg = QueueConfig {
            ring_log2: 3,
            batch: 1,
            buf_size: 1024,
            ..Default::default()
        };
        let mut q = TxQueue::create_with_small(&mut m, &caps, 0, &cfg, 100).unwrap();
        let cpl = CplRing::create(&mut m, &caps, 5).unwrap();
        let mut rings = Rings {
            queues: Vec::new(),
            cpl,
        };
        let r64 = |m: &MemBackend, lo| {
            u64::from(m.reg(caps.q_reg(0, lo))) | u64::from(m.reg(caps.q_reg(0, lo + 4))) << 32
        };
        let (win, win_len) = (r64(&m, reg::Q_WIN_BASE_LO), r64(&m, reg::Q_WIN_LEN_LO));
        assert!(
            win_len >= 8 * 1024 + 8 * 128,
            "both pools are in the window"
        );
        let lens = [60usize, 128, 129, 1024, 60, 64, 128, 1000];
        let mut cookies = Vec::new();
        for (i, &len) in lens.iter().enumerate() {
            cookies.push(
                q.post(&mut m, &frame(i as u32, len), 5, DescFlags::empty())
                    .unwrap()
                    .unwrap(),
            );
        }
        assert_eq!(q.free_buffers(), 8, "8 of 16 buffers in flight");
        let mut card = FakeCard::new(8);
        let fetched = card.fetch(&mut m, &caps, 0, 8);
        for (i, (idx, d)) in fetched.iter().enumerate() {
            assert_eq!(d.cookie, cookies[i]);
            assert_eq!(card.frame(&m, d), frame(i as u32, lens[i]), "frame {i}");
            let small = lens[i] <= 128;
            assert_eq!(d.cookie >= 8, small, "frame {i} of {} bytes", lens[i]);
            assert!(d.addr >= win && d.addr + u64::from(d.len) <= win + win_len);
            assert!(card.complete(&mut m, FakeCard::sent(0, *idx, d, 7)));
        }
        rings.queues.push(q);
        let mut out = Vec::new();
        assert_eq!(rings.poll(&mut m, &mut out, 16).unwrap(), 8);
        let q = &mut rings.queues[0];
        assert_eq!(q.free_buffers(), 16);
        // Eight short frames in flight: the small pool is empty, the ninth short frame takes a large
        // buffer.
        card.fetch(&mut m, &caps, 0, 8);
        let mut got = Vec::new();
        for i in 0..8 {
            let c = q
                .post(&mut m, &frame(i, 60), 5, DescFlags::empty())
                .unwrap();
            got.push(c.unwrap());
            card.fetch(&mut m, &caps, 0, 1);
        }
        assert!(got.iter().all(|&c| c >= 8), "{got:?}");
        let c = q
            .post(&mut m, &frame(9, 60), 5, DescFlags::empty())
            .unwrap();
        assert!(c.unwrap() < 8);
    }

    #[test]
    fn too_long_or_empty_frames_are_errors() {
        let (mut m, _caps, mut rings) = setup(3, 0, 1, 4);
        let q = &mut rings.queues[0];
        assert!(matches!(
            q.post(&mut m, &[0u8; 129], 0, DescFlags::empty()),
            Err(RingError::FrameTooLong { max: 128, .. })
        ));
        assert!(matches!(
            q.post(&mut m, &[], 0, DescFlags::empty()),
            Err(RingError::FrameTooLong { .. })
        ));
    }

    #[test]
    fn unknown_completion_is_an_error_not_a_panic() {
        let (mut m, _caps, mut rings) = setup(3, 0, 1, 4);
        let mut card = FakeCard::new(8);
        let bogus = Completion {
            cookie: 3,
            queue: 0,
            ..Default::default()
        };
        assert!(card.complete(&mut m, bogus));
        let mut out = Vec::new();
        assert!(matches!(
            rings.poll(&mut m, &mut out, 4),
            Err(RingError::BadCompletion { cookie: 3, .. })
        ));
        let bogus = Completion {
            cookie: 0,
            queue: 7,
            ..Default::default()
        };
        assert!(card.complete(&mut m, bogus));
        assert!(matches!(
            rings.poll(&mut m, &mut out, 4),
            Err(RingError::BadCompletion { queue: 7, .. })
        ));
    }

    #[test]
    fn phase_flips_at_each_wrap() {
        let (mut m, caps, mut rings) = setup(2, 0, 1, 1); // 2-record completion ring
        let mut card = FakeCard::new(8);
        let mut out = Vec::new();
        for round in 0..10u32 {
            rings.queues[0]
                .post(&mut m, &frame(round, 60), 0, DescFlags::empty())
                .unwrap()
                .unwrap();
            let (i, d) = card.fetch(&mut m, &caps, 0, 1)[0];
            assert!(card.complete(&mut m, FakeCard::sent(0, i, &d, round as u64)));
            assert_eq!(rings.poll(&mut m, &mut out, 8).unwrap(), 1);
            let consumed = round + 1;
            let flips = consumed / 2;
            assert_eq!(rings.cpl.expected_phase(), flips % 2 == 0);
        }
        // A stale record of the previous pass is not taken.
        assert_eq!(rings.poll(&mut m, &mut out, 8).unwrap(), 0);
        assert_eq!(
            out.iter().map(|c| c.depart_ns).collect::<Vec<_>>(),
            (0..10).collect::<Vec<u64>>()
        );
    }

    #[derive(Debug, Clone)]
    enum Op {
        Post(u16, usize),
        Fetch(u16, usize),
        Complete(usize),
        Poll(usize),
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            4 => (0u16..2, 60usize..=128).prop_map(|(q, l)| Op::Post(q, l)),
            2 => (0u16..2, 1usize..6).prop_map(|(q, n)| Op::Fetch(q, n)),
            3 => (0usize..64).prop_map(Op::Complete),
            2 => (1usize..8).prop_map(Op::Poll),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]
        /// Random posting, fetching, out-of-order completion and polling on small rings (many wraps):
        /// every post gets exactly one completion, back in the order the card wrote them; a buffer is
        /// never rewritten before its completion; Full is reported exactly when the ring or the pool is full.
        #[test]
        fn rings_keep_their_promises(
            ring_log2 in 1u32..4,
            buffers in 1u32..10,
            batch in 1u32..5,
            cpl_log2 in 1u32..4,
            ops in proptest::collection::vec(op(), 1..400),
        ) {
            let (mut m, caps, mut rings) = setup(ring_log2, buffers, batch, cpl_log2);
            let mut card = FakeCard::new(8);
            let size = 1u32 << ring_log2;
            let mut posted: HashMap<(u16, u32), Vec<u8>> = HashMap::new(); // (queue, cookie) -> frame
            let mut fetched: Vec<(u16, u16, TxDescriptor)> = Vec::new();
            let mut written: Vec<Completion> = Vec::new();
            let mut got: Vec<Completion> = Vec::new();
            let mut announced_q = [0u32; 2];
            let mut tag = 0u32;
            let mut total_posts = 0u64;

            let mut run = |op: &Op, m: &mut MemBackend, rings: &mut Rings, card: &mut FakeCard,
                           posted: &mut HashMap<(u16, u32), Vec<u8>>, fetched: &mut Vec<(u16, u16, TxDescriptor)>,
                           written: &mut Vec<Completion>, got: &mut Vec<Completion>| -> Result<(), TestCaseError> {
                match *op {
                    Op::Post(q, len) => {
                        tag += 1;
                        let f = frame(tag, len);
                        let qq = &mut rings.queues[q as usize];
                        let in_ring = qq.prod.wrapping_sub(card.q_cons[q as usize]);
                        let in_use = posted.keys().filter(|k| k.0 == q).count() as u32;
                        match qq.post(m, &f, tag as u64, DescFlags::empty()).unwrap() {
                            Ok(cookie) => {
                                prop_assert!(in_ring < size && in_use < buffers);
                                prop_assert!(posted.insert((q, cookie), f).is_none(), "buffer reused while in flight");
                                total_posts += 1;
                            }
                            Err(Full::Ring) => prop_assert!(in_ring >= size),
                            Err(Full::Buffers) => prop_assert!(in_use >= buffers),
                        }
                        announced_q[q as usize] = m.reg(caps.q_reg(q, reg::Q_PROD));
                    }
                    Op::Fetch(q, n) => {
                        for (i, d) in card.fetch(m, &caps, q, n) {
                            prop_assert_eq!(&card.frame(m, &d), &posted[&(q, d.cookie)]);
                            fetched.push((q, i, d));
                        }
                    }
                    Op::Complete(pick) => {
                        if !fetched.is_empty() && card.cpl_room(m) {
                            let (q, i, d) = fetched.remove(pick % fetched.len());
                            // The buffer still holds the frame: the driver has not recycled it early.
                            prop_assert_eq!(&card.frame(m, &d), &posted[&(q, d.cookie)]);
                            let c = FakeCard::sent(q, i, &d, written.len() as u64);
                            prop_assert!(card.complete(m, c));
                            written.push(c);
                        }
                    }
                    Op::Poll(max) => {
                        let start = got.len();
                        rings.poll(m, got, max).unwrap();
                        for c in &got[start..] {
                            prop_assert!(posted.remove(&(c.queue, c.cookie)).is_some());
                        }
                    }
                }
                Ok(())
            };
            for o in &ops {
                run(o, &mut m, &mut rings, &mut card, &mut posted, &mut fetched, &mut written, &mut got)?;
            }
            // Drain: announce, fetch, complete and poll everything.
            rings.doorbell_all(&mut m);
            for _ in 0..10_000 {
                if posted.is_empty() { break; }
                for q in 0..2u16 {
                    run(&Op::Fetch(q, 8), &mut m, &mut rings, &mut card, &mut posted, &mut fetched, &mut written, &mut got)?;
                }
                run(&Op::Complete(0), &mut m, &mut rings, &mut card, &mut posted, &mut fetched, &mut written, &mut got)?;
                run(&Op::Poll(8), &mut m, &mut rings, &mut card, &mut posted, &mut fetched, &mut written, &mut got)?;
            }
            prop_assert!(posted.is_empty(), "{} frames never completed", posted.len());
            prop_assert_eq!(got.len() as u64, total_posts);
            let strip = |v: &[Completion]| v.iter().map(|c| Completion { flags: c.flags & !CplFlags::PHASE.bits(), ..*c }).collect::<Vec<_>>();
            prop_assert_eq!(strip(&got), strip(&written));
            prop_assert_eq!(rings.outstanding(), 0);
            let _ = announced_q;
        }
    }
}
