#!/usr/bin/env python3
"""Run every cocotb bench under tests/cocotb/ and judge it by its results.xml.

A bench is a folder here with a Makefile. cocotb's make does not always exit non-zero when a test
fails, so each run's JUnit results file is read: a run passes only when its results file exists,
lists at least one test, and none failed or errored. A bench passes when all its runs pass.

A bench whose Makefile sets `WIDTHS := 64 512` (the two data widths of the TX path) is run once per
width, as its own job (`make DATA_W=<w> SIM_BUILD=sim_build_<w> COCOTB_RESULTS_FILE=results_<w>.xml`,
the same runs its Makefile's default target makes in turn); the per-width files are then merged
into the bench's results.xml as before.

A bench whose Makefile sets `TEST_GROUPS := test_a test_b` (tsnic_calendar: its long randomized
tests) is built once (`make sim-build`), then run as several jobs from that build: one per named
test and one for all its other tests (TESTCASE lists them; the test names come from the
@cocotb.test functions of its MODULE file). So that no test can be lost in the split, the bench
fails unless the tests reported across its jobs are exactly the tests of the module.

Jobs run N at a time (default 2: the project's machine has 2 cores, and each cocotb run is a
single-threaded simulator plus Python). With N > 1 each job's output is held back and written to
tests/cocotb/logs/<job>.log; when the job ends, a failed job's log is printed whole, a passed job's
cocotb results table and the log's path, then its summary line, so logs of different benches never
interleave (the models' per-transaction lines made `make test` print ~13 MB otherwise). Long jobs
start first so the last one to finish is a short one.

    run_benches.py [-j N] [NAME ...]   only the benches whose folder names are given
    TSNIC_COCOTB_JOBS=N                default for -j (1 = one after another, output streamed live)
    TSNIC_COCOTB_LOG=full              print every job's log whole, passed or not
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
from pathlib import Path

HERE = Path(__file__).resolve().parent
COMMON = HERE / "common"
LOGS = HERE / "logs"

# Scheduling hint only (seconds of CPU, measured 2026-12-01 and 02 on the project's machine, see
# docs/BENCHMARKS.md "make test time"): jobs start longest first. Unknown jobs count as long, so a
# new bench is never left for the end.
COST_HINT = {
    "tsnic_calendar[test_random]": 38,     # 2026-12-07: 130.7 -> 82.4 s at load 8 (per-cycle handler cut)
    "tsnic_core": 64,                      # 2026-12-08: 86.0 -> 72.9 s run only (model log lines off)
    "tsnic_board_core[w512]": 86,          # 2026-12-08: 92.6 -> 84.9 s side by side
    "tsnic_board_core[w256]": 80,          # 2026-12-08: 102.6 -> 89.3 s side by side
    "tsnic_calendar[rest]": 22,            # 2026-12-08: test_quota_counter_wrap 24.5 -> 13.7 s (watch in the tb)
    "tsnic_calendar[test_throughput_far]": 25,
    "tsnic_phc": 24,                       # 2026-12-08: run 23 -> 12 s + ~12 s Verilator build (long ClockCycles waits)
    "tsnic_flash_ctrl": 16,
    "tsnic_tx_prefetch[w64]": 22,
    "tsnic_tx_prefetch[w512]": 16,
    "tsnic_launch_gate[w64]": 23,
    "tsnic_launch_gate[w512]": 23,
    "tsnic_launch_gate[w64lag]": 23,
    "tsnic_desc_fetch": 12,
    "tsnic_regs": 8,
    "tsnic_pcie_us[w512]": 13,             # 2026-12-08: 38.6..45.0 -> 31.5 s (idle monitors sleep, TLP log lines off)
    "tsnic_pcie_us[w256]": 13,             # (not measured: the same changes as w512)
    "tsnic_axi_rd_arb": 6,
    "tsnic_cpl_write[w64]": 15,     # estimates (2026-12-07, coalescing bench; load 12 on the VM)
    "tsnic_cpl_write[w512]": 10,
    "tsnic_cpl_count": 6,
    "tsnic_axil_reg_if": 4,
    "tsnic_axis_downsize": 3,
    "tsnic_si5324_init": 21,
    "tsnic_desc_table": 4,
    "tsnic_mac_tx[w64]": 25,
    "tsnic_mac_tx[w512]": 20,
    "tsnic_td[w512]": 12,
    "tsnic_td[w64]": 13,
    "tsnic_mac_rx": 22,
    "tsnic_xgmii_tx": 23,
    "tsnic_cmac_tx_lag": 22,
    "tsnic_xgmii_rx": 8,
    "tsnic_cdc": 6,
    "tsnic_rx_buf": 14,
    "tsnic_axi_wr_arb": 8,
    "tsnic_rx_steer": 5,
    "tsnic_rx_ts[w64]": 3,
    "tsnic_rx_ts[w512]": 5,
    "tsnic_rx_dma": 10,
    "tsnic_rx_regs": 2,
    "tsnic_pk_parse[w64]": 13,      # measured 2026-12-07 (CPU s of the make; 37 s wall at load 7)
    "tsnic_pk_parse[w512]": 8,
    "tsnic_pk_buf[w64]": 8,         # measured 2026-12-07
    "tsnic_pk_buf[w512]": 6,
    "tsnic_pk_rdmux[w64]": 6,       # measured 2026-12-07 (make's CPU)
    "tsnic_pk_rdmux[w512]": 3,
    "tsnic_pk_fetch[w64]": 27,      # measured 2026-12-07 (make's CPU at load 9)
    "tsnic_pk_fetch[w512]": 14,
}
UNKNOWN_COST = 1000


class Job:
    def __init__(self, bench: Path, width: str | None = None, group: str | None = None,
                 tests: list[str] | None = None, build_only: bool = False):
        self.bench = bench
        self.width = width
        self.group = group
        self.build_only = build_only
        self.after: Job | None = None   # a job that must have ended first (the shared build)
        self.done = False
        if build_only:
            self.name = f"{bench.name}[build]"
            self.results = None
            self.args = ["sim-build"]
        elif group:
            self.name = f"{bench.name}[{group}]"
            self.results = bench / f"results_{group}.xml"
            self.args = [f"TESTCASE={','.join(tests)}", f"COCOTB_RESULTS_FILE={self.results.name}"]
        elif width:
            self.name = f"{bench.name}[w{width}]"
            self.results = bench / f"results_{width}.xml"
            self.args = [f"DATA_W={width}", f"SIM_BUILD=sim_build_{width}",
                         f"COCOTB_RESULTS_FILE={self.results.name}"]
        else:
            self.name = bench.name
            self.results = bench / "results.xml"
            self.args = []
        self.names: list[str] = []      # test cases reported in its results file
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


def makefile_list(bench: Path, var: str) -> list[str]:
    """The words of `VAR := ...` in a bench's Makefile, or []."""
    m = re.search(rf"^{var}\s*:?=\s*(.+)$", (bench / "Makefile").read_text(), re.M)
    return m.group(1).split() if m else []


