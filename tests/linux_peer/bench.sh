#!/usr/bin/env bash
# The EDT sender and Linux's own TCP sender, each to the same Linux receiver over the same path
# model, with the same injected loss (tsnic send --peer linux [--sender kernel]). Prints one row
# per run: goodput, retransmissions, TLP probes, RTOs, recoveries, the path's drops, and whether
# every byte arrived (sha256). Needs root, /dev/net/tun, iproute2. Real time on a shared host:
# the figures move with the machine's load.
#
#   tests/linux_peer/bench.sh            (uses target/debug/tsnic; TSNIC=path to pick another)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TSNIC=${TSNIC:-$ROOT/target/debug/tsnic}
[ -x "$TSNIC" ] || { echo "build first: cargo build -p tsnic (or set TSNIC)" >&2; exit 1; }
BYTES=${BYTES:-20MB}
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
PATH_LOSS="rate=1G,rtt=1ms,buffer=2MB,loss=0.01"
PATH_CLEAN="rate=1G,rtt=1ms,buffer=2MB"
printf '%-6s %-18s %-7s %9s %8s %5s %5s %6s %11s %6s\n' cc loss sender Mbit/s retrans TLP RTO recov drops sha_ok
for cc in cubic bbr; do
  for case in none "1%" "burst10"; do
    case $case in
      none) args=(--path "$PATH_CLEAN");;
      "1%") args=(--path "$PATH_LOSS");;
      burst10) args=(--path "$PATH_CLEAN" --drop-burst 10@2000);;
    esac
    for sender in edt kernel; do
      j=$OUT/$cc-$sender.json
      "$TSNIC" send --card model --peer linux --sender $sender --cc $cc --bytes "$BYTES" \
        --seed 3 "${args[@]}" --report "$j" >/dev/null 2>"$OUT/err" || { cat "$OUT/err" >&2; }
      python3 - "$j" "$cc" "$case" "$sender" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
p = r["path"] or {}
drops = "%d/%d/%d" % (p.get("dropped_random", 0), p.get("dropped_burst", 0), p.get("dropped_buffer", 0))
print("%-6s %-18s %-7s %9.1f %8d %5d %5d %6d %11s %6s" % (sys.argv[2], sys.argv[3], sys.argv[4],
      r["goodput_mbps"], r["retransmitted_segments"], r["tlp_probes"], r["rto_fires"],
      r["recoveries"], drops, r["peer"]["sha256_match"]))
PY
    done
  done
done
echo "drops = random/burst/buffer; EDT counts from the sender, kernel counts from its namespace's"
echo "nstat (TcpRetransSegs, TcpExtTCPLossProbes, TcpExtTCPTimeouts, TcpExtTCPSackRecovery)."
