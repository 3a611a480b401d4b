//! One simulated card kept across many jobs, as a user's card is: launch order and on-time departure
//! of every frame, checked against the bench's own model and clock.
//!
//! Issue 34 found that a push on a card used before could leave frames tens of microseconds late and
//! behind frames launched after them: the previous push's queue disables each started a flush that
//! swept every node ever allocated, one queue after another, and the new push's queues were not
//! fetched until their flush ended. Each seed here runs, on one card: a large first push (thousands of
//! nodes allocated), then rounds of pushes with random ring sizes (so rings start where the last job
//! left them, wrap, and cross 4 KiB pages), random doorbell batches (sparse doorbells), flushes of
//! queues holding far-future frames, and PHC steps both ways between them.
//!
//! The model is the timing contract and docs/CALENDAR.md's order rules, computed from the trace alone:
//! - every frame is on the wire exactly once, with its bytes;
//! - frames leave in launch-time order (every frame of a job is posted long before it is due, so each
//!   is inside the calendar before any later one is released); ties within a queue in posting order;
//!   ties across queues in rounds (each queue's r-th frame of the tie before any queue's (r+1)-th);
//! - on time, in simulated time from the wire model (not the card's stamps): a frame's preamble
//!   starts at its launch time on an idle line, or when the line is free, within one core cycle;
//! - never early by the card's own departure stamp either.

use std::collections::HashMap;

use tsnic::contract::{reg, Completion, Status};
use tsnic::device::sim::{LineRate, SimBackend, SimConfig, WireTap};
use tsnic::device::Card;
use tsnic::phc;
use tsnic::push::{self, FrameResult, JobFrame, PushOptions};
use tsnic::regs::DescFlags;
use tsnic::ring::{CplRing, QueueConfig, TxQueue};
use tsnic::trace;

mod common;
use common::{core_ready, Rng};

/// Core clock period of the default configuration, ns.
const CYCLE_NS: i64 = 4;

struct Gen;
impl push::FrameSource for Gen {
    fn frame(&self, f: &JobFrame, out: &mut Vec<u8>) {
        trace::build_frame(f.index, f.launch_ns, f.len as usize, out);
    }
}

/// Frame lengths: with preamble, FCS and a 12-octet gap, 63 and 1514 are 3 and 2 octets past a 4-octet
/// column, so back to back the MAC's deficit idle count moves their successors' starts.
const LENS: [u32; 6] = [60, 63, 128, 512, 1000, 1514];

/// The first trace: `n` frames at random times over 2 ms on 8 queues.
fn burst_job(rng: &mut Rng, n: u64, t0: u64) -> Vec<JobFrame> {
    (0..n)
        .map(|i| JobFrame {
            index: i,
            queue: rng.below(8) as u16,
            len: LENS[rng.below(6) as usize],
            launch_ns: t0 + rng.below(2_000_000),
        })
        .collect()
}

/// A job the line can carry on time: tie groups of 1..4 frames (sometimes twice on one queue) every
/// 8..40 us over `queues`.
fn paced_job(rng: &mut Rng, groups: u64, queues: &[u16], t0: u64) -> Vec<JobFrame> {
    let mut out = Vec::new();
    let mut t = t0;
    for _ in 0..groups {
        for _ in 0..rng.range(1, 4) {
            out.push(JobFrame {
                index: out.len() as u64,
                queue: queues[rng.below(queues.len() as u64) as usize],
                len: LENS[rng.below(6) as usize],
                launch_ns: t,
            });
        }
        t += rng.range(8_000, 40_000);
    }
    out
}

