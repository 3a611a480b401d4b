//! One EDT TCP sender connection.
//!
//! Shaped after Linux's transmit path and ACK processing:
//! - `xmit`: `tcp_write_xmit` + `tcp_xmit_retransmit_queue` (cwnd, receive window, TSQ,
//!   TSO autosizing, EDT stamping, internal pacing timer when the host paces);
//! - `on_completion`: the card's departure report; sets the segment's transmit time and
//!   `tcp_rate_skb_sent` state from the actual departure (EDT mode);
//! - `on_frame`: `tcp_rcv_synsent_state_process` and `tcp_ack` (SACK tagging, cumulative ACK,
//!   RTT estimator, RACK loss detection, recovery entry/exit, congestion control, pacing rate,
//!   timer re-arming);
//! - `on_timers`: `tcp_retransmit_timer` (RTO with exponential backoff),
//!   `tcp_send_loss_probe` (TLP) and `tcp_rack_reo_timeout`.
//!
//! Sequence numbers are kept internally as 64-bit stream offsets (offset 0 is the first data
//! byte, `iss + 1` on the wire), so wrap-around needs no special care.

use std::collections::{BTreeMap, HashMap, VecDeque};

use super::card::{Completion, TxPort, TxRequest, TxStatus};
use super::cc::{AckInfo, CcKind, CcState, CongestionControl, RateSample};
use super::frame::{self, tcp_flags, Endpoints, SegOptions};
use super::pacing::{self, EdtClock};
use super::recovery::{Rack, Seg, TxRate};
use super::rtt::RttEstimator;
use super::timer::{Timer, DEFAULT_TICK_NS};

/// Where RTT and rate samples are stamped, and who paces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PacingModel {
    /// EDT: the sender stamps `launch_ns`; samples use the card's actual departure time.
    Edt,
    /// Pre-EDT: an sch_fq-like pacer per flow releases packets at the pacing rate (with fq's
    /// quantum rule) and RTT/rate samples use the time the sender queued the packet.
    Queue,
}

/// Which time starts a segment's RTT and delivery-rate samples (`TcpSender::mark_sent`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SampleStamp {
    /// The launch time the sender stamped (Linux: `skb->skb_mstamp_ns = tp->tcp_wstamp_ns` in
    /// `__tcp_transmit_skb`, so time a frame waits on the NIC after its launch time counts in
    /// the RTT). The default.
    Scheduled,
    /// The card's reported departure (the EDT card tells us; Linux does not use it).
    Departure,
}

/// Who waits for the launch time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Pacer {
    /// The card holds each frame until its launch time; the sender posts ahead (within TSQ).
    Card,
    /// Linux internal pacing: the sender arms a timer at `wstamp_ns` and posts only when it
    /// fires (late by the injected wake-up jitter); the card then sends at once.
    Host,
}

pub use super::pacing::{FQ_LOW_RATE, FQ_QUANTUM};

/// Linux tcp_wmem[1]: the initial send buffer.
pub const TCP_WMEM_DEFAULT: u64 = 16_384;
/// Linux tcp_wmem[2]: the most tcp_sndbuf_expand grows it to.
pub const TCP_WMEM_MAX: u64 = 4 * 1024 * 1024;
/// Linux sysctl_tcp_reordering default.
pub const TCP_REORDERING: u64 = 3;
/// `tcp_sndbuf_expand`'s per-segment truesize on x86_64: mss_clamp 1460 + MAX_TCP_HEADER
/// (320) + aligned skb_shared_info (320) = 2100, rounded up to a power of two (4096), plus
/// the aligned sk_buff (256).
pub const SNDBUF_PER_MSS: u64 = 4096 + 256;

/// Settings of one connection.
#[derive(Debug, Clone)]
pub struct SenderConfig {
    pub ends: Endpoints,
    pub iss: u32,
    /// MSS we offer and cap ourselves to (Ethernet: 1460).
    pub mss: u16,
    pub wscale: u8,
    pub cc: CcKind,
    /// SO_MAX_PACING_RATE in bytes/s (u64::MAX = none).
    pub max_pacing_rate: u64,
    pub jitter_credit: bool,
    pub pacing_model: PacingModel,
    /// Every flow paced, as behind sch_fq (`SK_PACING_FQ`; the card doing fq's job, the default).
    /// false: Linux without fq, where a flow is paced only when its congestion control asks
    /// (BBR's `bbr_init` sets `SK_PACING_NEEDED`) or SO_MAX_PACING_RATE is set (`sock_setsockopt`
    /// does the same); otherwise `tcp_update_skb_after_send` leaves `tcp_wstamp_ns` alone and
    /// segments leave as cwnd and TSQ allow (CUBIC on this machine's kernel: no sch_fq built).
    pub fq: bool,
    pub pacer: Pacer,
    /// Timer tick for RTO/TLP/RACK timers (Linux jiffy; 1 ms = HZ 1000).
    pub tick_ns: u64,
    pub rto_min_us: u64,
    /// Where RTT/rate samples start in the EDT model (the Queue model always uses the time
    /// the segment was queued).
    pub stamp: SampleStamp,
    pub seed: u64,
    /// net.ipv4.tcp_slow_start_after_idle (Linux default 1): cwnd restarts after an idle
    /// period longer than the RTO (`tcp_cwnd_restart`).
    pub slow_start_after_idle: bool,
    /// net.ipv4.tcp_min_tso_segs (Linux default 2): the fewest segments per TSO burst.
    pub min_tso_segs: u64,
}

impl SenderConfig {
    pub fn new(ends: Endpoints, iss: u32, cc: CcKind) -> Self {
        SenderConfig {
            ends,
            iss,
            mss: 1460,
            wscale: 7,
            cc,
            max_pacing_rate: u64::MAX,
            jitter_credit: true,
            pacing_model: PacingModel::Edt,
            fq: true,
            pacer: Pacer::Card,
            tick_ns: DEFAULT_TICK_NS,
            rto_min_us: super::rtt::RTO_MIN_US,
            stamp: SampleStamp::Scheduled,
            seed: 1,
            slow_start_after_idle: true,
            min_tso_segs: pacing::MIN_TSO_SEGS,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum ConnState {
    Closed,
    SynSent,
    Established,
    /// Our FIN is queued or sent, not yet acknowledged.
    FinWait,
    /// Our FIN is acknowledged and the peer's FIN received and acknowledged.
    Done,
    /// The peer reset the connection.
    Reset,
    /// No SYN-ACK after the SYN and its `TCP_SYN_RETRIES` retransmissions (Linux: ETIMEDOUT).
    TimedOut,
}

/// Linux tcp_syn_retries default: 6 retransmissions (the last times out 127 s after the SYN).
pub const TCP_SYN_RETRIES: u32 = 6;

/// Linux's congestion-avoidance states that matter here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CaState {
    Open,
    /// Something is SACKed, duplicate-ACKed or retransmitted but no loss is proven yet
    /// (Linux TCP_CA_Disorder, `tcp_try_keep_open`).
    Disorder,
    Recovery,
    Loss,
}

#[derive(Debug, Clone, Copy)]
enum Posted {
    /// A data (or FIN) segment: stream offset and transmission number.
    Seg { off: u64, tx_count: u32, bytes: u64 },
    /// A SYN or a pure ACK.
    Control { bytes: u64, syn: bool },
}

/// A frame without payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Control {
    Syn,
    Ack,
    /// A zero-window probe.
    Probe,
    /// A reset from a closed socket (RFC 9293 3.10.7.1): (seq, Some(ack) with ACK set).
    Rst(u32, Option<u32>),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RetransPending {
    Rto,
    Tlp,
    Reo,
    /// Zero-window probe (Linux ICSK_TIME_PROBE0).
    Probe0,
}

/// Counters and samples a report is made from.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct SenderStats {
    /// srtt after every RTT sample, ns.
    pub srtt_ns: Vec<u64>,
    /// Raw RTT samples (Linux seq_rtt), ns.
    pub rtt_ns: Vec<u64>,
    pub data_segs_out: u64,
    pub data_bytes_departed: u64,
    pub retrans_segs: u64,
    pub tlp_probes: u64,
    pub rto_fires: u64,
    pub recoveries: u64,
    pub rack_marked_lost: u64,
    pub frames_sent_late: u64,
    /// departure - launch of each frame, ns (card lateness).
    pub launch_error_ns: Vec<u64>,
    /// (departure ns, payload bytes) of every data frame, for achieved-rate measurement.
    pub departures: Vec<(u64, u32)>,
    /// The launch time of each entry of `departures` (a burst's frames share one).
    pub departure_launch_ns: Vec<u64>,
    /// Times a send would have exceeded cwnd or the receive window (must stay 0).
    pub window_violations: u64,
    /// Times wstamp_ns moved backward (must stay 0).
    pub wstamp_backward: u64,
    pub bad_frames: u64,
    pub syn_sent_ns: u64,
    pub established_ns: u64,
    pub done_ns: Option<u64>,
    /// Highest byte offset acknowledged.
    pub acked_bytes: u64,
    pub peak_on_card_bytes: u64,
    /// Every valid delivery-rate sample: (segments delivered, interval us, app-limited).
    pub rate_samples: Vec<(u64, u64, bool)>,
    /// Host pacing (`Pacer::Host`): pacing-timer arms (only when a send finds the departure
    /// clock in the future, `tcp_pacing_check` since "tcp: optimize tcp internal pacing")...
    pub pacing_timer_arms: u64,
    /// ...the wake-ups they caused...
    pub pacing_timer_wakeups: u64,
    /// ...and the arms the kernel made before that patch: one after every paced send that
    /// moved the clock into the future (`tcp_internal_pacing` in tcp_update_skb_after_send).
    pub pacing_timer_arms_before_patch: u64,
}

/// The sender.
#[derive(Debug)]
pub struct TcpSender {
    cfg: SenderConfig,
    /// Hardware arrival time of the frame being handled (on_frame_rx), for RTT samples.
    rx_hw_ns: Option<u64>,
    pub state: ConnState,
    ca_state: CaState,
    pub cc_state: CcState,
    cc: Box<dyn CongestionControl>,
    pub rtt: RttEstimator,
    pub min_rtt_us: u64,
    pub edt: EdtClock,
    /// Current pacing rate, bytes/s.
    pub pacing_rate: u64,
    /// The pre-EDT sch_fq flow this connection sends through (Queue model only).
    fq: pacing::FqFlow,
    // Sequence state (stream offsets).
    pub snd_una: u64,
    pub snd_nxt: u64,
    /// End of the data the application has written.
    pub write_seq: u64,
    /// End of the last segment shorter than the MSS that was sent (Linux snd_sml).
    snd_sml: u64,
    /// Where Linux's skbs end (stream offsets at or above snd_una) and whether each carries
    /// PSH (`TCP_SKB_CB(skb)->tcp_flags & TCPHDR_PSH`): the write queue's skbs as
    /// `tcp_sendmsg_locked` builds them (size_goal each, PSH by `tcp_push` / `forced_push`),
    /// split where a TSO packet was cut from them (`tso_fragment`, `tcp_fragment`: the first
    /// part loses PSH, the rest keeps it). The tail skb's end is listed once it is pushed.
    skb_ends: BTreeMap<u64, bool>,
    /// Linux `pushed_seq`: write_seq at the last PSH mark.
    pushed_seq: u64,
    /// Linux `max_window`: the largest receive window the peer offered, bytes.
    max_window: u64,
    fin_queued: bool,
    fin_sent: bool,
    peer_fin: bool,
    /// Receive window advertised by the peer, bytes (already scaled).
    pub snd_wnd: u64,
    snd_wscale: u8,
    sack_ok: bool,
    /// The peer's SYN carried a window scale (a passive open echoes the option only then).
    peer_wscale_ok: bool,
    ts_ok: bool,
    ts_recent: u32,
    peer_irs: u32,
    /// Payload bytes per full segment.
    pub mss: u64,
    rtx: VecDeque<Seg>,
    posted: HashMap<u64, Posted>,
    next_cookie: u64,
    cookie_base: u64,
    /// Bytes posted to the card and not yet departed (TSQ accounting).
    pub bytes_on_card: u64,
    departed_unacked: u64,
    /// Linux sk_sndbuf (see `sndbuf_bytes`).
    sndbuf: u64,
    /// SO_SNDBUF was set: the buffer no longer grows (SOCK_SNDBUF_LOCK).
    sndbuf_locked: bool,
    // Delivery-rate state (Linux tp->delivered, delivered_mstamp, first_tx_mstamp, app_limited).
    pub delivered: u64,
    delivered_ns: u64,
    first_tx_ns: u64,
    app_limited_until: u64,
    // Recovery.
    high_seq: u64,
    /// PRR state (Linux prior_cwnd, prr_delivered, prr_out).
    prior_cwnd: u64,
    prr_delivered: u64,
    prr_out: u64,
    /// RACK and SACK-reordering state (recovery.rs).
    rack: Rack,
    /// Without SACK: duplicate ACKs counted as delivered segments (Linux `sacked_out` of a
    /// Reno connection).
    reno_sacked: u64,
    /// Linux `tp->reordering`: the reordering degree in segments (sysctl 3, grown by
    /// `tcp_check_sack_reordering`), and `tp->reord_seen`: reordering events.
    reordering: u64,
    reord_seen: u64,
    /// In-order data bytes received from the peer (the sender keeps none of it).
    rcv_bytes: u32,
    /// Linux `lsndtime`: when data was last sent.
    lsnd_ns: u64,
    /// The latest time the sender was called with (writes carry none; `write_at` sets it).
    now_ns: u64,
    /// Zero-window probes sent without an answer (Linux `icsk_backoff` of the probe timer).
    probe_backoff: u32,
    tlp_high_seq: Option<u64>,
    rto_backoff: u32,
    /// RTO retransmissions since snd_una last advanced (Linux `icsk_retransmits`).
    rto_retransmits: u32,
    // cwnd validation (Linux tcp_cwnd_validate).
    is_cwnd_limited: bool,
    max_packets_out: u64,
    cwnd_usage_seq: u64,
    // Timers.
    retrans_timer: Timer,
    retrans_pending: RetransPending,
    pacing_timer: Timer,
    /// Extra wake-up delay to add to the next pacing timer (injected jitter, ns).
    pub next_wakeup_jitter_ns: u64,
    syn_tx_ns: Option<u64>,
    syn_retries: u32,
    /// Passive open (`accept`): our SYN is a SYN-ACK, the handshake ends on the peer's ACK.
    passive: bool,
    /// close() came in SYN_SENT: the socket is gone (Linux `tcp_close` -> TCP_CLOSE, no RST then);
    /// what still arrives for it is answered as by a closed port.
    aborted: bool,
    pub stats: SenderStats,
}

/// A `struct tcp_info` view of the sender (Linux `tcp_get_info`), for the packetdrill
/// runner's `%{ }%` assertions. Fields the sender does not model are `None`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TcpInfo {
    /// `icsk_ca_state`: 0 Open, 1 Disorder, 2 CWR, 3 Recovery, 4 Loss.
    pub ca_state: u64,
    pub snd_cwnd: u64,
    /// `TCP_INFINITE_SSTHRESH` (0x7fffffff) while ssthresh is unset, as Linux reports it.
    pub snd_ssthresh: u64,
    /// RTO with backoff, us, in whole timer ticks (Linux keeps icsk_rto in jiffies).
    pub rto_us: u64,
    /// packets_out.
    pub unacked: u64,
    pub sacked: u64,
    pub lost: u64,
    /// retrans_out: retransmitted segments still in flight.
    pub retrans: u64,
    pub total_retrans: u64,
    /// srtt (`srtt_us >> 3`) and rttvar (`mdev_us >> 2`), us, as tcp_get_info; min_rtt, us.
    pub rtt_us: u64,
    pub rttvar_us: u64,
    pub min_rtt_us: u64,
    pub snd_mss: u64,
    pub notsent_bytes: u64,
    pub delivered: u64,
    pub reordering: u64,
    pub reord_seen: u64,
}

