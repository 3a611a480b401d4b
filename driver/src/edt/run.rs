//! The closed loop: senders -> card -> network path -> receivers -> ACKs -> senders, in
//! simulated time, plus the application model (bulk transfer, request/response,
//! NOTSENT_LOWAT) and the report.

use serde::Serialize;

use super::card::{IdealCardModel, SimWire, TxPort};
use super::card_sim::{SimCardPort, SimCardStats};
use super::cc::CcKind;
use super::frame::Endpoints;
use super::sender::{ConnState, Pacer, PacingModel, SampleStamp, SenderConfig, TcpSender};
use super::timer::DEFAULT_TICK_NS;
use super::EdtError;
use crate::netsim::{Network, PathConfig, ReceiverConfig};
use crate::ptp::beside::BesideSpec;
use crate::rng::SeededRng;

/// Application writes go in chunks of one 64 KB skb (Linux checks memory per skb, so the
/// unsent bytes can exceed NOTSENT_LOWAT by up to one chunk).
pub const APP_CHUNK: u64 = 65_536;

/// Which card the sender runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CardKind {
    /// The software model [`IdealCardModel`] (fast; for unit tests).
    Model,
    /// The Verilated RTL through the driver's rings ([`SimCardPort`]); `tsnic send`'s default.
    Sim,
    /// The same on the board build (`sim:board`: tsnic_board_core behind the PCIe hard-block
    /// model, 10 Gb/s; [`SimCardPort::open_board`]), built with the `board` feature.
    SimBoard,
}

/// Everything one `tsnic send` run needs.
#[derive(Debug, Clone, Serialize)]
pub struct RunConfig {
    /// Set (by a signal handler) to end the run early: it stops at its next event and reports what
    /// it did as not completed, saying why.
    #[serde(skip)]
    pub stop: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
    pub card: CardKind,
    pub cc: CcKind,
    pub flows: usize,
    /// Bytes per flow (in RR mode: request bytes per flow).
    pub bytes: u64,
    #[serde(skip)]
    pub path: PathConfig,
    pub path_text: String,
    pub line_rate_bps: u64,
    pub max_rate_bps: Option<u64>,
    pub notsent_lowat: Option<u64>,
    pub rr: Option<u64>,
    pub pacing_model: PacingModel,
    /// Every flow paced as behind sch_fq (the default); false: Linux without fq (`SenderConfig::fq`).
    pub fq: bool,
    /// Linux `tcp_slow_start_after_idle` (default on): cwnd restarts after an idle RTO.
    pub slow_start_after_idle: bool,
    /// Where RTT/rate samples start (EDT model): scheduled launch time (Linux) or departure.
    pub stamp: SampleStamp,
    pub pacer: Pacer,
    pub jitter_ns: u64,
    pub jitter_credit: bool,
    pub seed: u64,
    pub time_limit_ns: u64,
    pub tick_ns: u64,
    pub capture: bool,
    /// Receiver buffer (the most it advertises), bytes.
    pub rcv_buf: u32,
    /// A NAPI poll and GRO at the receiver (`netsim::gro`; Linux: on; off by default here,
    /// docs/EDT.md "The network model").
    pub gro: bool,
    /// net.ipv4.tcp_tso_rtt_log of the senders (`SenderConfig::tso_rtt_log`; Linux 5.18+: 9;
    /// None: no RTT term in TSO autosizing).
    pub tso_rtt_log: Option<u32>,
    /// BBR's ACK-aggregation cwnd term (`SenderConfig::bbr_extra_acked`; Linux: on).
    pub bbr_extra_acked: bool,
    /// `--ptp ROLE[,OPT...]`: a PTP clock beside the sender on the simulated card (L2 only:
    /// [`crate::ptp::beside::BesideSpec::for_send`]; docs/PTP.md).
    pub ptp: Option<String>,
    /// A grandmaster in software at the far end of the path for `--ptp slave` (a test facility:
    /// the path model carries TCP only; [`crate::ptp::path_master`]).
    #[serde(skip)]
    pub ptp_master: Option<crate::ptp::path_master::PathMasterConfig>,
}

impl Default for RunConfig {
    fn default() -> Self {
        RunConfig {
            stop: None,
            card: CardKind::Model,
            cc: CcKind::Cubic,
            flows: 1,
            bytes: 1_000_000,
            path: PathConfig::default(),
            path_text: "rate=10G,rtt=100us,buffer=1MB".into(),
            line_rate_bps: 10_000_000_000,
            max_rate_bps: None,
            notsent_lowat: None,
            rr: None,
            pacing_model: PacingModel::Edt,
            fq: true,
            slow_start_after_idle: true,
            stamp: SampleStamp::Scheduled,
            pacer: Pacer::Card,
            jitter_ns: 0,
            jitter_credit: true,
            seed: 1,
            time_limit_ns: 60_000_000_000,
            tick_ns: DEFAULT_TICK_NS,
            capture: false,
            rcv_buf: 6 * 1024 * 1024,
            gro: false,
            tso_rtt_log: None,
            bbr_extra_acked: false,
            ptp: None,
            ptp_master: None,
        }
    }
}

/// min / mean / p50 / p99 / max of a sample set, in the unit given by the caller.
#[derive(Debug, Clone, Copy, Default, Serialize, PartialEq)]
pub struct Summary {
    pub count: usize,
    pub min: f64,
    pub mean: f64,
    pub p50: f64,
    pub p99: f64,
    pub max: f64,
}

impl Summary {
    /// Summarize `v` (values divided by `scale`).
    pub fn of(v: &[u64], scale: f64) -> Summary {
        if v.is_empty() {
            return Summary::default();
        }
        let mut s = v.to_vec();
        s.sort_unstable();
        let pct = |p: f64| {
            // nearest-rank percentile
            let rank = ((p / 100.0) * s.len() as f64).ceil().max(1.0) as usize;
            s[rank.min(s.len()) - 1] as f64 / scale
        };
        Summary {
            count: s.len(),
            min: s[0] as f64 / scale,
            mean: s.iter().map(|&x| x as f64).sum::<f64>() / s.len() as f64 / scale,
            p50: pct(50.0),
            p99: pct(99.0),
            max: s[s.len() - 1] as f64 / scale,
        }
    }
}

