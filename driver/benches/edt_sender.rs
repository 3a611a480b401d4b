//! What the EDT sender costs per segment (issue 36 item 3): the sender and the software card model
//! (`IdealCardModel`, 100 Gb/s), driven in simulated time by a minimal receiver written here (not
//! the simulated network's): it ACKs every second in-order segment, ACKs at once what arrives out of
//! order or fills a hole (SACK blocks as RFC 2018 orders them, at most three with timestamps),
//! echoes timestamps (RFC 7323) and advertises a fixed window that holds the data in flight at
//! 1,000 or 10,000 segments. Loss: none, or 1 % of data segments (retransmissions too), seeded.
//!
//! Each case runs the whole loop (sender, card model, receiver), then the receiver alone over the
//! same segments (same drops), and prints the difference per departed data segment as the sender's
//! cost, beside both totals. The receiver's replay includes the loop's parse of each departed
//! frame (checksums verified): the first 4,096 departed frames are kept and parsed again, one per
//! departed frame. Still counted in the sender's figure: the event loop itself (it polls the card
//! and drains its wire into buffers kept for the run, and returns each departed frame's buffer to
//! the frame pool once it is parsed: the free of a real driver's completion).
//! At 1 % loss the window settles where loss puts it (about 1.22 / sqrt(p) = 12 segments, Mathis
//! et al.), whatever the receiver allows: the line says how many were in flight on average. With
//! `--callgrind` (valgrind installed) each case also runs under callgrind on a tenth of the
//! segments three times: collecting only in the loop, only in the receiver's replay, and only in
//! the card model's methods (`IdealCardModel`); it prints instructions per segment of each and
//! the loop's less the receiver's, the sender's (the card model's share said beside it).
//!
//! Times are the thread's CPU time (/proc/thread-self/schedstat), not wall time, so a busy
//! machine slows them less (caches and frequency still differ).
//!
//! Run: `cargo bench -p tsnic --bench edt_sender [-- --segments N] [-- --callgrind]`
//! (default 200,000 segments a case).

use std::collections::VecDeque;
use std::process::Command;
use std::time::Instant;

/// CPU time of this thread, ns: the first field of /proc/thread-self/schedstat (time on a CPU),
/// so that other processes on a loaded machine do not count; wall time since the first call
/// where that file is missing.
fn cpu_ns() -> u64 {
    static START: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
    let start = START.get_or_init(Instant::now);
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|t| t.split_whitespace().next()?.parse().ok())
        .unwrap_or_else(|| start.elapsed().as_nanos() as u64)
}

use tsnic::edt::card::{IdealCardModel, SimWire, TxPort};
use tsnic::edt::cc::CcKind;
use tsnic::edt::frame::{self, tcp_flags as flags, Endpoints, SegOptions};
use tsnic::edt::sender::{SenderConfig, TcpSender};

const ISS: u32 = 1_000_000;
const PEER_ISN: u32 = 7_000_000;
const RCV_WSCALE: u8 = 9;
/// The receiver's delayed-ACK timeout for a lone in-order segment (Linux's minimum, 40 ms).
const DELACK_NS: u64 = 40_000_000;

#[derive(Clone, Copy)]
struct Case {
    name: &'static str,
    in_flight: u64,
    rtt_ns: u64,
    loss_ppm: u32,
}

const CASES: [Case; 4] = [
    Case {
        name: "clean, 1,000 in flight",
        in_flight: 1_000,
        rtt_ns: 100_000,
        loss_ppm: 0,
    },
    Case {
        name: "clean, 10,000 in flight",
        in_flight: 10_000,
        rtt_ns: 1_000_000,
        loss_ppm: 0,
    },
    Case {
        name: "1 % loss, 1,000 in flight",
        in_flight: 1_000,
        rtt_ns: 100_000,
        loss_ppm: 10_000,
    },
    Case {
        name: "1 % loss, 10,000 in flight",
        in_flight: 10_000,
        rtt_ns: 1_000_000,
        loss_ppm: 10_000,
    },
];

