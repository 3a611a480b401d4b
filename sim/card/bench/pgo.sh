#!/usr/bin/env bash
# Profile-guided build of the Verilated models (opt-in; see sim/card/build.rs, "Profile-guided
# optimisation"). Builds an instrumented `tsnic` in its own target directory, trains it on a short
# busy push at the board size and at the small size (a trace unlike the benchmarks': random frame
# sizes and gaps on 8 queues, fixed seed), keeps the profiles in DIR, then builds target/release
# with them. About 4 minutes of compile on this machine the first time, a few seconds of training.
# The simulation's results are the same with or without the profiles; only its speed changes.
# Usage: sim/card/bench/pgo.sh [DIR]   (default target/tsnic-sim-pgo)
# Later builds use the profiles only when asked: TSNIC_SIM_PGO=DIR cargo build --release -p tsnic
# (a model whose RTL, shim or flags changed since is built without them, with a warning).
set -euo pipefail
cd "$(dirname "$0")/../../.."
DIR=${1:-target/tsnic-sim-pgo}
GEN=target/pgo-gen
RAW=$PWD/$GEN/raw
mkdir -p "$RAW" "$DIR"
# counts from an earlier training would add up; the keys stay (build.rs rewrites them when it reruns)
find "$RAW" -name '*.gcda' -delete
rm -f "$DIR"/*.gcda "$DIR"/*.key  # only what this script puts there
CARGO_TARGET_DIR=$GEN TSNIC_SIM_PGO=gen:$RAW cargo build --release --locked -q -p tsnic
python3 -c "
import random, sys
r = random.Random(7)
w = sys.stdout.write
w('launch_ns,queue,len\n')
t = 0
for i in range(1500):
    n = r.choice([60, 64, 100, 256, 700, 1000, 1514])
    w(f'{t},{r.randrange(8)},{n}\n')
    t += (8 + n + 4 + 12) * 8 // 10 + r.randrange(2000)
" > "$GEN/train.csv"
export TSNIC_SIM_STATE=none
"$GEN/release/tsnic" push "$GEN/train.csv" --backend sim >/dev/null
"$GEN/release/tsnic" push "$GEN/train.csv" --backend sim:small >/dev/null
# g++ wrote <RAW>/<absolute object path>.gcda; the object names do not depend on the target
# directory, so they are kept flat (build.rs stages them for the build that uses them)
find "$RAW" -name '*.gcda' -exec cp {} "$DIR/" \;
cp "$RAW"/*.key "$DIR/"
echo "profiles: $(ls "$DIR"/*.gcda | wc -l) files in $DIR"
TSNIC_SIM_PGO=$DIR cargo build --release --locked -q -p tsnic
echo "built target/release/tsnic with them; later builds: TSNIC_SIM_PGO=$DIR cargo build --release -p tsnic"
