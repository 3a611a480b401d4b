//! The driver-core subcommands as a user runs them: `tsnic info`, `tsnic stats`, `tsnic phc` on the
//! `mem` backend (no card, PHC = Rust model of the RTL), and their errors on this machine.

use std::process::Command;

fn tsnic(args: &[&str]) -> (bool, String, String) {
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

#[test]
fn info_and_stats_on_mem() {
    let (ok, out, err) = tsnic(&["info", "--backend", "mem"]);
    assert!(ok, "{err}");
    assert!(
        out.contains("contract version  1.0") && out.contains("TX queues         8"),
        "{out}"
    );
    let (ok, out, err) = tsnic(&["info", "--backend", "mem", "--json"]);
    assert!(ok, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    assert_eq!(v["caps"]["num_queues"], 8);
    let (ok, out, _) = tsnic(&["stats", "--backend", "mem", "--all"]);
    assert!(
        ok && out.contains("dropped_horizon") && out.lines().count() >= 9 + 2 + 8,
        "{out}"
    );
    let (ok, _, err) = tsnic(&["stats", "--backend", "mem", "--queue", "8"]);
    assert!(
        !ok && err.contains("queue 8 does not exist: the card has 8 queues"),
        "{err}"
    );
}

#[test]
fn phc_commands_on_mem() {
    let (ok, out, err) = tsnic(&["phc", "--backend", "mem", "get"]);
    assert!(ok && out.contains("freq       0 ppb"), "{out}{err}");
    let (ok, out, _) = tsnic(&["phc", "--backend", "mem", "set", "5000000000"]);
    assert!(ok && out.contains("phc set to 5.000000000 s"), "{out}");
    let (ok, out, _) = tsnic(&["phc", "--backend", "mem", "adj", "+2us"]);
    assert!(ok && out.contains("adjusted by +2000 ns"), "{out}");
    let (ok, _, err) = tsnic(&["phc", "--backend", "mem", "freq", "20000000"]);
    assert!(!ok && err.contains("outside +/-10000000 ppb"), "{err}");
    let (ok, out, err) = tsnic(&[
        "phc",
        "--backend",
        "mem",
        "sync",
        "--interval",
        "1s",
        "--samples",
        "60",
        "--host-error-ppb",
        "-100000",
        "--quiet",
    ]);
    assert!(ok, "{err}");
    assert!(out.contains("|offset| under 50 ns from sample"), "{out}");
}

#[test]
fn errors_name_the_fix() {
    let (ok, _, err) = tsnic(&["info", "--backend", "pcie"]);
    assert!(
        !ok && err.contains(
            "unknown backend `pcie`: use `sim`, `sim:small`, `mem` or `vfio:DDDD:BB:DD.F`"
        ),
        "{err}"
    );
    let (ok, _, err) = tsnic(&["info", "--backend", "vfio:01:00"]);
    assert!(!ok && err.contains("bad PCI address `01:00`"), "{err}");
    if !std::path::Path::new("/dev/vfio/vfio").exists() {
        let (ok, _, err) = tsnic(&["info", "--backend", "vfio:0000:01:00.0"]);
        assert!(!ok && err.contains("modprobe vfio-pci"), "{err}");
    }
    let (ok, _, err) = tsnic(&[
        "phc",
        "--backend",
        "vfio:0000:01:00.0",
        "sync",
        "--host-error-ppb",
        "5",
    ]);
    assert!(!ok, "{err}");
}
