"""cocotb bench for tsnic_pk_buf, the packed transmit format's chunked buffer (docs/DATAPATH.md,
"Packed transmit format").

The model keeps each logical queue's stream as a list of random bus words, block b (512 bytes) in
the chunk the DUT offered when the block was allocated, and which chunks are in use. Checked: an
offered chunk is never one in use (fresh chunks first, then only freed ones); every read returns
exactly the stream's words from the word holding its byte offset, across as many chunks as it
spans, with m_r_last on its last word only; the output holds while stalled. Reads are issued as soon
as their first block is allocated, often before its words or the later blocks are written or
linked: the port must wait (chunks are reused with new random data, so a word read too early
differs). Rounds free every chunk and reuse them.
"""

import os
import random

import cocotb
from cocotb.triggers import FallingEdge, ReadOnly

from tsnic_clock import start_clock

DATA_W = int(os.environ.get("DATA_W", "64"))
WB = DATA_W // 8              # bytes a word
WPC = 512 // WB               # words a chunk
CHUNK_W = 5                   # the Makefile's
NCH = 1 << CHUNK_W
SOAK = int(os.environ.get("SOAK", "0"))


class TB:
    def __init__(self, dut):
        self.dut = dut
        start_clock(dut.clk, 4000)
        dut.rst.value = 0
        dut.alloc_en.value = 0
        dut.alloc_link.value = 0
        dut.alloc_prev.value = 0
        dut.wr_en.value = 0
        dut.wr_chunk.value = 0
        dut.wr_word.value = 0
        dut.wr_data.value = 0
        dut.free_en.value = 0
        dut.free_chunk.value = 0
        dut.s_ar_valid.value = 0
        dut.s_ar_chunk.value = 0
        dut.s_ar_off.value = 0
        dut.s_ar_beats.value = 0
        dut.m_r_ready.value = 1
        self.ready_p = 1.0
        self.in_use = set()
        self.words = []               # R words received, (data, last, cycle)
        self.errors = []
        self.cycle = 0
        cocotb.start_soon(self._clock_side())
        cocotb.start_soon(self._monitor())

    async def _clock_side(self):
        while True:
            await FallingEdge(self.dut.clk)
            self.cycle += 1
            self.dut.m_r_ready.value = int(self.ready_p >= 1.0 or random.random() < self.ready_p)

    async def _monitor(self):
        """After each falling edge nothing changes until the rising edge: valid && ready there is
        a word taken at that edge."""
        dut = self.dut
        held = None
        while True:
            await FallingEdge(dut.clk)
            await ReadOnly()
            if not dut.m_r_valid.value:
                if held is not None:
                    self.errors.append("m_r_valid dropped while stalled")
                held = None
                continue
            cur = (int(dut.m_r_data.value), int(dut.m_r_last.value))
            if held is not None and cur != held:
                self.errors.append("m_r_* changed while stalled")
            if dut.m_r_ready.value:
                self.words.append((cur[0], cur[1], self.cycle))
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
        self.in_use.clear()
        self.words.clear()

    async def alloc(self, prev=None):
        """Take the offered chunk (linked from prev); returns it. Called at a falling edge."""
        dut = self.dut
        while True:
            await ReadOnly()
            ok = bool(dut.alloc_valid.value)
            ch = int(dut.alloc_chunk.value)
            await FallingEdge(dut.clk)
            if ok:
                break
        assert ch not in self.in_use, f"chunk {ch} offered while in use {sorted(self.in_use)}"
        self.in_use.add(ch)
        dut.alloc_en.value = 1
        dut.alloc_link.value = int(prev is not None)
        dut.alloc_prev.value = prev or 0
        await FallingEdge(dut.clk)
        dut.alloc_en.value = 0
        dut.alloc_link.value = 0
        return ch

    async def write(self, ch, w0, w1, data, gap_p=0.0):
        dut = self.dut
        for w in range(w0, w1):
            while random.random() < gap_p:
                await FallingEdge(dut.clk)
            dut.wr_en.value = 1
            dut.wr_chunk.value = ch
            dut.wr_word.value = w
            dut.wr_data.value = data[w]
            await FallingEdge(dut.clk)
            dut.wr_en.value = 0

    async def free(self, chunks):
        dut = self.dut
        for ch in chunks:
            dut.free_en.value = 1
            dut.free_chunk.value = ch
            await FallingEdge(dut.clk)
            self.in_use.discard(ch)
        dut.free_en.value = 0

    async def read(self, ch, off, beats):
        """Issue one read request (from a falling edge); returns once it is taken."""
        dut = self.dut
        dut.s_ar_valid.value = 1
        dut.s_ar_chunk.value = ch
        dut.s_ar_off.value = off
        dut.s_ar_beats.value = beats
        while True:
            await ReadOnly()
            taken = bool(dut.s_ar_ready.value)
            await FallingEdge(dut.clk)
            if taken:
                break
        dut.s_ar_valid.value = 0

    async def wait_words(self, n, limit=100000):
        for _ in range(limit):
            if len(self.words) >= n:
                return
            await FallingEdge(self.dut.clk)
        raise AssertionError(f"{len(self.words)} words after {limit} cycles, expected {n}")


