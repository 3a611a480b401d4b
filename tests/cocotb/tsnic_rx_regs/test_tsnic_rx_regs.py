"""Bench for tsnic_rx_regs (the RX global block): a Python model of every register (reset values,
read/write with byte strobes, read-only identity values), STEER_CMD WRITE/READ against a steering
table the bench plays (it records tbl_wr_* and answers tbl_rd_* from its own dict), an index beyond
the table ignored, STEER_CMD ET_WRITE/ET_READ against EtherType rules the bench plays the same way,
and the global counters against random event strobes."""

import random

import cocotb
from cocotb.triggers import RisingEdge, ReadOnly, FallingEdge, ClockCycles

from tsnic_clock import start_clock
import tsnic_contract as C

ENTRIES = 16
ET_RULES = 2
EVTS = ("evt_frame", "evt_drop_disabled", "evt_drop_full", "evt_bad", "evt_too_long", "evt_steered")


class TB:
    def __init__(self, dut):
        self.dut = dut
        start_clock(dut.clk, 4000)
        for s in ("reg_wr_en", "reg_rd_en", "evt_frame_len", "mac_drop_count") + EVTS:
            getattr(dut, s).value = 0
        self.table = {}
        self.rules = {}
        self.counts = {e: 0 for e in EVTS}
        self.bytes = 0

    async def table_port(self):
        d = self.dut
        while True:
            await FallingEdge(d.clk)
            e = self.table.get(int(d.tbl_rd_idx.value), (0, 0, 0, 0, 0, 0, 0))
            (d.tbl_rd_valid.value, d.tbl_rd_src_ip.value, d.tbl_rd_dst_ip.value, d.tbl_rd_proto.value,
             d.tbl_rd_src_port.value, d.tbl_rd_dst_port.value, d.tbl_rd_queue.value) = e
            r = self.rules.get(int(d.et_rd_idx.value), (0, 0, 0))
            d.et_rd_valid.value, d.et_rd_ethertype.value, d.et_rd_queue.value = r
            await ReadOnly()
            if d.et_wr_en.value:
                self.rules[int(d.et_wr_idx.value)] = (
                    int(d.et_wr_valid.value), int(d.et_wr_ethertype.value), int(d.et_wr_queue.value))
            if d.tbl_wr_en.value:
                self.table[int(d.tbl_wr_idx.value)] = (
                    int(d.tbl_wr_valid.value), int(d.tbl_wr_src_ip.value), int(d.tbl_wr_dst_ip.value),
                    int(d.tbl_wr_proto.value), int(d.tbl_wr_src_port.value), int(d.tbl_wr_dst_port.value),
                    int(d.tbl_wr_queue.value))

    async def wr(self, addr, val, strb=0xF):
        d = self.dut
        await FallingEdge(d.clk)
        d.reg_wr_addr.value, d.reg_wr_data.value, d.reg_wr_strb.value, d.reg_wr_en.value = addr, val, strb, 1
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


