//! The PCIe budget (sim/card/bench/pcie_budget.py, docs/DATAPATH.md "PCIe budget of the transmit
//! path") against the board co-simulation (`sim:board`): a push of one frame size, and the link
//! bytes per frame the link model counted in each direction (TLPs with their framing, DLLPs) and its
//! transmitter's busy time must agree with the script's figures for the same settings within 2 %.
//!
//! The script predicts everything the card does from the RTL's rules (descriptor bursts, payload
//! reads in whole bus words cut at 4 KiB and MRRS, the host's completion split, 32 bytes of completion
//! record per frame); what the driver chooses is measured and handed to it: BAR0 writes and reads per
//! frame (doorbells, CPL_CONS, setup) and MSI-X messages per frame (the moderation). So is how many
//! completion records the card coalesced into each write (tsnic_cpl_write puts records together only
//! while the write path pushes back, which depends on timing the script does not model); it must be
//! between 1 and the writer's burst (8). The bytes of all of those are still the script's.
//!
//! One entry per board build in [`builds`]: the SUME (Gen3 x8, 256 bits). The Gen3 x16 512-bit build
//! adds its own entry (its `BoardConfig`, `bus_bits` 512, its line rate).
#![cfg(feature = "board")]

use tsnic::device::sim_board::BoardBackend;
use tsnic::device::Card;
use tsnic::push::{self, JobFrame, PushOptions};
use tsnic::trace;
use tsnic_sim::board::{BoardConfig, LinkStats, PcieConfig, PcieStats};

mod common;
use common::{core_ready, repo};

/// A board build as the script needs to know it.
struct Build {
    name: &'static str,
    cfg: BoardConfig,
    /// The hard block's interface width (`tsnic_board_core` DATA_W).
    bus_bits: u32,
    /// Line rate, Gb/s (frames are launched back to back at it).
    line_gbps: u64,
}

fn builds() -> Vec<Build> {
    #[allow(unused_mut)]
    let mut v = vec![Build {
        name: "SUME (Gen3 x8, 256-bit)",
        cfg: BoardConfig::default(),
        bus_bits: 256,
        line_gbps: 10,
    }];
    // The Alveo build at the link model's defaults (Gen3 x16, 512-bit), as DATAPATH.md's budget
    // tables state them.
    #[cfg(feature = "alveo")]
    v.push(Build {
        name: "Alveo U50 (Gen3 x16, 512-bit)",
        cfg: BoardConfig::alveo(tsnic_sim::board::BoardModel::AlveoU50),
        bus_bits: 512,
        line_gbps: 100,
    });
    v
}

/// Agreement required, as a share of the script's figure.
const TOLERANCE: f64 = 0.02;

/// Most completion records tsnic_cpl_write puts in one write (2^CPL_MAX_BURST_LOG2, the default of
/// tsnic_core and tsnic_board_core).
const CPL_BURST: f64 = 8.0;

struct Measured {
    frames: u64,
    delta: PcieStats,
}

fn sub(a: LinkStats, b: LinkStats) -> LinkStats {
    LinkStats {
        tlps: a.tlps - b.tlps,
        tlp_bytes: a.tlp_bytes - b.tlp_bytes,
        payload_bytes: a.payload_bytes - b.payload_bytes,
        dllp_bytes: a.dllp_bytes - b.dllp_bytes,
        busy_ps: a.busy_ps - b.busy_ps,
    }
}

