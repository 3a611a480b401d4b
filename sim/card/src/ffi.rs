//! The port image exchanged with the C++ shim once per cycle, and the Verilated core behind it.
//!
//! This module is the crate's only `unsafe` code: the calls into the shim.

/// Words of a wide (up to 512-bit) bus: word 0 holds bits 63:0.
pub const WIDE_WORDS: usize = 8;

/// Inputs of `tsnic_core` for one cycle (mirrors `csrc/ports.h`: every field a u64).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PortsIn {
    pub rst: u64,
    pub s_axil_awaddr: u64,
    pub s_axil_awprot: u64,
    pub s_axil_awvalid: u64,
    pub s_axil_wdata: u64,
    pub s_axil_wstrb: u64,
    pub s_axil_wvalid: u64,
    pub s_axil_bready: u64,
    pub s_axil_araddr: u64,
    pub s_axil_arprot: u64,
    pub s_axil_arvalid: u64,
    pub s_axil_rready: u64,
    pub m_axi_awready: u64,
    pub m_axi_wready: u64,
    pub m_axi_bid: u64,
    pub m_axi_bresp: u64,
    pub m_axi_bvalid: u64,
    pub m_axi_arready: u64,
    pub m_axi_rid: u64,
    pub m_axi_rresp: u64,
    pub m_axi_rlast: u64,
    pub m_axi_rvalid: u64,
    pub m_axi_rdata: [u64; WIDE_WORDS],
    pub m_axis_tx_tready: u64,
    /// The MAC's line-start report (tsnic_core `TX_MAC_LAG = 1`): a frame it took started on the line
    /// this many ns after its first beat's handshake; one per frame, in order.
    pub s_mac_tx_lag_valid: u64,
    /// The lag, ns.
    pub s_mac_tx_lag_ns: u64,
    /// RX AXI-Stream from the MAC model.
    pub s_axis_rx_tdata: [u64; WIDE_WORDS],
    pub s_axis_rx_tkeep: u64,
    pub s_axis_rx_tvalid: u64,
    pub s_axis_rx_tlast: u64,
    /// Bit 0: bad frame (FCS error); bits 64:1 the MAC's stamp (unused: the core stamps itself).
    pub s_axis_rx_tuser: [u64; 2],
    /// Idle fast-forward: extra PHC increments folded into this cycle (0: a normal cycle).
    pub sim_ff_warp: u64,
    /// Gated blocks: 0 every block clocked in every cycle, 1 a holding block not clocked, 2 check
    /// (clocked, and each held cycle verified; the process stops at a change), 3 the same check
    /// recording changes ([`Rtl::gate_check_stats`]).
    pub sim_gate: u64,
}

/// Outputs of `tsnic_core` in one cycle, sampled before the clock edge (mirrors `csrc/ports.h`).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PortsOut {
    pub s_axil_awready: u64,
    pub s_axil_wready: u64,
    pub s_axil_bresp: u64,
    pub s_axil_bvalid: u64,
    pub s_axil_arready: u64,
    pub s_axil_rdata: u64,
    pub s_axil_rresp: u64,
    pub s_axil_rvalid: u64,
    pub m_axi_awid: u64,
    pub m_axi_awaddr: u64,
    pub m_axi_awlen: u64,
    pub m_axi_awsize: u64,
    pub m_axi_awburst: u64,
    pub m_axi_awvalid: u64,
    pub m_axi_wstrb: u64,
    pub m_axi_wlast: u64,
    pub m_axi_wvalid: u64,
    pub m_axi_bready: u64,
    pub m_axi_arid: u64,
    pub m_axi_araddr: u64,
    pub m_axi_arlen: u64,
    pub m_axi_arsize: u64,
    pub m_axi_arburst: u64,
    pub m_axi_arvalid: u64,
    pub m_axi_rready: u64,
    pub m_axi_wdata: [u64; WIDE_WORDS],
    pub m_axis_tx_tdata: [u64; WIDE_WORDS],
    pub m_axis_tx_tkeep: u64,
    pub m_axis_tx_tvalid: u64,
    pub m_axis_tx_tlast: u64,
    pub m_axis_tx_tuser: u64,
    pub irq: u64,
    pub pps: u64,
    pub s_axis_rx_tready: u64,
    /// Idle fast-forward: nothing but time-following state changes before `sim_ff_wake_ns`.
    pub sim_ff_quiet: u64,
    /// PHC time at which something in the core may happen.
    pub sim_ff_wake_ns: u64,
    /// PHC time of this cycle.
    pub sim_ff_phc_ns: u64,
    /// PHC increment per cycle, 16.48 fixed-point ns.
    pub sim_ff_inc: u64,
    /// Longest single jump that stays exact, ns (all ones: any).
    pub sim_ff_chunk_ns: u64,
    /// Gated blocks holding in this cycle (their gated registers keep their values), one bit each in
    /// the order of [`crate::GATED_BLOCKS`].
    pub sim_gate_hold: u64,
}

