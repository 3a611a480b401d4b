"""Bench of the PCIe endpoint alone (tsnic_pcie_us) under cocotbext-pcie's RootComplex and its
UltraScale+ hard-block model (issue 11).

Around it: BAR0's AXI-Lite side is a cocotbext-axi AxiLiteRam (the core's registers stand-in); the AXI
slave side is driven by a cocotbext-axi AxiMaster (the core's host-memory master); host memory is a
region of the root complex. `RqMonitor` decodes every request TLP on RQ and every completion on RC
and checks, independently of the design: reads no longer than MRRS, nothing crossing 4 KiB, writes no
longer than MPS, no tag issued again while it still has completions to come, and no request at all
while bus master enable is off. Data is checked against host memory (the reference).

It also keeps, from the read requests it sees on RQ, the hard block's completion-buffer credits the
requests in flight may need in the worst case (PG213/PG156 PACKET_FC: one header per 64-byte read
completion boundary a request touches, one data credit per 16 bytes it touches), and flags any
moment at which they exceed the block's buffer (BUF_CPLH headers, BUF_CPLD_BYTES of data).
"""

import os
import random

import cocotb
from cocotb.triggers import First, RisingEdge, ReadOnly, ClockCycles, Timer
from cocotbext.axi import AxiBus, AxiMaster, AxiLiteBus, AxiLiteRam, AxiResp
from cocotbext.pcie.core.caps import PciCapId

from tsnic_pcie_model import PcieHost, MSIX_TABLE, MSIX_PBA

DATA_W = int(os.environ.get("DATA_W", "512"))
# SOAK=1 (make soak): the longer directed and random rounds of test_cpl_credits
SOAK = os.environ.get("SOAK", "") not in ("", "0")

# the hard block's completion buffer, from the product guides' "Completion Space" tables (not from the
# design's parameters): UltraScale+ (PG213, pcie4/pcie4c): 128 CPH, 32768 B; the Gen3 block at 256 bits
# (PG156 for UltraScale; pcie3_7x on SUME, docs/BOARDS.md): 64 CPH, 15872 B
BUF_CPLH, BUF_CPLD_BYTES = (128, 32768) if DATA_W == 512 else (64, 15872)


