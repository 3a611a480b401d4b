//! The ordinary clock: one port, one domain, the default profile's E2E delay request-response,
//! two-step Sync, BMCA. A pure state machine: frames in (with their receive stamps), transmit
//! stamps in, timers; frames to send, clock steps and frequency trims out. It knows nothing of the
//! card; [`super::card`] runs it on one.
//!
//! All times are the local PHC's ns. Differences from ptp4l worth knowing: no PRE_MASTER
//! qualification wait (a port the BMCA makes master is MASTER at once), Delay_Req sent right after
//! a Sync is used once `logMinDelayReqInterval` has passed (ptp4l draws a random time in
//! [0, 2^(logMinDelayReqInterval+1)]), no management messages, no peer delay.

use std::collections::VecDeque;

use super::bmca::{self, Dataset, Decision};
use super::msg::{
    self, flags, Addr, Announce, Body, ClockQuality, Header, Message, PortIdentity, Timestamp,
    Transport,
};
use crate::phc::{PiServo, ServoMemory, ServoState, MAX_ADJFINE_PPB};

/// FOREIGN_MASTER_THRESHOLD (9.3.2.4.4): Announces in the window that qualify a foreign master.
pub const FOREIGN_MASTER_THRESHOLD: usize = 2;
/// FOREIGN_MASTER_TIME_WINDOW, in announce intervals (9.3.2.4.4).
pub const FOREIGN_MASTER_WINDOW: u64 = 4;

/// What the port may become.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, clap::ValueEnum)]
pub enum Role {
    /// BMCA decides (ptp4l's default).
    Auto,
    /// Never slave (ptp4l `serverOnly 1`): master from the start.
    Master,
    /// Never master (ptp4l `clientOnly 1`, `-s`): clockClass 255.
    Slave,
}

/// Port states (9.2.5) this clock uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum PortState {
    /// Waiting for Announces.
    Listening,
    /// Sending Announce and Sync.
    Master,
    /// A better master exists; this class 1..127 clock stays quiet.
    Passive,
    /// Following a master, servo not locked yet.
    Uncalibrated,
    /// Following a master, servo locked.
    Slave,
}

impl PortState {
    /// ptp4l's name.
    pub fn name(self) -> &'static str {
        match self {
            PortState::Listening => "LISTENING",
            PortState::Master => "MASTER",
            PortState::Passive => "PASSIVE",
            PortState::Uncalibrated => "UNCALIBRATED",
            PortState::Slave => "SLAVE",
        }
    }
}

/// Clock and port configuration (defaults: linuxptp's configs/default.cfg).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Config {
    /// Role.
    pub role: Role,
    /// Transport.
    pub transport: Transport,
    /// This end's addresses.
    pub addr: Addr,
    /// domainNumber (0).
    pub domain: u8,
    /// priority1 (128).
    pub priority1: u8,
    /// priority2 (128).
    pub priority2: u8,
    /// clockClass (248; 255 is forced for the slave role).
    pub clock_class: u8,
    /// logSyncInterval (0: 1 s).
    pub log_sync: i8,
    /// logAnnounceInterval (1: 2 s).
    pub log_announce: i8,
    /// logMinDelayReqInterval (0: 1 s).
    pub log_min_delay_req: i8,
    /// announceReceiptTimeout (3).
    pub announce_timeout: u8,
    /// currentUtcOffset announced (37 s).
    pub utc_offset: i16,
    /// ptp4l `first_step_threshold` (20 us): the first offset above it is stepped.
    pub first_step_threshold_ns: u64,
    /// ptp4l `step_threshold` (0: never step after the first update).
    pub step_threshold_ns: u64,
    /// ptp4l `delay_filter_length` (10) of the moving median of the path delay.
    pub delay_filter_len: usize,
    /// One-step Sync by schedule (issue 33 item 2): the master posts each Sync with launch time
    /// `now + one_step_lead_ns` and writes `launch + tx_latency_ns` into its originTimestamp; the
    /// card sends it at that launch time to the cycle, so no timestamp is inserted on the fly.
    pub one_step: bool,
    /// Launch time minus the time the Sync is built, ns (one-step).
    pub one_step_lead_ns: u64,
    /// Departure stamp minus launch time of a frame sent on time, ns (one-step; [`super::card`]
    /// measures it on the card).
    pub tx_latency_ns: u64,
}

impl Config {
    /// linuxptp's defaults for a port with these addresses.
    pub fn new(role: Role, transport: Transport, addr: Addr) -> Self {
        Config {
            role,
            transport,
            addr,
            domain: 0,
            priority1: 128,
            priority2: 128,
            clock_class: 248,
            log_sync: 0,
            log_announce: 1,
            log_min_delay_req: 0,
            announce_timeout: 3,
            utc_offset: 37,
            first_step_threshold_ns: 20_000,
            step_threshold_ns: 0,
            delay_filter_len: 10,
            one_step: false,
            one_step_lead_ns: 200_000,
            tx_latency_ns: 0,
        }
    }

    /// This port's identity (clockIdentity from the MAC, port 1).
    pub fn identity(&self) -> PortIdentity {
        PortIdentity {
            clock: msg::clock_identity_from_mac(self.addr.mac),
            port: 1,
        }
    }
}

/// 2^log s in ns.
pub fn interval_ns(log: i8) -> u64 {
    let log = log.clamp(-30, 30);
    if log >= 0 {
        1_000_000_000u64 << log
    } else {
        1_000_000_000u64 >> (-log)
    }
}

/// What a transmitted frame was, so its departure stamp finds its use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TxKind {
    /// A Sync with this sequenceId (its stamp goes into the Follow_Up).
    Sync(u16),
    /// A one-step Sync with this sequenceId and originTimestamp (ns): its stamp must equal it.
    OneStepSync(u16, u64),
    /// A Delay_Req with this sequenceId (its stamp is t3).
    DelayReq(u16),
    /// Anything else (no stamp needed).
    General,
}

