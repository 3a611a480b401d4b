#!/usr/bin/env bash
# Yosys figures of a board's core for its FPGA family: synth_xilinx -family xcup (UltraScale+: Alveo)
# or xc7 (7-series: NetFPGA SUME), no place and route. Prints LUT / FF / block RAM / URAM / LUTRAM /
# DSP / carry cells and the latch count (must be 0).
#
#   board/common/synth/core.sh FAMILY TOP [NAME=VALUE ...]
#   e.g. board/common/synth/core.sh xcup tsnic_core AXI_DATA_W=512 AXIS_DATA_W=512
#
# TOP is tsnic_board_core (PCIe endpoint + core) when hdl/rtl has it, else tsnic_core (the lead merges
# the PCIe branch later; docs/BENCHMARKS.md says which one a figure is for). Log: build/synth/board-*.log.
# TSNIC_RTL_DIR=DIR reads the RTL from DIR instead of hdl/rtl.
set -euo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
rtl="${TSNIC_RTL_DIR:-$root/hdl/rtl}"   # TSNIC_RTL_DIR: another RTL tree (e.g. with other branches merged)
family="${1:?usage: core.sh xcup|xc7 TOP [NAME=VALUE ...]}"; top="${2:?usage: core.sh xcup|xc7 TOP [NAME=VALUE ...]}"; shift 2
case "$family" in xcup|xc7) ;; *) echo "core.sh: family must be xcup or xc7, not '$family'" >&2; exit 2;; esac
[ -f "$rtl/$top.v" ] || { echo "core.sh: $rtl/$top.v does not exist" >&2; exit 2; }
chparams=""; tag=""
for kv in "$@"; do chparams="$chparams -chparam ${kv%%=*} ${kv#*=}"; tag="$tag-${kv%%=*}${kv#*=}"; done
out="$root/build/synth"; mkdir -p "$out"
log="$out/board-$family-$top$tag.log"; rm -f "$log"
script="verilog_defaults -add -I$rtl; read_verilog -defer $rtl/tsnic_*.v; hierarchy -check -top $top$chparams; synth_xilinx -family $family -flatten -top $top; stat"
start=$(date +%s)
if ! yosys -q -l "$log" -p "$script" >/dev/null 2>&1; then
  echo "core.sh: yosys failed on $top ($family), see $log" >&2; tail -20 "$log" >&2; exit 1
fi
secs=$(( $(date +%s) - start ))
# sum of the last `stat` block's counts of the cell types matching a regex
cells() { awk -v re="^($1)\$" '/Number of cells:/{delete n} NF==2 && $2 ~ /^[0-9]+$/ && $1 ~ re {n[$1]+=$2} END{s=0; for (k in n) s+=n[k]; print s}' "$log"; }
lut=$(cells 'LUT[1-6]')
ff=$(cells 'FDRE|FDSE|FDCE|FDPE')
latch=$(cells 'LDCE|LDPE')
b36=$(cells 'RAMB36E[12]'); b18=$(cells 'RAMB18E[12]'); uram=$(cells 'URAM288(_BASE)?')
lutram=$(cells 'RAM[0-9]+[A-Z0-9]*')
dsp=$(cells 'DSP48E[12]'); carry=$(cells 'CARRY4|CARRY8')
echo "synth $family $top${*:+ ($*)}: LUT=$lut FF=$ff RAMB36=$b36 RAMB18=$b18 URAM=$uram LUTRAM=$lutram DSP=$dsp CARRY=$carry latches=$latch (yosys $(yosys -V | awk '{print $2}'), ${secs}s)"
if [ "$latch" -ne 0 ]; then echo "core.sh: $top infers $latch latches" >&2; exit 1; fi