def module_tests(bench: Path) -> list[str]:
    """Names of the @cocotb.test functions of the bench's MODULE, in file order. Exits if a
    decorator is not followed by a function the pattern sees (the split would lose that test)."""
    module = makefile_list(bench, "MODULE")
    src = (bench / f"{module[0]}.py").read_text() if len(module) == 1 else ""
    names = re.findall(r"^@cocotb\.test\([^\n]*\)\s*\n(?:async\s+)?def\s+(\w+)", src, re.M)
    if not names or len(names) != src.count("@cocotb.test"):
        sys.exit(f"run_benches: cannot list the tests of {bench.name} to split it (TEST_GROUPS)")
    return names


def read_results(path: Path) -> tuple[int, int, int, list[str], list[str]]:
    """(passed, failed, skipped, names of failed tests, names of all tests) from a JUnit file."""
    passed = failed = skipped = 0
    failures = []
    names = []
    for case in ET.parse(path).getroot().iter("testcase"):
        names.append(case.get("name", "?"))
        if case.find("failure") is not None or case.find("error") is not None:
            failed += 1
            failures.append(case.get("name", "?"))
        elif case.find("skipped") is not None:
            skipped += 1
        else:
            passed += 1
    return passed, failed, skipped, failures, names


def run_job(job: Job, env: dict, live: bool, out_lock: threading.Lock) -> None:
    if job.results is not None:
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
    if job.build_only:
        # judged through the test jobs that use the build; a failed build fails them
        job.ok = proc.returncode == 0
        job.verdict = f"== {job.name}: {'built' if job.ok else f'make exited {proc.returncode}'} in {timing}"
    elif not job.results.exists():
        job.verdict = f"== {job.name}: no results file (make exited {proc.returncode}) after {timing}: bench broken"
        job.failed = 1
    else:
        try:
            p, f, s, failures, job.names = read_results(job.results)
        except ET.ParseError as e:
            p, f, s, failures = 0, 0, 0, []
            timing += f", results file unreadable ({e})"
        job.passed, job.failed, job.skipped = p, f, s
        if p + f == 0:
            job.verdict = f"== {job.name}: ran no test ({timing}): bench broken"
            job.failed = 1
        else:
            verdict = "ok" if f == 0 else "FAILED: " + ", ".join(failures)
            job.verdict = f"== {job.name}: {p} passed, {f} failed, {s} skipped in {timing}: {verdict}"
            job.ok = f == 0
    if not live:
        # the log file is written before taking the lock, which only orders what goes to stdout
        if output and not output.endswith("\n"):
            output += "\n"
        log = LOGS / (re.sub(r"[^A-Za-z0-9_.-]+", "_", job.name) + ".log")
        saved = False
        try:
            LOGS.mkdir(exist_ok=True)
            log.write_text(output)
            saved = True
            where = f"whole log: {log.relative_to(HERE.parent.parent)}"
        except OSError as e:
            where = f"log not saved: {e}"
    with out_lock:
        if not live:
            if job.ok and saved and os.environ.get("TSNIC_COCOTB_LOG", "") != "full":
                # cocotb's results table (its lines hold "** "), then where the rest is
                table = [ln for ln in output.splitlines(keepends=True) if "** " in ln]
                sys.stdout.write(f"== cocotb bench {job.name} ({where})\n")
                sys.stdout.writelines(table)
            else:
                sys.stdout.write(f"== cocotb bench {job.name} (output of the whole run follows; {where})\n")
                sys.stdout.write(output)
        sys.stdout.write(job.verdict + "\n")
        sys.stdout.flush()


