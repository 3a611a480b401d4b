//! The EDT sender on the **simulated card**: [`TxPort`] and [`SimWire`] over the real driver stack
//! (TX rings, completion ring, PHC) on the sim backend, i.e. the Verilated `tsnic_core`.
//!
//! - Each segment is posted as a TX descriptor with its launch time (the card's PHC time) on a card
//!   queue: flow `i` uses queue `i % queues`. Doorbell on every post (batch 1): an EDT post must
//!   reach the card at once.
//! - The completion's `depart_ns` (the card's own departure time) is what the sender gets back, so
//!   RTT and delivery-rate samples start at the real departure.
//! - The frames handed to the network model are the bytes the wire model recorded, with their
//!   wire start and end times.
//! - One clock: sender time `t` is card simulated time `t + sim_off`; the sender's clock is
//!   monotonic and never stepped, and PHC time is mapped from it through [`PhcMap`] (at open
//!   `t + phc_off` at the trim in force; a PTP slave beside the sender (`--ptp`) steps and trims
//!   the PHC, and the map follows each write: launch times are mapped when posted, stamps back
//!   through the segment they were taken in; docs/PTP.md). [`TxPort::poll`] runs the
//!   core up to `t` with the backend's `wait_ns`; the closed loop processes card, network and timer
//!   events in time order, so the network model and the card share simulated time. BAR0 accesses
//!   take simulated cycles too, so the card can be a few tens of ns ahead of the loop's `now`; it is
//!   never behind.
//!
//! - ACKs come back through the card's **receive path** (issue 13): the network model hands each
//!   frame for the sender over as soon as it is scheduled ([`crate::netsim::Network::set_early_delivery`]),
//!   with its arrival time; the port puts it on the simulated RX line for that time; the core stamps
//!   its arrival (PHC at the first beat), steers it to RX queue 0 and writes it into a posted buffer;
//!   [`SimWire::rx_poll`] reads it from the RX ring with that stamp, and the sender takes its RTT
//!   sample from the segment's hardware departure to this hardware arrival. The stamp lies a fixed
//!   preamble + first bus word (16 bytes, 12.8 ns at 10G) plus at most one core cycle after the path
//!   model's arrival time; [`SimCardPort::rx_arrival_offsets`] has every such offset.
//!
//! Cost: every simulated nanosecond is simulated cycle by cycle (about 0.25 M core cycles per wall
//! second here, i.e. about one wall second per simulated millisecond at 250 MHz).

use std::collections::{BTreeMap, HashMap, VecDeque};

use serde::Serialize;

use super::card::{Completion, SimWire, TxPort, TxRequest, TxStatus, WireFrame};
use super::EdtError;
use crate::contract::{HorizonPolicy, LatePolicy, Status};
use crate::device::sim::{LineRate, SimBackend, SimConfig, WireTap};
use crate::device::Backend;
use crate::device::Card;
use crate::ptp::beside::{is_clock_frame, BesideClock, BesideSpec, BesideSummary};
use crate::ptp::path_master::PathMaster;
use crate::ptp::timebase::PhcMap;
use crate::push::{bring_up, ErrorStats, PushOptions};
use crate::regs::DescFlags;
use crate::ring::{CplRing, QueueConfig, Rings, TxQueue};
use crate::rx::{self, RxCaps, RxQueue, RxQueueConfig};

/// Poll step while the card holds a frame that is due (departing, or departed and its completion on
/// the way), ns of simulated time.
pub const POLL_STEP_NS: u64 = 200;
/// Give up when a due frame has no completion for this long (simulated ns).
pub const STALL_NS: u64 = 5_000_000;
/// Frame buffer size per descriptor (the sender's frames are at most 1514 bytes).
const BUF_SIZE: usize = 2048;
/// Longest a PTP slave beside the sender is held back from a Sync exchange that may step the PHC
/// while the sender has frames on the card (simulated ns); past it the clock turns anyway.
pub const PTP_STEP_HOLD_NS: u64 = 50_000_000;
/// Simulated time left after enabling the core before the first post: the calendar's initial sweep
/// after reset (16 us on the default core) orders nothing by launch time.
const SETTLE_NS: u64 = 30_000;

