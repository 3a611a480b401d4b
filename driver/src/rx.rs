//! The receive side: RX queues with recycled buffers, the steering table, RX completions with the
//! card's arrival timestamps (contract blocks RX and RXQ, records `RxDescriptor` / `RxCompletion`).
//!
//! - [`RxCaps::read`] checks `CAP_FEATURES.RX_PATH` and reads the RX block's identity registers.
//! - [`RxQueue`]: a descriptor ring, a completion ring of the same size (completion `i` answers
//!   descriptor `i`) and one buffer per ring slot. The ring is kept full: every slot holds a posted
//!   buffer. [`RxQueue::poll`] takes each valid completion (phase bit of its last dword first, then
//!   the rest after an acquire fence), copies the frame out of its buffer and posts the same buffer
//!   again at the producer index (buffer recycling), then rings the doorbell once per poll. A
//!   completion whose ring index is not the expected one is an error (card or driver bug), never
//!   skipped.
//! - [`rx_enable`], [`set_rx_lat_comp_ns`], [`set_default_queue`], [`steer_set`], [`steer_clear`]: the
//!   RX block.
//!
//! Frames the card could not deliver (no posted buffer, on-card buffer full, RX disabled) are
//! counted by the card ([`RxQueueCounters`], the RX block's counters), never silently lost.

use std::net::Ipv4Addr;
use std::sync::atomic::{fence, Ordering};

use thiserror::Error;

use crate::contract::{
    reg, RxCompletion, RxDescriptor, RxStatus, FEATURE_RX_PATH, RXC_FLAG_PHASE, RXC_FLAG_STEERED,
    RXC_SIZE, RXD_SIZE,
};
use crate::device::{Backend, DeviceError, DmaRegion};
use crate::regs::{RxCtrl, RxqCtrl};

/// Largest RX ring the driver uses (16-bit PROD/CONS).
pub const RX_MAX_RING_LOG2: u32 = 15;

/// RX errors.
#[derive(Debug, Error)]
pub enum RxError {
    /// A backend error.
    #[error(transparent)]
    Device(#[from] DeviceError),
    /// The card has no receive path.
    #[error("the card has no receive path (CAP_FEATURES.RX_PATH is 0): load a bitstream built with the RX path")]
    NoRxPath,
    /// A bad configuration.
    #[error("bad RX configuration: {0}")]
    Config(String),
    /// The card wrote a completion the ring cannot match.
    #[error("RX queue {queue}: completion for ring index {got}, expected {expected}: the card or the driver has a bug (record: {record:?})")]
    BadCompletion {
        /// Queue.
        queue: u16,
        /// Index in the record.
        got: u16,
        /// Index expected.
        expected: u16,
        /// The record.
        record: RxCompletion,
    },
}

/// The card's receive-path identity.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RxCaps {
    /// RX queues.
    pub num_queues: u32,
    /// Steering-table entries.
    pub steer_entries: u32,
    /// EtherType steering rules (0 on a card built before they existed).
    pub steer_et_rules: u32,
    /// Longest frame delivered whole.
    pub max_frame_len: u32,
    /// On-card RX buffer in bytes.
    pub buf_bytes: u32,
}

impl RxCaps {
    /// Read the RX block; [`RxError::NoRxPath`] when the card has none.
    pub fn read(b: &mut dyn Backend) -> Result<RxCaps, RxError> {
        if b.read32(reg::CAP_FEATURES) & FEATURE_RX_PATH == 0 {
            return Err(RxError::NoRxPath);
        }
        Ok(RxCaps {
            num_queues: b.read32(reg::RX_NUM_QUEUES),
            steer_entries: b.read32(reg::RX_STEER_ENTRIES),
            steer_et_rules: b.read32(reg::RX_STEER_ET_RULES),
            max_frame_len: b.read32(reg::RX_MAX_FRAME_LEN),
            buf_bytes: b.read32(reg::RX_BUF_BYTES),
        })
    }

    /// BAR0 offset of RX queue `q`'s register `r`.
    pub fn q_reg(q: u16, r: usize) -> usize {
        reg::RXQ_BASE + q as usize * reg::RXQ_STRIDE + r
    }
}

/// Accept frames (true) or drop every arriving frame, counted in RX_CNT_DROP_DISABLED (false).
pub fn rx_enable(b: &mut dyn Backend, on: bool) {
    let v = if on { RxCtrl::ENABLE } else { RxCtrl::empty() };
    b.write32(reg::RX_CTRL, v.bits());
}

/// Signed ns added to the PHC time of a frame's first beat to form its arrival time.
pub fn set_rx_lat_comp_ns(b: &mut dyn Backend, ns: i32) {
    b.write32(reg::RX_LAT_COMP_NS, ns as u32);
}

