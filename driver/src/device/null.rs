//! `null`: a card stand-in for host benchmarks. It takes descriptors and returns completions, in
//! process, with no simulation, so the driver's host path (post, doorbell, completion reaping, buffer
//! recycling) can be measured alone with the real push/replay code.
//!
//! - **DMA memory** is ordinary host memory (4 KiB-aligned, zeroed heap allocations); the IOVA of a
//!   region is its own counter, as on the `mem` backend.
//! - **BAR0** is an array of `AtomicU32`. Doorbells (`Q_PROD`) and `CPL_CONS` are release stores the
//!   card thread reads with acquire loads: the compiler cannot elide them (another thread reads them),
//!   and every earlier DMA write is visible to the card before it sees the doorbell, as the trait's
//!   ordering rule asks. Other register writes (ring setup, queue enable, flush) are made under the
//!   card's lock, so they never land in the middle of a card pass.
//! - **The card** is a `std::thread` that polls every enabled queue like the card's descriptor-fetch
//!   engine: it reads each announced descriptor from its ring, advances `Q_CONS`, and writes one
//!   completion per descriptor into the completion ring, the record's first 28 bytes first and then
//!   its last dword (the phase bit, 1 on the first pass, flipping at every wrap) with a release
//!   store, never writing over a record the host has not consumed (`CPL_CONS`). It does not schedule
//!   and sends nothing: a well-formed descriptor completes `SENT` with `depart_ns = launch_ns` (so a
//!   report's departure error is 0 by construction and says nothing about timing); a zero, oversize or
//!   outside-the-window one completes `REJECTED` with its reason; a queue disabled or flushed with
//!   descriptors pending completes them `FLUSHED` (depart = the host's `CLOCK_TAI`).
//! - **The PHC** is the Rust model of the RTL's PHC ([`PhcModel`], 250 MHz) driven by the host's
//!   `CLOCK_MONOTONIC` and set to the host's `CLOCK_TAI` when the backend opens: it reads TAI and
//!   runs at the host clock's rate; `phc set/adj/freq` act on it as on a card.
//! - **Capabilities**: 64 queues, rings up to 2^15, frames up to 9000 bytes, and a horizon of
//!   2^62 ns, so a capture of any span is posted as fast as the host can (push holds a row only
//!   until its launch time is within the horizon). No RX path, no flash, no MAC (`MAC_LINK_STATUS`
//!   reads 0: no link status), no interrupt (the driver polls).

use std::alloc::{self, Layout};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::mem::RegHook;
use super::phc_model::PhcModel;
use super::vfio::clock_tai_ns;
use super::{Backend, DeviceError, DmaRegion, DMA_ALIGN};
use crate::contract::{self, reg, RejectReason, Status, CPL_SIZE, DESC_SIZE};

/// Queues the null card has (one bit each in its active-queue mask).
pub const NULL_QUEUES: u32 = 64;
/// Largest ring log2 the null card takes (the driver's own limit).
pub const NULL_RING_LOG2_MAX: u32 = 15;
/// Largest frame (without FCS).
pub const NULL_MAX_FRAME_LEN: u32 = 9000;
/// Horizon: 2^62 ns (146 years), i.e. none.
pub const NULL_HORIZON_NS: u64 = 1 << 62;
/// IOVA of the first region.
pub const NULL_IOVA_BASE: u64 = 0x2_0000_0000;
/// Descriptors the card takes from one queue per pass before it looks at the next.
const PASS_BUDGET: u32 = 256;

/// One DMA region: host memory the card thread may touch while it is registered.
struct Region {
    iova: u64,
    ptr: *mut u8,
    len: usize,
    /// The allocation `ptr` is in ([`zeroed_block`]).
    base: *mut u8,
}

/// Alignment of the allocation a region is carved from: what `calloc` gives.
const BLOCK_ALIGN: usize = 16;

/// The layout of the allocation that holds a region of `size` bytes (a multiple of [`DMA_ALIGN`]).
fn block_layout(size: usize) -> Option<Layout> {
    Layout::from_size_align(size.checked_add(DMA_ALIGN)?, BLOCK_ALIGN).ok()
}