/// One flow of a run (`--flows N`): how it fared on its own, so that the share each flow got of the
/// bottleneck can be seen, not only the sum.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct FlowReport {
    pub flow: usize,
    pub bytes_acked: u64,
    /// Its bytes acknowledged over its own time, connection established to its last byte acked
    /// (to the end of the run if it did not finish), Mbit/s.
    pub goodput_mbps: f64,
    pub completed: bool,
    pub retransmitted_segments: u64,
    pub rto_fires: u64,
    /// Mean of its smoothed RTT after each update, and the last value, us.
    pub srtt_mean_us: f64,
    pub srtt_final_us: f64,
    pub final_cwnd: u64,
    pub cc_state: String,
}

/// Jain's fairness index of `x` (Jain, Chiu and Hawe, DEC-TR-301, 1984): (sum x)^2 / (n * sum x^2),
/// 1 when every flow got the same, 1/n when one flow got everything. None for no flows or all zero.
pub fn jain_index(x: &[f64]) -> Option<f64> {
    let sum: f64 = x.iter().sum();
    let sq: f64 = x.iter().map(|v| v * v).sum();
    (!x.is_empty() && sq > 0.0).then(|| sum * sum / (x.len() as f64 * sq))
}

/// The result of one run.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub card: String,
    pub config: RunConfig,
    pub completed: bool,
    /// Why the run did not complete (None when it did).
    pub incomplete_reason: Option<String>,
    pub sim_time_ms: f64,
    pub bytes_acked: u64,
    pub goodput_mbps: f64,
    pub srtt_us: Summary,
    pub rtt_sample_us: Summary,
    pub base_rtt_us: f64,
    pub retransmitted_segments: u64,
    pub tlp_probes: u64,
    pub rto_fires: u64,
    pub recoveries: u64,
    /// Payload rate at which data frames left the card after the first 10 segments, Mbit/s.
    pub achieved_send_mbps: f64,
    /// achieved / max rate (when a max rate is set).
    pub pacing_accuracy: Option<f64>,
    /// departure - launch per frame (how late the card sent), ns.
    pub launch_error_ns: Summary,
    pub frames_sent_late: u64,
    pub queue_delay_us: Summary,
    pub bottleneck_drops: u64,
    pub random_losses: u64,
    pub max_backlog_bytes: u64,
    pub rr_latency_us: Option<Summary>,
    pub peak_unsent_bytes: u64,
    pub peak_buffered_bytes: u64,
    /// Time-weighted mean of the unsent / buffered bytes of all flows while every flow's
    /// application still had data to write (steady state; 0 if that never happened).
    pub steady_unsent_bytes: f64,
    pub steady_buffered_bytes: f64,
    /// Host pacing timer (`--pacer host`): arms, wake-ups, and the arms the kernel made
    /// before "tcp: optimize tcp internal pacing" (one per paced send), all flows.
    pub pacing_timer_arms: u64,
    pub pacing_timer_wakeups: u64,
    pub pacing_timer_arms_before_patch: u64,
    pub receiver_delivered: u64,
    pub receiver_duplicate_bytes: u64,
    /// Data segments that reached the receivers, and the packets TCP saw after GRO (equal
    /// without GRO).
    pub receiver_data_segments: u64,
    pub receiver_data_packets: u64,
    /// ACKs (and other answers) the receivers sent, and ACKs SACK compression held back.
    pub receiver_acks_sent: u64,
    pub receiver_acks_compressed: u64,
    pub receiver_corrupt_bytes: u64,
    /// Payload bytes that arrived beyond the advertised window (must be 0).
    pub receiver_beyond_window_bytes: u64,
    pub window_violations: u64,
    pub wstamp_backward: u64,
    pub early_timer_fires: u64,
    pub final_cwnd: Vec<u64>,
    pub cc_state: Vec<String>,
    /// Each flow on its own (one entry per flow, in flow order).
    pub per_flow: Vec<FlowReport>,
    /// Jain's fairness index of the flows' goodputs (1 = equal shares; None when nothing was acked).
    pub jain_fairness: Option<f64>,
    /// On the simulated card: per-status counts and departure error (depart - launch).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub card_stats: Option<SimCardStats>,
    /// The PTP clock that ran beside the sender (`--ptp`): state, counters, samples.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ptp: Option<crate::ptp::beside::BesideSummary>,
    #[serde(skip)]
    pub pcap: Vec<(u64, Vec<u8>)>,
}

#[derive(Debug, Default, Clone)]
struct App {
    remaining: u64,
    /// Blocked in sendmsg (sk_stream_wait_memory) until the socket is writeable again.
    sleeping: bool,
    closed: bool,
    rr_left: u64,
    rr_outstanding: Option<(u64, u64)>,
    data_done_ns: Option<u64>,
}

/// Parse a size like `1MB`, `64KB`, `1500`, `2MiB` (KB = 1000, KiB = 1024).
pub fn parse_bytes(s: &str) -> Option<u64> {
    let s = s.trim();
    let split = s.find(|c: char| !(c.is_ascii_digit() || c == '.'))?;
    let (num, unit) = if split == 0 {
        return None;
    } else {
        s.split_at(split)
    };
    let n: f64 = num.parse().ok()?;
    let mult = match unit.to_ascii_lowercase().as_str() {
        "" | "b" => 1.0,
        "k" | "kb" => 1e3,
        "m" | "mb" => 1e6,
        "g" | "gb" => 1e9,
        "kib" => 1024.0,
        "mib" => 1024.0 * 1024.0,
        "gib" => 1024.0 * 1024.0 * 1024.0,
        _ => return None,
    };
    let v = n * mult;
    (v.is_finite() && v >= 0.0).then_some(v as u64)
}

/// Parse a size; a plain number is bytes.
pub fn parse_size(s: &str) -> Option<u64> {
    s.trim().parse::<u64>().ok().or_else(|| parse_bytes(s))
}

