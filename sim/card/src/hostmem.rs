//! Host memory behind the core's AXI4 master: the driver's DMA regions, with PCIe-like read latency.
//!
//! - Regions are allocated by the driver (through the sim backend) at page-aligned device addresses
//!   with an unmapped guard page between them; an access outside every region answers SLVERR (reads
//!   return zeros, writes are dropped) and is counted in [`MemStats::errors`].
//! - Reads: up to `max_outstanding` read bursts are accepted; each one's first beat is returned
//!   `read_latency` cycles after its address was accepted (never less than one cycle), then one beat per
//!   cycle while `rready`; bursts complete in the order they were accepted. Data is read from memory
//!   when the beat is returned.
//! - Writes: addresses and data beats are queued independently (either may come first); a beat is
//!   written to memory when both its address and its data are in, and the write response follows the
//!   burst's last beat after `write_latency` cycles.
//! - INCR and FIXED bursts, narrow transfers (`size` below the bus width) and unaligned start addresses
//!   follow the AXI4 rules for byte lanes.

use std::collections::VecDeque;

use crate::ffi::{set_wide_byte, wide_byte, PortsIn, PortsOut, WIDE_WORDS};

/// Device address of the first region.
pub const IOVA_BASE: u64 = 0x1_0000_0000;
/// Region alignment (and guard gap) in bytes.
pub const PAGE: u64 = 4096;

/// AXI response codes.
const RESP_OKAY: u64 = 0;
const RESP_SLVERR: u64 = 2;

/// Counters of the memory model.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MemStats {
    /// Read bursts accepted.
    pub read_bursts: u64,
    /// Read beats returned.
    pub read_beats: u64,
    /// Write bursts completed.
    pub write_bursts: u64,
    /// Write beats applied.
    pub write_beats: u64,
    /// Beats that touched an address outside every region, or used a reserved burst type.
    pub errors: u64,
    /// Most read bursts outstanding at once.
    pub max_reads_outstanding: u64,
}

struct Region {
    iova: u64,
    size: u64,
    /// `None` once freed (the address range stays reserved: addresses are never reused).
    data: Option<Vec<u8>>,
}

#[derive(Debug, Clone, Copy)]
struct Burst {
    id: u64,
    addr: u64,
    len: u64,  // beats - 1
    size: u64, // log2 bytes per beat
    burst: u64,
    beat: u64, // next beat
    ready_cycle: u64,
    err: bool,
}

impl Burst {
    /// Byte address of beat `n` and the bus lanes it uses (`lo..hi`).
    fn beat_lanes(&self, n: u64, bus_bytes: u64) -> (u64, u64, u64) {
        let nbytes = 1u64 << self.size;
        let aligned = self.addr & !(nbytes - 1);
        let addr = match (self.burst, n) {
            (_, 0) => self.addr,
            (0, _) => self.addr, // FIXED
            _ => aligned.wrapping_add(n * nbytes),
        };
        let beat_aligned = addr & !(nbytes - 1);
        let lo = addr % bus_bytes;
        let hi = (beat_aligned % bus_bytes) + nbytes;
        (addr, lo, hi.min(bus_bytes))
    }
}

/// Host memory and the AXI4 slave in front of it.
pub struct HostMemory {
    regions: Vec<Region>,
    next_iova: u64,
    bus_bytes: u64,
    read_latency: u64,
    write_latency: u64,
    max_outstanding: usize,
    reads: VecDeque<Burst>,
    writes: VecDeque<Burst>,
    wdata: VecDeque<([u64; WIDE_WORDS], u64)>,
    bresp: VecDeque<(u64, u64, u64)>, // (ready_cycle, id, resp)
    stats: MemStats,
    first_error: Option<String>,
    log: Option<Vec<Access>>,
}

/// One accepted burst, for diagnosis ([`HostMemory::set_logging`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Access {
    /// Cycle the address was accepted.
    pub cycle: u64,
    /// True for a write.
    pub write: bool,
    /// AXI ID.
    pub id: u64,
    /// Start address.
    pub addr: u64,
    /// Beats.
    pub beats: u64,
}

