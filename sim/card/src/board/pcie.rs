//! The PCIe hard block's user interfaces, the link and the host behind them, as the board core sees
//! them (docs/ARCHITECTURE.md, "Board co-simulation").
//!
//! **Descriptor formats** (dword-aligned mode, straddle off: the mode tsnic_pcie_us expects), from
//! AMD PG213 (UltraScale+ PCIe, "Completer Request / Completer Completion / Requester Request /
//! Requester Completion Descriptor Format" figures), which the 7-series Gen3 block of the SUME
//! (PG023) shares; tuser at 256 bits as pcie3_7x has it (CQ 85, CC 33, RQ 60, RC 75 bits):
//! - CQ (host to card, BAR0 requests): DW0-1 address (bits 1:0 address type), DW2 dword count
//!   [10:0], request type [14:11] (0 memory read, 1 memory write), requester ID [31:16]; DW3 tag
//!   [7:0], target function [15:8], BAR ID [18:16], BAR aperture [24:19], TC [27:25], attributes
//!   [30:28]; payload from DW4. tuser: first BE [3:0], last BE [7:4], byte enables 4 per dword lane
//!   from bit 8, sop bit 40.
//! - CC (card to host, completions of BAR0 reads): DW0 lower address [6:0], byte count [28:16];
//!   DW1 dword count [10:0], status [13:11]; DW2 tag [7:0]; payload from DW3.
//! - RQ (card to host, DMA): DW0-1 address, DW2 dword count [10:0], request type [14:11]; DW3 tag
//!   [7:0]; payload from DW4; tuser first BE [3:0], last BE [7:4].
//! - RC (host to card, read completions): DW0 lower address [11:0], error code [15:12], byte count
//!   [28:16], request completed [30]; DW1 dword count [10:0], status [13:11], poisoned [14],
//!   requester ID [31:16]; DW2 tag [7:0], completer ID [23:8]; payload from DW3. tuser: byte
//!   enables 4 per dword lane from bit 0, is_sof_0 bit 32, is_eof_0 bit 34 with the last dword lane
//!   in bits 37:35 (the layout cocotbext-pcie's UltraScale model drives at 256 bits).
//!
//! **At 512 bits** (the Alveos' pcie4(c)_uscale_plus, [`PcieConfig::user_bits`] 512; PG213's 512-bit
//! tuser tables, the widths tsnic_alveo_top.v uses: CQ 183, CC 81, RQ 137, RC 161): the descriptors
//! are the same, 16 dword lanes a beat. CQ tuser: first BE [3:0], last BE [11:8], byte enables 4 per
//! dword lane from bit 16, is_sop[0] bit 80, is_eop[0] bit 86 with is_eop0_ptr [91:88]. RQ tuser
//! (what the card sends; tsnic_pcie_us_rd/_wr): first BE [3:0], last BE [11:8], is_sop [21:20],
//! is_eop [27:26], is_eop0_ptr [31:28]. RC tuser: byte enables [63:0], is_sop[0] bit 64, is_eop[0]
//! bit 76 with is_eop0_ptr [83:80]. Straddling stays off, so one TLP per beat at most.
//!
//! **The host.** BAR0 reads and writes of the driver become CQ requests (one dword each, as a CPU's
//! 32-bit MMIO access is); a read returns when its CC completion is back at the host. Writes are
//! posted: they return at once and reach the card in order with everything else sent downstream.
//! A DMA read (RQ memory read) is answered by completions split as a root complex splits them (PCIe
//! Base Specification 3.0, 2.3.1.1): every completion but the last ends on a read completion
//! boundary (RCB) and carries at most [`PcieConfig::cpl_max`] bytes (at most the MPS). The first is
//! ready at the root port [`PcieConfig::read_latency_ns`] minus two link flights after the request
//! reached the host, plus a per-request jitter of 0..=[`PcieConfig::read_jitter_ns`]
//! (deterministic), so completions of different tags come back out of order; those of one tag
//! follow in address order, as the ordering rules require. A read that touches an address outside
//! the driver's DMA mappings gets one completion with status UR (unsupported request), as an IOMMU
//! fault does. DMA writes land in host memory when they arrive; outside the mappings they are
//! dropped and counted (`iommu_faults`). MSI-X messages (the hard block's memory writes for
//! `cfg_interrupt_msix_int`) to the address and data the host programmed are interrupts.
//!
//! **Completion buffer.** The hard block advertises infinite completion credits and keeps received
//! completions in a buffer of [`PcieConfig::cplh_limit`] headers and [`PcieConfig::cpld_limit`]
//! 16-byte data credits until they leave on RC (PG213/PG023, "Managing Receive-Buffer Space for
//! Inbound Completions"). Two counts are kept: what the buffer holds (completions arrived and not
//! yet passed on), and what the card's outstanding reads could make it hold (every completion of
//! every read sent and not yet passed on, as this host splits them): the card must keep the second
//! within the buffer, whatever order and pace the host answers in. Both maxima and any excess are in
//! [`PcieStats`].
//!
//! **The link.** Each direction serialises its TLPs one after another at the link's data rate
//! (Gen3: 8 GT/s per lane, 128b/130b, PCIe 3.0 4.2.2), each TLP costing its header (3 dwords, 4 for
//! a 64-bit address), payload, the 4-byte STP framing token and the 4-byte LCRC (PCIe 3.0 4.2.2.3.1,
//! 3.5.2), with a share of ACK and UpdateFC DLLPs for the TLPs going the other way
//! ([`PcieConfig::dllp_share`] bytes each, 8-byte DLLPs with their SDP token) and SKP ordered sets
//! (one block in every [`PcieConfig::skp_interval`] + 1, PCIe 3.0 4.2.7.3). A TLP reaches the other
//! end [`PcieConfig::flight_ns`] after its last byte left. Bytes and TLPs are counted per direction
//! ([`LinkStats`]). Flow-control credits for posted and non-posted requests are not modelled (the
//! RQ interface is always ready).

use std::collections::VecDeque;

use super::ffi::{BoardIn, BoardOut};
use crate::hostmem::HostMemory;

/// Dword lanes of the 256-bit interfaces (unit tests; the model takes its width from
/// [`PcieConfig::user_bits`]).
#[cfg(test)]
const LANES: usize = 8;

