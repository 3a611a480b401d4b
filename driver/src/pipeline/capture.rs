//! Stage 1 for `tsnic replay`: pcap and pcapng captures read one packet at a time.
//!
//! Classic pcap (either byte order, micro- or nanosecond timestamps) and pcapng (several sections,
//! several interfaces, each with its own `if_tsresol` and `if_tsoffset`, either byte order). Each
//! packet is checked as it is read: Ethernet only, captured whole (not cut by a snap length), a
//! length the card sends; a frame under 60 bytes is padded with zeros to 60 as a MAC pads it (counted
//! in [`Padding`]). A file cut short or damaged is an error that names the packet it stopped at.

use std::io::{BufRead, Read};

use super::source::{InputError, Raw, Source};
use crate::capture::CaptureError;

/// The shortest Ethernet frame without FCS: shorter frames are padded to it.
pub const MIN_FRAME: usize = 60;

/// Largest pcapng block this reader takes (a jumbo frame's block is under 10 kB; this is a damaged
/// length, not a packet).
const MAX_BLOCK: usize = 1 << 24;

/// What a replay does with each packet: its queue and the card's longest frame.
#[derive(Debug, Clone, Copy)]
pub struct ReplayLimits {
    /// TX queue every packet goes to (the first of `spread`).
    pub queue: u16,
    /// Longest frame the card sends, bytes without FCS.
    pub max_len: u32,
    /// Queues to spread the packets over by flow ([`flow_hash`]): queue + hash % spread (1: none);
    /// with `by_interface`, the queues the interfaces may use.
    pub spread: u16,
    /// Each packet on queue + its pcapng interface (its number in its section; a pcap file has
    /// one, interface 0), not by flow (`replay --queue-by interface`).
    pub by_interface: bool,
}

/// A hash of a frame's flow: the IPv4 or IPv6 addresses, protocol and (TCP, UDP, SCTP) ports, behind
/// up to two VLAN tags; for other frames the MAC addresses and EtherType. Frames of one flow hash
/// alike, so spread over queues they keep their order.
pub fn flow_hash(f: &[u8]) -> u32 {
    let mut h: u32 = 0x811c_9dc5; // FNV-1a
    let mut eat = |b: &[u8]| {
        for &x in b {
            h ^= u32::from(x);
            h = h.wrapping_mul(0x0100_0193);
        }
    };
    let get = |a: usize, b: usize| f.get(a..b);
    let mut o = 12;
    let mut et = get(o, o + 2).map(|b| u16::from_be_bytes([b[0], b[1]]));
    for _ in 0..2 {
        if matches!(et, Some(0x8100 | 0x88a8)) {
            o += 4;
            et = get(o, o + 2).map(|b| u16::from_be_bytes([b[0], b[1]]));
        }
    }
    let l3 = o + 2;
    let (addrs, proto, l4) = match et {
        Some(0x0800) => match (get(l3, l3 + 20), f.get(l3).map(|v| usize::from(v & 15) * 4)) {
            (Some(ip), Some(ihl)) => (Some(&ip[12..20]), ip[9], l3 + ihl),
            _ => (None, 0, 0),
        },
        Some(0x86dd) => match get(l3, l3 + 40) {
            Some(ip) => (Some(&ip[8..40]), ip[6], l3 + 40),
            None => (None, 0, 0),
        },
        _ => (None, 0, 0),
    };
    match addrs {
        Some(a) => {
            eat(a);
            eat(&[proto]);
            if matches!(proto, 6 | 17 | 132) {
                if let Some(p) = get(l4, l4 + 4) {
                    eat(p);
                }
            }
        }
        None => eat(f.get(..14).unwrap_or(f)),
    }
    // FNV-1a's low bits mix poorly: its lowest bit is the parity of the low bits of every byte
    // eaten, so flows whose address and port both count up by one all had one parity and went to
    // one of 2 (or 4, 8...) queues. A final avalanche (MurmurHash3's fmix32) spreads them.
    h ^= h >> 16;
    h = h.wrapping_mul(0x85eb_ca6b);
    h ^= h >> 13;
    h = h.wrapping_mul(0xc2b2_ae35);
    h ^ (h >> 16)
}

/// Frames padded to [`MIN_FRAME`]: how many, and the first (packet index, length as captured).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Padding {
    /// Packets padded.
    pub count: u64,
    /// The first one: (packet index, captured length).
    pub first: Option<(u64, usize)>,
}

/// Read into `buf` until it is full or the input ends; returns the bytes read.
fn read_full(r: &mut dyn Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match r.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}

fn io_err(name: &str, e: std::io::Error) -> InputError {
    match e.kind() {
        std::io::ErrorKind::IsADirectory => InputError::Capture(CaptureError::Format {
            path: name.to_string(),
            why: format!("too short to be a capture ({e})"),
        }),
        _ => InputError::Capture(CaptureError::Io {
            path: name.to_string(),
            source: e,
        }),
    }
}

fn fmt_err(name: &str, why: String) -> InputError {
    InputError::Capture(CaptureError::Format {
        path: name.to_string(),
        why,
    })
}

