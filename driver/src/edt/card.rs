//! The transmit port the sender talks to, and a software model of the card behind it.
//!
//! [`TxPort`] is all the sender needs from a card: post a frame with its launch time, and
//! later learn when it actually left. The sender takes RTT and delivery-rate samples from that
//! departure time, never from the time it posted the frame.
//!
//! [`IdealCardModel`] is a software stand-in, NOT the tsnic RTL: it departs each frame at
//! `max(launch_ns, line free, time posted)` in launch-time order and serializes it at line rate
//! with preamble, FCS and inter-frame gap. The Verilated card (co-simulation) will implement
//! the same traits; until then `tsnic send` runs on this model and says so.

use std::collections::{BTreeMap, VecDeque};

use crate::wire_time::{serialize_ns, wire_bytes};

/// A frame handed to the card.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TxRequest {
    /// Earliest departure time (TAI ns). The card never sends before it.
    pub launch_ns: u64,
    /// A complete Ethernet frame without FCS.
    pub frame: Vec<u8>,
    /// Opaque to the card; returned in the completion.
    pub cookie: u64,
}

/// Outcome of one posted frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TxStatus {
    /// Sent on time: departure = launch, or waited only for the frame ahead on the wire.
    Sent,
    /// The launch time had already passed when the card got the frame; sent at once.
    SentLate,
}

/// Exactly one per posted frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Completion {
    pub cookie: u64,
    pub launch_ns: u64,
    /// When the frame's first byte entered the MAC.
    pub depart_ns: u64,
    pub status: TxStatus,
}

/// A frame as it left on the wire (for the simulated network and for pcap).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WireFrame {
    pub depart_ns: u64,
    /// When its last bit (plus FCS and gap) has left.
    pub end_ns: u64,
    pub frame: Vec<u8>,
}

/// What the sender needs from a card.
pub trait TxPort {
    /// Post `req` at time `now`. Frames leave in launch-time order, never early.
    fn post(&mut self, now: u64, req: TxRequest);
    /// Post the frames of one burst (a TSO packet's segments, in order) at `now` in one call,
    /// leaving `reqs` empty: a driver fills the descriptors and rings the doorbell once. The
    /// default posts them one by one, in order.
    fn post_batch(&mut self, now: u64, reqs: &mut Vec<TxRequest>) {
        for r in reqs.drain(..) {
            self.post(now, r);
        }
    }
    /// Time of the card's next departure, if it has work (lets a simulation jump ahead).
    fn next_event_ns(&self) -> Option<u64>;
    /// Advance to `now`; return the completions of frames that have departed by then.
    fn poll(&mut self, now: u64) -> Vec<Completion>;
    /// [`TxPort::poll`] into `out` (appended): a caller that polls in a loop keeps one
    /// buffer instead of a new `Vec` per call. The default appends what `poll` returns.
    fn poll_into(&mut self, now: u64, out: &mut Vec<Completion>) {
        out.append(&mut self.poll(now));
    }
    /// Port speed in bits per second.
    fn line_rate_bps(&self) -> u64;
    /// A short honest name of what this port is (shown in reports).
    fn describe(&self) -> String;
    /// Whether a frame posted now would be queued. false: the local queue refuses it (Linux:
    /// the qdisc drops it and `tcp_transmit_skb` fails; the segment counts as not sent).
    fn accepts(&self) -> bool {
        true
    }
}

/// Simulation-only: the frames that went out on the wire since the last call, and, for a card with a
/// receive path, the frames coming back.
pub trait SimWire {
    fn drain_wire(&mut self) -> Vec<WireFrame>;

    /// [`SimWire::drain_wire`] into `out` (appended), so a loop keeps one buffer. The default
    /// appends what `drain_wire` returns.
    fn drain_wire_into(&mut self, out: &mut Vec<WireFrame>) {
        out.append(&mut self.drain_wire());
    }

    /// True when frames from the network go through the card's receive path ([`SimWire::rx_inject`],
    /// [`SimWire::rx_poll`]); false (default): the caller hands them to the sender directly.
    fn has_rx(&self) -> bool {
        false
    }

    /// A frame from the network starts arriving at the card at `at_ns` (may be in the future).
    fn rx_inject(&mut self, _at_ns: u64, _frame: Vec<u8>) {}

    /// Frames the card has received and the host has seen by `now`, each with the card's hardware
    /// arrival time (sender time).
    fn rx_poll(&mut self, _now: u64) -> Vec<(u64, Vec<u8>)> {
        Vec::new()
    }
}

#[derive(Debug, Clone)]
struct Pending {
    launch_ns: u64,
    late: bool,
    frame: Vec<u8>,
    cookie: u64,
}

/// Software model of a launch-time card on an otherwise idle line.
#[derive(Debug, Clone)]
pub struct IdealCardModel {
    line_rate_bps: u64,
    line_free_ns: u64,
    next_seq: u64,
    /// Frames posted, keyed by (effective launch, posting order): launch order, ties in
    /// posting order. Posts that come in that order (nearly all: a flow's launch times only
    /// grow) are appended to `in_order`; the others go to `pending`; the next to leave is the
    /// lower of the two heads.
    in_order: VecDeque<((u64, u64), Pending)>,
    pending: BTreeMap<(u64, u64), Pending>,
    wire: Vec<WireFrame>,
    /// The last frame length serialized and its time on the wire: a flow's frames are
    /// mostly one length, so the 128-bit division is done once per length change.
    last_ser: (usize, u64),
}

