//! Co-simulation speed: core cycles per wall second of the Verilated tsnic_core with the models
//! around it, the core idle after reset (the same scenario as bench/tb_speed.v under Icarus).
//!
//! `cargo run --release -p tsnic-sim --example speed [-- CYCLES]` (add `--features wide` and
//! `-- CYCLES 512` for the 512-bit configuration).

use std::time::Instant;

use tsnic_sim::{Config, SimCard};

fn main() {
    let mut args = std::env::args().skip(1);
    let cycles: u64 = args
        .next()
        .and_then(|a| a.parse().ok())
        .unwrap_or(5_000_000);
    let cfg = match args.next().as_deref() {
        Some("512") => Config::wide_100g(),
        _ => Config::default(),
    };
    let mut card = match SimCard::new(cfg) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    };
    let t = Instant::now();
    card.run(cycles);
    let s = t.elapsed().as_secs_f64();
    println!(
        "verilator {}-bit: {cycles} idle core cycles in {s:.3} s = {:.3} M cycles/s",
        cfg.width.bytes() * 8,
        cycles as f64 / s / 1e6
    );
}
