"""Bench for tsnic_rx_steer: a Python reference model of the exact-match table (lowest matching
entry wins; a key not valid matches nothing; a miss goes to the default queue; queue numbers
>= NUM_RXQ select queue 0) against the RTL. One lookup may enter every cycle; each must come out
exactly two cycles later with its tag. Random table writes between lookups (visible to lookups that
enter from the next cycle), keys drawn mostly from the table (hits), some near misses (one field
off by one), invalid keys; directed: shadowed entries, invalidation, read-back.
EtherType rules: a lookup that hits no entry goes to the queue of the lowest valid rule whose
EtherType equals the key's (with et_valid), m_hit 0; random rule writes and EtherTypes drawn mostly
from the rules (0x88F7 L2 PTP among them); directed: PTP and non-PTP frames interleaved, a 5-tuple hit
over a rule, et_valid low, shadowed and invalidated rules, rule read-back."""

import os
import random

import cocotb
from cocotb.triggers import RisingEdge, ReadOnly, ClockCycles, FallingEdge

from tsnic_clock import start_clock

ENTRIES = int(os.environ.get("ENTRIES", "16"))
NUM_RXQ = int(os.environ.get("NUM_RXQ", "4"))
ET_RULES = int(os.environ.get("ET_RULES", "2"))
ETHERTYPES = (0x88F7, 0x0800, 0x86DD, 0x88B5, 0x8100)
FIELDS = ("src_ip", "dst_ip", "proto", "src_port", "dst_port")
WIDTH = {"src_ip": 32, "dst_ip": 32, "proto": 8, "src_port": 16, "dst_port": 16}


class Model:
    def __init__(self):
        self.t = {}                 # idx -> (valid, key tuple, queue)
        self.r = {}                 # EtherType rule idx -> (valid, ethertype, queue)

    def lookup(self, key_ok, key, default_q, et_ok=False, et=0):
        if key_ok:
            for i in range(ENTRIES):
                e = self.t.get(i)
                if e and e[0] and e[1] == key:
                    q = e[2] if e[2] < NUM_RXQ else 0
                    return True, i, q
        if et_ok:
            for i in range(ET_RULES):
                r = self.r.get(i)
                if r and r[0] and r[1] == et:
                    return False, 0, (r[2] if r[2] < NUM_RXQ else 0)
        return False, 0, (default_q if default_q < NUM_RXQ else 0)


class TB:
    def __init__(self, dut, seed):
        self.dut = dut
        self.rng = random.Random(seed)
        self.model = Model()
        start_clock(dut.clk, 4000)
        for s in ("tbl_wr_en", "s_valid", "s_key_valid", "tbl_rd_idx", "default_queue", "et_wr_en",
                  "et_rd_idx", "s_et_valid", "s_ethertype"):
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

    def drive_et_write(self, idx, valid, et, q):
        d = self.dut
        d.et_wr_en.value = 1
        d.et_wr_idx.value = idx
        d.et_wr_valid.value = int(valid)
        d.et_wr_ethertype.value = et
        d.et_wr_queue.value = q

    def drive_lookup(self, key_ok, key, tag, default_q, et_ok=False, et=0):
        d = self.dut
        d.s_valid.value = 1
        d.s_key_valid.value = int(key_ok)
        d.s_src_ip.value, d.s_dst_ip.value, d.s_proto.value, d.s_src_port.value, d.s_dst_port.value = key
        d.s_et_valid.value = int(et_ok)
        d.s_ethertype.value = et
        d.s_tag.value = tag
        d.default_queue.value = default_q
        hit, ent, q = self.model.lookup(key_ok, key, default_q, et_ok, et)
        self.expect.append((self.cycle + 2, tag, hit, ent, q))

    async def step(self, write=None, lookup=None, et_write=None):
        """One cycle: drive on the falling edge, the model updates as the RTL does at the rising edge."""
        await FallingEdge(self.dut.clk)
        self.dut.tbl_wr_en.value = 0
        self.dut.et_wr_en.value = 0
        self.dut.s_valid.value = 0
        if lookup is not None:
            self.drive_lookup(*lookup)      # sees the table as it is before this cycle's write
        if write is not None:
            self.drive_write(*write)
            self.model.t[write[0]] = (write[1], write[2], write[3])
        if et_write is not None:
            self.drive_et_write(*et_write)
            self.model.r[et_write[0]] = (et_write[1], et_write[2], et_write[3])


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
        ew = None
        if tb.rng.random() < 0.05:
            ew = (tb.rng.randrange(ET_RULES), tb.rng.random() < 0.85, tb.rng.choice(ETHERTYPES),
                  tb.rng.randrange(NUM_RXQ + 3))
        lk = None
        if tb.rng.random() < 0.8:
            k = tb.rng.choice(keys)
            r = tb.rng.random()
            if r < 0.15:           # near miss: one field off by one
                j = tb.rng.randrange(5)
                k = tuple((v + 1) % (1 << WIDTH[FIELDS[j]]) if x == j else v for x, v in enumerate(k))
            elif r < 0.2:
                k = tb.rand_key()
            et = tb.rng.choice(ETHERTYPES) if tb.rng.random() < 0.9 else tb.rng.getrandbits(16)
            if tb.rng.random() < 0.05:     # near miss
                et ^= 1 << tb.rng.randrange(16)
            lk = (tb.rng.random() < 0.7, k, i & 0xFFFFFFFF, tb.rng.randrange(NUM_RXQ + 2),
                  tb.rng.random() < 0.95, et)
        await tb.step(write=w, lookup=lk, et_write=ew)
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