/// `size` zeroed bytes at a [`DMA_ALIGN`]-aligned address: (start of the allocation, region).
/// Allocated at 16-byte alignment, which the system allocator serves with `calloc`: a large block
/// comes as fresh zero pages of the OS, written by no one (a 9 MB buffer pool costs nothing until
/// its buffers are used), where a zeroed allocation at 4 KiB alignment is `posix_memalign` and a
/// `memset` of every byte (the pool zeroed inside the replay's loop, when its queue is made).
fn zeroed_block(size: usize) -> Option<(*mut u8, *mut u8)> {
    let layout = block_layout(size).filter(|_| size > 0)?;
    // SAFETY: `layout` has a non-zero size (checked above).
    let base = unsafe { alloc::alloc_zeroed(layout) };
    if base.is_null() {
        return None;
    }
    let off = base.align_offset(DMA_ALIGN);
    // SAFETY: `off < DMA_ALIGN` (the alignment is a power of two and `base` a valid pointer), so
    // `base + off + size <= base + size + DMA_ALIGN`: inside the allocation.
    Some((base, unsafe { base.add(off) }))
}

/// Free a block of [`zeroed_block`]`(size)`.
///
/// # Safety
/// `base` came from `zeroed_block(size)` with this `size`, is freed once, and no one uses it after.
unsafe fn free_block(base: *mut u8, size: usize) {
    if let Some(layout) = block_layout(size) {
        // SAFETY: allocated by `zeroed_block` with this layout (the caller's promise).
        unsafe { alloc::dealloc(base, layout) };
    }
}

// SAFETY: a `Region` is a pointer to a heap allocation owned by the backend; it is only dereferenced
// while the region is registered in `CardState::regions` (the card thread, under the state lock) or
// by the host thread through `&mut NullBackend`; `dma_free` and `Drop` unregister it under the lock
// before freeing it, so no thread holds it once it is freed.
unsafe impl Send for Region {}

/// What the card thread and the host's control writes share, under one lock.
struct CardState {
    regions: Vec<Region>,
    /// Completion producer index (free running).
    cpl_prod: u32,
    /// Queues enabled, or disabled with descriptors still to flush.
    active: u64,
    /// Posting threads' ports ([`NullPort`]) alive: no region is freed while there is one.
    ports: usize,
}

impl Drop for CardState {
    fn drop(&mut self) {
        for r in self.regions.drain(..) {
            // SAFETY: allocated in `dma_alloc` by `zeroed_block(r.len)`; the state is dropped with
            // the last `Arc<Shared>`, so the card thread has ended and neither the backend nor any
            // port (each holds the `Arc`) can reach the region any more.
            unsafe { free_block(r.base, r.len) };
        }
    }
}

impl CardState {
    /// The host memory of `[iova, iova + len)`, if one registered region holds all of it.
    fn resolve(&self, iova: u64, len: usize) -> Option<*mut u8> {
        self.regions.iter().find_map(|r| {
            let off = iova.checked_sub(r.iova)?;
            (off.checked_add(len as u64)? <= r.len as u64)
                // SAFETY: `off + len <= r.len`, so the result stays inside the allocation.
                .then(|| unsafe { r.ptr.add(off as usize) })
        })
    }
}

/// The part shared with the card thread.
struct Shared {
    regs: Box<[AtomicU32]>,
    state: Mutex<CardState>,
    stop: AtomicBool,
    /// Descriptors the card has completed (all statuses), for tests and diagnostics.
    completed: AtomicU64,
}

impl Shared {
    fn reg(&self, offset: usize) -> &AtomicU32 {
        &self.regs[offset / 4]
    }
    fn lock(&self) -> MutexGuard<'_, CardState> {
        // A panic in the card thread poisons the lock; the state is still consistent enough to free.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The null backend: host memory, atomic registers and a card thread that completes descriptors.
pub struct NullBackend {
    shared: Arc<Shared>,
    card: Option<JoinHandle<()>>,
    /// Host-side view of the regions (index = `DmaRegion::id`): pointer and length, `None` once freed.
    host: Vec<Option<(*mut u8, usize)>>,
    next_iova: u64,
    phc: PhcModel,
    epoch: Instant,
}

impl std::fmt::Debug for NullBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NullBackend")
            .field("regions", &self.host.len())
            .finish()
    }
}

/// Byte offset of queue `q`'s register `r`.
fn q_reg(q: u32, r: usize) -> usize {
    reg::Q_BASE + q as usize * reg::Q_STRIDE + r
}

/// The queue and register a BAR0 offset in the queue blocks names.
fn queue_of(offset: usize) -> Option<(u32, usize)> {
    let rel = offset.checked_sub(reg::Q_BASE)?;
    let q = (rel / reg::Q_STRIDE) as u32;
    (q < NULL_QUEUES).then_some((q, rel % reg::Q_STRIDE))
}

