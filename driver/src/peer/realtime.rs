//! The real-time run loops of `--peer linux` and their report.
//!
//! [`run_edt`]: our EDT sender on the software card model, on the host clock. The card model
//! decides each frame's departure (launch time, line rate) and the loop hands the frame to
//! the path model or straight to the TAP when that time has come; the completion carries the
//! time the frame actually left. Frames Linux sends come back from the TAP (through the
//! path's reverse delay) to the sender host-side (the model has no receive path).
//!
//! [`run_edt_sim`]: the same sender on the Verilated card, both wire ends bridged to the TAP:
//! frames from Linux enter the card's RX line and reach the sender from its RX ring.
//!
//! [`run_kernel`]: the baseline. The kernel's TCP sends from a second namespace; this process
//! forwards frames between the two TAPs through the same path model.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::kernel::{pattern_sha256, KernelSendResult, ReceiverResult, TcpInfo};
use super::netns::{self, Netns, NsProcess, Station};
use super::path::{Burst, RtPath, RtPathStats};
use super::sys::{self, Tap};
use super::PeerError;
use crate::edt::card::{Completion, IdealCardModel, SimWire, TxPort, TxRequest};
use crate::edt::card_sim::SimCardStats;
use crate::edt::cc::CcKind;
use crate::edt::frame::{self, tcp_flags, Endpoints, Segment};
use crate::edt::run::{Summary, APP_CHUNK};
use crate::edt::sender::{ConnState, SenderConfig, TcpSender};
use crate::netsim::PathConfig;
use crate::rng::SeededRng;

/// Our end (the EDT sender) and the Linux end.
pub const OUR_END: Station = Station {
    mac: [0x02, 0x74, 0x73, 0x6e, 0x69, 0x01],
    ip: [10, 77, 0, 1],
};
pub const LINUX_END: Station = Station {
    mac: [0x02, 0x74, 0x73, 0x6e, 0x69, 0x02],
    ip: [10, 77, 0, 2],
};
pub const LINUX_PORT: u16 = 5001;
pub const OUR_PORT: u16 = 40000;
/// The host clock as the sender sees it starts at 1 s, so no TSval is 0.
const CLOCK_BASE_NS: u64 = 1_000_000_000;
/// How long the Linux helpers may stay silent before the run gives up.
const HELPER_TIMEOUT: Duration = Duration::from_secs(10);

/// Which namespace the Linux receiver lives in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum PeerSpec {
    /// Create a namespace for the run and remove it at the end.
    Create,
    /// Use this existing namespace (it is left in place; the TAP and receiver are removed).
    Existing(String),
}

/// One real-time run against Linux.
#[derive(Debug, Clone, Serialize)]
pub struct LinuxRunConfig {
    pub peer: PeerSpec,
    pub cc: CcKind,
    pub bytes: u64,
    pub line_rate_bps: u64,
    #[serde(skip)]
    pub path: Option<PathConfig>,
    pub path_text: Option<String>,
    pub burst: Option<Burst>,
    pub seed: u64,
    /// Wall-clock limit of the transfer.
    pub time_limit_ns: u64,
    pub tick_ns: u64,
    pub max_rate_bps: Option<u64>,
    /// Every flow paced as behind sch_fq (the default); false: as Linux without fq
    /// (`SenderConfig::fq`), like for like with `--sender kernel` on this machine's kernel.
    pub fq: bool,
    /// Linux `tcp_slow_start_after_idle` (default on).
    pub slow_start_after_idle: bool,
    /// net.ipv4.tcp_tso_rtt_log of our sender (`SenderConfig::tso_rtt_log`).
    pub tso_rtt_log: Option<u32>,
    /// SO_RCVBUF of the Linux receiver (None: autotuning).
    pub rcvbuf: Option<u32>,
    /// The Linux receiver reads at most this many bytes/s (None: as fast as it can).
    pub read_rate: Option<u64>,
    pub capture: bool,
    /// The receiver writes its own [`super::kernel::ReceiverEvidence`] to this file.
    pub evidence: Option<std::path::PathBuf>,
}

impl Default for LinuxRunConfig {
    fn default() -> Self {
        LinuxRunConfig {
            peer: PeerSpec::Create,
            cc: CcKind::Cubic,
            bytes: 1_000_000,
            line_rate_bps: 10_000_000_000,
            path: None,
            path_text: None,
            burst: None,
            seed: 1,
            time_limit_ns: 60_000_000_000,
            tick_ns: crate::edt::timer::DEFAULT_TICK_NS,
            max_rate_bps: None,
            fq: true,
            slow_start_after_idle: true,
            tso_rtt_log: None,
            rcvbuf: None,
            read_rate: None,
            capture: false,
            evidence: None,
        }
    }
}

/// TCP options of a SYN or SYN-ACK.
#[derive(Debug, Clone, Default, Serialize, PartialEq, Eq)]
pub struct SynOptions {
    pub mss: Option<u16>,
    pub wscale: Option<u8>,
    pub sack_permitted: bool,
    pub timestamps: bool,
}

impl SynOptions {
    fn of(s: &Segment) -> SynOptions {
        SynOptions {
            mss: s.options.mss,
            wscale: s.options.wscale,
            sack_permitted: s.options.sack_permitted,
            timestamps: s.options.timestamps.is_some(),
        }
    }
}