/// Push `n` frames of `len` bytes on queue 0, launched back to back at the line rate; the link
/// model's counters over the push (open and bring-up before it left out).
fn push_on_board(b: &Build, len: u32, n: u64) -> Measured {
    let mut be = BoardBackend::new(b.cfg).expect("board backend");
    let stats = be.stats_tap();
    let mut card = Card::from_backend(Box::new(be), "sim:board".into()).expect("board card");
    let gap = (u64::from(len) + 24) * 8 / b.line_gbps; // FCS, preamble + SFD, IFG
    let t0 = push::phc_now(card.backend()) + 40_000;
    let frames: Vec<JobFrame> = (0..n)
        .map(|i| JobFrame {
            index: i,
            queue: 0,
            len,
            launch_ns: t0 + i * gap,
        })
        .collect();
    struct Gen;
    impl push::FrameSource for Gen {
        fn frame(&self, f: &JobFrame, out: &mut Vec<u8>) {
            trace::build_frame(f.index, f.index, f.len as usize, out);
        }
    }
    let opts = PushOptions {
        lookahead_ns: Some(8000),
        ..PushOptions::default()
    };
    let before = stats.get();
    let out = push::run(&mut card, &frames, &Gen, &opts, &mut |_, _| {}).expect("push");
    let after = stats.get();
    let sent = out.results.iter().filter(|r| r.on_wire()).count() as u64;
    assert_eq!(sent, n, "{}: not every frame was sent", b.name);
    let mut delta = after;
    delta.down = sub(after.down, before.down);
    delta.up = sub(after.up, before.up);
    for (d, a, bb) in [
        (&mut delta.bar_reads, after.bar_reads, before.bar_reads),
        (&mut delta.bar_writes, after.bar_writes, before.bar_writes),
        (&mut delta.dma_reads, after.dma_reads, before.dma_reads),
        (
            &mut delta.completions,
            after.completions,
            before.completions,
        ),
        (&mut delta.dma_writes, after.dma_writes, before.dma_writes),
        (&mut delta.interrupts, after.interrupts, before.interrupts),
    ] {
        *d = a - bb;
    }
    assert_eq!(
        delta.iommu_faults + delta.ur_completions + delta.bad_requests + delta.buf_overruns,
        0,
        "{delta:?}"
    );
    Measured { frames: n, delta }
}

