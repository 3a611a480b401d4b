//! Loss recovery: the retransmission scoreboard, SACK tagging (tcp_sacktag_write_queue),
//! RACK (tcp_recovery.c) and the recovery timing formulas (tcp_output.c), the formulas as pure
//! functions so each can be checked against a hand computation.

use std::collections::VecDeque;

/// Delivery-rate state a segment carries from its transmission (Linux `skb->tx`, tcp_rate.c).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct TxRate {
    pub delivered: u64,
    pub delivered_ns: u64,
    pub first_tx_ns: u64,
    pub app_limited: bool,
}

/// One segment in the retransmission queue (the scoreboard entry).
#[derive(Debug, Clone)]
pub(crate) struct Seg {
    /// Stream offset of its first byte.
    pub off: u64,
    pub len: u32,
    pub fin: bool,
    pub tx_count: u32,
    /// Transmit time its samples start from (scheduled launch, departure, or queue time).
    pub tx_ns: Option<u64>,
    /// Posted to the card and not yet reported departed.
    pub on_card: bool,
    pub sacked: bool,
    pub lost: bool,
    pub rate: TxRate,
}

impl Seg {
    /// Stream offset just past it (a FIN takes one).
    pub fn end(&self) -> u64 {
        self.off + u64::from(self.len) + u64::from(self.fin)
    }
}

/// RACK state (Linux `tp->rack`) and the SACK reordering detector.
#[derive(Debug, Clone, Default)]
pub(crate) struct Rack {
    /// Transmit time and end of the most recently sent delivered segment.
    pub tx_ns: u64,
    pub end: u64,
    /// RTT of that delivery, us.
    pub rtt_us: u64,
    /// Advanced since the last loss detection.
    pub advanced: bool,
    /// Reordering seen (a never-retransmitted segment delivered below the highest SACK).
    pub reord_seen: bool,
    pub highest_sacked_end: u64,
}

impl Rack {
    /// Linux `tcp_rack_advance`: a delivery of a segment sent at `tx_ns`. A retransmitted
    /// segment delivered sooner than min_rtt after its retransmission may be the original's
    /// delivery: ignored.
    pub fn advance(&mut self, tx_ns: u64, end: u64, retrans: bool, now: u64, min_rtt_us: u64) {
        let rtt_us = now.saturating_sub(tx_ns) / 1000;
        if retrans && rtt_us < min_rtt_us {
            return;
        }
        self.rtt_us = rtt_us;
        if tx_ns > self.tx_ns || (tx_ns == self.tx_ns && end > self.end) {
            self.tx_ns = tx_ns;
            self.end = end;
        }
        self.advanced = true;
    }

    /// Linux `tcp_rack_detect_loss` over the time-ordered list of segments out (Linux's
    /// `tsorted_sent_queue`, here [`TsOrder`]): a segment sent before the most recently
    /// delivered one is lost once it has been out longer than rack.rtt + reo_wnd. The list is
    /// walked from the oldest transmission and the walk stops at the first segment sent after
    /// RACK's or not yet expired (deadlines grow with the transmit time), so the work is the
    /// segments marked plus a lookup. Marked segments leave the list. Returns (newly lost, ns
    /// until the latest-expiring remaining candidate's deadline).
    pub fn detect_loss(
        &self,
        rtx: &mut VecDeque<Seg>,
        tsorted: &mut TsOrder,
        reo_wnd_us: u64,
        now: u64,
    ) -> (u64, Option<u64>) {
        let reo_ns = reo_wnd_us * 1000;
        let rack_rtt_ns = self.rtt_us * 1000;
        // "sent before RACK's segment": (tx, end) below (rack.tx_ns, rack.end)
        let bound = (self.tx_ns, self.end);
        let mut lost = 0;
        // the head is always in the list (`TsOrder::trim`)
        while let Some(&TsEntry { tx, end, off, .. }) = tsorted.q.front() {
            if (tx, end) >= bound || tx + rack_rtt_ns + reo_ns > now {
                break;
            }
            tsorted.q.pop_front();
            tsorted.live -= 1;
            tsorted.trim();
            let i = rtx.partition_point(|s| s.off < off);
            debug_assert!(i < rtx.len() && rtx[i].off == off && !rtx[i].lost);
            if let Some(s) = rtx.get_mut(i) {
                s.lost = true;
                lost += 1;
            }
        }
        // the latest candidate left below RACK's segment (deadlines grow with the transmit time)
        // (none below when the head is not: the usual case once the ACK took the head)
        let below = match tsorted.q.front() {
            Some(e) if (e.tx, e.end) < bound => {
                tsorted.q.partition_point(|e| (e.tx, e.end) < bound)
            }
            _ => 0,
        };
        let wait = tsorted
            .q
            .range(..below)
            .rev()
            .find(|e| e.live)
            .map(|e| e.tx + rack_rtt_ns + reo_ns - now);
        (lost, wait)
    }

