//! Verilates `tsnic_core` from `hdl/rtl` and links it in, beside the `extern "C"` shim.
//!
//! Debian's Verilator 5.006 with `--cc --build` and no `--exe` leaves only `V<top>__ALL.a` and no
//! runtime library, so this script runs `verilator --cc` only and compiles the generated C++, the
//! runtime (`verilated.cpp`, `verilated_threads.cpp`, C++17) and `csrc/shim.cpp` itself with the `cc`
//! crate (always at -O2 unless TSNIC_SIM_CXX_OPT says otherwise: the model is the hot loop even in debug builds). It needs no network.
//!
//! Configurations (each costs about 15 s of C++ compile on one core):
//! - `w64`: the board build's size (4096 queues, 65536 entries, 10 s horizon; `SHIPPED` below) with
//!   64-bit AXI and AXI-Stream (10G), always;
//! - `w64_small`: the core's own defaults (8 queues, 1024 entries, 100 ms horizon), 64-bit, always,
//!   for tests that want a small card (`Config::size = CoreSize::Small`);
//! - `w512`: the board size with 512-bit AXI and AXI-Stream (100G), with the `wide` feature;
//! - `w256_small`: the small size with 256-bit AXI and AXI-Stream, with the `board` feature (the
//!   core inside `board256`, for comparing the two);
//! - `w512_small`: the small size with 512-bit AXI and AXI-Stream, with the `alveo` feature (the
//!   core inside the Alveo board builds);
//! - `board256` (not a core configuration): `tsnic_board_core` as the SUME has it, with the `board`
//!   feature and its own shim (`build_board`);
//! - `alveo_u50` (`alveo` feature), `alveo_u280` and `alveo_u250` (`alveo-all`): `tsnic_board_core`
//!   as the Alveo tops have it with the CMAC (`BOARD_ALVEO`), same shim.
//!
//! Profile-guided optimisation (opt-in, `sim/card/bench/pgo.sh`): the model is bound by instruction
//! fetch, and g++'s profile feedback (hot/cold splitting, block and function order) makes it about a
//! fifth faster. `TSNIC_SIM_PGO=gen:<dir>` builds the models instrumented (their profiles go to
//! `<dir>` when a program using them exits, and each configuration's `<name>.key` is written there);
//! `TSNIC_SIM_PGO=<dir>` compiles each configuration with the profiles in `<dir>` if `<dir>/<name>.key`
//! matches the configuration's current inputs (generated C++, shim, compiler flags), and without them,
//! with a warning, if not. A relative `<dir>` is taken from the workspace root. The simulation's
//! results do not depend on it (same code, laid out differently).
//!
//! When `hdl/rtl/tsnic_core.v` does not exist, or Verilator is missing or fails, the crate still
//! builds (its models and unit tests do not need the core) with the cfg `tsnic_sim_no_core`, and
//! `Card::new` returns an error that carries the reason. The script reruns when any `.v`/`.vh` file in
//! `hdl/rtl` changes or a file is added or removed there.

use std::env;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

struct Config {
    /// Suffix of the shim's symbols (`tsnic_sim_<name>_*`) and of the cfg `tsnic_sim_<name>`.
    name: &'static str,
    /// Cargo feature that must be on to build it (`None`: always built).
    feature: Option<&'static str>,
    /// Bus widths.
    width: &'static [(&'static str, &'static str)],
    /// Queues, table and calendar sizes, horizon.
    size: &'static [(&'static str, &'static str)],
}

/// The board build's size (docs/DATAPATH.md "tsnic_core"): 4096 queues, 65536 descriptor-table
/// entries and calendar nodes, 8192 fine slots of 64 ns, 65536 coarse slots (17.2 s of span) and a
/// 10 s horizon (it must stay below 2^CSLOT_W * SLOTS/2 * SLOT_NS).
const SHIPPED: &[(&str, &str)] = &[
    ("NUM_QUEUES", "4096"),
    ("NODE_W", "16"),
    ("SLOTS", "8192"),
    ("CSLOT_W", "16"),
    ("HORIZON_NS", "64'd10000000000"),
];

/// The core's own defaults, for tests that need a small card: 8 queues, 1024 entries, 1024 fine
/// slots, 4096 coarse slots, 100 ms horizon.
const SMALL: &[(&str, &str)] = &[];

const W64: &[(&str, &str)] = &[("AXI_DATA_W", "64"), ("AXIS_DATA_W", "64")];
const W512: &[(&str, &str)] = &[("AXI_DATA_W", "512"), ("AXIS_DATA_W", "512")];
const W256: &[(&str, &str)] = &[("AXI_DATA_W", "256"), ("AXIS_DATA_W", "256")];

/// Every configuration: the idle fast-forward's ports (docs/ARCHITECTURE.md, "Idle fast-forward"), and
/// departures at the frame's start on the line, which the wire model reports (`TX_MAC_LAG`).
const SIM: &[(&str, &str)] = &[
    ("SIM_FAST_FORWARD", "1"),
    ("SIM_GATE", "1"),
    ("TX_MAC_LAG", "1"),
];