/// Per-status counts and departure error of the frames the sender posted on the simulated card.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct SimCardStats {
    /// Frames posted.
    pub posted: u64,
    /// Completed SENT.
    pub sent: u64,
    /// Completed SENT_LATE (launch time already passed when the card fetched the frame: the first
    /// unpaced segments, ACK-clocked bursts posted "now").
    pub sent_late: u64,
    /// Completed DROPPED_LATE.
    pub dropped_late: u64,
    /// Completed DROPPED_HORIZON.
    pub dropped_horizon: u64,
    /// Completed REJECTED.
    pub rejected: u64,
    /// Completed FLUSHED.
    pub flushed: u64,
    /// Completed DMA_ERROR.
    pub dma_error: u64,
    /// Frames on the wire that left before their launch time (must be 0).
    pub early: u64,
    /// Frames the wire model recorded.
    pub wire_frames: u64,
    /// depart_ns - launch_ns over SENT and SENT_LATE completions, ns (card PHC time).
    pub departure_error_ns: ErrorStats,
    /// depart_ns - launch_ns over SENT completions only (frames posted ahead of their time), ns.
    pub departure_error_sent_ns: ErrorStats,
    /// Core cycles simulated (reset included).
    pub cycles: u64,
    /// Most frames posted and not completed at once.
    pub max_outstanding: u64,
    /// Posts that found the ring or buffers full and waited in the driver.
    pub ring_full_waits: u64,
    /// Frames from the network put on the card's RX line.
    pub rx_injected: u64,
    /// Frames read from the card's RX ring and handed to the sender.
    pub rx_received: u64,
    /// RX completions not OK (not handed to the sender).
    pub rx_errors: u64,
    /// Frames put on the RX line that the card dropped (a full on-card buffer, no posted buffer,
    /// RX disabled: its counters say so); to the sender they are lost on the path.
    pub rx_dropped: u64,
    /// Card arrival stamp minus the path model's arrival time, ns, over every received frame.
    pub rx_arrival_offset_ns: ErrorStats,
    /// Frames of the PTP clock beside the sender (`--ptp`) on the wire: not the sender's, not
    /// handed to the network model.
    pub ptp_wire_frames: u64,
    /// Posts whose PHC launch time was below that of the frame posted before them on the same
    /// queue while that one was still on the card (a step mapped between them; must be 0).
    pub launch_reorders: u64,
    /// SENT frames: start on the wire (simulated time) minus the sender's launch time, ns: how
    /// well the PHC map put the launch time on the PHC.
    pub wire_minus_launch_sent_ns: ErrorStats,
    /// Departure the sender got (the card's stamp mapped back) minus the frame's start on the
    /// wire, ns, over every frame on the wire.
    pub stamp_minus_wire_ns: ErrorStats,
    /// Frames on the wire whose completion did not pair with them in order (must be 0).
    pub wire_unpaired: u64,
    /// Steps of the PHC folded into the map (a PTP slave beside the sender).
    pub phc_steps: u64,
    /// Sender time of the last step, ns.
    pub phc_step_at_ns: Option<u64>,
    /// Frames of the sender on the card when the PHC was stepped (must be 0: the clock is held
    /// while they are, up to [`PTP_STEP_HOLD_NS`]).
    pub in_flight_at_step: u64,
    /// Longest the clock was held back from a step, ns.
    pub ptp_hold_max_ns: u64,
}

impl SimCardStats {
    /// Rows for the `tsnic send` table.
    pub fn table_rows(&self) -> String {
        use std::fmt::Write;
        let mut o = String::new();
        let row = |o: &mut String, k: &str, v: String| {
            let _ = writeln!(o, "{k:<26}{v:>14}");
        };
        row(&mut o, "card posted", self.posted.to_string());
        row(&mut o, "card sent", self.sent.to_string());
        row(&mut o, "card sent_late", self.sent_late.to_string());
        row(
            &mut o,
            "card dropped/rej/flush/dma",
            format!(
                "{}/{}/{}/{}",
                self.dropped_late + self.dropped_horizon,
                self.rejected,
                self.flushed,
                self.dma_error
            ),
        );
        row(&mut o, "card early", self.early.to_string());
        let e = &self.departure_error_ns;
        row(
            &mut o,
            "depart err min/p50 ns",
            format!("{} / {}", e.min, e.p50),
        );
        row(
            &mut o,
            "depart err p99/max ns",
            format!("{} / {}", e.p99, e.max),
        );
        let s = &self.departure_error_sent_ns;
        row(
            &mut o,
            "SENT err p50/p99/max ns",
            format!("{} / {} / {}", s.p50, s.p99, s.max),
        );
        row(
            &mut o,
            "card rx acks/errors",
            format!(
                "{}/{} ({} dropped)",
                self.rx_received, self.rx_errors, self.rx_dropped
            ),
        );
        let r = &self.rx_arrival_offset_ns;
        row(
            &mut o,
            "rx stamp-path min/max ns",
            format!("{} / {}", r.min, r.max),
        );
        row(&mut o, "core cycles", self.cycles.to_string());
        o
    }
}

#[derive(Debug, Clone, Copy)]
struct Flight {
    cookie: u64,
    /// Sender time.
    launch_ns: u64,
    seq: u64,
    /// PHC launch time posted.
    launch_phc: u64,
}

#[derive(Debug)]
struct Waiting {
    req: TxRequest,
    seq: u64,
}