/// The `peer` object of the report: what the Linux side saw.
#[derive(Debug, Clone, Default, Serialize)]
pub struct PeerReport {
    pub kind: String,
    pub netns: String,
    pub netns_created: bool,
    pub tap: String,
    pub linux_addr: String,
    pub our_addr: String,
    /// Bytes the Linux receiver read.
    pub received_bytes: u64,
    pub sha256: String,
    pub expected_sha256: String,
    /// The Linux receiver read exactly the bytes sent (same length, same hash).
    pub sha256_match: bool,
    pub fin_from_linux: bool,
    pub fin_from_sender: bool,
    pub rst_from_linux: u64,
    pub rst_from_sender: u64,
    /// Data frames whose end lay beyond the right edge of the window Linux had advertised
    /// to the sender when the frame left (must be 0).
    pub beyond_window_frames: u64,
    pub frames_to_linux: u64,
    pub frames_from_linux: u64,
    /// ARP, IPv6 and other frames from Linux that were not for the connection (ignored).
    pub other_frames_from_linux: u64,
    /// Options in the sender's SYN, and in Linux's SYN-ACK.
    pub syn_offered: SynOptions,
    pub synack_options: SynOptions,
    /// The Linux receiving socket's TCP_INFO at end of stream (what `ss -ti` shows).
    pub linux_tcp_info: TcpInfo,
    /// TCP counter changes in the receiver's namespace.
    pub linux_counters: BTreeMap<String, u64>,
    pub receiver_error: Option<String>,
}

/// The report of a run against Linux.
#[derive(Debug, Clone, Serialize)]
pub struct LinuxReport {
    /// Always "real-time (host clock)": the sender and Linux share the host's time.
    pub mode: String,
    /// "edt" (our sender) or "kernel" (Linux's own TCP as the sender, the baseline).
    pub sender: String,
    pub card: String,
    pub config: LinuxRunConfig,
    pub completed: bool,
    pub duration_ms: f64,
    pub goodput_mbps: f64,
    pub bytes_acked: u64,
    pub srtt_us: Summary,
    pub rtt_sample_us: Summary,
    pub retransmitted_segments: u64,
    pub tlp_probes: u64,
    pub rto_fires: u64,
    pub recoveries: u64,
    pub launch_error_ns: Summary,
    pub frames_sent_late: u64,
    /// The sender's own count of sends beyond the window (must be 0).
    pub window_violations: u64,
    /// How frames from Linux reach the sender: through the card's receive path (with the
    /// card's arrival stamps) or host-side (read from the TAP, through the path model if any).
    pub rx_path: String,
    /// Frames for the connection the sender took from the card's RX ring, with the card's
    /// hardware arrival stamp (RTT samples end there).
    pub frames_to_sender_card_rx: u64,
    /// Frames for the connection the sender took host-side, without the card.
    pub frames_to_sender_host: u64,
    /// The Verilated card's counts (TX statuses, RX injected/received/errors); --card sim only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub card_stats: Option<SimCardStats>,
    /// --card sim: most frames from Linux the bridge held back at once while the card's RX
    /// line had its share (see `COSIM_RX_FRAMES`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rx_bridge_max_held: Option<u64>,
    pub path: Option<RtPathStats>,
    /// Kernel baseline only: the kernel sender's TCP_INFO and counters.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kernel_sender: Option<KernelSendResult>,
    pub peer: PeerReport,
    #[serde(skip)]
    pub pcap: Vec<(u64, Vec<u8>)>,
}

impl LinuxReport {
    /// The run did what was asked: completed, every byte read by Linux, clean close.
    pub fn ok(&self) -> bool {
        self.completed
            && self.peer.sha256_match
            && self.peer.rst_from_linux == 0
            && self.peer.rst_from_sender == 0
    }

    pub fn table(&self) -> String {
        use std::fmt::Write;
        let mut o = String::new();
        let p = &self.peer;
        let c = &self.config;
        let _ = writeln!(o, "mode         {} against Linux", self.mode);
        let _ = writeln!(o, "sender       {} ({:?})", self.sender, c.cc);
        let _ = writeln!(o, "card         {}", self.card);
        let _ = writeln!(
            o,
            "path         {}{}",
            c.path_text
                .as_deref()
                .unwrap_or("none (frames go straight to the TAP)"),
            c.burst
                .map(|b| format!(", burst of {} data frames from #{}", b.count, b.start))
                .unwrap_or_default()
        );
        let _ = writeln!(
            o,
            "linux        netns {} ({}), {} on TAP {}",
            p.netns,
            if p.netns_created {
                "created"
            } else {
                "existing"
            },
            p.linux_addr,
            p.tap
        );
        let _ = writeln!(
            o,
            "completed    {} in {:.1} ms",
            self.completed, self.duration_ms
        );
        let row = |o: &mut String, k: &str, v: String| {
            let _ = writeln!(o, "{k:<26}{v:>20}");
        };
        row(
            &mut o,
            "goodput Mbit/s",
            format!("{:.1}", self.goodput_mbps),
        );
        row(&mut o, "linux received bytes", p.received_bytes.to_string());
        row(&mut o, "sha256 match", p.sha256_match.to_string());
        row(
            &mut o,
            "FIN us/linux, RSTs",
            format!(
                "{}/{}, {}",
                p.fin_from_sender,
                p.fin_from_linux,
                p.rst_from_linux + p.rst_from_sender
            ),
        );
        row(&mut o, "srtt mean us", format!("{:.1}", self.srtt_us.mean));
        row(
            &mut o,
            "retransmitted segs",
            self.retransmitted_segments.to_string(),
        );
        row(
            &mut o,
            "TLP probes / RTOs",
            format!("{} / {}", self.tlp_probes, self.rto_fires),
        );
        row(&mut o, "recoveries", self.recoveries.to_string());
        if let Some(ps) = &self.path {
            row(
                &mut o,
                "path drops rnd/burst/buf",
                format!(
                    "{}/{}/{}",
                    ps.dropped_random, ps.dropped_burst, ps.dropped_buffer
                ),
            );
        }
        row(
            &mut o,
            "beyond-window frames",
            p.beyond_window_frames.to_string(),
        );
        row(
            &mut o,
            "to sender card RX/host",
            format!(
                "{}/{}",
                self.frames_to_sender_card_rx, self.frames_to_sender_host
            ),
        );
        if let Some(cs) = &self.card_stats {
            row(
                &mut o,
                "card RX in/out/errors",
                format!("{}/{}/{}", cs.rx_injected, cs.rx_received, cs.rx_errors),
            );
        }
        row(
            &mut o,
            "launch error mean ns",
            format!("{:.0}", self.launch_error_ns.mean),
        );
        let t = &p.linux_tcp_info;
        row(
            &mut o,
            "linux saw mss/ws/sack/ts",
            format!(
                "{}/{}/{}/{}",
                t.rcv_mss.max(t.snd_mss),
                if t.has_wscale() {
                    t.snd_wscale.to_string()
                } else {
                    "-".into()
                },
                t.has_sack(),
                t.has_timestamps()
            ),
        );
        if let Some(k) = &self.kernel_sender {
            if !k.ss_ti.trim().is_empty() {
                let _ = writeln!(
                    o,
                    "kernel sender `ss -tin` at the end:\n{}",
                    k.ss_ti.trim_end()
                );
            }
        }
        if let Some(e) = &p.receiver_error {
            row(&mut o, "receiver error", e.clone());
        }
        o
    }
}

