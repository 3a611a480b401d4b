//! The configuration flash: layout and boot record, image tools, the update procedure behind
//! `tsnic flash`, and the devices it runs on (docs/FIRMWARE.md).
//!
//! [`FlashDevice`] is the command-level seam: read the JEDEC ID, read, program a page, erase a 4 KB or
//! 64 KB block, status, IPROG, boot status. Two implementations:
//! - [`regs::RegFlash`]: the FLASH register block at BAR0 0x0800 through any [`crate::device::Backend`]
//!   (the Verilated card and a real card once the flash controller RTL is in; [`ctrl_model`] is a
//!   Rust model of that controller so the register path runs today);
//! - [`model::ModelCard`]: a pure Rust model of the MT25QU01G-class NOR part ([`nor::NorFlash`]) and of
//!   the FPGA's configuration logic ([`config`]), kept in a file between commands.
//!
//! [`pins::QspiPins`] drives the NOR model from the controller's quad-SPI pins, cycle by cycle.

use thiserror::Error;

pub mod config;
pub mod ctrl_model;
pub mod image;
pub mod layout;
pub mod model;
pub mod nor;
pub mod pins;
pub mod record;
pub mod regs;
#[cfg(feature = "sim")]
pub mod sim_pins;
pub mod update;

pub use layout::{Board, Layout, Slot};

/// JEDEC ID of the Micron MT25QU01G: manufacturer, memory type, capacity.
pub const MT25QU01G_ID: [u8; 3] = [0x20, 0xBB, 0x21];

