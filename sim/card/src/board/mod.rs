//! The card as a user flashes it: `tsnic_board_core` Verilated (the `board` feature), behind a model
//! of the PCIe hard block, the link and the host ([`pcie`]), with the MAC and wire model on its own
//! clock (docs/ARCHITECTURE.md, "Board co-simulation").
//!
//! Two clocks: the PCIe user clock (`clk`, 250 MHz, the core's) and the MAC clock (`tx_clk` =
//! `rx_clk`, 156.25 MHz on the SUME: the 10GBASE-R PCS's `coreclk_out`; 322.265625 MHz on the
//! Alveos: the CMAC's gt_txusrclk2), unrelated: their edges
//! are offset by [`BoardConfig::mac_phase_ps`] and the MAC's period is
//! [`BoardConfig::mac_period_ps`], so the two meet only where their periods say. Each instant at
//! which one or both clocks rise is one call into the model; the models of a clock's domain drive
//! their inputs and see its handshakes only at its own edges.
//!
//! Boards ([`BoardModel`]): the SUME build (256 bits, `BoardConfig::default()`) and the Alveo builds
//! (`BoardConfig::alveo`: 512 bits, Gen3 x16, the CMAC model of [`cmac`] in front of a 100G wire,
//! TX_MAC_LAG = 2 as the tops build it: the board core's tsnic_cmac_tx_lag derives each frame's
//! line start from the CMAC's handshakes, so a departure stamp is that start plus
//! CTRL_TX_LAT_COMP_NS).
//!
//! RX ([`BoardCard::rx_inject`], [`BoardCard::set_loopback`]): on the SUME [`xgmii_rx`] stands in
//! for the 10G line, the PCS and tsnic_xgmii_rx at the board core's 64-bit RX inputs and start of
//! frame (RX_SOF_IN = 1); on the Alveos the RX line model of the core build ([`RxPort`]) drives the
//! 512-bit RX stream on the MAC clock (RX_SOF_IN = 0: the core stamps the first beat).
//!
//! The core's gated blocks are left unclocked where they hold ([`BoardConfig::gated`], exact:
//! `cosim_fastforward`'s board tests), and the card can be saved and restored between commands
//! ([`BoardCard::snapshot`], [`BoardCard::restore`]: module `state`).
//!
//! What this slice does not have yet (issue 31): the MAC as the SUME has it (tsnic_axis_downsize and
//! tsnic_xgmii_tx/_rx: the [`Wire`] model takes the 256-bit stream on the MAC clock instead, and
//! [`xgmii_rx`] gives tsnic_xgmii_rx's output), the idle fast-forward (every edge is evaluated: a
//! jump must reproduce the MAC side's PHC copies, tsnic_td_sink, and the endless tsnic_cdc_bus
//! handshakes bit for bit, which no formula does; what an exact jump needs: docs/ARCHITECTURE.md,
//! "Gated blocks on the board"), link flow-control credits, poisoned completions and completion
//! timeouts.

pub mod cmac;
pub mod ffi;
pub mod pcie;
mod state;
pub mod xgmii_rx;

use crate::ffi::{FlashOut, PortsIn, PortsOut};
use crate::hostmem::HostMemory;
use crate::rx::{RxArrival, RxFrame, RxPort, RxStats};
use crate::wire::{LineRate, Wire};
use crate::{FlashPins, SimError};
pub use cmac::{Cmac, CmacConfig, CmacStats};
pub use ffi::BoardModel;
use ffi::{BoardIn, BoardOut, BoardRtl, EDGE_CLK, EDGE_GATE, EDGE_MAC};
pub use pcie::{LinkStats, PcieConfig, PcieModel, PcieStats};
pub use xgmii_rx::XgmiiRx;

/// The receive side in front of the board core's MAC RX inputs, on the MAC clock.
enum BoardRx {
    /// The SUME (RX_SOF_IN = 1): the 10G line and tsnic_xgmii_rx's 64-bit stream and start of frame.
    Xgmii(XgmiiRx),
    /// The Alveos (RX_SOF_IN = 0): the line in front of the CMAC's 512-bit RX AXI-Stream, a beat
    /// once its bytes have arrived (the core stamps the first beat's cycle).
    Line(RxPort),
}