/// The host clock as the loops use it (ns, monotonic).
struct Clock(Instant);
impl Clock {
    fn now(&self) -> u64 {
        self.0.elapsed().as_nanos() as u64 + CLOCK_BASE_NS
    }
}

/// Shift capture timestamps from the loop's clock to wall-clock time (so a capture shows when
/// it was taken). Simulated-time captures (`--card sim`) are left in simulated time.
fn to_wall_time(mut frames: Vec<(u64, Vec<u8>)>, clock: &Clock) -> Vec<(u64, Vec<u8>)> {
    let wall = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    let off = wall.saturating_sub(clock.now());
    for (t, _) in frames.iter_mut() {
        *t += off;
    }
    frames
}

/// The right edge of the window Linux advertised, as the sender has learnt it.
#[derive(Default)]
struct WindowEdge {
    wscale: u8,
    /// Right edge, in 32-bit sequence space; None until the SYN-ACK.
    right: Option<u32>,
}

impl WindowEdge {
    fn learn(&mut self, s: &Segment) {
        if s.flags & tcp_flags::ACK == 0 {
            return;
        }
        let syn = s.flags & tcp_flags::SYN != 0;
        if syn {
            self.wscale = s.options.wscale.unwrap_or(0).min(14);
        }
        let win = u32::from(s.window) << if syn { 0 } else { self.wscale };
        let edge = s.ack.wrapping_add(win);
        self.right = Some(match self.right {
            Some(r) if (edge.wrapping_sub(r) as i32) < 0 => r,
            _ => edge,
        });
    }

    fn beyond(&self, s: &Segment) -> bool {
        let Some(r) = self.right else { return false };
        if s.payload_len == 0 {
            return false;
        }
        let end = s.seq.wrapping_add(s.payload_len as u32);
        (end.wrapping_sub(r) as i32) > 0
    }
}

/// Frame counters and checks of the conversation.
#[derive(Default)]
struct Watch {
    /// Our port, when we are the sender (the kernel baseline uses an ephemeral one).
    our_port: Option<u16>,
    edge: WindowEdge,
    peer: PeerReport,
}

impl Watch {
    fn ours(&mut self, f: &[u8]) {
        self.peer.frames_to_linux += 1;
        if let Ok(s) = frame::parse(f) {
            if s.flags & tcp_flags::SYN != 0 {
                self.peer.syn_offered = SynOptions::of(&s);
            }
            if s.flags & tcp_flags::FIN != 0 {
                self.peer.fin_from_sender = true;
            }
            if s.flags & tcp_flags::RST != 0 {
                self.peer.rst_from_sender += 1;
            }
            if self.edge.beyond(&s) {
                self.peer.beyond_window_frames += 1;
            }
        }
    }

    /// A frame from Linux as it reaches the sender; Some(segment) if it is for the connection.
    fn theirs(&mut self, f: &[u8]) -> bool {
        match frame::parse(f) {
            Ok(s)
                if s.ends.src_port == LINUX_PORT
                    && self.our_port.is_none_or(|p| p == s.ends.dst_port) =>
            {
                self.peer.frames_from_linux += 1;
                if s.flags & tcp_flags::SYN != 0 {
                    self.peer.synack_options = SynOptions::of(&s);
                }
                if s.flags & tcp_flags::FIN != 0 {
                    self.peer.fin_from_linux = true;
                }
                if s.flags & tcp_flags::RST != 0 {
                    self.peer.rst_from_linux += 1;
                }
                self.edge.learn(&s);
                true
            }
            _ => {
                self.peer.other_frames_from_linux += 1;
                false
            }
        }
    }
}

/// The card as the real-time loop drives it: the software card model decides departures;
/// departed frames go to the path model (or straight to the TAP) at once.
struct RtCard {
    model: IdealCardModel,
    tap: Tap,
    path: Option<RtPath>,
    clock: Arc<Clock>,
    watch: Watch,
    capture: Option<Vec<(u64, Vec<u8>)>>,
    io_error: Option<String>,
}

impl RtCard {
    fn write_tap(&mut self, t: u64, f: Vec<u8>) {
        if let Err(e) = self.tap.send(&f) {
            self.io_error
                .get_or_insert(format!("write to {}: {e}", self.tap.name()));
        }
        if let Some(c) = &mut self.capture {
            c.push((t, f));
        }
    }

    /// Move frames that are due on the path into the TAP.
    fn pump_path(&mut self) {
        let now = self.clock.now();
        if let Some(p) = &mut self.path {
            for f in p.due_fwd(now) {
                let t = self.clock.now();
                self.write_tap(t, f);
            }
        }
    }
}

impl TxPort for RtCard {
    fn post(&mut self, now: u64, req: TxRequest) {
        self.model.post(now, req);
    }
    fn next_event_ns(&self) -> Option<u64> {
        self.model.next_event_ns()
    }
    fn poll(&mut self, now: u64) -> Vec<Completion> {
        let mut cs = self.model.poll(now);
        let wire = self.model.drain_wire();
        for (c, w) in cs.iter_mut().zip(wire) {
            let t = self.clock.now().max(now);
            // The frame leaves now: report that as its departure (never before the model's).
            c.depart_ns = c.depart_ns.max(t);
            self.watch.ours(&w.frame);
            match &mut self.path {
                Some(p) => p.send_fwd(t, w.frame),
                None => self.write_tap(t, w.frame),
            }
        }
        cs
    }
    fn line_rate_bps(&self) -> u64 {
        self.model.line_rate_bps()
    }
    fn describe(&self) -> String {
        format!(
            "software card model (IdealCardModel, {} Gbit/s line) on the host clock, into TAP {}",
            self.model.line_rate_bps() as f64 / 1e9,
            self.tap.name()
        )
    }
}

