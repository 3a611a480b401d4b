//! Network model tests: the receiver's reassembly, SACK and delayed ACK, and the bottleneck.
//!
//! Run: `cargo test -p tsnic --test netsim_props` (needs the `sim` feature, on by default).

use proptest::prelude::*;
use tsnic::edt::frame::pattern_byte;
use tsnic::netsim::wire::{self, flags, TcpFrame, TcpOptions};
use tsnic::netsim::{GroConfig, Network, PathConfig, ReceiverConfig, TcpReceiver};

const ISS: u32 = 0xffff_ff00; // close to wrap on purpose

fn seg(seq_off: u64, len: usize, fl: u8) -> Vec<u8> {
    wire::build(&TcpFrame {
        src_mac: [2, 0, 0, 0, 0, 1],
        dst_mac: [2, 0, 0, 0, 0, 2],
        src_ip: [10, 0, 0, 1],
        dst_ip: [10, 0, 0, 2],
        src_port: 40000,
        dst_port: 5001,
        seq: if fl & flags::SYN != 0 {
            ISS
        } else {
            ISS.wrapping_add(1).wrapping_add(seq_off as u32)
        },
        ack: 1,
        flags: fl,
        window: 1000,
        options: TcpOptions {
            sack_permitted: fl & flags::SYN != 0,
            timestamps: Some((1, 0)),
            wscale: (fl & flags::SYN != 0).then_some(7),
            mss: (fl & flags::SYN != 0).then_some(1460),
            sack: vec![],
        },
        payload: (seq_off..seq_off + len as u64).map(pattern_byte).collect(),
    })
}

fn established() -> TcpReceiver {
    let mut r = TcpReceiver::new(ReceiverConfig::default(), 5001, 77);
    let synack = r.on_frame(0, &seg(0, 0, flags::SYN));
    let p = wire::parse(&synack[0]).unwrap();
    assert_eq!(p.flags, flags::SYN | flags::ACK);
    assert_eq!(p.ack, ISS.wrapping_add(1));
    assert!(p.options.sack_permitted && p.options.timestamps.is_some());
    r.on_frame(1, &seg(0, 0, flags::ACK));
    r
}

#[test]
fn quick_acks_first_then_an_ack_per_two_full_segments_or_40ms() {
    // Linux: 16 quick ACKs from the first data segment (tcp_incr_quickack: min(16,
    // 65160 / (2 x 1000)) = 16 here), then an ACK once more than one rcv_mss is
    // unacknowledged (__tcp_ack_snd_check), else the 40 ms delayed-ACK timer.
    let mut r = established();
    let mut t = 10;
    for i in 0..16u64 {
        t += 1;
        assert_eq!(
            r.on_frame(t, &seg(i * 1000, 1000, flags::ACK)).len(),
            1,
            "quick ACK {i}"
        );
    }
    let base = 16_000;
    t += 1;
    assert!(r.on_frame(t, &seg(base, 1000, flags::ACK)).is_empty());
    assert_eq!(r.delack_deadline(), Some(t + 40_000_000));
    // 2000 > rcv_mss 1000: ACK now.
    let acks = r.on_frame(t + 1, &seg(base + 1000, 1000, flags::ACK));
    assert_eq!(acks.len(), 1, "second full segment is ACKed at once");
    assert_eq!(r.delack_deadline(), None);
    // Small segments: 500 + 500 = 1000 is not more than one MSS; the third one is.
    assert!(r
        .on_frame(t + 2, &seg(base + 2000, 500, flags::ACK))
        .is_empty());
    assert!(r
        .on_frame(t + 3, &seg(base + 2500, 500, flags::ACK))
        .is_empty());
    assert_eq!(
        r.on_frame(t + 4, &seg(base + 3000, 500, flags::ACK)).len(),
        1
    );
    assert!(r
        .on_frame(30, &seg(base + 3500, 500, flags::ACK))
        .is_empty());
    assert!(r.on_timer(30 + 40_000_000 - 1).is_none(), "never early");
    let a = r.on_timer(30 + 40_000_000).unwrap();
    assert_eq!(wire::parse(&a).unwrap().ack, ISS.wrapping_add(1 + 20_000));
}

