//! BBR v1 as Linux's tcp_bbr.c runs it.
//!
//! Model: the bottleneck bandwidth (windowed max of delivery-rate samples over 10 round trips)
//! and the min RTT (windowed min over 10 s). Modes: STARTUP (gain 2/ln2 = 2.885 on pacing and
//! cwnd), DRAIN (pacing 1/2.885 until in-flight falls to one BDP), PROBE_BW (pacing gain cycle
//! 5/4, 3/4, then 1 six times; cwnd gain 2), PROBE_RTT (cwnd 4 segments for 200 ms once the min
//! RTT is 10 s old). Pacing runs 1 % under the bandwidth estimate (bbr_pacing_margin_percent).
//! Gains are in BBR_UNIT = 256 fixed point; bandwidth in segments per us << 24 (BW_UNIT).

use super::{AckInfo, CcState, CongestionControl};
use crate::rng::SeededRng;

pub const BBR_SCALE: u32 = 8;
pub const BBR_UNIT: u64 = 1 << BBR_SCALE;
pub const BW_SCALE: u32 = 24;
pub const BW_UNIT: u64 = 1 << BW_SCALE;
/// 2/ln(2) = 2.885 in BBR_UNIT, +1 to round up: 2885 * 256 / 1000 + 1 = 739.
pub const HIGH_GAIN: u64 = BBR_UNIT * 2885 / 1000 + 1;
/// 1/high_gain: 1000 * 256 / 2885 = 88.
pub const DRAIN_GAIN: u64 = BBR_UNIT * 1000 / 2885;
/// cwnd gain in PROBE_BW: 2.
pub const CWND_GAIN: u64 = BBR_UNIT * 2;
/// Pacing gain cycle in PROBE_BW.
pub const PACING_GAIN: [u64; 8] = [
    BBR_UNIT * 5 / 4,
    BBR_UNIT * 3 / 4,
    BBR_UNIT,
    BBR_UNIT,
    BBR_UNIT,
    BBR_UNIT,
    BBR_UNIT,
    BBR_UNIT,
];
/// Rounds in the bandwidth max filter (bbr_bw_rtts = CYCLE_LEN + 2).
pub const BW_RTTS: u64 = 10;
/// Min RTT filter window: 10 s.
pub const MIN_RTT_WIN_US: u64 = 10_000_000;
/// Time spent in PROBE_RTT: 200 ms.
pub const PROBE_RTT_US: u64 = 200_000;
/// cwnd floor (bbr_cwnd_min_target).
pub const CWND_MIN_TARGET: u64 = 4;
/// Bandwidth must grow 25 % per round to count as still growing (bbr_full_bw_thresh).
pub const FULL_BW_THRESH: u64 = BBR_UNIT * 5 / 4;
/// Rounds without that growth before the pipe is called full (bbr_full_bw_cnt).
pub const FULL_BW_CNT: u32 = 3;
/// Pace this many percent under the estimate (bbr_pacing_margin_percent).
pub const PACING_MARGIN_PERCENT: u64 = 1;
/// Below this pacing rate (bits/s) a TSO burst is one segment (bbr_min_tso_rate).
pub const MIN_TSO_RATE_BPS: u64 = 1_200_000;
/// Gain on the ACK-aggregation estimate added to the cwnd target (bbr_extra_acked_gain, 1.0).
pub const EXTRA_ACKED_GAIN: u64 = BBR_UNIT;
/// Rounds per half of the extra-ACKed max filter (bbr_extra_acked_win_rtts).
pub const EXTRA_ACKED_WIN_RTTS: u32 = 5;
/// An aggregation epoch restarts after this many segments (bbr_ack_epoch_acked_reset_thresh).
pub const ACK_EPOCH_ACKED_RESET_THRESH: u64 = 1 << 20;
/// The aggregation term is at most this much data at the estimated bandwidth
/// (bbr_extra_acked_max_us, 100 ms).
pub const EXTRA_ACKED_MAX_US: u64 = 100_000;

/// Linux's congestion-avoidance states as BBR tracks them (`prev_ca_state`), ordered as the
/// kernel orders them (Open < Recovery < Loss).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum CaPhase {
    Open,
    Recovery,
    Loss,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Startup,
    Drain,
    ProbeBw,
    ProbeRtt,
}

/// Windowed max over rounds: keeps the best sample of each of the last BW_RTTS rounds.
/// (Linux uses a 3-sample minmax approximation; this keeps every round, which is exact.)
#[derive(Debug, Clone, Default)]
pub struct MaxFilter {
    samples: std::collections::VecDeque<(u64, u64)>, // (round, value)
}

