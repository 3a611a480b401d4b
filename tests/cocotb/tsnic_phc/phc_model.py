"""Cycle-exact reference model of tsnic_phc (hdl/rtl/tsnic_phc.v) as seen through its registers.

Time is one 112-bit number {ns[63:0], fns[47:0]} that grows by the effective increment `inc`
(16.48 fixed-point ns) every clock. The model keeps it as a piecewise-linear function of the cycle
number: an anchor (c0, t0) and the increment in force, plus increment changes that take effect at a
known future cycle. The bench tells the model the cycle in which each register access was
acknowledged (the wrapper latches it), and the model predicts every register value exactly.

Timing rules (from the RTL; 'a' is the ack cycle of the access):
  - TIME_LO read: the snapshot is the time of cycle a-2: the read is sampled in cycle a-1, where the
    PHC's delayed copy and its seconds view hold the time of cycle a-2 (the view must be valid).
  - CMD.SET: time(a) = SET << 48 (fraction cleared).   CMD.ADJ: time(c) += ADJ << 48 for c >= a.
  - PERIOD_HI / ADJFINE_PPB write: the new increment is used from cycle a + INC_LATENCY on; a newer
    such write before then cancels the older one. STATUS.BUSY covers cycles a .. a + INC_LATENCY - 1.
  - A step (SET or ADJ) makes the seconds view busy for cycles a .. a + SV_BUSY - 1.
  - pps rises one cycle after the first cycle of each new second (the seconds view lags one cycle).
"""

from __future__ import annotations

from fractions import Fraction

import tsnic_contract as C

FRAC_BITS = 48
FRAC_MASK = (1 << FRAC_BITS) - 1
MASK64 = (1 << 64) - 1
MASK112 = (1 << 112) - 1
NS_PER_SEC = 10**9
INC_LATENCY = 131    # 1 (start) + 32 (multiply) + 1 (divider start) + 96 (divide) + 1 (apply)
SV_BUSY = 67         # 1 (delay stage) + 1 (start) + 64 (divide) + 1 (finish)

PHC_REGS = {
    C.PHC_TIME_LO, C.PHC_TIME_HI, C.PHC_TIME_FNS, C.PHC_SET_LO, C.PHC_SET_HI, C.PHC_ADJ_LO,
    C.PHC_ADJ_HI, C.PHC_CMD, C.PHC_PERIOD_LO, C.PHC_PERIOD_HI, C.PHC_ADJFINE_PPB, C.PHC_STATUS,
    C.PHC_STEP_COUNT, C.PHC_SEC_LO, C.PHC_SEC_HI, C.PHC_NSEC,
}