const CONFIGS: &[Config] = &[
    Config {
        name: "w64",
        feature: None,
        width: W64,
        size: SHIPPED,
    },
    Config {
        name: "w64_small",
        feature: None,
        width: W64,
        size: SMALL,
    },
    Config {
        name: "w512",
        feature: Some("wide"),
        width: W512,
        size: SHIPPED,
    },
    // the board core's own core (tsnic_board_core at DATA_W 256 keeps the core's default size):
    // what `sim:board` is compared with
    Config {
        name: "w256_small",
        feature: Some("board"),
        width: W256,
        size: SMALL,
    },
    // the same for the Alveo build (512 bits, the core's default size): what `sim:board=u50` is
    // compared with
    Config {
        name: "w512_small",
        feature: Some("alveo"),
        width: W512,
        size: SMALL,
    },
];

fn main() {
    println!("cargo:rustc-check-cfg=cfg(tsnic_sim_no_core)");
    println!("cargo:rustc-check-cfg=cfg(tsnic_sim_board)");
    for b in BOARDS {
        println!("cargo:rustc-check-cfg=cfg(tsnic_simb_{})", b.name);
    }
    for cfg in CONFIGS {
        println!("cargo:rustc-check-cfg=cfg(tsnic_sim_{})", cfg.name);
    }
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=csrc/shim.cpp");
    println!("cargo:rerun-if-changed=csrc/ports.h");
    println!("cargo:rerun-if-changed=csrc/save.cpp");
    println!("cargo:rerun-if-changed=csrc/board_shim.cpp");
    println!("cargo:rerun-if-changed=csrc/board_ports.h");
    println!("cargo:rerun-if-env-changed=TSNIC_SIM_VERILATOR");
    println!("cargo:rerun-if-env-changed=TSNIC_SIM_RTL_DIR");
    println!("cargo:rerun-if-env-changed=TSNIC_SIM_CXX_OPT");
    println!("cargo:rerun-if-env-changed=TSNIC_SIM_VERILATOR_FLAGS");
    println!("cargo:rerun-if-env-changed=TSNIC_SIM_FULL_EVAL");
    println!("cargo:rerun-if-env-changed=TSNIC_SIM_NO_CACHE");
    println!("cargo:rerun-if-env-changed=TSNIC_SIM_PGO");
    println!("cargo:rerun-if-env-changed=CXX");
    println!("cargo:rerun-if-env-changed=CXXFLAGS");

    let manifest =
        PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    // TSNIC_SIM_RTL_DIR points the build at another RTL tree (e.g. a work tree under review).
    let rtl = env::var_os("TSNIC_SIM_RTL_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| manifest.join("../../hdl/rtl"));
    let rtl = rtl.canonicalize().unwrap_or(rtl);
    println!("cargo:rerun-if-changed={}", rtl.display());
    if let Ok(dir) = fs::read_dir(&rtl) {
        let mut files: Vec<PathBuf> = dir.filter_map(|e| e.ok().map(|e| e.path())).collect();
        files.sort();
        for f in files {
            if matches!(
                f.extension().and_then(|e| e.to_str()),
                Some("v") | Some("vh") | Some("sv") | Some("svh")
            ) {
                println!("cargo:rerun-if-changed={}", f.display());
            }
        }
    }

    let core = rtl.join("tsnic_core.v");
    if !core.exists() {
        no_core(&format!(
            "{} does not exist yet (the RTL core top has not landed)",
            core.display()
        ));
        return;
    }
    let verilator = env::var("TSNIC_SIM_VERILATOR").unwrap_or_else(|_| "verilator".into());
    let root = match Command::new(&verilator)
        .args(["--getenv", "VERILATOR_ROOT"])
        .output()
    {
        Ok(o) if o.status.success() => {
            PathBuf::from(String::from_utf8_lossy(&o.stdout).trim().to_string())
        }
        Ok(o) => {
            no_core(&format!(
                "`{verilator} --getenv VERILATOR_ROOT` failed: {}",
                String::from_utf8_lossy(&o.stderr).trim()
            ));
            return;
        }
        Err(e) => {
            no_core(&format!("cannot run `{verilator}` ({e}): install it with `make deps` (Debian package verilator)"));
            return;
        }
    };
    let include = root.join("include");

    let out = PathBuf::from(env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    let pgo = Pgo::from_env(&manifest);
    if let Pgo::Use(dir) = &pgo {
        println!("cargo:rerun-if-changed={}", dir.display());
    }
    let mut built = Vec::new();
    for cfg in CONFIGS {
        if let Some(f) = cfg.feature {
            let var = format!("CARGO_FEATURE_{}", f.to_uppercase());
            if env::var_os(var).is_none() {
                continue;
            }
        }
        let mdir = out.join(format!("vl_{}", cfg.name));
        let prefix = format!("Vtsnic_core_{}", cfg.name);
        let params: Vec<(&str, &str)> = cfg
            .width
            .iter()
            .chain(cfg.size.iter())
            .chain(SIM.iter())
            .copied()
            .collect();
        if let Err(msg) = verilate(&verilator, &rtl, &core, &mdir, &prefix, &params, true) {
            no_core(&msg);
            return;
        }
        // Save/restore (`--savable`, csrc/save.cpp): a state file is only good for the model that wrote it.
        let fp = match fingerprint(&verilator, &rtl, &mdir) {
            Ok(fp) => fp,
            Err(msg) => {
                no_core(&msg);
                return;
            }
        };
        println!(
            "cargo:rustc-env=TSNIC_SIM_FINGERPRINT_{}={fp}",
            cfg.name.to_uppercase()
        );
        let (edge, settle) = edge_style(&mdir, &prefix);
        let mut b = cc_base(&include);
        b.include(&mdir)
            .define("TSNIC_EDGE", edge)
            .define("TSNIC_SETTLE", settle)
            .define("TSNIC_TOP", prefix.as_str())
            .define("TSNIC_TOP_HDR", format!("\"{prefix}.h\"").as_str())
            .define("TSNIC_ROOT", format!("{prefix}___024root").as_str())
            .define(
                "TSNIC_ROOT_HDR",
                format!("\"{prefix}___024root.h\"").as_str(),
            )
            .define(
                "TSNIC_ROOT_FN(x)",
                format!("{prefix}___024root___##x").as_str(),
            )
            .define(
                "TSNIC_FN(x)",
                format!("tsnic_sim_{}_##x", cfg.name).as_str(),
            );
        // The gated blocks' check (csrc/shim.cpp, sim_gate 2 or 3): its register list, from
        // bench/gate_regs.py, in every model (memories of any size: the check takes a limit at run time).
        let gate_list = gate_check_header(&manifest, &mdir, &prefix, &rtl);
        let (hot, cold) = match model_sources(&mdir) {
            Ok(s) => s,
            Err(msg) => {
                no_core(&msg);
                return;
            }
        };
        let cold = cold_build(&b, &cold);
        b.file(shim_unit(&mdir)).files(&hot);
        let lib = format!("tsnic_sim_{}", cfg.name);
        let key = cache_key(&[
            fp.as_bytes(),
            edge.as_bytes(),
            settle.as_bytes(),
            lib.as_bytes(),
            &read_or_empty(&manifest.join("csrc/shim.cpp")),
            &read_or_empty(&manifest.join("csrc/ports.h")),
            &read_or_empty(&manifest.join("csrc/save.cpp")),
            &gate_list,
        ]);
        let key = pgo.apply(&mut b, cfg.name, &key, &out);
        compile_cached(&b, cold.as_ref(), &lib, &key, &out);
        built.push(cfg.name);
    }

    for board in BOARDS {
        let var = format!(
            "CARGO_FEATURE_{}",
            board.feature.to_uppercase().replace('-', "_")
        );
        if env::var_os(var).is_none() {
            continue;
        }
        match build_board(&verilator, &rtl, &include, &out, &manifest, board) {
            Ok(()) => {
                println!("cargo:rustc-cfg=tsnic_simb_{}", board.name);
                if board.name == "board256" {
                    println!("cargo:rustc-cfg=tsnic_sim_board");
                }
            }
            Err(msg) => println!(
                "cargo:warning=tsnic-sim: building without the board configuration `{}` (sim:board): {msg}",
                board.name
            ),
        }
    }

    let mut rt = cc_base(&include);
    rt.file(include.join("verilated.cpp"))
        .file(include.join("verilated_threads.cpp"))
        .file(include.join("verilated_save.cpp"));
    let version = Command::new(&verilator)
        .arg("--version")
        .output()
        .map(|o| o.stdout)
        .unwrap_or_default();
    let rt_key = cache_key(&[
        &version,
        include.display().to_string().as_bytes(),
        b"tsnic_verilated",
    ]);
    compile_cached(&rt, None, "tsnic_verilated", &rt_key, &out);
    if matches!(pgo, Pgo::Gen(_)) {
        println!("cargo:rustc-link-lib=gcov");
    }
    for name in built {
        println!("cargo:rustc-cfg=tsnic_sim_{name}");
    }
    println!("cargo:rustc-env=TSNIC_SIM_UNAVAILABLE=");
    println!("cargo:rustc-env=TSNIC_SIM_RTL_DIR={}", rtl.display());
}

/// The board configuration (`board` feature; docs/ARCHITECTURE.md, "Board co-simulation"):
/// `tsnic_board_core` as board/netfpga_sume/rtl/fpga.v instantiates it (256-bit PCIe user interfaces
/// with the pcie3_7x tuser widths of PG023, the Gen3 block's completion buffer, MAC_DOMAIN = 1 with
/// the MAC clock at 156.25 MHz, the MAC's line-start reports, RX at 64 bits with the MAC's start of
/// frame, configuration flash out of reach), with csrc/board_shim.cpp. `--savable` (csrc/save.cpp):
/// the board card kept between commands. SIM_GATE = 1 (both boards): the core's gated blocks on
/// the board core's sim_gclk* inputs (the board tops tie them to 0 with SIM_GATE = 0).
const BOARD_SUME: &[(&str, &str)] = &[
    ("DATA_W", "256"),
    ("CQ_USER_W", "85"),
    ("CC_USER_W", "33"),
    ("RQ_USER_W", "60"),
    ("RC_USER_W", "75"),
    ("CPLH_LIMIT", "64"),
    ("CPLD_LIMIT", "960"),
    ("FLASH_WRITABLE", "0"),
    ("MAC_DOMAIN", "1"),
    ("TX_MAC_LAG", "1"),
    ("TX_PERIOD_FX", "64'd27487790694"),
    ("RX_PERIOD_FX", "64'd27487790694"),
    ("RX_DATA_W", "64"),
    ("RX_SOF_IN", "1"),
    ("PCIE_STATUS_ENC", "1"),
    ("MAC_KIND", "2"),
    ("SIM_GATE", "1"),
];

/// The Alveo build (`board` and `alveo` features; `sim:board=u50|u280|u250`): `tsnic_board_core` as
/// board/common/rtl/tsnic_alveo_top.v instantiates it with the CMAC (MAC_10G = 0): 512-bit PCIe user
/// interfaces with the pcie4(c)_uscale_plus tuser widths of PG213 (CQ 183, CC 81, RQ 137, RC 161),
/// the pcie4 completion buffer (128 headers, 1920 data credits), MAC_DOMAIN = 1 with the MAC clock
/// at 322.265625 MHz (the CMAC's gt_txusrclk2, `TX_PERIOD_FX` 13327413670), line-start reports
/// derived inside the board core from the CMAC's handshakes (TX_MAC_LAG = 2, tsnic_cmac_tx_lag: the
/// stamp is the frame's start on the line plus CTRL_TX_LAT_COMP_NS), RX at 512
/// bits stamped at the first beat (RX_SOF_IN = 0), PCIE_STATUS_ENC = 0 (PG213 codes), MAC_KIND = 1
/// (CMAC). The core inside keeps the board core's default size (8 queues, 1024 entries). The three
/// Alveo tops differ only in BOARD_ID (1 U50, 2 U280, 3 U250: FLASH_CAP) and the PCIe IP's name;
/// FLASH_WRITABLE 1 as the top has it (the co-simulation puts the flash model on the pins).
const BOARD_ALVEO: &[(&str, &str)] = &[
    ("DATA_W", "512"),
    ("CQ_USER_W", "183"),
    ("CC_USER_W", "81"),
    ("RQ_USER_W", "137"),
    ("RC_USER_W", "161"),
    ("CPLH_LIMIT", "128"),
    ("CPLD_LIMIT", "1920"),
    ("FLASH_WRITABLE", "1"),
    ("MAC_DOMAIN", "1"),
    ("TX_MAC_LAG", "2"),
    ("TX_PERIOD_FX", "64'd13327413670"),
    ("RX_PERIOD_FX", "64'd13327413670"),
    ("RX_DATA_W", "512"),
    ("RX_SOF_IN", "0"),
    ("PCIE_STATUS_ENC", "0"),
    ("MAC_KIND", "1"),
    ("SIM_GATE", "1"),
];

/// One Verilated `tsnic_board_core` configuration.
struct Board {
    /// Suffix of the shim's symbols (`tsnic_simb_<name>_*`) and of the cfg `tsnic_simb_<name>`.
    name: &'static str,
    /// Cargo feature that builds it.
    feature: &'static str,
    params: &'static [(&'static str, &'static str)],
    /// BOARD_ID (FLASH_CAP).
    board_id: &'static str,
}

const BOARDS: &[Board] = &[
    Board {
        name: "board256",
        feature: "board",
        params: BOARD_SUME,
        board_id: "4",
    },
    Board {
        name: "alveo_u50",
        feature: "alveo",
        params: BOARD_ALVEO,
        board_id: "1",
    },
    Board {
        name: "alveo_u280",
        feature: "alveo-all",
        params: BOARD_ALVEO,
        board_id: "2",
    },
    Board {
        name: "alveo_u250",
        feature: "alveo-all",
        params: BOARD_ALVEO,
        board_id: "3",
    },
];

fn build_board(
    verilator: &str,
    rtl: &Path,
    include: &Path,
    out: &Path,
    manifest: &Path,
    board: &Board,
) -> Result<(), String> {
    let top = rtl.join("tsnic_board_core.v");
    if !top.exists() {
        return Err(format!("{} does not exist", top.display()));
    }
    let name = board.name;
    let mdir = out.join(format!("vl_{name}"));
    let prefix = format!("Vtsnic_board_{name}");
    let params: Vec<(&str, &str)> = board
        .params
        .iter()
        .copied()
        .chain([("BOARD_ID", board.board_id)])
        .collect();
    verilate(verilator, rtl, &top, &mdir, &prefix, &params, true)?;
    // Save/restore (`--savable`, the kept board card): a state is only good for the model that wrote it.
    let fp = fingerprint(verilator, rtl, &mdir)?;
    println!(
        "cargo:rustc-env=TSNIC_SIMB_FINGERPRINT_{}={fp}",
        name.to_uppercase()
    );
    let mut b = cc_base(include);
    b.include(&mdir)
        .define("TSNIC_BTOP", prefix.as_str())
        .define("TSNIC_BTOP_HDR", format!("\"{prefix}.h\"").as_str())
        .define("TSNIC_BFN(x)", format!("tsnic_simb_{name}_##x").as_str());
    let (hot, cold) = model_sources(&mdir)?;
    let cold = cold_build(&b, &cold);
    b.file(board_shim_unit(&mdir)).files(&hot);
    let lib = format!("tsnic_simb_{name}");
    let key = cache_key(&[
        fp.as_bytes(),
        lib.as_bytes(),
        &read_or_empty(&manifest.join("csrc/board_shim.cpp")),
        &read_or_empty(&manifest.join("csrc/board_ports.h")),
        &read_or_empty(&manifest.join("csrc/save.cpp")),
    ]);
    compile_cached(&b, cold.as_ref(), &lib, &key, out);
    Ok(())
}

const BOARD_SHIM_UNIT: &str = "tsnic_board_shim.cpp";

/// `csrc/board_shim.cpp` compiled from a one-line file in the configuration's output directory, so
/// that each board configuration's shim object has a name of its own.
fn board_shim_unit(mdir: &Path) -> PathBuf {
    let unit = mdir.join(BOARD_SHIM_UNIT);
    fs::write(&unit, "#include \"board_shim.cpp\"\n").expect("write the board shim's unit file");
    unit
}

/// How csrc/shim.cpp may clock the model without a second input-region pass (`TSNIC_EDGE`): from the
/// scheduler functions Verilator generated (their names and shape changed between 5.006 and later
/// 5.0xx releases). "0" (plain `eval()`) when neither shape is found, or when
/// `TSNIC_SIM_FULL_EVAL` is set (to compare the two).
///
/// The second value (`TSNIC_SETTLE`) is "1" when, with style 1, the scheduler has exactly one
/// input-region trigger (its first iteration) and only rising edges of top-level inputs as active
/// triggers (`clk`, then the gated blocks' `sim_gclk`): then the shim also evaluates the clk-low half
/// without `eval()`'s loops, and the edge without the trigger checks that can only find nothing.
fn edge_style(mdir: &Path, prefix: &str) -> (&'static str, &'static str) {
    if env::var_os("TSNIC_SIM_FULL_EVAL").is_some() {
        return ("0", "0");
    }
    let mut text = String::new();
    if let Ok(dir) = fs::read_dir(mdir) {
        for e in dir.flatten() {
            let p = e.path();
            let name = p
                .file_name()
                .map(|n| n.to_string_lossy().to_string())
                .unwrap_or_default();
            if name.starts_with(&format!("{prefix}___024root")) && !name.contains("Slow") {
                text.push_str(&fs::read_to_string(&p).unwrap_or_default());
            }
        }
    }
    let root = format!("{prefix}___024root___");
    let has = |f: &str| text.contains(&format!("{root}{f}({prefix}___024root* vlSelf) {{"));
    if has("eval_triggers__act")
        && has("eval_nba")
        && has("eval_act")
        && text.contains("__VactContinue")
    {
        let single = has("eval_triggers__ico")
            && has("eval_ico")
            && text.contains("VlTriggerVec<1> __VicoTriggered;")
            && text.contains("vlSelf->__VicoTriggered.at(0U) = (0U == vlSelf->__VicoIterCount);")
            && input_edges_only(&text);
        ("1", if single { "1" } else { "0" })
    } else if has("eval_phase__act") && has("eval_phase__nba") && text.contains("__VactPhaseResult")
    {
        ("2", "0")
    } else {
        ("0", "0")
    }
}

/// The gated blocks' register list for the check (csrc/shim.cpp, `TSNIC_GATE_REGS`): written by
/// `bench/gate_regs.py` from the model's root header into `tsnic_gate_check.h` beside it, every
/// memory included (the check skips those above its run-time limit). Without python3 the list is
/// empty, with a warning: the model builds and runs, and a check of it compares nothing, which the
/// check's users (cosim_fastforward, the `TSNIC_SIM_GATE=check` summary) refuse. Returns the header.
fn gate_check_header(manifest: &Path, mdir: &Path, prefix: &str, rtl: &Path) -> Vec<u8> {
    let script = manifest.join("bench/gate_regs.py");
    println!("cargo:rerun-if-changed={}", script.display());
    let out = Command::new("python3")
        .arg(&script)
        .arg(mdir.join(format!("{prefix}___024root.h")))
        .arg(rtl)
        .args(["--max-array", "18446744073709551615"])
        .output();
    let text = match out {
        Ok(o) if o.status.success() => o.stdout,
        Ok(o) => {
            println!(
                "cargo:warning=tsnic-sim: gate_regs.py failed, so the gated blocks' check compares nothing: {}",
                String::from_utf8_lossy(&o.stderr).trim().replace('\n', " ")
            );
            b"#define TSNIC_GATE_REGS(X)\n".to_vec()
        }
        Err(e) => {
            println!(
                "cargo:warning=tsnic-sim: cannot run python3 ({e}), so the gated blocks' check compares nothing: `make deps`"
            );
            b"#define TSNIC_GATE_REGS(X)\n".to_vec()
        }
    };
    fs::write(mdir.join("tsnic_gate_check.h"), &text).expect("write tsnic_gate_check.h");
    text
}

/// Whether every active trigger of the generated scheduler is the rising edge of a top-level input
/// (`clk` first, then the gated blocks' clocks `sim_gclk*`): then nothing in the model computes a
/// clock, and one pass of the active and NBA regions completes an edge.
fn input_edges_only(text: &str) -> bool {
    let n: usize = text
        .find("> __VactTriggered;")
        .and_then(|end| {
            let head = &text[..end];
            let start = head.rfind("VlTriggerVec<")? + "VlTriggerVec<".len();
            head[start..].parse().ok()
        })
        .unwrap_or(0);
    n >= 1
        && (0..n).all(|i| {
            let lead = format!("vlSelf->__VactTriggered.at({i}U) = ((IData)(vlSelf->");
            text.split(&lead).nth(1).is_some_and(|rest| {
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                (if i == 0 {
                    name == "clk"
                } else {
                    name.starts_with("sim_gclk")
                }) && text.contains(&format!(
                    "& (~ (IData)(vlSelf->__Vtrigrprev__TOP__{name})));"
                ))
            })
        })
}

const SHIM_UNIT: &str = "tsnic_shim.cpp";

/// `csrc/shim.cpp` compiled from a one-line file in the configuration's output directory, so that each
/// configuration's shim object (and its profile, `Pgo`) has a name of its own.
fn shim_unit(mdir: &Path) -> PathBuf {
    let unit = mdir.join(SHIM_UNIT);
    fs::write(&unit, "#include \"shim.cpp\"\n").expect("write the shim's unit file");
    unit
}

/// Profile-guided optimisation of the models (`TSNIC_SIM_PGO`, see the top of this file).
enum Pgo {
    Off,
    /// Instrumented build; profiles and keys go to this directory.
    Gen(PathBuf),
    /// Build with the profiles in this directory where its keys match.
    Use(PathBuf),
}

impl Pgo {
    fn from_env(manifest: &Path) -> Pgo {
        let Some(v) = env::var_os("TSNIC_SIM_PGO") else {
            return Pgo::Off;
        };
        let v = v.to_string_lossy().to_string();
        let root = manifest.join("../..");
        let abs = |d: &str| {
            let p = root.join(d); // an absolute `d` replaces the root
            p.canonicalize().unwrap_or(p)
        };
        if v.is_empty() || v == "off" {
            Pgo::Off
        } else if let Some(d) = v.strip_prefix("gen:") {
            let dir = abs(d);
            if let Err(e) = fs::create_dir_all(&dir) {
                panic!("TSNIC_SIM_PGO={v}: cannot create {}: {e}", dir.display());
            }
            Pgo::Gen(dir.canonicalize().unwrap_or(dir))
        } else {
            let dir = abs(&v);
            if !dir.is_dir() {
                println!(
                    "cargo:warning=tsnic-sim: TSNIC_SIM_PGO={v}: {} is not a directory; building without profiles (make them with sim/card/bench/pgo.sh)",
                    dir.display()
                );
                return Pgo::Off;
            }
            Pgo::Use(dir)
        }
    }

    /// Adds the configuration's profile flags to `b`; returns the compile-cache key for it. `key`
    /// (the configuration's key without profiles) is what a profile's `<name>.key` must equal.
    fn apply(&self, b: &mut cc::Build, name: &str, key: &str, out: &Path) -> String {
        match self {
            Pgo::Off => key.to_string(),
            Pgo::Gen(dir) => {
                fs::write(dir.join(format!("{name}.key")), key).unwrap_or_else(|e| {
                    panic!("TSNIC_SIM_PGO: cannot write to {}: {e}", dir.display())
                });
                b.flag(format!("-fprofile-generate={}", dir.display()))
                    .flag("-fprofile-update=single");
                cache_key(&[
                    key.as_bytes(),
                    b"pgo-gen",
                    dir.display().to_string().as_bytes(),
                ])
            }
            Pgo::Use(dir) => {
                let want = fs::read_to_string(dir.join(format!("{name}.key"))).unwrap_or_default();
                if want.trim() != key {
                    println!(
                        "cargo:warning=tsnic-sim: {} has no profile for the current `{name}` model (other RTL, shim or flags, or not trained); building it without (rerun sim/card/bench/pgo.sh)",
                        dir.display()
                    );
                    return key.to_string();
                }
                // g++ looks for `<profile dir>/<absolute object path>.gcda`; the objects are
                // `OUT_DIR/<hash of the source's directory relative to OUT_DIR>-<stem>.o`, whose
                // names do not depend on where OUT_DIR is, so the profiles are stored flat by object
                // name and staged here under this build's OUT_DIR.
                let stage = out.join("pgo");
                let obj_dir = stage.join(out.strip_prefix("/").unwrap_or(out));
                let _ = fs::create_dir_all(&obj_dir);
                let mut profiles: Vec<PathBuf> = fs::read_dir(dir)
                    .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
                    .unwrap_or_default();
                profiles.retain(|p| p.extension().and_then(|e| e.to_str()) == Some("gcda"));
                profiles.sort();
                let mut parts: Vec<Vec<u8>> = vec![key.as_bytes().to_vec(), b"pgo-use".to_vec()];
                for p in &profiles {
                    let Some(file) = p.file_name() else { continue };
                    let _ = fs::copy(p, obj_dir.join(file));
                    parts.push(file.to_string_lossy().as_bytes().to_vec());
                    parts.push(read_or_empty(p));
                }
                b.flag(format!("-fprofile-use={}", stage.display()))
                    .flag("-fprofile-partial-training")
                    .flag("-Wno-missing-profile");
                let refs: Vec<&[u8]> = parts.iter().map(|v| v.as_slice()).collect();
                cache_key(&refs)
            }
        }
    }
}

/// Optimization level of the Verilated C++ (`TSNIC_SIM_CXX_OPT` overrides it). -O2 rather than -O3:
/// the same simulation speed on the 10G push at both sizes (docs/BENCHMARKS.md, 2026-12-02 17:10)
/// for a fifth less compile time.
const DEFAULT_OPT: &str = "2";

fn cxx_opt() -> String {
    env::var("TSNIC_SIM_CXX_OPT").unwrap_or_else(|_| DEFAULT_OPT.into())
}

fn cc_base(include: &Path) -> cc::Build {
    let mut b = cc::Build::new();
    b.cpp(true)
        .std("c++17")
        .opt_level_str(&cxx_opt())
        .debug(false)
        .warnings(false)
        .flag_if_supported("-w")
        .flag_if_supported("-fno-strict-aliasing")
        .include(include)
        .include(include.join("vltstd"))
        .include(PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap()).join("csrc"))
        .define("VM_COVERAGE", "0")
        .define("VM_SC", "0")
        .define("VM_TRACE", "0")
        .define("VM_TRACE_FST", "0")
        .define("VM_TRACE_VCD", "0");
    b
}

fn verilate(
    verilator: &str,
    rtl: &Path,
    core: &Path,
    mdir: &Path,
    prefix: &str,
    params: &[(&str, &str)],
    savable: bool,
) -> Result<(), String> {
    let top = core
        .file_stem()
        .map(|s| s.to_string_lossy().to_string())
        .unwrap_or_default();
    let _ = fs::remove_dir_all(mdir);
    fs::create_dir_all(mdir).map_err(|e| format!("cannot create {}: {e}", mdir.display()))?;
    let mut cmd = Command::new(verilator);
    cmd.arg("--cc")
        .args(["--top-module", top.as_str(), "--prefix", prefix])
        .arg("-Mdir")
        .arg(mdir)
        .arg("-y")
        .arg(rtl)
        .arg(format!("+incdir+{}", rtl.display()))
        .args([
            "-O3",
            "--x-assign",
            "fast",
            "--x-initial",
            "fast",
            "--noassert",
            "--no-timing",
        ]);
    if savable {
        // VerilatedSerialize/VerilatedDeserialize of the whole model: the persistent simulated card.
        cmd.arg("--savable");
    }
    cmd.args(["-Wno-fatal", "-Wno-lint", "-Wno-style"]);
    for (k, v) in params {
        cmd.arg(format!("-G{k}={v}"));
    }
    // Extra Verilator flags for experiments and profiling, e.g. `-fno-inline` (one C++ function per
    // module, so a profiler attributes the cost per module).
    if let Ok(extra) = env::var("TSNIC_SIM_VERILATOR_FLAGS") {
        cmd.args(extra.split_whitespace());
    }
    cmd.arg(core);
    let o = cmd
        .output()
        .map_err(|e| format!("cannot run `{verilator}`: {e}"))?;
    if !o.status.success() {
        let log = mdir.join("verilator.log");
        let text = String::from_utf8_lossy(&o.stderr).to_string();
        let _ = fs::write(&log, &text);
        let head: Vec<&str> = text
            .lines()
            .filter(|l| l.starts_with("%Error"))
            .take(5)
            .collect();
        return Err(format!(
            "verilator failed on hdl/rtl/{top}.v ({}): {} (full log: {})",
            prefix,
            head.join(" | "),
            log.display()
        ));
    }
    Ok(())
}

/// Fingerprint of one Verilated configuration: the Verilator version and every C++ file it generated
/// (which encode the RTL, the parameters and the flags), with the RTL directory's path replaced so that
/// two checkouts of the same tree agree. 128-bit FNV-1a, hex. A state file saved by another model is
/// refused by comparing this string before any of its bytes reach the model.
fn fingerprint(verilator: &str, rtl: &Path, mdir: &Path) -> Result<String, String> {
    let mut fnv = Fnv128::new();
    let mut eat = |bytes: &[u8]| fnv.eat(bytes);
    let version = Command::new(verilator)
        .arg("--version")
        .output()
        .map_err(|e| format!("cannot run `{verilator} --version`: {e}"))?;
    eat(&version.stdout);
    let mut files: Vec<PathBuf> = fs::read_dir(mdir)
        .map_err(|e| format!("cannot read {}: {e}", mdir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            matches!(
                p.extension().and_then(|e| e.to_str()),
                Some("cpp") | Some("h")
            )
        })
        .collect();
    files.sort();
    let rtl_path = rtl.display().to_string();
    for f in files {
        let text =
            fs::read_to_string(&f).map_err(|e| format!("cannot read {}: {e}", f.display()))?;
        let name = f
            .file_name()
            .map(|n| n.to_string_lossy().to_string())
            .unwrap_or_default();
        eat(name.as_bytes());
        eat(&[0]);
        eat(text.replace(&rtl_path, "RTL").as_bytes());
        eat(&[0]);
    }
    Ok(fnv.hex())
}

/// The compiled models are kept between builds in `<target dir>/tsnic-sim-cache/<key>/`, keyed by
/// everything that goes into the compile: the generated C++ (its fingerprint, which carries the RTL,
/// parameters, Verilator version and flags), the shim's sources, the defines, and the compiler, its
/// flags and the profile (`cache_key`). Cargo reruns this script for every distinct set of
/// rustc flags (clippy's wrapper and the test build each run it once, with the same C++ to compile):
/// the second run links the first one's library instead of compiling it again (about a minute of
/// C++ per configuration set on this machine). A hit copies the library into OUT_DIR, so nothing
/// outside OUT_DIR is linked. `TSNIC_SIM_NO_CACHE=1` turns the cache off.
fn cache_dir(out: &Path) -> Option<PathBuf> {
    if env::var_os("TSNIC_SIM_NO_CACHE").is_some() {
        return None;
    }
    // OUT_DIR is <target dir>/<profile>/build/<pkg>-<hash>/out (or one level deeper with --target)
    let build = out.ancestors().find(|a| {
        a.file_name().map(|n| n == "build").unwrap_or(false)
            && a.join("..").join(".fingerprint").exists()
    })?;
    let target = build.parent()?.parent()?;
    Some(target.join("tsnic-sim-cache"))
}

fn read_or_empty(p: &Path) -> Vec<u8> {
    fs::read(p).unwrap_or_default()
}

/// 128-bit FNV-1a over the given parts, the compile settings that cc takes from the environment
/// (compiler, flags, target, profile, optimisation level) and a format version, hex.
fn cache_key(parts: &[&[u8]]) -> String {
    let mut fnv = Fnv128::new();
    // each part ends with a separator byte, so ("ab", "c") and ("a", "bc") differ
    let mut eat = |bytes: &[u8]| {
        fnv.eat(bytes);
        fnv.eat(&[0xff]);
    };
    eat(b"tsnic-sim-cache 1");
    for var in [
        "CXX",
        "CXXFLAGS",
        "TARGET",
        "HOST",
        "PROFILE",
        "OPT_LEVEL",
        "DEBUG",
        "CARGO_ENCODED_RUSTFLAGS",
    ] {
        eat(var.as_bytes());
        eat(env::var(var).unwrap_or_default().as_bytes());
    }
    // the level the model is compiled at, not the variable: a change of DEFAULT_OPT changes the key
    eat(b"cxx-opt");
    eat(cxx_opt().as_bytes());
    for p in parts {
        eat(p);
    }
    fnv.hex()
}

/// The model's generated C++ in `mdir`, split into the files of code that runs every cycle and the
/// `__Slow` files Verilator writes for code that runs once (constructors, variable reset, initial
/// and settle evaluation, save and restore). The shims' one-line unit files, written into the same
/// directory, are not model sources: listing them here too compiled every shim twice, two
/// compilers writing the same object file at once.
fn model_sources(mdir: &Path) -> Result<(Vec<PathBuf>, Vec<PathBuf>), String> {
    let mut cpps: Vec<PathBuf> = fs::read_dir(mdir)
        .map_err(|e| format!("cannot read {}: {e}", mdir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().and_then(|e| e.to_str()) == Some("cpp"))
        .filter(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default();
            name != SHIM_UNIT && name != BOARD_SHIM_UNIT
        })
        .collect();
    cpps.sort();
    Ok(cpps.into_iter().partition(|p| {
        !p.file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.contains("__Slow"))
    }))
}

