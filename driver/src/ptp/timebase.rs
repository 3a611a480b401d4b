//! The sender's time base against a disciplined PHC (`tsnic send --ptp`, docs/PTP.md "The sender's
//! clock and a disciplined PHC").
//!
//! The EDT sender's clock is monotonic and never stepped (Linux's TCP and sch_fq stamp
//! `skb->tstamp` in CLOCK_MONOTONIC; they went back to it from CLOCK_TAI in 4.20 because TAI
//! jumps, commit fb420d5d "tcp/fq: move back to CLOCK_MONOTONIC"). The card launches by its PHC,
//! which a PTP slave steps and trims. [`PhcMap`] carries a sender time to the PHC at the moment a
//! frame is posted, with the trim in force (a trim flows into the launch times posted after it,
//! so a frame still leaves at its sender time), and a PHC stamp back to sender time through the
//! segment it was taken in (after a step the map has two segments that cover the same PHC
//! values: a hint, the frame's launch or arrival time, picks the right one).

/// One segment of the map: from sender time `sender_ns` the PHC reads `phc_ps` and runs at
/// `1 + ppb / 10^9` of sender time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Anchor {
    /// Sender time the segment starts at, ns.
    pub sender_ns: u64,
    /// PHC then, ps (each segment starts where the one before ends: kept in ps so that a
    /// slave's trim at every Sync does not add up whole-ns roundings, 3 ns in 60 ms at 128 Hz).
    pub phc_ps: i128,
    /// Frequency trim in force, ppb.
    pub ppb: i64,
}

/// Segments kept: stamps are mapped back within a few ms of their frame's post, and a slave
/// trims at most once per Sync (128 a second at logSyncInterval -7).
const KEEP: usize = 64;
/// How far a stamp may fall outside its segment and still be taken in it (the segment's start
/// is known to within the clock's turn), ns.
const SLACK_NS: i128 = 2_000;

/// Sender time to PHC and back, segment by segment.
#[derive(Debug, Clone)]
pub struct PhcMap {
    anchors: std::collections::VecDeque<Anchor>,
    steps: u64,
}

impl PhcMap {
    /// The PHC reads `phc_ns` at sender time `sender_ns` and runs with trim `ppb`.
    pub fn new(sender_ns: u64, phc_ns: u64, ppb: i64) -> Self {
        let mut anchors = std::collections::VecDeque::new();
        anchors.push_back(Anchor {
            sender_ns,
            phc_ps: i128::from(phc_ns) * 1000,
            ppb,
        });
        PhcMap { anchors, steps: 0 }
    }

    fn newest(&self) -> Anchor {
        *self.anchors.back().expect("a map has a segment")
    }

    /// The PHC at `sender_ns` on segment `a`, ps.
    fn phc_in(a: &Anchor, sender_ns: u64) -> i128 {
        let d = (i128::from(sender_ns) - i128::from(a.sender_ns)) * 1000;
        a.phc_ps + d + d * i128::from(a.ppb) / 1_000_000_000
    }

    fn sender_in(a: &Anchor, phc_ns: u64) -> i128 {
        let d = i128::from(phc_ns) * 1000 - a.phc_ps;
        let t_ps = d * 1_000_000_000 / (1_000_000_000 + i128::from(a.ppb));
        i128::from(a.sender_ns) + t_ps.div_euclid(1000) + i128::from(t_ps.rem_euclid(1000) >= 500)
    }

    /// The PHC at sender time `sender_ns` on the segment in force now (a launch time to post),
    /// whole ns rounded up (a frame launched on it never leaves before the sender's time).
    pub fn to_phc(&self, sender_ns: u64) -> u64 {
        let ps = Self::phc_in(&self.newest(), sender_ns);
        (ps.div_euclid(1000) + i128::from(ps.rem_euclid(1000) > 0)).clamp(0, i128::from(u64::MAX))
            as u64
    }

