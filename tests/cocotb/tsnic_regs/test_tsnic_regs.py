"""Bench for tsnic_regs: CAP block from parameters, CTRL block, global counters, IRQ moderation.

Reference model: `Model` below keeps the counters and the moderation state the way the contract
(hdl/contract/tsnic.toml) describes them; the bench compares every register read with it.
"""

import random

import cocotb
from cocotb.triggers import RisingEdge, ReadOnly, ClockCycles

from tsnic_clock import start_clock
import tsnic_contract as C
from tsnic_regif_master import RegIfMaster

CLK_NS = 4

# parameter defaults of tsnic_regs
P = dict(NUM_QUEUES=8, CLK_FREQ_HZ=250000000, SLOT_NS=64, SLOTS=1024, HORIZON_NS=65536,
         FEATURES=0x1F, RING_LOG2_MAX=16, MAX_FRAME_LEN=9600, TX_DATA_WIDTH=64, NODES=1024,
         LOOKAHEAD_NS_DEFAULT=4000)

STATUSES = [C.STATUS_SENT, C.STATUS_SENT_LATE, C.STATUS_DROPPED_LATE, C.STATUS_DROPPED_HORIZON,
            C.STATUS_FLUSHED, C.STATUS_REJECTED, C.STATUS_DMA_ERROR]
CNT_LO = {"POSTED": C.CNT_POSTED_LO, C.STATUS_SENT: C.CNT_SENT_LO, C.STATUS_SENT_LATE: C.CNT_SENT_LATE_LO,
          C.STATUS_DROPPED_LATE: C.CNT_DROPPED_LATE_LO, C.STATUS_DROPPED_HORIZON: C.CNT_DROPPED_HORIZON_LO,
          C.STATUS_FLUSHED: C.CNT_FLUSHED_LO, C.STATUS_REJECTED: C.CNT_REJECTED_LO, "TX_BYTES": C.CNT_TX_BYTES_LO,
          C.STATUS_DMA_ERROR: C.CNT_DMA_ERROR_LO}


class TB:
    def __init__(self, dut):
        self.dut = dut
        self.regs = RegIfMaster(dut, dut.clk)
        self.phc = 1_000_000
        self.model = {k: 0 for k in CNT_LO}
        self.irq_fires = 0
        dut.reset_busy.value = 0
        dut.phc_ns.value = self.phc
        dut.phc_step.value = 0
        dut.evt_posted.value = 0
        dut.evt_cpl_valid.value = 0
        dut.evt_rx_cpl.value = 0
        dut.evt_cpl_status.value = 0
        dut.evt_cpl_len.value = 0
        start_clock(dut.clk, CLK_NS * 1000)
        cocotb.start_soon(self._phc())

    async def _phc(self):
        while True:
            await RisingEdge(self.dut.clk)
            self.phc += CLK_NS
            self.dut.phc_ns.value = self.phc

    async def reset(self):
        self.dut.rst.value = 1
        await ClockCycles(self.dut.clk, 4)
        self.dut.rst.value = 0
        await ClockCycles(self.dut.clk, 2)

    async def event(self, posted=0, status=None, length=0):
        """Drive one cycle of event strobes and update the model."""
        self.dut.evt_posted.value = posted
        self.dut.evt_cpl_valid.value = 1 if status is not None else 0
        self.dut.evt_cpl_status.value = status if status is not None else 0
        self.dut.evt_cpl_len.value = length
        await RisingEdge(self.dut.clk)
        self.dut.evt_posted.value = 0
        self.dut.evt_cpl_valid.value = 0
        if posted:
            self.model["POSTED"] += 1
        if status is not None:
            if status in self.model:
                self.model[status] += 1
            if status in (C.STATUS_SENT, C.STATUS_SENT_LATE):
                self.model["TX_BYTES"] += length

    async def read64(self, lo):
        v_lo = await self.regs.read(lo)
        v_hi = await self.regs.read(lo + 4)
        return v_lo | (v_hi << 32)


