//! The `null` backend (docs/ARCHITECTURE.md, "Backends"): a host thread that takes descriptors and
//! writes completions as a card would, for host benchmarks.
//!
//! - `tsnic push` and `tsnic replay --backend null` give every frame exactly one completion, write a
//!   well-formed report and pcapng, and end their summary with `host: N ns per frame, M Mpps`.
//! - The card thread's completion and phase handling over ring wraps, against the driver's real
//!   rings (random ring sizes, doorbell batches, completion rings smaller than the TX ring, lazy
//!   reaping): every descriptor completes exactly once, in fetch order, with its own fields.
//! - What the null card does not have (flash) is refused with an error that names the fix.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use proptest::prelude::*;
use tsnic::contract::{Completion, Status};
use tsnic::device::Card;
use tsnic::regs::DescFlags;
use tsnic::ring::{CplRing, QueueConfig, Rings, TxQueue};

mod bin;
use bin::tsnic;

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("tsnic-null-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The last line of stdout, parsed: (ns per frame, Mpps).
fn host_line(out: &str) -> (f64, f64) {
    let last = out.lines().last().unwrap_or("");
    let rest = last
        .strip_prefix("host: ")
        .unwrap_or_else(|| panic!("the summary does not end with `host: ...`: {out}"));
    let (ns, rest) = rest.split_once(" ns per frame, ").expect(last);
    let mpps = rest.strip_suffix(" Mpps").expect(last);
    let (ns, mpps): (f64, f64) = (ns.parse().expect(last), mpps.parse().expect(last));
    assert!(ns > 0.0 && mpps > 0.0, "{last}");
    // M = 1000 / N, up to the printed rounding (N to 0.1 ns, M to 0.01 Mpps: at 17 872.6 ns a
    // frame, 0.06 Mpps is 7 % off 1000 / N and still right)
    let exact = 1000.0 / ns;
    assert!(
        (mpps - exact).abs() <= 0.005 + exact * 0.05 / ns + 1e-9,
        "{last}: {mpps} Mpps is not 1000 / {ns} ns rounded"
    );
    (ns, mpps)
}

/// A classic pcap (ns resolution) of `frames`, 1 us apart.
fn write_pcap(path: &Path, frames: &[Vec<u8>]) {
    let mut b = Vec::new();
    b.extend_from_slice(&0xa1b2_3c4du32.to_le_bytes());
    b.extend_from_slice(&2u16.to_le_bytes());
    b.extend_from_slice(&4u16.to_le_bytes());
    for v in [0u32, 0, 65535, 1] {
        b.extend_from_slice(&v.to_le_bytes());
    }
    for (i, f) in frames.iter().enumerate() {
        let t = 1_000_000_000u64 + i as u64 * 1000;
        for v in [
            (t / 1_000_000_000) as u32,
            (t % 1_000_000_000) as u32,
            f.len() as u32,
            f.len() as u32,
        ] {
            b.extend_from_slice(&v.to_le_bytes());
        }
        b.extend_from_slice(f);
    }
    std::fs::write(path, b).unwrap();
}

/// Every frame of the report, once, SENT, departing at its launch time.
fn check_report(path: &Path, n: u64) {
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).expect("report is JSON");
    assert_eq!(v["packets"], n, "{v}");
    assert_eq!(v["sent"], n, "{v}");
    let frames = v["frames"].as_array().expect("frames");
    assert_eq!(frames.len() as u64, n);
    let mut seen = vec![false; n as usize];
    for f in frames {
        let i = f["index"].as_u64().unwrap() as usize;
        assert!(!seen[i], "frame {i} twice");
        seen[i] = true;
        assert_eq!(f["status"], "SENT", "{f}");
        assert_eq!(f["depart_ns"], f["launch_ns"], "{f}");
    }
}

