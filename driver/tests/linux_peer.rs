//! `tsnic send --peer linux`: the EDT sender against the real Linux TCP stack (a TAP into a
//! network namespace, a plain socket receiver), in real time, as a user runs it.
//!
//! These tests need root, /dev/net/tun and network namespaces (the test machine has them). If
//! any is missing they FAIL, naming what is missing: they never pass without having run. After
//! every run they check that nothing was left behind (namespace, TAP). The captures are checked
//! with tshark. Runs go one at a time (they share the host's CPUs in real time).
//!
//! The transfer is judged by Linux, not by tsnic's report: the receiver process writes its own
//! account (`--peer-evidence`: bytes read, their SHA-256, EOF, its FIN acknowledged), and the
//! test compares it with a hash it computes itself ([`assert_linux_evidence`]). Loss recovery
//! is bounded from both sides ([`assert_loss_bounds`]).
//!
//! Planted bugs these checks were shown to catch (issue 34 item 13; not committed). To replant
//! one, make the edit, run `cargo test -p tsnic --release --test linux_peer -- --test-threads 1
//! NAME`, and see the quoted failure:
//! - resend all in flight on a loss: in `TcpSender::rack_detect_loss`
//!   (driver/src/edt/sender/recovery.rs), after `detect_loss`, when `lost > 0` set `lost = true` on every
//!   segment with `!sacked && tx_count > 0`. `recovered_like_linux`: "EDT sender: 307
//!   retransmissions for 10 drops: 297 needless, more than its 0 TLP probes".
//! - a wrong byte with a report that lies: in `build_data_frame` (driver/src/edt/sender/output.rs),
//!   keep `frame::build_pattern`'s frame and, when `seg.off <= 1_000_000 < seg.off + seg.len`, xor
//!   its byte `frame.len() - seg.len + (1_000_000 - seg.off)` with 1 (stream byte 1_000_000),
//!   then zero the TCP checksum field and write `frame::tcp_checksum` of the segment back (Linux
//!   drops a segment whose checksum is wrong, and the run would only time out), and in
//!   driver/src/peer/realtime.rs set `peer.sha256_match = true;
//!   peer.sha256 = expected.clone();`. `cubic_20mb`: "Linux read other bytes than the test
//!   asked to send" (the checks before this one passed it).
//! - no FIN: make `TcpSender::close` leave `fin_queued` false. `cubic_20mb` (after the 60 s
//!   time limit): "Linux never read EOF (no FIN from the sender)".
//! - Linux's FIN not acknowledged: drop the `post_pure_ack` when the peer's FIN arrives in
//!   `FinWait` (sender/input.rs). `cubic_20mb`: "the sender did not acknowledge Linux's FIN" (the
//!   checks before this one passed it: the report's `fin_from_linux` is only a flag seen).

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde_json::Value;

static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner())
}

/// Fail (never skip) when the machine cannot run these tests.
fn require_environment() {
    let mut missing = Vec::new();
    if tsnic::peer::sys::euid() != 0 {
        missing.push("root");
    }
    if !Path::new("/dev/net/tun").exists() {
        missing.push("/dev/net/tun");
    }
    if !Path::new("/proc/self/ns/net").exists() {
        missing.push("network namespaces");
    }
    if tsnic::peer::netns::ip_binary().is_none() {
        missing.push("`ip` (iproute2)");
    }
    if Command::new("tshark").arg("-v").output().is_err() {
        missing.push("tshark");
    }
    assert!(
        missing.is_empty(),
        "the Linux peer tests need {} on this machine; they cannot run without it",
        missing.join(", ")
    );
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("tsnic-linux-peer-{}", std::process::id()));
    std::fs::create_dir_all(&d).expect("temp dir");
    d.join(name)
}

