//! Co-simulation tests of the receive path on the Verilated tsnic_core: the driver's RX rings
//! (`tsnic::rx`) with the sim's RX line, in loopback from the TX wire and with frames injected at
//! given simulated times; with the `board` feature the `board_*` tests run the same on `sim:board`
//! (tsnic_board_core behind the PCIe hard-block model, its RX stamped in the MAC clock domain).

mod common;

use std::net::Ipv4Addr;

use tsnic::contract::{HorizonPolicy, LatePolicy, RxStatus};
use tsnic::device::sim::{SimBackend, SimConfig, WireTap};
use tsnic::device::{Backend, Caps};
use tsnic::push::{bring_up, PushOptions};
use tsnic::regs::DescFlags;
use tsnic::ring::{CplRing, QueueConfig, Rings, TxQueue};
use tsnic::rx::{self, RxCaps, RxPacket, RxQueue, RxQueueConfig, SteerRule};

/// The card a test runs on, its backend kept typed for the models' knobs.
enum Rig {
    /// The core build (`sim:small`).
    Core(Box<SimBackend>),
    /// The SUME board build (`sim:board`).
    #[cfg(feature = "board")]
    Board(Box<tsnic::device::sim_board::BoardBackend>, On),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum On {
    Core,
    #[cfg(feature = "board")]
    Board,
    /// The Alveo U50 build (`sim:board=u50`: RX at 512 bits on the CMAC clock, stamped at the
    /// first beat).
    #[cfg(feature = "alveo")]
    BoardU50,
}

impl Rig {
    /// A fresh card with its wire tapped.
    fn open(on: On) -> (Rig, WireTap) {
        match on {
            On::Core => {
                let mut b = SimBackend::new(SimConfig::small()).expect("sim");
                let tap = b.tap();
                (Rig::Core(Box::new(b)), tap)
            }
            #[cfg(feature = "board")]
            On::Board => {
                let mut b = tsnic::device::sim_board::BoardBackend::new(
                    tsnic_sim::board::BoardConfig::default(),
                )
                .expect("board backend");
                let tap = b.tap();
                (Rig::Board(Box::new(b), on), tap)
            }
            #[cfg(feature = "alveo")]
            On::BoardU50 => {
                use tsnic_sim::board::{BoardConfig, BoardModel};
                let mut b = tsnic::device::sim_board::BoardBackend::new(BoardConfig::alveo(
                    BoardModel::AlveoU50,
                ))
                .expect("board backend (U50)");
                let tap = b.tap();
                (Rig::Board(Box::new(b), on), tap)
            }
        }
    }

    fn b(&mut self) -> &mut dyn Backend {
        match self {
            Rig::Core(b) => b.as_mut(),
            #[cfg(feature = "board")]
            Rig::Board(b, _) => b.as_mut(),
        }
    }

    fn on(&self) -> On {
        match self {
            Rig::Core(_) => On::Core,
            #[cfg(feature = "board")]
            Rig::Board(_, on) => *on,
        }
    }

    /// Simulated time, ps.
    fn now_ps(&mut self) -> u64 {
        match self {
            Rig::Core(b) => b.card().now_ps(),
            #[cfg(feature = "board")]
            Rig::Board(b, _) => b.card().now_ps(),
        }
    }

    fn set_loopback(&mut self, delay_ps: Option<u64>) {
        match self {
            Rig::Core(b) => b.card().set_loopback(delay_ps),
            #[cfg(feature = "board")]
            Rig::Board(b, _) => b.card().set_loopback(delay_ps),
        }
    }

    /// RX frames injected after their time had passed.
    fn late_injections(&mut self) -> u64 {
        match self {
            Rig::Core(b) => b.card().rx().stats().late_injections,
            #[cfg(feature = "board")]
            Rig::Board(b, _) => b.card().rx_stats().late_injections,
        }
    }

