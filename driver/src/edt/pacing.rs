//! Earliest Departure Time stamping and the rate-derived limits around it.
//!
//! Mirrors, in tcp_output.c / tcp_input.c:
//! - `__tcp_transmit_skb` + `tcp_update_skb_after_send`: [`EdtClock`];
//! - `tcp_update_pacing_rate`: [`tcp_pacing_rate`];
//! - `tcp_tso_autosize`: [`tso_autosize_segs`];
//! - `tcp_small_queue_check`: [`tsq_limit_bytes`].
//!
//! Rates are in bytes per second, as Linux's `sk_pacing_rate`.

/// Linux sysctl_tcp_pacing_ss_ratio default: 200 %.
pub const PACING_SS_RATIO: u64 = 200;
/// Linux sysctl_tcp_pacing_ca_ratio default: 120 %.
pub const PACING_CA_RATIO: u64 = 120;
/// Pacing starts with the segment that brings the count to this (Linux checks
/// `tp->data_segs_out >= 10` in `tcp_update_skb_after_send`, after `__tcp_transmit_skb`
/// counted the segment): the first 9 segments leave unpaced, the 10th advances the clock.
pub const UNPACED_SEGS: u64 = 10;
/// Linux sk_pacing_shift default: 10, i.e. about 1 ms of data.
pub const PACING_SHIFT: u32 = 10;
/// Linux sysctl_tcp_min_tso_segs default.
pub const MIN_TSO_SEGS: u64 = 2;
/// GSO maximum size (64 KB) bounds one burst, as for a TSO packet.
pub const GSO_MAX_SIZE: u64 = 65_536;
/// Linux sysctl_tcp_limit_output_bytes: 4 MB on the reference kernel (6.18 here reads 4194304;
/// 1 MB in older kernels): TSQ never allows more than this.
pub const LIMIT_OUTPUT_BYTES: u64 = 4 * 1024 * 1024;
/// Linux sysctl_tcp_tso_rtt_log default (9, since 5.18): below 2^9 us of min RTT a TSO burst
/// grows toward the full 64 KB GSO size (`tcp_tso_autosize`).
pub const TSO_RTT_LOG: u32 = 9;

/// Pacing rate from cwnd and srtt (Linux `tcp_update_pacing_rate`):
/// `rate = mss * cwnd / srtt`, times 200 % while `cwnd < ssthresh / 2` (early slow start, so
/// the flow can still double per RTT) and 120 % after, capped by `max_rate`.
/// `srtt_us8` is srtt << 3 as Linux keeps it; 0 means no sample yet (no division).
pub fn tcp_pacing_rate(
    mss: u64,
    cwnd: u64,
    packets_out: u64,
    ssthresh: u64,
    srtt_us8: u64,
    max_rate: u64,
) -> u64 {
    // mss * (USEC_PER_SEC/100 << 3): the /100 turns the ratio percent into a factor, the << 3
    // cancels srtt's << 3 scaling.
    let mut rate: u128 = u128::from(mss) * ((1_000_000u128 / 100) << 3);
    rate *= if cwnd < ssthresh / 2 {
        u128::from(PACING_SS_RATIO)
    } else {
        u128::from(PACING_CA_RATIO)
    };
    rate *= u128::from(cwnd.max(packets_out));
    if srtt_us8 != 0 {
        rate /= u128::from(srtt_us8);
    }
    rate.min(u128::from(max_rate)) as u64
}

/// Segments per burst (Linux `tcp_tso_autosize`): about 1 ms of data at the pacing rate
/// (`pacing_rate >> 10` bytes) plus `GSO_MAX_SIZE >> (min_rtt_us >> tcp_tso_rtt_log)` (the
/// whole 64 KB below 512 us of min RTT, half of it below 1024 us, ...; none before any RTT
/// sample, `min_rtt_us` 0, as Linux's `~0U`), at least `MIN_TSO_SEGS`, at most a 64 KB GSO
/// packet.
pub fn tso_autosize_segs(pacing_rate: u64, mss: u64, min_rtt_us: u64) -> u64 {
    tso_autosize_segs_min(
        pacing_rate,
        mss,
        MIN_TSO_SEGS,
        min_rtt_us,
        Some(TSO_RTT_LOG),
    )
}

