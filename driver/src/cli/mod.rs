//! Subcommands of the `tsnic` CLI, one module each.

pub mod common;
pub mod flash;
pub mod info;
pub mod out;
pub mod pdrill;
#[cfg(feature = "sim")]
pub mod peer;
pub mod phc;
pub mod ptp;
pub mod push;
pub mod replay;
#[cfg(feature = "sim")]
pub mod send;
/// `send` runs only in simulation: without the `sim` feature it says how to get it.
#[cfg(not(feature = "sim"))]
#[path = "send_not_built.rs"]
pub mod send;
pub mod sim;
pub mod stats;
