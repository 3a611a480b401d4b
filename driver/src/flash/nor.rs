//! A model of the Micron MT25QU01G-class quad-SPI NOR flash, at command level: JEDEC ID, 4-byte
//! addressing, write enable latch, page program that can only clear bits (and wraps inside its
//! 256-byte page), 4 KB / 64 KB erase, busy (WIP) for the datasheet's typical program/erase times in
//! simulated ns, non-volatile block protection (BP3..0, TB) and the flag status register's error bits.
//!
//! Power cuts: [`NorFlash::set_power_cut`] stops the part at a simulated time. A program or erase
//! under way at that moment is left torn: a program keeps the bytes it had reached (in address order),
//! an erase leaves each byte somewhere between its old value and 0xFF (bits set at random), as a real
//! NOR part may. Every later command fails with [`FlashError::PowerLost`].

use super::layout::{PAGE, SECTOR, SUBSECTOR};
use super::{
    FlashError, Result, FSR_ERASE_ERR, FSR_PROGRAM_ERR, FSR_PROT_ERR, FSR_READY, SR_WEL, SR_WIP,
};

/// Program/erase times of the part, ns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Timing {
    /// Page program (256 bytes).
    pub page_program_ns: u64,
    /// 4 KB subsector erase.
    pub erase_4k_ns: u64,
    /// 64 KB sector erase.
    pub erase_64k_ns: u64,
    /// Write status register.
    pub write_status_ns: u64,
}

/// MT25QU01G typical times (datasheet AC characteristics): tPP 0.12 ms, tSSE (4 KB) 50 ms, tSE
/// (64 KB) 150 ms, tW 1.3 ms.
pub const MT25Q_TYPICAL: Timing = Timing {
    page_program_ns: 120_000,
    erase_4k_ns: 50_000_000,
    erase_64k_ns: 150_000_000,
    write_status_ns: 1_300_000,
};

/// Non-volatile status register bits: SRWD (7), BP3 (6), TB (5), BP2..0 (4:2).
pub const SR_NV_MASK: u8 = 0xFC;

#[derive(Debug, Clone)]
enum Pending {
    Program { addrs: Vec<u32>, old: Vec<u8> },
    Erase { base: u32, old: Vec<u8> },
}

/// The part.
#[derive(Debug, Clone)]
pub struct NorFlash {
    size: u32,
    id: [u8; 3],
    /// One entry per 64 KB sector; `None` = erased (all 0xFF).
    sectors: Vec<Option<Box<[u8]>>>,
    dirty: Vec<bool>,
    sr_nv: u8,
    wel: bool,
    fsr_err: u8,
    now: u64,
    busy_from: u64,
    busy_until: u64,
    pending: Option<Pending>,
    timing: Timing,
    power_cut_at: Option<u64>,
    dead: bool,
    rng: u64,
    /// Program/erase/write-status commands accepted so far.
    pub ops: u64,
}

impl NorFlash {
    /// An erased MT25QU01G (128 MB) with no protection.
    pub fn mt25qu01g() -> NorFlash {
        NorFlash::new(128 << 20, super::MT25QU01G_ID, MT25Q_TYPICAL)
    }

    /// An erased part of `size` bytes (a multiple of 64 KB).
    pub fn new(size: u32, id: [u8; 3], timing: Timing) -> NorFlash {
        let n = (size / SECTOR) as usize;
        NorFlash {
            size,
            id,
            sectors: vec![None; n],
            dirty: vec![false; n],
            sr_nv: 0,
            wel: false,
            fsr_err: 0,
            now: 0,
            busy_from: 0,
            busy_until: 0,
            pending: None,
            timing,
            power_cut_at: None,
            dead: false,
            rng: 0x2545_f491_4f6c_dd1d,
            ops: 0,
        }
    }

    /// Size in bytes.
    pub fn size(&self) -> u32 {
        self.size
    }

    /// The timings.
    pub fn timing(&self) -> Timing {
        self.timing
    }

    /// Simulated time, ns.
    pub fn now(&self) -> u64 {
        self.now
    }

    /// Cut the power at simulated time `at_ns` (tests).
    pub fn set_power_cut(&mut self, at_ns: u64, seed: u64) {
        self.power_cut_at = Some(at_ns);
        self.rng = seed | 1;
    }