/// The PCIe link, the hard block and the host: every setting with its source.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PcieConfig {
    /// Link width, lanes. Default 8: the SUME's PCIe edge is x8 (board/netfpga_sume/rtl/fpga.v,
    /// `pcie_rx_p[7:0]`; pcie3_7x at 256 bits is Gen3 x8, PG023). The Gen3 x16 is the
    /// Alveos' (512-bit) link.
    pub lanes: u64,
    /// Femtoseconds per byte on one lane: 8 bits at 8 GT/s with 128b/130b coding (Gen3,
    /// PCIe 3.0 4.2.2): 8 * 125 ps * 130 / 128 = 1015.625 ps.
    pub lane_byte_fs: u64,
    /// Max payload size, bytes (device control, fed to `cfg_max_payload`). 256: a typical Xeon root
    /// port (issue 31's defaults).
    pub mps: u64,
    /// Max read request size, bytes (`cfg_max_read_req`). 512 (issue 31's defaults; the Linux
    /// default for a device without its own setting).
    pub mrrs: u64,
    /// Width of the hard block's user interfaces, bits: 256 (the SUME's pcie3_7x, PG023) or 512
    /// (the Alveos' pcie4(c)_uscale_plus at Gen3 x16, PG213), with that width's tuser layout
    /// (module documentation, "At 512 bits").
    pub user_bits: u64,
    /// Read completion boundary of the root complex, bytes. 64 (root ports' RCB, PCIe 3.0 7.8.7).
    pub rcb: u64,
    /// Largest completion payload the root complex sends, bytes (a multiple of the RCB, at most the
    /// MPS). Default the MPS: splits at RCB boundaries, MPS at a time.
    pub cpl_max: u64,
    /// From a read request's RQ handshake to its first completion's RC beat on an idle link, ns
    /// (less serialisation). 800: the core build's host-memory latency (`Config::read_latency_ns`).
    pub read_latency_ns: u64,
    /// Extra delay per read request, 0..=this, deterministic (per-request hash), ns: completions of
    /// different tags come back out of order. 120 (a model choice, not a measurement).
    pub read_jitter_ns: u64,
    /// One-way latency of a TLP after its last byte leaves the link's transmitter (PHY, data link
    /// layer, the far end's pipeline), ns. 150: assumed, not measured (a card must tell).
    pub flight_ns: u64,
    /// Completion buffer headers. 64: the SUME's Gen3 block (board/netfpga_sume/rtl/fpga.v
    /// CPLH_LIMIT, docs/BOARDS.md).
    pub cplh_limit: u64,
    /// Completion buffer data credits (16 bytes). 960 (15360 bytes; fpga.v CPLD_LIMIT, BOARDS.md).
    pub cpld_limit: u64,
    /// The address the host gave BAR0 (1 MiB, PCIe memory space below 4 GiB). Any aligned address.
    pub bar0: u64,
    /// MSI-X message address the host programs (x86: the local APIC's interrupt window at
    /// 0xFEE0_0000, Intel SDM vol. 3 10.11.1).
    pub msi_addr: u64,
    /// MSI-X message data the host programs (a vector number; any value).
    pub msi_data: u32,
    /// Bytes of ACK/UpdateFC DLLPs charged to one direction per TLP of the other: 4 (an 8-byte DLLP
    /// per two TLPs; a model choice).
    pub dllp_share: u64,
    /// Blocks between SKP ordered sets: 370 (Gen3 transmitters send one every 370 to 375 blocks,
    /// PCIe 3.0 4.2.7.3).
    pub skp_interval: u64,
}

impl Default for PcieConfig {
    fn default() -> Self {
        PcieConfig {
            lanes: 8,
            lane_byte_fs: 1_015_625,
            user_bits: 256,
            mps: 256,
            mrrs: 512,
            rcb: 64,
            cpl_max: 256,
            read_latency_ns: 800,
            read_jitter_ns: 120,
            flight_ns: 150,
            cplh_limit: 64,
            cpld_limit: 960,
            bar0: 0xE000_0000,
            msi_addr: 0xFEE0_0000,
            msi_data: 0x41,
            dllp_share: 4,
            skp_interval: 370,
        }
    }
}

impl PcieConfig {
    /// Checks the settings; the message says what is wrong.
    pub fn check(&self) -> Result<(), String> {
        let pow2 = |v: u64, lo: u64, hi: u64| v.is_power_of_two() && (lo..=hi).contains(&v);
        if !pow2(self.mps, 128, 4096) || !pow2(self.mrrs, 128, 4096) {
            return Err("MPS and MRRS must be powers of two from 128 to 4096 bytes".into());
        }
        if self.rcb != 64 && self.rcb != 128 {
            return Err("the RCB is 64 or 128 bytes".into());
        }
        if self.cpl_max < self.rcb
            || self.cpl_max > self.mps
            || !self.cpl_max.is_multiple_of(self.rcb)
        {
            return Err("cpl_max must be a multiple of the RCB no larger than the MPS".into());
        }
        if self.user_bits != 256 && self.user_bits != 512 {
            return Err("the user interfaces are 256 or 512 bits wide".into());
        }
        if !matches!(self.lanes, 1 | 2 | 4 | 8 | 16) || self.lane_byte_fs == 0 {
            return Err("lanes must be 1, 2, 4, 8 or 16".into());
        }
        if !self.bar0.is_multiple_of(1 << 20) || self.skp_interval == 0 {
            return Err("BAR0 must be 1 MiB aligned and skp_interval above 0".into());
        }
        Ok(())
    }

    /// The Alveo boards' hard block and link (pcie4(c)_uscale_plus, PG213): Gen3 x16 behind the
    /// 512-bit user interfaces, the completion buffer of 128 headers and 1920 data credits
    /// (board/common/rtl/tsnic_alveo_top.v CPLH_LIMIT/CPLD_LIMIT, docs/BOARDS.md); the host's
    /// settings as for the SUME.
    pub fn alveo() -> PcieConfig {
        PcieConfig {
            lanes: 16,
            user_bits: 512,
            cplh_limit: 128,
            cpld_limit: 1920,
            ..PcieConfig::default()
        }
    }

    /// Dword lanes of a beat.
    fn dw_lanes(&self) -> usize {
        (self.user_bits / 32) as usize
    }

    fn wide(&self) -> bool {
        self.user_bits == 512
    }

    fn encode(bytes: u64) -> u64 {
        u64::from((bytes / 128).trailing_zeros())
    }
}

/// What one direction of the link carried.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LinkStats {
    /// TLPs sent.
    pub tlps: u64,
    /// Bytes on the link for them: framing, header, payload, LCRC.
    pub tlp_bytes: u64,
    /// Their payload bytes.
    pub payload_bytes: u64,
    /// DLLP bytes charged (ACK/UpdateFC share).
    pub dllp_bytes: u64,
    /// Time the transmitter was busy, ps (SKP ordered sets included).
    pub busy_ps: u64,
}

/// Counters of the hard-block and host model.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PcieStats {
    /// Host to card.
    pub down: LinkStats,
    /// Card to host.
    pub up: LinkStats,
    /// BAR0 requests sent (reads, writes).
    pub bar_reads: u64,
    /// BAR0 writes sent.
    pub bar_writes: u64,
    /// BAR0 completions that were not successful (status not SC).
    pub bar_errors: u64,
    /// DMA read requests from the card.
    pub dma_reads: u64,
    /// Read completions sent.
    pub completions: u64,
    /// Read requests answered UR (outside the DMA mappings).
    pub ur_completions: u64,
    /// DMA write requests from the card.
    pub dma_writes: u64,
    /// DMA writes dropped: outside the DMA mappings.
    pub iommu_faults: u64,
    /// MSI-X messages the host took as its interrupt.
    pub interrupts: u64,
    /// MSI-X requests refused (`cfg_interrupt_msix_fail`: MSI-X off or masked).
    pub msix_fails: u64,
    /// Memory writes into the interrupt window that did not match the programmed message.
    pub stray_msi: u64,
    /// Most completion headers / data credits the buffer held at once.
    pub buf_max_h: u64,
    pub buf_max_d: u64,
    /// Cycles in which the buffer held more than it has (an overrun: the card asked too much).
    pub buf_overruns: u64,
    /// Most completion headers / data credits the outstanding reads could fill.
    pub outstanding_max_h: u64,
    pub outstanding_max_d: u64,
    /// Read requests that took the outstanding completions above the buffer.
    pub outstanding_overruns: u64,
    /// Most read requests outstanding at once (tags in use).
    pub max_tags: u64,
    /// RQ requests of a type this host does not serve (dropped).
    pub bad_requests: u64,
}

/// A TLP direction's serialiser.
#[derive(Debug, Clone, Default)]
struct Link {
    free_fs: u64,
    owed: u64,
    stats: LinkStats,
}