impl NullBackend {
    /// Open: preset the identity, set the PHC to the host's `CLOCK_TAI`, start the card thread.
    pub fn open() -> Result<Self, DeviceError> {
        let regs: Box<[AtomicU32]> = (0..contract::BAR0_SIZE / 4)
            .map(|_| AtomicU32::new(0))
            .collect();
        let caps = [
            (reg::CAP_MAGIC, contract::MAGIC),
            (
                reg::CAP_VERSION,
                ((contract::VERSION_MAJOR as u32) << 16) | contract::VERSION_MINOR as u32,
            ),
            (reg::CAP_NUM_QUEUES, NULL_QUEUES),
            (reg::CAP_CLK_FREQ_HZ, 250_000_000),
            (reg::CAP_SLOT_NS, 256),
            (reg::CAP_SLOTS, 4096),
            (reg::CAP_HORIZON_NS_LO, NULL_HORIZON_NS as u32),
            (reg::CAP_HORIZON_NS_HI, (NULL_HORIZON_NS >> 32) as u32),
            (
                reg::CAP_FEATURES,
                contract::FEATURE_LATE_POLICY
                    | contract::FEATURE_HORIZON_POLICY
                    | contract::FEATURE_PHC_ADJFINE,
            ),
            (reg::CAP_RING_LOG2_MAX, NULL_RING_LOG2_MAX),
            (reg::CAP_MAX_FRAME_LEN, NULL_MAX_FRAME_LEN),
            (reg::CAP_TX_DATA_WIDTH, 64),
            (reg::CAP_NODES, 65536),
            (reg::CAP_QUEUE_BASE, reg::Q_BASE as u32),
            (reg::CAP_QUEUE_STRIDE, reg::Q_STRIDE as u32),
        ];
        for (off, v) in caps {
            regs[off / 4].store(v, Ordering::Relaxed);
        }
        let shared = Arc::new(Shared {
            regs,
            state: Mutex::new(CardState {
                regions: Vec::new(),
                cpl_prod: 0,
                active: 0,
                ports: 0,
            }),
            stop: AtomicBool::new(false),
            completed: AtomicU64::new(0),
        });
        let card_shared = Arc::clone(&shared);
        let card = std::thread::Builder::new()
            .name("tsnic-null-card".into())
            .spawn(move || card_thread(&card_shared))
            .map_err(|source| DeviceError::Io {
                context: "cannot start the null card's thread".into(),
                source,
            })?;
        let mut b = NullBackend {
            shared,
            card: Some(card),
            host: Vec::new(),
            next_iova: NULL_IOVA_BASE,
            phc: PhcModel::new(4, 1),
            epoch: Instant::now(),
        };
        let tai = clock_tai_ns();
        b.write32(reg::PHC_SET_LO, tai as u32);
        b.write32(reg::PHC_SET_HI, (tai >> 32) as u32);
        b.write32(reg::PHC_CMD, reg::PHC_CMD_SET);
        Ok(b)
    }

    /// Descriptors the card thread has completed so far (every status).
    pub fn completed(&self) -> u64 {
        self.shared.completed.load(Ordering::Acquire)
    }

    /// True time of the PHC model: ns of `CLOCK_MONOTONIC` since open.
    fn true_ns(&self) -> u64 {
        self.epoch.elapsed().as_nanos() as u64
    }

    fn host_region(&self, region: &DmaRegion, offset: usize, len: usize) -> *mut u8 {
        let (ptr, rlen) = self.host[region.id()].expect("region freed");
        assert!(
            offset.checked_add(len).is_some_and(|e| e <= rlen),
            "DMA access {offset}+{len} outside a region of {rlen} bytes"
        );
        // SAFETY: `offset + len <= rlen` (checked above), inside the allocation.
        unsafe { ptr.add(offset) }
    }
}

impl Drop for NullBackend {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::Release);
        if let Some(h) = self.card.take() {
            let _ = h.join();
        }
        // The regions are freed with the shared state (`CardState`'s drop), once the last port
        // is gone too.
    }
}

impl Backend for NullBackend {
    fn describe(&self) -> String {
        "null (no card: a host thread completes every descriptor SENT at its launch time; host benchmarks only)".into()
    }

