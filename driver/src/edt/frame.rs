//! The sender's Ethernet II / IPv4 / TCP encoder and decoder.
//!
//! Frames are complete and valid: IPv4 header checksum and TCP checksum over the pseudo-header
//! (RFC 791, RFC 9293 3.1), so a real TCP stack would accept them. The FCS is left to the MAC.

use super::EdtError;

/// TCP header flag bits.
pub mod tcp_flags {
    pub const FIN: u8 = 0x01;
    pub const SYN: u8 = 0x02;
    pub const RST: u8 = 0x04;
    pub const PSH: u8 = 0x08;
    pub const ACK: u8 = 0x10;
}

/// Ethernet (14) + IPv4 (20) + TCP (20) without options.
pub const BASE_HEADERS: usize = 54;
/// TCP timestamps option as Linux lays it out: NOP, NOP, kind 8, len 10, TSval, TSecr.
pub const TS_OPTION_LEN: usize = 12;

/// The payload byte at TCP stream offset `offset` (offset 0 = first byte after the SYN). The
/// sender fills its segments with this pattern so a receiver (the simulated one in
/// `crate::netsim`, or a test) can check contents, not only counts. 251 is prime, so the pattern
/// does not line up with any power-of-two segment or buffer size.
pub fn pattern_byte(offset: u64) -> u8 {
    (offset % 251) as u8
}

/// The longest payload [`pattern_payload`] serves from its table (a TSO-sized segment).
pub const PATTERN_MAX: usize = 65_536;

/// The pattern laid out once (`pattern_byte(i)` at index `i`, long enough that every stream
/// offset's payload of up to [`PATTERN_MAX`] bytes is one slice of it) and the running
/// one's-complement sums of its 16-bit words from even and from odd indices, so a payload's
/// checksum contribution is one subtraction (the incremental checksum of RFC 1624's kind).
struct PatternTable {
    bytes: Vec<u8>,
    /// even[k]: sum of the words at indices 0, 2, .., 2k-2 (each `bytes[2i] << 8 | bytes[2i+1]`).
    even: Vec<u64>,
    /// odd[k]: sum of the words at indices 1, 3, .., 2k-1.
    odd: Vec<u64>,
}

fn pattern_table() -> &'static PatternTable {
    static TABLE: std::sync::OnceLock<PatternTable> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        let n = 251 + PATTERN_MAX + 2;
        let bytes: Vec<u8> = (0..n as u64).map(pattern_byte).collect();
        let word = |i: usize| u64::from(bytes[i]) << 8 | u64::from(bytes[i + 1]);
        let mut even = vec![0u64];
        let mut odd = vec![0u64];
        let mut i = 0;
        while i + 2 < n {
            even.push(even[even.len() - 1] + word(i));
            odd.push(odd[odd.len() - 1] + word(i + 1));
            i += 2;
        }
        PatternTable { bytes, even, odd }
    })
}

/// The payload at stream offset `offset`, `len` bytes of the pattern, borrowed from a table
/// built once (no per-frame work), with its one's-complement sum (as `ones_sum` of it). None
/// beyond [`PATTERN_MAX`].
pub fn pattern_payload(offset: u64, len: usize) -> Option<(&'static [u8], u64)> {
    if len > PATTERN_MAX {
        return None;
    }
    let t = pattern_table();
    let r = (offset % 251) as usize;
    let words = len / 2;
    let mut sum = if r.is_multiple_of(2) {
        t.even[r / 2 + words] - t.even[r / 2]
    } else {
        t.odd[(r - 1) / 2 + words] - t.odd[(r - 1) / 2]
    };
    if len % 2 == 1 {
        sum += u64::from(t.bytes[r + len - 1]) << 8;
    }
    Some((&t.bytes[r..r + len], sum))
}

/// The two ends of a connection as they appear in frames.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Endpoints {
    pub src_mac: [u8; 6],
    pub dst_mac: [u8; 6],
    pub src_ip: [u8; 4],
    pub dst_ip: [u8; 4],
    pub src_port: u16,
    pub dst_port: u16,
}

