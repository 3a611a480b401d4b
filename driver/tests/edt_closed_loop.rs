//! Closed-loop checks of the EDT sender's headline behaviours (small, fast versions of the
//! benchmarks in docs/BENCHMARKS.md).
//!
//! Run: `cargo test -p tsnic --test edt_closed_loop`

use tsnic::edt::card::{IdealCardModel, SimWire, TxPort};
use tsnic::edt::cc::CcKind;
use tsnic::edt::frame::Endpoints;
use tsnic::edt::run::{parse_path, run, RunConfig};
use tsnic::edt::sender::{ConnState, Pacer, PacingModel, SenderConfig, TcpSender};

fn cfg(path: &str, bytes: u64) -> RunConfig {
    RunConfig {
        bytes,
        path: parse_path(path).unwrap(),
        path_text: path.into(),
        ..RunConfig::default()
    }
}

#[test]
fn bulk_transfer_completes_and_is_verified_for_both_ccs() {
    for cc in [CcKind::Cubic, CcKind::Bbr] {
        let mut c = cfg("rate=1G,rtt=1ms,buffer=200KB", 2_000_000);
        c.cc = cc;
        let r = run(&c).unwrap();
        assert!(r.completed, "{cc:?}\n{}", r.table());
        assert_eq!(r.receiver_delivered, 2_000_000);
        assert_eq!(r.receiver_corrupt_bytes, 0);
        assert!(r.goodput_mbps > 300.0, "{cc:?} goodput {}", r.goodput_mbps);
        // Frames never leave before their launch time (launch error is never negative by
        // construction: it is measured as depart - launch in unsigned ns).
        assert_eq!(r.window_violations, 0);
    }
}

#[test]
fn pacing_does_not_inflate_rtt_with_edt_but_does_with_queue_stamping() {
    // Benchmark 1 in small: 24 Mbit/s max rate on a 10G path with 50 us base RTT.
    let mut c = cfg("rate=10G,rtt=50us,buffer=1MB", 300_000);
    c.max_rate_bps = Some(24_000_000);
    let edt = run(&c).unwrap();
    c.pacing_model = PacingModel::Queue;
    let queue = run(&c).unwrap();
    assert!(edt.completed && queue.completed);
    // EDT: srtt within 10 % of the 50 us base RTT.
    assert!(
        edt.srtt_us.mean < 55.0,
        "EDT srtt mean {} us\n{}",
        edt.srtt_us.mean,
        edt.table()
    );
    // Queue stamping: srtt inflated by the pacer sojourn (well above base).
    assert!(
        queue.srtt_us.mean > 2.0 * edt.srtt_us.mean,
        "queue srtt {} vs edt {}",
        queue.srtt_us.mean,
        edt.srtt_us.mean
    );
    // The pacing rate holds: achieved within 2 % of 24 Mbit/s.
    let acc = edt.pacing_accuracy.unwrap();
    assert!((0.98..=1.02).contains(&acc), "accuracy {acc}");
}

#[test]
fn jitter_credit_recovers_rate_lost_to_wakeup_jitter() {
    // Benchmark 2 in small: host pacing timer at 8 Gbit/s with 0..5 us wake-up jitter.
    let mut c = cfg("rate=10G,rtt=50us,buffer=4MB", 20_000_000);
    c.max_rate_bps = Some(8_000_000_000);
    c.pacer = Pacer::Host;
    c.jitter_ns = 5_000;
    let with = run(&c).unwrap();
    c.jitter_credit = false;
    let without = run(&c).unwrap();
    let (a, b) = (
        with.pacing_accuracy.unwrap(),
        without.pacing_accuracy.unwrap(),
    );
    assert!(a >= 0.99, "with credit {a}\n{}", with.table());
    assert!(b < a - 0.01, "without credit {b} vs with {a}");
}

