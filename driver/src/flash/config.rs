//! A model of the FPGA's configuration logic in SPIx4 master mode, with the golden image's boot
//! selector: at power-up it configures from address 0 (the golden image); the golden selector reads
//! the boot record ([`super::record::golden_select`]) and IPROGs into the chosen slot; an image that
//! fails to configure makes the FPGA fall back to golden (BOOTSTS fallback), whose selector then
//! tries the other slot or stays golden.
//!
//! "Configures" here means: the image header in the region's last subsector is valid, the data
//! starts with a sync word within its first 4 KB, and the data's sha256 matches the header. The
//! sha256 stands in for the CRC the FPGA checks inside the bitstream (the model does not interpret
//! configuration packets); a torn or half-written slot fails it, as a torn bitstream fails CRC or
//! never raises DONE on the FPGA.

use super::image::{sha256, ImageHeader, HEADER_LEN, SYNC_SEARCH, SYNC_WORD};
use super::layout::{Layout, Slot};
use super::nor::NorFlash;
use super::record::{self, golden_select, Selection};
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
    /// The image running, or `None` when even golden failed (the FPGA is unconfigured: on a real
    /// card it does not appear on PCIe until reprogrammed over JTAG).
    pub slot: Option<Slot>,
    /// Its header.
    pub header: Option<ImageHeader>,
    /// FLASH_BOOT_WBSTAR / FLASH_BOOT_STATUS.
    pub state: BootState,
    /// Every attempt of the sequence: (slot, result).
    pub attempts: Vec<(Slot, Result<(), ConfigFail>)>,
    /// The golden selector would IPROG into a slot that already failed, after every fallback: the
    /// FPGA never settles (both slots broken and not flagged bad; `slot` is `None`).
    pub boot_loop: bool,
}

/// BOOTSTS-like bits the model reports: bit 0 VALID, bit 1 FALLBACK, bit 2 IPROG, bit 6 CRC_ERROR
/// (of the last attempt; a simplification of the two-entry register of UG570).
fn bootsts(fallback: bool, iprog: bool, crc_err: bool) -> u16 {
    1 | (fallback as u16) << 1 | (iprog as u16) << 2 | (crc_err as u16) << 6
}

/// Check the image whose region starts at `addr`.
pub fn check_image(chip: &NorFlash, layout: &Layout, addr: u32) -> Result<ImageHeader, ConfigFail> {
    let slot = layout.slot_at(addr).ok_or(ConfigFail::NoRegion)?;
    let region = layout.region(slot);
    let mut hb = [0u8; HEADER_LEN];
    chip.peek(region.header_addr(), &mut hb);
    let h = ImageHeader::decode(&hb).ok_or(ConfigFail::NoHeader)?;
    if h.data_len == 0 || h.data_len > region.max_image() {
        return Err(ConfigFail::NoHeader);
    }
    let mut data = vec![0u8; h.data_len as usize];
    chip.peek(addr, &mut data);
    let n = data.len().min(SYNC_SEARCH + 4);
    if !data[..n].windows(4).any(|w| w == SYNC_WORD) {
        return Err(ConfigFail::NoSync);
    }
    if sha256(&data) != h.sha256 {
        return Err(ConfigFail::BadHash);
    }
    Ok(h)
}

fn read_records(chip: &NorFlash, layout: &Layout) -> ([u8; record::LEN], [u8; record::LEN]) {
    let mut a = [0u8; record::LEN];
    let mut b = [0u8; record::LEN];
    chip.peek(layout.record0, &mut a);
    chip.peek(layout.record1, &mut b);
    (a, b)
}