/// Nanoseconds of a pcapng timestamp in units of `if_tsresol` `resol` (default 6: microseconds).
pub fn tsresol_to_ns(raw: u64, resol: u8) -> u64 {
    if resol & 0x80 == 0 {
        let exp = resol as i32;
        if exp <= 9 {
            raw.saturating_mul(10u64.pow((9 - exp) as u32))
        } else {
            raw / 10u64.pow((exp - 9).min(19) as u32)
        }
    } else {
        let shift = (resol & 0x7f) as u32;
        ((raw as u128 * 1_000_000_000u128) >> shift.min(127)) as u64
    }
}

/// Open a capture, pcap or pcapng by its first bytes.
pub fn open_capture(
    mut r: Box<dyn BufRead>,
    name: String,
    limits: ReplayLimits,
) -> Result<CaptureSource, InputError> {
    let mut head = [0u8; 24];
    let n = read_full(&mut r, &mut head[..4]).map_err(|e| io_err(&name, e))?;
    if n < 4 {
        return Err(fmt_err(
            &name,
            format!("too short to be a capture ({n} bytes; an empty file, or not a capture)"),
        ));
    }
    let common = Common {
        name,
        limits,
        packets: 0,
        padding: Padding::default(),
    };
    if head[..4] == [0x0a, 0x0d, 0x0d, 0x0a] {
        return Ok(CaptureSource {
            c: common,
            kind: Kind::PcapNg(PcapNg {
                r,
                le: true,
                ifaces: Vec::new(),
                at: 0,
                pending_shb: Some(head[..4].try_into().unwrap_or_default()),
                block: Vec::with_capacity(2048),
                lent: (0, 0),
            }),
        });
    }
    let m = read_full(&mut r, &mut head[4..]).map_err(|e| io_err(&common.name, e))?;
    let b = &head;
    if 4 + m < 24 {
        return Err(fmt_err(
            &common.name,
            format!(
                "neither pcap nor pcapng: {} bytes, shorter than a pcap file header (24 bytes)",
                4 + m
            ),
        ));
    }
    let magic = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
    let (le, nanos) = match magic {
        0xa1b2_c3d4 => (true, false),
        0xa1b2_3c4d => (true, true),
        0xd4c3_b2a1 => (false, false),
        0x4d3c_b2a1 => (false, true),
        _ => {
            return Err(fmt_err(&common.name, format!(
                "neither pcap nor pcapng (it starts with {:02x} {:02x} {:02x} {:02x}): give a capture written by tcpdump, Wireshark or `tsnic push --pcap`",
                b[0], b[1], b[2], b[3]
            )))
        }
    };
    let word = |o: usize| {
        let w = [b[o], b[o + 1], b[o + 2], b[o + 3]];
        if le {
            u32::from_le_bytes(w)
        } else {
            u32::from_be_bytes(w)
        }
    };
    let snaplen = word(16);
    let linktype = word(20) & 0x0fff_ffff;
    if linktype != 1 {
        return Err(fmt_err(
            &common.name,
            format!("link type {linktype}: only Ethernet captures (link type 1) can be replayed"),
        ));
    }
    Ok(CaptureSource {
        c: common,
        kind: Kind::Pcap(Pcap {
            r,
            le,
            nanos,
            snaplen,
            consume: 0,
        }),
    })
}

struct Common {
    name: String,
    limits: ReplayLimits,
    packets: u64,
    padding: Padding,
}

impl Common {
    /// Check a packet read whole (captured on interface `iface`), pad a runt, and make its item.
    fn packet(
        &mut self,
        ts_ns: u64,
        orig_len: u32,
        iface: u32,
        data: &mut Vec<u8>,
    ) -> Result<Option<Raw>, InputError> {
        self.check(orig_len, data.len(), iface)?;
        if data.len() < MIN_FRAME {
            self.padding.count += 1;
            self.padding.first.get_or_insert((self.packets, data.len()));
            data.resize(MIN_FRAME, 0);
        }
        Ok(Some(self.item(ts_ns, data, false, iface)))
    }

    /// True when a packet of interface 0 of `len` bytes captured of `orig_len` passes
    /// [`Common::check`] (a bool, not the check's large `Result`, on the batch's per-frame path).
    #[inline(always)]
    fn passes(&self, orig_len: u32, len: usize) -> bool {
        let l = self.limits;
        !(l.by_interface && l.spread == 0)
            && orig_len as usize <= len
            && len != 0
            && len <= l.max_len as usize
    }

    /// Check a packet of `len` bytes captured of `orig_len` on interface `iface`.
    #[inline]
    fn check(&self, orig_len: u32, len: usize, iface: u32) -> Result<(), InputError> {
        let i = self.packets;
        let l = self.limits;
        if l.by_interface && iface >= u32::from(l.spread) {
            return Err(fmt_err(&self.name, format!(
                "packet {i} was captured on interface {iface}, which `--queue-by interface` sends on queue {}, beyond the {} queue(s) from queue {} it may use: give --queues {} (the card's queues allowing), or leave out --queue-by interface",
                u32::from(l.queue) + iface,
                l.spread,
                l.queue,
                iface + 1
            )));
        }
        if (orig_len as usize) > len {
            return Err(fmt_err(&self.name, format!(
                "packet {i} was captured truncated ({len} of {orig_len} bytes): it cannot be replayed byte for byte; recapture with a larger snap length"
            )));
        }
        if len == 0 || len > self.limits.max_len as usize {
            return Err(fmt_err(
                &self.name,
                format!(
                    "packet {i} is {len} bytes; the card sends 1..={} bytes (without FCS)",
                    self.limits.max_len
                ),
            ));
        }
        Ok(())
    }

