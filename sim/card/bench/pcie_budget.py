#!/usr/bin/env python3
"""Per-frame PCIe byte budget of tsnic's transmit path (classic 32-byte descriptor), per direction.

Counts, for one transmitted frame, every TLP the RTL makes or causes as it is built today and the
bytes each costs on a PCIe Gen3 link, with the same accounting as the board co-simulation's link
model (sim/card/src/board/pcie.rs) -- docs/DATAPATH.md, "PCIe budget of the transmit path":

  host -> card (down): descriptor read completions, payload read completions, the driver's BAR0
                       writes (doorbells) and reads, ACK/UpdateFC DLLPs for the TLPs going up
  card -> host (up):   read requests (descriptor bursts, payload), completion-record writes,
                       MSI-X, completions of BAR0 reads, DLLPs for the TLPs coming down

What the RTL does (hdl/rtl): tsnic_desc_fetch reads bursts of up to 8 descriptors (256 bytes);
tsnic_tx_prefetch reads a frame's whole bus words [addr rounded down, addr+len rounded up] in AXI
bursts that never cross 4 KiB; tsnic_pcie_us_rd cuts each burst into requests ending at multiples of
MRRS (at most MAX_RD_BYTES = 512), whole dwords, 4-dword headers above 4 GiB; tsnic_cpl_write writes
one 32-byte record per frame, coalescing the records of consecutive slots into one MWr of up to
`--cpl-burst` records (8: CPL_MAX_BURST_LOG2 = 3) when the write path pushes back, one record per MWr
when it is idle (`--cpl-per-write`: the average records per MWr; the default, the most, is what a
loaded write path reaches, so the bounds use it); tsnic_pcie_msix sends one 4-byte MWr per interrupt
(the moderation decides how many). The host splits each read into completions ending on the read
completion boundary (RCB), each at most `--cpl-max` bytes (PCIe 3.0 2.3.1.1), as the link model does.

Link: 8 GT/s per lane, 128b/130b (PCIe 3.0 4.2.2); a TLP costs its 4-byte STP token, its header (3 or 4
dwords), payload and 4-byte LCRC (4.2.2.3.1, 3.5.2); `--dllp-share` bytes of ACK/UpdateFC DLLPs per
TLP of the other direction (8-byte DLLPs with their SDP token, 4.2.2.3.2, one per two TLPs: the
model's choice); one SKP ordered set per `--skp-interval` blocks (4.2.7.3).

Bounds: frames/s each direction carries (link, and the hard block's 250 MHz user interface with
straddle off), the same with the `--headroom` kept free, and reads in flight against read latency
(tags; the hard block's completion buffer as tsnic_pcie_us_rd reserves it).

Stdlib only. Examples:
  pcie_budget.py                       # the tables of docs/DATAPATH.md (x16 and x8 builds)
  pcie_budget.py --lanes 8 --bus-bits 256 --sizes 60,1500 --json
  pcie_budget.py --packed [--latency]  # the packed format beside the classic one (issue 32 item 2)
"""

import argparse
import json
import math
import sys

# ---------------------------------------------------------------------------------------------
# link and TLP costs (PCIe 3.0; the same figures as sim/card/src/board/pcie.rs)

LANE_BYTE_PS = 1015.625  # 8 bits at 8 GT/s with 128b/130b: 8 * 125 ps * 130 / 128
STP = 4                  # STP framing token (Gen3), carries the sequence number
LCRC = 4
CLK_HZ = 250e6           # the board core's PCIe user clock (tsnic_board_core CLK_FREQ_HZ)
DESC_BYTES = 32          # classic TX descriptor (hdl/contract/tsnic.toml)
CPL_BYTES = 32           # TX completion record
MSI_ADDR = 0xFEE0_0000   # x86 MSI window: below 4 GiB, 3-dword header
BAR_ADDR64 = False       # BAR0 below 4 GiB (the model's 0xE000_0000)


def tlp(hdr_dw, payload):
    """Bytes of one TLP on the link."""
    return STP + 4 * hdr_dw + payload + LCRC


def req_hdr_dw(addr64):
    return 4 if addr64 else 3


def link_bytes_per_s(lanes, skp_interval):
    """Bytes/s one direction carries (SKP ordered sets taken out)."""
    return lanes * 1e12 / LANE_BYTE_PS * skp_interval / (skp_interval + 1)


# ---------------------------------------------------------------------------------------------
# the RTL's reads and the host's completions

def split_completions(start, count, rcb, cpl_max):
    """Completions of a read of `count` bytes from `start`: (addr, len) each; every one but the last
    ends on an RCB boundary, none carries more than cpl_max (pcie.rs PcieModel::split)."""
    end = start + count
    out = []
    pos = start
    while pos < end:
        cap = ((pos & ~3) + cpl_max) & ~(rcb - 1)
        stop = min(end, max(cap, pos + 1))
        out.append((pos, stop - pos))
        pos = stop
    return out


