//! Driver cost per posted descriptor, without the simulator: the `mem` backend (an in-memory register
//! file and heap DMA buffers) stands in for the card, so this measures only the driver's own work:
//! copying the frame into its buffer, writing the descriptor, doorbell batching (one register write per
//! 32 descriptors) and, in the second benchmark, taking the completion back and recycling the buffer.
//! The card's side (fetching descriptors, writing completions) runs between timed batches, untimed.
//!
//! Run: `cargo bench -p tsnic --bench post`

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use tsnic::contract::Completion;
use tsnic::device::mem::MemBackend;
use tsnic::device::Caps;
use tsnic::regs::DescFlags;
use tsnic::ring::fake_card::FakeCard;
use tsnic::ring::{CplRing, QueueConfig, Rings, TxQueue};

const BATCH: u64 = 512;

fn setup() -> (MemBackend, Caps, Rings, FakeCard) {
    let mut m = MemBackend::new_identity();
    let caps = Caps::read(&mut m).expect("identity");
    let cfg = QueueConfig {
        ring_log2: 10,
        buf_size: 0, // the default: the card's max frame (9000) rounded up to 64
        batch: 32,
        ..Default::default()
    };
    let q = TxQueue::create(&mut m, &caps, 0, &cfg).expect("queue");
    let cpl = CplRing::create(&mut m, &caps, 11).expect("cpl");
    let card = FakeCard::new(caps.num_queues as usize);
    (
        m,
        caps,
        Rings {
            queues: vec![q],
            cpl,
        },
        card,
    )
}

/// Play the card: fetch everything announced and complete it SENT.
fn card_side(m: &mut MemBackend, caps: &Caps, card: &mut FakeCard) {
    for (i, d) in card.fetch(m, caps, 0, usize::MAX) {
        assert!(card.complete(m, FakeCard::sent(0, i, &d, d.launch_ns)));
    }
}

fn bench(c: &mut Criterion) {
    let frame = [0x5au8; 60];
    let mut g = c.benchmark_group("driver");
    g.throughput(Throughput::Elements(1));

    g.bench_function("post_60B", |b| {
        let (mut m, caps, mut rings, mut card) = setup();
        let mut out: Vec<Completion> = Vec::with_capacity(2048);
        let mut t = 0u64;
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            let mut done = 0;
            while done < iters {
                let n = (iters - done).min(BATCH);
                let q = &mut rings.queues[0];
                let start = Instant::now();
                for _ in 0..n {
                    t += 100;
                    let r = q
                        .post(&mut m, black_box(&frame), t, DescFlags::empty())
                        .expect("post");
                    black_box(r.expect("room"));
                }
                q.doorbell(&mut m);
                total += start.elapsed();
                done += n;
                card_side(&mut m, &caps, &mut card);
                out.clear();
                rings.poll(&mut m, &mut out, usize::MAX).expect("poll");
            }
            total
        })
    });

    g.bench_function("post_and_complete_60B", |b| {
        let (mut m, caps, mut rings, mut card) = setup();
        let mut out: Vec<Completion> = Vec::with_capacity(2048);
        let mut t = 0u64;
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            let mut done = 0;
            while done < iters {
                let n = (iters - done).min(BATCH);
                let start = Instant::now();
                {
                    let q = &mut rings.queues[0];
                    for _ in 0..n {
                        t += 100;
                        let r = q
                            .post(&mut m, black_box(&frame), t, DescFlags::empty())
                            .expect("post");
                        black_box(r.expect("room"));
                    }
                    q.doorbell(&mut m);
                }
                total += start.elapsed();
                card_side(&mut m, &caps, &mut card);
                let start = Instant::now();
                out.clear();
                let got = rings.poll(&mut m, &mut out, usize::MAX).expect("poll");
                total += start.elapsed();
                assert_eq!(got as u64, n);
                done += n;
            }
            total
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
