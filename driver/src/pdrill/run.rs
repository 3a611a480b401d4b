//! Play a packetdrill script against the EDT sender in simulated time.
//!
//! The script is the peer. Its inbound packets (`<`) are built as frames and handed to
//! [`TcpSender::on_frame`] at their times; every frame the sender posts leaves on a "wire" at
//! its launch time (the card sends at once at launch: no line-rate delay) and is compared with
//! the next outbound line (`>`). Socket calls map to the sender (`accept` takes the script's
//! SYN, `connect`, `write`, `close`, SO_SNDBUF, TCP_NOTSENT_LOWAT); `%{ }%` assertions are
//! evaluated against [`TcpSender::tcp_info`].
//!
//! What is compared, per outbound line: the flags (PSH included), the sequence range
//! relative to the sender's ISS, the ACK number relative to the peer's ISN, the window when
//! the script gives one, the options the frame carries (MSS, window scale, SACK-permitted,
//! timestamps present, SACK blocks; `<...>` matches any; the NOP/EOL layout is not compared),
//! and the time: within the tolerance (`--tolerance_usecs`, else upstream's default 4 ms) of
//! the scripted time or `A~B` range. Linux hands the tun device one TSO packet where the
//! sender posts MSS-sized frames to the card, so one outbound line is matched by consecutive
//! frames that together cover exactly its range, each within the time tolerance.
//!
//! Relative times count from the previous event, and after an outbound line from the time the
//! packet was actually sent, as upstream adjusts them. Timers tick as HZ=250 (4 ms, the
//! reference kernel's; `SenderConfig::tick_ns`).

use std::collections::{HashMap, VecDeque};
use std::path::Path;

use super::parse::{
    flag, flags_text, Action, CodeLine, Dir, Event, Expr, Op, Packet, PktOptions, Script, Stmt,
    Syscall, TcpOpt, Time, TimeRange,
};
use super::{parse_script, PdrillError};
use crate::edt::card::{Completion, TxPort, TxRequest, TxStatus};
use crate::edt::cc::CcKind;
use crate::edt::frame::{self, Endpoints, SegOptions, Segment};
use crate::edt::sender::{ConnState, SenderConfig, TcpInfo, TcpSender};

/// upstream packetdrill's default `--tolerance_usecs`.
pub const DEFAULT_TOLERANCE_US: i64 = 4_000;
/// The reference kernel's timer tick: HZ=250 (README of the shared set).
pub const HZ250_TICK_NS: u64 = 4_000_000;
/// Our initial sequence number and the script peer's (scripts give both relative).
const ISS: u32 = 0x1234_5678;
const PEER_ISN: u32 = 0x0abc_0000;
/// A script that runs this long in simulated time is stuck.
const MAX_SCRIPT_NS: u64 = 600_000_000_000;

/// How one script ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    Pass,
    /// The first line that differed and how.
    Fail {
        line: usize,
        msg: String,
    },
    /// The script needs what the sender does not model.
    Skip {
        reason: String,
    },
}

/// Runner settings.
#[derive(Debug, Clone, Copy, Default)]
pub struct RunOpts {
    /// Diagnostic only: do not compare the PSH flag; never used for the pass list.
    pub ignore_psh: bool,
    /// Keep a trace of every frame the sender sent and every inbound packet.
    pub trace: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScriptResult {
    pub file: String,
    pub outcome: Outcome,
    /// Settings in the script's init command the sender does not model (printed as notes).
    pub unmodeled: Vec<String>,
    /// With `RunOpts::trace`: `time  < or >  packet` lines up to the end or the failure.
    pub trace: Vec<String>,
}

/// Read, parse and run one script file.
pub fn run_file(path: &Path, opts: RunOpts) -> Result<ScriptResult, PdrillError> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| PdrillError::Io {
        file: file.clone(),
        msg: e.to_string(),
    })?;
    let script = parse_script(&file, &text)?;
    Ok(run_script(&script, opts))
}

/// Run a parsed script.
pub fn run_script(script: &Script, opts: RunOpts) -> ScriptResult {
    let (settings, unmodeled) = init_settings(script.init.as_deref().unwrap_or(""));
    let mut trace = vec![];
    let outcome = match unsupported(script) {
        Some(reason) => Outcome::Skip { reason },
        None => {
            let mut r = Runner::new(script, settings, opts);
            let res = r.run();
            trace = std::mem::take(&mut r.trace);
            match res {
                Ok(()) => Outcome::Pass,
                Err((line, msg)) => Outcome::Fail { line, msg },
            }
        }
    };
    ScriptResult {
        file: script.file.clone(),
        outcome,
        unmodeled,
        trace,
    }
}

/// Socket calls the runner maps to the sender.
const CALLS: [&str; 11] = [
    "poll",
    "socket",
    "bind",
    "listen",
    "accept",
    "connect",
    "setsockopt",
    "getsockopt",
    "write",
    "fcntl",
    "close",
];

/// Why the sender cannot play this script, if it cannot.
fn unsupported(script: &Script) -> Option<String> {
    for e in &script.events {
        match &e.action {
            Action::Syscall(s) if !CALLS.contains(&s.name.as_str()) => {
                return Some(format!(
                    "socket call `{}` (line {}): the sender does not model it",
                    s.name, e.line
                ))
            }
            Action::Syscall(s) if s.name == "setsockopt" || s.name == "getsockopt" => {
                let opt = s.args.get(2).map(String::as_str).unwrap_or("");
                if !["SO_REUSEADDR", "SO_SNDBUF", "TCP_NOTSENT_LOWAT"].contains(&opt) {
                    return Some(format!(
                        "socket option `{opt}` (line {}): the sender does not model it",
                        e.line
                    ));
                }
            }
            Action::Shell(cmd) if qdisc_command(cmd).is_some() => {}
            Action::Shell(cmd) => {
                return Some(format!(
                    "command `{}` (line {}): the sender has no local qdisc or host to run it on",
                    cmd.trim(),
                    e.line
                ))
            }
            _ => {}
        }
    }
    None
}

/// The local queue commands the runner models: `tc qdisc replace dev tun0 root pfifo
/// [limit N]`; Some(true) when the queue takes no packet (limit 0: every transmit fails).
fn qdisc_command(cmd: &str) -> Option<bool> {
    let w: Vec<&str> = cmd.split_whitespace().collect();
    match w.as_slice() {
        ["tc", "qdisc", "replace" | "add", "dev", "tun0", "root", "pfifo"] => Some(false),
        ["tc", "qdisc", "replace" | "add", "dev", "tun0", "root", "pfifo", "limit", n] => {
            n.parse::<u64>().ok().map(|n| n == 0)
        }
        _ => None,
    }
}