/// The rate-sample candidate of one ACK (Linux `struct rate_sample` while it is filled).
#[derive(Debug, Clone, Copy)]
struct RateAcc {
    rate: TxRate,
    tx_ns: u64,
    end: u64,
}

/// Linux `tcp_rate_skb_delivered` + `tcp_skb_sent_after`: of the segments one ACK delivers,
/// the sample comes from the one sent last (ties broken by the higher end sequence), and the
/// connection's `first_tx` moves to its transmit time, for every delivered segment that is
/// sent after the current candidate, whether or not the sample turns out valid.
fn rate_skb_delivered(rs: &mut Option<RateAcc>, first_tx: &mut u64, r: TxRate, tx: u64, end: u64) {
    let later = match rs {
        None => true,
        Some(p) => tx > *first_tx || (tx == *first_tx && end > p.end),
    };
    if later {
        *first_tx = tx;
        *rs = Some(RateAcc {
            rate: r,
            tx_ns: tx,
            end,
        });
    }
}

fn seq_of(iss: u32, off: u64) -> u32 {
    iss.wrapping_add(1).wrapping_add(off as u32)
}

impl TcpSender {
    /// A closed connection; `cookie_base` is put in the high bits of every completion cookie
    /// so a shared card can be demultiplexed.
    pub fn new(cfg: SenderConfig, cookie_base: u64) -> Self {
        let mss = u64::from(cfg.mss) - frame::TS_OPTION_LEN as u64;
        let cc = cfg.cc.build(cfg.seed);
        let rto_min = cfg.rto_min_us;
        let jc = cfg.jitter_credit;
        TcpSender {
            state: ConnState::Closed,
            ca_state: CaState::Open,
            cc_state: CcState::new(mss),
            cc,
            rtt: RttEstimator::new(rto_min),
            rx_hw_ns: None,
            min_rtt_us: 0,
            edt: EdtClock::new(jc),
            pacing_rate: 0,
            fq: pacing::FqFlow::default(),
            snd_una: 0,
            snd_nxt: 0,
            write_seq: 0,
            snd_sml: 0,
            skb_ends: BTreeMap::new(),
            pushed_seq: 0,
            max_window: 0,
            fin_queued: false,
            fin_sent: false,
            peer_fin: false,
            snd_wnd: 65535,
            snd_wscale: 0,
            sack_ok: false,
            peer_wscale_ok: false,
            ts_ok: false,
            ts_recent: 0,
            peer_irs: 0,
            mss,
            rtx: VecDeque::new(),
            posted: HashMap::new(),
            next_cookie: 0,
            cookie_base,
            bytes_on_card: 0,
            departed_unacked: 0,
            sndbuf: TCP_WMEM_DEFAULT,
            sndbuf_locked: false,
            delivered: 0,
            delivered_ns: 0,
            first_tx_ns: 0,
            app_limited_until: 0,
            high_seq: 0,
            prior_cwnd: 0,
            prr_delivered: 0,
            prr_out: 0,
            rack: Rack::default(),
            reno_sacked: 0,
            reordering: TCP_REORDERING,
            reord_seen: 0,
            rcv_bytes: 0,
            lsnd_ns: 0,
            now_ns: 0,
            probe_backoff: 0,
            tlp_high_seq: None,
            rto_backoff: 0,
            rto_retransmits: 0,
            is_cwnd_limited: false,
            max_packets_out: 0,
            cwnd_usage_seq: 0,
            retrans_timer: Timer::default(),
            retrans_pending: RetransPending::Rto,
            pacing_timer: Timer::default(),
            next_wakeup_jitter_ns: 0,
            syn_tx_ns: None,
            syn_retries: 0,
            aborted: false,
            passive: false,
            stats: SenderStats::default(),
            cfg,
        }
    }

