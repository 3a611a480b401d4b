//! The co-simulation's idle fast-forward and its gated blocks are exact.
//!
//! Random host programs run on the simulated card twice, once stepping every cycle with every block
//! clocked and once with the fast-forward on (which also leaves each gated block unclocked where it
//! holds: docs/ARCHITECTURE.md, "Gated blocks"); everything the host can observe must be the same:
//! every completion (status,
//! departure time, cookie, ring index, phase), every frame on the wire (bytes and the simulated time of
//! its first beat), every PHC reading, every interrupt wait's outcome and the final cycle count. The
//! programs mix posts with launch times in the past, near, in the coarse wheel and beyond the horizon,
//! idle waits, PHC steps (often to just before a whole second) and frequency trims during idle time, queue flushes, interrupt waits with
//! moderation, and rings small enough that descriptor and completion rings wrap many times. They also
//! receive: frames injected on the RX line at times ahead (often followed at once by an idle wait
//! that runs past them, so that a jump would cross the arrival), into an 8-entry RX ring, each
//! received frame logged with its hardware arrival stamp, status and bytes, and the RX line's own
//! record of each arrival; use the flash through the FLASH registers (READ_ID, READ, PROGRAM,
//! ERASE_4K, READ_STATUS on a flash model with short program and erase times, polled, read data
//! logged, each PROGRAM read back); and read the TX, per-queue and RX counters. A run in
//! which the fast-forward skipped nothing, or a gated block never held, would prove nothing, so each
//! program also checks that neither happened. The same programs run on the 512-bit card with the
//! `wide` feature.
//!
//! `gate_check_holds_on_random_programs` runs the programs once more with the gated blocks' check
//! (`SimCard::gate_check`): every block clocked, and every register of a block compared across each
//! edge where the block would hold; it fails on a change, on a block that never held, and on a block
//! with fewer registers compared than `tsnic_sim::GATE_CHECK_MIN_REGS`.
//!
//! `TSNIC_FF_LOG=1` prints each program's log (what is compared).
//!
//! Planted bugs these tests catch (tests/README.md quotes the failures):
//! - a fast-forward that jumps over an RX arrival: drop the `rx.next_start_ps()` limit at the top of
//!   `SimCard::try_fast_forward` (sim/card/src/lib.rs): `fast_forward_is_exact_on_random_host_programs`
//!   or `..._on_more_random_host_programs` (the same ten seeds, split in two) fails on an RX arrival
//!   stamp;
//! - a block that holds while its registers change: e.g. let the receive path's hold (`rx_hold_c` in
//!   hdl/rtl/tsnic_core.v) ignore `rxt_busy` (the RX stamper, busy while a beat arrives):
//!   `gate_check_holds_on_random_programs` names the register;
//! - a check that compares too little: e.g. drop `tsnic_cpl_write.v` from the completion writer's
//!   files in sim/card/bench/gate_regs.py: the same test fails on the completion writer's count.

use tsnic::contract::{reg, Completion, HorizonPolicy, LatePolicy};
use tsnic::device::sim::{SimBackend, SimConfig, WireTap};
use tsnic::device::{Backend, Caps};
use tsnic::flash::model::ModelCard;
use tsnic::flash::nor::{NorFlash, Timing};
use tsnic::flash::regs::op;
use tsnic::flash::sim_pins::SimFlash;
use tsnic::flash::Board;
use tsnic::phc;
use tsnic::push::{self, PushOptions};
use tsnic::regs::DescFlags;
use tsnic::ring::{CplRing, QueueConfig, TxQueue};
use tsnic::rx::{self, RxCaps, RxPacket, RxQueue, RxQueueConfig};

#[allow(dead_code)] // only its Rng and watchdog here
mod common;
use common::{within_wall, Rng};

struct Outcome {
    log: Vec<String>,
    skipped_cycles: u64,
    jumps: u64,
    gate_held: [u64; tsnic_sim::GATED_BLOCKS.len()],
    /// RX frames received (stamped) and flash commands completed: a program that had none proves
    /// nothing about them.
    rx_received: usize,
    flash_done: usize,
    gate_check: Option<tsnic_sim::GateCheckStats>,
}

/// What the programs need of a simulated card beyond [`Backend`]: the core build's `SimBackend`
/// and the board build's `BoardBackend` (`sim:board[=NAME]`).
trait Dut: Backend {
    fn tap(&mut self) -> WireTap;
    fn now_ps(&mut self) -> u64;
    fn rx_inject(&mut self, bytes: Vec<u8>, at_ps: u64, bad: bool);
    fn attach_flash(&mut self, pins: Box<dyn tsnic_sim::FlashPins>);
    /// Per gated block, the clock edges at which it held and was not clocked (the core build: also
    /// with the check, where it would have held and was checked).
    fn gate_held(&mut self, tap: &WireTap) -> [u64; tsnic_sim::GATED_BLOCKS.len()];
    fn gate_check(&mut self, max_bytes: u64);
    fn gate_check_stats(&mut self) -> Option<tsnic_sim::GateCheckStats>;
}

