//! `tsnic sim status|reset`: the simulated card that persists between commands.

use crate::cli::out::outln;
use anyhow::{bail, Result};
use clap::{Args, Subcommand};
use tsnic::device::sim_state::{self, StateLock};
use tsnic::device::{BackendSpec, SimOptions};

#[cfg(feature = "sim")]
use super::common::fmt_ns;

/// Arguments of `tsnic sim`.
#[derive(Args, Debug)]
pub struct SimArgs {
    /// Which simulated card: `sim` (the 64-bit one), `sim:wide` (the 512-bit one), `sim:board[=NAME]`
    /// (a board build's), `sim:state=PATH`.
    #[arg(long, default_value = "sim", global = true)]
    pub backend: String,
    /// What to do.
    #[command(subcommand)]
    pub cmd: SimCmd,
}

/// `tsnic sim` subcommands.
#[derive(Subcommand, Debug)]
pub enum SimCmd {
    /// Where the simulated card's state is kept, and what it holds.
    Status,
    /// Power-cycle the simulated card: forget its state; the next command starts a fresh card.
    Reset,
}

fn sim_options(spec: &str) -> Result<SimOptions> {
    match spec.parse::<BackendSpec>()? {
        BackendSpec::Sim(o) => Ok(o),
        other => bail!("`tsnic sim` is about the simulated card; `--backend {other}` is not one (use `sim`, `sim:wide` or `sim:state=PATH`)"),
    }
}

/// Run `tsnic sim`.
pub fn run(args: SimArgs) -> Result<()> {
    let opts = sim_options(&args.backend)?;
    let name = if opts.board {
        format!("board-{}", opts.board_kind.name())
    } else {
        sim_state::card_name(if opts.wide { 512 } else { 64 }, opts.small)
    };
    let Some(path) = opts.state.resolve(&name)? else {
        outln!("the simulated card is not kept (state=none, or {}=none): every command starts a fresh card", sim_state::ENV);
        return Ok(());
    };
    if let Some(dir) = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty() && !d.is_dir())
    {
        // Nothing can be kept there: no card to reset or show (a command on it is refused).
        outln!("state    {}", path.display());
        outln!(
            "card     none: its folder {} does not exist (create it to keep a card there)",
            dir.display()
        );
        return Ok(());
    }
    match args.cmd {
        SimCmd::Reset => {
            let _lock = StateLock::acquire(&path)?;
            if sim_state::remove(&path)? {
                outln!(
                    "power-cycled the simulated card: removed {}; the next command starts a fresh card",
                    path.display()
                );
            } else {
                outln!(
                    "no state at {}: the next command starts a fresh card",
                    path.display()
                );
            }
        }
        SimCmd::Status => {
            outln!("state    {}", path.display());
            let in_use = match StateLock::acquire(&path) {
                Ok(_) => "no".to_string(),
                Err(tsnic::device::DeviceError::SimStateBusy { holder, .. }) => {
                    format!("yes, by {holder}")
                }
                Err(e) => return Err(e.into()),
            };
            let Some(bytes) = sim_state::read(&path)? else {
                outln!("card     none saved yet: the next command starts a fresh card");
                outln!("in use   {in_use}");
                return Ok(());
            };
            outln!("size     {} bytes", bytes.len());
            describe_saved(&bytes);
            outln!("in use   {in_use}");
        }
    }
    Ok(())
}

/// What the saved card is: its configuration, simulated age and whether this build can use it.
#[cfg(feature = "sim")]
fn describe_saved(bytes: &[u8]) {
    match tsnic_sim::state::inspect(bytes) {
        Ok(info) => {
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs());
            let saved_s = info.saved_unix_ns / 1_000_000_000;
            outln!(
                "saved    {} s ago (Unix time {saved_s})",
                now.saturating_sub(saved_s)
            );
            if let Some(b) = info.board {
                outln!("board    {} (`--backend {}`)", b.card_words(), b.spec());
            }
            outln!(
                "card     {}-bit core at {} MHz, {} cycles = {} of simulated time since power-on",
                info.width.bytes() * 8,
                1_000_000 / info.clk_period_ps.max(1),
                info.cycle,
                fmt_ns(info.cycle.saturating_mul(info.clk_period_ps) / 1000)
            );
            if info.matches_this_build() {
                outln!("build    this build of the core ({})", info.fingerprint);
            } else {
                outln!(
                    "build    another build of the core ({}): this tsnic refuses it; `tsnic sim reset` power-cycles the card",
                    info.fingerprint
                );
            }
        }
        Err(e) => outln!("card     unusable: {e}"),
    }
}

/// Without the simulator this build cannot read a saved card.
#[cfg(not(feature = "sim"))]
fn describe_saved(_bytes: &[u8]) {
    outln!(
        "card     not readable by this build: {}",
        tsnic::device::SIM_NOT_BUILT
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_sim_specs() {
        assert!(sim_options("sim:wide").unwrap().wide);
        assert!(sim_options("mem").is_err());
    }
}
