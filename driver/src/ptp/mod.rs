//! PTP on the card: an IEEE 1588-2019 ordinary clock on the card's own hardware stamps (issue 33).
//!
//! - [`msg`]: the messages (Sync, Delay_Req, Follow_Up, Delay_Resp, Announce) and the L2 and
//!   UDP/IPv4 transports;
//! - [`bmca`]: data set comparison and state decision for one domain;
//! - [`clock`]: the ordinary clock as a state machine (E2E delay request-response, two-step Sync,
//!   the PI servo of [`crate::phc::PiServo`] with ptp4l's constants);
//! - [`model`]: two clocks on an ideal network in pure Rust (tests, the servo's property tests);
//! - [`card`]: the clock run on a card: frames through the TX and RX rings, departure stamps from
//!   the completions, arrival stamps from the RX completions, the PHC stepped and trimmed through
//!   its registers;
//! - [`beside`]: the clock turned by a push, replay or send that holds the card (`--ptp`);
//! - [`timebase`]: the EDT sender's monotonic time to a disciplined PHC and back;
//! - [`path_master`]: a grandmaster in software at the far end of `tsnic send`'s path model;
//! - [`saved`]: what a clock leaves for the next command's (its master, servo, path delay);
//! - [`pair`] (sim): two Verilated cards in one process joined by a wire model;
//! - [`pair_job`] (sim): the pair with the slave card held by a command (push with `--ptp`);
//! - [`linux`] (sim): the clock on a simulated card paced to wall time against linuxptp's ptp4l in
//!   a network namespace behind a TAP device.
//!
//! docs/PTP.md says how it fits together and what is left.

pub mod beside;
pub mod bmca;
pub mod card;
pub mod clock;
#[cfg(feature = "sim")]
pub mod linux;
pub mod model;
pub mod msg;
#[cfg(feature = "sim")]
pub mod pair;
#[cfg(feature = "sim")]
pub mod pair_job;
pub mod path_master;
pub mod saved;
pub mod timebase;

pub use clock::{Action, Config, OrdinaryClock, PortState, Report, Role, Sample, TxKind};
pub use msg::{Addr, Transport};
