//! The EDT sender benchmarks of docs/BENCHMARKS.md ("EDT TCP sender"), reproducing the
//! figures of the Linux EDT patches in shared/seeds/. Each line prints the measured figures
//! and the equivalent `tsnic send` command.
//!
//! Run: `cargo run --release -p tsnic --example edt_bench [1|2|3|4|5|6]`
//! All runs use the software card model (IdealCardModel), not the RTL (`--card model`). RTT and
//! rate samples start at the scheduled launch time (Linux's `skb_mstamp_ns`, `--stamp
//! scheduled`) unless a line says `--stamp departure`; the pre-EDT `--pacing-model queue`
//! stamps at enqueue into the fq model.

use tsnic::edt::cc::CcKind;
use tsnic::edt::run::{parse_path, parse_size, run, Report, RunConfig};
use tsnic::edt::sender::{Pacer, PacingModel, SampleStamp};

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
    println!("  $ tsnic send --card model {cmd}");
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
    c.stamp = SampleStamp::Departure;
    let d = go(&format!("{cmd} --pacing-model edt --stamp departure"), &c);
    c.stamp = SampleStamp::Scheduled;
    c.pacing_model = PacingModel::Queue;
    let q = go(&format!("{cmd} --pacing-model queue"), &c);
    for (n, r) in [("edt", &e), ("edt/dep", &d), ("queue", &q)] {
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
    // The internal pacing timer (seed internal-pacing-timer.txt): arms and wake-ups per MB,
    // against one arm per paced send before "tcp: optimize tcp internal pacing".
    let mut c = base("rate=10G,rtt=50us,buffer=4MB", "20MB");
    c.pacer = Pacer::Host;
    c.max_rate_bps = Some(8_000_000_000);
    let bulk = go(
        "--cc cubic --bytes 20MB --max-rate 8G --pacer host --path rate=10G,rtt=50us,buffer=4MB",
        &c,
    );
    let mut c = base("rate=10G,rtt=50us,buffer=1MB", "20000");
    c.pacer = Pacer::Host;
    c.rr = Some(100);
    c.max_rate_bps = Some(100_000_000);
    let rr = go(
        "--cc cubic --rr 100 --bytes 20000 --max-rate 100M --pacer host --path rate=10G,rtt=50us,buffer=1MB",
        &c,
    );
    for (n, r) in [("bulk", &bulk), ("100 B RR", &rr)] {
        let mb = r.bytes_acked as f64 / 1e6;
        println!(
            "    timer {n:<8} arms {:9.1}/MB  wake-ups {:9.1}/MB  (before the patch: {:9.1} arms/MB)",
            r.pacing_timer_arms as f64 / mb,
            r.pacing_timer_wakeups as f64 / mb,
            r.pacing_timer_arms_before_patch as f64 / mb
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
            "    {n:<9} buffered (memory) peak {:>11} B steady {:>13.0} B | unsent peak {:>11} B steady {:>13.0} B | goodput {:.1} Mbit/s",
            r.peak_buffered_bytes,
            r.steady_buffered_bytes,
            r.peak_unsent_bytes,
            r.steady_unsent_bytes,
            r.goodput_mbps
        );
    }
    let less = |a: f64, b: f64| 100.0 * (1.0 - b / a.max(1.0));
    println!(
        "    with 128 KiB: memory {:.0}% less at the peak, {:.0}% less in steady state; unsent {:.0}% / {:.0}% less",
        less(u.peak_buffered_bytes as f64, l.peak_buffered_bytes as f64),
        less(u.steady_buffered_bytes, l.steady_buffered_bytes),
        less(u.peak_unsent_bytes as f64, l.peak_unsent_bytes as f64),
        less(u.steady_unsent_bytes, l.steady_unsent_bytes)
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

fn bench6() {
    println!("6. Goodput bar: 1 Gbit/s, 400 us RTT, 100 KB buffer (2 BDP), 4 MB");
    for (cc, name, path) in [
        (
            CcKind::Bbr,
            "bbr",
            "rate=1G,rtt=400us,buffer=100KB,loss=0.002",
        ),
        (CcKind::Cubic, "cubic", "rate=1G,rtt=400us,buffer=100KB"),
    ] {
        for seed in 1..=3u64 {
            let mut c = base(path, "4MB");
            c.cc = cc;
            c.seed = seed;
            let r = go(
                &format!("--cc {name} --bytes 4MB --path {path} --seed {seed}"),
                &c,
            );
            println!(
                "    {name:<5} seed {seed} goodput {:6.1} Mbit/s ({:.1} % of the link)  retransmits {}  random losses {}  bottleneck drops {}",
                r.goodput_mbps,
                r.goodput_mbps / 10.0,
                r.retransmitted_segments,
                r.random_losses,
                r.bottleneck_drops
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
    if want("6") {
        bench6();
    }
}