/// How the simulated board is set up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BoardConfig {
    /// PCIe user clock period, ps: 4000 (250 MHz, the board core's `CLK_FREQ_HZ`).
    pub clk_period_ps: u64,
    /// MAC clock period, ps: 6400 (156.25 MHz, the SUME's XGMII clock; `TX_PERIOD_FX` of the build),
    /// divided by [`BoardConfig::mac_period_den`].
    pub mac_period_ps: u64,
    /// Divisor of `mac_period_ps`: MAC edge k is at `mac_phase_ps + floor(k * mac_period_ps /
    /// mac_period_den)`, so a period that is no whole number of ps keeps its exact average (the
    /// Alveos' 322.265625 MHz: 102400 / 33 ps, each edge within 1 ps of its true time). 1 on the SUME.
    pub mac_period_den: u64,
    /// Which Verilated board core (the SUME's or an Alveo's).
    pub model: BoardModel,
    /// The Alveos' CMAC in front of the wire (`None` on the SUME: the wire model takes the stream).
    pub cmac: Option<CmacConfig>,
    /// The MAC clock's first edge, ps after the PCIe clock's: 1700 (any value; unrelated clocks).
    pub mac_phase_ps: u64,
    /// Line rate: 10 Gb/s (the SUME's SFP+ ports).
    pub line_rate: LineRate,
    /// PCIe user clock cycles both resets are held at start.
    pub reset_cycles: u64,
    /// Longest a BAR0 read may take, ns, before [`SimError::MmioTimeout`].
    pub mmio_timeout_ns: u64,
    /// The link, the hard block and the host.
    pub pcie: PcieConfig,
    /// Leave the core's gated blocks unclocked at the PCIe clock edges where they hold
    /// (docs/ARCHITECTURE.md, "Gated blocks"; exact: `cosim_fastforward`'s board tests compare it
    /// with every block clocked). On by default; `TSNIC_SIM_GATE=0` turns it off.
    pub gated: bool,
}

impl Default for BoardConfig {
    fn default() -> Self {
        BoardConfig {
            clk_period_ps: 4000,
            mac_period_ps: 6400,
            mac_period_den: 1,
            model: BoardModel::Sume,
            cmac: None,
            mac_phase_ps: 1700,
            line_rate: LineRate::G10,
            reset_cycles: 16,
            mmio_timeout_ns: 400_000,
            pcie: PcieConfig::default(),
            gated: true,
        }
    }
}

impl BoardConfig {
    /// An Alveo board (`sim:board=u50|u280|u250`) as board/common/rtl/tsnic_alveo_top.v builds it
    /// with the CMAC: the 512-bit board core at 250 MHz behind the Gen3 x16 hard block
    /// ([`PcieConfig::alveo`]), the MAC clock at 322.265625 MHz (gt_txusrclk2), the CMAC model
    /// ([`cmac`]) in front of a 100 Gb/s wire. `model` must be one of the Alveo builds.
    pub fn alveo(model: BoardModel) -> BoardConfig {
        BoardConfig {
            mac_period_ps: 102_400,
            mac_period_den: 33,
            model,
            cmac: Some(CmacConfig::default()),
            line_rate: LineRate::G100,
            pcie: PcieConfig::alveo(),
            ..BoardConfig::default()
        }
    }

    /// The MAC clock, Hz (rounded).
    pub fn mac_hz(&self) -> u64 {
        (1_000_000_000_000u128 * u128::from(self.mac_period_den) / u128::from(self.mac_period_ps))
            as u64
    }
}

/// Whether the board configuration is built into this binary (the `board` feature).
pub fn board_built() -> bool {
    cfg!(tsnic_sim_board)
}

/// The simulated board and its surroundings.
pub struct BoardCard {
    cfg: BoardConfig,
    rtl: Box<dyn BoardRtl>,
    inp: BoardIn,
    out: BoardOut,
    now_ps: u64,
    next_clk_ps: u64,
    next_mac_ps: u64,
    clk_cycles: u64,
    mac_cycles: u64,
    pcie: PcieModel,
    mem: HostMemory,
    wire: Wire,
    wire_in: PortsIn,
    wire_out: PortsOut,
    cmac: Option<Cmac>,
    rx: BoardRx,
    /// The TX wire looped back into RX after this delay, ps.
    loopback_ps: Option<u64>,
    /// The flash and configuration model on the core's flash and ICAP pins.
    flash: Option<Box<dyn FlashPins>>,
    /// PCIe clock cycles the core stays in reset after a reconfiguration (or [`BoardCard::reset`]).
    reset_left: u64,
    /// MSI-X interrupts the host has taken ([`BoardCard::run_until_irq_or_ps`]).
    irqs_taken: u64,
    /// [`EDGE_GATE`] with every PCIe clock edge, or 0 (every block clocked).
    gate: u64,
    /// Per gated block (`crate::GATED_BLOCKS`), the PCIe clock edges at which it was not clocked.
    gate_held: [u64; crate::GATED_BLOCKS.len()],
}

