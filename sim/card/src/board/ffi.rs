//! The `tsnic_board_core` port image exchanged with csrc/board_shim.cpp once per clock edge, and the
//! Verilated board core behind it (the `board` feature).

use crate::ffi::WIDE_WORDS;

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
}

/// Clock edges of one instant ([`BoardRtl::step`]): the PCIe user clock.
pub const EDGE_CLK: u64 = 1;
/// Clock edges of one instant: the MAC clock (tx_clk = rx_clk).
pub const EDGE_MAC: u64 = 2;

/// A clocked board core: the Verilated one, or a stand-in in unit tests.
pub trait BoardRtl {
    /// One instant: settle `inp` with both clocks low, copy the outputs to `out`, then raise the
    /// clocks in `edges` ([`EDGE_CLK`], [`EDGE_MAC`]).
    fn step(&mut self, inp: &BoardIn, out: &mut BoardOut, edges: u64);
}

#[cfg(tsnic_sim_board)]
mod verilated {
    use super::{BoardIn, BoardOut, BoardRtl};
    use std::ffi::c_void;

    extern "C" {
        fn tsnic_simb_board256_new() -> *mut c_void;
        fn tsnic_simb_board256_free(h: *mut c_void);
        fn tsnic_simb_board256_step(
            h: *mut c_void,
            inp: *const BoardIn,
            out: *mut BoardOut,
            edges: u64,
        );
    }

    /// The Verilated `tsnic_board_core` (SUME configuration), owned: freed on drop.
    pub struct VerilatedBoard {
        handle: *mut c_void,
    }

    impl VerilatedBoard {
        /// A model with every clock low and its resets high; `None` if allocation failed.
        pub fn new() -> Option<VerilatedBoard> {
            // SAFETY: the shim's constructor takes no arguments and returns null or a model it
            // allocated, which we own from here on.
            let handle = unsafe { tsnic_simb_board256_new() };
            (!handle.is_null()).then_some(VerilatedBoard { handle })
        }
    }

    impl BoardRtl for VerilatedBoard {
        #[inline]
        fn step(&mut self, inp: &BoardIn, out: &mut BoardOut, edges: u64) {
            // SAFETY: `handle` is a live model (freed only in drop; `&mut self` makes the call
            // exclusive); `inp`/`out` are #[repr(C)] structs of u64 fields in the order of
            // `tsnic_board_in`/`tsnic_board_out`, read and written only during the call.
            unsafe { tsnic_simb_board256_step(self.handle, inp, out, edges) }
        }
    }

    impl Drop for VerilatedBoard {
        fn drop(&mut self) {
            // SAFETY: `handle` came from the constructor and is freed exactly once, here.
            unsafe { tsnic_simb_board256_free(self.handle) }
        }
    }

    // SAFETY: plain heap state with its own VerilatedContext, only touched through `&mut self`.
    unsafe impl Send for VerilatedBoard {}
}

#[cfg(tsnic_sim_board)]
pub use verilated::VerilatedBoard;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn port_images_are_plain_u64_arrays() {
        assert_eq!(
            std::mem::size_of::<BoardIn>(),
            8 * (2 + 2 * (WIDE_WORDS + 4 + 3) + 2 + 7 + 4 + 3 + 1)
        );
        assert_eq!(
            std::mem::size_of::<BoardOut>(),
            8 * (1 + 2 * (WIDE_WORDS + 4 + 3) + 1 + 3 + WIDE_WORDS + 4 + 4)
        );
    }
}
