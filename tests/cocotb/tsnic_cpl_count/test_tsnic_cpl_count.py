"""cocotb bench for tsnic_cpl_count (docs/DATAPATH.md, "tsnic_desc_fetch", quota rule).

A Python model counts every event per queue (16-bit modular). Checked against it: every mirror read
(latency 1) returns the model's count as of the cycle before the read (a write in the read's own cycle
is not seen: read-first), upd_valid/upd_queue show one write per event, the cycle after it, in event
order, and the reset clears every count. Events come every cycle, back to back on one queue, and
randomly; reads every cycle at random queues.
"""

import random

import cocotb
from cocotb.triggers import FallingEdge, RisingEdge, ReadOnly

from tsnic_clock import start_clock

NQ = 5          # NUM_QUEUES in the Makefile (QUEUE_W = 3)


class TB:
    def __init__(self, dut):
        self.dut = dut
        start_clock(dut.clk, 4000)
        dut.evt_valid.value = 0
        dut.evt_queue.value = 0
        dut.rd_en.value = 0
        dut.rd_addr.value = 0
        self.written = [0] * NQ      # the model's count as written (updated at each upd write)
        self.events = []             # queues of events given, in order
        self.upds = []               # queues of upd writes seen, in order
        self.errors = []
        self.reads = 0

    async def reset(self):
        dut = self.dut
        dut.rst.value = 1
        for _ in range(3):
            await RisingEdge(dut.clk)
        dut.rst.value = 0
        n = 0
        while True:
            await RisingEdge(dut.clk)
            await ReadOnly()
            n += 1
            if not dut.busy.value:
                break
        assert n <= 8 + 1, f"clear took {n} cycles"
        self.written = [0] * NQ
        self.events.clear()
        self.upds.clear()

    async def run(self, cycles, evt_fn, rd_p=0.8):
        """Drive `cycles` cycles: evt_fn(i) -> queue or None; a random read each cycle with prob
        rd_p. Checks each read's data against the model and each upd write against the events."""
        dut = self.dut
        pending_rd = None      # (queue, expected)
        for i in range(cycles):
            await FallingEdge(dut.clk)
            q = evt_fn(i)
            dut.evt_valid.value = int(q is not None)
            dut.evt_queue.value = q if q is not None else 0
            if q is not None:
                self.events.append(q)
            rd = random.randrange(NQ) if random.random() < rd_p else None
            dut.rd_en.value = int(rd is not None)
            dut.rd_addr.value = rd if rd is not None else 0
            await ReadOnly()
            # writes of this cycle take effect at its edge; a read of this cycle sees the count before
            exp_rd = self.written[rd] if rd is not None else None
            if dut.upd_valid.value:
                uq = int(dut.upd_queue.value)
                self.upds.append(uq)
                self.written[uq] = (self.written[uq] + 1) & 0xFFFF
            await RisingEdge(dut.clk)
            await ReadOnly()
            if rd is not None:
                got = int(dut.rd_data.value)
                self.reads += 1
                if got != exp_rd:
                    self.errors.append(f"cycle {i}: read of q{rd} = {got}, model {exp_rd}")
        # drain
        for _ in range(4):
            await FallingEdge(dut.clk)
            dut.evt_valid.value = 0
            dut.rd_en.value = 0
            await ReadOnly()
            if dut.upd_valid.value:
                uq = int(dut.upd_queue.value)
                self.upds.append(uq)
                self.written[uq] = (self.written[uq] + 1) & 0xFFFF
        await ReadOnly()
        assert dut.ff_quiet.value == 1, "not quiet after the events"

    def check(self):
        assert not self.errors, "\n".join(self.errors[:10])
        assert self.upds == self.events, "upd writes differ from the events (order or number)"
        model = [0] * NQ
        for q in self.events:
            model[q] = (model[q] + 1) & 0xFFFF
        assert model == self.written


async def read_all(tb):
    dut = tb.dut
    out = []
    for q in range(NQ):
        await FallingEdge(dut.clk)
        dut.rd_en.value = 1
        dut.rd_addr.value = q
        await RisingEdge(dut.clk)
        await ReadOnly()
        out.append(int(dut.rd_data.value))
    await FallingEdge(dut.clk)
    dut.rd_en.value = 0
    return out


@cocotb.test()
async def test_back_to_back(dut):
    """Events every cycle on one queue (forwarding), then alternating, then random."""
    random.seed(1)
    tb = TB(dut)
    await tb.reset()
    await tb.run(200, lambda i: 2)
    await tb.run(200, lambda i: (0, 0, 1, 0, 3)[i % 5])
    await tb.run(2000, lambda i: random.randrange(NQ) if random.random() < 0.7 else None)
    tb.check()
    assert await read_all(tb) == tb.written
    assert tb.reads > 1500
    dut._log.info("events %d, reads checked %d, counts %s", len(tb.events), tb.reads, tb.written)


@cocotb.test()
async def test_wrap_and_reset(dut):
    """One queue counts past 2^16 (modular), then a reset clears every count."""
    random.seed(2)
    tb = TB(dut)
    await tb.reset()
    await tb.run(65536 + 300, lambda i: 4 if i % 7 else 1, rd_p=0.1)
    tb.check()
    assert tb.written[4] == (65536 + 300 - (65536 + 300 + 6) // 7) & 0xFFFF
    assert await read_all(tb) == tb.written
    await tb.reset()
    assert await read_all(tb) == [0] * NQ