    /// The item of a checked packet of at least [`MIN_FRAME`] bytes `f` (`lent`: left in the
    /// reader's buffer, see [`Source::next_lent`]).
    #[inline]
    fn item(&mut self, ts_ns: u64, f: &[u8], lent: bool, iface: u32) -> Raw {
        let i = self.packets;
        self.packets += 1;
        let queue = if self.limits.by_interface {
            // `check` bounded it by `spread`, a u16
            self.limits.queue + iface as u16
        } else if self.limits.spread > 1 {
            self.limits.queue + (flow_hash(f) % u32::from(self.limits.spread)) as u16
        } else {
            self.limits.queue
        };
        Raw {
            seq: i,
            index: i,
            line: 0,
            time_ns: ts_ns,
            queue,
            len: f.len() as u32,
            has_bytes: true,
            lent,
            pass: 0,
            pos: i,
        }
    }
}

enum Kind {
    Pcap(Pcap),
    PcapNg(PcapNg),
}

struct Pcap {
    r: Box<dyn BufRead>,
    le: bool,
    nanos: bool,
    snaplen: u32,
    /// Bytes of the reader's buffer to consume before the next read: the record lent last.
    consume: usize,
}

#[derive(Debug, Clone, Copy)]
struct Iface {
    resol: u8,
    offset_s: i64,
    ethernet: bool,
}

struct PcapNg {
    r: Box<dyn BufRead>,
    le: bool,
    ifaces: Vec<Iface>,
    /// Byte offset of the next block.
    at: u64,
    /// The first four bytes of the file, already read.
    pending_shb: Option<[u8; 4]>,
    block: Vec<u8>,
    /// The packet lent last: its bytes in `block`.
    lent: (usize, usize),
}

/// A capture read packet by packet.
pub struct CaptureSource {
    c: Common,
    kind: Kind,
}

impl CaptureSource {
    /// Packets read so far.
    pub fn packets(&self) -> u64 {
        self.c.packets
    }
    /// The frames padded to 60 bytes so far.
    pub fn padding(&self) -> Padding {
        self.c.padding
    }
    /// Check the packets against these limits (the card's, once it is open).
    pub fn set_limits(&mut self, limits: ReplayLimits) {
        self.c.limits = limits;
    }
}

impl Source for CaptureSource {
    fn next(&mut self, data: &mut Vec<u8>) -> Result<Option<Raw>, InputError> {
        match &mut self.kind {
            Kind::Pcap(p) => pcap_next(&mut self.c, p, data, false),
            Kind::PcapNg(p) => pcapng_next(&mut self.c, p, data, false),
        }
    }
    /// A packet of [`MIN_FRAME`] bytes or more (nothing to pad) is lent: a pcap packet whose record
    /// is whole in the reader's buffer stays there (consumed at the next read), a pcapng packet in
    /// the block just read.
    fn next_lent(&mut self, data: &mut Vec<u8>) -> Result<Option<Raw>, InputError> {
        match &mut self.kind {
            Kind::Pcap(p) => pcap_next(&mut self.c, p, data, true),
            Kind::PcapNg(p) => pcapng_next(&mut self.c, p, data, true),
        }
    }
    /// A pcap's records whole in the reader's buffer, up to the first that is not (or that
    /// needs padding, or that `check` refuses: [`Source::next_lent`] reads that one); consumed at
    /// the next read.
    fn next_lent_batch(&mut self, out: &mut Vec<Raw>, offs: &mut Vec<u32>, max: usize) -> bool {
        let Kind::Pcap(p) = &mut self.kind else {
            return false;
        };
        if p.consume > 0 {
            p.r.consume(std::mem::take(&mut p.consume));
        }
        let Ok(b) = p.r.fill_buf() else {
            return false;
        };
        let limit = p.snaplen.max(262_144) as usize;
        let mut at = 0usize;
        let mut k = 0usize;
        while k < max && b.len() - at >= 16 {
            let mut h = [0u8; 16];
            h.copy_from_slice(&b[at..at + 16]);
            let w = [h[8], h[9], h[10], h[11]];
            let incl = if p.le {
                u32::from_le_bytes(w)
            } else {
                u32::from_be_bytes(w)
            } as usize;
            if incl > limit || incl < MIN_FRAME || b.len() - at - 16 < incl {
                break;
            }
            let (ts, orig) = pcap_times(p.le, p.nanos, &h);
            if !self.c.passes(orig, incl) {
                break;
            }
            let f = &b[at + 16..at + 16 + incl];
            out.push(self.c.item(ts, f, true, 0));
            offs.push((at + 16) as u32);
            at += 16 + incl;
            k += 1;
        }
        p.consume = at;
        k > 0
    }
    fn lent_block(&mut self) -> &[u8] {
        match &mut self.kind {
            // Not consumed yet: `fill_buf` gives the same bytes again without reading.
            Kind::Pcap(p) => p.r.fill_buf().unwrap_or(&[]),
            Kind::PcapNg(_) => &[],
        }
    }
    #[inline]
    fn lent(&mut self) -> &[u8] {
        match &mut self.kind {
            // The record was left in the buffer (not consumed): `fill_buf` gives the same bytes
            // again without reading.
            Kind::Pcap(p) if p.consume > 16 => match p.r.fill_buf() {
                Ok(b) => b.get(16..p.consume).unwrap_or(&[]),
                Err(_) => &[],
            },
            Kind::PcapNg(p) => p.block.get(p.lent.0..p.lent.1).unwrap_or(&[]),
            _ => &[],
        }
    }
    fn name(&self) -> &str {
        &self.c.name
    }
    fn notes(&self) -> Vec<String> {
        let p = self.c.padding;
        match p.first {
            Some((i, len)) => vec![format!(
                "{} packet(s) under {MIN_FRAME} bytes (the first: packet {i}, {len} bytes) are padded with zeros to {MIN_FRAME} bytes, as a MAC pads them",
                p.count
            )],
            None => Vec::new(),
        }
    }
}

