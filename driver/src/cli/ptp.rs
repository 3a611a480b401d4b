//! `tsnic ptp`: an IEEE 1588 ordinary clock on the card's port (driver/src/ptp, docs/PTP.md).

use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use clap::Args;
use tsnic::ptp::card::{self, CardPort};
use tsnic::ptp::clock::{state_line, status_line};
use tsnic::ptp::{Addr, Config, Report, Role, Transport};

use super::common::{close_card, open_card, parse_signed_ns};
use crate::cli::out::outln;

/// Arguments of `tsnic ptp`.
#[derive(Args, Debug)]
pub struct PtpArgs {
    /// Card to open (as `tsnic phc`). The command holds the card while it runs: PTP uses TX queue
    /// 0, RX queue 0 and the PHC (docs/PTP.md, "Who owns the card").
    #[arg(long, default_value = "sim")]
    pub backend: String,
    /// Role: auto (BMCA decides), master (never slave), slave (never master, clockClass 255).
    #[arg(long, value_enum, default_value = "auto")]
    pub role: Role,
    /// Transport: l2 (EtherType 0x88F7) or udp4 (224.0.1.129, ports 319/320).
    #[arg(long, value_enum, default_value = "l2")]
    pub transport: Transport,
    /// domainNumber.
    #[arg(long, default_value_t = 0)]
    pub domain: u8,
    /// priority1.
    #[arg(long, default_value_t = 128)]
    pub priority1: u8,
    /// priority2.
    #[arg(long, default_value_t = 128)]
    pub priority2: u8,
    /// logSyncInterval, -7..=4 (0: 1 s; -3: 125 ms).
    #[arg(long, default_value_t = 0, allow_hyphen_values = true,
          value_parser = clap::value_parser!(i8).range(-7..=4))]
    pub log_sync_interval: i8,
    /// This port's MAC (its clockIdentity is the EUI-64 of it).
    #[arg(long, default_value = "02:74:73:6e:69:01", value_parser = parse_mac)]
    pub mac: [u8; 6],
    /// This port's IPv4 address (udp4).
    #[arg(long, default_value = "192.168.33.1")]
    pub ip: std::net::Ipv4Addr,
    /// How long to run (card time; a unit: 60s, 10min is not taken, use 600s).
    #[arg(long, default_value = "60s", value_parser = parse_signed_ns)]
    pub duration: i64,
    /// Do not resume what the clock of an earlier command on this card left (its master, servo and
    /// path delay: docs/PTP.md, "Between commands"); qualify the master afresh.
    #[arg(long)]
    pub fresh: bool,
    /// One JSON object per line (every report, then the summary) instead of text.
    #[arg(long)]
    pub json: bool,
    /// Only the summary.
    #[arg(long)]
    pub quiet: bool,
    /// Simulation only: run two simulated cards in this process joined by a wire model, the first
    /// the grandmaster (its PHC the true time), the second (this command's clock, --role) the
    /// slave, and report its offset to true time (issue 33 item 3). --backend is not used.
    #[arg(long)]
    pub sim_pair: bool,
    /// Simulation only: run this command's clock (--role master or slave) on a simulated card paced
    /// to wall time against linuxptp's ptp4l (the other role; as slave `free_running 1`, never
    /// steering this machine's clock) in a network namespace behind a TAP device, with software
    /// time stamps on the Linux side. Needs root and ptp4l (apt-get install linuxptp).
    #[arg(long, value_parser = ["linux"])]
    pub peer: Option<String>,
    /// --sim-pair: the slave's oscillator error, ppb (the slave card's clock period is scaled).
    #[arg(long, default_value_t = 100_000.0, allow_hyphen_values = true)]
    pub slave_ppb: f64,
    /// --sim-pair: amplitude of the slave's sinusoidal frequency wander, ppb.
    #[arg(long, default_value_t = 10.0)]
    pub wander_ppb: f64,
    /// --sim-pair: period of the wander, s.
    #[arg(long, default_value_t = 300.0)]
    pub wander_period: f64,
    /// --sim-pair: slave PHC minus master PHC at the start (ns or a unit).
    #[arg(long, default_value = "1s", allow_hyphen_values = true, value_parser = parse_signed_ns)]
    pub slave_offset: i64,
    /// --sim-pair: mean one-way wire delay, ps.
    #[arg(long, default_value_t = 1_234_567)]
    pub delay_ps: u64,
    /// --sim-pair: master-to-slave minus slave-to-master delay, ps (PTP cannot see it: the slave
    /// settles half of it off true time).
    #[arg(long, default_value_t = 0, allow_hyphen_values = true)]
    pub asymmetry_ps: i64,
    /// One-step Sync by schedule when master: each Sync is posted with a launch time and carries
    /// launch + the card's TX latency (measured at start) as its originTimestamp; no Follow_Up.
    /// Each Sync's departure stamp is checked against it and a difference counted as a miss.
    #[arg(long)]
    pub one_step: bool,
    /// --sim-pair: the board-size core instead of the small one.
    #[arg(long)]
    pub full_core: bool,
    /// --sim-pair: write every frame on the wire to this pcapng (check: `tshark -r FILE -V`).
    #[arg(long)]
    pub pcap: Option<PathBuf>,
}

