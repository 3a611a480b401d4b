#!/usr/bin/env bash
# The gated blocks' check (docs/ARCHITECTURE.md, "Gated blocks"): builds the co-simulation with the
# check compiled in (its own target directory), then runs the 10G push and a sparse push and replay
# with TSNIC_SIM_GATE=check: every gated block is clocked in every cycle, and in each cycle where one
# would hold, every register of it (and every memory of up to MAX bytes) is compared across the edge.
# The first change stops the run with the register's name (non-zero exit).
# Usage: sim/card/bench/gate_check.sh [N] [MAX]   (default 2000 frames, memories up to 1000000 bytes)
set -euo pipefail
cd "$(dirname "$0")/../../.."
N=${1:-2000}
MAX=${2:-1000000}
export CARGO_TARGET_DIR=target/gate-check TSNIC_SIM_GATE_CHECK=$MAX TSNIC_SIM_GATE=check TSNIC_SIM_STATE=none
cargo build --release --locked -q -p tsnic
bin=target/gate-check/release/tsnic
mkdir -p target/bench
python3 sim/card/bench/trace_10g.py "$N" > target/bench/gate_check_10g.csv
python3 sim/card/bench/trace_sparse.py 300 2 2 > target/bench/gate_check_sparse.csv
echo "== 10G push, $N frames"
"$bin" push target/bench/gate_check_10g.csv 2>&1 | grep -E '^(gate check|sim:)'
rm -f target/bench/gate_check_sparse.pcapng
echo "== sparse push, 300 frames over 2 s"
"$bin" push target/bench/gate_check_sparse.csv --pcap target/bench/gate_check_sparse.pcapng 2>&1 |
  grep -E '^(gate check|sim:)'
echo "== replay of that wire"
"$bin" replay target/bench/gate_check_sparse.pcapng 2>&1 | grep -E '^(gate check|sim:)'
