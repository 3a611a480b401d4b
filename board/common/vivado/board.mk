# Included by board/<board>/Makefile (which sets BOARD). Targets:
#   make bitstream     Vivado non-project build: build/fpga.bit, build/fpga.mcs (+ .prm), build/fpga.bin
#   make golden        the same as the golden (fallback) image, in build-golden/
#   make program       load build/fpga.bit over JTAG (volatile)
#   make flash-jtag    write build-golden/fpga.mcs (the golden image, at 0x01002000 on the Alveo
#                      boards, above AMD's factory image, which stays) into the configuration flash
#                      over JTAG: the first install. Application images then go
#                      to slot A/B with `tsnic flash write build/fpga.bit` (docs/FIRMWARE.md).
#   make clean
# VIVADO=/path/to/vivado to use one that is not on PATH. TSNIC_RTL_DIR=... to build another RTL tree.
# MAC=<option> picks one of the board's MAC options (config.tcl: mac_options; the Alveo boards: cmac,
# the default, or 10g); with MAC set, the build goes to build-<MAC>/ (build-golden-<MAC>/), and
# program / flash-jtag take it from there.
SHELL := /bin/bash
BOARD_DIR := $(abspath $(dir $(firstword $(MAKEFILE_LIST))))
VIVADO_DIR := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
VIVADO ?= vivado
VIVADO_FLAGS := -mode batch -nojournal -notrace
MAC ?=
OUT := build$(if $(MAC),-$(MAC))
OUT_GOLDEN := build-golden$(if $(MAC),-$(MAC))

.PHONY: bitstream golden program flash-jtag clean check-vivado

check-vivado:
	@command -v $(VIVADO) >/dev/null 2>&1 || { \
	  echo "$(BOARD): Vivado not found ('$(VIVADO)' is not on PATH)." >&2; \
	  echo "  Install Vivado (with the device support for this part: see docs/BOARDS.md), then" >&2; \
	  echo "  source <Vivado install>/settings64.sh, or pass VIVADO=/path/to/vivado." >&2; \
	  echo "  Nothing was built." >&2; \
	  exit 1; }

bitstream: check-vivado
	mkdir -p $(BOARD_DIR)/$(OUT) && cd $(BOARD_DIR) && $(VIVADO) $(VIVADO_FLAGS) -log $(OUT)/vivado.log -source $(VIVADO_DIR)/build.tcl \
	  -tclargs $(BOARD_DIR) $(BOARD_DIR)/$(OUT) 0 $(MAC)

golden: check-vivado
	mkdir -p $(BOARD_DIR)/$(OUT_GOLDEN) && cd $(BOARD_DIR) && $(VIVADO) $(VIVADO_FLAGS) -log $(OUT_GOLDEN)/vivado.log -source $(VIVADO_DIR)/build.tcl \
	  -tclargs $(BOARD_DIR) $(BOARD_DIR)/$(OUT_GOLDEN) 1 $(MAC)

program: check-vivado
	$(VIVADO) $(VIVADO_FLAGS) -source $(VIVADO_DIR)/program.tcl -tclargs fpga $(BOARD_DIR) $(BOARD_DIR)/$(OUT)

flash-jtag: check-vivado
	$(VIVADO) $(VIVADO_FLAGS) -source $(VIVADO_DIR)/program.tcl -tclargs flash $(BOARD_DIR) $(BOARD_DIR)/$(OUT_GOLDEN)

clean:
	rm -rf $(BOARD_DIR)/build $(BOARD_DIR)/build-golden $(BOARD_DIR)/build-*
