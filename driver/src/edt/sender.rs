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

use std::collections::{HashMap, VecDeque};

use super::card::{Completion, TxPort, TxRequest, TxStatus};
use super::cc::{AckInfo, CcKind, CcState, CongestionControl, RateSample};
use super::frame::{self, tcp_flags, Endpoints, SegOptions};
use super::pacing::{self, EdtClock};
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

/// sch_fq's default quantum: 2 x MTU (1514).
pub const FQ_QUANTUM: u64 = 3028;
/// sch_fq low_rate_threshold (550 kbit/s): below it fq paces by real length.
pub const FQ_LOW_RATE: u64 = 550_000 / 8;

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
    pub pacer: Pacer,
    /// Timer tick for RTO/TLP/RACK timers (Linux jiffy; 1 ms = HZ 1000).
    pub tick_ns: u64,
    pub rto_min_us: u64,
    pub seed: u64,
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
            pacer: Pacer::Card,
            tick_ns: DEFAULT_TICK_NS,
            rto_min_us: super::rtt::RTO_MIN_US,
            seed: 1,
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
}

/// Linux's congestion-avoidance states that matter here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CaState {
    Open,
    Recovery,
    Loss,
}

#[derive(Debug, Clone, Copy, Default)]
struct TxRate {
    delivered: u64,
    delivered_ns: u64,
    first_tx_ns: u64,
    app_limited: bool,
}

/// One segment in the retransmission queue.
#[derive(Debug, Clone)]
struct Seg {
    off: u64,
    len: u32,
    fin: bool,
    tx_count: u32,
    /// Transmit time used for samples: card departure (EDT) or queue time (Queue).
    tx_ns: Option<u64>,
    /// Posted to the card and not yet reported departed.
    on_card: bool,
    sacked: bool,
    lost: bool,
    rate: TxRate,
}

impl Seg {
    fn end(&self) -> u64 {
        self.off + u64::from(self.len) + u64::from(self.fin)
    }
}