@cocotb.test()
async def test_ethertype_directed(dut):
    """L2 PTP (0x88F7) and other frames interleaved back to back; a 5-tuple hit wins over a rule;
    et_valid low matches no rule; the lowest rule wins; an invalidated rule; out-of-range queue; read-back."""
    tb = TB(dut, 3)
    await tb.reset()
    cocotb.start_soon(tb.monitor())
    ptpq, dq = 1 % NUM_RXQ, (2 % NUM_RXQ) if NUM_RXQ > 2 else 0
    nokey = (0, 0, 0, 0, 0)
    k = (0x0A000001, 0x0A000002, 17, 40000, 9000)
    await tb.step(et_write=(ET_RULES - 1, True, 0x88F7, ptpq))
    tag = 0
    for i in range(12):                      # interleaved, one lookup per cycle
        ptp = i % 2 == 0 or i % 5 == 0
        et = 0x88F7 if ptp else ETHERTYPES[1 + i % 4]
        await tb.step(lookup=(False, nokey, tag, dq, True, et))
        tag += 1
    await tb.step(write=(0, True, k, 3 % NUM_RXQ))
    await tb.step(lookup=(True, k, tag, dq, True, 0x88F7))           # the 5-tuple entry wins
    await tb.step(lookup=(False, nokey, tag + 1, dq, False, 0x88F7))  # no EtherType: default
    await tb.step(lookup=(False, nokey, tag + 2, dq, True, 0x88F6))   # near miss: default
    tag += 3
    if ET_RULES > 1:
        await tb.step(et_write=(0, True, 0x88F7, 0))                  # rule 0 shadows rule ET_RULES-1
        await tb.step(lookup=(False, nokey, tag, dq, True, 0x88F7))
        await tb.step(et_write=(0, False, 0x88F7, 0))                 # rule 0 invalid: back to ET_RULES-1
        await tb.step(lookup=(False, nokey, tag + 1, dq, True, 0x88F7))
        tag += 2
    await tb.step(et_write=(ET_RULES - 1, True, 0x88F7, NUM_RXQ))      # out-of-range queue -> 0
    await tb.step(lookup=(False, nokey, tag, dq, True, 0x88F7))
    tag += 1
    await tb.step()
    await ClockCycles(dut.clk, 5)
    assert not tb.errors, tb.errors
    assert tb.checked == tag
    # the PTP lookups really went to the rule's queue, the others to the default (not both the same)
    assert ptpq != dq
    dut.et_rd_idx.value = ET_RULES - 1
    await ClockCycles(dut.clk, 1)
    await ReadOnly()
    assert int(dut.et_rd_valid.value) == 1 and int(dut.et_rd_ethertype.value) == 0x88F7
    assert int(dut.et_rd_queue.value) == NUM_RXQ
