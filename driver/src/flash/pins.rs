//! The NOR flash model at its pins: give it the controller's quad-SPI outputs each core cycle
//! (`qspi_clk`, `qspi_cs_n`, `qspi_dq_o[3:0]`, `qspi_dq_oe[3:0]`) and it returns `qspi_dq_i[3:0]`, so
//! the Verilated card can be wired to [`NorFlash`] when the flash controller RTL lands.
//!
//! SPI mode 0: the part samples DQ on the rising edge of `qspi_clk` and drives on the falling edge;
//! a command starts at the falling edge of `qspi_cs_n` and program/erase/write-status/write-enable
//! take effect at its rising edge, as on the part. Opcode and 4-byte address on DQ0; the commands
//! understood: 9Fh READ ID, 05h READ STATUS, 70h READ FLAG STATUS, 06h/04h WRITE ENABLE/DISABLE,
//! 01h WRITE STATUS, B7h ENTER 4-BYTE (no effect: every address is 4 bytes), 13h READ, 0Ch FAST READ
//! (8 dummy clocks), 6Ch QUAD OUTPUT FAST READ (8 dummy clocks, data on DQ3..0), 12h PAGE PROGRAM,
//! 34h QUAD INPUT PAGE PROGRAM (data on DQ3..0), DCh SECTOR ERASE, 21h SUBSECTOR ERASE (all 4-byte
//! address forms). Each call advances the part by one core cycle.

