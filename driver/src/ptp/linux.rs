//! The clock on the simulated card against linuxptp (issue 33 item 4): ptp4l runs in a network
//! namespace on the kernel side of a TAP device (the Linux peer harness, [`crate::peer::netns`])
//! with software time stamping; this process holds the TAP's file descriptor and the Verilated
//! card. The card's simulated time is **paced to wall time** (CLOCK_MONOTONIC) and runs
//! `LEAD_NS` (20 ms) ahead of it: a frame the card sends departs at card time s and is handed to
//! Linux when wall time reaches s (spinning the last 150 us), so the card, which simulates a busy
//! stretch far slower than real time (about 1 us per wall ms), has it ready in time; a frame Linux
//! sends, read at wall time w, enters the card's RX line at card time w + LEAD_NS, and the card's
//! RX latency compensation (RX_LAT_COMP_NS, the register for a fixed ingress latency) takes
//! LEAD_NS off its arrival stamp. How late frames crossed (handed to Linux after their departure,
//! or put on the card's line after the card had passed their arrival) is reported: it adds to the
//! error, as Linux's software stamps do (scheduling and interrupt latency). On a loaded machine the
//! process is descheduled for whole scheduler ticks (4 ms here), which shows as late frames.
//!
//! Our clock is the slave and ptp4l the master, or our clock the master and ptp4l a slave with
//! `free_running 1` (it never steers this machine's clock; it only reports the offsets it sees).
//! The card's PHC starts at the host's CLOCK_REALTIME plus the announced UTC offset (37 s), i.e. TAI.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::card::{CardPort, PtpError};
use super::clock::{Config, PortState, Report, Role};
use super::msg::{Addr, Transport};
use crate::device::sim::{SimBackend, SimConfig};
use crate::device::Backend;
use crate::peer::netns::{self, Netns, Station};
use crate::peer::sys;
use crate::phc;

/// Where ptp4l is looked for.
pub const PTP4L: [&str; 3] = ["/usr/sbin/ptp4l", "/usr/bin/ptp4l", "/usr/local/sbin/ptp4l"];

/// Configuration of a run against ptp4l.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LinuxConfig {
    /// Our clock's role: `Slave` (ptp4l is the master) or `Master` (ptp4l -s, free running).
    pub our_role: Role,
    /// Transport (ptp4l's `network_transport` L2 or UDPv4).
    pub transport: Transport,
    /// Wall seconds to run.
    pub seconds: u64,
    /// logSyncInterval of both ends.
    pub log_sync: i8,
    /// logAnnounceInterval of both ends.
    pub log_announce: i8,
}

impl Default for LinuxConfig {
    fn default() -> Self {
        LinuxConfig {
            our_role: Role::Slave,
            transport: Transport::L2,
            seconds: 20,
            log_sync: -2,
            log_announce: -1,
        }
    }
}

/// What a run saw.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct LinuxResult {
    /// ptp4l's `master offset` values (when ptp4l is the slave), ns, in order.
    pub ptp4l_offsets_ns: Vec<i64>,
    /// ptp4l's `path delay` values, ns.
    pub ptp4l_path_delay_ns: Vec<i64>,
    /// Our servo's offsets (when we are the slave), ns, in order.
    pub our_offsets_ns: Vec<i64>,
    /// Our state at the end.
    pub our_state: Option<PortState>,
    /// Our clock's steps.
    pub our_steps: u64,
    /// Frames the card sent to Linux / Linux sent to the card.
    pub frames: [u64; 2],
    /// How late frames crossed, ns: p50, p99, max (card to Linux: wall time at the hand-over
    /// minus the departure; Linux to card: how far the card had run past the frame's arrival).
    pub lag_ns: [u64; 3],
    /// ptp4l's output lines.
    #[serde(skip)]
    pub ptp4l_lines: Vec<String>,
    /// Every frame that crossed, (wall time since the start ns + PHC start, bytes).
    #[serde(skip)]
    pub wire: Vec<(u64, Vec<u8>)>,
}

const OUR_END: Station = Station {
    mac: [0x02, 0x74, 0x73, 0x6e, 0x69, 0x01],
    ip: [192, 168, 33, 1],
};
const LINUX_END: Station = Station {
    mac: [0x02, 0x74, 0x73, 0x6e, 0x69, 0xaa],
    ip: [192, 168, 33, 2],
};
/// A frame due this close is handed over by spinning to its time (a sleep overshoots), ns.
const SPIN_NS: u64 = 150_000;
/// How far the card's time runs ahead of wall time (see [`run`]).
const LEAD_NS: u64 = 20_000_000;
/// currentUtcOffset our master announces (TAI - UTC since 2017).
const UTC_OFFSET_S: u64 = 37;

