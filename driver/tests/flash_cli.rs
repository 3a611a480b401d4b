//! `tsnic flash` as a user runs it, on the flash model kept in a file: separate commands see the
//! same card; refusals exit non-zero and leave the flash file byte for byte as it was.

use std::path::{Path, PathBuf};
use std::process::Command;

fn tsnic_env(args: &[&str], home: Option<&Path>) -> (bool, String, String) {
    let mut c = Command::new(env!("CARGO_BIN_EXE_tsnic"));
    c.args(args);
    if let Some(h) = home {
        c.env("HOME", h).env_remove("XDG_CACHE_HOME");
    }
    let out = c.output().expect("run tsnic");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn tmpdir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("tsnic-flash-cli-{}-{name}", std::process::id()));
    std::fs::remove_dir_all(&d).ok();
    std::fs::create_dir_all(&d).unwrap();
    d
}

struct Card {
    dir: PathBuf,
    file: String,
    board: &'static str,
}

impl Card {
    fn new(name: &str, board: &'static str) -> Card {
        let dir = tmpdir(name);
        let file = dir.join("flash.img").display().to_string();
        Card { dir, file, board }
    }
    fn run(&self, args: &[&str]) -> (bool, String, String) {
        let mut a: Vec<&str> = vec!["flash", "--flash-file", &self.file, "--board", self.board];
        a.extend_from_slice(args);
        tsnic_env(&a, None)
    }
    fn path(&self, f: &str) -> String {
        self.dir.join(f).display().to_string()
    }
    fn bytes(&self) -> Vec<u8> {
        std::fs::read(&self.file).unwrap()
    }
}

impl Drop for Card {
    fn drop(&mut self) {
        std::fs::remove_dir_all(&self.dir).ok();
    }
}

#[test]
fn write_both_slots_boot_each_across_commands() {
    let c = Card::new("e2e", "u50");
    let (ok, out, err) = c.run(&["info"]);
    assert!(ok, "{err}");
    assert!(out.contains("JEDEC ID 20 bb 21, 128 MB"), "{out}");
    assert!(out.contains("running        golden"), "{out}");
    assert!(out.contains("golden write-protected"), "{out}");
    let (a, b) = (c.path("a.bit"), c.path("b.bit"));
    assert!(
        c.run(&["test-image", &a, "--size", "200K", "--seed", "1"])
            .0
    );
    assert!(
        c.run(&["test-image", &b, "--size", "150K", "--seed", "2"])
            .0
    );
    let (ok, out, err) = c.run(&["write", &a]);
    assert!(ok, "{err}");
    assert!(
        out.contains("wrote slot A") && out.contains("verified"),
        "{out}"
    );
    assert!(out.contains("generation 1"), "{out}");
    let (ok, out, err) = c.run(&["boot", "A"]);
    assert!(ok && out.contains("running A"), "{out}{err}");
    // A runs: the next write goes to B
    let (ok, out, err) = c.run(&["write", &b]);
    assert!(
        ok && out.contains("wrote slot B") && out.contains("generation 2"),
        "{out}{err}"
    );
    let (ok, out, err) = c.run(&["verify"]);
    assert!(ok, "{out}{err}");
    assert_eq!(out.matches("ok (data matches").count(), 3, "{out}");
    let (ok, out, _) = c.run(&["power-cycle"]);
    assert!(ok && out.contains("running B"), "{out}");
    let (ok, out, _) = c.run(&["info", "--json"]);
    assert!(ok);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["running"], "B");
    assert_eq!(v["record"][1]["generation"], 2);
    assert_eq!(v["slots"][1]["header"]["data_len"], 200 * 1024);
    let (ok, out, _) = c.run(&["boot", "golden"]);
    assert!(ok && out.contains("running golden"), "{out}");
    // the same card through the register interface (mem backend + controller model)
    let (ok, out, err) = c.run(&["--backend", "mem", "boot", "A", "--default"]);
    assert!(ok && out.contains("running A"), "{out}{err}");
    let (ok, out, _) = c.run(&["power-cycle"]);
    assert!(ok && out.contains("running A"), "{out}");
    let (ok, out, err) = c.run(&["--backend", "mem", "write", &b]);
    assert!(
        ok && out.contains("wrote slot B") && out.contains("per KB"),
        "{out}{err}"
    );
}

