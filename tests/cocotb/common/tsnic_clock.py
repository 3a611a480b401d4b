"""The clock of a single-clock bench (see clock_force.mk and tb_clock_force.v)."""

import os

import cocotb
from cocotb.clock import Clock


def start_clock(sig, period_ps):
    """Clock `sig`, the toplevel's clock input, with a period of `period_ps`.

    Under Icarus the bench's Makefile has made this clock in Verilog already (no Python wake-up
    at every edge) and says so in TB_CLOCK_HALF_PS, which must agree with `period_ps`; otherwise a
    cocotb Clock drives it, high first, as tb_clock_force.v does.
    """
    half = os.environ.get("TB_CLOCK_HALF_PS")
    if half:
        if 2 * int(half) != period_ps:
            raise AssertionError(
                f"clock_force.mk makes a {2 * int(half)} ps clock, the bench wants {period_ps} ps")
        return
    cocotb.start_soon(Clock(sig, period_ps, units="ps").start())