fn cut(n: u64) -> String {
    format!("it was cut short (a capture still being written, or a partial copy); copy it whole or recapture (the {n} packets before it are complete)")
}

fn pcap_next(
    c: &mut Common,
    p: &mut Pcap,
    data: &mut Vec<u8>,
    lend: bool,
) -> Result<Option<Raw>, InputError> {
    if p.consume > 0 {
        p.r.consume(std::mem::take(&mut p.consume));
    }
    let n = c.packets;
    let mut h = [0u8; 16];
    // The common case: the record header and the packet are both in the reader's buffer. Copied from
    // there once, into `data` (the slow path below reads the same bytes in two reads).
    if let Ok(b) = p.r.fill_buf() {
        if b.len() >= 16 {
            h.copy_from_slice(&b[..16]);
            let w = [h[8], h[9], h[10], h[11]];
            let incl = if p.le {
                u32::from_le_bytes(w)
            } else {
                u32::from_be_bytes(w)
            } as usize;
            if incl <= p.snaplen.max(262_144) as usize && b.len() >= 16 + incl {
                if lend && incl >= MIN_FRAME {
                    // Left where it is: the post copies it from here into the card's memory.
                    let f = &b[16..16 + incl];
                    let (ts, orig) = pcap_times(p.le, p.nanos, &h);
                    c.check(orig, incl, 0)?;
                    let raw = c.item(ts, f, true, 0);
                    p.consume = 16 + incl;
                    return Ok(Some(raw));
                }
                data.clear();
                data.extend_from_slice(&b[16..16 + incl]);
                p.r.consume(16 + incl);
                return pcap_packet(c, p, &h, data);
            }
        }
    }
    let got = read_full(&mut p.r, &mut h).map_err(|e| io_err(&c.name, e))?;
    if got == 0 {
        return Ok(None);
    }
    if got < 16 {
        return Err(fmt_err(
            &c.name,
            format!(
                "the file ends inside the header of packet {n} ({got} of 16 bytes): {}",
                cut(n)
            ),
        ));
    }
    let word = |o: usize| {
        let w = [h[o], h[o + 1], h[o + 2], h[o + 3]];
        if p.le {
            u32::from_le_bytes(w)
        } else {
            u32::from_be_bytes(w)
        }
    };
    let incl = word(8);
    if incl > p.snaplen.max(262_144) {
        return Err(fmt_err(&c.name, format!(
            "packet {n} claims {incl} captured bytes, more than the file's snap length ({}): the file is damaged (or not a pcap file); recapture it",
            p.snaplen
        )));
    }
    data.resize(incl as usize, 0);
    let got = read_full(&mut p.r, data).map_err(|e| io_err(&c.name, e))?;
    if got < incl as usize {
        return Err(fmt_err(
            &c.name,
            format!(
                "the file ends inside packet {n} ({got} of its {incl} captured bytes): {}",
                cut(n)
            ),
        ));
    }
    pcap_packet(c, p, &h, data)
}

/// A pcap packet whose record header `h` and captured bytes `data` were read whole.
#[inline]
fn pcap_packet(
    c: &mut Common,
    p: &Pcap,
    h: &[u8; 16],
    data: &mut Vec<u8>,
) -> Result<Option<Raw>, InputError> {
    let (ns, orig) = pcap_times(p.le, p.nanos, h);
    c.packet(ns, orig, 0, data)
}

/// A pcap record header's timestamp, ns, and original length.
#[inline]
fn pcap_times(le: bool, nanos: bool, h: &[u8; 16]) -> (u64, u32) {
    let word = |o: usize| {
        let w = [h[o], h[o + 1], h[o + 2], h[o + 3]];
        if le {
            u32::from_le_bytes(w)
        } else {
            u32::from_be_bytes(w)
        }
    };
    let (sec, frac, orig) = (word(0), word(4), word(12));
    let ns = u64::from(sec) * 1_000_000_000
        + if nanos {
            u64::from(frac)
        } else {
            u64::from(frac) * 1000
        };
    (ns, orig)
}

