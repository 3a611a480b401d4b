//! CUBIC (RFC 9438) as Linux's tcp_cubic.c computes it, in its fixed point.
//!
//! Window growth: `W(t) = C (t - K)^3 + W_max` with C = 0.4 and
//! `K = cbrt(W_max (1 - beta) / C)`, beta = 717/1024 (~0.7). Linux measures t in 1/1024 s
//! (BICTCP_HZ = 10) and folds C into `cube_rtt_scale = bic_scale * 10 = 410` (410/1024 = 0.4)
//! and `cube_factor = 2^40 / 410`, so that `K = cbrt(cube_factor * (W_max - cwnd))` and
//! `delta = 410 * |t - K|^3 >> 40` are in segments. HyStart (ACK train and delay increase)
//! ends slow start early.

use super::{AckInfo, CcState, CongestionControl};

/// BICTCP_BETA_SCALE
pub const BETA_SCALE: u64 = 1024;
/// beta = 717/1024 ~ 0.7
pub const BETA: u64 = 717;
/// bic_scale 41 * 10: C = 410/1024 ~ 0.4
pub const CUBE_RTT_SCALE: u64 = 410;
/// 2^(3*BICTCP_HZ) * 2^10 / cube_rtt_scale = 2^40 / 410
pub const CUBE_FACTOR: u64 = (1u64 << 40) / CUBE_RTT_SCALE;
/// Reno-friendly slope factor: 8 * (1024 + 717) / 3 / (1024 - 717) = 15 (integer math).
pub const FRIENDLY_BETA_SCALE: u64 = 8 * (BETA_SCALE + BETA) / 3 / (BETA_SCALE - BETA);
/// HyStart runs only once cwnd reaches this (hystart_low_window).
pub const HYSTART_LOW_WINDOW: u64 = 16;
/// ACKs closer than this belong to one train (hystart_ack_delta_us).
pub const HYSTART_ACK_DELTA_US: u64 = 2000;
/// RTT samples taken at the start of each round (HYSTART_MIN_SAMPLES).
pub const HYSTART_MIN_SAMPLES: u32 = 8;

/// Integer cube root, rounded down.
pub fn cube_root(x: u64) -> u64 {
    let mut r = (x as f64).cbrt() as u64;
    while r > 0 && r.saturating_mul(r).saturating_mul(r) > x {
        r -= 1;
    }
    while (r + 1).saturating_mul(r + 1).saturating_mul(r + 1) <= x {
        r += 1;
    }
    r
}

/// CUBIC's target window `t` (in 1/1024 s) after the epoch start, given origin and K.
pub fn cubic_target(origin: u64, k: u64, t: u64) -> u64 {
    let offs = t.abs_diff(k);
    let delta = ((u128::from(CUBE_RTT_SCALE) * u128::from(offs).pow(3)) >> 40) as u64;
    if t < k {
        origin.saturating_sub(delta)
    } else {
        origin + delta
    }
}

/// The ssthresh CUBIC picks on loss: cwnd * 717/1024, at least 2.
pub fn cubic_ssthresh(cwnd: u64) -> u64 {
    (cwnd * BETA / BETA_SCALE).max(2)
}

#[derive(Debug, Clone, Default)]
pub struct Cubic {
    /// Increase cwnd by 1 after this many ACKed segments.
    pub cnt: u64,
    cwnd_cnt: u64,
    pub last_max_cwnd: u64,
    last_cwnd: u64,
    last_time_us: u64,
    pub origin_point: u64,
    /// K in 1/1024 s.
    pub k: u64,
    /// Minimum RTT seen, us (0 = none).
    pub delay_min_us: u64,
    /// Start of the current growth epoch, us (None = no epoch).
    epoch_start_us: Option<u64>,
    ack_cnt: u64,
    tcp_cwnd: u64,
    // HyStart
    pub hystart_found: bool,
    round_start_us: u64,
    last_ack_us: u64,
    end_seq: u64,
    curr_rtt_us: u64,
    sample_cnt: u32,
}

