//! A model of the FPGA's configuration logic in SPIx4 master mode on an Alveo card's flash: at
//! power-up the FPGA configures from address 0, AMD's factory image, whose bitstream IPROGs to
//! 0x0100_2000 (tsnic's golden image); the golden image's boot selector reads the boot record
//! ([`super::record::golden_select`]) and IPROGs into the chosen slot. An image that fails to
//! configure makes the FPGA fall back: configuration restarts at address 0 with the fallback flag,
//! and the factory image's embedded IPROG is ignored during a fallback (UG570, "Fallback
//! MultiBoot"), so the card then runs AMD's factory image, not tsnic's selector. tsnic's selector
//! therefore never sees a fallback on these cards.
//!
//! "Configures" here means: the image header in the region's last subsector is valid, the data
//! starts with a sync word within its first 4 KB, and the data's sha256 matches the header. The
//! sha256 stands in for the CRC the FPGA checks inside the bitstream (the model does not interpret
//! configuration packets); a torn or half-written slot fails it, as a torn bitstream fails CRC or
//! never raises DONE on the FPGA. The model's synthetic factory image carries the same header in the
//! factory region's last 4 KB (a model convention: a real factory image has none, and tsnic reads
//! nothing there).

use super::image::{sha256, ImageHeader, HEADER_LEN, SYNC_SEARCH, SYNC_WORD};
use super::layout::{Layout, Region, Slot};
use super::nor::NorFlash;
use super::record::{golden_select, Selection};
use super::BootState;

/// Why an image did not configure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConfigFail {
    /// The warm-boot address is not the start of a region in the layout.
    NoRegion,
    /// No valid image header.
    NoHeader,
    /// No sync word.
    NoSync,
    /// Data hash differs from the header (torn or changed image).
    BadHash,
}

/// What is running after a configuration sequence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Running {
    /// The tsnic image running; `None` when AMD's factory image runs ([`Running::factory`]) or
    /// nothing configured (on a real card it does not appear on PCIe until reprogrammed over JTAG).
    pub slot: Option<Slot>,
    /// Its header.
    pub header: Option<ImageHeader>,
    /// FLASH_BOOT_WBSTAR / FLASH_BOOT_STATUS.
    pub state: BootState,
    /// Every tsnic image tried in the sequence: (slot, result).
    pub attempts: Vec<(Slot, Result<(), ConfigFail>)>,
    /// AMD's factory image runs: a tsnic image failed to configure and the FPGA fell back to
    /// address 0 (or tsnic's golden image is missing). tsnic's registers are not there.
    pub factory: bool,
}

impl Running {
    /// Why the factory image runs, in words (the failed attempts).
    pub fn fallback_reason(&self) -> String {
        let failed: Vec<String> = self
            .attempts
            .iter()
            .filter_map(|(s, r)| r.as_ref().err().map(|e| format!("{s} ({})", e.words())))
            .collect();
        if failed.is_empty() {
            "no tsnic image was tried".into()
        } else {
            format!("{} failed to configure", failed.join(", then "))
        }
    }
}

impl ConfigFail {
    /// In words.
    pub fn words(&self) -> &'static str {
        match self {
            ConfigFail::NoRegion => "no image starts at that address",
            ConfigFail::NoHeader => "no complete image",
            ConfigFail::NoSync => "no sync word",
            ConfigFail::BadHash => "its data does not match its header: a CRC error on a card",
        }
    }
}

/// BOOTSTS-like bits the model reports: bit 0 VALID, bit 1 FALLBACK, bit 2 IPROG, bit 6 CRC_ERROR
/// (of the last attempt; a simplification of the two-entry register of UG570).
fn bootsts(fallback: bool, iprog: bool, crc_err: bool) -> u16 {
    1 | (fallback as u16) << 1 | (iprog as u16) << 2 | (crc_err as u16) << 6
}

/// Check the image in `region` (data from its base, header in its last subsector).
fn check_region(chip: &NorFlash, region: Region) -> Result<ImageHeader, ConfigFail> {
    let mut hb = [0u8; HEADER_LEN];
    chip.peek(region.header_addr(), &mut hb);
    let h = ImageHeader::decode(&hb).ok_or(ConfigFail::NoHeader)?;
    if h.data_len == 0 || h.data_len > region.max_image() {
        return Err(ConfigFail::NoHeader);
    }
    let mut data = vec![0u8; h.data_len as usize];
    chip.peek(region.base, &mut data);
    let n = data.len().min(SYNC_SEARCH + 4);
    if !data[..n].windows(4).any(|w| w == SYNC_WORD) {
        return Err(ConfigFail::NoSync);
    }
    if sha256(&data) != h.sha256 {
        return Err(ConfigFail::BadHash);
    }
    Ok(h)
}

