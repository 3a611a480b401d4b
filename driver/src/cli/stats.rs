//! `tsnic stats`: the card's counters.

use crate::cli::out::{out, outln};
use anyhow::{bail, Result};
use clap::Args;
use tsnic::contract::reg;

use super::common::{close_card_read_only, open_card};

/// Arguments of `tsnic stats`.
#[derive(Args, Debug)]
pub struct StatsArgs {
    /// Card to open: `sim` (Verilated RTL at the board's size; `sim:small` for 8 queues, 1024 entries
    /// and a 100 ms horizon, `sim:wide`, `sim:state=PATH|none`), `vfio:DDDD:BB:DD.F` (a real card;
    /// `vfio:DDDD:BB:DD.F,poll` polls instead of waiting on its interrupt), `mem` (no card), `null` (a host thread standing in for the card, for host benchmarks).
    #[arg(long, default_value = "sim")]
    pub backend: String,
    /// Show only this queue's counters (default: every queue with a non-zero counter).
    #[arg(long, allow_hyphen_values = true, value_parser = super::common::u16_arg)]
    pub queue: Option<u16>,
    /// Show every queue, zeros included.
    #[arg(long, conflicts_with = "queue")]
    pub all: bool,
    /// Print JSON instead of tables.
    #[arg(long)]
    pub json: bool,
}

/// Global counters: name, LO offset, HI offset.
const GLOBAL: [(&str, usize, usize); 9] = [
    ("posted", reg::CNT_POSTED_LO, reg::CNT_POSTED_HI),
    ("sent", reg::CNT_SENT_LO, reg::CNT_SENT_HI),
    ("sent_late", reg::CNT_SENT_LATE_LO, reg::CNT_SENT_LATE_HI),
    (
        "dropped_late",
        reg::CNT_DROPPED_LATE_LO,
        reg::CNT_DROPPED_LATE_HI,
    ),
    (
        "dropped_horizon",
        reg::CNT_DROPPED_HORIZON_LO,
        reg::CNT_DROPPED_HORIZON_HI,
    ),
    ("flushed", reg::CNT_FLUSHED_LO, reg::CNT_FLUSHED_HI),
    ("rejected", reg::CNT_REJECTED_LO, reg::CNT_REJECTED_HI),
    ("tx_bytes", reg::CNT_TX_BYTES_LO, reg::CNT_TX_BYTES_HI),
    ("dma_error", reg::CNT_DMA_ERROR_LO, reg::CNT_DMA_ERROR_HI),
];

/// Per-queue counters.
const PER_QUEUE: [(&str, usize); 8] = [
    ("posted", reg::Q_CNT_POSTED),
    ("sent", reg::Q_CNT_SENT),
    ("sent_late", reg::Q_CNT_SENT_LATE),
    ("dropped_late", reg::Q_CNT_DROPPED_LATE),
    ("dropped_horizon", reg::Q_CNT_DROPPED_HORIZON),
    ("flushed", reg::Q_CNT_FLUSHED),
    ("rejected", reg::Q_CNT_REJECTED),
    ("dma_error", reg::Q_CNT_DMA_ERROR),
];

/// Run `tsnic stats`.
pub fn run(args: StatsArgs) -> Result<()> {
    let mut card = open_card(&args.backend)?;
    let caps = card.caps().clone();
    if let Some(q) = args.queue {
        if q as u32 >= caps.num_queues {
            bail!(
                "queue {q} does not exist: the card has {} queues (0..={})",
                caps.num_queues,
                caps.num_queues - 1
            );
        }
    }
    let global: Vec<(&str, u64)> = GLOBAL
        .iter()
        .map(|&(n, lo, hi)| (n, card.read_u64(lo, hi)))
        .collect();
    let queues: Vec<u16> = match args.queue {
        Some(q) => vec![q],
        None => (0..caps.num_queues as u16).collect(),
    };
    let mut per_queue: Vec<(u16, Vec<u32>)> = Vec::new();
    for q in queues {
        let vals: Vec<u32> = PER_QUEUE
            .iter()
            .map(|&(_, r)| card.backend().read32(caps.q_reg(q, r)))
            .collect();
        if args.all || args.queue.is_some() || vals.iter().any(|&v| v != 0) {
            per_queue.push((q, vals));
        }
    }
    close_card_read_only(card)?;
    if args.json {
        let g: serde_json::Map<String, serde_json::Value> = global
            .iter()
            .map(|(n, v)| (n.to_string(), (*v).into()))
            .collect();
        let qs: Vec<serde_json::Value> = per_queue
            .iter()
            .map(|(q, vals)| {
                let mut m = serde_json::Map::new();
                m.insert("queue".into(), (*q).into());
                for (i, (n, _)) in PER_QUEUE.iter().enumerate() {
                    m.insert(n.to_string(), vals[i].into());
                }
                serde_json::Value::Object(m)
            })
            .collect();
        outln!(
            "{}",
            serde_json::to_string_pretty(&serde_json::json!({ "global": g, "queues": qs }))?
        );
        return Ok(());
    }
    outln!("{:<16} {:>20}", "counter", "value");
    for (n, v) in &global {
        outln!("{n:<16} {v:>20}");
    }
    if per_queue.is_empty() {
        outln!("\nno queue has a non-zero counter (--all shows them anyway)");
        return Ok(());
    }
    out!("\n{:>5}", "queue");
    for (n, _) in PER_QUEUE {
        out!(" {n:>15}");
    }
    outln!();
    for (q, vals) in per_queue {
        out!("{q:>5}");
        for v in vals {
            out!(" {v:>15}");
        }
        outln!();
    }
    Ok(())
}
