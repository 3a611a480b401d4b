//! A packetdrill front end for the EDT sender (`tsnic pdrill`, issue 36 item 1).
//!
//! Linux's TCP behaviour is specified by its packetdrill scripts (google/packetdrill
//! `gtests/net/tcp`): inbound packets and socket calls at given times, the outbound packets and
//! `tcp_info` values Linux must produce. [`parse`] reads the script syntax the shared set uses
//! (upstream's grammar, /work/shared/conformance/packetdrill/syntax.md); the runner plays a
//! script against a [`crate::edt::sender::TcpSender`] in simulated time.
//!
//! Built from the syntax description and the scripts' text; no packetdrill code is used.

pub mod parse;

pub use parse::{parse_script, Script};

/// Errors of the packetdrill front end. Each names the script and line.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum PdrillError {
    #[error("{file}:{line}: {msg}")]
    Parse {
        file: String,
        line: usize,
        msg: String,
    },
    #[error("{file}: cannot read the script: {msg} (check the path)")]
    Io { file: String, msg: String },
}

/// Where the shared script set lives: `TSNIC_PDRILL_DIR`, else `shared/conformance/packetdrill`
/// beside the repository (`../shared` of /work/main, `../../shared` of a worktree in /work/wt).
pub fn shared_set_dir() -> Option<std::path::PathBuf> {
    if let Some(d) = std::env::var_os("TSNIC_PDRILL_DIR") {
        return Some(d.into());
    }
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    ["../shared", "../../shared"]
        .iter()
        .map(|s| repo.join(s).join("conformance/packetdrill"))
        .find(|p| p.join("tcp").is_dir())
}