/// Settings from the init command.
#[derive(Debug, Clone, Copy)]
struct Settings {
    /// net.ipv4.tcp_notsent_lowat (defaults.sh: 4294967295, i.e. off).
    notsent_lowat: u64,
    /// net.ipv4.tcp_slow_start_after_idle (defaults.sh: 0).
    slow_start_after_idle: bool,
    /// net.ipv4.tcp_min_tso_segs (Linux default 2).
    min_tso_segs: u64,
    /// net.ipv4.tcp_tso_rtt_log (6.18 default 9).
    tso_rtt_log: u32,
}

/// Read the init command's settings: defaults.sh is the sender's configuration (docs/EDT.md);
/// the rest is either modeled, equal to what the sender does, or listed as unmodeled.
fn init_settings(init: &str) -> (Settings, Vec<String>) {
    let mut st = Settings {
        notsent_lowat: u64::from(u32::MAX),
        slow_start_after_idle: false,
        min_tso_segs: crate::edt::pacing::MIN_TSO_SEGS,
        tso_rtt_log: crate::edt::pacing::TSO_RTT_LOG,
    };
    let mut unmodeled = vec![];
    let cmd = init.replace("\\\n", " ");
    for line in cmd.lines().map(str::trim).filter(|l| !l.is_empty()) {
        if line.ends_with("common/defaults.sh") || line.starts_with("/tmp/sysctl_restore") {
            continue;
        }
        for w in line.split_whitespace() {
            let Some((k, v)) = w.split_once('=') else {
                continue;
            };
            let k = k.trim_start_matches("/proc/sys/").replace('/', ".");
            match (k.as_str(), v) {
                ("net.ipv4.tcp_notsent_lowat", v) => match v.parse() {
                    Ok(n) => st.notsent_lowat = n,
                    Err(_) => unmodeled.push(w.to_string()),
                },
                ("net.ipv4.tcp_slow_start_after_idle", "0" | "1") => {
                    st.slow_start_after_idle = v == "1"
                }
                ("net.ipv4.tcp_min_tso_segs", v) => match v.parse::<u64>() {
                    Ok(n) if (1..=255).contains(&n) => st.min_tso_segs = n,
                    _ => unmodeled.push(format!("{k}={v}")),
                },
                ("net.ipv4.tcp_tso_rtt_log", v) => match v.parse::<u32>() {
                    Ok(n) if n <= 31 => st.tso_rtt_log = n,
                    _ => unmodeled.push(format!("{k}={v}")),
                },
                // The sender never defers a send to build a bigger TSO packet
                // (tcp_tso_should_defer), which is what a divisor of 100 nearly turns off.
                ("net.ipv4.tcp_tso_win_divisor", "100") => {}
                _ => unmodeled.push(format!("{k}={v}")),
            }
        }
        if line.contains("hystart_detect") && !line.starts_with("echo 3 ") {
            unmodeled.push(line.to_string()); // 3 (delay and ACK train) is the sender's
        }
    }
    (st, unmodeled)
}

/// The card of the runner: sends each frame at its launch time (or when posted, if later).
#[derive(Default)]
struct ScriptPort {
    pending: Vec<(u64, TxRequest)>,
    /// Frames sent, with their departure time, not yet compared.
    wire: VecDeque<(u64, Vec<u8>)>,
    /// The local queue takes nothing (`pfifo limit 0`).
    refuse: bool,
}

impl TxPort for ScriptPort {
    fn post(&mut self, now: u64, req: TxRequest) {
        let at = req.launch_ns.max(now);
        self.pending.push((at, req));
    }
    fn next_event_ns(&self) -> Option<u64> {
        self.pending.iter().map(|(t, _)| *t).min()
    }
    fn poll(&mut self, now: u64) -> Vec<Completion> {
        let mut due: Vec<(u64, TxRequest)> = vec![];
        let mut i = 0;
        while i < self.pending.len() {
            if self.pending[i].0 <= now {
                due.push(self.pending.remove(i));
            } else {
                i += 1;
            }
        }
        // stable: frames with one departure time leave in the order they were posted
        due.sort_by_key(|(t, _)| *t);
        due.into_iter()
            .map(|(t, r)| {
                self.wire.push_back((t, r.frame));
                Completion {
                    cookie: r.cookie,
                    launch_ns: r.launch_ns,
                    depart_ns: t,
                    status: TxStatus::Sent,
                }
            })
            .collect()
    }
    fn line_rate_bps(&self) -> u64 {
        100_000_000_000
    }
    fn describe(&self) -> String {
        "packetdrill wire (sends at launch time)".into()
    }
    fn accepts(&self) -> bool {
        !self.refuse
    }
}

type Fail = (usize, String);

/// A `poll` for POLLOUT that blocks: the script's later events go on meanwhile (upstream
/// runs blocking calls in a thread), and the call returns when the socket becomes writable.
#[derive(Debug, Clone, Copy)]
struct PendingPoll {
    line: usize,
    /// When the script expects it to return (the `...` end), ns.
    end: i64,
    /// Start + its timeout: it returns 0 then.
    deadline: u64,
    want_ret: i64,
    /// When POLLOUT became true.
    ready_at: Option<u64>,
}

struct Runner<'a> {
    script: &'a Script,
    opts: RunOpts,
    sender: TcpSender,
    port: ScriptPort,
    now: u64,
    tol_ns: i64,
    peer: Endpoints,
    listen_fd: Option<i64>,
    conn_fd: Option<i64>,
    nonblocking: bool,
    notsent_lowat_opt: u64,
    settings: Settings,
    vars: HashMap<String, i64>,
    trace: Vec<String>,
    poll: Option<PendingPoll>,
}

fn us_to_ns(us: i64) -> i64 {
    us.saturating_mul(1000)
}

impl<'a> Runner<'a> {
    fn new(script: &'a Script, settings: Settings, opts: RunOpts) -> Self {
        let local = Endpoints {
            src_mac: [2, 0, 0, 0, 0, 1],
            dst_mac: [2, 0, 0, 0, 0, 2],
            src_ip: [192, 168, 0, 1],
            dst_ip: [192, 0, 2, 1],
            src_port: 8080,
            dst_port: 40000,
        };
        let peer = Endpoints {
            src_mac: local.dst_mac,
            dst_mac: local.src_mac,
            src_ip: local.dst_ip,
            dst_ip: local.src_ip,
            src_port: local.dst_port,
            dst_port: local.src_port,
        };
        let mut cfg = SenderConfig::new(local, ISS, CcKind::Cubic);
        cfg.tick_ns = HZ250_TICK_NS;
        // The scripts' kernel has no sch_fq (the shared set's README): CUBIC is paced only with
        // SO_MAX_PACING_RATE.
        cfg.fq = false;
        // Linux picks the receive window scale from tcp_rmem[2] (15 MB in defaults.sh): 8.
        cfg.wscale = 8;
        cfg.slow_start_after_idle = settings.slow_start_after_idle;
        cfg.min_tso_segs = settings.min_tso_segs;
        cfg.tso_rtt_log = Some(settings.tso_rtt_log);
        let tol = script
            .tolerance_usecs()
            .and_then(|t| i64::try_from(t).ok())
            .unwrap_or(DEFAULT_TOLERANCE_US);
        Runner {
            script,
            opts,
            sender: TcpSender::new(cfg, 1 << 48),
            port: ScriptPort::default(),
            now: 0,
            tol_ns: us_to_ns(tol),
            peer,
            listen_fd: None,
            conn_fd: None,
            nonblocking: false,
            notsent_lowat_opt: 0,
            settings,
            vars: HashMap::new(),
            trace: vec![],
            poll: None,
        }
    }

