//! Subcommands of the `tsnic` CLI, one module each.

pub mod common;
pub mod info;
pub mod phc;
pub mod push;
pub mod replay;
pub mod send;
pub mod sim;
pub mod stats;