fn ends() -> (Endpoints, Endpoints) {
    let local = Endpoints {
        src_mac: [2, 0, 0, 0, 0, 1],
        dst_mac: [2, 0, 0, 0, 0, 2],
        src_ip: [192, 168, 0, 1],
        dst_ip: [192, 0, 2, 1],
        src_port: 8080,
        dst_port: 40000,
    };
    let peer = Endpoints {
        src_mac: local.dst_mac,
        dst_mac: local.src_mac,
        src_ip: local.dst_ip,
        dst_ip: local.src_ip,
        src_port: local.dst_port,
        dst_port: local.src_port,
    };
    (local, peer)
}

/// One data segment as it left the card: what the receiver needs.
#[derive(Clone, Copy)]
struct WireSeg {
    at: u64,
    seq: u32,
    len: u32,
    tsval: u32,
    dropped: bool,
}

/// The receiver: cumulative ACK point, out-of-order blocks (most recently changed first), every
/// second in-order segment ACKed.
struct Receiver {
    peer: Endpoints,
    window: u16,
    rcv_nxt: u32,
    ooo: Vec<(u32, u32)>,
    unacked: u32,
    ts_recent: u32,
    acks: u64,
}

impl Receiver {
    fn new(peer: Endpoints, in_flight: u64, mss: u64) -> Self {
        let window = ((in_flight * mss) >> RCV_WSCALE).min(65_535) as u16;
        Receiver {
            peer,
            window,
            rcv_nxt: ISS.wrapping_add(1),
            ooo: Vec::new(),
            unacked: 0,
            ts_recent: 0,
            acks: 0,
        }
    }

    fn ack_frame(&mut self, now: u64) -> Vec<u8> {
        self.acks += 1;
        self.unacked = 0;
        let opts = SegOptions {
            timestamps: Some(((now / 1_000_000) as u32, self.ts_recent)),
            sack: self.ooo.iter().take(3).copied().collect(),
            ..SegOptions::default()
        };
        frame::build(
            &self.peer,
            PEER_ISN.wrapping_add(1),
            self.rcv_nxt,
            flags::ACK,
            self.window,
            &opts,
            &[],
        )
    }

    /// A data segment arrives at `now`; returns an ACK frame if one goes back now.
    fn receive(&mut self, now: u64, s: &WireSeg) -> Option<Vec<u8>> {
        let (l, r) = (s.seq, s.seq.wrapping_add(s.len));
        let before = |a: u32, b: u32| (a.wrapping_sub(b) as i32) < 0;
        if !before(self.rcv_nxt, r) {
            // all old: a duplicate (a needless retransmission) is ACKed at once (D-SACK left out)
            return Some(self.ack_frame(now));
        }
        if before(self.rcv_nxt, l) {
            // out of order: merge into the blocks, the changed block first
            let (mut nl, mut nr) = (l, r);
            self.ooo.retain(|&(bl, br)| {
                let touches = !before(br, nl) && !before(nr, bl);
                if touches {
                    if before(bl, nl) {
                        nl = bl;
                    }
                    if before(nr, br) {
                        nr = br;
                    }
                }
                !touches
            });
            self.ooo.insert(0, (nl, nr));
            return Some(self.ack_frame(now));
        }
        // in order (possibly overlapping): advance, then swallow the blocks it reaches
        let filled_hole = !self.ooo.is_empty();
        self.ts_recent = s.tsval;
        self.rcv_nxt = r;
        loop {
            let n = self.rcv_nxt;
            let Some(i) = self.ooo.iter().position(|&(bl, _)| !before(n, bl)) else {
                break;
            };
            let (_, br) = self.ooo.remove(i);
            if before(self.rcv_nxt, br) {
                self.rcv_nxt = br;
            }
        }
        self.unacked += 1;
        if filled_hole || self.unacked >= 2 {
            Some(self.ack_frame(now))
        } else {
            None
        }
    }
}

