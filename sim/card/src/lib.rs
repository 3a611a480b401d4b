//! tsnic co-simulation: the Verilated `tsnic_core` in-process, and the machine around it.
//!
//! [`SimCard`] clocks the RTL one core cycle at a time and, each cycle, lets three models play the
//! card's surroundings:
//! - [`hostmem::HostMemory`]: host memory behind the core's AXI4 master, holding the driver's DMA
//!   buffers, with PCIe-like read latency (default 800 ns, never zero);
//! - [`wire::Wire`]: the MAC and the wire at 10, 25 or 100 Gb/s (preamble, FCS, inter-frame gap;
//!   frames never overlap), recording each frame's bytes and the time of its first beat;
//! - [`rx::RxPort`]: the receive side of the line: frames injected at a simulated time
//!   ([`SimCard::rx_inject`], or the TX wire looped back with a delay, [`SimCard::set_loopback`])
//!   enter the core's RX AXI-Stream at line pace;
//! - [`axil::AxiLiteMaster`]: BAR0 reads and writes as AXI-Lite transactions;
//!
//! and samples the interrupt line. Everything is integer and single-threaded: the same inputs give the
//! same wire, bit for bit. The only `unsafe` code is the FFI in [`ffi`].
//!
//! **Idle fast-forward.** When the core says it is quiet (`sim_ff_quiet`: nothing but the PHC and
//! state that follows it can change before PHC time `sim_ff_wake_ns`) and every model is idle, one
//! clock cycle carries the PHC many increments at once (`sim_ff_warp`) and the cycle count jumps with
//! it; then [`FF_SETTLE`] ordinary cycles follow before the next jump, and every jump ends that many
//! cycles before the wake time and before the caller's deadline. The result is exactly what stepping
//! every cycle gives (tested: the same pushes with the fast-forward on and off give identical wires and
//! completions); [`Config::fast_forward`] turns it off. docs/ARCHITECTURE.md, "Idle fast-forward".
//!
//! The build script Verilates `hdl/rtl/tsnic_core.v`; when the core is not there (or Verilator failed)
//! the crate still builds, [`core_unavailable`] says why and [`SimCard::new`] returns
//! [`SimError::CoreUnavailable`].

pub mod axil;
pub mod board;
pub mod ffi;
pub mod hostmem;
pub mod rx;
pub mod state;
pub mod wire;

use thiserror::Error;

pub use ffi::{
    core_unavailable, fingerprint, CoreSize, FlashIn, FlashOut, GateCheckStats, PortsIn, PortsOut,
    Rtl, Width,
};

/// A model of what sits on the core's configuration-flash and ICAP pins (the quad-SPI NOR flash and
/// the FPGA's configuration logic), attached with [`SimCard::attach_flash`]. Called once per clocked
/// cycle with the pins as they are after the edge; what it returns is what the core sees from the
/// next cycle on. Cycles skipped by the idle fast-forward are not shown to it (the core is quiet then:
/// chip select high, nothing on the ICAP), so a model times its busy periods from `now_ps`.
pub trait FlashPins: Send {
    /// One cycle: the pins after the clock edge at simulated time `now_ps`.
    fn cycle(&mut self, now_ps: u64, pins: &FlashOut) -> FlashIn;

    /// True once after the model's configuration logic reconfigured the FPGA (an IPROG): the card
    /// then holds the core in reset for `reset_cycles`, as a freshly configured design starts.
    fn take_reconfigure(&mut self) -> bool {
        false
    }
}
pub use hostmem::{HostMemory, MemStats};
pub use rx::{RxArrival, RxFrame, RxPort, RxStats};
pub use state::{StateError, StateInfo};
pub use wire::{LineRate, Wire, WireFrame, WireStats};

