//! Flash layout per board: where AMD's factory image, tsnic's golden image (its boot selector), slots
//! A and B and the two boot-record copies live.
//!
//! The three Alveo boards carry the same 1 Gb (128 MB) quad-SPI NOR part (Micron MT25QU01G class, JEDEC
//! ID 20 BB 21), so they share one layout; the simulated card (board id 0) uses it too. NetFPGA SUME's
//! configuration flash sits behind its CPLD and cannot be reached over PCIe: it has no layout here
//! (docs/FIRMWARE.md gives the JTAG path), and it shares none of this code's addresses.
//!
//! AMD ships every Alveo card with its factory ("golden") image at address 0; it loads at power-up and
//! MultiBoots (an IPROG embedded in its bitstream) to 0x0100_2000, the start of the user region
//! (UG1289, "MCS File Generation and Alveo Card Programming": user_config_region_offset 0x01002000,
//! 0x0..0x01001FFF a write-protected region; Corundum writes its images there: the Alveo Makefiles'
//! `write_cfgmem ... -loadbit {up 0x01002000 ...}` and utils/mqnic-fw.c, flash configuration 0x81,
//! segment 0 = 0..0x01002000, segment 1 = the rest). tsnic never writes below 0x0100_2000.
//!
//! ```text
//! 0x0000_0000  factory  16 MB + 8 KB  AMD's image; never written (refused in software, BP-protected)
//! 0x0100_2000  golden   16 MB - 8 KB  tsnic's boot selector image (0x00FF_E000); BP = 0b1010, TB = 1
//!                                     protects 0..0x0200_0000: the factory image and this one
//! 0x0200_0000  slot A   47.9 MB (0x02FF_0000), last 4 KB subsector = the slot's image header
//! 0x04FF_0000  slot B   47.9 MB (0x02FF_0000), last 4 KB subsector = the slot's image header
//! 0x07FE_0000  spare    64 KB
//! 0x07FF_0000  RECORD0 (4 KB subsector), 0x07FF_1000 RECORD1 (4 KB subsector)
//! ```

use std::fmt;

/// Program page size of the NOR part.
pub const PAGE: u32 = 256;
/// Subsector (4 KB erase unit).
pub const SUBSECTOR: u32 = 4096;
/// Sector (64 KB erase unit).
pub const SECTOR: u32 = 65536;

/// Size of the image header each slot keeps in its last subsector.
pub const HEADER_AREA: u32 = SUBSECTOR;

/// A board tsnic knows, as FLASH_CAP's BOARD_ID names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Board {
    /// 0: the simulated card (and any board without an id).
    Generic,
    /// 1: Alveo U50.
    U50,
    /// 2: Alveo U280.
    U280,
    /// 3: Alveo U250.
    U250,
    /// 4: NetFPGA SUME.
    Sume,
}

impl Board {
    /// From FLASH_CAP bits 7:0.
    pub fn from_id(id: u8) -> Option<Board> {
        Some(match id {
            0 => Board::Generic,
            1 => Board::U50,
            2 => Board::U280,
            3 => Board::U250,
            4 => Board::Sume,
            _ => return None,
        })
    }

    /// FLASH_CAP's BOARD_ID.
    pub fn id(self) -> u8 {
        match self {
            Board::Generic => 0,
            Board::U50 => 1,
            Board::U280 => 2,
            Board::U250 => 3,
            Board::Sume => 4,
        }
    }

