//! Co-simulation tests of the driver's PHC code on the Verilated tsnic_core: get/set/adjtime/adjfine
//! through the real register path, and the PI servo locking the RTL clock to the modelled host clock.
//!
//! They skip (with a message) only while `hdl/rtl/tsnic_core.v` does not exist; when it exists but the
//! simulator could not be built, they fail with the reason.

use std::path::Path;

use tsnic::device::Card;
use tsnic::phc::{self, PiServo, ServoState, MAX_ADJFINE_PPB};

/// False (after saying why) when the core has not landed; panics when it exists but did not build.
fn core_ready() -> bool {
    match tsnic_sim::core_unavailable() {
        None => true,
        Some(why)
            if !Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../hdl/rtl/tsnic_core.v")
                .exists() =>
        {
            eprintln!("SKIPPED: no RTL core yet: {why}");
            false
        }
        Some(why) => panic!("hdl/rtl/tsnic_core.v exists but the simulator was not built: {why}"),
    }
}

#[test]
fn phc_registers_on_the_rtl() {
    if !core_ready() {
        return;
    }
    let mut card = Card::open("sim:state=none").expect("sim card");
    let b = card.backend();

    phc::set(b, 1_000_000_000_000);
    let t = phc::get(b);
    // A few AXI-Lite round trips (tens of cycles) passed since the SET.
    assert!(
        (1_000_000_000_000..1_000_000_001_000).contains(&t.ns),
        "{t:?}"
    );
    assert_eq!(
        t.sec * 1_000_000_000 + t.nsec as u64,
        t.ns,
        "seconds view of the same snapshot"
    );
    assert!(phc::step_count(b) >= 1);

    let before = phc::get_ns(b);
    phc::adjtime(b, -5_000);
    let after = phc::get_ns(b);
    assert!(
        after < before && before - after < 5_000 && before - after > 4_000,
        "{before} -> {after}"
    );

    // Nominal rate: 100 us of simulated time is 100 us of PHC time (4 ns period is exact in 16.48).
    let t0 = phc::get_ns(b);
    b.wait_ns(100_000).unwrap();
    let d = phc::get_ns(b) - t0;
    assert!((100_000..100_400).contains(&d), "{d}");

    // +1000 ppm: 1 ms gains 1 us (after the increment latency).
    phc::adjfine(b, 1_000_000).unwrap();
    assert_eq!(phc::freq(b), 1_000_000);
    b.wait_ns(10_000).unwrap();
    assert!(
        !phc::busy(b),
        "the new increment is in force after 131 cycles"
    );
    let t0 = phc::get_ns(b);
    b.wait_ns(1_000_000).unwrap();
    let gained = phc::get_ns(b) - t0 - 1_000_000;
    assert!(
        (950..1_450).contains(&gained),
        "gained {gained} ns in 1 ms at +1000 ppm"
    );
    phc::adjfine(b, -MAX_ADJFINE_PPB).unwrap();
    assert_eq!(phc::freq(b), -MAX_ADJFINE_PPB);
}

#[test]
fn servo_locks_the_rtl_clock_to_a_host_clock_100ppm_off() {
    if !core_ready() {
        return;
    }
    let mut card = Card::open("sim:state=none").expect("sim card");
    let b = card.backend();
    assert!(
        b.set_host_freq_error_ppb(-100_000.0),
        "the sim backend models the host clock"
    );
    let interval_ns = 1_000_000;
    let start = phc::freq(b) as f64;
    let mut servo = PiServo::new(interval_ns as f64 / 1e9, start, MAX_ADJFINE_PPB as f64);
    let log = phc::sync(b, &mut servo, interval_ns, 30, |_| true).unwrap();
    assert_eq!(
        log[1].state,
        ServoState::Jump,
        "the PHC starts near 0: the first offset is stepped"
    );
    let worst = log[10..]
        .iter()
        .map(|s| s.sample.offset_ns.abs())
        .max()
        .unwrap();
    eprintln!(
        "sim servo: worst |offset| over samples 11..30 = {worst} ns, final trim {} ppb",
        log.last().unwrap().freq_ppb
    );
    assert!(worst < 50, "worst offset {worst} ns: {:?}", &log[..12]);
    let trim = log.last().unwrap().freq_ppb;
    assert!((-100_100..=-99_900).contains(&trim), "trim {trim}");
}
