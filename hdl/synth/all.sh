#!/usr/bin/env bash
# `make synth`: the Yosys synth_xilinx figures recorded in docs/BENCHMARKS.md, default configurations.
# Each script prints its own figures and writes its log under build/synth/. The 4096-queue / 65536-entry
# runs take tens of minutes on 2 cores; run them by hand (commands in docs/BENCHMARKS.md).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
"$here/synth.sh" tsnic_phc
"$here/synth.sh" tsnic_axil_reg_if
"$here/synth.sh" tsnic_flash_ctrl
"$here/tsnic_tx_path.sh" tsnic_tx_prefetch
"$here/tsnic_tx_path.sh" tsnic_launch_gate
"$here/tsnic_desc_fetch.sh"
"$here/tsnic_core.sh"
