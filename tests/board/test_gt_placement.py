"""Placement facts that are checked (issue 30): for every board, the GT pins its XDCs LOC (PCIe lanes,
QSFP/SFP lanes, reference clocks), the GT location settings of its ip/*.tcl and the clock regions of its
placement pblocks agree with one table per part (tests/board/gt_sites.py, each row citing its source).
Reads the files; no Vivado. What only Vivado can tell (that the IP places its GTs where these say, the
pblocks' effect on timing): docs/BOARDS.md."""

import re
from pathlib import Path

import pytest

from gt_sites import PARTS

ROOT = Path(__file__).resolve().parents[2]
BOARD = ROOT / "board"
BOARDS = sorted(p.parent.name for p in BOARD.glob("*/config.tcl"))
# the top's port names of each board: PCIe refclk, Ethernet refclk, Ethernet lane prefix (scalar: one lane)
PORTS = {
    "alveo_u50": ("pcie_refclk_1_p", "qsfp_mgt_refclk_0_p", "qsfp", False),
    "alveo_u280": ("pcie_refclk_1_p", "qsfp0_mgt_refclk_1_p", "qsfp0", False),
    "alveo_u250": ("pcie_refclk_p", "qsfp0_mgt_refclk_1_p", "qsfp0", False),
    "netfpga_sume": ("pcie_mgt_refclk_p", "sfp_mgt_refclk_p", "sfp_1", True),
}
SITE = re.compile(r"^X(\d+)Y(\d+)$")


def config(board):
    out = {}
    for line in (BOARD / board / "config.tcl").read_text().splitlines():
        m = re.match(r"\s*set\s+(\w+)\s+(.*?)\s*$", line)
        if m:
            v = m.group(2)
            out[m.group(1)] = v[1:-1].split() if v.startswith("{") else [v]
    return out


def xdc_locs(board, files):
    """port -> LOC of the `set_property -dict {LOC ...} [get_ports ...]` lines of FILES (comments skipped)."""
    locs = {}
    for f in files:
        for line in (BOARD / board / f).read_text().splitlines():
            if line.lstrip().startswith("#"):
                continue
            m = re.match(r"\s*set_property\s+-dict\s+\{([^}]*)\}\s+\[get_ports\s+\{?([\w\[\]]+)\}?\]", line)
            if m and "LOC" in m.group(1).split():
                words = m.group(1).split()
                port = m.group(2)
                assert port not in locs, f"{board}/{f}: {port} LOCed twice"
                locs[port] = words[words.index("LOC") + 1]
    return locs


def ip_config(board, script):
    text = (BOARD / board / script).read_text()
    return dict(re.findall(r"CONFIG\.(\w+)\s+\{([^}]*)\}", text))


def lane_ports(prefix, scalar, i):
    return [f"{prefix}_{x}" if scalar else f"{prefix}_{x}[{i}]" for x in ("rx_p", "rx_n", "tx_p", "tx_n")]


def site(s):
    m = SITE.match(s)
    assert m, s
    return int(m.group(1)), int(m.group(2))


def options(board):
    """(name, ip scripts, xdc files, Ethernet lanes of the top) of each MAC option of BOARD."""
    cfg = config(board)
    macs = cfg.get("mac_options", ["only"])
    out = []
    for i, mac in enumerate(macs):
        ip = cfg["ip_tcl"] if i == 0 else cfg[f"ip_tcl_{mac}"]
        xdc = cfg["xdc"] if i == 0 or f"xdc_{mac}" not in cfg else cfg[f"xdc_{mac}"]
        lanes = 1 if (mac == "10g" or PORTS[board][3]) else 4
        out.append((mac, ip, xdc, lanes))
    return out