/// Run one job on the card and check it against the model. `strict`: the line can carry the job and
/// everything is posted ahead, so order and on-time hold for every frame.
fn push_and_check(
    card: &mut Card,
    tap: &WireTap,
    frames: &[JobFrame],
    opts: &PushOptions,
    what: &str,
) -> u64 {
    let out = push::run(card, frames, &Gen, opts, &mut |_, _| {})
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    let wire = tap.take();
    let results: &[FrameResult] = &out.results;
    assert_eq!(results.len(), frames.len(), "{what}: one result per frame");
    for r in results {
        assert!(
            matches!(r.status, Status::Sent | Status::SentLate),
            "{what}: frame {} {:?}",
            r.index,
            r.status
        );
        assert!(
            r.depart_ns >= r.launch_ns,
            "{what}: frame {} stamped early",
            r.index
        );
    }
    assert_eq!(wire.len(), frames.len(), "{what}: frames on the wire");
    // The PHC was latched between sa and sb (simulated ns); the job ran at the nominal rate with no step.
    let c = &out.clock;
    assert!(c.rate_nominal && c.phc_steps == 0, "{what}: {c:?}");
    let (sa, sb) = (
        c.sim_before_ns.unwrap() as i64,
        c.sim_after_ns.unwrap() as i64,
    );
    let launch_sim = |launch: u64| sa + (launch as i64 - c.sample_phc_ns as i64);

    if std::env::var_os("KEPT_CARD_DUMP").is_some() {
        for w in wire.iter().take(40) {
            let i = u64::from_be_bytes(w.bytes[14..22].try_into().unwrap()) as usize;
            let f = &frames[i];
            let r = &results[i];
            eprintln!(
                "  frame {i} q{} len {} launch {} due_sim {} start_sim {} {:?} depart {}",
                f.queue,
                f.len,
                f.launch_ns,
                launch_sim(f.launch_ns),
                w.start_ps / 1000,
                r.status,
                r.depart_ns
            );
        }
    }
    // The card's stamps: the frame's start on the line, a fixed offset from simulated time (the PHC
    // runs at the nominal rate), which the PHC sample places between sample - sb and sample - sa.
    let mut stamp_offset: Option<i64> = None;
    let mut seen = vec![false; frames.len()];
    let mut prev: Option<(usize, i64)> = None; // (frame, wire free at, ns)
                                               // frames that started back to back after a gap the deficit idle count made other than 12 octets
    let mut dic_moved = 0u64;
    let mut prev_w: Option<(u64, u64, u64)> = None; // (start, bytes, end), ps
                                                    // tie bookkeeping: launch -> (per queue: frames of it seen so far, highest round seen)
    let mut tie_round: HashMap<(u64, u16), u64> = HashMap::new();
    let mut tie_max_round: HashMap<u64, u64> = HashMap::new();
    let mut expect = Vec::new();
    for (k, w) in wire.iter().enumerate() {
        let i = u64::from_be_bytes(w.bytes[14..22].try_into().unwrap()) as usize;
        assert!(
            i < frames.len() && !seen[i],
            "{what}: wire frame {k} is frame {i} again or unknown"
        );
        seen[i] = true;
        let f = &frames[i];
        trace::build_frame(f.index, f.launch_ns, f.len as usize, &mut expect);
        assert_eq!(w.bytes, expect, "{what}: bytes of frame {i}");
        assert!(!w.errored, "{what}: frame {i} errored");
        let start = (w.start_ps / 1000) as i64;
        let due = launch_sim(f.launch_ns);
        let off = results[i].depart_ns as i64 - start;
        let o = *stamp_offset.get_or_insert(off);
        assert_eq!(
            off, o,
            "{what}: frame {i}'s stamp is not its start on the line"
        );
        // never early on the wire
        assert!(
            start >= due,
            "{what}: frame {i} starts {} ns early",
            due - start
        );
        let free = prev.map(|(_, free)| free).unwrap_or(i64::MIN);
        if let Some((p, _)) = prev {
            let pf = &frames[p];
            assert!(
                pf.launch_ns <= f.launch_ns,
                "{what}: frame {i} (launch {}) left after frame {p} (launch {}, later)",
                f.launch_ns,
                pf.launch_ns
            );
            if pf.launch_ns == f.launch_ns && pf.queue == f.queue {
                assert!(
                    p < i,
                    "{what}: ties of queue {} out of posting order ({p}, {i})",
                    f.queue
                );
            }
        }
        // rounds of a tie: this frame is its queue's r-th at this time; no later round may have gone
        let r = tie_round.entry((f.launch_ns, f.queue)).or_insert(0);
        let round = *r;
        *r += 1;
        let m = tie_max_round.entry(f.launch_ns).or_insert(0);
        assert!(
            round + 1 >= *m,
            "{what}: frame {i} (round {round} of its tie) after a frame of round {}",
            *m - 1
        );
        *m = (*m).max(round + 1);
        // on time: at its launch on an idle line, when the line is free otherwise (one cycle, plus the
        // PHC sample's uncertainty)
        let bound = due.max(free) + CYCLE_NS + (sb - sa);
        assert!(
            start <= bound,
            "{what}: frame {i} (queue {}) starts {} ns after launch; the line was free {} ns after it",
            f.queue,
            start - due,
            free.saturating_sub(due).max(0)
        );
        prev = Some((i, (w.end_ps / 1000) as i64));
        if let Some((p_start, p_len, p_end)) = prev_w {
            if w.start_ps == p_end && w.start_ps != p_start + LineRate::G10.frame_ps(p_len) {
                dic_moved += 1;
            }
        }
        prev_w = Some((w.start_ps, w.bytes.len() as u64, w.end_ps));
    }
    if let Some(o) = stamp_offset {
        let sample = c.sample_phc_ns as i64;
        assert!(
            (sample - sb..=sample - sa).contains(&o),
            "{what}: stamps are {o} ns off simulated time; the PHC sample says {}..={}",
            sample - sb,
            sample - sa
        );
    }
    dic_moved
}