    /// Short name used in file names and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Board::Generic => "generic",
            Board::U50 => "u50",
            Board::U280 => "u280",
            Board::U250 => "u250",
            Board::Sume => "sume",
        }
    }

    /// Every board.
    pub const ALL: [Board; 5] = [
        Board::Generic,
        Board::U50,
        Board::U280,
        Board::U250,
        Board::Sume,
    ];

    /// The FPGA device an image for this board must be built for (the part name's first field, as
    /// in a .bit header), or `None` for the generic board (any part).
    pub fn fpga_device(self) -> Option<&'static str> {
        match self {
            Board::Generic => None,
            Board::U50 => Some("xcu50"),
            Board::U280 => Some("xcu280"),
            Board::U250 => Some("xcu250"),
            Board::Sume => Some("xc7vx690t"),
        }
    }

    /// The full part name Vivado targets for the board (documentation and test images).
    pub fn part(self) -> &'static str {
        match self {
            Board::Generic => "xcu50-fsvh2104-2-e",
            Board::U50 => "xcu50-fsvh2104-2-e",
            Board::U280 => "xcu280-fsvh2892-2L-e",
            Board::U250 => "xcu250-figd2104-2L-e",
            Board::Sume => "xc7vx690tffg1761-3",
        }
    }

    /// Whether the host can write the configuration flash over PCIe.
    pub fn writable(self) -> bool {
        self != Board::Sume
    }

    /// The configuration flash part.
    pub fn flash_part(self) -> &'static str {
        match self {
            Board::Sume => "2x Micron PC28F00AG18FE (BPI, behind the board's CPLD)",
            _ => "Micron MT25QU01G (1 Gb, 1.8 V quad SPI, SPIx4 configuration)",
        }
    }
}

impl fmt::Display for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Board {
    type Err = String;
    fn from_str(s: &str) -> Result<Board, String> {
        Board::ALL
            .iter()
            .copied()
            .find(|b| b.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| format!("unknown board `{s}`: use generic, u50, u280, u250 or sume"))
    }
}

/// Which image tsnic manages: its golden image (the boot selector) or a user slot. AMD's factory
/// image is not one of them: tsnic never writes it ([`Layout::factory`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
pub enum Slot {
    /// tsnic's golden image: the boot selector the factory image MultiBoots to.
    Golden,
    /// User slot A.
    A,
    /// User slot B.
    B,
}

impl Slot {
    /// The other user slot (golden has none: itself).
    pub fn other(self) -> Slot {
        match self {
            Slot::A => Slot::B,
            Slot::B => Slot::A,
            Slot::Golden => Slot::Golden,
        }
    }

    /// Boot-record encoding of a user slot (0 = A, 1 = B).
    pub fn record_code(self) -> u8 {
        match self {
            Slot::A => 0,
            Slot::B => 1,
            Slot::Golden => 0xFF,
        }
    }

    /// From the boot record's `active` byte.
    pub fn from_record_code(c: u8) -> Option<Slot> {
        match c {
            0 => Some(Slot::A),
            1 => Some(Slot::B),
            0xFF => Some(Slot::Golden),
            _ => None,
        }
    }
}

impl fmt::Display for Slot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Slot::Golden => "golden",
            Slot::A => "A",
            Slot::B => "B",
        })
    }
}

impl std::str::FromStr for Slot {
    type Err = String;
    fn from_str(s: &str) -> Result<Slot, String> {
        match s.to_ascii_lowercase().as_str() {
            "a" => Ok(Slot::A),
            "b" => Ok(Slot::B),
            "golden" => Ok(Slot::Golden),
            _ => Err(format!("unknown slot `{s}`: use A, B or golden")),
        }
    }
}

/// One region of the flash.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Region {
    /// First byte.
    pub base: u32,
    /// Length in bytes.
    pub len: u32,
}

impl Region {
    /// One past the last byte.
    pub fn end(&self) -> u32 {
        self.base + self.len
    }
    /// Where the image header subsector starts (the region's last 4 KB).
    pub fn header_addr(&self) -> u32 {
        self.end() - HEADER_AREA
    }
    /// Largest image (bitstream bytes) the region holds.
    pub fn max_image(&self) -> u32 {
        self.len - HEADER_AREA
    }
}

