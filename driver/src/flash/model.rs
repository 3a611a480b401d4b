//! The simulated card's flash: the NOR model ([`NorFlash`]) behind a quad-SPI controller with the
//! agreed command set (the SPI transfer times at the controller's clock), the FPGA configuration
//! model ([`super::config`]), and a file that keeps both between commands, as a card keeps its flash.
//!
//! The file (default `~/.cache/tsnic/flash-<board>.img`, `$XDG_CACHE_HOME` if set) is the raw
//! 128 MB flash image; `<file>.state.json` next to it keeps the part's non-volatile status bits and
//! what the FPGA is running (warm-boot address, fallback). A new file is a card after its first
//! JTAG flash write: AMD's factory image at address 0 and tsnic's golden image at 0x0100_2000 (both
//! synthetic), write-protected, slots and records erased. Without its state file the card is taken as
//! just powered on, with the protection bits tsnic always leaves (said in [`ModelCard::notes`]).

use std::path::{Path, PathBuf};

use super::config::{self, Running};
use super::image::{synth_data, ImageHeader};
use super::layout::{Board, Layout, Slot, PAGE, SECTOR};
use super::nor::NorFlash;
use super::{BootState, FlashCap, FlashDevice, FlashError, Result};

/// Controller SPI timing: clock and protocol (single-line opcode and 4-byte address, quad data:
/// 4-byte quad output fast read 6Ch with 8 dummy clocks, 4-byte quad input page program 34h).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct SpiTiming {
    /// SPI clock, Hz.
    pub sclk_hz: u64,
}

impl Default for SpiTiming {
    /// 50 MHz (an upper bound: the RTL's reset FLASH_CLK_DIV gives 41.7 MHz at 250 MHz).
    fn default() -> Self {
        SpiTiming {
            sclk_hz: 50_000_000,
        }
    }
}

impl SpiTiming {
    fn ns(&self, clocks: u64) -> u64 {
        (clocks * 1_000_000_000).div_ceil(self.sclk_hz)
    }
    /// One command: opcode, 4-byte address, chip-select high time (2 clocks).
    fn cmd_addr(&self) -> u64 {
        8 + 32 + 2
    }
    /// Quad output fast read of `n` bytes.
    pub fn read_ns(&self, n: usize) -> u64 {
        self.ns(self.cmd_addr() + 8 + 2 * n as u64)
    }
    /// WREN + quad input page program of `n` bytes.
    pub fn program_ns(&self, n: usize) -> u64 {
        self.ns(10 + self.cmd_addr() + 2 * n as u64)
    }
    /// WREN + erase command.
    pub fn erase_ns(&self) -> u64 {
        self.ns(10 + self.cmd_addr())
    }
    /// One busy poll (read flag status).
    pub fn poll_ns(&self) -> u64 {
        self.ns(8 + 8 + 2)
    }
}

/// The default flash file of a board.
pub fn default_path(board: Board) -> Result<PathBuf> {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .ok_or_else(|| FlashError::ModelFile {
            path: "~/.cache/tsnic".into(),
            why: "neither HOME nor XDG_CACHE_HOME is set; give --flash-file PATH".into(),
        })?;
    Ok(base
        .join("tsnic")
        .join(format!("flash-{}.img", board.name())))
}

#[derive(serde::Serialize, serde::Deserialize)]
struct SavedState {
    version: u32,
    board: String,
    sr_nv: u8,
    configured: bool,
    wbstar: u32,
    fallback: bool,
    golden_tried: Option<String>,
    bootsts: u16,
    sim_ns: u64,
    /// AMD's factory image runs (a tsnic image failed to configure).
    #[serde(default)]
    factory: bool,
    /// Why, in words.
    #[serde(default)]
    factory_why: String,
}

/// Length of the synthetic tsnic golden image of a new model card.
pub const FACTORY_GOLDEN_LEN: usize = 256 * 1024;

/// Length of the synthetic AMD factory image of a new model card.
pub const AMD_FACTORY_LEN: usize = 64 * 1024;

