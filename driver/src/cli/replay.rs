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

use tsnic::pipeline::schedule::Retime;

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
    /// Play the capture this many times faster (0.5: half speed): frame i leaves at time 0 +
    /// round((t_i - t_0) / X). A decimal number, e.g. 2, 0.25, 1.5.
    #[arg(long, value_name = "X", value_parser = parse_speed, conflicts_with_all = ["pps", "mbps"])]
    pub speed: Option<(u64, u64)>,
    /// Re-time the capture to N packets per second: frame i leaves at time 0 + round(i * 10^9 / N).
    #[arg(long, value_name = "N", value_parser = positive, conflicts_with = "mbps")]
    pub pps: Option<u64>,
    /// Re-time the capture to N Mb/s of frame bits (frame + FCS): frame i leaves at time 0 +
    /// round(B_i * 1000 / N), B_i the bits of the frames before it.
    #[arg(long, value_name = "N", value_parser = positive)]
    pub mbps: Option<u64>,
    /// Send the capture N times over: pass k sends frame i at time 0 + k * P + r_i (r_i its time in
    /// the pass as above, P the first pass's last r plus one gap: the capture's mean gap, or one
    /// --pps / --mbps interval), computed, never accumulated, so passes do not drift. Needs a file.
    #[arg(long = "loop", value_name = "N", default_value_t = 1, value_parser = positive32)]
    pub passes: u32,
    /// Spread the packets over N queues (--queue and the N - 1 after it) by flow: IP addresses,
    /// protocol and ports (or MACs and EtherType), hashed; a flow keeps its queue and its order.
    /// Default: 1, or --threads.
    #[arg(long, value_name = "N", value_parser = positive16)]
    pub queues: Option<u16>,
    /// How packets choose their queue: `flow` (by flow hash over --queues, above), or
    /// `interface`: a pcapng packet goes on --queue + its interface's number in its section (a
    /// pcap file is interface 0), at most --queues interfaces (default: up to the card's last queue).
    #[arg(long, value_enum, default_value_t = QueueBy::Flow)]
    pub queue_by: QueueBy,
    /// Send at most N frames (over all passes).
    #[arg(long, value_name = "N", value_parser = positive)]
    pub limit: Option<u64>,
    #[command(flatten)]
    pub run: RunArgs,
}

/// `--queue-by`: what picks a packet's queue.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueueBy {
    /// Its flow's hash, over --queues.
    Flow,
    /// Its pcapng interface: --queue + the interface's number.
    Interface,
}

/// A positive whole number.
fn positive(s: &str) -> Result<u64, String> {
    match super::common::u64_arg(s)? {
        0 => Err(format!("`{s}` must be at least 1")),
        v => Ok(v),
    }
}

fn positive16(s: &str) -> Result<u16, String> {
    let v = positive(s)?;
    u16::try_from(v).map_err(|_| format!("`{s}` is more than {}", u16::MAX))
}

fn positive32(s: &str) -> Result<u32, String> {
    let v = positive(s)?;
    u32::try_from(v).map_err(|_| format!("`{s}` is more than {}", u32::MAX))
}

/// A positive decimal speed factor as num/den (`1.25` -> 125/100): exact, no float rounding.
fn parse_speed(s: &str) -> Result<(u64, u64), String> {
    let t = s.trim();
    let (int, frac) = t.split_once('.').unwrap_or((t, ""));
    let bad =
        || format!("`{s}` is not a speed factor: a positive decimal number such as 2, 0.5 or 1.25");
    if int.is_empty() && frac.is_empty()
        || !int.bytes().all(|b| b.is_ascii_digit())
        || !frac.bytes().all(|b| b.is_ascii_digit())
        || frac.len() > 9
    {
        return Err(bad());
    }
    let den = 10u64.pow(frac.len() as u32);
    let num = format!("{int}{frac}").parse::<u64>().map_err(|_| bad())?;
    if num == 0 {
        return Err(format!("`{s}`: the speed must be above 0"));
    }
    if num > u64::MAX / 1_000_000_000 {
        return Err(format!(
            "`{s}`: at most 18446744073 (a factor beyond that sends every frame at once)"
        ));
    }
    Ok((num, den))
}

/// Run `tsnic replay`.
pub fn run(args: ReplayArgs) -> Result<()> {
    run_job(
        &args.run,
        &args.capture,
        args.absolute,
        Input::Capture {
            queue: args.queue,
            retime: match (args.speed, args.pps, args.mbps) {
                (Some((num, den)), _, _) => Retime::Speed { num, den },
                (_, Some(n), _) => Retime::Pps(n),
                (_, _, Some(n)) => Retime::Mbps(n),
                _ => Retime::Capture,
            },
            passes: args.passes,
            limit: args.limit.unwrap_or(u64::MAX),
            spread: match args.queue_by {
                QueueBy::Interface => args.queues.unwrap_or(0),
                QueueBy::Flow => args
                    .queues
                    .unwrap_or(u16::try_from(args.run.threads).unwrap_or(u16::MAX)),
            },
            by_interface: args.queue_by == QueueBy::Interface,
        },
    )?;
    Ok(())
}
