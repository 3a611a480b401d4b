//! BAR0 accesses as AXI-Lite transactions: the host side of the core's AXI-Lite slave.
//!
//! One access at a time, like a CPU's uncached MMIO: a write drives AW and W together and completes
//! at B; a read drives AR and completes at R.

use crate::ffi::{PortsIn, PortsOut};

/// One BAR0 access.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Read the 32-bit register at a byte offset.
    Read(u32),
    /// Write a 32-bit value at a byte offset (all four strobes).
    Write(u32, u32),
}

/// Result of a finished access: read data (0 for a write) and the response code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Done {
    /// Read data, or 0 for a write.
    pub data: u32,
    /// AXI response (0 OKAY).
    pub resp: u8,
    /// Cycles the access took.
    pub cycles: u64,
}

#[derive(Debug, Clone, Copy)]
struct Active {
    access: Access,
    addr_done: bool,
    data_done: bool,
    start: u64,
}

/// The AXI-Lite master.
#[derive(Debug, Default)]
pub struct AxiLiteMaster {
    active: Option<Active>,
    done: Option<Done>,
}

impl AxiLiteMaster {
    /// A master with nothing to do.
    pub fn new() -> Self {
        Self::default()
    }

    /// Start an access; panics if one is in progress (one at a time).
    pub fn start(&mut self, access: Access, cycle: u64) {
        assert!(self.active.is_none(), "one BAR0 access at a time");
        self.done = None;
        self.active = Some(Active {
            access,
            addr_done: false,
            data_done: false,
            start: cycle,
        });
    }

    /// The finished access, once.
    pub fn take_done(&mut self) -> Option<Done> {
        self.done.take()
    }

    /// True while an access is in progress.
    pub fn busy(&self) -> bool {
        self.active.is_some()
    }

    /// Drive the slave's inputs from the state.
    pub fn drive(&self, inp: &mut PortsIn) {
        inp.s_axil_awvalid = 0;
        inp.s_axil_wvalid = 0;
        inp.s_axil_arvalid = 0;
        inp.s_axil_bready = 0;
        inp.s_axil_rready = 0;
        inp.s_axil_awprot = 0;
        inp.s_axil_arprot = 0;
        let Some(a) = self.active else { return };
        match a.access {
            Access::Write(off, val) => {
                inp.s_axil_awaddr = off as u64;
                inp.s_axil_awvalid = (!a.addr_done) as u64;
                inp.s_axil_wdata = val as u64;
                inp.s_axil_wstrb = 0xf;
                inp.s_axil_wvalid = (!a.data_done) as u64;
                inp.s_axil_bready = 1;
            }
            Access::Read(off) => {
                inp.s_axil_araddr = off as u64;
                inp.s_axil_arvalid = (!a.addr_done) as u64;
                inp.s_axil_rready = 1;
            }
        }
    }

    /// Take the handshakes of the cycle.
    pub fn clock(&mut self, inp: &PortsIn, out: &PortsOut, cycle: u64) {
        let Some(a) = self.active.as_mut() else {
            return;
        };
        match a.access {
            Access::Write(..) => {
                // B may only count once AW and W are both through (a slave may not respond earlier).
                let b =
                    inp.s_axil_bready == 1 && out.s_axil_bvalid == 1 && a.addr_done && a.data_done;
                if inp.s_axil_awvalid == 1 && out.s_axil_awready == 1 {
                    a.addr_done = true;
                }
                if inp.s_axil_wvalid == 1 && out.s_axil_wready == 1 {
                    a.data_done = true;
                }
                if b {
                    self.done = Some(Done {
                        data: 0,
                        resp: out.s_axil_bresp as u8,
                        cycles: cycle + 1 - a.start,
                    });
                    self.active = None;
                }
            }
            Access::Read(..) => {
                let r = inp.s_axil_rready == 1 && out.s_axil_rvalid == 1 && a.addr_done;
                if inp.s_axil_arvalid == 1 && out.s_axil_arready == 1 {
                    a.addr_done = true;
                }
                if r {
                    self.done = Some(Done {
                        data: out.s_axil_rdata as u32,
                        resp: out.s_axil_rresp as u8,
                        cycles: cycle + 1 - a.start,
                    });
                    self.active = None;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A register-file slave with a fixed response delay, to exercise the master.
    fn run(access: Access, delay: u64) -> (Done, u32) {
        let mut m = AxiLiteMaster::new();
        let mut inp = PortsIn::default();
        let mut out = PortsOut::default();
        let mut reg = 0x1234u32;
        let mut pending: Option<u64> = None;
        m.start(access, 0);
        for cycle in 0..100 {
            m.drive(&mut inp);
            out.s_axil_awready = 1;
            out.s_axil_wready = 1;
            out.s_axil_arready = 1;
            out.s_axil_bvalid =
                pending.is_some_and(|c| cycle >= c && matches!(access, Access::Write(..))) as u64;
            out.s_axil_rvalid =
                pending.is_some_and(|c| cycle >= c && matches!(access, Access::Read(..))) as u64;
            out.s_axil_rdata = reg as u64;
            if inp.s_axil_awvalid == 1 && inp.s_axil_wvalid == 1 {
                reg = inp.s_axil_wdata as u32;
                pending = Some(cycle + delay);
            }
            if inp.s_axil_arvalid == 1 {
                pending = Some(cycle + delay);
            }
            m.clock(&inp, &out, cycle);
            if let Some(d) = m.take_done() {
                return (d, reg);
            }
        }
        panic!("access never finished");
    }

    #[test]
    fn write_then_read() {
        let (d, reg) = run(Access::Write(0x100, 0xdead_beef), 2);
        assert_eq!(reg, 0xdead_beef);
        assert_eq!(d.resp, 0);
        assert_eq!(d.cycles, 3);
        let (d, _) = run(Access::Read(0x0), 1);
        assert_eq!(d.data, 0x1234);
        assert_eq!(d.cycles, 2);
    }
}
