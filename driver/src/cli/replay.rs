//! `tsnic replay CAPTURE`: send a capture's frames byte for byte with its own inter-packet timing.
//!
//! Packet i leaves at time 0 + (ts_i - ts_0): time 0 is the PHC at start plus a lead, as for
//! `tsnic push` (or, with `--absolute`, the capture's own timestamps are TAI ns of the card's PHC).
//!
//! Two things a capture may hold are changed, each with one warning on stderr (a count and the first
//! example): a timestamp that goes backwards (a merged capture) is sent with the packet before it,
//! keeping the capture's order; a frame under 60 bytes (a host-side capture sees frames before the
//! NIC pads them) is padded with zero bytes to 60, as a MAC pads it on the wire, so the output capture
//! holds what a receiver gets.

use std::path::PathBuf;

use anyhow::{anyhow, bail, Context, Result};
use clap::Args;
use tsnic::capture;
use tsnic::push::{FrameSource, JobFrame};

use super::push::{check_run_outputs, open, run_and_report, time_zero, tune_lookahead, RunArgs};

/// The shortest Ethernet frame without FCS: shorter frames are padded to it.
const MIN_FRAME: usize = 60;

/// Arguments of `tsnic replay`.
#[derive(Args, Debug)]
pub struct ReplayArgs {
    /// The capture (pcap or pcapng, Ethernet).
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

/// Frames straight from the capture.
struct CaptureFrames(Vec<Vec<u8>>);

impl FrameSource for CaptureFrames {
    fn frame(&self, f: &JobFrame, out: &mut Vec<u8>) {
        out.clear();
        out.extend_from_slice(&self.0[f.index as usize]);
    }
}

/// Run `tsnic replay`.
pub fn run(args: ReplayArgs) -> Result<()> {
    super::common::stop_on_signals()?;
    if args.capture.as_os_str() == "-" && !args.capture.exists() {
        bail!("replay reads a capture file, not stdin (`-`): save the capture to a file first (e.g. `tcpdump -w x.pcap`, or `cat > x.pcap`), then `tsnic replay x.pcap`");
    }
    check_run_outputs(&args.run, "the capture", &args.capture)?;
    let mut pkts = capture::read(&args.capture).context("cannot replay it")?;
    if pkts.is_empty() {
        bail!(
            "{} holds no packets: nothing to replay",
            args.capture.display()
        );
    }
    for (i, p) in pkts.iter().enumerate() {
        if (p.orig_len as usize) > p.data.len() {
            bail!(
                "{}: packet {i} was captured truncated ({} of {} bytes): it cannot be replayed byte for byte; recapture with a larger snap length; nothing was sent",
                args.capture.display(),
                p.data.len(),
                p.orig_len
            );
        }
    }
    let mut opened = open(&args.run)?;
    let caps = opened.card.caps().clone();
    if u32::from(args.queue) >= caps.num_queues {
        bail!(
            "--queue {} does not exist: the card has {} queue(s)",
            args.queue,
            caps.num_queues
        );
    }
    for (i, p) in pkts.iter().enumerate() {
        if p.data.is_empty() || p.data.len() > caps.max_frame_len as usize {
            bail!(
                "{}: packet {i} is {} bytes; the card sends 1..={} bytes (without FCS); nothing was sent",
                args.capture.display(),
                p.data.len(),
                caps.max_frame_len
            );
        }
    }
    let runts: Vec<usize> = (0..pkts.len())
        .filter(|&i| pkts[i].data.len() < MIN_FRAME)
        .collect();
    if let Some(&first) = runts.first() {
        eprintln!(
            "warning: {} packet(s) under {MIN_FRAME} bytes (the first: packet {first}, {} bytes) are padded with zeros to {MIN_FRAME} bytes, as a MAC pads them",
            runts.len(),
            pkts[first].data.len()
        );
        for &i in &runts {
            pkts[i].data.resize(MIN_FRAME, 0);
        }
    }
    let ts0 = pkts[0].ts_ns;
    let max_len = pkts.iter().map(|p| p.data.len() as u32).max().unwrap_or(60);
    tune_lookahead(&mut opened.card, &args.run, max_len);
    let (t0, lead) = if args.absolute {
        (0, 0)
    } else {
        time_zero(&mut opened.card, &args.run, pkts.len(), 1)?
    };
    let mut frames = Vec::with_capacity(pkts.len());
    let mut prev = 0u64;
    let mut backwards = 0u64;
    let mut first_back: Option<(usize, u64)> = None;
    for (i, p) in pkts.iter().enumerate() {
        let t = if args.absolute {
            p.ts_ns
        } else {
            let rel = p.ts_ns.saturating_sub(ts0);
            t0.checked_add(rel).ok_or_else(|| {
                anyhow!("packet {i}: time 0 ({t0} ns) plus {rel} ns overflows 64 bits; nothing was sent")
            })?
        };
        // A timestamp that goes backwards (a merged capture) is due with the packet before it, so the
        // capture's order is kept (ties leave in posting order within a queue).
        if i > 0 && p.ts_ns < pkts[i - 1].ts_ns {
            backwards += 1;
            first_back.get_or_insert((i, pkts[i - 1].ts_ns - p.ts_ns));
        }
        let launch_ns = t.max(prev);
        prev = launch_ns;
        frames.push(JobFrame {
            index: i as u64,
            queue: args.queue,
            len: p.data.len() as u32,
            launch_ns,
        });
    }
    if let Some((i, back)) = first_back {
        eprintln!(
            "warning: {backwards} packet timestamp(s) go backwards (the first: packet {i}, {back} ns before packet {}); each is sent with the packet before it, in capture order",
            i - 1
        );
    }
    let src = CaptureFrames(pkts.into_iter().map(|p| p.data).collect());
    run_and_report(opened, &args.run, &frames, &src, t0, lead, false)?;
    Ok(())
}