impl Dut for SimBackend {
    fn tap(&mut self) -> WireTap {
        SimBackend::tap(self)
    }
    fn now_ps(&mut self) -> u64 {
        self.card().now_ps()
    }
    fn rx_inject(&mut self, bytes: Vec<u8>, at_ps: u64, bad: bool) {
        self.card().rx_inject(bytes, at_ps, bad);
    }
    fn attach_flash(&mut self, pins: Box<dyn tsnic_sim::FlashPins>) {
        self.card().attach_flash(pins).expect("flash pins");
    }
    fn gate_held(&mut self, tap: &WireTap) -> [u64; tsnic_sim::GATED_BLOCKS.len()] {
        tap.fast_forward_stats().gate_held
    }
    fn gate_check(&mut self, max_bytes: u64) {
        self.card()
            .gate_check(max_bytes)
            .expect("the model has the check");
    }
    fn gate_check_stats(&mut self) -> Option<tsnic_sim::GateCheckStats> {
        self.card().gate_check_stats()
    }
}

#[cfg(feature = "board")]
impl Dut for tsnic::device::sim_board::BoardBackend {
    fn tap(&mut self) -> WireTap {
        tsnic::device::sim_board::BoardBackend::tap(self)
    }
    fn now_ps(&mut self) -> u64 {
        self.card().now_ps()
    }
    fn rx_inject(&mut self, bytes: Vec<u8>, at_ps: u64, bad: bool) {
        self.card().rx_inject(bytes, at_ps, bad);
    }
    fn attach_flash(&mut self, pins: Box<dyn tsnic_sim::FlashPins>) {
        self.card().attach_flash(pins).expect("flash pins");
    }
    fn gate_held(&mut self, _tap: &WireTap) -> [u64; tsnic_sim::GATED_BLOCKS.len()] {
        self.card().gate_held()
    }
    fn gate_check(&mut self, _max_bytes: u64) {
        panic!("the board build has no gated blocks' check");
    }
    fn gate_check_stats(&mut self) -> Option<tsnic_sim::GateCheckStats> {
        None
    }
}

fn hash(bytes: &[u8]) -> u64 {
    bytes
        .iter()
        .fold(0u64, |a, &x| a.wrapping_mul(31).wrapping_add(x as u64))
}

fn log_rx(log: &mut Vec<String>, p: &RxPacket) {
    log.push(format!(
        "rx q{} status {} len {} frame_len {} arrival {} steer {:?} sum {}",
        p.queue,
        p.status,
        p.data.len(),
        p.frame_len,
        p.arrival_ns,
        p.steer_entry,
        hash(&p.data)
    ));
}

/// Every counter the host can read: the card's TX totals, each TX queue's, the RX totals and the RX
/// queue's.
const TX_COUNTERS: [usize; 11] = [
    reg::CNT_POSTED_LO,
    reg::CNT_SENT_LO,
    reg::CNT_SENT_LATE_LO,
    reg::CNT_DROPPED_LATE_LO,
    reg::CNT_DROPPED_HORIZON_LO,
    reg::CNT_FLUSHED_LO,
    reg::CNT_REJECTED_LO,
    reg::CNT_TX_BYTES_LO,
    reg::CNT_TX_BYTES_HI,
    reg::CNT_DMA_ERROR_LO,
    reg::CTRL_IRQ_STATUS,
];
const Q_COUNTERS: [usize; 8] = [
    reg::Q_CNT_POSTED,
    reg::Q_CNT_SENT,
    reg::Q_CNT_SENT_LATE,
    reg::Q_CNT_DROPPED_LATE,
    reg::Q_CNT_DROPPED_HORIZON,
    reg::Q_CNT_FLUSHED,
    reg::Q_CNT_REJECTED,
    reg::Q_CNT_DMA_ERROR,
];
const RX_COUNTERS: [usize; 8] = [
    reg::RX_CNT_FRAMES,
    reg::RX_CNT_BYTES,
    reg::RX_CNT_DROP_DISABLED,
    reg::RX_CNT_DROP_FULL,
    reg::RX_CNT_BAD_FCS,
    reg::RX_CNT_TOO_LONG,
    reg::RX_CNT_STEERED,
    reg::RX_CNT_DROP_MAC,
];

fn read_counters(b: &mut impl Backend, log: &mut Vec<String>, nq: u16, which: u64) {
    let mut v = Vec::new();
    if which & 1 != 0 {
        v.extend(TX_COUNTERS.iter().map(|&r| b.read32(r)));
    }
    if which & 2 != 0 {
        for q in 0..nq {
            let base = reg::Q_BASE + usize::from(q) * reg::Q_STRIDE;
            v.extend(Q_COUNTERS.iter().map(|&r| b.read32(base + r)));
        }
    }
    if which & 4 != 0 {
        v.extend(RX_COUNTERS.iter().map(|&r| b.read32(r)));
        v.push(b.read32(RxCaps::q_reg(0, reg::RXQ_CNT_FRAMES)));
        v.push(b.read32(RxCaps::q_reg(0, reg::RXQ_CNT_BYTES)));
    }
    log.push(format!("counters {which} {v:?}"));
}