/// The flash layout of a board.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Layout {
    /// Flash size in bytes.
    pub size: u32,
    /// AMD's factory image: loaded at power-up and after every failed configuration (fallback
    /// restarts at address 0, UG570 "Fallback MultiBoot"); tsnic never erases or programs it.
    pub factory: Region,
    /// tsnic's golden image (the boot selector), where the factory image MultiBoots to.
    pub golden: Region,
    /// Slot A.
    pub a: Region,
    /// Slot B.
    pub b: Region,
    /// RECORD0 (BOOT_BASE).
    pub record0: u32,
    /// RECORD1 (BOOT_BASE + 4096).
    pub record1: u32,
    /// Status register value in normal use: protects the factory and golden regions (BP3..0 = 1010,
    /// TB = 1: the bottom 512 sectors).
    pub protect_sr: u8,
    /// Status register value while tsnic's golden image is written: protects the factory image but
    /// for its last 8 KB (BP3..0 = 1001, TB = 1: the bottom 256 sectors, 16 MB; a BP range is a
    /// power of two of 64 KB sectors, so none ends at 0x0100_2000); those 8 KB are kept by the
    /// software guard ([`Layout::check_writable`]).
    pub golden_write_sr: u8,
}

/// Status-register value protecting the bottom 32 MB (512 sectors) of a 1 Gb MT25Q: BP3 (bit 6) = 1,
/// BP2..0 (bits 4:2) = 010, TB (bit 5) = 1.
pub const SR_PROTECT_GOLDEN_1G: u8 = 0x40 | 0x20 | 0x08;

/// Status-register value protecting the bottom 16 MB (256 sectors) of a 1 Gb MT25Q: BP3..0 = 1001,
/// TB = 1.
pub const SR_PROTECT_FACTORY_1G: u8 = 0x40 | 0x20 | 0x04;

/// End of AMD's factory region on the Alveo cards: where the factory image MultiBoots to.
pub const FACTORY_END: u32 = 0x0100_2000;

/// The 128 MB layout shared by the Alveo boards and the simulated card.
pub const LAYOUT_128M: Layout = Layout {
    size: 128 << 20,
    factory: Region {
        base: 0,
        len: FACTORY_END,
    },
    golden: Region {
        base: FACTORY_END,
        len: 0x0200_0000 - FACTORY_END,
    },
    a: Region {
        base: 0x0200_0000,
        len: 0x02FF_0000,
    },
    b: Region {
        base: 0x04FF_0000,
        len: 0x02FF_0000,
    },
    record0: 0x07FF_0000,
    record1: 0x07FF_1000,
    protect_sr: SR_PROTECT_GOLDEN_1G,
    golden_write_sr: SR_PROTECT_FACTORY_1G,
};

/// The range `[start, end)` the status register's block-protection bits (BP3..0, TB) protect on a part
/// of `size` bytes (MT25Q: BP = n > 0 protects 2^(n-1) 64 KB sectors from the top, or from the bottom
/// with TB = 1); `None` when nothing is protected.
pub fn protected_range(sr: u8, size: u32) -> Option<(u32, u32)> {
    let bp = ((sr >> 3) & 0x8) | ((sr >> 2) & 0x7);
    if bp == 0 {
        return None;
    }
    let sectors = size / SECTOR;
    let bytes = (1u32 << (bp - 1).min(31)).min(sectors) * SECTOR;
    Some(if sr & 0x20 != 0 {
        (0, bytes)
    } else {
        (size - bytes, size)
    })
}

impl Layout {
    /// The layout of a board; `None` on a board whose flash the host cannot reach (SUME).
    pub fn for_board(board: Board) -> Option<Layout> {
        if board.writable() {
            Some(LAYOUT_128M)
        } else {
            None
        }
    }

    /// A slot's region.
    pub fn region(&self, slot: Slot) -> Region {
        match slot {
            Slot::Golden => self.golden,
            Slot::A => self.a,
            Slot::B => self.b,
        }
    }