/// The queue of frames that match no steering entry.
pub fn set_default_queue(b: &mut dyn Backend, caps: &RxCaps, q: u16) -> Result<(), RxError> {
    if u32::from(q) >= caps.num_queues {
        return Err(RxError::Config(format!(
            "RX queue {q} does not exist: the card has {}",
            caps.num_queues
        )));
    }
    b.write32(reg::RX_DEFAULT_QUEUE, u32::from(q));
    Ok(())
}

/// One exact-match steering rule: IPv4 5-tuple to an RX queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SteerRule {
    /// IPv4 source.
    pub src_ip: Ipv4Addr,
    /// IPv4 destination.
    pub dst_ip: Ipv4Addr,
    /// IP protocol (6 TCP, 17 UDP).
    pub proto: u8,
    /// Source port.
    pub src_port: u16,
    /// Destination port.
    pub dst_port: u16,
    /// RX queue.
    pub queue: u16,
}

fn check_entry(caps: &RxCaps, idx: u32) -> Result<(), RxError> {
    if idx >= caps.steer_entries {
        return Err(RxError::Config(format!(
            "steering entry {idx} does not exist: the card has {} (0..={})",
            caps.steer_entries,
            caps.steer_entries.saturating_sub(1)
        )));
    }
    Ok(())
}

/// Write steering entry `idx` (the lowest matching entry wins).
pub fn steer_set(
    b: &mut dyn Backend,
    caps: &RxCaps,
    idx: u32,
    r: &SteerRule,
) -> Result<(), RxError> {
    check_entry(caps, idx)?;
    if u32::from(r.queue) >= caps.num_queues {
        return Err(RxError::Config(format!(
            "steering to RX queue {} which does not exist: the card has {}",
            r.queue, caps.num_queues
        )));
    }
    b.write32(reg::RX_STEER_INDEX, idx);
    b.write32(reg::RX_STEER_SRC_IP, u32::from(r.src_ip));
    b.write32(reg::RX_STEER_DST_IP, u32::from(r.dst_ip));
    b.write32(
        reg::RX_STEER_PORTS,
        (u32::from(r.src_port) << 16) | u32::from(r.dst_port),
    );
    b.write32(
        reg::RX_STEER_CTRL,
        u32::from(r.proto) | (u32::from(r.queue) << 8) | reg::RX_STEER_CTRL_VALID,
    );
    b.write32(reg::RX_STEER_CMD, reg::RX_STEER_CMD_WRITE);
    Ok(())
}

/// Make steering entry `idx` match nothing.
pub fn steer_clear(b: &mut dyn Backend, caps: &RxCaps, idx: u32) -> Result<(), RxError> {
    check_entry(caps, idx)?;
    b.write32(reg::RX_STEER_INDEX, idx);
    b.write32(reg::RX_STEER_CTRL, 0);
    b.write32(reg::RX_STEER_CMD, reg::RX_STEER_CMD_WRITE);
    Ok(())
}

/// EtherType of L2 PTP frames (IEEE 1588-2019 annex E).
pub const ETHERTYPE_PTP: u16 = 0x88F7;

fn check_et_rule(caps: &RxCaps, idx: u32) -> Result<(), RxError> {
    if idx >= caps.steer_et_rules {
        return Err(RxError::Config(format!(
            "EtherType steering rule {idx} does not exist: the card has {} (RX_STEER_ET_RULES; 0 on a \
             bitstream built before EtherType rules: load a newer one)",
            caps.steer_et_rules
        )));
    }
    Ok(())
}

/// Write EtherType rule `idx`: frames that match no 5-tuple entry and carry `ethertype` (bytes
/// 12-13; an 802.1Q tag is not looked behind) go to `queue` (the lowest matching rule wins).
pub fn steer_et_set(
    b: &mut dyn Backend,
    caps: &RxCaps,
    idx: u32,
    ethertype: u16,
    queue: u16,
) -> Result<(), RxError> {
    check_et_rule(caps, idx)?;
    if u32::from(queue) >= caps.num_queues || queue > 0xff {
        return Err(RxError::Config(format!(
            "steering EtherType {ethertype:#06x} to RX queue {queue} which does not exist: the card has {}",
            caps.num_queues
        )));
    }
    b.write32(reg::RX_STEER_INDEX, idx);
    b.write32(
        reg::RX_STEER_ET,
        u32::from(ethertype) | (u32::from(queue) << 16) | reg::RX_STEER_ET_VALID,
    );
    b.write32(reg::RX_STEER_CMD, reg::RX_STEER_CMD_ET_WRITE);
    Ok(())
}

/// Make EtherType rule `idx` match nothing.
pub fn steer_et_clear(b: &mut dyn Backend, caps: &RxCaps, idx: u32) -> Result<(), RxError> {
    check_et_rule(caps, idx)?;
    b.write32(reg::RX_STEER_INDEX, idx);
    b.write32(reg::RX_STEER_ET, 0);
    b.write32(reg::RX_STEER_CMD, reg::RX_STEER_CMD_ET_WRITE);
    Ok(())
}