/// The simulated card's flash side.
pub struct ModelCard {
    /// The NOR part.
    pub chip: NorFlash,
    /// Board it plays.
    pub board: Board,
    /// Its layout (the 128 MB one; SUME has none and uses it only to refuse).
    pub layout: Layout,
    /// What the FPGA runs.
    pub running: Running,
    /// SPI timing of the controller.
    pub spi: SpiTiming,
    path: Option<PathBuf>,
    /// Held while the card is open: an exclusive lock on `<file>.lock`, so that a second command on
    /// the same flash file fails at once instead of both writing it (a real card has one flash).
    _lock: Option<std::fs::File>,
    /// What the user should know about how the card was opened (printed on stderr by the CLI).
    pub notes: Vec<String>,
    /// Why the factory image runs, when it was read from the state file.
    factory_why: String,
}

impl ModelCard {
    /// A card as shipped, in memory only (tests): AMD's factory image and tsnic's golden image (the
    /// first JTAG flash write), protection on, powered up.
    pub fn factory(board: Board) -> ModelCard {
        let layout = Layout::for_board(board).unwrap_or(super::layout::LAYOUT_128M);
        let mut chip = NorFlash::mt25qu01g();
        let amd = synth_data(AMD_FACTORY_LEN, 0xa3d0);
        let ah = ImageHeader {
            data_len: amd.len() as u32,
            sha256: super::image::sha256(&amd),
            design: "AMD factory image (synthetic, flash model)".into(),
            part: board.part().into(),
            date: "2026/01/01".into(),
            time: "00:00:00".into(),
            written_unix: 0,
        };
        chip.poke(layout.factory.base, &amd);
        chip.poke(layout.factory.header_addr(), &ah.encode());
        let data = synth_data(FACTORY_GOLDEN_LEN, 0x601d);
        let h = ImageHeader {
            data_len: data.len() as u32,
            sha256: super::image::sha256(&data),
            design: "tsnic_golden (boot selector; synthetic, flash model)".into(),
            part: board.part().into(),
            date: "2026/12/01".into(),
            time: "00:00:00".into(),
            written_unix: 0,
        };
        chip.poke(layout.golden.base, &data);
        chip.poke(layout.golden.header_addr(), &h.encode());
        chip.set_status_nv(layout.protect_sr);
        chip.take_dirty();
        ModelCard::with_chip(board, chip)
    }

    /// A card around a given part (tests); powered up from it.
    pub fn with_chip(board: Board, chip: NorFlash) -> ModelCard {
        let layout = Layout::for_board(board).unwrap_or(super::layout::LAYOUT_128M);
        let running = config::power_up(&chip, &layout);
        ModelCard {
            chip,
            board,
            layout,
            running,
            spi: SpiTiming::default(),
            path: None,
            _lock: None,
            notes: Vec::new(),
            factory_why: String::new(),
        }
    }

