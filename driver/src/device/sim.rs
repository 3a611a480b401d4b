//! `sim`: the Verilated `tsnic_core` in-process (crate `tsnic-sim`), the default backend.
//!
//! - MMIO is an AXI-Lite transaction on the simulated core: simulated time advances by the cycles the
//!   access takes. A read the core never answers returns `0xffff_ffff` (what a PCIe read of a dead
//!   device returns) and is remembered in [`SimBackend::last_error`].
//! - DMA regions live in the simulator's host-memory model; the core reaches them through its AXI4
//!   master with the configured read latency. `dma_write`/`dma_read` copy directly (the host CPU's
//!   view), so every DMA write is visible before the next register write: the release rule holds.
//! - Time: simulated time is the truth. [`Backend::now_ns`] is the host clock model (TAI, with an
//!   injectable frequency error and steps), [`Backend::wait_ns`] runs the core for that long.
//! - The wire: every frame the core sends is recorded by the wire model; a [`WireTap`] taken with
//!   [`SimBackend::tap`] collects them (bytes, first-beat cycle and time) for `--pcap` and the tests.
//!
//! - Persistence: [`SimBackend::open`] with a state file restores the card the previous command left
//!   (the core whole, cycle count, wire, the host-clock model) and [`Backend::close`] saves it back;
//!   see `device/sim_state.rs` and docs/ARCHITECTURE.md. [`SimBackend::new`] is a fresh card.
//!
//! No `unsafe` here: the FFI is inside `tsnic-sim`.

use std::cell::RefCell;
use std::rc::Rc;

use tsnic_sim::{Config, FastForwardStats, MemStats, SimCard, SimError, WireFrame, WireStats};

use super::sim_state::{self, StateChoice, StateLock};
use super::{Backend, DeviceError, DmaRegion, HostClockModel};
use crate::contract::reg;

pub use tsnic_sim::{Config as SimConfig, CoreSize, LineRate, Width};

/// Host clock reading at simulated time 0 (TAI ns, late 2023): the host-clock model starts here.
pub const SIM_HOST_EPOCH_NS: u64 = 1_700_000_000_000_000_000;

/// What the tap has seen so far.
#[derive(Debug, Clone, Default)]
struct TapState {
    frames: Vec<WireFrame>,
    cycles: u64,
    wire: WireStats,
    mem: MemStats,
    ff: FastForwardStats,
    /// Frames to put on the card's RX line: (simulated ps, bytes, bad FCS), moved into the card at
    /// the backend's next call.
    rx_in: Vec<(u64, Vec<u8>, bool)>,
    /// Frames the RX line handed to the core (simulated ps of the first beat, length).
    rx_arrivals: Vec<tsnic_sim::RxArrival>,
}

/// The simulated card's wire and counters, shared between the backend and whoever reads them (the
/// backend itself disappears into a [`super::Card`]).
#[derive(Debug, Clone, Default)]
pub struct WireTap(Rc<RefCell<TapState>>);