/// Errors of the flash devices and the update procedure. Each says what to do.
#[derive(Debug, Error)]
pub enum FlashError {
    /// The image was refused (nothing written).
    #[error("{0}; nothing was written")]
    Image(#[from] image::ImageError),
    /// The card's flash is not reachable from the host.
    #[error("the configuration flash of this {board} card sits behind its CPLD and cannot be written over PCIe: program it over JTAG (docs/FIRMWARE.md, \"NetFPGA SUME\"); nothing was written")]
    NotWritable {
        /// Board.
        board: String,
    },
    /// No flash controller in the bitstream.
    #[error("this card has no flash controller (FLASH_CAP at BAR0 0x0800 reads {cap:#010x}): its bitstream predates the FLASH register block; load a bitstream with it, or use the flash model (`--backend model`)")]
    NoController {
        /// What FLASH_CAP read.
        cap: u32,
    },
    /// BOARD_ID unknown.
    #[error("FLASH_CAP names board id {0}, which this driver does not know: update the driver")]
    UnknownBoard(u8),
    /// The part answered with an unexpected ID.
    #[error("the flash answers JEDEC ID {found}, expected {expected} (MT25QU01G): wrong part or no flash on the SPI pins; nothing was written")]
    WrongFlash {
        /// What it answered.
        found: String,
        /// What the layout needs.
        expected: String,
    },
    /// Writing golden without the flag.
    #[error("refusing to write the golden image: it is tsnic's boot selector, the image AMD's factory image starts at every power-up; a bad one leaves the card in the factory image (no tsnic registers) until it is reprogrammed with AMD's tools or over JTAG; if you mean it, add --i-know-this-can-brick-the-card-golden; nothing was written")]
    GoldenNeedsFlag,
    /// An erase or program would touch AMD's factory region (or run past the part).
    #[error("refusing to change {addr:#010x}..{end:#010x}: below {factory_end:#010x} is AMD's factory image, which the card loads at power-up and falls back to, and tsnic never writes it; write your image to a slot (`tsnic flash write IMAGE --slot A`), and restore a damaged factory image only with AMD's tools or over JTAG; nothing was written there")]
    FactoryRegion {
        /// First byte.
        addr: u32,
        /// One past the last byte.
        end: u64,
        /// End of the factory region.
        factory_end: u32,
    },
    /// The card runs AMD's factory image: tsnic's FLASH registers are not there.
    #[error("the card runs AMD's factory image (address 0), not a tsnic image: {why}; tsnic's registers are not there, so `tsnic flash` cannot reach the flash. Power-cycle the card (it runs the boot record's choice again); if it lands in the factory image again, the record's image does not configure: load a tsnic user bitstream over JTAG (board/common/vivado/program.tcl fpga), then `tsnic flash boot A|B --default` to the good slot or rewrite the bad one (docs/FIRMWARE.md, \"Power-up chain and fallback\")")]
    FactoryImage {
        /// What made it fall back.
        why: String,
    },
    /// Writing the slot that the boot record selects.
    #[error("slot {slot} is the slot the boot record selects{running}: writing it would leave no known-good user image while it is being written; write slot {other} (the default), or first make {other} the default with `tsnic flash boot {other} --default`; nothing was written")]
    ActiveSlot {
        /// Slot.
        slot: Slot,
        /// The other.
        other: Slot,
        /// " and the one running" or "".
        running: &'static str,
    },
    /// A program or erase address is out of range or misaligned (a driver bug or bad input).
    #[error("bad flash command: {0}")]
    BadArgument(String),
    /// The part refused a program/erase in a protected area.
    #[error("the flash refused to change {addr:#010x}: it is write-protected (status register BP bits {sr:#04x}); the golden area is protected in normal use")]
    Protected {
        /// Address.
        addr: u32,
        /// The status register.
        sr: u8,
    },
    /// The controller flagged a command failure.
    #[error("the flash controller reports a failed command ({what}; FLASH_STATUS {status:#010x}, FLASH_SR {sr:#06x}): retry; if it persists, power-cycle the host")]
    Controller {
        /// What was run.
        what: String,
        /// FLASH_STATUS.
        status: u32,
        /// FLASH_SR.
        sr: u32,
    },
    /// The controller stayed busy.
    #[error("the flash stayed busy for {ms} ms during {what}: the card may have lost power or its flash controller hangs; power-cycle and run `tsnic flash verify`")]
    Timeout {
        /// Command.
        what: String,
        /// How long.
        ms: u64,
    },
    /// The read-back differs.
    #[error("verify failed: slot {slot} differs from the image at {addr:#010x} (read-back/sha256 mismatch); the boot record was not switched; write it again, and if it fails again the flash may be worn")]
    VerifyFailed {
        /// Slot.
        slot: Slot,
        /// First bad address.
        addr: u32,
    },
    /// The model lost power (power-cut tests).
    #[error("the simulated card lost power")]
    PowerLost,
    /// The model flash file cannot be used.
    #[error("the flash model file {path}: {why}")]
    ModelFile {
        /// Path.
        path: String,
        /// What is wrong.
        why: String,
    },
    /// A device (backend) error.
    #[error(transparent)]
    Device(#[from] crate::device::DeviceError),
}

/// Result alias.
pub type Result<T> = std::result::Result<T, FlashError>;

/// FLASH_CAP decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct FlashCap {
    /// Board.
    pub board: Board,
    /// The host can write the flash.
    pub writable: bool,
    /// Flash size in bytes.
    pub size: u64,
    /// The running design was built as the golden image.
    pub image_golden: bool,
}

impl FlashCap {
    /// Encode as FLASH_CAP.
    pub fn to_reg(&self) -> u32 {
        self.board.id() as u32
            | (self.writable as u32) << 8
            | (self.size.trailing_zeros()) << 16
            | (self.image_golden as u32) << 24
    }
    /// Decode FLASH_CAP; errors on a card without the block or an unknown board.
    pub fn from_reg(v: u32) -> Result<FlashCap> {
        let log2 = (v >> 16) & 0xFF;
        if v == 0 || v == u32::MAX || !(20..=32).contains(&log2) {
            return Err(FlashError::NoController { cap: v });
        }
        let id = (v & 0xFF) as u8;
        Ok(FlashCap {
            board: Board::from_id(id).ok_or(FlashError::UnknownBoard(id))?,
            writable: v & (1 << 8) != 0,
            size: 1u64 << log2,
            image_golden: v & (1 << 24) != 0,
        })
    }
}

/// How the running configuration came to be (FLASH_BOOT_WBSTAR and FLASH_BOOT_STATUS).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub struct BootState {
    /// Warm-boot start address this image was configured from (0: from address 0, i.e. AMD's factory
    /// image on an Alveo card, or a JTAG load; tsnic's golden image is at 0x0100_2000).
    pub wbstar: u32,
    /// This configuration is a fallback after a failed one.
    pub fallback: bool,
    /// The golden selector issued an IPROG to this slot and it failed.
    pub golden_tried: Option<Slot>,
    /// Raw BOOTSTS bits.
    pub bootsts: u16,
}

