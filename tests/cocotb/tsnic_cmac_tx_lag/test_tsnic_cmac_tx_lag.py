"""Bench for tsnic_cmac_tx_lag: the line-start reports the Alveo board core derives for the CMAC.

The stream the CMAC takes is driven cycle by cycle (frames of 1..9600 bytes on a 512-bit bus, the
CMAC's tready going low, bubbles, idle gaps, junk on the lines while tvalid is low), and every
report is checked against the bench's own model of the 100G line, written from the rules (not
from the RTL's arithmetic), in exact rational picoseconds:

- a MAC clock cycle is 1e12 / 322.265625e6 = 102400/33 ps; the first beat's handshake of a frame is
  at its cycle's edge, and the frame reaches the line a fixed latency later (left out: it is the
  same for every frame);
- a frame starts on the line at that time or when the line is free, whichever is later;
- it then takes 8 (preamble, SFD) + max(len, 60) + 4 (FCS) octets of 80 ps, and a gap: 12 octets
  (PG203 CTL_TX_IPG_VALUE), shortened by the r octets the next Start is past an 8-octet column
  (802.3 clause 82: a Start only opens a 64B/66B block) while the deficit idle count (802.3
  46.3.1.4, here 0..7) allows, else lengthened by 8 - r;
- the report is floor((start - handshake) / 1 ns), at most 65535.

Also checked: one report per frame, in order, none before its frame's last beat and none later than
12 cycles after it.
"""

import random
from fractions import Fraction

import cocotb
from cocotb.triggers import RisingEdge, ReadOnly, ClockCycles

from tsnic_clock import start_clock

BYTES = 64
CYCLE_PS = Fraction(102400, 33)
OCTET_PS = 80
COL = 8
DIC_MAX = COL - 1
IFG = 12
LATENCY = 12     # cycles from a last beat's handshake to its report


