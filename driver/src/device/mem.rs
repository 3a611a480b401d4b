//! `mem`: an in-memory backend with no card behind it.
//!
//! BAR0 is a plain register file (reads return what was written, the CAP block is preset to a valid
//! identity), DMA regions are heap buffers, and time is a counter that `wait_ns` advances. Used for unit
//! tests (a test plays the card by reading descriptors and writing completions through
//! [`MemBackend::dma`]/[`MemBackend::dma_mut`]) and for benchmarking the driver without a simulator.
//! An optional [`RegHook`] lets a register model (e.g. the PHC model) own some offsets.

use super::{Backend, DeviceError, DmaRegion, HostClockModel, DMA_ALIGN};
use crate::contract::{self, reg};

/// A register model plugged into [`MemBackend`]: it sees accesses before the plain register file.
pub trait RegHook {
    /// Handle a read at `offset` at true time `now_ns`; `None` lets the register file answer.
    fn read32(&mut self, offset: usize, now_ns: u64) -> Option<u32>;
    /// Handle a write; return true if the hook consumed it.
    fn write32(&mut self, offset: usize, value: u32, now_ns: u64) -> bool;
}

/// IOVA of the first region the mem backend hands out.
pub const MEM_IOVA_BASE: u64 = 0x1_0000_0000;

/// The in-memory backend.
pub struct MemBackend {
    regs: Vec<u32>,
    regions: Vec<Option<Vec<u8>>>,
    iovas: Vec<u64>,
    next_iova: u64,
    true_ns: u64,
    clock: HostClockModel,
    hook: Option<Box<dyn RegHook>>,
    /// Number of register writes so far (tests count doorbells with it).
    pub writes: u64,
    read_ns: u64,
    read_jitter_ns: u64,
    rng: u64,
}

impl Default for MemBackend {
    fn default() -> Self {
        Self::new_identity()
    }
}

impl MemBackend {
    /// A zeroed register file (CAP_MAGIC reads 0: `Card` refuses it).
    pub fn new_blank() -> Self {
        Self {
            regs: vec![0; contract::BAR0_SIZE / 4],
            regions: Vec::new(),
            iovas: Vec::new(),
            next_iova: MEM_IOVA_BASE,
            true_ns: 1_000_000_000,
            clock: HostClockModel::new(1_000_000_000, 1_700_000_000_000_000_000),
            hook: None,
            writes: 0,
            read_ns: 0,
            read_jitter_ns: 0,
            rng: 0x9e37_79b9_7f4a_7c15,
        }
    }

    /// A register file preset with a valid identity: 8 queues, 250 MHz, 64-bit data path.
    pub fn new_identity() -> Self {
        let mut m = Self::new_blank();
        let caps = [
            (reg::CAP_MAGIC, contract::MAGIC),
            (
                reg::CAP_VERSION,
                ((contract::VERSION_MAJOR as u32) << 16) | contract::VERSION_MINOR as u32,
            ),
            (reg::CAP_NUM_QUEUES, 8),
            (reg::CAP_CLK_FREQ_HZ, 250_000_000),
            (reg::CAP_SLOT_NS, 256),
            (reg::CAP_SLOTS, 4096),
            (reg::CAP_HORIZON_NS_LO, 1_048_576 * 1000),
            (reg::CAP_HORIZON_NS_HI, 0),
            (
                reg::CAP_FEATURES,
                contract::FEATURE_LATE_POLICY
                    | contract::FEATURE_HORIZON_POLICY
                    | contract::FEATURE_PHC_ADJFINE,
            ),
            (reg::CAP_RING_LOG2_MAX, 16),
            (reg::CAP_MAX_FRAME_LEN, 9000),
            (reg::CAP_TX_DATA_WIDTH, 64),
            (reg::CAP_NODES, 4096),
            (reg::CAP_QUEUE_BASE, reg::Q_BASE as u32),
            (reg::CAP_QUEUE_STRIDE, reg::Q_STRIDE as u32),
        ];
        for (off, v) in caps {
            m.set_reg(off, v);
        }
        m
    }

    /// Plug in a register model.
    pub fn with_hook(mut self, hook: Box<dyn RegHook>) -> Self {
        self.hook = Some(hook);
        self
    }

    /// Make every register read take `ns` plus a deterministic pseudo-random `j` in `0..=jitter_ns` of
    /// true time, like a PCIe read round trip: the card samples the register `ns/2` plus a random part
    /// of `j` after the read starts (the fixed part is symmetric, the jitter is not).
    pub fn with_read_latency(mut self, ns: u64, jitter_ns: u64) -> Self {
        self.read_ns = ns;
        self.read_jitter_ns = jitter_ns;
        self
    }

