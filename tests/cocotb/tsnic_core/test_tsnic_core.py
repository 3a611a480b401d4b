"""End-to-end bench through tsnic_core (issue 4).

Around the core:
- host memory: one sparse memory; reads through `HostReadSlave` (pipelined, every burst answered
  HOST_LAT_NS after its AR handshake, several bursts outstanding), completion writes through
  cocotbext-axi AxiRamWrite;
- BAR0: cocotbext-axi AxiLiteMaster;
- the wire: cocotbext-axi AxiStreamSink, plus a passive monitor that notes the PHC time of each
  frame's first-beat handshake.
`Driver` is a small Python model of the userspace driver: it owns the TX rings and the completion
ring in host memory, posts descriptors, rings doorbells and consumes completions by phase bit.
`TB.check` (the scoreboard) checks: exactly one completion per descriptor with the expected status and
reason, cookie, len and launch_ns; only SENT/SENT_LATE descriptors reach the wire (a REJECTED one has no
frame and needs no payload); frame bytes and tkeep; depart_ns; SENT = first cycle with PHC >= launch_ns,
SENT_LATE = later; launch order on the wire across queues; depart_ns of completions that never reach
the wire between post and completion; global and per-queue counters against the completions.
"""

import logging
import os
import random
from collections import Counter

import cocotb
from cocotb.triggers import First, RisingEdge, ReadOnly, ClockCycles, Timer
from cocotb.utils import get_sim_steps, get_sim_time
from cocotbext.axi import (AxiLiteBus, AxiLiteMaster, AxiWriteBus, AxiRamWrite, AxiStreamBus,
                           AxiStreamSink, AxiStreamSource, AxiStreamFrame)
from cocotbext.axi.sparse_memory import SparseMemory

from tsnic_clock import start_clock
import tsnic_contract as C

DATA_W = int(os.environ.get("DATA_W", "64"))
HOST_LAT_NS = int(os.environ.get("HOST_LAT_NS", "1000"))
CLK_NS = 4
NUM_QUEUES = 8
MAX_FRAME_LEN = 9600

CPL_RING = 0x0001_0000
Q_RING = 0x0010_0000          # + q * 0x10000
PAY_BASE = 0x0100_0000        # payload buffers; the DMA window of every queue
PAY_WIN = 0x0100_0000
MEM_SIZE = 1 << 32

WIRE = (C.STATUS_SENT, C.STATUS_SENT_LATE)


