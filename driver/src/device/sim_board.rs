//! `sim:board`: the card as a user flashes it, `tsnic_board_core` Verilated (crate `tsnic-sim`, its
//! `board` feature: the SUME configuration), behind the model of the PCIe hard block, the link and
//! the host (`tsnic_sim::board`).
//!
//! The backend plays the part the kernel and VFIO play for the vfio backend: at open it sets the
//! function's configuration space (bus master enable; MPS and MRRS are the model's settings, fed to
//! the hard block's `cfg_*` inputs), programs MSI-X table entry 0 with the host's message address
//! and data and unmasks it through BAR0 (as the kernel does for `VFIO_DEVICE_SET_IRQS`), and turns
//! MSI-X on. [`Backend::wait_irq`] then waits for an MSI-X message to arrive at the host.
//!
//! - BAR0 reads are CQ requests answered on CC (simulated time advances by the round trip); writes
//!   are posted. A read that gets no completion returns `0xffff_ffff`, remembered in
//!   [`BoardBackend::last_error`].
//! - DMA regions live in the host-memory model; the card reaches them with RQ requests through the
//!   link. `dma_write`/`dma_read` are the CPU's view, at once.
//! - The card is kept between commands as the core build's is ([`BoardBackend::open`]: the same
//!   state files, lock and rules, `sim-board-NAME.state` by default); [`BoardBackend::new`] is a
//!   fresh one. At close the card runs on until the link, the host and the MAC side are quiet
//!   (at most [`SETTLE_LIMIT_NS`]), as a real card goes on while its driver exits, then is saved.

use tsnic_sim::board::{BoardCard, BoardConfig, CmacStats, PcieStats};
use tsnic_sim::{SimError, WireFrame};

use super::sim::{
    decode_clock, encode_clock, host_dma, saved_card, unix_ns, Persist, WireTap, SIM_HOST_EPOCH_NS,
};
use super::sim_state::{self, StateChoice, StateLock};
use super::{Backend, DeviceError, DmaRegion, HostClockModel};
use crate::contract::reg;

/// The MSI-X table in BAR0 (tsnic_pcie_us: the endpoint serves it at 0x20000, 16 bytes per entry:
/// address low, address high, data, vector control).
pub const MSIX_TABLE: u32 = 0x20000;

/// Longest a card runs on at close for its models to fall quiet before it is saved, ns of simulated
/// time (a frame of 9000 bytes at 10G is 7.2 us; a read round trip about 1 us).
pub const SETTLE_LIMIT_NS: u64 = 1_000_000;

/// The board backend.
pub struct BoardBackend {
    card: BoardCard,
    clock: HostClockModel,
    tap: Option<WireTap>,
    stats_tap: Option<std::rc::Rc<std::cell::Cell<PcieStats>>>,
    cmac_tap: Option<std::rc::Rc<std::cell::Cell<CmacStats>>>,
    last_error: Option<String>,
    mmio_ops: u64,
    persist: Option<Persist>,
}

impl std::fmt::Debug for BoardBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BoardBackend")
            .field("card", &self.card)
            .finish()
    }
}

fn board_err(e: SimError) -> DeviceError {
    match e {
        SimError::CoreUnavailable(why) => DeviceError::SimUnavailable(why),
        other => DeviceError::Sim(other.to_string()),
    }
}

impl BoardBackend {
    /// A fresh board: reset, configuration space and MSI-X set up as the host's kernel would, the
    /// core's RAMs cleared.
    pub fn new(cfg: BoardConfig) -> Result<BoardBackend, DeviceError> {
        let card = BoardCard::new(cfg).map_err(board_err)?;
        let mut b = BoardBackend {
            card,
            clock: HostClockModel::new(0, SIM_HOST_EPOCH_NS),
            tap: None,
            stats_tap: None,
            cmac_tap: None,
            last_error: None,
            mmio_ops: 0,
            persist: None,
        };
        b.host_setup()?;
        Ok(b)
    }