impl Cubic {
    pub fn new() -> Self {
        Cubic::default()
    }

    /// Linux `bictcp_reset` + `bictcp_hystart_reset` (from `cubictcp_state` on TCP_CA_Loss):
    /// everything goes, the window history and the min delay too, and HyStart may run again;
    /// the next ACK starts a HyStart round (end_seq 0 is behind any snd_una).
    fn reset(&mut self) {
        *self = Cubic::default();
        self.curr_rtt_us = u64::MAX;
    }

    fn hystart_reset(&mut self, now_us: u64, snd_nxt: u64) {
        self.round_start_us = now_us;
        self.last_ack_us = now_us;
        self.end_seq = snd_nxt;
        self.curr_rtt_us = u64::MAX;
        self.sample_cnt = 0;
    }

    /// Linux `hystart_update` (called only with a delay sample): leave slow start when ACK
    /// trains stretch to the min RTT or the round's minimum delay (over every sample of the
    /// round, judged once 8 are in) rises past min RTT + clamp(min/8, 4 ms, 16 ms).
    fn hystart_update(&mut self, st: &mut CcState, ack: &AckInfo, now_us: u64, delay: u64) {
        if self.hystart_found {
            return;
        }
        if ack.snd_una > self.end_seq {
            self.hystart_reset(now_us, ack.snd_nxt);
        }
        if now_us.saturating_sub(self.last_ack_us) <= HYSTART_ACK_DELTA_US {
            self.last_ack_us = now_us;
            // Time to send 4 GSO packets at the pacing rate, at most 1 ms (hystart_ack_delay);
            // with pacing the threshold is not halved.
            let ack_delay = (65_536u64 * 4 * 1_000_000)
                .checked_div(ack.pacing_rate)
                .map_or(0, |d| d.min(1000));
            let threshold = self.delay_min_us + ack_delay;
            if self.delay_min_us > 0 && now_us - self.round_start_us > threshold {
                self.hystart_found = true;
                st.ssthresh = st.cwnd;
            }
        }
        self.curr_rtt_us = self.curr_rtt_us.min(delay);
        if self.sample_cnt < HYSTART_MIN_SAMPLES {
            self.sample_cnt += 1;
        } else {
            let thresh = (self.delay_min_us >> 3).clamp(4000, 16000);
            if self.curr_rtt_us > self.delay_min_us + thresh {
                self.hystart_found = true;
                st.ssthresh = st.cwnd;
            }
        }
    }

    /// Linux `cubictcp_acked`: an ACK without an RTT sample, or within the first second of
    /// a growth epoch (right after recovery), neither moves the min delay nor HyStart.
    fn acked(&mut self, st: &mut CcState, ack: &AckInfo, now_us: u64) {
        let Some(rtt) = ack.rtt_us else { return };
        if self
            .epoch_start_us
            .is_some_and(|e| now_us.saturating_sub(e) < 1_000_000)
        {
            return;
        }
        let delay = rtt.max(1);
        if self.delay_min_us == 0 || delay < self.delay_min_us {
            self.delay_min_us = delay;
        }
        if !self.hystart_found && st.in_slow_start() && st.cwnd >= HYSTART_LOW_WINDOW {
            self.hystart_update(st, ack, now_us, delay);
        }
    }