/// Options carried in a segment.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SegOptions {
    pub mss: Option<u16>,
    pub wscale: Option<u8>,
    pub sack_permitted: bool,
    pub timestamps: Option<(u32, u32)>,
    pub sack: Vec<(u32, u32)>,
}

/// A decoded segment (what the sender needs from an incoming ACK).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Segment {
    pub ends: Endpoints,
    pub seq: u32,
    pub ack: u32,
    pub flags: u8,
    pub window: u16,
    pub options: SegOptions,
    pub payload_len: usize,
}

/// One's-complement sum of 16-bit big-endian words (RFC 1071), not yet folded. Eight bytes
/// are added at a time as two 32-bit words: 2^16 = 1 (mod 2^16 - 1), so the folded result is
/// the same as adding the 16-bit words one by one (RFC 1071 2.(B), "parallel summation").
fn ones_sum(data: &[u8], mut acc: u64) -> u64 {
    let mut chunks = data.chunks_exact(8);
    for c in &mut chunks {
        let x = u64::from_be_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
        acc += (x >> 32) + (x & 0xffff_ffff);
    }
    let data = chunks.remainder();
    let mut i = 0;
    while i + 1 < data.len() {
        acc += u64::from(data[i]) << 8 | u64::from(data[i + 1]);
        i += 2;
    }
    if i < data.len() {
        acc += u64::from(data[i]) << 8;
    }
    acc
}

/// Fold carries and complement: the value to store in a checksum field.
fn finish(mut acc: u64) -> u16 {
    while acc >> 16 != 0 {
        acc = (acc & 0xffff) + (acc >> 16);
    }
    !(acc as u16)
}

/// IPv4 header checksum of `hdr` (with its checksum field zero, or verifying to 0 if filled).
pub fn ipv4_checksum(hdr: &[u8]) -> u16 {
    finish(ones_sum(hdr, 0))
}

/// TCP checksum over the IPv4 pseudo-header and `segment` (TCP header + payload).
pub fn tcp_checksum(src: [u8; 4], dst: [u8; 4], segment: &[u8]) -> u16 {
    let mut acc = ones_sum(&src, 0);
    acc = ones_sum(&dst, acc);
    acc += 6; // zero byte + protocol TCP
    acc += segment.len() as u64;
    finish(ones_sum(segment, acc))
}

/// A segment's TCP options as written, on the stack (no allocation per frame): at most 40
/// bytes, the most the data offset can cover, which the layout below never exceeds (MSS 4,
/// SACK-permitted/timestamps 12, window scale 4, SACK blocks in the room left).
struct OptBuf {
    b: [u8; 40],
    n: usize,
}

impl OptBuf {
    fn extend_from_slice(&mut self, s: &[u8]) {
        let end = (self.n + s.len()).min(self.b.len());
        self.b[self.n..end].copy_from_slice(&s[..end - self.n]);
        self.n = end;
    }

    fn push(&mut self, x: u8) {
        self.extend_from_slice(&[x]);
    }
}

impl std::ops::Deref for OptBuf {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.b[..self.n]
    }
}

fn options_bytes(o: &SegOptions) -> OptBuf {
    let mut v = OptBuf { b: [0; 40], n: 0 };
    if let Some(m) = o.mss {
        v.extend_from_slice(&[2, 4]);
        v.extend_from_slice(&m.to_be_bytes());
    }
    // SACK-permitted and timestamps share a word the way Linux writes them in a SYN.
    match (o.sack_permitted, o.timestamps) {
        (true, Some((val, ecr))) => {
            v.extend_from_slice(&[4, 2, 8, 10]);
            v.extend_from_slice(&val.to_be_bytes());
            v.extend_from_slice(&ecr.to_be_bytes());
        }
        (true, None) => v.extend_from_slice(&[1, 1, 4, 2]),
        (false, Some((val, ecr))) => {
            v.extend_from_slice(&[1, 1, 8, 10]);
            v.extend_from_slice(&val.to_be_bytes());
            v.extend_from_slice(&ecr.to_be_bytes());
        }
        (false, None) => {}
    }
    if let Some(ws) = o.wscale {
        v.extend_from_slice(&[1, 3, 3, ws]);
    }
    if !o.sack.is_empty() {
        let room = (40usize.saturating_sub(v.len() + 4)) / 8;
        let n = o.sack.len().min(room);
        if n > 0 {
            v.extend_from_slice(&[1, 1, 5, (2 + 8 * n) as u8]);
            for (l, r) in &o.sack[..n] {
                v.extend_from_slice(&l.to_be_bytes());
                v.extend_from_slice(&r.to_be_bytes());
            }
        }
    }
    while !v.len().is_multiple_of(4) {
        v.push(0); // end-of-options padding
    }
    v
}

