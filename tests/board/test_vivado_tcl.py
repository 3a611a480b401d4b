"""The Vivado scripts of board/ run to their end under plain tclsh with the Vivado commands stubbed
(tests/board/vivado_stub.tcl logs each call): the files they name exist, the steps come in the right
order, a design that misses timing gets no bitstream, and each board's XDC names only ports of its top.
Vivado itself is not needed (and not used)."""

import os
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BOARD = ROOT / "board"
STUB = Path(__file__).resolve().parent / "vivado_stub.tcl"
BUILD = BOARD / "common" / "vivado" / "build.tcl"
PROGRAM = BOARD / "common" / "vivado" / "program.tcl"
BOARDS = sorted(p.parent.name for p in BOARD.glob("*/config.tcl"))
# IP module names the board scripts may generate, and the stub of each (board/common/stubs)
IP_PREFIXES = ("pcie4c_uscale_plus", "pcie4_uscale_plus", "pcie3_7x", "cmac_usplus", "ten_gig_eth_pcs_pma", "xxv_ethernet")
# boards with MAC options (config.tcl: mac_options, the first the default)
MAC_BOARDS = sorted(b for b in BOARDS if "mac_options" in (BOARD / b / "config.tcl").read_text())

pytestmark = pytest.mark.skipif(shutil.which("tclsh") is None, reason="tclsh not installed (make deps)")


def run_tcl(tmp_path, script, args, env_extra=None):
    """Run SCRIPT with ARGS under tclsh with the stub; return (exit code, output, logged calls)."""
    log = tmp_path / "calls.log"
    if log.exists():
        log.unlink()
    runner = tmp_path / "runner.tcl"
    runner.write_text(
        f"source {{{STUB}}}\n"
        f"stub_run {{{script}}} [list {' '.join('{' + a + '}' for a in args)}]\n"
    )
    env = dict(os.environ, TSNIC_STUB_LOG=str(log))
    env.update(env_extra or {})
    p = subprocess.run(["tclsh", str(runner)], capture_output=True, text=True, env=env, timeout=60)
    calls = []
    if log.exists():
        for line in log.read_text().splitlines():
            # the log lines are Tcl lists; brace/quote forms are close enough to shell words here
            words = shlex.split(line.replace("{", '"').replace("}", '"'))
            calls.append(words)
    return p.returncode, p.stdout + p.stderr, calls


def config(board):
    """The variables of board/<board>/config.tcl (simple `set name value` lines)."""
    out = {}
    for line in (BOARD / board / "config.tcl").read_text().splitlines():
        m = re.match(r"\s*set\s+(\w+)\s+(.*?)\s*$", line)
        if m:
            v = m.group(2)
            out[m.group(1)] = v[1:-1].split() if v.startswith("{") else [v]
    return out


@pytest.fixture()
def rtl_tree(tmp_path):
    """hdl/rtl as the lead will merge it: the real files, plus the pending stand-ins of the modules
    other branches are writing (only those hdl/rtl lacks)."""
    d = tmp_path / "rtl"
    d.mkdir()
    for f in (ROOT / "hdl" / "rtl").iterdir():
        shutil.copy(f, d / f.name)
    for f in (BOARD / "common" / "stubs" / "pending").glob("*.v"):
        if not (d / f.name).exists():
            shutil.copy(f, d / f.name)
    return d


def names(calls, cmd):
    return [c for c in calls if c[0] == cmd]


def index_of(calls, cmd, pred=lambda c: True):
    for i, c in enumerate(calls):
        if c[0] == cmd and pred(c):
            return i
    raise AssertionError(f"{cmd} was never called; calls: {[c[0] for c in calls]}")


def test_there_are_boards():
    assert set(BOARDS) >= {"alveo_u50"}, BOARDS