def expected(stream, b, off, beats):
    w0 = b * WPC + off // WB
    return stream[w0:w0 + beats]


@cocotb.test()
async def test_waits_for_link_and_words(dut):
    """A read spanning two chunks, issued when only the first is written: it returns that chunk's
    words and then nothing until the second chunk is allocated, linked and written, word by word."""
    rng = random.Random(1)
    tb = TB(dut)
    await tb.reset()
    stream = [rng.getrandbits(DATA_W) for _ in range(2 * WPC)]
    c0 = await tb.alloc()
    await tb.write(c0, 0, WPC, stream)
    await tb.read(c0, 8, 2 * WPC - 1)            # byte 8: from word 0 at 64 bits' word 1
    for _ in range(WPC + 40):
        await FallingEdge(dut.clk)
    first = WPC - 8 // WB
    assert len(tb.words) == first, f"{len(tb.words)} words before the link, expected {first}"
    c1 = await tb.alloc(prev=c0)
    for _ in range(20):
        await FallingEdge(dut.clk)
    assert len(tb.words) == first, "a word of the next chunk came before it was written"
    half = WPC // 2
    await tb.write(c1, 0, half, stream[WPC:])
    for _ in range(half + 20):
        await FallingEdge(dut.clk)
    assert len(tb.words) == first + half, f"{len(tb.words)} words, expected {first + half}"
    await tb.write(c1, half, WPC, stream[WPC:])
    await tb.wait_words(2 * WPC - 1)
    got = [w for w, _, _ in tb.words]
    assert got == expected(stream, 0, 8, 2 * WPC - 1), "words differ from the stream"
    assert [x for _, x, _ in tb.words] == [0] * (2 * WPC - 2) + [1], "m_r_last not on the last word only"
    assert not tb.errors, tb.errors[:3]