/// Parse a rate in bits/s: `10G`, `24M`, `500k`, `8Gbit`, `1000000`.
pub fn parse_rate_bps(s: &str) -> Option<u64> {
    let s = s.trim();
    let t = s
        .strip_suffix("bit/s")
        .or_else(|| s.strip_suffix("bps"))
        .or_else(|| s.strip_suffix("bit"))
        .unwrap_or(s);
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    if split == 0 {
        return None;
    }
    let (num, unit) = t.split_at(split);
    let n: f64 = num.parse().ok()?;
    let mult = match unit.to_ascii_lowercase().as_str() {
        "" => 1.0,
        "k" => 1e3,
        "m" => 1e6,
        "g" => 1e9,
        "t" => 1e12,
        _ => return None,
    };
    let v = n * mult;
    (v.is_finite() && v >= 1.0).then_some(v as u64)
}

/// Parse a duration: `100us`, `50us`, `2ms`, `1s`, `500ns` (a bare number is an error).
pub fn parse_duration_ns(s: &str) -> Option<u64> {
    let s = s.trim();
    let split = s.find(|c: char| !(c.is_ascii_digit() || c == '.'))?;
    if split == 0 {
        return None;
    }
    let (num, unit) = s.split_at(split);
    let n: f64 = num.parse().ok()?;
    let mult = match unit {
        "ns" => 1.0,
        "us" => 1e3,
        "ms" => 1e6,
        "s" => 1e9,
        _ => return None,
    };
    let v = n * mult;
    (v.is_finite() && v >= 0.0).then_some(v.round() as u64)
}

const PATH_EXAMPLE: &str =
    "rate=10G,rtt=100us,buffer=1MB[,loss=0.001][,reorder=0.01][,reorder_delay=20us]";

/// Parse `--path`: `rate=10G,rtt=100us,buffer=1MB[,loss=P][,reorder=P][,reorder_delay=D]`.
pub fn parse_path(s: &str) -> Result<PathConfig, EdtError> {
    let mut p = PathConfig::default();
    let mut seen_rate = false;
    let mut seen: Vec<&str> = Vec::new();
    for field in s.split(',').filter(|f| !f.trim().is_empty()) {
        let bad = |what: &str| {
            EdtError::BadPath(format!(
                "field `{}`: {what}; example: --path {PATH_EXAMPLE}",
                field.trim()
            ))
        };
        let (k, v) = field
            .split_once('=')
            .ok_or_else(|| bad("expected key=value"))?;
        if seen.contains(&k.trim()) {
            return Err(bad(&format!(
                "`{}` is given twice; give each key once",
                k.trim()
            )));
        }
        seen.push(k.trim());
        let v = v.trim();
        match k.trim() {
            "rate" => {
                if v.trim_end_matches(|c: char| c.is_ascii_alphabetic() || c == '/')
                    .parse::<f64>()
                    .is_ok_and(|x| x == 0.0)
                {
                    return Err(bad("rate must be positive, like 10G, 24M or 500k"));
                }
                p.rate_bps = parse_rate_bps(v)
                    .ok_or_else(|| bad("rate must be bits/s like 10G, 24M or 500k"))?;
                seen_rate = true;
            }
            "rtt" => {
                p.rtt_ns = parse_duration_ns(v)
                    .ok_or_else(|| bad("rtt must be a duration like 100us or 2ms"))?
            }
            "buffer" => {
                p.buffer_bytes = parse_size(v)
                    .ok_or_else(|| bad("buffer must be a size like 1MB, 64KB or 150000"))?;
                if p.buffer_bytes == 0 {
                    return Err(bad(
                        "a buffer of 0 drops every frame (it does not mean unlimited); give a size like 1MB or 64KB",
                    ));
                }
            }
            "loss" | "reorder" => {
                let x: f64 = v
                    .parse()
                    .ok()
                    .filter(|x: &f64| (0.0..1.0).contains(x))
                    .ok_or_else(|| bad("must be a probability in [0, 1), like 0.001"))?;
                if k.trim() == "loss" {
                    p.loss = x
                } else {
                    p.reorder = x
                }
            }
            "reorder_delay" => {
                p.reorder_delay_ns = parse_duration_ns(v)
                    .ok_or_else(|| bad("reorder_delay must be a duration like 20us"))?
            }
            _ => {
                return Err(bad(
                    "unknown key (known: rate, rtt, buffer, loss, reorder, reorder_delay)",
                ))
            }
        }
    }
    if !seen_rate {
        return Err(EdtError::BadPath(format!(
            "`rate` is missing; example: --path {PATH_EXAMPLE}"
        )));
    }
    Ok(p)
}

/// Run the closed loop to completion (or the time limit).
pub fn run(cfg: &RunConfig) -> Result<Report, EdtError> {
    if cfg.flows == 0 || cfg.flows > 4096 {
        return Err(EdtError::Invalid(format!(
            "--flows must be 1..=4096, got {}",
            cfg.flows
        )));
    }
    if cfg.bytes == 0 {
        return Err(EdtError::Invalid("--bytes must be at least 1".into()));
    }
    if cfg.notsent_lowat == Some(0) {
        return Err(EdtError::Invalid(
            "--notsent-lowat 0 lets the application write nothing (it writes only while unsent bytes are below it): give at least 1 byte, e.g. 128KB".into(),
        ));
    }
    if cfg.rr == Some(0) {
        return Err(EdtError::Invalid(
            "--rr size must be at least 1 byte".into(),
        ));
    }
    let ptp =
        match &cfg.ptp {
            None => None,
            Some(_) if cfg.card == CardKind::Model => return Err(EdtError::Invalid(
                "--ptp runs the clock on the card's PHC and stamps: use it with --card sim (the \
                 software model has neither)"
                    .into(),
            )),
            Some(t) => Some(
                BesideSpec::parse(t)
                    .and_then(|s| s.for_send(t))
                    .map_err(EdtError::Invalid)?,
            ),
        };
    if cfg.ptp_master.is_some() {
        match &ptp {
            Some(s) if s.cfg.role != crate::ptp::Role::Master => {}
            Some(_) => {
                return Err(EdtError::Invalid(
                    "--ptp-master is a grandmaster for the clock of --ptp to follow: use --ptp \
                     slave (or auto), not master"
                        .into(),
                ))
            }
            None => {
                return Err(EdtError::Invalid(
                    "--ptp-master is a grandmaster for the clock of --ptp to follow: add --ptp \
                     slave,... (e.g. --ptp slave,log-sync=-4,log-announce=-3)"
                        .into(),
                ))
            }
        }
    }
    match cfg.card {
        CardKind::Model => run_on(cfg, IdealCardModel::new(cfg.line_rate_bps)).map(|(r, _)| r),
        CardKind::Sim | CardKind::SimBoard => {
            let mut port = if cfg.card == CardKind::SimBoard {
                open_board(cfg)?
            } else {
                SimCardPort::open(cfg.flows, cfg.line_rate_bps)?
            };
            if let Some(spec) = ptp {
                port.attach_ptp(
                    spec,
                    Box::new(|r: &crate::ptp::Report| {
                        if let Some(l) = crate::ptp::clock::state_line(r) {
                            eprintln!("ptp: {l}");
                        }
                    }),
                )?;
            }
            if let Some(m) = cfg.ptp_master {
                port.attach_path_master(m);
            }
            let (mut r, mut port) = run_on(cfg, port)?;
            if let Some(e) = port.error() {
                return Err(EdtError::Card(e.to_string()));
            }
            r.card_stats = Some(port.stats());
            r.ptp = port.close_ptp()?;
            Ok(r)
        }
    }
}

