# Included by single-clock benches after TOPLEVEL and VERILOG_SOURCES, before Makefile.sim. Under
# Icarus the toplevel's clock input CLOCK_PORT is made in Verilog (tb_clock_force.v, a second root)
# with half period CLOCK_HALF_PS, instead of by a cocotb Clock that wakes Python at every edge;
# TB_CLOCK_HALF_PS tells the bench's Python (tsnic_clock.start_clock) not to start its own and lets
# it check that the two agree. Other simulators keep the cocotb Clock (one toplevel only).
CLOCK_FORCE_DIR := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
ifeq ($(SIM),icarus)
VERILOG_SOURCES += $(CLOCK_FORCE_DIR)/tb_clock_force.v
COMPILE_ARGS += -s tb_clock_force -DTB_CLOCK_TARGET=$(TOPLEVEL).$(CLOCK_PORT) \
	-Ptb_clock_force.HALF_PS=$(CLOCK_HALF_PS)
export TB_CLOCK_HALF_PS := $(CLOCK_HALF_PS)
endif
