//! PTP messages (IEEE 1588-2019 clause 13) and their two transports: IEEE 802.3 / Ethernet (annex
//! F: EtherType 0x88F7, destination 01-1B-19-00-00-00) and UDP over IPv4 (annex C: event port 319,
//! general port 320, destination 224.0.1.129).
//!
//! Byte layouts (all big-endian), from the standard's tables:
//! - common header, 34 octets (13.3.1, table 35): majorSdoId|messageType, minorVersionPTP|versionPTP,
//!   messageLength, domainNumber, minorSdoId, flagField (2), correctionField (Integer64, ns * 2^16),
//!   messageTypeSpecific (4), sourcePortIdentity (clockIdentity 8 + portNumber 2), sequenceId,
//!   controlField, logMessageInterval;
//! - Sync and Delay_Req (13.6, 13.7): originTimestamp (seconds UInteger48, nanoseconds UInteger32):
//!   44 octets; Follow_Up (13.8): preciseOriginTimestamp, 44; Delay_Resp (13.8): receiveTimestamp and
//!   requestingPortIdentity, 54; Announce (13.5, table 43): originTimestamp, currentUtcOffset,
//!   reserved, grandmasterPriority1, grandmasterClockQuality (class, accuracy, offsetScaledLogVariance),
//!   grandmasterPriority2, grandmasterIdentity, stepsRemoved, timeSource: 64.

use thiserror::Error;

/// versionPTP 2, minorVersionPTP 1 (IEEE 1588-2019).
pub const VERSION: u8 = 0x12;
/// EtherType of PTP over Ethernet.
pub const ETHERTYPE_PTP: u16 = 0x88F7;
/// Destination of every PTP message but the peer-delay ones over Ethernet (IEEE 1588-2019 annex
/// E; annex F in 1588-2008).
pub const L2_DST: [u8; 6] = [0x01, 0x1B, 0x19, 0x00, 0x00, 0x00];
/// IPv4 multicast group of the default PTP messages (annex C).
pub const IPV4_DST: [u8; 4] = [224, 0, 1, 129];
/// Its Ethernet multicast address (RFC 1112: 01-00-5E and the low 23 bits).
pub const IPV4_DST_MAC: [u8; 6] = [0x01, 0x00, 0x5E, 0x00, 0x01, 0x81];
/// UDP port of event messages (Sync, Delay_Req).
pub const PORT_EVENT: u16 = 319;
/// UDP port of general messages (Follow_Up, Delay_Resp, Announce).
pub const PORT_GENERAL: u16 = 320;
/// Shortest Ethernet frame without its FCS: shorter frames are padded.
pub const MIN_FRAME: usize = 60;

/// Flag bits of flagField (13.3.2.8, table 37), octet 0 in the high byte.
pub mod flags {
    /// twoStepFlag.
    pub const TWO_STEP: u16 = 0x0200;
    /// unicastFlag.
    pub const UNICAST: u16 = 0x0400;
    /// leap61.
    pub const LEAP61: u16 = 0x0001;
    /// leap59.
    pub const LEAP59: u16 = 0x0002;
    /// currentUtcOffsetValid.
    pub const UTC_OFFSET_VALID: u16 = 0x0004;
    /// ptpTimescale.
    pub const PTP_TIMESCALE: u16 = 0x0008;
    /// timeTraceable.
    pub const TIME_TRACEABLE: u16 = 0x0010;
    /// frequencyTraceable.
    pub const FREQ_TRACEABLE: u16 = 0x0020;
}

/// Message decoding errors.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum MsgError {
    /// Fewer bytes than the message needs.
    #[error("PTP message too short: {got} bytes, {need} needed")]
    Short {
        /// Bytes there.
        got: usize,
        /// Bytes needed.
        need: usize,
    },
    /// Not PTP version 2.
    #[error("not PTP version 2 (versionPTP {0})")]
    Version(u8),
    /// A message type this clock does not handle.
    #[error("PTP message type {0:#x} not handled (only Sync, Delay_Req, Follow_Up, Delay_Resp, Announce)")]
    Type(u8),
    /// messageLength disagrees with the bytes.
    #[error("messageLength {len} but {got} bytes")]
    Length {
        /// messageLength field.
        len: u16,
        /// Bytes there.
        got: usize,
    },
}

