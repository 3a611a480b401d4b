//! Generated from hdl/contract/tsnic.toml by hdl/contract/gen_contract.py. Do not edit: run `make gen`.
//!
//! The tsnic hardware/software contract: BAR0 offsets, record layouts and codes.

#![allow(clippy::unreadable_literal)]

/// Value of `CAP_MAGIC` ("TSNC").
pub const MAGIC: u32 = 0x54534e43;
/// Contract major version; the driver refuses a card with another one.
pub const VERSION_MAJOR: u16 = 1;
/// Contract minor version; newer minors only add.
pub const VERSION_MINOR: u16 = 0;
/// Size of BAR0 in bytes.
pub const BAR0_SIZE: usize = 0x100000;

/// Completion status codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Status {
    /// Frame left on time: it started at the first cycle with PHC >= launch_ns (never before). depart_ns is its start on the line (first preamble octet; see depart_ns) plus TX latency compensation.
    Sent = 1,
    /// Frame left, but not on time: its launch time had passed when the card scheduled it (late policy SEND), or it waited for the frame ahead on a busy line, for the MAC or for its payload. depart_ns says by how much.
    SentLate = 2,
    /// Launch time had already passed; queue late policy DROP discarded it. depart_ns is the PHC time of the decision.
    DroppedLate = 3,
    /// Launch time was beyond the calendar horizon; queue horizon policy DROP discarded it.
    DroppedHorizon = 4,
    /// Removed by a queue flush, a queue disable or a core reset before it was sent.
    Flushed = 5,
    /// Malformed descriptor, never scheduled; the completion's reason field says why.
    Rejected = 6,
    /// A host-memory read for this descriptor failed: the PCIe completion had an error status (UR/CA), was poisoned, or timed out (or bus mastering was off). Nothing was sent. If the descriptor itself could not be read, cookie, len and launch_ns are 0 (queue and ring_index identify it); if its payload could not be read, they are the descriptor's. depart_ns is the PHC time of the decision.
    DmaError = 7,
}

impl Status {
    /// Every value, in code order.
    pub const ALL: [Status; 7] = [
        Status::Sent,
        Status::SentLate,
        Status::DroppedLate,
        Status::DroppedHorizon,
        Status::Flushed,
        Status::Rejected,
        Status::DmaError,
    ];

    /// The code as the card writes it, or `None` for a code the contract does not define.
    pub fn from_code(code: u8) -> Option<Self> {
        match code {
            1 => Some(Status::Sent),
            2 => Some(Status::SentLate),
            3 => Some(Status::DroppedLate),
            4 => Some(Status::DroppedHorizon),
            5 => Some(Status::Flushed),
            6 => Some(Status::Rejected),
            7 => Some(Status::DmaError),
            _ => None,
        }
    }

    /// The contract's name for this code.
    pub fn name(self) -> &'static str {
        match self {
            Status::Sent => "SENT",
            Status::SentLate => "SENT_LATE",
            Status::DroppedLate => "DROPPED_LATE",
            Status::DroppedHorizon => "DROPPED_HORIZON",
            Status::Flushed => "FLUSHED",
            Status::Rejected => "REJECTED",
            Status::DmaError => "DMA_ERROR",
        }
    }
}

/// Why a descriptor was completed REJECTED.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum RejectReason {
    /// Not rejected.
    None = 0,
    /// Length is zero.
    ZeroLen = 1,
    /// Length exceeds CAP_MAX_FRAME_LEN.
    Oversize = 2,
    /// [addr, addr+len) is not inside the queue's registered DMA window.
    OutsideWindow = 3,
    /// A reserved flag bit is set.
    BadFlags = 4,
    /// Packed queue: a record whose kind is neither PK_TYPE_FRAME nor PK_TYPE_BASE. Its length is unknown, so the queue's stream is halted at it (nothing after it is parsed; the driver disables and re-initialises the queue).
    PkBadType = 5,
    /// Packed queue: a FRAME record whose frame extends past Q_PROD (PROD must be on a record boundary). The stream is halted at it, as for PK_BAD_TYPE.
    PkTruncated = 6,
    /// Packed queue: the launch time was further ahead of the PHC, when the record was parsed, than the post-ahead bound of the packed buffer (docs/DATAPATH.md, "Packed transmit format"). The stream continues.
    PkTooEarly = 7,
}

impl RejectReason {
    /// Every value, in code order.
    pub const ALL: [RejectReason; 8] = [
        RejectReason::None,
        RejectReason::ZeroLen,
        RejectReason::Oversize,
        RejectReason::OutsideWindow,
        RejectReason::BadFlags,
        RejectReason::PkBadType,
        RejectReason::PkTruncated,
        RejectReason::PkTooEarly,
    ];

    /// The code as the card writes it, or `None` for a code the contract does not define.
    pub fn from_code(code: u8) -> Option<Self> {
        match code {
            0 => Some(RejectReason::None),
            1 => Some(RejectReason::ZeroLen),
            2 => Some(RejectReason::Oversize),
            3 => Some(RejectReason::OutsideWindow),
            4 => Some(RejectReason::BadFlags),
            5 => Some(RejectReason::PkBadType),
            6 => Some(RejectReason::PkTruncated),
            7 => Some(RejectReason::PkTooEarly),
            _ => None,
        }
    }

    /// The contract's name for this code.
    pub fn name(self) -> &'static str {
        match self {
            RejectReason::None => "NONE",
            RejectReason::ZeroLen => "ZERO_LEN",
            RejectReason::Oversize => "OVERSIZE",
            RejectReason::OutsideWindow => "OUTSIDE_WINDOW",
            RejectReason::BadFlags => "BAD_FLAGS",
            RejectReason::PkBadType => "PK_BAD_TYPE",
            RejectReason::PkTruncated => "PK_TRUNCATED",
            RejectReason::PkTooEarly => "PK_TOO_EARLY",
        }
    }
}

/// What a queue does with a frame whose launch time has passed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum LatePolicy {
    /// A frame whose launch time has passed is sent at once and completed SENT_LATE (sch_etf without drop).
    Send = 0,
    /// A frame whose launch time has passed is dropped and completed DROPPED_LATE (sch_etf's default).
    Drop = 1,
}

impl LatePolicy {
    /// Every value, in code order.
    pub const ALL: [LatePolicy; 2] = [LatePolicy::Send, LatePolicy::Drop];

    /// The code as the card writes it, or `None` for a code the contract does not define.
    pub fn from_code(code: u8) -> Option<Self> {
        match code {
            0 => Some(LatePolicy::Send),
            1 => Some(LatePolicy::Drop),
            _ => None,
        }
    }

    /// The contract's name for this code.
    pub fn name(self) -> &'static str {
        match self {
            LatePolicy::Send => "SEND",
            LatePolicy::Drop => "DROP",
        }
    }
}

/// What a queue does with a launch time beyond the horizon.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum HorizonPolicy {
    /// A launch time beyond the horizon is dropped, completed DROPPED_HORIZON (sch_fq horizon_drop, its default).
    Drop = 0,
    /// A launch time beyond the horizon is moved to now + horizon (sch_fq horizon_cap).
    Cap = 1,
}

impl HorizonPolicy {
    /// Every value, in code order.
    pub const ALL: [HorizonPolicy; 2] = [HorizonPolicy::Drop, HorizonPolicy::Cap];

    /// The code as the card writes it, or `None` for a code the contract does not define.
    pub fn from_code(code: u8) -> Option<Self> {
        match code {
            0 => Some(HorizonPolicy::Drop),
            1 => Some(HorizonPolicy::Cap),
            _ => None,
        }
    }

    /// The contract's name for this code.
    pub fn name(self) -> &'static str {
        match self {
            HorizonPolicy::Drop => "DROP",
            HorizonPolicy::Cap => "CAP",
        }
    }
}

/// RX completion status codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum RxStatus {
    /// Frame received whole and good; len bytes written to the buffer (len == frame_len).
    Ok = 1,
    /// The MAC flagged the frame bad (FCS error, tuser[0] on any beat); its bytes are delivered as received.
    BadFcs = 2,
    /// Longer than RX_MAX_FRAME_LEN: only the first RX_MAX_FRAME_LEN bytes were kept and delivered; frame_len says how long it was.
    TooLong = 3,
    /// The posted buffer was shorter than the frame: the buffer is full (len = buffer length), frame_len says how long the frame was.
    Truncated = 4,
    /// The RX descriptor was unusable (length 0, or address not 64-byte aligned): nothing was written, len is 0; the buffer is consumed.
    BadDesc = 5,
}

impl RxStatus {
    /// Every value, in code order.
    pub const ALL: [RxStatus; 5] = [
        RxStatus::Ok,
        RxStatus::BadFcs,
        RxStatus::TooLong,
        RxStatus::Truncated,
        RxStatus::BadDesc,
    ];

    /// The code as the card writes it, or `None` for a code the contract does not define.
    pub fn from_code(code: u8) -> Option<Self> {
        match code {
            1 => Some(RxStatus::Ok),
            2 => Some(RxStatus::BadFcs),
            3 => Some(RxStatus::TooLong),
            4 => Some(RxStatus::Truncated),
            5 => Some(RxStatus::BadDesc),
            _ => None,
        }
    }

    /// The contract's name for this code.
    pub fn name(self) -> &'static str {
        match self {
            RxStatus::Ok => "OK",
            RxStatus::BadFcs => "BAD_FCS",
            RxStatus::TooLong => "TOO_LONG",
            RxStatus::Truncated => "TRUNCATED",
            RxStatus::BadDesc => "BAD_DESC",
        }
    }
}

/// Packed stream record types.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum PkType {
    /// A frame: the record, then len bytes of frame, then pad to a multiple of 8.
    Frame = 1,
    /// A base record (pk_base_record, 16 bytes): sets base_ns.
    Base = 2,
}

impl PkType {
    /// Every value, in code order.
    pub const ALL: [PkType; 2] = [PkType::Frame, PkType::Base];