/// [`TxPort`] on the Verilated card through the driver's rings.
pub struct SimCardPort {
    card: Card,
    tap: WireTap,
    rings: Rings,
    /// Card simulated time at sender time 0, ns.
    sim_off: u64,
    /// Card PHC at sender time 0, ns (calibrated at open on one frame: its completion's PHC
    /// departure against the wire model's simulated time of its first beat).
    phc_off: u64,
    /// Sender time to PHC and back, following the clock's steps and trims.
    phc: PhcMap,
    /// Per queue: the PHC launch and buffer of the frame posted last.
    last_post: Vec<Option<(u64, u32)>>,
    /// The sender's frames on the wire not yet paired with their completion: (start, length).
    wire_starts: VecDeque<(u64, usize)>,
    wire_vs_launch: Vec<i64>,
    stamp_vs_wire: Vec<i64>,
    /// What the clock had written to the PHC when the map last followed it: (writes, steps).
    phc_seen: (u64, i64),
    /// Since when (sender time) the clock has been held back from a step.
    ptp_held_since: Option<u64>,
    /// A grandmaster at the far end of the path for a slave beside the sender (test facility).
    master: Option<PathMaster>,
    /// Card simulated time as of the last backend call, in sender time.
    card_t: u64,
    in_flight: HashMap<(u16, u32), Flight>,
    /// Launch (sender time), posting order) of every frame posted and not completed.
    launches: BTreeMap<(u64, u64), ()>,
    /// Per queue: frames that found the ring full, in posting order.
    waiting: Vec<VecDeque<Waiting>>,
    seq: u64,
    /// Last time a completion arrived (sender time).
    last_progress: u64,
    stats: SimCardStats,
    errs: Vec<i64>,
    errs_sent: Vec<i64>,
    wire: Vec<WireFrame>,
    error: Option<String>,
    line_rate_bps: u64,
    describe: String,
    rxq: RxQueue,
    /// Frames on the RX line not yet read back: (path arrival, injection order) -> length.
    rx_pending: BTreeMap<(u64, u64), Vec<u8>>,
    /// Their bytes.
    rx_pending_bytes: usize,
    rx_seq: u64,
    rx_offsets: Vec<i64>,
    /// Last time an RX frame was read back (sender time).
    rx_progress: u64,
    /// The PTP clock beside the sender (`--ptp`), turned on every poll.
    ptp: Option<BesideClock>,
    /// When it wants its next turn, sender time.
    ptp_wake: Option<u64>,
    /// Its frames off the wire (sender time), not yet taken.
    ptp_wire: Vec<WireFrame>,
}

impl std::fmt::Debug for SimCardPort {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SimCardPort")
            .field("card", &self.card)
            .field("sim_off", &self.sim_off)
            .field("phc_off", &self.phc_off)
            .field("card_t", &self.card_t)
            .field("outstanding", &self.launches.len())
            .finish()
    }
}

fn card_err(what: &str, e: impl std::fmt::Display) -> EdtError {
    EdtError::Card(format!("{what}: {e}"))
}

/// Send one 60-byte frame (EtherType 0x88B5, local experimental) at once and return PHC minus
/// simulated time, ns, from its completion and its first beat on the wire. Empties the tap.
fn calibrate(b: &mut dyn Backend, rings: &mut Rings, tap: &WireTap) -> Result<i64, EdtError> {
    let mut frame = vec![0u8; 60];
    frame[0..6].copy_from_slice(&[0xff; 6]);
    frame[6..12].copy_from_slice(&[0x02, 0x74, 0x73, 0x6e, 0x69, 0x01]);
    frame[12..14].copy_from_slice(&[0x88, 0xb5]);
    match rings.queues[0].post(b, &frame, 0, DescFlags::empty()) {
        Ok(Ok(_)) => {}
        Ok(Err(full)) => {
            return Err(EdtError::Card(format!(
                "calibration frame not posted: {full:?} on a fresh queue (a driver bug)"
            )))
        }
        Err(e) => return Err(card_err("calibration frame not posted", e)),
    }
    rings.queues[0].doorbell(b);
    let mut cpls = Vec::new();
    for _ in 0..5_000 {
        b.wait_ns(POLL_STEP_NS)
            .map_err(|e| card_err("the simulated card stopped", e))?;
        rings
            .poll(b, &mut cpls, 16)
            .map_err(|e| card_err("completion ring", e))?;
        if let Some(c) = cpls.first() {
            let wire = tap.take();
            let on_wire = matches!(
                Status::from_code(c.status),
                Some(Status::Sent | Status::SentLate)
            );
            return match (on_wire, wire.first()) {
                (true, Some(w)) => Ok(c.depart_ns as i64 - (w.first_beat_ps / 1000) as i64),
                _ => Err(EdtError::Card(format!(
                    "the calibration frame did not go out (status code {}, {} frame(s) on the wire); \
                     check `tsnic stats`",
                    c.status,
                    wire.len()
                ))),
            };
        }
    }
    Err(EdtError::Card(
        "no completion for the calibration frame within 1 ms of simulated time; check `tsnic stats`"
            .into(),
    ))
}

impl SimCardPort {
    /// Build the simulated card, enable it, create one completion ring and `min(flows, card queues)`
    /// TX queues, and let the calendar settle. Sender time 0 is the end of this.
    pub fn open(flows: usize, line_rate_bps: u64) -> Result<SimCardPort, EdtError> {
        if line_rate_bps != 10_000_000_000 {
            return Err(EdtError::Invalid(format!(
                "the simulated card's default configuration has a 10 Gb/s wire, got --line-rate {line_rate_bps} bit/s; \
                 use --line-rate 10G with --card sim, or --card model for other rates"
            )));
        }
        let cfg = SimConfig {
            line_rate: LineRate::G10,
            ..SimConfig::default()
        };
        let mut b =
            SimBackend::new(cfg).map_err(|e| card_err("cannot start the simulated card", e))?;
        let tap = b.tap();
        let card = Card::from_backend(Box::new(b), "sim".into())
            .map_err(|e| card_err("the simulated card does not identify itself", e))?;
        SimCardPort::open_card(card, tap, flows, line_rate_bps)
    }

