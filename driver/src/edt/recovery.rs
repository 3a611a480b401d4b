//! Loss-recovery timing formulas (tcp_recovery.c, tcp_output.c), as pure functions so each
//! can be checked against a hand computation.

/// Linux TCP_TIMEOUT_MIN_US: 2 ms, the slack added to the loss-probe and RACK timers.
pub const TIMEOUT_MIN_US: u64 = 2_000;

/// Linux `tcp_schedule_loss_probe`: PTO = 2 x SRTT, plus the socket's minimum RTO
/// (`tcp_rto_min_us`, 200 ms by default: the worst-case delayed ACK) when only one segment is
/// out, else plus TCP_TIMEOUT_MIN_US (2 ms); TCP_TIMEOUT_INIT (1 s) before any RTT sample.
/// In ns; the caller caps it by the time left until the RTO.
pub fn tlp_timeout_ns(srtt_us: u64, packets_out: usize, rto_min_us: u64) -> u64 {
    if srtt_us == 0 {
        return super::rtt::RTO_INIT_US * 1000;
    }
    let extra = if packets_out == 1 {
        rto_min_us
    } else {
        TIMEOUT_MIN_US
    };
    (2 * srtt_us + extra) * 1000
}

/// Linux `tcp_rack_mark_lost`: the reordering timer fires TCP_TIMEOUT_MIN_US after the
/// latest-expiring candidate's deadline (`remaining` ns from now).
pub fn rack_reo_timeout_ns(remaining_ns: u64) -> u64 {
    remaining_ns + TIMEOUT_MIN_US * 1000
}

/// Linux `tcp_rack_reo_wnd`: the reordering window RACK allows before calling a segment
/// lost. Zero while no reordering has been seen and the connection is already in recovery or
/// has 3+ SACKed segments (classic DUPACK behaviour); otherwise min_rtt / 4, at most SRTT.
pub fn rack_reo_wnd_us(
    min_rtt_us: u64,
    srtt_us: u64,
    reord_seen: bool,
    in_recovery: bool,
    sacked: usize,
) -> u64 {
    if !reord_seen && (in_recovery || sacked >= 3) {
        return 0;
    }
    (min_rtt_us / 4).min(srtt_us)
}

/// Proportional Rate Reduction (RFC 6937, Linux `tcp_cwnd_reduction`): how many segments
/// may be sent on this ACK. Above ssthresh: `ceil(ssthresh * prr_delivered / prior_cwnd) -
/// prr_out`; at or below it (PRR-SSRB): `max(prr_delivered - prr_out, newly_delivered)`, +1
/// when snd_una advanced and nothing new was lost, at most `ssthresh - in_flight`. At least 1
/// before anything was sent in recovery (the fast retransmit).
pub fn prr_sndcnt(
    in_flight: u64,
    ssthresh: u64,
    prior_cwnd: u64,
    prr_delivered: u64,
    prr_out: u64,
    newly_delivered: u64,
    una_advanced_no_loss: bool,
) -> u64 {
    let n = if in_flight > ssthresh {
        (ssthresh * prr_delivered)
            .div_ceil(prior_cwnd.max(1))
            .saturating_sub(prr_out)
    } else {
        let n = prr_delivered.saturating_sub(prr_out).max(newly_delivered)
            + u64::from(una_advanced_no_loss);
        n.min(ssthresh - in_flight)
    };
    n.max(u64::from(prr_out == 0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prr_table() {
        // (in_flight, ssthresh, prior_cwnd, prr_delivered, prr_out, newly, una_adv, expected)
        let cases = [
            // RFC 6937 example shape: prior 20, ssthresh 14 (CUBIC 0.7), 1 delivered, nothing
            // sent yet: ceil(14*1/20) - 0 = 1.
            (19, 14, 20, 1, 0, 1, false, 1),
            // 10 delivered, 6 sent: ceil(140/20) - 6 = 1.
            (18, 14, 20, 10, 6, 1, false, 1),
            // 3 delivered, 2 sent: ceil(42/20)=3 - 2 = 1.
            (17, 14, 20, 3, 2, 1, false, 1),
            // below ssthresh: max(8-5, 2) + 1 = 4, capped by 14 - 12 = 2.
            (12, 14, 20, 8, 5, 2, true, 2),
            // below ssthresh, room: max(8-5, 2) = 3 (no +1: a new loss).
            (5, 14, 20, 8, 5, 2, false, 3),
            // entry from the RACK timer: nothing delivered, nothing sent: 0 -> still 1
            // (the fast retransmit).
            (30, 7, 100, 0, 0, 0, false, 1),
        ];
        for (fl, ss, pc, pd, po, nd, ua, want) in cases {
            assert_eq!(
                prr_sndcnt(fl, ss, pc, pd, po, nd, ua),
                want,
                "{fl} {ss} {pc} {pd} {po}"
            );
        }
    }

    #[test]
    fn tlp_table() {
        // (srtt us, packets out, rto_min us, expected ns), by hand from the formula above.
        let cases = [
            (100, 10, 200_000, 200_000 + 2_000_000),     // 2*100us + 2 ms
            (100, 1, 200_000, 200_000 + 200_000_000),    // 2*100us + 200 ms (rto_min)
            (100, 1, 5_000, 200_000 + 5_000_000),        // a socket with rto_min 5 ms
            (5_000, 4, 200_000, 10_000_000 + 2_000_000), // 2 ms whatever the tick (not 2 jiffies)
            (0, 3, 200_000, 1_000_000_000),              // no sample yet: 1 s
        ];
        for (srtt, out, rto_min, want) in cases {
            assert_eq!(tlp_timeout_ns(srtt, out, rto_min), want);
        }
        // RACK: +2 ms on the remaining time.
        assert_eq!(rack_reo_timeout_ns(30_000), 2_030_000);
    }

    #[test]
    fn reo_wnd_table() {
        // (min_rtt, srtt, reord_seen, in_recovery, sacked, expected)
        let cases = [
            (100, 120, false, false, 0, 25),  // min_rtt/4
            (100, 120, false, true, 0, 0),    // recovery, no reordering seen
            (100, 120, false, false, 3, 0),   // DUPTHRESH SACKs
            (100, 120, true, true, 5, 25),    // reordering seen: window kept
            (1000, 200, true, false, 0, 200), // capped at srtt
        ];
        for (m, s, r, rec, sk, want) in cases {
            assert_eq!(rack_reo_wnd_us(m, s, r, rec, sk), want);
        }
    }
}
