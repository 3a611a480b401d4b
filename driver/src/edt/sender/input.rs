//! The receive path (Linux net/ipv4/tcp_input.c):
//! - `on_frame` / `on_frame_rx`: `tcp_v4_rcv` -> `tcp_rcv_state_process` (RST, SYN-ACK,
//!   closed socket: `tcp_v4_send_reset`);
//! - `established` / `take_peer_syn`: `tcp_rcv_synsent_state_process`, `tcp_synack_rtt_meas`,
//!   `tcp_init_transfer`;
//! - `on_ack`: `tcp_ack` with `tcp_ack_update_window`, `tcp_sacktag_write_queue`
//!   (edt/recovery.rs `sacktag`), `tcp_clean_rtx_queue`, `tcp_ack_update_rtt`, `tcp_rate_gen`
//!   (rate.rs), `tcp_fastretrans_alert` (recovery.rs), `tcp_cong_control`, `tcp_new_space`,
//!   `tcp_set_xmit_timer` (timers.rs), `tcp_fin`;
//! - `highest_sack_seq`: `tcp_highest_sack_seq`; `check_sack_reordering`:
//!   `tcp_check_sack_reordering`; `sndbuf_expand`: `tcp_sndbuf_expand`.

use super::*;

impl TcpSender {
    /// The next sequence number expected from the peer (Linux `rcv_nxt`).
    pub(super) fn rcv_nxt(&self) -> u32 {
        self.peer_irs
            .wrapping_add(1)
            .wrapping_add(self.rcv_bytes)
            .wrapping_add(u32::from(self.peer_fin))
    }

    /// Linux `tcp_highest_sack_seq`: the start of the highest SACKed segment, snd_una if none.
    pub(super) fn highest_sack_seq(&self) -> u64 {
        self.highest_sack.unwrap_or(self.snd_una)
    }