    /// The sender time of PHC stamp `phc_ns`, taken near sender time `hint_ns` (the frame's
    /// launch, or its arrival on the line): the segment whose time range holds the stamp, the one
    /// nearest the hint when a step made two of them hold it.
    pub fn to_sender(&self, phc_ns: u64, hint_ns: u64) -> u64 {
        let n = self.anchors.len();
        let mut best: Option<i128> = None;
        for (i, a) in self.anchors.iter().enumerate().rev() {
            let s = Self::sender_in(a, phc_ns);
            let starts_ok = s >= i128::from(a.sender_ns) - SLACK_NS;
            let ends_ok = i + 1 == n || s <= i128::from(self.anchors[i + 1].sender_ns) + SLACK_NS;
            if starts_ok && ends_ok {
                let better = best.is_none_or(|b| {
                    (s - i128::from(hint_ns)).abs() < (b - i128::from(hint_ns)).abs()
                });
                if better {
                    best = Some(s);
                }
            }
        }
        // a stamp before every segment kept: the oldest one's line
        let s = best.unwrap_or_else(|| Self::sender_in(&self.anchors[0], phc_ns));
        s.clamp(0, i128::from(u64::MAX)) as u64
    }

    /// From sender time `sender_ns` the PHC was stepped by `step_ns` and runs with trim `ppb`
    /// (the writes of one turn of the clock, made just before `sender_ns`).
    pub fn adjust(&mut self, sender_ns: u64, step_ns: i64, ppb: i64) {
        let at = sender_ns.max(self.newest().sender_ns);
        let phc_ps = Self::phc_in(&self.newest(), at) + i128::from(step_ns) * 1000;
        if step_ns != 0 {
            self.steps += 1;
        }
        self.anchors.push_back(Anchor {
            sender_ns: at,
            phc_ps,
            ppb,
        });
        while self.anchors.len() > KEEP {
            self.anchors.pop_front();
        }
    }

    /// The segment in force.
    pub fn current(&self) -> Anchor {
        self.newest()
    }

    /// Steps folded in so far.
    pub fn steps(&self) -> u64 {
        self.steps
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trims_flow_and_steps_remap() {
        let mut m = PhcMap::new(1_000, 5_000_000, 0);
        assert_eq!(m.to_phc(2_000), 5_001_000);
        assert_eq!(m.to_sender(5_001_000, 2_000), 2_000);
        // +100 ppm from sender time 1 ms: 1 ms later the PHC has gained 100 ns
        m.adjust(1_000_000, 0, 100_000);
        assert_eq!(m.to_phc(2_000_000), 5_000_000 + 999_000 + 1_000_100);
        assert_eq!(m.to_sender(m.to_phc(2_000_000), 2_000_000), 2_000_000);
        // a stamp taken before the trim maps through the old segment
        assert_eq!(m.to_sender(5_000_000 + 500_000, 501_000), 501_000);
        // a step back by 3 ms at 3 ms: PHC values of the last 3 ms come again
        let before = m.to_phc(2_500_000);
        m.adjust(3_000_000, -3_000_000, 100_000);
        assert_eq!(m.steps(), 1);
        // the same PHC reading now stands for two sender times 3 ms apart: the hint picks
        assert_eq!(m.to_sender(before, 2_500_010), 2_500_000, "before the step");
        let again = m.to_sender(before, 5_499_000);
        assert!((5_499_690..=5_499_710).contains(&again), "{again}");
        assert!(m.to_phc(again).abs_diff(before) <= 1);
        let after = m.to_phc(5_600_000);
        assert_eq!(m.to_sender(after, 5_600_010), 5_600_000, "after it");
        assert_eq!(
            PhcMap::new(5_000, 1_000, 0).to_phc(0),
            0,
            "clamped, no panic"
        );
        let _ = m.to_sender(u64::MAX, u64::MAX);
        let _ = m.to_sender(0, 0);
    }
}
