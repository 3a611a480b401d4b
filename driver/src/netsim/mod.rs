//! Network path model and TCP receiver used to close the loop around tsnic's EDT TCP sender
//! (`tsnic send`, [`crate::edt::run`]). Built with the `sim` feature only: a driver for a real
//! card has no use for it.
//!
//! - [`network::Network`]: a drop-tail bottleneck (rate, buffer in bytes), a one-way delay each
//!   way, optional random loss and reordering from a seeded deterministic generator, and the
//!   receivers at the far end. Time is simulated, in u64 nanoseconds; the same seed always gives
//!   the same run.
//! - [`receiver::TcpReceiver`]: cumulative ACK, SACK blocks, delayed ACK (2 segments or 40 ms),
//!   SACK compression, advertised window, timestamp echo; checks every payload byte.
//! - [`gro`]: the receiving host's NAPI poll and GRO (optional, [`ReceiverConfig::gro`]).
//! - [`wire`]: its own Ethernet/IPv4/TCP codec with checksum checks.

//!
//! It uses the driver's own helpers rather than copies: [`crate::rng::SeededRng`] for loss and
//! reordering, [`crate::wire_time`] for the bottleneck's serialization time and
//! [`crate::edt::frame::pattern_byte`] to check payload bytes. Its frame codec ([`wire`]) is its own
//! on purpose (see there).

pub mod gro;
pub mod network;
pub mod receiver;
pub mod wire;

pub use gro::GroConfig;
pub use network::{Network, PathConfig, PathStats};
pub use receiver::{RcvState, ReceiverConfig, ReceiverStats, TcpReceiver};

/// Errors of the network model.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum NetsimError {
    #[error("malformed frame: {0}")]
    Malformed(&'static str),
    #[error("bad {0} checksum")]
    BadChecksum(&'static str),
}