    pub fn config(&self) -> &SenderConfig {
        &self.cfg
    }
    pub fn cc_name(&self) -> &'static str {
        self.cc.name()
    }
    pub fn cc_label(&self) -> String {
        self.cc.state_label()
    }
    pub fn ca_state(&self) -> CaState {
        self.ca_state
    }

    /// Segments in flight (Linux tcp_packets_in_flight: out - sacked - lost + retransmitted).
    /// Without SACK the duplicate ACKs counted in `reno_sacked` stand for segments that left.
    pub fn in_flight(&self) -> u64 {
        (self.rtx.iter().filter(|s| !s.sacked && !s.lost).count() as u64)
            .saturating_sub(self.reno_sacked)
    }

    /// The next sequence number expected from the peer (Linux `rcv_nxt`).
    fn rcv_nxt(&self) -> u32 {
        self.peer_irs
            .wrapping_add(1)
            .wrapping_add(self.rcv_bytes)
            .wrapping_add(u32::from(self.peer_fin))
    }

    /// Linux `tcp_highest_sack_seq`: the start of the highest SACKed segment, snd_una if none.
    fn highest_sack_seq(&self) -> u64 {
        self.rtx
            .iter()
            .rev()
            .find(|s| s.sacked)
            .map_or(self.snd_una, |s| s.off)
    }

    /// Linux `tcp_check_sack_reordering`: a delivery at `low` below the highest SACKed segment
    /// is reordering; the degree grows to the distance in segments (at most
    /// tcp_max_reordering 300).
    fn check_sack_reordering(&mut self, low: u64) {
        let fack = self.highest_sack_seq();
        if low >= fack {
            return;
        }
        let metric = fack - low;
        let mss = self.mss.max(1);
        if metric > self.reordering * mss {
            self.reordering = metric.div_ceil(mss).min(300);
        }
        self.reord_seen += 1;
        self.rack.reord_seen = true;
    }

    /// Linux `tcp_add_reno_sack`: a duplicate ACK without SACK counts one more segment as
    /// delivered (`sacked_out`, capped by `tcp_limit_reno_sacked`). Returns the segments newly
    /// counted.
    fn add_reno_sack(&mut self) -> u64 {
        let prior = self.reno_sacked;
        self.reno_sacked += 1;
        self.limit_reno_sacked();
        self.reno_sacked.saturating_sub(prior)
    }

    /// Linux `tcp_limit_reno_sacked`: duplicate ACKs never count more segments than are out,
    /// less the holes (at least one).
    fn limit_reno_sacked(&mut self) {
        let out = self.rtx.len() as u64;
        let lost = self.rtx.iter().filter(|s| s.lost).count() as u64;
        let holes = lost.max(1).min(out);
        if self.reno_sacked + holes > out {
            self.reno_sacked = out - holes;
        }
    }

    /// Unsent bytes the application has written (Linux notsent bytes).
    pub fn notsent_bytes(&self) -> u64 {
        self.write_seq
            .saturating_sub(self.snd_nxt.min(self.write_seq))
    }

    /// Bytes held by the sender: written and not yet acknowledged.
    pub fn buffered_bytes(&self) -> u64 {
        self.write_seq
            .saturating_sub(self.snd_una.min(self.write_seq))
    }

    /// Earliest timer deadline, if any.
    pub fn next_timer_ns(&self) -> Option<u64> {
        [self.retrans_timer.deadline(), self.pacing_timer.deadline()]
            .into_iter()
            .flatten()
            .min()
    }

    /// Timers that fired before their exact deadline (0 unless there is a bug).
    pub fn early_timer_fires(&self) -> u64 {
        self.retrans_timer.early_fires + self.pacing_timer.early_fires
    }

    /// The application writes `n` more bytes (Linux `tcp_sendmsg`, which first checks
    /// whether the flow was application-limited).
    ///
    /// The bytes go into skbs as `tcp_sendmsg_locked` builds them: appended to the unsent
    /// tail skb while it is shorter than size_goal (which clears its PSH), else into new
    /// skbs of size_goal; a full skb is pushed with PSH when the unpushed data exceeds half
    /// the peer's largest window (`forced_push`); at the end `tcp_push` marks the tail skb
    /// PSH (no MSG_MORE).
    pub fn write(&mut self, n: u64) {
        self.sendmsg(n, None, None);
    }

    /// A non-blocking `send` at `now` (Linux `tcp_sendmsg_locked` with MSG_DONTWAIT): bytes
    /// are copied while a new skb may be started (`sk_stream_memory_free`: the send queue
    /// under sk_sndbuf and unsent bytes under `notsent_lowat`); full skbs are sent as they
    /// fill (`tcp_push_one`, or all that cwnd allows on a forced push), and appending to the
    /// unsent rest of a partly sent skb needs no check. Returns the bytes accepted. The
    /// completions `port` reports meanwhile are consumed here, so the port must serve this
    /// sender alone (the packetdrill runner's does).
    pub fn send_nonblocking(
        &mut self,
        now: u64,
        n: u64,
        notsent_lowat: u64,
        port: &mut dyn TxPort,
    ) -> u64 {
        self.now_ns = self.now_ns.max(now);
        self.sendmsg(n, Some(notsent_lowat), Some((now, port)))
    }

    /// `tcp_sendmsg_locked`. `lowat`: stop (non-blocking) where a new skb is refused;
    /// `io`: send while writing as Linux does (else everything goes at the next `xmit`).
    fn sendmsg(
        &mut self,
        n: u64,
        lowat: Option<u64>,
        mut io: Option<(u64, &mut dyn TxPort)>,
    ) -> u64 {
        if self.fin_queued {
            return 0;
        }
        self.check_app_limited();
        let size_goal = self.size_goal();
        let mut left = n;
        let mut copied = 0;
        while left > 0 {
            let tail_start = self
                .skb_ends
                .range(..self.write_seq)
                .next_back()
                .map_or(0, |(&k, _)| k)
                .max(self.snd_nxt);
            let mut copy = if self.write_seq > self.snd_nxt {
                size_goal.saturating_sub(self.write_seq - tail_start)
            } else {
                0
            };
            // the tail skb's PSH goes with its end as it grows, except that the first copy
            // of a write clears it (`if (!copied) tcp_flags &= ~TCPHDR_PSH`)
            let mut psh = false;
            if copy == 0 {
                // new_segment
                if let Some(lowat) = lowat {
                    if self.wmem_queued() >= self.sndbuf || self.notsent_bytes() >= lowat {
                        break; // wait_for_space: a non-blocking call returns
                    }
                }
                self.skb_ends.entry(self.write_seq).or_insert(false);
                copy = size_goal;
                self.slow_start_after_idle_check(); // tcp_skb_entail
            } else {
                psh = self.skb_ends.remove(&self.write_seq).unwrap_or(false) && copied > 0;
            }
            let c = copy.min(left);
            self.write_seq += c;
            left -= c;
            copied += c;
            if psh {
                self.skb_ends.insert(self.write_seq, true);
            }
            if left == 0 {
                break;
            }
            // the skb is full: forced_push marks it and pushes all; else tcp_push_one
            let forced = self.write_seq > self.pushed_seq + (self.max_window >> 1);
            if forced {
                self.mark_push();
            }
            if let Some((now, port)) = io.as_mut() {
                self.xmit_inner(*now, &mut **port, !forced);
                // what left by now has left (a tun device frees its skbs at once: TSQ sees
                // none queued); the port is this sender's alone
                for c in port.poll(*now) {
                    self.on_completion(&c);
                }
            }
        }
        if copied > 0 {
            self.mark_push(); // tcp_push without MSG_MORE
        }
        copied
    }

    /// Linux `tcp_slow_start_after_idle_check`: with nothing in flight and no data sent for
    /// longer than the RTO, cwnd restarts (`tcp_cwnd_restart`): ssthresh keeps at least 3/4
    /// of cwnd, cwnd halves per RTO idle down to the initial window (never below it, nor
    /// above cwnd). Not for a module that runs the window itself (BBR: `cong_control`).
    fn slow_start_after_idle_check(&mut self) {
        if !self.cfg.slow_start_after_idle || !self.rtx.is_empty() || self.cc.controls_window() {
            return;
        }
        let now = self.now_ns;
        let rto = crate::edt::timer::deadline_round_up(0, self.rto_ns(), self.cfg.tick_ns);
        let mut delta = now.saturating_sub(self.lsnd_ns) as i128;
        if delta <= i128::from(rto) {
            return;
        }
        let cwnd0 = self.cc_state.cwnd;
        if self.ca_state != CaState::Recovery {
            // tcp_current_ssthresh
            self.cc_state.ssthresh = self.cc_state.ssthresh.max((cwnd0 >> 1) + (cwnd0 >> 2));
        }
        let restart = super::cc::INIT_CWND.min(cwnd0);
        let mut cwnd = cwnd0;
        loop {
            delta -= i128::from(rto);
            if delta <= 0 || cwnd <= restart {
                break;
            }
            cwnd >>= 1;
        }
        self.cc_state.cwnd = cwnd.max(restart);
    }

    /// [`Self::write`] at time `now` (the idle check of `tcp_skb_entail` reads the clock).
    pub fn write_at(&mut self, now: u64, n: u64) {
        self.now_ns = self.now_ns.max(now);
        self.write(n);
    }

    /// Linux `tcp_mark_push` on the write queue's tail skb (which ends at write_seq).
    fn mark_push(&mut self) {
        self.skb_ends.insert(self.write_seq, true);
        self.pushed_seq = self.write_seq;
    }

    /// Linux `tcp_xmit_size_goal`: the payload of one write-queue skb: the device's GSO
    /// limit (`sk_gso_max_size` = 65536 - (MAX_TCP_HEADER 320 + 1), `sk_dst_gso_max_size`),
    /// at most half the peer's largest window (`tcp_bound_to_half_wnd`), in whole MSS.
    pub fn size_goal(&self) -> u64 {
        const GSO_MAX: u64 = 65_536 - 321;
        let half = if self.max_window > 536 {
            self.max_window >> 1
        } else {
            self.max_window
        };
        let goal = if half > 0 && GSO_MAX > half {
            half.max(68 - 20 - if self.ts_ok { 12 } else { 0 })
        } else {
            GSO_MAX
        };
        (goal / self.mss.max(1)).max(1) * self.mss
    }

    /// Linux `tcp_rate_check_app_limited`: the flow is application-limited when less than
    /// one MSS is left to send, nothing waits on the card, cwnd is not full and every lost
    /// segment has been retransmitted. Rate samples of segments sent until the data in
    /// flight now is delivered are then marked app-limited.
    pub fn check_app_limited(&mut self) {
        let in_flight = self.in_flight();
        if self.notsent_bytes() < self.mss
            && self.bytes_on_card == 0
            && in_flight < self.cc_state.cwnd
            && !self.rtx.iter().any(|s| s.lost)
        {
            self.app_limited_until = (self.delivered + in_flight).max(1);
        }
    }

    /// The flow is marked application-limited (Linux `tp->app_limited != 0`).
    pub fn is_app_limited(&self) -> bool {
        self.app_limited_until != 0
    }

    /// The application is done: send FIN after the data.
    pub fn close(&mut self) {
        if self.state == ConnState::SynSent && !self.passive {
            // Linux tcp_close in SYN_SENT: straight to TCP_CLOSE, nothing sent, no SYN retry
            self.state = ConnState::Closed;
            self.aborted = true;
            self.retrans_timer.cancel();
            return;
        }
        self.fin_queued = true;
    }

    /// The connection is over: done, reset or timed out.
    pub fn is_finished(&self) -> bool {
        matches!(
            self.state,
            ConnState::Done | ConnState::Reset | ConnState::TimedOut
        )
    }

    /// SYN retransmissions so far.
    pub fn syn_retransmits(&self) -> u32 {
        self.syn_retries
    }

    /// The send buffer (Linux `sk_sndbuf`, bytes of memory): tcp_wmem[1] (16 KB) at first,
    /// grown by [`Self::sndbuf_expand`], never shrunk.
    pub fn sndbuf_bytes(&self) -> u64 {
        self.sndbuf
    }

    /// setsockopt(SO_SNDBUF, `val`) (Linux `sk_setsockopt`): sk_sndbuf = 2 x min(val,
    /// wmem_max 212992), at least SOCK_MIN_SNDBUF (4608), and locked against
    /// `tcp_sndbuf_expand`.
    pub fn set_sndbuf(&mut self, val: u64) {
        self.sndbuf = (val.min(212_992) * 2).max(4608);
        self.sndbuf_locked = true;
    }

    /// Memory the send queue holds (Linux `sk_wmem_queued`). The application writes in
    /// 64 KB chunks, which Linux keeps in GSO-sized skbs of page fragments whose truesize is
    /// close to their payload; this model counts the payload.
    pub fn wmem_queued(&self) -> u64 {
        self.buffered_bytes()
    }

    /// Linux `tcp_sndbuf_expand`: room for `sndbuf_expand` (2, BBR 3) x max(cwnd, 10,
    /// reordering + 1) segments at their worst-case (non-GSO) truesize, at most tcp_wmem[2];
    /// only ever grows.
    fn sndbuf_expand(&mut self) {
        if self.sndbuf_locked {
            return; // SOCK_SNDBUF_LOCK: the application set SO_SNDBUF
        }
        let nr_segs = self
            .cc_state
            .cwnd
            .max(super::cc::INIT_CWND)
            .max(TCP_REORDERING + 1);
        let sndmem = self.cc.sndbuf_expand() * nr_segs * SNDBUF_PER_MSS;
        if self.sndbuf < sndmem {
            self.sndbuf = sndmem.min(TCP_WMEM_MAX);
        }
    }

    fn ts_val(now: u64) -> u32 {
        (now / 1_000_000) as u32 // 1 ms timestamp clock, as Linux
    }

    fn new_cookie(&mut self, p: Posted) -> u64 {
        self.next_cookie += 1;
        let c = self.cookie_base | self.next_cookie;
        self.posted.insert(c, p);
        c
    }

    fn adv_window(&self) -> u16 {
        // We receive no data; advertise a large window.
        (1u32 << 16).saturating_sub(1) as u16
    }

    /// Active open: post the SYN.
    pub fn connect(&mut self, now: u64, port: &mut dyn TxPort) {
        self.state = ConnState::SynSent;
        self.stats.syn_sent_ns = now;
        self.post_syn(now, port);
    }

    /// Passive open (Linux `tcp_conn_request` + `tcp_rcv_state_process`): take the peer's SYN
    /// `syn` (a frame) and post our SYN-ACK; the connection is established when the peer's
    /// ACK of it arrives (`on_frame`). A frame that is not a SYN is an error and changes
    /// nothing.
    pub fn accept(
        &mut self,
        now: u64,
        syn: &[u8],
        port: &mut dyn TxPort,
    ) -> Result<(), super::EdtError> {
        let seg = frame::parse(syn)?;
        if seg.flags & (tcp_flags::SYN | tcp_flags::ACK | tcp_flags::RST) != tcp_flags::SYN {
            return Err(super::EdtError::BadFrame(
                "accept needs a SYN without ACK or RST",
            ));
        }
        self.take_peer_syn(&seg);
        self.passive = true;
        self.state = ConnState::SynSent;
        self.stats.syn_sent_ns = now;
        self.post_syn(now, port);
        Ok(())
    }

    /// The peer's SYN or SYN-ACK options (`tcp_rcv_synsent_state_process` /
    /// `tcp_openreq_init`): ISN, SACK, timestamps, window scale, MSS.
    fn take_peer_syn(&mut self, seg: &frame::Segment) {
        self.peer_irs = seg.seq;
        self.sack_ok = seg.options.sack_permitted;
        self.ts_ok = seg.options.timestamps.is_some();
        if let Some((val, _)) = seg.options.timestamps {
            self.ts_recent = val;
        }
        // Scaling applies only when both sides sent the option (RFC 7323 2.2).
        self.snd_wscale = seg.options.wscale.unwrap_or(0).min(14);
        self.peer_wscale_ok = seg.options.wscale.is_some();
        let peer_mss = u64::from(seg.options.mss.unwrap_or(536));
        let opt = if self.ts_ok {
            frame::TS_OPTION_LEN as u64
        } else {
            0
        };
        // Linux TCP_MIN_MSS (88) floors a peer's tiny or zero MSS option.
        self.mss = peer_mss.min(u64::from(self.cfg.mss)).max(88) - opt;
        self.cc_state.mss = self.mss;
        self.snd_wnd = u64::from(seg.window); // not scaled in a SYN
    }

    /// The `tcp_info` view (Linux `tcp_get_info`).
    pub fn tcp_info(&self) -> TcpInfo {
        let ca_state = match self.ca_state {
            CaState::Open => 0,
            CaState::Disorder => 1,
            CaState::Recovery => 3,
            CaState::Loss => 4,
        };
        TcpInfo {
            ca_state,
            snd_cwnd: self.cc_state.cwnd,
            snd_ssthresh: self.cc_state.ssthresh.min(0x7fff_ffff),
            // icsk_rto is kept in jiffies (usecs_to_jiffies rounds up): whole ticks
            rto_us: crate::edt::timer::deadline_round_up(0, self.rto_ns(), self.cfg.tick_ns) / 1000,
            unacked: self.rtx.len() as u64,
            sacked: self.rtx.iter().filter(|s| s.sacked).count() as u64 + self.reno_sacked,
            lost: self.rtx.iter().filter(|s| s.lost).count() as u64,
            retrans: self
                .rtx
                .iter()
                .filter(|s| s.tx_count > 1 && !s.sacked && !s.lost)
                .count() as u64,
            total_retrans: self.stats.retrans_segs,
            rtt_us: self.rtt.srtt(),
            rttvar_us: self.rtt.mdev_us >> 2,
            min_rtt_us: self.min_rtt_us,
            snd_mss: self.mss,
            notsent_bytes: self.notsent_bytes(),
            delivered: self.delivered,
            reordering: self.reordering,
            reord_seen: self.reord_seen,
        }
    }

    fn post_syn(&mut self, now: u64, port: &mut dyn TxPort) {
        self.post_control(now, Control::Syn, port);
        self.syn_tx_ns = None;
        // SYN timeout: 1 s, doubled per retry (Linux TCP_TIMEOUT_INIT).
        let rto = (super::rtt::RTO_INIT_US * 1000) << self.syn_retries.min(6);
        self.retrans_timer.arm(now, rto, self.cfg.tick_ns);
        self.retrans_pending = RetransPending::Rto;
    }

    fn post_pure_ack(&mut self, now: u64, port: &mut dyn TxPort) {
        self.post_control(now, Control::Ack, port);
    }

    /// The one path for frames without payload (Linux `tcp_transmit_skb` of a SYN or of
    /// `tcp_send_ack`): build, post with launch = now (control frames are not paced) and
    /// remember the cookie so the completion is consumed (and a SYN's departure kept for
    /// the handshake RTT).
    fn post_control(&mut self, now: u64, kind: Control, port: &mut dyn TxPort) {
        let (seq, ack, flags, opts) = match kind {
            // tcp_make_synack: options only where the peer's SYN offered them.
            Control::Syn if self.passive => (
                self.cfg.iss,
                self.peer_irs.wrapping_add(1),
                tcp_flags::SYN | tcp_flags::ACK,
                SegOptions {
                    mss: Some(self.cfg.mss),
                    wscale: self.peer_wscale_ok.then_some(self.cfg.wscale),
                    sack_permitted: self.sack_ok,
                    timestamps: self.ts_ok.then_some((Self::ts_val(now), self.ts_recent)),
                    sack: vec![],
                },
            ),
            Control::Syn => (
                self.cfg.iss,
                0,
                tcp_flags::SYN,
                SegOptions {
                    mss: Some(self.cfg.mss),
                    wscale: Some(self.cfg.wscale),
                    sack_permitted: true,
                    timestamps: Some((Self::ts_val(now), 0)),
                    sack: vec![],
                },
            ),
            Control::Rst(seq, ack) => (
                seq,
                ack.unwrap_or(0),
                tcp_flags::RST | if ack.is_some() { tcp_flags::ACK } else { 0 },
                SegOptions::default(),
            ),
            // tcp_xmit_probe_skb: an ACK whose sequence the peer has seen (snd_una - 1)
            Control::Probe => (
                seq_of(self.cfg.iss, self.snd_una).wrapping_sub(1),
                self.rcv_nxt(),
                tcp_flags::ACK,
                SegOptions {
                    timestamps: self.ts_ok.then_some((Self::ts_val(now), self.ts_recent)),
                    ..Default::default()
                },
            ),
            Control::Ack => (
                seq_of(self.cfg.iss, self.snd_nxt),
                self.rcv_nxt(),
                tcp_flags::ACK,
                SegOptions {
                    timestamps: self.ts_ok.then_some((Self::ts_val(now), self.ts_recent)),
                    ..Default::default()
                },
            ),
        };
        if !port.accepts() {
            return; // the local queue drops it (tcp_transmit_skb fails)
        }
        let f = frame::build(
            &self.cfg.ends,
            seq,
            ack,
            flags,
            self.adv_window(),
            &opts,
            &[],
        );
        let cookie = self.new_cookie(Posted::Control {
            bytes: f.len() as u64,
            syn: kind == Control::Syn,
        });
        port.post(
            now,
            TxRequest {
                launch_ns: now,
                frame: f,
                cookie,
            },
        );
    }

    fn build_data_frame(&self, now: u64, seg: &Seg, psh: bool) -> Vec<u8> {
        let payload: Vec<u8> = (seg.off..seg.off + u64::from(seg.len))
            .map(super::frame::pattern_byte)
            .collect();
        let mut fl = tcp_flags::ACK;
        if seg.fin {
            fl |= tcp_flags::FIN;
        }
        if psh {
            fl |= tcp_flags::PSH;
        }
        let opts = SegOptions {
            timestamps: self.ts_ok.then_some((Self::ts_val(now), self.ts_recent)),
            ..Default::default()
        };
        frame::build(
            &self.cfg.ends,
            seq_of(self.cfg.iss, seg.off),
            self.rcv_nxt(),
            fl,
            self.adv_window(),
            &opts,
            &payload,
        )
    }

    fn update_pacing_rate(&mut self) {
        let rate = match self.cc.pacing_rate() {
            Some(r) => r,
            None => pacing::tcp_pacing_rate(
                self.mss,
                self.cc_state.cwnd,
                self.rtx.len() as u64,
                self.cc_state.ssthresh,
                self.rtt.srtt_us,
                u64::MAX,
            ),
        };
        self.pacing_rate = rate.min(self.cfg.max_pacing_rate);
    }

    /// Whether this flow's departures are paced (`sk_pacing_status != SK_PACING_NONE`).
    pub fn paced(&self) -> bool {
        self.cfg.fq || self.cfg.cc == CcKind::Bbr || self.cfg.max_pacing_rate != u64::MAX
    }

    /// Stamp and post a burst of segments (indices into rtx) as one TSO-like unit.
    fn post_burst(&mut self, now: u64, idxs: &[usize], port: &mut dyn TxPort) {
        let burst_bytes: u64 = idxs.iter().map(|&i| u64::from(self.rtx[i].len)).sum();
        if self.ca_state == CaState::Recovery {
            self.prr_out += idxs.len() as u64;
        }
        let data_segs = idxs.len() as u64;
        if idxs.iter().any(|&i| self.rtx[i].len > 0) {
            self.lsnd_ns = now; // tcp_event_data_sent
        }
        let launch = match self.cfg.pacing_model {
            PacingModel::Edt => {
                let before = self.edt.wstamp_ns;
                let (launch, prior) = self.edt.stamp(now);
                // an unpaced flow (no fq, no SK_PACING_NEEDED): the stamp stays at now
                let rate = if self.paced() { self.pacing_rate } else { 0 };
                self.edt.after_send(burst_bytes, data_segs, rate, prior);
                if self.cfg.pacer == Pacer::Host && self.edt.wstamp_ns > now {
                    self.stats.pacing_timer_arms_before_patch += 1;
                }
                if self.edt.wstamp_ns < before {
                    self.stats.wstamp_backward += 1;
                }
                launch
            }
            PacingModel::Queue => {
                // Pre-EDT: TCP hands the burst (one GSO packet) to sch_fq at once; fq's flow
                // credit and time_next_packet decide when it leaves (pacing::FqFlow).
                self.edt.data_segs_out += data_segs;
                let hdr = frame::BASE_HEADERS as u64
                    + if self.ts_ok {
                        frame::TS_OPTION_LEN as u64
                    } else {
                        0
                    };
                let plen: u64 = idxs.iter().map(|&i| u64::from(self.rtx[i].len) + hdr).sum();
                self.fq.enqueue(now, plen, self.pacing_rate)
            }
        };
        let psh = self.tso_packets_psh(idxs);
        for (k, &i) in idxs.iter().enumerate() {
            let f = self.build_data_frame(now, &self.rtx[i], psh[k]);
            let bytes = f.len() as u64;
            let seg = &mut self.rtx[i];
            if seg.tx_count > 0 {
                self.stats.retrans_segs += 1;
                if seg.tx_ns.is_some() {
                    self.departed_unacked -= 1;
                }
            }
            seg.tx_count += 1;
            seg.tx_ns = None;
            seg.lost = false;
            seg.on_card = true;
            let (off, txc) = (seg.off, seg.tx_count);
            match (self.cfg.pacing_model, self.cfg.stamp) {
                // Pre-EDT stacks stamped the skb when TCP handed it to the qdisc.
                (PacingModel::Queue, _) => self.mark_sent(i, now),
                // Linux EDT: skb_mstamp_ns is the departure time it scheduled.
                (PacingModel::Edt, SampleStamp::Scheduled) => self.mark_sent(i, launch),
                (PacingModel::Edt, SampleStamp::Departure) => {}
            }
            let cookie = self.new_cookie(Posted::Seg {
                off,
                tx_count: txc,
                bytes,
            });
            self.bytes_on_card += bytes;
            self.stats.peak_on_card_bytes = self.stats.peak_on_card_bytes.max(self.bytes_on_card);
            port.post(
                now,
                TxRequest {
                    launch_ns: launch,
                    frame: f,
                    cookie,
                },
            );
        }
    }

    /// The PSH flag of each frame of a burst (indices into rtx, in order). Linux sends one
    /// TSO packet per skb (or the part of it cwnd allows), so the burst is cut where an skb
    /// ends and where the segments are not contiguous; each cut is recorded as an skb end
    /// (`tso_fragment` / `tcp_fragment` leave PSH on the second part only). A TSO packet's
    /// last segment carries PSH when the packet has more than one segment
    /// (`__tcp_transmit_skb` forces PSH on every GSO packet) or its skb was marked PSH
    /// (`tcp_mark_push`); GSO segmentation clears PSH on every other segment.
    fn tso_packets_psh(&mut self, idxs: &[usize]) -> Vec<bool> {
        let mut psh = vec![false; idxs.len()];
        let mut start = 0;
        for k in 0..idxs.len() {
            let s = &self.rtx[idxs[k]];
            let end = s.off + u64::from(s.len); // a FIN takes no byte of an skb's data
            let last = k + 1 == idxs.len()
                || self.rtx[idxs[k + 1]].off != end
                || self.skb_ends.contains_key(&end);
            if !last {
                continue;
            }
            let marked = *self.skb_ends.entry(end).or_insert(false);
            let data_segs = idxs[start..=k]
                .iter()
                .filter(|&&i| self.rtx[i].len > 0)
                .count();
            psh[k] = self.rtx[idxs[k]].len > 0 && (data_segs > 1 || marked);
            start = k + 1;
        }
        psh
    }

    /// Linux `tcp_rate_skb_sent`, at the segment's transmit time.
    fn mark_sent(&mut self, i: usize, tx_ns: u64) {
        if self.departed_unacked == 0 {
            self.first_tx_ns = tx_ns;
            self.delivered_ns = tx_ns;
        }
        let rate = TxRate {
            delivered: self.delivered,
            delivered_ns: self.delivered_ns,
            first_tx_ns: self.first_tx_ns,
            app_limited: self.app_limited_until != 0,
        };
        let seg = &mut self.rtx[i];
        seg.rate = rate;
        seg.tx_ns = Some(tx_ns);
        self.departed_unacked += 1;
    }

    fn find_seg(&self, off: u64) -> Option<usize> {
        self.rtx.binary_search_by(|s| s.off.cmp(&off)).ok()
    }

    /// The card reports a departure.
    pub fn on_completion(&mut self, c: &Completion) {
        let Some(p) = self.posted.remove(&c.cookie) else {
            return;
        };
        if c.status == TxStatus::SentLate {
            self.stats.frames_sent_late += 1;
        }
        self.stats
            .launch_error_ns
            .push(c.depart_ns.saturating_sub(c.launch_ns));
        match p {
            Posted::Control { bytes, syn } => {
                let _ = bytes;
                if syn {
                    self.syn_tx_ns = Some(c.depart_ns);
                }
            }
            Posted::Seg {
                off,
                tx_count,
                bytes,
            } => {
                self.bytes_on_card = self.bytes_on_card.saturating_sub(bytes);
                if let Some(i) = self.find_seg(off) {
                    if self.rtx[i].tx_count == tx_count {
                        self.rtx[i].on_card = false;
                        let len = self.rtx[i].len;
                        self.stats.data_bytes_departed += u64::from(len);
                        self.stats.departures.push((c.depart_ns, len));
                        self.stats.departure_launch_ns.push(c.launch_ns);
                        if self.cfg.pacing_model == PacingModel::Edt
                            && self.cfg.stamp == SampleStamp::Departure
                        {
                            // Samples start from the card's actual departure.
                            self.mark_sent(i, c.depart_ns);
                        }
                    }
                }
            }
        }
    }

    /// Stream offset for a 32-bit ACK number (relative to snd_una; RFC 9293 modular).
    fn ack_off(&self, ack: u32) -> i128 {
        let base = seq_of(self.cfg.iss, self.snd_una);
        self.snd_una as i128 + i128::from(ack.wrapping_sub(base) as i32)
    }

    /// Handle a frame the host sees at `now` that the card stamped arriving at `arrival_ns`: RTT
    /// samples run from the hardware departure to this hardware arrival (issue 13).
    pub fn on_frame_rx(&mut self, now: u64, arrival_ns: u64, bytes: &[u8], port: &mut dyn TxPort) {
        self.rx_hw_ns = Some(arrival_ns.min(now));
        self.on_frame(now, bytes, port);
        self.rx_hw_ns = None;
    }

    /// The arrival time RTT samples end at: the card's stamp when there is one, else `now`.
    fn rx_time(&self, now: u64) -> u64 {
        self.rx_hw_ns.unwrap_or(now)
    }

    /// Handle a frame that arrived from the network at `now`.
    pub fn on_frame(&mut self, now: u64, bytes: &[u8], port: &mut dyn TxPort) {
        self.now_ns = self.now_ns.max(now);
        let seg = match frame::parse(bytes) {
            Ok(s) => s,
            Err(_) => {
                self.stats.bad_frames += 1;
                return;
            }
        };
        let e = &self.cfg.ends;
        if seg.ends.src_port != e.dst_port || seg.ends.dst_port != e.src_port {
            return;
        }
        if self.aborted {
            // RFC 9293 3.10.7.1 (CLOSED): an incoming RST is dropped; anything else gets a RST,
            // <SEQ=SEG.ACK><CTL=RST> if it carries an ACK, else <SEQ=0><ACK=SEG.SEQ+SEG.LEN>
            // <CTL=RST,ACK> (Linux tcp_v4_send_reset for a segment no socket takes).
            if seg.flags & tcp_flags::RST == 0 {
                let rst = if seg.flags & tcp_flags::ACK != 0 {
                    Control::Rst(seg.ack, None)
                } else {
                    let len = u32::try_from(seg.payload_len).unwrap_or(u32::MAX)
                        + u32::from(seg.flags & tcp_flags::SYN != 0)
                        + u32::from(seg.flags & tcp_flags::FIN != 0);
                    Control::Rst(0, Some(seg.seq.wrapping_add(len)))
                };
                self.post_control(now, rst, port);
            }
            return;
        }
        if seg.flags & tcp_flags::RST != 0 {
            // RFC 9293 3.10.7: a reset in window (or answering our SYN) aborts the connection.
            self.state = ConnState::Reset;
            self.retrans_timer.cancel();
            self.pacing_timer.cancel();
            return;
        }
        match self.state {
            ConnState::SynSent
                if seg.flags & (tcp_flags::SYN | tcp_flags::ACK)
                    == tcp_flags::SYN | tcp_flags::ACK
                    && seg.ack == self.cfg.iss.wrapping_add(1) =>
            {
                self.established(now, &seg, port);
            }
            ConnState::SynSent
                if self.passive
                    && seg.flags & (tcp_flags::SYN | tcp_flags::ACK) == tcp_flags::ACK
                    && seg.ack == self.cfg.iss.wrapping_add(1) =>
            {
                self.established(now, &seg, port);
            }
            ConnState::Established | ConnState::FinWait => self.on_ack(now, &seg, port),
            _ => {}
        }
    }

    fn established(&mut self, now: u64, seg: &frame::Segment, port: &mut dyn TxPort) {
        if self.passive {
            // The handshake's final ACK: its window is scaled (the SYN's options are taken).
            if !self.peer_wscale_ok {
                self.snd_wscale = 0;
            }
            self.snd_wnd = u64::from(seg.window) << self.snd_wscale;
            if let Some((val, _)) = seg.options.timestamps {
                self.ts_recent = val;
            }
        } else {
            self.take_peer_syn(seg);
        }
        // tcp_rcv_synsent_state_process / tcp_create_openreq_child: max_window = snd_wnd
        self.max_window = self.snd_wnd;
        if let Some(t) = self.syn_tx_ns {
            // Linux takes an RTT sample from the SYN-ACK (tcp_synack_rtt_meas).
            let rtt_us = (self.rx_time(now).saturating_sub(t) / 1000).max(1);
            self.rtt.sample(rtt_us, 0, 0);
            self.min_rtt_us = rtt_us;
            self.record_srtt();
        }
        self.retrans_timer.cancel();
        self.state = ConnState::Established;
        self.stats.established_ns = now;
        // tcp_init_transfer -> tcp_init_buffer_space -> tcp_sndbuf_expand.
        self.sndbuf_expand();
        self.update_pacing_rate();
        if !self.passive {
            self.post_pure_ack(now, port);
        }
    }

    fn record_srtt(&mut self) {
        self.stats.srtt_ns.push(self.rtt.srtt_us * 125); // (us << 3) * 125 = ns
    }

    /// RACK loss detection over the scoreboard (recovery::Rack::detect_loss) with the
    /// reordering window of `tcp_rack_reo_wnd`. Returns (newly lost, time until the next
    /// candidate expires).
    fn rack_detect_loss(&mut self, now: u64) -> (u64, Option<u64>) {
        let sacked = self.rtx.iter().filter(|s| s.sacked).count();
        let reo_wnd_us = super::recovery::rack_reo_wnd_us(
            self.min_rtt_us,
            self.rtt.srtt(),
            self.rack.reord_seen,
            matches!(self.ca_state, CaState::Recovery | CaState::Loss),
            sacked,
        );
        let (lost, wait) = self.rack.detect_loss(&mut self.rtx, reo_wnd_us, now);
        self.stats.rack_marked_lost += lost;
        (lost, wait)
    }

    fn on_ack(&mut self, now: u64, seg: &frame::Segment, port: &mut dyn TxPort) {
        // RTT samples end at the card's arrival stamp when the frame came through its RX path
        let rx_now = self.rx_time(now);
        let ack = self.ack_off(seg.ack);
        if ack > self.snd_nxt as i128 {
            return; // acknowledges data never sent (RFC 9293: send an ACK, drop)
        }
        if let Some((val, _)) = seg.options.timestamps {
            self.ts_recent = val;
        }
        // Data from the peer: in-order bytes advance rcv_nxt; each data segment is ACKed at
        // once below (quick ACK: `tcp_event_data_recv` in its first segments; out of order:
        // a duplicate ACK). The bytes are not kept.
        let data_in = seg.payload_len > 0;
        if data_in && seg.seq == self.rcv_nxt() {
            self.rcv_bytes = self
                .rcv_bytes
                .wrapping_add(u32::try_from(seg.payload_len).unwrap_or(0));
        }
        let prior_wnd = self.snd_wnd;
        let prior_packets = self.rtx.len();
        self.snd_wnd = u64::from(seg.window) << self.snd_wscale;
        self.max_window = self.max_window.max(self.snd_wnd); // tcp_ack_update_window
        if self.snd_wnd != prior_wnd && self.write_seq > self.snd_nxt {
            self.slow_start_after_idle_check();
        }
        let prior_una = self.snd_una;
        let prior_in_flight = self.in_flight();
        let mut acked_segs = 0u64;
        // Rate sample: from the most recently sent of the delivered segments; first_tx
        // moves with it (tcp_rate_skb_delivered).
        let mut rs: Option<RateAcc> = None;
        let mut first_tx = self.first_tx_ns;
        // Linux first_sackt / last_sackt: transmit times of the first and last newly SACKed
        // never-retransmitted segments.
        let mut first_sackt: Option<u64> = None;
        let mut last_sackt: Option<u64> = None;
        let mut rack_updates: Vec<(u64, u64, bool)> = Vec::new();

        let prior_fack = self.highest_sack_seq();
        let mut data_sacked = false;
        // --- SACK blocks (tcp_sacktag_write_queue), as stream offsets.
        if self.sack_ok {
            let una_seq = seq_of(self.cfg.iss, self.snd_una);
            let base = self.snd_una as i128;
            let blocks: Vec<(i128, i128)> = seg
                .options
                .sack
                .iter()
                .map(|&(l, r)| {
                    (
                        base + i128::from(l.wrapping_sub(una_seq) as i32),
                        base + i128::from(r.wrapping_sub(una_seq) as i32),
                    )
                })
                .collect();
            let tag = super::recovery::sacktag(
                &mut self.rtx,
                &blocks,
                self.snd_una,
                self.snd_nxt,
                &mut self.rack,
            );
            acked_segs += tag.newly_sacked;
            data_sacked = tag.newly_sacked > 0;
            if let Some(r) = tag.reord {
                if self.ca_state != CaState::Loss {
                    self.check_sack_reordering(r);
                }
            }
            first_sackt = tag.first_sackt;
            last_sackt = tag.last_sackt;
            for d in tag.delivered {
                rate_skb_delivered(&mut rs, &mut first_tx, d.rate, d.tx_ns, d.end);
                rack_updates.push((d.tx_ns, d.end, d.retrans));
            }
        }

        // --- Cumulative ACK (tcp_clean_rtx_queue).
        let mut first_ackt: Option<u64> = None;
        let mut last_ackt: Option<u64> = None;
        // Linux FLAG_RETRANS_DATA_ACKED: the cumulative ACK covered retransmitted data, whose
        // timing is ambiguous (Karn): no RTT sample from the cumulative ACK then.
        let mut retrans_data_acked = false;
        // lowest never-retransmitted segment the cumulative ACK covers (Linux `reord` of
        // tcp_clean_rtx_queue)
        let mut cum_reord: Option<u64> = None;
        if ack > self.snd_una as i128 {
            let ack = ack as u64;
            while let Some(s) = self.rtx.front() {
                if s.end() > ack {
                    break;
                }
                let Some(s) = self.rtx.pop_front() else { break };
                if s.tx_ns.is_some() {
                    self.departed_unacked = self.departed_unacked.saturating_sub(1);
                }
                if !s.sacked {
                    acked_segs += 1;
                    retrans_data_acked |= s.tx_count > 1;
                    if let Some(tx) = s.tx_ns {
                        if s.tx_count == 1 {
                            first_ackt.get_or_insert(tx);
                            last_ackt = Some(tx);
                            cum_reord.get_or_insert(s.off);
                        }
                        rate_skb_delivered(&mut rs, &mut first_tx, s.rate, tx, s.end());
                        rack_updates.push((tx, s.end(), s.tx_count > 1));
                    }
                }
            }
            self.snd_una = ack;
            self.skb_ends = self.skb_ends.split_off(&ack);
            self.stats.acked_bytes = self.snd_una.min(self.write_seq);
        }
        let advanced = self.snd_una > prior_una;
        if let Some(r) = cum_reord {
            if r < prior_fack {
                self.check_sack_reordering(r);
            }
        }
        // A duplicate ACK (tcp_ack: none of FLAG_NOT_DUP = data, window update, data acked).
        let dupack = prior_packets > 0
            && !advanced
            && seg.payload_len == 0
            && seg.flags & tcp_flags::FIN == 0
            && self.snd_wnd == prior_wnd;
        if !self.sack_ok {
            acked_segs = self.reno_delivered(acked_segs, advanced, dupack);
        }
        for (tx, end, re) in rack_updates {
            self.rack.advance(tx, end, re, now, self.min_rtt_us);
        }
        if acked_segs > 0 {
            self.delivered += acked_segs;
            self.delivered_ns = now;
        }
        if self.app_limited_until != 0 && self.delivered > self.app_limited_until {
            self.app_limited_until = 0;
        }

        // --- RTT (tcp_clean_rtx_queue + tcp_ack_update_rtt): seq_rtt from the oldest newly
        // acked segment for the estimator, ca_rtt from the newest for min_rtt and congestion
        // control; none from the cumulative ACK when it covered retransmitted data; else
        // from SACKed segments. A transmit time after now (a segment scheduled ahead and
        // acknowledged as its ACK overtakes the stamp) gives no sample.
        if retrans_data_acked {
            first_ackt = None;
            last_ackt = None;
        }
        // (rx_now: the ACK's arrival, the card's RX stamp when the card has an RX path)
        let since = |t: u64| rx_now.checked_sub(t);
        let seq_rtt = first_ackt.and_then(since).or(first_sackt.and_then(since));
        let ca_rtt = last_sackt.and_then(since).or(last_ackt.and_then(since));
        if let Some(r) = seq_rtt {
            let us = (r / 1000).max(1);
            self.rtt.sample(us, self.snd_una, self.snd_nxt);
            self.stats.rtt_ns.push(r);
            self.record_srtt();
            // RFC 6298 / tcp_ack_update_rtt: only a valid RTT sample resets the backoff.
            self.rto_backoff = 0;
        }
        if let Some(r) = ca_rtt {
            let us = (r / 1000).max(1);
            if self.min_rtt_us == 0 || us < self.min_rtt_us {
                self.min_rtt_us = us;
            }
        }

        self.first_tx_ns = first_tx;

        // --- Rate sample (tcp_rate_gen): over the longer of the send and the ACK interval.
        let rate = rs.and_then(|a| {
            let r = a.rate;
            let delivered = self.delivered - r.delivered;
            let snd_us = a.tx_ns.saturating_sub(r.first_tx_ns) / 1000;
            let ack_us = now.saturating_sub(r.delivered_ns) / 1000;
            let interval = snd_us.max(ack_us);
            if interval < self.min_rtt_us || delivered == 0 {
                return None; // shorter than an RTT: not trustworthy
            }
            Some(RateSample {
                delivered,
                interval_us: interval,
                prior_delivered: r.delivered,
                is_app_limited: r.app_limited,
            })
        });
        if let Some(r) = rate {
            self.stats
                .rate_samples
                .push((r.delivered, r.interval_us, r.is_app_limited));
        }

        // --- RACK loss detection.
        let mut newly_lost = 0;
        // Linux tcp_rack_mark_lost clears FLAG_SET_XMIT_TIMER when it arms the reordering
        // timer, so the RTO/TLP re-arm below does not overwrite it on the same ACK.
        let mut rack_armed = false;
        // (tcp_identify_packet_loss: RACK with SACK, tcp_newreno_mark_lost without)
        if self.sack_ok && (self.rack.advanced || self.ca_state != CaState::Open) {
            self.rack.advanced = false;
            let (lost, wait) = self.rack_detect_loss(now);
            newly_lost = lost;
            if let Some(w) = wait {
                let t = super::recovery::rack_reo_timeout_ns(w);
                self.retrans_timer.arm(now, t, self.cfg.tick_ns);
                self.retrans_pending = RetransPending::Reo;
                rack_armed = true;
            }
        }

        // --- Recovery state machine (tcp_fastretrans_alert; no undo).
        let prior_state = self.ca_state;
        let mut hold = false;
        if matches!(self.ca_state, CaState::Recovery | CaState::Loss)
            && self.snd_una >= self.high_seq
        {
            if !self.sack_ok && self.snd_una == self.high_seq {
                // tcp_is_non_sack_preventing_reopen: without SACK the state holds until
                // something above high_seq is acknowledged (RFC 6582)
                hold = true;
            } else {
                if self.cc.controls_window() {
                    self.cc.on_recovery_end(&mut self.cc_state);
                } else if self.ca_state == CaState::Recovery {
                    self.cc_state.cwnd = self.cc_state.ssthresh.max(2);
                }
                self.ca_state = CaState::Open;
            }
        }
        if !self.sack_ok && !hold && self.newreno_mark_lost(advanced) {
            newly_lost += 1;
            self.stats.rack_marked_lost += 1;
        }
        if newly_lost > 0 && matches!(self.ca_state, CaState::Open | CaState::Disorder) {
            self.enter_recovery();
        } else if !hold
            && matches!(self.ca_state, CaState::Open | CaState::Disorder)
            && (dupack || data_sacked || prior_state != CaState::Open)
        {
            self.try_keep_open();
        }
        if self.ca_state == CaState::Recovery && !self.cc.controls_window() {
            self.cwnd_reduction(acked_segs, newly_lost, advanced);
        }
        if let Some(h) = self.tlp_high_seq {
            if self.snd_una >= h {
                self.tlp_high_seq = None;
            }
        }

        // --- Congestion control.
        let info = AckInfo {
            now_ns: now,
            acked: acked_segs,
            rtt_us: ca_rtt.map(|r| (r / 1000).max(1)),
            min_rtt_us: self.min_rtt_us,
            in_flight: self.in_flight(),
            delivered: self.delivered,
            newly_lost,
            rate,
            snd_una: self.snd_una,
            snd_nxt: self.snd_nxt,
            srtt_us8: self.rtt.srtt_us,
            pacing_rate: self.pacing_rate,
            cwnd_limited: self.cwnd_limited(),
            in_recovery: self.ca_state == CaState::Recovery,
            in_loss: self.ca_state == CaState::Loss,
            // tcp_may_raise_cwnd: beyond the default reordering, any forward progress
            may_raise_cwnd: self.ca_state != CaState::Recovery
                && if self.reordering > TCP_REORDERING {
                    advanced || data_sacked
                } else {
                    advanced
                },
            prior_in_flight,
            wstamp_ns: self.edt.wstamp_ns,
        };
        // tcp_clean_rtx_queue -> pkts_acked on every ACK, then tcp_cong_control
        self.cc.on_ack(&mut self.cc_state, &info);
        if self.cc.wants_app_limited() {
            // bbr_update_min_rtt in PROBE_RTT: tp->app_limited = delivered + in flight.
            self.app_limited_until = (self.delivered + self.in_flight()).max(1);
        }
        self.update_pacing_rate();

        // tcp_check_space -> tcp_new_space: freed send-queue memory may grow the buffer
        // (tcp_should_expand_sndbuf: not when cwnd is full).
        if advanced && self.in_flight() < self.cc_state.cwnd {
            self.sndbuf_expand();
        }

        // --- Timers (tcp_ack: FLAG_SET_XMIT_TIMER -> tcp_set_xmit_timer).
        if advanced {
            self.rto_retransmits = 0;
        }
        if self.rtx.is_empty() {
            if self.retrans_pending == RetransPending::Probe0
                && self.retrans_timer.deadline().is_some()
                && self.zero_window()
            {
                // tcp_ack_probe: the window is still closed: probe again after the backoff
                let t = self.probe0_when();
                self.retrans_timer.arm(now, t, self.cfg.tick_ns);
            } else {
                self.retrans_timer.cancel();
                self.probe_backoff = 0;
            }
        } else if !rack_armed && (advanced || self.retrans_timer.deadline().is_none()) {
            self.rearm_rto(now);
            self.schedule_loss_probe(now, true);
        }

        if data_in {
            self.post_pure_ack(now, port);
        }

        // --- FIN handling.
        if self.fin_sent
            && self.snd_una > self.write_seq
            && self.state == ConnState::FinWait
            && seg.flags & tcp_flags::FIN != 0
        {
            self.peer_fin = true;
            self.post_pure_ack(now, port);
            self.state = ConnState::Done;
            self.stats.done_ns = Some(now);
            self.retrans_timer.cancel();
        }
        self.xmit(now, port);
    }

    /// Without SACK, this ACK's delivered segments (Linux `tcp_remove_reno_sacks` in
    /// `tcp_clean_rtx_queue`, then `tcp_reset_reno_sack` / `tcp_add_reno_sack` in
    /// `tcp_fastretrans_alert`): a cumulative ACK of `acked` segments delivers those the
    /// duplicate ACKs did not already count (at least one); a duplicate ACK delivers one.
    fn reno_delivered(&mut self, acked: u64, advanced: bool, dupack: bool) -> u64 {
        let mut delivered = 0;
        if advanced {
            delivered = acked.saturating_sub(self.reno_sacked).max(1);
            self.reno_sacked = self.reno_sacked.saturating_sub(acked.saturating_sub(1));
            self.limit_reno_sacked();
        }
        let state = self.ca_state;
        if matches!(state, CaState::Recovery | CaState::Loss) && self.snd_una >= self.high_seq {
            self.reno_sacked = 0; // recovery ends or holds (tcp_reset_reno_sack)
            return delivered;
        }
        match state {
            CaState::Recovery => {
                if !advanced && dupack {
                    delivered += self.add_reno_sack();
                }
            }
            CaState::Loss => {
                if advanced {
                    self.reno_sacked = 0;
                }
            }
            CaState::Open | CaState::Disorder => {
                if advanced {
                    self.reno_sacked = 0;
                }
                if dupack {
                    delivered += self.add_reno_sack();
                }
            }
        }
        delivered
    }

    /// Linux `tcp_newreno_mark_lost`: without SACK, the head segment is lost once the
    /// duplicate ACKs reach the reordering degree (3) outside recovery, or on a partial ACK
    /// in recovery. True if it was newly marked.
    fn newreno_mark_lost(&mut self, advanced: bool) -> bool {
        let go = (matches!(self.ca_state, CaState::Open | CaState::Disorder)
            && self.reno_sacked >= TCP_REORDERING)
            || (self.ca_state == CaState::Recovery && advanced);
        match self.rtx.front_mut() {
            // TCPCB_LOST stays set on a retransmitted skb
            Some(h) if go && !h.lost && h.tx_count == 1 => {
                h.lost = true;
                true
            }
            _ => false,
        }
    }

    /// Linux `tcp_try_keep_open`: Disorder while anything is SACKed, counted by duplicate
    /// ACKs, lost or retransmitted and unacknowledged, else Open; high_seq moves on a change.
    fn try_keep_open(&mut self) {
        let left_out = self.reno_sacked > 0 || self.rtx.iter().any(|s| s.sacked || s.lost);
        let retrans = self.rtx.iter().any(|s| s.tx_count > 1);
        let state = if left_out || retrans {
            CaState::Disorder
        } else {
            CaState::Open
        };
        if self.ca_state != state {
            self.ca_state = state;
            self.high_seq = self.snd_nxt;
        }
    }

    /// Linux `tcp_enter_loss` (RTO): every unSACKed segment is lost (`tcp_timeout_mark_lost`);
    /// ssthresh is cut only if it was not already cut for this window: from Open, after
    /// recovery ended (snd_una reached high_seq), or in Loss before any RTO retransmission;
    /// cwnd = in flight + 1; the module hears of the Loss state (CUBIC resets, BBR ends the
    /// round).
    fn enter_loss(&mut self) {
        for s in self.rtx.iter_mut() {
            if !s.sacked {
                s.lost = true;
            }
        }
        self.reno_sacked = 0; // tcp_timeout_mark_lost: every unSACKed segment is lost
        if matches!(self.ca_state, CaState::Open | CaState::Disorder)
            || self.snd_una >= self.high_seq
            || (self.ca_state == CaState::Loss && self.rto_retransmits == 0)
        {
            let ss = self.cc.ssthresh(&self.cc_state);
            self.cc_state.ssthresh = ss;
        }
        self.cc_state.cwnd = self.in_flight() + 1;
        self.ca_state = CaState::Loss;
        self.cc.on_rto(&mut self.cc_state);
        self.high_seq = self.snd_nxt;
        self.tlp_high_seq = None;
    }

    /// Enter fast recovery (Linux `tcp_enter_recovery` + `tcp_init_cwnd_reduction`).
    fn enter_recovery(&mut self) {
        self.ca_state = CaState::Recovery;
        self.stats.recoveries += 1;
        self.high_seq = self.snd_nxt;
        // tcp_init_cwnd_reduction: every module's ssthresh op runs (BBR's saves cwnd).
        let inflight = self.in_flight();
        self.prior_cwnd = self.cc_state.cwnd;
        self.prr_delivered = 0;
        self.prr_out = 0;
        let ss = self.cc.ssthresh(&self.cc_state);
        self.cc_state.ssthresh = ss;
        self.cc.on_recovery_start(&mut self.cc_state, inflight);
    }

    /// Proportional Rate Reduction (RFC 6937, Linux `tcp_cwnd_reduction`): while in flight
    /// is above ssthresh, send `ssthresh / prior_cwnd` of what is delivered; below it, grow
    /// back toward ssthresh by at most what was delivered (+1 when snd_una advanced and
    /// nothing new was lost). At least one segment on entry (the fast retransmit).
    fn cwnd_reduction(&mut self, newly_acked_sacked: u64, newly_lost: u64, una_advanced: bool) {
        if newly_acked_sacked == 0 {
            return; // tcp_cwnd_reduction: `if (newly_acked_sacked <= 0) return`
        }
        self.prr_delivered += newly_acked_sacked;
        let inflight = self.in_flight();
        let sndcnt = super::recovery::prr_sndcnt(
            inflight,
            self.cc_state.ssthresh,
            self.prior_cwnd,
            self.prr_delivered,
            self.prr_out,
            newly_acked_sacked,
            una_advanced && newly_lost == 0,
        );
        self.cc_state.cwnd = (inflight + sndcnt).max(1);
    }

    fn cwnd_limited(&self) -> bool {
        if self.is_cwnd_limited {
            return true;
        }
        self.cc_state.in_slow_start() && self.cc_state.cwnd < 2 * self.max_packets_out
    }

    fn rto_ns(&self) -> u64 {
        let base = self.rtt.rto_us() * 1000;
        (base << self.rto_backoff.min(16)).min(super::rtt::RTO_MAX_US * 1000)
    }

    /// Unsent data waits on a receive window with no room (the send head is beyond it).
    fn zero_window(&self) -> bool {
        self.write_seq > self.snd_nxt && self.snd_nxt >= self.snd_una + self.snd_wnd
    }

    /// Linux `tcp_probe0_when`: the probe timer, `tcp_probe0_base` (the RTO, at least
    /// TCP_RTO_MIN) doubled per unanswered probe, at most TCP_RTO_MAX (120 s).
    fn probe0_when(&self) -> u64 {
        let base = self.rto_ns().max(super::rtt::RTO_MIN_US * 1000);
        (base << self.probe_backoff.min(10)).min(super::rtt::RTO_MAX_US * 1000)
    }

    /// Linux `tcp_rearm_rto`.
    fn rearm_rto(&mut self, now: u64) {
        if self.rtx.is_empty() {
            self.retrans_timer.cancel();
            return;
        }
        let t = self.rto_ns() + self.pacing_delay_ns(now);
        self.retrans_timer.arm(now, t, self.cfg.tick_ns);
        self.retrans_pending = RetransPending::Rto;
    }

    /// Linux `tcp_pacing_delay`: how far the departure clock runs ahead of now. RTO and TLP
    /// timers are pushed back by it (`tcp_reset_xmit_timer`), so a segment still waiting for
    /// its launch time is not declared lost.
    fn pacing_delay_ns(&self, now: u64) -> u64 {
        self.edt.wstamp_ns.saturating_sub(now)
    }

    /// Linux `tcp_schedule_loss_probe`: PTO = 2 x srtt plus 2 ticks (plus the 200 ms delayed-
    /// ACK allowance when only one segment is out), never later than the RTO.
    /// `advancing_rto`: the RTO was just re-armed from now (on an ACK); else the cap is the
    /// time left until the RTO of the oldest outstanding segment (`tcp_rto_delta_us`).
    fn schedule_loss_probe(&mut self, now: u64, advancing_rto: bool) {
        if self.ca_state != CaState::Open || self.rtx.is_empty() || !self.sack_ok {
            return;
        }
        if self.tlp_high_seq.is_some() {
            return;
        }
        let pto =
            super::recovery::tlp_timeout_ns(self.rtt.srtt(), self.rtx.len(), self.cfg.rto_min_us);
        // Probe no later than the RTO would fire.
        let rto_delta = if advancing_rto {
            self.rto_ns()
        } else {
            self.rto_delta_ns(now)
        };
        let pto = pto.min(rto_delta) + self.pacing_delay_ns(now);
        self.retrans_timer.arm(now, pto, self.cfg.tick_ns);
        self.retrans_pending = RetransPending::Tlp;
    }

    /// Linux `tcp_rto_delta_us`: time until the RTO of the oldest outstanding segment
    /// (its transmit time + RTO), the whole RTO while it has no transmit time yet.
    fn rto_delta_ns(&self, now: u64) -> u64 {
        match self.rtx.front().and_then(|s| s.tx_ns) {
            Some(tx) => (tx + self.rto_ns()).saturating_sub(now),
            None => self.rto_ns(),
        }
    }

    /// Run the timers that are due at `now`.
    pub fn on_timers(&mut self, now: u64, port: &mut dyn TxPort) {
        self.now_ns = self.now_ns.max(now);
        if self.pacing_timer.fire_due(now) {
            self.stats.pacing_timer_wakeups += 1;
            self.xmit(now, port);
        }
        if !self.retrans_timer.fire_due(now) {
            return;
        }
        match self.state {
            ConnState::SynSent => {
                if self.syn_retries >= TCP_SYN_RETRIES {
                    self.state = ConnState::TimedOut;
                    self.pacing_timer.cancel();
                    return;
                }
                self.syn_retries += 1;
                self.post_syn(now, port);
                return;
            }
            ConnState::Established | ConnState::FinWait => {}
            _ => return,
        }
        if self.retrans_pending == RetransPending::Probe0 {
            // tcp_probe_timer -> tcp_send_probe0
            if !self.rtx.is_empty() || !self.zero_window() {
                self.probe_backoff = 0;
                self.xmit(now, port);
                return;
            }
            self.post_control(now, Control::Probe, port);
            self.probe_backoff = (self.probe_backoff + 1).min(15); // tcp_retries2
            let t = self.probe0_when();
            self.retrans_timer.arm(now, t, self.cfg.tick_ns);
            return;
        }
        if self.rtx.is_empty() {
            return;
        }
        match self.retrans_pending {
            RetransPending::Reo => {
                let (lost, wait) = self.rack_detect_loss(now);
                if lost > 0 && matches!(self.ca_state, CaState::Open | CaState::Disorder) {
                    self.enter_recovery();
                    if !self.cc.controls_window() {
                        // tcp_rack_reo_timeout: tcp_cwnd_reduction(sk, 1, lost, 0), PRR's
                        // "at least one on entry" (the fast retransmit)
                        self.cwnd_reduction(1, lost, false);
                    }
                }
                if let Some(w) = wait {
                    let t = super::recovery::rack_reo_timeout_ns(w);
                    self.retrans_timer.arm(now, t, self.cfg.tick_ns);
                    self.retrans_pending = RetransPending::Reo;
                } else {
                    self.rearm_rto(now);
                }
                self.xmit(now, port);
            }
            RetransPending::Tlp => {
                // Linux tcp_send_loss_probe: probe with new data if allowed, else retransmit
                // the last segment; tlp_high_seq is recorded only if a probe went out.
                let before = self.snd_nxt;
                self.xmit_new_one(now, port);
                let mut sent = self.snd_nxt != before;
                if !sent {
                    // Linux skb_still_in_host_queue: never retransmit a segment the card has
                    // not sent yet.
                    if let Some(i) = (0..self.rtx.len()).rev().find(|&i| !self.rtx[i].sacked) {
                        if !self.rtx[i].on_card && port.accepts() {
                            self.post_burst(now, &[i], port);
                            sent = true;
                        }
                    }
                }
                if sent {
                    self.stats.tlp_probes += 1;
                    self.tlp_high_seq = Some(self.snd_nxt);
                }
                self.rearm_rto(now);
            }
            RetransPending::Probe0 => {}
            RetransPending::Rto => {
                self.stats.rto_fires += 1;
                self.enter_loss();
                self.rto_backoff += 1;
                self.rto_retransmits += 1;
                self.update_pacing_rate();
                self.xmit(now, port);
                self.retrans_timer.arm(now, self.rto_ns(), self.cfg.tick_ns);
                self.retrans_pending = RetransPending::Rto;
            }
        }
    }

    /// Send one new segment regardless of cwnd (the TLP probe), if data and window allow.
    fn xmit_new_one(&mut self, now: u64, port: &mut dyn TxPort) {
        let rwnd_end = self.snd_una + self.snd_wnd;
        let avail = self.write_seq - self.snd_nxt.min(self.write_seq);
        if avail == 0 || self.snd_nxt >= rwnd_end || !port.accepts() {
            return;
        }
        let len = avail.min(self.mss).min(rwnd_end - self.snd_nxt);
        let i = self.push_seg(len, false);
        self.post_burst(now, &[i], port);
    }

    /// A segment shorter than the MSS at the tail of the write queue waits (the next write
    /// may fill it) while frames of this flow are on the card or about to be
    /// (`tcp_should_autocork`), or while an earlier short segment is unacknowledged (Nagle
    /// with Minshall's rule, `tcp_nagle_check`). A FIN pushes it out.
    fn hold_partial_tail(&self, burst_pending: bool) -> bool {
        let autocork = burst_pending || self.bytes_on_card > 0;
        let minshall = self.snd_sml > self.snd_una && self.snd_sml <= self.snd_nxt;
        autocork || (minshall && !self.rtx.is_empty())
    }

    fn push_seg(&mut self, len: u64, fin: bool) -> usize {
        let s = Seg {
            off: self.snd_nxt,
            len: len as u32,
            fin,
            tx_count: 0,
            tx_ns: None,
            on_card: false,
            sacked: false,
            lost: false,
            rate: TxRate::default(),
        };
        self.snd_nxt = s.end();
        if len < self.mss {
            self.snd_sml = self.snd_nxt; // tcp_minshall_update
        }
        if fin {
            self.fin_sent = true;
            self.state = ConnState::FinWait;
        }
        self.rtx.push_back(s);
        self.rtx.len() - 1
    }

    /// Linux `tcp_write_xmit` (+ retransmissions first): send what cwnd, the receive window,
    /// the small-queue limit and pacing allow.
    pub fn xmit(&mut self, now: u64, port: &mut dyn TxPort) {
        self.xmit_inner(now, port, false);
    }

    /// `tcp_write_xmit`; `push_one`: stop after one TSO packet of new data (`tcp_push_one`).
    fn xmit_inner(&mut self, now: u64, port: &mut dyn TxPort, push_one: bool) {
        self.now_ns = self.now_ns.max(now);
        if !matches!(self.state, ConnState::Established | ConnState::FinWait) {
            return;
        }
        if self.pacing_rate == 0 {
            self.update_pacing_rate();
        }
        let mut cwnd_stop = false;
        loop {
            let burst_segs =
                pacing::tso_autosize_segs_min(self.pacing_rate, self.mss, self.cfg.min_tso_segs);
            let tsq = pacing::tsq_limit_bytes(self.pacing_rate, burst_segs * self.mss);
            // TSQ: the first burst may always go (Linux lets a lone skb through).
            if self.bytes_on_card > 0 && self.bytes_on_card >= tsq {
                break;
            }
            let in_flight = self.in_flight();
            let cwnd = self.cc_state.cwnd;
            if in_flight >= cwnd {
                cwnd_stop = true;
                break;
            }
            let quota = (cwnd - in_flight).min(burst_segs) as usize;
            let lost: Vec<usize> = (0..self.rtx.len())
                .filter(|&i| !push_one && self.rtx[i].lost && !self.rtx[i].on_card)
                .take(quota)
                .collect();
            let rwnd_end = self.snd_una + self.snd_wnd;
            let avail = self.write_seq - self.snd_nxt.min(self.write_seq);
            let fin_pending = self.fin_queued && !self.fin_sent;
            if lost.is_empty() && avail == 0 && !fin_pending {
                // Nothing to send. (App-limited marking happens when the application writes,
                // as tcp_sendmsg does: `check_app_limited`.)
                break;
            }
            if lost.is_empty() && avail > 0 && self.snd_nxt >= rwnd_end {
                break; // receive-window limited
            }
            // Host pacing: wait for the stamp (tcp_pacing_check + internal pacing timer).
            if self.cfg.pacer == Pacer::Host
                && self.cfg.pacing_model == PacingModel::Edt
                && self.edt.wstamp_ns > now
            {
                if self.pacing_timer.deadline().is_none() {
                    self.stats.pacing_timer_arms += 1;
                    let at = self.edt.wstamp_ns + self.next_wakeup_jitter_ns;
                    self.pacing_timer.arm_at(at);
                }
                break;
            }
            if !port.accepts() {
                // tcp_transmit_skb fails: nothing is sent, the segments stay as they were
                // (a retransmission is not counted, new data stays unsent)
                break;
            }
            let idxs: Vec<usize> = if !lost.is_empty() {
                lost
            } else {
                let mut v = Vec::new();
                let mut left = avail.min(rwnd_end.saturating_sub(self.snd_nxt));
                // tcp_cwnd_test: at most half of cwnd per TSO packet, so that at least two
                // are in flight ("for better scheduling")
                let quota = quota.min((cwnd / 2).max(1) as usize);
                while v.len() < quota && left > 0 {
                    if push_one && !v.is_empty() && self.skb_ends.contains_key(&self.snd_nxt) {
                        break; // tcp_push_one sends the send head skb only
                    }
                    let len = left.min(self.mss);
                    let tail = self.snd_nxt + len == self.write_seq;
                    let fin = fin_pending && left == len && tail;
                    if len < self.mss && tail && !fin && self.hold_partial_tail(!v.is_empty()) {
                        break;
                    }
                    left -= len;
                    v.push(self.push_seg(len, fin));
                }
                if v.is_empty() && fin_pending && avail == 0 {
                    v.push(self.push_seg(0, true));
                }
                v
            };
            if idxs.is_empty() {
                break;
            }
            let data = idxs.iter().filter(|&&i| self.rtx[i].len > 0).count() as u64;
            self.stats.data_segs_out += data;
            self.post_burst(now, &idxs, port);
            // Invariant checks: never beyond cwnd or the receive window (a FIN takes no
            // window space).
            let data_end = self.snd_nxt - u64::from(self.fin_sent);
            if self.in_flight() > cwnd || data_end > rwnd_end {
                self.stats.window_violations += 1;
            }
            self.schedule_tlp_after_send(now);
            if push_one {
                break;
            }
        }
        // tcp_check_probe_timer: unsent data, nothing out, no timer pending
        if self.rtx.is_empty()
            && self.write_seq > self.snd_nxt
            && self.retrans_timer.deadline().is_none()
        {
            let t = self.rto_ns().max(super::rtt::RTO_MIN_US * 1000); // tcp_probe0_base
            self.retrans_timer.arm(now, t, self.cfg.tick_ns);
            self.retrans_pending = RetransPending::Probe0;
        }
        // tcp_cwnd_validate
        let packets_out = self.rtx.len() as u64;
        if self.snd_una >= self.cwnd_usage_seq
            || cwnd_stop
            || (!self.is_cwnd_limited && packets_out > self.max_packets_out)
        {
            self.is_cwnd_limited = cwnd_stop;
            self.max_packets_out = packets_out;
            self.cwnd_usage_seq = self.snd_nxt;
        }
    }

    /// After a send (Linux `tcp_event_new_data_sent` + the end of `tcp_write_xmit`): the RTO
    /// is armed from now if nothing was armed or a probe was pending, then the probe timer
    /// is re-armed from now. A pending RACK reordering timer is left alone.
    fn schedule_tlp_after_send(&mut self, now: u64) {
        if self.retrans_pending == RetransPending::Reo && self.retrans_timer.deadline().is_some() {
            return;
        }
        if self.retrans_timer.deadline().is_none() || self.retrans_pending == RetransPending::Tlp {
            self.rearm_rto(now);
        }
        self.schedule_loss_probe(now, false);
    }
}