def read_requests(addr, nbytes, mrrs):
    """tsnic_pcie_us_rd: one AXI burst [addr, addr + nbytes) as requests ending at MRRS multiples."""
    out = []
    while nbytes > 0:
        chunk = min(nbytes, mrrs - (addr & (mrrs - 1)))
        out.append((addr, chunk))
        addr += chunk
        nbytes -= chunk
    return out


def axi_bursts_4k(addr, nbytes):
    """tsnic_tx_prefetch: bursts never cross 4 KiB (AXI_MAX_BURST 256 beats is never smaller)."""
    out = []
    while nbytes > 0:
        chunk = min(nbytes, 4096 - (addr & 4095))
        out.append((addr, chunk))
        addr += chunk
        nbytes -= chunk
    return out


class Tally:
    """TLPs and bytes of one direction, by category."""

    def __init__(self):
        self.bytes = {}
        self.tlps = {}
        self.payload = 0

    def add(self, what, nbytes, ntlps, payload=0):
        self.bytes[what] = self.bytes.get(what, 0) + nbytes
        self.tlps[what] = self.tlps.get(what, 0) + ntlps
        self.payload += payload

    def total_tlps(self):
        return sum(self.tlps.values())

    def total(self):
        return sum(self.bytes.values())

    def scaled(self, k):
        t = Tally()
        t.bytes = {w: b * k for w, b in self.bytes.items()}
        t.tlps = {w: n * k for w, n in self.tlps.items()}
        t.payload = self.payload * k
        return t


def dma_read(cfg, down, up, rc, rq, what, addr, nbytes):
    """One AXI read burst of the core at `addr` (bus-word aligned) of `nbytes`: requests up,
    completions down; returns (requests, worst-case completion headers, data credits) as
    tsnic_pcie_us_rd reserves them (64-byte RCB, 16-byte credits)."""
    nreq = h = d = 0
    for a, n in read_requests(addr, nbytes, cfg.mrrs_eff):
        ndw = ((a & 3) + n + 3) // 4
        up.add(what + " read requests", tlp(req_hdr_dw(cfg.addr64), 0), 1)
        rq[0] += 1  # a read request is one RQ beat (4-dword descriptor)
        nreq += 1
        h += ((a & 63) + n + 63) // 64
        d += ((a & 15) + n + 15) // 16
        for ca, cn in split_completions(a, 4 * ndw, cfg.rcb, cfg.cpl_max):
            pdw = ((ca & 3) + cn + 3) // 4
            down.add(what + " completions", tlp(3, 4 * pdw), 1, 4 * pdw)
            rc[0] += math.ceil((12 + 4 * pdw) / cfg.bus_bytes)  # 3-dword RC descriptor + data
    return nreq, h, d