    /// The same on the board build (`sim:board`: tsnic_board_core behind the PCIe hard-block model,
    /// 10 Gb/s): frames put on the RX line enter the board core's MAC RX inputs (the XGMII RX
    /// stand-in of `tsnic_sim::board::xgmii_rx`), so the ACKs close the loop as on the core build.
    #[cfg(feature = "board")]
    pub fn open_board(flows: usize) -> Result<SimCardPort, EdtError> {
        let mut b =
            crate::device::sim_board::BoardBackend::new(tsnic_sim::board::BoardConfig::default())
                .map_err(|e| card_err("cannot start the simulated board", e))?;
        let tap = b.tap();
        let card = Card::from_backend(Box::new(b), "sim:board".into())
            .map_err(|e| card_err("the simulated board does not identify itself", e))?;
        SimCardPort::open_card(card, tap, flows, 10_000_000_000)
    }

    /// Set up an opened simulated card (`tap` on its wire), as [`SimCardPort::open`] describes.
    fn open_card(
        mut card: Card,
        tap: WireTap,
        flows: usize,
        line_rate_bps: u64,
    ) -> Result<SimCardPort, EdtError> {
        let describe = {
            let d = card.backend().describe();
            format!("simulated card: {d}")
        };
        let (caps, be) = card.parts();
        let caps = caps.clone();
        let opts = PushOptions::default();
        bring_up(be, &opts).map_err(|e| card_err("cannot enable the simulated card", e))?;
        let cpl_log2 = 12u32.clamp(1, caps.ring_log2_max.max(1));
        let cpl = CplRing::create(be, &caps, cpl_log2)
            .map_err(|e| card_err("cannot create the completion ring", e))?;
        let nq = flows.clamp(1, caps.num_queues.max(1) as usize);
        let ring_log2 = 10u32.clamp(1, caps.ring_log2_max.min(crate::ring::MAX_RING_LOG2));
        let qcfg = QueueConfig {
            ring_log2,
            buffers: 0,
            buf_size: BUF_SIZE,
            batch: 1,
            late: LatePolicy::Send,
            horizon: HorizonPolicy::Drop,
            quota: 0,
        };
        let mut queues = Vec::with_capacity(nq);
        for q in 0..nq {
            queues.push(
                TxQueue::create(be, &caps, q as u16, &qcfg)
                    .map_err(|e| card_err("cannot create a TX queue", e))?,
            );
        }
        be.wait_ns(SETTLE_NS)
            .map_err(|e| card_err("the simulated card stopped", e))?;
        // the receive path: every frame to RX queue 0 (the default queue), 512 buffers of 2 KiB
        let rcaps =
            RxCaps::read(be).map_err(|e| card_err("the simulated card's receive path", e))?;
        let rxq = RxQueue::create(
            be,
            &rcaps,
            0,
            &RxQueueConfig {
                ring_log2: 9,
                buf_size: BUF_SIZE,
            },
        )
        .map_err(|e| card_err("cannot create the RX queue", e))?;
        rx::set_default_queue(be, &rcaps, 0).map_err(|e| card_err("RX default queue", e))?;
        rx::rx_enable(be, true);
        let mut rings = Rings { queues, cpl };
        // PHC = simulated time + c at the trim in force. The card stamps the PHC at a frame's
        // first beat; the wire model records that beat's simulated time: send one calibration
        // frame (not part of the run) and take c from the pair. (A trim left by an earlier command
        // moves c by ppb * the few us this takes: under 1 ns at 100 ppm.)
        let ppb = crate::phc::freq(be);
        let c = calibrate(be, &mut rings, &tap)?;
        let sim_off = be.sim_time_ns().unwrap_or(0);
        let phc_off = sim_off.saturating_add_signed(c);
        Ok(SimCardPort {
            card,
            tap,
            rings,
            sim_off,
            phc_off,
            phc: PhcMap::new(0, phc_off, ppb),
            last_post: vec![None; nq],
            wire_starts: VecDeque::new(),
            wire_vs_launch: Vec::new(),
            stamp_vs_wire: Vec::new(),
            phc_seen: (0, 0),
            ptp_held_since: None,
            master: None,
            card_t: 0,
            in_flight: HashMap::new(),
            launches: BTreeMap::new(),
            waiting: (0..nq).map(|_| VecDeque::new()).collect(),
            seq: 0,
            last_progress: 0,
            stats: SimCardStats::default(),
            errs: Vec::new(),
            errs_sent: Vec::new(),
            wire: Vec::new(),
            error: None,
            line_rate_bps,
            describe,
            rxq,
            rx_pending: BTreeMap::new(),
            rx_pending_bytes: 0,
            rx_seq: 0,
            rx_offsets: Vec::new(),
            rx_progress: 0,
            ptp: None,
            ptp_wake: None,
            ptp_wire: Vec::new(),
        })
    }

