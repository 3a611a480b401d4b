#!/usr/bin/env bash
# Busy speed of the board build (`sim:board`, the SUME's tsnic_board_core behind the PCIe model, every
# edge of both clocks evaluated) with its gated blocks off (TSNIC_SIM_GATE=0) and on (the default),
# against the core build (`sim`, fast-forward and gates on), on one sparse trace: N frames (default
# 300) of 60..1514 bytes on 4 queues at random times over MS milliseconds (default 10; fixed seed).
# Uses the binary a test build left (target/debug/tsnic built with `--features tsnic/wide,tsnic/alveo`,
# tsnic-sim at opt-level 2) unless TSNIC_BIN names another. Prints each push's summary line, the
# wall and CPU time of each.
# Usage: sim/card/bench/board_sparse.sh [N] [MS]
set -euo pipefail
cd "$(dirname "$0")/../../.."
. sim/card/bench/footer.sh
N=${1:-300}
MS=${2:-10}
BIN=${TSNIC_BIN:-./target/debug/tsnic}
mkdir -p target/bench
python3 sim/card/bench/trace_sparse.py "$N" "$(python3 -c "print($MS / 1000)")" 1 > target/bench/board_sparse.csv
export TSNIC_SIM_STATE=none
for run in "board gates off|sim:board|0" "board gates on|sim:board|" "core build|sim|"; do
    IFS='|' read -r what spec gate <<< "$run"
    echo "== $what (--backend $spec${gate:+, TSNIC_SIM_GATE=$gate})"
    TSNIC_SIM_GATE=${gate:-1} /usr/bin/time -f "wall %e s, cpu %U+%S s" "$BIN" push --backend "$spec" \
        --report "target/bench/board_sparse_${spec//[:=]/_}${gate}.json" target/bench/board_sparse.csv \
        2>&1 | grep -E "^ *(sent|late|early|duration_ns) |^wall |^sim|rror" || true
done
bench_footer "sim/card/bench/board_sparse.sh $N $MS"
