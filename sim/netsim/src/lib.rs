//! Network path model and TCP receiver used to close the loop around tsnic's EDT TCP sender.
//!
//! - [`network::Network`]: a drop-tail bottleneck (rate, buffer in bytes), a one-way delay each
//!   way, optional random loss and reordering from a seeded deterministic generator, and the
//!   receivers at the far end. Time is simulated, in u64 nanoseconds; the same seed always gives
//!   the same run.
//! - [`receiver::TcpReceiver`]: cumulative ACK, SACK blocks, delayed ACK (2 segments or 40 ms),
//!   advertised window, timestamp echo; checks every payload byte.
//! - [`wire`]: its own Ethernet/IPv4/TCP codec with checksum checks.

pub mod network;
pub mod receiver;
pub mod rng;
pub mod wire;

pub use network::{serialize_ns, wire_bytes, Network, PathConfig, PathStats};
pub use receiver::{pattern_byte, RcvState, ReceiverConfig, ReceiverStats, TcpReceiver};
pub use rng::SimRng;

/// Errors of the network model.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum NetsimError {
    #[error("malformed frame: {0}")]
    Malformed(&'static str),
    #[error("bad {0} checksum")]
    BadChecksum(&'static str),
}
