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