def merge(bench: Path, jobs: list[Job]) -> None:
    """The bench's results.xml from its jobs' files (per-width test names suffixed [w<width>])."""
    parts = [f"{j.results}:w{j.width}" if j.width else str(j.results) for j in jobs if j.results]
    subprocess.run([sys.executable, str(HERE / "tsnic_tx_prefetch" / "merge_results.py"),
                    str(bench / "results.xml")] + parts, check=False)


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
    expected: dict[str, list[str]] = {}      # split benches: the tests their jobs must report
    for bench in benches(opts.names):
        ws = makefile_list(bench, "WIDTHS")
        groups = makefile_list(bench, "TEST_GROUPS")
        if ws:
            bench_jobs = [Job(bench, width=w) for w in ws]
        elif groups:
            tests = module_tests(bench)
            unknown = [g for g in groups if g not in tests]
            if unknown:
                sys.exit(f"run_benches: {bench.name}: TEST_GROUPS names no test {', '.join(unknown)}")
            rest = [t for t in tests if t not in groups]
            build = Job(bench, build_only=True)
            bench_jobs = [build] + [Job(bench, group=g, tests=[g]) for g in groups]
            if rest:
                bench_jobs.append(Job(bench, group="rest", tests=rest))
            for j in bench_jobs[1:]:
                j.after = build
            expected[bench.name] = tests
        else:
            bench_jobs = [Job(bench)]
        per_bench[bench.name] = bench_jobs
        jobs += bench_jobs
        if len(bench_jobs) > 1:
            (bench / "results.xml").unlink(missing_ok=True)
    # longest first; a build first of all, as the jobs after it wait for it
    pending = sorted(jobs, key=lambda j: (not j.build_only, -COST_HINT.get(j.name, UNKNOWN_COST)))

    t0 = time.monotonic()
    live = opts.jobs == 1
    lock = threading.Lock()
    cond = threading.Condition()
    if not live:
        print(f"cocotb: {len(pending)} runs of {len(per_bench)} benches, {opts.jobs} at a time; "
              "each run's log goes to tests/cocotb/logs/ and is printed whole if it failed", flush=True)

    def worker():
        while True:
            with cond:
                while True:
                    if not pending:
                        return
                    ready = [j for j in pending if j.after is None or j.after.done]
                    if ready:
                        job = ready[0]
                        pending.remove(job)
                        break
                    cond.wait()
            try:
                run_job(job, env, live, lock)
            finally:
                with cond:
                    job.done = True
                    cond.notify_all()

    threads = [threading.Thread(target=worker, daemon=True) for _ in range(opts.jobs)]
    for t in threads:
        t.start()
    try:
        for t in threads:
            t.join()
    except KeyboardInterrupt:
        with cond:
            pending.clear()      # start nothing more; the running makes got the same Ctrl-C
        raise
    wall = time.monotonic() - t0

    broken = []
    for name, bench_jobs in per_bench.items():
        if len(bench_jobs) > 1:
            merge(bench_jobs[0].bench, bench_jobs)
        if not all(j.ok for j in bench_jobs):
            broken.append(name)
        elif name in expected:
            seen = sorted(n for j in bench_jobs for n in j.names)
            if seen != sorted(expected[name]):
                print(f"== {name}: its jobs reported tests {seen}, the module has {sorted(expected[name])}: FAILED")
                broken.append(name)
    total_p = sum(j.passed for j in jobs)
    total_f = sum(j.failed for j in jobs) + sum(1 for b in broken if all(j.ok for j in per_bench[b]))
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
