"""Bench for tsnic_cpl_write: round-robin request arbitration, 32-byte completion records with the
phase bit written by AXI4 into a host ring (cocotbext-axi AxiRamWrite), backpressure on a full ring
(never overwrite an unconsumed record), handle frees, events, per-queue counters in the Q blocks.

Scoreboard: every accepted request (sampled at its valid/ready handshake) must appear, in acceptance
order, as exactly one record that the Python host consumer reads by phase bit; the frees, the event
strobes and the per-queue counter registers must agree with the accepted requests. The events are
compared one for one, in order, for every status the core completes with (SENT .. DMA_ERROR): the
descriptor fetch's quota rule counts each queue's completions from them (tsnic_cpl_count), so a
missed or doubled event would leave a queue's count wrong for good.
"""

import os
import random
from collections import Counter

import cocotb
from cocotb.triggers import RisingEdge, ReadOnly, ClockCycles, Lock, Timer
from cocotbext.axi import AxiWriteBus, AxiRamWrite

from tsnic_clock import start_clock
import tsnic_contract as C
from tsnic_regif_master import RegIfMaster

N_SRC = 3
NUM_QUEUES = 8
NODE_W = 10
AXI_DATA_W = int(os.environ.get("AXI_DATA_W", "64"))
STATUSES = [C.STATUS_SENT, C.STATUS_SENT_LATE, C.STATUS_DROPPED_LATE, C.STATUS_DROPPED_HORIZON,
            C.STATUS_FLUSHED, C.STATUS_REJECTED, C.STATUS_DMA_ERROR]
CNT_OFF = {C.STATUS_SENT: C.Q_CNT_SENT, C.STATUS_SENT_LATE: C.Q_CNT_SENT_LATE,
           C.STATUS_DROPPED_LATE: C.Q_CNT_DROPPED_LATE, C.STATUS_DROPPED_HORIZON: C.Q_CNT_DROPPED_HORIZON,
           C.STATUS_FLUSHED: C.Q_CNT_FLUSHED, C.STATUS_REJECTED: C.Q_CNT_REJECTED,
           C.STATUS_DMA_ERROR: C.Q_CNT_DMA_ERROR}
FIELDS = [("queue", 3), ("ring_index", 16), ("cookie", 32), ("launch_ns", 64), ("depart_ns", 64),
          ("len", 16), ("status", 8), ("reason", 8), ("capped", 1), ("handle", NODE_W), ("handle_valid", 1)]
CPL_BASE = 0x1_0000_2000   # above 4 GiB: BASE_HI is used


class HostRam(AxiRamWrite):
    """Host memory that reports every write to the bench (overwrite check)."""

    def __init__(self, *args, on_write=None, **kwargs):
        self.on_write = on_write
        super().__init__(*args, **kwargs)

    async def _write(self, address, data):
        if self.on_write:
            self.on_write(address, data)
        await super()._write(address, data)


