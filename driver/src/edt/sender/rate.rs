//! Delivery-rate sampling (Linux net/ipv4/tcp_rate.c):
//! - `mark_sent`: `tcp_rate_skb_sent`; `rate_skb_delivered`: `tcp_rate_skb_delivered` with
//!   `tcp_skb_sent_after`; the sample itself (`tcp_rate_gen`) is taken in `on_ack`;
//! - `check_app_limited`: `tcp_rate_check_app_limited`.

use super::*;

/// The rate-sample candidate of one ACK (Linux `struct rate_sample` while it is filled).
#[derive(Debug, Clone, Copy)]
pub(super) struct RateAcc {
    pub(super) rate: TxRate,
    pub(super) tx_ns: u64,
    pub(super) end: u64,
}

/// Linux `tcp_rate_skb_delivered` + `tcp_skb_sent_after`: of the segments one ACK delivers,
/// the sample comes from the one sent last (ties broken by the higher end sequence), and the
/// connection's `first_tx` moves to its transmit time, for every delivered segment that is
/// sent after the current candidate, whether or not the sample turns out valid.
pub(super) fn rate_skb_delivered(
    rs: &mut Option<RateAcc>,
    first_tx: &mut u64,
    r: TxRate,
    tx: u64,
    end: u64,
) {
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

impl TcpSender {
    /// Linux `tcp_rate_check_app_limited`: the flow is application-limited when less than
    /// one MSS is left to send, nothing waits on the card, cwnd is not full and every lost
    /// segment has been retransmitted. Rate samples of segments sent until the data in
    /// flight now is delivered are then marked app-limited.
    pub fn check_app_limited(&mut self) {
        let in_flight = self.in_flight();
        if self.notsent_bytes() < self.mss
            && self.bytes_on_card == 0
            && in_flight < self.cc_state.cwnd
            && self.lost_out == 0
        {
            self.app_limited_until = (self.delivered + in_flight).max(1);
        }
    }

    /// The flow is marked application-limited (Linux `tp->app_limited != 0`).
    pub fn is_app_limited(&self) -> bool {
        self.app_limited_until != 0
    }

    /// Linux `tcp_rate_skb_sent`, at the segment's transmit time.
    pub(super) fn mark_sent(&mut self, i: usize, tx_ns: u64) {
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
        self.tsorted.remove(seg);
        seg.rate = rate;
        seg.tx_ns = Some(tx_ns);
        self.tsorted.insert(seg);
        self.departed_unacked += 1;
    }
}
