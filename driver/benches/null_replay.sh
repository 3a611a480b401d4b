#!/usr/bin/env bash
# Host cost of `tsnic replay` alone, on the `null` backend (no card, no simulation: a host thread
# completes every descriptor): a pcap of N 60-byte frames of 64 UDP flows, 67.2 ns apart (10 Gb/s
# line rate of minimum frames), replayed RUNS times (extra flags, e.g. `--threads 2`, go to each
# run). Prints each run's `host: N ns per frame, M Mpps` (the wall time of the pipeline's loop over
# the frames: reading the capture as it goes, posting, doorbells, completion reaping, buffer
# recycling, the report's counts; not opening the card or the first ring-full read ahead) and the
# line before it (stderr), `loop thread: X ns on a CPU per frame` (the CPU time of the loop's
# thread: on a shared machine the wall figure is mostly waiting for a CPU), then DPDK's figure on
# the same machine (driver/benches/dpdk_anchor.sh) and the ratios, then the machine and the rerun
# command.
# Usage: driver/benches/null_replay.sh [N] [RUNS] [extra tsnic replay flags...]   (default 1000000 3)
set -euo pipefail
cd "$(dirname "$0")/../.."
. sim/card/bench/footer.sh
N=${1:-1000000}
RUNS=${2:-3}
shift $(( $# < 2 ? $# : 2 ))
mkdir -p target/bench
PCAP=target/bench/null_60B_64flows_$N.pcap
if [ ! -s "$PCAP" ]; then
    python3 - "$N" "$PCAP" <<'PY'
import struct, sys
n, path = int(sys.argv[1]), sys.argv[2]
# 60-byte UDP frames of 64 flows (source address and port count up with the flow), so that
# --threads / --queues spread them (a single queue takes them all otherwise)
frames = [bytes.fromhex("ffffffffffff020000000001" "0800")
          + bytes([0x45, 0, 0, 46, 0, 0, 0, 0, 64, 17, 0, 0, 10, 0, 0, k, 10, 0, 1, 1])
          + struct.pack(">HHHH", 4000 + k, 53, 26, 0) + bytes(18) for k in range(64)]
with open(path, "wb") as f:
    f.write(struct.pack("<IHHiIII", 0xA1B23C4D, 2, 4, 0, 0, 65535, 1))  # ns timestamps, Ethernet
    for i in range(n):
        t = i * 672 // 10  # 67.2 ns apart
        f.write(struct.pack("<IIII", t // 10**9, t % 10**9, 60, 60))
        f.write(frames[i % 64])
PY
fi
cargo build --release --locked -q -p tsnic
HOST=target/bench/null_replay.host
: > "$HOST"
for _ in $(seq "$RUNS"); do
    ./target/release/tsnic replay --backend null --quiet "$@" "$PCAP" 2>&1 | tee -a "$HOST"
done
# The anchor in the same run (driver/benches/dpdk_anchor.sh; NO_ANCHOR=1 leaves it out): DPDK's
# testpmd, one core, 60-byte packets into its null device, and the ratio of the medians. 12 s: on
# this loaded 2-core VM testpmd took up to 5 s to start, and 8 s left too few seconds of traffic.
if [ "${NO_ANCHOR:-0}" != 1 ]; then
    driver/benches/dpdk_anchor.sh 12 | grep -v '^--' | tee target/bench/null_replay.anchor
    python3 - "$HOST" target/bench/null_replay.anchor <<'PY'
import re, statistics, sys
host = [float(m.group(1)) for m in re.finditer(r"^host: ([0-9.]+) ns per frame", open(sys.argv[1]).read(), re.M)]
dpdk = re.search(r"^dpdk: ([0-9.]+) ns per packet", open(sys.argv[2]).read(), re.M)
if not host or not dpdk:
    sys.exit("null_replay.sh: a run printed no figure")
h, d = statistics.median(host), float(dpdk.group(1))
print(f"ratio: tsnic {h:.1f} ns per frame / dpdk {d:.1f} ns per packet = {h / d:.2f}")
cpu = [float(m.group(1)) for m in re.finditer(r"^loop thread: ([0-9.]+) ns on a CPU", open(sys.argv[1]).read(), re.M)]
if cpu:
    c = statistics.median(cpu)
    print(f"ratio on a CPU: tsnic's loop thread {c:.1f} ns per frame / dpdk {d:.1f} = {c / d:.2f}")
PY
fi
bench_footer "driver/benches/null_replay.sh $N $RUNS${*:+ $*}"