    #[inline]
    fn read32(&mut self, offset: usize) -> u32 {
        if (reg::PHC_BASE..reg::CPL_BASE).contains(&offset) {
            let t = self.true_ns();
            if let Some(v) = self.phc.read32(offset, t) {
                return v;
            }
        }
        match offset {
            reg::CTRL_STATUS => {
                let c = self.shared.reg(reg::CTRL_CONTROL).load(Ordering::Acquire);
                u32::from(c & reg::CTRL_CONTROL_ENABLE != 0) * reg::CTRL_STATUS_RUNNING
            }
            _ => match queue_of(offset) {
                Some((q, reg::Q_STATUS)) => {
                    let ctrl = self
                        .shared
                        .reg(q_reg(q, reg::Q_CTRL))
                        .load(Ordering::Acquire);
                    let prod = self
                        .shared
                        .reg(q_reg(q, reg::Q_PROD))
                        .load(Ordering::Acquire);
                    let cons = self
                        .shared
                        .reg(q_reg(q, reg::Q_CONS))
                        .load(Ordering::Acquire);
                    let mut v = 0;
                    if ctrl & reg::Q_CTRL_ENABLE != 0 {
                        v |= reg::Q_STATUS_ENABLED;
                    }
                    let flushing = ctrl & reg::Q_CTRL_ENABLE == 0 || ctrl & reg::Q_CTRL_FLUSH != 0;
                    if flushing && (prod ^ cons) & 0xffff != 0 {
                        v |= reg::Q_STATUS_FLUSH_BUSY;
                    }
                    v
                }
                _ => self.shared.reg(offset).load(Ordering::Acquire),
            },
        }
    }

    #[inline]
    fn write32(&mut self, offset: usize, value: u32) {
        // The hot path: doorbells and the completion consumer index, lock-free release stores.
        if offset == reg::CPL_CONS {
            self.shared.reg(offset).store(value, Ordering::Release);
            return;
        }
        if let Some((q, r)) = queue_of(offset) {
            match r {
                reg::Q_PROD => {
                    self.shared
                        .reg(offset)
                        .store(value & 0xffff, Ordering::Release);
                    return;
                }
                reg::Q_CONS | reg::Q_STATUS => return, // read-only
                reg::Q_CTRL => {
                    let mut st = self.shared.lock();
                    self.shared.reg(offset).store(value, Ordering::Release);
                    if value & (reg::Q_CTRL_ENABLE | reg::Q_CTRL_FLUSH) != 0 {
                        st.active |= 1 << q;
                    }
                    return;
                }
                _ => {}
            }
        }
        if (reg::PHC_BASE..reg::CPL_BASE).contains(&offset) {
            let t = self.true_ns();
            if self.phc.write32(offset, value, t) {
                return;
            }
        }
        match offset {
            o if o < reg::CTRL_BASE => {} // CAP block: read-only
            reg::CTRL_STATUS | reg::CPL_PROD | reg::CTRL_IRQ_STATUS => {}
            reg::CPL_CTRL => {
                let mut st = self.shared.lock();
                let was = self.shared.reg(offset).swap(value, Ordering::AcqRel);
                if value & 1 != 0 && was & 1 == 0 {
                    // Enabling the ring starts it over: producer 0, phase 1.
                    st.cpl_prod = 0;
                    self.shared.reg(reg::CPL_PROD).store(0, Ordering::Release);
                }
            }
            _ => {
                let _st = self.shared.lock();
                self.shared.reg(offset).store(value, Ordering::Release);
            }
        }
    }

    fn dma_alloc(&mut self, len: usize) -> Result<DmaRegion, DeviceError> {
        let size = len.div_ceil(DMA_ALIGN) * DMA_ALIGN;
        if size == 0 || block_layout(size).is_none() {
            return Err(DeviceError::DmaAlloc {
                len,
                why: "zero or too large a length".into(),
            });
        }
        let Some((base, ptr)) = zeroed_block(size) else {
            return Err(DeviceError::DmaAlloc {
                len,
                why: "out of memory".into(),
            });
        };
        let iova = self.next_iova;
        self.next_iova += size as u64;
        let id = self.host.len();
        self.host.push(Some((ptr, size)));
        self.shared.lock().regions.push(Region {
            iova,
            ptr,
            len: size,
            base,
        });
        Ok(DmaRegion::new(id, iova, size))
    }