/// Errors of the co-simulation.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SimError {
    /// The RTL is not built in.
    #[error("the Verilated tsnic_core is not built into this binary: {0}")]
    CoreUnavailable(String),
    /// The configuration asks for a width that was not built.
    #[error("the {0:?} configuration of tsnic_core is not built in: build with `--features wide` (tsnic-sim/wide; W256: `--features board`)")]
    WidthNotBuilt(Width),
    /// The small core exists only with 64-bit buses.
    #[error("the small core is built only with 64-bit buses here (10G; 256-bit for comparing `sim:board`; 512-bit with `--features alveo`, for comparing `sim:board=u50`): drop the small size or the 512-bit configuration")]
    SmallNotWide,
    /// A configuration value is out of range.
    #[error("bad simulator configuration: {0}")]
    BadConfig(String),
    /// A BAR0 access got no response.
    #[error("BAR0 {what} at {offset:#x} got no AXI-Lite response in {cycles} cycles: the core is hung or in reset")]
    MmioTimeout {
        /// `read` or `write`.
        what: &'static str,
        /// BAR0 offset.
        offset: u32,
        /// Cycles waited.
        cycles: u64,
    },
}

/// How the simulated machine is set up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Config {
    /// Which Verilated configuration (bus widths).
    pub width: Width,
    /// Which size of the core: the board's (default) or the small one for fast tests.
    pub size: CoreSize,
    /// Line rate of the wire.
    pub line_rate: LineRate,
    /// Core clock period in ps; must match the core's `CLK_FREQ_HZ` (250 MHz: 4000 ps).
    pub clk_period_ps: u64,
    /// Host-memory read latency, address to first data beat, ns (at least one cycle is used).
    pub read_latency_ns: u64,
    /// Host-memory write response latency after the last beat, ns.
    pub write_latency_ns: u64,
    /// Cycles `rst` is held at start.
    pub reset_cycles: u64,
    /// Most cycles a BAR0 access may take before [`SimError::MmioTimeout`].
    pub mmio_timeout_cycles: u64,
    /// Skip idle stretches exactly (see the crate docs); off steps every cycle.
    pub fast_forward: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            width: Width::W64,
            size: CoreSize::Shipped,
            line_rate: LineRate::G10,
            clk_period_ps: 4000,
            read_latency_ns: 800,
            write_latency_ns: 0,
            reset_cycles: 16,
            mmio_timeout_cycles: 100_000,
            fast_forward: true,
        }
    }
}

/// The gated blocks' mode for the shim (`PortsIn::sim_gate`): on with the fast-forward, off without;
/// `TSNIC_SIM_GATE=0` turns it off alone, `TSNIC_SIM_GATE=check` clocks every block and verifies each
/// held cycle, stopping the process at the first change (memories of up to `TSNIC_SIM_GATE_CHECK_MAX`
/// bytes each, default [`GATE_CHECK_MAX_DEFAULT`]; [`SimCard::gate_check`] is the same for a test,
/// recording instead of stopping).
fn gate_mode(fast_forward: bool) -> u64 {
    match std::env::var("TSNIC_SIM_GATE").as_deref() {
        Ok("0") => 0,
        Ok("check") => 2,
        _ => u64::from(fast_forward),
    }
}

impl Config {
    /// The 100G configuration: 512-bit buses, 100 Gb/s wire.
    pub fn wide_100g() -> Self {
        Config {
            width: Width::W512,
            line_rate: LineRate::G100,
            ..Config::default()
        }
    }

    /// The small core (8 queues, 1024 entries, 100 ms horizon), 64-bit, 10G: for tests that want
    /// a short reset and small tables.
    pub fn small() -> Self {
        Config {
            size: CoreSize::Small,
            ..Config::default()
        }
    }

