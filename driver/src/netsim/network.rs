//! The network path: a drop-tail bottleneck, a one-way delay each way, optional random loss and
//! reordering, and the TCP receivers at the far end. Discrete-event, in u64 nanoseconds.

use std::cmp::Ordering;
use std::collections::{BTreeSet, BinaryHeap, HashMap};

use super::receiver::{ReceiverConfig, TcpReceiver};
use super::wire;
use crate::rng::SeededRng;
use crate::wire_time::{serialize_ns, wire_bytes};

/// The path between the sender's card and the receiver.
#[derive(Debug, Clone, PartialEq)]
pub struct PathConfig {
    /// Bottleneck rate in bits per second.
    pub rate_bps: u64,
    /// Base round-trip time (both one-way delays, no queueing), ns.
    pub rtt_ns: u64,
    /// Drop-tail buffer in bytes (wire bytes of frames waiting or in service).
    pub buffer_bytes: u64,
    /// Probability a frame is lost after the bottleneck.
    pub loss: f64,
    /// Probability a frame is held back by `reorder_delay_ns` (it then arrives after later ones).
    pub reorder: f64,
    pub reorder_delay_ns: u64,
}

impl Default for PathConfig {
    fn default() -> Self {
        PathConfig {
            rate_bps: 10_000_000_000,
            rtt_ns: 100_000,
            buffer_bytes: 1_000_000,
            loss: 0.0,
            reorder: 0.0,
            reorder_delay_ns: 20_000,
        }
    }
}

/// What happened on the path.
#[derive(Debug, Clone, Default)]
pub struct PathStats {
    pub frames_in: u64,
    pub dropped_buffer: u64,
    pub dropped_random: u64,
    pub reordered: u64,
    /// Queueing delay at the bottleneck of each forwarded frame, ns.
    pub queue_delay_ns: Vec<u64>,
    pub max_backlog_bytes: u64,
    /// Frames sent to unknown ports that were answered with a reset.
    pub resets_sent: u64,
}

#[derive(Debug)]
enum EvKind {
    /// A frame reaches the receiver.
    ToReceiver(Vec<u8>),
    /// A frame reaches the sender's card input.
    ToSender(Vec<u8>),
    /// A receiver's delayed-ACK timer (keyed by its port).
    DelAck(u16),
    /// The latest time a receiver's NAPI poll may run (GRO on; port, poll number).
    Poll(u16, u64),
}

/// A receiver's NAPI poll being gathered (GRO on, [`ReceiverConfig::gro`]).
#[derive(Debug)]
struct OpenPoll {
    id: u64,
    frames: Vec<Vec<u8>>,
}

/// The TCP destination port of an Ethernet/IPv4/TCP frame, without checking it.
fn dst_port(f: &[u8]) -> Option<u16> {
    let ihl = usize::from(*f.get(14)? & 0x0f) * 4;
    let at = 14 + ihl + 2;
    Some(u16::from_be_bytes([*f.get(at)?, *f.get(at + 1)?]))
}

#[derive(Debug)]
struct Ev {
    t: u64,
    seq: u64,
    kind: EvKind,
}
impl PartialEq for Ev {
    fn eq(&self, o: &Self) -> bool {
        (self.t, self.seq) == (o.t, o.seq)
    }
}
impl Eq for Ev {}
impl PartialOrd for Ev {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Ev {
    // Reversed so BinaryHeap pops the earliest (then the first scheduled).
    fn cmp(&self, o: &Self) -> Ordering {
        (o.t, o.seq).cmp(&(self.t, self.seq))
    }
}

/// Path plus receivers.
#[derive(Debug)]
pub struct Network {
    cfg: PathConfig,
    rcv_cfg: ReceiverConfig,
    rng: SeededRng,
    events: BinaryHeap<Ev>,
    next_seq: u64,
    /// Finish times and wire sizes of frames in the bottleneck (waiting or in service).
    in_queue: std::collections::VecDeque<(u64, u64)>,
    backlog_bytes: u64,
    link_free_ns: u64,
    receivers: HashMap<u16, TcpReceiver>,
    pub stats: PathStats,
    /// Hand frames for the sender out as soon as they are scheduled (see [`Network::set_early_delivery`]).
    early: bool,
    /// GRO on: each receiver's poll being gathered, and the frames on their way to it
    /// (arrival time, event number), which tell whether a train of frames goes on.
    polls: HashMap<u16, OpenPoll>,
    arriving: HashMap<u16, BTreeSet<(u64, u64)>>,
    next_poll: u64,
}

impl Network {
    pub fn new(cfg: PathConfig, rcv_cfg: ReceiverConfig, seed: u64) -> Self {
        Network {
            cfg,
            rcv_cfg,
            rng: SeededRng::new(seed ^ 0x6e65_7473_696d),
            events: BinaryHeap::new(),
            next_seq: 0,
            in_queue: Default::default(),
            backlog_bytes: 0,
            link_free_ns: 0,
            receivers: HashMap::new(),
            stats: PathStats::default(),
            early: false,
            polls: HashMap::new(),
            arriving: HashMap::new(),
            next_poll: 0,
        }
    }