/// Start the golden image (after power-up, or after a fallback) and let its selector run, following
/// IPROGs and fallbacks until an image runs, golden stays, or a slot that already failed in this
/// sequence would be tried again (the boot loop of [`record::golden_select`]'s limit).
fn golden_sequence(
    chip: &NorFlash,
    layout: &Layout,
    mut attempts: Vec<(Slot, Result<(), ConfigFail>)>,
    mut fallback: bool,
) -> Running {
    let mut golden_tried = None;
    loop {
        let g = check_image(chip, layout, layout.golden.base);
        attempts.push((Slot::Golden, g.clone().map(|_| ())));
        let gh = match g {
            Ok(h) => h,
            Err(_) => {
                return Running {
                    slot: None,
                    header: None,
                    state: BootState {
                        wbstar: 0,
                        fallback,
                        golden_tried,
                        bootsts: bootsts(fallback, false, true) & !1,
                    },
                    attempts,
                    boot_loop: false,
                }
            }
        };
        let (r0, r1) = read_records(chip, layout);
        if fallback {
            // what FLASH_BOOT_STATUS bits 3:2 report: the slot golden picks (taken as the failed one)
            golden_tried = record::current(&r0, &r1).and_then(|(_, r)| record::golden_pick(&r));
        }
        match golden_select(&r0, &r1, fallback) {
            Selection::Boot(slot, addr) => {
                if attempts.iter().any(|(s, r)| *s == slot && r.is_err()) {
                    // golden would IPROG into a slot that already failed, again and again
                    return Running {
                        slot: None,
                        header: None,
                        state: BootState {
                            wbstar: 0,
                            fallback: true,
                            golden_tried,
                            bootsts: bootsts(true, true, true),
                        },
                        attempts,
                        boot_loop: true,
                    };
                }
                match check_image(chip, layout, addr) {
                    Ok(h) => {
                        attempts.push((slot, Ok(())));
                        return Running {
                            slot: Some(slot),
                            header: Some(h),
                            state: BootState {
                                wbstar: addr,
                                fallback,
                                golden_tried: if fallback { golden_tried } else { None },
                                bootsts: bootsts(fallback, true, false),
                            },
                            attempts,
                            boot_loop: false,
                        };
                    }
                    Err(e) => {
                        attempts.push((slot, Err(e)));
                        fallback = true;
                    }
                }
            }
            Selection::StayGolden => {
                return Running {
                    slot: Some(Slot::Golden),
                    header: Some(gh),
                    state: BootState {
                        wbstar: 0,
                        fallback,
                        golden_tried,
                        bootsts: bootsts(fallback, false, fallback),
                    },
                    attempts,
                    boot_loop: false,
                }
            }
        }
    }
}

/// Power-up: configure from address 0 and follow the golden selector.
pub fn power_up(chip: &NorFlash, layout: &Layout) -> Running {
    golden_sequence(chip, layout, Vec::new(), false)
}