#[test]
fn duplicates_are_dsacked_and_restart_quick_acks() {
    let mut r = established();
    for i in 0..20u64 {
        r.on_frame(10 + i, &seg(i * 1000, 1000, flags::ACK));
    }
    // A retransmission of segment 3: immediate ACK whose first SACK block is that range.
    let a = r.on_frame(100, &seg(3000, 1000, flags::ACK));
    let p = wire::parse(&a[0]).unwrap();
    let b = ISS.wrapping_add(1);
    assert_eq!(
        p.options.sack,
        vec![(b.wrapping_add(3000), b.wrapping_add(4000))]
    );
    // Back in quick-ACK mode: the next in-order segment is ACKed at once, without D-SACK.
    let a = r.on_frame(101, &seg(20_000, 1000, flags::ACK));
    let p = wire::parse(&a[0]).unwrap();
    assert!(p.options.sack.is_empty());
    // A duplicate of out-of-order data: D-SACK first, then the SACK block holding it.
    r.on_frame(102, &seg(30_000, 1000, flags::ACK));
    let a = r.on_frame(103, &seg(30_000, 1000, flags::ACK));
    let p = wire::parse(&a[0]).unwrap();
    let blk = (b.wrapping_add(30_000), b.wrapping_add(31_000));
    assert_eq!(p.options.sack, vec![blk, blk]);
}

#[test]
fn window_starts_near_64k_and_autotunes_up_to_rcv_buf() {
    // SYN offers MSS 1460 with timestamps: 45 x 1448 = 65160 (scale 7: 509 << 7 on the wire).
    let mut r = established();
    assert_eq!(r.window(), 65_160);
    // A sender doubling each 100 us "RTT": DRS raises the window (never lowers it).
    let mut off = 0u64;
    let mut t = 1_000;
    let mut last = r.window();
    for round in 0..8u32 {
        let n = 10u64 << round;
        for _ in 0..n {
            r.on_frame(t, &seg(off, 1000, flags::ACK));
            off += 1000;
            t += 1;
        }
        t += 100_000;
        assert!(r.window() >= last);
        last = r.window();
    }
    assert!(r.window() > 1_000_000, "window {}", r.window());
    assert!(r.window() <= 6 * 1024 * 1024);
    // Off: the whole buffer from the start.
    let cfg = ReceiverConfig {
        autotune: false,
        rcv_buf: 1 << 20,
        ..ReceiverConfig::default()
    };
    let mut r = TcpReceiver::new(cfg, 5001, 77);
    r.on_frame(0, &seg(0, 0, flags::SYN));
    assert_eq!(r.window(), 1 << 20);
}

#[test]
fn out_of_order_gets_immediate_ack_with_newest_sack_block_first() {
    let mut r = established();
    let a = r.on_frame(10, &seg(2000, 1000, flags::ACK));
    let p = wire::parse(&a[0]).unwrap();
    let b = ISS.wrapping_add(1);
    assert_eq!(p.ack, b);
    assert_eq!(
        p.options.sack,
        vec![(b.wrapping_add(2000), b.wrapping_add(3000))]
    );
    let a = r.on_frame(11, &seg(5000, 1000, flags::ACK));
    let p = wire::parse(&a[0]).unwrap();
    assert_eq!(
        p.options.sack,
        vec![
            (b.wrapping_add(5000), b.wrapping_add(6000)),
            (b.wrapping_add(2000), b.wrapping_add(3000))
        ]
    );
    // Timestamps are echoed.
    assert_eq!(p.options.timestamps.map(|t| t.1), Some(1));
}

