"""cocotb bench for tsnic_phc, driven through tsnic_axil_reg_if by cocotbext-axi's AxiLiteMaster.

Every register value read is checked exactly against phc_model.PhcModel, which is told the cycle in
which each access was acknowledged (tb_tsnic_phc.v latches it).
"""

from __future__ import annotations

import logging
import os
import random
from fractions import Fraction

import cocotb
from cocotb.triggers import ClockCycles, FallingEdge, ReadOnly, RisingEdge
from cocotbext.axi import AxiLiteBus, AxiLiteMaster

import tsnic_contract as C
from tsnic_clock import clock_cycles
from phc_model import (
    FRAC_BITS, FRAC_MASK, MASK64, NS_PER_SEC, PHC_REGS, SV_BUSY, PhcModel, effective_inc, ideal_rate,
    period_fixed,
)

PERIOD_6P4 = period_fixed(32, 5)          # 156.25 MHz: the wrapper's PERIOD_NUM/PERIOD_DEN
PERIOD_322 = period_fixed(1024, 330)      # 322.265625 MHz
CLK_PS = 4000                             # tb_tsnic_phc.v: clk toggles every 2 ns
SOAK = os.environ.get("SOAK", "0") not in ("", "0")

SNAPSHOT_REGS = [C.PHC_TIME_HI, C.PHC_TIME_FNS, C.PHC_SEC_LO, C.PHC_SEC_HI, C.PHC_NSEC]
ALL_REGS = sorted(PHC_REGS)


class TB:
    def __init__(self, dut):
        self.dut = dut
        self.log = dut._log
        self.axil = AxiLiteMaster(AxiLiteBus.from_prefix(dut, "s_axil"), dut.clk, dut.rst)
        for ch in (self.axil.write_if, self.axil.read_if):
            ch.log.setLevel(logging.WARNING)
        self.model = PhcModel(PERIOD_6P4)
        self.step_seen: list[tuple[int, int]] = []
        self.pps_seen: list[tuple[int, int]] = []

    async def reset(self):
        self.dut.rst.value = 1
        await ClockCycles(self.dut.clk, 4)
        self.dut.rst.value = 0
        await RisingEdge(self.dut.clk)
        self.model = PhcModel(PERIOD_6P4)
        cocotb.start_soon(self._pulse_monitor(self.dut.phc_step, self.step_seen))
        cocotb.start_soon(self._pulse_monitor(self.dut.pps, self.pps_seen))

    async def _pulse_monitor(self, sig, out):
        while True:
            await RisingEdge(sig)
            await ReadOnly()
            rise = int(self.dut.cyc.value)
            await FallingEdge(sig)
            await ReadOnly()
            out.append((rise, int(self.dut.cyc.value) - rise))

    async def cycle(self) -> int:
        await ReadOnly()
        c = int(self.dut.cyc.value)
        await RisingEdge(self.dut.clk)
        return c

    async def wr(self, addr: int, data: int):
        n0 = int(self.dut.wr_ack_cnt.value)
        await self.axil.write_dword(addr, data & 0xFFFFFFFF)
        acked = int(self.dut.wr_ack_cnt.value) != n0
        self.model.write(addr, data, int(self.dut.wr_ack_cyc.value) if acked else None)

    async def rd(self, addr: int) -> int:
        n0 = int(self.dut.rd_ack_cnt.value)
        v = await self.axil.read_dword(addr)
        acked = int(self.dut.rd_ack_cnt.value) != n0
        exp = self.model.read(addr, int(self.dut.rd_ack_cyc.value) if acked else None)
        assert v == exp, f"read {addr:#x}: got {v:#x}, model {exp:#x}"
        return v

    async def snapshot(self) -> tuple[int, int, int]:
        """Read the whole snapshot; returns (snapshot cycle, 112-bit time as the registers show it
        with the low 16 fraction bits zero, sec*1e9+nsec)."""
        lo = await self.rd(C.PHC_TIME_LO)
        cyc = int(self.dut.rd_ack_cyc.value) - 2
        hi = await self.rd(C.PHC_TIME_HI)
        fns = await self.rd(C.PHC_TIME_FNS)
        sec = await self.rd(C.PHC_SEC_LO) | (await self.rd(C.PHC_SEC_HI)) << 32
        nsec = await self.rd(C.PHC_NSEC)
        ns = hi << 32 | lo
        assert nsec < NS_PER_SEC and sec * NS_PER_SEC + nsec == ns, f"seconds view {sec}.{nsec:09d} != {ns}"
        return cyc, (ns << FRAC_BITS) | (fns << 16), ns

    async def wait_idle(self):
        while await self.rd(C.PHC_STATUS) & C.PHC_STATUS_BUSY:
            pass

    async def set_time(self, ns: int):
        await self.wr(C.PHC_SET_LO, ns & 0xFFFFFFFF)
        await self.wr(C.PHC_SET_HI, (ns >> 32) & 0xFFFFFFFF)
        await self.wr(C.PHC_CMD, C.PHC_CMD_SET)

    async def adjust(self, off: int):
        await self.wr(C.PHC_ADJ_LO, off & 0xFFFFFFFF)
        await self.wr(C.PHC_ADJ_HI, (off >> 32) & 0xFFFFFFFF)
        await self.wr(C.PHC_CMD, C.PHC_CMD_ADJ)

    async def set_period(self, period: int):
        await self.wr(C.PHC_PERIOD_LO, period & 0xFFFFFFFF)
        await self.wr(C.PHC_PERIOD_HI, period >> 32)

    async def read_all(self):
        for a in ALL_REGS:
            await self.rd(a)