    fn established(&self) -> bool {
        matches!(
            self.sender.state,
            ConnState::Established | ConnState::FinWait | ConnState::Done
        )
    }

    /// Run the sender and its card up to time `t`.
    fn advance_to(&mut self, t: u64, line: usize) -> Result<(), Fail> {
        let mut steps = 0u64;
        loop {
            let next = [self.port.next_event_ns(), self.sender.next_timer_ns()]
                .into_iter()
                .flatten()
                .min();
            match next {
                Some(n) if n <= t => {
                    self.now = self.now.max(n);
                    self.step();
                    steps += 1;
                    if steps > 10_000_000 {
                        return Err((
                            line,
                            "the sender does not settle (a timer re-arms at once)".into(),
                        ));
                    }
                }
                _ => break,
            }
        }
        self.now = self.now.max(t);
        self.step();
        Ok(())
    }

    /// Deliver due departures and timers at `now`, then let the sender send; again while
    /// frames it posts depart at once (their completions free TSQ room, as in edt::run).
    fn step(&mut self) {
        let now = self.now;
        for c in self.port.poll(now) {
            self.sender.on_completion(&c);
        }
        if self.sender.next_timer_ns().is_some_and(|d| d <= now) {
            self.sender.on_timers(now, &mut self.port);
        }
        for _ in 0..100_000 {
            self.sender.xmit(now, &mut self.port);
            let done = self.port.poll(now);
            if done.is_empty() {
                break;
            }
            for c in done {
                self.sender.on_completion(&c);
            }
        }
        let ready = self.poll.is_some() && self.pollout();
        if let Some(p) = self.poll.as_mut() {
            if ready && p.ready_at.is_none() && now <= p.deadline {
                p.ready_at = Some(now);
            }
        }
    }

    /// A pending poll that has returned by `t` (became writable, or timed out): check its
    /// return value and time against the script.
    fn settle_poll(&mut self, t: u64, at_end: bool) -> Result<(), Fail> {
        let Some(p) = self.poll else { return Ok(()) };
        let (ret, when) = match p.ready_at {
            Some(r) => (1, r),
            None if t >= p.deadline || at_end => (0, p.deadline),
            None => return Ok(()),
        };
        if !at_end && when > t {
            return Ok(());
        }
        self.poll = None;
        if ret != p.want_ret {
            return Err((
                p.line,
                format!(
                    "poll() returned {ret} at {}, the script expects {}",
                    ms(when as i64),
                    p.want_ret
                ),
            ));
        }
        let w = when as i64;
        if w < p.end - self.tol_ns || w > p.end + self.tol_ns {
            return Err((
                p.line,
                format!(
                    "poll() returned at {}, the script expects {} (tolerance {} us)",
                    ms(w),
                    ms(p.end),
                    self.tol_ns / 1000
                ),
            ));
        }
        Ok(())
    }

    /// `poll([{fd=F, events=POLLOUT, revents=R}], 1, TIMEOUT_MS) = N` on the connection.
    fn start_poll(&mut self, s: &Syscall, end: i64, line: usize) -> Result<(), Fail> {
        let spec = s.args.first().map(String::as_str).unwrap_or("");
        let field = |k: &str| -> Option<String> {
            spec.split([',', '{', '}', '[', ']'])
                .map(str::trim)
                .find_map(|f| f.strip_prefix(k).map(|v| v.trim().to_string()))
        };
        let fd = field("fd=").and_then(|v| v.parse::<i64>().ok());
        let events = field("events=").unwrap_or_default();
        let revents = field("revents=").unwrap_or_default();
        let nfds = s.args.get(1).map(|a| a.trim());
        let timeout = s.args.get(2).and_then(|a| a.trim().parse::<i64>().ok());
        if fd.is_none() || fd != self.conn_fd || events != "POLLOUT" || nfds != Some("1") {
            return Err((
                line,
                "poll: only POLLOUT on the connected socket is modeled".into(),
            ));
        }
        let want_ret = match (revents.as_str(), s.ret) {
            ("POLLOUT", 1) => 1,
            ("0", 0) => 0,
            _ => return Err((line, "poll: revents and the return value disagree".into())),
        };
        let Some(timeout) = timeout.filter(|&t| t >= 0) else {
            return Err((line, "poll: a timeout of 0 ms or more is modeled".into()));
        };
        let now = self.now;
        self.poll = Some(PendingPoll {
            line,
            end,
            deadline: now.saturating_add(
                u64::try_from(timeout)
                    .unwrap_or(0)
                    .saturating_mul(1_000_000),
            ),
            want_ret,
            ready_at: None,
        });
        self.step(); // writable now: returns at once
        self.settle_poll(now, timeout == 0)
    }

    fn run(&mut self) -> Result<(), Fail> {
        let mut base: i64 = 0;
        for ev in &self.script.events {
            let t = self.resolve(ev.time, base, ev.line)?;
            if let Some(p) = self.poll {
                // the blocked poll returns before this event if it is due by then
                let by = (t.max(0) as u64).min(p.deadline);
                self.advance_to(by.max(self.now), ev.line)?;
                self.settle_poll(t.max(0) as u64, false)?;
            }
            base = self.event(ev, t)?;
            self.settle_poll(self.now, false)?;
        }
        if self.poll.is_some() {
            let d = self.poll.map_or(0, |p| p.deadline);
            self.advance_to(d.max(self.now), 0)?;
            self.settle_poll(self.now, true)?;
        }
        Ok(())
    }

    /// The scripted time of an event, ns.
    fn resolve(&self, time: Time, base: i64, line: usize) -> Result<i64, Fail> {
        let t = match time {
            Time::Abs(us) => us_to_ns(us),
            Time::Rel(us) => base.saturating_add(us_to_ns(us)),
            Time::Any => base.max(self.now as i64),
        };
        if t < 0 || t as u64 > MAX_SCRIPT_NS {
            return Err((line, format!("event time {t} ns is out of range")));
        }
        Ok(t)
    }

