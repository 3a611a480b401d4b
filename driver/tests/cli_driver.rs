//! The driver-core subcommands as a user runs them: `tsnic info`, `tsnic stats`, `tsnic phc` on the
//! `mem` backend (no card, PHC = Rust model of the RTL), and their errors on this machine.

use std::process::Command;

mod bin;
use bin::tsnic;
mod scratch;
use scratch::{tmp, Scratch};

#[test]
fn info_and_stats_on_mem() {
    let (ok, out, err) = tsnic(&["info", "--backend", "mem"]);
    assert!(ok, "{err}");
    assert!(
        out.contains("contract version  1.0") && out.contains("TX queues         8"),
        "{out}"
    );
    // the mem backend has no board behind it: MAC_LINK_STATUS reads 0, said plainly
    assert!(
        out.lines().any(|l| l.starts_with("link ")
            && l.ends_with("  not a board (no PCIe link or MAC behind this backend)")),
        "{out}"
    );
    let (ok, out, err) = tsnic(&["info", "--backend", "mem", "--json"]);
    assert!(ok, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    assert_eq!(v["caps"]["num_queues"], 8);
    let (ok, out, _) = tsnic(&["stats", "--backend", "mem", "--all"]);
    assert!(
        ok && out.contains("dropped_horizon") && out.lines().count() >= 9 + 2 + 8,
        "{out}"
    );
    let (ok, _, err) = tsnic(&["stats", "--backend", "mem", "--queue", "8"]);
    assert!(
        !ok && err.contains("queue 8 does not exist: the card has 8 queues"),
        "{err}"
    );
}

#[test]
fn phc_commands_on_mem() {
    let (ok, out, err) = tsnic(&["phc", "--backend", "mem", "get"]);
    assert!(ok && out.contains("freq       0 ppb"), "{out}{err}");
    let (ok, out, _) = tsnic(&["phc", "--backend", "mem", "set", "5000000000"]);
    assert!(ok && out.contains("phc set to 5.000000000 s"), "{out}");
    let (ok, out, _) = tsnic(&["phc", "--backend", "mem", "adj", "+2us"]);
    assert!(ok && out.contains("adjusted by +2000 ns"), "{out}");
    let (ok, _, err) = tsnic(&["phc", "--backend", "mem", "freq", "20000000"]);
    assert!(!ok && err.contains("outside +/-10000000 ppb"), "{err}");
    let (ok, out, err) = tsnic(&[
        "phc",
        "--backend",
        "mem",
        "sync",
        "--interval",
        "1s",
        "--samples",
        "60",
        "--host-error-ppb",
        "-100000",
        "--quiet",
    ]);
    assert!(ok, "{err}");
    assert!(out.contains("|offset| under 50 ns from sample"), "{out}");
}

#[test]
fn errors_name_the_fix() {
    let (ok, _, err) = tsnic(&["info", "--backend", "pcie"]);
    assert!(
        !ok && err.contains("unknown backend `pcie`: use `sim` (or `sim:small`")
            && err.contains("`mem` or `vfio:DDDD:BB:DD.F`"),
        "{err}"
    );
    let (ok, _, err) = tsnic(&["info", "--backend", "vfio:01:00"]);
    assert!(!ok && err.contains("bad PCI address `01:00`"), "{err}");
    if !std::path::Path::new("/dev/vfio/vfio").exists() {
        let (ok, _, err) = tsnic(&["info", "--backend", "vfio:0000:01:00.0"]);
        assert!(!ok && err.contains("modprobe vfio-pci"), "{err}");
    }
    let (ok, _, err) = tsnic(&[
        "phc",
        "--backend",
        "vfio:0000:01:00.0",
        "sync",
        "--host-error-ppb",
        "5",
    ]);
    assert!(!ok, "{err}");
}

/// A build without the `sim` feature (a driver for a real card) still knows `--backend sim` and
/// `tsnic send`, and says how to get a build that has them (`replay` opens the card as `push` does).
#[cfg(not(feature = "sim"))]
#[test]
fn without_the_sim_feature_the_simulator_is_named_not_missing() {
    let trace = std::env::temp_dir().join(format!("tsnic-nosim-{}.csv", std::process::id()));
    std::fs::write(&trace, "launch_ns,queue,len\n0,0,60\n").expect("write trace");
    let trace = trace.to_str().expect("utf-8 temp path").to_string();
    for args in [
        &["info"][..],
        &["phc", "get"],
        &["push", &trace],
        &["send", "--cc", "bbr", "--bytes", "1MB"],
    ] {
        let (ok, _, err) = tsnic(args);
        assert!(!ok, "{args:?} must fail");
        assert!(
            err.contains("without its `sim` feature")
                && err.contains("cargo build --release -p tsnic"),
            "{args:?}: {err}"
        );
    }
    std::fs::remove_file(&trace).ok();
}

fn trace_file(name: &str, body: &str) -> std::path::PathBuf {
    let p = tmp(name);
    std::fs::write(&p, body).unwrap();
    p
}

/// Outputs are checked before anything runs (the `mem` backend would fail later, so every error
/// below comes from the check): extension, folder, same file as the input or another output.
#[test]
fn push_checks_outputs_before_running() {
    let _scratch = Scratch;
    let t = trace_file("out.csv", "launch_ns,queue,len\n0,0,60\n");
    let ts = t.to_str().unwrap();
    let pcap = tmp("x.pcap");
    let (ok, _, err) = tsnic(&[
        "push",
        "--backend",
        "mem",
        ts,
        "--pcap",
        pcap.to_str().unwrap(),
    ]);
    assert!(
        !ok && err.contains("--pcap") && err.contains("must end in .pcapng"),
        "{err}"
    );
    assert!(!pcap.exists());
    let (ok, _, err) = tsnic(&[
        "push",
        "--backend",
        "mem",
        ts,
        "--plot",
        tmp("x.gif").to_str().unwrap(),
    ]);
    assert!(!ok && err.contains("must end in .png or .svg"), "{err}");
    let (ok, _, err) = tsnic(&[
        "push",
        "--backend",
        "mem",
        ts,
        "--report",
        "/nonexistent-tsnic/r.json",
    ]);
    assert!(
        !ok && err.contains("--report") && err.contains("does not exist"),
        "{err}"
    );
    // the trace itself, named another way: refused, and the trace is untouched
    let same = t.parent().unwrap().join(".").join("out.csv");
    let (ok, _, err) = tsnic(&[
        "push",
        "--backend",
        "mem",
        ts,
        "--report",
        same.to_str().unwrap(),
    ]);
    assert!(!ok && err.contains("same file as the trace"), "{err}");
    assert_eq!(
        std::fs::read_to_string(&t).unwrap(),
        "launch_ns,queue,len\n0,0,60\n"
    );
    let both = tmp("both.pcapng");
    let (ok, _, err) = tsnic(&[
        "push",
        "--backend",
        "mem",
        ts,
        "--pcap",
        both.to_str().unwrap(),
        "--report",
        both.to_str().unwrap(),
    ]);
    assert!(
        !ok && err.contains("--report") && err.contains("same file as --pcap"),
        "{err}"
    );
    // replay: the capture as its own output
    let cap = tmp("in.pcapng");
    std::fs::write(&cap, b"not really").unwrap();
    let (ok, _, err) = tsnic(&[
        "replay",
        "--backend",
        "mem",
        cap.to_str().unwrap(),
        "--pcap",
        cap.to_str().unwrap(),
    ]);
    assert!(!ok && err.contains("same file as the capture"), "{err}");
}

/// No arithmetic wraps: a lead that overflows the PHC is an error, not time 271 ns.
#[test]
fn push_refuses_wrapping_times_and_too_long_holds() {
    let _scratch = Scratch;
    let t = trace_file("wrap.csv", "launch_ns,queue,len\n0,0,60\n");
    let (ok, _, err) = tsnic(&[
        "push",
        "--backend",
        "mem",
        t.to_str().unwrap(),
        "--lead-ns",
        "18446744073709551615",
    ]);
    assert!(
        !ok && err.contains("--lead-ns") && err.contains("overflows 64 bits"),
        "{err}"
    );
    // A relative row that overflows time 0.
    let t = trace_file(
        "wrap2.csv",
        "launch_ns,queue,len\n18446744073709551615,0,60\n",
    );
    let (ok, _, err) = tsnic(&["push", "--backend", "mem", t.to_str().unwrap()]);
    assert!(!ok && err.contains("overflows 64 bits"), "{err}");
    // --absolute TAI times on a card whose PHC is near 0: held for decades? No: refused, with the fix.
    let t = trace_file("abs.csv", "launch_ns,queue,len\n1700000000000000000,0,60\n");
    let (ok, _, err) = tsnic(&[
        "push",
        "--backend",
        "mem",
        "--absolute",
        t.to_str().unwrap(),
    ]);
    assert!(
        !ok && err.contains("beyond the hold limit") && err.contains("tsnic phc get"),
        "{err}"
    );
    let (ok, _, err) = tsnic(&[
        "push",
        "--backend",
        "mem",
        "--hold-limit=-1s",
        t.to_str().unwrap(),
    ]);
    assert!(!ok && err.contains("negative"), "{err}");
}

/// --ring-log2 above what the card takes is an error that says the largest, not a silent clamp.
#[test]
fn push_refuses_ring_sizes_above_the_card() {
    let _scratch = Scratch;
    let t = trace_file("ring.csv", "launch_ns,queue,len\n0,0,60\n");
    let (ok, _, err) = tsnic(&[
        "push",
        "--backend",
        "mem",
        t.to_str().unwrap(),
        "--ring-log2",
        "16",
    ]);
    assert!(
        !ok && err.contains("--ring-log2 16 is outside") && err.contains("1..=15"),
        "{err}"
    );
    let (ok, _, err) = tsnic(&[
        "push",
        "--backend",
        "mem",
        t.to_str().unwrap(),
        "--ring-log2",
        "0",
    ]);
    assert!(!ok && err.contains("--ring-log2 0 is outside"), "{err}");
}

/// A UTF-8 BOM is accepted (the error below is about line 3, not the header); UTF-16 is named.
#[test]
fn trace_encodings() {
    let _scratch = Scratch;
    let t = trace_file("bom.csv", "\u{feff}launch_ns,queue,len\n0,0,60\n0,99,60\n");
    let (ok, _, err) = tsnic(&["push", "--backend", "mem", t.to_str().unwrap()]);
    assert!(!ok && err.contains("line 3, field `queue`"), "{err}");
    let utf16: Vec<u8> = [0xff, 0xfe]
        .into_iter()
        .chain(
            "launch_ns,queue,len\n"
                .encode_utf16()
                .flat_map(|u| u.to_le_bytes()),
        )
        .collect();
    let p = tmp("utf16.csv");
    std::fs::write(&p, utf16).unwrap();
    let (ok, _, err) = tsnic(&["push", "--backend", "mem", p.to_str().unwrap()]);
    assert!(
        !ok && err.contains("UTF-16") && err.contains("save it as UTF-8"),
        "{err}"
    );
}

/// `tsnic stats | head -1`: the reader has closed the pipe (here before tsnic writes its first
/// line, so every write meets it); the command does not panic, runs to its end, and fails saying its
/// output was cut short (issue 34: a truncated output with exit 0 reads as complete). A write error
/// of another kind (stdout on a full device) fails it with the reason.
#[test]
fn output_to_a_closed_pipe_or_a_full_device() {
    use std::process::Stdio;
    // stdout is a socket whose reader has gone before tsnic starts, so every write meets it (a pipe
    // closed after the spawn could race tsnic's writes into its buffer)
    let (ours, theirs) = std::os::unix::net::UnixStream::pair().expect("socketpair");
    drop(ours);
    let child = Command::new(env!("CARGO_BIN_EXE_tsnic"))
        .args(["stats", "--backend", "mem", "--all"])
        .stdout(Stdio::from(std::os::fd::OwnedFd::from(theirs)))
        .stderr(Stdio::piped())
        .spawn()
        .expect("run tsnic");
    let out = child.wait_with_output().expect("wait");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "exit {:?}: {err}", out.status);
    assert!(err.contains("stdout was closed by its reader"), "{err}");
    assert!(!err.contains("panicked"), "{err}");

    if let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") {
        let out = Command::new(env!("CARGO_BIN_EXE_tsnic"))
            .args(["stats", "--backend", "mem", "--all"])
            .stdout(full)
            .output()
            .expect("run tsnic");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{err}");
        assert!(err.contains("writing the output to stdout failed"), "{err}");
    }
}