    /// Power back on: the part is idle (a torn operation stays torn), WEL clear, protection kept.
    pub fn power_on(&mut self) {
        self.power_cut_at = None;
        self.dead = false;
        self.pending = None;
        self.busy_until = self.now;
        self.wel = false;
        self.fsr_err = 0;
    }

    /// Has the power been cut?
    pub fn is_dead(&self) -> bool {
        self.dead
    }

    fn rand(&mut self) -> u64 {
        self.rng ^= self.rng << 13;
        self.rng ^= self.rng >> 7;
        self.rng ^= self.rng << 17;
        self.rng
    }

    fn live(&self) -> Result<()> {
        if self.dead {
            Err(FlashError::PowerLost)
        } else {
            Ok(())
        }
    }

    /// Let `ns` of simulated time pass (a power cut on the way stops the part there).
    pub fn advance(&mut self, ns: u64) -> Result<()> {
        self.live()?;
        let to = self.now.saturating_add(ns);
        if let Some(cut) = self.power_cut_at {
            if to >= cut {
                self.now = cut.max(self.now);
                self.tear();
                self.dead = true;
                return Err(FlashError::PowerLost);
            }
        }
        self.now = to;
        if self.now >= self.busy_until {
            self.pending = None;
        }
        Ok(())
    }

    /// Leave the operation under way torn at `now`.
    fn tear(&mut self) {
        let Some(p) = self.pending.take() else {
            return;
        };
        if self.now >= self.busy_until {
            return;
        }
        let span = (self.busy_until - self.busy_from).max(1);
        let done = self.now.saturating_sub(self.busy_from);
        match p {
            Pending::Program { addrs, old } => {
                // bytes up to the cut are programmed, the rest keep their old value; the byte at the
                // cut gets some of its bits
                let n = addrs.len();
                let k = (n as u64 * done / span) as usize;
                for i in k..n {
                    let a = addrs[i];
                    let v = if i == k {
                        let cur = self.byte(a);
                        old[i] & (cur | self.rand() as u8)
                    } else {
                        old[i]
                    };
                    self.set_byte(a, v);
                }
            }
            Pending::Erase { base, old } => {
                for (i, o) in old.iter().enumerate() {
                    let r = self.rand() as u8;
                    self.set_byte(base + i as u32, o | r);
                }
            }
        }
    }

    /// Busy (write in progress).
    pub fn busy(&self) -> bool {
        self.now < self.busy_until
    }

    /// When the current operation ends.
    pub fn busy_until(&self) -> u64 {
        self.busy_until
    }

    fn byte(&self, a: u32) -> u8 {
        match &self.sectors[(a / SECTOR) as usize] {
            None => 0xFF,
            Some(s) => s[(a % SECTOR) as usize],
        }
    }

    fn set_byte(&mut self, a: u32, v: u8) {
        let i = (a / SECTOR) as usize;
        self.dirty[i] = true;
        let s =
            self.sectors[i].get_or_insert_with(|| vec![0xFF; SECTOR as usize].into_boxed_slice());
        s[(a % SECTOR) as usize] = v;
    }

    fn check_addr(&self, addr: u32, len: u32) -> Result<()> {
        if addr.checked_add(len).is_none_or(|e| e > self.size) {
            return Err(FlashError::BadArgument(format!(
                "{len} bytes at {addr:#010x} run past the end of the {} MB flash",
                self.size >> 20
            )));
        }
        Ok(())
    }

    fn check_idle(&self, what: &str) -> Result<()> {
        self.live()?;
        if self.busy() {
            return Err(FlashError::BadArgument(format!(
                "{what} while the flash is busy (poll the status register first)"
            )));
        }
        Ok(())
    }

    /// READ ID (9Fh).
    pub fn read_id(&mut self) -> Result<[u8; 3]> {
        self.live()?;
        Ok(self.id)
    }

    /// 4-byte READ (13h/0Ch/6Ch): the bytes at `addr` (wrapping at the end of the part).
    pub fn read(&mut self, addr: u32, buf: &mut [u8]) -> Result<()> {
        self.check_idle("read")?;
        for (i, b) in buf.iter_mut().enumerate() {
            *b = self.byte((addr as u64 + i as u64) as u32 % self.size);
        }
        Ok(())
    }