impl WireTap {
    /// Take the frames collected so far (wire order).
    pub fn take(&self) -> Vec<WireFrame> {
        std::mem::take(&mut self.0.borrow_mut().frames)
    }
    /// Frames collected and not taken yet.
    pub fn len(&self) -> usize {
        self.0.borrow().frames.len()
    }
    /// True when no frame is waiting.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Core cycles simulated so far (reset included), as of the backend's last call.
    pub fn cycles(&self) -> u64 {
        self.0.borrow().cycles
    }
    /// What the idle fast-forward skipped, as of the backend's last call.
    pub fn fast_forward_stats(&self) -> FastForwardStats {
        self.0.borrow().ff
    }
    /// The wire model's counters (frames, bytes, underruns, tkeep errors).
    pub fn wire_stats(&self) -> WireStats {
        self.0.borrow().wire
    }
    /// The host-memory model's counters (bursts, beats, bad accesses).
    pub fn mem_stats(&self) -> MemStats {
        self.0.borrow().mem
    }
    /// Put a frame on the card's RX line: its preamble starts arriving at simulated time `at_ps`
    /// (the line pushes it later behind a frame still arriving; a time already past means now).
    /// `bad`: the MAC flags it (FCS error). It reaches the card at the backend's next call.
    pub fn rx_inject(&self, at_ps: u64, bytes: Vec<u8>, bad: bool) {
        self.0.borrow_mut().rx_in.push((at_ps, bytes, bad));
    }
    /// Take the records of the frames the RX line handed to the core so far.
    pub fn take_rx_arrivals(&self) -> Vec<tsnic_sim::RxArrival> {
        std::mem::take(&mut self.0.borrow_mut().rx_arrivals)
    }
    /// Add frames a backend took off its wire, with its cycle count and wire counters.
    pub(crate) fn push_frames(&self, frames: Vec<WireFrame>, cycles: u64, wire: WireStats) {
        let mut st = self.0.borrow_mut();
        st.frames.extend(frames);
        st.cycles = cycles;
        st.wire = wire;
    }
    /// Take the frames injected and not yet moved onto a card's RX line (a backend's next call).
    pub(crate) fn take_rx_in(&self) -> Vec<(u64, Vec<u8>, bool)> {
        std::mem::take(&mut self.0.borrow_mut().rx_in)
    }
    /// Add the records of frames a backend's RX line handed to its card.
    pub(crate) fn push_rx_arrivals(&self, arrivals: Vec<tsnic_sim::RxArrival>) {
        self.0.borrow_mut().rx_arrivals.extend(arrivals);
    }
    /// Frames injected through the tap and not yet moved onto the card's RX line (they move at the
    /// backend's next call; `SimCard::rx` then counts them).
    pub fn rx_queued(&self) -> usize {
        self.0.borrow().rx_in.len()
    }
}

/// The sim backend.
pub struct SimBackend {
    card: SimCard,
    clock: HostClockModel,
    tap: Option<WireTap>,
    last_error: Option<String>,
    mmio_ops: u64,
    persist: Option<Persist>,
}

/// The state file of a persistent card, held locked while the backend lives.
pub(crate) struct Persist {
    pub(crate) path: std::path::PathBuf,
    pub(crate) _lock: StateLock,
    /// The state's folder is not writable: the card was read from it and cannot be saved there.
    pub(crate) read_only: bool,
}

impl std::fmt::Debug for SimBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SimBackend")
            .field("card", &self.card)
            .finish()
    }
}

/// The configuration as the environment adjusts it: TSNIC_SIM_FAST_FORWARD=0 steps every cycle (the
/// idle fast-forward is exact; this is for checking that it is).
fn with_env(mut cfg: Config) -> Config {
    if std::env::var_os("TSNIC_SIM_FAST_FORWARD").is_some_and(|v| v == "0") {
        cfg.fast_forward = false;
    }
    cfg
}

fn sim_err(e: SimError) -> DeviceError {
    match e {
        SimError::CoreUnavailable(why) => DeviceError::SimUnavailable(format!(
            "{why}; the simulator is built from hdl/rtl/tsnic_core.v by sim/card/build.rs (Verilator: `make deps`)"
        )),
        other => DeviceError::Sim(other.to_string()),
    }
}

impl SimBackend {
    /// Build the simulated card (core out of reset, nothing configured).
    pub fn new(cfg: Config) -> Result<SimBackend, DeviceError> {
        let card = SimCard::new(with_env(cfg)).map_err(sim_err)?;
        let mut b = SimBackend::new_around(card, HostClockModel::new(0, SIM_HOST_EPOCH_NS));
        b.await_reset_done()?;
        Ok(b)
    }

