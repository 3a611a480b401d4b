//! 100G line rate in the co-simulation, kept as a regression test.
//!
//! 20,000 minimum-size (60-byte) frames with launch times one 100G frame time apart (8 preamble +
//! 60 + 4 FCS + 12 gap bytes = 84 bytes = 6.72 ns), round robin over 8 queues, through the 512-bit
//! configuration of the Verilated core on a 100 Gb/s wire. Rate and lateness are measured in simulated
//! time (wire first-beat times, in ps of the simulation's own clock), so the result does not depend on
//! the machine: every frame must be on the wire and the rate over the run must reach 99 % of
//! 148.81 Mpps. The full million-frame run is a benchmark: `sim/card/bench/line_rate_100g.sh`.

use tsnic::device::sim::{SimBackend, SimConfig};
use tsnic::device::Card;
use tsnic::push::{self, JobFrame, PushOptions};
use tsnic::trace;

/// 100GbE line rate for 60-byte frames, frames per second: 10^11 / (84 * 8).
const LINE_RATE_PPS: f64 = 1e11 / (84.0 * 8.0);

#[test]
fn twenty_thousand_minimum_frames_at_100g_line_rate() {
    if let Some(why) = tsnic_sim::core_unavailable() {
        panic!("the simulator was not built: {why}");
    }
    let mut b = SimBackend::new(SimConfig::wide_100g()).expect("512-bit simulated card");
    b.card().wire_mut().set_recording(true);
    let tap = b.tap();
    let mut card = Card::from_backend(Box::new(b), "sim".into()).expect("card identifies itself");
    let n = 20_000u64;
    let t0 = push::phc_now(card.backend()) + 30_000;
    let frames: Vec<JobFrame> = (0..n)
        .map(|i| JobFrame {
            index: i,
            queue: (i % 8) as u16,
            len: 60,
            launch_ns: t0 + (i * 672).div_ceil(100),
        })
        .collect();
    struct Gen;
    impl push::FrameSource for Gen {
        fn frame(&self, f: &JobFrame, out: &mut Vec<u8>) {
            trace::build_frame(f.index, f.launch_ns, f.len as usize, out);
        }
    }
    let opts = PushOptions {
        ring_log2: 12,
        ..PushOptions::default()
    };
    let out = push::run(&mut card, &frames, &Gen, &opts, &mut |_, _| {}).expect("push");
    let on_wire = out.results.iter().filter(|r| r.on_wire()).count() as u64;
    assert_eq!(on_wire, n, "every frame goes on the wire");
    let wire = tap.take();
    assert_eq!(wire.len() as u64, n, "wire frames");
    assert_eq!(
        tap.wire_stats().underruns,
        0,
        "the MAC never ran dry inside a frame"
    );
    let first = wire.first().unwrap().first_beat_ps;
    let last = wire.last().unwrap().first_beat_ps;
    let pps = (n - 1) as f64 / ((last - first) as f64 * 1e-12);
    eprintln!(
        "100G: {n} frames, {:.3} Mpps in simulated time ({:.2} % of line rate)",
        pps / 1e6,
        100.0 * pps / LINE_RATE_PPS
    );
    assert!(
        pps >= 0.99 * LINE_RATE_PPS,
        "{:.3} Mpps is below 99 % of the 100G line rate ({:.3} Mpps)",
        pps / 1e6,
        LINE_RATE_PPS / 1e6
    );
}