use super::nor::NorFlash;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Src {
    Id(usize),
    Status,
    Flag,
    Mem(u32),
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Phase {
    Idle,
    Opcode,
    Addr,
    Dummy(u8),
    DataIn,
    Out,
    /// Rest of the command ignored (unknown opcode, or waiting for CS# to rise).
    Wait,
}

/// The pin adapter around a [`NorFlash`].
pub struct QspiPins {
    /// The part.
    pub chip: NorFlash,
    ns_per_cycle: u64,
    prev_clk: bool,
    prev_cs_n: bool,
    phase: Phase,
    opcode: u8,
    shift: u32,
    bits: u32,
    addr: u32,
    data: Vec<u8>,
    src: Src,
    out_byte: u8,
    out_bits_left: u32,
    quad: bool,
    dq_i: u8,
    /// Commands executed (at CS# rise or opcode decode), for tests.
    pub commands: u64,
}

impl QspiPins {
    /// Around `chip`, called at a core clock of period `ns_per_cycle` (4 for 250 MHz).
    pub fn new(chip: NorFlash, ns_per_cycle: u64) -> QspiPins {
        QspiPins {
            chip,
            ns_per_cycle,
            prev_clk: false,
            prev_cs_n: true,
            phase: Phase::Idle,
            opcode: 0,
            shift: 0,
            bits: 0,
            addr: 0,
            data: Vec::new(),
            src: Src::Status,
            out_byte: 0xFF,
            out_bits_left: 0,
            quad: false,
            dq_i: 0xF,
            commands: 0,
        }
    }

    fn quad_in(&self) -> bool {
        self.opcode == 0x34
    }

    fn next_out_byte(&mut self) -> u8 {
        match self.src {
            Src::Id(i) => {
                self.src = Src::Id(i + 1);
                let id = self.chip.read_id().unwrap_or([0xFF; 3]);
                // MT25Q: 20 BB 21, then the extended ID bytes (10h, ...): 0 here
                if i < 3 {
                    id[i]
                } else {
                    0
                }
            }
            Src::Status => self.chip.read_status().unwrap_or(0xFF),
            Src::Flag => self.chip.read_flag_status().unwrap_or(0xFF),
            Src::Mem(a) => {
                self.src = Src::Mem(a.wrapping_add(1) % self.chip.size());
                if self.chip.busy() || self.chip.is_dead() {
                    0xFF
                } else {
                    let mut b = [0u8; 1];
                    self.chip.peek(a, &mut b);
                    b[0]
                }
            }
        }
    }

    fn start_out(&mut self, src: Src, quad: bool) {
        self.src = src;
        self.quad = quad;
        self.phase = Phase::Out;
        self.out_bits_left = 0;
    }

    fn decode_opcode(&mut self) {
        self.commands += 1;
        self.phase = match self.opcode {
            0x9F => {
                self.start_out(Src::Id(0), false);
                return;
            }
            0x05 => {
                self.start_out(Src::Status, false);
                return;
            }
            0x70 => {
                self.start_out(Src::Flag, false);
                return;
            }
            0x06 | 0x04 | 0xB7 => Phase::Wait,
            0x01 => Phase::DataIn,
            0x13 | 0x0C | 0x6C | 0x12 | 0x34 | 0xDC | 0x21 => Phase::Addr,
            _ => Phase::Wait,
        };
        self.shift = 0;
        self.bits = 0;
        self.data.clear();
    }

    fn after_addr(&mut self) {
        self.phase = match self.opcode {
            0x13 => {
                self.start_out(Src::Mem(self.addr), false);
                return;
            }
            0x0C | 0x6C => Phase::Dummy(8),
            0x12 | 0x34 => Phase::DataIn,
            _ => Phase::Wait,
        };
        self.shift = 0;
        self.bits = 0;
    }

    /// CS# rose: commit the command.
    fn commit(&mut self) {
        let r = match self.opcode {
            0x06 if self.phase == Phase::Wait => self.chip.write_enable(),
            0x04 if self.phase == Phase::Wait => self.chip.write_disable(),
            0x01 if !self.data.is_empty() => self.chip.write_status(self.data[0]),
            0x12 | 0x34 if self.phase == Phase::DataIn && !self.data.is_empty() => {
                let d = std::mem::take(&mut self.data);
                self.chip.page_program(self.addr, &d)
            }
            0xDC if self.phase == Phase::Wait => self.chip.erase_64k(self.addr),
            0x21 if self.phase == Phase::Wait => self.chip.erase_4k(self.addr),
            _ => Ok(()),
        };
        // a refused command (no WREN, protected, busy) is ignored by the part; its error bits
        // are in the flag status register where the controller reads them
        let _ = r;
    }

    fn rising(&mut self, dq_o: u8) {
        match self.phase {
            Phase::Opcode => {
                self.shift = (self.shift << 1) | (dq_o as u32 & 1);
                self.bits += 1;
                if self.bits == 8 {
                    self.opcode = self.shift as u8;
                    self.decode_opcode();
                }
            }
            Phase::Addr => {
                self.shift = (self.shift << 1) | (dq_o as u32 & 1);
                self.bits += 1;
                if self.bits == 32 {
                    self.addr = self.shift % self.chip.size();
                    self.after_addr();
                }
            }
            Phase::Dummy(n) => {
                if n <= 1 {
                    let quad = self.opcode == 0x6C;
                    self.start_out(Src::Mem(self.addr), quad);
                } else {
                    self.phase = Phase::Dummy(n - 1);
                }
            }
            Phase::DataIn => {
                let quad = self.quad_in();
                if quad {
                    self.shift = (self.shift << 4) | (dq_o as u32 & 0xF);
                    self.bits += 4;
                } else {
                    self.shift = (self.shift << 1) | (dq_o as u32 & 1);
                    self.bits += 1;
                }
                if self.bits == 8 {
                    self.data.push(self.shift as u8);
                    self.shift = 0;
                    self.bits = 0;
                }
            }
            Phase::Idle | Phase::Out | Phase::Wait => {}
        }
    }

    fn falling(&mut self) {
        if self.phase != Phase::Out {
            return;
        }
        if self.out_bits_left == 0 {
            self.out_byte = self.next_out_byte();
            self.out_bits_left = 8;
        }
        if self.quad {
            self.out_bits_left -= 4;
            self.dq_i = (self.out_byte >> self.out_bits_left) & 0xF;
        } else {
            self.out_bits_left -= 1;
            let bit = (self.out_byte >> self.out_bits_left) & 1;
            // single-line output on DQ1 (MISO); the other lines float high (pull-ups)
            self.dq_i = 0xD | (bit << 1);
        }
    }

    /// One core cycle: the controller's pins in, `qspi_dq_i[3:0]` out. `dq_oe` marks the lines the
    /// controller drives; where both drive, the controller's value is what the line carries.
    pub fn cycle(&mut self, clk: bool, cs_n: bool, dq_o: u8, dq_oe: u8) -> u8 {
        let _ = self.chip.advance(self.ns_per_cycle);
        if cs_n && !self.prev_cs_n {
            self.commit();
            self.phase = Phase::Idle;
            self.dq_i = 0xF;
        } else if !cs_n && self.prev_cs_n {
            self.phase = Phase::Opcode;
            self.shift = 0;
            self.bits = 0;
            self.opcode = 0;
            self.data.clear();
        }
        if !cs_n {
            if clk && !self.prev_clk {
                self.rising(dq_o);
            } else if !clk && self.prev_clk {
                self.falling();
            }
        }
        self.prev_clk = clk;
        self.prev_cs_n = cs_n;
        (self.dq_i & !dq_oe) | (dq_o & dq_oe)
    }
}

#[cfg(test)]
mod tests {
    use super::super::nor::{NorFlash, Timing};
    use super::*;

    /// A SPI mode-0 master generating the pin waveform core cycle by core cycle (the controller's
    /// side), at core clock / (2 * (div + 1)).
    struct Master {
        pins: QspiPins,
        half: u32,
        cycles: u64,
    }

    impl Master {
        fn tick(&mut self, clk: bool, cs_n: bool, o: u8, oe: u8) -> u8 {
            self.cycles += 1;
            self.pins.cycle(clk, cs_n, o, oe)
        }
        fn idle(&mut self, n: u32) {
            for _ in 0..n {
                self.tick(false, true, 0, 0);
            }
        }
        /// One SPI clock: drive `o` during the low half, sample on the rising edge.
        fn clock(&mut self, o: u8, oe: u8) -> u8 {
            for _ in 0..self.half {
                self.tick(false, false, o, oe);
            }
            let v = self.tick(true, false, o, oe);
            for _ in 1..self.half {
                self.tick(true, false, o, oe);
            }
            v
        }
        fn send_byte(&mut self, b: u8) {
            for i in (0..8).rev() {
                self.clock((b >> i) & 1, 0x1);
            }
        }
        fn send_quad(&mut self, b: u8) {
            self.clock(b >> 4, 0xF);
            self.clock(b & 0xF, 0xF);
        }
        fn recv_byte(&mut self) -> u8 {
            let mut v = 0;
            for _ in 0..8 {
                v = (v << 1) | ((self.clock(0, 0) >> 1) & 1);
            }
            v
        }
        fn recv_quad(&mut self) -> u8 {
            let hi = self.clock(0, 0) & 0xF;
            let lo = self.clock(0, 0) & 0xF;
            (hi << 4) | lo
        }
        fn begin(&mut self) {
            self.tick(false, false, 0, 0);
        }
        fn end(&mut self) {
            self.tick(false, false, 0, 0);
            self.idle(3);
        }
        fn cmd(&mut self, op: u8) {
            self.begin();
            self.send_byte(op);
            self.end();
        }
        fn cmd_addr(&mut self, op: u8, addr: u32) {
            self.begin();
            self.send_byte(op);
            for s in [24, 16, 8, 0] {
                self.send_byte((addr >> s) as u8);
            }
        }
        fn status(&mut self) -> u8 {
            self.begin();
            self.send_byte(0x05);
            let v = self.recv_byte();
            self.end();
            v
        }
        fn wait_ready(&mut self) -> u32 {
            let mut polls = 0;
            while self.status() & 1 != 0 {
                polls += 1;
                assert!(polls < 100_000, "stays busy");
            }
            polls
        }
    }

    fn master() -> Master {
        // fast erase times so the waveform stays short; the protocol is what is tested
        let t = Timing {
            page_program_ns: 20_000,
            erase_4k_ns: 50_000,
            erase_64k_ns: 80_000,
            write_status_ns: 10_000,
        };
        Master {
            pins: QspiPins::new(NorFlash::new(128 << 20, [0x20, 0xBB, 0x21], t), 4),
            half: 3,
            cycles: 0,
        }
    }

    #[test]
    fn read_id_program_read_erase_at_the_pins() {
        let mut m = master();
        m.idle(4);
        m.begin();
        m.send_byte(0x9F);
        let id = [m.recv_byte(), m.recv_byte(), m.recv_byte()];
        m.end();
        assert_eq!(id, [0x20, 0xBB, 0x21]);

        // WREN, then quad input page program of 256 bytes at a 4-byte address
        m.cmd(0x06);
        assert_eq!(m.status() & 0x02, 0x02, "WEL set");
        let addr = 0x0512_3400u32;
        let data: Vec<u8> = (0..256u32).map(|i| (i * 37 + 11) as u8).collect();
        m.cmd_addr(0x34, addr);
        for &b in &data {
            m.send_quad(b);
        }
        m.end();
        assert_eq!(m.status() & 0x01, 0x01, "busy after CS# rise");
        let polls = m.wait_ready();
        assert!(polls > 0);
        // quad output fast read back
        m.cmd_addr(0x6C, addr);
        for _ in 0..8 {
            m.clock(0, 0); // dummy clocks
        }
        let back: Vec<u8> = (0..256).map(|_| m.recv_quad()).collect();
        m.end();
        assert_eq!(back, data);
        // single-line read of the same bytes
        m.cmd_addr(0x13, addr + 10);
        let b2 = [m.recv_byte(), m.recv_byte()];
        m.end();
        assert_eq!(b2, [data[10], data[11]]);

        // program without WREN is ignored
        m.cmd_addr(0x12, addr + 256);
        m.send_byte(0x00);
        m.end();
        m.cmd_addr(0x13, addr + 256);
        assert_eq!(m.recv_byte(), 0xFF);
        m.end();

        // subsector erase
        m.cmd(0x06);
        m.cmd_addr(0x21, addr);
        m.end();
        m.wait_ready();
        m.cmd_addr(0x0C, addr);
        for _ in 0..8 {
            m.clock(0, 0);
        }
        assert_eq!(m.recv_byte(), 0xFF);
        m.end();

        // protect the top 64 KB sector (BP = 1, TB = 0), then a program there is refused and the
        // flag status register says so
        m.cmd(0x06);
        m.begin();
        m.send_byte(0x01);
        m.send_byte(0x04);
        m.end();
        m.wait_ready();
        m.cmd(0x06);
        m.cmd_addr(0x12, 0x07FF_FF00);
        m.send_byte(0x00);
        m.end();
        m.begin();
        m.send_byte(0x70);
        let fsr = m.recv_byte();
        m.end();
        assert_eq!(fsr & 0x12, 0x12, "program + protection error: {fsr:#x}");
        assert!(m.cycles > 10_000);
    }
}