    /// Linux `tcp_check_sack_reordering`: a delivery at `low` below the highest SACKed segment
    /// is reordering; the degree grows to the distance in segments (at most
    /// tcp_max_reordering 300).
    pub(super) fn check_sack_reordering(&mut self, low: u64) {
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

    /// Linux `tcp_sndbuf_expand`: room for `sndbuf_expand` (2, BBR 3) x max(cwnd, 10,
    /// reordering + 1) segments at their worst-case (non-GSO) truesize, at most tcp_wmem[2];
    /// only ever grows.
    pub(super) fn sndbuf_expand(&mut self) {
        if self.sndbuf_locked {
            return; // SOCK_SNDBUF_LOCK: the application set SO_SNDBUF
        }
        let nr_segs = self
            .cc_state
            .cwnd
            .max(crate::edt::cc::INIT_CWND)
            .max(TCP_REORDERING + 1);
        let sndmem = self.cc.sndbuf_expand() * nr_segs * SNDBUF_PER_MSS;
        if self.sndbuf < sndmem {
            self.sndbuf = sndmem.min(TCP_WMEM_MAX);
        }
    }

    /// The peer's SYN or SYN-ACK options (`tcp_rcv_synsent_state_process` /
    /// `tcp_openreq_init`): ISN, SACK, timestamps, window scale, MSS.
    pub(super) fn take_peer_syn(&mut self, seg: &frame::Segment) {
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

    /// Stream offset for a 32-bit ACK number (relative to snd_una; RFC 9293 modular).
    pub(super) fn ack_off(&self, ack: u32) -> i128 {
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
    pub(super) fn rx_time(&self, now: u64) -> u64 {
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

    pub(super) fn established(&mut self, now: u64, seg: &frame::Segment, port: &mut dyn TxPort) {
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

    pub(super) fn record_srtt(&mut self) {
        self.stats.srtt_ns.push(self.rtt.srtt_us * 125); // (us << 3) * 125 = ns
    }

    pub(super) fn on_ack(&mut self, now: u64, seg: &frame::Segment, port: &mut dyn TxPort) {
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
        let mut rack_updates = std::mem::take(&mut self.rack_scratch);
        rack_updates.clear();

        let prior_fack = self.highest_sack_seq();
        let mut data_sacked = false;
        // A D-SACK (RFC 2883, `tcp_check_dsack`: the first block below the ACK or inside the
        // second) of one segment ending at tlp_high_seq: the loss probe was a duplicate
        // (`tcp_dsack_seen`: FLAG_DSACK_TLP).
        let mut dsack_tlp = false;
        // FLAG_ORIG_SACK_ACKED: a never-retransmitted segment at or below high_seq newly
        // (S)ACKed (F-RTO's proof that an RTO was spurious)
        let mut orig_sack_acked = false;
        let tsecr = seg.options.timestamps.map(|(_, e)| e);
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
            if let (Some(&(l0, r0)), Some(h)) = (blocks.first(), self.tlp_high_seq) {
                let dsack = l0 < ack || blocks.get(1).is_some_and(|&(l1, r1)| r0 <= r1 && l0 >= l1);
                dsack_tlp =
                    dsack && l0 < r0 && r0 - l0 <= i128::from(self.mss) && r0 == i128::from(h);
            }
            let tag = crate::edt::recovery::sacktag(
                &mut self.rtx,
                &blocks,
                self.snd_una,
                self.snd_nxt,
                &mut self.rack,
                self.highest_sack,
                &mut self.tsorted,
            );
            self.sacked_out += tag.newly_sacked;
            self.lost_out -= tag.unlost;
            self.highest_sack = tag.highest;
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
                orig_sack_acked |= !d.retrans && d.end <= self.high_seq;
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
                self.rtx_popped += 1;
                self.tsorted.remove(&s);
                self.sacked_out -= u64::from(s.sacked);
                self.lost_out -= u64::from(s.lost);
                self.retransmitted -= u64::from(s.tx_count > 1);
                if s.sacked && self.highest_sack == Some(s.off) {
                    self.highest_sack = None; // the highest SACKed went: all below it went too
                }
                if s.tx_ns.is_some() {
                    self.departed_unacked = self.departed_unacked.saturating_sub(1);
                }
                if !s.sacked {
                    acked_segs += 1;
                    orig_sack_acked |= s.tx_count == 1 && s.end() <= self.high_seq;
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
            // The skbs that ended below the ACK leave, in batches: a pop per ACK rebalanced
            // the map's left edge each time (hundreds of instructions per ACK); a split every
            // 64 KB acknowledged is one walk down the tree. Ends below snd_una are never read
            // meanwhile: every lookup is at or above it (segment ends in the queue, snd_nxt,
            // write_seq; the tail search takes the larger of what it finds and snd_nxt).
            if ack >= self.skb_ends_trim_at {
                self.skb_ends = self.skb_ends.split_off(&ack);
                self.skb_ends_trim_at = ack + SKB_ENDS_TRIM_BYTES;
            }
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
        for &(tx, end, re) in &rack_updates {
            self.rack.advance(tx, end, re, now, self.min_rtt_us);
        }
        self.rack_scratch = rack_updates; // its allocation serves the next ACK
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
        let mut seq_rtt = first_ackt.and_then(since).or(first_sackt.and_then(since));
        let mut ca_rtt = last_sackt.and_then(since).or(last_ackt.and_then(since));
        // tcp_ack_update_rtt's RTTM rule: with no sample from the ACK's timing because
        // retransmitted data was acknowledged (Karn) and data cumulatively acknowledged
        // (FLAG_ACKED), the echoed timestamp gives one (`tcp_rtt_tsopt_us(tp, 1)`: whole ms of
        // our 1 ms TS clock, at least 1 ms), for the estimator, min_rtt and congestion control
        // alike. (A transmit time after the ACK gives no sample here, where Linux clamps it
        // to 0: that case does not fall back to TSecr.)
        if seq_rtt.is_none() && retrans_data_acked && advanced && self.ts_ok {
            if let Some((_, ecr)) = seg.options.timestamps.filter(|&(_, e)| e != 0) {
                let delta = Self::ts_val(now).wrapping_sub(ecr);
                if delta < i32::MAX as u32 / 1000 {
                    let r = u64::from(delta.max(1)) * 1_000_000;
                    seq_rtt = Some(r);
                    ca_rtt = Some(r);
                }
            }
        }
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
                let t = crate::edt::recovery::rack_reo_timeout_ns(w);
                self.retrans_timer.arm(now, t, self.cfg.tick_ns);
                self.retrans_pending = RetransPending::Reo;
                rack_armed = true;
            }
        }

        // --- tcp_process_tlp_ack (FLAG_NOT_DUP: data, a window update or data acknowledged).
        let not_dup = data_in || self.snd_wnd != prior_wnd || advanced;
        self.process_tlp_ack(self.snd_una, advanced, not_dup, data_sacked, dsack_tlp);

        // --- tcp_process_loss: undo and F-RTO in Loss.
        let mut rexmit_new = false;
        if self.ca_state == CaState::Loss {
            rexmit_new = self.process_loss(advanced, orig_sack_acked, data_sacked, dupack, tsecr);
        }

        // --- Recovery state machine (tcp_fastretrans_alert; undo only after an RTO).
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
                if self.ca_state == CaState::Loss && self.may_undo(tsecr) {
                    // tcp_try_undo_recovery at the end of Loss (tcp_process_loss)
                    self.undo_cwnd_reduction(false);
                    self.stats.loss_undos += 1;
                }
                if self.cc.controls_window() {
                    self.cc.on_recovery_end(&mut self.cc_state);
                } else if self.ca_state == CaState::Recovery {
                    self.cc_state.cwnd = self.cc_state.ssthresh.max(2);
                }
                self.ca_state = CaState::Open;
                self.retrans_stamp = None;
                self.undo_marker = None;
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
        if rexmit_new {
            // tcp_xmit_recovery(REXMIT_NEW): new data first; if none went, F-RTO ends and the
            // lost segments go
            self.skip_lost = true;
            self.xmit(now, port);
            self.skip_lost = false;
            if self.snd_nxt > self.high_seq {
                return; // no retransmission on this ACK
            }
            self.frto = false;
        }
        self.xmit(now, port);
    }
}
