"""Bench for tsnic_flash_ctrl (GOLDEN=1): register block, SPI commands against a pin-level NOR model,
ICAP sequences, and the golden boot selector.

Scoreboard: `Ref` is a byte-level model of what the flash must hold after each command the bench
issues (erase -> 0xFF, program -> AND, refused -> unchanged), written from the command semantics and
independent of both the RTL and the pin-level model; every READ through the DUT is compared with it,
and at the end the pin model's memory too. The boot selector's choice is compared with `decide()`,
a Python statement of the rule in docs/FIRMWARE.md.
"""

from __future__ import annotations

import os
import random
import struct
import zlib

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, RisingEdge, Timer

from tsnic_clock import start_clock
import tsnic_contract as C
from flash_model import (CMD_IPROG, DUMMY, NOOP, SYNC, IcapModel, QspiFlash, SECTOR, SUB)
from tsnic_regif_master import RegIfMaster

CLK_NS = 4
SOAK = os.environ.get("SOAK", "") not in ("", "0")
SIZE = 1 << 27
BOOT_BASE = 0x07FF0000

OP_READ_ID, OP_READ, OP_PROGRAM, OP_ERASE_64K, OP_ERASE_4K = 1, 2, 3, 4, 5
OP_READ_STATUS, OP_WRITE_STATUS, OP_IPROG, OP_FIFO_RESET = 6, 7, 8, 9


class Ref:
    """Expected flash contents."""

    def __init__(self):
        self.mem: dict[int, int] = {}

    def get(self, a, n):
        return bytes(self.mem.get(a + i, 0xFF) for i in range(n))

    def program(self, a, data):
        for i, b in enumerate(data):
            self.mem[a + i] = self.mem.get(a + i, 0xFF) & b

    def erase(self, a, size):
        base = a - a % size
        for k in [k for k in self.mem if base <= k < base + size]:
            del self.mem[k]


