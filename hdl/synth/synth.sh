#!/usr/bin/env bash
# Synthesize one RTL module with Yosys synth_xilinx (generic Xilinx 7-series mapping, no place and route)
# and print its LUT / FF / BRAM / DSP / CARRY counts, latch count and the longest path (`ltp -noff`).
# The path is measured after deleting the mapped flip-flops (FD*/LD*), which ltp would otherwise take
# for combinational cells: its length counts LUT, CARRY4 and MUXF7/8 cells between registers.
#
#   hdl/synth/synth.sh <top> [NAME=VALUE ...]      e.g. hdl/synth/synth.sh tsnic_phc PERIOD_NUM=512 PERIOD_DEN=165
#
# Submodules are found by name in hdl/rtl/ (one module per file). The full Yosys log goes to
# build/synth/<top>.log. Exits non-zero on a synthesis error or if any latch was inferred.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
rtl="$root/hdl/rtl"
top="${1:?usage: synth.sh <top> [NAME=VALUE ...]}"
shift
chparams=""
for kv in "$@"; do
  chparams="$chparams -chparam ${kv%%=*} ${kv#*=}"
done
out="$root/build/synth"
mkdir -p "$out"
log="$out/$top.log"
rm -f "$log"
script="verilog_defaults -add -I$rtl; read_verilog $rtl/$top.v; hierarchy -check -libdir $rtl -top $top$chparams; synth_xilinx -flatten -top $top; stat; delete t:FD* t:LD*; ltp -noff"
start=$(date +%s)
if ! yosys -q -l "$log" -p "$script" >/dev/null 2>&1; then
  echo "synth: yosys failed on $top, see $log" >&2
  tail -20 "$log" >&2
  exit 1
fi
secs=$(( $(date +%s) - start ))
# the last `stat` block: "     <count>   <cell type>"
cells() { awk -v re="^$1\$" '/Number of cells:/{delete n} NF==2 && $2 ~ /^[0-9]+$/ && $1 ~ re {n[$1]+=$2} END{s=0; for (k in n) s+=n[k]; print s}' "$log"; }
lut=0; for t in LUT1 LUT2 LUT3 LUT4 LUT5 LUT6; do lut=$((lut + $(cells "$t"))); done
ff=0; for t in FDRE FDSE FDCE FDPE; do ff=$((ff + $(cells "$t"))); done
latch=0; for t in LDCE LDPE; do latch=$((latch + $(cells "$t"))); done
bram=0; for t in 'RAMB18E1' 'RAMB36E1'; do bram=$((bram + $(cells "$t"))); done
lutram=$(( $(cells 'RAM[0-9]+[A-Z0-9]*') ))
dsp=$(cells 'DSP48E1')
carry=$(cells 'CARRY4')
ltp=$(sed -nE 's/.*Longest topological path in [^ ]+ \(length=([0-9]+)\).*/\1/p' "$log" | tail -1)
echo "synth $top${*:+ ($*)}: LUT=$lut FF=$ff CARRY4=$carry BRAM=$bram LUTRAM=$lutram DSP=$dsp latches=$latch ltp_noff=$ltp (yosys $(yosys -V | awk '{print $2}'), ${secs}s)"
if [ "$latch" -ne 0 ]; then echo "synth: $top infers $latch latches" >&2; exit 1; fi