/// Deterministic loss: xorshift over the segment's departure index.
struct Loss {
    ppm: u32,
    state: u64,
}

impl Loss {
    fn drop_next(&mut self) -> bool {
        self.state ^= self.state << 13;
        self.state ^= self.state >> 7;
        self.state ^= self.state << 17;
        self.ppm > 0 && (self.state % 1_000_000) < u64::from(self.ppm)
    }
}

struct Outcome {
    /// Segments in flight after each ACK, averaged (the loss cases run below their window).
    mean_in_flight: f64,
    segments: u64,
    acks: u64,
    retrans: u64,
    wire: Vec<WireSeg>,
    /// The first departed frames, for the receiver's replay of the loop's parse.
    sample: Vec<Vec<u8>>,
    /// Frames the loop parsed.
    parsed: u64,
    cpu_ns: f64,
    sim_ns: u64,
}

/// How many departed frames the receiver's replay keeps to parse again.
const SAMPLE: usize = 4_096;

/// The closed loop: sender + card model + receiver, until `segments` worth of data is ACKed.
#[inline(never)]
fn run_loop(case: Case, segments: u64, keep_wire: bool) -> Outcome {
    let (local, peer) = ends();
    let mut cfg = SenderConfig::new(local, ISS, CcKind::Cubic);
    cfg.seed = 1;
    let mss = u64::from(cfg.mss) - frame::TS_OPTION_LEN as u64;
    let bytes = segments * mss;
    let mut s = TcpSender::new(cfg, 0);
    s.set_sndbuf(bytes.saturating_mul(2).max(4 << 20));
    let mut card = IdealCardModel::new(100_000_000_000);
    let mut rx = Receiver::new(peer, case.in_flight, mss);
    let mut loss = Loss {
        ppm: case.loss_ppm,
        state: 0x9e37_79b9_7f4a_7c15,
    };
    // ACKs on their way back: (arrival time, frame), in time order (the path is FIFO)
    let mut back: VecDeque<(u64, Vec<u8>)> = VecDeque::new();
    let mut delack_at: Option<u64> = None;
    let mut wire = Vec::new();
    let mut sample = Vec::new();
    let mut parsed = 0u64;
    let mut data_out = 0u64;
    let mut now = 0u64;
    let end_seq = ISS.wrapping_add(1).wrapping_add(bytes as u32);
    let t0 = cpu_ns();
    s.connect(now, &mut card);
    let mut wrote = false;
    let mut guard = 0u64;
    let (mut flight_sum, mut flight_n) = (0u64, 0u64);
    // completions and departed frames, one buffer each for the whole run
    let mut cpls = Vec::new();
    let mut departed = Vec::new();
    loop {
        card.poll_into(now, &mut cpls);
        for c in cpls.drain(..) {
            s.on_completion(&c);
        }
        card.drain_wire_into(&mut departed);
        for w in departed.drain(..) {
            let seg = frame::parse(&w.frame).expect("the sender's own frame parses");
            parsed += 1;
            if keep_wire && sample.len() < SAMPLE {
                sample.push(w.frame.clone());
            }
            // the frame has left and been read: its buffer goes back to the pool
            frame::recycle(w.frame);
            let at = w.depart_ns + case.rtt_ns / 2;
            if seg.flags & flags::SYN != 0 {
                // the SYN-ACK, with our options
                let opts = SegOptions {
                    mss: Some(1460),
                    wscale: Some(RCV_WSCALE),
                    sack_permitted: true,
                    timestamps: Some((1, seg.options.timestamps.map_or(0, |t| t.0))),
                    sack: Vec::new(),
                };
                let f = frame::build(
                    &peer,
                    PEER_ISN,
                    ISS.wrapping_add(1),
                    flags::SYN | flags::ACK,
                    65_535, // a SYN's window is not scaled (RFC 7323 2.2)
                    &opts,
                    &[],
                );
                back.push_back((at + case.rtt_ns / 2, f));
                continue;
            }
            if seg.payload_len == 0 {
                continue;
            }
            data_out += 1;
            let ws = WireSeg {
                at,
                seq: seg.seq,
                len: seg.payload_len as u32,
                tsval: seg.options.timestamps.map_or(0, |t| t.0),
                dropped: loss.drop_next(),
            };
            if keep_wire {
                wire.push(ws);
            }
            if ws.dropped {
                continue;
            }
            match rx.receive(at, &ws) {
                Some(a) => {
                    delack_at = None;
                    back.push_back((at + case.rtt_ns / 2, a));
                }
                None => delack_at = Some(at + DELACK_NS),
            }
        }
        if let Some(t) = delack_at {
            if t <= now {
                delack_at = None;
                let a = rx.ack_frame(t);
                back.push_back((t + case.rtt_ns / 2, a));
            }
        }
        while back.front().is_some_and(|(t, _)| *t <= now) {
            let (_, f) = back.pop_front().expect("front checked");
            s.on_frame(now, &f, &mut card);
            flight_sum += s.in_flight();
            flight_n += 1;
        }
        if !wrote && s.stats.established_ns > 0 {
            s.write(bytes);
            wrote = true;
        }
        s.on_timers(now, &mut card);
        s.xmit(now, &mut card);
        if wrote && rx.rcv_nxt == end_seq && back.is_empty() && s.in_flight() == 0 {
            break;
        }
        // next event
        let next = [
            card.next_event_ns(),
            back.front().map(|(t, _)| *t),
            s.next_timer_ns(),
            delack_at,
        ]
        .into_iter()
        .flatten()
        .min()
        .map(|t| t.max(now + 1)); // the card reports a departure due now as its next event
        match next {
            Some(t) => now = t,
            None => now += 1_000,
        }
        guard += 1;
        assert!(
            guard < segments * 200 + 1_000_000,
            "{}: no progress (acked up to {} of {end_seq})",
            case.name,
            rx.rcv_nxt
        );
    }
    let cpu_ns = (cpu_ns() - t0) as f64;
    Outcome {
        mean_in_flight: flight_sum as f64 / flight_n.max(1) as f64,
        segments: data_out,
        acks: rx.acks,
        retrans: s.stats.retrans_segs,
        wire,
        sample,
        parsed,
        cpu_ns,
        sim_ns: now,
    }
}