/// Byte `i` (0 = bits 7:0) of a wide bus.
#[inline]
pub fn wide_byte(words: &[u64; WIDE_WORDS], i: usize) -> u8 {
    (words[i / 8] >> (8 * (i % 8))) as u8
}

/// Set byte `i` of a wide bus.
#[inline]
pub fn set_wide_byte(words: &mut [u64; WIDE_WORDS], i: usize, v: u8) {
    let sh = 8 * (i % 8);
    words[i / 8] = (words[i / 8] & !(0xffu64 << sh)) | ((v as u64) << sh);
}

/// What the configuration flash and the ICAP drive into the core (mirrors `tsnic_sim_flash_in`).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FlashIn {
    /// Bits 3:0: the level on DQ3..DQ0 (1 where nothing drives: the board's pull-ups).
    pub qspi_dq_i: u64,
    /// 1: the core may change its ICAP outputs this cycle (the ICAP's clock enable).
    pub icap_ce: u64,
    /// ICAP read data (configuration words as the user guides print them).
    pub icap_o: u64,
}

impl Default for FlashIn {
    /// What the shim drives when nothing is attached: DQ pulled up, ICAP enabled, reading 0.
    fn default() -> Self {
        FlashIn {
            qspi_dq_i: 0xf,
            icap_ce: 1,
            icap_o: 0,
        }
    }
}

/// The core's configuration-flash and ICAP pins after a clock edge (mirrors `tsnic_sim_flash_out`).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FlashOut {
    /// SPI clock level.
    pub qspi_clk: u64,
    /// Chip select, active low.
    pub qspi_cs_n: u64,
    /// Bits 3:0: what the core drives on DQ3..DQ0 where `qspi_dq_oe` is set.
    pub qspi_dq_o: u64,
    /// Bits 3:0: output enables.
    pub qspi_dq_oe: u64,
    /// ICAP chip select, active low.
    pub icap_csib: u64,
    /// ICAP direction: 1 read, 0 write.
    pub icap_rdwrb: u64,
    /// ICAP write data.
    pub icap_i: u64,
}

/// Something that behaves like `tsnic_core` for one clock cycle: the Verilated model.
pub trait Rtl {
    /// One core clock cycle: apply `inp`, let combinational paths settle, write the pre-edge outputs
    /// into `out`, then clock the registers.
    fn step(&mut self, inp: &PortsIn, out: &mut PortsOut);

    /// The first half of [`Rtl::step`]: apply `inp` and write the outputs of the cycle, without the
    /// clock edge. A model that cannot look ahead reports itself never quiet, so nothing is skipped.
    fn peek(&mut self, inp: &PortsIn, out: &mut PortsOut) {
        let _ = inp;
        out.sim_ff_quiet = 0;
    }

    /// The configuration-flash/ICAP pins: write the levels after the last clock edge into `out` (if
    /// given), then take `inp` (if given) as the inputs from the next cycle on. False: this model has
    /// no such pins (nothing was read or written).
    fn flash_io(&mut self, inp: Option<&FlashIn>, out: Option<&mut FlashOut>) -> bool {
        let _ = (inp, out);
        false
    }

