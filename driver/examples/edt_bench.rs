//! The EDT sender benchmarks of docs/BENCHMARKS.md ("EDT TCP sender"), reproducing the
//! figures of the Linux EDT patches in shared/seeds/. Each line prints the measured figures
//! and the equivalent `tsnic send` command.
//!
//! Run: `cargo run --release -p tsnic --example edt_bench [1|2|3|4|5]`
//! All runs use the software card model (IdealCardModel), not the RTL.

use tsnic::edt::cc::CcKind;
use tsnic::edt::run::{parse_path, parse_size, run, Report, RunConfig};
use tsnic::edt::sender::{Pacer, PacingModel};

fn base(path: &str, bytes: &str) -> RunConfig {
    RunConfig {
        path: parse_path(path).expect("benchmark path"),
        path_text: path.into(),
        bytes: parse_size(bytes).expect("benchmark size"),
        ..RunConfig::default()
    }
}

fn go(cmd: &str, c: &RunConfig) -> Report {
    let r = run(c).expect("benchmark run");
    println!("  $ tsnic send {cmd}");
    if !r.completed {
        println!("    (did not complete within the time limit)");
    }
    r
}

fn bench1() {
    println!("1. RTT not inflated by pacing (24 Mbit/s max rate, 10G path, 50 us base RTT)");
    let mut c = base("rate=10G,rtt=50us,buffer=1MB", "3MB");
    c.max_rate_bps = Some(24_000_000);
    let cmd = "--cc cubic --bytes 3MB --max-rate 24M --path rate=10G,rtt=50us,buffer=1MB";
    let e = go(&format!("{cmd} --pacing-model edt"), &c);
    c.pacing_model = PacingModel::Queue;
    let q = go(&format!("{cmd} --pacing-model queue"), &c);
    for (n, r) in [("edt", &e), ("queue", &q)] {
        println!(
            "    {n:<6} srtt mean {:8.1} us  p99 {:8.1} us  (base 50 us)  send rate {:.2} Mbit/s",
            r.srtt_us.mean, r.srtt_us.p99, r.achieved_send_mbps
        );
    }
}

fn bench2() {
    println!(
        "2. Jitter credit at an 8 Gbit/s target, host pacing timer with 0..10 us wake-up jitter"
    );
    let mut c = base("rate=10G,rtt=50us,buffer=4MB", "200MB");
    c.max_rate_bps = Some(8_000_000_000);
    c.pacer = Pacer::Host;
    c.jitter_ns = 10_000;
    let cmd = "--cc cubic --bytes 200MB --max-rate 8G --pacer host --jitter 10us --path rate=10G,rtt=50us,buffer=4MB";
    let w = go(cmd, &c);
    c.jitter_credit = false;
    let wo = go(&format!("{cmd} --no-jitter-credit"), &c);
    c.jitter_credit = false;
    c.pacer = Pacer::Card;
    let card = go(
        "--cc cubic --bytes 200MB --max-rate 8G --pacer card --jitter 10us --no-jitter-credit --path rate=10G,rtt=50us,buffer=4MB",
        &c,
    );
    for (n, r) in [("credit", &w), ("no credit", &wo), ("card pacer", &card)] {
        println!(
            "    {n:<10} {:8.2} Mbit/s = {:.4} of target",
            r.achieved_send_mbps,
            r.pacing_accuracy.unwrap_or(0.0)
        );
    }
}

fn bench3() {
    println!(
        "3. Request/response latency at a reduced pacing rate (1-byte RR, 10 Mbit/s max rate)"
    );
    let mut c = base("rate=10G,rtt=50us,buffer=1MB", "5000");
    c.rr = Some(1);
    c.max_rate_bps = Some(10_000_000);
    let cmd = "--cc cubic --rr 1 --bytes 5000 --max-rate 10M --path rate=10G,rtt=50us,buffer=1MB";
    c.pacing_model = PacingModel::Queue;
    let q = go(&format!("{cmd} --pacing-model queue"), &c);
    c.pacing_model = PacingModel::Edt;
    let e = go(&format!("{cmd} --pacing-model edt"), &c);
    for (n, r) in [("queue", &q), ("edt", &e)] {
        let l = r.rr_latency_us.unwrap_or_default();
        println!(
            "    {n:<6} RR latency p50 {:8.1} us  p99 {:8.1} us  max {:8.1} us",
            l.p50, l.p99, l.max
        );
    }
}

fn bench4() {
    println!("4. NOTSENT_LOWAT: 200 flows x 2 MB, 10G path, 1 ms RTT");
    let mut c = base("rate=10G,rtt=1ms,buffer=2MB", "2MB");
    c.flows = 200;
    let cmd = "--cc cubic --flows 200 --bytes 2MB --path rate=10G,rtt=1ms,buffer=2MB";
    let u = go(cmd, &c);
    c.notsent_lowat = Some(128 * 1024);
    let l = go(&format!("{cmd} --notsent-lowat 128KiB"), &c);
    for (n, r) in [("unlimited", &u), ("128 KiB", &l)] {
        println!(
            "    {n:<9} peak unsent {:>11} B  peak buffered {:>11} B  goodput {:.1} Mbit/s",
            r.peak_unsent_bytes, r.peak_buffered_bytes, r.goodput_mbps
        );
    }
    let less = |a: u64, b: u64| 100.0 * (1.0 - b as f64 / a.max(1) as f64);
    println!(
        "    with 128 KiB: {:.0}% less unsent, {:.0}% less buffered",
        less(u.peak_unsent_bytes, l.peak_unsent_bytes),
        less(u.peak_buffered_bytes, l.peak_buffered_bytes)
    );
}

fn bench5() {
    println!("5. CUBIC vs BBR, 1 Gbit/s bottleneck, 10 ms RTT, 100 MB; shallow (100 KB) and deep (5 MB) buffer");
    for buf in ["100KB", "5MB"] {
        for cc in [CcKind::Cubic, CcKind::Bbr] {
            let path = format!("rate=1G,rtt=10ms,buffer={buf}");
            let mut c = base(&path, "100MB");
            c.cc = cc;
            let name = if cc == CcKind::Cubic { "cubic" } else { "bbr" };
            let r = go(&format!("--cc {name} --bytes 100MB --path {path}"), &c);
            println!(
                "    {name:<5} buffer {buf:<5} goodput {:7.1} Mbit/s  queue delay mean {:8.1} us p99 {:8.1} us  retransmits {}",
                r.goodput_mbps, r.queue_delay_us.mean, r.queue_delay_us.p99, r.retransmitted_segments
            );
        }
    }
}

fn main() {
    let which: Vec<String> = std::env::args().skip(1).collect();
    let want = |n: &str| which.is_empty() || which.iter().any(|w| w == n);
    println!("EDT TCP sender benchmarks (software card model IdealCardModel, 10 Gbit/s line)");
    if want("1") {
        bench1();
    }
    if want("2") {
        bench2();
    }
    if want("3") {
        bench3();
    }
    if want("4") {
        bench4();
    }
    if want("5") {
        bench5();
    }
}