    fn check(&self) -> Result<(), SimError> {
        if self.size == CoreSize::Small && self.width == Width::W512 && !cfg!(tsnic_sim_w512_small)
        {
            // the small 512-bit core is built only for comparing `sim:board=u50` (`alveo` feature)
            return Err(SimError::SmallNotWide);
        }
        if self.size == CoreSize::Shipped && self.width == Width::W256 {
            return Err(SimError::BadConfig(
                "the 256-bit core is built at the small size only (the board core's)".into(),
            ));
        }
        if self.clk_period_ps == 0 {
            return Err(SimError::BadConfig("clk_period_ps must be above 0".into()));
        }
        if self.read_latency_ns == 0 {
            return Err(SimError::BadConfig(
                "read_latency_ns must be above 0: host memory is never instant".into(),
            ));
        }
        let bus_bits = self.width.bytes() as u64 * 8;
        let bus_bps = bus_bits * 1_000_000_000_000 / self.clk_period_ps;
        if bus_bps < self.line_rate.bits_per_s() {
            return Err(SimError::BadConfig(format!(
                "a {bus_bits}-bit stream at {} MHz carries {} Gb/s, less than the {} Gb/s line: use the 512-bit configuration",
                1_000_000 / self.clk_period_ps,
                bus_bps / 1_000_000_000,
                self.line_rate.bits_per_s() / 1_000_000_000
            )));
        }
        Ok(())
    }
}

/// Ordinary cycles after each fast-forward jump, and kept free before every wake time and deadline:
/// registers that follow the PHC through a short pipeline are current again after them.
pub const FF_SETTLE: u64 = 8;

/// The blocks the co-simulation leaves unclocked where they hold, in the order of `sim_gate_hold`'s
/// bits (docs/ARCHITECTURE.md, "Gated blocks").
pub const GATED_BLOCKS: [&str; 6] = [
    "calendar",
    "descriptor fetch",
    "completion writer",
    "flash controller",
    "receive path",
    "register interface",
];

/// The fewest registers the gated blocks' check must compare for each block ([`GATED_BLOCKS`] order)
/// in every cycle it checks: about three quarters of the plain registers (memories not counted)
/// `sim/card/bench/gate_regs.py` finds in each block today (242, 115, 33, 67, 104 and 30 at 64 bits).
/// A list that lost a block's RTL file, a prefix that no longer matches, or a check that compares
/// nothing falls below it (docs/ARCHITECTURE.md, "Gated blocks").
pub const GATE_CHECK_MIN_REGS: [u64; GATED_BLOCKS.len()] = [180, 85, 25, 50, 78, 22];

/// Largest memory the `TSNIC_SIM_GATE=check` mode compares when `TSNIC_SIM_GATE_CHECK_MAX` does not
/// say (bytes; `sim/card/bench/gate_check.sh` compares up to 1000000).
pub const GATE_CHECK_MAX_DEFAULT: u64 = 16384;

impl GateCheckStats {
    /// The check's verdict: no register changed where its block held, every block held (and was
    /// checked) in at least one cycle (if `require_held`: a short run may not give every block a
    /// hold), and each block's list has [`GATE_CHECK_MIN_REGS`] registers or more, all compared in
    /// every checked cycle. The error says which part failed.
    pub fn verdict(&self, require_held: bool) -> Result<(), String> {
        if self.built == 0 {
            return Err("the model was built without the gated blocks' register list (sim/card/build.rs: python3 and bench/gate_regs.py; `make deps`)".into());
        }
        if self.changes > 0 {
            return Err(format!(
                "{} register(s) changed at an edge where their block held; first: {}",
                self.changes, self.first_change
            ));
        }
        for (b, name) in GATED_BLOCKS.iter().enumerate() {
            if self.held[b] == 0 && require_held {
                return Err(format!(
                    "the {name} never held, so its hold was never checked"
                ));
            }
            if self.listed[b] < GATE_CHECK_MIN_REGS[b] {
                return Err(format!(
                    "the check's list has {} registers of the {name}, fewer than the {} required (GATE_CHECK_MIN_REGS): the list lost registers",
                    self.listed[b], GATE_CHECK_MIN_REGS[b]
                ));
            }
            if self.compared[b] != self.held[b] * self.listed[b] {
                return Err(format!(
                    "the {name}: {} registers compared in {} checked cycles, not {} each",
                    self.compared[b], self.held[b], self.listed[b]
                ));
            }
        }
        Ok(())
    }

    /// One line per block: cycles checked and registers compared in each.
    pub fn summary(&self) -> String {
        let mut s = format!(
            "gate check: {} cycles checked (memories up to {} bytes), {} changes\n",
            self.cycles, self.max_bytes, self.changes
        );
        for (b, name) in GATED_BLOCKS.iter().enumerate() {
            s += &format!(
                "gate check: {name}: held in {} cycles, {} registers compared in each (at least {})\n",
                self.held[b], self.listed[b], GATE_CHECK_MIN_REGS[b]
            );
        }
        s
    }
}

