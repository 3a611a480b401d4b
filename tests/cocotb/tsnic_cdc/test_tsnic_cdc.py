"""Bench for the clock-domain crossings tsnic_cdc_async_fifo and tsnic_cdc_bus, with unrelated
clocks in both directions (fast writer / slow reader and the reverse) and random valid/ready.

Reference models: a Python queue for the FIFO (every word once, in order; s_ready low only when the
FIFO really holds 2^DEPTH_LOG2 words or more by the writer's count; m_count never above what the
reader can pop back to back; s_count never below what is in flight); for the bus, the set of values
s_data has had: m_data is always one of them, in order, and ends at the last one.
"""

import random
from collections import deque

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, RisingEdge, ReadOnly, Timer

DEPTH = 16


async def setup(dut, s_ps, m_ps):
    cocotb.start_soon(Clock(dut.s_clk, s_ps, units="ps").start())
    cocotb.start_soon(Clock(dut.m_clk, m_ps, units="ps").start())
    dut.s_valid.value = 0
    dut.m_ready.value = 0
    dut.s_data.value = 0
    dut.bus_s_data.value = 0
    dut.s_rst.value = 1
    dut.m_rst.value = 1
    await ClockCycles(dut.s_clk, 6)
    await ClockCycles(dut.m_clk, 6)
    dut.s_rst.value = 0
    dut.m_rst.value = 0
    await ClockCycles(dut.s_clk, 2)


async def fifo_run(dut, n, p_valid, p_ready):
    sent = deque()
    got = []
    errors = []

    async def writer():
        i = 0
        while i < n:
            v = int(random.random() < p_valid)
            dut.s_valid.value = v
            dut.s_data.value = i
            await ReadOnly()
            fire = v and int(dut.s_ready.value)
            await RisingEdge(dut.s_clk)
            if fire:
                sent.append(i)
                i += 1
        dut.s_valid.value = 0

    async def reader():
        while len(got) < n:
            r = int(random.random() < p_ready)
            dut.m_ready.value = r
            await ReadOnly()
            cnt = int(dut.m_count.value)
            if cnt > len(sent) - len(got):
                errors.append(f"m_count {cnt} > {len(sent) - len(got)} in flight")
            if r and int(dut.m_valid.value):
                got.append(int(dut.m_data.value))
            await RisingEdge(dut.m_clk)

    async def full_check():
        while len(got) < n:
            await RisingEdge(dut.s_clk)
            await ReadOnly()
            if int(dut.s_count.value) < len(sent) - len(got) - 1:
                errors.append(f"s_count {int(dut.s_count.value)} below {len(sent) - len(got)} in flight")

    w = cocotb.start_soon(writer())
    c = cocotb.start_soon(full_check())
    await reader()
    await w
    c.kill()
    assert not errors, errors[:3]
    assert got == list(range(n)), "words lost, duplicated or reordered"


@cocotb.test()
async def test_fifo_fast_writer(dut):
    """250 MHz writer, 156.25 MHz reader, random handshakes: every word once, in order."""
    await setup(dut, 4000, 6400)
    await fifo_run(dut, 600, 0.9, 0.7)
    await fifo_run(dut, 200, 1.0, 1.0)


@cocotb.test()
async def test_fifo_fast_reader(dut):
    """156.25 MHz writer, 322.27 MHz reader (and the FIFO filled to full by a stalled reader)."""
    await setup(dut, 6400, 3104)
    await fifo_run(dut, 600, 0.8, 0.9)
    # fill it up with the reader stopped: s_ready must drop at capacity, nothing lost
    dut.m_ready.value = 0
    accepted = 0
    for i in range(40):
        dut.s_data.value = 10000 + accepted
        dut.s_valid.value = 1
        await ReadOnly()
        fire = int(dut.s_ready.value)
        await RisingEdge(dut.s_clk)
        accepted += fire
    dut.s_valid.value = 0
    assert DEPTH <= accepted <= DEPTH + 1, f"{accepted} words accepted into a {DEPTH}-word FIFO"
    got = []
    for _ in range(200):
        dut.m_ready.value = 1
        await ReadOnly()
        if int(dut.m_valid.value):
            got.append(int(dut.m_data.value))
        await RisingEdge(dut.m_clk)
    assert got == [10000 + i for i in range(accepted)], "the full FIFO lost or reordered words"


@cocotb.test()
async def test_bus_snapshots(dut):
    """tsnic_cdc_bus: m_data only ever shows values s_data had, in order, and settles on the last."""
    await setup(dut, 4000, 3104)
    history = [0]
    seen = []

    async def watch():
        while True:
            await RisingEdge(dut.m_clk)
            await ReadOnly()
            seen.append(int(dut.bus_m_data.value))

    t = cocotb.start_soon(watch())
    for _ in range(150):
        v = random.getrandbits(32)
        dut.bus_s_data.value = v
        history.append(v)
        await ClockCycles(dut.s_clk, random.choice([1, 1, 2, 5, 20]))
    await ClockCycles(dut.m_clk, 30)
    t.kill()
    pos = {}
    for i, v in enumerate(history):
        pos.setdefault(v, i)
    last = -1
    for v in seen:
        assert v in pos, f"m_data {v:#x} was never on s_data"
        assert pos[v] >= last, "m_data went back to an older value"
        last = pos[v]
    assert seen[-1] == history[-1], "m_data did not settle on the last value"
