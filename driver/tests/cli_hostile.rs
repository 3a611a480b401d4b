//! Hostile and edge inputs to the CLI (issue 34), run as a user runs `tsnic`, each on its own
//! simulated card (`sim:small`, in a scratch TSNIC_SIM_STATE): every case gives the right result or
//! a clear error that names the fix; nothing is lost or misreported silently; a run cut short writes
//! what it has, says so and exits non-zero. tests/README.md lists the cases and outcomes.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

mod common;
use common::core_ready;

/// A fresh directory for one test.
fn dir(name: &str) -> common::ScratchDir {
    common::scratch_dir("hostile", name)
}

fn cmd(state: &Path, args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_tsnic"));
    // run in the test's folder (the state's, or its first folder that exists)
    let cwd = state.ancestors().skip(1).find(|a| a.is_dir()).unwrap();
    c.args(args).env("TSNIC_SIM_STATE", state).current_dir(cwd);
    c
}

/// Run `tsnic ARGS` on the card in `state`: (success, stdout, stderr); never a panic.
fn tsnic(state: &Path, args: &[&str]) -> (bool, String, String) {
    let out: Output = cmd(state, args).output().expect("run tsnic");
    let (o, e) = (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    );
    assert!(!e.contains("panicked"), "tsnic {args:?} panicked:\n{e}");
    (out.status.success(), o, e)
}

fn ok(state: &Path, args: &[&str]) -> (String, String) {
    let (good, o, e) = tsnic(state, args);
    assert!(good, "tsnic {args:?} failed:\n{e}\n{o}");
    (o, e)
}

/// Fails, and stderr holds every one of `want`.
fn refused(state: &Path, args: &[&str], want: &[&str]) -> String {
    let (good, o, e) = tsnic(state, args);
    assert!(!good, "tsnic {args:?} should fail:\n{o}\n{e}");
    for w in want {
        assert!(e.contains(w), "tsnic {args:?}: no `{w}` in:\n{e}");
    }
    e
}

/// A trace file in `d`.
fn trace(d: &Path, name: &str, rows: &[(u64, u32, u32)]) -> PathBuf {
    let p = d.join(name);
    let mut s = String::from("launch_ns,queue,len\n");
    for (t, q, l) in rows {
        s.push_str(&format!("{t},{q},{l}\n"));
    }
    std::fs::write(&p, s).unwrap();
    p
}

/// The number after `key` in the table line that starts with `  row`.
fn number_after(out: &str, row: &str, key: &str) -> u64 {
    let line = out
        .lines()
        .find(|l| l.trim_start().starts_with(row))
        .unwrap_or_else(|| panic!("no `{row}` line in:\n{out}"));
    let rest = &line[line.find(key).unwrap_or_else(|| panic!("{line}")) + key.len()..];
    rest.trim_start()
        .split(|c: char| !c.is_ascii_digit())
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no number after `{key}` in `{line}`"))
}

fn json(p: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap()
}

/// Item 1: `--read-latency-ns` is this command's; the next push on the kept card uses the default
/// lookahead and lead, and its banner says what is in effect.
#[test]
fn simulator_options_do_not_leak_into_the_kept_card() {
    if !core_ready() {
        return;
    }
    let d = dir("leak");
    let st = d.join("card.state");
    let t = trace(&d, "t.csv", &[(0, 0, 60), (1000, 0, 60)]);
    let t = t.to_str().unwrap();
    let (o, _) = ok(
        &st,
        &[
            "push",
            "--backend",
            "sim:small",
            "--read-latency-ns",
            "100000",
            t,
        ],
    );
    assert!(number_after(&o, "time 0", "lead") > 200_000, "{o}");
    assert!(o.contains("100000 ns host read latency"), "{o}");
    let (o, _) = ok(&st, &["push", "--backend", "sim:small", t]);
    let lead = number_after(&o, "time 0", "lead");
    assert!(
        lead <= 50_000,
        "the default lead is back (30 us), not {lead} ns:\n{o}"
    );
    assert!(
        o.contains("800 ns host read latency") && o.contains("payload lookahead 4000 ns"),
        "{o}"
    );
}