/// Hostile inputs to `tsnic phc` and `tsnic push` on the `mem` backend (issue 34; tests/README.md
/// lists them): each is refused once, naming the fix, or does what it says.
#[test]
fn hostile_inputs_on_mem() {
    // a TAI time with a unit is a time
    let (ok, out, err) = tsnic(&["phc", "--backend", "mem", "set", "5s"]);
    assert!(ok && out.contains("phc set to 5.000000000 s"), "{out}{err}");
    // past 2^63 - 1 ns: refused where the 64-bit count would wrap
    let (ok, _, err) = tsnic(&["phc", "--backend", "mem", "set", "18446744073709551615"]);
    assert!(!ok && err.contains("2^63 - 1"), "{err}");
    // a refusal says its limit once
    let (ok, _, err) = tsnic(&["phc", "--backend", "mem", "freq", "20000000"]);
    assert!(!ok && err.matches("10000000 ppb").count() == 1, "{err}");
    // no samples, and a sync that did not settle, fail
    let (ok, _, err) = tsnic(&["phc", "--backend", "mem", "sync", "--samples", "0"]);
    assert!(!ok && err.contains("at least 1"), "{err}");
    let (ok, out, err) = tsnic(&["phc", "--backend", "mem", "sync", "--samples", "1"]);
    assert!(
        !ok && out.contains("not settled") && err.contains("did not settle"),
        "{out}{err}"
    );
    // the mem backend has no card to push through
    let d = std::env::temp_dir().join(format!("tsnic-cli-mem-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    let t = d.join("t.csv");
    std::fs::write(&t, "launch_ns,queue,len\n0,0,60\n").unwrap();
    let (ok, out, err) = tsnic(&["push", "--backend", "mem", t.to_str().unwrap()]);
    assert!(
        !ok && err.contains("no card behind it") && out.is_empty(),
        "{out}{err}"
    );
    std::fs::remove_dir_all(&d).ok();
}