#[test]
fn push_on_null_completes_every_row_once() {
    let d = scratch("push");
    let trace = d.join("t.csv");
    let n = 5000u64;
    let mut csv = String::from("launch_ns,queue,len\n");
    for i in 0..n {
        csv += &format!("{},{},{}\n", i * 500, i % 3, 64 + i % 1400);
    }
    std::fs::write(&trace, csv).unwrap();
    let (pcap, report) = (d.join("o.pcapng"), d.join("r.json"));
    let (ok, out, err) = tsnic(&[
        "push",
        "--backend",
        "null",
        "--ring-log2",
        "6",
        trace.to_str().unwrap(),
        "--pcap",
        pcap.to_str().unwrap(),
        "--report",
        report.to_str().unwrap(),
    ]);
    assert!(ok, "{out}{err}");
    assert!(out.contains("backend            null"), "{out}");
    host_line(&out);
    check_report(&report, n);
    let wire = tsnic::capture::read(&pcap).expect("pcapng reads back");
    assert_eq!(wire.len() as u64, n);
    for (i, p) in wire.iter().enumerate() {
        let tag = tsnic::trace::parse_frame(&p.data).expect("a trace frame");
        assert_eq!(tag.index, i as u64);
        assert_eq!(p.data.len() as u64, 64 + i as u64 % 1400);
    }
    // --quiet: no table, the host line alone; `--report -`: JSON on stdout, the line on stderr
    let (ok, out, err) = tsnic(&[
        "push",
        "--backend",
        "null",
        "--quiet",
        trace.to_str().unwrap(),
    ]);
    assert!(ok && out.lines().count() == 1, "{out}{err}");
    host_line(&out);
    let (ok, out, err) = tsnic(&[
        "push",
        "--backend",
        "null",
        trace.to_str().unwrap(),
        "--report",
        "-",
    ]);
    assert!(ok, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("stdout is the JSON report");
    assert_eq!(v["sent"], n);
    host_line(err.lines().last().unwrap_or(""));
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn replay_on_null_completes_every_packet_once() {
    let d = scratch("replay");
    let cap = d.join("in.pcap");
    let n = 20_000usize;
    let frames: Vec<Vec<u8>> = (0..n)
        .map(|i| {
            (0..60)
                .map(|j| (i.wrapping_mul(31) + j * 7) as u8)
                .collect()
        })
        .collect();
    write_pcap(&cap, &frames);
    let (pcap, report) = (d.join("o.pcapng"), d.join("r.json"));
    let (ok, out, err) = tsnic(&[
        "replay",
        "--backend",
        "null",
        cap.to_str().unwrap(),
        "--pcap",
        pcap.to_str().unwrap(),
        "--report",
        report.to_str().unwrap(),
    ]);
    assert!(ok, "{out}{err}");
    let (ns, _) = host_line(&out);
    eprintln!("replay of {n} 60-byte frames on null: {ns} ns per frame (debug build)");
    check_report(&report, n as u64);
    let wire = tsnic::capture::read(&pcap).expect("pcapng reads back");
    assert_eq!(wire.len(), n);
    for (i, p) in wire.iter().enumerate() {
        assert_eq!(p.data, frames[i], "packet {i}");
        if i > 0 {
            // departure = launch = time 0 + the capture's own offsets (1 us apart)
            assert_eq!(p.ts_ns - wire[i - 1].ts_ns, 1000, "packet {i}");
        }
    }
    std::fs::remove_dir_all(&d).ok();
}

/// A UDP frame of flow `k` (source address and port count up with it), 60 bytes, its payload
/// tagged with `i`.
fn udp_frame(k: u8, i: u32) -> Vec<u8> {
    let mut f = vec![2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2, 0x08, 0x00];
    f.extend([
        0x45, 0, 0, 46, 0, 0, 0, 0, 64, 17, 0, 0, 10, 0, 0, k, 10, 0, 1, 1,
    ]);
    f.extend((4000 + u16::from(k)).to_be_bytes());
    f.extend([0, 53, 0, 26, 0, 0]);
    f.extend(i.to_be_bytes());
    f.resize(60, 0xa5);
    f
}

/// `--threads 2` on the null card, which posts from two threads at once: `replay` spreads the flows
/// over two queues, one a thread, and every packet completes once, SENT at its time, the capture
/// in the input's order byte for byte, each flow on one queue; `push` of a trace over 4 queues the
/// same, every row on its own queue.
#[test]
fn threads_post_their_queues_and_every_frame_completes_once() {
    let d = scratch("threads");
    let cap = d.join("in.pcap");
    let n = 20_000u32;
    let frames: Vec<Vec<u8>> = (0..n).map(|i| udp_frame((i % 64) as u8, i)).collect();
    write_pcap(&cap, &frames);
    let (pcap, report) = (d.join("o.pcapng"), d.join("r.json"));
    let (ok, out, err) = tsnic(&[
        "replay",
        "--backend",
        "null",
        "--threads",
        "2",
        cap.to_str().unwrap(),
        "--pcap",
        pcap.to_str().unwrap(),
        "--report",
        report.to_str().unwrap(),
    ]);
    assert!(ok, "{out}{err}");
    host_line(&out);
    check_report(&report, u64::from(n));
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    let mut flow_queue: HashMap<u8, u64> = HashMap::new();
    for (i, f) in v["frames"].as_array().unwrap().iter().enumerate() {
        let q = f["queue"].as_u64().unwrap();
        assert!(q < 2, "{f}");
        let prev = *flow_queue.entry((i % 64) as u8).or_insert(q);
        assert_eq!(prev, q, "flow {} changed queue at frame {i}", i % 64);
    }
    for q in ["0", "1"] {
        assert!(
            v["queues"][q]["sent"].as_u64().unwrap_or(0) > u64::from(n) / 8,
            "both queues (both threads) carry frames: {}",
            v["queues"]
        );
    }
    let wire = tsnic::capture::read(&pcap).expect("pcapng reads back");
    assert_eq!(wire.len(), n as usize);
    for (i, p) in wire.iter().enumerate() {
        assert_eq!(p.data, frames[i], "packet {i}");
    }
    // push: the trace's queue column picks the queue, queue q goes to thread q % 2
    let trace = d.join("t.csv");
    let rows = 8000u64;
    let mut csv = String::from("launch_ns,queue,len\n");
    for i in 0..rows {
        csv += &format!("{},{},{}\n", i * 500, i % 4, 64 + i % 700);
    }
    std::fs::write(&trace, csv).unwrap();
    let (pcap, report) = (d.join("p.pcapng"), d.join("p.json"));
    let (ok, out, err) = tsnic(&[
        "push",
        "--backend",
        "null",
        "--threads",
        "2",
        "--ring-log2",
        "6",
        trace.to_str().unwrap(),
        "--pcap",
        pcap.to_str().unwrap(),
        "--report",
        report.to_str().unwrap(),
    ]);
    assert!(ok, "{out}{err}");
    check_report(&report, rows);
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    for (i, f) in v["frames"].as_array().unwrap().iter().enumerate() {
        assert_eq!(f["queue"].as_u64(), Some(i as u64 % 4), "{f}");
    }
    let wire = tsnic::capture::read(&pcap).expect("pcapng reads back");
    assert_eq!(wire.len() as u64, rows);
    for (i, p) in wire.iter().enumerate() {
        let tag = tsnic::trace::parse_frame(&p.data).expect("a trace frame");
        assert_eq!(tag.index, i as u64);
    }
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn what_the_null_card_lacks_is_refused_with_the_fix() {
    let (ok, _, err) = tsnic(&["flash", "--backend", "null", "info"]);
    assert!(
        !ok && err.contains("the null backend has no flash") && err.contains("--backend sim"),
        "{err}"
    );
    // info/stats/phc answer on it
    let (ok, out, err) = tsnic(&["info", "--backend", "null"]);
    assert!(ok && out.contains("TX queues         64"), "{out}{err}");
    let (ok, out, err) = tsnic(&["phc", "--backend", "null", "get"]);
    assert!(ok && out.contains("freq       0 ppb"), "{out}{err}");
    let (ok, out, err) = tsnic(&["stats", "--backend", "null"]);
    assert!(ok, "{out}{err}");
}

/// The PHC reads the host's CLOCK_TAI (set at open, then the host clock's rate).
#[test]
fn null_phc_follows_the_host_clock() {
    let mut card = Card::open("null").unwrap();
    let b = card.backend();
    let host0 = b.now_ns();
    let phc = tsnic::push::phc_now(b);
    let host1 = b.now_ns();
    assert!(
        phc + 1_000_000 >= host0 && phc <= host1 + 1_000_000,
        "{host0} {phc} {host1}"
    );
}

/// Post `n` frames over `queues` queues through the driver's rings on the null card, reaping at
/// random moments (`reap_every` posts), and check every completion.
fn run_rings(
    ring_log2: u32,
    cpl_log2: u32,
    batch: u32,
    queues: u16,
    n: usize,
    reap_every: usize,
    seed: u64,
) -> Result<(), TestCaseError> {
    let mut card = Card::open("null").unwrap();
    let (caps, b) = card.parts();
    let caps = caps.clone();
    b.write32(
        tsnic::contract::reg::CTRL_CONTROL,
        tsnic::contract::reg::CTRL_CONTROL_ENABLE,
    );
    let cfg = QueueConfig {
        ring_log2,
        buf_size: 128,
        batch,
        ..QueueConfig::default()
    };
    let mut qs = Vec::new();
    for q in 0..queues {
        qs.push(TxQueue::create(b, &caps, q, &cfg).unwrap());
    }
    let cpl = CplRing::create(b, &caps, cpl_log2).unwrap();
    let mut rings = Rings { queues: qs, cpl };
    // (queue, cookie) -> (launch, len) of the frame in flight
    let mut in_flight: HashMap<(u16, u32), (u64, u32)> = HashMap::new();
    let mut next_index = vec![0u16; queues as usize];
    let mut got = 0usize;
    let mut cpls: Vec<Completion> = Vec::new();
    let mut rng = seed | 1;
    let mut rand = || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    let mut check = |cpls: &mut Vec<Completion>,
                     in_flight: &mut HashMap<(u16, u32), (u64, u32)>|
     -> Result<usize, TestCaseError> {
        for c in cpls.iter() {
            let (launch, len) = in_flight
                .remove(&(c.queue, c.cookie))
                .ok_or_else(|| TestCaseError::fail(format!("unexpected completion {c:?}")))?;
            prop_assert_eq!(c.status, Status::Sent as u8);
            prop_assert_eq!((c.launch_ns, c.depart_ns), (launch, launch));
            prop_assert_eq!(u32::from(c.len), len);
            // the null card fetches each queue in ring order
            prop_assert_eq!(c.ring_index, next_index[c.queue as usize], "{:?}", c);
            next_index[c.queue as usize] = next_index[c.queue as usize].wrapping_add(1);
        }
        let k = cpls.len();
        cpls.clear();
        Ok(k)
    };
    let frame = [0x5au8; 128];
    let mut posted = 0usize;
    // A stall is no completion for STALL: a watchdog on progress, not a time limit on the run (a
    // debug build beside two cocotb benches on two cores takes seconds for 70 000 descriptors).
    const STALL: std::time::Duration = std::time::Duration::from_secs(20);
    let mut progress = (got, std::time::Instant::now());
    while got < n {
        if got != progress.0 {
            progress = (got, std::time::Instant::now());
        }
        prop_assert!(
            progress.1.elapsed() < STALL,
            "stalled: {} of {} completed, none for {:?}",
            got,
            n,
            STALL
        );
        if posted < n {
            let q = (rand() % queues as u64) as usize;
            let len = 1 + (rand() % 128) as u32;
            let launch = rand() >> 2;
            match rings.queues[q]
                .post(b, &frame[..len as usize], launch, DescFlags::empty())
                .unwrap()
            {
                Ok(cookie) => {
                    prop_assert!(in_flight
                        .insert((q as u16, cookie), (launch, len))
                        .is_none());
                    posted += 1;
                }
                Err(_) => {
                    rings.doorbell_all(b);
                    rings.poll(b, &mut cpls, 1 << cpl_log2).unwrap();
                    got += check(&mut cpls, &mut in_flight)?;
                }
            }
            if rand() % reap_every as u64 == 0 {
                rings.doorbell_all(b);
                rings
                    .poll(b, &mut cpls, 1 + (rand() % 64) as usize)
                    .unwrap();
                got += check(&mut cpls, &mut in_flight)?;
            }
        } else {
            rings.doorbell_all(b);
            rings.poll(b, &mut cpls, 1 << cpl_log2).unwrap();
            got += check(&mut cpls, &mut in_flight)?;
            std::thread::yield_now();
        }
    }
    prop_assert!(in_flight.is_empty());
    // nothing more comes: every descriptor had exactly one completion
    std::thread::sleep(std::time::Duration::from_millis(2));
    rings.poll(b, &mut cpls, 1 << cpl_log2).unwrap();
    prop_assert!(cpls.is_empty(), "extra completions: {:?}", cpls);
    let mut counted = 0u64;
    for q in &rings.queues {
        prop_assert_eq!(q.outstanding(), 0);
        counted += u64::from(b.read32(caps.q_reg(q.queue(), tsnic::contract::reg::Q_CNT_SENT)));
    }
    // the card's own counters agree
    prop_assert_eq!(counted, n as u64);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, max_shrink_iters: 32, ..ProptestConfig::default() })]

    /// Ring wraps (TX rings of 2..64 descriptors, completion rings of 2..32 records, several
    /// hundred frames: many passes of both, phase flipping each time) with lazy, random reaping.
    #[test]
    fn null_card_completes_each_descriptor_once_over_wraps(
        ring_log2 in 1u32..=6,
        cpl_log2 in 1u32..=5,
        batch in 1u32..=16,
        queues in 1u16..=3,
        n in 1usize..=700,
        reap_every in 1usize..=40,
        seed in any::<u64>(),
    ) {
        run_rings(ring_log2, cpl_log2, batch, queues, n, reap_every, seed)?;
    }
}

/// Past the 16-bit ring index: 70 000 descriptors on one queue.
#[test]
fn null_card_past_the_16_bit_index() {
    run_rings(4, 3, 8, 1, 70_000, 5, 7).unwrap();
}
