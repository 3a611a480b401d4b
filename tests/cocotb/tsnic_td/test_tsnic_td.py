"""Bench for the time distribution tsnic_td_source (250 MHz core, the real tsnic_phc) ->
tsnic_td_sink (the MAC clock, 156.25 or 322.265625 MHz), both clocks off nominal by some ppm.

The reference is the bench's own notion of PHC time (tb_phc_truth: the PHC register interpolated
linearly between core clock edges), evaluated at every MAC clock edge against the sink's local time.
What the launch gate needs (docs/ARCHITECTURE.md, "Clock domains and time distribution"):
  err = PHC - local time >= 0 at every edge once the sink has seen the latest step (never early), and
  err < ceil(T) - T where T is the MAC period in ns (the launch gate then opens at most one MAC cycle
  after launch_ns in whole PHC nanoseconds, 0.6 ns at 6.4 ns, 0.897 ns at 3.103 ns).
"""

import math
import os
import struct

import cocotb
from cocotb.triggers import ClockCycles, RisingEdge, Timer

import tsnic_contract as C
from tsnic_regif_master import RegIfMaster

MAC_PERIOD_PS = float(os.environ.get("MAC_PERIOD_PS", "6400"))
CORE_PPM = float(os.environ.get("CORE_PPM", "0"))
MAC_PPM = float(os.environ.get("MAC_PPM", "0"))
T_MAC = MAC_PERIOD_PS / 1000.0
ERR_BUDGET = math.ceil(T_MAC) - T_MAC if T_MAC != math.ceil(T_MAC) else 1.0
SOAK = os.environ.get("SOAK", "") not in ("", "0")
# TD_WINDOWS=N: diagnostic, logs N short windows (and the sink's increment) during acquisition and lock
TD_WINDOWS = int(os.environ.get("TD_WINDOWS", "0"))


def real(sig):
    """A `real` of tb_phc_truth from its $realtobits copy (Verilator's VPI cannot read reals)."""
    return struct.unpack("<d", int(sig.value).to_bytes(8, "little"))[0]


class TB:
    def __init__(self, dut):
        self.dut = dut
        self.log = dut._log
        # the clocks run in tb_tsnic_td.v (CLK_HALF_FS, MAC_HALF_FS from the Makefile)
        self.regs = RegIfMaster(dut, dut.clk)
        self.truth = dut.truth_inst
        dut.stats_en.value = 0

    async def reset(self):
        self.dut.rst.value = 1
        self.dut.mac_rst.value = 1
        await ClockCycles(self.dut.clk, 8)
        await ClockCycles(self.dut.mac_clk, 8)
        self.dut.rst.value = 0
        self.dut.mac_rst.value = 0
        await ClockCycles(self.dut.clk, 2)

    async def wr(self, addr, data):
        assert await self.regs.write(addr, data), f"no ack at {addr:#x}"

    async def set_time(self, ns):
        await self.wr(C.PHC_SET_LO, ns & 0xFFFFFFFF)
        await self.wr(C.PHC_SET_HI, (ns >> 32) & 0xFFFFFFFF)
        await self.wr(C.PHC_CMD, C.PHC_CMD_SET)

    async def adjust(self, off):
        await self.wr(C.PHC_ADJ_LO, off & 0xFFFFFFFF)
        await self.wr(C.PHC_ADJ_HI, (off >> 32) & 0xFFFFFFFF)
        await self.wr(C.PHC_CMD, C.PHC_CMD_ADJ)

    async def adjfine(self, ppb):
        await self.wr(C.PHC_ADJFINE_PPB, ppb & 0xFFFFFFFF)

    async def measure(self, us, what):
        """Error statistics over `us` microseconds from now; returns (min, max, mean, rms-dev, ahead)."""
        self.dut.stats_en.value = 0
        await RisingEdge(self.dut.mac_clk)
        self.dut.stats_en.value = 1  # tb_phc_truth starts the window from empty statistics
        await Timer(us, units="us")
        self.dut.stats_en.value = 0
        await RisingEdge(self.dut.mac_clk)
        await RisingEdge(self.dut.mac_clk)
        t = self.truth
        n = int(t.err_count.value)
        lo, hi = real(t.err_min_bits), real(t.err_max_bits)
        mean = real(t.err_sum_bits) / n
        dev = math.sqrt(max(0.0, real(t.err_sumsq_bits) / n - mean * mean))
        ahead = int(t.ahead_count.value)
        if TD_WINDOWS:
            inc = int(self.dut.td_sink_inst.inc_reg.value) / 2**32
            self.log.info("inc %.9f ns (true %.9f) locked %d", inc,
                          MAC_PERIOD_PS / 1000 / (1 + MAC_PPM * 1e-6) * (1 + CORE_PPM * 1e-6),
                          int(self.dut.mac_locked.value))
        self.log.info("%s: %d MAC edges, err min %.3f max %.3f mean %.3f rms %.3f ns, ahead at %d edges "
                      "(T_MAC %.4f ns, core %+g ppm, MAC %+g ppm, budget [0, %.3f))",
                      what, n, lo, hi, mean, dev, ahead, T_MAC, CORE_PPM, MAC_PPM, ERR_BUDGET)
        return lo, hi, mean, dev, ahead

    async def wait_locked(self, timeout_us=400):
        for _ in range(timeout_us):
            if int(self.dut.mac_locked.value):
                return
            await Timer(1, units="us")
        raise AssertionError(f"sink not locked after {timeout_us} us")