    /// The code as the card writes it, or `None` for a code the contract does not define.
    pub fn from_code(code: u8) -> Option<Self> {
        match code {
            1 => Some(PkType::Frame),
            2 => Some(PkType::Base),
            _ => None,
        }
    }

    /// The contract's name for this code.
    pub fn name(self) -> &'static str {
        match self {
            PkType::Frame => "FRAME",
            PkType::Base => "BASE",
        }
    }
}

/// Per-queue late policy (send late / drop).
pub const FEATURE_LATE_POLICY: u32 = 1 << 0;
/// Per-queue horizon policy (drop / cap).
pub const FEATURE_HORIZON_POLICY: u32 = 1 << 1;
/// PHC frequency trim in ppb (PHC_ADJFINE_PPB).
pub const FEATURE_PHC_ADJFINE: u32 = 1 << 2;
/// Pulse-per-second output.
pub const FEATURE_PPS_OUT: u32 = 1 << 3;
/// Interrupt moderation by count and time.
pub const FEATURE_IRQ_MODERATION: u32 = 1 << 4;
/// Receive path: RX global block (RX_*), RX queues (RXQ_*), RX descriptors and completions.
pub const FEATURE_RX_PATH: u32 = 1 << 5;
/// Packed transmit format (Q_CTRL.FORMAT, pk_record). Not built yet: every build reads 0 and Q_CTRL.FORMAT reads 0.
pub const FEATURE_PACKED_TX: u32 = 1 << 6;

/// Send as soon as possible: no launch time, the frame is scheduled at the PHC time it is fetched.
pub const DESC_FLAG_ASAP: u32 = 1 << 0;

/// Launch time was capped to the horizon (horizon policy CAP).
pub const CPL_FLAG_CAPPED: u32 = 1 << 0;
/// The completion is for a packed record: ring_index is the record's 8-byte unit index in the queue's stream, cookie is 0, launch_ns is base_ns + launch_off (or the parse time for ASAP).
pub const CPL_FLAG_PACKED: u32 = 1 << 1;
/// Phase bit: a record is valid when this equals the host's expected phase.
pub const CPL_FLAG_PHASE: u32 = 1 << 31;

/// The frame matched a steering-table entry (steer_entry); otherwise it went to the queue of an EtherType rule (RX_STEER_ET) or to RX_DEFAULT_QUEUE.
pub const RXC_FLAG_STEERED: u32 = 1 << 0;
/// Phase bit: a record is valid when this equals the host's expected phase.
pub const RXC_FLAG_PHASE: u32 = 1 << 31;

/// Send as soon as possible: launch_off is ignored, the frame is scheduled at the PHC time its record is parsed.
pub const PK_FLAG_ASAP: u32 = 1 << 0;

/// Size of one descriptor record in bytes.
pub const DESC_SIZE: usize = 32;

/// One frame to send: where it is in host memory, how long it is, and when it must leave.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TxDescriptor {
    /// Host DMA address of the frame's first byte.
    pub addr: u64,
    /// Frame length in bytes, Ethernet header to end of payload, without FCS.
    pub len: u32,
    /// Opaque value echoed in the completion.
    pub cookie: u32,
    /// Earliest departure time, TAI ns (ignored with flag ASAP).
    pub launch_ns: u64,
    /// Descriptor flags (DESC_FLAG_*); reserved bits must be 0.
    pub flags: u32,
    /// Must be written 0; ignored by the card.
    pub reserved: u32,
}

impl TxDescriptor {
    /// Encode as the little-endian record the card reads or writes.
    pub fn to_bytes(&self) -> [u8; 32] {
        let mut b = [0u8; 32];
        b[0..8].copy_from_slice(&self.addr.to_le_bytes());
        b[8..12].copy_from_slice(&self.len.to_le_bytes());
        b[12..16].copy_from_slice(&self.cookie.to_le_bytes());
        b[16..24].copy_from_slice(&self.launch_ns.to_le_bytes());
        b[24..28].copy_from_slice(&self.flags.to_le_bytes());
        b[28..32].copy_from_slice(&self.reserved.to_le_bytes());
        b
    }

    /// Decode a little-endian record.
    pub fn from_bytes(b: &[u8; 32]) -> Self {
        Self {
            addr: u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]),
            len: u32::from_le_bytes([b[8], b[9], b[10], b[11]]),
            cookie: u32::from_le_bytes([b[12], b[13], b[14], b[15]]),
            launch_ns: u64::from_le_bytes([b[16], b[17], b[18], b[19], b[20], b[21], b[22], b[23]]),
            flags: u32::from_le_bytes([b[24], b[25], b[26], b[27]]),
            reserved: u32::from_le_bytes([b[28], b[29], b[30], b[31]]),
        }
    }
}

/// Size of one completion record in bytes.
pub const CPL_SIZE: usize = 32;

/// One per descriptor, exactly once. The phase bit is in the last dword so a half-written record is never valid.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Completion {
    /// Actual departure for SENT and SENT_LATE: the PHC time at which the frame started on the line (its first preamble octet; the SFD is 7 octets later), as the MAC reports it (TX_MAC_LAG: the co-simulated card, whose wire applies the start alignment and the deficit idle count, and the 10G boards, whose tsnic_xgmii_tx reports its /S/ on the XGMII) or as the card derives it from the MAC's handshakes and the line's rules (the 100G CMAC boards: tsnic_cmac_tx_lag, on a busy line too; the CMAC's own fixed latency is in the compensation), plus TX latency compensation. PHC time of the decision otherwise.
    pub depart_ns: u64,
    /// Requested launch time as the descriptor gave it.
    pub launch_ns: u64,
    /// The descriptor's cookie.
    pub cookie: u32,
    /// Index of the descriptor in its queue's ring (modulo 2^16).
    pub ring_index: u16,
    /// Queue the descriptor was posted on.
    pub queue: u16,
    /// STATUS_* code.
    pub status: u8,
    /// REJECT_* reason for REJECTED, 0 otherwise.
    pub reason: u8,
    /// Frame length from the descriptor (low 16 bits).
    pub len: u16,
    /// Bit 31: phase. It flips each time the card wraps the completion ring; the first pass writes 1.
    pub flags: u32,
}

impl Completion {
    /// Encode as the little-endian record the card reads or writes.
    pub fn to_bytes(&self) -> [u8; 32] {
        let mut b = [0u8; 32];
        b[0..8].copy_from_slice(&self.depart_ns.to_le_bytes());
        b[8..16].copy_from_slice(&self.launch_ns.to_le_bytes());
        b[16..20].copy_from_slice(&self.cookie.to_le_bytes());
        b[20..22].copy_from_slice(&self.ring_index.to_le_bytes());
        b[22..24].copy_from_slice(&self.queue.to_le_bytes());
        b[24..25].copy_from_slice(&self.status.to_le_bytes());
        b[25..26].copy_from_slice(&self.reason.to_le_bytes());
        b[26..28].copy_from_slice(&self.len.to_le_bytes());
        b[28..32].copy_from_slice(&self.flags.to_le_bytes());
        b
    }

    /// Decode a little-endian record.
    pub fn from_bytes(b: &[u8; 32]) -> Self {
        Self {
            depart_ns: u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]),
            launch_ns: u64::from_le_bytes([b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]]),
            cookie: u32::from_le_bytes([b[16], b[17], b[18], b[19]]),
            ring_index: u16::from_le_bytes([b[20], b[21]]),
            queue: u16::from_le_bytes([b[22], b[23]]),
            status: u8::from_le_bytes([b[24]]),
            reason: u8::from_le_bytes([b[25]]),
            len: u16::from_le_bytes([b[26], b[27]]),
            flags: u32::from_le_bytes([b[28], b[29], b[30], b[31]]),
        }
    }
}

/// Size of one rx_descriptor record in bytes.
pub const RXD_SIZE: usize = 16;

/// One empty host buffer posted for received frames.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RxDescriptor {
    /// Host DMA address of the buffer (64-byte aligned).
    pub addr: u64,
    /// Buffer length in bytes (a frame longer than this completes TRUNCATED).
    pub len: u32,
    /// Must be written 0; ignored by the card.
    pub reserved: u32,
}

impl RxDescriptor {
    /// Encode as the little-endian record the card reads or writes.
    pub fn to_bytes(&self) -> [u8; 16] {
        let mut b = [0u8; 16];
        b[0..8].copy_from_slice(&self.addr.to_le_bytes());
        b[8..12].copy_from_slice(&self.len.to_le_bytes());
        b[12..16].copy_from_slice(&self.reserved.to_le_bytes());
        b
    }

    /// Decode a little-endian record.
    pub fn from_bytes(b: &[u8; 16]) -> Self {
        Self {
            addr: u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]),
            len: u32::from_le_bytes([b[8], b[9], b[10], b[11]]),
            reserved: u32::from_le_bytes([b[12], b[13], b[14], b[15]]),
        }
    }
}

/// Size of one rx_completion record in bytes.
pub const RXC_SIZE: usize = 32;

/// One per consumed RX descriptor, at the descriptor's index in the queue's completion ring. Phase bit in the last dword.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RxCompletion {
    /// Arrival time: PHC time of the frame's first beat at the core plus RX_LAT_COMP_NS (or the MAC's stamp with RX_TS_EXTERNAL).
    pub arrival_ns: u64,
    /// Bytes written into the buffer.
    pub len: u16,
    /// Frame length as received, without FCS (saturates at 65535).
    pub frame_len: u16,
    /// Index of the consumed descriptor in its ring (modulo 2^16).
    pub ring_index: u16,
    /// RX queue.
    pub queue: u16,
    /// RX_STATUS_* code.
    pub status: u8,
    /// Steering-table entry that matched (valid with flag STEERED), 0 otherwise.
    pub steer_entry: u8,
    /// 0.
    pub reserved0: u16,
    /// 0.
    pub reserved1: u32,
    /// 0.
    pub reserved2: u32,
    /// RXC_FLAG_* bits; bit 31 is the phase (flips each ring wrap, first pass writes 1).
    pub flags: u32,
}

