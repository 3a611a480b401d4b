"""Bench for the board RX path: XgmiiSource -> tsnic_xgmii_rx -> tsnic_mac_rx -> core-domain stream,
with the MAC RX clock (156.25 MHz + MAC_PPM) unrelated to the core's (250 MHz + CORE_PPM).

Reference: the bench's list of frames and, for each /S/ on the line, the true PHC time of its start
(tb_phc_truth, the PHC register interpolated between core edges, at the start of the /S/ word's
cycle, plus half a period for a lane-4 start). Checks: every frame delivered once, in order, with
its payload, tuser[0] (bad) on the last beat exactly for the spoiled ones, tuser[64:1] on the first
beat = arrival time + RX_LAT_COMP within [-1, +1] ns of the truth (rounded to whole ns, the local
time's lag compensated on average),
never more than one frame's stamp for one frame.
"""

import os
import random
import zlib

import cocotb
from cocotb.triggers import ClockCycles, RisingEdge, ReadOnly, Timer
from cocotbext.eth import XgmiiFrame, XgmiiSource

import tsnic_contract as C
from tsnic_regif_master import RegIfMaster

CORE_PPM = float(os.environ.get("CORE_PPM", "0"))
MAC_PPM = float(os.environ.get("MAC_PPM", "0"))


class TB:
    def __init__(self, dut):
        self.dut = dut
        # the clocks run in the bench top (CLK_HALF_FS, MAC_HALF_FS from the Makefile)
        self.regs = RegIfMaster(dut, dut.clk)
        self.source = XgmiiSource(dut.xgmii_rxd, dut.xgmii_rxc, dut.mac_clk, dut.mac_rst)
        dut.rx_lat_comp_ns.value = 0
        dut.m_axis_rx_tready.value = 1
        self.frames = []      # (payload, bad, arrival)
        self.truth = []
        self.errors = []

    async def reset(self):
        self.dut.rst.value = 1
        self.dut.mac_rst.value = 1
        await ClockCycles(self.dut.clk, 8)
        await ClockCycles(self.dut.mac_clk, 8)
        self.dut.rst.value = 0
        self.dut.mac_rst.value = 0
        await ClockCycles(self.dut.clk, 2)
        cocotb.start_soon(self._out_monitor())
        cocotb.start_soon(self._truth_monitor())

    async def set_time(self, ns):
        assert await self.regs.write(C.PHC_SET_LO, ns & 0xFFFFFFFF)
        assert await self.regs.write(C.PHC_SET_HI, (ns >> 32) & 0xFFFFFFFF)
        assert await self.regs.write(C.PHC_CMD, C.PHC_CMD_SET)

    async def _out_monitor(self):
        dut = self.dut
        cur = None
        while True:
            await RisingEdge(dut.clk)
            await ReadOnly()
            if int(dut.m_axis_rx_tvalid.value) and int(dut.m_axis_rx_tready.value):
                user = int(dut.m_axis_rx_tuser.value)
                keep = int(dut.m_axis_rx_tkeep.value)
                data = int(dut.m_axis_rx_tdata.value).to_bytes(8, "little")[:bin(keep).count("1")]
                if cur is None:
                    cur = [data, user >> 1]
                else:
                    if user >> 1:
                        self.errors.append("arrival stamp on a beat other than the first")
                    cur[0] += data
                if not int(dut.m_axis_rx_tlast.value) and user & 1:
                    self.errors.append("bad flag before tlast")
                if int(dut.m_axis_rx_tlast.value):
                    self.frames.append((cur[0], user & 1, cur[1]))
                    cur = None

    async def _truth_monitor(self):
        dut = self.dut
        seen = int(dut.start_count.value)
        while True:
            await RisingEdge(dut.mac_clk)
            await Timer(5, units="ps")
            n = int(dut.start_count.value)
            if n != seen:
                seen = n
                self.truth.append(int(dut.start_true_ns.value) + float(dut.start_true_fr.value))


def wire_frame(payload, bad):
    data = payload + zlib.crc32(payload).to_bytes(4, "little")
    if bad:
        data = data[:-1] + bytes([data[-1] ^ 0x81])
    return XgmiiFrame(b"\x55" * 7 + b"\xd5" + data)


@cocotb.test()
async def test_arrival_stamps(dut):
    """Frames at both start lanes, gaps 5..40 bytes, some with a bad FCS; stamps against the truth."""
    tb = TB(dut)
    await tb.reset()
    await tb.set_time(3_000_000_000_000)
    for _ in range(400):
        if int(dut.mac_locked.value):
            break
        await Timer(1, units="us")
    assert int(dut.mac_locked.value), "RX-domain time not locked"
    await Timer(5, units="us")
    lat = 123
    dut.rx_lat_comp_ns.value = lat
    await Timer(1, units="us")
    items = []
    for i in range(120):
        items.append((bytes(random.getrandbits(8) for _ in range(random.randint(60, 600))), random.random() < 0.2))
    for payload, bad in items:
        tb.source.ifg = random.choice([5, 8, 12, 12, 40])
        await tb.source.send(wire_frame(payload, bad))
    await tb.source.wait()
    await Timer(2, units="us")
    assert not tb.errors, tb.errors[:3]
    assert len(tb.frames) == len(items), f"{len(tb.frames)} frames delivered of {len(items)}"
    assert len(tb.truth) >= len(items)
    truth = tb.truth[-len(items):]
    errs = []
    for i, ((payload, bad), (got, gbad, arr), t) in enumerate(zip(items, tb.frames, truth)):
        assert got == payload, f"frame {i}: payload differs"
        assert gbad == int(bad), f"frame {i}: bad flag {gbad}, expected {int(bad)}"
        e = (arr - lat) - t
        errs.append(e)
    for i, e in enumerate(errs):
        assert -1.0 <= e <= 1.0, f"frame {i}: arrival vs true {e:+.3f} ns"
    dut._log.info("arrival stamp - true start of frame over %d frames: min %+.3f max %+.3f mean %+.3f ns "
                  "(whole-ns stamp; core %+g ppm, MAC %+g ppm)", len(errs), min(errs), max(errs),
                  sum(errs) / len(errs), CORE_PPM, MAC_PPM)
