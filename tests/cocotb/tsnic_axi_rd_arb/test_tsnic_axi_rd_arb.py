"""Bench for tsnic_axi_rd_arb: two cocotbext-axi read masters (several reads outstanding each, random
IDs and lengths) share one AxiRamRead through the arbiter, with random stalls on AR and R. Every read
must return host memory's bytes to the master that asked; AR grants must alternate when both wait."""

import itertools
import random

import cocotb
from cocotb.triggers import RisingEdge, ReadOnly, ClockCycles, Combine
from cocotbext.axi import AxiReadBus, AxiMasterRead, AxiRamRead

from tsnic_clock import start_clock

MEM = 1 << 20


def pauses(rng, p):
    while True:
        yield rng.random() < p


class TB:
    def __init__(self, dut, seed):
        self.dut = dut
        self.rng = random.Random(seed)
        start_clock(dut.clk, 4000)
        self.ram = AxiRamRead(AxiReadBus.from_prefix(dut, "m_axi"), dut.clk, dut.rst, size=MEM)
        self.m = [AxiMasterRead(AxiReadBus.from_prefix(dut, f"s{i}_axi"), dut.clk, dut.rst) for i in range(2)]
        self.ram.write(0, bytes(self.rng.getrandbits(8) for _ in range(MEM)))
        self.grants = []

    async def reset(self):
        self.dut.rst.value = 1
        await ClockCycles(self.dut.clk, 4)
        self.dut.rst.value = 0
        await ClockCycles(self.dut.clk, 2)

    async def watch_grants(self):
        dut = self.dut
        while True:
            await RisingEdge(dut.clk)
            await ReadOnly()
            both = dut.s0_axi_arvalid.value and dut.s1_axi_arvalid.value
            if dut.s0_axi_arready.value:
                self.grants.append((0, bool(both)))
            if dut.s1_axi_arready.value:
                self.grants.append((1, bool(both)))

    async def worker(self, i, n):
        m = self.m[i]
        rng = random.Random(self.rng.getrandbits(32))
        for _ in range(n):
            length = rng.choice([8, 32, 64, 100, 256, 1500, rng.randint(1, 4000)])
            addr = rng.randrange(0, MEM - length)
            arid = rng.randrange(0, 1 << 7)
            resp = await m.read(addr, length, arid=arid)
            assert resp.data == self.ram.read(addr, length), f"master {i}: data mismatch at 0x{addr:x}+{length}"

    async def run(self, workers_per_master, n):
        tasks = []
        for i in range(2):
            for _ in range(workers_per_master):
                tasks.append(cocotb.start_soon(self.worker(i, n)))
        await Combine(*tasks)


@cocotb.test(timeout_time=2, timeout_unit="ms")
async def test_random_reads(dut):
    tb = TB(dut, 1)
    await tb.reset()
    cocotb.start_soon(tb.watch_grants())
    await tb.run(4, 25)
    # round robin: while both sources wait, consecutive grants alternate
    contested = [g for g, both in tb.grants if both]
    dut._log.info("%d AR grants, %d contested", len(tb.grants), len(contested))
    runs = [len(list(grp)) for _, grp in itertools.groupby(g for g, both in tb.grants if both)]
    assert not runs or max(runs) <= 2, f"a source was granted {max(runs)} times in a row while both waited"


@cocotb.test(timeout_time=2, timeout_unit="ms")
async def test_random_reads_stalls(dut):
    tb = TB(dut, 2)
    tb.ram.ar_channel.set_pause_generator(pauses(random.Random(3), 0.5))
    tb.ram.r_channel.set_pause_generator(pauses(random.Random(4), 0.3))
    for m in tb.m:
        m.r_channel.set_pause_generator(pauses(random.Random(5), 0.3))
    await tb.reset()
    await tb.run(3, 15)