impl RxCompletion {
    /// Encode as the little-endian record the card reads or writes.
    pub fn to_bytes(&self) -> [u8; 32] {
        let mut b = [0u8; 32];
        b[0..8].copy_from_slice(&self.arrival_ns.to_le_bytes());
        b[8..10].copy_from_slice(&self.len.to_le_bytes());
        b[10..12].copy_from_slice(&self.frame_len.to_le_bytes());
        b[12..14].copy_from_slice(&self.ring_index.to_le_bytes());
        b[14..16].copy_from_slice(&self.queue.to_le_bytes());
        b[16..17].copy_from_slice(&self.status.to_le_bytes());
        b[17..18].copy_from_slice(&self.steer_entry.to_le_bytes());
        b[18..20].copy_from_slice(&self.reserved0.to_le_bytes());
        b[20..24].copy_from_slice(&self.reserved1.to_le_bytes());
        b[24..28].copy_from_slice(&self.reserved2.to_le_bytes());
        b[28..32].copy_from_slice(&self.flags.to_le_bytes());
        b
    }

    /// Decode a little-endian record.
    pub fn from_bytes(b: &[u8; 32]) -> Self {
        Self {
            arrival_ns: u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]),
            len: u16::from_le_bytes([b[8], b[9]]),
            frame_len: u16::from_le_bytes([b[10], b[11]]),
            ring_index: u16::from_le_bytes([b[12], b[13]]),
            queue: u16::from_le_bytes([b[14], b[15]]),
            status: u8::from_le_bytes([b[16]]),
            steer_entry: u8::from_le_bytes([b[17]]),
            reserved0: u16::from_le_bytes([b[18], b[19]]),
            reserved1: u32::from_le_bytes([b[20], b[21], b[22], b[23]]),
            reserved2: u32::from_le_bytes([b[24], b[25], b[26], b[27]]),
            flags: u32::from_le_bytes([b[28], b[29], b[30], b[31]]),
        }
    }
}

/// Size of one pk_record record in bytes.
pub const PKR_SIZE: usize = 8;

/// Packed stream record header (every record starts with it): a FRAME, followed by the frame, or the first half of a BASE record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PkRecord {
    /// FRAME: frame length in bytes that follow the record, without FCS (the next record is at 8 + len rounded up to 8). BASE: 0.
    pub len: u16,
    /// PK_TYPE_* code; any other value (0 included) completes REJECTED PK_BAD_TYPE and halts the stream.
    pub kind: u8,
    /// FRAME: PK_FLAG_* bits, the others must be 0 (REJECTED BAD_FLAGS). BASE: 0, ignored.
    pub flags: u8,
    /// FRAME: launch time minus the queue's base_ns, unsigned ns (ignored with flag ASAP). BASE: 0, ignored.
    pub launch_off: u32,
}

impl PkRecord {
    /// Encode as the little-endian record the card reads or writes.
    pub fn to_bytes(&self) -> [u8; 8] {
        let mut b = [0u8; 8];
        b[0..2].copy_from_slice(&self.len.to_le_bytes());
        b[2..3].copy_from_slice(&self.kind.to_le_bytes());
        b[3..4].copy_from_slice(&self.flags.to_le_bytes());
        b[4..8].copy_from_slice(&self.launch_off.to_le_bytes());
        b
    }

    /// Decode a little-endian record.
    pub fn from_bytes(b: &[u8; 8]) -> Self {
        Self {
            len: u16::from_le_bytes([b[0], b[1]]),
            kind: u8::from_le_bytes([b[2]]),
            flags: u8::from_le_bytes([b[3]]),
            launch_off: u32::from_le_bytes([b[4], b[5], b[6], b[7]]),
        }
    }
}

/// Size of one pk_base_record record in bytes.
pub const PKB_SIZE: usize = 16;

/// Packed stream BASE record: sets the queue's base_ns for the FRAME records after it (base_ns is 0 when the queue is enabled). Gets no completion.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PkBaseRecord {
    /// 0, ignored.
    pub len: u16,
    /// PK_TYPE_BASE.
    pub kind: u8,
    /// 0, ignored.
    pub flags: u8,
    /// 0, ignored.
    pub reserved: u32,
    /// TAI ns that the following FRAME records' launch_off count from.
    pub base_ns: u64,
}

impl PkBaseRecord {
    /// Encode as the little-endian record the card reads or writes.
    pub fn to_bytes(&self) -> [u8; 16] {
        let mut b = [0u8; 16];
        b[0..2].copy_from_slice(&self.len.to_le_bytes());
        b[2..3].copy_from_slice(&self.kind.to_le_bytes());
        b[3..4].copy_from_slice(&self.flags.to_le_bytes());
        b[4..8].copy_from_slice(&self.reserved.to_le_bytes());
        b[8..16].copy_from_slice(&self.base_ns.to_le_bytes());
        b
    }

    /// Decode a little-endian record.
    pub fn from_bytes(b: &[u8; 16]) -> Self {
        Self {
            len: u16::from_le_bytes([b[0], b[1]]),
            kind: u8::from_le_bytes([b[2]]),
            flags: u8::from_le_bytes([b[3]]),
            reserved: u32::from_le_bytes([b[4], b[5], b[6], b[7]]),
            base_ns: u64::from_le_bytes([b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]]),
        }
    }
}

