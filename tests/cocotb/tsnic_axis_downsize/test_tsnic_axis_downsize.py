"""Bench for tsnic_axis_downsize (256 -> 64 bits): frames of random length go in as packed 256-bit
beats (cocotbext-axi AxiStreamSource, random input gaps) and must come out as the same bytes, in
order, one frame per tlast, as packed 64-bit beats (only a frame's last beat partial), with random
output back-pressure. Directed: with no gaps and no back-pressure the output is busy every cycle."""

import random

import cocotb
from cocotb.triggers import RisingEdge, ReadOnly, ClockCycles
from cocotbext.axi import AxiStreamBus, AxiStreamSource, AxiStreamSink, AxiStreamFrame

from tsnic_clock import start_clock

IN_B = 32
OUT_B = 8


def pauses(rng, p):
    while True:
        yield rng.random() < p


class TB:
    def __init__(self, dut, seed):
        self.dut = dut
        self.rng = random.Random(seed)
        start_clock(dut.clk, 6000)
        self.src = AxiStreamSource(AxiStreamBus.from_prefix(dut, "s_axis"), dut.clk, dut.rst)
        self.sink = AxiStreamSink(AxiStreamBus.from_prefix(dut, "m_axis"), dut.clk, dut.rst)
        self.beats = []   # every output beat: (tkeep, tlast)
        cocotb.start_soon(self.watch())

    async def watch(self):
        dut = self.dut
        while True:
            await RisingEdge(dut.clk)
            await ReadOnly()
            if dut.m_axis_tvalid.value and dut.m_axis_tready.value:
                self.beats.append((int(dut.m_axis_tkeep.value), int(dut.m_axis_tlast.value)))

    async def reset(self):
        self.dut.rst.value = 1
        await ClockCycles(self.dut.clk, 4)
        self.dut.rst.value = 0
        await ClockCycles(self.dut.clk, 2)

    def check_packing(self):
        """The reference: every output beat full (0xff) except a frame's last, whose keep is 2^n - 1."""
        for i, (keep, last) in enumerate(self.beats):
            if not last:
                assert keep == 0xFF, f"beat {i}: keep {keep:#x} inside a frame"
            else:
                assert keep != 0 and keep & (keep + 1) == 0, f"beat {i}: last keep {keep:#x} not packed"


@cocotb.test()
async def test_random_frames(dut):
    tb = TB(dut, seed=11)
    tb.src.set_pause_generator(pauses(tb.rng, 0.3))
    tb.sink.set_pause_generator(pauses(tb.rng, 0.3))
    await tb.reset()
    frames = []
    for _ in range(300):
        n = tb.rng.choice([1, 7, 8, 9, 31, 32, 33, 60, 64, 65, tb.rng.randint(1, 1600)])
        frames.append(bytes(tb.rng.getrandbits(8) for _ in range(n)))
    for f in frames:
        await tb.src.send(AxiStreamFrame(f))
    for i, f in enumerate(frames):
        got = await tb.sink.recv()
        assert bytes(got.tdata) == f, f"frame {i}: {len(got.tdata)} bytes out for {len(f)} in, or different bytes"
    assert tb.sink.empty()
    await ClockCycles(dut.clk, 10)
    assert sum(last for _, last in tb.beats) == len(frames)
    assert len(tb.beats) == sum((len(f) + OUT_B - 1) // OUT_B for f in frames)
    tb.check_packing()


@cocotb.test()
async def test_full_rate(dut):
    """No input gaps, no back-pressure: one output beat every cycle from the first to the last."""
    tb = TB(dut, seed=3)
    await tb.reset()
    frames = [bytes(tb.rng.getrandbits(8) for _ in range(n)) for n in (256, 1000, 64, 1514, 8, 333)]
    for f in frames:
        await tb.src.send(AxiStreamFrame(f))
    first = None
    cycles = 0
    out = 0
    want = sum((len(f) + OUT_B - 1) // OUT_B for f in frames)
    while out < want:
        await RisingEdge(dut.clk)
        await ReadOnly()
        if dut.m_axis_tvalid.value and dut.m_axis_tready.value:
            out += 1
            first = cycles if first is None else first
        cycles += 1
        assert cycles < 10 * want, "stalled"
    busy = cycles - first
    # a frame's last input beat may hold fewer than 4 output beats; the next input beat is taken in
    # the cycle the last segment leaves, so there is no idle cycle at all
    assert busy == want, f"{want} output beats took {busy} cycles"
    for f in frames:
        got = await tb.sink.recv()
        assert bytes(got.tdata) == f
    tb.check_packing()
