"""Bench for tsnic_mac_tx: the launch gate in the MAC's TX domain, fed across a clock crossing.

Core side on clk (250 MHz + CORE_PPM) with the real tsnic_phc; MAC side on mac_clk (156.25 MHz for
DATA_W=64, 322.265625 MHz for DATA_W=512, + MAC_PPM) with the time carried by tsnic_td_source ->
tsnic_td_sink. The scoreboard is independent of the DUT: it knows what it pushed, watches the MAC
stream, and takes time from tb_phc_truth (the PHC register interpolated between core edges) at the
start of each frame's first-beat cycle. Checks: every frame's bytes and order; one completion per
frame, in order, with the right fields; never early (true SOF time >= launch_ns), on an idle line at
most one MAC cycle late (floor(true SOF time) - launch_ns <= T_MAC); the reported departure equals the
MAC-domain time plus CTRL_TX_LAT_COMP_NS within 1 ns of the truth; no gap inside a frame; flush;
the MAC's own reset in the middle of traffic (every frame still gets one completion).

MAC_LAG=1 (DATA_W=64, as the 10G boards): the bench's MAC reports, for every frame whose first beat it
took, a line-start lag of its own choosing (0..60 ns, 1..8 MAC cycles after the beat, in order, none
for a frame cut by its reset); the reported departure must then be the truth plus that lag, and a lag
of 4 ns or more makes the frame SENT_LATE.
"""

from collections import deque

import math
import os
import random

import cocotb
from cocotb.queue import Queue
from cocotb.triggers import ClockCycles, Edge, Event, RisingEdge, ReadOnly, Timer

import tsnic_contract as C
from tsnic_regif_master import RegIfMaster

DATA_W = int(os.environ.get("DATA_W", "64"))
BYTES = DATA_W // 8
MAC_PERIOD_PS = float(os.environ.get("MAC_PERIOD_PS", "6400"))
CORE_PPM = float(os.environ.get("CORE_PPM", "0"))
MAC_PPM = float(os.environ.get("MAC_PPM", "0"))
T_MAC = MAC_PERIOD_PS / 1000.0
SOAK = os.environ.get("SOAK", "") not in ("", "0")
MAC_LAG = int(os.environ.get("MAC_LAG", "0"))
LAG_LATE_NS = 4     # tsnic_launch_gate's default


class Frame:
    def __init__(self, idx, length, launch, late=False, capped=False):
        self.idx = idx
        self.data = bytes(random.getrandbits(8) for _ in range(length))
        self.launch = launch
        self.late = late
        self.capped = capped
        self.queue = random.randrange(8)
        self.ring_index = random.randrange(1 << 16)
        self.cookie = random.getrandbits(32)
        self.handle = random.randrange(1 << 10)
        self.pushed_ns = None     # PHC time when its last beat entered the DUT


