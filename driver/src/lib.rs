//! tsnic: userspace driver for the tsnic time-scheduled transmit NIC.

pub mod capture;
pub mod contract;
pub mod device;
pub mod edt;
pub mod phc;
pub mod push;
pub mod regs;
pub mod ring;
pub mod trace;