@pytest.mark.parametrize("board", BOARDS)
def test_build_runs_in_order(board, tmp_path, rtl_tree):
    out = tmp_path / "out"
    rc, text, calls = run_tcl(tmp_path, BUILD, [str(BOARD / board), str(out), "0"], {"TSNIC_RTL_DIR": str(rtl_tree)})
    assert rc == 0, text
    assert not names(calls, "UNKNOWN"), names(calls, "UNKNOWN")
    cfg = config(board)

    # every file read exists (the stub already fails otherwise; checked again here)
    for c in names(calls, "read_verilog") + names(calls, "read_xdc"):
        assert Path(c[-1]).is_file(), c
    read = {Path(c[-1]).name for c in names(calls, "read_verilog")}
    assert "fpga.v" in read and "tsnic_core.v" in read, read
    xdcs = [Path(c[-1]) for c in names(calls, "read_xdc")]
    assert BOARD / board / "fpga.xdc" in xdcs and xdcs[-1].name == "cdc.tcl", xdcs

    # the IP: every script of config.tcl creates one module, each generated and synthesized
    created = [c[c.index("-module_name") + 1] for c in names(calls, "create_ip")]
    assert len(created) == len(cfg["ip_tcl"]) and created, created
    for ip in created:
        assert ip.startswith(IP_PREFIXES) and (BOARD / "common" / "stubs" / f"{ip}.v").is_file(), ip
        assert any(ip in c for c in names(calls, "synth_ip")), ip

    # order: IP -> sources -> synth -> opt -> place -> phys_opt -> route -> timing report -> slack
    # check -> bitstream -> flash images
    steps = [
        index_of(calls, "create_project"),
        max(i for i, c in enumerate(calls) if c[0] == "synth_ip"),
        max(i for i, c in enumerate(calls) if c[0] in ("read_verilog", "read_xdc")),
        index_of(calls, "synth_design"),
        index_of(calls, "opt_design"),
        index_of(calls, "place_design"),
        index_of(calls, "phys_opt_design"),
        index_of(calls, "route_design"),
        index_of(calls, "report_timing_summary"),
        max(i for i, c in enumerate(calls) if c[0] == "get_timing_paths"),
        index_of(calls, "write_bitstream"),
        index_of(calls, "write_cfgmem", lambda c: "mcs" in c),
        index_of(calls, "write_cfgmem", lambda c: "bin" in c),
    ]
    assert steps == sorted(steps), steps
    delays = {c[c.index("-delay_type") + 1] for c in names(calls, "get_timing_paths")}
    assert delays == {"max", "min"}, delays

    synth = names(calls, "synth_design")[0]
    assert synth[synth.index("-part") + 1] == cfg["part"][0]
    assert synth[synth.index("-top") + 1] == "fpga"
    # the default MAC: only the GOLDEN generic
    assert [synth[i + 1] for i, w in enumerate(synth) if w == "-generic"] == ["GOLDEN=0"], synth
    for c in names(calls, "write_cfgmem"):
        assert c[c.index("-interface") + 1] == cfg["flash_iface"][0], c
        assert c[c.index("-size") + 1] == cfg["flash_size_mb"][0], c
        # Alveo: above AMD's factory image (0x0..0x01001FFF stays), where it MultiBoots to (UG1289)
        load = c[c.index("-loadbit") + 1].split()
        want = "0x01002000" if board.startswith("alveo") else "0x00000000"
        assert load[0] == "up" and load[1] == want, c
    for f in ("fpga.bit", "fpga.mcs", "fpga.prm", "fpga.bin", "post_route.dcp"):
        assert (out / f).is_file(), f


