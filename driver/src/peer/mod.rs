//! `tsnic send --peer linux`: the EDT sender (or, as a baseline, the kernel's own TCP) in
//! front of the real Linux TCP stack, through a TAP device into a network namespace, on the
//! host clock. See docs/EDT.md, "Against Linux".
//!
//! - [`sys`]: the system-call backend (TAP, ppoll, socket options); all `unsafe` is there.
//! - [`netns`]: namespace, TAP, address and neighbour setup with `ip`, and their guards.
//! - [`path`]: the path model (rate, delay, buffer, random and burst loss) in real time.
//! - [`kernel`]: the Linux-side helpers (receiver, kernel sender) run inside the namespace.
//! - [`realtime`]: the run loops and the report.

pub mod kernel;
pub mod netns;
pub mod path;
pub mod realtime;
pub mod sys;

/// Errors of the Linux peer mode; each says what to do.
#[derive(Debug, thiserror::Error)]
pub enum PeerError {
    #[error("--peer linux needs {0}")]
    Missing(String),
    #[error("setting up the Linux side failed: {0}")]
    Setup(String),
    #[error("the Linux side: {0}")]
    Peer(String),
    #[error("TAP I/O failed: {0}")]
    Io(String),
    #[error("interrupted (SIGINT/SIGTERM); everything created was removed")]
    Interrupted,
    #[error("invalid setting: {0}")]
    Invalid(String),
    #[error(transparent)]
    Edt(#[from] crate::edt::EdtError),
}
