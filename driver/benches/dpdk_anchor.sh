#!/usr/bin/env bash
# The anchor for the host-side figures (issue 35): Debian's DPDK (package dpdk-dev, 22.11, which
# ships dpdk-testpmd) transmitting 60-byte packets from one forwarding core into its null device
# (`--vdev net_null0`: the PMD frees each burst, no copy), `--forward-mode=txonly`, no hugepages.
# testpmd prints the TX packet rate once a second; the figure is the median of the whole seconds
# (the first and the last, partial ones left out). Prints each second, then
#   dpdk: N ns per packet, M Mpps
# and the machine and the rerun command. What it measures is DPDK's own per-packet path (mbuf
# allocation from a pool, header template copy, burst TX of 32); tsnic's null backend also copies
# the payload into DMA memory and reaps a completion per frame, so the ratio is an upper bound on
# what one core could gain.
# Usage: driver/benches/dpdk_anchor.sh [SECONDS]   (default 8)
set -euo pipefail
cd "$(dirname "$0")/../.."
. sim/card/bench/footer.sh
SECS=${1:-8}
case "$SECS" in
    '' | *[!0-9]*) echo "dpdk_anchor.sh: SECONDS must be a whole number, got '$SECS'" >&2; exit 2 ;;
esac
if [ "$SECS" -lt 4 ]; then
    echo "dpdk_anchor.sh: SECONDS must be at least 4 (the first and last seconds are partial)" >&2
    exit 2
fi
if ! command -v dpdk-testpmd > /dev/null; then
    if [ "$(id -u)" = 0 ]; then
        echo "dpdk_anchor.sh: installing Debian's dpdk-dev (dpdk-testpmd)" >&2
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends dpdk-dev > /dev/null
    else
        echo "dpdk_anchor.sh: dpdk-testpmd is missing: sudo apt-get install dpdk-dev" >&2
        exit 1
    fi
fi
mkdir -p target/bench
LOG=target/bench/dpdk_anchor.log
# With --stats-period testpmd runs until it gets SIGINT: SECS seconds after start, then it stops
# its ports and exits (timeout's status 124: signalled on schedule). Its shared-memory files go to a
# scratch runtime directory of this run.
RUN=$(mktemp -d)
trap 'rm -rf "$RUN"' EXIT
set +e
XDG_RUNTIME_DIR=$RUN timeout -s INT -k 30 "$SECS" dpdk-testpmd \
    --no-huge -m 512 --no-pci --vdev net_null0 -l 0-1 --log-level=error --file-prefix=tsnic_anchor \
    -- --forward-mode=txonly --auto-start --txpkts=60 --nb-cores=1 --total-num-mbufs=16384 \
    --stats-period=1 < /dev/null > "$LOG" 2>&1
rc=$?
set -e
if { [ "$rc" != 0 ] && [ "$rc" != 124 ]; } || ! grep -q '^Bye' "$LOG"; then
    echo "dpdk_anchor.sh: dpdk-testpmd failed (exit $rc); its output is in $LOG:" >&2
    tail -5 "$LOG" >&2
    exit 1
fi
python3 - "$LOG" <<'PY'
import re, statistics, sys
rates = [int(m.group(1)) for m in re.finditer(r"Tx-pps:\s+(\d+)", open(sys.argv[1], errors="replace").read())]
busy = [r for r in rates if r > 0]
steady = busy[1:-1]
if len(steady) < 2:
    sys.exit(f"dpdk_anchor.sh: only {len(busy)} seconds with traffic in {sys.argv[1]}: run longer")
for i, r in enumerate(steady, 1):
    print(f"second {i}: {r / 1e6:.2f} Mpps")
pps = statistics.median(steady)
print(f"dpdk: {1e9 / pps:.1f} ns per packet, {pps / 1e6:.2f} Mpps")
PY
bench_footer "driver/benches/dpdk_anchor.sh $SECS"
