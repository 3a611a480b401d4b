//! `tsnic info`: the card's identity and capabilities.

use crate::cli::out::outln;
use anyhow::Result;
use clap::Args;
use tsnic::contract::reg;
use tsnic::link::LinkStatus;
use tsnic::regs::{CtrlStatus, Features};

use super::common::{close_card_read_only, fmt_ns, open_card};

/// Arguments of `tsnic info`.
#[derive(Args, Debug)]
pub struct InfoArgs {
    /// Card to open: `sim` (Verilated RTL at the board's size; `sim:small` for 8 queues, 1024 entries
    /// and a 100 ms horizon, `sim:wide`, `sim:state=PATH|none`), `vfio:DDDD:BB:DD.F` (a real card;
    /// `vfio:DDDD:BB:DD.F,poll` polls instead of waiting on its interrupt), `mem` (no card), `null` (a host thread standing in for the card, for host benchmarks).
    #[arg(long, default_value = "sim")]
    pub backend: String,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// Run `tsnic info`.
pub fn run(args: InfoArgs) -> Result<()> {
    let mut card = open_card(&args.backend)?;
    let caps = card.caps().clone();
    let describe = card.backend().describe();
    let status = CtrlStatus::from_bits_truncate(card.backend().read32(reg::CTRL_STATUS));
    let phc_ns = tsnic::phc::get_ns(card.backend());
    let link = LinkStatus::from_raw(card.backend().read32(reg::MAC_LINK_STATUS));
    let features = Features::from_bits_truncate(caps.features);
    close_card_read_only(card)?;
    if args.json {
        let v = serde_json::json!({
            "backend": describe,
            "caps": caps,
            "features": features.names(),
            "running": status.contains(CtrlStatus::RUNNING),
            "phc_ns": phc_ns,
            "link": {
                "text": link.to_string(),
                "status": link,
            },
        });
        outln!("{}", serde_json::to_string_pretty(&v)?);
        return Ok(());
    }
    let rows: Vec<(&str, String)> = vec![
        ("backend", describe),
        (
            "contract version",
            format!("{}.{}", caps.version_major, caps.version_minor),
        ),
        ("TX queues", caps.num_queues.to_string()),
        (
            "core clock",
            format!(
                "{:.6} MHz ({:.4} ns)",
                caps.clk_freq_hz as f64 / 1e6,
                caps.clk_period_ns()
            ),
        ),
        ("TX data width", format!("{} bit", caps.tx_data_width)),
        (
            "calendar",
            format!(
                "{} slots x {} ns, {} entries",
                caps.slots, caps.slot_ns, caps.nodes
            ),
        ),
        ("horizon", fmt_ns(caps.horizon_ns)),
        ("largest ring", format!("2^{} entries", caps.ring_log2_max)),
        (
            "largest frame",
            format!("{} bytes (without FCS)", caps.max_frame_len),
        ),
        (
            "features",
            if features.is_empty() {
                "none".into()
            } else {
                features.names().join(", ")
            },
        ),
        (
            "queue registers",
            format!("{:#x} + q * {:#x}", caps.queue_base, caps.queue_stride),
        ),
        (
            "core",
            if status.contains(CtrlStatus::RUNNING) {
                "running".into()
            } else {
                "stopped".into()
            },
        ),
        ("PHC", fmt_ns(phc_ns)),
        ("link", link.to_string()),
    ];
    let w = rows.iter().map(|r| r.0.len()).max().unwrap_or(0);
    for (k, v) in rows {
        outln!("{k:<w$}  {v}");
    }
    Ok(())
}