impl HostMemory {
    /// Memory on a bus `bus_bytes` wide, first read beat `read_latency_cycles` after the address
    /// (clamped to at least 1), write response `write_latency_cycles` after the last beat.
    pub fn new(bus_bytes: usize, read_latency_cycles: u64, write_latency_cycles: u64) -> Self {
        assert!(bus_bytes.is_power_of_two() && (4..=64).contains(&bus_bytes));
        HostMemory {
            regions: Vec::new(),
            next_iova: IOVA_BASE,
            bus_bytes: bus_bytes as u64,
            read_latency: read_latency_cycles.max(1),
            write_latency: write_latency_cycles,
            // PCIe with extended (8-bit) tags: 256 non-posted reads outstanding. 64 capped 100G at
            // ~70 Mpps of 60-byte frames (one payload read each) at 800 ns.
            max_outstanding: 256,
            reads: VecDeque::new(),
            writes: VecDeque::new(),
            wdata: VecDeque::new(),
            bresp: VecDeque::new(),
            stats: MemStats::default(),
            first_error: None,
            log: None,
        }
    }

    /// Read latency in cycles.
    pub fn read_latency_cycles(&self) -> u64 {
        self.read_latency
    }

    /// Allocate `len` zeroed bytes; returns (region id, device address).
    pub fn alloc(&mut self, len: usize) -> (usize, u64) {
        let size = (len.max(1) as u64).div_ceil(PAGE) * PAGE;
        let iova = self.next_iova;
        self.next_iova += size + PAGE; // guard page
        self.regions.push(Region {
            iova,
            size,
            data: Some(vec![0; size as usize]),
        });
        (self.regions.len() - 1, iova)
    }

    /// Free a region; later accesses to its addresses fail.
    pub fn free(&mut self, id: usize) -> bool {
        matches!(
            self.regions.get_mut(id).map(|r| r.data.take()),
            Some(Some(_))
        )
    }

    /// The bytes of region `id` (panics on a freed or unknown id: a driver bug).
    pub fn region(&self, id: usize) -> &[u8] {
        self.regions[id].data.as_deref().expect("region freed")
    }

    /// The bytes of region `id`, writable.
    pub fn region_mut(&mut self, id: usize) -> &mut [u8] {
        self.regions[id].data.as_deref_mut().expect("region freed")
    }

    /// Record every accepted burst address (off by default), or stop recording.
    pub fn set_logging(&mut self, on: bool) {
        self.log = if on { Some(Vec::new()) } else { None };
    }

    /// Take the recorded bursts.
    pub fn take_log(&mut self) -> Vec<Access> {
        self.log.as_mut().map(std::mem::take).unwrap_or_default()
    }

    /// Counters.
    pub fn stats(&self) -> MemStats {
        self.stats
    }

    /// The first bad access, described.
    pub fn first_error(&self) -> Option<&str> {
        self.first_error.as_deref()
    }

    /// Copy `buf.len()` bytes at device address `addr` out of memory (the PCIe host model's reads):
    /// false, and `buf` untouched, unless the whole range is inside one mapped region.
    pub fn read_at(&self, addr: u64, buf: &mut [u8]) -> bool {
        let Some((r, off)) = self.locate(addr) else {
            return false;
        };
        match self.regions[r].data.as_deref() {
            Some(d) if off + buf.len() <= d.len() => {
                buf.copy_from_slice(&d[off..off + buf.len()]);
                true
            }
            _ => false,
        }
    }

    /// Write `data` at device address `addr` (the PCIe host model's writes): false, and nothing
    /// written, unless the whole range is inside one mapped region.
    pub fn write_at(&mut self, addr: u64, data: &[u8]) -> bool {
        let Some((r, off)) = self.locate(addr) else {
            return false;
        };
        match self.regions[r].data.as_deref_mut() {
            Some(d) if off + data.len() <= d.len() => {
                d[off..off + data.len()].copy_from_slice(data);
                true
            }
            _ => false,
        }
    }

    fn locate(&self, addr: u64) -> Option<(usize, usize)> {
        // Regions are allocated at increasing addresses and never moved: binary search on iova.
        let idx = self
            .regions
            .partition_point(|r| r.iova <= addr)
            .checked_sub(1)?;
        let r = &self.regions[idx];
        (addr < r.iova + r.size && r.data.is_some()).then(|| (idx, (addr - r.iova) as usize))
    }

    fn error(&mut self, what: String) {
        self.stats.errors += 1;
        if self.first_error.is_none() {
            self.first_error = Some(what);
        }
    }

    fn read_byte(&mut self, addr: u64) -> Option<u8> {
        let (r, off) = self.locate(addr)?;
        Some(self.regions[r].data.as_ref()?[off])
    }

    fn write_byte(&mut self, addr: u64, v: u8) -> bool {
        match self.locate(addr) {
            Some((r, off)) => {
                self.regions[r].data.as_mut().expect("located")[off] = v;
                true
            }
            None => false,
        }
    }

