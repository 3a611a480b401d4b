//! Congestion control behind one trait, shaped like Linux's `tcp_congestion_ops`.
//!
//! The sender owns cwnd and ssthresh in [`CcState`]; a module adjusts them on each ACK
//! (`cong_avoid` for CUBIC, the whole `cong_control` for BBR), chooses ssthresh on loss, and
//! may set its own pacing rate (BBR does; CUBIC leaves it to `tcp_update_pacing_rate`).

pub mod bbr;
pub mod cubic;

pub use bbr::Bbr;
pub use cubic::Cubic;

/// Linux TCP_INIT_CWND.
pub const INIT_CWND: u64 = 10;

/// Window state shared between the sender and its congestion control, in segments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CcState {
    pub cwnd: u64,
    pub ssthresh: u64,
    /// Sender MSS in bytes (payload per full segment).
    pub mss: u64,
    /// cwnd never grows past this (Linux snd_cwnd_clamp).
    pub cwnd_clamp: u64,
}

impl CcState {
    pub fn new(mss: u64) -> Self {
        CcState {
            cwnd: INIT_CWND,
            ssthresh: u64::MAX / 4, // "infinite", as Linux's TCP_INFINITE_SSTHRESH
            mss,
            cwnd_clamp: 1 << 20,
        }
    }
    /// Linux `tcp_in_slow_start`.
    pub fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }
}

/// A delivery-rate sample (Linux `struct rate_sample`, tcp_rate.c), in segments and us.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RateSample {
    /// Segments delivered over the interval.
    pub delivered: u64,
    /// Interval in microseconds: max(send interval, ACK interval).
    pub interval_us: u64,
    /// `delivered` count when the sampled segment was sent.
    pub prior_delivered: u64,
    /// The flow was application-limited when the sampled segment was sent.
    pub is_app_limited: bool,
}

/// What one ACK told the sender.
#[derive(Debug, Clone, Default)]
pub struct AckInfo {
    pub now_ns: u64,
    /// Segments newly acknowledged or SACKed by this ACK.
    pub acked: u64,
    /// RTT of the newest segment this ACK covered (Linux ca_rtt), us.
    pub rtt_us: Option<u64>,
    /// Windowed minimum RTT seen so far, us (0 = none).
    pub min_rtt_us: u64,
    /// Segments in flight after processing this ACK.
    pub in_flight: u64,
    /// Total segments delivered so far (Linux tp->delivered).
    pub delivered: u64,
    /// Segments newly marked lost while processing this ACK.
    pub newly_lost: u64,
    pub rate: Option<RateSample>,
    /// The ACK point and the send point, as stream offsets (for HyStart rounds).
    pub snd_una: u64,
    pub snd_nxt: u64,
    /// Smoothed RTT << 3, us (Linux srtt_us; 0 = none).
    pub srtt_us8: u64,
    /// Current pacing rate, bytes/s.
    pub pacing_rate: u64,
    /// The sender used all of cwnd recently (Linux tcp_is_cwnd_limited).
    pub cwnd_limited: bool,
    /// In fast recovery (Linux TCP_CA_Recovery; cwnd reduction is the sender's job then).
    pub in_recovery: bool,
    /// A window module (CUBIC) may grow cwnd on this ACK: not in a cwnd reduction and the
    /// ACK cumulatively acknowledged data (Linux `tcp_cong_control`: `!tcp_in_cwnd_reduction`
    /// and `tcp_may_raise_cwnd`, FLAG_DATA_ACKED at the default reordering). A SACK-only
    /// ACK runs `pkts_acked` (HyStart, min delay) but no `cong_avoid`.
    pub may_raise_cwnd: bool,
    /// In loss recovery after an RTO (Linux TCP_CA_Loss).
    pub in_loss: bool,
    /// Segments in flight before this ACK was processed (Linux `rs->prior_in_flight`).
    pub prior_in_flight: u64,
    /// The sender's departure clock (Linux `tp->tcp_wstamp_ns`), for BBR's in-network estimate.
    pub wstamp_ns: u64,
}

/// The congestion-control interface.
pub trait CongestionControl: std::fmt::Debug {
    fn name(&self) -> &'static str;
    /// Per ACK. For a "cong_avoid" module (CUBIC) the sender calls this only outside recovery.
    fn on_ack(&mut self, st: &mut CcState, ack: &AckInfo);
    /// New ssthresh when loss is detected (Linux `ssthresh` op).
    fn ssthresh(&mut self, st: &CcState) -> u64;
    /// A retransmission timeout happened (Linux CA_EVENT_LOSS / `tcp_enter_loss`).
    fn on_rto(&mut self, st: &mut CcState);
    /// The module's own pacing rate (bytes/s), or None to use `tcp_update_pacing_rate`.
    fn pacing_rate(&self) -> Option<u64> {
        None
    }
    /// True when the module runs the whole window itself (Linux `cong_control`, BBR): the
    /// sender then does not cut cwnd to ssthresh on loss and calls `on_ack` in recovery too.
    fn controls_window(&self) -> bool {
        false
    }
    /// Recovery started (loss detected) with `in_flight` segments out.
    fn on_recovery_start(&mut self, _st: &mut CcState, _in_flight: u64) {}
    /// Recovery ended.
    fn on_recovery_end(&mut self, _st: &mut CcState) {}
    /// Send buffer multiplier on cwnd (Linux `sndbuf_expand`, default 2, BBR 3).
    fn sndbuf_expand(&self) -> u64 {
        2
    }
    /// The module asks the sender to mark the flow application-limited now (Linux: BBR sets
    /// `tp->app_limited` in PROBE_RTT, `bbr_update_min_rtt`), so the low-rate samples taken
    /// with a 4-segment window do not enter its bandwidth filter.
    fn wants_app_limited(&self) -> bool {
        false
    }
    /// A short label of the module's state, for reports (e.g. BBR's mode).
    fn state_label(&self) -> String {
        String::new()
    }
}

/// Which module to use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CcKind {
    Cubic,
    Bbr,
}

impl CcKind {
    pub fn build(self, seed: u64) -> Box<dyn CongestionControl> {
        self.build_with(seed, true)
    }

    /// [`Self::build`]; `bbr_extra_acked`: BBR's ACK-aggregation cwnd term
    /// (`bbr_extra_acked_gain` 1.0 as Linux 4.20+, or 0).
    pub fn build_with(self, seed: u64, bbr_extra_acked: bool) -> Box<dyn CongestionControl> {
        match self {
            CcKind::Cubic => Box::new(Cubic::new()),
            CcKind::Bbr => {
                let mut b = Bbr::new(seed);
                if !bbr_extra_acked {
                    b.extra_acked_gain = 0;
                }
                Box::new(b)
            }
        }
    }
}