class TB:
    def __init__(self, dut, wbstar=0, bootsts=0x1, icap_ce_toggle=False):
        self.dut = dut
        self.reg = RegIfMaster(dut, dut.clk)
        self.flash = QspiFlash(dut)
        self.icap = IcapModel(dut, wbstar=wbstar, bootsts=bootsts)
        self.ref = Ref()
        start_clock(dut.clk, CLK_NS * 1000)
        dut.qspi_dq_i.value = 0xF
        dut.phc_ns.value = 0          # no PHC here: the gap between busy polls ends by its cycle count
        self.ce_toggle = icap_ce_toggle
        self.ce_started = False
        dut.icap_ce.value = 1

    async def reset(self, wait_idle=True):
        self.dut.rst.value = 1
        await ClockCycles(self.dut.clk, 4)
        self.dut.rst.value = 0
        if self.ce_toggle and not self.ce_started:
            self.ce_started = True
            await Timer(1, units="ns")
            cocotb.start_soon(Clock(self.dut.icap_ce, 2 * CLK_NS, units="ns").start())
        if wait_idle:
            await self.wait_idle()

    async def status(self):
        return await self.reg.read(C.FLASH_STATUS)

    async def wait_idle(self, limit_us=5000):
        for _ in range(limit_us * 4):
            st = await self.status()
            if not st & C.FLASH_STATUS_BUSY:
                return st
            await Timer(250, units="ns")
        raise AssertionError("flash controller still BUSY")

    async def cmd(self, op, addr=None, length=None):
        if addr is not None:
            await self.reg.write(C.FLASH_ADDR, addr)
        if length is not None:
            await self.reg.write(C.FLASH_LEN, length)
        await self.reg.write(C.FLASH_CMD, op)
        return await self.wait_idle()

    async def push(self, data: bytes):
        for i in range(0, len(data), 4):
            w = data[i:i + 4].ljust(4, b"\x00")
            await self.reg.write(C.FLASH_DATA, struct.unpack("<I", w)[0])

    async def pop(self, n: int) -> bytes:
        out = bytearray()
        for _ in range((n + 3) // 4):
            out += struct.pack("<I", await self.reg.read(C.FLASH_DATA))
        return bytes(out[:n])

    async def read(self, addr, n):
        st = await self.cmd(OP_READ, addr, n)
        assert not st & C.FLASH_STATUS_ERROR, f"READ {addr:#x}+{n} failed: status {st:#x}"
        return await self.pop(n)

    async def program(self, addr, data, expect_ok=True):
        await self.push(data)
        st = await self.cmd(OP_PROGRAM, addr, len(data))
        ok = not st & C.FLASH_STATUS_ERROR
        assert ok == expect_ok, f"PROGRAM {addr:#x}+{len(data)}: status {st:#x}"
        if ok:
            self.ref.program(addr, data)
        return st

    async def erase(self, addr, big, expect_ok=True):
        st = await self.cmd(OP_ERASE_64K if big else OP_ERASE_4K, addr)
        ok = not st & C.FLASH_STATUS_ERROR
        assert ok == expect_ok, f"ERASE {addr:#x}: status {st:#x}"
        if ok:
            self.ref.erase(addr, SECTOR if big else SUB)
        return st

    async def check(self, addr, n):
        got = await self.read(addr, n)
        exp = self.ref.get(addr, n)
        assert got == exp, f"read {addr:#x}+{n}: got {got.hex()} expected {exp.hex()}"


# ---------------------------------------------------------------------------------------------
@cocotb.test()
async def test_startup_handover_clocks(dut):
    """STARTUPE3/E2 spends the first three USRCCLKO edges after configuration handing CCLK over
    (UG570): the first transaction after a reset comes after at least 3 SCK rising edges with CS#
    high, later ones do not, and commands still read the right JEDEC ID."""
    tb = TB(dut)
    edges = {"before_cs": 0, "cs_seen": False}

    async def watch():
        while True:
            await RisingEdge(dut.qspi_clk)
            if int(dut.qspi_cs_n.value) == 1 and not edges["cs_seen"]:
                edges["before_cs"] += 1
            elif int(dut.qspi_cs_n.value) == 0:
                edges["cs_seen"] = True

    cocotb.start_soon(watch())
    await tb.reset()          # (the bench's core is the golden image: its boot selector reads first)
    st = await tb.cmd(OP_READ_ID)
    assert not st & C.FLASH_STATUS_ERROR
    assert await tb.reg.read(C.FLASH_JEDEC_ID) == 0x21BB20
    assert edges["cs_seen"] and edges["before_cs"] >= 3, edges
    # only after a reset: the next command starts at once
    edges.update(before_cs=0, cs_seen=False)
    await tb.cmd(OP_READ_ID)
    assert edges["before_cs"] == 0, edges


@cocotb.test()
async def test_cap_id_status(dut):
    """CAP, CLK_DIV reset value, READ_ID, READ_STATUS, FIFO levels and FIFO_RESET."""
    tb = TB(dut, wbstar=0x01230000, bootsts=0x00090003)
    await tb.reset()
    cap = await tb.reg.read(C.FLASH_CAP)
    assert cap == (27 << 16) | (1 << 8) | (1 << 24), hex(cap)          # generic, writable, 128 MB, golden
    assert await tb.reg.read(C.FLASH_CLK_DIV) == 2                     # 250 MHz / 6 = 41.7 MHz <= 50
    assert await tb.reg.read(C.FLASH_BOOT_WBSTAR) == 0x01230000
    bs = await tb.reg.read(C.FLASH_BOOT_STATUS)
    assert bs & C.FLASH_BOOT_STATUS_FALLBACK and (bs >> 16) == 0x0003, hex(bs)
    assert tb.icap.reads == [0x10, 0x16], tb.icap.reads                # WBSTAR, then BOOTSTS
    for div in (0, 1, 2, 5):
        await tb.reg.write(C.FLASH_CLK_DIV, div)
        st = await tb.cmd(OP_READ_ID)
        assert not st & C.FLASH_STATUS_ERROR
        assert await tb.reg.read(C.FLASH_JEDEC_ID) == 0x21BB20
    st = await tb.cmd(OP_READ_STATUS)
    assert not st & C.FLASH_STATUS_ERROR
    assert await tb.reg.read(C.FLASH_SR) == 0x8000                     # ready, nothing protected
    # FIFOs: fill the write FIFO, overflow sets ERROR, FIFO_RESET empties
    assert st & C.FLASH_STATUS_RD_EMPTY
    await tb.push(bytes(range(256)))
    st = await tb.status()
    assert (st >> 16) & 0xFF == 64 and st & C.FLASH_STATUS_WR_FULL and not st & C.FLASH_STATUS_ERROR
    await tb.reg.write(C.FLASH_DATA, 0x12345678)
    assert (await tb.status()) & C.FLASH_STATUS_ERROR
    st = await tb.cmd(OP_FIFO_RESET)
    assert (st >> 16) & 0xFF == 0 and not st & C.FLASH_STATUS_ERROR
    assert await tb.reg.read(C.FLASH_DATA) == 0                        # empty read FIFO reads 0
    assert tb.flash.contention == 0


@cocotb.test()
async def test_random_roundtrip(dut):
    """Random erase / program / read at random addresses and lengths against the reference."""
    rng = random.Random(int(os.environ.get("SEED", "12")))
    tb = TB(dut)
    await tb.reset()
    # a few 64 KB sectors spread over the whole flash, programmed and erased in pieces
    sectors = [rng.randrange(SIZE // SECTOR) * SECTOR for _ in range(4)] + [SIZE - SECTOR]
    nops = 400 if SOAK else 48
    touched = []
    for _ in range(nops):
        await tb.reg.write(C.FLASH_CLK_DIV, rng.choice((0, 1, 2)))
        base = rng.choice(sectors)
        r = rng.random()
        if r < 0.06:
            await tb.erase(base + rng.randrange(SECTOR), big=True)
        elif r < 0.16:
            await tb.erase(base + rng.randrange(SECTOR), big=False)
        elif r < 0.6:
            a = base + rng.randrange(SECTOR)
            room = 256 - a % 256
            n = rng.randint(1, room)
            data = bytes(rng.randrange(256) for _ in range(n))
            await tb.program(a, data)
            touched.append((a, n))
        else:
            a = base + rng.randrange(SECTOR - 256)
            await tb.check(a, rng.randint(1, 256))
    for a, n in touched[-10:]:
        await tb.check(a, n)
    # the pin model's memory equals the reference everywhere the bench wrote
    for a in list(tb.ref.mem)[:5000]:
        assert tb.flash.read_mem(a, 1)[0] == tb.ref.mem[a], hex(a)
    assert tb.flash.contention == 0


@cocotb.test()
async def test_directed_program(dut):
    """Full page, wrap-free page-end program, bits only cleared, read across pages and the flash end."""
    tb = TB(dut)
    await tb.reset()
    page = 0x0123400
    await tb.erase(page, big=False)
    data = bytes((i * 7 + 3) & 0xFF for i in range(256))
    await tb.program(page, data)
    await tb.check(page, 256)
    await tb.program(page + 16, bytes([0xF0] * 8))          # AND with what is there
    await tb.check(page, 64)
    await tb.program(page + 0x1FF, b"\x5a")                  # last byte of the next page
    await tb.check(page + 0x1F0, 32)                         # read across the page boundary
    await tb.check(SIZE - 100, 100)                          # up to the last byte
    for n in (1, 2, 3, 5, 255):                              # odd lengths: zero-padded last word
        got = await tb.read(page, n)
        assert got == tb.ref.get(page, n)
        assert (await tb.status()) & C.FLASH_STATUS_RD_EMPTY
    # the program went as 34h (quad) and the read as 6Ch (quad), with 4-byte addresses
    ops = [e[0] for e in tb.flash.log]
    assert 0x34 in ops and 0x6C in ops and 0x06 in ops
    assert any(e[0] == 0x34 and e[1] == page and len(e[2]) == 256 for e in tb.flash.log)


@cocotb.test()
async def test_refused_arguments(dut):
    """Bad arguments: ERROR and nothing sent to the flash."""
    tb = TB(dut)
    await tb.reset()
    await tb.push(bytes(8))
    cases = [
        (OP_PROGRAM, 0x1000F8, 9),        # crosses a page (8 bytes left in it)
        (OP_PROGRAM, 0x100000, 0),
        (OP_PROGRAM, 0x100000, 257),
        (OP_PROGRAM, 0x100000, 12),       # only 8 bytes in the write FIFO
        (OP_READ, 0x100000, 0),
        (OP_READ, 0x100000, 300),
        (OP_READ, SIZE - 4, 8),           # past the end of the flash
        (OP_ERASE_4K, SIZE, None),
        (0, 0, None),                     # unknown ops
        (12, 0, None),
    ]
    for op, addr, n in cases:
        before = len(tb.flash.seen)
        st = await tb.cmd(op, addr, n)
        assert st & C.FLASH_STATUS_ERROR, (op, hex(addr), n)
        assert len(tb.flash.seen) == before, f"op {op} reached the flash: {tb.flash.seen[before:]}"
    # the 8 bytes are still in the write FIFO; a good command clears ERROR
    st = await tb.cmd(OP_READ_ID)
    assert not st & C.FLASH_STATUS_ERROR and (st >> 16) & 0xFF == 2
    # a READ that does not fit in the read FIFO: 60 words queued, a 32-byte READ needs 8
    for _ in range(3):
        await tb.cmd(OP_READ, 0, 80)
    st = await tb.cmd(OP_READ, 0, 32)
    assert (st >> 8) & 0xFF == 60 and st & C.FLASH_STATUS_ERROR, hex(st)
    st = await tb.cmd(OP_READ, 0, 16)
    assert (st >> 8) & 0xFF == 64 and not st & C.FLASH_STATUS_ERROR, hex(st)


@cocotb.test()
async def test_protection(dut):
    """Block protection: program and erase in the protected top sectors fail with ERROR; outside work."""
    tb = TB(dut)
    await tb.reset()
    top = SIZE - SECTOR
    await tb.erase(top, big=False)
    await tb.program(top + 0x10, b"\x11\x22\x33\x44")
    # BP = 0b0011 (BP0, BP1), TB = 0: the top 4 sectors are protected
    await tb.reg.write(C.FLASH_DATA_SR, 0x0C)
    st = await tb.cmd(OP_WRITE_STATUS)
    assert not st & C.FLASH_STATUS_ERROR
    st = await tb.cmd(OP_READ_STATUS)
    assert (await tb.reg.read(C.FLASH_SR)) & 0xFF == 0x0C
    await tb.program(top + 0x20, b"\x00\x00", expect_ok=False)
    sr = await tb.reg.read(C.FLASH_SR)
    assert (sr >> 8) & 0x12 == 0x12, hex(sr)                  # program + protection error flags seen
    await tb.erase(top, big=True, expect_ok=False)
    await tb.erase(SIZE - 4 * SECTOR, big=False, expect_ok=False)
    await tb.check(top, 64)                                   # unchanged
    # the flag status was cleared (50h) after each error: a READ_STATUS now shows none
    await tb.cmd(OP_READ_STATUS)
    assert (await tb.reg.read(C.FLASH_SR)) >> 8 == 0x80
    # outside the protected area all works
    await tb.erase(SIZE - 5 * SECTOR, big=False)
    await tb.program(SIZE - 5 * SECTOR, b"\xAA" * 16)
    await tb.check(SIZE - 5 * SECTOR, 16)
    # unprotect, then the top works again
    await tb.reg.write(C.FLASH_DATA_SR, 0x00)
    await tb.cmd(OP_WRITE_STATUS)
    await tb.program(top + 0x20, b"\x00\x00")
    await tb.check(top, 64)


@cocotb.test()
async def test_busy_refused(dut):
    """A command while BUSY (a 64 KB erase polling) is refused with ERROR; the erase still completes."""
    tb = TB(dut)
    await tb.reset()
    a = 0x00450000
    await tb.program(a + 0x100, b"\x00" * 16)
    await tb.reg.write(C.FLASH_ADDR, a)
    await tb.reg.write(C.FLASH_CMD, OP_ERASE_64K)
    t0 = cocotb.utils.get_sim_time("ns")
    await Timer(2000, units="ns")
    st = await tb.status()
    assert st & C.FLASH_STATUS_BUSY
    await tb.reg.write(C.FLASH_CMD, OP_READ_ID)
    st = await tb.status()
    assert st & C.FLASH_STATUS_BUSY and st & C.FLASH_STATUS_ERROR, hex(st)
    await tb.wait_idle()
    t1 = cocotb.utils.get_sim_time("ns")
    assert t1 - t0 >= 150_000, "the erase must take the model's busy time (150 us scaled)"
    tb.ref.erase(a, SECTOR)
    assert tb.flash.log.count((0x70, None, b"")) > 10          # the hardware polled
    await tb.check(a + 0xF0, 64)
    st = await tb.cmd(OP_READ_ID)                              # the next command clears ERROR
    assert not st & C.FLASH_STATUS_ERROR


@cocotb.test()
async def test_poll_timeout(dut):
    """A flash that never becomes ready: the busy poll gives up (2^16 cycles here) with ERROR."""
    tb = TB(dut)
    await tb.reset()
    tb.flash.stuck_busy = True
    st = await tb.cmd(OP_ERASE_4K, 0x2000)
    assert st & C.FLASH_STATUS_ERROR, hex(st)
    tb.flash.stuck_busy = False


@cocotb.test()
async def test_iprog_sequence(dut):
    """IPROG: exactly dummy, sync, NOOP, WBSTAR write, address, CMD write, IPROG, NOOP (ICAP CE at half rate)."""
    tb = TB(dut, icap_ce_toggle=True)
    await tb.reset()
    n0 = len(tb.icap.words)
    st = await tb.cmd(OP_IPROG, 0x02000000)
    assert not st & C.FLASH_STATUS_ERROR
    assert tb.icap.words[n0:] == [DUMMY, SYNC, NOOP, 0x30020001, 0x02000000, 0x30008001, CMD_IPROG, NOOP], \
        [hex(w) for w in tb.icap.words[n0:]]
    assert tb.icap.iprogs == [0x02000000]


@cocotb.test()
async def test_page_timing(dut):
    """The SPI part of a 256-byte PROGRAM and READ at the reset CLK_DIV (2: 41.7 MHz SCK at 250 MHz),
    against the cycle formula in docs/ARCHITECTURE.md; prints the figures (docs/BENCHMARKS.md)."""
    tb = TB(dut)
    await tb.reset()
    div = await tb.reg.read(C.FLASH_CLK_DIV)
    h = div + 1                                    # core cycles per SCK half period

    def cycles(clocks):                            # one transaction: start, clocks, CS# hold, deselect
        return 1 + 2 * h * clocks + h + 16

    await tb.erase(0x300000, big=False)
    tb.flash.spans.clear()
    await tb.program(0x300000, bytes(range(256)))
    sp = tb.flash.spans
    assert [s[0] for s in sp[:2]] == [0x06, 0x34], sp
    wren = (sp[0][2] - sp[0][1]) / CLK_NS
    pp = (sp[1][2] - sp[1][1]) / CLK_NS
    assert wren == 2 * h * 8 + h, wren                 # CS# low time: 8 clocks + the hold half period
    assert pp == 2 * h * (8 + 32 + 512) + h, pp
    spi_ns = (sp[1][2] - sp[0][1]) + 16 * CLK_NS       # first CS# fall .. CS# ready for the first poll
    poll = (sp[2][2] - sp[2][1]) / CLK_NS
    tb.flash.spans.clear()
    await tb.check(0x300000, 256)
    rd = tb.flash.spans[0]
    assert rd[0] == 0x6C and (rd[2] - rd[1]) / CLK_NS == 2 * h * (8 + 32 + 8 + 512) + h
    dut._log.info("FLASH timing at CLK_DIV=%d (SCK %.1f MHz): PROGRAM 256 B SPI part (WREN + 34h) %.2f us "
                  "= %d + %d cycles; each busy poll (70h) %d cycles; READ 256 B (6Ch) %.2f us",
                  div, 250 / (2 * h), spi_ns / 1000, cycles(8), cycles(552), poll + 17,
                  (rd[2] - rd[1] + 17 * CLK_NS) / 1000)


# ---------------------------------------------------------------------------------------------
# boot selector
def record(active, gen, a_addr=0x01000000, a_len=0x100000, b_addr=0x04000000, b_len=0x100000, flags=0,
           magic=0x52425354, version=1, corrupt=False):
    body = struct.pack("<IHBBIIIIII", magic, version, active, 0, gen, a_addr, a_len, b_addr, b_len, flags)
    body += bytes(range(64)) + bytes(28)
    crc = zlib.crc32(body)
    if corrupt:
        body = body[:40] + bytes([body[40] ^ 1]) + body[41:]
    return body + struct.pack("<I", crc)


def parse(rec: bytes):
    magic, version, active, _, gen, a_addr, a_len, b_addr, b_len, flags = struct.unpack_from("<IHBBIIIIII", rec)
    ok = magic == 0x52425354 and version == 1 and zlib.crc32(rec[:124]) == struct.unpack_from("<I", rec, 124)[0]
    return ok, dict(active=active, gen=gen, addr=(a_addr, b_addr), len=(a_len, b_len), flags=flags)


def decide(rec0, rec1, fallback):
    """(IPROG address or None, golden-chose bit, tried slot) per docs/FIRMWARE.md."""
    cands = [p for ok, p in (parse(rec0), parse(rec1)) if ok]
    if len(cands) == 2:
        d = (cands[1]["gen"] - cands[0]["gen"]) & 0xFFFFFFFF
        best = cands[1] if (d != 0 and d < 0x80000000) else cands[0]
    elif cands:
        best = cands[0]
    else:
        return None, 0, 0
    act = best["active"]
    if act not in (0, 1):
        return None, 0, 0

    def usable(s):
        return best["len"][s] != 0 and not (best["flags"] >> s) & 1

    tried = act if usable(act) else (1 - act if usable(1 - act) else None)
    if tried is None:
        return None, 0, 0
    if not fallback:
        return best["addr"][tried], 0, 0
    other = 1 - tried
    return (best["addr"][other] if usable(other) else None), 1, tried


async def boot_case(tb, rec0, rec1, fallback):
    """Power up the golden image over this flash content: a fresh flash and ICAP history."""
    tb.flash.mem.clear()
    tb.flash.log.clear()
    tb.icap.regs[0x16] = 0x3 if fallback else 0x1
    tb.icap.iprogs.clear()
    tb.flash.write_raw(BOOT_BASE, rec0)
    tb.flash.write_raw(BOOT_BASE + 4096, rec1)
    await tb.reset()
    exp_addr, exp_chose, exp_tried = decide(rec0, rec1, fallback)
    got = tb.icap.iprogs
    assert got == ([] if exp_addr is None else [exp_addr]), (got, exp_addr)
    bs = await tb.reg.read(C.FLASH_BOOT_STATUS)
    assert (bs >> 1) & 1 == exp_chose and (bs >> 2) & 3 == exp_tried and bs & 1 == int(fallback), hex(bs)
    # the selector only read: every flash command it sent was a quad read of a record copy
    assert all(e[0] == 0x6C and e[1] in (BOOT_BASE, BOOT_BASE + 4096) for e in tb.flash.log), tb.flash.log
    return exp_addr


@cocotb.test()
async def test_boot_select_directed(dut):
    """Valid/invalid/older/wrapped/bad/fallback/stay-golden cases."""
    blank = b"\xff" * 128
    A, B = 0x01000000, 0x04000000
    cases = [
        (record(0, 5), record(1, 6), False, B),                         # newer copy wins
        (record(0, 7), record(1, 6), False, A),                         # older copy loses
        (record(0, 7), record(1, 9, corrupt=True), False, A),           # bad crc ignored
        (record(0, 7, magic=0x12345678), record(1, 2), False, B),       # bad magic ignored
        (record(0, 7, version=2), blank, False, None),                  # bad version, blank: stay golden
        (record(0, 0xFFFFFFFF), record(1, 1), False, B),                # generation wraps
        (record(0, 3, flags=1), blank, False, B),                       # active A flagged bad: B
        (record(1, 3, flags=3), blank, False, None),                    # both bad: stay golden
        (record(0, 3), blank, True, B),                                 # fallback after A: B
        (record(0, 3, b_len=0), blank, True, None),                     # fallback, B empty: golden
        (record(1, 3, flags=1), blank, True, None),                     # fallback after B, A bad
        (record(0xFF, 3), blank, False, None),                          # active = stay golden
        (blank, blank, False, None),                                    # no record
    ]
    tb = TB(dut)
    for rec0, rec1, fb, want in cases:
        got = await boot_case(tb, rec0, rec1, fb)
        assert got == want, (got, want)


@cocotb.test()
async def test_boot_select_random(dut):
    rng = random.Random(int(os.environ.get("SEED", "7")))
    tb = TB(dut)
    for _ in range(40 if SOAK else 10):
        recs = []
        for _ in range(2):
            kind = rng.random()
            if kind < 0.15:
                recs.append(b"\xff" * 128)
            else:
                recs.append(record(rng.choice((0, 1, 1, 0, 0xFF)), rng.randrange(1 << 32),
                                   a_addr=rng.randrange(1, 64) << 20, a_len=rng.choice((0, 1 << 20, 1 << 20)),
                                   b_addr=rng.randrange(64, 127) << 20, b_len=rng.choice((0, 1 << 20, 1 << 20)),
                                   flags=rng.choice((0, 0, 1, 2, 3)), corrupt=rng.random() < 0.15))
        await boot_case(tb, recs[0], recs[1], rng.random() < 0.3)
