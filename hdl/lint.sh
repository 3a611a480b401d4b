#!/usr/bin/env bash
# Lint every RTL module with Verilator -Wall, each file as its own top (one module per file).
# Fails on the first warning or error, printing it.
set -euo pipefail
cd "$(dirname "$0")/rtl"
status=0
count=0
for f in *.v; do
  top=$(basename "$f" .v)
  if ! out=$(verilator --lint-only -Wall -I. -y . --top-module "$top" "$f" 2>&1); then
    echo "lint: $f"; echo "$out"; status=1
  elif [ -n "$out" ]; then
    echo "lint: $f"; echo "$out"; status=1
  fi
  count=$((count + 1))
done
# the timing stand-ins of hdl/synth (same rules; they take the real module's place in a timing run)
for f in ../synth/sta_stub/*.v; do
  top=$(basename "$f" .v)
  if ! out=$(verilator --lint-only -Wall -I. --top-module "$top" "$f" 2>&1) || [ -n "$out" ]; then
    echo "lint: $f"; echo "$out"; status=1
  fi
  count=$((count + 1))
done
if [ $status -eq 0 ]; then echo "lint: $count RTL modules (hdl/rtl and the timing stubs) clean under verilator --lint-only -Wall"; fi
exit $status