/// Issue 30 item 7: the simulated card has no board around it (MAC_LINK_STATUS reads 0), and
/// `tsnic info` says so plainly instead of decoding a link.
#[test]
fn info_on_the_simulated_card_says_not_a_board() {
    if !core_ready() {
        return;
    }
    let d = dir("link");
    let st = d.join("card.state");
    let (o, _) = ok(&st, &["info", "--backend", "sim:small"]);
    let line = o
        .lines()
        .find(|l| l.starts_with("link "))
        .unwrap_or_else(|| panic!("no link row:\n{o}"));
    assert!(
        line.ends_with("  not a board (no PCIe link or MAC behind this backend)"),
        "{line}"
    );
    let (o, _) = ok(&st, &["info", "--backend", "sim:small", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&o).expect("json");
    assert_eq!(v["link"]["status"]["board"], false, "{o}");
    assert_eq!(v["link"]["status"]["raw"], 0, "{o}");
}

/// Item 2: a kept small card opened as the board-size one: the error names the real cause and
/// the fix, and the card is left as it was.
#[test]
fn a_card_of_another_size_is_named() {
    if !core_ready() {
        return;
    }
    let d = dir("size");
    let st = d.join("card.state");
    ok(&st, &["info", "--backend", "sim:small"]);
    let before = std::fs::read(&st).unwrap();
    refused(
        &st,
        &["stats"],
        &["holds the small 64-bit card", "`--backend sim:small`"],
    );
    assert_eq!(std::fs::read(&st).unwrap(), before, "the card was changed");
    ok(&st, &["stats", "--backend", "sim:small"]);
}

/// Item 3: absurd waits are refused with the fix; long ones say up front how long they are.
#[test]
fn long_runs_are_refused_or_announced() {
    if !core_ready() {
        return;
    }
    let d = dir("long");
    let st = d.join("card.state");
    let t = trace(&d, "t.csv", &[(0, 0, 60), (20_000_000, 1, 60)]);
    let t = t.to_str().unwrap();
    let sync = ["phc", "--backend", "sim:small", "sync"];
    refused(
        &st,
        &[&sync[..], &["--samples", "3", "--interval", "100000000s"]].concat(),
        &["--interval", "over an hour"],
    );
    refused(
        &st,
        &[&sync[..], &["--interval", "3600s", "--samples", "100"]].concat(),
        &["over the limit of one day", "fewer --samples"],
    );
    refused(
        &st,
        &[
            "push",
            "--backend",
            "sim:small",
            "--read-latency-ns",
            "100000000",
            t,
        ],
        &["--read-latency-ns 100000000 is outside 1..=100000"],
    );
    let (_, e) = ok(
        &st,
        &[
            &sync[..],
            &["--samples", "3", "--interval", "10s", "--quiet"],
        ]
        .concat(),
    );
    assert!(
        e.contains("3 samples every 10.000000000 s = 30.000000000 s of simulated time"),
        "{e}"
    );
    let (_, e) = ok(&st, &["push", "--backend", "sim:small", "--quiet", t]);
    assert!(e.contains("that much simulated time to run"), "{e}");
}

/// Item 4: 2^64 limits are checked where they wrap: `phc set` and `phc adj` refuse a time past
/// 2^63 - 1 ns and leave the clock alone; a push on a card whose PHC is past it (another tool set
/// it) writes its report, marked partial, and a clear error.
#[test]
fn phc_times_past_the_range_are_refused_where_they_wrap() {
    if !core_ready() {
        return;
    }
    let d = dir("wrap");
    let st = d.join("card.state");
    let phc = ["phc", "--backend", "sim:small"];
    refused(
        &st,
        &[&phc[..], &["set", "18446744073709551615"]].concat(),
        &["2^63 - 1", "tsnic phc set --host"],
    );
    ok(&st, &[&phc[..], &["set", "9223372036854000000"]].concat());
    refused(
        &st,
        &[&phc[..], &["adj", "+1s"]].concat(),
        &["would pass the limit", "2^63 - 1"],
    );
    let (o, _) = ok(&st, &[&phc[..], &["get"]].concat());
    let now = number_after(&o, "phc", "(TAI");
    assert!(
        (9_223_372_036_854_000_000..9_223_372_036_855_000_000).contains(&now),
        "the clock was stepped anyway: {o}"
    );
    // Put the PHC past the range as another tool could (the register, not `tsnic phc set`).
    {
        let opts = tsnic::device::SimOptions {
            small: true,
            state: tsnic::device::sim_state::StateChoice::Path(st.clone()),
            ..Default::default()
        };
        let mut b = tsnic::device::open_sim_backend(&opts).unwrap();
        tsnic::phc::set(&mut b, 18_446_744_073_709_000_000);
        tsnic::device::Backend::close(&mut b).unwrap();
    }
    let t = trace(&d, "t.csv", &[(0, 0, 60), (1000, 0, 60)]);
    let r = d.join("r.json");
    let e = refused(
        &st,
        &[
            "push",
            "--backend",
            "sim:small",
            "--report",
            r.to_str().unwrap(),
            t.to_str().unwrap(),
        ],
        &[
            "past the latest time the driver schedules",
            "tsnic phc set --host",
        ],
    );
    assert!(!e.contains("driver bug"), "{e}");
    let rep = json(&r);
    assert_eq!(rep["unfinished"], 2, "{rep}");
    assert!(rep["partial"].as_str().unwrap().contains("PHC"), "{rep}");
}

/// Item 5: nothing on the wire reads "no frames sent", not error statistics of 0; one frame on the
/// wire says why there is no rate.
#[test]
fn empty_and_single_frame_statistics_say_so() {
    if !core_ready() {
        return;
    }
    let d = dir("stats");
    let st = d.join("card.state");
    let t = trace(&d, "t.csv", &[(0, 0, 60), (1000, 0, 60)]);
    let r = d.join("r.json");
    let (o, _) = ok(
        &st,
        &[
            "push",
            "--backend",
            "sim:small",
            "--absolute",
            "--late",
            "drop",
            "--report",
            r.to_str().unwrap(),
            t.to_str().unwrap(),
        ],
    );
    assert!(o.contains("no frames sent"), "{o}");
    assert!(!o.contains("min 0 /") && !o.contains("0.000 Gb/s"), "{o}");
    let rep = json(&r);
    assert!(
        rep["error_ns"].is_null() && rep["achieved_gbps"].is_null(),
        "{rep}"
    );
    let one = trace(&d, "one.csv", &[(0, 0, 60)]);
    let (o, _) = ok(
        &st,
        &["push", "--backend", "sim:small", one.to_str().unwrap()],
    );
    assert!(!o.contains("0.000 Gb/s"), "{o}");
    assert!(
        o.contains("no rate: one frame went on the wire (a rate needs two departures)"),
        "{o}"
    );
}

/// Item 7: `--max-rate` is bits/s; below what the sender can pace it is refused with the fix, a rate
/// at which --bytes cannot finish within --time-limit too, and an accepted low rate is kept.
#[test]
fn max_rate_works_for_every_value_it_accepts() {
    let d = dir("rate");
    let st = d.join("card.state");
    let send = ["send", "--card", "model"];
    for r in ["1", "7"] {
        refused(
            &st,
            &[&send[..], &["--max-rate", r]].concat(),
            &["lowest --max-rate is 8 (1 byte/s)"],
        );
    }
    refused(
        &st,
        &[&send[..], &["--max-rate", "8"]].concat(),
        &["beyond --time-limit", "raise --max-rate"],
    );
    let (o, _) = ok(
        &st,
        &[
            &send[..],
            &[
                "--max-rate",
                "80k",
                "--bytes",
                "100KB",
                "--path",
                "rate=1G,rtt=1ms,buffer=1MB",
            ],
        ]
        .concat(),
    );
    let acc: f64 = o
        .lines()
        .find(|l| l.starts_with("rate / max-rate"))
        .and_then(|l| l.split_whitespace().last())
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("{o}"));
    assert!(
        (0.95..=1.05).contains(&acc),
        "paced at {acc} x the cap:\n{o}"
    );
    refused(
        &st,
        &[&send[..], &["--path", "rate=10G,rate=1G"]].concat(),
        &["`rate` is given twice"],
    );
}