/// What the clock asks of the card.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// Send this frame at `launch_ns` (0: as soon as possible) and report its departure stamp if
    /// `kind` is an event.
    Send {
        /// Ethernet frame (no FCS).
        frame: Vec<u8>,
        /// What it is.
        kind: TxKind,
        /// Launch time, local PHC ns (0: now).
        launch_ns: u64,
    },
    /// Step the PHC by this many ns (adjtime).
    Step(i64),
    /// Set the PHC's frequency trim, ppb (adjfine).
    Freq(i64),
}

/// One servo sample, for the status line (as ptp4l's `master offset ... s2 freq ... path delay`).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Sample {
    /// Local PHC time of the Sync's arrival (t2), ns.
    pub t2_ns: u64,
    /// Offset from the master (local minus master), ns.
    pub offset_ns: i64,
    /// Frequency trim written, ppb.
    pub freq_ppb: i64,
    /// Mean path delay in use (moving median), ns.
    pub path_delay_ns: i64,
    /// Servo state: 0 unlocked, 1 jump, 2 locked (ptp4l's s0/s1/s2).
    pub servo: u8,
    /// Port state after the sample.
    pub state: PortState,
}

/// A report for the log.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Report {
    /// Port state change.
    State {
        /// Before.
        from: PortState,
        /// After.
        to: PortState,
        /// Why (ptp4l's event name).
        why: &'static str,
        /// The new parent port, if slave.
        parent: Option<String>,
    },
    /// A servo sample.
    Sample(Sample),
}

/// Counters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Counters {
    /// Messages sent, by type: Sync, Follow_Up, Delay_Req, Delay_Resp, Announce.
    pub tx: [u64; 5],
    /// Messages received and used, same order.
    pub rx: [u64; 5],
    /// Frames ignored (not PTP, other domain, own, not from the parent, stale sequence).
    pub ignored: u64,
    /// Frames that were PTP for this transport but did not decode.
    pub bad: u64,
    /// Clock steps.
    pub steps: u64,
    /// One-step Syncs whose departure stamp was checked.
    pub one_step_syncs: u64,
    /// One-step Syncs whose departure stamp differed from the originTimestamp they carried.
    pub one_step_misses: u64,
}

fn type_index(t: u8) -> usize {
    match t {
        msg::mtype::SYNC => 0,
        msg::mtype::FOLLOW_UP => 1,
        msg::mtype::DELAY_REQ => 2,
        msg::mtype::DELAY_RESP => 3,
        _ => 4,
    }
}

/// What a slave clock leaves for the next command's clock on the same card (docs/PTP.md, "Between
/// commands"): the foreign masters it knew (each one's last Announce, the PTP message as hex, and
/// the local times its Announces were seen), which one is its parent, the parent's announce
/// receipt timeout, the servo, the path delay filter and the trim. With it the next clock follows
/// its parent at the first Sync instead of qualifying it again (two Announces, 9.3.2.4.4); the
/// BMCA still runs on every Announce, so another master is chosen as it would have been.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Memory {
    /// The foreign masters.
    pub foreign: Vec<ForeignMemory>,
    /// Index of the parent in `foreign`.
    pub parent: usize,
    /// Local time its announce receipt timeout expires, ns.
    pub announce_timeout_at: u64,
    /// The servo.
    pub servo: ServoMemory,
    /// The path delay filter's values, ns (oldest first).
    pub delays: Vec<i64>,
    /// The trim in force, ppb.
    pub freq_ppb: i64,
}

/// One foreign master of a [`Memory`].
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ForeignMemory {
    /// Its last Announce (the PTP message, hex).
    pub announce: String,
    /// Local times its Announces were seen, ns.
    pub seen: Vec<u64>,
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn unhex(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| s.get(i..i + 2).and_then(|h| u8::from_str_radix(h, 16).ok()))
        .collect()
}

#[derive(Debug, Clone)]
struct Foreign {
    ds: Dataset,
    announce: Announce,
    /// Local times of the Announces in the window.
    seen: VecDeque<u64>,
    log_interval: i8,
}

/// The ordinary clock.
#[derive(Debug, Clone)]
pub struct OrdinaryClock {
    cfg: Config,
    id: PortIdentity,
    state: PortState,
    servo: PiServo,
    freq_ppb: i64,
    parent: Option<PortIdentity>,
    parent_ds: Option<Dataset>,
    foreign: Vec<Foreign>,
    // timers (local PHC ns)
    t_announce: Option<u64>,
    t_sync: Option<u64>,
    t_announce_timeout: Option<u64>,
    next_delay_req: u64,
    // sequence ids
    seq_announce: u16,
    seq_sync: u16,
    seq_delay_req: u16,
    // slave side
    sync: Option<(u16, u64, i64)>,
    fup: Option<(u16, u64, i64)>,
    /// Last complete Sync exchange: t1, t2, correction.
    last_sync: Option<(u64, u64, i64)>,
    delay_req: Option<(u16, Option<u64>)>,
    delays: VecDeque<i64>,
    path_delay: Option<i64>,
    reports: Vec<Report>,
    counters: Counters,
    last_sample: Option<Sample>,
    /// Resumed from a [`Memory`] and no sample since: a first offset above
    /// `first_step_threshold_ns` restarts the servo (the PHC was set in between).
    resumed: bool,
}

