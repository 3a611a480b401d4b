#!/usr/bin/env bash
# `make demo`: push the bundled example trace (tests/traces/demo.csv: four queues, out-of-order
# times, ties, a row beyond the card's horizon that the driver holds) through the Verilated card and print the summary.
# Outputs: target/demo/demo.pcapng (the wire, ns timestamps = departure), target/demo/report.json,
# target/demo/error.svg (departure-error histogram).
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p target/demo
cargo build --release --locked -q -p tsnic
# The demo's own simulated card (it keeps its state between commands), power-cycled first.
export TSNIC_SIM_STATE=target/demo/card.state
./target/release/tsnic sim reset >/dev/null
echo "tsnic push tests/traces/demo.csv (sim backend: Verilated tsnic_core, 10 Gb/s wire)"
./target/release/tsnic push tests/traces/demo.csv \
  --pcap target/demo/demo.pcapng --report target/demo/report.json --plot target/demo/error.svg
echo "wrote target/demo/demo.pcapng, target/demo/report.json, target/demo/error.svg"
echo
echo "tsnic stats (the same simulated card, which kept its counters: tsnic sim status shows where)"
./target/release/tsnic stats
