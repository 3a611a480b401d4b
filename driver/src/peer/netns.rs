//! Setting up and tearing down the Linux side: a network namespace, a TAP device moved into
//! it (our file descriptor stays open in this process), an address, a static neighbour for
//! our end, and helper processes run in the namespace with `ip netns exec`.
//!
//! Configuration goes through `ip` (iproute2, in Debian bookworm's base system): it is the
//! tool an administrator would use, its errors are readable, and it keeps netlink code out of
//! the driver. Every object created is owned by a guard whose `Drop` removes it, so an error
//! or Ctrl-C (the run loop checks a flag set by SIGINT/SIGTERM and returns an error) cleans
//! up; only SIGKILL can leave a namespace behind (the TAP goes with the process).

use std::io::{BufReader, Read};
use std::path::Path;
use std::process::{Child, ChildStdout, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::mpsc::{self, Receiver};
use std::sync::Arc;
use std::time::Duration;

use serde::de::DeserializeOwned;

use super::sys::{self, Tap};
use super::PeerError;

/// Find `ip` (iproute2).
pub fn ip_binary() -> Option<&'static str> {
    ["/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"]
        .into_iter()
        .find(|p| Path::new(p).exists())
}

/// Everything `--peer linux` needs from the machine; the error names what is missing.
pub fn check_prerequisites() -> Result<(), PeerError> {
    let mut missing = Vec::new();
    if sys::euid() != 0 {
        missing.push("root (network namespaces and TAP devices need CAP_NET_ADMIN; run as root)");
    }
    if !Path::new("/dev/net/tun").exists() {
        missing.push("/dev/net/tun (load the tun module: modprobe tun)");
    }
    if !Path::new("/proc/self/ns/net").exists() {
        missing.push("network namespaces (/proc/self/ns/net; a kernel with CONFIG_NET_NS)");
    }
    if ip_binary().is_none() {
        missing.push("the `ip` command (apt-get install iproute2)");
    }
    if missing.is_empty() {
        Ok(())
    } else {
        Err(PeerError::Missing(missing.join("; ")))
    }
}