    /// Open the card kept in `path` (created as shipped if it does not exist).
    pub fn open(board: Board, path: &Path) -> Result<ModelCard> {
        let shown = path.display().to_string();
        let ferr = |why: String| FlashError::ModelFile {
            path: shown.clone(),
            why,
        };
        let state_path = state_path(path);
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .map_err(|e| ferr(format!("cannot create its folder: {e}")))?;
        }
        let lock = lock_file(path).map_err(ferr)?;
        if !path.exists() {
            let mut m = ModelCard::factory(board);
            m.path = Some(path.to_path_buf());
            m._lock = Some(lock);
            m.save_all()?;
            return Ok(m);
        }
        let bytes = std::fs::read(path).map_err(|e| ferr(format!("cannot read it: {e}")))?;
        let mut chip = NorFlash::mt25qu01g();
        chip.load_contents(&bytes).map_err(|_| {
            ferr(format!(
                "it holds {} bytes, a {} card's flash is {} bytes; choose another --flash-file or delete it for a new card",
                bytes.len(),
                board,
                chip.size()
            ))
        })?;
        let layout = Layout::for_board(board).unwrap_or(super::layout::LAYOUT_128M);
        let mut notes = Vec::new();
        let mut factory_why = String::new();
        let running = match std::fs::read_to_string(&state_path) {
            Ok(s) => {
                let st: SavedState = serde_json::from_str(&s).map_err(|e| {
                    ferr(format!(
                        "its state {} does not parse ({e}); delete the state file to power-cycle the card",
                        state_path.display()
                    ))
                })?;
                if st.board != board.name() {
                    return Err(ferr(format!(
                        "it is the flash of a {} card, not a {board}; use --board {} or another --flash-file",
                        st.board, st.board
                    )));
                }
                chip.set_status_nv(st.sr_nv);
                chip.advance(st.sim_ns).ok();
                let slot = if st.configured && !st.factory {
                    layout.slot_at(st.wbstar)
                } else {
                    None
                };
                factory_why = st.factory_why;
                Running {
                    slot,
                    header: slot.and_then(|s| {
                        config::check_image(&chip, &layout, layout.region(s).base).ok()
                    }),
                    state: BootState {
                        wbstar: st.wbstar,
                        fallback: st.fallback,
                        golden_tried: st.golden_tried.and_then(|s| s.parse().ok()),
                        bootsts: st.bootsts,
                    },
                    attempts: Vec::new(),
                    factory: st.factory,
                }
            }
            // no state: the card was just powered on. The status register's non-volatile bits lived
            // in the state file (a real part keeps them itself); tsnic always leaves them at the
            // normal protection, so that is what the card gets back, and the user is told.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                chip.set_status_nv(layout.protect_sr);
                notes.push(format!(
                    "the flash model's state file {} is missing: the card is taken as just powered on, with the status register tsnic leaves (SR {:#04x}: factory and golden images write-protected)",
                    state_path.display(),
                    layout.protect_sr
                ));
                config::power_up(&chip, &layout)
            }
            Err(e) => {
                return Err(ferr(format!(
                    "its state {} cannot be read ({e}); fix its permissions, or delete it to power-cycle the card",
                    state_path.display()
                )))
            }
        };
        Ok(ModelCard {
            chip,
            board,
            layout,
            running,
            spi: SpiTiming::default(),
            path: Some(path.to_path_buf()),
            _lock: Some(lock),
            notes,
            factory_why,
        })
    }

    /// Power-cycle the card: the part comes back idle, the FPGA configures from address 0.
    pub fn power_cycle(&mut self) {
        self.chip.power_on();
        self.running = config::power_up(&self.chip, &self.layout);
        self.factory_why.clear();
    }

    fn save_state(&self) -> Result<()> {
        let Some(path) = &self.path else {
            return Ok(());
        };
        let st = SavedState {
            version: 1,
            board: self.board.name().into(),
            sr_nv: self.chip.status_nv(),
            configured: self.running.slot.is_some(),
            wbstar: self.running.state.wbstar,
            fallback: self.running.state.fallback,
            golden_tried: self.running.state.golden_tried.map(|s| s.to_string()),
            bootsts: self.running.state.bootsts,
            sim_ns: self.chip.now(),
            factory: self.running.factory,
            factory_why: self.factory_reason(),
        };
        let sp = state_path(path);
        let tmp = sp.with_extension("json.tmp");
        std::fs::write(&tmp, serde_json::to_vec_pretty(&st).unwrap_or_default())
            .and_then(|_| std::fs::rename(&tmp, &sp))
            .map_err(|e| FlashError::ModelFile {
                path: sp.display().to_string(),
                why: format!("cannot write it: {e}"),
            })
    }

    fn save_all(&mut self) -> Result<()> {
        let Some(path) = self.path.clone() else {
            return Ok(());
        };
        let mut all = Vec::with_capacity(self.chip.size() as usize);
        for i in 0..(self.chip.size() / SECTOR) as usize {
            all.extend_from_slice(&self.chip.sector_bytes(i));
        }
        self.chip.take_dirty();
        std::fs::write(&path, &all).map_err(|e| FlashError::ModelFile {
            path: path.display().to_string(),
            why: format!("cannot write it: {e}"),
        })?;
        self.save_state()
    }

    /// Write the changed sectors and the state back to the file.
    pub fn save(&mut self) -> Result<()> {
        use std::io::{Seek, SeekFrom, Write};
        let Some(path) = self.path.clone() else {
            return Ok(());
        };
        let dirty = self.chip.take_dirty();
        if !dirty.is_empty() {
            let mut f = std::fs::OpenOptions::new()
                .write(true)
                .open(&path)
                .map_err(|e| FlashError::ModelFile {
                    path: path.display().to_string(),
                    why: format!("cannot open it for writing: {e}"),
                })?;
            for i in dirty {
                f.seek(SeekFrom::Start(i as u64 * SECTOR as u64))
                    .and_then(|_| f.write_all(&self.chip.sector_bytes(i)))
                    .map_err(|e| FlashError::ModelFile {
                        path: path.display().to_string(),
                        why: format!("cannot write it: {e}"),
                    })?;
            }
        }
        self.save_state()
    }

    /// The file this card lives in.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// Why the factory image runs (from this command's IPROG, or from the state file).
    pub fn factory_reason(&self) -> String {
        if !self.running.attempts.is_empty() || self.factory_why.is_empty() {
            self.running.fallback_reason()
        } else {
            self.factory_why.clone()
        }
    }

    fn unconfigured(&self) -> Result<()> {
        if self.running.factory {
            return Err(FlashError::FactoryImage {
                why: self.factory_reason(),
            });
        }
        if self.running.slot.is_none() {
            return Err(FlashError::ModelFile {
                path: self.path.as_ref().map(|p| p.display().to_string()).unwrap_or_default(),
                why: "the simulated FPGA did not configure at power-up (no valid factory image at address 0): a real card would not appear on PCIe and needs JTAG; delete the file for a card as shipped".into(),
            });
        }
        Ok(())
    }

    /// Wait until the part is idle, polling at the controller's rate.
    fn wait_idle(&mut self) -> Result<()> {
        let poll = self.spi.poll_ns().max(1);
        while self.chip.busy() {
            let left = self.chip.busy_until() - self.chip.now();
            let step = left.div_ceil(poll) * poll;
            self.chip.advance(step)?;
        }
        // the last poll reads ready
        self.chip.advance(poll)
    }
}