#[test]
fn out_of_order_acks_are_compressed_as_linux_6() {
    // Linux __tcp_ack_snd_check with out-of-order data held: the first 3 ACKs per rcv_nxt go
    // at once, later ones are held back (at most tcp_comp_sack_nr = 44) until the timer
    // fires min(RTT / 20, 1 ms) + 100 us after the first; RTT is the receiver's estimate or the
    // handshake RTT if smaller. Filling the last hole is ACKed at once.
    let run = |cfg: ReceiverConfig| {
        let mut r = TcpReceiver::new(cfg, 5001, 77);
        r.on_frame(0, &seg(0, 0, flags::SYN));
        r.on_frame(400_000, &seg(0, 0, flags::ACK)); // handshake RTT 400 us
                                                     // 70 in-order segments 1 ms apart: quick ACKs used up, receiver RTT 65 ms
        let mut t = 1_000_000;
        for i in 0..70u64 {
            r.on_frame(t, &seg(i * 1000, 1000, flags::ACK));
            t += 1_000_000;
        }
        let _ = r.on_timer(t + 50_000_000); // the delayed ACK of the tail
        let hole = 70_000;
        // 50 out-of-order segments 1 us apart, above a one-segment hole
        let mut acks = vec![];
        for k in 0..50u64 {
            let n = r.on_frame(t + k * 1000, &seg(hole + 1000 + k * 1000, 1000, flags::ACK));
            acks.push(n.len());
        }
        (r, acks, t)
    };
    let (mut r, acks, t) = run(ReceiverConfig {
        comp_sack_slack_ns: 100_000,
        ..ReceiverConfig::default()
    });
    assert_eq!(acks[..3], [1, 1, 1], "3 at once per rcv_nxt");
    assert_eq!(acks[3..47], [0; 44], "44 held back");
    assert_eq!(acks[47], 1, "the 45th goes: tcp_comp_sack_nr reached");
    assert_eq!(acks[48..], [0, 0]);
    // the timer of the two held after it: armed at the 49th, 400 us / 20 = 20 us later plus
    // tcp_comp_sack_slack_ns (100 us: the hrtimer's hard expiry)
    assert_eq!(r.delack_deadline(), Some(t + 48_000 + 20_000 + 100_000));
    assert!(r.on_timer(t + 48_000 + 119_999).is_none());
    let a = r.on_timer(t + 48_000 + 120_000).expect("the held-back ACK");
    let b = ISS.wrapping_add(1);
    assert_eq!(
        wire::parse(&a).unwrap().options.sack[0],
        (b.wrapping_add(71_000), b.wrapping_add(121_000))
    );
    assert_eq!(r.stats.acks_compressed, 44 + 1);
    // filling the hole (no more held out of order): ACKed at once
    assert_eq!(
        r.on_frame(t + 100_000, &seg(70_000, 1000, flags::ACK))
            .len(),
        1
    );
    // tcp_comp_sack_nr = 0: every out-of-order segment is ACKed at once
    let (_, acks, _) = run(ReceiverConfig {
        comp_sack_nr: 0,
        ..ReceiverConfig::default()
    });
    assert_eq!(acks, [1; 50]);
}

#[test]
fn an_out_of_order_fin_is_inside_its_sack_block() {
    // Linux SACKs an out-of-order skb as [seq, end_seq), and a FIN's end_seq counts the FIN
    // (tcp_data_queue_ofo -> tcp_sack_new_ofo_skb): a sender tags the FIN segment SACKed
    // only if the block covers it.
    let mut r = established();
    let b = ISS.wrapping_add(1);
    let a = r.on_frame(10, &seg(2000, 500, flags::ACK | flags::FIN));
    let p = wire::parse(&a[0]).unwrap();
    assert_eq!(p.ack, b);
    assert_eq!(
        p.options.sack,
        vec![(b.wrapping_add(2000), b.wrapping_add(2501))]
    );
    // Data below it grows the same block: its right edge still counts the FIN.
    let a = r.on_frame(11, &seg(1000, 1000, flags::ACK));
    let p = wire::parse(&a[0]).unwrap();
    assert_eq!(
        p.options.sack,
        vec![(b.wrapping_add(1000), b.wrapping_add(2501))]
    );
    // Other blocks do not.
    let mut r = established();
    let a = r.on_frame(10, &seg(2000, 500, flags::ACK));
    let p = wire::parse(&a[0]).unwrap();
    assert_eq!(
        p.options.sack,
        vec![(b.wrapping_add(2000), b.wrapping_add(2500))]
    );
}