    /// [`Rack::detect_loss`] as a scan of the whole queue (what it replaces): the reference
    /// the time-ordered walk is checked against (debug builds and tests).
    #[cfg(any(test, debug_assertions))]
    pub fn detect_loss_scan(
        &self,
        rtx: &mut VecDeque<Seg>,
        reo_wnd_us: u64,
        now: u64,
    ) -> (u64, Option<u64>) {
        let reo_ns = reo_wnd_us * 1000;
        let rack_rtt_ns = self.rtt_us * 1000;
        let mut lost = 0;
        let mut wait: Option<u64> = None;
        for s in rtx.iter_mut() {
            if s.sacked || s.lost {
                continue;
            }
            let Some(tx) = s.tx_ns else { continue };
            let sent_before = tx < self.tx_ns || (tx == self.tx_ns && s.end() < self.end);
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
        (lost, wait)
    }
}

/// The segments out that RACK may still mark lost, in transmit-time order (Linux's
/// `tsorted_sent_queue`): those with a transmit time, neither SACKed nor lost, ordered by
/// (transmit time, end) as `tcp_skb_sent_after` orders them, each with its stream offset.
///
/// Kept as Linux keeps it, a list appended at transmission: a segment sent after all others
/// (nearly always) is pushed at the back; one that sorts earlier (a burst stamped with the same
/// time as the one before, ending lower) is inserted in place. A segment that leaves is found
/// by binary search and marked; marked entries at either end are dropped at once and the rest
/// when they outnumber the live ones (amortised O(1) per segment).
#[derive(Debug, Clone, Default)]
pub(crate) struct TsOrder {
    q: VecDeque<TsEntry>,
    live: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct TsEntry {
    tx: u64,
    end: u64,
    off: u64,
    live: bool,
}

impl TsOrder {
    /// A segment got its transmit time (and is neither SACKed nor lost).
    pub fn insert(&mut self, s: &Seg) {
        let Some(tx) = s.tx_ns else { return };
        if s.sacked || s.lost {
            return;
        }
        let e = TsEntry {
            tx,
            end: s.end(),
            off: s.off,
            live: true,
        };
        match self.q.back() {
            Some(b) if (b.tx, b.end) >= (tx, e.end) => {
                let i = self.q.partition_point(|x| (x.tx, x.end) < (tx, e.end));
                match self.q.get_mut(i) {
                    Some(x) if (x.tx, x.end) == (tx, e.end) => {
                        if x.live {
                            return; // already listed
                        }
                        *x = e;
                    }
                    _ => self.q.insert(i, e),
                }
            }
            _ => self.q.push_back(e),
        }
        self.live += 1;
    }

    /// A segment leaves the list (SACKed, marked lost, acknowledged or sent again); no-op if
    /// it was not in it.
    pub fn remove(&mut self, s: &Seg) {
        let Some(tx) = s.tx_ns else { return };
        let key = (tx, s.end());
        // segments leave mostly in transmit order: the head first, else a binary search
        let i = match self.q.front() {
            Some(x) if (x.tx, x.end) >= key => 0,
            _ => self.q.partition_point(|x| (x.tx, x.end) < key),
        };
        if let Some(x) = self.q.get_mut(i) {
            if (x.tx, x.end) == key && x.live {
                x.live = false;
                self.live -= 1;
                self.trim();
            }
        }
    }