impl OrdinaryClock {
    /// A clock starting at local time `now` with the PHC's trim `freq_ppb` in force.
    pub fn new(mut cfg: Config, now: u64, freq_ppb: i64) -> Self {
        if cfg.role == Role::Slave {
            cfg.clock_class = 255;
        }
        let mut servo = PiServo::new(
            interval_ns(cfg.log_sync) as f64 / 1e9,
            freq_ppb as f64,
            MAX_ADJFINE_PPB as f64,
        );
        servo.first_step_threshold_ns = cfg.first_step_threshold_ns;
        servo.step_threshold_ns = cfg.step_threshold_ns;
        let mut c = OrdinaryClock {
            id: cfg.identity(),
            cfg,
            state: PortState::Listening,
            servo,
            freq_ppb,
            parent: None,
            parent_ds: None,
            foreign: Vec::new(),
            t_announce: None,
            t_sync: None,
            t_announce_timeout: None,
            next_delay_req: 0,
            seq_announce: 0,
            seq_sync: 0,
            seq_delay_req: 0,
            sync: None,
            fup: None,
            last_sync: None,
            delay_req: None,
            delays: VecDeque::new(),
            path_delay: None,
            reports: Vec::new(),
            counters: Counters::default(),
            last_sample: None,
            resumed: false,
        };
        if cfg.role == Role::Master {
            c.become_master(now, "INIT_COMPLETE");
        } else {
            c.t_announce_timeout = Some(now + c.announce_timeout_ns());
        }
        c
    }

    /// The configuration in force.
    pub fn config(&self) -> &Config {
        &self.cfg
    }

    /// Port state.
    pub fn state(&self) -> PortState {
        self.state
    }

    /// The parent port (when slave or uncalibrated).
    pub fn parent(&self) -> Option<PortIdentity> {
        self.parent
    }

    /// Counters.
    pub fn counters(&self) -> Counters {
        self.counters
    }

    /// The last servo sample.
    pub fn last_sample(&self) -> Option<Sample> {
        self.last_sample
    }

    /// True when the next complete Sync exchange may step the PHC (the servo's second sample, or
    /// any with a `step_threshold_ns`): a job whose frames carry PHC launch times holds the clock
    /// while they are in flight (`tsnic send --ptp`, docs/PTP.md).
    pub fn may_step(&self) -> bool {
        matches!(self.state, PortState::Uncalibrated | PortState::Slave) && self.servo.may_jump()
    }

    /// What the next command's clock needs to follow the same parent at once (None unless
    /// following one: UNCALIBRATED or SLAVE).
    pub fn memory(&self) -> Option<Memory> {
        if !matches!(self.state, PortState::Uncalibrated | PortState::Slave) {
            return None;
        }
        let parent = self.parent?;
        let mut foreign = Vec::new();
        let mut pi = None;
        for f in &self.foreign {
            if f.ds.sender == parent {
                pi = Some(foreign.len());
            }
            let m = Message {
                header: Header {
                    msg_type: msg::mtype::ANNOUNCE,
                    sdo_major: 0,
                    domain: self.cfg.domain,
                    flags: 0,
                    correction: 0,
                    source: f.ds.sender,
                    seq: 0,
                    log_interval: f.log_interval,
                },
                body: Body::Announce(f.announce),
            };
            foreign.push(ForeignMemory {
                announce: hex(&m.encode()),
                seen: f.seen.iter().copied().collect(),
            });
        }
        Some(Memory {
            foreign,
            parent: pi?,
            announce_timeout_at: self.t_announce_timeout?,
            servo: self.servo.memory(),
            delays: self.delays.iter().copied().collect(),
            freq_ppb: self.freq_ppb,
        })
    }

    /// Carry on from `m` at local time `now`: a clock just made (LISTENING, not the master role)
    /// takes its foreign masters and follows its parent (UNCALIBRATED until a locked sample) with
    /// its servo and path delay. Refused, the clock unchanged, when the parent's announce receipt
    /// timeout has passed or the memory does not decode.
    pub fn resume(&mut self, m: &Memory, now: u64) -> Result<(), String> {
        if self.state != PortState::Listening || self.cfg.role == Role::Master {
            return Err(format!(
                "a clock in state {} (role {:?}) does not resume a slave's memory",
                self.state.name(),
                self.cfg.role
            ));
        }
        if now > m.announce_timeout_at {
            return Err(format!(
                "the parent's announce receipt timeout passed {} ms ago",
                (now - m.announce_timeout_at) / 1_000_000
            ));
        }
        let mut foreign = Vec::new();
        for f in &m.foreign {
            let bytes = unhex(&f.announce).ok_or("a saved Announce is not hex")?;
            let msg = Message::decode(&bytes).map_err(|e| format!("a saved Announce: {e}"))?;
            let Body::Announce(a) = msg.body else {
                return Err("a saved foreign master's message is not an Announce".into());
            };
            if msg.header.domain != self.cfg.domain {
                return Err(format!(
                    "saved for domain {}, this clock is in domain {}",
                    msg.header.domain, self.cfg.domain
                ));
            }
            foreign.push(Foreign {
                ds: Dataset::from_announce(&a, msg.header.source, self.id),
                announce: a,
                seen: f.seen.iter().copied().filter(|&t| t <= now).collect(),
                log_interval: msg.header.log_interval,
            });
        }
        let p = foreign
            .get(m.parent)
            .ok_or("the saved parent is not among the saved foreign masters")?;
        if p.announce.gm_identity == self.id.clock {
            return Err("the saved parent is this clock".into());
        }
        let (sender, ds) = (p.ds.sender, p.ds);
        self.foreign = foreign;
        self.parent = Some(sender);
        self.parent_ds = Some(ds);
        self.reset_exchange();
        self.delays = m
            .delays
            .iter()
            .rev()
            .take(self.cfg.delay_filter_len.max(1))
            .rev()
            .copied()
            .collect();
        self.path_delay = (!self.delays.is_empty()).then(|| median(&self.delays));
        self.servo.restore(&m.servo);
        self.freq_ppb = m.freq_ppb.clamp(-MAX_ADJFINE_PPB, MAX_ADJFINE_PPB);
        self.t_announce_timeout = Some(m.announce_timeout_at);
        self.resumed = true;
        self.set_state(PortState::Uncalibrated, "RS_SLAVE");
        Ok(())
    }

    /// True until the first sample after [`OrdinaryClock::resume`].
    pub fn resumed(&self) -> bool {
        self.resumed
    }

    /// Mean path delay in use.
    pub fn path_delay(&self) -> Option<i64> {
        self.path_delay
    }

