//! RTT estimation and RTO, kept the way Linux keeps them (tcp_input.c `tcp_rtt_estimator`,
//! `tcp_set_rto`; RFC 6298 in Linux's fixed point).
//!
//! Units are microseconds, as in Linux: `srtt_us` holds 8 x SRTT, `mdev_us` holds 4 x the
//! mean deviation; `rttvar_us` is the variance term used by the RTO, floored to the minimum
//! RTO, and `mdev_max_us` is the largest `mdev_us` seen in the current window of data.

/// Linux TCP_RTO_MIN: 200 ms.
pub const RTO_MIN_US: u64 = 200_000;
/// Linux TCP_RTO_MAX: 120 s.
pub const RTO_MAX_US: u64 = 120_000_000;
/// Linux TCP_TIMEOUT_INIT: 1 s, the RTO before any RTT sample.
pub const RTO_INIT_US: u64 = 1_000_000;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RttEstimator {
    /// Smoothed RTT << 3 (0 = no sample yet).
    pub srtt_us: u64,
    /// Mean deviation << 2.
    pub mdev_us: u64,
    /// Largest mdev_us in the current flight.
    pub mdev_max_us: u64,
    /// Variance used by the RTO (>= rto_min).
    pub rttvar_us: u64,
    /// The sequence (stream offset) whose ACK ends the current flight (Linux `rtt_seq`).
    pub rtt_seq: u64,
    pub rto_min_us: u64,
}

impl Default for RttEstimator {
    fn default() -> Self {
        Self::new(RTO_MIN_US)
    }
}

impl RttEstimator {
    pub fn new(rto_min_us: u64) -> Self {
        RttEstimator {
            srtt_us: 0,
            mdev_us: 0,
            mdev_max_us: 0,
            rttvar_us: 0,
            rtt_seq: 0,
            rto_min_us,
        }
    }

    /// The smoothed RTT in microseconds (srtt_us >> 3).
    pub fn srtt(&self) -> u64 {
        self.srtt_us >> 3
    }

    /// Feed one RTT sample `m` (us). `snd_una` and `snd_nxt` are stream offsets; when the ACK
    /// point passes `rtt_seq` a flight has ended and `rttvar` decays toward `mdev_max`.
    pub fn sample(&mut self, m: u64, snd_una: u64, snd_nxt: u64) {
        let m = m.max(1) as i64;
        if self.srtt_us == 0 {
            // First sample: SRTT = m, mdev = m/2 (so RTO starts at 3 x RTT), rttvar floored.
            self.srtt_us = (m as u64) << 3;
            self.mdev_us = (m as u64) << 1;
            self.rttvar_us = self.mdev_us.max(self.rto_min_us);
            self.mdev_max_us = self.rttvar_us;
            self.rtt_seq = snd_nxt;
            return;
        }
        // err = m - SRTT; SRTT += err/8 (the <<3 scaling makes this "srtt_us += err").
        let mut err = m - (self.srtt_us >> 3) as i64;
        self.srtt_us = (self.srtt_us as i64 + err).max(1) as u64;
        if err < 0 {
            // A sample below SRTT: weigh its deviation 8 times less (Linux's answer to RTTs
            // that shrink quickly inflating the RTO).
            err = -err - (self.mdev_us >> 2) as i64;
            if err > 0 {
                err >>= 3;
            }
        } else {
            err -= (self.mdev_us >> 2) as i64;
        }
        // mdev = 3/4 mdev + 1/4 |err|  (mdev_us is <<2)
        self.mdev_us = (self.mdev_us as i64 + err).max(0) as u64;
        if self.mdev_us > self.mdev_max_us {
            self.mdev_max_us = self.mdev_us;
            if self.mdev_max_us > self.rttvar_us {
                self.rttvar_us = self.mdev_max_us;
            }
        }
        if snd_una > self.rtt_seq {
            // End of a flight: let rttvar decay a quarter of the way toward this flight's max.
            if self.mdev_max_us < self.rttvar_us {
                self.rttvar_us -= (self.rttvar_us - self.mdev_max_us) >> 2;
            }
            self.rtt_seq = snd_nxt;
            self.mdev_max_us = self.rto_min_us;
        }
    }

    /// RTO without backoff: SRTT + rttvar (Linux `__tcp_set_rto`), at most TCP_RTO_MAX.
    pub fn rto_us(&self) -> u64 {
        if self.srtt_us == 0 {
            return RTO_INIT_US;
        }
        ((self.srtt_us >> 3) + self.rttvar_us).min(RTO_MAX_US)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_sample() {
        // m = 100 us: srtt_us = 800, mdev_us = 200, rttvar = max(200, 200000) = 200000,
        // RTO = 100 + 200000 us = 200.1 ms.
        let mut e = RttEstimator::default();
        e.sample(100, 0, 1000);
        assert_eq!((e.srtt_us, e.mdev_us, e.rttvar_us), (800, 200, 200_000));
        assert_eq!(e.rto_us(), 200_100);
    }

    #[test]
    fn table_of_updates() {
        // Start: srtt 100 us (srtt_us 800), mdev_us 200.
        // Sample 180: err = 180-100 = 80; srtt_us = 880 (110 us);
        //   err -= 200>>2 = 50 -> 30; mdev_us = 230.
        // Sample 20 (below srtt 110): err = 20-110 = -90; srtt_us = 790;
        //   |err| = 90, minus mdev_us>>2 = 57 -> 33 > 0, >>3 -> 4; mdev_us = 234.
        let mut e = RttEstimator::default();
        e.sample(100, 0, 10);
        e.sample(180, 0, 10);
        assert_eq!((e.srtt_us, e.mdev_us), (880, 230));
        e.sample(20, 0, 10);
        assert_eq!((e.srtt_us, e.mdev_us), (790, 234));
        // rttvar stays at the 200 ms floor: RTO = 98 + 200000.
        assert_eq!(e.rto_us(), 98 + 200_000);
    }

    #[test]
    fn large_variance_raises_rto_above_min() {
        // srtt 100 ms first sample: mdev_us = 200000 = rttvar; RTO = 100 ms + 200 ms.
        let mut e = RttEstimator::default();
        e.sample(100_000, 0, 1);
        assert_eq!(e.rto_us(), 300_000);
        // Sample 300 ms: err = 200000 -> srtt_us = 1_000_000 (125 ms);
        // err - mdev_us/4 = 200000 - 50000 = 150000; mdev_us = 350000 > mdev_max -> rttvar.
        e.sample(300_000, 0, 1);
        assert_eq!(e.srtt(), 125_000);
        assert_eq!(e.rttvar_us, 350_000);
        assert_eq!(e.rto_us(), 475_000);
    }
}
