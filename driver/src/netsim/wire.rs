//! Ethernet II / IPv4 / TCP parsing and building for the simulated receiver.
//!
//! This is written independently of the sender's frame code (`crate::edt::frame`) on purpose: the
//! receiver re-checks every checksum and every option with its own code, so a mistake in the
//! sender's encoder cannot hide behind the same mistake in a shared decoder.

use super::NetsimError;

/// EtherType for IPv4.
pub const ETHERTYPE_IPV4: u16 = 0x0800;
/// IP protocol number for TCP.
pub const IPPROTO_TCP: u8 = 6;

/// TCP flag bits (byte 13 of the TCP header).
pub mod flags {
    pub const FIN: u8 = 0x01;
    pub const SYN: u8 = 0x02;
    pub const RST: u8 = 0x04;
    pub const PSH: u8 = 0x08;
    pub const ACK: u8 = 0x10;
}

/// TCP options the model understands.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TcpOptions {
    pub mss: Option<u16>,
    pub wscale: Option<u8>,
    pub sack_permitted: bool,
    /// (TSval, TSecr)
    pub timestamps: Option<(u32, u32)>,
    /// SACK blocks as (left edge, right edge), at most 4.
    pub sack: Vec<(u32, u32)>,
}

/// One parsed TCP/IPv4 frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TcpFrame {
    pub src_mac: [u8; 6],
    pub dst_mac: [u8; 6],
    pub src_ip: [u8; 4],
    pub dst_ip: [u8; 4],
    pub src_port: u16,
    pub dst_port: u16,
    pub seq: u32,
    pub ack: u32,
    pub flags: u8,
    /// Raw 16-bit window field (not scaled).
    pub window: u16,
    pub options: TcpOptions,
    pub payload: Vec<u8>,
}

/// RFC 1071 one's-complement sum over `data`, folded into `acc` (not yet complemented).
fn sum16(mut acc: u32, data: &[u8]) -> u32 {
    let mut chunks = data.chunks_exact(2);
    for c in &mut chunks {
        acc += u32::from(u16::from_be_bytes([c[0], c[1]]));
    }
    if let [last] = chunks.remainder() {
        acc += u32::from(*last) << 8;
    }
    acc
}

fn fold(mut acc: u32) -> u16 {
    while acc > 0xffff {
        acc = (acc & 0xffff) + (acc >> 16);
    }
    acc as u16
}

/// The Internet checksum of `data` (complemented, ready to store).
pub fn internet_checksum(data: &[u8]) -> u16 {
    !fold(sum16(0, data))
}

fn tcp_checksum(src: [u8; 4], dst: [u8; 4], segment: &[u8]) -> u16 {
    // Pseudo-header: source, destination, zero, protocol, TCP length.
    let mut acc = sum16(0, &src);
    acc = sum16(acc, &dst);
    acc += u32::from(IPPROTO_TCP);
    acc += segment.len() as u32;
    !fold(sum16(acc, segment))
}