impl std::fmt::Debug for BoardCard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BoardCard")
            .field("cfg", &self.cfg)
            .field("now_ps", &self.now_ps)
            .finish()
    }
}

impl BoardCard {
    /// The Verilated board core with the models around it, reset and released; the host has not
    /// enabled bus mastering or MSI-X yet ([`BoardCard::pcie_mut`]).
    pub fn new(cfg: BoardConfig) -> Result<BoardCard, SimError> {
        if !cfg.model.built() {
            return Err(SimError::CoreUnavailable(format!(
                "the board configuration `{}` (tsnic_board_core) is not built in: build with the `{}` feature (`cargo build --features tsnic/{}`)",
                cfg.model.name(),
                cfg.model.feature(),
                cfg.model.feature()
            )));
        }
        let rtl = ffi::VerilatedBoard::new(cfg.model)
            .ok_or_else(|| SimError::BadConfig("cannot allocate the board model".into()))?;
        BoardCard::with_rtl(cfg, Box::new(rtl))
    }

    /// Around any [`BoardRtl`].
    pub fn with_rtl(cfg: BoardConfig, rtl: Box<dyn BoardRtl>) -> Result<BoardCard, SimError> {
        let mut c = BoardCard::unreset(cfg, rtl)?;
        c.inp.rst = 1;
        c.inp.tx_rst = 1;
        let end = cfg.reset_cycles.max(1) * cfg.clk_period_ps;
        c.run_until_ps(end);
        c.inp.rst = 0;
        c.inp.tx_rst = 0;
        Ok(c)
    }

    /// The models around `rtl` at time 0, nothing run (a fresh card resets it; a restored one loads
    /// its state).
    fn unreset(cfg: BoardConfig, rtl: Box<dyn BoardRtl>) -> Result<BoardCard, SimError> {
        cfg.pcie.check().map_err(SimError::BadConfig)?;
        if cfg.clk_period_ps == 0 || cfg.mac_period_ps == 0 || cfg.mac_period_den == 0 {
            return Err(SimError::BadConfig("clock periods must be above 0".into()));
        }
        if cfg.model.is_alveo() != (cfg.pcie.user_bits == 512) {
            return Err(SimError::BadConfig(format!(
                "the `{}` board core has {}-bit PCIe user interfaces: use BoardConfig::{}",
                cfg.model.name(),
                if cfg.model.is_alveo() { 512 } else { 256 },
                if cfg.model.is_alveo() {
                    "alveo"
                } else {
                    "default"
                }
            )));
        }
        let bus_bytes = if cfg.model.is_alveo() { 64 } else { 32 };
        let mut c = BoardCard {
            cfg,
            rtl,
            inp: BoardIn {
                pcie_lnk_up: 1,
                // pcie3_7x codes (PCIE_STATUS_ENC = 1, PG023): L0, width one-hot, speed one-hot;
                // pcie4(c)_uscale_plus (PCIE_STATUS_ENC = 0, PG213): width log2(lanes), speed gen - 1
                pcie_ltssm: 0x10,
                pcie_width: if cfg.model.is_alveo() {
                    u64::from(cfg.pcie.lanes.trailing_zeros())
                } else {
                    cfg.pcie.lanes.min(8)
                },
                pcie_speed: if cfg.model.is_alveo() { 2 } else { 0b100 },
                mac_rx_up: 1,
                ..BoardIn::default()
            },
            out: BoardOut::default(),
            now_ps: 0,
            next_clk_ps: 0,
            next_mac_ps: cfg.mac_phase_ps,
            clk_cycles: 0,
            mac_cycles: 0,
            pcie: PcieModel::new(cfg.pcie),
            mem: HostMemory::new(32, 1, 0),
            wire: Wire::new(cfg.line_rate, bus_bytes),
            wire_in: PortsIn::default(),
            wire_out: PortsOut::default(),
            cmac: cfg.cmac.map(Cmac::new),
            rx: if cfg.model.is_alveo() {
                BoardRx::Line(RxPort::new(cfg.line_rate, bus_bytes))
            } else {
                BoardRx::Xgmii(XgmiiRx::new(cfg.mac_period_ps, cfg.mac_phase_ps))
            },
            loopback_ps: None,
            flash: None,
            reset_left: 0,
            irqs_taken: 0,
            gate: if cfg.gated && std::env::var("TSNIC_SIM_GATE").as_deref() != Ok("0") {
                EDGE_GATE
            } else {
                0
            },
            gate_held: [0; crate::GATED_BLOCKS.len()],
        };
        // the board core takes every RX beat (s_axis_rx_tready is 1 with MAC_DOMAIN = 1)
        c.wire_out.s_axis_rx_tready = 1;
        Ok(c)
    }