/// The board build's port (`--card sim:board`).
fn open_board(cfg: &RunConfig) -> Result<SimCardPort, EdtError> {
    if cfg.line_rate_bps != 10_000_000_000 {
        return Err(EdtError::Invalid(format!(
            "the simulated board (the SUME build) has a 10 Gb/s wire, got --line-rate {} bit/s; use --line-rate 10G with --card sim:board",
            cfg.line_rate_bps
        )));
    }
    #[cfg(feature = "board")]
    {
        SimCardPort::open_board(cfg.flows)
    }
    #[cfg(not(feature = "board"))]
    {
        Err(EdtError::Invalid(
            "--card sim:board needs the board build: build with `cargo build --release --features tsnic/board`, or use --card sim".into(),
        ))
    }
}

/// The loop itself, on any card.
fn run_on<C: TxPort + SimWire>(cfg: &RunConfig, mut card: C) -> Result<(Report, C), EdtError> {
    let mut rng = SeededRng::new(cfg.seed);
    let rcv_cfg = ReceiverConfig {
        rr_request: cfg.rr,
        rcv_buf: cfg.rcv_buf,
        gro: cfg.gro.then(crate::netsim::GroConfig::default),
        ..ReceiverConfig::default()
    };
    let mut net = Network::new(cfg.path.clone(), rcv_cfg, cfg.seed);
    let card_rx = card.has_rx();
    net.set_early_delivery(card_rx);
    let mut senders = Vec::with_capacity(cfg.flows);
    let mut apps = Vec::with_capacity(cfg.flows);
    for i in 0..cfg.flows {
        let dport = 5001 + i as u16;
        net.listen(dport);
        let ends = Endpoints {
            src_mac: [0x02, 0x74, 0x73, 0x6e, 0x69, 0x01],
            dst_mac: [0x02, 0x74, 0x73, 0x6e, 0x69, 0x02],
            src_ip: [10, 0, 0, 1],
            dst_ip: [10, 0, 0, 2],
            src_port: 40000 + i as u16,
            dst_port: dport,
        };
        let mut sc = SenderConfig::new(ends, rng.next_u64() as u32, cfg.cc);
        sc.max_pacing_rate = cfg.max_rate_bps.map_or(u64::MAX, |r| r / 8);
        sc.jitter_credit = cfg.jitter_credit;
        sc.pacing_model = cfg.pacing_model;
        sc.fq = cfg.fq;
        sc.slow_start_after_idle = cfg.slow_start_after_idle;
        sc.tso_rtt_log = cfg.tso_rtt_log;
        sc.bbr_extra_acked = cfg.bbr_extra_acked;
        sc.stamp = cfg.stamp;
        sc.pacer = cfg.pacer;
        sc.tick_ns = cfg.tick_ns;
        sc.seed = cfg.seed.wrapping_add(i as u64);
        senders.push(TcpSender::new(sc, (i as u64 + 1) << 48));
        let mut app = App::default();
        match cfg.rr {
            Some(r) => app.rr_left = cfg.bytes.div_ceil(r),
            None => app.remaining = cfg.bytes,
        }
        apps.push(app);
    }
    for s in senders.iter_mut() {
        s.connect(0, &mut card);
    }
    let mut pcap = Vec::new();
    let mut rr_lat = Vec::new();
    let mut now = 0u64;
    let (mut peak_unsent, mut peak_buffered) = (0u64, 0u64);
    // Time integrals of the sums while every application is still writing.
    let (mut int_unsent, mut int_buffered, mut int_span) = (0f64, 0f64, 0u64);
    let mut unsent: Vec<u64> = vec![0; cfg.flows];
    let mut buffered: Vec<u64> = vec![0; cfg.flows];
    let (mut sum_unsent, mut sum_buffered) = (0u64, 0u64);
    let mut dirty: Vec<bool> = vec![true; cfg.flows];
    let mut completed = false;
    let mut stopped = false;
    loop {
        let next = [card.next_event_ns(), net.next_event_ns()]
            .into_iter()
            .chain(senders.iter().map(|s| s.next_timer_ns()))
            .flatten()
            .min();
        let Some(t) = next else {
            completed = senders.iter().all(|s| s.state == ConnState::Done);
            break;
        };
        if t > cfg.time_limit_ns {
            break;
        }
        if cfg
            .stop
            .as_ref()
            .is_some_and(|f| f.load(std::sync::atomic::Ordering::Relaxed))
        {
            stopped = true;
            break;
        }
        if t > now && cfg.rr.is_none() && apps.iter().all(|a| a.remaining > 0) {
            let dt = t - now;
            int_unsent += sum_unsent as f64 * dt as f64;
            int_buffered += sum_buffered as f64 * dt as f64;
            int_span += dt;
        }
        now = now.max(t);
        for c in card.poll(now) {
            let idx = (c.cookie >> 48) as usize;
            if let Some(s) = idx.checked_sub(1).and_then(|i| senders.get_mut(i)) {
                s.on_completion(&c);
                dirty[idx - 1] = true;
            }
        }
        for w in card.drain_wire() {
            if cfg.capture {
                pcap.push((w.depart_ns, w.frame.clone()));
            }
            net.inject(w.end_ns, w.frame);
        }
        // Frames for the sender: straight from the network model, or (a card with a receive path)
        // onto the card's RX line at their arrival time and back from its RX ring with the card's
        // arrival stamp, which RTT samples end at.
        let mut arrived: Vec<(Option<u64>, Vec<u8>)> = Vec::new();
        for (t, f) in net.advance(now) {
            if card_rx {
                card.rx_inject(t, f);
            } else {
                arrived.push((None, f));
            }
        }
        if card_rx {
            arrived.extend(card.rx_poll(now).into_iter().map(|(t, f)| (Some(t), f)));
        }
        for (hw, f) in arrived {
            // Demultiplex by our port (bytes 36..38 = TCP destination port of the ACK).
            if f.len() < 38 {
                continue;
            }
            let port = u16::from_be_bytes([f[36], f[37]]);
            let i = usize::from(port.wrapping_sub(40000));
            if let Some(s) = senders.get_mut(i) {
                match hw {
                    Some(t) => s.on_frame_rx(now, t, &f, &mut card),
                    None => s.on_frame(now, &f, &mut card),
                }
                dirty[i] = true;
            }
        }
        for (i, s) in senders.iter_mut().enumerate() {
            if s.next_timer_ns().is_some_and(|d| d <= now) {
                s.next_wakeup_jitter_ns = rng.below_or_eq(cfg.jitter_ns);
                s.on_timers(now, &mut card);
                dirty[i] = true;
            }
        }
        for i in 0..cfg.flows {
            if !dirty[i] {
                continue;
            }
            dirty[i] = false;
            let s = &mut senders[i];
            let a = &mut apps[i];
            if s.is_finished() || s.state == ConnState::Closed {
                continue;
            }
            if !matches!(s.state, ConnState::Established | ConnState::FinWait) {
                continue;
            }
            s.next_wakeup_jitter_ns = rng.below_or_eq(cfg.jitter_ns);
            if cfg.rr.is_some() {
                if let Some((end, start)) = a.rr_outstanding {
                    if s.snd_una >= end {
                        rr_lat.push(now - start);
                        a.rr_outstanding = None;
                    }
                }
                if a.rr_outstanding.is_none() && !a.closed {
                    if a.rr_left > 0 {
                        let r = cfg.rr.unwrap_or(1);
                        s.write_at(now, r);
                        a.rr_left -= 1;
                        a.rr_outstanding = Some((s.write_seq, now));
                    } else {
                        a.closed = true;
                        a.data_done_ns = Some(now);
                        s.close();
                    }
                }
            } else {
                let lowat = cfg.notsent_lowat.unwrap_or(u64::MAX);
                if a.sleeping {
                    // sk_stream_write_space: wake the writer once a third of the buffer is
                    // free (sk_stream_wspace >= sk_stream_min_wspace) and, with
                    // NOTSENT_LOWAT, unsent bytes are under half of it
                    // (tcp_stream_memory_free with wake = 1).
                    let q = s.wmem_queued();
                    a.sleeping = !(s.sndbuf_bytes().saturating_sub(q) >= q / 2
                        && s.notsent_bytes().saturating_mul(2) < lowat);
                }
                // tcp_sendmsg: copy while the buffer has room and unsent < lowat.
                while !a.sleeping
                    && a.remaining > 0
                    && s.wmem_queued() < s.sndbuf_bytes()
                    && s.notsent_bytes() < lowat
                {
                    let n = a.remaining.min(APP_CHUNK);
                    s.write_at(now, n);
                    a.remaining -= n;
                }
                if a.remaining > 0 {
                    a.sleeping = true;
                }
                if a.remaining == 0 && !a.closed {
                    a.closed = true;
                    s.close();
                }
                if a.data_done_ns.is_none() && s.snd_una >= cfg.bytes {
                    a.data_done_ns = Some(now);
                }
            }
            s.xmit(now, &mut card);
            sum_unsent = sum_unsent - unsent[i] + s.notsent_bytes();
            unsent[i] = s.notsent_bytes();
            sum_buffered = sum_buffered - buffered[i] + s.buffered_bytes();
            buffered[i] = s.buffered_bytes();
        }
        peak_unsent = peak_unsent.max(sum_unsent);
        peak_buffered = peak_buffered.max(sum_buffered);
        if senders.iter().all(|s| s.is_finished()) {
            completed = senders.iter().all(|s| s.state == ConnState::Done);
            break;
        }
    }
    let report = make_report(
        cfg,
        &card,
        &net,
        &senders,
        &apps,
        rr_lat,
        now,
        completed,
        stopped,
        Memory {
            peak_unsent,
            peak_buffered,
            steady_unsent: int_unsent / int_span.max(1) as f64,
            steady_buffered: int_buffered / int_span.max(1) as f64,
        },
        pcap,
    );
    Ok((report, card))
}

