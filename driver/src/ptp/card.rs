//! The ordinary clock run on a card: PTP frames go out on TX queue 0 with launch time 0 (late
//! policy SEND: they leave at once, completing SENT_LATE), and the completion's `depart_ns` (the PHC
//! time the frame started on the line) is the transmit stamp of Sync and Delay_Req; frames come in
//! on RX queue 0 (the default queue: every frame) with the card's arrival stamp; steps and trims go
//! to the PHC registers (`adjtime`, `adjfine`). The port owns these queues while it runs: the card
//! is not shared with another command (docs/PTP.md, "Who owns the card").

use std::collections::HashMap;

use thiserror::Error;

use super::clock::{Action, Config, OrdinaryClock, Report, TxKind};
use crate::contract::{Completion, HorizonPolicy, LatePolicy, Status};
use crate::device::{Backend, Caps, DeviceError};
use crate::phc::{self, PhcError};
use crate::push::{bring_up, PushError, PushOptions};
use crate::regs::DescFlags;
use crate::ring::{CplRing, QueueConfig, RingError, Rings, TxQueue};
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
    rings: Rings,
    rxq: RxQueue,
    /// Frames posted: cookie -> (what, launch time).
    in_flight: HashMap<u32, (TxKind, u64)>,
    counters: CardCounters,
    reports: Vec<Report>,
    cpls: Vec<Completion>,
    pkts: Vec<RxPacket>,
}

impl CardPort {
    /// Enable the card, create TX queue 0, the completion ring and RX queue 0 (the default queue),
    /// and start the clock at the PHC's time with the trim in force.
    pub fn open(b: &mut dyn Backend, mut cfg: Config) -> Result<CardPort, PtpError> {
        let caps = Caps::read(b)?;
        bring_up(b, &PushOptions::default())?;
        let cpl = CplRing::create(b, &caps, 8u32.clamp(1, caps.ring_log2_max.max(1)))?;
        let q = TxQueue::create(
            b,
            &caps,
            PTP_QUEUE,
            &QueueConfig {
                ring_log2: 6u32.clamp(1, caps.ring_log2_max.max(1)),
                buffers: 0,
                buf_size: BUF_SIZE,
                batch: 1,
                late: LatePolicy::Send,
                horizon: HorizonPolicy::Drop,
                quota: 0,
            },
        )?;
        let rcaps = RxCaps::read(b)?;
        let rxq = RxQueue::create(
            b,
            &rcaps,
            PTP_QUEUE,
            &RxQueueConfig {
                ring_log2: 6,
                buf_size: 2048,
            },
        )?;
        rx::set_default_queue(b, &rcaps, PTP_QUEUE)?;
        rx::rx_enable(b, true);
        let mut rings = Rings {
            queues: vec![q],
            cpl,
        };
        if cfg.one_step {
            cfg.tx_latency_ns = tx_latency(b, &mut rings, cfg.addr.mac)?;
        }
        let now = phc::get_ns(b);
        let freq = phc::freq(b);
        Ok(CardPort {
            clock: OrdinaryClock::new(cfg, now, freq),
            rings,
            rxq,
            in_flight: HashMap::new(),
            counters: CardCounters::default(),
            reports: Vec::new(),
            cpls: Vec::new(),
            pkts: Vec::new(),
        })
    }

    /// The clock.
    pub fn clock(&self) -> &OrdinaryClock {
        &self.clock
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
        let mut busy = false;
        self.cpls.clear();
        self.rings.poll(b, &mut self.cpls, 64)?;
        let cpls = std::mem::take(&mut self.cpls);
        for c in &cpls {
            busy = true;
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
                } => {
                    let q = &mut self.rings.queues[0];
                    match q.post(b, &frame, launch_ns, DescFlags::empty())? {
                        Ok(cookie) => {
                            self.counters.posted += 1;
                            self.in_flight.insert(cookie, (kind, launch_ns));
                        }
                        Err(full) => {
                            return Err(PtpError::NotSent(format!(
                                "TX queue {PTP_QUEUE} full ({full:?}): the card is not sending"
                            )))
                        }
                    }
                }
                Action::Step(d) => phc::adjtime(b, d),
                Action::Freq(f) => phc::adjfine(b, f)?,
            }
        }
        Ok(())
    }
}

/// Launch time of the calibration frame after the PHC reading, ns.
const CAL_LEAD_NS: u64 = 100_000;

/// Departure stamp minus launch time of a frame sent on time (one-step by schedule): one 60-byte
/// frame of the local experimental EtherType 0x88B5 with a launch time on the PHC's cycle grid.
fn tx_latency(b: &mut dyn Backend, rings: &mut Rings, mac: [u8; 6]) -> Result<u64, PtpError> {
    let mut f = vec![0u8; 60];
    f[..6].copy_from_slice(&[0xff; 6]);
    f[6..12].copy_from_slice(&mac);
    f[12..14].copy_from_slice(&[0x88, 0xb5]);
    let launch = phc::get_ns(b) + CAL_LEAD_NS;
    if let Err(full) = rings.queues[0].post(b, &f, launch, DescFlags::empty())? {
        return Err(PtpError::NotSent(format!("calibration frame: {full:?}")));
    }
    let mut cpls = Vec::new();
    for _ in 0..1000 {
        b.wait_ns(1_000)?;
        rings.poll(b, &mut cpls, 4)?;
        if let Some(c) = cpls.first() {
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