    /// Drive the slave's outputs (the core's AXI4 inputs) from the model state at `cycle`.
    pub fn drive(&mut self, inp: &mut PortsIn, cycle: u64) {
        inp.m_axi_arready = (self.reads.len() < self.max_outstanding) as u64;
        inp.m_axi_awready = (self.writes.len() < self.max_outstanding) as u64;
        inp.m_axi_wready = (self.wdata.len() < 512) as u64;
        inp.m_axi_rvalid = 0;
        inp.m_axi_rlast = 0;
        if let Some(b) = self.reads.front().copied() {
            if cycle >= b.ready_cycle {
                let mut data = [0u64; WIDE_WORDS];
                let mut err = b.err;
                let (addr, lo, hi) = b.beat_lanes(b.beat, self.bus_bytes);
                let base = addr - (addr % self.bus_bytes);
                // The lanes usually lie in one region: copy them as one slice (one lookup per beat,
                // not per byte); else byte by byte, flagging the bytes outside every region.
                let first = self.locate(base + lo);
                let whole = first.and_then(|(r, off)| {
                    let d = self.regions[r].data.as_deref()?;
                    d.get(off..off + (hi - lo) as usize)
                });
                match whole {
                    Some(bytes) => {
                        // byte lanes lo..hi into the words that hold them, 8 bytes at a time
                        let (l, h) = (lo as usize, lo as usize + bytes.len());
                        let mut buf = [0u8; WIDE_WORDS * 8];
                        buf[l..h].copy_from_slice(bytes);
                        for (i, w) in data.iter_mut().enumerate().take(h.div_ceil(8)).skip(l / 8) {
                            let mut b8 = [0u8; 8];
                            b8.copy_from_slice(&buf[8 * i..8 * i + 8]);
                            *w = u64::from_le_bytes(b8);
                        }
                    }
                    None => {
                        for lane in lo..hi {
                            match self.read_byte(base + lane) {
                                Some(v) => set_wide_byte(&mut data, lane as usize, v),
                                None => err = true,
                            }
                        }
                    }
                }
                if err && !b.err {
                    self.error(format!(
                        "read of {:#x} (burst at {:#x}) outside every DMA region",
                        addr, b.addr
                    ));
                    self.reads.front_mut().unwrap().err = true;
                }
                inp.m_axi_rvalid = 1;
                inp.m_axi_rdata = data;
                inp.m_axi_rid = b.id;
                inp.m_axi_rresp = if err { RESP_SLVERR } else { RESP_OKAY };
                inp.m_axi_rlast = (b.beat == b.len) as u64;
            }
        }
        inp.m_axi_bvalid = 0;
        if let Some(&(ready, id, resp)) = self.bresp.front() {
            if cycle >= ready {
                inp.m_axi_bvalid = 1;
                inp.m_axi_bid = id;
                inp.m_axi_bresp = resp;
            }
        }
    }