/// What the idle fast-forward did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FastForwardStats {
    /// Jumps taken.
    pub jumps: u64,
    /// Cycles covered by jumps (each jump is one clocked cycle plus its extra increments).
    pub cycles: u64,
    /// Per gated block ([`GATED_BLOCKS`]), the clocked cycles in which it was not clocked because it
    /// held (docs/ARCHITECTURE.md, "Gated blocks"; on with the fast-forward; with
    /// `TSNIC_SIM_GATE=check`, the cycles in which it would have held and was checked).
    pub gate_held: [u64; GATED_BLOCKS.len()],
}

/// The simulated card and its surroundings.
pub struct SimCard {
    cfg: Config,
    rtl: Box<dyn Rtl>,
    inp: PortsIn,
    out: PortsOut,
    cycle: u64,
    mem: HostMemory,
    wire: Wire,
    rx: RxPort,
    loopback_ps: Option<u64>,
    axil: axil::AxiLiteMaster,
    irq_edges: u64,
    irq_level: u64,
    ff_settle: u64,
    ff_stats: FastForwardStats,
    flash: Option<Box<dyn FlashPins>>,
    reconfig_left: u64,
}

impl std::fmt::Debug for SimCard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SimCard")
            .field("cfg", &self.cfg)
            .field("cycle", &self.cycle)
            .finish()
    }
}

/// `TSNIC_SIM_GATE=check` (`sim/card/bench/gate_check.sh`): a change already stopped the process;
/// at the end the counts per block are printed, and a list with fewer registers than
/// [`GATE_CHECK_MIN_REGS`] stops it too, non-zero. A block that never held is printed (`held in
/// 0 cycles`) and named on the verdict line as NOT CHECKED: a short command may not give every
/// block a hold; gate_check.sh fails on it.
impl Drop for SimCard {
    fn drop(&mut self) {
        if self.inp.sim_gate != 2 {
            return;
        }
        if let Some(st) = self.rtl.gate_check_stats() {
            eprint!("{}", st.summary());
            match st.verdict(false) {
                Ok(()) => {
                    let never: Vec<&str> = GATED_BLOCKS
                        .iter()
                        .zip(st.held.iter())
                        .filter(|(_, &h)| h == 0)
                        .map(|(n, _)| *n)
                        .collect();
                    if never.is_empty() {
                        eprintln!(
                            "gate check: passed, every gated register unchanged where its block held"
                        );
                    } else {
                        // not a failure of the design: this command gave those blocks no hold
                        eprintln!(
                            "gate check: passed for {} of {} blocks; NOT CHECKED (never held in this run): {}",
                            GATED_BLOCKS.len() - never.len(),
                            GATED_BLOCKS.len(),
                            never.join(", ")
                        );
                    }
                }
                Err(why) => {
                    eprintln!("gate check: FAILED: {why}");
                    std::process::abort();
                }
            }
        }
    }
}

impl SimCard {
    /// Build the Verilated core in `cfg.width`, hold it in reset for `cfg.reset_cycles` and release it.
    pub fn new(cfg: Config) -> Result<SimCard, SimError> {
        let mut card = SimCard::unreset(cfg)?;
        card.reset(cfg.reset_cycles);
        Ok(card)
    }

    /// The Verilated core in `cfg.width` with the models around it, not yet reset (for a restore).
    fn unreset(cfg: Config) -> Result<SimCard, SimError> {
        cfg.check()?;
        #[cfg(tsnic_sim_no_core)]
        {
            Err(SimError::CoreUnavailable(
                core_unavailable().unwrap_or("unknown reason").to_string(),
            ))
        }
        #[cfg(not(tsnic_sim_no_core))]
        {
            let rtl = ffi::Verilated::new(cfg.width, cfg.size)
                .ok_or(SimError::WidthNotBuilt(cfg.width))?;
            Ok(SimCard::assemble(cfg, Box::new(rtl)))
        }
    }