    /// The board card `state` names (as [`super::sim::SimBackend::open`]: `TSNIC_SIM_STATE`,
    /// `state=PATH|none`, else `sim-board-NAME.state` in the default folder): restored from its
    /// state file if there is one (a fresh board if not), saved back by [`Backend::close`] (or,
    /// failing that, when dropped without a panic). A state of another card (the core build's, or
    /// another board's) is refused, naming both and the `--backend` that opens it.
    pub fn open(cfg: BoardConfig, state: &StateChoice) -> Result<BoardBackend, DeviceError> {
        let Some(path) = state.resolve(&board_card_name(cfg))? else {
            return BoardBackend::new(cfg);
        };
        let lock = StateLock::acquire(&path)?;
        let mut b = match sim_state::read(&path)? {
            None => BoardBackend::new(cfg)?,
            Some(bytes) => {
                if let Some((saved, spec)) = tsnic_sim::state::inspect(&bytes)
                    .ok()
                    .and_then(|info| saved_card(&info))
                {
                    let want = cfg.model.card_words();
                    if saved != want {
                        return Err(DeviceError::SimStateOtherCard {
                            path: path.display().to_string(),
                            saved: saved.into(),
                            want: want.into(),
                            spec: spec.into(),
                        });
                    }
                }
                let (card, _info, extra) =
                    BoardCard::restore(cfg, &bytes).map_err(|e| match e {
                        tsnic_sim::StateError::Sim(e) => board_err(e),
                        e => DeviceError::SimState {
                            path: path.display().to_string(),
                            why: e.to_string(),
                        },
                    })?;
                let clock = decode_clock(&extra).ok_or_else(|| DeviceError::SimState {
                    path: path.display().to_string(),
                    why: "the driver's part of the state is damaged".into(),
                })?;
                BoardBackend {
                    card,
                    clock,
                    tap: None,
                    stats_tap: None,
                    cmac_tap: None,
                    last_error: None,
                    mmio_ops: 0,
                    persist: None,
                }
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

    /// Save the card to its state file now, after letting its models fall quiet (no-op for a card
    /// that does not persist).
    pub fn save(&mut self) -> Result<(), DeviceError> {
        let Some(p) = &self.persist else {
            return Ok(());
        };
        let path = p.path.display().to_string();
        if p.read_only {
            return Err(DeviceError::SimState {
                path,
                why: "its folder is not writable by this user (or is on a read-only file system), so what this command did to the card cannot be saved; use a state file in a writable folder (TSNIC_SIM_STATE or `--backend sim:board,state=PATH`) for commands that change the card".into(),
            });
        }
        if !self.card.settle(SETTLE_LIMIT_NS * 1000) {
            return Err(DeviceError::SimState {
                path,
                why: format!(
                    "the board did not fall quiet within {SETTLE_LIMIT_NS} ns after the command ({}), so it was not saved; the state file keeps the card as the command before left it",
                    self.card.quiet().unwrap_or("")
                ),
            });
        }
        let bytes = self
            .card
            .snapshot(&encode_clock(&self.clock), unix_ns())
            .map_err(|e| DeviceError::SimState {
                path: path.clone(),
                why: e.to_string(),
            })?;
        sim_state::write_atomic(&self.persist.as_ref().expect("checked above").path, &bytes)
    }

    /// The state file this card is saved to, if it persists.
    pub fn state_path(&self) -> Option<&std::path::Path> {
        self.persist.as_ref().map(|p| p.path.as_path())
    }

    /// The host's part after a reset: bus mastering on, MSI-X table entry 0 programmed and unmasked
    /// through BAR0 and read back, MSI-X on; then wait for the core to clear its RAMs.
    fn host_setup(&mut self) -> Result<(), DeviceError> {
        self.card.pcie_mut().bus_master = true;
        let p = *self.card.pcie().config();
        let e = MSIX_TABLE;
        self.card.mmio_write(e, p.msi_addr as u32);
        self.card.mmio_write(e + 4, (p.msi_addr >> 32) as u32);
        self.card.mmio_write(e + 8, p.msi_data);
        self.card.mmio_write(e + 12, 0); // vector control: unmasked
        self.card.pcie_mut().msix_enable = true;
        self.await_reset_done()?;
        // the table as the card holds it (a read after the writes: they have landed)
        let lo = self.card.mmio_read(e).map_err(board_err)?;
        let data = self.card.mmio_read(e + 8).map_err(board_err)?;
        if u64::from(lo) != p.msi_addr & 0xffff_ffff || data != p.msi_data {
            return Err(DeviceError::Sim(format!(
                "the board's MSI-X table entry 0 reads back address {lo:#x} data {data:#x}, not what the host wrote"
            )));
        }
        Ok(())
    }

    /// Reset the card as a reconfiguration of the FPGA does (`reset_cycles` PCIe clock cycles of
    /// `rst`), then redo the host's part ([`BoardBackend::host_setup`]): the endpoint forgot its
    /// MSI-X table.
    pub fn reset_card(&mut self, reset_cycles: u64) -> Result<(), DeviceError> {
        self.card.reset(reset_cycles);
        self.card.run_until_ps(
            self.card.now_ps() + (reset_cycles + 2) * self.card.config().clk_period_ps,
        );
        self.card.pcie_mut().msix_enable = false;
        self.host_setup()
    }

    /// Run until CTRL_STATUS.RESET_BUSY falls (the core clears its RAMs after reset).
    fn await_reset_done(&mut self) -> Result<(), DeviceError> {
        const LIMIT_NS: u64 = 20_000_000;
        let start = self.card.now_ps();
        loop {
            let st = self
                .card
                .mmio_read(reg::CTRL_STATUS as u32)
                .map_err(board_err)?;
            if st & reg::CTRL_STATUS_RESET_BUSY == 0 {
                return Ok(());
            }
            let waited = (self.card.now_ps() - start) / 1000;
            if waited > LIMIT_NS {
                return Err(DeviceError::Timeout {
                    what: format!(
                        "the simulated board to clear its RAMs after reset (CTRL_STATUS = {st:#x})"
                    ),
                    ns: waited,
                });
            }
            let t = self.card.now_ps() + 1_000_000;
            self.card.run_until_ps(t);
        }
    }

    /// Start collecting the wire's frames into the returned tap (from now on).
    pub fn tap(&mut self) -> WireTap {
        self.card.wire_mut().take_frames();
        let t = WireTap::default();
        self.tap = Some(t.clone());
        t
    }

    /// The hard block and host model's counters, kept current from now on at every call that
    /// runs the card (for a caller whose backend went into a [`super::Card`]).
    pub fn stats_tap(&mut self) -> std::rc::Rc<std::cell::Cell<PcieStats>> {
        let t = std::rc::Rc::new(std::cell::Cell::new(self.card.pcie().stats()));
        self.stats_tap = Some(t.clone());
        t
    }

    /// The CMAC model's counters (Alveo boards; zero on the SUME), kept current as
    /// [`BoardBackend::stats_tap`]'s.
    pub fn cmac_tap(&mut self) -> std::rc::Rc<std::cell::Cell<CmacStats>> {
        let t = std::rc::Rc::new(std::cell::Cell::new(CmacStats::default()));
        self.cmac_tap = Some(t.clone());
        t
    }

    /// Move frames injected through the tap onto the board's RX line.
    fn feed_rx(&mut self) {
        if let Some(t) = &self.tap {
            for (at_ps, bytes, bad) in t.take_rx_in() {
                self.card.rx_inject(bytes, at_ps, bad);
            }
        }
    }

    fn drain_wire(&mut self) {
        if let Some(s) = &self.stats_tap {
            s.set(self.card.pcie().stats());
        }
        if let (Some(t), Some(c)) = (&self.cmac_tap, self.card.cmac()) {
            t.set(c.stats());
        }
        let frames: Vec<WireFrame> = self.card.wire_mut().take_frames();
        let arrivals = self.card.take_rx_arrivals();
        if let Some(t) = &self.tap {
            t.push_frames(frames, self.card.cycle(), self.card.wire().stats());
            t.push_rx_arrivals(arrivals);
        }
    }

    /// Whether the core's gated blocks are left unclocked where they hold (`BoardConfig::gated`,
    /// `TSNIC_SIM_GATE=0` turns it off).
    pub fn gated(&self) -> bool {
        self.card.gated()
    }

    /// The simulated board (models, counters).
    pub fn card(&mut self) -> &mut BoardCard {
        &mut self.card
    }

    /// The hard block and host model's counters (link bytes and TLPs per direction, interrupts,
    /// completion buffer).
    pub fn pcie_stats(&self) -> PcieStats {
        self.card.pcie().stats()
    }

    /// Simulated time in ns.
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

/// The name of a board's card in its default state file (`sim-board-NAME.state`).
pub fn board_card_name(cfg: BoardConfig) -> String {
    format!("board-{}", cfg.model.name())
}

impl Drop for BoardBackend {
    fn drop(&mut self) {
        // A kept card not closed (the command failed): save it, as a real card keeps its state
        // whatever the driver did, unless unwinding from a panic (state of unknown sanity).
        if self.persist.is_some() && !std::thread::panicking() {
            if let Err(e) = self.save() {
                eprintln!("warning: {e}");
            }
        }
        // TSNIC_SIM_STATS=1: what the link carried.
        if std::env::var_os("TSNIC_SIM_STATS").is_some() {
            let s = self.card.pcie().stats();
            eprintln!(
                "sim:board: {} ns, {} BAR0 accesses; link down {} TLPs {} bytes, up {} TLPs {} bytes; {} MSI-X interrupts; completion buffer at most {} headers {} data credits",
                self.sim_ns(),
                self.mmio_ops,
                s.down.tlps,
                s.down.tlp_bytes,
                s.up.tlps,
                s.up.tlp_bytes,
                s.interrupts,
                s.buf_max_h,
                s.buf_max_d
            );
        }
    }
}

impl Backend for BoardBackend {
    fn describe(&self) -> String {
        let c = self.card.config();
        let p = c.pcie;
        let build = if c.model.is_alveo() {
            format!(
                "Alveo {} build: 512-bit PCIe user interfaces",
                c.model.name().to_uppercase()
            )
        } else {
            "SUME build: 256-bit PCIe user interfaces".to_string()
        };
        format!(
            "sim:board{} (Verilated tsnic_board_core, {build} at {} MHz, MAC clock {:.6} MHz, {}{} Gb/s wire; PCIe Gen3 x{} model, MPS {} MRRS {} RCB {}, {} ns read latency; {})",
            if c.model.is_alveo() {
                format!("={}", c.model.name())
            } else {
                String::new()
            },
            1_000_000 / c.clk_period_ps,
            c.mac_hz() as f64 / 1e6,
            if c.cmac.is_some() { "CMAC model, " } else { "" },
            c.line_rate.bits_per_s() / 1_000_000_000,
            p.lanes,
            p.mps,
            p.mrrs,
            p.rcb,
            p.read_latency_ns,
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

    fn saved_state_path(&self) -> Option<std::path::PathBuf> {
        self.persist
            .as_ref()
            .filter(|p| !p.read_only)
            .map(|p| p.path.clone())
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
        self.card.mmio_write(off, value);
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
        let came = self.card.run_until_irq_or_ps(target);
        self.drain_wire();
        Ok(came)
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

    fn last_read_served_ns(&mut self) -> Option<(u64, u64)> {
        // the CQ request's last beat taken to the CC completion sent: the card read the register
        // in between (the round trip around it is about 340 ns of link flights)
        let (a, b) = self.card.pcie().last_read_served_ps();
        Some((a / 1000, b.div_ceil(1000)))
    }
}
