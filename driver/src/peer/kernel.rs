//! The Linux ends of `--peer linux`: small programs that run inside the network namespace
//! (as hidden `tsnic` subcommands under `ip netns exec`) and use the kernel's own TCP.
//!
//! - [`receive`]: a plain socket receiver. Listens, accepts one connection, reads everything
//!   (optionally slowly), hashes it, and reports what the kernel saw (TCP_INFO, the
//!   namespace's TCP counters) as one JSON line on stdout before closing (its FIN).
//! - [`kernel_send`]: the kernel's TCP as the sender (the baseline the EDT sender is compared
//!   with): connects, writes the same byte pattern, and reports TCP_INFO and counters.

use std::collections::BTreeMap;
use std::io::{self, BufRead, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::sys;
use crate::edt::frame::pattern_byte;

/// TCP_INFO fields the reports use (offsets of `struct tcp_info`, linux/tcp.h).
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct TcpInfo {
    /// tcpi_state (linux/tcp_states.h): 1 ESTABLISHED, 7 CLOSE, 8 CLOSE_WAIT, 9 LAST_ACK, ...
    #[serde(default)]
    pub state: u8,
    /// TCPI_OPT_* bits: 1 timestamps, 2 SACK, 4 window scale, 8 ECN.
    pub options: u8,
    /// Window scale the peer announced (our shift for its window).
    pub snd_wscale: u8,
    /// Window scale this socket announced.
    pub rcv_wscale: u8,
    pub rto_us: u32,
    /// MSS this socket sends with (peer's MSS option minus option space).
    pub snd_mss: u32,
    /// Largest segment received (estimate of the peer's MSS).
    pub rcv_mss: u32,
    /// Segments sent and not yet acknowledged.
    pub unacked: u32,
    pub rtt_us: u32,
    pub snd_cwnd: u32,
    pub advmss: u32,
    pub total_retrans: u32,
    pub bytes_acked: u64,
    pub bytes_received: u64,
    pub segs_out: u32,
    pub segs_in: u32,
    pub min_rtt_us: u32,
    pub data_segs_in: u32,
    pub data_segs_out: u32,
    pub delivery_rate_bps: u64,
    pub bytes_retrans: u64,
    pub dsack_dups: u32,
    pub reord_seen: u32,
    pub rcv_ooopack: u32,
}

impl TcpInfo {
    pub fn has_timestamps(&self) -> bool {
        self.options & 1 != 0
    }
    pub fn has_sack(&self) -> bool {
        self.options & 2 != 0
    }
    pub fn has_wscale(&self) -> bool {
        self.options & 4 != 0
    }

    /// Parse the kernel's bytes (little-endian x86/arm; fields past the returned length are 0).
    pub fn parse(b: &[u8; 256]) -> TcpInfo {
        let u32at = |o: usize| u32::from_ne_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]]);
        let u64at = |o: usize| u64::from(u32at(o)) | u64::from(u32at(o + 4)) << 32;
        TcpInfo {
            state: b[0],
            options: b[5],
            snd_wscale: b[6] & 0x0f,
            rcv_wscale: b[6] >> 4,
            rto_us: u32at(8),
            snd_mss: u32at(16),
            rcv_mss: u32at(20),
            unacked: u32at(24),
            rtt_us: u32at(68),
            snd_cwnd: u32at(80),
            advmss: u32at(84),
            total_retrans: u32at(100),
            bytes_acked: u64at(120),
            bytes_received: u64at(128),
            segs_out: u32at(136),
            segs_in: u32at(140),
            min_rtt_us: u32at(148),
            data_segs_in: u32at(152),
            data_segs_out: u32at(156),
            delivery_rate_bps: u64at(160).saturating_mul(8),
            bytes_retrans: u64at(208),
            dsack_dups: u32at(216),
            reord_seen: u32at(220),
            rcv_ooopack: u32at(224),
        }
    }

    pub fn of(s: &TcpStream) -> io::Result<TcpInfo> {
        Ok(TcpInfo::parse(&sys::tcp_info_raw(s.as_raw_fd())?))
    }
}