impl Link {
    /// Serialise a TLP of `bytes` (framing included) ready at `ready_ps`; returns when its last
    /// byte has left, ps.
    fn send(&mut self, cfg: &PcieConfig, ready_ps: u64, bytes: u64, payload: u64) -> u64 {
        let dllp = std::mem::take(&mut self.owed);
        let total = bytes + dllp;
        let fs = total * cfg.lane_byte_fs * (cfg.skp_interval + 1) / (cfg.skp_interval * cfg.lanes);
        let start = self.free_fs.max(ready_ps * 1000);
        self.free_fs = start + fs;
        self.stats.tlps += 1;
        self.stats.tlp_bytes += bytes;
        self.stats.payload_bytes += payload;
        self.stats.dllp_bytes += dllp;
        self.stats.busy_ps += fs / 1000;
        self.free_fs.div_ceil(1000)
    }
}

/// Bytes of a TLP on the link: STP token 4, header (3 or 4 dwords), payload, LCRC 4.
fn tlp_bytes(addr64: bool, payload: u64) -> u64 {
    4 + if addr64 { 16 } else { 12 } + payload + 4
}

/// One beat of a 256- or 512-bit stream.
#[derive(Debug, Clone, Copy, Default)]
struct Beat {
    data: [u64; 8],
    keep: u64,
    user: [u64; 2],
    last: bool,
}

/// A TLP as beats, from a list of dwords (descriptor first), with tuser bits per beat.
fn beats(
    lanes: usize,
    dwords: &[u32],
    mut user: impl FnMut(usize, usize, usize) -> [u64; 2],
) -> Vec<Beat> {
    let n = dwords.len().div_ceil(lanes);
    (0..n)
        .map(|b| {
            let chunk = &dwords[b * lanes..((b + 1) * lanes).min(dwords.len())];
            let mut data = [0u64; 8];
            for (i, d) in chunk.iter().enumerate() {
                data[i / 2] |= u64::from(*d) << (32 * (i % 2));
            }
            Beat {
                data,
                keep: (1u64 << chunk.len()) - 1,
                user: user(b, n, chunk.len()),
                last: b + 1 == n,
            }
        })
        .collect()
}

fn dword(data: &[u64], i: usize) -> u32 {
    (data[i / 2] >> (32 * (i % 2))) as u32
}

/// A read completion on its way to the card.
#[derive(Debug, Clone)]
struct Cpl {
    /// When it reaches the hard block, ps.
    arrive_ps: u64,
    beats: Vec<Beat>,
    /// Buffer space it takes: (headers, data credits).
    h: u64,
    d: u64,
}

/// One completion as the host's split plans it.
#[derive(Debug, Clone, Copy)]
struct CplPlan {
    /// First byte's address.
    addr: u64,
    /// Bytes of payload (from `addr`).
    len: u64,
    /// Byte count field: bytes left in the request including these.
    remaining: u64,
    last: bool,
}

/// A read request the host is serving.
#[derive(Debug, Clone)]
struct HostRead {
    ready_ps: u64,
    seq: u64,
    tag: u8,
    plan: Vec<CplPlan>,
    ur: bool,
    addr64: bool,
}

/// A TLP on its way upstream, as the host takes it.
#[derive(Debug, Clone)]
enum Up {
    /// A BAR0 completion: tag, status, data.
    Cc(u8, u8, u32),
    /// A DMA read request reached the host.
    Read(HostRead),
    /// A memory write: address, bytes with their enables.
    Write(u64, Vec<(u8, bool)>),
}

/// The hard block and the host.
pub struct PcieModel {
    cfg: PcieConfig,
    /// Configuration space as the host set it.
    pub bus_master: bool,
    pub msix_enable: bool,
    pub msix_mask: bool,
    down: Link,
    up: Link,
    /// BAR0 requests on their way down: (arrival ps, beats).
    cq: VecDeque<(u64, Vec<Beat>)>,
    cq_beat: usize,
    /// Upstream TLPs: (arrival at the host ps, what).
    host_in: VecDeque<(u64, Up)>,
    /// Reads the host is serving, by ready time.
    reads: Vec<HostRead>,
    read_seq: u64,
    /// Completions on their way to / in the hard block, in arrival order.
    rc: VecDeque<Cpl>,
    rc_beat: usize,
    /// Completions of `rc` counted into the buffer so far.
    rc_arrived: usize,
    buf_h: u64,
    buf_d: u64,
    out_h: u64,
    out_d: u64,
    tags_out: u64,
    /// Outstanding completions per tag (to count tags in use).
    tag_cpls: [u32; 256],
    /// RQ TLP being received: dwords and the first beat's tuser.
    rq_dw: Vec<u32>,
    rq_user: u64,
    /// BAR0 completions back at the host: tag -> (status, data, arrival ps).
    cc_done: Vec<(u8, u8, u32, u64)>,
    cq_tag: u8,
    /// When the card took the last beat of the latest CQ request, and the latest CC completion's, ps.
    cq_taken_ps: u64,
    cc_sent_ps: u64,
    msix_reply: Option<bool>,
    stats: PcieStats,
}

impl PcieModel {
    /// A link up, bus mastering and MSI-X off (the host turns them on).
    pub fn new(cfg: PcieConfig) -> Self {
        PcieModel {
            cfg,
            bus_master: false,
            msix_enable: false,
            msix_mask: false,
            down: Link::default(),
            up: Link::default(),
            cq: VecDeque::new(),
            cq_beat: 0,
            host_in: VecDeque::new(),
            reads: Vec::new(),
            read_seq: 0,
            rc: VecDeque::new(),
            rc_beat: 0,
            rc_arrived: 0,
            buf_h: 0,
            buf_d: 0,
            out_h: 0,
            out_d: 0,
            tags_out: 0,
            tag_cpls: [0; 256],
            rq_dw: Vec::new(),
            rq_user: 0,
            cc_done: Vec::new(),
            cq_tag: 0,
            cq_taken_ps: 0,
            cc_sent_ps: 0,
            msix_reply: None,
            stats: PcieStats::default(),
        }
    }

    /// The settings.
    pub fn config(&self) -> &PcieConfig {
        &self.cfg
    }

    /// Counters.
    pub fn stats(&self) -> PcieStats {
        let mut s = self.stats;
        s.down = self.down.stats;
        s.up = self.up.stats;
        s
    }

    /// MSI-X messages the host took as its interrupt so far.
    pub fn interrupts(&self) -> u64 {
        self.stats.interrupts
    }

    /// True while anything is on its way or being served.
    pub fn busy(&self) -> bool {
        !self.cq.is_empty()
            || !self.host_in.is_empty()
            || !self.reads.is_empty()
            || !self.rc.is_empty()
            || !self.rq_dw.is_empty()
    }

    /// True while an MSI-X message's answer (sent or fail) is owed to the card at the next edge.
    pub fn msix_owed(&self) -> bool {
        self.msix_reply.is_some()
    }

    /// Append what a kept board card keeps of the link and the host ([`crate::state`]), taken when
    /// nothing is in flight ([`PcieModel::busy`] false, no MSI-X answer owed): the configuration
    /// space the host set, each direction's free time and owed DLLP bytes, the host's read sequence
    /// (its jitter) and the next CQ tag. Counters and BAR0 completions not yet taken belong to the
    /// process that drove the card, as the interrupt it did not wait for.
    pub(crate) fn save_state(&self, e: &mut crate::state::Enc) {
        e.bool(self.bus_master);
        e.bool(self.msix_enable);
        e.bool(self.msix_mask);
        for l in [&self.down, &self.up] {
            e.u64(l.free_fs);
            e.u64(l.owed);
        }
        e.u64(self.read_seq);
        e.u8(self.cq_tag);
    }

