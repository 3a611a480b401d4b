#!/usr/bin/env bash
# Co-simulation speed while pushing: N frames of 60/128/512/1514 bytes on 4 queues, each launched
# 200 ns after the previous one's wire time ends (10 Gb/s), through the default Verilated core (64-bit,
# board size). Prints the summary and the `sim:` line (core cycles per wall second).
# Usage: sim/card/bench/push_10g.sh [N] [BACKEND]   (default 5000, sim; `sim:small` for the small core)
# With the profile-guided model (sim/card/bench/pgo.sh run once): TSNIC_SIM_PGO=target/tsnic-sim-pgo sim/card/bench/push_10g.sh
set -euo pipefail
cd "$(dirname "$0")/../../.."
. sim/card/bench/footer.sh
export TSNIC_SIM_STATE=none  # a fresh simulated card for every run (not the one kept between commands)
N=${1:-5000}
mkdir -p target/bench
python3 sim/card/bench/trace_10g.py "$N" > target/bench/push_10g.csv
cargo build --release --locked -q -p tsnic
./target/release/tsnic push target/bench/push_10g.csv --backend "${2:-sim}" --report target/bench/push_10g.json
bench_footer "sim/card/bench/push_10g.sh $N ${2:-sim}"
