//! Two simulated cards in one process joined by a wire model (issue 33 item 3): card 0 is the
//! grandmaster, its PHC the true time; card 1 the slave, whose **core clock period itself** is
//! scaled by its oscillator error (with slow sinusoidal wander), so its PHC drifts as a card's would
//! and its stamps fall on its own clock edges. Each card is a whole Verilated `tsnic_core` with its
//! own host memory, wire and RX line (each model has its own `VerilatedContext`, so two live in one
//! process); each runs [`CardPort`] on its own backend.
//!
//! Time: a common true time `T` (fs). Card 0's simulated time is `T`; card 1's simulated time (its
//! cycle count times the nominal 4 ns) is `L(T) = L0 + (T - T0)(1 + y)`, `y` its oscillator error,
//! rebased every simulated second as `y` wanders. A frame that starts on card A's line at A's
//! simulated time `s` starts arriving on B's RX line at B's simulated time `L_B(T_A(s) + delay)`;
//! delays are set per direction (asymmetry). The loop advances both cards to the next event's true
//! time: a clock timer, a frame due on a line, a completion awaited (fine steps while any frame is
//! in flight so that no frame is injected after its arrival time has passed on the other card:
//! counted as `late_injections`, which must be 0).
//!
//! The truth: every simulated second both PHCs are read from the cores' ports (no MMIO), taken to
//! the same true instant along their increments, and subtracted: |slave - master| is the error.
//! Whole ns are read, so each reading is up to 1 ns low.

use super::card::{CardPort, PtpError};
use super::clock::{Config, PortState, Report, Role};
use super::msg::{Addr, Transport};
use crate::device::sim::{SimBackend, SimConfig, WireTap};
use crate::device::Backend;
use crate::phc;

/// Pair configuration.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PairConfig {
    /// Transport.
    pub transport: Transport,
    /// Simulated seconds to run.
    pub seconds: u64,
    /// Slave oscillator error, ppb (positive: its clock runs fast).
    pub slave_ppb: f64,
    /// Amplitude of the slave's sinusoidal frequency wander, ppb.
    pub wander_ppb: f64,
    /// Period of the wander, s.
    pub wander_period_s: f64,
    /// Slave PHC minus master PHC at the start, ns.
    pub slave_offset_ns: i64,
    /// Wire delay master to slave, ps.
    pub delay_ms_ps: u64,
    /// Wire delay slave to master, ps.
    pub delay_sm_ps: u64,
    /// logSyncInterval of the master.
    pub log_sync: i8,
    /// The slave's role (Slave: ptp4l -s; Auto: BMCA decides).
    pub slave_role: Role,
    /// |offset| under which the slave counts as locked (the lock time is the first second from
    /// which every later second stays under it), ns.
    pub lock_ns: f64,
    /// Seconds after the lock left out of the statistics (the servo's transient after its step).
    pub settle_s: u64,
    /// The simulated cores' size (the small core resets faster; PTP uses neither's tables).
    pub small: bool,
    /// Keep every frame on the wires ([`PairResult::wire`]).
    pub record: bool,
    /// The master sends one-step Syncs by schedule (issue 33 item 2).
    pub one_step: bool,
}

impl Default for PairConfig {
    fn default() -> Self {
        PairConfig {
            transport: Transport::L2,
            seconds: 60,
            slave_ppb: 100_000.0,
            wander_ppb: 10.0,
            wander_period_s: 300.0,
            slave_offset_ns: 1_000_000_000,
            delay_ms_ps: 1_234_567,
            delay_sm_ps: 1_234_567,
            log_sync: 0,
            slave_role: Role::Slave,
            lock_ns: 100.0,
            settle_s: 10,
            small: true,
            record: false,
            one_step: false,
        }
    }
}

