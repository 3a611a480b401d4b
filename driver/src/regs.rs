//! The BAR0 register block as `#[repr(C)]` structs of `volatile-register` cells, and `bitflags` types for
//! the flag fields.
//!
//! The layout is written from `hdl/contract/tsnic.toml` and checked against the generated
//! [`crate::contract`] by a unit test: every register of [`contract::REGISTERS`] must sit at the same
//! offset with a matching access kind, and nothing else may be declared. A contract change that is not
//! mirrored here fails `cargo test`.
//!
//! Access kinds map onto cells as: `ro` and `rc` (read with a latch side effect) -> [`RO`], `rw` and `w1c`
//! -> [`RW`], `wo` -> [`WO`]. The vfio backend overlays [`Bar0`] on the mapped BAR; code above the backends
//! uses offsets from [`crate::contract::reg`] through [`crate::device::Backend`] and these flag types.

use bitflags::bitflags;
use volatile_register::{RO, RW, WO};

use crate::contract;

/// CAP block (0x000): identity and capabilities.
#[repr(C)]
pub struct CapRegs {
    /// "TSNC".
    pub magic: RO<u32>,
    /// Major 31:16, minor 15:0.
    pub version: RO<u32>,
    /// Number of TX queues.
    pub num_queues: RO<u32>,
    /// Core clock in Hz.
    pub clk_freq_hz: RO<u32>,
    /// Calendar slot width in ns.
    pub slot_ns: RO<u32>,
    /// Slots in the fine level.
    pub slots: RO<u32>,
    /// Horizon ns 31:0.
    pub horizon_ns_lo: RO<u32>,
    /// Horizon ns 63:32.
    pub horizon_ns_hi: RO<u32>,
    /// FEATURE_* bits.
    pub features: RO<u32>,
    /// Largest ring size log2.
    pub ring_log2_max: RO<u32>,
    /// Largest frame length.
    pub max_frame_len: RO<u32>,
    /// TX data width in bits.
    pub tx_data_width: RO<u32>,
    /// Calendar capacity.
    pub nodes: RO<u32>,
    /// Queue 0's block offset.
    pub queue_base: RO<u32>,
    /// Queue block stride.
    pub queue_stride: RO<u32>,
}

/// CTRL block (0x100): global control.
#[repr(C)]
pub struct CtrlRegs {
    /// [`Control`] bits.
    pub control: RW<u32>,
    /// [`CtrlStatus`] bits.
    pub status: RO<u32>,
    /// Payload prefetch lookahead in ns.
    pub lookahead_ns: RW<u32>,
    /// TX latency compensation in ns.
    pub tx_lat_comp_ns: RW<u32>,
    /// [`IrqCtrl`] bits.
    pub irq_ctrl: RW<u32>,
    /// Moderation count.
    pub irq_mod_count: RW<u32>,
    /// Moderation time in ns.
    pub irq_mod_time_ns: RW<u32>,
    /// Interrupt pending (w1c).
    pub irq_status: RW<u32>,
}

/// PHC block (0x200).
#[repr(C)]
pub struct PhcRegs {
    /// Reading latches a snapshot; ns 31:0.
    pub time_lo: RO<u32>,
    /// Snapshot ns 63:32.
    pub time_hi: RO<u32>,
    /// Snapshot fraction (bits 47:16 of the 48-bit fraction).
    pub time_fns: RO<u32>,
    _reserved0: RO<u32>,
    /// New time for SET, 31:0.
    pub set_lo: RW<u32>,
    /// New time for SET, 63:32.
    pub set_hi: RW<u32>,
    /// Offset for ADJ, 31:0.
    pub adj_lo: RW<u32>,
    /// Offset for ADJ, 63:32.
    pub adj_hi: RW<u32>,
    /// [`PhcCmd`] bits.
    pub cmd: WO<u32>,
    /// Nominal increment 16.48, 31:0 (staged).
    pub period_lo: RW<u32>,
    /// Nominal increment 63:32 (applies).
    pub period_hi: RW<u32>,
    /// Frequency trim in ppb (signed).
    pub adjfine_ppb: RW<u32>,
    /// [`PhcStatus`] bits.
    pub status: RO<u32>,
    /// Steps since reset.
    pub step_count: RO<u32>,
    /// Snapshot seconds 31:0.
    pub sec_lo: RO<u32>,
    /// Snapshot seconds 47:32.
    pub sec_hi: RO<u32>,
    /// Snapshot ns within the second.
    pub nsec: RO<u32>,
}

