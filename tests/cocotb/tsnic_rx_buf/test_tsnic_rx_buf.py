"""Bench for tsnic_rx_buf (8 KiB buffer, 2000-byte frames at most, 8-frame queue): random frames
(Ethernet/IPv4 TCP/UDP with and without options, fragments, non-IP, runts, too long, bad FCS) are
streamed in back to back with random gaps; the bench plays the steering table (answers each key two
cycles later with a queue a Python function of the key picks) and the DMA (pops frame records at a
random pace, reads each frame's words through the read port and gives them back).
Reference model (Python, independent of the RTL): the 5-tuple parse, the status (bad > too long >
ok), the kept length, the arrival stamp of the first beat. Checks: every frame is either delivered
(its record and bytes equal the model's) or counted dropped (disabled / full) exactly once, in
order; a fast DMA drops nothing; a slow one makes the queue or the buffer overflow (drops counted)."""

import os
import random

import cocotb
from cocotb.triggers import RisingEdge, ReadOnly, ClockCycles, FallingEdge

from tsnic_clock import start_clock

DATA_W = int(os.environ.get("DATA_W", "64"))
BYTES = DATA_W // 8
MAX = 2000
OK, BAD_FCS, TOO_LONG = 1, 2, 3


def key_of(f):
    if len(f) < 34 or f[12:14] != b"\x08\x00" or f[14] >> 4 != 4 or f[14] & 15 < 5:
        return None
    if int.from_bytes(f[20:22], "big") & 0x3FFF:
        return None
    if f[23] not in (6, 17):
        return None
    p = 14 + 4 * (f[14] & 15)
    if len(f) < p + 4:
        return None
    return (int.from_bytes(f[26:30], "big"), int.from_bytes(f[30:34], "big"), f[23],
            int.from_bytes(f[p:p + 2], "big"), int.from_bytes(f[p + 2:p + 4], "big"))


def queue_for(key):
    return 0 if key is None else (key[3] ^ key[4]) % 4


def make(rng):
    kind = rng.randrange(6)
    n = rng.choice([rng.randint(60, 300), rng.randint(14, 59), rng.randint(300, 1514), MAX + rng.randint(1, 300)])
    f = bytearray(rng.getrandbits(8) for _ in range(max(n, 1)))
    if kind < 4 and len(f) >= 24:
        f[12:14] = b"\x08\x00"
        f[14] = 0x40 | rng.choice([5, 5, 5, 6, 15])
        f[20:22] = (0 if kind < 3 else rng.choice([0x2000, 0x0001])).to_bytes(2, "big")
        f[23] = rng.choice([6, 17, 6, 1])
    return bytes(f)


