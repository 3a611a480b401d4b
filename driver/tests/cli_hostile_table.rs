//! The hostile-input pass over every `tsnic` subcommand (issue 34): a table of commands as a user
//! gets them wrong (wrong, missing and repeated flags, out-of-range and overflowing numbers, units
//! where none are taken, empty, binary, truncated, BOM and CRLF files, folders for files, unwritable
//! outputs, an output on its input, paths with spaces and Unicode, conflicting options, a card
//! in use, missing or damaged state, closed or full stdout, signals). Each row runs `tsnic` in a
//! fresh folder with its own simulated card (`TSNIC_SIM_STATE`, `sim:small`) and HOME, and states
//! the outcome: success, or a refusal (exit 1; 2 for a command line clap rejects) whose message
//! holds the given words (the cause and the fix); never a panic, and a refusal leaves its inputs
//! as they were and writes no output. tests/README.md lists every row.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

mod common;
use common::core_ready;

/// How the command must end.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Exit {
    /// Exit 0.
    Ok,
    /// Exit 1: refused or failed, with a message.
    Fail,
    /// Exit 2: the command line itself is wrong (clap).
    Usage,
}
use Exit::{Fail, Ok as Pass, Usage};

/// Where stdout goes.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Stdout {
    /// Captured.
    Pipe,
    /// /dev/full: every write fails.
    Full,
    /// A socket whose reader has gone (`| head` that already exited).
    Closed,
}

/// One row of the table.
#[derive(Clone, Copy)]
struct Case {
    /// Short name (unique; tests/README.md lists it).
    name: &'static str,
    /// `tsnic` arguments. `{d}` is the case's folder.
    args: &'static [&'static str],
    /// How it must end.
    exit: Exit,
    /// Each must appear: in stderr for a failure, in stdout or stderr for a success.
    want: &'static [&'static str],
    /// Must not appear in stdout or stderr.
    not: &'static [&'static str],
    /// Commands run first (each must succeed), on the same card and folder.
    before: &'static [&'static [&'static str]],
    /// Environment (`{d}` is the case's folder); TSNIC_SIM_STATE defaults to `{d}/card.state`.
    env: &'static [(&'static str, &'static str)],
    /// Bytes on stdin (none: /dev/null).
    stdin: Option<&'static [u8]>,
    /// A fixture file (in the folder) as stdin, in place of `stdin`.
    stdin_file: Option<&'static str>,
    /// Where stdout goes.
    stdout: Stdout,
    /// Files (relative to the folder) that must not exist afterwards.
    absent: &'static [&'static str],
    /// Files (relative to the folder) that must exist afterwards, each with the given words.
    files: &'static [(&'static str, &'static str)],
    /// Fixture files that must be unchanged afterwards (the inputs of a refusal).
    unchanged: &'static [&'static str],
    /// Paths that must still exist afterwards (not read: a FIFO).
    kept: &'static [&'static str],
    /// What the row checks, for tests/README.md (empty: the wanted words say it).
    why: &'static str,
}

const C: Case = Case {
    name: "",
    args: &[],
    exit: Pass,
    want: &[],
    not: &[],
    before: &[],
    env: &[],
    stdin: None,
    stdin_file: None,
    stdout: Stdout::Pipe,
    absent: &[],
    files: &[],
    unchanged: &[],
    kept: &[],
    why: "",
};

const T2: &str = "launch_ns,queue,len\n0,0,60\n1000,0,60\n";

/// A classic little-endian pcap (µs timestamps) with records (ts_us, data, orig_len).
fn pcap(snap: u32, link: u32, recs: &[(u64, Vec<u8>, u32)]) -> Vec<u8> {
    let mut b = Vec::new();
    b.extend_from_slice(&0xa1b2_c3d4u32.to_le_bytes());
    b.extend_from_slice(&2u16.to_le_bytes());
    b.extend_from_slice(&4u16.to_le_bytes());
    b.extend_from_slice(&[0; 8]);
    b.extend_from_slice(&snap.to_le_bytes());
    b.extend_from_slice(&link.to_le_bytes());
    for (ts, data, orig) in recs {
        b.extend_from_slice(&((ts / 1_000_000) as u32).to_le_bytes());
        b.extend_from_slice(&((ts % 1_000_000) as u32).to_le_bytes());
        b.extend_from_slice(&(data.len() as u32).to_le_bytes());
        b.extend_from_slice(&orig.to_le_bytes());
        b.extend_from_slice(data);
    }
    b
}

/// A little-endian pcapng: section header, one Ethernet interface (µs, the default resolution),
/// one enhanced packet block per frame.
fn pcapng(frames: &[Vec<u8>]) -> Vec<u8> {
    fn block(ty: u32, body: &[u8]) -> Vec<u8> {
        let len = (12 + body.len().div_ceil(4) * 4) as u32;
        let mut b = ty.to_le_bytes().to_vec();
        b.extend_from_slice(&len.to_le_bytes());
        b.extend_from_slice(body);
        b.resize(len as usize - 4, 0);
        b.extend_from_slice(&len.to_le_bytes());
        b
    }
    let mut shb = 0x1a2b_3c4du32.to_le_bytes().to_vec();
    shb.extend_from_slice(&[1, 0, 0, 0]);
    shb.extend_from_slice(&u64::MAX.to_le_bytes());
    let mut out = block(0x0a0d_0d0a, &shb);
    let mut idb = 1u16.to_le_bytes().to_vec();
    idb.extend_from_slice(&[0, 0]);
    idb.extend_from_slice(&0u32.to_le_bytes());
    out.extend(block(1, &idb));
    for (i, f) in frames.iter().enumerate() {
        let mut epb = 0u32.to_le_bytes().to_vec();
        epb.extend_from_slice(&0u32.to_le_bytes());
        epb.extend_from_slice(&(i as u32 * 10).to_le_bytes());
        epb.extend_from_slice(&(f.len() as u32).to_le_bytes());
        epb.extend_from_slice(&(f.len() as u32).to_le_bytes());
        epb.extend_from_slice(f);
        out.extend(block(6, &epb));
    }
    out
}

/// The input files every case finds in its folder.
fn fixtures() -> Vec<(&'static str, Vec<u8>)> {
    let f: Vec<u8> = (0..60u8).collect();
    let ok = pcap(65535, 1, &[(0, f.clone(), 60), (10, f.clone(), 60)]);
    let ng = pcapng(&[f.clone(), f.clone()]);
    let mut ng_bad = ng.clone();
    let n = ng_bad.len();
    ng_bad[n - 4..].copy_from_slice(&1000u32.to_le_bytes());
    let mut huge_incl = pcap(65535, 1, &[(0, f.clone(), 60)]);
    huge_incl[32..36].copy_from_slice(&u32::MAX.to_le_bytes());
    let noise: Vec<u8> = (0..1000u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    let long: String = std::iter::once("launch_ns,queue,len\n".to_string())
        .chain((0..20_000u64).map(|k| format!("{},{},60\n", k * 1000, k % 8)))
        .collect();
    let t = |s: &str| s.as_bytes().to_vec();
    vec![
        ("t.csv", t(T2)),
        ("t1.csv", t("launch_ns,queue,len\n0,0,60\n")),
        ("long.csv", long.into_bytes()),
        ("empty.csv", vec![]),
        ("hdr.csv", t("launch_ns,queue,len\n")),
        ("bin.csv", noise.clone()),
        (
            "bom.csv",
            t("\u{feff}launch_ns,queue,len\n0,0,60\n1000,0,60\n"),
        ),
        (
            "crlf.csv",
            t("launch_ns,queue,len\r\n0,0,60\r\n1000,0,60\r\n"),
        ),
        ("nonl.csv", t("launch_ns,queue,len\n0,0,60\n1000,0,60")),
        ("cut1.csv", t("launch_ns,queue,len\n0,0,60\n1000,0,")),
        ("cut2.csv", t("launch_ns,queue,len\n0,0,60\n1000,0")),
        ("extra.csv", t("launch_ns,queue,len\n0,0,60,7\n")),
        ("neg.csv", t("launch_ns,queue,len\n-5,0,60\n")),
        ("exp.csv", t("launch_ns,queue,len\n1e3,0,60\n")),
        ("hex.csv", t("launch_ns,queue,len\n0x10,0,60\n")),
        ("unit.csv", t("launch_ns,queue,len\n5s,0,60\n")),
        ("frac.csv", t("launch_ns,queue,len\n1.5,0,60\n")),
        ("quoted.csv", t("launch_ns,queue,len\n\"0\",\"0\",\"60\"\n")),
        ("q8.csv", t("launch_ns,queue,len\n0,8,60\n")),
        ("qneg.csv", t("launch_ns,queue,len\n0,-1,60\n")),
        ("qhuge.csv", t("launch_ns,queue,len\n0,4294967296,60\n")),
        ("len59.csv", t("launch_ns,queue,len\n0,0,59\n")),
        ("len0.csv", t("launch_ns,queue,len\n0,0,0\n")),
        ("len9601.csv", t("launch_ns,queue,len\n0,0,9601\n")),
        ("len9600.csv", t("launch_ns,queue,len\n0,0,9600\n")),
        (
            "lenovf.csv",
            t("launch_ns,queue,len\n0,0,99999999999999999999\n"),
        ),
        (
            "tovf.csv",
            t("launch_ns,queue,len\n99999999999999999999,0,60\n"),
        ),
        (
            "tmax.csv",
            t("launch_ns,queue,len\n18446744073709551615,0,60\n"),
        ),
        (
            "far.csv",
            t("launch_ns,queue,len\n0,0,60\n7200000000000,0,60\n"),
        ),
        (
            "unsorted.csv",
            t("launch_ns,queue,len\n1000,0,60\n0,0,60\n"),
        ),
        ("duprow.csv", t("launch_ns,queue,len\n0,0,60\n0,0,60\n")),
        (
            "duphdr.csv",
            t("launch_ns,queue,len\nlaunch_ns,queue,len\n0,0,60\n"),
        ),
        ("badhdr.csv", t("time,q,l\n0,0,60\n")),
        ("nohdr.csv", t("0,0,60\n1000,0,60\n")),
        ("swaphdr.csv", t("queue,launch_ns,len\n0,0,60\n")),
        ("upperhdr.csv", t("LAUNCH_NS,QUEUE,LEN\n0,0,60\n")),
        (
            "comment.csv",
            t("# made by hand\nlaunch_ns,queue,len\n0,0,60\n"),
        ),
        ("blank.csv", t("launch_ns,queue,len\n0,0,60\n\n1000,0,60\n")),
        ("spaces.csv", t("launch_ns,queue,len\n 0 , 0 , 60 \n")),
        ("tabs.csv", t("launch_ns\tqueue\tlen\n0\t0\t60\n")),
        ("semi.csv", t("launch_ns;queue;len\n0;0;60\n")),
        ("cr.csv", t("launch_ns,queue,len\r0,0,60\r1000,0,60\r")),
        ("esc.csv", t("launch_ns,queue,len\n\x1b[31m5,0,60\n")),
        ("nul.csv", t("launch_ns,queue,len\n0,0,6\x000\n")),
        ("utf16.csv", vec![0xff, 0xfe, b'l', 0, b'a', 0]),
        ("latin1.csv", b"launch_ns,queue,len\n0,0,60\xe9\n".to_vec()),
        ("ok.pcap", ok.clone()),
        ("ok.pcapng", ok.clone()),
        ("real.pcapng", ng.clone()),
        ("cut.pcapng", ng[..ng.len() - 20].to_vec()),
        ("cuthdr.pcapng", ng[..40].to_vec()),
        ("badlen.pcapng", ng_bad),
        ("zero.pcap", pcap(65535, 1, &[])),
        ("tiny.pcap", pcap(65535, 1, &[(0, vec![0; 20], 20)])),
        ("big.pcap", pcap(65535, 1, &[(0, vec![0; 9700], 9700)])),
        ("zerolen.pcap", pcap(65535, 1, &[(0, vec![], 0)])),
        (
            "back.pcap",
            pcap(65535, 1, &[(100, f.clone(), 60), (0, f.clone(), 60)]),
        ),
        ("raw.pcap", pcap(65535, 101, &[(0, f.clone(), 60)])),
        ("snap.pcap", pcap(60, 1, &[(0, f.clone(), 1514)])),
        ("cut.pcap", ok[..ok.len() - 10].to_vec()),
        ("hdrcut.pcap", ok[..10].to_vec()),
        ("hugeincl.pcap", huge_incl),
        ("empty.pcap", vec![]),
        ("garbage.state", noise.clone()),
        ("empty.state", vec![]),
        ("garbage.img", noise),
        ("empty.bit", vec![]),
        ("existing.json", t("{\"keep\": true}\n")),
        ("sp ace/ünï/tr ace ü.csv", t(T2)),
        ("adir/.keep", vec![]),
        ("d.json/.keep", vec![]),
        ("d.pcapng/.keep", vec![]),
        ("state.dir/.keep", vec![]),
        // what a PTP clock left beside a kept card, damaged (docs/PTP.md, "Between commands")
        (
            "bad.state.ptp.json",
            b"{\"version\": 1, \"mac\": [2".to_vec(),
        ),
    ]
}

fn write_fixtures(d: &Path) {
    for (name, bytes) in fixtures() {
        let p = d.join(name);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, bytes).unwrap();
    }
    // a FIFO where a file is expected (reading it waits for a writer that never comes)
    let _ = Command::new("mkfifo").arg(d.join("fifo")).status();
}

fn subst(s: &str, d: &Path) -> String {
    s.replace("{d}", d.to_str().unwrap())
}