/// CPL block (0x300): the completion ring.
#[repr(C)]
pub struct CplRegs {
    /// Ring base 31:0.
    pub base_lo: RW<u32>,
    /// Ring base 63:32.
    pub base_hi: RW<u32>,
    /// log2 of the record count.
    pub size_log2: RW<u32>,
    /// Bit 0: enable.
    pub ctrl: RW<u32>,
    /// Card's producer index.
    pub prod: RO<u32>,
    /// Host's consumer index.
    pub cons: RW<u32>,
}

/// One 64-bit counter: reading `lo` latches `hi`.
#[repr(C)]
pub struct Counter64 {
    /// Bits 31:0 (latches hi).
    pub lo: RO<u32>,
    /// Bits 63:32.
    pub hi: RO<u32>,
}

/// CNT block (0x400): global counters.
#[repr(C)]
pub struct CntRegs {
    /// Descriptors fetched.
    pub posted: Counter64,
    /// Completions SENT.
    pub sent: Counter64,
    /// Completions SENT_LATE.
    pub sent_late: Counter64,
    /// Completions DROPPED_LATE.
    pub dropped_late: Counter64,
    /// Completions DROPPED_HORIZON.
    pub dropped_horizon: Counter64,
    /// Completions FLUSHED.
    pub flushed: Counter64,
    /// Completions REJECTED.
    pub rejected: Counter64,
    /// Bytes sent.
    pub tx_bytes: Counter64,
    /// Completions DMA_ERROR.
    pub dma_error: Counter64,
}

/// One queue's block (stride `Q_STRIDE`).
#[repr(C)]
pub struct QueueRegs {
    /// Ring base 31:0.
    pub base_lo: RW<u32>,
    /// Ring base 63:32.
    pub base_hi: RW<u32>,
    /// log2 of the descriptor count.
    pub size_log2: RW<u32>,
    /// [`QCtrl`] bits.
    pub ctrl: RW<u32>,
    /// Producer index doorbell.
    pub prod: RW<u32>,
    /// Consumer index.
    pub cons: RO<u32>,
    /// DMA window base 31:0.
    pub win_base_lo: RW<u32>,
    /// DMA window base 63:32.
    pub win_base_hi: RW<u32>,
    /// DMA window length 31:0.
    pub win_len_lo: RW<u32>,
    /// DMA window length 63:32.
    pub win_len_hi: RW<u32>,
    /// [`QStatus`] bits.
    pub status: RO<u32>,
    /// Calendar quota.
    pub quota: RW<u32>,
    _reserved0: [RO<u32>; 4],
    /// Descriptors fetched.
    pub cnt_posted: RO<u32>,
    /// SENT.
    pub cnt_sent: RO<u32>,
    /// SENT_LATE.
    pub cnt_sent_late: RO<u32>,
    /// DROPPED_LATE.
    pub cnt_dropped_late: RO<u32>,
    /// DROPPED_HORIZON.
    pub cnt_dropped_horizon: RO<u32>,
    /// FLUSHED.
    pub cnt_flushed: RO<u32>,
    /// REJECTED.
    pub cnt_rejected: RO<u32>,
    /// DMA_ERROR.
    pub cnt_dma_error: RO<u32>,
    _reserved1: [RO<u32>; 8],
}

/// MAC block (0x600): the MAC-domain time copies, the board's transceiver side and link status.
#[repr(C)]
pub struct MacRegs {
    _reserved: RO<u32>,
    /// TX_LOCKED / RX_LOCKED of the MAC-domain time copies.
    pub td_status: RO<u32>,
    /// REFCLK_READY / REFCLK_ERROR / REFCLK_ERROR_CODE of the board's reference clock set-up.
    pub phy_status: RO<u32>,
    /// The PCIe link and the MAC's receive side ([`crate::link::LinkStatus`]).
    pub link_status: RO<u32>,
}