proptest! {
    /// Segments delivered in any order, with duplicates, reassemble into exactly the stream.
    #[test]
    fn reassembly_in_any_order(
        order in Just((0..40u64).collect::<Vec<_>>()).prop_shuffle(),
        dups in proptest::collection::vec(0..40u64, 0..20),
    ) {
        let mut r = established();
        let mut t = 10;
        for i in order.iter().chain(dups.iter()) {
            t += 1;
            r.on_frame(t, &seg(i * 700, 700, flags::ACK));
        }
        prop_assert_eq!(r.stats.delivered, 40 * 700);
        prop_assert_eq!(r.stats.corrupt_bytes, 0);
        prop_assert_eq!(r.ooo_bytes(), 0);
    }

    /// The bottleneck never holds more than its buffer, and a frame's queueing delay is the
    /// backlog ahead of it at the bottleneck rate.
    #[test]
    fn drop_tail_respects_buffer(gaps in proptest::collection::vec(0u64..2_000, 1..300), seed in 0u64..1000) {
        let cfg = PathConfig { rate_bps: 1_000_000_000, rtt_ns: 10_000, buffer_bytes: 20_000, ..PathConfig::default() };
        let mut n = Network::new(cfg, ReceiverConfig::default(), seed);
        let mut t = 0;
        for g in gaps {
            t += g;
            n.inject(t, seg(0, 1400, flags::ACK));
        }
        prop_assert!(n.stats.max_backlog_bytes <= 20_000);
        // 20 KB at 1 Gbit/s drains in 160 us: no frame waits longer.
        prop_assert!(n.stats.queue_delay_ns.iter().all(|&d| d <= 160_000));
    }
}

#[test]
fn same_seed_same_losses() {
    let run = |seed| {
        let cfg = PathConfig {
            loss: 0.2,
            reorder: 0.2,
            ..PathConfig::default()
        };
        let mut n = Network::new(cfg, ReceiverConfig::default(), seed);
        for i in 0..1000 {
            n.inject(i * 2000, seg(0, 100, flags::ACK));
        }
        (n.stats.dropped_random, n.stats.reordered)
    };
    assert_eq!(run(5), run(5));
    assert_ne!(run(5), run(6));
}

/// A network with GRO at the receiver (10G bottleneck, 100 us RTT) and an established
/// connection; returns it and the time after the handshake.
fn gro_network(gro: Option<GroConfig>) -> (Network, u64) {
    let cfg = PathConfig {
        rate_bps: 10_000_000_000,
        rtt_ns: 100_000,
        ..PathConfig::default()
    };
    let rcv = ReceiverConfig {
        gro,
        ..ReceiverConfig::default()
    };
    let mut n = Network::new(cfg, rcv, 1);
    n.listen(5001);
    n.inject(0, seg(0, 0, flags::SYN));
    let synack = n.advance(1_000_000);
    assert_eq!(synack.len(), 1);
    n.inject(1_000_000, seg(0, 0, flags::ACK));
    assert!(n.advance(2_000_000).is_empty());
    (n, 2_000_000)
}