/// The namespace's TCP counters that tell retransmissions, probes, timeouts and receive-side
/// trouble apart (`nstat` names; read from /proc/net/snmp and /proc/net/netstat, which are
/// per network namespace).
pub const COUNTERS: &[&str] = &[
    "TcpRetransSegs",
    "TcpInErrs",
    "TcpInCsumErrors",
    "TcpOutRsts",
    "TcpExtTCPLossProbes",
    "TcpExtTCPLossProbeRecovery",
    "TcpExtTCPTimeouts",
    "TcpExtTCPSackRecovery",
    "TcpExtTCPFastRetrans",
    "TcpExtTCPSlowStartRetrans",
    "TcpExtTCPLostRetransmit",
    "TcpExtTCPOFOQueue",
    "TcpExtTCPZeroWindowDrop",
    "TcpExtTCPRcvQDrop",
    "TcpExtTCPSACKReorder",
    "TcpExtTCPDSACKOldSent",
    "TcpExtTCPDSACKOfoSent",
    "TcpExtTCPDSACKRecv",
    "TcpExtTCPWantZeroWindowAdv",
    "TcpExtTCPToZeroWindowAdv",
    "TcpExtPAWSEstab",
    "TcpExtBeyondWindow",
];

/// Read [`COUNTERS`] of the current network namespace (missing ones are left out).
pub fn read_counters() -> BTreeMap<String, u64> {
    let mut all = BTreeMap::new();
    for path in ["/proc/net/snmp", "/proc/net/netstat"] {
        let Ok(text) = std::fs::read_to_string(path) else {
            continue;
        };
        let lines: Vec<&str> = text.lines().collect();
        for pair in lines.chunks(2) {
            let [names, values] = pair else { continue };
            let mut n = names.split_whitespace();
            let mut v = values.split_whitespace();
            let (Some(prefix), Some(_)) = (n.next(), v.next()) else {
                continue;
            };
            let prefix = prefix.trim_end_matches(':');
            for (k, val) in n.zip(v) {
                if let Ok(x) = val.parse::<u64>() {
                    all.insert(format!("{prefix}{k}"), x);
                }
            }
        }
    }
    all.into_iter()
        .filter(|(k, _)| COUNTERS.contains(&k.as_str()))
        .collect()
}

/// Counter differences `after - before` (counters that did not move are left out).
pub fn counter_delta(
    before: &BTreeMap<String, u64>,
    after: &BTreeMap<String, u64>,
) -> BTreeMap<String, u64> {
    after
        .iter()
        .filter_map(|(k, &a)| {
            let d = a.saturating_sub(before.get(k).copied().unwrap_or(0));
            (d > 0).then(|| (k.clone(), d))
        })
        .collect()
}

/// What the receiver reports (one JSON line on stdout).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct ReceiverResult {
    pub received_bytes: u64,
    pub sha256: String,
    /// The peer's address as the receiver saw it.
    pub remote: String,
    /// Wall time from accept to end of stream, ms.
    pub duration_ms: f64,
    /// The receiving socket's TCP_INFO at end of stream.
    pub tcp_info: TcpInfo,
    /// Counter changes in the receiver's namespace during the connection.
    pub counters: BTreeMap<String, u64>,
    /// Set when the receiver could not finish (timeout, reset); `received_bytes` is then what
    /// it got so far.
    pub error: Option<String>,
}

/// Settings of the receiver.
#[derive(Debug, Clone)]
pub struct ReceiveConfig {
    pub listen: SocketAddr,
    /// SO_RCVBUF before the connection arrives (None: the kernel's autotuning).
    pub rcvbuf: Option<u32>,
    /// Read at most this many bytes per second (None: as fast as possible).
    pub read_rate: Option<u64>,
    /// Give up if no connection or no byte arrives for this long.
    pub idle_timeout: Duration,
    /// Write [`ReceiverEvidence`] to this file (from this process, not the sender's).
    pub evidence: Option<PathBuf>,
}

