//! The simulated card persists between commands as a real card does (`tsnic` run as a user runs it):
//! the PHC and the counters survive from one command to the next, simulated time passes only inside
//! commands, a state from another build or a damaged one is refused with the fix, a killed command
//! saves nothing, a second command on a busy card fails at once, and `tsnic sim reset` power-cycles.
//!
//! Each test keeps its card in its own temporary directory (TSNIC_SIM_STATE or `sim:state=PATH`).

use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use tsnic::contract::reg;
use tsnic::device::mem::MemBackend;
use tsnic::device::{Backend, Caps, Card};
use tsnic::push;

mod common;
use common::{core_ready, repo};

/// A fresh directory for one test's card.
fn card_dir(name: &str) -> common::ScratchDir {
    common::scratch_dir("persist", name)
}

fn cmd(state: &Path, args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_tsnic"));
    c.args(args)
        .env("TSNIC_SIM_STATE", state)
        .current_dir(repo());
    c
}

/// Run `tsnic ARGS` on the card in `state`; (success, stdout, stderr).
fn tsnic(state: &Path, args: &[&str]) -> (bool, String, String) {
    let out: Output = cmd(state, args).output().expect("run tsnic");
    let (o, e) = (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    );
    assert!(!e.contains("panicked"), "tsnic {args:?} panicked:\n{e}");
    (out.status.success(), o, e)
}

fn ok(state: &Path, args: &[&str]) -> String {
    let (ok, o, e) = tsnic(state, args);
    assert!(ok, "tsnic {args:?} failed:\n{e}\n{o}");
    o
}

/// The number after `key` on the line that starts with it.
fn field(out: &str, key: &str, after: &str) -> u64 {
    let line = out
        .lines()
        .find(|l| l.starts_with(key))
        .unwrap_or_else(|| panic!("no `{key}` line in:\n{out}"));
    let rest = &line[line.find(after).unwrap_or_else(|| panic!("{line}")) + after.len()..];
    rest.trim_start()
        .split(|c: char| !c.is_ascii_digit())
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no number after `{after}` in `{line}`"))
}

/// Core cycles the saved card has run (`tsnic sim status`).
fn cycles(state: &Path) -> u64 {
    field(&ok(state, &["sim", "status"]), "card", "at 250 MHz,")
}

/// CRC-32 (IEEE), as the state file's trailer.
fn crc32(data: &[u8]) -> u32 {
    let mut c = !0u32;
    for &b in data {
        c ^= b as u32;
        for _ in 0..8 {
            c = if c & 1 == 1 {
                (c >> 1) ^ 0xedb8_8320
            } else {
                c >> 1
            };
        }
    }
    !c
}

#[test]
fn phc_set_is_there_at_the_next_get_advanced_by_simulated_time_only() {
    if !core_ready() {
        return;
    }
    let d = card_dir("phc");
    let st = d.join("card.state");
    let fresh = field(&ok(&st, &["phc", "get"]), "phc", "(TAI");
    // near 0: the post-reset RAM clear (262 us at the board's size) is all that ran
    assert!(
        fresh < 1_000_000,
        "a fresh card's PHC starts near 0: {fresh}"
    );
    let c0 = cycles(&st);
    ok(&st, &["phc", "set", "5000000000"]);
    ok(&st, &["phc", "freq", "1000"]);
    // Wall-clock time between commands does not count: the card's time is frozen between them.
    std::thread::sleep(Duration::from_millis(1500));
    let out = ok(&st, &["phc", "get"]);
    let c1 = cycles(&st);
    let phc = field(&out, "phc", "(TAI");
    assert_eq!(field(&out, "freq", "freq"), 1000, "{out}");
    assert_eq!(field(&out, "steps", "steps"), 1, "{out}");
    // The clock went on from the SET by the simulated cycles since (4 ns each at 250 MHz, 1000 ppb
    // faster): more than 0, never more than the cycles the commands ran in between.
    let elapsed = phc - 5_000_000_000;
    let bound = (c1 - c0) * 4 + (c1 - c0) * 4 / 1_000_000 + 1;
    assert!(
        elapsed > 0 && elapsed <= bound,
        "PHC advanced {elapsed} ns; the commands ran {} cycles ({bound} ns)",
        c1 - c0
    );
    assert!(
        elapsed < 1_000_000,
        "the 1.5 s of wall time leaked in: {elapsed} ns"
    );
    // `sim:state=none` is a fresh card, and does not touch the kept one.
    let (good, out, e) = tsnic(&st, &["phc", "--backend", "sim:state=none", "get"]);
    assert!(good, "{e}");
    assert!(field(&out, "phc", "(TAI") < 1_000_000, "{out}");
    assert_eq!(cycles(&st), c1);
}

