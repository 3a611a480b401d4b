#!/usr/bin/env bash
# Yosys equivalence check of the Alveo tops against a former revision: each board's fpga.v at REV (the
# gold design, e.g. f7b259b, where each top still held its PCIe block, core, flash and LEDs itself)
# against the tree's fpga.v with board/common/rtl/tsnic_alveo_top.v (the gate), for MAC_10G = 0 and 1.
# The modules both sides instantiate unchanged are black boxes: the vendor stubs, tsnic_board_core,
# tsnic_cdc_sync and tsnic_alveo_mac (the script refuses if one of them changed since REV). Both sides
# are flattened, the gate's wires lose their instance prefix (alveo_inst.) so that equiv_make pairs
# them with the gold's by name, and equiv_struct pairs black-box cells of the same type and parameters
# whose inputs are proven equal. Passes only if every paired signal, every output among them, is
# proven (equiv_status -assert); a different parameter or connection of a black box leaves its
# outputs unproven.
#
#   board/common/synth/equiv_alveo.sh [REV]      (default REV: f7b259b)
#
# Logs: build/equiv/<board>-<mac_10g>.log.
set -euo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
cd "$root"
rev="${1:-f7b259b}"
git rev-parse --verify -q "$rev^{commit}" >/dev/null || { echo "equiv_alveo.sh: no revision '$rev'" >&2; exit 2; }
boxes=(hdl/rtl/tsnic_board_core.v hdl/rtl/tsnic_cdc_sync.v board/common/rtl/tsnic_alveo_mac.v board/common/stubs)
if ! git diff --quiet "$rev" -- "${boxes[@]}"; then
  echo "equiv_alveo.sh: $(git diff --name-only "$rev" -- "${boxes[@]}" | tr '\n' ' ')changed since $rev:" \
       "they are black boxes here, so compare them on their own first" >&2
  exit 2
fi
out="$root/build/equiv"; mkdir -p "$out"
status=0
for board in alveo_u50 alveo_u280 alveo_u250; do
  git show "$rev:board/$board/rtl/fpga.v" | sed 's/^module fpga #(/module gold #(/' > "$out/gold_$board.v"
  for mac in 0 1; do
    log="$out/$board-$mac.log"
    read_all="read_verilog -lib -Ihdl/rtl board/common/stubs/*.v ${boxes[*]:0:3}
read_verilog $out/gold_$board.v
read_verilog -Ihdl/rtl board/common/rtl/tsnic_alveo_top.v board/$board/rtl/fpga.v
chparam -set MAC_10G $mac gold fpga
hierarchy -check
proc
flatten
opt_clean -purge"
    # the gate's wires that came from inside the shared module
    wires=$(yosys -p "$read_all; select -list fpga/w:alveo_inst.*" 2>&1 | sed -n 's#^fpga/alveo_inst\.##p') || true
    [ -n "$wires" ] || { echo "equiv_alveo.sh: $board: no alveo_inst wires found (see yosys)" >&2; status=1; continue; }
    {
      echo "$read_all"
      echo "cd fpga"
      for w in $wires; do echo "rename alveo_inst.$w $w"; done
      # the power-on count's register had the top's name before; its port alias is gone after opt_clean
      echo "rename init_rst_cnt_reg init_rst_cnt"
      echo "cd .."
      echo "opt_clean -purge; equiv_make gold fpga eq; hierarchy -top eq"
      echo "equiv_simple -seq 5; equiv_struct; equiv_simple -seq 5; equiv_induct; equiv_status -assert"
    } > "$out/$board-$mac.ys"
    if yosys -l "$log" -s "$out/$board-$mac.ys" >/dev/null 2>&1; then
      echo "equiv_alveo.sh: $board MAC_10G=$mac: $(grep -o 'Of those cells [0-9]* are proven and 0 are unproven' "$log" | tail -1)"
    else
      echo "equiv_alveo.sh: $board MAC_10G=$mac: NOT equivalent or failed, see $log" >&2
      grep -E 'Unproven|ERROR' "$log" | head -10 >&2
      status=1
    fi
  done
done
exit $status