/// The receiver's own account of the connection, written by the receiver process itself to
/// the file `--peer-evidence` names (it never passes through the sending process, so a test
/// can check the sender against Linux rather than against the sender's report): what the
/// application read from the Linux socket, and how that socket ended.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct ReceiverEvidence {
    /// Bytes the application read from the socket.
    pub bytes_read: u64,
    /// SHA-256 of those bytes, in the order read.
    pub sha256: String,
    /// read() returned 0: Linux took the sender's FIN, after every byte before it.
    pub eof: bool,
    /// tcpi_state when the reading ended (8, CLOSE_WAIT, after the sender's FIN).
    pub state_at_eof: u8,
    /// After shutdown(SHUT_WR) (Linux's FIN) the socket reached CLOSE (7) with no socket
    /// error: the sender acknowledged Linux's FIN (LAST_ACK to CLOSE; an RST or a FIN
    /// retransmission timeout ends in CLOSE too, but with ECONNRESET or ETIMEDOUT).
    pub fin_acked: bool,
    /// tcpi_state when the wait for that acknowledgement ended (the state at EOF until then).
    pub final_state: u8,
    /// The receiving socket's TCP_INFO when the reading ended.
    pub tcp_info: TcpInfo,
    /// TCP counter changes in the receiver's namespace over the whole connection, its close
    /// included (e.g. TcpExtTCPDSACKOldSent: segments Linux already had).
    pub counters: BTreeMap<String, u64>,
    /// Why the receiver stopped early, if it did.
    pub error: Option<String>,
}

/// tcpi_state of a closed socket (TCP_CLOSE, linux/tcp_states.h).
pub const TCP_STATE_CLOSE: u8 = 7;

/// Send our FIN (shutdown of the write side) and wait up to `timeout` for the socket to reach
/// CLOSE. Returns (acknowledged without error, final tcpi_state).
fn fin_and_wait_ack(s: &TcpStream, timeout: Duration) -> (bool, u8) {
    if s.shutdown(Shutdown::Write).is_err() {
        return (false, TcpInfo::of(s).map_or(0, |t| t.state));
    }
    let end = Instant::now() + timeout;
    loop {
        let st = TcpInfo::of(s).map_or(0, |t| t.state);
        if st == TCP_STATE_CLOSE {
            return (matches!(s.take_error(), Ok(None)), st);
        }
        if Instant::now() > end {
            return (false, st);
        }
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// Write `ev` to `path` whole (a temporary file renamed into place).
fn write_evidence(path: &Path, ev: &ReceiverEvidence) -> io::Result<()> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".part");
    let tmp = PathBuf::from(tmp);
    std::fs::write(
        &tmp,
        serde_json::to_vec_pretty(ev).map_err(io::Error::other)?,
    )?;
    std::fs::rename(&tmp, path)
}

/// hex of a digest.
pub fn hex(d: &[u8]) -> String {
    d.iter().map(|b| format!("{b:02x}")).collect()
}

/// sha256 of the sender's pattern stream, bytes 0..n.
pub fn pattern_sha256(n: u64) -> String {
    let mut h = Sha256::new();
    let mut buf = vec![0u8; 65_536];
    let mut off = 0u64;
    while off < n {
        let k = (n - off).min(buf.len() as u64) as usize;
        for (i, b) in buf[..k].iter_mut().enumerate() {
            *b = pattern_byte(off + i as u64);
        }
        h.update(&buf[..k]);
        off += k as u64;
    }
    hex(&h.finalize())
}

