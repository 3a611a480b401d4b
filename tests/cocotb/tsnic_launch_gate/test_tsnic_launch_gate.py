"""cocotb bench: tsnic_launch_gate alone.

The bench drives the PHC (fractional increment per cycle, steps on demand), the frame metadata
stream s_frm_* (a FIFO model) and the payload stream s_axis_pay_* (cocotbext-axi AxiStreamSource,
frames can be held back to model a payload that is not in the buffer yet), and takes the output with
an AxiStreamSink (optional tready pauses) and the completion port (optional backpressure).

Reference model: from the PHC value, the MAC's tready and the payload's availability in every
cycle (recorded by the monitor), it predicts each frame's first-beat cycle, depart_ns and status;
the DUT must match exactly. Properties checked on top: never early, AXI-Stream tvalid stability,
tkeep/tlast, bytes, one completion per frame in order.

MAC_LAG=1 (the co-simulated card's configuration): the bench plays a MAC that reports, for each frame
whose first beat it took, how long after that beat the frame started on the line (a random lag, as a
busy line would give, reported 1-4 cycles later, in order); the model then expects depart_ns = first-
beat PHC + lag, and SENT_LATE for a lag of 4 ns or more.
"""

import bisect
import logging
import os
import random

import cocotb
from cocotb.triggers import RisingEdge
from cocotbext.axi import AxiStreamBus, AxiStreamFrame, AxiStreamSink, AxiStreamSource

from tsnic_clock import start_clock
import tsnic_contract as C

DATA_W = int(os.environ.get("DATA_W", "64"))
BYTES = DATA_W // 8
PHC_INC_FX = int(os.environ.get("PHC_INC_FX", str(0x66666)))
PERIOD = PHC_INC_FX / 65536.0
MAC_LAG = int(os.environ.get("MAC_LAG", "0"))
LAG_LATE_NS = 4


class Frame:
    def __init__(self, idx, length, launch, late=0):
        self.idx = idx
        self.len = length
        self.launch = launch
        self.req_launch = random.getrandbits(64)
        self.late = late
        self.capped = random.randint(0, 1)
        self.queue = random.randrange(8)
        self.ring_index = random.getrandbits(16)
        self.cookie = random.getrandbits(32)
        self.handle = idx % 1024
        self.data = bytes(random.getrandbits(8) for _ in range(length))
        self.pay_at = 0          # PHC time at which the payload is handed to the gate