/// [`tso_autosize_segs`] with another `tcp_min_tso_segs` and `tcp_tso_rtt_log` (None: no RTT
/// term, as kernels before 5.18).
pub fn tso_autosize_segs_min(
    pacing_rate: u64,
    mss: u64,
    min_tso_segs: u64,
    min_rtt_us: u64,
    tso_rtt_log: Option<u32>,
) -> u64 {
    let mut bytes = pacing_rate >> PACING_SHIFT;
    // `r < BITS_PER_TYPE(sk_gso_max_size)`: the term counts while the shift is below 32
    let r = match tso_rtt_log {
        Some(log) if min_rtt_us != 0 => min_rtt_us >> log.min(63),
        _ => u64::MAX,
    };
    if r < 32 {
        bytes += GSO_MAX_SIZE >> r;
    }
    let bytes = bytes.min(GSO_MAX_SIZE);
    let segs = (bytes / mss.max(1)).max(min_tso_segs);
    segs.min((GSO_MAX_SIZE / mss.max(1)).max(min_tso_segs))
}

/// TCP Small Queues limit (Linux `tcp_small_queue_check`): bytes one flow may have posted to
/// the card and not yet departed: about 1 ms at the pacing rate, at least two bursts, at most
/// `LIMIT_OUTPUT_BYTES`.
pub fn tsq_limit_bytes(pacing_rate: u64, burst_bytes: u64) -> u64 {
    (pacing_rate >> PACING_SHIFT)
        .max(2 * burst_bytes)
        .min(LIMIT_OUTPUT_BYTES)
}

/// Nanoseconds `len` bytes take at `rate` bytes/s (Linux: `len * NSEC_PER_SEC / rate`,
/// rounded down as div64_ul does).
pub fn len_ns(len: u64, rate: u64) -> u64 {
    if rate == 0 {
        return 0;
    }
    (u128::from(len) * 1_000_000_000 / u128::from(rate)) as u64
}

/// Per-connection departure clock (Linux `tp->tcp_wstamp_ns`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EdtClock {
    /// Earliest departure time of the next segment.
    pub wstamp_ns: u64,
    /// Data segments sent so far (Linux `data_segs_out`): the first 10 are not paced.
    pub data_segs_out: u64,
    /// Apply the jitter credit (on by default; off only to measure what it buys).
    pub jitter_credit: bool,
}

impl EdtClock {
    pub fn new(jitter_credit: bool) -> Self {
        EdtClock {
            wstamp_ns: 0,
            data_segs_out: 0,
            jitter_credit,
        }
    }

    /// Stamp a burst about to be sent at `now`: `launch = max(wstamp, now)`. Returns
    /// `(launch_ns, prior_wstamp)`; pass `prior_wstamp` to [`Self::after_send`].
    pub fn stamp(&mut self, now: u64) -> (u64, u64) {
        let prior = self.wstamp_ns;
        self.wstamp_ns = self.wstamp_ns.max(now);
        (self.wstamp_ns, prior)
    }

    /// Advance the clock after sending `len` bytes in `segs` data segments at `rate` bytes/s
    /// (Linux `tcp_update_skb_after_send`). The credit is how far `now` had run past the old
    /// stamp (time the sender lost to wake-up jitter); up to half the burst's air time is
    /// given back: `len_ns -= min(len_ns / 2, credit)`.
    pub fn after_send(&mut self, len: u64, segs: u64, rate: u64, prior_wstamp: u64) {
        // __tcp_transmit_skb counts the segments before tcp_update_skb_after_send looks.
        self.data_segs_out += segs;
        let paced = rate != 0 && rate != u64::MAX && self.data_segs_out >= UNPACED_SEGS;
        if !paced {
            return;
        }
        let mut l = len_ns(len, rate);
        if self.jitter_credit {
            let credit = self.wstamp_ns - prior_wstamp;
            l -= (l / 2).min(credit);
        }
        self.wstamp_ns += l;
    }
}