/// Post `n` far-future frames on queue `q` with a ring of 2^`log2`, then disable the queue: every one
/// must come back FLUSHED, once.
fn flush_episode(card: &mut Card, rng: &mut Rng, q: u16, log2: u32, n: u32, what: &str) {
    let (caps, b) = card.parts();
    let caps = caps.clone();
    let mut cpl = CplRing::create(b, &caps, 10).unwrap();
    let cfg = QueueConfig {
        ring_log2: log2,
        buffers: 0,
        buf_size: 128,
        batch: rng.range(1, 8) as u32,
        ..QueueConfig::default()
    };
    let mut tq = TxQueue::create(b, &caps, q, &cfg).unwrap();
    let now = push::phc_now(b);
    let frame = vec![0x5au8; 60];
    let mut posted = 0;
    while posted < n {
        let launch = now + rng.range(1_000_000, 5_000_000_000);
        match tq.post(b, &frame, launch, DescFlags::empty()).unwrap() {
            Ok(_) => posted += 1,
            Err(_) => break,
        }
    }
    tq.doorbell(b);
    b.wait_ns(rng.range(2_000, 60_000)).unwrap();
    tq.disable(b, &caps);
    let mut got: Vec<Completion> = Vec::new();
    for _ in 0..2000 {
        cpl.poll(b, &mut got, 1024);
        if got.len() as u32 >= posted {
            break;
        }
        b.wait_ns(5_000).unwrap();
    }
    assert_eq!(
        got.len() as u32,
        posted,
        "{what}: completions of the flushed queue"
    );
    for c in &got {
        assert_eq!(c.status, Status::Flushed as u8, "{what}: {c:?}");
        tq.complete(c).unwrap();
    }
    // The queue's flush ends once its last completion is out.
    let mut busy = true;
    for _ in 0..100 {
        busy = b.read32(caps.q_reg(q, reg::Q_STATUS)) & 2 != 0;
        if !busy {
            break;
        }
        b.wait_ns(1_000).unwrap();
    }
    assert!(
        !busy,
        "{what}: queue {q} still flushing after its completions"
    );
    b.write32(reg::CPL_CTRL, 0);
    tq.destroy(b).unwrap();
}

/// A fresh simulated card after a first job that leaves thousands of nodes allocated behind it (the
/// issue's trace A), pushed as the CLI pushed it (default options, its default lead).
fn used_card(rng: &mut Rng) -> (Card, WireTap) {
    let mut sim = SimBackend::new(SimConfig::default()).expect("sim backend");
    let tap = sim.tap();
    let mut card = Card::from_backend(Box::new(sim), "sim".into()).expect("card identifies itself");
    let t0 = push::phc_now(card.backend()) + 100_000;
    let frames = burst_job(rng, 3000, t0);
    push::run(
        &mut card,
        &frames,
        &Gen,
        &PushOptions::default(),
        &mut |_, _| {},
    )
    .expect("first job");
    tap.take();
    (card, tap)
}