    /// Load what [`PcieModel::save_state`] wrote into a fresh model.
    pub(crate) fn restore_state(
        &mut self,
        d: &mut crate::state::Dec<'_>,
    ) -> Result<(), crate::state::StateError> {
        self.bus_master = d.bool("bus master enable")?;
        self.msix_enable = d.bool("MSI-X enable")?;
        self.msix_mask = d.bool("MSI-X mask")?;
        for down in [true, false] {
            let l = if down { &mut self.down } else { &mut self.up };
            l.free_fs = d.u64("link free time")?;
            l.owed = d.u64("link DLLP bytes owed")?;
        }
        self.read_seq = d.u64("host read sequence")?;
        self.cq_tag = d.u8("next CQ tag")?;
        Ok(())
    }

    /// A CQ request (one dword at BAR0 `offset`) sent by the host at `now_ps`; returns its tag.
    fn bar_request(&mut self, now_ps: u64, offset: u32, write: Option<u32>) -> u8 {
        let tag = self.cq_tag;
        self.cq_tag = self.cq_tag.wrapping_add(1);
        let addr = self.cfg.bar0 + u64::from(offset & !3);
        let req_type: u32 = if write.is_some() { 1 } else { 0 };
        let mut dw = vec![
            addr as u32 & !3,
            (addr >> 32) as u32,
            1 | (req_type << 11), // 1 dword; requester ID 0 (the root port)
            u32::from(tag) | (20 << 19), // function 0, BAR 0, aperture 2^20
        ];
        if let Some(v) = write {
            dw.push(v);
        }
        let is_write = write.is_some();
        let wide = self.cfg.wide();
        let b = beats(self.cfg.dw_lanes(), &dw, |_, _, cnt| {
            if wide {
                // first BE 0xF, last BE 0 (one dword); byte enables 4 per dword lane from bit 16;
                // is_sop[0] bit 80, is_eop[0] bit 86 with is_eop0_ptr [91:88] the last dword lane
                let mut u = [0xFu64, (1 << 16) | (1 << 22) | (((cnt - 1) as u64) << 24)];
                if is_write {
                    u[0] |= 0xF << (16 + 4 * 4);
                }
                return u;
            }
            // first BE 0xF, last BE 0 (one dword); the payload lane's byte enables; sop
            let mut u = 0xFu64 | (1 << 40);
            if is_write {
                u |= 0xF << (8 + 4 * 4);
            }
            [u, 0]
        });
        let arrive = self.down.send(
            &self.cfg,
            now_ps,
            tlp_bytes(false, 4 * u64::from(is_write)),
            4 * u64::from(is_write),
        ) + self.cfg.flight_ns * 1000;
        self.up.owed += self.cfg.dllp_share;
        self.cq.push_back((arrive, b));
        tag
    }

    /// The host reads BAR0 at `offset`: returns the request's tag ([`PcieModel::take_bar_read`]).
    pub fn bar_read(&mut self, now_ps: u64, offset: u32) -> u8 {
        self.stats.bar_reads += 1;
        self.bar_request(now_ps, offset, None)
    }

    /// The host writes BAR0 (posted).
    pub fn bar_write(&mut self, now_ps: u64, offset: u32, value: u32) {
        self.stats.bar_writes += 1;
        self.bar_request(now_ps, offset, Some(value));
    }

    /// When the card served the latest BAR0 read, ps: from its CQ request's last beat to its CC
    /// completion's handshake (a register the card latches on the read, such as PHC_TIME_LO, was
    /// latched in between). Valid after a read's completion came back with nothing sent since.
    pub fn last_read_served_ps(&self) -> (u64, u64) {
        (self.cq_taken_ps, self.cc_sent_ps)
    }

    /// The completion of BAR0 read `tag` if it is back at the host: (status, data).
    pub fn take_bar_read(&mut self, tag: u8) -> Option<(u8, u32)> {
        let i = self.cc_done.iter().position(|c| c.0 == tag)?;
        let (_, st, data, _) = self.cc_done.remove(i);
        Some((st, data))
    }

    /// Drive the hard block's outputs (the card's inputs) for the PCIe clock edge at `now_ps`.
    pub fn drive(&mut self, inp: &mut BoardIn, now_ps: u64) {
        inp.cfg_bus_master_en = u64::from(self.bus_master);
        inp.cfg_msix_enable = u64::from(self.msix_enable);
        inp.cfg_msix_mask = u64::from(self.msix_mask);
        inp.cfg_max_payload = PcieConfig::encode(self.cfg.mps);
        inp.cfg_max_read_req = PcieConfig::encode(self.cfg.mrrs);
        inp.cc_tready = 1;
        inp.rq_tready = 1;
        inp.cfg_msix_sent = u64::from(self.msix_reply == Some(true));
        inp.cfg_msix_fail = u64::from(self.msix_reply == Some(false));
        self.msix_reply = None;
        // CQ
        match self.cq.front() {
            Some((t, b)) if *t <= now_ps => {
                let beat = b[self.cq_beat];
                inp.cq_tdata = beat.data;
                inp.cq_tkeep = beat.keep;
                inp.cq_tuser[..2].copy_from_slice(&beat.user);
                inp.cq_tlast = u64::from(beat.last);
                inp.cq_tvalid = 1;
            }
            _ => inp.cq_tvalid = 0,
        }
        // RC: the head completion once it has arrived
        while self.rc_arrived < self.rc.len() && self.rc[self.rc_arrived].arrive_ps <= now_ps {
            let c = &self.rc[self.rc_arrived];
            self.buf_h += c.h;
            self.buf_d += c.d;
            self.rc_arrived += 1;
        }
        self.stats.buf_max_h = self.stats.buf_max_h.max(self.buf_h);
        self.stats.buf_max_d = self.stats.buf_max_d.max(self.buf_d);
        if self.buf_h > self.cfg.cplh_limit || self.buf_d > self.cfg.cpld_limit {
            self.stats.buf_overruns += 1;
        }
        if self.rc_arrived > 0 {
            let beat = self.rc[0].beats[self.rc_beat];
            inp.rc_tdata = beat.data;
            inp.rc_tkeep = beat.keep;
            inp.rc_tuser[..2].copy_from_slice(&beat.user);
            inp.rc_tlast = u64::from(beat.last);
            inp.rc_tvalid = 1;
        } else {
            inp.rc_tvalid = 0;
        }
    }