    /// Take the reports since the last call.
    pub fn take_reports(&mut self) -> Vec<Report> {
        std::mem::take(&mut self.reports)
    }

    fn announce_timeout_ns(&self) -> u64 {
        u64::from(self.cfg.announce_timeout) * interval_ns(self.cfg.log_announce)
    }

    /// The earliest timer, local ns.
    pub fn next_deadline(&self) -> Option<u64> {
        [self.t_announce, self.t_sync, self.t_announce_timeout]
            .into_iter()
            .flatten()
            .min()
    }

    fn set_state(&mut self, to: PortState, why: &'static str) {
        if to != self.state {
            self.reports.push(Report::State {
                from: self.state,
                to,
                why,
                parent: match to {
                    PortState::Uncalibrated | PortState::Slave => {
                        self.parent.map(|p| p.to_string_ptp4l())
                    }
                    _ => None,
                },
            });
            self.state = to;
        }
    }

    fn become_master(&mut self, now: u64, why: &'static str) {
        if self.state != PortState::Master {
            self.t_announce = Some(now);
            self.t_sync = Some(now);
        }
        self.parent = None;
        self.parent_ds = None;
        self.t_announce_timeout = if self.cfg.role == Role::Master {
            None
        } else {
            Some(now + self.announce_timeout_ns())
        };
        self.set_state(PortState::Master, why);
    }

    fn own_dataset(&self) -> Dataset {
        Dataset {
            priority1: self.cfg.priority1,
            gm_identity: self.id.clock,
            quality: self.quality(),
            priority2: self.cfg.priority2,
            steps_removed: 0,
            sender: self.id,
            receiver: self.id,
        }
    }

    fn quality(&self) -> ClockQuality {
        ClockQuality {
            class: self.cfg.clock_class,
            accuracy: 0xfe,
            variance: 0xffff,
        }
    }

    fn header(&self, seq: u16, log_interval: i8, two_step: bool) -> Header {
        Header {
            msg_type: 0,
            sdo_major: 0,
            domain: self.cfg.domain,
            flags: if two_step { flags::TWO_STEP } else { 0 },
            correction: 0,
            source: self.id,
            seq,
            log_interval,
        }
    }

    fn send(&mut self, out: &mut Vec<Action>, m: Message, kind: TxKind) {
        self.send_at(out, m, kind, 0);
    }

    fn send_at(&mut self, out: &mut Vec<Action>, m: Message, kind: TxKind, launch_ns: u64) {
        self.counters.tx[type_index(m.body.msg_type())] += 1;
        out.push(Action::Send {
            frame: msg::frame(self.cfg.transport, &self.cfg.addr, &m),
            kind,
            launch_ns,
        });
    }

    /// Run the timers due at `now`.
    pub fn on_timer(&mut self, now: u64) -> Vec<Action> {
        let mut out = Vec::new();
        if self.t_announce_timeout.is_some_and(|t| t <= now) {
            self.t_announce_timeout = None;
            // the parent (or nobody) went quiet: forget it and decide again
            if let Some(p) = self.parent {
                self.foreign.retain(|f| f.ds.sender != p);
            }
            self.run_bmca(now, "ANNOUNCE_RECEIPT_TIMEOUT_EXPIRES");
            if self.t_announce_timeout.is_none() && self.state != PortState::Master {
                self.t_announce_timeout = Some(now + self.announce_timeout_ns());
            }
        }
        if self.state == PortState::Master {
            if let Some(t) = self.t_announce.filter(|&t| t <= now) {
                let ival = interval_ns(self.cfg.log_announce);
                self.t_announce = Some(next_after(t, ival, now));
                let m = Message {
                    header: Header {
                        flags: flags::PTP_TIMESCALE | flags::UTC_OFFSET_VALID,
                        ..self.header(self.seq_announce, self.cfg.log_announce, false)
                    },
                    body: Body::Announce(Announce {
                        origin: Timestamp::from_ns(now),
                        utc_offset: self.cfg.utc_offset,
                        gm_priority1: self.cfg.priority1,
                        gm_quality: self.quality(),
                        gm_priority2: self.cfg.priority2,
                        gm_identity: self.id.clock,
                        steps_removed: 0,
                        time_source: 0xa0,
                    }),
                };
                self.seq_announce = self.seq_announce.wrapping_add(1);
                self.send(&mut out, m, TxKind::General);
            }
            if let Some(t) = self.t_sync.filter(|&t| t <= now) {
                let ival = interval_ns(self.cfg.log_sync);
                self.t_sync = Some(next_after(t, ival, now));
                let seq = self.seq_sync;
                self.seq_sync = seq.wrapping_add(1);
                if self.cfg.one_step {
                    let launch = now + self.cfg.one_step_lead_ns;
                    let origin = launch + self.cfg.tx_latency_ns;
                    let m = Message {
                        header: self.header(seq, self.cfg.log_sync, false),
                        body: Body::Sync(Timestamp::from_ns(origin)),
                    };
                    self.send_at(&mut out, m, TxKind::OneStepSync(seq, origin), launch);
                } else {
                    let m = Message {
                        header: self.header(seq, self.cfg.log_sync, true),
                        body: Body::Sync(Timestamp::from_ns(now)),
                    };
                    self.send(&mut out, m, TxKind::Sync(seq));
                }
            }
        }
        out
    }

    /// A transmitted frame's departure stamp (local PHC ns).
    pub fn on_tx_stamp(&mut self, kind: TxKind, depart_ns: u64) -> Vec<Action> {
        let mut out = Vec::new();
        match kind {
            TxKind::Sync(seq) if self.state == PortState::Master => {
                let m = Message {
                    header: self.header(seq, self.cfg.log_sync, false),
                    body: Body::FollowUp(Timestamp::from_ns(depart_ns)),
                };
                self.send(&mut out, m, TxKind::General);
            }
            TxKind::OneStepSync(_, origin) => {
                self.counters.one_step_syncs += 1;
                if depart_ns != origin {
                    self.counters.one_step_misses += 1;
                }
            }
            TxKind::DelayReq(seq) => {
                if let Some((s, t3)) = self.delay_req.as_mut() {
                    if *s == seq {
                        *t3 = Some(depart_ns);
                    }
                }
            }
            _ => {}
        }
        out
    }

