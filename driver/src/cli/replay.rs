//! `tsnic replay CAPTURE`: send a capture's frames byte for byte with its own inter-packet timing.
//!
//! Packet i leaves at time 0 + (ts_i - ts_0): time 0 is the PHC at start plus a lead, as for
//! `tsnic push` (or, with `--absolute`, the capture's own timestamps are TAI ns of the card's PHC).
//! The capture is read as it is sent (`-`: from stdin, e.g. `zcat x.pcap.gz | tsnic replay -`), in
//! constant memory: see `tsnic::pipeline`.
//!
//! Two things a capture may hold are changed, each with one warning on stderr (a count and the first
//! example): a timestamp that goes backwards (a merged capture) is sent with the packet before it,
//! keeping the capture's order; a frame under 60 bytes (a host-side capture sees frames before the
//! NIC pads them) is padded with zero bytes to 60, as a MAC pads it on the wire, so the output capture
//! holds what a receiver gets.

use std::path::PathBuf;

use anyhow::Result;
use clap::Args;

use super::push::{run_job, Input, RunArgs};

/// Arguments of `tsnic replay`.
#[derive(Args, Debug)]
pub struct ReplayArgs {
    /// The capture (pcap or pcapng, Ethernet); `-`: read it from stdin.
    pub capture: PathBuf,
    /// TX queue to send on.
    #[arg(long, default_value_t = 0, allow_hyphen_values = true, value_parser = super::common::u16_arg)]
    pub queue: u16,
    /// Use the capture's timestamps as absolute TAI launch times instead of relative to the first.
    #[arg(long)]
    pub absolute: bool,
    #[command(flatten)]
    pub run: RunArgs,
}

/// Run `tsnic replay`.
pub fn run(args: ReplayArgs) -> Result<()> {
    run_job(
        &args.run,
        &args.capture,
        args.absolute,
        Input::Capture { queue: args.queue },
    )?;
    Ok(())
}