class TB:
    def __init__(self, dut):
        self.dut = dut
        self.log = dut._log
        # the clocks run in the bench top (CLK_HALF_FS, MAC_HALF_FS from the Makefile)
        self.regs = RegIfMaster(dut, dut.clk)
        dut.flush.value = 0
        dut.tx_lat_comp_ns.value = 0
        dut.s_frm_valid.value = 0
        dut.s_axis_pay_tvalid.value = 0
        dut.m_cpl_req_ready.value = 1
        dut.m_axis_tx_tready.value = 1
        dut.s_mac_lag_valid.value = 0
        dut.s_mac_lag_ns.value = 0
        self.lag_q = deque()      # (due MAC cycle, lag ns) owed to the gate, oldest first
        self.cur_lag = None       # the lag of the frame the MAC is taking
        self.wire_lags = []       # the lag of each frame in self.wire
        self.mac_cycle = 0
        self.sent = []            # frames pushed, in order
        self.wire = []            # (bytes, sof_index) as seen at the MAC
        self.sof_truth = []       # true PHC time (ns, real) of each SOF
        self.cpls = []
        self.cut = []             # frames the MAC saw begin but not end (cut by the MAC's reset)
        self.gaps = 0
        self._ready_changed = Event()
        self.ready_prob = 1.0
        self.push_q = Queue()

    async def reset(self):
        self.dut.rst.value = 1
        self.dut.mac_rst.value = 1
        await ClockCycles(self.dut.clk, 8)
        await ClockCycles(self.dut.mac_clk, 8)
        self.dut.rst.value = 0
        self.dut.mac_rst.value = 0
        await ClockCycles(self.dut.clk, 2)
        cocotb.start_soon(self._mac_monitor())
        cocotb.start_soon(self._sof_truth())
        cocotb.start_soon(self._cpl_monitor())
        cocotb.start_soon(self._pusher())
        cocotb.start_soon(self._ready_driver())
        if MAC_LAG:
            cocotb.start_soon(self._lag_driver())

    async def set_time(self, ns):
        assert await self.regs.write(C.PHC_SET_LO, ns & 0xFFFFFFFF)
        assert await self.regs.write(C.PHC_SET_HI, (ns >> 32) & 0xFFFFFFFF)
        assert await self.regs.write(C.PHC_CMD, C.PHC_CMD_SET)

    def phc(self):
        return int(self.dut.phc_ns.value)

    async def wait_locked(self):
        for _ in range(500):
            if int(self.dut.mac_locked.value):
                return
            await Timer(1, units="us")
        raise AssertionError("MAC-domain time not locked after 500 us")

    # core side: frames as tsnic_tx_prefetch presents them
    async def _pusher(self):
        dut = self.dut
        while True:
            f = await self.push_q.get()
            dut.s_frm_launch_ns.value = f.launch
            dut.s_frm_req_launch_ns.value = f.launch
            dut.s_frm_late.value = int(f.late)
            dut.s_frm_capped.value = int(f.capped)
            dut.s_frm_queue.value = f.queue
            dut.s_frm_ring_index.value = f.ring_index
            dut.s_frm_cookie.value = f.cookie
            dut.s_frm_len.value = len(f.data)
            dut.s_frm_handle.value = f.handle
            dut.s_frm_valid.value = 1
            beats = [f.data[i:i + BYTES] for i in range(0, len(f.data), BYTES)]
            for n, b in enumerate(beats):
                dut.s_axis_pay_tdata.value = int.from_bytes(b.ljust(BYTES, b"\0"), "little")
                dut.s_axis_pay_tkeep.value = (1 << len(b)) - 1
                dut.s_axis_pay_tlast.value = int(n == len(beats) - 1)
                dut.s_axis_pay_tvalid.value = 1
                while True:
                    await RisingEdge(dut.clk)
                    if int(dut.s_axis_pay_tready.value):
                        break
            f.pushed_ns = self.phc()
            dut.s_axis_pay_tvalid.value = 0
            dut.s_frm_valid.value = 0

    def push(self, f):
        f.lat = int(self.dut.tx_lat_comp_ns.value)    # CTRL_TX_LAT_COMP_NS in force for this frame
        f.ready_prob = self.ready_prob                  # the MAC's readiness while it leaves
        self.sent.append(f)
        self.push_q.put_nowait(f)

    @property
    def ready_prob(self):
        return self._ready_prob

    @ready_prob.setter
    def ready_prob(self, p):
        self._ready_prob = p
        self._ready_changed.set()

    async def _ready_driver(self):
        dut = self.dut
        while True:
            if self._ready_prob >= 1.0:
                # always ready: no need to wake in every MAC cycle until a scenario changes it
                dut.m_axis_tx_tready.value = 1
                self._ready_changed.clear()
                await self._ready_changed.wait()
            await RisingEdge(dut.mac_clk)
            p = self._ready_prob
            dut.m_axis_tx_tready.value = int(random.random() < p) if p < 1.0 else 1

    async def _mac_monitor(self):
        dut = self.dut
        cur = None
        while True:
            await RisingEdge(dut.mac_clk)
            await ReadOnly()
            self.mac_cycle += 1
            if int(dut.mac_rst.value):
                if cur is not None:
                    self.cut.append(cur)
                    cur = None
                self.lag_q.clear()      # a MAC in reset forgets what it owed
                self.cur_lag = None
                continue
            v = int(dut.m_axis_tx_tvalid.value)
            if cur is not None and not v:
                self.gaps += 1
            if cur is None and not v and not MAC_LAG:
                # between frames and nothing offered: sleep until tvalid rises (it changes only at a
                # mac_clk edge), then look at that edge as the loop would have. Not with MAC_LAG: then
                # this loop also counts the MAC cycles the line-start reports are due in, and forgets
                # them in a MAC reset.
                await RisingEdge(dut.m_axis_tx_tvalid)
                await ReadOnly()
                if int(dut.mac_rst.value):
                    continue
                v = 1
            if v and int(dut.m_axis_tx_tready.value):
                keep = int(dut.m_axis_tx_tkeep.value)
                data = int(dut.m_axis_tx_tdata.value).to_bytes(BYTES, "little")
                n = bin(keep).count("1")
                assert keep == (1 << n) - 1, f"tkeep {keep:#x} not contiguous"
                if cur is None:
                    # the MAC's line start for this frame: on time or after a wait of its own
                    self.cur_lag = 0
                    if MAC_LAG:
                        short = random.random() < 0.5
                        self.cur_lag = random.randint(0, LAG_LATE_NS - 1) if short else random.randint(LAG_LATE_NS, 60)
                        self.lag_q.append((self.mac_cycle + random.randint(1, 8), self.cur_lag))
                cur = (cur or b"") + data[:n]
                if int(dut.m_axis_tx_tlast.value):
                    self.wire.append(cur)
                    self.wire_lags.append(self.cur_lag)
                    cur = None

    async def _lag_driver(self):
        """The MAC's line-start reports: one a cycle at most, in order, when due."""
        dut = self.dut
        while True:
            await RisingEdge(dut.mac_clk)
            if self.lag_q and self.lag_q[0][0] <= self.mac_cycle and not int(dut.mac_rst.value):
                dut.s_mac_lag_valid.value = 1
                dut.s_mac_lag_ns.value = self.lag_q.popleft()[1]
            else:
                dut.s_mac_lag_valid.value = 0

    async def _sof_truth(self):
        dut = self.dut
        seen = int(dut.sof_count.value)     # the counter lives on across tests
        while True:
            # sof_count changes 3 ps after a mac_clk edge (the bench top), after sof_true_*
            await Edge(dut.sof_count)
            await ReadOnly()
            n = int(dut.sof_count.value)
            if n != seen:
                assert n == seen + 1
                seen = n
                self.sof_truth.append(int(dut.sof_true_ns.value) + float(dut.sof_true_fr.value))

    async def _cpl_monitor(self):
        dut = self.dut
        while True:
            await RisingEdge(dut.clk)
            await ReadOnly()
            if not int(dut.m_cpl_req_valid.value):
                # nothing offered: sleep until valid rises (only at a clk edge), then that edge's look
                await RisingEdge(dut.m_cpl_req_valid)
                await ReadOnly()
            if int(dut.m_cpl_req_valid.value) and int(dut.m_cpl_req_ready.value):
                self.cpls.append({k: int(getattr(dut, "m_cpl_req_" + k).value) for k in (
                    "queue", "ring_index", "cookie", "launch_ns", "depart_ns", "len", "status", "reason",
                    "capped", "handle", "handle_valid")})

    async def drain(self, n_frames, timeout_us=400):
        for _ in range(timeout_us):
            if len(self.cpls) >= n_frames:
                break
            await Timer(1, units="us")
        await Timer(1, units="us")
        assert len(self.cpls) == n_frames, f"{len(self.cpls)} completions for {n_frames} frames"