struct Ptp4l {
    child: Child,
    lines: Receiver<String>,
    conf: std::path::PathBuf,
}

impl Drop for Ptp4l {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_file(&self.conf);
    }
}

fn peer_err(e: impl std::fmt::Display) -> PtpError {
    PtpError::Invalid(format!("the Linux peer: {e}"))
}

fn start_ptp4l(ns: &Netns, dev: &str, cfg: &LinuxConfig) -> Result<Ptp4l, PtpError> {
    let bin = PTP4L
        .iter()
        .find(|p| std::path::Path::new(p).exists())
        .ok_or_else(|| peer_err("ptp4l not found: apt-get install linuxptp"))?;
    let conf = std::env::temp_dir().join(format!("tsnic-ptp4l-{}.cfg", std::process::id()));
    let transport = match cfg.transport {
        Transport::L2 => "L2",
        Transport::Udp4 => "UDPv4",
    };
    let mut text = format!(
        "[global]\ntime_stamping software\nnetwork_transport {transport}\nlogSyncInterval {}\n\
         logAnnounceInterval {}\nlogMinDelayReqInterval {}\nannounceReceiptTimeout 3\n\
         tx_timestamp_timeout 50\nuse_syslog 0\nverbose 1\nsummary_interval {}\n",
        cfg.log_sync, cfg.log_announce, cfg.log_sync, cfg.log_sync
    );
    match cfg.our_role {
        // ptp4l the master: a better priority1, never a slave
        Role::Slave => text += "priority1 100\n",
        // ptp4l a free-running slave: never steers this machine's clock
        _ => text += "slaveOnly 1\nfree_running 1\n",
    }
    std::fs::write(&conf, text).map_err(|e| peer_err(format!("{}: {e}", conf.display())))?;
    let ip = netns::ip_binary().ok_or_else(|| peer_err("the `ip` command"))?;
    let mut child = Command::new(ip)
        .args(["netns", "exec", ns.name(), bin, "-f"])
        .arg(&conf)
        .args(["-i", dev, "-m", "-q"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| peer_err(format!("cannot start ptp4l: {e}")))?;
    let (tx, rx) = mpsc::channel();
    for out in [
        child
            .stdout
            .take()
            .map(|o| Box::new(o) as Box<dyn std::io::Read + Send>),
        child
            .stderr
            .take()
            .map(|o| Box::new(o) as Box<dyn std::io::Read + Send>),
    ]
    .into_iter()
    .flatten()
    {
        let tx = tx.clone();
        std::thread::spawn(move || {
            for l in BufReader::new(out).lines().map_while(Result::ok) {
                if tx.send(l).is_err() {
                    return;
                }
            }
        });
    }
    Ok(Ptp4l {
        child,
        lines: rx,
        conf,
    })
}

/// ptp4l's `master offset N sK freq F path delay D`: (N, D).
pub fn parse_ptp4l_offset(line: &str) -> Option<(i64, i64)> {
    let w: Vec<&str> = line.split_whitespace().collect();
    let i = w.windows(2).position(|p| p == ["master", "offset"])?;
    let off = w.get(i + 2)?.parse().ok()?;
    let j = w.windows(2).position(|p| p == ["path", "delay"])?;
    let d = w.get(j + 2)?.parse().ok()?;
    Some((off, d))
}

/// Put every frame Linux has sent on the card's RX line at card time (wall time now + LEAD_NS);
/// returns the latest such time (ps; 0 if none).
#[allow(clippy::too_many_arguments)]
fn rx_take(
    tap: &sys::Tap,
    b: &mut SimBackend,
    buf: &mut [u8],
    s0: u64,
    w0: Instant,
    res: &mut LinuxResult,
    lags: &mut Vec<u64>,
    phc0: u64,
) -> Result<u64, PtpError> {
    let mut last_at = 0;
    while let Some(n) = tap.recv(buf).map_err(peer_err)? {
        let f = buf[..n].to_vec();
        let w = w0.elapsed().as_nanos() as u64;
        let want = (s0 + w + LEAD_NS) * 1000;
        let now_ps = b.card().now_ps();
        // the card ran further ahead than LEAD_NS: the frame arrives late by that much
        lags.push(now_ps.saturating_sub(want) / 1000);
        let at = want.max(now_ps + 1_000);
        b.card().rx_inject(f.clone(), at, false);
        last_at = at;
        res.frames[1] += 1;
        res.wire.push((phc0 + w - UTC_OFFSET_S * 1_000_000_000, f));
    }
    Ok(last_at)
}

fn percentiles(mut v: Vec<u64>) -> [u64; 3] {
    if v.is_empty() {
        return [0; 3];
    }
    v.sort_unstable();
    let at = |p: f64| v[((v.len() - 1) as f64 * p).round() as usize];
    [at(0.5), at(0.99), *v.last().expect("not empty")]
}

/// Run our clock on a simulated card against ptp4l for `cfg.seconds` wall seconds; `each` gets
/// our reports and ptp4l's lines (as `Err(line)`).
pub fn run(
    cfg: &LinuxConfig,
    stop: Arc<AtomicBool>,
    mut each: impl FnMut(Result<&Report, &str>),
) -> Result<LinuxResult, PtpError> {
    netns::check_prerequisites().map_err(peer_err)?;
    if !matches!(cfg.our_role, Role::Slave | Role::Master) {
        return Err(PtpError::Invalid(
            "against ptp4l our role is master or slave (ptp4l takes the other)".into(),
        ));
    }
    let ns = Netns::create(&netns::unique_name("tsnptp")).map_err(peer_err)?;
    let tap_name = netns::unique_name("tsp");
    let tap = netns::tap_into_netns(&ns, &tap_name, LINUX_END, OUR_END).map_err(peer_err)?;

    let mut b = SimBackend::new(SimConfig::small())?;
    let wire = b.tap();
    let real = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_err(|e| peer_err(format!("the host clock is before 1970: {e}")))?;
    let phc0 = real.as_nanos() as u64 + UTC_OFFSET_S * 1_000_000_000;
    phc::set(&mut b, phc0);
    let mut c = Config::new(
        cfg.our_role,
        cfg.transport,
        Addr {
            mac: OUR_END.mac,
            ip: OUR_END.ip,
        },
    );
    c.log_sync = cfg.log_sync;
    c.log_announce = cfg.log_announce;
    c.log_min_delay_req = cfg.log_sync;
    c.utc_offset = UTC_OFFSET_S as i16;
    let mut port = CardPort::open(&mut b, c)?;
    wire.take();
    let mut p4l = start_ptp4l(&ns, &tap_name, cfg)?;

    // The card runs LEAD_NS ahead of wall time: a frame it sends departs at card time s and is
    // handed to Linux when wall time reaches s (the card had LEAD_NS of real time to get it out,
    // though simulating a busy card is slower than real time); a frame Linux sends at wall time
    // w reaches the card's line at card time w + LEAD_NS, and RX_LAT_COMP_NS takes LEAD_NS off
    // its arrival stamp.
    let comp = b.read32(crate::contract::reg::RX_LAT_COMP_NS) as i32;
    crate::rx::set_rx_lat_comp_ns(&mut b, comp - LEAD_NS as i32);
    let mut res = LinuxResult::default();
    let mut lags = Vec::new();
    // the PHC to TAI now, at the start of the pacing (the set-up took wall time, little card time)
    let real = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_err(|e| peer_err(format!("the host clock is before 1970: {e}")))?;
    let w0 = Instant::now();
    let phc0 = real.as_nanos() as u64 + UTC_OFFSET_S * 1_000_000_000;
    phc::set(&mut b, phc0);
    let s0 = b.sim_ns();
    let end = Duration::from_secs(cfg.seconds);
    let mut buf = vec![0u8; 2048];
    let wall_ns = |w0: Instant| w0.elapsed().as_nanos() as u64;
    // frames the card sent, waiting for wall time to reach their departure: (due wall ns, bytes)
    let mut pending: std::collections::VecDeque<(u64, Vec<u8>)> = Default::default();
    // hand over every frame due within SPIN_NS (spinning up to its time), returns the next due
    let hand_over = |pending: &mut std::collections::VecDeque<(u64, Vec<u8>)>,
                     res: &mut LinuxResult,
                     lags: &mut Vec<u64>|
     -> Result<Option<u64>, PtpError> {
        while let Some(&(due, _)) = pending.front() {
            if due > wall_ns(w0) + SPIN_NS {
                return Ok(Some(due));
            }
            while wall_ns(w0) < due {
                std::hint::spin_loop();
            }
            let (due, f) = pending.pop_front().expect("peeked");
            let w = wall_ns(w0);
            lags.push(w - due);
            res.frames[0] += 1;
            res.wire
                .push((phc0 + w - UTC_OFFSET_S * 1_000_000_000, f.clone()));
            tap.send(&f).map_err(peer_err)?;
        }
        Ok(None)
    };
    loop {
        if stop.load(Ordering::Relaxed) {
            return Err(PtpError::Invalid("interrupted (SIGINT/SIGTERM)".into()));
        }
        if w0.elapsed() >= end {
            break;
        }
        hand_over(&mut pending, &mut res, &mut lags)?;
        // Linux -> card
        let mut last_at = rx_take(&tap, &mut b, &mut buf, s0, w0, &mut res, &mut lags, phc0)?;
        hand_over(&mut pending, &mut res, &mut lags)?;
        // the card up to wall time + LEAD_NS (and past the frames just put on its line)
        let mut target = (s0 + wall_ns(w0) + LEAD_NS).max(last_at / 1000 + 3_000);
        // in steps while a frame waits to be handed over (simulating a busy card is slower than
        // real time: do not miss its moment)
        loop {
            let now = b.sim_ns();
            if now >= target {
                break;
            }
            // a busy card simulates about 1 us per wall ms: 100 ns steps when a frame is due
            // within 5 ms
            target = target.max(last_at / 1000 + 3_000);
            let step = match pending.front() {
                None => target - now,
                Some(&(due, _)) if due < wall_ns(w0) + 5_000_000 => (target - now).min(100),
                Some(_) => (target - now).min(2_000),
            };
            b.wait_ns(step)?;
            hand_over(&mut pending, &mut res, &mut lags)?;
            // (read Linux's frames between steps too: its stamp was taken when it sent them)
            last_at = last_at.max(rx_take(
                &tap, &mut b, &mut buf, s0, w0, &mut res, &mut lags, phc0,
            )?);
        }
        // the clock; run the card until what it posted has left
        port.poll(&mut b)?;
        for _ in 0..200 {
            if port.outstanding() == 0 {
                break;
            }
            b.wait_ns(1_000)?;
            port.poll(&mut b)?;
            hand_over(&mut pending, &mut res, &mut lags)?;
        }
        for f in wire.take() {
            pending.push_back(((f.start_ps / 1000).saturating_sub(s0), f.bytes));
        }
        for r in port.take_reports() {
            if let Report::Sample(s) = &r {
                res.our_offsets_ns.push(s.offset_ns);
            }
            each(Ok(&r));
        }
        while let Ok(l) = p4l.lines.try_recv() {
            if let Some((o, d)) = parse_ptp4l_offset(&l) {
                res.ptp4l_offsets_ns.push(o);
                res.ptp4l_path_delay_ns.push(d);
            }
            each(Err(&l));
            res.ptp4l_lines.push(l);
        }
        if let Ok(Some(st)) = p4l.child.try_wait() {
            return Err(peer_err(format!(
                "ptp4l exited ({st}); its last lines: {}",
                res.ptp4l_lines
                    .iter()
                    .rev()
                    .take(3)
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(" | ")
            )));
        }
        // sleep until Linux sends something, the next frame to hand over, or 200 us
        let next = hand_over(&mut pending, &mut res, &mut lags)?;
        let mut sleep = 200_000;
        if let Some(d) = next {
            sleep = sleep.min(d.saturating_sub(wall_ns(w0) + SPIN_NS));
        }
        if sleep > 0 {
            sys::wait_readable(&[tap.raw_fd()], sleep).map_err(peer_err)?;
        }
    }
    res.our_state = Some(port.clock().state());
    res.our_steps = port.clock().counters().steps;
    res.lag_ns = percentiles(lags);
    drop(p4l);
    drop(tap);
    drop(ns);
    Ok(res)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ptp4l_lines_parse() {
        assert_eq!(
            parse_ptp4l_offset(
                "ptp4l[1234.567]: master offset      -1234 s2 freq   +5678 path delay     42"
            ),
            Some((-1234, 42))
        );
        assert_eq!(
            parse_ptp4l_offset("ptp4l[1.2]: port 1: LISTENING to SLAVE"),
            None
        );
    }
}
