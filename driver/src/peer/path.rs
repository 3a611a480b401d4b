//! The path model between our end and the TAP, run on the host clock (this kernel has no
//! netem): a drop-tail bottleneck at `rate` with `buffer`, half the RTT each way, random loss,
//! and a burst of consecutive losses. The same model carries the EDT sender's frames and, in
//! the baseline, the kernel sender's, so both see the same injected loss.
//!
//! Loss (random and burst) applies to frames that carry TCP payload in the forward direction
//! only: the handshake and the close are never dropped, so a run's timing does not hinge on a
//! 1 s SYN timeout, and both senders are compared on data loss alone. The random choice is a
//! seeded generator, so the same seed drops the same data frames (by index).

use std::collections::{BinaryHeap, VecDeque};

use crate::netsim::PathConfig;
use crate::rng::SeededRng;
use crate::wire_time::{serialize_ns, wire_bytes};

/// A burst of `count` consecutive data frames dropped, starting at data frame `start`
/// (counting from 0, retransmissions included).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Burst {
    pub start: u64,
    pub count: u64,
}

/// Parse `COUNT@START` (e.g. `10@500`).
pub fn parse_burst(s: &str) -> Option<Burst> {
    let (c, st) = s.trim().split_once('@')?;
    Some(Burst {
        start: st.trim().parse().ok()?,
        count: c.trim().parse().ok()?,
    })
}

/// What happened on the path.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct RtPathStats {
    pub frames_fwd: u64,
    pub data_frames_fwd: u64,
    pub frames_rev: u64,
    pub dropped_buffer: u64,
    pub dropped_random: u64,
    pub dropped_burst: u64,
    pub max_backlog_bytes: u64,
}

#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Due {
    t: std::cmp::Reverse<(u64, u64)>,
    frame: Vec<u8>,
}

/// The two directions of the path.
#[derive(Debug)]
pub struct RtPath {
    cfg: PathConfig,
    burst: Option<Burst>,
    rng: SeededRng,
    seq: u64,
    fwd: BinaryHeap<Due>,
    rev: BinaryHeap<Due>,
    link_free_ns: u64,
    in_queue: VecDeque<(u64, u64)>,
    backlog: u64,
    pub stats: RtPathStats,
}

/// Whether an Ethernet frame is IPv4/TCP with payload.
pub fn carries_tcp_payload(f: &[u8]) -> bool {
    if f.len() < 34 || f[12..14] != [0x08, 0x00] || f[23] != 6 {
        return false;
    }
    let ihl = usize::from(f[14] & 0x0f) * 4;
    let tot = usize::from(u16::from_be_bytes([f[16], f[17]]));
    let tcp = 14 + ihl;
    if f.len() < tcp + 13 {
        return false;
    }
    let doff = usize::from(f[tcp + 12] >> 4) * 4;
    tot > ihl + doff
}

impl RtPath {
    pub fn new(cfg: PathConfig, burst: Option<Burst>, seed: u64) -> RtPath {
        RtPath {
            cfg,
            burst,
            rng: SeededRng::new(seed ^ 0x7274_7061_7468),
            seq: 0,
            fwd: BinaryHeap::new(),
            rev: BinaryHeap::new(),
            link_free_ns: 0,
            in_queue: VecDeque::new(),
            backlog: 0,
            stats: RtPathStats::default(),
        }
    }

    pub fn config(&self) -> &PathConfig {
        &self.cfg
    }

    fn push(heap: &mut BinaryHeap<Due>, seq: &mut u64, t: u64, frame: Vec<u8>) {
        *seq += 1;
        heap.push(Due {
            t: std::cmp::Reverse((t, *seq)),
            frame,
        });
    }