    fn dma_free(&mut self, region: DmaRegion) -> Result<(), DeviceError> {
        let mut st = self.shared.lock();
        if st.ports > 0 {
            return Err(DeviceError::Io {
                context: "cannot free a DMA region of the null card".into(),
                source: std::io::Error::other(
                    "posting threads still hold ports to its memory: a driver bug (end them first)",
                ),
            });
        }
        let Some((ptr, _size)) = self.host.get_mut(region.id()).and_then(Option::take) else {
            return Ok(());
        };
        // Unregister under the lock: the card thread never touches it again, and no port exists
        // (checked above, under the same lock) that could have it cached.
        let Some(at) = st.regions.iter().position(|r| r.ptr == ptr) else {
            return Ok(());
        };
        let r = st.regions.remove(at);
        drop(st);
        // SAFETY: allocated in `dma_alloc` by `zeroed_block(size)` (`r.len == size`), and no
        // longer registered with the card thread (it reads regions only under the lock held above).
        unsafe { free_block(r.base, r.len) };
        Ok(())
    }

    #[inline]
    fn dma_write(&mut self, region: &DmaRegion, offset: usize, data: &[u8]) {
        let dst = self.host_region(region, offset, data.len());
        // SAFETY: `dst..dst+len` is inside the region (checked by `host_region`) and does not overlap
        // `data` (a Rust slice the caller owns). The card thread reads a descriptor only after the
        // doorbell that announces it (release/acquire), and never reads payload bytes, so no access
        // of the card's races with this write.
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), dst, data.len()) };
    }

    #[inline]
    fn dma_read(&mut self, region: &DmaRegion, offset: usize, buf: &mut [u8]) {
        let src = self.host_region(region, offset, buf.len());
        // SAFETY: inside the region (checked). The driver reads a completion record only after it
        // saw its phase dword through `dma_read_u32` (an acquire load that pairs with the card's
        // release store of that dword), and the card writes no record the host has not consumed.
        unsafe { std::ptr::copy_nonoverlapping(src, buf.as_mut_ptr(), buf.len()) };
    }

    #[inline]
    fn dma_read_u32(&mut self, region: &DmaRegion, offset: usize) -> u32 {
        let p = self.host_region(region, offset, 4);
        if !(p as usize).is_multiple_of(4) {
            let mut b = [0u8; 4];
            self.dma_read(region, offset, &mut b);
            return u32::from_le_bytes(b);
        }
        // SAFETY: 4-byte aligned (checked), inside the region (checked), and the memory lives as
        // long as the region; the card writes this dword only with an atomic store.
        let a = unsafe { AtomicU32::from_ptr(p as *mut u32) };
        u32::from_le(a.load(Ordering::Acquire))
    }

    #[inline]
    fn dma_read_valid(
        &mut self,
        region: &DmaRegion,
        offset: usize,
        rec: usize,
        phase_bit: u32,
        phase: bool,
        out: &mut [u8],
    ) -> usize {
        let max = out.len() / rec.max(4);
        if max == 0 {
            return 0;
        }
        let base = self.host_region(region, offset, max * rec);
        assert!(
            rec.is_multiple_of(4) && (base as usize).is_multiple_of(4),
            "records of {rec} bytes at {base:p}: not dword-aligned (a driver bug)"
        );
        let mut n = 0;
        while n < max {
            // SAFETY: inside the region (`host_region` checked `max * rec` bytes), 4-byte aligned
            // (checked above: aligned base, records a whole number of dwords); the card writes
            // this dword only with an atomic (release) store, and the memory lives as long as
            // the region.
            let w = unsafe { AtomicU32::from_ptr(base.add(n * rec + rec - 4) as *mut u32) }
                .load(Ordering::Acquire);
            if (u32::from_le(w) & phase_bit != 0) != phase {
                break;
            }
            n += 1;
        }
        // SAFETY: inside the region (checked) and `out` (n <= max); every record copied had its
        // phase dword acquired above, after which the card does not write it until the host
        // consumes it (CPL_CONS), so the copy races with no write of the card's.
        unsafe { std::ptr::copy_nonoverlapping(base, out.as_mut_ptr(), n * rec) };
        n
    }

    fn tx_port(&mut self) -> Option<Box<dyn Backend + Send>> {
        self.shared.lock().ports += 1;
        Some(Box::new(NullPort {
            shared: Arc::clone(&self.shared),
            cache: Vec::new(),
        }))
    }

    fn now_ns(&mut self) -> u64 {
        clock_tai_ns()
    }

    fn wait_ns(&mut self, ns: u64) -> Result<(), DeviceError> {
        if ns >= 100_000 {
            std::thread::sleep(Duration::from_nanos(ns));
        } else {
            let end = Instant::now() + Duration::from_nanos(ns);
            while Instant::now() < end {
                std::thread::yield_now();
            }
        }
        Ok(())
    }

    /// No interrupt: wait until the card has written a completion the host has not consumed, or
    /// `timeout_ns` passes. Returns true when there is one.
    fn wait_irq(&mut self, timeout_ns: u64) -> Result<bool, DeviceError> {
        let start = Instant::now();
        let end = start + Duration::from_nanos(timeout_ns);
        loop {
            let prod = self.shared.reg(reg::CPL_PROD).load(Ordering::Acquire);
            let cons = self.shared.reg(reg::CPL_CONS).load(Ordering::Acquire);
            if prod != cons {
                return Ok(true);
            }
            let now = Instant::now();
            if now >= end {
                return Ok(false);
            }
            // Yield for the first 20 us, then sleep in 10 us steps: on a loaded machine the card
            // thread needs the CPU this one would spin on.
            if now.duration_since(start) < Duration::from_micros(20) {
                std::thread::yield_now();
            } else {
                std::thread::sleep(Duration::from_micros(10).min(end - now));
            }
        }
    }
}

