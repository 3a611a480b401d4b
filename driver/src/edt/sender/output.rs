//! The transmit path (Linux net/ipv4/tcp_output.c):
//! - `xmit` / `xmit_inner`: `tcp_write_xmit` with `tcp_xmit_retransmit_queue` first,
//!   `tcp_cwnd_test`, `tcp_snd_wnd_test`, `tcp_small_queue_check` (TSQ), `tcp_tso_autosize`,
//!   `tcp_pacing_check` (host pacing), `tcp_nagle_test` / `tcp_should_autocork`
//!   (`hold_partial_tail`), `tcp_cwnd_validate`, `tcp_check_probe_timer`;
//! - `post_burst`: `tcp_transmit_skb` + `tcp_update_skb_after_send` (EDT stamp, `tcp_wstamp_ns`),
//!   `tcp_event_data_sent`; `tso_packets_psh`: `tso_fragment` / `tcp_fragment` PSH rules;
//! - `xmit_new_one`: the new-data probe of `tcp_send_loss_probe`;
//! - `post_control` / `post_syn` / `post_pure_ack`: `tcp_connect`, `tcp_make_synack`,
//!   `tcp_send_ack`, `tcp_xmit_probe_skb`, `tcp_v4_send_reset`;
//! - `update_pacing_rate`: `tcp_update_pacing_rate` (tcp_input.c); `paced`: `sk_pacing_status`;
//! - `slow_start_after_idle_check`: `tcp_slow_start_after_idle_check` -> `tcp_cwnd_restart`;
//! - `cwnd_limited`: `tcp_is_cwnd_limited` (tcp.h);
//! - `on_completion`: the card's departure report (TSQ's `tcp_wfree`; with `--stamp departure`,
//!   `tcp_rate_skb_sent` at the departure).

use super::*;

