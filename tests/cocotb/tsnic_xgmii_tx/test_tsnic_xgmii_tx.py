"""Bench for tsnic_xgmii_tx: AXI-Stream frames in (cocotbext-axi AxiStreamSource), 64-bit XGMII out
(cocotbext-eth XgmiiSink decodes the frames).

Reference model (independent of the DUT): the expected frame on the wire is 0x55 x 7 + 0xD5, the
payload zero-padded to 60 bytes, and its CRC-32 (zlib) little-endian. A line monitor of its own checks
every word: /S/ only in lane 0 or 4, the gap from /T/ to the next /S/ (counted as /T/ plus idles)
at least 9 bytes and, back to back, 12 on average with the deficit idle count never above 3
(IEEE 802.3 46.3.1.4), nothing but idles between frames, and the line rate for back-to-back frames.

Line-start report (m_lag_*, for the launch gate's departure stamp): the bench notes the cycle of each
frame's first-beat handshake at the stamp point (s_axis, or the wrapper's wide input before a
downsizer) and the cycle and lane of each /S/ it sees on the line; the report for frame i must be
((start cycle - handshake cycle - LAG_BASE_CYC) x 6.4 ns + 3.2 ns for lane 4) rounded down to whole
ns, one report per frame, in order. LAG_BASE_CYC is the documented idle-line latency (4; 5 behind
the downsizer); on a busy line the report grows with the wait for the gap.
"""

import os

import random
import zlib

import cocotb
from cocotb.triggers import ClockCycles, RisingEdge, ReadOnly
from cocotbext.axi import AxiStreamBus, AxiStreamFrame, AxiStreamSource
from cocotbext.eth import XgmiiSink

from tsnic_clock import start_clock

IDLE, START, TERM = 0x07, 0xFB, 0xFD


def expected_wire(payload: bytes) -> bytes:
    p = payload.ljust(60, b"\0")
    return b"\x55" * 7 + b"\xd5" + p + zlib.crc32(p).to_bytes(4, "little")


PERIOD_PS = 6400
LAG_BASE_CYC = int(os.environ.get("LAG_BASE_CYC", "4"))


class TB:
    def __init__(self, dut):
        self.dut = dut
        start_clock(dut.clk, PERIOD_PS)
        self.source = AxiStreamSource(AxiStreamBus.from_prefix(dut, "s_axis"), dut.clk, dut.rst)
        if hasattr(dut, "stamp_beat"):
            dut.stamp_beat.value = 0
            dut.stamp_last.value = 0
        self.sink = XgmiiSink(dut.xgmii_txd, dut.xgmii_txc, dut.clk, dut.rst)
        self.gaps = []          # bytes from /T/ (included) to the next /S/ (excluded)
        self.starts = []        # (cycle, lane)
        self.errors = []
        self.frame_bytes = []   # bytes from /S/ to /T/ per frame, as the monitor saw them
        self.first_beats = []   # monitor cycle in which each frame's first beat is taken at s_axis
        self.lags = []          # m_lag_ns reports, in order

    async def reset(self):
        self.dut.rst.value = 1
        await ClockCycles(self.dut.clk, 4)
        self.dut.rst.value = 0
        await ClockCycles(self.dut.clk, 2)
        cocotb.start_soon(self._line_monitor())

    async def _line_monitor(self):
        dut = self.dut
        in_frame = False
        gap = None
        cycle = 0
        cur = 0
        s_mid = False
        while True:
            await RisingEdge(dut.clk)
            await ReadOnly()
            cycle += 1
            # the input handshake these values make is taken at the next edge: count it in this cycle
            # (an /S/ on txd after edge e is seen here in cycle e; the beat taken at edge e was seen in e-1)
            if int(dut.s_axis_tvalid.value) and int(dut.s_axis_tready.value):
                if not s_mid:
                    self.first_beats.append(cycle)
                s_mid = not int(dut.s_axis_tlast.value)
            if int(dut.m_lag_valid.value):
                self.lags.append(int(dut.m_lag_ns.value))
            d = int(dut.xgmii_txd.value)
            c = int(dut.xgmii_txc.value)
            for lane in range(8):
                byte = (d >> (8 * lane)) & 0xFF
                ctrl = (c >> lane) & 1
                if in_frame:
                    if ctrl and byte == TERM:
                        in_frame = False
                        self.frame_bytes.append(cur)
                        gap = 1
                    elif ctrl:
                        self.errors.append(f"control {byte:#x} inside a frame at cycle {cycle}")
                    else:
                        cur += 1
                elif ctrl and byte == START:
                    if lane not in (0, 4):
                        self.errors.append(f"/S/ in lane {lane} at cycle {cycle}")
                    self.starts.append((cycle, lane))
                    if gap is not None:
                        self.gaps.append(gap)
                    in_frame = True
                    cur = 1
                    gap = None
                elif ctrl and byte == IDLE:
                    if gap is not None:
                        gap += 1
                else:
                    self.errors.append(f"{'control' if ctrl else 'data'} {byte:#x} between frames at cycle {cycle}")