/// A posting thread's handle on the null card ([`Backend::tx_port`]): DMA reads and writes into the
/// regions the backend allocated, the queues' doorbells (`Q_PROD`, a release store as on the
/// backend) and register reads. It allocates and frees nothing, and has no PHC (its reads of the PHC
/// block read the raw registers). While a port exists the backend frees no region, so the memory a
/// port resolved stays valid as long as the port.
pub struct NullPort {
    shared: Arc<Shared>,
    /// Regions resolved so far: (IOVA, host pointer, length).
    cache: Vec<(u64, *mut u8, usize)>,
}

// SAFETY: the cached pointers are to regions that stay allocated while the port lives (the backend
// refuses `dma_free` while `ports > 0`, and the memory is freed with the last `Arc<Shared>`, which
// the port holds); the port's accesses follow the same ordering rules as the backend's.
unsafe impl Send for NullPort {}

impl Drop for NullPort {
    fn drop(&mut self) {
        self.shared.lock().ports -= 1;
    }
}

impl NullPort {
    fn at(&mut self, region: &DmaRegion, offset: usize, len: usize) -> *mut u8 {
        let iova = region.iova();
        let (ptr, rlen) = match self.cache.iter().find(|c| c.0 == iova) {
            Some(&(_, p, l)) => (p, l),
            None => {
                let st = self.shared.lock();
                let r = st
                    .regions
                    .iter()
                    .find(|r| r.iova == iova)
                    .expect("a region of the null card");
                let e = (r.iova, r.ptr, r.len);
                drop(st);
                self.cache.push(e);
                (e.1, e.2)
            }
        };
        assert!(
            offset.checked_add(len).is_some_and(|e| e <= rlen),
            "DMA access {offset}+{len} outside a region of {rlen} bytes"
        );
        // SAFETY: `offset + len <= rlen` (checked above), inside the allocation.
        unsafe { ptr.add(offset) }
    }
}

impl Backend for NullPort {
    fn describe(&self) -> String {
        "null (a posting thread's port)".into()
    }

    fn read32(&mut self, offset: usize) -> u32 {
        self.shared.reg(offset).load(Ordering::Acquire)
    }

    fn write32(&mut self, offset: usize, value: u32) {
        match queue_of(offset) {
            Some((_, reg::Q_PROD)) => self
                .shared
                .reg(offset)
                .store(value & 0xffff, Ordering::Release),
            Some((q, reg::Q_CTRL)) => {
                let mut st = self.shared.lock();
                self.shared.reg(offset).store(value, Ordering::Release);
                if value & (reg::Q_CTRL_ENABLE | reg::Q_CTRL_FLUSH) != 0 {
                    st.active |= 1 << q;
                }
            }
            Some((_, reg::Q_CONS | reg::Q_STATUS)) => {}
            _ => panic!("a posting thread's port writes only queue registers (offset {offset:#x})"),
        }
    }

    fn dma_alloc(&mut self, len: usize) -> Result<DmaRegion, DeviceError> {
        Err(DeviceError::DmaAlloc {
            len,
            why: "a posting thread's port allocates nothing: allocate on the backend".into(),
        })
    }