impl TcpSender {
    /// Linux `tcp_slow_start_after_idle_check`: with nothing in flight and no data sent for
    /// longer than the RTO, cwnd restarts (`tcp_cwnd_restart`): ssthresh keeps at least 3/4
    /// of cwnd, cwnd halves per RTO idle down to the initial window (never below it, nor
    /// above cwnd). Not for a module that runs the window itself (BBR: `cong_control`).
    pub(super) fn slow_start_after_idle_check(&mut self) {
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
        let restart = crate::edt::cc::INIT_CWND.min(cwnd0);
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

    pub(super) fn ts_val(now: u64) -> u32 {
        (now / 1_000_000) as u32 // 1 ms timestamp clock, as Linux
    }

    pub(super) fn new_cookie(&mut self, p: Posted) -> u64 {
        self.next_cookie += 1;
        let c = self.cookie_base | self.next_cookie;
        self.posted.push_back(Some(p));
        c
    }

    pub(super) fn adv_window(&self) -> u16 {
        // We receive no data; advertise a large window.
        (1u32 << 16).saturating_sub(1) as u16
    }

    pub(super) fn post_syn(&mut self, now: u64, port: &mut dyn TxPort) {
        self.post_control(now, Control::Syn, port);
        self.syn_tx_ns = None;
        // SYN timeout: 1 s, doubled per retry (Linux TCP_TIMEOUT_INIT).
        let rto = (crate::edt::rtt::RTO_INIT_US * 1000) << self.syn_retries.min(6);
        self.retrans_timer.arm(now, rto, self.cfg.tick_ns);
        self.retrans_pending = RetransPending::Rto;
    }

    pub(super) fn post_pure_ack(&mut self, now: u64, port: &mut dyn TxPort) {
        self.post_control(now, Control::Ack, port);
    }

    /// The one path for frames without payload (Linux `tcp_transmit_skb` of a SYN or of
    /// `tcp_send_ack`): build, post with launch = now (control frames are not paced) and
    /// remember the cookie so the completion is consumed (and a SYN's departure kept for
    /// the handshake RTT).
    pub(super) fn post_control(&mut self, now: u64, kind: Control, port: &mut dyn TxPort) {
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

    /// A data segment's frame: the connection's header template in a pooled buffer
    /// (`frame::DataTemplate`), its payload the stream pattern copied from the table built
    /// once, checksums completed from the template's and the table's sums.
    pub(super) fn build_data_frame(&self, now: u64, seg: &Seg, psh: bool) -> Vec<u8> {
        let mut fl = tcp_flags::ACK;
        if seg.fin {
            fl |= tcp_flags::FIN;
        }
        if psh {
            fl |= tcp_flags::PSH;
        }
        self.data_tmpl[usize::from(self.ts_ok)].build_pattern(
            seq_of(self.cfg.iss, seg.off),
            self.rcv_nxt(),
            fl,
            self.adv_window(),
            (Self::ts_val(now), self.ts_recent),
            seg.off,
            seg.len as usize,
        )
    }

    pub(super) fn update_pacing_rate(&mut self) {
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
    pub(super) fn post_burst(&mut self, now: u64, idxs: &[usize], port: &mut dyn TxPort) {
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
        let mut psh = std::mem::take(&mut self.psh_scratch);
        self.tso_packets_psh(idxs, &mut psh);
        let mut batch = std::mem::take(&mut self.tx_batch);
        for (k, &i) in idxs.iter().enumerate() {
            let f = self.build_data_frame(now, &self.rtx[i], psh[k]);
            let bytes = f.len() as u64;
            let seg = &mut self.rtx[i];
            if seg.tx_count > 0 {
                self.stats.retrans_segs += 1;
                // tcp_retransmit_skb: the episode's first retransmission stamps
                // retrans_stamp; every one counts toward undo_retrans
                if self.retrans_stamp.is_none() {
                    self.retrans_stamp = Some(Self::ts_val(now));
                }
                if self.undo_marker.is_some() {
                    self.undo_retrans = self.undo_retrans.max(0) + 1;
                }
                if seg.tx_ns.is_some() {
                    self.departed_unacked -= 1;
                }
            }
            self.tsorted.remove(seg);
            seg.tx_count += 1;
            self.retransmitted += u64::from(seg.tx_count == 2);
            seg.tx_ns = None;
            self.lost_out -= u64::from(seg.lost);
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
                nth: self.rtx_popped + i as u64,
            });
            self.bytes_on_card += bytes;
            self.stats.peak_on_card_bytes = self.stats.peak_on_card_bytes.max(self.bytes_on_card);
            batch.push(TxRequest {
                launch_ns: launch,
                frame: f,
                cookie,
            });
        }
        // the burst goes to the card in one call (one doorbell)
        port.post_batch(now, &mut batch);
        self.tx_batch = batch;
        self.psh_scratch = psh;
    }

    /// The PSH flag of each frame of a burst (indices into rtx, in order). Linux sends one
    /// TSO packet per skb (or the part of it cwnd allows), so the burst is cut where an skb
    /// ends and where the segments are not contiguous; each cut is recorded as an skb end
    /// (`tso_fragment` / `tcp_fragment` leave PSH on the second part only). A TSO packet's
    /// last segment carries PSH when the packet has more than one segment
    /// (`__tcp_transmit_skb` forces PSH on every GSO packet) or its skb was marked PSH
    /// (`tcp_mark_push`); GSO segmentation clears PSH on every other segment.
    pub(super) fn tso_packets_psh(&mut self, idxs: &[usize], psh: &mut Vec<bool>) {
        psh.clear();
        psh.resize(idxs.len(), false);
        let mut start = 0;
        for k in 0..idxs.len() {
            let s = &self.rtx[idxs[k]];
            let end = s.off + u64::from(s.len); // a FIN takes no byte of an skb's data
                                                // one lookup of the map per segment: where the burst does not end by itself, an
                                                // skb end listed there ends a TSO packet
            let cut = k + 1 == idxs.len() || self.rtx[idxs[k + 1]].off != end;
            let marked = if cut {
                *self.skb_ends.entry(end).or_insert(false)
            } else {
                match self.skb_ends.get(&end) {
                    Some(&m) => m,
                    None => continue,
                }
            };
            let data_segs = idxs[start..=k]
                .iter()
                .filter(|&&i| self.rtx[i].len > 0)
                .count();
            psh[k] = self.rtx[idxs[k]].len > 0 && (data_segs > 1 || marked);
            start = k + 1;
        }
    }

    /// The posting a completion's cookie stands for, once (None: not this sender's, or
    /// already reported).
    fn take_posted(&mut self, cookie: u64) -> Option<Posted> {
        let n = cookie.checked_sub(self.cookie_base)?;
        let i = usize::try_from(n.checked_sub(self.posted_first)?).ok()?;
        let p = self.posted.get_mut(i)?.take()?;
        while let Some(None) = self.posted.front() {
            self.posted.pop_front();
            self.posted_first += 1;
        }
        Some(p)
    }

    pub(super) fn find_seg(&self, off: u64) -> Option<usize> {
        self.rtx.binary_search_by(|s| s.off.cmp(&off)).ok()
    }

    /// The card reports a departure.
    pub fn on_completion(&mut self, c: &Completion) {
        let Some(p) = self.take_posted(c.cookie) else {
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
                nth,
            } => {
                self.bytes_on_card = self.bytes_on_card.saturating_sub(bytes);
                // its index from its place in the queue (no search); gone if acknowledged
                let at = nth
                    .checked_sub(self.rtx_popped)
                    .and_then(|k| usize::try_from(k).ok())
                    .filter(|&k| self.rtx.get(k).is_some_and(|s| s.off == off));
                debug_assert_eq!(at, self.find_seg(off), "queue index of a completion");
                if let Some(i) = at {
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

    pub(super) fn cwnd_limited(&self) -> bool {
        if self.is_cwnd_limited {
            return true;
        }
        self.cc_state.in_slow_start() && self.cc_state.cwnd < 2 * self.max_packets_out
    }

    /// Send one new segment regardless of cwnd (the TLP probe), if data and window allow.
    pub(super) fn xmit_new_one(&mut self, now: u64, port: &mut dyn TxPort) {
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
    pub(super) fn hold_partial_tail(&self, burst_pending: bool) -> bool {
        let autocork = burst_pending || self.bytes_on_card > 0;
        let minshall = self.snd_sml > self.snd_una && self.snd_sml <= self.snd_nxt;
        autocork || (minshall && !self.rtx.is_empty())
    }

    pub(super) fn push_seg(&mut self, len: u64, fin: bool) -> usize {
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
    pub(super) fn xmit_inner(&mut self, now: u64, port: &mut dyn TxPort, push_one: bool) {
        self.now_ns = self.now_ns.max(now);
        if !matches!(self.state, ConnState::Established | ConnState::FinWait) {
            return;
        }
        if self.pacing_rate == 0 {
            self.update_pacing_rate();
        }
        let mut cwnd_stop = false;
        loop {
            let burst_segs = pacing::tso_autosize_segs_min(
                self.pacing_rate,
                self.mss,
                self.cfg.min_tso_segs,
                self.min_rtt_us,
                self.cfg.tso_rtt_log,
            );
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
            // (nothing marked lost: no walk of the queue)
            let lost: Vec<usize> = if push_one || self.lost_out == 0 || self.skip_lost {
                Vec::new()
            } else {
                (0..self.rtx.len())
                    .filter(|&i| self.rtx[i].lost && !self.rtx[i].on_card)
                    .take(quota)
                    .collect()
            };
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
                let mut v = std::mem::take(&mut self.burst_scratch);
                v.clear();
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
                self.burst_scratch = idxs;
                break;
            }
            let data = idxs.iter().filter(|&&i| self.rtx[i].len > 0).count() as u64;
            self.stats.data_segs_out += data;
            // tcp_xmit_retransmit_queue: retransmitting the head re-arms the RTO from now
            // (unless the RACK reordering timer is pending)
            let head_retrans = self.rtx[idxs[0]].tx_count > 0 && idxs[0] == 0;
            self.post_burst(now, &idxs, port);
            let reo_pending = self.retrans_pending == RetransPending::Reo
                && self.retrans_timer.deadline().is_some();
            if head_retrans && !reo_pending {
                self.rearm_rto(now);
            }
            self.burst_scratch = idxs; // its allocation serves the next burst
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
            let t = self.rto_ns().max(crate::edt::rtt::RTO_MIN_US * 1000); // tcp_probe0_base
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
}