class Line:
    """The 100G line after the CMAC, from the rules above."""

    def __init__(self):
        self.free = None     # ps: end of the last frame's gap
        self.dic = 0

    def frame(self, first_cycle, length):
        h = first_cycle * CYCLE_PS
        start = h if self.free is None else max(h, self.free)
        lag_ns = min(int((start - h) // 1000), 0xFFFF)
        octets = 8 + max(length, 60) + 4
        r = (octets + IFG) % COL
        if r == 0:
            gap = IFG
        elif self.dic + r <= DIC_MAX:
            gap, self.dic = IFG - r, self.dic + r
        else:
            gap, self.dic = IFG + COL - r, max(0, self.dic - (COL - r))
        self.free = start + (octets + gap) * OCTET_PS
        return lag_ns


class TB:
    def __init__(self, dut, seed=1):
        self.dut = dut
        self.rng = random.Random(seed)
        start_clock(dut.clk, 3104)
        self.cycle = 0          # the edge the inputs set now are sampled at
        self.reports = []       # (cycle, ns)
        self.frames = []        # (first cycle, last cycle, len)
        self.line = Line()
        self.expected = []      # (last cycle, ns)
        dut.s_axis_tvalid.value = 0
        dut.s_axis_tready.value = 0
        dut.s_axis_tlast.value = 0
        dut.s_axis_tkeep.value = 0
        dut.rst.value = 0
        cocotb.start_soon(self.monitor())

    async def monitor(self):
        dut = self.dut
        n = 0
        while True:
            await RisingEdge(dut.clk)
            n += 1
            await ReadOnly()
            if dut.m_lag_valid.value:
                self.reports.append((n, int(dut.m_lag_ns.value)))

    async def reset(self):
        self.dut.rst.value = 1
        await self.idle(3)
        self.dut.rst.value = 0
        await self.idle(2)
        self.line = Line()

    async def step(self, valid, ready, last, keep):
        d = self.dut
        d.s_axis_tvalid.value = valid
        d.s_axis_tready.value = ready
        d.s_axis_tlast.value = last
        d.s_axis_tkeep.value = keep
        await RisingEdge(d.clk)
        self.cycle += 1
        return valid and ready

    async def idle(self, n, ready_p=0.5):
        for _ in range(n):
            await self.step(0, int(self.rng.random() < ready_p), self.rng.getrandbits(1),
                            self.rng.getrandbits(BYTES))

    async def send(self, length, stall_p=0.0, bubble_p=0.0):
        """One frame; tready low before a beat with probability stall_p (repeatedly), tvalid low
        (a bubble) with bubble_p."""
        beats = (length + BYTES - 1) // BYTES
        first = None
        for b in range(beats):
            last = b == beats - 1
            n = length - b * BYTES if last else BYTES
            keep = (1 << n) - 1
            while self.rng.random() < bubble_p:
                await self.step(0, 1, self.rng.getrandbits(1), self.rng.getrandbits(BYTES))
            while self.rng.random() < stall_p:
                await self.step(1, 0, int(last), keep)
            await self.step(1, 1, int(last), keep)
            if first is None:
                first = self.cycle
        self.frames.append((first, self.cycle, length))
        self.expected.append((self.cycle, self.line.frame(first, length)))

    async def check(self):
        await self.idle(LATENCY + 4)
        got, exp = self.reports, self.expected
        assert len(got) == len(exp), f"{len(got)} reports for {len(exp)} frames"
        for k, ((gc, gns), (ec, ens)) in enumerate(zip(got, exp)):
            f = self.frames[k]
            assert gns == ens, (f"frame {k} (len {f[2]}, first beat cycle {f[0]}, last {f[1]}): "
                                f"lag {gns} ns, the line says {ens} ns")
            assert ec < gc <= ec + LATENCY, f"frame {k}: report at cycle {gc}, last beat at {ec}"
        busy = sum(1 for _, ns in exp if ns > 0)
        self.dut._log.info("%d frames checked, %d behind another, lags up to %d ns", len(exp), busy,
                           max(ns for _, ns in exp))
        return busy


@cocotb.test()
async def test_idle_line(dut):
    """Frames far apart: every report is 0 (the start is the first beat plus the fixed latency)."""
    tb = TB(dut, 3)
    await tb.reset()
    for _ in range(60):
        length = tb.rng.choice([1, 59, 60, 61, 64, 65, 128, 1514, tb.rng.randint(1, 2000)])
        await tb.send(length, stall_p=0.2)
        await tb.idle(length // 40 + 6)
    assert await tb.check() == 0
    assert all(ns == 0 for _, ns in tb.reports)


@cocotb.test()
async def test_back_to_back_min_frames(dut):
    """60-byte frames at one a cycle (the bus at 165 Gb/s, nothing holding it back): each waits for
    the line: 72 octets and a gap of 8, 16, 8, ... (8-octet blocks, the deficit idle count)."""
    tb = TB(dut, 4)
    await tb.reset()
    for _ in range(200):
        await tb.send(60)
    assert await tb.check() == 199
    # the 12-octet average: frame k starts 84 octets * k after the first, less the count (0..7)
    t0 = 0
    for k, (ns, (first, _, _)) in enumerate(zip([r[1] for r in tb.reports], tb.frames)):
        start_ps = first * CYCLE_PS + ns * 1000
        if k == 0:
            t0 = start_ps
        assert abs(start_ps - t0 - k * 84 * OCTET_PS) < 1000 + DIC_MAX * OCTET_PS, k


@cocotb.test()
async def test_lag_range_and_clamp(dut):
    """The backlog built up by 60-byte frames at one a cycle to beyond 2^25 units (81 us): the
    conversion to ns is exact over the whole range, and lags past 65535 ns report 65535."""
    tb = TB(dut, 5)
    await tb.reset()
    for _ in range(24000):
        await tb.send(60)
    await tb.check()
    assert tb.reports[-1][1] == 0xFFFF
    assert sum(1 for _, ns in tb.reports if ns == 0xFFFF) > 1000


@cocotb.test()
async def test_reset_forgets_the_line(dut):
    """A reset while the line is busy: the next frame starts on an idle line again."""
    tb = TB(dut, 6)
    await tb.reset()
    for _ in range(40):
        await tb.send(1514)
    await tb.check()
    assert tb.reports[-1][1] > 1000
    tb.reports.clear()
    tb.frames.clear()
    tb.expected.clear()
    await tb.reset()
    for _ in range(10):
        await tb.send(1514)
    await tb.check()
    assert tb.reports[0][1] == 0


@cocotb.test()
async def test_random(dut):
    """Random lengths (1..9600 bytes), CMAC backpressure, bubbles, idle gaps from none to long,
    junk on the lines between frames."""
    tb = TB(dut, 7)
    await tb.reset()
    for _ in range(700):
        r = tb.rng.random()
        if r < 0.02:
            length = tb.rng.randint(1515, 9600)
        elif r < 0.3:
            length = tb.rng.choice([60, 64, 1514])
        else:
            length = tb.rng.randint(1, 1514)
        await tb.send(length, stall_p=tb.rng.choice([0.0, 0.2, 0.5]),
                      bubble_p=tb.rng.choice([0.0, 0.0, 0.1]))
        gap = tb.rng.choice([0, 0, 0, 1, 2, tb.rng.randint(0, 12), tb.rng.randint(10, 100)])
        await tb.idle(gap)
    busy = await tb.check()
    assert busy > 200, f"only {busy} frames waited for the line"