/// Build a full frame. `payload` is copied after the headers.
pub fn build(
    ends: &Endpoints,
    seq: u32,
    ack: u32,
    flags: u8,
    window: u16,
    opts: &SegOptions,
    payload: &[u8],
) -> Vec<u8> {
    build_summed(ends, seq, ack, flags, window, opts, payload, None)
}

/// [`build`] with the payload of the sender's pattern at stream offset `offset` ([`pattern_byte`]),
/// copied from the pattern table with its checksum sum taken from the table: the bytes are those
/// `build` makes from the same payload.
#[allow(clippy::too_many_arguments)]
pub fn build_pattern(
    ends: &Endpoints,
    seq: u32,
    ack: u32,
    flags: u8,
    window: u16,
    opts: &SegOptions,
    offset: u64,
    len: usize,
) -> Vec<u8> {
    match pattern_payload(offset, len) {
        Some((payload, sum)) => {
            build_summed(ends, seq, ack, flags, window, opts, payload, Some(sum))
        }
        None => {
            let payload: Vec<u8> = (offset..offset + len as u64).map(pattern_byte).collect();
            build_summed(ends, seq, ack, flags, window, opts, &payload, None)
        }
    }
}

/// `build`, with the payload's one's-complement sum when the caller knows it.
#[allow(clippy::too_many_arguments)]
fn build_summed(
    ends: &Endpoints,
    seq: u32,
    ack: u32,
    flags: u8,
    window: u16,
    opts: &SegOptions,
    payload: &[u8],
    payload_sum: Option<u64>,
) -> Vec<u8> {
    let opt = options_bytes(opts);
    let tcp_len = 20 + opt.len() + payload.len();
    let total = 20 + tcp_len;
    // headers zeroed, then the payload appended (its bytes are not zeroed first)
    let mut f = Vec::with_capacity(14 + total);
    f.resize(14 + 40 + opt.len(), 0);
    f.extend_from_slice(payload);
    f[0..6].copy_from_slice(&ends.dst_mac);
    f[6..12].copy_from_slice(&ends.src_mac);
    f[12..14].copy_from_slice(&0x0800u16.to_be_bytes());
    {
        let ip = &mut f[14..34];
        ip[0] = 0x45; // version 4, 5 words
        ip[2..4].copy_from_slice(&(total as u16).to_be_bytes());
        ip[6] = 0x40; // don't fragment
        ip[8] = 64; // TTL
        ip[9] = 6; // TCP
        ip[12..16].copy_from_slice(&ends.src_ip);
        ip[16..20].copy_from_slice(&ends.dst_ip);
        let c = ipv4_checksum(ip);
        ip[10..12].copy_from_slice(&c.to_be_bytes());
    }
    {
        let t = &mut f[34..];
        t[0..2].copy_from_slice(&ends.src_port.to_be_bytes());
        t[2..4].copy_from_slice(&ends.dst_port.to_be_bytes());
        t[4..8].copy_from_slice(&seq.to_be_bytes());
        t[8..12].copy_from_slice(&ack.to_be_bytes());
        t[12] = (((20 + opt.len()) / 4) as u8) << 4;
        t[13] = flags;
        t[14..16].copy_from_slice(&window.to_be_bytes());
        t[20..20 + opt.len()].copy_from_slice(&opt);
        let c = match payload_sum {
            // the header and options are whole 32-bit words: the payload's words line up
            Some(sum) => {
                let mut acc = ones_sum(&ends.src_ip, 0);
                acc = ones_sum(&ends.dst_ip, acc);
                acc += 6 + t.len() as u64;
                finish(ones_sum(&t[..20 + opt.len()], acc) + sum)
            }
            None => tcp_checksum(ends.src_ip, ends.dst_ip, t),
        };
        t[16..18].copy_from_slice(&c.to_be_bytes());
    }
    f
}