#[cfg(test)]
mod tests {
    //! Scripted conversations with one sender: a card that departs frames when told, and ACKs
    //! built by hand, so each Linux rule is checked on the exact segments it is about.
    use super::*;

    const ISS: u32 = 1000;
    const PEER_ISS: u32 = 5000;

    /// A card that keeps what was posted and departs it when the test says so.
    #[derive(Default)]
    struct Port {
        posted: Vec<TxRequest>,
        departed: usize,
    }

    impl TxPort for Port {
        fn post(&mut self, _now: u64, req: TxRequest) {
            self.posted.push(req);
        }
        fn next_event_ns(&self) -> Option<u64> {
            None
        }
        fn poll(&mut self, _now: u64) -> Vec<Completion> {
            Vec::new()
        }
        fn line_rate_bps(&self) -> u64 {
            10_000_000_000
        }
        fn describe(&self) -> String {
            "test port".into()
        }
    }

    impl Port {
        /// Depart everything posted so far (at its launch time, or `now` if later).
        fn depart(&mut self, s: &mut TcpSender, now: u64) {
            while self.departed < self.posted.len() {
                let r = &self.posted[self.departed];
                s.on_completion(&Completion {
                    cookie: r.cookie,
                    launch_ns: r.launch_ns,
                    depart_ns: r.launch_ns.max(now),
                    status: TxStatus::Sent,
                });
                self.departed += 1;
            }
        }
        /// Stream offsets of the data segments posted so far, in order.
        fn data_offsets(&self) -> Vec<u64> {
            self.posted
                .iter()
                .filter_map(|r| frame::parse(&r.frame).ok())
                .filter(|p| p.payload_len > 0)
                .map(|p| u64::from(p.seq.wrapping_sub(ISS + 1)))
                .collect()
        }
    }