    /// Run the PTP clock of `spec` beside the sender (`tsnic send --ptp`): on the card's last TX
    /// queue (or `queue=N`) with its completions set aside on the sender's ring, on RX queue 1 (or
    /// `rx-queue=N`) fed by EtherType rule 0 alone, the sender's ACKs keeping RX queue 0, the
    /// default (so L2 transport only: [`BesideSpec::for_send`] makes the spec). Call after open,
    /// before the run; `each` sees the clock's reports. docs/PTP.md, "Who owns the card".
    pub fn attach_ptp(
        &mut self,
        spec: BesideSpec,
        each: Box<dyn FnMut(&crate::ptp::Report)>,
    ) -> Result<(), EdtError> {
        if spec.default_rx {
            return Err(EdtError::Invalid(
                "--ptp beside send must leave the default RX queue to the sender's ACKs \
                 (BesideSpec::for_send): a driver bug"
                    .into(),
            ));
        }
        let mut clock = BesideClock::new(spec, each);
        let (caps, be) = self.card.parts();
        let caps = caps.clone();
        let q = clock.tx_queue_for(&caps);
        let job: Vec<u16> = self.rings.queues.iter().map(|q| q.queue()).collect();
        if job.contains(&q) {
            return Err(EdtError::Invalid(format!(
                "the sender's {} flow(s) use TX queues 0..={} and --ptp's clock would use queue {q}: \
                 give it another (--ptp ...,queue=N) or run fewer --flows",
                job.len(),
                job.len().saturating_sub(1)
            )));
        }
        let wake = clock
            .turn_ring(be, &caps, &mut self.rings.cpl, &job)
            .map_err(|e| EdtError::Card(clock.fail(e)))?;
        if let Some(w) = clock.phc_writes() {
            self.phc_seen = (w.writes, w.stepped_ns);
        }
        self.ptp_wake = Some(self.phc.to_sender(wake, self.card_t));
        self.ptp = Some(clock);
        self.sync_time();
        Ok(())
    }

    /// Stop the PTP clock beside the sender (its queues disabled, rule 0 cleared) and give its
    /// summary (None without `--ptp`).
    pub fn close_ptp(&mut self) -> Result<Option<BesideSummary>, EdtError> {
        let Some(mut c) = self.ptp.take() else {
            return Ok(None);
        };
        self.ptp_wake = None;
        let (_, be) = self.card.parts();
        let s = c
            .close(be)
            .map_err(|e| card_err("cannot stop the PTP clock beside the sender", e))?;
        Ok(Some(s))
    }

    /// The PTP clock's summary so far (None without `--ptp`).
    pub fn ptp_summary(&self) -> Option<BesideSummary> {
        self.ptp.as_ref().map(|c| c.summary())
    }

    /// The PTP clock's frames that left on the wire so far (sender time), taken.
    pub fn take_ptp_wire(&mut self) -> Vec<WireFrame> {
        std::mem::take(&mut self.ptp_wire)
    }

    /// Put a frame for the PTP clock beside the sender (a peer's PTP message) on the RX line at
    /// sender time `at_ns`: the card steers it by EtherType to the clock's RX queue, so it is not
    /// one the sender's queue waits for ([`SimWire::rx_inject`] is for those).
    pub fn rx_inject_clock(&mut self, at_ns: u64, frame: Vec<u8>) {
        let at_ps = at_ns.saturating_add(self.sim_off).saturating_mul(1000);
        self.tap.rx_inject(at_ps, frame, false);
    }

    /// Card PHC minus sender time at open, ns (until a PTP slave beside the sender adjusts the
    /// PHC: [`SimCardPort::phc_map`] follows it).
    pub fn phc_offset_ns(&self) -> u64 {
        self.phc_off
    }

    /// Sender time to PHC and back, as of now.
    pub fn phc_map(&self) -> &PhcMap {
        &self.phc
    }

    /// Put a grandmaster in software at the far end of the path (a test facility for a slave
    /// beside the sender: the path model carries TCP only): its frames reach the card's RX line
    /// `delay_ns` after it sends them, the clock's reach it `delay_ns` after they start on the
    /// wire. Call after open, before the run.
    pub fn attach_path_master(&mut self, cfg: crate::ptp::path_master::PathMasterConfig) {
        self.master = Some(PathMaster::new(cfg, self.phc_off));
    }

    /// The grandmaster at the far end of the path, if any.
    pub fn path_master(&self) -> Option<&PathMaster> {
        self.master.as_ref()
    }

    fn master_poll(&mut self, now: u64) {
        if let Some(m) = self.master.as_mut() {
            for (at, f) in m.poll(now) {
                let at_ps = at.saturating_add(self.sim_off).saturating_mul(1000);
                self.tap.rx_inject(at_ps, f, false);
            }
        }
    }

    fn turn_ptp(&mut self) {
        let Some(c) = self.ptp.as_mut() else {
            return;
        };
        // A Sync exchange that may step the PHC waits while the sender has frames on the card:
        // their launch times were mapped before the step (a step back would hold them that long,
        // one forward would send them early); stamps are the card's, so a frame read later
        // measures the same. Held at most PTP_STEP_HOLD_NS.
        if c.may_step() && !self.launches.is_empty() {
            let since = *self.ptp_held_since.get_or_insert(self.card_t);
            let held = self.card_t.saturating_sub(since);
            self.stats.ptp_hold_max_ns = self.stats.ptp_hold_max_ns.max(held);
            if held < PTP_STEP_HOLD_NS {
                self.ptp_wake = Some(self.card_t + 10 * POLL_STEP_NS);
                return;
            }
        }
        self.ptp_held_since = None;
        let (caps, be) = self.card.parts();
        let caps = caps.clone();
        let r = c.turn_ring(be, &caps, &mut self.rings.cpl, &[]);
        let w = c.phc_writes();
        match r {
            Ok(wake) => {
                self.sync_time();
                if let Some(w) = w.filter(|w| w.writes != self.phc_seen.0) {
                    let step = w.stepped_ns.saturating_sub(self.phc_seen.1);
                    // from the time of the write (a turn takes simulated time: a trim of 40 ppm
                    // taken from the turn's end instead put the map 3 ns off)
                    let at = w
                        .sim_ns
                        .map_or(self.card_t, |t| t.saturating_sub(self.sim_off));
                    self.phc.adjust(at, step, w.ppb);
                    self.phc_seen = (w.writes, w.stepped_ns);
                    if step != 0 {
                        self.stats.phc_steps += 1;
                        self.stats.phc_step_at_ns = Some(self.card_t);
                        self.stats.in_flight_at_step += self.launches.len() as u64;
                    }
                }
                self.ptp_wake = Some(self.phc.to_sender(wake, self.card_t));
            }
            Err(e) => {
                let m = c.fail(e);
                self.fail(m);
            }
        }
    }

