//! Linux's packetdrill scripts (the shared set, /work/shared/conformance/packetdrill) against the
//! EDT sender (issue 36 item 1). The scripts listed in PASSING pass today and must keep passing;
//! the others fail on a deviation of the sender from Linux (docs/EDT.md lists the first
//! differing line of each) or are skipped for a socket call or command the sender does not
//! model. A script that starts passing must be added to PASSING (the sets are compared exactly,
//! so the count reported is the count that passes).

use tsnic::pdrill::{self, Outcome, RunOpts};

/// Scripts (group/name) that pass.
const PASSING: [&str; 25] = [
    "close/close-local-close-then-remote-fin.pkt",
    "close/close-on-syn-sent.pkt",
    "cubic/cubic-hystart-delay-min-rtt-jumps-downward.pkt",
    "cubic/cubic-hystart-delay-rtt-jumps-upward.pkt",
    "cubic/cubic-rack-reo-timeout-retrans-failed-incoming-data.pkt",
    "fast_recovery/prr-ss-10pkt-lost-1.pkt",
    "fast_recovery/prr-ss-30pkt-lost-1_4-11_16.pkt",
    "fast_recovery/prr-ss-30pkt-lost1_4.pkt",
    "fast_recovery/prr-ss-ack-below-snd_una-cubic.pkt",
    "fast_retransmit/fr-4pkt-fack-last-byte.pkt",
    "fast_retransmit/fr-4pkt-sack.pkt",
    "fast_retransmit/fr-4pkt.pkt",
    "limited_transmit/limited-transmit-no-sack.pkt",
    "limited_transmit/limited-transmit-sack.pkt",
    "notsent_lowat/notsent-lowat-setsockopt.pkt",
    "notsent_lowat/notsent-lowat-sysctl.pkt",
    "slow_start/slow-start-ack-per-1pkt.pkt",
    "slow_start/slow-start-ack-per-2pkt-send-5pkt.pkt",
    "slow_start/slow-start-ack-per-2pkt-send-6pkt.pkt",
    "slow_start/slow-start-ack-per-2pkt.pkt",
    "slow_start/slow-start-ack-per-4pkt.pkt",
    "slow_start/slow-start-after-idle.pkt",
    "slow_start/slow-start-after-win-update.pkt",
    "slow_start/slow-start-app-limited-9-packets-out.pkt",
    "slow_start/slow-start-app-limited.pkt",
];

/// Scripts skipped, and the call or command named in the reason.
const SKIPPED: [(&str, &str); 4] = [
    ("shutdown/shutdown-rd-close.pkt", "`shutdown`"),
    ("shutdown/shutdown-rd-wr-close.pkt", "`shutdown`"),
    ("shutdown/shutdown-rdwr-close.pkt", "`shutdown`"),
    ("shutdown/shutdown-wr-close.pkt", "`shutdown`"),
];

#[test]
fn shared_packetdrill_set() {
    let dir = pdrill::shared_set_dir().expect(
        "the shared packetdrill set: ../shared/conformance/packetdrill or TSNIC_PDRILL_DIR",
    );
    let tcp = dir.join("tcp");
    let files = pdrill::collect_scripts(std::slice::from_ref(&tcp)).expect("lists the scripts");
    assert_eq!(files.len(), 29, "the shared set has 29 scripts");
    let mut results = vec![];
    for f in &files {
        let mut r = pdrill::run_file(f, RunOpts::default()).expect("every script parses");
        r.file = f
            .strip_prefix(&tcp)
            .expect("under tcp/")
            .display()
            .to_string();
        results.push(r);
    }
    let report = pdrill::report(&results);
    println!("{report}");
    let passed: Vec<&str> = results
        .iter()
        .filter(|r| r.outcome == Outcome::Pass)
        .map(|r| r.file.as_str())
        .collect();
    assert_eq!(
        passed,
        PASSING.to_vec(),
        "the passing set changed: keep PASSING exactly the scripts that pass\n{report}"
    );
    for (name, call) in SKIPPED {
        let r = results.iter().find(|r| r.file == name).expect(name);
        match &r.outcome {
            Outcome::Skip { reason } => assert!(reason.contains(call), "{name}: {reason}"),
            o => panic!("{name}: expected a skip naming {call}, got {o:?}"),
        }
    }
    let (p, f, k) = pdrill::counts(&results);
    assert_eq!((p, k), (PASSING.len(), SKIPPED.len()), "{report}");
    assert_eq!(p + f + k, 29);
    assert!(report.ends_with(&format!("{p} passed, {f} failed, {k} skipped\n")));
}

/// Hostile input: every shared script with each line deleted, and with each number in turn
/// replaced by 0, 4294967295 and 99999999999, parses to a result or a typed error and runs to
/// an outcome without panicking.
#[test]
fn mutated_scripts_never_panic() {
    let dir = pdrill::shared_set_dir().expect("the shared packetdrill set");
    let files = pdrill::collect_scripts(&[dir.join("tcp")]).expect("lists the scripts");
    let mut runs = 0;
    for f in &files {
        let text = std::fs::read_to_string(f).expect("reads");
        let lines: Vec<&str> = text.lines().collect();
        let mut variants: Vec<String> = vec![];
        for i in 0..lines.len() {
            let mut v = lines.clone();
            v.remove(i);
            variants.push(v.join("\n"));
        }
        // each run of digits, replaced in turn (every 7th, to keep this to a few seconds)
        let bytes = text.as_bytes();
        let mut starts = vec![];
        let mut i = 0;
        while i < bytes.len() {
            if bytes[i].is_ascii_digit() {
                let s = i;
                while i < bytes.len() && bytes[i].is_ascii_digit() {
                    i += 1;
                }
                starts.push((s, i));
            } else {
                i += 1;
            }
        }
        for (k, &(s, e)) in starts.iter().enumerate().filter(|(k, _)| k % 7 == 0) {
            let big = ["0", "4294967295", "99999999999"][k % 3];
            variants.push(format!("{}{big}{}", &text[..s], &text[e..]));
        }
        for v in variants {
            if let Ok(s) = pdrill::parse_script("mutant.pkt", &v) {
                let _ = pdrill::run_script(&s, RunOpts::default());
            }
            runs += 1;
        }
    }
    assert!(runs > 1000, "{runs} mutants");
}
