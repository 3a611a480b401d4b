#!/usr/bin/env bash
# Co-simulation speed of tsnic_core: Verilator (in-process, with the host-memory, wire and BAR0
# models; the board size, and the small core) against Icarus (the bare core in bench/tb_speed.v, the
# RTL's default parameters), idle after reset. Also prints how many cycles the post-reset RAM clear
# takes. Usage: sim/card/bench/speed.sh [VERILATOR_CYCLES] [ICARUS_CYCLES]
set -euo pipefail
cd "$(dirname "$0")/../../.."
. sim/card/bench/footer.sh
VCYC=${1:-5000000}
ICYC=${2:-100000}
cargo run --release --locked -q -p tsnic-sim --example speed -- "$VCYC"
cargo run --release --locked -q -p tsnic-sim --example speed -- "$VCYC" small
out=$(mktemp -d)
iverilog -g2005 -o "$out/tb" -I hdl/rtl -y hdl/rtl -P tb_speed.CYCLES="$ICYC" sim/card/bench/tb_speed.v
start=$(date +%s.%N)
vvp -n "$out/tb" >/dev/null
end=$(date +%s.%N)
python3 -c "import sys; c=$ICYC; s=$end-$start; print(f'icarus 64-bit: {c} idle core cycles in {s:.3f} s = {c/s/1e6:.4f} M cycles/s')"
rm -rf "$out"
bench_footer "sim/card/bench/speed.sh $VCYC $ICYC"
