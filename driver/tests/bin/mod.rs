//! The `tsnic` binary as a user runs it (`mod bin;` in the suites that need it). Kept apart from
//! `common`, which needs the `sim` feature: cli_driver also runs without it.

use std::process::Command;

/// Runs `tsnic ARGS`: (exited 0, stdout, stderr).
pub fn tsnic(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_tsnic"))
        .args(args)
        .output()
        .expect("run tsnic");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}