/// FLASH block (0x800): the configuration flash controller (declared so the map is complete; the
/// flash tools use offsets from [`crate::contract::reg`]).
#[repr(C)]
pub struct FlashRegs {
    /// Board, size, writable.
    pub cap: RO<u32>,
    /// Command (write starts it).
    pub cmd: WO<u32>,
    /// Flash byte address.
    pub addr: RW<u32>,
    /// Byte count.
    pub len: RW<u32>,
    /// Busy, error.
    pub status: RO<u32>,
    /// Data FIFO (reading pops).
    pub data: RO<u32>,
    /// JEDEC ID of the last READ_ID.
    pub jedec_id: RO<u32>,
    /// Status register of the last command.
    pub sr: RO<u32>,
    /// Data for WRITE_SR.
    pub data_sr: RW<u32>,
    /// WBSTAR the card booted with.
    pub boot_wbstar: RO<u32>,
    /// Boot status.
    pub boot_status: RO<u32>,
    /// SPI clock divider.
    pub clk_div: RW<u32>,
}

/// RX block (0x1000): RX global control, the steering table, global RX counters.
#[repr(C)]
pub struct RxRegs {
    /// [`RxCtrl`] bits.
    pub ctrl: RW<u32>,
    /// Number of RX queues.
    pub num_queues: RO<u32>,
    /// Steering-table entries.
    pub steer_entries: RO<u32>,
    /// Longest frame delivered whole.
    pub max_frame_len: RO<u32>,
    /// Signed RX latency compensation in ns.
    pub lat_comp_ns: RW<u32>,
    /// Queue of unmatched frames.
    pub default_queue: RW<u32>,
    /// On-card RX buffer bytes.
    pub buf_bytes: RO<u32>,
    /// EtherType steering rules.
    pub steer_et_rules: RO<u32>,
    /// Steering entry STEER_CMD acts on.
    pub steer_index: RW<u32>,
    /// Staged IPv4 source.
    pub steer_src_ip: RW<u32>,
    /// Staged IPv4 destination.
    pub steer_dst_ip: RW<u32>,
    /// Staged ports (source 31:16, destination 15:0).
    pub steer_ports: RW<u32>,
    /// Staged protocol, queue, valid.
    pub steer_ctrl: RW<u32>,
    /// WRITE / READ / ET_WRITE / ET_READ command.
    pub steer_cmd: WO<u32>,
    /// Staged EtherType rule (EtherType, queue, valid).
    pub steer_et: RW<u32>,
    _reserved1: RO<u32>,
    /// Frames at the RX port.
    pub cnt_frames: RO<u32>,
    /// Their bytes.
    pub cnt_bytes: RO<u32>,
    /// Dropped: RX disabled.
    pub cnt_drop_disabled: RO<u32>,
    /// Dropped: on-card buffer full.
    pub cnt_drop_full: RO<u32>,
    /// Flagged bad by the MAC.
    pub cnt_bad_fcs: RO<u32>,
    /// Longer than RX_MAX_FRAME_LEN.
    pub cnt_too_long: RO<u32>,
    /// Matched a steering entry.
    pub cnt_steered: RO<u32>,
    /// Dropped at the MAC before the core (board clock crossing full).
    pub cnt_drop_mac: RO<u32>,
}

/// One RX queue's block (stride `RXQ_STRIDE`).
#[repr(C)]
pub struct RxQueueRegs {
    /// Descriptor ring base 31:0.
    pub desc_base_lo: RW<u32>,
    /// Descriptor ring base 63:32.
    pub desc_base_hi: RW<u32>,
    /// Completion ring base 31:0.
    pub cpl_base_lo: RW<u32>,
    /// Completion ring base 63:32.
    pub cpl_base_hi: RW<u32>,
    /// log2 of the entry count of both rings.
    pub size_log2: RW<u32>,
    /// [`RxqCtrl`] bits.
    pub ctrl: RW<u32>,
    /// Producer index doorbell.
    pub prod: RW<u32>,
    /// Consumer index.
    pub cons: RO<u32>,
    /// ENABLED / BUSY.
    pub status: RO<u32>,
    /// Completions written.
    pub cnt_frames: RO<u32>,
    /// Bytes written.
    pub cnt_bytes: RO<u32>,
    /// Dropped for lack of a buffer.
    pub cnt_drop_nobuf: RO<u32>,
    /// Completions not OK.
    pub cnt_errors: RO<u32>,
    _reserved: [RO<u32>; 3],
}