    /// The card `state` names: restored from its state file if there is one (a fresh card if not), and
    /// saved back by [`Backend::close`] (or, failing that, when dropped without a panic). The file stays
    /// locked until then; `StateChoice::None` is [`SimBackend::new`].
    pub fn open(cfg: Config, state: &StateChoice) -> Result<SimBackend, DeviceError> {
        let name = sim_state::card_name(cfg.width.bytes() * 8, cfg.size == CoreSize::Small);
        let Some(path) = state.resolve(&name)? else {
            return SimBackend::new(cfg);
        };
        let lock = StateLock::acquire(&path)?;
        let mut b = match sim_state::read(&path)? {
            None => SimBackend::new(cfg)?,
            Some(bytes) => {
                if let Some((saved, spec)) = tsnic_sim::state::inspect(&bytes)
                    .ok()
                    .and_then(|info| saved_card(&info))
                {
                    let want = card_kind(cfg.width, cfg.size);
                    if saved != want {
                        return Err(DeviceError::SimStateOtherCard {
                            path: path.display().to_string(),
                            saved: saved.into(),
                            want: want.into(),
                            spec: spec.into(),
                        });
                    }
                }
                let refused = |e: tsnic_sim::StateError| match e {
                    tsnic_sim::StateError::Sim(e) => sim_err(e),
                    e => DeviceError::SimState {
                        path: path.display().to_string(),
                        why: e.to_string(),
                    },
                };
                let (card, info, extra) =
                    SimCard::restore(with_env(cfg), &bytes).map_err(refused)?;
                let clock = decode_clock(&extra).ok_or_else(|| DeviceError::SimState {
                    path: path.display().to_string(),
                    why: "the driver's part of the state is damaged".into(),
                })?;
                let mut b = SimBackend::new_around(card, clock);
                b.between_commands(unix_ns().saturating_sub(info.saved_unix_ns));
                b
            }
        };
        let read_only = lock.read_only();
        b.persist = Some(Persist {
            path,
            _lock: lock,
            read_only,
        });
        Ok(b)
    }

    fn new_around(mut card: SimCard, clock: HostClockModel) -> SimBackend {
        // Diagnosis: TSNIC_SIM_MEMLOG=1 prints every host-memory burst when the backend is dropped.
        if std::env::var_os("TSNIC_SIM_MEMLOG").is_some() {
            card.mem_mut().set_logging(true);
        }
        SimBackend {
            card,
            clock,
            tap: None,
            last_error: None,
            mmio_ops: 0,
            persist: None,
        }
    }

    /// Run the fresh core until CTRL_STATUS.RESET_BUSY falls: its RAMs are cleared after reset (one
    /// entry per cycle, 65,536 cycles = 262 us at the board size). A real card finishes this long
    /// before a driver opens it; the simulated one is handed out in the same state, so a schedule
    /// whose time 0 is taken at open is not already in the past when the core starts.
    fn await_reset_done(&mut self) -> Result<(), DeviceError> {
        /// Longest RAM clear accepted: 2^22 cycles (16.8 ms), far above any configuration.
        const LIMIT_CYCLES: u64 = 1 << 22;
        let start = self.card.cycle();
        loop {
            let st = self
                .card
                .mmio_read(reg::CTRL_STATUS as u32)
                .map_err(sim_err)?;
            if st & reg::CTRL_STATUS_RESET_BUSY == 0 {
                return Ok(());
            }
            let waited = self.card.cycle() - start;
            if waited > LIMIT_CYCLES {
                return Err(DeviceError::Timeout {
                    what: format!(
                        "the simulated core to clear its RAMs after reset (CTRL_STATUS = {st:#x})"
                    ),
                    ns: waited * self.card.config().clk_period_ps / 1000,
                });
            }
            self.card.run(64);
        }
    }

    /// Hook for the time between two commands (`wall_ns` of wall-clock time since the save). Today
    /// simulated time is frozen there: the card resumes at the cycle it was saved at, so a command sees
    /// only the simulated time of the commands before it. An exact idle fast-forward could advance an
    /// idle card by `wall_ns` here cheaply (PHC, cycle count and every model's clock in one step).
    fn between_commands(&mut self, wall_ns: u64) {
        let _ = wall_ns;
    }

