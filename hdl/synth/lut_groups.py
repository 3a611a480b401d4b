#!/usr/bin/env python3
"""LUTs of a kept sta.sh netlist, grouped by the registers they feed.

  lut_groups.py [--top N] NETLIST.json TOP

For every LUT cell, follows its fan-out through combinational cells to the first flip-flops and RAMs
and counts the LUT for that register group (the flip-flop's net name up to the first '[', or the RAM
instance) when it reaches exactly one group, else as "multi". A group whose count jumps between two
netlists of the same module shows where a change grew the logic (e.g. the occupancy bits' write
cones, docs/BENCHMARKS.md "Whole core at the board configuration"). Netlists come from
`sta.sh --keep DIR` (DIR/<top>.xcup.json).
"""
import argparse
import collections
import json
import re
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("netlist")
    ap.add_argument("top")
    ap.add_argument("--top", dest="n", type=int, default=20, help="groups to list (default 20)")
    a = ap.parse_args()
    try:
        nl = json.load(open(a.netlist))
        mod = nl["modules"][a.top]
    except (OSError, ValueError, KeyError) as e:
        sys.exit(f"lut_groups: cannot read module {a.top} from {a.netlist}: {e} (a sta.sh --keep netlist?)")
    names = {}
    for n, v in mod["netnames"].items():
        for b in v["bits"]:
            if isinstance(b, int):
                names.setdefault(b, []).append(n)
    sinks = collections.defaultdict(list)
    for cn, c in mod["cells"].items():
        for k, d in c["port_directions"].items():
            if d == "input":
                for b in c["connections"][k]:
                    if isinstance(b, int):
                        sinks[b].append((cn, c))

    def group(cn, c):
        if not c["type"].startswith("FD"):
            return cn.split(".")[0]
        q = c["connections"]["Q"][0]
        nm = [n for n in names.get(q, []) if not n.startswith("$")]
        return re.sub(r"\[.*", "", nm[0]) if nm else c["type"]

    memo = {}

    def ends(cn, c):
        # iterative-safe: mark first so a combinational loop (there should be none) ends
        if cn in memo:
            return memo[cn]
        memo[cn] = frozenset()
        res = set()
        for k, d in c["port_directions"].items():
            if d != "output":
                continue
            for b in c["connections"][k]:
                for sn, sc in sinks.get(b, []):
                    if sc["type"].startswith("FD") or "RAM" in sc["type"]:
                        res.add(group(sn, sc))
                    else:
                        res |= ends(sn, sc)
                if len(res) > 1:
                    break
        memo[cn] = frozenset(res)
        return memo[cn]

    sys.setrecursionlimit(1_000_000)
    cnt = collections.Counter()
    for cn, c in mod["cells"].items():
        if c["type"].startswith("LUT"):
            e = ends(cn, c)
            cnt[next(iter(e)) if len(e) == 1 else ("multi" if e else "none")] += 1
    print(f"{a.netlist}: {sum(cnt.values())} LUT")
    for k, v in cnt.most_common(a.n):
        print(f"  {v:8d}  {k}")


if __name__ == "__main__":
    main()