    fn dma_free(&mut self, _region: DmaRegion) -> Result<(), DeviceError> {
        Err(DeviceError::Io {
            context: "cannot free a DMA region through a posting thread's port".into(),
            source: std::io::Error::other("free it on the backend"),
        })
    }

    #[inline]
    fn dma_write(&mut self, region: &DmaRegion, offset: usize, data: &[u8]) {
        let dst = self.at(region, offset, data.len());
        // SAFETY: inside the region (checked by `at`), no overlap with `data`; as the backend's
        // `dma_write`: the card reads a descriptor only after the doorbell that announces it.
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), dst, data.len()) };
    }

    #[inline]
    fn dma_read(&mut self, region: &DmaRegion, offset: usize, buf: &mut [u8]) {
        let src = self.at(region, offset, buf.len());
        // SAFETY: inside the region (checked by `at`); the caller reads memory the card does not
        // write at the same time (a buffer it posted, a record it saw the phase of).
        unsafe { std::ptr::copy_nonoverlapping(src, buf.as_mut_ptr(), buf.len()) };
    }

    fn now_ns(&mut self) -> u64 {
        clock_tai_ns()
    }

    fn wait_ns(&mut self, ns: u64) -> Result<(), DeviceError> {
        std::thread::sleep(Duration::from_nanos(ns));
        Ok(())
    }
}

/// The card: pass over the active queues until told to stop; spin, then yield, then sleep when idle.
fn card_thread(sh: &Shared) {
    let mut idle = 0u32;
    while !sh.stop.load(Ordering::Acquire) {
        let done = card_pass(sh);
        if done > 0 {
            idle = 0;
            continue;
        }
        idle = idle.saturating_add(1);
        if idle < 2000 {
            std::hint::spin_loop();
        } else if idle < 4000 {
            std::thread::yield_now();
        } else {
            std::thread::sleep(Duration::from_micros(20));
        }
    }
}