/// The script's budget for one frame size with the build's settings and the measured driver rates.
fn script(b: &Build, len: u32, m: &Measured) -> serde_json::Value {
    let p = &b.cfg.pcie;
    let per = |x: u64| format!("{}", x as f64 / m.frames as f64);
    // every RQ write of a TX push is a completion write (MSI-X goes through the cfg interface)
    let recs_per_write = m.frames as f64 / m.delta.dma_writes as f64;
    assert!(
        (1.0..=CPL_BURST).contains(&recs_per_write),
        "{}: {} completion writes for {} frames: {recs_per_write:.3} records per write, outside 1..={CPL_BURST}",
        b.name,
        m.delta.dma_writes,
        m.frames
    );
    let py = std::env::var("PYTHON").unwrap_or_else(|_| "python3".into());
    let args: Vec<String> = vec![
        repo()
            .join("sim/card/bench/pcie_budget.py")
            .display()
            .to_string(),
        "--json".into(),
        format!("--lanes={}", p.lanes),
        format!("--bus-bits={}", b.bus_bits),
        format!("--mps={}", p.mps),
        format!("--mrrs={}", p.mrrs),
        format!("--rcb={}", p.rcb),
        format!("--cpl-max={}", p.cpl_max),
        format!("--dllp-share={}", p.dllp_share),
        format!("--skp-interval={}", p.skp_interval),
        format!("--line-gbps={}", b.line_gbps),
        format!("--bar-writes-per-frame={}", per(m.delta.bar_writes)),
        format!("--bar-reads-per-frame={}", per(m.delta.bar_reads)),
        format!("--msix-per-frame={}", per(m.delta.interrupts)),
        format!("--cpl-burst={CPL_BURST}"),
        format!("--cpl-per-write={recs_per_write}"),
        format!("--sizes={len}"),
    ];
    let o = std::process::Command::new(&py)
        .args(&args)
        .output()
        .unwrap_or_else(|e| panic!("run {py} {args:?}: {e} (set PYTHON to a Python 3)"));
    assert!(
        o.status.success(),
        "pcie_budget.py {args:?} failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("the script's JSON");
    v["frames"][0].clone()
}

fn check(b: &Build, len: u32, n: u64) {
    let t = std::time::Instant::now();
    let m = push_on_board(b, len, n);
    let s = script(b, len, &m);
    let f = m.frames as f64;
    let d = &m.delta;
    let rows = [
        (
            "down bytes/frame",
            (d.down.tlp_bytes + d.down.dllp_bytes) as f64 / f,
            s["down"]["bytes"].as_f64().unwrap(),
        ),
        (
            "up bytes/frame",
            (d.up.tlp_bytes + d.up.dllp_bytes) as f64 / f,
            s["up"]["bytes"].as_f64().unwrap(),
        ),
        (
            "down busy ns/frame",
            d.down.busy_ps as f64 / 1000.0 / f,
            s["down_ns"].as_f64().unwrap(),
        ),
        (
            "up busy ns/frame",
            d.up.busy_ps as f64 / 1000.0 / f,
            s["up_ns"].as_f64().unwrap(),
        ),
        (
            "down TLPs/frame",
            d.down.tlps as f64 / f,
            s["down"]["tlps"].as_f64().unwrap(),
        ),
        (
            "up TLPs/frame",
            d.up.tlps as f64 / f,
            s["up"]["tlps"].as_f64().unwrap(),
        ),
    ];
    eprintln!(
        "{} {len}-byte frames x {n}: {} DMA reads, {} completions, {} DMA writes ({:.3} records \
         each), {} MSI-X, {} BAR0 writes, {} BAR0 reads ({:.1} s wall)",
        b.name,
        d.dma_reads,
        d.completions,
        d.dma_writes,
        m.frames as f64 / d.dma_writes as f64,
        d.interrupts,
        d.bar_writes,
        d.bar_reads,
        t.elapsed().as_secs_f64()
    );
    let mut bad = Vec::new();
    for (what, measured, budget) in rows {
        let err = (measured - budget) / budget;
        eprintln!(
            "  {what:20} measured {measured:9.2}  budget {budget:9.2}  {:+.2} %",
            100.0 * err
        );
        if err.abs() > TOLERANCE {
            bad.push(format!(
                "{what}: measured {measured:.2}, budget {budget:.2} ({:+.2} %)",
                100.0 * err
            ));
        }
    }
    assert!(
        bad.is_empty(),
        "{} {len}-byte frames: the link model and the budget disagree by more than {} %: {}",
        b.name,
        100.0 * TOLERANCE,
        bad.join("; ")
    );
}

#[test]
fn budget_agrees_with_the_board_link_60_byte_frames() {
    if !core_ready() {
        return;
    }
    for b in builds() {
        check(&b, 60, 256);
    }
}

#[test]
fn budget_agrees_with_the_board_link_1500_byte_frames() {
    if !core_ready() {
        return;
    }
    for b in builds() {
        check(&b, 1500, 96);
    }
}

/// The budget's other host settings on the same build: a root complex that sends one completion per
/// 64-byte RCB, and RCB 128 with MPS 512 (MPS-sized and RCB-sized completions).
#[test]
fn budget_agrees_with_the_board_link_at_other_completion_sizes() {
    if !core_ready() {
        return;
    }
    let base = PcieConfig::default();
    for (name, pcie) in [
        (
            "SUME, 64-byte completions",
            PcieConfig {
                cpl_max: 64,
                ..base
            },
        ),
        (
            "SUME, RCB 128, MPS 512",
            PcieConfig {
                rcb: 128,
                mps: 512,
                cpl_max: 512,
                ..base
            },
        ),
        (
            "SUME, RCB 128, MPS 512, 128-byte completions",
            PcieConfig {
                rcb: 128,
                mps: 512,
                cpl_max: 128,
                ..base
            },
        ),
    ] {
        let b = Build {
            name,
            cfg: BoardConfig {
                pcie,
                ..BoardConfig::default()
            },
            bus_bits: 256,
            line_gbps: 10,
        };
        check(&b, 60, 128);
        check(&b, 1500, 48);
    }
}