    /// Start the gated blocks' check afresh (`PortsIn::sim_gate` 2 or 3 runs it), comparing memories
    /// of up to `max_bytes` each. False: this model has no check.
    fn gate_check_setup(&mut self, max_bytes: u64) -> bool {
        let _ = max_bytes;
        false
    }

    /// What the gated blocks' check did so far. `None`: this model has no check.
    fn gate_check_stats(&mut self) -> Option<GateCheckStats> {
        None
    }

    /// Fingerprint of the model's build (see `build.rs`): state saved by one model is only restored
    /// into a model with the same fingerprint. `None`: this model cannot be saved.
    fn fingerprint(&self) -> Option<&'static str> {
        None
    }

    /// Append the model's whole state (every register and memory) to `out`.
    fn save(&mut self, _out: &mut Vec<u8>) -> Result<(), RtlStateError> {
        Err(RtlStateError::Unsupported)
    }

    /// Load state written by [`Rtl::save`] of a model with the same fingerprint.
    fn restore(&mut self, _data: &[u8]) -> Result<(), RtlStateError> {
        Err(RtlStateError::Unsupported)
    }
}

/// Why the model's state could not be saved or restored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RtlStateError {
    /// The model has no save/restore.
    Unsupported,
    /// The state is not the size this model serializes to.
    Size,
    /// Verilator's model check value differs: saved by another model.
    CheckValue,
    /// The state was not consumed exactly.
    Length,
}

impl std::fmt::Display for RtlStateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            RtlStateError::Unsupported => "this model cannot be saved or restored",
            RtlStateError::Size => "the model state is not the size this model saves",
            RtlStateError::CheckValue => {
                "the model state was saved by another model (Verilator check value)"
            }
            RtlStateError::Length => "the model state was not read exactly to its end",
        })
    }
}

/// What the gated blocks' check did (csrc/shim.cpp; docs/ARCHITECTURE.md, "Gated blocks"), per block
/// in the order of `sim_gate_hold`'s bits (`crate::GATED_BLOCKS`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct GateCheckStats {
    /// Cycles in which the block would have held and was checked.
    pub held: [u64; 6],
    /// Registers compared for the block, summed over those cycles.
    pub compared: [u64; 6],
    /// The block's registers in the check's list (memories up to the limit).
    pub listed: [u64; 6],
    /// Registers found changed at an edge where their block held (0: every hold was right).
    pub changes: u64,
    /// Cycles checked (any block holding).
    pub cycles: u64,
    /// Largest memory compared, bytes.
    pub max_bytes: u64,
    /// Registers in this build's list, all blocks, memories of any size (0: the list was not made).
    pub built: u64,
    /// The first change: the register and the checked cycle ("" if none).
    pub first_change: String,
}

impl GateCheckStats {
    #[cfg_attr(tsnic_sim_no_core, allow(dead_code))]
    fn from_words(w: &[u64; 22], first: &[u8]) -> GateCheckStats {
        let arr = |o: usize| std::array::from_fn(|i| w[o + i]);
        let end = first.iter().position(|&c| c == 0).unwrap_or(first.len());
        GateCheckStats {
            held: arr(0),
            compared: arr(6),
            listed: arr(12),
            changes: w[18],
            cycles: w[19],
            max_bytes: w[20],
            built: w[21],
            first_change: String::from_utf8_lossy(&first[..end]).into_owned(),
        }
    }
}

/// The fingerprint of the built configuration `width` (a hash of the Verilator version and the C++ it
/// generated from the RTL), or `None` when it is not built in.
pub fn fingerprint(width: Width, size: CoreSize) -> Option<&'static str> {
    match (width, size) {
        (Width::W64, CoreSize::Shipped) => option_env!("TSNIC_SIM_FINGERPRINT_W64"),
        (Width::W64, CoreSize::Small) => option_env!("TSNIC_SIM_FINGERPRINT_W64_SMALL"),
        (Width::W512, CoreSize::Shipped) => option_env!("TSNIC_SIM_FINGERPRINT_W512"),
        (Width::W512, CoreSize::Small) => option_env!("TSNIC_SIM_FINGERPRINT_W512_SMALL"),
        (Width::W256, CoreSize::Small) => option_env!("TSNIC_SIM_FINGERPRINT_W256_SMALL"),
        (Width::W256, CoreSize::Shipped) => None,
    }
}

