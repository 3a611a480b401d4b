//! The driver on the Alveo board build (`sim:board=u50`, feature `alveo`): `tsnic_board_core` at
//! 512 bits Verilated behind the Gen3 x16 PCIe hard-block model, the MAC clock at 322.265625 MHz,
//! and the CMAC's TX AXI-Stream model (tsnic_sim::board::cmac) in front of a 100G wire (issue 31
//! items 3 and 5; issue 34 item 15 on the CMAC).
//!
//! - The same push on the 512-bit core build of the same size (`tsnic_core`, the core inside the
//!   board core) and on the board: the same bytes in the same order, none early, the CMAC never
//!   starved inside a packet, the completion buffer never overrun.
//! - Departures against simulated true time at the MAC: the card's stamp (the gate's first-beat
//!   handshake with the CMAC, plus the line-start lag the board core derives for the CMAC,
//!   tsnic_cmac_tx_lag with TX_MAC_LAG = 2 as the Alveo tops build it, plus CTRL_TX_LAT_COMP_NS)
//!   minus the frame's start on the line as the CMAC model serialised it, in simulated time, is one
//!   constant (the PHC's offset from simulated time) within one MAC cycle for every frame, whether
//!   it started on an idle line or behind another.
//! - Back to back (the CMAC holding tready low): the same check on every frame (issue 34 item 15:
//!   the stamp is the frame's start on the line on a busy line too).
#![cfg(feature = "alveo")]

use tsnic::contract::reg;
use tsnic::device::sim::{SimBackend, SimConfig, WireTap};
use tsnic::device::sim_board::BoardBackend;
use tsnic::device::Card;
use tsnic::push::{self, FrameResult, JobFrame, PushOptions};
use tsnic::trace::{self, Limits};
use tsnic_sim::board::{BoardConfig, BoardModel, CmacConfig, CmacStats, PcieStats};
use tsnic_sim::WireFrame;

mod common;
use common::{core_ready, Rng};

/// The CMAC model's latency from the first-beat handshake to the line, and the card's
/// CTRL_TX_LAT_COMP_NS set to it, ns (any value: PG203 does not give one; see cmac.rs).
const CMAC_LATENCY_NS: u64 = 40;

/// One MAC cycle at 322.265625 MHz (3.103 ns) plus the MAC-domain time's error (tsnic_td_sink:
/// 0.41 ns), for whole-ns stamps against ps line starts: |difference| <= 4 ns.
const TOLERANCE_NS: i64 = 4;

/// The payload lookahead both builds run with, ns.
const LOOKAHEAD_NS: u32 = 8000;

struct Run {
    results: Vec<FrameResult>,
    wire: Vec<WireFrame>,
    /// The push's loop: wall ns, and PHC ns from its first post to its last completion.
    loop_wall_ns: u64,
    loop_phc_ns: u64,
    /// PHC when the push took its last completion, less the last departure, ns.
    tail_ns: u64,
}

fn push_on(card: &mut Card, tap: &WireTap, text: &str, lead_ns: u64) -> Run {
    let caps = card.caps().clone();
    let tr = trace::parse(text, &Limits::for_card(caps.num_queues, caps.max_frame_len)).unwrap();
    let t0 = push::phc_now(card.backend()) + lead_ns;
    let frames: Vec<JobFrame> = tr
        .rows
        .iter()
        .map(|r| JobFrame {
            index: r.index,
            queue: r.queue as u16,
            len: r.len,
            launch_ns: t0 + r.launch_ns,
        })
        .collect();
    struct Gen(u64);
    impl push::FrameSource for Gen {
        fn frame(&self, f: &JobFrame, out: &mut Vec<u8>) {
            trace::build_frame(f.index, f.launch_ns - self.0, f.len as usize, out);
        }
    }
    let opts = PushOptions {
        lookahead_ns: Some(LOOKAHEAD_NS),
        ..PushOptions::default()
    };
    let out = push::run(card, &frames, &Gen(t0), &opts, &mut |_, _| {}).expect("push");
    if std::env::var_os("TSNIC_ALVEO_DEBUG").is_some() {
        eprintln!(
            "push: {} unfinished, PHC {} .. {} ({} ns), last launch {}",
            out.unfinished.len(),
            out.start_phc_ns,
            out.end_phc_ns,
            out.end_phc_ns - out.start_phc_ns,
            frames.iter().map(|f| f.launch_ns).max().unwrap_or(0)
        );
    }
    let last = out.results.iter().map(|r| r.depart_ns).max().unwrap_or(0);
    Run {
        tail_ns: out.end_phc_ns.saturating_sub(last),
        loop_wall_ns: out.loop_wall_ns,
        loop_phc_ns: out.end_phc_ns - out.start_phc_ns,
        results: out.results,
        wire: tap.take(),
    }
}