/// A frame for the RX line: UDP/IPv4 to the card, its payload from `seed`.
fn rx_frame(len: usize, seed: u64) -> Vec<u8> {
    let mut f = vec![0u8; len];
    f[0..6].copy_from_slice(&[0x02, 0, 0, 0, 0, 2]);
    f[6..12].copy_from_slice(&[0x02, 0, 0, 0, 0, 1]);
    f[12..14].copy_from_slice(&[0x08, 0x00]);
    f[14] = 0x45;
    f[23] = 17;
    for (i, b) in f.iter_mut().enumerate().skip(42) {
        *b = (i as u64).wrapping_mul(0x9e37).wrapping_add(seed) as u8;
    }
    f
}

/// A flash command the program started through the FLASH registers and has not seen end.
#[derive(Clone, Copy)]
struct FlashCmd {
    op: u32,
    len: u32,
}

/// Start a random flash command (FLASH_ADDR, FLASH_LEN, the data for a PROGRAM, FLASH_CMD). The
/// command after a PROGRAM reads its data back (`last`).
fn flash_start(
    b: &mut impl Backend,
    rng: &mut Rng,
    log: &mut Vec<String>,
    n: u64,
    last: &mut Option<(u32, u32)>,
) -> FlashCmd {
    // a 64 KB region, erased, programmed and read in random order
    let pick = if last.is_some() { 5 } else { rng.below(6) };
    let (op, addr, len) = match pick {
        0 => (op::READ_ID, 0, 0),
        1 => (op::READ_STATUS, 0, 0),
        2 => (op::ERASE_4K, (rng.below(16) as u32) << 12, 0),
        3 => {
            let page = (rng.below(256) as u32) << 8;
            let off = (rng.below(48) as u32) * 4;
            (op::PROGRAM, page + off, 4 * rng.range(1, 16) as u32)
        }
        _ if last.is_some() => {
            let (a, l) = last.take().unwrap_or_default();
            (op::READ, a, l)
        }
        _ => (
            op::READ,
            (rng.below(16384) as u32) * 4,
            4 * rng.range(1, 16) as u32,
        ),
    };
    if op == op::PROGRAM {
        *last = Some((addr, len));
    }
    if matches!(op, op::READ | op::PROGRAM | op::ERASE_4K) {
        b.write32(reg::FLASH_ADDR, addr);
    }
    if matches!(op, op::READ | op::PROGRAM) {
        b.write32(reg::FLASH_LEN, len);
    }
    if op == op::PROGRAM {
        for i in 0..len / 4 {
            // bits only cleared: a mix of 0xff and programmed bytes
            let w = (u64::from(i) ^ n).wrapping_mul(0x2545_f491_4f6c_dd1d) >> 32;
            b.write32(reg::FLASH_DATA, w as u32 | 0x0f0f_0f0f);
        }
    }
    b.write32(reg::FLASH_CMD, op);
    log.push(format!("flash cmd {op} addr {addr:#x} len {len}"));
    FlashCmd { op, len }
}

/// Poll a flash command once: FLASH_STATUS, and what it read once it has ended. True if it ended.
fn flash_poll(b: &mut impl Backend, log: &mut Vec<String>, cmd: FlashCmd) -> bool {
    let st = b.read32(reg::FLASH_STATUS);
    log.push(format!("flash status {st:#x}"));
    if st & reg::FLASH_STATUS_BUSY != 0 {
        return false;
    }
    let data: Vec<u32> = match cmd.op {
        op::READ_ID => vec![b.read32(reg::FLASH_JEDEC_ID)],
        op::READ_STATUS => vec![b.read32(reg::FLASH_SR)],
        op::READ => (0..cmd.len / 4)
            .map(|_| b.read32(reg::FLASH_DATA))
            .collect(),
        _ => vec![b.read32(reg::FLASH_SR)],
    };
    log.push(format!("flash done {} {data:x?}", cmd.op));
    true
}

fn log_cpl(log: &mut Vec<String>, c: &Completion) {
    log.push(format!(
        "cpl q{} cookie {} idx {} status {} reason {} depart {} launch {} len {} flags {:#x}",
        c.queue,
        c.cookie,
        c.ring_index,
        c.status,
        c.reason,
        c.depart_ns,
        c.launch_ns,
        c.len,
        c.flags
    ));
}