    /// The card's simulated time now, in sender time (it can be a few tens of ns ahead of the
    /// caller's clock: BAR0 accesses take simulated cycles). An unsynchronised bridge puts the
    /// frames it reads from outside on the RX line at this time.
    pub fn card_now_ns(&self) -> u64 {
        self.card_t
    }

    /// Frames (and their bytes) put on the RX line and not yet read back from the RX ring.
    pub fn rx_in_flight(&self) -> (usize, usize) {
        (self.rx_pending.len(), self.rx_pending_bytes)
    }

    /// Card arrival stamp minus the path model's arrival time (ns) of every frame received so far.
    pub fn rx_arrival_offsets(&self) -> &[i64] {
        &self.rx_offsets
    }

    /// The counts so far, with the error distributions.
    pub fn stats(&self) -> SimCardStats {
        let mut s = self.stats.clone();
        s.departure_error_ns = ErrorStats::of(&mut self.errs.clone());
        s.departure_error_sent_ns = ErrorStats::of(&mut self.errs_sent.clone());
        s.rx_arrival_offset_ns = ErrorStats::of(&mut self.rx_offsets.clone());
        s.wire_minus_launch_sent_ns = ErrorStats::of(&mut self.wire_vs_launch.clone());
        s.stamp_minus_wire_ns = ErrorStats::of(&mut self.stamp_vs_wire.clone());
        s.cycles = self.tap.cycles();
        s
    }

    /// Every departure error (depart - launch, card PHC ns) of frames on the wire, in completion order.
    pub fn departure_errors(&self) -> &[i64] {
        &self.errs
    }

    /// The first failure of the card or the rings, if any (the port then stops reporting events).
    pub fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }

    /// Frames posted and not completed.
    pub fn outstanding(&self) -> usize {
        self.launches.len()
    }

    fn fail(&mut self, msg: String) {
        if self.error.is_none() {
            self.error = Some(msg);
        }
    }

    fn sync_time(&mut self) {
        let s = self.card.backend().sim_time_ns().unwrap_or(0);
        self.card_t = s.saturating_sub(self.sim_off);
    }

    /// Run the core until sender time `now` (never backward).
    fn advance_to(&mut self, now: u64) {
        self.sync_time();
        if now > self.card_t {
            if let Err(e) = self.card.backend().wait_ns(now - self.card_t) {
                self.fail(format!("the simulated card stopped: {e}"));
            }
            self.sync_time();
        }
    }

    /// Try to put `w` on its queue's ring; gives it back when the ring or the buffers are full.
    fn try_post(&mut self, q: usize, w: Waiting) -> Option<Waiting> {
        let launch_phc = self.phc.to_phc(w.req.launch_ns);
        let (_, be) = self.card.parts();
        match self.rings.queues[q].post(be, &w.req.frame, launch_phc, DescFlags::empty()) {
            Ok(Ok(buf)) => {
                if let Some((before, b)) = self.last_post[q] {
                    if launch_phc < before && self.in_flight.contains_key(&(q as u16, b)) {
                        self.stats.launch_reorders += 1;
                    }
                }
                self.last_post[q] = Some((launch_phc, buf));
                self.in_flight.insert(
                    (q as u16, buf),
                    Flight {
                        cookie: w.req.cookie,
                        launch_ns: w.req.launch_ns,
                        seq: w.seq,
                        launch_phc,
                    },
                );
                None
            }
            Ok(Err(_full)) => Some(w),
            Err(e) => {
                self.fail(format!(
                    "posting a {}-byte frame failed: {e}",
                    w.req.frame.len()
                ));
                None
            }
        }
    }

    fn retry_waiting(&mut self) {
        for q in 0..self.waiting.len() {
            while let Some(w) = self.waiting[q].pop_front() {
                if let Some(back) = self.try_post(q, w) {
                    self.waiting[q].push_front(back);
                    break;
                }
            }
        }
    }

    fn drain_wire(&mut self) {
        let mac = self.ptp.as_ref().map(|c| c.mac());
        for f in self.tap.take() {
            if mac.is_some_and(|m| is_clock_frame(m, &f.bytes)) {
                // the clock's own frames (PTP): not the sender's, and not for the TCP path model
                self.stats.ptp_wire_frames += 1;
                let start = (f.start_ps / 1000).saturating_sub(self.sim_off);
                if let Some(m) = self.master.as_mut() {
                    for (at, a) in m.on_wire(start, &f.bytes) {
                        let at_ps = at.saturating_add(self.sim_off).saturating_mul(1000);
                        self.tap.rx_inject(at_ps, a, false);
                    }
                }
                self.ptp_wire.push(WireFrame {
                    depart_ns: start,
                    end_ns: f.end_ps.div_ceil(1000).saturating_sub(self.sim_off),
                    frame: f.bytes,
                });
                continue;
            }
            self.stats.wire_frames += 1;
            let start = (f.start_ps / 1000).saturating_sub(self.sim_off);
            let end = f.end_ps.div_ceil(1000).saturating_sub(self.sim_off);
            self.wire_starts.push_back((start, f.bytes.len()));
            self.wire.push(WireFrame {
                depart_ns: start,
                end_ns: end.max(start),
                frame: f.bytes,
            });
        }
    }
}

