#!/usr/bin/env bash
# `make timing`: the register-to-register timing budget of every RTL module (issue 16), on the shared
# open-tool estimator (yosys synth_xilinx -family xcup + a bit-level timing walk, logic only, no
# routing; see its README). Budget: 2.0 ns of logic on flip-flop-sourced paths, 2.7 ns on RAM-sourced
# ones (what Corundum's modules that close 250 MHz on Alveo measure on the same estimator).
#
#   hdl/synth/timing.sh                 every module at its default parameters, plus the modules whose
#                                       size depends on the queue/node count at the board configuration
#   hdl/synth/timing.sh MODULE ...      only these (default parameters; "--rtl board/common/rtl MODULE"
#                                       for a module of another folder, as one argument)
#   TIMING_CORE=1 hdl/synth/timing.sh   also tsnic_core at the board configuration (~15-25 min); its
#                                       netlist stays in build/timing/tsnic_core and hdl/synth/sta_paths.py
#                                       lists its 10 worst paths, with and without the calendar's own
#   TIMING_CORE_STUB=1 hdl/synth/timing.sh
#                                       tsnic_core at the board configuration with the calendar replaced
#                                       by hdl/synth/sta_stub/tsnic_calendar.v (registers at its ports):
#                                       every path outside the calendar in minutes; netlist in
#                                       build/timing/tsnic_core_stub, 10 worst paths listed
#   STA=/path/to/sta.sh                 the estimator (default: shared/tools/sta/sta.sh beside the
#                                       repository or beside its worktree folder)
#
# Prints one line per run and a table; exits 1 when any run is over budget or fails to synthesize.
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
if [ -z "${STA:-}" ]; then
  # the main checkout sits beside shared/, a worktree (wt/NAME) one level further down
  for cand in "$root/../shared/tools/sta/sta.sh" "$root/../../shared/tools/sta/sta.sh"; do
    if [ -x "$cand" ]; then STA=$(cd "$(dirname "$cand")" && pwd)/sta.sh; break; fi
  done
fi
sta="${STA:-$root/../shared/tools/sta/sta.sh}"
budget="${TIMING_BUDGET:-2.0,2.7}"
if [ ! -x "$sta" ]; then
  echo "timing: the estimator $sta is missing; set STA=/path/to/sta.sh (the team's shared tools/sta)" >&2
  exit 2
fi
cd "$root"

# The board configuration (sim/card/build.rs BOARD_PARAMS): 4096 queues, 65536 nodes.
board_q="NUM_QUEUES=4096 NODE_W=16"
runs=()
if [ $# -gt 0 ]; then
  for m in "$@"; do runs+=("$m"); done
else
  for f in hdl/rtl/*.v; do
    m=$(basename "$f" .v)
    [ "$m" = tsnic_core ] && continue
    runs+=("$m")
  done
  # board-side glue in board/common/rtl (each synthesized from that folder alone), except the board
  # assemblies: they instance vendor IP (CMAC, PCIe, STARTUPE3...) that only Vivado has, and their own
  # logic is modules timed on their own here (tsnic_cdc_sync, tsnic_xgmii_*, tsnic_axis_downsize,
  # tsnic_board_core's parts); synthesized alone they only fail for the missing IP
  for f in board/common/rtl/*.v; do
    m=$(basename "$f" .v)
    case "$m" in tsnic_alveo_mac|tsnic_alveo_top) continue ;; esac
    [ -e "$f" ] && runs+=("--rtl board/common/rtl $m")
  done
  runs+=("tsnic_desc_fetch $board_q QUEUE_W=12" "tsnic_desc_table NODE_W=16 QUEUE_W=12" "tsnic_cpl_write NUM_QUEUES=4096"
         "tsnic_cpl_count NUM_QUEUES=4096 QUEUE_W=12"
         "tsnic_calendar QUEUE_W=12 NODE_W=16 SLOT_W=13 CSLOT_W=16" "tsnic_flash_ctrl GOLDEN=1")
  [ "${TIMING_CORE:-0}" = 1 ] && runs+=("tsnic_core $board_q SLOTS=8192 CSLOT_W=16 HORIZON_NS=64'd10000000000")
fi
core_board="tsnic_core $board_q SLOTS=8192 CSLOT_W=16 HORIZON_NS=64'd10000000000"
if [ "${TIMING_CORE_STUB:-0}" = 1 ]; then
  # the RTL with the calendar stand-in in place of the real one (the real sorter stays, unused)
  stubdir=$(mktemp -d)
  trap 'rm -rf "$stubdir"' EXIT
  cp hdl/rtl/*.v hdl/rtl/*.vh "$stubdir"/
  cp hdl/synth/sta_stub/tsnic_calendar.v "$stubdir"/
  [ $# -gt 0 ] || runs=()
  runs+=("--rtl $stubdir $core_board")
fi

fails=0
table=""
for r in "${runs[@]}"; do
  keep=()
  top=${r%% *}
  kdir=""
  if [ "${r#--rtl }" != "$r" ]; then top=$(echo "$r" | awk '{print $3}'); fi
  if [ "$top" = tsnic_core ]; then
    kdir="$root/build/timing/tsnic_core"
    [ "${r#--rtl }" != "$r" ] && kdir="$root/build/timing/tsnic_core_stub"
    rm -rf "$kdir"; keep=(--keep "$kdir")
  fi
  # shellcheck disable=SC2086
  out=$("$sta" --budget "$budget" "${keep[@]}" $r 2>&1 | grep -E "^tsnic_.* (xcup|xc7): worst|^over budget")
  rc=${PIPESTATUS[0]}
  ff=$(echo "$out" | grep "worst reg->reg" | sed -E 's/.*worst reg->reg ([0-9.]+) ns logic, ([0-9]+) LUT levels.*/\1 ns, \2 LUT/')
  ram=$(echo "$out" | grep "worst RAM->reg" | sed -E 's/.*worst RAM->reg ([0-9.]+) ns logic, ([0-9]+) LUT levels.*/\1 ns, \2 LUT/')
  if [ "$rc" -eq 0 ]; then verdict=ok; else verdict=OVER; fails=$((fails + 1)); fi
  [ -z "$ff" ] && [ -z "$ram" ] && verdict="FAILED (rc $rc)"
  label=$r
  [ -n "${stubdir:-}" ] && label=${label/"--rtl $stubdir "/"(calendar stubbed) "}
  echo "timing: $label: reg->reg ${ff:--}; RAM->reg ${ram:--}: $verdict"
  echo "$out" | grep "^over budget" | sed 's/^/    /'
  table+="| \`$label\` | ${ff:--} | ${ram:--} | $verdict |"$'\n'
  if [ "$top" = tsnic_core ] && [ -f "$kdir/tsnic_core.xcup.json" ]; then
    python3 "$root/hdl/synth/sta_paths.py" --sta "$(dirname "$sta")" --top 10 \
      "$kdir/tsnic_core.xcup.json" tsnic_core | sed 's/^/    /'
  fi
done
echo
echo "| run | FF-sourced (<= ${budget%%,*} ns) | RAM-sourced (<= ${budget##*,} ns) | verdict |"
echo "|---|---|---|---|"
printf "%s" "$table"
echo
echo "rerun: hdl/synth/timing.sh  (STA=$sta)"
[ "$fails" -eq 0 ]
