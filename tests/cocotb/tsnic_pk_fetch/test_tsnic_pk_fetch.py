"""cocotb bench for tsnic_pk_fetch, the packed transmit format's fetch engine (docs/DATAPATH.md,
"Packed transmit format"), with the real tsnic_pk_parse and tsnic_pk_buf inside.

The bench plays the host (each queue's ring in a Python byte array, an AXI read slave answering in
order after 8-40 cycles with gaps, DMA errors on chosen beats), the descriptor table (a pool of
handles), the calendar and the completion writer (random ready), the transmit side (every inserted
frame read back through the buffer's read port and compared with the host's bytes) and the
completion tap (frees in random order, some held back).

The reference model is independent of the RTL: it parses each queue's posted stream (the units the
bench wrote, as a list from the queue's init pointer) record by record and says, per FRAME or
malformed record, what must come out: an insert (table entry + calendar insert) or a completion
request with its status and reason, and where the queue halts (CONS there). It knows nothing of
reads, beats or chunks. Checked: every record exactly one outcome with every field; table entries
ON_CARD with cookie 0, ring_index = unit, and the buffer bytes at their address equal to the
record and frame the host wrote; inserts with the queue's policies (late SEND for ASAP); CONS and
the halt bit; every read inside one 512-byte block, word-aligned, never past the latest PROD
(rounded up to the bus word); chunks held never above the share, and all back at the end.
"""

import os
import random

import cocotb
from cocotb.triggers import FallingEdge, ReadOnly

import tsnic_contract as C
from tsnic_clock import start_clock

DATA_W = int(os.environ.get("DATA_W", "64"))
UPB = DATA_W // 64
BB = DATA_W // 8
NQ = 8                  # QUEUE_W = 3 (Makefile)
NODE_W = 8
CHUNK_W = 6
NCH = 1 << CHUNK_W
MAX_FRAME_LEN = 2000
SHARE_DEF = (512 << CHUNK_W) // 4
PHC0 = 1 << 40
PHC_STEP = 4
AHEAD = 1 << 30
M16 = 0xFFFF
M64 = (1 << 64) - 1
SOAK = int(os.environ.get("SOAK", "0"))
DEBUG = int(os.environ.get("PKF_DEBUG", "0"))
RING_BASE = 0x10_0000_0000


def u64s(raw):
    raw = bytes(raw) + bytes(-len(raw) % 8)
    return [int.from_bytes(raw[i:i + 8], "little") for i in range(0, len(raw), 8)]


def frame(rng, length, off, flags=0, kind=C.PK_TYPE_FRAME):
    return u64s(C.pack_pk_record(len=length, kind=kind, flags=flags, launch_off=off)) + u64s(rng.randbytes(length))


def base_rec(base):
    return u64s(C.pack_pk_base_record(kind=C.PK_TYPE_BASE, base_ns=base))


def ok_off(rng, base, early=False):
    """A launch_off whose launch is well inside (early False) or well beyond (True) the post-ahead
    bound for any PHC value of a test."""
    for _ in range(400):
        off = rng.getrandbits(32)
        launch = (base + off) & M64
        if early and launch > PHC0 + AHEAD + (1 << 28):
            return off
        if not early and launch < PHC0 + AHEAD - (1 << 28):
            return off
    if early:
        return ok_off(rng, base, early=False)       # this base cannot reach past the bound
    raise AssertionError("no launch_off found")


def random_stream(rng, nrec, base=0):
    """FRAME records of many lengths (a third 60-64 bytes), rejects that continue the stream
    (ZERO_LEN, OVERSIZE, BAD_FLAGS, PK_TOO_EARLY), ASAP frames, BASE records."""
    units = []
    for _ in range(nrec):
        r = rng.random()
        if r < 0.05:
            base = rng.choice([PHC0 - rng.getrandbits(31), rng.getrandbits(40), PHC0 + rng.getrandbits(20)])
            units += base_rec(base)
            continue
        if r < 0.08:
            length = 0
        elif r < 0.10:
            length = rng.randint(MAX_FRAME_LEN + 1, MAX_FRAME_LEN + 40)
        elif r < 0.45:
            length = rng.randint(60, 64)
        else:
            length = rng.choice([rng.randint(1, 200), rng.randint(60, 1600), 1514, 65, 129, 504, 505])
        flags = 0
        f = rng.random()
        if f < 0.04:
            flags = rng.choice([2, 0x80, 3])
        elif f < 0.10:
            flags = C.PK_FLAG_ASAP
        units += frame(rng, length, ok_off(rng, base, early=rng.random() < 0.04), flags)
    # a FRAME last: a stream ending in a BASE record leaves the queue's last chunk held until the
    # next record (docs/DATAPATH.md, tsnic_pk_fetch limits)
    units += frame(rng, rng.randint(1, 100), ok_off(rng, base))
    return units, base