/// A received frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RxPacket {
    /// RX queue.
    pub queue: u16,
    /// The status code as the card wrote it ([`RxStatus::from_code`] names it).
    pub status: u8,
    /// The bytes delivered (`len` of the completion).
    pub data: Vec<u8>,
    /// Frame length as received (may exceed `data.len()`: TOO_LONG, TRUNCATED).
    pub frame_len: u16,
    /// Arrival time, card PHC ns (+ RX_LAT_COMP_NS).
    pub arrival_ns: u64,
    /// The steering entry that matched, if one did.
    pub steer_entry: Option<u8>,
}

impl RxPacket {
    /// True for a whole, good frame.
    pub fn ok(&self) -> bool {
        RxStatus::from_code(self.status) == Some(RxStatus::Ok)
    }
}

/// RX queue configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RxQueueConfig {
    /// log2 of the ring size (1..=15).
    pub ring_log2: u32,
    /// Bytes per buffer (rounded up to 64; 0: the card's RX_MAX_FRAME_LEN).
    pub buf_size: usize,
}

impl Default for RxQueueConfig {
    fn default() -> Self {
        RxQueueConfig {
            ring_log2: 8,
            buf_size: 0,
        }
    }
}

/// The per-queue counters the card keeps.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct RxQueueCounters {
    /// Completions written.
    pub frames: u32,
    /// Bytes written into buffers.
    pub bytes: u32,
    /// Frames dropped for lack of a posted buffer (or the queue disabled).
    pub drop_nobuf: u32,
    /// Completions with a status other than OK.
    pub errors: u32,
}

/// One RX queue: descriptor ring, completion ring, one recycled buffer per slot.
#[derive(Debug)]
pub struct RxQueue {
    queue: u16,
    mask: u32,
    desc: DmaRegion,
    cpl: DmaRegion,
    bufs: DmaRegion,
    buf_size: usize,
    /// Descriptors posted (free running; low 16 bits go to RXQ_PROD).
    prod: u32,
    /// Completions taken (free running).
    cons: u32,
    phase: bool,
}

impl RxQueue {
    /// Allocate the rings and buffers, program RX queue `q`, enable it and post every buffer.
    pub fn create(
        b: &mut dyn Backend,
        caps: &RxCaps,
        q: u16,
        cfg: &RxQueueConfig,
    ) -> Result<RxQueue, RxError> {
        if u32::from(q) >= caps.num_queues {
            return Err(RxError::Config(format!(
                "RX queue {q} does not exist: the card has {}",
                caps.num_queues
            )));
        }
        if cfg.ring_log2 == 0 || cfg.ring_log2 > RX_MAX_RING_LOG2 {
            return Err(RxError::Config(format!(
                "RX ring size 2^{} outside 2^1..=2^{RX_MAX_RING_LOG2}",
                cfg.ring_log2
            )));
        }
        let size = 1u32 << cfg.ring_log2;
        let want = if cfg.buf_size == 0 {
            caps.max_frame_len as usize
        } else {
            cfg.buf_size
        };
        // 64-byte aligned buffers (the card refuses others: BAD_DESC), a multiple of 64 apart
        let buf_size = want.max(64).div_ceil(64) * 64;
        let desc = b.dma_alloc(size as usize * RXD_SIZE)?;
        let cpl = b.dma_alloc(size as usize * RXC_SIZE)?;
        let bufs = b.dma_alloc(size as usize * buf_size)?;
        b.dma_write(&cpl, 0, &vec![0u8; size as usize * RXC_SIZE]);
        let r = |x| RxCaps::q_reg(q, x);
        b.write32(r(reg::RXQ_CTRL), 0);
        b.write32(r(reg::RXQ_DESC_BASE_LO), desc.iova() as u32);
        b.write32(r(reg::RXQ_DESC_BASE_HI), (desc.iova() >> 32) as u32);
        b.write32(r(reg::RXQ_CPL_BASE_LO), cpl.iova() as u32);
        b.write32(r(reg::RXQ_CPL_BASE_HI), (cpl.iova() >> 32) as u32);
        b.write32(r(reg::RXQ_SIZE_LOG2), cfg.ring_log2);
        // enabling starts both rings at index 0, phase 1
        b.write32(r(reg::RXQ_CTRL), RxqCtrl::ENABLE.bits());
        let mut rq = RxQueue {
            queue: q,
            mask: size - 1,
            desc,
            cpl,
            bufs,
            buf_size,
            prod: 0,
            cons: 0,
            phase: true,
        };
        for _ in 0..size {
            rq.post_slot(b);
        }
        rq.doorbell(b);
        Ok(rq)
    }