#[test]
fn refusals_exit_non_zero_and_write_nothing() {
    let c = Card::new("refuse", "u50");
    assert!(c.run(&["info"]).0);
    let good = c.path("good.bit");
    assert!(c.run(&["test-image", &good, "--size", "64K"]).0);
    let before = c.bytes();
    let refused = |args: &[&str], want: &str| {
        let (ok, out, err) = c.run(args);
        assert!(!ok, "{args:?} succeeded: {out}");
        assert!(err.contains(want), "{args:?}: {err}");
        assert!(err.contains("nothing was written"), "{args:?}: {err}");
        assert!(c.bytes() == before, "{args:?} changed the flash file");
    };
    // wrong part
    let u280 = c.path("u280.bit");
    assert!(
        c.run(&[
            "test-image",
            &u280,
            "--size",
            "64K",
            "--part",
            "xcu280-fsvh2892-2L-e"
        ])
        .0
    );
    refused(&["write", &u280], "build the design for xcu50");
    // oversize: one byte more than a slot holds
    let big = c.path("big.bin");
    let mut data = vec![0u8; 0x02FF_0000 - 4096 + 1];
    data[64..68].copy_from_slice(&[0xAA, 0x99, 0x55, 0x66]);
    std::fs::write(&big, &data).unwrap();
    drop(data);
    refused(
        &["write", &big, "--part", "xcu50-fsvh2104-2-e"],
        "do not fit slot A",
    );
    // missing sync word: a .bin of zeros
    let nosync = c.path("zeros.bin");
    std::fs::write(&nosync, vec![0u8; 8192]).unwrap();
    refused(
        &["write", &nosync, "--part", "xcu50-fsvh2104-2-e"],
        "no sync word",
    );
    // a .bin without --part
    let bin = c.path("img.bin");
    let f = std::fs::read(&good).unwrap();
    let at = f
        .windows(4)
        .position(|w| w == [0xAA, 0x99, 0x55, 0x66])
        .unwrap();
    std::fs::write(&bin, &f[at - 80..]).unwrap();
    refused(&["write", &bin], "--part");
    // golden without the flag
    refused(
        &["write", &good, "--slot", "golden"],
        "--i-know-this-can-brick-the-card-golden",
    );
    // not a bitstream at all
    let txt = c.path("notes.bit");
    std::fs::write(&txt, "hello").unwrap();
    refused(&["write", &txt], "not a Vivado .bit");
    // booting an empty slot changes nothing either
    let (ok, _, err) = c.run(&["boot", "B"]);
    assert!(!ok && err.contains("holds no complete image"), "{err}");
    assert!(c.bytes() == before);
    // and the golden write with the flag does happen
    let (ok, out, err) = c.run(&[
        "write",
        &good,
        "--slot",
        "golden",
        "--i-know-this-can-brick-the-card-golden",
    ]);
    assert!(ok && out.contains("wrote slot golden"), "{out}{err}");
    assert!(c.bytes() != before);
    let (_, out, _) = c.run(&["info"]);
    assert!(out.contains("golden write-protected"), "{out}");
}

