//! `tsnic send` in a build without the `sim` feature.
//!
//! `tsnic send` runs the EDT sender closed-loop over a simulated network path (and, by default, the
//! simulated card), so a driver built for a real card leaves it out. The subcommand stays, so
//! scripts and `--help` find it, and running it says how to get a build that has it.

use anyhow::{bail, Result};
use clap::Args;

/// Arguments of `tsnic send`: taken whole and not parsed, since this build cannot run it.
#[derive(Args, Debug)]
#[command(
    after_help = "Not built in: this tsnic was built without its `sim` feature \
(`--no-default-features`). Build it with the default features to run the EDT sender over the \
simulated network: `cargo build --release -p tsnic`."
)]
pub struct SendArgs {
    /// The options of `tsnic send` (see `tsnic send --help` in a build with the `sim` feature).
    #[arg(
        trailing_var_arg = true,
        allow_hyphen_values = true,
        value_name = "OPTIONS"
    )]
    pub args: Vec<String>,
}

/// Say that `send` is not in this build, and how to get it.
pub fn run(_args: SendArgs) -> Result<()> {
    bail!(
        "`tsnic send` runs the EDT sender over the simulated network and card, which this build \
         leaves out: tsnic was built without its `sim` feature (`--no-default-features`, a driver \
         for a real card only); build it with the default features to get it \
         (`cargo build --release -p tsnic`; needs Verilator, see `make deps`)"
    )
}