    /// Play one event at its scripted time `t`; returns the base for the next relative time.
    fn event(&mut self, ev: &Event, t: i64) -> Result<i64, Fail> {
        let line = ev.line;
        match &ev.action {
            Action::Packet(p) if p.dir == Dir::In => {
                self.advance_to(t as u64, line)?;
                self.inbound(p, line)?;
                Ok(t)
            }
            Action::Packet(p) => {
                let hi = match ev.range {
                    TimeRange::Tilde(e) => self.resolve(e, self.base_of(ev, t), line)?,
                    _ => t,
                };
                let hi = if ev.time == Time::Any {
                    MAX_SCRIPT_NS as i64
                } else {
                    hi
                };
                self.outbound(p, t, hi, line)
            }
            Action::Syscall(s) if s.name == "poll" => {
                self.advance_to(t as u64, line)?;
                if self.poll.is_some() {
                    return Err((line, "a second poll while one blocks".into()));
                }
                // upstream: a relative start moves a blocking call's end time with it
                let end = match ev.range {
                    TimeRange::Ellipsis(Time::Abs(us)) if matches!(ev.time, Time::Rel(_)) => {
                        self.base_of(ev, t).saturating_add(us_to_ns(us))
                    }
                    TimeRange::Ellipsis(e) => self.resolve(e, t, line)?,
                    _ => t,
                };
                self.start_poll(s, end, line)?;
                Ok(t)
            }
            Action::Syscall(s) => {
                self.advance_to(t as u64, line)?;
                self.syscall(s, line)?;
                match ev.range {
                    TimeRange::Ellipsis(e) => {
                        let end = self.resolve(e, t, line)?;
                        self.advance_to(end.max(t) as u64, line)?;
                        Ok(end.max(t))
                    }
                    _ => Ok(t),
                }
            }
            Action::Code(code) => {
                self.advance_to(t as u64, line)?;
                self.code(code)?;
                Ok(t)
            }
            Action::Shell(cmd) => match qdisc_command(cmd) {
                Some(refuse) => {
                    self.advance_to(t as u64, line)?;
                    self.port.refuse = refuse;
                    Ok(t)
                }
                None => Err((line, "commands between events are not run".into())),
            },
        }
    }

    /// For `A~B` with relative B: upstream reads B relative to the same base as A.
    fn base_of(&self, ev: &Event, t: i64) -> i64 {
        match ev.time {
            Time::Rel(us) => t - us_to_ns(us),
            _ => t,
        }
    }

    fn inbound(&mut self, p: &Packet, line: usize) -> Result<(), Fail> {
        let win = u16::try_from(p.win.unwrap_or(0)).map_err(|_| {
            (
                line,
                format!("window {} does not fit 16 bits", p.win.unwrap_or(0)),
            )
        })?;
        if p.len > 65_000 {
            return Err((
                line,
                format!("inbound payload of {} bytes does not fit a packet", p.len),
            ));
        }
        let mut o = SegOptions::default();
        if let PktOptions::List(list) = &p.options {
            for opt in list {
                match opt {
                    TcpOpt::Nop | TcpOpt::Eol => {}
                    TcpOpt::Mss(m) => o.mss = Some(*m),
                    TcpOpt::SackOk => o.sack_permitted = true,
                    TcpOpt::Wscale(w) => o.wscale = Some(*w),
                    TcpOpt::Ts { val, ecr } => o.timestamps = Some((*val, *ecr)),
                    TcpOpt::Sack(b) => {
                        o.sack = b
                            .iter()
                            .map(|&(l, r)| (ISS.wrapping_add(l), ISS.wrapping_add(r)))
                            .collect()
                    }
                }
            }
        } else if p.options == PktOptions::Any {
            return Err((
                line,
                "an inbound packet needs its options spelled out, not `<...>`".into(),
            ));
        }
        let ack = if p.flags & flag::ACK != 0 {
            ISS.wrapping_add(p.ack.unwrap_or(0))
        } else {
            0
        };
        let f = frame::build(
            &self.peer,
            PEER_ISN.wrapping_add(p.seq),
            ack,
            p.flags,
            win,
            &o,
            &vec![0u8; p.len as usize],
        );
        if self.opts.trace {
            let d = describe_expected(p);
            self.trace.push(format!(
                "{:>12}  <  {d}   (line {line})",
                ms(self.now as i64)
            ));
        }
        let now = self.now;
        if p.flags & flag::SYN != 0 && p.flags & flag::ACK == 0 {
            if self.listen_fd.is_none() {
                return Err((line, "a SYN arrives but no socket listens".into()));
            }
            if self.sender.state != ConnState::Closed {
                return Err((
                    line,
                    "a second SYN: the sender models one connection".into(),
                ));
            }
            self.sender
                .accept(now, &f, &mut self.port)
                .map_err(|e| (line, format!("the sender refused the SYN: {e}")))?;
        } else {
            self.sender.on_frame(now, &f, &mut self.port);
        }
        self.step();
        Ok(())
    }