#[test]
fn gro_merges_a_back_to_back_train_and_acks_each_poll_once() {
    // 20 full segments back to back at 10 Gbit/s (1538 wire bytes: 1231 ns apart), PSH on
    // the last (a TSO packet): a poll runs at most 16 us after its first frame (13 frames),
    // GRO merges each poll's frames into one packet, and __tcp_ack_snd_check ACKs each
    // packet once (quick-ACK mode, and more than one rcv_mss unacknowledged)
    let train = |n: &mut Network, t0: u64| {
        for i in 0..20u64 {
            let fl = if i == 19 {
                flags::ACK | flags::PSH
            } else {
                flags::ACK
            };
            n.inject(t0, seg(i * 1448, 1448, fl));
        }
        n.advance(t0 + 10_000_000)
    };
    let (mut n, t0) = gro_network(Some(GroConfig::default()));
    let acks = train(&mut n, t0);
    let b = ISS.wrapping_add(1);
    let got: Vec<(u64, u32)> = acks
        .iter()
        .map(|(t, f)| (*t, wire::parse(f).unwrap().ack.wrapping_sub(b)))
        .collect();
    // first frame's last bit at the receiver: t0 + 1231 + 50 us; the poll 16 us later, the
    // ACK 50 us after that; the second poll when the train ends (the 20th frame)
    let first = t0 + 1231 + 50_000;
    let last = t0 + 20 * 1231 + 50_000;
    assert_eq!(
        got,
        [
            (first + 16_000 + 50_000, 13 * 1448),
            (last + 50_000, 20 * 1448)
        ]
    );
    let r = n.receiver(5001).unwrap();
    assert_eq!(r.stats.data_segments, 20);
    assert_eq!(r.stats.data_packets, 2);
    assert_eq!(r.stats.delivered, 20 * 1448);
    // without GRO: an ACK per segment in quick-ACK mode (16), then one per two
    let (mut n, t0) = gro_network(None);
    assert_eq!(train(&mut n, t0).len(), 18);
}

#[test]
fn gro_polls_a_lone_frame_at_once() {
    // a frame with no other of its flow right behind it is not held: its ACK leaves at its
    // arrival, as without GRO
    for gro in [Some(GroConfig::default()), None] {
        let (mut n, t0) = gro_network(gro);
        n.inject(t0, seg(0, 1448, flags::ACK));
        n.inject(t0 + 100_000, seg(1448, 1448, flags::ACK));
        let t: Vec<u64> = n.advance(t0 + 10_000_000).iter().map(|a| a.0).collect();
        assert_eq!(t, [t0 + 1231 + 100_000, t0 + 100_000 + 1231 + 100_000]);
    }
}

#[test]
fn a_gro_packet_measures_rcv_mss_by_its_segment_size() {
    // tcp_measure_rcv_mss reads gso_size: after a 10-segment GRO packet, rcv_mss is one
    // segment (1448), so one more lone segment waits for the delayed ACK and the next goes
    let mut r = TcpReceiver::new(
        ReceiverConfig {
            gro: Some(GroConfig::default()),
            max_quickacks: 0,
            ..ReceiverConfig::default()
        },
        5001,
        77,
    );
    r.on_frame(0, &seg(0, 0, flags::SYN));
    r.on_frame(1, &seg(0, 0, flags::ACK));
    let poll: Vec<Vec<u8>> = (0..10u64)
        .map(|i| seg(i * 1448, 1448, flags::ACK))
        .collect();
    let a = r.on_frames(10, &poll);
    assert_eq!(a.len(), 1, "one stretch ACK for the GRO packet");
    assert_eq!(
        wire::parse(&a[0]).unwrap().ack,
        ISS.wrapping_add(1).wrapping_add(10 * 1448)
    );
    assert_eq!(r.stats.data_packets, 1);
    assert!(r
        .on_frames(20, &[seg(10 * 1448, 1448, flags::ACK)])
        .is_empty());
    assert!(r.delack_deadline().is_some());
    assert_eq!(
        r.on_frames(30, &[seg(11 * 1448, 1448, flags::ACK)]).len(),
        1
    );
}
