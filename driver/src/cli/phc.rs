//! `tsnic phc get|set|adj|freq|sync`: the card's PTP hardware clock.

use crate::cli::out::outln;
use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};
use tsnic::phc::{self, PiServo, ServoState, MAX_ADJFINE_PPB};

use super::common::{close_card, close_card_read_only, fmt_ns, open_card, parse_signed_ns};

/// Arguments of `tsnic phc`.
#[derive(Args, Debug)]
pub struct PhcArgs {
    /// Card to open: `sim` (Verilated RTL at the board's size; `sim:small` for 8 queues, 1024 entries
    /// and a 100 ms horizon, `sim:wide`, `sim:state=PATH|none`), `vfio:DDDD:BB:DD.F` (a real card;
    /// `vfio:DDDD:BB:DD.F,poll` polls instead of waiting on its interrupt), `mem` (no card; its PHC is the Rust model of the RTL), `null` (a host thread standing in for the card; its PHC is that model on the host clock, set to CLOCK_TAI).
    #[arg(long, default_value = "sim", global = true)]
    pub backend: String,
    /// What to do.
    #[command(subcommand)]
    pub cmd: PhcCmd,
}

/// `tsnic phc` subcommands.
#[derive(Subcommand, Debug)]
pub enum PhcCmd {
    /// Read the clock (TAI) and its offset from the host's CLOCK_TAI.
    Get,
    /// Step the clock to an absolute TAI time (ns, or with a unit: 5s, 1.5ms), or to the host's
    /// CLOCK_TAI with --host. At most 2^63 - 1 ns (TAI 2262-04-11).
    Set {
        /// TAI time: ns, or with a unit (ns, us, ms, s).
        #[arg(required_unless_present = "host", allow_hyphen_values = true, value_parser = parse_tai)]
        ns: Option<u64>,
        /// Step to the host clock instead.
        #[arg(long, conflicts_with = "ns")]
        host: bool,
    },
    /// Add a signed offset atomically (adjtime): -1500, +2us, 1.5ms.
    Adj {
        /// Offset (ns, or with a unit ns/us/ms/s).
        #[arg(allow_hyphen_values = true, value_parser = parse_signed_ns)]
        delta: i64,
    },
    /// Print the frequency trim, or set it in ppb (adjfine).
    Freq {
        /// New trim in parts per billion (positive: faster).
        #[arg(allow_hyphen_values = true, value_parser = super::common::ppb_arg)]
        ppb: Option<i64>,
    },
    /// Lock the clock to the host's CLOCK_TAI with a PI servo, as phc2sys does. Fails (after its
    /// table) when the offset did not settle under 50 ns.
    Sync {
        /// Time between samples, up to 1 hour (default 1s on vfio, 10ms on sim/mem where waiting is
        /// simulated).
        #[arg(long, allow_hyphen_values = true, value_parser = parse_signed_ns)]
        interval: Option<i64>,
        /// Number of samples (at least 1; on sim/mem, samples x interval at most one day of
        /// simulated time).
        #[arg(long, default_value_t = 60, allow_hyphen_values = true, value_parser = super::common::u64_arg)]
        samples: u64,
        /// sim/mem only: make the modelled host clock run this many ppb off the card's oscillator.
        #[arg(long, allow_hyphen_values = true)]
        host_error_ppb: Option<f64>,
        /// sim/mem only: step the modelled host clock by this much halfway through (ns or a unit).
        #[arg(long, allow_hyphen_values = true, value_parser = parse_signed_ns)]
        host_step: Option<i64>,
        /// Print only the summary.
        #[arg(long)]
        quiet: bool,
    },
}

/// A TAI time for `phc set`: ns, or with a unit (`5s`, `1.5ms`); not negative.
fn parse_tai(s: &str) -> std::result::Result<u64, String> {
    // A plain count of ns is taken whole (a value past the PHC's range is refused with the range).
    if let Ok(v) = s.trim().parse::<u64>() {
        return Ok(v);
    }
    let v = parse_signed_ns(s).map_err(|e| {
        format!("{e} (a TAI time: ns like 5000000000, or with a unit like 5s; or --host)")
    })?;
    u64::try_from(v).map_err(|_| format!("`{s}` is before TAI 0: give a time of 0 or later"))
}