impl TxPort for SimCardPort {
    fn post(&mut self, now: u64, req: TxRequest) {
        if self.error.is_some() {
            return;
        }
        self.advance_to(now);
        let flow = (req.cookie >> 48).saturating_sub(1) as usize;
        let q = flow % self.waiting.len();
        self.seq += 1;
        let seq = self.seq;
        if self.launches.is_empty() {
            self.last_progress = self.card_t;
        }
        self.launches.insert((req.launch_ns, seq), ());
        self.stats.posted += 1;
        self.stats.max_outstanding = self.stats.max_outstanding.max(self.launches.len() as u64);
        let w = Waiting { req, seq };
        if self.waiting[q].is_empty() {
            if let Some(back) = self.try_post(q, w) {
                self.stats.ring_full_waits += 1;
                self.waiting[q].push_back(back);
            }
        } else {
            self.stats.ring_full_waits += 1;
            self.waiting[q].push_back(w);
        }
        self.sync_time();
    }

    fn next_event_ns(&self) -> Option<u64> {
        if self.error.is_some() {
            return None;
        }
        // Nothing leaves before its launch time and nothing arrives before its arrival time; once
        // one is due, step until its completion is in.
        let due = |first: u64| {
            if first > self.card_t + POLL_STEP_NS {
                first
            } else {
                self.card_t + POLL_STEP_NS
            }
        };
        let tx = self.launches.keys().next().map(|&(first, _)| due(first));
        let rx = self.rx_pending.keys().next().map(|&(first, _)| due(first));
        // the clock beside (--ptp) wants a turn by its wake time; one already past (its poll is
        // held back on host time, which may run a little behind) is retried a poll step on, not
        // in 1 ns steps
        let ptp = self.ptp_wake.map(|w| w.max(self.card_t + POLL_STEP_NS));
        let master = self.master.as_ref().and_then(|m| m.next_event_ns());
        tx.into_iter().chain(rx).chain(ptp).chain(master).min()
    }

    fn poll(&mut self, now: u64) -> Vec<Completion> {
        let mut out = Vec::new();
        if self.error.is_some() {
            return out;
        }
        self.advance_to(now);
        self.master_poll(self.card_t.max(now));
        // The wire first: a frame is on it before its completion comes back (calibration below).
        self.drain_wire();
        let mut cpls = Vec::new();
        loop {
            cpls.clear();
            let n = {
                let (_, be) = self.card.parts();
                match self.rings.poll(be, &mut cpls, 1024) {
                    Ok(n) => n,
                    Err(e) => {
                        self.fail(format!("completion ring: {e}"));
                        break;
                    }
                }
            };
            for c in &cpls {
                let Some(f) = self.in_flight.remove(&(c.queue, c.cookie)) else {
                    self.fail(format!(
                        "completion for queue {} buffer {} matches no frame in flight: a card or driver bug",
                        c.queue, c.cookie
                    ));
                    return out;
                };
                self.launches.remove(&(f.launch_ns, f.seq));
                let status = Status::from_code(c.status);
                let on_wire = matches!(status, Some(Status::Sent | Status::SentLate));
                match status {
                    Some(Status::Sent) => self.stats.sent += 1,
                    Some(Status::SentLate) => self.stats.sent_late += 1,
                    Some(Status::DroppedLate) => self.stats.dropped_late += 1,
                    Some(Status::DroppedHorizon) => self.stats.dropped_horizon += 1,
                    Some(Status::Rejected) => self.stats.rejected += 1,
                    Some(Status::Flushed) => self.stats.flushed += 1,
                    Some(Status::DmaError) => self.stats.dma_error += 1,
                    None => {
                        self.fail(format!("completion with unknown status code {}", c.status));
                        return out;
                    }
                }
                let depart = self.phc.to_sender(c.depart_ns, f.launch_ns);
                if on_wire {
                    match self.wire_starts.pop_front() {
                        Some((start, len)) if len == usize::from(c.len) => {
                            self.stamp_vs_wire.push(depart as i64 - start as i64);
                            if status == Some(Status::Sent) {
                                self.wire_vs_launch.push(start as i64 - f.launch_ns as i64);
                            }
                        }
                        _ => self.stats.wire_unpaired += 1,
                    }
                    let err = c.depart_ns as i64 - f.launch_phc as i64;
                    self.errs.push(err);
                    if status == Some(Status::Sent) {
                        self.errs_sent.push(err);
                    }
                    if c.depart_ns < c.launch_ns {
                        self.stats.early += 1;
                    }
                }
                // A frame the card did not send is lost to the sender like a drop on the path: it
                // sees a departure (at the card's decision time) and recovers it as a loss. The
                // counts above say whether that ever happened.
                out.push(Completion {
                    cookie: f.cookie,
                    launch_ns: f.launch_ns,
                    depart_ns: depart,
                    status: if status == Some(Status::SentLate) {
                        TxStatus::SentLate
                    } else {
                        TxStatus::Sent
                    },
                });
            }
            if n < 1024 {
                break;
            }
        }
        if !out.is_empty() {
            self.last_progress = self.card_t;
        }
        // the clock's completions were set aside by the ring's poll above
        self.turn_ptp();
        self.retry_waiting();
        self.sync_time();
        if let Some((&(first, _), _)) = self.launches.iter().next() {
            let due_since = first.max(self.last_progress);
            if self.card_t > due_since + STALL_NS {
                self.fail(format!(
                    "the simulated card stopped completing frames: {} outstanding, none completed for {} us of simulated time; check `tsnic stats`",
                    self.launches.len(),
                    (self.card_t - due_since) / 1000
                ));
            }
        }
        out
    }