    /// Match the next outbound line: frames sent in [lo - tol, hi + tol].
    fn outbound(&mut self, p: &Packet, lo: i64, hi: i64, line: usize) -> Result<i64, Fail> {
        let deadline = hi.saturating_add(self.tol_ns).max(0) as u64;
        let want = describe_expected(p);
        let mut covered = 0u32;
        let mut last_t;
        let mut parts: Vec<String> = vec![];
        loop {
            // wait for the next frame, up to the deadline
            while self.port.wire.is_empty() {
                let next = [self.port.next_event_ns(), self.sender.next_timer_ns()]
                    .into_iter()
                    .flatten()
                    .min();
                match next {
                    Some(n) if n <= deadline => self.advance_to(n, line)?,
                    _ => {
                        self.advance_to(deadline.max(self.now), line)?;
                        if self.port.wire.is_empty() {
                            let had = if parts.is_empty() {
                                "nothing".to_string()
                            } else {
                                parts.join(" + ")
                            };
                            return Err((
                                line,
                                format!(
                                    "expected `{want}` at {}; the sender sent {had} by {}",
                                    ms(lo),
                                    ms(deadline as i64)
                                ),
                            ));
                        }
                    }
                }
            }
            let Some((t, f)) = self.port.wire.pop_front() else {
                continue;
            };
            let seg = frame::parse(&f)
                .map_err(|e| (line, format!("the sender sent a bad frame: {e}")))?;
            let got = describe_got(&seg);
            if self.opts.trace {
                self.trace
                    .push(format!("{:>12}  >  {got}   (line {line})", ms(t as i64)));
            }
            parts.push(format!("`{got}` at {}", ms(t as i64)));
            let t = t as i64;
            if t < lo.saturating_sub(self.tol_ns) || t > hi.saturating_add(self.tol_ns) {
                return Err((
                    line,
                    format!(
                        "expected `{want}` at {}{}; got `{got}` at {} (tolerance {} us)",
                        ms(lo),
                        if hi != lo {
                            format!("..{}", ms(hi))
                        } else {
                            String::new()
                        },
                        ms(t),
                        self.tol_ns / 1000
                    ),
                ));
            }
            let rel_seq = seg.seq.wrapping_sub(ISS);
            let len = seg.payload_len as u32;
            let mismatch = |what: String| {
                (
                    line,
                    format!("expected `{want}`; got {} ({what})", parts.join(" + ")),
                )
            };
            if rel_seq != p.seq.wrapping_add(covered) {
                return Err(mismatch(format!(
                    "sequence {rel_seq}, expected {}",
                    p.seq.wrapping_add(covered)
                )));
            }
            let total = u64::from(covered) + u64::from(len);
            if total > u64::from(p.len) || (len == 0 && p.len > 0) {
                return Err(mismatch(format!("{total} bytes, expected {}", p.len)));
            }
            let mut fl = seg.flags;
            if self.opts.ignore_psh {
                fl &= !flag::PSH;
            }
            let want_fl = if self.opts.ignore_psh {
                p.flags & !flag::PSH
            } else {
                p.flags
            };
            covered += len;
            last_t = t;
            let last = covered >= p.len;
            // one TSO packet: PSH as the last frame has it, the other flags on every frame
            if (fl & !flag::PSH) != (want_fl & !flag::PSH)
                || (last && (fl & flag::PSH) != (want_fl & flag::PSH))
            {
                return Err(mismatch(format!(
                    "flags {}, expected {}",
                    flags_text(fl),
                    flags_text(want_fl)
                )));
            }
            if let Some(a) = p.ack {
                let ra = seg.ack.wrapping_sub(PEER_ISN);
                if seg.flags & flag::ACK != 0 && ra != a {
                    return Err(mismatch(format!("ack {ra}, expected {a}")));
                }
            }
            if let Some(w) = p.win {
                if u32::from(seg.window) != w {
                    return Err(mismatch(format!("window {}, expected {w}", seg.window)));
                }
            }
            if let Some(d) = options_differ(&p.options, &seg.options) {
                return Err(mismatch(d));
            }
            if last {
                break;
            }
        }
        Ok(last_t)
    }

    fn syscall(&mut self, s: &Syscall, line: usize) -> Result<(), Fail> {
        let fd = s.args.first().and_then(|a| a.parse::<i64>().ok());
        let arg_int = |i: usize| -> Option<i64> {
            s.args
                .get(i)
                .map(|a| a.trim_matches(|c| c == '[' || c == ']'))
                .and_then(|a| a.parse().ok())
        };
        let expect = |got: i64| -> Result<(), Fail> {
            if got == s.ret {
                Ok(())
            } else {
                Err((
                    line,
                    format!("{}() returned {got}, the script expects {}", s.name, s.ret),
                ))
            }
        };
        let now = self.now;
        match s.name.as_str() {
            "socket" => {
                if s.ret < 0 {
                    return Err((line, "a failing socket() is not modeled".into()));
                }
                self.listen_fd = Some(s.ret); // which role it takes: listen or connect
                Ok(())
            }
            "bind" | "listen" => expect(0),
            "fcntl" => {
                if s.args.iter().any(|a| a.contains("O_NONBLOCK")) {
                    self.nonblocking = true;
                }
                expect(0)
            }
            "accept" => {
                if !self.established() {
                    return Err((
                        line,
                        format!(
                            "accept(): no connection is established (sender {:?})",
                            self.sender.state
                        ),
                    ));
                }
                self.conn_fd = Some(s.ret);
                Ok(())
            }
            "connect" => {
                self.conn_fd = fd;
                self.listen_fd = None;
                self.sender.connect(now, &mut self.port);
                self.step();
                if s.ret == -1 && s.errno.as_deref() == Some("EINPROGRESS") && self.nonblocking {
                    Ok(())
                } else {
                    expect(0)
                }
            }
            "setsockopt" => {
                let opt = s.args.get(2).map(String::as_str).unwrap_or("");
                let val = arg_int(3).ok_or((
                    line,
                    format!("setsockopt {opt}: expected `[N]` as the value"),
                ))?;
                let v = u64::try_from(val)
                    .map_err(|_| (line, format!("setsockopt {opt}: negative value")))?;
                match opt {
                    "SO_SNDBUF" => self.sender.set_sndbuf(v),
                    "TCP_NOTSENT_LOWAT" => self.notsent_lowat_opt = v,
                    _ => {}
                }
                expect(0)
            }
            "getsockopt" => {
                let opt = s.args.get(2).map(String::as_str).unwrap_or("");
                let want = arg_int(3).ok_or((
                    line,
                    format!("getsockopt {opt}: expected `[N]` as the value"),
                ))?;
                let got = match opt {
                    "TCP_NOTSENT_LOWAT" => self.notsent_lowat_opt as i64,
                    _ => return Err((line, format!("getsockopt {opt} is not modeled"))),
                };
                if got != want {
                    return Err((
                        line,
                        format!("getsockopt {opt} gave {got}, the script expects {want}"),
                    ));
                }
                expect(0)
            }
            "write" => {
                if fd != self.conn_fd || !self.established() {
                    return Err((
                        line,
                        "write() on a socket that is not the connected one".into(),
                    ));
                }
                let n = arg_int(2).ok_or((
                    line,
                    "write: expected the byte count as the third argument".into(),
                ))?;
                let n =
                    u64::try_from(n).map_err(|_| (line, "write: negative count".to_string()))?;
                let accepted = if self.nonblocking {
                    // tcp_sendmsg without blocking: skbs are started while the send buffer
                    // has room and unsent bytes are under NOTSENT_LOWAT (socket option, else
                    // sysctl), and sent as they fill
                    let lowat = self.lowat();
                    self.sender.send_nonblocking(now, n, lowat, &mut self.port)
                } else {
                    self.sender.write_at(now, n);
                    n
                };
                self.step();
                expect(accepted as i64)
            }
            "close" => {
                if fd == self.conn_fd {
                    self.sender.close();
                    self.step();
                }
                expect(0)
            }
            other => Err((line, format!("socket call `{other}` is not modeled"))),
        }
    }

    /// The socket's NOTSENT_LOWAT: the option if set, else the sysctl (`tcp_notsent_lowat`).
    fn lowat(&self) -> u64 {
        if self.notsent_lowat_opt > 0 {
            self.notsent_lowat_opt
        } else {
            self.settings.notsent_lowat
        }
    }