def model(units, ptr, prod, fail=None):
    """Outcomes of a queue's stream: units (list, stream position 0 = unit ptr), PROD as a stream
    position, fail = the stream position of the first unit of a beat that came back with a DMA
    error. Returns (outcomes by stream position, halt position or None)."""
    out = {}
    base = 0
    p = 0
    while p < prod:
        if fail is not None and p >= fail:
            return out, fail
        v = units[p]
        length, kind, flags, off = v & M16, (v >> 16) & 0xFF, (v >> 24) & 0xFF, v >> 32
        unit = (ptr + p) & M16
        rec = dict(unit=unit, pos=p, len=length, launch=(base + off) & M64, asap=0)
        if kind not in (C.PK_TYPE_FRAME, C.PK_TYPE_BASE):
            out[p] = dict(rec, kind="rej", reason=C.REJECT_PK_BAD_TYPE)
            return out, p
        span = 1 if kind == C.PK_TYPE_BASE else -(-length // 8)
        if p + 1 + span > prod:
            out[p] = dict(rec, kind="rej", reason=C.REJECT_PK_TRUNCATED)
            return out, p
        if fail is not None and p + 1 + span > fail:
            if kind == C.PK_TYPE_BASE:
                return out, fail
            out[p] = dict(rec, kind="dma", reason=C.REJECT_NONE, len=0, launch=0)
            return out, p
        if kind == C.PK_TYPE_BASE:
            base = units[p + 1]
            p += 2
            continue
        asap = flags & C.PK_FLAG_ASAP
        if length == 0:
            reason = C.REJECT_ZERO_LEN
        elif length > MAX_FRAME_LEN:
            reason = C.REJECT_OVERSIZE
        elif flags & ~C.PK_FLAG_ASAP:
            reason = C.REJECT_BAD_FLAGS
        elif not asap and rec["launch"] > PHC0 + AHEAD:
            reason = C.REJECT_PK_TOO_EARLY
        else:
            reason = C.REJECT_NONE
        rec.update(asap=int(bool(asap)), reason=reason, kind="ins" if reason == C.REJECT_NONE else "rej")
        if rec["kind"] == "ins":
            rec["bytes"] = b"".join(units[p + i].to_bytes(8, "little") for i in range(1 + span))[:8 + length]
        out[p] = rec
        p += 1 + span
    return out, None


# ------------------------------------------------------------------------------------------------

class Queue:
    def __init__(self, q, size_log2, ptr, pol=(0, 0)):
        self.q = q
        self.size = 1 << size_log2
        self.size_log2 = size_log2
        self.base = RING_BASE + q * (1 << 20)
        self.mem = bytearray(self.size * 8)
        self.ptr = ptr
        self.units = []          # the stream from ptr
        self.prod = 0            # stream position of the last doorbell
        self.pol = pol
        self.fail = None         # stream position of a failed beat's first unit
        self.fail_read = None    # (n-th read of this queue, beat index) to fail
        self.reads = 0

    def write(self, units):
        for u in units:
            slot = (self.ptr + len(self.units)) & (self.size - 1)
            self.mem[slot * 8:slot * 8 + 8] = u.to_bytes(8, "little")
            self.units.append(u)


class TB:
    def __init__(self, dut, seed=1):
        self.dut = dut
        self.rng = random.Random(seed)
        start_clock(dut.clk, 4000)
        self.cycle = 0
        self.errors = []
        self.qs = {}
        # host
        self.ar_ready_p = 0.8
        self.r_gap_p = 0.1
        self.lat = (8, 40)
        self.reads = []          # [ready cycle, queue, beats: list of (data, err)]
        self.rbeat = None
        # table, calendar, completions
        self.pool = list(range(1 << NODE_W))
        self.rng.shuffle(self.pool)
        self.entries = {}        # handle -> entry
        self.ins_ready_p = 0.8
        self.cpl_ready_p = 0.8
        self.got = {q: {} for q in range(NQ)}       # stream position -> outcome
        self.pending_ins = []
        # transmit side
        self.to_read = []
        self.rd_cur = None
        self.rd_beats = []
        self.done_read = []      # handles read back, waiting to be freed
        self.hold = set()        # handles not to free yet
        self.free_p = 0.5
        self.frees = 0
        # control
        self.ctl = []            # (port, fields, callback)
        self.ctl_cur = None
        self.ctl_on = False
        self.st_wait = []
        self.max_held = {}
        self.readback = True     # read every inserted frame back through the buffer's port
        self.ins_cycles = []
        self.share = SHARE_DEF
        for name, val in (("rst", 0), ("enable", 1), ("phc_ns", PHC0), ("cfg_ahead_ns", AHEAD),
                          ("cfg_share_bytes", 0), ("s_qcfg_valid", 0), ("s_db_valid", 0),
                          ("s_st_valid", 0), ("m_axi_arready", 0), ("m_axi_rvalid", 0),
                          ("m_axi_rid", 0), ("m_axi_rresp", 0), ("m_axi_rlast", 0), ("m_axi_rdata", 0),
                          ("s_pk_ar_valid", 0), ("s_pk_ar_chunk", 0), ("s_pk_ar_off", 0),
                          ("s_pk_ar_beats", 1), ("m_pk_r_ready", 1), ("tbl_alloc_valid", 0),
                          ("tbl_alloc_handle", 0), ("m_ins_ready", 0), ("m_cpl_req_ready", 0),
                          ("s_free_valid", 0), ("s_free_handle", 0), ("s_free_packed", 0)):
            getattr(dut, name).value = val
        for name in ("s_qcfg_queue", "s_qcfg_base", "s_qcfg_size_log2", "s_qcfg_enable",
                     "s_qcfg_late_policy", "s_qcfg_horizon_policy", "s_qcfg_init", "s_qcfg_ptr",
                     "s_db_queue", "s_db_prod", "s_st_queue"):
            getattr(dut, name).value = 0
        cocotb.start_soon(self._loop())

    # --------------------------------------------------------------------------------------------
    # the per-cycle loop: drive at the falling edge, sample after it (ReadOnly): a valid and ready
    # seen there is a handshake at the next rising edge

    async def _loop(self):
        dut = self.dut
        rng = self.rng
        while True:
            await FallingEdge(dut.clk)
            self.cycle += 1
            if DEBUG and self.cycle % 2000 == 0:
                dut._log.info("cycle %d: reads %d, outcomes %d, to_read %d, done_read %d, frees %d, ctl %s %d rd_cur %s pend_ins %s rbeat %s",
                              self.cycle, len(self.reads), sum(len(g) for g in self.got.values()),
                              len(self.to_read), len(self.done_read), self.frees, self.ctl_cur, len(self.ctl), self.rd_cur, self.pending_ins, self.rbeat is not None)
            dut.phc_ns.value = PHC0 + PHC_STEP * self.cycle
            # host: AR ready, R beats
            dut.m_axi_arready.value = int(rng.random() < self.ar_ready_p)
            if self.rbeat is None and self.reads and self.reads[0][0] <= self.cycle and rng.random() >= self.r_gap_p:
                rd = self.reads[0]
                data, err = rd[2].pop(0)
                self.rbeat = (data, err, not rd[2])
                if not rd[2]:
                    self.reads.pop(0)
            if self.rbeat is not None:
                dut.m_axi_rvalid.value = 1
                dut.m_axi_rdata.value = self.rbeat[0]
                dut.m_axi_rresp.value = 2 if self.rbeat[1] else 0
                dut.m_axi_rlast.value = int(self.rbeat[2])
            else:
                dut.m_axi_rvalid.value = 0
            # table, calendar, completion requests
            dut.tbl_alloc_valid.value = int(bool(self.pool))
            dut.tbl_alloc_handle.value = self.pool[0] if self.pool else 0
            dut.m_ins_ready.value = int(rng.random() < self.ins_ready_p)
            dut.m_cpl_req_ready.value = int(rng.random() < self.cpl_ready_p)
            # transmit side: one read at a time through the buffer's port
            if self.rd_cur is None and self.to_read:
                h = self.to_read.pop(0)
                e = self.entries[h]
                off = e["off"]
                nb = (off % BB + 8 + e["len"] + BB - 1) // BB
                self.rd_cur = (h, nb)
                self.rd_beats = []
                self.rd_sent = False
                dut.s_pk_ar_valid.value = 1
                dut.s_pk_ar_chunk.value = e["chunk"]
                dut.s_pk_ar_off.value = off
                dut.s_pk_ar_beats.value = nb
            dut.m_pk_r_ready.value = int(rng.random() < 0.9)
            # frees: one a cycle at most, random order, held ones kept
            dut.s_free_valid.value = 0
            if self.done_read and rng.random() < self.free_p:
                cand = [i for i, h in enumerate(self.done_read[:64])
                        if h not in self.hold and self.entries[h].get("ins") is not None]
                if cand:
                    h = self.done_read.pop(rng.choice(cand))
                    dut.s_free_valid.value = 1
                    dut.s_free_handle.value = h
                    dut.s_free_packed.value = 1
                    self.frees += 1
                    self.entries.pop(h)
                    self.pool.append(h)
            # control ports
            if self.rd_cur is not None and self.rd_sent:
                dut.s_pk_ar_valid.value = 0
            if self.ctl_cur is None and self.ctl_on:
                self.ctl_on = False
                for p in ("qcfg", "db", "st"):
                    getattr(dut, f"s_{p}_valid").value = 0
            if self.ctl_cur is None and self.ctl:
                self.ctl_on = True
                self.ctl_cur = self.ctl.pop(0)
                port, fields, _ = self.ctl_cur
                for k, v in fields.items():
                    getattr(dut, f"s_{port}_{k}").value = v
                getattr(dut, f"s_{port}_valid").value = 1

            await ReadOnly()
            self._sample()

    def _sample(self):
        dut = self.dut
        # AR
        if dut.m_axi_arvalid.value and dut.m_axi_arready.value:
            self._ar(int(dut.m_axi_araddr.value), int(dut.m_axi_arlen.value), int(dut.m_axi_arsize.value))
        if self.rbeat is not None and dut.m_axi_rready.value:
            self.rbeat = None
        # table write + calendar + completion requests
        if dut.tbl_wr_en.value:
            h = self.pool.pop(0)
            addr = int(dut.tbl_wr_addr.value)
            e = dict(handle=h, addr=addr, len=int(dut.tbl_wr_len.value), cookie=int(dut.tbl_wr_cookie.value),
                     launch=int(dut.tbl_wr_launch_ns.value), unit=int(dut.tbl_wr_ring_index.value),
                     queue=int(dut.tbl_wr_queue.value), chunk=(addr >> 16) & (NCH - 1), off=addr & 0xFFFF,
                     cycle=self.cycle)
            if addr >> 63 != 1 or (addr >> (16 + CHUNK_W)) & ((1 << (47 - CHUNK_W)) - 1) or e["off"] >= 512:
                self.errors.append(f"entry addr {addr:#x} not ON_CARD chunk/offset")
            if e["cookie"] != 0:
                self.errors.append(f"entry cookie {e['cookie']}")
            self.entries[h] = e
            self.pending_ins.append(h)
            self._outcome(e["queue"], e["unit"], dict(kind="ins", len=e["len"], launch=e["launch"], handle=h))
            self.ins_cycles.append(self.cycle)
            if self.readback:
                self.to_read.append(h)
            else:
                self.done_read.append(h)
        if dut.m_ins_valid.value and dut.m_ins_ready.value:
            h = int(dut.m_ins_handle.value)
            if not self.pending_ins or self.pending_ins[0] != h:
                self.errors.append(f"insert of handle {h}, table entries pending {self.pending_ins[:3]}")
            else:
                self.pending_ins.pop(0)
                e = self.entries.get(h)
                if e is None:
                    self.errors.append(f"insert of handle {h} already freed")
                else:
                    e["ins"] = dict(queue=int(dut.m_ins_queue.value), launch=int(dut.m_ins_launch_ns.value),
                                    late=int(dut.m_ins_late_policy.value), hor=int(dut.m_ins_horizon_policy.value))
        if dut.m_cpl_req_valid.value and dut.m_cpl_req_ready.value:
            q = int(dut.m_cpl_req_queue.value)
            self._outcome(q, int(dut.m_cpl_req_ring_index.value), dict(
                kind="dma" if int(dut.m_cpl_req_status.value) == C.STATUS_DMA_ERROR else "rej",
                status=int(dut.m_cpl_req_status.value), reason=int(dut.m_cpl_req_reason.value),
                len=int(dut.m_cpl_req_len.value), launch=int(dut.m_cpl_req_launch_ns.value),
                cookie=int(dut.m_cpl_req_cookie.value), depart=int(dut.m_cpl_req_depart_ns.value)))
        # transmit side
        if self.rd_cur is not None:
            if not self.rd_sent and dut.s_pk_ar_valid.value and dut.s_pk_ar_ready.value:
                self.rd_sent = True
            if dut.m_pk_r_valid.value and dut.m_pk_r_ready.value:
                self.rd_beats.append((int(dut.m_pk_r_data.value), int(dut.m_pk_r_last.value)))
                h, nb = self.rd_cur
                if len(self.rd_beats) == nb:
                    self._read_back(h)
                    self.rd_cur = None
        # control
        if self.ctl_cur is not None:
            port, fields, cb = self.ctl_cur
            if getattr(dut, f"s_{port}_ready").value:
                self.ctl_cur = None
                if port == "st":
                    self.st_wait.append(cb)
                elif cb is not None:
                    cb(None)
        if dut.m_st_valid.value:
            st = dict(prod=int(dut.m_st_prod.value), cons=int(dut.m_st_cons.value),
                      en=int(dut.m_st_enabled.value), halted=int(dut.m_st_halted.value),
                      chunks=int(dut.m_st_chunks.value))
            self.st_wait.pop(0)(st)

    # --------------------------------------------------------------------------------------------

    def _ar(self, addr, arlen, arsize):
        beats = arlen + 1
        if arsize != (BB.bit_length() - 1):
            self.errors.append(f"arsize {arsize}")
        if addr % BB:
            self.errors.append(f"read at {addr:#x} not bus-word aligned")
        if addr % 512 + beats * BB > 512:
            self.errors.append(f"read at {addr:#x} of {beats * BB} bytes crosses a 512-byte block")
        qo = (addr - RING_BASE) >> 20
        Q = self.qs.get(qo)
        if Q is None or not (Q.base <= addr < Q.base + Q.size * 8):
            self.errors.append(f"read at {addr:#x} outside every ring")
            return
        slot = (addr - Q.base) // 8
        prod_abs = Q.ptr + Q.prod
        back = ((prod_abs & (Q.size - 1)) - slot) % Q.size      # units from the read's start to PROD
        start = Q.prod - back                                   # stream position of the read's word
        end_abs = prod_abs - back + beats * UPB
        if back == 0 or end_abs > -(-prod_abs // UPB) * UPB:
            self.errors.append(f"queue {Q.q}: read of stream units [{start}, {start + beats * UPB}) "
                               f"past PROD {Q.prod} (rounded up to the bus word)")
        data = []
        for b in range(beats):
            s = (slot + b * UPB) * 8
            data.append((int.from_bytes(Q.mem[s:s + BB], "little"), False))
        if Q.fail_read is not None and Q.fail_read[0] == Q.reads:
            k = Q.fail_read[1]
            for b in range(k, beats):
                data[b] = (data[b][0], True)
            Q.fail = start + k * UPB
        Q.reads += 1
        self.reads.append([self.cycle + self.rng.randint(*self.lat), Q.q, data])

    def _outcome(self, q, unit, o):
        Q = self.qs[q]
        pos = (unit - Q.ptr) & M16
        o["cycle"] = self.cycle
        if pos in self.got[q]:
            self.errors.append(f"queue {q} unit {unit}: a second outcome {o} after {self.got[q][pos]}")
        self.got[q][pos] = o

    def _read_back(self, h):
        e = self.entries[h]
        raw = b"".join(d.to_bytes(BB, "little") for d, _ in self.rd_beats)
        lasts = [l for _, l in self.rd_beats]
        if lasts[-1] != 1 or any(lasts[:-1]):
            self.errors.append(f"handle {h}: m_pk_r_last {lasts}")
        o = e["off"] % BB
        e["bytes"] = raw[o:o + 8 + e["len"]]
        self.done_read.append(h)

    # --------------------------------------------------------------------------------------------
    # helpers for the tests

    async def clocks(self, n):
        for _ in range(n):
            await FallingEdge(self.dut.clk)

    async def until(self, pred, limit=200000, what="condition"):
        for _ in range(limit):
            if pred():
                return
            await FallingEdge(self.dut.clk)
        raise AssertionError(f"timeout waiting for {what} (cycle {self.cycle})")

    async def ctl_do(self, port, fields):
        box = []
        self.ctl.append((port, fields, box.append))
        if DEBUG:
            self.dut._log.info("cycle %d: %s %s", self.cycle, port, fields)
        await self.until(lambda: box, what=f"{port} {fields}")
        if DEBUG:
            self.dut._log.info("cycle %d: %s done %s", self.cycle, port, box[0])
        return box[0]

    async def status(self, q):
        st = await self.ctl_do("st", dict(queue=q))
        self.max_held[q] = max(self.max_held.get(q, 0), st["chunks"])
        return st

    async def reset(self):
        dut = self.dut
        await FallingEdge(dut.clk)
        dut.rst.value = 1
        await self.clocks(2)
        dut.rst.value = 0
        await self.clocks(NQ + 4)

    async def open(self, q, size_log2=9, ptr=0, pol=(0, 0)):
        Q = Queue(q, size_log2, ptr, pol)
        self.qs[q] = Q
        self.got[q] = {}
        await self.ctl_do("qcfg", dict(queue=q, base=Q.base, size_log2=size_log2, enable=1,
                                       late_policy=pol[0], horizon_policy=pol[1], init=1, ptr=ptr))
        return Q

    async def close(self, Q):
        """Disable the queue and wait until it holds no chunk."""
        await self.ctl_do("qcfg", dict(queue=Q.q, base=Q.base, size_log2=Q.size_log2, enable=0,
                                       late_policy=0, horizon_policy=0, init=0, ptr=0))
        for _ in range(400):
            st = await self.status(Q.q)
            if st["chunks"] == 0:
                return
            await self.clocks(20)
        raise AssertionError(f"queue {Q.q}: {st['chunks']} chunks still held after disable")

    async def post(self, Q, units, doorbell=True):
        """Write units after the stream's end (waiting for ring room: CONS), then ring PROD."""
        assert len(units) <= Q.size - UPB - 1, f"a piece of {len(units)} units for a ring of {Q.size}"
        while True:
            st = await self.status(Q.q)
            used = len(Q.units) - ((st["cons"] - Q.ptr) & M16)
            if used + len(units) <= Q.size - UPB - 1:
                break
            await self.clocks(20)
        Q.write(units)
        if doorbell:
            await self.doorbell(Q)

    async def doorbell(self, Q, prod=None):
        Q.prod = len(Q.units) if prod is None else prod
        await self.ctl_do("db", dict(queue=Q.q, prod=(Q.ptr + Q.prod) & M16))

    async def settle(self, limit=400000):
        """Until every read is answered, every outcome out, every frame read back and freed (held
        ones excepted) and nothing moves for a while."""
        quiet = 0
        last = None
        for _ in range(limit // 50):
            await self.clocks(50)
            key = (len(self.reads), sum(len(g) for g in self.got.values()), len(self.to_read),
                   len(self.done_read), self.frees, len(self.pending_ins))
            busy = self.reads or self.rbeat or self.to_read or self.rd_cur or self.pending_ins or \
                [h for h in self.done_read if h not in self.hold]
            quiet = quiet + 1 if (key == last and not busy) else 0
            last = key
            if quiet >= 6:
                return
        raise AssertionError(f"not settled by cycle {self.cycle}")

    def check(self, label):
        assert not self.errors, f"{label}: " + "; ".join(self.errors[:6])
        total = 0
        for q, Q in self.qs.items():
            exp, halt = model(Q.units, Q.ptr, Q.prod, Q.fail)
            got = self.got[q]
            for pos in sorted(set(exp) | set(got)):
                x, y = exp.get(pos), got.get(pos)
                assert x is not None, f"{label} queue {q} pos {pos}: outcome {y}, the model has none"
                assert y is not None, f"{label} queue {q} pos {pos}: no outcome, the model says {x}"
                assert x["kind"] == y["kind"], f"{label} queue {q} pos {pos}: {y} != model {x}"
                if x["kind"] == "ins":
                    assert y["len"] == x["len"], f"{label} queue {q} pos {pos}: len {y['len']} != {x['len']}"
                    if x["asap"]:
                        assert PHC0 <= y["launch"] <= PHC0 + PHC_STEP * y["cycle"], f"{label} q{q} pos {pos}: ASAP launch"
                    else:
                        assert y["launch"] == x["launch"], f"{label} queue {q} pos {pos}: launch {y['launch']:#x} != {x['launch']:#x}"
                    assert y["bytes"] == x["bytes"], f"{label} queue {q} pos {pos}: buffer bytes differ from the host's"
                    ins = y["ins"]
                    late = C.LATE_POLICY_SEND if x["asap"] else Q.pol[0]
                    assert (ins["queue"], ins["launch"], ins["late"], ins["hor"]) == (q, y["launch"], late, Q.pol[1]), \
                        f"{label} queue {q} pos {pos}: insert {ins}"
                else:
                    st = C.STATUS_DMA_ERROR if x["kind"] == "dma" else C.STATUS_REJECTED
                    assert (y["status"], y["reason"], y["len"], y["cookie"]) == (st, x["reason"], x["len"], 0), \
                        f"{label} queue {q} pos {pos}: {y} != model {x}"
                    if not x["asap"]:
                        assert y["launch"] == x["launch"], f"{label} queue {q} pos {pos}: launch {y['launch']:#x}"
                total += 1
            Q.halt = halt
        return total

    async def check_state(self, label, chunks_max=None):
        for q, Q in self.qs.items():
            st = await self.status(q)
            exp_cons = Q.halt if Q.halt is not None else Q.prod
            assert st["cons"] == (Q.ptr + exp_cons) & M16, f"{label} queue {q}: CONS {st['cons']} != {(Q.ptr + exp_cons) & M16}"
            assert st["halted"] == int(Q.halt is not None), f"{label} queue {q}: halted {st['halted']}"
            assert st["prod"] == (Q.ptr + Q.prod) & M16
            if chunks_max is not None:
                assert st["chunks"] <= chunks_max, f"{label} queue {q}: {st['chunks']} chunks held"


def keep_entries(tb):
    """Frames freed leave self.entries: keep what the check needs in the outcome itself."""
    orig = tb._read_back

    def rb(h):
        orig(h)
        e = tb.entries[h]
        Q = tb.qs[e["queue"]]
        o = tb.got[e["queue"]][(e["unit"] - Q.ptr) & M16]
        o["bytes"] = e["bytes"]
        o["entry"] = e
        o["ins"] = e.get("ins")
    tb._read_back = rb


async def make_tb(dut, seed):
    tb = TB(dut, seed)
    keep_entries(tb)
    await tb.reset()
    return tb


def fix_ins(tb):
    """Calendar inserts may come after the read-back: copy them into the outcomes."""
    for q in tb.got:
        for o in tb.got[q].values():
            if o.get("kind") == "ins" and o.get("entry") is not None:
                o["ins"] = o["entry"].get("ins")


async def finish(tb, label, chunks_max=None):
    await tb.settle()
    fix_ins(tb)
    n = tb.check(label)
    await tb.check_state(label, chunks_max)
    return n


# ------------------------------------------------------------------------------------------------

@cocotb.test()
async def test_straddle_and_reasons(dut):
    """Frames straddling beats, reads and 512-byte blocks; every non-halting reason; BASE records
    (one whose value is the first unit of the next block); a PROD that stops mid-block then moves
    on (reads that start mid-block continue the block's chunk); unit numbers wrapping 2^16."""
    tb = await make_tb(dut, 11)
    rng = tb.rng
    Q0 = await tb.open(0, size_log2=10, ptr=0xFFC0, pol=(1, 1))
    Q1 = await tb.open(1, size_log2=12, ptr=0x0123)
    base = PHC0 - 9000
    s = base_rec(base) + frame(rng, 60, 5)
    # a frame that ends the block's unit 62, then a BASE whose value is the next block's first unit
    need = 63 - len(s) % 64
    s += frame(rng, 8 * (need - 1), 3)
    assert len(s) % 64 == 63
    s += base_rec(base + 1000)
    s += frame(rng, 1514, 1) + frame(rng, 0, 0) + frame(rng, MAX_FRAME_LEN + 1, 0) + frame(rng, 64, 2, flags=4)
    s += frame(rng, 64, ok_off(rng, base + 1000, early=True)) + frame(rng, 61, 0, flags=C.PK_FLAG_ASAP)
    s += frame(rng, 505, 9) + frame(rng, 60, 10)
    # posted in pieces at record boundaries: the reads stop mid-block and go on
    cuts = sorted(rng.sample(range(1, 30), 6))
    recs = []
    i = 0
    while i < len(s):
        v = s[i]
        kind, length = (v >> 16) & 0xFF, v & M16
        n = 2 if kind == C.PK_TYPE_BASE else 1 + -(-length // 8)
        recs.append(s[i:i + n])
        i += n
    prev = 0
    for c in cuts + [len(recs)]:
        await tb.post(Q0, [u for r in recs[prev:c] for u in r])
        prev = c
        await tb.clocks(rng.randint(0, 300))
    s1, _ = random_stream(rng, 60)
    await tb.post(Q1, s1)
    n = await finish(tb, "straddle", chunks_max=2)
    exp, _ = model(Q0.units, Q0.ptr, Q0.prod)
    reasons = sorted({x["reason"] for x in exp.values()})
    assert reasons == [0, C.REJECT_ZERO_LEN, C.REJECT_OVERSIZE, C.REJECT_BAD_FLAGS, C.REJECT_PK_TOO_EARLY], reasons
    crossing = [x for x in exp.values() if (x["pos"] + Q0.ptr) // 64 != (x["pos"] + Q0.ptr + x["len"] // 8 + 1) // 64]
    assert crossing, "no frame crossed a block"
    dut._log.info("straddle: %d outcomes as the model says, %d frames crossing a block", n, len(crossing))


@cocotb.test()
async def test_halts(dut):
    """A bad kind halts the queue (REJECTED PK_BAD_TYPE, nothing after it, CONS at it); a frame past
    PROD halts another (PK_TRUNCATED); both come back with an init and run a fresh stream; their
    chunks are all returned first."""
    tb = await make_tb(dut, 12)
    rng = tb.rng
    Q0 = await tb.open(0, size_log2=12)
    Q1 = await tb.open(1, size_log2=12)
    s0, _ = random_stream(rng, 20)
    s0 += frame(rng, 60, 1, kind=7) + frame(rng, 60, 2) + frame(rng, 60, 3)
    await tb.post(Q0, s0)
    s1, _ = random_stream(rng, 10)
    Q1.write(s1)
    Q1.write(frame(rng, 300, 4)[:20])
    await tb.doorbell(Q1)                                   # PROD cuts the 300-byte frame
    n = await finish(tb, "halts")
    assert Q0.halt is not None and Q1.halt is not None
    st0 = await tb.status(0)
    assert st0["halted"] == 1
    # disable, wait for the chunks, init again
    for Q in (Q0, Q1):
        await tb.close(Q)
    tb.qs = {}
    Q0 = await tb.open(0, size_log2=12, ptr=0x0200)
    Q1 = await tb.open(1, size_log2=12, ptr=0x0040)
    s0, _ = random_stream(rng, 30)
    s1, _ = random_stream(rng, 30)
    await tb.post(Q0, s0)
    await tb.post(Q1, s1)
    n += await finish(tb, "after init", chunks_max=2)
    dut._log.info("halts: %d outcomes as the model says", n)


@cocotb.test()
async def test_dma_error(dut):
    """A read whose beats from the second on come back SLVERR: the frames before the failed beat
    go out, the frame the failed beat cuts completes DMA_ERROR (or, with none open, nothing), the
    queue halts at it (CONS there), nothing after; another queue is not disturbed."""
    tb = await make_tb(dut, 13)
    rng = tb.rng
    for trial in range(4):
        tb.qs = {}
        Q0 = await tb.open(0, size_log2=12, ptr=0)
        Q1 = await tb.open(1, size_log2=12, ptr=0x40)
        Q0.fail_read = (1, 1 + trial % 2)
        s0, _ = random_stream(rng, 40)
        s1, _ = random_stream(rng, 40)
        await tb.post(Q0, s0)
        await tb.post(Q1, s1)
        await finish(tb, f"dma {trial}")
        assert Q0.fail is not None and Q0.halt is not None
        st = await tb.status(0)
        assert st["halted"] == 1
        kinds = [o["kind"] for o in tb.got[0].values()]
        dut._log.info("dma %d: failed at stream unit %d, halt at %d, outcomes %s", trial, Q0.fail, Q0.halt,
                      {k: kinds.count(k) for k in set(kinds)})
        for Q in (Q0, Q1):
            await tb.close(Q)


@cocotb.test()
async def test_share_and_free_list(dut):
    """Share limit: with frees held, a queue holds at most cfg_share_bytes of chunks and its CONS
    stops; freed, it goes on. Free list: four queues at a share of the whole buffer with frees held
    use every chunk and stall; freed, all go on. Reclaim order: a far-future frame held in the
    queue's first chunk keeps every later chunk of that queue until it is freed."""
    tb = await make_tb(dut, 14)
    rng = tb.rng
    # share: 4 chunks
    tb.dut.cfg_share_bytes.value = 4 * 512
    Q0 = await tb.open(0, size_log2=12)
    tb.free_p = 0.0
    s0 = []
    while len(s0) < 10 * 64:
        s0 += frame(rng, rng.randint(60, 200), 5)
    await tb.post(Q0, s0)
    await tb.clocks(3000)
    st = await tb.status(0)
    assert st["chunks"] == 4, f"share 4: {st['chunks']} chunks held"
    assert 3 * 64 <= ((st["cons"] - Q0.ptr) & M16) <= 4 * 64, f"share: CONS {st['cons']}"
    tb.free_p = 0.5
    await finish(tb, "share", chunks_max=4)
    assert tb.max_held[0] <= 4
    await tb.close(Q0)
    # free list: the whole buffer for four queues
    tb.dut.cfg_share_bytes.value = NCH * 512
    tb.qs = {}
    tb.free_p = 0.0
    qs = [await tb.open(q, size_log2=12, ptr=q * 0x1000) for q in range(4)]
    for Q in qs:
        s = []
        while len(s) < 30 * 64:
            s += frame(rng, rng.randint(60, 300), 5)
        await tb.post(Q, s[:min(len(s), Q.size - 200)])
    await tb.clocks(6000)
    held = [(await tb.status(q))["chunks"] for q in range(4)]
    assert sum(held) == NCH, f"free list: chunks held {held}, {NCH} in the buffer"
    tb.free_p = 0.6
    await finish(tb, "free list")
    for Q in qs:
        await tb.close(Q)
    # reclaim order: the first frame held back
    tb.dut.cfg_share_bytes.value = 0
    tb.qs = {}
    Q0 = await tb.open(0, size_log2=12, ptr=0x3000)
    s = frame(rng, 100, 5)
    while len(s) < 6 * 64 + 10:
        s += frame(rng, rng.randint(60, 300), 6)
    await tb.post(Q0, s)
    await tb.until(lambda: tb.got[0].get(0) is not None, what="the first frame")
    tb.hold.add(tb.got[0][0]["handle"])
    await tb.settle()
    st = await tb.status(0)
    assert st["chunks"] >= 6, f"reclaim: {st['chunks']} chunks held while the first frame is outstanding"
    # an init of the queue (disabled) waits while the held frame keeps its chunks (the reclaim turns
    # go on meanwhile: without them the chunks would never come back); once freed, the init is taken
    await tb.ctl_do("qcfg", dict(queue=0, base=Q0.base, size_log2=12, enable=0, late_policy=0,
                                 horizon_policy=0, init=0, ptr=0))
    box = []
    tb.ctl.append(("qcfg", dict(queue=0, base=Q0.base, size_log2=12, enable=1, late_policy=0,
                                horizon_policy=0, init=1, ptr=0x5000), box.append))
    await tb.clocks(2000)
    assert not box, "init taken while the queue still holds chunks"
    assert tb.ctl_cur is not None and tb.ctl_cur[0] == "qcfg"
    tb.hold.clear()
    await tb.until(lambda: box, what="the init after the frees")
    fix_ins(tb)
    tb.check("reclaim")
    st = await tb.status(0)
    assert (st["prod"], st["cons"], st["chunks"], st["en"]) == (0x5000, 0x5000, 0, 1), st
    dut._log.info("share, free list, reclaim order: as expected (free list: %s chunks held)", held)


@cocotb.test()
async def test_random(dut):
    """Eight queues, random record streams posted in random pieces with random doorbells, random
    host latency and gaps, random ready on every output, frees in random order; then every queue
    disabled: every chunk comes back."""
    tb = await make_tb(dut, 15)
    rng = tb.rng
    rounds = 6 if SOAK else 2
    total = 0
    for rnd in range(rounds):
        tb.qs = {}
        qs = []
        for q in range(NQ):
            qs.append(await tb.open(q, size_log2=rng.choice([9, 10, 12]), ptr=rng.getrandbits(16) & ~7 if rnd else 0xFFFF - 200 + q,
                                    pol=(rng.randint(0, 1), rng.randint(0, 1))))
        streams = {}
        for Q in qs:
            streams[Q.q] = random_stream(rng, rng.randint(40, 120) * (3 if SOAK else 1))[0]
        # split into records, post in random pieces
        pieces = []
        for Q in qs:
            s = streams[Q.q]
            recs = []
            i = 0
            while i < len(s):
                v = s[i]
                kind, length = (v >> 16) & 0xFF, v & M16
                n = 2 if kind == C.PK_TYPE_BASE else 1 + -(-length // 8)
                recs.append(s[i:i + n])
                i += n
            k = 0
            while k < len(recs):
                m = rng.randint(1, 12)
                while m > 1 and sum(len(r) for r in recs[k:k + m]) > Q.size // 2:
                    m -= 1
                pieces.append((Q, [u for r in recs[k:k + m] for u in r]))
                k += m
        order = []
        per = {}
        for Q, p in pieces:
            per.setdefault(Q.q, []).append((Q, p))
        while per:
            q = rng.choice(list(per))
            order.append(per[q].pop(0))
            if not per[q]:
                del per[q]
        tb.free_p = rng.choice([0.3, 0.7])
        for Q, p in order:
            await tb.post(Q, p)
            if rng.random() < 0.3:
                await tb.clocks(rng.randint(0, 200))
        total += await finish(tb, f"random {rnd}", chunks_max=2)
        for Q in qs:
            await tb.close(Q)
    dut._log.info("random: %d outcomes as the model says, %d frames freed", total, tb.frees)


@cocotb.test()
async def test_rate(dut):
    """A benchmark, not a pass/fail figure: 60-byte frames from four queues with everything ready,
    the host answering every read after 30 cycles without gaps, frames freed as soon as their
    insert is seen (no read-back): inserts a cycle from the first to the last."""
    tb = await make_tb(dut, 16)
    rng = tb.rng
    tb.ar_ready_p = 1.0
    tb.r_gap_p = 0.0
    tb.lat = (30, 30)
    tb.ins_ready_p = 1.0
    tb.cpl_ready_p = 1.0
    tb.free_p = 1.0
    tb.readback = False
    nf = 100 if not SOAK else 400
    qs = [await tb.open(q, size_log2=12, ptr=q * 0x1000) for q in range(4)]
    streams = []
    for Q in qs:
        s = []
        for _ in range(nf):
            s += frame(rng, 60, ok_off(rng, 0))
        streams.append(s)
    tb.ins_cycles.clear()
    for Q, s in zip(qs, streams):
        Q.write(s)
    for Q in qs:
        await tb.doorbell(Q)
    await tb.settle()
    assert not tb.errors, tb.errors[:4]
    n = len(tb.ins_cycles)
    assert n == 4 * nf, f"{n} inserts of {4 * nf}"
    span = tb.ins_cycles[-1] - tb.ins_cycles[0]
    rate = (n - 1) / span
    dut._log.info("rate: %d frames of 60 bytes from 4 queues in %d cycles: %.3f frames/cycle "
                  "(%.1f Mpps at 250 MHz; %d-bit)", n, span, rate, rate * 250, DATA_W)