/// Frame buffers kept for reuse, per thread: a data frame is built into a buffer taken from
/// here and, once its life ends (it has left the card and whoever consumed it from the wire is
/// done), [`recycle`] puts it back, so steady sending allocates nothing per frame (the DMA
/// buffer pool of a real driver; the buffers' size covers a 1500-byte MTU frame).
const POOL_BUF: usize = 1_536;
/// At most this many buffers wait in a thread's pool (about 6 MB); beyond, a returned buffer
/// is freed.
const POOL_MAX: usize = 4_096;

thread_local! {
    static POOL: std::cell::RefCell<Vec<Vec<u8>>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// An empty buffer from this thread's pool (a new one when the pool is empty) with room for
/// at least `len` bytes.
pub fn take_buf(len: usize) -> Vec<u8> {
    let mut b = POOL
        .try_with(|p| p.borrow_mut().pop())
        .ok()
        .flatten()
        .unwrap_or_default();
    b.clear();
    b.reserve(len.max(POOL_BUF));
    b
}

/// Return a frame's buffer to this thread's pool (freed if the pool is full, or if it is not
/// a frame buffer's size).
pub fn recycle(b: Vec<u8>) {
    if b.capacity() < POOL_BUF || b.capacity() > 2 * PATTERN_MAX {
        return;
    }
    let _ = POOL.try_with(|p| {
        let mut p = p.borrow_mut();
        if p.len() < POOL_MAX {
            p.push(b);
        }
    });
}

/// A data segment's headers laid out once per connection (Ethernet, IPv4, TCP with or without
/// the timestamps option, as [`build`] writes them) with the one's-complement sums of their
/// fixed words, so a frame is the template copied into a pooled buffer, the payload copied
/// after it, the per-segment fields (IP length, seq, ack, flags, window, TSval, TSecr) written
/// and both checksums completed from the sums (RFC 1624's incremental kind): no option
/// encoding and no pass over the headers per frame. The bytes are those [`build`] makes
/// (`template_frames_are_the_bytes_build_makes`).
#[derive(Debug, Clone)]
pub struct DataTemplate {
    hdr: [u8; BASE_HEADERS + TS_OPTION_LEN],
    len: usize,
    ts: bool,
    /// IPv4 header words without total length and checksum.
    ip_sum: u64,
    /// Pseudo-header addresses and protocol, TCP ports, data offset and the options' fixed
    /// words (NOP NOP kind len).
    tcp_sum: u64,
}

impl DataTemplate {
    /// The template for `ends`' data segments, with the timestamps option when `ts`.
    pub fn new(ends: &Endpoints, ts: bool) -> Self {
        let opts = SegOptions {
            timestamps: ts.then_some((0, 0)),
            ..SegOptions::default()
        };
        // build's own bytes with every per-segment field zero: seq, ack, flags, window,
        // TSval/TSecr 0; IP length and both checksums cleared below
        let f = build(ends, 0, 0, 0, 0, &opts, &[]);
        let mut hdr = [0u8; BASE_HEADERS + TS_OPTION_LEN];
        hdr[..f.len()].copy_from_slice(&f);
        hdr[16..18].fill(0); // IP total length
        hdr[24..26].fill(0); // IP checksum
        hdr[50..52].fill(0); // TCP checksum
        let ip_sum = ones_sum(&hdr[14..34], 0);
        let mut tcp_sum = ones_sum(&ends.src_ip, 0);
        tcp_sum = ones_sum(&ends.dst_ip, tcp_sum) + 6;
        tcp_sum = ones_sum(&hdr[34..f.len()], tcp_sum);
        DataTemplate {
            hdr,
            len: f.len(),
            ts,
            ip_sum,
            tcp_sum,
        }
    }

    /// Whether the template carries the timestamps option.
    pub fn has_timestamps(&self) -> bool {
        self.ts
    }

    /// The frame of a segment whose payload is the stream pattern at `offset`, `len` bytes
    /// ([`build_pattern`]'s bytes), in a buffer from this thread's pool. `ts` is (TSval,
    /// TSecr), written when the template has the option.
    #[allow(clippy::too_many_arguments)]
    pub fn build_pattern(
        &self,
        seq: u32,
        ack: u32,
        flags: u8,
        window: u16,
        ts: (u32, u32),
        offset: u64,
        len: usize,
    ) -> Vec<u8> {
        let Some((payload, sum)) = pattern_payload(offset, len) else {
            let opts = SegOptions {
                timestamps: self.ts.then_some(ts),
                ..SegOptions::default()
            };
            let e = self.ends();
            return build_pattern(&e, seq, ack, flags, window, &opts, offset, len);
        };
        let hl = self.len;
        let mut f = take_buf(hl + len);
        f.extend_from_slice(&self.hdr[..hl]);
        f.extend_from_slice(payload);
        // (an IP length beyond 16 bits wraps in the field as `build` writes it; the TCP
        // pseudo-header's length is the real one)
        let total = hl - 14 + len;
        let tcp_len = (total - 20) as u64;
        f[16..18].copy_from_slice(&(total as u16).to_be_bytes());
        let ip = finish(self.ip_sum + u64::from(total as u16));
        f[24..26].copy_from_slice(&ip.to_be_bytes());
        f[38..42].copy_from_slice(&seq.to_be_bytes());
        f[42..46].copy_from_slice(&ack.to_be_bytes());
        f[47] = flags;
        f[48..50].copy_from_slice(&window.to_be_bytes());
        let w32 = |x: u32| u64::from(x >> 16) + u64::from(x & 0xffff);
        let mut acc = self.tcp_sum
            + tcp_len
            + w32(seq)
            + w32(ack)
            + u64::from(flags)
            + u64::from(window)
            + sum;
        if self.ts {
            f[58..62].copy_from_slice(&ts.0.to_be_bytes());
            f[62..66].copy_from_slice(&ts.1.to_be_bytes());
            acc += w32(ts.0) + w32(ts.1);
        }
        f[50..52].copy_from_slice(&finish(acc).to_be_bytes());
        f
    }

    fn ends(&self) -> Endpoints {
        let h = &self.hdr;
        let mut e = Endpoints {
            dst_mac: [0; 6],
            src_mac: [0; 6],
            src_ip: [h[26], h[27], h[28], h[29]],
            dst_ip: [h[30], h[31], h[32], h[33]],
            src_port: rd16(h, 34),
            dst_port: rd16(h, 36),
        };
        e.dst_mac.copy_from_slice(&h[0..6]);
        e.src_mac.copy_from_slice(&h[6..12]);
        e
    }
}

#[inline(always)]
fn rd16(b: &[u8], i: usize) -> u16 {
    u16::from_be_bytes([b[i], b[i + 1]])
}
#[inline(always)]
fn rd32(b: &[u8], i: usize) -> u32 {
    u32::from_be_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]])
}