    /// `tcp_poll`'s POLLOUT: `__sk_stream_is_writeable(sk, 1)`: free send buffer at least
    /// half the queued memory (`sk_stream_min_wspace`) and twice the unsent bytes under
    /// NOTSENT_LOWAT (`tcp_stream_memory_free` with wake = 1).
    fn pollout(&self) -> bool {
        let q = self.sender.wmem_queued();
        self.sender.sndbuf_bytes().saturating_sub(q) >= q / 2
            && self.sender.notsent_bytes().saturating_mul(2) < self.lowat()
    }

    fn code(&mut self, code: &[CodeLine]) -> Result<(), Fail> {
        let info = self.sender.tcp_info();
        for cl in code {
            match &cl.stmt {
                Stmt::Assign { name, expr } => {
                    let v = eval(expr, &info, &self.vars).map_err(|m| (cl.line, m))?;
                    self.vars.insert(name.clone(), v);
                }
                Stmt::Assert { expr, text } => {
                    let v = eval(expr, &info, &self.vars).map_err(|m| (cl.line, m))?;
                    if v == 0 {
                        return Err((
                            cl.line,
                            format!(
                                "assertion `{text}` failed: {}",
                                show_names(expr, &info, &self.vars)
                            ),
                        ));
                    }
                }
            }
        }
        Ok(())
    }
}

fn ms(t_ns: i64) -> String {
    format!("{:.3} ms", t_ns as f64 / 1e6)
}

fn describe_expected(p: &Packet) -> String {
    let mut s = format!("{} {}:{}({})", flags_text(p.flags), p.seq, p.end, p.len);
    if let Some(a) = p.ack {
        s += &format!(" ack {a}");
    }
    if let Some(w) = p.win {
        s += &format!(" win {w}");
    }
    match &p.options {
        PktOptions::Absent => {}
        PktOptions::Any => s += " <...>",
        PktOptions::List(l) => {
            s += &format!(
                " <{}>",
                l.iter().map(opt_text).collect::<Vec<_>>().join(",")
            )
        }
    }
    s
}

fn opt_text(o: &TcpOpt) -> String {
    match o {
        TcpOpt::Nop => "nop".into(),
        TcpOpt::Eol => "eol".into(),
        TcpOpt::Mss(m) => format!("mss {m}"),
        TcpOpt::SackOk => "sackOK".into(),
        TcpOpt::Wscale(w) => format!("wscale {w}"),
        TcpOpt::Ts { val, ecr } => format!("TS val {val} ecr {ecr}"),
        TcpOpt::Sack(b) => format!(
            "sack {}",
            b.iter()
                .map(|(l, r)| format!("{l}:{r}"))
                .collect::<Vec<_>>()
                .join(" ")
        ),
    }
}

fn describe_got(seg: &Segment) -> String {
    let s = seg.seq.wrapping_sub(ISS);
    let mut out = format!(
        "{} {}:{}({})",
        flags_text(seg.flags),
        s,
        s.wrapping_add(seg.payload_len as u32),
        seg.payload_len
    );
    if seg.flags & flag::ACK != 0 {
        out += &format!(" ack {}", seg.ack.wrapping_sub(PEER_ISN));
    }
    let mut o = vec![];
    if let Some(m) = seg.options.mss {
        o.push(format!("mss {m}"));
    }
    if seg.options.sack_permitted {
        o.push("sackOK".into());
    }
    if let Some(w) = seg.options.wscale {
        o.push(format!("wscale {w}"));
    }
    if let Some((v, e)) = seg.options.timestamps {
        o.push(format!("TS val {v} ecr {e}"));
    }
    if !seg.options.sack.is_empty() {
        o.push(format!(
            "sack {}",
            seg.options
                .sack
                .iter()
                .map(|(l, r)| format!("{}:{}", l.wrapping_sub(PEER_ISN), r.wrapping_sub(PEER_ISN)))
                .collect::<Vec<_>>()
                .join(" ")
        ));
    }
    if !o.is_empty() {
        out += &format!(" <{}>", o.join(","));
    }
    out
}

/// The options the script lists against the frame's (content, not NOP/EOL layout; TS values
/// are the sender's clock and not compared, their presence is).
fn options_differ(want: &PktOptions, got: &SegOptions) -> Option<String> {
    let list = match want {
        PktOptions::Any => return None,
        PktOptions::Absent => vec![],
        PktOptions::List(l) => l.clone(),
    };
    let mut w = SegOptions::default();
    for o in &list {
        match o {
            TcpOpt::Nop | TcpOpt::Eol => {}
            TcpOpt::Mss(m) => w.mss = Some(*m),
            TcpOpt::SackOk => w.sack_permitted = true,
            TcpOpt::Wscale(s) => w.wscale = Some(*s),
            TcpOpt::Ts { val, ecr } => w.timestamps = Some((*val, *ecr)),
            TcpOpt::Sack(b) => w.sack = b.clone(),
        }
    }
    if w.mss != got.mss {
        return Some(format!("option mss {:?}, expected {:?}", got.mss, w.mss));
    }
    if w.sack_permitted != got.sack_permitted {
        return Some(format!(
            "option sackOK {}, expected {}",
            got.sack_permitted, w.sack_permitted
        ));
    }
    if w.wscale != got.wscale {
        return Some(format!(
            "option wscale {:?}, expected {:?}",
            got.wscale, w.wscale
        ));
    }
    if w.timestamps.is_some() != got.timestamps.is_some() {
        return Some(format!(
            "timestamps {}, expected {}",
            if got.timestamps.is_some() {
                "present"
            } else {
                "absent"
            },
            if w.timestamps.is_some() {
                "present"
            } else {
                "absent"
            }
        ));
    }
    let gs: Vec<(u32, u32)> = got
        .sack
        .iter()
        .map(|&(l, r)| (l.wrapping_sub(PEER_ISN), r.wrapping_sub(PEER_ISN)))
        .collect();
    if w.sack != gs {
        return Some(format!("SACK blocks {gs:?}, expected {:?}", w.sack));
    }
    None
}

/// Linux's `TCP_CA_*` states.
const CA_STATES: [(&str, i64); 5] = [
    ("TCP_CA_Open", 0),
    ("TCP_CA_Disorder", 1),
    ("TCP_CA_CWR", 2),
    ("TCP_CA_Recovery", 3),
    ("TCP_CA_Loss", 4),
];

