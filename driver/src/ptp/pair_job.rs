//! The pair of [`super::pair`] with the slave card held by a command (issue 33 item 0): the slave
//! is a Verilated card behind [`SlaveBackend`], an ordinary [`Backend`] that any command (`push`,
//! the `tsnic ptp` loop) drives as it drives a card; the world around it (the master card, the
//! wire both ways, the truth) is advanced from inside the slave's backend calls, so the command's
//! own loop sets the pace and needs no change.
//!
//! Time: as in [`super::pair`], a common true time `T`; the slave's simulated time is `L(T)` with
//! its oscillator error and wander. The master **lags** the slave: before every slave call that
//! may have moved the slave's time past the master by more than [`CATCH_UP`], the master is
//! brought up to the slave's `T` (in fine steps while any frame is in flight), and a slave wait is
//! cut into pieces no longer than the time the master is known to stay quiet (its next timer) plus
//! the wire delay, less a fine step. So a frame the slave sends reaches the master's line in the
//! master's future, and an event message (Sync, Delay_Req) the master sends reaches the slave's
//! line in the slave's future; general messages (Follow_Up, Delay_Resp, Announce) carry no stamp
//! the protocol uses, so one that arrives late is counted apart (`late_general`) and costs nothing.
//! `late_event` must be 0.
//!
//! Only PTP frames cross to the master; the slave's other frames (the job's) are kept with the true
//! time of their start on the line, so a test can hold each departure against the grandmaster's
//! time.

use std::cell::RefCell;
use std::rc::Rc;

use super::beside::is_clock_frame;
use super::card::{CardPort, PtpError};
use super::clock::{Config, Role};
use super::msg::Transport;
use super::pair::{addr, TimeMap, EPOCH_NS, FINE, FS, NS};
use crate::device::sim::{SimBackend, SimConfig, WireTap};
use crate::device::{Backend, DeviceError, DmaRegion, HostClockModel};
use crate::phc;

/// How far the slave's true time may run ahead of the master's before a slave call brings the
/// master up, fs (an MMIO moves the slave by tens of ns).
pub const CATCH_UP: i128 = 200 * NS;

/// The world's configuration.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WorldConfig {
    /// Transport of the master (the slave's clock is configured by the command).
    pub transport: Transport,
    /// The master's logSyncInterval.
    pub log_sync: i8,
    /// The master's logAnnounceInterval (a clock that starts with a command waits for two
    /// Announces before it follows: 9.3.2.4.4).
    pub log_announce: i8,
    /// Slave oscillator error, ppb.
    pub slave_ppb: f64,
    /// Amplitude of its sinusoidal wander, ppb.
    pub wander_ppb: f64,
    /// Period of the wander, s.
    pub wander_period_s: f64,
    /// Slave PHC minus master PHC at the start, ns.
    pub slave_offset_ns: i64,
    /// Wire delay each way, ps (at least 1 us: see the module's rule).
    pub delay_ps: u64,
}

impl Default for WorldConfig {
    fn default() -> Self {
        WorldConfig {
            transport: Transport::L2,
            log_sync: -2,
            log_announce: 1,
            slave_ppb: 100_000.0,
            wander_ppb: 10.0,
            wander_period_s: 300.0,
            slave_offset_ns: 1_000_000_000,
            delay_ps: 1_234_567,
        }
    }
}

/// What the world saw.
#[derive(Debug, Clone, Default)]
pub struct WorldLog {
    /// (true time s, slave PHC minus master PHC ns) every simulated second.
    pub true_offset_ns: Vec<(f64, f64)>,
    /// Event messages (Sync, Delay_Req) that reached a line after their arrival time had passed.
    pub late_event: u64,
    /// General messages that did (harmless: no stamp of theirs is used).
    pub late_general: u64,
    /// PTP frames carried master to slave and back.
    pub frames: [u64; 2],
    /// The slave's other frames: the grandmaster's time of their start on the line (whole ns, and
    /// the ns to add), bytes.
    pub job_wire: Vec<(u64, f64, Vec<u8>)>,
}

struct World {
    cfg: WorldConfig,
    mb: SimBackend,
    mtap: WireTap,
    master: CardPort,
    mmap: TimeMap,
    smap: TimeMap,
    stap: WireTap,
    delay: i128,
    /// Frames put on the master's line and not yet read from its RX ring.
    m_rx_expect: u64,
    m_busy_until: i128,
    next_truth: i128,
    next_rebase: i128,
    /// Master PHC at true time 0: whole ns, fraction.
    m_phc0: (u64, f64),
    log: WorldLog,
    slave_mac: [u8; 6],
}