/// sch_fq's quantum: 2 x MTU (1514 with the Ethernet header).
pub const FQ_QUANTUM: u64 = 3028;
/// sch_fq's initial per-flow credit: 10 x MTU (`initial_quantum`).
pub const FQ_INITIAL_QUANTUM: u64 = 15_140;
/// sch_fq `low_rate_threshold` (550 kbit/s): below it fq paces by real length.
pub const FQ_LOW_RATE: u64 = 550_000 / 8;
/// sch_fq `flow_refill_delay` (40 ms): a flow idle that long gets at least a quantum back.
pub const FQ_FLOW_REFILL_DELAY_NS: u64 = 40_000_000;
/// sch_fq clamps one packet's pacing delay to 1 s.
pub const FQ_MAX_DELAY_NS: u64 = 1_000_000_000;

/// One flow of the pre-EDT (before 4.20) sch_fq: the baseline the EDT model is compared
/// with. The flow spends a byte credit (starting at `initial_quantum`); only a packet that
/// leaves the credit at or below zero sets a pacing delay, of max(len, quantum) / rate
/// (the real length below `low_rate_threshold`), less the scheduling drift (`fq_dequeue`).
/// One TCP flow per qdisc here, so round-robin against other flows never delays it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FqFlow {
    credit: i64,
    /// `f->time_next_packet` (0 = never set).
    time_next_packet: u64,
    /// Dequeue time of the flow's last packet: the queue is empty after it.
    last_dequeue: Option<u64>,
}

impl Default for FqFlow {
    fn default() -> Self {
        FqFlow {
            credit: FQ_INITIAL_QUANTUM as i64,
            time_next_packet: 0,
            last_dequeue: None,
        }
    }
}