/// What a pair run saw.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct PairResult {
    /// Slave minus master PHC at each simulated second, ns (the truth).
    pub true_offset_ns: Vec<f64>,
    /// First second from which |true offset| stays under the lock threshold.
    pub lock_s: Option<u64>,
    /// |true offset| after lock: median, 99th percentile, max, ns.
    pub p50_ns: f64,
    /// 99th percentile.
    pub p99_ns: f64,
    /// Max.
    pub max_ns: f64,
    /// Mean true offset over the same seconds (the asymmetry's share shows here), ns.
    pub mean_ns: f64,
    /// Frames that reached the other card's line after their arrival time had passed there.
    pub late_injections: u64,
    /// Frames carried master to slave and back.
    pub frames: [u64; 2],
    /// Slave's state at the end.
    pub slave_state: Option<PortState>,
    /// Slave's clock steps.
    pub slave_steps: u64,
    /// Slave's servo samples (offset it saw, ns), in order.
    pub servo_offsets_ns: Vec<i64>,
    /// Core cycles simulated on each card.
    pub cycles: [u64; 2],
    /// One-step Syncs the master sent and checked against their departure stamps.
    pub one_step_syncs: u64,
    /// Those whose departure stamp differed from their originTimestamp.
    pub one_step_misses: u64,
    /// With [`PairConfig::record`]: every frame on either wire, (master PHC ns of its start, bytes).
    #[serde(skip)]
    pub wire: Vec<(u64, Vec<u8>)>,
}

/// Local simulated time of one card as a function of true time, fs.
#[derive(Debug, Clone, Copy)]
pub(super) struct TimeMap {
    pub(super) t0: i128,
    pub(super) l0: i128,
    pub(super) ppb: f64,
}

impl TimeMap {
    pub(super) fn local(&self, t: i128) -> i128 {
        let d = t - self.t0;
        self.l0 + d + (d as f64 * self.ppb * 1e-9).round() as i128
    }
    pub(super) fn true_of(&self, l: i128) -> i128 {
        let d = l - self.l0;
        self.t0 + (d as f64 / (1.0 + self.ppb * 1e-9)).round() as i128
    }
    pub(super) fn rebase(&mut self, t: i128, ppb: f64) {
        self.l0 = self.local(t);
        self.t0 = t;
        self.ppb = ppb;
    }
}

struct Side {
    b: SimBackend,
    tap: WireTap,
    port: CardPort,
    map: TimeMap,
    /// Frames put on this card's line and not yet read from its RX ring.
    rx_expect: u64,
    /// True time until which to keep stepping finely (a frame was in flight), fs.
    busy_until: i128,
    /// True time shortly before the launch of a frame scheduled for later, fs.
    launch_at: Option<i128>,
}

pub(super) const FS: i128 = 1_000;
pub(super) const NS: i128 = 1_000_000;
/// Fine step while a frame is in flight, fs.
pub(super) const FINE: i128 = 400 * NS;
/// Master's PHC at the start: TAI 2023-11-14 (any time works).
pub(super) const EPOCH_NS: u64 = 1_700_000_000_000_000_000;

pub(super) fn addr(i: u8) -> Addr {
    Addr {
        mac: [0x02, 0x74, 0x73, 0x6e, 0x69, i],
        ip: [192, 168, 33, i],
    }
}

impl Side {
    fn open(cfg: &PairConfig, role: Role, i: u8, phc_start: u64) -> Result<Side, PtpError> {
        let sc = if cfg.small {
            SimConfig::small()
        } else {
            SimConfig::default()
        };
        let mut b = SimBackend::new(sc)?;
        let tap = b.tap();
        phc::set(&mut b, phc_start);
        let mut c = Config::new(role, cfg.transport, addr(i));
        c.log_sync = cfg.log_sync;
        if role == Role::Master {
            c.priority1 = 127;
            c.one_step = cfg.one_step;
        }
        let port = CardPort::open(&mut b, c)?;
        // frames of the set-up (the one-step calibration frame) are not carried
        tap.take();
        Ok(Side {
            b,
            tap,
            port,
            map: TimeMap {
                t0: 0,
                l0: 0,
                ppb: 0.0,
            },
            rx_expect: 0,
            busy_until: 0,
            launch_at: None,
        })
    }