/// The receiver alone over the same segments and drops, with the loop's parse of every departed
/// frame (replayed on the sampled frames): its share of the loop's cost.
#[inline(never)]
fn run_receiver(case: Case, wire: &[WireSeg], sample: &[Vec<u8>], parsed: u64) -> f64 {
    let (_, peer) = ends();
    let mss = 1460 - frame::TS_OPTION_LEN as u64;
    let mut rx = Receiver::new(peer, case.in_flight, mss);
    let t0 = cpu_ns();
    let mut n = 0usize;
    let replays = if sample.is_empty() {
        0
    } else {
        parsed as usize
    };
    for k in 0..replays {
        let f = &sample[k % sample.len()];
        n += frame::parse(std::hint::black_box(f)).map_or(0, |s| s.payload_len);
    }
    for w in wire {
        if w.dropped {
            continue;
        }
        if let Some(a) = rx.receive(w.at, w) {
            n += a.len();
        }
        std::hint::black_box(&n);
    }
    (cpu_ns() - t0) as f64
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut segments = 200_000u64;
    let mut callgrind = false;
    let mut only: Option<usize> = None;
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--segments" => {
                i += 1;
                segments = args
                    .get(i)
                    .and_then(|v| v.parse().ok())
                    .filter(|&v| v > 0)
                    .unwrap_or_else(|| {
                        eprintln!("edt_sender: --segments needs a positive whole number");
                        std::process::exit(2)
                    });
            }
            "--callgrind" => callgrind = true,
            "--case" => {
                i += 1;
                only = args.get(i).and_then(|v| v.parse().ok());
            }
            "--bench" => {} // cargo bench passes it
            other => {
                eprintln!("edt_sender: unknown argument `{other}` (--segments N, --callgrind)");
                std::process::exit(2);
            }
        }
        i += 1;
    }
    if let Some(k) = only {
        // one case, quietly: what callgrind counts
        let case = CASES[k];
        let o = run_loop(case, segments, true);
        let _ = run_receiver(case, &o.wire, &o.sample, o.parsed);
        println!("segments {}", o.segments);
        return;
    }
    println!("EDT sender cost per departed data segment (CUBIC, MSS 1448, 100 Gb/s card model; thread CPU time)");
    for (k, case) in CASES.iter().enumerate() {
        let o = run_loop(*case, segments, true);
        let rx_ns = run_receiver(*case, &o.wire, &o.sample, o.parsed);
        let per = |ns: f64| ns / o.segments as f64;
        println!(
            "{:<28} sender {:>7.0} ns/segment   (loop {:>7.0}, receiver alone {:>5.0})   mean in flight {:.0}, {} segments, {} retransmitted, {} ACKs, {:.1} ms simulated",
            case.name,
            per(o.cpu_ns - rx_ns),
            per(o.cpu_ns),
            per(rx_ns),
            o.mean_in_flight,
            o.segments,
            o.retrans,
            o.acks,
            o.sim_ns as f64 / 1e6
        );
        if callgrind {
            let n = (segments / 10).max(1000);
            match (
                instructions(k, n, "edt_sender::run_loop"),
                instructions(k, n, "edt_sender::run_receiver"),
                instructions(k, n, "*IdealCardModel*"),
            ) {
                (Ok((ir, segs)), Ok((rx, _)), Ok((card, _))) => {
                    let per = |v: u64| v as f64 / segs as f64;
                    println!(
                        "{:<28} sender {:>7.0} instructions/segment   (loop {:>7.0}, receiver alone {:>5.0}; of the sender's, the card model {:.0}; callgrind, {segs} segments)",
                        "",
                        per(ir) - per(rx),
                        per(ir),
                        per(rx),
                        per(card)
                    )
                }
                (Err(e), _, _) | (_, Err(e), _) | (_, _, Err(e)) => {
                    println!("{:<28} callgrind: {e}", "")
                }
            }
        }
    }
    println!(
        "-- rerun: cargo bench -p tsnic --bench edt_sender -- --segments {segments}{}",
        if callgrind { " --callgrind" } else { "" }
    );
}