#[test]
fn rst_from_peer_aborts_connection() {
    // Send a SYN to a port nobody listens on: the network answers with RST.
    let ends = Endpoints {
        src_mac: [2, 0, 0, 0, 0, 1],
        dst_mac: [2, 0, 0, 0, 0, 2],
        src_ip: [10, 0, 0, 1],
        dst_ip: [10, 0, 0, 2],
        src_port: 40000,
        dst_port: 9,
    };
    let mut card = IdealCardModel::new(10_000_000_000);
    let mut net = tsnic::netsim::Network::new(
        tsnic::netsim::PathConfig::default(),
        tsnic::netsim::ReceiverConfig::default(),
        1,
    );
    let mut s = TcpSender::new(SenderConfig::new(ends, 1000, CcKind::Cubic), 1 << 48);
    s.connect(0, &mut card);
    let mut now = 0;
    for _ in 0..100 {
        let t = [card.next_event_ns(), net.next_event_ns()]
            .into_iter()
            .flatten()
            .min();
        let Some(t) = t else { break };
        now = now.max(t);
        for c in card.poll(now) {
            s.on_completion(&c);
        }
        for w in card.drain_wire() {
            net.inject(w.end_ns, w.frame);
        }
        for (_, f) in net.advance(now) {
            s.on_frame(now, &f, &mut card);
        }
    }
    assert_eq!(s.state, ConnState::Reset);
    assert_eq!(net.stats.resets_sent, 1);
}

#[test]
fn frames_are_valid_for_an_independent_parser() {
    // Every frame the sender puts on the wire parses with the network model's own codec,
    // which re-checks the IPv4 and TCP checksums.
    let mut c = cfg("rate=1G,rtt=100us,buffer=100KB,loss=0.02", 100_000);
    c.capture = true;
    let r = run(&c).unwrap();
    assert!(r.completed);
    assert!(!r.pcap.is_empty());
    for (_, f) in &r.pcap {
        tsnic::netsim::wire::parse(f).expect("sender frame must parse and checksum");
    }
    // The SYN carries MSS, window scale, SACK-permitted and timestamps.
    let syn = tsnic::netsim::wire::parse(&r.pcap[0].1).unwrap();
    assert_eq!(syn.flags & 0x02, 0x02);
    assert_eq!(syn.options.mss, Some(1460));
    assert_eq!(syn.options.wscale, Some(7));
    assert!(syn.options.sack_permitted);
    assert!(syn.options.timestamps.is_some());
    // The last frame is our ACK of the receiver's FIN; a FIN went before it.
    assert!(r
        .pcap
        .iter()
        .any(|(_, f)| tsnic::netsim::wire::parse(f).unwrap().flags & 0x01 != 0));
}

#[test]
fn bbr_reaches_probe_bw_and_keeps_deep_buffer_emptier_than_cubic() {
    let mut c = cfg("rate=1G,rtt=2ms,buffer=2MB", 10_000_000);
    c.cc = CcKind::Cubic;
    let cubic = run(&c).unwrap();
    c.cc = CcKind::Bbr;
    let bbr = run(&c).unwrap();
    assert!(cubic.completed && bbr.completed);
    assert!(bbr.cc_state[0].starts_with("ProbeBw"), "{:?}", bbr.cc_state);
    assert!(
        bbr.queue_delay_us.mean * 2.0 < cubic.queue_delay_us.mean,
        "bbr {} us vs cubic {} us",
        bbr.queue_delay_us.mean,
        cubic.queue_delay_us.mean
    );
}

#[test]
fn same_seed_same_report() {
    let mut c = cfg(
        "rate=1G,rtt=300us,buffer=60KB,loss=0.01,reorder=0.02",
        400_000,
    );
    c.cc = CcKind::Bbr;
    let a = serde_json::to_string(&run(&c).unwrap()).unwrap();
    let b = serde_json::to_string(&run(&c).unwrap()).unwrap();
    assert_eq!(a, b);
    c.seed = 2;
    let d = serde_json::to_string(&run(&c).unwrap()).unwrap();
    assert_ne!(a, d, "a different seed should change the losses");
}