    fn local_fs(&mut self) -> i128 {
        i128::from(self.b.card().now_ps()) * FS
    }

    /// Advance to true time `t` (no-op if already there).
    fn advance(&mut self, t: i128) -> Result<(), PtpError> {
        let target = self.map.local(t);
        let now = self.local_fs();
        if target > now {
            let ns = ((target - now) / NS).max(1) as u64;
            self.b.wait_ns(ns)?;
        }
        Ok(())
    }

    /// The PHC continued to true time `t` along its increment: whole ns, and the ns to add.
    fn phc_at(&mut self, t: i128) -> (u64, f64) {
        let (ns, inc) = self.b.card().phc_port();
        let edge = self.local_fs();
        let period_fs = i128::from(self.b.card().config().clk_period_ps) * FS;
        let cycles = (self.map.local(t) - edge) as f64 / period_fs as f64;
        (ns, cycles * inc as f64 / (1u64 << 48) as f64)
    }
}

pub(super) fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

/// Run the pair; `each` gets (card index, report) for every report (print them, or stop by
/// returning false).
pub fn run(
    cfg: &PairConfig,
    mut each: impl FnMut(usize, &Report) -> bool,
) -> Result<PairResult, PtpError> {
    if cfg.delay_ms_ps < 600_000 || cfg.delay_sm_ps < 600_000 {
        return Err(PtpError::Invalid(format!(
            "wire delays {} ps and {} ps: the pair model needs at least 600000 ps each way (it \
             takes a frame off one card's line at most a fine step after it ends)",
            cfg.delay_ms_ps, cfg.delay_sm_ps
        )));
    }
    let slave_start = EPOCH_NS.saturating_add_signed(cfg.slave_offset_ns);
    let mut sides = [
        Side::open(cfg, Role::Master, 1, EPOCH_NS)?,
        Side::open(cfg, cfg.slave_role, 2, slave_start)?,
    ];
    // true time 0 = both cards now (their simulated times differ by their set-up)
    for s in sides.iter_mut() {
        let l = s.local_fs();
        s.map = TimeMap {
            t0: 0,
            l0: l,
            ppb: 0.0,
        };
    }
    let wander = |t: i128| -> f64 {
        let s = t as f64 / 1e15;
        cfg.slave_ppb
            + cfg.wander_ppb * (2.0 * std::f64::consts::PI * s / cfg.wander_period_s.max(1.0)).sin()
    };
    sides[1].map.ppb = wander(0);
    // master PHC minus EPOCH at true time 0 (its set-up took simulated time), ns
    let t0_phc_skew = {
        let (ns, _) = sides[0].phc_at(0);
        ns as i128 - EPOCH_NS as i128
    };
    // the slave started at its PHC; the master's set-up took simulated time too: the truth at
    // T=0 is whatever the two PHCs say, and the master's PHC is the true time from here on
    let mut res = PairResult::default();
    let delays = [
        i128::from(cfg.delay_ms_ps) * FS,
        i128::from(cfg.delay_sm_ps) * FS,
    ];
    let sec = 1_000_000_000 * NS;
    let end = i128::from(cfg.seconds) * sec;
    let mut t: i128 = 0;
    let mut next_truth = sec;
    let mut next_rebase = sec;
    let mut stop = false;
    while t < end && !stop {
        // frames on the wires
        for i in 0..2 {
            let frames = sides[i].tap.take();
            for f in frames {
                let start_true = sides[i].map.true_of(i128::from(f.start_ps) * FS);
                let arr = start_true + delays[i];
                let j = 1 - i;
                let at_fs = sides[j].map.local(arr);
                let at_ps = (at_fs / FS).max(0) as u64;
                if at_ps < sides[j].b.card().now_ps() {
                    res.late_injections += 1;
                }
                if cfg.record {
                    // the master's PHC is the true time: its value at the frame's start
                    let ns = EPOCH_NS as i128 + start_true / NS + t0_phc_skew;
                    res.wire.push((ns.max(0) as u64, f.bytes.clone()));
                }
                sides[j].b.card().rx_inject(f.bytes, at_ps, false);
                sides[j].rx_expect += 1;
                sides[j].busy_until = sides[j].busy_until.max(arr + 4000 * NS);
                res.frames[i] += 1;
            }
        }
        // both clocks
        for (i, s) in sides.iter_mut().enumerate() {
            s.port.poll(&mut s.b)?;
            for r in s.port.take_reports() {
                if i == 1 {
                    if let Report::Sample(x) = &r {
                        res.servo_offsets_ns.push(x.offset_ns);
                    }
                }
                if !each(i, &r) {
                    stop = true;
                }
            }
            if s.port.outstanding() > 0 {
                // a frame scheduled for later: fine steps only from shortly before its launch
                let now = phc::get_ns(&mut s.b);
                match s.port.next_launch() {
                    Some(l) if l > now + 5_000 => {
                        s.launch_at = Some(t + i128::from(l - now - 5_000) * NS);
                    }
                    _ => {
                        s.launch_at = None;
                        s.busy_until = s.busy_until.max(t + 3000 * NS);
                    }
                }
            } else {
                s.launch_at = None;
            }
        }
        // the next event
        let mut next = end.min(next_truth).min(next_rebase);
        for s in sides.iter_mut() {
            let rx_due = s.rx_expect > s.port.counters().received + s.port.counters().rx_errors;
            if s.busy_until > t || rx_due {
                next = next.min(t + FINE);
            }
            if let Some(l) = s.launch_at {
                next = next.min(l);
            }
            if let Some(d) = s.port.next_deadline() {
                let now = phc::get_ns(&mut s.b);
                let wait = i128::from(d.saturating_sub(now)) * NS;
                next = next.min(t + wait.max(FINE / 4));
            }
        }
        let next = next.max(t + NS);
        for s in sides.iter_mut() {
            s.advance(next)?;
        }
        t = next;
        if t >= next_truth {
            let (m, mf) = sides[0].phc_at(t);
            let (sl, sf) = sides[1].phc_at(t);
            res.true_offset_ns
                .push((i128::from(sl) - i128::from(m)) as f64 + (sf - mf));
            next_truth += sec;
        }
        if t >= next_rebase {
            let y = wander(t);
            sides[1].map.rebase(t, y);
            next_rebase += sec;
        }
    }
    // summary: lock = first second from which every later one is under the threshold
    let offs = &res.true_offset_ns;
    let lock = (0..offs.len())
        .rev()
        .take_while(|&k| offs[k].abs() < cfg.lock_ns)
        .last();
    res.lock_s = lock.map(|k| k as u64 + 1);
    if let Some(k) = lock
        .map(|k| k + cfg.settle_s as usize)
        .filter(|&k| k < offs.len())
    {
        let mut after: Vec<f64> = offs[k..].iter().map(|o| o.abs()).collect();
        res.mean_ns = offs[k..].iter().sum::<f64>() / after.len() as f64;
        after.sort_by(f64::total_cmp);
        res.p50_ns = percentile(&after, 0.5);
        res.p99_ns = percentile(&after, 0.99);
        res.max_ns = after.last().copied().unwrap_or(0.0);
    }
    res.slave_state = Some(sides[1].port.clock().state());
    res.slave_steps = sides[1].port.clock().counters().steps;
    res.cycles = [sides[0].tap.cycles(), sides[1].tap.cycles()];
    let mc = sides[0].port.clock().counters();
    res.one_step_syncs = mc.one_step_syncs;
    res.one_step_misses = mc.one_step_misses;
    Ok(res)
}
