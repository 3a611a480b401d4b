"""Pin-level models for the flash controller bench.

QspiFlash: an MT25QU01G-class quad-SPI NOR flash (128 MB), SPI mode 0, driven by the DUT's qspi_clk,
qspi_cs_n, qspi_dq_o/qspi_dq_oe and answering on qspi_dq_i (undriven lines read 1: pull-ups).
Commands: 9Fh READ ID (0x20 0xBB 0x21), 06h WREN, 04h WRDI, 05h RDSR, 70h RFSR, 50h CLFSR, 01h WRSR,
13h 4-byte READ, 0Ch 4-byte FAST READ (8 dummy), 6Ch 4-byte quad output fast read (8 dummy), 12h
4-byte page program, 34h 4-byte quad input page program, DCh 4-byte 64 KB sector erase, 21h 4-byte
4 KB subsector erase. As the datasheet says: program/erase/WRSR need the write-enable latch and
clear it; a page program only clears bits and wraps inside its 256-byte page (more than 256 bytes:
the last 256 count); a command is ignored unless CS# rises on a byte boundary; while busy only
05h/70h are accepted; block-protect bits BP3..0/TB refuse program/erase in the protected sectors
(flag status bits 1 and 4/5); busy lasts the datasheet's typical time divided by `time_scale`
(tPP 0.12 ms, 4 KB erase 50 ms, 64 KB erase 150 ms, WRSR 1.3 ms: the bench divides by 1000 by
default so that a 64 KB erase takes 150 us of simulated time).

IcapModel: records the words written through icap_i (CSIB=0, RDWRB=0, on cycles with icap_ce),
decodes type-1 packets after the sync word (WBSTAR writes, CMD writes: IPROG is recorded with the
WBSTAR value of the moment), and answers type-1 reads of WBSTAR/BOOTSTS on icap_o while RDWRB=1.
"""

from __future__ import annotations

import cocotb
from cocotb.triggers import FallingEdge, First, RisingEdge, Timer
from cocotb.utils import get_sim_time

SIZE_LOG2 = 27
PAGE = 256
SUB = 4096
SECTOR = 65536
JEDEC = bytes([0x20, 0xBB, 0x21])

# datasheet typical times in ns (MT25QU01G)
T_PP_NS = 120_000
T_SSE_NS = 50_000_000
T_SE_NS = 150_000_000
T_W_NS = 1_300_000


class _CsHigh(Exception):
    pass