/// The Linux side of one run: namespace, TAP, receiver. Dropped in reverse order of
/// creation (receiver, TAP, namespace) by field order below.
struct LinuxSide {
    receiver: NsProcess,
    tap: Option<Tap>,
    ns: Netns,
}

fn open_netns(spec: &PeerSpec, prefix: &str) -> Result<Netns, PeerError> {
    match spec {
        PeerSpec::Create => Netns::create(&netns::unique_name(prefix)),
        PeerSpec::Existing(n) => Netns::existing(n),
    }
}

fn receiver_args(cfg: &LinuxRunConfig) -> Vec<String> {
    let mut a = vec![
        "peer-recv".to_string(),
        "--listen".into(),
        format!("{}:{LINUX_PORT}", ip_str(LINUX_END.ip)),
        "--idle-timeout-ms".into(),
        HELPER_TIMEOUT.as_millis().to_string(),
    ];
    if let Some(b) = cfg.rcvbuf {
        a.extend(["--rcvbuf".into(), b.to_string()]);
    }
    if let Some(r) = cfg.read_rate {
        a.extend(["--read-rate".into(), r.to_string()]);
    }
    if let Some(p) = &cfg.evidence {
        a.extend(["--evidence".into(), p.to_string_lossy().into_owned()]);
    }
    a
}

fn ip_str(a: [u8; 4]) -> String {
    format!("{}.{}.{}.{}", a[0], a[1], a[2], a[3])
}

#[derive(Deserialize)]
struct Ready {
    ready: bool,
}

fn start_linux_side(
    cfg: &LinuxRunConfig,
    ns: Netns,
    linux: Station,
    us: Station,
    stop: &AtomicBool,
) -> Result<LinuxSide, PeerError> {
    let tap_name = netns::unique_name("tsn");
    let tap = netns::tap_into_netns(&ns, &tap_name, linux, us)?;
    let mut receiver = NsProcess::spawn(ns.name(), &receiver_args(cfg), "Linux receiver")?;
    let r: Ready = receiver.wait_json(HELPER_TIMEOUT, stop)?;
    if !r.ready {
        return Err(PeerError::Peer("the receiver did not start".into()));
    }
    Ok(LinuxSide {
        receiver,
        tap: Some(tap),
        ns,
    })
}

fn check_config(cfg: &LinuxRunConfig) -> Result<(), PeerError> {
    if cfg.bytes == 0 {
        return Err(PeerError::Invalid("--bytes must be at least 1".into()));
    }
    if cfg.read_rate == Some(0) {
        return Err(PeerError::Invalid(
            "--peer-read-rate must be above 0".into(),
        ));
    }
    if cfg.burst.is_some() && cfg.path.is_none() {
        return Err(PeerError::Invalid(
            "--drop-burst needs the path model; add --path rate=...,rtt=...,buffer=...".into(),
        ));
    }
    Ok(())
}

/// The EDT sender of our end (its endpoints, initial sequence from the seed, pacing cap and tick).
fn our_sender(cfg: &LinuxRunConfig) -> TcpSender {
    let ends = Endpoints {
        src_mac: OUR_END.mac,
        dst_mac: LINUX_END.mac,
        src_ip: OUR_END.ip,
        dst_ip: LINUX_END.ip,
        src_port: OUR_PORT,
        dst_port: LINUX_PORT,
    };
    let mut rng = SeededRng::new(cfg.seed);
    let mut sc = SenderConfig::new(ends, rng.next_u64() as u32, cfg.cc);
    sc.max_pacing_rate = cfg.max_rate_bps.map_or(u64::MAX, |r| r / 8);
    sc.fq = cfg.fq;
    sc.slow_start_after_idle = cfg.slow_start_after_idle;
    sc.tso_rtt_log = cfg.tso_rtt_log;
    sc.tick_ns = cfg.tick_ns;
    sc.seed = cfg.seed;
    TcpSender::new(sc, 1 << 48)
}