/// Optimization level of the model's run-once code (`model_sources`): none, as Verilator's own
/// makefile compiles it (`OPT_SLOW` is empty in verilated.mk). It is a quarter of the model's C++
/// compile at -O2 and a seventh at -O0 (docs/BENCHMARKS.md, 2026-12-07 20:45).
const COLD_OPT: &str = "0";

/// A copy of `b` (its defines and includes, no files yet) for the run-once sources, at `COLD_OPT`;
/// `None` when there are none.
fn cold_build(b: &cc::Build, cold: &[PathBuf]) -> Option<cc::Build> {
    if cold.is_empty() {
        return None;
    }
    let mut c = b.clone();
    c.opt_level_str(COLD_OPT).files(cold);
    Some(c)
}

/// `build.compile(lib)` (with the objects of `cold` compiled first and put into the same library),
/// or the library a previous run compiled from the same inputs (`cache_dir`).
fn compile_cached(build: &cc::Build, cold: Option<&cc::Build>, lib: &str, key: &str, out: &Path) {
    let file = format!("lib{lib}.a");
    let key = match cold {
        Some(_) => cache_key(&[key.as_bytes(), b"cold-opt", COLD_OPT.as_bytes()]),
        None => key.to_string(),
    };
    let compile = || {
        let mut b = build.clone();
        if let Some(c) = cold {
            b.objects(c.compile_intermediates());
        }
        b.compile(lib);
    };
    let Some(cache) = cache_dir(out) else {
        compile();
        return;
    };
    let entry = cache.join(&key);
    if fs::copy(entry.join(&file), out.join(&file)).is_ok() {
        println!("cargo:rustc-link-search=native={}", out.display());
        println!("cargo:rustc-link-lib=static={lib}");
        println!("cargo:rustc-link-lib=stdc++");
        return;
    }
    compile();
    // stored by rename from a file of this process's own, so a concurrent build never reads half a file
    let tmp = cache.join(format!("{key}.{}.tmp", std::process::id()));
    if fs::create_dir_all(&tmp).is_ok() && fs::copy(out.join(&file), tmp.join(&file)).is_ok() {
        let _ = fs::create_dir_all(&cache);
        if fs::rename(&tmp, &entry).is_err() {
            let _ = fs::remove_dir_all(&tmp); // another build stored it first
        }
    } else {
        let _ = fs::remove_dir_all(&tmp);
    }
}

/// 128-bit FNV-1a (the model fingerprint and the cache key).
struct Fnv128(u128);

impl Fnv128 {
    const PRIME: u128 = 0x0000_0000_0100_0000_0000_0000_0000_013b;

    fn new() -> Self {
        Fnv128(0x6c62_272e_07bb_0142_62b8_2175_6295_c58d)
    }

    fn eat(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= b as u128;
            self.0 = self.0.wrapping_mul(Self::PRIME);
        }
    }

    fn hex(&self) -> String {
        format!("{:032x}", self.0)
    }
}

fn no_core(reason: &str) {
    println!("cargo:warning=tsnic-sim: building without the Verilated core: {reason}");
    println!("cargo:rustc-cfg=tsnic_sim_no_core");
    println!(
        "cargo:rustc-env=TSNIC_SIM_UNAVAILABLE={}",
        reason.replace('\n', " ")
    );
}