/// Run one `tsnic` command in `d`; (exit code, stdout, stderr).
fn run(
    d: &Path,
    args: &[&str],
    case: &Case,
    stdin: Option<&[u8]>,
    stdout: Stdout,
) -> (Option<i32>, String, String) {
    let mut c = Command::new(env!("CARGO_BIN_EXE_tsnic"));
    c.args(args.iter().map(|a| subst(a, d)))
        .current_dir(d)
        .env("HOME", d)
        .env("TSNIC_SIM_STATE", d.join("card.state"))
        .stderr(Stdio::piped());
    for (k, v) in case.env {
        c.env(k, subst(v, d));
    }
    let mut keep = None;
    match stdout {
        Stdout::Pipe => {
            c.stdout(Stdio::piped());
        }
        Stdout::Full => {
            c.stdout(
                std::fs::OpenOptions::new()
                    .write(true)
                    .open("/dev/full")
                    .unwrap(),
            );
        }
        Stdout::Closed => {
            let (ours, theirs) = std::os::unix::net::UnixStream::pair().unwrap();
            drop(ours);
            c.stdout(std::process::Stdio::from(std::os::fd::OwnedFd::from(
                theirs,
            )));
            keep = Some(());
        }
    }
    let _ = keep;
    c.stdin(if stdin.is_some() {
        Stdio::piped()
    } else if let Some(f) = case.stdin_file.filter(|_| args == case.args) {
        Stdio::from(std::fs::File::open(d.join(f)).unwrap())
    } else {
        Stdio::null()
    });
    let mut child = c.spawn().expect("run tsnic");
    if let Some(bytes) = stdin {
        let mut si = child.stdin.take().unwrap();
        let bytes = bytes.to_vec();
        std::thread::spawn(move || {
            let _ = si.write_all(&bytes);
        });
    }
    // A command that hangs (a FIFO read, a wait that never ends) fails its row, not the suite.
    let read = |r: Option<Box<dyn std::io::Read + Send>>| {
        std::thread::spawn(move || {
            let mut v = Vec::new();
            if let Some(mut r) = r {
                let _ = r.read_to_end(&mut v);
            }
            String::from_utf8_lossy(&v).into_owned()
        })
    };
    let o = read(child.stdout.take().map(|x| Box::new(x) as _));
    let e = read(child.stderr.take().map(|x| Box::new(x) as _));
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    let code = loop {
        if let Some(st) = child.try_wait().unwrap() {
            break st.code();
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            return (
                None,
                String::new(),
                "HUNG: still running after 60 s, killed".into(),
            );
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    (code, o.join().unwrap(), e.join().unwrap())
}

/// Run a case in a fresh folder under `root`; Err says what was wrong.
fn run_case(root: &Path, case: &Case) -> Result<(), String> {
    let d = root.join(case.name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    write_fixtures(&d);
    for b in case.before {
        let (code, o, e) = run(&d, b, case, None, Stdout::Pipe);
        if code != Some(0) {
            return Err(format!("setup `tsnic {}` failed: {e}{o}", b.join(" ")));
        }
    }
    let (code, o, e) = run(&d, case.args, case, case.stdin, case.stdout);
    let shown = format!(
        "`tsnic {}`\n--- stdout:\n{o}--- stderr:\n{e}",
        case.args.join(" ")
    );
    if e.contains("panicked") || e.contains("RUST_BACKTRACE") {
        return Err(format!("panicked: {shown}"));
    }
    let want_code = match case.exit {
        Pass => 0,
        Fail => 1,
        Usage => 2,
    };
    if code != Some(want_code) {
        return Err(format!("exit {code:?}, not {want_code}: {shown}"));
    }
    let hay = if case.exit == Pass {
        format!("{o}{e}")
    } else {
        e.clone()
    };
    for w in case.want {
        if !hay.contains(&subst(w, &d)) {
            return Err(format!("no `{w}` in the output: {shown}"));
        }
    }
    for n in case.not {
        if o.contains(n) || e.contains(n) {
            return Err(format!("`{n}` in the output: {shown}"));
        }
    }
    for a in case.absent {
        if d.join(a).exists() {
            return Err(format!("{a} exists: {shown}"));
        }
    }
    for (f, words) in case.files {
        let got = std::fs::read(d.join(f)).map_err(|x| format!("{f}: {x}: {shown}"))?;
        if !String::from_utf8_lossy(&got).contains(words) {
            return Err(format!("no `{words}` in {f}: {shown}"));
        }
    }
    for k in case.kept {
        if std::fs::symlink_metadata(d.join(k)).is_err() {
            return Err(format!("{k} was removed: {shown}"));
        }
    }
    let fx = fixtures();
    for u in case.unchanged {
        let want = &fx.iter().find(|(n, _)| n == u).expect("a fixture").1;
        if std::fs::read(d.join(u)).ok().as_ref() != Some(want) {
            return Err(format!("{u} was changed: {shown}"));
        }
    }
    Ok(())
}

/// Run a table; every failing row is reported, not only the first.
fn run_table(group: &str, cases: &[Case]) {
    let root = std::env::temp_dir().join(format!("tsnic-table-{group}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).unwrap();
    let mut names = std::collections::HashSet::new();
    let mut bad = Vec::new();
    for c in cases {
        assert!(names.insert(c.name), "two cases are named {}", c.name);
        if let Err(e) = run_case(&root, c) {
            bad.push(format!("[{group}/{}] {e}", c.name));
        }
    }
    assert!(
        bad.is_empty(),
        "{} of {} `{group}` cases failed:\n\n{}",
        bad.len(),
        cases.len(),
        bad.join("\n\n")
    );
    let _ = std::fs::remove_dir_all(&root);
}

const SMALL: &str = "--backend";
const S: &str = "sim:small";
const NOTHING: &str = "nothing was";

#[rustfmt::skip]
const PUSH: &[Case] = &[
    Case { name: "push-ok", args: &["push", SMALL, S, "t.csv"], want: &["sent               2"], ..C },
    Case { name: "push-no-trace", args: &["push", SMALL, S], exit: Usage, want: &["<TRACE>"], ..C },
    Case { name: "push-missing-file", args: &["push", SMALL, S, "nosuch.csv"], exit: Fail, want: &["cannot read the trace nosuch.csv", "No such file"], ..C },
    Case { name: "push-folder", args: &["push", SMALL, S, "adir"], exit: Fail, want: &["adir", "Is a directory"], ..C },
    Case { name: "push-empty-file", args: &["push", SMALL, S, "empty.csv"], exit: Fail, want: &["no header line", "launch_ns,queue,len", NOTHING], ..C },
    Case { name: "push-dev-null", args: &["push", SMALL, S, "/dev/null"], exit: Fail, want: &["no header line"], ..C },
    Case { name: "push-stdin", args: &["push", SMALL, S, "-"], stdin: Some(T2.as_bytes()), want: &["sent               2"], why: "`-` reads the trace from stdin (was: `cannot read the trace -`)", ..C },
    Case { name: "push-stdin-bad-row", args: &["push", SMALL, S, "-"], stdin: Some(b"launch_ns,queue,len\n0,0,6x\n"), exit: Fail, want: &["the trace on stdin: line 2", NOTHING], ..C },
    Case { name: "push-stdin-empty", args: &["push", SMALL, S, "-"], exit: Fail, want: &["the trace on stdin", "no header line"], ..C },
    Case { name: "push-stdin-report-is-stdin-file", args: &["push", SMALL, S, "--report", "t.csv", "-"], stdin_file: Some("t.csv"), exit: Fail, want: &["same file as the trace"], unchanged: &["t.csv"], why: "`push - < t.csv --report t.csv`", ..C },
    Case { name: "push-header-only", args: &["push", SMALL, S, "hdr.csv"], exit: Fail, want: &["no rows", NOTHING], ..C },
    Case { name: "push-binary", args: &["push", SMALL, S, "bin.csv"], exit: Fail, want: &["not UTF-8", NOTHING], ..C },
    Case { name: "push-utf16", args: &["push", SMALL, S, "utf16.csv"], exit: Fail, want: &["UTF-16", "save it as UTF-8"], ..C },
    Case { name: "push-latin1", args: &["push", SMALL, S, "latin1.csv"], exit: Fail, want: &["not UTF-8"], ..C },
    Case { name: "push-bom", args: &["push", SMALL, S, "bom.csv"], want: &["sent               2"], why: "a UTF-8 byte order mark is skipped", ..C },
    Case { name: "push-crlf", args: &["push", SMALL, S, "crlf.csv"], want: &["sent               2"], why: "CRLF line ends are taken", ..C },
    Case { name: "push-cr-only", args: &["push", SMALL, S, "cr.csv"], exit: Fail, want: &["bare CR", "LF or CRLF"], not: &["\r"], why: "classic Mac line ends: the fix is named (was: the whole file shown as the header)", ..C },
    Case { name: "push-no-final-newline", args: &["push", SMALL, S, "nonl.csv"], want: &["sent               2"], ..C },
    Case { name: "push-cut-in-field", args: &["push", SMALL, S, "cut1.csv"], exit: Fail, want: &["line 3", "`len`", "empty", NOTHING], ..C },
    Case { name: "push-cut-in-row", args: &["push", SMALL, S, "cut2.csv"], exit: Fail, want: &["line 3", "2 field(s)", NOTHING], ..C },
    Case { name: "push-extra-column", args: &["push", SMALL, S, "extra.csv"], exit: Fail, want: &["line 2", "4 field(s)"], ..C },
    Case { name: "push-negative-time", args: &["push", SMALL, S, "neg.csv"], exit: Fail, want: &["`-5` is not an unsigned decimal integer"], ..C },
    Case { name: "push-exponent-time", args: &["push", SMALL, S, "exp.csv"], exit: Fail, want: &["`1e3` is not an unsigned decimal integer"], ..C },
    Case { name: "push-hex-time", args: &["push", SMALL, S, "hex.csv"], exit: Fail, want: &["`0x10`"], ..C },
    Case { name: "push-unit-time", args: &["push", SMALL, S, "unit.csv"], exit: Fail, want: &["`5s`"], ..C },
    Case { name: "push-fraction-time", args: &["push", SMALL, S, "frac.csv"], exit: Fail, want: &["`1.5`"], ..C },
    Case { name: "push-quoted-fields", args: &["push", SMALL, S, "quoted.csv"], exit: Fail, want: &["`\"0\"`"], ..C },
    Case { name: "push-queue-too-big", args: &["push", SMALL, S, "q8.csv"], exit: Fail, want: &["`8` is not a queue of this card", "0..=7"], ..C },
    Case { name: "push-queue-negative", args: &["push", SMALL, S, "qneg.csv"], exit: Fail, want: &["`-1`"], ..C },
    Case { name: "push-queue-over-32-bit", args: &["push", SMALL, S, "qhuge.csv"], exit: Fail, want: &["4294967296"], ..C },
    Case { name: "push-len-59", args: &["push", SMALL, S, "len59.csv"], exit: Fail, want: &["`59` is outside 60..=9600"], ..C },
    Case { name: "push-len-0", args: &["push", SMALL, S, "len0.csv"], exit: Fail, want: &["`0` is outside 60..=9600"], ..C },
    Case { name: "push-len-9601", args: &["push", SMALL, S, "len9601.csv"], exit: Fail, want: &["`9601` is outside 60..=9600"], ..C },
    Case { name: "push-len-9600", args: &["push", SMALL, S, "len9600.csv"], want: &["sent               1"], why: "the largest frame goes", ..C },
    Case { name: "push-len-overflow", args: &["push", SMALL, S, "lenovf.csv"], exit: Fail, want: &["does not fit in 64 bits"], ..C },
    Case { name: "push-time-overflow", args: &["push", SMALL, S, "tovf.csv"], exit: Fail, want: &["does not fit in 64 bits"], ..C },
    Case { name: "push-time-u64-max", args: &["push", SMALL, S, "tmax.csv"], exit: Fail, want: &["overflows 64 bits", NOTHING], ..C },
    Case { name: "push-beyond-hold-limit", args: &["push", SMALL, S, "--hold-limit", "3600s", "far.csv"], exit: Fail, want: &["beyond the hold limit", "--hold-limit"], ..C },
    Case { name: "push-unsorted", args: &["push", SMALL, S, "unsorted.csv"], want: &["sent               2"], why: "rows out of time order are sent in time order", ..C },
    Case { name: "push-duplicate-rows", args: &["push", SMALL, S, "duprow.csv"], want: &["packets            2", "sent_late          1"], why: "two frames at one time: the second waits for the line", ..C },
    Case { name: "push-header-twice", args: &["push", SMALL, S, "duphdr.csv"], exit: Fail, want: &["line 2", "`launch_ns`"], ..C },
    Case { name: "push-wrong-header", args: &["push", SMALL, S, "badhdr.csv"], exit: Fail, want: &["the header is `time,q,l`", "launch_ns,queue,len"], ..C },
    Case { name: "push-no-header", args: &["push", SMALL, S, "nohdr.csv"], exit: Fail, want: &["the header is `0,0,60`"], ..C },
    Case { name: "push-columns-swapped", args: &["push", SMALL, S, "swaphdr.csv"], exit: Fail, want: &["the header is `queue,launch_ns,len`"], ..C },
    Case { name: "push-header-upper-case", args: &["push", SMALL, S, "upperhdr.csv"], exit: Fail, want: &["LAUNCH_NS", "the names are lower case"], ..C },
    Case { name: "push-comment-line", args: &["push", SMALL, S, "comment.csv"], want: &["sent               1"], ..C },
    Case { name: "push-blank-line", args: &["push", SMALL, S, "blank.csv"], want: &["sent               2"], ..C },
    Case { name: "push-spaces-in-fields", args: &["push", SMALL, S, "spaces.csv"], want: &["sent               1"], ..C },
    Case { name: "push-tab-separated", args: &["push", SMALL, S, "tabs.csv"], exit: Fail, want: &["launch_ns,queue,len", "separated by commas"], ..C },
    Case { name: "push-semicolons", args: &["push", SMALL, S, "semi.csv"], exit: Fail, want: &["launch_ns;queue;len", "separated by commas"], ..C },
    Case { name: "push-escape-sequence", args: &["push", SMALL, S, "esc.csv"], exit: Fail, want: &["\\u{1b}[31m5"], not: &["\x1b"], ..C },
    Case { name: "push-nul-byte", args: &["push", SMALL, S, "nul.csv"], exit: Fail, want: &["line 2"], not: &["\0"], ..C },
    Case { name: "push-two-traces", args: &["push", SMALL, S, "t.csv", "t1.csv"], exit: Usage, want: &["unexpected argument 't1.csv'"], ..C },
    Case { name: "push-unknown-flag", args: &["push", SMALL, S, "--frames", "t.csv"], exit: Usage, want: &["--frames"], ..C },
    Case { name: "push-pcap-twice", args: &["push", SMALL, S, "--pcap", "a.pcapng", "--pcap", "b.pcapng", "t.csv"], exit: Usage, want: &["cannot be used multiple times"], absent: &["a.pcapng", "b.pcapng"], ..C },
    Case { name: "push-late-bad", args: &["push", SMALL, S, "--late", "maybe", "t.csv"], exit: Usage, want: &["possible values: send, drop"], ..C },
    Case { name: "push-horizon-bad", args: &["push", SMALL, S, "--horizon", "never", "t.csv"], exit: Usage, want: &["possible values: drop, cap"], ..C },
    Case { name: "push-lead-huge", args: &["push", SMALL, S, "--lead-ns", "18446744073709551615", "t.csv"], exit: Fail, want: &["overflows 64 bits", NOTHING], ..C },
    Case { name: "push-lead-negative", args: &["push", SMALL, S, "--lead-ns", "-1", "t.csv"], exit: Usage, want: &["`-1` is negative"], why: "was clap's `unexpected argument '-1' found` / `invalid digit found in string`", ..C },
    Case { name: "push-lead-with-unit", args: &["push", SMALL, S, "--lead-ns", "50us", "t.csv"], want: &["lead 50000 ns", "sent               2"], why: "units are taken (was: invalid digit found in string)", ..C },
    Case { name: "push-lead-missing-value", args: &["push", SMALL, S, "--lead-ns", "--late", "drop", "t.csv"], exit: Usage, want: &["`--late` is not a time"], ..C },
    Case { name: "push-ring-log2-word", args: &["push", SMALL, S, "--ring-log2", "ten", "t.csv"], exit: Usage, want: &["`ten` is not a whole number"], why: "was clap's `unexpected argument '-1' found` / `invalid digit found in string`", ..C },
    Case { name: "push-hold-limit-negative", args: &["push", SMALL, S, "--hold-limit", "-1s", "t.csv"], exit: Usage, want: &["`-1s` is negative"], why: "was clap's `unexpected argument '-1' found` / `invalid digit found in string`", ..C },
    Case { name: "push-read-latency-unit", args: &["push", SMALL, S, "--read-latency-ns", "2us", "t.csv"], want: &["2000 ns host read latency"], why: "units are taken", ..C },
    Case { name: "push-lead-one-hour", args: &["push", SMALL, S, "--lead-ns", "3600000000000", "t.csv"], want: &["sent               2", "lead 3600000000000 ns"], why: "a long lead is waited out (simulated time)", ..C },
    Case { name: "push-ring-log2-0", args: &["push", SMALL, S, "--ring-log2", "0", "t.csv"], exit: Fail, want: &["--ring-log2 0 is outside", "1..=15"], ..C },
    Case { name: "push-ring-log2-1", args: &["push", SMALL, S, "--ring-log2", "1", "t.csv"], want: &["sent               2"], why: "2-entry rings work", ..C },
    Case { name: "push-ring-log2-16", args: &["push", SMALL, S, "--ring-log2", "16", "t.csv"], exit: Fail, want: &["1..=15"], ..C },
    Case { name: "push-ring-log2-99", args: &["push", SMALL, S, "--ring-log2", "99", "t.csv"], exit: Fail, want: &["1..=15"], ..C },
    Case { name: "push-lookahead-0", args: &["push", SMALL, S, "--lookahead-ns", "0", "t.csv"], want: &["sent_late          2", "the card, or the driver feeding it, was late"], why: "no payload lookahead: every frame leaves late, and the warning says why", ..C },
    Case { name: "push-lookahead-over-32-bit", args: &["push", SMALL, S, "--lookahead-ns", "99999999999", "t.csv"], exit: Usage, want: &["at most 4294967295 ns"], ..C },
    Case { name: "push-hold-limit-0", args: &["push", SMALL, S, "--hold-limit", "0", "t.csv"], exit: Fail, want: &["beyond the hold limit of 0 ns", "raise --hold-limit"], ..C },
    Case { name: "push-hold-limit-word", args: &["push", SMALL, S, "--hold-limit", "abc", "t.csv"], exit: Usage, want: &["`abc` is not a time", "3s"], ..C },
    Case { name: "push-hold-limit-bad-unit", args: &["push", SMALL, S, "--hold-limit", "5x", "t.csv"], exit: Usage, want: &["`5x` is not a time"], ..C },
    Case { name: "push-line-rate-40", args: &["push", SMALL, S, "--line-rate", "40", "t.csv"], exit: Fail, want: &["--line-rate 40 is not one of 10, 25, 100"], ..C },
    Case { name: "push-line-rate-0", args: &["push", SMALL, S, "--line-rate", "0", "t.csv"], exit: Fail, want: &["not one of 10, 25, 100"], ..C },
    Case { name: "push-line-rate-25-narrow", args: &["push", SMALL, S, "--line-rate", "25", "t.csv"], exit: Fail, want: &["use the 512-bit configuration", "--wide"], ..C },
    Case { name: "push-read-latency-0", args: &["push", SMALL, S, "--read-latency-ns", "0", "t.csv"], exit: Fail, want: &["--read-latency-ns 0 is outside"], ..C },
    Case { name: "push-read-latency-100ms", args: &["push", SMALL, S, "--read-latency-ns", "100000000", "t.csv"], exit: Fail, want: &["is outside"], ..C },
    Case { name: "push-pcap-wrong-ext", args: &["push", SMALL, S, "--pcap", "out.pcap", "t.csv"], exit: Fail, want: &["must end in .pcapng", "nothing was run"], absent: &["out.pcap"], ..C },
    Case { name: "push-pcap-is-trace", args: &["push", SMALL, S, "--pcap", "t.csv", "t.csv"], exit: Fail, want: &["must end in .pcapng"], unchanged: &["t.csv"], ..C },
    Case { name: "push-pcap-folder", args: &["push", SMALL, S, "--pcap", "d.pcapng", "t.csv"], exit: Fail, want: &["is a folder"], ..C },
    Case { name: "push-pcap-missing-folder", args: &["push", SMALL, S, "--pcap", "nodir/x.pcapng", "t.csv"], exit: Fail, want: &["the folder nodir does not exist"], absent: &["nodir"], ..C },
    Case { name: "push-pcap-under-a-file", args: &["push", SMALL, S, "--pcap", "t.csv/x.pcapng", "t.csv"], exit: Fail, want: &["cannot be created", "nothing was run"], ..C },
    Case { name: "push-pcap-in-proc", args: &["push", SMALL, S, "--pcap", "/proc/x.pcapng", "t.csv"], exit: Fail, want: &["cannot be created"], ..C },
    Case { name: "push-pcap-dash", args: &["push", SMALL, S, "--pcap", "-", "t.csv"], want: &["\n\r\r\n", "tsnic0", "sent               2"], absent: &["-"], why: "`-` is stdout: the capture goes there, the table to stderr (was: refused as a file name without .pcapng)", ..C },
    Case { name: "push-pcap-and-report-dash", args: &["push", SMALL, S, "--pcap", "-", "--report", "-", "t.csv"], exit: Fail, want: &["both ask for stdout"], absent: &["-"], ..C },
    Case { name: "push-report-is-trace", args: &["push", SMALL, S, "--report", "t.csv", "t.csv"], exit: Fail, want: &["same file as the trace", "choose another name"], unchanged: &["t.csv"], ..C },
    Case { name: "push-report-is-trace-via-dot", args: &["push", SMALL, S, "--report", "./adir/../t.csv", "t.csv"], exit: Fail, want: &["same file as the trace"], unchanged: &["t.csv"], ..C },
    Case { name: "push-report-is-pcap", args: &["push", SMALL, S, "--report", "o.pcapng", "--pcap", "o.pcapng", "t.csv"], exit: Fail, want: &["same file as --pcap"], absent: &["o.pcapng"], ..C },
    Case { name: "push-plot-is-report", args: &["push", SMALL, S, "--plot", "r.svg", "--report", "r.svg", "t.csv"], exit: Fail, want: &["same file as --report"], absent: &["r.svg"], ..C },
    Case { name: "push-report-folder", args: &["push", SMALL, S, "--report", "d.json", "t.csv"], exit: Fail, want: &["is a folder"], ..C },
    Case { name: "push-report-under-a-file", args: &["push", SMALL, S, "--report", "t.csv/r.json", "t.csv"], exit: Fail, want: &["cannot be created"], unchanged: &["t.csv"], ..C },
    Case { name: "push-report-dev-full", args: &["push", SMALL, S, "--report", "/dev/full", "t.csv"], exit: Fail, want: &["cannot write --report /dev/full", "No space left"], why: "a report that could not be written fails the command", ..C },
    Case { name: "push-report-read-only-fs", args: &["push", SMALL, S, "--report", "/sys/tsnic.json", "t.csv"], exit: Fail, want: &["--report /sys/tsnic.json cannot be created", "nothing was run"], ..C },
    Case { name: "push-20000-rows", args: &["push", SMALL, S, "--quiet", "--report-no-frames", "--report", "r.json", "long.csv"], files: &[("r.json", "\"packets\": 20000")], why: "a long trace (20,000 rows: more than the card's 1,024 calendar entries and the 16,384 rows read ahead; 20 ms on 8 queues) goes out whole", ..C },
    Case { name: "push-report-overwrites", args: &["push", SMALL, S, "--report", "existing.json", "t.csv"], files: &[("existing.json", "\"sent\": 2")], why: "an existing report file is replaced whole", ..C },
    Case { name: "push-report-stdout", args: &["push", SMALL, S, "--report", "-", "t.csv"], want: &["\"sent\": 2"], not: &["  sent "], absent: &["-"], ..C },
    Case { name: "push-plot-jpg", args: &["push", SMALL, S, "--plot", "x.jpg", "t.csv"], exit: Fail, want: &["must end in .png or .svg"], ..C },
    Case { name: "push-plot-no-ext", args: &["push", SMALL, S, "--plot", "x", "t.csv"], exit: Fail, want: &["must end in .png or .svg"], ..C },
    Case { name: "push-plot-dash", args: &["push", SMALL, S, "--plot", "-", "t.csv"], exit: Fail, want: &["must end in .png or .svg"], absent: &["-"], ..C },
    Case { name: "push-unicode-paths", args: &["push", SMALL, S, "--report", "sp ace/ünï/r é.json", "--pcap", "sp ace/ünï/p é.pcapng", "sp ace/ünï/tr ace ü.csv"], files: &[("sp ace/ünï/r é.json", "\"sent\": 2")], why: "paths with spaces and non-ASCII letters", ..C },
    Case { name: "push-report-no-frames-alone", args: &["push", SMALL, S, "--report-no-frames", "t.csv"], exit: Usage, want: &["--report <FILE>"], why: "a flag that changes nothing without --report (was: silently ignored)", ..C },
    Case { name: "push-report-no-frames", args: &["push", SMALL, S, "--report-no-frames", "--report", "r.json", "t.csv"], files: &[("r.json", "\"sent\": 2")], ..C },
    Case { name: "push-strict-all-sent", args: &["push", SMALL, S, "--strict", "t.csv"], want: &["sent               2"], ..C },
    Case { name: "push-strict-dropped", args: &["push", SMALL, S, "--absolute", "--late", "drop", "--strict", "--report", "r.json", "t.csv"], exit: Fail, want: &["--strict: 2 of 2 frame(s) were not sent"], files: &[("r.json", "DROPPED_LATE")], why: "outputs are written, then --strict fails", ..C },
    Case { name: "push-absolute-past", args: &["push", SMALL, S, "--absolute", "t.csv"], want: &["sent_late          2"], why: "times in the past are sent late (--late send), and said", ..C },
    Case { name: "push-backend-empty", args: &["push", "--backend", "", "t.csv"], exit: Fail, want: &["unknown backend ``", "sim"], ..C },
    Case { name: "push-backend-upper-case", args: &["push", "--backend", "SIM:small", "t.csv"], exit: Fail, want: &["unknown backend `SIM:small`"], ..C },
    Case { name: "push-backend-sim-size", args: &["push", "--backend", "sim:huge", "t.csv"], exit: Fail, want: &["unknown sim option `huge`"], ..C },
    Case { name: "push-backend-vfio-bad-address", args: &["push", "--backend", "vfio:zz", "t.csv"], exit: Fail, want: &["bad PCI address `zz`", "DDDD:BB:DD.F"], ..C },
    Case { name: "push-backend-vfio-absent", args: &["push", "--backend", "vfio:0000:01:00.0", "t.csv"], exit: Fail, want: &["vfio"], ..C },
    Case { name: "push-backend-mem", args: &["push", "--backend", "mem", "t.csv"], exit: Fail, want: &["`--backend mem` is a register file with no card behind it", "use `sim`"], ..C },
    Case { name: "push-state-none", args: &["push", "--backend", "sim:small,state=none", "t.csv"], want: &["sent               2"], absent: &["card.state"], why: "a fresh card, nothing kept", ..C },
    Case { name: "push-state-wrong-order", args: &["push", "--backend", "sim:state=x.state,small", "t.csv"], exit: Fail, want: &["put the options first, `sim:small,state=PATH`"], absent: &["x.state,small"], ..C },
    Case { name: "push-then-stats", args: &["stats", SMALL, S], before: &[&["push", SMALL, S, "t.csv"]], want: &["sent                                2"], why: "the kept card counts what the push sent", ..C },
    Case { name: "push-stdout-full", args: &["push", SMALL, S, "t.csv"], stdout: Stdout::Full, exit: Fail, want: &["writing the output to stdout failed"], ..C },
    Case { name: "push-stdout-closed", args: &["push", SMALL, S, "t.csv"], stdout: Stdout::Closed, exit: Fail, want: &["stdout was closed"], ..C },
    Case { name: "push-card-of-other-size", args: &["push", "t.csv"], before: &[&["info", SMALL, S]], exit: Fail, want: &["--backend sim:small"], why: "a kept small card opened as the board-size one", ..C },
    Case { name: "push-ptp-beside", args: &["push", SMALL, S, "--ptp", "slave", "t.csv"], want: &["sent               2", "ptp                LISTENING on TX queue 7"], why: "the clock runs beside the push (no master on the wire: it listens)", ..C },
    Case { name: "push-ptp-bad-role", args: &["push", SMALL, S, "--ptp", "boss", "t.csv"], exit: Usage, want: &["the role `boss` is not slave, master or auto"], ..C },
    Case { name: "push-ptp-bad-option", args: &["push", SMALL, S, "--ptp", "slave,fast", "t.csv"], exit: Usage, want: &["unknown option `fast`", "queue=N"], ..C },
    Case { name: "push-ptp-bad-log-announce", args: &["push", SMALL, S, "--ptp", "slave,log-announce=-5", "t.csv"], exit: Usage, want: &["log-announce=-5 is not a number in -3..=4"], ..C },
    Case { name: "push-ptp-saved-damaged", args: &["push", SMALL, S, "--ptp", "slave", "t.csv"], env: &[("TSNIC_SIM_STATE", "{d}/bad.state")], want: &["sent               2", "ptp: not resumed", "bad.state.ptp.json is not a saved PTP clock", "delete it"], absent: &["bad.state.ptp.json"], why: "a damaged saved clock is named and not resumed; the push runs; the clock, which found no master, leaves nothing", ..C },
    Case { name: "push-ptp-queue-of-the-job", args: &["push", SMALL, S, "--ptp", "slave,queue=0", "t.csv"], exit: Fail, want: &["the job uses TX queue 0, which --ptp would use", "queue=N"], ..C },
];

#[rustfmt::skip]
const REPLAY: &[Case] = &[
    Case { name: "replay-ok", args: &["replay", SMALL, S, "ok.pcap"], want: &["sent               2"], ..C },
    Case { name: "replay-ns-pcapng-name", args: &["replay", SMALL, S, "ok.pcapng"], want: &["sent               2"], why: "a classic pcap named .pcapng is read by its content", ..C },
    Case { name: "replay-no-capture", args: &["replay", SMALL, S], exit: Usage, want: &["<CAPTURE>"], ..C },
    Case { name: "replay-missing-file", args: &["replay", SMALL, S, "nosuch.pcap"], exit: Fail, want: &["nosuch.pcap: No such file or directory"], not: &["(os error 2): No such file"], why: "the cause said once (was twice)", ..C },
    Case { name: "replay-folder", args: &["replay", SMALL, S, "adir"], exit: Fail, want: &["adir", "Is a directory"], ..C },
    Case { name: "replay-empty-file", args: &["replay", SMALL, S, "empty.pcap"], exit: Fail, want: &["too short to be a capture"], ..C },
    Case { name: "replay-dev-null", args: &["replay", SMALL, S, "/dev/null"], exit: Fail, want: &["too short to be a capture"], ..C },
    Case { name: "replay-stdin", args: &["replay", SMALL, S, "-"], stdin: Some(b"x"), exit: Fail, want: &["the capture on stdin", "too short to be a capture"], why: "`-` reads the capture from stdin, as push reads a trace (was: refused, `save the capture to a file first`)", ..C },
    Case { name: "replay-a-trace", args: &["replay", SMALL, S, "t.csv"], exit: Fail, want: &["neither pcap nor pcapng", "tcpdump"], ..C },
    Case { name: "replay-no-packets", args: &["replay", SMALL, S, "zero.pcap"], exit: Fail, want: &["holds no packets"], ..C },
    Case { name: "replay-short-frame", args: &["replay", SMALL, S, "tiny.pcap"], want: &["padded with zeros to 60 bytes", "sent               1"], ..C },
    Case { name: "replay-jumbo-9700", args: &["replay", SMALL, S, "big.pcap"], exit: Fail, want: &["9700 bytes", "1..=9600", NOTHING], ..C },
    Case { name: "replay-zero-length-record", args: &["replay", SMALL, S, "zerolen.pcap"], exit: Fail, want: &["packet 0 is 0 bytes"], ..C },
    Case { name: "replay-backward-time", args: &["replay", SMALL, S, "back.pcap"], want: &["go backwards", "packets            2", "queue 0            2 packets, 2 sent"], ..C },
    Case { name: "replay-not-ethernet", args: &["replay", SMALL, S, "raw.pcap"], exit: Fail, want: &["only Ethernet captures"], ..C },
    Case { name: "replay-snapped-record", args: &["replay", SMALL, S, "snap.pcap"], exit: Fail, want: &["captured truncated", "larger snap length"], ..C },
    Case { name: "replay-cut-record", args: &["replay", SMALL, S, "cut.pcap"], exit: Fail, want: &["ends inside packet 1", "cut short"], ..C },
    Case { name: "replay-cut-header", args: &["replay", SMALL, S, "hdrcut.pcap"], exit: Fail, want: &["shorter than a pcap file header"], ..C },
    Case { name: "replay-pcapng", args: &["replay", SMALL, S, "real.pcapng"], want: &["sent               2"], ..C },
    Case { name: "replay-from-a-pipe", args: &["replay", SMALL, S, "/dev/stdin"], stdin: Some(b"\xd4\xc3\xb2\xa1\x02\x00\x04\x00\x00\x00\x00\x00\x00\x00\x00\x00\xff\xff\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x3c\x00\x00\x00\x3c\x00\x00\x00\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f\x20\x21\x22\x23\x24\x25\x26\x27\x28\x29\x2a\x2b\x2c\x2d\x2e\x2f\x30\x31\x32\x33\x34\x35\x36\x37\x38\x39\x3a\x3b"), want: &["sent               1"], why: "a capture from a pipe (`replay <(zcat x.pcap.gz)`; was: read twice, the second time empty)", ..C },
    Case { name: "replay-pcapng-cut", args: &["replay", SMALL, S, "cut.pcapng"], exit: Fail, want: &["the file ends inside the block at byte", "cut short", "the 1 packets before it are complete"], not: &["Error reading bytes"], why: "was the pcap library's `Error reading bytes`", ..C },
    Case { name: "replay-pcapng-cut-in-header", args: &["replay", SMALL, S, "cuthdr.pcapng"], exit: Fail, want: &["cut short"], not: &["Error reading bytes"], ..C },
    Case { name: "replay-pcapng-damaged", args: &["replay", SMALL, S, "badlen.pcapng"], exit: Fail, want: &["ends with another length than it starts with", "recapture"], not: &["initial_length"], ..C },
    Case { name: "replay-record-4-gib", args: &["replay", SMALL, S, "hugeincl.pcap"], exit: Fail, want: &["claims 4294967295 captured bytes", "damaged"], ..C },
    Case { name: "replay-queue-8", args: &["replay", SMALL, S, "--queue", "8", "ok.pcap"], exit: Fail, want: &["--queue 8 does not exist"], ..C },
    Case { name: "replay-queue-negative", args: &["replay", SMALL, S, "--queue", "-1", "ok.pcap"], exit: Usage, want: &["`-1` is negative", "0 to 65535"], why: "was clap's `unexpected argument '-1' found` / `invalid digit found in string`", ..C },
    Case { name: "replay-queue-over-16-bit", args: &["replay", SMALL, S, "--queue", "99999999999", "ok.pcap"], exit: Usage, want: &["at most 65535"], ..C },
    Case { name: "replay-queue-7", args: &["replay", SMALL, S, "--queue", "7", "ok.pcap"], want: &["queue 7"], ..C },
    Case { name: "replay-pcap-wrong-ext", args: &["replay", SMALL, S, "--pcap", "ok.pcap", "ok.pcap"], exit: Fail, want: &["must end in .pcapng"], unchanged: &["ok.pcap"], ..C },
    Case { name: "replay-pcap-is-capture", args: &["replay", SMALL, S, "--pcap", "ok.pcapng", "ok.pcapng"], exit: Fail, want: &["same file as the capture"], unchanged: &["ok.pcapng"], ..C },
    Case { name: "replay-report-is-capture", args: &["replay", SMALL, S, "--report", "ok.pcap", "ok.pcap"], exit: Fail, want: &["same file as the capture"], unchanged: &["ok.pcap"], ..C },
    Case { name: "replay-absolute-past", args: &["replay", SMALL, S, "--absolute", "ok.pcap"], want: &["sent_late          2"], ..C },
    Case { name: "replay-own-output", args: &["replay", SMALL, S, "out.pcapng"], before: &[&["replay", SMALL, S, "--pcap", "out.pcapng", "ok.pcap"]], want: &["sent               2"], why: "a pcapng tsnic wrote replays", ..C },
    Case { name: "replay-strict", args: &["replay", SMALL, S, "--strict", "ok.pcap"], want: &["sent               2"], ..C },
    Case { name: "replay-lead-huge", args: &["replay", SMALL, S, "--lead-ns", "18446744073709551615", "ok.pcap"], exit: Fail, want: &["overflows 64 bits"], ..C },
    Case { name: "replay-unicode-path", args: &["replay", SMALL, S, "--pcap", "sp ace/ünï/p é.pcapng", "ok.pcap"], files: &[("sp ace/ünï/p é.pcapng", "")], ..C },
    Case { name: "replay-stdout-closed", args: &["replay", SMALL, S, "ok.pcap"], stdout: Stdout::Closed, exit: Fail, want: &["stdout was closed"], ..C },
];

#[rustfmt::skip]
const PHC: &[Case] = &[
    Case { name: "phc-get", args: &["phc", "get", SMALL, S], want: &["phc "], ..C },
    Case { name: "phc-no-subcommand", args: &["phc", SMALL, S], exit: Usage, want: &["requires a subcommand", "get, set, adj, freq, sync"], ..C },
    Case { name: "phc-unknown-subcommand", args: &["phc", "frob", SMALL, S], exit: Usage, want: &["unrecognized subcommand 'frob'"], ..C },
    Case { name: "phc-get-extra-arg", args: &["phc", "get", SMALL, S, "5"], exit: Usage, want: &["unexpected argument '5'"], ..C },
    Case { name: "phc-backend-twice", args: &["phc", "get", SMALL, S, "--backend", "mem"], exit: Usage, want: &["cannot be used multiple times"], ..C },
    Case { name: "phc-get-mem", args: &["phc", "get", "--backend", "mem"], want: &["phc "], ..C },
    Case { name: "phc-get-vfio-bad", args: &["phc", "get", "--backend", "vfio:1:2:3"], exit: Fail, want: &["bad PCI address"], ..C },
    Case { name: "phc-set-missing", args: &["phc", "set", SMALL, S], exit: Usage, want: &["<NS>"], ..C },
    Case { name: "phc-set-host-and-value", args: &["phc", "set", SMALL, S, "--host", "5"], exit: Usage, want: &["'--host' cannot be used with"], ..C },
    Case { name: "phc-set-5s", args: &["phc", "get", SMALL, S], before: &[&["phc", "set", SMALL, S, "5s"]], want: &["5.0000"], why: "units are taken: 5s", ..C },
    Case { name: "phc-set-exponent", args: &["phc", "get", SMALL, S], before: &[&["phc", "set", SMALL, S, "1e9"]], want: &["1.0000"], ..C },
    Case { name: "phc-set-fraction", args: &["phc", "get", SMALL, S], before: &[&["phc", "set", SMALL, S, "1.5s"]], want: &["1.5000"], ..C },
    Case { name: "phc-set-hex", args: &["phc", "set", SMALL, S, "0x10"], exit: Usage, want: &["`0x10` is not a time", "--host"], ..C },
    Case { name: "phc-set-negative", args: &["phc", "set", SMALL, S, "-1"], exit: Usage, want: &["`-1` is before TAI 0"], why: "was clap's `unexpected argument '-1' found` / `invalid digit found in string`", ..C },
    Case { name: "phc-set-word", args: &["phc", "set", SMALL, S, "now"], exit: Usage, want: &["`now` is not a time", "--host"], ..C },
    Case { name: "phc-set-empty", args: &["phc", "set", SMALL, S, ""], exit: Usage, want: &["`` is not a time"], ..C },
    Case { name: "phc-set-0", args: &["phc", "set", SMALL, S, "0"], ..C },
    Case { name: "phc-set-i64-max", args: &["phc", "set", SMALL, S, "9223372036854775807"], why: "the latest time the driver sets", ..C },
    Case { name: "phc-set-past-i64", args: &["phc", "set", SMALL, S, "9223372036854775808"], exit: Fail, want: &["2^63 - 1"], ..C },
    Case { name: "phc-set-u64-max", args: &["phc", "set", SMALL, S, "18446744073709551615"], exit: Fail, want: &["2^63 - 1"], ..C },
    Case { name: "phc-set-host", args: &["phc", "set", SMALL, S, "--host"], ..C },
    Case { name: "phc-set-host-mem", args: &["phc", "set", "--backend", "mem", "--host"], ..C },
    Case { name: "phc-adj-missing", args: &["phc", "adj", SMALL, S], exit: Usage, want: &["<DELTA>"], ..C },
    Case { name: "phc-adj-bad-unit", args: &["phc", "adj", SMALL, S, "5x"], exit: Usage, want: &["`5x` is not a time"], ..C },
    Case { name: "phc-adj-plus", args: &["phc", "adj", SMALL, S, "+1s"], ..C },
    Case { name: "phc-adj-minus", args: &["phc", "adj", SMALL, S, "-1500"], before: &[&["phc", "set", SMALL, S, "10s"]], ..C },
    Case { name: "phc-adj-below-zero", args: &["phc", "adj", SMALL, S, "-99999s"], before: &[&["phc", "set", SMALL, S, "10s"]], exit: Fail, want: &["before TAI 0", "tsnic phc set"], why: "a step to before TAI 0 is refused, the clock is not stepped", ..C },
    Case { name: "phc-adj-overflow", args: &["phc", "adj", SMALL, S, "99999999999999999999"], exit: Usage, want: &["out of range"], ..C },
    Case { name: "phc-adj-nan", args: &["phc", "adj", SMALL, S, "nan"], exit: Usage, want: &["out of range"], ..C },
    Case { name: "phc-adj-inf", args: &["phc", "adj", SMALL, S, "infs"], exit: Usage, want: &["out of range"], ..C },
    Case { name: "phc-adj-0", args: &["phc", "adj", SMALL, S, "0"], ..C },
    Case { name: "phc-adj-past-2-63", args: &["phc", "adj", SMALL, S, "+1s"], before: &[&["phc", "set", SMALL, S, "9223372036854000000"]], exit: Fail, want: &["2^63 - 1"], ..C },
    Case { name: "phc-freq-get", args: &["phc", "freq", SMALL, S], want: &["ppb"], ..C },
    Case { name: "phc-freq-negative", args: &["phc", "freq", SMALL, S, "-100"], ..C },
    Case { name: "phc-freq-fraction", args: &["phc", "freq", SMALL, S, "0.5"], exit: Usage, want: &["`0.5` is not a whole number of ppb"], why: "was clap's `unexpected argument '-1' found` / `invalid digit found in string`", ..C },
    Case { name: "phc-freq-exponent", args: &["phc", "freq", SMALL, S, "1e6"], exit: Usage, want: &["`1e6` is not a whole number of ppb"], ..C },
    Case { name: "phc-freq-unit", args: &["phc", "freq", SMALL, S, "5ppm"], exit: Usage, want: &["`5ppm` is not a whole number of ppb"], ..C },
    Case { name: "phc-freq-limit", args: &["phc", "freq", SMALL, S, "100000000"], exit: Fail, want: &["outside +/-10000000 ppb"], ..C },
    Case { name: "phc-freq-over-32-bit", args: &["phc", "freq", SMALL, S, "99999999999"], exit: Fail, want: &["outside +/-10000000 ppb"], ..C },
    Case { name: "phc-sync-interval-0", args: &["phc", "sync", SMALL, S, "--interval", "0", "--samples", "3"], exit: Fail, want: &["--interval must be positive"], ..C },
    Case { name: "phc-sync-interval-negative", args: &["phc", "sync", SMALL, S, "--interval", "-1s", "--samples", "3"], exit: Fail, want: &["--interval must be positive"], why: "was clap's `unexpected argument '-1' found` / `invalid digit found in string`", ..C },
    Case { name: "phc-sync-samples-negative", args: &["phc", "sync", SMALL, S, "--samples", "-1"], exit: Usage, want: &["`-1` is negative"], why: "was clap's `unexpected argument '-1' found` / `invalid digit found in string`", ..C },
    Case { name: "phc-sync-interval-huge", args: &["phc", "sync", SMALL, S, "--interval", "100000000s", "--samples", "3"], exit: Fail, want: &["--interval"], ..C },
    Case { name: "phc-sync-samples-0", args: &["phc", "sync", SMALL, S, "--samples", "0"], exit: Fail, want: &["--samples"], ..C },
    Case { name: "phc-sync-samples-word", args: &["phc", "sync", SMALL, S, "--samples", "abc"], exit: Usage, want: &["'abc'", "--samples"], ..C },
    Case { name: "phc-sync-host-step-word", args: &["phc", "sync", SMALL, S, "--samples", "3", "--host-step", "soon"], exit: Usage, want: &["`soon` is not a time"], ..C },
    Case { name: "phc-sync-host-error-huge", args: &["phc", "sync", SMALL, S, "--samples", "3", "--host-error-ppb", "99999999999"], exit: Fail, want: &["--host-error-ppb 99999999999", "outside +/-10000000 ppb"], why: "was: ran, then \"did not settle\"", ..C },
    Case { name: "phc-sync-host-error-nan", args: &["phc", "sync", SMALL, S, "--samples", "3", "--host-error-ppb", "NaN"], exit: Fail, want: &["--host-error-ppb NaN"], ..C },
    Case { name: "phc-sync-host-error-ok", args: &["phc", "sync", SMALL, S, "--samples", "60", "--quiet", "--host-error-ppb", "-20000"], why: "a host clock 20 ppm off is followed", ..C },
    Case { name: "phc-sync-unsettled", args: &["phc", "sync", SMALL, S, "--samples", "3", "--quiet", "--host-step", "1ms"], exit: Fail, want: &["did not settle", "--samples"], ..C },
    Case { name: "phc-sync-settles", args: &["phc", "sync", SMALL, S, "--samples", "40", "--quiet"], why: "the default servo settles on sim", ..C },
    Case { name: "phc-stdout-closed", args: &["phc", "get", SMALL, S], stdout: Stdout::Closed, exit: Fail, want: &["stdout was closed"], ..C },
    Case { name: "phc-stdout-full", args: &["phc", "get", SMALL, S], stdout: Stdout::Full, exit: Fail, want: &["writing the output to stdout failed"], ..C },
];

#[rustfmt::skip]
const INFO_STATS: &[Case] = &[
    Case { name: "info", args: &["info", SMALL, S], want: &["TX queues         8"], ..C },
    Case { name: "info-json", args: &["info", SMALL, S, "--json"], want: &["{"], ..C },
    Case { name: "info-json-twice", args: &["info", SMALL, S, "--json", "--json"], exit: Usage, want: &["cannot be used multiple times"], ..C },
    Case { name: "info-extra-arg", args: &["info", SMALL, S, "extra"], exit: Usage, want: &["unexpected argument 'extra'"], ..C },
    Case { name: "info-mem", args: &["info", "--backend", "mem"], ..C },
    Case { name: "info-backend-bogus", args: &["info", "--backend", "bogus"], exit: Fail, want: &["unknown backend `bogus`", "sim"], ..C },
    Case { name: "info-stdout-full", args: &["info", SMALL, S], stdout: Stdout::Full, exit: Fail, want: &["writing the output to stdout failed"], ..C },
    Case { name: "info-stdout-closed", args: &["info", SMALL, S], stdout: Stdout::Closed, exit: Fail, want: &["stdout was closed"], ..C },
    Case { name: "stats", args: &["stats", SMALL, S], want: &["posted"], ..C },
    Case { name: "stats-json", args: &["stats", SMALL, S, "--json"], want: &["{"], ..C },
    Case { name: "stats-queue-0", args: &["stats", SMALL, S, "--queue", "0"], ..C },
    Case { name: "stats-queue-8", args: &["stats", SMALL, S, "--queue", "8"], exit: Fail, want: &["queue 8 does not exist", "0..=7"], ..C },
    Case { name: "stats-queue-negative", args: &["stats", SMALL, S, "--queue", "-1"], exit: Usage, want: &["`-1` is negative"], why: "was clap's `unexpected argument '-1' found` / `invalid digit found in string`", ..C },
    Case { name: "stats-queue-word", args: &["stats", SMALL, S, "--queue", "all"], exit: Usage, want: &["`all` is not a whole number"], why: "was clap's `unexpected argument '-1' found` / `invalid digit found in string`", ..C },
    Case { name: "stats-queue-over-16-bit", args: &["stats", SMALL, S, "--queue", "70000"], exit: Usage, want: &["70000"], ..C },
    Case { name: "stats-queue-and-all", args: &["stats", SMALL, S, "--queue", "1", "--all"], exit: Usage, want: &["'--queue <QUEUE>' cannot be used with '--all'"], why: "conflicting options (was: --all silently ignored)", ..C },
    Case { name: "stats-mem", args: &["stats", "--backend", "mem"], ..C },
    Case { name: "stats-stdout-closed", args: &["stats", SMALL, S], stdout: Stdout::Closed, exit: Fail, want: &["stdout was closed"], ..C },
    Case { name: "state-garbage", args: &["info", SMALL, S], env: &[("TSNIC_SIM_STATE", "{d}/garbage.state")], exit: Fail, want: &["not a tsnic simulated-card state", "delete it"], unchanged: &["garbage.state"], ..C },
    Case { name: "state-empty-file", args: &["info", SMALL, S], env: &[("TSNIC_SIM_STATE", "{d}/empty.state")], exit: Fail, want: &["not a tsnic simulated-card state"], unchanged: &["empty.state"], ..C },
    Case { name: "state-is-a-folder", args: &["info", SMALL, S], env: &[("TSNIC_SIM_STATE", "{d}/state.dir")], exit: Fail, want: &["Is a directory"], ..C },
    Case { name: "state-is-a-trace", args: &["stats", SMALL, S], env: &[("TSNIC_SIM_STATE", "{d}/t.csv")], exit: Fail, want: &["not a tsnic simulated-card state"], unchanged: &["t.csv"], ..C },
    Case { name: "state-env-empty", args: &["info", SMALL, S], env: &[("TSNIC_SIM_STATE", "")], exit: Fail, want: &["`state=` needs a file"], ..C },
    Case { name: "state-env-none", args: &["info", SMALL, S], env: &[("TSNIC_SIM_STATE", "none")], want: &["fresh card, not kept"], absent: &["card.state", "none"], ..C },
    Case { name: "state-env-none-sim-reset", args: &["sim", "reset"], env: &[("TSNIC_SIM_STATE", "none")], want: &["not kept"], ..C },
    Case { name: "state-relative", args: &["info", SMALL, S], env: &[("TSNIC_SIM_STATE", "rel.state")], files: &[("rel.state", "TSNICSIM")], why: "a relative state path is the working folder's", ..C },
    Case { name: "state-unicode-path", args: &["info", SMALL, S], env: &[("TSNIC_SIM_STATE", "{d}/sp ace/ünï/c é.state")], files: &[("sp ace/ünï/c é.state", "TSNICSIM")], ..C },
    Case { name: "state-missing-folder", args: &["info", SMALL, S], env: &[("TSNIC_SIM_STATE", "{d}/no/such/c.state")], exit: Fail, want: &["does not exist", "mkdir -p"], absent: &["no"], ..C },
    Case { name: "state-under-a-file", args: &["info", SMALL, S], env: &[("TSNIC_SIM_STATE", "{d}/t.csv/c.state")], exit: Fail, want: &["does not exist"], unchanged: &["t.csv"], ..C },
    Case { name: "state-in-proc", args: &["info", SMALL, S], env: &[("TSNIC_SIM_STATE", "/proc/tsnic.state")], exit: Fail, want: &["/proc/tsnic.state"], ..C },
    Case { name: "state-is-a-fifo", args: &["info", SMALL, S], env: &[("TSNIC_SIM_STATE", "{d}/fifo")], exit: Fail, want: &["not a regular file"], absent: &["fifo.lock"], why: "was: waited forever for a writer", ..C },
    Case { name: "state-is-dev-null-status", args: &["sim", "status"], env: &[("TSNIC_SIM_STATE", "/dev/null")], exit: Fail, want: &["not a regular file"], ..C },
    Case { name: "state-is-a-fifo-phc-set", args: &["phc", "set", SMALL, S, "5s"], env: &[("TSNIC_SIM_STATE", "{d}/fifo")], exit: Fail, want: &["not a regular file"], ..C },
    Case { name: "state-wide-vs-small", args: &["stats", SMALL, S], before: &[&["info", "--backend", "sim"]], exit: Fail, want: &["--backend"], why: "a board-size card opened as the small one: the size is named", ..C },
];

#[rustfmt::skip]
const SIM: &[Case] = &[
    Case { name: "sim-no-subcommand", args: &["sim"], exit: Usage, want: &["status", "reset"], ..C },
    Case { name: "sim-unknown-subcommand", args: &["sim", "frob"], exit: Usage, want: &["unrecognized subcommand 'frob'"], ..C },
    Case { name: "sim-status-no-card", args: &["sim", "status"], want: &["card.state"], absent: &["card.state"], why: "says there is no card yet, makes none", ..C },
    Case { name: "sim-status-after-push", args: &["sim", "status"], before: &[&["push", SMALL, S, "t.csv"]], want: &["card.state"], ..C },
    Case { name: "sim-status-garbage", args: &["sim", "status"], env: &[("TSNIC_SIM_STATE", "{d}/garbage.state")], want: &["unusable", "not a tsnic simulated-card state"], unchanged: &["garbage.state"], ..C },
    Case { name: "sim-reset-no-card", args: &["sim", "reset"], absent: &["card.state"], ..C },
    Case { name: "sim-reset-twice", args: &["sim", "reset"], before: &[&["info", SMALL, S], &["sim", "reset"]], absent: &["card.state"], ..C },
    Case { name: "sim-reset-then-phc", args: &["phc", "get", SMALL, S], before: &[&["phc", "set", SMALL, S, "100s"], &["sim", "reset"]], not: &["100.0000"], why: "a power-cycled card starts its PHC again", ..C },
    Case { name: "sim-reset-folder", args: &["sim", "reset"], env: &[("TSNIC_SIM_STATE", "{d}/state.dir")], exit: Fail, want: &["Is a directory"], files: &[("state.dir/.keep", "")], ..C },
    Case { name: "sim-reset-not-a-card", args: &["sim", "reset"], env: &[("TSNIC_SIM_STATE", "{d}/t.csv")], exit: Fail, want: &["not a tsnic simulated-card state", "not removed", "TSNIC_SIM_STATE"], unchanged: &["t.csv"], why: "a state path that names the user's own file: it is kept", ..C },
    Case { name: "sim-reset-garbage", args: &["sim", "reset"], env: &[("TSNIC_SIM_STATE", "{d}/garbage.state")], exit: Fail, want: &["not removed"], unchanged: &["garbage.state"], ..C },
    Case { name: "sim-reset-empty-state", args: &["sim", "reset"], env: &[("TSNIC_SIM_STATE", "{d}/empty.state")], absent: &["empty.state"], why: "an empty file holds nothing: removed", ..C },
    Case { name: "sim-reset-fifo", args: &["sim", "reset"], env: &[("TSNIC_SIM_STATE", "{d}/fifo")], exit: Fail, want: &["not a regular file", "neither read nor changed"], kept: &["fifo"], why: "a device or FIFO is never removed (was: `TSNIC_SIM_STATE=/dev/null tsnic sim reset` as root deleted /dev/null)", ..C },
    Case { name: "sim-status-vfio", args: &["sim", "status", "--backend", "vfio:0000:01:00.0"], exit: Fail, want: &["is not one", "sim:state=PATH"], ..C },
    Case { name: "sim-status-mem", args: &["sim", "status", "--backend", "mem"], exit: Fail, want: &["is not one"], ..C },
    Case { name: "sim-status-state-none", args: &["sim", "status", "--backend", "sim:state=none"], ..C },
    Case { name: "sim-reset-state-none", args: &["sim", "reset", "--backend", "sim:state=none"], ..C },
    Case { name: "sim-status-explicit-state", args: &["sim", "status", "--backend", "sim:state={d}/other.state"], want: &["other.state"], absent: &["other.state"], ..C },
];

#[rustfmt::skip]
const SEND: &[Case] = &[
    Case { name: "send-model", args: &["send", "--card", "model", "--bytes", "100KB"], ..C },
    Case { name: "send-cc-bad", args: &["send", "--card", "model", "--cc", "reno"], exit: Usage, want: &["possible values: cubic, bbr"], ..C },
    Case { name: "send-card-bad", args: &["send", "--card", "fpga"], exit: Usage, want: &["possible values: sim, sim:board, model"], ..C },
    Case { name: "send-bytes-0", args: &["send", "--card", "model", "--bytes", "0"], exit: Fail, want: &["--bytes must be at least 1"], ..C },
    Case { name: "send-bytes-exponent", args: &["send", "--card", "model", "--bytes", "1e9"], exit: Usage, want: &["`1e9` is not a size"], ..C },
    Case { name: "send-ptp-master", args: &["send", "--bytes", "20KB", "--ptp", "master"], want: &["completed    true", "MASTER / 4095"], why: "a PTP master runs beside the sender on the card's last TX queue", ..C },
    Case { name: "send-ptp-slave-follows", args: &["send", "--bytes", "600KB", "--path", "rate=10M,rtt=2ms,buffer=200KB", "--cc", "bbr", "--ptp", "slave,log-sync=-4,log-announce=-3,poll=50", "--ptp-master", "offset=-3ms,ppb=10000,log-sync=-4"], want: &["completed    true", "SLAVE / 4095", "ptp: port 1: UNCALIBRATED to SLAVE"], why: "a PTP slave beside the sender follows a grandmaster at the far end of the path, stepping the PHC 3 ms back during the transfer", ..C },
    Case { name: "send-ptp-master-alone", args: &["send", "--bytes", "20KB", "--ptp-master", "offset=1ms"], exit: Fail, want: &["--ptp-master is a grandmaster for the clock of --ptp", "add --ptp slave"], ..C },
    Case { name: "send-ptp-master-two-masters", args: &["send", "--bytes", "20KB", "--ptp", "master", "--ptp-master", "offset=1ms"], exit: Fail, want: &["use --ptp slave"], ..C },
    Case { name: "send-ptp-master-bad", args: &["send", "--bytes", "20KB", "--ptp", "slave", "--ptp-master", "offset=3h"], exit: Usage, want: &["offset=3h is not a time"], ..C },
    Case { name: "send-ptp-udp4", args: &["send", "--bytes", "20KB", "--ptp", "master,udp4"], exit: Usage, want: &["udp4 cannot run beside send", "use l2"], ..C },
    Case { name: "send-ptp-ack-queue", args: &["send", "--bytes", "20KB", "--ptp", "slave,rx-queue=0"], exit: Usage, want: &["rx-queue=0 is the sender's"], ..C },
    Case { name: "send-ptp-model", args: &["send", "--card", "model", "--bytes", "20KB", "--ptp", "master"], exit: Fail, want: &["use it with --card sim"], ..C },
    Case { name: "send-ptp-peer", args: &["send", "--peer", "linux", "--ptp", "master"], exit: Fail, want: &["--peer linux does not support --ptp"], ..C },
    Case { name: "send-bytes-bad-unit", args: &["send", "--card", "model", "--bytes", "10XB"], exit: Usage, want: &["`10XB` is not a size"], ..C },
    Case { name: "send-bytes-overflow", args: &["send", "--card", "model", "--bytes", "99999999999999999999"], exit: Usage, want: &["not a size"], ..C },
    Case { name: "send-bytes-fraction", args: &["send", "--card", "model", "--bytes", "1.5KB"], ..C },
    Case { name: "send-flows-0", args: &["send", "--card", "model", "--flows", "0", "--bytes", "10KB"], exit: Fail, want: &["--flows must be 1..=4096"], ..C },
    Case { name: "send-flows-million", args: &["send", "--card", "model", "--flows", "1000000", "--bytes", "10KB"], exit: Fail, want: &["--flows must be 1..=4096"], ..C },
    Case { name: "send-flows-negative", args: &["send", "--card", "model", "--flows", "-1"], exit: Usage, want: &["`-1` is negative"], why: "was clap's `unexpected argument '-1' found` / `invalid digit found in string`", ..C },
    Case { name: "send-bytes-negative", args: &["send", "--card", "model", "--bytes", "-1"], exit: Usage, want: &["`-1` is not a size"], why: "was clap's `unexpected argument '-1' found` / `invalid digit found in string`", ..C },
    Case { name: "send-jitter-negative", args: &["send", "--card", "model", "--jitter", "-1us"], exit: Usage, want: &["`-1us` is not a duration"], why: "was clap's `unexpected argument '-1' found` / `invalid digit found in string`", ..C },
    Case { name: "send-max-rate-negative", args: &["send", "--card", "model", "--max-rate", "-5"], exit: Usage, want: &["--max-rate"], not: &["unexpected argument"], why: "was clap's `unexpected argument '-1' found` / `invalid digit found in string`", ..C },
    Case { name: "send-seed-word", args: &["send", "--card", "model", "--seed", "abc"], exit: Usage, want: &["`abc` is not a whole number"], why: "was clap's `unexpected argument '-1' found` / `invalid digit found in string`", ..C },
    Case { name: "send-path-garbage", args: &["send", "--card", "model", "--path", "garbage"], exit: Fail, want: &["expected key=value", "example"], ..C },
    Case { name: "send-path-empty", args: &["send", "--card", "model", "--path", ""], exit: Fail, want: &["`rate` is missing"], ..C },
    Case { name: "send-path-rate-0", args: &["send", "--card", "model", "--path", "rate=0,rtt=100us,buffer=1MB"], exit: Fail, want: &["rate must be positive"], ..C },
    Case { name: "send-path-rtt-negative", args: &["send", "--card", "model", "--path", "rate=10G,rtt=-1us,buffer=1MB"], exit: Fail, want: &["rtt must be a duration"], ..C },
    Case { name: "send-path-rtt-0", args: &["send", "--card", "model", "--path", "rate=10G,rtt=0,buffer=1MB"], exit: Fail, want: &["rtt"], ..C },
    Case { name: "send-path-loss-2", args: &["send", "--card", "model", "--path", "rate=10G,rtt=100us,buffer=1MB,loss=2"], exit: Fail, want: &["probability in [0, 1)"], ..C },
    Case { name: "send-path-loss-1", args: &["send", "--card", "model", "--path", "rate=10G,rtt=100us,buffer=1MB,loss=1"], exit: Fail, want: &["probability in [0, 1)"], ..C },
    Case { name: "send-path-loss-negative", args: &["send", "--card", "model", "--path", "rate=10G,rtt=100us,buffer=1MB,loss=-0.1"], exit: Fail, want: &["probability"], ..C },
    Case { name: "send-path-reorder-1.5", args: &["send", "--card", "model", "--path", "rate=10G,rtt=100us,buffer=1MB,reorder=1.5"], exit: Fail, want: &["probability"], ..C },
    Case { name: "send-path-unknown-key", args: &["send", "--card", "model", "--path", "rate=10G,rtt=100us,buffer=1MB,jitter=5"], exit: Fail, want: &["unknown key", "known: rate"], ..C },
    Case { name: "send-path-no-rate", args: &["send", "--card", "model", "--path", "rtt=100us"], exit: Fail, want: &["`rate` is missing"], ..C },
    Case { name: "send-path-key-twice", args: &["send", "--card", "model", "--path", "rate=10G,rate=1G,rtt=100us,buffer=1MB"], exit: Fail, want: &["twice"], ..C },
    Case { name: "send-path-trailing-comma", args: &["send", "--card", "model", "--bytes", "10KB", "--path", "rate=10G,rtt=100us,buffer=1MB,"], ..C },
    Case { name: "send-path-spaces", args: &["send", "--card", "model", "--bytes", "10KB", "--path", "rate=10G, rtt=100us, buffer=1MB"], ..C },
    Case { name: "send-max-rate-0", args: &["send", "--card", "model", "--max-rate", "0"], exit: Usage, want: &["the rate must be positive"], ..C },
    Case { name: "send-max-rate-7", args: &["send", "--card", "model", "--max-rate", "7"], exit: Usage, want: &["8"], ..C },
    Case { name: "send-line-rate-0", args: &["send", "--card", "model", "--line-rate", "0"], exit: Usage, want: &["the rate must be positive"], ..C },
    Case { name: "send-line-rate-word", args: &["send", "--card", "model", "--line-rate", "fast"], exit: Usage, want: &["`fast` is not a rate"], ..C },
    Case { name: "send-sim-25g", args: &["send", "--card", "sim", "--line-rate", "25G", "--bytes", "10KB"], exit: Fail, want: &["10 Gb/s wire", "--card model"], ..C },
    Case { name: "send-tick-0", args: &["send", "--card", "model", "--tick", "0"], exit: Usage, want: &["must be positive"], ..C },
    Case { name: "send-time-limit-0", args: &["send", "--card", "model", "--time-limit", "0"], exit: Usage, want: &["must be positive"], ..C },
    Case { name: "send-time-limit-1us", args: &["send", "--card", "model", "--bytes", "10KB", "--time-limit", "1us"], exit: Fail, want: &["did not complete", "--time-limit"], why: "a job cut short by --time-limit fails, saying so", ..C },
    Case { name: "send-rr-0", args: &["send", "--card", "model", "--rr", "0", "--bytes", "10KB"], exit: Fail, want: &["--rr size must be at least 1"], ..C },
    Case { name: "send-notsent-lowat-0", args: &["send", "--card", "model", "--notsent-lowat", "0", "--bytes", "10KB"], exit: Fail, want: &["--notsent-lowat 0 lets the application write nothing"], why: "was: ran 60 s of simulated time, then \"did not complete\"", ..C },
    Case { name: "send-path-buffer-0", args: &["send", "--card", "model", "--bytes", "10KB", "--path", "rate=10G,rtt=100us,buffer=0"], exit: Fail, want: &["a buffer of 0 drops every frame"], why: "was: ran, then \"got no SYN-ACK\"", ..C },
    Case { name: "send-stamp-with-queue-model", args: &["send", "--card", "model", "--bytes", "10KB", "--pacing-model", "queue", "--stamp", "departure"], exit: Fail, want: &["--stamp departure is for --pacing-model edt"], why: "was: --stamp silently ignored", ..C },
    Case { name: "send-rr", args: &["send", "--card", "model", "--rr", "1KB", "--bytes", "10KB"], ..C },
    Case { name: "send-bbr", args: &["send", "--card", "model", "--cc", "bbr", "--bytes", "100KB"], ..C },
    Case { name: "send-host-pacer", args: &["send", "--card", "model", "--pacer", "host", "--jitter", "10us", "--bytes", "100KB"], ..C },
    Case { name: "send-sender-kernel-no-peer", args: &["send", "--card", "model", "--sender", "kernel"], exit: Fail, want: &["need --peer linux"], ..C },
    Case { name: "send-drop-burst-no-peer", args: &["send", "--card", "model", "--drop-burst", "10@5"], exit: Fail, want: &["need --peer linux"], ..C },
    Case { name: "send-drop-burst-bad", args: &["send", "--card", "model", "--drop-burst", "10"], exit: Usage, want: &["`10` is not COUNT@START"], ..C },
    Case { name: "send-peer-rcvbuf-no-peer", args: &["send", "--card", "model", "--peer-rcvbuf", "1MB"], exit: Fail, want: &["need --peer linux"], ..C },
    Case { name: "send-peer-read-rate-no-peer", args: &["send", "--card", "model", "--peer-read-rate", "1MB"], exit: Fail, want: &["need --peer linux"], ..C },
    Case { name: "send-peer-bogus", args: &["send", "--card", "model", "--peer", "windows"], exit: Fail, want: &["--peer `windows` is not known", "linux"], ..C },
    Case { name: "send-unfinished", args: &["send", "--card", "model", "--bytes", "1GB", "--path", "rate=1M,rtt=100us,buffer=1MB", "--time-limit", "1s"], exit: Fail, want: &["did not complete", "115840 of 1000000000 bytes"], why: "an unfinished transfer fails and says how far it got", ..C },
    Case { name: "send-report", args: &["send", "--card", "model", "--bytes", "10KB", "--report", "r.json"], files: &[("r.json", "{")], ..C },
    Case { name: "send-report-is-pcap", args: &["send", "--card", "model", "--bytes", "10KB", "--pcap", "y.pcapng", "--report", "y.pcapng"], exit: Fail, want: &["same file as --pcap", "nothing was run"], absent: &["y.pcapng"], why: "was: the report overwrote the capture, exit 0", ..C },
    Case { name: "send-report-dev-full", args: &["send", "--card", "model", "--bytes", "10KB", "--report", "/dev/full"], exit: Fail, want: &["cannot write --report /dev/full", "No space left"], why: "was: exit 0 with no report written", ..C },
    Case { name: "send-pcap-wrong-ext", args: &["send", "--card", "model", "--bytes", "10KB", "--pcap", "x.pcap"], exit: Fail, want: &["must end in .pcapng"], absent: &["x.pcap"], ..C },
    Case { name: "send-report-folder", args: &["send", "--card", "model", "--bytes", "10KB", "--report", "adir"], exit: Fail, want: &["is a folder", "nothing was run"], why: "checked before the run, not after it", ..C },
    Case { name: "send-report-missing-folder", args: &["send", "--card", "model", "--bytes", "10KB", "--report", "nodir/r.json"], exit: Fail, want: &["the folder nodir does not exist"], absent: &["nodir"], ..C },
    Case { name: "send-report-under-a-file", args: &["send", "--card", "model", "--bytes", "10KB", "--report", "t.csv/r.json"], exit: Fail, want: &["cannot be created"], unchanged: &["t.csv"], ..C },
    Case { name: "send-report-stdout", args: &["send", "--card", "model", "--bytes", "10KB", "--report", "-"], want: &["\"completed\": true"], absent: &["-"], why: "the JSON report on stdout, in place of the table; no file `-`", ..C },
    Case { name: "send-pcap", args: &["send", "--card", "model", "--bytes", "10KB", "--pcap", "s.pcapng"], files: &[("s.pcapng", "")], ..C },
];

#[rustfmt::skip]
const FLASH_SAFE: &[Case] = &[
    Case { name: "flash-no-subcommand", args: &["flash"], exit: Usage, want: &["info", "write"], ..C },
    Case { name: "flash-board-bogus", args: &["flash", "info", "--board", "u55"], exit: Usage, want: &["unknown board `u55`", "u50"], ..C },
    Case { name: "flash-slot-C", args: &["flash", "write", "img.bit", "--slot", "C"], exit: Usage, want: &["unknown slot `C`", "A, B or golden"], ..C },
    Case { name: "flash-boot-D", args: &["flash", "boot", "D"], exit: Usage, want: &["unknown slot `D`"], ..C },
    Case { name: "flash-boot-missing", args: &["flash", "boot"], exit: Usage, want: &["<SLOT>"], ..C },
    Case { name: "flash-seed-word", args: &["flash", "test-image", "--seed", "abc", "x.bit"], exit: Usage, want: &["`abc` is not a whole number"], absent: &["x.bit"], ..C },
    Case { name: "flash-file-folder", args: &["flash", "info", "--flash-file", "adir"], exit: Fail, want: &["adir", "Is a directory"], ..C },
    Case { name: "flash-file-under-a-file", args: &["flash", "info", "--flash-file", "t.csv/f.img"], exit: Fail, want: &["the folder t.csv does not exist"], unchanged: &["t.csv"], ..C },
    Case { name: "flash-file-garbage", args: &["flash", "info", "--flash-file", "garbage.img"], exit: Fail, want: &["holds 1000 bytes", "delete it for a new card"], unchanged: &["garbage.img"], ..C },
    Case { name: "flash-file-is-a-trace", args: &["flash", "info", "--flash-file", "t.csv"], exit: Fail, want: &["choose another --flash-file"], unchanged: &["t.csv"], ..C },
    Case { name: "flash-file-fifo", args: &["flash", "info", "--flash-file", "fifo"], exit: Fail, want: &["not a regular file"], absent: &["fifo.lock"], why: "was: waited forever", ..C },
    Case { name: "flash-file-dev-null", args: &["flash", "info", "--flash-file", "/dev/null"], exit: Fail, want: &["not a regular file"], why: "was: refused after making /dev/null.lock", ..C },
    Case { name: "flash-test-image-size-0", args: &["flash", "test-image", "--size", "0", "x.bit"], exit: Fail, want: &["`0`"], absent: &["x.bit"], ..C },
    Case { name: "flash-test-image-size-1T", args: &["flash", "test-image", "--size", "1T", "x.bit"], exit: Fail, want: &["`1T` is not a size"], absent: &["x.bit"], ..C },
    Case { name: "flash-test-image-size-5X", args: &["flash", "test-image", "--size", "5X", "x.bit"], exit: Fail, want: &["`5X` is not a size"], absent: &["x.bit"], ..C },
    Case { name: "flash-test-image-bigger-than-a-slot", args: &["flash", "test-image", "--size", "200M", "x.bit"], exit: Fail, want: &["more than a slot", "could never be written"], absent: &["x.bit"], why: "was: a 200 MB image written, exit 0", ..C },
    Case { name: "flash-test-image-size-negative", args: &["flash", "test-image", "--size", "-1", "x.bit"], exit: Fail, want: &["`-1` is not a size"], absent: &["x.bit"], why: "was clap's `unexpected argument '-1' found` / `invalid digit found in string`", ..C },
    Case { name: "flash-test-image-existing", args: &["flash", "test-image", "t.csv"], exit: Fail, want: &["refusing to overwrite t.csv"], unchanged: &["t.csv"], ..C },
    Case { name: "flash-test-image-folder", args: &["flash", "test-image", "adir"], exit: Fail, want: &["adir"], ..C },
    Case { name: "flash-test-image-missing-folder", args: &["flash", "test-image", "nodir/x.bit"], exit: Fail, want: &["nodir/x.bit"], absent: &["nodir"], ..C },
    Case { name: "flash-test-image-unicode", args: &["flash", "test-image", "sp ace/ünï/i é.bit"], files: &[("sp ace/ünï/i é.bit", "")], ..C },
    Case { name: "flash-write-missing-file", args: &["flash", "write", "--flash-file", "f.img", "nosuch.bit"], exit: Fail, want: &["cannot read nosuch.bit", NOTHING], absent: &["f.img"], why: "no flash model is made for a refused image", ..C },
    Case { name: "flash-file-missing-folder", args: &["flash", "info", "--flash-file", "nodir/f.img"], exit: Fail, want: &["the folder nodir does not exist", "mkdir -p nodir"], absent: &["nodir"], why: "was: the folder and a 128 MB model made silently", ..C },
    Case { name: "flash-write-empty-file", args: &["flash", "write", "--flash-file", "f.img", "empty.bit"], exit: Fail, want: &["not a Vivado .bit file", NOTHING], not: &["nothing was written: "], why: "the refusal said once (was twice)", ..C },
    Case { name: "flash-write-a-trace", args: &["flash", "write", "--flash-file", "f.img", "t.csv"], exit: Fail, want: &["no sync word", NOTHING], not: &["nothing was written: "], why: "the refusal said once (was twice)", ..C },
    Case { name: "flash-sume", args: &["flash", "info", "--board", "sume", "--flash-file", "s.img"], exit: Fail, want: &["behind its CPLD", "JTAG"], ..C },
    Case { name: "flash-backend-bogus", args: &["flash", "info", "--backend", "bogus", "--flash-file", "f.img"], exit: Fail, want: &["unknown backend `bogus`", "model"], not: &["a real card keeps its own flash"], why: "was: told --flash-file is not for a real card", ..C },
    Case { name: "flash-backend-vfio-with-file", args: &["flash", "info", "--backend", "vfio:0000:01:00.0", "--flash-file", "f.img"], exit: Fail, want: &["a real card keeps its own flash"], absent: &["f.img"], ..C },
];

/// Flash cases that need the model's 128 MB file: they share one (made once, as shipped) and run
/// in this order; each refusal must leave it usable for the next.
#[rustfmt::skip]
const FLASH_MODEL: &[Case] = &[
    Case { name: "flash-info", args: &["flash", "info", "--flash-file", "{d}/../f.img"], want: &["golden"], ..C },
    Case { name: "flash-info-json", args: &["flash", "info", "--json", "--flash-file", "{d}/../f.img"], want: &["{"], ..C },
    Case { name: "flash-info-other-board", args: &["flash", "info", "--board", "u280", "--flash-file", "{d}/../f.img"], exit: Fail, want: &["it is the flash of a u50 card", "--board u50"], ..C },
    Case { name: "flash-verify", args: &["flash", "verify", "--flash-file", "{d}/../f.img"], ..C },
    Case { name: "flash-write-golden", args: &["flash", "write", "--slot", "golden", "--flash-file", "{d}/../f.img", "{d}/../img.bit"], exit: Fail, want: &["--i-know-this-can-brick-the-card-golden", NOTHING], ..C },
    Case { name: "flash-write-truncated", args: &["flash", "write", "--flash-file", "{d}/../f.img", "{d}/../cut.bit"], exit: Fail, want: &["truncated copy", NOTHING], ..C },
    Case { name: "flash-write-raw-bin", args: &["flash", "write", "--flash-file", "{d}/../f.img", "{d}/../f.img"], exit: Fail, want: &["--part", NOTHING], ..C },
    Case { name: "flash-write-other-part", args: &["flash", "write", "--flash-file", "{d}/../f.img", "{d}/../u280.bit"], exit: Fail, want: &["built for xcu280", NOTHING], ..C },
    Case { name: "flash-write-bit-with-other-part", args: &["flash", "write", "--part", "xcu280-fsvh2892-2L-e", "--flash-file", "{d}/../f.img", "{d}/../img.bit"], exit: Fail, want: &["--part xcu280-fsvh2892-2L-e contradicts", "drop --part", NOTHING], why: "conflicting options (was: --part silently ignored, slot written)", ..C },
    Case { name: "flash-test-image-on-flash-file", args: &["flash", "test-image", "--flash-file", "{d}/../f.img", "{d}/../f.img"], exit: Fail, want: &["it is the flash model's file", NOTHING], ..C },
    Case { name: "flash-boot-empty-slot-default", args: &["flash", "boot", "B", "--default", "--flash-file", "{d}/../f.img"], exit: Fail, want: &["slot B holds no complete image", "nothing was changed"], ..C },
    Case { name: "flash-backend-mem", args: &["flash", "info", "--backend", "mem", "--flash-file", "{d}/../f.img"], want: &["golden"], ..C },
    Case { name: "flash-write-slot-a-lower", args: &["flash", "write", "--slot", "a", "--flash-file", "{d}/../f.img", "{d}/../img.bit"], want: &["wrote slot A", "verified"], why: "slot names in lower case are taken", ..C },
    Case { name: "flash-write-selected-slot", args: &["flash", "write", "--slot", "A", "--flash-file", "{d}/../f.img", "{d}/../img.bit"], exit: Fail, want: &["slot A is the slot the boot record selects", "write slot B", NOTHING], ..C },
    Case { name: "flash-write", args: &["flash", "write", "--flash-file", "{d}/../f.img", "{d}/../img.bit"], want: &["wrote slot B"], why: "the default slot is the one not selected", ..C },
    Case { name: "flash-verify-after-write", args: &["flash", "verify", "--flash-file", "{d}/../f.img"], ..C },
    Case { name: "flash-boot-golden", args: &["flash", "boot", "golden", "--flash-file", "{d}/../f.img"], ..C },
    Case { name: "flash-power-cycle", args: &["flash", "power-cycle", "--flash-file", "{d}/../f.img"], ..C },
];

#[rustfmt::skip]
const GLOBAL: &[Case] = &[
    Case { name: "no-arguments", args: &[], exit: Usage, want: &["Usage: tsnic <COMMAND>"], ..C },
    Case { name: "unknown-command", args: &["frob"], exit: Usage, want: &["unrecognized subcommand 'frob'"], ..C },
    Case { name: "misspelt-command", args: &["pus", "t.csv"], exit: Usage, want: &["similar subcommand exists: 'push'"], ..C },
    Case { name: "upper-case-command", args: &["PUSH", "t.csv"], exit: Usage, want: &["unrecognized subcommand"], ..C },
    Case { name: "version", args: &["--version"], want: &["tsnic"], ..C },
    Case { name: "help", args: &["--help"], want: &["push"], ..C },
    Case { name: "help-push", args: &["help", "push"], want: &["launch_ns,queue,len"], ..C },
    Case { name: "peer-recv-no-listen", args: &["peer-recv"], exit: Usage, want: &["--listen"], ..C },
    Case { name: "peer-recv-bad-address", args: &["peer-recv", "--listen", "garbage"], exit: Usage, want: &["invalid socket address"], ..C },
    Case { name: "peer-recv-bad-port", args: &["peer-recv", "--listen", "127.0.0.1:99999"], exit: Usage, want: &["invalid socket address"], ..C },
    Case { name: "peer-recv-idle", args: &["peer-recv", "--listen", "127.0.0.1:0", "--idle-timeout-ms", "1"], exit: Fail, want: &["no connection arrived"], ..C },
    Case { name: "peer-kernel-send-no-args", args: &["peer-kernel-send"], exit: Usage, want: &["--connect", "--bytes"], ..C },
    Case { name: "peer-kernel-send-refused", args: &["peer-kernel-send", "--connect", "127.0.0.1:1", "--bytes", "10", "--timeout-ms", "100"], exit: Fail, want: &["Connection refused"], ..C },
];

#[test]
fn push_table() {
    if core_ready() {
        // The small 512-bit core is built only with the `alveo` feature (it is the core that
        // `sim:board=u50` is compared with): refused without it, a normal push with it.
        let wide_small = if cfg!(feature = "alveo") {
            Case {
                name: "push-wide-small",
                args: &["push", SMALL, S, "--wide", "t.csv"],
                want: &["512-bit buses", "sent               2"],
                ..C
            }
        } else {
            Case {
                name: "push-wide-small",
                args: &["push", SMALL, S, "--wide", "t.csv"],
                exit: Fail,
                want: &[
                    "small core is built only with 64-bit buses",
                    "--features alveo",
                ],
                ..C
            }
        };
        let cases: Vec<Case> = PUSH
            .iter()
            .cloned()
            .chain(std::iter::once(wide_small))
            .collect();
        run_table("push", &cases);
    }
}

#[test]
fn replay_table() {
    if core_ready() {
        run_table("replay", REPLAY);
    }
}

#[test]
fn phc_table() {
    if core_ready() {
        run_table("phc", PHC);
    }
}

#[test]
fn info_stats_and_state_table() {
    if core_ready() {
        run_table("info", INFO_STATS);
    }
}

#[test]
fn sim_table() {
    if core_ready() {
        run_table("sim", SIM);
    }
}

#[test]
fn send_table() {
    run_table("send", SEND);
}

#[test]
fn global_and_peer_table() {
    run_table("global", GLOBAL);
}

#[test]
fn flash_table() {
    run_table("flash", FLASH_SAFE);
    // the shared model file, a test image for it and one for another card, a truncated copy
    let root = std::env::temp_dir().join(format!("tsnic-table-flashmodel-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).unwrap();
    let tsnic = |args: &[&str]| {
        let o = Command::new(env!("CARGO_BIN_EXE_tsnic"))
            .args(args)
            .current_dir(&root)
            .env("HOME", &root)
            .output()
            .unwrap();
        assert!(
            o.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    };
    tsnic(&["flash", "test-image", "--flash-file", "f.img", "img.bit"]);
    tsnic(&[
        "flash",
        "test-image",
        "--board",
        "u280",
        "--flash-file",
        "f.img",
        "u280.bit",
    ]);
    let img = std::fs::read(root.join("img.bit")).unwrap();
    std::fs::write(root.join("cut.bit"), &img[..5000]).unwrap();
    let mut bad = Vec::new();
    for c in FLASH_MODEL {
        if let Err(e) = run_case(&root, c) {
            bad.push(format!("[flash/{}] {e}", c.name));
        }
    }
    assert!(
        bad.is_empty(),
        "{} flash cases failed:\n\n{}",
        bad.len(),
        bad.join("\n\n")
    );
    let _ = std::fs::remove_dir_all(&root);
}

/// Every command that opens the card, while another command holds it (a push in progress): each
/// is refused at once, naming the holder and the way out; none waits or damages the card. Then a
/// SIGTERM stops the push, which keeps what it did and exits non-zero.
#[test]
fn a_card_in_use_and_a_signal() {
    if !core_ready() {
        return;
    }
    let root = std::env::temp_dir().join(format!("tsnic-table-lock-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).unwrap();
    write_fixtures(&root);
    let st = root.join("card.state");
    let mut push = Command::new(env!("CARGO_BIN_EXE_tsnic"))
        .args(
            [SMALL, S, "--report", "r.json", "long.csv"]
                .iter()
                .fold(vec!["push"], |mut v, a| {
                    v.push(a);
                    v
                }),
        )
        .current_dir(&root)
        .env("TSNIC_SIM_STATE", &st)
        .env("HOME", &root)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // wait until the push holds the card's lock (/proc/locks names the lock file's inode), without
    // competing for it
    let lock = root.join("card.state.lock");
    let mut held = false;
    for _ in 0..500 {
        if let Ok(md) = std::fs::metadata(&lock) {
            use std::os::unix::fs::MetadataExt;
            let ino = format!(":{} ", md.ino());
            if std::fs::read_to_string("/proc/locks").is_ok_and(|l| l.contains(&ino)) {
                held = true;
                break;
            }
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(held, "the push never took the card's lock");
    let busy: &[&[&str]] = &[
        &["info", SMALL, S],
        &["stats", SMALL, S],
        &["phc", "get", SMALL, S],
        &["phc", "set", SMALL, S, "5s"],
        &["push", SMALL, S, "t.csv"],
        &["replay", SMALL, S, "ok.pcap"],
        &["sim", "reset"],
    ];
    let mut bad = Vec::new();
    for args in busy {
        let o = Command::new(env!("CARGO_BIN_EXE_tsnic"))
            .args(*args)
            .current_dir(&root)
            .env("TSNIC_SIM_STATE", &st)
            .env("HOME", &root)
            .output()
            .unwrap();
        let e = String::from_utf8_lossy(&o.stderr);
        if o.status.code() != Some(1)
            || !e.contains("in use by another tsnic command")
            || !e.contains("sim:state=OTHER_FILE")
            || e.contains("panicked")
        {
            bad.push(format!("{args:?}: {:?} {e}", o.status.code()));
        }
    }
    // SIGTERM: the push stops, writes its partial report, says so and exits non-zero
    // SAFETY-free: kill(1) by pid of the child this test started
    Command::new("kill")
        .args(["-TERM", &push.id().to_string()])
        .status()
        .unwrap();
    let out = {
        let mut e = String::new();
        use std::io::Read;
        push.stderr.take().unwrap().read_to_string(&mut e).unwrap();
        (push.wait().unwrap(), e)
    };
    assert!(
        !out.0.success(),
        "a push stopped by SIGTERM exited 0:\n{}",
        out.1
    );
    assert!(out.1.contains("a signal"), "{}", out.1);
    let r = std::fs::read_to_string(root.join("r.json")).expect("the partial report");
    assert!(r.contains("\"partial\""), "{r}");
    // the card is free again and saved with what was sent
    let o = Command::new(env!("CARGO_BIN_EXE_tsnic"))
        .args(["stats", SMALL, S])
        .env("TSNIC_SIM_STATE", &st)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    let _ = std::fs::remove_dir_all(&root);
}

/// The rows, for tests/README.md: `cargo test --test cli_hostile_table -- --ignored --nocapture`.
#[test]
#[ignore]
fn print_the_table() {
    let groups: &[(&str, &[Case])] = &[
        ("push", PUSH),
        ("replay", REPLAY),
        ("phc", PHC),
        ("info, stats, a kept card's state", INFO_STATS),
        ("sim", SIM),
        ("send", SEND),
        ("flash", FLASH_SAFE),
        ("flash (on one model file, in order)", FLASH_MODEL),
        ("no command, help, peer-recv, peer-kernel-send", GLOBAL),
    ];
    let mut n = 0;
    for (g, cases) in groups {
        println!("\n**{g}** ({} cases)\n", cases.len());
        println!("| case | command | outcome |\n|---|---|---|");
        for c in *cases {
            n += 1;
            let mut cmd = String::new();
            for (k, v) in c.env {
                cmd += &format!("{k}={} ", v.replace("{d}/", "").replace("{d}", "."));
            }
            for b in c.before {
                cmd += &format!("`tsnic {}`; ", b.join(" "));
            }
            let args: Vec<String> = c
                .args
                .iter()
                .map(|a| {
                    let a = a.replace("{d}/../", "").replace("{d}/", "");
                    if a.is_empty() || a.contains(' ') {
                        format!("'{a}'")
                    } else {
                        a
                    }
                })
                .collect();
            cmd += &format!("`tsnic {}`", args.join(" "));
            match c.stdout {
                Stdout::Full => cmd += " >/dev/full",
                Stdout::Closed => cmd += " (stdout closed)",
                Stdout::Pipe => {}
            }
            let mut out = match c.exit {
                Pass => "works".to_string(),
                Fail => "refused (exit 1)".to_string(),
                Usage => "usage error (exit 2)".to_string(),
            };
            if !c.want.is_empty() {
                let w: Vec<String> = c.want.iter().map(|w| format!("`{w}`")).collect();
                out += &format!(": {}", w.join(", "));
            }
            if !c.why.is_empty() {
                out += &format!("; {}", c.why);
            }
            if !c.unchanged.is_empty() {
                out += &format!("; {} unchanged", c.unchanged.join(", "));
            }
            if !c.absent.is_empty() {
                out += &format!("; no {}", c.absent.join(", "));
            }
            println!(
                "| {} | {} | {} |",
                c.name,
                cmd.replace('|', "\\|"),
                out.replace('|', "\\|")
            );
        }
    }
    println!(
        "\n{n} rows, plus 10 cases in their own tests: 7 commands on a card a push holds, each refused at once naming the holder and `sim:state=OTHER_FILE`; SIGTERM in that push (exit 1, partial report, the card saved and free); SIGTERM in `phc sync` (exit 1, the trim kept); SIGTERM in `send` (exit 1, the report of what was done)."
    );
}

/// SIGTERM in a long `phc sync` on a kept card: it stops after the sample in progress, prints what
/// it did, keeps (saves) the trim it reached and exits 1 (was: killed, the card rolled back).
#[test]
fn phc_sync_stopped_by_a_signal_keeps_its_work() {
    if !core_ready() {
        return;
    }
    use std::io::BufRead;
    let root = std::env::temp_dir().join(format!("tsnic-table-sync-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).unwrap();
    let st = root.join("card.state");
    let mut sync = Command::new(env!("CARGO_BIN_EXE_tsnic"))
        .args([
            "phc",
            "sync",
            SMALL,
            S,
            "--samples",
            "8000",
            "--interval",
            "10s",
        ])
        .args(["--host-error-ppb", "5000"])
        .env("TSNIC_SIM_STATE", &st)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // after its 20th sample (locked by then), stop it
    let mut lines = std::io::BufReader::new(sync.stdout.take().unwrap()).lines();
    for l in lines.by_ref() {
        if l.unwrap().trim_start().starts_with("20 ") {
            break;
        }
    }
    Command::new("kill")
        .args(["-TERM", &sync.id().to_string()])
        .status()
        .unwrap();
    let rest: Vec<String> = lines.map_while(|l| l.ok()).collect();
    let mut err = String::new();
    std::io::Read::read_to_string(&mut sync.stderr.take().unwrap(), &mut err).unwrap();
    let status = sync.wait().unwrap();
    assert_eq!(status.code(), Some(1), "{err}");
    assert!(err.contains("stopped by a signal"), "{err}");
    assert!(
        rest.iter().any(|l| l.starts_with("stopped after")),
        "{rest:?}"
    );
    let o = Command::new(env!("CARGO_BIN_EXE_tsnic"))
        .args(["phc", "freq", SMALL, S])
        .env("TSNIC_SIM_STATE", &st)
        .output()
        .unwrap();
    let freq = String::from_utf8_lossy(&o.stdout);
    assert_eq!(freq.trim(), "5000 ppb", "the trim was not kept");
    let _ = std::fs::remove_dir_all(&root);
}

/// SIGTERM in a long `send`: the run ends at its next event, the report is written from what was
/// done (`completed: false`, the reason naming the signal) and the command exits 1 (was: killed,
/// no report).
#[test]
fn send_stopped_by_a_signal_writes_what_it_did() {
    let root = std::env::temp_dir().join(format!("tsnic-table-sendsig-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).unwrap();
    let report = root.join("r.json");
    let send = Command::new(env!("CARGO_BIN_EXE_tsnic"))
        .args([
            "send",
            "--card",
            "model",
            "--bytes",
            "2GB",
            "--time-limit",
            "600s",
        ])
        .args(["--path", "rate=100M,rtt=1ms,buffer=1MB", "--report"])
        .arg(&report)
        .env("HOME", &root)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(700));
    Command::new("kill")
        .args(["-TERM", &send.id().to_string()])
        .status()
        .unwrap();
    let out = send.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("stopped by a signal"), "{err}");
    let r = std::fs::read_to_string(&report).expect("the report of what was done");
    assert!(
        r.contains("\"completed\": false") && r.contains("stopped by a signal"),
        "{r}"
    );
    let _ = std::fs::remove_dir_all(&root);
}
