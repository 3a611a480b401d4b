"""Bench for tsnic_axi_wr_arb: two cocotbext-axi write masters (several writes outstanding each,
random IDs, lengths, strobes from unaligned starts) share one AxiRamWrite through the arbiter, with
random stalls on AW, W and B. Reference model: a byte array both masters' writes are applied to (the
masters write disjoint halves); every write's response comes back to the master that issued it with
its ID; the RAM must equal the model. Fairness: when both wait, AW grants alternate."""

import random

import cocotb
from cocotb.triggers import RisingEdge, ReadOnly, ClockCycles, Combine
from cocotbext.axi import AxiWriteBus, AxiMasterWrite, AxiRamWrite

from tsnic_clock import start_clock

MEM = 1 << 20
HALF = MEM // 2


def pauses(rng, p):
    while True:
        yield rng.random() < p


class TB:
    def __init__(self, dut, seed):
        self.dut = dut
        self.rng = random.Random(seed)
        start_clock(dut.clk, 4000)
        self.ram = AxiRamWrite(AxiWriteBus.from_prefix(dut, "m_axi"), dut.clk, dut.rst, size=MEM)
        self.m = [AxiMasterWrite(AxiWriteBus.from_prefix(dut, f"s{i}_axi"), dut.clk, dut.rst) for i in range(2)]
        self.model = bytearray(MEM)
        self.grants = []

    async def reset(self):
        self.dut.rst.value = 1
        await ClockCycles(self.dut.clk, 4)
        self.dut.rst.value = 0
        await ClockCycles(self.dut.clk, 2)

    async def watch(self):
        dut = self.dut
        while True:
            await RisingEdge(dut.clk)
            await ReadOnly()
            both = dut.s0_axi_awvalid.value and dut.s1_axi_awvalid.value
            for i in range(2):
                if getattr(dut, f"s{i}_axi_awready").value:
                    self.grants.append((i, bool(both)))
            # W beats on the master side belong to the granted source only
            if dut.m_axi_wvalid.value and dut.m_axi_wready.value:
                src = int(dut.m_axi_awid.value) >> 7
                assert (dut.s0_axi_wready.value, dut.s1_axi_wready.value) == ((1, 0) if src == 0 else (0, 1))

    async def worker(self, i, n):
        m = self.m[i]
        rng = random.Random(self.rng.getrandbits(32))
        base = i * HALF
        for _ in range(n):
            length = rng.choice([1, 8, 32, 64, 100, 256, 1500, rng.randint(1, 5000)])
            addr = base + rng.randrange(0, HALF - length)
            data = bytes(rng.getrandbits(8) for _ in range(length))
            awid = rng.randrange(0, 1 << 7)
            resp = await m.write(addr, data, awid=awid)
            assert resp.resp == 0, f"master {i}: BRESP {resp.resp}"
            self.model[addr:addr + length] = data

    async def run(self, workers_per_master, n):
        tasks = [cocotb.start_soon(self.worker(i, n)) for i in range(2) for _ in range(workers_per_master)]
        await Combine(*tasks)
        await ClockCycles(self.dut.clk, 10)
        assert self.ram.read(0, MEM) == bytes(self.model), "RAM differs from the reference model"


@cocotb.test()
async def test_random_stalls(dut):
    """Both masters, 3 workers each, random stalls on every slave channel."""
    tb = TB(dut, 1)
    rng = random.Random(7)
    tb.ram.aw_channel.set_pause_generator(pauses(rng, 0.3))
    tb.ram.w_channel.set_pause_generator(pauses(rng, 0.3))
    tb.ram.b_channel.set_pause_generator(pauses(rng, 0.3))
    await tb.reset()
    cocotb.start_soon(tb.watch())
    await tb.run(3, 25)
    # fairness: a grant made while both waited never goes to the source granted just before
    contested = [g for g, both in tb.grants if both]
    assert len(contested) > 10, "the masters never competed: the test did not test fairness"
    repeats = sum(1 for k in range(1, len(tb.grants)) if tb.grants[k][1] and tb.grants[k][0] == tb.grants[k - 1][0])
    dut._log.info("grants %d, contested %d, contested repeats %d", len(tb.grants), len(contested), repeats)
    assert repeats == 0, f"{repeats} contested grants went to the source granted just before"


@cocotb.test()
async def test_one_master_full_rate(dut):
    """One master alone, no stalls: bursts go through back to back (one idle cycle between grants)."""
    tb = TB(dut, 2)
    await tb.reset()
    start = cocotb.utils.get_sim_time("ns")
    m = tb.m[1]
    data = bytes(range(256)) * 16
    await m.write(HALF, data)
    tb.model[HALF:HALF + len(data)] = data
    cycles = (cocotb.utils.get_sim_time("ns") - start) / 4
    assert tb.ram.read(0, MEM) == bytes(tb.model)
    dut._log.info("4096 bytes in %d cycles (%d beats)", cycles, len(data) // 8)
    assert cycles < len(data) // 8 + 64
