//! Flash update figures on the flash model: simulated time to write and verify a 40 MiB image with
//! the MT25QU01G's typical datasheet times plus the quad-SPI transfer time at the controller's clock,
//! and the host register accesses per KB written through the FLASH register interface (the Rust
//! model of the controller, flash.md's register semantics).
//!
//! `cargo run --release -p tsnic --no-default-features --example flash_bench [-- MIB [SCLK_MHZ]]`

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Instant;

use tsnic::flash::image;
use tsnic::flash::layout::Board;
use tsnic::flash::model::{ModelCard, SpiTiming};
use tsnic::flash::nor::MT25Q_TYPICAL;
use tsnic::flash::regs::RegFlash;
use tsnic::flash::update::{self, Progress, WriteOptions};
use tsnic::flash::{BootState, FlashCap, FlashDevice};

/// Simulated ns (or register accesses) per phase, taken at each phase change.
struct Phases<F: Fn() -> (u64, u64, u64)> {
    now: F,
    cur: Option<(&'static str, (u64, u64, u64))>,
    out: Vec<(&'static str, u64, u64, u64)>,
}

impl<F: Fn() -> (u64, u64, u64)> Phases<F> {
    fn close(&mut self) {
        if let Some((name, (t0, r0, w0))) = self.cur.take() {
            let (t, r, w) = (self.now)();
            self.out.push((name, t - t0, r - r0, w - w0));
        }
    }
}

impl<F: Fn() -> (u64, u64, u64)> Progress for Phases<F> {
    fn phase(&mut self, name: &'static str, _total: u64) {
        self.close();
        self.cur = Some((name, (self.now)()));
    }
    fn advance(&mut self, _n: u64) {}
}

/// A device that shares its counters with the progress observer.
struct Shared<'a, D: FlashDevice> {
    inner: D,
    t: &'a std::cell::Cell<(u64, u64, u64)>,
    counts: fn(&D) -> (u64, u64),
}

impl<D: FlashDevice> Shared<'_, D> {
    fn sync(&self) {
        let (r, w) = (self.counts)(&self.inner);
        self.t.set((self.inner.sim_ns().unwrap_or(0), r, w));
    }
}

macro_rules! fwd {
    ($self:ident, $e:expr) => {{
        let r = $e;
        $self.sync();
        r
    }};
}

impl<D: FlashDevice> FlashDevice for Shared<'_, D> {
    fn describe(&self) -> String {
        self.inner.describe()
    }
    fn cap(&mut self) -> tsnic::flash::Result<FlashCap> {
        fwd!(self, self.inner.cap())
    }
    fn read_id(&mut self) -> tsnic::flash::Result<[u8; 3]> {
        fwd!(self, self.inner.read_id())
    }
    fn read(&mut self, a: u32, b: &mut [u8]) -> tsnic::flash::Result<()> {
        fwd!(self, self.inner.read(a, b))
    }
    fn program_page(&mut self, a: u32, d: &[u8]) -> tsnic::flash::Result<()> {
        fwd!(self, self.inner.program_page(a, d))
    }
    fn erase_4k(&mut self, a: u32) -> tsnic::flash::Result<()> {
        fwd!(self, self.inner.erase_4k(a))
    }
    fn erase_64k(&mut self, a: u32) -> tsnic::flash::Result<()> {
        fwd!(self, self.inner.erase_64k(a))
    }
    fn status(&mut self) -> tsnic::flash::Result<(u8, u8)> {
        fwd!(self, self.inner.status())
    }
    fn write_status(&mut self, sr: u8) -> tsnic::flash::Result<()> {
        fwd!(self, self.inner.write_status(sr))
    }
    fn iprog(&mut self, a: u32) -> tsnic::flash::Result<()> {
        fwd!(self, self.inner.iprog(a))
    }
    fn boot_state(&mut self) -> tsnic::flash::Result<BootState> {
        fwd!(self, self.inner.boot_state())
    }
    fn sim_ns(&self) -> Option<u64> {
        self.inner.sim_ns()
    }
    fn reg_accesses(&self) -> Option<u64> {
        self.inner.reg_accesses()
    }
}

