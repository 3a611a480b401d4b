//! [`FlashDevice`] over the FLASH register block (BAR0 0x0800, notes flash.md) through any
//! [`Backend`]: the Verilated card and a real card once the flash controller is in their bitstream,
//! or the `mem` backend with [`super::ctrl_model`] playing the controller.
//!
//! Offsets are those of flash.md; when the RTL side adds block FLASH to hdl/contract/tsnic.toml, the
//! generated `contract::reg::FLASH_*` constants must equal these (the lead switches them at merge).

use super::layout::PAGE;
use super::model::{check_align, check_page};
use super::{BootState, FlashCap, FlashDevice, FlashError, Result, FSR_PROT_ERR};
use crate::device::Backend;

/// Block base.
pub const FLASH_BASE: usize = 0x0800;
/// FLASH_CAP.
pub const FLASH_CAP: usize = FLASH_BASE;
/// FLASH_CMD.
pub const FLASH_CMD: usize = FLASH_BASE + 0x04;
/// FLASH_ADDR.
pub const FLASH_ADDR: usize = FLASH_BASE + 0x08;
/// FLASH_LEN.
pub const FLASH_LEN: usize = FLASH_BASE + 0x0C;
/// FLASH_STATUS.
pub const FLASH_STATUS: usize = FLASH_BASE + 0x10;
/// FLASH_DATA.
pub const FLASH_DATA: usize = FLASH_BASE + 0x14;
/// FLASH_JEDEC_ID.
pub const FLASH_JEDEC_ID: usize = FLASH_BASE + 0x18;
/// FLASH_SR.
pub const FLASH_SR: usize = FLASH_BASE + 0x1C;
/// FLASH_DATA_SR.
pub const FLASH_DATA_SR: usize = FLASH_BASE + 0x20;
/// FLASH_BOOT_WBSTAR.
pub const FLASH_BOOT_WBSTAR: usize = FLASH_BASE + 0x24;
/// FLASH_BOOT_STATUS.
pub const FLASH_BOOT_STATUS: usize = FLASH_BASE + 0x28;
/// FLASH_CLK_DIV.
pub const FLASH_CLK_DIV: usize = FLASH_BASE + 0x2C;

/// FLASH_CMD ops.
pub mod op {
    /// READ_ID.
    pub const READ_ID: u32 = 1;
    /// READ.
    pub const READ: u32 = 2;
    /// PROGRAM.
    pub const PROGRAM: u32 = 3;
    /// ERASE_64K.
    pub const ERASE_64K: u32 = 4;
    /// ERASE_4K.
    pub const ERASE_4K: u32 = 5;
    /// READ_STATUS.
    pub const READ_STATUS: u32 = 6;
    /// WRITE_STATUS.
    pub const WRITE_STATUS: u32 = 7;
    /// IPROG.
    pub const IPROG: u32 = 8;
    /// FIFO_RESET.
    pub const FIFO_RESET: u32 = 9;
}

/// FLASH_STATUS bits.
pub const ST_BUSY: u32 = 1;
/// Last command failed.
pub const ST_ERROR: u32 = 2;
/// Read FIFO empty.
pub const ST_RD_EMPTY: u32 = 4;
/// Write FIFO full.
pub const ST_WR_FULL: u32 = 8;

/// How long to wait before the first poll, between polls and at most, per command (ns): typical
/// time, a tenth of it, and well past the datasheet maximum.
fn waits(op: u32) -> (u64, u64, u64) {
    match op {
        op::PROGRAM => (130_000, 10_000, 50_000_000),
        op::ERASE_4K => (50_000_000, 5_000_000, 4_000_000_000),
        op::ERASE_64K => (150_000_000, 15_000_000, 10_000_000_000),
        op::WRITE_STATUS => (1_300_000, 200_000, 200_000_000),
        _ => (12_000, 2_000, 10_000_000),
    }
}

fn op_name(op: u32) -> &'static str {
    match op {
        op::READ_ID => "READ_ID",
        op::READ => "READ",
        op::PROGRAM => "PROGRAM",
        op::ERASE_64K => "ERASE_64K",
        op::ERASE_4K => "ERASE_4K",
        op::READ_STATUS => "READ_STATUS",
        op::WRITE_STATUS => "WRITE_STATUS",
        op::IPROG => "IPROG",
        _ => "FIFO_RESET",
    }
}

/// The flash through the card's FLASH registers.
pub struct RegFlash<'a> {
    b: &'a mut dyn Backend,
    accesses: u64,
    reads: u64,
    len: Option<u32>,
    fifos_reset: bool,
    name: String,
}

