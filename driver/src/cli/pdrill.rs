//! `tsnic pdrill`: play Linux's packetdrill scripts against the EDT sender (src/pdrill).

use std::path::PathBuf;

use crate::cli::out::out;
use anyhow::{bail, Result};
use clap::Args;
use tsnic::pdrill::{self, RunOpts, ScriptResult};

/// Arguments of `tsnic pdrill`.
#[derive(Args, Debug)]
pub struct PdrillArgs {
    /// Scripts (`*.pkt`) or directories to search for them, e.g. the shared set's `tcp/`.
    #[arg(required = true)]
    pub scripts: Vec<PathBuf>,
    /// Diagnostic: do not compare the PSH flag. Shows what differs after a PSH difference; a
    /// script passing only with this flag does not pass.
    #[arg(long)]
    pub no_psh: bool,
    /// Print, per script that did not pass, the packets in and out up to the failure.
    #[arg(long)]
    pub trace: bool,
}

pub fn run(args: PdrillArgs) -> Result<()> {
    let files = pdrill::collect_scripts(&args.scripts)?;
    if files.is_empty() {
        bail!("no *.pkt scripts found in the paths given");
    }
    let opts = RunOpts {
        ignore_psh: args.no_psh,
        trace: args.trace,
    };
    let mut results: Vec<ScriptResult> = Vec::new();
    for f in &files {
        match pdrill::run_file(f, opts) {
            Ok(r) => results.push(r),
            // a script that does not parse fails, with its line
            Err(e) => results.push(ScriptResult {
                file: f.display().to_string(),
                outcome: match e {
                    pdrill::PdrillError::Parse { line, msg, .. } => {
                        pdrill::Outcome::Fail { line, msg }
                    }
                    pdrill::PdrillError::Io { msg, .. } => pdrill::Outcome::Fail {
                        line: 0,
                        msg: format!(
                            "cannot read the script: {msg} (a script is a UTF-8 text file; check the path)"
                        ),
                    },
                },
                unmodeled: vec![],
                trace: vec![],
            }),
        }
    }
    out!("{}", pdrill::report(&results));
    let (_, failed, _) = pdrill::counts(&results);
    if failed > 0 {
        bail!(
            "{failed} of {} scripts failed (first differing line of each above)",
            results.len()
        );
    }
    Ok(())
}