    /// tsnic may erase or program `[addr, addr + len)`: refuses anything below the end of AMD's
    /// factory region, or past the end of the part.
    pub fn check_writable(&self, addr: u32, len: u32) -> Result<(), (u32, u32)> {
        let end = addr as u64 + len as u64;
        if addr < self.factory.end() || end > self.size as u64 {
            return Err((addr, len));
        }
        Ok(())
    }

    /// Whether the status register `sr` protects the whole factory region.
    pub fn factory_protected(&self, sr: u8) -> bool {
        protected_range(sr, self.size)
            .is_some_and(|(s, e)| s <= self.factory.base && e >= self.factory.end())
    }

    /// Whether the status register `sr` protects the whole golden region.
    pub fn golden_protected(&self, sr: u8) -> bool {
        protected_range(sr, self.size)
            .is_some_and(|(s, e)| s <= self.golden.base && e >= self.golden.end())
    }

    /// Which image a warm-boot start address (WBSTAR) names.
    pub fn slot_at(&self, addr: u32) -> Option<Slot> {
        [Slot::Golden, Slot::A, Slot::B]
            .into_iter()
            .find(|s| self.region(*s).base == addr)
    }

    /// The record copy addresses.
    pub fn records(&self) -> [u32; 2] {
        [self.record0, self.record1]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_is_aligned_and_disjoint() {
        let l = LAYOUT_128M;
        // the factory image keeps AMD's region; golden starts where the factory image MultiBoots to
        assert_eq!(l.factory.base, 0);
        assert_eq!(l.factory.end(), 0x0100_2000);
        assert_eq!(l.golden.base, l.factory.end());
        assert_eq!(l.golden.base % SUBSECTOR, 0);
        assert_eq!(l.golden.len % SUBSECTOR, 0);
        for r in [l.a, l.b] {
            assert_eq!(r.base % SECTOR, 0);
            assert_eq!(r.len % SECTOR, 0);
        }
        assert_eq!(l.golden.end(), l.a.base);
        assert_eq!(l.a.end(), l.b.base);
        assert!(l.b.end() <= l.record0);
        assert_eq!(
            l.record0 % SECTOR,
            0,
            "records share a sector with no image"
        );
        assert_eq!(l.record1, l.record0 + SUBSECTOR);
        assert!(l.record1 + SUBSECTOR <= l.size);
        // a 40 MB image fits a user slot, a 15.9 MB one golden
        assert!(l.a.max_image() >= 40 << 20);
        assert!(l.golden.max_image() >= 0x00FF_D000);
        // BP = 1010 protects factory and golden and nothing of slot A
        assert_eq!(protected_range(l.protect_sr, l.size), Some((0, l.a.base)));
        assert!(l.factory_protected(l.protect_sr) && l.golden_protected(l.protect_sr));
        // while golden is written: the factory image but its last 8 KB, nothing of golden
        let (s, e) = protected_range(l.golden_write_sr, l.size).unwrap();
        assert_eq!((s, e), (0, 0x0100_0000));
        assert!(e <= l.golden.base && !l.golden_protected(l.golden_write_sr));
        assert_eq!(protected_range(0, l.size), None);
        // the software guard: nothing below the factory region's end, nothing past the part
        assert!(l.check_writable(0, 4096).is_err());
        assert!(l.check_writable(0x0100_1000, 4096).is_err());
        assert!(l.check_writable(0x0100_0000, SECTOR).is_err());
        assert!(l.check_writable(l.golden.base, 4096).is_ok());
        assert!(l.check_writable(l.record1, SUBSECTOR).is_ok());
        assert!(l.check_writable(l.size - 4096, 8192).is_err());
    }

    #[test]
    fn names_round_trip() {
        for b in Board::ALL {
            assert_eq!(b.name().parse::<Board>().unwrap(), b);
            assert_eq!(Board::from_id(b.id()), Some(b));
        }
        assert!("u55".parse::<Board>().is_err());
        assert_eq!("b".parse::<Slot>().unwrap(), Slot::B);
        assert!(Layout::for_board(Board::Sume).is_none());
    }
}