    /// Build around any [`Rtl`] (the Verilated core in another configuration).
    pub fn with_rtl(cfg: Config, rtl: Box<dyn Rtl>) -> Result<SimCard, SimError> {
        cfg.check()?;
        let mut card = SimCard::assemble(cfg, rtl);
        card.reset(cfg.reset_cycles);
        Ok(card)
    }

    fn assemble(cfg: Config, mut rtl: Box<dyn Rtl>) -> SimCard {
        let cyc = |ns: u64| (ns * 1000).div_ceil(cfg.clk_period_ps);
        let sim_gate = gate_mode(cfg.fast_forward);
        if sim_gate == 2 {
            let max = std::env::var("TSNIC_SIM_GATE_CHECK_MAX")
                .ok()
                .and_then(|v| v.parse().ok())
                .unwrap_or(GATE_CHECK_MAX_DEFAULT);
            rtl.gate_check_setup(max);
        }
        SimCard {
            cfg,
            rtl,
            inp: PortsIn {
                sim_gate,
                ..PortsIn::default()
            },
            out: PortsOut::default(),
            cycle: 0,
            mem: HostMemory::new(
                cfg.width.bytes(),
                cyc(cfg.read_latency_ns).max(1),
                cyc(cfg.write_latency_ns),
            ),
            wire: Wire::new(cfg.line_rate, cfg.width.bytes()),
            rx: RxPort::new(cfg.line_rate, cfg.width.bytes()),
            loopback_ps: None,
            axil: axil::AxiLiteMaster::new(),
            irq_edges: 0,
            irq_level: 0,
            ff_settle: 0,
            ff_stats: FastForwardStats::default(),
            flash: None,
            reconfig_left: 0,
        }
    }

    /// Hold `rst` for `cycles` cycles, then release it.
    pub fn reset(&mut self, cycles: u64) {
        self.inp.rst = 1;
        self.run(cycles.max(1));
        self.inp.rst = 0;
    }

    /// Attach a flash/configuration model to the core's flash and ICAP pins (replacing one attached
    /// before, which is returned).
    pub fn attach_flash(
        &mut self,
        flash: Box<dyn FlashPins>,
    ) -> Result<Option<Box<dyn FlashPins>>, SimError> {
        if !self.rtl.flash_io(None, None) {
            return Err(SimError::BadConfig(
                "this core model has no configuration-flash pins".to_string(),
            ));
        }
        Ok(self.flash.replace(flash))
    }

    /// Detach the flash model (to save its contents), leaving the pins pulled up as with none.
    pub fn detach_flash(&mut self) -> Option<Box<dyn FlashPins>> {
        let f = self.flash.take();
        if f.is_some() {
            self.rtl.flash_io(Some(&FlashIn::default()), None);
        }
        f
    }

    /// The attached flash model, if any.
    pub fn flash_mut(&mut self) -> Option<&mut (dyn FlashPins + 'static)> {
        self.flash.as_deref_mut()
    }

    /// The configuration.
    pub fn config(&self) -> &Config {
        &self.cfg
    }

    /// One core clock cycle.
    #[inline]
    pub fn step(&mut self) {
        self.clock_cycle(0);
    }