/// Check the tsnic image whose region starts at `addr`.
pub fn check_image(chip: &NorFlash, layout: &Layout, addr: u32) -> Result<ImageHeader, ConfigFail> {
    let slot = layout.slot_at(addr).ok_or(ConfigFail::NoRegion)?;
    check_region(chip, layout.region(slot))
}

/// Check the (model's synthetic) factory image at address 0.
pub fn check_factory(chip: &NorFlash, layout: &Layout) -> Result<ImageHeader, ConfigFail> {
    check_region(chip, layout.factory)
}

fn read_records(
    chip: &NorFlash,
    layout: &Layout,
) -> ([u8; super::record::LEN], [u8; super::record::LEN]) {
    let mut a = [0u8; super::record::LEN];
    let mut b = [0u8; super::record::LEN];
    chip.peek(layout.record0, &mut a);
    chip.peek(layout.record1, &mut b);
    (a, b)
}

/// A fallback: configuration restarts at address 0 and the factory image stays (its embedded IPROG
/// is ignored during a fallback); nothing configures when the factory image itself is gone.
fn fallback_to_factory(
    chip: &NorFlash,
    layout: &Layout,
    attempts: Vec<(Slot, Result<(), ConfigFail>)>,
) -> Running {
    let ok = check_factory(chip, layout).is_ok();
    Running {
        slot: None,
        header: None,
        state: BootState {
            wbstar: 0,
            fallback: true,
            golden_tried: None,
            bootsts: bootsts(true, true, !ok) & if ok { 0xFFFF } else { !1 },
        },
        attempts,
        factory: ok,
    }
}

/// A tsnic image configured from `addr` after an IPROG.
fn runs(
    slot: Slot,
    h: ImageHeader,
    addr: u32,
    attempts: Vec<(Slot, Result<(), ConfigFail>)>,
) -> Running {
    Running {
        slot: Some(slot),
        header: Some(h),
        state: BootState {
            wbstar: addr,
            fallback: false,
            golden_tried: None,
            bootsts: bootsts(false, true, false),
        },
        attempts,
        factory: false,
    }
}

/// tsnic's golden image starts (IPROG from the factory image) and its selector follows the record.
fn selector_sequence(chip: &NorFlash, layout: &Layout) -> Running {
    let mut attempts = Vec::new();
    let gh = match check_image(chip, layout, layout.golden.base) {
        Ok(h) => h,
        Err(e) => {
            attempts.push((Slot::Golden, Err(e)));
            return fallback_to_factory(chip, layout, attempts);
        }
    };
    attempts.push((Slot::Golden, Ok(())));
    let (r0, r1) = read_records(chip, layout);
    match golden_select(&r0, &r1, false) {
        Selection::Boot(slot, addr) => match check_image(chip, layout, addr) {
            Ok(h) => {
                attempts.push((slot, Ok(())));
                runs(slot, h, addr, attempts)
            }
            Err(e) => {
                attempts.push((slot, Err(e)));
                fallback_to_factory(chip, layout, attempts)
            }
        },
        Selection::StayGolden => runs(Slot::Golden, gh, layout.golden.base, attempts),
    }
}

/// Power-up: configure from address 0 (the factory image), whose IPROG starts tsnic's golden image.
pub fn power_up(chip: &NorFlash, layout: &Layout) -> Running {
    if check_factory(chip, layout).is_err() {
        // the factory image is gone (never the case with tsnic's own writes): nothing configures
        return Running {
            slot: None,
            header: None,
            state: BootState {
                wbstar: 0,
                fallback: false,
                golden_tried: None,
                bootsts: bootsts(false, false, true) & !1,
            },
            attempts: Vec::new(),
            factory: false,
        };
    }
    selector_sequence(chip, layout)
}

