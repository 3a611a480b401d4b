"""Bench for tsnic_rx_dma: frame records are offered on s_info (the bench plays tsnic_rx_buf: its
frame words in a Python RAM behind buf_rd_*), host memory is a cocotbext-axi AxiRam with random
stalls. RX queues are programmed through the register port. Reference model (Python): per queue
enable/PROD/CONS, which frames are dropped (queue disabled or no buffer: CNT_DROP_NOBUF) and, for the
others, the descriptor consumed, the status (BAD_DESC / the frame's own status / TRUNCATED / OK), the
bytes written (strobes: nothing past the frame in the buffer) and the completion record at the same
index with its phase. Buffers at random 64-byte-aligned addresses, many crossing 4 KiB boundaries,
frames up to 9600 bytes (bursts split at 4 KiB and 256 beats: checked on AW); counters at the end."""

import os
import random

import cocotb
from cocotb.triggers import RisingEdge, ReadOnly, FallingEdge, ClockCycles
from cocotbext.axi import AxiBus, AxiRam

from tsnic_clock import start_clock
import tsnic_contract as C

DATA_W = int(os.environ.get("DATA_W", "64"))
BYTES = DATA_W // 8
WORDS = 2048                      # PTR_W = 12: 2^11 words in the frame ring
NQ = 4
MEM = 1 << 24
FILL = 0xEE


def pauses(rng, p):
    while True:
        yield rng.random() < p


class TB:
    def __init__(self, dut, seed):
        self.dut = dut
        self.rng = random.Random(seed)
        start_clock(dut.clk, 4000)
        self.ram = AxiRam(AxiBus.from_prefix(dut, "m_axi"), dut.clk, dut.rst, size=MEM)
        for ch in (self.ram.write_if.aw_channel, self.ram.write_if.w_channel, self.ram.write_if.b_channel,
                   self.ram.read_if.ar_channel, self.ram.read_if.r_channel):
            ch.set_pause_generator(pauses(random.Random(self.rng.getrandbits(32)), 0.2))
        for s in ("reg_wr_en", "reg_rd_en", "s_info_valid", "buf_rd_data"):
            getattr(dut, s).value = 0
        self.words = [0] * WORDS
        self.aw_errors = []
        self.aw_count = 0
        self.rels = []

    async def reset(self):
        self.dut.rst.value = 1
        await ClockCycles(self.dut.clk, 4)
        self.dut.rst.value = 0
        await ClockCycles(self.dut.clk, 2)

    async def buf_port(self):
        """The frame RAM's read port (registered read): a read enabled in cycle c gives its word in
        cycle c+1 (held while no read is enabled). Everything is sampled mid-cycle, after the slave's
        and the bench's writes, i.e. the values the next rising edge takes."""
        d = self.dut
        pending = None
        while True:
            await FallingEdge(d.clk)
            if pending is not None:
                d.buf_rd_data.value = pending
            await ReadOnly()
            pending = self.words[int(d.buf_rd_addr.value)] if d.buf_rd_en.value else None
            if d.buf_rel_valid.value:
                self.rels.append(int(d.buf_rel_ptr.value))
            if d.m_axi_awvalid.value and d.m_axi_awready.value:
                a, n = int(d.m_axi_awaddr.value), int(d.m_axi_awlen.value) + 1
                size = 1 << int(d.m_axi_awsize.value)
                if a // 4096 != (a + n * size - 1) // 4096:
                    self.aw_errors.append(f"AW 0x{a:x} x{n} beats of {size} crosses 4 KiB")
                self.aw_count += 1

    async def wr(self, addr, val):
        d = self.dut
        await FallingEdge(d.clk)
        d.reg_wr_addr.value, d.reg_wr_data.value, d.reg_wr_strb.value, d.reg_wr_en.value = addr, val, 0xF, 1
        while True:
            await RisingEdge(d.clk)
            await ReadOnly()
            if d.reg_wr_ack.value:
                break
        await FallingEdge(d.clk)
        d.reg_wr_en.value = 0

    async def rd(self, addr):
        d = self.dut
        await FallingEdge(d.clk)
        d.reg_rd_addr.value, d.reg_rd_en.value = addr, 1
        while True:
            await RisingEdge(d.clk)
            await ReadOnly()
            if d.reg_rd_ack.value:
                v = int(d.reg_rd_data.value)
                break
        await FallingEdge(d.clk)
        d.reg_rd_en.value = 0
        return v

    async def offer(self, rec):
        d = self.dut
        await FallingEdge(d.clk)
        for k, v in rec.items():
            getattr(d, f"s_info_{k}").value = v
        d.s_info_valid.value = 1
        while True:
            await RisingEdge(d.clk)
            await ReadOnly()
            if d.s_info_ready.value:
                break
        await FallingEdge(d.clk)
        d.s_info_valid.value = 0