async def start(dut):
    tb = TB(dut)
    await tb.reset()
    await tb.set_time(2_000_000_000_000)
    await tb.wait_locked()
    await Timer(20, units="us")
    return tb


def check(tb, flushed=()):
    """The scoreboard over every frame since reset: wire, completions, time. Returns the idle-line
    error figures."""
    sent_frames = [f for f in tb.sent if f.idx not in flushed]
    assert len(tb.wire) == len(sent_frames), f"{len(tb.wire)} frames on the wire, {len(sent_frames)} expected"
    assert len(tb.sof_truth) == len(tb.wire)
    assert tb.gaps == 0, f"{tb.gaps} cycles without data inside a frame (a CMAC would underflow)"
    for f, w in zip(sent_frames, tb.wire):
        assert w == f.data, f"frame {f.idx}: bytes differ on the wire"
    assert len(tb.cpls) == len(tb.sent), "one completion per frame"
    errs = []
    prev_end = None
    wire_i = 0
    for f, c in zip(tb.sent, tb.cpls):
        exp = dict(queue=f.queue, ring_index=f.ring_index, cookie=f.cookie, launch_ns=f.launch, len=len(f.data),
                   capped=int(f.capped), handle=f.handle, handle_valid=1, reason=C.REJECT_NONE)
        for k, v in exp.items():
            assert c[k] == v, f"frame {f.idx}: completion {k} {c[k]:#x}, expected {v:#x}"
        if f.idx in flushed:
            assert c["status"] == C.STATUS_FLUSHED, f"frame {f.idx}: status {c['status']}, expected FLUSHED"
            continue
        t = tb.sof_truth[wire_i]
        lag = tb.wire_lags[wire_i]
        wire_i += 1
        assert t >= f.launch, f"frame {f.idx}: left at {t:.3f}, {f.launch - t:.3f} ns before launch_ns (early)"
        local = c["depart_ns"] - f.lat
        # the stamp: the first beat's true time (rounded down as the PHC counts) plus the MAC's lag
        assert 0 <= math.floor(t) + lag - local <= 1, \
            f"frame {f.idx}: reported departure {local} (+{f.lat}) vs true {t:.3f} + lag {lag}"
        if lag >= LAG_LATE_NS:
            assert c["status"] == C.STATUS_SENT_LATE, f"frame {f.idx}: waited {lag} ns for the line, status SENT"
        # bench's idle line: the frame was in the DUT 2 us before its launch and the previous frame
        # ended (true time of its last beat, estimated from its SOF) before the launch
        beats = (len(f.data) + BYTES - 1) // BYTES
        idle = (not f.late and f.pushed_ns is not None and f.pushed_ns + 2000 <= f.launch
                and (prev_end is None or prev_end + T_MAC < f.launch) and f.ready_prob == 1.0)
        if idle:
            assert math.floor(t) - f.launch <= T_MAC, \
                f"frame {f.idx}: idle line, left {t - f.launch:.3f} ns after launch_ns (> one MAC cycle {T_MAC})"
            if lag < LAG_LATE_NS:
                assert c["status"] == C.STATUS_SENT, f"frame {f.idx}: idle line, status {c['status']}"
            errs.append(t - f.launch)
        elif f.late:
            assert c["status"] == C.STATUS_SENT_LATE
        elif t - f.launch > T_MAC + 1.0:
            assert c["status"] == C.STATUS_SENT_LATE, f"frame {f.idx}: {t - f.launch:.1f} ns late, status SENT"
        prev_end = t + beats * T_MAC
    return errs