fn s(ns: u64) -> f64 {
    ns as f64 / 1e9
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let mib: usize = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(40);
    let sclk_mhz: f64 = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(50.0);
    let sclk_hz = (sclk_mhz * 1e6).round() as u64;
    let len = mib << 20;
    let f = image::synth_bit(
        "bench",
        "xcu50-fsvh2104-2-e",
        "2026/12/01",
        "12:00:00",
        len,
        42,
    );
    let img = image::parse_bit("bench.bit", &f).expect("image");
    let opts = WriteOptions::default();
    let t = MT25Q_TYPICAL;
    println!(
        "flash_bench: {mib} MiB image ({len} bytes) into slot A of a U50 flash model; MT25QU01G typical times: page program {} us, 64 KB erase {} ms, 4 KB erase {} ms; quad SPI at {sclk_mhz} MHz (opcode and 4-byte address on one line, data on four)",
        t.page_program_ns / 1000,
        t.erase_64k_ns / 1_000_000,
        t.erase_4k_ns / 1_000_000
    );

    // 1. the model device: simulated time per phase
    let mut card = ModelCard::factory(Board::U50);
    card.spi = SpiTiming { sclk_hz };
    let cell = std::cell::Cell::new((0, 0, 0));
    let mut dev = Shared {
        inner: card,
        t: &cell,
        counts: |_| (0, 0),
    };
    dev.sync();
    let t0 = cell.get().0;
    let mut ph = Phases {
        now: || cell.get(),
        cur: None,
        out: Vec::new(),
    };
    let wall = Instant::now();
    let r = update::write(&mut dev, &img, &opts, &mut ph).expect("write");
    ph.close();
    let total = cell.get().0 - t0;
    println!(
        "\nsimulated time (model device), {} pages programmed:",
        r.pages
    );
    for (name, ns, _, _) in &ph.out {
        println!("  {name:<12} {:>9.3} s", s(*ns));
    }
    let others = total - ph.out.iter().map(|p| p.1).sum::<u64>();
    println!(
        "  {:<12} {:>9.3} s (checks, header erase, header page)",
        "other",
        s(others)
    );
    println!(
        "  {:<12} {:>9.3} s   (wall {:.2} s)",
        "write+verify",
        s(total),
        wall.elapsed().as_secs_f64()
    );
    let prog = ph
        .out
        .iter()
        .find(|p| p.0 == "program")
        .map(|p| p.1)
        .unwrap_or(0);
    println!(
        "  per page: {:.1} us (program {} us + SPI {:.2} us + busy polling)",
        prog as f64 / r.pages as f64 / 1000.0,
        t.page_program_ns / 1000,
        dev.inner.spi.program_ns(256) as f64 / 1000.0
    );

    // 2. the register path: accesses per KB
    let card = Rc::new(RefCell::new(ModelCard::factory(Board::U50)));
    card.borrow_mut().spi = SpiTiming { sclk_hz };
    let mut mem = tsnic::flash::ctrl_model::mem_backend(card.clone());
    let cell = std::cell::Cell::new((0, 0, 0));
    let mut dev = Shared {
        inner: RegFlash::new(&mut mem),
        t: &cell,
        counts: |d| d.counts(),
    };
    let mut ph = Phases {
        now: || cell.get(),
        cur: None,
        out: Vec::new(),
    };
    let r = update::write(&mut dev, &img, &opts, &mut ph).expect("write over registers");
    ph.close();
    let kb = len as f64 / 1024.0;
    let (reads, writes) = dev.inner.counts();
    println!("\nhost register accesses (FLASH registers, controller model), per KB of image:");
    for (name, _, r, w) in &ph.out {
        println!(
            "  {name:<12} {:>7.1} reads + {:>7.1} writes = {:>7.1}",
            *r as f64 / kb,
            *w as f64 / kb,
            (r + w) as f64 / kb
        );
    }
    println!(
        "  {:<12} {:>7.1} reads + {:>7.1} writes = {:>7.1}   ({} accesses in all)",
        "whole job",
        reads as f64 / kb,
        writes as f64 / kb,
        (reads + writes) as f64 / kb,
        r.reg_accesses.unwrap_or(0)
    );
    println!(
        "\ncommand: cargo run --release -p tsnic --no-default-features --example flash_bench -- {mib} {sclk_mhz}"
    );
}