/// IPROG from a running image to warm-boot address `addr`: that image if it configures, else the
/// fallback to golden, whose selector runs with the fallback flag.
pub fn iprog(chip: &NorFlash, layout: &Layout, addr: u32) -> Running {
    let slot = layout.slot_at(addr);
    match (slot, check_image(chip, layout, addr)) {
        (Some(Slot::Golden), Ok(_)) => {
            // IPROG to golden: golden starts, and stays (a deliberate boot into golden does not
            // run the selector's IPROG: the golden design sees WBSTAR = 0 with IPROG in BOOTSTS).
            let h = check_image(chip, layout, 0).ok();
            Running {
                slot: Some(Slot::Golden),
                header: h,
                state: BootState {
                    wbstar: 0,
                    fallback: false,
                    golden_tried: None,
                    bootsts: bootsts(false, true, false),
                },
                attempts: vec![(Slot::Golden, Ok(()))],
                boot_loop: false,
            }
        }
        (Some(s), Ok(h)) => Running {
            slot: Some(s),
            header: Some(h),
            state: BootState {
                wbstar: addr,
                fallback: false,
                golden_tried: None,
                bootsts: bootsts(false, true, false),
            },
            attempts: vec![(s, Ok(()))],
            boot_loop: false,
        },
        (s, r) => {
            let e = r.err().unwrap_or(ConfigFail::NoRegion);
            let s = s.unwrap_or(Slot::Golden);
            golden_sequence(chip, layout, vec![(s, Err(e))], true)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::image::{synth_data, ImageHeader};
    use super::super::layout::LAYOUT_128M;
    use super::super::record::BootRecord;
    use super::*;

    fn put_image(chip: &mut NorFlash, slot: Slot, len: usize, seed: u64) -> [u8; 32] {
        let r = LAYOUT_128M.region(slot);
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

    fn put_record(chip: &mut NorFlash, active: Slot, gen: u32) {
        let mut rec = BootRecord::empty(&LAYOUT_128M);
        rec.active = active;
        rec.generation = gen;
        rec.slot_a.1 = 1000;
        rec.slot_b.1 = 2000;
        chip.poke(LAYOUT_128M.record0, &rec.encode());
    }

    #[test]
    fn power_up_follows_the_record_and_falls_back() {
        let mut chip = NorFlash::mt25qu01g();
        // blank flash: nothing configures
        assert_eq!(power_up(&chip, &LAYOUT_128M).slot, None);
        put_image(&mut chip, Slot::Golden, 3000, 1);
        assert_eq!(power_up(&chip, &LAYOUT_128M).slot, Some(Slot::Golden));
        put_image(&mut chip, Slot::A, 1000, 2);
        put_image(&mut chip, Slot::B, 2000, 3);
        put_record(&mut chip, Slot::A, 1);
        let r = power_up(&chip, &LAYOUT_128M);
        assert_eq!(r.slot, Some(Slot::A));
        assert_eq!(r.state.wbstar, LAYOUT_128M.a.base);
        assert!(!r.state.fallback);
        // corrupt A: fallback to golden, which boots B
        chip.poke(LAYOUT_128M.a.base + 500, &[0]);
        let r = power_up(&chip, &LAYOUT_128M);
        assert_eq!(r.slot, Some(Slot::B), "{:?}", r.attempts);
        assert!(r.state.fallback);
        assert_eq!(r.state.golden_tried, Some(Slot::A));
        // corrupt B as well, neither flagged bad: the selector's known limit, a boot loop
        chip.poke(LAYOUT_128M.b.base + 500, &[0]);
        let r = power_up(&chip, &LAYOUT_128M);
        assert_eq!(r.slot, None, "{:?}", r.attempts);
        assert!(r.boot_loop);
        // with A flagged bad in the record, golden stays after B fails
        let mut rec = BootRecord::empty(&LAYOUT_128M);
        rec.active = Slot::B;
        rec.generation = 2;
        rec.slot_a.1 = 1000;
        rec.slot_b.1 = 2000;
        rec.set_bad(Slot::A, true);
        chip.poke(LAYOUT_128M.record1, &rec.encode());
        let r = power_up(&chip, &LAYOUT_128M);
        assert_eq!(r.slot, Some(Slot::Golden), "{:?}", r.attempts);
        assert!(r.state.fallback && !r.boot_loop);
        assert_eq!(r.state.golden_tried, Some(Slot::B));
    }

    #[test]
    fn iprog_to_a_bad_slot_falls_back() {
        let mut chip = NorFlash::mt25qu01g();
        put_image(&mut chip, Slot::Golden, 3000, 1);
        put_image(&mut chip, Slot::B, 2000, 3);
        put_record(&mut chip, Slot::B, 1);
        // slot A is empty but the record gives it a length: IPROG to it falls back, golden takes
        // its pick (B) as the failed slot and IPROGs to A again: the loop of the selector's limit
        let r = iprog(&chip, &LAYOUT_128M, LAYOUT_128M.a.base);
        assert!(r.boot_loop, "{:?}", r.attempts);
        // with A's length 0 (as the driver writes it for an empty slot) golden stays
        let mut rec = BootRecord::empty(&LAYOUT_128M);
        rec.active = Slot::B;
        rec.generation = 2;
        rec.slot_b.1 = 2000;
        chip.poke(LAYOUT_128M.record1, &rec.encode());
        let r = iprog(&chip, &LAYOUT_128M, LAYOUT_128M.a.base);
        assert_eq!(r.slot, Some(Slot::Golden), "{:?}", r.attempts);
        assert!(r.state.fallback);
        // IPROG to B (active, complete) runs B
        let r = iprog(&chip, &LAYOUT_128M, LAYOUT_128M.b.base);
        assert_eq!(r.slot, Some(Slot::B));
        assert!(!r.state.fallback);
        let r = iprog(&chip, &LAYOUT_128M, 0);
        assert_eq!(r.slot, Some(Slot::Golden));
        assert!(!r.state.fallback);
    }
}