/// Run our EDT sender against the Linux receiver in real time.
pub fn run_edt(cfg: &LinuxRunConfig, stop: Arc<AtomicBool>) -> Result<LinuxReport, PeerError> {
    check_config(cfg)?;
    netns::check_prerequisites()?;
    let ns = open_netns(&cfg.peer, "tsnic-peer-")?;
    let mut side = start_linux_side(cfg, ns, LINUX_END, OUR_END, &stop)?;
    let clock = Arc::new(Clock(Instant::now()));
    let tap = side
        .tap
        .take()
        .ok_or_else(|| PeerError::Setup("no TAP".into()))?;
    let mut card = RtCard {
        model: IdealCardModel::new(cfg.line_rate_bps),
        tap,
        path: cfg
            .path
            .clone()
            .map(|p| RtPath::new(p, cfg.burst, cfg.seed)),
        clock: Arc::clone(&clock),
        watch: Watch {
            our_port: Some(OUR_PORT),
            ..Watch::default()
        },
        capture: cfg.capture.then(Vec::new),
        io_error: None,
    };
    let mut s = our_sender(cfg);
    let start = clock.now();
    s.connect(start, &mut card);
    let mut remaining = cfg.bytes;
    let mut closed = false;
    let mut data_done: Option<u64> = None;
    let mut buf = vec![0u8; 65_536];
    let limit = start + cfg.time_limit_ns;
    let mut drain_until: Option<u64> = None;
    let mut to_sender_host = 0u64;
    loop {
        if stop.load(Ordering::Relaxed) {
            return Err(PeerError::Interrupted);
        }
        if let Some(e) = card.io_error.take() {
            return Err(PeerError::Io(e));
        }
        let now = clock.now();
        if now > limit {
            break;
        }
        for c in card.poll(now) {
            s.on_completion(&c);
        }
        card.pump_path();
        // Frames from Linux: through the reverse path, or straight to the sender.
        let now = clock.now();
        let mut from_linux = Vec::new();
        loop {
            match card.tap.recv(&mut buf) {
                Ok(Some(n)) => {
                    let f = buf[..n].to_vec();
                    if let Some(c) = &mut card.capture {
                        c.push((now, f.clone()));
                    }
                    match &mut card.path {
                        Some(p) => p.send_rev(now, f),
                        None => from_linux.push(f),
                    }
                }
                Ok(None) => break,
                Err(e) => return Err(PeerError::Io(format!("read from TAP: {e}"))),
            }
        }
        if let Some(p) = &mut card.path {
            from_linux.extend(p.due_rev(now));
        }
        for f in from_linux {
            if card.watch.theirs(&f) {
                to_sender_host += 1;
                s.on_frame(now, &f, &mut card);
            }
        }
        if s.next_timer_ns().is_some_and(|d| d <= now) {
            s.on_timers(now, &mut card);
        }
        if matches!(s.state, ConnState::Established | ConnState::FinWait) {
            while remaining > 0 && s.buffered_bytes() < s.sndbuf_bytes() {
                let n = remaining.min(APP_CHUNK);
                s.write(n);
                remaining -= n;
            }
            if remaining == 0 && !closed {
                closed = true;
                s.close();
            }
            if data_done.is_none() && s.snd_una >= cfg.bytes {
                data_done = Some(now);
            }
            s.xmit(now, &mut card);
        }
        if s.is_finished() {
            // Let the last ACK (of Linux's FIN) leave and cross the path.
            let until = *drain_until.get_or_insert(now + 2_000_000_000);
            let idle = card.next_event_ns().is_none()
                && card.path.as_ref().is_none_or(|p| p.in_flight() == 0);
            if idle || now > until {
                break;
            }
        }
        // Sleep until the next thing to do, or a frame from Linux.
        let next = [
            card.next_event_ns(),
            card.path.as_ref().and_then(RtPath::next_event_ns),
            s.next_timer_ns(),
            Some(now + 5_000_000),
        ]
        .into_iter()
        .flatten()
        .min()
        .unwrap_or(now);
        let now = clock.now();
        // Short waits spin (ppoll's timer slack is ~50 us); longer ones sleep in the kernel.
        if next > now + 60_000 {
            sys::wait_readable(&[card.tap.raw_fd()], next - now - 50_000)
                .map_err(|e| PeerError::Io(format!("ppoll on the TAP: {e}")))?;
        }
    }
    let end = clock.now();
    let completed = s.state == ConnState::Done;
    let rr: Result<ReceiverResult, PeerError> =
        side.receiver.wait_json(Duration::from_secs(3), &stop);
    let (rr, rerr) = match rr {
        Ok(r) => {
            let e = r.error.clone();
            (r, e)
        }
        Err(e) => (ReceiverResult::default(), Some(e.to_string())),
    };
    let expected = pattern_sha256(cfg.bytes);
    let mut peer = std::mem::take(&mut card.watch.peer);
    peer.kind = "linux".into();
    peer.netns = side.ns.name().to_string();
    peer.netns_created = side.ns.owned();
    peer.tap = card.tap.name().to_string();
    peer.linux_addr = format!("{}:{LINUX_PORT}", ip_str(LINUX_END.ip));
    peer.our_addr = format!("{}:{OUR_PORT}", ip_str(OUR_END.ip));
    peer.received_bytes = rr.received_bytes;
    peer.sha256_match = rr.received_bytes == cfg.bytes && rr.sha256 == expected;
    peer.sha256 = rr.sha256;
    peer.expected_sha256 = expected;
    peer.linux_tcp_info = rr.tcp_info;
    peer.linux_counters = rr.counters;
    peer.receiver_error = rerr;
    let st = &s.stats;
    let dur = data_done
        .unwrap_or(end)
        .saturating_sub(st.established_ns.max(start))
        .max(1);
    let report = LinuxReport {
        mode: "real-time (host clock)".into(),
        sender: "edt".into(),
        card: card.describe(),
        config: cfg.clone(),
        completed,
        duration_ms: (end - start) as f64 / 1e6,
        goodput_mbps: st.acked_bytes as f64 * 8.0 / dur as f64 * 1e3,
        bytes_acked: st.acked_bytes,
        srtt_us: Summary::of(&st.srtt_ns, 1000.0),
        rtt_sample_us: Summary::of(&st.rtt_ns, 1000.0),
        retransmitted_segments: st.retrans_segs,
        tlp_probes: st.tlp_probes,
        rto_fires: st.rto_fires,
        recoveries: st.recoveries,
        launch_error_ns: Summary::of(&st.launch_error_ns, 1.0),
        frames_sent_late: st.frames_sent_late,
        window_violations: st.window_violations,
        rx_path: "host: read from the TAP (through the path model if any)".into(),
        frames_to_sender_card_rx: 0,
        frames_to_sender_host: to_sender_host,
        card_stats: None,
        rx_bridge_max_held: None,
        path: card.path.as_ref().map(|p| p.stats.clone()),
        kernel_sender: None,
        peer,
        pcap: to_wall_time(card.capture.take().unwrap_or_default(), &clock),
    };
    // Guards go in order: receiver (already done), TAP (card), namespace.
    drop(side.receiver);
    drop(card);
    drop(side.ns);
    Ok(report)
}

