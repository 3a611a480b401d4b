//! Co-simulation tests of `tsnic push` and `tsnic replay` on the Verilated tsnic_core, and (feature
//! `board`) the short versions of them that run on `sim:board` too (the `board_*` tests: the same
//! bodies, given [`On::Board`]).
//!
//! Each test reads the pcapng the tool wrote back and checks every row of its input: present on the
//! wire or accounted for by its completion status, bytes, never early, order, and the error bound.
//! They skip (with a message) only while `hdl/rtl/tsnic_core.v` does not exist; when it exists but the
//! simulator could not be built, they fail with the reason.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

mod scratch;
use scratch::{tmp, Scratch};
use tsnic::capture;
use tsnic::contract::Status;
use tsnic::device::sim::{SimBackend, SimConfig, WireTap};
use tsnic::device::Card;
use tsnic::push::{self, FrameResult, JobFrame, PushOptions};
use tsnic::trace::{self, Limits};
use tsnic_sim::{LineRate, WireFrame};

mod common;
use common::{core_ready, repo};

/// Core clock period of the default configuration, ns.
const CYCLE_NS: i64 = 4;

/// The card a test runs on: the core build (`sim`, the default) or the board (`sim:board`:
/// tsnic_board_core behind the PCIe hard-block model, issue 31).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum On {
    Core,
    #[cfg(feature = "board")]
    Board,
}

impl On {
    /// Its `--backend`.
    fn spec(self) -> &'static str {
        match self {
            On::Core => "sim",
            #[cfg(feature = "board")]
            On::Board => "sim:board",
        }
    }

    /// Latest a frame may leave after its launch time (or after the line is free), ns: one clock of
    /// the launch gate. The core build's gate runs on the 4 ns core clock; the board's on the MAC
    /// clock (SUME: 156.25 MHz, 6.4 ns) with the MAC domain's PHC copy lagging by up to 0.41 ns
    /// (tsnic_td_sink, docs/ARCHITECTURE.md): 6.81 ns, so 7 in whole-ns stamps.
    fn gate_ns(self) -> i64 {
        match self {
            On::Core => CYCLE_NS,
            #[cfg(feature = "board")]
            On::Board => 7,
        }
    }

    /// How far a frame's stamp minus its start on the line (simulated true time at the MAC) may stray
    /// from the first frame's, ns: 0 on the core build (both on the core clock); 1 on the board (a
    /// whole-ns stamp of the MAC domain's copy, whose lag varies by under 1 ns, at MAC clock edges
    /// that fall anywhere in a ns).
    fn stamp_slack(self) -> i64 {
        match self {
            On::Core => 0,
            #[cfg(feature = "board")]
            On::Board => 1,
        }
    }

    /// A fresh card with its wire tapped.
    fn open(self) -> (Card, WireTap) {
        match self {
            On::Core => sim_card(),
            #[cfg(feature = "board")]
            On::Board => {
                let mut b = tsnic::device::sim_board::BoardBackend::new(
                    tsnic_sim::board::BoardConfig::default(),
                )
                .expect("board backend");
                let tap = b.tap();
                (
                    Card::from_backend(Box::new(b), "sim:board".into())
                        .expect("board identifies itself"),
                    tap,
                )
            }
        }
    }
}

fn tsnic(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_tsnic"))
        .args(args)
        // Each command on a fresh simulated card, kept nowhere: hermetic (cosim_persist.rs tests the
        // card that persists).
        .env("TSNIC_SIM_STATE", "none")
        .current_dir(repo())
        .output()
        .expect("run tsnic")
}

/// Open the default simulated card with its wire tapped.
fn sim_card() -> (Card, WireTap) {
    let mut b = SimBackend::new(SimConfig::default()).expect("sim backend");
    let tap = b.tap();
    (
        Card::from_backend(Box::new(b), "sim".into()).expect("card identifies itself"),
        tap,
    )
}

struct Run {
    start_phc_ns: u64,
    frames: Vec<JobFrame>,
    results: Vec<FrameResult>,
    wire: Vec<WireFrame>,
}

/// Push a trace through the library (no CLI), relative times, default options.
fn push_trace(on: On, text: &str, lead_ns: u64) -> Run {
    let (mut card, tap) = on.open();
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
    struct Gen;
    impl push::FrameSource for Gen {
        fn frame(&self, f: &JobFrame, out: &mut Vec<u8>) {
            trace::build_frame(f.index, f.launch_ns, f.len as usize, out);
        }
    }
    let out = push::run(
        &mut card,
        &frames,
        &Gen,
        &PushOptions::default(),
        &mut |_, _| {},
    )
    .expect("push");
    Run {
        start_phc_ns: out.start_phc_ns,
        frames,
        results: out.results,
        wire: tap.take(),
    }
}

