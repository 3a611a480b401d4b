//! PTP between two Verilated cards in one process (issue 33 item 3): the slave card's PHC follows
//! the master card's over the wire model, on the cards' own departure and arrival stamps.

use tsnic::ptp::pair::{run, PairConfig};

#[test]
fn slave_card_locks_to_master_card() {
    let t0 = std::time::Instant::now();
    let cfg = PairConfig {
        seconds: 30,
        ..PairConfig::default()
    };
    let r = run(&cfg, |i, rep| {
        eprintln!("card {i}: {rep:?}");
        true
    })
    .unwrap();
    eprintln!("{:?}", r.true_offset_ns);
    eprintln!(
        "lock {:?} p50 {} p99 {} max {} late {} frames {:?} cycles {:?} wall {:?}",
        r.lock_s,
        r.p50_ns,
        r.p99_ns,
        r.max_ns,
        r.late_injections,
        r.frames,
        r.cycles,
        t0.elapsed()
    );
}
