//! A Rust model of the flash controller's register block (notes flash.md) in front of the flash
//! model, as a [`RegHook`] of the `mem` backend. It lets [`super::regs::RegFlash`] — the code that
//! will drive the RTL controller — run end to end today (`tsnic flash --backend mem`), and counts
//! what the register interface costs. It keeps the agreed semantics: one command at a time (a
//! command while BUSY is ignored and sets ERROR), 256-byte FIFOs of 32-bit words (byte at the lower
//! address in bits 7:0), PROGRAM of LEN bytes not crossing a page, BUSY until the part is ready.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

use super::model::ModelCard;
use super::regs::*;
use super::{FlashDevice, FlashError};
use crate::device::mem::RegHook;

/// FIFO depth in bytes.
pub const FIFO_BYTES: usize = 256;

/// The controller model.
pub struct CtrlModel {
    card: Rc<RefCell<ModelCard>>,
    addr: u32,
    len: u32,
    data_sr: u32,
    jedec: u32,
    sr: u32,
    error: bool,
    busy_until: u64,
    rd: VecDeque<u8>,
    wr: VecDeque<u8>,
    clk_div: u32,
    /// Host time of the first access, and the chip time then.
    origin: Option<(u64, u64)>,
}

impl CtrlModel {
    /// A controller in front of `card`.
    pub fn new(card: Rc<RefCell<ModelCard>>) -> CtrlModel {
        CtrlModel {
            card,
            addr: 0,
            len: 0,
            data_sr: 0,
            jedec: 0,
            sr: 0,
            error: false,
            busy_until: 0,
            rd: VecDeque::new(),
            wr: VecDeque::new(),
            clk_div: 2, // 250 MHz / (2 * 3) = 41.7 MHz <= 50 MHz
            origin: None,
        }
    }

    /// Bring the part's clock up to host time `now`; returns the chip time.
    fn sync(&mut self, now: u64) -> u64 {
        let mut c = self.card.borrow_mut();
        let (h0, c0) = *self.origin.get_or_insert((now, c.chip.now()));
        let target = c0 + now.saturating_sub(h0);
        let cur = c.chip.now();
        if target > cur {
            c.chip.advance(target - cur).ok();
        }
        target
    }

    fn status(&self, t: u64) -> u32 {
        let busy = t < self.busy_until;
        (busy as u32)
            | (self.error as u32) << 1
            | (self.rd.is_empty() as u32) << 2
            | ((self.wr.len() >= FIFO_BYTES) as u32) << 3
            | ((self.rd.len().div_ceil(4) as u32) << 8)
            | ((self.wr.len().div_ceil(4) as u32) << 16)
    }

    fn exec(&mut self, cmd: u32, t: u64) {
        let mut c = self.card.borrow_mut();
        let c = &mut *c;
        let r: Result<(), FlashError> = (|| {
            match cmd & 0xF {
                op::READ_ID => {
                    let id = c.read_id()?;
                    self.jedec = id[0] as u32 | (id[1] as u32) << 8 | (id[2] as u32) << 16;
                }
                op::READ => {
                    if !(1..=256).contains(&self.len) {
                        return Err(FlashError::BadArgument("LEN".into()));
                    }
                    let mut b = vec![0u8; self.len as usize];
                    c.read(self.addr, &mut b)?;
                    self.rd.clear();
                    self.rd.extend(b);
                }
                op::PROGRAM => {
                    let n = self.len as usize;
                    if !(1..=256).contains(&n) || self.wr.len() < n {
                        return Err(FlashError::BadArgument("LEN".into()));
                    }
                    let data: Vec<u8> = self.wr.drain(..n).collect();
                    // the rest of the last word is discarded
                    let pad = (4 - n % 4) % 4;
                    self.wr.drain(..pad.min(self.wr.len()));
                    c.program_page(self.addr, &data)?;
                }
                op::ERASE_64K => c.erase_64k(self.addr & !0xFFFF)?,
                op::ERASE_4K => c.erase_4k(self.addr & !0xFFF)?,
                op::READ_STATUS => {
                    let (s, f) = c.status()?;
                    self.sr = s as u32 | (f as u32) << 8;
                }
                op::WRITE_STATUS => c.write_status(self.data_sr as u8)?,
                op::IPROG => c.iprog(self.addr)?,
                op::FIFO_RESET => {
                    self.rd.clear();
                    self.wr.clear();
                }
                _ => return Err(FlashError::BadArgument("op".into())),
            }
            Ok(())
        })();
        // every command ends with a status poll: FLASH_SR holds its result
        if let (Ok(s), Ok(f)) = (c.chip.read_status(), c.chip.read_flag_status()) {
            if cmd & 0xF != op::READ_STATUS {
                self.sr = s as u32 | (f as u32) << 8;
            }
        }
        self.error = r.is_err();
        // IPROG reconfigures the FPGA: the new design's controller starts idle
        self.busy_until = if cmd & 0xF == op::IPROG {
            t
        } else {
            c.chip.now()
        };
    }
}

