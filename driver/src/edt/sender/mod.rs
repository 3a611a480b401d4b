//! One EDT TCP sender connection, split along the seams of Linux's TCP (net/ipv4) so each file
//! can be read beside the kernel file it follows:
//! - `socket.rs` (tcp.c, af_inet.c): the application's calls: `write` / `send_nonblocking`
//!   (`tcp_sendmsg_locked`), `close`, SO_SNDBUF, `tcp_info` (`tcp_get_info`), connect/accept;
//! - `output.rs` (tcp_output.c): `xmit` (`tcp_write_xmit` + `tcp_xmit_retransmit_queue`: cwnd,
//!   receive window, TSQ, TSO autosizing, EDT stamping, the host pacing timer), frame building and
//!   posting, `on_completion` (the card's departure report: TSQ and departure-stamped samples);
//! - `input.rs` (tcp_input.c): `on_frame` (`tcp_rcv_synsent_state_process`, `tcp_ack`: SACK
//!   tagging, cumulative ACK, RTT estimator, window update, FIN), `tcp_sndbuf_expand`;
//! - `rate.rs` (tcp_rate.c): delivery-rate state per segment and the per-ACK rate sample;
//! - `recovery.rs` (tcp_recovery.c and the recovery half of tcp_input.c): RACK loss detection,
//!   NewReno without SACK, `tcp_fastretrans_alert`'s states, PRR, `tcp_enter_loss`;
//! - `timers.rs` (tcp_timer.c, with the timer arming of tcp_input.c/tcp_output.c): RTO with
//!   backoff, TLP, the RACK reordering timer, the zero-window probe, SYN retries.
//!
//! The scoreboard entry, `tcp_sacktag_write_queue` and the recovery formulas are pure functions
//! in `edt/recovery.rs`; the departure clock and fq pacing in `edt/pacing.rs`.
//!
//! Sequence numbers are kept internally as 64-bit stream offsets (offset 0 is the first data
//! byte, `iss + 1` on the wire), so wrap-around needs no special care.

use std::collections::{BTreeMap, VecDeque};

use super::card::{Completion, TxPort, TxRequest, TxStatus};
use super::cc::{AckInfo, CcKind, CcState, CongestionControl, RateSample};
use super::frame::{self, tcp_flags, Endpoints, SegOptions};
use super::pacing::{self, EdtClock};
use super::recovery::{Rack, Seg, TsOrder, TxRate};
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

mod input;
mod output;
mod rate;
mod recovery;
mod socket;
mod timers;

use rate::{rate_skb_delivered, RateAcc};

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
    /// net.ipv4.tcp_tso_rtt_log (Linux 5.18+ default 9): `tcp_tso_autosize` adds
    /// `65536 >> (min_rtt_us >> tso_rtt_log)` bytes to a burst (a whole 64 KB below 512 us of min
    /// RTT). None (the default here, see docs/EDT.md "TSO autosizing"): no such term, as
    /// kernels before 5.18.
    pub tso_rtt_log: Option<u32>,
    /// BBR's ACK-aggregation cwnd term (`bbr_update_ack_aggregation`, `bbr_extra_acked_gain`;
    /// Linux 4.20+: on). Off by default here (docs/EDT.md "Differences from Linux").
    pub bbr_extra_acked: bool,
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
            tso_rtt_log: None,
            bbr_extra_acked: false,
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

/// `skb_ends` drops the ends below snd_una once this many more bytes are acknowledged.
const SKB_ENDS_TRIM_BYTES: u64 = 65_536;

