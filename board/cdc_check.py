#!/usr/bin/env python3
"""Every clock crossing of each board top is inside a CDC module that cdc.tcl constrains (issue 30,
defect 9).

For each board/<board>/rtl/fpga.v (with --variants also its MAC_10G=1 variant, if it has one), Yosys
elaborates the top with the RTL of hdl/rtl and board/common/rtl, the IP and primitive stubs of
board/common/stubs as black boxes, NUM_QUEUES = 2 and the calendar's SORT_W = 4 (the crossings depend
on neither), then `proc; flatten; memory -nomap` (no technology mapping). On that netlist this script
  - names the clocks: the clock input of every register is traced back through BUFG (a buffer) to
    its root: a top-level port, a black-box output (IP clock, MMCM, BUFG_GT, BUFGCE_DIV) or a
    register (a divided clock); each root is one clock domain, named after its net;
  - lists every register (flip-flop, or a memory's clocked write or read port) whose inputs (data,
    enable, resets, and for memories the stored data) come, through any logic, from a register of
    another domain. Black-box outputs and top-level inputs carry no domain (not traced);
  - fails unless each such register is defined in one of the modules cdc.tcl constrains (the
    modules it looks up with tsnic_cells_of: tsnic_cdc_*, tsnic_td_sink).
Run: board/cdc_check.py [--keep DIR] [--top board[:MAC_10G]] [--list]   (about 40 s of CPU a top)
Checked to catch a planted crossing: tests/board/test_cdc_check.py.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CDC_TCL = ROOT / "board" / "common" / "vivado" / "cdc.tcl"

FF_TYPES = {"$dff", "$dffe", "$adff", "$adffe", "$sdff", "$sdffe", "$sdffce", "$dffsr", "$dffsre",
            "$aldff", "$aldffe", "$dlatch", "$adlatch", "$dlatchsr"}
FF_INPUTS = ("D", "EN", "ARST", "SRST", "SET", "CLR", "AD", "ALOAD")
BITWISE = {"$not", "$pos", "$and", "$or", "$xor", "$xnor", "$mux"}
CLOCK_BUFFERS = {"BUFG": ("I", "O")}     # same clock out as in


def allowed_modules():
    """The modules cdc.tcl constrains crossings into (its `foreach inst [tsnic_cells_of X]` loops)."""
    return sorted(set(re.findall(r"foreach inst \[tsnic_cells_of (\w+)\]", CDC_TCL.read_text())))


def tops(variants):
    """Every board top at its default options; with `variants` also its MAC_10G = 1 variant."""
    out = []
    for top in sorted(ROOT.glob("board/*/rtl/fpga.v")):
        board = top.parent.parent.name
        out.append((board, top, {}))
        if variants and re.search(r"parameter\s+MAC_10G", top.read_text()):
            out.append((board, top, {"MAC_10G": 1}))
    return out


def needed(top, files):
    """The files (one module each, named after it) the top instantiates, directly or below."""
    by_name = {Path(f).stem: f for f in files}
    out, todo = [], [Path(top).read_text()]
    while todo:
        text = todo.pop()
        for name, f in list(by_name.items()):
            if re.search(r"\b" + name + r"\b", text):
                out.append(f)
                todo.append(Path(f).read_text())
                del by_name[name]
    return sorted(out)


def elaborate(top, params, json_out, override=()):
    """Yosys: the top with the RTL it uses (a file of `override` replaces the RTL file of that name)."""
    repl = {Path(p).name: str(p) for p in override}
    srcs = [repl.pop(p.name, str(p)) for p in (ROOT / "hdl" / "rtl").glob("*.v")]
    srcs += [repl.pop(p.name, str(p)) for p in (ROOT / "board" / "common" / "rtl").glob("*.v")]
    srcs = needed(top, srcs + list(repl.values())) + [str(top)]
    stubs = sorted(str(p) for p in (ROOT / "board" / "common" / "stubs").glob("*.v"))
    chp = " ".join(f"-chparam {k} {v}" for k, v in params.items())
    # -defer: nothing is elaborated with its default parameters first, only as the top uses it.
    # SORT_W 4 (its least): the calendar's release buffer, one clock domain inside, is most of the
    # elaboration time at its 32 cells (with -defer, 35 s of CPU a top instead of 85 s).
    script = (f"read_verilog -lib {' '.join(stubs)}; "
              f"read_verilog -defer -I{ROOT / 'hdl' / 'rtl'} {' '.join(srcs)}; "
              "chparam -set NUM_QUEUES 2 tsnic_board_core; chparam -set SORT_W 4 tsnic_calendar; "
              f"hierarchy -top fpga {chp}; proc; flatten; memory -nomap; opt_clean; "
              f"write_json {json_out}")
    p = subprocess.run(["yosys", "-q", "-p", script], capture_output=True, text=True, cwd=ROOT)
    if p.returncode != 0:
        sys.exit(f"cdc check: yosys failed on {top}:\n{p.stdout[-3000:]}{p.stderr[-3000:]}")


class Netlist:
    def __init__(self, path):
        mod = json.load(open(path))["modules"]["fpga"]
        self.cells = mod["cells"]
        # net names of each bit: a register is named by its *_reg net (else any, not a port), a
        # clock by its shortest, least hierarchical name (the top's port, the IP's clock output)
        ports = set(mod["ports"])
        self.names, self.clock_names = {}, {}

        def reg_rank(nm):
            base = nm.split("[")[0]
            return (nm.startswith("$"), base in ports, not re.search(r"_reg$", base), len(nm))

        def clk_rank(nm):
            return (nm.startswith("$"), nm.count("."), len(nm))

        for name, n in mod["netnames"].items():
            for i, b in enumerate(n["bits"]):
                if isinstance(b, str):
                    continue
                nm = name if len(n["bits"]) == 1 else f"{name}[{i + n.get('offset', 0)}]"
                for table, rank in ((self.names, reg_rank), (self.clock_names, clk_rank)):
                    old = table.get(b)
                    if old is None or rank(nm) < rank(old):
                        table[b] = nm
        self.top_inputs = set()
        for name, port in mod["ports"].items():
            if port["direction"] == "input":
                self.top_inputs.update(b for b in port["bits"] if not isinstance(b, str))
        self.driver = {}                       # bit -> (cell, port, index)
        for cn, c in self.cells.items():
            dirs = c.get("port_directions", {})
            for pn, bits in c["connections"].items():
                if dirs.get(pn) == "output":
                    for i, b in enumerate(bits):
                        if not isinstance(b, str):
                            self.driver[b] = (cn, pn, i)
        self._clk = {}
        self._src = {}

    def name(self, b):
        return self.names.get(b, f"<bit {b}>")

    def clock_domain(self, b):
        """The root of a clock bit: through BUFG; a register, black box, top port or logic is a root."""
        seen = 0
        while not isinstance(b, str) and seen < 64:
            d = self.driver.get(b)
            if d is None:
                return self.clock_names.get(b, f"<bit {b}>")
            c = self.cells[d[0]]
            if c["type"] in CLOCK_BUFFERS:
                b = c["connections"][CLOCK_BUFFERS[c["type"]][0]][0]
                seen += 1
                continue
            return self.clock_names.get(b, f"<bit {b}>")
        return str(b)

    def ff_domain(self, cn):
        c = self.cells[cn]
        return self.clock_domain(c["connections"]["CLK"][0])

    def mem_ports(self, c):
        p = c["parameters"]
        w, ab = int(p["WIDTH"], 2), int(p["ABITS"], 2)
        nr, nw = int(p["RD_PORTS"], 2), int(p["WR_PORTS"], 2)
        rce = int(p["RD_CLK_ENABLE"], 2) if nr else 0
        wce = int(p["WR_CLK_ENABLE"], 2) if nw else 0
        return w, ab, nr, nw, rce, wce

    def mem_write_domains(self, cn):
        c = self.cells[cn]
        w, ab, nr, nw, rce, wce = self.mem_ports(c)
        doms = set()
        for i in range(nw):
            if (wce >> i) & 1:
                doms.add(self.clock_domain(c["connections"]["WR_CLK"][i]))
        return doms

    def sources(self, bit):
        """Clock domains of the registers feeding `bit` through logic (iterative, memoized)."""
        if isinstance(bit, str):
            return frozenset()
        if bit in self._src:
            return self._src[bit]
        stack = [(bit, False)]
        busy = set()                           # on the stack: a combinational loop stops here
        while stack:
            b, expanded = stack.pop()
            if b in self._src or (b in busy and not expanded):
                continue
            busy.add(b)
            d = self.driver.get(b)
            if d is None:
                self._src[b] = frozenset()
                continue
            cn, pn, idx = d
            c = self.cells[cn]
            t = c["type"]
            if t in FF_TYPES:
                self._src[b] = frozenset([self.ff_domain(cn)])
                continue
            if t == "$mem_v2":
                w, ab, nr, nw, rce, wce = self.mem_ports(c)
                port = idx // w
                if (rce >> port) & 1:
                    self._src[b] = frozenset([self.clock_domain(c["connections"]["RD_CLK"][port])])
                    continue
                ins = c["connections"]["RD_ADDR"][port * ab:(port + 1) * ab]
                extra = frozenset(self.mem_write_domains(cn))
            elif not t.startswith("$"):
                self._src[b] = frozenset()     # black box (IP, primitive) output: not traced
                continue
            else:
                ins = self.cell_inputs(c, pn, idx)
                extra = frozenset()
            pend = [i for i in ins if not isinstance(i, str) and i not in self._src and i not in busy]
            if pend and not expanded:
                stack.append((b, True))
                stack.extend((i, False) for i in pend)
                continue
            acc = set(extra)
            for i in ins:
                if not isinstance(i, str):
                    acc |= self._src.get(i, frozenset())     # a combinational loop: left out
            self._src[b] = frozenset(acc)
        return self._src[bit]

    def cell_inputs(self, c, out_port, idx):
        conn = c["connections"]
        dirs = c.get("port_directions", {})
        t = c["type"]
        if t in BITWISE:
            ins = []
            for pn in ("A", "B"):
                bits = conn.get(pn)
                if bits is None:
                    continue
                if len(bits) == len(conn[out_port]):
                    ins.append(bits[idx])
                else:
                    ins.extend(bits)
            if t == "$mux":
                ins.extend(conn["S"])
            return ins
        return [b for pn, bits in conn.items() if dirs.get(pn) == "input" for b in bits]

    def sinks(self):
        """(cell, what, own domain, [input bits]) of every clocked element."""
        for cn, c in self.cells.items():
            t = c["type"]
            if t in FF_TYPES and "CLK" in c["connections"]:
                ins = [b for p in FF_INPUTS for b in c["connections"].get(p, [])]
                yield cn, self.ff_domain(cn), ins, frozenset()
            elif t == "$mem_v2":
                w, ab, nr, nw, rce, wce = self.mem_ports(c)
                conn = c["connections"]
                for i in range(nw):
                    if (wce >> i) & 1:
                        ins = conn["WR_EN"][i * w:(i + 1) * w] + conn["WR_ADDR"][i * ab:(i + 1) * ab] + \
                            conn["WR_DATA"][i * w:(i + 1) * w]
                        yield cn + f" (write port {i})", self.clock_domain(conn["WR_CLK"][i]), ins, frozenset()
                for i in range(nr):
                    if (rce >> i) & 1:
                        ins = conn["RD_ADDR"][i * ab:(i + 1) * ab] + conn["RD_EN"][i:i + 1]
                        yield cn + f" (read port {i})", self.clock_domain(conn["RD_CLK"][i]), ins, \
                            frozenset(self.mem_write_domains(cn))

    def label(self, cn, allowed):
        """The register's name (its output net) and the CDC module it is in (None if none). A
        flattened cell's src attribute lists its definition and the instantiation sites above it;
        the CDC modules instantiate nothing, so a file of one in that list means inside one."""
        key = cn.split(" (")[0]
        c = self.cells[key]
        files = {Path(f.split(":")[0]).stem for f in c.get("attributes", {}).get("src", "").split("|") if f}
        inside = sorted(files & set(allowed))
        q = c["connections"].get("Q") or c["connections"].get("RD_DATA") or []
        nm = self.name(q[0]) if q else key
        if c["type"] == "$mem_v2":
            nm = c["parameters"].get("MEMID", key).lstrip("\\") + cn[len(key):]
        return re.sub(r"\[\d+\]$", "", nm), (inside[0] if inside else None)


def check(board, top, params, keep, listing, allowed, override=()):
    tag = board + "".join(f" {k}={v}" for k, v in params.items())
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(keep or tmp) / (board + "".join(f"_{k}{v}" for k, v in params.items()) + ".json")
        out.parent.mkdir(parents=True, exist_ok=True)
        elaborate(top, params, out, override)
        net = Netlist(out)
    crossings = {}
    domains = set()
    for cn, dom, ins, extra in net.sinks():
        domains.add(dom)
        src = set(extra)
        for b in ins:
            src |= net.sources(b)
        foreign = sorted(s for s in src if s != dom)
        if foreign:
            name, module = net.label(cn, allowed)
            key = (module or "", name, dom)
            crossings.setdefault(key, set()).update(foreign)
    bad = [(k, v) for k, v in sorted(crossings.items()) if not k[0]]
    print(f"cdc check: {tag}: {len(domains)} clock domains ({', '.join(sorted(domains))}); "
          f"{len(crossings)} registers fed from another domain, {len(crossings) - len(bad)} inside "
          f"{'/'.join(allowed)}", flush=True)
    if listing:
        for (module, name, dom), srcs in sorted(crossings.items()):
            print(f"  {module or 'OUTSIDE'}: {name} ({dom}) <- {', '.join(sorted(srcs))}")
    for (module, name, dom), srcs in bad:
        print(f"cdc check: {tag}: {name} (clock {dom}) is fed from {', '.join(sorted(srcs))} "
              f"outside the CDC modules cdc.tcl constrains")
    return not bad


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--keep", help="keep the Yosys JSON netlists in this folder")
    ap.add_argument("--top", action="append", help="board[:MAC_10G] (default: every board and variant)")
    ap.add_argument("--list", action="store_true", help="list every crossing register")
    ap.add_argument("--variants", action="store_true", help="also each top's MAC_10G = 1 variant")
    ap.add_argument("--override", action="append", default=[],
                    help="a Verilog file replacing the RTL file of the same name (tests)")
    ap.add_argument("--top-file", help="check this top (module fpga) instead of the boards' (tests)")
    a = ap.parse_args()
    allowed = allowed_modules()
    todo = [("file", Path(a.top_file).resolve(), {})] if a.top_file else tops(a.variants or a.top)
    if a.top:
        want = set(a.top)
        todo = [t for t in todo if (t[0] + (":MAC_10G" if t[2] else "")) in want]
    if not todo:
        sys.exit("cdc check: no board tops")
    ok = True
    for board, top, params in todo:
        ok &= check(board, top, params, a.keep, a.list, allowed, a.override)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
