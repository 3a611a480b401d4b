//! Loss recovery (Linux net/ipv4/tcp_recovery.c and the recovery half of tcp_input.c):
//! - `rack_detect_loss`: `tcp_rack_detect_loss` with `tcp_rack_reo_wnd` (the scan itself is
//!   `Rack::detect_loss` in edt/recovery.rs);
//! - `reno_delivered`, `add_reno_sack`, `limit_reno_sacked`: `tcp_remove_reno_sacks`,
//!   `tcp_add_reno_sack`, `tcp_limit_reno_sacked`, `tcp_reset_reno_sack`;
//!   `newreno_mark_lost`: `tcp_newreno_mark_lost`;
//! - `try_keep_open`: `tcp_try_keep_open`; `enter_recovery`: `tcp_enter_recovery` +
//!   `tcp_init_cwnd_reduction`; `cwnd_reduction`: `tcp_cwnd_reduction` (PRR, RFC 6937);
//!   `enter_loss`: `tcp_enter_loss` + `tcp_timeout_mark_lost`.

use super::*;

impl TcpSender {
    /// Linux `tcp_add_reno_sack`: a duplicate ACK without SACK counts one more segment as
    /// delivered (`sacked_out`, capped by `tcp_limit_reno_sacked`). Returns the segments newly
    /// counted.
    pub(super) fn add_reno_sack(&mut self) -> u64 {
        let prior = self.reno_sacked;
        self.reno_sacked += 1;
        self.limit_reno_sacked();
        self.reno_sacked.saturating_sub(prior)
    }

    /// Linux `tcp_limit_reno_sacked`: duplicate ACKs never count more segments than are out,
    /// less the holes (at least one).
    pub(super) fn limit_reno_sacked(&mut self) {
        let out = self.rtx.len() as u64;
        let lost = self.lost_out;
        let holes = lost.max(1).min(out);
        if self.reno_sacked + holes > out {
            self.reno_sacked = out - holes;
        }
    }

    /// RACK loss detection over the scoreboard (recovery::Rack::detect_loss) with the
    /// reordering window of `tcp_rack_reo_wnd`. Returns (newly lost, time until the next
    /// candidate expires).
    pub(super) fn rack_detect_loss(&mut self, now: u64) -> (u64, Option<u64>) {
        let sacked = self.sacked_out as usize;
        let reo_wnd_us = crate::edt::recovery::rack_reo_wnd_us(
            self.min_rtt_us,
            self.rtt.srtt(),
            self.rack.reord_seen,
            matches!(self.ca_state, CaState::Recovery | CaState::Loss),
            sacked,
        );
        #[cfg(debug_assertions)]
        let want = self
            .rack
            .detect_loss_scan(&mut self.rtx.clone(), reo_wnd_us, now);
        let (lost, wait) = self
            .rack
            .detect_loss(&mut self.rtx, &mut self.tsorted, reo_wnd_us, now);
        #[cfg(debug_assertions)]
        assert_eq!((lost, wait), want, "RACK: time-ordered walk vs scan");
        self.lost_out += lost;
        self.stats.rack_marked_lost += lost;
        (lost, wait)
    }

