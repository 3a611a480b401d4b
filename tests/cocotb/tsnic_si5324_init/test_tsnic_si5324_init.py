"""Bench for tsnic_si5324_init + tsnic_i2c_master: the NetFPGA SUME's Si5324 set-up over I2C.

The bus is modelled here: SCL and SDA are the wired-AND of the DUT's open-drain outputs (scl_t/sda_t,
1 = released) and of the slave models' pull-downs, fed back to scl_i/sda_i. On it, written from the
datasheets and independently of the RTL:
- a PCA9548 at 0x74: one control byte (bit n connects channel n), cleared by its reset; the Si5324
  behind it on channel 4 answers only while that channel is connected;
- a Si5324 at 0x68: a register pointer set by the first written byte, auto-increment on writes and
  reads, identity 0x01 0x82 in registers 134/135, LOL_INT in register 130 bit 0 (1 until it has been
  read `lock_after` times after ICAL was written, then 0), reset to defaults by its reset pin.
The bench's own list of the expected transactions (the NetFPGA SUME reference design's register
values) is the scoreboard: every transaction on the wire is compared with it, in order. The written
register file is also decoded into the Si5324's frequency plan, which must give 156.25 MHz from the
114.285 MHz crystal with the DSPLL's internal frequencies inside their datasheet ranges. Every bus edge
is timed against the I2C standard-mode minima (UM10204 table 10) and the SCL period against SCL_HZ.
"""

import os
import random

import cocotb
from cocotb.triggers import ClockCycles, Edge, First, RisingEdge, Timer, ReadOnly
from cocotb.utils import get_sim_time

from tsnic_clock import start_clock

CLK_HZ = int(os.environ.get("CLK_HZ", "4000000"))
SCL_HZ = int(os.environ.get("SCL_HZ", "100000"))
RESET_US = int(os.environ.get("RESET_US", "3"))
POWERUP_US = int(os.environ.get("POWERUP_US", "50"))
POLL_US = int(os.environ.get("POLL_US", "300"))
LOCK_TIMEOUT_POLLS = int(os.environ.get("LOCK_TIMEOUT_POLLS", "6"))
RETRIES = int(os.environ.get("RETRIES", "2"))
RETRY_US = int(os.environ.get("RETRY_US", "100"))
TXN_TIMEOUT_US = int(os.environ.get("TXN_TIMEOUT_US", "2000"))
RESTART_US = int(os.environ.get("RESTART_US", "500"))

CLK_NS = 1e9 / CLK_HZ
MUX = 0x74
SI = 0x68
MUX_SI_CHANNEL = 0x10

# I2C minima in ns (UM10204 rev 7, table 10): standard mode, fast mode
TIMING = {
    "standard": dict(tLOW=4700, tHIGH=4000, tHD_STA=4000, tSU_STA=4700, tSU_STO=4000, tBUF=4700, tSU_DAT=250),
    "fast": dict(tLOW=1300, tHIGH=600, tHD_STA=600, tSU_STA=600, tSU_STO=600, tBUF=1300, tSU_DAT=100),
}

# the NetFPGA SUME reference design's Si5324 set-up (sw/embedded/src/iic_si5324.c of NetFPGA-SUME-live):
# (register, value) in the order it writes them, ICAL last
SUME_WRITES = [
    (0, 0x54), (1, 0xE4), (2, 0x12), (3, 0x15), (4, 0x92), (10, 0x08), (11, 0x40), (25, 0xA0),
    (31, 0x00), (32, 0x00), (33, 0x03), (40, 0xC2), (41, 0x49), (42, 0xEF),
    (43, 0x00), (44, 0x77), (45, 0x0B), (46, 0x00), (47, 0x77), (48, 0x0B), (136, 0x40),
]
XTAL_HZ = 114_285_000   # NetFPGA SUME: the Si5324's crystal