class TB:
    def __init__(self, dut, seed=1):
        self.dut = dut
        self.rng = random.Random(seed)
        self.regs = RegIfMaster(dut, dut.clk)
        self.reg_lock = Lock()
        self.ram = HostRam(AxiWriteBus.from_prefix(dut, "m_axi"), dut.clk, dut.rst, size=2**40,
                           on_write=self._on_write)
        self.pending = [[] for _ in range(N_SRC)]   # per source: requests not yet accepted
        self.accepted = []                          # in acceptance order
        self.freed = []
        self.events = []
        self.consumed = 0                           # records the host has read
        self.ring_log2 = 4
        self.valid_prob = 0.7
        self.free_ready_prob = 0.8
        self.overwrites = 0
        for name, _ in FIELDS:
            getattr(dut, f"s_cpl_req_{name}").value = 0
        dut.s_cpl_req_valid.value = 0
        dut.m_free_ready.value = 1
        start_clock(dut.clk, 4000)

    def _on_write(self, address, data):
        rel = address - CPL_BASE
        if rel < 0 or rel >= 32 << self.ring_log2:
            self.overwrites += 1
            self.dut._log.error("write outside the completion ring: 0x%x", address)
            return
        # the record being written is number `seq`: it must not land on an unconsumed record
        seq = self.writes_seen
        if (rel + len(data)) % 32 == 0 or len(data) >= 32:
            self.writes_seen += 1
        if seq - self.consumed >= (1 << self.ring_log2):
            self.overwrites += 1
            self.dut._log.error("record %d written while only %d consumed (ring %d)",
                                seq, self.consumed, 1 << self.ring_log2)

    async def reset(self):
        self.dut.rst.value = 1
        await ClockCycles(self.dut.clk, 4)
        self.dut.rst.value = 0
        await ClockCycles(self.dut.clk, NUM_QUEUES * 8 + 4)   # counter RAM clear

    async def wr(self, addr, val):
        async with self.reg_lock:
            assert await self.regs.write(addr, val), f"write 0x{addr:x} not acknowledged"

    async def rd(self, addr):
        async with self.reg_lock:
            v = await self.regs.read(addr)
        assert v is not None, f"read 0x{addr:x} not acknowledged"
        return v

    async def setup_ring(self, log2):
        self.ring_log2 = log2
        self.writes_seen = 0
        self.consumed = 0
        self.expect_phase = 1
        await self.wr(C.CPL_CTRL, 0)
        await self.wr(C.CPL_BASE_LO, CPL_BASE & 0xFFFFFFFF)
        await self.wr(C.CPL_BASE_HI, CPL_BASE >> 32)
        await self.wr(C.CPL_SIZE_LOG2, log2)
        self.ram.write(CPL_BASE, bytes(32 << log2))
        await self.wr(C.CPL_CTRL, 1)

    def make_req(self, src):
        r = self.rng
        return dict(queue=r.randrange(NUM_QUEUES), ring_index=r.getrandbits(16), cookie=r.getrandbits(32),
                    launch_ns=r.getrandbits(64), depart_ns=r.getrandbits(64), len=r.getrandbits(16),
                    status=r.choice(STATUSES), reason=r.getrandbits(8), capped=r.getrandbits(1),
                    handle=r.getrandbits(NODE_W), handle_valid=int(r.random() < 0.8), src=src)

    async def drive(self):
        """Drives the packed request ports; records each handshake in acceptance order."""
        dut = self.dut
        cur = [None] * N_SRC
        while True:
            # present (or keep presenting) requests
            valid = 0
            vals = {name: 0 for name, _ in FIELDS}
            for s in range(N_SRC):
                if cur[s] is None and self.pending[s] and self.rng.random() < self.valid_prob:
                    cur[s] = self.pending[s].pop(0)
                if cur[s] is not None:
                    valid |= 1 << s
                    for name, w in FIELDS:
                        vals[name] |= (cur[s][name] & ((1 << w) - 1)) << (s * w)
            dut.s_cpl_req_valid.value = valid
            for name, _ in FIELDS:
                getattr(dut, f"s_cpl_req_{name}").value = vals[name]
            dut.m_free_ready.value = int(self.rng.random() < self.free_ready_prob)
            await ReadOnly()
            ready = int(dut.s_cpl_req_ready.value)
            assert ready & ~valid == 0, "ready without valid"
            assert bin(ready).count("1") <= 1, "more than one grant"
            for s in range(N_SRC):
                if ready >> s & 1:
                    self.accepted.append(cur[s])
                    cur[s] = None
            if dut.m_free_valid.value and dut.m_free_ready.value:
                self.freed.append(int(dut.m_free_handle.value))
            if dut.evt_cpl_valid.value:
                self.events.append((int(dut.evt_cpl_status.value), int(dut.evt_cpl_len.value),
                                    int(dut.evt_cpl_queue.value)))
            await RisingEdge(dut.clk)

    async def consume(self, limit, stall_prob=0.0, doorbell_every=1):
        """The host: read records by phase bit, check them, ring the CONS doorbell."""
        size = 1 << self.ring_log2
        since_db = 0
        while self.consumed < limit:
            if stall_prob and self.rng.random() < stall_prob:
                await ClockCycles(self.dut.clk, self.rng.randint(20, 200))
            idx = self.consumed % size
            raw = self.ram.read(CPL_BASE + idx * 32, 32)
            rec = C.unpack_completion(raw)
            phase = rec["flags"] >> 31 & 1
            if phase != self.expect_phase:
                await ClockCycles(self.dut.clk, 2)
                continue
            exp = self.accepted[self.consumed]
            for f in ("depart_ns", "launch_ns", "cookie", "ring_index", "queue", "status", "reason", "len"):
                assert rec[f] == exp[f], f"record {self.consumed} field {f}: {rec[f]:#x} != {exp[f]:#x}"
            assert rec["flags"] & C.CPL_FLAG_CAPPED == (C.CPL_FLAG_CAPPED if exp["capped"] else 0)
            assert rec["flags"] & ~(C.CPL_FLAG_CAPPED | C.CPL_FLAG_PHASE) == 0
            self.consumed += 1
            if idx == size - 1:
                self.expect_phase ^= 1
            since_db += 1
            if since_db >= doorbell_every or self.consumed == limit:
                await self.wr(C.CPL_CONS, self.consumed & 0xFFFFFFFF)
                since_db = 0

    async def check_counters(self):
        exp = Counter((a["queue"], a["status"]) for a in self.accepted[:self.consumed])
        for q in range(NUM_QUEUES):
            for st, off in CNT_OFF.items():
                got = await self.rd(C.Q_BASE + q * C.Q_STRIDE + off)
                assert got == exp[(q, st)], f"queue {q} {C.STATUS_NAMES[st]}: {got} != {exp[(q, st)]}"

    def check_frees_and_events(self):
        n = self.consumed
        exp_free = [a["handle"] for a in self.accepted[:n] if a["handle_valid"]]
        assert self.freed == exp_free, f"frees differ: {len(self.freed)} vs {len(exp_free)}"
        exp_evt = [(a["status"], a["len"], a["queue"]) for a in self.accepted[:n]]
        assert self.events == exp_evt, "events differ"