    /// Queue number.
    pub fn queue(&self) -> u16 {
        self.queue
    }

    /// Ring size.
    pub fn size(&self) -> u32 {
        self.mask + 1
    }

    /// Bytes per buffer.
    pub fn buf_size(&self) -> usize {
        self.buf_size
    }

    /// Buffers posted and not yet completed.
    pub fn posted(&self) -> u32 {
        self.prod.wrapping_sub(self.cons)
    }

    /// Post the buffer of slot `prod & mask` (slot i always owns buffer i).
    fn post_slot(&mut self, b: &mut dyn Backend) {
        let slot = self.prod & self.mask;
        let d = RxDescriptor {
            addr: self.bufs.iova() + u64::from(slot) * self.buf_size as u64,
            len: self.buf_size as u32,
            reserved: 0,
        };
        b.dma_write(&self.desc, slot as usize * RXD_SIZE, &d.to_bytes());
        self.prod = self.prod.wrapping_add(1);
    }

    fn doorbell(&mut self, b: &mut dyn Backend) {
        b.write32(RxCaps::q_reg(self.queue, reg::RXQ_PROD), self.prod & 0xffff);
    }

    /// Take up to `max` received frames into `out`, recycle their buffers and ring the doorbell once.
    /// Returns how many were taken.
    pub fn poll(
        &mut self,
        b: &mut dyn Backend,
        out: &mut Vec<RxPacket>,
        max: usize,
    ) -> Result<usize, RxError> {
        let mut n = 0;
        while n < max {
            let slot = self.cons & self.mask;
            let off = slot as usize * RXC_SIZE;
            let flags = b.dma_read_u32(&self.cpl, off + RXC_SIZE - 4);
            if (flags & RXC_FLAG_PHASE != 0) != self.phase {
                break;
            }
            // The phase word was read first; the rest of the record must not be read before it.
            fence(Ordering::Acquire);
            let mut raw = [0u8; RXC_SIZE];
            b.dma_read(&self.cpl, off, &mut raw);
            let rec = RxCompletion::from_bytes(&raw);
            if rec.ring_index != self.cons as u16 || rec.queue != self.queue {
                return Err(RxError::BadCompletion {
                    queue: self.queue,
                    got: rec.ring_index,
                    expected: self.cons as u16,
                    record: rec,
                });
            }
            let len = (rec.len as usize).min(self.buf_size);
            let mut data = vec![0u8; len];
            b.dma_read(&self.bufs, slot as usize * self.buf_size, &mut data);
            out.push(RxPacket {
                queue: self.queue,
                status: rec.status,
                data,
                frame_len: rec.frame_len,
                arrival_ns: rec.arrival_ns,
                steer_entry: (rec.flags & RXC_FLAG_STEERED != 0).then_some(rec.steer_entry),
            });
            self.cons = self.cons.wrapping_add(1);
            if self.cons & self.mask == 0 {
                self.phase = !self.phase;
            }
            // the buffer is copied out: post it again
            self.post_slot(b);
            n += 1;
        }
        if n > 0 {
            self.doorbell(b);
        }
        Ok(n)
    }

    /// The card's counters for this queue.
    pub fn counters(&self, b: &mut dyn Backend) -> RxQueueCounters {
        let r = |x| RxCaps::q_reg(self.queue, x);
        RxQueueCounters {
            frames: b.read32(r(reg::RXQ_CNT_FRAMES)),
            bytes: b.read32(r(reg::RXQ_CNT_BYTES)),
            drop_nobuf: b.read32(r(reg::RXQ_CNT_DROP_NOBUF)),
            errors: b.read32(r(reg::RXQ_CNT_ERRORS)),
        }
    }

    /// Disable the queue (frames steered here are then dropped and counted) and wait, up to
    /// `timeout_ns`, until the card is no longer writing into it. Returns false on a timeout.
    pub fn disable(&mut self, b: &mut dyn Backend, timeout_ns: u64) -> Result<bool, RxError> {
        b.write32(RxCaps::q_reg(self.queue, reg::RXQ_CTRL), 0);
        let mut waited = 0;
        loop {
            if b.read32(RxCaps::q_reg(self.queue, reg::RXQ_STATUS)) & reg::RXQ_STATUS_BUSY == 0 {
                return Ok(true);
            }
            if waited >= timeout_ns {
                return Ok(false);
            }
            b.wait_ns(1_000)?;
            waited += 1_000;
        }
    }

    /// Free the queue's DMA memory (after [`RxQueue::disable`]).
    pub fn destroy(self, b: &mut dyn Backend) -> Result<(), RxError> {
        b.dma_free(self.desc)?;
        b.dma_free(self.cpl)?;
        b.dma_free(self.bufs)?;
        Ok(())
    }
}