/// Take the exclusive lock of the flash file `p` (on `<p>.lock`, created if missing; released when the
/// returned file is dropped, also when the process dies).
fn lock_file(p: &Path) -> std::result::Result<std::fs::File, String> {
    let mut s = p.as_os_str().to_owned();
    s.push(".lock");
    let lp = PathBuf::from(s);
    let f = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lp)
        .map_err(|e| format!("cannot open its lock file {}: {e}", lp.display()))?;
    match f.try_lock() {
        Ok(()) => Ok(f),
        Err(std::fs::TryLockError::WouldBlock) => Err(format!(
            "another command is using this card's flash right now (it holds {}); wait for it to finish, or use another --flash-file",
            lp.display()
        )),
        Err(std::fs::TryLockError::Error(e)) => {
            Err(format!("cannot lock {}: {e}", lp.display()))
        }
    }
}

fn state_path(p: &Path) -> PathBuf {
    let mut s = p.as_os_str().to_owned();
    s.push(".state.json");
    PathBuf::from(s)
}

impl FlashDevice for ModelCard {
    fn describe(&self) -> String {
        match &self.path {
            Some(p) => format!("flash model of a {} card in {}", self.board, p.display()),
            None => format!("flash model of a {} card (in memory)", self.board),
        }
    }

    fn cap(&mut self) -> Result<FlashCap> {
        self.unconfigured()?;
        Ok(FlashCap {
            board: self.board,
            writable: self.board.writable(),
            size: self.chip.size() as u64,
            image_golden: self.running.slot == Some(Slot::Golden),
        })
    }

    fn read_id(&mut self) -> Result<[u8; 3]> {
        self.chip.advance(self.spi.ns(8 + 24 + 2))?;
        self.chip.read_id()
    }

    fn read(&mut self, addr: u32, buf: &mut [u8]) -> Result<()> {
        let mut a = addr;
        for chunk in buf.chunks_mut(PAGE as usize) {
            self.chip.advance(self.spi.read_ns(chunk.len()))?;
            self.chip.read(a, chunk)?;
            a = a.wrapping_add(chunk.len() as u32);
        }
        Ok(())
    }

