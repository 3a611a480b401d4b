//! Co-simulation tests of the receive path on the Verilated tsnic_core: the driver's RX rings
//! (`tsnic::rx`) with the sim's RX line, in loopback from the TX wire and with frames injected at
//! given simulated times.

mod common;

use std::net::Ipv4Addr;

use tsnic::contract::{HorizonPolicy, LatePolicy, RxStatus};
use tsnic::device::sim::{SimBackend, SimConfig};
use tsnic::device::{Backend, Caps};
use tsnic::push::{bring_up, PushOptions};
use tsnic::regs::DescFlags;
use tsnic::ring::{CplRing, QueueConfig, Rings, TxQueue};
use tsnic::rx::{self, RxCaps, RxPacket, RxQueue, RxQueueConfig, SteerRule};

fn frame(len: usize, seed: u8, dport: u16) -> Vec<u8> {
    let mut f = vec![0u8; len];
    f[0..6].copy_from_slice(&[0x02, 0, 0, 0, 0, 2]);
    f[6..12].copy_from_slice(&[0x02, 0, 0, 0, 0, 1]);
    f[12..14].copy_from_slice(&[0x08, 0x00]);
    f[14] = 0x45;
    f[23] = 17;
    f[26..30].copy_from_slice(&[10, 0, 0, 1]);
    f[30..34].copy_from_slice(&[10, 0, 0, 2]);
    f[34..36].copy_from_slice(&7000u16.to_be_bytes());
    f[36..38].copy_from_slice(&dport.to_be_bytes());
    for (i, b) in f.iter_mut().enumerate().skip(42) {
        *b = (i as u8).wrapping_mul(31).wrapping_add(seed);
    }
    f
}

fn poll_until(b: &mut SimBackend, q: &mut RxQueue, out: &mut Vec<RxPacket>, n: usize) {
    for _ in 0..20_000 {
        q.poll(b, out, 64).expect("rx poll");
        if out.len() >= n {
            return;
        }
        b.wait_ns(200).unwrap();
    }
    panic!("only {} of {n} frames received", out.len());
}