/// A `tcpi_*` field the sender models, else `None`.
fn tcpi(name: &str, i: &TcpInfo) -> Option<u64> {
    Some(match name {
        "tcpi_ca_state" => i.ca_state,
        "tcpi_snd_cwnd" => i.snd_cwnd,
        "tcpi_snd_ssthresh" => i.snd_ssthresh,
        "tcpi_rto" => i.rto_us,
        "tcpi_unacked" => i.unacked,
        "tcpi_sacked" => i.sacked,
        "tcpi_lost" => i.lost,
        "tcpi_retrans" => i.retrans,
        "tcpi_total_retrans" => i.total_retrans,
        "tcpi_rtt" => i.rtt_us,
        "tcpi_rttvar" => i.rttvar_us,
        "tcpi_min_rtt" => i.min_rtt_us,
        "tcpi_snd_mss" => i.snd_mss,
        "tcpi_notsent_bytes" => i.notsent_bytes,
        "tcpi_delivered" => i.delivered,
        "tcpi_reordering" => i.reordering,
        "tcpi_reord_seen" => i.reord_seen,
        _ => return None,
    })
}

fn lookup(n: &str, info: &TcpInfo, vars: &HashMap<String, i64>) -> Result<i64, String> {
    if let Some(v) = vars.get(n) {
        return Ok(*v);
    }
    if let Some((_, v)) = CA_STATES.iter().find(|(k, _)| *k == n) {
        return Ok(*v);
    }
    if n.starts_with("tcpi_") {
        return tcpi(n, info)
            .map(|v| i64::try_from(v).unwrap_or(i64::MAX))
            .ok_or_else(|| format!("`{n}` is not modeled by the sender's tcp_info view"));
    }
    Err(format!("unknown name `{n}`"))
}

fn eval(e: &Expr, info: &TcpInfo, vars: &HashMap<String, i64>) -> Result<i64, String> {
    Ok(match e {
        Expr::Int(v) => *v,
        Expr::Name(n) => lookup(n, info, vars)?,
        Expr::Unary(Op::Not, a) => i64::from(eval(a, info, vars)? == 0),
        Expr::Unary(_, a) => eval(a, info, vars)?.checked_neg().ok_or("overflow")?,
        Expr::Binary(op, a, b) => {
            let x = eval(a, info, vars)?;
            // Python's and/or short-circuit
            match op {
                Op::And if x == 0 => return Ok(0),
                Op::Or if x != 0 => return Ok(x),
                _ => {}
            }
            let y = eval(b, info, vars)?;
            let ov = || "arithmetic overflow".to_string();
            match op {
                Op::Eq => i64::from(x == y),
                Op::Ne => i64::from(x != y),
                Op::Lt => i64::from(x < y),
                Op::Le => i64::from(x <= y),
                Op::Gt => i64::from(x > y),
                Op::Ge => i64::from(x >= y),
                Op::And | Op::Or => y,
                Op::Add => x.checked_add(y).ok_or_else(ov)?,
                Op::Sub => x.checked_sub(y).ok_or_else(ov)?,
                Op::Mul => x.checked_mul(y).ok_or_else(ov)?,
                Op::Div | Op::Mod if y == 0 => return Err("division by zero".into()),
                Op::Div => x.div_euclid(y),
                Op::Mod => x.rem_euclid(y),
                Op::Not | Op::Neg => return Err("bad operator".into()),
            }
        }
    })
}