    /// Without SACK, this ACK's delivered segments (Linux `tcp_remove_reno_sacks` in
    /// `tcp_clean_rtx_queue`, then `tcp_reset_reno_sack` / `tcp_add_reno_sack` in
    /// `tcp_fastretrans_alert`): a cumulative ACK of `acked` segments delivers those the
    /// duplicate ACKs did not already count (at least one); a duplicate ACK delivers one.
    pub(super) fn reno_delivered(&mut self, acked: u64, advanced: bool, dupack: bool) -> u64 {
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
    pub(super) fn newreno_mark_lost(&mut self, advanced: bool) -> bool {
        let go = (matches!(self.ca_state, CaState::Open | CaState::Disorder)
            && self.reno_sacked >= TCP_REORDERING)
            || (self.ca_state == CaState::Recovery && advanced);
        match self.rtx.front_mut() {
            // TCPCB_LOST stays set on a retransmitted skb
            Some(h) if go && !h.lost && h.tx_count == 1 => {
                self.tsorted.remove(h);
                h.lost = true;
                self.lost_out += 1;
                true
            }
            _ => false,
        }
    }

    /// Linux `tcp_try_keep_open`: Disorder while anything is SACKed, counted by duplicate
    /// ACKs, lost or retransmitted and unacknowledged, else Open; high_seq moves on a change.
    pub(super) fn try_keep_open(&mut self) {
        let left_out = self.reno_sacked > 0 || self.sacked_out + self.lost_out > 0;
        let retrans = self.retransmitted > 0;
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

    /// Linux `tcp_timeout_mark_lost`: at an RTO the head and every unSACKed segment sent at
    /// least rack.rtt ago are lost; one sent more recently is left out
    /// (`tcp_rack_skb_timeout(tp, skb, 0) > 0`: it may still be acknowledged in time).
    pub(super) fn timeout_mark_lost(&mut self, now: u64) {
        let rack_rtt_us = self.rack.rtt_us;
        for (k, s) in self.rtx.iter_mut().enumerate() {
            if s.sacked || s.lost {
                continue;
            }
            // tcp_stamp_us_delta; a segment not yet stamped (still on the card with
            // `--stamp departure`) was sent just now
            let recent = s
                .tx_ns
                .is_none_or(|tx| now.saturating_sub(tx) / 1000 < rack_rtt_us);
            if k > 0 && recent {
                continue;
            }
            self.tsorted.remove(s);
            s.lost = true;
            self.lost_out += 1;
        }
        self.reno_sacked = 0; // tcp_reset_reno_sack
    }

    /// Linux `tcp_enter_loss` (RTO): `timeout_mark_lost`; ssthresh is cut only if it was not
    /// already cut for this window: from Open, after recovery ended (snd_una reached
    /// high_seq), or in Loss before any RTO retransmission; cwnd = in flight + 1; the module
    /// hears of the Loss state (CUBIC resets, BBR ends the round).
    pub(super) fn enter_loss(&mut self, now: u64) {
        let new_recovery = matches!(self.ca_state, CaState::Open | CaState::Disorder);
        self.timeout_mark_lost(now);
        if matches!(self.ca_state, CaState::Open | CaState::Disorder)
            || self.snd_una >= self.high_seq
            || (self.ca_state == CaState::Loss && self.rto_retransmits == 0)
        {
            // tcp_current_ssthresh, prior_cwnd and tcp_init_undo: what an undo restores
            let cwnd = self.cc_state.cwnd;
            self.prior_ssthresh = self.cc_state.ssthresh.max((cwnd >> 1) + (cwnd >> 2));
            self.prior_cwnd = cwnd;
            self.undo_marker = Some(self.snd_una);
            let retrans_out = self
                .rtx
                .iter()
                .filter(|s| s.tx_count > 1 && !s.lost && !s.sacked)
                .count() as i64;
            self.undo_retrans = if retrans_out > 0 { retrans_out } else { -1 };
            let ss = self.cc.ssthresh(&self.cc_state);
            self.cc_state.ssthresh = ss;
        }
        self.cc_state.cwnd = self.in_flight() + 1;
        // F-RTO (RFC 5682 3.1 step 1, tcp_frto = 2): unless a recovery was already under way
        // other than repeated timeouts of the same snd_una
        self.frto = new_recovery || self.rto_retransmits > 0;
        self.ca_state = CaState::Loss;
        self.cc.on_rto(&mut self.cc_state);
        self.high_seq = self.snd_nxt;
        self.tlp_high_seq = None;
    }

    /// Linux `tcp_may_undo`: an undo point is set and nothing was retransmitted since it, or
    /// the ACK echoes a timestamp older than the first retransmission (`tcp_packet_delayed`:
    /// the original arrived).
    pub(super) fn may_undo(&self, tsecr: Option<u32>) -> bool {
        let delayed = match (self.retrans_stamp, tsecr) {
            (Some(rs), Some(ecr)) if self.ts_ok && ecr != 0 => (ecr.wrapping_sub(rs) as i32) < 0,
            _ => false,
        };
        self.undo_marker.is_some() && (self.undo_retrans == 0 || delayed)
    }

    /// Linux `tcp_undo_cwnd_reduction`: the reduction was spurious: cwnd back to at least
    /// prior_cwnd (`tcp_reno_undo_cwnd`; a module that runs the window keeps its own),
    /// ssthresh to at least prior_ssthresh; with `unmark_loss` nothing is lost any more (RACK
    /// looks again).
    pub(super) fn undo_cwnd_reduction(&mut self, unmark_loss: bool) {
        if unmark_loss {
            for s in self.rtx.iter_mut() {
                if s.lost {
                    s.lost = false;
                    self.tsorted.insert(s);
                }
            }
            self.lost_out = 0;
        }
        if self.prior_ssthresh > 0 {
            if !self.cc.controls_window() {
                self.cc_state.cwnd = self.cc_state.cwnd.max(self.prior_cwnd);
            }
            self.cc_state.ssthresh = self.cc_state.ssthresh.max(self.prior_ssthresh);
        }
        self.undo_marker = None;
        self.rack.advanced = true;
    }

    /// Linux `tcp_try_undo_loss`: undo an RTO (`frto_undo`: F-RTO found it spurious) and go
    /// back to Open (without SACK, not while `tcp_is_non_sack_preventing_reopen`).
    pub(super) fn try_undo_loss(&mut self, frto_undo: bool, tsecr: Option<u32>) -> bool {
        if !(frto_undo || self.may_undo(tsecr)) {
            return false;
        }
        self.undo_cwnd_reduction(true);
        self.stats.loss_undos += 1;
        self.rto_retransmits = 0;
        if !self.sack_ok && self.snd_una == self.high_seq {
            return true;
        }
        if frto_undo || self.sack_ok {
            if self.cc.controls_window() {
                self.cc.on_recovery_end(&mut self.cc_state);
            }
            self.ca_state = CaState::Open;
            self.retrans_stamp = None;
        }
        true
    }

    /// Linux `tcp_process_loss` (in Loss, before the exit check): undo on an advancing ACK
    /// that `may_undo`; with F-RTO, undo when never-retransmitted data sent before the RTO is
    /// (S)ACKed (step 3b), call the loss real on a SACK or duplicate ACK after new data went
    /// (3a), and on the first advancing ACK send new data instead of retransmissions (2b:
    /// true, REXMIT_NEW) if there is any and the window allows.
    pub(super) fn process_loss(
        &mut self,
        advanced: bool,
        orig_sack_acked: bool,
        data_sacked: bool,
        dupack: bool,
        tsecr: Option<u32>,
    ) -> bool {
        let recovered = self.snd_una >= self.high_seq;
        if advanced && self.try_undo_loss(false, tsecr) {
            return false;
        }
        if self.frto {
            if orig_sack_acked && self.try_undo_loss(true, tsecr) {
                return false;
            }
            if self.snd_nxt > self.high_seq {
                if data_sacked || dupack {
                    self.frto = false;
                }
            } else if advanced && !recovered {
                self.high_seq = self.snd_nxt;
                if self.write_seq > self.snd_nxt && self.snd_una + self.snd_wnd > self.snd_nxt {
                    return true;
                }
                self.frto = false;
            }
        }
        false
    }

    /// Linux `tcp_process_tlp_ack` (RFC 8985 TLP), on an ACK at or above tlp_high_seq while a
    /// loss probe is out: the episode ends when the probe was new data, when a D-SACK ends at
    /// tlp_high_seq (FLAG_DSACK_TLP: the original and the probe both arrived) or on a pure
    /// duplicate ACK; an ACK beyond tlp_high_seq after a retransmitted probe means the probe
    /// repaired a loss: cwnd is reduced once (`tcp_init_cwnd_reduction`, CWR,
    /// `tcp_end_cwnd_reduction`: cwnd = ssthresh unless the module runs the window) and the
    /// state goes back to Open or Disorder (`tcp_try_keep_open`).
    pub(super) fn process_tlp_ack(
        &mut self,
        ack: u64,
        advanced: bool,
        not_dup: bool,
        data_sacked: bool,
        dsack_tlp: bool,
    ) {
        let Some(h) = self.tlp_high_seq else { return };
        if ack < h {
            return;
        }
        if !self.tlp_retrans || dsack_tlp {
            self.tlp_high_seq = None;
        } else if ack > h {
            self.init_cwnd_reduction();
            if !self.cc.controls_window() && self.cc_state.ssthresh < u64::MAX / 4 {
                self.cc_state.cwnd = self.cc_state.ssthresh;
            }
            // from CWR, tcp_try_keep_open always changes the state (and moves high_seq)
            self.ca_state = CaState::Recovery;
            self.try_keep_open();
            self.stats.tlp_recoveries += 1;
        } else if !(advanced || not_dup || data_sacked) {
            self.tlp_high_seq = None;
        }
    }

    /// Linux `tcp_init_cwnd_reduction`: high_seq, the PRR counters and prior cwnd, and the
    /// module's ssthresh (BBR's saves cwnd); a loss probe episode ends.
    pub(super) fn init_cwnd_reduction(&mut self) {
        self.high_seq = self.snd_nxt;
        self.tlp_high_seq = None;
        self.prior_cwnd = self.cc_state.cwnd;
        self.prr_delivered = 0;
        self.prr_out = 0;
        let ss = self.cc.ssthresh(&self.cc_state);
        self.cc_state.ssthresh = ss;
    }

    /// Enter fast recovery (Linux `tcp_enter_recovery` + `tcp_init_cwnd_reduction`).
    pub(super) fn enter_recovery(&mut self) {
        self.ca_state = CaState::Recovery;
        self.stats.recoveries += 1;
        self.high_seq = self.snd_nxt;
        self.tlp_high_seq = None; // tcp_init_cwnd_reduction
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
    pub(super) fn cwnd_reduction(
        &mut self,
        newly_acked_sacked: u64,
        newly_lost: u64,
        una_advanced: bool,
    ) {
        if newly_acked_sacked == 0 {
            return; // tcp_cwnd_reduction: `if (newly_acked_sacked <= 0) return`
        }
        self.prr_delivered += newly_acked_sacked;
        let inflight = self.in_flight();
        let sndcnt = crate::edt::recovery::prr_sndcnt(
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
}