impl BootState {
    /// Encode as FLASH_BOOT_STATUS.
    pub fn to_reg(&self) -> u32 {
        let mut v = self.fallback as u32 | (self.bootsts as u32) << 16;
        if let Some(s) = self.golden_tried {
            v |= 2 | (if s == Slot::B { 1 } else { 0 }) << 2;
        }
        v
    }
    /// Decode FLASH_BOOT_WBSTAR and FLASH_BOOT_STATUS.
    pub fn from_regs(wbstar: u32, st: u32) -> BootState {
        BootState {
            wbstar,
            fallback: st & 1 != 0,
            golden_tried: (st & 2 != 0).then_some(if st & 4 != 0 { Slot::B } else { Slot::A }),
            bootsts: (st >> 16) as u16,
        }
    }
}

/// Status register bit: write in progress.
pub const SR_WIP: u8 = 0x01;
/// Status register bit: write enable latch.
pub const SR_WEL: u8 = 0x02;
/// Flag status register bit 7: ready.
pub const FSR_READY: u8 = 0x80;
/// Flag status: erase error.
pub const FSR_ERASE_ERR: u8 = 0x20;
/// Flag status: program error.
pub const FSR_PROGRAM_ERR: u8 = 0x10;
/// Flag status: protection error.
pub const FSR_PROT_ERR: u8 = 0x02;

/// The flash at command level: what `tsnic flash` needs from a card. Program and erase return when
/// the part is no longer busy (the implementation polls).
pub trait FlashDevice {
    /// What this is, for `flash info`.
    fn describe(&self) -> String;
    /// FLASH_CAP.
    fn cap(&mut self) -> Result<FlashCap>;
    /// JEDEC ID (manufacturer, type, capacity).
    fn read_id(&mut self) -> Result<[u8; 3]>;
    /// Read `buf.len()` bytes at `addr` (any length; the implementation splits it).
    fn read(&mut self, addr: u32, buf: &mut [u8]) -> Result<()>;
    /// Program 1..=256 bytes at `addr`, within one 256-byte page (only clears bits).
    fn program_page(&mut self, addr: u32, data: &[u8]) -> Result<()>;
    /// Erase the 4 KB subsector at `addr` (aligned).
    fn erase_4k(&mut self, addr: u32) -> Result<()>;
    /// Erase the 64 KB sector at `addr` (aligned).
    fn erase_64k(&mut self, addr: u32) -> Result<()>;
    /// Status register and flag status register.
    fn status(&mut self) -> Result<(u8, u8)>;
    /// Write the status register (protection bits); WREN first.
    fn write_status(&mut self, sr: u8) -> Result<()>;
    /// Reconfigure the FPGA from warm-boot address `addr` (IPROG through ICAP). On a real card the
    /// PCIe link goes down: the host must remove and rescan the device (docs/FIRMWARE.md).
    fn iprog(&mut self, addr: u32) -> Result<()>;
    /// How the running image was configured.
    fn boot_state(&mut self) -> Result<BootState>;
    /// Simulated time spent so far (model devices), ns.
    fn sim_ns(&self) -> Option<u64> {
        None
    }
    /// Host register accesses so far (register devices).
    fn reg_accesses(&self) -> Option<u64> {
        None
    }
    /// Done: a model keeps its state for the next command.
    fn close(&mut self) -> Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cap_and_boot_status_round_trip() {
        let c = FlashCap {
            board: Board::U280,
            writable: true,
            size: 128 << 20,
            image_golden: true,
        };
        assert_eq!(c.to_reg(), 0x011B_0102);
        assert_eq!(FlashCap::from_reg(c.to_reg()).unwrap(), c);
        assert!(matches!(
            FlashCap::from_reg(0),
            Err(FlashError::NoController { .. })
        ));
        let b = BootState {
            wbstar: 0,
            fallback: true,
            golden_tried: Some(Slot::B),
            bootsts: 0x1234,
        };
        assert_eq!(BootState::from_regs(0, b.to_reg()), b);
    }
}