/// Item 10: captures cut short or with records past their snap length name the fix; control
/// characters in a trace are escaped; `--backend mem` cannot push; `state=` must come last; a named
/// state folder is not created; `--hold-limit 1` says 1 ns; `--report -` is stdout.
#[test]
fn small_confusions() {
    if !core_ready() {
        return;
    }
    let d = dir("confusions");
    let st = d.join("card.state");
    let small = ["--backend", "sim:small"];
    // classic pcap: one whole Ethernet record, then one cut in its middle
    let mut pcap = Vec::new();
    for w in [0xa1b2_c3d4u32, 0x0004_0002, 0, 0, 65_535, 1] {
        pcap.extend_from_slice(&w.to_le_bytes());
    }
    for (i, cut) in [(1u32, 60usize), (2, 20)] {
        for w in [i, 0, 60, 60] {
            pcap.extend_from_slice(&w.to_le_bytes());
        }
        pcap.extend(vec![0u8; cut]);
    }
    std::fs::write(d.join("cut.pcap"), &pcap).unwrap();
    refused(
        &st,
        &[&["replay"][..], &small, &["cut.pcap"]].concat(),
        &[
            "ends inside packet 1",
            "cut short",
            "copy it whole or recapture",
        ],
    );
    // a record whose captured length is below its original length (snap length): recapture
    pcap.truncate(24);
    for w in [1u32, 0, 60, 1514] {
        pcap.extend_from_slice(&w.to_le_bytes());
    }
    pcap.extend(vec![0u8; 60]);
    std::fs::write(d.join("snap.pcap"), &pcap).unwrap();
    refused(
        &st,
        &[&["replay"][..], &small, &["snap.pcap"]].concat(),
        &[
            "captured truncated (60 of 1514 bytes)",
            "larger snap length",
        ],
    );
    // control characters
    std::fs::write(d.join("esc.csv"), "launch_ns,queue,len\n\x1b[31m5,0,60\n").unwrap();
    let e = refused(
        &st,
        &[&["push"][..], &small, &["esc.csv"]].concat(),
        &["`\\u{1b}[31m5`"],
    );
    assert!(!e.contains('\x1b'), "{e:?}");
    let t = trace(&d, "t.csv", &[(0, 0, 60), (1000, 0, 60)]);
    let t = t.to_str().unwrap();
    refused(
        &st,
        &["push", "--backend", "mem", t],
        &["no card behind it", "`sim`"],
    );
    // `state=` takes the rest: an option after it is refused, and nothing is created
    let odd = format!("sim:state={},small", d.join("x.state").display());
    refused(
        &st,
        &["info", "--backend", &odd],
        &["put the options first"],
    );
    assert!(!d.join("x.state,small").exists() && !d.join("x.state,small.lock").exists());
    // a named state folder that does not exist is not made
    let deep = d.join("no").join("such").join("c.state");
    refused(
        &deep,
        &["info", "--backend", "sim:small"],
        &["does not exist", "mkdir -p"],
    );
    assert!(!d.join("no").exists());
    let e = refused(
        &st,
        &[&["push"][..], &small, &["--hold-limit", "1", t]].concat(),
        &["beyond the hold limit of 1 ns"],
    );
    assert!(!e.contains("limit of 0 s"), "{e}");
    // `--report -`: the JSON on stdout, no file named `-`
    let (o, _) = ok(
        &st,
        &[&["push"][..], &small, &["--report", "-", t]].concat(),
    );
    let rep: serde_json::Value = serde_json::from_str(&o).expect("stdout is the JSON report");
    assert_eq!(rep["sent"], 2);
    assert!(!d.join("-").exists());
}

