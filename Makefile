# tsnic: the two entry points are `make demo` and `make test`; both install what is missing first.
#
#   make demo          the main job on the simulated card
#   make test          every test suite: contract drift, RTL lint, Rust fmt/clippy/tests, cocotb benches, VM
#   make test-vm       the vfio backend on a real kernel: Debian's kernel in QEMU with an IOMMU (~20 s)
#   make deps          install Verilator/Icarus/Yosys/QEMU (Debian packages) and the pinned Python venv
#   make gen           regenerate the contract files from hdl/contract/tsnic.toml
#   make lint          verilator --lint-only -Wall on every RTL module and every board top (board/lint.sh)
#   make synth         yosys synth_xilinx figures (see docs/BENCHMARKS.md)
#   make timing        timing budget of every RTL module (2.0 ns FF / 2.7 ns RAM-sourced logic); fails when over
#   make bench-vm      the VM's emulated figures: interrupt wakeup and BAR0 access (docs/BENCHMARKS.md)
#   make soak          long randomized runs (not part of make test)

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

ROOT := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
VENV := $(ROOT)/.venv
PYTHON ?= python3
# tshark reads the co-simulation's pcapng captures back in the tests; qemu-system-x86 and busybox-static
# run the VM of `make test-vm`. tcl (tclsh) runs the board's Vivado scripts with Vivado stubbed (tests/board);
# iproute2 (ip, ss) sets up the network namespace of `tsnic send --peer linux` (driver/tests/linux_peer.rs);
# linuxptp (ptp4l) is the peer of `tsnic ptp --peer linux` (driver/tests/linux_ptp.rs).
APT_PACKAGES := verilator iverilog yosys tshark qemu-system-x86 busybox-static tcl iproute2 linuxptp
# Root installs directly; a user with sudo gets sudo; otherwise the message says what to install.
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
export PATH := $(VENV)/bin:$(PATH)

.PHONY: help deps apt-deps py-deps gen check-contract lint timing test test-side test-bench-side test-python test-rust test-cocotb test-vm bench-vm demo synth soak clean

help:
	@sed -n '2,12p' $(ROOT)/Makefile | sed 's/^# \{0,1\}//'

# ---------------------------------------------------------------------------------------------
# Dependencies: Debian packages (apt-get update first, once), then the venv from requirements.txt.
deps: apt-deps py-deps

apt-deps:
	@missing=""; \
	for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "deps: installing Debian packages:$$missing"; \
	  $(SUDO) apt-get update -qq; \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing; \
	fi

py-deps: $(VENV)/.stamp

$(VENV)/.stamp: $(ROOT)/requirements.txt
	@echo "deps: creating the Python venv in .venv from requirements.txt"
	@[ -x $(VENV)/bin/python ] || $(PYTHON) -m venv $(VENV)
	@$(VENV)/bin/pip install -q --disable-pip-version-check -r $(ROOT)/requirements.txt
	@touch $@

# ---------------------------------------------------------------------------------------------
# The contract: one source, generated into Verilog, Rust, Python and docs.
gen:
	$(PYTHON) $(ROOT)/hdl/contract/gen_contract.py

check-contract:
	@$(PYTHON) $(ROOT)/hdl/contract/gen_contract.py --check
	@echo "contract: generated files match hdl/contract/tsnic.toml"

# ---------------------------------------------------------------------------------------------
lint: apt-deps
	@$(ROOT)/hdl/lint.sh
	@$(ROOT)/board/lint.sh

# The Debian packages first (once: nothing below installs any), then two sides at the same time:
# the bench side (the Python venv, the contract's drift check and the Python tests, then the cocotb
# benches: single-threaded simulations, two at a time) and, one after another, the RTL lint
# (single-threaded, about a minute), the Rust build and tests (cargo, mostly parallel compiles and
# tests two at a time) and the VM test of the vfio backend (test-vm, about 50 s, reusing the Rust
# build). The Rust side does not wait for the venv (its Python scripts need only the standard
# library). `make test` is CPU-bound on two cores: run alone before or after the benches, lint and
# the VM left a core idle. A failure anywhere fails `make test`; everything else still runs to its
# end so its result is reported too. Lines of cargo's output are tagged `rust| `; each cocotb
# bench's log goes to tests/cocotb/logs/ and is printed whole if the bench failed (its results table
# if it passed; TSNIC_COCOTB_LOG=full prints every log).
test: apt-deps
	@$(MAKE) --no-print-directory -j2 test-side test-bench-side RUST_TAG='rust| '

# The bench side of `make test`: the venv, the quick Python checks, then the cocotb benches (which
# run even after a failed check; the side fails if anything failed).
test-bench-side: py-deps
	@rc=0; \
	$(MAKE) --no-print-directory check-contract || rc=1; \
	$(MAKE) --no-print-directory test-python || rc=1; \
	$(MAKE) --no-print-directory test-cocotb || rc=1; \
	exit $$rc

