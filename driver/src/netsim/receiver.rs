//! A TCP receiver: the far end of the simulated path.
//!
//! It answers the handshake (MSS, window scale, SACK-permitted, timestamps), keeps a
//! cumulative ACK and an out-of-order map, reports SACK blocks (RFC 2018: the block holding the
//! newest segment first) and D-SACK blocks (RFC 2883) for duplicates, echoes timestamps (RFC 7323
//! `TS.Recent`) and advertises a scaled window. ACKs follow Linux (`__tcp_ack_snd_check`): up to
//! 16 quick ACKs at the start (`tcp_incr_quickack`) and after a duplicate, then an ACK once more
//! than one MSS is unacknowledged, else after the 40 ms delayed-ACK timer. The window starts
//! near 64 KB and grows by dynamic right-sizing (`tcp_rcv_space_adjust`) up to `rcv_buf`.
//! The application is modelled as reading in-order data at once, and the receiver checks
//! every payload byte against [`pattern_byte`], so tests can prove each byte arrived exactly once,
//! in order, with the right contents.

use std::collections::BTreeMap;

use super::gro::{self, GroConfig};
use super::wire::{self, flags, TcpFrame, TcpOptions};
use crate::edt::frame::pattern_byte;

/// Receiver settings.
#[derive(Debug, Clone)]
pub struct ReceiverConfig {
    /// The most the receiver ever advertises, bytes (tcp_rmem[2]-like; autotuning stops here).
    pub rcv_buf: u32,
    /// Grow the window by dynamic right-sizing (Linux tcp_moderate_rcvbuf); off: the window
    /// is `rcv_buf` from the start.
    pub autotune: bool,
    /// Window scale shift the receiver offers (RFC 7323, at most 14).
    pub wscale: u8,
    /// MSS the receiver offers in its SYN-ACK.
    pub mss: u16,
    /// Delayed-ACK timeout (Linux TCP_DELACK_MIN is 40 ms).
    pub delack_ns: u64,
    /// Quick ACKs (one per data segment) at the start and after a duplicate (Linux
    /// TCP_MAX_QUICKACKS, 16).
    pub max_quickacks: u32,
    /// Request/response mode: once every this many bytes the application "answers", which the
    /// model sends as an immediate ACK (the response carries no payload).
    pub rr_request: Option<u64>,
    /// SACK compression (Linux 4.18+, `__tcp_ack_snd_check`): while data is held out of order,
    /// after 3 immediate ACKs per rcv_nxt, at most this many ACKs are held back
    /// (sysctl tcp_comp_sack_nr, 44; 0: every out-of-order segment is ACKed at once)...
    pub comp_sack_nr: u32,
    /// ...each for at most min(RTT / 20, this) (sysctl tcp_comp_sack_delay_ns, 1 ms)...
    pub comp_sack_delay_ns: u64,
    /// ...plus this slack. Linux arms the timer with `hrtimer_start_range_ns(delay, slack)`,
    /// sysctl tcp_comp_sack_slack_ns 100 us: it fires anywhere in [delay, delay + slack], at
    /// the end (the hard expiry the clock event is programmed for) when no other hrtimer
    /// interrupt comes first. Default 0 (the soft expiry, the earliest Linux fires it): with
    /// 100 us the CUBIC goodput bar measures 896.7 Mbit/s, under its 900 (docs/EDT.md).
    pub comp_sack_slack_ns: u64,
    /// A NAPI poll and GRO in front of TCP (Linux's default: GRO on); None: every frame
    /// reaches TCP alone, at its arrival (the model before 2026-12-08). See [`super::gro`].
    pub gro: Option<GroConfig>,
}

impl Default for ReceiverConfig {
    fn default() -> Self {
        ReceiverConfig {
            rcv_buf: 6 * 1024 * 1024,
            wscale: 7,
            mss: 1460,
            delack_ns: 40_000_000,
            autotune: true,
            max_quickacks: 16,
            rr_request: None,
            comp_sack_nr: 44,
            comp_sack_delay_ns: 1_000_000,
            comp_sack_slack_ns: 0,
            gro: None,
        }
    }
}

