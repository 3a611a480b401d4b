#!/usr/bin/env bash
# The gated blocks' check (docs/ARCHITECTURE.md, "Gated blocks"), the long manual run: the release
# build (every model has the check compiled in) runs the 10G push, a sparse push and its replay, and an
# EDT `send` whose ACKs come back through the card's receive path, with TSNIC_SIM_GATE=check: every
# gated block is clocked in every cycle, and in each cycle where one would hold, every register of it
# (and every memory of up to MAX bytes) is compared across the edge. The first change stops the run
# with the register's name (non-zero exit). At the end of each run the counts per block are printed,
# and a block that never held, or whose list has fewer registers than GATE_CHECK_MIN_REGS
# (sim/card/src/lib.rs), fails it too. `make test` runs a short check of its own
# (driver/tests/cosim_fastforward.rs, gate_check_holds_on_random_programs).
# Usage: sim/card/bench/gate_check.sh [N] [MAX]   (default 2000 frames, memories up to 1000000 bytes)
set -euo pipefail
cd "$(dirname "$0")/../../.."
N=${1:-2000}
MAX=${2:-1000000}
export TSNIC_SIM_GATE_CHECK_MAX=$MAX TSNIC_SIM_GATE=check TSNIC_SIM_STATE=none
cargo build --release --locked -q -p tsnic
bin=target/release/tsnic
mkdir -p target/bench
python3 sim/card/bench/trace_10g.py "$N" > target/bench/gate_check_10g.csv
python3 sim/card/bench/trace_sparse.py 300 2 2 > target/bench/gate_check_sparse.csv
# one run: its check lines; it fails on a change or a short list (the process stops), on a block that
# never held and on a run that printed no verdict
check() {
  local label=$1
  shift
  echo "== $label"
  "$@" 2>&1 | grep -E '^(gate check|sim:)' | tee target/bench/gate_check.last
  if grep -q 'held in 0 cycles' target/bench/gate_check.last; then
    echo "gate check: FAILED: a block never held in this run, so its hold was not checked"
    exit 1
  fi
  grep -q '^gate check: passed' target/bench/gate_check.last ||
    { echo "gate check: FAILED: the run printed no verdict"; exit 1; }
}
check "10G push, $N frames" "$bin" push target/bench/gate_check_10g.csv
rm -f target/bench/gate_check_sparse.pcapng
check "sparse push, 300 frames over 2 s" \
  "$bin" push target/bench/gate_check_sparse.csv --pcap target/bench/gate_check_sparse.pcapng
check "replay of that wire" "$bin" replay target/bench/gate_check_sparse.pcapng
check "send 2 MB, ACKs through the card's receive path" "$bin" send --bytes 2MB
