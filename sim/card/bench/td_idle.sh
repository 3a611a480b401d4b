#!/usr/bin/env bash
# The state of tsnic_board_core that changes while the card is idle (the PHC's td_source, the MAC
# side's two td_sink copies, the three tsnic_cdc_bus crossings: bench/td_idle/tsnic_td_idle.v),
# Verilated alone and stepped through the board co-simulation's instants:
#  - cost: CPU time to step it through MS ms (what an exact idle jump that steps only this state
#    would cost at least), on the SUME's clocks (MAC 156.25 MHz) and the Alveos' (322.265625 MHz);
#  - period: every register compared, once locked, at MAC edges one td_source schedule period
#    (65535 samples: 1,540,080 PCIe clock cycles, 6.16 ms) and multiples of it apart (the absolute
#    times less the PHC's advance, the sample's ns and fraction as one value; s3_hard_val_reg, dead
#    until the next acquisition rewrites it, left out): the shortest whole-period jump that would
#    repeat every register; on the SUME also with the PHC trimmed (+100 ppb) two ways.
# Usage: sim/card/bench/td_idle.sh [MS]
set -euo pipefail
cd "$(dirname "$0")/../../.."
. sim/card/bench/footer.sh
MS=${1:-10}
out=target/bench/td_idle
mkdir -p "$out"
build() {  # $1: model dir, $2: MAC_PERIOD_FX
    verilator --cc --exe --build -O3 -j 1 --public-flat-rw --x-assign fast --x-initial fast --noassert \
        -Wno-fatal -y hdl/rtl --top-module tsnic_td_idle -GMAC_PERIOD_FX="64'd$2" \
        sim/card/bench/td_idle/tsnic_td_idle.v "$PWD/sim/card/bench/td_idle/td_idle.cpp" \
        -CFLAGS "-O2 -I$PWD/$1" -Mdir "$1" > "$1.log" 2>&1 || { tail -20 "$1.log"; exit 1; }
}
regs() {  # the registers of the model's root header as td_idle.cpp's REL/ABS lines
    python3 - "$1/Vtsnic_td_idle___024root.h" > "$1/td_idle_regs.inc" <<'PY'
import re, sys
absolute = {"time_reg": 32, "s1_target_reg": 32, "s1_hard_reg": 32, "s2_hard_reg": 32,
            "prev_low_reg": 32}   # and the sample {ns_reg, fns_reg}: ABS_NS
for ty, lo, name in re.findall(r"^\s*(\w+(?:<\d+>)?)\s*/\*(\d+):0\*/\s+(tsnic_td_idle__DOT__\w+__DOT__\w+_reg);",
                               open(sys.argv[1]).read(), re.M):
    base, bits = name.split("__DOT__")[-1], int(lo) + 1
    if base in ("s3_hard_val_reg", "fns_reg"):
        continue
    if base == "ns_reg":
        print(f"ABS_NS({name}, {name[:-len('ns_reg')]}fns_reg)")
        continue
    w = "_W" if ty.startswith("VlWide") else ""
    if base in absolute:
        print(f"ABS{w}({name}, {bits}, {absolute[base]})")
    else:
        print(f"REL{w}({name}, {bits})")
PY
}
for b in "sume 27487790694 6400 1" "alveo 13327413670 102400 33"; do
    read -r name fx mp md <<< "$b"
    dir="$out/$name"
    if [ ! -x "$dir/Vtsnic_td_idle" ]; then
        mkdir -p "$dir"
        : > "$dir/td_idle_regs.inc"
        build "$dir" "$fx"            # first pass: the header to list the registers from
        regs "$dir"
        build "$dir" "$fx"
    fi
    echo "== $name (MAC edge k at 1700 + floor(k * $mp / $md) ps), $(grep -c . "$dir/td_idle_regs.inc") values compared"
    "$dir/Vtsnic_td_idle" cost "$MS" "$mp" "$md"
    # SUME: 8 PCIe cycles are 5 MAC cycles, so any whole period is a whole beat; the Alveos' beat is
    # 128 PCIe cycles (165 MAC), 8 periods
    if [ "$name" = sume ]; then per=1540080; n=5; else per=12320640; n=3; fi
    "$dir/Vtsnic_td_idle" period "$per" "$mp" "$md" "$n"
    if [ "$name" = sume ]; then
        # the PHC trimmed by about +100 ppb (adjfine): 4 ns + D x 2^-48 ns a cycle. 4 periods advance it
        # by a whole number of 2^-32 ns when D is a multiple of 2^10 (6,160,320 = 2^6 x 96,255):
        # td_fns, the top 32 of the PHC's 48 fraction bits, then truncates every sample alike
        for d in 112640 112590; do
            echo "-- PHC increment 4 ns + $d x 2^-48 ns"
            "$dir/Vtsnic_td_idle" period $((4 * per)) "$mp" "$md" 2 "$d"
        done
    fi
done
bench_footer "sim/card/bench/td_idle.sh $MS"