    /// Drop marked entries at the ends, and all of them once they outnumber the live ones.
    fn trim(&mut self) {
        while self.q.front().is_some_and(|x| !x.live) {
            self.q.pop_front();
        }
        while self.q.back().is_some_and(|x| !x.live) {
            self.q.pop_back();
        }
        if self.q.len() > 2 * self.live + 32 {
            self.q.retain(|x| x.live);
        }
    }

    #[cfg(any(test, debug_assertions))]
    pub fn len(&self) -> usize {
        self.live
    }

    /// The live entries, (transmit time, end, offset), in order.
    #[cfg(test)]
    pub fn entries(&self) -> Vec<(u64, u64, u64)> {
        self.q
            .iter()
            .filter(|x| x.live)
            .map(|x| (x.tx, x.end, x.off))
            .collect()
    }
}

/// A segment one SACK newly covered.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Delivered {
    pub rate: TxRate,
    pub tx_ns: u64,
    pub end: u64,
    pub retrans: bool,
}

/// What `sacktag` found.
#[derive(Debug, Default)]
pub(crate) struct SackTag {
    pub newly_sacked: u64,
    /// Transmit times of the first and last newly SACKed never-retransmitted segments
    /// (Linux first_sackt / last_sackt, for the RTT).
    pub first_sackt: Option<u64>,
    pub last_sackt: Option<u64>,
    /// Newly SACKed segments with a transmit time (for the rate sample and RACK).
    pub delivered: Vec<Delivered>,
    /// Lowest start of a newly SACKed never-retransmitted segment below the highest SACKed
    /// one (Linux `state->reord`, for `tcp_check_sack_reordering`).
    pub reord: Option<u64>,
    /// Newly SACKed segments that were marked lost (Linux `lost_out` drops by these).
    pub unlost: u64,
    /// Start of the highest SACKed segment after tagging (`tcp_highest_sack_seq`).
    pub highest: Option<u64>,
}

/// Linux `tcp_sacktag_write_queue`: mark the segments wholly inside SACK blocks (stream
/// offsets) as SACKed. Blocks below snd_una (D-SACK), empty or beyond snd_nxt are ignored.
/// Blocks are tagged in sequence order (Linux sorts them), so the order a receiver lists
/// them in does not matter. A never-retransmitted segment newly SACKed below the start of the
/// highest SACKed segment (`highest`, `tcp_highest_sack_seq`; the caller keeps it) is
/// reordering (`tag.reord`). Each block is found by a binary search of the queue (it is in
/// sequence order) and only its segments are visited; newly SACKed segments leave `tsorted`.
pub(crate) fn sacktag(
    rtx: &mut VecDeque<Seg>,
    blocks: &[(i128, i128)],
    snd_una: u64,
    snd_nxt: u64,
    rack: &mut Rack,
    highest: Option<u64>,
    tsorted: &mut TsOrder,
) -> SackTag {
    let mut tag = SackTag::default();
    let mut blocks = blocks.to_vec();
    blocks.sort_unstable();
    // start of the highest SACKed segment (none: snd_una)
    let mut highest = highest;
    for &(lo, hi) in &blocks {
        if lo < i128::from(snd_una) || hi <= lo || hi > i128::from(snd_nxt) {
            continue;
        }
        let (lo, hi) = (lo as u64, hi as u64);
        let first = rtx.partition_point(|s| s.off < lo);
        for s in rtx.range_mut(first..) {
            if s.off >= hi {
                break; // it and all after end beyond the block
            }
            if s.end() > hi || s.sacked {
                continue;
            }
            tsorted.remove(s);
            s.sacked = true;
            tag.unlost += u64::from(s.lost);
            s.lost = false;
            tag.newly_sacked += 1;
            if let Some(tx) = s.tx_ns {
                if s.tx_count == 1 {
                    tag.first_sackt.get_or_insert(tx);
                    tag.last_sackt = Some(tx);
                }
                tag.delivered.push(Delivered {
                    rate: s.rate,
                    tx_ns: tx,
                    end: s.end(),
                    retrans: s.tx_count > 1,
                });
            }
            if s.tx_count == 1 && s.off < highest.unwrap_or(snd_una) {
                tag.reord = Some(tag.reord.map_or(s.off, |r| r.min(s.off)));
            }
            highest = Some(highest.map_or(s.off, |h| h.max(s.off)));
            rack.highest_sacked_end = rack.highest_sacked_end.max(s.end());
        }
    }
    tag.highest = highest;
    tag
}

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