fn core_run(text: &str, lead_ns: u64) -> Run {
    // the core as the Alveo board core has it: 512-bit buses, the small size, 100G wire
    let cfg = SimConfig {
        width: tsnic_sim::Width::W512,
        line_rate: tsnic_sim::LineRate::G100,
        ..SimConfig::small()
    };
    let mut b = SimBackend::new(cfg).expect("sim backend (512-bit core)");
    let tap = b.tap();
    let mut card = Card::from_backend(Box::new(b), "sim:small,wide".into()).expect("card");
    push_on(&mut card, &tap, text, lead_ns)
}

fn alveo_config() -> BoardConfig {
    let mut cfg = BoardConfig::alveo(BoardModel::AlveoU50);
    cfg.cmac = Some(CmacConfig {
        latency_ps: CMAC_LATENCY_NS * 1000,
    });
    cfg
}

fn board_run(text: &str, lead_ns: u64) -> (Run, PcieStats, CmacStats) {
    let mut b = BoardBackend::new(alveo_config()).expect("board backend (Alveo U50 build)");
    let tap = b.tap();
    let stats = b.stats_tap();
    let cmac = b.cmac_tap();
    let mut card =
        Card::from_backend(Box::new(b), "sim:board=u50".into()).expect("board identifies itself");
    card.backend()
        .write32(reg::CTRL_TX_LAT_COMP_NS, CMAC_LATENCY_NS as u32);
    let run = push_on(&mut card, &tap, text, lead_ns);
    (run, stats.get(), cmac.get())
}

/// The frames on the wire with their completions, in wire order: (result, wire frame).
fn pairs(run: &Run) -> Vec<(&FrameResult, &WireFrame)> {
    let mut sent: Vec<&FrameResult> = run.results.iter().filter(|r| r.on_wire()).collect();
    sent.sort_by_key(|r| (r.depart_ns, r.index));
    assert_eq!(
        run.wire.len(),
        sent.len(),
        "wire frames vs sent completions"
    );
    sent.into_iter().zip(run.wire.iter()).collect()
}

/// Stamp minus the frame's true start on the line (simulated time), ps, per frame in wire order,
/// and whether the frame started on an idle line (its first beat reached the serialiser no earlier
/// than its start: nothing queued before it).
fn stamp_vs_line(run: &Run) -> Vec<(u64, i64, bool)> {
    pairs(run)
        .iter()
        .map(|(r, w)| {
            (
                r.index,
                r.depart_ns as i64 * 1000 - w.start_ps as i64,
                w.start_ps == w.first_beat_ps,
            )
        })
        .collect()
}

fn random_trace(seed: u64, n: usize, max_gap: u64) -> String {
    let mut rng = Rng(seed);
    let mut t = 0u64;
    let mut text = String::from("launch_ns,queue,len\n");
    for _ in 0..n {
        t += rng.range(0, max_gap);
        let len = if rng.below(3) == 0 {
            1514
        } else {
            rng.range(60, 1514)
        };
        text += &format!("{t},{},{len}\n", rng.below(4));
    }
    text
}