@cocotb.test()
async def test_cap_block(dut):
    tb = TB(dut)
    await tb.reset()
    expect = {
        C.CAP_MAGIC: C.MAGIC, C.CAP_VERSION: C.VERSION, C.CAP_NUM_QUEUES: P["NUM_QUEUES"],
        C.CAP_CLK_FREQ_HZ: P["CLK_FREQ_HZ"], C.CAP_SLOT_NS: P["SLOT_NS"], C.CAP_SLOTS: P["SLOTS"],
        C.CAP_HORIZON_NS_LO: P["HORIZON_NS"] & 0xFFFFFFFF, C.CAP_HORIZON_NS_HI: P["HORIZON_NS"] >> 32,
        C.CAP_FEATURES: P["FEATURES"], C.CAP_RING_LOG2_MAX: P["RING_LOG2_MAX"],
        C.CAP_MAX_FRAME_LEN: P["MAX_FRAME_LEN"], C.CAP_TX_DATA_WIDTH: P["TX_DATA_WIDTH"],
        C.CAP_NODES: P["NODES"], C.CAP_QUEUE_BASE: C.Q_BASE, C.CAP_QUEUE_STRIDE: C.Q_STRIDE,
    }
    for addr, val in expect.items():
        got = await tb.regs.read(addr)
        assert got == val, f"CAP 0x{addr:x}: got {got} expected {val}"
    # CAP is read-only: writes are acknowledged and change nothing
    assert await tb.regs.write(C.CAP_MAGIC, 0x12345678)
    assert await tb.regs.read(C.CAP_MAGIC) == C.MAGIC
    # offsets nobody in this block owns are not acknowledged (the bridge answers 0)
    for addr in (0x3C, 0xFC, 0x120, 0x1FC, 0x300, 0x448, 0x80000):
        assert await tb.regs.read(addr) is None, f"0x{addr:x} acknowledged"
        assert await tb.regs.write(addr, 0xFFFFFFFF) is False
    # read data is 0 whenever ack is low (the top ORs the blocks' read data)
    for _ in range(20):
        await ReadOnly()
        if not dut.reg_rd_ack.value:
            assert int(dut.reg_rd_data.value) == 0
        await RisingEdge(dut.clk)


@cocotb.test()
async def test_ctrl_block(dut):
    tb = TB(dut)
    await tb.reset()
    assert await tb.regs.read(C.CTRL_CONTROL) == 0
    assert await tb.regs.read(C.CTRL_LOOKAHEAD_NS) == P["LOOKAHEAD_NS_DEFAULT"]
    assert await tb.regs.read(C.CTRL_TX_LAT_COMP_NS) == 0
    assert await tb.regs.read(C.CTRL_STATUS) == 0

    await tb.regs.write(C.CTRL_CONTROL, C.CTRL_CONTROL_ENABLE)
    assert int(dut.ctrl_enable.value) == 1
    assert await tb.regs.read(C.CTRL_CONTROL) == C.CTRL_CONTROL_ENABLE
    assert await tb.regs.read(C.CTRL_STATUS) == C.CTRL_STATUS_RUNNING

    # RESET: a one-cycle pulse, self-clearing, never read back
    pulses = []

    async def watch():
        while True:
            await RisingEdge(dut.clk)
            await ReadOnly()
            if dut.ctrl_reset.value:
                pulses.append(1)

    w = cocotb.start_soon(watch())
    await tb.regs.write(C.CTRL_CONTROL, C.CTRL_CONTROL_ENABLE | C.CTRL_CONTROL_RESET)
    await ClockCycles(dut.clk, 5)
    w.kill()
    assert len(pulses) == 1, pulses
    assert await tb.regs.read(C.CTRL_CONTROL) == C.CTRL_CONTROL_ENABLE
    dut.reset_busy.value = 1
    assert await tb.regs.read(C.CTRL_STATUS) == C.CTRL_STATUS_RESET_BUSY
    dut.reset_busy.value = 0
    assert await tb.regs.read(C.CTRL_STATUS) == C.CTRL_STATUS_RUNNING

    for addr in (C.CTRL_LOOKAHEAD_NS, C.CTRL_TX_LAT_COMP_NS, C.CTRL_IRQ_MOD_COUNT, C.CTRL_IRQ_MOD_TIME_NS):
        await tb.regs.write(addr, 0xA5A5A5A5)
        await tb.regs.write(addr, 0x00001234, strb=0x3)     # byte strobes
        assert await tb.regs.read(addr) == 0xA5A51234
    assert int(dut.lookahead_ns.value) == 0xA5A51234
    assert int(dut.tx_lat_comp_ns.value) == 0xA5A51234
    await tb.regs.write(C.CTRL_IRQ_CTRL, 0xFFFFFFFF)
    assert await tb.regs.read(C.CTRL_IRQ_CTRL) == C.CTRL_IRQ_CTRL_ENABLE
    await tb.regs.write(C.CTRL_CONTROL, 0)
    assert await tb.regs.read(C.CTRL_STATUS) == 0


@cocotb.test()
async def test_counters_random(dut):
    tb = TB(dut)
    await tb.reset()
    rng = random.Random(4)

    async def check_all():
        for key, lo in CNT_LO.items():
            got = await tb.read64(lo)
            assert got == tb.model[key], f"counter {key}: got {got} expected {tb.model[key]}"

    await check_all()
    for _ in range(6):
        for _ in range(rng.randint(50, 300)):
            st = rng.choice(STATUSES + [None, None, 0, 8])     # 0, 8: unknown statuses, not counted
            await tb.event(posted=rng.random() < 0.5, status=st, length=rng.randint(1, 65535))
        await check_all()

    # LO latches HI: events between the two reads do not tear the 64-bit value
    # (preload the TX_BYTES counter close to a 32-bit carry)
    while tb.model["TX_BYTES"] < 0xFFFF0000:
        await tb.event(status=C.STATUS_SENT, length=65535)
    lo = await tb.regs.read(C.CNT_TX_BYTES_LO)
    snapshot = tb.model["TX_BYTES"]
    for _ in range(5):
        await tb.event(status=C.STATUS_SENT, length=65535)
    hi = await tb.regs.read(C.CNT_TX_BYTES_HI)
    assert lo | (hi << 32) == snapshot
    assert tb.model["TX_BYTES"] >> 32 != snapshot >> 32, "the test did not cross the carry"
    await check_all()