async def start(dut) -> TB:
    tb = TB(dut)
    await tb.reset()
    return tb


def rel(a: Fraction, b: Fraction) -> float:
    return float(abs(a - b) / b)


async def long_rate(tb: TB, cycles: int, ideal: Fraction) -> float:
    c1, t1, _ = await tb.snapshot()
    await clock_cycles(tb.dut.clk, cycles, CLK_PS)
    c2, t2, _ = await tb.snapshot()
    rate = Fraction(t2 - t1, (c2 - c1) << FRAC_BITS)
    err = rel(rate, ideal)
    tb.log.info("rate over %d cycles: %.15f ns/cycle, ideal %.15f, relative error %.3e",
                c2 - c1, float(rate), float(ideal), err)
    return err


@cocotb.test()
async def test_reset_values(dut):
    """All PHC registers after reset, and the time running at the parameter period."""
    tb = await start(dut)
    await tb.read_all()
    assert (await tb.rd(C.PHC_PERIOD_HI)) << 32 | await tb.rd(C.PHC_PERIOD_LO) == PERIOD_6P4
    await tb.snapshot()


@cocotb.test()
async def test_rate_fractional_period(dut):
    """Long-run rate error < 1e-12 over 10^6 cycles: 6.4 ns (PERIOD_NUM/DEN = 32/5, read through the
    registers) and 1024/330 ns (a second instance with PERIOD_NUM/DEN = 512/165, from its outputs).
    test_adjfine covers 1024/330 ns written to PERIOD_HI:PERIOD_LO."""
    tb = await start(dut)
    n = 10**6
    err = await long_rate(tb, n, Fraction(32, 5))
    assert err < 1e-12
    # the 322.265625 MHz instance, straight from its outputs: time(c) = c * period
    await ReadOnly()
    c = int(dut.cyc.value)
    t = int(dut.phc2_ns.value) << FRAC_BITS | int(dut.phc2_fns.value)
    assert t == c * PERIOD_322, "322 MHz instance off the model"
    err2 = rel(Fraction(t, c << FRAC_BITS), Fraction(1024, 330))
    tb.log.info("PERIOD_NUM/DEN=512/165 instance after %d cycles: relative error %.3e", c, err2)
    assert c >= n and err2 < 1e-12