/// Run `ip ARGS`, turning a failure into an error that shows the command and its stderr.
pub fn ip(args: &[&str]) -> Result<(), PeerError> {
    let bin = ip_binary().ok_or_else(|| PeerError::Missing("the `ip` command".into()))?;
    let out = Command::new(bin)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| PeerError::Setup(format!("cannot run `ip {}`: {e}", args.join(" "))))?;
    if !out.status.success() {
        return Err(PeerError::Setup(format!(
            "`ip {}` failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    Ok(())
}

/// Names of network namespaces (`ip netns list`).
pub fn netns_list() -> Vec<String> {
    let Some(bin) = ip_binary() else {
        return vec![];
    };
    Command::new(bin)
        .args(["netns", "list"])
        .output()
        .map(|o| {
            String::from_utf8_lossy(&o.stdout)
                .lines()
                .filter_map(|l| l.split_whitespace().next().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// A unique short name for this process's `n`-th object: `<prefix><pid><n>`.
pub fn unique_name(prefix: &str) -> String {
    static N: AtomicU32 = AtomicU32::new(0);
    let n = N.fetch_add(1, Ordering::Relaxed);
    format!("{prefix}{}x{n}", std::process::id())
}

/// A network namespace; removed on drop when we created it.
#[derive(Debug)]
pub struct Netns {
    name: String,
    owned: bool,
}

impl Netns {
    /// Create a fresh namespace `name` (with loopback up).
    pub fn create(name: &str) -> Result<Netns, PeerError> {
        if netns_list().iter().any(|n| n == name) {
            return Err(PeerError::Setup(format!(
                "network namespace {name} already exists; remove it (ip netns del {name}) or \
                 use --peer linux:{name}"
            )));
        }
        ip(&["netns", "add", name])?;
        let ns = Netns {
            name: name.to_string(),
            owned: true,
        };
        ip(&["-n", name, "link", "set", "lo", "up"])?;
        Ok(ns)
    }

    /// An existing namespace, left in place at the end.
    pub fn existing(name: &str) -> Result<Netns, PeerError> {
        if !netns_list().iter().any(|n| n == name) {
            return Err(PeerError::Setup(format!(
                "network namespace {name} does not exist (see `ip netns list`; create it with \
                 `ip netns add {name}` or use --peer linux to have one made)"
            )));
        }
        Ok(Netns {
            name: name.to_string(),
            owned: false,
        })
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn owned(&self) -> bool {
        self.owned
    }
}

impl Drop for Netns {
    fn drop(&mut self) {
        if self.owned {
            if let Err(e) = ip(&["netns", "del", &self.name]) {
                eprintln!("warning: could not remove network namespace: {e}");
            }
        }
    }
}

/// MAC and IPv4 address of one end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Station {
    pub mac: [u8; 6],
    pub ip: [u8; 4],
}

fn mac_text(m: &[u8; 6]) -> String {
    m.iter()
        .map(|b| format!("{b:02x}"))
        .collect::<Vec<_>>()
        .join(":")
}

fn ip_text(a: &[u8; 4]) -> String {
    format!("{}.{}.{}.{}", a[0], a[1], a[2], a[3])
}

/// Create TAP `tap_name`, move it into `ns`, give it `linux`'s MAC and address (/24), bring it
/// up, and add a permanent neighbour entry for `us` (so Linux never ARPs for our end). Our
/// file descriptor stays here: frames we write arrive at Linux on that interface, frames Linux
/// sends on it are ours to read. The device disappears when the returned [`Tap`] is dropped.
pub fn tap_into_netns(
    ns: &Netns,
    tap_name: &str,
    linux: Station,
    us: Station,
) -> Result<Tap, PeerError> {
    let tap = Tap::create(tap_name).map_err(|e| {
        PeerError::Setup(format!(
            "cannot create TAP device {tap_name} via /dev/net/tun: {e}"
        ))
    })?;
    let n = ns.name();
    ip(&["link", "set", "dev", tap_name, "netns", n])?;
    ip(&[
        "-n",
        n,
        "link",
        "set",
        "dev",
        tap_name,
        "address",
        &mac_text(&linux.mac),
    ])?;
    ip(&[
        "-n",
        n,
        "addr",
        "add",
        &format!("{}/24", ip_text(&linux.ip)),
        "dev",
        tap_name,
    ])?;
    ip(&["-n", n, "link", "set", "dev", tap_name, "up"])?;
    ip(&[
        "-n",
        n,
        "neigh",
        "replace",
        &ip_text(&us.ip),
        "lladdr",
        &mac_text(&us.mac),
        "dev",
        tap_name,
        "nud",
        "permanent",
    ])?;
    Ok(tap)
}

/// A helper process in a namespace (`ip netns exec NS tsnic <hidden subcommand> ...`); killed
/// on drop if still running. Its stdout lines come through a channel (read by a thread).
pub struct NsProcess {
    child: Child,
    lines: Receiver<String>,
    what: String,
}

impl NsProcess {
    pub fn spawn(ns: &str, args: &[String], what: &str) -> Result<NsProcess, PeerError> {
        let bin = ip_binary().ok_or_else(|| PeerError::Missing("the `ip` command".into()))?;
        let exe = std::env::current_exe()
            .map_err(|e| PeerError::Setup(format!("cannot find the tsnic executable: {e}")))?;
        let mut child = Command::new(bin)
            .args(["netns", "exec", ns])
            .arg(exe)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| PeerError::Setup(format!("cannot start the {what}: {e}")))?;
        let stdout: ChildStdout = child
            .stdout
            .take()
            .ok_or_else(|| PeerError::Setup(format!("no stdout from the {what}")))?;
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut r = BufReader::new(stdout);
            let mut s = String::new();
            loop {
                let mut byte = [0u8; 1];
                match r.read(&mut byte) {
                    Ok(1) if byte[0] == b'\n' => {
                        if tx.send(std::mem::take(&mut s)).is_err() {
                            return;
                        }
                    }
                    Ok(1) => s.push(byte[0] as char),
                    _ => {
                        if !s.is_empty() {
                            let _ = tx.send(s);
                        }
                        return;
                    }
                }
            }
        });
        Ok(NsProcess {
            child,
            lines: rx,
            what: what.to_string(),
        })
    }

    /// A stdout line that parses as `T`, if one has arrived (does not wait).
    pub fn try_json<T: DeserializeOwned>(&mut self) -> Option<T> {
        while let Ok(l) = self.lines.try_recv() {
            if let Ok(v) = serde_json::from_str::<T>(l.trim()) {
                return Some(v);
            }
        }
        None
    }

    /// Wait (up to `timeout`, giving up early on `stop`) for a stdout line that parses as `T`.
    pub fn wait_json<T: DeserializeOwned>(
        &mut self,
        timeout: Duration,
        stop: &AtomicBool,
    ) -> Result<T, PeerError> {
        let end = std::time::Instant::now() + timeout;
        loop {
            if stop.load(Ordering::Relaxed) {
                return Err(PeerError::Interrupted);
            }
            let left = end.saturating_duration_since(std::time::Instant::now());
            if left.is_zero() {
                return Err(PeerError::Peer(format!(
                    "the {} gave no result within {:.1} s",
                    self.what,
                    timeout.as_secs_f64()
                )));
            }
            match self.lines.recv_timeout(left.min(Duration::from_millis(50))) {
                Ok(l) => {
                    if let Ok(v) = serde_json::from_str::<T>(l.trim()) {
                        return Ok(v);
                    }
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    let st = self.child.wait().ok();
                    return Err(PeerError::Peer(format!(
                        "the {} ended without a result (exit: {}); see its message above",
                        self.what,
                        st.map_or("unknown".into(), |s| s.to_string())
                    )));
                }
            }
        }
    }
}

impl Drop for NsProcess {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            // Give it a moment to exit on its own (it closes its socket after reporting).
            for _ in 0..50 {
                std::thread::sleep(Duration::from_millis(10));
                if !matches!(self.child.try_wait(), Ok(None)) {
                    return;
                }
            }
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
    }
}

/// SIGINT/SIGTERM set the returned flag (instead of killing us) so the guards can clean up; a
/// second one ends the process (what was created may then stay).
pub fn stop_flag() -> Result<Arc<AtomicBool>, PeerError> {
    let f = Arc::new(AtomicBool::new(false));
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        // A second signal while the first is being handled exits at once (status 130).
        signal_hook::flag::register_conditional_shutdown(sig, 130, Arc::clone(&f))
            .map_err(|e| PeerError::Setup(format!("cannot install a signal handler: {e}")))?;
        signal_hook::flag::register(sig, Arc::clone(&f))
            .map_err(|e| PeerError::Setup(format!("cannot install a signal handler: {e}")))?;
    }
    Ok(f)
}