impl MaxFilter {
    pub fn update(&mut self, round: u64, value: u64, window: u64) {
        while self
            .samples
            .front()
            .is_some_and(|&(r, _)| r + window <= round)
        {
            self.samples.pop_front();
        }
        match self.samples.back_mut() {
            Some((r, v)) if *r == round => *v = (*v).max(value),
            _ => self.samples.push_back((round, value)),
        }
    }
    pub fn get(&self) -> u64 {
        self.samples.iter().map(|s| s.1).max().unwrap_or(0)
    }
}

#[derive(Debug, Clone)]
pub struct Bbr {
    pub mode: Mode,
    pub bw: MaxFilter,
    pub round_count: u64,
    next_rtt_delivered: u64,
    round_start: bool,
    pub min_rtt_us: u64,
    min_rtt_stamp_us: u64,
    probe_rtt_done_us: Option<u64>,
    probe_rtt_round_done: bool,
    prior_cwnd: u64,
    pub full_bw: u64,
    full_bw_cnt: u32,
    pub full_bw_reached: bool,
    pub cycle_idx: usize,
    cycle_stamp_us: u64,
    pub pacing_gain: u64,
    pub cwnd_gain: u64,
    pacing_rate: u64,
    has_seen_rtt: bool,
    packet_conservation: bool,
    prev_ca_state: CaPhase,
    /// Set while processing an ACK in PROBE_RTT: the sender marks the flow app-limited.
    mark_app_limited: bool,
    mss: u64,
    rng: SeededRng,
    /// ACK aggregation (`bbr_update_ack_aggregation`): the two halves of the max filter of
    /// segments ACKed beyond bw x time, the current half, rounds in it, and the epoch.
    pub extra_acked: [u64; 2],
    extra_acked_win_idx: usize,
    extra_acked_win_rtts: u32,
    ack_epoch_us: u64,
    ack_epoch_acked: u64,
    /// bbr_extra_acked_gain (BBR_UNIT = 1.0; 0 turns the term off, as kernels before 4.20).
    pub extra_acked_gain: u64,
}

impl Bbr {
    pub fn new(seed: u64) -> Self {
        Bbr {
            mode: Mode::Startup,
            bw: MaxFilter::default(),
            round_count: 0,
            next_rtt_delivered: 0,
            round_start: false,
            min_rtt_us: u64::MAX,
            min_rtt_stamp_us: 0,
            probe_rtt_done_us: None,
            probe_rtt_round_done: false,
            prior_cwnd: 0,
            full_bw: 0,
            full_bw_cnt: 0,
            full_bw_reached: false,
            cycle_idx: 0,
            cycle_stamp_us: 0,
            pacing_gain: HIGH_GAIN,
            cwnd_gain: HIGH_GAIN,
            pacing_rate: 0,
            has_seen_rtt: false,
            packet_conservation: false,
            prev_ca_state: CaPhase::Open,
            mark_app_limited: false,
            mss: 1448,
            rng: SeededRng::new(seed ^ 0xbb5),
            extra_acked: [0; 2],
            extra_acked_win_idx: 0,
            extra_acked_win_rtts: 0,
            ack_epoch_us: 0,
            ack_epoch_acked: 0,
            extra_acked_gain: EXTRA_ACKED_GAIN,
        }
    }

    /// Linux `bbr_update_ack_aggregation`: the degree of ACK aggregation, as segments ACKed
    /// in an epoch beyond what the estimated bandwidth would have delivered in it (at most
    /// cwnd), kept as a max over 5-10 rounds (two alternating halves of 5 rounds). An epoch
    /// restarts when the ACKs fall back to the expected rate or after 2^20 segments.
    fn update_ack_aggregation(&mut self, st: &CcState, ack: &AckInfo) {
        let valid = ack
            .rate
            .is_some_and(|r| r.interval_us > 0 && r.delivered > 0);
        if self.extra_acked_gain == 0 || ack.acked == 0 || !valid {
            return;
        }
        if self.round_start {
            self.extra_acked_win_rtts = (self.extra_acked_win_rtts + 1).min(0x1f);
            if self.extra_acked_win_rtts >= EXTRA_ACKED_WIN_RTTS {
                self.extra_acked_win_rtts = 0;
                self.extra_acked_win_idx ^= 1;
                self.extra_acked[self.extra_acked_win_idx] = 0;
            }
        }
        // tp->delivered_mstamp: this ACK delivered data, so it is now
        let now_us = ack.now_ns / 1000;
        let epoch_us = now_us.saturating_sub(self.ack_epoch_us);
        let mut expected =
            ((u128::from(self.max_bw()) * u128::from(epoch_us)) / u128::from(BW_UNIT)) as u64;
        if self.ack_epoch_acked <= expected
            || self.ack_epoch_acked + ack.acked >= ACK_EPOCH_ACKED_RESET_THRESH
        {
            self.ack_epoch_acked = 0;
            self.ack_epoch_us = now_us;
            expected = 0;
        }
        self.ack_epoch_acked = (self.ack_epoch_acked + ack.acked).min(0xfffff);
        let extra = self.ack_epoch_acked.saturating_sub(expected).min(st.cwnd);
        let slot = &mut self.extra_acked[self.extra_acked_win_idx];
        *slot = (*slot).max(extra);
    }