    /// The handshakes of the PCIe clock edge at `now_ps` (`inp` as driven, `out` before the edge),
    /// and the host's work up to then.
    pub fn clock(&mut self, inp: &BoardIn, out: &BoardOut, now_ps: u64, mem: &mut HostMemory) {
        if inp.cq_tvalid == 1 && out.cq_tready == 1 {
            self.cq_beat += 1;
            if inp.cq_tlast == 1 {
                self.cq.pop_front();
                self.cq_beat = 0;
                self.cq_taken_ps = now_ps;
            }
        }
        if inp.rc_tvalid == 1 && out.rc_tready == 1 {
            self.rc_beat += 1;
            if inp.rc_tlast == 1 {
                let c = self.rc.pop_front().expect("a completion was presented");
                self.rc_arrived -= 1;
                self.rc_beat = 0;
                self.buf_h -= c.h;
                self.buf_d -= c.d;
                self.out_h -= c.h;
                self.out_d -= c.d;
                let tag = dword(&c.beats[0].data, 2) as u8;
                self.tag_cpls[tag as usize] -= 1;
                if self.tag_cpls[tag as usize] == 0 {
                    self.tags_out -= 1;
                }
            }
        }
        if out.cc_tvalid == 1 && inp.cc_tready == 1 {
            self.cc_sent_ps = now_ps;
            // one-beat completions of one-dword reads (tsnic_pcie_us_axil)
            let d = &out.cc_tdata;
            let status = ((dword(d, 1) >> 11) & 7) as u8;
            let tag = dword(d, 2) as u8;
            let data = dword(d, 3);
            let payload = 4 * u64::from(dword(d, 1) & 0x7FF);
            let arrive = self
                .up
                .send(&self.cfg, now_ps, tlp_bytes(false, payload), payload)
                + self.cfg.flight_ns * 1000;
            self.down.owed += self.cfg.dllp_share;
            self.host_in.push_back((arrive, Up::Cc(tag, status, data)));
        }
        if out.rq_tvalid == 1 && inp.rq_tready == 1 {
            if self.rq_dw.is_empty() {
                self.rq_user = out.rq_tuser[0];
            }
            for i in 0..self.cfg.dw_lanes() {
                if out.rq_tkeep >> i & 1 == 1 {
                    self.rq_dw.push(dword(&out.rq_tdata, i));
                }
            }
            if out.rq_tlast == 1 {
                let dw = std::mem::take(&mut self.rq_dw);
                self.request(now_ps, &dw, self.rq_user);
            }
        }
        if out.msix_int == 1 {
            if self.msix_enable && !self.msix_mask {
                let payload = 4;
                let addr64 = out.msix_address >> 32 != 0;
                let arrive = self
                    .up
                    .send(&self.cfg, now_ps, tlp_bytes(addr64, payload), payload)
                    + self.cfg.flight_ns * 1000;
                self.down.owed += self.cfg.dllp_share;
                let bytes = (out.msix_data as u32)
                    .to_le_bytes()
                    .iter()
                    .map(|&b| (b, true))
                    .collect();
                self.host_in
                    .push_back((arrive, Up::Write(out.msix_address, bytes)));
                self.msix_reply = Some(true);
            } else {
                self.stats.msix_fails += 1;
                self.msix_reply = Some(false);
            }
        }
        self.host(now_ps, mem);
    }

    /// An RQ TLP from the card, whole.
    fn request(&mut self, now_ps: u64, dw: &[u32], user: u64) {
        if dw.len() < 4 {
            self.stats.bad_requests += 1;
            return;
        }
        let addr = (u64::from(dw[1]) << 32) | u64::from(dw[0] & !3);
        let dwords = u64::from(dw[2] & 0x7FF).max(1);
        let req_type = (dw[2] >> 11) & 0xF;
        let tag = dw[3] as u8;
        let fbe = (user & 0xF) as u8;
        // last BE: bits 7:4 at 256 bits, 11:8 at 512 (PG213: first_be[7:0], last_be[15:8], two
        // TLPs' worth)
        let lbe = ((user >> if self.cfg.wide() { 8 } else { 4 }) & 0xF) as u8;
        let addr64 = addr >> 32 != 0;
        match req_type {
            0 => {
                self.stats.dma_reads += 1;
                // first byte and byte count from the byte enables (PCIe 3.0 2.3.1.1, table 2-21)
                let (first, count) = if dwords == 1 {
                    let f = u64::from(fbe.trailing_zeros().min(4));
                    let l = 4 - u64::from(fbe.leading_zeros().saturating_sub(4).min(4));
                    (f, l.saturating_sub(f).max(1))
                } else {
                    let f = u64::from(fbe.trailing_zeros().min(3));
                    let l = u64::from(lbe.leading_zeros().saturating_sub(4).min(3));
                    (f, dwords * 4 - f - l)
                };
                let start = addr + first;
                let plan = self.split(start, count);
                let (h, d) = plan.iter().fold((0, 0), |(h, d), c| {
                    (h + 1, d + ((c.addr & 3) + c.len).div_ceil(4).div_ceil(4))
                });
                self.out_h += h;
                self.out_d += d;
                self.stats.outstanding_max_h = self.stats.outstanding_max_h.max(self.out_h);
                self.stats.outstanding_max_d = self.stats.outstanding_max_d.max(self.out_d);
                if self.out_h > self.cfg.cplh_limit || self.out_d > self.cfg.cpld_limit {
                    self.stats.outstanding_overruns += 1;
                }
                let arrive = self.up.send(&self.cfg, now_ps, tlp_bytes(addr64, 0), 0)
                    + self.cfg.flight_ns * 1000;
                self.down.owed += self.cfg.dllp_share;
                let seq = self.read_seq;
                self.read_seq += 1;
                // the host's own time: the rest of the read latency after two flights
                let host_ns = self
                    .cfg
                    .read_latency_ns
                    .saturating_sub(2 * self.cfg.flight_ns);
                let jitter = jitter_ns(seq, self.cfg.read_jitter_ns);
                self.host_in.push_back((
                    arrive,
                    Up::Read(HostRead {
                        ready_ps: arrive + (host_ns + jitter) * 1000,
                        seq,
                        tag,
                        plan,
                        ur: false,
                        addr64,
                    }),
                ));
            }
            1 => {
                self.stats.dma_writes += 1;
                let payload = &dw[4..];
                let mut bytes = Vec::with_capacity(payload.len() * 4);
                for (i, d) in payload.iter().enumerate().take(dwords as usize) {
                    let be = if i == 0 {
                        fbe
                    } else if i + 1 == dwords as usize {
                        lbe
                    } else {
                        0xF
                    };
                    for (k, b) in d.to_le_bytes().iter().enumerate() {
                        bytes.push((*b, be >> k & 1 == 1));
                    }
                }
                let n = 4 * dwords;
                let arrive = self.up.send(&self.cfg, now_ps, tlp_bytes(addr64, n), n)
                    + self.cfg.flight_ns * 1000;
                self.down.owed += self.cfg.dllp_share;
                self.host_in.push_back((arrive, Up::Write(addr, bytes)));
            }
            _ => self.stats.bad_requests += 1,
        }
    }

    /// Completions of a read of `count` bytes from `start` (PCIe 3.0 2.3.1.1): each but the last
    /// ends on an RCB boundary, none carries more than `cpl_max` bytes.
    fn split(&self, start: u64, count: u64) -> Vec<CplPlan> {
        let end = start + count;
        let mut plan = Vec::new();
        let mut pos = start;
        while pos < end {
            let cap = ((pos & !3) + self.cfg.cpl_max) & !(self.cfg.rcb - 1);
            let stop = end.min(cap.max(pos + 1));
            plan.push(CplPlan {
                addr: pos,
                len: stop - pos,
                remaining: end - pos,
                last: stop == end,
            });
            pos = stop;
        }
        plan
    }

