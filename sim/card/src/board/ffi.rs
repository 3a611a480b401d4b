//! The `tsnic_board_core` port image exchanged with csrc/board_shim.cpp once per clock edge, and the
//! Verilated board cores behind it (the `board` feature: SUME; `alveo`, `alveo-all`: the Alveos).

use crate::ffi::{FlashIn, FlashOut, RtlStateError, WIDE_WORDS};

/// Inputs of `tsnic_board_core` at one clock instant (mirrors `csrc/board_ports.h`).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BoardIn {
    pub rst: u64,
    pub tx_rst: u64,
    pub cq_tdata: [u64; WIDE_WORDS],
    pub cq_tuser: [u64; 4],
    pub cq_tkeep: u64,
    pub cq_tvalid: u64,
    pub cq_tlast: u64,
    pub cc_tready: u64,
    pub rq_tready: u64,
    pub rc_tdata: [u64; WIDE_WORDS],
    pub rc_tuser: [u64; 4],
    pub rc_tkeep: u64,
    pub rc_tvalid: u64,
    pub rc_tlast: u64,
    pub cfg_max_payload: u64,
    pub cfg_max_read_req: u64,
    pub cfg_bus_master_en: u64,
    pub cfg_msix_enable: u64,
    pub cfg_msix_mask: u64,
    pub cfg_msix_sent: u64,
    pub cfg_msix_fail: u64,
    pub pcie_lnk_up: u64,
    pub pcie_ltssm: u64,
    pub pcie_width: u64,
    pub pcie_speed: u64,
    pub tx_tready: u64,
    pub mac_lag_valid: u64,
    pub mac_lag_ns: u64,
    pub mac_rx_up: u64,
    pub rx_tdata: [u64; WIDE_WORDS],
    pub rx_tkeep: u64,
    pub rx_tvalid: u64,
    pub rx_tlast: u64,
    pub rx_tuser: u64,
    pub rx_sof: u64,
    pub rx_sof_lane4: u64,
}

/// Outputs of `tsnic_board_core` at one clock instant, before the edge (mirrors `csrc/board_ports.h`).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BoardOut {
    pub cq_tready: u64,
    pub cc_tdata: [u64; WIDE_WORDS],
    pub cc_tuser: [u64; 4],
    pub cc_tkeep: u64,
    pub cc_tvalid: u64,
    pub cc_tlast: u64,
    pub rq_tdata: [u64; WIDE_WORDS],
    pub rq_tuser: [u64; 4],
    pub rq_tkeep: u64,
    pub rq_tvalid: u64,
    pub rq_tlast: u64,
    pub rc_tready: u64,
    pub msix_address: u64,
    pub msix_data: u64,
    pub msix_int: u64,
    pub tx_tdata: [u64; WIDE_WORDS],
    pub tx_tkeep: u64,
    pub tx_tvalid: u64,
    pub tx_tlast: u64,
    pub tx_tuser: u64,
    pub pps: u64,
    pub stat_dma_rd_err: u64,
    pub stat_bar_bad_np: u64,
    pub stat_bar_bad_posted: u64,
    /// The core's gated blocks holding at this instant (bits as `PortsOut::sim_gate_hold`).
    pub sim_gate_hold: u64,
}

/// Clock edges of one instant ([`BoardRtl::step`]): the PCIe user clock.
pub const EDGE_CLK: u64 = 1;
/// Clock edges of one instant: the MAC clock (tx_clk = rx_clk).
pub const EDGE_MAC: u64 = 2;
/// With [`EDGE_CLK`]: leave the core's gated blocks unclocked where they hold (`sim_gate_hold`).
pub const EDGE_GATE: u64 = 4;

/// A clocked board core: the Verilated one, or a stand-in in unit tests.
pub trait BoardRtl {
    /// One instant: settle `inp` with both clocks low, copy the outputs to `out`, then raise the
    /// clocks in `edges` ([`EDGE_CLK`], [`EDGE_MAC`]).
    fn step(&mut self, inp: &BoardIn, out: &mut BoardOut, edges: u64);

    /// The configuration-flash and ICAP pins (as [`crate::ffi::Rtl::flash_io`]): `out` gets them as
    /// the last step left them, `inp` drives them from the next step on. False: no such pins.
    fn flash_io(&mut self, inp: Option<&FlashIn>, out: Option<&mut FlashOut>) -> bool {
        let _ = (inp, out);
        false
    }