/// Where the receiver's connection is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RcvState {
    Listen,
    SynReceived,
    Established,
    /// FIN received and our own FIN sent; waiting for its ACK.
    LastAck,
    Closed,
}

/// Counters a test or report reads.
#[derive(Debug, Clone, Default)]
pub struct ReceiverStats {
    /// In-order bytes handed to the application.
    pub delivered: u64,
    /// Payload bytes that arrived again after they had already been received.
    pub duplicate_bytes: u64,
    /// Payload bytes whose contents did not match the pattern.
    pub corrupt_bytes: u64,
    /// Payload bytes outside the advertised window (dropped).
    pub beyond_window_bytes: u64,
    /// Data segments as they arrived (before GRO).
    pub data_segments: u64,
    /// Data packets TCP processed (after GRO; equal to `data_segments` without it).
    pub data_packets: u64,
    pub acks_sent: u64,
    /// ACKs held back by SACK compression and never sent (Linux TCPAckCompressed).
    pub acks_compressed: u64,
    pub fin_received: bool,
    /// Frames the receiver could not parse (bad checksum etc.).
    pub bad_frames: u64,
}

/// The receiving end of one connection.
#[derive(Debug, Clone)]
pub struct TcpReceiver {
    cfg: ReceiverConfig,
    pub state: RcvState,
    // Addresses of this end (local) and the sender (peer), learned from the SYN.
    local_mac: [u8; 6],
    peer_mac: [u8; 6],
    local_ip: [u8; 4],
    peer_ip: [u8; 4],
    local_port: u16,
    peer_port: u16,
    iss: u32,
    /// Peer's initial sequence number; stream offset 0 is `irs + 1`.
    irs: u32,
    /// Next expected stream offset (cumulative ACK point, in 64-bit stream offsets).
    rcv_nxt: u64,
    /// Out-of-order data: start offset -> end offset, non-overlapping, non-adjacent.
    ooo: BTreeMap<u64, u64>,
    /// Start offsets of SACK blocks, most recently changed first.
    sack_order: Vec<u64>,
    fin_offset: Option<u64>,
    peer_sack_ok: bool,
    peer_ts_ok: bool,
    /// Window scale we apply to our advertised window (0 if the peer did not offer scaling).
    rcv_wscale: u8,
    ts_recent: u32,
    delack_deadline: Option<u64>,
    /// rcv_nxt when the last ACK was sent (Linux rcv_wup).
    rcv_wup: u64,
    /// Largest segment payload seen (Linux icsk_ack.rcv_mss, starting at 536).
    rcv_mss: u64,
    /// Quick ACKs left (Linux icsk_ack.quick); None before the first data segment.
    quick: Option<u32>,
    /// A duplicate range (stream offsets) to report as the first SACK block of the next ACK.
    dsack: Option<(u64, u64)>,
    /// The window advertised now, bytes (Linux window_clamp; grows, never shrinks).
    window: u64,
    /// Dynamic right-sizing state (Linux rcvq_space and rcv_rtt_est).
    rcvq_space: u64,
    rcvq_seq: u64,
    rcvq_time: u64,
    rcv_rtt_ns: u64,
    rcv_rtt_seq: u64,
    rcv_rtt_time: Option<u64>,
    /// SACK compression (Linux `compressed_ack`, `compressed_ack_rcv_nxt`, `dup_ack_counter`,
    /// `compressed_ack_timer`).
    compressed_ack: u32,
    compressed_ack_rcv_nxt: u64,
    dup_ack_counter: u32,
    comp_deadline: Option<u64>,
    /// When the SYN-ACK left, and the handshake RTT it gave (Linux's srtt of a receiver that
    /// sends no data: `tcp_synack_rtt_meas`), ns.
    synack_ns: Option<u64>,
    srtt_ns: u64,
    pub stats: ReceiverStats,
}