def frequency_plan(regs):
    """Decode the Si5324's dividers (datasheet register map) and return (f3, fosc, ckout1) in Hz."""
    n1_hs = (regs[25] >> 5) + 4
    nc1_ls = ((regs[31] & 0x0F) << 16 | regs[32] << 8 | regs[33]) + 1
    n2_hs = (regs[40] >> 5) + 4
    n2_ls = ((regs[40] & 0x0F) << 16 | regs[41] << 8 | regs[42]) + 1
    n31 = ((regs[43] & 0x07) << 16 | regs[44] << 8 | regs[45]) + 1
    f3 = XTAL_HZ / n31
    fosc = f3 * n2_hs * n2_ls
    return f3, fosc, fosc / (n1_hs * nc1_ls)


def expected_transactions(lock_after, id_bytes=(0x01, 0x82)):
    """The scoreboard: each transaction as a list of segments (addr, 'W'/'R', [bytes])."""
    t = [[(MUX, "W", [MUX_SI_CHANNEL])], [(MUX, "R", [MUX_SI_CHANNEL])]]
    for reg, val in ((134, id_bytes[0]), (135, id_bytes[1])):
        t.append([(SI, "W", [reg]), (SI, "R", [val])])
    for reg, val in SUME_WRITES:
        t.append([(SI, "W", [reg, val])])
    for i in range(lock_after + 1):
        t.append([(SI, "W", [130]), (SI, "R", [0x01 if i < lock_after else 0x00])])
    return t


class Si5324Model:
    def __init__(self):
        self.reset()
        self.present = True
        self.id_bytes = (0x01, 0x82)
        self.lock_after = 2        # LOL_INT reads of 1 after ICAL before it reads 0
        self.never_lock = False
        self.lol_override = None   # force LOL_INT (lock loss after set-up)

    def reset(self):
        self.regs = [0] * 256
        self.ptr = 0
        self.ical = False
        self.lol_reads = 0

    def write(self, first, byte):
        if first:
            self.ptr = byte
            return
        self.regs[self.ptr] = byte
        if self.ptr == 136 and byte & 0x40:
            self.ical = True
            self.lol_reads = 0
        self.ptr = (self.ptr + 1) & 0xFF

    def read(self):
        r = self.ptr
        self.ptr = (self.ptr + 1) & 0xFF
        if r in (134, 135):
            return self.id_bytes[r - 134]
        if r == 130:
            if self.lol_override is not None:
                return self.lol_override
            locked = self.ical and not self.never_lock and self.lol_reads >= self.lock_after
            self.lol_reads += 1
            return 0x00 if locked else 0x01
        return self.regs[r]


