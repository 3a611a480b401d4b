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

/// Something that behaves like `tsnic_core` for one clock cycle: the Verilated model.
pub trait Rtl {
    /// One core clock cycle: apply `inp`, let combinational paths settle, write the pre-edge outputs
    /// into `out`, then clock the registers.
    fn step(&mut self, inp: &PortsIn, out: &mut PortsOut);
}

/// Which Verilated configuration to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Width {
    /// 64-bit AXI4 and AXI-Stream (10G).
    #[default]
    W64,
    /// 512-bit AXI4 and AXI-Stream (100G); built with the `wide` feature.
    W512,
}

impl Width {
    /// Bus width in bytes.
    pub fn bytes(self) -> usize {
        match self {
            Width::W64 => 8,
            Width::W512 => 64,
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
    use super::{CoreSize, PortsIn, PortsOut, Rtl, Width};
    use std::ffi::c_void;

    extern "C" {
        fn tsnic_sim_w64_new() -> *mut c_void;
        fn tsnic_sim_w64_free(h: *mut c_void);
        fn tsnic_sim_w64_step(h: *mut c_void, inp: *const PortsIn, out: *mut PortsOut);
        fn tsnic_sim_w64_small_new() -> *mut c_void;
        fn tsnic_sim_w64_small_free(h: *mut c_void);
        fn tsnic_sim_w64_small_step(h: *mut c_void, inp: *const PortsIn, out: *mut PortsOut);
    }
    #[cfg(tsnic_sim_w512)]
    extern "C" {
        fn tsnic_sim_w512_new() -> *mut c_void;
        fn tsnic_sim_w512_free(h: *mut c_void);
        fn tsnic_sim_w512_step(h: *mut c_void, inp: *const PortsIn, out: *mut PortsOut);
    }

    type StepFn = unsafe extern "C" fn(*mut c_void, *const PortsIn, *mut PortsOut);
    type FreeFn = unsafe extern "C" fn(*mut c_void);

    /// A Verilated `tsnic_core`, owned: freed on drop.
    pub struct Verilated {
        handle: *mut c_void,
        step: StepFn,
        free: FreeFn,
    }

    impl Verilated {
        /// Construct a model (in reset). `None` if the configuration is not built in or allocation failed.
        pub fn new(width: Width, size: CoreSize) -> Option<Verilated> {
            let (new, step, free): (unsafe extern "C" fn() -> *mut c_void, StepFn, FreeFn) =
                match (width, size) {
                    (Width::W64, CoreSize::Shipped) => {
                        (tsnic_sim_w64_new, tsnic_sim_w64_step, tsnic_sim_w64_free)
                    }
                    (Width::W64, CoreSize::Small) => (
                        tsnic_sim_w64_small_new,
                        tsnic_sim_w64_small_step,
                        tsnic_sim_w64_small_free,
                    ),
                    #[cfg(tsnic_sim_w512)]
                    (Width::W512, CoreSize::Shipped) => {
                        (tsnic_sim_w512_new, tsnic_sim_w512_step, tsnic_sim_w512_free)
                    }
                    _ => return None,
                };
            // SAFETY: `new` is the shim's constructor; it takes no arguments and returns either null
            // or a pointer to a Model it allocated, which we own from here on.
            let handle = unsafe { new() };
            if handle.is_null() {
                None
            } else {
                Some(Verilated { handle, step, free })
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
        assert_eq!(std::mem::size_of::<PortsIn>(), 8 * (23 + WIDE_WORDS));
        assert_eq!(std::mem::size_of::<PortsOut>(), 8 * (31 + 2 * WIDE_WORDS));
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