/// The whole BAR0 map.
#[repr(C)]
pub struct Bar0 {
    /// 0x000.
    pub cap: CapRegs,
    _pad_cap: [RO<u32>; (0x100 - 0x3c) / 4],
    /// 0x100.
    pub ctrl: CtrlRegs,
    _pad_ctrl: [RO<u32>; (0x200 - 0x120) / 4],
    /// 0x200.
    pub phc: PhcRegs,
    _pad_phc: [RO<u32>; (0x300 - 0x244) / 4],
    /// 0x300.
    pub cpl: CplRegs,
    _pad_cpl: [RO<u32>; (0x400 - 0x318) / 4],
    /// 0x400.
    pub cnt: CntRegs,
    _pad_cnt: [RO<u32>; (contract::reg::MAC_BASE - 0x448) / 4],
    /// 0x600.
    pub mac: MacRegs,
    _pad_mac: [RO<u32>; (contract::reg::FLASH_BASE - contract::reg::MAC_BASE - 0x10) / 4],
    /// 0x800.
    pub flash: FlashRegs,
    _pad_flash: [RO<u32>; (contract::reg::RX_BASE - contract::reg::FLASH_BASE - 0x30) / 4],
    /// 0x1000.
    pub rx: RxRegs,
    _pad_rx: [RO<u32>; (contract::reg::RXQ_BASE - contract::reg::RX_BASE - 0x60) / 4],
    /// RX queue blocks from `RXQ_BASE`.
    pub rx_queues: [RxQueueRegs; contract::reg::RXQ_MAX_COUNT],
    _pad_rxq: [RO<u32>;
        (contract::reg::Q_BASE
            - contract::reg::RXQ_BASE
            - contract::reg::RXQ_MAX_COUNT * contract::reg::RXQ_STRIDE)
            / 4],
    /// Queue blocks from `Q_BASE`.
    pub queues: [QueueRegs; contract::reg::Q_MAX_COUNT],
}

const _: () = assert!(std::mem::size_of::<QueueRegs>() == contract::reg::Q_STRIDE);
const _: () = assert!(std::mem::size_of::<RxQueueRegs>() == contract::reg::RXQ_STRIDE);
const _: () = assert!(std::mem::size_of::<Bar0>() == contract::BAR0_SIZE);