class Bus:
    """Wired-AND I2C bus, slave models, protocol decoder, edge log."""

    def __init__(self, dut, rng):
        self.dut = dut
        self.rng = rng
        self.si = Si5324Model()
        self.mux_ctrl = 0
        self.mux_present = True
        self.mux_readback_xor = 0
        self.nack_hook = None       # f(txn_index, segment_addr, byte_index) -> True to NACK
        self.stretch_hook = None    # f() -> ns to hold SCL low after a falling edge (0: none)
        self.scl_stuck = False
        self.sl_sda_low = False
        self.sl_scl_low = False
        self.scl = 1
        self.sda = 1
        self.edges = [(0.0, 1, 1)]      # (ns, scl, sda) after each change
        self.txns = []                  # transactions: [segments]; segment = [addr, rw, [(byte, acked)]]
        self.errors = []
        self.state = "idle"
        self.bits = 0
        self.shift = 0
        self.seg = None
        self.stretch_ns = 0.0
        self.stretches = 0
        dut.scl_i.value = 1
        dut.sda_i.value = 1

    # -- bus levels
    def update(self):
        dut_scl = released(self.dut.scl_t)
        dut_sda = released(self.dut.sda_t)
        scl = int(dut_scl and not self.sl_scl_low and not self.scl_stuck)
        sda = int(dut_sda and not self.sl_sda_low)
        if scl == self.scl and sda == self.sda:
            return
        now = get_sim_time("ns")
        if scl != self.scl and sda != self.sda:
            self.errors.append(f"{now} ns: SCL and SDA changed together")
        old_scl, old_sda = self.scl, self.sda
        self.scl, self.sda = scl, sda
        self.edges.append((now, scl, sda))
        if scl != old_scl:
            self.on_scl(scl)
        elif old_scl:     # SDA change while SCL high: START or STOP
            self.on_start() if not sda else self.on_stop()
        self.dut.scl_i.value = self.scl
        self.dut.sda_i.value = self.sda
        # a slave reacting to the edge may have changed SDA (only while SCL is low)
        new_sda = int(dut_sda and not self.sl_sda_low)
        if new_sda != self.sda:
            self.sda = new_sda
            self.edges.append((now, self.scl, self.sda))
            self.dut.sda_i.value = self.sda

    async def run(self):
        dut = self.dut
        while True:
            await First(Edge(dut.scl_t), Edge(dut.sda_t))
            self.update()

    # -- the slaves
    def target(self, addr):
        if addr == MUX and self.mux_present:
            return "mux"
        if addr == SI and self.si.present and self.mux_ctrl & MUX_SI_CHANNEL:
            return "si"
        return None

    def on_start(self):
        if self.state not in ("idle", "nacked", "wait_stop") and not (self.state == "wdata" and self.bits <= 1):
            self.errors.append(f"{get_sim_time('ns')} ns: START in state {self.state} bit {self.bits}")
        if self.state == "idle":
            self.txns.append([])
        self.seg = None
        self.state, self.bits, self.shift = "addr", 0, 0
        self.sl_sda_low = False

    def on_stop(self):
        if self.state not in ("nacked", "wait_stop") and not (self.state == "wdata" and self.bits <= 1):
            self.errors.append(f"{get_sim_time('ns')} ns: STOP in state {self.state} bit {self.bits}")
        self.state = "idle"
        self.sl_sda_low = False
        self.seg = None

    def on_scl(self, rising):
        if rising:
            if self.state in ("addr", "wdata"):
                self.shift = (self.shift << 1) | self.sda
                self.bits += 1
            elif self.state == "rdata":
                self.bits += 1
            elif self.state == "ack_master":
                self.master_acked = not self.sda
            return
        # falling edge
        if self.stretch_hook is not None:
            ns = self.stretch_hook()
            if ns:
                self.sl_scl_low = True
                self.stretches += 1
                cocotb.start_soon(self.release_scl(ns))
        if self.state in ("addr", "wdata") and self.bits == 8:
            self.byte_done(self.shift & 0xFF)
        elif self.state == "slave_ack":
            self.sl_sda_low = False
            if self.seg[1] == "R":
                self.load_read_byte()
            else:
                self.state, self.bits, self.shift = "wdata", 0, 0
        elif self.state == "rdata":
            if self.bits == 8:
                self.sl_sda_low = False
                self.state = "ack_master"
            else:
                self.sl_sda_low = not (self.rbyte >> (7 - self.bits)) & 1
        elif self.state == "ack_master":
            if self.master_acked:
                self.load_read_byte()
            else:
                self.state = "wait_stop"

    async def release_scl(self, ns):
        await Timer(ns, units="ns")
        self.sl_scl_low = False
        self.update()

    def byte_done(self, byte):
        txn = self.txns[-1]
        if self.state == "addr":
            addr, rw = byte >> 1, "R" if byte & 1 else "W"
            self.seg = [addr, rw, []]
            txn.append(self.seg)
            who = self.target(addr)
            ack = who is not None
            byte_index = -1
        else:
            addr = self.seg[0]
            who = self.target(addr)
            ack = who is not None
            byte_index = len(self.seg[2])
        if ack and self.nack_hook is not None and self.nack_hook(len(self.txns) - 1, addr, byte_index):
            ack = False
        if self.state == "wdata":
            self.seg[2].append((byte, ack))
            if ack:
                if who == "mux":
                    self.mux_ctrl = byte
                else:
                    self.si.write(byte_index == 0, byte)
        else:
            self.seg.append(ack)      # the address byte's ACK
        if ack:
            self.sl_sda_low = True
            self.state = "slave_ack"
        else:
            self.state = "nacked"

    def load_read_byte(self):
        who = self.target(self.seg[0])
        if who == "mux":
            b = self.mux_ctrl ^ self.mux_readback_xor
        else:
            b = self.si.read()
        self.seg[2].append((b, True))
        self.rbyte = b
        self.state, self.bits = "rdata", 0
        self.sl_sda_low = not (b >> 7) & 1

    # -- views for the checks
    def clean(self):
        """Transactions as [(addr, rw, [bytes])], keeping only those where every byte was ACKed."""
        return [[(seg[0], seg[1], [b for b, _ in seg[2]]) for seg in txn] for txn in self.txns if txn_ok(txn)]