    /// Take the handshakes of the cycle: `inp` is what [`HostMemory::drive`] drove, `out` the core.
    pub fn clock(&mut self, inp: &PortsIn, out: &PortsOut, cycle: u64) {
        // R
        if inp.m_axi_rvalid == 1 && out.m_axi_rready == 1 {
            self.stats.read_beats += 1;
            let b = self.reads.front_mut().expect("rvalid implies a burst");
            if b.beat == b.len {
                self.reads.pop_front();
                // The next burst may not start before the cycle after this one.
                if let Some(n) = self.reads.front_mut() {
                    n.ready_cycle = n.ready_cycle.max(cycle + 1);
                }
            } else {
                b.beat += 1;
            }
        }
        // AR
        if out.m_axi_arvalid == 1 && inp.m_axi_arready == 1 {
            let burst = out.m_axi_arburst & 3;
            let err = burst == 3 || (1u64 << out.m_axi_arsize) > self.bus_bytes;
            if err {
                self.error(format!(
                    "read burst type {} size {} at {:#x} not allowed",
                    burst, out.m_axi_arsize, out.m_axi_araddr
                ));
            }
            self.reads.push_back(Burst {
                id: out.m_axi_arid,
                addr: out.m_axi_araddr,
                len: out.m_axi_arlen & 0xff,
                size: out.m_axi_arsize.min(6),
                burst,
                beat: 0,
                ready_cycle: cycle + self.read_latency,
                err,
            });
            self.stats.read_bursts += 1;
            if let Some(l) = &mut self.log {
                l.push(Access {
                    cycle,
                    write: false,
                    id: out.m_axi_arid,
                    addr: out.m_axi_araddr,
                    beats: (out.m_axi_arlen & 0xff) + 1,
                });
            }
            self.stats.max_reads_outstanding = self
                .stats
                .max_reads_outstanding
                .max(self.reads.len() as u64);
        }
        // AW, W
        if out.m_axi_awvalid == 1 && inp.m_axi_awready == 1 {
            let burst = out.m_axi_awburst & 3;
            let err = burst == 3 || (1u64 << out.m_axi_awsize) > self.bus_bytes;
            if err {
                self.error(format!(
                    "write burst type {} size {} at {:#x} not allowed",
                    burst, out.m_axi_awsize, out.m_axi_awaddr
                ));
            }
            if let Some(l) = &mut self.log {
                l.push(Access {
                    cycle,
                    write: true,
                    id: out.m_axi_awid,
                    addr: out.m_axi_awaddr,
                    beats: (out.m_axi_awlen & 0xff) + 1,
                });
            }
            self.writes.push_back(Burst {
                id: out.m_axi_awid,
                addr: out.m_axi_awaddr,
                len: out.m_axi_awlen & 0xff,
                size: out.m_axi_awsize.min(6),
                burst,
                beat: 0,
                ready_cycle: 0,
                err,
            });
        }
        if out.m_axi_wvalid == 1 && inp.m_axi_wready == 1 {
            self.wdata.push_back((out.m_axi_wdata, out.m_axi_wstrb));
        }
        while let (Some(b), Some(_)) = (self.writes.front().copied(), self.wdata.front()) {
            let (data, strb) = self.wdata.pop_front().unwrap();
            let (addr, lo, hi) = b.beat_lanes(b.beat, self.bus_bytes);
            let base = addr - (addr % self.bus_bytes);
            let mut err = b.err;
            for lane in lo..hi {
                if strb >> lane & 1 == 1
                    && !self.write_byte(base + lane, wide_byte(&data, lane as usize))
                {
                    err = true;
                }
            }
            if err && !b.err {
                self.error(format!(
                    "write of {:#x} (burst at {:#x}) outside every DMA region",
                    addr, b.addr
                ));
            }
            self.stats.write_beats += 1;
            let head = self.writes.front_mut().unwrap();
            head.err = err;
            if head.beat == head.len {
                let done = self.writes.pop_front().unwrap();
                self.bresp.push_back((
                    cycle + 1 + self.write_latency,
                    done.id,
                    if done.err { RESP_SLVERR } else { RESP_OKAY },
                ));
                self.stats.write_bursts += 1;
            } else {
                head.beat += 1;
            }
        }
        // B
        if inp.m_axi_bvalid == 1 && out.m_axi_bready == 1 {
            self.bresp.pop_front();
        }
    }

    /// Append the state a persistent card keeps (see [`crate::state`]): bursts in flight and the next
    /// device address. Regions, counters and the log belong to the process and are not kept.
    pub(crate) fn save_state(&self, e: &mut crate::state::Enc) {
        e.u64(self.next_iova);
        for q in [&self.reads, &self.writes] {
            e.u64(q.len() as u64);
            for b in q.iter() {
                for v in [b.id, b.addr, b.len, b.size, b.burst, b.beat, b.ready_cycle] {
                    e.u64(v);
                }
                e.bool(b.err);
            }
        }
        e.u64(self.wdata.len() as u64);
        for (data, strb) in &self.wdata {
            for &w in data {
                e.u64(w);
            }
            e.u64(*strb);
        }
        e.u64(self.bresp.len() as u64);
        for &(ready, id, resp) in &self.bresp {
            e.u64(ready);
            e.u64(id);
            e.u64(resp);
        }
    }

