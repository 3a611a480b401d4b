//! Co-simulation speed: core cycles per wall second of the Verilated tsnic_core with the models
//! around it, the core idle after reset (the same scenario as bench/tb_speed.v under Icarus), and how
//! many cycles the post-reset RAM clear takes (CTRL_STATUS.RESET_BUSY high after `rst` falls).
//!
//! `cargo run --release -p tsnic-sim --example speed [-- CYCLES [CONFIG]]`, CONFIG one of `64`
//! (default: 64-bit, the board's size), `small` (64-bit, 8 queues / 1024 entries) or `512` (512-bit,
//! board size; add `--features wide`).

use std::time::Instant;

use tsnic_sim::{Config, SimCard};

/// CTRL_STATUS (hdl/contract/tsnic.toml) and its RESET_BUSY bit.
const CTRL_STATUS: u32 = 0x104;
const RESET_BUSY: u32 = 0x2;

fn main() {
    let mut args = std::env::args().skip(1);
    let cycles: u64 = args
        .next()
        .and_then(|a| a.parse().ok())
        .unwrap_or(5_000_000);
    let (name, cfg) = match args.next().as_deref() {
        Some("512") => ("512-bit", Config::wide_100g()),
        Some("small") => ("64-bit small", Config::small()),
        _ => ("64-bit", Config::default()),
    };
    let t = Instant::now();
    let mut card = match SimCard::new(cfg) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    };
    let rst_end = card.cycle();
    loop {
        match card.mmio_read(CTRL_STATUS) {
            Ok(s) if s & RESET_BUSY == 0 => break,
            Ok(_) => {}
            Err(e) => {
                eprintln!("error: {e}");
                std::process::exit(1);
            }
        }
    }
    println!(
        "verilator {name}: RESET_BUSY cleared {} cycles after reset ({:.3} s wall with construction)",
        card.cycle() - rst_end,
        t.elapsed().as_secs_f64()
    );
    let t = Instant::now();
    card.run(cycles);
    let s = t.elapsed().as_secs_f64();
    println!(
        "verilator {name}: {cycles} idle core cycles in {s:.3} s = {:.3} M cycles/s",
        cycles as f64 / s / 1e6
    );
}
