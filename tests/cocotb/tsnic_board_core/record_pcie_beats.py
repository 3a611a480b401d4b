"""Records the hard block's CQ/CC/RQ/RC beats and MSI-X handshakes of a short session of the board
bench at 256 bits (cocotbext-pcie's root complex and UltraScalePcieDevice in front of
tsnic_board_core), as the fixture sim/card/tests/data/pcie_beats_w256.txt that the Rust test
sim/card/tests/pcie_cocotb_beats.rs holds the board co-simulation's hard-block model against
(issue 31, item 6). Not part of make test; regenerate from the repository root with (Icarus; 334 s
wall when recorded, on the shared 2-core machine at load ~10; `make deps` made .venv):

    PATH=$PWD/.venv/bin:$PATH make -C tests/cocotb/tsnic_board_core DATA_W=256 MODULE=record_pcie_beats \
        SIM_BUILD=sim_build_rec COCOTB_RESULTS_FILE=results_rec.xml \
        PCIE_BEATS_OUT=$PWD/sim/card/tests/data/pcie_beats_w256.txt

The session: enumeration with MSI-X (the root complex programs the table through BAR0), BAR0 reads
(one-dword, at offsets with different low bits) and writes (the driver set-up), then frames pushed
from payloads at unaligned addresses (DMA reads of descriptors and payloads, split by the root
complex, DMA writes of completions, an MSI-X message), first with the root complex sending the
largest completions the MPS allows, then with it splitting on every RCB; then frames of odd lengths
into the MAC RX pins (DMA writes whose last dword is partly enabled, into buffers the host filled).

Fixture lines (numbers hex unless said; beats sampled at the clk edge that takes them):
  cfg mps=<bytes dec> mrrs=<bytes dec> rcb=<bytes dec> bar0=<addr> region=<addr> size=<bytes>
                                             (region: the host memory the bench allocated, one span)
  fill <addr> <bytes> <byte>                 host memory the host filled with <byte> (RX buffers)
  mode split_on_all_rcb=<0|1>               from here on, how the root complex splits completions
  cq|cc|rq|rc <cycle dec> <tdata> <tkeep> <tuser> <tlast>
  msix <cycle dec> <address> <data>         cfg_interrupt_msix_int with its address and data
  msix_sent <cycle dec> / msix_fail <cycle dec>
  bar_read <offset> <value>                  what the root complex's read returned to the bench
  bar_write <offset> <value>
  mem <addr> <bytes>                         host memory the card read, as it was (payloads, descriptors)
  mem_after <addr> <bytes>                   host memory the card wrote, at the end
  irqs <count dec>                           MSI-X vector 0 interrupts the root complex delivered
"""

import os
import random

import cocotb
from cocotb.triggers import RisingEdge, Timer

import tsnic_contract as C
from test_tsnic_board_core import TB, DATA_W, RxSide, make_frame, RX_BUF_LEN, RX_FILL

OUT = os.environ.get("PCIE_BEATS_OUT", "pcie_beats_w256.txt")


