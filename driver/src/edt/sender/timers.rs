//! Timers (Linux net/ipv4/tcp_timer.c, with the arming done in tcp_input.c / tcp_output.c):
//! - `on_timers`: `tcp_write_timer_handler` -> `tcp_retransmit_timer` (RTO, exponential
//!   backoff, SYN retries), `tcp_send_loss_probe` (TLP), `tcp_rack_reo_timeout`,
//!   `tcp_probe_timer` -> `tcp_send_probe0`; the host pacing timer (`tcp_pace_kick`);
//! - `rearm_rto`: `tcp_rearm_rto`; `schedule_loss_probe`: `tcp_schedule_loss_probe`;
//!   `schedule_tlp_after_send`: `tcp_event_new_data_sent`'s re-arm; `rto_delta_ns`:
//!   `tcp_rto_delta_us`; `pacing_delay_ns`: `tcp_pacing_delay`; `probe0_when`:
//!   `tcp_probe0_when`; `rto_ns`: `inet_csk_rto_backoff`; `zero_window`: the probe condition.

use super::*;

impl TcpSender {
    pub(super) fn rto_ns(&self) -> u64 {
        let base = self.rtt.rto_us() * 1000;
        (base << self.rto_backoff.min(16)).min(crate::edt::rtt::RTO_MAX_US * 1000)
    }

    /// Unsent data waits on a receive window with no room (the send head is beyond it).
    pub(super) fn zero_window(&self) -> bool {
        self.write_seq > self.snd_nxt && self.snd_nxt >= self.snd_una + self.snd_wnd
    }

    /// Linux `tcp_probe0_when`: the probe timer, `tcp_probe0_base` (the RTO, at least
    /// TCP_RTO_MIN) doubled per unanswered probe, at most TCP_RTO_MAX (120 s).
    pub(super) fn probe0_when(&self) -> u64 {
        let base = self.rto_ns().max(crate::edt::rtt::RTO_MIN_US * 1000);
        (base << self.probe_backoff.min(10)).min(crate::edt::rtt::RTO_MAX_US * 1000)
    }

    /// Linux `tcp_rearm_rto`.
    pub(super) fn rearm_rto(&mut self, now: u64) {
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
    pub(super) fn pacing_delay_ns(&self, now: u64) -> u64 {
        self.edt.wstamp_ns.saturating_sub(now)
    }

    /// Linux `tcp_schedule_loss_probe`: PTO = 2 x srtt plus 2 ticks (plus the 200 ms delayed-
    /// ACK allowance when only one segment is out), never later than the RTO.
    /// `advancing_rto`: the RTO was just re-armed from now (on an ACK); else the cap is the
    /// time left until the RTO of the oldest outstanding segment (`tcp_rto_delta_us`).
    pub(super) fn schedule_loss_probe(&mut self, now: u64, advancing_rto: bool) {
        if self.ca_state != CaState::Open || self.rtx.is_empty() || !self.sack_ok {
            return;
        }
        if self.tlp_high_seq.is_some() {
            return;
        }
        let pto = crate::edt::recovery::tlp_timeout_ns(
            self.rtt.srtt(),
            self.rtx.len(),
            self.cfg.rto_min_us,
        );
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
    pub(super) fn rto_delta_ns(&self, now: u64) -> u64 {
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
                    let t = crate::edt::recovery::rack_reo_timeout_ns(w);
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
                self.tlp_retrans = !sent;
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
                self.enter_loss(now);
                self.rto_backoff += 1;
                self.rto_retransmits += 1;
                self.update_pacing_rate();
                self.xmit(now, port);
                self.retrans_timer.arm(now, self.rto_ns(), self.cfg.tick_ns);
                self.retrans_pending = RetransPending::Rto;
            }
        }
    }

    /// After a send (Linux `tcp_event_new_data_sent` + the end of `tcp_write_xmit`): the RTO
    /// is armed from now if nothing was armed or a probe was pending, then the probe timer
    /// is re-armed from now. A pending RACK reordering timer is left alone.
    pub(super) fn schedule_tlp_after_send(&mut self, now: u64) {
        if self.retrans_pending == RetransPending::Reo && self.retrans_timer.deadline().is_some() {
            return;
        }
        if self.retrans_timer.deadline().is_none() || self.retrans_pending == RetransPending::Tlp {
            self.rearm_rto(now);
        }
        self.schedule_loss_probe(now, false);
    }
}