/// Item 10: a card kept in a folder this user cannot write: read-only commands read it, a command
/// that changes it fails saying so (as root the commands run as `nobody`, whom the mode binds).
#[test]
fn a_read_only_card_can_be_read() {
    use std::os::unix::fs::PermissionsExt;
    use std::os::unix::process::CommandExt;
    if !core_ready() {
        return;
    }
    let d = dir("ro");
    let sub = d.join("cards");
    std::fs::create_dir_all(&sub).unwrap();
    let st = sub.join("card.state");
    ok(&st, &["phc", "--backend", "sim:small", "set", "5s"]);
    std::fs::remove_file(sub.join("card.state.lock")).unwrap();
    std::fs::set_permissions(&st, std::fs::Permissions::from_mode(0o644)).unwrap();
    std::fs::set_permissions(&sub, std::fs::Permissions::from_mode(0o555)).unwrap();
    // SAFETY: geteuid has no preconditions and touches no memory.
    let root = unsafe { libc::geteuid() } == 0;
    let run = |args: &[&str]| {
        let mut c = cmd(&st, args);
        if root {
            c.uid(65534).gid(65534);
        }
        let out = c.output().expect("run tsnic");
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (good, o, e) = run(&["phc", "--backend", "sim:small", "get"]);
    assert!(good && o.contains("phc        5.0"), "{o}{e}");
    let (good, o, e) = run(&["info", "--backend", "sim:small"]);
    assert!(
        good && o.contains("a read-only location: not saved"),
        "{o}{e}"
    );
    let (good, _, e) = run(&["phc", "--backend", "sim:small", "set", "7s"]);
    assert!(!good && e.contains("cannot be saved"), "{e}");
    std::fs::set_permissions(&sub, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// Item 10 and the brief: Ctrl-C (SIGINT) in a long push stops it: the card flushes what it holds
/// and is saved with what it sent (not rolled back), the report and capture hold the frames done,
/// the report says it is partial, and the exit status is non-zero.
#[test]
fn ctrl_c_in_a_push_keeps_what_was_done() {
    if !core_ready() {
        return;
    }
    let d = dir("sigint");
    let st = d.join("card.state");
    let rows: Vec<(u64, u32, u32)> = (0..20_000u64)
        .map(|i| (i * 20_000, (i % 8) as u32, 60))
        .collect();
    let t = trace(&d, "long.csv", &rows);
    let (r, pcap) = (d.join("r.json"), d.join("o.pcapng"));
    let mut child = cmd(
        &st,
        &[
            "push",
            "--backend",
            "sim:small",
            "--ring-log2",
            "4",
            "--quiet",
            "--report",
            r.to_str().unwrap(),
            "--pcap",
            pcap.to_str().unwrap(),
            t.to_str().unwrap(),
        ],
    )
    .stdout(Stdio::null())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap();
    // The push says on stderr, just before it starts posting, how much simulated time it spans;
    // stop it a second later (the whole job takes about 30 s of wall time here).
    let mut err = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut first = String::new();
    std::io::BufRead::read_line(&mut err, &mut first).unwrap();
    assert!(first.contains("simulated time to run"), "{first}");
    std::thread::sleep(Duration::from_millis(1000));
    // SAFETY: kill only sends a signal to the child we started; no memory is touched.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGINT) }, 0);
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut err, &mut rest).unwrap();
    let status = child.wait().unwrap();
    let e = format!("{first}{rest}");
    assert!(!status.success() && !e.contains("panicked"), "{e}");
    assert!(e.contains("stopped before the end (a signal"), "{e}");
    let rep = json(&r);
    let sent = rep["sent"].as_u64().unwrap() + rep["sent_late"].as_u64().unwrap();
    assert!(rep["partial"].is_string(), "{rep}");
    assert!(sent > 0 && rep["unfinished"].as_u64().unwrap() > 0, "{rep}");
    let got = tsnic::capture::read(&pcap).unwrap();
    assert_eq!(got.len() as u64, sent, "the capture holds every frame sent");
    // The card kept what it sent: its counters say so in the next command.
    let (o, _) = ok(&st, &["stats", "--backend", "sim:small"]);
    assert_eq!(number_after(&o, "sent", "sent"), sent, "{o}");
}