    /// One clocked cycle that carries the PHC `extra` increments beyond its own (0: a plain cycle).
    #[inline]
    fn clock_cycle(&mut self, extra: u64) {
        let now_ps = self.cycle * self.cfg.clk_period_ps;
        if self.reconfig_left > 0 {
            // the FPGA was reconfigured (see FlashPins::take_reconfigure): the core in reset
            self.reconfig_left -= 1;
            if self.reconfig_left == 0 {
                self.inp.rst = 0;
            }
        }
        self.mem.drive(&mut self.inp, self.cycle);
        self.wire.drive(&mut self.inp, now_ps);
        self.rx.drive(&mut self.inp, now_ps);
        self.axil.drive(&mut self.inp);
        self.inp.sim_ff_warp = extra;
        // (not self.out.irq: a look ahead may have overwritten the previous cycle's outputs)
        let irq_before = self.irq_level;
        self.rtl.step(&self.inp, &mut self.out);
        // (with the check, sim_gate 2, the cycles in which a block would hold and was checked)
        if self.inp.sim_gate != 0 && self.out.sim_gate_hold != 0 {
            for (i, n) in self.ff_stats.gate_held.iter_mut().enumerate() {
                *n += (self.out.sim_gate_hold >> i) & 1;
            }
        }
        self.irq_level = self.out.irq;
        self.inp.sim_ff_warp = 0;
        self.mem.clock(&self.inp, &self.out, self.cycle);
        self.wire.clock(&self.inp, &self.out, self.cycle, now_ps);
        self.rx.clock(&self.inp, &self.out, self.cycle, now_ps);
        if let Some(delay) = self.loopback_ps {
            for f in self.wire.take_looped() {
                self.rx.inject(RxFrame {
                    bytes: f.bytes,
                    at_ps: f.start_ps + delay,
                    bad: f.errored,
                });
            }
        }
        self.axil.clock(&self.inp, &self.out, self.cycle);
        if irq_before == 0 && self.out.irq == 1 {
            self.irq_edges += 1;
        }
        if let Some(flash) = self.flash.as_mut() {
            let mut pins = FlashOut::default();
            self.rtl.flash_io(None, Some(&mut pins));
            let answer = flash.cycle(now_ps + self.cfg.clk_period_ps * (1 + extra), &pins);
            self.rtl.flash_io(Some(&answer), None);
            if flash.take_reconfigure() {
                self.inp.rst = 1;
                self.reconfig_left = self.cfg.reset_cycles.max(1) + 1;
            }
        }
        self.cycle += 1 + extra;
        self.ff_settle = self.ff_settle.saturating_sub(1);
    }

    /// Jump over idle cycles, ending [`FF_SETTLE`] cycles before `limit_cycle` and before the core's
    /// wake time; true if it did. The core must be quiet in the very cycle of the jump (checked with
    /// a look ahead), the models idle, and the last jump [`FF_SETTLE`] cycles back.
    fn try_fast_forward(&mut self, limit_cycle: u64) -> bool {
        // a frame arriving on the RX line is an event the core cannot predict: never jump over it
        let limit_cycle = match self.rx.next_start_ps() {
            Some(ps) => limit_cycle.min(ps / self.cfg.clk_period_ps),
            None => limit_cycle,
        };
        if !self.cfg.fast_forward
            || self.rx.in_progress()
            || self.ff_settle > 0
            || self.out.sim_ff_quiet == 0
            || self.inp.rst != 0
            || limit_cycle < self.cycle + 4 * FF_SETTLE
            || self.mem.busy()
            || self.axil.busy()
            || self.wire.busy(self.now_ps())
        {
            return false;
        }
        // The previous cycle's wake time is this cycle's while quiet: no look ahead (an evaluation of
        // the model) when it is too close to allow a jump.
        if Self::ff_steps_before(&self.out) < 4 * FF_SETTLE {
            return false;
        }
        let now_ps = self.now_ps();
        self.mem.drive(&mut self.inp, self.cycle);
        self.wire.drive(&mut self.inp, now_ps);
        self.rx.drive(&mut self.inp, now_ps);
        self.axil.drive(&mut self.inp);
        self.inp.sim_ff_warp = 0;
        self.rtl.peek(&self.inp, &mut self.out);
        if self.out.sim_ff_quiet == 0 {
            return false;
        }
        let n = Self::ff_steps_before(&self.out)
            .min(limit_cycle - self.cycle)
            .saturating_sub(2 * FF_SETTLE)
            .min(u64::from(u32::MAX) + 1);
        if n < 2 * FF_SETTLE {
            return false;
        }
        // Longer than the core allows in one edge (its calendar's scan crosses at most one occupancy
        // word per cycle, two every three while catching up): in chunks, one clock edge each.
        let chunk = match self.out.sim_ff_chunk_ns {
            u64::MAX => u64::MAX,
            ns => {
                let c = (u128::from(ns) << 48) / u128::from(self.out.sim_ff_inc.max(1));
                u64::try_from(c).unwrap_or(u64::MAX).max(1)
            }
        };
        let mut left = n;
        while left > 0 {
            let c = left.min(chunk);
            self.clock_cycle(c - 1);
            left -= c;
        }
        self.ff_settle = FF_SETTLE;
        self.ff_stats.jumps += 1;
        self.ff_stats.cycles += n;
        true
    }