    /// Ten 100-byte segments sent at 1000, 2000, ... ns.
    fn board() -> VecDeque<Seg> {
        (0..10u64)
            .map(|i| Seg {
                off: i * 100,
                len: 100,
                fin: false,
                tx_count: 1,
                tx_ns: Some((i + 1) * 1000),
                on_card: false,
                sacked: false,
                lost: false,
                rate: TxRate::default(),
            })
            .collect()
    }

    /// The time-ordered list of a board: every segment with a transmit time, neither SACKed
    /// nor lost.
    fn tsorted(rtx: &VecDeque<Seg>) -> TsOrder {
        let mut t = TsOrder::default();
        for s in rtx {
            t.insert(s);
        }
        t
    }

    #[test]
    fn sacktag_marks_whole_segments_and_ignores_dsack_and_bad_blocks() {
        let mut rtx = board();
        let mut ts = tsorted(&rtx);
        let mut rack = Rack::default();
        // [300, 550) covers segments 3 and 4 wholly, 5 only in part; [0, 100) is below
        // snd_una 100 (D-SACK); [900, 1100) reaches past snd_nxt 1000.
        let tag = sacktag(
            &mut rtx,
            &[(300, 550), (0, 100), (900, 1100)],
            100,
            1000,
            &mut rack,
            None,
            &mut ts,
        );
        assert_eq!(tag.newly_sacked, 2);
        let sacked: Vec<u64> = rtx.iter().filter(|s| s.sacked).map(|s| s.off).collect();
        assert_eq!(sacked, vec![300, 400]);
        assert_eq!((tag.first_sackt, tag.last_sackt), (Some(4000), Some(5000)));
        assert_eq!(rack.highest_sacked_end, 500);
        assert_eq!((tag.reord, tag.highest), (None, Some(400)));
        // the SACKed segments left the time-ordered list
        assert_eq!(ts.len(), 8);
        assert_eq!(ts.entries(), tsorted(&rtx).entries());
        // A later SACK below the highest: reordering.
        let tag = sacktag(
            &mut rtx,
            &[(200, 300)],
            100,
            1000,
            &mut rack,
            tag.highest,
            &mut ts,
        );
        assert_eq!(tag.newly_sacked, 1);
        assert_eq!((tag.reord, tag.highest), (Some(200), Some(400)));
        // Two new blocks in one ACK, the higher listed first (as receivers list the newest
        // first): tagged in sequence order, no reordering.
        let mut rtx = board();
        let mut ts = tsorted(&rtx);
        let mut rack = Rack::default();
        let tag = sacktag(
            &mut rtx,
            &[(800, 900), (300, 400)],
            100,
            1000,
            &mut rack,
            None,
            &mut ts,
        );
        assert_eq!((tag.newly_sacked, tag.reord), (2, None));
        // A lost segment SACKed counts as no longer lost.
        let mut rtx = board();
        rtx[2].lost = true;
        let mut ts = tsorted(&rtx);
        let tag = sacktag(&mut rtx, &[(200, 400)], 100, 1000, &mut rack, None, &mut ts);
        assert_eq!((tag.newly_sacked, tag.unlost), (2, 1));
        assert!(!rtx[2].lost && rtx[2].sacked);
    }

    /// Both RACK walks (time-ordered list and whole-queue scan) on one board: same result,
    /// same segments marked.
    fn detect_both(
        rack: &Rack,
        rtx: &VecDeque<Seg>,
        reo_wnd_us: u64,
        now: u64,
    ) -> (u64, Option<u64>) {
        let mut a = rtx.clone();
        let mut ts = tsorted(&a);
        let got = rack.detect_loss(&mut a, &mut ts, reo_wnd_us, now);
        let mut b = rtx.clone();
        let want = rack.detect_loss_scan(&mut b, reo_wnd_us, now);
        assert_eq!(got, want);
        let lost = |q: &VecDeque<Seg>| q.iter().map(|s| s.lost).collect::<Vec<_>>();
        assert_eq!(lost(&a), lost(&b));
        // what is left in the list is what remains to be marked
        assert_eq!(ts.entries(), tsorted(&a).entries());
        got
    }