impl FqFlow {
    /// A packet of `plen` bytes (`qdisc_pkt_len`) enqueued at `now` with the socket pacing
    /// at `rate` bytes/s: returns when fq dequeues it (FIFO behind the flow's earlier ones).
    pub fn enqueue(&mut self, now: u64, plen: u64, rate: u64) -> u64 {
        let mut t = now;
        match self.last_dequeue {
            // fq_enqueue of a detached flow: idle past flow_refill_delay -> credit >= quantum.
            Some(last) if last <= now && now - last > FQ_FLOW_REFILL_DELAY_NS => {
                self.credit = self.credit.max(FQ_QUANTUM as i64);
            }
            Some(last) if last > now => t = last,
            Some(_) => {}
            None => {}
        }
        // fq_dequeue: a flow without credit gets a quantum and waits its round-robin turn
        // (immediate, as it is alone); then it waits for time_next_packet.
        while self.credit <= 0 {
            self.credit += FQ_QUANTUM as i64;
        }
        t = t.max(self.time_next_packet);
        self.last_dequeue = Some(t);
        self.credit -= plen as i64;
        if self.credit > 0 || rate == 0 || rate == u64::MAX {
            return t;
        }
        let p = if rate <= FQ_LOW_RATE {
            self.credit = 0;
            plen
        } else {
            plen.max(FQ_QUANTUM)
        };
        let mut delay = len_ns(p, rate).min(FQ_MAX_DELAY_NS);
        if self.time_next_packet != 0 {
            // Account for timer drift: a late dequeue shortens the next delay, by at most half.
            delay -= (delay / 2).min(t - self.time_next_packet);
        }
        self.time_next_packet = t + delay;
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pacing_rate_table() {
        // (mss, cwnd, packets_out, ssthresh, srtt_us, max, expected bytes/s)
        // By hand: rate = ratio% * mss * max(cwnd,packets_out) / srtt.
        let cases = [
            // slow start (10 < inf/2): 2 * 1448 * 10 / 100us = 289_600_000 B/s
            (1448, 10, 0, u64::MAX, 100, u64::MAX, 289_600_000),
            // congestion avoidance (cwnd 20 >= 30/2): 1.2 * 1448 * 20 / 100us = 347_520_000
            (1448, 20, 0, 30, 100, u64::MAX, 347_520_000),
            // boundary: cwnd 14 < 30/2=15 -> still 200 %: 2*1448*14/100us = 405_440_000
            (1448, 14, 0, 30, 100, u64::MAX, 405_440_000),
            // packets_out above cwnd counts: 1.2*1448*40/1000us = 69_504_000
            (1448, 20, 40, 20, 1000, u64::MAX, 69_504_000),
            // capped at max rate 3 MB/s (24 Mbit/s)
            (1448, 20, 0, 20, 50, 3_000_000, 3_000_000),
        ];
        for (mss, cwnd, po, ssth, srtt, max, want) in cases {
            assert_eq!(tcp_pacing_rate(mss, cwnd, po, ssth, srtt << 3, max), want);
        }
    }

    #[test]
    fn tso_and_tsq_table() {
        // 10 Gbit/s = 1.25e9 B/s: >>10 = 1_220_703 B, capped at 64 KB -> 65536/1448 = 45 segs.
        assert_eq!(tso_autosize_segs(1_250_000_000, 1448, 0), 45);
        // 24 Mbit/s = 3e6 B/s: >>10 = 2929 B -> 2 segs (and min 2).
        assert_eq!(tso_autosize_segs(3_000_000, 1448, 0), 2);
        // 100 Mbit/s = 12.5e6 B/s: >>10 = 12207 -> 8 segs (no min RTT yet: no RTT term).
        assert_eq!(tso_autosize_segs(12_500_000, 1448, 0), 8);
        // tcp_tso_rtt_log 9 (tcp_tso_autosize): at 50 us, 50 >> 9 = 0, + 65536 >> 0 -> the
        // 64 KB cap, 45 segs (the issue-36 figure); at 600 us, + 65536 >> 1 = 32768:
        // 44975 / 1448 = 31; at 1000 us, 1 -> the same; at 1024 us, + 16384 -> 19; at 10 ms
        // (r 19) + 65536 >> 19 = 0 -> 8; at 24 Mbit/s and 100 us: 2929 + 65536 = 45 segs.
        assert_eq!(tso_autosize_segs(12_500_000, 1448, 50), 45);
        assert_eq!(tso_autosize_segs(12_500_000, 1448, 511), 45);
        assert_eq!(tso_autosize_segs(12_500_000, 1448, 600), 31);
        assert_eq!(tso_autosize_segs(12_500_000, 1448, 1000), 31);
        assert_eq!(tso_autosize_segs(12_500_000, 1448, 1024), 19);
        assert_eq!(tso_autosize_segs(12_500_000, 1448, 10_000), 8);
        assert_eq!(tso_autosize_segs(3_000_000, 1448, 100), 45);
        // no term (tso_rtt_log None, before 5.18): the rate alone
        assert_eq!(tso_autosize_segs_min(12_500_000, 1448, 2, 50, None), 8);
        assert_eq!(tso_autosize_segs_min(12_500_000, 1448, 2, 50, Some(9)), 45);
        // tcp_tso_rtt_log 0: min_rtt >> 0, so only below 32 us (at 20 us: 65536 >> 20 = 0; at
        // 1 us: 12207 + 32768 = 44975 -> 31)
        assert_eq!(tso_autosize_segs_min(12_500_000, 1448, 2, 20, Some(0)), 8);
        assert_eq!(tso_autosize_segs_min(12_500_000, 1448, 2, 1, Some(0)), 31);
        // TSQ at 1 Gbit/s: 125e6>>10 = 122070 B > 2 * 8 segs.
        assert_eq!(tsq_limit_bytes(125_000_000, 8 * 1448), 122_070);
        // TSQ at 24 Mbit/s: 2929 < 2 bursts of 2896 -> 5792.
        assert_eq!(tsq_limit_bytes(3_000_000, 2896), 5792);
        // TSQ never above tcp_limit_output_bytes, 4 MB in 6.18: at 10 Gbit/s 1.19 MB stays.
        assert_eq!(tsq_limit_bytes(u64::MAX / 2, 65536), 4_194_304);
        assert_eq!(tsq_limit_bytes(1_250_000_000, 65536), 1_220_703);
    }

    #[test]
    fn jitter_credit_seed_example() {
        // Seed (edt-jitter-credit.txt): idle 300 us, air time 500 us -> next stamp now+250 us.
        // rate 1e9 B/s, 500_000 bytes = 500 us.
        let mut c = EdtClock::new(true);
        c.data_segs_out = UNPACED_SEGS;
        c.wstamp_ns = 1_000_000;
        let now = 1_300_000;
        let (launch, prior) = c.stamp(now);
        assert_eq!(launch, now);
        c.after_send(500_000, 1, 1_000_000_000, prior);
        assert_eq!(c.wstamp_ns, now + 250_000);
        // Without the credit: now + 500 us.
        let mut c = EdtClock::new(false);
        c.data_segs_out = UNPACED_SEGS;
        c.wstamp_ns = 1_000_000;
        let (_, prior) = c.stamp(now);
        c.after_send(500_000, 1, 1_000_000_000, prior);
        assert_eq!(c.wstamp_ns, now + 500_000);
        // Credit smaller than half: idle 100 us -> 500 - 100 = 400 us.
        let mut c = EdtClock::new(true);
        c.data_segs_out = UNPACED_SEGS;
        c.wstamp_ns = 1_200_000;
        let (_, prior) = c.stamp(now);
        c.after_send(500_000, 1, 1_000_000_000, prior);
        assert_eq!(c.wstamp_ns, now + 400_000);
    }

    #[test]
    fn fq_flow_credit_table() {
        // 10 Mbit/s = 1_250_000 B/s; quantum 3028 B takes 2_422_400 ns.
        let rate = 1_250_000;
        let mut f = FqFlow::default();
        // 100 packets of 100 B fit the initial 15140 B credit: no delay at all.
        for i in 0..100 {
            assert_eq!(f.enqueue(i * 1000, 100, rate), i * 1000);
        }
        // Credit is 15140 - 10000 = 5140: 51 more packets go; the 52nd leaves it at -60 and
        // sets the first delay, max(100, 3028) / rate = 2_422_400 ns (no drift: first time).
        for i in 100..151 {
            assert_eq!(f.enqueue(i * 1000, 100, rate), i * 1000);
        }
        assert_eq!(f.enqueue(151_000, 100, rate), 151_000);
        // The next one waits for it; the credit got a quantum: 2968 B = 29 more at once.
        let t = 151_000 + 2_422_400;
        assert_eq!(f.enqueue(152_000, 100, rate), t);
        // Idle past flow_refill_delay with a positive credit: unchanged, and no wait; the
        // drift is subtracted from the next delay (at most half).
        let later = t + 50_000_000;
        assert_eq!(f.enqueue(later, 100, rate), later);
        // Big packets: each leaves the credit <= 0 once the initial credit is spent.
        let mut f = FqFlow::default();
        assert_eq!(f.enqueue(0, 15_000, rate), 0); // credit 140
        assert_eq!(f.enqueue(0, 1514, rate), 0); // credit -1374: delay 3028/rate
        assert_eq!(f.enqueue(0, 1514, rate), 2_422_400);
        // Below low_rate_threshold the real length sets the delay and the credit resets to 0.
        let mut f = FqFlow::default();
        f.enqueue(0, 15_140, 50_000); // credit 0: 15140 / 50000 B/s = 302.8 ms
        assert_eq!(f.enqueue(0, 100, 50_000), 302_800_000);
    }

    #[test]
    fn first_nine_segments_unpaced_the_tenth_paced() {
        // data_segs_out is 10 when the 10th segment's tcp_update_skb_after_send runs.
        let mut c = EdtClock::new(true);
        for _ in 0..9 {
            let (l, p) = c.stamp(5);
            assert_eq!(l, 5);
            c.after_send(1448, 1, 1_000_000, p);
        }
        assert_eq!(c.wstamp_ns, 5);
        let (l, p) = c.stamp(5);
        assert_eq!(l, 5, "the 10th leaves at once...");
        c.after_send(1000, 1, 1_000_000, p); // 1 ms
        assert_eq!(c.wstamp_ns, 5 + 1_000_000, "...and spaces the 11th");
        // A first burst of 10 (TSO) already counts as paced.
        let mut c = EdtClock::new(true);
        let (_, p) = c.stamp(0);
        c.after_send(10_000, 10, 1_000_000, p);
        assert_eq!(c.wstamp_ns, 10_000_000);
    }
}