fn ip_out(args: &[&str]) -> String {
    let out = Command::new(tsnic::peer::netns::ip_binary().expect("ip"))
        .args(args)
        .output()
        .expect("run ip");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Nothing of run `pid` is left: no namespace and no TAP (host side) named after it.
fn assert_nothing_left(pid: u32) {
    let tag = format!("{pid}x");
    let ns = ip_out(&["netns", "list"]);
    assert!(
        !ns.lines().any(|l| l.contains(&format!("tsnic-peer-{tag}"))
            || l.contains(&format!("tsnic-kcli-{tag}"))),
        "namespace left behind by run {pid}:\n{ns}"
    );
    let links = ip_out(&["-br", "link"]);
    assert!(
        !links
            .lines()
            .any(|l| l.starts_with(&format!("tsn{tag}")) || l.starts_with(&format!("tsk{tag}"))),
        "TAP left behind by run {pid}:\n{links}"
    );
}

struct Run {
    ok: bool,
    stdout: String,
    stderr: String,
    report: Value,
    report_path: PathBuf,
    pcap: PathBuf,
    /// What the Linux receiver process wrote itself (`--peer-evidence`), Null if nothing.
    evidence: Value,
    evidence_path: PathBuf,
}

impl Drop for Run {
    /// Captures are tens of MB: removed after a passing check, kept (and named) after a failure.
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!(
                "kept for inspection: {:?} {:?} {:?}",
                self.report_path, self.pcap, self.evidence_path
            );
        } else {
            let _ = std::fs::remove_file(&self.pcap);
            let _ = std::fs::remove_file(&self.report_path);
            let _ = std::fs::remove_file(&self.evidence_path);
            if let Some(d) = self.pcap.parent() {
                let _ = std::fs::remove_dir(d); // only once empty
            }
        }
    }
}

/// Run `tsnic send --card model --peer ... ARGS` with a JSON report and a capture.
fn send(name: &str, args: &[&str]) -> Run {
    let report = tmp(&format!("{name}.json"));
    let pcap = tmp(&format!("{name}.pcapng"));
    let evidence = tmp(&format!("{name}.evidence.json"));
    let _ = std::fs::remove_file(&report);
    let _ = std::fs::remove_file(&evidence);
    let card: &[&str] = if args.contains(&"--card") {
        &[]
    } else {
        &["--card", "model"]
    };
    let child = Command::new(env!("CARGO_BIN_EXE_tsnic"))
        .args(["send", "--time-limit", "60s"])
        .args(card)
        .args(args)
        .arg("--report")
        .arg(&report)
        .arg("--pcap")
        .arg(&pcap)
        .arg("--peer-evidence")
        .arg(&evidence)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run tsnic");
    let pid = child.id();
    let out: Output = child.wait_with_output().expect("wait tsnic");
    assert_nothing_left(pid);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let report_path = report;
    let report = std::fs::read_to_string(&report_path)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or(Value::Null);
    let evidence_path = evidence;
    let evidence = std::fs::read_to_string(&evidence_path)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or(Value::Null);
    println!("--- {name}\n{stdout}{stderr}");
    Run {
        ok: out.status.success(),
        stdout,
        stderr,
        report,
        report_path,
        pcap,
        evidence,
        evidence_path,
    }
}

fn u(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not a number: {v}"))
}