fn parse_mac(s: &str) -> std::result::Result<[u8; 6], String> {
    let parts: Vec<&str> = s.split(':').collect();
    let bad =
        || format!("`{s}` is not a MAC address: six hex bytes with colons, e.g. 02:74:73:6e:69:01");
    if parts.len() != 6 {
        return Err(bad());
    }
    let mut m = [0u8; 6];
    for (i, p) in parts.iter().enumerate() {
        m[i] = u8::from_str_radix(p, 16).map_err(|_| bad())?;
    }
    if m[0] & 1 == 1 {
        return Err(format!("`{s}` is a multicast MAC: use a unicast one"));
    }
    Ok(m)
}

fn print_report(a: &PtpArgs, who: &str, t_s: f64, r: &Report) {
    if a.quiet {
        return;
    }
    if a.json {
        let mut v = serde_json::to_value(r).unwrap_or_default();
        if let Some(o) = v.as_object_mut() {
            o.insert("card".into(), who.into());
            o.insert("t_s".into(), t_s.into());
        }
        outln!("{v}");
        return;
    }
    match r {
        Report::Sample(s) => outln!("{who}[{t_s:.3}]: {}", status_line(s)),
        other => {
            if let Some(l) = state_line(other) {
                outln!("{who}[{t_s:.3}]: {l}");
            }
        }
    }
}

/// Run `tsnic ptp`.
pub fn run(a: PtpArgs) -> Result<()> {
    if a.duration <= 0 {
        bail!("--duration must be above 0");
    }
    if a.sim_pair {
        return run_pair(&a);
    }
    if a.peer.is_some() {
        return run_linux(&a);
    }
    if a.pcap.is_some() {
        bail!("--pcap records the wire of --sim-pair; a real port's frames are seen with a capture on the peer");
    }
    let addr = Addr {
        mac: a.mac,
        ip: a.ip.octets(),
    };
    let mut cfg = Config::new(a.role, a.transport, addr);
    cfg.domain = a.domain;
    cfg.priority1 = a.priority1;
    cfg.priority2 = a.priority2;
    cfg.log_sync = a.log_sync_interval;
    cfg.one_step = a.one_step;
    let mut card = open_card(&a.backend)?;
    let mut port = CardPort::open(card.backend(), cfg).context("cannot start PTP on the card")?;
    // what the clock of the command before left on this card (docs/PTP.md, "Between commands")
    let saved_path = tsnic::ptp::saved::path_for(&mut card, &a.backend);
    if let (Some(p), false) = (&saved_path, a.fresh || a.role == Role::Master) {
        match tsnic::ptp::saved::load(p) {
            Ok(Some(s)) => match port.resume(card.backend(), &s) {
                Ok(m) => eprintln!("ptp: {m} ({})", p.display()),
                Err(e) => eprintln!("ptp: {e} ({})", p.display()),
            },
            Ok(None) => {}
            Err(e) => eprintln!("ptp: not resumed: {e}"),
        }
    }
    let start = tsnic::phc::get_ns(card.backend());
    let res = card::run(
        card.backend(),
        &mut port,
        a.duration as u64,
        1_000_000,
        |r| {
            let t = match r {
                Report::Sample(s) => s.t2_ns,
                _ => start,
            };
            print_report(&a, "ptp", t as f64 / 1e9, r);
            true
        },
    );
    let c = port.clock().counters();
    let st = port.clock().state();
    let last = port.clock().last_sample();
    res.context("PTP on the card stopped")?;
    if let Some(p) = &saved_path {
        let s = port.saved(card.backend());
        tsnic::ptp::saved::store(p, s.as_ref())
            .context("the clock's master and servo were not kept for the next command")?;
    }
    if a.json {
        outln!(
            "{}",
            serde_json::json!({"event": "summary", "state": st, "counters": c, "card": port.counters(), "last": last})
        );
    } else {
        outln!(
            "ptp: state {}, sent Sync/Follow_Up/Delay_Req/Delay_Resp/Announce {:?}, used {:?}, ignored {}",
            st.name(),
            c.tx,
            c.rx,
            c.ignored
        );
        if let Some(s) = last {
            outln!("ptp: last {}", status_line(&s));
        }
    }
    close_card(card)
}