async def run_frames(tb, payloads, back_to_back=True):
    for p in payloads:
        await tb.source.send(AxiStreamFrame(p))
        if not back_to_back:
            await ClockCycles(tb.dut.clk, random.randint(0, 30))
    got = []
    for p in payloads:
        f = await tb.sink.recv()
        got.append(f)
    return got


def check_frames(tb, payloads, got):
    assert not tb.errors, tb.errors[:5]
    for i, (p, f) in enumerate(zip(payloads, got)):
        assert bytes(f.data) == expected_wire(p), f"frame {i} ({len(p)} bytes): wire bytes differ"
        assert f.check_fcs(), f"frame {i}: FCS (cocotbext-eth's check)"


def check_lags(tb, want_busy):
    """Every frame's line-start report against the line: one per frame, in order, exact."""
    n = len(tb.starts)
    assert len(tb.first_beats) == n, f"{len(tb.first_beats)} first beats, {n} starts"
    assert len(tb.lags) == n, f"{len(tb.lags)} line-start reports for {n} frames"
    want = []
    for (c, lane), h in zip(tb.starts, tb.first_beats):
        ps = (c - h - LAG_BASE_CYC) * PERIOD_PS + (PERIOD_PS // 2 if lane == 4 else 0)
        assert ps >= 0, f"/S/ {c - h} cycles after its first beat: less than the idle latency"
        want.append(ps // 1000)
    bad = [(i, g, w) for i, (g, w) in enumerate(zip(tb.lags, want)) if g != w]
    assert not bad, f"line-start reports (frame, got, want): {bad[:8]}"
    if want_busy:
        # a busy line: waits of whole cycles and lane-4 starts were both reported
        assert max(want) >= 2 * PERIOD_PS // 1000, f"no frame waited a cycle: {sorted(set(want))}"
        assert any(lane == 4 for _, lane in tb.starts)
    else:
        assert 0 in want
    tb.dut._log.info("line-start reports: %d frames, %d..%d ns, %d distinct", n, min(want), max(want),
                     len(set(want)))


def check_gaps(tb, n_back_to_back):
    """Back-to-back gaps: each >= 9, DIC within 0..3, average 12 within the DIC's reach."""
    assert all(g >= 9 for g in tb.gaps), f"gap below 9 bytes: {min(tb.gaps)}"
    dic = 0
    for g in tb.gaps[-n_back_to_back:]:
        dic += 12 - g
        assert 0 <= dic <= 3 or g > 12, f"deficit idle count {dic} after a gap of {g}"
        dic = max(dic, 0)


@cocotb.test()
async def test_sizes_and_padding(dut):
    """Every size 1..80 and some up to 9600, one at a time: bytes, padding, FCS, start in lane 0."""
    tb = TB(dut)
    await tb.reset()
    sizes = list(range(1, 81)) + [127, 128, 129, 1514, 1518, 9000, 9600]
    payloads = [bytes(random.getrandbits(8) for _ in range(n)) for n in sizes]
    got = await run_frames(tb, payloads, back_to_back=False)
    check_frames(tb, payloads, got)
    await ClockCycles(dut.clk, 8)
    check_lags(tb, want_busy=False)


@cocotb.test()
async def test_back_to_back_rate_and_dic(dut):
    """Back-to-back random sizes: gaps per the deficit idle count, 12 bytes on average, line rate."""
    tb = TB(dut)
    await tb.reset()
    payloads = [bytes(random.getrandbits(8) for _ in range(random.choice([60, 61, 62, 63, 64, 65, 66, 67,
                random.randint(60, 1514)]))) for _ in range(200)]
    got = await run_frames(tb, payloads)
    check_frames(tb, payloads, got)
    await ClockCycles(dut.clk, 8)
    check_lags(tb, want_busy=True)
    n = len(payloads) - 1
    gaps = tb.gaps[-n:]
    avg = sum(gaps) / len(gaps)
    check_gaps(tb, n)
    assert 11.9 <= avg <= 12.1, f"average gap {avg:.3f} bytes"
    lanes = {lane for _, lane in tb.starts}
    assert lanes == {0, 4}, f"start lanes used: {lanes}"
    # rate: from the first /S/ to the last, the line carried exactly preamble+frame+FCS+gap bytes
    c0, l0 = tb.starts[-len(payloads)]
    c1, l1 = tb.starts[-1]
    line_bytes = (c1 - c0) * 8 + (l1 - l0)
    want = sum(8 + max(len(p), 60) + 4 for p in payloads[:-1]) + sum(gaps)
    assert line_bytes == want, f"line carried {line_bytes} bytes between starts, frames + gaps {want}"
    dut._log.info("back to back: %d frames, average gap %.3f bytes, gaps %d..%d, starts in lanes %s",
                  len(payloads), avg, min(gaps), max(gaps), sorted(lanes))