@cocotb.test()
async def test_snapshot_atomic(dut):
    """Snapshots across 2^32 ns carries: HI, LO, FNS and the seconds view belong to one instant while
    the clock keeps counting between the word reads."""
    tb = await start(dut)
    for base in [1 << 32, 5 << 32, 1 << 63, 0xFFFFFFFF << 32]:
        await tb.set_time(base - 3000)     # the first snapshot waits ~66 cycles for the seconds view
        seen_hi = set()
        for _ in range(25):
            _, t, ns = await tb.snapshot()
            seen_hi.add(ns >> 32)
        assert len(seen_hi) == 2, f"did not read across the carry at {base:#x}: {seen_hi}"
    # words of the snapshot stay put while time runs on
    await tb.rd(C.PHC_TIME_LO)
    await ClockCycles(dut.clk, 1000)
    for a in SNAPSHOT_REGS:
        await tb.rd(a)


@cocotb.test()
async def test_set_and_step_pulse(dut):
    """SET steps the time (fraction cleared), counts, and pulses phc_step for one cycle in the ack cycle."""
    tb = await start(dut)
    values = [0, 1, 999_999_999, 1_000_000_000, 1_700_000_000_123_456_789, MASK64 - 10**6, 0x1234_5678_9ABC_DEF0]
    for v in values:
        await tb.set_time(v)
        cyc, t, ns = await tb.snapshot()
        assert ns >= v and ns - v < 1000
        await tb.rd(C.PHC_STEP_COUNT)
    # both command bits together is a SET
    await tb.wr(C.PHC_SET_LO, 12345)
    await tb.wr(C.PHC_SET_HI, 0)
    await tb.wr(C.PHC_ADJ_LO, 10**9)
    await tb.wr(C.PHC_CMD, C.PHC_CMD_SET | C.PHC_CMD_ADJ)
    _, _, ns = await tb.snapshot()
    assert ns < 12345 + 10**6
    await tb.read_all()
    await ClockCycles(dut.clk, 3)
    assert [c for c, _ in tb.step_seen] == tb.model.step_cycles, (tb.step_seen, tb.model.step_cycles)
    assert all(w == 1 for _, w in tb.step_seen)


@cocotb.test()
async def test_adjust(dut):
    """ADJ adds a signed offset atomically, keeping the fraction: positive, negative, across carries."""
    tb = await start(dut)
    await tb.set_period(PERIOD_322)          # a fraction that is not zero
    await tb.wait_idle()
    await tb.set_time(50 * NS_PER_SEC + 123)
    for off in [1, -1, 1000, -1000, NS_PER_SEC, -NS_PER_SEC, 3_999_999_999, -(1 << 33) - 7, 1 << 40, -(1 << 40)]:
        _, t1, _ = await tb.snapshot()
        await tb.adjust(off)
        _, t2, _ = await tb.snapshot()
        await tb.rd(C.PHC_STEP_COUNT)
    await ClockCycles(dut.clk, 3)
    assert [c for c, _ in tb.step_seen] == tb.model.step_cycles