@pytest.mark.parametrize("board", BOARDS)
def test_table_is_consistent(board):
    """Each table row: the lanes of a quad share its column and Y // 4 (four channels per GTY/GTH quad,
    UG578 / UG476); the reference clock's quad is the lanes' quad or its neighbour (MGTREFCLK names)."""
    t = PARTS[config(board)["part"][0]]
    for use in ("pcie", "eth"):
        row = t[use]
        quads = {site(q) for q in row["quads"]}
        for lane in row["lanes"]:
            x, y = site(lane[0])
            assert (x, y // 4) in quads, (board, use, lane)
        assert len({q for q in quads}) == len({site(lane[0])[1] // 4 for lane in row["lanes"]}), (board, use)
        assert len({lane[0] for lane in row["lanes"]}) == len(row["lanes"]), (board, use)


@pytest.mark.parametrize("board", BOARDS)
def test_xdc_gt_pins_match_the_table(board):
    t = PARTS[config(board)["part"][0]]
    pcie_ref, eth_ref, prefix, scalar = PORTS[board]
    for mac, _, xdc, lanes in options(board):
        locs = xdc_locs(board, xdc)
        where = f"{board} ({mac}: {' '.join(xdc)})"
        # every PCIe lane and every Ethernet lane the top has, at the table's pins
        for i, lane in enumerate(t["pcie"]["lanes"]):
            for port, pin in zip(lane_ports("pcie", False, i), lane[1:5]):
                assert locs.get(port) == pin, f"{where}: {port} LOC {locs.get(port)}, table {pin} ({lane[0]})"
        for i, lane in enumerate(t["eth"]["lanes"][:lanes]):
            for port, pin in zip(lane_ports(prefix, scalar, i), lane[1:5]):
                assert locs.get(port) == pin, f"{where}: {port} LOC {locs.get(port)}, table {pin} ({lane[0]})"
        # no LOC for a lane the top does not have (the 10G build's top has lane 0 only)
        for port in locs:
            m = re.match(r"^%s_(rx|tx)_[pn]\[(\d+)\]$" % prefix, port)
            assert not m or int(m.group(2)) < lanes, f"{where}: {port} LOCed, but the top has {lanes} lane(s)"
        # the reference clock pins
        assert locs.get(pcie_ref) == t["pcie"]["refclk"][0], (where, pcie_ref, locs.get(pcie_ref))
        assert locs.get(eth_ref) == t["eth"]["refclk"][0], (where, eth_ref, locs.get(eth_ref))


@pytest.mark.parametrize("board", [b for b in BOARDS if b.startswith("alveo")])
def test_ip_gt_locations_match_the_table(board):
    """The CMAC's GT_GROUP_SELECT / LANEn_GT_LOC and the 10G PCS/PMA's GT_GROUP_SELECT / LANE1_GT_LOC are
    the table's Ethernet channels and quad."""
    eth = PARTS[config(board)["part"][0]]["eth"]
    chans = [lane[0] for lane in eth["lanes"]]
    for mac, ips, _, lanes in options(board):
        checked = set()
        for script in ips:
            c = ip_config(board, script)
            if Path(script).name.startswith("cmac_usplus"):
                checked.add("cmac")
                assert c["GT_GROUP_SELECT"] == f"{chans[0]}~{chans[3]}", (board, script, c["GT_GROUP_SELECT"], chans)
                for k in range(4):
                    assert c[f"LANE{k + 1}_GT_LOC"] == chans[k], (board, script, k, c[f"LANE{k + 1}_GT_LOC"], chans[k])
            elif Path(script).name.startswith("xxv_ethernet"):
                checked.add("xxv")
                assert c["GT_GROUP_SELECT"] == f"Quad_{eth['quads'][0]}", (board, script, c["GT_GROUP_SELECT"])
                assert c["LANE1_GT_LOC"] == chans[0], (board, script, c["LANE1_GT_LOC"], chans[0])
        # each MAC option's IP had its GT settings checked
        assert checked == ({"xxv"} if mac == "10g" else {"cmac"}), (board, mac, ips, checked)


def pblocks(board):
    """pblock -> (cells, clock-region rows (y0, y1) or SLR name) of board/<board>/placement.xdc."""
    text = (BOARD / board / "placement.xdc").read_text()
    out = {}
    for m in re.finditer(r"add_cells_to_pblock \[get_pblocks (\w+)\] \[get_cells ([^\]]+)\]", text):
        out.setdefault(m.group(1), [[], None])[0].append(m.group(2).strip())
    for m in re.finditer(r"resize_pblock \[get_pblocks (\w+)\] -add \{([^}]*)\}", text):
        r = m.group(2)
        cr = re.match(r"CLOCKREGION_X\d+Y(\d+):CLOCKREGION_X\d+Y(\d+)$", r)
        out[m.group(1)][1] = (int(cr.group(1)), int(cr.group(2))) if cr else r
    return out


@pytest.mark.parametrize("board", [b for b in BOARDS if b.startswith("alveo")])
def test_placement_covers_the_gts_and_names_real_instances(board):
    """pblock_pcie's and pblock_eth's clock-region rows hold the PCIe and Ethernet quads (one GT quad per
    clock-region row, UG572/UG578: quad Y = region Y); every cell path names instances of the RTL."""
    t = PARTS[config(board)["part"][0]]
    pb = pblocks(board)
    for name, use in (("pblock_pcie", "pcie"), ("pblock_eth", "eth")):
        y0, y1 = pb[name][1]
        for q in t[use]["quads"]:
            assert y0 <= site(q)[1] <= y1, f"{board}: {name} rows {y0}-{y1} miss the {use} quad {q}"
    top = (BOARD / board / "rtl" / "fpga.v").read_text()
    alveo = (BOARD / "common" / "rtl" / "tsnic_alveo_top.v").read_text()
    core = (ROOT / "hdl" / "rtl" / "tsnic_board_core.v").read_text()
    ip = re.search(r'\.PCIE_IP\("(\w+)"\)', top).group(1)
    gen = {"pcie4c_uscale_plus_0": "pcie4c", "pcie4_uscale_plus_0": "pcie4"}[ip]
    inside = {"alveo_inst": top, "pcie_inst": alveo, "mac_inst": alveo, "core_inst": alveo,
              "mac_tx_inst": core, "mac_rx_inst": core}
    for cells, _ in pb.values():
        for path in cells:
            segs = path.split("/")
            assert segs[0] == "alveo_inst", path
            for seg in segs:
                label, _, inst = seg.rpartition(".")
                src = inside[inst]
                assert re.search(r"(?:\)|\w)\s+%s\s*\(" % inst, src), f"{board}: no instance {inst} for {path}"
                if label:
                    assert re.search(r"begin\s*:\s*%s\b" % label, src), f"{board}: no generate block {label} for {path}"
                    if inst == "pcie_inst":
                        assert label == gen, f"{board}: {path} but the top's PCIE_IP is {ip} (block {gen})"