class Recorder:
    def __init__(self, dut):
        self.dut = dut
        self.lines = []
        self.cycle = 0
        self.rq_reads = []     # (address, bytes) of every DMA read, from the RQ descriptors
        self.rq_writes = []
        self._rq = []
        cocotb.start_soon(self._run())

    def note(self, line):
        self.lines.append(line)

    def _beat(self, name, prefix, ready):
        d = self.dut
        if not (int(getattr(d, prefix + "_tvalid").value) and int(getattr(d, ready).value)):
            return None
        data = int(getattr(d, prefix + "_tdata").value)
        keep = int(getattr(d, prefix + "_tkeep").value)
        user = int(getattr(d, prefix + "_tuser").value)
        last = int(getattr(d, prefix + "_tlast").value)
        self.note(f"{name} {self.cycle} {data:x} {keep:x} {user:x} {last}")
        return data, keep, last

    async def _run(self):
        d = self.dut
        while True:
            # values before the edge (cocotb applies its writes after this trigger): the handshake
            await RisingEdge(d.clk)
            self.cycle += 1
            self._beat("cq", "s_axis_cq", "s_axis_cq_tready")
            self._beat("cc", "m_axis_cc", "m_axis_cc_tready")
            self._beat("rc", "s_axis_rc", "s_axis_rc_tready")
            b = self._beat("rq", "m_axis_rq", "m_axis_rq_tready")
            if b is not None:
                data, keep, last = b
                for i in range(DATA_W // 32):
                    if keep >> i & 1:
                        self._rq.append((data >> (32 * i)) & 0xFFFFFFFF)
                if last:
                    dw = self._rq
                    self._rq = []
                    addr = (dw[1] << 32) | (dw[0] & ~3)
                    n = (dw[2] & 0x7FF) or 1
                    (self.rq_writes if (dw[2] >> 11) & 0xF == 1 else self.rq_reads).append((addr, 4 * n))
            if int(d.cfg_interrupt_msix_int.value):
                self.note(f"msix {self.cycle} {int(d.cfg_interrupt_msix_address.value):x} "
                          f"{int(d.cfg_interrupt_msix_data.value):x}")
            if int(d.cfg_interrupt_msix_sent.value):
                self.note(f"msix_sent {self.cycle}")
            if int(d.cfg_interrupt_msix_fail.value):
                self.note(f"msix_fail {self.cycle}")


async def push(tb, rng, lengths):
    """Frames from payloads at unaligned offsets, on queue 0, launched 2 us apart; waits for them."""
    drv = tb.drv
    t = tb.clock.now() + 20_000
    for n in lengths:
        t += 2000
        drv.post(0, t, n, rng)
    await drv.doorbell(0)
    await tb.wait_done()
    tb.check_wire()


@cocotb.test(timeout_time=3000, timeout_unit="us")
async def record(dut):
    assert DATA_W == 256, "the fixture is the 256-bit (SUME, pcie3_7x layout) session"
    tb = TB(dut)
    rec = Recorder(dut)
    # the root complex's MPS (the device gets it at enumeration) and MRRS: the board co-simulation's
    # defaults (256 and 512 bytes); cocotbext-pcie's own default MPS is 128
    tb.host.rc.max_payload_size = 1
    tb.host.rc.max_read_request_size = 2
    await tb.init()
    bar0 = tb.host.bar0.get_absolute_address(0)
    drv = tb.drv
    # BAR0 reads: identity, a register above 0x7f (lower address), the MSI-X table entry 0
    for off in (C.CAP_MAGIC, C.CAP_VERSION, C.CAP_TX_DATA_WIDTH, 0x20000, 0x20004, 0x20008, 0x2000C):
        v = await drv.rd(off)
        rec.note(f"bar_read {off:x} {v:x}")
    await drv.setup(queues=(0,))
    rec.note(f"bar_write {C.CTRL_CONTROL:x} {C.CTRL_CONTROL_ENABLE:x}")
    rx = RxSide(tb)
    await tb.wait_mac_locked()
    await tb.wait_rx_locked()
    rng = random.Random(31)
    rec.note("mode split_on_all_rcb=0")
    await push(tb, rng, [700, 60, 1514, 333])
    await Timer(2, "us")
    tb.host.rc.split_on_all_rcb = True
    rec.note("mode split_on_all_rcb=1")
    await push(tb, rng, [700, 130, 1514])
    await Timer(2, "us")
    # RX: odd lengths, so the last dword of each frame's write is partly enabled
    log2 = 3
    await rx.setup_queue(0, log2)
    # no reposting: RxSide.poll would fill a used buffer again, over what the card wrote into it
    rx.post = lambda q: None
    fills = [(rx.base + rx.q[0]["buf"] + k * RX_BUF_LEN, RX_BUF_LEN) for k in range(1 << log2)]
    await drv.wr(C.RX_CTRL, C.RX_CTRL_ENABLE)
    assert await drv.rd(C.RX_CTRL) & C.RX_CTRL_ENABLE
    lens = [61, 129, 1513, 66, 98]
    for k, n in enumerate(lens):
        await rx.send(make_frame(rng, n, sport=3000 + k))
    await rx.wait(len(lens))
    rx.check(list(range(len(lens))))
    await Timer(2, "us")
    mps = 128 << int(dut.cfg_max_payload.value)
    mrrs = 128 << int(dut.cfg_max_read_req.value)
    rcb = 128 if tb.host.rc.read_completion_boundary else 64
    regions = sorted([(drv.base, drv.mem), (rx.base, rx.mem)], key=lambda r: r[0])
    lo, hi = regions[0][0], max(b + len(m) for b, m in regions)
    lines = [f"cfg mps={mps} mrrs={mrrs} rcb={rcb} bar0={bar0:x} region={lo:x} size={hi - lo:x}"]
    lines += [f"fill {a:x} {n:x} {RX_FILL:x}" for a, n in fills]

    def host(addr, n):
        for b, m in regions:
            if b <= addr and addr + n <= b + len(m):
                return bytes(m[addr - b:addr - b + n])
        raise AssertionError(f"DMA at {addr:#x} outside the bench's regions")
    # what the card read (as the bench left it: the host changes none of it after posting) and wrote
    for kind, acc in (("mem", rec.rq_reads), ("mem_after", rec.rq_writes)):
        for addr, n in acc:
            lines.append(f"{kind} {addr:x} {host(addr, n).hex()}")
    lines.append(f"irqs {tb.host.msix_count[0]}")
    with open(OUT, "w") as f:
        f.write("# cocotbext-pcie UltraScalePcieDevice + RootComplex, tsnic_board_core at 256 bits: "
                "tests/cocotb/tsnic_board_core/record_pcie_beats.py\n")
        for line in lines + rec.lines:
            f.write(line + "\n")
    dut._log.info("%d lines to %s: %d DMA reads, %d DMA writes", len(lines) + len(rec.lines), OUT,
                  len(rec.rq_reads), len(rec.rq_writes))
