#!/usr/bin/env python3
"""Run every cocotb bench under tests/cocotb/ and judge it by its results.xml.

A bench is a folder here with a Makefile. cocotb's make does not always exit non-zero when a test
fails, so each run's JUnit results file is read: a run passes only when its results file exists,
lists at least one test, and none failed or errored. A bench passes when all its runs pass.

A bench whose Makefile sets `WIDTHS := 64 512` (the two data widths of the TX path) is run once per
width, as its own job (`make DATA_W=<w> SIM_BUILD=sim_build_<w> COCOTB_RESULTS_FILE=results_<w>.xml`,
the same runs its Makefile's default target makes in turn); the per-width files are then merged
into the bench's results.xml as before.

Jobs run N at a time (default 2: the project's machine has 2 cores, and each cocotb run is a
single-threaded simulator plus Python). With N > 1 each job's output is held back and printed whole
when the job ends, followed by its summary line, so logs of different benches never interleave.
Long jobs start first so the last one to finish is a short one.

    run_benches.py [-j N] [NAME ...]   only the benches whose folder names are given
    TSNIC_COCOTB_JOBS=N                default for -j (1 = one after another, output streamed live)
    SOAK=1 run_benches.py              passed through to the benches: long randomized runs
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import threading
import time
import xml.etree.ElementTree as ET
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
COMMON = HERE / "common"

# Scheduling hint only (seconds of CPU, measured 2026-12-01 on the project's machine, see
# docs/BENCHMARKS.md "make test time"): jobs start longest first. Unknown jobs count as long, so a
# new bench is never left for the end.
COST_HINT = {
    "tsnic_calendar": 150,
    "tsnic_phc": 110,
    "tsnic_tx_prefetch[w512]": 90,
    "tsnic_tx_prefetch[w64]": 70,
    "tsnic_core": 65,
    "tsnic_desc_fetch": 60,
    "tsnic_launch_gate[w64]": 30,
    "tsnic_launch_gate[w512]": 25,
    "tsnic_regs": 25,
    "tsnic_desc_table": 20,
    "tsnic_cpl_write": 15,
    "tsnic_axil_reg_if": 10,
    "tsnic_axi_rd_arb": 10,
}
UNKNOWN_COST = 1000


class Job:
    def __init__(self, bench: Path, width: str | None):
        self.bench = bench
        self.width = width
        self.name = f"{bench.name}[w{width}]" if width else bench.name
        if width:
            self.results = bench / f"results_{width}.xml"
            self.args = [f"DATA_W={width}", f"SIM_BUILD=sim_build_{width}",
                         f"COCOTB_RESULTS_FILE={self.results.name}"]
        else:
            self.results = bench / "results.xml"
            self.args = []
        self.verdict = ""       # summary line, set when the job has been judged
        self.passed = self.failed = self.skipped = 0
        self.ok = False


def benches(selected: list[str]) -> list[Path]:
    found = sorted(p.parent for p in HERE.glob("*/Makefile") if p.parent.name != "common")
    if selected:
        names = {p.name for p in found}
        unknown = [s for s in selected if s not in names]
        if unknown:
            sys.exit(f"run_benches: no bench named {', '.join(unknown)} (have: {', '.join(sorted(names))})")
        found = [p for p in found if p.name in selected]
    return found


def widths(bench: Path) -> list[str]:
    """The data widths a bench's Makefile asks to run one by one (`WIDTHS := 64 512`), or []."""
    m = re.search(r"^WIDTHS\s*:?=\s*(.+)$", (bench / "Makefile").read_text(), re.M)
    return m.group(1).split() if m else []


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