    /// Load what [`HostMemory::save_state`] wrote, into a memory with no regions.
    pub(crate) fn restore_state(
        &mut self,
        d: &mut crate::state::Dec<'_>,
    ) -> Result<(), crate::state::StateError> {
        self.next_iova = d.u64("next device address")?.max(IOVA_BASE);
        for write in [false, true] {
            let what = if write { "write bursts" } else { "read bursts" };
            let n = d.count(what, 57)?;
            let mut q = VecDeque::with_capacity(n);
            for _ in 0..n {
                let mut v = [0u64; 7];
                for x in &mut v {
                    *x = d.u64(what)?;
                }
                q.push_back(Burst {
                    id: v[0],
                    addr: v[1],
                    len: v[2] & 0xff,
                    size: v[3].min(6),
                    burst: v[4] & 3,
                    beat: v[5].min(v[2] & 0xff),
                    ready_cycle: v[6],
                    err: d.bool(what)?,
                });
            }
            if write {
                self.writes = q;
            } else {
                self.reads = q;
            }
        }
        let n = d.count("write data", 8 * (WIDE_WORDS + 1))?;
        self.wdata = (0..n)
            .map(|_| {
                let mut data = [0u64; WIDE_WORDS];
                for w in &mut data {
                    *w = d.u64("write data")?;
                }
                Ok((data, d.u64("write strobes")?))
            })
            .collect::<Result<_, crate::state::StateError>>()?;
        let n = d.count("write responses", 24)?;
        self.bresp = (0..n)
            .map(|_| {
                Ok((
                    d.u64("write responses")?,
                    d.u64("write responses")?,
                    d.u64("write responses")?,
                ))
            })
            .collect::<Result<_, crate::state::StateError>>()?;
        Ok(())
    }