    /// PHC increments that keep the PHC of the cycle `out` describes below its wake time: after n
    /// increments it shows less than phc + 1 + n * inc / 2^48 ns (its fraction is below 1 ns).
    fn ff_steps_before(out: &PortsOut) -> u64 {
        let (wake, phc, inc) = (out.sim_ff_wake_ns, out.sim_ff_phc_ns, out.sim_ff_inc);
        if inc == 0 || wake <= phc.saturating_add(1) {
            return 0;
        }
        let n = (u128::from(wake - phc - 1) << 48) / u128::from(inc);
        u64::try_from(n).unwrap_or(u64::MAX)
    }

    /// `n` core clock cycles.
    pub fn run(&mut self, n: u64) {
        let end = self.cycle.saturating_add(n);
        while self.cycle < end {
            if !self.try_fast_forward(end) {
                self.step();
            }
        }
    }

    /// Run until simulated time reaches `ps` (no-op if it already has).
    pub fn run_until_ps(&mut self, ps: u64) {
        let end = ps.div_ceil(self.cfg.clk_period_ps);
        self.run(end.saturating_sub(self.cycle));
    }

    /// Run until the interrupt line rises or simulated time reaches `ps`; true if it rose (it is then
    /// high in the last cycle run).
    pub fn run_until_irq_or_ps(&mut self, ps: u64) -> bool {
        let end = ps.div_ceil(self.cfg.clk_period_ps);
        while self.cycle < end {
            // With the line already high the first cycle returns: no jump before it.
            if self.out.irq == 1 || !self.try_fast_forward(end) {
                self.step();
            }
            if self.out.irq == 1 {
                return true;
            }
        }
        false
    }

    /// What the idle fast-forward has done so far.
    pub fn fast_forward_stats(&self) -> FastForwardStats {
        self.ff_stats
    }

    /// Check the gated blocks from here on instead of gating them: every block is clocked in every
    /// cycle, and in each cycle where one would hold, all its registers in the check's list (and its
    /// memories of up to `max_bytes` each) are compared across the edge; a change is recorded, not
    /// fatal ([`SimCard::gate_check_stats`], [`GateCheckStats::verdict`]). Counts start at 0.
    pub fn gate_check(&mut self, max_bytes: u64) -> Result<(), SimError> {
        if !self.rtl.gate_check_setup(max_bytes) {
            return Err(SimError::BadConfig(
                "this core model has no gated blocks' check".into(),
            ));
        }
        self.inp.sim_gate = 3;
        Ok(())
    }

    /// What the gated blocks' check found so far (`None`: the model has none).
    pub fn gate_check_stats(&mut self) -> Option<GateCheckStats> {
        self.rtl.gate_check_stats()
    }

    /// Cycles simulated so far (reset included).
    pub fn cycle(&self) -> u64 {
        self.cycle
    }

    /// Simulated time in ps since the start: the clock edge of the next cycle.
    pub fn now_ps(&self) -> u64 {
        self.cycle * self.cfg.clk_period_ps
    }

    fn mmio(&mut self, access: axil::Access) -> Result<u32, SimError> {
        self.axil.start(access, self.cycle);
        let start = self.cycle;
        loop {
            self.step();
            if let Some(d) = self.axil.take_done() {
                return Ok(d.data);
            }
            if self.cycle - start > self.cfg.mmio_timeout_cycles {
                // Abandon the access: a fresh master for the next one.
                self.axil = axil::AxiLiteMaster::new();
                let (what, offset) = match access {
                    axil::Access::Read(o) => ("read", o),
                    axil::Access::Write(o, _) => ("write", o),
                };
                return Err(SimError::MmioTimeout {
                    what,
                    offset,
                    cycles: self.cfg.mmio_timeout_cycles,
                });
            }
        }
    }

