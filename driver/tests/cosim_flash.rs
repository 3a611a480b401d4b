//! `tsnic flash` on the Verilated card: the flash controller RTL (tsnic_flash_ctrl.v) drives the Rust
//! NOR flash model through its quad-SPI pins and reconfigures through its ICAP port; separate commands
//! see the same card (state file) and the same flash (flash file), as on a real card.

use std::path::PathBuf;
use std::process::Command;

struct Card {
    dir: PathBuf,
}

impl Card {
    fn new(name: &str) -> Card {
        let dir =
            std::env::temp_dir().join(format!("tsnic-cosim-flash-{}-{name}", std::process::id()));
        std::fs::remove_dir_all(&dir).ok();
        std::fs::create_dir_all(&dir).unwrap();
        Card { dir }
    }
    fn path(&self, f: &str) -> String {
        self.dir.join(f).display().to_string()
    }
    /// `tsnic flash ARGS` on the small simulated card kept in this folder.
    fn flash(&self, args: &[&str]) -> (bool, String) {
        let (file, state) = (self.path("flash.img"), self.path("card.state"));
        let mut a: Vec<&str> = vec!["flash", "--backend", "sim:small", "--board", "generic"];
        a.extend_from_slice(&["--flash-file", &file]);
        a.extend_from_slice(args);
        let out = Command::new(env!("CARGO_BIN_EXE_tsnic"))
            .args(&a)
            .env("TSNIC_SIM_STATE", &state)
            .output()
            .expect("run tsnic");
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        (out.status.success(), text)
    }
}

impl Drop for Card {
    fn drop(&mut self) {
        std::fs::remove_dir_all(&self.dir).ok();
    }
}

fn line<'a>(text: &'a str, key: &str) -> &'a str {
    text.lines()
        .find(|l| l.starts_with(key))
        .unwrap_or_else(|| panic!("no `{key}` line in:\n{text}"))
}

#[test]
fn write_boot_and_write_again_through_the_rtl() {
    let card = Card::new("slots");
    let (a, b) = (card.path("a.bit"), card.path("b.bit"));
    for (img, seed) in [(&a, "1"), (&b, "2")] {
        let (ok, out) = card.flash(&["test-image", img, "--size", "8K", "--seed", seed]);
        assert!(ok, "{out}");
    }
    // a card fresh from the factory: golden runs, identified through the controller's READ ID
    let (ok, out) = card.flash(&["info"]);
    assert!(ok, "{out}");
    assert!(line(&out, "flash").contains("JEDEC ID 20 bb 21"), "{out}");
    assert!(line(&out, "running").contains("golden"), "{out}");

    // write (erase, program, read back through the RTL), then IPROG into it
    let (ok, out) = card.flash(&["write", &a]);
    assert!(ok, "{out}");
    assert!(out.contains("wrote slot A"), "{out}");
    let (ok, out) = card.flash(&["boot", "A"]);
    assert!(ok, "{out}");
    let (ok, out) = card.flash(&["info"]);
    assert!(ok, "{out}");
    assert!(line(&out, "running").contains('A'), "{out}");

    // the next write goes to the slot not running, and verify reads both back
    let (ok, out) = card.flash(&["write", &b]);
    assert!(ok, "{out}");
    assert!(out.contains("wrote slot B"), "{out}");
    let (ok, out) = card.flash(&["verify"]);
    assert!(ok, "{out}");
    assert!(line(&out, "A ").contains("ok"), "{out}");
    assert!(line(&out, "B ").contains("ok"), "{out}");
    let (ok, out) = card.flash(&["boot", "B"]);
    assert!(ok, "{out}");
    assert!(out.contains("running B"), "{out}");
}