/// A PTP timestamp: seconds (48 bits) and nanoseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub struct Timestamp {
    /// Seconds, 48 bits.
    pub sec: u64,
    /// Nanoseconds, below 10^9.
    pub nsec: u32,
}

impl Timestamp {
    /// From PHC ns (TAI).
    pub fn from_ns(ns: u64) -> Self {
        Timestamp {
            sec: (ns / 1_000_000_000) & 0xffff_ffff_ffff,
            nsec: (ns % 1_000_000_000) as u32,
        }
    }
    /// To ns (saturating: 48-bit seconds reach past 2^64 ns).
    pub fn to_ns(self) -> u64 {
        self.sec
            .saturating_mul(1_000_000_000)
            .saturating_add(u64::from(self.nsec))
    }
    fn put(self, b: &mut [u8]) {
        b[0..6].copy_from_slice(&self.sec.to_be_bytes()[2..8]);
        b[6..10].copy_from_slice(&self.nsec.to_be_bytes());
    }
    fn get(b: &[u8]) -> Self {
        let mut s = [0u8; 8];
        s[2..8].copy_from_slice(&b[0..6]);
        Timestamp {
            sec: u64::from_be_bytes(s),
            nsec: u32::from_be_bytes([b[6], b[7], b[8], b[9]]),
        }
    }
}

/// clockIdentity (8 octets) and portNumber.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, serde::Serialize)]
pub struct PortIdentity {
    /// clockIdentity.
    pub clock: [u8; 8],
    /// portNumber.
    pub port: u16,
}

impl PortIdentity {
    fn put(self, b: &mut [u8]) {
        b[0..8].copy_from_slice(&self.clock);
        b[8..10].copy_from_slice(&self.port.to_be_bytes());
    }
    fn get(b: &[u8]) -> Self {
        let mut clock = [0u8; 8];
        clock.copy_from_slice(&b[0..8]);
        PortIdentity {
            clock,
            port: u16::from_be_bytes([b[8], b[9]]),
        }
    }
    /// As ptp4l prints it: `001122.fffe.334455-1`.
    pub fn to_string_ptp4l(&self) -> String {
        let c = self.clock;
        format!(
            "{:02x}{:02x}{:02x}.{:02x}{:02x}.{:02x}{:02x}{:02x}-{}",
            c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], self.port
        )
    }
}

/// The clockIdentity of an EUI-48 (IEEE 1588-2019 7.5.2.2.2: the EUI-64 built by inserting FF-FE).
pub fn clock_identity_from_mac(mac: [u8; 6]) -> [u8; 8] {
    [mac[0], mac[1], mac[2], 0xff, 0xfe, mac[3], mac[4], mac[5]]
}

/// grandmasterClockQuality (7.6.2.5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct ClockQuality {
    /// clockClass (248: default, 255: slave-only).
    pub class: u8,
    /// clockAccuracy (0xFE: unknown).
    pub accuracy: u8,
    /// offsetScaledLogVariance (0xFFFF: not computed).
    pub variance: u16,
}

/// The common header (13.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Header {
    /// messageType (low nibble of octet 0).
    pub msg_type: u8,
    /// majorSdoId (transportSpecific; high nibble of octet 0).
    pub sdo_major: u8,
    /// domainNumber.
    pub domain: u8,
    /// flagField.
    pub flags: u16,
    /// correctionField, ns * 2^16.
    pub correction: i64,
    /// sourcePortIdentity.
    pub source: PortIdentity,
    /// sequenceId.
    pub seq: u16,
    /// logMessageInterval.
    pub log_interval: i8,
}

