//! The ordinary clock run on a card: PTP frames go out on TX queue 0 with launch time 0 (late
//! policy SEND: they leave at once, completing SENT_LATE), and the completion's `depart_ns` (the PHC
//! time the frame started on the line) is the transmit stamp of Sync and Delay_Req; frames come in
//! on RX queue 0 (the default queue: every frame) with the card's arrival stamp; steps and trims go
//! to the PHC registers (`adjtime`, `adjfine`). The port owns these queues while it runs: the card
//! is not shared with another command (docs/PTP.md, "Who owns the card").
//!
//! Beside a job ([`BesideClock`], `tsnic push|replay --ptp`): the same port on a TX queue the job
//! does not use, sharing the job's completion ring (the card has one: the port's records are set
//! aside for it, [`CplRing::set_aside`]), turned once per turn of the job's loop.

use std::collections::HashMap;

use thiserror::Error;

use super::clock::{Action, Config, OrdinaryClock, Report, TxKind};
use crate::contract::{Completion, HorizonPolicy, LatePolicy, Status};
use crate::device::{Backend, Caps, DeviceError};
use crate::phc::{self, PhcError};
use crate::push::{bring_up, PushError, PushOptions};
use crate::regs::DescFlags;
use crate::ring::{CplRing, QueueConfig, RingError, TxQueue};
use crate::rx::{self, RxCaps, RxError, RxPacket, RxQueue, RxQueueConfig};