/// What a data segment asks of the ACK (`take_payload`).
enum AckDue {
    Now,
    Ofo,
    Normal,
}

/// Linux TCP_MSS_DEFAULT: the receive MSS estimate before any data.
const MSS_DEFAULT: u64 = 536;

impl TcpReceiver {
    /// A listening receiver on `local_port`. `iss` is its initial sequence number.
    pub fn new(cfg: ReceiverConfig, local_port: u16, iss: u32) -> Self {
        TcpReceiver {
            cfg,
            state: RcvState::Listen,
            local_mac: [0; 6],
            peer_mac: [0; 6],
            local_ip: [0; 4],
            peer_ip: [0; 4],
            local_port,
            peer_port: 0,
            iss,
            irs: 0,
            rcv_nxt: 0,
            ooo: BTreeMap::new(),
            sack_order: Vec::new(),
            fin_offset: None,
            peer_sack_ok: false,
            peer_ts_ok: false,
            rcv_wscale: 0,
            ts_recent: 0,
            delack_deadline: None,
            rcv_wup: 0,
            rcv_mss: MSS_DEFAULT,
            quick: None,
            dsack: None,
            window: 0,
            rcvq_space: 0,
            rcvq_seq: 0,
            rcvq_time: 0,
            rcv_rtt_ns: 0,
            rcv_rtt_seq: 0,
            rcv_rtt_time: None,
            compressed_ack: 0,
            compressed_ack_rcv_nxt: 0,
            dup_ack_counter: 0,
            comp_deadline: None,
            synack_ns: None,
            srtt_ns: 0,
            stats: ReceiverStats::default(),
        }
    }