def report(tb, errs, what):
    if errs:
        tb.log.info("%s: %d idle-line frames, true SOF - launch_ns: min %.3f max %.3f mean %.3f ns "
                    "(T_MAC %.4f ns, core %+g ppm, MAC %+g ppm)", what, len(errs), min(errs), max(errs),
                    sum(errs) / len(errs), T_MAC, CORE_PPM, MAC_PPM)


# The scenarios share one reset: each reset costs the MAC-domain time's acquisition again (mac_locked
# ~240 us of simulated time, most of a scenario's run), so test_traffic waits for the lock once and
# runs them in turn. Frame indexes and the scoreboard run on from one scenario to the next; the
# traffic scenarios' checks cover every frame since reset. mac_reset_alone runs last (it resets the
# MAC twice and checks the frames pushed since it began).


async def idle_line_on_time(tb):
    """Sparse frames, random sub-ns launch phases: never early, at most one MAC cycle late."""
    dut = tb.dut
    lat = 37
    dut.tx_lat_comp_ns.value = lat
    await Timer(1, units="us")
    n = 400 if SOAK else 80
    i0 = len(tb.sent)
    base = tb.phc() + 5000
    for i in range(n):
        length = random.choice([60, 64, 100, 333, 1514, random.randint(60, 1514)])
        f = Frame(i0 + i, length, base + i * 1500 + random.randrange(0, 400))
        tb.push(f)
    await tb.drain(i0 + n)
    errs = check(tb)
    assert len(errs) >= n * 9 // 10, f"only {len(errs)} of {n} frames on an idle line"
    report(tb, errs, "idle line")