impl IdealCardModel {
    pub fn new(line_rate_bps: u64) -> Self {
        IdealCardModel {
            line_rate_bps: line_rate_bps.max(1),
            line_free_ns: 0,
            next_seq: 0,
            in_order: VecDeque::new(),
            pending: BTreeMap::new(),
            wire: Vec::new(),
            last_ser: (usize::MAX, 0),
        }
    }

    /// The key of the next frame to leave.
    fn next_key(&self) -> Option<(u64, u64)> {
        let a = self.in_order.front().map(|(k, _)| *k);
        let b = self.pending.keys().next().copied();
        match (a, b) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Frames posted and not yet departed.
    pub fn queued(&self) -> usize {
        self.in_order.len() + self.pending.len()
    }
}

impl TxPort for IdealCardModel {
    fn post(&mut self, now: u64, req: TxRequest) {
        // A launch time in the past means "send now" (the card's late policy: send and mark).
        let late = req.launch_ns < now;
        let eff = req.launch_ns.max(now);
        self.next_seq += 1;
        let key = (eff, self.next_seq);
        let p = Pending {
            launch_ns: req.launch_ns,
            late,
            frame: req.frame,
            cookie: req.cookie,
        };
        if self.in_order.back().is_none_or(|(k, _)| *k < key) {
            self.in_order.push_back((key, p));
        } else {
            self.pending.insert(key, p);
        }
    }

    fn next_event_ns(&self) -> Option<u64> {
        self.next_key().map(|(eff, _)| eff.max(self.line_free_ns))
    }

    fn poll(&mut self, now: u64) -> Vec<Completion> {
        let mut out = Vec::new();
        self.poll_into(now, &mut out);
        out
    }

    fn poll_into(&mut self, now: u64, out: &mut Vec<Completion>) {
        while let Some(key) = self.next_key() {
            let depart = key.0.max(self.line_free_ns);
            if depart > now {
                break;
            }
            let p = if self.in_order.front().is_some_and(|(k, _)| *k == key) {
                self.in_order.pop_front().map(|(_, p)| p)
            } else {
                self.pending.remove(&key)
            };
            let Some(p) = p else {
                break;
            };
            if self.last_ser.0 != p.frame.len() {
                let ns = serialize_ns(wire_bytes(p.frame.len()), self.line_rate_bps);
                self.last_ser = (p.frame.len(), ns);
            }
            let end = depart + self.last_ser.1;
            self.line_free_ns = end;
            out.push(Completion {
                cookie: p.cookie,
                launch_ns: p.launch_ns,
                depart_ns: depart,
                status: if p.late {
                    TxStatus::SentLate
                } else {
                    TxStatus::Sent
                },
            });
            self.wire.push(WireFrame {
                depart_ns: depart,
                end_ns: end,
                frame: p.frame,
            });
        }
    }

    fn line_rate_bps(&self) -> u64 {
        self.line_rate_bps
    }

    fn describe(&self) -> String {
        format!(
            "software card model (IdealCardModel, {} Gbit/s line; not the RTL)",
            self.line_rate_bps as f64 / 1e9
        )
    }
}

impl SimWire for IdealCardModel {
    fn drain_wire(&mut self) -> Vec<WireFrame> {
        std::mem::take(&mut self.wire)
    }

    fn drain_wire_into(&mut self, out: &mut Vec<WireFrame>) {
        out.append(&mut self.wire); // `wire` keeps its allocation
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(launch: u64, cookie: u64, len: usize) -> TxRequest {
        TxRequest {
            launch_ns: launch,
            frame: vec![0; len],
            cookie,
        }
    }

    #[test]
    fn never_early_launch_order_and_line_rate() {
        let mut c = IdealCardModel::new(10_000_000_000);
        c.post(0, req(1000, 1, 1514));
        c.post(0, req(500, 2, 1514));
        c.post(0, req(1000, 3, 60));
        let done = c.poll(10_000);
        let order: Vec<u64> = done.iter().map(|d| d.cookie).collect();
        assert_eq!(order, vec![2, 1, 3]);
        // 1514+24 = 1538 bytes at 10G = 1230.4 -> 1231 ns on the wire.
        assert_eq!(done[0].depart_ns, 500);
        assert_eq!(done[1].depart_ns, 500 + 1231);
        assert_eq!(done[2].depart_ns, 500 + 2 * 1231);
        assert!(done.iter().all(|d| d.depart_ns >= d.launch_ns));
    }

    #[test]
    fn posts_out_of_launch_order_still_leave_in_it() {
        // launches mostly growing, some earlier than the last: the frames leave sorted by
        // (launch, posting order) whichever queue they went to
        let mut c = IdealCardModel::new(100_000_000_000);
        let mut x = 0x9e37_79b9u64;
        let mut want = Vec::new();
        for cookie in 0..300u64 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let launch = cookie * 100 + if x.is_multiple_of(5) { 0 } else { x % 3_000 };
            c.post(0, req(launch, cookie, 60));
            want.push((launch, cookie));
        }
        want.sort_unstable();
        assert_eq!(c.queued(), 300);
        let got: Vec<u64> = c.poll(u64::MAX / 2).iter().map(|d| d.cookie).collect();
        let want: Vec<u64> = want.iter().map(|&(_, k)| k).collect();
        assert_eq!(got, want);
        assert_eq!(c.queued(), 0);
    }

    #[test]
    fn late_frames_go_at_once_and_are_marked() {
        let mut c = IdealCardModel::new(1_000_000_000);
        c.post(5000, req(100, 9, 100));
        assert_eq!(c.next_event_ns(), Some(5000));
        let d = c.poll(5000);
        assert_eq!(d[0].status, TxStatus::SentLate);
        assert_eq!(d[0].depart_ns, 5000);
    }
}
