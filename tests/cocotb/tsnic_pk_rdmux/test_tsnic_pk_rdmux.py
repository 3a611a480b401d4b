"""cocotb bench for tsnic_pk_rdmux, the packed format's ordered read mux (docs/DATAPATH.md, "Packed
transmit format", transmit side), with a real tsnic_pk_buf on its on-card side (tb_tsnic_pk_rdmux.v).

The host is a Python model: every AR it takes is answered, in order, after a random latency, with
words that are a function of the address, with random gaps in rvalid. The buffer is filled before
the reads (whole frames, as tsnic_pk_parse guarantees). Reads are a random mix of host reads and
on-card reads (araddr[63], chunk in bits 16+, offset in bits 15:0, offsets past the chunk's 512
bytes included), issued back to back with random gaps; the prefetch side's rready is random.
Checked: the R beats the prefetch sees are exactly the reads' words in AR order, each read's rlast
on its last word only, its ID, rresp OKAY; no host read goes to the buffer or the other way
(the host model sees exactly the host reads); the R output holds while stalled.
"""

import os
import random

import cocotb
from cocotb.triggers import FallingEdge, ReadOnly

from tsnic_clock import start_clock

DATA_W = int(os.environ.get("DATA_W", "64"))
WB = DATA_W // 8
WPC = 512 // WB


def host_word(addr):
    """The host memory's bus word at addr (a function of the address)."""
    rng = random.Random(addr * 7919 + 11)
    return rng.getrandbits(DATA_W)


class TB:
    def __init__(self, dut, seed):
        self.dut = dut
        self.rng = random.Random(seed)
        start_clock(dut.clk, 4000)
        for name in ("s_axi_arvalid", "m_axi_arready", "m_axi_rvalid", "alloc_en", "alloc_link",
                     "wr_en", "rst", "m_axi_rlast", "m_axi_rdata", "s_axi_arid", "s_axi_araddr",
                     "s_axi_arlen", "alloc_prev", "wr_chunk", "wr_word", "wr_data"):
            getattr(dut, name).value = 0
        dut.s_axi_rready.value = 1
        dut.m_axi_rresp.value = 0
        dut.m_axi_rid.value = 0
        self.cycle = 0
        self.host_ars = []          # (id, addr, len) as the host took them
        self.host_q = []            # beats to send: (due_cycle, id, data, last)
        self.got = []               # (id, data, last, resp, cycle)
        self.errors = []
        self.rready_p = 1.0
        self.host_lat = (15, 60)
        cocotb.start_soon(self._host())
        cocotb.start_soon(self._monitor())

    async def _host(self):
        """The host: AR ready 80 % of cycles; R beats in AR order after a latency, rvalid with
        gaps (held once offered). Signals set after the falling edge, the handshakes read in the
        ReadOnly phase that follows (nothing changes until the rising edge)."""
        dut = self.dut
        cur = None
        while True:
            await FallingEdge(dut.clk)
            self.cycle += 1
            dut.s_axi_rready.value = int(self.rready_p >= 1.0 or self.rng.random() < self.rready_p)
            dut.m_axi_arready.value = int(self.rng.random() < 0.8)
            if cur is None and self.host_q and self.host_q[0][0] <= self.cycle and self.rng.random() < 0.8:
                cur = self.host_q.pop(0)
            dut.m_axi_rvalid.value = int(cur is not None)
            if cur is not None:
                dut.m_axi_rid.value = cur[1]
                dut.m_axi_rdata.value = cur[2]
                dut.m_axi_rlast.value = cur[3]
            await ReadOnly()
            if dut.m_axi_arvalid.value and dut.m_axi_arready.value:
                rid, addr, ln = (int(dut.m_axi_arid.value), int(dut.m_axi_araddr.value),
                                 int(dut.m_axi_arlen.value))
                self.host_ars.append((rid, addr, ln))
                due = self.cycle + self.rng.randint(*self.host_lat)
                for k in range(ln + 1):
                    self.host_q.append((due, rid, host_word(addr + k * WB), int(k == ln)))
            if cur is not None and dut.m_axi_rready.value:
                cur = None

    async def _monitor(self):
        dut = self.dut
        held = None
        while True:
            await FallingEdge(dut.clk)
            await ReadOnly()
            if not dut.s_axi_rvalid.value:
                if held is not None:
                    self.errors.append("s_axi_rvalid dropped while stalled")
                held = None
                continue
            cur = (int(dut.s_axi_rid.value), int(dut.s_axi_rdata.value), int(dut.s_axi_rlast.value),
                   int(dut.s_axi_rresp.value))
            if held is not None and cur != held:
                self.errors.append("s_axi_r* changed while stalled")
            if dut.s_axi_rready.value:
                self.got.append(cur + (self.cycle,))
                held = None
            else:
                held = cur

    async def reset(self):
        dut = self.dut
        await FallingEdge(dut.clk)
        dut.rst.value = 1
        await FallingEdge(dut.clk)
        await FallingEdge(dut.clk)
        dut.rst.value = 0
        await FallingEdge(dut.clk)

    async def fill_chain(self, nchunks):
        """Allocate and link nchunks chunks and write them whole with random words; returns
        (first chunk, words)."""
        dut = self.dut
        words = [self.rng.getrandbits(DATA_W) for _ in range(nchunks * WPC)]
        prev = None
        first = None
        for b in range(nchunks):
            await ReadOnly()
            assert dut.alloc_valid.value, "the buffer has no chunk left"
            ch = int(dut.alloc_chunk.value)
            await FallingEdge(dut.clk)
            dut.alloc_en.value = 1
            dut.alloc_link.value = int(prev is not None)
            dut.alloc_prev.value = prev or 0
            await FallingEdge(dut.clk)
            dut.alloc_en.value = 0
            dut.alloc_link.value = 0
            for w in range(WPC):
                dut.wr_en.value = 1
                dut.wr_chunk.value = ch
                dut.wr_word.value = w
                dut.wr_data.value = words[b * WPC + w]
                await FallingEdge(dut.clk)
            dut.wr_en.value = 0
            prev = ch
            if first is None:
                first = ch
        return first, words

    async def issue(self, reads, gap_p):
        """reads: (id, addr, arlen); each offered from a falling edge until taken."""
        dut = self.dut
        await FallingEdge(dut.clk)
        for rid, addr, ln in reads:
            while self.rng.random() < gap_p:
                dut.s_axi_arvalid.value = 0
                await FallingEdge(dut.clk)
            dut.s_axi_arvalid.value = 1
            dut.s_axi_arid.value = rid
            dut.s_axi_araddr.value = addr
            dut.s_axi_arlen.value = ln
            while True:
                await ReadOnly()
                taken = bool(dut.s_axi_arready.value)
                await FallingEdge(dut.clk)
                if taken:
                    break
        dut.s_axi_arvalid.value = 0

    async def wait_beats(self, n, limit=20000):
        for _ in range(limit):
            if len(self.got) >= n:
                break
            await FallingEdge(self.dut.clk)
        for _ in range(20):
            await FallingEdge(self.dut.clk)


