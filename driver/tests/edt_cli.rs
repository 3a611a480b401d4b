//! `tsnic send` as a user runs it (software card model): its exit status and its errors.
//!
//! Run: `cargo test -p tsnic --test edt_cli`

mod bin;
use bin::tsnic;

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

/// `--flows N` reports each flow (issue 36, item 5): one row per flow in the table and the JSON, the
/// rows add up to the run's totals, and Jain's index is the one computed here from the rows.
#[test]
fn send_reports_each_flow_and_jains_index() {
    let (ok, out, err) = tsnic(&[
        "send",
        "--card",
        "model",
        "--flows",
        "3",
        "--bytes",
        "300KB",
        "--path",
        "rate=1G,rtt=100us,buffer=60KB",
        "--report",
        "-",
    ]);
    assert!(ok, "{out}{err}");
    let r: serde_json::Value = serde_json::from_str(&out).expect("the report is JSON");
    let flows = r["per_flow"].as_array().expect("per_flow");
    assert_eq!(flows.len(), 3, "{}", r["per_flow"]);
    let u = |v: &serde_json::Value| v.as_u64().expect("a count");
    let sum = |k: &str| flows.iter().map(|f| u(&f[k])).sum::<u64>();
    assert_eq!(sum("bytes_acked"), u(&r["bytes_acked"]));
    assert_eq!(
        sum("retransmitted_segments"),
        u(&r["retransmitted_segments"])
    );
    assert_eq!(sum("rto_fires"), u(&r["rto_fires"]));
    for (i, f) in flows.iter().enumerate() {
        assert_eq!(u(&f["flow"]), i as u64);
        assert!(f["completed"].as_bool().unwrap(), "{f}");
        assert!(u(&f["bytes_acked"]) >= 300_000, "{f}");
        assert_eq!(u(&f["final_cwnd"]), u(&r["final_cwnd"][i]));
        assert!(f["srtt_mean_us"].as_f64().unwrap() >= 100.0, "{f}");
    }
    let g: Vec<f64> = flows
        .iter()
        .map(|f| f["goodput_mbps"].as_f64().unwrap())
        .collect();
    let jain = g.iter().sum::<f64>().powi(2) / (3.0 * g.iter().map(|x| x * x).sum::<f64>());
    let reported = r["jain_fairness"].as_f64().expect("jain_fairness");
    assert!((reported - jain).abs() < 1e-9, "{reported} vs {jain}");
    assert!(jain > 1.0 / 3.0 && jain <= 1.0, "{jain}");

    // the table prints the rows and the index
    let (ok, out, err) = tsnic(&[
        "send",
        "--card",
        "model",
        "--flows",
        "2",
        "--bytes",
        "100KB",
        "--path",
        "rate=1G,rtt=100us,buffer=1MB",
    ]);
    assert!(ok, "{out}{err}");
    assert!(out.contains("Jain's fairness index"), "{out}");
    assert_eq!(
        out.lines()
            .filter(|l| l.trim_start().starts_with("0 ") || l.trim_start().starts_with("1 "))
            .count(),
        2,
        "{out}"
    );
}