/// Why a run did not complete, in words a user can act on: the first flow that did not
/// finish and what happened to it.
fn incomplete_reason(
    cfg: &RunConfig,
    senders: &[TcpSender],
    net: &Network,
    now: u64,
    stopped: bool,
) -> String {
    let drops = format!(
        "the path dropped {} frames at the bottleneck (buffer) and {} at random (loss)",
        net.stats.dropped_buffer, net.stats.dropped_random
    );
    let not_done: Vec<(usize, &TcpSender)> = senders
        .iter()
        .enumerate()
        .filter(|(_, s)| s.state != ConnState::Done)
        .collect();
    let Some(&(i, s)) = not_done.first() else {
        return "every flow finished".into();
    };
    let what = match s.state {
        ConnState::Reset => format!("flow {i} was reset by the peer (RST)"),
        ConnState::TimedOut => format!(
            "flow {i} got no SYN-ACK to its SYN and {} retransmissions (connection timed out); {drops}",
            s.syn_retransmits()
        ),
        ConnState::Closed | ConnState::SynSent => format!(
            "flow {i} got no SYN-ACK ({} SYN retransmissions so far); {drops}",
            s.syn_retransmits()
        ),
        ConnState::Established | ConnState::FinWait | ConnState::Done => format!(
            "flow {i} had {} of {} bytes acknowledged ({} retransmitted segments, {} RTOs); {drops}",
            s.snd_una.min(s.write_seq),
            cfg.bytes,
            s.stats.retrans_segs,
            s.stats.rto_fires
        ),
    };
    let limit = if stopped {
        format!(
            ", stopped by a signal (Ctrl-C or SIGTERM) at {:.3} ms of simulated time",
            now as f64 / 1e6
        )
    } else if senders.iter().any(|s| !s.is_finished()) {
        format!(
            ", and the --time-limit of {} ms of simulated time ran out (last event at {:.3} ms)",
            cfg.time_limit_ns / 1_000_000,
            now as f64 / 1e6
        )
    } else {
        String::new()
    };
    format!(
        "{} of {} flows did not finish: {what}{limit}",
        not_done.len(),
        senders.len()
    )
}