fn pcapng_next(
    c: &mut Common,
    p: &mut PcapNg,
    data: &mut Vec<u8>,
    lend: bool,
) -> Result<Option<Raw>, InputError> {
    p.lent = (0, 0);
    loop {
        let n = c.packets;
        let at = p.at;
        // Block header: type, length, and for a section header its byte-order magic.
        let mut h = [0u8; 12];
        let mut got = 0;
        if let Some(first) = p.pending_shb.take() {
            h[..4].copy_from_slice(&first);
            got = 4;
        }
        got += read_full(&mut p.r, &mut h[got..]).map_err(|e| io_err(&c.name, e))?;
        if got == 0 {
            return Ok(None);
        }
        if got < 12 {
            return Err(fmt_err(&c.name, format!(
                "the file ends inside the header of the block at byte {at} ({got} of 12 bytes) after packet {n}: {}",
                cut(n)
            )));
        }
        let is_shb = h[..4] == [0x0a, 0x0d, 0x0d, 0x0a];
        if is_shb {
            p.le = match h[8..12] {
                [0x4d, 0x3c, 0x2b, 0x1a] => true,
                [0x1a, 0x2b, 0x3c, 0x4d] => false,
                _ => {
                    return Err(fmt_err(&c.name, format!(
                        "the section header at byte {at} has no byte-order magic: the file is damaged (or not pcapng); recapture it"
                    )))
                }
            };
            p.ifaces.clear();
        } else if at == 0 {
            return Err(fmt_err(
                &c.name,
                "not a readable pcapng file: it does not start with a section header".into(),
            ));
        }
        let le = p.le;
        let w32 = |b: &[u8], o: usize| {
            let w = [b[o], b[o + 1], b[o + 2], b[o + 3]];
            if le {
                u32::from_le_bytes(w)
            } else {
                u32::from_be_bytes(w)
            }
        };
        let ty = w32(&h, 0);
        let len = w32(&h, 4) as usize;
        if len < 12 || !len.is_multiple_of(4) || len > MAX_BLOCK {
            return Err(fmt_err(&c.name, format!(
                "the block at byte {at} (after packet {n}) claims {len} bytes, not a pcapng block length: the file is damaged (or not pcapng); recapture it"
            )));
        }
        p.block.clear();
        p.block.extend_from_slice(&h);
        p.block.resize(len, 0);
        let got = 12 + read_full(&mut p.r, &mut p.block[12..]).map_err(|e| io_err(&c.name, e))?;
        if got < len {
            return Err(fmt_err(&c.name, format!(
                "the file ends inside the block at byte {at} ({got} of its {len} bytes) after packet {n}: {}",
                cut(n)
            )));
        }
        if w32(&p.block, len - 4) as usize != len {
            return Err(fmt_err(&c.name, format!(
                "the block at byte {at} (after packet {n}) ends with another length than it starts with: the file is damaged; recapture it"
            )));
        }
        p.at += len as u64;
        let b = &p.block;
        match ty {
            0x0a0d_0d0a => {}
            1 => {
                // Interface description: link type, snap length, options.
                if len < 20 {
                    return Err(fmt_err(&c.name, format!("the interface block at byte {at} is {len} bytes, too short: the file is damaged; recapture it")));
                }
                let linktype = if le {
                    u16::from_le_bytes([b[8], b[9]])
                } else {
                    u16::from_be_bytes([b[8], b[9]])
                };
                let mut iface = Iface {
                    resol: 6,
                    offset_s: 0,
                    ethernet: linktype == 1,
                };
                let mut o = 16;
                while o + 4 <= len - 4 {
                    let (code, olen) = if le {
                        (
                            u16::from_le_bytes([b[o], b[o + 1]]),
                            u16::from_le_bytes([b[o + 2], b[o + 3]]) as usize,
                        )
                    } else {
                        (
                            u16::from_be_bytes([b[o], b[o + 1]]),
                            u16::from_be_bytes([b[o + 2], b[o + 3]]) as usize,
                        )
                    };
                    let v = o + 4;
                    if code == 0 || v + olen > len - 4 {
                        break;
                    }
                    match (code, olen) {
                        (9, 1) => iface.resol = b[v],
                        (14, 8) => {
                            let w: [u8; 8] = b[v..v + 8].try_into().unwrap_or_default();
                            iface.offset_s = if le {
                                i64::from_le_bytes(w)
                            } else {
                                i64::from_be_bytes(w)
                            };
                        }
                        _ => {}
                    }
                    o = v + olen.div_ceil(4) * 4;
                }
                p.ifaces.push(iface);
            }
            6 => {
                if len < 32 {
                    return Err(fmt_err(&c.name, format!("packet {n}: its block at byte {at} is {len} bytes, too short for an enhanced packet block: the file is damaged; recapture it")));
                }
                let i = w32(b, 8) as usize;
                let iface = *p.ifaces.get(i).ok_or_else(|| {
                    fmt_err(
                        &c.name,
                        format!("packet {n} names interface {i}, which is not described"),
                    )
                })?;
                if !iface.ethernet {
                    return Err(fmt_err(
                        &c.name,
                        format!(
                            "packet {n} is not Ethernet (only Ethernet captures can be replayed)"
                        ),
                    ));
                }
                let raw = (u64::from(w32(b, 12)) << 32) | u64::from(w32(b, 16));
                let caplen = w32(b, 20) as usize;
                let orig = w32(b, 24);
                if 28 + caplen > len - 4 {
                    return Err(fmt_err(&c.name, format!("packet {n} claims {caplen} captured bytes, more than its block at byte {at} holds: the file is damaged; recapture it")));
                }
                let ts = tsresol_to_ns(raw, iface.resol);
                // if_tsoffset: seconds to add to every timestamp of the interface.
                let ts = (i128::from(ts) + i128::from(iface.offset_s) * 1_000_000_000)
                    .clamp(0, u64::MAX as i128) as u64;
                if lend && caplen >= MIN_FRAME {
                    c.check(orig, caplen, i as u32)?;
                    let raw = c.item(ts, &b[28..28 + caplen], true, i as u32);
                    p.lent = (28, 28 + caplen);
                    return Ok(Some(raw));
                }
                data.clear();
                data.extend_from_slice(&b[28..28 + caplen]);
                return c.packet(ts, orig, i as u32, data);
            }
            2 | 3 => {
                return Err(fmt_err(
                    &c.name,
                    format!("packet {n} has no timestamp (simple/obsolete packet block)"),
                ));
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A pcap read in batches ([`Source::next_lent_batch`], one frame at a time where a batch
    /// gives none, as the schedule reads it) gives exactly the frames, queues, bytes and error of
    /// the same pcap read one frame at a time: records cut by the reader's buffer, runts to pad,
    /// frames spread over queues by flow, and a truncated packet that ends the input.
    #[test]
    fn batches_equal_frames_read_one_by_one() {
        let mut pcap = Vec::new();
        pcap.extend(0xa1b2_3c4du32.to_le_bytes());
        pcap.extend([2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
        pcap.extend(65_535u32.to_le_bytes());
        pcap.extend(1u32.to_le_bytes());
        for k in 0..3000u32 {
            let len = match k % 97 {
                0 => 9000,
                5 => 42,
                _ => 60 + (k as usize * 7) % 200,
            };
            // the last packet captured truncated: refused, naming it
            let orig = if k == 2999 { len + 1 } else { len };
            pcap.extend((k / 10).to_le_bytes());
            pcap.extend((7 * k).to_le_bytes());
            pcap.extend((len as u32).to_le_bytes());
            pcap.extend((orig as u32).to_le_bytes());
            let mut f: Vec<u8> = (0..len).map(|b| (b * 3 + k as usize) as u8).collect();
            // IPv4 UDP of one of 16 flows, so that a spread picks queues by flow
            f[12] = 0x08;
            f[13] = 0x00;
            f[14] = 0x45;
            f[23] = 17;
            f[26..30].copy_from_slice(&[10, 0, 0, (k % 16) as u8]);
            pcap.extend(f);
        }
        let spread = ReplayLimits { spread: 4, ..lim() };
        for l in [lim(), spread] {
            let open = || {
                let r =
                    std::io::BufReader::with_capacity(1 << 16, std::io::Cursor::new(pcap.clone()));
                open_capture(Box::new(r), "c".into(), l).unwrap()
            };
            let mut one = Vec::new();
            let mut s = open();
            let mut d = Vec::new();
            let e1 = loop {
                match s.next_lent(&mut d) {
                    Ok(Some(r)) => {
                        let b = if r.lent { s.lent().to_vec() } else { d.clone() };
                        one.push((r.seq, r.index, r.time_ns, r.queue, r.len, b));
                    }
                    Ok(None) => break None,
                    Err(e) => break Some(e.to_string()),
                }
            };
            let mut batched = Vec::new();
            let (mut s, mut raws, mut offs, mut batches) = (open(), Vec::new(), Vec::new(), 0);
            let e2 = loop {
                raws.clear();
                offs.clear();
                if s.next_lent_batch(&mut raws, &mut offs, 64) {
                    batches += 1;
                    assert!(raws.len() <= 64 && raws.len() == offs.len());
                    for (r, &o) in raws.iter().zip(&offs) {
                        assert!(r.lent);
                        let b = s.lent_block()[o as usize..o as usize + r.len as usize].to_vec();
                        batched.push((r.seq, r.index, r.time_ns, r.queue, r.len, b));
                    }
                    continue;
                }
                match s.next_lent(&mut d) {
                    Ok(Some(r)) => {
                        let b = if r.lent { s.lent().to_vec() } else { d.clone() };
                        batched.push((r.seq, r.index, r.time_ns, r.queue, r.len, b));
                    }
                    Ok(None) => break None,
                    Err(e) => break Some(e.to_string()),
                }
            };
            assert_eq!(batched.len(), 2999);
            assert!(batches >= 2999 / 64, "{batches} batches");
            assert!(
                batched == one,
                "batched frames differ from frames read one by one"
            );
            assert!(
                e1.as_deref().is_some_and(|e| e.contains("packet 2999")),
                "{e1:?}"
            );
            assert_eq!(e2, e1);
            assert!(l.spread == 1 || one.iter().any(|f| f.3 == 3));
        }
    }

    fn lim() -> ReplayLimits {
        ReplayLimits {
            queue: 0,
            max_len: 9600,
            spread: 1,
            by_interface: false,
        }
    }

    fn all(bytes: Vec<u8>) -> Result<Vec<(u64, Vec<u8>)>, InputError> {
        let mut s = open_capture(Box::new(std::io::Cursor::new(bytes)), "c".into(), lim())?;
        let mut out = Vec::new();
        let mut d = Vec::new();
        while let Some(r) = s.next(&mut d)? {
            out.push((r.time_ns, d.clone()));
        }
        Ok(out)
    }

    fn opt(code: u16, v: &[u8]) -> Vec<u8> {
        let mut o = code.to_le_bytes().to_vec();
        o.extend((v.len() as u16).to_le_bytes());
        o.extend(v);
        while !o.len().is_multiple_of(4) {
            o.push(0);
        }
        o
    }

    fn block(ty: u32, body: &[u8]) -> Vec<u8> {
        let len = (12 + body.len()) as u32;
        let mut b = ty.to_le_bytes().to_vec();
        b.extend(len.to_le_bytes());
        b.extend(body);
        b.extend(len.to_le_bytes());
        b
    }

    fn idb(resol: Option<u8>, offset_s: Option<i64>) -> Vec<u8> {
        let mut body = vec![1, 0, 0, 0, 0, 0, 0, 0];
        if let Some(r) = resol {
            body.extend(opt(9, &[r]));
        }
        if let Some(s) = offset_s {
            body.extend(opt(14, &s.to_le_bytes()));
        }
        body.extend([0, 0, 0, 0]);
        block(1, &body)
    }

    fn epb(iface: u32, ts: u64, data: &[u8]) -> Vec<u8> {
        let mut body = iface.to_le_bytes().to_vec();
        body.extend(((ts >> 32) as u32).to_le_bytes());
        body.extend((ts as u32).to_le_bytes());
        body.extend((data.len() as u32).to_le_bytes());
        body.extend((data.len() as u32).to_le_bytes());
        body.extend(data);
        while !body.len().is_multiple_of(4) {
            body.push(0);
        }
        block(6, &body)
    }

    fn shb() -> Vec<u8> {
        let mut body = vec![0x4d, 0x3c, 0x2b, 0x1a, 1, 0, 0, 0];
        body.extend((-1i64).to_le_bytes());
        block(0x0a0d_0d0a, &body)
    }

    /// Packets read lent (left in the reader's buffer or block) are the same as read copied:
    /// bytes, times, queues; runts and a record cut by the buffer's end are copied (and padded).
    /// With `by_interface` each pcapng packet's queue is --queue + its interface, and an
    /// interface beyond the queues allowed is refused naming the packet and the fix.
    #[test]
    fn lent_packets_equal_copied_ones_and_interfaces_pick_queues() {
        let mut f = shb();
        f.extend(idb(Some(9), None));
        f.extend(idb(None, None));
        f.extend(idb(Some(9), None));
        let ifaces = [0u32, 1, 1, 2, 0, 2, 1];
        for (k, &i) in ifaces.iter().enumerate() {
            let len = if k == 3 { 42 } else { 60 + k * 13 };
            let data: Vec<u8> = (0..len).map(|b| (b * 7 + k) as u8).collect();
            f.extend(epb(i, 1000 + k as u64, &data));
        }
        // a pcap of records longer than the 64 KiB a reader buffers at once in front of short ones
        let mut pcap = Vec::new();
        pcap.extend(0xa1b2_3c4du32.to_le_bytes());
        pcap.extend([2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
        pcap.extend(65_535u32.to_le_bytes());
        pcap.extend(1u32.to_le_bytes());
        for k in 0..40u32 {
            let len = if k % 3 == 0 { 9000 } else { 61 + k as usize };
            pcap.extend(k.to_le_bytes());
            pcap.extend((5 * k).to_le_bytes());
            pcap.extend((len as u32).to_le_bytes());
            pcap.extend((len as u32).to_le_bytes());
            pcap.extend((0..len).map(|b| (b + k as usize) as u8));
        }
        let read = |bytes: &[u8], lim: ReplayLimits, lend: bool| {
            let r =
                std::io::BufReader::with_capacity(1 << 16, std::io::Cursor::new(bytes.to_vec()));
            let mut s = open_capture(Box::new(r), "c".into(), lim)?;
            let mut out = Vec::new();
            let mut d = Vec::new();
            loop {
                let got = if lend {
                    s.next_lent(&mut d)?
                } else {
                    s.next(&mut d)?
                };
                let Some(r) = got else { break };
                let bytes = if r.lent { s.lent().to_vec() } else { d.clone() };
                out.push((r.time_ns, r.queue, r.lent, bytes));
            }
            Ok::<_, InputError>(out)
        };
        let by_if = ReplayLimits {
            queue: 1,
            spread: 3,
            by_interface: true,
            ..lim()
        };
        for (bytes, l) in [(&f, lim()), (&f, by_if), (&pcap, lim())] {
            let copied = read(bytes, l, false).unwrap();
            let lent = read(bytes, l, true).unwrap();
            assert!(copied.iter().all(|p| !p.2));
            assert!(lent.iter().filter(|p| p.2).count() >= copied.len() / 2);
            let strip = |v: &[(u64, u16, bool, Vec<u8>)]| {
                v.iter()
                    .map(|p| (p.0, p.1, p.3.clone()))
                    .collect::<Vec<_>>()
            };
            assert_eq!(strip(&lent), strip(&copied));
        }
        let got = read(&f, by_if, true).unwrap();
        let queues: Vec<u16> = got.iter().map(|p| p.1).collect();
        assert_eq!(queues, ifaces.map(|i| 1 + i as u16));
        assert_eq!(got[3].3.len(), 60, "the runt padded");
        let e = read(&f, ReplayLimits { spread: 2, ..by_if }, true)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("packet 3 was captured on interface 2")
                && e.contains("queue 3")
                && e.contains("--queues 3"),
            "{e}"
        );
    }

    /// Two interfaces with their own resolution and offset: each packet's time is its interface's.
    /// (Before this reader, `if_tsoffset` was ignored: a packet 5 s later left right after the one
    /// before it.)
    #[test]
    fn pcapng_interfaces_with_tsresol_and_tsoffset() {
        let mut f = shb();
        f.extend(idb(Some(9), None)); // ns, no offset
        f.extend(idb(None, Some(5))); // us (default), +5 s
        f.extend(idb(Some(0x80 | 10), Some(-1))); // 2^-10 s, -1 s
        f.extend(epb(0, 1_000, &[1; 60]));
        f.extend(epb(1, 7, &[2; 60]));
        f.extend(epb(2, 3 * 1024, &[3; 60]));
        let got = all(f).unwrap();
        assert_eq!(got[0].0, 1_000);
        assert_eq!(got[1].0, 5_000_007_000);
        assert_eq!(got[2].0, 2_000_000_000);
        assert_eq!(got[2].1, vec![3; 60]);
    }

    #[test]
    fn flows_hash_by_addresses_and_ports() {
        let udp = |sport: u16, vlan: bool| {
            let mut f = vec![0u8; 12];
            if vlan {
                f.extend([0x81, 0x00, 0, 5]);
            }
            f.extend([
                0x08, 0x00, 0x45, 0, 0, 28, 0, 0, 0, 0, 64, 17, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2,
            ]);
            f.extend(sport.to_be_bytes());
            f.extend([0, 53, 0, 8, 0, 0]);
            f.resize(60, 0xee);
            f
        };
        assert_eq!(flow_hash(&udp(1000, false)), flow_hash(&udp(1000, true)));
        let mut a = udp(1000, false);
        a[50] ^= 0xff; // payload: same flow
        assert_eq!(flow_hash(&a), flow_hash(&udp(1000, false)));
        assert_ne!(flow_hash(&udp(1000, false)), flow_hash(&udp(1001, false)));
        let qs: std::collections::BTreeSet<u32> =
            (0..64).map(|p| flow_hash(&udp(p, false)) % 4).collect();
        assert_eq!(qs.len(), 4, "64 flows reach every one of 4 queues");
        let _ = flow_hash(&[1, 2, 3]); // short frames hash too
                                       // Flows whose source address and port count up together (each flow's low bits flip twice)
                                       // reach both of 2 queues, and each of 4 gets a fair share.
        let flow = |k: u8| {
            let mut f = udp(4000 + u16::from(k), false);
            f[29] = k; // last byte of the source address
            f
        };
        let mut per = [0u32; 4];
        for k in 0..64 {
            per[(flow_hash(&flow(k)) % 4) as usize] += 1;
        }
        assert!(
            per.iter().all(|&c| c >= 8),
            "64 flows over 4 queues: {per:?}"
        );
    }

    #[test]
    fn pcapng_damage_is_named() {
        let mut f = shb();
        f.extend(idb(Some(9), None));
        f.extend(epb(0, 1, &[1; 60]));
        let whole = f.len();
        f.extend(epb(0, 2, &[1; 60]));
        let e = all(f[..whole + 20].to_vec()).unwrap_err().to_string();
        assert!(
            e.contains("the file ends inside the block at byte")
                && e.contains("the 1 packets before it are complete"),
            "{e}"
        );
        let e = all(f[..whole + 5].to_vec()).unwrap_err().to_string();
        assert!(e.contains("cut short"), "{e}");
        let mut bad = f.clone();
        let l = bad.len();
        bad[l - 4] ^= 4;
        let e = all(bad).unwrap_err().to_string();
        assert!(
            e.contains("ends with another length than it starts with"),
            "{e}"
        );
        let mut f2 = shb();
        f2.extend(epb(3, 1, &[1; 60]));
        let e = all(f2).unwrap_err().to_string();
        assert!(e.contains("packet 0 names interface 3"), "{e}");
    }

    #[test]
    fn pcap_runts_are_padded_and_cut_files_named() {
        let mut f = Vec::new();
        f.extend(0xa1b2_3c4du32.to_le_bytes());
        f.extend([2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
        f.extend(65535u32.to_le_bytes());
        f.extend(1u32.to_le_bytes());
        for (t, n) in [(5u32, 42usize), (9, 60)] {
            f.extend(0u32.to_le_bytes());
            f.extend(t.to_le_bytes());
            f.extend((n as u32).to_le_bytes());
            f.extend((n as u32).to_le_bytes());
            f.extend(vec![7u8; n]);
        }
        let got = all(f.clone()).unwrap();
        assert_eq!(got.len(), 2);
        assert_eq!((got[0].0, got[0].1.len()), (5, 60));
        assert_eq!(&got[0].1[42..], &[0; 18]);
        let e = all(f[..f.len() - 3].to_vec()).unwrap_err().to_string();
        assert!(
            e.contains("ends inside packet 1") && e.contains("cut short"),
            "{e}"
        );
        assert!(all(vec![1, 2])
            .unwrap_err()
            .to_string()
            .contains("too short to be a capture"));
    }
}
