//! Property tests of the EDT sender, closed-loop over the simulated path, and of its clocks.
//!
//! Run: `cargo test -p tsnic --test edt_props`

use proptest::prelude::*;
use tsnic::edt::cc::CcKind;
use tsnic::edt::pacing::EdtClock;
use tsnic::edt::run::{parse_path, run, RunConfig};
use tsnic::edt::timer::{deadline_round_up, Timer};

fn small_run(cc: CcKind, path: &str, bytes: u64, seed: u64, rcv_buf: u32) -> RunConfig {
    RunConfig {
        cc,
        bytes,
        path: parse_path(path).unwrap(),
        path_text: path.into(),
        seed,
        rcv_buf,
        time_limit_ns: 30_000_000_000,
        ..RunConfig::default()
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Under random loss and reordering the receiver gets every byte exactly once, in order,
    /// with the right contents; the sender never exceeds cwnd or the receive window, never
    /// moves wstamp backward, and no timer fires early.
    #[test]
    fn every_byte_once_in_order_under_loss_and_reordering(
        loss in 0.0f64..0.05,
        reorder in 0.0f64..0.1,
        bytes in 20_000u64..150_000,
        seed in 0u64..1_000_000,
        bbr in any::<bool>(),
        small_window in any::<bool>(),
    ) {
        let path = format!("rate=1G,rtt=200us,buffer=64KB,loss={loss},reorder={reorder},reorder_delay=30us");
        let cc = if bbr { CcKind::Bbr } else { CcKind::Cubic };
        let rcv_buf = if small_window { 16 * 1024 } else { 6 << 20 };
        let r = run(&small_run(cc, &path, bytes, seed, rcv_buf)).unwrap();
        prop_assert!(r.completed, "did not finish: {}", r.table());
        prop_assert_eq!(r.receiver_delivered, bytes);
        prop_assert_eq!(r.receiver_corrupt_bytes, 0);
        prop_assert_eq!(r.bytes_acked, bytes);
        prop_assert_eq!(r.receiver_beyond_window_bytes, 0);
        prop_assert_eq!(r.window_violations, 0);
        prop_assert_eq!(r.wstamp_backward, 0);
        prop_assert_eq!(r.early_timer_fires, 0);
    }

    /// wstamp_ns never goes backward, whatever the order of wake-ups, sizes and rates, with or
    /// without the jitter credit; and a stamp is never before `now`.
    #[test]
    fn wstamp_never_backward(
        steps in proptest::collection::vec((0u64..2_000_000, 1u64..200_000, 1u64..2_000_000_000), 1..200),
        credit in any::<bool>(),
    ) {
        let mut c = EdtClock::new(credit);
        let mut now = 0u64;
        for (dt, len, rate) in steps {
            now += dt;
            let before = c.wstamp_ns;
            let (launch, prior) = c.stamp(now);
            prop_assert!(launch >= now && launch >= before);
            c.after_send(len, 1 + len / 1448, rate, prior);
            prop_assert!(c.wstamp_ns >= launch);
        }
    }

    /// A timer armed for `timeout` never fires before `now + timeout`, and is late by less
    /// than one tick.
    #[test]
    fn no_timer_fires_early(now in 0u64..u64::MAX / 4, timeout in 0u64..10_000_000_000, tick in 1u64..20_000_000) {
        let d = deadline_round_up(now, timeout, tick);
        prop_assert!(d >= now + timeout);
        prop_assert!(d < now + timeout + tick);
        let mut t = Timer::default();
        t.arm(now, timeout, tick);
        prop_assert!(!t.fire_due(d - 1) || d == 0);
        prop_assert!(t.fire_due(d));
        prop_assert_eq!(t.early_fires, 0);
    }
}

mod hostile_peer {
    use proptest::prelude::*;
    use tsnic::edt::card::IdealCardModel;
    use tsnic::edt::cc::CcKind;
    use tsnic::edt::frame::Endpoints;
    use tsnic::edt::sender::{SenderConfig, TcpSender};
    use tsnic::netsim::wire::{self, flags, TcpFrame, TcpOptions};

    const ISS: u32 = 1000;

    fn ends() -> Endpoints {
        Endpoints {
            src_mac: [2, 0, 0, 0, 0, 1],
            dst_mac: [2, 0, 0, 0, 0, 2],
            src_ip: [10, 0, 0, 1],
            dst_ip: [10, 0, 0, 2],
            src_port: 40000,
            dst_port: 5001,
        }
    }

    fn from_peer(seq: u32, ack: u32, fl: u8, window: u16, options: TcpOptions) -> Vec<u8> {
        wire::build(&TcpFrame {
            src_mac: [2, 0, 0, 0, 0, 2],
            dst_mac: [2, 0, 0, 0, 0, 1],
            src_ip: [10, 0, 0, 2],
            dst_ip: [10, 0, 0, 1],
            src_port: 5001,
            dst_port: 40000,
            seq,
            ack,
            flags: fl,
            window,
            options,
            payload: vec![],
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

        /// Any SYN-ACK options and any stream of ACKs (wild ACK numbers, SACK blocks, windows,
        /// garbage bytes) leave the sender without a panic and within cwnd and the window.
        #[test]
        fn hostile_acks_never_panic(
            mss in any::<u16>(),
            ws in proptest::option::of(any::<u8>()),
            acks in proptest::collection::vec(
                (any::<u32>(), any::<u16>(), proptest::collection::vec((any::<u32>(), any::<u32>()), 0..4), any::<bool>()),
                1..40),
            garbage in proptest::collection::vec(any::<u8>(), 0..80),
        ) {
            let mut card = IdealCardModel::new(10_000_000_000);
            let mut s = TcpSender::new(SenderConfig::new(ends(), ISS, CcKind::Cubic), 1 << 48);
            s.connect(0, &mut card);
            s.write(200_000);
            let synack = from_peer(5, ISS + 1, flags::SYN | flags::ACK, 65535, TcpOptions {
                mss: Some(mss), wscale: ws, sack_permitted: true, timestamps: Some((1, 1)), sack: vec![],
            });
            let mut now = 10_000;
            s.on_frame(now, &synack, &mut card);
            s.on_frame(now, &garbage, &mut card);
            for (ack_delta, window, sack, near) in acks {
                now += 5_000;
                for c in tsnic::edt::card::TxPort::poll(&mut card, now) {
                    s.on_completion(&c);
                }
                // Half the ACKs land near the send window, half anywhere in sequence space.
                let ack = if near { ISS + 1 + (ack_delta % 300_000) } else { ack_delta };
                let f = from_peer(6, ack, flags::ACK, window, TcpOptions {
                    sack, timestamps: Some((2, 2)), ..Default::default()
                });
                s.on_frame(now, &f, &mut card);
                s.on_timers(now, &mut card);
                prop_assert!(s.in_flight() <= s.cc_state.cwnd.max(1) + 1);
            }
            prop_assert_eq!(s.stats.window_violations, 0);
            prop_assert_eq!(s.stats.wstamp_backward, 0);
        }
    }
}