/// The baseline: Linux's own TCP sends `cfg.bytes` from a second namespace to the same
/// receiver over the same path model (this process forwards between the two TAPs).
pub fn run_kernel(cfg: &LinuxRunConfig, stop: Arc<AtomicBool>) -> Result<LinuxReport, PeerError> {
    check_config(cfg)?;
    netns::check_prerequisites()?;
    let cc = match cfg.cc {
        CcKind::Cubic => "cubic",
        CcKind::Bbr => "bbr",
    };
    // Receiver side as in run_edt; the client namespace is always created here.
    let ns = open_netns(&cfg.peer, "tsnic-peer-")?;
    let mut side = start_linux_side(cfg, ns, LINUX_END, OUR_END, &stop)?;
    let cns = Netns::create(&netns::unique_name("tsnic-kcli-"))?;
    let ctap = netns::tap_into_netns(&cns, &netns::unique_name("tsk"), OUR_END, LINUX_END)?;
    let stap = side
        .tap
        .take()
        .ok_or_else(|| PeerError::Setup("no TAP".into()))?;
    let mut client = NsProcess::spawn(
        cns.name(),
        &[
            "peer-kernel-send".into(),
            "--connect".into(),
            format!("{}:{LINUX_PORT}", ip_str(LINUX_END.ip)),
            "--bytes".into(),
            cfg.bytes.to_string(),
            "--cc".into(),
            cc.into(),
            "--timeout-ms".into(),
            (cfg.time_limit_ns / 1_000_000).max(1000).to_string(),
        ],
        "kernel sender",
    )?;
    let clock = Clock(Instant::now());
    let mut path = cfg
        .path
        .clone()
        .map(|p| RtPath::new(p, cfg.burst, cfg.seed));
    let mut watch = Watch::default();
    let mut pcap: Option<Vec<(u64, Vec<u8>)>> = cfg.capture.then(Vec::new);
    let mut buf = vec![0u8; 65_536];
    let start = clock.now();
    let limit = start + cfg.time_limit_ns;
    let mut result: Option<KernelSendResult> = None;
    let mut quiet_since: Option<u64> = None;
    let mut last_moved = start;
    let mut to_sender_host = 0u64;
    loop {
        if stop.load(Ordering::Relaxed) {
            return Err(PeerError::Interrupted);
        }
        let now = clock.now();
        if now > limit {
            break;
        }
        let mut fwd = Vec::new();
        let mut rev = Vec::new();
        while let Some(n) = ctap
            .recv(&mut buf)
            .map_err(|e| PeerError::Io(format!("read from TAP: {e}")))?
        {
            fwd.push(buf[..n].to_vec());
        }
        while let Some(n) = stap
            .recv(&mut buf)
            .map_err(|e| PeerError::Io(format!("read from TAP: {e}")))?
        {
            rev.push(buf[..n].to_vec());
        }
        let mut to_server = Vec::new();
        let mut to_client = Vec::new();
        let moved = !fwd.is_empty() || !rev.is_empty();
        match &mut path {
            Some(p) => {
                for f in fwd {
                    p.send_fwd(now, f);
                }
                for f in rev {
                    p.send_rev(now, f);
                }
                to_server = p.due_fwd(now);
                to_client = p.due_rev(now);
            }
            None => {
                to_server.extend(fwd);
                to_client.extend(rev);
            }
        }
        let t = clock.now();
        for f in to_server {
            watch.ours(&f);
            stap.send(&f)
                .map_err(|e| PeerError::Io(format!("write to TAP: {e}")))?;
            if let Some(c) = &mut pcap {
                c.push((t, f));
            }
        }
        for f in to_client {
            if let Some(c) = &mut pcap {
                c.push((t, f.clone()));
            }
            if watch.theirs(&f) {
                to_sender_host += 1;
            }
            ctap.send(&f)
                .map_err(|e| PeerError::Io(format!("write to TAP: {e}")))?;
        }
        if result.is_none() {
            result = client.try_json::<KernelSendResult>();
        }
        if moved {
            last_moved = now;
        }
        if result.is_some() {
            // Keep forwarding until the path is empty and the TAPs have been quiet for a while:
            // the kernel sender reports once it read Linux's FIN, when its ACK of that FIN may
            // still wait in its TAP (without it the receiver's FIN is never acknowledged).
            let q = *quiet_since.get_or_insert(now);
            let quiet = now > last_moved + KERNEL_QUIET_NS;
            if (quiet && path.as_ref().is_none_or(|p| p.in_flight() == 0))
                || now > q + 2_000_000_000
            {
                break;
            }
        }
        let next = path
            .as_ref()
            .and_then(RtPath::next_event_ns)
            .unwrap_or(now + 5_000_000)
            .min(now + 5_000_000);
        let now = clock.now();
        if next > now + 60_000 {
            sys::wait_readable(&[ctap.raw_fd(), stap.raw_fd()], next - now - 50_000)
                .map_err(|e| PeerError::Io(format!("ppoll on the TAPs: {e}")))?;
        }
    }
    let end = clock.now();
    let rr: Result<ReceiverResult, PeerError> =
        side.receiver.wait_json(Duration::from_secs(3), &stop);
    let (rr, rerr) = match rr {
        Ok(r) => {
            let e = r.error.clone();
            (r, e)
        }
        Err(e) => (ReceiverResult::default(), Some(e.to_string())),
    };
    let ks = result.clone().unwrap_or_default();
    let expected = pattern_sha256(cfg.bytes);
    let mut peer = std::mem::take(&mut watch.peer);
    peer.kind = "linux".into();
    peer.netns = side.ns.name().to_string();
    peer.netns_created = side.ns.owned();
    peer.tap = stap.name().to_string();
    peer.linux_addr = format!("{}:{LINUX_PORT}", ip_str(LINUX_END.ip));
    peer.our_addr = format!(
        "{} (kernel sender in netns {})",
        ip_str(OUR_END.ip),
        cns.name()
    );
    peer.received_bytes = rr.received_bytes;
    peer.sha256_match = rr.received_bytes == cfg.bytes && rr.sha256 == expected;
    peer.sha256 = rr.sha256;
    peer.expected_sha256 = expected;
    peer.linux_tcp_info = rr.tcp_info;
    peer.linux_counters = rr.counters;
    peer.receiver_error = rerr;
    let k = &ks.counters;
    let get = |n: &str| k.get(n).copied().unwrap_or(0);
    let dur_ms = ks.duration_ms.max(1e-3);
    let report = LinuxReport {
        mode: "real-time (host clock)".into(),
        sender: "kernel".into(),
        card: "none: Linux's own TCP in a second namespace, forwarded through the path model"
            .into(),
        config: cfg.clone(),
        completed: result
            .as_ref()
            .is_some_and(|r| r.peer_closed && r.error.is_none()),
        duration_ms: (end - start) as f64 / 1e6,
        goodput_mbps: ks.sent_bytes as f64 * 8.0 / dur_ms / 1e3,
        bytes_acked: ks.tcp_info.bytes_acked,
        srtt_us: Summary {
            count: 1,
            min: f64::from(ks.tcp_info.rtt_us),
            mean: f64::from(ks.tcp_info.rtt_us),
            p50: f64::from(ks.tcp_info.rtt_us),
            p99: f64::from(ks.tcp_info.rtt_us),
            max: f64::from(ks.tcp_info.rtt_us),
        },
        rtt_sample_us: Summary::default(),
        retransmitted_segments: get("TcpRetransSegs"),
        tlp_probes: get("TcpExtTCPLossProbes"),
        rto_fires: get("TcpExtTCPTimeouts"),
        recoveries: get("TcpExtTCPSackRecovery"),
        launch_error_ns: Summary::default(),
        frames_sent_late: 0,
        window_violations: 0,
        rx_path: "host: forwarded from the receiver's TAP to the kernel sender's TAP".into(),
        frames_to_sender_card_rx: 0,
        frames_to_sender_host: to_sender_host,
        card_stats: None,
        rx_bridge_max_held: None,
        path: path.as_ref().map(|p| p.stats.clone()),
        kernel_sender: result,
        peer,
        pcap: to_wall_time(pcap.unwrap_or_default(), &clock),
    };
    drop(client);
    drop(side.receiver);
    drop(ctap);
    drop(stap);
    drop(cns);
    drop(side.ns);
    Ok(report)
}