/// messageType values (13.3.2.2, table 36).
pub mod mtype {
    /// Sync (event).
    pub const SYNC: u8 = 0x0;
    /// Delay_Req (event).
    pub const DELAY_REQ: u8 = 0x1;
    /// Follow_Up (general).
    pub const FOLLOW_UP: u8 = 0x8;
    /// Delay_Resp (general).
    pub const DELAY_RESP: u8 = 0x9;
    /// Announce (general).
    pub const ANNOUNCE: u8 = 0xB;
}

/// Announce body.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Announce {
    /// originTimestamp.
    pub origin: Timestamp,
    /// currentUtcOffset (TAI - UTC, s).
    pub utc_offset: i16,
    /// grandmasterPriority1.
    pub gm_priority1: u8,
    /// grandmasterClockQuality.
    pub gm_quality: ClockQuality,
    /// grandmasterPriority2.
    pub gm_priority2: u8,
    /// grandmasterIdentity.
    pub gm_identity: [u8; 8],
    /// stepsRemoved.
    pub steps_removed: u16,
    /// timeSource (0xA0: internal oscillator).
    pub time_source: u8,
}

/// A message body.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Body {
    /// Sync: originTimestamp (0 or approximate with two-step).
    Sync(Timestamp),
    /// Delay_Req: originTimestamp.
    DelayReq(Timestamp),
    /// Follow_Up: preciseOriginTimestamp.
    FollowUp(Timestamp),
    /// Delay_Resp: receiveTimestamp, requestingPortIdentity.
    DelayResp(Timestamp, PortIdentity),
    /// Announce.
    Announce(Announce),
}

/// A whole message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Message {
    /// Header (msg_type is taken from the body when encoding).
    pub header: Header,
    /// Body.
    pub body: Body,
}

const HDR: usize = 34;

impl Body {
    /// messageType of this body.
    pub fn msg_type(&self) -> u8 {
        match self {
            Body::Sync(_) => mtype::SYNC,
            Body::DelayReq(_) => mtype::DELAY_REQ,
            Body::FollowUp(_) => mtype::FOLLOW_UP,
            Body::DelayResp(..) => mtype::DELAY_RESP,
            Body::Announce(_) => mtype::ANNOUNCE,
        }
    }
    /// messageLength.
    pub fn len(&self) -> usize {
        match self {
            Body::Sync(_) | Body::DelayReq(_) | Body::FollowUp(_) => 44,
            Body::DelayResp(..) => 54,
            Body::Announce(_) => 64,
        }
    }
    /// True for the event messages (timestamped, UDP port 319).
    pub fn is_event(&self) -> bool {
        matches!(self, Body::Sync(_) | Body::DelayReq(_))
    }
    /// Never empty (clippy's len/is_empty pair).
    pub fn is_empty(&self) -> bool {
        false
    }
    /// controlField (13.3.2.13, table 42: deprecated, kept for PTPv1 hardware).
    fn control(&self) -> u8 {
        match self {
            Body::Sync(_) => 0,
            Body::DelayReq(_) => 1,
            Body::FollowUp(_) => 2,
            Body::DelayResp(..) => 3,
            Body::Announce(_) => 5,
        }
    }
}

impl Message {
    /// Encode (messageLength octets).
    pub fn encode(&self) -> Vec<u8> {
        let n = self.body.len();
        let mut b = vec![0u8; n];
        let h = &self.header;
        b[0] = (h.sdo_major << 4) | self.body.msg_type();
        b[1] = VERSION;
        b[2..4].copy_from_slice(&(n as u16).to_be_bytes());
        b[4] = h.domain;
        b[6..8].copy_from_slice(&h.flags.to_be_bytes());
        b[8..16].copy_from_slice(&h.correction.to_be_bytes());
        h.source.put(&mut b[20..30]);
        b[30..32].copy_from_slice(&h.seq.to_be_bytes());
        b[32] = self.body.control();
        b[33] = h.log_interval as u8;
        let p = &mut b[HDR..];
        match self.body {
            Body::Sync(t) | Body::DelayReq(t) | Body::FollowUp(t) => t.put(p),
            Body::DelayResp(t, req) => {
                t.put(p);
                req.put(&mut p[10..20]);
            }
            Body::Announce(a) => {
                a.origin.put(p);
                p[10..12].copy_from_slice(&a.utc_offset.to_be_bytes());
                p[13] = a.gm_priority1;
                p[14] = a.gm_quality.class;
                p[15] = a.gm_quality.accuracy;
                p[16..18].copy_from_slice(&a.gm_quality.variance.to_be_bytes());
                p[18] = a.gm_priority2;
                p[19..27].copy_from_slice(&a.gm_identity);
                p[27..29].copy_from_slice(&a.steps_removed.to_be_bytes());
                p[29] = a.time_source;
            }
        }
        b
    }

