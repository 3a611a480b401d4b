//! Hidden subcommands run inside a network namespace by `tsnic send --peer linux`
//! (`ip netns exec NS tsnic peer-recv ...`): the Linux receiver and the kernel sender.

use std::net::SocketAddr;
use std::time::Duration;

use anyhow::{Context, Result};
use clap::Args;

use tsnic::peer::kernel::{kernel_send, receive, ReceiveConfig};

/// `tsnic peer-recv`: a plain socket receiver (one connection; prints JSON lines).
#[derive(Args, Debug)]
pub struct PeerRecvArgs {
    /// Address to listen on.
    #[arg(long)]
    pub listen: SocketAddr,
    /// SO_RCVBUF in bytes (default: the kernel's autotuning).
    #[arg(long)]
    pub rcvbuf: Option<u32>,
    /// Read at most this many bytes per second.
    #[arg(long)]
    pub read_rate: Option<u64>,
    /// Give up when nothing happens for this long.
    #[arg(long, default_value_t = 10_000)]
    pub idle_timeout_ms: u64,
    /// Write this receiver's own account (bytes read, their SHA-256, EOF, FIN acknowledged)
    /// to FILE.
    #[arg(long, value_name = "FILE")]
    pub evidence: Option<std::path::PathBuf>,
}

pub fn recv(a: PeerRecvArgs) -> Result<()> {
    let cfg = ReceiveConfig {
        listen: a.listen,
        rcvbuf: a.rcvbuf,
        read_rate: a.read_rate,
        idle_timeout: Duration::from_millis(a.idle_timeout_ms),
        evidence: a.evidence,
    };
    receive(&cfg, &mut std::io::stdout().lock())
        .with_context(|| format!("the Linux receiver on {} failed", a.listen))
}

/// `tsnic peer-kernel-send`: the kernel's TCP as sender (the baseline).
#[derive(Args, Debug)]
pub struct PeerKernelSendArgs {
    #[arg(long)]
    pub connect: SocketAddr,
    #[arg(long)]
    pub bytes: u64,
    /// Congestion control by kernel name (cubic, bbr).
    #[arg(long, default_value = "cubic")]
    pub cc: String,
    #[arg(long, default_value_t = 60_000)]
    pub timeout_ms: u64,
}

pub fn kernel(a: PeerKernelSendArgs) -> Result<()> {
    kernel_send(
        a.connect,
        a.bytes,
        &a.cc,
        Duration::from_millis(a.timeout_ms),
        &mut std::io::stdout().lock(),
    )
    .with_context(|| format!("the kernel sender to {} failed", a.connect))
}