    fn ends() -> Endpoints {
        Endpoints {
            src_mac: [2, 0, 0, 0, 0, 1],
            dst_mac: [2, 0, 0, 0, 0, 2],
            src_ip: [10, 0, 0, 1],
            dst_ip: [10, 0, 0, 2],
            src_port: 40000,
            dst_port: 5001,
        }
    }

    fn peer_frame(flags: u8, ack_off: u64, opts: SegOptions) -> Vec<u8> {
        let e = ends();
        let back = Endpoints {
            src_mac: e.dst_mac,
            dst_mac: e.src_mac,
            src_ip: e.dst_ip,
            dst_ip: e.src_ip,
            src_port: e.dst_port,
            dst_port: e.src_port,
        };
        let seq = if flags & tcp_flags::SYN != 0 {
            PEER_ISS
        } else {
            PEER_ISS + 1
        };
        // 65535 unscaled in the SYN-ACK; 65535 << 7 (8 MB) after.
        frame::build(&back, seq, seq_of(ISS, ack_off), flags, 65535, &opts, &[])
    }

    /// An ACK for stream offset `ack_off` with SACK blocks given as stream offsets.
    fn ack(s: &mut TcpSender, p: &mut Port, now: u64, ack_off: u64, sacks: &[(u64, u64)]) {
        let opts = SegOptions {
            sack: sacks
                .iter()
                .map(|&(l, r)| (seq_of(ISS, l), seq_of(ISS, r)))
                .collect(),
            ..Default::default()
        };
        s.on_frame(now, &peer_frame(tcp_flags::ACK, ack_off, opts), p);
    }