    /// Linux `bbr_ack_aggregation_cwnd`: once the pipe is full, the aggregation estimate
    /// (x gain) goes on top of the cwnd target, at most 100 ms at the estimated bandwidth.
    pub fn ack_aggregation_cwnd(&self) -> u64 {
        if self.extra_acked_gain == 0 || !self.full_bw_reached {
            return 0;
        }
        let max_aggr = ((u128::from(self.max_bw()) * u128::from(EXTRA_ACKED_MAX_US))
            / u128::from(BW_UNIT)) as u64;
        let extra = self.extra_acked[0].max(self.extra_acked[1]);
        ((self.extra_acked_gain * extra) >> BBR_SCALE).min(max_aggr)
    }

    /// Linux `bbr_rate_bytes_per_sec`: bw (segments/us << 24) x gain -> bytes/s, less 1 %.
    pub fn rate_bytes_per_sec(bw: u64, gain: u64, mss: u64) -> u64 {
        let mut rate = u128::from(bw) * u128::from(mss);
        rate *= u128::from(gain);
        rate >>= BBR_SCALE;
        rate *= 1_000_000 / 100 * (100 - u128::from(PACING_MARGIN_PERCENT));
        (rate >> BW_SCALE) as u64
    }

    /// Linux `bbr_bdp`: segments for bw x min_rtt x gain, rounded up.
    pub fn bdp(&self, bw: u64, gain: u64) -> u64 {
        if self.min_rtt_us == u64::MAX {
            return super::INIT_CWND; // no RTT sample yet
        }
        let w = u128::from(bw) * u128::from(self.min_rtt_us);
        let unit = u128::from(BW_UNIT) * u128::from(BBR_UNIT);
        (w * u128::from(gain)).div_ceil(unit) as u64
    }

    fn max_bw(&self) -> u64 {
        self.bw.get()
    }

    /// Linux `bbr_tso_segs_goal`: the burst size `tcp_tso_autosize` picks at BBR's pacing rate
    /// (about 1 ms of data, at most 64 KB), at least 2 segments (1 below 1.2 Mbit/s,
    /// `bbr_min_tso_segs`).
    pub fn tso_segs_goal(&self) -> u64 {
        let min = if self.pacing_rate < MIN_TSO_RATE_BPS / 8 {
            1
        } else {
            2
        };
        let bytes = (self.pacing_rate >> crate::edt::pacing::PACING_SHIFT)
            .min(crate::edt::pacing::GSO_MAX_SIZE);
        (bytes / self.mss.max(1)).max(min).min(0x7fff)
    }

    /// Linux `bbr_inflight` = `bbr_bdp` + `bbr_quantization_budget`: the BDP plus 3 bursts
    /// (`3 * bbr_tso_segs_goal`), rounded up to even, + 2 in the 5/4 probing phase.
    pub fn target_inflight(&self, gain: u64) -> u64 {
        self.quantization_budget(self.bdp(self.max_bw(), gain))
    }

    /// Linux `bbr_quantization_budget`: `w` plus 3 bursts, rounded up to even, + 2 in the 5/4
    /// probing phase.
    fn quantization_budget(&self, mut w: u64) -> u64 {
        w += 3 * self.tso_segs_goal();
        w = (w + 1) & !1;
        if self.mode == Mode::ProbeBw && self.cycle_idx == 0 {
            w += 2;
        }
        w
    }