bitflags! {
    /// RX_CTRL.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub struct RxCtrl: u32 {
        /// Frames are accepted.
        const ENABLE = contract::reg::RX_CTRL_ENABLE;
    }

    /// RXQ_CTRL.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub struct RxqCtrl: u32 {
        /// Frames steered here are written into posted buffers.
        const ENABLE = contract::reg::RXQ_CTRL_ENABLE;
    }

    /// CTRL_CONTROL.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub struct Control: u32 {
        /// Fetch, schedule and send.
        const ENABLE = contract::reg::CTRL_CONTROL_ENABLE;
        /// Core reset (self-clearing).
        const RESET = contract::reg::CTRL_CONTROL_RESET;
    }

    /// CTRL_STATUS.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub struct CtrlStatus: u32 {
        /// Enabled and out of reset.
        const RUNNING = contract::reg::CTRL_STATUS_RUNNING;
        /// Reset still completing descriptors.
        const RESET_BUSY = contract::reg::CTRL_STATUS_RESET_BUSY;
    }

    /// CTRL_IRQ_CTRL.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub struct IrqCtrl: u32 {
        /// Raise the interrupt on completions.
        const ENABLE = contract::reg::CTRL_IRQ_CTRL_ENABLE;
    }

    /// PHC_CMD.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub struct PhcCmd: u32 {
        /// Step to SET_HI:SET_LO.
        const SET = contract::reg::PHC_CMD_SET;
        /// Add ADJ_HI:ADJ_LO.
        const ADJ = contract::reg::PHC_CMD_ADJ;
    }

    /// PHC_STATUS.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub struct PhcStatus: u32 {
        /// Increment or seconds view still being computed.
        const BUSY = contract::reg::PHC_STATUS_BUSY;
    }

    /// Q_CTRL.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub struct QCtrl: u32 {
        /// Doorbells are served.
        const ENABLE = contract::reg::Q_CTRL_ENABLE;
        /// Late policy DROP (clear: SEND).
        const LATE_DROP = contract::reg::Q_CTRL_LATE_POLICY;
        /// Horizon policy CAP (clear: DROP).
        const HORIZON_CAP = contract::reg::Q_CTRL_HORIZON_POLICY;
        /// Flush (self-clearing).
        const FLUSH = contract::reg::Q_CTRL_FLUSH;
    }

    /// Q_STATUS.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub struct QStatus: u32 {
        /// Enabled.
        const ENABLED = contract::reg::Q_STATUS_ENABLED;
        /// Flush in progress.
        const FLUSH_BUSY = contract::reg::Q_STATUS_FLUSH_BUSY;
    }

    /// CAP_FEATURES.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub struct Features: u32 {
        /// Per-queue late policy.
        const LATE_POLICY = contract::FEATURE_LATE_POLICY;
        /// Per-queue horizon policy.
        const HORIZON_POLICY = contract::FEATURE_HORIZON_POLICY;
        /// PHC_ADJFINE_PPB.
        const PHC_ADJFINE = contract::FEATURE_PHC_ADJFINE;
        /// PPS output.
        const PPS_OUT = contract::FEATURE_PPS_OUT;
        /// Interrupt moderation.
        const IRQ_MODERATION = contract::FEATURE_IRQ_MODERATION;
    }

    /// Descriptor flags.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
    pub struct DescFlags: u32 {
        /// No launch time.
        const ASAP = contract::DESC_FLAG_ASAP;
    }

    /// Completion flags.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
    pub struct CplFlags: u32 {
        /// Launch time capped to the horizon.
        const CAPPED = contract::CPL_FLAG_CAPPED;
        /// Phase bit.
        const PHASE = contract::CPL_FLAG_PHASE;
    }
}

impl Features {
    /// Names of the set bits, for `tsnic info`.
    pub fn names(self) -> Vec<&'static str> {
        self.iter_names().map(|(n, _)| n).collect()
    }
}

/// Access kind of a cell type.
pub trait CellAccess {
    /// The cell's access.
    const ACCESS: contract::Access;
}
impl<T: Copy> CellAccess for RO<T> {
    const ACCESS: contract::Access = contract::Access::Ro;
}
impl<T: Copy> CellAccess for RW<T> {
    const ACCESS: contract::Access = contract::Access::Rw;
}
impl<T: Copy> CellAccess for WO<T> {
    const ACCESS: contract::Access = contract::Access::Wo;
}

/// The access kind `volatile-register` can express for a contract access kind.
pub fn cell_access(a: contract::Access) -> contract::Access {
    use contract::Access::*;
    match a {
        Ro | Rc => Ro,
        Rw | W1c => Rw,
        Wo => Wo,
    }
}

/// Access of the field a projection points at (type inference only; never called).
fn access_of<S, T: CellAccess>(_project: fn(&S) -> &T) -> contract::Access {
    T::ACCESS
}

macro_rules! field {
    ($name:literal, $s:ty, $($f:tt)+) => {
        ($name, std::mem::offset_of!($s, $($f)+), access_of(|b: &$s| &b.$($f)+), false)
    };
}
macro_rules! rxqfield {
    ($name:literal, $($f:tt)+) => {
        ($name, std::mem::offset_of!(RxQueueRegs, $($f)+), access_of(|b: &RxQueueRegs| &b.$($f)+), true)
    };
}
macro_rules! qfield {
    ($name:literal, $($f:tt)+) => {
        ($name, std::mem::offset_of!(QueueRegs, $($f)+), access_of(|b: &QueueRegs| &b.$($f)+), true)
    };
}