    /// Linux `bictcp_update`: compute `cnt` (ACKs per +1 segment) for this cwnd.
    fn update(&mut self, cwnd: u64, acked: u64, now_us: u64) {
        self.ack_cnt += acked;
        if self.last_cwnd == cwnd && now_us.saturating_sub(self.last_time_us) <= 31_250 {
            return; // recomputed at most every HZ/32 for the same cwnd
        }
        self.last_cwnd = cwnd;
        self.last_time_us = now_us;
        let epoch = match self.epoch_start_us {
            Some(e) => e,
            None => {
                self.epoch_start_us = Some(now_us);
                self.ack_cnt = acked;
                self.tcp_cwnd = cwnd;
                if self.last_max_cwnd <= cwnd {
                    self.k = 0;
                    self.origin_point = cwnd;
                } else {
                    self.k = cube_root(CUBE_FACTOR * (self.last_max_cwnd - cwnd));
                    self.origin_point = self.last_max_cwnd;
                }
                now_us
            }
        };
        // t is measured one min-RTT ahead: the window we want when this ACK's data returns.
        let t_us = now_us - epoch + self.delay_min_us;
        let t = (u128::from(t_us) << 10) / 1_000_000;
        let target = cubic_target(self.origin_point, self.k, t as u64);
        self.cnt = if target > cwnd {
            cwnd / (target - cwnd)
        } else {
            100 * cwnd
        };
        if self.last_max_cwnd == 0 && self.cnt > 20 {
            self.cnt = 20; // no loss yet: grow at least 5 % per RTT
        }
        // TCP friendliness: never grow slower than Reno with the same beta would.
        let delta = (cwnd * FRIENDLY_BETA_SCALE) >> 3;
        while delta > 0 && self.ack_cnt > delta {
            self.ack_cnt -= delta;
            self.tcp_cwnd += 1;
        }
        if self.tcp_cwnd > cwnd {
            let max_cnt = cwnd / (self.tcp_cwnd - cwnd);
            self.cnt = self.cnt.min(max_cnt);
        }
        self.cnt = self.cnt.max(2);
    }
}

/// Linux `tcp_slow_start`: grow by `acked` up to ssthresh; returns the ACKs left over.
pub fn slow_start(st: &mut CcState, acked: u64) -> u64 {
    let cwnd = (st.cwnd + acked).min(st.ssthresh);
    let left = acked - (cwnd - st.cwnd).min(acked);
    st.cwnd = cwnd.min(st.cwnd_clamp);
    left
}

/// Linux `tcp_cong_avoid_ai`: +1 segment per `w` ACKed segments.
pub fn cong_avoid_ai(st: &mut CcState, cwnd_cnt: &mut u64, w: u64, acked: u64) {
    let w = w.max(1);
    if *cwnd_cnt >= w {
        *cwnd_cnt = 0;
        st.cwnd += 1;
    }
    *cwnd_cnt += acked;
    if *cwnd_cnt >= w {
        let delta = *cwnd_cnt / w;
        *cwnd_cnt -= delta * w;
        st.cwnd += delta;
    }
    st.cwnd = st.cwnd.min(st.cwnd_clamp);
}

