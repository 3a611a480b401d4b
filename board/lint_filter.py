"""board/lint.sh's filter of Verilator's -Wall output for the board tops: every message is an error
except PINCONNECTEMPTY on a pin that is an output of a vendor stub (board/common/stubs) and an input or
inout of none. So a top must name every port of every IP and primitive (PINMISSING), tie every input
(an empty input connection is an error, as a missing one is), and may leave an unused output empty
(`.stat_foo()`, as Corundum does). Reads Verilator's output on stdin, prints what remains, exits 1 if
anything does."""

import re
import sys
from pathlib import Path

STUBS = Path(__file__).resolve().parent / "common" / "stubs"


def stub_directions():
    outs, ins = set(), set()
    for f in STUBS.glob("*.v"):
        for d, name in re.findall(r"^\s*(input|output|inout)\s+wire\s*(?:\[[^\]]*\])?\s*(\w+)", f.read_text(), re.M):
            (outs if d == "output" else ins).add(name)
    return outs - ins


def main():
    outputs = stub_directions()
    text = sys.stdin.read()
    # messages start with %Warning-.../%Error...; continuation lines (source excerpt, hints) follow
    blocks, cur = [], []
    for line in text.splitlines():
        if not line.strip():
            continue
        if line.startswith("%") and cur:
            blocks.append(cur)
            cur = []
        cur.append(line)
    if cur:
        blocks.append(cur)
    kept = []
    for b in blocks:
        m = re.match(r"%Warning-PINCONNECTEMPTY: .*empty reference: '(\w+)'", b[0])
        if m and m.group(1) in outputs:
            continue
        if re.match(r"%Error: Exiting due to \d+ warning", b[0]):
            continue
        kept.append("\n".join(b))
    if kept:
        print("\n".join(kept))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