    /// The state file this card is saved to, if it persists.
    pub fn state_path(&self) -> Option<&std::path::Path> {
        self.persist.as_ref().map(|p| p.path.as_path())
    }

    /// Save the card to its state file now (no-op for a card that does not persist).
    pub fn save(&mut self) -> Result<(), DeviceError> {
        let Some(p) = &self.persist else {
            return Ok(());
        };
        if p.read_only {
            return Err(DeviceError::SimState {
                path: p.path.display().to_string(),
                why: "its folder is not writable by this user (or is on a read-only file system), so what this command did to the card cannot be saved; use a state file in a writable folder (TSNIC_SIM_STATE or `--backend sim:state=PATH`) for commands that change the card".into(),
            });
        }
        let bytes = self
            .card
            .snapshot(&encode_clock(&self.clock), unix_ns())
            .map_err(|e| DeviceError::SimState {
                path: p.path.display().to_string(),
                why: e.to_string(),
            })?;
        sim_state::write_atomic(&p.path, &bytes)
    }

    /// Start collecting the wire's frames into the returned tap (from now on).
    pub fn tap(&mut self) -> WireTap {
        self.card.wire_mut().take_frames();
        let t = WireTap::default();
        self.tap = Some(t.clone());
        t
    }

    /// Move frames injected through the tap onto the card's RX line.
    fn feed_rx(&mut self) {
        if let Some(t) = &self.tap {
            let frames = std::mem::take(&mut t.0.borrow_mut().rx_in);
            for (at_ps, bytes, bad) in frames {
                self.card.rx_inject(bytes, at_ps, bad);
            }
        }
    }

    /// Move the wire's new frames and the counters into the tap (or drop the frames if nobody taps).
    fn drain_wire(&mut self) {
        let frames = self.card.wire_mut().take_frames();
        let arrivals = self.card.rx_mut().take_arrivals();
        if let Some(t) = &self.tap {
            let mut st = t.0.borrow_mut();
            st.frames.extend(frames);
            st.rx_arrivals.extend(arrivals);
            st.cycles = self.card.cycle();
            st.wire = self.card.wire().stats();
            st.mem = self.card.mem().stats();
            st.ff = self.card.fast_forward_stats();
        }
    }

    /// The simulated card (models, counters, cycle count).
    pub fn card(&mut self) -> &mut SimCard {
        &mut self.card
    }

    /// Simulated time in ns since the simulation started.
    pub fn sim_ns(&self) -> u64 {
        self.card.now_ps() / 1000
    }

    /// The last MMIO failure, if any (reads then returned all ones).
    pub fn last_error(&self) -> Option<&str> {
        self.last_error.as_deref()
    }

    /// BAR0 accesses so far.
    pub fn mmio_ops(&self) -> u64 {
        self.mmio_ops
    }
}

/// What a configuration of the simulated card is, in words.
fn card_kind(width: Width, size: CoreSize) -> &'static str {
    match (width, size) {
        (Width::W64, CoreSize::Small) => "the small 64-bit card (8 queues, 1024 entries)",
        (Width::W64, CoreSize::Shipped) => {
            "the board-size 64-bit card (4096 queues, 65536 entries)"
        }
        (Width::W512, _) => "the 512-bit card",
        (Width::W256, _) => "the small 256-bit card (the board core's core)",
    }
}

/// The card a state holds (in words, and the `--backend` that opens it), when this build knows it:
/// its fingerprint is one of this build's configurations.
pub(crate) fn saved_card(info: &tsnic_sim::StateInfo) -> Option<(&'static str, &'static str)> {
    if let Some(b) = info.board {
        // a board card: named whether or not this build has that board
        return Some((b.card_words(), b.spec()));
    }
    [CoreSize::Small, CoreSize::Shipped]
        .into_iter()
        .find(|&size| tsnic_sim::fingerprint(info.width, size) == Some(info.fingerprint.as_str()))
        .and_then(|size| {
            let spec = match (info.width, size) {
                (Width::W64, CoreSize::Small) => "sim:small",
                (Width::W64, CoreSize::Shipped) => "sim",
                (Width::W512, _) => "sim:wide",
                // no `--backend` opens it (tests compare `sim:board` with it)
                (Width::W256, _) => return None,
            };
            Some((card_kind(info.width, size), spec))
        })
}