@cocotb.test()
async def test_registers_table_counters(dut):
    tb = TB(dut)
    rng = random.Random(5)
    dut.rst.value = 1
    await ClockCycles(dut.clk, 3)
    dut.rst.value = 0
    cocotb.start_soon(tb.table_port())
    assert await tb.rd(C.RX_NUM_QUEUES) == 4
    assert await tb.rd(C.RX_STEER_ENTRIES) == ENTRIES
    assert await tb.rd(C.RX_STEER_ET_RULES) == ET_RULES
    assert await tb.rd(C.RX_MAX_FRAME_LEN) == 9600
    assert await tb.rd(C.RX_BUF_BYTES) == 16384
    assert await tb.rd(C.RX_CTRL) == 0 and dut.rx_enable.value == 0
    # read/write registers with byte strobes against a model
    model = {C.RX_LAT_COMP_NS: 0, C.RX_DEFAULT_QUEUE: 0, C.RX_STEER_INDEX: 0, C.RX_STEER_SRC_IP: 0,
             C.RX_STEER_DST_IP: 0, C.RX_STEER_PORTS: 0, C.RX_STEER_CTRL: 0,
             C.RX_STEER_ET: 0}
    width = {C.RX_DEFAULT_QUEUE: 0xFFFF}
    for _ in range(60):
        a = rng.choice(list(model))
        v = rng.getrandbits(32)
        strb = rng.randrange(1, 16)
        await tb.wr(a, v, strb)
        m = model[a]
        for b in range(4):
            if strb >> b & 1:
                m = (m & ~(0xFF << 8 * b)) | (v & (0xFF << 8 * b))
        model[a] = m & width.get(a, 0xFFFFFFFF)
        got = await tb.rd(a)
        assert got == model[a], f"0x{a:x}: {got:#x} != model {model[a]:#x}"
    assert int(dut.lat_comp_ns.value) == model[C.RX_LAT_COMP_NS]
    assert int(dut.default_queue.value) == model[C.RX_DEFAULT_QUEUE]
    await tb.wr(C.RX_CTRL, 1)
    assert await tb.rd(C.RX_CTRL) == 1 and dut.rx_enable.value == 1
    # steering entries: WRITE copies the staged registers, READ brings an entry back
    want = {}
    for idx in rng.sample(range(ENTRIES), 6) + [ENTRIES, ENTRIES + 100]:
        e = (1, rng.getrandbits(32), rng.getrandbits(32), rng.choice([6, 17]), rng.getrandbits(16),
             rng.getrandbits(16), rng.randrange(8))
        await tb.wr(C.RX_STEER_INDEX, idx)
        await tb.wr(C.RX_STEER_SRC_IP, e[1])
        await tb.wr(C.RX_STEER_DST_IP, e[2])
        await tb.wr(C.RX_STEER_PORTS, e[4] << 16 | e[5])
        await tb.wr(C.RX_STEER_CTRL, e[3] | e[6] << 8 | 1 << 31)
        await tb.wr(C.RX_STEER_CMD, C.RX_STEER_CMD_WRITE)
        if idx < ENTRIES:
            want[idx] = e
    await ClockCycles(dut.clk, 2)
    assert tb.table == want, "an index beyond the table was written, or an entry differs"
    for idx, e in want.items():
        await tb.wr(C.RX_STEER_INDEX, idx)
        await tb.wr(C.RX_STEER_CMD, C.RX_STEER_CMD_READ)
        got = (await tb.rd(C.RX_STEER_SRC_IP), await tb.rd(C.RX_STEER_DST_IP), await tb.rd(C.RX_STEER_PORTS),
               await tb.rd(C.RX_STEER_CTRL))
        assert got == (e[1], e[2], e[4] << 16 | e[5], e[3] | e[6] << 8 | 1 << 31), (idx, got, e)
    # EtherType rules: ET_WRITE copies the staged STEER_ET, ET_READ brings a rule back; the 5-tuple
    # table is not touched by them, nor they by WRITE
    table_before = dict(tb.table)
    want_r = {}
    for idx in list(range(ET_RULES)) + [ET_RULES, ENTRIES - 1]:
        r = (1, rng.getrandbits(16), rng.randrange(256))
        await tb.wr(C.RX_STEER_INDEX, idx)
        await tb.wr(C.RX_STEER_ET, r[1] | r[2] << 16 | 1 << 31)
        await tb.wr(C.RX_STEER_CMD, C.RX_STEER_CMD_ET_WRITE)
        if idx < ET_RULES:
            want_r[idx] = r
    await ClockCycles(dut.clk, 2)
    assert tb.rules == want_r, "an index beyond the rules was written, or a rule differs"
    assert tb.table == table_before
    for idx, r in want_r.items():
        await tb.wr(C.RX_STEER_ET, 0)
        await tb.wr(C.RX_STEER_INDEX, idx)
        await tb.wr(C.RX_STEER_CMD, C.RX_STEER_CMD_ET_READ)
        assert await tb.rd(C.RX_STEER_ET) == r[1] | r[2] << 16 | 1 << 31, (idx, r)
    # counters against random event strobes
    for _ in range(300):
        await FallingEdge(dut.clk)
        vals = {e: int(rng.random() < 0.3) for e in EVTS}
        for e, v in vals.items():
            getattr(dut, e).value = v
            tb.counts[e] += v
        n = rng.randrange(1, 65536)
        dut.evt_frame_len.value = n
        if vals["evt_frame"]:
            tb.bytes += n
    await FallingEdge(dut.clk)
    for e in EVTS:
        getattr(dut, e).value = 0
    regs = {"evt_frame": C.RX_CNT_FRAMES, "evt_drop_disabled": C.RX_CNT_DROP_DISABLED,
            "evt_drop_full": C.RX_CNT_DROP_FULL, "evt_bad": C.RX_CNT_BAD_FCS, "evt_too_long": C.RX_CNT_TOO_LONG,
            "evt_steered": C.RX_CNT_STEERED}
    for e, a in regs.items():
        assert await tb.rd(a) == tb.counts[e], e
    assert await tb.rd(C.RX_CNT_BYTES) == tb.bytes & 0xFFFFFFFF
    # RX_CNT_DROP_MAC reads the MAC side's count as it is given (kept there, not here)
    for v in (0, 1, 0xDEADBEEF, rng.getrandbits(32)):
        dut.mac_drop_count.value = v
        assert await tb.rd(C.RX_CNT_DROP_MAC) == v
    # reset clears everything
    dut.rst.value = 1
    await ClockCycles(dut.clk, 2)
    dut.rst.value = 0
    assert await tb.rd(C.RX_CNT_FRAMES) == 0 and await tb.rd(C.RX_CTRL) == 0 and await tb.rd(C.RX_LAT_COMP_NS) == 0
