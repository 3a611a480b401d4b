"""Bench for tsnic_cpl_write: round-robin request arbitration, 32-byte completion records with the
phase bit written by AXI4 into a host ring (cocotbext-axi AxiRamWrite), backpressure on a full ring
(never overwrite an unconsumed record), handle frees, events, per-queue counters in the Q blocks, and
coalescing: records of consecutive slots written as one burst.

Scoreboard: every accepted request (sampled at its valid/ready handshake) must appear, in acceptance
order, as exactly one record that the Python host consumer reads by phase bit; the frees, the event
strobes and the per-queue counter registers must agree with the accepted requests. The events are
compared one for one, in order, for every status the core completes with (SENT .. DMA_ERROR): the
descriptor fetch's quota rule counts each queue's completions from them (tsnic_cpl_count), so a
missed or doubled event would leave a queue's count wrong for good.

Bursts (the reference model, `burst_rules` and `expected_partition`): every AW/W burst seen on the bus
is checked: its records are whole 32-byte records in ring order (each at the slot of its sequence
number), at most 2^MAX_BURST_LOG2 of them, never across the ring's end, a 4 KiB boundary or a
(32 << MAX_BURST_LOG2)-byte boundary; with the write channel held, the records that waited must leave
in exactly the greedy partition the model gives; with it idle, each record leaves alone, its AW the
cycle after its accept. AW, W and B are stalled at random in the randomized tests.
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
MAX_BURST_LOG2 = int(os.environ.get("MAX_BURST_LOG2", "3"))
MB = 1 << MAX_BURST_LOG2          # records per burst, at most
OUT_LOG2 = 3                      # the RTL's default: up to 2^OUT_LOG2 + 1 bursts wait for B
BUF_RECS = max(4, 2 * MB)         # the record buffer (records accepted whose burst has not left)
STATUSES = [C.STATUS_SENT, C.STATUS_SENT_LATE, C.STATUS_DROPPED_LATE, C.STATUS_DROPPED_HORIZON,
            C.STATUS_FLUSHED, C.STATUS_REJECTED, C.STATUS_DMA_ERROR]
CNT_OFF = {C.STATUS_SENT: C.Q_CNT_SENT, C.STATUS_SENT_LATE: C.Q_CNT_SENT_LATE,
           C.STATUS_DROPPED_LATE: C.Q_CNT_DROPPED_LATE, C.STATUS_DROPPED_HORIZON: C.Q_CNT_DROPPED_HORIZON,
           C.STATUS_FLUSHED: C.Q_CNT_FLUSHED, C.STATUS_REJECTED: C.Q_CNT_REJECTED,
           C.STATUS_DMA_ERROR: C.Q_CNT_DMA_ERROR}
FIELDS = [("queue", 3), ("ring_index", 16), ("cookie", 32), ("launch_ns", 64), ("depart_ns", 64),
          ("len", 16), ("status", 8), ("reason", 8), ("capped", 1), ("handle", NODE_W), ("handle_valid", 1)]
CPL_BASE = 0x1_0000_2000   # above 4 GiB: BASE_HI is used


def expected_partition(base, size, first_seq, count):
    """The model: the bursts (first sequence number, records) that `count` waiting records starting at
    sequence `first_seq` leave in when the channel frees: greedy, cut at MB, the ring's end and the
    (32 * MB)-byte boundaries of the address."""
    out = []
    seq, left = first_seq, count
    while left:
        slot = seq % size
        addr = base + 32 * slot
        to_chunk = MB - (addr // 32) % MB
        n = min(left, to_chunk, size - slot)
        out.append((seq, n))
        seq += n
        left -= n
    return out


def pause_gen(rng, p_start, max_len):
    """Random stalls: each cycle a stall of 1..max_len cycles starts with probability p_start."""
    while True:
        if rng.random() < p_start:
            for _ in range(rng.randint(1, max_len)):
                yield True
        else:
            yield False


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
        self.base = CPL_BASE
        self.rec_seen = 0                           # records whose last byte has been written
        self.cycle = 0
        self.accept_cycles = []                     # cycle of each accept, in order
        self.aw_log = []                            # (cycle, awaddr, awlen) of each AW handshake
        self.w_bursts = []                          # per burst: list of wstrb, one per beat
        self._w_cur = []
        self.burst_errors = []
        self.bursts_checked = 0
        for name, _ in FIELDS:
            getattr(dut, f"s_cpl_req_{name}").value = 0
        dut.s_cpl_req_valid.value = 0
        dut.m_free_ready.value = 1
        start_clock(dut.clk, 4000)

    def _on_write(self, address, data):
        rel = address - self.base
        size = 1 << self.ring_log2
        if rel < 0 or rel + len(data) > 32 * size:
            self.overwrites += 1
            self.dut._log.error("write outside the completion ring: 0x%x + %d", address, len(data))
            return
        # the records this write touches, in order: the first is record number rec_seen (the one in
        # progress); each must sit at its sequence number's slot and not on an unconsumed record
        seq = self.rec_seen
        for r in range(rel // 32, (rel + len(data) - 1) // 32 + 1):
            if r != seq % size:
                self.overwrites += 1
                self.dut._log.error("record %d written at slot %d, not %d", seq, r, seq % size)
            if seq - self.consumed >= size:
                self.overwrites += 1
                self.dut._log.error("record %d written while only %d consumed (ring %d)",
                                    seq, self.consumed, size)
            if rel + len(data) >= 32 * r + 32:
                seq += 1    # its last byte written: the next touched record is the next one
        self.rec_seen = seq

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

    async def setup_ring(self, log2, base=CPL_BASE):
        self.ring_log2 = log2
        self.base = base
        self.rec_seen = 0
        self.consumed = 0
        self.expect_phase = 1
        self.ring_aw0 = len(self.aw_log)    # this ring's bursts start here
        self.ring_seq0 = 0
        await self.wr(C.CPL_CTRL, 0)
        await self.wr(C.CPL_BASE_LO, base & 0xFFFFFFFF)
        await self.wr(C.CPL_BASE_HI, base >> 32)
        await self.wr(C.CPL_SIZE_LOG2, log2)
        self.ram.write(base, bytes(32 << log2))
        await self.wr(C.CPL_CTRL, 1)

    def stall(self, aw=None, w=None, b=None):
        """Random stalls on the write channels: (p_start, max_len) each, or None for none."""
        for ch, spec in ((self.ram.aw_channel, aw), (self.ram.w_channel, w), (self.ram.b_channel, b)):
            ch.set_pause_generator(pause_gen(self.rng, *spec) if spec else None)
            if not spec:
                ch.pause = False     # a generator stopped mid-stall leaves it paused

    def burst_records(self, addr, strbs):
        """The 32-byte records (their addresses) one burst wrote, from its AW address and strobes;
        a partial record is an error."""
        recs = []
        bus = AXI_DATA_W // 8
        word = addr - addr % bus
        lanes = []
        for i, st in enumerate(strbs):
            for b in range(bus):
                if st >> b & 1:
                    lanes.append(word + i * bus + b)
        if not lanes or lanes != list(range(lanes[0], lanes[0] + len(lanes))) or lanes[0] != addr:
            self.burst_errors.append(f"burst at 0x{addr:x}: strobes not one run from awaddr")
            return recs
        if len(lanes) % 32 or addr % 32:
            self.burst_errors.append(f"burst at 0x{addr:x}: {len(lanes)} bytes, not whole records")
        return [addr + 32 * k for k in range(len(lanes) // 32)]

    def check_bursts(self):
        """Every burst of the current ring against the rules (module docstring); returns the
        record counts of the bursts, in order."""
        size = 1 << self.ring_log2
        seq = self.ring_seq0
        counts = []
        aws = self.aw_log[self.ring_aw0:]
        ws = self.w_bursts[self.ring_aw0:]
        assert len(ws) <= len(aws)
        for (cyc, addr, awlen), strbs in zip(aws, ws):
            assert len(strbs) == awlen + 1, f"burst at 0x{addr:x}: {len(strbs)} beats, awlen {awlen}"
            recs = self.burst_records(addr, strbs)
            n = len(recs)
            end = addr + 32 * n
            if not 1 <= n <= MB:
                self.burst_errors.append(f"burst at 0x{addr:x}: {n} records (max {MB})")
            if addr // 4096 != (end - 1) // 4096:
                self.burst_errors.append(f"burst at 0x{addr:x} +{32 * n}: crosses 4 KiB")
            if addr // (32 * MB) != (end - 1) // (32 * MB):
                self.burst_errors.append(f"burst at 0x{addr:x} +{32 * n}: crosses a {32 * MB}-byte boundary")
            slot = (addr - self.base) // 32
            if slot != seq % size:
                self.burst_errors.append(f"burst at slot {slot}: expected record {seq} at slot {seq % size}")
            if slot + n > size:
                self.burst_errors.append(f"burst at slot {slot} of {n} records: past the ring's end ({size})")
            seq += n
            counts.append(n)
        self.bursts_checked += len(counts)
        assert not self.burst_errors, "; ".join(self.burst_errors[:5])
        return counts

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
            if ready:
                self.accept_cycles.append(self.cycle)
            if dut.m_axi_awvalid.value and dut.m_axi_awready.value:
                self.aw_log.append((self.cycle, int(dut.m_axi_awaddr.value), int(dut.m_axi_awlen.value)))
            if dut.m_axi_wvalid.value and dut.m_axi_wready.value:
                self._w_cur.append(int(dut.m_axi_wstrb.value))
                if dut.m_axi_wlast.value:
                    self.w_bursts.append(self._w_cur)
                    self._w_cur = []
            self.cycle += 1
            await RisingEdge(dut.clk)

    async def consume(self, limit, stall_prob=0.0, doorbell_every=1):
        """The host: read records by phase bit, check them, ring the CONS doorbell."""
        size = 1 << self.ring_log2
        since_db = 0
        while self.consumed < limit:
            if stall_prob and self.rng.random() < stall_prob:
                await ClockCycles(self.dut.clk, self.rng.randint(20, 200))
            idx = self.consumed % size
            raw = self.ram.read(self.base + idx * 32, 32)
            rec = C.unpack_completion(raw)
            phase = rec["flags"] >> 31 & 1
            if phase != self.expect_phase:
                await ClockCycles(self.dut.clk, 2)
                continue
            exp = self.accepted[self.consumed]
            if rec["depart_ns"] != exp["depart_ns"]:
                hits = [i for i, a in enumerate(self.accepted) if a["depart_ns"] == rec["depart_ns"]]
                self.dut._log.error("DEBUG record %d has the data of accepted %s; raw %s", self.consumed, hits, raw.hex())
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
    counts = tb.check_bursts()
    assert sum(counts) == total
    # fairness: while all three sources had work, grants rotated
    srcs = [a["src"] for a in tb.accepted]
    dut._log.info("grants per source: %s; bursts by records: %s", Counter(srcs), sorted(Counter(counts).items()))


@cocotb.test(timeout_time=600, timeout_unit="us")
async def test_random_stalls(dut):
    """Random requests with AW, W and B stalled at random, rings of several sizes at bases that put
    (32 << MAX_BURST_LOG2)-byte and 4 KiB boundaries inside them; the host consumes with stalls.
    Every record, free, event and counter as in test_random_traffic, every burst by the rules, and
    records must have been coalesced (bursts of more than one record) when MAX_BURST_LOG2 > 0."""
    tb = TB(dut, seed=31)
    tb.valid_prob = 0.9
    await tb.reset()
    cocotb.start_soon(tb.drive())
    all_counts = []
    for log2, base, aw, w, b in [
            (5, 0x1_0000_1FA0, (0.2, 6), (0.2, 4), (0.1, 12)),     # 4 KiB boundary at slot 3
            (2, 0x1_0000_3FE0, (0.3, 8), None, (0.2, 20)),          # a ring smaller than a burst
            (6, 0x1_0000_4020, None, (0.3, 5), (0.3, 30)),          # B held long
            (0, 0x1_0000_5000, (0.2, 6), (0.2, 6), (0.1, 10))]:     # one record
        tb.stall(aw, w, b)
        tb.accepted, tb.freed, tb.events = [], [], []
        await tb.setup_ring(log2, base)
        total = 1000 if os.environ.get("SOAK") else 150    # make test: 600 records in 4 rings
        for i in range(total):
            s = tb.rng.randrange(N_SRC)
            tb.pending[s].append(tb.make_req(s))
        # (a doorbell every 4 records would never come in a ring of fewer)
        await tb.consume(total, stall_prob=0.03, doorbell_every=min(tb.rng.choice([1, 4]), 1 << log2))
        tb.stall()
        await ClockCycles(dut.clk, 40)
        assert len(tb.accepted) == total and tb.overwrites == 0
        assert await tb.rd(C.CPL_PROD) == total
        tb.check_frees_and_events()
        counts = tb.check_bursts()
        assert sum(counts) == total
        all_counts += counts
        dut._log.info("ring 2^%d at 0x%x: %d bursts, by records %s", log2, base, len(counts),
                      sorted(Counter(counts).items()))
    if MB > 1:
        assert max(all_counts) > 1, "no two records were ever coalesced"


@cocotb.test(timeout_time=300, timeout_unit="us")
async def test_idle_no_added_latency(dut):
    """Requests spaced out, the write channel always ready: every record leaves alone, its AW in the
    cycle after its accept (the timing of one burst per record)."""
    tb = TB(dut, seed=41)
    await tb.reset()
    await tb.setup_ring(5, 0x1_0000_2060)
    cocotb.start_soon(tb.drive())
    total = 40
    for i in range(total):
        tb.pending[i % N_SRC].append(tb.make_req(i % N_SRC))
        await tb.consume(i + 1)
        await ClockCycles(dut.clk, 12)
    await ClockCycles(dut.clk, 10)
    counts = tb.check_bursts()
    assert counts == [1] * total, counts
    aws = [c for c, _, _ in tb.aw_log[tb.ring_aw0:]]
    assert [a - c for a, c in zip(aws, tb.accept_cycles)] == [1] * total, \
        list(zip(tb.accept_cycles, aws))
    tb.check_frees_and_events()


@cocotb.test(timeout_time=300, timeout_unit="us")
async def test_partition_wrap_chunk_4k(dut):
    """AW and W held while records pile up: the first record's burst waits on the bus, the buffer fills
    (then `ready` stays low), and when the bus is released the waiting records leave in the model's
    partition (cut at the ring's wrap, at (32 << MAX_BURST_LOG2)-byte boundaries and so at 4 KiB), in
    two rings: one whose waiting records run over the wrap, one across a 4 KiB boundary. (The last
    burst of the partition may take records accepted after the release too.)"""
    tb = TB(dut, seed=51)
    tb.valid_prob = 1.0
    await tb.reset()
    cocotb.start_soon(tb.drive())
    for log2, base, before in [(5, 0x1_0000_2060, 26), (6, 0x1_0000_1F20, 2)]:
        tb.accepted, tb.freed, tb.events = [], [], []
        await tb.setup_ring(log2, base)
        size = 1 << log2
        # `before` records through an idle channel, consumed: the next record is at slot `before`
        for i in range(before):
            tb.pending[i % N_SRC].append(tb.make_req(i % N_SRC))
        await tb.consume(before)
        await ClockCycles(dut.clk, 10)
        n0 = len(tb.aw_log)
        tb.ram.aw_channel.pause = True
        tb.ram.w_channel.pause = True
        hold = min(BUF_RECS, size)
        for i in range(hold + 3):
            tb.pending[i % N_SRC].append(tb.make_req(i % N_SRC))
        await ClockCycles(dut.clk, 100)
        assert len(tb.accepted) - before == hold, (len(tb.accepted) - before, hold)
        tb.ram.aw_channel.pause = False
        tb.ram.w_channel.pause = False
        await ClockCycles(dut.clk, 40 + 2 * hold * max(1, 256 // AXI_DATA_W))
        bursts = [((a - base) // 32, len(tb.burst_records(a, st)))
                  for (_, a, _), st in zip(tb.aw_log[n0:], tb.w_bursts[n0:])]
        want = [(before % size, 1)] + [(q % size, n) for q, n in
                                       expected_partition(base, size, before + 1, hold - 1)]
        got = bursts[:len(want)]
        assert got[:-1] == want[:-1] and got[-1][0] == want[-1][0] and got[-1][1] >= want[-1][1], \
            f"bursts (slot, records) {got}, model {want}"
        dut._log.info("ring 2^%d at 0x%x from slot %d: bursts (slot, records) %s, model %s", log2, base,
                      before % size, got, want)
        await tb.consume(before + hold + 3)
        await ClockCycles(dut.clk, 20)
        assert tb.overwrites == 0 and await tb.rd(C.CPL_PROD) == before + hold + 3
        tb.check_bursts()
        tb.check_frees_and_events()


@cocotb.test(timeout_time=300, timeout_unit="us")
async def test_b_held_buffer_full(dut):
    """B held while requests keep coming: bursts go out until 2^OUT_LOG2 + 1 wait for B, then records
    wait until the buffer (BUF_RECS) or the metadata FIFO (2^(OUT_LOG2 + MAX_BURST_LOG2) + 1 records
    between accept and retirement) is full and `ready` stays low; when B is released everything
    drains: every record, free, event and counter, every burst by the rules."""
    tb = TB(dut, seed=71)
    tb.valid_prob = 1.0
    for ch in (tb.ram.aw_channel, tb.ram.w_channel, tb.ram.b_channel):
        ch.queue_occupancy_limit = 64      # the host model must not stop taking AW before the card
    await tb.reset()
    await tb.setup_ring(7, 0x1_0000_3F40)
    cocotb.start_soon(tb.drive())
    tb.ram.b_channel.pause = True
    total = 200
    for i in range(total):
        tb.pending[i % N_SRC].append(tb.make_req(i % N_SRC))
    n1 = -1
    for _ in range(20):     # until nothing is taken for 200 cycles (64 bits: bursts of 32 beats)
        if len(tb.accepted) == n1:
            break
        n1 = len(tb.accepted)
        await ClockCycles(dut.clk, 200)
    assert len(tb.accepted) == n1 < total, "ready did not stay low with B held"
    nb = len(tb.aw_log) - tb.ring_aw0
    in_bursts = sum(tb.check_bursts())
    dut._log.info("B held: %d records taken, %d bursts (%d records) on the bus", n1, nb, in_bursts)
    assert nb == (1 << OUT_LOG2) + 1, "bursts waiting for B"
    assert n1 - in_bursts == min(BUF_RECS, (1 << (OUT_LOG2 + MAX_BURST_LOG2)) + 1 - in_bursts), \
        "the buffer / metadata FIFO did not fill"
    tb.ram.b_channel.pause = False
    await tb.consume(total, doorbell_every=4)
    # records are retired one per cycle, so PROD can trail the records on the bus (8 in 5 beats)
    for _ in range(20):
        await ClockCycles(dut.clk, 20)
        if await tb.rd(C.CPL_PROD) == total:
            break
    assert tb.overwrites == 0 and await tb.rd(C.CPL_PROD) == total
    tb.check_frees_and_events()
    await tb.check_counters()
    tb.check_bursts()


@cocotb.test(timeout_time=300, timeout_unit="us")
async def test_reenable_with_records_in_flight(dut):
    """The ring is disabled, moved and enabled again while records of the old ring wait for AW: they
    still land in the old ring at their slots, and the new ring starts fresh (PROD 0, slot 0, phase
    1) only after them."""
    tb = TB(dut, seed=61)
    tb.valid_prob = 1.0
    await tb.reset()
    old = 0x1_0000_2000
    await tb.setup_ring(4, old)
    cocotb.start_soon(tb.drive())
    tb.ram.aw_channel.pause = True
    nheld = min(6, BUF_RECS)
    for i in range(nheld):
        tb.pending[0].append(tb.make_req(0))
    await ClockCycles(dut.clk, 30)
    assert len(tb.accepted) == nheld
    held = list(tb.accepted)
    new = 0x1_0000_8000
    tb.ram.write(new, bytes(32 << 3))
    await tb.wr(C.CPL_CTRL, 0)
    await tb.wr(C.CPL_BASE_LO, new & 0xFFFFFFFF)
    await tb.wr(C.CPL_SIZE_LOG2, 3)
    await tb.wr(C.CPL_CONS, 0)
    await tb.wr(C.CPL_CTRL, 1)
    assert await tb.rd(C.CPL_CTRL) == 1
    for i in range(5):
        tb.pending[1].append(tb.make_req(1))
    await ClockCycles(dut.clk, 20)
    assert len(tb.accepted) == nheld, "a request was taken before the old ring's records were out"
    tb.ram.on_write = None
    tb.ram.aw_channel.pause = False
    await ClockCycles(dut.clk, 60)
    for i, exp in enumerate(held):
        rec = C.unpack_completion(tb.ram.read(old + 32 * i, 32))
        assert rec["cookie"] == exp["cookie"] and rec["flags"] >> 31 == 1, f"old ring record {i}"
    assert len(tb.accepted) == nheld + 5
    for i, exp in enumerate(tb.accepted[nheld:]):
        rec = C.unpack_completion(tb.ram.read(new + 32 * i, 32))
        assert rec["cookie"] == exp["cookie"] and rec["flags"] >> 31 == 1, f"new ring record {i}"
    assert await tb.rd(C.CPL_PROD) == 5


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