    /// The configuration.
    pub fn config(&self) -> &BoardConfig {
        &self.cfg
    }

    /// Attach a flash/configuration model to the core's flash and ICAP pins (replacing one attached
    /// before, returned), as `SimCard::attach_flash` does on the core build.
    pub fn attach_flash(
        &mut self,
        flash: Box<dyn FlashPins>,
    ) -> Result<Option<Box<dyn FlashPins>>, SimError> {
        if !self.rtl.flash_io(None, None) {
            return Err(SimError::BadConfig(
                "this board model has no configuration-flash pins".into(),
            ));
        }
        Ok(self.flash.replace(flash))
    }

    /// Detach the flash model, leaving the pins pulled up as with none.
    pub fn detach_flash(&mut self) -> Option<Box<dyn FlashPins>> {
        let f = self.flash.take();
        if f.is_some() {
            self.rtl
                .flash_io(Some(&crate::ffi::FlashIn::default()), None);
        }
        f
    }

    /// Hold the core's reset (`rst`: the PCIe endpoint, the core and both MAC sides' crossings) for
    /// `cycles` PCIe clock cycles from the next edge on, as a reconfiguration of the FPGA does. The
    /// endpoint forgets its MSI-X table: the host programs it again.
    pub fn reset(&mut self, cycles: u64) {
        self.inp.rst = 1;
        self.reset_left = cycles.max(1) + 1;
    }