/// Every declared register: (contract name, offset, cell access, per queue). Checked against the
/// contract by the tests.
pub fn declared() -> Vec<(&'static str, usize, contract::Access, bool)> {
    vec![
        field!("CAP_MAGIC", Bar0, cap.magic),
        field!("CAP_VERSION", Bar0, cap.version),
        field!("CAP_NUM_QUEUES", Bar0, cap.num_queues),
        field!("CAP_CLK_FREQ_HZ", Bar0, cap.clk_freq_hz),
        field!("CAP_SLOT_NS", Bar0, cap.slot_ns),
        field!("CAP_SLOTS", Bar0, cap.slots),
        field!("CAP_HORIZON_NS_LO", Bar0, cap.horizon_ns_lo),
        field!("CAP_HORIZON_NS_HI", Bar0, cap.horizon_ns_hi),
        field!("CAP_FEATURES", Bar0, cap.features),
        field!("CAP_RING_LOG2_MAX", Bar0, cap.ring_log2_max),
        field!("CAP_MAX_FRAME_LEN", Bar0, cap.max_frame_len),
        field!("CAP_TX_DATA_WIDTH", Bar0, cap.tx_data_width),
        field!("CAP_NODES", Bar0, cap.nodes),
        field!("CAP_QUEUE_BASE", Bar0, cap.queue_base),
        field!("CAP_QUEUE_STRIDE", Bar0, cap.queue_stride),
        field!("CTRL_CONTROL", Bar0, ctrl.control),
        field!("CTRL_STATUS", Bar0, ctrl.status),
        field!("CTRL_LOOKAHEAD_NS", Bar0, ctrl.lookahead_ns),
        field!("CTRL_TX_LAT_COMP_NS", Bar0, ctrl.tx_lat_comp_ns),
        field!("CTRL_IRQ_CTRL", Bar0, ctrl.irq_ctrl),
        field!("CTRL_IRQ_MOD_COUNT", Bar0, ctrl.irq_mod_count),
        field!("CTRL_IRQ_MOD_TIME_NS", Bar0, ctrl.irq_mod_time_ns),
        field!("CTRL_IRQ_STATUS", Bar0, ctrl.irq_status),
        field!("PHC_TIME_LO", Bar0, phc.time_lo),
        field!("PHC_TIME_HI", Bar0, phc.time_hi),
        field!("PHC_TIME_FNS", Bar0, phc.time_fns),
        field!("PHC_SET_LO", Bar0, phc.set_lo),
        field!("PHC_SET_HI", Bar0, phc.set_hi),
        field!("PHC_ADJ_LO", Bar0, phc.adj_lo),
        field!("PHC_ADJ_HI", Bar0, phc.adj_hi),
        field!("PHC_CMD", Bar0, phc.cmd),
        field!("PHC_PERIOD_LO", Bar0, phc.period_lo),
        field!("PHC_PERIOD_HI", Bar0, phc.period_hi),
        field!("PHC_ADJFINE_PPB", Bar0, phc.adjfine_ppb),
        field!("PHC_STATUS", Bar0, phc.status),
        field!("PHC_STEP_COUNT", Bar0, phc.step_count),
        field!("PHC_SEC_LO", Bar0, phc.sec_lo),
        field!("PHC_SEC_HI", Bar0, phc.sec_hi),
        field!("PHC_NSEC", Bar0, phc.nsec),
        field!("CPL_BASE_LO", Bar0, cpl.base_lo),
        field!("CPL_BASE_HI", Bar0, cpl.base_hi),
        field!("CPL_SIZE_LOG2", Bar0, cpl.size_log2),
        field!("CPL_CTRL", Bar0, cpl.ctrl),
        field!("CPL_PROD", Bar0, cpl.prod),
        field!("CPL_CONS", Bar0, cpl.cons),
        field!("CNT_POSTED_LO", Bar0, cnt.posted.lo),
        field!("CNT_POSTED_HI", Bar0, cnt.posted.hi),
        field!("CNT_SENT_LO", Bar0, cnt.sent.lo),
        field!("CNT_SENT_HI", Bar0, cnt.sent.hi),
        field!("CNT_SENT_LATE_LO", Bar0, cnt.sent_late.lo),
        field!("CNT_SENT_LATE_HI", Bar0, cnt.sent_late.hi),
        field!("CNT_DROPPED_LATE_LO", Bar0, cnt.dropped_late.lo),
        field!("CNT_DROPPED_LATE_HI", Bar0, cnt.dropped_late.hi),
        field!("CNT_DROPPED_HORIZON_LO", Bar0, cnt.dropped_horizon.lo),
        field!("CNT_DROPPED_HORIZON_HI", Bar0, cnt.dropped_horizon.hi),
        field!("CNT_FLUSHED_LO", Bar0, cnt.flushed.lo),
        field!("CNT_FLUSHED_HI", Bar0, cnt.flushed.hi),
        field!("CNT_REJECTED_LO", Bar0, cnt.rejected.lo),
        field!("CNT_REJECTED_HI", Bar0, cnt.rejected.hi),
        field!("CNT_TX_BYTES_LO", Bar0, cnt.tx_bytes.lo),
        field!("CNT_TX_BYTES_HI", Bar0, cnt.tx_bytes.hi),
        field!("CNT_DMA_ERROR_LO", Bar0, cnt.dma_error.lo),
        field!("CNT_DMA_ERROR_HI", Bar0, cnt.dma_error.hi),
        field!("MAC_TD_STATUS", Bar0, mac.td_status),
        field!("MAC_PHY_STATUS", Bar0, mac.phy_status),
        field!("MAC_LINK_STATUS", Bar0, mac.link_status),
        field!("FLASH_CAP", Bar0, flash.cap),
        field!("FLASH_CMD", Bar0, flash.cmd),
        field!("FLASH_ADDR", Bar0, flash.addr),
        field!("FLASH_LEN", Bar0, flash.len),
        field!("FLASH_STATUS", Bar0, flash.status),
        field!("FLASH_DATA", Bar0, flash.data),
        field!("FLASH_JEDEC_ID", Bar0, flash.jedec_id),
        field!("FLASH_SR", Bar0, flash.sr),
        field!("FLASH_DATA_SR", Bar0, flash.data_sr),
        field!("FLASH_BOOT_WBSTAR", Bar0, flash.boot_wbstar),
        field!("FLASH_BOOT_STATUS", Bar0, flash.boot_status),
        field!("FLASH_CLK_DIV", Bar0, flash.clk_div),
        field!("RX_CTRL", Bar0, rx.ctrl),
        field!("RX_NUM_QUEUES", Bar0, rx.num_queues),
        field!("RX_STEER_ENTRIES", Bar0, rx.steer_entries),
        field!("RX_MAX_FRAME_LEN", Bar0, rx.max_frame_len),
        field!("RX_LAT_COMP_NS", Bar0, rx.lat_comp_ns),
        field!("RX_DEFAULT_QUEUE", Bar0, rx.default_queue),
        field!("RX_BUF_BYTES", Bar0, rx.buf_bytes),
        field!("RX_STEER_ET_RULES", Bar0, rx.steer_et_rules),
        field!("RX_STEER_INDEX", Bar0, rx.steer_index),
        field!("RX_STEER_SRC_IP", Bar0, rx.steer_src_ip),
        field!("RX_STEER_DST_IP", Bar0, rx.steer_dst_ip),
        field!("RX_STEER_PORTS", Bar0, rx.steer_ports),
        field!("RX_STEER_CTRL", Bar0, rx.steer_ctrl),
        field!("RX_STEER_CMD", Bar0, rx.steer_cmd),
        field!("RX_STEER_ET", Bar0, rx.steer_et),
        field!("RX_CNT_FRAMES", Bar0, rx.cnt_frames),
        field!("RX_CNT_BYTES", Bar0, rx.cnt_bytes),
        field!("RX_CNT_DROP_DISABLED", Bar0, rx.cnt_drop_disabled),
        field!("RX_CNT_DROP_FULL", Bar0, rx.cnt_drop_full),
        field!("RX_CNT_BAD_FCS", Bar0, rx.cnt_bad_fcs),
        field!("RX_CNT_TOO_LONG", Bar0, rx.cnt_too_long),
        field!("RX_CNT_STEERED", Bar0, rx.cnt_steered),
        field!("RX_CNT_DROP_MAC", Bar0, rx.cnt_drop_mac),
        rxqfield!("RXQ_DESC_BASE_LO", desc_base_lo),
        rxqfield!("RXQ_DESC_BASE_HI", desc_base_hi),
        rxqfield!("RXQ_CPL_BASE_LO", cpl_base_lo),
        rxqfield!("RXQ_CPL_BASE_HI", cpl_base_hi),
        rxqfield!("RXQ_SIZE_LOG2", size_log2),
        rxqfield!("RXQ_CTRL", ctrl),
        rxqfield!("RXQ_PROD", prod),
        rxqfield!("RXQ_CONS", cons),
        rxqfield!("RXQ_STATUS", status),
        rxqfield!("RXQ_CNT_FRAMES", cnt_frames),
        rxqfield!("RXQ_CNT_BYTES", cnt_bytes),
        rxqfield!("RXQ_CNT_DROP_NOBUF", cnt_drop_nobuf),
        rxqfield!("RXQ_CNT_ERRORS", cnt_errors),
        qfield!("Q_BASE_LO", base_lo),
        qfield!("Q_BASE_HI", base_hi),
        qfield!("Q_SIZE_LOG2", size_log2),
        qfield!("Q_CTRL", ctrl),
        qfield!("Q_PROD", prod),
        qfield!("Q_CONS", cons),
        qfield!("Q_WIN_BASE_LO", win_base_lo),
        qfield!("Q_WIN_BASE_HI", win_base_hi),
        qfield!("Q_WIN_LEN_LO", win_len_lo),
        qfield!("Q_WIN_LEN_HI", win_len_hi),
        qfield!("Q_STATUS", status),
        qfield!("Q_QUOTA", quota),
        qfield!("Q_CNT_POSTED", cnt_posted),
        qfield!("Q_CNT_SENT", cnt_sent),
        qfield!("Q_CNT_SENT_LATE", cnt_sent_late),
        qfield!("Q_CNT_DROPPED_LATE", cnt_dropped_late),
        qfield!("Q_CNT_DROPPED_HORIZON", cnt_dropped_horizon),
        qfield!("Q_CNT_FLUSHED", cnt_flushed),
        qfield!("Q_CNT_REJECTED", cnt_rejected),
        qfield!("Q_CNT_DMA_ERROR", cnt_dma_error),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use contract::reg;

    #[test]
    fn every_contract_register_is_declared_at_its_offset_with_its_access() {
        let declared = declared();
        for r in contract::REGISTERS {
            let d = declared
                .iter()
                .find(|d| d.0 == r.name)
                .unwrap_or_else(|| panic!("contract register {} is missing from regs.rs", r.name));
            assert_eq!(
                d.1, r.offset,
                "{}: regs.rs offset {:#x}, contract {:#x}",
                r.name, d.1, r.offset
            );
            assert_eq!(d.2, cell_access(r.access), "{}: access", r.name);
            assert_eq!(d.3, r.per_queue, "{}: per-queue", r.name);
        }
        for d in &declared {
            assert!(
                contract::REGISTERS.iter().any(|r| r.name == d.0),
                "regs.rs declares {} which the contract does not have",
                d.0
            );
        }
        assert_eq!(declared.len(), contract::REGISTERS.len());
    }

    #[test]
    fn blocks_sit_at_the_contract_bases() {
        use std::mem::offset_of;
        assert_eq!(offset_of!(Bar0, cap), reg::CAP_BASE);
        assert_eq!(offset_of!(Bar0, ctrl), reg::CTRL_BASE);
        assert_eq!(offset_of!(Bar0, phc), reg::PHC_BASE);
        assert_eq!(offset_of!(Bar0, cpl), reg::CPL_BASE);
        assert_eq!(offset_of!(Bar0, cnt), reg::CNT_BASE);
        assert_eq!(offset_of!(Bar0, queues), reg::Q_BASE);
        assert_eq!(offset_of!(Bar0, rx), reg::RX_BASE);
        assert_eq!(offset_of!(Bar0, flash), reg::FLASH_BASE);
        assert_eq!(offset_of!(Bar0, rx_queues), reg::RXQ_BASE);
        assert_eq!(
            offset_of!(Bar0, queues) + 3 * std::mem::size_of::<QueueRegs>(),
            reg::Q_BASE + 3 * reg::Q_STRIDE
        );
    }

    #[test]
    fn flags_match_the_contract() {
        assert_eq!(CplFlags::PHASE.bits(), 1 << 31);
        assert_eq!(QCtrl::all().bits(), 0xf);
        assert_eq!(
            Features::from_bits_truncate(0b101).names(),
            vec!["LATE_POLICY", "PHC_ADJFINE"]
        );
        assert_eq!(DescFlags::ASAP.bits(), contract::DESC_FLAG_ASAP);
    }
}
