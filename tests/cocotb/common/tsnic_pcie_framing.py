"""Beat-by-beat check of the sideband (tuser) fields the design drives on the hard block's requester
request (RQ) and completer completion (CC) interfaces, against this file's own model (issue 30,
defect 10: cocotbext-pcie's model ignores is_sop/is_eop, so nothing else would notice them wrong).

Field positions (straddle off, dword-aligned mode):
  512-bit UltraScale+ (PG213 "Requester Request Interface" / "Completer Completion Interface" tables)
    RQ tuser: first_be[7:0] last_be[15:8] addr_offset[19:16] is_sop[21:20] is_sop0_ptr[23:22]
              is_sop1_ptr[25:24] is_eop[27:26] is_eop0_ptr[31:28] is_eop1_ptr[35:32] discontinue[36]
    CC tuser: is_sop[1:0] is_sop0_ptr[3:2] is_sop1_ptr[5:4] is_eop[7:6] is_eop0_ptr[11:8]
              is_eop1_ptr[15:12] discontinue[16]
  256-bit Gen3 block (PG023 pcie3_7x / PG156): RQ tuser first_be[3:0] last_be[7:4] addr_offset[10:8]
              discontinue[11]; CC tuser discontinue[0]
The model: a TLP is its descriptor (4 dwords on RQ, 3 on CC) plus its payload dwords (RQ: the
descriptor's dword count for a write, none for a read; CC: the descriptor's dword count), packed
from dword 0 of the first beat. So on every beat tkeep is known; is_sop[0] is set on the first beat
of a TLP only; is_eop[0] on the last only, with is_eop0_ptr = the TLP's last dword within that beat;
the second-TLP fields, discontinue and addr_offset are 0. Byte enables (first beat): a read asks for
whole dwords (first_be 0xF, last_be 0xF, or 0 for one dword); a write's come from the byte range
the bench expects it to carry (`expect`: (address, bytes) in order), else they must be a contiguous
byte range (the design writes nothing else): one dword: first_be one run, last_be 0; more: first_be
ends at byte 3, last_be starts at byte 0.
A wrong field raises AssertionError at once, naming the beat.
"""

from collections import deque

import cocotb
from cocotb.triggers import First, RisingEdge, ReadOnly


def be_ref(start, nbytes):
    """(dword address, dwords, first_be, last_be) of a write of `nbytes` at byte address `start`."""
    a0 = start & 3
    dw = (a0 + nbytes + 3) // 4
    if dw == 1:
        return start & ~3, 1, ((1 << nbytes) - 1) << a0, 0
    end = (a0 + nbytes) % 4
    return start & ~3, dw, (0xF << a0) & 0xF, 0xF if end == 0 else (1 << end) - 1


def _contiguous(be):
    """Non-zero, with its set bits in one run."""
    return be != 0 and ((be + (be & -be)) & be) == 0