/// Wall-clock time, ns since the Unix epoch (0 if the clock is before it).
pub(crate) fn unix_ns() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos().min(u64::MAX as u128) as u64)
}

/// The host-clock model as the driver's part of a state.
pub(crate) fn encode_clock(c: &HostClockModel) -> Vec<u8> {
    let (true_ns, host_ns, ppb) = c.parts();
    let mut v = Vec::with_capacity(32);
    v.extend_from_slice(&true_ns.to_le_bytes());
    v.extend_from_slice(&host_ns.to_le_bytes());
    v.extend_from_slice(&ppb.to_bits().to_le_bytes());
    v
}

pub(crate) fn decode_clock(b: &[u8]) -> Option<HostClockModel> {
    if b.len() != 32 {
        return None;
    }
    let true_ns = u64::from_le_bytes(b[0..8].try_into().ok()?);
    let host_ns = i128::from_le_bytes(b[8..24].try_into().ok()?);
    let ppb = f64::from_bits(u64::from_le_bytes(b[24..32].try_into().ok()?));
    ppb.is_finite()
        .then(|| HostClockModel::from_parts(true_ns, host_ns, ppb))
}

impl Drop for SimBackend {
    fn drop(&mut self) {
        // A persistent card not closed (the command failed): save it, as a real card keeps its state
        // whatever the driver did, unless we are unwinding from a panic (state of unknown sanity).
        if self.persist.is_some() && !std::thread::panicking() {
            if let Err(e) = self.save() {
                eprintln!("warning: {e}");
            }
        }
        let period = self.card.config().clk_period_ps;
        for a in self.card.mem_mut().take_log() {
            eprintln!(
                "memlog {:>10} ns {} id {:#04x} addr {:#x} beats {}",
                a.cycle * period / 1000,
                if a.write { "W" } else { "R" },
                a.id,
                a.addr,
                a.beats
            );
        }
        // TSNIC_SIM_STATS=1: how the simulated time was spent.
        if std::env::var_os("TSNIC_SIM_STATS").is_some() {
            let ff = self.card.fast_forward_stats();
            eprintln!(
                "sim: {} cycles, {} of them in {} fast-forward jumps; of the rest, not clocked: {}; {} BAR0 accesses",
                self.card.cycle(),
                ff.cycles,
                ff.jumps,
                tsnic_sim::GATED_BLOCKS
                    .iter()
                    .zip(ff.gate_held)
                    .map(|(b, n)| format!("{b} {n}"))
                    .collect::<Vec<_>>()
                    .join(", "),
                self.mmio_ops
            );
        }
    }
}

impl Backend for SimBackend {
    fn saved_state_path(&self) -> Option<std::path::PathBuf> {
        self.persist
            .as_ref()
            .filter(|p| !p.read_only)
            .map(|p| p.path.clone())
    }

    fn describe(&self) -> String {
        let c = self.card.config();
        format!(
            "sim (Verilated tsnic_core, {} size, {}-bit buses, {} Gb/s wire, {} ns host read latency, {} MHz; {})",
            match c.size {
                CoreSize::Shipped => "board",
                CoreSize::Small => "small",
            },
            c.width.bytes() * 8,
            c.line_rate.bits_per_s() / 1_000_000_000,
            c.read_latency_ns,
            1_000_000 / c.clk_period_ps,
            match &self.persist {
                Some(p) if p.read_only => format!(
                    "card read from {} (a read-only location: not saved)",
                    p.path.display()
                ),
                Some(p) => format!("card kept in {}", p.path.display()),
                None => "fresh card, not kept".into(),
            }
        )
    }