/// SHA-256 of the bytes the test asks tsnic to send, computed here from their definition
/// (byte i of the stream is i mod 251: driver/src/edt/frame.rs `pattern_byte`, docs/EDT.md),
/// not taken from tsnic's report.
fn sent_sha256(n: u64) -> String {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    let block: Vec<u8> = (0..251u32).map(|i| i as u8).collect();
    let mut left = n;
    while left > 0 {
        let k = left.min(251);
        h.update(&block[..k as usize]);
        left -= k;
    }
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// tcpi_state values (linux/tcp_states.h).
const TCP_CLOSE: u64 = 7;
const TCP_CLOSE_WAIT: u64 = 8;

/// What Linux itself says, from the file its receiver process wrote (`--peer-evidence`; it
/// never passes through the sending process): the application read exactly the bytes the test
/// asked to send (count and SHA-256 against [`sent_sha256`]), read() returned 0 (the sender's
/// FIN, after all of them; the socket in CLOSE_WAIT), and after Linux's own FIN the socket
/// reached CLOSE without error (the sender acknowledged Linux's FIN: LAST_ACK to CLOSE).
fn assert_linux_evidence(r: &Run, bytes: u64) {
    let e = &r.evidence;
    assert!(
        e.is_object(),
        "the Linux receiver wrote no evidence to {:?}\n{}{}",
        r.evidence_path,
        r.stdout,
        r.stderr
    );
    assert_eq!(
        u(&e["bytes_read"]),
        bytes,
        "Linux read another byte count: {e}"
    );
    assert_eq!(
        e["sha256"].as_str(),
        Some(sent_sha256(bytes).as_str()),
        "Linux read other bytes than the test asked to send: {e}"
    );
    assert_eq!(
        e["eof"], true,
        "Linux never read EOF (no FIN from the sender): {e}"
    );
    assert!(e["error"].is_null(), "Linux receiver: {e}");
    assert_eq!(u(&e["state_at_eof"]), TCP_CLOSE_WAIT, "{e}");
    assert_eq!(
        e["fin_acked"], true,
        "the sender did not acknowledge Linux's FIN: {e}"
    );
    assert_eq!(u(&e["final_state"]), TCP_CLOSE, "{e}");
}

/// Every byte delivered to Linux, both FINs, no reset: first as Linux tells it, then as the
/// report does (the two must agree).
fn assert_clean_transfer(r: &Run, bytes: u64) {
    assert_linux_evidence(r, bytes);
    assert!(r.ok, "tsnic failed:\n{}{}", r.stdout, r.stderr);
    let p = &r.report["peer"];
    assert_eq!(r.report["completed"], true, "{}", r.report);
    assert_eq!(u(&p["received_bytes"]), bytes, "{p}");
    assert_eq!(p["sha256_match"], true, "{p}");
    assert_eq!(p["sha256"], p["expected_sha256"], "{p}");
    assert_eq!(
        p["sha256"], r.evidence["sha256"],
        "the report's hash is not Linux's: {p}"
    );
    assert_eq!(p["fin_from_sender"], true, "{p}");
    assert_eq!(p["fin_from_linux"], true, "{p}");
    assert_eq!(u(&p["rst_from_linux"]) + u(&p["rst_from_sender"]), 0, "{p}");
    assert!(p["receiver_error"].is_null(), "{p}");
}

/// tshark's verdict on a capture: (malformed or bad-checksum frames, "previous segment not
/// captured" warnings, frames).
fn tshark_check(pcap: &Path) -> (u64, u64, u64) {
    let out = Command::new("tshark")
        .arg("-r")
        .arg(pcap)
        .args([
            "-o",
            "tcp.check_checksum:TRUE",
            "-o",
            "ip.check_checksum:TRUE",
            "-T",
            "fields",
            "-e",
            "_ws.malformed",
            "-e",
            "tcp.checksum.status",
            "-e",
            "ip.checksum.status",
            "-e",
            "_ws.expert.message",
        ])
        .stderr(Stdio::null())
        .output()
        .expect("run tshark");
    assert!(out.status.success(), "tshark could not read {pcap:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    let (mut bad, mut gaps, mut frames) = (0, 0, 0);
    for line in text.lines() {
        frames += 1;
        let f: Vec<&str> = line.split('\t').collect();
        let malformed = !f.first().unwrap_or(&"").is_empty();
        // checksum status: 0 bad, 1 good, 2 unverified. Wireshark also flags a TCP checksum
        // field of 0xffff where it computes 0x0000: the two are the same one's-complement zero
        // (RFC 1624 section 3) and receivers accept both; Linux's own ACKs carry 0xffff at times.
        let msg = f.get(3).copied().unwrap_or("");
        let negative_zero = msg.contains("0xffff instead of 0x0000");
        let bad_sum = (f.get(1) == Some(&"0") && !negative_zero) || f.get(2) == Some(&"0");
        if malformed || bad_sum {
            bad += 1;
        }
        if f.get(3)
            .is_some_and(|m| m.contains("Previous segment(s) not captured"))
        {
            gaps += 1;
        }
    }
    (bad, gaps, frames)
}

fn assert_capture_clean(r: &Run, injected_drops: u64) {
    let (bad, gaps, frames) = tshark_check(&r.pcap);
    let sent = u(&r.report["peer"]["frames_to_linux"]);
    assert!(
        frames >= sent.saturating_sub(injected_drops),
        "capture has {frames} frames"
    );
    assert_eq!(bad, 0, "malformed or bad-checksum frames in {:?}", r.pcap);
    assert!(
        gaps <= injected_drops,
        "{gaps} 'previous segment not captured' with only {injected_drops} injected drops"
    );
}

/// The options Linux saw are the ones the sender offered.
fn assert_handshake(r: &Run) {
    let p = &r.report["peer"];
    let offered = &p["syn_offered"];
    assert_eq!(offered["mss"], 1460, "{offered}");
    assert_eq!(offered["wscale"], 7, "{offered}");
    assert_eq!(offered["sack_permitted"], true);
    assert_eq!(offered["timestamps"], true);
    let t = &p["linux_tcp_info"];
    // TCPI_OPT_TIMESTAMPS | TCPI_OPT_SACK | TCPI_OPT_WSCALE
    assert_eq!(
        u(&t["options"]) & 7,
        7,
        "Linux did not take every option: {t}"
    );
    assert_eq!(t["snd_wscale"], offered["wscale"], "{t}");
    // Linux sends with our MSS less the 12 bytes of timestamp option.
    assert_eq!(u(&t["snd_mss"]) + 12, 1460, "{t}");
    // And the segments it got were full-sized for that MSS.
    assert_eq!(u(&t["rcv_mss"]), 1448, "{t}");
    let sa = &p["synack_options"];
    assert!(sa["sack_permitted"] == true && sa["timestamps"] == true && !sa["wscale"].is_null());
}

const MB20: u64 = 20_000_000;

#[test]
fn cubic_20mb_to_linux() {
    let _g = serial();
    require_environment();
    let r = send(
        "cubic",
        &["--peer", "linux", "--cc", "cubic", "--bytes", "20MB"],
    );
    assert_clean_transfer(&r, MB20);
    assert_handshake(&r);
    assert_eq!(u(&r.report["peer"]["beyond_window_frames"]), 0);
    assert_capture_clean(&r, 0);
}

#[test]
fn bbr_20mb_to_linux() {
    let _g = serial();
    require_environment();
    let r = send(
        "bbr",
        &["--peer", "linux", "--cc", "bbr", "--bytes", "20MB"],
    );
    assert_clean_transfer(&r, MB20);
    assert_handshake(&r);
    assert_eq!(u(&r.report["peer"]["beyond_window_frames"]), 0);
    assert_capture_clean(&r, 0);
}

/// Loss figures of one run on a lossy path.
#[derive(Debug)]
struct Loss {
    /// Data frames the path model dropped (random, burst, buffer; retransmissions included).
    d: u64,
    /// The sender's retransmitted segments (TLP probes that resend a segment included).
    rt: u64,
    tlp: u64,
    rto: u64,
    /// Linux's own count, from its receiver's evidence file: segments that arrived holding
    /// data it already had (the DSACKs it sent: TcpExtTCPDSACKOldSent + ...OfoSent).
    dup: u64,
}

fn loss_figures(r: &Run) -> Loss {
    let p = &r.report["path"];
    let c = &r.evidence["counters"];
    let n = |k: &str| c[k].as_u64().unwrap_or(0);
    Loss {
        d: u(&p["dropped_random"]) + u(&p["dropped_burst"]) + u(&p["dropped_buffer"]),
        rt: u(&r.report["retransmitted_segments"]),
        tlp: u(&r.report["tlp_probes"]),
        rto: u(&r.report["rto_fires"]),
        dup: n("TcpExtTCPDSACKOldSent") + n("TcpExtTCPDSACKOfoSent"),
    }
}

/// The loss bounds, two-sided, applied alike to the EDT sender and to Linux's own sender on the
/// same path and seed (Linux meeting them shows they are derived, not fitted to ours).
///
/// The path model (driver/src/peer/path.rs, docs/EDT.md "Path model") is FIFO, drops only
/// forward data frames (never an ACK), and does not reorder. So:
/// - lower: every dropped data frame has to be sent again: `rt >= d`.
/// - timeouts: on these two paths Linux recovers every loss by SACK/RACK-TLP without an RTO
///   (0 in every run: the seed fixes the drops); the EDT sender, which follows Linux's
///   RACK-TLP (docs/EDT.md), must not need one either: `rto <= Linux's rto == 0`.
/// - upper: a retransmission is needless when the segment it resends was delivered. RACK marks
///   a segment lost only once a segment sent after it has been SACKed (after the reordering
///   window); on a FIFO path with lossless ACKs that segment was dropped, so every RACK (fast)
///   retransmission replaces a drop. Without an RTO (whose go-back may resend delivered
///   segments), only a TLP probe, one segment per probe, can resend a delivered segment (a
///   probe with new data resends none): `rt - d <= tlp`. A sender that resends more than what
///   was lost (all in flight on each loss, say) fails here.
/// - Linux's own view: each needless retransmission that reaches Linux is a segment it already
///   had, and Linux sends a DSACK for each (TcpExtTCPDSACKOldSent/OfoSent, counted in the
///   receiver's namespace and written by the receiver itself). Every transmission is either
///   dropped or delivered, so the EDT sender's `rt - d` is exactly that count: a sender that
///   under-reports its retransmissions fails here. Linux's sender may repacketize a
///   retransmission (tcp_retrans_try_collapse), so for it the count is only a lower bound.
fn assert_loss_bounds(who: &str, l: &Loss, exact_dup: bool) {
    assert!(l.d > 0, "{who}: no loss was injected");
    assert!(
        l.rt >= l.d,
        "{who}: {} retransmissions for {} drops",
        l.rt,
        l.d
    );
    assert_eq!(
        l.rto, 0,
        "{who}: RTOs on a path SACK/RACK-TLP recovers: {l:?}"
    );
    assert!(
        l.rt - l.d <= l.tlp,
        "{who}: {} retransmissions for {} drops: {} needless, more than its {} TLP probes: {l:?}",
        l.rt,
        l.d,
        l.rt - l.d,
        l.tlp
    );
    if exact_dup {
        assert_eq!(
            l.dup,
            l.rt - l.d,
            "{who}: Linux received {} segments it already had, the sender reports {} \
             retransmissions beyond the {} drops: {l:?}",
            l.dup,
            l.rt - l.d,
            l.d
        );
    } else {
        assert!(
            l.dup <= l.rt - l.d,
            "{who}: Linux received {} duplicates, more than {} needless retransmissions: {l:?}",
            l.dup,
            l.rt - l.d
        );
    }
}

fn lossy(cc: &str, extra: &[&str], name: &str) {
    let mut args = vec![
        "--peer", "linux", "--cc", cc, "--bytes", "20MB", "--seed", "3",
    ];
    args.extend_from_slice(extra);
    let ours = send(&format!("{name}-edt"), &args);
    assert_clean_transfer(&ours, MB20);
    let mut kargs = args.clone();
    kargs.extend_from_slice(&["--sender", "kernel"]);
    let kernel = send(&format!("{name}-kernel"), &kargs);
    assert_clean_transfer(&kernel, MB20);
    let ol = loss_figures(&ours);
    let kl = loss_figures(&kernel);
    println!("{name}: EDT sender {ol:?} | Linux sender {kl:?}");
    // Linux first: the bounds are its behaviour on this path before they judge ours.
    assert_loss_bounds("Linux sender", &kl, false);
    assert_loss_bounds("EDT sender", &ol, true);
    assert_capture_clean(&ours, ol.d);
    assert_capture_clean(&kernel, kl.d);
}

#[test]
fn random_loss_1pct_recovered_like_linux() {
    let _g = serial();
    require_environment();
    lossy(
        "cubic",
        &["--path", "rate=1G,rtt=1ms,buffer=2MB,loss=0.01"],
        "loss1pct",
    );
}

#[test]
fn burst_of_10_recovered_like_linux() {
    let _g = serial();
    require_environment();
    lossy(
        "bbr",
        &[
            "--path",
            "rate=1G,rtt=1ms,buffer=2MB",
            "--drop-burst",
            "10@2000",
        ],
        "burst10",
    );
}

/// A receiver that reads slowly through a small buffer: the window closes and opens, and the
/// sender must never send beyond it.
#[test]
fn slow_reader_window_is_honoured() {
    let _g = serial();
    require_environment();
    let bytes = 2_000_000u64;
    let r = send(
        "slow",
        &[
            "--peer",
            "linux",
            "--bytes",
            "2MB",
            "--peer-rcvbuf",
            "32KB",
            "--peer-read-rate",
            "2MB",
        ],
    );
    assert_clean_transfer(&r, bytes);
    let p = &r.report["peer"];
    // It really was limited by the reader: 2 MB at 2 MB/s takes about a second.
    assert!(
        r.report["duration_ms"].as_f64().unwrap_or(0.0) > 800.0,
        "{}",
        r.report["duration_ms"]
    );
    assert_eq!(u(&p["beyond_window_frames"]), 0, "{p}");
    assert_eq!(u(&r.report["window_violations"]), 0);
    let c = &p["linux_counters"];
    // Linux really closed its window (so the test saw the sender wait for it to open).
    assert!(
        c["TcpExtTCPToZeroWindowAdv"].as_u64().unwrap_or(0) > 0,
        "Linux never advertised a zero window: {c}"
    );
    for k in [
        "TcpExtTCPZeroWindowDrop",
        "TcpExtTCPRcvQDrop",
        "TcpExtBeyondWindow",
    ] {
        assert!(c.get(k).is_none(), "Linux counted {k}: {c}");
    }
    assert_capture_clean(&r, 0);
}

/// `--peer linux:NETNS` uses a namespace the user made and leaves it in place.
#[test]
fn existing_namespace_is_used_and_kept() {
    let _g = serial();
    require_environment();
    let ns = format!("tsnic-test-{}", std::process::id());
    let st = Command::new(tsnic::peer::netns::ip_binary().expect("ip"))
        .args(["netns", "add", &ns])
        .status()
        .expect("ip netns add");
    assert!(st.success());
    struct Del(String);
    impl Drop for Del {
        fn drop(&mut self) {
            let _ = Command::new(tsnic::peer::netns::ip_binary().unwrap_or("ip"))
                .args(["netns", "del", &self.0])
                .status();
        }
    }
    let _del = Del(ns.clone());
    let r = send(
        "existing",
        &["--peer", &format!("linux:{ns}"), "--bytes", "1MB"],
    );
    assert_clean_transfer(&r, 1_000_000);
    assert_eq!(r.report["peer"]["netns_created"], false);
    assert!(
        ip_out(&["netns", "list"]).contains(&ns),
        "namespace removed"
    );
    let links = ip_out(&["-n", &ns, "-br", "link"]);
    assert!(
        links.lines().all(|l| l.starts_with("lo")),
        "TAP left in {ns}: {links}"
    );
    let bad = send(
        "missing-ns",
        &["--peer", "linux:tsnic-no-such-ns", "--bytes", "1KB"],
    );
    assert!(
        !bad.ok && bad.stderr.contains("does not exist"),
        "{}",
        bad.stderr
    );
}

/// Ctrl-C in the middle of a transfer: non-zero exit, and everything is removed.
#[test]
fn interrupt_cleans_up() {
    let _g = serial();
    require_environment();
    let child = Command::new(env!("CARGO_BIN_EXE_tsnic"))
        .args([
            "send",
            "--card",
            "model",
            "--peer",
            "linux",
            "--bytes",
            "2GB",
            "--max-rate",
            "100M",
            // 160 s at that rate: longer than the default 60 s limit, which send now refuses up front
            "--time-limit",
            "200s",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run tsnic");
    let pid = child.id();
    let t0 = Instant::now();
    while !ip_out(&["netns", "list"]).contains(&format!("tsnic-peer-{pid}x")) {
        assert!(
            t0.elapsed() < Duration::from_secs(20),
            "namespace never appeared"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(500));
    let st = Command::new("kill")
        .args(["-INT", &pid.to_string()])
        .status()
        .expect("kill");
    assert!(st.success());
    let out = child.wait_with_output().expect("wait");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "an interrupted run must fail");
    assert!(err.contains("interrupted"), "{err}");
    assert_nothing_left(pid);
}

#[test]
fn bad_peer_values_are_refused() {
    let out = Command::new(env!("CARGO_BIN_EXE_tsnic"))
        .args(["send", "--card", "model", "--peer", "bsd", "--bytes", "1KB"])
        .output()
        .expect("run tsnic");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("linux:NETNS"),
        "{err}"
    );
    // Path options without a Linux peer, and the evidence (it comes from the Linux receiver:
    // without one there is none to write).
    for extra in [
        &["--drop-burst", "10@5"][..],
        &["--peer-evidence", "never-written.json"][..],
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_tsnic"))
            .args(["send", "--card", "model", "--bytes", "1KB"])
            .args(extra)
            .output()
            .expect("run tsnic");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            !out.status.success() && err.contains("need --peer linux"),
            "{extra:?}: {err}"
        );
    }
    assert!(!Path::new("never-written.json").exists());
}

/// The Verilated card's wire ends bridged to the TAP (unsynchronised: function, not timing):
/// its TX output goes to Linux, and everything Linux sends comes back through the card's RX
/// line and RX ring, with the card's arrival stamps, to the sender.
#[test]
fn verilated_card_1mb_to_linux() {
    let _g = serial();
    require_environment();
    for cc in ["cubic", "bbr"] {
        let r = send(
            &format!("cosim-{cc}"),
            &[
                "--card", "sim", "--peer", "linux", "--cc", cc, "--bytes", "1MB",
            ],
        );
        assert_clean_transfer(&r, 1_000_000);
        assert_handshake(&r);
        assert!(
            r.report["mode"]
                .as_str()
                .is_some_and(|m| m.contains("UNSYNCHRONISED")),
            "the output must say the mode is unsynchronised: {}",
            r.report["mode"]
        );
        assert!(
            r.stderr.contains("checks function, not timing"),
            "{}",
            r.stderr
        );
        assert!(r.report["card"]
            .as_str()
            .is_some_and(|c| c.contains("Verilated")));
        assert_eq!(u(&r.report["peer"]["beyond_window_frames"]), 0);
        // Linux's frames reached the sender through the card's receive path, none host-side.
        let rep = &r.report;
        let p = &rep["peer"];
        let cs = &rep["card_stats"];
        let via_card = u(&rep["frames_to_sender_card_rx"]);
        assert_eq!(u(&rep["frames_to_sender_host"]), 0, "{rep}");
        assert!(via_card > 0, "{rep}");
        assert_eq!(via_card, u(&p["frames_from_linux"]), "{rep}");
        // Every frame read from the TAP went onto the RX line and came back from the RX
        // ring without error (connection frames and the rest alike).
        assert_eq!(
            u(&cs["rx_injected"]),
            via_card + u(&p["other_frames_from_linux"]),
            "{cs}"
        );
        assert_eq!(u(&cs["rx_received"]), u(&cs["rx_injected"]), "{cs}");
        assert_eq!(u(&cs["rx_errors"]), 0, "{cs}");
        // The sender took RTT samples (they end at those arrival stamps).
        assert!(u(&rep["rtt_sample_us"]["count"]) > 0, "{rep}");
        assert!(r.stdout.contains("card RX in/out/errors"), "{}", r.stdout);
        assert_capture_clean(&r, 0);
    }
}