/// Send-buffer occupancy over the run.
struct Memory {
    peak_unsent: u64,
    peak_buffered: u64,
    steady_unsent: f64,
    steady_buffered: f64,
}

#[allow(clippy::too_many_arguments)]
fn make_report(
    cfg: &RunConfig,
    card: &dyn TxPort,
    net: &Network,
    senders: &[TcpSender],
    apps: &[App],
    rr_lat: Vec<u64>,
    now: u64,
    completed: bool,
    stopped: bool,
    mem: Memory,
    pcap: Vec<(u64, Vec<u8>)>,
) -> Report {
    let cat = |f: &dyn Fn(&TcpSender) -> &Vec<u64>| -> Vec<u64> {
        senders.iter().flat_map(|s| f(s).iter().copied()).collect()
    };
    let srtt = cat(&|s| &s.stats.srtt_ns);
    let rtt = cat(&|s| &s.stats.rtt_ns);
    let lerr = cat(&|s| &s.stats.launch_error_ns);
    let bytes_acked: u64 = senders.iter().map(|s| s.stats.acked_bytes).sum();
    let start = senders
        .iter()
        .map(|s| s.stats.established_ns)
        .min()
        .unwrap_or(0);
    let end = apps
        .iter()
        .map(|a| a.data_done_ns.unwrap_or(now))
        .max()
        .unwrap_or(now);
    let dur = end.saturating_sub(start).max(1);
    // Achieved send rate after the unpaced first segments of each flow: a paced flow sends
    // bursts (one launch time per TSO-like burst) back to back at line rate, so the rate is
    // measured burst start to burst start: from the first counted frame to the first frame of
    // the flow's last burst, over the bytes before that burst. Flows add up.
    let achieved: f64 = senders
        .iter()
        .map(|s| {
            let deps = &s.stats.departures;
            let launches = &s.stats.departure_launch_ns;
            let skip = 10.min(deps.len());
            let Some(&last_launch) = launches.last() else {
                return 0.0;
            };
            let last_start = (skip..deps.len())
                .find(|&i| launches[i] == last_launch)
                .unwrap_or(deps.len());
            if last_start <= skip {
                return 0.0;
            }
            let span = deps[last_start].0.saturating_sub(deps[skip].0);
            let bytes: u64 = deps[skip..last_start].iter().map(|d| u64::from(d.1)).sum();
            if span > 0 {
                bytes as f64 * 8.0 / span as f64 * 1e3
            } else {
                0.0
            }
        })
        .sum();
    let st = &net.stats;
    let mut delivered = 0;
    let mut dup = 0;
    let mut corrupt = 0;
    let mut beyond = 0;
    let (mut rsegs, mut rpkts, mut racks, mut rcomp) = (0, 0, 0, 0);
    for (_, r) in net.receivers() {
        rsegs += r.stats.data_segments;
        rpkts += r.stats.data_packets;
        racks += r.stats.acks_sent;
        rcomp += r.stats.acks_compressed;
        beyond += r.stats.beyond_window_bytes;
        delivered += r.stats.delivered;
        dup += r.stats.duplicate_bytes;
        corrupt += r.stats.corrupt_bytes;
    }
    let incomplete_reason =
        (!completed).then(|| incomplete_reason(cfg, senders, net, now, stopped));
    let per_flow: Vec<FlowReport> = senders
        .iter()
        .zip(apps)
        .enumerate()
        .map(|(i, (s, a))| {
            let span = a
                .data_done_ns
                .unwrap_or(now)
                .saturating_sub(s.stats.established_ns)
                .max(1);
            let srtt = &s.stats.srtt_ns;
            FlowReport {
                flow: i,
                bytes_acked: s.stats.acked_bytes,
                goodput_mbps: s.stats.acked_bytes as f64 * 8.0 / span as f64 * 1e3,
                completed: s.is_finished(),
                retransmitted_segments: s.stats.retrans_segs,
                rto_fires: s.stats.rto_fires,
                srtt_mean_us: Summary::of(srtt, 1000.0).mean,
                srtt_final_us: srtt.last().map_or(0.0, |&v| v as f64 / 1000.0),
                final_cwnd: s.cc_state.cwnd,
                cc_state: s.cc_label(),
            }
        })
        .collect();
    let jain_fairness = jain_index(&per_flow.iter().map(|f| f.goodput_mbps).collect::<Vec<_>>());
    Report {
        card: card.describe(),
        config: cfg.clone(),
        completed,
        incomplete_reason,
        sim_time_ms: now as f64 / 1e6,
        bytes_acked,
        goodput_mbps: bytes_acked as f64 * 8.0 / dur as f64 * 1e3,
        srtt_us: Summary::of(&srtt, 1000.0),
        rtt_sample_us: Summary::of(&rtt, 1000.0),
        base_rtt_us: cfg.path.rtt_ns as f64 / 1000.0,
        retransmitted_segments: senders.iter().map(|s| s.stats.retrans_segs).sum(),
        tlp_probes: senders.iter().map(|s| s.stats.tlp_probes).sum(),
        rto_fires: senders.iter().map(|s| s.stats.rto_fires).sum(),
        recoveries: senders.iter().map(|s| s.stats.recoveries).sum(),
        achieved_send_mbps: achieved,
        pacing_accuracy: cfg.max_rate_bps.map(|r| achieved * 1e6 / r as f64),
        launch_error_ns: Summary::of(&lerr, 1.0),
        frames_sent_late: senders.iter().map(|s| s.stats.frames_sent_late).sum(),
        queue_delay_us: Summary::of(&st.queue_delay_ns, 1000.0),
        bottleneck_drops: st.dropped_buffer,
        random_losses: st.dropped_random,
        max_backlog_bytes: st.max_backlog_bytes,
        rr_latency_us: cfg.rr.map(|_| Summary::of(&rr_lat, 1000.0)),
        peak_unsent_bytes: mem.peak_unsent,
        peak_buffered_bytes: mem.peak_buffered,
        steady_unsent_bytes: mem.steady_unsent,
        steady_buffered_bytes: mem.steady_buffered,
        pacing_timer_arms: senders.iter().map(|s| s.stats.pacing_timer_arms).sum(),
        pacing_timer_wakeups: senders.iter().map(|s| s.stats.pacing_timer_wakeups).sum(),
        pacing_timer_arms_before_patch: senders
            .iter()
            .map(|s| s.stats.pacing_timer_arms_before_patch)
            .sum(),
        receiver_delivered: delivered,
        receiver_duplicate_bytes: dup,
        receiver_data_segments: rsegs,
        receiver_data_packets: rpkts,
        receiver_acks_sent: racks,
        receiver_acks_compressed: rcomp,
        receiver_corrupt_bytes: corrupt,
        receiver_beyond_window_bytes: beyond,
        window_violations: senders.iter().map(|s| s.stats.window_violations).sum(),
        wstamp_backward: senders.iter().map(|s| s.stats.wstamp_backward).sum(),
        early_timer_fires: senders.iter().map(|s| s.early_timer_fires()).sum(),
        final_cwnd: senders.iter().map(|s| s.cc_state.cwnd).collect(),
        cc_state: senders.iter().map(|s| s.cc_label()).collect(),
        per_flow,
        jain_fairness,
        card_stats: None,
        ptp: None,
        pcap,
    }
}