class TB:
    def __init__(self, dut, seed, pop_p):
        self.dut = dut
        self.rng = random.Random(seed)
        self.pop_p = pop_p
        start_clock(dut.clk, 4000)
        for s in ("enable", "s_axis_tvalid", "s_axis_tlast", "s_axis_bad", "s_res_valid", "m_info_ready",
                  "rd_en", "rel_valid"):
            getattr(dut, s).value = 0
        self.sent = []            # dict(data, bad, ts, enabled)
        self.recs = []            # (record fields, data read)
        self.drops = {"dis": 0, "full": 0}
        self.evt_frames = 0
        self.errors = []
        self.phc = 1000

    async def reset(self):
        self.dut.rst.value = 1
        await ClockCycles(self.dut.clk, 3)
        self.dut.rst.value = 0

    async def source(self, frames, gap_p):
        d = self.dut
        for f, bad in frames:
            while self.rng.random() < gap_p:
                await FallingEdge(d.clk)
                d.s_axis_tvalid.value = 0
            ts = self.rng.getrandbits(64)
            self.sent.append(dict(data=f, bad=bad, ts=ts))
            for off in range(0, len(f), BYTES):
                await FallingEdge(d.clk)
                chunk = f[off:off + BYTES]
                d.s_axis_tdata.value = int.from_bytes(chunk.ljust(BYTES, b"\0"), "little")
                d.s_axis_tkeep.value = (1 << len(chunk)) - 1
                d.s_axis_nbytes.value = len(chunk)
                d.s_axis_tlast.value = int(off + BYTES >= len(f))
                d.s_axis_bad.value = int(bad and off + BYTES >= len(f))   # flagged on the last beat
                d.s_axis_ts.value = ts if off == 0 else self.rng.getrandbits(64)   # only the first beat's counts
                d.s_axis_tvalid.value = 1
        await FallingEdge(d.clk)
        d.s_axis_tvalid.value = 0

    async def steer(self):
        """The steering table: answer each key two cycles later. The key is sampled after the
        falling edge's writes (the values the rising edge takes), the answer driven two falling
        edges later (taken at the third rising edge, as the RTL table answers)."""
        d = self.dut
        pipe = [None, None]
        while True:
            await FallingEdge(d.clk)
            out = pipe.pop(0)
            d.s_res_valid.value = int(out is not None)
            if out is not None:
                tag, key = out
                d.s_res_tag.value = tag
                d.s_res_hit.value = int(key is not None)
                d.s_res_entry.value = 0
                d.s_res_queue.value = queue_for(key)
            await ReadOnly()
            req = None
            if d.m_key_valid.value:
                ok = int(d.m_key_ok.value)
                key = (int(d.m_key_src_ip.value), int(d.m_key_dst_ip.value), int(d.m_key_proto.value),
                       int(d.m_key_src_port.value), int(d.m_key_dst_port.value)) if ok else None
                req = (int(d.m_key_tag.value), key)
            pipe.append(req)

    async def events(self):
        d = self.dut
        while True:
            await RisingEdge(d.clk)
            await ReadOnly()
            if d.evt_frame.value:
                self.evt_frames += 1
            if d.evt_drop_disabled.value:
                self.drops["dis"] += 1
                self.sent[self.evt_frames - 1]["drop"] = "dis"
            if d.evt_drop_full.value:
                if os.environ.get("DBG") and self.drops["full"] < 5:
                    d._log.info("drop full: held %s used wr %s rd %s frame %d len %d", d.held_reg.value, d.wr_ptr_reg.value,
                                d.rd_ptr_reg.value, self.evt_frames - 1, len(self.sent[self.evt_frames - 1]["data"]))
                self.drops["full"] += 1
                self.sent[self.evt_frames - 1]["drop"] = "full"

    async def dma(self):
        """Pop records at a random pace; read each frame's words; give them back."""
        d = self.dut
        words = (8192 // BYTES)
        while True:
            await FallingEdge(d.clk)
            d.m_info_ready.value = 0
            d.rel_valid.value = 0
            if self.rng.random() >= self.pop_p:
                continue
            await ReadOnly()
            if not d.m_info_valid.value:
                continue
            rec = dict(start=int(d.m_info_start.value), end=int(d.m_info_end.value), len=int(d.m_info_len.value),
                       flen=int(d.m_info_frame_len.value), status=int(d.m_info_status.value),
                       ts=int(d.m_info_ts.value), hit=int(d.m_info_hit.value), queue=int(d.m_info_queue.value))
            await FallingEdge(d.clk)
            d.m_info_ready.value = 1
            await FallingEdge(d.clk)
            d.m_info_ready.value = 0
            data = b""
            nwords = (rec["len"] + BYTES - 1) // BYTES
            for k in range(nwords):
                d.rd_en.value = 1
                d.rd_addr.value = (rec["start"] + k) % words
                await FallingEdge(d.clk)
                d.rd_en.value = 0
                await ReadOnly()
                data += int(d.rd_data.value).to_bytes(BYTES, "little")
                await FallingEdge(d.clk)
            self.recs.append((rec, data[:rec["len"]]))
            d.rel_valid.value = 1
            d.rel_ptr.value = rec["end"]

    def check(self):
        kept = [f for f in self.sent if "drop" not in f]
        if len(self.recs) != len(kept):
            for i, (f, (rec, data)) in enumerate(zip(kept, self.recs)):
                if data != f["data"][:MAX]:
                    raise AssertionError(f"first divergence at kept frame {i} (len {len(f['data'])}, "
                                         f"record {rec}); {len(self.recs)} records, {len(kept)} frames not dropped")
            raise AssertionError(f"{len(self.recs)} records, {len(kept)} frames not dropped (the last ones missing)")
        errs = []
        for i, (f, (rec, data)) in enumerate(zip(kept, self.recs)):
            n = len(f["data"])
            st = BAD_FCS if f["bad"] else (TOO_LONG if n > MAX else OK)
            key = key_of(f["data"])
            want = dict(len=min(n, MAX), flen=n, status=st, ts=f["ts"], hit=int(key is not None), queue=queue_for(key))
            got = {k: rec[k] for k in want}
            if got != want:
                errs.append(f"frame {i} (len {n}): record {got}, model {want}")
            if data != f["data"][:min(n, MAX)]:
                errs.append(f"frame {i}: bytes differ")
        assert not errs, "\n".join(errs[:3])


async def run(dut, seed, pop_p, gap_p, n, enable_flips=False):
    tb = TB(dut, seed, pop_p)
    await tb.reset()
    dut.enable.value = 1
    for c in (tb.steer(), tb.events(), tb.dma()):
        cocotb.start_soon(c)
    frames = [(make(tb.rng), tb.rng.random() < 0.05) for _ in range(n)]
    if enable_flips:
        async def flip():
            while True:
                # (frames are BYTES / 8 times shorter in beats on a wider bus)
                await ClockCycles(dut.clk, max(4, tb.rng.randint(50, 400) * 8 // BYTES))
                dut.enable.value = int(tb.rng.random() < 0.7)
        cocotb.start_soon(flip())
    await tb.source(frames, gap_p)
    dut.enable.value = 1
    for _ in range(20000):
        await ClockCycles(dut.clk, 10)
        if len(tb.recs) == sum(1 for f in tb.sent if "drop" not in f) and tb.evt_frames == len(tb.sent):
            break
    await ClockCycles(dut.clk, 20)
    assert tb.evt_frames == len(tb.sent)
    tb.check()
    dut._log.info("%d frames: %d delivered, dropped %s", len(tb.sent), len(tb.recs), tb.drops)
    return tb


@cocotb.test()
async def test_fast_dma_no_drops(dut):
    """Gaps between frames (about 250 cycles on average), a DMA that keeps up (2 cycles a word):
    every frame delivered, none dropped."""
    tb = await run(dut, 1, pop_p=1.0, gap_p=0.996, n=int(os.environ.get("RXBUF_FRAMES", "120")))
    assert tb.drops == {"dis": 0, "full": 0}


@cocotb.test()
async def test_slow_dma_drops_counted(dut):
    """Back-to-back frames into a slow DMA, RX enable flipping: drops of both kinds, each counted
    once, the delivered frames intact and in order."""
    tb = await run(dut, 2, pop_p=0.05, gap_p=0.2, n=int(os.environ.get("RXBUF_FRAMES", "120")), enable_flips=True)
    assert tb.drops["full"] > 0 and tb.drops["dis"] > 0, tb.drops
