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
        self.flash_on("sim:small", "generic", args)
    }
    /// `tsnic flash --backend BACKEND --board BOARD ARGS` with this folder's flash file and state.
    fn flash_on(&self, backend: &str, board: &str, args: &[&str]) -> (bool, String) {
        let (file, state) = (self.path("flash.img"), self.path("card.state"));
        let mut a: Vec<&str> = vec!["flash", "--backend", backend, "--board", board];
        a.extend_from_slice(&["--flash-file", &file]);
        a.extend_from_slice(args);
        // (the board build is not kept between commands: a fresh one, asked for as such)
        let state = if backend.starts_with("sim:board") {
            "none".to_string()
        } else {
            state
        };
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

/// `tsnic flash` on the board build (issue 31): the flash model on tsnic_board_core's quad-SPI and
/// ICAP pins. On the U50 build (FLASH_WRITABLE 1, as tsnic_alveo_top.v has it) `info` reads the
/// part's JEDEC ID through the flash controller RTL and the pins, and the startup ICAP reads (WBSTAR,
/// BOOTSTS) see the configuration model: golden running. On the SUME (`sim:board`: its flash is
/// behind the board's CPLD, FLASH_WRITABLE 0 in board/netfpga_sume/rtl/fpga.v) the same command says
/// the flash is out of reach. (A write needs erase times of 50 ms and more of simulated time, which
/// the board, stepping every edge, spends in about a minute: not here.)
#[cfg(feature = "alveo")]
#[test]
fn board_flash_info_through_the_board_core_pins() {
    let card = Card::new("board");
    let (ok, out) = card.flash_on("sim:board=u50", "u50", &["info"]);
    assert!(ok, "{out}");
    assert!(line(&out, "backend").contains("sim:board=u50"), "{out}");
    assert!(line(&out, "flash").contains("JEDEC ID 20 bb 21"), "{out}");
    assert!(line(&out, "running").contains("golden"), "{out}");
    let (ok, out) = card.flash_on("sim:board", "sume", &["info"]);
    assert!(!ok, "{out}");
    assert!(out.contains("sume"), "{out}");
}

/// `tsnic flash` on the board build runs on a fresh board (the flash configures it at power-up; the
/// board card of other commands is kept: `cosim_board`): asked to keep one (TSNIC_SIM_STATE naming
/// a file, or `state=`), it says so and what to do instead, and does nothing.
#[cfg(feature = "board")]
#[test]
fn board_flash_refuses_a_state_file_and_names_the_fix() {
    let card = Card::new("boardstate");
    let state = card.path("card.state");
    let file = card.path("flash.img");
    for (spec, env) in [
        ("sim:board", Some(state.as_str())),
        (&*format!("sim:board,state={state}"), None),
    ] {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_tsnic"));
        cmd.args([
            "flash",
            "--backend",
            spec,
            "--board",
            "sume",
            "--flash-file",
            &file,
            "info",
        ]);
        match env {
            Some(v) => cmd.env("TSNIC_SIM_STATE", v),
            None => cmd.env_remove("TSNIC_SIM_STATE"),
        };
        let out = cmd.output().expect("run tsnic");
        let text = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{spec}: {text}");
        assert!(
            text.contains("runs on a fresh board") && text.contains("=none"),
            "{spec}: {text}"
        );
        assert!(!std::path::Path::new(&state).exists());
    }
}