/// Run the receiver: prints `{"ready":true}` once listening, then the [`ReceiverResult`].
pub fn receive(cfg: &ReceiveConfig, out: &mut dyn Write) -> io::Result<()> {
    let listener = TcpListener::bind(cfg.listen)?;
    if let Some(b) = cfg.rcvbuf {
        sys::set_rcvbuf(listener.as_raw_fd(), b)?;
    }
    listener.set_nonblocking(true)?;
    writeln!(out, "{{\"ready\":true}}")?;
    out.flush()?;
    let before = read_counters();
    let deadline = Instant::now() + cfg.idle_timeout;
    let (mut stream, remote) = loop {
        match listener.accept() {
            Ok(x) => break x,
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                if Instant::now() > deadline {
                    return Err(io::Error::new(
                        io::ErrorKind::TimedOut,
                        "no connection arrived at the receiver",
                    ));
                }
                std::thread::sleep(Duration::from_millis(1));
            }
            Err(e) => return Err(e),
        }
    };
    stream.set_nonblocking(false)?;
    stream.set_read_timeout(Some(cfg.idle_timeout))?;
    let start = Instant::now();
    let mut h = Sha256::new();
    let mut total = 0u64;
    // A slow reader takes small bites so the window opens in small steps.
    let mut buf = vec![
        0u8;
        if cfg.read_rate.is_some() {
            4096
        } else {
            1 << 18
        }
    ];
    let mut error = None;
    let mut eof = false;
    loop {
        match stream.read(&mut buf) {
            Ok(0) => {
                eof = true;
                break;
            }
            Ok(n) => {
                h.update(&buf[..n]);
                total += n as u64;
                if let Some(r) = cfg.read_rate {
                    let due = Duration::from_secs_f64(total as f64 / r.max(1) as f64);
                    let el = start.elapsed();
                    if due > el {
                        std::thread::sleep(due - el);
                    }
                }
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => {
                error = Some(format!("read failed after {total} bytes: {e}"));
                break;
            }
        }
    }
    let duration_ms = start.elapsed().as_secs_f64() * 1e3;
    let tcp_info = TcpInfo::of(&stream).unwrap_or_default();
    let sha256 = hex(&h.finalize());
    // Our FIN goes out after the result, so nothing waits on the close.
    let res = ReceiverResult {
        received_bytes: total,
        sha256: sha256.clone(),
        remote: remote.to_string(),
        duration_ms,
        tcp_info: tcp_info.clone(),
        counters: counter_delta(&before, &read_counters()),
        error: error.clone(),
    };
    serde_json::to_writer(&mut *out, &res)?;
    writeln!(out)?;
    out.flush()?;
    let mut ev = ReceiverEvidence {
        bytes_read: total,
        sha256,
        eof,
        state_at_eof: tcp_info.state,
        fin_acked: false,
        final_state: tcp_info.state,
        tcp_info,
        counters: counter_delta(&before, &read_counters()),
        error,
    };
    // Written now (FIN not yet acknowledged) and again after the wait, so a receiver stopped
    // while it waits still leaves its account.
    if let Some(p) = &cfg.evidence {
        write_evidence(p, &ev)?;
    }
    // Only after the sender's FIN: then Linux's FIN must be acknowledged (LAST_ACK to CLOSE).
    if eof {
        (ev.fin_acked, ev.final_state) = fin_and_wait_ack(&stream, cfg.idle_timeout);
        // After the close: a needless retransmission may still arrive after EOF.
        ev.counters = counter_delta(&before, &read_counters());
        if let Some(p) = &cfg.evidence {
            write_evidence(p, &ev)?;
        }
    }
    drop(stream);
    Ok(())
}

/// What the kernel sender reports.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct KernelSendResult {
    pub sent_bytes: u64,
    pub cc: String,
    pub duration_ms: f64,
    /// TCP_INFO once every byte was acknowledged, before the close (what `ss -ti` shows).
    pub tcp_info: TcpInfo,
    /// Counter changes in the sender's namespace: TcpRetransSegs, TcpExtTCPLossProbes (TLP),
    /// TcpExtTCPTimeouts (RTO), ...
    pub counters: BTreeMap<String, u64>,
    pub peer_closed: bool,
    /// `ss -tin` on the socket at the end, as text (empty when ss is not installed).
    pub ss_ti: String,
    pub error: Option<String>,
}