/// Errors of PTP on a card.
#[derive(Debug, Error)]
pub enum PtpError {
    /// The card or backend.
    #[error(transparent)]
    Device(#[from] DeviceError),
    /// Bringing the card up.
    #[error(transparent)]
    Push(#[from] PushError),
    /// A TX or completion ring.
    #[error(transparent)]
    Ring(#[from] RingError),
    /// The receive path.
    #[error(transparent)]
    Rx(#[from] RxError),
    /// The PHC.
    #[error(transparent)]
    Phc(#[from] PhcError),
    /// A frame was not sent.
    #[error("a PTP frame was not sent: {0}; check `tsnic stats`")]
    NotSent(String),
    /// Bad options.
    #[error("{0}")]
    Invalid(String),
}

/// Frame buffer size (PTP frames are under 100 bytes).
const BUF_SIZE: usize = 256;
/// TX queue and RX queue the port uses.
pub const PTP_QUEUE: u16 = 0;

/// Counters of the card side.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct CardCounters {
    /// Frames posted.
    pub posted: u64,
    /// Completions SENT or SENT_LATE.
    pub sent: u64,
    /// Completions with any other status (the frame did not go out: its exchange is lost).
    pub not_sent: u64,
    /// Frames received (good).
    pub received: u64,
    /// RX completions not OK.
    pub rx_errors: u64,
}

/// An ordinary clock on a card.
#[derive(Debug)]
pub struct CardPort {
    clock: OrdinaryClock,
    txq: TxQueue,
    /// Its own completion ring (alone on the card); None beside a job, whose ring it shares.
    cpl: Option<CplRing>,
    rxq: RxQueue,
    /// Frames posted: cookie -> (what, launch time).
    in_flight: HashMap<u32, (TxKind, u64)>,
    counters: CardCounters,
    reports: Vec<Report>,
    cpls: Vec<Completion>,
    pkts: Vec<RxPacket>,
    phc: PhcWrites,
}

/// What the port wrote to the PHC so far (a job that maps its own time to the PHC follows it:
/// [`super::timebase::PhcMap`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PhcWrites {
    /// Writes (steps and trims).
    pub writes: u64,
    /// Sum of the steps, ns.
    pub stepped_ns: i64,
    /// The trim in force, ppb.
    pub ppb: i64,
    /// Simulated time of the last write, ns (a simulated card; None on hardware).
    pub sim_ns: Option<u64>,
}

fn ptp_txq(b: &mut dyn Backend, caps: &Caps, q: u16) -> Result<TxQueue, PtpError> {
    Ok(TxQueue::create(
        b,
        caps,
        q,
        &QueueConfig {
            ring_log2: 6u32.clamp(1, caps.ring_log2_max.max(1)),
            buffers: 0,
            buf_size: BUF_SIZE,
            batch: 1,
            late: LatePolicy::Send,
            horizon: HorizonPolicy::Drop,
            quota: 0,
        },
    )?)
}

/// The EtherType steering rule the clock uses for L2 PTP (0x88F7 to its RX queue).
pub const PTP_ET_RULE: u32 = 0;

/// RX queue `q` for the clock: the default queue too if `default_rx` (alone on the card, or beside a
/// job that receives nothing), else reached by EtherType rule 0 alone (beside send, whose ACKs keep
/// the default queue: L2 PTP only).
fn ptp_rxq(b: &mut dyn Backend, q: u16, default_rx: bool) -> Result<RxQueue, PtpError> {
    let rcaps = RxCaps::read(b)?;
    if !default_rx && rcaps.steer_et_rules == 0 {
        return Err(PtpError::Invalid(
            "this card has no EtherType steering rule (RX_STEER_ET_RULES 0): PTP beside a job that \
             keeps the default RX queue cannot get its frames; update the card's bitstream"
                .into(),
        ));
    }
    let rxq = RxQueue::create(
        b,
        &rcaps,
        q,
        &RxQueueConfig {
            ring_log2: 6,
            buf_size: 2048,
        },
    )?;
    if default_rx {
        rx::set_default_queue(b, &rcaps, q)?;
    }
    // L2 PTP frames to this queue even when another queue is made the default (a job beside that
    // receives, e.g. the EDT sender's ACKs); a card without EtherType rules has only the default
    if rcaps.steer_et_rules > 0 {
        rx::steer_et_set(b, &rcaps, PTP_ET_RULE, rx::ETHERTYPE_PTP, q)?;
    }
    rx::rx_enable(b, true);
    Ok(rxq)
}

impl CardPort {
    /// Enable the card, create TX queue 0, the completion ring and RX queue 0 (the default queue),
    /// and start the clock at the PHC's time with the trim in force.
    pub fn open(b: &mut dyn Backend, cfg: Config) -> Result<CardPort, PtpError> {
        let caps = Caps::read(b)?;
        bring_up(b, &PushOptions::default())?;
        let mut cpl = CplRing::create(b, &caps, 8u32.clamp(1, caps.ring_log2_max.max(1)))?;
        cpl.set_aside(PTP_QUEUE);
        let txq = ptp_txq(b, &caps, PTP_QUEUE)?;
        let rxq = ptp_rxq(b, PTP_QUEUE, true)?;
        let mut port = Self::start(b, cfg, txq, rxq, &mut cpl)?;
        port.cpl = Some(cpl);
        Ok(port)
    }

    /// Beside a job that holds the card and its completion ring `cpl` (created, nothing posted yet
    /// on `txq`): create TX queue `txq` and RX queue `rxq` (made the default queue if `default_rx`,
    /// else fed by EtherType rule 0 alone), set `txq`'s completions aside on `cpl`, and start the
    /// clock. Turn it with [`CardPort::poll_beside`].
    pub fn attach(
        b: &mut dyn Backend,
        caps: &Caps,
        cpl: &mut CplRing,
        cfg: Config,
        txq: u16,
        rxq: u16,
        default_rx: bool,
    ) -> Result<CardPort, PtpError> {
        if u32::from(txq) >= caps.num_queues {
            return Err(PtpError::Invalid(format!(
                "PTP TX queue {txq}: the card has {} queue(s) (0..={})",
                caps.num_queues,
                caps.num_queues.saturating_sub(1)
            )));
        }
        cpl.set_aside(txq);
        let tq = ptp_txq(b, caps, txq)?;
        let rq = ptp_rxq(b, rxq, default_rx)?;
        Self::start(b, cfg, tq, rq, cpl)
    }

    fn start(
        b: &mut dyn Backend,
        mut cfg: Config,
        mut txq: TxQueue,
        rxq: RxQueue,
        cpl: &mut CplRing,
    ) -> Result<CardPort, PtpError> {
        if cfg.one_step {
            cfg.tx_latency_ns = tx_latency(b, &mut txq, cpl, cfg.addr.mac)?;
        }
        let now = phc::get_ns(b);
        let freq = phc::freq(b);
        Ok(CardPort {
            clock: OrdinaryClock::new(cfg, now, freq),
            txq,
            cpl: None,
            rxq,
            in_flight: HashMap::new(),
            counters: CardCounters::default(),
            reports: Vec::new(),
            cpls: Vec::new(),
            pkts: Vec::new(),
            phc: PhcWrites {
                writes: 0,
                stepped_ns: 0,
                ppb: freq,
                sim_ns: None,
            },
        })
    }

    /// The TX queue the port uses.
    pub fn tx_queue(&self) -> u16 {
        self.txq.queue()
    }

    /// Leave the card: disable the port's TX queue (its frames in flight are flushed) and RX queue.
    pub fn close(mut self, b: &mut dyn Backend) -> Result<(), PtpError> {
        let caps = Caps::read(b)?;
        self.txq.disable(b, &caps);
        let rcaps = RxCaps::read(b)?;
        if rcaps.steer_et_rules > 0 {
            rx::steer_et_clear(b, &rcaps, PTP_ET_RULE)?;
        }
        self.rxq.disable(b, 1_000_000)?;
        Ok(())
    }

    /// The clock.
    pub fn clock(&self) -> &OrdinaryClock {
        &self.clock
    }

    /// Carry on from what an earlier command's clock left on this card ([`super::saved`]): checked
    /// against the card's PHC first. Returns what it follows now.
    pub fn resume(
        &mut self,
        b: &mut dyn Backend,
        saved: &super::saved::Saved,
    ) -> Result<String, super::saved::SavedError> {
        saved.check(b, self.clock.config())?;
        let now = phc::get_ns(b);
        self.clock
            .resume(&saved.clock, now)
            .map_err(super::saved::SavedError::Stale)?;
        self.reports.extend(self.clock.take_reports());
        Ok(format!(
            "resumed: following {} with the servo and path delay of the clock before (no Announces waited for)",
            self.clock
                .parent()
                .map(|p| p.to_string_ptp4l())
                .unwrap_or_default()
        ))
    }

    /// What this clock leaves for the next command's (None: it follows no parent).
    pub fn saved(&self, b: &mut dyn Backend) -> Option<super::saved::Saved> {
        super::saved::Saved::of(b, self.clock.config(), self.clock.memory())
    }

    /// What the port wrote to the PHC so far.
    pub fn phc_writes(&self) -> PhcWrites {
        self.phc
    }

    /// Card-side counters.
    pub fn counters(&self) -> CardCounters {
        self.counters
    }

    /// Frames posted whose completion has not come back.
    pub fn outstanding(&self) -> usize {
        self.in_flight.len()
    }

    /// The earliest launch time of the frames in flight (0: one goes as soon as it can).
    pub fn next_launch(&self) -> Option<u64> {
        self.in_flight.values().map(|&(_, l)| l).min()
    }

    /// Take the clock's reports since the last call.
    pub fn take_reports(&mut self) -> Vec<Report> {
        std::mem::take(&mut self.reports)
    }

    /// The clock's next timer, local PHC ns.
    pub fn next_deadline(&self) -> Option<u64> {
        self.clock.next_deadline()
    }

    /// Take completions and received frames, run the timers due at the PHC's time, and carry out
    /// what the clock asks. Returns true if anything came in or went out.
    pub fn poll(&mut self, b: &mut dyn Backend) -> Result<bool, PtpError> {
        let mut cpl = self.cpl.take().ok_or_else(|| {
            PtpError::Invalid("a port beside a job turns with poll_beside".into())
        })?;
        // alone on the card: this port's queue is the only one that completes on its ring
        let mut others = Vec::new();
        cpl.poll(b, &mut others, 64);
        let r = match others.first() {
            Some(c) => Err(PtpError::Ring(RingError::BadCompletion {
                queue: c.queue,
                cookie: c.cookie,
                record: *c,
            })),
            None => self.poll_beside(b, &mut cpl),
        };
        self.cpl = Some(cpl);
        r
    }

    /// [`CardPort::poll`] beside a job: the port's completions are those the job's own poll of the
    /// shared ring `cpl` set aside (this does not read the ring: the job's records are the job's).
    pub fn poll_beside(
        &mut self,
        b: &mut dyn Backend,
        cpl: &mut CplRing,
    ) -> Result<bool, PtpError> {
        let mut busy = false;
        self.cpls.clear();
        cpl.take_aside(&mut self.cpls);
        let cpls = std::mem::take(&mut self.cpls);
        for c in &cpls {
            busy = true;
            self.txq.complete(c)?;
            let kind = self.in_flight.remove(&c.cookie).map(|(k, _)| k);
            match Status::from_code(c.status) {
                Some(Status::Sent | Status::SentLate) => {
                    self.counters.sent += 1;
                    if let Some(k) = kind {
                        let acts = self.clock.on_tx_stamp(k, c.depart_ns);
                        self.apply(b, acts)?;
                    }
                }
                // counted, not fatal: the exchange it belonged to is simply lost (a Sync without
                // its Follow_Up, a Delay_Req without its t3), as a frame lost on the line would be
                _ => self.counters.not_sent += 1,
            }
        }
        self.cpls = cpls;
        self.pkts.clear();
        self.rxq.poll(b, &mut self.pkts, 64)?;
        if !self.pkts.is_empty() {
            busy = true;
            let now = phc::get_ns(b);
            let pkts = std::mem::take(&mut self.pkts);
            for p in &pkts {
                if !p.ok() {
                    self.counters.rx_errors += 1;
                    continue;
                }
                self.counters.received += 1;
                let acts = self.clock.on_rx(&p.data, p.arrival_ns, now);
                self.apply(b, acts)?;
            }
            self.pkts = pkts;
        }
        if let Some(d) = self.clock.next_deadline() {
            let now = phc::get_ns(b);
            if now >= d {
                busy = true;
                let acts = self.clock.on_timer(now);
                self.apply(b, acts)?;
            }
        }
        self.reports.extend(self.clock.take_reports());
        Ok(busy)
    }

    fn apply(&mut self, b: &mut dyn Backend, acts: Vec<Action>) -> Result<(), PtpError> {
        for a in acts {
            match a {
                Action::Send {
                    frame,
                    kind,
                    launch_ns,
                } => match self.txq.post(b, &frame, launch_ns, DescFlags::empty())? {
                    Ok(cookie) => {
                        self.counters.posted += 1;
                        self.in_flight.insert(cookie, (kind, launch_ns));
                    }
                    Err(full) => {
                        return Err(PtpError::NotSent(format!(
                            "TX queue {} full ({full:?}): the card is not sending",
                            self.txq.queue()
                        )))
                    }
                },
                Action::Step(d) => {
                    phc::adjtime(b, d);
                    self.phc.writes += 1;
                    self.phc.stepped_ns = self.phc.stepped_ns.saturating_add(d);
                    self.phc.sim_ns = b.sim_time_ns();
                }
                Action::Freq(f) => {
                    phc::adjfine(b, f)?;
                    self.phc.writes += 1;
                    self.phc.ppb = f;
                    self.phc.sim_ns = b.sim_time_ns();
                }
            }
        }
        Ok(())
    }
}

/// Launch time of the calibration frame after the PHC reading, ns.
const CAL_LEAD_NS: u64 = 100_000;

/// Card time a one-step master takes to start (its calibration frame's lead and completion),
/// with room: a job that starts the clock beside it leaves this much before its first launch.
pub const ONE_STEP_START_NS: u64 = 2 * CAL_LEAD_NS;

/// Departure stamp minus launch time of a frame sent on time (one-step by schedule): one 60-byte
/// frame of the local experimental EtherType 0x88B5 with a launch time on the PHC's cycle grid.
fn tx_latency(
    b: &mut dyn Backend,
    q: &mut TxQueue,
    cpl: &mut CplRing,
    mac: [u8; 6],
) -> Result<u64, PtpError> {
    let mut f = vec![0u8; 60];
    f[..6].copy_from_slice(&[0xff; 6]);
    f[6..12].copy_from_slice(&mac);
    f[12..14].copy_from_slice(&[0x88, 0xb5]);
    let launch = phc::get_ns(b) + CAL_LEAD_NS;
    if let Err(full) = q.post(b, &f, launch, DescFlags::empty())? {
        return Err(PtpError::NotSent(format!("calibration frame: {full:?}")));
    }
    let mut cpls = Vec::new();
    let mut others = Vec::new();
    for _ in 0..1000 {
        b.wait_ns(1_000)?;
        // the ring is shared only with a job that has posted nothing yet: nothing else completes
        cpl.poll(b, &mut others, 4);
        if let Some(c) = others.first() {
            return Err(PtpError::Invalid(format!(
                "a completion of queue {} on the ring while --one-step calibrates (nothing else may run yet)",
                c.queue
            )));
        }
        cpl.take_aside(&mut cpls);
        if let Some(c) = cpls.first() {
            q.complete(c)?;
            return match Status::from_code(c.status) {
                Some(Status::Sent) if c.depart_ns >= launch => Ok(c.depart_ns - launch),
                _ => Err(PtpError::NotSent(format!(
                    "the calibration frame for --one-step completed with status code {} at {} for launch {launch}",
                    c.status, c.depart_ns
                ))),
            };
        }
    }
    Err(PtpError::NotSent(
        "no completion for the calibration frame within 1 ms".into(),
    ))
}

/// Run `port` on `b` for `duration_ns` of PHC time (0: until `each` returns false), polling every
/// `poll_ns` (sooner when a timer is due, every microsecond while a frame is in flight). `each` gets
/// every report.
pub fn run(
    b: &mut dyn Backend,
    port: &mut CardPort,
    duration_ns: u64,
    poll_ns: u64,
    mut each: impl FnMut(&Report) -> bool,
) -> Result<(), PtpError> {
    let start = b.now_ns();
    loop {
        port.poll(b)?;
        for r in port.take_reports() {
            if !each(&r) {
                return Ok(());
            }
        }
        let now_host = b.now_ns();
        if duration_ns > 0 && now_host.saturating_sub(start) >= duration_ns {
            return Ok(());
        }
        let mut wait = poll_ns.max(1);
        if port.outstanding() > 0 {
            wait = wait.min(1_000);
        }
        if let Some(d) = port.next_deadline() {
            let now = phc::get_ns(b);
            wait = wait.min(d.saturating_sub(now).max(1));
        }
        b.wait_ns(wait)?;
    }
}
