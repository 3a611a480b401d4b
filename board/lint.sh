#!/usr/bin/env bash
# Verilator --lint-only -Wall of every board top (board/<board>/rtl/fpga.v) against the RTL in hdl/rtl,
# the board-side RTL in board/common/rtl and the port-list stubs of the Xilinx primitives and generated
# IP in board/common/stubs; a top with the 10G option (parameter MAC_10G) also with MAC_10G=1.
# Fails on any warning or error, printing it. The stubs list every port of each IP and primitive, so
# -Wall's PINMISSING fails a top that leaves a port out, and PINCONNECTEMPTY one that leaves an input
# empty: every tie of an IP input is written in the top. The one exception (board/lint_filter.py): an
# empty connection of a vendor stub's output (`.stat_foo()`, an unused IP output, as Corundum writes it).
# Then board/cdc_check.py: every register fed from another clock domain, in each top's Yosys netlist,
# is inside a CDC module that cdc.tcl constrains.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
status=0; count=0
# lint VERILATOR_ARGS...: Verilator's messages through board/lint_filter.py into $out; fails on any left
# (or on a Verilator failure that is not only the filtered warnings)
lint() {
  local raw rc=0
  raw=$(verilator --lint-only -Wall "$@" 2>&1) || rc=$?
  if ! out=$(printf '%s\n' "$raw" | python3 board/lint_filter.py); then return 1; fi
  if [ "$rc" -ne 0 ] && ! grep -q 'Exiting due to [0-9]* warning' <<<"$raw"; then out="$raw"; return 1; fi
  return 0
}
for top in board/*/rtl/fpga.v; do
  board=$(basename "$(dirname "$(dirname "$top")")")
  dirs=(-y hdl/rtl -y board/common/rtl -y "board/$board/rtl" -y board/common/stubs)
  if ! lint -Ihdl/rtl "${dirs[@]}" --top-module fpga "$top"; then
    echo "board lint: $top"; echo "$out"; status=1
  fi
  count=$((count + 1))
  # a top with the 10G option (MAC=10g: parameter MAC_10G) is linted in that variant too
  if grep -q 'parameter MAC_10G' "$top"; then
    if ! lint -Ihdl/rtl "${dirs[@]}" --top-module fpga -GMAC_10G=1 "$top"; then
      echo "board lint: $top (MAC_10G=1)"; echo "$out"; status=1
    fi
    count=$((count + 1))
  fi
done
if [ "$count" -eq 0 ]; then echo "board lint: no board tops found" >&2; exit 1; fi
# the board-side RTL modules, each as its own top
for f in board/common/rtl/*.v; do
  [ -e "$f" ] || continue
  m=$(basename "$f" .v)
  cdirs=(-Ihdl/rtl -y hdl/rtl -y board/common/rtl -y board/common/stubs)
  if ! lint "${cdirs[@]}" --top-module "$m" "$f"; then
    echo "board lint: $f"; echo "$out"; status=1
  fi
  count=$((count + 1))
  if grep -q 'parameter MAC_10G' "$f"; then
    if ! lint "${cdirs[@]}" --top-module "$m" -GMAC_10G=1 "$f"; then
      echo "board lint: $f (MAC_10G=1)"; echo "$out"; status=1
    fi
    count=$((count + 1))
  fi
done
if [ $status -eq 0 ]; then echo "board lint: $count board tops and board-side modules clean under verilator --lint-only -Wall (every IP/primitive port named, every input tied)"; fi
# every clock crossing of each board top inside a CDC module that cdc.tcl constrains (Yosys netlist)
# (make test checks one Alveo top and the SUME, about 2 min of CPU each: the three Alveo boards share
# tsnic_alveo_top and its crossings; TSNIC_CDC_ALL=1 checks all four and their MAC_10G variants)
if [ "${TSNIC_CDC_ALL:-0}" = 1 ]; then
  cdc_args=(--variants)
else
  cdc_args=(--top alveo_u50 --top netfpga_sume)
fi
if ! python3 board/cdc_check.py "${cdc_args[@]}"; then status=1; fi
exit $status