class RqMonitor:
    def __init__(self, dut):
        self.dut = dut
        self.reads = []            # (addr, bytes, tag)
        self.writes = []           # (addr, bytes)
        self.outstanding = set()
        self.errors = []
        self.mrrs = 512
        self.mps = 512
        self.bme = True
        # completion-credit model: tag -> [start, bytes, headers, data credits, completions seen]
        self.inflight = {}
        self.out_h = self.out_d = 0
        self.max_h = self.max_d = self.max_tags = 0
        self.done = []             # (start, bytes, completions) of every finished read request
        cocotb.start_soon(self._run())

    def reset_max(self):
        self.max_h = self.max_d = self.max_tags = 0
        self.done = []

    async def _run(self):
        dut = self.dut
        rq_sop = True
        rc_sop = True
        clk_rise = RisingEdge(dut.clk)
        rq_valid, rc_valid = dut.m_axis_rq_tvalid, dut.s_axis_rc_tvalid
        idle = False
        while True:
            if idle:
                # both ports idle: nothing is noted until a tvalid rises (the design and the model
                # drive them at clk edges): sleep until then, and look at that edge as the loop would
                await First(RisingEdge(rq_valid), RisingEdge(rc_valid))
            else:
                await clk_rise
            await ReadOnly()
            idle = not rq_valid.value and not rc_valid.value
            if rq_valid.value and dut.m_axis_rq_tready.value:
                if rq_sop:
                    d = int(dut.m_axis_rq_tdata.value) & ((1 << 128) - 1)
                    u = int(dut.m_axis_rq_tuser.value)
                    addr = d & ~3 & ((1 << 64) - 1)
                    dw = (d >> 64) & 0x7FF
                    rt = (d >> 75) & 0xF
                    tag = (d >> 96) & 0xFF
                    fbe, lbe = u & 0xF, (u >> (8 if DATA_W == 512 else 4)) & 0xF
                    first = (fbe & -fbe).bit_length() - 1 if fbe else 0
                    if dw == 1:
                        nbytes = fbe.bit_length() - first
                    else:
                        nbytes = dw * 4 - first - (4 - lbe.bit_length())
                    start = addr + first
                    if not self.bme:
                        self.errors.append(f"request type {rt} with bus master enable off")
                    if (start // 4096) != ((start + nbytes - 1) // 4096):
                        self.errors.append(f"request crosses 4 KiB: addr {start:#x} len {nbytes}")
                    if rt == 0:
                        if dw * 4 > self.mrrs:
                            self.errors.append(f"read of {dw} dwords > MRRS {self.mrrs}")
                        if tag in self.outstanding:
                            self.errors.append(f"tag {tag} reused while outstanding")
                        self.outstanding.add(tag)
                        self.reads.append((start, dw * 4, tag))
                        a = addr & 0xFFF
                        h = (a % 64 + dw * 4 + 63) // 64
                        dc = (a % 16 + dw * 4 + 15) // 16
                        self.inflight[tag] = [addr, dw * 4, h, dc, 0]
                        self.out_h += h
                        self.out_d += dc
                        self.max_h = max(self.max_h, self.out_h)
                        self.max_d = max(self.max_d, self.out_d)
                        self.max_tags = max(self.max_tags, len(self.inflight))
                        if self.out_h > BUF_CPLH or self.out_d * 16 > BUF_CPLD_BYTES:
                            self.errors.append(f"completion buffer overcommitted: {self.out_h} headers "
                                               f"(buffer {BUF_CPLH}), {self.out_d * 16} bytes "
                                               f"(buffer {BUF_CPLD_BYTES}), {len(self.inflight)} reads in flight")
                    elif rt == 1:
                        if dw * 4 > self.mps:
                            self.errors.append(f"write of {dw} dwords > MPS {self.mps}")
                        self.writes.append((start, nbytes))
                    else:
                        self.errors.append(f"unexpected request type {rt}")
                rq_sop = bool(dut.m_axis_rq_tlast.value)
            if rc_valid.value and dut.s_axis_rc_tready.value:
                if rc_sop:
                    d = int(dut.s_axis_rc_tdata.value)
                    tag = (d >> 64) & 0xFF
                    if tag in self.inflight:
                        self.inflight[tag][4] += 1
                    if (d >> 30) & 1:
                        self.outstanding.discard(tag)
                        if tag in self.inflight:
                            start, nb, h, dc, n = self.inflight.pop(tag)
                            self.out_h -= h
                            self.out_d -= dc
                            self.done.append((start, nb, n))
                rc_sop = bool(dut.s_axis_rc_tlast.value)


class TB:
    def __init__(self, dut, axi_master=True):
        self.dut = dut
        dut.irq.value = 0
        self.host = PcieHost(dut, width=DATA_W)
        self.axil = AxiLiteRam(AxiLiteBus.from_prefix(dut, "m_axil"), dut.clk, dut.rst, size=1 << 20)
        if axi_master:
            self.axi = AxiMaster(AxiBus.from_prefix(dut, "s_axi"), dut.clk, dut.rst)
        else:                       # the benchmark drives the AXI slave itself (RawWriter)
            for n in ("awvalid", "wvalid", "arvalid", "bready", "rready"):
                getattr(dut, "s_axi_" + n).value = 0
        self.mon = RqMonitor(dut)
        self.bad_np = 0
        self.rd_err = 0
        cocotb.start_soon(self._count())

    async def _count(self):
        while True:
            await RisingEdge(self.dut.clk)
            self.bad_np += int(self.dut.stat_bad_np.value)
            self.rd_err += int(self.dut.stat_rd_err.value)

    async def init(self):
        await self.host.init()
        self.mem, self.mem_base = self.host.mem(1 << 20)

    async def set_sizes(self, mps, mrrs):
        """Device Control: Max_Payload_Size [7:5], Max_Read_Request_Size [14:12] (128 << n)."""
        pdev = self.host.pdev
        ctl = await pdev.capability_read_dword(PciCapId.EXP, 8)
        ctl &= ~((7 << 5) | (7 << 12))
        ctl |= ((mps // 128).bit_length() - 1) << 5
        ctl |= ((mrrs // 128).bit_length() - 1) << 12
        await pdev.capability_write_dword(PciCapId.EXP, 8, ctl)
        self.mon.mps, self.mon.mrrs = mps, mrrs
        await ClockCycles(self.dut.clk, 4)
        assert int(self.dut.cfg_max_read_req.value) == (mrrs // 128).bit_length() - 1
        assert int(self.dut.cfg_max_payload.value) == (mps // 128).bit_length() - 1

    def check(self):
        assert not self.mon.errors, self.mon.errors[:5]
        # the framing checker (tsnic_pcie_framing, started by PcieHost) raises at a wrong beat; here:
        # it did see the requests
        assert self.host.framing.rq_beats >= len(self.mon.reads) + len(self.mon.writes)


def T(**kw):
    return cocotb.test(timeout_time=kw.pop("us", 2000), timeout_unit="us", **kw)


@T()
async def test_bar0_access(dut):
    """BAR0 dword reads/writes reach AXI-Lite (byte enables too); MSI-X table/PBA are the endpoint's;
    a 2-dword read is answered with completer abort, and the endpoint keeps working."""
    tb = TB(dut)
    await tb.init()
    bar = tb.host.bar0
    rng = random.Random(3)
    for _ in range(20):
        addr = rng.randrange(0, 0x20000 // 4) * 4
        val = rng.getrandbits(32)
        await bar.write_dword(addr, val)
        assert await bar.read_dword(addr) == val
        assert tb.axil.read_dword(addr) == val
    # a byte write: first BE selects the byte
    await bar.write_dword(0x40, 0x11223344)
    await bar.write(0x41, b"\xAB")
    assert await bar.read_dword(0x40) == 0x1122AB44
    # MSI-X table (written by the root complex at enumeration): vector entries hold address/data;
    # the AXI-Lite side never saw them
    for k in range(4):
        vec = tb.host.pdev.msi_vectors[k]
        assert await bar.read_dword(MSIX_TABLE + 16 * k) == vec.addr & 0xFFFFFFFF
        assert await bar.read_dword(MSIX_TABLE + 16 * k + 8) == vec.data
        assert await bar.read_dword(MSIX_TABLE + 16 * k + 12) == 0
    assert tb.axil.read_dword(MSIX_TABLE) == 0
    assert await bar.read_dword(MSIX_PBA) == 0
    # 8-byte read: completer abort
    before = tb.bad_np
    try:
        await bar.read(0x100, 8, timeout=2000)
        raise AssertionError("a 2-dword read completed successfully")
    except Exception as e:  # cocotbext-pcie raises on an unsuccessful completion
        assert "Unsuccessful" in str(e), e
    assert tb.bad_np == before + 1
    assert await bar.read_dword(MSIX_TABLE + 8) == tb.host.pdev.msi_vectors[0].data
    assert tb.host.framing.cc_beats >= 20       # the CC framing checker saw the completions
    tb.check()


@T()
async def test_msix(dut):
    """irq[v] raises vector v; a masked vector stays pending in the PBA until unmasked."""
    tb = TB(dut)
    await tb.init()
    bar = tb.host.bar0
    for v in range(4):
        dut.irq.value = 1 << v
        await RisingEdge(dut.clk)
        dut.irq.value = 0
        await ClockCycles(dut.clk, 50)
    assert tb.host.msix_count == [1, 1, 1, 1], tb.host.msix_count
    # mask vector 2, raise it: pending, not sent
    await bar.write_dword(MSIX_TABLE + 2 * 16 + 12, 1)
    assert await bar.read_dword(MSIX_TABLE + 2 * 16 + 12) == 1     # the write has landed
    dut.irq.value = 0b0100
    await RisingEdge(dut.clk)
    dut.irq.value = 0
    await ClockCycles(dut.clk, 50)
    assert tb.host.msix_count[2] == 1
    assert await bar.read_dword(MSIX_PBA) == 0b0100
    await bar.write_dword(MSIX_TABLE + 2 * 16 + 12, 0)
    await ClockCycles(dut.clk, 50)
    assert tb.host.msix_count[2] == 2
    assert await bar.read_dword(MSIX_PBA) == 0
    tb.check()


async def dma_rw_round(tb, rng, n, max_len):
    for _ in range(n):
        off = rng.randrange(0, (1 << 20) - max_len - 64)
        length = rng.randint(1, max_len)
        data = bytes(rng.getrandbits(8) for _ in range(length))
        tb.mem[off:off + length] = data
        r = await tb.axi.read(tb.mem_base + off, length)
        assert r.resp == AxiResp.OKAY, r.resp
        assert bytes(r.data) == data, f"read {length} at +{off:#x}: data differs"
        off2 = rng.randrange(0, (1 << 20) - max_len - 64)
        w = await tb.axi.write(tb.mem_base + off2, data)
        assert w.resp == AxiResp.OKAY
        await ClockCycles(tb.dut.clk, 30)        # posted: give the TLPs time to land
        assert bytes(tb.mem[off2:off2 + length]) == data, f"write {length} at +{off2:#x}: data differs"


@T(us=4000)
async def test_dma_split(dut):
    """Random reads/writes through AXI at MRRS/MPS 128, 256, 512: data equals host memory, every read
    request <= MRRS and every write <= MPS, none crosses 4 KiB (RqMonitor)."""
    tb = TB(dut)
    await tb.init()
    rng = random.Random(11)
    for mps, mrrs in ((128, 128), (256, 512), (512, 256)):
        await tb.set_sizes(mps, mrrs)
        await dma_rw_round(tb, rng, 12, 3000)
        tb.check()
    # a read that straddles a 4 KiB boundary, unaligned, with MRRS 512
    tb.mem[0x0FF0:0x1210] = bytes(range(256)) * 2 + bytes(32)
    r = await tb.axi.read(tb.mem_base + 0x0FF3, 0x200)
    assert bytes(r.data) == bytes(tb.mem[0x0FF3:0x11F3])
    sizes = [ln for (_, ln, _) in tb.mon.reads]
    assert max(sizes) == 512 and min(sizes) <= 128, sizes[:20]
    tb.check()


@T(us=4000)
async def test_tag_reuse(dut):
    """Many reads in flight (more requests than tags): tags wrap and are never reused while a request
    is outstanding; data comes back in order."""
    tb = TB(dut)
    await tb.init()
    await tb.set_sizes(128, 128)
    rng = random.Random(5)
    tb.mem[0:0x10000] = bytes(rng.getrandbits(8) for _ in range(0x10000))
    ops = []
    for k in range(8):
        off = k * 0x1800 + rng.randrange(0, 64)
        ops.append((off, 0x1000, cocotb.start_soon(tb.axi.read(tb.mem_base + off, 0x1000))))
    for off, ln, op in ops:
        r = await op
        assert bytes(r.data) == bytes(tb.mem[off:off + ln])
    tags = [t for (_, _, t) in tb.mon.reads]
    assert len(tags) >= 256 and set(tags) == set(range(32)), (len(tags), sorted(set(tags)))
    tb.check()


@T()
async def test_bus_master_off(dut):
    """With bus master enable off nothing goes on RQ: reads return SLVERR, writes answer SLVERR.
    Turned back on, DMA works again."""
    tb = TB(dut)
    await tb.init()
    await tb.host.pdev.clear_master()
    await ClockCycles(dut.clk, 4)
    tb.mon.bme = False
    n_req = len(tb.mon.reads) + len(tb.mon.writes)
    r = await tb.axi.read(tb.mem_base + 0x100, 200)
    assert r.resp == AxiResp.SLVERR, r.resp
    w = await tb.axi.write(tb.mem_base + 0x100, b"x" * 100)
    assert w.resp == AxiResp.SLVERR, w.resp
    await ClockCycles(dut.clk, 20)
    assert len(tb.mon.reads) + len(tb.mon.writes) == n_req
    tb.check()
    tb.mon.bme = True
    await tb.host.pdev.set_master()
    await ClockCycles(dut.clk, 4)
    tb.mem[0x100:0x200] = bytes(range(256))
    r = await tb.axi.read(tb.mem_base + 0x100, 256)
    assert r.resp == AxiResp.OKAY and bytes(r.data) == bytes(range(256))
    tb.check()


@T()
async def test_completion_errors(dut):
    """A read of an address the root complex does not decode (UR completion), a poisoned completion
    and a completion timeout all end as SLVERR on AXI R; the tags recover and later reads are correct."""
    tb = TB(dut)
    await tb.init()
    # unmapped host address: the root complex answers UR
    r = await tb.axi.read(0x7_0000_0000, 256)
    assert r.resp == AxiResp.SLVERR, r.resp
    assert tb.rd_err >= 1
    # poison the completions of the next read
    tb.host.poison = lambda tlp: True
    tb.mem[0x2000:0x2100] = bytes(range(256))
    r = await tb.axi.read(tb.mem_base + 0x2000, 256)
    tb.host.poison = None
    assert r.resp == AxiResp.SLVERR, r.resp
    # a completion that never comes: the hard block reports the timeout (error code 1001)
    tb.host.time_out = lambda tlp: True
    r = await tb.axi.read(tb.mem_base + 0x2000, 64)
    tb.host.time_out = None
    assert r.resp == AxiResp.SLVERR, r.resp
    for k in range(40):
        r = await tb.axi.read(tb.mem_base + 0x2000 + k, 128)
        assert r.resp == AxiResp.OKAY and bytes(r.data) == bytes(tb.mem[0x2000 + k:0x2080 + k])
    tb.check()


def rcb_pieces(start, nbytes, rcb):
    """Completions a request gets from a completer that splits at every read completion boundary."""
    return (start % rcb + nbytes + rcb - 1) // rcb


async def credit_round(tb, reads, mrrs, conc):
    """Runs `reads` ((offset, length) into host memory) as AXI reads, `conc` at a time; checks the data."""
    await tb.set_sizes(512, mrrs)
    pending = list(reads)

    async def worker():
        while pending:
            off, ln = pending.pop(0)
            r = await tb.axi.read(tb.mem_base + off, ln)
            assert r.resp == AxiResp.OKAY, (off, ln, r.resp)
            assert bytes(r.data) == bytes(tb.mem[off:off + ln]), f"read {ln} at +{off:#x}: data differs"

    ws = [cocotb.start_soon(worker()) for _ in range(conc)]
    # fail at the first overcommit or dropped completion (a dropped one would hang the read)
    while not all(w.done() for w in ws):
        await ClockCycles(tb.dut.clk, 64)
        assert not tb.mon.errors, tb.mon.errors[:3]
        assert tb.host.cpl_dropped == 0, "the hard-block model dropped a completion (buffer full)"
    for w in ws:
        await w


@T(us=40000)
async def test_cpl_credits(dut):
    """Completion-buffer credits (issue 30, defect 8). The host answers every read after 1 us (so that
    the design keeps as many reads in flight as it allows) and splits every completion at every read
    completion boundary, 64 then 128 bytes. Directed: 96 64-byte reads (256 with SOAK=1; all 32 tags
    in flight at once), 512-byte reads at MRRS 512 (the header budget is the limit and is used up to
    its last request), 8-byte reads across a 64/128-byte boundary (2 completions each); then random
    lengths, offsets, MRRS and concurrency (24 reads per MRRS, 60 with SOAK=1). Throughout,
    RqMonitor's worst-case credits of the reads in flight never exceed the block's buffer, every request got exactly its RCB pieces, the hard-block model dropped
    no completion, and all data equal host memory."""
    tb = TB(dut)
    await tb.init()
    tb.host.cpl_latency_ns = 1000
    rc = tb.host.rc
    rc.split_on_all_rcb = True
    rng = random.Random(37)
    tb.mem[0:1 << 20] = rng.randbytes(1 << 20)
    max_req_h = 512 // 64
    for rcb in (64, 128):
        rc.read_completion_boundary = rcb == 128
        # directed: small reads keep every tag busy
        tb.mon.reset_max()
        await credit_round(tb, [(k * 256 + 64 * (k % 3), 64) for k in range(256 if SOAK else 96)], 512, 48)
        assert tb.mon.max_tags == 32, f"RCB {rcb}: 64-byte reads: at most {tb.mon.max_tags} tags in flight"
        # directed: 512-byte requests (8 headers each): the buffer's headers are the limit
        tb.mon.reset_max()
        await credit_round(tb, [(k * 4096, 4096) for k in range(32)], 512, 16)
        assert BUF_CPLH - max_req_h < tb.mon.max_h <= BUF_CPLH, \
            f"RCB {rcb}: 512-byte reads: at most {tb.mon.max_h} headers in flight (buffer {BUF_CPLH})"
        done = tb.mon.done
        assert len(done) == 32 * 8 and all(n == rcb_pieces(s, b, rcb) for s, b, n in done), \
            f"RCB {rcb}: completions per request differ from the RCB split: {done[:4]}"
        # directed: 8 bytes across a 128-byte boundary: 2 completions at either RCB
        tb.mon.reset_max()
        await credit_round(tb, [(k * 512 + 0x7C, 8) for k in range(64)], 512, 40)
        assert all(n == 2 for _, _, n in tb.mon.done), tb.mon.done[:4]
        # random
        for mrrs in (128, 256, 512):
            tb.mon.reset_max()
            reads = []
            for _ in range(60 if SOAK else 24):
                ln = rng.choice([rng.randint(1, 128), rng.randint(1, 3000)])
                reads.append((rng.randrange(0, (1 << 20) - ln), ln))
            await credit_round(tb, reads, mrrs, rng.randint(4, 24))
            assert all(n == rcb_pieces(s, b, rcb) for s, b, n in tb.mon.done), \
                f"RCB {rcb} MRRS {mrrs}: completions per request differ from the RCB split"
            assert tb.mon.max_h <= BUF_CPLH
        dut._log.info("RCB %d: last round max %d headers, %d data bytes in flight", rcb, tb.mon.max_h,
                      tb.mon.max_d * 16)
        assert tb.host.cpl_dropped == 0, "the hard-block model dropped a completion (buffer full)"
        tb.check()
    tb.host.cpl_latency_ns = 0
    rc.split_on_all_rcb = False
    rc.read_completion_boundary = False


def split_ref(addr, length, mps):
    """The write TLPs a burst must become: pieces that end at multiples of MPS."""
    out = []
    while length:
        n = min(length, mps - addr % mps)
        out.append((addr, n))
        addr, length = addr + n, length - n
    return out


@T(us=8000)
async def test_write_stream(dut):
    """Back-to-back writes of random size (1..1600 bytes) and offset, AW with W or AW running ahead,
    while RQ stalls at random, at MPS 128 and 256: every byte lands, the write TLPs are exactly the
    MPS split of each burst in burst order (reference model), B comes back OKAY with the burst's ID
    in order."""
    tb = TB(dut, axi_master=False)
    await tb.init()
    rng = random.Random(23)
    tb.host.dev.rq_sink.set_pause_generator(iter(lambda: rng.random() < 0.3, None))
    for mps, ahead in ((128, False), (256, True), (256, False)):
        await tb.set_sizes(mps, 512)
        writes, expect, off = [], [], 0
        for k in range(60):
            length = rng.choice([rng.randint(1, 64), rng.randint(1, 1600)])
            off += rng.randint(0, 200)
            data = bytes(rng.getrandbits(8) for _ in range(length))
            writes.append((tb.mem_base + off, data))
            expect += split_ref(tb.mem_base + off, length, mps)
            off += length
        tb.mem[0:off + 64] = bytes(off + 64)
        n0 = len(tb.mon.writes)
        tb.host.framing.expect(expect)          # and each write TLP's byte enables, beat by beat
        w = RawWriter(dut)
        await w.run(writes, ahead=ahead)
        await ClockCycles(dut.clk, 200)
        assert not tb.host.framing.expect_writes, f"{len(tb.host.framing.expect_writes)} writes not seen"
        tb.host.framing.expect_writes = None
        for addr, data in writes:
            o = addr - tb.mem_base
            assert bytes(tb.mem[o:o + len(data)]) == data, f"MPS {mps}: write of {len(data)} at +{o:#x} differs"
        assert tb.mon.writes[n0:] == expect, "write TLPs differ from the MPS split of the bursts, in order"
        assert w.b == [0] * len(writes), w.b
        assert w.bid == [k & 0xFF for k in range(len(writes))], w.bid
        tb.check()
    tb.host.dev.rq_sink.clear_pause_generator()


# ---------------------------------------------------------------------------------------------
# Write-path benchmark (issue 11): `make -C tests/cocotb/tsnic_pcie_us bench` (BENCH=1). Prints figures,
# asserts only correctness (data in host memory, OKAY responses, RqMonitor rules), never a rate.

class RawWriter:
    """Drives the AXI write slave like the core's write arbiter does: a burst's AW and its first W beat
    are presented together, the next burst only after both the AW and the WLAST beat have been taken.
    `ahead=True` lets AW run ahead of W (a master with independent AW and W channels). B is always
    ready. Records the cycle of every handshake."""

    def __init__(self, dut):
        self.dut = dut
        self.bytes = DATA_W // 8
        self.b = []
        self.bid = []
        self.cycle = 0

    def _beats(self, addr, data):
        nb = self.bytes
        start = addr % nb
        end = start + len(data)
        beats = []
        for k in range((end + nb - 1) // nb):
            lo, hi = max(start, k * nb), min(end, (k + 1) * nb)
            word = bytearray(nb)
            word[lo - k * nb:hi - k * nb] = data[lo - start:hi - start]
            strb = ((1 << (hi - lo)) - 1) << (lo - k * nb)
            beats.append((int.from_bytes(word, "little"), strb))
        return beats

    async def run(self, writes, ahead=False, max_out=None):
        dut = self.dut
        aws = [(addr, len(self._beats(addr, d)) - 1) for addr, d in writes]
        ws = [self._beats(addr, d) for addr, d in writes]
        dut.s_axi_awsize.value = (self.bytes).bit_length() - 1
        dut.s_axi_awburst.value = 1
        dut.s_axi_bready.value = 1
        ai = wi = wb = 0
        self.first_aw = self.last_b = None

        def drive():
            if ai < len(aws) and (ahead or ai <= wi) and (max_out is None or ai - len(self.b) < max_out):
                dut.s_axi_awaddr.value = aws[ai][0]
                dut.s_axi_awlen.value = aws[ai][1]
                dut.s_axi_awid.value = ai & 0xFF
                dut.s_axi_awvalid.value = 1
            else:
                dut.s_axi_awvalid.value = 0
            if wi < len(ws) and (ahead or wi <= ai):
                data, strb = ws[wi][wb]
                dut.s_axi_wdata.value = data
                dut.s_axi_wstrb.value = strb
                dut.s_axi_wlast.value = int(wb == len(ws[wi]) - 1)
                dut.s_axi_wvalid.value = 1
            else:
                dut.s_axi_wvalid.value = 0

        drive()
        while len(self.b) < len(writes):
            await RisingEdge(dut.clk)
            self.cycle += 1
            if dut.s_axi_awvalid.value and dut.s_axi_awready.value:
                if self.first_aw is None:
                    self.first_aw = self.cycle
                ai += 1
            if dut.s_axi_wvalid.value and dut.s_axi_wready.value:
                wb += 1
                if wb == len(ws[wi]):
                    wi, wb = wi + 1, 0
            if dut.s_axi_bvalid.value:
                self.b.append(int(dut.s_axi_bresp.value))
                self.bid.append(int(dut.s_axi_bid.value))
                self.last_b = self.cycle
            # hold AW for burst ai until W has caught up (paired mode): drive() decides
            drive()
        dut.s_axi_awvalid.value = 0
        dut.s_axi_wvalid.value = 0


class RqCounter:
    """Cycle of every write TLP's first and last beat on RQ, and RQ beats used by writes."""

    def __init__(self, dut):
        self.dut = dut
        self.sop_cycles = []
        self.beats = 0
        self.cycle = 0
        self.run = True
        cocotb.start_soon(self._run())

    async def _run(self):
        dut = self.dut
        sop = True
        is_wr = False
        while self.run:
            await RisingEdge(dut.clk)
            self.cycle += 1
            if dut.m_axis_rq_tvalid.value and dut.m_axis_rq_tready.value:
                if sop:
                    d = int(dut.m_axis_rq_tdata.value) & ((1 << 128) - 1)
                    is_wr = ((d >> 75) & 0xF) == 1
                    if is_wr:
                        self.sop_cycles.append(self.cycle)
                if is_wr:
                    self.beats += 1
                    self.last = self.cycle
                sop = bool(dut.m_axis_rq_tlast.value)


async def bench_case(tb, name, size, count, stride, ahead=False, offset=0, max_out=None):
    """`count` writes of `size` bytes at base + offset + k * stride; returns the printed figures."""
    dut = tb.dut
    rng = random.Random(size * 7 + count)
    writes = []
    for k in range(count):
        off = offset + k * stride
        writes.append((tb.mem_base + off, bytes(rng.getrandbits(8) for _ in range(size))))
    span = offset + count * stride + size
    tb.mem[0:span] = bytes(span)
    cnt = RqCounter(dut)
    w = RawWriter(dut)
    await w.run(writes, ahead=ahead, max_out=max_out)
    await ClockCycles(dut.clk, 200)          # let the last TLPs land in host memory
    cnt.run = False
    for addr, data in writes:
        off = addr - tb.mem_base
        assert bytes(tb.mem[off:off + len(data)]) == data, f"{name}: write at +{off:#x} differs"
    assert all(r == 0 for r in w.b), f"{name}: responses {set(w.b)}"
    tb.check()
    s = cnt.sop_cycles
    ntlp = len(s)
    # steady state: from the first to the last TLP start (the first and last TLPs' own latency apart)
    tlp_rate = (ntlp - 1) / (s[-1] - s[0]) if ntlp > 1 else 1.0 / (w.last_b - w.first_aw + 1)
    axi_cycles = w.last_b - w.first_aw + 1
    wr_rate = count / axi_cycles
    mbps = tlp_rate * 250e6 * (count * size / ntlp) / 1e9
    line = (f"BENCH w{DATA_W} {name:<24} size {size:5d} x{count:4d}: {ntlp:4d} TLPs, "
            f"{tlp_rate:.3f} TLP/cycle = {tlp_rate * 250:.1f} M TLP/s ({mbps:.2f} GB/s payload), "
            f"RQ beats/TLP {cnt.beats / ntlp:.2f}; AXI first AW -> last B {axi_cycles} cycles = "
            f"{wr_rate * 250:.1f} M writes/s")
    dut._log.info(line)
    print(line)
    return line


@cocotb.test(timeout_time=20000, timeout_unit="us", skip=os.environ.get("BENCH") != "1")
async def test_bench_write(dut):
    """Write-path throughput at MPS 512 (the model's maximum): small writes back to back (16/32/64 bytes
    at consecutive addresses, so every dword offset in the bus word occurs), the completion writer's
    pattern (32-byte records, AW and W together; also with at most 8 bursts between AW and B, as
    tsnic_cpl_write's OUT_LOG2 = 3 allows, and one alone for the AW -> B latency), 64-byte writes, and
    full bursts (512 B, 4 KiB, 1500 B unaligned)."""
    tb = TB(dut, axi_master=False)
    await tb.init()
    await tb.set_sizes(512, 512)
    lines = []
    lines.append(await bench_case(tb, "16 B consecutive", 16, 400, 16))
    lines.append(await bench_case(tb, "32 B records (cpl_write)", 32, 400, 32))
    lines.append(await bench_case(tb, "32 B, <= 8 outstanding", 32, 400, 32, max_out=8))
    lines.append(await bench_case(tb, "32 B alone (latency)", 32, 1, 32))
    lines.append(await bench_case(tb, "64 B aligned", 64, 400, 64))
    lines.append(await bench_case(tb, "64 B offset +8", 64, 400, 128, offset=8))
    lines.append(await bench_case(tb, "512 B aligned", 512, 64, 512))
    lines.append(await bench_case(tb, "4 KiB bursts", 4096, 16, 4096))
    lines.append(await bench_case(tb, "4 KiB bursts, AW ahead", 4096, 16, 4096, ahead=True))
    lines.append(await bench_case(tb, "1500 B offset +2", 1500, 32, 2048, offset=2))
    out = os.environ.get("BENCH_OUT")
    if out:
        with open(out, "a") as f:
            f.write("\n".join(lines) + "\n")