@cocotb.test()
async def test_random(dut):
    tb = TB(dut, int(os.environ.get("SEED", "1")))
    await tb.reset()
    cocotb.start_soon(tb.buf_port())
    rng = tb.rng
    qs = {}
    for q in range(NQ):
        log2 = rng.choice([2, 3, 4])
        qs[q] = dict(log2=log2, desc=0x100000 + q * 0x10000, cpl=0x200000 + q * 0x10000, prod=0, cons=0,
                     en=q != 3, slots={}, nobuf=0, frames=0, bytes=0, errs=0, cpls=[])
        qb = C.RXQ_BASE + q * C.RXQ_STRIDE
        await tb.wr(qb + C.RXQ_DESC_BASE_LO, qs[q]["desc"])
        await tb.wr(qb + C.RXQ_CPL_BASE_LO, qs[q]["cpl"])
        await tb.wr(qb + C.RXQ_SIZE_LOG2, log2)
        if qs[q]["en"]:
            await tb.wr(qb + C.RXQ_CTRL, C.RXQ_CTRL_ENABLE)
    assert await tb.rd(C.RXQ_BASE + 2 * C.RXQ_STRIDE + C.RXQ_SIZE_LOG2) == qs[2]["log2"]
    next_buf = [0x400000]

    def post(q, n):
        st = qs[q]
        for _ in range(n):
            if st["prod"] - st["cons"] >= (1 << st["log2"]):
                return
            kind = rng.random()
            length = rng.choice([64, 256, 1500, 2048, 9600, rng.randrange(64, 12000, 64)])
            addr = next_buf[0] + rng.randrange(0, 4096, 64)
            if kind < 0.05:
                addr += 8                        # not 64-byte aligned: BAD_DESC
            elif kind < 0.08:
                length = 0                       # BAD_DESC
            next_buf[0] = (addr + length + 8192) & ~63
            tb.ram.write(addr, bytes([FILL]) * max(length + 128, 128))
            slot = st["prod"] % (1 << st["log2"])
            tb.ram.write(st["desc"] + slot * 16, C.pack_rx_descriptor(addr=addr, len=length))
            st["slots"][st["prod"]] = (addr, length)
            st["prod"] += 1

    async def doorbell(q):
        await tb.wr(C.RXQ_BASE + q * C.RXQ_STRIDE + C.RXQ_PROD, qs[q]["prod"] & 0xFFFF)

    for q in range(NQ):
        post(q, rng.randint(0, 1 << qs[q]["log2"]))
        await doorbell(q)
    wptr = 0
    last_nw = [0]
    expected = []
    n = int(os.environ.get("RXDMA_FRAMES", "120"))
    for i in range(n):
        q = rng.randrange(NQ)
        flen = rng.choice([60, 64, 65, 200, 1514, rng.randint(60, 9600), 9700])
        kept = min(flen, 9600)
        st_in = C.RX_STATUS_BAD_FCS if rng.random() < 0.1 else (C.RX_STATUS_TOO_LONG if flen > 9600 else C.RX_STATUS_OK)
        data = bytes(rng.getrandbits(8) for _ in range(kept))
        nw = (kept + BYTES - 1) // BYTES
        if nw > WORDS:
            continue
        # the frame being written by the DMA (the one offered last) keeps its words: wait until it is
        # given back when this frame's words would wrap onto it
        while len(tb.rels) < len(expected) and nw + last_nw[0] > WORDS:
            await ClockCycles(dut.clk, 10)
        last_nw[0] = nw
        start = wptr
        for k in range(nw):
            tb.words[(start + k) % WORDS] = int.from_bytes(data[k * BYTES:(k + 1) * BYTES].ljust(BYTES, b"\0"), "little")
        wptr = (wptr + nw) % (2 * WORDS)
        ts = rng.getrandbits(64)
        hit = rng.random() < 0.5
        ent = rng.randrange(16) if hit else 0
        st = qs[q]
        # the model: dropped at once, or one descriptor consumed
        if not st["en"] or st["prod"] == st["cons"]:
            st["nobuf"] += 1
            expected.append(("drop", q))
        else:
            addr, blen = st["slots"].pop(st["cons"])
            if blen == 0 or addr % 64:
                status, wlen = C.RX_STATUS_BAD_DESC, 0
            else:
                wlen = min(kept, blen, 65535)
                status = st_in if st_in != C.RX_STATUS_OK else (C.RX_STATUS_TRUNCATED if kept > blen else C.RX_STATUS_OK)
            idx = st["cons"]
            st["cons"] += 1
            st["frames"] += 1
            st["bytes"] += wlen
            st["errs"] += int(status != C.RX_STATUS_OK)
            st["cpls"].append(dict(idx=idx, addr=addr, blen=blen, wlen=wlen, status=status, flen=flen, ts=ts,
                                   hit=hit, ent=ent, data=data))
            expected.append(("cpl", q))
        await tb.offer(dict(queue=q, start=start, end=wptr, len=kept, frame_len=flen, status=st_in, ts=ts,
                            hit=int(hit), entry=ent))
        if rng.random() < 0.7:
            qq = rng.randrange(NQ)
            post(qq, rng.randint(1, 6))
            await doorbell(qq)
    for _ in range(20000):
        await ClockCycles(dut.clk, 10)
        if len(tb.rels) == len(expected):
            break
    await ClockCycles(dut.clk, 20)
    assert len(tb.rels) == len(expected), f"{len(tb.rels)} frames given back, {len(expected)} offered"
    assert not tb.aw_errors, tb.aw_errors[:3]
    errs = []
    for q, st in qs.items():
        size = 1 << st["log2"]
        # the last completion written in each slot (the ring may have wrapped): check those
        last = {}
        for c in st["cpls"]:
            last[c["idx"] % size] = c
        for slot, c in last.items():
            rec = C.unpack_rx_completion(tb.ram.read(st["cpl"] + slot * 32, 32))
            want = dict(arrival_ns=c["ts"], len=c["wlen"], frame_len=c["flen"], ring_index=c["idx"] & 0xFFFF, queue=q,
                        status=c["status"], steer_entry=c["ent"] if c["hit"] else 0,
                        flags=(int(c["hit"]) << 0) | ((((c["idx"] >> st["log2"]) & 1) ^ 1) << 31))
            got = {k: rec[k] for k in want}
            if got != want:
                errs.append(f"q{q} #{c['idx']}: completion {got}, model {want}")
        for c in st["cpls"]:
            if c["wlen"]:
                mem = tb.ram.read(c["addr"], c["wlen"] + 64)
                if mem[:c["wlen"]] != c["data"][:c["wlen"]]:
                    k = next(j for j in range(c["wlen"]) if mem[j] != c["data"][j])
                    errs.append(f"q{q} #{c['idx']}: buffer bytes differ from byte {k} of {c['wlen']}: "
                                f"{mem[k:k + 8].hex()} vs {c['data'][k:k + 8].hex()}")
                if mem[c["wlen"]:] != bytes([FILL]) * 64 and c["blen"] > c["wlen"]:
                    errs.append(f"q{q} #{c['idx']}: written past len {c['wlen']}")
        qb = C.RXQ_BASE + q * C.RXQ_STRIDE
        cnt = [await tb.rd(qb + r) for r in (C.RXQ_CNT_FRAMES, C.RXQ_CNT_BYTES, C.RXQ_CNT_DROP_NOBUF, C.RXQ_CNT_ERRORS,
                                            C.RXQ_CONS)]
        if cnt != [st["frames"], st["bytes"], st["nobuf"], st["errs"], st["cons"] & 0xFFFF]:
            errs.append(f"q{q} counters/CONS {cnt}, model {[st['frames'], st['bytes'], st['nobuf'], st['errs'], st['cons']]}")
    assert not errs, "\n".join(errs[:6])
    ncpl = sum(1 for e in expected if e[0] == "cpl")
    nstat = {s_: sum(1 for st in qs.values() for c in st["cpls"] if c["status"] == s_) for s_ in
             (C.RX_STATUS_OK, C.RX_STATUS_TRUNCATED, C.RX_STATUS_BAD_DESC, C.RX_STATUS_BAD_FCS, C.RX_STATUS_TOO_LONG)}
    dut._log.info("statuses %s", {C.RX_STATUS_NAMES[k]: v for k, v in nstat.items()})
    assert ncpl > 40 and all(nstat.values()), "the mix did not cover every status"
    dut._log.info("%d frames: %s completions, %s dropped (no buffer / disabled), %d write bursts",
                  len(expected), sum(1 for e in expected if e[0] == "cpl"), sum(1 for e in expected if e[0] == "drop"),
                  tb.aw_count)
