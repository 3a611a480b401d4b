//! Scratch files for a test: a directory per test (the test harness names each test's thread after
//! the test), removed when the test's [`Scratch`] guard goes out of scope, also when it fails.
//! For suites that call `tmp(name)` from many places; co-simulation suites that name their
//! directory use `common::scratch_dir` (tests/common needs the simulator, and cli_driver also runs
//! without it).

use std::path::PathBuf;

/// This test's scratch directory.
fn dir() -> PathBuf {
    let test = std::thread::current()
        .name()
        .unwrap_or("main")
        .replace("::", "-");
    std::env::temp_dir().join(format!("tsnic-test-{}-{test}", std::process::id()))
}

/// A file `name` in this test's scratch directory (created on first use).
pub fn tmp(name: &str) -> PathBuf {
    let d = dir();
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

/// Removes this test's scratch directory when dropped: `let _scratch = Scratch;` first in a test.
pub struct Scratch;

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(dir());
    }
}