/// IPROG from a running image to warm-boot address `addr`: the image there if it configures (tsnic's
/// golden image then stays: a deliberate boot into it), else a fallback to the factory image.
pub fn iprog(chip: &NorFlash, layout: &Layout, addr: u32) -> Running {
    if addr == layout.factory.base {
        // IPROG to address 0: the factory image starts as at power-up (not a fallback: its IPROG runs)
        return power_up(chip, layout);
    }
    let slot = layout.slot_at(addr);
    match (slot, check_image(chip, layout, addr)) {
        (Some(s), Ok(h)) => runs(s, h, addr, vec![(s, Ok(()))]),
        (s, r) => {
            let e = r.err().unwrap_or(ConfigFail::NoRegion);
            fallback_to_factory(chip, layout, vec![(s.unwrap_or(Slot::Golden), Err(e))])
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::image::{synth_data, ImageHeader};
    use super::super::layout::LAYOUT_128M;
    use super::super::record::BootRecord;
    use super::*;

    fn put_region(chip: &mut NorFlash, r: Region, len: usize, seed: u64) -> [u8; 32] {
        let data = synth_data(len, seed);
        let h = ImageHeader {
            data_len: len as u32,
            sha256: sha256(&data),
            design: format!("img{seed}"),
            part: String::new(),
            date: String::new(),
            time: String::new(),
            written_unix: 0,
        };
        chip.poke(r.base, &data);
        chip.poke(r.header_addr(), &h.encode());
        h.sha256
    }

    fn put_image(chip: &mut NorFlash, slot: Slot, len: usize, seed: u64) -> [u8; 32] {
        put_region(chip, LAYOUT_128M.region(slot), len, seed)
    }

    fn put_record(chip: &mut NorFlash, active: Slot, gen: u32) {
        let mut rec = BootRecord::empty(&LAYOUT_128M);
        rec.active = active;
        rec.generation = gen;
        rec.slot_a.1 = 1000;
        rec.slot_b.1 = 2000;
        chip.poke(LAYOUT_128M.record0, &rec.encode());
    }

    #[test]
    fn power_up_chains_factory_golden_slot_and_falls_back_to_factory() {
        let mut chip = NorFlash::mt25qu01g();
        // blank flash: nothing configures
        let r = power_up(&chip, &LAYOUT_128M);
        assert_eq!((r.slot, r.factory), (None, false));
        // the factory image alone: its IPROG to 0x01002000 finds nothing, the fallback keeps it
        put_region(&mut chip, LAYOUT_128M.factory, 5000, 99);
        let r = power_up(&chip, &LAYOUT_128M);
        assert_eq!((r.slot, r.factory), (None, true), "{:?}", r.attempts);
        assert!(r.state.fallback);
        assert_eq!(r.attempts, vec![(Slot::Golden, Err(ConfigFail::NoHeader))]);
        put_image(&mut chip, Slot::Golden, 3000, 1);
        let r = power_up(&chip, &LAYOUT_128M);
        assert_eq!(r.slot, Some(Slot::Golden));
        assert_eq!(r.state.wbstar, 0x0100_2000);
        put_image(&mut chip, Slot::A, 1000, 2);
        put_image(&mut chip, Slot::B, 2000, 3);
        put_record(&mut chip, Slot::A, 1);
        let r = power_up(&chip, &LAYOUT_128M);
        assert_eq!(r.slot, Some(Slot::A));
        assert_eq!(r.state.wbstar, LAYOUT_128M.a.base);
        assert!(!r.state.fallback && !r.factory);
        // corrupt A: the fallback restarts at address 0 and the factory image stays (its embedded
        // IPROG is ignored in a fallback): B is not tried, tsnic's selector does not run again
        chip.poke(LAYOUT_128M.a.base + 500, &[0]);
        let r = power_up(&chip, &LAYOUT_128M);
        assert_eq!((r.slot, r.factory), (None, true), "{:?}", r.attempts);
        assert!(r.state.fallback);
        assert_eq!(r.state.wbstar, 0);
        assert!(
            r.fallback_reason().contains("A ("),
            "{}",
            r.fallback_reason()
        );
        // with A flagged bad in the record, the selector picks B
        let mut rec = BootRecord::empty(&LAYOUT_128M);
        rec.active = Slot::A;
        rec.generation = 2;
        rec.slot_a.1 = 1000;
        rec.slot_b.1 = 2000;
        rec.set_bad(Slot::A, true);
        chip.poke(LAYOUT_128M.record1, &rec.encode());
        let r = power_up(&chip, &LAYOUT_128M);
        assert_eq!(r.slot, Some(Slot::B), "{:?}", r.attempts);
        // a broken golden image: the factory image runs
        chip.poke(LAYOUT_128M.golden.base + 100, &[0]);
        let r = power_up(&chip, &LAYOUT_128M);
        assert_eq!((r.slot, r.factory), (None, true));
    }

    #[test]
    fn iprog_to_a_bad_slot_falls_back_to_factory() {
        let mut chip = NorFlash::mt25qu01g();
        put_region(&mut chip, LAYOUT_128M.factory, 5000, 99);
        put_image(&mut chip, Slot::Golden, 3000, 1);
        put_image(&mut chip, Slot::B, 2000, 3);
        put_record(&mut chip, Slot::B, 1);
        let r = iprog(&chip, &LAYOUT_128M, LAYOUT_128M.a.base);
        assert_eq!((r.slot, r.factory), (None, true), "{:?}", r.attempts);
        assert!(r.state.fallback);
        // IPROG to B (complete) runs B
        let r = iprog(&chip, &LAYOUT_128M, LAYOUT_128M.b.base);
        assert_eq!(r.slot, Some(Slot::B));
        assert!(!r.state.fallback);
        // IPROG to golden: golden stays
        let r = iprog(&chip, &LAYOUT_128M, LAYOUT_128M.golden.base);
        assert_eq!(r.slot, Some(Slot::Golden));
        // IPROG to 0: the factory image starts and chains as at power-up (record: B)
        let r = iprog(&chip, &LAYOUT_128M, 0);
        assert_eq!(r.slot, Some(Slot::B));
        assert!(!r.state.fallback);
    }
}
