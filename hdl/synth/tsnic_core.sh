#!/usr/bin/env bash
# Synthesize the card core (tsnic_core) with Yosys synth_xilinx (generic 7-series mapping, no place and
# route) and print LUT / FF / CARRY4 / block RAM / LUTRAM / DSP counts, latches, and the longest
# combinational path twice:
#   ltp_noff      - after deleting flip-flops (FD*/LD*), as hdl/synth/synth.sh measures it; yosys' ltp
#                   then also walks *through* block RAM cells as if they were logic;
#   ltp_noff_bram - after also deleting the block RAMs (RAMB18E1/RAMB36E1): every inferred RAM in the
#                   core has a registered read, so a RAMB is a register boundary on real silicon.
# The 7-series mapping has no URAM; URAM is reported as 0 by construction.
#
#   hdl/synth/tsnic_core.sh [NAME=VALUE ...]     e.g. hdl/synth/tsnic_core.sh NUM_QUEUES=4096 NODE_W=16
#
# The full Yosys log goes to build/synth/tsnic_core[-<params>].log.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
rtl="$root/hdl/rtl"
top=tsnic_core
# TSNIC_SYNTH_NOINIT=1: synthesize a copy of the RTL (build/synth/rtl_noinit) in which every top-level
# `initial begin ... end` block that is not already inside `ifndef SYNTHESIS is wrapped in one. Yosys
# 0.23 unrolls simulation-only zero-fill loops (2^16 iterations at the 4096-queue size) for a very long
# time; block RAM powers up zero anyway, so the hardware is the same.
if [ "${TSNIC_SYNTH_NOINIT:-0}" = 1 ]; then
  copy="$root/build/synth/rtl_noinit"
  rm -rf "$copy"; mkdir -p "$copy"; cp "$rtl"/*.v "$rtl"/*.vh "$copy"/
  python3 - "$copy" <<'PY'
import pathlib, re, sys
for f in pathlib.Path(sys.argv[1]).glob("*.v"):
    s = f.read_text()
    if "`ifndef SYNTHESIS" in s:
        continue
    t = re.sub(r"(?ms)^initial begin\n.*?^end\n", lambda m: "`ifndef SYNTHESIS\n" + m.group(0) + "`endif\n", s)
    if t != s:
        f.write_text(t)
        print("synth: simulation-only initial blocks guarded in", f.name, file=sys.stderr)
PY
  rtl="$copy"
fi
chparams=""
tag=""
for kv in "$@"; do
  chparams="$chparams -chparam ${kv%%=*} ${kv#*=}"
  tag="$tag-${kv%%=*}${kv#*=}"
done
out="$root/build/synth"
mkdir -p "$out"
log="$out/$top$tag.log"
rm -f "$log"
# -defer: elaborate each module only with the parameters the core gives it (hierarchy -libdir would
# first elaborate every library module with its own defaults, e.g. the 65536-node calendar).
script="verilog_defaults -add -I$rtl; read_verilog -defer $rtl/tsnic_*.v; hierarchy -check -top $top$chparams; synth_xilinx -flatten -top $top; stat; delete t:FD* t:LD*; ltp -noff; delete t:RAMB18E1 t:RAMB36E1; ltp -noff"
start=$(date +%s)
if ! yosys -q -l "$log" -p "$script" >/dev/null 2>&1; then
  echo "synth: yosys failed on $top, see $log" >&2
  tail -20 "$log" >&2
  exit 1
fi
secs=$(( $(date +%s) - start ))
cells() { awk -v re="^$1\$" '/Number of cells:/{delete n} NF==2 && $2 ~ /^[0-9]+$/ && $1 ~ re {n[$1]+=$2} END{s=0; for (k in n) s+=n[k]; print s}' "$log"; }
lut=0; for t in LUT1 LUT2 LUT3 LUT4 LUT5 LUT6; do lut=$((lut + $(cells "$t"))); done
ff=0; for t in FDRE FDSE FDCE FDPE; do ff=$((ff + $(cells "$t"))); done
latch=0; for t in LDCE LDPE; do latch=$((latch + $(cells "$t"))); done
b18=$(cells 'RAMB18E1'); b36=$(cells 'RAMB36E1')
lutram=$(( $(cells 'RAM[0-9]+[A-Z0-9]*') ))
dsp=$(cells 'DSP48E1')
carry=$(cells 'CARRY4')
ltp1=$(sed -nE 's/.*Longest topological path in [^ ]+ \(length=([0-9]+)\).*/\1/p' "$log" | sed -n 1p)
ltp2=$(sed -nE 's/.*Longest topological path in [^ ]+ \(length=([0-9]+)\).*/\1/p' "$log" | sed -n 2p)
echo "synth $top${*:+ ($*)}: LUT=$lut FF=$ff CARRY4=$carry RAMB36=$b36 RAMB18=$b18 URAM=0 LUTRAM=$lutram DSP=$dsp latches=$latch ltp_noff=$ltp1 ltp_noff_bram=$ltp2 (yosys $(yosys -V | awk '{print $2}'), ${secs}s)"
if [ "$latch" -ne 0 ]; then echo "synth: $top infers $latch latches" >&2; exit 1; fi