impl Report {
    /// The human table printed by `tsnic send`.
    pub fn table(&self) -> String {
        use std::fmt::Write;
        let mut o = String::new();
        let c = &self.config;
        let _ = writeln!(o, "card         {}", self.card);
        let _ = writeln!(
            o,
            "run          cc={:?} flows={} bytes/flow={} path={} pacing-model={:?} pacer={:?} seed={}",
            c.cc, c.flows, c.bytes, c.path_text, c.pacing_model, c.pacer, c.seed
        );
        let _ = writeln!(
            o,
            "completed    {} (simulated {:.3} ms)",
            self.completed, self.sim_time_ms
        );
        let _ = writeln!(o, "{:<26}{:>14}", "metric", "value");
        let row = |o: &mut String, k: &str, v: String| {
            let _ = writeln!(o, "{k:<26}{v:>14}");
        };
        row(
            &mut o,
            "goodput Mbit/s",
            format!("{:.2}", self.goodput_mbps),
        );
        row(&mut o, "bytes acked", self.bytes_acked.to_string());
        row(&mut o, "base RTT us", format!("{:.1}", self.base_rtt_us));
        row(&mut o, "srtt min us", format!("{:.1}", self.srtt_us.min));
        row(&mut o, "srtt mean us", format!("{:.1}", self.srtt_us.mean));
        row(&mut o, "srtt p99 us", format!("{:.1}", self.srtt_us.p99));
        row(
            &mut o,
            "retransmitted segs",
            self.retransmitted_segments.to_string(),
        );
        row(
            &mut o,
            "rcv segs/pkts/ACKs",
            format!(
                "{} / {} / {} ({:.3} ACKs per segment)",
                self.receiver_data_segments,
                self.receiver_data_packets,
                self.receiver_acks_sent,
                self.receiver_acks_sent as f64 / self.receiver_data_segments.max(1) as f64
            ),
        );
        row(
            &mut o,
            "TLP probes / RTOs",
            format!("{} / {}", self.tlp_probes, self.rto_fires),
        );
        row(
            &mut o,
            "send rate Mbit/s",
            format!("{:.2}", self.achieved_send_mbps),
        );
        if let Some(a) = self.pacing_accuracy {
            row(&mut o, "rate / max-rate", format!("{:.4}", a));
        }
        row(
            &mut o,
            "launch error mean ns",
            format!("{:.1}", self.launch_error_ns.mean),
        );
        row(
            &mut o,
            "launch error max ns",
            format!("{:.0}", self.launch_error_ns.max),
        );
        row(
            &mut o,
            "queue delay mean us",
            format!("{:.2}", self.queue_delay_us.mean),
        );
        row(
            &mut o,
            "queue delay p99 us",
            format!("{:.2}", self.queue_delay_us.p99),
        );
        row(
            &mut o,
            "bottleneck drops",
            self.bottleneck_drops.to_string(),
        );
        row(&mut o, "random losses", self.random_losses.to_string());
        if let Some(l) = &self.rr_latency_us {
            row(&mut o, "RR latency p50 us", format!("{:.1}", l.p50));
            row(&mut o, "RR latency p99 us", format!("{:.1}", l.p99));
            row(&mut o, "RR latency max us", format!("{:.1}", l.max));
        }
        row(
            &mut o,
            "peak unsent bytes",
            self.peak_unsent_bytes.to_string(),
        );
        row(
            &mut o,
            "peak buffered bytes",
            self.peak_buffered_bytes.to_string(),
        );
        if self.config.pacer == Pacer::Host {
            let mb = (self.bytes_acked as f64 / 1e6).max(1e-9);
            row(
                &mut o,
                "pacing timer arms/MB",
                format!("{:.1}", self.pacing_timer_arms as f64 / mb),
            );
            row(
                &mut o,
                "pacing wake-ups/MB",
                format!("{:.1}", self.pacing_timer_wakeups as f64 / mb),
            );
            row(
                &mut o,
                "arms/MB before patch",
                format!("{:.1}", self.pacing_timer_arms_before_patch as f64 / mb),
            );
        }
        if self.config.rr.is_none() {
            row(
                &mut o,
                "steady unsent bytes",
                format!("{:.0}", self.steady_unsent_bytes),
            );
            row(
                &mut o,
                "steady buffered bytes",
                format!("{:.0}", self.steady_buffered_bytes),
            );
        }
        row(
            &mut o,
            "receiver ok",
            format!(
                "{}",
                self.receiver_corrupt_bytes == 0 && self.receiver_delivered >= self.bytes_acked
            ),
        );
        if let Some(s) = &self.card_stats {
            o.push_str(&s.table_rows());
        }
        if let Some(p) = &self.ptp {
            // messages sent and received: Sync, Follow_Up, Delay_Req, Delay_Resp, Announce
            let c = &p.counters;
            row(
                &mut o,
                "ptp state / TX queue",
                format!(
                    "{} / {}",
                    p.state.map(|s| s.name()).unwrap_or("never started"),
                    p.tx_queue.map_or("-".into(), |q| q.to_string())
                ),
            );
            row(
                &mut o,
                "ptp tx S/F/DQ/DR/A",
                format!(
                    "{}/{}/{}/{}/{}",
                    c.tx[0], c.tx[1], c.tx[2], c.tx[3], c.tx[4]
                ),
            );
            row(
                &mut o,
                "ptp rx S/F/DQ/DR/A",
                format!(
                    "{}/{}/{}/{}/{}",
                    c.rx[0], c.rx[1], c.rx[2], c.rx[3], c.rx[4]
                ),
            );
        }
        if self.per_flow.len() > 1 {
            o.push_str(&self.flow_table());
        }
        o
    }