    /// Passive open: a SYN is answered with a SYN-ACK carrying only the options the SYN
    /// offered; the peer's ACK establishes (window scaled, RTT from the SYN-ACK); a frame that
    /// is not a plain SYN is refused and changes nothing.
    #[test]
    fn accept_answers_a_syn_with_its_options() {
        let mut s = TcpSender::new(SenderConfig::new(ends(), ISS, CcKind::Cubic), 1 << 48);
        let mut p = Port::default();
        let ack_only = peer_frame(tcp_flags::ACK, 0, SegOptions::default());
        assert!(s.accept(0, &ack_only, &mut p).is_err());
        assert!(s.accept(0, &[1, 2, 3], &mut p).is_err());
        assert_eq!((s.state, p.posted.len()), (ConnState::Closed, 0));
        let syn = SegOptions {
            mss: Some(1000),
            sack_permitted: true,
            ..Default::default()
        };
        s.accept(0, &peer_frame(tcp_flags::SYN, 0, syn), &mut p)
            .unwrap();
        let synack = frame::parse(&p.posted[0].frame).unwrap();
        assert_eq!(synack.flags, tcp_flags::SYN | tcp_flags::ACK);
        assert_eq!((synack.seq, synack.ack), (ISS, PEER_ISS + 1));
        assert_eq!(synack.options.mss, Some(1460));
        assert!(synack.options.sack_permitted);
        assert_eq!(
            synack.options.wscale, None,
            "the SYN offered no window scale"
        );
        assert_eq!(
            synack.options.timestamps, None,
            "the SYN offered no timestamps"
        );
        p.depart(&mut s, 0);
        s.on_frame(
            30_000_000,
            &peer_frame(tcp_flags::ACK, 0, SegOptions::default()),
            &mut p,
        );
        assert_eq!(s.state, ConnState::Established);
        assert_eq!(s.mss, 1000);
        assert_eq!(s.snd_wnd, 65535, "no window scale: the ACK's window as is");
        assert_eq!(s.tcp_info().rtt_us, 30_000);
        assert_eq!(p.posted.len(), 1, "no ACK of an ACK");
    }