    /// A received frame with its arrival stamp (local PHC ns); `now` is the local time.
    pub fn on_rx(&mut self, frame: &[u8], rx_ns: u64, now: u64) -> Vec<Action> {
        let mut out = Vec::new();
        let Some((ptp, _src)) = msg::unframe(self.cfg.transport, frame) else {
            self.counters.ignored += 1;
            return out;
        };
        let m = match Message::decode(ptp) {
            Ok(m) => m,
            Err(_) => {
                self.counters.bad += 1;
                return out;
            }
        };
        let h = m.header;
        if h.domain != self.cfg.domain || h.source.clock == self.id.clock {
            self.counters.ignored += 1;
            return out;
        }
        let from_parent = self.parent == Some(h.source)
            && matches!(self.state, PortState::Uncalibrated | PortState::Slave);
        let used = match m.body {
            Body::Announce(a) => {
                self.on_announce(&h, &a, now);
                true
            }
            Body::DelayReq(_) if self.state == PortState::Master => {
                let resp = Message {
                    header: Header {
                        correction: h.correction,
                        ..self.header(h.seq, self.cfg.log_min_delay_req, false)
                    },
                    body: Body::DelayResp(Timestamp::from_ns(rx_ns), h.source),
                };
                self.send(&mut out, resp, TxKind::General);
                true
            }
            Body::Sync(origin) if from_parent => {
                if h.flags & flags::TWO_STEP != 0 {
                    self.sync = Some((h.seq, rx_ns, h.correction));
                    if self.fup.is_some_and(|(s, _, _)| s == h.seq) {
                        self.complete_sync(&mut out, now);
                    }
                } else {
                    // one-step: the origin timestamp is t1
                    self.sync = Some((h.seq, rx_ns, h.correction));
                    self.fup = Some((h.seq, origin.to_ns(), 0));
                    self.complete_sync(&mut out, now);
                }
                true
            }
            Body::FollowUp(t1) if from_parent => {
                self.fup = Some((h.seq, t1.to_ns(), h.correction));
                if self.sync.is_some_and(|(s, _, _)| s == h.seq) {
                    self.complete_sync(&mut out, now);
                }
                true
            }
            Body::DelayResp(t4, req) if from_parent && req == self.id => {
                match self.delay_req {
                    Some((s, Some(t3))) if s == h.seq => {
                        self.delay_req = None;
                        if let Some((t1, t2, c_sync)) = self.last_sync {
                            // (t2 - t1) + (t4 - t3) - corrections, halved (11.3.2)
                            let ms = t2 as i128 - t1 as i128;
                            let sm = t4.to_ns() as i128 - t3 as i128;
                            let corr = (i128::from(c_sync) + i128::from(h.correction)) >> 16;
                            let d = ((ms + sm - corr) / 2) as i64;
                            self.delays.push_back(d);
                            while self.delays.len() > self.cfg.delay_filter_len.max(1) {
                                self.delays.pop_front();
                            }
                            self.path_delay = Some(median(&self.delays));
                        }
                        true
                    }
                    _ => false,
                }
            }
            _ => false,
        };
        if used {
            self.counters.rx[type_index(m.body.msg_type())] += 1;
        } else {
            self.counters.ignored += 1;
        }
        out
    }

    fn on_announce(&mut self, h: &Header, a: &Announce, now: u64) {
        let ds = Dataset::from_announce(a, h.source, self.id);
        if a.steps_removed >= 255 || a.gm_identity == self.id.clock {
            return;
        }
        let window = FOREIGN_MASTER_WINDOW * interval_ns(h.log_interval);
        let f = match self
            .foreign
            .iter_mut()
            .position(|f| f.ds.sender == h.source)
        {
            Some(i) => &mut self.foreign[i],
            None => {
                self.foreign.push(Foreign {
                    ds,
                    announce: *a,
                    seen: VecDeque::new(),
                    log_interval: h.log_interval,
                });
                self.foreign.last_mut().expect("just pushed")
            }
        };
        f.ds = ds;
        f.announce = *a;
        f.log_interval = h.log_interval;
        f.seen.push_back(now);
        while f.seen.front().is_some_and(|&t| t + window < now) {
            f.seen.pop_front();
        }
        if self.parent == Some(h.source) {
            self.parent_ds = Some(ds);
            self.t_announce_timeout = Some(now + self.announce_timeout_ns());
        }
        self.run_bmca(now, "STATE_DECISION_EVENT");
    }

    fn run_bmca(&mut self, now: u64, why: &'static str) {
        // qualified foreign masters (9.3.2.5): enough Announces in the window
        for f in &mut self.foreign {
            let window = FOREIGN_MASTER_WINDOW * interval_ns(f.log_interval);
            while f.seen.front().is_some_and(|&t| t + window < now) {
                f.seen.pop_front();
            }
        }
        self.foreign.retain(|f| !f.seen.is_empty());
        let ebest = self
            .foreign
            .iter()
            .filter(|f| f.seen.len() >= FOREIGN_MASTER_THRESHOLD)
            .map(|f| f.ds)
            .min_by(bmca::compare);
        let d0 = self.own_dataset();
        let decision = match self.cfg.role {
            Role::Master => Decision::Master,
            Role::Slave => bmca::decide(&d0, ebest.as_ref(), true),
            Role::Auto => bmca::decide(&d0, ebest.as_ref(), false),
        };
        match decision {
            // a listening port with no qualified foreign master waits for its announce receipt
            // timeout before it takes the master role (9.2.6.11; ptp4l's bmc_state_decision)
            Decision::Master
                if ebest.is_none()
                    && self.state == PortState::Listening
                    && why != "ANNOUNCE_RECEIPT_TIMEOUT_EXPIRES" => {}
            Decision::Master => self.become_master(now, why),
            Decision::Passive => {
                self.t_announce = None;
                self.t_sync = None;
                self.parent = None;
                self.set_state(PortState::Passive, why);
            }
            Decision::Listening => {
                self.t_announce = None;
                self.t_sync = None;
                self.parent = None;
                self.set_state(PortState::Listening, why);
            }
            Decision::Slave => {
                let e = ebest.expect("a slave decision has a best master");
                self.t_announce = None;
                self.t_sync = None;
                if self.parent != Some(e.sender)
                    || !matches!(self.state, PortState::Uncalibrated | PortState::Slave)
                {
                    self.parent = Some(e.sender);
                    self.parent_ds = Some(e);
                    self.reset_exchange();
                    self.t_announce_timeout = Some(now + self.announce_timeout_ns());
                    self.set_state(PortState::Uncalibrated, "RS_SLAVE");
                }
            }
        }
    }