/// BAR0 register offsets (bytes). Per-queue registers are offsets inside one queue's block:
/// queue `q`'s register `r` is at `Q_BASE + q * Q_STRIDE + r`.
pub mod reg {
    /// Block CAP: Identity and capabilities: read these first; nothing here is writable.
    pub const CAP_BASE: usize = 0x0;
    /// (ro) 0x54534E43 ("TSNC").
    pub const CAP_MAGIC: usize = 0x0;
    /// (ro) Contract version: major in bits 31:16, minor in bits 15:0.
    pub const CAP_VERSION: usize = 0x4;
    /// (ro) Number of TX queues.
    pub const CAP_NUM_QUEUES: usize = 0x8;
    /// (ro) Nominal core clock frequency in Hz.
    pub const CAP_CLK_FREQ_HZ: usize = 0xc;
    /// (ro) Calendar slot width in ns.
    pub const CAP_SLOT_NS: usize = 0x10;
    /// (ro) Number of slots in the calendar's fine level.
    pub const CAP_SLOTS: usize = 0x14;
    /// (ro) Calendar horizon in ns, bits 31:0.
    pub const CAP_HORIZON_NS_LO: usize = 0x18;
    /// (ro) Calendar horizon in ns, bits 63:32.
    pub const CAP_HORIZON_NS_HI: usize = 0x1c;
    /// (ro) FEATURE_* bits.
    pub const CAP_FEATURES: usize = 0x20;
    /// (ro) Largest allowed Q_SIZE_LOG2 and CPL_SIZE_LOG2.
    pub const CAP_RING_LOG2_MAX: usize = 0x24;
    /// (ro) Largest frame length (without FCS) a descriptor may carry.
    pub const CAP_MAX_FRAME_LEN: usize = 0x28;
    /// (ro) AXI-Stream TX data width in bits.
    pub const CAP_TX_DATA_WIDTH: usize = 0x2c;
    /// (ro) Calendar capacity: entries outstanding across all queues.
    pub const CAP_NODES: usize = 0x30;
    /// (ro) Byte offset of queue 0's register block.
    pub const CAP_QUEUE_BASE: usize = 0x34;
    /// (ro) Byte distance between consecutive queues' register blocks.
    pub const CAP_QUEUE_STRIDE: usize = 0x38;
    /// Block CTRL: Global control.
    pub const CTRL_BASE: usize = 0x100;
    /// (rw) Global control.
    pub const CTRL_CONTROL: usize = 0x100;
    /// 1: the core fetches, schedules and sends.
    pub const CTRL_CONTROL_ENABLE: u32 = 0x1;
    /// Write 1: core reset. Every outstanding descriptor is completed FLUSHED; self-clearing.
    pub const CTRL_CONTROL_RESET: u32 = 0x2;
    /// (ro) Global status.
    pub const CTRL_STATUS: usize = 0x104;
    /// Core enabled and out of reset.
    pub const CTRL_STATUS_RUNNING: u32 = 0x1;
    /// A core reset is still completing outstanding descriptors, or the calendar is still clearing its memory after reset. Post nothing until it reads 0.
    pub const CTRL_STATUS_RESET_BUSY: u32 = 0x2;
    /// (rw) Payload prefetch lookahead: an entry leaves the calendar this long before its launch time.
    pub const CTRL_LOOKAHEAD_NS: usize = 0x108;
    /// (rw) Added to a frame's departure (its start on the line as the MAC reports it, or its first beat at the MAC) to form depart_ns: the fixed TX latency from there to the line (10G boards: the MAC's idle-line latency and the PCS/PMA's; CMAC: the CMAC's and the GT's).
    pub const CTRL_TX_LAT_COMP_NS: usize = 0x10c;
    /// (rw) Interrupt control.
    pub const CTRL_IRQ_CTRL: usize = 0x110;
    /// 1: raise the interrupt output on completions.
    pub const CTRL_IRQ_CTRL_ENABLE: u32 = 0x1;
    /// (rw) Moderation: interrupt after this many completions (0 or 1: every completion).
    pub const CTRL_IRQ_MOD_COUNT: usize = 0x114;
    /// (rw) Moderation: interrupt at most this long after the first unsignalled completion (0: no timer).
    pub const CTRL_IRQ_MOD_TIME_NS: usize = 0x118;
    /// (w1c) Bit 0: interrupt pending. Write 1 to clear.
    pub const CTRL_IRQ_STATUS: usize = 0x11c;
    /// Block PHC: PTP hardware clock: TAI time as u64 ns plus a 48-bit fraction of a ns.
    pub const PHC_BASE: usize = 0x200;
    /// (rc) Reading latches a snapshot of the whole time (ns and fraction) and returns ns bits 31:0.
    pub const PHC_TIME_LO: usize = 0x200;
    /// (ro) ns bits 63:32 of the snapshot latched by the last TIME_LO read.
    pub const PHC_TIME_HI: usize = 0x204;
    /// (ro) Fraction of a ns (bits 47:16 of the 48-bit fraction) of the same snapshot.
    pub const PHC_TIME_FNS: usize = 0x208;
    /// (rw) New time for CMD.SET, ns bits 31:0.
    pub const PHC_SET_LO: usize = 0x210;
    /// (rw) New time for CMD.SET, ns bits 63:32.
    pub const PHC_SET_HI: usize = 0x214;
    /// (rw) Signed offset for CMD.ADJ, ns bits 31:0 (two's complement i64).
    pub const PHC_ADJ_LO: usize = 0x218;
    /// (rw) Signed offset for CMD.ADJ, ns bits 63:32.
    pub const PHC_ADJ_HI: usize = 0x21c;
    /// (wo) Write a 1 bit to act; both at once do SET.
    pub const PHC_CMD: usize = 0x220;
    /// Step the clock to SET_HI:SET_LO ns, fraction cleared.
    pub const PHC_CMD_SET: u32 = 0x1;
    /// Add the signed ADJ_HI:ADJ_LO ns atomically (adjtime), fraction kept.
    pub const PHC_CMD_ADJ: u32 = 0x2;
    /// (rw) Nominal increment per core clock, 16.48 fixed-point ns, bits 31:0 (staged until PERIOD_HI is written).
    pub const PHC_PERIOD_LO: usize = 0x224;
    /// (rw) Nominal increment bits 63:32 (bits 31:16 whole ns, 15:0 top of the fraction). Writing it applies PERIOD_HI:PERIOD_LO.
    pub const PHC_PERIOD_HI: usize = 0x228;
    /// (rw) Signed frequency trim in parts per billion: increment = period + trunc(period * ppb / 10^9).
    pub const PHC_ADJFINE_PPB: usize = 0x22c;
    /// (ro) PHC status.
    pub const PHC_STATUS: usize = 0x230;
    /// A new increment or the seconds view is still being computed.
    pub const PHC_STATUS_BUSY: u32 = 0x1;
    /// (ro) Number of steps (SET or ADJ) since reset; other blocks see each as a one-cycle step pulse.
    pub const PHC_STEP_COUNT: usize = 0x234;
    /// (ro) Seconds of the snapshot (snapshot ns / 10^9), bits 31:0.
    pub const PHC_SEC_LO: usize = 0x238;
    /// (ro) Seconds of the snapshot, bits 47:32.
    pub const PHC_SEC_HI: usize = 0x23c;
    /// (ro) Nanoseconds within the second of the snapshot (snapshot ns mod 10^9).
    pub const PHC_NSEC: usize = 0x240;
    /// Block CPL: Completion ring: one ring for all queues, written by the card, consumed by the host.
    pub const CPL_BASE: usize = 0x300;
    /// (rw) Ring base DMA address, bits 31:0 (32-byte aligned).
    pub const CPL_BASE_LO: usize = 0x300;
    /// (rw) Ring base DMA address, bits 63:32.
    pub const CPL_BASE_HI: usize = 0x304;
    /// (rw) log2 of the number of 32-byte records (at most CAP_RING_LOG2_MAX).
    pub const CPL_SIZE_LOG2: usize = 0x308;
    /// (rw) Bit 0: enable. Enabling resets the producer and consumer indexes to 0 and the phase to 1.
    pub const CPL_CTRL: usize = 0x30c;
    /// (ro) Card's producer index (records written, modulo 2^32).
    pub const CPL_PROD: usize = 0x310;
    /// (rw) Host's consumer index doorbell (records consumed, modulo 2^32). The card never overwrites an unconsumed record: it waits.
    pub const CPL_CONS: usize = 0x314;
    /// Block CNT: Global 64-bit counters. Reading _LO latches _HI.
    pub const CNT_BASE: usize = 0x400;
    /// (rc) Descriptors fetched from host rings, bits 31:0.
    pub const CNT_POSTED_LO: usize = 0x400;
    /// (ro) Bits 63:32.
    pub const CNT_POSTED_HI: usize = 0x404;
    /// (rc) Completions with status SENT.
    pub const CNT_SENT_LO: usize = 0x408;
    /// (ro) Bits 63:32.
    pub const CNT_SENT_HI: usize = 0x40c;
    /// (rc) Completions with status SENT_LATE.
    pub const CNT_SENT_LATE_LO: usize = 0x410;
    /// (ro) Bits 63:32.
    pub const CNT_SENT_LATE_HI: usize = 0x414;
    /// (rc) Completions with status DROPPED_LATE.
    pub const CNT_DROPPED_LATE_LO: usize = 0x418;
    /// (ro) Bits 63:32.
    pub const CNT_DROPPED_LATE_HI: usize = 0x41c;
    /// (rc) Completions with status DROPPED_HORIZON.
    pub const CNT_DROPPED_HORIZON_LO: usize = 0x420;
    /// (ro) Bits 63:32.
    pub const CNT_DROPPED_HORIZON_HI: usize = 0x424;
    /// (rc) Completions with status FLUSHED.
    pub const CNT_FLUSHED_LO: usize = 0x428;
    /// (ro) Bits 63:32.
    pub const CNT_FLUSHED_HI: usize = 0x42c;
    /// (rc) Completions with status REJECTED.
    pub const CNT_REJECTED_LO: usize = 0x430;
    /// (ro) Bits 63:32.
    pub const CNT_REJECTED_HI: usize = 0x434;
    /// (rc) Frame bytes sent on the wire (without FCS).
    pub const CNT_TX_BYTES_LO: usize = 0x438;
    /// (ro) Bits 63:32.
    pub const CNT_TX_BYTES_HI: usize = 0x43c;
    /// (rc) Completions with status DMA_ERROR.
    pub const CNT_DMA_ERROR_LO: usize = 0x440;
    /// (ro) Bits 63:32.
    pub const CNT_DMA_ERROR_HI: usize = 0x444;
    /// Block FLASH: Configuration flash (quad-SPI NOR, MT25QU01G class) and FPGA reboot: one FLASH_CMD write runs one command to its end (busy polling in hardware). docs/ARCHITECTURE.md "Flash controller".
    pub const FLASH_BASE: usize = 0x800;
    /// (ro) What this build's flash is.
    pub const FLASH_CAP: usize = 0x800;
    /// 0 generic/sim, 1 Alveo U50, 2 U280, 3 U250, 4 NetFPGA SUME.
    pub const FLASH_CAP_BOARD_ID: u32 = 0xff;
    /// 1: the flash is reachable from the host (0 on SUME: every flash command is refused).
    pub const FLASH_CAP_WRITABLE: u32 = 0x100;
    /// log2 of the flash size in bytes (27 = 128 MB).
    pub const FLASH_CAP_SIZE_LOG2: u32 = 0xff0000;
    /// This design was built as the golden image (its boot selector ran after configuration).
    pub const FLASH_CAP_IMAGE_GOLDEN: u32 = 0x1000000;
    /// (wo) Write starts one command (ignored, and STATUS.ERROR set, while BUSY). Bits 3:0 op: 1 READ_ID, 2 READ (LEN bytes at ADDR into the read FIFO), 3 PROGRAM (LEN bytes from the write FIFO to ADDR, not crossing a 256-byte page; write enable, page program, busy poll), 4 ERASE_64K (sector holding ADDR), 5 ERASE_4K (subsector holding ADDR), 6 READ_STATUS (into FLASH_SR), 7 WRITE_STATUS (DATA_SR; write enable first), 8 IPROG (reconfigure from warm-boot address ADDR through ICAP), 9 FIFO_RESET (empties both FIFOs).
    pub const FLASH_CMD: usize = 0x804;
    /// The command.
    pub const FLASH_CMD_OP: u32 = 0xf;
    /// (rw) Flash byte address (every command uses 4-byte addressing); the warm-boot address for IPROG.
    pub const FLASH_ADDR: usize = 0x808;
    /// (rw) Byte count for READ and PROGRAM, 1..256.
    pub const FLASH_LEN: usize = 0x80c;
    /// (ro) Controller status.
    pub const FLASH_STATUS: usize = 0x810;
    /// A command is in progress (including the busy polling, and the golden boot selector after configuration).
    pub const FLASH_STATUS_BUSY: u32 = 0x1;
    /// The last command failed: bad argument (LEN, page crossing, range, FIFO level, unknown op), flag-status program/erase/protection error, busy-poll timeout, a command while busy, or a FLASH_DATA write to a full write FIFO. Cleared when the next command starts.
    pub const FLASH_STATUS_ERROR: u32 = 0x2;
    /// The read FIFO is empty.
    pub const FLASH_STATUS_RD_EMPTY: u32 = 0x4;
    /// The write FIFO is full (64 words).
    pub const FLASH_STATUS_WR_FULL: u32 = 0x8;
    /// Read FIFO level in 32-bit words.
    pub const FLASH_STATUS_RD_LEVEL: u32 = 0xff00;
    /// Write FIFO level in 32-bit words.
    pub const FLASH_STATUS_WR_LEVEL: u32 = 0xff0000;
    /// (rc) Write: push 4 bytes into the write FIFO (the byte at the lower flash address in bits 7:0; all four byte lanes). Read: pop 4 bytes from the read FIFO, same order (0 when empty); the last word of a READ whose LEN is not a multiple of 4 is padded with zeros.
    pub const FLASH_DATA: usize = 0x814;
    /// (ro) JEDEC ID from the last READ_ID: manufacturer in bits 7:0, memory type 15:8, capacity 23:16 (MT25QU01G: 0x20, 0xBB, 0x21).
    pub const FLASH_JEDEC_ID: usize = 0x818;
    /// (ro) From the last READ_STATUS or busy poll: status register in bits 7:0, flag status register in bits 15:8.
    pub const FLASH_SR: usize = 0x81c;
    /// (rw) The value WRITE_STATUS writes to the status register (bits 7:0: block protection, top/bottom, write disable).
    pub const FLASH_DATA_SR: usize = 0x820;
    /// (ro) The warm-boot start address register as read through ICAP after configuration (0: configured from address 0).
    pub const FLASH_BOOT_WBSTAR: usize = 0x824;
    /// (ro) Boot status.
    pub const FLASH_BOOT_STATUS: usize = 0x828;
    /// ICAP BOOTSTS FALLBACK_0: this configuration is a fallback after a failed one.
    pub const FLASH_BOOT_STATUS_FALLBACK: u32 = 0x1;
    /// Golden image only: the slot its boot selector chose (bits 3:2) failed to configure (this is the fallback).
    pub const FLASH_BOOT_STATUS_GOLDEN_CHOSE_SLOT: u32 = 0x2;
    /// The slot golden had chosen: 0 A, 1 B.
    pub const FLASH_BOOT_STATUS_TRIED_SLOT: u32 = 0xc;
    /// Raw ICAP BOOTSTS bits 15:0 (status of this and the previous configuration).
    pub const FLASH_BOOT_STATUS_BOOTSTS: u32 = 0xffff0000;
    /// (rw) SPI clock = core clock / (2 * (CLK_DIV + 1)), bits 7:0; the reset value gives at most 50 MHz (2: 41.7 MHz at 250 MHz).
    pub const FLASH_CLK_DIV: usize = 0x82c;
    /// Block MAC: MAC side on boards: the state of the PHC copies in the MAC clock domains (docs/ARCHITECTURE.md, "Clock domains and time distribution"), the transceiver set-up and the PCIe / Ethernet link status (docs/BRINGUP.md).
    pub const MAC_BASE: usize = 0x600;
    /// (ro) PHC copies in the MAC clock domains (tsnic_td_sink). A single-clock core (no MAC domains) reads 0x1: its launch gate uses the PHC itself.
    pub const MAC_TD_STATUS: usize = 0x604;
    /// The TX-domain copy is locked: launch gate timing as specified. 0 while it (re)acquires after reset or a PHC step: frames may leave a few ns late, never early.
    pub const MAC_TD_STATUS_TX_LOCKED: u32 = 0x1;
    /// The RX-domain copy is locked: arrival times as specified.
    pub const MAC_TD_STATUS_RX_LOCKED: u32 = 0x2;
    /// (ro) The board's transceiver side as its top reports it (tsnic_board_core input phy_status, through a two-flop synchronizer per bit: read twice to be sure of a multi-bit value). A single-clock core reads 0x1.
    pub const MAC_PHY_STATUS: usize = 0x608;
    /// The transceivers' reference clock runs. NetFPGA SUME: its Si5324 is set up over I2C and locked (board tsnic_si5324_init); until then the 10G PCS/PMA is held in reset and no frame leaves. Boards whose reference clock needs no set-up read 1.
    pub const MAC_PHY_STATUS_REFCLK_READY: u32 = 0x1;
    /// The reference clock set-up failed; the board retries it. REFCLK_ERROR_CODE says why.
    pub const MAC_PHY_STATUS_REFCLK_ERROR: u32 = 0x2;
    /// The last set-up failure (kept after a retry succeeds): 0 none, 1 the I2C mux did not ACK, 2 the mux read back another channel, 3 the clock chip did not ACK, 4 the clock chip's identity is not the expected part, 5 no lock in time, 6 the I2C bus stayed stuck (SCL low).
    pub const MAC_PHY_STATUS_REFCLK_ERROR_CODE: u32 = 0xf0;
    /// (ro) The PCIe link and the Ethernet MAC's receive side as the board's hard blocks report them (tsnic_board_core inputs; docs/BOARDS.md, "Link status"). The PCIe fields come from the hard block's configuration status outputs on the core clock (its user_clk), registered; MAC_RX_UP crosses from the MAC RX clock through a two-flop synchronizer. Software can read this only over a working link, so it sees LTSSM L0; a link that does not train is read over JTAG or on the LEDs (docs/BRINGUP.md). 0 on a core with no board around it (the simulated card): BOARD = 0 means no board, every other field 0.
    pub const MAC_LINK_STATUS: usize = 0x60c;
    /// 1: a board top drives this register (tsnic_board_core). 0: not a board (the simulated card, tsnic_core alone); the other fields are 0.
    pub const MAC_LINK_STATUS_BOARD: u32 = 0x1;
    /// The hard block's user_lnk_up: the PCIe data link is up.
    pub const MAC_LINK_STATUS_PCIE_LINK_UP: u32 = 0x2;
    /// The MAC receives: CMAC stat_rx_aligned (all lanes aligned, PG203); 10GBASE-R: PCS block lock (SUME ten_gig_eth_pcs_pma core_status[0], PG068; Alveo 10G option xxv_ethernet stat_rx_status_0, PG210). MAC_KIND says which.
    pub const MAC_LINK_STATUS_MAC_RX_UP: u32 = 0x4;
    /// What MAC_RX_UP reports: 0 no MAC, 1 100G CMAC RX alignment, 2 10GBASE-R PCS block lock.
    pub const MAC_LINK_STATUS_MAC_KIND: u32 = 0x30;
    /// The hard block's cfg_ltssm_state, raw (PG213's encoding, which the driver names; pcie3_7x (PG023) is taken to share it, not checked against PG023's table: 0x00-0x01 Detect, 0x02-0x04 Polling, 0x05-0x0A Configuration, 0x0B-0x0E Recovery, 0x10 L0, 0x11-0x16 L0s, 0x17-0x18 L1, 0x19-0x1A L2, 0x20 Disabled, 0x21-0x26 Loopback, 0x27 Hot Reset, 0x28-0x2B Recovery.Equalization phases 0-3).
    pub const MAC_LINK_STATUS_PCIE_LTSSM: u32 = 0x3f00;
    /// Current link speed as the PCIe generation: 1 2.5 GT/s, 2 5 GT/s, 3 8 GT/s, 4 16 GT/s; 0 the block's code was not one of these. Decoded from cfg_current_speed (UltraScale+ PG213: gen - 1; 7-series Gen3 PG023: one-hot 001/010/100).
    pub const MAC_LINK_STATUS_PCIE_SPEED: u32 = 0x70000;
    /// Negotiated link width in lanes: 1, 2, 4, 8 or 16; 0 the block's code was not one of these. Decoded from cfg_negotiated_width (UltraScale+ PG213: log2 of the lanes; 7-series Gen3 PG023: the lane count 0001/0010/0100/1000).
    pub const MAC_LINK_STATUS_PCIE_WIDTH: u32 = 0x1f00000;
    /// Block Q: Per-queue TX ring, policies and counters (one block per queue).
    pub const Q_BASE: usize = 0x80000;
    /// Distance between consecutive Q blocks.
    pub const Q_STRIDE: usize = 0x80;
    /// Most Q blocks the map has room for.
    pub const Q_MAX_COUNT: usize = 4096;
    /// (rw) Ring base DMA address, bits 31:0 (32-byte aligned).
    pub const Q_BASE_LO: usize = 0x0;
    /// (rw) Ring base DMA address, bits 63:32.
    pub const Q_BASE_HI: usize = 0x4;
    /// (rw) log2 of the number of descriptors in the ring (at most CAP_RING_LOG2_MAX).
    pub const Q_SIZE_LOG2: usize = 0x8;
    /// (rw) Queue control and policies.
    pub const Q_CTRL: usize = 0xc;
    /// 1: the queue's doorbells are served. Clearing it flushes the queue.
    pub const Q_CTRL_ENABLE: u32 = 0x1;
    /// LATE_POLICY_* for this queue.
    pub const Q_CTRL_LATE_POLICY: u32 = 0x2;
    /// HORIZON_POLICY_* for this queue.
    pub const Q_CTRL_HORIZON_POLICY: u32 = 0x4;
    /// Write 1: complete every scheduled entry of the queue FLUSHED; self-clearing.
    pub const Q_CTRL_FLUSH: u32 = 0x8;
    /// 0: classic 32-byte descriptors; 1: packed stream (pk_record; only with CAP_FEATURES.PACKED_TX, change it only while the queue is disabled). Builds without PACKED_TX (all, so far) read 0 and stay classic.
    pub const Q_CTRL_FORMAT: u32 = 0x10;
    /// (rw) Producer index doorbell (descriptors posted, modulo 2^16). A value more than the ring size ahead of CONS is clamped to CONS + ring size.
    pub const Q_PROD: usize = 0x10;
    /// (ro) Consumer index: descriptors fetched by the card (modulo 2^16). Host buffers are reusable only after their completion.
    pub const Q_CONS: usize = 0x14;
    /// (rw) DMA window base, bits 31:0: frames must lie inside [WIN_BASE, WIN_BASE + WIN_LEN).
    pub const Q_WIN_BASE_LO: usize = 0x18;
    /// (rw) DMA window base, bits 63:32.
    pub const Q_WIN_BASE_HI: usize = 0x1c;
    /// (rw) DMA window length, bits 31:0.
    pub const Q_WIN_LEN_LO: usize = 0x20;
    /// (rw) DMA window length, bits 63:32.
    pub const Q_WIN_LEN_HI: usize = 0x24;
    /// (ro) Queue status.
    pub const Q_STATUS: usize = 0x28;
    /// The queue is enabled.
    pub const Q_STATUS_ENABLED: u32 = 0x1;
    /// A flush is still completing entries.
    pub const Q_STATUS_FLUSH_BUSY: u32 = 0x2;
    /// (rw) Most calendar entries this queue may hold at once (0: the calendar's default quota).
    pub const Q_QUOTA: usize = 0x2c;
    /// (ro) Descriptors fetched (32-bit, wraps).
    pub const Q_CNT_POSTED: usize = 0x40;
    /// (ro) Completions SENT (32-bit, wraps).
    pub const Q_CNT_SENT: usize = 0x44;
    /// (ro) Completions SENT_LATE (32-bit, wraps).
    pub const Q_CNT_SENT_LATE: usize = 0x48;
    /// (ro) Completions DROPPED_LATE (32-bit, wraps).
    pub const Q_CNT_DROPPED_LATE: usize = 0x4c;
    /// (ro) Completions DROPPED_HORIZON (32-bit, wraps).
    pub const Q_CNT_DROPPED_HORIZON: usize = 0x50;
    /// (ro) Completions FLUSHED (32-bit, wraps).
    pub const Q_CNT_FLUSHED: usize = 0x54;
    /// (ro) Completions REJECTED (32-bit, wraps).
    pub const Q_CNT_REJECTED: usize = 0x58;
    /// (ro) Completions DMA_ERROR (32-bit, wraps).
    pub const Q_CNT_DMA_ERROR: usize = 0x5c;
    /// Block RX: RX global: enable, arrival-time compensation, the 5-tuple steering table, global RX counters (32-bit, wrap).
    pub const RX_BASE: usize = 0x1000;
    /// (rw) RX control.
    pub const RX_CTRL: usize = 0x1000;
    /// 1: frames are accepted; 0: every arriving frame is dropped and counted in RX_CNT_DROP_DISABLED.
    pub const RX_CTRL_ENABLE: u32 = 0x1;
    /// (ro) Number of RX queues.
    pub const RX_NUM_QUEUES: usize = 0x1004;
    /// (ro) Entries in the steering table.
    pub const RX_STEER_ENTRIES: usize = 0x1008;
    /// (ro) Longest frame delivered whole (without FCS); longer ones complete TOO_LONG.
    pub const RX_MAX_FRAME_LEN: usize = 0x100c;
    /// (rw) Signed ns added to the arrival stamp to form arrival_ns (MAC/PHY RX latency): to the PHC time of a frame's first beat at the core (single-clock configuration), or to the MAC RX domain's PHC copy at the start of frame (boards: tsnic_mac_rx).
    pub const RX_LAT_COMP_NS: usize = 0x1010;
    /// (rw) RX queue of frames that match no steering entry (values >= RX_NUM_QUEUES select queue 0).
    pub const RX_DEFAULT_QUEUE: usize = 0x1014;
    /// (ro) On-card RX frame buffer in bytes (frames waiting for DMA).
    pub const RX_BUF_BYTES: usize = 0x1018;
    /// (ro) EtherType rules (STEER_ET): a frame that matches no 5-tuple entry goes to the queue of the lowest valid rule whose EtherType equals the frame's (bytes 12-13; an 802.1Q tag is not looked behind), else to DEFAULT_QUEUE.
    pub const RX_STEER_ET_RULES: usize = 0x101c;
    /// (rw) Steering entry that STEER_CMD acts on.
    pub const RX_STEER_INDEX: usize = 0x1020;
    /// (rw) Staged entry: IPv4 source address (a.b.c.d is a << 24 | b << 16 | c << 8 | d).
    pub const RX_STEER_SRC_IP: usize = 0x1024;
    /// (rw) Staged entry: IPv4 destination address.
    pub const RX_STEER_DST_IP: usize = 0x1028;
    /// (rw) Staged entry: source port in bits 31:16, destination port in bits 15:0.
    pub const RX_STEER_PORTS: usize = 0x102c;
    /// (rw) Staged entry: protocol, queue, valid.
    pub const RX_STEER_CTRL: usize = 0x1030;
    /// IP protocol (6 TCP, 17 UDP).
    pub const RX_STEER_CTRL_PROTO: u32 = 0xff;
    /// RX queue of matching frames (values >= RX_NUM_QUEUES select queue 0).
    pub const RX_STEER_CTRL_QUEUE: u32 = 0xffff00;
    /// 1: the entry matches; 0: it never does.
    pub const RX_STEER_CTRL_VALID: u32 = 0x80000000;
    /// (wo) Write a 1 bit to act on entry or rule STEER_INDEX (WRITE/READ: an index >= RX_STEER_ENTRIES is ignored).
    pub const RX_STEER_CMD: usize = 0x1034;
    /// Copy the staged SRC_IP/DST_IP/PORTS/CTRL into the entry; frames ending from the next cycle on see it.
    pub const RX_STEER_CMD_WRITE: u32 = 0x1;
    /// Copy the entry into the staged registers.
    pub const RX_STEER_CMD_READ: u32 = 0x2;
    /// Copy the staged STEER_ET into EtherType rule STEER_INDEX (an index >= RX_STEER_ET_RULES is ignored); frames ending from the next cycle on see it.
    pub const RX_STEER_CMD_ET_WRITE: u32 = 0x4;
    /// Copy EtherType rule STEER_INDEX into STEER_ET.
    pub const RX_STEER_CMD_ET_READ: u32 = 0x8;
    /// (rw) Staged EtherType rule (STEER_CMD.ET_WRITE / ET_READ). L2 PTP (IEEE 1588-2019 annex E) is EtherType 0x88F7.
    pub const RX_STEER_ET: usize = 0x1038;
    /// EtherType to match (bytes 12-13 of the frame).
    pub const RX_STEER_ET_ETHERTYPE: u32 = 0xffff;
    /// RX queue of matching frames (values >= RX_NUM_QUEUES select queue 0).
    pub const RX_STEER_ET_QUEUE: u32 = 0xff0000;
    /// 1: the rule matches; 0: it never does.
    pub const RX_STEER_ET_VALID: u32 = 0x80000000;
    /// (ro) Frames that arrived at the RX port (all, including dropped and bad ones).
    pub const RX_CNT_FRAMES: usize = 0x1040;
    /// (ro) Bytes of those frames (without FCS).
    pub const RX_CNT_BYTES: usize = 0x1044;
    /// (ro) Frames dropped because RX_CTRL.ENABLE was 0 when they started.
    pub const RX_CNT_DROP_DISABLED: usize = 0x1048;
    /// (ro) Frames dropped because the on-card RX buffer was full (the host did not keep up).
    pub const RX_CNT_DROP_FULL: usize = 0x104c;
    /// (ro) Frames the MAC flagged bad (delivered with status BAD_FCS unless dropped).
    pub const RX_CNT_BAD_FCS: usize = 0x1050;
    /// (ro) Frames longer than RX_MAX_FRAME_LEN.
    pub const RX_CNT_TOO_LONG: usize = 0x1054;
    /// (ro) Frames that matched a steering entry.
    pub const RX_CNT_STEERED: usize = 0x1058;
    /// (ro) Frames dropped at the MAC before the core (boards: the MAC-to-core clock crossing had no room for a maximum-size frame when the frame started; the core never got them, so CNT_FRAMES does not count them). Always 0 in the single-clock configuration. 32-bit, wraps; reset with the core or the MAC's RX reset.
    pub const RX_CNT_DROP_MAC: usize = 0x105c;
    /// Block RXQ: Per-RX-queue descriptor ring, completion ring and counters. Completion i answers descriptor i.
    pub const RXQ_BASE: usize = 0x2000;
    /// Distance between consecutive RXQ blocks.
    pub const RXQ_STRIDE: usize = 0x40;
    /// Most RXQ blocks the map has room for.
    pub const RXQ_MAX_COUNT: usize = 256;
    /// (rw) Descriptor ring base DMA address, bits 31:0 (16-byte aligned).
    pub const RXQ_DESC_BASE_LO: usize = 0x0;
    /// (rw) Descriptor ring base DMA address, bits 63:32.
    pub const RXQ_DESC_BASE_HI: usize = 0x4;
    /// (rw) Completion ring base DMA address, bits 31:0 (32-byte aligned; same number of records as the descriptor ring).
    pub const RXQ_CPL_BASE_LO: usize = 0x8;
    /// (rw) Completion ring base DMA address, bits 63:32.
    pub const RXQ_CPL_BASE_HI: usize = 0xc;
    /// (rw) log2 of the number of entries of both rings (1..15).
    pub const RXQ_SIZE_LOG2: usize = 0x10;
    /// (rw) RX queue control.
    pub const RXQ_CTRL: usize = 0x14;
    /// 1: frames steered here are written into posted buffers. Enabling resets PROD and CONS to 0 (phase 1) and forgets the descriptors the card had prefetched (those of reads still out are discarded when they return); the enabling write waits while frames taken for the queue are still being completed. While 0 frames for the queue are dropped and counted in RXQ_CNT_DROP_NOBUF.
    pub const RXQ_CTRL_ENABLE: u32 = 0x1;
    /// (rw) Producer index doorbell: descriptors posted (modulo 2^16). A value more than the ring size ahead of the descriptors already given to frames (CONS, or past it while completions are being written) is clamped to that + ring size; PROD never moves back behind descriptors the card has already read. The card reads posted descriptors ahead of frames, several per read.
    pub const RXQ_PROD: usize = 0x18;
    /// (ro) Descriptors consumed = completions written and visible (modulo 2^16).
    pub const RXQ_CONS: usize = 0x1c;
    /// (ro) RX queue status.
    pub const RXQ_STATUS: usize = 0x20;
    /// The queue is enabled.
    pub const RXQ_STATUS_ENABLED: u32 = 0x1;
    /// Frames taken for this queue are not all completed yet, or a descriptor read for it is still out; after a disable, wait until this reads 0 before freeing the rings and buffers.
    pub const RXQ_STATUS_BUSY: u32 = 0x2;
    /// (ro) Completions written (32-bit, wraps).
    pub const RXQ_CNT_FRAMES: usize = 0x24;
    /// (ro) Bytes written into buffers (32-bit, wraps).
    pub const RXQ_CNT_BYTES: usize = 0x28;
    /// (ro) Frames steered here and dropped: no posted buffer, or the queue disabled (32-bit, wraps).
    pub const RXQ_CNT_DROP_NOBUF: usize = 0x2c;
    /// (ro) Completions with a status other than OK (32-bit, wraps).
    pub const RXQ_CNT_ERRORS: usize = 0x30;
}

