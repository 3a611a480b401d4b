//! tsnic: userspace driver for the tsnic time-scheduled transmit NIC.
//!
//! With the `sim` feature (on by default) the crate also holds the co-simulation's side of the
//! driver: the `sim` backend (`device::sim`), the network model (`netsim`) and the EDT closed loop
//! (`edt::run`, `edt::card_sim`). Without it (`--no-default-features`) it is the driver for a real
//! card alone, built without Verilator; see docs/ARCHITECTURE.md, "Building without the simulator".

pub mod capture;
pub mod contract;
pub mod device;
pub mod edt;
pub mod flash;
pub mod link;
#[cfg(feature = "sim")]
pub mod netsim;
pub mod pdrill;
#[cfg(feature = "sim")]
pub mod peer;
pub mod phc;
pub mod pipeline;
pub mod ptp;
pub mod push;
pub mod regs;
pub mod ring;
pub mod rng;
pub mod rx;
pub mod trace;
pub mod wire_time;