def period_fixed(num: int, den: int) -> int:
    """num/den ns as 16.48 fixed point, rounded to nearest (what PERIOD_NUM/PERIOD_DEN give)."""
    return ((num << FRAC_BITS) + den // 2) // den


def s32(v: int) -> int:
    v &= 0xFFFFFFFF
    return v - (1 << 32) if v & 0x80000000 else v


def effective_inc(period: int, ppb: int) -> int:
    """period + trunc(period * ppb / 10^9), saturated to [0, 2^64-1]."""
    q = period * abs(ppb) // NS_PER_SEC
    v = period + q if ppb >= 0 else period - q
    return min(max(v, 0), MASK64)


def ideal_rate(period: int, ppb: int) -> Fraction:
    """The exact rate the trim asks for, ns per cycle, before any truncation."""
    return Fraction(period, 1 << FRAC_BITS) * (1 + Fraction(ppb, NS_PER_SEC))


class PhcModel:
    def __init__(self, period_init: int):
        self.c0 = 0              # anchor cycle
        self.t0 = 0              # 112-bit time at the anchor
        self.inc = period_init   # increment used from the anchor on
        self.pending: list[tuple[int, int]] = []   # (first cycle using it, increment)
        self.set = 0
        self.adj = 0
        self.period_stage = period_init & 0xFFFFFFFF
        self.period = period_init
        self.ppb = 0
        self.step_count = 0
        self.snap = (0, 0, 0, 0)   # ns[63:32], fns[47:16], sec, nsec
        self.sv_busy = (-1, -2)    # inclusive cycle window
        self.calc_busy = (-1, -2)
        self.step_cycles: list[int] = []

    # --- time --------------------------------------------------------------------------------
    def _advance(self, c: int) -> None:
        while self.pending and self.pending[0][0] <= c:
            ce, inc = self.pending.pop(0)
            self.t0 = (self.t0 + (ce - self.c0) * self.inc) & MASK112
            self.c0 = ce
            self.inc = inc

    def time(self, c: int) -> int:
        """The 112-bit {ns, fns} the PHC holds in cycle c (c at or after the last event)."""
        self._advance(c)
        assert c >= self.c0, f"cycle {c} before the model's anchor {self.c0}"
        return (self.t0 + (c - self.c0) * self.inc) & MASK112

    def ns(self, c: int) -> int:
        return self.time(c) >> FRAC_BITS

    # --- register accesses -----------------------------------------------------------------
    def write(self, addr: int, data: int, a: int | None) -> None:
        """A 32-bit write (all strobes) acknowledged in cycle a (None: nobody acknowledged it)."""
        addr &= ~3
        assert (a is not None) == (addr in PHC_REGS), f"write {addr:#x}: ack {a} unexpected"
        if a is None:
            return
        data &= 0xFFFFFFFF
        if addr == C.PHC_SET_LO:
            self.set = (self.set & ~0xFFFFFFFF) | data
        elif addr == C.PHC_SET_HI:
            self.set = (self.set & 0xFFFFFFFF) | (data << 32)
        elif addr == C.PHC_ADJ_LO:
            self.adj = (self.adj & ~0xFFFFFFFF) | data
        elif addr == C.PHC_ADJ_HI:
            self.adj = (self.adj & 0xFFFFFFFF) | (data << 32)
        elif addr == C.PHC_CMD:
            if data & (C.PHC_CMD_SET | C.PHC_CMD_ADJ):
                self._advance(a)
                if data & C.PHC_CMD_SET:
                    self.t0 = self.set << FRAC_BITS
                else:
                    self.t0 = (self.time(a) + (self.adj << FRAC_BITS)) & MASK112
                self.c0 = a
                self.step_count = (self.step_count + 1) & 0xFFFFFFFF
                self.sv_busy = (a, a + SV_BUSY - 1)
                self.step_cycles.append(a)
        elif addr == C.PHC_PERIOD_LO:
            self.period_stage = data
        elif addr in (C.PHC_PERIOD_HI, C.PHC_ADJFINE_PPB):
            if addr == C.PHC_PERIOD_HI:
                self.period = (data << 32) | self.period_stage
            else:
                self.ppb = s32(data)
            self._advance(a)
            self.pending = [p for p in self.pending if p[0] <= a]   # a newer start aborts
            self.pending.append((a + INC_LATENCY, effective_inc(self.period, self.ppb)))
            self.calc_busy = (a, a + INC_LATENCY - 1)

    def read(self, addr: int, a: int | None) -> int:
        """The value a read acknowledged in cycle a returns (None: nobody acknowledged it: 0)."""
        addr &= ~3
        assert (a is not None) == (addr in PHC_REGS), f"read {addr:#x}: ack {a} unexpected"
        if a is None:
            return 0
        s = a - 1
        if addr == C.PHC_TIME_LO:
            assert not (self.sv_busy[0] <= s <= self.sv_busy[1]), "snapshot taken while the seconds view was busy"
            t = self.time(s - 1)
            ns = t >> FRAC_BITS
            sec, nsec = divmod(ns, NS_PER_SEC)
            self.snap = (ns >> 32, (t & FRAC_MASK) >> 16, sec, nsec)
            return ns & 0xFFFFFFFF
        hi, fns, sec, nsec = self.snap
        return {
            C.PHC_TIME_HI: hi,
            C.PHC_TIME_FNS: fns,
            C.PHC_SET_LO: self.set & 0xFFFFFFFF,
            C.PHC_SET_HI: self.set >> 32,
            C.PHC_ADJ_LO: self.adj & 0xFFFFFFFF,
            C.PHC_ADJ_HI: self.adj >> 32,
            C.PHC_CMD: 0,
            C.PHC_PERIOD_LO: self.period & 0xFFFFFFFF,
            C.PHC_PERIOD_HI: self.period >> 32,
            C.PHC_ADJFINE_PPB: self.ppb & 0xFFFFFFFF,
            C.PHC_STATUS: int(self.sv_busy[0] <= s <= self.sv_busy[1] or self.calc_busy[0] <= s <= self.calc_busy[1]),
            C.PHC_STEP_COUNT: self.step_count,
            C.PHC_SEC_LO: sec & 0xFFFFFFFF,
            C.PHC_SEC_HI: (sec >> 32) & 0xFFFF,
            C.PHC_NSEC: nsec,
        }[addr]

    # --- predictions -------------------------------------------------------------------------
    def second_boundaries(self, c_from: int, count: int) -> list[int]:
        """First cycles (>= c_from) of the next `count` whole TAI seconds, assuming no further events
        and no pending increment change (pps rises one cycle after each)."""
        self._advance(c_from)
        assert not self.pending and self.inc > 0
        out = []
        t = self.time(c_from)
        k = (t >> FRAC_BITS) // NS_PER_SEC + 1
        while len(out) < count:
            target = (k * NS_PER_SEC) << FRAC_BITS
            n = -(-(target - self.t0) // self.inc)       # ceil
            out.append(self.c0 + n)
            k += 1
        return out
