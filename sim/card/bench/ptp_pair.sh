#!/usr/bin/env bash
# PTP between two co-simulated cards on one wire (issue 33 item 3; docs/PTP.md): the master card's
# PHC is the true time; the slave card starts 1 s off with its core clock period scaled by an
# oscillator error (+100 ppm, then -100 ppm) and 10 ppb of sinusoidal wander (300 s period); wire
# delay 1234.567 ns, a multiple of neither clock period. Three runs of SECONDS simulated seconds
# (default 1000): L2 at +100 ppm with one-step Syncs by schedule, UDP/IPv4 two-step at -100 ppm,
# and L2 two-step with 20 ns of path asymmetry (which PTP cannot see: the slave settles 10 ns off).
# Each prints its summary; the last line is the first run's figures: |offset to true time| from
# 10 s after lock to the end (p50, p99, max), lock time (the first second from which |offset|
# stays under 100 ns), one-step Syncs whose departure stamp differed from their originTimestamp.
# Usage: sim/card/bench/ptp_pair.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/../../.."
. sim/card/bench/footer.sh
S=${1:-1000}
cargo build --release --locked -q -p tsnic
mkdir -p target/bench
T=./target/release/tsnic
run() {
    echo "== $*"
    /usr/bin/time -o target/bench/ptp_pair.wall -f "wall %e s, max RSS %M KiB" \
        $T ptp --sim-pair --role slave --duration "${S}s" --quiet "$@" | tee -a target/bench/ptp_pair.txt
    cat target/bench/ptp_pair.wall
}
: > target/bench/ptp_pair.txt
run --transport l2 --slave-ppb 100000 --one-step --pcap target/bench/ptp_pair.pcapng
main=$(grep '^ptp pair: p50' target/bench/ptp_pair.txt | head -1)
run --transport udp4 --slave-ppb=-100000
# 20 ns asymmetry: the lock threshold (100 ns) still holds, the mean shows the -10 ns
run --transport l2 --slave-ppb 100000 --asymmetry-ps 20000
if command -v tshark >/dev/null; then
    bad=$(tshark -n -r target/bench/ptp_pair.pcapng -Y '_ws.malformed || _ws.expert.severity >= "error"' 2>/dev/null | wc -l)
    echo "tshark: $(tshark -n -r target/bench/ptp_pair.pcapng 2>/dev/null | wc -l) frames of the first run dissected, $bad malformed or in error"
fi
bench_footer "sim/card/bench/ptp_pair.sh $S"
# the figures line, as `ptp pair: p50 A ns, p99 B ns, max C ns, lock D s, one-step misses E`
echo "$main" | sed 's/one-step misses \([0-9]*\) of [0-9]*/one-step misses \1/' 