macro_rules! port_words {
    ($t:ty) => {
        impl $t {
            /// Words of the port image (every field is a u64, in declaration order).
            pub const WORDS: usize = std::mem::size_of::<$t>() / 8;

            /// The port image as words.
            pub fn to_words(&self) -> Vec<u64> {
                // SAFETY: the type is #[repr(C)] with only u64 and [u64; N] fields, so it is exactly
                // WORDS u64s with no padding (a test pins the size) and u64-aligned; the slice borrows
                // `self` for the copy only.
                unsafe { std::slice::from_raw_parts(self as *const $t as *const u64, Self::WORDS) }
                    .to_vec()
            }

            /// A port image from words (`None` unless exactly [`Self::WORDS`] of them).
            pub fn from_words(words: &[u64]) -> Option<$t> {
                if words.len() != Self::WORDS {
                    return None;
                }
                let mut p = <$t>::default();
                // SAFETY: as in `to_words`: WORDS u64s with no padding, and every bit pattern is a
                // valid u64; `p` is a local we own exclusively.
                unsafe {
                    std::slice::from_raw_parts_mut(&mut p as *mut $t as *mut u64, Self::WORDS)
                }
                .copy_from_slice(words);
                Some(p)
            }
        }
    };
}
port_words!(PortsIn);
port_words!(PortsOut);
port_words!(crate::board::ffi::BoardIn);
port_words!(crate::board::ffi::BoardOut);

/// Which Verilated configuration to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Width {
    /// 64-bit AXI4 and AXI-Stream (10G).
    #[default]
    W64,
    /// 512-bit AXI4 and AXI-Stream (100G); built with the `wide` feature.
    W512,
    /// 256-bit AXI4 and AXI-Stream, small size only: the core as the SUME's board core has it, to
    /// compare `sim:board` against; built with the `board` feature.
    W256,
}

impl Width {
    /// Bus width in bytes.
    pub fn bytes(self) -> usize {
        match self {
            Width::W64 => 8,
            Width::W512 => 64,
            Width::W256 => 32,
        }
    }
}

/// Which size of the core to run (queues, descriptor-table entries, calendar, horizon).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CoreSize {
    /// The board build: 4096 queues, 65536 entries, 8192 fine slots, 65536 coarse slots, 10 s
    /// horizon.
    #[default]
    Shipped,
    /// The core's own defaults, for tests that want a small card: 8 queues, 1024 entries, 1024 fine
    /// slots, 4096 coarse slots, 100 ms horizon. Built for the 64-bit configuration only.
    Small,
}

impl CoreSize {
    /// The name used on the command line (`sim:small`).
    pub fn name(self) -> &'static str {
        match self {
            CoreSize::Shipped => "shipped",
            CoreSize::Small => "small",
        }
    }
}

#[cfg(not(tsnic_sim_no_core))]
mod verilated {
    use super::{
        fingerprint, CoreSize, FlashIn, FlashOut, GateCheckStats, PortsIn, PortsOut, Rtl,
        RtlStateError, Width,
    };
    use std::ffi::c_void;

    type Sink = unsafe extern "C" fn(*mut c_void, *const u8, usize);