    /// One instant: the next edge of either clock (both if they coincide).
    pub fn step(&mut self) {
        let t = self.next_clk_ps.min(self.next_mac_ps);
        let mut edges = 0;
        if self.next_clk_ps == t {
            edges |= EDGE_CLK;
        }
        if self.next_mac_ps == t {
            edges |= EDGE_MAC;
        }
        self.now_ps = t;
        if edges & EDGE_CLK != 0 {
            if self.reset_left > 0 {
                self.reset_left -= 1;
                if self.reset_left == 0 {
                    self.inp.rst = 0;
                }
            }
            self.pcie.drive(&mut self.inp, t);
        }
        if edges & EDGE_MAC != 0 {
            if let Some(c) = &self.cmac {
                // the CMAC: its own tready, no line-start reports (the board core derives
                // them, TX_MAC_LAG = 2)
                c.drive(&self.wire, &mut self.wire_in, t);
                self.inp.mac_lag_valid = 0;
                self.inp.mac_lag_ns = 0;
            } else {
                self.wire.drive(&mut self.wire_in, t);
                self.inp.mac_lag_valid = self.wire_in.s_mac_tx_lag_valid;
                self.inp.mac_lag_ns = self.wire_in.s_mac_tx_lag_ns;
            }
            self.inp.tx_tready = self.wire_in.m_axis_tx_tready;
            match &mut self.rx {
                BoardRx::Xgmii(x) => x.drive(&mut self.inp, t),
                BoardRx::Line(r) => {
                    r.drive(&mut self.wire_in, t);
                    let (i, w) = (&mut self.inp, &self.wire_in);
                    i.rx_tdata = w.s_axis_rx_tdata;
                    i.rx_tkeep = w.s_axis_rx_tkeep;
                    i.rx_tvalid = w.s_axis_rx_tvalid;
                    i.rx_tlast = w.s_axis_rx_tlast;
                    i.rx_tuser = w.s_axis_rx_tuser[0];
                }
            }
        }
        if edges & EDGE_CLK != 0 {
            edges |= self.gate;
        }
        self.rtl.step(&self.inp, &mut self.out, edges);
        if edges & EDGE_GATE != 0 && self.out.sim_gate_hold != 0 {
            for (i, n) in self.gate_held.iter_mut().enumerate() {
                *n += (self.out.sim_gate_hold >> i) & 1;
            }
        }
        if edges & EDGE_CLK != 0 {
            self.pcie.clock(&self.inp, &self.out, t, &mut self.mem);
            self.clk_cycles += 1;
            self.next_clk_ps += self.cfg.clk_period_ps;
            if let Some(flash) = self.flash.as_mut() {
                // the pins after this edge; the answer is on them at the next one (as on the core
                // build: SimCard's flash cycle)
                let mut pins = FlashOut::default();
                self.rtl.flash_io(None, Some(&mut pins));
                let answer = flash.cycle(self.next_clk_ps, &pins);
                self.rtl.flash_io(Some(&answer), None);
                if flash.take_reconfigure() {
                    self.inp.rst = 1;
                    self.reset_left = self.cfg.reset_cycles.max(1) + 1;
                }
            }
        }
        if edges & EDGE_MAC != 0 {
            let o = &mut self.wire_out;
            o.m_axis_tx_tdata = self.out.tx_tdata;
            o.m_axis_tx_tkeep = self.out.tx_tkeep;
            o.m_axis_tx_tvalid = self.out.tx_tvalid;
            o.m_axis_tx_tlast = self.out.tx_tlast;
            o.m_axis_tx_tuser = self.out.tx_tuser;
            if let Some(c) = &mut self.cmac {
                c.clock(
                    &mut self.wire,
                    &self.wire_in,
                    &self.wire_out,
                    self.mac_cycles,
                    t,
                );
            } else {
                self.wire
                    .clock(&self.wire_in, &self.wire_out, self.mac_cycles, t);
            }
            match &mut self.rx {
                BoardRx::Xgmii(x) => x.clock(&self.inp, self.mac_cycles, t),
                BoardRx::Line(r) => r.clock(&self.wire_in, &self.wire_out, self.mac_cycles, t),
            }
            if let Some(delay) = self.loopback_ps {
                for f in self.wire.take_looped() {
                    self.rx_inject(f.bytes, f.start_ps + delay, f.errored);
                }
            }
            self.mac_cycles += 1;
            self.next_mac_ps = self.cfg.mac_phase_ps
                + (u128::from(self.mac_cycles) * u128::from(self.cfg.mac_period_ps)
                    / u128::from(self.cfg.mac_period_den)) as u64;
        }
        // every clock that rose here has its next edge later: else the loops that call this one
        // would run this instant again forever (a test then hangs instead of failing)
        debug_assert!(
            self.next_clk_ps.min(self.next_mac_ps) > t,
            "board instant at {t} ps did not advance either clock (edges {edges:#x})"
        );
    }

    /// Run until simulated time reaches `ps` (every edge before it).
    pub fn run_until_ps(&mut self, ps: u64) {
        while self.next_clk_ps.min(self.next_mac_ps) < ps {
            self.step();
        }
        self.now_ps = self.now_ps.max(ps);
    }

    /// Run until the host takes an MSI-X interrupt or simulated time reaches `ps`; true if one came.
    /// An interrupt that arrived since the last call (while the host was doing something else, e.g.
    /// a BAR0 read) returns at once: the host latches it, as VFIO's eventfd counts it until read.
    pub fn run_until_irq_or_ps(&mut self, ps: u64) -> bool {
        loop {
            let n = self.pcie.interrupts();
            if n != self.irqs_taken {
                self.irqs_taken = n;
                return true;
            }
            if self.next_clk_ps.min(self.next_mac_ps) >= ps {
                break;
            }
            self.step();
        }
        self.now_ps = self.now_ps.max(ps);
        false
    }

    /// Simulated time, ps: the last instant run (or the time run to).
    pub fn now_ps(&self) -> u64 {
        self.now_ps
    }

    /// PCIe user clock cycles so far.
    pub fn cycle(&self) -> u64 {
        self.clk_cycles
    }

    /// MAC clock cycles so far.
    pub fn mac_cycles(&self) -> u64 {
        self.mac_cycles
    }