#[test]
fn push_then_stats_shows_the_frames_and_a_second_push_adds_to_them() {
    if !core_ready() {
        return;
    }
    let d = card_dir("push");
    let st = d.join("card.state");
    let spec = format!("sim:state={}", st.display());
    let report = d.join("r.json");
    let mut totals = [0u64; 4];
    for round in 1..=2u64 {
        // Named by the backend spec this time; TSNIC_SIM_STATE points elsewhere and must not matter.
        let (good, _, e) = tsnic(
            &d.join("unused.state"),
            &[
                "push",
                "tests/traces/demo.csv",
                "--quiet",
                "--backend",
                &spec,
                "--report",
                report.to_str().unwrap(),
            ],
        );
        assert!(good, "push {round}: {e}");
        // the demo's 20 frames all reach the wire (its far row is held, then sent)
        assert!(
            e.contains("wire: 20 frames, 0 underruns"),
            "this push's own share: {e}"
        );
        let rep: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
        assert_eq!(rep["early"], 0);
        for (i, k) in ["sent", "sent_late", "dropped_horizon", "packets"]
            .iter()
            .enumerate()
        {
            totals[i] += rep[*k].as_u64().unwrap();
        }
        let (good, out, e) = tsnic(
            &d.join("unused.state"),
            &["stats", "--json", "--backend", &spec],
        );
        assert!(good, "{e}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        let g = &v["global"];
        assert_eq!(g["sent"].as_u64().unwrap(), totals[0], "round {round}: {v}");
        assert_eq!(g["sent_late"].as_u64().unwrap(), totals[1], "{v}");
        assert_eq!(g["dropped_horizon"].as_u64().unwrap(), totals[2], "{v}");
        assert_eq!(g["posted"].as_u64().unwrap(), totals[3], "{v}");
        assert_eq!(totals[3], 20 * round);
        let per_q: u64 = v["queues"]
            .as_array()
            .unwrap()
            .iter()
            .map(|q| q["posted"].as_u64().unwrap())
            .sum();
        assert_eq!(per_q, 20 * round, "{v}");
    }
    let info = ok(&d.join("unused.state"), &["info", "--backend", &spec]);
    assert!(
        info.contains("running") && info.contains(&format!("card kept in {}", st.display())),
        "{info}"
    );
    assert!(
        !d.join("unused.state").exists(),
        "TSNIC_SIM_STATE was used despite the spec"
    );
    // The pushes left the kept card quiet: no TX queue and no completion ring enabled that would
    // reach into the memory of a process that has exited.
    let mut card = Card::open(&spec).expect("the kept card");
    let caps = card.caps().clone();
    for q in 0..caps.num_queues as u16 {
        assert_eq!(
            card.backend().read32(caps.q_reg(q, reg::Q_CTRL)),
            0,
            "queue {q} left enabled"
        );
    }
    assert_eq!(
        card.backend().read32(reg::CPL_CTRL),
        0,
        "completion ring left enabled"
    );
    card.close().unwrap();
}

/// After a failed job, too, the driver disables the job's queues and the completion ring.
#[test]
fn a_failed_job_leaves_the_queues_and_completion_ring_disabled() {
    let mut m = MemBackend::new_identity();
    let caps = Caps::read(&mut m).unwrap();
    for q in [1u16, 3] {
        m.write32(caps.q_reg(q, reg::Q_CTRL), 1);
    }
    m.write32(reg::CPL_CTRL, 1);
    push::leave_quiet(&mut m, &caps, &[1, 3], true);
    for q in [1u16, 3] {
        assert_eq!(m.read32(caps.q_reg(q, reg::Q_CTRL)), 0);
    }
    assert_eq!(m.read32(reg::CPL_CTRL), 0);
}

#[test]
fn states_from_another_build_or_damaged_are_refused_and_reset_power_cycles() {
    if !core_ready() {
        return;
    }
    let d = card_dir("refuse");
    let st = d.join("card.state");
    ok(&st, &["phc", "set", "7000000000"]);
    let good = std::fs::read(&st).unwrap();
    let refused = |bytes: &[u8], want: &str| {
        std::fs::write(&st, bytes).unwrap();
        let (ok_, out, e) = tsnic(&st, &["info"]);
        assert!(!ok_, "accepted a bad state ({want}): {out}");
        assert!(
            e.contains(want) && e.contains("tsnic sim reset"),
            "{want}: {e}"
        );
        // Refused, not replaced: the file is left for the user to look at or reset.
        assert_eq!(std::fs::read(&st).unwrap(), bytes);
    };
    // Another build: the fingerprint (after magic, version and its length) differs; CRC made valid.
    let mut other = good.clone();
    other[20] = if other[20] == b'0' { b'1' } else { b'0' };
    let n = other.len() - 4;
    let crc = crc32(&other[..n]);
    other[n..].copy_from_slice(&crc.to_le_bytes());
    refused(&other, "different build of the core");
    refused(&good[..good.len() / 2], "corrupt or truncated");
    refused(&good[..5], "not a tsnic simulated-card state");
    let mut flipped = good.clone();
    flipped[good.len() - 100] ^= 0x01;
    refused(&flipped, "corrupt or truncated");
    refused(b"", "not a tsnic simulated-card state");
    let status = ok(&st, &["sim", "status"]);
    assert!(status.contains("unusable"), "{status}");
    // The good state still works, then reset gives a fresh card.
    std::fs::write(&st, &good).unwrap();
    let phc = field(&ok(&st, &["phc", "get"]), "phc", "(TAI");
    assert!(phc > 7_000_000_000, "{phc}");
    let out = ok(&st, &["sim", "reset"]);
    assert!(out.contains("power-cycled"), "{out}");
    assert!(!st.exists());
    let phc = field(&ok(&st, &["phc", "get"]), "phc", "(TAI");
    assert!(phc < 1_000_000, "after reset the PHC starts again: {phc}");
    assert!(ok(&d.join("none.state"), &["sim", "reset"]).contains("no state at"));
}

#[test]
fn a_busy_card_refuses_a_second_command_and_a_killed_command_saves_nothing() {
    if !core_ready() {
        return;
    }
    let d = card_dir("busy");
    let st = d.join("card.state");
    ok(&st, &["phc", "set", "9000000000"]);
    let before = std::fs::read(&st).unwrap();
    // A long command (a sync of many samples) holds the card.
    let mut long = cmd(
        &st,
        &[
            "phc",
            "sync",
            "--samples",
            "1000000",
            "--interval",
            "1ms",
            "--quiet",
        ],
    )
    .stdout(std::process::Stdio::null())
    .stderr(std::process::Stdio::null())
    .spawn()
    .expect("spawn tsnic");
    let lock = d.join("card.state.lock");
    let t = Instant::now();
    while std::fs::read_to_string(&lock).unwrap_or_default() != long.id().to_string() {
        assert!(
            t.elapsed() < Duration::from_secs(60),
            "the long command never took the card"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let (good, _, e) = tsnic(&st, &["stats"]);
    assert!(!good, "a second command ran on a busy card");
    assert!(
        e.contains(&format!(
            "in use by another tsnic command (pid {})",
            long.id()
        )) && e.contains("sim:state="),
        "{e}"
    );
    // Killed mid-run: it saves nothing, the next command finds the card as the last finished one
    // left it.
    std::thread::sleep(Duration::from_millis(300));
    long.kill().unwrap();
    long.wait().unwrap();
    assert_eq!(std::fs::read(&st).unwrap(), before);
    let out = ok(&st, &["phc", "get"]);
    assert_eq!(field(&out, "steps", "steps"), 1, "{out}");
    assert_eq!(
        field(&out, "freq", "freq"),
        0,
        "the sync's trims were not kept: {out}"
    );
}