#[derive(Debug, Clone, Copy)]
enum Posted {
    /// A data (or FIN) segment: stream offset and transmission number.
    Seg { off: u64, tx_count: u32, bytes: u64 },
    /// A SYN or a pure ACK.
    Control { bytes: u64, syn: bool },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RetransPending {
    Rto,
    Tlp,
    Reo,
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
    /// sch_fq-like per-flow next release time (Queue model only).
    fq_next_ns: u64,
    // Sequence state (stream offsets).
    pub snd_una: u64,
    pub snd_nxt: u64,
    /// End of the data the application has written.
    pub write_seq: u64,
    fin_queued: bool,
    fin_sent: bool,
    peer_fin: bool,
    /// Receive window advertised by the peer, bytes (already scaled).
    pub snd_wnd: u64,
    snd_wscale: u8,
    sack_ok: bool,
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
    reord_seen: bool,
    highest_sacked_end: u64,
    rack_tx_ns: u64,
    rack_end: u64,
    rack_rtt_us: u64,
    rack_advanced: bool,
    tlp_high_seq: Option<u64>,
    rto_backoff: u32,
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
    pub stats: SenderStats,
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
            fq_next_ns: 0,
            snd_una: 0,
            snd_nxt: 0,
            write_seq: 0,
            fin_queued: false,
            fin_sent: false,
            peer_fin: false,
            snd_wnd: 65535,
            snd_wscale: 0,
            sack_ok: false,
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
            delivered: 0,
            delivered_ns: 0,
            first_tx_ns: 0,
            app_limited_until: 0,
            high_seq: 0,
            prior_cwnd: 0,
            prr_delivered: 0,
            prr_out: 0,
            reord_seen: false,
            highest_sacked_end: 0,
            rack_tx_ns: 0,
            rack_end: 0,
            rack_rtt_us: 0,
            rack_advanced: false,
            tlp_high_seq: None,
            rto_backoff: 0,
            is_cwnd_limited: false,
            max_packets_out: 0,
            cwnd_usage_seq: 0,
            retrans_timer: Timer::default(),
            retrans_pending: RetransPending::Rto,
            pacing_timer: Timer::default(),
            next_wakeup_jitter_ns: 0,
            syn_tx_ns: None,
            syn_retries: 0,
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
    pub fn in_flight(&self) -> u64 {
        self.rtx.iter().filter(|s| !s.sacked && !s.lost).count() as u64
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

    /// The application writes `n` more bytes.
    pub fn write(&mut self, n: u64) {
        if !self.fin_queued {
            self.write_seq += n;
        }
    }

    /// The application is done: send FIN after the data.
    pub fn close(&mut self) {
        self.fin_queued = true;
    }

    pub fn is_finished(&self) -> bool {
        matches!(self.state, ConnState::Done | ConnState::Reset)
    }

    /// Send buffer size in payload bytes (Linux `tcp_sndbuf_expand`, in payload terms):
    /// expand x max(cwnd, 10) segments, at most 4 MB (tcp_wmem[2]).
    pub fn sndbuf_bytes(&self) -> u64 {
        (self.cc.sndbuf_expand() * self.cc_state.cwnd.max(super::cc::INIT_CWND) * self.mss)
            .min(4 * 1024 * 1024)
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

    fn post_syn(&mut self, now: u64, port: &mut dyn TxPort) {
        let opts = SegOptions {
            mss: Some(self.cfg.mss),
            wscale: Some(self.cfg.wscale),
            sack_permitted: true,
            timestamps: Some((Self::ts_val(now), 0)),
            sack: vec![],
        };
        let f = frame::build(
            &self.cfg.ends,
            self.cfg.iss,
            0,
            tcp_flags::SYN,
            self.adv_window(),
            &opts,
            &[],
        );
        let bytes = f.len() as u64;
        let cookie = self.new_cookie(Posted::Control { bytes, syn: true });
        port.post(
            now,
            TxRequest {
                launch_ns: now,
                frame: f,
                cookie,
            },
        );
        self.syn_tx_ns = None;
        // SYN timeout: 1 s, doubled per retry (Linux TCP_TIMEOUT_INIT).
        let rto = (super::rtt::RTO_INIT_US * 1000) << self.syn_retries.min(6);
        self.retrans_timer.arm(now, rto, self.cfg.tick_ns);
        self.retrans_pending = RetransPending::Rto;
    }

    fn post_pure_ack(&mut self, now: u64, port: &mut dyn TxPort) {
        let opts = SegOptions {
            timestamps: self.ts_ok.then_some((Self::ts_val(now), self.ts_recent)),
            ..Default::default()
        };
        let ack = self
            .peer_irs
            .wrapping_add(1)
            .wrapping_add(u32::from(self.peer_fin));
        let f = frame::build(
            &self.cfg.ends,
            seq_of(self.cfg.iss, self.snd_nxt),
            ack,
            tcp_flags::ACK,
            self.adv_window(),
            &opts,
            &[],
        );
        let bytes = f.len() as u64;
        let cookie = self.new_cookie(Posted::Control { bytes, syn: false });
        port.post(
            now,
            TxRequest {
                launch_ns: now,
                frame: f,
                cookie,
            },
        );
    }

    fn build_data_frame(&self, now: u64, seg: &Seg) -> Vec<u8> {
        let payload: Vec<u8> = (seg.off..seg.off + u64::from(seg.len))
            .map(super::frame::pattern_byte)
            .collect();
        let mut fl = tcp_flags::ACK;
        if seg.fin {
            fl |= tcp_flags::FIN;
        }
        if seg.len > 0 {
            fl |= tcp_flags::PSH;
        }
        let opts = SegOptions {
            timestamps: self.ts_ok.then_some((Self::ts_val(now), self.ts_recent)),
            ..Default::default()
        };
        frame::build(
            &self.cfg.ends,
            seq_of(self.cfg.iss, seg.off),
            self.peer_irs
                .wrapping_add(1)
                .wrapping_add(u32::from(self.peer_fin)),
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

    /// Stamp and post a burst of segments (indices into rtx) as one TSO-like unit.
    fn post_burst(&mut self, now: u64, idxs: &[usize], port: &mut dyn TxPort) {
        let burst_bytes: u64 = idxs.iter().map(|&i| u64::from(self.rtx[i].len)).sum();
        if self.ca_state == CaState::Recovery {
            self.prr_out += idxs.len() as u64;
        }
        let data_segs = idxs.len() as u64;
        let launch = match self.cfg.pacing_model {
            PacingModel::Edt => {
                let before = self.edt.wstamp_ns;
                let (launch, prior) = self.edt.stamp(now);
                self.edt
                    .after_send(burst_bytes, data_segs, self.pacing_rate, prior);
                if self.edt.wstamp_ns < before {
                    self.stats.wstamp_backward += 1;
                }
                launch
            }
            PacingModel::Queue => {
                // sch_fq pre-EDT: a flow may dequeue at time_next_packet, which is set to
                // dequeue time + max(len, quantum) / rate (real len below the low-rate limit).
                let launch = self.fq_next_ns.max(now);
                self.edt.data_segs_out += data_segs;
                let rate = self.pacing_rate;
                if rate != 0 && rate != u64::MAX && self.edt.data_segs_out > pacing::UNPACED_SEGS {
                    let wire: u64 = idxs.iter().map(|&i| u64::from(self.rtx[i].len) + 66).sum();
                    let plen = if rate <= FQ_LOW_RATE {
                        wire
                    } else {
                        wire.max(FQ_QUANTUM)
                    };
                    self.fq_next_ns = launch + pacing::len_ns(plen, rate);
                }
                launch
            }
        };
        for &i in idxs {
            let f = self.build_data_frame(now, &self.rtx[i]);
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
            if self.cfg.pacing_model == PacingModel::Queue {
                // Pre-EDT stacks stamped the skb when TCP handed it to the qdisc.
                self.mark_sent(i, now);
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
                        if self.cfg.pacing_model == PacingModel::Edt {
                            // EDT: samples start from the actual departure.
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
            ConnState::Established | ConnState::FinWait => self.on_ack(now, &seg, port),
            _ => {}
        }
    }

    fn established(&mut self, now: u64, seg: &frame::Segment, port: &mut dyn TxPort) {
        self.peer_irs = seg.seq;
        self.sack_ok = seg.options.sack_permitted;
        self.ts_ok = seg.options.timestamps.is_some();
        if let Some((val, _)) = seg.options.timestamps {
            self.ts_recent = val;
        }
        // Scaling applies only when both sides sent the option (RFC 7323 2.2).
        self.snd_wscale = seg.options.wscale.unwrap_or(0).min(14);
        let peer_mss = u64::from(seg.options.mss.unwrap_or(536));
        let opt = if self.ts_ok {
            frame::TS_OPTION_LEN as u64
        } else {
            0
        };
        // Linux TCP_MIN_MSS (88) floors a peer's tiny or zero MSS option.
        self.mss = peer_mss.min(u64::from(self.cfg.mss)).max(88) - opt;
        self.cc_state.mss = self.mss;
        self.snd_wnd = u64::from(seg.window); // not scaled in a SYN-ACK
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
        self.update_pacing_rate();
        self.post_pure_ack(now, port);
    }

    fn record_srtt(&mut self) {
        self.stats.srtt_ns.push(self.rtt.srtt_us * 125); // (us << 3) * 125 = ns
    }

    /// Linux `tcp_rack_advance`.
    fn rack_advance(&mut self, tx_ns: u64, end: u64, retrans: bool, now: u64) {
        let rtt_us = now.saturating_sub(tx_ns) / 1000;
        if retrans && rtt_us < self.min_rtt_us {
            return; // may be the ACK of the original: not a valid sample
        }
        self.rack_rtt_us = rtt_us;
        if tx_ns > self.rack_tx_ns || (tx_ns == self.rack_tx_ns && end > self.rack_end) {
            self.rack_tx_ns = tx_ns;
            self.rack_end = end;
        }
        self.rack_advanced = true;
    }

    /// Linux `tcp_rack_reo_wnd`: min_rtt/4 once reordering was seen; before that, zero when
    /// already in recovery or with 3+ SACKed segments (DUPACK threshold behaviour).
    fn rack_reo_wnd_us(&self) -> u64 {
        let sacked = self.rtx.iter().filter(|s| s.sacked).count();
        super::recovery::rack_reo_wnd_us(
            self.min_rtt_us,
            self.rtt.srtt(),
            self.reord_seen,
            self.ca_state != CaState::Open,
            sacked,
        )
    }

    /// Linux `tcp_rack_detect_loss`: a segment sent before the most recently delivered one
    /// is lost once it has been out longer than rack.rtt + reo_wnd. Returns (newly lost,
    /// time until the next candidate expires).
    fn rack_detect_loss(&mut self, now: u64) -> (u64, Option<u64>) {
        let reo_ns = self.rack_reo_wnd_us() * 1000;
        let rack_rtt_ns = self.rack_rtt_us * 1000;
        let mut lost = 0;
        let mut wait: Option<u64> = None;
        let (rtx_ns, rend) = (self.rack_tx_ns, self.rack_end);
        for s in self.rtx.iter_mut() {
            if s.sacked || s.lost {
                continue;
            }
            let Some(tx) = s.tx_ns else { continue };
            let sent_before = tx < rtx_ns || (tx == rtx_ns && s.end() < rend);
            if !sent_before {
                continue;
            }
            let deadline = tx + rack_rtt_ns + reo_ns;
            if deadline <= now {
                s.lost = true;
                lost += 1;
            } else {
                let rem = deadline - now;
                wait = Some(wait.map_or(rem, |w: u64| w.max(rem)));
            }
        }
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
        self.snd_wnd = u64::from(seg.window) << self.snd_wscale;
        let prior_una = self.snd_una;
        let mut acked_segs = 0u64;
        // Rate sample: the delivered segment with the newest transmit state.
        let mut rs: Option<(TxRate, u64)> = None;
        let take_rate = |r: TxRate, tx: u64, rs: &mut Option<(TxRate, u64)>| {
            if rs.is_none_or(|(p, _)| r.delivered > p.delivered) {
                *rs = Some((r, tx));
            }
        };
        let mut sack_rtt: Option<u64> = None;
        let mut rack_updates: Vec<(u64, u64, bool)> = Vec::new();

        // --- SACK blocks (tcp_sacktag_write_queue).
        if self.sack_ok {
            let iss1 = seq_of(self.cfg.iss, 0);
            for &(l, r) in &seg.options.sack {
                let base = self.snd_una as i128;
                let una_seq = seq_of(self.cfg.iss, self.snd_una);
                let lo = base + i128::from(l.wrapping_sub(una_seq) as i32);
                let hi = base + i128::from(r.wrapping_sub(una_seq) as i32);
                let _ = iss1;
                if lo < base || hi <= lo || hi > self.snd_nxt as i128 {
                    continue; // D-SACK or invalid block: ignored
                }
                let (lo, hi) = (lo as u64, hi as u64);
                for s in self.rtx.iter_mut() {
                    if s.off >= lo && s.end() <= hi && !s.sacked {
                        s.sacked = true;
                        s.lost = false;
                        acked_segs += 1;
                        if let Some(tx) = s.tx_ns {
                            if s.tx_count == 1 {
                                sack_rtt = Some(rx_now.saturating_sub(tx));
                            }
                            take_rate(s.rate, tx, &mut rs);
                            rack_updates.push((tx, s.end(), s.tx_count > 1));
                        }
                        if s.tx_count == 1 && s.end() < self.highest_sacked_end {
                            self.reord_seen = true;
                        }
                        self.highest_sacked_end = self.highest_sacked_end.max(s.end());
                    }
                }
            }
        }

        // --- Cumulative ACK (tcp_clean_rtx_queue).
        let mut first_ackt: Option<u64> = None;
        let mut last_ackt: Option<u64> = None;
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
                    if let Some(tx) = s.tx_ns {
                        if s.tx_count == 1 {
                            first_ackt.get_or_insert(tx);
                            last_ackt = Some(tx);
                            if s.end() < self.highest_sacked_end {
                                self.reord_seen = true;
                            }
                        }
                        take_rate(s.rate, tx, &mut rs);
                        rack_updates.push((tx, s.end(), s.tx_count > 1));
                    }
                }
            }
            self.snd_una = ack;
            self.stats.acked_bytes = self.snd_una.min(self.write_seq);
        }
        let advanced = self.snd_una > prior_una;
        for (tx, end, re) in rack_updates {
            self.rack_advance(tx, end, re, now);
        }
        if acked_segs > 0 {
            self.delivered += acked_segs;
            self.delivered_ns = now;
        }
        if self.app_limited_until != 0 && self.delivered > self.app_limited_until {
            self.app_limited_until = 0;
        }

        // --- RTT (tcp_ack_update_rtt): seq_rtt from the oldest newly acked segment for the
        // estimator, ca_rtt from the newest for min_rtt and congestion control.
        let seq_rtt = first_ackt.map(|t| rx_now.saturating_sub(t)).or(sack_rtt);
        let ca_rtt = last_ackt.map(|t| rx_now.saturating_sub(t)).or(sack_rtt);
        if let Some(r) = seq_rtt {
            let us = (r / 1000).max(1);
            self.rtt.sample(us, self.snd_una, self.snd_nxt);
            self.stats.rtt_ns.push(r);
            self.record_srtt();
        }
        if let Some(r) = ca_rtt {
            let us = (r / 1000).max(1);
            if self.min_rtt_us == 0 || us < self.min_rtt_us {
                self.min_rtt_us = us;
            }
        }

        // --- Rate sample (tcp_rate_gen).
        let rate = rs.and_then(|(r, tx)| {
            let delivered = self.delivered - r.delivered;
            let snd_us = tx.saturating_sub(r.first_tx_ns) / 1000;
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
            // tcp_rate_skb_delivered moves first_tx to the sampled segment's transmit time.
            let _ = r;
            if let Some((_, tx)) = rs {
                self.first_tx_ns = tx;
            }
        }

        // --- RACK loss detection.
        let mut newly_lost = 0;
        if self.rack_advanced || self.ca_state != CaState::Open {
            self.rack_advanced = false;
            let (lost, wait) = self.rack_detect_loss(now);
            newly_lost = lost;
            if let Some(w) = wait {
                self.retrans_timer.arm(now, w, self.cfg.tick_ns);
                self.retrans_pending = RetransPending::Reo;
            }
        }

        // --- Recovery state machine (tcp_fastretrans_alert, simplified: no PRR, no undo).
        if self.ca_state != CaState::Open && self.snd_una >= self.high_seq {
            if self.cc.controls_window() {
                self.cc.on_recovery_end(&mut self.cc_state);
            } else if self.ca_state == CaState::Recovery {
                self.cc_state.cwnd = self.cc_state.ssthresh.max(2);
            }
            self.ca_state = CaState::Open;
        }
        if newly_lost > 0 && self.ca_state == CaState::Open {
            self.enter_recovery();
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
        };
        if self.ca_state != CaState::Recovery || self.cc.controls_window() {
            self.cc.on_ack(&mut self.cc_state, &info);
        }
        self.update_pacing_rate();

        // --- Timers.
        if advanced {
            self.rto_backoff = 0;
        }
        if self.rtx.is_empty() {
            if self.retrans_pending != RetransPending::Reo || !self.rtx.is_empty() {
                self.retrans_timer.cancel();
            }
        } else if advanced || self.retrans_timer.deadline().is_none() {
            self.rearm_rto(now);
            self.schedule_loss_probe(now);
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

    /// Enter fast recovery (Linux `tcp_enter_recovery` + `tcp_init_cwnd_reduction`).
    fn enter_recovery(&mut self) {
        self.ca_state = CaState::Recovery;
        self.stats.recoveries += 1;
        self.high_seq = self.snd_nxt;
        let inflight = self.in_flight();
        if self.cc.controls_window() {
            self.cc.on_recovery_start(&mut self.cc_state, inflight);
        } else {
            self.prior_cwnd = self.cc_state.cwnd;
            self.prr_delivered = 0;
            self.prr_out = 0;
            let ss = self.cc.ssthresh(&self.cc_state);
            self.cc_state.ssthresh = ss;
        }
    }

    /// Proportional Rate Reduction (RFC 6937, Linux `tcp_cwnd_reduction`): while in flight
    /// is above ssthresh, send `ssthresh / prior_cwnd` of what is delivered; below it, grow
    /// back toward ssthresh by at most what was delivered (+1 when snd_una advanced and
    /// nothing new was lost). At least one segment on entry (the fast retransmit).
    fn cwnd_reduction(&mut self, newly_acked_sacked: u64, newly_lost: u64, una_advanced: bool) {
        if newly_acked_sacked == 0 && self.prr_out > 0 {
            return;
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
    fn schedule_loss_probe(&mut self, now: u64) {
        if self.ca_state != CaState::Open || self.rtx.is_empty() || !self.sack_ok {
            return;
        }
        if self.tlp_high_seq.is_some() {
            return;
        }
        let mut pto =
            super::recovery::tlp_timeout_ns(self.rtt.srtt(), self.rtx.len(), self.cfg.tick_ns)
                + self.pacing_delay_ns(now);
        // If the RTO would fire earlier, probe at the RTO time instead.
        if let Some(d) = self.retrans_timer.deadline() {
            if self.retrans_pending == RetransPending::Rto {
                pto = pto.min(d.saturating_sub(now));
            }
        }
        self.retrans_timer.arm(now, pto, self.cfg.tick_ns);
        self.retrans_pending = RetransPending::Tlp;
    }

    /// Run the timers that are due at `now`.
    pub fn on_timers(&mut self, now: u64, port: &mut dyn TxPort) {
        if self.pacing_timer.fire_due(now) {
            self.xmit(now, port);
        }
        if !self.retrans_timer.fire_due(now) {
            return;
        }
        match self.state {
            ConnState::SynSent => {
                self.syn_retries += 1;
                self.post_syn(now, port);
                return;
            }
            ConnState::Established | ConnState::FinWait => {}
            _ => return,
        }
        if self.rtx.is_empty() {
            return;
        }
        match self.retrans_pending {
            RetransPending::Reo => {
                let (lost, wait) = self.rack_detect_loss(now);
                if lost > 0 && self.ca_state == CaState::Open {
                    self.enter_recovery();
                    if !self.cc.controls_window() {
                        // Force the fast retransmit (PRR's "at least one on entry").
                        self.cc_state.cwnd = self.in_flight() + 1;
                    }
                }
                if let Some(w) = wait {
                    self.retrans_timer.arm(now, w, self.cfg.tick_ns);
                    self.retrans_pending = RetransPending::Reo;
                } else {
                    self.rearm_rto(now);
                }
                self.xmit(now, port);
            }
            RetransPending::Tlp => {
                self.stats.tlp_probes += 1;
                self.tlp_high_seq = Some(self.snd_nxt);
                // Probe with new data if allowed, else retransmit the last segment.
                let before = self.snd_nxt;
                self.xmit_new_one(now, port);
                if self.snd_nxt == before {
                    // Linux skb_still_in_host_queue: never retransmit a segment the card has
                    // not sent yet.
                    if let Some(i) = (0..self.rtx.len()).rev().find(|&i| !self.rtx[i].sacked) {
                        if !self.rtx[i].on_card {
                            self.post_burst(now, &[i], port);
                        }
                    }
                }
                self.rearm_rto(now);
            }
            RetransPending::Rto => {
                // tcp_enter_loss: everything not SACKed is lost; cwnd to 1.
                self.stats.rto_fires += 1;
                if !self.cc.controls_window() {
                    let ss = self.cc.ssthresh(&self.cc_state);
                    self.cc_state.ssthresh = ss;
                }
                self.cc_state.cwnd = 1;
                self.cc.on_rto(&mut self.cc_state);
                for s in self.rtx.iter_mut() {
                    if !s.sacked {
                        s.lost = true;
                    }
                }
                self.ca_state = CaState::Loss;
                self.high_seq = self.snd_nxt;
                self.tlp_high_seq = None;
                self.rto_backoff += 1;
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
        if avail == 0 || self.snd_nxt >= rwnd_end {
            return;
        }
        let len = avail.min(self.mss).min(rwnd_end - self.snd_nxt);
        let i = self.push_seg(len, false);
        self.post_burst(now, &[i], port);
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
        if !matches!(self.state, ConnState::Established | ConnState::FinWait) {
            return;
        }
        if self.pacing_rate == 0 {
            self.update_pacing_rate();
        }
        let mut cwnd_stop = false;
        loop {
            let burst_segs = pacing::tso_autosize_segs(self.pacing_rate, self.mss);
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
                .filter(|&i| self.rtx[i].lost && !self.rtx[i].on_card)
                .take(quota)
                .collect();
            let rwnd_end = self.snd_una + self.snd_wnd;
            let avail = self.write_seq - self.snd_nxt.min(self.write_seq);
            let fin_pending = self.fin_queued && !self.fin_sent;
            if lost.is_empty() && avail == 0 && !fin_pending {
                // Nothing to send: application-limited (tcp_rate_check_app_limited).
                if in_flight < cwnd {
                    self.app_limited_until = (self.delivered + in_flight).max(1);
                }
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
                    let at = self.edt.wstamp_ns + self.next_wakeup_jitter_ns;
                    self.pacing_timer.arm_at(at);
                }
                break;
            }
            let idxs: Vec<usize> = if !lost.is_empty() {
                lost
            } else {
                let mut v = Vec::new();
                let mut left = avail.min(rwnd_end.saturating_sub(self.snd_nxt));
                while v.len() < quota && left > 0 {
                    let len = left.min(self.mss);
                    left -= len;
                    let fin = fin_pending && left == 0 && self.snd_nxt + len == self.write_seq;
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

    fn schedule_tlp_after_send(&mut self, now: u64) {
        if self.retrans_timer.deadline().is_none() {
            self.rearm_rto(now);
        }
        if self.retrans_pending == RetransPending::Rto {
            self.schedule_loss_probe(now);
        }
    }
}