    /// Fingerprint of the model's build (`build.rs`): a state is only restored into a model with
    /// the same one. `None`: this model cannot be saved.
    fn fingerprint(&self) -> Option<&'static str> {
        None
    }

    /// Append the model's whole state (every register and memory) to `out` (Verilator `--savable`).
    fn save(&mut self, _out: &mut Vec<u8>) -> Result<(), RtlStateError> {
        Err(RtlStateError::Unsupported)
    }

    /// Load state written by [`BoardRtl::save`] of a model with the same fingerprint.
    fn restore(&mut self, _data: &[u8]) -> Result<(), RtlStateError> {
        Err(RtlStateError::Unsupported)
    }
}

/// Which Verilated `tsnic_board_core` to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BoardModel {
    /// The SUME build (256 bits, 10G MAC clock; `board` feature).
    #[default]
    Sume,
    /// The Alveo U50 build (512 bits, CMAC clock; `alveo` feature).
    AlveoU50,
    /// The Alveo U280 build (the U50's with BOARD_ID 2; `alveo-all` feature).
    AlveoU280,
    /// The Alveo U250 build (the U50's with BOARD_ID 3; `alveo-all` feature).
    AlveoU250,
}

impl BoardModel {
    /// Whether this model is built into this binary.
    pub fn built(self) -> bool {
        match self {
            BoardModel::Sume => cfg!(tsnic_simb_board256),
            BoardModel::AlveoU50 => cfg!(tsnic_simb_alveo_u50),
            BoardModel::AlveoU280 => cfg!(tsnic_simb_alveo_u280),
            BoardModel::AlveoU250 => cfg!(tsnic_simb_alveo_u250),
        }
    }

    /// The cargo feature of the `tsnic` crate that builds it.
    pub fn feature(self) -> &'static str {
        match self {
            BoardModel::Sume => "board",
            BoardModel::AlveoU50 => "alveo",
            BoardModel::AlveoU280 | BoardModel::AlveoU250 => "alveo-all",
        }
    }

    /// The 512-bit UltraScale+ build (CMAC) rather than the 256-bit SUME one.
    pub fn is_alveo(self) -> bool {
        !matches!(self, BoardModel::Sume)
    }

    /// Fingerprint of this board's Verilated model (`build.rs`), `None` if it is not built in.
    pub fn fingerprint(self) -> Option<&'static str> {
        match self {
            BoardModel::Sume => option_env!("TSNIC_SIMB_FINGERPRINT_BOARD256"),
            BoardModel::AlveoU50 => option_env!("TSNIC_SIMB_FINGERPRINT_ALVEO_U50"),
            BoardModel::AlveoU280 => option_env!("TSNIC_SIMB_FINGERPRINT_ALVEO_U280"),
            BoardModel::AlveoU250 => option_env!("TSNIC_SIMB_FINGERPRINT_ALVEO_U250"),
        }
    }

    /// Every board model, built in or not.
    pub const ALL: [BoardModel; 4] = [
        BoardModel::Sume,
        BoardModel::AlveoU50,
        BoardModel::AlveoU280,
        BoardModel::AlveoU250,
    ];

    /// The `--backend` that opens this board.
    pub fn spec(self) -> &'static str {
        match self {
            BoardModel::Sume => "sim:board",
            BoardModel::AlveoU50 => "sim:board=u50",
            BoardModel::AlveoU280 => "sim:board=u280",
            BoardModel::AlveoU250 => "sim:board=u250",
        }
    }

    /// The card, in words (for messages about a state file).
    pub fn card_words(self) -> &'static str {
        match self {
            BoardModel::Sume => "the SUME board card (tsnic_board_core, 256 bits, 10G)",
            BoardModel::AlveoU50 => "the Alveo U50 board card (tsnic_board_core, 512 bits, 100G)",
            BoardModel::AlveoU280 => "the Alveo U280 board card (tsnic_board_core, 512 bits, 100G)",
            BoardModel::AlveoU250 => "the Alveo U250 board card (tsnic_board_core, 512 bits, 100G)",
        }
    }

    /// The board's name as `sim:board=NAME` spells it.
    pub fn name(self) -> &'static str {
        match self {
            BoardModel::Sume => "sume",
            BoardModel::AlveoU50 => "u50",
            BoardModel::AlveoU280 => "u280",
            BoardModel::AlveoU250 => "u250",
        }
    }
}

/// The Verilated `tsnic_board_core` of one configuration, owned: freed on drop.
pub struct VerilatedBoard {
    handle: *mut std::ffi::c_void,
    model: BoardModel,
    step_fn: StepFn,
    free_fn: unsafe extern "C" fn(*mut std::ffi::c_void),
    flash_fn: FlashFn,
    save_fn: SaveFn,
    restore_fn: RestoreFn,
}