/// A slot that fails to configure: the FPGA falls back to address 0, AMD's factory image, which stays
/// (its MultiBoot IPROG is ignored in a fallback); `tsnic flash` says so, and the factory region of
/// the flash file is never written.
#[test]
fn a_failed_slot_lands_in_the_factory_image() {
    let c = Card::new("factory", "u50");
    let (ok, out, err) = c.run(&["info"]);
    assert!(ok, "{err}");
    assert!(
        out.contains("factory        0x00000000..0x01002000  AMD's factory image"),
        "{out}"
    );
    assert!(
        out.contains("golden         0x01002000..0x02000000"),
        "{out}"
    );
    assert!(
        out.contains("factory image write-protected, golden write-protected"),
        "{out}"
    );
    let factory = c.bytes()[..0x0100_2000].to_vec();
    let (a, b) = (c.path("a.bit"), c.path("b.bit"));
    assert!(
        c.run(&["test-image", &a, "--size", "100K", "--seed", "1"])
            .0
    );
    assert!(
        c.run(&["test-image", &b, "--size", "100K", "--seed", "2"])
            .0
    );
    assert!(c.run(&["write", &a]).0);
    assert!(c.run(&["boot", "A"]).0);
    let (ok, _, err) = c.run(&["write", &b]);
    assert!(ok, "{err}");
    // B rots in the flash file; the record selects B
    let mut f = c.bytes();
    f[0x04FF_0000 + 5000] ^= 0xFF;
    std::fs::write(&c.file, &f).unwrap();
    let (ok, out, err) = c.run(&["power-cycle"]);
    assert!(ok, "{err}");
    assert!(
        out.contains("runs AMD's factory image") && out.contains("B ("),
        "{out}"
    );
    let (ok, _, err) = c.run(&["info"]);
    assert!(!ok, "info on the factory image succeeded");
    assert!(
        err.contains("runs AMD's factory image") && err.contains("JTAG"),
        "{err}"
    );
    // through the register path too: the factory image has no tsnic registers at all
    let (ok, _, err) = c.run(&["--backend", "mem", "info"]);
    assert!(!ok && err.contains("runs AMD's factory image"), "{err}");
    assert!(
        c.bytes()[..0x0100_2000] == factory[..],
        "the factory region changed"
    );
}

/// Issue 34 item 6: `test-image` never overwrites a file, and never the flash model's own files.
#[test]
fn test_image_never_overwrites_and_never_targets_the_flash_file() {
    let c = Card::new("testimg", "u50");
    assert!(c.run(&["info"]).0);
    let flash = c.bytes();
    let state = format!("{}.state.json", c.file);
    let state_before = std::fs::read(&state).unwrap();
    // the flash file itself (it exists) and its state file
    for target in [c.file.clone(), state.clone()] {
        let (ok, out, err) = c.run(&["test-image", &target, "--size", "1M"]);
        assert!(!ok, "test-image over {target} succeeded: {out}");
        assert!(err.contains("flash model"), "{err}");
        assert!(err.contains("choose another"), "{err}");
    }
    assert!(c.bytes() == flash, "the flash file changed");
    assert_eq!(std::fs::read(&state).unwrap(), state_before);
    // the flash file of another command line, not created yet: still refused by name
    let other = c.path("other.img");
    let (ok, _, err) = tsnic_env(
        &[
            "flash",
            "--flash-file",
            &other,
            "test-image",
            &other,
            "--size",
            "64K",
        ],
        None,
    );
    assert!(!ok && err.contains("flash model"), "{err}");
    assert!(!Path::new(&other).exists());
    // any existing file: refused, left as it was
    let notes = c.path("notes.bit");
    std::fs::write(&notes, "keep me").unwrap();
    let (ok, _, err) = c.run(&["test-image", &notes, "--size", "64K"]);
    assert!(!ok, "test-image overwrote an existing file");
    assert!(
        err.contains("exists") && err.contains("another name"),
        "{err}"
    );
    assert_eq!(std::fs::read_to_string(&notes).unwrap(), "keep me");
    // a new name works
    let fresh = c.path("fresh.bit");
    let (ok, out, err) = c.run(&["test-image", &fresh, "--size", "64K"]);
    assert!(ok && out.contains("wrote"), "{out}{err}");
}

/// Issue 34 item 8: a flash model whose state file was deleted keeps its protection (tsnic always
/// leaves SR 0x68) and says what happened, instead of silently showing golden unprotected.
#[test]
fn a_missing_state_file_keeps_the_protection_and_says_so() {
    let c = Card::new("nostate", "u50");
    assert!(c.run(&["info"]).0);
    std::fs::remove_file(format!("{}.state.json", c.file)).unwrap();
    let (ok, out, err) = c.run(&["info"]);
    assert!(ok, "{err}");
    assert!(
        out.contains("factory image write-protected, golden write-protected"),
        "{out}"
    );
    assert!(
        err.contains("state file") && err.contains("missing"),
        "{err}"
    );
    // the restored state is saved: the next command says nothing more
    let (ok, out, err) = c.run(&["info"]);
    assert!(ok && out.contains("golden write-protected"), "{out}");
    assert!(!err.contains("missing"), "{err}");
}