def check(tb, reads, exp):
    assert not tb.errors, tb.errors[:3]
    n = sum(len(e) for e in exp)
    assert len(tb.got) == n, f"{len(tb.got)} beats, expected {n}"
    i = 0
    for k, ((rid, addr, ln), e) in enumerate(zip(reads, exp)):
        g = tb.got[i:i + len(e)]
        i += len(e)
        where = "on-card" if addr >> 63 else "host"
        assert [x[1] for x in g] == e, f"read {k} ({where}, addr {addr:#x}, len {ln}): words differ"
        assert [x[2] for x in g] == [0] * (len(e) - 1) + [1], f"read {k} ({where}): rlast"
        assert all(x[0] == rid for x in g), f"read {k} ({where}): rid"
        assert all(x[3] == 0 for x in g), f"read {k} ({where}): rresp"
    host = [r for r in reads if not r[1] >> 63]
    assert tb.host_ars == host, "the host saw other reads than the host reads, or in another order"


async def mixed(dut, seed, rready_p, gap_p, nreads):
    tb = TB(dut, seed)
    await tb.reset()
    rng = tb.rng
    chains = []
    for n in (1, 2, 3, 4, 1, 2):
        chains.append(await tb.fill_chain(n))
    reads, exp = [], []
    for _ in range(nreads):
        rid = rng.randrange(16)
        if rng.random() < 0.5:
            first, words = rng.choice(chains)
            off = 8 * rng.randrange(len(words) * WB // 8)
            w0 = off // WB
            beats = rng.randint(1, min(256, len(words) - w0))
            reads.append((rid, (1 << 63) | (first << 16) | off, beats - 1))
            exp.append(words[w0:w0 + beats])
        else:
            addr = rng.getrandbits(40) & ~(WB - 1)
            ln = rng.randrange(16)
            reads.append((rid, addr, ln))
            exp.append([host_word(addr + k * WB) for k in range(ln + 1)])
    tb.rready_p = rready_p
    await tb.issue(reads, gap_p)
    await tb.wait_beats(sum(len(e) for e in exp))
    check(tb, reads, exp)
    return tb, reads


@cocotb.test()
async def test_mixed_in_order(dut):
    """Host and on-card reads mixed at random, returned in AR order with every word; prefetch
    side always ready and then 60 % ready with AR gaps."""
    tb, reads = await mixed(dut, 1, 1.0, 0.0, 120)
    nl = sum(1 for r in reads if r[1] >> 63)
    dut._log.info("mixed: %d reads (%d on-card), %d beats, in order", len(reads), nl, len(tb.got))


@cocotb.test()
async def test_mixed_backpressure(dut):
    tb, reads = await mixed(dut, 2, 0.6, 0.3, 120)
    dut._log.info("mixed under backpressure: %d reads, %d beats, in order", len(reads), len(tb.got))


@cocotb.test()
async def test_onchip_rate(dut):
    """Back-to-back on-card reads of whole frames (1518 bytes) from a filled chain, prefetch side
    always ready: words per cycle (the buffer's one a cycle, less the request turn-around)."""
    tb = TB(dut, 3)
    await tb.reset()
    first, words = await tb.fill_chain(4)
    beats = -(-1518 // WB)
    reads = [(0, (1 << 63) | (first << 16) | 0, beats - 1) for _ in range(8)]
    exp = [words[:beats]] * 8
    start = tb.cycle
    await tb.issue(reads, 0.0)
    await tb.wait_beats(8 * beats)
    check(tb, reads, exp)
    cycles = tb.got[-1][4] - start
    dut._log.info("DATA_W %d: 8 on-card reads of %d words in %d cycles, %.3f words a cycle",
                  DATA_W, beats, cycles, 8 * beats / cycles)
    assert 8 * beats / cycles > 0.8, "on-card reads below 0.8 words a cycle"