/// TX frames come back through the loopback: same bytes, arrival - departure = the loopback delay
/// plus the preamble and first bus word on the line (16 bytes at 10G), rounded up to a core cycle.
#[test]
fn loopback_tx_to_rx_with_hardware_timestamps() {
    if !common::core_ready() {
        return;
    }
    let mut b = SimBackend::new(SimConfig::small()).expect("sim");
    let delay_ps = 2_000_000; // longer than a 1514-byte frame's 1.2 us on the wire
    b.card().set_loopback(Some(delay_ps));
    let tap = b.tap();
    let caps = Caps::read(&mut b).unwrap();
    let rcaps = RxCaps::read(&mut b).unwrap();
    assert!(rcaps.num_queues >= 2 && rcaps.steer_entries >= 1 && rcaps.max_frame_len >= 1514);
    bring_up(&mut b, &PushOptions::default()).unwrap();
    let cpl = CplRing::create(&mut b, &caps, 8).unwrap();
    let qcfg = QueueConfig {
        ring_log2: 6,
        buffers: 0,
        buf_size: 2048,
        batch: 1,
        late: LatePolicy::Send,
        horizon: HorizonPolicy::Drop,
        quota: 0,
    };
    let txq = TxQueue::create(&mut b, &caps, 0, &qcfg).unwrap();
    let mut rings = Rings {
        queues: vec![txq],
        cpl,
    };
    let mut rxq0 = RxQueue::create(
        &mut b,
        &rcaps,
        0,
        &RxQueueConfig {
            ring_log2: 3,
            buf_size: 2048,
        },
    )
    .unwrap();
    let mut rxq1 = RxQueue::create(
        &mut b,
        &rcaps,
        1,
        &RxQueueConfig {
            ring_log2: 2,
            buf_size: 256,
        },
    )
    .unwrap();
    rx::set_default_queue(&mut b, &rcaps, 0).unwrap();
    rx::steer_set(
        &mut b,
        &rcaps,
        0,
        &SteerRule {
            src_ip: Ipv4Addr::new(10, 0, 0, 1),
            dst_ip: Ipv4Addr::new(10, 0, 0, 2),
            proto: 17,
            src_port: 7000,
            dst_port: 9,
            queue: 1,
        },
    )
    .unwrap();
    rx::rx_enable(&mut b, true);
    b.wait_ns(30_000).unwrap();

    // 20 frames (ring of 8 on queue 0: buffers are recycled), every third to queue 1
    let t0 = tsnic::phc::get_ns(&mut b) + 20_000;
    let mut sent = Vec::new();
    for i in 0..20u64 {
        let dport = if i % 3 == 0 { 9 } else { 5000 };
        let len = if i % 3 == 0 {
            100
        } else {
            60 + (i as usize * 97) % 1400
        };
        let f = frame(len, i as u8, dport);
        let launch = t0 + i * 3_000;
        rings.queues[0]
            .post(&mut b, &f, launch, DescFlags::empty())
            .unwrap()
            .unwrap();
        sent.push(f);
    }
    rings.queues[0].doorbell(&mut b);
    let mut cpls = Vec::new();
    let mut got0 = Vec::new();
    let mut got1 = Vec::new();
    for _ in 0..20_000 {
        rings.poll(&mut b, &mut cpls, 64).unwrap();
        rxq0.poll(&mut b, &mut got0, 64).unwrap();
        rxq1.poll(&mut b, &mut got1, 64).unwrap();
        if cpls.len() == 20 && got0.len() + got1.len() == 20 {
            break;
        }
        b.wait_ns(500).unwrap();
    }
    assert_eq!(cpls.len(), 20, "TX completions");
    assert_eq!(
        got0.len() + got1.len(),
        20,
        "frames back through the loopback"
    );
    let want1: Vec<&Vec<u8>> = sent.iter().step_by(3).collect();
    let want0: Vec<&Vec<u8>> = sent
        .iter()
        .enumerate()
        .filter(|(i, _)| i % 3 != 0)
        .map(|(_, f)| f)
        .collect();
    assert_eq!(got1.iter().map(|p| &p.data).collect::<Vec<_>>(), want1);
    assert_eq!(got0.iter().map(|p| &p.data).collect::<Vec<_>>(), want0);
    assert!(got0.iter().chain(&got1).all(|p| p.ok()));
    assert!(
        got1.iter().all(|p| p.steer_entry == Some(0))
            && got0.iter().all(|p| p.steer_entry.is_none())
    );
    // arrival - departure: every frame left on an idle line (3 us apart) at a cycle edge
    let expect = (delay_ps + 16 * 800).div_ceil(4000) * 4000 / 1000;
    let mut departs: Vec<(u64, usize)> =
        cpls.iter().map(|c| (c.depart_ns, c.len as usize)).collect();
    departs.sort();
    let mut arrivals: Vec<(u64, usize)> = got0
        .iter()
        .chain(&got1)
        .map(|p| (p.arrival_ns, p.data.len()))
        .collect();
    arrivals.sort();
    for ((d, dl), (a, al)) in departs.iter().zip(&arrivals) {
        assert_eq!(dl, al);
        assert_eq!(a - d, expect, "arrival {a} - departure {d}");
    }
    // the sim's own records agree: 20 frames handed to the core
    assert_eq!(tap.take_rx_arrivals().len(), 20);
    assert_eq!(b.card().rx().stats().late_injections, 0);
    assert_eq!(rxq0.counters(&mut b).frames, got0.len() as u32);
    assert_eq!(rxq0.counters(&mut b).drop_nobuf, 0);
}