    /// Linux `bbr_packets_in_net_at_edt` (the EDT series): of `inflight_now`, what will still
    /// be in the network when the next segment leaves at the departure clock, assuming the
    /// estimated bandwidth drains it meanwhile; while probing up, that next burst counts too.
    pub fn packets_in_net_at_edt(&self, ack: &AckInfo, inflight_now: u64) -> u64 {
        let edt = ack.wstamp_ns.max(ack.now_ns);
        let interval_us = (edt - ack.now_ns) / 1000;
        let interval_delivered =
            ((u128::from(self.max_bw()) * u128::from(interval_us)) >> BW_SCALE) as u64;
        let mut at_edt = inflight_now;
        if self.pacing_gain > BBR_UNIT {
            at_edt += self.tso_segs_goal();
        }
        at_edt.saturating_sub(interval_delivered)
    }

    /// Linux `bbr_save_cwnd`: remember cwnd before recovery or PROBE_RTT (the larger one if
    /// already in recovery or PROBE_RTT).
    fn save_cwnd(&mut self, cwnd: u64) {
        if self.prev_ca_state < CaPhase::Recovery && self.mode != Mode::ProbeRtt {
            self.prior_cwnd = cwnd;
        } else {
            self.prior_cwnd = self.prior_cwnd.max(cwnd);
        }
    }

    /// Linux `bbr_set_cwnd_to_recover_or_restore`: each ACK first takes its newly lost
    /// segments off cwnd; the first ACK of Recovery starts a round of packet conservation
    /// (cwnd = in flight + acked, and a new round starts now); leaving Recovery or Loss
    /// restores the cwnd saved on entry. Returns the new cwnd and whether conservation holds.
    fn cwnd_to_recover_or_restore(&mut self, st: &CcState, ack: &AckInfo) -> (u64, bool) {
        let mut cwnd = st.cwnd;
        if ack.newly_lost > 0 {
            cwnd = cwnd.saturating_sub(ack.newly_lost).max(1);
        }
        let state = if ack.in_loss {
            CaPhase::Loss
        } else if ack.in_recovery {
            CaPhase::Recovery
        } else {
            CaPhase::Open
        };
        if state == CaPhase::Recovery && self.prev_ca_state != CaPhase::Recovery {
            self.packet_conservation = true;
            self.next_rtt_delivered = ack.delivered;
            cwnd = ack.in_flight + ack.acked;
        } else if self.prev_ca_state >= CaPhase::Recovery && state < CaPhase::Recovery {
            cwnd = cwnd.max(self.prior_cwnd);
            self.packet_conservation = false;
        }
        self.prev_ca_state = state;
        if self.packet_conservation {
            return (cwnd.max(ack.in_flight + ack.acked), true);
        }
        (cwnd, false)
    }

    fn set_pacing_rate(&mut self, st: &CcState, srtt_us8: u64, gain: u64) {
        let bw = self.max_bw();
        if !self.has_seen_rtt && srtt_us8 != 0 {
            // Linux bbr_init_pacing_rate_from_rtt: high_gain x cwnd / srtt.
            self.has_seen_rtt = true;
        }
        let rate = if bw == 0 {
            let srtt = (srtt_us8 >> 3).max(1);
            let bw0 = st.cwnd * BW_UNIT / srtt;
            Self::rate_bytes_per_sec(bw0, HIGH_GAIN, self.mss)
        } else {
            Self::rate_bytes_per_sec(bw, gain, self.mss)
        };
        if self.full_bw_reached || rate > self.pacing_rate {
            self.pacing_rate = rate;
        }
    }

    fn reset_probe_bw(&mut self, now_us: u64) {
        self.mode = Mode::ProbeBw;
        // Start at a random phase other than the 3/4 drain phase (bbr_cycle_rand = 7).
        self.cycle_idx = 8 - 1 - self.rng.below_or_eq(6) as usize;
        self.cycle_stamp_us = now_us;
        self.advance_cycle(now_us);
    }

    fn advance_cycle(&mut self, now_us: u64) {
        self.cycle_idx = (self.cycle_idx + 1) % PACING_GAIN.len();
        self.cycle_stamp_us = now_us;
    }

    fn update_gains(&mut self) {
        match self.mode {
            Mode::Startup => {
                self.pacing_gain = HIGH_GAIN;
                self.cwnd_gain = HIGH_GAIN;
            }
            Mode::Drain => {
                self.pacing_gain = DRAIN_GAIN;
                self.cwnd_gain = HIGH_GAIN;
            }
            Mode::ProbeBw => {
                self.pacing_gain = PACING_GAIN[self.cycle_idx];
                self.cwnd_gain = CWND_GAIN;
            }
            Mode::ProbeRtt => {
                self.pacing_gain = BBR_UNIT;
                self.cwnd_gain = BBR_UNIT;
            }
        }
    }