/// Check the wire and the results against the frames; departures against simulated true time at the
/// MAC (the wire model's line start), through the first frame's stamp. Returns the results by status.
fn check_run(on: On, run: &Run, rate: LineRate) -> BTreeMap<&'static str, usize> {
    // Frames already due when posting started cannot be on time; the bound applies to the others.
    let first_post_phc = run.start_phc_ns + 10_000;
    let mut by_status = BTreeMap::new();
    for r in &run.results {
        *by_status.entry(r.status.name()).or_insert(0) += 1;
    }
    // One wire frame per SENT/SENT_LATE completion, in departure order, bytes as generated.
    let mut sent: Vec<&FrameResult> = run.results.iter().filter(|r| r.on_wire()).collect();
    sent.sort_by_key(|r| (r.depart_ns, r.index));
    assert_eq!(
        run.wire.len(),
        sent.len(),
        "wire frames vs sent completions"
    );
    let offset = sent
        .first()
        .map(|r| r.depart_ns as i64 - (run.wire[0].start_ps / 1000) as i64);
    let mut prev: Option<(&FrameResult, &WireFrame)> = None;
    for (w, r) in run.wire.iter().zip(&sent) {
        let f = &run.frames[r.index as usize];
        let mut expect = Vec::new();
        trace::build_frame(f.index, f.launch_ns, f.len as usize, &mut expect);
        assert_eq!(w.bytes, expect, "bytes of frame {}", f.index);
        assert!(!w.errored);
        // never early
        assert!(
            r.depart_ns >= r.launch_ns,
            "frame {} early: depart {} < launch {}",
            r.index,
            r.depart_ns,
            r.launch_ns
        );
        // the card's departure stamp is the frame's start on the line (not its first beat at the MAC,
        // which on a busy line comes up to the MAC's FIFO earlier): a fixed offset from simulated time
        let stray = r.depart_ns as i64 - (w.start_ps / 1000) as i64 - offset.unwrap();
        assert!(
            stray.abs() <= on.stamp_slack(),
            "frame {} (stamp {} ns): stamp minus start on the line (simulated time) {stray} ns off the first frame's",
            r.index,
            r.depart_ns
        );
        if let Some((pr, pw)) = prev {
            // order: launch-time order on the wire
            assert!(
                pr.launch_ns <= r.launch_ns,
                "frame {} left before frame {} with an earlier time",
                pr.index,
                r.index
            );
            // ties within a queue leave in posting (trace) order
            if pr.launch_ns == r.launch_ns && pr.queue == r.queue {
                assert!(pr.index < r.index);
            }
            // frames never overlap on the wire
            assert!(w.start_ps >= pw.end_ps, "overlap at frame {}", r.index);
            // on time: waits only for the frame ahead on the wire (SENT_LATE left when it was seen)
            let free_ns = (pw.end_ps / 1000) as i64 + offset.unwrap();
            let bound = (r.launch_ns as i64).max(free_ns) + on.gate_ns();
            assert!(
                !r.on_wire() || r.launch_ns < first_post_phc || (r.depart_ns as i64) <= bound,
                "frame {} departs {} ns after launch; bound {} (line free at {})",
                r.index,
                r.depart_ns - r.launch_ns,
                bound - r.launch_ns as i64,
                free_ns
            );
        } else if r.status == Status::Sent {
            assert!(
                r.error_ns() <= on.gate_ns(),
                "first frame {} ns late",
                r.error_ns()
            );
        }
        // its gap is 12 octets less or more what the deficit idle count takes off or adds to align
        // the next start (IEEE 802.3 46.3.1.4: 9..15 octets at 10G)
        let nominal = rate.frame_ps(w.bytes.len() as u64);
        assert!(
            (w.end_ps - w.start_ps).abs_diff(nominal) <= rate.dic_max() * rate.byte_ps(),
            "frame {}: {} ps on the wire with its gap, nominal {nominal}",
            r.index,
            w.end_ps - w.start_ps
        );
        prev = Some((r, w));
    }
    by_status
}