/// Access kinds of every register, for the driver's typed register block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Read-only.
    Ro,
    /// Read/write.
    Rw,
    /// Write-only; reads return 0.
    Wo,
    /// Write 1 to clear.
    W1c,
    /// Reading has a documented side effect (latches a snapshot).
    Rc,
}

/// One register as the contract describes it.
#[derive(Debug, Clone, Copy)]
pub struct RegInfo {
    /// Block and register name, e.g. `PHC_TIME_LO`.
    pub name: &'static str,
    /// Byte offset (inside a queue's block for `Q_*`).
    pub offset: usize,
    /// Access kind.
    pub access: Access,
    /// True for per-queue registers.
    pub per_queue: bool,
}

/// Every register of the map.
pub const REGISTERS: &[RegInfo] = &[
    RegInfo {
        name: "CAP_MAGIC",
        offset: 0x0,
        access: Access::Ro,
        per_queue: false,
    },
    RegInfo {
        name: "CAP_VERSION",
        offset: 0x4,
        access: Access::Ro,
        per_queue: false,
    },
    RegInfo {
        name: "CAP_NUM_QUEUES",
        offset: 0x8,
        access: Access::Ro,
        per_queue: false,
    },
    RegInfo {
        name: "CAP_CLK_FREQ_HZ",
        offset: 0xc,
        access: Access::Ro,
        per_queue: false,
    },
    RegInfo {
        name: "CAP_SLOT_NS",
        offset: 0x10,
        access: Access::Ro,
        per_queue: false,
    },
    RegInfo {
        name: "CAP_SLOTS",
        offset: 0x14,
        access: Access::Ro,
        per_queue: false,
    },
    RegInfo {
        name: "CAP_HORIZON_NS_LO",
        offset: 0x18,
        access: Access::Ro,
        per_queue: false,
    },
    RegInfo {
        name: "CAP_HORIZON_NS_HI",
        offset: 0x1c,
        access: Access::Ro,
        per_queue: false,
    },
    RegInfo {
        name: "CAP_FEATURES",
        offset: 0x20,
        access: Access::Ro,
        per_queue: false,
    },
    RegInfo {
        name: "CAP_RING_LOG2_MAX",
        offset: 0x24,
        access: Access::Ro,
        per_queue: false,
    },
    RegInfo {
        name: "CAP_MAX_FRAME_LEN",
        offset: 0x28,
        access: Access::Ro,
        per_queue: false,
    },
    RegInfo {
        name: "CAP_TX_DATA_WIDTH",
        offset: 0x2c,
        access: Access::Ro,
        per_queue: false,
    },
    RegInfo {
        name: "CAP_NODES",
        offset: 0x30,
        access: Access::Ro,
        per_queue: false,
    },
    RegInfo {
        name: "CAP_QUEUE_BASE",
        offset: 0x34,
        access: Access::Ro,
        per_queue: false,
    },
    RegInfo {
        name: "CAP_QUEUE_STRIDE",
        offset: 0x38,
        access: Access::Ro,
        per_queue: false,
    },
    RegInfo {
        name: "CTRL_CONTROL",
        offset: 0x100,
        access: Access::Rw,
        per_queue: false,
    },
    RegInfo {
        name: "CTRL_STATUS",
        offset: 0x104,
        access: Access::Ro,
        per_queue: false,
    },
    RegInfo {
        name: "CTRL_LOOKAHEAD_NS",
        offset: 0x108,
        access: Access::Rw,
        per_queue: false,
    },
    RegInfo {
        name: "CTRL_TX_LAT_COMP_NS",
        offset: 0x10c,
        access: Access::Rw,
        per_queue: false,
    },
    RegInfo {
        name: "CTRL_IRQ_CTRL",
        offset: 0x110,
        access: Access::Rw,
        per_queue: false,
    },
    RegInfo {
        name: "CTRL_IRQ_MOD_COUNT",
        offset: 0x114,
        access: Access::Rw,
        per_queue: false,
    },
    RegInfo {
        name: "CTRL_IRQ_MOD_TIME_NS",
        offset: 0x118,
        access: Access::Rw,
        per_queue: false,
    },
    RegInfo {
        name: "CTRL_IRQ_STATUS",
        offset: 0x11c,
        access: Access::W1c,
        per_queue: false,
    },
    RegInfo {
        name: "PHC_TIME_LO",
        offset: 0x200,
        access: Access::Rc,
        per_queue: false,
    },
    RegInfo {
        name: "PHC_TIME_HI",
        offset: 0x204,
        access: Access::Ro,
        per_queue: false,
    },
    RegInfo {
        name: "PHC_TIME_FNS",
        offset: 0x208,
        access: Access::Ro,
        per_queue: false,
    },
    RegInfo {
        name: "PHC_SET_LO",
        offset: 0x210,
        access: Access::Rw,
        per_queue: false,
    },
    RegInfo {
        name: "PHC_SET_HI",
        offset: 0x214,
        access: Access::Rw,
        per_queue: false,
    },
    RegInfo {
        name: "PHC_ADJ_LO",
        offset: 0x218,
        access: Access::Rw,
        per_queue: false,
    },
    RegInfo {
        name: "PHC_ADJ_HI",
        offset: 0x21c,
        access: Access::Rw,
        per_queue: false,
    },
    RegInfo {
        name: "PHC_CMD",
        offset: 0x220,
        access: Access::Wo,
        per_queue: false,
    },
    RegInfo {
        name: "PHC_PERIOD_LO",
        offset: 0x224,
        access: Access::Rw,
        per_queue: false,
    },
    RegInfo {
        name: "PHC_PERIOD_HI",
        offset: 0x228,
        access: Access::Rw,
        per_queue: false,
    },
    RegInfo {
        name: "PHC_ADJFINE_PPB",
        offset: 0x22c,
        access: Access::Rw,
        per_queue: false,
    },
    RegInfo {
        name: "PHC_STATUS",
        offset: 0x230,
        access: Access::Ro,
        per_queue: false,
    },
    RegInfo {
        name: "PHC_STEP_COUNT",
        offset: 0x234,
        access: Access::Ro,
        per_queue: false,
    },
    RegInfo {
        name: "PHC_SEC_LO",
        offset: 0x238,
        access: Access::Ro,
        per_queue: false,
    },
    RegInfo {
        name: "PHC_SEC_HI",
        offset: 0x23c,
        access: Access::Ro,
        per_queue: false,
    },
    RegInfo {
        name: "PHC_NSEC",
        offset: 0x240,
        access: Access::Ro,
        per_queue: false,
    },
    RegInfo {
        name: "CPL_BASE_LO",
        offset: 0x300,
        access: Access::Rw,
        per_queue: false,
    },
    RegInfo {
        name: "CPL_BASE_HI",
        offset: 0x304,
        access: Access::Rw,
        per_queue: false,
    },
    RegInfo {
        name: "CPL_SIZE_LOG2",
        offset: 0x308,
        access: Access::Rw,
        per_queue: false,
    },
    RegInfo {
        name: "CPL_CTRL",
        offset: 0x30c,
        access: Access::Rw,
        per_queue: false,
    },
    RegInfo {
        name: "CPL_PROD",
        offset: 0x310,
        access: Access::Ro,
        per_queue: false,
    },
    RegInfo {
        name: "CPL_CONS",
        offset: 0x314,
        access: Access::Rw,
        per_queue: false,
    },
    RegInfo {
        name: "CNT_POSTED_LO",
        offset: 0x400,
        access: Access::Rc,
        per_queue: false,
    },
    RegInfo {
        name: "CNT_POSTED_HI",
        offset: 0x404,
        access: Access::Ro,
        per_queue: false,
    },
    RegInfo {
        name: "CNT_SENT_LO",
        offset: 0x408,
        access: Access::Rc,
        per_queue: false,
    },
    RegInfo {
        name: "CNT_SENT_HI",
        offset: 0x40c,
        access: Access::Ro,
        per_queue: false,
    },
    RegInfo {
        name: "CNT_SENT_LATE_LO",
        offset: 0x410,
        access: Access::Rc,
        per_queue: false,
    },
    RegInfo {
        name: "CNT_SENT_LATE_HI",
        offset: 0x414,
        access: Access::Ro,
        per_queue: false,
    },
    RegInfo {
        name: "CNT_DROPPED_LATE_LO",
        offset: 0x418,
        access: Access::Rc,
        per_queue: false,
    },
    RegInfo {
        name: "CNT_DROPPED_LATE_HI",
        offset: 0x41c,
        access: Access::Ro,
        per_queue: false,
    },
    RegInfo {
        name: "CNT_DROPPED_HORIZON_LO",
        offset: 0x420,
        access: Access::Rc,
        per_queue: false,
    },
    RegInfo {
        name: "CNT_DROPPED_HORIZON_HI",
        offset: 0x424,
        access: Access::Ro,
        per_queue: false,
    },
    RegInfo {
        name: "CNT_FLUSHED_LO",
        offset: 0x428,
        access: Access::Rc,
        per_queue: false,
    },
    RegInfo {
        name: "CNT_FLUSHED_HI",
        offset: 0x42c,
        access: Access::Ro,
        per_queue: false,
    },
    RegInfo {
        name: "CNT_REJECTED_LO",
        offset: 0x430,
        access: Access::Rc,
        per_queue: false,
    },
    RegInfo {
        name: "CNT_REJECTED_HI",
        offset: 0x434,
        access: Access::Ro,
        per_queue: false,
    },
    RegInfo {
        name: "CNT_TX_BYTES_LO",
        offset: 0x438,
        access: Access::Rc,
        per_queue: false,
    },
    RegInfo {
        name: "CNT_TX_BYTES_HI",
        offset: 0x43c,
        access: Access::Ro,
        per_queue: false,
    },
    RegInfo {
        name: "CNT_DMA_ERROR_LO",
        offset: 0x440,
        access: Access::Rc,
        per_queue: false,
    },
    RegInfo {
        name: "CNT_DMA_ERROR_HI",
        offset: 0x444,
        access: Access::Ro,
        per_queue: false,
    },
    RegInfo {
        name: "FLASH_CAP",
        offset: 0x800,
        access: Access::Ro,
        per_queue: false,
    },
    RegInfo {
        name: "FLASH_CMD",
        offset: 0x804,
        access: Access::Wo,
        per_queue: false,
    },
    RegInfo {
        name: "FLASH_ADDR",
        offset: 0x808,
        access: Access::Rw,
        per_queue: false,
    },
    RegInfo {
        name: "FLASH_LEN",
        offset: 0x80c,
        access: Access::Rw,
        per_queue: false,
    },
    RegInfo {
        name: "FLASH_STATUS",
        offset: 0x810,
        access: Access::Ro,
        per_queue: false,
    },
    RegInfo {
        name: "FLASH_DATA",
        offset: 0x814,
        access: Access::Rc,
        per_queue: false,
    },
    RegInfo {
        name: "FLASH_JEDEC_ID",
        offset: 0x818,
        access: Access::Ro,
        per_queue: false,
    },
    RegInfo {
        name: "FLASH_SR",
        offset: 0x81c,
        access: Access::Ro,
        per_queue: false,
    },
    RegInfo {
        name: "FLASH_DATA_SR",
        offset: 0x820,
        access: Access::Rw,
        per_queue: false,
    },
    RegInfo {
        name: "FLASH_BOOT_WBSTAR",
        offset: 0x824,
        access: Access::Ro,
        per_queue: false,
    },
    RegInfo {
        name: "FLASH_BOOT_STATUS",
        offset: 0x828,
        access: Access::Ro,
        per_queue: false,
    },
    RegInfo {
        name: "FLASH_CLK_DIV",
        offset: 0x82c,
        access: Access::Rw,
        per_queue: false,
    },
    RegInfo {
        name: "MAC_TD_STATUS",
        offset: 0x604,
        access: Access::Ro,
        per_queue: false,
    },
    RegInfo {
        name: "MAC_PHY_STATUS",
        offset: 0x608,
        access: Access::Ro,
        per_queue: false,
    },
    RegInfo {
        name: "MAC_LINK_STATUS",
        offset: 0x60c,
        access: Access::Ro,
        per_queue: false,
    },
    RegInfo {
        name: "Q_BASE_LO",
        offset: 0x0,
        access: Access::Rw,
        per_queue: true,
    },
    RegInfo {
        name: "Q_BASE_HI",
        offset: 0x4,
        access: Access::Rw,
        per_queue: true,
    },
    RegInfo {
        name: "Q_SIZE_LOG2",
        offset: 0x8,
        access: Access::Rw,
        per_queue: true,
    },
    RegInfo {
        name: "Q_CTRL",
        offset: 0xc,
        access: Access::Rw,
        per_queue: true,
    },
    RegInfo {
        name: "Q_PROD",
        offset: 0x10,
        access: Access::Rw,
        per_queue: true,
    },
    RegInfo {
        name: "Q_CONS",
        offset: 0x14,
        access: Access::Ro,
        per_queue: true,
    },
    RegInfo {
        name: "Q_WIN_BASE_LO",
        offset: 0x18,
        access: Access::Rw,
        per_queue: true,
    },
    RegInfo {
        name: "Q_WIN_BASE_HI",
        offset: 0x1c,
        access: Access::Rw,
        per_queue: true,
    },
    RegInfo {
        name: "Q_WIN_LEN_LO",
        offset: 0x20,
        access: Access::Rw,
        per_queue: true,
    },
    RegInfo {
        name: "Q_WIN_LEN_HI",
        offset: 0x24,
        access: Access::Rw,
        per_queue: true,
    },
    RegInfo {
        name: "Q_STATUS",
        offset: 0x28,
        access: Access::Ro,
        per_queue: true,
    },
    RegInfo {
        name: "Q_QUOTA",
        offset: 0x2c,
        access: Access::Rw,
        per_queue: true,
    },
    RegInfo {
        name: "Q_CNT_POSTED",
        offset: 0x40,
        access: Access::Ro,
        per_queue: true,
    },
    RegInfo {
        name: "Q_CNT_SENT",
        offset: 0x44,
        access: Access::Ro,
        per_queue: true,
    },
    RegInfo {
        name: "Q_CNT_SENT_LATE",
        offset: 0x48,
        access: Access::Ro,
        per_queue: true,
    },
    RegInfo {
        name: "Q_CNT_DROPPED_LATE",
        offset: 0x4c,
        access: Access::Ro,
        per_queue: true,
    },
    RegInfo {
        name: "Q_CNT_DROPPED_HORIZON",
        offset: 0x50,
        access: Access::Ro,
        per_queue: true,
    },
    RegInfo {
        name: "Q_CNT_FLUSHED",
        offset: 0x54,
        access: Access::Ro,
        per_queue: true,
    },
    RegInfo {
        name: "Q_CNT_REJECTED",
        offset: 0x58,
        access: Access::Ro,
        per_queue: true,
    },
    RegInfo {
        name: "Q_CNT_DMA_ERROR",
        offset: 0x5c,
        access: Access::Ro,
        per_queue: true,
    },
    RegInfo {
        name: "RX_CTRL",
        offset: 0x1000,
        access: Access::Rw,
        per_queue: false,
    },
    RegInfo {
        name: "RX_NUM_QUEUES",
        offset: 0x1004,
        access: Access::Ro,
        per_queue: false,
    },
    RegInfo {
        name: "RX_STEER_ENTRIES",
        offset: 0x1008,
        access: Access::Ro,
        per_queue: false,
    },
    RegInfo {
        name: "RX_MAX_FRAME_LEN",
        offset: 0x100c,
        access: Access::Ro,
        per_queue: false,
    },
    RegInfo {
        name: "RX_LAT_COMP_NS",
        offset: 0x1010,
        access: Access::Rw,
        per_queue: false,
    },
    RegInfo {
        name: "RX_DEFAULT_QUEUE",
        offset: 0x1014,
        access: Access::Rw,
        per_queue: false,
    },
    RegInfo {
        name: "RX_BUF_BYTES",
        offset: 0x1018,
        access: Access::Ro,
        per_queue: false,
    },
    RegInfo {
        name: "RX_STEER_ET_RULES",
        offset: 0x101c,
        access: Access::Ro,
        per_queue: false,
    },
    RegInfo {
        name: "RX_STEER_INDEX",
        offset: 0x1020,
        access: Access::Rw,
        per_queue: false,
    },
    RegInfo {
        name: "RX_STEER_SRC_IP",
        offset: 0x1024,
        access: Access::Rw,
        per_queue: false,
    },
    RegInfo {
        name: "RX_STEER_DST_IP",
        offset: 0x1028,
        access: Access::Rw,
        per_queue: false,
    },
    RegInfo {
        name: "RX_STEER_PORTS",
        offset: 0x102c,
        access: Access::Rw,
        per_queue: false,
    },
    RegInfo {
        name: "RX_STEER_CTRL",
        offset: 0x1030,
        access: Access::Rw,
        per_queue: false,
    },
    RegInfo {
        name: "RX_STEER_CMD",
        offset: 0x1034,
        access: Access::Wo,
        per_queue: false,
    },
    RegInfo {
        name: "RX_STEER_ET",
        offset: 0x1038,
        access: Access::Rw,
        per_queue: false,
    },
    RegInfo {
        name: "RX_CNT_FRAMES",
        offset: 0x1040,
        access: Access::Ro,
        per_queue: false,
    },
    RegInfo {
        name: "RX_CNT_BYTES",
        offset: 0x1044,
        access: Access::Ro,
        per_queue: false,
    },
    RegInfo {
        name: "RX_CNT_DROP_DISABLED",
        offset: 0x1048,
        access: Access::Ro,
        per_queue: false,
    },
    RegInfo {
        name: "RX_CNT_DROP_FULL",
        offset: 0x104c,
        access: Access::Ro,
        per_queue: false,
    },
    RegInfo {
        name: "RX_CNT_BAD_FCS",
        offset: 0x1050,
        access: Access::Ro,
        per_queue: false,
    },
    RegInfo {
        name: "RX_CNT_TOO_LONG",
        offset: 0x1054,
        access: Access::Ro,
        per_queue: false,
    },
    RegInfo {
        name: "RX_CNT_STEERED",
        offset: 0x1058,
        access: Access::Ro,
        per_queue: false,
    },
    RegInfo {
        name: "RX_CNT_DROP_MAC",
        offset: 0x105c,
        access: Access::Ro,
        per_queue: false,
    },
    RegInfo {
        name: "RXQ_DESC_BASE_LO",
        offset: 0x0,
        access: Access::Rw,
        per_queue: true,
    },
    RegInfo {
        name: "RXQ_DESC_BASE_HI",
        offset: 0x4,
        access: Access::Rw,
        per_queue: true,
    },
    RegInfo {
        name: "RXQ_CPL_BASE_LO",
        offset: 0x8,
        access: Access::Rw,
        per_queue: true,
    },
    RegInfo {
        name: "RXQ_CPL_BASE_HI",
        offset: 0xc,
        access: Access::Rw,
        per_queue: true,
    },
    RegInfo {
        name: "RXQ_SIZE_LOG2",
        offset: 0x10,
        access: Access::Rw,
        per_queue: true,
    },
    RegInfo {
        name: "RXQ_CTRL",
        offset: 0x14,
        access: Access::Rw,
        per_queue: true,
    },
    RegInfo {
        name: "RXQ_PROD",
        offset: 0x18,
        access: Access::Rw,
        per_queue: true,
    },
    RegInfo {
        name: "RXQ_CONS",
        offset: 0x1c,
        access: Access::Ro,
        per_queue: true,
    },
    RegInfo {
        name: "RXQ_STATUS",
        offset: 0x20,
        access: Access::Ro,
        per_queue: true,
    },
    RegInfo {
        name: "RXQ_CNT_FRAMES",
        offset: 0x24,
        access: Access::Ro,
        per_queue: true,
    },
    RegInfo {
        name: "RXQ_CNT_BYTES",
        offset: 0x28,
        access: Access::Ro,
        per_queue: true,
    },
    RegInfo {
        name: "RXQ_CNT_DROP_NOBUF",
        offset: 0x2c,
        access: Access::Ro,
        per_queue: true,
    },
    RegInfo {
        name: "RXQ_CNT_ERRORS",
        offset: 0x30,
        access: Access::Ro,
        per_queue: true,
    },
];