    /// RX frames on the line not yet handed over whole (the board's rate figure).
    #[cfg(feature = "board")]
    fn rx_queued(&mut self) -> usize {
        match self {
            Rig::Core(b) => b.card().rx().queued(),
            #[cfg(feature = "board")]
            Rig::Board(b, _) => b.card().rx_queued(),
        }
    }

    /// On the board, wait until the RX clock domain's PHC copy is locked (MAC_TD_STATUS.RX_LOCKED),
    /// as the stamps are within their bound only from then on.
    fn wait_rx_locked(&mut self) {
        if self.on() == On::Core {
            return;
        }
        use tsnic::contract::reg;
        for _ in 0..400 {
            if self.b().read32(reg::MAC_TD_STATUS) & reg::MAC_TD_STATUS_RX_LOCKED != 0 {
                return;
            }
            self.b().wait_ns(5_000).unwrap();
        }
        panic!("MAC_TD_STATUS: the RX domain's time did not lock in 2 ms");
    }
}

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

fn poll_until(b: &mut dyn Backend, q: &mut RxQueue, out: &mut Vec<RxPacket>, n: usize) {
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
    loopback_tx_to_rx(On::Core);
}

/// The same on the board (`sim:board`): the loopback into the board core's MAC RX inputs
/// (tsnic_board_core/src/board/xgmii_rx.rs), each arrival stamp against the frame's true start on
/// the RX line (see [`board_stamp_bound_ps`]).
#[cfg(feature = "board")]
#[test]
fn board_loopback_tx_to_rx_with_hardware_timestamps() {
    loopback_tx_to_rx(On::Board);
}

/// The board's arrival stamp minus its departure stamp, less the true time between the two line
/// starts (the RX frame's start on the line after the XGMII's lane alignment, [`RxArrival::start_ps`],
/// minus the TX frame's [`WireFrame::start_ps`]), ps: within `[-610, 2210]`.
///
/// Derivation (SUME build: MAC clock 6.4 ns, both stamps from tsnic_td_sink copies of the PHC on
/// it; `c` = PHC minus simulated time, the same for both; the copies lag the PHC by 0..0.41 ns,
/// 0.3 on average (MARGIN_FX), the project's bound for the MAC-domain time's error):
/// - RX (tsnic_mac_rx with tsnic_xgmii_rx's sof): `round(time(sof edge) - 6.4 + (lane 4: 3.2) +
///   0.3)` ns, and the sof edge is one MAC cycle after the /S/ word's edge, which is the true start
///   (lane 0) or half a word before it (lane 4), so the stamp is `round(start + c + 0.3 - lag)`:
///   `start + c` within `[-0.61, +0.80]` ns.
/// - TX (TX_MAC_LAG: the wire's line-start report, 0 on an idle line; CTRL_TX_LAT_COMP_NS 0): the
///   MAC-domain time at the first beat's edge, its whole ns: `floor(start + c - lag)`, within
///   `[-1.41, 0]` ns of `start + c`.
///
/// The difference of the two therefore lies within `[-0.61, 2.21]` ns of the true one; `c` cancels.
#[cfg(feature = "board")]
fn board_stamp_bound_ps() -> (i64, i64) {
    (-610, 2210)
}

fn loopback_tx_to_rx(on: On) {
    if !common::core_ready() {
        return;
    }
    let (mut r, tap) = Rig::open(on);
    // longer than a 1514-byte frame's 1.2 us on the wire; on the board 1.2 ns past a MAC edge
    // (1_998_000 = 312 * 6400 + 1200), so a frame that left at an edge (an idle line) starts on the
    // RX line 2 ns later, in lane 4 of the /S/ word
    let delay_ps = if on == On::Core { 2_000_000 } else { 1_998_000 };
    r.set_loopback(Some(delay_ps));
    let caps = Caps::read(r.b()).unwrap();
    let rcaps = RxCaps::read(r.b()).unwrap();
    assert!(rcaps.num_queues >= 2 && rcaps.steer_entries >= 1 && rcaps.max_frame_len >= 1514);
    bring_up(r.b(), &PushOptions::default()).unwrap();
    r.wait_rx_locked();
    let cpl = CplRing::create(r.b(), &caps, 8).unwrap();
    let qcfg = QueueConfig {
        ring_log2: 6,
        buffers: 0,
        buf_size: 2048,
        batch: 1,
        late: LatePolicy::Send,
        horizon: HorizonPolicy::Drop,
        quota: 0,
    };
    let txq = TxQueue::create(r.b(), &caps, 0, &qcfg).unwrap();
    let mut rings = Rings {
        queues: vec![txq],
        cpl,
    };
    let mut rxq0 = RxQueue::create(
        r.b(),
        &rcaps,
        0,
        &RxQueueConfig {
            ring_log2: 3,
            buf_size: 2048,
        },
    )
    .unwrap();
    let mut rxq1 = RxQueue::create(
        r.b(),
        &rcaps,
        1,
        &RxQueueConfig {
            ring_log2: 2,
            buf_size: 256,
        },
    )
    .unwrap();
    rx::set_default_queue(r.b(), &rcaps, 0).unwrap();
    rx::steer_set(
        r.b(),
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
    rx::rx_enable(r.b(), true);
    r.b().wait_ns(30_000).unwrap();

    // 20 frames (ring of 8 on queue 0: buffers are recycled), every third to queue 1
    let t0 = tsnic::phc::get_ns(r.b()) + 20_000;
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
            .post(r.b(), &f, launch, DescFlags::empty())
            .unwrap()
            .unwrap();
        sent.push(f);
    }
    rings.queues[0].doorbell(r.b());
    let mut cpls = Vec::new();
    let mut got0 = Vec::new();
    let mut got1 = Vec::new();
    for _ in 0..20_000 {
        rings.poll(r.b(), &mut cpls, 64).unwrap();
        rxq0.poll(r.b(), &mut got0, 64).unwrap();
        rxq1.poll(r.b(), &mut got1, 64).unwrap();
        if cpls.len() == 20 && got0.len() + got1.len() == 20 {
            break;
        }
        r.b().wait_ns(500).unwrap();
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
    let mut departs: Vec<(u64, usize)> =
        cpls.iter().map(|c| (c.depart_ns, c.len as usize)).collect();
    departs.sort();
    let mut arrivals: Vec<(u64, usize)> = got0
        .iter()
        .chain(&got1)
        .map(|p| (p.arrival_ns, p.data.len()))
        .collect();
    arrivals.sort();
    let rx_arr = tap.take_rx_arrivals();
    let wire = tap.take();
    // the sim's own records agree: 20 frames handed to the core
    assert_eq!(rx_arr.len(), 20);
    assert_eq!(wire.len(), 20);
    assert_eq!(r.late_injections(), 0);
    match on {
        On::Core => {
            // arrival - departure: every frame left on an idle line (3 us apart) at a cycle edge
            let expect = (delay_ps + 16 * 800).div_ceil(4000) * 4000 / 1000;
            for ((d, dl), (a, al)) in departs.iter().zip(&arrivals) {
                assert_eq!(dl, al);
                assert_eq!(a - d, expect, "arrival {a} - departure {d}");
            }
        }
        #[cfg(feature = "board")]
        On::Board => {
            let (lo, hi) = board_stamp_bound_ps();
            let mut errs = Vec::new();
            for (i, (((d, dl), (a, al)), (w, x))) in departs
                .iter()
                .zip(&arrivals)
                .zip(wire.iter().zip(&rx_arr))
                .enumerate()
            {
                assert_eq!(
                    (dl, al, &x.len),
                    (&w.bytes.len(), &w.bytes.len(), &w.bytes.len())
                );
                // the RX line starts the frame at the first XGMII half word after TX start + delay
                assert_eq!(
                    x.start_ps,
                    w.start_ps + delay_ps + 2000,
                    "lane 4, 2 ns after TX + delay"
                );
                let true_ps = (x.start_ps - w.start_ps) as i64;
                let err = (*a as i64 - *d as i64) * 1000 - true_ps;
                assert!(
                    (lo..=hi).contains(&err),
                    "frame {i}: arrival {a} - departure {d} ns vs true {true_ps} ps: {err} ps outside {lo}..={hi}"
                );
                errs.push(err);
            }
            eprintln!(
                "board loopback: (arrival - departure) - true, ps: min {} max {}",
                errs.iter().min().unwrap(),
                errs.iter().max().unwrap()
            );
        }
        #[cfg(feature = "alveo")]
        On::BoardU50 => panic!("the loopback test runs on the core build and the SUME board"),
    }
    assert_eq!(rxq0.counters(r.b()).frames, got0.len() as u32);
    assert_eq!(rxq0.counters(r.b()).drop_nobuf, 0);
}

/// Frames injected at given simulated times: arrival_ns is the PHC at the first beat (preamble and
/// first word after the injection time) plus RX_LAT_COMP_NS; a frame for a queue without buffers is
/// dropped and counted; a bad-FCS frame is delivered with its status.
#[test]
fn injected_frames_times_drops_and_status() {
    injected_frames(On::Core);
}

/// The same on the board: each arrival stamp against the frame's true start on the RX line (lane 0
/// and lane 4 starts), the PHC's offset from simulated time taken from one TX frame's departure
/// stamp and line start (see [`board_stamp_bound_ps`]).
#[cfg(feature = "board")]
#[test]
fn board_injected_frames_times_drops_and_status() {
    injected_frames(On::Board);
}

/// The same on the Alveo U50 build (512-bit RX on the CMAC clock, RX_SOF_IN = 0): bytes, status,
/// drops, and each stamp against its first beat's edge.
#[cfg(feature = "alveo")]
#[test]
fn board_u50_injected_frames_times_drops_and_status() {
    injected_frames(On::BoardU50);
}

fn injected_frames(on: On) {
    if !common::core_ready() {
        return;
    }
    let (mut r, tap) = Rig::open(on);
    let rcaps = RxCaps::read(r.b()).unwrap();
    bring_up(r.b(), &PushOptions::default()).unwrap();
    r.wait_rx_locked();
    let mut rxq = RxQueue::create(
        r.b(),
        &rcaps,
        0,
        &RxQueueConfig {
            ring_log2: 4,
            buf_size: 0,
        },
    )
    .unwrap();
    rx::set_rx_lat_comp_ns(r.b(), 100);
    rx::rx_enable(r.b(), true);
    assert!(rx::steer_set(
        r.b(),
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
    // PHC = simulated time + c. Core: read both around one PHC read. Board: a read takes a PCIe
    // round trip, so c comes from one TX frame instead: its departure stamp less its line start
    // (below, `c_ps`: c within [0, 1.41] ns above it, see board_stamp_bound_ps).
    let s0 = r.b().sim_time_ns().unwrap();
    let phc = tsnic::phc::get_ns(r.b());
    let s1 = r.b().sim_time_ns().unwrap();
    #[cfg_attr(not(feature = "board"), allow(unused_variables))] // (the board's check)
    let c_ps: i64 = match on {
        On::Core => {
            assert!(s1 - s0 < 1000);
            0
        }
        #[cfg(feature = "board")]
        On::Board => {
            let caps = Caps::read(r.b()).unwrap();
            let cpl = CplRing::create(r.b(), &caps, 4).unwrap();
            let qcfg = QueueConfig {
                ring_log2: 3,
                buffers: 0,
                buf_size: 2048,
                batch: 1,
                late: LatePolicy::Send,
                horizon: HorizonPolicy::Drop,
                quota: 0,
            };
            let txq = TxQueue::create(r.b(), &caps, 0, &qcfg).unwrap();
            let mut rings = Rings {
                queues: vec![txq],
                cpl,
            };
            let launch = tsnic::phc::get_ns(r.b()) + 20_000;
            rings.queues[0]
                .post(r.b(), &frame(100, 0, 9), launch, DescFlags::empty())
                .unwrap()
                .unwrap();
            rings.queues[0].doorbell(r.b());
            let mut cpls = Vec::new();
            for _ in 0..1000 {
                rings.poll(r.b(), &mut cpls, 4).unwrap();
                if !cpls.is_empty() {
                    break;
                }
                r.b().wait_ns(1000).unwrap();
            }
            let w = tap.take();
            assert_eq!((cpls.len(), w.len()), (1, 1));
            cpls[0].depart_ns as i64 * 1000 - w[0].start_ps as i64
        }
        // not calibrated from a TX stamp on the Alveo: its stamp path is changing (the CMAC's
        // handshake); its arrivals are checked against their own first beats below
        #[cfg(feature = "alveo")]
        On::BoardU50 => 0,
    };
    let now_ps = r.now_ps();
    let times: Vec<u64> = (0..6)
        .map(|i| now_ps + 50_000_000 + i * 7_777_000)
        .collect();
    for (i, &t) in times.iter().enumerate() {
        tap.rx_inject(t, frame(64 + i * 10, i as u8, 1), i == 4);
    }
    let mut got = Vec::new();
    poll_until(r.b(), &mut rxq, &mut got, 6);
    let arr = tap.take_rx_arrivals();
    assert_eq!(arr.len(), 6);
    #[cfg_attr(not(feature = "board"), allow(unused_variables, unused_mut))]
    let mut lanes = [0; 2];
    #[cfg_attr(not(feature = "alveo"), allow(unused_mut))]
    let mut u50_offsets: Vec<i64> = Vec::new();
    for (i, (p, a)) in got.iter().zip(&arr).enumerate() {
        match on {
            On::Core => {
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
            }
            #[cfg(feature = "board")]
            On::Board => {
                // idle line: the frame starts at the first XGMII half word at or after its time
                let cfg = tsnic_sim::board::BoardConfig::default();
                assert!(a.start_ps >= times[i] && a.start_ps - times[i] < 3200);
                let lane = ((a.start_ps - cfg.mac_phase_ps) / 3200 % 2) as usize;
                lanes[lane] += 1;
                let (lo, hi) = board_stamp_bound_ps();
                let err = (p.arrival_ns as i64 - 100) * 1000 - a.start_ps as i64 - c_ps;
                assert!(
                    (lo..=hi).contains(&err),
                    "frame {i} (lane {}): arrival {} ns vs true start {} ps + c: {err} ps outside {lo}..={hi}",
                    lane * 4,
                    p.arrival_ns,
                    a.start_ps
                );
            }
            #[cfg(feature = "alveo")]
            On::BoardU50 => {
                // the line model hands the first 64-byte beat over at the first MAC edge once the
                // preamble and 64 bytes are in (72 bytes at 100G: 5.76 ns; edges 3.103 ns apart)
                assert_eq!(a.start_ps, times[i], "idle line: starts when injected");
                let d = a.first_beat_ps - a.start_ps;
                assert!(
                    (5760..5760 + 3104).contains(&d),
                    "first beat {d} ps after the start"
                );
                u50_offsets.push((p.arrival_ns as i64 - 100) * 1000 - a.first_beat_ps as i64);
            }
        }
        let want = if i == 4 {
            RxStatus::BadFcs
        } else {
            RxStatus::Ok
        };
        assert_eq!(RxStatus::from_code(p.status), Some(want));
        assert_eq!(p.data, frame(64 + i * 10, i as u8, 1));
    }
    #[cfg(feature = "board")]
    if on == On::Board {
        assert!(
            lanes[0] > 0 && lanes[1] > 0,
            "lane 0 and lane 4 starts: {lanes:?}"
        );
    }
    // U50 (RX_SOF_IN = 0): the stamp is the MAC-domain time at the first beat's edge, rounded
    // (round(t + c + 0.3 - lag), lag 0..0.41 ns): stamp minus first beat is one constant c within
    // -0.61..+0.80 ns, so the offsets of all frames lie within 1.41 ns of each other
    if !u50_offsets.is_empty() {
        let (lo, hi) = (
            *u50_offsets.iter().min().unwrap(),
            *u50_offsets.iter().max().unwrap(),
        );
        assert!(hi - lo <= 1410, "stamp - first beat, ps: {u50_offsets:?}");
    }
    let _ = (phc, s0, s1);
    // queue 1 has no buffers: a steered frame is dropped and counted, never silently
    rx::steer_set(
        r.b(),
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
    let t = r.now_ps() + 1_000_000;
    tap.rx_inject(t, frame(80, 9, 77), false);
    tap.rx_inject(t, frame(90, 9, 1), false);
    poll_until(r.b(), &mut rxq, &mut got, 7);
    assert_eq!(got.len(), 7);
    assert_eq!(
        r.b()
            .read32(RxCaps::q_reg(1, tsnic::contract::reg::RXQ_CNT_DROP_NOBUF)),
        1
    );
    assert_eq!(r.b().read32(tsnic::contract::reg::RX_CNT_FRAMES), 8);
    assert_eq!(r.b().read32(tsnic::contract::reg::RX_CNT_BAD_FCS), 1);
    assert!(rxq.disable(r.b(), 100_000).unwrap());
    rxq.destroy(r.b()).unwrap();
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

/// On the board: the RX DMA rate figure (printed with `--nocapture`, not asserted) with 200
/// back-to-back 64-byte frames through the board core's MAC RX crossing and its RX DMA over the
/// PCIe hard-block model (posted writes on RQ). Asserted: every frame is delivered or counted dropped
/// (RX_CNT_DROP_FULL), the delivered ones intact and in order.
#[cfg(feature = "board")]
#[test]
fn board_rx_dma_rate_figure_and_every_frame_accounted() {
    rx_dma_rate(On::Board);
}

#[cfg(feature = "board")]
fn rx_dma_rate(on: On) {
    if !common::core_ready() {
        return;
    }
    let (mut r, tap) = Rig::open(on);
    let rcaps = RxCaps::read(r.b()).unwrap();
    bring_up(r.b(), &PushOptions::default()).unwrap();
    let mut rxq = RxQueue::create(
        r.b(),
        &rcaps,
        0,
        &RxQueueConfig {
            ring_log2: 9,
            buf_size: 2048,
        },
    )
    .unwrap();
    rx::rx_enable(r.b(), true);
    let n = 200usize;
    let t0 = r.now_ps() + 1_000_000;
    let frames: Vec<Vec<u8>> = (0..n).map(|i| frame(64, i as u8, 1)).collect();
    for f in &frames {
        tap.rx_inject(t0, f.clone(), false);
    }
    let mut got = Vec::new();
    let mut last_ps = 0;
    for _ in 0..100_000 {
        let before = got.len();
        rxq.poll(r.b(), &mut got, 1024).unwrap();
        if got.len() > before {
            last_ps = r.now_ps();
        }
        let dropped = r.b().read32(tsnic::contract::reg::RX_CNT_DROP_FULL) as usize;
        if got.len() + dropped == n && r.rx_queued() == 0 {
            break;
        }
        r.b().wait_ns(100).unwrap();
    }
    let dropped = r.b().read32(tsnic::contract::reg::RX_CNT_DROP_FULL) as usize;
    assert_eq!(
        got.len() + dropped,
        n,
        "a frame was neither delivered nor counted"
    );
    assert_eq!(
        r.b().read32(tsnic::contract::reg::RX_CNT_FRAMES) as usize,
        n
    );
    let mut it = frames.iter();
    for p in &got {
        assert!(
            it.any(|f| *f == p.data),
            "delivered out of order or altered"
        );
    }
    let span_ns = (last_ps - t0) / 1000;
    eprintln!(
        "RX DMA: {} of {n} back-to-back 64-byte frames delivered, {dropped} dropped for room (counted); \
         {:.2} M frames/s over {span_ns} ns (800 ns host reads, {})",
        got.len(),
        got.len() as f64 * 1000.0 / span_ns as f64,
        if on == On::Core { "64-bit bus" } else { "sim:board" }
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
    l2_ptp_steered(On::Core);
}

/// The same on the board.
#[cfg(feature = "board")]
#[test]
fn board_l2_ptp_frames_steered_by_ethertype_beside_other_frames() {
    l2_ptp_steered(On::Board);
}

fn l2_ptp_steered(on: On) {
    if !common::core_ready() {
        return;
    }
    let (mut r, tap) = Rig::open(on);
    let rcaps = RxCaps::read(r.b()).unwrap();
    assert!(rcaps.num_queues >= 2 && rcaps.steer_et_rules >= 1);
    bring_up(r.b(), &PushOptions::default()).unwrap();
    let mk = |b: &mut dyn Backend, q| {
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
    let mut rxq0 = mk(r.b(), 0);
    let mut rxq1 = mk(r.b(), 1);
    rx::set_default_queue(r.b(), &rcaps, 0).unwrap();
    rx::rx_enable(r.b(), true);
    assert!(rx::steer_et_set(r.b(), &rcaps, rcaps.steer_et_rules, 0x88F7, 1).is_err());
    assert!(rx::steer_et_set(r.b(), &rcaps, 0, 0x88F7, rcaps.num_queues as u16).is_err());
    rx::steer_et_set(r.b(), &rcaps, 0, rx::ETHERTYPE_PTP, 1).unwrap();
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
    let t0 = r.now_ps() + 1_000_000;
    for (i, (f, _)) in sent.iter().enumerate() {
        tap.rx_inject(t0 + i as u64 * 100_000, f.clone(), false);
    }
    let want0: Vec<&Vec<u8>> = sent.iter().filter(|s| s.1 == 0).map(|s| &s.0).collect();
    let want1: Vec<&Vec<u8>> = sent.iter().filter(|s| s.1 == 1).map(|s| &s.0).collect();
    let (mut got0, mut got1) = (Vec::new(), Vec::new());
    for _ in 0..20_000 {
        rxq0.poll(r.b(), &mut got0, 64).unwrap();
        rxq1.poll(r.b(), &mut got1, 64).unwrap();
        if got0.len() + got1.len() >= sent.len() {
            break;
        }
        r.b().wait_ns(200).unwrap();
    }
    r.b().wait_ns(20_000).unwrap();
    rxq0.poll(r.b(), &mut got0, 64).unwrap();
    rxq1.poll(r.b(), &mut got1, 64).unwrap();
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
    r.b().write32(tsnic::contract::reg::RX_STEER_ET, 0);
    r.b().write32(tsnic::contract::reg::RX_STEER_INDEX, 0);
    r.b().write32(
        tsnic::contract::reg::RX_STEER_CMD,
        tsnic::contract::reg::RX_STEER_CMD_ET_READ,
    );
    assert_eq!(
        r.b().read32(tsnic::contract::reg::RX_STEER_ET),
        0x88F7 | (1 << 16) | tsnic::contract::reg::RX_STEER_ET_VALID
    );
    rx::steer_et_clear(r.b(), &rcaps, 0).unwrap();
    let t = r.now_ps() + 1_000_000;
    tap.rx_inject(t, ptp_l2_frame(64, 5), false);
    let n0 = got0.len();
    poll_until(r.b(), &mut rxq0, &mut got0, n0 + 1);
    assert_eq!(got0[n0].data, ptp_l2_frame(64, 5));
    rxq1.poll(r.b(), &mut got1, 64).unwrap();
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