@cocotb.test()
async def test_adjfine(dut):
    """Frequency trim +100 ppm, -100 ppm, +1 ppb, -1 ppb (and extremes): the exact increment from the
    model and a measured rate within 1e-12 of period * (1 + ppb/1e9)."""
    tb = await start(dut)
    n = 60_000
    for period in [PERIOD_6P4, PERIOD_322]:
        await tb.set_period(period)
        for ppb in [100_000, -100_000, 1, -1, 0]:
            await tb.wr(C.PHC_ADJFINE_PPB, ppb)
            await tb.wait_idle()
            c1, t1, _ = await tb.snapshot()
            await clock_cycles(dut.clk, n, CLK_PS)
            c2, t2, _ = await tb.snapshot()
            rate = Fraction(t2 - t1, (c2 - c1) << FRAC_BITS)
            err = rel(rate, ideal_rate(period, ppb))
            assert err < 1e-12, f"ppb {ppb}: rate error {err:.3e}"
            # the trim itself, measured against the nominal rate
            got = rate / Fraction(period, 1 << FRAC_BITS) - 1
            tb.log.info("period %.12f ns ppb %+d: measured trim %.6f ppb, rate error vs period*(1+ppb/1e9) %.2e",
                        period / 2**48, ppb, float(got) * 1e9, err)
            assert abs(got - Fraction(ppb, NS_PER_SEC)) < Fraction(1, 10**12)
    # extremes saturate: -2^31 ppb stops the clock, +2^31-1 ppb on the largest period pins the increment
    for period, ppb in [(PERIOD_6P4, -(1 << 31)), (MASK64, (1 << 31) - 1), (PERIOD_6P4, -10**9), (PERIOD_6P4, 10**9)]:
        await tb.set_period(period)
        await tb.wr(C.PHC_ADJFINE_PPB, ppb)
        await tb.wait_idle()
        assert tb.model.time(tb.model.c0 + 1) is not None
        await tb.snapshot()
        await ClockCycles(dut.clk, 500)
        await tb.snapshot()
        tb.log.info("period %#x ppb %d -> increment %#x", period, ppb, effective_inc(period, ppb))