/// The slave card's backend: a [`SimBackend`] whose every call first lets the world catch up.
pub struct SlaveBackend {
    inner: SimBackend,
    world: Rc<RefCell<World>>,
}

/// The handle a test keeps to read the world after the command has the backend.
#[derive(Clone)]
pub struct WorldHandle(Rc<RefCell<World>>);

impl WorldHandle {
    /// What the world saw so far (the job's wire taken out).
    pub fn take_log(&self) -> WorldLog {
        std::mem::take(&mut self.0.borrow_mut().log)
    }
    /// Core cycles simulated (all, and those the idle fast-forward jumped) on the master and the
    /// slave.
    pub fn cycles(&self) -> [(u64, u64); 2] {
        let w = self.0.borrow();
        [
            (w.mtap.cycles(), w.mtap.fast_forward_stats().cycles),
            (w.stap.cycles(), w.stap.fast_forward_stats().cycles),
        ]
    }
    /// The master's clock counters.
    pub fn master_counters(&self) -> super::clock::Counters {
        self.0.borrow().master.clock().counters()
    }
}

fn is_event(f: &[u8]) -> bool {
    match [f.get(12).copied(), f.get(13).copied()] {
        [Some(0x88), Some(0xf7)] => f.get(14).is_some_and(|b| b & 0x0f < 8),
        // UDP: event messages go to port 319
        [Some(0x08), Some(0x00)] => {
            let udp = 14 + usize::from(f.get(14).copied().unwrap_or(0x45) & 0x0f) * 4;
            f.len() >= udp + 4 && u16::from_be_bytes([f[udp + 2], f[udp + 3]]) == 319
        }
        _ => false,
    }
}

/// The card's PHC carried from its last edge to true time `t` along its increment: whole ns read,
/// and the ns to add (kept apart: an f64 of a TAI ns count is 256 ns coarse).
fn phc_at(b: &mut SimBackend, map: &TimeMap, t: i128) -> (u64, f64) {
    let (ns, inc) = b.card().phc_port();
    let edge = i128::from(b.card().now_ps()) * FS;
    let period_fs = i128::from(b.card().config().clk_period_ps) * FS;
    let cycles = (map.local(t) - edge) as f64 / period_fs as f64;
    (ns, cycles * inc as f64 / (1u64 << 48) as f64)
}

impl World {
    fn wander(&self, t: i128) -> f64 {
        let s = t as f64 / 1e15;
        self.cfg.slave_ppb
            + self.cfg.wander_ppb
                * (2.0 * std::f64::consts::PI * s / self.cfg.wander_period_s.max(1.0)).sin()
    }

    fn t_master(&mut self) -> i128 {
        self.mmap.true_of(i128::from(self.mb.card().now_ps()) * FS)
    }

    /// The slave's frames off its line: PTP to the master's line, the rest kept.
    fn carry_from_slave(&mut self) {
        for f in self.stap.take() {
            let start = self.smap.true_of(i128::from(f.start_ps) * FS);
            if is_clock_frame(self.slave_mac, &f.bytes) {
                let at = self.mmap.local(start + self.delay) / FS;
                if (at.max(0) as u64) < self.mb.card().now_ps() {
                    if is_event(&f.bytes) {
                        self.log.late_event += 1;
                    } else {
                        self.log.late_general += 1;
                    }
                }
                self.mtap.rx_inject(at.max(0) as u64, f.bytes, false);
                self.m_rx_expect += 1;
                let t = self.t_master();
                self.m_busy_until = self.m_busy_until.max(t.max(start + self.delay) + 4000 * NS);
                self.log.frames[1] += 1;
            } else {
                let ns = start.div_euclid(NS);
                let frac = self.m_phc0.1 + start.rem_euclid(NS) as f64 / NS as f64;
                let whole = (i128::from(self.m_phc0.0) + ns).max(0) as u64;
                self.log.job_wire.push((whole, frac, f.bytes));
            }
        }
    }

    /// The master's frames off its line onto the slave's, which is at local time `slave_ps`.
    fn carry_from_master(&mut self, slave_ps: u64) {
        for f in self.mtap.take() {
            let start = self.mmap.true_of(i128::from(f.start_ps) * FS);
            let at = (self.smap.local(start + self.delay) / FS).max(0) as u64;
            if at < slave_ps {
                if is_event(&f.bytes) {
                    self.log.late_event += 1;
                } else {
                    self.log.late_general += 1;
                }
            }
            self.stap.rx_inject(at, f.bytes, false);
            self.log.frames[0] += 1;
        }
    }