    /// Decode a PTP message (bytes past messageLength, e.g. Ethernet padding, are ignored).
    pub fn decode(b: &[u8]) -> Result<Message, MsgError> {
        if b.len() < HDR {
            return Err(MsgError::Short {
                got: b.len(),
                need: HDR,
            });
        }
        if b[1] & 0x0f != 2 {
            return Err(MsgError::Version(b[1] & 0x0f));
        }
        let msg_type = b[0] & 0x0f;
        let need = match msg_type {
            mtype::SYNC | mtype::DELAY_REQ | mtype::FOLLOW_UP => 44,
            mtype::DELAY_RESP => 54,
            mtype::ANNOUNCE => 64,
            t => return Err(MsgError::Type(t)),
        };
        let len = u16::from_be_bytes([b[2], b[3]]);
        if (len as usize) < need || (len as usize) > b.len() {
            return Err(MsgError::Length { len, got: b.len() });
        }
        let header = Header {
            msg_type,
            sdo_major: b[0] >> 4,
            domain: b[4],
            flags: u16::from_be_bytes([b[6], b[7]]),
            correction: i64::from_be_bytes(b[8..16].try_into().expect("8 bytes")),
            source: PortIdentity::get(&b[20..30]),
            seq: u16::from_be_bytes([b[30], b[31]]),
            log_interval: b[33] as i8,
        };
        let p = &b[HDR..];
        let body = match msg_type {
            mtype::SYNC => Body::Sync(Timestamp::get(p)),
            mtype::DELAY_REQ => Body::DelayReq(Timestamp::get(p)),
            mtype::FOLLOW_UP => Body::FollowUp(Timestamp::get(p)),
            mtype::DELAY_RESP => Body::DelayResp(Timestamp::get(p), PortIdentity::get(&p[10..20])),
            _ => Body::Announce(Announce {
                origin: Timestamp::get(p),
                utc_offset: i16::from_be_bytes([p[10], p[11]]),
                gm_priority1: p[13],
                gm_quality: ClockQuality {
                    class: p[14],
                    accuracy: p[15],
                    variance: u16::from_be_bytes([p[16], p[17]]),
                },
                gm_priority2: p[18],
                gm_identity: p[19..27].try_into().expect("8 bytes"),
                steps_removed: u16::from_be_bytes([p[27], p[28]]),
                time_source: p[29],
            }),
        };
        Ok(Message { header, body })
    }
}

/// The network transport.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, clap::ValueEnum)]
pub enum Transport {
    /// IEEE 802.3: EtherType 0x88F7 to 01-1B-19-00-00-00.
    L2,
    /// UDP over IPv4 to 224.0.1.129, ports 319 (event) and 320 (general).
    Udp4,
}

/// This end's addresses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Addr {
    /// Source MAC.
    pub mac: [u8; 6],
    /// Source IPv4 (UDP transport).
    pub ip: [u8; 4],
}

