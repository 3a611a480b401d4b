#!/usr/bin/env bash
# Synthesize tsnic_tx_prefetch (with its TX buffer and FIFOs) or tsnic_launch_gate with Yosys
# synth_xilinx and print LUT / FF / CARRY4 / BRAM / LUTRAM counts, latches and the longest
# combinational path. The path is measured by `ltp` after deleting the flip-flops (FD*) and block
# RAMs (RAMB*, synchronous) from the mapped netlist, because in the prefetch netlist `ltp -noff`
# alone walked through FDRE cells (it reported thousands of "loops" through counters and a path of
# 340); what remains is the register-to-register (and port-to-register) depth, counting IBUF/OBUF,
# LUTs, MUXF7/8 and each CARRY4 as one level.
#
#   hdl/synth/tsnic_tx_path.sh <top> [NAME=VALUE ...]     e.g. hdl/synth/tsnic_tx_path.sh tsnic_tx_prefetch DATA_W=512
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
rtl="$root/hdl/rtl"
top="${1:?usage: tsnic_tx_path.sh <top> [NAME=VALUE ...]}"
shift
chparams=""
tag=""
for kv in "$@"; do
  chparams="$chparams -chparam ${kv%%=*} ${kv#*=}"
  tag="${tag}_${kv%%=*}${kv#*=}"
done
out="$root/build/synth"
mkdir -p "$out"
log="$out/${top}${tag}.log"
script="verilog_defaults -add -I$rtl; read_verilog $rtl/$top.v; hierarchy -check -libdir $rtl -top $top$chparams; synth_xilinx -flatten -top $top; stat; delete t:FD* t:RAMB*; ltp -noff"
start=$(date +%s)
if ! yosys -q -l "$log" -p "$script" >/dev/null 2>&1; then
  echo "synth: yosys failed on $top, see $log" >&2
  tail -20 "$log" >&2
  exit 1
fi
secs=$(( $(date +%s) - start ))
cells() { awk '/Number of cells:/{blk=""} {blk=blk"\n"$0} END{print blk}' "$log" | { grep -E "^ +$1 +[0-9]+\$" || true; } | awk '{s+=$2} END{print s+0}'; }
lut=0; for t in LUT1 LUT2 LUT3 LUT4 LUT5 LUT6; do lut=$((lut + $(cells "$t"))); done
ff=0; for t in FDRE FDSE FDCE FDPE; do ff=$((ff + $(cells "$t"))); done
latch=0; for t in LDCE LDPE; do latch=$((latch + $(cells "$t"))); done
bram36=$(cells 'RAMB36E1'); bram18=$(cells 'RAMB18E1')
lutram=$(cells 'RAM[0-9]+[A-Z0-9]*')
carry=$(cells 'CARRY4')
loops=$(grep -c "Detected loop" "$log" || true)
ltp=$(grep -Eo 'Longest topological path in [^ ]+ \(length=[0-9]+\)' "$log" | tail -1 | grep -Eo '[0-9]+\)$' | tr -d ')')
echo "synth $top${*:+ ($*)}: LUT=$lut FF=$ff CARRY4=$carry RAMB36=$bram36 RAMB18=$bram18 LUTRAM=$lutram latches=$latch ltp=$ltp loops=$loops (yosys $(yosys -V | awk '{print $2}'), ${secs}s)"
if [ "$latch" -ne 0 ]; then echo "synth: $top infers $latch latches" >&2; exit 1; fi
