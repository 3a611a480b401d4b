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
//! moderation, and rings small enough that descriptor and completion rings wrap many times. A run in
//! which the fast-forward skipped nothing, or a gated block never held, would prove nothing, so each
//! program also checks that neither happened.

use tsnic::contract::{reg, Completion, HorizonPolicy, LatePolicy};
use tsnic::device::sim::{SimBackend, SimConfig};
use tsnic::device::{Backend, Caps};
use tsnic::phc;
use tsnic::push::{self, PushOptions};
use tsnic::regs::DescFlags;
use tsnic::ring::{CplRing, QueueConfig, TxQueue};

#[allow(dead_code)] // only its Rng here
mod common;
use common::Rng;

struct Outcome {
    log: Vec<String>,
    skipped_cycles: u64,
    jumps: u64,
    gate_held: [u64; tsnic_sim::GATED_BLOCKS.len()],
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

/// One random host program on a fresh card; `ff` turns the fast-forward on.
fn run(seed: u64, ff: bool) -> Outcome {
    let mut rng = Rng(seed);
    let mut b = SimBackend::new(SimConfig {
        fast_forward: ff,
        ..SimConfig::default()
    })
    .expect("sim backend (is Verilator installed? `make deps`)");
    let tap = b.tap();
    let caps = Caps::read(&mut b).expect("card identifies itself");
    push::bring_up(&mut b, &PushOptions::default()).expect("card runs");
    let mut log = Vec::new();

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
    for step in 0..70 {
        match rng.below(12) {
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
                        1..=4 => now + rng.range(0, 20_000),           // near
                        5..=8 => now + rng.range(50_000, 3_000_000),   // coarse wheel
                        // beyond the horizon: dropped at once, or (capped) a few ms ahead, so that the
                        // run stepping every cycle stays short
                        _ if capped[q] => now + rng.range(3_000_000, 6_000_000),
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
                    1 => rng.range(20_000, 300_000),
                    _ => rng.range(500_000, 1_500_000),
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
            _ => {}
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
    // FLUSHED (a PHC set can leave an entry seconds ahead). Then every posted descriptor completes.
    for (q, tq) in queues.iter_mut().enumerate() {
        if enabled[q] {
            tq.disable(&mut b, &caps);
            log.push(format!("disable q{q}"));
        }
    }
    let mut got = log.iter().filter(|l| l.starts_with("cpl ")).count() as u64;
    let mut waited = 0u64;
    while got < posted && waited < 20_000_000 {
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
        got, posted,
        "seed {seed} ff {ff}: every posted descriptor completes"
    );
    b.wait_ns(1_000).unwrap();
    for f in tap.take() {
        log.push(format!(
            "wire at {} ps, {} bytes, sum {}",
            f.first_beat_ps,
            f.bytes.len(),
            f.bytes
                .iter()
                .fold(0u64, |a, &x| a.wrapping_mul(31).wrapping_add(x as u64))
        ));
    }
    log.push(format!("cycles {}", tap.cycles()));
    let ff_stats = tap.fast_forward_stats();
    Outcome {
        log,
        skipped_cycles: ff_stats.cycles,
        jumps: ff_stats.jumps,
        gate_held: ff_stats.gate_held,
    }
}

#[test]
fn fast_forward_is_exact_on_random_host_programs() {
    if let Some(why) = tsnic_sim::core_unavailable() {
        panic!("the simulator was not built: {why}");
    }
    let seeds: u64 = std::env::var("TSNIC_FF_SEEDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(10);
    for seed in 1..=seeds {
        let slow = run(seed, false);
        let fast = run(seed, true);
        assert_eq!(slow.jumps, 0, "fast-forward off must not jump");
        // TSNIC_SIM_GATE=check (a check build, sim/card/bench/gate_check.sh) checks the holds of
        // both runs instead of taking them, and =0 turns the gates off: then only the rest applies
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
            "seed {seed}: the fast-forward skipped nothing, so this run proves nothing"
        );
        if gate_env.as_deref() != Some("0") {
            for (block, held) in tsnic_sim::GATED_BLOCKS.iter().zip(fast.gate_held) {
                assert!(
                    held > 0,
                    "seed {seed}: the {block} never held, so this run proves nothing about its gate"
                );
            }
        }
        if slow.log != fast.log {
            let first = slow
                .log
                .iter()
                .zip(&fast.log)
                .position(|(a, b)| a != b)
                .unwrap_or(slow.log.len().min(fast.log.len()));
            panic!(
                "seed {seed}: fast-forward changed what the host sees at event {first}:\n stepped: {:?}\n skipped: {:?}\n(events before: {:?})",
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
            "seed {seed}: {} events identical; {} of {} cycles skipped in {} jumps; of the rest, not clocked: {:?} ({:?})",
            slow.log.len(),
            fast.skipped_cycles,
            cycles,
            fast.jumps,
            fast.gate_held,
            tsnic_sim::GATED_BLOCKS
        );
    }
}