async def start(dut):
    tb = TB(dut)
    await tb.reset()
    await tb.set_time(1_000_000_000_000)
    return tb


def check_locked(tb, stats, what):
    lo, hi, _, _, ahead = stats
    assert ahead == 0 and lo >= 0.0, f"{what}: local time ahead of the PHC (min err {lo:.3f} ns)"
    assert hi < ERR_BUDGET, f"{what}: local time {hi:.3f} ns behind, budget {ERR_BUDGET:.3f} ns"


@cocotb.test()
async def test_acquire_and_track(dut):
    """From reset: never ahead while acquiring, then within budget while locked."""
    tb = TB(dut)
    await tb.reset()
    await tb.set_time(1_000_000_000_000)
    # from the first sample on (the sink's valid output), including acquisition
    while not int(dut.mac_valid.value):
        await RisingEdge(dut.mac_clk)
    await ClockCycles(dut.mac_clk, 8)
    for i in range(TD_WINDOWS):
        await tb.measure(5, f"acq window {i}")
    acq = await tb.measure(60, "acquisition (60 us from first sample)")
    assert acq[4] == 0, f"ahead of the PHC during acquisition (min err {acq[0]:.3f} ns)"
    await tb.wait_locked()
    for i in range(TD_WINDOWS):
        await tb.measure(10, f"window {i}")
    await Timer(40, units="us")
    check_locked(tb, await tb.measure(300 if SOAK else 60, "locked"), "locked")


@cocotb.test()
async def test_adjfine(dut):
    """Frequency trims of the PHC (adjfine) while locked: the loop follows without running ahead."""
    tb = await start(dut)
    await tb.wait_locked()
    await Timer(40, units="us")
    for ppb in (200_000, -150_000, 0):
        await tb.adjfine(ppb)
        st = await tb.measure(40, f"adjfine {ppb:+d} ppb, first 40 us")
        assert st[4] == 0, f"adjfine {ppb}: ahead of the PHC (min err {st[0]:.3f} ns)"
        check_locked(tb, await tb.measure(40, f"adjfine {ppb:+d} ppb, settled"), f"adjfine {ppb}")


@cocotb.test()
async def test_steps(dut):
    """PHC set (forward, backward) and adjtime: re-acquired, never ahead once the step has arrived."""
    tb = await start(dut)
    await tb.wait_locked()
    await Timer(20, units="us")
    steps = [("set", 5_000_000_000_000), ("adj", -1_000_000), ("adj", 3)]
    if SOAK:
        steps += [("set", 4_999_999_000_000), ("adj", 37), ("adj", -2)]
    for kind, val in steps:
        steps_before = 0
        if kind == "set":
            await tb.set_time(val)
        else:
            await tb.adjust(val)
        # the step reaches the sink within GAP_MIN_CYCLES core + 6 MAC cycles; wait for its time_step
        # pulse (small adjtimes below the re-acquire threshold also flip td_step: always a hard set)
        for _ in range(400):
            await RisingEdge(dut.mac_clk)
            if int(dut.mac_step.value):
                steps_before += 1
                break
        assert steps_before == 1, f"{kind} {val}: the sink did not re-acquire"
        await ClockCycles(dut.mac_clk, 1)
        st = await tb.measure(20, f"after {kind} {val}")
        assert st[4] == 0, f"after {kind} {val}: ahead of the PHC (min err {st[0]:.3f} ns)"
        await tb.wait_locked()
    await Timer(40, units="us")
    check_locked(tb, await tb.measure(40, "locked after the steps"), "after steps")