@pytest.mark.parametrize("board", MAC_BOARDS)
def test_build_with_the_10g_mac_option(board, tmp_path, rtl_tree):
    """MAC=10g: the PCIe IP and xxv_ethernet_0 instead of the CMAC, the top's MAC_10G = 1, the XGMII MAC
    modules checked and read, and the build runs through to the flash images."""
    assert MAC_BOARDS, "no board has MAC options"
    out = tmp_path / "out"
    rc, text, calls = run_tcl(
        tmp_path, BUILD, [str(BOARD / board), str(out), "0", "10g"], {"TSNIC_RTL_DIR": str(rtl_tree)}
    )
    assert rc == 0, text
    assert not names(calls, "UNKNOWN"), names(calls, "UNKNOWN")
    cfg = config(board)
    assert cfg["mac_options"][0] == "cmac" and "10g" in cfg["mac_options"], cfg["mac_options"]
    created = [c[c.index("-module_name") + 1] for c in names(calls, "create_ip")]
    assert sorted(created) == sorted(Path(f).stem for f in cfg["ip_tcl_10g"]), created
    assert "xxv_ethernet_0" in created and not any(ip.startswith("cmac") for ip in created), created
    for ip in created:
        assert any(ip in c for c in names(calls, "synth_ip")), ip
    for c in names(calls, "create_ip"):
        if "xxv_ethernet_0" in c:
            assert c[c.index("-name") + 1] == "xxv_ethernet", c
    # the IP script's settings: PCS/PMA only, 10G BASE-R, GTY, the QSFP's 161.1328125 MHz reference clock
    props = " ".join(" ".join(c) for c in names(calls, "set_property"))
    for needle in ("CONFIG.CORE", "Ethernet PCS/PMA 64-bit", "CONFIG.LINE_RATE 10", "CONFIG.GT_TYPE GTY",
                   "CONFIG.GT_REF_CLK_FREQ 161.1328125", "CONFIG.BASE_R_KR BASE-R"):
        assert needle in props, (needle, props)
    synth = names(calls, "synth_design")[0]
    generics = [synth[i + 1] for i, w in enumerate(synth) if w == "-generic"]
    assert generics == ["GOLDEN=0", "MAC_10G=1"], synth
    read = {Path(c[-1]).name for c in names(calls, "read_verilog")}
    assert {"fpga.v", "tsnic_xgmii_tx.v", "tsnic_xgmii_rx.v", "tsnic_axis_downsize.v"} <= read, read
    # the constraints of the option (config.tcl xdc_10g): no LOCs of QSFP lanes the 10G top does not have
    xdcs = [Path(c[-1]).name for c in names(calls, "read_xdc")]
    if "xdc_10g" in cfg:
        assert [x for x in xdcs if x != "cdc.tcl"] == cfg["xdc_10g"], xdcs
    steps = [index_of(calls, "synth_design"), index_of(calls, "route_design"), index_of(calls, "write_bitstream"),
             index_of(calls, "write_cfgmem", lambda c: "bin" in c)]
    assert steps == sorted(steps), steps
    for f in ("fpga.bit", "fpga.mcs", "fpga.bin"):
        assert (out / f).is_file(), f


def test_build_without_the_xgmii_mac_names_it(tmp_path, rtl_tree):
    """MAC=10g needs tsnic_xgmii_rx from the RTL tree: a tree without it stops before any work."""
    (rtl_tree / "tsnic_xgmii_rx.v").unlink()
    rc, text, calls = run_tcl(
        tmp_path, BUILD, [str(BOARD / "alveo_u50"), str(tmp_path / "out"), "0", "10g"], {"TSNIC_RTL_DIR": str(rtl_tree)}
    )
    assert rc == 1 and "tsnic_xgmii_rx" in text, text
    assert not names(calls, "create_project")


@pytest.mark.parametrize(
    "board,mac,says",
    [("alveo_u50", "25g", "has the MAC options cmac, 10g"), ("netfpga_sume", "10g", "has one MAC only")],
)
def test_unknown_mac_option_is_refused(board, mac, says, tmp_path, rtl_tree):
    rc, text, calls = run_tcl(
        tmp_path, BUILD, [str(BOARD / board), str(tmp_path / "out"), "0", mac], {"TSNIC_RTL_DIR": str(rtl_tree)}
    )
    assert rc == 1 and says in text, text
    assert not names(calls, "create_project") and not names(calls, "synth_design")