async def count_fires(tb, cycles):
    """Watch irq rising edges for `cycles` cycles."""
    n = 0
    prev = int(tb.dut.irq.value)
    for _ in range(cycles):
        await RisingEdge(tb.dut.clk)
        await ReadOnly()
        cur = int(tb.dut.irq.value)
        if cur and not prev:
            n += 1
        prev = cur
    return n


@cocotb.test()
async def test_irq_moderation(dut):
    tb = TB(dut)
    await tb.reset()
    regs = tb.regs
    await regs.write(C.CTRL_IRQ_CTRL, C.CTRL_IRQ_CTRL_ENABLE)

    # count 1 (and 0): every completion raises the interrupt
    for modc in (0, 1):
        await regs.write(C.CTRL_IRQ_MOD_COUNT, modc)
        await tb.event(status=C.STATUS_SENT, length=64)
        await ClockCycles(dut.clk, 3)
        assert dut.irq.value == 1
        assert await regs.read(C.CTRL_IRQ_STATUS) == 1
        await regs.write(C.CTRL_IRQ_STATUS, 1)      # w1c
        assert dut.irq.value == 0
        assert await regs.read(C.CTRL_IRQ_STATUS) == 0

    # count N, no timer: fires after exactly N completions
    await regs.write(C.CTRL_IRQ_MOD_COUNT, 5)
    for i in range(4):
        await tb.event(status=C.STATUS_FLUSHED)
        await ClockCycles(dut.clk, 2)
        assert dut.irq.value == 0, f"fired after {i + 1} < 5"
    await ClockCycles(dut.clk, 200)
    assert dut.irq.value == 0, "fired without the 5th completion and with no timer"
    await tb.event(status=C.STATUS_REJECTED)
    await ClockCycles(dut.clk, 2)
    assert dut.irq.value == 1
    await regs.write(C.CTRL_IRQ_STATUS, 1)

    # timer: one completion, count 100, timer 400 ns: fires 400 ns (+ a cycle or two) after it
    await regs.write(C.CTRL_IRQ_MOD_TIME_NS, 400)
    await regs.write(C.CTRL_IRQ_MOD_COUNT, 100)
    t0 = tb.phc
    await tb.event(status=C.STATUS_SENT, length=100)
    while not dut.irq.value:
        await RisingEdge(dut.clk)
    dt = tb.phc - t0
    assert 400 <= dt <= 400 + 3 * CLK_NS, dt
    await regs.write(C.CTRL_IRQ_STATUS, 1)

    # a PHC step with an unsignalled completion fires at once (never late)
    await tb.event(status=C.STATUS_SENT, length=100)
    await ClockCycles(dut.clk, 5)
    assert dut.irq.value == 0
    dut.phc_step.value = 1
    await RisingEdge(dut.clk)
    dut.phc_step.value = 0
    await ClockCycles(dut.clk, 2)
    assert dut.irq.value == 1
    await regs.write(C.CTRL_IRQ_STATUS, 1)

    # disabled: pending still latches, the output stays low
    await regs.write(C.CTRL_IRQ_CTRL, 0)
    await regs.write(C.CTRL_IRQ_MOD_COUNT, 1)
    await tb.event(status=C.STATUS_SENT, length=100)
    await ClockCycles(dut.clk, 3)
    assert dut.irq.value == 0
    assert await regs.read(C.CTRL_IRQ_STATUS) == 1
    await regs.write(C.CTRL_IRQ_CTRL, 1)
    assert dut.irq.value == 1
    await regs.write(C.CTRL_IRQ_STATUS, 1)

    # randomized: count-only moderation; number of fires == completions // N
    rng = random.Random(7)
    await regs.write(C.CTRL_IRQ_MOD_TIME_NS, 0)
    for n in (2, 3, 8):
        await regs.write(C.CTRL_IRQ_MOD_COUNT, n)
        fires = 0
        total = rng.randint(20, 60)
        for _ in range(total):
            await tb.event(status=rng.choice(STATUSES))
            for _ in range(rng.randint(0, 3)):
                await RisingEdge(dut.clk)
            await RisingEdge(dut.clk)
            await ReadOnly()
            fired = int(dut.irq.value)
            await RisingEdge(dut.clk)
            if fired:
                fires += 1
                await regs.write(C.CTRL_IRQ_STATUS, 1)
        assert fires == total // n, (n, total, fires)
        # drain the leftover count
        for _ in range(n - total % n if total % n else 0):
            await tb.event(status=C.STATUS_SENT)
        await ClockCycles(dut.clk, 2)
        await regs.write(C.CTRL_IRQ_STATUS, 1)
