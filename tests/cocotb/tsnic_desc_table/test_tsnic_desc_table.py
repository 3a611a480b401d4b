"""cocotb bench for tsnic_desc_table: allocation, read by handle, free and reuse against a Python model."""

import os
import random

import cocotb
from cocotb.triggers import FallingEdge, RisingEdge, ReadOnly

from tsnic_clock import start_clock

NODE_W = int(os.environ.get("NODE_W", "6"))
N = 1 << NODE_W
FIELDS = ("addr", "len", "cookie", "launch_ns", "ring_index", "queue")
WIDTHS = dict(addr=64, len=16, cookie=32, launch_ns=64, ring_index=16, queue=4)


class TB:
    def __init__(self, dut):
        self.dut = dut
        start_clock(dut.clk, 4000)
        self.model = {}          # handle -> entry
        dut.wr_en.value = 0
        dut.rd_en.value = 0
        dut.rd_handle.value = 0
        dut.free_valid.value = 0
        dut.free_handle.value = 0
        for f in FIELDS:
            getattr(dut, "wr_" + f).value = 0

    async def reset(self):
        self.dut.rst.value = 1
        for _ in range(3):
            await RisingEdge(self.dut.clk)
        self.dut.rst.value = 0
        await RisingEdge(self.dut.clk)
        self.model.clear()

    @staticmethod
    def rand_entry():
        return {f: random.getrandbits(w) for f, w in WIDTHS.items()}

    async def cycle(self, alloc=None, read=None, free=None):
        """One clock: optionally allocate (entry), read (handle), free (handle). Returns
        (allocated handle or None, read entry or None)."""
        dut = self.dut
        await FallingEdge(dut.clk)
        got = None
        if alloc is not None:
            if dut.alloc_valid.value:
                got = int(dut.alloc_handle.value)
                dut.wr_en.value = 1
                for f in FIELDS:
                    getattr(dut, "wr_" + f).value = alloc[f]
        dut.rd_en.value = int(read is not None)
        dut.rd_handle.value = read if read is not None else 0
        dut.free_valid.value = int(free is not None)
        dut.free_handle.value = free if free is not None else 0
        if free is not None:
            assert dut.free_ready.value == 1
        await RisingEdge(dut.clk)
        dut.wr_en.value = 0
        dut.rd_en.value = 0
        dut.free_valid.value = 0
        if got is not None:
            assert got not in self.model, f"handle {got} allocated twice"
            self.model[got] = alloc
        if free is not None:
            del self.model[free]
        rd = None
        if read is not None:
            await ReadOnly()
            assert dut.rd_valid.value == 1
            rd = {f: int(getattr(dut, "rd_" + f).value) for f in FIELDS}
        return got, rd


@cocotb.test()
async def test_fill_read_free(dut):
    """Every handle once after reset, alloc_valid low when full, read back, free and reuse."""
    tb = TB(dut)
    await tb.reset()
    handles = []
    for i in range(N):
        h, _ = await tb.cycle(alloc=tb.rand_entry())
        assert h is not None
        handles.append(h)
    assert sorted(handles) == list(range(N))
    await FallingEdge(dut.clk)
    assert dut.alloc_valid.value == 0, "alloc_valid with every entry in use"
    assert int(dut.used_count.value) == N
    for h in random.sample(handles, N):
        _, rd = await tb.cycle(read=h)
        assert rd == tb.model[h], (h, rd, tb.model[h])
    # the read output holds until the next read
    await RisingEdge(dut.clk)
    await ReadOnly()
    assert dut.rd_valid.value == 0
    assert int(dut.rd_cookie.value) == rd["cookie"]
    # free half, reuse exactly those
    freed = random.sample(handles, N // 2)
    for h in freed:
        await tb.cycle(free=h)
    await FallingEdge(dut.clk)
    assert int(dut.used_count.value) == N - N // 2
    again = []
    for _ in range(N // 2):
        h, _ = await tb.cycle(alloc=tb.rand_entry())
        again.append(h)
    assert sorted(again) == sorted(freed)
    await FallingEdge(dut.clk)
    assert dut.alloc_valid.value == 0


@cocotb.test()
async def test_random(dut):
    """Random alloc/read/free in the same cycles against the model; entries never corrupted."""
    tb = TB(dut)
    await tb.reset()
    random.seed(int(os.environ.get("SEED", "7")))
    for _ in range(6000):
        alloc = tb.rand_entry() if random.random() < 0.55 else None
        read = random.choice(list(tb.model)) if tb.model and random.random() < 0.6 else None
        free = None
        if tb.model and random.random() < 0.45:
            free = random.choice([h for h in tb.model if h != read] or [None])
        got, rd = await tb.cycle(alloc=alloc, read=read, free=free)
        if rd is not None:
            assert rd == tb.model.get(read, rd), f"handle {read}: {rd} != {tb.model.get(read)}"
        await FallingEdge(dut.clk)
        assert int(dut.used_count.value) == len(tb.model)
        # a freed handle is offered again 2 cycles after its free
        if len(tb.model) == N:
            assert not dut.alloc_valid.value
        elif len(tb.model) < N - 2:
            assert dut.alloc_valid.value
    # drain
    for h in list(tb.model):
        _, rd = await tb.cycle(read=h)
        assert rd == tb.model[h]
        await tb.cycle(free=h)
    await FallingEdge(dut.clk)
    assert int(dut.used_count.value) == 0