/// `name=value` of every name in a failed assertion.
fn show_names(e: &Expr, info: &TcpInfo, vars: &HashMap<String, i64>) -> String {
    fn names(e: &Expr, out: &mut Vec<String>) {
        match e {
            Expr::Name(n) => {
                if !out.contains(n) {
                    out.push(n.clone())
                }
            }
            Expr::Int(_) => {}
            Expr::Unary(_, a) => names(a, out),
            Expr::Binary(_, a, b) => {
                names(a, out);
                names(b, out);
            }
        }
    }
    let mut n = vec![];
    names(e, &mut n);
    n.iter()
        .map(|k| match lookup(k, info, vars) {
            Ok(v) => format!("{k} = {v}"),
            Err(m) => m,
        })
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small server-side script of ours: handshake, one write of 3 segments, a cwnd check.
    const BASE: &str = "\
0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3
+0 bind(3, ..., ...) = 0
+0 listen(3, 1) = 0
+0 < S 0:0(0) win 65535 <mss 1000,sackOK,nop,wscale 7>
+0 > S. 0:0(0) ack 1 <mss 1460,sackOK,nop,wscale 8>
+.05 < . 1:1(0) ack 1 win 500
+0 accept(3, ..., ...) = 4
+0 write(4, ..., 3000) = 3000
+0 > P. 1:3001(3000) ack 1
+0 %{ assert tcpi_snd_cwnd == 10 and tcpi_ca_state == TCP_CA_Open }%
+.05 < . 1:1(0) ack 3001 win 500
+0 %{ assert tcpi_unacked == 0, tcpi_unacked }%
";

    fn run(text: &str) -> Outcome {
        let s = parse_script("ours.pkt", text).expect("parses");
        run_script(&s, RunOpts::default()).outcome
    }

    fn fails_at(text: &str, want_line: usize, want: &str) {
        match run(text) {
            Outcome::Fail { line, msg } => {
                assert_eq!(line, want_line, "{msg}");
                assert!(msg.contains(want), "`{msg}` lacks `{want}`");
            }
            o => panic!("expected a failure at line {want_line} ({want}), got {o:?}"),
        }
    }

    #[test]
    fn base_script_passes() {
        assert_eq!(run(BASE), Outcome::Pass);
    }

    #[test]
    fn every_compared_field_can_fail() {
        let m = |a: &str, b: &str| {
            assert!(BASE.contains(a), "{a}");
            BASE.replace(a, b)
        };
        // length and sequence
        // a line longer than what is sent; a shorter one, then the next line meets the rest
        fails_at(
            &m("> P. 1:3001(3000)", "> P. 1:4001(4000)"),
            9,
            "the sender sent `. 1:1001(1000) ack 1` at 50.000 ms + `P. 1001:2001(1000) ack 1` at 50.000 ms + `P. 2001:3001(1000) ack 1` at 50.000 ms by 54.000 ms",
        );
        fails_at(
            &m(
                "> P. 1:3001(3000) ack 1\n",
                "> P. 1:2001(2000) ack 1\n+0 > P. 2001:2501(500) ack 1\n",
            ),
            10,
            "1000 bytes, expected 500",
        );
        fails_at(
            &m("> P. 1:3001(3000)", "> P. 2:3002(3000)"),
            9,
            "sequence 1, expected 2",
        );
        // flags (PSH) and ack
        fails_at(
            &m("> P. 1:3001(3000)", "> . 1:3001(3000)"),
            9,
            "flags P., expected .",
        );
        fails_at(
            &m("> P. 1:3001(3000) ack 1", "> P. 1:3001(3000) ack 2"),
            9,
            "ack 1, expected 2",
        );
        // options of the SYN-ACK
        fails_at(
            &m("nop,wscale 8>", "nop,wscale 7>"),
            5,
            "wscale Some(8), expected Some(7)",
        );
        fails_at(
            &m("<mss 1460,sackOK,nop,wscale 8>", "<mss 1460,nop,wscale 8>"),
            5,
            "sackOK true",
        );
        // time: the data goes at 50 ms, not 60 ms (tolerance 4 ms), nor 52 ms with 1 ms
        fails_at(
            &m("+0 > P. 1:3001", "+.01 > P. 1:3001"),
            9,
            "tolerance 4000 us",
        );
        let t = format!(
            "--tolerance_usecs=1000\n{}",
            m("+0 > P. 1:3001", "+.002 > P. 1:3001")
        );
        fails_at(&t, 10, "tolerance 1000 us");
        let t = format!(
            "--tolerance_usecs=3000\n{}",
            m("+0 > P. 1:3001", "+.002 > P. 1:3001")
        );
        assert_eq!(run(&t), Outcome::Pass);
        // a packet never sent
        let t = format!("{BASE}+0 > P. 3001:4001(1000) ack 1\n");
        fails_at(&t, 13, "the sender sent nothing");
    }

    #[test]
    fn assertions_are_evaluated_and_unknown_fields_fail() {
        let m = |a: &str, b: &str| BASE.replace(a, b);
        fails_at(
            &m("tcpi_snd_cwnd == 10", "tcpi_snd_cwnd == 11"),
            10,
            "tcpi_snd_cwnd = 10",
        );
        fails_at(
            &m("TCP_CA_Open", "TCP_CA_Recovery"),
            10,
            "tcpi_ca_state = 0",
        );
        fails_at(
            &m("tcpi_unacked == 0", "tcpi_snd_wnd == 3"),
            12,
            "not modeled",
        );
        fails_at(
            &m("tcpi_unacked == 0", "tcpi_unacked == UNDEFINED"),
            12,
            "unknown name",
        );
        // tcp_get_info's units: tcpi_rtt is srtt in us (50 ms handshake and data RTTs),
        // tcpi_rto is srtt + rttvar (at least rto_min 200 ms) in whole HZ=250 ticks
        let t = m(
            "tcpi_unacked == 0, tcpi_unacked",
            "tcpi_rtt == 50000 and tcpi_min_rtt == 50000 and tcpi_rto % 4000 == 0 and tcpi_rto >= 250000 and tcpi_rto < 260000",
        );
        assert_eq!(run(&t), Outcome::Pass);
        // an assignment, then a use; hex
        let t = m(
            "+0 %{ assert tcpi_unacked == 0, tcpi_unacked }%",
            "+0 %{ X = 0x7fffffff }%\n+0 %{ assert tcpi_snd_ssthresh == X }%",
        );
        assert_eq!(run(&t), Outcome::Pass);
    }

    #[test]
    fn socket_calls_checked_and_unmodeled_ones_skip_by_name() {
        fails_at(
            &BASE.replace("= 3000\n", "= 2000\n"),
            8,
            "returned 3000, the script expects 2000",
        );
        let t = BASE.replace("+0 accept(", "+0 shutdown(4, SHUT_WR) = 0\n+0 accept(");
        match run(&t) {
            Outcome::Skip { reason } => {
                assert!(reason.contains("`shutdown` (line 7)"), "{reason}")
            }
            o => panic!("{o:?}"),
        }
        // accept before the handshake completes
        let t = BASE.replace("+.05 < . 1:1(0) ack 1 win 500\n+0 accept", "+0 accept");
        fails_at(&t, 6, "no connection is established");
    }

    /// A non-blocking write under NOTSENT_LOWAT, then a poll for POLLOUT that blocks while
    /// the script's ACK arrives (upstream runs it in a thread) and returns when twice the
    /// unsent bytes fall under the mark (`tcp_poll`).
    const POLL: &str = "\
0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3
+0 bind(3, ..., ...) = 0
+0 listen(3, 1) = 0
+0 < S 0:0(0) win 65535 <mss 1000,sackOK,nop,wscale 7>
+0 > S. 0:0(0) ack 1 <mss 1460,sackOK,nop,wscale 8>
+.05 < . 1:1(0) ack 1 win 500
+0 accept(3, ..., ...) = 4
+0 setsockopt(4, SOL_TCP, TCP_NOTSENT_LOWAT, [2000], 4) = 0
+0 fcntl(4, F_SETFL, O_RDWR|O_NONBLOCK) = 0
+0 write(4, ..., 12000) = 12000
+0 > P. 1:10001(10000) ack 1
+0...0.05 poll([{fd=4, events=POLLOUT, revents=POLLOUT}], 1, 1000) = 1
+.05 < . 1:1(0) ack 2001 win 500
+0 > P. 10001:12001(2000) ack 1
";

    #[test]
    fn poll_blocks_while_the_script_goes_on() {
        assert_eq!(run(POLL), Outcome::Pass);
        fails_at(
            &POLL.replace("+0...0.05 poll", "+0...0.08 poll"),
            12,
            "poll() returned at 100.000 ms, the script expects 130.000 ms",
        );
        let t = POLL.replace(
            "+.05 < . 1:1(0) ack 2001 win 500\n+0 > P. 10001:12001(2000) ack 1\n",
            "",
        );
        fails_at(
            &t,
            12,
            "poll() returned 0 at 1050.000 ms, the script expects 1",
        );
        // a second write appends to the unsent tail skb, which has room: no memory check
        // (only a new skb needs `sk_stream_memory_free`), so all of it is taken
        let t = POLL
            .replace(
                "+0 > P. 1:10001(10000) ack 1\n",
                "+0 > P. 1:10001(10000) ack 1\n+0 write(4, ..., 1000) = 1000\n",
            )
            .replace("10001:12001(2000)", "10001:13001(3000)");
        assert_eq!(run(&t), Outcome::Pass);
    }

    #[test]
    fn settings_from_the_init_command() {
        let (st, un) = init_settings(
            "../common/defaults.sh\nsysctl -q net.ipv4.tcp_notsent_lowat=4000\n../common/set_sysctls.py /proc/sys/net/ipv4/tcp_slow_start_after_idle=1 \\\n /proc/sys/net/ipv4/tcp_min_tso_segs=10",
        );
        assert_eq!(st.notsent_lowat, 4000);
        assert!(st.slow_start_after_idle);
        assert_eq!(st.min_tso_segs, 10);
        assert!(un.is_empty(), "{un:?}");
        let (_, un) = init_settings("sysctl -q net.ipv4.tcp_min_tso_segs=0 net.ipv4.tcp_ecn=1");
        assert_eq!(
            un,
            vec![
                "net.ipv4.tcp_min_tso_segs=0".to_string(),
                "net.ipv4.tcp_ecn=1".to_string()
            ]
        );
    }
}