/// One random host program on a fresh card of configuration `cfg`; `ff` turns the fast-forward on;
/// `check` (with `ff`) runs the gated blocks' check instead of gating, comparing memories of up to
/// that many bytes.
fn run(cfg: SimConfig, seed: u64, ff: bool, check: Option<u64>) -> Outcome {
    let b = SimBackend::new(SimConfig {
        fast_forward: ff,
        ..cfg
    })
    .expect("sim backend (is Verilator installed? `make deps`)");
    run_on(b, seed, ff, check, 1, 70)
}

/// The program of [`run`] on any card: `scale` divides the longer idle waits and launch-time
/// offsets (the board build, which steps every edge, runs it shorter; 1: the core build's program
/// as it was), `steps` host steps. `ff` only names the run in messages.
fn run_on<B: Dut>(
    mut b: B,
    seed: u64,
    ff: bool,
    check: Option<u64>,
    scale: u64,
    steps: u64,
) -> Outcome {
    let mut rng = Rng(seed);
    if let Some(max) = check {
        b.gate_check(max);
    }
    let tap = b.tap();
    let caps = Caps::read(&mut b).expect("card identifies itself");
    push::bring_up(&mut b, &PushOptions::default()).expect("card runs");
    let mut log = Vec::new();

    // The flash: a model part with short program and erase times (so that a program waits for a
    // few of each), on the card's flash pins; the FIFOs emptied once.
    let chip = NorFlash::new(
        128 << 20,
        tsnic::flash::MT25QU01G_ID,
        Timing {
            page_program_ns: 20_000,
            erase_4k_ns: 150_000,
            erase_64k_ns: 300_000,
            write_status_ns: 20_000,
        },
    );
    let flash = SimFlash::new(ModelCard::with_chip(Board::Generic, chip));
    b.attach_flash(flash.pins());
    let mut flash_cmd = Some(FlashCmd {
        op: op::FIFO_RESET,
        len: 0,
    });
    b.write32(reg::FLASH_CMD, op::FIFO_RESET);
    let mut flash_done = 0usize;
    let mut last_program = None;
    // The RX side: one queue of 8 buffers (it wraps), every frame to it.
    let rcaps = RxCaps::read(&mut b).expect("rx caps");
    let mut rxq = RxQueue::create(
        &mut b,
        &rcaps,
        0,
        &RxQueueConfig {
            ring_log2: 3,
            buf_size: 2048,
        },
    )
    .expect("rx queue");
    rx::set_default_queue(&mut b, &rcaps, 0).expect("default rx queue");
    rx::rx_enable(&mut b, true);
    let mut rx_got = Vec::new();
    let mut rx_received = 0usize;
    let mut injected = 0u64;

    let nq = 1 + rng.below(3) as u16;
    let mut cpl = CplRing::create(&mut b, &caps, 3).expect("completion ring");
    let mut capped = Vec::new();
    let mut queues: Vec<TxQueue> = (0..nq)
        .map(|q| {
            let cfg = QueueConfig {
                ring_log2: 2 + rng.below(2) as u32,
                buffers: 0,
                buf_size: 1536,
                batch: 1 + rng.below(3) as u32,
                late: if rng.below(3) == 0 {
                    LatePolicy::Drop
                } else {
                    LatePolicy::Send
                },
                horizon: if rng.below(2) == 0 {
                    HorizonPolicy::Drop
                } else {
                    HorizonPolicy::Cap
                },
                quota: 0,
            };
            capped.push(cfg.horizon == HorizonPolicy::Cap);
            TxQueue::create(&mut b, &caps, q, &cfg).expect("queue")
        })
        .collect();
    let mut enabled = vec![true; nq as usize];
    // Interrupts with moderation by count and, half the time, by time.
    b.write32(reg::CTRL_IRQ_MOD_COUNT, 1 + rng.below(3) as u32);
    let mod_time = if rng.below(2) == 0 { 0 } else { 5_000 };
    b.write32(reg::CTRL_IRQ_MOD_TIME_NS, mod_time);
    b.write32(reg::CTRL_IRQ_CTRL, reg::CTRL_IRQ_CTRL_ENABLE);

    let mut frame = vec![0u8; 1536];
    let mut cpls = Vec::new();
    let mut posted = 0u64;
    for step in 0..steps {
        match rng.below(16) {
            // post a few frames on one queue
            0..=3 => {
                let q = rng.below(u64::from(nq)) as usize;
                if !enabled[q] {
                    continue;
                }
                let tq = &mut queues[q];
                for _ in 0..rng.range(1, 4) {
                    let now = phc::get_ns(&mut b);
                    let launch = match rng.below(10) {
                        0 => now.saturating_sub(rng.range(1, 20_000)), // late
                        1..=4 => now + rng.range(0, 20_000) / scale,   // near
                        5..=8 => now + rng.range(50_000, 3_000_000) / scale, // coarse wheel
                        // beyond the horizon: dropped at once, or (capped) a few ms ahead, so that the
                        // run stepping every cycle stays short
                        _ if capped[q] => now + rng.range(3_000_000, 6_000_000) / scale,
                        _ => now + caps.horizon_ns + rng.range(1, 1_000_000_000),
                    };
                    let len = rng.range(60, 1514) as usize;
                    for (i, byte) in frame[..len].iter_mut().enumerate() {
                        *byte = (i as u64 ^ posted ^ seed) as u8;
                    }
                    match tq.post(&mut b, &frame[..len], launch, DescFlags::empty()) {
                        Ok(Ok(cookie)) => {
                            posted += 1;
                            log.push(format!(
                                "post q{q} cookie {cookie} launch {launch} len {len}"
                            ));
                        }
                        Ok(Err(full)) => log.push(format!("full q{q} {full:?}")),
                        Err(e) => panic!("post: {e}"),
                    }
                }
                tq.doorbell(&mut b);
            }
            // idle time, the longer the better for the fast-forward
            4..=6 => {
                let ns = match rng.below(3) {
                    0 => rng.range(100, 5_000),
                    1 => rng.range(20_000, 300_000) / scale,
                    _ => rng.range(500_000, 1_500_000) / scale,
                };
                b.wait_ns(ns).unwrap();
            }
            // wait for the interrupt, with a timeout; acknowledge it
            7 => {
                let rose = b.wait_irq(rng.range(1_000, 1_000_000)).unwrap();
                let st = b.read32(reg::CTRL_IRQ_STATUS);
                b.write32(reg::CTRL_IRQ_STATUS, st);
                log.push(format!("irq {rose} status {st:#x}"));
            }
            // PHC: a frequency trim or a step, in either direction
            8 => match rng.below(3) {
                0 => {
                    let ppb = rng.range(0, 200_000) as i64 - 100_000;
                    phc::adjfine(&mut b, ppb).unwrap();
                    log.push(format!("adjfine {ppb}"));
                }
                1 => {
                    let d = rng.range(0, 400_000) as i64 - 200_000;
                    phc::adjtime(&mut b, d);
                    log.push(format!("adjtime {d}"));
                }
                _ => {
                    // often just before a whole second, so that idle time crosses it (the seconds
                    // view rolls over and pps pulses there)
                    let now = phc::get_ns(&mut b);
                    let t = if rng.below(2) == 0 {
                        (now / 1_000_000_000 + 1 + rng.below(3)) * 1_000_000_000
                            - rng.range(1, 2_000_000)
                    } else {
                        now + rng.range(0, 2_000_000_000)
                    };
                    phc::set(&mut b, t);
                    log.push(format!("set {t}"));
                }
            },
            // flush: disable a queue (what it holds comes back FLUSHED); keep one queue
            9 if step > 20 => {
                let q = rng.below(u64::from(nq)) as usize;
                if enabled[q] && enabled.iter().filter(|&&e| e).count() > 1 {
                    // what it holds comes back FLUSHED; nothing more is posted to it
                    queues[q].disable(&mut b, &caps);
                    enabled[q] = false;
                    log.push(format!("disable q{q}"));
                }
            }
            // read the clock
            10 => {
                let t = phc::get(&mut b);
                assert_eq!(
                    t.sec * 1_000_000_000 + u64::from(t.nsec),
                    t.ns,
                    "seconds view"
                );
                log.push(format!("phc {t:?}"));
            }
            // frames arriving on the RX line ahead of now, often with an idle wait at once that
            // runs past them (a jump must stop before each arrival)
            11 | 12 => {
                let ahead = match rng.below(3) {
                    0 => rng.range(0, 5_000),
                    1 => rng.range(20_000, 300_000) / scale,
                    _ => rng.range(300_000, 1_200_000) / scale,
                };
                let at = b.now_ps() + ahead * 1000;
                for k in 0..rng.range(1, 3) {
                    let len = rng.range(60, 1514) as usize;
                    let bad = rng.below(8) == 0;
                    // the same time for all: the line queues them back to back
                    b.rx_inject(rx_frame(len, seed ^ injected), at + k, bad);
                    injected += 1;
                    log.push(format!("rx inject at {} len {len} bad {bad}", at + k));
                }
                if rng.below(3) != 0 {
                    b.wait_ns(ahead + rng.range(1_000, 200_000)).unwrap();
                }
            }
            // the flash: poll the command under way, or start one
            13 | 15 => match flash_cmd {
                Some(c) => {
                    if flash_poll(&mut b, &mut log, c) {
                        flash_cmd = None;
                        flash_done += 1;
                    }
                }
                None => {
                    flash_cmd = Some(flash_start(
                        &mut b,
                        &mut rng,
                        &mut log,
                        step,
                        &mut last_program,
                    ))
                }
            },
            // counters: some or all of them
            14 => read_counters(&mut b, &mut log, nq, rng.range(1, 7)),
            _ => {}
        }
        // received frames: take them (the ring recycles its 8 buffers)
        let before = rx_got.len();
        rxq.poll(&mut b, &mut rx_got, 64).expect("rx poll");
        for p in &rx_got[before..] {
            log_rx(&mut log, p);
        }
        // completions: take them back (the completion ring has 8 entries: it wraps often)
        cpls.clear();
        cpl.poll(&mut b, &mut cpls, 64);
        for c in &cpls {
            log_cpl(&mut log, c);
            queues[c.queue as usize]
                .complete(c)
                .expect("completion for a posted descriptor");
        }
    }
    // Close as a driver does: disable every queue still enabled, so what the card holds comes back
    // FLUSHED (a PHC set can leave an entry seconds ahead). A disabled queue keeps the descriptors
    // it had not fetched yet (docs/DATAPATH.md, CTRL.ENABLE: it fetches them when re-enabled), here
    // and at the disables above: once its flush is done they are Q_PROD - Q_CONS, and stay in the
    // ring. Every other posted descriptor completes, and no more than those.
    for (q, tq) in queues.iter_mut().enumerate() {
        if enabled[q] {
            tq.disable(&mut b, &caps);
            log.push(format!("disable q{q}"));
        }
    }
    let mut unfetched = 0u64;
    for q in 0..nq {
        let mut polls = 0;
        while b.read32(caps.q_reg(q, reg::Q_STATUS)) & reg::Q_STATUS_FLUSH_BUSY != 0 {
            polls += 1;
            assert!(
                polls < 10_000,
                "seed {seed} ff {ff}: q{q}'s flush never ended"
            );
            b.wait_ns(1_000).unwrap();
        }
        let prod = b.read32(caps.q_reg(q, reg::Q_PROD));
        let cons = b.read32(caps.q_reg(q, reg::Q_CONS));
        let left = u64::from(prod.wrapping_sub(cons) & 0xffff);
        log.push(format!("q{q} prod {prod} cons {cons}: {left} not fetched"));
        unfetched += left;
    }
    let expect = posted - unfetched;
    let mut got = log.iter().filter(|l| l.starts_with("cpl ")).count() as u64;
    let mut waited = 0u64;
    let mut after = 0;
    // until every expected completion is in, and 200 us more for any beyond them
    while (got < expect || after < 4) && waited < 20_000_000 {
        if got >= expect {
            after += 1;
        }
        b.wait_ns(50_000).unwrap();
        waited += 50_000;
        cpls.clear();
        cpl.poll(&mut b, &mut cpls, 64);
        for c in &cpls {
            log_cpl(&mut log, c);
            got += 1;
        }
    }
    assert_eq!(
        got,
        expect,
        "seed {seed} ff {ff}: every posted descriptor the card fetched completes ({posted} posted, {unfetched} left unfetched in disabled queues); the program:\n{}",
        log.join("\n")
    );
    // the flash command under way ends; every injected frame is received or counted dropped
    let mut polls = 0;
    while let Some(c) = flash_cmd {
        polls += 1;
        assert!(
            polls < 1000,
            "seed {seed} ff {ff}: the flash command never ended"
        );
        if flash_poll(&mut b, &mut log, c) {
            flash_cmd = None;
            flash_done += 1;
        } else {
            b.wait_ns(20_000).unwrap();
        }
    }
    let mut waited = 0u64;
    loop {
        let before = rx_got.len();
        rxq.poll(&mut b, &mut rx_got, 64).expect("rx poll");
        for p in &rx_got[before..] {
            log_rx(&mut log, p);
        }
        let dropped = u64::from(b.read32(reg::RX_CNT_DROP_FULL))
            + u64::from(b.read32(reg::RX_CNT_DROP_DISABLED));
        if rx_got.len() as u64 + dropped >= injected || waited > 5_000_000 {
            break;
        }
        b.wait_ns(50_000).unwrap();
        waited += 50_000;
    }
    rx_received += rx_got.len();
    read_counters(&mut b, &mut log, nq, 7);
    b.wait_ns(1_000).unwrap();
    for f in tap.take() {
        log.push(format!(
            "wire at {} ps, {} bytes, sum {}",
            f.first_beat_ps,
            f.bytes.len(),
            hash(&f.bytes)
        ));
    }
    for a in tap.take_rx_arrivals() {
        log.push(format!(
            "rx line {} bytes from {} ps, first beat {} ps (cycle {}), free at {} ps",
            a.len, a.start_ps, a.first_beat_ps, a.first_beat_cycle, a.end_ps
        ));
    }
    log.push(format!("cycles {}", tap.cycles()));
    let gate_held = b.gate_held(&tap);
    let gate_check = check.and_then(|_| b.gate_check_stats());
    let ff_stats = tap.fast_forward_stats();
    Outcome {
        log,
        skipped_cycles: ff_stats.cycles,
        jumps: ff_stats.jumps,
        gate_held,
        rx_received,
        flash_done,
        gate_check,
    }
}