    extern "C" {
        fn tsnic_sim_w64_new() -> *mut c_void;
        fn tsnic_sim_w64_free(h: *mut c_void);
        fn tsnic_sim_w64_step(h: *mut c_void, inp: *const PortsIn, out: *mut PortsOut);
        fn tsnic_sim_w64_peek(h: *mut c_void, inp: *const PortsIn, out: *mut PortsOut);
        fn tsnic_sim_w64_save(h: *mut c_void, ctx: *mut c_void, sink: Sink) -> usize;
        fn tsnic_sim_w64_restore(h: *mut c_void, data: *const u8, len: usize) -> i32;
        fn tsnic_sim_w64_flash_io(h: *mut c_void, inp: *const FlashIn, out: *mut FlashOut);
        fn tsnic_sim_w64_gate_check_setup(h: *mut c_void, max_bytes: u64);
        fn tsnic_sim_w64_gate_check_stats(
            h: *mut c_void,
            out: *mut u64,
            first: *mut u8,
            cap: usize,
        );
        fn tsnic_sim_w64_small_new() -> *mut c_void;
        fn tsnic_sim_w64_small_free(h: *mut c_void);
        fn tsnic_sim_w64_small_step(h: *mut c_void, inp: *const PortsIn, out: *mut PortsOut);
        fn tsnic_sim_w64_small_peek(h: *mut c_void, inp: *const PortsIn, out: *mut PortsOut);
        fn tsnic_sim_w64_small_save(h: *mut c_void, ctx: *mut c_void, sink: Sink) -> usize;
        fn tsnic_sim_w64_small_restore(h: *mut c_void, data: *const u8, len: usize) -> i32;
        fn tsnic_sim_w64_small_flash_io(h: *mut c_void, inp: *const FlashIn, out: *mut FlashOut);
        fn tsnic_sim_w64_small_gate_check_setup(h: *mut c_void, max_bytes: u64);
        fn tsnic_sim_w64_small_gate_check_stats(
            h: *mut c_void,
            out: *mut u64,
            first: *mut u8,
            cap: usize,
        );
    }
    #[cfg(tsnic_sim_w512)]
    extern "C" {
        fn tsnic_sim_w512_new() -> *mut c_void;
        fn tsnic_sim_w512_free(h: *mut c_void);
        fn tsnic_sim_w512_step(h: *mut c_void, inp: *const PortsIn, out: *mut PortsOut);
        fn tsnic_sim_w512_peek(h: *mut c_void, inp: *const PortsIn, out: *mut PortsOut);
        fn tsnic_sim_w512_save(h: *mut c_void, ctx: *mut c_void, sink: Sink) -> usize;
        fn tsnic_sim_w512_restore(h: *mut c_void, data: *const u8, len: usize) -> i32;
        fn tsnic_sim_w512_flash_io(h: *mut c_void, inp: *const FlashIn, out: *mut FlashOut);
        fn tsnic_sim_w512_gate_check_setup(h: *mut c_void, max_bytes: u64);
        fn tsnic_sim_w512_gate_check_stats(
            h: *mut c_void,
            out: *mut u64,
            first: *mut u8,
            cap: usize,
        );
    }

    #[cfg(tsnic_sim_w512_small)]
    extern "C" {
        fn tsnic_sim_w512_small_new() -> *mut c_void;
        fn tsnic_sim_w512_small_free(h: *mut c_void);
        fn tsnic_sim_w512_small_step(h: *mut c_void, inp: *const PortsIn, out: *mut PortsOut);
        fn tsnic_sim_w512_small_peek(h: *mut c_void, inp: *const PortsIn, out: *mut PortsOut);
        fn tsnic_sim_w512_small_save(h: *mut c_void, ctx: *mut c_void, sink: Sink) -> usize;
        fn tsnic_sim_w512_small_restore(h: *mut c_void, data: *const u8, len: usize) -> i32;
        fn tsnic_sim_w512_small_flash_io(h: *mut c_void, inp: *const FlashIn, out: *mut FlashOut);
        fn tsnic_sim_w512_small_gate_check_setup(h: *mut c_void, max_bytes: u64);
        fn tsnic_sim_w512_small_gate_check_stats(
            h: *mut c_void,
            out: *mut u64,
            first: *mut u8,
            cap: usize,
        );
    }