#[test]
fn random_100g_push_on_the_alveo_board_matches_the_512_bit_core_build() {
    if !core_ready() {
        return;
    }
    // 300 frames of 60..1514 bytes over four queues, gaps from back-to-back to 600 ns (a 1514-byte
    // frame is 122 ns on the line)
    let text = random_trace(34, 300, 600);
    let t = std::time::Instant::now();
    let core = core_run(&text, 40_000);
    let core_s = t.elapsed().as_secs_f64();
    let t = std::time::Instant::now();
    let (board, stats, cmac) = board_run(&text, 40_000);
    let board_s = t.elapsed().as_secs_f64();
    eprintln!(
        "wall: 512-bit core build {core_s:.2} s, Alveo board {board_s:.2} s (open, push, checks)"
    );
    assert_eq!(board.wire.len(), 300, "frames on the board's wire");
    assert_eq!(core.wire.len(), 300, "frames on the core build's wire");
    let (pb, pc) = (pairs(&board), pairs(&core));
    for (k, ((rb, wb), (rc, wc))) in pb.iter().zip(&pc).enumerate() {
        assert_eq!(rb.index, rc.index, "wire order differs at {k}");
        assert_eq!(wb.bytes, wc.bytes, "wire frame {k}: bytes differ");
        assert!(!wb.errored, "wire frame {k} errored on the board");
        assert!(
            rb.depart_ns >= rb.launch_ns,
            "frame {} early on the board by {} ns",
            rb.index,
            rb.launch_ns - rb.depart_ns
        );
    }
    // the driver took the last completions promptly (an MSI-X message that came while it was not
    // waiting is not lost)
    assert!(
        board.tail_ns < 50_000,
        "the push ended {} ns after the last departure",
        board.tail_ns
    );
    // departures against simulated true time at the MAC, every frame: the offset is the first
    // idle-line start's
    let sv = stamp_vs_line(&board);
    let idle: Vec<&(u64, i64, bool)> = sv.iter().filter(|s| s.2).collect();
    let busy = sv.len() - idle.len();
    assert!(idle.len() >= 100, "only {} idle-line starts", idle.len());
    assert!(busy >= 10, "only {busy} frames started behind another");
    let off = idle[0].1;
    let mut worst = 0i64;
    for (i, o, on_idle) in &sv {
        let d = (o - off) / 1000;
        worst = worst.max(d.abs());
        assert!(
            d.abs() <= TOLERANCE_NS,
            "frame {i} ({}): stamp minus line start {o} ps, {d} ns off the first frame's ({off} ps)",
            if *on_idle { "idle line" } else { "behind another" }
        );
    }
    eprintln!(
        "{} idle-line starts, {busy} behind another: stamp - line start within {worst} ns of one offset",
        idle.len()
    );
    assert_eq!(
        cmac.gaps, 0,
        "the card starved the CMAC inside a packet: {cmac:?}"
    );
    assert!(
        cmac.beats > 0 && cmac.held > 0,
        "the CMAC never held the card back: {cmac:?}"
    );
    assert_eq!(stats.buf_overruns, 0, "{stats:?}");
    assert_eq!(stats.outstanding_overruns, 0, "{stats:?}");
    assert_eq!(
        stats.iommu_faults + stats.ur_completions + stats.bad_requests + stats.bar_errors,
        0,
        "{stats:?}"
    );
    assert!(stats.interrupts >= 1, "no MSI-X interrupt: {stats:?}");
}

/// Frames back to back at one launch time, the CMAC pacing the 165 Gb/s bus to the 100G line with
/// tready: one frame alone (its stamp gives the PHC's offset from simulated time), then 8 queues x
/// 12 frames of 1514 bytes launched together, then 8 x 12 of 60 bytes together. Returns the run and
/// each frame's stamp minus its line start less the first frame's, ns (wire order).
fn back_to_back() -> (Run, Vec<(u64, f64)>) {
    let mut text = String::from("launch_ns,queue,len\n0,0,60\n");
    for (t, len) in [(20_000u64, 1514u64), (60_000, 60)] {
        for k in 0..96u64 {
            text += &format!("{t},{},{len}\n", k % 8);
        }
    }
    let (board, stats, cmac) = board_run(&text, 40_000);
    assert_eq!(board.wire.len(), 193);
    assert_eq!(
        cmac.gaps, 0,
        "the card starved the CMAC inside a packet: {cmac:?}"
    );
    assert!(
        cmac.held > 1000,
        "the CMAC hardly held the card back: {cmac:?}"
    );
    assert_eq!(stats.buf_overruns, 0, "{stats:?}");
    for (r, _) in pairs(&board) {
        assert!(r.depart_ns >= r.launch_ns, "frame {} early", r.index);
    }
    // the driver took the last completions promptly: an MSI-X message that came while it was not
    // waiting (e.g. during a BAR0 read) is not lost (it was, and the push sat out its 5 ms stall
    // timeout before polling them)
    assert!(
        board.tail_ns < 50_000,
        "the push ended {} ns after the last departure",
        board.tail_ns
    );
    // the 60-byte block keeps the line busy: frames back to back on the wire (each starting at
    // the previous one's gap end) from the block's second frame to its last, at 148.8 Mpps
    let small: Vec<&WireFrame> = board.wire.iter().filter(|w| w.bytes.len() == 60).collect();
    assert_eq!(small.len(), 97);
    let block = &small[1..];
    let apart = block
        .windows(2)
        .filter(|p| p[1].start_ps != p[0].end_ps)
        .count();
    let mpps = (block.len() - 1) as f64 * 1e6
        / (block[block.len() - 1].start_ps - block[0].start_ps) as f64;
    eprintln!(
        "60-byte block: {mpps:.2} Mpps on the line, {apart} of {} frames not back to back",
        block.len() - 1
    );
    // (with the launch gate's 4-entry completion FIFO, each completion waiting 12 cycles for its
    // line-start report: 107 Mpps, 19 gaps)
    assert!(
        apart == 0 && mpps > 148.0,
        "60-byte frames behind one launch time not at 100G line rate: {mpps:.2} Mpps, {apart} gaps"
    );
    let sv = stamp_vs_line(&board);
    assert!(sv[0].2, "the first frame did not start on an idle line");
    let busy = sv.iter().filter(|s| !s.2).count();
    assert!(busy >= 150, "only {busy} frames started behind another");
    let off = sv[0].1;
    let d: Vec<(u64, f64)> = sv
        .iter()
        .map(|(i, o, _)| (*i, (o - off) as f64 / 1000.0))
        .collect();
    let lo = d.iter().map(|x| x.1).fold(0.0, f64::min);
    let hi = d.iter().map(|x| x.1).fold(0.0, f64::max);
    eprintln!(
        "{} frames, {busy} behind another: stamp - line start - offset in [{lo:.1}, {hi:.1}] ns; push ended {} ns after the last departure; CMAC {cmac:?}",
        d.len(),
        board.tail_ns
    );
    (board, d)
}