    fn line_rate_bps(&self) -> u64 {
        self.line_rate_bps
    }

    fn describe(&self) -> String {
        self.describe.clone()
    }
}

impl SimWire for SimCardPort {
    fn drain_wire(&mut self) -> Vec<WireFrame> {
        std::mem::take(&mut self.wire)
    }

    fn has_rx(&self) -> bool {
        true
    }

    fn rx_inject(&mut self, at_ns: u64, frame: Vec<u8>) {
        if self.error.is_some() {
            return;
        }
        if self.rx_pending.is_empty() {
            self.rx_progress = self.card_t;
        }
        self.rx_seq += 1;
        self.rx_pending_bytes += frame.len();
        self.rx_pending.insert((at_ns, self.rx_seq), frame.clone());
        self.stats.rx_injected += 1;
        let at_ps = at_ns.saturating_add(self.sim_off).saturating_mul(1000);
        self.tap.rx_inject(at_ps, frame, false);
    }

    fn rx_poll(&mut self, now: u64) -> Vec<(u64, Vec<u8>)> {
        let mut out = Vec::new();
        if self.error.is_some() {
            return out;
        }
        self.advance_to(now);
        let mut pkts = Vec::new();
        {
            let (_, be) = self.card.parts();
            if let Err(e) = self.rxq.poll(be, &mut pkts, 1024) {
                self.fail(format!("RX ring: {e}"));
                return out;
            }
        }
        for p in pkts {
            // The line delivers in arrival order: this is the earliest frame still on it that has
            // these bytes; frames before it were dropped by the card (and counted there).
            let same = |f: &Vec<u8>| {
                let n = f.len().min(p.data.len());
                n >= 14 && f[..n] == p.data[..n]
            };
            if !self.rx_pending.values().any(same) {
                self.fail(format!(
                    "the card received a {}-byte frame nobody sent: a card or sim bug",
                    p.data.len()
                ));
                return out;
            }
            let mut at = 0;
            while let Some(((t, _), f)) = self.rx_pending.pop_first() {
                self.rx_pending_bytes -= f.len();
                if same(&f) {
                    at = t;
                    break;
                }
                self.stats.rx_dropped += 1;
            }
            self.rx_progress = self.card_t;
            if !p.ok() {
                self.stats.rx_errors += 1;
                continue;
            }
            let arrival = self.phc.to_sender(p.arrival_ns, at);
            self.rx_offsets.push(arrival as i64 - at as i64);
            self.stats.rx_received += 1;
            out.push((arrival, p.data));
        }
        if let Some((&(first, _), _)) = self.rx_pending.iter().next() {
            let due_since = first.max(self.rx_progress);
            if self.card_t > due_since + STALL_NS {
                let (c, arrived, full, disabled) = {
                    let (_, be) = self.card.parts();
                    (
                        self.rxq.counters(be),
                        be.read32(crate::contract::reg::RX_CNT_FRAMES),
                        be.read32(crate::contract::reg::RX_CNT_DROP_FULL),
                        be.read32(crate::contract::reg::RX_CNT_DROP_DISABLED),
                    )
                };
                // Frames the card dropped (its counters) and not yet accounted: the oldest ones on
                // the line are those (it delivers in order); they are lost, not a stall.
                let card_drops = u64::from(full) + u64::from(disabled) + u64::from(c.drop_nobuf);
                let unexplained = card_drops.saturating_sub(self.stats.rx_dropped);
                if unexplained > 0 {
                    for _ in 0..unexplained.min(self.rx_pending.len() as u64) {
                        if let Some((_, f)) = self.rx_pending.pop_first() {
                            self.rx_pending_bytes -= f.len();
                            self.stats.rx_dropped += 1;
                        }
                    }
                    self.rx_progress = self.card_t;
                    self.sync_time();
                    return out;
                }
                self.fail(format!(
                    "the simulated card stopped receiving: {} frame(s) on the RX line not delivered for {} us of simulated time (RX port: {arrived} frames arrived, {full} dropped for a full on-card buffer, {disabled} while disabled; RX queue 0 counters: {c:?})",
                    self.rx_pending.len(),
                    (self.card_t - due_since) / 1000
                ));
            }
        }
        self.sync_time();
        out
    }
}