#[derive(Debug, Clone, Copy)]
enum Posted {
    /// A data (or FIN) segment: stream offset and transmission number; `nth`: its place in
    /// the retransmit queue counted from the first segment ever queued (its index is
    /// `nth - rtx_popped` while it is queued).
    Seg {
        off: u64,
        tx_count: u32,
        bytes: u64,
        nth: u64,
    },
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
    /// Loss probes that repaired a loss (`tcp_process_tlp_ack` reduced cwnd;
    /// LINUX_MIB_TCPLOSSPROBERECOVERY).
    pub tlp_recoveries: u64,
    /// RTOs undone as spurious (F-RTO or an echoed timestamp older than the retransmission:
    /// LINUX_MIB_TCPLOSSUNDO).
    pub loss_undos: u64,
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
    /// snd_una at which the ends below it are next dropped from `skb_ends`.
    skb_ends_trim_at: u64,
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
    /// Counts over `rtx`, kept as segments change (Linux `sacked_out`, `lost_out`), and the
    /// segments in it sent more than once: `in_flight` and the recovery checks read these
    /// instead of scanning the queue.
    sacked_out: u64,
    lost_out: u64,
    retransmitted: u64,
    /// Start of the highest SACKed segment still queued (`tcp_highest_sack_seq`).
    highest_sack: Option<u64>,
    /// The segments RACK may mark lost, in transmit-time order (Linux `tsorted_sent_queue`).
    tsorted: TsOrder,
    /// What each posted, not yet completed cookie was, by cookie number from `posted_first`
    /// (cookies are handed out in sequence; completions come back nearly in order).
    posted: VecDeque<Option<Posted>>,
    posted_first: u64,
    /// The requests of the burst being posted, its queue indices and PSH flags, and an ACK's
    /// RACK deliveries: kept so that no burst or ACK allocates.
    tx_batch: Vec<TxRequest>,
    burst_scratch: Vec<usize>,
    /// Segments ever taken off the retransmit queue's head (only the head leaves it): a
    /// segment's index is its `Posted::Seg::nth` less this.
    rtx_popped: u64,
    /// Data segments' headers laid out once, with and without the timestamps option
    /// (`frame::DataTemplate`): a frame is a pooled buffer, the template, the payload and its
    /// per-segment fields.
    data_tmpl: [frame::DataTemplate; 2],
    psh_scratch: Vec<bool>,
    rack_scratch: Vec<(u64, u64, bool)>,
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
    /// PRR state (Linux prior_cwnd, prr_delivered, prr_out); prior_cwnd is also the cwnd an
    /// undo restores.
    prior_cwnd: u64,
    /// Undo state (Linux `undo_marker`, `undo_retrans`, `prior_ssthresh`, `retrans_stamp`: the
    /// TS value of the episode's first retransmission) and F-RTO (`tp->frto`, tcp_frto = 2).
    undo_marker: Option<u64>,
    undo_retrans: i64,
    prior_ssthresh: u64,
    retrans_stamp: Option<u32>,
    frto: bool,
    /// F-RTO step 2b: this ACK sends new data, not retransmissions (REXMIT_NEW).
    skip_lost: bool,
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
    /// The loss probe out was a retransmission (Linux `tlp_retrans`), not new data.
    tlp_retrans: bool,
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

fn seq_of(iss: u32, off: u64) -> u32 {
    iss.wrapping_add(1).wrapping_add(off as u32)
}

impl TcpSender {
    /// A closed connection; `cookie_base` is put in the high bits of every completion cookie
    /// so a shared card can be demultiplexed.
    pub fn new(cfg: SenderConfig, cookie_base: u64) -> Self {
        let mss = u64::from(cfg.mss) - frame::TS_OPTION_LEN as u64;
        let cc = cfg.cc.build_with(cfg.seed, cfg.bbr_extra_acked);
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
            skb_ends_trim_at: 0,
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
            sacked_out: 0,
            lost_out: 0,
            retransmitted: 0,
            highest_sack: None,
            tsorted: TsOrder::default(),
            posted: VecDeque::new(),
            posted_first: 1,
            tx_batch: Vec::new(),
            burst_scratch: Vec::new(),
            rtx_popped: 0,
            data_tmpl: [
                frame::DataTemplate::new(&cfg.ends, false),
                frame::DataTemplate::new(&cfg.ends, true),
            ],
            psh_scratch: Vec::new(),
            rack_scratch: Vec::new(),
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
            undo_marker: None,
            undo_retrans: -1,
            prior_ssthresh: 0,
            retrans_stamp: None,
            frto: false,
            skip_lost: false,
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
            tlp_retrans: false,
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
        #[cfg(debug_assertions)]
        self.check_counts();
        (self.rtx.len() as u64 - self.sacked_out - self.lost_out).saturating_sub(self.reno_sacked)
    }

    /// Debug builds: the counters kept over the queue agree with a scan of it (a SACKed
    /// segment is never also lost).
    #[cfg(debug_assertions)]
    fn check_counts(&self) {
        let count = |f: &dyn Fn(&Seg) -> bool| self.rtx.iter().filter(|s| f(s)).count() as u64;
        assert_eq!(self.sacked_out, count(&|s| s.sacked), "sacked_out");
        assert_eq!(self.lost_out, count(&|s| s.lost), "lost_out");
        assert_eq!(
            self.retransmitted,
            count(&|s| s.tx_count > 1),
            "retransmitted"
        );
        assert_eq!(count(&|s| s.sacked && s.lost), 0, "sacked and lost");
        let highest = self.rtx.iter().rev().find(|s| s.sacked).map(|s| s.off);
        assert_eq!(self.highest_sack, highest, "highest_sack");
        assert_eq!(
            self.tsorted.len() as u64,
            count(&|s| s.tx_ns.is_some() && !s.sacked && !s.lost),
            "tsorted"
        );
    }
}

#[cfg(test)]
mod tests;