    fn master_busy(&mut self, t: i128) -> bool {
        let c = self.master.counters();
        self.master.outstanding() > 0
            || self.m_rx_expect > c.received + c.rx_errors
            || self.m_busy_until > t
    }

    /// True time of the master's next timer (its PHC is untrimmed: PHC ns = true ns + constant).
    fn master_deadline(&mut self, t: i128) -> Option<i128> {
        let d = self.master.next_deadline()?;
        let (now, _) = self.mb.card().phc_port();
        Some(t + i128::from(d.saturating_sub(now)) * NS)
    }

    /// Bring the master up to true time `t` (the slave's, now at local `slave_ps`).
    fn master_to(&mut self, t: i128, slave_ps: u64) -> Result<(), PtpError> {
        loop {
            let tm = self.t_master();
            if tm >= t {
                return Ok(());
            }
            let mut next = t;
            if self.master_busy(tm) {
                next = next.min(tm + FINE);
            }
            if let Some(d) = self.master_deadline(tm) {
                next = next.min(d.max(tm + FINE / 4));
            }
            let next = next.max(tm + NS);
            let target = self.mmap.local(next);
            let now = i128::from(self.mb.card().now_ps()) * FS;
            if target > now {
                self.mb.wait_ns(((target - now) / NS).max(1) as u64)?;
            }
            // its clock has nothing to do before its next timer unless a frame is in flight
            let tm = self.t_master();
            if self.master_busy(tm) || self.master_deadline(tm).is_none_or(|d| d <= tm) {
                self.master.poll(&mut self.mb)?;
                // the master's own reports are not needed: its counters are
                self.master.take_reports();
            }
            self.carry_from_master(slave_ps);
        }
    }

    /// Until when (true time) the slave may run without a master frame being due on its line.
    fn slave_limit(&mut self, t: i128) -> i128 {
        let tm = self.t_master().max(t);
        let quiet = if self.master_busy(tm) {
            tm
        } else {
            self.master_deadline(tm).unwrap_or(tm).max(tm)
        };
        quiet + self.delay - FINE
    }
}

impl SlaveBackend {
    fn slave_t(&mut self) -> (i128, u64) {
        let ps = self.inner.card().now_ps();
        let w = self.world.borrow();
        (w.smap.true_of(i128::from(ps) * FS), ps)
    }

    /// Let the world catch up with the slave (`force`: whatever the gap).
    fn sync(&mut self, force: bool) -> Result<(), DeviceError> {
        let (t, ps) = self.slave_t();
        let mut w = self.world.borrow_mut();
        w.carry_from_slave();
        let tm = w.t_master();
        if !force && t - tm < CATCH_UP {
            return Ok(());
        }
        w.master_to(t, ps)
            .map_err(|e| DeviceError::Sim(format!("the PTP pair's master: {e}")))?;
        w.carry_from_slave();
        if t >= w.next_rebase {
            let y = w.wander(t);
            w.smap.rebase(t, y);
            w.next_rebase += 1_000_000_000 * NS;
        }
        if t >= w.next_truth {
            let World { mb, mmap, smap, .. } = &mut *w;
            let m = phc_at(mb, mmap, t);
            let s = phc_at(&mut self.inner, smap, t);
            let d = (i128::from(s.0) - i128::from(m.0)) as f64 + (s.1 - m.1);
            w.log.true_offset_ns.push((t as f64 / 1e15, d));
            w.next_truth += 1_000_000_000 * NS;
        }
        Ok(())
    }

    /// Advance the slave by up to `ns` in pieces the world allows; `irq`: stop when the card raises
    /// its interrupt. Returns whether it did.
    fn advance(&mut self, ns: u64, irq: bool) -> Result<bool, DeviceError> {
        let end_ps = self
            .inner
            .card()
            .now_ps()
            .saturating_add(ns.saturating_mul(1000));
        loop {
            self.sync(true)?;
            let (t, ps) = self.slave_t();
            if ps >= end_ps {
                return Ok(false);
            }
            let lim = {
                let mut w = self.world.borrow_mut();
                let l = w.slave_limit(t);
                (w.smap.local(l) / FS).max(0) as u64
            };
            let to = end_ps.min(lim.max(ps + 1000));
            let step = (to - ps).div_ceil(1000).max(1);
            if irq {
                if self.inner.wait_irq(step)? {
                    self.sync(true)?;
                    return Ok(true);
                }
            } else {
                self.inner.wait_ns(step)?;
            }
        }
    }
}