async def busy_line_late_backpressure(tb):
    """Ties and past launch times: back to back, in order, never early, late ones marked; then MAC
    backpressure."""
    tb.dut.tx_lat_comp_ns.value = 0
    await Timer(1, units="us")
    base = tb.phc() + 4000
    i = len(tb.sent)
    for burst in range(6):
        t = base + burst * 6000
        for _ in range(random.randint(2, 5)):
            tb.push(Frame(i, random.randint(60, 1514), t))
            i += 1
    tb.push(Frame(i, 200, tb.phc() - 1000, late=True))
    i += 1
    tb.push(Frame(i, 9000, base + 40000))
    i += 1
    tb.push(Frame(i, 64, tb.phc() - 5))
    i += 1
    await tb.drain(i)
    check(tb)

    # the MAC takes beats irregularly: the stream never drops tvalid inside a frame
    tb.ready_prob = 0.6
    base = tb.phc() + 4000
    for k in range(30):
        tb.push(Frame(i, random.randint(60, 1514), base + k * 700))
        i += 1
    await tb.drain(i)
    check(tb)
    tb.ready_prob = 1.0


async def flush(tb):
    """flush (the core reset's drain): frames not yet started complete FLUSHED, none reach the MAC."""
    dut = tb.dut
    i0 = len(tb.sent)
    base = tb.phc() + 3000
    tb.push(Frame(i0, 100, base))
    tb.push(Frame(i0 + 1, 100, base + 500))
    await tb.drain(i0 + 2)
    dut.flush.value = 1
    far = tb.phc() + 10_000_000
    for i in range(2, 8):
        tb.push(Frame(i0 + i, random.randint(60, 1514), far))
    await tb.drain(i0 + 8)
    dut.flush.value = 0
    await Timer(1, units="us")
    tb.push(Frame(i0 + 8, 300, tb.phc() + 3000))
    await tb.drain(i0 + 9)
    check(tb, flushed=set(range(i0 + 2, i0 + 8)))


