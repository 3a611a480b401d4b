"""Bench for tsnic_rx_steer: a Python reference model of the exact-match table (lowest matching
entry wins; a key not valid matches nothing; a miss goes to the default queue; queue numbers
>= NUM_RXQ select queue 0) against the RTL. One lookup may enter every cycle; each must come out
exactly two cycles later with its tag. Random table writes between lookups (visible to lookups that
enter from the next cycle), keys drawn mostly from the table (hits), some near misses (one field
off by one), invalid keys; directed: shadowed entries, invalidation, read-back."""

import os
import random

import cocotb
from cocotb.triggers import RisingEdge, ReadOnly, ClockCycles, FallingEdge

from tsnic_clock import start_clock

ENTRIES = int(os.environ.get("ENTRIES", "16"))
NUM_RXQ = int(os.environ.get("NUM_RXQ", "4"))
FIELDS = ("src_ip", "dst_ip", "proto", "src_port", "dst_port")
WIDTH = {"src_ip": 32, "dst_ip": 32, "proto": 8, "src_port": 16, "dst_port": 16}


class Model:
    def __init__(self):
        self.t = {}                 # idx -> (valid, key tuple, queue)

    def lookup(self, key_ok, key, default_q):
        if key_ok:
            for i in range(ENTRIES):
                e = self.t.get(i)
                if e and e[0] and e[1] == key:
                    q = e[2] if e[2] < NUM_RXQ else 0
                    return True, i, q
        return False, 0, (default_q if default_q < NUM_RXQ else 0)


class TB:
    def __init__(self, dut, seed):
        self.dut = dut
        self.rng = random.Random(seed)
        self.model = Model()
        start_clock(dut.clk, 4000)
        for s in ("tbl_wr_en", "s_valid", "s_key_valid", "tbl_rd_idx", "default_queue"):
            getattr(dut, s).value = 0
        self.expect = []            # (out cycle, tag, hit, entry, queue)
        self.cycle = 0
        self.errors = []
        self.checked = 0

    async def reset(self):
        self.dut.rst.value = 1
        await ClockCycles(self.dut.clk, 3)
        self.dut.rst.value = 0

    def rand_key(self):
        return (self.rng.getrandbits(32), self.rng.getrandbits(32), self.rng.choice([6, 17, 1]),
                self.rng.getrandbits(16), self.rng.getrandbits(16))

    async def monitor(self):
        dut = self.dut
        while True:
            await RisingEdge(dut.clk)
            await ReadOnly()
            self.cycle += 1
            due = [e for e in self.expect if e[0] == self.cycle]
            self.expect = [e for e in self.expect if e[0] != self.cycle]
            if dut.m_valid.value:
                if len(due) != 1:
                    self.errors.append(f"cycle {self.cycle}: output with {len(due)} lookups due")
                    continue
                _, tag, hit, ent, q = due[0]
                got = (int(dut.m_tag.value), int(dut.m_hit.value), int(dut.m_entry.value) if hit else 0,
                       int(dut.m_queue.value))
                if got != (tag, int(hit), ent, q):
                    self.errors.append(f"cycle {self.cycle}: got tag/hit/entry/queue {got}, model {(tag, int(hit), ent, q)}")
                self.checked += 1
            elif due:
                self.errors.append(f"cycle {self.cycle}: lookup tag {due[0][1]} did not come out after 2 cycles")

    def drive_write(self, idx, valid, key, q):
        d = self.dut
        d.tbl_wr_en.value = 1
        d.tbl_wr_idx.value = idx
        d.tbl_wr_valid.value = int(valid)
        for f, v in zip(FIELDS, key):
            getattr(d, f"tbl_wr_{f}").value = v
        d.tbl_wr_queue.value = q

    def drive_lookup(self, key_ok, key, tag, default_q):
        d = self.dut
        d.s_valid.value = 1
        d.s_key_valid.value = int(key_ok)
        d.s_src_ip.value, d.s_dst_ip.value, d.s_proto.value, d.s_src_port.value, d.s_dst_port.value = key
        d.s_tag.value = tag
        d.default_queue.value = default_q
        hit, ent, q = self.model.lookup(key_ok, key, default_q)
        self.expect.append((self.cycle + 2, tag, hit, ent, q))

    async def step(self, write=None, lookup=None):
        """One cycle: drive on the falling edge, the model updates as the RTL does at the rising edge."""
        await FallingEdge(self.dut.clk)
        self.dut.tbl_wr_en.value = 0
        self.dut.s_valid.value = 0
        if lookup is not None:
            self.drive_lookup(*lookup)      # sees the table as it is before this cycle's write
        if write is not None:
            self.drive_write(*write)
            self.model.t[write[0]] = (write[1], write[2], write[3])