    pub fn config(&self) -> &PathConfig {
        &self.cfg
    }

    fn push(&mut self, t: u64, kind: EvKind) -> u64 {
        self.next_seq += 1;
        self.events.push(Ev {
            t,
            seq: self.next_seq,
            kind,
        });
        self.next_seq
    }

    /// The receiver listening on (or connected at) `port`.
    pub fn receiver(&self, port: u16) -> Option<&TcpReceiver> {
        self.receivers.get(&port)
    }

    /// All receivers, by local port.
    pub fn receivers(&self) -> impl Iterator<Item = (&u16, &TcpReceiver)> {
        self.receivers.iter()
    }

    /// Open a listening receiver on `port` (connections to other ports are reset).
    pub fn listen(&mut self, port: u16) {
        let iss = self.rng.next_u64() as u32;
        self.receivers
            .entry(port)
            .or_insert_with(|| TcpReceiver::new(self.rcv_cfg.clone(), port, iss));
    }

    /// Bytes waiting or in service at the bottleneck at time `t`.
    pub fn backlog_at(&mut self, t: u64) -> u64 {
        while let Some(&(end, bytes)) = self.in_queue.front() {
            if end > t {
                break;
            }
            self.in_queue.pop_front();
            self.backlog_bytes -= bytes;
        }
        self.backlog_bytes
    }

    /// A frame from the sender's card has fully arrived at the bottleneck input at `t`
    /// (store-and-forward). It is queued, dropped, lost or delayed according to the path.
    pub fn inject(&mut self, t: u64, frame: Vec<u8>) {
        self.stats.frames_in += 1;
        let wb = wire_bytes(frame.len());
        let backlog = self.backlog_at(t);
        if backlog + wb > self.cfg.buffer_bytes {
            self.stats.dropped_buffer += 1;
            return;
        }
        let start = t.max(self.link_free_ns);
        let end = start + serialize_ns(wb, self.cfg.rate_bps);
        self.link_free_ns = end;
        self.in_queue.push_back((end, wb));
        self.backlog_bytes += wb;
        self.stats.max_backlog_bytes = self.stats.max_backlog_bytes.max(self.backlog_bytes);
        self.stats.queue_delay_ns.push(start - t);
        if self.rng.chance(self.cfg.loss) {
            self.stats.dropped_random += 1;
            return;
        }
        let mut arrive = end + self.cfg.rtt_ns / 2;
        if self.rng.chance(self.cfg.reorder) {
            self.stats.reordered += 1;
            arrive += self.cfg.reorder_delay_ns;
        }
        let port = dst_port(&frame);
        let ev = self.push(arrive, EvKind::ToReceiver(frame));
        if self.rcv_cfg.gro.is_some() {
            if let Some(p) = port {
                self.arriving.entry(p).or_default().insert((arrive, ev));
            }
        }
    }

    /// Early delivery (for a card with a receive path that stamps arrivals itself): [`Network::advance`]
    /// returns a frame for the sender as soon as the path has scheduled it, with its (future)
    /// arrival time, instead of when that time comes; the caller puts it on the card's RX line for
    /// that time. Off by default.
    pub fn set_early_delivery(&mut self, on: bool) {
        self.early = on;
    }

    fn send_back(&mut self, t: u64, f: Vec<u8>, out: &mut Vec<(u64, Vec<u8>)>) {
        if self.early {
            out.push((t, f));
        } else {
            self.push(t, EvKind::ToSender(f));
        }
    }

    /// Time of the next internal event, if any.
    pub fn next_event_ns(&self) -> Option<u64> {
        self.events.peek().map(|e| e.t)
    }