#[test]
fn back_to_back_frames_on_the_alveo_board() {
    if !core_ready() {
        return;
    }
    back_to_back();
}

/// Issue 34 item 15 on the CMAC: every frame's stamp must be its start on the line (within one MAC
/// cycle of the idle-line offset) when frames are back to back too. Behind a busy line the CMAC
/// takes a frame while the previous one is still leaving; the board core's tsnic_cmac_tx_lag adds
/// the wait (with TX_MAC_LAG = 0, stamps were up to 7.6 ns early: docs/BOARDS.md "Departure stamp").
#[test]
fn back_to_back_stamps_are_line_starts_on_the_alveo_board() {
    if !core_ready() {
        return;
    }
    let (_, d) = back_to_back();
    let bad: Vec<&(u64, f64)> = d
        .iter()
        .filter(|x| x.1.abs() > TOLERANCE_NS as f64)
        .collect();
    assert!(
        bad.is_empty(),
        "{} of {} frames stamped off their start on the line by more than one MAC cycle (first: frame {} at {:.1} ns; negative = stamp early)",
        bad.len(),
        d.len(),
        bad[0].0,
        bad[0].1
    );
}

/// Issue 31 item 5's figure (docs/BENCHMARKS.md): busy speed of the Alveo board build against the
/// 512-bit core build of the same size, same trace, same run: 5,000 frames of 60/128/512/1514 bytes
/// over four queues, each launched 20 ns after the previous one's wire time at 100G. Prints both
/// builds' wall time and simulated time per wall second. Manual (`--ignored`), release build:
/// `cargo test --release -p tsnic --features alveo --test cosim_board_alveo push_100g -- --ignored --nocapture`
#[test]
#[ignore]
fn push_100g_5000_speed_board_vs_core() {
    if !core_ready() {
        return;
    }
    let mut text = String::from("launch_ns,queue,len\n");
    let mut t = 0u64;
    for i in 0..5000u64 {
        let n = [60u64, 128, 512, 1514][(i % 4) as usize];
        text += &format!("{t},{},{n}\n", i % 4);
        t += ((8 + n + 4 + 12) * 8).div_ceil(100) + 20;
    }
    let span_ns = t;
    let w = std::time::Instant::now();
    let core = core_run(&text, 40_000);
    let core_s = w.elapsed().as_secs_f64();
    let w = std::time::Instant::now();
    let (board, stats, cmac) = board_run(&text, 40_000);
    let board_s = w.elapsed().as_secs_f64();
    assert_eq!(core.wire.len(), 5000);
    assert_eq!(board.wire.len(), 5000);
    for (k, (b, c)) in board.wire.iter().zip(&core.wire).enumerate() {
        assert_eq!(b.bytes, c.bytes, "wire frame {k}");
    }
    let late = |r: &Run| {
        r.results
            .iter()
            .filter(|x| x.depart_ns > x.launch_ns + 200)
            .count()
    };
    // busy speed: simulated ns per wall second of the push's loop
    let speed = |r: &Run| r.loop_phc_ns as f64 / (r.loop_wall_ns as f64 / 1e9);
    eprintln!(
        "push_100g 5000 frames, trace span {:.3} ms: push loop 512-bit core build {:.3} ms simulated in {:.3} s wall \
         ({:.3} ms/s), Alveo U50 board {:.3} ms in {:.3} s ({:.3} ms/s): board / core busy speed {:.2}; whole test \
         (open + push + checks) core {core_s:.2} s, board {board_s:.2} s; \
         frames over 200 ns late: core {}, board {}; link down {:.1} % up {:.1} % busy; board reads at most {} tags, \
         {} headers / {} credits outstanding; CMAC tready low {:.1} % of cycles",
        span_ns as f64 / 1e6,
        core.loop_phc_ns as f64 / 1e6,
        core.loop_wall_ns as f64 / 1e9,
        speed(&core) / 1e6,
        board.loop_phc_ns as f64 / 1e6,
        board.loop_wall_ns as f64 / 1e9,
        speed(&board) / 1e6,
        speed(&board) / speed(&core),
        late(&core),
        late(&board),
        stats.down.busy_ps as f64 / 10.0 / span_ns as f64,
        stats.up.busy_ps as f64 / 10.0 / span_ns as f64,
        stats.max_tags,
        stats.outstanding_max_h,
        stats.outstanding_max_d,
        100.0 * cmac.not_ready as f64 / cmac.cycles.max(1) as f64
    );
}