fn be16(b: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([b[at], b[at + 1]])
}
fn be32(b: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

fn parse_options(mut o: &[u8]) -> Result<TcpOptions, NetsimError> {
    let mut out = TcpOptions::default();
    while let Some(&kind) = o.first() {
        match kind {
            0 => break,
            1 => o = &o[1..],
            _ => {
                let len = *o
                    .get(1)
                    .ok_or(NetsimError::Malformed("truncated TCP option"))?
                    as usize;
                if len < 2 || len > o.len() {
                    return Err(NetsimError::Malformed("bad TCP option length"));
                }
                let body = &o[2..len];
                match (kind, len) {
                    (2, 4) => out.mss = Some(be16(body, 0)),
                    (3, 3) => out.wscale = Some(body[0]),
                    (4, 2) => out.sack_permitted = true,
                    (8, 10) => out.timestamps = Some((be32(body, 0), be32(body, 4))),
                    (5, _) if (len - 2).is_multiple_of(8) => {
                        for b in body.chunks_exact(8) {
                            out.sack.push((be32(b, 0), be32(b, 4)));
                        }
                    }
                    (2 | 3 | 4 | 8 | 5, _) => {
                        return Err(NetsimError::Malformed("TCP option with wrong length"))
                    }
                    _ => {} // unknown options are skipped, as RFC 9293 requires
                }
                o = &o[len..];
            }
        }
    }
    Ok(out)
}

/// Parse a frame and check the IPv4 header checksum and the TCP checksum.
pub fn parse(frame: &[u8]) -> Result<TcpFrame, NetsimError> {
    if frame.len() < 14 + 20 + 20 {
        return Err(NetsimError::Malformed(
            "frame too short for Ethernet+IPv4+TCP",
        ));
    }
    if be16(frame, 12) != ETHERTYPE_IPV4 {
        return Err(NetsimError::Malformed("not IPv4"));
    }
    let ip = &frame[14..];
    if ip[0] >> 4 != 4 {
        return Err(NetsimError::Malformed("IP version is not 4"));
    }
    let ihl = usize::from(ip[0] & 0x0f) * 4;
    let total = usize::from(be16(ip, 2));
    if ihl < 20 || total < ihl + 20 || total > ip.len() {
        return Err(NetsimError::Malformed("bad IPv4 lengths"));
    }
    if internet_checksum(&ip[..ihl]) != 0 {
        return Err(NetsimError::BadChecksum("IPv4 header"));
    }
    if ip[9] != IPPROTO_TCP {
        return Err(NetsimError::Malformed("not TCP"));
    }
    let src_ip = [ip[12], ip[13], ip[14], ip[15]];
    let dst_ip = [ip[16], ip[17], ip[18], ip[19]];
    let seg = &ip[ihl..total];
    if tcp_checksum(src_ip, dst_ip, seg) != 0 {
        return Err(NetsimError::BadChecksum("TCP"));
    }
    let doff = usize::from(seg[12] >> 4) * 4;
    if doff < 20 || doff > seg.len() {
        return Err(NetsimError::Malformed("bad TCP data offset"));
    }
    let mut src_mac = [0u8; 6];
    let mut dst_mac = [0u8; 6];
    dst_mac.copy_from_slice(&frame[0..6]);
    src_mac.copy_from_slice(&frame[6..12]);
    Ok(TcpFrame {
        src_mac,
        dst_mac,
        src_ip,
        dst_ip,
        src_port: be16(seg, 0),
        dst_port: be16(seg, 2),
        seq: be32(seg, 4),
        ack: be32(seg, 8),
        flags: seg[13],
        window: be16(seg, 14),
        options: parse_options(&seg[20..doff])?,
        payload: seg[doff..].to_vec(),
    })
}

fn encode_options(o: &TcpOptions) -> Vec<u8> {
    let mut v = Vec::with_capacity(40);
    if let Some(mss) = o.mss {
        v.extend_from_slice(&[2, 4]);
        v.extend_from_slice(&mss.to_be_bytes());
    }
    if o.sack_permitted {
        v.extend_from_slice(&[1, 1, 4, 2]);
    }
    if let Some((val, ecr)) = o.timestamps {
        v.extend_from_slice(&[1, 1, 8, 10]);
        v.extend_from_slice(&val.to_be_bytes());
        v.extend_from_slice(&ecr.to_be_bytes());
    }
    if let Some(ws) = o.wscale {
        v.extend_from_slice(&[1, 3, 3, ws]);
    }
    if !o.sack.is_empty() {
        // Room left in 40 bytes of options: 3 blocks with timestamps, 4 without.
        let room = (40 - v.len() - 4) / 8;
        let n = o.sack.len().min(room);
        v.extend_from_slice(&[1, 1, 5, (2 + 8 * n) as u8]);
        for &(l, r) in &o.sack[..n] {
            v.extend_from_slice(&l.to_be_bytes());
            v.extend_from_slice(&r.to_be_bytes());
        }
    }
    while v.len() % 4 != 0 {
        v.push(1);
    }
    v
}

/// Build a complete frame (no FCS: the MAC appends it) with both checksums filled in.
pub fn build(f: &TcpFrame) -> Vec<u8> {
    let opts = encode_options(&f.options);
    let tcp_len = 20 + opts.len() + f.payload.len();
    let ip_len = 20 + tcp_len;
    let mut b = Vec::with_capacity(14 + ip_len);
    b.extend_from_slice(&f.dst_mac);
    b.extend_from_slice(&f.src_mac);
    b.extend_from_slice(&ETHERTYPE_IPV4.to_be_bytes());
    // IPv4 header: version 4, IHL 5, DF set, TTL 64.
    let ip_start = b.len();
    b.extend_from_slice(&[0x45, 0]);
    b.extend_from_slice(&(ip_len as u16).to_be_bytes());
    b.extend_from_slice(&[0, 0, 0x40, 0, 64, IPPROTO_TCP, 0, 0]);
    b.extend_from_slice(&f.src_ip);
    b.extend_from_slice(&f.dst_ip);
    let ip_csum = internet_checksum(&b[ip_start..ip_start + 20]);
    b[ip_start + 10..ip_start + 12].copy_from_slice(&ip_csum.to_be_bytes());
    let tcp_start = b.len();
    b.extend_from_slice(&f.src_port.to_be_bytes());
    b.extend_from_slice(&f.dst_port.to_be_bytes());
    b.extend_from_slice(&f.seq.to_be_bytes());
    b.extend_from_slice(&f.ack.to_be_bytes());
    b.push((((20 + opts.len()) / 4) as u8) << 4);
    b.push(f.flags);
    b.extend_from_slice(&f.window.to_be_bytes());
    b.extend_from_slice(&[0, 0, 0, 0]); // checksum, urgent pointer
    b.extend_from_slice(&opts);
    b.extend_from_slice(&f.payload);
    let csum = tcp_checksum(f.src_ip, f.dst_ip, &b[tcp_start..]);
    b[tcp_start + 16..tcp_start + 18].copy_from_slice(&csum.to_be_bytes());
    b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc1071_example() {
        // RFC 1071 section 3 example: bytes 00 01 f2 03 f4 f5 f6 f7 sum (before complement)
        // to 0xddf2, so the checksum stored is !0xddf2 = 0x220d.
        assert_eq!(
            internet_checksum(&[0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7]),
            0x220d
        );
    }

    #[test]
    fn build_parse_round_trip_and_corruption_detected() {
        let f = TcpFrame {
            src_mac: [2, 0, 0, 0, 0, 1],
            dst_mac: [2, 0, 0, 0, 0, 2],
            src_ip: [10, 0, 0, 1],
            dst_ip: [10, 0, 0, 2],
            src_port: 40000,
            dst_port: 5001,
            seq: 0xfffffff0,
            ack: 7,
            flags: flags::ACK,
            window: 1234,
            options: TcpOptions {
                timestamps: Some((1, 2)),
                sack: vec![(10, 20), (30, 40), (50, 60), (70, 80)],
                ..Default::default()
            },
            payload: vec![1, 2, 3],
        };
        let b = build(&f);
        let p = parse(&b).unwrap();
        // Only 3 SACK blocks fit next to timestamps.
        assert_eq!(p.options.sack.len(), 3);
        assert_eq!(p.payload, vec![1, 2, 3]);
        let mut bad = b.clone();
        let last = bad.len() - 1;
        bad[last] ^= 0xff;
        assert!(matches!(parse(&bad), Err(NetsimError::BadChecksum("TCP"))));
        let mut bad = b;
        bad[14 + 8] ^= 1; // TTL
        assert!(matches!(
            parse(&bad),
            Err(NetsimError::BadChecksum("IPv4 header"))
        ));
    }
}