@cocotb.test(timeout_time=300, timeout_unit="us")
async def test_random_traffic(dut):
    """Random requests from three sources; host consumes with stalls; ring of 16 wraps many times."""
    tb = TB(dut, seed=11)
    await tb.reset()
    await tb.setup_ring(4)
    cocotb.start_soon(tb.drive())
    total = 600
    for i in range(total):
        s = tb.rng.randrange(N_SRC)
        tb.pending[s].append(tb.make_req(s))
    await tb.consume(total, stall_prob=0.05, doorbell_every=3)
    await ClockCycles(dut.clk, 20)
    assert len(tb.accepted) == total
    assert tb.overwrites == 0
    assert await tb.rd(C.CPL_PROD) == total
    tb.check_frees_and_events()
    await tb.check_counters()
    # fairness: while all three sources had work, grants rotated
    srcs = [a["src"] for a in tb.accepted]
    dut._log.info("grants per source: %s", Counter(srcs))


@cocotb.test(timeout_time=300, timeout_unit="us")
async def test_ring_full_backpressure(dut):
    """Host does not consume: exactly ring-size records are written, then ready stays low."""
    tb = TB(dut, seed=5)
    tb.valid_prob = 1.0
    await tb.reset()
    await tb.setup_ring(3)
    cocotb.start_soon(tb.drive())
    for i in range(30):
        tb.pending[i % N_SRC].append(tb.make_req(i % N_SRC))
    await ClockCycles(dut.clk, 400)
    assert len(tb.accepted) == 8, len(tb.accepted)
    assert await tb.rd(C.CPL_PROD) == 8
    assert tb.overwrites == 0
    # consume 3: exactly 3 more go
    await tb.consume(3)
    await ClockCycles(dut.clk, 200)
    assert len(tb.accepted) == 11, len(tb.accepted)
    assert tb.overwrites == 0
    await tb.consume(30, stall_prob=0.1)
    await ClockCycles(dut.clk, 50)
    assert len(tb.accepted) == 30 and tb.overwrites == 0
    tb.check_frees_and_events()
    await tb.check_counters()


@cocotb.test(timeout_time=300, timeout_unit="us")
async def test_disabled_and_reenable(dut):
    """A disabled ring accepts nothing; enabling restarts at index 0 with phase 1."""
    tb = TB(dut, seed=9)
    await tb.reset()
    await tb.wr(C.CPL_BASE_LO, CPL_BASE & 0xFFFFFFFF)
    await tb.wr(C.CPL_BASE_HI, CPL_BASE >> 32)
    assert await tb.rd(C.CPL_BASE_HI) == CPL_BASE >> 32
    assert await tb.rd(C.CPL_CTRL) == 0
    cocotb.start_soon(tb.drive())
    for i in range(5):
        tb.pending[0].append(tb.make_req(0))
    await ClockCycles(dut.clk, 100)
    assert len(tb.accepted) == 0
    await tb.setup_ring(2)
    await tb.consume(5)
    await ClockCycles(dut.clk, 20)
    assert await tb.rd(C.CPL_PROD) == 5
    # disable and re-enable: fresh ring
    done = len(tb.accepted)
    await tb.setup_ring(2)
    assert await tb.rd(C.CPL_PROD) == 0
    assert await tb.rd(C.CPL_CONS) == 0
    tb.accepted = tb.accepted[done:]
    tb.freed, tb.events = [], []
    for i in range(6):
        tb.pending[1].append(tb.make_req(1))
    await tb.consume(6)
    await ClockCycles(dut.clk, 20)
    tb.check_frees_and_events()
    # registers nobody else owns in the Q block are not answered here
    async with tb.reg_lock:
        assert await tb.regs.read(C.Q_BASE + C.Q_CNT_POSTED) is None
        assert await tb.regs.read(C.Q_BASE + NUM_QUEUES * C.Q_STRIDE + C.Q_CNT_SENT) is None
        assert await tb.regs.read(C.Q_BASE + C.Q_PROD) is None


@cocotb.test(timeout_time=300, timeout_unit="us")
async def test_throughput_same_counter(dut):
    """All sources always valid, every request for the same queue and status (back-to-back updates
    of one counter word exercise the read-modify-write forwarding); reports records per cycle."""
    tb = TB(dut, seed=21)
    tb.valid_prob = 1.0
    tb.free_ready_prob = 1.0
    await tb.reset()
    await tb.setup_ring(8)
    total = 240
    for i in range(total):
        r = tb.make_req(i % N_SRC)
        r["queue"], r["status"] = 3, C.STATUS_SENT
        tb.pending[i % N_SRC].append(r)
    cocotb.start_soon(tb.drive())
    t0 = cocotb.utils.get_sim_time("ns")
    await tb.consume(total, doorbell_every=16)
    t1 = cocotb.utils.get_sim_time("ns")
    await ClockCycles(dut.clk, 20)
    assert tb.overwrites == 0
    tb.check_frees_and_events()
    await tb.check_counters()
    dut._log.info("AXI_DATA_W=%d: %d records in %d cycles = %.2f records/cycle", AXI_DATA_W, total,
                  (t1 - t0) // 4, total / ((t1 - t0) / 4))