impl CongestionControl for Cubic {
    fn name(&self) -> &'static str {
        "cubic"
    }

    fn on_ack(&mut self, st: &mut CcState, ack: &AckInfo) {
        let now_us = ack.now_ns / 1000;
        self.acked(st, ack, now_us);
        if !ack.may_raise_cwnd || !ack.cwnd_limited || ack.acked == 0 {
            return; // Linux: no growth unless cwnd is what limits sending
        }
        let mut acked = ack.acked;
        if st.in_slow_start() {
            acked = slow_start(st, acked);
            if acked == 0 {
                return;
            }
        }
        self.update(st.cwnd, acked, now_us);
        let mut cc = self.cwnd_cnt;
        cong_avoid_ai(st, &mut cc, self.cnt, acked);
        self.cwnd_cnt = cc;
    }

    fn ssthresh(&mut self, st: &CcState) -> u64 {
        self.epoch_start_us = None;
        // Fast convergence: a flow that lost before reaching its old max releases bandwidth.
        self.last_max_cwnd = if st.cwnd < self.last_max_cwnd {
            st.cwnd * (BETA_SCALE + BETA) / (2 * BETA_SCALE)
        } else {
            st.cwnd
        };
        cubic_ssthresh(st.cwnd)
    }

    /// Linux `cubictcp_state(TCP_CA_Loss)`.
    fn on_rto(&mut self, _st: &mut CcState) {
        self.reset();
    }

    fn state_label(&self) -> String {
        format!("cnt={} wmax={} K={}", self.cnt, self.last_max_cwnd, self.k)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constants() {
        // 2^40 / 410 = 2_681_735_677 (floor); friendliness factor 8*1741/3/307:
        // 13928/3 = 4642, 4642/307 = 15.
        assert_eq!(CUBE_FACTOR, 2_681_735_677);
        assert_eq!(FRIENDLY_BETA_SCALE, 15);
    }

    #[test]
    fn ssthresh_table() {
        // cwnd * 717 / 1024: 100 -> 70 (71700/1024 = 70.02), 10 -> 7, 2 -> 2 (floor 1, min 2).
        for (cwnd, want) in [(100, 70), (10, 7), (2, 2), (1000, 700)] {
            assert_eq!(cubic_ssthresh(cwnd), want);
        }
    }

    #[test]
    fn k_and_target_table() {
        // W_max - cwnd = 30: K = cbrt(2681735677 * 30) = cbrt(80_452_070_310) = 4316
        // (1/1024 s) = 4.215 s; by the real-valued formula cbrt(30/0.4) = 4.217 s.
        assert_eq!(cube_root(CUBE_FACTOR * 30), 4316);
        // At t = K the window is back at W_max.
        assert_eq!(cubic_target(100, 4316, 4316), 100);
        // At t = 0: 100 - 410 * 4316^3 >> 40 = 100 - 29 (floor of 29.999...) = 71.
        // (410 * 80_399_101_... = 3.298e13; / 2^40 = 29.99.)
        assert_eq!(cubic_target(100, 4316, 0), 71);
        // One second past K (t = K + 1024): delta = 410 * 1024^3 >> 40 = 0.4 -> 0.
        assert_eq!(cubic_target(100, 4316, 4316 + 1024), 100);
        // Five seconds past K: 410 * 5120^3 >> 40 = 410*125*2^30/2^40 = 50 (51250/1024 floor).
        assert_eq!(cubic_target(100, 4316, 4316 + 5120), 150);
    }

    #[test]
    fn fast_convergence() {
        let mut c = Cubic::new();
        let st = CcState {
            cwnd: 100,
            ..CcState::new(1448)
        };
        assert_eq!(c.ssthresh(&st), 70);
        assert_eq!(c.last_max_cwnd, 100);
        // Loss again below the old max: W_max = 80 * 1741 / 2048 = 68.
        let st = CcState {
            cwnd: 80,
            ..CcState::new(1448)
        };
        c.ssthresh(&st);
        assert_eq!(c.last_max_cwnd, 68);
    }

    #[test]
    fn slow_start_and_ai() {
        let mut st = CcState::new(1448);
        st.ssthresh = 15;
        // 10 + 8 capped at 15, 3 ACKs left over.
        assert_eq!(slow_start(&mut st, 8), 3);
        assert_eq!(st.cwnd, 15);
        // AI with w = 15: 15 acked -> +1.
        let mut cnt = 0;
        cong_avoid_ai(&mut st, &mut cnt, 15, 15);
        assert_eq!((st.cwnd, cnt), (16, 0));
    }

    fn ack(now_us: u64, rtt_us: u64, una: u64, nxt: u64) -> AckInfo {
        AckInfo {
            now_ns: now_us * 1000,
            acked: 1,
            rtt_us: Some(rtt_us),
            snd_una: una,
            snd_nxt: nxt,
            pacing_rate: 0,      // no pacing: hystart_ack_delay = 0
            cwnd_limited: false, // keep cwnd fixed; HyStart runs before the growth check
            ..AckInfo::default()
        }
    }

    #[test]
    fn hystart_ack_train() {
        // delay_min = 100 us. A train of ACKs 10 us apart starting a round at t = 1000 us
        // ends slow start once it spans more than delay_min: at t = 1110 (1100 - 1000 = 100
        // is not more than 100).
        let mut c = Cubic::new();
        let mut st = CcState::new(1448);
        st.cwnd = 20;
        let mut t = 1000;
        let mut una = 1;
        while t < 1110 {
            c.on_ack(&mut st, &ack(t, 100, una, 1_000_000));
            assert!(st.in_slow_start(), "found too early at {t}");
            t += 10;
            una += 1448;
        }
        c.on_ack(&mut st, &ack(1110, 100, una, 1_000_000));
        assert!(c.hystart_found);
        assert_eq!(st.ssthresh, 20);
    }

    #[test]
    fn loss_state_resets_everything() {
        // cubictcp_state(TCP_CA_Loss) -> bictcp_reset + bictcp_hystart_reset.
        let mut c = Cubic::new();
        let mut st = CcState::new(1448);
        st.cwnd = 100;
        c.ssthresh(&st);
        c.delay_min_us = 500;
        c.hystart_found = true;
        c.cnt = 7;
        c.on_rto(&mut st);
        assert_eq!(
            (c.last_max_cwnd, c.delay_min_us, c.cnt, c.hystart_found),
            (0, 0, 0, false)
        );
        assert_eq!(c.epoch_start_us, None);
    }

    #[test]
    fn hystart_skips_acks_without_rtt_and_early_epoch_samples() {
        // cubictcp_acked returns before hystart_update for an ACK without an RTT sample:
        // a train of such ACKs never ends slow start.
        let mut c = Cubic::new();
        let mut st = CcState::new(1448);
        st.cwnd = 20;
        c.on_ack(&mut st, &ack(0, 100, 1, 10));
        for i in 0..40u64 {
            let mut a = ack(1000 + 10 * i, 100, 11 + i, 1_000_000);
            a.rtt_us = None;
            c.on_ack(&mut st, &a);
        }
        assert!(!c.hystart_found);
        // Within the first second of an epoch the delay sample is ignored (min stays).
        let mut c = Cubic::new();
        c.epoch_start_us = Some(0);
        c.delay_min_us = 900;
        c.on_ack(&mut st, &ack(999_999, 100, 1, 10));
        assert_eq!(c.delay_min_us, 900);
        c.on_ack(&mut st, &ack(1_000_000, 100, 1, 10));
        assert_eq!(c.delay_min_us, 100);
    }

    #[test]
    fn hystart_round_minimum_covers_every_sample() {
        // Eight samples of 15 ms, then one of 13.9 ms: the round's minimum (13.9 ms) is under
        // the 14 ms threshold, so slow start goes on.
        let mut c = Cubic::new();
        let mut st = CcState::new(1448);
        st.cwnd = 20;
        c.on_ack(&mut st, &ack(0, 10_000, 1, 10));
        let mut t = 3000;
        for i in 0..8u64 {
            c.on_ack(&mut st, &ack(t, 15_000, 11 + i, 1_000_000));
            t += 3000;
        }
        c.on_ack(&mut st, &ack(t, 13_900, 20, 1_000_000));
        assert!(!c.hystart_found);
    }

    #[test]
    fn hystart_delay_increase() {
        // delay_min 10 ms: threshold = 10 ms + clamp(10 ms / 8, 4 ms, 16 ms) = 14 ms.
        // ACKs 3 ms apart (no ACK train). A round whose first 8 RTT samples are 15 ms ends
        // slow start on the 9th ACK; with 13.9 ms samples it does not.
        for (rtt, found) in [(15_000, true), (13_900, false)] {
            let mut c = Cubic::new();
            let mut st = CcState::new(1448);
            st.cwnd = 20;
            c.on_ack(&mut st, &ack(0, 10_000, 1, 10)); // round 1, delay_min 10 ms
            let mut t = 3000;
            for i in 0..9u64 {
                // snd_una 11.. > end_seq 10: the first of these starts round 2
                c.on_ack(&mut st, &ack(t, rtt, 11 + i, 1_000_000));
                t += 3000;
            }
            assert_eq!(c.hystart_found, found, "rtt {rtt}");
        }
    }
}