@pytest.mark.parametrize("which", ["TSNIC_STUB_WNS", "TSNIC_STUB_WHS"])
def test_negative_slack_stops_before_the_bitstream(which, tmp_path, rtl_tree):
    out = tmp_path / "out"
    rc, text, calls = run_tcl(
        tmp_path, BUILD, [str(BOARD / "alveo_u50"), str(out)], {"TSNIC_RTL_DIR": str(rtl_tree), which: "-0.013"}
    )
    assert rc == 1, text
    assert ("setup" if which.endswith("WNS") else "hold") + " timing not met" in text, text
    assert not names(calls, "write_bitstream") and not names(calls, "write_cfgmem")
    assert not (out / "fpga.bit").exists()


def test_missing_rtl_module_is_named_before_any_work(tmp_path):
    rtl = tmp_path / "rtl"
    shutil.copytree(ROOT / "hdl" / "rtl", rtl)
    (rtl / "tsnic_board_core.v").unlink(missing_ok=True)
    rc, text, calls = run_tcl(
        tmp_path, BUILD, [str(BOARD / "alveo_u50"), str(tmp_path / "out")], {"TSNIC_RTL_DIR": str(rtl)}
    )
    assert rc == 1 and "tsnic_board_core" in text, text
    assert not names(calls, "create_project") and not names(calls, "synth_design")


def top_ports(board, mac_10g=0):
    """name -> width of the ports of board/<board>/rtl/fpga.v (with parameter MAC_10G = mac_10g: the
    QSFP lanes' `[(MAC_10G != 0 ? 0 : 3):0]`)."""
    src = (BOARD / board / "rtl" / "fpga.v").read_text()
    src = re.sub(r"//[^\n]*", "", src)
    src = re.sub(r"\(\s*MAC_10G\s*!=\s*0\s*\?\s*(\d+)\s*:\s*(\d+)\s*\)", r"\1" if mac_10g else r"\2", src)
    header = src[src.index("module fpga") : src.index(");")]
    ports = {}
    for m in re.finditer(r"\b(input|output|inout)\s+wire\s*(\[(\d+):(\d+)\])?\s*(\w+)", header):
        ports[m.group(5)] = int(m.group(3)) - int(m.group(4)) + 1 if m.group(2) else 1
    return ports


# transceiver lanes: placed by the IP's GT location settings, not by the XDC
GT_PORT = re.compile(r"^(pcie|qsfp\d?|sfp\d?)_(rx|tx)_[pn]$|^sfp_\d_(rx|tx)_[pn]$")


@pytest.mark.parametrize("board", BOARDS)
def test_xdc_names_only_ports_of_the_top(board, tmp_path):
    xdc = BOARD / board / "fpga.xdc"
    rc, text, calls = run_tcl(tmp_path, xdc, [])
    assert rc == 0, text
    assert not names(calls, "UNKNOWN"), names(calls, "UNKNOWN")
    ports = top_ports(board)
    used = set()
    for c in names(calls, "get_ports"):
        for p in c[-1].split():
            m = re.match(r"^(\w+)(\[(\d+|\*)\])?$", p)
            assert m, f"{board}: odd port pattern {p}"
            assert m.group(1) in ports, f"{board}: the XDC names {p}, which fpga.v does not have"
            if m.group(3) not in (None, "*"):
                assert int(m.group(3)) < ports[m.group(1)], f"{board}: {p} out of range"
            used.add(m.group(1))
    unplaced = [p for p in ports if p not in used and not GT_PORT.match(p)]
    assert not unplaced, f"{board}: top ports without any XDC constraint: {unplaced}"
    # a LOC for every non-GT port
    located = set()
    for c in names(calls, "set_property"):
        if "-dict" in c and "LOC" in c[c.index("-dict") + 1].split():
            located.update(re.sub(r"\[.*\]", "", p) for p in c[-1].split())
    assert not [p for p in ports if p not in located and not GT_PORT.match(p)], (board, located)
    # configuration: fallback to the golden image, and the flash bus settings of this board
    props = {(c[1], c[2]) for c in names(calls, "set_property") if len(c) >= 4}
    assert ("BITSTREAM.CONFIG.CONFIGFALLBACK", "ENABLE") in props, board
    if config(board)["flash_iface"][0] == "SPIx4":
        assert any(k == "BITSTREAM.CONFIG.CONFIGRATE" for k, _ in props), board
        assert ("BITSTREAM.CONFIG.SPI_BUSWIDTH", "4") in props, board
        assert ("BITSTREAM.CONFIG.SPI_32BIT_ADDR", "YES") in props, board
        assert ("BITSTREAM.CONFIG.NEXT_CONFIG_REBOOT", "DISABLE") in props, board
    assert names(calls, "create_clock"), board