class TB:
    def __init__(self, dut):
        self.dut = dut
        self.log = dut._log
        start_clock(dut.clk, 4000)
        self.src = AxiStreamSource(AxiStreamBus.from_prefix(dut, "s_axis_pay"), dut.clk, dut.rst)
        self.sink = AxiStreamSink(AxiStreamBus.from_prefix(dut, "m_axis_tx"), dut.clk, dut.rst)
        self.src.log.setLevel(logging.WARNING)
        self.sink.log.setLevel(logging.WARNING)
        self.phc_fx = 5_000_000 << 16
        self.step_at = None
        self.frames = []
        self.ph = []      # PHC per cycle
        self.tr = []      # MAC tready per cycle
        self.pv = []      # payload tvalid per cycle
        self.obs = []     # observed frames (first cycle, first phc, beats)
        self.cpls = []
        self.errors = []
        self.lat = 0
        self.cpl_ready_prob = 1.0
        self.flushing = False
        self.lags = []        # MAC_LAG: the lag reported for each frame the MAC took, in order
        self.lag_due = []     # ... (cycle it is reported at, lag), not yet reported
        # idle-line lags (0..3 ns: alignment), about a cycle, or a long wait for the line
        self.lag_choices = [0, 0, 1, 3, LAG_LATE_NS - 1, LAG_LATE_NS]
        self.lag_max = 200

    def phc(self):
        return self.phc_fx >> 16

    async def reset(self):
        d = self.dut
        d.rst.value = 1
        d.phc_ns.value = self.phc()
        d.tx_lat_comp_ns.value = 0
        d.flush.value = 0
        d.s_frm_valid.value = 0
        d.m_cpl_req_ready.value = 1
        d.s_mac_lag_valid.value = 0
        d.s_mac_lag_ns.value = 0
        for _ in range(4):
            await RisingEdge(d.clk)
        d.rst.value = 0
        cocotb.start_soon(self.clock_phc())
        cocotb.start_soon(self.monitor())
        cocotb.start_soon(self.cpl_sink())
        if MAC_LAG:
            cocotb.start_soon(self.mac_lag())

    async def mac_lag(self):
        """The MAC's line-start reports: the oldest owed one once its cycle has come (one per cycle)."""
        d = self.dut
        while True:
            await RisingEdge(d.clk)
            c = len(self.ph)
            if self.lag_due and self.lag_due[0][0] <= c:
                d.s_mac_lag_valid.value = 1
                d.s_mac_lag_ns.value = self.lag_due.pop(0)[1]
            else:
                d.s_mac_lag_valid.value = 0

    async def clock_phc(self):
        while True:
            await RisingEdge(self.dut.clk)
            self.phc_fx += PHC_INC_FX
            if self.step_at is not None and self.phc() >= self.step_at[0]:
                self.phc_fx += self.step_at[1] << 16
                self.step_at = None
            self.dut.phc_ns.value = self.phc()

    async def feed(self):
        """Metadata FIFO (always ahead) and payload (each frame handed over at its pay_at time)."""
        d = self.dut
        meta = cocotb.start_soon(self.feed_meta())
        for f in self.frames:
            while self.phc() < f.pay_at:
                await RisingEdge(d.clk)
            await self.src.send(AxiStreamFrame(f.data))
        await meta

    async def feed_meta(self):
        d = self.dut
        for f in self.frames:
            d.s_frm_valid.value = 1
            d.s_frm_launch_ns.value = f.launch
            d.s_frm_req_launch_ns.value = f.req_launch
            d.s_frm_late.value = f.late
            d.s_frm_capped.value = f.capped
            d.s_frm_queue.value = f.queue
            d.s_frm_ring_index.value = f.ring_index
            d.s_frm_cookie.value = f.cookie
            d.s_frm_len.value = f.len
            d.s_frm_handle.value = f.handle
            while True:
                await RisingEdge(d.clk)
                if int(d.s_frm_ready.value):
                    break
        d.s_frm_valid.value = 0

    async def cpl_sink(self):
        d = self.dut
        while True:
            await RisingEdge(d.clk)
            if int(d.m_cpl_req_valid.value) and int(d.m_cpl_req_ready.value):
                self.cpls.append({k: int(getattr(d, "m_cpl_req_" + k).value) for k in
                                  ("queue", "ring_index", "cookie", "launch_ns", "depart_ns", "len",
                                   "status", "reason", "capped", "handle", "handle_valid")})
            d.m_cpl_req_ready.value = 1 if random.random() < self.cpl_ready_prob else 0

    async def monitor(self):
        d = self.dut
        in_frame = offered = False
        beats = 0
        nfr = 0
        cur = None
        while True:
            await RisingEdge(d.clk)
            c = len(self.ph)
            phc = int(d.phc_ns.value)
            tv = int(d.m_axis_tx_tvalid.value)
            tr = int(d.m_axis_tx_tready.value)
            self.ph.append(phc)
            self.tr.append(tr)
            self.pv.append(int(d.s_axis_pay_tvalid.value))
            if not tv:
                if offered:
                    self.errors.append(f"cycle {c}: tvalid dropped while the first beat was offered")
                offered = False
                continue
            if not in_frame:
                if not self.flushing and nfr < len(self.frames) and phc < self.frames[nfr].launch:
                    self.errors.append(f"cycle {c}: frame {nfr} offered early ({phc} < {self.frames[nfr].launch})")
                offered = not tr
                if tr:
                    in_frame, beats, cur = True, 0, {"first_cycle": c, "first_phc": phc}
                    if MAC_LAG:
                        # idle-line lags (0..3 ns: alignment), a cycle or so, or a long wait for the line
                        lag = random.choice(self.lag_choices + [random.randrange(self.lag_max + 1)])
                        self.lags.append(lag)
                        at = max(c + random.randint(1, 4), self.lag_due[-1][0] + 1 if self.lag_due else 0)
                        self.lag_due.append((at, lag))
            if tr:
                beats += 1
                keep = int(d.m_axis_tx_tkeep.value)
                last = int(d.m_axis_tx_tlast.value)
                if not last and keep != (1 << BYTES) - 1:
                    self.errors.append(f"cycle {c}: partial tkeep {keep:x} before tlast")
                if last:
                    cur["beats"], cur["last_cycle"] = beats, c
                    self.obs.append(cur)
                    in_frame = False
                    nfr += 1

    async def run(self, timeout=400000):
        feeder = cocotb.start_soon(self.feed())
        for _ in range(timeout):
            await RisingEdge(self.dut.clk)
            if len(self.cpls) == len(self.frames):
                break
        else:
            raise AssertionError(f"timeout: {len(self.cpls)}/{len(self.frames)} completions")
        await feeder
        for _ in range(10):
            await RisingEdge(self.dut.clk)

    def model(self):
        """Predicted (first cycle, depart, status) per frame from the recorded PHC/tready/payload."""
        out = []
        prev_end = -1
        for f in self.frames:
            c = max(prev_end + 1, 0)
            # the gate may offer the first beat once phc >= launch, the payload is there, and the
            # line is free; it keeps offering until tready
            while not (self.ph[c] >= f.launch and self.pv[c]):
                c += 1
            while not self.tr[c]:
                c += 1
            late = f.late or self.ph[c - 1] >= f.launch
            nb = (f.len + BYTES - 1) // BYTES
            k, e = 1, c
            while k < nb:
                e += 1
                if self.tr[e] and self.pv[e]:
                    k += 1
            prev_end = e
            out.append((c, self.ph[c] + self.lat, C.STATUS_SENT_LATE if late else C.STATUS_SENT))
        return out

    async def check(self, exact=True):
        assert not self.errors, "\n".join(self.errors[:10])
        assert len(self.cpls) == len(self.frames)
        sent = []
        for f, r in zip(self.frames, self.cpls):
            assert (r["cookie"], r["handle"], r["queue"], r["ring_index"], r["len"], r["capped"],
                    r["launch_ns"], r["reason"], r["handle_valid"]) == \
                   (f.cookie, f.handle, f.queue, f.ring_index, f.len, f.capped, f.req_launch, 0, 1), f.idx
            if r["status"] != C.STATUS_FLUSHED:
                sent.append((f, r))
        assert len(sent) == len(self.obs)
        assert not MAC_LAG or len(self.lags) == len(self.obs)
        sent_checked = []
        for (f, r), o in zip(sent, self.obs):
            rx = await self.sink.recv()
            assert bytes(rx.tdata) == f.data, f"frame {f.idx} bytes"
            assert o["beats"] == (f.len + BYTES - 1) // BYTES
            assert o["first_phc"] >= f.launch, f"frame {f.idx} early"
            lag = self.lags[len(sent_checked)] if MAC_LAG else 0
            sent_checked.append(f.idx)
            assert r["depart_ns"] == o["first_phc"] + self.lat + lag, (f.idx, r["depart_ns"], o, lag)
            late = f.late or self.ph[o["first_cycle"] - 1] >= f.launch or lag >= LAG_LATE_NS
            assert r["status"] == (C.STATUS_SENT_LATE if late else C.STATUS_SENT), (f.idx, r, o)
        lags = self.lags if MAC_LAG else [0] * len(sent)
        if exact:
            for (f, r), o, p, lag in zip(sent, self.obs, self.model(), lags):
                pc, pd, ps = p
                if lag >= LAG_LATE_NS:
                    ps = C.STATUS_SENT_LATE
                assert (pc, pd + lag, ps) == (o["first_cycle"], r["depart_ns"], r["status"]), (f.idx, p, o, r, lag)
        return [(f, r, r["depart_ns"] - self.lat - f.launch - lag) for (f, r), lag in zip(sent, lags)]