    /// The host's side up to `now_ps`: upstream TLPs that arrived, and reads whose completions are
    /// due go onto the downstream link.
    fn host(&mut self, now_ps: u64, mem: &mut HostMemory) {
        while self.host_in.front().is_some_and(|(t, _)| *t <= now_ps) {
            let (t, up) = self.host_in.pop_front().expect("checked");
            match up {
                Up::Cc(tag, st, data) => {
                    if st != 0 {
                        self.stats.bar_errors += 1;
                    }
                    self.cc_done.push((tag, st, data, t));
                }
                Up::Read(mut r) => {
                    let mut buf = vec![0u8; r.plan.iter().map(|c| c.len).sum::<u64>() as usize];
                    r.ur = !mem.read_at(r.plan[0].addr, &mut buf);
                    self.reads.push(r);
                }
                Up::Write(addr, bytes) => {
                    if addr & !0xF_FFFF == self.cfg.msi_addr & !0xF_FFFF {
                        // the interrupt window: an MSI-X message
                        let mut d = [0u8; 4];
                        for (i, (b, _)) in bytes.iter().take(4).enumerate() {
                            d[i] = *b;
                        }
                        if addr == self.cfg.msi_addr && u32::from_le_bytes(d) == self.cfg.msi_data {
                            self.stats.interrupts += 1;
                        } else {
                            self.stats.stray_msi += 1;
                        }
                        continue;
                    }
                    let mut fault = false;
                    for (i, (b, en)) in bytes.iter().enumerate() {
                        if *en {
                            fault |= !mem.write_at(addr + i as u64, &[*b]);
                        }
                    }
                    if fault {
                        self.stats.iommu_faults += 1;
                    }
                }
            }
        }
        // reads due, in ready order (ties in request order)
        if self.reads.iter().any(|r| r.ready_ps <= now_ps) {
            self.reads.sort_by_key(|r| (r.ready_ps, r.seq));
            let n = self
                .reads
                .iter()
                .take_while(|r| r.ready_ps <= now_ps)
                .count();
            let due: Vec<HostRead> = self.reads.drain(..n).collect();
            for r in due {
                self.complete(r, mem);
            }
        }
    }

    /// Put a read's completions on the downstream link.
    fn complete(&mut self, r: HostRead, mem: &mut HostMemory) {
        let _ = r.addr64;
        if self.tag_cpls[r.tag as usize] == 0 {
            self.tags_out += 1;
            self.stats.max_tags = self.stats.max_tags.max(self.tags_out);
        }
        if r.ur {
            // one UR completion ends the request (the outstanding space the plan reserved is
            // given back as if it had come)
            self.stats.ur_completions += 1;
            let (h_all, d_all) = r.plan.iter().fold((0, 0), |(h, d), c| {
                (h + 1, d + ((c.addr & 3) + c.len).div_ceil(4).div_ceil(4))
            });
            self.out_h -= h_all - 1;
            self.out_d -= d_all;
            let c0 = r.plan[0];
            let desc = [
                (c0.addr & 0xFFF) as u32 | ((c0.remaining as u32 & 0x1FFF) << 16) | (1 << 30),
                (1 << 11) | (0x0100 << 16), // dword count 0, status UR, requester 01:00.0
                u32::from(r.tag),
            ];
            self.push_cpl(r.ready_ps, &desc, &[], c0.addr, 0, 0, 0);
            return;
        }
        for c in &r.plan {
            let a0 = c.addr & !3;
            let ndw = ((c.addr & 3) + c.len).div_ceil(4);
            let mut buf = vec![0u8; (ndw * 4) as usize];
            // (mapped: checked for the whole request when it arrived)
            let _ = mem.read_at(a0, &mut buf);
            let payload: Vec<u32> = buf
                .chunks(4)
                .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect();
            let desc = [
                (c.addr & 0xFFF) as u32
                    | ((c.remaining as u32 & 0x1FFF) << 16)
                    | (u32::from(c.last) << 30),
                ndw as u32 | (0x0100 << 16), // status SC, requester 01:00.0
                u32::from(r.tag),            // completer 00:00.0
            ];
            let first = c.addr & 3;
            let last_byte = (c.addr + c.len - 1) & 3;
            self.push_cpl(
                r.ready_ps,
                &desc,
                &payload,
                c.addr,
                first,
                ndw.div_ceil(4),
                last_byte,
            );
        }
    }

    /// One completion onto the downstream link and into the queue of the hard block.
    #[allow(clippy::too_many_arguments)]
    fn push_cpl(
        &mut self,
        ready_ps: u64,
        desc: &[u32; 3],
        payload: &[u32],
        _addr: u64,
        first: u64,
        d_credits: u64,
        last_byte: u64,
    ) {
        self.stats.completions += 1;
        let tag = desc[2] as u8;
        self.tag_cpls[tag as usize] += 1;
        let mut dw: Vec<u32> = desc.to_vec();
        dw.extend_from_slice(payload);
        let np = payload.len();
        let lanes = self.cfg.dw_lanes();
        let wide = self.cfg.wide();
        let b = beats(lanes, &dw, |b, n, cnt| {
            let mut u = [0u64; 2];
            for lane in 0..cnt {
                let i = b * lanes + lane; // dword index in the TLP
                if i < 3 || np == 0 {
                    continue;
                }
                let p = i - 3;
                let mut be = 0xFu64;
                if p == 0 {
                    be &= 0xF << first;
                }
                if p + 1 == np {
                    be &= 0xF >> (3 - last_byte);
                }
                u[0] |= be << (4 * lane);
            }
            if wide {
                // 512 bits (PG213): byte_en [63:0], is_sop[0] bit 64, is_eop[0] bit 76 with
                // is_eop0_ptr [83:80] the last dword lane
                if b == 0 {
                    u[1] |= 1;
                }
                if b + 1 == n {
                    u[1] |= (1 << 12) | (((cnt - 1) as u64) << 16);
                }
                return u;
            }
            if b == 0 {
                u[0] |= 1 << 32; // is_sof_0
            }
            if b + 1 == n {
                u[0] |= (1 << 34) | (((cnt - 1) as u64) << 35); // is_eof_0, last lane
            }
            u
        });
        let bytes = 4 * np as u64;
        let arrive = self
            .down
            .send(&self.cfg, ready_ps, tlp_bytes(false, bytes), bytes)
            + self.cfg.flight_ns * 1000;
        self.up.owed += self.cfg.dllp_share;
        self.rc.push_back(Cpl {
            arrive_ps: arrive,
            beats: b,
            h: 1,
            d: d_credits,
        });
    }
}