impl<'a> RegFlash<'a> {
    /// Over a backend (the card is already open and identified).
    pub fn new(b: &'a mut dyn Backend) -> RegFlash<'a> {
        let name = format!("FLASH registers of {}", b.describe());
        RegFlash {
            b,
            accesses: 0,
            reads: 0,
            len: None,
            fifos_reset: false,
            name,
        }
    }

    /// Register (reads, writes) so far.
    pub fn counts(&self) -> (u64, u64) {
        (self.reads, self.accesses - self.reads)
    }

    fn rd(&mut self, off: usize) -> u32 {
        self.accesses += 1;
        self.reads += 1;
        self.b.read32(off)
    }

    fn wr(&mut self, off: usize, v: u32) {
        self.accesses += 1;
        self.b.write32(off, v)
    }

    /// Empty both FIFOs once before the first data command (an earlier command may have been
    /// interrupted with words left in them).
    fn fifo_reset_once(&mut self) -> Result<()> {
        if !self.fifos_reset {
            self.fifos_reset = true;
            self.run(op::FIFO_RESET)?;
        }
        Ok(())
    }

    fn set_len(&mut self, n: u32) {
        if self.len != Some(n) {
            self.wr(FLASH_LEN, n);
            self.len = Some(n);
        }
    }

    /// Issue a command and wait until the controller is idle; errors carry FLASH_SR.
    fn run(&mut self, cmd: u32) -> Result<()> {
        let (first, every, max) = waits(cmd);
        self.wr(FLASH_CMD, cmd);
        let t0 = self.b.now_ns();
        self.b.wait_ns(first)?;
        loop {
            let st = self.rd(FLASH_STATUS);
            if st & ST_BUSY == 0 {
                if st & ST_ERROR != 0 {
                    let sr = self.rd(FLASH_SR);
                    if (sr >> 8) as u8 & FSR_PROT_ERR != 0 {
                        let addr = self.rd(FLASH_ADDR);
                        return Err(FlashError::Protected { addr, sr: sr as u8 });
                    }
                    return Err(FlashError::Controller {
                        what: op_name(cmd).into(),
                        status: st,
                        sr,
                    });
                }
                return Ok(());
            }
            if self.b.now_ns().saturating_sub(t0) > max {
                return Err(FlashError::Timeout {
                    what: op_name(cmd).into(),
                    ms: max / 1_000_000,
                });
            }
            self.b.wait_ns(every)?;
        }
    }
}

impl FlashDevice for RegFlash<'_> {
    fn describe(&self) -> String {
        self.name.clone()
    }

    fn cap(&mut self) -> Result<FlashCap> {
        let v = self.rd(FLASH_CAP);
        FlashCap::from_reg(v)
    }

    fn read_id(&mut self) -> Result<[u8; 3]> {
        self.run(op::READ_ID)?;
        let v = self.rd(FLASH_JEDEC_ID);
        Ok([v as u8, (v >> 8) as u8, (v >> 16) as u8])
    }

    fn read(&mut self, addr: u32, buf: &mut [u8]) -> Result<()> {
        self.fifo_reset_once()?;
        let mut a = addr;
        for chunk in buf.chunks_mut(PAGE as usize) {
            self.wr(FLASH_ADDR, a);
            self.set_len(chunk.len() as u32);
            self.run(op::READ)?;
            for w in chunk.chunks_mut(4) {
                let v = self.rd(FLASH_DATA).to_le_bytes();
                w.copy_from_slice(&v[..w.len()]);
            }
            a = a.wrapping_add(chunk.len() as u32);
        }
        Ok(())
    }

    fn program_page(&mut self, addr: u32, data: &[u8]) -> Result<()> {
        check_page(addr, data.len())?;
        self.fifo_reset_once()?;
        self.wr(FLASH_ADDR, addr);
        self.set_len(data.len() as u32);
        for w in data.chunks(4) {
            let mut b = [0xFF; 4];
            b[..w.len()].copy_from_slice(w);
            self.wr(FLASH_DATA, u32::from_le_bytes(b));
        }
        self.run(op::PROGRAM)
    }

    fn erase_4k(&mut self, addr: u32) -> Result<()> {
        check_align(addr, super::layout::SUBSECTOR)?;
        self.wr(FLASH_ADDR, addr);
        self.run(op::ERASE_4K)
    }

    fn erase_64k(&mut self, addr: u32) -> Result<()> {
        check_align(addr, super::layout::SECTOR)?;
        self.wr(FLASH_ADDR, addr);
        self.run(op::ERASE_64K)
    }

    fn status(&mut self) -> Result<(u8, u8)> {
        self.run(op::READ_STATUS)?;
        let v = self.rd(FLASH_SR);
        Ok((v as u8, (v >> 8) as u8))
    }

    fn write_status(&mut self, sr: u8) -> Result<()> {
        self.wr(FLASH_DATA_SR, sr as u32);
        self.run(op::WRITE_STATUS)
    }

    fn iprog(&mut self, addr: u32) -> Result<()> {
        self.wr(FLASH_ADDR, addr);
        // the card reconfigures: no status to wait for (on a real card the link goes down)
        self.wr(FLASH_CMD, op::IPROG);
        Ok(())
    }

    fn boot_state(&mut self) -> Result<BootState> {
        let w = self.rd(FLASH_BOOT_WBSTAR);
        let s = self.rd(FLASH_BOOT_STATUS);
        Ok(BootState::from_regs(w, s))
    }

    fn reg_accesses(&self) -> Option<u64> {
        Some(self.accesses)
    }

    fn sim_ns(&self) -> Option<u64> {
        None
    }
}