def run_job(job: Job, env: dict, live: bool, out_lock: threading.Lock) -> None:
    job.results.unlink(missing_ok=True)
    cmd = ["make", "-C", str(job.bench)] + job.args
    t0 = time.monotonic()
    if live:
        print(f"== cocotb bench {job.name}", flush=True)
        proc = subprocess.Popen(cmd, env=env)
        output = ""
    else:
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL)
        output = proc.stdout.read().decode(errors="replace")
        proc.stdout.close()
    # wait4 rather than wait: the CPU time of the make and everything it ran (build and simulation)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.monotonic() - t0
    cpu = usage.ru_utime + usage.ru_stime
    timing = f"{wall:.0f} s wall, {cpu:.0f} s CPU"
    if not job.results.exists():
        job.verdict = f"== {job.name}: no results file (make exited {proc.returncode}) after {timing}: bench broken"
        job.failed = 1
    else:
        p, f, s, failures = read_results(job.results)
        job.passed, job.failed, job.skipped = p, f, s
        if p + f == 0:
            job.verdict = f"== {job.name}: ran no test ({timing}): bench broken"
            job.failed = 1
        else:
            verdict = "ok" if f == 0 else "FAILED: " + ", ".join(failures)
            job.verdict = f"== {job.name}: {p} passed, {f} failed, {s} skipped in {timing}: {verdict}"
            job.ok = f == 0
    with out_lock:
        if not live:
            sys.stdout.write(f"== cocotb bench {job.name} (output of the whole run follows)\n")
            sys.stdout.write(output)
            if output and not output.endswith("\n"):
                sys.stdout.write("\n")
        sys.stdout.write(job.verdict + "\n")
        sys.stdout.flush()


def merge_widths(bench: Path, jobs: list[Job]) -> None:
    """results.xml of a per-width bench: every width's test cases, names suffixed [w<width>]."""
    subprocess.run([sys.executable, str(HERE / "tsnic_tx_prefetch" / "merge_results.py"),
                    str(bench / "results.xml")] + [f"{j.results}:w{j.width}" for j in jobs], check=False)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-j", "--jobs", type=int, default=int(os.environ.get("TSNIC_COCOTB_JOBS", "2")),
                    help="benches run at once (default 2, or TSNIC_COCOTB_JOBS)")
    ap.add_argument("names", nargs="*", help="bench folder names (default: all)")
    opts = ap.parse_args()
    if opts.jobs < 1:
        sys.exit("run_benches: -j must be at least 1")

    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(COMMON), env.get("PYTHONPATH", "")]))
    # The benches' makes run on their own: a jobserver inherited from a parent `make -j` would not
    # reach them (its pipe is not passed on) and make would warn about it.
    for var in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL"):
        env.pop(var, None)

    jobs: list[Job] = []
    per_bench: dict[str, list[Job]] = {}
    for bench in benches(opts.names):
        ws = widths(bench)
        bench_jobs = [Job(bench, w) for w in ws] if ws else [Job(bench, None)]
        per_bench[bench.name] = bench_jobs
        jobs += bench_jobs
    for bench_jobs in per_bench.values():
        if bench_jobs[0].width:
            (bench_jobs[0].bench / "results.xml").unlink(missing_ok=True)
    order = sorted(jobs, key=lambda j: -COST_HINT.get(j.name, UNKNOWN_COST))

    t0 = time.monotonic()
    live = opts.jobs == 1
    lock = threading.Lock()
    if not live:
        print(f"cocotb: {len(order)} runs of {len(per_bench)} benches, {opts.jobs} at a time; "
              "each run's output is printed whole when it ends", flush=True)
    with ThreadPoolExecutor(max_workers=opts.jobs) as pool:
        for fut in [pool.submit(run_job, j, env, live, lock) for j in order]:
            fut.result()
    wall = time.monotonic() - t0

    broken = []
    for name, bench_jobs in per_bench.items():
        if bench_jobs[0].width:
            merge_widths(bench_jobs[0].bench, bench_jobs)
        if not all(j.ok for j in bench_jobs):
            broken.append(name)
    total_p = sum(j.passed for j in jobs)
    total_f = sum(j.failed for j in jobs)
    total_s = sum(j.skipped for j in jobs)
    if not live:
        print("cocotb summary (in bench order):")
        for j in jobs:
            print("  " + j.verdict.removeprefix("== "))
    if broken:
        print(f"cocotb benches with failures: {', '.join(broken)}")
    print(f"cocotb: {total_p} passed, {total_f} failed, {total_s} skipped in {wall:.0f} s wall ({opts.jobs} at a time)")
    return 1 if total_f or broken else 0


if __name__ == "__main__":
    sys.exit(main())