    /// Forget the measurements of the current exchange (new master, or the clock stepped).
    fn reset_exchange(&mut self) {
        self.sync = None;
        self.fup = None;
        self.last_sync = None;
        self.delay_req = None;
        self.delays.clear();
        self.path_delay = None;
        self.next_delay_req = 0;
    }

    fn complete_sync(&mut self, out: &mut Vec<Action>, now: u64) {
        let (Some((_, t2, c1)), Some((_, t1, c2))) = (self.sync.take(), self.fup.take()) else {
            return;
        };
        let corr = c1.saturating_add(c2);
        self.last_sync = Some((t1, t2, corr));
        let Some(delay) = self.path_delay else {
            self.send_delay_req(out, now);
            return;
        };
        let offset = (t2 as i128 - t1 as i128 - (i128::from(corr) >> 16) - i128::from(delay))
            .clamp(i64::MIN as i128, i64::MAX as i128) as i64;
        if std::mem::take(&mut self.resumed)
            && offset.unsigned_abs() > self.cfg.first_step_threshold_ns
        {
            // resumed, but the PHC is far off: start the servo afresh (it will step)
            let mut fresh = PiServo::new(
                interval_ns(self.cfg.log_sync) as f64 / 1e9,
                self.freq_ppb as f64,
                MAX_ADJFINE_PPB as f64,
            );
            fresh.first_step_threshold_ns = self.cfg.first_step_threshold_ns;
            fresh.step_threshold_ns = self.cfg.step_threshold_ns;
            self.servo = fresh;
        }
        let (ppb, st) = self.servo.sample(offset, t2);
        let freq = (ppb.round() as i64).clamp(-MAX_ADJFINE_PPB, MAX_ADJFINE_PPB);
        match st {
            ServoState::Unlocked => {}
            ServoState::Jump => {
                self.freq_ppb = freq;
                out.push(Action::Freq(freq));
                out.push(Action::Step(-offset));
                self.counters.steps += 1;
                self.shift_timers(-offset);
                self.reset_exchange();
                self.set_state(PortState::Uncalibrated, "SYNCHRONIZATION_FAULT");
            }
            ServoState::Locked => {
                self.freq_ppb = freq;
                out.push(Action::Freq(freq));
                self.set_state(PortState::Slave, "MASTER_CLOCK_SELECTED");
            }
        }
        let s = Sample {
            t2_ns: t2,
            offset_ns: offset,
            freq_ppb: self.freq_ppb,
            path_delay_ns: delay,
            servo: match st {
                ServoState::Unlocked => 0,
                ServoState::Jump => 1,
                ServoState::Locked => 2,
            },
            state: self.state,
        };
        self.last_sample = Some(s);
        self.reports.push(Report::Sample(s));
        // after a step the exchange starts over with the next Sync (a Delay_Req sent now would
        // carry a launch time or a t3 of the clock before the step)
        if st != ServoState::Jump {
            self.send_delay_req(out, now);
        }
    }

    /// A Delay_Req after a Sync, once logMinDelayReqInterval has passed.
    fn send_delay_req(&mut self, out: &mut Vec<Action>, now: u64) {
        if self.delay_req.is_none() || now >= self.next_delay_req {
            let seq = self.seq_delay_req;
            self.seq_delay_req = seq.wrapping_add(1);
            self.delay_req = Some((seq, None));
            self.next_delay_req = now + interval_ns(self.cfg.log_min_delay_req);
            let m = Message {
                header: self.header(seq, 0x7f, false),
                body: Body::DelayReq(Timestamp::default()),
            };
            self.send(out, m, TxKind::DelayReq(seq));
        }
    }

    /// The PHC was stepped by `delta`: timers are local times, so they move with it.
    fn shift_timers(&mut self, delta: i64) {
        for t in [
            &mut self.t_announce,
            &mut self.t_sync,
            &mut self.t_announce_timeout,
        ]
        .into_iter()
        .flatten()
        {
            *t = t.saturating_add_signed(delta);
        }
        for f in &mut self.foreign {
            for t in &mut f.seen {
                *t = t.saturating_add_signed(delta);
            }
        }
    }
}

/// The first `t + k * ival` (k >= 1) after `now`.
fn next_after(t: u64, ival: u64, now: u64) -> u64 {
    let next = t + ival;
    if next > now {
        next
    } else {
        now - (now - t) % ival + ival
    }
}

/// Median; of an even count, the mean of the middle two (as linuxptp's moving median, mmedian.c).
fn median(v: &VecDeque<i64>) -> i64 {
    let mut s: Vec<i64> = v.iter().copied().collect();
    s.sort_unstable();
    let n = s.len();
    if n % 2 == 1 {
        s[n / 2]
    } else {
        ((i128::from(s[n / 2 - 1]) + i128::from(s[n / 2])) / 2) as i64
    }
}