type StepFn = unsafe extern "C" fn(*mut std::ffi::c_void, *const BoardIn, *mut BoardOut, u64);
type FlashFn = unsafe extern "C" fn(*mut std::ffi::c_void, *const FlashIn, *mut FlashOut);
type Sink = unsafe extern "C" fn(*mut std::ffi::c_void, *const u8, usize);
type SaveFn = unsafe extern "C" fn(*mut std::ffi::c_void, *mut std::ffi::c_void, Sink) -> usize;
type RestoreFn = unsafe extern "C" fn(*mut std::ffi::c_void, *const u8, usize) -> i32;

/// The shim's save() hands its bytes here: `ctx` is the `Vec<u8>` being filled.
unsafe extern "C" fn sink_into_vec(ctx: *mut std::ffi::c_void, data: *const u8, len: usize) {
    // SAFETY: `ctx` is the `&mut Vec<u8>` that `VerilatedBoard::save` passed for the duration of
    // the call (nothing else touches it meanwhile); `data` points to `len` readable bytes of the
    // shim's buffer, valid during this call.
    let (out, bytes) = unsafe {
        (
            &mut *(ctx as *mut Vec<u8>),
            std::slice::from_raw_parts(data, len),
        )
    };
    out.extend_from_slice(bytes);
}

macro_rules! board_model {
    ($cfg:ident, $new:ident, $free:ident, $step:ident, $flash:ident, $save:ident, $restore:ident) => {
        #[cfg($cfg)]
        extern "C" {
            fn $new() -> *mut std::ffi::c_void;
            fn $free(h: *mut std::ffi::c_void);
            fn $step(h: *mut std::ffi::c_void, inp: *const BoardIn, out: *mut BoardOut, edges: u64);
            fn $flash(h: *mut std::ffi::c_void, inp: *const FlashIn, out: *mut FlashOut);
            fn $save(h: *mut std::ffi::c_void, ctx: *mut std::ffi::c_void, sink: Sink) -> usize;
            fn $restore(h: *mut std::ffi::c_void, data: *const u8, len: usize) -> i32;
        }
    };
}

board_model!(
    tsnic_simb_board256,
    tsnic_simb_board256_new,
    tsnic_simb_board256_free,
    tsnic_simb_board256_step,
    tsnic_simb_board256_flash_io,
    tsnic_simb_board256_save,
    tsnic_simb_board256_restore
);
board_model!(
    tsnic_simb_alveo_u50,
    tsnic_simb_alveo_u50_new,
    tsnic_simb_alveo_u50_free,
    tsnic_simb_alveo_u50_step,
    tsnic_simb_alveo_u50_flash_io,
    tsnic_simb_alveo_u50_save,
    tsnic_simb_alveo_u50_restore
);
board_model!(
    tsnic_simb_alveo_u280,
    tsnic_simb_alveo_u280_new,
    tsnic_simb_alveo_u280_free,
    tsnic_simb_alveo_u280_step,
    tsnic_simb_alveo_u280_flash_io,
    tsnic_simb_alveo_u280_save,
    tsnic_simb_alveo_u280_restore
);
board_model!(
    tsnic_simb_alveo_u250,
    tsnic_simb_alveo_u250_new,
    tsnic_simb_alveo_u250_free,
    tsnic_simb_alveo_u250_step,
    tsnic_simb_alveo_u250_flash_io,
    tsnic_simb_alveo_u250_save,
    tsnic_simb_alveo_u250_restore
);

impl VerilatedBoard {
    /// A model with every clock low and its resets high; `None` if it is not built in or
    /// allocation failed.
    pub fn new(model: BoardModel) -> Option<VerilatedBoard> {
        type NewFn = unsafe extern "C" fn() -> *mut std::ffi::c_void;
        type FreeFn = unsafe extern "C" fn(*mut std::ffi::c_void);
        let fns: Option<(NewFn, FreeFn, StepFn, FlashFn, SaveFn, RestoreFn)> = match model {
            #[cfg(tsnic_simb_board256)]
            BoardModel::Sume => Some((
                tsnic_simb_board256_new,
                tsnic_simb_board256_free,
                tsnic_simb_board256_step,
                tsnic_simb_board256_flash_io,
                tsnic_simb_board256_save,
                tsnic_simb_board256_restore,
            )),
            #[cfg(tsnic_simb_alveo_u50)]
            BoardModel::AlveoU50 => Some((
                tsnic_simb_alveo_u50_new,
                tsnic_simb_alveo_u50_free,
                tsnic_simb_alveo_u50_step,
                tsnic_simb_alveo_u50_flash_io,
                tsnic_simb_alveo_u50_save,
                tsnic_simb_alveo_u50_restore,
            )),
            #[cfg(tsnic_simb_alveo_u280)]
            BoardModel::AlveoU280 => Some((
                tsnic_simb_alveo_u280_new,
                tsnic_simb_alveo_u280_free,
                tsnic_simb_alveo_u280_step,
                tsnic_simb_alveo_u280_flash_io,
                tsnic_simb_alveo_u280_save,
                tsnic_simb_alveo_u280_restore,
            )),
            #[cfg(tsnic_simb_alveo_u250)]
            BoardModel::AlveoU250 => Some((
                tsnic_simb_alveo_u250_new,
                tsnic_simb_alveo_u250_free,
                tsnic_simb_alveo_u250_step,
                tsnic_simb_alveo_u250_flash_io,
                tsnic_simb_alveo_u250_save,
                tsnic_simb_alveo_u250_restore,
            )),
            #[allow(unreachable_patterns)]
            _ => None,
        };
        let (new_fn, free_fn, step_fn, flash_fn, save_fn, restore_fn) = fns?;
        // SAFETY: the shim's constructor takes no arguments and returns null or a model it
        // allocated, which we own from here on.
        let handle = unsafe { new_fn() };
        (!handle.is_null()).then_some(VerilatedBoard {
            handle,
            model,
            step_fn,
            free_fn,
            flash_fn,
            save_fn,
            restore_fn,
        })
    }
}

