"""cocotb bench for tsnic_axil_reg_if: AXI-Lite (cocotbext-axi AxiLiteMaster) to the register interface.

A Python register block answers on the register-interface side: it owns a set of word addresses (a
small memory), acknowledges after a programmable delay (optionally asserting reg_*_wait meanwhile)
and never acknowledges anything else. Checks: data both ways, strobes, exactly one register access per
AXI transaction, undefined addresses complete by timeout with read data 0 and OKAY, wait extends the
timeout but never past WAIT_TIMEOUT, back-to-back and concurrent reads and writes, back-pressure.
"""

from __future__ import annotations

import itertools
import logging
import random

import cocotb
from cocotb.triggers import ClockCycles, Combine, RisingEdge
from cocotbext.axi import AxiLiteBus, AxiLiteMaster

from tsnic_clock import start_clock

TIMEOUT = 16
WAIT_TIMEOUT = 200
OWNED = [0x200 + 4 * i for i in range(16)] + [0x80000, 0xFFFFC]


class Block:
    """Register block model on the reg_* side."""

    def __init__(self, dut):
        self.dut = dut
        self.mem = {a: 0 for a in OWNED}
        self.delay = 0          # cycles before ack
        self.use_wait = False   # assert reg_*_wait while delaying
        self.never = set()      # owned addresses that wait forever (never ack)
        self.wr_log: list[tuple[int, int, int]] = []
        self.rd_log: list[int] = []
        dut.reg_wr_ack.value = 0
        dut.reg_wr_wait.value = 0
        dut.reg_rd_ack.value = 0
        dut.reg_rd_wait.value = 0
        dut.reg_rd_data.value = 0
        cocotb.start_soon(self._wr())
        cocotb.start_soon(self._rd())

    async def _wr(self):
        d = self.dut
        while True:
            await RisingEdge(d.clk)
            if not d.reg_wr_en.value:
                continue
            addr = int(d.reg_wr_addr.value) & ~3
            if addr not in self.mem:
                continue
            wait = self.use_wait or addr in self.never
            for _ in itertools.count() if addr in self.never else range(self.delay):
                d.reg_wr_wait.value = int(wait)
                await RisingEdge(d.clk)
                if not d.reg_wr_en.value:       # the bridge gave up (WAIT_TIMEOUT)
                    break
            else:
                data, strb = int(d.reg_wr_data.value), int(d.reg_wr_strb.value)
                old = self.mem[addr]
                mask = sum(0xFF << (8 * i) for i in range(4) if strb >> i & 1)
                self.mem[addr] = (old & ~mask) | (data & mask)
                self.wr_log.append((addr, data, strb))
                d.reg_wr_wait.value = 0
                d.reg_wr_ack.value = 1
                await RisingEdge(d.clk)          # the bridge samples the ack here, drops en after
                d.reg_wr_ack.value = 0
                continue
            d.reg_wr_wait.value = 0

    async def _rd(self):
        d = self.dut
        while True:
            await RisingEdge(d.clk)
            if not d.reg_rd_en.value:
                continue
            addr = int(d.reg_rd_addr.value) & ~3
            if addr not in self.mem:
                continue
            wait = self.use_wait or addr in self.never
            for _ in itertools.count() if addr in self.never else range(self.delay):
                d.reg_rd_wait.value = int(wait)
                await RisingEdge(d.clk)
                if not d.reg_rd_en.value:
                    break
            else:
                self.rd_log.append(addr)
                d.reg_rd_wait.value = 0
                d.reg_rd_data.value = self.mem[addr]
                d.reg_rd_ack.value = 1
                await RisingEdge(d.clk)
                d.reg_rd_ack.value = 0
                d.reg_rd_data.value = 0
                continue
            d.reg_rd_wait.value = 0


async def setup(dut, pause=False):
    start_clock(dut.clk, 4000)
    axil = AxiLiteMaster(AxiLiteBus.from_prefix(dut, "s_axil"), dut.clk, dut.rst)
    for ch in (axil.write_if, axil.read_if):
        ch.log.setLevel(logging.WARNING)
    if pause:
        rng = random.Random(7)
        def gen():
            while True:
                yield rng.random() < 0.4
        for ch in (axil.write_if.aw_channel, axil.write_if.w_channel, axil.write_if.b_channel,
                   axil.read_if.ar_channel, axil.read_if.r_channel):
            ch.set_pause_generator(gen())
    blk = Block(dut)
    dut.rst.value = 1
    await ClockCycles(dut.clk, 4)
    dut.rst.value = 0
    await ClockCycles(dut.clk, 2)
    return axil, blk