/// Longest `phc sync --interval`: 1 hour.
const MAX_SYNC_INTERVAL_NS: u64 = 3_600_000_000_000;

/// Most simulated time one `phc sync` may take on sim/mem: one day (a few seconds of wall time).
const MAX_SYNC_SIMULATED_NS: u64 = 86_400_000_000_000;

/// Run `tsnic phc`.
pub fn run(args: PhcArgs) -> Result<()> {
    // Refusals of the arguments alone come before the card is opened (nothing is touched).
    if let PhcCmd::Sync {
        interval,
        samples,
        host_error_ppb,
        ..
    } = &args.cmd
    {
        if let Some(e) = host_error_ppb {
            if !e.is_finite() || e.abs() > MAX_ADJFINE_PPB as f64 {
                bail!(
                    "--host-error-ppb {e}: outside +/-{MAX_ADJFINE_PPB} ppb, the most the card's frequency trim can follow (a host clock further off cannot be tracked): use a value within it"
                );
            }
        }
        if *samples == 0 {
            bail!("--samples 0 takes no sample: give at least 1 (the default is 60)");
        }
        if let Some(i) = interval {
            if *i <= 0 {
                bail!("--interval must be positive: e.g. 10ms, 1s");
            }
            if *i as u64 > MAX_SYNC_INTERVAL_NS {
                bail!(
                    "--interval {} is over an hour: the servo corrects the clock once per sample, so use 1 hour or less (phc2sys samples once a second)",
                    fmt_ns(*i as u64)
                );
            }
        }
    }
    let read_only = matches!(args.cmd, PhcCmd::Get | PhcCmd::Freq { ppb: None });
    let mut card = open_card(&args.backend)?;
    let b = card.backend();
    match args.cmd {
        PhcCmd::Get => {
            let t = phc::get(b);
            let s = phc::measure_offset(b, 5);
            outln!(
                "phc        {} (TAI {} ns + {:.3} ns)",
                fmt_ns(t.ns),
                t.ns,
                t.frac32 as f64 / 4294967296.0
            );
            outln!("freq       {} ppb", phc::freq(b));
            outln!(
                "offset     {} ns from the host CLOCK_TAI (read delay {} ns)",
                s.offset_ns,
                s.delay_ns
            );
            outln!("steps      {}", phc::step_count(b));
        }
        PhcCmd::Set { ns, host } => {
            let target = if host {
                b.now_ns()
            } else {
                ns.context("give the TAI time in ns, or --host")?
            };
            phc::check_time(target, "the new time")?;
            phc::set(b, target);
            outln!("phc set to {} ({target} ns)", fmt_ns(target));
        }
        PhcCmd::Adj { delta } => {
            let now = phc::get_ns(b);
            if delta < 0 && delta.unsigned_abs() > now {
                bail!(
                    "adjusting by {delta} ns would put the clock before TAI 0 (it reads {now} ns): set it first with `tsnic phc set`"
                );
            }
            if delta > 0 {
                phc::check_time(now.saturating_add(delta as u64), "the clock after the step")
                    .with_context(|| {
                        format!("adjusting by {delta:+} ns from {now} ns would pass the limit")
                    })?;
            }
            phc::adjtime(b, delta);
            outln!(
                "phc adjusted by {delta:+} ns, now {}",
                fmt_ns(phc::get_ns(b))
            );
        }
        PhcCmd::Freq { ppb: None } => outln!("{} ppb", phc::freq(b)),
        PhcCmd::Freq { ppb: Some(ppb) } => {
            phc::adjfine(b, ppb)?;
            outln!("frequency trim set to {ppb} ppb");
        }
        PhcCmd::Sync {
            interval,
            samples,
            host_error_ppb,
            host_step,
            quiet,
        } => {
            let default_ns = if args.backend.starts_with("vfio") {
                1_000_000_000
            } else {
                10_000_000
            };
            let interval_ns = interval.unwrap_or(default_ns) as u64;
            let total_ns = interval_ns.saturating_mul(samples);
            let simulated = b.sim_time_ns().is_some();
            if simulated && total_ns > MAX_SYNC_SIMULATED_NS {
                bail!(
                    "{samples} samples every {} is {} of simulated time, over the limit of one day on sim/mem (each simulated day takes seconds to minutes here): use fewer --samples or a shorter --interval",
                    fmt_ns(interval_ns),
                    fmt_ns(total_ns)
                );
            }
            // Say up front how long it will take: a sync of long intervals prints nothing for a while.
            if total_ns >= 10_000_000_000 {
                eprintln!(
                    "phc sync: {samples} samples every {} = {} of {} time",
                    fmt_ns(interval_ns),
                    fmt_ns(total_ns),
                    if simulated { "simulated" } else { "real" }
                );
            }
            if let Some(ppb) = host_error_ppb {
                if !b.set_host_freq_error_ppb(ppb) {
                    bail!("--host-error-ppb needs a modelled host clock: use --backend sim or mem");
                }
            }
            if host_step.is_some() && b.sim_time_ns().is_none() {
                bail!("--host-step needs a modelled host clock: use --backend sim or mem");
            }
            let mut servo = PiServo::new(
                interval_ns as f64 / 1e9,
                phc::freq(b) as f64,
                MAX_ADJFINE_PPB as f64,
            );
            if !quiet {
                outln!(
                    "{:>6} {:>14} {:>12} {:>8}  state",
                    "sample",
                    "offset_ns",
                    "freq_ppb",
                    "delay_ns"
                );
            }
            // Ctrl-C / SIGTERM: stop after the sample in progress; the card keeps (and saves) the
            // trim and steps made so far, the table so far is printed, and the command fails.
            let stop = super::common::stop_on_signals()?;
            let stopped = || stop.load(std::sync::atomic::Ordering::Relaxed);
            let half = samples / 2;
            let mut log = Vec::new();
            let mut printed = 0u64;
            while (log.len() as u64) < samples && !stopped() {
                let done = log.len() as u64;
                let chunk = if host_step.is_some() && done < half {
                    half - done
                } else {
                    samples - done
                };
                let part = phc::sync(b, &mut servo, interval_ns, chunk, |s| {
                    printed += 1;
                    if !quiet {
                        let st = match s.state {
                            ServoState::Unlocked => "unlocked",
                            ServoState::Jump => "step",
                            ServoState::Locked => "locked",
                        };
                        outln!(
                            "{printed:>6} {:>14} {:>12} {:>8}  {st}",
                            s.sample.offset_ns,
                            s.freq_ppb,
                            s.sample.delay_ns
                        );
                    }
                    !stopped()
                })?;
                log.extend(part);
                if log.len() as u64 == half {
                    if let Some(d) = host_step {
                        b.step_host_clock(d);
                        if !quiet {
                            outln!("-- host clock stepped by {d:+} ns --");
                        }
                    }
                }
            }
            if stopped() {
                outln!(
                    "stopped after {} of {samples} samples: last offset {} ns, trim {} ppb",
                    log.len(),
                    log.last().map_or(0, |s| s.sample.offset_ns),
                    log.last().map_or(0, |s| s.freq_ppb)
                );
                close_card(card)?;
                bail!(
                    "phc sync was stopped by a signal after {} of {samples} samples: the clock keeps the trim and steps made so far; run it again to finish",
                    log.len()
                );
            }
            // Settled: from this sample on every |offset| stays under 50 ns.
            let settled = log
                .iter()
                .rposition(|s| s.sample.offset_ns.abs() >= 50)
                .map_or(0, |i| i + 1);
            let worst_tail = log[settled.min(log.len())..]
                .iter()
                .map(|s| s.sample.offset_ns.abs())
                .max();
            match worst_tail {
                Some(w) => outln!(
                    "{} samples every {} ns: |offset| under 50 ns from sample {} on (worst there {} ns), final trim {} ppb",
                    log.len(),
                    interval_ns,
                    settled + 1,
                    w,
                    log.last().map_or(0, |s| s.freq_ppb)
                ),
                None => {
                    outln!(
                        "{} samples every {} ns: not settled under 50 ns (last offset {} ns)",
                        log.len(),
                        interval_ns,
                        log.last().map_or(0, |s| s.sample.offset_ns)
                    );
                    close_card(card)?;
                    bail!("the clock did not settle under 50 ns in {} samples: run more samples (--samples), or look for a noisy host clock", log.len());
                }
            }
        }
    }
    if read_only {
        close_card_read_only(card)
    } else {
        close_card(card)
    }
}