/// The internet checksum (RFC 1071) of `b`, starting from `sum`.
fn csum(mut sum: u32, b: &[u8]) -> u16 {
    for c in b.chunks(2) {
        sum += u32::from(u16::from_be_bytes([c[0], *c.get(1).unwrap_or(&0)]));
    }
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

/// Wrap a PTP message in an Ethernet frame for `t` (padded to 60 bytes; no FCS: the MAC adds it).
pub fn frame(t: Transport, src: &Addr, msg: &Message) -> Vec<u8> {
    let ptp = msg.encode();
    let event = msg.body.is_event();
    let mut f = Vec::with_capacity(MIN_FRAME.max(14 + 28 + ptp.len()));
    match t {
        Transport::L2 => {
            f.extend_from_slice(&L2_DST);
            f.extend_from_slice(&src.mac);
            f.extend_from_slice(&ETHERTYPE_PTP.to_be_bytes());
            f.extend_from_slice(&ptp);
        }
        Transport::Udp4 => {
            f.extend_from_slice(&IPV4_DST_MAC);
            f.extend_from_slice(&src.mac);
            f.extend_from_slice(&0x0800u16.to_be_bytes());
            let udp_len = 8 + ptp.len();
            let mut ip = [0u8; 20];
            ip[0] = 0x45;
            ip[1] = 0xb8; // DSCP EF (46): a common choice for PTP event and general messages
            ip[2..4].copy_from_slice(&((20 + udp_len) as u16).to_be_bytes());
            ip[6] = 0x40; // don't fragment
            ip[8] = 1; // TTL 1 (linuxptp's udp_ttl default)
            ip[9] = 17;
            ip[12..16].copy_from_slice(&src.ip);
            ip[16..20].copy_from_slice(&IPV4_DST);
            let c = csum(0, &ip);
            ip[10..12].copy_from_slice(&c.to_be_bytes());
            f.extend_from_slice(&ip);
            let port = if event { PORT_EVENT } else { PORT_GENERAL };
            let mut udp = Vec::with_capacity(udp_len);
            udp.extend_from_slice(&port.to_be_bytes());
            udp.extend_from_slice(&port.to_be_bytes());
            udp.extend_from_slice(&(udp_len as u16).to_be_bytes());
            udp.extend_from_slice(&[0, 0]);
            udp.extend_from_slice(&ptp);
            // pseudo-header: src, dst, 0, 17, UDP length
            let mut ph = Vec::with_capacity(12);
            ph.extend_from_slice(&src.ip);
            ph.extend_from_slice(&IPV4_DST);
            ph.extend_from_slice(&[0, 17]);
            ph.extend_from_slice(&(udp_len as u16).to_be_bytes());
            let mut sum = 0u32;
            for c in ph.chunks(2) {
                sum += u32::from(u16::from_be_bytes([c[0], c[1]]));
            }
            let mut c = csum(sum, &udp);
            if c == 0 {
                c = 0xffff; // RFC 768: a computed 0 is sent as all ones
            }
            udp[6..8].copy_from_slice(&c.to_be_bytes());
            f.extend_from_slice(&udp);
        }
    }
    f.resize(f.len().max(MIN_FRAME), 0);
    f
}

/// The PTP payload of an Ethernet frame for transport `t`, if it carries one (ports 319/320 for UDP;
/// a VLAN tag is not handled). Returns the PTP bytes and the source MAC.
pub fn unframe(t: Transport, f: &[u8]) -> Option<(&[u8], [u8; 6])> {
    if f.len() < 14 {
        return None;
    }
    let src: [u8; 6] = f[6..12].try_into().ok()?;
    let et = u16::from_be_bytes([f[12], f[13]]);
    match t {
        Transport::L2 if et == ETHERTYPE_PTP => Some((&f[14..], src)),
        Transport::Udp4 if et == 0x0800 => {
            let ip = &f[14..];
            if ip.len() < 20 || ip[0] >> 4 != 4 || ip[9] != 17 {
                return None;
            }
            let ihl = usize::from(ip[0] & 0xf) * 4;
            let tot = usize::from(u16::from_be_bytes([ip[2], ip[3]]));
            if ihl < 20 || tot > ip.len() || tot < ihl + 8 {
                return None;
            }
            let udp = &ip[ihl..tot];
            let dport = u16::from_be_bytes([udp[2], udp[3]]);
            if dport != PORT_EVENT && dport != PORT_GENERAL {
                return None;
            }
            Some((&udp[8..], src))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hdr(seq: u16) -> Header {
        Header {
            msg_type: 0,
            sdo_major: 0,
            domain: 0,
            flags: flags::TWO_STEP,
            correction: 0,
            source: PortIdentity {
                clock: [0x02, 0x74, 0x73, 0xff, 0xfe, 0x6e, 0x69, 0x01],
                port: 1,
            },
            seq,
            log_interval: 0,
        }
    }

    /// A two-step Sync, byte by byte as IEEE 1588-2019 tables 35 and 44 lay it out.
    #[test]
    fn sync_bytes_follow_the_standard() {
        let m = Message {
            header: Header {
                domain: 24,
                correction: 0x0102_0304_0506_0708,
                log_interval: -3,
                ..hdr(0xbeef)
            },
            body: Body::Sync(Timestamp {
                sec: 0x0000_1122_3344,
                nsec: 999_999_999,
            }),
        };
        let b = m.encode();
        #[rustfmt::skip]
        let want: [u8; 44] = [
            0x00, 0x12, 0x00, 44, 24, 0x00, 0x02, 0x00,      // type Sync, v2.1, length, domain, minorSdoId, twoStep
            1, 2, 3, 4, 5, 6, 7, 8,                          // correctionField
            0, 0, 0, 0,                                      // messageTypeSpecific
            0x02, 0x74, 0x73, 0xff, 0xfe, 0x6e, 0x69, 0x01,  // clockIdentity
            0x00, 0x01, 0xbe, 0xef, 0x00, 0xfd,              // portNumber, sequenceId, control 0, logInterval -3
            0x00, 0x00, 0x11, 0x22, 0x33, 0x44,              // seconds (48 bits)
            0x3b, 0x9a, 0xc9, 0xff,                          // nanoseconds 999999999
        ];
        assert_eq!(b, want);
        let back = Message::decode(&b).unwrap();
        assert_eq!(back.body, m.body);
        assert_eq!(back.header.seq, 0xbeef);
        assert_eq!(back.header.correction, m.header.correction);
        assert_eq!(back.header.log_interval, -3);
    }

    #[test]
    fn delay_resp_and_announce_bytes_follow_the_standard() {
        let req = PortIdentity {
            clock: [1, 2, 3, 4, 5, 6, 7, 8],
            port: 0x0203,
        };
        let m = Message {
            header: hdr(7),
            body: Body::DelayResp(Timestamp { sec: 1, nsec: 2 }, req),
        };
        let b = m.encode();
        assert_eq!(b.len(), 54);
        assert_eq!(b[0], 0x09);
        assert_eq!(b[32], 3, "controlField of Delay_Resp");
        assert_eq!(&b[34..44], &[0, 0, 0, 0, 0, 1, 0, 0, 0, 2]);
        assert_eq!(&b[44..54], &[1, 2, 3, 4, 5, 6, 7, 8, 2, 3]);
        assert_eq!(Message::decode(&b).unwrap().body, m.body);

        let a = Announce {
            origin: Timestamp::default(),
            utc_offset: 37,
            gm_priority1: 128,
            gm_quality: ClockQuality {
                class: 248,
                accuracy: 0xfe,
                variance: 0xffff,
            },
            gm_priority2: 127,
            gm_identity: [9, 8, 7, 6, 5, 4, 3, 2],
            steps_removed: 1,
            time_source: 0xa0,
        };
        let m = Message {
            header: Header {
                log_interval: 1,
                flags: flags::PTP_TIMESCALE,
                ..hdr(3)
            },
            body: Body::Announce(a),
        };
        let b = m.encode();
        #[rustfmt::skip]
        let body: [u8; 30] = [
            0, 0, 0, 0, 0, 0, 0, 0, 0, 0,   // originTimestamp
            0, 37, 0,                       // currentUtcOffset, reserved
            128, 248, 0xfe, 0xff, 0xff,     // priority1, class, accuracy, variance
            127, 9, 8, 7, 6, 5, 4, 3, 2,    // priority2, grandmasterIdentity
            0, 1, 0xa0,                     // stepsRemoved, timeSource
        ];
        assert_eq!(b.len(), 64);
        assert_eq!((b[0], b[6], b[7], b[32], b[33]), (0x0b, 0x00, 0x08, 5, 1));
        assert_eq!(&b[34..], &body);
        assert_eq!(
            Message::decode(&b).unwrap(),
            Message {
                header: Header {
                    msg_type: 0xb,
                    ..m.header
                },
                body: m.body
            }
        );
    }

    #[test]
    fn decode_refuses_bad_input_without_panicking() {
        let m = Message {
            header: hdr(1),
            body: Body::FollowUp(Timestamp { sec: 5, nsec: 6 }),
        };
        let b = m.encode();
        for n in 0..b.len() {
            assert!(Message::decode(&b[..n]).is_err(), "{n} bytes");
        }
        let mut v1 = b.clone();
        v1[1] = 0x01;
        assert_eq!(Message::decode(&v1), Err(MsgError::Version(1)));
        let mut mgmt = b.clone();
        mgmt[0] = 0x0d;
        assert_eq!(Message::decode(&mgmt), Err(MsgError::Type(0xd)));
        // padding after messageLength is ignored
        let mut padded = b.clone();
        padded.extend_from_slice(&[0; 16]);
        assert_eq!(Message::decode(&padded).unwrap().body, m.body);
    }

    #[test]
    fn frames_wrap_and_unwrap() {
        let src = Addr {
            mac: [0x02, 0x74, 0x73, 0x6e, 0x69, 0x01],
            ip: [10, 0, 0, 1],
        };
        let m = Message {
            header: hdr(9),
            body: Body::Sync(Timestamp::default()),
        };
        let l2 = frame(Transport::L2, &src, &m);
        assert_eq!(l2.len(), 60);
        assert_eq!(&l2[..6], &L2_DST);
        assert_eq!(&l2[12..14], &[0x88, 0xf7]);
        let (p, mac) = unframe(Transport::L2, &l2).unwrap();
        assert_eq!(mac, src.mac);
        assert_eq!(Message::decode(p).unwrap().body, m.body);
        assert!(unframe(Transport::Udp4, &l2).is_none());

        let u = frame(Transport::Udp4, &src, &m);
        assert_eq!(u.len(), 14 + 20 + 8 + 44);
        assert_eq!(&u[..6], &IPV4_DST_MAC);
        assert_eq!(csum(0, &u[14..34]), 0, "IPv4 header checksum verifies");
        assert_eq!(&u[34..36], &319u16.to_be_bytes());
        // UDP checksum verifies over the pseudo-header
        let mut sum = 0u32;
        for c in [10u16 << 8, 1, 224 << 8, 1 << 8 | 129, 17, 52] {
            sum += u32::from(c);
        }
        assert_eq!(csum(sum, &u[34..]), 0);
        let (p, _) = unframe(Transport::Udp4, &u).unwrap();
        assert_eq!(Message::decode(p).unwrap().body, m.body);
        let fu = Message {
            header: hdr(9),
            body: Body::FollowUp(Timestamp::default()),
        };
        assert_eq!(
            &frame(Transport::Udp4, &src, &fu)[34..36],
            &320u16.to_be_bytes()
        );
        assert!(unframe(Transport::L2, &u).is_none());
    }

    #[test]
    fn timestamps_split_ns() {
        let t = Timestamp::from_ns(1_700_000_000_123_456_789);
        assert_eq!((t.sec, t.nsec), (1_700_000_000, 123_456_789));
        assert_eq!(t.to_ns(), 1_700_000_000_123_456_789);
    }
}