async def timed(dut, coro):
    t0 = cocotb.utils.get_sim_time("ns")
    r = await coro
    return r, int((cocotb.utils.get_sim_time("ns") - t0) // 4)


@cocotb.test()
async def test_read_write(dut):
    """Words written come back; byte strobes; one register access per AXI access; OKAY."""
    axil, blk = await setup(dut)
    for i, a in enumerate(OWNED):
        await axil.write_dword(a, 0x1000 + i)
    for i, a in enumerate(OWNED):
        assert await axil.read_dword(a) == 0x1000 + i
    await axil.write(OWNED[0] + 1, b"\xAB")            # one byte: strobe 0b0010
    assert await axil.read_dword(OWNED[0]) == 0xAB00
    assert blk.wr_log[-1][2] == 0b0010
    assert len(blk.wr_log) == len(OWNED) + 1 and len(blk.rd_log) == len(OWNED) + 1
    r = await axil.write_dword(OWNED[1], 5)
    assert r is None or getattr(r, "resp", 0) == 0


@cocotb.test()
async def test_timeout(dut):
    """Nobody answers: read data 0 and OKAY after TIMEOUT cycles; the write does nothing."""
    axil, blk = await setup(dut)
    for a in [0x0, 0x204 + 0x100, 0x7FFFC]:
        res, cycles = await timed(dut, axil.read(a, 4))
        assert res.data == b"\0\0\0\0" and int(res.resp) == 0
        assert TIMEOUT <= cycles <= TIMEOUT + 8, cycles
        res, cycles = await timed(dut, axil.write(a, b"\xff\xff\xff\xff"))
        assert int(res.resp) == 0 and TIMEOUT <= cycles <= TIMEOUT + 8, cycles
    assert not blk.wr_log and not blk.rd_log


@cocotb.test()
async def test_wait(dut):
    """reg_*_wait stretches an access past TIMEOUT; a block that waits forever is cut at WAIT_TIMEOUT."""
    axil, blk = await setup(dut)
    blk.delay, blk.use_wait = 3 * TIMEOUT, True
    await axil.write_dword(OWNED[2], 0x5A5A)
    v, cycles = await timed(dut, axil.read_dword(OWNED[2]))
    assert v == 0x5A5A and cycles >= 3 * TIMEOUT
    # a delay without wait longer than TIMEOUT: the bridge gives up first, read data 0
    blk.use_wait = False
    v, cycles = await timed(dut, axil.read_dword(OWNED[2]))
    assert v == 0 and cycles < 3 * TIMEOUT
    await ClockCycles(dut.clk, 4 * TIMEOUT)
    blk.delay = 0
    blk.never = {OWNED[3]}
    v, cycles = await timed(dut, axil.read_dword(OWNED[3]))
    assert v == 0 and WAIT_TIMEOUT <= cycles <= WAIT_TIMEOUT + 8, cycles
    _, cycles = await timed(dut, axil.write_dword(OWNED[3], 1))
    assert WAIT_TIMEOUT <= cycles <= WAIT_TIMEOUT + 8, cycles
    blk.never = set()
    assert await axil.read_dword(OWNED[2]) == 0x5A5A     # still works afterwards


@cocotb.test()
async def test_back_to_back(dut):
    """Back-to-back accesses: each write takes a few cycles, none lost or doubled."""
    axil, blk = await setup(dut)
    n = 64
    _, cycles = await timed(dut, Combine(*[cocotb.start_soon(axil.write_dword(OWNED[i % 4], i)) for i in range(n)]))
    assert len(blk.wr_log) == n and [d for _, d, _ in blk.wr_log] == list(range(n))
    dut._log.info("%d back-to-back writes in %d cycles", n, cycles)
    vals = [cocotb.start_soon(axil.read_dword(OWNED[i % 4])) for i in range(n)]
    await Combine(*vals)
    assert [v.result() for v in vals] == [60 + i % 4 for i in range(n)]
    assert len(blk.rd_log) == n


@cocotb.test()
async def test_concurrent_random(dut):
    """Random reads and writes on both channels at once, with undefined addresses, delays and AXI
    back-pressure; every read returns what the block holds."""
    axil, blk = await setup(dut, pause=True)
    rng = random.Random(11)
    shadow = dict(blk.mem)

    # the writer and the reader work on separate halves of the block, so every read is predictable
    OWN_W = OWNED[:8]
    async def writer_half():
        for _ in range(150):
            a = rng.choice(OWN_W + [0x10, 0x3000])
            v = rng.getrandbits(32)
            await axil.write_dword(a, v)
            if a in shadow:
                shadow[a] = v

    async def reader_half():
        for _ in range(150):
            a = rng.choice(OWNED[8:] + [0x10])
            v = await axil.read_dword(a)
            assert v == shadow.get(a, 0), (hex(a), v)
            if rng.random() < 0.1:
                blk.delay = rng.randrange(0, 6)

    for a in OWNED[8:]:
        v = rng.getrandbits(32)
        await axil.write_dword(a, v)
        shadow[a] = v
    w = cocotb.start_soon(writer_half())
    r = cocotb.start_soon(reader_half())
    await Combine(w, r)
    for a in OWNED:
        assert await axil.read_dword(a) == shadow[a]