def released(sig):
    """An open-drain enable as a level: 1 released (also before the DUT drives it), 0 pulled low."""
    v = sig.value
    return int(v) if v.is_resolvable else 1


def txn_ok(txn):
    """Every address and every written byte of the transaction ACKed."""
    return bool(txn) and all(len(seg) > 3 and seg[3] and all(a for _, a in seg[2]) for seg in txn)


def check_timing(edges, stretched):
    """Every SCL/SDA edge against the I2C minima at SCL_HZ; the SCL period against SCL_HZ."""
    spec = TIMING["standard" if SCL_HZ <= 100_000 else "fast"]
    period = 1e9 / SCL_HZ
    problems = []
    last_rise = last_fall = last_sda_low_change = None
    start_at = stop_at = None
    prev_rise = None
    bit_periods = []
    scl, sda = 1, 1
    for t, s, d in edges[1:]:
        if s != scl:
            if s:   # SCL rises
                if last_fall is not None and t - last_fall < spec["tLOW"] - 1e-3:
                    problems.append(f"{t}: SCL low {t - last_fall} ns < tLOW")
                if last_sda_low_change is not None and last_fall is not None and last_sda_low_change >= last_fall \
                        and t - last_sda_low_change < spec["tSU_DAT"]:
                    problems.append(f"{t}: data setup {t - last_sda_low_change} ns < tSU;DAT")
                if prev_rise is not None and start_at is not None and start_at < prev_rise:
                    bit_periods.append(t - prev_rise)
                prev_rise = t
                last_rise = t
            else:   # SCL falls
                if last_rise is not None and t - last_rise < spec["tHIGH"] - 1e-3:
                    problems.append(f"{t}: SCL high {t - last_rise} ns < tHIGH")
                if start_at is not None and start_at > (last_rise or 0) and t - start_at < spec["tHD_STA"] - 1e-3:
                    problems.append(f"{t}: START hold {t - start_at} ns < tHD;STA")
                last_fall = t
        elif d != sda:
            if s:   # START / STOP
                if not d:
                    if stop_at is not None and stop_at >= (last_rise or 0):
                        if t - stop_at < spec["tBUF"] - 1e-3:
                            problems.append(f"{t}: bus free {t - stop_at} ns < tBUF")
                    elif last_rise is not None and t - last_rise < spec["tSU_STA"] - 1e-3:
                        problems.append(f"{t}: repeated START setup {t - last_rise} ns < tSU;STA")
                    start_at = t
                    prev_rise = None
                else:
                    if last_rise is not None and t - last_rise < spec["tSU_STO"] - 1e-3:
                        problems.append(f"{t}: STOP setup {t - last_rise} ns < tSU;STO")
                    stop_at = t
                    prev_rise = None
            else:
                last_sda_low_change = t
        scl, sda = s, d
    # SCL rate: each bit period of a transaction at least 1 / SCL_HZ; without stretching, at most
    # 1 / SCL_HZ rounded up to clk, plus the master's input synchronizer (2 clk) and, from a byte's ACK
    # bit to the next byte, the hand-over of the next command (2 clk)
    quarter = -(-CLK_HZ // (4 * SCL_HZ))
    for p in bit_periods:
        if p < period - 1e-3:
            problems.append(f"SCL period {p} ns < {period} ns")
        if not stretched and p > (4 * quarter + 4) * CLK_NS + 1e-3:
            problems.append(f"SCL period {p} ns > {4 * quarter + 4} clk")
    return problems, bit_periods


class TB:
    def __init__(self, dut, seed=1):
        self.dut = dut
        self.rng = random.Random(seed)
        self.bus = Bus(dut, self.rng)
        self.resets = []          # (rise_ns, fall_ns) of si5324_rst
        self.ready_changes = []   # (ns, clk_ready)
        start_clock(dut.clk, round(CLK_NS * 1000))
        cocotb.start_soon(self.bus.run())
        cocotb.start_soon(self.watch())

    async def watch(self):
        dut = self.dut
        rst_prev, ready_prev, mux_prev = 0, 0, 0
        while True:
            await RisingEdge(dut.clk)
            await ReadOnly()
            r, m, c = int(dut.si5324_rst.value), int(dut.mux_rst.value), int(dut.clk_ready.value)
            now = get_sim_time("ns")
            if r != m:
                self.bus.errors.append(f"{now}: si5324_rst {r} != mux_rst {m}")
            if r and not rst_prev:
                self.resets.append([now, None])
            if not r and rst_prev:
                self.resets[-1][1] = now
            if r:
                # both chips held in reset: their state is lost
                self.bus.si.reset()
                self.bus.mux_ctrl = 0
                if self.bus.state != "idle" or int(dut.scl_t.value) == 0 or int(dut.sda_t.value) == 0:
                    self.bus.errors.append(f"{now}: I2C activity during the chips' reset")
            if c != ready_prev:
                self.ready_changes.append((now, c))
            rst_prev, ready_prev, mux_prev = r, c, m

    async def reset(self):
        self.dut.rst.value = 1
        await ClockCycles(self.dut.clk, 4)
        self.dut.rst.value = 0
        self.rst_release = get_sim_time("ns")

    async def wait_for(self, cond, max_us, what):
        t0 = get_sim_time("us")
        while not cond():
            await ClockCycles(self.dut.clk, 64)
            assert get_sim_time("us") - t0 < max_us, f"timeout waiting for {what}"

    def setup_us(self, lock_after):
        """An upper bound of one whole set-up in us: bytes * 9 bits * (period + slack) plus waits."""
        n_bytes = 2 + 2 + 2 * 4 + 3 * len(SUME_WRITES) + 4 * (lock_after + 1)
        bit_us = 1e6 / SCL_HZ * 1.1 + 1
        return RESET_US + POWERUP_US + n_bytes * 9 * bit_us + (lock_after + 1) * POLL_US + 200

    def check_common(self, stretched=False):
        assert not self.bus.errors, self.bus.errors[:10]
        problems, periods = check_timing(self.bus.edges, stretched)
        assert not problems, problems[:10]
        assert periods, "no SCL periods seen"
        return periods

    def check_reset_pulses(self):
        for rise, fall in self.resets:
            if fall is None:
                continue
            width = fall - max(rise, self.rst_release)     # (the DUT's own reset holds it too)
            assert width >= RESET_US * 1000 - CLK_NS, f"reset pulse {width} ns < {RESET_US} us"
            assert width <= (RESET_US + 1) * 1000 + 2 * CLK_NS, f"reset pulse {width} ns > {RESET_US} us + 1 us"
        # the first START after each reset comes at least POWERUP_US after its release
        starts = [t for (t, s, d), (_, ps, pd) in zip(self.bus.edges[1:], self.bus.edges) if s and ps and pd and not d]
        for rise, fall in self.resets:
            if fall is None:
                continue
            after = [t for t in starts if t > fall]
            if after:
                assert after[0] - fall >= POWERUP_US * 1000 - CLK_NS, f"START {after[0] - fall} ns after reset"

    def check_ready_after_lock(self):
        """clk_ready rises only after the STOP of the first LOL_INT = 0 read, and within a few clk."""
        rises = [t for t, v in self.ready_changes if v]
        assert rises, "clk_ready never rose"
        # the time of the STOP that ended the first transaction reading 130 -> 0
        lock_txn = None
        for i, txn in enumerate(self.bus.txns):
            if len(txn) == 2 and txn[0][2] and txn[0][2][0][0] == 130 and txn[1][2] and txn[1][2][0][0] == 0:
                lock_txn = i
                break
        assert lock_txn is not None, "no LOL_INT = 0 read"
        stops = [t for (t, s, d), (_, ps, pd) in zip(self.bus.edges[1:], self.bus.edges) if s and ps and d and not pd]
        # transactions end with a STOP each, in order
        stop_t = stops[lock_txn]
        assert rises[0] >= stop_t, f"clk_ready at {rises[0]} ns before the lock read's STOP at {stop_t} ns"
        assert rises[0] - stop_t <= 3 * CLK_NS + (1e9 / SCL_HZ) / 2 + 2 * CLK_NS, (rises[0], stop_t)


@cocotb.test()
async def test_setup_sequence(dut):
    """Directed: every transaction, in order; the register file gives 156.25 MHz; timing; status."""
    tb = TB(dut)
    tb.bus.si.lock_after = 3
    await tb.reset()
    assert int(dut.clk_ready.value) == 0
    await tb.wait_for(lambda: int(dut.done.value), tb.setup_us(3), "done")
    await ClockCycles(dut.clk, 16)
    exp = expected_transactions(3)
    got = tb.bus.clean()
    assert len(tb.bus.txns) == len(exp), (len(tb.bus.txns), len(exp))
    for i, (g, e) in enumerate(zip(got, exp)):
        assert g == e, f"transaction {i}: got {g}, expected {e}"
    # the last read byte of every read was NACKed by the master, addresses and written bytes ACKed
    assert int(dut.locked.value) == 1 and int(dut.clk_ready.value) == 1
    assert int(dut.error.value) == 0 and int(dut.error_code.value) == 0 and int(dut.busy.value) == 0
    assert int(dut.attempts.value) == 1
    regs = tb.bus.si.regs
    for reg, val in SUME_WRITES:
        assert regs[reg] == val, (reg, regs[reg], val)
    f3, fosc, ckout1 = frequency_plan(regs)
    assert 2e3 <= f3 <= 2e6, f"f3 {f3} Hz outside the Si5324's 2 kHz .. 2 MHz"
    assert 4.85e9 <= fosc <= 5.67e9, f"fosc {fosc} Hz outside 4.85 .. 5.67 GHz"
    assert abs(ckout1 - 156.25e6) < 1e-3, f"CKOUT1 {ckout1} Hz"
    assert len(tb.resets) == 1
    tb.check_reset_pulses()
    tb.check_ready_after_lock()
    periods = tb.check_common()
    dut._log.info("SCL period min %.1f ns max %.1f ns over %d bits; %d transactions",
                  min(periods), max(periods), len(periods), len(got))
    # monitoring goes on: another poll after POLL_US, lock kept, no reset
    n = len(tb.bus.txns)
    await Timer(POLL_US + 400, units="us")
    assert len(tb.bus.txns) > n and int(dut.clk_ready.value) == 1 and len(tb.resets) == 1


@cocotb.test()
async def test_nack_retry(dut):
    """A NACKed byte (address or data, mux or Si5324) is retried after RETRY_US; up to RETRIES
    failures of one transaction are absorbed and the set-up ends as if nothing happened."""
    tb = TB(dut, seed=2)
    # transaction numbers of the expected list: 0 mux write, 4+7 = write of register 25 (index 7)
    # by wire transaction index: 0 the mux write fails on its data byte; then (mux write, mux read,
    # two ID reads, 7 register writes) 5 + 7 = 12 is the write of register 25: its address byte
    # fails RETRIES times; the write of register 40 (list index 11) then fails once on its value byte
    fail_at = {(0, MUX, 0)} | {(12 + k, SI, -1) for k in range(RETRIES)} | {(16 + RETRIES, SI, 1)}
    retried_index = {w for w, _, _ in fail_at}

    def hook(txn_index, addr, byte_index):
        return (txn_index, addr, byte_index) in fail_at

    tb.bus.nack_hook = hook
    tb.bus.si.lock_after = 2
    await tb.reset()
    await tb.wait_for(lambda: int(dut.done.value), tb.setup_us(2) + 1000, "done")
    await ClockCycles(dut.clk, 16)
    assert tb.bus.clean() == expected_transactions(2)
    assert len(tb.bus.txns) == len(expected_transactions(2)) + 2 + RETRIES
    # each failed try stopped right after its NACKed byte
    for w in sorted(retried_index):
        txn = tb.bus.txns[w]
        assert not txn_ok(txn), (w, txn)
        last = txn[-1]
        if len(last) > 3 and last[3]:
            assert last[2] and not last[2][-1][1], (w, txn)
        else:
            assert not last[2], (w, txn)
    assert int(dut.error.value) == 0 and int(dut.attempts.value) == 1 and len(tb.resets) == 1
    tb.check_ready_after_lock()
    tb.check_common()
    # the retry waits RETRY_US after the failed try's STOP
    stops = [t for (t, s, d), (_, ps, pd) in zip(tb.bus.edges[1:], tb.bus.edges) if s and ps and d and not pd]
    starts = [t for (t, s, d), (_, ps, pd) in zip(tb.bus.edges[1:], tb.bus.edges) if s and ps and pd and not d]
    for w in retried_index:
        # the START after this try's STOP (repeated STARTs come before it)
        nxt = [t for t in starts if t > stops[w]][0]
        assert nxt - stops[w] >= RETRY_US * 1000 - CLK_NS, (w, nxt - stops[w])


@cocotb.test()
async def test_absent_device_errors_then_restarts(dut):
    """The Si5324 never ACKs: after 1 + RETRIES tries error = 1 with code 3 (device NACK), no
    clk_ready; after RESTART_US both chips are reset again and the sequence restarts; once the device
    answers, the set-up completes and error clears."""
    tb = TB(dut, seed=3)
    tb.bus.si.present = False
    await tb.reset()
    await tb.wait_for(lambda: int(dut.error.value), 20000, "error")
    assert int(dut.error_code.value) == 3 and int(dut.done.value) == 0 and int(dut.clk_ready.value) == 0
    si_tries = [t for t in tb.bus.txns if t and t[0][0] == SI]
    assert len(si_tries) == 1 + RETRIES, len(si_tries)
    assert all(len(t) == 1 and not t[0][3] for t in si_tries), si_tries
    await tb.wait_for(lambda: len(tb.resets) == 2, RESTART_US + 200, "the second reset")
    assert int(dut.attempts.value) == 2
    tb.bus.si.present = True
    await tb.wait_for(lambda: int(dut.done.value), tb.setup_us(2) + 200, "done")
    await ClockCycles(dut.clk, 16)
    assert int(dut.error.value) == 0 and int(dut.error_code.value) == 3 and int(dut.clk_ready.value) == 1
    assert tb.bus.clean()[-len(expected_transactions(2)):] == expected_transactions(2)
    tb.check_reset_pulses()
    tb.check_common()
    assert not [t for t, v in tb.ready_changes if v and t < tb.resets[1][1]], "clk_ready before the set-up"


@cocotb.test()
async def test_mux_absent(dut):
    """No mux: code 1 after 1 + RETRIES tries of its address; the Si5324 is never addressed."""
    tb = TB(dut, seed=4)
    tb.bus.mux_present = False
    await tb.reset()
    await tb.wait_for(lambda: int(dut.error.value), 20000, "error")
    assert int(dut.error_code.value) == 1
    assert len(tb.bus.txns) == 1 + RETRIES and all(t[0][0] == MUX for t in tb.bus.txns)
    tb.check_common()


@cocotb.test()
async def test_mux_readback_and_wrong_id(dut):
    """A mux that reads back another value: code 2; a device with another part number: code 4, and
    not one register written."""
    tb = TB(dut, seed=5)
    tb.bus.mux_readback_xor = 0x01
    await tb.reset()
    await tb.wait_for(lambda: int(dut.error.value), 20000, "error")
    assert int(dut.error_code.value) == 2
    assert [t[0][0] for t in tb.bus.txns] == [MUX, MUX]
    tb.bus.mux_readback_xor = 0
    tb.bus.si.id_bytes = (0x01, 0xA2)     # part number 0x01A (a Si5326)
    n = len(tb.bus.txns)
    await tb.wait_for(lambda: int(dut.error_code.value) == 4, RESTART_US + 5000, "ID error")
    assert int(dut.error.value) == 1 and int(dut.done.value) == 0
    writes = [t for t in tb.bus.txns[n:] if t[0][0] == SI and len(t) == 1]
    assert not writes, writes
    tb.check_common()


@cocotb.test()
async def test_lock_timeout(dut):
    """LOL_INT never clears: exactly LOCK_TIMEOUT_POLLS reads, then code 5; clk_ready stays low."""
    tb = TB(dut, seed=6)
    tb.bus.si.never_lock = True
    await tb.reset()
    await tb.wait_for(lambda: int(dut.error.value), tb.setup_us(LOCK_TIMEOUT_POLLS), "error")
    assert int(dut.error_code.value) == 5 and int(dut.clk_ready.value) == 0 and int(dut.done.value) == 0
    polls = [t for t in tb.bus.txns if len(t) == 2 and t[0][2] and t[0][2][0][0] == 130]
    assert len(polls) == LOCK_TIMEOUT_POLLS, len(polls)
    assert not [t for t, v in tb.ready_changes if v]
    tb.check_common()


@cocotb.test()
async def test_lock_loss_after_setup(dut):
    """After done, LOL_INT = 1 drops locked and clk_ready at the next poll (no reset, no error);
    they come back with the lock."""
    tb = TB(dut, seed=7)
    await tb.reset()
    await tb.wait_for(lambda: int(dut.done.value), tb.setup_us(2), "done")
    tb.bus.si.lol_override = 0x01
    await tb.wait_for(lambda: not int(dut.clk_ready.value), 2 * POLL_US + 500, "clk_ready low")
    assert int(dut.locked.value) == 0 and int(dut.done.value) == 1 and int(dut.error.value) == 0
    tb.bus.si.lol_override = None
    await tb.wait_for(lambda: int(dut.clk_ready.value), 2 * POLL_US + 500, "clk_ready again")
    assert len(tb.resets) == 1
    tb.check_common()


@cocotb.test()
async def test_clock_stretching(dut):
    """Slaves stretch SCL after random falling edges (up to 3 bit periods): the master waits, the
    high phase is still long enough, and the set-up is the same."""
    tb = TB(dut, seed=8)
    rng = random.Random(8)
    tb.bus.stretch_hook = lambda: rng.choice([0, 0, 0, rng.randrange(100, int(3e9 / SCL_HZ))])
    await tb.reset()
    await tb.wait_for(lambda: int(dut.done.value), 3 * tb.setup_us(2), "done")
    await ClockCycles(dut.clk, 16)
    assert tb.bus.stretches > 50
    assert tb.bus.clean() == expected_transactions(2)
    tb.check_common(stretched=True)


@cocotb.test()
async def test_stuck_bus(dut):
    """SCL held low by a slave: the transaction times out after TXN_TIMEOUT_US with code 6."""
    tb = TB(dut, seed=9)
    await tb.reset()
    await tb.wait_for(lambda: len(tb.bus.txns) >= 3, 5000, "traffic")
    tb.bus.scl_stuck = True
    tb.bus.update()
    await tb.wait_for(lambda: int(dut.error.value), TXN_TIMEOUT_US + 1000, "error")
    assert int(dut.error_code.value) == 6 and int(dut.done.value) == 0
    assert int(dut.scl_t.value) == 1 and int(dut.sda_t.value) == 1, "the master did not let go"


@cocotb.test()
async def test_random_nacks(dut):
    """Random NACKs on any byte (each transaction fails at most RETRIES times in a row): the set-up
    completes with the same transactions, in order, and the same register file."""
    tb = TB(dut, seed=10)
    rng = random.Random(10)

    def hook(txn_index, addr, byte_index):
        run = 0      # failed tries right before this one
        for txn in reversed(tb.bus.txns[:txn_index]):
            if txn_ok(txn):
                break
            run += 1
        return run < RETRIES and rng.random() < 0.04

    tb.bus.nack_hook = hook
    await tb.reset()
    await tb.wait_for(lambda: int(dut.done.value), 3 * tb.setup_us(2), "done")
    await ClockCycles(dut.clk, 16)
    assert tb.bus.clean() == expected_transactions(2)
    failed = len(tb.bus.txns) - len(expected_transactions(2))
    dut._log.info("%d NACKed tries absorbed", failed)
    assert failed > 0
    assert int(dut.error.value) == 0 and len(tb.resets) == 1
    for reg, val in SUME_WRITES:
        assert tb.bus.si.regs[reg] == val
    tb.check_common()