/// Decode and verify a frame (both checksums). Errors say what is wrong.
pub fn parse(f: &[u8]) -> Result<Segment, EdtError> {
    let bad = |why: &'static str| EdtError::BadFrame(why);
    if f.len() < BASE_HEADERS {
        return Err(bad("shorter than Ethernet+IPv4+TCP headers"));
    }
    if rd16(f, 12) != 0x0800 {
        return Err(bad("EtherType is not IPv4"));
    }
    let ip = &f[14..];
    let ihl = usize::from(ip[0] & 0xf) * 4;
    let total = usize::from(rd16(ip, 2));
    if ip[0] >> 4 != 4 || ihl < 20 || total < ihl + 20 || total > ip.len() {
        return Err(bad("bad IPv4 header lengths"));
    }
    if ipv4_checksum(&ip[..ihl]) != 0 {
        return Err(bad("IPv4 header checksum mismatch"));
    }
    if ip[9] != 6 {
        return Err(bad("IP protocol is not TCP"));
    }
    let src_ip = [ip[12], ip[13], ip[14], ip[15]];
    let dst_ip = [ip[16], ip[17], ip[18], ip[19]];
    let t = &ip[ihl..total];
    if tcp_checksum(src_ip, dst_ip, t) != 0 {
        return Err(bad("TCP checksum mismatch"));
    }
    let doff = usize::from(t[12] >> 4) * 4;
    if doff < 20 || doff > t.len() {
        return Err(bad("bad TCP data offset"));
    }
    let mut options = SegOptions::default();
    let mut o = &t[20..doff];
    while let Some(&kind) = o.first() {
        if kind == 0 {
            break;
        }
        if kind == 1 {
            o = &o[1..];
            continue;
        }
        let len = usize::from(*o.get(1).ok_or(bad("truncated TCP option"))?);
        if len < 2 || len > o.len() {
            return Err(bad("bad TCP option length"));
        }
        let b = &o[2..len];
        match kind {
            2 if len == 4 => options.mss = Some(rd16(b, 0)),
            3 if len == 3 => options.wscale = Some(b[0]),
            4 if len == 2 => options.sack_permitted = true,
            8 if len == 10 => options.timestamps = Some((rd32(b, 0), rd32(b, 4))),
            5 if (len - 2) % 8 == 0 => {
                options.sack = b
                    .chunks_exact(8)
                    .map(|c| (rd32(c, 0), rd32(c, 4)))
                    .collect()
            }
            _ => {}
        }
        o = &o[len..];
    }
    let mut src_mac = [0; 6];
    let mut dst_mac = [0; 6];
    dst_mac.copy_from_slice(&f[0..6]);
    src_mac.copy_from_slice(&f[6..12]);
    Ok(Segment {
        ends: Endpoints {
            src_mac,
            dst_mac,
            src_ip,
            dst_ip,
            src_port: rd16(t, 0),
            dst_port: rd16(t, 2),
        },
        seq: rd32(t, 4),
        ack: rd32(t, 8),
        flags: t[13],
        window: rd16(t, 14),
        options,
        payload_len: t.len() - doff,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The 16-bit-at-a-time sum of RFC 1071, folded: what `ones_sum` must agree with.
    fn reference_fold(data: &[u8], mut acc: u64) -> u16 {
        let mut i = 0;
        while i + 1 < data.len() {
            acc += u64::from(data[i]) << 8 | u64::from(data[i + 1]);
            i += 2;
        }
        if i < data.len() {
            acc += u64::from(data[i]) << 8;
        }
        finish(acc)
    }

    #[test]
    fn wide_sum_folds_as_the_word_sum() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for len in (0..40).chain([1447, 1448, 1460, 9000]) {
            let data: Vec<u8> = (0..len)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    (x >> 24) as u8
                })
                .collect();
            assert_eq!(
                finish(ones_sum(&data, 7)),
                reference_fold(&data, 7),
                "{len}"
            );
        }
        // all zero, and words that fold to 0xffff
        assert_eq!(finish(ones_sum(&[0; 16], 0)), reference_fold(&[0; 16], 0));
        assert_eq!(
            finish(ones_sum(&[0xff; 16], 0)),
            reference_fold(&[0xff; 16], 0)
        );
    }

    #[test]
    fn pattern_frames_are_the_bytes_build_makes() {
        let e = Endpoints {
            src_mac: [2, 0, 0, 0, 0, 1],
            dst_mac: [2, 0, 0, 0, 0, 2],
            src_ip: [10, 0, 0, 1],
            dst_ip: [10, 0, 0, 2],
            src_port: 33000,
            dst_port: 5001,
        };
        let opts = SegOptions {
            timestamps: Some((5, 6)),
            ..SegOptions::default()
        };
        for off in [
            0u64,
            1,
            2,
            249,
            250,
            251,
            252,
            1_000_003,
            u64::from(u32::MAX) + 17,
        ] {
            for len in [0usize, 1, 2, 3, 1447, 1448, 65_536, 65_537] {
                let payload: Vec<u8> = (off..off + len as u64).map(pattern_byte).collect();
                let want = build(&e, 9, 10, tcp_flags::ACK, 100, &opts, &payload);
                let got = build_pattern(&e, 9, 10, tcp_flags::ACK, 100, &opts, off, len);
                assert!(want == got, "offset {off} len {len}");
            }
        }
    }

    #[test]
    fn template_frames_are_the_bytes_build_makes() {
        let e = Endpoints {
            src_mac: [2, 0, 0, 0, 0, 1],
            dst_mac: [0x3c, 0xfd, 0xfe, 0, 0xaa, 2],
            src_ip: [10, 0, 0, 1],
            dst_ip: [192, 168, 200, 254],
            src_port: 33000,
            dst_port: 5001,
        };
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for ts in [true, false] {
            let t = DataTemplate::new(&e, ts);
            assert_eq!(t.has_timestamps(), ts);
            for len in [0usize, 1, 2, 3, 535, 1447, 1448, 1460, 65_536, 65_537] {
                for _ in 0..20 {
                    let r = next();
                    let (seq, ack) = (r as u32, (r >> 32) as u32);
                    let fl = (next() & 0x1f) as u8;
                    let win = next() as u16;
                    let tsv = (next() as u32, next() as u32);
                    let off = next() % (1 << 40);
                    let opts = SegOptions {
                        timestamps: ts.then_some(tsv),
                        ..SegOptions::default()
                    };
                    let payload: Vec<u8> = (off..off + len as u64).map(pattern_byte).collect();
                    let want = build(&e, seq, ack, fl, win, &opts, &payload);
                    let got = t.build_pattern(seq, ack, fl, win, tsv, off, len);
                    assert!(want == got, "ts {ts} len {len} seq {seq} off {off}");
                    recycle(got); // the next frame is built in a used buffer
                }
            }
        }
    }

    #[test]
    fn pooled_buffers_come_back_empty_with_room() {
        let mut b = take_buf(10);
        assert!(b.is_empty() && b.capacity() >= POOL_BUF);
        b.extend_from_slice(&[7; 100]);
        let p = b.as_ptr();
        recycle(b);
        let c = take_buf(1514);
        assert!(c.is_empty() && c.capacity() >= 1514);
        assert_eq!(c.as_ptr(), p, "the returned buffer is reused");
        recycle(vec![0; 60]); // not a frame buffer's size: not kept
        assert!(take_buf(0).capacity() >= POOL_BUF);
    }

    #[test]
    fn ipv4_checksum_known_header() {
        // A classic worked example of the IPv4 header checksum:
        // 4500 0073 0000 4000 4011 ---- c0a8 0001 c0a8 00c7
        // word sum = 0x2_479c -> fold 0x479e -> complement 0xb861.
        let hdr = [
            0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0x00, 0x00, 0xc0, 0xa8,
            0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7,
        ];
        assert_eq!(ipv4_checksum(&hdr), 0xb861);
    }

    #[test]
    fn syn_round_trip() {
        let ends = Endpoints {
            src_mac: [2, 0, 0, 0, 0, 1],
            dst_mac: [2, 0, 0, 0, 0, 2],
            src_ip: [10, 0, 0, 1],
            dst_ip: [10, 0, 0, 2],
            src_port: 33000,
            dst_port: 5001,
        };
        let opts = SegOptions {
            mss: Some(1460),
            wscale: Some(7),
            sack_permitted: true,
            timestamps: Some((100, 0)),
            sack: vec![],
        };
        let f = build(&ends, 12345, 0, tcp_flags::SYN, 65535, &opts, &[]);
        // MSS 4 + SACKOK/TS 12 + WS 4 = 20 bytes of options, as Linux's SYN.
        assert_eq!(f.len(), BASE_HEADERS + 20);
        let s = parse(&f).unwrap();
        assert_eq!(s.options, opts);
        assert_eq!(s.seq, 12345);
        assert_eq!(s.ends, ends);
    }
}