/// The jitter of read request `seq`: a fixed hash of it, 0..=max ns.
fn jitter_ns(seq: u64, max: u64) -> u64 {
    if max == 0 {
        return 0;
    }
    let mut x = seq.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (x ^ (x >> 31)) % (max + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model() -> PcieModel {
        PcieModel::new(PcieConfig::default())
    }

    #[test]
    fn defaults_check() {
        assert!(PcieConfig::default().check().is_ok());
        let bad = PcieConfig {
            cpl_max: 96,
            ..PcieConfig::default()
        };
        assert!(bad.check().is_err());
        assert_eq!(PcieConfig::encode(256), 1);
        assert_eq!(PcieConfig::encode(512), 2);
    }

    #[test]
    fn split_ends_on_rcb_boundaries_and_caps_at_mps() {
        let m = model();
        // aligned 512 bytes: two MPS-sized completions
        let p = m.split(0x1000, 512);
        assert_eq!(
            p.iter()
                .map(|c| (c.addr, c.len, c.remaining, c.last))
                .collect::<Vec<_>>(),
            vec![(0x1000, 256, 512, false), (0x1100, 256, 256, true)]
        );
        // unaligned: the first ends on the last RCB boundary within the MPS
        let p = m.split(0x1020, 512);
        assert_eq!(
            p.iter().map(|c| (c.addr, c.len)).collect::<Vec<_>>(),
            vec![(0x1020, 224), (0x1100, 256), (0x1200, 32)]
        );
        for c in &p[..p.len() - 1] {
            assert_eq!((c.addr + c.len) % 64, 0);
        }
        // completions of one RCB each when the root complex sends no more
        let m = PcieModel::new(PcieConfig {
            cpl_max: 64,
            ..PcieConfig::default()
        });
        let p = m.split(0x1030, 100);
        assert_eq!(
            p.iter().map(|c| (c.addr, c.len)).collect::<Vec<_>>(),
            vec![(0x1030, 16), (0x1040, 64), (0x1080, 20)]
        );
    }

    #[test]
    fn link_counts_framing_and_serialises() {
        let cfg = PcieConfig::default();
        let mut l = Link::default();
        // a 4-dword-header write of 256 bytes: 4 + 16 + 256 + 4 = 280 bytes at x8 Gen3
        let end = l.send(&cfg, 0, tlp_bytes(true, 256), 256);
        // 280 * 1015.625 / 8 ps * 371/370 = 35,651 ps (rounded up)
        assert_eq!(end, (280u64 * 1_015_625 * 371 / (370 * 8)).div_ceil(1000));
        let end2 = l.send(&cfg, 0, tlp_bytes(false, 0), 0);
        assert!(end2 > end, "the second TLP waits for the first");
        assert_eq!(l.stats.tlps, 2);
        assert_eq!(l.stats.tlp_bytes, 280 + 20);
        assert_eq!(l.stats.payload_bytes, 256);
    }

    /// RQ TLP beats from the card (`dwords`: descriptor and payload) followed by `cycles` idle
    /// PCIe clock cycles; returns the RC completions the model presented meanwhile (each taken at
    /// once, as tsnic_pcie_us_rd does), as dwords.
    fn rq(
        m: &mut PcieModel,
        mem: &mut HostMemory,
        t: &mut u64,
        dwords: &[u32],
        fbe: u64,
        lbe: u64,
        cycles: u64,
    ) -> Vec<Vec<u32>> {
        let mut tlps = Vec::new();
        let mut cur: Vec<u32> = Vec::new();
        let chunks: Vec<&[u32]> = dwords.chunks(LANES).collect();
        for i in 0..chunks.len() as u64 + cycles {
            let mut inp = BoardIn::default();
            m.drive(&mut inp, *t);
            let mut out = BoardOut {
                rc_tready: 1,
                cq_tready: 1,
                ..BoardOut::default()
            };
            if let Some(c) = chunks.get(i as usize) {
                for (k, d) in c.iter().enumerate() {
                    out.rq_tdata[k / 2] |= u64::from(*d) << (32 * (k % 2));
                }
                out.rq_tkeep = (1 << c.len()) - 1;
                out.rq_tvalid = 1;
                out.rq_tlast = u64::from(i as usize + 1 == chunks.len());
                out.rq_tuser[0] = fbe | lbe << 4;
            }
            if inp.rc_tvalid == 1 {
                for k in 0..LANES {
                    if inp.rc_tkeep >> k & 1 == 1 {
                        cur.push(dword(&inp.rc_tdata, k));
                    }
                }
                if inp.rc_tlast == 1 {
                    tlps.push(std::mem::take(&mut cur));
                }
            }
            m.clock(&inp, &out, *t, mem);
            *t += 4000;
        }
        tlps
    }

    fn read_desc(addr: u64, dwords: u32, tag: u8) -> Vec<u32> {
        vec![addr as u32, (addr >> 32) as u32, dwords, u32::from(tag)]
    }

    /// The 512-bit layouts (PG213): a BAR0 write's CQ beat and a read's RC completions, and an RQ
    /// write's last BE taken from tuser bits 11:8.
    #[test]
    fn at_512_bits_the_tuser_layouts_are_pg213s() {
        let mut m = PcieModel::new(PcieConfig::alveo());
        m.bus_master = true;
        let mut mem = HostMemory::new(32, 1, 0);
        let (id, iova) = mem.alloc(4096);
        for (i, b) in mem.region_mut(id).iter_mut().enumerate() {
            *b = i as u8;
        }
        // CQ: a one-dword write, 5 dwords in one beat
        m.bar_write(0, 0x10, 0xDEAD_BEEF);
        let (mut t, mut cq) = (0u64, None);
        // (dwords, first beat's tuser, last beat's tuser)
        let mut cpls: Vec<(Vec<u32>, [u64; 2], [u64; 2])> = Vec::new();
        let mut cur: Vec<u32> = Vec::new();
        let mut first_user = [0u64; 2];
        let mut sent_read = false;
        while t < 4_000_000 {
            let mut inp = BoardIn::default();
            m.drive(&mut inp, t);
            let mut out = BoardOut {
                cq_tready: 1,
                rc_tready: 1,
                ..BoardOut::default()
            };
            if inp.cq_tvalid == 1 && cq.is_none() {
                cq = Some((inp.cq_tuser, inp.cq_tkeep, dword(&inp.cq_tdata, 4)));
            }
            if inp.rc_tvalid == 1 {
                if cur.is_empty() {
                    first_user = [inp.rc_tuser[0], inp.rc_tuser[1]];
                }
                for k in 0..16 {
                    if inp.rc_tkeep >> k & 1 == 1 {
                        cur.push(dword(&inp.rc_tdata, k));
                    }
                }
                if inp.rc_tlast == 1 {
                    cpls.push((
                        std::mem::take(&mut cur),
                        first_user,
                        [inp.rc_tuser[0], inp.rc_tuser[1]],
                    ));
                }
            }
            if !sent_read {
                // RQ: a read of 100 bytes from iova + 2 (first BE 0xC, last BE 0x3 at bits 11:8)
                let d = read_desc(iova, 26, 5);
                for (k, w) in d.iter().enumerate() {
                    out.rq_tdata[k / 2] |= u64::from(*w) << (32 * (k % 2));
                }
                out.rq_tkeep = 0xF;
                out.rq_tvalid = 1;
                out.rq_tlast = 1;
                out.rq_tuser[0] = 0xC | (0x3 << 8) | (1 << 20) | (1 << 26) | (3 << 28);
                sent_read = true;
            }
            m.clock(&inp, &out, t, &mut mem);
            t += 4000;
        }
        let (u, keep, data) = cq.expect("a CQ beat");
        assert_eq!(keep, 0x1F);
        assert_eq!(data, 0xDEAD_BEEF);
        assert_eq!(u[0] & 0xFFFF, 0xF, "first BE 0xF, last BE 0");
        assert_eq!(
            u[0] >> 16 & 0xF_FFFF,
            0xF << 16,
            "byte enables of dword lane 4"
        );
        assert_eq!(u[1] >> 16 & 1, 1, "is_sop[0] (bit 80)");
        assert_eq!(u[1] >> 22 & 1, 1, "is_eop[0] (bit 86)");
        assert_eq!(u[1] >> 24 & 0xF, 4, "is_eop0_ptr (bits 91:88)");
        // RC: 100 bytes from offset 2, one completion (within the MPS, ending the request): 26
        // payload dwords behind the 3-dword descriptor, two beats (16 + 13 dwords)
        assert_eq!(cpls.len(), 1, "{cpls:x?}");
        let (dw, first, last) = &cpls[0];
        assert_eq!(dw[1] & 0x7FF, 26);
        assert_eq!(dw[0] & 0xFFF, 2, "lower address");
        assert_eq!(dw[0] >> 16 & 0x1FFF, 100, "byte count");
        assert_eq!(dw.len(), 29);
        assert_eq!(dw[3], 0x0302_0100);
        assert_eq!(first[1] & 1, 1, "is_sop[0] (bit 64) on the first beat");
        assert_eq!(first[1] >> 12 & 1, 0, "no is_eop on the first beat");
        assert_eq!(last[1] & 1, 0, "no is_sop on the last beat");
        assert_eq!(last[1] >> 12 & 1, 1, "is_eop[0] (bit 76)");
        assert_eq!(
            last[1] >> 16 & 0xF,
            12,
            "is_eop0_ptr (bits 83:80): dword lane 12"
        );
        // byte enables [63:0]: the descriptor's lanes none, the first payload dword (lane 3)
        // bytes 2..3, then whole dwords; the last (lane 12 of the second beat) bytes 0..1
        assert_eq!(first[0] & 0xFFFF, 0xC000);
        assert_eq!(first[0] >> 16, 0xFFFF_FFFF_FFFF);
        assert_eq!(last[0], 0x3_FFFF_FFFF_FFFF);
        assert_eq!(m.stats().dma_reads, 1);
    }

    #[test]
    fn reads_are_split_answered_with_data_and_tags_come_back_out_of_order() {
        let mut m = model();
        m.bus_master = true;
        let mut mem = HostMemory::new(32, 1, 0);
        let (id, iova) = mem.alloc(8192);
        for (i, b) in mem.region_mut(id).iter_mut().enumerate() {
            *b = (i * 7) as u8;
        }
        let mut t = 0;
        // 8 reads of 512 bytes from an offset of 0x20, tags 0..7, one per cycle
        let mut all = Vec::new();
        for tag in 0..8u8 {
            let d = read_desc(iova + 0x20 + 512 * u64::from(tag), 128, tag);
            all.extend(rq(&mut m, &mut mem, &mut t, &d, 0xF, 0xF, 0));
        }
        all.extend(rq(&mut m, &mut mem, &mut t, &[], 0, 0, 2000));
        assert!(!m.busy());
        // three completions each (224, 256, 32 bytes), 24 in all
        assert_eq!(all.len(), 24);
        let mut first_seen: Vec<u8> = Vec::new();
        for c in &all {
            if !first_seen.contains(&(c[2] as u8)) {
                first_seen.push(c[2] as u8);
            }
        }
        assert_ne!(
            first_seen,
            (0..8).collect::<Vec<u8>>(),
            "tags came back in request order"
        );
        for tag in 0..8u8 {
            let cpls: Vec<&Vec<u32>> = all.iter().filter(|c| c[2] as u8 == tag).collect();
            let base = iova + 0x20 + 512 * u64::from(tag);
            let mut addr = base;
            let mut data = Vec::new();
            for (k, c) in cpls.iter().enumerate() {
                let lower = u64::from(c[0] & 0xFFF);
                let byte_count = u64::from((c[0] >> 16) & 0x1FFF);
                let done = c[0] >> 30 & 1 == 1;
                let ndw = c[1] & 0x7FF;
                assert_eq!(
                    lower,
                    addr & 0xFFF,
                    "tag {tag} completion {k}: lower address"
                );
                assert_eq!(
                    byte_count,
                    base + 512 - addr,
                    "tag {tag} completion {k}: byte count"
                );
                assert_eq!((c[1] >> 11) & 7, 0, "status SC");
                assert_eq!(done, k + 1 == cpls.len());
                assert_eq!(c.len() as u32, 3 + ndw);
                for d in &c[3..] {
                    data.extend_from_slice(&d.to_le_bytes());
                }
                addr += u64::from(ndw) * 4;
                if k + 1 < cpls.len() {
                    assert_eq!(addr % 64, 0, "tag {tag} completion {k} ends off the RCB");
                }
            }
            let off = (base - iova) as usize;
            assert_eq!(
                data,
                mem.region(id)[off..off + 512].to_vec(),
                "tag {tag} data"
            );
        }
        let s = m.stats();
        assert_eq!((s.dma_reads, s.completions, s.ur_completions), (8, 24, 0));
        assert_eq!((s.buf_overruns, s.outstanding_overruns), (0, 0));
        assert!(s.max_tags >= 2);
        assert_eq!((s.up.tlps, s.down.tlps), (8, 24));
        assert_eq!(s.down.payload_bytes, 8 * 512);
    }

    #[test]
    fn unmapped_reads_get_ur_and_unmapped_writes_are_faults() {
        let mut m = model();
        m.bus_master = true;
        let mut mem = HostMemory::new(32, 1, 0);
        let (_, iova) = mem.alloc(4096);
        let mut t = 0;
        // a read running past the end of the region (into the guard page)
        let d = read_desc(iova + 4096 - 64, 32, 5);
        let mut c = rq(&mut m, &mut mem, &mut t, &d, 0xF, 0xF, 600);
        assert_eq!(c.len(), 1);
        let c = c.remove(0);
        assert_eq!((c[1] >> 11) & 7, 1, "status UR");
        assert_eq!(c[0] >> 30 & 1, 1, "the UR completion ends the request");
        assert_eq!((c[1] & 0x7FF, c[2] as u8), (0, 5));
        // a write of two dwords into the guard page: dropped and counted
        let g = iova + 4096;
        let w = vec![g as u32, (g >> 32) as u32, 2 | 1 << 11, 0, 1, 2];
        rq(&mut m, &mut mem, &mut t, &w, 0xF, 0xF, 200);
        // and one inside: lands, byte enables kept (the first dword's low byte only)
        let w = vec![
            iova as u32,
            (iova >> 32) as u32,
            2 | 1 << 11,
            0,
            0x1122_3344,
            0x5566_7788,
        ];
        rq(&mut m, &mut mem, &mut t, &w, 0x1, 0xF, 200);
        let s = m.stats();
        assert_eq!((s.ur_completions, s.iommu_faults, s.dma_writes), (1, 1, 2));
        let mut b = [0u8; 8];
        assert!(mem.read_at(iova, &mut b));
        assert_eq!(b, [0x44, 0, 0, 0, 0x88, 0x77, 0x66, 0x55]);
    }

    #[test]
    fn msix_messages_become_interrupts_only_when_enabled() {
        let mut m = model();
        let mut mem = HostMemory::new(32, 1, 0);
        let mut t = 0;
        let cfg = *m.config();
        let mut send = |m: &mut PcieModel, t: &mut u64, data: u64| -> (u64, u64) {
            let (mut sent, mut fail) = (0, 0);
            for i in 0..200 {
                let mut inp = BoardIn::default();
                m.drive(&mut inp, *t);
                sent += inp.cfg_msix_sent;
                fail += inp.cfg_msix_fail;
                let out = BoardOut {
                    msix_int: u64::from(i == 0),
                    msix_address: cfg.msi_addr,
                    msix_data: data,
                    ..BoardOut::default()
                };
                m.clock(&inp, &out, *t, &mut mem);
                *t += 4000;
            }
            (sent, fail)
        };
        // MSI-X off: the hard block refuses it
        assert_eq!(send(&mut m, &mut t, u64::from(cfg.msi_data)), (0, 1));
        assert_eq!(m.stats().interrupts, 0);
        m.msix_enable = true;
        assert_eq!(send(&mut m, &mut t, u64::from(cfg.msi_data)), (1, 0));
        // another message data is not the host's interrupt
        assert_eq!(send(&mut m, &mut t, 0x99), (1, 0));
        let s = m.stats();
        assert_eq!((s.interrupts, s.stray_msi, s.msix_fails), (1, 1, 1));
        assert_eq!(s.up.tlps, 2);
    }

    #[test]
    fn jitter_is_deterministic_and_spread() {
        let v: Vec<u64> = (0..64).map(|s| jitter_ns(s, 120)).collect();
        assert_eq!(v, (0..64).map(|s| jitter_ns(s, 120)).collect::<Vec<_>>());
        assert!(v.iter().all(|&j| j <= 120));
        assert!(v.iter().collect::<std::collections::BTreeSet<_>>().len() > 32);
    }
}