    /// A frame from the sender side enters the path at `t`.
    pub fn send_fwd(&mut self, t: u64, frame: Vec<u8>) {
        self.stats.frames_fwd += 1;
        let data = carries_tcp_payload(&frame);
        let idx = self.stats.data_frames_fwd;
        if data {
            self.stats.data_frames_fwd += 1;
        }
        let wb = wire_bytes(frame.len());
        while let Some(&(end, b)) = self.in_queue.front() {
            if end > t {
                break;
            }
            self.in_queue.pop_front();
            self.backlog -= b;
        }
        if self.backlog + wb > self.cfg.buffer_bytes {
            self.stats.dropped_buffer += 1;
            return;
        }
        let start = t.max(self.link_free_ns);
        let end = start + serialize_ns(wb, self.cfg.rate_bps);
        self.link_free_ns = end;
        self.in_queue.push_back((end, wb));
        self.backlog += wb;
        self.stats.max_backlog_bytes = self.stats.max_backlog_bytes.max(self.backlog);
        if data {
            if self
                .burst
                .is_some_and(|b| idx >= b.start && idx < b.start + b.count)
            {
                self.stats.dropped_burst += 1;
                return;
            }
            if self.rng.chance(self.cfg.loss) {
                self.stats.dropped_random += 1;
                return;
            }
        }
        let at = end + self.cfg.rtt_ns / 2;
        Self::push(&mut self.fwd, &mut self.seq, at, frame);
    }

    /// A frame from the Linux side enters the path at `t` (delay only, as the netsim model).
    pub fn send_rev(&mut self, t: u64, frame: Vec<u8>) {
        self.stats.frames_rev += 1;
        let at = t + (self.cfg.rtt_ns - self.cfg.rtt_ns / 2);
        Self::push(&mut self.rev, &mut self.seq, at, frame);
    }

    pub fn next_event_ns(&self) -> Option<u64> {
        [self.fwd.peek(), self.rev.peek()]
            .into_iter()
            .flatten()
            .map(|d| d.t.0 .0)
            .min()
    }

    /// Forward frames due by `now`, in order.
    pub fn due_fwd(&mut self, now: u64) -> Vec<Vec<u8>> {
        Self::due(&mut self.fwd, now)
    }

    /// Reverse frames due by `now`, in order.
    pub fn due_rev(&mut self, now: u64) -> Vec<Vec<u8>> {
        Self::due(&mut self.rev, now)
    }

    fn due(h: &mut BinaryHeap<Due>, now: u64) -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        while h.peek().is_some_and(|d| d.t.0 .0 <= now) {
            if let Some(d) = h.pop() {
                out.push(d.frame);
            }
        }
        out
    }

    /// Frames still on the path.
    pub fn in_flight(&self) -> usize {
        self.fwd.len() + self.rev.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data_frame(payload: usize) -> Vec<u8> {
        let mut f = vec![0u8; 54 + payload];
        f[12] = 0x08;
        f[14] = 0x45;
        let tot = (40 + payload) as u16;
        f[16..18].copy_from_slice(&tot.to_be_bytes());
        f[23] = 6;
        f[34 + 12] = 5 << 4;
        f
    }

    #[test]
    fn burst_drops_exactly_count_data_frames_and_never_control() {
        let cfg = PathConfig {
            rate_bps: 1_000_000_000,
            rtt_ns: 1000,
            buffer_bytes: 10_000_000,
            ..PathConfig::default()
        };
        let mut p = RtPath::new(cfg, parse_burst("10@5"), 1);
        for i in 0..30u64 {
            p.send_fwd(i * 100_000, data_frame(1000));
            p.send_fwd(i * 100_000 + 1, data_frame(0));
        }
        assert_eq!(p.stats.dropped_burst, 10);
        assert_eq!(p.due_fwd(u64::MAX).len(), 50);
    }

    #[test]
    fn delays_each_way() {
        let cfg = PathConfig {
            rate_bps: 8_000_000_000,
            rtt_ns: 100_000,
            buffer_bytes: 1_000_000,
            ..PathConfig::default()
        };
        let mut p = RtPath::new(cfg, None, 1);
        p.send_rev(0, vec![1]);
        assert!(p.due_rev(49_999).is_empty());
        assert_eq!(p.due_rev(50_000).len(), 1);
        p.send_fwd(0, data_frame(946)); // 1000 B + 24 wire overhead = 1024 ns at 8G
        assert!(p.due_fwd(51_023).is_empty());
        assert_eq!(p.due_fwd(51_024).len(), 1);
    }
}