class HostReadSlave:
    """AXI4 read slave with a fixed latency from AR handshake to first R beat, bursts pipelined."""

    def __init__(self, dut, mem, latency_ns, bus_bytes):
        self.dut = dut
        self.mem = mem
        self.lat_cycles = max(1, latency_ns // CLK_NS)
        self.bus = bus_bytes
        self.pending = []         # [ready_cycle, id, addr, beats_left, size]
        self.cycle = 0
        self.errors = []
        self.bursts = 0
        self.bad = []             # [lo, hi) address ranges whose beats are answered SLVERR
        dut.m_axi_arready.value = 0
        dut.m_axi_rvalid.value = 0
        cocotb.start_soon(self._run())

    async def _run(self):
        dut = self.dut
        # always ready for a request; rvalid is written only when it changes (a signal write costs a
        # scheduler write and a ReadWrite phase: rewriting the same values every idle cycle was
        # most of this coroutine's time)
        dut.m_axi_arready.value = 1
        rvalid = 0
        clk_rise = RisingEdge(dut.clk)
        ar_rise = RisingEdge(dut.m_axi_arvalid)
        period = get_sim_steps(CLK_NS, "ns")
        t_edge = None             # simulated time (steps) of the clock edge self.cycle counts
        while True:
            head = self.pending[0] if self.pending and self.pending[0][0] <= self.cycle else None
            if head is not None:
                _, rid, addr, left, size = head
                word = addr - addr % self.bus
                dut.m_axi_rid.value = rid
                dut.m_axi_rdata.value = int.from_bytes(self.mem[word:word + self.bus], "little")
                dut.m_axi_rresp.value = 2 if any(lo < word + self.bus and word < hi for lo, hi in self.bad) else 0
                dut.m_axi_rlast.value = int(left == 1)
                dut.m_axi_rvalid.value = 1
                rvalid = 1
            elif rvalid:
                dut.m_axi_rvalid.value = 0
                rvalid = 0
            await ReadOnly()
            arvalid = dut.m_axi_arvalid.value
            if arvalid:
                addr = int(dut.m_axi_araddr.value)
                beats = int(dut.m_axi_arlen.value) + 1
                size = int(dut.m_axi_arsize.value)
                nbytes = 1 << size
                if nbytes > self.bus:
                    self.errors.append(f"arsize {size} wider than the bus")
                start = addr - addr % nbytes
                if start // 4096 != (start + beats * nbytes - 1) // 4096:
                    self.errors.append(f"burst crosses 4 KiB: addr 0x{addr:x} beats {beats} size {size}")
                self.pending.append([self.cycle + self.lat_cycles, int(dut.m_axi_arid.value), addr, beats, size])
                self.bursts += 1
                if os.environ.get("TRACE_AR"):
                    dut._log.info("AR id %x addr %x beats %d at phc %d", int(dut.m_axi_arid.value), addr, beats,
                                  int(dut.phc_ns.value))
            if head is not None and dut.m_axi_rready.value:
                nbytes = 1 << head[4]
                head[2] = head[2] - head[2] % nbytes + nbytes
                head[3] -= 1
                if head[3] == 0:
                    self.pending.pop(0)
            # The next cycle changes nothing unless a request is up (arvalid now, or it rises), a beat
            # is out (rvalid), or the oldest burst's first beat is due then: otherwise sleep until
            # arvalid rises or that burst is due, instead of a wake-up at every edge of the latency.
            if (t_edge is None or arvalid or rvalid
                    or (self.pending and self.pending[0][0] <= self.cycle + 1)):
                await clk_rise
            elif self.pending:
                await First(ar_rise, Timer((self.pending[0][0] - self.cycle) * period - 1, "step"))
                if (get_sim_time("step") - t_edge) % period:   # the timer: on to the edge the burst is due at
                    await clk_rise
            else:
                await ar_rise
            t = get_sim_time("step")
            if t_edge is None:
                self.cycle += 1
            else:
                # arvalid changes only at clock edges: the wake-up is at one, n cycles on
                n, rest = divmod(t - t_edge, period)
                assert rest == 0 and n > 0, f"read slave woke {t - t_edge} steps after a clock edge"
                self.cycle += n
            t_edge = t


class WireMonitor:
    """Notes, for every frame on m_axis_tx, the PHC time of its first-beat handshake and the PHC time
    of the previous frame's last-beat handshake (None when the line had been idle longer)."""

    def __init__(self, dut):
        self.dut = dut
        self.first_times = []
        self.prev_end = []
        self.errors = []           # tkeep not contiguous from lane 0, or not full before tlast
        cocotb.start_soon(self._run())

    async def _run(self):
        dut = self.dut
        in_frame = False
        last_end = None
        tvalid = dut.m_axis_tx_tvalid
        clk_rise = RisingEdge(dut.clk)
        valid_rise = RisingEdge(tvalid)
        while True:
            await ReadOnly()
            valid = tvalid.value
            if valid and dut.m_axis_tx_tready.value:
                t = int(dut.phc_ns.value)
                if not in_frame:
                    self.first_times.append(t)
                    self.prev_end.append(last_end)
                keep = int(dut.m_axis_tx_tkeep.value)
                full = (1 << (DATA_W // 8)) - 1
                if dut.m_axis_tx_tlast.value:
                    if keep == 0 or keep & (keep + 1):
                        self.errors.append(f"last beat tkeep {keep:x} at phc {t}")
                elif keep != full:
                    self.errors.append(f"tkeep {keep:x} on a beat before tlast at phc {t}")
                in_frame = not dut.m_axis_tx_tlast.value
                if not in_frame:
                    last_end = t
            # no handshake can happen before tvalid rises (it changes only at clock edges): sleep
            # until then rather than wake at every edge of an idle line
            await (clk_rise if valid else valid_rise)


class Driver:
    """The userspace driver: rings in host memory, doorbells over BAR0, completions by phase bit."""

    def __init__(self, tb):
        self.tb = tb
        self.axil = tb.axil
        self.mem = tb.mem
        self.rng = tb.rng
        self.q = {}
        self.cpl_log2 = 8
        self.cpl_cons = 0
        self.cpl_phase = 1
        self.cpls = []
        self.posted = {}           # (queue, ring_index mod 2^16) -> descriptor dict, outstanding
        self.all_posted = []
        self.pay_next = PAY_BASE

    async def wr(self, addr, val):
        await self.axil.write_dword(addr, val & 0xFFFFFFFF)

    async def rd(self, addr):
        return await self.axil.read_dword(addr)

    async def setup_cpl(self, log2):
        self.cpl_log2 = log2
        self.cpl_cons = 0
        self.cpl_phase = 1
        self.mem[CPL_RING:CPL_RING + (32 << log2)] = bytes(32 << log2)
        await self.wr(C.CPL_CTRL, 0)
        await self.wr(C.CPL_BASE_LO, CPL_RING)
        await self.wr(C.CPL_BASE_HI, 0)
        await self.wr(C.CPL_SIZE_LOG2, log2)
        await self.wr(C.CPL_CTRL, 1)

    async def setup_queue(self, q, log2, late=C.LATE_POLICY_SEND, horizon=C.HORIZON_POLICY_DROP):
        base = Q_RING + q * 0x10000
        qb = C.Q_BASE + q * C.Q_STRIDE
        self.q[q] = dict(base=base, log2=log2, prod=0, ctrl=C.Q_CTRL_ENABLE
                         | (C.Q_CTRL_LATE_POLICY if late else 0) | (C.Q_CTRL_HORIZON_POLICY if horizon else 0))
        await self.wr(qb + C.Q_BASE_LO, base)
        await self.wr(qb + C.Q_BASE_HI, 0)
        await self.wr(qb + C.Q_SIZE_LOG2, log2)
        await self.wr(qb + C.Q_WIN_BASE_LO, PAY_BASE)
        await self.wr(qb + C.Q_WIN_BASE_HI, 0)
        await self.wr(qb + C.Q_WIN_LEN_LO, PAY_WIN)
        await self.wr(qb + C.Q_WIN_LEN_HI, 0)
        await self.wr(qb + C.Q_CTRL, self.q[q]["ctrl"])

    def free_slots(self, q):
        st = self.q[q]
        outstanding = sum(1 for (qq, _) in self.posted if qq == q)
        return (1 << st["log2"]) - outstanding

    def make_payload(self, length):
        off = self.rng.randrange(0, 64)
        addr = self.pay_next + off
        self.pay_next += (length + off + 0xFFF) & ~0xFFF if length < 0x100000 else 0x1000
        data = bytes(self.rng.getrandbits(8) for _ in range(length))
        self.mem[addr:addr + length] = data
        return addr, data

    def add_desc(self, q, launch_ns, length=None, flags=0, addr=None, data=None, expect=None, reason=0,
                 late_ok=False):
        """Write one descriptor into queue q's ring (no doorbell). Returns the record.
        expect: the status (or tuple of statuses) the completion must have; reason: the reject reason
        when REJECTED is expected. A descriptor that may reach the wire must carry its payload bytes;
        one that must be REJECTED has no frame, and its data may be None."""
        assert expect is not None, "every descriptor states the completion it expects"
        exp = expect if isinstance(expect, tuple) else (expect,)
        if exp == (C.STATUS_REJECTED,):
            assert reason != 0, "an expected reject states its reason"
        else:
            assert reason == 0 and C.STATUS_REJECTED not in exp
        st = self.q[q]
        if length is None:
            length = self.rng.randint(60, 1514)
        if addr is None:
            addr, data = self.make_payload(length)
        assert data is not None or exp == (C.STATUS_REJECTED,), "no payload bytes for a frame that may be sent"
        idx = st["prod"]
        cookie = self.rng.getrandbits(32)
        raw = C.pack_descriptor(addr=addr, len=length, cookie=cookie, launch_ns=launch_ns, flags=flags)
        slot = idx % (1 << st["log2"])
        a = st["base"] + slot * 32
        self.mem[a:a + 32] = raw
        if os.environ.get("VERBOSE"):
            self.tb.dut._log.info("post q%d #%d launch %d at phc %d", q, idx, launch_ns, self.tb.phc())
        d = dict(queue=q, index=idx & 0xFFFF, addr=addr, len=length, cookie=cookie, launch_ns=launch_ns,
                 flags=flags, data=data, expect=exp, reason=reason, late_ok=late_ok, posted_phc=self.tb.phc())
        key = (q, idx & 0xFFFF)
        assert key not in self.posted
        self.posted[key] = d
        self.all_posted.append(d)
        st["prod"] = (idx + 1) & 0xFFFF
        return d

    async def doorbell(self, q):
        if os.environ.get("TRACE_AR"):
            self.tb.dut._log.info("doorbell q%d prod %d at phc %d", q, self.q[q]["prod"], self.tb.phc())
        await self.wr(C.Q_BASE + q * C.Q_STRIDE + C.Q_PROD, self.q[q]["prod"])

    async def poll_cpl(self, doorbell=True):
        """Take every valid completion; returns how many."""
        n = 0
        size = 1 << self.cpl_log2
        while True:
            slot = self.cpl_cons % size
            a = CPL_RING + slot * 32
            rec = C.unpack_completion(self.mem[a:a + 32])
            if (rec["flags"] >> 31) & 1 != self.cpl_phase:
                break
            self.cpls.append(rec)
            self.tb.on_completion(rec)
            self.cpl_cons += 1
            if slot == size - 1:
                self.cpl_phase ^= 1
            n += 1
        if n and doorbell:
            await self.wr(C.CPL_CONS, self.cpl_cons)
        return n

    async def run_consumer(self, period=64, stall=None):
        while True:
            await ClockCycles(self.tb.dut.clk, period)
            if stall and stall():
                continue
            await self.poll_cpl()


class TB:
    def __init__(self, dut, seed=1, host_lat_ns=HOST_LAT_NS):
        self.dut = dut
        self.rng = random.Random(seed)
        start_clock(dut.clk, CLK_NS * 1000)
        self.mem = SparseMemory(MEM_SIZE)
        self.axil = AxiLiteMaster(AxiLiteBus.from_prefix(dut, "s_axil"), dut.clk, dut.rst)
        self.wram = AxiRamWrite(AxiWriteBus.from_prefix(dut, "m_axi"), dut.clk, dut.rst, mem=self.mem)
        self.rd = HostReadSlave(dut, self.mem, host_lat_ns, DATA_W // 8)
        self.sink = AxiStreamSink(AxiStreamBus.from_prefix(dut, "m_axis_tx"), dut.clk, dut.rst)
        # the RX port: idle unless a test sends frames (the receive-path tests at the end)
        self.rx_src = AxiStreamSource(AxiStreamBus.from_prefix(dut, "s_axis_rx"), dut.clk, dut.rst)
        # the models' per-transaction INFO lines (every frame's bytes and keep/user lists, every
        # register access: ~2.5 MB of log) are read by no one: warnings only
        for log in (self.sink.log, self.rx_src.log, self.axil.write_if.log, self.axil.read_if.log):
            log.setLevel(logging.WARNING)
        self.wire = WireMonitor(dut)
        self.drv = Driver(self)
        self.frames = []           # frame bytes in wire order (first-beat times: self.wire)
        self.errors = []
        self.tx_lat = 0
        # configuration flash and ICAP pins: pull-ups and an idle ICAP unless a test attaches models
        dut.qspi_dq_i.value = 0xF
        dut.icap_ce.value = 1
        dut.icap_o.value = 0

    async def reset(self):
        self.dut.rst.value = 1
        await ClockCycles(self.dut.clk, 8)
        self.dut.rst.value = 0
        # wait for the RAM-clearing init sweeps of the blocks (calendar, fetch, counters)
        for _ in range(4000):
            await ClockCycles(self.dut.clk, 50)
            if int(self.dut.calendar_inst.stat_init_busy.value) == 0:
                break
        else:
            raise AssertionError("calendar init sweep never ended")
        await ClockCycles(self.dut.clk, 100)

    def phc(self):
        return int(self.dut.phc_ns.value)

    def on_completion(self, rec):
        key = (rec["queue"], rec["ring_index"])
        d = self.drv.posted.pop(key, None)
        if d is None:
            self.errors.append(f"completion for nothing outstanding: {key} {rec}")
            return
        d["cpl"] = rec
        d["seen_phc"] = self.phc()
        if d.get("desc_err"):
            # the descriptor itself could not be read: only queue and ring index identify it
            if (rec["status"], rec["cookie"], rec["len"], rec["launch_ns"]) != (C.STATUS_DMA_ERROR, 0, 0, 0):
                self.errors.append(f"failed descriptor read: {rec}")
            return
        if rec["cookie"] != d["cookie"] or rec["len"] != d["len"] & 0xFFFF:
            self.errors.append(f"completion fields differ: {rec} vs {d}")
        if d["flags"] & C.DESC_FLAG_ASAP and rec["status"] != C.STATUS_REJECTED:
            # launch_ns is the PHC time of validation: after the post, before the completion
            if not d["posted_phc"] <= rec["launch_ns"] <= d["seen_phc"]:
                self.errors.append(f"ASAP launch_ns {rec['launch_ns']} not within post {d['posted_phc']} .. "
                                   f"completion {d['seen_phc']}: {key}")
        elif rec["launch_ns"] != d["launch_ns"]:
            self.errors.append(f"completion launch_ns differs: {rec} vs {d}")

    async def start(self, cpl_log2=8, consumer=True, stall=None):
        st = await self.drv.rd(C.CTRL_STATUS)
        assert not st & C.CTRL_STATUS_RESET_BUSY, f"CTRL_STATUS {st:#x}: RESET_BUSY after the init sweep"
        await self.drv.setup_cpl(cpl_log2)
        await self.drv.wr(C.CTRL_CONTROL, C.CTRL_CONTROL_ENABLE)
        if consumer:
            self.consumer = cocotb.start_soon(self.drv.run_consumer(stall=stall))
        cocotb.start_soon(self._collect())

    async def _collect(self):
        while True:
            f = await self.sink.recv()
            self.frames.append(bytes(f.tdata))

    async def wait_all_completed(self, timeout_us=None):
        if timeout_us is None:
            # up to 300 us after the latest launch time outstanding (horizon-dropped ones aside)
            last = max([d["launch_ns"] for d in self.drv.posted.values() if d["launch_ns"] < self.phc() + 10**7]
                       + [self.phc()])
            timeout_us = (last - self.phc()) // 1000 + 300
        for _ in range(timeout_us * 1000 // (CLK_NS * 100)):
            if not self.drv.posted:
                return
            await ClockCycles(self.dut.clk, 100)
        raise AssertionError(f"{len(self.drv.posted)} descriptors never completed: "
                             f"{sorted(self.drv.posted)[:10]}")

    async def check(self, wait_only_for_wire=True):
        """The end-of-test scoreboard."""
        assert not self.errors, self.errors[:5]
        assert not self.rd.errors, self.rd.errors[:5]
        assert not self.wire.errors, self.wire.errors[:5]
        await ClockCycles(self.dut.clk, 50)
        # every completion exactly once: posted is empty and every descriptor has one
        assert not self.drv.posted, f"never completed: {sorted(self.drv.posted)[:10]}"
        assert all("cpl" in d for d in self.drv.all_posted)
        assert len(self.drv.cpls) == len(self.drv.all_posted), (len(self.drv.cpls), len(self.drv.all_posted))
        # only SENT / SENT_LATE descriptors reach the wire; a REJECTED (or dropped, flushed) one has no frame
        sent = [d for d in self.drv.all_posted if d["cpl"]["status"] in WIRE]
        # expected statuses / reasons
        for d in self.drv.all_posted:
            c = d["cpl"]
            (self.dut._log.info if os.environ.get("VERBOSE") else self.dut._log.debug)("q%d #%d len %d launch %d -> %s depart %d (%+d)", d["queue"], d["index"], d["len"],
                                c["launch_ns"], C.STATUS_NAMES.get(c["status"]), c["depart_ns"],
                                c["depart_ns"] - c["launch_ns"])
        for d in self.drv.all_posted:
            c = d["cpl"]
            exp = d["expect"]
            assert c["status"] in exp, f"q{d['queue']} #{d['index']}: status {C.STATUS_NAMES.get(c['status'])} expected {exp}"
            if c["status"] == C.STATUS_REJECTED:
                assert c["reason"] == d["reason"], f"q{d['queue']} #{d['index']}: reject reason {c['reason']} expected {d['reason']}"
            else:
                assert c["reason"] == 0, f"q{d['queue']} #{d['index']}: reason {c['reason']} on {C.STATUS_NAMES.get(c['status'])}"
            if c["status"] not in WIRE:
                # depart_ns is the PHC time of the decision: after the post, before the completion was seen
                assert d["posted_phc"] <= c["depart_ns"] <= d["seen_phc"], \
                    f"q{d['queue']} #{d['index']} {C.STATUS_NAMES.get(c['status'])}: depart_ns {c['depart_ns']} " \
                    f"outside post {d['posted_phc']} .. completion {d['seen_phc']}"
            if c["status"] == C.STATUS_DROPPED_LATE:
                assert c["depart_ns"] >= c["launch_ns"], f"q{d['queue']} #{d['index']}: DROPPED_LATE before its launch"
        # the wire: frames in order of depart; match each to its SENT completion by departure time
        assert len(self.frames) == len(sent), f"{len(self.frames)} frames on the wire, {len(sent)} sent completions"
        times = self.wire.first_times
        assert len(times) == len(self.frames)
        by_depart = sorted(sent, key=lambda d: (d["cpl"]["depart_ns"], d["cpl"]["launch_ns"]))
        errs = []
        for i, d in enumerate(by_depart):
            c = d["cpl"]
            t = times[i]
            if c["depart_ns"] != t + self.tx_lat:
                errs.append(f"frame {i}: depart_ns {c['depart_ns']} != first-beat PHC {t} + {self.tx_lat}")
            if self.frames[i] != d["data"]:
                errs.append(f"frame {i} (q{d['queue']} #{d['index']}): bytes differ "
                            f"(len {len(self.frames[i])} vs {len(d['data'])})")
            if d["flags"] & C.DESC_FLAG_ASAP:
                # launch_ns is the validation time: the frame cannot have left before it
                if t < c["launch_ns"]:
                    errs.append(f"frame {i}: ASAP frame left at {t}, before its validation {c['launch_ns']}")
                continue
            launch = c["launch_ns"]
            # when could it have left at the earliest? at launch, or right after the frame ahead of it
            pe = self.wire.prev_end[i]
            earliest = launch if pe is None else max(launch, pe + CLK_NS)
            if c["status"] == C.STATUS_SENT and t < launch:
                errs.append(f"frame {i}: EARLY by {launch - t} ns")
            # the contract: SENT = left in the first cycle with PHC >= launch_ns (the PHC steps CLK_NS a
            # cycle here), so less than one cycle after launch; SENT_LATE = left, but not then
            if c["status"] == C.STATUS_SENT and t - launch >= CLK_NS:
                errs.append(f"frame {i}: SENT but {t - launch} ns after launch")
            if c["status"] == C.STATUS_SENT_LATE and t - launch < CLK_NS:
                errs.append(f"frame {i}: SENT_LATE but only {t - launch} ns after launch")
            if d.get("late_ok"):
                # launch time already passed when posted: no bound on when it could have left
                continue
            if wait_only_for_wire and t - earliest > CLK_NS:
                errs.append(f"frame {i} (q{d['queue']} #{d['index']}): left {t - earliest} ns after it could "
                            f"(launch {launch}, previous frame ended {pe})")
        assert not errs, errs[:8]
        # order: SENT frames leave in launch order (per the scheduled time)
        launches = [d["cpl"]["launch_ns"] for d in by_depart if not d["flags"] & C.DESC_FLAG_ASAP and not d.get("late_ok")]
        assert launches == sorted(launches), "frames left out of launch order"
        # counters
        cnt = Counter(c["status"] for c in self.drv.cpls)
        gl = {C.STATUS_SENT: C.CNT_SENT_LO, C.STATUS_SENT_LATE: C.CNT_SENT_LATE_LO,
              C.STATUS_DROPPED_LATE: C.CNT_DROPPED_LATE_LO, C.STATUS_DROPPED_HORIZON: C.CNT_DROPPED_HORIZON_LO,
              C.STATUS_FLUSHED: C.CNT_FLUSHED_LO, C.STATUS_REJECTED: C.CNT_REJECTED_LO,
              C.STATUS_DMA_ERROR: C.CNT_DMA_ERROR_LO}
        for st, lo in gl.items():
            got = await self.drv.rd(lo) | (await self.drv.rd(lo + 4) << 32)
            assert got == cnt[st], f"global {C.STATUS_NAMES[st]}: {got} != {cnt[st]}"
        posted = await self.drv.rd(C.CNT_POSTED_LO)
        assert posted == len(self.drv.all_posted), (posted, len(self.drv.all_posted))
        txb = await self.drv.rd(C.CNT_TX_BYTES_LO)
        assert txb == sum(d["len"] for d in sent) & 0xFFFFFFFF
        qoff = {C.STATUS_SENT: C.Q_CNT_SENT, C.STATUS_SENT_LATE: C.Q_CNT_SENT_LATE,
                C.STATUS_DROPPED_LATE: C.Q_CNT_DROPPED_LATE, C.STATUS_DROPPED_HORIZON: C.Q_CNT_DROPPED_HORIZON,
                C.STATUS_FLUSHED: C.Q_CNT_FLUSHED, C.STATUS_REJECTED: C.Q_CNT_REJECTED,
                C.STATUS_DMA_ERROR: C.Q_CNT_DMA_ERROR}
        qc = Counter((c["queue"], c["status"]) for c in self.drv.cpls)
        for q in self.drv.q:
            for st, off in qoff.items():
                got = await self.drv.rd(C.Q_BASE + q * C.Q_STRIDE + off)
                assert got == qc[(q, st)], f"q{q} {C.STATUS_NAMES[st]}: {got} != {qc[(q, st)]}"
            got = await self.drv.rd(C.Q_BASE + q * C.Q_STRIDE + C.Q_CNT_POSTED)
            assert got == sum(1 for d in self.drv.all_posted if d["queue"] == q)
        # departure error figures
        errs_ns = sorted(times[i] - d["cpl"]["launch_ns"] for i, d in enumerate(by_depart)
                         if self.wire.prev_end[i] is None or self.wire.prev_end[i] + CLK_NS < d["cpl"]["launch_ns"]
                         if d["cpl"]["status"] == C.STATUS_SENT and not d.get("late_ok"))
        if errs_ns:
            n = len(errs_ns)
            fig = (errs_ns[0], errs_ns[n // 2], errs_ns[min(n - 1, n * 99 // 100)], errs_ns[-1])
            self.dut._log.info("departure error on idle line (ns): n=%d min=%d p50=%d p99=%d max=%d "
                               "(cycles of %d ns: %s) (DATA_W=%d, host latency %d ns)", n, *fig, CLK_NS,
                               "/".join(f"{v / CLK_NS:.2f}" for v in fig), DATA_W, HOST_LAT_NS)
        self.dut._log.info("completions: %s", {C.STATUS_NAMES[k]: v for k, v in cnt.items()})


def T(**kw):
    return cocotb.test(timeout_time=kw.pop("us", 3000), timeout_unit="us", **kw)


@T()
async def test_basic_multi_queue(dut):
    """Several queues, random lengths and launch times (some ties across queues): bytes, timing, order,
    one completion each, counters."""
    tb = TB(dut, seed=1)
    await tb.reset()
    assert await tb.drv.rd(C.CAP_MAGIC) == C.MAGIC
    assert await tb.drv.rd(C.CAP_NUM_QUEUES) == NUM_QUEUES
    await tb.start()
    for q in (0, 1, 2, 5):
        await tb.drv.setup_queue(q, 6)
    t0 = tb.phc() + 30_000
    for q in (0, 1, 2, 5):
        t = t0
        for i in range(8):
            t += tb.rng.choice([300, 1000, 2500, 4000])
            tb.drv.add_desc(q, t, expect=WIRE)
        # a tie across queues
        tb.drv.add_desc(q, t0 + 50_000, length=100, expect=WIRE)
        await tb.drv.doorbell(q)
    await tb.wait_all_completed()
    await tb.check()


async def post_spread(tb, queues, n_per_queue, t0, gap_choices, expect=WIRE):
    """n descriptors per queue, launch times t0 + cumulative random gaps, one doorbell per queue."""
    for q in queues:
        t = t0
        for _ in range(n_per_queue):
            t += tb.rng.choice(gap_choices)
            tb.drv.add_desc(q, t, expect=expect)
        await tb.drv.doorbell(q)


@T()
async def test_accuracy_random(dut):
    """Randomized launch times on 4 queues with the line mostly idle: every frame SENT, never early,
    at most one cycle late; prints the departure-error figures."""
    tb = TB(dut, seed=2)
    await tb.reset()
    await tb.start()
    qs = (0, 3, 6, 7)
    for q in qs:
        await tb.drv.setup_queue(q, 6)
    t0 = tb.phc() + 20_000
    per_q = int(os.environ.get("ACC_PER_Q", "12"))
    for q in qs:
        for i in range(per_q):
            # slots of 3 us, one queue per slot, random offset inside: no two frames overlap
            slot = i * len(qs) + qs.index(q)
            tb.drv.add_desc(q, t0 + slot * 3000 + tb.rng.randrange(0, 1000), length=tb.rng.randint(60, 1514),
                            expect=C.STATUS_SENT)
        await tb.drv.doorbell(q)
    await tb.wait_all_completed()
    await tb.check()


@T()
async def test_malformed(dut):
    """Zero length, oversize, outside the DMA window, reserved flags: REJECTED with the reason, in
    between valid descriptors that still go out; a doorbell with nothing new changes nothing."""
    tb = TB(dut, seed=3)
    await tb.reset()
    await tb.start()
    await tb.drv.setup_queue(1, 5)
    drv = tb.drv
    # interrupt on every completion (level until IRQ_STATUS is cleared)
    await drv.wr(C.CTRL_IRQ_MOD_COUNT, 1)
    await drv.wr(C.CTRL_IRQ_CTRL, C.CTRL_IRQ_CTRL_ENABLE)
    assert dut.irq.value == 0
    t = tb.phc() + 15_000
    drv.add_desc(1, t, expect=C.STATUS_SENT)
    drv.add_desc(1, t + 1000, length=0, addr=PAY_BASE, data=b"", expect=C.STATUS_REJECTED, reason=C.REJECT_ZERO_LEN)
    drv.add_desc(1, t + 2000, expect=C.STATUS_SENT)
    drv.add_desc(1, t + 3000, length=MAX_FRAME_LEN + 1, addr=PAY_BASE, data=None,
                 expect=C.STATUS_REJECTED, reason=C.REJECT_OVERSIZE)
    drv.add_desc(1, t + 4000, length=100, addr=PAY_BASE - 0x1000, data=None,
                 expect=C.STATUS_REJECTED, reason=C.REJECT_OUTSIDE_WINDOW)
    drv.add_desc(1, t + 5000, length=200, addr=PAY_BASE + PAY_WIN - 100, data=None,
                 expect=C.STATUS_REJECTED, reason=C.REJECT_OUTSIDE_WINDOW)
    drv.add_desc(1, t + 6000, length=100, flags=1 << 5, expect=C.STATUS_REJECTED, reason=C.REJECT_BAD_FLAGS)
    drv.add_desc(1, t + 7000, expect=C.STATUS_SENT)
    await drv.doorbell(1)
    await drv.doorbell(1)         # nothing new
    await tb.wait_all_completed()
    assert dut.irq.value == 1, "no interrupt after completions"
    assert await drv.rd(C.CTRL_IRQ_STATUS) == 1
    await drv.wr(C.CTRL_IRQ_STATUS, 1)
    assert dut.irq.value == 0
    await drv.doorbell(1)         # nothing new, after everything completed
    await ClockCycles(dut.clk, 500)
    assert dut.irq.value == 0, "interrupt without a completion"
    assert len(drv.cpls) == len(drv.all_posted)
    assert await drv.rd(C.Q_BASE + 1 * C.Q_STRIDE + C.Q_CONS) == 8
    await tb.check()


@T()
async def test_ring_wrap_and_clamp(dut):
    """A ring of 8 descriptors wrapped several times in batches; then a doorbell more than the ring
    size ahead is clamped to CONS + ring size."""
    tb = TB(dut, seed=4)
    await tb.reset()
    await tb.start()
    drv = tb.drv
    await drv.setup_queue(2, 3)
    await drv.setup_queue(4, 3)
    for rnd in range(3):
        t = tb.phc() + 8_000
        for q in (2, 4):
            n = drv.free_slots(q)
            for i in range(tb.rng.randint(max(1, n - 3), n)):
                t += tb.rng.choice([900, 1800])
                drv.add_desc(q, t, expect=WIRE)
            await drv.doorbell(q)
        await tb.wait_all_completed()
    # clamp: 8 new descriptors in the ring, doorbell 20 ahead
    t = tb.phc() + 8_000
    for i in range(8):
        t += 1500
        drv.add_desc(2, t, expect=WIRE)
    cons = await drv.rd(C.Q_BASE + 2 * C.Q_STRIDE + C.Q_CONS)
    await drv.wr(C.Q_BASE + 2 * C.Q_STRIDE + C.Q_PROD, (cons + 20) & 0xFFFF)
    await tb.wait_all_completed()
    await ClockCycles(dut.clk, 500)
    assert await drv.rd(C.Q_BASE + 2 * C.Q_STRIDE + C.Q_CONS) == (cons + 8) & 0xFFFF
    await tb.check()


@T()
async def test_cpl_ring_full(dut):
    """A completion ring of 4 records and a host that stalls for long stretches: nothing lost, nothing
    overwritten (the phase-bit consumer would see a gap), every descriptor completed once."""
    tb = TB(dut, seed=5)
    await tb.reset()
    stall_rng = random.Random(9)
    await tb.start(cpl_log2=2, stall=lambda: stall_rng.random() < 0.6)
    for q in (0, 1):
        await tb.drv.setup_queue(q, 5)
    await post_spread(tb, (0, 1), 12, tb.phc() + 10_000, [200, 700, 1500], expect=WIRE)
    await tb.wait_all_completed()
    await tb.check()


@T()
async def test_late_horizon_asap(dut):
    """Late policy SEND -> SENT_LATE, DROP -> DROPPED_LATE; beyond the horizon with DROP ->
    DROPPED_HORIZON; ASAP -> sent at once."""
    tb = TB(dut, seed=6)
    await tb.reset()
    await tb.start()
    drv = tb.drv
    await drv.setup_queue(0, 4, late=C.LATE_POLICY_SEND)
    await drv.setup_queue(1, 4, late=C.LATE_POLICY_DROP)
    await drv.setup_queue(2, 4, horizon=C.HORIZON_POLICY_DROP)
    now = tb.phc()
    for i in range(3):
        drv.add_desc(0, now - 5_000 + i, expect=C.STATUS_SENT_LATE, late_ok=True)
        drv.add_desc(1, now - 5_000 + i, expect=C.STATUS_DROPPED_LATE)
        drv.add_desc(2, now + 10**9 + i, expect=C.STATUS_DROPPED_HORIZON)
    drv.add_desc(2, 0, flags=C.DESC_FLAG_ASAP, expect=WIRE, late_ok=True)
    drv.add_desc(2, now + 20_000, expect=C.STATUS_SENT)
    for q in (0, 1, 2):
        await drv.doorbell(q)
    await tb.wait_all_completed()
    await tb.check()


@T()
async def test_flush_and_disable(dut):
    """Mid-traffic: a queue flush completes that queue's scheduled entries FLUSHED, a queue disable
    flushes too; the other queue keeps sending on time."""
    tb = TB(dut, seed=7)
    await tb.reset()
    await tb.start()
    drv = tb.drv
    for q in (0, 1, 2):
        await drv.setup_queue(q, 5)
    now = tb.phc()
    await post_spread(tb, (0,), 10, now + 10_000, [2000, 3000], expect=C.STATUS_SENT)
    for i in range(10):
        drv.add_desc(1, now + 200_000 + i * 1000, expect=C.STATUS_FLUSHED)
        drv.add_desc(2, now + 200_000 + i * 1000 + 500, expect=C.STATUS_FLUSHED)
    await drv.doorbell(1)
    await drv.doorbell(2)
    await ClockCycles(dut.clk, 5000)           # traffic on queue 0 in progress
    await drv.wr(C.Q_BASE + 1 * C.Q_STRIDE + C.Q_CTRL, drv.q[1]["ctrl"] | C.Q_CTRL_FLUSH)
    await drv.wr(C.Q_BASE + 2 * C.Q_STRIDE + C.Q_CTRL, 0)     # disable
    await tb.wait_all_completed()
    st = await drv.rd(C.Q_BASE + 2 * C.Q_STRIDE + C.Q_STATUS)
    assert st & C.Q_STATUS_ENABLED == 0
    await tb.check()


@T()
async def test_core_reset(dut):
    """CONTROL.RESET mid-traffic: every fetched, unsent descriptor completes FLUSHED, RESET_BUSY clears,
    and the core sends again afterwards."""
    tb = TB(dut, seed=8)
    await tb.reset()
    await tb.start()
    drv = tb.drv
    for q in (0, 3):
        await drv.setup_queue(q, 5)
    now = tb.phc()
    for q in (0, 3):
        for i in range(8):
            drv.add_desc(q, now + 8_000 + i * 1500 if i < 2 else now + 300_000 + i * 1000,
                         expect=WIRE if i < 2 else C.STATUS_FLUSHED)
        await drv.doorbell(q)
    await ClockCycles(dut.clk, 5000)
    await drv.wr(C.CTRL_CONTROL, C.CTRL_CONTROL_ENABLE | C.CTRL_CONTROL_RESET)
    busy_seen = (await drv.rd(C.CTRL_STATUS)) & C.CTRL_STATUS_RESET_BUSY
    await tb.wait_all_completed()
    for _ in range(100):
        st = await drv.rd(C.CTRL_STATUS)
        if not st & C.CTRL_STATUS_RESET_BUSY:
            break
    assert st == C.CTRL_STATUS_RUNNING, st
    # RESET_BUSY covers the calendar's RAM clear after the reset (microseconds): the read right after
    # the write must see it
    assert busy_seen, "RESET_BUSY not set right after CONTROL.RESET"
    # traffic after the reset
    t = tb.phc() + 10_000
    for q in (0, 3):
        for i in range(3):
            drv.add_desc(q, t + i * 2000 + q * 300, expect=C.STATUS_SENT)
        await drv.doorbell(q)
    await tb.wait_all_completed()
    await tb.check()


@T()
async def test_short_lookahead(dut):
    """Lookahead shorter than the host read latency: frames cannot be on time and are reported
    SENT_LATE with their real departure, never early, never hidden."""
    tb = TB(dut, seed=10)
    await tb.reset()
    await tb.start()
    drv = tb.drv
    await drv.wr(C.CTRL_LOOKAHEAD_NS, max(100, HOST_LAT_NS // 4))
    await drv.setup_queue(0, 5)
    await post_spread(tb, (0,), 8, tb.phc() + 10_000, [3000], expect=C.STATUS_SENT_LATE)
    await tb.wait_all_completed()
    await tb.check(wait_only_for_wire=False)


@T()
async def test_random_mix(dut):
    """Randomized mix on 4 queues: valid frames at random times (some ties, some in the past), ASAP,
    malformed descriptors, per-queue late policies, a completion ring of 16, and a flush of one queue
    mid-traffic. Every descriptor completes exactly once; frames are checked as in the other tests."""
    tb = TB(dut, seed=int(os.environ.get("SEED", "12")))
    await tb.reset()
    await tb.start(cpl_log2=4)
    drv, rng = tb.drv, tb.rng
    pol = {0: C.LATE_POLICY_SEND, 1: C.LATE_POLICY_DROP, 2: C.LATE_POLICY_SEND, 3: C.LATE_POLICY_DROP}
    for q, p in pol.items():
        await drv.setup_queue(q, 5, late=p)
    now = tb.phc()
    for rnd in range(3):
        for q in pol:
            for _ in range(rng.randint(3, 7)):
                r = rng.random()
                if r < 0.1:
                    drv.add_desc(q, now + 5_000, length=0, addr=PAY_BASE, data=b"",
                                 expect=C.STATUS_REJECTED, reason=C.REJECT_ZERO_LEN)
                elif r < 0.15:
                    drv.add_desc(q, now + 5_000, length=64, flags=1 << 7,
                                 expect=C.STATUS_REJECTED, reason=C.REJECT_BAD_FLAGS)
                elif r < 0.25:
                    late = C.STATUS_SENT_LATE if pol[q] == C.LATE_POLICY_SEND else C.STATUS_DROPPED_LATE
                    drv.add_desc(q, now - rng.randint(1, min(now - 1, 50_000)), expect=late, late_ok=True)
                elif r < 0.3 and pol[q] == C.LATE_POLICY_SEND:   # see test_asap_on_drop_queue
                    drv.add_desc(q, 0, flags=C.DESC_FLAG_ASAP, expect=WIRE, late_ok=True)
                else:
                    drv.add_desc(q, now + 10_000 + rng.randrange(0, 40) * 1000, expect=WIRE)
            await drv.doorbell(q)
        if rnd == 1:
            # flush queue 2 mid-traffic: its pending entries may be FLUSHED or already sent
            for d in drv.posted.values():
                if d["queue"] == 2 and d["expect"] is WIRE:
                    d["expect"] = WIRE + (C.STATUS_FLUSHED,)
            await drv.wr(C.Q_BASE + 2 * C.Q_STRIDE + C.Q_CTRL, drv.q[2]["ctrl"] | C.Q_CTRL_FLUSH)
        await ClockCycles(dut.clk, rng.randint(1000, 4000))
        while any(drv.free_slots(q) < 8 for q in pol):
            await ClockCycles(dut.clk, 500)
        now = tb.phc()
    await tb.wait_all_completed()
    await tb.check()


@T()
async def test_asap_on_drop_queue(dut):
    """An ASAP descriptor gets launch_ns = PHC at validation, so by the time the calendar sees it that
    time has passed; on a queue with late policy DROP it must still be sent (tsnic_desc_fetch inserts
    ASAP descriptors with late policy SEND), not completed DROPPED_LATE."""
    tb = TB(dut, seed=13)
    await tb.reset()
    await tb.start()
    drv = tb.drv
    await drv.setup_queue(1, 4, late=C.LATE_POLICY_DROP)
    drv.add_desc(1, 0, flags=C.DESC_FLAG_ASAP, expect=WIRE, late_ok=True)
    await drv.doorbell(1)
    await tb.wait_all_completed()
    await tb.check()


# ---------------------------------------------------------------------------------------------
# Receive path (issue 13): frames into s_axis_rx, steering, DMA into posted buffers, RX completions.

RXD_RING = 0x0200_0000        # + q * 0x10000: RX descriptor rings
RXC_RING = 0x0240_0000        # + q * 0x10000: RX completion rings
RX_BUF = 0x0300_0000          # + q * 0x100000 + slot * RX_BUF_STRIDE: RX buffers
RX_BUF_STRIDE = 0x4000
RX_FILL = 0xEE                # buffers are filled with this before posting: bytes past len must keep it
RX_NUM_QUEUES = 4
RX_STEER_ENTRIES = 16
RX_MAX = MAX_FRAME_LEN


def ip4(a):
    return int.from_bytes(bytes(int(x) for x in a.split(".")), "big")


def make_frame(rng, length, proto=6, src="10.0.0.1", dst="10.0.0.2", sport=1000, dport=80, ihl=5,
               ethertype=0x0800, frag=0):
    """An Ethernet/IPv4/TCP-or-UDP frame of `length` bytes (no FCS); random payload."""
    eth = bytes.fromhex("020000000002") + bytes.fromhex("020000000001") + ethertype.to_bytes(2, "big")
    ip = bytearray(4 * ihl)
    ip[0] = 0x40 | ihl
    ip[2:4] = (length - 14).to_bytes(2, "big")
    ip[6:8] = frag.to_bytes(2, "big")
    ip[8] = 64
    ip[9] = proto
    ip[12:16] = ip4(src).to_bytes(4, "big")
    ip[16:20] = ip4(dst).to_bytes(4, "big")
    l4 = sport.to_bytes(2, "big") + dport.to_bytes(2, "big")
    hdr = eth + bytes(ip) + l4
    if length <= len(hdr):
        return hdr[:length]
    return hdr + bytes(rng.getrandbits(8) for _ in range(length - len(hdr)))


class RxModel:
    """Reference model of the steering table and the statuses (independent of the RTL)."""

    def __init__(self):
        self.table = {}           # index -> (src, dst, proto, sport, dport, queue)
        self.rules = {}           # EtherType rule index -> (ethertype, queue)
        self.default_queue = 0

    @staticmethod
    def key(frame):
        if len(frame) < 34 or frame[12:14] != b"\x08\x00" or frame[14] >> 4 != 4 or frame[14] & 15 < 5:
            return None
        ihl = frame[14] & 15
        if int.from_bytes(frame[20:22], "big") & 0x3FFF:
            return None           # a fragment (MF or offset): no ports
        proto = frame[23]
        if proto not in (6, 17):
            return None
        p = 14 + 4 * ihl
        if len(frame) < p + 4:
            return None
        return (int.from_bytes(frame[26:30], "big"), int.from_bytes(frame[30:34], "big"), proto,
                int.from_bytes(frame[p:p + 2], "big"), int.from_bytes(frame[p + 2:p + 4], "big"))

    def steer(self, frame):
        """(queue, hit, entry)"""
        k = self.key(frame)
        if k is not None:
            for idx in sorted(self.table):
                e = self.table[idx]
                if e[:5] == k:
                    q = e[5] if e[5] < RX_NUM_QUEUES else 0
                    return q, True, idx
        if len(frame) >= 14:      # EtherType rules: bytes 12-13, lowest rule wins, not STEERED
            for idx in sorted(self.rules):
                if self.rules[idx][0] == int.from_bytes(frame[12:14], "big"):
                    q = self.rules[idx][1]
                    return (q if q < RX_NUM_QUEUES else 0), False, 0
        q = self.default_queue if self.default_queue < RX_NUM_QUEUES else 0
        return q, False, 0


class RxHost:
    """The driver's RX side: rings, buffers posted and recycled, completions by phase bit; plus the
    MAC side (an AxiStreamSource on s_axis_rx) and a monitor of each frame's first-beat PHC time."""

    def __init__(self, tb):
        self.tb = tb
        self.dut = tb.dut
        self.mem = tb.mem
        self.drv = tb.drv
        self.model = RxModel()
        self.q = {}
        self.sent = []            # frames offered at s_axis_rx, in order: dict(data, bad, first_phc)
        self.cpls = []            # (queue, record, bytes in the buffer)
        self.errors = []
        self.lat_comp = 0
        self.src = tb.rx_src
        cocotb.start_soon(self._monitor())

    async def _monitor(self):
        dut = self.dut
        in_frame = False
        n = 0
        tvalid = dut.s_axis_rx_tvalid
        clk_rise = RisingEdge(dut.clk)
        valid_rise = RisingEdge(tvalid)
        while True:
            await ReadOnly()
            valid = tvalid.value
            if valid and dut.s_axis_rx_tready.value:
                if not in_frame:
                    if n < len(self.sent):
                        self.sent[n]["first_phc"] = int(dut.phc_ns.value)
                    n += 1
                in_frame = not dut.s_axis_rx_tlast.value
            # idle port: sleep until tvalid rises (the source drives it at clock edges)
            await (clk_rise if valid else valid_rise)

    async def setup_queue(self, q, log2, buf_len=2048, post=None):
        qb = C.RXQ_BASE + q * C.RXQ_STRIDE
        st = dict(log2=log2, prod=0, cons=0, phase=1, buf_len=buf_len, desc=RXD_RING + q * 0x10000,
                  cpl=RXC_RING + q * 0x10000, slots={})
        self.q[q] = st
        self.mem[st["cpl"]:st["cpl"] + (32 << log2)] = bytes(32 << log2)
        w = self.drv.wr
        await w(qb + C.RXQ_CTRL, 0)
        await w(qb + C.RXQ_DESC_BASE_LO, st["desc"])
        await w(qb + C.RXQ_DESC_BASE_HI, 0)
        await w(qb + C.RXQ_CPL_BASE_LO, st["cpl"])
        await w(qb + C.RXQ_CPL_BASE_HI, 0)
        await w(qb + C.RXQ_SIZE_LOG2, log2)
        await w(qb + C.RXQ_CTRL, C.RXQ_CTRL_ENABLE)
        n = (1 << log2) if post is None else post
        for _ in range(n):
            self.post(q)
        await self.doorbell(q)

    def post(self, q, addr=None, buf_len=None):
        st = self.q[q]
        size = 1 << st["log2"]
        slot = st["prod"] % size
        if addr is None:
            addr = RX_BUF + q * 0x100000 + slot * RX_BUF_STRIDE
        blen = st["buf_len"] if buf_len is None else buf_len
        self.mem[addr:addr + min(blen, RX_BUF_STRIDE)] = bytes([RX_FILL]) * min(blen, RX_BUF_STRIDE)
        self.mem[st["desc"] + slot * 16:st["desc"] + slot * 16 + 16] = C.pack_rx_descriptor(addr=addr, len=blen)
        st["slots"][st["prod"] & 0xFFFF] = (addr, blen)
        st["prod"] = (st["prod"] + 1) & 0xFFFF

    async def doorbell(self, q):
        await self.drv.wr(C.RXQ_BASE + q * C.RXQ_STRIDE + C.RXQ_PROD, self.q[q]["prod"])

    async def poll(self, recycle=True):
        n = 0
        for q, st in self.q.items():
            size = 1 << st["log2"]
            got = 0
            while True:
                slot = st["cons"] % size
                a = st["cpl"] + slot * 32
                rec = C.unpack_rx_completion(self.mem[a:a + 32])
                if (rec["flags"] >> 31) & 1 != st["phase"]:
                    break
                addr, blen = st["slots"].pop(st["cons"] & 0xFFFF)
                data = bytes(self.mem[addr:addr + rec["len"]])
                tail = bytes(self.mem[addr + rec["len"]:addr + min(blen, (rec["len"] + 63) // 64 * 64)])
                if rec["ring_index"] != st["cons"] & 0xFFFF or rec["queue"] != q:
                    self.errors.append(f"q{q}: completion index/queue {rec['ring_index']}/{rec['queue']}, "
                                       f"expected {st['cons'] & 0xFFFF}/{q}")
                if tail != bytes([RX_FILL]) * len(tail):
                    self.errors.append(f"q{q} #{rec['ring_index']}: bytes past len {rec['len']} were written")
                self.cpls.append(dict(queue=q, rec=rec, data=data, buf_len=blen, seen_phc=self.tb.phc()))
                st["cons"] = (st["cons"] + 1) & 0xFFFF
                if slot == size - 1:
                    st["phase"] ^= 1
                got += 1
                if recycle:
                    self.post(q)
            if got and recycle:
                await self.doorbell(q)
            n += got
        return n

    async def send(self, data, bad=False):
        self.sent.append(dict(data=bytes(data), bad=bad, first_phc=None))
        await self.src.send(AxiStreamFrame(tdata=bytes(data), tuser=int(bad)))

    async def steer_write(self, idx, src, dst, proto, sport, dport, queue, valid=True):
        w = self.drv.wr
        await w(C.RX_STEER_INDEX, idx)
        await w(C.RX_STEER_SRC_IP, ip4(src))
        await w(C.RX_STEER_DST_IP, ip4(dst))
        await w(C.RX_STEER_PORTS, (sport << 16) | dport)
        await w(C.RX_STEER_CTRL, proto | (queue << 8) | ((1 << 31) if valid else 0))
        await w(C.RX_STEER_CMD, C.RX_STEER_CMD_WRITE)
        if valid:
            self.model.table[idx] = (ip4(src), ip4(dst), proto, sport, dport, queue)
        else:
            self.model.table.pop(idx, None)

    def expect(self, f, buf_len):
        """(queue, hit, entry, status, len) the model predicts for a frame delivered to a buffer."""
        q, hit, ent = self.model.steer(f["data"])
        n = len(f["data"])
        kept = min(n, RX_MAX)
        if f["bad"]:
            st = C.RX_STATUS_BAD_FCS
        elif n > RX_MAX:
            st = C.RX_STATUS_TOO_LONG
        elif kept > buf_len:
            st = C.RX_STATUS_TRUNCATED
        else:
            st = C.RX_STATUS_OK
        return q, hit, ent, st, min(kept, buf_len)

    def check_delivered(self, delivered):
        """delivered: the offered frames that must have completed, in order. Checks each completion."""
        assert not self.errors, self.errors[:5]
        byq = {}
        for f in delivered:
            q, *_ = self.model.steer(f["data"])
            byq.setdefault(q, []).append(f)
        gotq = {}
        for c in self.cpls:
            gotq.setdefault(c["queue"], []).append(c)
        errs = []
        for q in set(byq) | set(gotq):
            exp, got = byq.get(q, []), gotq.get(q, [])
            if len(exp) != len(got):
                errs.append(f"q{q}: {len(got)} completions, {len(exp)} expected")
                continue
            for i, (f, c) in enumerate(zip(exp, got)):
                rec = c["rec"]
                eq, hit, ent, st, ln = self.expect(f, c["buf_len"])
                what = f"q{q} frame {i} (len {len(f['data'])})"
                if rec["status"] != st:
                    errs.append(f"{what}: status {C.RX_STATUS_NAMES.get(rec['status'])} expected "
                                f"{C.RX_STATUS_NAMES[st]}")
                if rec["len"] != ln or c["data"] != f["data"][:ln]:
                    errs.append(f"{what}: len {rec['len']} expected {ln}, or the bytes differ")
                if rec["frame_len"] != min(len(f["data"]), 65535):
                    errs.append(f"{what}: frame_len {rec['frame_len']}")
                if bool(rec["flags"] & C.RXC_FLAG_STEERED) != hit or rec["steer_entry"] != ent:
                    errs.append(f"{what}: steered {rec['flags'] & 1} entry {rec['steer_entry']}, "
                                f"expected {hit} {ent}")
                if rec["arrival_ns"] != f["first_phc"] + self.lat_comp:
                    errs.append(f"{what}: arrival_ns {rec['arrival_ns']} != first-beat PHC {f['first_phc']} "
                                f"+ {self.lat_comp}")
                if rec["flags"] & ~(C.RXC_FLAG_STEERED | C.RXC_FLAG_PHASE) or rec["reserved0"] \
                        or rec["reserved1"] or rec["reserved2"]:
                    errs.append(f"{what}: reserved bits set {rec}")
        assert not errs, errs[:8]

    async def check_counters(self, delivered, drop_disabled=0, drop_full=0, nobuf=None):
        rd = self.drv.rd
        sent = self.sent
        assert await rd(C.RX_CNT_FRAMES) == len(sent)
        assert await rd(C.RX_CNT_BYTES) == sum(len(f["data"]) for f in sent) & 0xFFFFFFFF
        assert await rd(C.RX_CNT_BAD_FCS) == sum(1 for f in sent if f["bad"])
        assert await rd(C.RX_CNT_TOO_LONG) == sum(1 for f in sent if len(f["data"]) > RX_MAX)
        assert await rd(C.RX_CNT_DROP_DISABLED) == drop_disabled
        assert await rd(C.RX_CNT_DROP_FULL) == drop_full
        kept = [f for f in sent if f.get("kept", True)]
        assert await rd(C.RX_CNT_STEERED) == sum(1 for f in kept if self.model.steer(f["data"])[1])
        for q in range(RX_NUM_QUEUES):
            qb = C.RXQ_BASE + q * C.RXQ_STRIDE
            mine = [c for c in self.cpls if c["queue"] == q]
            assert await rd(qb + C.RXQ_CNT_FRAMES) == len(mine), f"rxq{q} frames"
            assert await rd(qb + C.RXQ_CNT_BYTES) == sum(c["rec"]["len"] for c in mine), f"rxq{q} bytes"
            assert await rd(qb + C.RXQ_CNT_ERRORS) == sum(1 for c in mine if c["rec"]["status"] != C.RX_STATUS_OK)
            want = (nobuf or {}).get(q, 0)
            assert await rd(qb + C.RXQ_CNT_DROP_NOBUF) == want, f"rxq{q} nobuf"

    async def drain(self, n, timeout_us=500, recycle=True):
        """Poll until n completions in all have arrived."""
        for _ in range(timeout_us * 1000 // (CLK_NS * 50)):
            if len(self.cpls) >= n:
                return
            await self.poll(recycle=recycle)
            if len(self.cpls) >= n:
                return
            await ClockCycles(self.dut.clk, 50)
        rd = self.drv.rd
        cnt = {name: await rd(getattr(C, "RX_" + name)) for name in
               ("CNT_FRAMES", "CNT_DROP_DISABLED", "CNT_DROP_FULL", "CNT_STEERED")}
        for q in range(RX_NUM_QUEUES):
            qb = C.RXQ_BASE + q * C.RXQ_STRIDE
            cnt[f"q{q}"] = (await rd(qb + C.RXQ_CNT_FRAMES), await rd(qb + C.RXQ_CNT_DROP_NOBUF),
                            await rd(qb + C.RXQ_PROD), await rd(qb + C.RXQ_CONS), await rd(qb + C.RXQ_STATUS))
        raise AssertionError(f"only {len(self.cpls)} of {n} RX completions arrived; card: {cnt}")


def random_rx_frames(rng, n, flows):
    """A mix: frames of the steered flows, IPv4 TCP/UDP of other flows, non-IP, IPv4 options,
    fragments, other protocols; lengths 14..1514 (a few runts)."""
    out = []
    for _ in range(n):
        kind = rng.randrange(8)
        ln = rng.choice([rng.randint(60, 1514), rng.randint(60, 200), rng.randint(14, 59)])
        if kind <= 2:
            s, d, p, sp, dp = rng.choice(flows)
            f = make_frame(rng, max(ln, 60), proto=p, src=s, dst=d, sport=sp, dport=dp)
        elif kind == 3:
            f = make_frame(rng, ln, proto=rng.choice([6, 17]), src="10.9.9.9", sport=rng.randrange(65536))
        elif kind == 4:           # IPv6, L2 PTP (EtherType rules), another EtherType
            f = make_frame(rng, ln, ethertype=rng.choice([0x86DD, 0x88F7, 0x88B5]))
        elif kind == 5:
            s, d, p, sp, dp = rng.choice(flows)
            f = make_frame(rng, max(ln, 80), proto=p, src=s, dst=d, sport=sp, dport=dp, ihl=rng.choice([6, 15]))
        elif kind == 6:
            s, d, p, sp, dp = rng.choice(flows)
            f = make_frame(rng, max(ln, 60), proto=p, src=s, dst=d, sport=sp, dport=dp,
                           frag=rng.choice([0x2000, 0x0010]))
        else:
            f = make_frame(rng, ln, proto=1)
        out.append(f)
    return out


async def rx_start(tb, lat_comp=0):
    rx = RxHost(tb)
    assert await tb.drv.rd(C.CAP_FEATURES) & C.FEATURE_RX_PATH
    assert await tb.drv.rd(C.RX_NUM_QUEUES) == RX_NUM_QUEUES
    assert await tb.drv.rd(C.RX_STEER_ENTRIES) == RX_STEER_ENTRIES
    assert await tb.drv.rd(C.RX_MAX_FRAME_LEN) == RX_MAX
    await tb.drv.wr(C.RX_LAT_COMP_NS, lat_comp)
    rx.lat_comp = lat_comp - (1 << 32) if lat_comp & 0x80000000 else lat_comp
    return rx


@T()
async def test_rx_steer_timestamps(dut):
    """RX: a random mix of frames (steered flows, other flows, non-IP, IP options, fragments, runts,
    bad FCS, one too long, some longer than a small buffer) with TX traffic at the same time: each
    frame completes on the queue the model steers it to, with its status, bytes, length, arrival time
    (first-beat PHC + RX_LAT_COMP_NS, negative here) and steering entry; buffers recycled through a
    ring that wraps; counters; the interrupt; TX completions and frames unaffected."""
    tb = TB(dut, seed=21)
    await tb.reset()
    await tb.start()
    rx = await rx_start(tb, lat_comp=(-24) & 0xFFFFFFFF)
    flows = [("10.0.0.1", "10.0.0.2", 6, 40000, 80), ("10.0.0.3", "10.0.0.2", 17, 5000, 5001),
             ("192.168.1.7", "10.0.0.2", 6, 443, 51000)]
    await rx.steer_write(3, *flows[0], queue=1)
    await rx.steer_write(0, *flows[1], queue=2)
    await rx.steer_write(9, *flows[2], queue=3)
    await rx.steer_write(15, *flows[2], queue=1)        # shadowed by entry 9 (lowest index wins)
    # read back entry 9
    await tb.drv.wr(C.RX_STEER_INDEX, 9)
    await tb.drv.wr(C.RX_STEER_CMD, C.RX_STEER_CMD_READ)
    assert await tb.drv.rd(C.RX_STEER_SRC_IP) == ip4("192.168.1.7")
    assert await tb.drv.rd(C.RX_STEER_PORTS) == (443 << 16) | 51000
    assert await tb.drv.rd(C.RX_STEER_CTRL) == 6 | (3 << 8) | (1 << 31)
    # EtherType rules: L2 PTP to queue 2; rule 0 shadows a later rule for the same EtherType
    assert await tb.drv.rd(C.RX_STEER_ET_RULES) >= 2
    for idx, et, q in ((1, 0x88F7, 1), (0, 0x88F7, 2), (1, 0x86DD, 3)):
        await tb.drv.wr(C.RX_STEER_INDEX, idx)
        await tb.drv.wr(C.RX_STEER_ET, et | (q << 16) | C.RX_STEER_ET_VALID)
        await tb.drv.wr(C.RX_STEER_CMD, C.RX_STEER_CMD_ET_WRITE)
        rx.model.rules[idx] = (et, q)
    rx.model.default_queue = 0
    await tb.drv.wr(C.RX_DEFAULT_QUEUE, 0)
    await rx.setup_queue(0, 3)                  # 8 buffers, wraps
    await rx.setup_queue(1, 4)
    await rx.setup_queue(2, 4)
    await rx.setup_queue(3, 3, buf_len=256)     # short buffers: TRUNCATED
    await tb.drv.wr(C.CTRL_IRQ_MOD_COUNT, 1)
    await tb.drv.wr(C.CTRL_IRQ_CTRL, C.CTRL_IRQ_CTRL_ENABLE)
    await tb.drv.wr(C.RX_CTRL, C.RX_CTRL_ENABLE)
    # TX at the same time (the write arbiter shares m_axi_aw/w/b)
    await tb.drv.setup_queue(0, 5)
    t0 = tb.phc() + 10_000
    for i in range(12):
        tb.drv.add_desc(0, t0 + i * 1500, expect=WIRE)
    await tb.drv.doorbell(0)
    frames = random_rx_frames(tb.rng, int(os.environ.get("RX_FRAMES", "60")), flows)
    n_ptp = sum(1 for f in frames if f[12:14] == b"\x88\xf7")
    n_v6 = sum(1 for f in frames if f[12:14] == b"\x86\xdd")
    dut._log.info("RX: %d L2 PTP and %d IPv6 frames (EtherType rules)", n_ptp, n_v6)
    assert n_ptp > 0 and n_v6 > 0
    bad = set(tb.rng.sample(range(len(frames)), 4))
    irq_seen = False
    for i, f in enumerate(frames):
        await rx.send(f, bad=i in bad)
        if i == 20:
            await rx.send(make_frame(tb.rng, RX_MAX + 100, *flows[1][2:3], src=flows[1][0], dst=flows[1][1],
                                     sport=flows[1][3], dport=flows[1][4]))
        if i % 8 == 0:
            await rx.poll()
            irq_seen |= bool(dut.irq.value)
            await tb.drv.wr(C.CTRL_IRQ_STATUS, 1)
        # at most 8 frames waiting for the DMA (one descriptor read of host latency per frame: the
        # frame queue would overflow at this offered rate; test_rx_drops covers that)
        await rx.drain(len(rx.sent) - 8)
    await rx.drain(len(rx.sent))
    irq_seen |= bool(dut.irq.value)
    assert irq_seen, "RX completions raised no interrupt"
    rx.check_delivered(rx.sent)
    await rx.check_counters(rx.sent)
    assert await tb.drv.rd(C.RX_CNT_DROP_FULL) == 0
    await tb.wait_all_completed()
    await tb.check()
    sts = Counter(C.RX_STATUS_NAMES[c["rec"]["status"]] for c in rx.cpls)
    qs = Counter(c["queue"] for c in rx.cpls)
    dut._log.info("RX completions: %s, per queue %s", dict(sts), dict(qs))
    assert sts["TRUNCATED"] > 0 and sts["BAD_FCS"] == 4 and sts["TOO_LONG"] == 1


@T()
async def test_rx_drops(dut):
    """RX drops are counted, never silent: RX disabled (DROP_DISABLED); a queue without posted buffers
    and a disabled queue (their CNT_DROP_NOBUF) while the other queues still receive; a descriptor with
    an unaligned address (BAD_DESC, nothing written); a burst of short frames while the host holds
    back its write responses (the DMA keeps up with the line otherwise: it then cannot complete a
    frame) overflows the frame queue (DROP_FULL): every frame is accounted for exactly once."""
    tb = TB(dut, seed=22)
    await tb.reset()
    await tb.start()
    rx = await rx_start(tb)
    rng = tb.rng
    flows = [("10.0.0.1", "10.0.0.2", 6, 1, 2), ("10.0.0.1", "10.0.0.2", 6, 3, 4), ("10.0.0.1", "10.0.0.2", 6, 5, 6)]
    await rx.steer_write(0, *flows[0], queue=1)
    await rx.steer_write(1, *flows[1], queue=2)
    await rx.steer_write(2, *flows[2], queue=3)
    await rx.setup_queue(0, 6, post=63)
    await rx.setup_queue(1, 3, post=0)          # no buffers
    await rx.setup_queue(3, 3)
    await tb.drv.wr(C.RXQ_BASE + 3 * C.RXQ_STRIDE + C.RXQ_CTRL, 0)    # queue 3 disabled
    # 1. RX disabled: dropped
    for _ in range(3):
        await rx.send(make_frame(rng, 100))
    await ClockCycles(dut.clk, 200)
    for f in rx.sent:
        f["kept"] = False
    # 2. enabled: q0 receives, q1 (no buffers), q2 (no block set up: disabled) and q3 (disabled) drop
    await tb.drv.wr(C.RX_CTRL, C.RX_CTRL_ENABLE)
    delivered = []
    nobuf = Counter()
    for i in range(24):
        k = rng.randrange(4)
        f = make_frame(rng, rng.randint(60, 300), *((flows[k - 1][2],) if k else ()),
                       **(dict(src=flows[k - 1][0], dst=flows[k - 1][1], sport=flows[k - 1][3],
                               dport=flows[k - 1][4]) if k else {}))
        await rx.send(f)
        if k == 0:
            delivered.append(rx.sent[-1])
        else:
            nobuf[k] += 1
    await rx.drain(len(delivered))
    # 3. q2 set up with one descriptor whose address is not 64-byte aligned, then a good one
    await rx.setup_queue(2, 3, post=0)
    rx.post(2, addr=RX_BUF + 0x280000 + 8, buf_len=2048)
    rx.post(2)
    await rx.doorbell(2)
    for _ in range(2):
        await rx.send(make_frame(rng, 200, 6, src=flows[1][0], dst=flows[1][1], sport=flows[1][3], dport=flows[1][4]))
    await rx.drain(len(delivered) + 2, recycle=False)
    c2 = [c for c in rx.cpls if c["queue"] == 2]
    assert [c["rec"]["status"] for c in c2] == [C.RX_STATUS_BAD_DESC, C.RX_STATUS_OK], [c["rec"] for c in c2]
    assert c2[0]["rec"]["len"] == 0 and c2[1]["data"] == rx.sent[-1]["data"]
    assert bytes(tb.mem[RX_BUF + 0x280000 + 8:RX_BUF + 0x280000 + 8 + 256]) == bytes([RX_FILL]) * 256, \
        "a BAD_DESC buffer was written"
    # 4. a burst of 48 short frames back to back while the host answers no write: the frame queue
    #    (32) overflows while the DMA waits for B before its first completion write
    n0 = len(rx.sent)
    tb.wram.b_channel.pause = True
    for _ in range(48):
        await rx.send(make_frame(rng, 64))
    await rx.src.wait()                         # the whole burst is in
    await ClockCycles(dut.clk, 50)
    tb.wram.b_channel.pause = False
    await ClockCycles(dut.clk, 20000)
    await rx.poll()
    full = await tb.drv.rd(C.RX_CNT_DROP_FULL)
    dut._log.info("burst of 48: %d dropped for room, %d delivered", full, len(rx.cpls) - (len(delivered) + 2))
    assert full > 0, "the burst overflowed nothing: the test did not test DROP_FULL"
    assert (len(rx.cpls) - len(delivered) - 2) + full == 48, "a frame of the burst was neither delivered nor counted"
    assert await tb.drv.rd(C.RX_CNT_DROP_DISABLED) == 3
    for q in (1, 2, 3):
        got = await tb.drv.rd(C.RXQ_BASE + q * C.RXQ_STRIDE + C.RXQ_CNT_DROP_NOBUF)
        assert got == nobuf[q], f"rxq{q} CNT_DROP_NOBUF {got} != {nobuf[q]}"
    assert await tb.drv.rd(C.RX_CNT_FRAMES) == len(rx.sent)
    # the delivered frames of phase 2 are intact and in order
    firsts = [c for c in rx.cpls[:len(delivered)]]
    for f, c in zip(delivered, firsts):
        assert c["data"] == f["data"] and c["rec"]["status"] == C.RX_STATUS_OK
    # the burst frames that were delivered are intact, a subsequence of the sent ones in order
    it = iter(f["data"] for f in rx.sent[n0:])
    for c in rx.cpls[len(delivered) + 2:]:
        assert c["rec"]["status"] == C.RX_STATUS_OK
        assert any(c["data"] == d for d in it), "a burst frame delivered out of order or altered"


@cocotb.test()
async def test_flash_path(dut):
    """The FLASH block through BAR0: CAP, READ_ID, program + read back, IPROG on the ICAP pins
    (the flash bench's pin-level MT25QU01G and ICAP models on the core's qspi_*/icap_* ports)."""
    import struct
    from flash_model import IcapModel, QspiFlash
    tb = TB(dut)
    flash = QspiFlash(dut)
    icap = IcapModel(dut, wbstar=0x00400000, bootsts=0x1)
    await tb.reset()

    async def rd(a):
        return int.from_bytes((await tb.axil.read(a, 4)).data, "little")

    async def wr(a, v):
        await tb.axil.write(a, int(v).to_bytes(4, "little"))

    async def run(op):
        await wr(C.FLASH_CMD, op)
        for _ in range(2000):
            st = await rd(C.FLASH_STATUS)
            if not st & C.FLASH_STATUS_BUSY:
                return st
        raise AssertionError("FLASH still busy")

    assert await rd(C.FLASH_CAP) == (27 << 16) | (1 << 8)
    assert await rd(C.FLASH_BOOT_WBSTAR) == 0x00400000
    st = await run(1)
    assert not st & C.FLASH_STATUS_ERROR and await rd(C.FLASH_JEDEC_ID) == 0x21BB20
    data = bytes(range(0x40, 0x50))
    for i in range(0, 16, 4):
        await wr(C.FLASH_DATA, struct.unpack_from("<I", data, i)[0])
    await wr(C.FLASH_ADDR, 0x00123400)
    await wr(C.FLASH_LEN, 16)
    assert not (await run(3)) & C.FLASH_STATUS_ERROR
    assert flash.read_mem(0x00123400, 16) == data
    assert not (await run(2)) & C.FLASH_STATUS_ERROR
    got = b""
    for _ in range(4):
        got += struct.pack("<I", await rd(C.FLASH_DATA))
    assert got == data, got.hex()
    await wr(C.FLASH_ADDR, 0x01000000)
    assert not (await run(8)) & C.FLASH_STATUS_ERROR
    assert icap.iprogs == [0x01000000]
@T()
async def test_dma_error(dut):
    """Host reads answered SLVERR: a payload read (first, middle or last beat of the frame) and a
    descriptor read. Each affected descriptor gets exactly one DMA_ERROR completion (a failed
    descriptor read: cookie, len and launch_ns 0), nothing of it reaches the wire, it is counted, and
    the frames around it leave on time."""
    tb = TB(dut, seed=12)
    await tb.reset()
    await tb.start()
    await tb.drv.setup_queue(0, 5)
    await tb.drv.setup_queue(3, 5)
    t = tb.phc() + 20_000
    for k, (length, where) in enumerate([(300, None), (900, 0), (200, None), (1500, 0.5), (64, None), (700, 1.0)]):
        t += 3000
        d = tb.drv.add_desc(k % 2 * 3, t, length=length,
                            expect=C.STATUS_SENT if where is None else C.STATUS_DMA_ERROR)
        if where is not None:
            a = d["addr"] + int((length - 1) * where)
            tb.rd.bad.append((a, a + 1))
    await tb.drv.doorbell(0)
    await tb.drv.doorbell(3)
    await tb.wait_all_completed()
    # queue 5: a descriptor whose own read fails (alone in its burst), then a good one
    await tb.drv.setup_queue(5, 5)
    bad = tb.drv.add_desc(5, tb.phc() + 20_000, length=100, expect=C.STATUS_DMA_ERROR)
    bad["desc_err"] = True
    ring = tb.drv.q[5]["base"] + (bad["index"] % 32) * 32
    tb.rd.bad = [(ring + 8, ring + 9)]
    await tb.drv.doorbell(5)
    await tb.wait_all_completed()
    tb.rd.bad = []
    tb.drv.add_desc(5, tb.phc() + 20_000, length=100, expect=C.STATUS_SENT)
    await tb.drv.doorbell(5)
    await tb.wait_all_completed()
    await tb.check()
    assert sum(1 for c in tb.drv.cpls if c["status"] == C.STATUS_DMA_ERROR) == 4