    fn close_read_only(&mut self) -> Result<(), DeviceError> {
        if self.persist.as_ref().is_some_and(|p| p.read_only) {
            // Only read: the card in its read-only location stays as it was saved.
            self.persist = None;
            return Ok(());
        }
        self.close()
    }

    fn close(&mut self) -> Result<(), DeviceError> {
        let r = self.save();
        // Saved (or failed loudly): nothing more to save at drop; the lock goes with it.
        self.persist = None;
        r
    }

    fn read32(&mut self, offset: usize) -> u32 {
        let off = host_dma::bar0_offset(offset);
        self.feed_rx();
        self.mmio_ops += 1;
        let r = self.card.mmio_read(off);
        self.drain_wire();
        r.unwrap_or_else(|e| {
            self.last_error = Some(e.to_string());
            u32::MAX
        })
    }

    fn write32(&mut self, offset: usize, value: u32) {
        let off = host_dma::bar0_offset(offset);
        self.feed_rx();
        self.mmio_ops += 1;
        // Host-memory writes are already in place (dma_write copies at once): release order holds.
        if let Err(e) = self.card.mmio_write(off, value) {
            self.last_error = Some(e.to_string());
        }
        self.drain_wire();
    }

    fn dma_alloc(&mut self, len: usize) -> Result<DmaRegion, DeviceError> {
        host_dma::alloc(self.card.mem_mut(), len)
    }

    fn dma_free(&mut self, region: DmaRegion) -> Result<(), DeviceError> {
        host_dma::free(self.card.mem_mut(), region)
    }

    fn dma_write(&mut self, region: &DmaRegion, offset: usize, data: &[u8]) {
        host_dma::write(self.card.mem_mut(), region, offset, data);
    }

    fn dma_read(&mut self, region: &DmaRegion, offset: usize, buf: &mut [u8]) {
        host_dma::read(self.card.mem(), region, offset, buf);
    }

    fn dma_read_u32(&mut self, region: &DmaRegion, offset: usize) -> u32 {
        let r = self.card.mem().region(region.id());
        u32::from_le_bytes([r[offset], r[offset + 1], r[offset + 2], r[offset + 3]])
    }

    /// The model writes host memory only while it runs (inside a register access or a wait), so
    /// the records are read from the region's bytes in one pass and one copy.
    fn dma_read_valid(
        &mut self,
        region: &DmaRegion,
        offset: usize,
        rec: usize,
        phase_bit: u32,
        phase: bool,
        out: &mut [u8],
    ) -> usize {
        let r = self.card.mem().region(region.id());
        let max = out.len() / rec.max(4);
        let mut n = 0;
        while n < max {
            let o = offset + n * rec + rec - 4;
            let w = u32::from_le_bytes([r[o], r[o + 1], r[o + 2], r[o + 3]]);
            if (w & phase_bit != 0) != phase {
                break;
            }
            n += 1;
        }
        out[..n * rec].copy_from_slice(&r[offset..offset + n * rec]);
        n
    }

    fn now_ns(&mut self) -> u64 {
        self.clock.host_ns(self.sim_ns())
    }

    fn wait_ns(&mut self, ns: u64) -> Result<(), DeviceError> {
        self.feed_rx();
        let target = self.card.now_ps().saturating_add(ns.saturating_mul(1000));
        self.card.run_until_ps(target);
        self.drain_wire();
        Ok(())
    }

    fn wait_irq(&mut self, timeout_ns: u64) -> Result<bool, DeviceError> {
        self.feed_rx();
        let target = self
            .card
            .now_ps()
            .saturating_add(timeout_ns.saturating_mul(1000));
        let rose = self.card.run_until_irq_or_ps(target);
        self.drain_wire();
        Ok(rose)
    }

    fn has_irq(&self) -> bool {
        true
    }