/// Instructions of one case under callgrind (this binary, `--case K`), counted only inside
/// `function` (callgrind's --toggle-collect): (Ir, segments).
fn instructions(case: usize, segments: u64, function: &str) -> Result<(u64, u64), String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let out = std::env::temp_dir().join(format!("edt_sender.callgrind.{}", std::process::id()));
    let o = Command::new("valgrind")
        .arg("--tool=callgrind")
        .arg(format!("--callgrind-out-file={}", out.display()))
        .arg(format!("--toggle-collect={function}"))
        .arg(&exe)
        .args([
            "--case",
            &case.to_string(),
            "--segments",
            &segments.to_string(),
        ])
        .output()
        .map_err(|e| format!("cannot run valgrind ({e}): apt-get install valgrind"))?;
    let text = std::fs::read_to_string(&out).unwrap_or_default();
    let _ = std::fs::remove_file(&out);
    if !o.status.success() {
        return Err(format!(
            "valgrind failed: {}",
            String::from_utf8_lossy(&o.stderr)
                .lines()
                .last()
                .unwrap_or("")
        ));
    }
    let ir = text
        .lines()
        .find_map(|l| l.strip_prefix("summary: "))
        .and_then(|v| v.trim().parse().ok())
        .ok_or("no summary line in callgrind's output")?;
    let segs = String::from_utf8_lossy(&o.stdout)
        .lines()
        .find_map(|l| l.strip_prefix("segments "))
        .and_then(|v| v.trim().parse().ok())
        .ok_or("the case printed no segment count")?;
    Ok((ir, segs))
}