@cocotb.test()
async def test_seconds_rollover(dut):
    """The seconds view rolls nsec into sec, SEC_LO into SEC_HI, and recovers after the 2^64 ns wrap."""
    tb = await start(dut)
    for base in [NS_PER_SEC, 7 * NS_PER_SEC, (1 << 32) * NS_PER_SEC, ((1 << 32) - 1) * NS_PER_SEC, 18446744073 * NS_PER_SEC]:
        await tb.set_time(base - 2000)
        secs = set()
        for _ in range(20):
            _, _, ns = await tb.snapshot()
            secs.add(ns // NS_PER_SEC)
        assert len(secs) == 2, f"no rollover seen at {base}"
    # ns wraps past 2^64 - 1: the view is recomputed (reads wait for it) and stays consistent
    await tb.set_time(MASK64 - 2000)
    before = after = False
    for _ in range(20):
        _, _, ns = await tb.snapshot()
        before |= ns > MASK64 - 2000
        after |= ns < 10**6
    assert before and after


@cocotb.test()
async def test_pps(dut):
    """pps rises in the first cycle of every TAI second, PPS_WIDTH cycles wide, exactly where the model
    puts the second boundaries (large period: ~24,700 cycles per second)."""
    tb = await start(dut)
    period = (40_500 << FRAC_BITS) + 0x5555_5555_5555   # ~40500.333 ns per cycle
    await tb.set_period(period)
    await tb.wait_idle()
    await tb.set_time(7 * NS_PER_SEC - 123_456_789)
    await tb.wait_idle()
    await ReadOnly()
    now = int(dut.cyc.value)
    expect = [c + 1 for c in tb.model.second_boundaries(now, 3)]
    tb.pps_seen.clear()
    await RisingEdge(dut.clk)
    await ClockCycles(dut.clk, expect[-1] - now + 50)
    tb.log.info("pps expected at %s, seen %s", expect, tb.pps_seen)
    assert [c for c, _ in tb.pps_seen] == expect
    assert all(w == int(dut.PPS_WIDTH.value) for _, w in tb.pps_seen)
    gaps = [b - a for a, b in zip(expect, expect[1:])]
    assert all(abs(g - NS_PER_SEC / (period / 2**48)) <= 1 for g in gaps)
    _, _, ns = await tb.snapshot()
    assert ns // NS_PER_SEC == 9


@cocotb.test()
async def test_undefined_offsets(dut):
    """Undefined offsets (inside and outside the PHC window) read 0 through the bridge timeout and
    ignore writes; writes to read-only PHC registers are ignored; CMD reads 0."""
    tb = await start(dut)
    undefined = [C.PHC_BASE + 0x0C, C.PHC_BASE + 0x44, C.PHC_BASE + 0xFC, 0x0, C.CTRL_BASE, C.CPL_BASE, 0x80000, 0xFFFFC]
    await tb.set_time(10**12)
    await tb.read_all()
    for a in undefined:
        assert await tb.rd(a) == 0
        await tb.wr(a, 0xFFFFFFFF)
        assert await tb.rd(a) == 0
    for a in [C.PHC_TIME_LO, C.PHC_TIME_HI, C.PHC_TIME_FNS, C.PHC_STATUS, C.PHC_STEP_COUNT, C.PHC_SEC_LO, C.PHC_SEC_HI, C.PHC_NSEC]:
        await tb.wr(a, 0xDEADBEEF)
    await tb.rd(C.PHC_CMD)
    await tb.read_all()
    await tb.snapshot()


@cocotb.test()
async def test_random_sequences(dut):
    """Random register sequences, every read checked against the model."""
    tb = await start(dut)
    rng = random.Random(int(os.environ.get("SEED", "20261130")))
    ops = 20000 if SOAK else 2000
    writable = [C.PHC_SET_LO, C.PHC_SET_HI, C.PHC_ADJ_LO, C.PHC_ADJ_HI, C.PHC_CMD, C.PHC_PERIOD_LO,
                C.PHC_PERIOD_HI, C.PHC_ADJFINE_PPB]
    for i in range(ops):
        r = rng.random()
        if r < 0.35:
            a = rng.choice(writable)
            if a == C.PHC_CMD:
                v = rng.choice([C.PHC_CMD_SET, C.PHC_CMD_ADJ, C.PHC_CMD_SET | C.PHC_CMD_ADJ, 0, rng.getrandbits(32)])
            elif a == C.PHC_PERIOD_HI:
                v = rng.choice([rng.randrange(1, 100) << 16 | rng.getrandbits(16), rng.getrandbits(32), 6 << 16])
            elif a == C.PHC_ADJFINE_PPB:
                v = rng.choice([rng.randrange(-10**6, 10**6), rng.randrange(-(1 << 31), 1 << 31), 0, 1, -1])
            elif a in (C.PHC_SET_HI, C.PHC_ADJ_HI):
                v = rng.choice([0, 0xFFFFFFFF, rng.getrandbits(32), rng.getrandbits(8)])
            else:
                v = rng.getrandbits(32)
            await tb.wr(a, v)
        elif r < 0.45:
            await tb.snapshot()
        elif r < 0.85:
            await tb.rd(rng.choice(ALL_REGS))
        elif r < 0.9:
            await tb.rd(rng.choice([C.PHC_BASE + 0x0C, C.PHC_BASE + 0x48, C.PHC_BASE + 0x80]))
        else:
            await ClockCycles(dut.clk, rng.randrange(1, 300))
    await tb.read_all()
    await ClockCycles(dut.clk, 3)
    assert [c for c, _ in tb.step_seen] == tb.model.step_cycles


@cocotb.test()
async def test_pps_after_step(dut):
    """A step that lands just before a second boundary: the boundary falls while the seconds view is
    recomputed, and pps fires when the view is valid again (SV_BUSY cycles after the step), not never."""
    tb = await start(dut)
    await tb.set_time(3 * NS_PER_SEC - 50)        # boundary ~8 cycles later, inside the busy window
    a = tb.model.step_cycles[-1]
    await ClockCycles(dut.clk, 100)
    await tb.snapshot()
    assert [c for c, _ in tb.pps_seen] == [a + SV_BUSY], (a, tb.pps_seen)
    # a step to exactly a whole second crosses no boundary: no pulse
    tb.pps_seen.clear()
    await tb.set_time(5 * NS_PER_SEC)
    await ClockCycles(dut.clk, 100)
    assert tb.pps_seen == []