/// ptp4l's status line for a sample: `master offset N s2 freq +F path delay D`.
pub fn status_line(s: &Sample) -> String {
    format!(
        "master offset {:>10} s{} freq {:>+7} path delay {:>9}",
        s.offset_ns, s.servo, s.freq_ppb, s.path_delay_ns
    )
}

/// ptp4l's state line: `port 1: UNCALIBRATED to SLAVE on MASTER_CLOCK_SELECTED`.
pub fn state_line(r: &Report) -> Option<String> {
    match r {
        Report::State {
            from,
            to,
            why,
            parent,
        } => Some(match parent {
            Some(p) => format!(
                "port 1: {} to {} on {} (parent {p})",
                from.name(),
                to.name(),
                why
            ),
            None => format!("port 1: {} to {} on {}", from.name(), to.name(), why),
        }),
        Report::Sample(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn master(one_step: bool) -> OrdinaryClock {
        let mut c = Config::new(
            Role::Master,
            Transport::L2,
            Addr {
                mac: [2, 0, 0, 0, 0, 1],
                ip: [10, 0, 0, 1],
            },
        );
        c.one_step = one_step;
        c.tx_latency_ns = 37;
        OrdinaryClock::new(c, 1_000_000_000, 0)
    }

    #[test]
    fn one_step_sync_is_scheduled_and_checked() {
        let mut m = master(true);
        let acts = m.on_timer(1_000_000_000);
        let sync = acts
            .iter()
            .find_map(|a| match a {
                Action::Send {
                    frame,
                    kind: TxKind::OneStepSync(seq, origin),
                    launch_ns,
                } => Some((frame.clone(), *seq, *origin, *launch_ns)),
                _ => None,
            })
            .expect("a one-step Sync");
        let (frame, seq, origin, launch) = sync;
        assert_eq!(launch, 1_000_000_000 + 200_000);
        assert_eq!(origin, launch + 37);
        let (p, _) = msg::unframe(Transport::L2, &frame).unwrap();
        let d = Message::decode(p).unwrap();
        assert_eq!(d.header.flags & flags::TWO_STEP, 0);
        assert_eq!(d.body, Body::Sync(Timestamp::from_ns(origin)));
        assert!(m
            .on_tx_stamp(TxKind::OneStepSync(seq, origin), origin)
            .is_empty());
        assert_eq!(
            (m.counters().one_step_syncs, m.counters().one_step_misses),
            (1, 0)
        );
        m.on_tx_stamp(TxKind::OneStepSync(seq, origin), origin + 4);
        assert_eq!(
            (m.counters().one_step_syncs, m.counters().one_step_misses),
            (2, 1)
        );
    }

    #[test]
    fn two_step_sync_gets_a_follow_up_with_its_departure() {
        let mut m = master(false);
        let acts = m.on_timer(1_000_000_000);
        let seq = acts
            .iter()
            .find_map(|a| match a {
                Action::Send {
                    kind: TxKind::Sync(seq),
                    launch_ns: 0,
                    ..
                } => Some(*seq),
                _ => None,
            })
            .expect("a two-step Sync sent at once");
        let fu = m.on_tx_stamp(TxKind::Sync(seq), 1_000_000_123);
        let Action::Send { frame, .. } = &fu[0] else {
            panic!("{fu:?}")
        };
        let (p, _) = msg::unframe(Transport::L2, frame).unwrap();
        let d = Message::decode(p).unwrap();
        assert_eq!(d.header.seq, seq);
        assert_eq!(d.body, Body::FollowUp(Timestamp::from_ns(1_000_000_123)));
    }

    /// Master and slave on a 1 us wire, perfect clocks (the slave's local time = true time + its
    /// offset; steps applied, trims ignored), turned every ms. `until` ends the run early.
    struct Net {
        m: OrdinaryClock,
        s: OrdinaryClock,
        s_off: i64,
    }

    const D: u64 = 1_000;

    impl Net {
        fn sl(&self, t: u64) -> u64 {
            t.saturating_add_signed(self.s_off)
        }

        fn run(
            &mut self,
            from: u64,
            to: u64,
            until: impl Fn(&OrdinaryClock) -> bool,
        ) -> Option<u64> {
            let mut t = from;
            while t <= to {
                // (to the master?, true time, frame)
                let mut q: VecDeque<(bool, u64, Vec<u8>)> = VecDeque::new();
                let acts = self.m.on_timer(t);
                self.carry(true, t, acts, &mut q);
                let acts = self.s.on_timer(self.sl(t));
                self.carry(false, t, acts, &mut q);
                while let Some((to_m, at, f)) = q.pop_front() {
                    if to_m {
                        let acts = self.m.on_rx(&f, at, at);
                        self.carry(true, at, acts, &mut q);
                    } else {
                        let l = self.sl(at);
                        let acts = self.s.on_rx(&f, l, l);
                        self.carry(false, at, acts, &mut q);
                    }
                }
                if until(&self.s) {
                    return Some(t);
                }
                t += 1_000_000;
            }
            None
        }

        fn carry(
            &mut self,
            from_m: bool,
            t: u64,
            acts: Vec<Action>,
            q: &mut VecDeque<(bool, u64, Vec<u8>)>,
        ) {
            let mut acts: VecDeque<Action> = acts.into();
            while let Some(a) = acts.pop_front() {
                match a {
                    Action::Send { frame, kind, .. } => {
                        let more = if from_m {
                            self.m.on_tx_stamp(kind, t)
                        } else {
                            let l = self.sl(t);
                            self.s.on_tx_stamp(kind, l)
                        };
                        acts.extend(more);
                        q.push_back((!from_m, t + D, frame));
                    }
                    Action::Step(d) if !from_m => self.s_off += d,
                    _ => {}
                }
            }
        }
    }

    fn cfg(role: Role, mac_last: u8) -> Config {
        let mut c = Config::new(
            role,
            Transport::L2,
            Addr {
                mac: [2, 0, 0, 0, 0, mac_last],
                ip: [10, 0, 0, mac_last],
            },
        );
        c.log_sync = -4;
        c.log_announce = -3;
        c
    }

    /// A slave resumed from the memory a locked slave left follows the same master at its next
    /// Sync exchange, where a fresh one waits for two Announces; resumed beside another master, it
    /// does not take that one's Syncs as its parent's: it drops the old parent at its announce
    /// receipt timeout and follows the new one once qualified. Bad memory is refused, the clock
    /// unchanged.
    #[test]
    fn a_resumed_slave_follows_at_once_and_still_sees_a_new_master() {
        let e = 1_000_000_000_000;
        let mut net = Net {
            m: OrdinaryClock::new(cfg(Role::Master, 1), e, 0),
            s: OrdinaryClock::new(cfg(Role::Slave, 9), e + 5_000_000, 0),
            s_off: 5_000_000,
        };
        let locked = |c: &OrdinaryClock| c.state() == PortState::Slave;
        let t = net
            .run(e, e + 5_000_000_000, locked)
            .expect("the first slave locks");
        let mem = net.s.memory().expect("a locked slave leaves a memory");
        // the next command's clock, from the same PHC time
        let first = |c: &OrdinaryClock| c.last_sample().is_some();
        let now = net.sl(t);
        let mut resumed = OrdinaryClock::new(cfg(Role::Slave, 9), now, mem.freq_ppb);
        resumed.resume(&mem, now).unwrap();
        assert_eq!(resumed.state(), PortState::Uncalibrated);
        let fresh = OrdinaryClock::new(cfg(Role::Slave, 9), now, mem.freq_ppb);
        let mut net_r = Net {
            s: resumed,
            ..Net {
                m: net.m.clone(),
                s: fresh.clone(),
                s_off: net.s_off,
            }
        };
        let mut net_f = Net {
            s: fresh,
            m: net.m.clone(),
            s_off: net.s_off,
        };
        let tr = net_r.run(t + 1_000_000, t + 2_000_000_000, first).unwrap() - t;
        let tf = net_f.run(t + 1_000_000, t + 2_000_000_000, first).unwrap() - t;
        // one Sync interval (62.5 ms) at most, against two Announces (125 ms apart)
        assert!(tr <= 64_000_000, "resumed: first sample after {tr} ns");
        assert!(tf >= 125_000_000, "fresh: first sample after {tf} ns");
        assert_eq!(net_r.s.last_sample().unwrap().servo, 2, "locked at once");
        assert_eq!(net_r.s.state(), PortState::Slave);
        assert_eq!(net_r.s.counters().steps, 0);

        // another master (a better clock) where the old one was
        let mut b = cfg(Role::Master, 2);
        b.priority1 = 100;
        let mut resumed = OrdinaryClock::new(cfg(Role::Slave, 9), now, mem.freq_ppb);
        resumed.resume(&mem, now).unwrap();
        let b_id = b.identity();
        let mut net_b = Net {
            m: OrdinaryClock::new(b, t, 0),
            s: resumed,
            s_off: net.s_off,
        };
        let follows_b = |c: &OrdinaryClock| c.parent() == Some(b_id);
        let tb = net_b
            .run(t, t + 2_000_000_000, follows_b)
            .expect("it follows the new master")
            - t;
        // qualified on two of its Announces, 125 ms apart (then chosen: better than the old)
        assert!((125_000_000..=130_000_000).contains(&tb), "{tb}");
        // ... and nothing of B's was taken as the old parent's before
        let mut resumed = OrdinaryClock::new(cfg(Role::Slave, 9), now, mem.freq_ppb);
        resumed.resume(&mem, now).unwrap();
        let mut net_b2 = Net {
            m: OrdinaryClock::new(b, t, 0),
            s: resumed,
            s_off: net.s_off,
        };
        net_b2.run(t, t + tb - 1_000_000, |_| false);
        assert_ne!(net_b2.s.parent(), Some(b_id));
        assert_eq!(
            net_b2.s.counters().rx[0],
            0,
            "no Sync of B used before B was chosen"
        );
        assert!(net_b2.s.last_sample().is_none());
        // a worse master: the old parent is dropped at its announce receipt timeout (3 x 2 s at
        // the slave's default logAnnounceInterval... here its memory's: from the Announces'
        // 125 ms, 3 intervals), then B follows
        let mut w = cfg(Role::Master, 3);
        w.priority1 = 200;
        let w_id = w.identity();
        let mut resumed = OrdinaryClock::new(cfg(Role::Slave, 9), now, mem.freq_ppb);
        resumed.resume(&mem, now).unwrap();
        let mut net_w = Net {
            m: OrdinaryClock::new(w, t, 0),
            s: resumed,
            s_off: net.s_off,
        };
        let tw = net_w
            .run(t, t + 3_000_000_000, |c| c.parent() == Some(w_id))
            .expect("it follows the worse master once the old one is gone");
        assert!(
            tw > t + 125_000_000,
            "not before the old parent timed out: {}",
            tw - t
        );
        eprintln!(
            "first sample after the restart: resumed {} ms, fresh {} ms; a better master followed after {} ms, a worse one after {} ms",
            tr / 1_000_000,
            tf / 1_000_000,
            tb / 1_000_000,
            (tw - t) / 1_000_000
        );

        // refused: the timeout passed, bad hex, a parent index out of range; the clock unchanged
        let mut c = OrdinaryClock::new(cfg(Role::Slave, 9), now, 0);
        assert!(c
            .resume(&mem, mem.announce_timeout_at + 1)
            .unwrap_err()
            .contains("timeout"));
        let mut bad = mem.clone();
        bad.foreign[0].announce.push('x');
        assert!(c.resume(&bad, now).is_err());
        let mut bad = mem.clone();
        bad.parent = 7;
        assert!(c.resume(&bad, now).is_err());
        assert_eq!((c.state(), c.parent()), (PortState::Listening, None));
        let mut m = OrdinaryClock::new(cfg(Role::Master, 9), now, 0);
        assert!(m.resume(&mem, now).is_err(), "a master does not resume");
    }
}