/// The kernel baseline ends once the kernel sender has reported, the path is empty and neither
/// TAP has given a frame for this long (the last ACK has been forwarded).
const KERNEL_QUIET_NS: u64 = 20_000_000;

/// How long the unsynchronised co-simulation waits (wall time) for Linux to answer before it
/// lets simulated time jump to the sender's next timer. Above Linux's 40 ms delayed-ACK
/// minimum, so a delayed ACK is waited for rather than taken for a loss.
const COSIM_QUIET: Duration = Duration::from_millis(100);
/// At most this many frames, and bytes, from Linux on the card's RX line and not yet read back
/// (the rest wait in the bridge, in order). Unsynchronised, Linux's answers to a whole simulated
/// window can reach the bridge at one simulated instant; put on the line back to back they
/// would overflow the card's RX buffer (32 frames, 32 KiB on the default core), a burst no
/// synchronised wire would carry. Half of each keeps the bridge clear of it.
const COSIM_RX_FRAMES: usize = 16;
const COSIM_RX_BYTES: usize = 16 * 1024;

/// Our EDT sender on the Verilated card (the RTL through the driver's rings) against Linux,
/// with both wire ends bridged to the TAP: the card's wire output goes to the TAP, and every
/// frame read from the TAP is put on the card's RX line at the card's current simulated time;
/// the core stamps, steers and writes it into RX queue 0, and the sender takes it from the RX
/// ring with the card's arrival stamp ([`SimWire::rx_inject`] / [`SimWire::rx_poll`], as the
/// simulated closed loop does with the netsim ACKs). Frames not for the connection (ARP, IPv6)
/// go through the card too and are counted, not handed to the sender. Unsynchronised: the
/// sender and the card run on simulated time (about a wall second per simulated millisecond),
/// Linux on the host's, so the run checks function (bytes, handshake, close), not timing.
pub fn run_edt_sim(cfg: &LinuxRunConfig, stop: Arc<AtomicBool>) -> Result<LinuxReport, PeerError> {
    check_config(cfg)?;
    if cfg.path.is_some() {
        return Err(PeerError::Invalid(
            "--card sim --peer linux has no path model (simulated and host time are not \
             synchronised); drop --path or use --card model"
                .into(),
        ));
    }
    netns::check_prerequisites()?;
    let ns = open_netns(&cfg.peer, "tsnic-peer-")?;
    let mut side = start_linux_side(cfg, ns, LINUX_END, OUR_END, &stop)?;
    let tap = side
        .tap
        .take()
        .ok_or_else(|| PeerError::Setup("no TAP".into()))?;
    let mut card = crate::edt::card_sim::SimCardPort::open(1, cfg.line_rate_bps)?;
    let mut s = our_sender(cfg);
    let mut watch = Watch {
        our_port: Some(OUR_PORT),
        ..Watch::default()
    };
    let mut pcap: Option<Vec<(u64, Vec<u8>)>> = cfg.capture.then(Vec::new);
    let wall = Instant::now();
    let wall_limit = Duration::from_nanos(cfg.time_limit_ns);
    // Simulated time starts at 1 s like the real-time clock, so no TSval is 0.
    let mut now = CLOCK_BASE_NS;
    s.connect(now, &mut card);
    let (mut remaining, mut closed) = (cfg.bytes, false);
    let mut buf = vec![0u8; 65_536];
    let mut finished_at: Option<Instant> = None;
    let mut to_sender_card_rx = 0u64;
    let mut held: std::collections::VecDeque<Vec<u8>> = std::collections::VecDeque::new();
    let mut max_held = 0u64;
    loop {
        if stop.load(Ordering::Relaxed) {
            return Err(PeerError::Interrupted);
        }
        if wall.elapsed() > wall_limit {
            break;
        }
        for c in card.poll(now) {
            s.on_completion(&c);
        }
        if let Some(e) = card.error() {
            return Err(PeerError::Edt(crate::edt::EdtError::Card(e.to_string())));
        }
        for w in card.drain_wire() {
            watch.ours(&w.frame);
            tap.send(&w.frame)
                .map_err(|e| PeerError::Io(format!("write to {}: {e}", tap.name())))?;
            if let Some(c) = &mut pcap {
                c.push((w.depart_ns, w.frame));
            }
        }
        // Linux's frames onto the card's RX line at the card's time (unsynchronised: they
        // arrived "now" as far as the card can tell), a few at a time (COSIM_RX_FRAMES).
        while let Some(n) = tap
            .recv(&mut buf)
            .map_err(|e| PeerError::Io(format!("read from TAP: {e}")))?
        {
            held.push_back(buf[..n].to_vec());
        }
        max_held = max_held.max(held.len() as u64);
        while let Some(f) = held.front() {
            let (frames, bytes) = card.rx_in_flight();
            if frames > 0 && (frames >= COSIM_RX_FRAMES || bytes + f.len() > COSIM_RX_BYTES) {
                break;
            }
            let Some(f) = held.pop_front() else { break };
            let at = card.card_now_ns().max(now);
            if let Some(c) = &mut pcap {
                c.push((at, f.clone()));
            }
            card.rx_inject(at, f);
        }
        // And to the sender from the card's RX ring, with the card's arrival stamps.
        let mut got = false;
        for (hw, f) in card.rx_poll(now) {
            if watch.theirs(&f) {
                to_sender_card_rx += 1;
                s.on_frame_rx(now, hw, &f, &mut card);
                got = true;
            }
        }
        if let Some(e) = card.error() {
            return Err(PeerError::Edt(crate::edt::EdtError::Card(e.to_string())));
        }
        if s.next_timer_ns().is_some_and(|d| d <= now) {
            s.on_timers(now, &mut card);
        }
        if matches!(s.state, ConnState::Established | ConnState::FinWait) {
            while remaining > 0 && s.buffered_bytes() < s.sndbuf_bytes() {
                let n = remaining.min(APP_CHUNK);
                s.write(n);
                remaining -= n;
            }
            if remaining == 0 && !closed {
                closed = true;
                s.close();
            }
            s.xmit(now, &mut card);
        }
        if s.is_finished() {
            let t = *finished_at.get_or_insert_with(Instant::now);
            if card.next_event_ns().is_none() || t.elapsed() > Duration::from_secs(5) {
                break;
            }
        }
        if got {
            continue;
        }
        // Advance simulated time: step the card while it has work; when it is idle, give Linux
        // (wall) time to answer before jumping to the sender's next timer.
        let timer = s.next_timer_ns();
        match card.next_event_ns() {
            Some(t) => now = now.max(timer.map_or(t, |x| x.min(t))),
            None => {
                let readable = sys::wait_readable(&[tap.raw_fd()], COSIM_QUIET.as_nanos() as u64)
                    .map_err(|e| PeerError::Io(format!("ppoll on the TAP: {e}")))?;
                if !readable {
                    if let Some(t) = timer {
                        now = now.max(t);
                    }
                }
            }
        }
    }
    let completed = s.state == ConnState::Done;
    let rr: Result<ReceiverResult, PeerError> =
        side.receiver.wait_json(Duration::from_secs(3), &stop);
    let (rr, rerr) = match rr {
        Ok(r) => {
            let e = r.error.clone();
            (r, e)
        }
        Err(e) => (ReceiverResult::default(), Some(e.to_string())),
    };
    let expected = pattern_sha256(cfg.bytes);
    let mut peer = std::mem::take(&mut watch.peer);
    peer.kind = "linux".into();
    peer.netns = side.ns.name().to_string();
    peer.netns_created = side.ns.owned();
    peer.tap = tap.name().to_string();
    peer.linux_addr = format!("{}:{LINUX_PORT}", ip_str(LINUX_END.ip));
    peer.our_addr = format!("{}:{OUR_PORT}", ip_str(OUR_END.ip));
    peer.received_bytes = rr.received_bytes;
    peer.sha256_match = rr.received_bytes == cfg.bytes && rr.sha256 == expected;
    peer.sha256 = rr.sha256;
    peer.expected_sha256 = expected;
    peer.linux_tcp_info = rr.tcp_info;
    peer.linux_counters = rr.counters;
    peer.receiver_error = rerr;
    let st = &s.stats;
    let sim_ns = now.saturating_sub(CLOCK_BASE_NS).max(1);
    let report = LinuxReport {
        mode: "co-simulation, UNSYNCHRONISED (simulated card time is not the host's: this \
               checks function, not timing; frames from Linux enter the card's RX line at the \
               card's current simulated time)"
            .into(),
        sender: "edt".into(),
        card: card.describe(),
        config: cfg.clone(),
        completed,
        duration_ms: wall.elapsed().as_secs_f64() * 1e3,
        goodput_mbps: st.acked_bytes as f64 * 8.0 / sim_ns as f64 * 1e3,
        bytes_acked: st.acked_bytes,
        srtt_us: Summary::of(&st.srtt_ns, 1000.0),
        rtt_sample_us: Summary::of(&st.rtt_ns, 1000.0),
        retransmitted_segments: st.retrans_segs,
        tlp_probes: st.tlp_probes,
        rto_fires: st.rto_fires,
        recoveries: st.recoveries,
        launch_error_ns: Summary::of(&st.launch_error_ns, 1.0),
        frames_sent_late: st.frames_sent_late,
        window_violations: st.window_violations,
        rx_path: "card: TAP -> the Verilated card's RX line -> RX queue 0 -> sender, with the \
                  card's arrival stamps"
            .into(),
        frames_to_sender_card_rx: to_sender_card_rx,
        frames_to_sender_host: 0,
        card_stats: Some(card.stats()),
        rx_bridge_max_held: Some(max_held),
        path: None,
        kernel_sender: None,
        peer,
        pcap: pcap.unwrap_or_default(),
    };
    drop(side.receiver);
    drop(tap);
    drop(card);
    drop(side.ns);
    Ok(report)
}