    /// Run every internal event at or before `now`; returns the frames that reach the sender,
    /// each with its arrival time (in time order; with early delivery, each as soon as scheduled).
    pub fn advance(&mut self, now: u64) -> Vec<(u64, Vec<u8>)> {
        let mut out = Vec::new();
        let reverse = self.cfg.rtt_ns - self.cfg.rtt_ns / 2;
        while self.events.peek().is_some_and(|e| e.t <= now) {
            let Some(ev) = self.events.pop() else { break };
            match ev.kind {
                EvKind::ToSender(f) => out.push((ev.t, f)),
                EvKind::ToReceiver(f) if self.rcv_cfg.gro.is_some() => {
                    let Some(port) = dst_port(&f) else { continue };
                    if let Some(a) = self.arriving.get_mut(&port) {
                        a.remove(&(ev.t, ev.seq));
                    }
                    if !self.receivers.contains_key(&port) {
                        // nobody listens: answered alone, at once, below
                        self.deliver(ev.t, port, vec![f], reverse, &mut out);
                        continue;
                    }
                    self.gather(ev.t, port, f, reverse, &mut out);
                }
                EvKind::Poll(port, id) => {
                    if self.polls.get(&port).is_some_and(|p| p.id == id) {
                        self.run_poll(ev.t, port, reverse, &mut out);
                    }
                }
                EvKind::ToReceiver(f) => {
                    let port = match wire::parse(&f) {
                        Ok(p) => p.dst_port,
                        Err(_) => continue,
                    };
                    let replies = match self.receivers.get_mut(&port) {
                        Some(r) => {
                            let before = r.delack_deadline();
                            let replies = r.on_frame(ev.t, &f);
                            if let Some(d) = r.delack_deadline() {
                                if before != Some(d) {
                                    self.push(d, EvKind::DelAck(port));
                                }
                            }
                            replies
                        }
                        None => {
                            // Nobody listens: reset, as a host would.
                            let r: Vec<Vec<u8>> =
                                TcpReceiver::reset_reply(&f).into_iter().collect();
                            self.stats.resets_sent += r.len() as u64;
                            r
                        }
                    };
                    for r in replies {
                        self.send_back(ev.t + reverse, r, &mut out);
                    }
                }
                EvKind::DelAck(port) => {
                    if let Some(r) = self.receivers.get_mut(&port) {
                        let ack = r.on_timer(ev.t);
                        // another ACK timer may still be pending (SACK compression's fires
                        // before the delayed ACK's)
                        let next = r.delack_deadline().filter(|&d| d > ev.t);
                        if let Some(ack) = ack {
                            self.send_back(ev.t + reverse, ack, &mut out);
                        }
                        if let Some(d) = next {
                            self.push(d, EvKind::DelAck(port));
                        }
                    }
                }
            }
        }
        out
    }

    /// GRO on: add a frame that arrived at `t` to its receiver's poll, and run the poll now if
    /// the train of frames ends here (no frame of this flow arrives within one full-sized frame
    /// time at the bottleneck rate) or the poll is full; otherwise it runs at the latest its
    /// moderation period after its first frame (see [`super::gro`]).
    fn gather(
        &mut self,
        t: u64,
        port: u16,
        f: Vec<u8>,
        reverse: u64,
        out: &mut Vec<(u64, Vec<u8>)>,
    ) {
        let (max_delay, max_frames) = match self.rcv_cfg.gro.as_ref() {
            Some(g) => (g.max_delay_ns, g.max_frames.max(1)),
            None => (0, 1),
        };
        if !self.polls.contains_key(&port) {
            self.next_poll += 1;
            let id = self.next_poll;
            self.polls.insert(
                port,
                OpenPoll {
                    id,
                    frames: Vec::new(),
                },
            );
            self.push(t + max_delay, EvKind::Poll(port, id));
        }
        let Some(p) = self.polls.get_mut(&port) else {
            return;
        };
        p.frames.push(f);
        let full = p.frames.len() >= max_frames;
        let gap = serialize_ns(wire_bytes(1514), self.cfg.rate_bps);
        let train_goes_on = self
            .arriving
            .get(&port)
            .and_then(|a| a.first())
            .is_some_and(|&(next, _)| next <= t + gap);
        if full || !train_goes_on {
            self.run_poll(t, port, reverse, out);
        }
    }

    /// Run a receiver's gathered poll at `t`.
    fn run_poll(&mut self, t: u64, port: u16, reverse: u64, out: &mut Vec<(u64, Vec<u8>)>) {
        if let Some(p) = self.polls.remove(&port) {
            self.deliver(t, port, p.frames, reverse, out);
        }
    }

    /// Hand `frames` (one poll's, in arrival order) to the receiver on `port` at `t`, schedule
    /// its ACK timer, and send its answers back.
    fn deliver(
        &mut self,
        t: u64,
        port: u16,
        frames: Vec<Vec<u8>>,
        reverse: u64,
        out: &mut Vec<(u64, Vec<u8>)>,
    ) {
        let replies = match self.receivers.get_mut(&port) {
            Some(r) => {
                let before = r.delack_deadline();
                let replies = r.on_frames(t, &frames);
                if let Some(d) = r.delack_deadline() {
                    if before != Some(d) {
                        self.push(d, EvKind::DelAck(port));
                    }
                }
                replies
            }
            None => {
                let r: Vec<Vec<u8>> = frames
                    .iter()
                    .filter_map(|f| TcpReceiver::reset_reply(f))
                    .collect();
                self.stats.resets_sent += r.len() as u64;
                r
            }
        };
        for r in replies {
            self.send_back(t + reverse, r, out);
        }
    }
}
