#!/usr/bin/env bash
# 100G line-rate benchmark: N minimum-size (60-byte) frames, launch times exactly one 100G frame time
# apart (6.72 ns: 8 preamble + 60 + 4 FCS + 12 gap bytes), round robin over 8 queues, pushed through
# the 512-bit configuration of the Verilated core on a 100 Gb/s wire. Prints the summary (achieved
# Mpps against 148.8, departure error) and writes target/bench/line_rate_100g.json.
# Usage: sim/card/bench/line_rate_100g.sh [N]   (default 1000000)
set -euo pipefail
cd "$(dirname "$0")/../../.."
. sim/card/bench/footer.sh
export TSNIC_SIM_STATE=none  # a fresh simulated card for every run (not the one kept between commands)
N=${1:-1000000}
mkdir -p target/bench
python3 -c "
import sys
w = sys.stdout.write
w('# $N minimum frames back to back at 100G (6.72 ns apart), 8 queues\nlaunch_ns,queue,len\n')
for i in range($N):
    w(f'{(i * 672 + 99) // 100},{i % 8},60\n')
" > target/bench/line_rate_100g.csv
cargo build --release --locked -q -p tsnic --features wide
/usr/bin/time -f "wall %e s, max RSS %M KiB" ./target/release/tsnic push target/bench/line_rate_100g.csv \
  --wide --line-rate 100 --no-wire-record --ring-log2 12 --report target/bench/line_rate_100g.json
bench_footer "sim/card/bench/line_rate_100g.sh $N"