impl BoardRtl for VerilatedBoard {
    #[inline]
    fn step(&mut self, inp: &BoardIn, out: &mut BoardOut, edges: u64) {
        // SAFETY: `handle` is a live model of the configuration `step_fn` belongs to (freed only in
        // drop; `&mut self` makes the call exclusive); `inp`/`out` are #[repr(C)] structs of u64
        // fields in the order of `tsnic_board_in`/`tsnic_board_out`, read and written only during
        // the call.
        unsafe { (self.step_fn)(self.handle, inp, out, edges) }
    }

    fn flash_io(&mut self, inp: Option<&FlashIn>, out: Option<&mut FlashOut>) -> bool {
        let inp = inp.map_or(std::ptr::null(), |i| i as *const FlashIn);
        let out = out.map_or(std::ptr::null_mut(), |o| o as *mut FlashOut);
        // SAFETY: a live, exclusively borrowed model of the configuration `flash_fn` belongs to (as
        // for `step`); `inp` and `out` are null or valid #[repr(C)] structs matching
        // `tsnic_sim_flash_in`/`_out` (all u64, same order), only read/written during the call and
        // skipped when null.
        unsafe { (self.flash_fn)(self.handle, inp, out) };
        true
    }

    fn fingerprint(&self) -> Option<&'static str> {
        self.model.fingerprint()
    }

    fn save(&mut self, out: &mut Vec<u8>) -> Result<(), RtlStateError> {
        // SAFETY: `handle` is a live model (exclusive through `&mut self`); the shim calls
        // `sink_into_vec` only during this call, with `ctx` = `out`, which outlives the call and is
        // not otherwise touched meanwhile.
        unsafe {
            (self.save_fn)(
                self.handle,
                out as *mut Vec<u8> as *mut std::ffi::c_void,
                sink_into_vec,
            )
        };
        Ok(())
    }

    fn restore(&mut self, data: &[u8]) -> Result<(), RtlStateError> {
        // SAFETY: `handle` is a live model (exclusive through `&mut self`); `data` is a valid slice
        // for the call; the shim (csrc/save.cpp) refuses any length but the model's own before
        // deserializing and never reads past its buffer.
        match unsafe { (self.restore_fn)(self.handle, data.as_ptr(), data.len()) } {
            0 => Ok(()),
            1 => Err(RtlStateError::Size),
            2 => Err(RtlStateError::CheckValue),
            _ => Err(RtlStateError::Length),
        }
    }
}

impl Drop for VerilatedBoard {
    fn drop(&mut self) {
        // SAFETY: `handle` came from this configuration's constructor and is freed exactly once,
        // here, by its own `free`.
        unsafe { (self.free_fn)(self.handle) }
    }
}

// SAFETY: plain heap state with its own VerilatedContext, only touched through `&mut self`.
unsafe impl Send for VerilatedBoard {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn port_images_are_plain_u64_arrays() {
        assert_eq!(
            std::mem::size_of::<BoardIn>(),
            8 * (2 + 2 * (WIDE_WORDS + 4 + 3) + 2 + 7 + 4 + 3 + 1 + WIDE_WORDS + 6)
        );
        assert_eq!(
            std::mem::size_of::<BoardOut>(),
            8 * (1 + 2 * (WIDE_WORDS + 4 + 3) + 1 + 3 + WIDE_WORDS + 4 + 4 + 1)
        );
    }
}
