//! The EDT TCP sender: a TCP sender that decides *when* each segment may leave, the way
//! Linux's Earliest Departure Time model does, and hands frames with their launch time to a
//! card ([`card::TxPort`]).
//!
//! See docs/EDT.md for the design and which Linux function each part mirrors.
//!
//! The sender itself (everything but `card_sim` and `run`) is driver code and builds without
//! the simulator. `card_sim` (the sender on the Verilated card) and `run` (the closed loop over
//! the simulated network, `tsnic send`) need the `sim` feature.

pub mod card;
#[cfg(feature = "sim")]
pub mod card_sim;
pub mod cc;
pub mod frame;
pub mod pacing;
pub mod pcap;
pub mod recovery;
pub mod rtt;
#[cfg(feature = "sim")]
pub mod run;
pub mod sender;
pub mod timer;

/// Errors of the EDT sender library.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum EdtError {
    #[error("bad frame: {0}")]
    BadFrame(&'static str),
    #[error("bad path description: {0}")]
    BadPath(String),
    #[error("invalid setting: {0}")]
    Invalid(String),
    #[error("simulated card: {0}")]
    Card(String),
    #[error("pcap output failed: {0}")]
    Pcap(String),
}