def test_cdc_constraints_cover_each_crossing_module(tmp_path):
    """board/common/vivado/cdc.tcl, with one instance of each CDC module in the (stubbed) netlist,
    constrains each with -datapath_only max delays of the clock period or a false path into the first
    synchronizer flop."""
    rc, text, calls = run_tcl(tmp_path, BOARD / "common" / "vivado" / "cdc.tcl", [], {"TSNIC_STUB_CDC": "1"})
    assert rc == 0, text
    assert not names(calls, "UNKNOWN"), names(calls, "UNKNOWN")
    md = [" ".join(c) for c in names(calls, "set_max_delay")]
    for needle in (
        "u_tsnic_cdc_async_fifo/s_gray_reg_reg[*]",
        "u_tsnic_cdc_async_fifo/m_gray_reg_reg[*]",
        "u_tsnic_cdc_bus/s_data_reg_reg[*]",
        "u_tsnic_cdc_bus/req_reg_reg",
        "u_tsnic_cdc_bus/ack_reg_reg",
        "u_tsnic_td_source/*",
    ):
        hits = [m for m in md if needle in m]
        assert hits, (needle, md)
        assert all("-datapath_only" in m and m.endswith(" 4.000") for m in hits), hits
    fp = " ".join(" ".join(c) for c in names(calls, "set_false_path"))
    assert "u_tsnic_cdc_sync/sync1_reg_reg" in fp, fp


@pytest.mark.parametrize("missing", ["s_gray_reg_reg", "m_wr_gray_sync1_reg_reg", "req_sync1_reg_reg",
                                     "ack_reg_reg", "sync1_reg_reg", "neg1_reg_reg"])
def test_cdc_pattern_matching_nothing_fails(tmp_path, missing):
    """cdc.tcl stops, naming the instance and the pattern, when a register it constrains is not in the
    netlist (renamed), instead of leaving that crossing unconstrained (issue 30, defect 9)."""
    rc, text, calls = run_tcl(tmp_path, BOARD / "common" / "vivado" / "cdc.tcl", [],
                              {"TSNIC_STUB_CDC": "1", "TSNIC_STUB_CDC_MISSING": missing})
    assert rc != 0, text
    assert "no cell matches" in text and missing in text, text


def test_cdc_no_crossing_module_found_fails(tmp_path):
    """A netlist in which no CDC module is found at all (the look-up by ORIG_REF_NAME failed) is an
    error, not a design without crossings."""
    rc, text, calls = run_tcl(tmp_path, BOARD / "common" / "vivado" / "cdc.tcl", [], {"TSNIC_STUB_CDC": "0"})
    assert rc != 0, text
    assert "no instance of any tsnic CDC module" in text, text