    #[cfg(tsnic_sim_w256_small)]
    extern "C" {
        fn tsnic_sim_w256_small_new() -> *mut c_void;
        fn tsnic_sim_w256_small_free(h: *mut c_void);
        fn tsnic_sim_w256_small_step(h: *mut c_void, inp: *const PortsIn, out: *mut PortsOut);
        fn tsnic_sim_w256_small_peek(h: *mut c_void, inp: *const PortsIn, out: *mut PortsOut);
        fn tsnic_sim_w256_small_save(h: *mut c_void, ctx: *mut c_void, sink: Sink) -> usize;
        fn tsnic_sim_w256_small_restore(h: *mut c_void, data: *const u8, len: usize) -> i32;
        fn tsnic_sim_w256_small_flash_io(h: *mut c_void, inp: *const FlashIn, out: *mut FlashOut);
        fn tsnic_sim_w256_small_gate_check_setup(h: *mut c_void, max_bytes: u64);
        fn tsnic_sim_w256_small_gate_check_stats(
            h: *mut c_void,
            out: *mut u64,
            first: *mut u8,
            cap: usize,
        );
    }

    type StepFn = unsafe extern "C" fn(*mut c_void, *const PortsIn, *mut PortsOut);
    type FreeFn = unsafe extern "C" fn(*mut c_void);
    type SaveFn = unsafe extern "C" fn(*mut c_void, *mut c_void, Sink) -> usize;
    type RestoreFn = unsafe extern "C" fn(*mut c_void, *const u8, usize) -> i32;
    type FlashIoFn = unsafe extern "C" fn(*mut c_void, *const FlashIn, *mut FlashOut);
    type GateSetupFn = unsafe extern "C" fn(*mut c_void, u64);
    type GateStatsFn = unsafe extern "C" fn(*mut c_void, *mut u64, *mut u8, usize);

    /// The shim's save() hands its bytes here: `ctx` is the `Vec<u8>` being filled.
    unsafe extern "C" fn sink_into_vec(ctx: *mut c_void, data: *const u8, len: usize) {
        // SAFETY: `ctx` is the `&mut Vec<u8>` that `Verilated::save` passed for the duration of the
        // call (nothing else touches it meanwhile); `data` points to `len` readable bytes of the
        // shim's buffer, valid during this call.
        let (out, bytes) = unsafe {
            (
                &mut *(ctx as *mut Vec<u8>),
                std::slice::from_raw_parts(data, len),
            )
        };
        out.extend_from_slice(bytes);
    }

    /// A Verilated `tsnic_core`, owned: freed on drop.
    pub struct Verilated {
        handle: *mut c_void,
        step: StepFn,
        peek: StepFn,
        free: FreeFn,
        save: SaveFn,
        restore: RestoreFn,
        flash_io: FlashIoFn,
        gate_setup: GateSetupFn,
        gate_stats: GateStatsFn,
        width: Width,
        size: CoreSize,
    }