    fn is_next_cycle_phase(&self, ack: &AckInfo, now_us: u64) -> bool {
        let full_length = now_us.saturating_sub(self.cycle_stamp_us) > self.min_rtt_us;
        let gain = self.pacing_gain;
        if gain == BBR_UNIT {
            return full_length;
        }
        let inflight = self.packets_in_net_at_edt(ack, ack.prior_in_flight);
        // Linux bbr_is_next_cycle_phase: in-flight as it will be at the next departure.
        if gain > BBR_UNIT {
            return full_length && (ack.newly_lost > 0 || inflight >= self.target_inflight(gain));
        }
        full_length || inflight <= self.target_inflight(BBR_UNIT)
    }
}

impl CongestionControl for Bbr {
    fn name(&self) -> &'static str {
        "bbr"
    }

    fn controls_window(&self) -> bool {
        true
    }

    fn pacing_rate(&self) -> Option<u64> {
        (self.pacing_rate > 0).then_some(self.pacing_rate)
    }

    fn sndbuf_expand(&self) -> u64 {
        3
    }

    fn state_label(&self) -> String {
        format!(
            "{:?} bw={} min_rtt={}us",
            self.mode,
            self.max_bw(),
            self.min_rtt_us
        )
    }

    fn wants_app_limited(&self) -> bool {
        self.mark_app_limited
    }

    /// Linux `bbr_ssthresh`: entering recovery (or an RTO's loss state) saves cwnd for the
    /// restore on exit; ssthresh itself is left as it is (BBR does not cut cwnd to it).
    fn ssthresh(&mut self, st: &CcState) -> u64 {
        self.save_cwnd(st.cwnd);
        st.ssthresh
    }

    /// Linux `bbr_set_state(TCP_CA_Loss)`: an RTO ends the round and restarts full-pipe
    /// detection. The sender sets cwnd (in flight + 1, `tcp_enter_loss`).
    fn on_rto(&mut self, _st: &mut CcState) {
        self.prev_ca_state = CaPhase::Loss;
        self.full_bw = 0;
        self.round_start = true;
    }

    fn on_ack(&mut self, st: &mut CcState, ack: &AckInfo) {
        self.mss = st.mss;
        let now_us = ack.now_ns / 1000;
        // --- bbr_update_bw: round counting and the bandwidth filter.
        self.round_start = false;
        if let Some(rs) = ack.rate {
            if rs.prior_delivered >= self.next_rtt_delivered {
                self.next_rtt_delivered = ack.delivered;
                self.round_count += 1;
                self.round_start = true;
                self.packet_conservation = false;
            }
            if rs.interval_us > 0 && rs.delivered > 0 {
                let bw = rs.delivered * BW_UNIT / rs.interval_us;
                // App-limited samples only count when they raise the estimate.
                if !rs.is_app_limited || bw >= self.max_bw() {
                    self.bw.update(self.round_count, bw, BW_RTTS);
                }
            }
        }
        // --- bbr_update_ack_aggregation
        self.update_ack_aggregation(st, ack);
        // --- bbr_check_full_bw_reached
        if !self.full_bw_reached && self.round_start && !ack.rate.is_some_and(|r| r.is_app_limited)
        {
            let bw = self.max_bw();
            if bw >= self.full_bw * FULL_BW_THRESH / BBR_UNIT {
                self.full_bw = bw;
                self.full_bw_cnt = 0;
            } else {
                self.full_bw_cnt += 1;
                self.full_bw_reached = self.full_bw_cnt >= FULL_BW_CNT;
            }
        }
        // --- bbr_update_cycle_phase
        if self.mode == Mode::ProbeBw && self.is_next_cycle_phase(ack, now_us) {
            self.advance_cycle(now_us);
        }
        // --- bbr_check_drain
        if self.mode == Mode::Startup && self.full_bw_reached {
            self.mode = Mode::Drain;
            st.ssthresh = self.target_inflight(BBR_UNIT);
        }
        if self.mode == Mode::Drain
            && self.packets_in_net_at_edt(ack, ack.in_flight) <= self.target_inflight(BBR_UNIT)
        {
            self.reset_probe_bw(now_us);
        }
        // --- bbr_update_min_rtt and PROBE_RTT (a sample equal to the minimum refreshes it)
        self.mark_app_limited = false;
        let expired = now_us > self.min_rtt_stamp_us + MIN_RTT_WIN_US;
        if let Some(rtt) = ack.rtt_us {
            if rtt <= self.min_rtt_us || expired {
                self.min_rtt_us = rtt.max(1);
                self.min_rtt_stamp_us = now_us;
            }
        }
        if expired && self.mode != Mode::ProbeRtt && self.min_rtt_us != u64::MAX {
            self.save_cwnd(st.cwnd);
            self.mode = Mode::ProbeRtt;
            self.probe_rtt_done_us = None;
        }
        if self.mode == Mode::ProbeRtt {
            // Linux bbr_update_min_rtt: samples taken with the 4-segment window say nothing
            // about the path's bandwidth; the sender marks the flow app-limited.
            self.mark_app_limited = true;
            match self.probe_rtt_done_us {
                None if ack.in_flight <= CWND_MIN_TARGET => {
                    self.probe_rtt_done_us = Some(now_us + PROBE_RTT_US);
                    self.probe_rtt_round_done = false;
                    self.next_rtt_delivered = ack.delivered;
                }
                Some(done) => {
                    if self.round_start {
                        self.probe_rtt_round_done = true;
                    }
                    if self.probe_rtt_round_done && now_us > done {
                        self.min_rtt_stamp_us = now_us;
                        st.cwnd = st.cwnd.max(self.prior_cwnd);
                        if self.full_bw_reached {
                            self.reset_probe_bw(now_us);
                        } else {
                            self.mode = Mode::Startup;
                        }
                    }
                }
                None => {}
            }
        }
        self.update_gains();
        // --- bbr_set_pacing_rate
        self.set_pacing_rate(st, ack.srtt_us8, self.pacing_gain);
        // --- bbr_set_cwnd (nothing fully acknowledged: only the caps apply)
        if ack.acked > 0 {
            let (mut cwnd, conserving) = self.cwnd_to_recover_or_restore(st, ack);
            if !conserving {
                // bbr_set_cwnd: bdp + the ACK-aggregation term, then the quantization budget
                let target = self.quantization_budget(
                    self.bdp(self.max_bw(), self.cwnd_gain) + self.ack_aggregation_cwnd(),
                );
                if self.full_bw_reached {
                    cwnd = (cwnd + ack.acked).min(target);
                } else if cwnd < target || ack.delivered < super::INIT_CWND {
                    cwnd += ack.acked;
                }
                cwnd = cwnd.max(CWND_MIN_TARGET);
            }
            st.cwnd = cwnd;
        }
        st.cwnd = st.cwnd.min(st.cwnd_clamp);
        if self.mode == Mode::ProbeRtt {
            st.cwnd = st.cwnd.min(CWND_MIN_TARGET);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gains() {
        // 2885*256/1000 = 738.56 -> 738, +1 = 739; 256000/2885 = 88.7 -> 88.
        assert_eq!(HIGH_GAIN, 739);
        assert_eq!(DRAIN_GAIN, 88);
        assert_eq!(PACING_GAIN[0], 320);
        assert_eq!(PACING_GAIN[1], 192);
    }

    #[test]
    fn rate_table() {
        // bw = 1 segment/us (BW_UNIT), gain 1, mss 1000 -> 1e9 B/s less 1 % = 990_000_000.
        assert_eq!(
            Bbr::rate_bytes_per_sec(BW_UNIT, BBR_UNIT, 1000),
            990_000_000
        );
        // gain 5/4: 1.25e9 * 0.99 = 1_237_500_000.
        assert_eq!(
            Bbr::rate_bytes_per_sec(BW_UNIT, PACING_GAIN[0], 1000),
            1_237_500_000
        );
    }

    #[test]
    fn bdp_table() {
        // bw 0.5 seg/us, min_rtt 100 us, gain 2 -> 0.5*100*2 = 100 segments.
        let mut b = Bbr::new(1);
        b.min_rtt_us = 100;
        assert_eq!(b.bdp(BW_UNIT / 2, CWND_GAIN), 100);
        // gain 739/256 = 2.887 -> 50 * 2.887 = 144.3 -> rounds up to 145.
        assert_eq!(b.bdp(BW_UNIT / 2, HIGH_GAIN), 145);
    }

    #[test]
    fn tso_segs_goal_and_quantization_budget() {
        // bbr_tso_segs_goal = max(min(pacing_rate >> 10, 64 KB) / mss, 2 (1 below 1.2 Mbit/s)).
        let mut b = Bbr::new(1);
        b.mss = 1448;
        for (rate, want) in [
            (125_000_000, 45), // 1 Gbit/s: 122070 B > 64 KB -> 65536 / 1448 = 45
            (12_500_000, 8),   // 100 Mbit/s: 12207 / 1448 = 8
            (1_000_000, 2),    // 8 Mbit/s: 976 B -> the floor of 2
            (100_000, 1),      // 0.8 Mbit/s < bbr_min_tso_rate: 1
        ] {
            b.pacing_rate = rate;
            assert_eq!(b.tso_segs_goal(), want, "rate {rate}");
        }
        // bbr_inflight at 1 Gbit/s: bdp (1 seg/us x 100 us x 2 = 200) + 3 x 45 = 335 -> 336.
        b.pacing_rate = 125_000_000;
        b.min_rtt_us = 100;
        b.bw.update(0, BW_UNIT, BW_RTTS);
        assert_eq!(b.target_inflight(CWND_GAIN), 336);
    }

    #[test]
    fn packets_in_net_at_edt_table() {
        // bw 1 segment/us; the departure clock 30 us ahead: 30 segments drain meanwhile.
        let mut b = Bbr::new(1);
        b.mss = 1448;
        b.pacing_rate = 125_000_000; // tso goal 45
        b.bw.update(0, BW_UNIT, BW_RTTS);
        let ack = AckInfo {
            now_ns: 1_000_000,
            wstamp_ns: 1_030_000,
            ..AckInfo::default()
        };
        b.pacing_gain = BBR_UNIT;
        assert_eq!(b.packets_in_net_at_edt(&ack, 50), 20);
        assert_eq!(b.packets_in_net_at_edt(&ack, 25), 0);
        // Probing up (gain 5/4): the burst leaving at the EDT counts: 50 + 45 - 30.
        b.pacing_gain = PACING_GAIN[0];
        assert_eq!(b.packets_in_net_at_edt(&ack, 50), 65);
        // Departure clock behind now: nothing drains.
        let late = AckInfo {
            now_ns: 1_000_000,
            wstamp_ns: 900_000,
            ..AckInfo::default()
        };
        b.pacing_gain = BBR_UNIT;
        assert_eq!(b.packets_in_net_at_edt(&late, 50), 50);
    }

    /// A BBR in PROBE_BW at gain 1 with bw 1 segment/us and min RTT 100 us.
    fn probe_bw() -> (Bbr, CcState) {
        let mut b = Bbr::new(1);
        b.mss = 1448;
        b.min_rtt_us = 100;
        b.min_rtt_stamp_us = 0;
        b.full_bw_reached = true;
        b.mode = Mode::ProbeBw;
        b.cycle_idx = 2;
        b.cycle_stamp_us = 0;
        b.pacing_rate = 125_000_000;
        b.bw.update(0, BW_UNIT, BW_RTTS);
        let mut st = CcState::new(1448);
        st.cwnd = 100;
        (b, st)
    }

    #[test]
    fn losses_come_off_cwnd_and_recovery_starts_a_round() {
        // bbr_set_cwnd_to_recover_or_restore.
        let (mut b, mut st) = probe_bw();
        let base = AckInfo {
            now_ns: 50_000, // within min_rtt of the cycle start: no phase change
            acked: 1,
            delivered: 1000,
            in_flight: 90,
            ..AckInfo::default()
        };
        // Open, 5 newly lost: 100 - 5 + 1 = 96 (target 336 is far above).
        b.on_ack(
            &mut st,
            &AckInfo {
                newly_lost: 5,
                ..base.clone()
            },
        );
        assert_eq!(st.cwnd, 96);
        // Entering Recovery: the sender calls ssthresh (saves cwnd 96); the first ACK in
        // Recovery sets cwnd = in flight + acked and starts a new round now.
        b.ssthresh(&st);
        let rec = AckInfo {
            in_recovery: true,
            acked: 2,
            in_flight: 50,
            delivered: 1002,
            ..base.clone()
        };
        b.on_ack(&mut st, &rec);
        assert_eq!(st.cwnd, 52);
        assert!(b.packet_conservation);
        assert_eq!(b.next_rtt_delivered, 1002);
        // Still conserving: max(cwnd - losses, in flight + acked) = max(52 - 3, 48 + 1).
        b.on_ack(
            &mut st,
            &AckInfo {
                newly_lost: 3,
                acked: 1,
                in_flight: 48,
                delivered: 1003,
                ..rec.clone()
            },
        );
        assert_eq!(st.cwnd, 49);
        // Leaving Recovery restores the saved 96, then +acked toward the target.
        b.on_ack(
            &mut st,
            &AckInfo {
                delivered: 1004,
                ..base
            },
        );
        assert_eq!(st.cwnd, 97);
        assert!(!b.packet_conservation);
    }

    #[test]
    fn probe_rtt_marks_the_flow_app_limited() {
        // bbr_update_min_rtt: min RTT 10 s old -> PROBE_RTT, and tp->app_limited is set on
        // every ACK there, so 4-segment samples do not enter the bandwidth filter.
        let (mut b, mut st) = probe_bw();
        let ack = AckInfo {
            now_ns: 10_000_001_000,
            acked: 1,
            rtt_us: Some(150),
            in_flight: 60,
            delivered: 5000,
            ..AckInfo::default()
        };
        b.on_ack(&mut st, &ack);
        assert_eq!(b.mode, Mode::ProbeRtt);
        assert!(b.wants_app_limited());
        assert_eq!(st.cwnd, CWND_MIN_TARGET);
        // A sample equal to the minimum refreshes the filter (<=, not <).
        let (mut b, mut st) = probe_bw();
        let eq = AckInfo {
            now_ns: 9_000_000_000,
            rtt_us: Some(100),
            acked: 1,
            ..ack
        };
        b.on_ack(&mut st, &eq);
        assert_eq!(b.min_rtt_stamp_us, 9_000_000);
        assert!(!b.wants_app_limited());
    }

    #[test]
    fn ack_aggregation_raises_the_cwnd_target() {
        // bbr_update_ack_aggregation / bbr_ack_aggregation_cwnd, bw 1 segment/us: an ACK of 10
        // starts an epoch; 5 us later an ACK of 40 more makes 50 ACKed where 5 were expected:
        // 45 extra, which goes on top of the target (bdp 200 + 45, + 3 bursts of 45 = 380)
        let (mut b, mut st) = probe_bw();
        st.cwnd = 330;
        let rate = Some(crate::edt::cc::RateSample {
            delivered: 10,
            interval_us: 100,
            prior_delivered: 0,
            is_app_limited: false,
        });
        let ack = |t_us: u64, acked: u64, delivered: u64| AckInfo {
            now_ns: t_us * 1000,
            acked,
            delivered,
            in_flight: 300,
            rate,
            ..AckInfo::default()
        };
        b.on_ack(&mut st, &ack(1000, 10, 1010));
        assert_eq!(b.extra_acked, [10, 0]);
        b.on_ack(&mut st, &ack(1005, 40, 1050));
        assert_eq!(b.extra_acked, [45, 0]);
        assert_eq!(b.ack_aggregation_cwnd(), 45);
        // the target without the term would be 200 + 135, rounded up to even: 336
        assert_eq!(st.cwnd, 380);
        // ACKs at the expected rate restart the epoch and keep the max
        b.on_ack(&mut st, &ack(2005, 1, 1051));
        assert_eq!(b.extra_acked, [45, 0]);
        // the term is capped by cwnd and needs a full pipe; gain 0 turns it off
        b.full_bw_reached = false;
        assert_eq!(b.ack_aggregation_cwnd(), 0);
        let (mut b, mut st) = probe_bw();
        st.cwnd = 20;
        b.on_ack(&mut st, &ack(1000, 10, 1010));
        b.on_ack(&mut st, &ack(1005, 40, 1050));
        assert_eq!(
            b.extra_acked[0], 30,
            "min(50 - 5, cwnd 30 after the first ACK)"
        );
        let (mut b, mut st) = probe_bw();
        b.extra_acked_gain = 0;
        st.cwnd = 330;
        b.on_ack(&mut st, &ack(1000, 10, 1010));
        b.on_ack(&mut st, &ack(1005, 40, 1050));
        assert_eq!((b.extra_acked, st.cwnd), ([0, 0], 336));
    }

    #[test]
    fn max_filter_forgets_after_window() {
        let mut f = MaxFilter::default();
        f.update(1, 100, 10);
        f.update(5, 50, 10);
        assert_eq!(f.get(), 100);
        f.update(11, 40, 10); // round 1 is now 10 rounds old
        assert_eq!(f.get(), 50);
    }
}