fn run_seed(seed: u64) {
    let mut rng = Rng(seed);
    let (mut card, tap) = used_card(&mut rng);
    let mut dic_moved = 0u64;

    for round in 0..8 {
        let what = format!("seed {seed} round {round}");
        match rng.below(4) {
            0 => {
                let q = rng.below(16) as u16;
                let log2 = rng.range(3, 9) as u32;
                let n = rng.range(1, 1 << log2) as u32;
                eprintln!("{what}: flush of queue {q} (ring 2^{log2}, {n} frames)");
                flush_episode(&mut card, &mut rng, q, log2, n, &what);
            }
            1 => {
                let b = card.backend();
                let now = push::phc_now(b);
                // forward up to 2 s, or backward within the ~0.5 ms the calendar's rewind covers
                // (docs/CALENDAR.md, PHC steps); larger backward steps: see
                // `a_large_backward_step_keeps_every_frame_but_not_order`
                let to = if rng.below(2) == 0 {
                    now + rng.range(1_000, 2_000_000_000)
                } else {
                    now.saturating_sub(rng.range(1_000, 400_000))
                };
                eprintln!("{what}: PHC step {now} -> {to}");
                phc::set(b, to);
            }
            _ => {}
        }
        // eight queues as the trace B, or a spread of queues over the card
        let queues: Vec<u16> = if rng.below(2) == 0 {
            (0..8).collect()
        } else {
            (0..rng.range(2, 12))
                .map(|_| rng.below(4096) as u16)
                .collect()
        };
        let opts = PushOptions {
            ring_log2: rng.range(3, 9) as u32,
            batch: rng.range(1, 16) as u32,
            ..PushOptions::default()
        };
        // the lead the CLI picks for such a job (64 us in the run)
        let t0 = push::phc_now(card.backend()) + 64_000;
        let groups = rng.range(30, 120);
        let frames = paced_job(&mut rng, groups, &queues, t0);
        eprintln!(
            "{what}: push of {} frames on queues {queues:?}, ring 2^{}, batch {}",
            frames.len(),
            opts.ring_log2,
            opts.batch
        );
        dic_moved += push_and_check(&mut card, &tap, &frames, &opts, &what);
    }
    // the stamps above include starts the deficit idle count moved (IEEE 802.3 46.3.1.4)
    assert!(
        dic_moved > 0,
        "seed {seed}: no start moved by the deficit idle count"
    );
    eprintln!("seed {seed}: {dic_moved} starts moved by the deficit idle count");
}

/// docs/CALENDAR.md, PHC steps: after a backward step larger than the ~0.5 ms the rewind covers, entries
/// for times between the new PHC and the old scan can only wait in the 32-cell release buffer, so a
/// job of more than 32 frames there is neither in launch order nor on time (a known limitation, issue
/// 34's closing note). What must still hold: every frame on the wire exactly once, whole, never early.
#[test]
fn a_large_backward_step_keeps_every_frame_but_not_order() {
    if !core_ready() {
        return;
    }
    let mut rng = Rng(2);
    let (mut card, tap) = used_card(&mut rng);
    let now = push::phc_now(card.backend());
    phc::set(card.backend(), now.saturating_sub(3_000_000));
    let t0 = push::phc_now(card.backend()) + 64_000;
    let queues = [211, 1391, 2395, 2868, 3607];
    let frames = paced_job(&mut rng, 100, &queues, t0);
    let out = push::run(
        &mut card,
        &frames,
        &Gen,
        &PushOptions::default(),
        &mut |_, _| {},
    )
    .expect("push");
    let wire = tap.take();
    assert_eq!(wire.len(), frames.len());
    let mut seen = vec![false; frames.len()];
    let mut expect = Vec::new();
    let (sa, c) = (out.clock.sim_before_ns.unwrap() as i64, &out.clock);
    let mut out_of_order = 0;
    let mut last = 0;
    for w in &wire {
        let i = u64::from_be_bytes(w.bytes[14..22].try_into().unwrap()) as usize;
        assert!(!seen[i], "frame {i} twice");
        seen[i] = true;
        let f = &frames[i];
        trace::build_frame(f.index, f.launch_ns, f.len as usize, &mut expect);
        assert_eq!(w.bytes, expect);
        let due = sa + (f.launch_ns as i64 - c.sample_phc_ns as i64);
        assert!((w.start_ps / 1000) as i64 >= due, "frame {i} early");
        assert!(
            out.results[i].depart_ns >= f.launch_ns,
            "frame {i} stamped early"
        );
        if f.launch_ns < last {
            out_of_order += 1;
        }
        last = last.max(f.launch_ns);
    }
    // The limitation is real (this is the case that showed it); when the calendar's rewind covers it,
    // this count drops to 0: then fold large steps into the test above.
    eprintln!(
        "after a backward step to max(0, PHC - 3 ms): {out_of_order} of {} frames left after a later-launched one",
        frames.len()
    );
}

#[test]
fn a_kept_card_keeps_order_and_time_across_jobs_flushes_and_steps() {
    if !core_ready() {
        return;
    }
    // KEPT_CARD_SEED=N reruns one seed (KEPT_CARD_DUMP=1 prints each job's first frames as they left)
    let seeds: Vec<u64> = match std::env::var("KEPT_CARD_SEED") {
        Ok(s) => vec![s.parse().expect("KEPT_CARD_SEED: a number")],
        Err(_) => vec![1, 2, 3],
    };
    for seed in seeds {
        run_seed(seed);
    }
}