impl Backend for SlaveBackend {
    fn describe(&self) -> String {
        format!("{} (the slave of a PTP pair)", self.inner.describe())
    }
    fn read32(&mut self, offset: usize) -> u32 {
        let _ = self.sync(false);
        self.inner.read32(offset)
    }
    fn write32(&mut self, offset: usize, value: u32) {
        let _ = self.sync(false);
        self.inner.write32(offset, value)
    }
    fn dma_alloc(&mut self, len: usize) -> Result<DmaRegion, DeviceError> {
        self.inner.dma_alloc(len)
    }
    fn dma_free(&mut self, region: DmaRegion) -> Result<(), DeviceError> {
        self.inner.dma_free(region)
    }
    fn dma_write(&mut self, region: &DmaRegion, offset: usize, data: &[u8]) {
        self.inner.dma_write(region, offset, data)
    }
    fn dma_read(&mut self, region: &DmaRegion, offset: usize, buf: &mut [u8]) {
        self.inner.dma_read(region, offset, buf)
    }
    fn dma_read_u32(&mut self, region: &DmaRegion, offset: usize) -> u32 {
        self.inner.dma_read_u32(region, offset)
    }
    fn now_ns(&mut self) -> u64 {
        self.inner.now_ns()
    }
    fn wait_ns(&mut self, ns: u64) -> Result<(), DeviceError> {
        self.advance(ns, false).map(|_| ())
    }
    fn wait_irq(&mut self, timeout_ns: u64) -> Result<bool, DeviceError> {
        self.advance(timeout_ns, true)
    }
    fn has_irq(&self) -> bool {
        self.inner.has_irq()
    }
    fn host_clock_model(&mut self) -> Option<&mut HostClockModel> {
        self.inner.host_clock_model()
    }
    fn sim_time_ns(&mut self) -> Option<u64> {
        self.inner.sim_time_ns()
    }
}

/// A master card (grandmaster, its PHC the true time) and a slave card behind the returned
/// backend, joined by the wire. The master's clock is running; the slave's card is fresh (a
/// command brings it up).
pub fn world(cfg: &WorldConfig) -> Result<(SlaveBackend, WorldHandle), PtpError> {
    if cfg.delay_ps < 1_000_000 {
        return Err(PtpError::Invalid(format!(
            "wire delay {} ps: the pair with a command needs at least 1000000 ps (a slave wait \
             runs a fine step less than the delay past the master)",
            cfg.delay_ps
        )));
    }
    let mut mb = SimBackend::new(SimConfig::small())?;
    let mtap = mb.tap();
    phc::set(&mut mb, EPOCH_NS);
    let mut mc = Config::new(Role::Master, cfg.transport, addr(1));
    mc.log_sync = cfg.log_sync;
    mc.log_announce = cfg.log_announce;
    mc.priority1 = 127;
    let master = CardPort::open(&mut mb, mc)?;
    mtap.take();
    let mut sb = SimBackend::new(SimConfig::small())?;
    let stap = sb.tap();
    phc::set(&mut sb, EPOCH_NS.saturating_add_signed(cfg.slave_offset_ns));
    stap.take();
    let ml = i128::from(mb.card().now_ps()) * FS;
    let sl = i128::from(sb.card().now_ps()) * FS;
    let mmap = TimeMap {
        t0: 0,
        l0: ml,
        ppb: 0.0,
    };
    let mut w = World {
        cfg: *cfg,
        m_phc0: (0, 0.0),
        mb,
        mtap,
        master,
        mmap,
        smap: TimeMap {
            t0: 0,
            l0: sl,
            ppb: 0.0,
        },
        stap,
        delay: i128::from(cfg.delay_ps) * FS,
        m_rx_expect: 0,
        m_busy_until: 0,
        next_truth: 1_000_000_000 * NS,
        next_rebase: 1_000_000_000 * NS,
        log: WorldLog::default(),
        slave_mac: [0; 6],
    };
    w.smap.ppb = w.wander(0);
    w.m_phc0 = phc_at(&mut w.mb, &mmap, 0);
    let world = Rc::new(RefCell::new(w));
    Ok((
        SlaveBackend {
            inner: sb,
            world: world.clone(),
        },
        WorldHandle(world),
    ))
}

impl WorldHandle {
    /// The MAC the slave's clock sends from (its PTP frames cross to the master; others are the
    /// job's).
    pub fn set_slave_mac(&self, mac: [u8; 6]) {
        self.0.borrow_mut().slave_mac = mac;
    }
}