impl RegHook for CtrlModel {
    fn read32(&mut self, offset: usize, now_ns: u64) -> Option<u32> {
        if !(FLASH_BASE..FLASH_BASE + 0x30).contains(&offset) {
            return None;
        }
        let t = self.sync(now_ns);
        Some(match offset {
            FLASH_CAP => {
                let mut c = self.card.borrow_mut();
                c.cap().map(|c| c.to_reg()).unwrap_or(0)
            }
            FLASH_ADDR => self.addr,
            FLASH_LEN => self.len,
            FLASH_STATUS => self.status(t),
            FLASH_DATA => {
                let mut b = [0u8; 4];
                for x in &mut b {
                    *x = self.rd.pop_front().unwrap_or(0);
                }
                u32::from_le_bytes(b)
            }
            FLASH_JEDEC_ID => self.jedec,
            FLASH_SR => self.sr,
            FLASH_DATA_SR => self.data_sr,
            FLASH_BOOT_WBSTAR => self
                .card
                .borrow_mut()
                .boot_state()
                .map(|b| b.wbstar)
                .unwrap_or(0),
            FLASH_BOOT_STATUS => self
                .card
                .borrow_mut()
                .boot_state()
                .map(|b| b.to_reg())
                .unwrap_or(0),
            FLASH_CLK_DIV => self.clk_div,
            _ => 0,
        })
    }

    fn write32(&mut self, offset: usize, value: u32, now_ns: u64) -> bool {
        if !(FLASH_BASE..FLASH_BASE + 0x30).contains(&offset) {
            return false;
        }
        let t = self.sync(now_ns);
        match offset {
            FLASH_CMD => {
                if t < self.busy_until {
                    self.error = true;
                } else {
                    self.exec(value, t);
                }
            }
            FLASH_ADDR => self.addr = value,
            FLASH_LEN => self.len = value,
            FLASH_DATA => {
                if self.wr.len() + 4 <= FIFO_BYTES {
                    self.wr.extend(value.to_le_bytes());
                } else {
                    self.error = true;
                }
            }
            FLASH_DATA_SR => self.data_sr = value & 0xFF,
            FLASH_CLK_DIV => self.clk_div = value,
            _ => {}
        }
        true
    }
}

/// A `mem` backend whose FLASH block is this controller in front of `card`.
pub fn mem_backend(card: Rc<RefCell<ModelCard>>) -> crate::device::mem::MemBackend {
    crate::device::mem::MemBackend::new_identity().with_hook(Box::new(CtrlModel::new(card)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::Backend;
    use crate::flash::layout::Board;

    #[test]
    fn protected_erase_reports_protection() {
        let card = Rc::new(RefCell::new(ModelCard::factory(Board::U50)));
        let mut mem = mem_backend(card.clone());
        mem.write32(FLASH_ADDR, 0);
        mem.write32(FLASH_CMD, op::ERASE_64K);
        mem.wait_ns(1_000_000_000).unwrap();
        let st = mem.read32(FLASH_STATUS);
        let sr = mem.read32(FLASH_SR);
        assert_eq!(st & 3, ST_ERROR, "{st:#x}");
        assert_eq!((sr >> 8) & 0x22, 0x22, "{sr:#x}");
    }
}