class FramingChecker:
    def __init__(self, dut, width):
        self.dut = dut
        self.width = width
        self.lanes = width // 32
        self.rq_beats = 0
        self.cc_beats = 0
        self.expect_writes = None      # deque of (address, bytes): writes' byte enables are checked
        cocotb.start_soon(self._run())

    def expect(self, writes):
        self.expect_writes = deque(writes)

    def _fail(self, what):
        raise AssertionError(f"tuser framing: {what}")

    def _frame(self, kind, beat, total_dw, d0, last, keep, u, sop_bit, eop_bit):
        """Checks one beat of a TLP of `total_dw` dwords (beat = index within the TLP)."""
        left = total_dw - beat * self.lanes
        n = min(left, self.lanes)
        exp_last = left <= self.lanes
        if keep != (1 << n) - 1:
            self._fail(f"{kind} beat {beat} of a {total_dw}-dword TLP ({d0:#x}): tkeep {keep:#x}, "
                       f"expected {(1 << n) - 1:#x}")
        if last != exp_last:
            self._fail(f"{kind} beat {beat} of a {total_dw}-dword TLP: tlast {last}")
        if self.width != 512:
            return
        is_sop = (u >> sop_bit) & 3
        sop_ptrs = (u >> (sop_bit + 2)) & 0xF
        is_eop = (u >> eop_bit) & 3
        eop0 = (u >> (eop_bit + 2)) & 0xF
        eop1 = (u >> (eop_bit + 6)) & 0xF
        disc = (u >> (eop_bit + 10)) & 1
        exp = {"is_sop": int(beat == 0), "is_sop0/1_ptr": 0, "is_eop": int(exp_last),
               "is_eop1_ptr": 0, "discontinue": 0}
        got = {"is_sop": is_sop, "is_sop0/1_ptr": sop_ptrs, "is_eop": is_eop, "is_eop1_ptr": eop1,
               "discontinue": disc}
        if exp_last:
            exp["is_eop0_ptr"] = n - 1
            got["is_eop0_ptr"] = eop0
        if got != exp:
            self._fail(f"{kind} beat {beat} of a {total_dw}-dword TLP (first dword {d0 & 0xFFFFFFFF:#x}): "
                       f"tuser {got}, expected {exp}")

    async def _run(self):
        dut = self.dut
        rq_beat = cc_beat = 0
        rq_dw = cc_dw = 0
        rq_d0 = cc_d0 = 0
        be_sh = 8 if self.width == 512 else 4
        clk_rise = RisingEdge(dut.clk)
        rq_valid, cc_valid = dut.m_axis_rq_tvalid, dut.m_axis_cc_tvalid
        idle = False
        while True:
            if idle:
                # both ports idle: nothing is checked until a tvalid rises (the design drives them at
                # clk edges), so sleep until then and look at that edge as the loop would have
                await First(RisingEdge(rq_valid), RisingEdge(cc_valid))
            else:
                await clk_rise
            await ReadOnly()
            idle = not rq_valid.value and not cc_valid.value
            if rq_valid.value and dut.m_axis_rq_tready.value:
                self.rq_beats += 1
                u = int(dut.m_axis_rq_tuser.value)
                if rq_beat == 0:
                    d = int(dut.m_axis_rq_tdata.value) & ((1 << 128) - 1)
                    rq_d0 = d
                    dw = (d >> 64) & 0x7FF
                    rt = (d >> 75) & 0xF
                    rq_dw = 4 + (dw if rt == 1 else 0)
                    fbe, lbe = u & 0xF, (u >> be_sh) & 0xF
                    aoff = (u >> (16 if self.width == 512 else 8)) & (0xF if self.width == 512 else 0x7)
                    disc = (u >> 11) & 1 if self.width != 512 else 0
                    if aoff or disc:
                        self._fail(f"RQ addr_offset {aoff} / discontinue {disc} (expected 0)")
                    if rt == 0:
                        exp = (0xF, 0xF if dw > 1 else 0)
                        if (fbe, lbe) != exp:
                            self._fail(f"RQ read of {dw} dwords at {d & ~3:#x}: first/last BE "
                                       f"{fbe:#x}/{lbe:#x}, expected {exp[0]:#x}/{exp[1]:#x}")
                    elif rt == 1:
                        addr = d & ~3 & ((1 << 64) - 1)
                        if self.expect_writes is not None:
                            if not self.expect_writes:
                                self._fail(f"RQ write at {addr:#x}: none expected")
                            a, nb = self.expect_writes.popleft()
                            exp = be_ref(a, nb)
                            if (addr, dw, fbe, lbe) != exp:
                                self._fail(f"RQ write of {nb} bytes at {a:#x}: (dword address, dwords, "
                                           f"first BE, last BE) = {(hex(addr), dw, fbe, lbe)}, "
                                           f"expected {(hex(exp[0]), exp[1], exp[2], exp[3])}")
                        else:
                            # the design writes contiguous byte ranges
                            if dw == 1:
                                ok = _contiguous(fbe) and lbe == 0
                            else:
                                ok = fbe in (0xF, 0xE, 0xC, 0x8) and lbe in (0x1, 0x3, 0x7, 0xF)
                            if not ok:
                                self._fail(f"RQ write of {dw} dwords at {addr:#x}: first/last BE "
                                           f"{fbe:#x}/{lbe:#x} are not a contiguous byte range")
                last = bool(dut.m_axis_rq_tlast.value)
                self._frame("RQ", rq_beat, rq_dw, rq_d0, last, int(dut.m_axis_rq_tkeep.value), u, 20, 26)
                rq_beat = 0 if last else rq_beat + 1
            if cc_valid.value and dut.m_axis_cc_tready.value:
                self.cc_beats += 1
                u = int(dut.m_axis_cc_tuser.value)
                if cc_beat == 0:
                    d = int(dut.m_axis_cc_tdata.value) & ((1 << 96) - 1)
                    cc_d0 = d
                    cc_dw = 3 + ((d >> 32) & 0x7FF)
                if self.width != 512 and u & 1:
                    self._fail("CC discontinue set")
                last = bool(dut.m_axis_cc_tlast.value)
                self._frame("CC", cc_beat, cc_dw, cc_d0, last, int(dut.m_axis_cc_tkeep.value), u, 0, 6)
                cc_beat = 0 if last else cc_beat + 1
