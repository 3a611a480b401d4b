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