    /// Read without side effects or checks (test inspection, the configuration model).
    pub fn peek(&self, addr: u32, buf: &mut [u8]) {
        for (i, b) in buf.iter_mut().enumerate() {
            *b = self.byte((addr as u64 + i as u64) as u32 % self.size);
        }
    }

    /// WRITE ENABLE (06h).
    pub fn write_enable(&mut self) -> Result<()> {
        self.check_idle("write enable")?;
        self.wel = true;
        Ok(())
    }

    /// WRITE DISABLE (04h).
    pub fn write_disable(&mut self) -> Result<()> {
        self.check_idle("write disable")?;
        self.wel = false;
        Ok(())
    }

    /// Is `addr` in the block-protected area?
    pub fn protected(&self, addr: u32) -> bool {
        let bp = ((self.sr_nv >> 3) & 0x8) | ((self.sr_nv >> 2) & 0x7);
        if bp == 0 {
            return false;
        }
        let sectors = self.size / SECTOR;
        let n = (1u32 << (bp - 1).min(31)).min(sectors);
        let bytes = n * SECTOR;
        if self.sr_nv & 0x20 != 0 {
            addr < bytes
        } else {
            addr >= self.size - bytes
        }
    }

    fn start(&mut self, ns: u64, p: Option<Pending>) {
        self.busy_from = self.now;
        self.busy_until = self.now + ns;
        self.pending = p;
        self.wel = false;
        self.ops += 1;
    }

    /// 4-byte PAGE PROGRAM (12h / quad 34h): up to 256 bytes; addresses wrap inside the page; only
    /// clears bits. Needs WEL; refused in a protected area (flag status errors set).
    pub fn page_program(&mut self, addr: u32, data: &[u8]) -> Result<()> {
        self.check_idle("page program")?;
        self.check_addr(addr, 1)?;
        self.fsr_err = 0;
        if !self.wel {
            return Err(FlashError::BadArgument(
                "page program without WRITE ENABLE (ignored by the part)".into(),
            ));
        }
        if self.protected(addr) {
            self.wel = false;
            self.fsr_err = FSR_PROGRAM_ERR | FSR_PROT_ERR;
            return Err(FlashError::Protected {
                addr,
                sr: self.sr_nv,
            });
        }
        let page = addr & !(PAGE - 1);
        let data = if data.len() > PAGE as usize {
            &data[data.len() - PAGE as usize..]
        } else {
            data
        };
        let mut addrs = Vec::with_capacity(data.len());
        let mut old = Vec::with_capacity(data.len());
        for (i, &d) in data.iter().enumerate() {
            let a = page + ((addr - page + i as u32) % PAGE);
            let o = self.byte(a);
            addrs.push(a);
            old.push(o);
            self.set_byte(a, o & d);
        }
        let t = self.timing.page_program_ns;
        self.start(t, Some(Pending::Program { addrs, old }));
        Ok(())
    }

    fn erase(&mut self, addr: u32, size: u32, ns: u64) -> Result<()> {
        self.check_idle("erase")?;
        self.check_addr(addr, 1)?;
        self.fsr_err = 0;
        if !self.wel {
            return Err(FlashError::BadArgument(
                "erase without WRITE ENABLE (ignored by the part)".into(),
            ));
        }
        let base = addr & !(size - 1);
        if self.protected(base) || self.protected(base + size - 1) {
            self.wel = false;
            self.fsr_err = FSR_ERASE_ERR | FSR_PROT_ERR;
            return Err(FlashError::Protected {
                addr: base,
                sr: self.sr_nv,
            });
        }
        let mut old = vec![0u8; size as usize];
        self.peek(base, &mut old);
        if size == SECTOR {
            let i = (base / SECTOR) as usize;
            self.sectors[i] = None;
            self.dirty[i] = true;
        } else {
            for a in base..base + size {
                self.set_byte(a, 0xFF);
            }
        }
        self.start(ns, Some(Pending::Erase { base, old }));
        Ok(())
    }

    /// 4-byte SUBSECTOR ERASE 4 KB (21h).
    pub fn erase_4k(&mut self, addr: u32) -> Result<()> {
        let t = self.timing.erase_4k_ns;
        self.erase(addr, SUBSECTOR, t)
    }