    /// True while any read or write is in flight.
    pub fn busy(&self) -> bool {
        !self.reads.is_empty()
            || !self.writes.is_empty()
            || !self.bresp.is_empty()
            || !self.wdata.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Plays the core's AXI4 master side for the tests.
    struct Master {
        inp: PortsIn,
        out: PortsOut,
        cycle: u64,
    }

    impl Master {
        fn new() -> Self {
            Master {
                inp: PortsIn::default(),
                out: PortsOut::default(),
                cycle: 0,
            }
        }
        fn tick(&mut self, m: &mut HostMemory) {
            m.drive(&mut self.inp, self.cycle);
            m.clock(&self.inp, &self.out, self.cycle);
            self.cycle += 1;
        }
        /// Issue one read burst and collect its beats; returns (beats, cycles from AR to first beat).
        fn read(
            &mut self,
            m: &mut HostMemory,
            addr: u64,
            len: u64,
            size: u64,
        ) -> (Vec<([u64; 8], u64)>, u64) {
            self.out.m_axi_araddr = addr;
            self.out.m_axi_arlen = len;
            self.out.m_axi_arsize = size;
            self.out.m_axi_arburst = 1;
            self.out.m_axi_arid = 5;
            self.out.m_axi_arvalid = 1;
            self.out.m_axi_rready = 1;
            let start = self.cycle;
            let mut first = None;
            let mut beats = Vec::new();
            loop {
                m.drive(&mut self.inp, self.cycle);
                if self.inp.m_axi_rvalid == 1 {
                    first.get_or_insert(self.cycle - start);
                    assert_eq!(self.inp.m_axi_rid, 5);
                    beats.push((self.inp.m_axi_rdata, self.inp.m_axi_rresp));
                }
                let last = self.inp.m_axi_rvalid == 1 && self.inp.m_axi_rlast == 1;
                m.clock(&self.inp, &self.out, self.cycle);
                if self.inp.m_axi_arready == 1 {
                    self.out.m_axi_arvalid = 0;
                }
                self.cycle += 1;
                if last {
                    break;
                }
                assert!(self.cycle - start < 10_000, "read never completed");
            }
            (beats, first.unwrap())
        }
        fn write(
            &mut self,
            m: &mut HostMemory,
            addr: u64,
            size: u64,
            beats: &[([u64; 8], u64)],
        ) -> u64 {
            self.out.m_axi_awaddr = addr;
            self.out.m_axi_awlen = beats.len() as u64 - 1;
            self.out.m_axi_awsize = size;
            self.out.m_axi_awburst = 1;
            self.out.m_axi_awvalid = 1;
            self.out.m_axi_bready = 1;
            let mut i = 0;
            loop {
                if i < beats.len() {
                    self.out.m_axi_wvalid = 1;
                    self.out.m_axi_wdata = beats[i].0;
                    self.out.m_axi_wstrb = beats[i].1;
                    self.out.m_axi_wlast = (i == beats.len() - 1) as u64;
                } else {
                    self.out.m_axi_wvalid = 0;
                }
                m.drive(&mut self.inp, self.cycle);
                let b = self.inp.m_axi_bvalid == 1;
                let resp = self.inp.m_axi_bresp;
                m.clock(&self.inp, &self.out, self.cycle);
                if self.inp.m_axi_awready == 1 {
                    self.out.m_axi_awvalid = 0;
                }
                if self.out.m_axi_wvalid == 1 && self.inp.m_axi_wready == 1 {
                    i += 1;
                }
                self.cycle += 1;
                if b {
                    self.out.m_axi_wvalid = 0;
                    return resp;
                }
            }
        }
    }

    #[test]
    fn read_latency_is_configured_and_never_zero() {
        for lat in [0u64, 1, 200] {
            let mut m = HostMemory::new(8, lat, 0);
            let (id, iova) = m.alloc(64);
            m.region_mut(id)[..16].copy_from_slice(&(0u8..16).collect::<Vec<_>>());
            let mut ms = Master::new();
            let (beats, first) = ms.read(&mut m, iova, 1, 3);
            assert_eq!(first, lat.max(1));
            assert_eq!(beats.len(), 2);
            assert_eq!(beats[0].0[0], u64::from_le_bytes([0, 1, 2, 3, 4, 5, 6, 7]));
            assert_eq!(
                beats[1].0[0],
                u64::from_le_bytes([8, 9, 10, 11, 12, 13, 14, 15])
            );
            assert_eq!(beats[0].1, RESP_OKAY);
        }
    }

    #[test]
    fn unaligned_and_wide_reads_use_the_right_lanes() {
        let mut m = HostMemory::new(64, 10, 0);
        let (id, iova) = m.alloc(256);
        for (i, b) in m.region_mut(id).iter_mut().enumerate() {
            *b = i as u8;
        }
        let mut ms = Master::new();
        // Start 5 bytes into the bus word: beat 0 carries lanes 5..64, beat 1 lanes 0..64.
        let (beats, _) = ms.read(&mut m, iova + 5, 1, 6);
        assert_eq!(wide_byte(&beats[0].0, 4), 0);
        assert_eq!(wide_byte(&beats[0].0, 5), 5);
        assert_eq!(wide_byte(&beats[0].0, 63), 63);
        assert_eq!(wide_byte(&beats[1].0, 0), 64);
        assert_eq!(wide_byte(&beats[1].0, 63), 127);
    }

    #[test]
    fn writes_respect_strobes_and_report_errors() {
        let mut m = HostMemory::new(8, 1, 3);
        let (id, iova) = m.alloc(32);
        let mut ms = Master::new();
        let resp = ms.write(
            &mut m,
            iova + 8,
            3,
            &[
                ([0x1122_3344_5566_7788, 0, 0, 0, 0, 0, 0, 0], 0x0f),
                ([u64::MAX, 0, 0, 0, 0, 0, 0, 0], 0xff),
            ],
        );
        assert_eq!(resp, RESP_OKAY);
        assert_eq!(&m.region(id)[8..16], &[0x88, 0x77, 0x66, 0x55, 0, 0, 0, 0]);
        assert_eq!(&m.region(id)[16..24], &[0xff; 8]);
        assert_eq!(m.stats().errors, 0);
        // Past the region's page: the guard page.
        let resp = ms.write(&mut m, iova + PAGE, 3, &[([1, 0, 0, 0, 0, 0, 0, 0], 0xff)]);
        assert_eq!(resp, RESP_SLVERR);
        let (beats, _) = ms.read(&mut m, iova + PAGE + 8, 0, 3);
        assert_eq!(beats[0].1, RESP_SLVERR);
        assert_eq!(m.stats().errors, 2);
        assert!(m
            .first_error()
            .unwrap()
            .contains("outside every DMA region"));
    }

    #[test]
    fn outstanding_reads_overlap_their_latency() {
        let mut m = HostMemory::new(8, 100, 0);
        let (_, iova) = m.alloc(4096);
        let mut ms = Master::new();
        // Four single-beat reads back to back: all four return within latency + 4 cycles.
        ms.out.m_axi_rready = 1;
        let mut got = 0;
        for c in 0..200u64 {
            if c < 4 {
                ms.out.m_axi_arvalid = 1;
                ms.out.m_axi_araddr = iova + 8 * c;
                ms.out.m_axi_arlen = 0;
                ms.out.m_axi_arsize = 3;
                ms.out.m_axi_arburst = 1;
            } else {
                ms.out.m_axi_arvalid = 0;
            }
            ms.tick(&mut m);
            if ms.inp.m_axi_rvalid == 1 {
                got += 1;
                assert!(c <= 104, "beat at cycle {c}");
            }
        }
        assert_eq!(got, 4);
        assert_eq!(m.stats().max_reads_outstanding, 4);
        assert!(!m.busy());
    }
}