    /// A connection established at 100 us (SYN-ACK RTT 100 us), SACK on, window scale 7.
    fn established(cc: CcKind) -> (TcpSender, Port) {
        let mut cfg = SenderConfig::new(ends(), ISS, cc);
        cfg.tick_ns = 1_000; // fine timer ticks: deadlines below are exact
        let mut s = TcpSender::new(cfg, 1 << 48);
        let mut p = Port::default();
        s.connect(0, &mut p);
        p.depart(&mut s, 0);
        let opts = SegOptions {
            mss: Some(1460),
            wscale: Some(7),
            sack_permitted: true,
            ..Default::default()
        };
        let synack = peer_frame(tcp_flags::SYN | tcp_flags::ACK, 0, opts);
        s.on_frame(100_000, &synack, &mut p);
        assert_eq!(s.state, ConnState::Established);
        p.depart(&mut s, 100_000);
        (s, p)
    }

    /// Write and send `segs` full segments at `now`, and depart them.
    fn send(s: &mut TcpSender, p: &mut Port, now: u64, segs: u64) {
        s.write(segs * s.mss);
        s.xmit(now, p);
        p.depart(s, now);
    }

    /// PSH of each data frame posted so far, in order.
    fn data_psh(p: &Port) -> Vec<bool> {
        p.posted
            .iter()
            .filter_map(|r| frame::parse(&r.frame).ok())
            .filter(|f| f.payload_len > 0)
            .map(|f| f.flags & tcp_flags::PSH != 0)
            .collect()
    }

    #[test]
    fn psh_as_linux_sets_it_per_skb_and_tso_packet() {
        // tcp_push marks the write's tail skb; __tcp_transmit_skb forces PSH on a GSO packet
        // of more than one segment; GSO leaves it on the last segment only; a one-segment
        // packet cut from the head of an skb (tso_fragment) carries none.
        let (mut s, mut p) = established(CcKind::Cubic);
        send(&mut s, &mut p, 200_000, 3);
        assert_eq!(
            data_psh(&p),
            vec![false, false, true],
            "one 3-segment TSO packet"
        );
        // cwnd 4 with 3 out: one more segment of a 3-segment write goes alone, no PSH (its
        // skb's PSH stays on the unsent rest); the rest goes as one packet with PSH
        s.cc_state.cwnd = 4;
        send(&mut s, &mut p, 300_000, 3);
        assert_eq!(data_psh(&p)[3..], [false]);
        s.cc_state.cwnd = 10;
        s.xmit(300_000, &mut p);
        p.depart(&mut s, 300_000);
        assert_eq!(data_psh(&p)[4..], [false, true]);
        // cwnd 2: one segment per packet (tcp_cwnd_test: half of cwnd), none at the end of
        // the skb; then the write's last segment alone: PSH (its skb was pushed)
        let (mut s, mut p) = established(CcKind::Cubic);
        s.cc_state.cwnd = 2;
        send(&mut s, &mut p, 200_000, 3);
        s.cc_state.cwnd = 3;
        s.xmit(200_000, &mut p);
        assert_eq!(data_psh(&p), vec![false, false, true]);
    }

    #[test]
    fn without_sack_three_duplicate_acks_retransmit_the_head() {
        // tcp_add_reno_sack counts each duplicate ACK as a delivered segment (Disorder,
        // tcp_try_keep_open); the third marks the head lost (tcp_newreno_mark_lost) and
        // starts recovery; PRR lets the one retransmission out (in flight 4 - 3 - 1 = 0).
        let mut cfg = SenderConfig::new(ends(), ISS, CcKind::Cubic);
        cfg.tick_ns = 1_000;
        let mut s = TcpSender::new(cfg, 1 << 48);
        let mut p = Port::default();
        s.connect(0, &mut p);
        p.depart(&mut s, 0);
        let opts = SegOptions {
            mss: Some(1460),
            wscale: Some(7),
            ..Default::default()
        };
        s.on_frame(
            100_000,
            &peer_frame(tcp_flags::SYN | tcp_flags::ACK, 0, opts),
            &mut p,
        );
        p.depart(&mut s, 100_000);
        ack(&mut s, &mut p, 150_000, 0, &[]); // the scaled window: an update, no data out
        send(&mut s, &mut p, 200_000, 4);
        let before = p.data_offsets().len();
        ack(&mut s, &mut p, 300_000, 0, &[]);
        assert_eq!(s.ca_state(), CaState::Disorder);
        assert_eq!((s.tcp_info().ca_state, s.tcp_info().sacked), (1, 1));
        ack(&mut s, &mut p, 301_000, 0, &[]);
        assert_eq!(p.data_offsets().len(), before, "nothing new to send");
        ack(&mut s, &mut p, 302_000, 0, &[]);
        assert_eq!(s.ca_state(), CaState::Recovery);
        assert_eq!(s.cc_state.ssthresh, 7);
        assert_eq!(
            p.data_offsets()[before..],
            [0],
            "fast retransmit of the head"
        );
        // a window update is not a duplicate ACK
        let (mut s, mut p) = established(CcKind::Cubic);
        s.sack_ok = false;
        send(&mut s, &mut p, 200_000, 4);
        let e = ends();
        let back = Endpoints {
            src_mac: e.dst_mac,
            dst_mac: e.src_mac,
            src_ip: e.dst_ip,
            dst_ip: e.src_ip,
            src_port: e.dst_port,
            dst_port: e.src_port,
        };
        let f = |w| {
            frame::build(
                &back,
                PEER_ISS + 1,
                seq_of(ISS, 0),
                tcp_flags::ACK,
                w,
                &SegOptions::default(),
                &[],
            )
        };
        for w in [60000, 61000, 62000] {
            s.on_frame(300_000, &f(w), &mut p);
        }
        assert_eq!(s.ca_state(), CaState::Open);
    }

    #[test]
    fn cwnd_restarts_after_an_idle_rto() {
        // tcp_slow_start_after_idle_check at tcp_skb_entail: nothing out, idle > RTO:
        // tcp_cwnd_restart halves cwnd per RTO idle, never below the initial window.
        for (idle_rtos, setting, cc, want) in [
            (1.5, true, CcKind::Cubic, 18),
            (2.5, true, CcKind::Cubic, 10),
            (0.9, true, CcKind::Cubic, 36),
            (2.5, false, CcKind::Cubic, 36),
            (2.5, true, CcKind::Bbr, 36),
        ] {
            let (mut s, mut p) = established(cc);
            s.cfg.slow_start_after_idle = setting;
            send(&mut s, &mut p, 200_000, 2);
            let mss = s.mss;
            ack(&mut s, &mut p, 300_000, 2 * mss, &[]);
            s.cc_state.cwnd = 36;
            let rto = s.rto_ns();
            s.write_at(200_000 + (rto as f64 * idle_rtos) as u64, 100);
            assert_eq!(
                s.cc_state.cwnd, want,
                "{idle_rtos} RTOs idle, {setting} {cc:?}"
            );
        }
    }

    #[test]
    fn a_zero_window_is_probed_with_backoff() {
        // tcp_check_probe_timer / tcp_send_probe0: with data waiting on a zero window and
        // nothing out, an ACK with sequence snd_una - 1 after the RTO, then at doubled
        // intervals (tcp_probe0_when); a window update stops it and the data goes.
        let (mut s, mut p) = established(CcKind::Cubic);
        // window 0
        let e = ends();
        let back = Endpoints {
            src_mac: e.dst_mac,
            dst_mac: e.src_mac,
            src_ip: e.dst_ip,
            dst_ip: e.src_ip,
            src_port: e.dst_port,
            dst_port: e.src_port,
        };
        let f = frame::build(
            &back,
            PEER_ISS + 1,
            seq_of(ISS, 0),
            tcp_flags::ACK,
            0,
            &SegOptions::default(),
            &[],
        );
        s.on_frame(150_000, &f, &mut p);
        let n = p.posted.len();
        s.write_at(200_000, 1000);
        s.xmit(200_000, &mut p);
        assert_eq!(p.posted.len(), n, "nothing fits a zero window");
        let base = s.rto_ns().max(super::super::rtt::RTO_MIN_US * 1000);
        let mut at = 200_000;
        for k in 0..3u32 {
            let d = s.next_timer_ns().expect("the probe timer");
            assert_eq!(d, at + (base << k), "probe {k}");
            s.on_timers(d, &mut p);
            let probe = frame::parse(&p.posted.last().unwrap().frame).unwrap();
            assert_eq!(
                (probe.seq, probe.payload_len, probe.flags),
                (ISS, 0, tcp_flags::ACK)
            );
            at = d;
        }
        assert_eq!(p.data_offsets().len(), 0);
        ack(&mut s, &mut p, at + 1_000, 0, &[]);
        assert_eq!(p.data_offsets(), vec![0], "the window opened");
    }

    #[test]
    fn reordering_degree_grows_and_lets_sacks_raise_cwnd() {
        // tcp_check_sack_reordering: a segment delivered below the highest SACKed one sets
        // the degree to the distance (from that segment's start, tcp_highest_sack_seq);
        // beyond the default 3, tcp_may_raise_cwnd lets a SACK grow cwnd.
        let (mut s, mut p) = established(CcKind::Cubic);
        send(&mut s, &mut p, 200_000, 10);
        let m = s.mss;
        ack(&mut s, &mut p, 300_000, 0, &[(9 * m, 10 * m)]);
        assert_eq!((s.reordering, s.reord_seen, s.cc_state.cwnd), (3, 0, 10));
        ack(
            &mut s,
            &mut p,
            300_000,
            0,
            &[(3 * m, 4 * m), (9 * m, 10 * m)],
        );
        assert_eq!((s.reordering, s.reord_seen, s.cc_state.cwnd), (6, 1, 11));
        ack(&mut s, &mut p, 300_000, 10 * m, &[]);
        assert_eq!((s.reordering, s.reord_seen, s.cc_state.cwnd), (10, 2, 19));
    }

    #[test]
    fn a_sack_only_ack_does_not_grow_cwnd() {
        // tcp_cong_control -> tcp_may_raise_cwnd: cong_avoid needs FLAG_DATA_ACKED.
        let (mut s, mut p) = established(CcKind::Cubic);
        send(&mut s, &mut p, 200_000, 10);
        let mss = s.mss;
        ack(&mut s, &mut p, 300_000, 0, &[(4 * mss, 5 * mss)]);
        assert_eq!(s.cc_state.cwnd, 10, "SACK-only ACK");
        ack(&mut s, &mut p, 301_000, mss, &[(4 * mss, 5 * mss)]);
        assert_eq!(s.cc_state.cwnd, 11, "cumulative ACK of one segment");
    }

