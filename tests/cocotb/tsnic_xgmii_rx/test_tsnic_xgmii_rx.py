"""Bench for tsnic_xgmii_rx: cocotbext-eth's XgmiiSource sends frames on 64-bit XGMII (both start
lanes, gaps down to 5 bytes, frames with a wrong FCS or an /E/ inside); the bench's own list of what
it sent is the reference: every payload delivered once, in order, FCS stripped, tuser (bad) set
exactly on the frames it spoiled, one sof pulse per frame with the right lane.
"""

import random
import zlib

import cocotb
from cocotb.triggers import ClockCycles, RisingEdge, ReadOnly
from cocotbext.eth import XgmiiFrame, XgmiiSource

from tsnic_clock import start_clock


class TB:
    def __init__(self, dut):
        self.dut = dut
        start_clock(dut.clk, 6400)
        self.source = XgmiiSource(dut.xgmii_rxd, dut.xgmii_rxc, dut.clk, dut.rst)
        self.frames = []     # (payload, bad)
        self.sofs = []       # lane4 flags
        self.errors = []

    async def reset(self):
        self.dut.rst.value = 1
        await ClockCycles(self.dut.clk, 4)
        self.dut.rst.value = 0
        await ClockCycles(self.dut.clk, 2)
        cocotb.start_soon(self._monitor())

    async def _monitor(self):
        dut = self.dut
        cur = b""
        while True:
            await RisingEdge(dut.clk)
            await ReadOnly()
            if int(dut.sof.value):
                self.sofs.append(int(dut.sof_lane4.value))
            if int(dut.m_axis_tvalid.value):
                keep = int(dut.m_axis_tkeep.value)
                n = bin(keep).count("1")
                if keep != (1 << n) - 1 or n == 0:
                    self.errors.append(f"tkeep {keep:#x}")
                last = int(dut.m_axis_tlast.value)
                if not last and n != 8:
                    self.errors.append("partial beat before tlast")
                cur += int(dut.m_axis_tdata.value).to_bytes(8, "little")[:n]
                if last:
                    self.frames.append((cur, int(dut.m_axis_tuser.value)))
                    cur = b""


def wire_frame(payload, spoil=None):
    data = payload + zlib.crc32(payload).to_bytes(4, "little")
    if spoil == "fcs":
        data = data[:-1] + bytes([data[-1] ^ 0x5A])
    f = XgmiiFrame(b"\x55" * 7 + b"\xd5" + data)
    if spoil == "error":
        f.ctrl = [0] * len(f.data)
        pos = 8 + len(payload) // 2
        f.data[pos] = 0xFE
        f.ctrl[pos] = 1
    return f


async def send_all(tb, items, ifg):
    tb.source.ifg = ifg
    for payload, spoil in items:
        await tb.source.send(wire_frame(payload, spoil))
    await tb.source.wait()
    await ClockCycles(tb.dut.clk, 20)


def check(tb, items):
    assert not tb.errors, tb.errors[:5]
    assert len(tb.frames) == len(items), f"{len(tb.frames)} frames delivered, {len(items)} sent"
    for i, ((payload, spoil), (got, bad)) in enumerate(zip(items, tb.frames)):
        if spoil == "error":        # the /E/ byte is delivered as its code, the frame flagged bad
            pos = len(payload) // 2
            payload = payload[:pos] + b"\xfe" + payload[pos + 1:]
        assert got == payload, f"frame {i} ({len(payload)} bytes): payload differs"
        want_bad = int(spoil is not None or len(payload) < 60)
        assert bad == want_bad, f"frame {i}: tuser {bad}, expected {want_bad} ({spoil})"
    assert len(tb.sofs) == len(items), f"{len(tb.sofs)} sof pulses for {len(items)} frames"


@cocotb.test()
async def test_sizes_lanes_gaps(dut):
    """Sizes 60..200 and some large, gaps of 12 and of 5 bytes (starts in both lanes)."""
    tb = TB(dut)
    await tb.reset()
    items = [(bytes(random.getrandbits(8) for _ in range(n)), None)
             for n in list(range(60, 140)) + [1514, 9000, 64, 65, 66, 67]]
    await send_all(tb, items[:40], 12)
    await send_all(tb, items[40:], 5)
    check(tb, items)
    assert set(tb.sofs) == {0, 1}, "starts seen in one lane only"


@cocotb.test()
async def test_bad_frames(dut):
    """Wrong FCS, an /E/ inside, a runt: delivered with tuser = 1; good ones around them tuser = 0."""
    tb = TB(dut)
    await tb.reset()
    items = []
    for _ in range(60):
        spoil = random.choice([None, None, "fcs", "error"])
        items.append((bytes(random.getrandbits(8) for _ in range(random.randint(60, 300))), spoil))
    items.append((bytes(range(20)), None))      # a runt: too short, bad
    items.append((bytes(range(100)), None))
    await send_all(tb, items, random.choice([5, 8, 12]))
    check(tb, items)
