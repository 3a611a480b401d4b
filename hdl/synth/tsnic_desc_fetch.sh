#!/usr/bin/env bash
# Synthesis figures for tsnic_desc_fetch / tsnic_desc_table (Engineer A), on top of hdl/synth/synth.sh:
# the same yosys synth_xilinx run, then the longest path measured again with the block RAMs removed
# as well as the flip-flops. The RAMs of these modules register their reads inside the RAMB cell, and
# `ltp` takes a RAMB for a combinational cell, so synth.sh's figure chains RAM -> logic -> RAM paths
# (429 "levels" at 4096 queues). This prints both.
#
#   hdl/synth/tsnic_desc_fetch.sh [top] [NAME=VALUE ...]     top defaults to tsnic_desc_fetch
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
top="${1:-tsnic_desc_fetch}"
[ $# -gt 0 ] && shift
"$root/hdl/synth/synth.sh" "$top" "$@"
rtl="$root/hdl/rtl"
chparams=""
for kv in "$@"; do chparams="$chparams -chparam ${kv%%=*} ${kv#*=}"; done
log="$root/build/synth/$top.ram_cut.log"
yosys -q -l "$log" -p "verilog_defaults -add -I$rtl; read_verilog $rtl/$top.v; hierarchy -check -libdir $rtl -top $top$chparams; synth_xilinx -flatten -top $top; delete t:FD* t:LD* t:RAMB*; ltp -noff" >/dev/null 2>&1
ltp=$(sed -nE 's/.*Longest topological path in [^ ]+ \(length=([0-9]+)\).*/\1/p' "$log" | tail -1)
echo "synth $top${*:+ ($*)}: ltp_noff without RAMB cells = $ltp"
