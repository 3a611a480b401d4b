//! Receive-side batching: a NAPI poll and GRO, as the receiving host's NIC driver and stack
//! hand TCP segments to TCP (Linux net/core/gro.c `dev_gro_receive`, net/ipv4/tcp_offload.c
//! `tcp_gro_receive`, `napi_complete_done`'s flush).
//!
//! **The poll** ([`GroConfig`]): the network model ([`super::Network`]) collects a flow's frames
//! as they arrive and runs one NAPI poll over them when the train of frames ends or
//! `max_delay_ns` after its first frame, whichever is first. A *train* is frames contiguous on
//! the receiver's wire: each arrives (its last bit) no later than one full-sized frame time at
//! the bottleneck rate after the one before, so the receiving link never went idle between
//! them. This idealises adaptive interrupt moderation (net_dim): a frame alone is polled at
//! once, back-to-back frames wait for each other, and no batch waits longer than the NIC's
//! moderation period (mlx5e's default `MLX5E_PARAMS_DEFAULT_RX_CQ_MODERATION_USEC`, 16 us,
//! with `..._PKTS` 32, drivers/net/ethernet/mellanox/mlx5/core/en.h) or holds more than the
//! NAPI budget (64 frames, `NAPI_POLL_WEIGHT`). Each flow is polled on its own (as if RSS gave
//! it its own queue); the poll itself takes no time.
//!
//! **GRO** ([`merge`]): within a poll, in arrival order, a segment joins the flow's held packet
//! when `tcp_gro_receive` would merge it: same ports, same ACK number, same flags except
//! FIN/PSH/CWR (and no CWR), byte-identical options (so the same TSval and TSecr), in sequence
//! right after the held data, no longer than the held packet's first segment (`gso_size`), and
//! the IP packet stays under 64 KB (`skb_gro_receive`: `p->len + len >= gro_max_size`,
//! 65536). A segment shorter than `gso_size`, or with PSH, FIN, URG, RST or SYN, ends the held
//! packet (`out_check_final`); one that cannot join flushes the held packet and starts the next.
//! What is held at the end of the poll is flushed (`napi_complete_done`). Each packet reaches
//! TCP as one segment, with its first segment's length as `gso_size` (which
//! `tcp_measure_rcv_mss` reads), so `__tcp_ack_snd_check` decides one ACK for the whole packet.

use super::wire::{flags, TcpFrame};

/// `URG` and `CWR` flag bits (the model never sends them; a segment that has them is not merged).
const URG: u8 = 0x20;
const CWR: u8 = 0x80;

/// Linux `gro_max_size` default (`GRO_LEGACY_MAX_SIZE`): the IP packet of a GRO packet stays
/// below this.
pub const GRO_MAX_SIZE: usize = 65_536;
/// Linux `NAPI_POLL_WEIGHT`: frames per poll.
pub const NAPI_BUDGET: usize = 64;

/// The receiving host's NAPI poll and GRO (see the module text).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroConfig {
    /// The longest a poll waits after its first frame (interrupt moderation period), ns.
    pub max_delay_ns: u64,
    /// The most frames one poll takes (NAPI budget).
    pub max_frames: usize,
    /// Largest IP packet of a GRO packet, bytes.
    pub max_bytes: usize,
}

impl Default for GroConfig {
    fn default() -> Self {
        GroConfig {
            max_delay_ns: 16_000,
            max_frames: NAPI_BUDGET,
            max_bytes: GRO_MAX_SIZE,
        }
    }
}

/// One packet as GRO hands it to TCP.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroPacket {
    /// The first segment's headers (flags OR-ed with later segments' FIN and PSH), all payload.
    pub frame: TcpFrame,
    /// Payload of the first segment (`skb_shinfo(skb)->gso_size`; the length of a lone one).
    pub gso_size: usize,
    /// Segments merged.
    pub segs: u32,
}

/// TCP option bytes of a segment as the sender lays them out (padded to 4).
fn opt_len(f: &TcpFrame) -> usize {
    let o = &f.options;
    let mut n = 0;
    if o.mss.is_some() {
        n += 4;
    }
    if o.wscale.is_some() {
        n += 4;
    }
    if o.sack_permitted {
        n += 4;
    }
    if o.timestamps.is_some() {
        n += 12;
    }
    if !o.sack.is_empty() {
        n += 4 + 8 * o.sack.len();
    }
    n
}

/// Whether `f` ends the packet it is in (`out_check_final`'s flags).
fn final_flags(f: &TcpFrame) -> bool {
    f.flags & (URG | flags::PSH | flags::RST | flags::SYN | flags::FIN) != 0
}

/// Whether `f` may join `p` (`tcp_gro_receive`'s flush checks and `skb_gro_receive`'s size).
fn can_join(p: &GroPacket, f: &TcpFrame, max_bytes: usize) -> bool {
    let h = &p.frame;
    let ip_len = 20 + 20 + opt_len(h) + h.payload.len();
    h.src_port == f.src_port
        && h.dst_port == f.dst_port
        && h.src_ip == f.src_ip
        && h.dst_ip == f.dst_ip
        && f.flags & CWR == 0
        && (f.flags ^ h.flags) & !(CWR | flags::FIN | flags::PSH) == 0
        && f.ack == h.ack
        && f.options == h.options
        && !f.payload.is_empty()
        && f.payload.len() <= p.gso_size
        && h.seq.wrapping_add(h.payload.len() as u32) == f.seq
        && ip_len + f.payload.len() < max_bytes
}

