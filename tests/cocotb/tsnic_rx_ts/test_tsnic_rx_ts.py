"""Bench for tsnic_rx_ts: random frames with random gaps in, random backpressure out. Reference
model: each frame's stamp is (own stamp) the PHC value of the cycle its first beat is taken at the
input plus the signed RX_LAT_COMP_NS, or (RX_TS_EXTERNAL=1) tuser[64:1] of the first beat; the bad
flag of each beat is tuser[0]; the byte count of each beat is the number of tkeep bits (DATA_W 64 or
512; some beats carry a random, non-contiguous tkeep so the count is checked for any pattern); data,
keep and last pass unchanged and in order."""

import os
import random

import cocotb
from cocotb.triggers import RisingEdge, ReadOnly, FallingEdge, ClockCycles

from tsnic_clock import start_clock

EXT = int(os.environ.get("RX_TS_EXTERNAL", "0"))
DATA_W = int(os.environ.get("DATA_W", "64"))
LANES = DATA_W // 8
FULL = (1 << LANES) - 1


@cocotb.test()
async def test_random(dut):
    rng = random.Random(int(os.environ.get("SEED", "1")))
    start_clock(dut.clk, 4000)
    comp = -37
    dut.lat_comp_ns.value = comp & 0xFFFFFFFF
    dut.s_axis_tvalid.value = 0
    dut.m_axis_tready.value = 0
    dut.phc_ns.value = 0
    dut.rst.value = 1
    await ClockCycles(dut.clk, 3)
    dut.rst.value = 0
    frames = []
    for _ in range(int(os.environ.get("RXTS_FRAMES", "200"))):
        n = rng.randint(1, 5)
        # tkeep contiguous from lane 0: full before the last beat, 1..LANES lanes on it; one beat in
        # ten with a random pattern instead (the byte count must be its popcount whatever it is)
        frames.append([(rng.getrandbits(DATA_W),
                        rng.getrandbits(LANES) if rng.random() < 0.1 else
                        FULL if k < n - 1 else (1 << rng.randint(1, LANES)) - 1,
                        rng.random() < 0.1, rng.getrandbits(64)) for k in range(n)])
    expect = []            # (data, keep, last, bad, ts) per beat, in order
    got = []
    phc = [1 << 40]

    async def clock_phc():
        while True:
            await FallingEdge(dut.clk)
            phc[0] += rng.choice([4, 4, 4, 3, 5])
            dut.phc_ns.value = phc[0]

    async def source():
        for f in frames:
            while rng.random() < 0.3:
                await FallingEdge(dut.clk)
                dut.s_axis_tvalid.value = 0
            ts = None
            for k, (data, keep, bad, user_ts) in enumerate(f):
                await FallingEdge(dut.clk)
                dut.s_axis_tdata.value = data
                dut.s_axis_tkeep.value = keep
                dut.s_axis_tlast.value = int(k == len(f) - 1)
                dut.s_axis_tuser.value = (user_ts << 1) | int(bad)
                dut.s_axis_tvalid.value = 1
                while True:
                    await ReadOnly()
                    if dut.s_axis_tready.value:
                        break
                    await FallingEdge(dut.clk)
                if k == 0:
                    ts = user_ts if EXT else (int(dut.phc_ns.value) + comp) % (1 << 64)
                expect.append((data, keep, int(k == len(f) - 1), int(bad), ts, bin(keep).count("1")))
        await FallingEdge(dut.clk)
        dut.s_axis_tvalid.value = 0

    async def sink():
        while True:
            await FallingEdge(dut.clk)
            dut.m_axis_tready.value = int(rng.random() < 0.7)
            await ReadOnly()
            if dut.m_axis_tvalid.value and dut.m_axis_tready.value:
                got.append((int(dut.m_axis_tdata.value), int(dut.m_axis_tkeep.value), int(dut.m_axis_tlast.value),
                            int(dut.m_axis_bad.value), int(dut.m_axis_ts.value), int(dut.m_axis_nbytes.value)))

    cocotb.start_soon(clock_phc())
    cocotb.start_soon(sink())
    await source()
    for _ in range(2000):
        await ClockCycles(dut.clk, 10)
        if len(got) >= len(expect):
            break
    assert len(got) == len(expect), (len(got), len(expect))
    for i, (g, e) in enumerate(zip(got, expect)):
        assert g == e, f"beat {i}: got {g}, model {e}"
    dut._log.info("%d beats of %d frames checked (external stamp: %d)", len(got), len(frames), EXT)