/// Frames injected at given simulated times: arrival_ns is the PHC at the first beat (preamble and
/// first word after the injection time) plus RX_LAT_COMP_NS; a frame for a queue without buffers is
/// dropped and counted; a bad-FCS frame is delivered with its status.
#[test]
fn injected_frames_times_drops_and_status() {
    if !common::core_ready() {
        return;
    }
    let mut b = SimBackend::new(SimConfig::small()).expect("sim");
    let tap = b.tap();
    let rcaps = RxCaps::read(&mut b).unwrap();
    bring_up(&mut b, &PushOptions::default()).unwrap();
    let mut rxq = RxQueue::create(
        &mut b,
        &rcaps,
        0,
        &RxQueueConfig {
            ring_log2: 4,
            buf_size: 0,
        },
    )
    .unwrap();
    rx::set_rx_lat_comp_ns(&mut b, 100);
    rx::rx_enable(&mut b, true);
    assert!(rx::steer_set(
        &mut b,
        &rcaps,
        rcaps.steer_entries,
        &SteerRule {
            src_ip: Ipv4Addr::UNSPECIFIED,
            dst_ip: Ipv4Addr::UNSPECIFIED,
            proto: 6,
            src_port: 0,
            dst_port: 0,
            queue: 0,
        }
    )
    .is_err());
    // PHC = simulated time + c: read both around one PHC read
    let s0 = b.sim_ns();
    let phc = tsnic::phc::get_ns(&mut b);
    let s1 = b.sim_ns();
    assert!(s1 - s0 < 1000);
    let now_ps = b.card().now_ps();
    let times: Vec<u64> = (0..6)
        .map(|i| now_ps + 50_000_000 + i * 7_777_000)
        .collect();
    for (i, &t) in times.iter().enumerate() {
        tap.rx_inject(t, frame(64 + i * 10, i as u8, 1), i == 4);
    }
    let mut got = Vec::new();
    poll_until(&mut b, &mut rxq, &mut got, 6);
    let arr = tap.take_rx_arrivals();
    assert_eq!(arr.len(), 6);
    for (i, (p, a)) in got.iter().zip(&arr).enumerate() {
        assert_eq!(
            a.start_ps, times[i],
            "idle line: the frame starts when injected"
        );
        // the PHC advances 4 ns a cycle from phc (read between s0 and s1): map the first beat
        let beat_ns = a.first_beat_ps / 1000;
        let lo = phc + beat_ns - s1 + 100;
        let hi = phc + beat_ns - s0 + 100;
        assert!(
            (lo..=hi).contains(&p.arrival_ns),
            "frame {i}: arrival {} outside {lo}..={hi}",
            p.arrival_ns
        );
        assert_eq!(a.first_beat_ps, (times[i] + 16 * 800).div_ceil(4000) * 4000);
        let want = if i == 4 {
            RxStatus::BadFcs
        } else {
            RxStatus::Ok
        };
        assert_eq!(RxStatus::from_code(p.status), Some(want));
        assert_eq!(p.data, frame(64 + i * 10, i as u8, 1));
    }
    // queue 1 has no buffers: a steered frame is dropped and counted, never silently
    rx::steer_set(
        &mut b,
        &rcaps,
        3,
        &SteerRule {
            src_ip: Ipv4Addr::new(10, 0, 0, 1),
            dst_ip: Ipv4Addr::new(10, 0, 0, 2),
            proto: 17,
            src_port: 7000,
            dst_port: 77,
            queue: 1,
        },
    )
    .unwrap();
    let t = b.card().now_ps() + 1_000_000;
    tap.rx_inject(t, frame(80, 9, 77), false);
    tap.rx_inject(t, frame(90, 9, 1), false);
    poll_until(&mut b, &mut rxq, &mut got, 7);
    assert_eq!(got.len(), 7);
    assert_eq!(
        b.read32(RxCaps::q_reg(1, tsnic::contract::reg::RXQ_CNT_DROP_NOBUF)),
        1
    );
    assert_eq!(b.read32(tsnic::contract::reg::RX_CNT_FRAMES), 8);
    assert_eq!(b.read32(tsnic::contract::reg::RX_CNT_BAD_FCS), 1);
    assert!(rxq.disable(&mut b, 100_000).unwrap());
    rxq.destroy(&mut b).unwrap();
}