@cocotb.test()
async def test_random(dut):
    """Random writes and back-to-back lookups against the model."""
    tb = TB(dut, int(os.environ.get("SEED", "1")))
    await tb.reset()
    cocotb.start_soon(tb.monitor())
    keys = [tb.rand_key() for _ in range(ENTRIES * 2)]
    n = int(os.environ.get("STEER_OPS", "4000"))
    for i in range(n):
        w = None
        if tb.rng.random() < 0.15:
            w = (tb.rng.randrange(ENTRIES), tb.rng.random() < 0.85, tb.rng.choice(keys), tb.rng.randrange(NUM_RXQ + 3))
        lk = None
        if tb.rng.random() < 0.8:
            k = tb.rng.choice(keys)
            r = tb.rng.random()
            if r < 0.15:           # near miss: one field off by one
                j = tb.rng.randrange(5)
                k = tuple((v + 1) % (1 << WIDTH[FIELDS[j]]) if x == j else v for x, v in enumerate(k))
            elif r < 0.2:
                k = tb.rand_key()
            lk = (tb.rng.random() < 0.9, k, i & 0xFFFFFFFF, tb.rng.randrange(NUM_RXQ + 2))
        await tb.step(write=w, lookup=lk)
    await tb.step()
    await ClockCycles(dut.clk, 5)
    assert not tb.errors, tb.errors[:5]
    dut._log.info("%d lookups checked", tb.checked)
    assert tb.checked > n // 2


@cocotb.test()
async def test_directed(dut):
    """Shadowing (lowest index wins), invalidation, out-of-range queues, key_valid low, read-back."""
    tb = TB(dut, 2)
    await tb.reset()
    cocotb.start_soon(tb.monitor())
    k = (0x0A000001, 0x0A000002, 6, 40000, 80)
    await tb.step(write=(ENTRIES - 1, True, k, 1))
    await tb.step(lookup=(True, k, 1, 0))                  # entry ENTRIES-1 -> queue 1
    await tb.step(write=(2, True, k, 2))
    await tb.step(lookup=(True, k, 2, 0))                  # entry 2 shadows -> queue 2
    await tb.step(lookup=(False, k, 3, 3))                 # key not valid: default 3
    await tb.step(write=(2, False, k, 2))
    await tb.step(lookup=(True, k, 4, 0))                  # entry 2 invalid: back to ENTRIES-1
    await tb.step(write=(ENTRIES - 1, True, k, NUM_RXQ))   # out-of-range queue -> 0
    await tb.step(lookup=(True, k, 5, 1))
    await tb.step(lookup=(True, k, 6, NUM_RXQ + 5))        # out-of-range default on a miss? (a hit here)
    await tb.step(lookup=(True, (1, 2, 3, 4, 5), 7, NUM_RXQ + 5))   # miss, out-of-range default -> 0
    await tb.step()
    await ClockCycles(dut.clk, 5)
    assert not tb.errors, tb.errors
    assert tb.checked == 7
    # read-back port (combinational)
    dut.tbl_rd_idx.value = ENTRIES - 1
    await ClockCycles(dut.clk, 1)
    await ReadOnly()
    assert int(dut.tbl_rd_valid.value) == 1 and int(dut.tbl_rd_src_ip.value) == k[0]
    assert int(dut.tbl_rd_dst_port.value) == 80 and int(dut.tbl_rd_queue.value) == NUM_RXQ