/// `tsnic info` and `push` with `--backend sim:board=u50` (the binary, as a user runs it).
#[test]
fn cli_info_and_push_run_on_the_alveo_board() {
    if !core_ready() {
        return;
    }
    let run = |args: &[&str]| {
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_tsnic"))
            .args(args)
            .env("TSNIC_SIM_STATE", "none")
            .output()
            .expect("run tsnic");
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        );
        (o.status.success(), text)
    };
    let (ok, info) = run(&["info", "--backend", "sim:board=u50"]);
    assert!(ok, "tsnic info failed: {info}");
    for want in [
        "Alveo U50 build",
        "MAC clock 322.265625 MHz",
        "TX data width     512 bit",
        "PCIe Gen3 x16",
        "CMAC aligned",
    ] {
        assert!(info.contains(want), "no `{want}` in: {info}");
    }
    let dir = common::scratch_dir("cosim-board-alveo", "cli");
    let trace = dir.join("t.csv");
    let mut text = String::from("launch_ns,queue,len\n");
    for i in 0..24u64 {
        text += &format!(
            "{},{},{}\n",
            i * 400,
            i % 4,
            [60, 300, 1514][(i % 3) as usize]
        );
    }
    std::fs::write(&trace, text).unwrap();
    let t = trace.to_str().unwrap();
    // the board's line rate must be asked for: the default is 10G
    let (ok, out) = run(&["push", "--backend", "sim:board=u50", t]);
    assert!(!ok && out.contains("--line-rate 100"), "{out}");
    let report = dir.join("r.json");
    let (ok, out) = run(&[
        "push",
        "--backend",
        "sim:board=u50",
        "--line-rate",
        "100",
        "--strict",
        "--report",
        report.to_str().unwrap(),
        t,
    ]);
    assert!(ok, "tsnic push failed: {out}");
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    assert!(
        r["backend"].as_str().unwrap().starts_with("sim:board=u50"),
        "{}",
        r["backend"]
    );
    assert_eq!(r["packets"], 24);
    assert_eq!(
        r["sent"].as_u64().unwrap() + r["sent_late"].as_u64().unwrap(),
        24
    );
    assert_eq!(r["early"], 0);
}

/// Each Alveo build is its own board to the driver: FLASH_CAP's board id (1 U50, 2 U280, 3 U250;
/// docs/FIRMWARE.md), the link in PG213's codes.
#[test]
fn the_alveo_builds_report_their_board() {
    if !core_ready() {
        return;
    }
    let mut boards = vec![(BoardModel::AlveoU50, 1u32)];
    if cfg!(feature = "alveo-all") {
        boards.extend([(BoardModel::AlveoU280, 2), (BoardModel::AlveoU250, 3)]);
    }
    for (model, id) in boards {
        let mut b = BoardBackend::new(BoardConfig::alveo(model)).expect("board backend");
        let cap = tsnic::device::Backend::read32(&mut b, reg::FLASH_CAP);
        assert_eq!(
            cap & reg::FLASH_CAP_BOARD_ID,
            id,
            "{model:?}: FLASH_CAP {cap:#x}"
        );
    }
}