/// Issue 34 item 9: after `verify` fails on the running slot (the record's choice), its advice is a
/// command that can be run as printed, and that write is accepted (the slot is no known-good image).
#[test]
fn verify_failure_on_the_running_slot_gives_a_command_that_works() {
    let c = Card::new("verify9", "u50");
    let a = c.path("a.bit");
    assert!(
        c.run(&["test-image", &a, "--size", "100K", "--seed", "1"])
            .0
    );
    assert!(c.run(&["write", &a]).0);
    let (ok, out, err) = c.run(&["boot", "A"]);
    assert!(ok && out.contains("running A"), "{out}{err}");
    // A's data rots in the flash while it runs
    let mut f = c.bytes();
    f[0x0200_0000 + 7000] ^= 0x01;
    std::fs::write(&c.file, &f).unwrap();
    let (ok, out, err) = c.run(&["verify"]);
    assert!(!ok, "{out}");
    assert!(!err.contains("SLOT"), "advice names no slot: {err}");
    let want = format!(
        "tsnic flash --board u50 --flash-file {} write IMAGE --slot A",
        c.file
    );
    assert!(err.contains(&want), "{err}");
    // the advice, as printed (IMAGE = the image to put back)
    let (ok, out, err) = c.run(&["write", &a, "--slot", "A"]);
    assert!(ok, "{out}{err}");
    assert!(out.contains("wrote slot A"), "{out}");
    let (ok, out, err) = c.run(&["verify"]);
    assert!(ok, "{out}{err}");
    let (ok, out, _) = c.run(&["power-cycle"]);
    assert!(ok && out.contains("running A"), "{out}");
}

#[test]
fn sume_says_jtag() {
    let c = Card::new("sume", "sume");
    let (ok, _, err) = c.run(&["info"]);
    assert!(
        !ok && err.contains("behind its CPLD") && err.contains("JTAG"),
        "{err}"
    );
    let img = c.path("s.bit");
    assert!(c.run(&["test-image", &img, "--size", "64K"]).0);
    let before = c.bytes();
    let (ok, _, err) = c.run(&["write", &img]);
    assert!(!ok && err.contains("JTAG"), "{err}");
    assert!(c.bytes() == before);
}

#[test]
fn default_flash_file_is_under_the_cache_folder() {
    let home = tmpdir("home");
    let (ok, out, err) = tsnic_env(&["flash", "--board", "u280", "info"], Some(&home));
    assert!(ok, "{err}");
    let f = home.join(".cache/tsnic/flash-u280.img");
    assert!(out.contains(&f.display().to_string()), "{out}");
    assert_eq!(std::fs::metadata(&f).unwrap().len(), 128 << 20);
    // the same file is another board's flash: refused
    let (ok, _, err) = tsnic_env(
        &[
            "flash",
            "--board",
            "u50",
            "--flash-file",
            &f.display().to_string(),
            "info",
        ],
        Some(&home),
    );
    assert!(!ok && err.contains("not a u50"), "{err}");
    std::fs::remove_dir_all(&home).ok();
}

/// A card whose bitstream has no FLASH register block (FLASH_CAP reads 0; here the `mem` register
/// file with no card behind it): the register driver says so and how to get on, instead of misreading
/// registers.
#[test]
fn a_card_without_the_flash_block_is_told_apart() {
    use tsnic::device::mem::MemBackend;
    use tsnic::flash::regs::RegFlash;
    use tsnic::flash::FlashDevice;
    let mut b = MemBackend::new_identity();
    let mut dev = RegFlash::new(&mut b);
    let err = dev
        .cap()
        .expect_err("FLASH_CAP 0 is no flash controller")
        .to_string();
    assert!(
        err.contains("no flash controller") && err.contains("--backend model"),
        "{err}"
    );
}