/// The EDT sender on the Verilated card reads its ACKs from the card's RX ring: every ACK's
/// hardware arrival stamp lies the RX line's fixed serialization (preamble + first 8-byte word,
/// 16 bytes = 12.8 ns at 10G) plus at most one 4 ns core cycle after the path model's arrival
/// time, i.e. within 10 ns plus serialization; so RTT samples (hardware departure of the segment to
/// hardware arrival of its ACK) equal the path model's RTT within that, and are never below it.
#[test]
fn edt_rtt_from_hardware_timestamps_matches_the_path_model() {
    if !common::core_ready() {
        return;
    }
    use tsnic::edt::cc::CcKind;
    use tsnic::edt::run::{parse_path, run, CardKind, RunConfig};
    let path = "rate=10G,rtt=100us,buffer=1MB";
    let cfg = RunConfig {
        card: CardKind::Sim,
        cc: CcKind::Cubic,
        bytes: 100_000,
        path: parse_path(path).unwrap(),
        path_text: path.into(),
        time_limit_ns: 50_000_000,
        ..RunConfig::default()
    };
    let r = run(&cfg).unwrap();
    let t = r.table();
    assert!(r.completed, "{t}");
    assert_eq!(r.receiver_delivered, 100_000, "{t}");
    let s = r.card_stats.as_ref().expect("card stats");
    // every ACK came back through the card (none straight from the network model)
    assert!(s.rx_received >= 30, "{t}\n{s:?}");
    assert_eq!(s.rx_received, s.rx_injected, "{s:?}");
    assert_eq!(s.rx_errors, 0);
    eprintln!(
        "ACKs through the card: {}, arrival offset vs path model ns min/p50/max {}/{}/{}, RTT sample us min {:.4} (base {} us)",
        s.rx_received, s.rx_arrival_offset_ns.min, s.rx_arrival_offset_ns.p50, s.rx_arrival_offset_ns.max,
        r.rtt_sample_us.min, cfg.path.rtt_ns / 1000
    );
    let serialization_ns = 12.8;
    let o = &s.rx_arrival_offset_ns;
    assert!(
        o.min >= 12 && (o.max as f64) <= serialization_ns + 4.0,
        "arrival offsets {o:?}"
    );
    assert!((o.max as f64) <= serialization_ns + 10.0);
    // RTT samples from hardware time stamps: never below the path's RTT; the smallest is a segment
    // acked with the one after it (delayed ACK): base RTT + three full-segment serializations of
    // 1538 wire bytes at 10G (its own on the card's wire and at the bottleneck, the next one's at
    // the bottleneck) + the RX serialization, within 10 ns
    let base_us = cfg.path.rtt_ns as f64 / 1000.0;
    let seg_us = 1538.0 * 0.8 / 1000.0;
    assert!(r.rtt_sample_us.min >= base_us, "{t}");
    assert!(
        r.rtt_sample_us.min <= base_us + 3.0 * seg_us + 0.0128 + 0.010,
        "{t}"
    );
    assert!(r.srtt_us.min >= base_us * 0.99, "{t}");
}

/// RX at 10G line rate: 2000 back-to-back 60-byte frames (64 with FCS, 84 bytes on the wire with
/// preamble and gap: 14.88 M frames/s offered) with 800 ns host reads. Asserted: the line model
/// offered them back to back; every frame is delivered intact and in order with its own arrival
/// stamp (the PHC at its first beat); 0 dropped for room (the frame queue holds 32 frames, so a DMA
/// even 2 % slower than the line would drop), 0 for want of a buffer. Printed (`--nocapture`): the
/// offered and delivered rates in Mpps.
#[test]
fn rx_dma_takes_10g_line_rate_of_minimum_frames() {
    if !common::core_ready() {
        return;
    }
    let mut b = SimBackend::new(SimConfig::small()).expect("sim");
    let tap = b.tap();
    let rcaps = RxCaps::read(&mut b).unwrap();
    bring_up(&mut b, &PushOptions::default()).unwrap();
    let mut rxq = RxQueue::create(
        &mut b,
        &rcaps,
        0,
        &RxQueueConfig {
            ring_log2: 12,
            buf_size: 2048,
        },
    )
    .unwrap();
    rx::set_rx_lat_comp_ns(&mut b, 0);
    rx::rx_enable(&mut b, true);
    // PHC = simulated time + c: read both around one PHC read
    let s0 = b.sim_ns();
    let phc = tsnic::phc::get_ns(&mut b);
    let s1 = b.sim_ns();
    let n = 2000usize;
    let t0 = b.card().now_ps() + 1_000_000;
    let frames: Vec<Vec<u8>> = (0..n).map(|i| frame(60, i as u8, 1)).collect();
    for f in &frames {
        tap.rx_inject(t0, f.clone(), false);
    }
    let mut got = Vec::new();
    let mut last_ps = 0;
    for _ in 0..100_000 {
        let before = got.len();
        rxq.poll(&mut b, &mut got, 4096).unwrap();
        if got.len() > before {
            last_ps = b.card().now_ps();
        }
        let dropped = b.read32(tsnic::contract::reg::RX_CNT_DROP_FULL) as usize;
        if got.len() + dropped >= n && b.card().rx().queued() == 0 {
            break;
        }
        b.wait_ns(50).unwrap();
    }
    let dropped = b.read32(tsnic::contract::reg::RX_CNT_DROP_FULL) as usize;
    let nobuf = rxq.counters(&mut b).drop_nobuf;
    let arr = tap.take_rx_arrivals();
    assert_eq!(arr.len(), n, "the line handed every frame to the core");
    let wire_ps = 84 * 800; // preamble 8 + 60 + FCS 4 + gap 12 bytes at 0.8 ns
    for w in arr.windows(2) {
        assert_eq!(
            w[1].start_ps - w[0].start_ps,
            wire_ps,
            "frames back to back"
        );
    }
    let offered = (n - 1) as f64 * 1e6 / (arr[n - 1].start_ps - arr[0].start_ps) as f64;
    let span_ns = (last_ps - t0) / 1000;
    let delivered = got.len() as f64 * 1000.0 / span_ns as f64;
    eprintln!(
        "RX DMA: {} of {n} back-to-back 60-byte frames (64 with FCS) delivered, {dropped} dropped for room, \
         {nobuf} for want of a buffer; offered {offered:.2} Mpps, delivered {delivered:.2} Mpps \
         (first arrival to last completion seen, {span_ns} ns; 800 ns host reads, 64-bit bus at 250 MHz)",
        got.len(),
    );
    assert_eq!((dropped, nobuf), (0, 0), "frames dropped at 10G line rate");
    assert_eq!(got.len(), n);
    assert_eq!(b.read32(tsnic::contract::reg::RX_CNT_FRAMES) as usize, n);
    for (i, (p, (f, a))) in got.iter().zip(frames.iter().zip(&arr)).enumerate() {
        assert!(p.ok() && p.data == *f, "frame {i} altered or out of order");
        let beat_ns = a.first_beat_ps / 1000;
        let (lo, hi) = (phc + beat_ns - s1, phc + beat_ns - s0);
        assert!(
            (lo..=hi).contains(&p.arrival_ns),
            "frame {i}: arrival stamp {} outside {lo}..={hi}",
            p.arrival_ns
        );
    }
    assert!(
        offered > 14.88 && delivered > 14.0,
        "offered {offered}, delivered {delivered}"
    );
}