    /// Read the 32-bit BAR0 register at byte `offset` (simulated time advances by the access).
    pub fn mmio_read(&mut self, offset: u32) -> Result<u32, SimError> {
        self.mmio(axil::Access::Read(offset))
    }

    /// Write the 32-bit BAR0 register at byte `offset` (completes at the write response).
    pub fn mmio_write(&mut self, offset: u32, value: u32) -> Result<(), SimError> {
        self.mmio(axil::Access::Write(offset, value)).map(|_| ())
    }

    /// Host memory (the driver's DMA regions).
    pub fn mem(&self) -> &HostMemory {
        &self.mem
    }

    /// Host memory, writable.
    pub fn mem_mut(&mut self) -> &mut HostMemory {
        &mut self.mem
    }

    /// The wire.
    pub fn wire(&self) -> &Wire {
        &self.wire
    }

    /// The wire, to take its frames.
    pub fn wire_mut(&mut self) -> &mut Wire {
        &mut self.wire
    }

    /// Queue a frame to arrive on the RX line at simulated time `at_ps` (its preamble; the line may
    /// push it later behind a frame still arriving). `bad`: the MAC flags it (FCS error).
    pub fn rx_inject(&mut self, bytes: Vec<u8>, at_ps: u64, bad: bool) {
        self.rx.inject(RxFrame { bytes, at_ps, bad });
    }

    /// Loop the TX wire back into the RX line: every frame sent from now on arrives `delay_ps` after
    /// it started on the TX wire (`None`: off, the default). A frame is looped at its last beat, so
    /// the delay must exceed the longest frame's wire time (1.2 us for 1514 bytes at 10G), or the
    /// frame arrives late (counted in [`RxStats::late_injections`]).
    pub fn set_loopback(&mut self, delay_ps: Option<u64>) {
        self.loopback_ps = delay_ps;
        self.wire.set_loop(delay_ps.is_some());
    }

    /// The RX line.
    pub fn rx(&self) -> &RxPort {
        &self.rx
    }

    /// The RX line, to take its arrival records.
    pub fn rx_mut(&mut self) -> &mut RxPort {
        &mut self.rx
    }

    /// The interrupt line as sampled in the last cycle.
    pub fn irq(&self) -> bool {
        self.out.irq == 1
    }

    /// Rising edges of the interrupt line so far.
    pub fn irq_edges(&self) -> u64 {
        self.irq_edges
    }

    /// The PHC as the core shows it now, without an MMIO read (which would take simulated time):
    /// its whole ns (`sim_ff_phc_ns`, the value held since the last clock edge) and the increment
    /// per cycle in 16.48 ns (`sim_ff_inc`). For observers of the simulation, e.g. the true offset
    /// between two simulated cards (`tsnic::ptp::pair`).
    pub fn phc_port(&self) -> (u64, u64) {
        (self.out.sim_ff_phc_ns, self.out.sim_ff_inc)
    }

    /// The PPS output as sampled in the last cycle.
    pub fn pps(&self) -> bool {
        self.out.pps == 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_checks() {
        assert!(Config::default().check().is_ok());
        assert!(Config::wide_100g().check().is_ok());
        let zero = Config {
            read_latency_ns: 0,
            ..Config::default()
        };
        assert!(matches!(zero.check(), Err(SimError::BadConfig(m)) if m.contains("never instant")));
        let slow = Config {
            line_rate: LineRate::G100,
            ..Config::default()
        };
        assert!(matches!(slow.check(), Err(SimError::BadConfig(m)) if m.contains("512-bit")));
    }

    #[test]
    fn new_reports_why_the_core_is_missing() {
        match (SimCard::new(Config::default()), core_unavailable()) {
            (Err(SimError::CoreUnavailable(why)), Some(reason)) => assert_eq!(why, reason),
            (Ok(_), None) => {}
            (r, u) => panic!("inconsistent: {r:?} / {u:?}"),
        }
    }
}