    /// 4-byte SECTOR ERASE 64 KB (DCh).
    pub fn erase_64k(&mut self, addr: u32) -> Result<()> {
        let t = self.timing.erase_64k_ns;
        self.erase(addr, SECTOR, t)
    }

    /// READ STATUS REGISTER (05h).
    pub fn read_status(&mut self) -> Result<u8> {
        self.live()?;
        Ok(self.sr_nv | if self.wel { SR_WEL } else { 0 } | if self.busy() { SR_WIP } else { 0 })
    }

    /// READ FLAG STATUS REGISTER (70h).
    pub fn read_flag_status(&mut self) -> Result<u8> {
        self.live()?;
        Ok(self.fsr_err | if self.busy() { 0 } else { FSR_READY } | 0x01) // bit 0: 4-byte addressing
    }

    /// WRITE STATUS REGISTER (01h): the non-volatile bits. Needs WEL.
    pub fn write_status(&mut self, v: u8) -> Result<()> {
        self.check_idle("write status")?;
        if !self.wel {
            return Err(FlashError::BadArgument(
                "write status without WRITE ENABLE (ignored by the part)".into(),
            ));
        }
        self.sr_nv = v & SR_NV_MASK;
        let t = self.timing.write_status_ns;
        self.start(t, None);
        Ok(())
    }

    /// The non-volatile status bits (persisted with the contents).
    pub fn status_nv(&self) -> u8 {
        self.sr_nv
    }

    /// Set the non-volatile status bits directly (loading a saved part; factory state).
    pub fn set_status_nv(&mut self, v: u8) {
        self.sr_nv = v & SR_NV_MASK;
    }

    /// Fill bytes directly, as a device programmer would (tests and the factory image).
    pub fn poke(&mut self, addr: u32, data: &[u8]) {
        for (i, &d) in data.iter().enumerate() {
            self.set_byte(addr + i as u32, d);
        }
    }

    /// The 64 KB sectors changed since the last [`NorFlash::take_dirty`], cleared.
    pub fn take_dirty(&mut self) -> Vec<usize> {
        let v: Vec<usize> = (0..self.dirty.len()).filter(|&i| self.dirty[i]).collect();
        for &i in &v {
            self.dirty[i] = false;
        }
        v
    }

    /// The bytes of a sector (0xFF when erased).
    pub fn sector_bytes(&self, i: usize) -> Vec<u8> {
        match &self.sectors[i] {
            None => vec![0xFF; SECTOR as usize],
            Some(s) => s.to_vec(),
        }
    }