/// An L2 PTP frame (EtherType 0x88F7 to 01-1B-19-00-00-00, IEEE 1588-2019 annex E) of `len` bytes.
fn ptp_l2_frame(len: usize, seq: u16) -> Vec<u8> {
    let mut f = vec![0u8; len];
    f[0..6].copy_from_slice(&[0x01, 0x1B, 0x19, 0, 0, 0]);
    f[6..12].copy_from_slice(&[0x02, 0, 0, 0, 0, 1]);
    f[12..14].copy_from_slice(&rx::ETHERTYPE_PTP.to_be_bytes());
    f[14] = 0x00; // Sync
    f[15] = 0x02; // versionPTP 2
    f[16..18].copy_from_slice(&44u16.to_be_bytes());
    f[44..46].copy_from_slice(&seq.to_be_bytes());
    f
}

/// The EtherType rule sends L2 PTP frames to the PTP clock's queue (1) while every other frame
/// (IPv4 UDP matching no 5-tuple entry, another EtherType) goes to the default queue (0): frames
/// arriving back to back, interleaved, each lands in its queue, in order, bytes intact.
#[test]
fn l2_ptp_frames_steered_by_ethertype_beside_other_frames() {
    if !common::core_ready() {
        return;
    }
    let mut b = SimBackend::new(SimConfig::small()).expect("sim");
    let tap = b.tap();
    let rcaps = RxCaps::read(&mut b).unwrap();
    assert!(rcaps.num_queues >= 2 && rcaps.steer_et_rules >= 1);
    bring_up(&mut b, &PushOptions::default()).unwrap();
    let mk = |b: &mut SimBackend, q| {
        RxQueue::create(
            b,
            &rcaps,
            q,
            &RxQueueConfig {
                ring_log2: 4,
                buf_size: 2048,
            },
        )
        .unwrap()
    };
    let mut rxq0 = mk(&mut b, 0);
    let mut rxq1 = mk(&mut b, 1);
    rx::set_default_queue(&mut b, &rcaps, 0).unwrap();
    rx::rx_enable(&mut b, true);
    assert!(rx::steer_et_set(&mut b, &rcaps, rcaps.steer_et_rules, 0x88F7, 1).is_err());
    assert!(rx::steer_et_set(&mut b, &rcaps, 0, 0x88F7, rcaps.num_queues as u16).is_err());
    rx::steer_et_set(&mut b, &rcaps, 0, rx::ETHERTYPE_PTP, 1).unwrap();
    // interleaved: PTP, UDP, PTP, PTP, 0x88B5, UDP, PTP; 100 ns apart (back to back on the line)
    let mut other = frame(90, 3, 319);
    other[12..14].copy_from_slice(&[0x88, 0xB5]);
    let sent: Vec<(Vec<u8>, u16)> = vec![
        (ptp_l2_frame(64, 1), 1),
        (frame(80, 1, 5000), 0),
        (ptp_l2_frame(64, 2), 1),
        (ptp_l2_frame(90, 3), 1),
        (other, 0),
        (frame(70, 2, 320), 0),
        (ptp_l2_frame(64, 4), 1),
    ];
    let t0 = b.card().now_ps() + 1_000_000;
    for (i, (f, _)) in sent.iter().enumerate() {
        tap.rx_inject(t0 + i as u64 * 100_000, f.clone(), false);
    }
    let want0: Vec<&Vec<u8>> = sent.iter().filter(|s| s.1 == 0).map(|s| &s.0).collect();
    let want1: Vec<&Vec<u8>> = sent.iter().filter(|s| s.1 == 1).map(|s| &s.0).collect();
    let (mut got0, mut got1) = (Vec::new(), Vec::new());
    for _ in 0..20_000 {
        rxq0.poll(&mut b, &mut got0, 64).unwrap();
        rxq1.poll(&mut b, &mut got1, 64).unwrap();
        if got0.len() + got1.len() >= sent.len() {
            break;
        }
        b.wait_ns(200).unwrap();
    }
    b.wait_ns(20_000).unwrap();
    rxq0.poll(&mut b, &mut got0, 64).unwrap();
    rxq1.poll(&mut b, &mut got1, 64).unwrap();
    let d0: Vec<&Vec<u8>> = got0.iter().map(|p| &p.data).collect();
    let d1: Vec<&Vec<u8>> = got1.iter().map(|p| &p.data).collect();
    assert_eq!(
        d1, want1,
        "queue 1 (PTP) got other frames or missed PTP ones"
    );
    assert_eq!(
        d0, want0,
        "queue 0 (default) got PTP frames or missed others"
    );
    assert!(got0
        .iter()
        .chain(&got1)
        .all(|p| p.ok() && p.steer_entry.is_none()));
    // the rule reads back through ET_READ; cleared, PTP frames go to the default queue again
    b.write32(tsnic::contract::reg::RX_STEER_ET, 0);
    b.write32(tsnic::contract::reg::RX_STEER_INDEX, 0);
    b.write32(
        tsnic::contract::reg::RX_STEER_CMD,
        tsnic::contract::reg::RX_STEER_CMD_ET_READ,
    );
    assert_eq!(
        b.read32(tsnic::contract::reg::RX_STEER_ET),
        0x88F7 | (1 << 16) | tsnic::contract::reg::RX_STEER_ET_VALID
    );
    rx::steer_et_clear(&mut b, &rcaps, 0).unwrap();
    let t = b.card().now_ps() + 1_000_000;
    tap.rx_inject(t, ptp_l2_frame(64, 5), false);
    let n0 = got0.len();
    poll_until(&mut b, &mut rxq0, &mut got0, n0 + 1);
    assert_eq!(got0[n0].data, ptp_l2_frame(64, 5));
    rxq1.poll(&mut b, &mut got1, 64).unwrap();
    assert_eq!(got1.len(), want1.len());
}

