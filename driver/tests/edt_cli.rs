//! `tsnic send` as a user runs it (software card model): its exit status and its errors.
//!
//! Run: `cargo test -p tsnic --test edt_cli`

use std::process::Command;

fn tsnic(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_tsnic"))
        .args(args)
        .output()
        .expect("run tsnic");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn send_exits_zero_when_the_transfer_completes() {
    let (ok, out, err) = tsnic(&[
        "send",
        "--card",
        "model",
        "--bytes",
        "50KB",
        "--path",
        "rate=1G,rtt=100us,buffer=1MB",
    ]);
    assert!(ok, "{out}{err}");
    assert!(out.contains("completed    true"), "{out}");
}

#[test]
fn send_fails_and_says_why_when_the_transfer_does_not_complete() {
    // A path with a 1-byte buffer drops every frame: the SYN never gets an answer.
    let (ok, out, err) = tsnic(&[
        "send",
        "--card",
        "model",
        "--bytes",
        "50KB",
        "--path",
        "rate=1G,rtt=1ms,buffer=1",
        "--time-limit",
        "5s",
    ]);
    assert!(!ok, "exit status 0 for an incomplete transfer\n{out}");
    assert!(
        err.contains("did not complete")
            && err.contains("no SYN-ACK")
            && err.contains("bottleneck"),
        "{err}"
    );
    // Given the time, the SYN retransmissions run out (tcp_syn_retries 6: 127 s).
    let (ok, _, err) = tsnic(&[
        "send",
        "--card",
        "model",
        "--bytes",
        "50KB",
        "--path",
        "rate=1G,rtt=1ms,buffer=1",
        "--time-limit",
        "200s",
    ]);
    assert!(!ok);
    assert!(
        err.contains("timed out") && err.contains("6 retransmissions"),
        "{err}"
    );
    // Out of time in the middle of the data.
    let (ok, _, err) = tsnic(&[
        "send",
        "--card",
        "model",
        "--bytes",
        "10MB",
        "--path",
        "rate=100M,rtt=1ms,buffer=1MB",
        "--time-limit",
        "50ms",
    ]);
    assert!(!ok);
    assert!(
        err.contains("bytes acknowledged") && err.contains("--time-limit"),
        "{err}"
    );
}

#[test]
fn zero_rates_and_durations_must_be_positive() {
    for args in [
        &["--max-rate", "0"][..],
        &["--line-rate", "0M"],
        &["--tick", "0"],
        &["--time-limit", "0ms"],
        &["--path", "rate=0,rtt=1ms,buffer=1MB"],
    ] {
        let mut a = vec!["send", "--card", "model", "--bytes", "10KB"];
        a.extend_from_slice(args);
        let (ok, _, err) = tsnic(&a);
        assert!(!ok && err.contains("must be positive"), "{args:?}: {err}");
    }
    // A zero jitter is fine (the default).
    let (ok, _, err) = tsnic(&[
        "send", "--card", "model", "--bytes", "10KB", "--jitter", "0",
    ]);
    assert!(ok, "{err}");
}