def frame_budget(cfg, length, offset):
    """Per-frame budget for frames of `length` bytes (the descriptor's len: the frame without FCS)
    in buffers `offset` bytes past a multiple of the buffer stride, averaged over the buffer
    positions the driver's stride visits in 4 KiB pages and over descriptor bursts."""
    stride = cfg.buf_stride or max(64, -(-(length + offset) // 64) * 64)
    positions = 4096 // math.gcd(stride, 4096)
    down, up = Tally(), Tally()
    rc, rq = [0], [0]
    reqs = h = d = 0
    bb = cfg.bus_bytes
    base = 1 << 32  # DMA addresses at and above 4 GiB (the co-simulation's IOVA_BASE) -> addr64
    for k in range(positions):
        a = base + k * stride + offset
        a0 = a & ~(bb - 1)
        a1 = -(-(a + length) // bb) * bb
        for ba, bn in axi_bursts_4k(a0, a1 - a0):
            r, hh, dd = dma_read(cfg, down, up, rc, rq, "payload", ba, bn)
            reqs += r
            h += hh
            d += dd
    per = 1.0 / positions
    down, up = down.scaled(per), up.scaled(per)
    rc, rq = [rc[0] * per], [rq[0] * per]
    reqs, h, d = reqs * per, h * per, d * per

    # descriptors: bursts of desc_burst, burst-aligned in a page-aligned ring
    n = cfg.desc_burst
    dd_, du = Tally(), Tally()
    drc, drq = [0], [0]
    ring = 1 << 32
    first = 0  # the burst's first slot (aligned bursts: slot 0)
    da = ring + first * DESC_BYTES
    if bb > DESC_BYTES:  # 512 bits: two descriptors per beat, the burst in whole beats
        a0 = da & ~(bb - 1)
        a1 = -(-(da + n * DESC_BYTES) // bb) * bb
    else:
        a0, a1 = da, da + n * DESC_BYTES
    r, hh, dd2 = dma_read(cfg, dd_, du, drc, drq, "descriptor", a0, a1 - a0)
    for t, src in ((down, dd_), (up, du)):
        for w in src.bytes:
            t.add(w, src.bytes[w] / n, src.tlps[w] / n, 0)
        t.payload += src.payload / n
    rc[0] += drc[0] / n
    rq[0] += drq[0] / n
    reqs += r / n
    h += hh / n
    d += dd2 / n

    # completion records: 32 bytes each, cpl_per_write of them per MWr (4-dword header above 4 GiB);
    # bytes are linear in the number of MWrs, so an average (measured) cpl_per_write is exact for
    # them; RQ beats take the average as the size of every MWr
    r = cfg.cpl_per_write
    up.add("completion writes", (tlp(req_hdr_dw(cfg.addr64), 0) + r * CPL_BYTES) / r, 1 / r, CPL_BYTES)
    rq[0] += math.ceil((16 + CPL_BYTES * r) / bb) / r
    # MSI-X (moderated): 4-byte MWr to the MSI window
    up.add("MSI-X", cfg.msix_per_frame * tlp(3, 4), cfg.msix_per_frame, 4 * cfg.msix_per_frame)
    # the driver's BAR0 accesses (doorbells, CPL_CONS, reads), per frame
    down.add("BAR0 writes", cfg.bar_writes_per_frame * tlp(3, 4), cfg.bar_writes_per_frame,
             4 * cfg.bar_writes_per_frame)
    down.add("BAR0 reads", cfg.bar_reads_per_frame * tlp(3, 0), cfg.bar_reads_per_frame)
    up.add("BAR0 read completions", cfg.bar_reads_per_frame * tlp(3, 4), cfg.bar_reads_per_frame,
           4 * cfg.bar_reads_per_frame)
    # DLLPs: a share per TLP of the other direction
    up_tlps, down_tlps = up.total_tlps(), down.total_tlps()
    down.add("DLLPs", cfg.dllp_share * up_tlps, 0)
    up.add("DLLPs", cfg.dllp_share * down_tlps, 0)

    cap = link_bytes_per_s(cfg.lanes, cfg.skp_interval)
    res = {
        "len": length,
        "offset": offset,
        "buf_stride": stride,
        "down": {"bytes": down.total(), "tlps": down_tlps, "by": down.bytes},
        "up": {"bytes": up.total(), "tlps": up_tlps, "by": up.bytes},
        "down_ns": down.total() / cap * 1e9,
        "up_ns": up.total() / cap * 1e9,
        "read_requests": reqs,
        "cplh": h,
        "cpld": d,
        "rc_beats": rc[0],
        "rq_beats": rq[0],
    }
    line = cfg.line_gbps * 1e9 / ((length + 4 + 20) * 8) / 1e6  # FCS, preamble + SFD, IFG
    res["line_mpps"] = line
    res["down_mpps"] = cap / down.total() / 1e6
    res["up_mpps"] = cap / up.total() / 1e6
    res["link_mpps"] = min(res["down_mpps"], res["up_mpps"])
    res["link_mpps_headroom"] = res["link_mpps"] * (1 - cfg.headroom)
    res["rc_mpps"] = CLK_HZ / rc[0] / 1e6
    res["rq_mpps"] = CLK_HZ / rq[0] / 1e6
    # tsnic_pcie_us_rd works out a request's size in one cycle and issues it in the next
    res["mrd_mpps"] = CLK_HZ / 2 / reqs / 1e6
    res["bound_mpps"] = min(res["link_mpps_headroom"], res["rc_mpps"], res["rq_mpps"],
                            res["mrd_mpps"], line)
    return res


# ---------------------------------------------------------------------------------------------
# the packed transmit format (issue 32 item 2; docs/DATAPATH.md "Packed transmit format")

PK_REC = 8        # packed frame record (hdl/contract/tsnic.toml pk_record)
PK_ALIGN = 8      # records and frames are 8-byte aligned in the stream
PK_BASE = 16      # base record (pk_base_record): once per 2^32 ns of launch times, at most


def pk_stream_bytes(length):
    """Bytes a frame takes in its queue's packed stream: record + frame padded to 8."""
    return PK_REC + -(-length // PK_ALIGN) * PK_ALIGN


def pk_buf_bytes(cfg, length):
    """Bytes a frame holds in the card's packed buffer: the buffer is a copy of the stream (record
    and frame, 8-byte aligned), so its stream bytes (`cfg` kept for a bus-word layout)."""
    del cfg
    return pk_stream_bytes(length)


def packed_budget(cfg, length, base_every=1024):
    """Per-frame budget of the packed format: the queue's stream read in MRRS-aligned reads of
    min(MRRS, MAX_RD_BYTES) bytes (steady state: whole, aligned reads of a contiguous ring), one
    base record per `base_every` frames, 32-byte completion records as in the classic format,
    the same doorbells and DLLP accounting."""
    s = pk_stream_bytes(length) + PK_BASE / base_every
    rd = cfg.mrrs_eff
    d1, u1 = Tally(), Tally()
    rc1, rq1 = [0], [0]
    nreq, h, d = dma_read(cfg, d1, u1, rc1, rq1, "stream", 1 << 32, rd)
    k = s / rd  # reads per frame
    down, up = d1.scaled(k), u1.scaled(k)
    rc, rq = rc1[0] * k, rq1[0] * k
    reqs, cplh, cpld = nreq * k, h * k, d * k
    # RC beats with the 512-bit interface's straddle option (completions start on 16-byte lanes)
    rc_straddle = 0
    for a_, n_ in read_requests(1 << 32, rd, cfg.mrrs_eff):
        for _ca, cn in split_completions(a_, n_, cfg.rcb, cfg.cpl_max):
            rc_straddle += math.ceil((12 + cn) / 16) * 16 / cfg.bus_bytes
    rc_straddle *= k
    r = cfg.cpl_per_write
    up.add("completion writes", (tlp(req_hdr_dw(cfg.addr64), 0) + r * CPL_BYTES) / r, 1 / r, CPL_BYTES)
    rq += math.ceil((16 + CPL_BYTES * r) / cfg.bus_bytes) / r
    up.add("MSI-X", cfg.msix_per_frame * tlp(3, 4), cfg.msix_per_frame, 4 * cfg.msix_per_frame)
    down.add("BAR0 writes", cfg.bar_writes_per_frame * tlp(3, 4), cfg.bar_writes_per_frame,
             4 * cfg.bar_writes_per_frame)
    down.add("BAR0 reads", cfg.bar_reads_per_frame * tlp(3, 0), cfg.bar_reads_per_frame)
    up.add("BAR0 read completions", cfg.bar_reads_per_frame * tlp(3, 4), cfg.bar_reads_per_frame,
           4 * cfg.bar_reads_per_frame)
    up_tlps, down_tlps = up.total_tlps(), down.total_tlps()
    down.add("DLLPs", cfg.dllp_share * up_tlps, 0)
    up.add("DLLPs", cfg.dllp_share * down_tlps, 0)
    cap = link_bytes_per_s(cfg.lanes, cfg.skp_interval)
    line = cfg.line_gbps * 1e9 / ((length + 4 + 20) * 8) / 1e6
    res = {
        "len": length,
        "stream_bytes": s,
        "buf_bytes": pk_buf_bytes(cfg, length),
        "down": {"bytes": down.total(), "tlps": down_tlps, "by": down.bytes},
        "up": {"bytes": up.total(), "tlps": up_tlps, "by": up.bytes},
        "read_requests": reqs,
        "cplh": cplh,
        "cpld": cpld,
        "rc_beats": rc,
        "rc_beats_straddle": rc_straddle,
        "rq_beats": rq,
        "line_mpps": line,
        "down_mpps": cap / down.total() / 1e6,
        "up_mpps": cap / up.total() / 1e6,
    }
    res["link_mpps"] = min(res["down_mpps"], res["up_mpps"])
    res["link_mpps_headroom"] = res["link_mpps"] * (1 - cfg.headroom)
    res["rc_mpps"] = CLK_HZ / rc / 1e6
    res["rc_mpps_straddle"] = CLK_HZ / rc_straddle / 1e6
    res["rq_mpps"] = CLK_HZ / rq / 1e6
    res["mrd_mpps"] = CLK_HZ / 2 / reqs / 1e6
    res["bound_mpps"] = min(res["link_mpps_headroom"], res["rc_mpps"], res["rq_mpps"],
                            res["mrd_mpps"], line)
    res["bound_mpps_straddle"] = min(res["link_mpps_headroom"], res["rc_mpps_straddle"],
                                     res["rq_mpps"], res["mrd_mpps"], line)
    return res


def pk_buffer_kib(cfg, length, ahead_us, free_us):
    """Packed buffer (KiB) that keeps the line full of `length`-byte frames when the driver posts
    frames at most `ahead_us` before their launch and a frame's space is reclaimed `free_us` after
    it left (its completion written): every frame stays at most ahead_us + free_us."""
    line = cfg.line_gbps * 1e9 / ((length + 4 + 20) * 8)
    return line * pk_buf_bytes(cfg, length) * (ahead_us + free_us) * 1e-6 / 1024


PK_AHEAD_US = (2.0, 5.0, 10.0, 20.0)


def packed_table(cfg, a):
    """Both formats side by side, per frame size."""
    rows = [(n, frame_budget(cfg, n, a.offset), packed_budget(cfg, n)) for n in sizes(a)]
    if a.json:
        json.dump({"config": cfg.describe(), "ahead_us": PK_AHEAD_US, "free_us": a.pk_free_us,
                   "frames": [{"len": n, "classic": c, "packed": p,
                               "buffer_kib": [pk_buffer_kib(cfg, n, x, a.pk_free_us)
                                              for x in PK_AHEAD_US]} for n, c, p in rows]},
                  sys.stdout, indent=1)
        print()
        return
    print(f"# classic vs packed: {cfg.describe()}; link "
          f"{link_bytes_per_s(cfg.lanes, cfg.skp_interval) / 1e9:.3f} GB/s per direction, "
          f"{a.headroom:.0%} headroom; RC/RQ at {CLK_HZ / 1e6:.0f} MHz")
    hdr = ("len", "line", "classic down / up B", "classic **bound**", "stream B", "packed down / up B",
           "link-5%", "RC", "RC straddle", "RQ", "MRd", "packed **bound** (straddle)",
           "reads / headers per frame",
           "buffer KiB at " + ", ".join(f"{x:g}" for x in PK_AHEAD_US) + " us ahead")
    print("| " + " | ".join(hdr) + " |")
    print("|---:|---:|---|---:|---:|---|---:|---:|---:|---:|---:|---|---|---|")
    for n, c, p in rows:
        buf = ", ".join(f"{pk_buffer_kib(cfg, n, x, a.pk_free_us):.0f}" for x in PK_AHEAD_US)
        print("| " + " | ".join([
            f"{n}", f"{p['line_mpps']:.2f}",
            f"{c['down']['bytes']:.1f} / {c['up']['bytes']:.1f}", f"**{c['bound_mpps']:.1f}**",
            f"{p['stream_bytes']:.0f}",
            f"{p['down']['bytes']:.1f} / {p['up']['bytes']:.1f}",
            f"{p['link_mpps_headroom']:.1f}", f"{p['rc_mpps']:.1f}", f"{p['rc_mpps_straddle']:.1f}",
            f"{p['rq_mpps']:.1f}", f"{p['mrd_mpps']:.1f}",
            f"**{p['bound_mpps']:.1f}** ({p['bound_mpps_straddle']:.1f})",
            f"{p['read_requests']:.3f} / {p['cplh']:.2f}",
            buf]) + " |")


def packed_latency_table(cfg, a):
    """Mpps that reads in flight allow for the packed format (32 tags; completion buffer)."""
    buf = BUFFERS[cfg.bus_bytes]
    print(f"# packed format, Mpps that reads in flight allow: {cfg.describe()}; {buf[0]}: "
          f"{buf[1]} headers, {buf[2]} data credits; cells: 32 tags / completion buffer")
    print("| len | reads, headers, credits per frame | target | " +
          " | ".join(f"{x} us" for x in LATENCIES_US) + " |")
    print("|---:|---|---:|" + "---|" * len(LATENCIES_US))
    for n in sizes(a):
        p = packed_budget(cfg, n)
        cells = []
        for L in LATENCIES_US:
            b = in_flight_bound(p, L, 32, buf)
            cells.append(f"{b['tags']:.0f} / {b['buffer']:.0f}")
        print(f"| {n} | {p['read_requests']:.3f}, {p['cplh']:.2f}, {p['cpld']:.2f} | "
              f"{p['line_mpps']:.2f} | " + " | ".join(cells) + " |")


# ---------------------------------------------------------------------------------------------
# settings

class Cfg:
    def __init__(self, a):
        self.lanes = a.lanes
        self.bus_bytes = a.bus_bits // 8
        self.mps = a.mps
        self.mrrs = a.mrrs
        self.mrrs_eff = min(a.mrrs, a.max_rd_bytes)
        self.rcb = a.rcb
        self.cpl_max = a.cpl_max if a.cpl_max else a.mps
        self.desc_burst = a.desc_burst
        self.cpl_burst = a.cpl_burst
        # records per completion MWr: at most a burst, and a burst is cut into MPS-sized TLPs
        self.cpl_per_write = a.cpl_per_write or min(a.cpl_burst, a.mps // CPL_BYTES)
        self.addr64 = not a.addr32
        self.dllp_share = a.dllp_share
        self.skp_interval = a.skp_interval
        self.msix_per_frame = a.msix_per_frame
        self.bar_writes_per_frame = a.bar_writes_per_frame
        self.bar_reads_per_frame = a.bar_reads_per_frame
        self.headroom = a.headroom
        self.line_gbps = a.line_gbps
        self.buf_stride = a.buf_stride
        for v, name in ((self.mps, "--mps"), (self.mrrs, "--mrrs")):
            if v not in (128, 256, 512, 1024, 2048, 4096):
                raise SystemExit(f"{name} must be a power of two from 128 to 4096, not {v}")
        if self.rcb not in (64, 128):
            raise SystemExit(f"--rcb must be 64 or 128, not {self.rcb}")
        if self.cpl_max % self.rcb or self.cpl_max > self.mps:
            raise SystemExit("--cpl-max must be a multiple of the RCB no larger than the MPS")
        if self.lanes not in (1, 2, 4, 8, 16) or self.bus_bytes not in (32, 64):
            raise SystemExit("--lanes must be 1..16 (power of two), --bus-bits 256 or 512")
        if not 1 <= self.desc_burst <= 8:
            raise SystemExit("--desc-burst is 1..8 (tsnic_desc_fetch MAX_BURST_LOG2 = 3)")
        if self.cpl_burst not in (1, 2, 4, 8, 16):
            raise SystemExit("--cpl-burst is 1, 2, 4, 8 or 16 (2^CPL_MAX_BURST_LOG2; 32 << it <= "
                             "MAX_WR_BYTES 512)")
        if not 1 <= self.cpl_per_write <= min(self.cpl_burst, self.mps // CPL_BYTES):
            raise SystemExit(f"--cpl-per-write is 1..{min(self.cpl_burst, self.mps // CPL_BYTES)} "
                             f"(--cpl-burst, and a TLP carries at most MPS / 32 records)")

    def describe(self):
        return (f"Gen3 x{self.lanes}, {self.bus_bytes * 8}-bit interface, MPS {self.mps}, "
                f"MRRS {self.mrrs} (requests of at most {self.mrrs_eff}), RCB {self.rcb}, "
                f"completions of at most {self.cpl_max} B, descriptor bursts of {self.desc_burst}, "
                f"{self.cpl_per_write:g} completion records per write, "
                f"{'64' if self.addr64 else '32'}-bit DMA addresses")


def parser():
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog="Method and tables: docs/DATAPATH.md, \"PCIe budget of the transmit path\".",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--lanes", type=int, default=16, help="link width (Gen3)")
    p.add_argument("--bus-bits", type=int, default=512,
                   help="hard-block interface width: 512 (Alveo, x16) or 256 (SUME, x8)")
    p.add_argument("--mps", type=int, default=256, help="max payload size, bytes")
    p.add_argument("--mrrs", type=int, default=512, help="max read request size, bytes")
    p.add_argument("--max-rd-bytes", type=int, default=512,
                   help="tsnic_pcie_us_rd MAX_RD_BYTES (requests are at most min(MRRS, this))")
    p.add_argument("--rcb", type=int, default=64, help="root complex's read completion boundary")
    p.add_argument("--cpl-max", type=int, default=0,
                   help="largest completion the root complex sends (0: the MPS, the link model's "
                        "default; the RCB: one completion per RCB)")
    p.add_argument("--desc-burst", type=int, default=8,
                   help="descriptors per descriptor read (tsnic_desc_fetch: up to 8)")
    p.add_argument("--cpl-burst", type=int, default=8,
                   help="most completion records tsnic_cpl_write puts in one write "
                        "(2^CPL_MAX_BURST_LOG2; 1: the writer before coalescing)")
    p.add_argument("--cpl-per-write", type=float, default=0,
                   help="completion records per write TLP, on average (0: the most, min(--cpl-burst, "
                        "MPS / 32), what the writer reaches when the write path pushes back; 1: an "
                        "idle write path, every record alone)")
    p.add_argument("--addr32", action="store_true",
                   help="DMA addresses below 4 GiB (3-dword headers); default above (4-dword), as "
                        "the co-simulation's host memory")
    p.add_argument("--dllp-share", type=float, default=4.0,
                   help="DLLP bytes charged per TLP of the other direction")
    p.add_argument("--skp-interval", type=int, default=370, help="blocks between SKP ordered sets")
    p.add_argument("--msix-per-frame", type=float, default=0.0,
                   help="MSI-X messages per frame (interrupt moderation)")
    p.add_argument("--bar-writes-per-frame", type=float, default=1 / 16,
                   help="driver BAR0 writes per frame (doorbells: 1/batch)")
    p.add_argument("--bar-reads-per-frame", type=float, default=0.0,
                   help="driver BAR0 reads per frame")
    p.add_argument("--buf-stride", type=int, default=0,
                   help="distance between frame buffers (0: the driver's, len + offset rounded "
                        "up to 64)")
    p.add_argument("--offset", type=int, default=0, help="frame start past the buffer's start")
    p.add_argument("--sizes", default="60,64,65,128,129,256,512,1514,1518",
                   help="frame lengths (the descriptor's len: without FCS), comma separated")
    p.add_argument("--headroom", type=float, default=0.05, help="share of the link kept free")
    p.add_argument("--line-gbps", type=float, default=100.0, help="Ethernet line rate")
    p.add_argument("--latency", action="store_true",
                   help="print the reads-in-flight table (Mpps against read latency) instead")
    p.add_argument("--summary", action="store_true",
                   help="print one line per size for the budget's host settings (64-byte "
                        "completions, RCB 128 / MPS 512, offset 2) instead")
    p.add_argument("--dma-bw", action="store_true",
                   help="print the link model's effective bandwidth for back-to-back DMA reads and "
                        "writes of each size instead (the pcie-bench comparison)")
    p.add_argument("--packed", action="store_true",
                   help="print the classic and the packed format side by side instead (with "
                        "--latency: the packed format's reads-in-flight table)")
    p.add_argument("--pk-free-us", type=float, default=1.0,
                   help="packed buffer: time from a frame's departure to its space being reclaimed "
                        "(its completion written), us")
    p.add_argument("--json", action="store_true", help="JSON: one object per frame size")
    return p


def sizes(a):
    try:
        v = [int(s) for s in a.sizes.split(",") if s.strip()]
    except ValueError:
        raise SystemExit(f"--sizes: comma-separated integers, not {a.sizes!r}")
    if not v or any(not 1 <= n <= 9600 for n in v) or not 0 <= a.offset < 4096:
        raise SystemExit("--sizes are frame lengths of 1..9600 bytes (MAX_FRAME_LEN); --offset "
                         "0..4095")
    return v


def budget_table(cfg, a):
    rows = [frame_budget(cfg, n, a.offset) for n in sizes(a)]
    if a.json:
        json.dump({"config": cfg.describe(), "frames": rows}, sys.stdout, indent=1)
        print()
        return
    print(f"# {cfg.describe()}; buffers at offset {a.offset}")
    print(f"# link {link_bytes_per_s(cfg.lanes, cfg.skp_interval) / 1e9:.3f} GB/s per direction; "
          f"{a.headroom:.0%} headroom; user interface at {CLK_HZ / 1e6:.0f} MHz, straddle off")
    hdr = ("len", "down B", "desc", "pay", "dllp", "up B", "rdreq", "cplwr", "dllp",
           "down", "up", "link-5%", "RC", "RQ", "MRd", "line", "bound")
    print("| " + " | ".join(hdr) + " |")
    print("|" + "---:|" * len(hdr))
    for r in rows:
        d, u = r["down"]["by"], r["up"]["by"]
        print("| " + " | ".join([
            f"{r['len']}",
            f"{r['down']['bytes']:.1f}",
            f"{d.get('descriptor completions', 0):.1f}",
            f"{d.get('payload completions', 0):.1f}",
            f"{d.get('DLLPs', 0):.1f}",
            f"{r['up']['bytes']:.1f}",
            f"{u.get('payload read requests', 0) + u.get('descriptor read requests', 0):.1f}",
            f"{u.get('completion writes', 0):.1f}",
            f"{u.get('DLLPs', 0):.1f}",
            f"{r['down_mpps']:.1f}",
            f"{r['up_mpps']:.1f}",
            f"{r['link_mpps_headroom']:.1f}",
            f"{r['rc_mpps']:.1f}",
            f"{r['rq_mpps']:.1f}",
            f"{r['mrd_mpps']:.1f}",
            f"{r['line_mpps']:.2f}",
            f"**{r['bound_mpps']:.1f}**",
        ]) + " |")


# completion buffers of the hard blocks, (headers, 16-byte data credits): docs/BOARDS.md (PG213
# "Receiver-Buffer Completion Space" for UltraScale+; PG156's table for the SUME's Gen3 block)
BUFFERS = {64: ("UltraScale+ pcie4(c)_uscale_plus (PG213)", 128, 1920),
           32: ("SUME pcie3_7x (PG156, as docs/BOARDS.md)", 64, 960)}
LATENCIES_US = (0.5, 0.75, 1.0, 1.25, 1.5, 2.0)


def in_flight_bound(r, lat_us, tags, buf):
    """Frames/s (M) that reads in flight allow: each read holds a tag, and the completion-buffer
    space tsnic_pcie_us_rd reserves, for at least the read latency."""
    s = lat_us * 1e-6
    _, ch, cd = buf
    return {
        "tags": tags / (s * r["read_requests"]) / 1e6,
        "buffer": min(ch / (s * r["cplh"]), cd / (s * r["cpld"])) / 1e6,
    }


def latency_table(cfg, a):
    buf = BUFFERS[cfg.bus_bytes]
    rows = []
    for n in sizes(a):
        r = frame_budget(cfg, n, a.offset)
        rows.append((n, r, [(L, in_flight_bound(r, L, 32, buf), in_flight_bound(r, L, 256, buf))
                            for L in LATENCIES_US]))
    if a.json:
        json.dump({"config": cfg.describe(), "buffer": buf, "latency_us": LATENCIES_US,
                   "frames": [{"len": n, "target_mpps": r["line_mpps"],
                               "read_requests": r["read_requests"], "cplh": r["cplh"],
                               "cpld": r["cpld"],
                               "tags32": [x[1]["tags"] for x in c],
                               "tags256": [x[2]["tags"] for x in c],
                               "buffer": [x[1]["buffer"] for x in c]} for n, r, c in rows]},
                  sys.stdout, indent=1)
        print()
        return
    print(f"# Mpps that reads in flight allow: {cfg.describe()}; {buf[0]}: {buf[1]} headers, "
          f"{buf[2]} data credits; each read holds its tag and its reserved buffer space for the "
          f"read latency (a lower bound: an upper bound on Mpps)")
    hdr = ["len", "reads, headers, credits per frame", "target"] + \
          [f"{x} us" for x in LATENCIES_US]
    print("| " + " | ".join(hdr) + " |")
    print("|---:|---|---:|" + "---|" * len(LATENCIES_US))
    for n, r, c in rows:
        cells = []
        for _, t32, t256 in c:
            cells.append(f"{t32['tags']:.0f} / {t256['tags']:.0f} / {t32['buffer']:.0f}")
        print(f"| {n} | {r['read_requests']:.3f}, {r['cplh']:.2f}, {r['cpld']:.2f} | "
              f"{r['line_mpps']:.2f} | " + " | ".join(cells) + " |")
    print("# cells: 32 tags / 256 tags (extended tags) / completion buffer, Mpps; target: the line "
          "rate")


def dma_bw_table(cfg, a):
    """The link model's effective bandwidth for a stream of back-to-back DMA reads or writes of one
    size (aligned, nothing else on the link), Gb/s: what pcie-bench's BW_RD / BW_WR measure."""
    cap = link_bytes_per_s(cfg.lanes, cfg.skp_interval)
    rows = []
    for n in sizes(a):
        down, up = Tally(), Tally()
        dma_read(cfg, down, up, [0], [0], "read", 1 << 32, n)
        down.add("DLLPs", cfg.dllp_share * up.total_tlps(), 0)
        up.add("DLLPs", cfg.dllp_share * down.total_tlps(), 0)
        rd = n * 8 / (max(down.total(), up.total()) / cap) / 1e9
        w = Tally()
        addr, left = 1 << 32, n
        while left:
            c = min(left, cfg.mps - (addr & (cfg.mps - 1)))
            w.add("write", tlp(req_hdr_dw(cfg.addr64), c), 1, c)
            addr += c
            left -= c
        wr = n * 8 / (w.total() / cap) / 1e9
        rows.append({"size": n, "read_gbps": rd, "write_gbps": wr})
    if a.json:
        json.dump({"config": cfg.describe(), "rows": rows}, sys.stdout, indent=1)
        print()
        return
    print(f"# effective DMA bandwidth, Gb/s: {cfg.describe()}; link "
          f"{cap * 8 / 1e9:.2f} Gb/s per direction")
    print("| size | read | write |")
    print("|---:|---:|---:|")
    for r in rows:
        print(f"| {r['size']} | {r['read_gbps']:.2f} | {r['write_gbps']:.2f} |")


# the host settings the summary compares (added to the command line's own)
VARIANTS = (
    ("as given", []),
    ("64-B completions", ["--cpl-max", "64"]),
    ("RCB 128, MPS 512", ["--rcb", "128", "--mps", "512", "--cpl-max", "512"]),
    ("RCB 128, MPS 512, 128-B completions", ["--rcb", "128", "--mps", "512", "--cpl-max", "128"]),
    ("offset 2", ["--offset", "2"]),
)


def summary_table(argv):
    """Down / up bytes per frame, the link's bound with headroom and the overall bound for each of
    VARIANTS on top of the command line's settings."""
    argv = [x for x in argv if x != "--summary"]
    res = []
    for name, extra in VARIANTS:
        a = parser().parse_args(argv + extra)
        c = Cfg(a)
        res.append((name, c, {n: frame_budget(c, n, a.offset) for n in sizes(a)}))
    a = parser().parse_args(argv)
    print(f"# {res[0][1].describe()}; cells: down / up bytes per frame: link bound with "
          f"{a.headroom:.0%} headroom, **bound** (link, user interface, line), Mpps")
    print("| len | line | " + " | ".join(n for n, _, _ in res) + " |")
    print("|---:|---:|" + "---|" * len(res))
    for n in sizes(a):
        cells = []
        for _, _, r in res:
            f = r[n]
            cells.append(f"{f['down']['bytes']:.0f} / {f['up']['bytes']:.0f}: "
                         f"{f['link_mpps_headroom']:.1f}, **{f['bound_mpps']:.1f}**")
        print(f"| {n} | {res[0][2][n]['line_mpps']:.2f} | " + " | ".join(cells) + " |")


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    a = parser().parse_args(argv)
    if a.summary:
        summary_table(argv)
        return
    cfg = Cfg(a)
    if a.packed and a.latency:
        packed_latency_table(cfg, a)
    elif a.packed:
        packed_table(cfg, a)
    elif a.latency:
        latency_table(cfg, a)
    elif a.dma_bw:
        dma_bw_table(cfg, a)
    else:
        budget_table(cfg, a)


if __name__ == "__main__":
    main()