/// The PTP clock programs EtherType rule `PTP_ET_RULE` to 0x88F7 -> its RX queue when it starts
/// on the card and clears it when it closes.
#[test]
fn ptp_clock_sets_its_ethertype_rule_and_clears_it() {
    if !common::core_ready() {
        return;
    }
    use tsnic::contract::reg;
    use tsnic::ptp::card::{CardPort, PTP_ET_RULE, PTP_QUEUE};
    let mut b = SimBackend::new(SimConfig::small()).expect("sim");
    let read_rule = |b: &mut SimBackend| {
        b.write32(reg::RX_STEER_ET, 0);
        b.write32(reg::RX_STEER_INDEX, PTP_ET_RULE);
        b.write32(reg::RX_STEER_CMD, reg::RX_STEER_CMD_ET_READ);
        b.read32(reg::RX_STEER_ET)
    };
    assert_eq!(read_rule(&mut b), 0);
    let cfg = tsnic::ptp::beside::BesideSpec::parse("master").unwrap().cfg;
    let port = CardPort::open(&mut b, cfg).unwrap();
    assert_eq!(
        read_rule(&mut b),
        0x88F7 | (u32::from(PTP_QUEUE) << 16) | reg::RX_STEER_ET_VALID
    );
    port.close(&mut b).unwrap();
    assert_eq!(read_rule(&mut b) & reg::RX_STEER_ET_VALID, 0);
}