async def mac_reset_alone(tb):
    """The MAC's own reset (link down) in the middle of traffic, the core running on (two resets; six
    with SOAK=1): frames in the crossings are lost but each still gets exactly one completion, in
    order, with its fields (FLUSHED for the lost ones); the rest of a frame cut while crossing never
    reaches the MAC; no frame reaches the MAC damaged; frames after the reset go out as before. Checks
    the frames pushed since it began (the scenarios before it have completed)."""
    dut = tb.dut
    dut.tx_lat_comp_ns.value = 0
    await Timer(5, units="us")   # the last frame before is whole on the wire
    i0, w0, cut0 = len(tb.sent), len(tb.wire), len(tb.cut)
    assert len(tb.cpls) == i0, "a scenario before left frames outstanding"
    sent_before = sum(1 for c in tb.cpls if c["status"] in (C.STATUS_SENT, C.STATUS_SENT_LATE))
    assert w0 == sent_before and cut0 == 0, f"{w0} frames on the wire, {sent_before} SENT, {cut0} cut"
    rounds = 6 if SOAK else 2   # each round ~270 us simulated: the MAC-domain time re-locks after the reset
    i = i0
    resets = []       # (PHC at the reset, index of the first frame pushed after it)
    partial_hits = 0
    for r in range(rounds):
        # a backlog: small frames due soon and far, then a jumbo frame being pushed when the reset hits
        base = tb.phc() + 3000
        for k in range(random.randint(6, 12)):
            tb.push(Frame(i, random.randint(60, 1514), base + k * random.choice([300, 3000, 30000])))
            i += 1
        big = Frame(i, 9000, base + 1000)
        tb.push(big)
        i += 1
        # wait until the jumbo frame is partly across (its beats are entering the DUT), then reset the MAC
        for _ in range(20000):
            await RisingEdge(dut.clk)
            if (int(dut.s_axis_pay_tvalid.value) and int(dut.s_frm_len.value) == 9000
                    and int(dut.s_frm_cookie.value) == big.cookie):
                break
        # then part of its beats (9000 bytes are 1125 beats at 64 bits, 141 at 512): mid-frame at the reset
        big_beats = (9000 + BYTES - 1) // BYTES
        await ClockCycles(dut.clk, random.randint(big_beats // 8, big_beats // 2))
        partial_hits += int(big.pushed_ns is None)
        t_reset = tb.phc()
        dut.mac_rst.value = 1
        await ClockCycles(dut.mac_clk, random.randint(8, 40))
        dut.mac_rst.value = 0
        resets.append((t_reset, i))
        await tb.wait_locked()
        # traffic after the reset: every frame goes out
        base = tb.phc() + 3000
        for k in range(random.randint(4, 8)):
            tb.push(Frame(i, random.randint(60, 1514), base + k * 2000))
            i += 1
        await tb.drain(i)
    assert partial_hits >= 1, "no reset came while a frame was crossing: the bench did not test it"

    # one completion per frame, in order, with its fields
    assert len(tb.cpls) == len(tb.sent)
    flushed = set()
    for f, c in zip(tb.sent[i0:], tb.cpls[i0:]):
        exp = dict(queue=f.queue, ring_index=f.ring_index, cookie=f.cookie, launch_ns=f.launch, len=len(f.data),
                   capped=int(f.capped), handle=f.handle, handle_valid=1, reason=C.REJECT_NONE)
        for k, v in exp.items():
            assert c[k] == v, f"frame {f.idx}: completion {k} {c[k]:#x}, expected {v:#x}"
        assert c["status"] in (C.STATUS_SENT, C.STATUS_SENT_LATE, C.STATUS_FLUSHED), c["status"]
        if c["status"] == C.STATUS_FLUSHED:
            flushed.add(f.idx)
            # given up on the core side after the reset that lost it, at the core's time
            t_r = min((first, t) for t, first in resets if first > f.idx)[1]
            assert t_r <= c["depart_ns"] <= tb.phc(), f"frame {f.idx}: FLUSHED at {c['depart_ns']}, reset at {t_r}"
            # only frames handed over before a reset are lost
            assert any(f.idx < first for _, first in resets)
    # frames pushed after the last reset had begun all left (a lost frame is always an older one)
    last_first = resets[-1][1]
    assert not [x for x in flushed if x >= last_first], "a frame pushed after the reset was lost"
    assert flushed, "the MAC reset lost nothing: the bench did not test the loss"
    # the wire: every frame that arrived whole is, in order, a SENT frame or a FLUSHED one whose
    # completion the reset lost; every SENT frame arrived whole; nothing arrived damaged
    it = iter(tb.sent[i0:])
    for w in tb.wire[w0:]:
        for f in it:
            if f.data == w:
                break
            assert f.idx in flushed, f"frame {f.idx}: completed SENT but not on the wire (or out of order)"
        else:
            raise AssertionError("a frame on the wire matches no frame pushed (damaged or out of order)")
    for f in it:
        assert f.idx in flushed, f"frame {f.idx}: completed SENT but not on the wire"
    for cut in tb.cut[cut0:]:
        assert any(f.data.startswith(cut) for f in tb.sent if f.idx in flushed), \
            "a frame cut by the reset was not one of the lost frames"
    assert tb.gaps == 0
    tb.log.info("MAC reset alone: %d resets, %d frames, %d lost and completed FLUSHED, %d cut on the wire, "
                "%d reset(s) during a frame's crossing", len(resets), len(tb.sent) - i0, len(flushed),
                len(tb.cut) - cut0, partial_hits)


@cocotb.test()
async def test_traffic(dut):
    """One reset: idle_line_on_time, busy_line_late_backpressure, flush, then mac_reset_alone (each
    described above)."""
    tb = await start(dut)
    for scenario in (idle_line_on_time, busy_line_late_backpressure, flush, mac_reset_alone):
        tb.log.info("test_traffic: %s", scenario.__name__)
        await scenario(tb)