def rlen():
    return random.choice([60, 61, BYTES * 8 - 1, BYTES * 8, BYTES * 8 + 1, random.randint(60, 1518),
                          random.randint(60, 9000)])


def spaced(tb, n, lens=None, gap=(3, 300), pay_lead=300):
    t = tb.phc() + 500
    for i in range(n):
        length = lens[i] if lens else rlen()
        f = Frame(i, length, t)
        f.pay_at = t - pay_lead
        tb.frames.append(f)
        t += int(((length + BYTES - 1) // BYTES + 2) * PERIOD) + random.randint(*gap)


@cocotb.test()
async def test_idle_line_exact(dut):
    """Idle line, payload early: every frame leaves in the first cycle with phc >= launch."""
    random.seed(11)
    tb = TB(dut)
    tb.lag_choices, tb.lag_max = [0, 1, 2], LAG_LATE_NS - 1     # an idle line: only alignment
    await tb.reset()
    tb.lat = 250
    dut.tx_lat_comp_ns.value = tb.lat
    spaced(tb, 120)
    await tb.run()
    errs = await tb.check()
    assert all(r["status"] == C.STATUS_SENT and 0 <= e < PERIOD for _, r, e in errs)


@cocotb.test()
async def test_payload_late(dut):
    """Payload reaches the gate after launch: the frame waits, leaves at once, SENT_LATE, honest depart."""
    random.seed(12)
    tb = TB(dut)
    await tb.reset()
    spaced(tb, 60, gap=(200, 800), pay_lead=0)
    for f in tb.frames:
        f.pay_at = f.launch + random.choice([-200, 0, 1, 50, 150])
    await tb.run()
    errs = await tb.check()
    n_late = sum(1 for _, r, _ in errs if r["status"] == C.STATUS_SENT_LATE)
    assert n_late > 10


@cocotb.test()
async def test_calendar_late_flag(dut):
    """s_frm_late (calendar released it SENT_LATE): reported SENT_LATE even if it leaves at launch."""
    random.seed(13)
    tb = TB(dut)
    await tb.reset()
    spaced(tb, 30)
    for f in tb.frames:
        f.late = random.randint(0, 1)
    await tb.run()
    errs = await tb.check()
    for f, r, _ in errs:
        if f.late:
            assert r["status"] == C.STATUS_SENT_LATE


@cocotb.test()
async def test_back_to_back(dut):
    """Frames with equal launch times go back to back: each starts right after the previous tlast."""
    random.seed(14)
    tb = TB(dut)
    await tb.reset()
    t = tb.phc() + 400
    for i in range(40):
        f = Frame(i, rlen(), t)
        f.pay_at = 0
        tb.frames.append(f)
        if i % 10 == 9:
            t += 20000
    await tb.run()
    await tb.check()
    starts = [o["first_cycle"] for o in tb.obs]
    ends = [o["last_cycle"] for o in tb.obs]
    gaps = [s - e for s, e in zip(starts[1:], ends[:-1])]
    assert sum(1 for g in gaps if g == 1) >= 30, gaps


@cocotb.test()
async def test_mac_backpressure_and_cpl_backpressure(dut):
    """Random tready and completion-port stalls: tvalid stable, model exact, nothing lost."""
    random.seed(15)
    tb = TB(dut)
    await tb.reset()
    tb.cpl_ready_prob = 0.3

    def pause():
        while True:
            yield random.random() < 0.4
    tb.sink.set_pause_generator(pause())
    spaced(tb, 80, gap=(0, 200))
    await tb.run()
    await tb.check(exact=False)


@cocotb.test()
async def test_phc_step_back(dut):
    """PHC stepped backwards while a frame waits: the frame still never leaves before launch."""
    random.seed(16)
    tb = TB(dut)
    await tb.reset()
    spaced(tb, 20, gap=(2000, 3000))
    tb.step_at = (tb.frames[5].launch - 10, -5000)
    await tb.run()
    await tb.check(exact=True)


@cocotb.test()
async def test_flush(dut):
    """flush: frames not yet started complete FLUSHED and never reach the MAC; a started frame finishes."""
    random.seed(17)
    tb = TB(dut)
    await tb.reset()
    spaced(tb, 40, gap=(0, 100))
    run = cocotb.start_soon(tb.run())
    while len(tb.cpls) < 10:
        await RisingEdge(dut.clk)
    tb.flushing = True
    dut.flush.value = 1
    for _ in range(300):
        await RisingEdge(dut.clk)
    dut.flush.value = 0
    await run
    assert not tb.errors, tb.errors[:5]
    fl = [r for r in tb.cpls if r["status"] == C.STATUS_FLUSHED]
    assert fl and len(tb.obs) + len(fl) == len(tb.frames)
    sent = [f for f, r in zip(tb.frames, tb.cpls) if r["status"] != C.STATUS_FLUSHED]
    for f in sent:
        rx = await tb.sink.recv()
        assert bytes(rx.tdata) == f.data


@cocotb.test()
async def test_random_vs_model(dut):
    """Random lengths, launch spacing (busy and idle), payload timing, tready, late flags."""
    random.seed(18)
    tb = TB(dut)
    await tb.reset()
    tb.lat = random.randint(0, 2000)
    dut.tx_lat_comp_ns.value = tb.lat

    def pause():
        while True:
            yield random.random() < 0.15
    tb.sink.set_pause_generator(pause())
    t = tb.phc() + 300
    for i in range(150):
        f = Frame(i, rlen(), t, late=int(random.random() < 0.1))
        f.pay_at = t + random.choice([-2000, -300, -10, 0, 30])
        tb.frames.append(f)
        t += random.choice([0, 5, 100, int(f.len / BYTES * PERIOD), 1000])
    # the payload stream is in order: a frame's payload cannot arrive before the previous one's
    for a, b in zip(tb.frames, tb.frames[1:]):
        b.pay_at = max(b.pay_at, a.pay_at)
    await tb.run()
    errs = await tb.check(exact=True)
    tb.log.info("random: %d frames, %d late", len(errs), sum(1 for _, r, _ in errs if r["status"] == C.STATUS_SENT_LATE))
