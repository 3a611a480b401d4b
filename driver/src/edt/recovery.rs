//! Loss-recovery timing formulas (tcp_recovery.c, tcp_output.c), as pure functions so each
//! can be checked against a hand computation.

/// Linux `tcp_schedule_loss_probe` (since 4.13): PTO = 2 x SRTT, plus TCP_RTO_MIN (200 ms,
/// the worst-case delayed ACK) when only one segment is out, else plus 2 ticks
/// (TCP_TIMEOUT_MIN); 1 s (TCP_TIMEOUT_INIT) before any RTT sample. All in ns.
pub fn tlp_timeout_ns(srtt_us: u64, packets_out: usize, tick_ns: u64) -> u64 {
    if srtt_us == 0 {
        return super::rtt::RTO_INIT_US * 1000;
    }
    let extra = if packets_out == 1 {
        super::rtt::RTO_MIN_US * 1000
    } else {
        2 * tick_ns
    };
    2 * srtt_us * 1000 + extra
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tlp_table() {
        // (srtt us, packets out, tick ns, expected ns), by hand from the formula above.
        let cases = [
            (100, 10, 1_000_000, 200_000 + 2_000_000), // 2*100us + 2 ms
            (100, 1, 1_000_000, 200_000 + 200_000_000), // 2*100us + 200 ms
            (5_000, 4, 4_000_000, 10_000_000 + 8_000_000), // HZ=250: 2 ticks = 8 ms
            (0, 3, 1_000_000, 1_000_000_000),          // no sample yet: 1 s
        ];
        for (srtt, out, tick, want) in cases {
            assert_eq!(tlp_timeout_ns(srtt, out, tick), want);
        }
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