    /// Load a whole image (size must match).
    pub fn load_contents(&mut self, bytes: &[u8]) -> Result<()> {
        if bytes.len() != self.size as usize {
            return Err(FlashError::BadArgument(format!(
                "a flash image of {} bytes for a {}-byte part",
                bytes.len(),
                self.size
            )));
        }
        let erased = vec![0xFFu8; SECTOR as usize];
        for (i, chunk) in bytes.chunks(SECTOR as usize).enumerate() {
            // a slice compare (memcmp), fast even in a debug build
            self.sectors[i] = if chunk == &erased[..] {
                None
            } else {
                Some(chunk.to_vec().into_boxed_slice())
            };
            self.dirty[i] = false;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn small() -> NorFlash {
        NorFlash::new(4 << 20, [0x20, 0xBB, 0x16], MT25Q_TYPICAL)
    }

    #[test]
    fn program_only_clears_bits_and_wraps_in_the_page() {
        let mut f = small();
        f.write_enable().unwrap();
        f.page_program(0x100 + 250, &[0x0F; 10]).unwrap();
        assert!(f.busy());
        assert_eq!(f.read_status().unwrap() & SR_WIP, SR_WIP);
        assert!(f.read(0, &mut [0; 4]).is_err(), "read while busy");
        f.advance(MT25Q_TYPICAL.page_program_ns).unwrap();
        assert!(!f.busy());
        let mut b = [0u8; 256];
        f.read(0x100, &mut b).unwrap();
        assert_eq!(&b[250..256], &[0x0F; 6]);
        assert_eq!(&b[0..4], &[0x0F; 4], "wrapped to the page start");
        assert_eq!(b[4], 0xFF);
        // programming 0xF0 over 0x0F leaves 0x00: bits only clear
        f.write_enable().unwrap();
        f.page_program(0x100, &[0xF0]).unwrap();
        f.advance(1_000_000).unwrap();
        let mut x = [0u8; 1];
        f.read(0x100, &mut x).unwrap();
        assert_eq!(x[0], 0x00);
        // no WREN: ignored
        assert!(f.page_program(0x200, &[0]).is_err());
    }

    #[test]
    fn erase_and_protection() {
        let mut f = small();
        f.poke(0x10000, &[0; 8192]);
        f.write_enable().unwrap();
        f.erase_4k(0x11000).unwrap();
        f.advance(MT25Q_TYPICAL.erase_4k_ns - 1).unwrap();
        assert!(f.busy());
        f.advance(1).unwrap();
        let mut b = [0u8; 8192];
        f.read(0x10000, &mut b).unwrap();
        assert!(b[..4096].iter().all(|&x| x == 0) && b[4096..].iter().all(|&x| x == 0xFF));
        // protect the bottom 2 sectors (BP = 2, TB = 1)
        f.write_enable().unwrap();
        f.write_status(0x20 | 0x08).unwrap();
        f.advance(MT25Q_TYPICAL.write_status_ns).unwrap();
        assert!(f.protected(0x1FFFF) && !f.protected(0x20000));
        f.write_enable().unwrap();
        assert!(matches!(
            f.erase_64k(0x10000),
            Err(FlashError::Protected { .. })
        ));
        assert_eq!(f.read_flag_status().unwrap() & 0x22, 0x22);
        f.write_enable().unwrap();
        f.erase_64k(0x20000).unwrap();
        // the golden protection of the 1 Gb layout covers exactly 32 MB
        let mut g = NorFlash::mt25qu01g();
        g.set_status_nv(super::super::layout::SR_PROTECT_GOLDEN_1G);
        assert!(g.protected(0x01FF_FFFF) && !g.protected(0x0200_0000));
    }

    #[test]
    fn power_cut_tears_the_operation_under_way() {
        let mut f = small();
        f.set_power_cut(MT25Q_TYPICAL.page_program_ns / 2, 5);
        f.write_enable().unwrap();
        f.page_program(0, &[0u8; 256]).unwrap();
        assert!(matches!(f.advance(1_000_000), Err(FlashError::PowerLost)));
        assert!(f.read_id().is_err());
        f.power_on();
        let mut b = [0u8; 256];
        f.read(0, &mut b).unwrap();
        let zeros = b.iter().filter(|&&x| x == 0).count();
        assert!(
            (100..=140).contains(&zeros),
            "about half programmed: {zeros}"
        );
        assert_eq!(b[255], 0xFF);
    }

    use proptest::prelude::*;

    proptest! {
        /// Random program/erase sequences against a plain reference: program ANDs, erase sets 0xFF.
        #[test]
        fn matches_a_reference_memory(ops in proptest::collection::vec((0u8..3, 0u32..(256 * 1024), any::<u8>(), 1usize..300), 1..40)) {
            let mut f = NorFlash::new(256 * 1024, [0x20, 0xBB, 0x13], MT25Q_TYPICAL);
            let mut r = vec![0xFFu8; 256 * 1024];
            for (kind, addr, val, len) in ops {
                f.write_enable().unwrap();
                match kind {
                    0 => {
                        let data: Vec<u8> = (0..len.min(256)).map(|i| val.rotate_left(i as u32)).collect();
                        f.page_program(addr, &data).unwrap();
                        let page = addr & !255;
                        for (i, d) in data.iter().enumerate() {
                            let a = (page + ((addr - page + i as u32) % 256)) as usize;
                            r[a] &= d;
                        }
                    }
                    1 => {
                        f.erase_4k(addr).unwrap();
                        let b = (addr & !4095) as usize;
                        r[b..b + 4096].fill(0xFF);
                    }
                    _ => {
                        f.erase_64k(addr).unwrap();
                        let b = (addr & !65535) as usize;
                        r[b..b + 65536].fill(0xFF);
                    }
                }
                prop_assert!(f.busy());
                f.advance(MT25Q_TYPICAL.erase_64k_ns).unwrap();
            }
            let mut got = vec![0u8; 256 * 1024];
            f.read(0, &mut got).unwrap();
            prop_assert!(got == r);
        }
    }
}