    /// Read the 32-bit BAR0 register at `offset`: a CQ memory read, answered on CC; simulated time
    /// advances until the completion is back at the host.
    pub fn mmio_read(&mut self, offset: u32) -> Result<u32, SimError> {
        let tag = self.pcie.bar_read(self.now_ps, offset);
        let deadline = self.now_ps + self.cfg.mmio_timeout_ns * 1000;
        loop {
            if let Some((status, data)) = self.pcie.take_bar_read(tag) {
                // a completion with an error status reads as all ones, as on a host
                return Ok(if status == 0 { data } else { u32::MAX });
            }
            if self.now_ps > deadline {
                return Err(SimError::MmioTimeout {
                    what: "read",
                    offset,
                    cycles: self.cfg.mmio_timeout_ns * 1000 / self.cfg.clk_period_ps,
                });
            }
            self.step();
        }
    }

    /// Write the 32-bit BAR0 register at `offset`: a posted CQ memory write, on its way when this
    /// returns (it reaches the card before anything the host sends after it).
    pub fn mmio_write(&mut self, offset: u32, value: u32) {
        self.pcie.bar_write(self.now_ps, offset, value);
    }

    /// Host memory (the driver's DMA regions).
    pub fn mem(&self) -> &HostMemory {
        &self.mem
    }

    /// Host memory, writable.
    pub fn mem_mut(&mut self) -> &mut HostMemory {
        &mut self.mem
    }

    /// The hard block and host model (configuration space, counters).
    pub fn pcie(&self) -> &PcieModel {
        &self.pcie
    }

    /// The hard block and host model, to set configuration space.
    pub fn pcie_mut(&mut self) -> &mut PcieModel {
        &mut self.pcie
    }

    /// The wire.
    pub fn wire(&self) -> &Wire {
        &self.wire
    }

    /// The wire, to take its frames. Behind the CMAC ([`BoardConfig::cmac`]) its times are the
    /// line's: a frame's `first_beat_ps` is its first beat at the serialiser, the CMAC's latency after
    /// the handshake, and `start_ps` its start on the line.
    pub fn wire_mut(&mut self) -> &mut Wire {
        &mut self.wire
    }

    /// Queue a frame to arrive on the RX line at simulated time `at_ps` (its preamble; the line may
    /// push it later behind a frame still arriving, and on the SUME to the next XGMII half word:
    /// [`xgmii_rx`]). `bad`: the MAC flags it (FCS error).
    pub fn rx_inject(&mut self, bytes: Vec<u8>, at_ps: u64, bad: bool) {
        let f = RxFrame { bytes, at_ps, bad };
        match &mut self.rx {
            BoardRx::Xgmii(x) => x.inject(f),
            BoardRx::Line(r) => r.inject(f),
        }
    }

    /// Loop the TX wire back into the RX line: every frame sent from now on arrives `delay_ps` after
    /// it started on the TX line (`None`: off, the default). As on the core build
    /// (`SimCard::set_loopback`) the delay must exceed the longest frame's wire time.
    pub fn set_loopback(&mut self, delay_ps: Option<u64>) {
        self.loopback_ps = delay_ps;
        self.wire.set_loop(delay_ps.is_some());
    }

    /// Take the records of the frames the RX side handed to the board core (its MAC RX inputs).
    pub fn take_rx_arrivals(&mut self) -> Vec<RxArrival> {
        match &mut self.rx {
            BoardRx::Xgmii(x) => x.take_arrivals(),
            BoardRx::Line(r) => r.take_arrivals(),
        }
    }

    /// The RX side's counters.
    pub fn rx_stats(&self) -> RxStats {
        match &self.rx {
            BoardRx::Xgmii(x) => x.stats(),
            BoardRx::Line(r) => r.stats(),
        }
    }

    /// RX frames not yet handed over whole (waiting or arriving).
    pub fn rx_queued(&self) -> usize {
        match &self.rx {
            BoardRx::Xgmii(x) => x.queued(),
            BoardRx::Line(r) => r.queued(),
        }
    }

    /// The CMAC model, on an Alveo board.
    pub fn cmac(&self) -> Option<&Cmac> {
        self.cmac.as_ref()
    }

    /// The PPS output at the last PCIe clock edge.
    pub fn pps(&self) -> bool {
        self.out.pps == 1
    }

    /// Whether the core's gated blocks are left unclocked where they hold ([`BoardConfig::gated`]).
    pub fn gated(&self) -> bool {
        self.gate != 0
    }

    /// Per gated block (`crate::GATED_BLOCKS` order), the PCIe clock edges at which it held and was
    /// not clocked so far.
    pub fn gate_held(&self) -> [u64; crate::GATED_BLOCKS.len()] {
        self.gate_held
    }
}