#[test]
fn push_demo_trace_through_the_cli_and_check_every_row() {
    let _scratch = Scratch;
    if !core_ready() {
        return;
    }
    let pcap = tmp("demo.pcapng");
    let report = tmp("demo.json");
    let out = tsnic(&[
        "push",
        "tests/traces/demo.csv",
        "--pcap",
        pcap.to_str().unwrap(),
        "--report",
        report.to_str().unwrap(),
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "tsnic push failed: {}\n{}",
        String::from_utf8_lossy(&out.stderr),
        stdout
    );
    assert!(
        stdout.contains("dropped_horizon"),
        "summary table: {stdout}"
    );

    let text = std::fs::read_to_string(repo().join("tests/traces/demo.csv")).unwrap();
    let tr = trace::parse(&text, &Limits::for_card(8, 9000)).unwrap();
    let rep: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    let t0 = rep["t0_ns"].as_u64().unwrap();
    assert!(t0 > 0);
    let pkts = capture::read(&pcap).unwrap();

    // Every row on the wire exactly once with its bytes: the row beyond the card's horizon at the
    // start (12 s; the card's horizon is 10 s) was held by the driver, not dropped. (12 s of simulated
    // time, nearly all of it skipped by the idle fast-forward.)
    let n = tr.rows.len() as u64;
    assert_eq!(rep["packets"].as_u64(), Some(n));
    let beyond: Vec<u64> = tr
        .rows
        .iter()
        .filter(|r| r.launch_ns >= 10_000_000_000)
        .map(|r| r.index)
        .collect();
    assert_eq!(beyond.len(), 1);
    // On the wire: SENT, or SENT_LATE (the launch gate also says SENT_LATE for a frame that waited
    // for the frame ahead of it on a busy line, and the demo has such frames).
    let on_wire = rep["sent"].as_u64().unwrap() + rep["sent_late"].as_u64().unwrap();
    assert_eq!(on_wire, n, "{rep}");
    for k in [
        "dropped_late",
        "dropped_horizon",
        "rejected",
        "flushed",
        "capped",
    ] {
        assert_eq!(rep[k].as_u64(), Some(0), "{k}: {rep}");
    }
    let held = &rep["frames"][beyond[0] as usize];
    assert_eq!(held["status"], "SENT", "{held}");
    assert_eq!(pkts.len() as u64, n);
    let mut seen = vec![false; n as usize];
    let mut prev: Option<(u64, u64, u32)> = None; // (ts, launch, queue)
    for p in &pkts {
        let tag = trace::parse_frame(&p.data).expect("a tsnic frame");
        let row = &tr.rows[tag.index as usize];
        assert!(!seen[tag.index as usize], "row {} twice", tag.index);
        seen[tag.index as usize] = true;
        assert_eq!(
            tag.launch_ns,
            t0 + row.launch_ns,
            "launch time in the frame"
        );
        assert_eq!(p.data.len(), row.len as usize);
        assert!(
            trace::frame_is_intact(&p.data),
            "payload of row {}",
            tag.index
        );
        assert!(p.ts_ns >= tag.launch_ns, "row {} early", tag.index);
        if let Some((pts, plaunch, pq)) = prev {
            assert!(p.ts_ns > pts, "timestamps increase");
            assert!(
                plaunch <= tag.launch_ns,
                "launch order: row {} (launch t0+{}) left after a frame with launch t0+{}",
                tag.index,
                tag.launch_ns - t0,
                plaunch - t0
            );
            if plaunch == tag.launch_ns && pq == row.queue {
                // same queue, same time: trace order (checked by index through `seen` order)
            }
        }
        prev = Some((p.ts_ns, tag.launch_ns, row.queue));
    }
    for (i, s) in seen.iter().enumerate() {
        assert!(*s, "row {i}");
    }
    if let Some((n_read, bad)) = tshark_check(&pcap) {
        assert_eq!(
            (n_read, bad),
            (pkts.len(), 0),
            "tshark: packets read, malformed"
        );
    }
    // Error bound: a frame leaves within one cycle of its launch time, or of the end of the frame
    // ahead of it on the wire (10G: preamble, frame, FCS, gap), whichever is later.
    let mut line_free = 0u64;
    for p in &pkts {
        let tag = trace::parse_frame(&p.data).unwrap();
        let bound = tag.launch_ns.max(line_free) + CYCLE_NS as u64;
        assert!(
            p.ts_ns <= bound,
            "row {}: departed {} ns after launch, {} ns after the line was free",
            tag.index,
            p.ts_ns - tag.launch_ns,
            p.ts_ns as i64 - line_free as i64
        );
        line_free = p.ts_ns + LineRate::G10.frame_ps(p.data.len() as u64).div_ceil(1000);
    }
    let e = &rep["error_ns"];
    assert!(e["min"].as_i64().unwrap() >= 0);
    // The late frames, explained: every one waited for the frames ahead of it on a busy line (the
    // bound above already says the card added at most a cycle), and the summary says so.
    let late = rep["late"].as_u64().unwrap();
    assert!(late > 0, "the demo has frames behind a busy line: {rep}");
    assert_eq!(rep["late_busy_line"].as_u64(), Some(late), "{rep}");
    assert_eq!(rep["late_card"].as_u64(), Some(0), "{rep}");
    assert!(
        stdout.contains(&format!("{late} waited for a busy line, 0 for the card")),
        "{stdout}"
    );
    // Departure error in simulated time, over every frame on the wire: present, and within the
    // PHC sample's bracket of the card's own figures.
    let clock = rep["sim_clock"].as_str().unwrap();
    assert!(clock.contains("mapped at its start"), "{clock}");
    let bracket: i64 = clock
        .split("at most ")
        .nth(1)
        .and_then(|t| t.split(' ').next())
        .and_then(|t| t.parse().ok())
        .expect("the bracket in sim_clock");
    for f in rep["frames"].as_array().unwrap() {
        let (pe, se) = (
            f["error_ns"].as_i64().unwrap(),
            f["sim_error_ns"].as_i64().unwrap(),
        );
        assert!(
            se - bracket <= pe && pe <= se,
            "frame {f}: PHC error {pe}, simulated {se} (bracket {bracket})"
        );
    }
    for k in ["min", "p50", "max"] {
        assert!(
            rep["sim_error_ns"][k].is_i64() && rep["error_sent_ns"][k].is_i64(),
            "{rep}"
        );
    }
}

#[test]
fn push_checks_wire_order_ties_bound_and_is_deterministic() {
    wire_order_ties_bound_deterministic(On::Core);
}

#[cfg(feature = "board")]
#[test]
fn board_push_checks_wire_order_ties_bound_and_is_deterministic() {
    wire_order_ties_bound_deterministic(On::Board);
}

fn wire_order_ties_bound_deterministic(on: On) {
    if !core_ready() {
        return;
    }
    // Ties across all queues, ties within a queue, a burst denser than the line, idle gaps.
    let mut text = String::from("launch_ns,queue,len\n");
    for i in 0..40u64 {
        text.push_str(&format!(
            "{},{},{}\n",
            10_000 + (i / 8) * 3000,
            i % 4,
            60 + (i * 97) % 1400
        ));
    }
    for i in 0..30u64 {
        text.push_str(&format!("{},{},1514\n", 40_000 + i * 100, i % 3)); // 1514 B needs 1230 ns at 10G
    }
    text.push_str("80000,0,60\n80000,0,61\n80000,0,62\n");
    let a = push_trace(on, &text, 30_000);
    let by = check_run(on, &a, LineRate::G10);
    let on_wire = by.get("SENT").copied().unwrap_or(0) + by.get("SENT_LATE").copied().unwrap_or(0);
    assert_eq!(on_wire, a.frames.len(), "{by:?}");
    // Same inputs, same wire, bit for bit.
    let b = push_trace(on, &text, 30_000);
    assert_eq!(a.results, b.results);
    assert_eq!(a.wire, b.wire);
}

#[test]
fn late_rows_follow_the_late_policy() {
    late_rows(On::Core);
}

#[cfg(feature = "board")]
#[test]
fn board_late_rows_follow_the_late_policy() {
    late_rows(On::Board);
}

fn late_rows(on: On) {
    if !core_ready() {
        return;
    }
    // Lead 0: the first rows are already due when posted; with policy SEND they go out SENT_LATE.
    let text = "launch_ns,queue,len\n0,0,60\n0,1,60\n200000,0,60\n";
    let r = push_trace(on, text, 0);
    let by = check_run(on, &r, LineRate::G10);
    assert!(by.get("SENT_LATE").copied().unwrap_or(0) >= 1, "{by:?}");
    assert_eq!(r.results[2].status, Status::Sent);
}

#[test]
fn bad_trace_names_line_and_field_and_sends_nothing() {
    let _scratch = Scratch;
    // Needs no core: the mem backend identifies as a card; nothing may be written.
    let bad = tmp("bad.csv");
    std::fs::write(&bad, "# x\nlaunch_ns,queue,len\n0,0,60\n1000,0,59\n").unwrap();
    let pcap = tmp("bad.pcapng");
    let out = tsnic(&[
        "push",
        "--backend",
        "mem",
        bad.to_str().unwrap(),
        "--pcap",
        pcap.to_str().unwrap(),
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("line 4") && err.contains("`len`") && err.contains("nothing was sent"),
        "{err}"
    );
    assert!(!pcap.exists());
}

#[test]
fn replay_keeps_bytes_order_and_timing() {
    replay_keeps(On::Core);
}

#[cfg(feature = "board")]
#[test]
fn board_replay_keeps_bytes_order_and_timing() {
    replay_keeps(On::Board);
}

fn replay_keeps(on: On) {
    let _scratch = Scratch;
    if !core_ready() {
        return;
    }
    // A capture with arbitrary frames (not tsnic's format), irregular gaps, microsecond-ish timestamps.
    let input = tmp("in.pcapng");
    let mut w = capture::PcapNgOut::create(&input).unwrap();
    let mut ts = 1_600_000_000_000_000_000u64;
    let mut sent = Vec::new();
    for i in 0..60u64 {
        let len = 60 + ((i * 211) % 1455) as usize;
        let data: Vec<u8> = (0..len).map(|k| (k as u64 * 31 + i * 7) as u8).collect();
        w.write(ts, &data).unwrap();
        sent.push((ts, data));
        ts += [300, 1500, 90, 5000, 2000][i as usize % 5];
    }
    w.finish().unwrap();
    let output = tmp("out.pcapng");
    let report = tmp("replay.json");
    let out = tsnic(&[
        "replay",
        input.to_str().unwrap(),
        "--pcap",
        output.to_str().unwrap(),
        "--report",
        report.to_str().unwrap(),
        "--queue",
        "2",
        "--backend",
        on.spec(),
    ]);
    assert!(
        out.status.success(),
        "tsnic replay failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rep: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    assert!(
        rep["backend"].as_str().unwrap().starts_with(on.spec()),
        "{}",
        rep["backend"]
    );
    // departure error in simulated time (the wire's line start against launch mapped through the
    // PHC sample): at most the sample's bracket above the card's own figure, never below it
    let clock = rep["sim_clock"].as_str().unwrap();
    let bracket: i64 = clock
        .split("at most ")
        .nth(1)
        .and_then(|t| t.split(' ').next())
        .and_then(|t| t.parse().ok())
        .unwrap_or_else(|| panic!("no bracket in sim_clock: {clock}"));
    assert!(
        bracket <= 40,
        "PHC sample bracketed by {bracket} ns: {clock}"
    );
    for f in rep["frames"].as_array().unwrap() {
        let (pe, se) = (
            f["error_ns"].as_i64().unwrap(),
            f["sim_error_ns"].as_i64().unwrap(),
        );
        assert!(
            se - bracket <= pe && pe <= se,
            "frame {f}: PHC error {pe}, simulated {se} (bracket {bracket})"
        );
    }
    let t0 = rep["t0_ns"].as_u64().unwrap();
    let got = capture::read(&output).unwrap();
    assert_eq!(got.len(), sent.len());
    let ts0 = sent[0].0;
    let mut prev_end = 0u64;
    for (i, (g, (t, d))) in got.iter().zip(&sent).enumerate() {
        assert_eq!(&g.data, d, "packet {i} bytes");
        let want = t0 + (t - ts0);
        assert!(g.ts_ns >= want, "packet {i} early");
        // Waits only for the frame ahead: 10G wire time of the previous frame.
        let bound = want.max(prev_end) + on.gate_ns() as u64;
        assert!(g.ts_ns <= bound, "packet {i}: {} ns late", g.ts_ns - want);
        prev_end = g.ts_ns + LineRate::G10.frame_ps(g.data.len() as u64) / 1000;
    }
}

/// tshark's verdict on a capture: (packets read, malformed packets). `None` without tshark.
fn tshark_check(path: &Path) -> Option<(usize, usize)> {
    let run = |args: &[&str]| Command::new("tshark").args(args).output().ok();
    let all = run(&[
        "-n",
        "-r",
        path.to_str().unwrap(),
        "-T",
        "fields",
        "-e",
        "frame.time_epoch",
    ])?;
    if !all.status.success() {
        panic!(
            "tshark could not read {}: {}",
            path.display(),
            String::from_utf8_lossy(&all.stderr)
        );
    }
    let bad = run(&[
        "-n",
        "-r",
        path.to_str().unwrap(),
        "-Y",
        "_ws.malformed || _ws.expert.severity >= \"error\"",
    ])?;
    let count = |o: &std::process::Output| {
        String::from_utf8_lossy(&o.stdout)
            .lines()
            .filter(|l| !l.trim().is_empty())
            .count()
    };
    Some((count(&all), count(&bad)))
}

#[test]
fn pcapng_of_trace_frames_reads_clean_in_tshark() {
    let _scratch = Scratch;
    // The writer alone (no core): tsnic frames with ns timestamps.
    let p = tmp("tshark.pcapng");
    let mut w = capture::PcapNgOut::create(&p).unwrap();
    let mut f = Vec::new();
    for i in 0..20u64 {
        let t = 1_700_000_000_000_000_001 + i * 1_234;
        trace::build_frame(i, t, 60 + (i as usize * 301) % 1455, &mut f);
        w.write(t, &f).unwrap();
    }
    w.finish().unwrap();
    match tshark_check(&p) {
        None => eprintln!("SKIPPED: tshark is not installed (apt-get install tshark)"),
        Some((n, bad)) => {
            assert_eq!((n, bad), (20, 0));
            // nanosecond timestamps survive
            let o = Command::new("tshark")
                .args([
                    "-n",
                    "-r",
                    p.to_str().unwrap(),
                    "-T",
                    "fields",
                    "-e",
                    "frame.time_epoch",
                    "-c",
                    "1",
                ])
                .output()
                .unwrap();
            assert!(
                String::from_utf8_lossy(&o.stdout).contains("1700000000.000000001"),
                "{}",
                String::from_utf8_lossy(&o.stdout)
            );
        }
    }
}

/// Push a job through the library with options, on a fresh default card.
fn push_frames(frames: &[JobFrame], opts: &PushOptions) -> (Vec<FrameResult>, Vec<WireFrame>) {
    let (mut card, tap) = sim_card();
    struct Gen;
    impl push::FrameSource for Gen {
        fn frame(&self, f: &JobFrame, out: &mut Vec<u8>) {
            trace::build_frame(f.index, f.launch_ns, f.len as usize, out);
        }
    }
    let out = push::run(&mut card, frames, &Gen, opts, &mut |_, _| {}).expect("push");
    (out.results, tap.take())
}

#[test]
fn a_sparse_trace_beyond_the_horizon_goes_out_whole() {
    if !core_ready() {
        return;
    }
    // Rows reaching past the card's horizon (read from its caps): the driver holds them and posts
    // each when the card can take it; every frame leaves on time. The gap is the horizon plus a
    // little, so the test costs one horizon of simulated time (100 ms today: about a minute until the
    // sim fast-forwards idle time; with a longer shipped horizon, run it on a small configuration).
    let (mut card, _tap) = sim_card();
    let h = card.caps().horizon_ns;
    let t0 = push::phc_now(card.backend()) + 30_000;
    drop(card);
    let rows = [
        (0u64, 0u16),
        (h + 50_000, 0),
        (h + 60_000, 1),
        (h + 70_000, 0),
    ];
    let frames: Vec<JobFrame> = rows
        .iter()
        .enumerate()
        .map(|(i, &(t, q))| JobFrame {
            index: i as u64,
            queue: q,
            len: 60,
            launch_ns: t0 + t,
        })
        .collect();
    let (results, wire) = push_frames(&frames, &PushOptions::default());
    for r in &results {
        assert_eq!(r.status, Status::Sent, "{r:?}");
        assert!(!r.capped);
        assert!(r.error_ns() >= 0 && r.error_ns() <= CYCLE_NS, "{r:?}");
    }
    assert_eq!(wire.len(), frames.len());
}

#[test]
fn strict_exits_non_zero_when_a_frame_was_not_sent() {
    let _scratch = Scratch;
    if !core_ready() {
        return;
    }
    // Lead 0 and --late drop: the first rows are due before the card sees them and are dropped.
    let t = tmp("late.csv");
    std::fs::write(&t, "launch_ns,queue,len\n0,0,60\n0,1,60\n100000,0,60\n").unwrap();
    let base = [
        "push",
        t.to_str().unwrap(),
        "--lead-ns",
        "0",
        "--late",
        "drop",
    ];
    let out = tsnic(&base);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("warning: 2 of 3 frame(s) were not sent: 2 dropped late"),
        "{err}"
    );
    let mut strict = base.to_vec();
    strict.push("--strict");
    let report = tmp("strict.json");
    strict.extend(["--report", report.to_str().unwrap()]);
    let out = tsnic(&strict);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(
        err.contains("--strict: 2 of 3 frame(s) were not sent"),
        "{err}"
    );
    // The outputs are written all the same.
    let rep: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    assert_eq!(rep["dropped_late"].as_u64(), Some(2));
    // Everything sent: --strict exits 0.
    std::fs::write(&t, "launch_ns,queue,len\n0,0,60\n1000,1,60\n").unwrap();
    let out = tsnic(&["push", t.to_str().unwrap(), "--strict"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn replay_pads_runts_and_warns_about_backward_timestamps() {
    let _scratch = Scratch;
    if !core_ready() {
        return;
    }
    let input = tmp("runts.pcapng");
    let mut w = capture::PcapNgOut::create(&input).unwrap();
    let ts = 1_600_000_000_000_000_000u64;
    let pkts: [(u64, Vec<u8>); 4] = [
        (ts, vec![0xa1; 100]),
        (ts + 3000, vec![0xa2; 42]), // an ARP-sized runt
        (ts + 2000, vec![0xa3; 80]), // goes backwards by 1000 ns
        (ts + 5000, vec![0xa4; 59]),
    ];
    for (t, d) in &pkts {
        w.write(*t, d).unwrap();
    }
    w.finish().unwrap();
    let output = tmp("runts-out.pcapng");
    let out = tsnic(&[
        "replay",
        input.to_str().unwrap(),
        "--pcap",
        output.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert_eq!(err.matches("warning:").count(), 2, "{err}");
    assert!(
        err.contains("2 packet(s) under 60 bytes (the first: packet 1, 42 bytes) are padded"),
        "{err}"
    );
    assert!(
        err.contains(
            "1 packet timestamp(s) go backwards (the first: packet 2, 1000 ns before packet 1)"
        ),
        "{err}"
    );
    let got = capture::read(&output).unwrap();
    let lens: Vec<usize> = got.iter().map(|p| p.data.len()).collect();
    assert_eq!(lens, [100, 60, 80, 60], "capture order kept, runts padded");
    assert_eq!(&got[1].data[..42], &[0xa2; 42][..]);
    assert!(got[1].data[42..].iter().all(|&b| b == 0));
    // The backward packet leaves with the one before it (same launch time), after it.
    assert!(got[2].ts_ns >= got[1].ts_ns);
}

/// Issue 35 item 4 on the simulated card: `--speed`, `--pps`, `--mbps`, `--loop` and `--limit`.
/// Every frame's launch time is the formula's (pass k, frame i: time 0 + k * P + r_i), computed here
/// independently; every frame leaves SENT within a core cycle of it, byte for byte the capture's.
#[test]
fn replay_retimed_looped_and_limited() {
    let _scratch = Scratch;
    if !core_ready() {
        return;
    }
    let input = tmp("retime.pcapng");
    let mut w = capture::PcapNgOut::create(&input).unwrap();
    let base = 1_600_000_000_000_000_000u64;
    // irregular gaps, all longer than the line needs
    let offs = [0u64, 3_001, 5_500, 12_345, 14_000, 20_007];
    let frames: Vec<Vec<u8>> = (0..6)
        .map(|i| (0..60 + i * 37).map(|k| (k * 13 + i * 5) as u8).collect())
        .collect();
    for (o, d) in offs.iter().zip(&frames) {
        w.write(base + o, d).unwrap();
    }
    w.finish().unwrap();
    let round = |a: u128, b: u128| ((a * 2 + b) / (2 * b)) as u64;
    let bits: Vec<u64> = frames.iter().map(|f| (f.len() as u64 + 4) * 8).collect();
    let before: Vec<u64> = (0..6).map(|i| bits[..i].iter().sum()).collect();
    // (flags, frames expected, r_i, gap)
    type R = Box<dyn Fn(usize) -> u64>;
    let cases: Vec<(Vec<&str>, usize, R, u64)> = vec![
        (
            vec!["--speed", "2", "--loop", "3", "--limit", "16"],
            16,
            Box::new(move |i| round(u128::from(offs[i]), 2)),
            round(u128::from(round(u128::from(offs[5]), 2)), 5),
        ),
        (
            vec!["--speed", "0.75"],
            6,
            Box::new(move |i| round(u128::from(offs[i]) * 100, 75)),
            0,
        ),
        (
            vec!["--pps", "300000", "--loop", "2"],
            12,
            Box::new(move |i| round(i as u128 * 1_000_000_000, 300_000)),
            round(1_000_000_000, 300_000),
        ),
        (
            vec!["--mbps", "800", "--loop", "2"],
            12,
            Box::new(move |i| round(u128::from(before[i]) * 1000, 800)),
            round(u128::from(bits[5]) * 1000, 800),
        ),
    ];
    for (flags, n, r, gap) in cases {
        let (output, report) = (tmp("retime-out.pcapng"), tmp("retime.json"));
        let mut args = vec![
            "replay",
            input.to_str().unwrap(),
            "--pcap",
            output.to_str().unwrap(),
            "--report",
            report.to_str().unwrap(),
        ];
        args.extend(&flags);
        let out = tsnic(&args);
        assert!(
            out.status.success(),
            "{flags:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let rep: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
        let t0 = rep["t0_ns"].as_u64().unwrap();
        let fr = rep["frames"].as_array().unwrap();
        assert_eq!(fr.len(), n, "{flags:?}");
        let period = r(5) + gap;
        let got = capture::read(&output).unwrap();
        assert_eq!(got.len(), n, "{flags:?}");
        for (j, f) in fr.iter().enumerate() {
            let (k, i) = ((j / 6) as u64, j % 6);
            let want = t0 + k * period + r(i);
            assert_eq!(f["launch_ns"].as_u64(), Some(want), "{flags:?} frame {j}");
            assert_eq!(f["status"], "SENT", "{flags:?} {f}");
            let e = f["error_ns"].as_i64().unwrap();
            assert!((0..=CYCLE_NS).contains(&e), "{flags:?} frame {j}: {e} ns");
            assert_eq!(got[j].data, frames[i], "{flags:?} frame {j} bytes");
        }
    }
}

/// `replay --queues 4` on the simulated card: each UDP flow keeps one queue, the flows use more than
/// one, and the wire carries the capture in its order, each frame SENT within a cycle of its time.
#[test]
fn replay_spreads_flows_over_queues() {
    replay_spreads(On::Core);
}

#[cfg(feature = "board")]
#[test]
fn board_replay_spreads_flows_over_queues() {
    replay_spreads(On::Board);
}

fn replay_spreads(on: On) {
    let _scratch = Scratch;
    if !core_ready() {
        return;
    }
    let input = tmp("flows.pcapng");
    let mut w = capture::PcapNgOut::create(&input).unwrap();
    let base = 1_600_000_000_000_000_000u64;
    let mut frames = Vec::new();
    for i in 0..32u64 {
        let port = 4000 + (i % 8) as u16; // 8 flows
        let mut f = vec![2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2, 0x08, 0x00];
        f.extend([
            0x45, 0, 0, 46, 0, 0, 0, 0, 64, 17, 0, 0, 192, 168, 0, 1, 192, 168, 0, 2,
        ]);
        f.extend(port.to_be_bytes());
        f.extend([0x13, 0x88, 0, 26, 0, 0]);
        f.extend((0..18).map(|k| (k + i) as u8));
        w.write(base + i * 2000, &f).unwrap();
        frames.push((port, f));
    }
    w.finish().unwrap();
    let (output, report) = (tmp("flows-out.pcapng"), tmp("flows.json"));
    let out = tsnic(&[
        "replay",
        input.to_str().unwrap(),
        "--queues",
        "4",
        "--backend",
        on.spec(),
        "--pcap",
        output.to_str().unwrap(),
        "--report",
        report.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rep: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    assert!(
        rep["backend"].as_str().unwrap().starts_with(on.spec()),
        "{}",
        rep["backend"]
    );
    // every frame left within a gate clock of its time: none may be blamed on the card (a board's
    // gate runs on the MAC clock: 6.4 ns + 0.41 is not late there, though over one core cycle)
    assert_eq!(rep["late_card"], 0, "{rep}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("not because of a busy line"), "{err}");
    let t0 = rep["t0_ns"].as_u64().unwrap();
    let fr = rep["frames"].as_array().unwrap();
    let mut flow_queue: BTreeMap<u16, u64> = BTreeMap::new();
    for (i, f) in fr.iter().enumerate() {
        let q = f["queue"].as_u64().unwrap();
        assert!(q < 4, "{f}");
        let prev = *flow_queue.entry(frames[i].0).or_insert(q);
        assert_eq!(prev, q, "flow {} changed queue at frame {i}", frames[i].0);
        assert_eq!(f["launch_ns"].as_u64(), Some(t0 + i as u64 * 2000));
        assert_eq!(f["status"], "SENT");
        assert!(
            (0..=on.gate_ns()).contains(&f["error_ns"].as_i64().unwrap()),
            "{f}"
        );
    }
    let used: std::collections::BTreeSet<u64> = flow_queue.values().copied().collect();
    assert!(used.len() > 1, "8 flows on one queue: {flow_queue:?}");
    let got = capture::read(&output).unwrap();
    assert_eq!(got.len(), 32);
    for (g, (_, f)) in got.iter().zip(&frames) {
        assert_eq!(&g.data, f, "capture order and bytes");
    }
}

/// A pcapng block: type, length, body, length (little-endian).
fn pcapng_block(ty: u32, body: &[u8]) -> Vec<u8> {
    let len = (12 + body.len()) as u32;
    let mut b = ty.to_le_bytes().to_vec();
    b.extend(len.to_le_bytes());
    b.extend(body);
    b.extend(len.to_le_bytes());
    b
}

/// Issue 35 item 4: `replay --queue-by interface` on the simulated card. A pcapng capture of two
/// interfaces (one with ns timestamps, one with the default us), their packets interleaved: each
/// packet goes on --queue + its interface, leaves at time 0 + (t_i - t_0) SENT within a gate clock,
/// and the wire carries the capture's bytes in its order. With one queue allowed, the first packet
/// of the second interface is refused, named, with the fix.
#[test]
fn replay_maps_pcapng_interfaces_to_queues() {
    let _scratch = Scratch;
    if !core_ready() {
        return;
    }
    let input = tmp("ifaces.pcapng");
    let mut f = Vec::new();
    let mut shb = vec![0x4d, 0x3c, 0x2b, 0x1a, 1, 0, 0, 0];
    shb.extend((-1i64).to_le_bytes());
    f.extend(pcapng_block(0x0a0d_0d0a, &shb));
    // interface 0: Ethernet, if_tsresol 9 (ns); interface 1: Ethernet, the default (us)
    f.extend(pcapng_block(
        1,
        &[1, 0, 0, 0, 0, 0, 0, 0, 9, 0, 1, 0, 9, 0, 0, 0, 0, 0, 0, 0],
    ));
    f.extend(pcapng_block(1, &[1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]));
    let base_us = 1_600_000_000_000_000u64;
    let ifaces = [0u32, 1, 1, 0, 1, 0, 0, 1, 0, 1, 1, 0];
    let mut frames = Vec::new();
    for (k, &i) in ifaces.iter().enumerate() {
        let t_ns = (base_us + 3 * k as u64) * 1000;
        let ts = if i == 0 { t_ns } else { t_ns / 1000 };
        let len = 60 + 41 * k;
        let data: Vec<u8> = (0..len)
            .map(|b| (b * 11 + k * 3 + i as usize) as u8)
            .collect();
        let mut body = i.to_le_bytes().to_vec();
        body.extend(((ts >> 32) as u32).to_le_bytes());
        body.extend((ts as u32).to_le_bytes());
        body.extend((len as u32).to_le_bytes());
        body.extend((len as u32).to_le_bytes());
        body.extend(&data);
        while body.len() % 4 != 0 {
            body.push(0);
        }
        f.extend(pcapng_block(6, &body));
        frames.push((i, t_ns, data));
    }
    std::fs::write(&input, &f).unwrap();
    let (output, report) = (tmp("ifaces-out.pcapng"), tmp("ifaces.json"));
    let out = tsnic(&[
        "replay",
        input.to_str().unwrap(),
        "--queue",
        "2",
        "--queue-by",
        "interface",
        "--pcap",
        output.to_str().unwrap(),
        "--report",
        report.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rep: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    let t0 = rep["t0_ns"].as_u64().unwrap();
    let fr = rep["frames"].as_array().unwrap();
    assert_eq!(fr.len(), frames.len());
    for (j, (f, (i, t, _))) in fr.iter().zip(&frames).enumerate() {
        assert_eq!(
            f["queue"].as_u64(),
            Some(2 + u64::from(*i)),
            "frame {j}: {f}"
        );
        assert_eq!(
            f["launch_ns"].as_u64(),
            Some(t0 + t - frames[0].1),
            "frame {j}"
        );
        assert_eq!(f["status"], "SENT", "frame {j}: {f}");
        let e = f["error_ns"].as_i64().unwrap();
        assert!((0..=CYCLE_NS).contains(&e), "frame {j}: {e} ns");
    }
    let got = capture::read(&output).unwrap();
    assert_eq!(got.len(), frames.len());
    for (j, (g, (_, _, d))) in got.iter().zip(&frames).enumerate() {
        assert_eq!(
            &g.data, d,
            "wire frame {j}: the capture's bytes, in its order"
        );
    }
    // One queue allowed: the first packet of interface 1 (packet 1) is refused, named.
    let out = tsnic(&[
        "replay",
        input.to_str().unwrap(),
        "--queue-by",
        "interface",
        "--queues",
        "1",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(
        err.contains("packet 1 was captured on interface 1") && err.contains("--queues 2"),
        "{err}"
    );
}

/// Jumbo frames on an idle line, with the payload lookahead the CLI chooses for the job
/// (`tune_lookahead`): every one SENT within a launch-gate cycle of its time. On the board the
/// fetch of a 9000-byte payload is paced by the completion buffer (tsnic_pcie_us_rd reserves 9
/// headers per 512-byte read of the 64 the SUME's block has: 7 reads in flight), which the
/// lookahead must cover.
#[test]
fn jumbo_frames_leave_on_time_with_the_chosen_lookahead() {
    jumbo_on_time(On::Core);
}

#[cfg(feature = "board")]
#[test]
fn board_jumbo_frames_leave_on_time_with_the_chosen_lookahead() {
    jumbo_on_time(On::Board);
}

fn jumbo_on_time(on: On) {
    let _scratch = Scratch;
    if !core_ready() {
        return;
    }
    let t = tmp("jumbo.csv");
    let mut text = String::from("launch_ns,queue,len\n");
    for i in 0..8u64 {
        // 20 us apart (a 9000-byte frame takes 7.2 us at 10G): the line is idle at each launch
        text += &format!(
            "{},{},{}\n",
            i * 20_000,
            i % 2,
            [9000, 8999, 1514, 9000][(i % 4) as usize]
        );
    }
    std::fs::write(&t, text).unwrap();
    let report = tmp("jumbo.json");
    let out = tsnic(&[
        "push",
        t.to_str().unwrap(),
        "--backend",
        on.spec(),
        "--report",
        report.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let rep: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    assert!(
        rep["backend"].as_str().unwrap().starts_with(on.spec()),
        "{}",
        rep["backend"]
    );
    assert_eq!(rep["sent"], 8, "{rep}");
    for f in rep["frames"].as_array().unwrap() {
        let e = f["error_ns"].as_i64().unwrap();
        assert!(
            (0..=on.gate_ns()).contains(&e),
            "frame {} ({} bytes) left {e} ns after its launch time ({})",
            f["index"],
            f["len"],
            rep["backend"]
        );
    }
}

/// `replay --threads 2` on the simulated card (its model runs on one thread, so the two posting
/// shares take turns on it: the same shards, hand-over and completion routing as on the null card):
/// the flows spread over queues 0 and 1, one a share, and the wire still carries the capture in its
/// order byte for byte, every frame SENT within a cycle of its time, each flow on one queue.
#[test]
fn replay_with_threads_keeps_bytes_order_and_timing() {
    let _scratch = Scratch;
    if !core_ready() {
        return;
    }
    let input = tmp("threads.pcapng");
    let mut w = capture::PcapNgOut::create(&input).unwrap();
    let base = 1_600_000_000_000_000_000u64;
    let mut frames = Vec::new();
    for i in 0..48u64 {
        let k = (i % 12) as u8; // 12 flows: source address and port count up together
        let mut f = vec![2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2, 0x08, 0x00];
        f.extend([
            0x45, 0, 0, 46, 0, 0, 0, 0, 64, 17, 0, 0, 192, 168, 0, k, 192, 168, 0, 200,
        ]);
        f.extend((4000 + u16::from(k)).to_be_bytes());
        f.extend([0x13, 0x88, 0, 26, 0, 0]);
        f.extend((0..18).map(|j| (j + i) as u8));
        f.resize(60 + (i as usize * 37) % 300, 0x5a);
        w.write(base + i * 1500, &f).unwrap();
        frames.push((k, f));
    }
    w.finish().unwrap();
    let (output, report) = (tmp("threads-out.pcapng"), tmp("threads.json"));
    let out = tsnic(&[
        "replay",
        input.to_str().unwrap(),
        "--threads",
        "2",
        "--pcap",
        output.to_str().unwrap(),
        "--report",
        report.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rep: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    let t0 = rep["t0_ns"].as_u64().unwrap();
    let fr = rep["frames"].as_array().unwrap();
    assert_eq!(fr.len(), 48);
    let mut flow_queue: BTreeMap<u8, u64> = BTreeMap::new();
    for (i, f) in fr.iter().enumerate() {
        let q = f["queue"].as_u64().unwrap();
        assert!(q < 2, "{f}");
        let prev = *flow_queue.entry(frames[i].0).or_insert(q);
        assert_eq!(prev, q, "flow {} changed queue at frame {i}", frames[i].0);
        assert_eq!(f["launch_ns"].as_u64(), Some(t0 + i as u64 * 1500));
        assert_eq!(f["status"], "SENT");
        assert!(
            (0..=CYCLE_NS).contains(&f["error_ns"].as_i64().unwrap()),
            "{f}"
        );
    }
    let used: std::collections::BTreeSet<u64> = flow_queue.values().copied().collect();
    assert_eq!(used.len(), 2, "12 flows, both queues: {flow_queue:?}");
    let got = capture::read(&output).unwrap();
    assert_eq!(got.len(), 48);
    for (g, (_, f)) in got.iter().zip(&frames) {
        assert_eq!(&g.data, f, "capture order and bytes");
    }
}
