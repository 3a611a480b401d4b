#!/usr/bin/env bash
# Co-simulation speed on sparse traffic (the idle fast-forward and the streaming push/replay):
# N frames (default 1500) of 60..1514 bytes on 4 queues spread over S seconds (default 10) with
# random gaps (fixed seed), pushed as a trace, then the wire it produced replayed as a capture.
# Prints each summary, the `sim:` line (cycles, how many the fast-forward skipped) and wall time.
# Usage: sim/card/bench/sparse.sh [N] [S]
set -euo pipefail
cd "$(dirname "$0")/../../.."
. sim/card/bench/footer.sh
N=${1:-1500}
S=${2:-10}
mkdir -p target/bench
python3 sim/card/bench/trace_sparse.py "$N" "$S" 1 > target/bench/sparse.csv
cargo build --release --locked -q -p tsnic
# a fresh simulated card for each command (no state kept between them)
export TSNIC_SIM_STATE=none
rm -f target/bench/sparse.pcapng
echo "== push: $N frames over $S s"
TSNIC_SIM_STATS=1 /usr/bin/time -f "wall %e s, max RSS %M KiB" ./target/release/tsnic push target/bench/sparse.csv \
  --pcap target/bench/sparse.pcapng --report target/bench/sparse_push.json
echo "== replay of that wire"
TSNIC_SIM_STATS=1 /usr/bin/time -f "wall %e s, max RSS %M KiB" ./target/release/tsnic replay target/bench/sparse.pcapng \
  --report target/bench/sparse_replay.json
bench_footer "sim/card/bench/sparse.sh $N $S"