/// Run the kernel's TCP as sender: connect, write `bytes` of the pattern, shut down the
/// write side, wait for the peer's FIN. Prints one JSON line.
pub fn kernel_send(
    to: SocketAddr,
    bytes: u64,
    cc: &str,
    timeout: Duration,
    out: &mut dyn Write,
) -> io::Result<()> {
    let before = read_counters();
    let start = Instant::now();
    let mut s = TcpStream::connect_timeout(&to, timeout)?;
    sys::set_congestion(s.as_raw_fd(), cc)?;
    s.set_write_timeout(Some(timeout))?;
    s.set_read_timeout(Some(timeout))?;
    let mut buf = vec![0u8; 1 << 16];
    let mut off = 0u64;
    let mut error = None;
    while off < bytes {
        let k = (bytes - off).min(buf.len() as u64) as usize;
        for (i, b) in buf[..k].iter_mut().enumerate() {
            *b = pattern_byte(off + i as u64);
        }
        if let Err(e) = s.write_all(&buf[..k]) {
            error = Some(format!("write failed after {off} bytes: {e}"));
            break;
        }
        off += k as u64;
    }
    // Wait until every byte is acknowledged, then let `ss` show the connection's figures
    // (after the close it is a TIME-WAIT socket without them).
    let until = Instant::now() + timeout;
    while TcpInfo::of(&s).is_ok_and(|t| t.unacked > 0) && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(1));
    }
    let ss_ti = std::process::Command::new("ss")
        .args(["-tin", "state", "all", "dst", &to.ip().to_string()])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default();
    let tcp_info = TcpInfo::of(&s).unwrap_or_default();
    let _ = s.shutdown(Shutdown::Write);
    let mut sink = [0u8; 64];
    let peer_closed = matches!(s.read(&mut sink), Ok(0));
    let res = KernelSendResult {
        sent_bytes: off,
        cc: cc.to_string(),
        duration_ms: start.elapsed().as_secs_f64() * 1e3,
        tcp_info,
        counters: counter_delta(&before, &read_counters()),
        peer_closed,
        ss_ti,
        error,
    };
    serde_json::to_writer(&mut *out, &res)?;
    writeln!(out)?;
    out.flush()
}

/// Read JSON lines from a child's stdout until one parses as `T` (other lines are skipped).
pub fn read_json_line<T: for<'de> Deserialize<'de>>(r: &mut dyn BufRead) -> io::Result<T> {
    let mut line = String::new();
    loop {
        line.clear();
        if r.read_line(&mut line)? == 0 {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "the Linux-side helper ended without a result",
            ));
        }
        if let Ok(v) = serde_json::from_str(line.trim()) {
            return Ok(v);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pattern_hash_matches_a_direct_hash() {
        let n = 200_003u64;
        let v: Vec<u8> = (0..n).map(pattern_byte).collect();
        assert_eq!(pattern_sha256(n), hex(&Sha256::digest(&v)));
    }

    #[test]
    fn tcp_info_fields_at_their_offsets() {
        let mut b = [0u8; 256];
        b[0] = TCP_STATE_CLOSE;
        b[5] = 7;
        b[6] = 0x97; // rcv 9, snd 7
        b[16..20].copy_from_slice(&1448u32.to_ne_bytes());
        b[100..104].copy_from_slice(&5u32.to_ne_bytes());
        let t = TcpInfo::parse(&b);
        assert!(t.has_timestamps() && t.has_sack() && t.has_wscale());
        assert_eq!((t.snd_wscale, t.rcv_wscale), (7, 9));
        assert_eq!((t.snd_mss, t.total_retrans), (1448, 5));
        assert_eq!(t.state, TCP_STATE_CLOSE);
    }
}