    #[test]
    fn time_ordered_list_matches_a_sorted_map() {
        // transmissions in time order with ties (a burst stamped like the one before, ending
        // lower: inserted in place), removals anywhere; the live entries always equal a sorted
        // map of the same operations
        let mut ts = TsOrder::default();
        let mut model = std::collections::BTreeMap::new();
        let mut x = 0x2545_f491u64;
        let mut rnd = |m: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % m
        };
        let mut t = 1_000u64;
        let mut segs: Vec<Seg> = Vec::new();
        for n in 0..3_000u64 {
            if rnd(4) != 0 {
                t += rnd(3); // ties on the transmit time
                let off = rnd(1_000_000) * 10;
                let s = Seg {
                    off,
                    len: 10,
                    fin: false,
                    tx_count: 1,
                    tx_ns: Some(t),
                    on_card: false,
                    sacked: false,
                    lost: false,
                    rate: TxRate::default(),
                };
                if model.insert((t, s.end()), off).is_none() {
                    ts.insert(&s);
                    segs.push(s);
                }
            } else if !segs.is_empty() {
                // mostly the oldest (ACKed, marked lost), sometimes any (SACKed)
                let k = if rnd(2) == 0 {
                    0
                } else {
                    rnd(segs.len() as u64) as usize
                };
                let s = segs.remove(k);
                model.remove(&(s.tx_ns.unwrap_or(0), s.end()));
                ts.remove(&s);
            }
            if n % 97 == 0 {
                let want: Vec<(u64, u64, u64)> =
                    model.iter().map(|(&(a, b), &c)| (a, b, c)).collect();
                assert_eq!(ts.entries(), want, "after {n} operations");
                assert_eq!(ts.len(), model.len());
            }
        }
    }

    #[test]
    fn rack_detects_loss_after_rtt_plus_reo_wnd() {
        let mut rtx = board();
        let mut rack = Rack::default();
        // Segment 5 (sent at 6000) delivered at 56_000: rack rtt 50 us.
        rack.advance(6000, 600, false, 56_000, 40);
        assert_eq!((rack.tx_ns, rack.end, rack.rtt_us), (6000, 600, 50));
        rtx[5].sacked = true;
        // At 56_000 with reo_wnd 0: segments sent at 1000..5000 whose tx + 50 us <= now.
        let (lost, wait) = detect_both(&rack, &rtx, 0, 56_000);
        assert_eq!(lost, 5);
        assert_eq!(wait, None);
        // With a 10 us window none is lost yet; the timer waits for the last candidate:
        // 5000 + 50_000 + 10_000 - 56_000 = 9_000 ns.
        let (lost, wait) = detect_both(&rack, &rtx, 10, 56_000);
        assert_eq!((lost, wait), (0, Some(9_000)));
        // Part expired, part waiting: 1000..3000 + 60 us <= 63_000, 4000 and 5000 wait
        // (5000 + 60_000 - 63_000 = 2_000 ns).
        let (lost, wait) = detect_both(&rack, &rtx, 10, 63_000);
        assert_eq!((lost, wait), (3, Some(2_000)));
        // Ties on the transmit time are ordered by end: a segment of the same burst ending
        // before RACK's is "sent before" it; ones ending after are not.
        let mut tied = board();
        for s in tied.iter_mut() {
            s.tx_ns = Some(1000);
        }
        let mut r = Rack::default();
        r.advance(1000, 600, false, 60_000, 40);
        tied[5].sacked = true;
        tied[1].lost = true;
        let (lost, wait) = detect_both(&r, &tied, 0, 60_000);
        assert_eq!((lost, wait), (4, None));
        // A retransmission delivered faster than min_rtt may be the original's: ignored.
        let mut r = Rack::default();
        r.advance(6000, 600, true, 36_000, 40);
        assert!(!r.advanced);
    }

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
