//! Setup shared by the co-simulation test suites (`mod common;` in each).

use std::path::{Path, PathBuf};

/// The repository root.
#[allow(dead_code)] // not every suite needs it
pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// False (after saying why) when the core has not landed; panics when it exists but did not build.
pub fn core_ready() -> bool {
    match tsnic_sim::core_unavailable() {
        None => true,
        Some(why) if !repo().join("hdl/rtl/tsnic_core.v").exists() => {
            eprintln!("SKIPPED: no RTL core yet: {why}");
            false
        }
        Some(why) => panic!("hdl/rtl/tsnic_core.v exists but the simulator was not built: {why}"),
    }
}

/// A fresh, empty directory under the temp dir for one test: `tsnic-<suite>-<name>-<pid>`, removed
/// when the returned guard is dropped (also when the test fails); it derefs to the path.
#[allow(dead_code)]
pub fn scratch_dir(suite: &str, name: &str) -> ScratchDir {
    let d = std::env::temp_dir().join(format!("tsnic-{suite}-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    ScratchDir(d)
}

/// See [`scratch_dir`].
pub struct ScratchDir(pub PathBuf);

impl std::ops::Deref for ScratchDir {
    type Target = std::path::Path;
    fn deref(&self) -> &std::path::Path {
        &self.0
    }
}

impl AsRef<std::path::Path> for ScratchDir {
    fn as_ref(&self) -> &std::path::Path {
        &self.0
    }
}

impl Drop for ScratchDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// splitmix64: a small, fixed random source so a failing seed can be rerun (suites that draw random
/// programs: cosim_fastforward, cosim_kept_card).
#[allow(dead_code)]
pub struct Rng(pub u64);

#[allow(dead_code)]
impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.below(hi - lo + 1)
    }
}

/// Wall-clock seconds one bounded piece of a co-simulation test may take before [`within_wall`]
/// fails it: `TSNIC_TEST_WALL_S`, else 300 (the pieces take seconds; a hang runs on forever, e.g. a
/// planted mutant that skips a MAC clock edge without advancing the board's time).
#[allow(dead_code)]
pub fn wall_limit() -> std::time::Duration {
    let s = std::env::var("TSNIC_TEST_WALL_S")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
        .unwrap_or(300);
    std::time::Duration::from_secs(s.max(1))
}

/// Runs `f` on its own thread and returns its result, or fails the test with a message naming `what`
/// when it has not finished within [`wall_limit`] (a watchdog: a hung simulation would otherwise hold
/// the suite, and `make test`, until killed). A panic in `f` is passed on as the test's failure. The
/// abandoned thread keeps running until the test binary exits.
#[allow(dead_code)]
pub fn within_wall<T: Send + 'static>(what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let limit = wall_limit();
    let (tx, rx) = std::sync::mpsc::channel();
    let worker = std::thread::Builder::new()
        .name(what.to_string())
        .spawn(move || {
            let _ = tx.send(f());
        })
        .expect("spawn the watched thread");
    match rx.recv_timeout(limit) {
        Ok(v) => {
            let _ = worker.join();
            v
        }
        Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => match worker.join() {
            // the thread panicked: its message is already printed; fail with it
            Err(p) => std::panic::resume_unwind(p),
            Ok(()) => panic!("{what}: the watched thread ended without a result"),
        },
        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => panic!(
            "{what}: not finished after {} s of wall time: the simulated card or the program hangs \
             (a loop that never advances simulated time, or a wait that never ends); \
             TSNIC_TEST_WALL_S sets the limit",
            limit.as_secs()
        ),
    }
}