/// Runs `seeds` programs on `cfg` stepping every cycle and with the fast-forward, and compares.
fn exact_on(cfg: SimConfig, seeds: std::ops::RangeInclusive<u64>, what: &str) {
    if let Some(why) = tsnic_sim::core_unavailable() {
        panic!("the simulator was not built: {why}");
    }
    for seed in seeds {
        let slow = within_wall(&format!("{what} seed {seed}, stepped"), move || {
            run(cfg, seed, false, None)
        });
        let fast = within_wall(&format!("{what} seed {seed}, skipped"), move || {
            run(cfg, seed, true, None)
        });
        assert_eq!(slow.jumps, 0, "fast-forward off must not jump");
        // TSNIC_SIM_GATE=check (sim/card/bench/gate_check.sh) checks the holds of both runs instead
        // of taking them, and =0 turns the gates off: then only the rest applies
        let gate_env = std::env::var("TSNIC_SIM_GATE").ok();
        if gate_env.is_none() {
            assert_eq!(
                slow.gate_held,
                [0; tsnic_sim::GATED_BLOCKS.len()],
                "fast-forward off must not gate any block"
            );
        }
        assert!(
            fast.jumps > 0 && fast.skipped_cycles > 0,
            "{what} seed {seed}: the fast-forward skipped nothing, so this run proves nothing"
        );
        assert!(
            fast.rx_received > 0 && fast.flash_done >= 2,
            "{what} seed {seed}: {} frames received, {} flash commands: this run proves nothing about them",
            fast.rx_received,
            fast.flash_done
        );
        if gate_env.as_deref() != Some("0") {
            for (block, held) in tsnic_sim::GATED_BLOCKS.iter().zip(fast.gate_held) {
                assert!(
                    held > 0,
                    "{what} seed {seed}: the {block} never held, so this run proves nothing about its gate"
                );
            }
        }
        if std::env::var_os("TSNIC_FF_LOG").is_some() {
            eprintln!("{what} seed {seed}, stepped:\n{}", slow.log.join("\n"));
        }
        if slow.log != fast.log {
            let first = slow
                .log
                .iter()
                .zip(&fast.log)
                .position(|(a, b)| a != b)
                .unwrap_or(slow.log.len().min(fast.log.len()));
            panic!(
                "{what} seed {seed}: fast-forward changed what the host sees at event {first}:\n stepped: {:?}\n skipped: {:?}\n(events before: {:?})",
                slow.log.get(first),
                fast.log.get(first),
                &slow.log[first.saturating_sub(3)..first]
            );
        }
        let cycles: u64 = slow
            .log
            .last()
            .and_then(|l| l.strip_prefix("cycles "))
            .and_then(|c| c.parse().ok())
            .unwrap_or(0);
        eprintln!(
            "{what} seed {seed}: {} events identical ({} frames received, {} flash commands); {} of {} cycles skipped in {} jumps; of the rest, not clocked: {:?} ({:?})",
            slow.log.len(),
            fast.rx_received,
            fast.flash_done,
            fast.skipped_cycles,
            cycles,
            fast.jumps,
            fast.gate_held,
            tsnic_sim::GATED_BLOCKS
        );
    }
}