@cocotb.test()
async def test_random(dut):
    """Rounds of random streams on 4 logical queues: blocks allocated and written in an
    interleaved order, in one or two pieces with gaps; reads of random offsets and lengths issued as
    soon as their first block is allocated; output backpressure; every chunk freed after a round
    and reused by the next."""
    seed = int(os.environ.get("SEED", "5"))
    rng = random.Random(seed)
    random.seed(seed)
    tb = TB(dut)
    await tb.reset()
    rounds = 12 if SOAK else 4
    nreads = 0
    offered = set()
    for rnd in range(rounds):
        nq = 4
        blocks = [rng.randint(1, NCH // nq) for _ in range(nq)]
        streams = [[rng.getrandbits(DATA_W) for _ in range(b * WPC)] for b in blocks]
        chunk_of = [[None] * b for b in blocks]
        # the writer's work: (q, b, w0, w1), per queue in order
        work = []
        for q in range(nq):
            per = []
            for b in range(blocks[q]):
                if rng.random() < 0.4:
                    m = rng.randint(1, WPC - 1)
                    per += [(q, b, 0, m), (q, b, m, WPC)]
                else:
                    per.append((q, b, 0, WPC))
            work.append(per)
        order = []
        while any(work):
            q = rng.choice([i for i in range(nq) if work[i]])
            order.append(work[q].pop(0))
        reads = []
        for q in range(nq):
            for _ in range(rng.randint(2, 6)):
                b = rng.randrange(blocks[q])
                off = 8 * rng.randrange(64)
                left = blocks[q] * WPC - (b * WPC + off // WB)
                beats = rng.randint(1, min(left, 3 * WPC))
                reads.append((q, b, off, beats))
        rng.shuffle(reads)
        exp = [expected(streams[q], b, off, n) for q, b, off, n in reads]
        tb.words.clear()
        tb.ready_p = 0.75

        async def writer():
            for (q, b, w0, w1) in order:
                if w0 == 0:
                    prev = chunk_of[q][b - 1] if b else None
                    chunk_of[q][b] = await tb.alloc(prev)
                    offered.add(chunk_of[q][b])
                await tb.write(chunk_of[q][b], w0, w1, streams[q][b * WPC:], gap_p=0.2)

        async def reader():
            for (q, b, off, n) in reads:
                while chunk_of[q][b] is None:
                    await FallingEdge(dut.clk)
                for _ in range(rng.randint(0, 5)):
                    await FallingEdge(dut.clk)
                await tb.read(chunk_of[q][b], off, n)

        w = cocotb.start_soon(writer())
        r = cocotb.start_soon(reader())
        await w
        await r
        total = sum(len(e) for e in exp)
        await tb.wait_words(total)
        for _ in range(10):
            await FallingEdge(dut.clk)
        assert not tb.errors, tb.errors[:3]
        assert len(tb.words) == total, f"round {rnd}: {len(tb.words)} words, expected {total}"
        i = 0
        for k, e in enumerate(exp):
            got = tb.words[i:i + len(e)]
            i += len(e)
            assert [g for g, _, _ in got] == e, f"round {rnd} read {k} {reads[k]}: words differ"
            assert [x for _, x, _ in got] == [0] * (len(e) - 1) + [1], f"round {rnd} read {k}: last"
        nreads += len(reads)
        tb.ready_p = 1.0
        await tb.free([c for per in chunk_of for c in per])
    assert len(offered) == NCH, f"only {len(offered)} of {NCH} chunks were ever offered"
    dut._log.info("random (seed %d): %d reads in %d rounds, every word as the stream; %d chunks "
                  "used", seed, nreads, rounds, len(offered))


@cocotb.test()
async def test_throughput(dut):
    """One read of 8 linked, written chunks from byte 0, output always ready: words per cycle from
    the request to the last word (one a cycle across the chunk boundaries)."""
    rng = random.Random(3)
    tb = TB(dut)
    await tb.reset()
    n = 8 * WPC
    stream = [rng.getrandbits(DATA_W) for _ in range(n)]
    prev = None
    for b in range(8):
        prev = await tb.alloc(prev)
        await tb.write(prev, 0, WPC, stream[b * WPC:])
        if b == 0:
            c0 = prev
    start = tb.cycle
    await tb.read(c0, 0, n)
    await tb.wait_words(n)
    cycles = tb.words[-1][2] - start + 1
    assert [w for w, _, _ in tb.words] == stream
    rate = n / cycles
    dut._log.info("DATA_W %d: %d words in %d cycles from the request, %.3f a cycle", DATA_W, n,
                  cycles, rate)
    assert cycles <= n + 6, f"{cycles} cycles for {n} words: not one a cycle across chunks"


@cocotb.test()
async def test_free_list(dut):
    """Every chunk allocated at once: all distinct, then alloc_valid low; a random subset freed is
    offered back (only those), then alloc_valid low again."""
    rng = random.Random(4)
    tb = TB(dut)
    await tb.reset()
    got = [await tb.alloc() for _ in range(NCH)]
    assert sorted(got) == list(range(NCH)), "the chunks handed out are not each chunk once"
    await ReadOnly()
    assert not dut.alloc_valid.value, "a chunk offered with every chunk in use"
    await FallingEdge(dut.clk)
    sub = rng.sample(got, NCH // 3)
    await tb.free(sub)
    for _ in range(3):                   # the free FIFO's two-cycle fall-through
        await FallingEdge(dut.clk)
    back = [await tb.alloc() for _ in range(len(sub))]
    assert sorted(back) == sorted(sub), f"offered {back}, freed {sub}"
    await ReadOnly()
    assert not dut.alloc_valid.value, "a chunk offered with every chunk in use"