    impl Verilated {
        /// Construct a model (in reset). `None` if the configuration is not built in or allocation failed.
        pub fn new(width: Width, size: CoreSize) -> Option<Verilated> {
            type NewFn = unsafe extern "C" fn() -> *mut c_void;
            type Fns = (
                NewFn,
                StepFn,
                StepFn,
                FreeFn,
                SaveFn,
                RestoreFn,
                FlashIoFn,
                GateSetupFn,
                GateStatsFn,
            );
            let (new, step, peek, free, save, restore, flash_io, gate_setup, gate_stats): Fns =
                match (width, size) {
                    (Width::W64, CoreSize::Shipped) => (
                        tsnic_sim_w64_new,
                        tsnic_sim_w64_step,
                        tsnic_sim_w64_peek,
                        tsnic_sim_w64_free,
                        tsnic_sim_w64_save,
                        tsnic_sim_w64_restore,
                        tsnic_sim_w64_flash_io,
                        tsnic_sim_w64_gate_check_setup,
                        tsnic_sim_w64_gate_check_stats,
                    ),
                    (Width::W64, CoreSize::Small) => (
                        tsnic_sim_w64_small_new,
                        tsnic_sim_w64_small_step,
                        tsnic_sim_w64_small_peek,
                        tsnic_sim_w64_small_free,
                        tsnic_sim_w64_small_save,
                        tsnic_sim_w64_small_restore,
                        tsnic_sim_w64_small_flash_io,
                        tsnic_sim_w64_small_gate_check_setup,
                        tsnic_sim_w64_small_gate_check_stats,
                    ),
                    #[cfg(tsnic_sim_w512)]
                    (Width::W512, CoreSize::Shipped) => (
                        tsnic_sim_w512_new,
                        tsnic_sim_w512_step,
                        tsnic_sim_w512_peek,
                        tsnic_sim_w512_free,
                        tsnic_sim_w512_save,
                        tsnic_sim_w512_restore,
                        tsnic_sim_w512_flash_io,
                        tsnic_sim_w512_gate_check_setup,
                        tsnic_sim_w512_gate_check_stats,
                    ),
                    #[cfg(tsnic_sim_w512_small)]
                    (Width::W512, CoreSize::Small) => (
                        tsnic_sim_w512_small_new,
                        tsnic_sim_w512_small_step,
                        tsnic_sim_w512_small_peek,
                        tsnic_sim_w512_small_free,
                        tsnic_sim_w512_small_save,
                        tsnic_sim_w512_small_restore,
                        tsnic_sim_w512_small_flash_io,
                        tsnic_sim_w512_small_gate_check_setup,
                        tsnic_sim_w512_small_gate_check_stats,
                    ),
                    #[cfg(tsnic_sim_w256_small)]
                    (Width::W256, CoreSize::Small) => (
                        tsnic_sim_w256_small_new,
                        tsnic_sim_w256_small_step,
                        tsnic_sim_w256_small_peek,
                        tsnic_sim_w256_small_free,
                        tsnic_sim_w256_small_save,
                        tsnic_sim_w256_small_restore,
                        tsnic_sim_w256_small_flash_io,
                        tsnic_sim_w256_small_gate_check_setup,
                        tsnic_sim_w256_small_gate_check_stats,
                    ),
                    _ => return None,
                };
            // SAFETY: `new` is the shim's constructor; it takes no arguments and returns either null
            // or a pointer to a Model it allocated, which we own from here on.
            let handle = unsafe { new() };
            if handle.is_null() {
                None
            } else {
                Some(Verilated {
                    handle,
                    step,
                    peek,
                    free,
                    save,
                    restore,
                    flash_io,
                    gate_setup,
                    gate_stats,
                    width,
                    size,
                })
            }
        }
    }

    impl Rtl for Verilated {
        #[inline]
        fn step(&mut self, inp: &PortsIn, out: &mut PortsOut) {
            // SAFETY: `handle` is a live model from the matching constructor (freed only in drop, and
            // `&mut self` makes this call exclusive); `inp` and `out` are valid, aligned, #[repr(C)]
            // structs whose layout matches `tsnic_sim_in`/`tsnic_sim_out` (all u64 fields, same order),
            // and the shim reads `inp` and writes `out` only during the call.
            unsafe { (self.step)(self.handle, inp, out) }
        }

        #[inline]
        fn peek(&mut self, inp: &PortsIn, out: &mut PortsOut) {
            // SAFETY: as for `step`: a live, exclusively borrowed model and matching #[repr(C)] images;
            // peek only evaluates the model with the clock low (no edge).
            unsafe { (self.peek)(self.handle, inp, out) }
        }

        fn fingerprint(&self) -> Option<&'static str> {
            fingerprint(self.width, self.size)
        }

        #[inline]
        fn flash_io(&mut self, inp: Option<&FlashIn>, out: Option<&mut FlashOut>) -> bool {
            let inp = inp.map_or(std::ptr::null(), |i| i as *const FlashIn);
            let out = out.map_or(std::ptr::null_mut(), |o| o as *mut FlashOut);
            // SAFETY: a live, exclusively borrowed model (as for `step`); `inp` and `out` are null or
            // valid #[repr(C)] structs matching `tsnic_sim_flash_in`/`_out` (all u64, same order),
            // which the shim only reads/writes during the call and skips when null.
            unsafe { (self.flash_io)(self.handle, inp, out) };
            true
        }