#[cfg(not(feature = "sim"))]
fn run_linux(_a: &PtpArgs) -> Result<()> {
    bail!("--peer linux runs the simulated card: this tsnic was built without the simulator (build with the default `sim` feature)")
}

#[cfg(feature = "sim")]
fn run_linux(a: &PtpArgs) -> Result<()> {
    use tsnic::ptp::linux::{self, LinuxConfig};
    if a.role == Role::Auto {
        bail!("--peer linux: give --role master or --role slave (ptp4l takes the other)");
    }
    let seconds = (a.duration as u64).div_ceil(1_000_000_000);
    let cfg = LinuxConfig {
        our_role: a.role,
        transport: a.transport,
        seconds,
        log_sync: a.log_sync_interval,
        log_announce: if a.log_sync_interval < 0 { -1 } else { 1 },
    };
    let mut pcap = match &a.pcap {
        Some(p) => Some(tsnic::capture::PcapNgOut::create(p)?),
        None => None,
    };
    let stop = super::common::stop_on_signals()?;
    let r = linux::run(&cfg, stop, |x| match x {
        Ok(rep) => {
            let t = match rep {
                Report::Sample(s) => s.t2_ns as f64 / 1e9,
                _ => 0.0,
            };
            print_report(a, "tsnic", t, rep)
        }
        Err(line) => {
            if !a.quiet && !a.json {
                outln!("{line}");
            }
        }
    })
    .context("PTP against ptp4l stopped")?;
    if let Some(mut w) = pcap.take() {
        for (ts, f) in &r.wire {
            w.write(*ts, f)?;
        }
        w.finish()?;
    }
    let stats = |v: &[i64]| -> String {
        // after the first half (the lock), |offset|: p50 / max
        let tail: Vec<u64> = v[v.len() / 2..].iter().map(|o| o.unsigned_abs()).collect();
        let mut s = tail.clone();
        s.sort_unstable();
        match s.last() {
            Some(m) => format!(
                "{} samples, second half |offset| p50 {} ns, max {} ns",
                v.len(),
                s[s.len() / 2],
                m
            ),
            None => "no samples".into(),
        }
    };
    if a.json {
        outln!("{}", serde_json::json!({"event": "summary", "linux": r}));
    } else {
        outln!(
            "ptp linux: {} s, our clock {} ({}), frames card->Linux {}, Linux->card {}; card time behind wall time when frames crossed: p50 {} us, p99 {} us, max {} us",
            seconds,
            r.our_state.map(|s| s.name()).unwrap_or("?"),
            if a.role == Role::Slave { "slave of ptp4l" } else { "master of ptp4l -s, free_running" },
            r.frames[0],
            r.frames[1],
            r.lag_ns[0] / 1000,
            r.lag_ns[1] / 1000,
            r.lag_ns[2] / 1000
        );
        if a.role == Role::Slave {
            outln!(
                "ptp linux: our offsets (software stamps on the Linux side): {}",
                stats(&r.our_offsets_ns)
            );
        } else {
            outln!("ptp linux: ptp4l's offsets (free running, so they drift at the two clocks' rate difference): {}", stats(&r.ptp4l_offsets_ns));
        }
    }
    Ok(())
}

#[cfg(not(feature = "sim"))]
fn run_pair(_a: &PtpArgs) -> Result<()> {
    bail!("--sim-pair runs two simulated cards: this tsnic was built without the simulator (build with the default `sim` feature)")
}