    /// Per-flow rows and Jain's fairness index (printed by `tsnic send` for more than one flow).
    pub fn flow_table(&self) -> String {
        use std::fmt::Write;
        let mut o = String::new();
        let _ = writeln!(
            o,
            "{:>5} {:>12} {:>12} {:>8} {:>6} {:>10} {:>10} {:>8}  state",
            "flow", "goodput Mb/s", "bytes acked", "retrans", "RTOs", "srtt us", "srtt end", "cwnd"
        );
        for f in &self.per_flow {
            let _ = writeln!(
                o,
                "{:>5} {:>12.2} {:>12} {:>8} {:>6} {:>10.1} {:>10.1} {:>8}  {}{}",
                f.flow,
                f.goodput_mbps,
                f.bytes_acked,
                f.retransmitted_segments,
                f.rto_fires,
                f.srtt_mean_us,
                f.srtt_final_us,
                f.final_cwnd,
                f.cc_state,
                if f.completed { "" } else { " (not finished)" }
            );
        }
        let _ = writeln!(
            o,
            "Jain's fairness index {} over {} flows (1 = equal goodput shares, {:.3} = one flow took all)",
            self.jain_fairness
                .map_or_else(|| "n/a".to_string(), |j| format!("{j:.4}")),
            self.per_flow.len(),
            1.0 / self.per_flow.len() as f64
        );
        o
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_units() {
        assert_eq!(parse_rate_bps("10G"), Some(10_000_000_000));
        assert_eq!(parse_rate_bps("24M"), Some(24_000_000));
        assert_eq!(parse_rate_bps("8Gbit"), Some(8_000_000_000));
        assert_eq!(parse_duration_ns("100us"), Some(100_000));
        assert_eq!(parse_duration_ns("2ms"), Some(2_000_000));
        assert_eq!(parse_duration_ns("100"), None);
        assert_eq!(parse_size("1MB"), Some(1_000_000));
        assert_eq!(parse_size("64KiB"), Some(65_536));
        assert_eq!(parse_size("1500"), Some(1500));
    }

    #[test]
    fn path_errors_name_the_field() {
        let p = parse_path("rate=10G,rtt=100us,buffer=1MB,loss=0.001").unwrap();
        assert_eq!(p.rate_bps, 10_000_000_000);
        assert_eq!(p.loss, 0.001);
        let e = parse_path("rate=10G,rtt=fast").unwrap_err().to_string();
        assert!(e.contains("rtt=fast") && e.contains("example"), "{e}");
        let e = parse_path("rate=10G,loss=2").unwrap_err().to_string();
        assert!(e.contains("loss=2"), "{e}");
        let e = parse_path("rtt=1ms").unwrap_err().to_string();
        assert!(e.contains("rate"), "{e}");
        let e = parse_path("rate=10G,colour=red").unwrap_err().to_string();
        assert!(e.contains("unknown key"), "{e}");
        let e = parse_path("rate=0,rtt=1ms").unwrap_err().to_string();
        assert!(e.contains("must be positive"), "{e}");
    }

    #[test]
    fn jain_index_bounds() {
        // equal shares: 1; one flow with everything: 1/n (Jain et al. 1984, the index's bounds)
        assert_eq!(jain_index(&[5.0, 5.0, 5.0, 5.0]), Some(1.0));
        assert_eq!(jain_index(&[8.0, 0.0, 0.0, 0.0]), Some(0.25));
        // two flows at 1 and 3: 16 / (2 * 10)
        assert!((jain_index(&[1.0, 3.0]).unwrap() - 0.8).abs() < 1e-12);
        assert_eq!(jain_index(&[]), None);
        assert_eq!(jain_index(&[0.0, 0.0]), None);
    }

    #[test]
    fn summary_percentiles() {
        let v: Vec<u64> = (1..=100).collect();
        let s = Summary::of(&v, 1.0);
        assert_eq!((s.min, s.p50, s.p99, s.max), (1.0, 50.0, 99.0, 100.0));
    }
}