    #[test]
    fn app_limited_is_checked_when_the_application_writes() {
        // tcp_rate_check_app_limited: nothing unsent, nothing on the card, cwnd not full.
        let (mut s, mut p) = established(CcKind::Cubic);
        assert!(!s.is_app_limited());
        s.write(100);
        assert!(s.is_app_limited(), "idle flow writing: app-limited");
        let (mut s, mut p2) = established(CcKind::Cubic);
        s.write(5 * s.mss);
        s.xmit(200_000, &mut p2);
        // Five segments on the card, not yet departed: not app-limited (sk_wmem_alloc).
        s.app_limited_until = 0;
        s.write(100);
        assert!(!s.is_app_limited(), "frames still on the card");
        p2.depart(&mut s, 200_000);
        // cwnd 10 > 5 in flight, the 100 bytes are less than one MSS: app-limited.
        s.write(100);
        assert!(s.is_app_limited());
        // cwnd full: not app-limited.
        let (mut s, _) = established(CcKind::Cubic);
        send(&mut s, &mut p, 200_000, 10);
        s.app_limited_until = 0;
        s.write(100);
        assert!(!s.is_app_limited(), "cwnd-limited");
    }

    #[test]
    fn rto_in_recovery_keeps_ssthresh_and_repeated_rtos_do_not_drive_it_to_2() {
        // tcp_enter_loss: ssthresh is cut only in Open/Disorder, after recovery, or in Loss
        // before any RTO retransmission.
        let (mut s, mut p) = established(CcKind::Cubic);
        send(&mut s, &mut p, 200_000, 10);
        // Segments 3..9 SACKed (7 >= DUPTHRESH, so no reordering window): 0..2 lost.
        let mss = s.mss;
        ack(&mut s, &mut p, 400_000, 0, &[(3 * mss, 10 * mss)]);
        assert_eq!(s.ca_state(), CaState::Recovery);
        let ss = s.cc_state.ssthresh;
        assert_eq!(ss, 7, "CUBIC: 10 * 717 / 1024");
        for n in 1..=3 {
            while s.stats.rto_fires < n {
                let d = s.next_timer_ns().expect("a timer is armed");
                s.on_timers(d, &mut p);
            }
            assert_eq!(s.ca_state(), CaState::Loss);
            assert_eq!(s.cc_state.ssthresh, ss, "RTO {n} cut ssthresh again");
            assert_eq!(s.cc_state.cwnd, 1, "cwnd = in flight (0) + 1");
        }
        // An RTO after snd_una moved in Loss cuts again (a new window: icsk_retransmits 0).
        let mut q = Port::default();
        let (mut s, _) = established(CcKind::Cubic);
        send(&mut s, &mut q, 200_000, 10);
        while s.stats.rto_fires < 1 {
            let d = s.next_timer_ns().unwrap();
            s.on_timers(d, &mut q);
        }
        assert_eq!(s.cc_state.ssthresh, 7, "first RTO from Open: 10 -> 7");
        let rto_at = s.next_timer_ns().unwrap();
        q.depart(&mut s, rto_at);
        let mss = s.mss;
        ack(&mut s, &mut q, rto_at - 1, mss, &[]);
        assert_eq!(s.ca_state(), CaState::Loss);
        let cwnd = s.cc_state.cwnd;
        while s.stats.rto_fires < 2 {
            let d = s.next_timer_ns().unwrap();
            s.on_timers(d, &mut q);
        }
        assert_eq!(s.cc_state.ssthresh, cubic_ss(cwnd));
    }

    fn cubic_ss(cwnd: u64) -> u64 {
        super::super::cc::cubic::cubic_ssthresh(cwnd)
    }

    #[test]
    fn rack_timer_armed_on_an_advancing_ack_is_not_overwritten() {
        // Linux clears FLAG_SET_XMIT_TIMER when tcp_rack_mark_lost arms the REO timer.
        let (mut s, mut p) = established(CcKind::Cubic);
        send(&mut s, &mut p, 200_000, 10);
        let mss = s.mss;
        // Cumulative ACK of 0..1 and a SACK of 3: segment 2 is within the reordering window
        // (min_rtt / 4 = 25 us), so RACK arms its timer on this advancing ACK.
        let now = 300_000;
        ack(&mut s, &mut p, now, 2 * mss, &[(3 * mss, 4 * mss)]);
        assert_eq!(s.retrans_pending, RetransPending::Reo);
        // tx 200 us + rack rtt 100 us + reo_wnd 25 us, + 2 ms (TCP_TIMEOUT_MIN_US).
        assert_eq!(
            s.next_timer_ns(),
            Some(200_000 + 100_000 + 25_000 + 2_000_000)
        );
        let d = s.next_timer_ns().unwrap();
        let before = p.data_offsets().len();
        s.on_timers(d, &mut p);
        assert_eq!(s.stats.rack_marked_lost, 1);
        assert_eq!(s.ca_state(), CaState::Recovery);
        assert_eq!(p.data_offsets()[before..].first(), Some(&(2 * mss)));
    }

    #[test]
    fn loss_probe_rearms_on_each_send_and_needs_a_sent_probe() {
        let (mut s, mut p) = established(CcKind::Cubic);
        send(&mut s, &mut p, 200_000, 4);
        // PTO = 2 x srtt (100 us) + TCP_TIMEOUT_MIN_US, from the send.
        assert_eq!(s.retrans_pending, RetransPending::Tlp);
        assert_eq!(s.next_timer_ns(), Some(200_000 + 200_000 + 2_000_000));
        // Another send 1 ms later moves the probe (tcp_write_xmit -> tcp_schedule_loss_probe).
        send(&mut s, &mut p, 1_200_000, 2);
        assert_eq!(s.next_timer_ns(), Some(1_200_000 + 200_000 + 2_000_000));
        // A probe that cannot be sent (the last segment still on the card, no new data)
        // records no tlp_high_seq and counts no probe.
        let (mut s, mut p) = established(CcKind::Cubic);
        s.write(4 * s.mss);
        s.xmit(200_000, &mut p); // posted, never departed
        let d = s.next_timer_ns().unwrap();
        s.on_timers(d, &mut p);
        assert_eq!(s.stats.tlp_probes, 0);
        assert_eq!(s.tlp_high_seq, None);
        assert_eq!(s.retrans_pending, RetransPending::Rto);
    }

    #[test]
    fn send_buffer_counts_truesize_and_never_shrinks() {
        // tcp_sndbuf_expand at establishment: 2 (CUBIC) x max(cwnd 10, 10, 4) x 4352 B.
        let (mut s, mut p) = established(CcKind::Cubic);
        assert_eq!(s.sndbuf_bytes(), 2 * 10 * SNDBUF_PER_MSS);
        let (b, _) = established(CcKind::Bbr);
        assert_eq!(b.sndbuf_bytes(), 3 * 10 * SNDBUF_PER_MSS);
        // An RTO drops cwnd to 1: the buffer stays.
        send(&mut s, &mut p, 200_000, 10);
        while s.stats.rto_fires == 0 {
            let d = s.next_timer_ns().unwrap();
            s.on_timers(d, &mut p);
        }
        assert_eq!(s.cc_state.cwnd, 1);
        assert_eq!(s.sndbuf_bytes(), 2 * 10 * SNDBUF_PER_MSS);
    }

    #[test]
    fn a_short_tail_waits_for_the_card_and_for_the_previous_short_segment() {
        let (mut s, mut p) = established(CcKind::Cubic);
        let mss = s.mss;
        s.write(mss + 100);
        s.xmit(200_000, &mut p);
        // The full segment goes; the 100-byte tail is corked behind it (tcp_should_autocork).
        assert_eq!(p.data_offsets(), vec![0]);
        p.depart(&mut s, 200_000);
        s.xmit(201_000, &mut p);
        assert_eq!(p.data_offsets(), vec![0, mss], "card empty: the tail goes");
        p.depart(&mut s, 201_000);
        // Another short write: Nagle/Minshall holds it while the first short one is unacked...
        s.write(100);
        s.xmit(202_000, &mut p);
        assert_eq!(p.data_offsets().len(), 2);
        // ...and the ACK releases it.
        ack(&mut s, &mut p, 300_000, mss + 100, &[]);
        s.xmit(300_000, &mut p);
        assert_eq!(p.data_offsets(), vec![0, mss, mss + 100]);
        // A FIN pushes a short tail out at once.
        let (mut s, mut p) = established(CcKind::Cubic);
        s.write(mss + 100);
        s.close();
        s.xmit(200_000, &mut p);
        assert_eq!(p.data_offsets(), vec![0, mss]);
    }

    #[test]
    fn rate_sample_comes_from_the_segment_sent_last() {
        // tcp_rate_skb_delivered: a burst shares one `delivered` snapshot; of the segments
        // one ACK delivers, the sample is the one sent last (then the higher end), and first_tx
        // moves to each later-sent one. (Picking the highest `delivered` took the first of the
        // burst and left first_tx behind.)
        let r = |d| TxRate {
            delivered: d,
            delivered_ns: 0,
            first_tx_ns: 0,
            app_limited: false,
        };
        let mut rs = None;
        let mut first_tx = 0;
        rate_skb_delivered(&mut rs, &mut first_tx, r(5), 1_000, 100);
        rate_skb_delivered(&mut rs, &mut first_tx, r(5), 3_000, 300);
        rate_skb_delivered(&mut rs, &mut first_tx, r(5), 2_000, 200);
        rate_skb_delivered(&mut rs, &mut first_tx, r(5), 3_000, 250);
        let a = rs.unwrap();
        assert_eq!((a.tx_ns, a.end, first_tx), (3_000, 300, 3_000));
        // Same transmit time: the higher end sequence wins.
        rate_skb_delivered(&mut rs, &mut first_tx, r(5), 3_000, 400);
        assert_eq!(rs.unwrap().end, 400);
    }

    #[test]
    fn app_limited_waits_for_lost_segments_to_be_retransmitted() {
        // tcp_rate_check_app_limited: lost_out <= retrans_out.
        let (mut s, mut p) = established(CcKind::Cubic);
        send(&mut s, &mut p, 200_000, 4);
        s.rtx[1].lost = true;
        s.app_limited_until = 0;
        s.write(100);
        assert!(
            !s.is_app_limited(),
            "a lost segment waits for its retransmission"
        );
        s.rtx[1].lost = false;
        s.write(100);
        assert!(s.is_app_limited());
    }

    #[test]
    fn first_ten_segments_leave_unpaced() {
        // The clock starts pacing once 10 data segments were counted.
        let (mut s, mut p) = established(CcKind::Cubic);
        send(&mut s, &mut p, 200_000, 10);
        let launches: Vec<u64> = p.posted[2..].iter().map(|r| r.launch_ns).collect();
        assert!(launches.iter().all(|&l| l == 200_000), "{launches:?}");
    }

    /// Launch times of six 20-segment writes at one instant with cwnd 100.
    fn launches_of_a_burst(cc: CcKind, fq: bool, max_rate: u64) -> Vec<u64> {
        let (mut s, mut p) = established(cc);
        s.cfg.fq = fq;
        s.cfg.max_pacing_rate = max_rate;
        s.cc_state.cwnd = 100;
        // an RTT of 1 ms (the handshake's was ~0): a pacing rate whose gaps are visible
        for _ in 0..8 {
            s.rtt.sample(1000, 0, 0);
        }
        s.update_pacing_rate();
        // writes at one instant: later bursts' stamps show whether earlier ones advanced the
        // clock (a burst shares one launch time; TSQ lets a few bursts out per call)
        for _ in 0..6 {
            send(&mut s, &mut p, 200_000, 20);
        }
        p.posted[2..].iter().map(|r| r.launch_ns).collect()
    }

    #[test]
    fn without_fq_only_bbr_and_max_rate_flows_are_paced() {
        // sk_pacing_status: SK_PACING_FQ paces every flow; without fq only SK_PACING_NEEDED ones
        // (bbr_init, SO_MAX_PACING_RATE); an unpaced flow's tcp_wstamp_ns stays at now.
        let later = |l: &[u64]| l.iter().filter(|&&t| t > 200_000).count();
        let unpaced = launches_of_a_burst(CcKind::Cubic, false, u64::MAX);
        assert!(unpaced.len() > 40, "a second burst left: {unpaced:?}");
        assert_eq!(later(&unpaced), 0, "{unpaced:?}");
        let fq = launches_of_a_burst(CcKind::Cubic, true, u64::MAX);
        assert!(later(&fq) > 0, "{fq:?}");
        assert!(later(&launches_of_a_burst(CcKind::Cubic, false, 1_000_000)) > 0);
        assert!(later(&launches_of_a_burst(CcKind::Bbr, false, u64::MAX)) > 0);
    }

    #[test]
    fn close_in_syn_sent_is_silent_and_a_late_syn_ack_gets_a_reset() {
        // Linux tcp_close in SYN_SENT: TCP_CLOSE, nothing sent, no SYN retransmission; the
        // SYN-ACK that arrives later meets no socket: <SEQ=SEG.ACK><CTL=RST> (RFC 9293 3.10.7.1).
        let mut cfg = SenderConfig::new(ends(), ISS, CcKind::Cubic);
        cfg.tick_ns = 1_000;
        let mut s = TcpSender::new(cfg, 1 << 48);
        let mut p = Port::default();
        s.connect(0, &mut p);
        p.depart(&mut s, 0);
        s.close();
        assert_eq!(p.posted.len(), 1, "close() sent nothing");
        s.on_timers(5_000_000_000, &mut p);
        assert_eq!(p.posted.len(), 1, "no SYN retransmission after close()");
        let synack = peer_frame(tcp_flags::SYN | tcp_flags::ACK, 0, SegOptions::default());
        s.on_frame(100_000, &synack, &mut p);
        assert_eq!(p.posted.len(), 2);
        let r = frame::parse(&p.posted[1].frame).unwrap();
        assert_eq!(
            (r.flags, r.seq, r.payload_len),
            (tcp_flags::RST, ISS + 1, 0)
        );
        // a reset is never answered
        let rst = peer_frame(tcp_flags::RST, 0, SegOptions::default());
        s.on_frame(200_000, &rst, &mut p);
        assert_eq!(p.posted.len(), 2);
    }

    #[test]
    fn syn_and_pure_ack_share_one_control_path() {
        let (s, p) = established(CcKind::Cubic);
        // SYN, then the handshake's ACK: both control frames, counted by the card port.
        assert_eq!(p.posted.len(), 2);
        let syn = frame::parse(&p.posted[0].frame).unwrap();
        assert_eq!(syn.flags, tcp_flags::SYN);
        assert_eq!(syn.options.mss, Some(1460));
        let a = frame::parse(&p.posted[1].frame).unwrap();
        assert_eq!(a.flags, tcp_flags::ACK);
        assert_eq!(a.ack, PEER_ISS + 1);
        assert_eq!(a.seq, ISS + 1);
        assert!(s.posted.is_empty(), "both completions consumed");
    }
}