    fn next_rand(&mut self) -> u64 {
        // xorshift64*: deterministic, so tests are repeatable.
        self.rng ^= self.rng >> 12;
        self.rng ^= self.rng << 25;
        self.rng ^= self.rng >> 27;
        self.rng.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// (time before the card samples, time after) for one register read.
    fn read_cost(&mut self) -> (u64, u64) {
        if self.read_ns == 0 && self.read_jitter_ns == 0 {
            return (0, 0);
        }
        let j = self.next_rand() % (self.read_jitter_ns + 1);
        let jb = self.next_rand() % (j + 1);
        (
            self.read_ns / 2 + jb,
            self.read_ns - self.read_ns / 2 + (j - jb),
        )
    }

    /// Read the register file directly (no hook, no side effects).
    pub fn reg(&self, offset: usize) -> u32 {
        self.regs[offset / 4]
    }

    /// Write the register file directly (plays the card's side of a register).
    pub fn set_reg(&mut self, offset: usize, value: u32) {
        self.regs[offset / 4] = value;
    }

    /// True time (the card's and the model's time base), ns.
    pub fn true_ns(&self) -> u64 {
        self.true_ns
    }

    /// The bytes of the region with the given id (plays the card's DMA reads).
    pub fn dma(&self, region: &DmaRegion) -> &[u8] {
        self.regions[region.id()].as_deref().expect("region freed")
    }

    /// The bytes of the region with index `region_id`.
    pub fn region_bytes(&self, region_id: usize) -> &[u8] {
        self.regions[region_id].as_deref().expect("region freed")
    }

    /// The bytes of a region, writable (plays the card's DMA writes).
    pub fn dma_mut(&mut self, region_id: usize) -> &mut [u8] {
        self.regions[region_id]
            .as_deref_mut()
            .expect("region freed")
    }

    /// Find the region and offset an IOVA falls in (plays the card's address decoding).
    pub fn iova_to(&self, iova: u64) -> Option<(usize, usize)> {
        self.iovas.iter().enumerate().find_map(|(id, &base)| {
            let r = self.regions[id].as_ref()?;
            (iova >= base && iova < base + r.len() as u64).then(|| (id, (iova - base) as usize))
        })
    }
}

impl Backend for MemBackend {
    fn describe(&self) -> String {
        "mem (in-memory register file, no card)".into()
    }

    #[inline]
    fn read32(&mut self, offset: usize) -> u32 {
        let (before, after) = self.read_cost();
        self.true_ns += before;
        let mut v = self.regs[offset / 4];
        if let Some(h) = self.hook.as_mut() {
            if let Some(x) = h.read32(offset, self.true_ns) {
                v = x;
            }
        }
        self.true_ns += after;
        v
    }

    #[inline]
    fn write32(&mut self, offset: usize, value: u32) {
        self.writes += 1;
        if let Some(h) = self.hook.as_mut() {
            if h.write32(offset, value, self.true_ns) {
                return;
            }
        }
        self.regs[offset / 4] = value;
    }

    fn dma_alloc(&mut self, len: usize) -> Result<DmaRegion, DeviceError> {
        if len == 0 {
            return Err(DeviceError::DmaAlloc {
                len,
                why: "zero length".into(),
            });
        }
        let size = len.div_ceil(DMA_ALIGN) * DMA_ALIGN;
        let id = self.regions.len();
        let iova = self.next_iova;
        self.next_iova += size as u64;
        self.regions.push(Some(vec![0; size]));
        self.iovas.push(iova);
        Ok(DmaRegion::new(id, iova, size))
    }

    fn dma_free(&mut self, region: DmaRegion) -> Result<(), DeviceError> {
        self.regions[region.id()] = None;
        Ok(())
    }

    #[inline]
    fn dma_write(&mut self, region: &DmaRegion, offset: usize, data: &[u8]) {
        let r = self.regions[region.id()].as_mut().expect("region freed");
        r[offset..offset + data.len()].copy_from_slice(data);
    }

    #[inline]
    fn dma_read(&mut self, region: &DmaRegion, offset: usize, buf: &mut [u8]) {
        let r = self.regions[region.id()].as_ref().expect("region freed");
        buf.copy_from_slice(&r[offset..offset + buf.len()]);
    }

    fn now_ns(&mut self) -> u64 {
        self.clock.host_ns(self.true_ns)
    }

    fn wait_ns(&mut self, ns: u64) -> Result<(), DeviceError> {
        self.true_ns += ns;
        Ok(())
    }

    fn host_clock_model(&mut self) -> Option<&mut HostClockModel> {
        Some(&mut self.clock)
    }

    fn sim_time_ns(&mut self) -> Option<u64> {
        Some(self.true_ns)
    }
}