/// One pass: every active queue's announced descriptors, as many as the completion ring has room
/// for. Returns how many descriptors were completed.
fn card_pass(sh: &Shared) -> u32 {
    let mut st = sh.lock();
    if st.active == 0
        || sh.reg(reg::CTRL_CONTROL).load(Ordering::Acquire) & reg::CTRL_CONTROL_ENABLE == 0
        || sh.reg(reg::CPL_CTRL).load(Ordering::Acquire) & 1 == 0
    {
        return 0;
    }
    let clog2 = sh.reg(reg::CPL_SIZE_LOG2).load(Ordering::Acquire);
    if clog2 == 0 || clog2 > 16 {
        return 0;
    }
    let csize = 1u32 << clog2;
    let cbase = (sh.reg(reg::CPL_BASE_LO).load(Ordering::Acquire) as u64)
        | ((sh.reg(reg::CPL_BASE_HI).load(Ordering::Acquire) as u64) << 32);
    let Some(cring) = st.resolve(cbase, csize as usize * CPL_SIZE) else {
        return 0;
    };
    let ccons = sh.reg(reg::CPL_CONS).load(Ordering::Acquire);
    let mut cpl_prod = st.cpl_prod;
    let mut room = csize.saturating_sub(cpl_prod.wrapping_sub(ccons));
    let mut total = 0u32;
    let mut active = st.active;
    while active != 0 && room > 0 {
        let q = active.trailing_zeros();
        active &= active - 1;
        let ctrl = sh.reg(q_reg(q, reg::Q_CTRL)).load(Ordering::Acquire);
        let prod = sh.reg(q_reg(q, reg::Q_PROD)).load(Ordering::Acquire) & 0xffff;
        let mut cons = sh.reg(q_reg(q, reg::Q_CONS)).load(Ordering::Relaxed) & 0xffff;
        let flushing = ctrl & reg::Q_CTRL_ENABLE == 0 || ctrl & reg::Q_CTRL_FLUSH != 0;
        if cons == prod {
            if ctrl & reg::Q_CTRL_ENABLE == 0 {
                st.active &= !(1u64 << q);
            }
            continue;
        }
        let log2 = sh.reg(q_reg(q, reg::Q_SIZE_LOG2)).load(Ordering::Acquire);
        if log2 == 0 || log2 > NULL_RING_LOG2_MAX {
            continue;
        }
        let mask = (1u32 << log2) - 1;
        let base = (sh.reg(q_reg(q, reg::Q_BASE_LO)).load(Ordering::Acquire) as u64)
            | ((sh.reg(q_reg(q, reg::Q_BASE_HI)).load(Ordering::Acquire) as u64) << 32);
        let Some(ring) = st.resolve(base, (mask as usize + 1) * DESC_SIZE) else {
            continue;
        };
        let win = (sh.reg(q_reg(q, reg::Q_WIN_BASE_LO)).load(Ordering::Acquire) as u64)
            | ((sh.reg(q_reg(q, reg::Q_WIN_BASE_HI)).load(Ordering::Acquire) as u64) << 32);
        let win_len = (sh.reg(q_reg(q, reg::Q_WIN_LEN_LO)).load(Ordering::Acquire) as u64)
            | ((sh.reg(q_reg(q, reg::Q_WIN_LEN_HI)).load(Ordering::Acquire) as u64) << 32);
        let flush_time = if flushing { clock_tai_ns() } else { 0 };
        let (mut sent, mut flushed, mut rejected, mut n) = (0u32, 0u32, 0u32, 0u32);
        while cons != prod && room > 0 && n < PASS_BUDGET {
            let mut d = [0u8; DESC_SIZE];
            // SAFETY: `ring` covers the whole ring (resolved above, under the lock that keeps the
            // region alive); the host wrote this slot before the release store of Q_PROD we
            // acquired, and does not write it again until Q_CONS (stored below) passes it.
            unsafe {
                std::ptr::copy_nonoverlapping(
                    ring.add((cons & mask) as usize * DESC_SIZE),
                    d.as_mut_ptr(),
                    DESC_SIZE,
                )
            };
            let desc = contract::TxDescriptor::from_bytes(&d);
            let reason = if desc.len == 0 {
                RejectReason::ZeroLen
            } else if desc.len > NULL_MAX_FRAME_LEN {
                RejectReason::Oversize
            } else if desc.addr < win
                || (desc.addr - win).saturating_add(u64::from(desc.len)) > win_len
            {
                RejectReason::OutsideWindow
            } else {
                RejectReason::None
            };
            let (status, depart) = if flushing {
                flushed += 1;
                (Status::Flushed, flush_time)
            } else if reason != RejectReason::None {
                rejected += 1;
                (Status::Rejected, desc.launch_ns)
            } else {
                sent += 1;
                (Status::Sent, desc.launch_ns)
            };
            let c = contract::Completion {
                depart_ns: depart,
                launch_ns: desc.launch_ns,
                cookie: desc.cookie,
                ring_index: cons as u16,
                queue: q as u16,
                status: status as u8,
                reason: if flushing { 0 } else { reason as u8 },
                len: desc.len as u16,
                flags: 0,
            };
            // The first pass over the ring writes phase 1; it flips at every wrap.
            let phase = (cpl_prod >> clog2) & 1 == 0;
            let rec = c.to_bytes();
            let off = (cpl_prod & (csize - 1)) as usize * CPL_SIZE;
            // SAFETY: `cring` covers the whole completion ring (resolved above, region kept alive by
            // the lock); the slot is free (`room` counts records the host consumed, CPL_CONS
            // acquired), so the host reads none of it until the release store of its last dword.
            // That dword is 4-byte aligned (regions are 4 KiB aligned, records 32 bytes).
            unsafe {
                let slot = cring.add(off);
                std::ptr::copy_nonoverlapping(rec.as_ptr(), slot, CPL_SIZE - 4);
                let last = AtomicU32::from_ptr(slot.add(CPL_SIZE - 4) as *mut u32);
                last.store(
                    (if phase { contract::CPL_FLAG_PHASE } else { 0 }).to_le(),
                    Ordering::Release,
                );
            }
            cpl_prod = cpl_prod.wrapping_add(1);
            cons = (cons + 1) & 0xffff;
            room -= 1;
            n += 1;
        }
        sh.reg(q_reg(q, reg::Q_CONS)).store(cons, Ordering::Release);
        let add = |r: usize, v: u32| {
            if v > 0 {
                sh.reg(q_reg(q, r)).fetch_add(v, Ordering::Relaxed);
            }
        };
        add(reg::Q_CNT_POSTED, n);
        add(reg::Q_CNT_SENT, sent);
        add(reg::Q_CNT_FLUSHED, flushed);
        add(reg::Q_CNT_REJECTED, rejected);
        total += n;
    }
    st.cpl_prod = cpl_prod;
    sh.reg(reg::CPL_PROD).store(cpl_prod, Ordering::Release);
    sh.completed.fetch_add(u64::from(total), Ordering::Release);
    total
}