    /// The earliest pending ACK timer (delayed ACK or SACK compression), if any.
    pub fn delack_deadline(&self) -> Option<u64> {
        match (self.delack_deadline, self.comp_deadline) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Bytes held out of order.
    pub fn ooo_bytes(&self) -> u64 {
        self.ooo.iter().map(|(s, e)| e - s).sum()
    }

    /// The cumulative ACK point as a stream offset.
    pub fn rcv_nxt_offset(&self) -> u64 {
        self.rcv_nxt
    }

    fn rcv_nxt_seq(&self) -> u32 {
        // +1 for the SYN; +1 more once the FIN is consumed (rcv_nxt then counts it).
        self.irs.wrapping_add(1).wrapping_add(self.rcv_nxt as u32)
    }

    /// Map a 32-bit sequence number to a 64-bit stream offset near rcv_nxt.
    fn offset_of(&self, seq: u32) -> i128 {
        let d = seq.wrapping_sub(self.rcv_nxt_seq()) as i32;
        self.rcv_nxt as i128 + i128::from(d)
    }

    /// The application reads in-order data at once, so the window is all of the current
    /// window clamp; the clamp only grows, so the right edge never moves left (RFC 9293
    /// 3.8.6: a receiver should not shrink the window).
    fn window_bytes(&self) -> u64 {
        self.window
    }

    /// The advertised window now, bytes.
    pub fn window(&self) -> u64 {
        self.window
    }

    /// Linux `tcp_rcv_rtt_measure` (the receiver's RTT without timestamps): the time to
    /// receive one window of data, keeping the minimum.
    fn rcv_rtt_measure(&mut self, now: u64) {
        if let Some(t) = self.rcv_rtt_time {
            if self.rcv_nxt < self.rcv_rtt_seq {
                return;
            }
            let m = (now - t).max(1);
            self.rcv_rtt_ns = if self.rcv_rtt_ns == 0 {
                m
            } else {
                self.rcv_rtt_ns.min(m)
            };
        }
        self.rcv_rtt_seq = self.rcv_nxt + self.window;
        self.rcv_rtt_time = Some(now);
    }

    /// Linux `tcp_rcv_space_adjust` (dynamic right-sizing), after the application read: once
    /// per receiver RTT, if it read more than in the previous RTT, the window becomes twice
    /// that plus 16 MSS, more while the amount is still growing, at most `rcv_buf`.
    fn rcv_space_adjust(&mut self, now: u64) {
        if !self.cfg.autotune || self.rcv_rtt_ns == 0 || now - self.rcvq_time < self.rcv_rtt_ns {
            return;
        }
        let copied = self.rcv_nxt - self.rcvq_seq;
        if copied > self.rcvq_space {
            let mut rcvwin = 2 * copied + 16 * self.rcv_mss;
            let grow = rcvwin * (copied - self.rcvq_space) / self.rcvq_space.max(1);
            rcvwin += 2 * grow;
            self.window = self.window.max(rcvwin.min(u64::from(self.cfg.rcv_buf)));
            self.rcvq_space = copied;
        }
        self.rcvq_seq = self.rcv_nxt;
        self.rcvq_time = now;
    }

    fn ts_now(now_ns: u64) -> u32 {
        // Linux's TCP timestamp clock ticks in milliseconds.
        (now_ns / 1_000_000) as u32
    }

    fn reply(&mut self, now: u64, fl: u8, options: TcpOptions, seq: u32) -> Vec<u8> {
        let window = if fl & flags::SYN != 0 {
            // The window in a SYN or SYN-ACK is never scaled.
            self.window_bytes().min(65535) as u16
        } else {
            (self.window_bytes() >> self.rcv_wscale).min(65535) as u16
        };
        let mut options = options;
        if self.peer_ts_ok {
            options.timestamps = Some((Self::ts_now(now), self.ts_recent));
        }
        self.stats.acks_sent += 1;
        wire::build(&TcpFrame {
            src_mac: self.local_mac,
            dst_mac: self.peer_mac,
            src_ip: self.local_ip,
            dst_ip: self.peer_ip,
            src_port: self.local_port,
            dst_port: self.peer_port,
            seq,
            ack: self.rcv_nxt_seq(),
            flags: fl,
            window,
            options,
            payload: Vec::new(),
        })
    }

    fn sack_blocks(&self) -> Vec<(u32, u32)> {
        if !self.peer_sack_ok {
            return Vec::new();
        }
        let base = self.irs.wrapping_add(1);
        // 40 option bytes: 3 blocks fit beside timestamps, 4 without.
        let room = if self.peer_ts_ok { 3 } else { 4 };
        // A FIN held out of order takes one sequence number at the end of its block (Linux
        // queues the FIN's skb with `end_seq = seq + len + 1` and SACKs `[seq, end_seq)`:
        // tcp_data_queue_ofo -> tcp_sack_new_ofo_skb).
        let fin = self.fin_offset;
        self.dsack
            .into_iter()
            .chain(self.sack_order.iter().filter_map(|s| {
                self.ooo
                    .get(s)
                    .map(|e| (*s, *e + u64::from(fin == Some(*e))))
            }))
            .take(room)
            .map(|(s, e)| (base.wrapping_add(s as u32), base.wrapping_add(e as u32)))
            .collect()
    }

    fn ack_now(&mut self, now: u64) -> Vec<u8> {
        self.delack_deadline = None;
        // tcp_event_ack_sent -> tcp_sack_compress_send_ack's reset: what was held back is
        // covered by this ACK
        self.stats.acks_compressed += u64::from(self.compressed_ack);
        self.compressed_ack = 0;
        self.comp_deadline = None;
        self.rcv_wup = self.rcv_nxt;
        // tcp_dec_quickack_mode: one quick ACK used.
        if let Some(q) = self.quick.as_mut() {
            *q = q.saturating_sub(1);
        }
        let opts = TcpOptions {
            sack: self.sack_blocks(),
            ..Default::default()
        };
        self.dsack = None;
        let seq = self.iss.wrapping_add(1);
        self.reply(now, flags::ACK, opts, seq)
    }

    /// Linux `tcp_incr_quickack`: up to `max_quickacks`, at most a window's worth of
    /// ACK-every-other-segment.
    fn incr_quickack(&mut self) {
        let q = (self.window / (2 * self.rcv_mss)).max(2);
        let q = q.min(u64::from(self.cfg.max_quickacks)) as u32;
        if self.quick.is_none_or(|c| q > c) {
            self.quick = Some(q);
        }
    }

    /// The delayed-ACK and SACK-compression timers: call at or after
    /// [`Self::delack_deadline`]. The compression timer sends the held-back ACK
    /// (`tcp_compressed_ack_kick`, which counts it as sent, not compressed).
    pub fn on_timer(&mut self, now: u64) -> Option<Vec<u8>> {
        if self.comp_deadline.is_some_and(|d| now >= d) {
            self.compressed_ack = self.compressed_ack.saturating_sub(1);
            return Some(self.ack_now(now));
        }
        match self.delack_deadline {
            Some(d) if now >= d => Some(self.ack_now(now)),
            _ => None,
        }
    }

    /// The out-of-order branch of Linux `__tcp_ack_snd_check` (SACK compression): without
    /// SACK or after `comp_sack_nr` held-back ACKs, ACK now; the first 3 ACKs for each rcv_nxt
    /// go at once (the sender's duplicate-ACK threshold); later ones are held back until an
    /// ACK is sent for another reason or the timer fires, min(RTT / 20, comp_sack_delay) +
    /// comp_sack_slack after the first, RTT being the receiver's estimate (`rcv_rtt_est`) or the
    /// handshake RTT if smaller (Linux 6.18; 6.19's tcp_comp_sack_rtt_percent, 33 %, and 10 us
    /// slack are not modeled).
    fn ack_ofo(&mut self, now: u64) -> Option<Vec<u8>> {
        if !self.peer_sack_ok || self.compressed_ack >= self.cfg.comp_sack_nr {
            return Some(self.ack_now(now));
        }
        if self.compressed_ack_rcv_nxt != self.rcv_nxt {
            self.compressed_ack_rcv_nxt = self.rcv_nxt;
            self.dup_ack_counter = 0;
        }
        if self.dup_ack_counter < 3 {
            self.dup_ack_counter += 1;
            return Some(self.ack_now(now));
        }
        self.compressed_ack += 1;
        if self.comp_deadline.is_none() {
            let mut rtt = self.rcv_rtt_ns;
            if self.srtt_ns != 0 && self.srtt_ns < rtt {
                rtt = self.srtt_ns;
            }
            // Linux keeps both RTTs in us << 3: `rtt * (NSEC_PER_USEC >> 3) / 20` ns
            let rtt_us8 = (rtt / 1000) << 3;
            let delay = (rtt_us8 * (1000 >> 3) / 20).min(self.cfg.comp_sack_delay_ns);
            self.comp_deadline = Some(now + delay + self.cfg.comp_sack_slack_ns);
        }
        None
    }

    /// Insert [s, e) into the out-of-order map, merging neighbours; returns the merged start.
    fn insert_ooo(&mut self, mut s: u64, mut e: u64) -> u64 {
        let overlapping: Vec<(u64, u64)> = self
            .ooo
            .range(..=e)
            .filter(|(&bs, &be)| be >= s && bs <= e)
            .map(|(a, b)| (*a, *b))
            .collect();
        for (bs, be) in overlapping {
            self.ooo.remove(&bs);
            self.sack_order.retain(|x| *x != bs);
            s = s.min(bs);
            e = e.max(be);
        }
        self.ooo.insert(s, e);
        self.sack_order.insert(0, s);
        s
    }

    /// Handle one frame from the sender; returns the frames to send back (at `now`).
    pub fn on_frame(&mut self, now: u64, frame: &[u8]) -> Vec<Vec<u8>> {
        match wire::parse(frame) {
            Ok(f) => {
                let gso = f.payload.len();
                self.on_packet(now, f, gso, 1)
            }
            Err(_) => {
                self.stats.bad_frames += 1;
                Vec::new()
            }
        }
    }

    /// The frames of one NAPI poll, in arrival order, handled at `now` (the poll's time):
    /// merged by GRO first when [`ReceiverConfig::gro`] is set (TCP then sees, and ACKs, each
    /// merged packet as one segment: `napi_gro_receive` .. `tcp_rcv_established`), else each
    /// frame alone as [`Self::on_frame`]. Returns the frames to send back.
    pub fn on_frames(&mut self, now: u64, frames: &[Vec<u8>]) -> Vec<Vec<u8>> {
        let mut parsed = Vec::with_capacity(frames.len());
        for fr in frames {
            match wire::parse(fr) {
                Ok(f) => parsed.push(f),
                Err(_) => self.stats.bad_frames += 1,
            }
        }
        let mut out = Vec::new();
        match self.cfg.gro.as_ref().map(|g| g.max_bytes) {
            Some(max) => {
                for p in gro::merge(parsed, max) {
                    out.extend(self.on_packet(now, p.frame, p.gso_size, p.segs));
                }
            }
            None => {
                for f in parsed {
                    let gso = f.payload.len();
                    out.extend(self.on_packet(now, f, gso, 1));
                }
            }
        }
        out
    }

    /// The GRO settings, if GRO is on.
    pub fn gro(&self) -> Option<&GroConfig> {
        self.cfg.gro.as_ref()
    }

    /// One packet as TCP receives it: `segs` wire segments of `gso_size` payload bytes each
    /// (the last may be shorter).
    fn on_packet(&mut self, now: u64, f: TcpFrame, gso_size: usize, segs: u32) -> Vec<Vec<u8>> {
        if f.flags & flags::RST != 0 {
            self.state = RcvState::Closed;
            return Vec::new();
        }
        match self.state {
            RcvState::Listen | RcvState::SynReceived if f.flags & flags::SYN != 0 => {
                self.local_mac = f.dst_mac;
                self.peer_mac = f.src_mac;
                self.local_ip = f.dst_ip;
                self.peer_ip = f.src_ip;
                self.peer_port = f.src_port;
                self.irs = f.seq;
                self.rcv_nxt = 0;
                self.peer_sack_ok = f.options.sack_permitted;
                self.peer_ts_ok = f.options.timestamps.is_some();
                if let Some((val, _)) = f.options.timestamps {
                    self.ts_recent = val;
                }
                // RFC 7323: scaling is used only if both sides offer it.
                self.rcv_wscale = if f.options.wscale.is_some() {
                    self.cfg.wscale.min(14)
                } else {
                    0
                };
                self.state = RcvState::SynReceived;
                // tcp_select_initial_window: about 64 KB, whole segments of the peer's MSS
                // (less the timestamps option); with autotuning off, the whole buffer.
                let mss = u64::from(f.options.mss.unwrap_or(536))
                    .saturating_sub(if self.peer_ts_ok { 12 } else { 0 })
                    .max(88);
                self.window = if self.cfg.autotune {
                    (65_535 / mss * mss).min(u64::from(self.cfg.rcv_buf))
                } else {
                    u64::from(self.cfg.rcv_buf)
                };
                self.rcvq_space = (10 * mss).min(self.window);
                let opts = TcpOptions {
                    mss: Some(self.cfg.mss),
                    wscale: f.options.wscale.map(|_| self.rcv_wscale),
                    sack_permitted: self.peer_sack_ok,
                    ..Default::default()
                };
                let iss = self.iss;
                self.synack_ns = Some(now);
                vec![self.reply(now, flags::SYN | flags::ACK, opts, iss)]
            }
            RcvState::Listen => {
                // No connection: answer with a reset (RFC 9293 3.10.7.1).
                vec![Self::reset_for(&f)]
            }
            RcvState::Closed => Vec::new(),
            _ => self.on_segment(now, f, gso_size, segs),
        }
    }

    /// The RST a host sends for a segment that reaches no connection (RFC 9293 3.10.7.1);
    /// None for a segment that is itself a reset.
    pub fn reset_reply(frame: &[u8]) -> Option<Vec<u8>> {
        let f = wire::parse(frame).ok()?;
        if f.flags & flags::RST != 0 {
            return None;
        }
        Some(Self::reset_for(&f))
    }

    fn reset_for(f: &TcpFrame) -> Vec<u8> {
        let (seq, ack, fl) = if f.flags & flags::ACK != 0 {
            (f.ack, 0, flags::RST)
        } else {
            let len = f.payload.len() as u32 + u32::from(f.flags & (flags::SYN | flags::FIN) != 0);
            (0, f.seq.wrapping_add(len), flags::RST | flags::ACK)
        };
        wire::build(&TcpFrame {
            src_mac: f.dst_mac,
            dst_mac: f.src_mac,
            src_ip: f.dst_ip,
            dst_ip: f.src_ip,
            src_port: f.dst_port,
            dst_port: f.src_port,
            seq,
            ack,
            flags: fl,
            window: 0,
            options: TcpOptions::default(),
            payload: Vec::new(),
        })
    }

    fn on_segment(&mut self, now: u64, f: TcpFrame, gso_size: usize, segs: u32) -> Vec<Vec<u8>> {
        if f.flags & flags::SYN != 0 {
            // A retransmitted SYN while established: repeat the ACK.
            return vec![self.ack_now(now)];
        }
        if self.state == RcvState::SynReceived && f.flags & flags::ACK != 0 {
            self.state = RcvState::Established;
            if let Some(t) = self.synack_ns.take() {
                self.srtt_ns = now.saturating_sub(t).max(1);
            }
        }
        if self.state == RcvState::LastAck {
            if f.flags & flags::ACK != 0 && f.ack == self.iss.wrapping_add(2) {
                self.state = RcvState::Closed;
            }
            return Vec::new();
        }
        let start = self.offset_of(f.seq);
        // RFC 7323 TS.Recent: remember the timestamp of a segment that starts at or before
        // the point we will acknowledge.
        if let Some((val, _)) = f.options.timestamps {
            if start <= self.rcv_nxt as i128 {
                self.ts_recent = val;
            }
        }
        let mut immediate = false;
        // out-of-order data held (or a hole filled with more still held): the ACK may be
        // compressed
        let mut ofo = false;
        if !f.payload.is_empty() {
            self.stats.data_segments += u64::from(segs);
            self.stats.data_packets += 1;
            // tcp_event_data_recv: measure rcv_mss (from the GRO packet's gso_size,
            // tcp_measure_rcv_mss) and the receiver RTT; the first data segment starts
            // quick-ACK mode.
            self.rcv_mss = self.rcv_mss.max(gso_size as u64);
            if self.quick.is_none() {
                self.incr_quickack();
            }
            match self.take_payload(start, &f.payload) {
                AckDue::Now => immediate = true,
                AckDue::Ofo => ofo = true,
                AckDue::Normal => {}
            }
            self.rcv_rtt_measure(now);
            self.rcv_space_adjust(now);
        }
        if f.flags & flags::FIN != 0 {
            let fin_at = start + f.payload.len() as i128;
            if fin_at >= 0 {
                self.fin_offset = Some(fin_at as u64);
            }
        }
        let mut out = Vec::new();
        if let Some(fin) = self.fin_offset {
            if fin == self.rcv_nxt && !self.stats.fin_received {
                // Consume the FIN, then close our side too (the application has read all).
                self.stats.fin_received = true;
                self.rcv_nxt += 1;
                self.delack_deadline = None;
                self.comp_deadline = None;
                self.stats.acks_compressed += u64::from(self.compressed_ack);
                self.compressed_ack = 0;
                let seq = self.iss.wrapping_add(1);
                out.push(self.reply(now, flags::FIN | flags::ACK, TcpOptions::default(), seq));
                self.state = RcvState::LastAck;
                return out;
            }
        }
        if f.payload.is_empty() {
            return out;
        }
        if let Some(req) = self.cfg.rr_request {
            if req > 0 && self.rcv_nxt.is_multiple_of(req) && self.rcv_nxt > 0 {
                immediate = true;
            }
        }
        // __tcp_ack_snd_check: more than one full segment unacknowledged, quick-ACK mode, or
        // an event that asks for an immediate ACK.
        let quick = self.quick.is_some_and(|q| q > 0);
        if immediate || quick || self.rcv_nxt - self.rcv_wup > self.rcv_mss {
            out.push(self.ack_now(now));
        } else if ofo && !self.ooo.is_empty() {
            out.extend(self.ack_ofo(now));
        } else if self.delack_deadline.is_none() {
            self.delack_deadline = Some(now + self.cfg.delack_ns);
        }
        out
    }

    /// Accept payload at stream offset `start`; returns whether an ACK is due at once (a
    /// duplicate, data beyond the window, the last hole filled: RFC 5681 4.2, Linux
    /// ICSK_ACK_NOW) or as out-of-order data (held out of order, or a hole filled while more
    /// is held: SACK compression may hold it back).
    fn take_payload(&mut self, start: i128, payload: &[u8]) -> AckDue {
        let end = start + payload.len() as i128;
        let nxt = self.rcv_nxt as i128;
        let win_end = nxt + self.window_bytes() as i128;
        if end <= nxt {
            // A retransmission of data we have: D-SACK it (tcp_dsack_set) and go back to
            // quick ACKs (tcp_enter_quickack_mode).
            self.stats.duplicate_bytes += payload.len() as u64;
            self.dsack = Some((start.max(0) as u64, end as u64));
            self.incr_quickack();
            return AckDue::Now;
        }
        // Check contents of every byte we keep.
        let s = start.max(nxt);
        let e = end.min(win_end);
        if e < end {
            self.stats.beyond_window_bytes += (end - e.max(s)) as u64;
        }
        if e <= s {
            return AckDue::Now;
        }
        if s > start {
            self.stats.duplicate_bytes += (s - start) as u64;
            self.dsack = Some((start.max(0) as u64, s as u64));
        }
        for off in s..e {
            let b = payload[(off - start) as usize];
            if b != pattern_byte(off as u64) {
                self.stats.corrupt_bytes += 1;
            }
        }
        let (s, e) = (s as u64, e as u64);
        if s == self.rcv_nxt {
            let had_holes = !self.ooo.is_empty();
            // Count bytes already held out of order inside [s, e) as duplicates.
            let mut new_end = e;
            let dup: u64 = self.ooo.range(s..e).map(|(bs, be)| be.min(&e) - bs).sum();
            self.stats.duplicate_bytes += dup;
            // Advance over the new data and every out-of-order block it now touches.
            while let Some((&bs, &be)) = self.ooo.iter().next() {
                if bs > new_end {
                    break;
                }
                self.ooo.remove(&bs);
                self.sack_order.retain(|x| *x != bs);
                new_end = new_end.max(be);
            }
            self.stats.delivered += new_end - self.rcv_nxt;
            self.rcv_nxt = new_end;
            match (had_holes, self.ooo.is_empty()) {
                (false, _) => AckDue::Normal,
                (true, true) => AckDue::Now,
                (true, false) => AckDue::Ofo,
            }
        } else {
            let before = self.ooo_bytes();
            let held = self
                .ooo
                .range(..e)
                .find(|(&bs, &be)| bs <= s && be >= e)
                .is_some();
            self.insert_ooo(s, e);
            let added = self.ooo_bytes() - before;
            self.stats.duplicate_bytes += (e - s) - added;
            if held {
                // All of it already held out of order: D-SACK (tcp_data_queue_ofo).
                self.dsack = Some((s, e));
                return AckDue::Now;
            }
            AckDue::Ofo
        }
    }
}