/// GRO over one poll's frames, in arrival order (see the module text).
pub fn merge(frames: Vec<TcpFrame>, max_bytes: usize) -> Vec<GroPacket> {
    let mut out = Vec::new();
    let mut held: Option<GroPacket> = None;
    for f in frames {
        if let Some(p) = held.as_mut() {
            if can_join(p, &f, max_bytes) {
                let short = f.payload.len() < p.gso_size;
                p.frame.flags |= f.flags & (flags::FIN | flags::PSH);
                p.frame.payload.extend_from_slice(&f.payload);
                p.segs += 1;
                if short || final_flags(&f) {
                    out.extend(held.take());
                }
                continue;
            }
            out.extend(held.take());
        }
        let p = GroPacket {
            gso_size: f.payload.len(),
            segs: 1,
            frame: f,
        };
        if p.frame.payload.is_empty() || final_flags(&p.frame) {
            out.push(p);
        } else {
            held = Some(p);
        }
    }
    out.extend(held);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::netsim::wire::TcpOptions;

    fn seg(seq: u32, len: usize, fl: u8, tsval: u32) -> TcpFrame {
        TcpFrame {
            src_mac: [2; 6],
            dst_mac: [3; 6],
            src_ip: [10, 0, 0, 1],
            dst_ip: [10, 0, 0, 2],
            src_port: 40000,
            dst_port: 5001,
            seq,
            ack: 7,
            flags: fl,
            window: 500,
            options: TcpOptions {
                timestamps: Some((tsval, 3)),
                ..Default::default()
            },
            payload: vec![0; len],
        }
    }

    fn shape(v: &[GroPacket]) -> Vec<(u32, usize, u32)> {
        v.iter()
            .map(|p| (p.frame.seq, p.frame.payload.len(), p.segs))
            .collect()
    }

    const A: u8 = flags::ACK;
    const AP: u8 = flags::ACK | flags::PSH;

    #[test]
    fn a_tso_burst_becomes_one_packet_ended_by_its_psh() {
        // 5 segments of one TSO packet (PSH on the last, as GSO leaves it), then the next
        // burst's first two
        let mut f: Vec<TcpFrame> = (0..5)
            .map(|i| seg(1000 * i, 1000, if i == 4 { AP } else { A }, 9))
            .collect();
        f.push(seg(5000, 1000, A, 9));
        f.push(seg(6000, 1000, A, 9));
        let p = merge(f, GRO_MAX_SIZE);
        assert_eq!(shape(&p), [(0, 5000, 5), (5000, 2000, 2)]);
        assert_eq!(p[0].frame.flags, AP);
        assert_eq!(p[0].gso_size, 1000);
        assert_eq!(p[1].frame.flags, A);
    }

    #[test]
    fn what_does_not_match_starts_a_new_packet() {
        // a hole, another TSval, another ACK number, a longer segment, a pure ACK
        let mut other_ack = seg(5000, 1000, A, 9);
        other_ack.ack = 8;
        let f = vec![
            seg(0, 1000, A, 9),
            seg(2000, 1000, A, 9),  // hole at 1000
            seg(3000, 1000, A, 10), // TSval changed
            other_ack.clone(),      // 4000..5000 missing anyway; ACK differs
            seg(6000, 1000, A, 9),
            seg(7000, 1400, A, 9), // longer than gso_size 1000
            seg(8400, 0, A, 9),    // no payload: alone
        ];
        let p = merge(f, GRO_MAX_SIZE);
        assert_eq!(
            shape(&p),
            [
                (0, 1000, 1),
                (2000, 1000, 1),
                (3000, 1000, 1),
                (5000, 1000, 1),
                (6000, 1000, 1),
                (7000, 1400, 1),
                (8400, 0, 1)
            ]
        );
        // same ACK, in sequence: merged
        let mut next = other_ack.clone();
        next.seq = 6000;
        assert_eq!(
            shape(&merge(vec![other_ack, next], GRO_MAX_SIZE)),
            [(5000, 2000, 2)]
        );
    }

    #[test]
    fn a_short_segment_ends_the_packet_and_the_size_stays_under_64k() {
        let f = vec![
            seg(0, 1448, A, 1),
            seg(1448, 500, A, 1),
            seg(1948, 1448, A, 1),
        ];
        assert_eq!(
            shape(&merge(f, GRO_MAX_SIZE)),
            [(0, 1948, 2), (1948, 1448, 1)]
        );
        // 52 header bytes + 45 x 1448 = 65212; a 46th would pass 65536
        let f: Vec<TcpFrame> = (0..50).map(|i| seg(1448 * i, 1448, A, 1)).collect();
        let p = merge(f, GRO_MAX_SIZE);
        assert_eq!(shape(&p), [(0, 45 * 1448, 45), (45 * 1448, 5 * 1448, 5)]);
    }

    #[test]
    fn fin_and_syn_end_or_bypass_the_packet() {
        let f = vec![
            seg(0, 1000, A, 1),
            seg(1000, 1000, A | flags::FIN, 1),
            seg(2001, 1000, A, 1),
        ];
        let p = merge(f, GRO_MAX_SIZE);
        assert_eq!(shape(&p), [(0, 2000, 2), (2001, 1000, 1)]);
        assert_eq!(p[0].frame.flags, A | flags::FIN);
        let syn = seg(0, 0, flags::SYN, 1);
        let p = merge(vec![syn.clone(), seg(1, 10, A, 1)], GRO_MAX_SIZE);
        assert_eq!(shape(&p), [(0, 0, 1), (1, 10, 1)]);
    }
}
