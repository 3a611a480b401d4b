#!/usr/bin/env bash
# Peak memory of the streaming push/replay pipeline against the input's size, on the `null` backend
# (no card, no simulation): `tsnic replay` of pcaps of 60-byte and 1500-byte frames and `tsnic push`
# of traces of 60-byte rows, each SIZE MB, without outputs and with `--pcap` + `--report` (every
# frame; for push only up to 500 MB). Prints, per run, the peak resident set (GNU time's %M, the
# kernel's maxrss) and the null backend's `host:` line; then the machine and the rerun command. The peaks of one kind should not
# grow with SIZE (the pipeline holds the rings, the hold window and fixed buffers, whatever the input).
# Usage: driver/benches/stream_rss.sh [SIZE_MB...]   (default: 20 200)
set -euo pipefail
cd "$(dirname "$0")/../.."
. sim/card/bench/footer.sh
SIZES=${*:-20 200}
D=target/bench/stream
mkdir -p "$D"
cargo build --release --locked -q -p tsnic
T=./target/release/tsnic
gen_pcap() { # MB LEN PATH
    [ -s "$3" ] || python3 - "$1" "$2" "$3" <<'PY'
import struct, sys
mb, ln, path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
n = mb * 1_000_000 // (16 + ln)
frame = bytes.fromhex("ffffffffffff020000000001" "0800") + bytes(i % 256 for i in range(ln - 14))
gap = (ln + 24) * 8 * 10 // 100  # 10 Gb/s line rate, ns x10
with open(path, "wb") as f:
    f.write(struct.pack("<IHHiIII", 0xA1B23C4D, 2, 4, 0, 0, 65535, 1))
    out = []
    for i in range(n):
        t = i * gap // 10
        out.append(struct.pack("<IIII", t // 10**9, t % 10**9, ln, ln) + frame)
        if len(out) == 20000:
            f.write(b"".join(out)); out = []
    f.write(b"".join(out))
PY
}
gen_trace() { # MB PATH
    [ -s "$2" ] || python3 - "$1" "$2" <<'PY'
import sys
mb, path = int(sys.argv[1]), sys.argv[2]
with open(path, "w") as f:
    f.write("launch_ns,queue,len\n")
    size, i, out = 20, 0, []
    while size < mb * 1_000_000:
        row = f"{i * 672 // 10},0,60\n"
        out.append(row); size += len(row); i += 1
        if len(out) == 20000:
            f.write("".join(out)); out = []
    f.write("".join(out))
PY
}
run() { # LABEL ARGS...
    local label=$1; shift
    local rss host
    /usr/bin/time -o "$D/rss.txt" -f '%M' "$T" "$@" --backend null --quiet >"$D/out.txt" 2>"$D/err.txt"
    rss=$(tail -1 "$D/rss.txt")
    host=$(grep -h '^host:' "$D/out.txt" "$D/err.txt" | head -1)
    printf '%-44s peak RSS %7.1f MB   %s\n' "$label" "$(echo "$rss / 1024" | bc -l)" "$host"
}
for S in $SIZES; do
    for L in 60 1500; do
        P="$D/cap_${L}B_${S}MB.pcap"
        gen_pcap "$S" "$L" "$P"
        run "replay ${S} MB pcap, ${L}-byte frames" replay "$P"
        run "replay ${S} MB pcap, ${L}-byte, --pcap --report" replay "$P" --pcap "$D/o.pcapng" --report "$D/r.json"
        rm -f "$D/o.pcapng" "$D/r.json"
    done
    C="$D/trace_${S}MB.csv"
    gen_trace "$S" "$C"
    run "push ${S} MB trace, 60-byte rows" push "$C"
    # (above 500 MB a trace of 60-byte rows makes a capture and a report 7x and 14x its size)
    if [ "$S" -le 500 ]; then
        run "push ${S} MB trace, --pcap --report" push "$C" --pcap "$D/o.pcapng" --report "$D/r.json"
        rm -f "$D/o.pcapng" "$D/r.json"
    fi
done
bench_footer "driver/benches/stream_rss.sh $SIZES"