        fn gate_check_setup(&mut self, max_bytes: u64) -> bool {
            // SAFETY: a live, exclusively borrowed model (as for `step`); the call takes no pointer.
            unsafe { (self.gate_setup)(self.handle, max_bytes) };
            true
        }

        fn gate_check_stats(&mut self) -> Option<GateCheckStats> {
            let mut words = [0u64; 22];
            let mut first = [0u8; 256];
            // SAFETY: a live, exclusively borrowed model (as for `step`); `words` has the 22 u64 the
            // shim writes and `first` the `cap` bytes it may write (NUL-terminated, snprintf), both
            // valid for the call only.
            unsafe {
                (self.gate_stats)(
                    self.handle,
                    words.as_mut_ptr(),
                    first.as_mut_ptr(),
                    first.len(),
                )
            };
            Some(GateCheckStats::from_words(&words, &first))
        }

        fn save(&mut self, out: &mut Vec<u8>) -> Result<(), RtlStateError> {
            // SAFETY: `handle` is a live model (exclusive through `&mut self`); the shim calls
            // `sink_into_vec` only during this call, with `ctx` = `out`, which outlives the call and
            // is not otherwise touched meanwhile.
            unsafe {
                (self.save)(
                    self.handle,
                    out as *mut Vec<u8> as *mut c_void,
                    sink_into_vec,
                )
            };
            Ok(())
        }

        fn restore(&mut self, data: &[u8]) -> Result<(), RtlStateError> {
            // SAFETY: `handle` is a live model (exclusive through `&mut self`); `data` is a valid
            // slice for the call; the shim reads exactly `data.len()` bytes at most (it refuses any
            // length but the model's own before deserializing and never reads past its buffer).
            match unsafe { (self.restore)(self.handle, data.as_ptr(), data.len()) } {
                0 => Ok(()),
                1 => Err(RtlStateError::Size),
                2 => Err(RtlStateError::CheckValue),
                _ => Err(RtlStateError::Length),
            }
        }
    }

    impl Drop for Verilated {
        fn drop(&mut self) {
            // SAFETY: `handle` came from the matching constructor and is freed exactly once, here.
            unsafe { (self.free)(self.handle) }
        }
    }

    // SAFETY: the model is plain heap state with its own VerilatedContext; it is only ever touched
    // through `&mut self`, so moving it to another thread is sound (it is not Sync).
    unsafe impl Send for Verilated {}
}

#[cfg(not(tsnic_sim_no_core))]
pub use verilated::Verilated;

/// Why the core is not available, or `None` when it is built in.
pub fn core_unavailable() -> Option<&'static str> {
    let why = env!("TSNIC_SIM_UNAVAILABLE");
    if why.is_empty() {
        None
    } else {
        Some(why)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn port_images_are_plain_u64_arrays() {
        // The C side is all uint64_t: sizes must be whole words with no padding.
        // (RX stream: tdata, then tkeep/tvalid/tlast and a 2-word tuser in; tready out; the gate's
        // mode in and hold out; the MAC's line-start report in: valid, ns)
        assert_eq!(
            std::mem::size_of::<PortsIn>(),
            8 * (25 + 2 * WIDE_WORDS + 3 + 2 + 2)
        );
        assert_eq!(std::mem::size_of::<PortsOut>(), 8 * (38 + 2 * WIDE_WORDS));
    }

    #[test]
    fn wide_bytes() {
        let mut w = [0u64; WIDE_WORDS];
        for i in 0..64 {
            set_wide_byte(&mut w, i, i as u8 + 1);
        }
        for i in 0..64 {
            assert_eq!(wide_byte(&w, i), i as u8 + 1);
        }
        assert_eq!(w[0] & 0xff, 1);
        assert_eq!(w[7] >> 56, 64);
    }
}