@pytest.mark.parametrize("board", BOARDS)
def test_ip_scripts_match_the_top_and_the_stubs(board):
    """Each IP the top instantiates (itself or through a shared module of board/common/rtl) is
    generated by an ip/*.tcl of config.tcl and has a lint stub."""
    src = (BOARD / board / "rtl" / "fpga.v").read_text()
    # the shared modules it instantiates, and those they instantiate (tsnic_alveo_top -> tsnic_alveo_mac)
    shared = {f.stem: f.read_text() for f in sorted((BOARD / "common" / "rtl").glob("*.v"))}
    read = set()
    while True:
        more = [m for m in shared if m not in read and re.search(r"^\s*%s\s+(#\s*\(|\w+\s*\()" % m, src, re.M)]
        if not more:
            break
        for m in more:
            read.add(m)
            src += shared[m]
    used = set(re.findall(r"^\s*((?:%s)\w*)\s+\w+\s*\(" % "|".join(IP_PREFIXES), src, re.M))
    # an IP a shared module instantiates only when a string parameter names it (tsnic_alveo_top:
    # `if (PCIE_IP == "pcie4c_uscale_plus_0")`) is used only if the top sets that parameter to it (or
    # leaves it at a default naming it)
    for param, ip in re.findall(r'\bif\s*\(\s*(\w+)\s*==\s*"(\w+)"\s*\)', src):
        chosen = re.search(r'\.%s\s*\(\s*"(\w+)"\s*\)' % param, src) or re.search(
            r'parameter\s*(?:\[[^\]]*\]\s*)?%s\s*=\s*"(\w+)"' % param, src
        )
        assert chosen, (board, param)
        if ip.startswith(IP_PREFIXES) and chosen.group(1) != ip:
            used.discard(ip)
    cfg = config(board)

    def made(scripts):
        out = set()
        for f in scripts:
            out.update(re.findall(r"-module_name\s+(\w+)", (BOARD / board / f).read_text()))
        return out

    # the default build's IP, and each MAC option's: together exactly what the top instantiates
    per_option = [made(cfg["ip_tcl"])] + [made(cfg[f"ip_tcl_{m}"]) for m in cfg.get("mac_options", [])[1:]]
    assert used and used == set().union(*per_option), (used, per_option)
    assert all(len(p) == len(per_option[0]) for p in per_option), per_option
    for ip in used:
        assert (BOARD / "common" / "stubs" / f"{ip}.v").is_file(), ip


@pytest.mark.parametrize("mode", ["fpga", "flash"])
def test_program_over_jtag(mode, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    for f in ("fpga.bit", "fpga.mcs", "fpga.prm"):
        (out / f).write_text("")
    rc, text, calls = run_tcl(tmp_path, PROGRAM, [mode, str(BOARD / "alveo_u50"), str(out)])
    assert rc == 0, text
    assert not names(calls, "UNKNOWN"), names(calls, "UNKNOWN")
    order = [index_of(calls, "open_hw_manager"), index_of(calls, "open_hw_target"), index_of(calls, "program_hw_devices")]
    if mode == "flash":
        order += [index_of(calls, "program_hw_cfgmem"), index_of(calls, "boot_hw_device")]
        assert index_of(calls, "create_hw_cfgmem") < order[-2]
        assert any("mt25qu01g-spi-x1_x2_x4" in " ".join(c) for c in names(calls, "create_hw_cfgmem"))
    order.append(index_of(calls, "close_hw_manager"))
    assert order == sorted(order), order


@pytest.mark.parametrize("mode,out,hint", [
    ("fpga", "build", "bitstream`"),
    ("flash", "build-golden", "golden`"),
    ("fpga", "build-10g", "bitstream MAC=10g`"),
    ("flash", "build-golden-10g", "golden MAC=10g`"),
])
def test_program_without_the_files_says_so(mode, out, hint, tmp_path):
    # the hint names the make command (and MAC option) that builds the missing file
    u50 = BOARD / "alveo_u50"
    rc, text, calls = run_tcl(tmp_path, PROGRAM, [mode, str(u50), str(tmp_path / out)])
    assert rc == 1 and f"make -C {u50} {hint} first" in text, text
    assert not names(calls, "open_hw_manager")


def test_program_refuses_a_flash_it_cannot_write(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "fpga.mcs").write_text("")
    rc, text, calls = run_tcl(tmp_path, PROGRAM, ["flash", str(BOARD / "netfpga_sume"), str(out)])
    assert rc == 1 and "not written through Vivado" in text, text
    assert not names(calls, "open_hw_manager")


def test_program_finds_no_device_of_another_part(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "fpga.bit").write_text("")
    rc, text, _ = run_tcl(tmp_path, PROGRAM, ["fpga", str(BOARD / "alveo_u50"), str(out)], {"TSNIC_STUB_HW_PART": "xcvu9p"})
    assert rc == 1 and "no xcu50 device" in text, text
