#!/usr/bin/env python3
"""Worst register-to-register paths of a kept sta.sh netlist, with one instance's own paths left out.

  sta_paths.py [--sta DIR] [--top N] [--exclude INST] NETLIST.json TOP

Runs the shared estimator's timing walk (sta.py from --sta, default the directory of $STA or
../shared/tools/sta) on a netlist that `sta.sh --keep DIR` left behind, and prints the N worst
endpoint groups (one line each: ns, LUT levels, carry, muxf, start -> end) twice: over all paths, and
over the paths that do not both start and end inside instance INST (default calendar_inst: the
calendar and its sorter), which is what is left to fix outside that instance. A start or end cell is
inside when its source attribute names INST's own files (--files), when its flattened name is INST.*
(memory cells), or when it is a shared-library register (tsnic_ram_sdp / tsnic_fifo) whose output
net has a name INST.*. The first list is sta.sh's own walk, only longer.
"""
import argparse
import importlib.util
import os
import re
import sys


def load_sta(sta_dir):
    path = os.path.join(sta_dir, "sta.py")
    if not os.path.isfile(path):
        sys.exit(f"sta_paths: {path} is missing; pass --sta DIR (the shared tools/sta directory)")
    spec = importlib.util.spec_from_file_location("sta", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def main():
    default_sta = os.path.dirname(os.environ["STA"]) if os.environ.get("STA") else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "shared", "tools", "sta")
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("json")
    ap.add_argument("top")
    ap.add_argument("--sta", default=default_sta, help="directory of the shared sta.py")
    ap.add_argument("--model", default="xcup", choices=["xcup", "xc7"])
    ap.add_argument("--top", dest="n", type=int, default=10, help="endpoint groups to print per list")
    ap.add_argument("--exclude", default="calendar_inst", help="instance whose internal paths the second list leaves out")
    ap.add_argument("--files", default="tsnic_calendar.v,tsnic_calendar_sorter.v",
                    help="source files that mark an unnamed cell as inside the instance")
    ap.add_argument("--neither", action="store_true",
                    help="print only the paths that neither start nor end inside the instance")
    a = ap.parse_args()
    sta = load_sta(a.sta)

    import json
    d = json.load(open(a.json))
    if a.top not in d["modules"]:
        sys.exit(f"sta_paths: module {a.top} is not in {a.json}")
    mod = d["modules"][a.top]
    cells = mod["cells"]
    names = sta.bitname_map(mod)
    prefix = a.exclude + "."
    files = [f for f in a.files.split(",") if f]

    aliases = {}
    for n, info in mod["netnames"].items():
        for b in info["bits"]:
            if isinstance(b, int):
                aliases.setdefault(b, []).append(n)
    libfiles = ("tsnic_ram_sdp.v", "tsnic_fifo.v")

    def cell_inside(c):
        # a cell is inside when it came from the instance's own files, carries its hierarchical name
        # (memory cells), or is a shared-library register whose output net has a name inside it
        if c is None:
            return False
        if c.startswith(prefix) or c.startswith("\\" + prefix):
            return True
        x = cells.get(c, {})
        srcs = [os.path.basename(p.split(":")[0]) for p in x.get("attributes", {}).get("src", "").split("|") if p]
        if any(f in files for f in srcs):
            return True
        if x.get("type", "").startswith("FD"):
            # a register's preferred (shortest public) output name; a shared-library register counts
            # on any of its names
            q = x.get("connections", {}).get("Q", [None])[0]
            if names.get(q, "").startswith(prefix):
                return True
            if any(f in libfiles for f in srcs):
                return any(n.startswith(prefix) for n in aliases.get(q, []))
        return False

    lib = sta.parse_specify("/usr/share/yosys/xilinx/cells_sim.v") if a.model == "xc7" else {}

    def run(mode):
        # mode "all": every path; "start_out": start points inside dropped; "end_out": endpoints inside dropped
        orig_build = sta.build

        def build(m, model, lb):
            arcs, start, ends, unknown = orig_build(m, model, lb)
            if mode in ("start_out", "both_out"):
                start = {b: v for b, v in start.items() if not cell_inside(v[1])}
            if mode in ("end_out", "both_out"):
                ends = {b: [e for e in lst if not cell_inside(e[1])] for b, lst in ends.items()}
                ends = {b: lst for b, lst in ends.items() if lst}
            return arcs, start, ends, unknown

        sta.build = build
        try:
            res, groups, summarize, _unknown, _loops, _names = sta.analyse(mod, a.model, lib, a.n)
        finally:
            sta.build = orig_build
        out = []
        for kind in ("ff", "ram", "bram"):
            for key, r in groups.items():
                if key[0] == kind and r[2] is not None:
                    out.append(summarize(r))
        return out

    def show(title, paths):
        paths = sorted(paths, key=lambda s: -s["total"])
        seen = set()
        print(f"## {title}")
        k = 0
        for s in paths:
            key = re.sub(r"\[\d+\]", "", s["end"])
            if key in seen:
                continue
            seen.add(key)
            c = s["cnt"]
            kind = {"ff": "FF", "ram": "LUTRAM", "bram": "BRAM"}.get(s["org"], s["org"])
            print(f"  {s['total']:6.3f} ns  {kind:6s} LUT={c['LUT']} CARRY={c['CARRY']} MUXF={c['MUXF']}  "
                  f"{s['start']}  ->  {s['end']}")
            k += 1
            if k >= a.n:
                break

    if a.neither:
        show(f"{a.top}: worst {a.n} endpoint groups, paths that neither start nor end inside {a.exclude}",
             run("both_out"))
        return
    everything = run("all")
    show(f"{a.top}: worst {a.n} endpoint groups, all paths", everything)
    outside = run("start_out") + run("end_out")
    show(f"{a.top}: worst {a.n} endpoint groups, without paths that start and end inside {a.exclude}", outside)
    for kind, label in (("ff", "reg->reg"), ("ram", "RAM->reg")):
        for title, lst in (("all", everything), ("without " + a.exclude + "-internal", outside)):
            sel = [s for s in lst if (s["org"] == "ff") == (kind == "ff")]
            if sel:
                s = max(sel, key=lambda s: s["total"])
                c = s["cnt"]
                print(f"{a.top} {a.model} ({title}): worst {label} {s['total']:.3f} ns logic, {c['LUT']} LUT levels "
                      f"(+{c['CARRY']} carry, {c['MUXF']} muxf): {s['start']} -> {s['end']}")


if __name__ == "__main__":
    main()