class QspiFlash:
    def __init__(self, dut, time_scale: int = 1000, size_log2: int = SIZE_LOG2):
        self.dut = dut
        self.size = 1 << size_log2
        self.scale = time_scale
        self.mem: dict[int, bytearray] = {}     # 4 KB subsector index -> contents (absent = erased)
        self.sr = 0                              # bits 7 SRWD, 6 BP3, 5 TB, 4..2 BP2..0, 1 WEL, 0 WIP
        self.fsr_err = 0                         # flag status error bits (5 erase, 4 program, 1 protection)
        self.busy_until = 0
        self.pending_sr = None                   # WRSR value applied when it completes
        self.log: list[tuple] = []               # (opcode, addr or None, data bytes) per executed command
        self.seen: list[int] = []                # every opcode received (executed or not)
        self.spans: list[tuple] = []             # (opcode or None, CS# fall ns, CS# rise ns) per transaction
        self.contention = 0
        self.stuck_busy = False                  # test hook: never become ready
        self.drv_mask = 0
        self.drv_val = 0
        self._apply()
        cocotb.start_soon(self._run())

    # ---- memory ------------------------------------------------------------------------------
    def read_mem(self, addr: int, n: int) -> bytes:
        out = bytearray()
        for i in range(n):
            a = (addr + i) % self.size
            blk = self.mem.get(a // SUB)
            out.append(0xFF if blk is None else blk[a % SUB])
        return bytes(out)

    def write_raw(self, addr: int, data: bytes):
        """Back-door load (no timing, no AND): for boot records set up before reset."""
        for i, b in enumerate(data):
            a = addr + i
            blk = self.mem.setdefault(a // SUB, bytearray(b"\xff" * SUB))
            blk[a % SUB] = b

    def _program(self, addr: int, data: bytes):
        for i, b in enumerate(data):
            a = addr + i
            blk = self.mem.setdefault(a // SUB, bytearray(b"\xff" * SUB))
            blk[a % SUB] &= b

    def _erase(self, addr: int, size: int):
        base = addr - addr % size
        for s in range(base // SUB, (base + size) // SUB):
            self.mem.pop(s, None)

    # ---- status --------------------------------------------------------------------------------
    def now(self) -> int:
        return get_sim_time("ns")

    def busy(self) -> bool:
        if self.stuck_busy:
            return True
        if self.busy_until and self.now() >= self.busy_until:
            self.busy_until = 0
            self.sr &= ~0x02                      # WEL clears when the operation ends
            if self.pending_sr is not None:
                self.sr = (self.sr & 0x03) | (self.pending_sr & 0xFC)
                self.pending_sr = None
        return self.busy_until != 0

    def status(self) -> int:
        b = self.busy()
        return (self.sr & 0xFE) | (1 if b else 0)

    def flag_status(self) -> int:
        return (0 if self.busy() else 0x80) | self.fsr_err

    def _start_busy(self, t_ns: int):
        self.busy_until = self.now() + max(1, t_ns // self.scale)

    def protected(self, addr: int) -> bool:
        bp = ((self.sr >> 2) & 0x7) | ((self.sr >> 3) & 0x8)
        if bp == 0:
            return False
        nsec = self.size // SECTOR
        prot = min(nsec, 1 << (bp - 1))
        sec = addr // SECTOR
        if self.sr & 0x20:                        # TB=1: from the bottom
            return sec < prot
        return sec >= nsec - prot

    # ---- pins ----------------------------------------------------------------------------------
    def _apply(self):
        v = (self.drv_val & self.drv_mask) | (0xF & ~self.drv_mask)
        self.dut.qspi_dq_i.value = v

    def _drive(self, mask: int, val: int):
        self.drv_mask, self.drv_val = mask, val
        self._apply()

    def _in(self) -> int:
        oe = int(self.dut.qspi_dq_oe.value)
        o = int(self.dut.qspi_dq_o.value)
        return (o & oe) | (0xF & ~oe)

    async def _rise(self) -> int:
        """Next SCK rising edge: the lines as the flash sees them. CS# high first: _CsHigh."""
        t = await First(RisingEdge(self.dut.qspi_clk), RisingEdge(self.dut.qspi_cs_n))
        if int(self.dut.qspi_cs_n.value) == 1:
            raise _CsHigh()
        del t
        return self._in()

    async def _fall(self):
        await First(FallingEdge(self.dut.qspi_clk), RisingEdge(self.dut.qspi_cs_n))
        if int(self.dut.qspi_cs_n.value) == 1:
            raise _CsHigh()

    async def _shift_in(self, nbits: int) -> int:
        v = 0
        for _ in range(nbits):
            v = (v << 1) | (await self._rise() & 1)
        return v

    async def _end(self) -> bool:
        """True when CS# rises before another clock: the command ends on a byte boundary."""
        try:
            await self._rise()
        except _CsHigh:
            return True
        return False

    async def _out(self, gen, quad: bool):
        """Drive bytes from gen (called with the byte index) until CS# rises."""
        i = 0
        mask = 0xF if quad else 0x2
        while True:
            b = gen(i)
            for k in ((4, 0) if quad else range(7, -1, -1)):
                await self._fall()
                if int(self.dut.qspi_dq_oe.value) & mask:
                    self.contention += 1
                if quad:
                    self._drive(0xF, (b >> k) & 0xF)
                else:
                    self._drive(0x2, ((b >> k) & 1) << 1)
            i += 1

    async def _data_in(self, quad: bool) -> bytes:
        """Bytes written until CS# rises; a partial last byte is dropped."""
        out = bytearray()
        v, n = 0, 0
        try:
            while True:
                x = await self._rise()
                if quad:
                    v, n = (v << 4) | x, n + 4
                else:
                    v, n = (v << 1) | (x & 1), n + 1
                if n == 8:
                    out.append(v & 0xFF)
                    v, n = 0, 0
        except _CsHigh:
            pass
        return bytes(out)

    async def _run(self):
        await Timer(1, units="ns")            # past time 0, where the pins are still X
        while True:
            if int(self.dut.qspi_cs_n.value) == 1:
                await FallingEdge(self.dut.qspi_cs_n)
            t0 = self.now()
            n = len(self.seen)
            try:
                await self._transaction()
            except _CsHigh:
                pass
            self._drive(0, 0)
            if int(self.dut.qspi_cs_n.value) == 0:
                await RisingEdge(self.dut.qspi_cs_n)
            self.spans.append((self.seen[n] if len(self.seen) > n else None, t0, self.now()))

    async def _transaction(self):
        op = await self._shift_in(8)
        self.seen.append(op)
        if op == 0x05:
            self.log.append((op, None, b""))
            await self._out(lambda i: self.status(), False)
        if op == 0x70:
            self.log.append((op, None, b""))
            await self._out(lambda i: self.flag_status(), False)
        if self.busy():
            return                                   # everything else is ignored while busy
        if op == 0x9F:
            self.log.append((op, None, b""))
            await self._out(lambda i: JEDEC[i] if i < 3 else 0x00, False)
        elif op in (0x06, 0x04, 0x50):
            if await self._end():
                self.log.append((op, None, b""))
                if op == 0x06:
                    self.sr |= 0x02
                elif op == 0x04:
                    self.sr &= ~0x02
                else:
                    self.fsr_err = 0
        elif op == 0x01:
            data = await self._data_in(False)
            if len(data) >= 1 and self.sr & 0x02:
                self.log.append((op, None, data[:1]))
                self.pending_sr = data[0]
                self._start_busy(T_W_NS)
        elif op in (0x13, 0x0C, 0x6C):
            addr = await self._shift_in(32)
            if op != 0x13:
                for _ in range(8):
                    await self._rise()
            self.log.append((op, addr, b""))
            await self._out(lambda i: self.read_mem(addr + i, 1)[0], op == 0x6C)
        elif op in (0x12, 0x34):
            addr = await self._shift_in(32)
            data = await self._data_in(op == 0x34)
            if not (self.sr & 0x02) or not data:
                return
            self.log.append((op, addr, data))
            if self.protected(addr):
                self.fsr_err |= 0x12
                self._start_busy(1000 * self.scale)  # a short busy, as the device does
                return
            page = addr - addr % PAGE
            latched = {}
            for i, b in enumerate(data):             # wraps in the page; later bytes replace earlier
                latched[(addr % PAGE + i) % PAGE] = b
            for off, b in latched.items():
                self._program(page + off, bytes([b]))
            self._start_busy(T_PP_NS)
        elif op in (0xDC, 0x21):
            addr = await self._shift_in(32)
            if not await self._end() or not (self.sr & 0x02):
                return
            self.log.append((op, addr, b""))
            size = SECTOR if op == 0xDC else SUB
            if self.protected(addr):
                self.fsr_err |= 0x22
                self._start_busy(1000 * self.scale)
                return
            self._erase(addr % self.size, size)
            self._start_busy(T_SE_NS if op == 0xDC else T_SSE_NS)
        # unknown opcodes: ignored


# ICAP configuration packet words
DUMMY = 0xFFFFFFFF
SYNC = 0xAA995566
NOOP = 0x20000000
REG_CMD, REG_WBSTAR, REG_BOOTSTS = 0x04, 0x10, 0x16
CMD_IPROG, CMD_DESYNC = 0x0F, 0x0D


class IcapModel:
    def __init__(self, dut, wbstar: int = 0, bootsts: int = 0x1):
        self.dut = dut
        self.regs = {REG_WBSTAR: wbstar, REG_BOOTSTS: bootsts}
        self.words: list[int] = []      # every word written
        self.iprogs: list[int] = []     # WBSTAR at each IPROG
        self.reads: list[int] = []      # registers read
        self.synced = False
        self._wr_reg = None
        self._rd_reg = None
        dut.icap_o.value = 0
        cocotb.start_soon(self._run())

    def _word(self, w: int):
        self.words.append(w)
        if not self.synced:
            if w == SYNC:
                self.synced = True
            return
        if self._wr_reg is not None:
            reg, self._wr_reg = self._wr_reg, None
            if reg == REG_CMD:
                if w == CMD_IPROG:
                    self.iprogs.append(self.regs.get(REG_WBSTAR, 0))
                elif w == CMD_DESYNC:
                    self.synced = False
            else:
                self.regs[reg] = w
            return
        if (w >> 29) == 1:
            op = (w >> 27) & 3
            reg = (w >> 13) & 0x1F
            cnt = w & 0x7FF
            if op == 2 and cnt == 1:
                self._wr_reg = reg
            elif op == 1 and cnt == 1:
                self._rd_reg = reg
                self.reads.append(reg)

    async def _run(self):
        dut = self.dut
        await Timer(1, units="ns")
        while True:
            if int(dut.icap_csib.value) == 1:
                await FallingEdge(dut.icap_csib)
            idle = 0
            while idle < 64:                  # follow cycle by cycle until CSIB stays high a while
                await FallingEdge(dut.clk)    # the values the next rising edge samples
                csib = int(dut.icap_csib.value)
                idle = idle + 1 if csib else 0
                if not int(dut.icap_ce.value):
                    continue
                rdwrb = int(dut.icap_rdwrb.value)
                if csib == 0 and rdwrb == 0:
                    self._word(int(dut.icap_i.value))
                elif csib == 0 and rdwrb == 1 and self._rd_reg is not None:
                    dut.icap_o.value = self.regs.get(self._rd_reg, 0)