#[cfg(feature = "sim")]
fn run_pair(a: &PtpArgs) -> Result<()> {
    use tsnic::ptp::pair::{self, PairConfig};
    if a.role == Role::Master {
        bail!("--sim-pair: this command's clock is the slave card; use --role slave or auto");
    }
    let seconds = (a.duration as u64).div_ceil(1_000_000_000);
    let half = a.asymmetry_ps / 2;
    let ms = a.delay_ps as i64 + half;
    let sm = a.delay_ps as i64 - (a.asymmetry_ps - half);
    if ms < 0 || sm < 0 {
        bail!(
            "--asymmetry-ps {} is larger than twice --delay-ps {}",
            a.asymmetry_ps,
            a.delay_ps
        );
    }
    let cfg = PairConfig {
        transport: a.transport,
        seconds,
        slave_ppb: a.slave_ppb,
        wander_ppb: a.wander_ppb,
        wander_period_s: a.wander_period,
        slave_offset_ns: a.slave_offset,
        delay_ms_ps: ms as u64,
        delay_sm_ps: sm as u64,
        log_sync: a.log_sync_interval,
        slave_role: a.role,
        lock_ns: 100.0,
        settle_s: 10,
        small: !a.full_core,
        record: a.pcap.is_some(),
        one_step: a.one_step,
    };
    if !(-1e7..=1e7).contains(&cfg.slave_ppb) {
        bail!(
            "--slave-ppb {} is outside +/-10000000 ppb (1%), the PHC's trim range",
            cfg.slave_ppb
        );
    }
    if !(0.0..=1e6).contains(&cfg.wander_ppb) || !(1.0..=1e9).contains(&cfg.wander_period_s) {
        bail!("--wander-ppb must be 0..1000000 and --wander-period at least 1 (s)");
    }
    // the capture file first: a path that cannot be written fails before the run, not after it
    let mut pcap = match &a.pcap {
        Some(p) => Some(tsnic::capture::PcapNgOut::create(p)?),
        None => None,
    };
    let wall = std::time::Instant::now();
    let r = pair::run(&cfg, |i, rep| {
        let who = if i == 0 { "master" } else { "slave" };
        let t = match rep {
            Report::Sample(s) => s.t2_ns as f64 / 1e9,
            _ => f64::NAN,
        };
        print_report(a, who, t, rep);
        true
    })
    .context("the simulated pair stopped")?;
    if let Some(mut w) = pcap.take() {
        for (ts, f) in &r.wire {
            w.write(*ts, f)?;
        }
        w.finish()?;
    }
    if a.json {
        outln!(
            "{}",
            serde_json::json!({"event": "summary", "pair": r, "wall_s": wall.elapsed().as_secs_f64()})
        );
    } else {
        outln!(
            "ptp pair: {} simulated s in {:.1} wall s; slave {} after {} step(s); frames master->slave {}, slave->master {}, late injections {}",
            seconds,
            wall.elapsed().as_secs_f64(),
            r.slave_state.map(|s| s.name()).unwrap_or("?"),
            r.slave_steps,
            r.frames[0],
            r.frames[1],
            r.late_injections
        );
        outln!(
            "ptp pair: mean offset to true time from 10 s after lock {:+.2} ns (asymmetry {} ps: PTP cannot see it, expect {:+.2} ns)",
            r.mean_ns,
            a.asymmetry_ps,
            (sm - ms) as f64 / 2000.0
        );
        match r.lock_s {
            Some(l) => outln!(
                "ptp pair: figures over |offset to true time| from 10 s after lock to the end\nptp pair: p50 {:.1} ns, p99 {:.1} ns, max {:.1} ns, lock {} s, one-step misses {}",
                r.p50_ns,
                r.p99_ns,
                r.max_ns,
                l,
                if a.one_step {
                    format!("{} of {}", r.one_step_misses, r.one_step_syncs)
                } else {
                    "n/a (two-step run: --one-step)".into()
                }
            ),
            None => bail!("the slave did not stay within 100 ns of true time to the end ({} s)", seconds),
        }
    }
    if r.late_injections > 0 {
        bail!(
            "{} frame(s) reached the other card after their arrival time: a pair-model bug",
            r.late_injections
        );
    }
    Ok(())
}
