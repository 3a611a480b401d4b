#!/usr/bin/env python3
"""Run every cocotb bench under tests/cocotb/ and judge it by its results.xml.

A bench is a folder here with a Makefile. cocotb's make does not always exit non-zero when a test
fails, so each bench's JUnit results file is read: a bench passes only when its results file exists,
lists at least one test, and none failed or errored.

    run_benches.py [NAME ...]     only the benches whose folder names are given
    SOAK=1 run_benches.py         passed through to the benches: long randomized runs
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

HERE = Path(__file__).resolve().parent
COMMON = HERE / "common"


def benches(selected: list[str]) -> list[Path]:
    found = sorted(p.parent for p in HERE.glob("*/Makefile") if p.parent.name != "common")
    if selected:
        names = {p.name for p in found}
        unknown = [s for s in selected if s not in names]
        if unknown:
            sys.exit(f"run_benches: no bench named {', '.join(unknown)} (have: {', '.join(sorted(names))})")
        found = [p for p in found if p.name in selected]
    return found


def read_results(path: Path) -> tuple[int, int, int, list[str]]:
    """(passed, failed, skipped, names of failed tests) from a cocotb JUnit file."""
    passed = failed = skipped = 0
    failures = []
    for case in ET.parse(path).getroot().iter("testcase"):
        if case.find("failure") is not None or case.find("error") is not None:
            failed += 1
            failures.append(case.get("name", "?"))
        elif case.find("skipped") is not None:
            skipped += 1
        else:
            passed += 1
    return passed, failed, skipped, failures


def main() -> int:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(COMMON), env.get("PYTHONPATH", "")]))
    total_p = total_f = total_s = 0
    broken = []
    for bench in benches(sys.argv[1:]):
        results = bench / "results.xml"
        results.unlink(missing_ok=True)
        t0 = time.monotonic()
        print(f"== cocotb bench {bench.name}", flush=True)
        proc = subprocess.run(["make", "-C", str(bench)], env=env)
        dt = time.monotonic() - t0
        if not results.exists():
            print(f"== {bench.name}: no results.xml (make exited {proc.returncode}) after {dt:.0f} s: bench broken")
            broken.append(bench.name)
            total_f += 1
            continue
        p, f, s, failures = read_results(results)
        if p + f == 0:
            print(f"== {bench.name}: ran no test")
            broken.append(bench.name)
            total_f += 1
            continue
        total_p, total_f, total_s = total_p + p, total_f + f, total_s + s
        verdict = "ok" if f == 0 else "FAILED: " + ", ".join(failures)
        print(f"== {bench.name}: {p} passed, {f} failed, {s} skipped in {dt:.0f} s: {verdict}", flush=True)
        if f:
            broken.append(bench.name)
    if broken:
        print(f"cocotb benches with failures: {', '.join(broken)}")
    print(f"cocotb: {total_p} passed, {total_f} failed, {total_s} skipped")
    return 1 if total_f else 0


if __name__ == "__main__":
    sys.exit(main())