# The non-cocotb side of `make test`: every step runs even after a failure; fails if any failed.
# test-vm stays after test-rust: it builds target/debug/tsnic without the `sim` feature, the binary the
# Rust tests run (tried on the bench side on 2026-12-08: 32 CLI tests then ran a tsnic without simulator).
test-side: apt-deps
	@rc=0; \
	$(MAKE) --no-print-directory lint || rc=1; \
	$(MAKE) --no-print-directory test-rust || rc=1; \
	$(MAKE) --no-print-directory test-vm || rc=1; \
	exit $$rc

# tests/board: the Vivado scripts of board/ under tclsh with the Vivado commands stubbed (about 1 s)
test-python: py-deps
	$(VENV)/bin/python -m pytest -q $(ROOT)/tests/contract $(ROOT)/tests/board

# $(call rust,CMD): CMD, its output tagged with $(RUST_TAG) when that is set (pipefail keeps its status).
RUST_TAG ?=
rust = $(if $(RUST_TAG),$(1) 2>&1 | sed -u 's/^/$(RUST_TAG)/',$(1))

# The simulated cards `cargo test` builds (a variable: a comma inside $(call rust,...) would split
# its argument, and make would run only the part before it).
RUST_FEATURES := tsnic/wide,tsnic/alveo

# The workspace's tests run with cargo-nextest where the machine has it (Rust toolchains here come with
# it): every test in its own process, two at a time across all the test binaries, where `cargo test`
# runs the binaries one after another and a core waited while a test ran alone (the real-time tests
# against Linux, the longest co-simulations). Its settings: .config/nextest.toml. Without it, `cargo
# test` runs the same tests (nextest runs no doc tests: `cargo test --doc` does, after it).
NEXTEST := $(shell cargo nextest --version >/dev/null 2>&1 && echo yes)

test-rust: apt-deps
	$(call rust,cargo fmt --all -- --check)
# With `wide`: the 512-bit (100G) simulated card too, for the line-rate regression (cosim_line_rate).
# With `board`: tsnic_board_core behind the PCIe hard-block model (`sim:board`, cosim_board) and the
# 256-bit core it is compared with (about 66 CPU s of C++ for the two models, cached after).
# With `alveo`: the Alveo U50 build (512 bits, the CMAC model; `sim:board=u50`, cosim_board_alveo) and
# the 512-bit core of its size.
	$(call rust,cargo clippy --workspace --all-targets --locked --features $(RUST_FEATURES) -- -D warnings)
# The driver for a real card: built without the `sim` feature (no sim/card, no Verilator).
	$(call rust,cargo clippy -p tsnic --no-default-features --all-targets --locked -- -D warnings)
	$(call rust,cargo test -p tsnic --no-default-features --locked --test cli_driver)
ifeq ($(NEXTEST),yes)
	$(call rust,cargo nextest run --workspace --locked --features $(RUST_FEATURES))
	$(call rust,cargo test --workspace --locked --features $(RUST_FEATURES) --doc)
else
	$(call rust,cargo test --workspace --locked --no-fail-fast --features $(RUST_FEATURES))
endif

# Two benches at a time (COCOTB_JOBS=1: one after another, output live).
COCOTB_JOBS ?= 2
test-cocotb: deps
	@$(VENV)/bin/python $(ROOT)/tests/cocotb/run_benches.py -j $(COCOTB_JOBS)

# The vfio backend against Debian's kernel in QEMU (q35, intel-iommu, the edu device); see tests/vm/run.sh.
test-vm: apt-deps
	@$(ROOT)/tests/vm/run.sh

# The same VM with the emulated figures of docs/BENCHMARKS.md (interrupt wakeup, BAR0 access).
bench-vm: apt-deps
	@$(ROOT)/tests/vm/run.sh --bench

soak: deps
	@SOAK=1 $(VENV)/bin/python $(ROOT)/tests/cocotb/run_benches.py -j $(COCOTB_JOBS)

synth: apt-deps
	@$(ROOT)/hdl/synth/all.sh

# Not part of make test (about 15 minutes on 2 cores; TIMING_CORE=1 adds the whole core at the board size).
timing: apt-deps
	@$(ROOT)/hdl/synth/timing.sh

# ---------------------------------------------------------------------------------------------
demo: deps
	@$(ROOT)/tests/demo.sh

clean:
	rm -rf $(ROOT)/target $(ROOT)/tests/cocotb/*/sim_build* $(ROOT)/tests/cocotb/*/results*.xml $(ROOT)/tests/cocotb/logs