fn env_seeds(var: &str, default: u64) -> u64 {
    std::env::var(var)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

/// The programs of seeds 1..=TSNIC_FF_SEEDS (default 10) on the 64-bit card, in two tests (the first
/// half and the rest) so that a test runner can run them on two cores at once.
#[test]
fn fast_forward_is_exact_on_random_host_programs() {
    let n = env_seeds("TSNIC_FF_SEEDS", 10);
    exact_on(SimConfig::default(), 1..=n / 2, "64-bit");
}

/// See [`fast_forward_is_exact_on_random_host_programs`].
#[test]
fn fast_forward_is_exact_on_more_random_host_programs() {
    let n = env_seeds("TSNIC_FF_SEEDS", 10);
    exact_on(SimConfig::default(), n / 2 + 1..=n, "64-bit");
}

/// The same programs on the 512-bit (100G) card: its own descriptor fetch, completion writer, RX
/// path and wire pace.
#[cfg(feature = "wide")]
#[test]
fn fast_forward_is_exact_on_the_512_bit_card() {
    exact_on(
        SimConfig::wide_100g(),
        1..=env_seeds("TSNIC_FF_WIDE_SEEDS", 2),
        "512-bit",
    );
}

/// The gated blocks' check on the programs: no register of a block changes at an edge where the
/// block would hold, every block held, and each block had at least `GATE_CHECK_MIN_REGS` registers
/// compared in every checked cycle (memories of up to 16 KB each too).
#[test]
fn gate_check_holds_on_random_programs() {
    if let Some(why) = tsnic_sim::core_unavailable() {
        panic!("the simulator was not built: {why}");
    }
    for seed in 1..=env_seeds("TSNIC_GATE_CHECK_SEEDS", 3) {
        let o = within_wall(&format!("gate check seed {seed}"), move || {
            run(SimConfig::default(), seed, true, Some(16384))
        });
        let st = o.gate_check.expect("the check's counts");
        eprint!("seed {seed}:\n{}", st.summary());
        if let Err(why) = st.verdict(true) {
            panic!("seed {seed}: gate check: {why}");
        }
        assert!(o.rx_received > 0 && o.flash_done >= 2);
    }
}

/// One program on a fresh board card (`sim:board[=NAME]`), its gated blocks left unclocked where
/// they hold (`gated`) or every block clocked at every PCIe clock edge. The board has no idle
/// fast-forward (docs/ARCHITECTURE.md, "Gated blocks on the board": its MAC-side PHC copies and
/// clock crossings change at every edge, and no jump reproduces them yet), so the program is
/// shorter: idle waits and launch offsets a quarter of the core build's, 50 steps.
#[cfg(feature = "board")]
fn run_board(model: tsnic_sim::board::BoardModel, seed: u64, gated: bool) -> Outcome {
    use tsnic_sim::board::BoardConfig;
    let mut cfg = if model.is_alveo() {
        BoardConfig::alveo(model)
    } else {
        BoardConfig::default()
    };
    cfg.gated = gated;
    let b = tsnic::device::sim_board::BoardBackend::new(cfg).expect("board backend");
    assert_eq!(
        b.gated(),
        gated && std::env::var("TSNIC_SIM_GATE").as_deref() != Ok("0")
    );
    run_on(b, seed, gated, None, 4, 50)
}

/// The board core's gated blocks are exact: the same programs (TX posts, idle waits, PHC steps and
/// trims, flushes, interrupt waits, RX frames, flash commands, every counter) on the board with
/// every block clocked and with the gates, everything the host sees identical: completions with
/// their departure stamps, the wire's frames with the simulated time of their first beat, the RX
/// line's arrival records and the received frames' stamps, PHC readings, counters, the final cycle
/// count. Each gated run must have held every block.
#[cfg(feature = "board")]
fn gates_exact_on_board(model: tsnic_sim::board::BoardModel, seeds: std::ops::RangeInclusive<u64>) {
    let what = format!("board {}", model.name());
    for seed in seeds {
        let plain = within_wall(
            &format!("{what} seed {seed}, every block clocked"),
            move || run_board(model, seed, false),
        );
        let gated = within_wall(&format!("{what} seed {seed}, gated"), move || {
            run_board(model, seed, true)
        });
        assert_eq!(
            plain.gate_held,
            [0; tsnic_sim::GATED_BLOCKS.len()],
            "{what}: with the gates off no block may be left unclocked"
        );
        if std::env::var("TSNIC_SIM_GATE").as_deref() != Ok("0") {
            for (block, held) in tsnic_sim::GATED_BLOCKS.iter().zip(gated.gate_held) {
                assert!(
                    held > 0,
                    "{what} seed {seed}: the {block} never held, so this run proves nothing about its gate"
                );
            }
        }
        assert!(
            gated.rx_received > 0 && gated.flash_done >= 2,
            "{what} seed {seed}: {} frames received, {} flash commands: this run proves nothing about them",
            gated.rx_received,
            gated.flash_done
        );
        assert!(
            gated.log.iter().any(|l| l.starts_with("wire at")),
            "{what} seed {seed}: nothing was sent"
        );
        if std::env::var_os("TSNIC_FF_LOG").is_some() {
            eprintln!(
                "{what} seed {seed}, every block clocked:\n{}",
                plain.log.join("\n")
            );
        }
        if plain.log != gated.log {
            let first = plain
                .log
                .iter()
                .zip(&gated.log)
                .position(|(a, b)| a != b)
                .unwrap_or(plain.log.len().min(gated.log.len()));
            panic!(
                "{what} seed {seed}: the gates changed what the host sees at event {first}:\n clocked: {:?}\n   gated: {:?}\n(events before: {:?})",
                plain.log.get(first),
                gated.log.get(first),
                &plain.log[first.saturating_sub(3)..first]
            );
        }
        eprintln!(
            "{what} seed {seed}: {} events identical ({} frames received, {} flash commands); not clocked: {:?} ({:?})",
            plain.log.len(),
            gated.rx_received,
            gated.flash_done,
            gated.gate_held,
            tsnic_sim::GATED_BLOCKS
        );
    }
}

#[cfg(feature = "board")]
#[test]
fn gates_are_exact_on_the_sume_board() {
    gates_exact_on_board(
        tsnic_sim::board::BoardModel::Sume,
        1..=env_seeds("TSNIC_FF_BOARD_SEEDS", 1),
    );
}

#[cfg(feature = "alveo")]
#[test]
fn gates_are_exact_on_the_alveo_u50_board() {
    gates_exact_on_board(
        tsnic_sim::board::BoardModel::AlveoU50,
        1..=env_seeds("TSNIC_FF_BOARD_SEEDS", 1),
    );
}