    fn program_page(&mut self, addr: u32, data: &[u8]) -> Result<()> {
        check_page(addr, data.len())?;
        self.chip.advance(self.spi.program_ns(data.len()))?;
        self.chip.write_enable()?;
        self.chip.page_program(addr, data)?;
        self.wait_idle()
    }

    fn erase_4k(&mut self, addr: u32) -> Result<()> {
        check_align(addr, super::layout::SUBSECTOR)?;
        self.chip.advance(self.spi.erase_ns())?;
        self.chip.write_enable()?;
        self.chip.erase_4k(addr)?;
        self.wait_idle()
    }

    fn erase_64k(&mut self, addr: u32) -> Result<()> {
        check_align(addr, SECTOR)?;
        self.chip.advance(self.spi.erase_ns())?;
        self.chip.write_enable()?;
        self.chip.erase_64k(addr)?;
        self.wait_idle()
    }

    fn status(&mut self) -> Result<(u8, u8)> {
        self.chip.advance(self.spi.poll_ns() * 2)?;
        Ok((self.chip.read_status()?, self.chip.read_flag_status()?))
    }

    fn write_status(&mut self, sr: u8) -> Result<()> {
        self.chip.advance(self.spi.ns(10 + 8 + 8 + 2))?;
        self.chip.write_enable()?;
        self.chip.write_status(sr)?;
        self.wait_idle()
    }

    fn iprog(&mut self, addr: u32) -> Result<()> {
        self.chip.advance(1000)?;
        self.running = config::iprog(&self.chip, &self.layout, addr);
        Ok(())
    }

    fn boot_state(&mut self) -> Result<BootState> {
        self.unconfigured()?;
        Ok(self.running.state)
    }

    fn sim_ns(&self) -> Option<u64> {
        Some(self.chip.now())
    }

    fn close(&mut self) -> Result<()> {
        self.save()
    }
}

/// A program must be 1..=256 bytes inside one page.
pub fn check_page(addr: u32, len: usize) -> Result<()> {
    if len == 0 || len > PAGE as usize || (addr % PAGE) as usize + len > PAGE as usize {
        return Err(FlashError::BadArgument(format!(
            "program of {len} bytes at {addr:#010x} crosses a 256-byte page (or is empty)"
        )));
    }
    Ok(())
}

/// An erase address must be aligned to its block.
pub fn check_align(addr: u32, block: u32) -> Result<()> {
    if !addr.is_multiple_of(block) {
        return Err(FlashError::BadArgument(format!(
            "erase address {addr:#010x} is not aligned to {block} bytes"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flash_file_is_used_by_one_command_at_a_time() {
        let dir = std::env::temp_dir().join(format!("tsnic-flash-lock-{}", std::process::id()));
        let path = dir.join("u50.flash");
        let first = ModelCard::open(Board::U50, &path).expect("first open");
        let Err(e) = ModelCard::open(Board::U50, &path) else {
            panic!("a second open of a flash file in use succeeded");
        };
        assert!(e.to_string().contains("another command is using"), "{e}");
        drop(first);
        let again = ModelCard::open(Board::U50, &path).expect("open after the first closed");
        drop(again);
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn factory_card_runs_golden_protected() {
        let mut m = ModelCard::factory(Board::U50);
        assert_eq!(m.running.slot, Some(Slot::Golden));
        assert!(m.cap().unwrap().image_golden);
        assert_eq!(m.read_id().unwrap(), super::super::MT25QU01G_ID);
        assert!(matches!(m.erase_64k(0), Err(FlashError::Protected { .. })));
        m.program_page(0x0200_0000, &[0x12; 256]).unwrap();
        let mut b = [0u8; 4];
        m.read(0x0200_0000, &mut b).unwrap();
        assert_eq!(b, [0x12; 4]);
        assert!(
            m.program_page(0x0200_0080, &[0; 256]).is_err(),
            "crosses a page"
        );
    }

    #[test]
    fn spi_times_at_50_mhz() {
        let s = SpiTiming::default();
        // 42 + 8 dummy + 512 clocks for a 256-byte quad read: 11.24 us
        assert_eq!(s.read_ns(256), 11_240);
        assert_eq!(s.program_ns(256), 11_280);
    }
}