    fn host_clock_model(&mut self) -> Option<&mut HostClockModel> {
        Some(&mut self.clock)
    }

    fn sim_time_ns(&mut self) -> Option<u64> {
        Some(self.sim_ns())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::DMA_ALIGN;

    #[test]
    fn host_clock_round_trips_through_the_state() {
        let mut c = HostClockModel::new(10, SIM_HOST_EPOCH_NS);
        c.set_freq_error_ppb(1_000, -37_000.5);
        c.step(2_000, -123);
        let d = decode_clock(&encode_clock(&c)).unwrap();
        assert_eq!(d.parts(), c.parts());
        assert_eq!(d.host_ns(5_000_000), c.host_ns(5_000_000));
        assert!(decode_clock(&encode_clock(&c)[..31]).is_none());
        let mut nan = encode_clock(&c);
        nan[24..32].copy_from_slice(&f64::NAN.to_bits().to_le_bytes());
        assert!(decode_clock(&nan).is_none());
    }

    /// Without the core, opening the sim backend says why and how to fix it; with it, the identity
    /// reads back through AXI-Lite.
    #[test]
    fn opens_or_explains() {
        match SimBackend::new(Config::default()) {
            Err(DeviceError::SimUnavailable(why)) => {
                assert!(tsnic_sim::core_unavailable().is_some());
                assert!(why.contains("tsnic_core"), "{why}");
            }
            Err(e) => panic!("unexpected: {e}"),
            Ok(mut b) => {
                assert_eq!(
                    b.read32(crate::contract::reg::CAP_MAGIC),
                    crate::contract::MAGIC
                );
                let t0 = b.now_ns();
                b.wait_ns(1000).unwrap();
                assert_eq!(b.now_ns() - t0, 1000);
                let r = b.dma_alloc(100).unwrap();
                assert_eq!(r.len(), DMA_ALIGN);
                assert_eq!(r.iova() % DMA_ALIGN as u64, 0);
                b.dma_write(&r, 8, &[1, 2, 3, 4]);
                assert_eq!(b.dma_read_u32(&r, 8), 0x0403_0201);
            }
        }
    }
}

/// DMA regions in the co-simulation's host memory and BAR0 offsets, for both simulated backends
/// (core and board).
pub(super) mod host_dma {
    use super::super::{DeviceError, DmaRegion, DMA_ALIGN};
    use tsnic_sim::hostmem::HostMemory;

    pub fn alloc(mem: &mut HostMemory, len: usize) -> Result<DmaRegion, DeviceError> {
        if len == 0 {
            return Err(DeviceError::DmaAlloc {
                len,
                why: "zero-length region".into(),
            });
        }
        let rounded = len.div_ceil(DMA_ALIGN) * DMA_ALIGN;
        let (id, iova) = mem.alloc(rounded);
        Ok(DmaRegion::new(id, iova, rounded))
    }

    pub fn free(mem: &mut HostMemory, region: DmaRegion) -> Result<(), DeviceError> {
        if mem.free(region.id()) {
            Ok(())
        } else {
            Err(DeviceError::DmaAlloc {
                len: region.len(),
                why: "region already freed".into(),
            })
        }
    }

    pub fn write(mem: &mut HostMemory, region: &DmaRegion, offset: usize, data: &[u8]) {
        mem.region_mut(region.id())[offset..offset + data.len()].copy_from_slice(data);
    }

    /// A BAR0 offset as the model takes it; outside the map or unaligned is a driver bug.
    pub fn bar0_offset(offset: usize) -> u32 {
        assert!(
            offset < crate::contract::BAR0_SIZE && offset & 3 == 0,
            "BAR0 offset {offset:#x} outside the map or unaligned: a driver bug"
        );
        offset as u32
    }

    pub fn read(mem: &HostMemory, region: &DmaRegion, offset: usize, buf: &mut [u8]) {
        let len = buf.len();
        buf.copy_from_slice(&mem.region(region.id())[offset..offset + len]);
    }
}
