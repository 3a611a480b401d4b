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
pub mod run;

pub use parse::{parse_script, Script};
pub use run::{run_file, run_script, Outcome, RunOpts, ScriptResult};

/// Errors of the packetdrill front end. Each names the script and line.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum PdrillError {
    #[error("{file}:{line}: {msg}")]
    Parse {
        file: String,
        line: usize,
        msg: String,
    },
    #[error(
        "{file}: cannot read the script: {msg} (a script is a UTF-8 text file; check the path)"
    )]
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

/// The scripts named: files as given, directories searched for `*.pkt` (sorted).
pub fn collect_scripts(
    paths: &[std::path::PathBuf],
) -> Result<Vec<std::path::PathBuf>, PdrillError> {
    fn walk(d: &std::path::Path, out: &mut Vec<std::path::PathBuf>) -> Result<(), PdrillError> {
        let rd = std::fs::read_dir(d).map_err(|e| PdrillError::Io {
            file: d.display().to_string(),
            msg: e.to_string(),
        })?;
        let mut v: Vec<_> = rd.flatten().map(|e| e.path()).collect();
        v.sort();
        for p in v {
            if p.is_dir() {
                walk(&p, out)?;
            } else if p.extension().is_some_and(|e| e == "pkt") {
                out.push(p);
            }
        }
        Ok(())
    }
    let mut out = vec![];
    for p in paths {
        if p.is_dir() {
            walk(p, &mut out)?;
        } else {
            out.push(p.clone());
        }
    }
    Ok(out)
}

/// Passed, failed and skipped counts.
pub fn counts(results: &[ScriptResult]) -> (usize, usize, usize) {
    let n = |f: fn(&Outcome) -> bool| results.iter().filter(|r| f(&r.outcome)).count();
    (
        n(|o| *o == Outcome::Pass),
        n(|o| matches!(o, Outcome::Fail { .. })),
        n(|o| matches!(o, Outcome::Skip { .. })),
    )
}

/// The report: a line per script (PASS, FAIL with the first line that differed, SKIP with
/// its reason), then `N passed, M failed, K skipped`.
pub fn report(results: &[ScriptResult]) -> String {
    let mut s = String::new();
    for r in results {
        match &r.outcome {
            Outcome::Pass => s += &format!("PASS {}\n", r.file),
            Outcome::Fail { line: 0, msg } => s += &format!("FAIL {}: {msg}\n", r.file),
            Outcome::Fail { line, msg } => s += &format!("FAIL {}:{line}: {msg}\n", r.file),
            Outcome::Skip { reason } => s += &format!("SKIP {}: {reason}\n", r.file),
        }
        if !r.unmodeled.is_empty() && r.outcome != Outcome::Pass {
            s += &format!(
                "     (settings the sender does not model: {})\n",
                r.unmodeled.join(", ")
            );
        }
        if r.outcome != Outcome::Pass {
            for t in &r.trace {
                s += &format!("     {t}\n");
            }
        }
    }
    let (p, f, k) = counts(results);
    s += &format!("{p} passed, {f} failed, {k} skipped\n");
    s
}
