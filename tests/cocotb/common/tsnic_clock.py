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


async def clock_cycles(clk, n, period_ps):
    """What `await ClockCycles(clk, n)` does (return at the n-th rising edge of `clk` from now), with
    three Python wake-ups instead of n: cocotb 1.9's ClockCycles resumes a coroutine at every edge,
    which over 10^6 cycles is most of a bench's CPU. `clk` must be a free-running clock of exactly
    `period_ps` (checked: the n-th edge must fall where the period puts it)."""
    from cocotb.triggers import RisingEdge, Timer
    from cocotb.utils import get_sim_time
    edge = RisingEdge(clk)
    await edge                                      # the first edge, as ClockCycles counts it
    if n <= 1:
        return
    t1 = get_sim_time("ps")
    # to the middle of the cycle before the n-th edge, then that edge
    await Timer((n - 1) * period_ps - period_ps // 2, units="ps")
    await edge
    t = get_sim_time("ps")
    if t - t1 != (n - 1) * period_ps:
        raise AssertionError(f"clock_cycles: {n} edges took {t - t1} ps after the first, not {n - 1} x {period_ps}")
