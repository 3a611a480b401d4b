//! One queue must not hold up another, nor its own disable, by filling its calendar quota with
//! far-future frames.
//!
//! What they found (small card, 2026-12-07, before the fix): queue 0 posts 2,000 frames due 50 ms
//! ahead (inside the horizon); the descriptor fetcher fetched past the queue's quota and its insert
//! waited for calendar room, and inserts leave in FIFO order across queues (docs/DATAPATH.md,
//! "tsnic_desc_fetch": head-of-line). So
//! - a frame of queue 1 due 1 ms later left 49 ms late (SENT_LATE), when queue 0's first frame
//!   departed and freed a node;
//! - disabling queue 0 flushed it only then too (its flush waited for the stalled insert).
//!
//! On the shipped card the horizon is 10 s, so either wait could last seconds. The fix: the fetcher's
//! quota rule (fetched and not completed + burst <= quota), so queue 0 stops at its quota and its
//! inserts never wait at the calendar.

use tsnic::contract::{reg, Completion, Status};
use tsnic::device::Card;
use tsnic::push;
use tsnic::regs::DescFlags;
use tsnic::ring::{CplRing, QueueConfig, TxQueue};

const FAR_NS: u64 = 50_000_000;

/// The small card with queue 0 holding 2,000 frames due `FAR_NS` ahead, 1 us apart, and its
/// completion ring; returns what was posted.
fn card_with_a_full_queue() -> (Card, CplRing, TxQueue, u32) {
    let mut card = Card::open("sim:small").expect("the small simulated card");
    let (caps, b) = card.parts();
    let caps = caps.clone();
    b.write32(reg::CTRL_CONTROL, reg::CTRL_CONTROL_ENABLE);
    let cpl = CplRing::create(b, &caps, 12).unwrap();
    let cfg = QueueConfig {
        ring_log2: 11,
        buffers: 0,
        buf_size: 128,
        batch: 8,
        ..QueueConfig::default()
    };
    let mut tq = TxQueue::create(b, &caps, 0, &cfg).unwrap();
    let now = push::phc_now(b);
    let frame = [0x5au8; 60];
    let mut posted = 0u32;
    while posted < 2000 {
        let launch = now + FAR_NS + u64::from(posted) * 1000;
        match tq.post(b, &frame, launch, DescFlags::empty()).unwrap() {
            Ok(_) => posted += 1,
            Err(_) => break,
        }
    }
    tq.doorbell(b);
    b.wait_ns(200_000).unwrap();
    (card, cpl, tq, posted)
}

#[test]

fn a_full_queue_does_not_delay_another() {
    std::env::set_var("TSNIC_SIM_STATE", "none");
    let (mut card, mut cpl, _tq, _) = card_with_a_full_queue();
    let (caps, b) = card.parts();
    let caps = caps.clone();
    let cfg = QueueConfig {
        ring_log2: 4,
        buffers: 0,
        buf_size: 128,
        ..QueueConfig::default()
    };
    let mut tq1 = TxQueue::create(b, &caps, 1, &cfg).unwrap();
    let launch = push::phc_now(b) + 1_000_000;
    tq1.post(b, &[0xa5u8; 60], launch, DescFlags::empty())
        .unwrap()
        .unwrap();
    tq1.doorbell(b);
    let mut got: Vec<Completion> = Vec::new();
    // until 2 ms after its launch time (bench clock: the card's PHC read by the host)
    while push::phc_now(b) < launch + 2_000_000 && !got.iter().any(|c| c.queue == 1) {
        cpl.poll(b, &mut got, 4096);
        b.wait_ns(5_000).unwrap();
    }
    let c = got
        .iter()
        .find(|c| c.queue == 1)
        .expect("queue 1's frame completed within 2 ms of its launch time");
    assert_eq!(c.status, Status::Sent as u8, "{c:?}");
    assert!(
        c.depart_ns.abs_diff(launch) < 100,
        "{c:?} for launch {launch}"
    );
}

#[test]

fn disabling_a_full_queue_flushes_it_at_once() {
    std::env::set_var("TSNIC_SIM_STATE", "none");
    let (mut card, mut cpl, mut tq, posted) = card_with_a_full_queue();
    let (caps, b) = card.parts();
    let caps = caps.clone();
    let t0 = push::phc_now(b);
    tq.disable(b, &caps);
    let fetched = b.read32(caps.q_reg(0, reg::Q_CONS));
    assert!(fetched > 0 && fetched <= posted);
    let mut got: Vec<Completion> = Vec::new();
    // 1 ms of simulated time is thousands of times what a flush of this many nodes needs
    while push::phc_now(b) < t0 + 1_000_000 && (got.len() as u32) < fetched {
        cpl.poll(b, &mut got, 4096);
        b.wait_ns(5_000).unwrap();
    }
    let flushed = got
        .iter()
        .filter(|c| c.status == Status::Flushed as u8)
        .count();
    assert_eq!(
        flushed,
        got.len(),
        "every completion after the disable is FLUSHED (none due for {FAR_NS} ns)"
    );
    // every descriptor the card fetched before the disable (CONS, read after it) comes back FLUSHED
    let cons = b.read32(caps.q_reg(0, reg::Q_CONS));
    assert_eq!(
        got.len() as u32,
        cons,
        "completions within 1 ms of the disable"
    );
}
