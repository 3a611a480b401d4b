#!/usr/bin/env bash
# Cost of the simulated card that persists between commands: wall time of `tsnic info` on a kept card
# (restore + save of the state file) against a fresh card (TSNIC_SIM_STATE=none), and the state's size.
# Usage: sim/card/bench/persist.sh [RUNS]   (default 25; prints best and median of each)
set -euo pipefail
cd "$(dirname "$0")/../../.."
. sim/card/bench/footer.sh
RUNS=${1:-25}
cargo build --release --locked -q -p tsnic
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
TSNIC_SIM_STATE="$dir/card.state" ./target/release/tsnic info >/dev/null
python3 - "$RUNS" "$dir/card.state" <<'PY'
import os, statistics, subprocess, sys, time
runs, state = int(sys.argv[1]), sys.argv[2]
def timed(value):
    env = dict(os.environ, TSNIC_SIM_STATE=value)
    ts = []
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run(["./target/release/tsnic", "info"], env=env, stdout=subprocess.DEVNULL, check=True)
        ts.append((time.perf_counter() - t) * 1e3)
    return min(ts), statistics.median(ts)
kept, fresh = timed(state), timed("none")
print(f"state file: {os.path.getsize(state)} bytes")
print(f"tsnic info, kept card:  best {kept[0]:.1f} ms, median {kept[1]:.1f} ms ({runs} runs)")
print(f"tsnic info, fresh card: best {fresh[0]:.1f} ms, median {fresh[1]:.1f} ms")
PY
bench_footer "sim/card/bench/persist.sh $RUNS"
