//! The update procedure and the read-only views behind `tsnic flash`: `info`, `write`, `verify`,
//! `boot`. Everything here runs on any [`FlashDevice`].
//!
//! `write` (docs/FIRMWARE.md, "Update"): every check first (board writable, JEDEC ID, golden flag,
//! part, size, sync word, not the slot the record selects), then erase the slot's header subsector,
//! erase the data sectors, program the data, verify by read-back and sha256, program the header
//! (its valid crc now says the data is complete), and last switch the boot record by erasing and
//! writing only the older record copy. A power cut at any point leaves the record selecting the old
//! slot until the new copy is complete and valid.
//!
//! Every erase and program goes through [`Layout::check_writable`]: nothing below 0x0100_2000, AMD's
//! factory image, is ever erased or programmed, and the status register never drops the factory
//! image's protection (writing golden uses [`Layout::golden_write_sr`], not 0).

use super::image::{sha256, Image, ImageHeader, HEADER_LEN};
use super::layout::{protected_range, Layout, Region, Slot, PAGE, SECTOR, SUBSECTOR};
use super::record::{self, BootRecord};
use super::{BootState, FlashCap, FlashDevice, FlashError, Result, MT25QU01G_ID};

/// Progress of a long job (the CLI draws bars; tests ignore it).
pub trait Progress {
    /// A new phase with `total` units (bytes).
    fn phase(&mut self, name: &'static str, total: u64);
    /// `n` more units done.
    fn advance(&mut self, n: u64);
}

/// No progress output.
pub struct NoProgress;

impl Progress for NoProgress {
    fn phase(&mut self, _: &'static str, _: u64) {}
    fn advance(&mut self, _: u64) {}
}

/// Checks shared by every command that touches the flash: the card's flash is reachable and is the
/// part the layout is for.
pub fn preflight(dev: &mut dyn FlashDevice) -> Result<(FlashCap, Layout, [u8; 3])> {
    let cap = dev.cap()?;
    if !cap.writable {
        return Err(FlashError::NotWritable {
            board: cap.board.to_string(),
        });
    }
    let layout = Layout::for_board(cap.board).ok_or(FlashError::NotWritable {
        board: cap.board.to_string(),
    })?;
    let id = dev.read_id()?;
    if id != MT25QU01G_ID || cap.size != layout.size as u64 {
        return Err(FlashError::WrongFlash {
            found: format!(
                "{:02x} {:02x} {:02x} ({} MB)",
                id[0],
                id[1],
                id[2],
                cap.size >> 20
            ),
            expected: "20 bb 21 (128 MB)".into(),
        });
    }
    Ok((cap, layout, id))
}

/// Read both record copies.
pub fn read_records(dev: &mut dyn FlashDevice, layout: &Layout) -> Result<[[u8; record::LEN]; 2]> {
    let mut c = [[0u8; record::LEN]; 2];
    dev.read(layout.record0, &mut c[0])?;
    dev.read(layout.record1, &mut c[1])?;
    Ok(c)
}

/// The header of a region, if valid.
pub fn read_header(dev: &mut dyn FlashDevice, region: Region) -> Result<Option<ImageHeader>> {
    let mut b = [0u8; HEADER_LEN];
    dev.read(region.header_addr(), &mut b)?;
    Ok(ImageHeader::decode(&b))
}

/// Which image runs, from the boot state.
pub fn running_slot(layout: &Layout, boot: &BootState) -> Option<Slot> {
    layout.slot_at(boot.wbstar)
}

/// The slot whose configuration failed in the last boot sequence, if the boot state says so.
pub fn failed_slot(layout: &Layout, boot: &BootState) -> Option<Slot> {
    if !boot.fallback {
        return None;
    }
    if let Some(s) = boot.golden_tried {
        return Some(s);
    }
    match running_slot(layout, boot) {
        Some(s @ (Slot::A | Slot::B)) => Some(s.other()),
        _ => None,
    }
}

/// One image's view in `info`.
#[derive(Debug, Clone, serde::Serialize)]
pub struct SlotInfo {
    /// Which.
    pub slot: Slot,
    /// Where.
    pub region: Region,
    /// Its header (None: empty or incomplete).
    pub header: Option<ImageHeader>,
    /// The boot record's sha256 of it, hex (user slots with an image in the record).
    pub record_sha256: Option<String>,
    /// Flagged bad in the record.
    pub bad: bool,
    /// Failed to configure in the last boot sequence (not yet flagged).
    pub failed_last_boot: bool,
}

/// Everything `flash info` shows.
#[derive(Debug, Clone, serde::Serialize)]
pub struct FlashInfo {
    /// FLASH_CAP.
    pub cap: FlashCap,
    /// JEDEC ID, hex.
    pub jedec_id: String,
    /// The layout.
    pub layout: Layout,
    /// Running image.
    pub running: Option<Slot>,
    /// Boot state.
    pub boot: BootState,
    /// The current record and the copy it is in.
    pub record: Option<(usize, RecordView)>,
    /// Whether each copy is valid.
    pub copies_valid: [bool; 2],
    /// Status register, flag status register.
    pub sr: (u8, u8),
    /// What the status register's BP/TB bits protect, `[start, end)`.
    pub protected: Option<(u32, u32)>,
    /// AMD's factory image protected by the status register.
    pub factory_protected: bool,
    /// tsnic's golden image protected by the status register.
    pub golden_protected: bool,
    /// Golden, A, B.
    pub slots: Vec<SlotInfo>,
}

/// A boot record for display.
#[derive(Debug, Clone, serde::Serialize)]
pub struct RecordView {
    /// Active slot.
    pub active: Slot,
    /// Generation.
    pub generation: u32,
    /// Flags.
    pub flags: u32,
}

/// Gather `flash info`.
pub fn info(dev: &mut dyn FlashDevice) -> Result<FlashInfo> {
    let (cap, layout, id) = preflight(dev)?;
    let boot = dev.boot_state()?;
    let sr = dev.status()?;
    let copies = read_records(dev, &layout)?;
    let cur = record::current(&copies[0], &copies[1]);
    let failed = failed_slot(&layout, &boot);
    let mut slots = Vec::new();
    for s in [Slot::Golden, Slot::A, Slot::B] {
        let region = layout.region(s);
        let header = read_header(dev, region)?;
        let rec = cur.as_ref().map(|(_, r)| r);
        slots.push(SlotInfo {
            slot: s,
            region,
            header,
            record_sha256: rec
                .filter(|r| r.slot(s).is_some_and(|(_, l)| l > 0))
                .and_then(|r| r.sha(s))
                .map(|h| super::image::hex(h)),
            bad: rec.is_some_and(|r| r.is_bad(s)),
            failed_last_boot: failed == Some(s),
        });
    }
    Ok(FlashInfo {
        cap,
        jedec_id: format!("{:02x} {:02x} {:02x}", id[0], id[1], id[2]),
        layout,
        running: running_slot(&layout, &boot),
        boot,
        record: cur.map(|(i, r)| {
            (
                i,
                RecordView {
                    active: r.active,
                    generation: r.generation,
                    flags: r.flags,
                },
            )
        }),
        copies_valid: [
            record::BootRecord::decode(&copies[0]).is_some(),
            record::BootRecord::decode(&copies[1]).is_some(),
        ],
        sr,
        protected: protected_range(sr.0, layout.size),
        factory_protected: layout.factory_protected(sr.0),
        golden_protected: layout.golden_protected(sr.0),
        slots,
    })
}

/// What `write` should do.
#[derive(Debug, Clone, Copy, Default)]
pub struct WriteOptions {
    /// Slot to write; `None`: the slot not running (not selected by the record).
    pub slot: Option<Slot>,
    /// The deliberately named flag that allows writing golden.
    pub allow_golden: bool,
}

/// What `write` did.
#[derive(Debug, Clone, serde::Serialize)]
pub struct WriteReport {
    /// Slot written.
    pub slot: Slot,
    /// Bytes of image.
    pub bytes: usize,
    /// Pages programmed (all-0xFF pages are skipped).
    pub pages: u64,
    /// The new record's generation (user slots).
    pub generation: Option<u32>,
    /// The record copy rewritten.
    pub record_copy: Option<usize>,
    /// Simulated time the job took (model), ns.
    pub sim_ns: Option<u64>,
    /// Register accesses (register devices).
    pub reg_accesses: Option<u64>,
}

/// The slot `write` chooses when none is given: the one not running; when golden runs, the one the
/// record does not select (A when there is no record).
pub fn default_slot(layout: &Layout, boot: &BootState, rec: Option<&BootRecord>) -> Slot {
    match running_slot(layout, boot) {
        Some(s @ (Slot::A | Slot::B)) => s.other(),
        _ => match rec.map(|r| r.active) {
            Some(s @ (Slot::A | Slot::B)) => s.other(),
            _ => Slot::A,
        },
    }
}

/// The software guard: `[addr, addr + len)` may be changed (never AMD's factory region).
fn guard(layout: &Layout, addr: u32, len: u32) -> Result<()> {
    layout
        .check_writable(addr, len)
        .map_err(|(a, l)| FlashError::FactoryRegion {
            addr: a,
            end: a as u64 + l as u64,
            factory_end: layout.factory.end(),
        })
}

/// Erase a 4 KB subsector, through the guard.
fn erase4(dev: &mut dyn FlashDevice, layout: &Layout, addr: u32) -> Result<()> {
    guard(layout, addr, SUBSECTOR)?;
    dev.erase_4k(addr)
}

/// Program one page, through the guard.
fn program_page(dev: &mut dyn FlashDevice, layout: &Layout, addr: u32, data: &[u8]) -> Result<()> {
    guard(layout, addr, data.len() as u32)?;
    dev.program_page(addr, data)
}

/// Erase what `[base, base + len)` of a region needs: 4 KB subsectors up to the first 64 KB boundary
/// (golden starts at 0x0100_2000, inside the sector whose first 8 KB are the factory image's), then
/// whole 64 KB sectors (a region ends on a sector boundary).
fn erase_range(
    dev: &mut dyn FlashDevice,
    layout: &Layout,
    base: u32,
    len: u32,
    p: &mut dyn Progress,
) -> Result<()> {
    let end = base + len.div_ceil(SUBSECTOR) * SUBSECTOR;
    p.phase("erase", (end - base) as u64);
    let mut a = base;
    while a < end {
        if a.is_multiple_of(SECTOR) {
            guard(layout, a, SECTOR)?;
            dev.erase_64k(a)?;
            p.advance(SECTOR.min(end - a) as u64);
            a += SECTOR;
        } else {
            erase4(dev, layout, a)?;
            p.advance(SUBSECTOR as u64);
            a += SUBSECTOR;
        }
    }
    Ok(())
}

/// Program bytes at `base` page by page, skipping pages that are all 0xFF (already erased).
fn program(
    dev: &mut dyn FlashDevice,
    layout: &Layout,
    base: u32,
    data: &[u8],
    p: &mut dyn Progress,
) -> Result<u64> {
    p.phase("program", data.len() as u64);
    let mut pages = 0;
    for (i, page) in data.chunks(PAGE as usize).enumerate() {
        if page.iter().any(|&b| b != 0xFF) {
            program_page(dev, layout, base + (i as u32) * PAGE, page)?;
            pages += 1;
        }
        p.advance(page.len() as u64);
    }
    Ok(pages)
}

/// Read back and compare; returns the first differing address.
fn verify_bytes(
    dev: &mut dyn FlashDevice,
    base: u32,
    data: &[u8],
    want_sha: &[u8; 32],
    p: &mut dyn Progress,
) -> Result<std::result::Result<(), u32>> {
    p.phase("verify", data.len() as u64);
    let mut h = sha2::Sha256::default();
    let mut buf = vec![0u8; SECTOR as usize];
    let mut first_bad = None;
    for (i, chunk) in data.chunks(SECTOR as usize).enumerate() {
        let b = &mut buf[..chunk.len()];
        let at = base + (i as u32) * SECTOR;
        dev.read(at, b)?;
        if first_bad.is_none() {
            if let Some(k) = b.iter().zip(chunk).position(|(x, y)| x != y) {
                first_bad = Some(at + k as u32);
            }
        }
        sha2::Digest::update(&mut h, &*b);
        p.advance(chunk.len() as u64);
    }
    let got: [u8; 32] = sha2::Digest::finalize(h).into();
    Ok(match first_bad {
        Some(a) => Err(a),
        None if &got != want_sha => Err(base),
        None => Ok(()),
    })
}

/// Write the next record (active = `active`, slot fields updated by `f`) into the older copy.
pub fn write_record(
    dev: &mut dyn FlashDevice,
    layout: &Layout,
    boot: &BootState,
    f: impl FnOnce(&mut BootRecord),
) -> Result<(u32, usize)> {
    let copies = read_records(dev, layout)?;
    let mut rec = record::current(&copies[0], &copies[1])
        .map(|(_, r)| r)
        .unwrap_or_else(|| BootRecord::empty(layout));
    rec.generation = rec.generation.wrapping_add(1);
    if let Some(s) = failed_slot(layout, boot) {
        rec.set_bad(s, true);
    }
    f(&mut rec);
    let which = record::copy_to_overwrite(&copies[0], &copies[1]);
    let addr = layout.records()[which];
    let bytes = rec.encode();
    erase4(dev, layout, addr)?;
    program_page(dev, layout, addr, &bytes)?;
    let mut back = [0u8; record::LEN];
    dev.read(addr, &mut back)?;
    if back != bytes {
        return Err(FlashError::VerifyFailed {
            slot: rec.active,
            addr,
        });
    }
    Ok((rec.generation, which))
}

fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

/// Decide the slot and check everything; nothing is written. Returns (layout, slot, boot state).
pub fn plan_write(
    dev: &mut dyn FlashDevice,
    img: &Image,
    opts: &WriteOptions,
) -> Result<(FlashCap, Layout, Slot, BootState)> {
    let (cap, layout, _) = preflight(dev)?;
    let boot = dev.boot_state()?;
    let copies = read_records(dev, &layout)?;
    let cur = record::current(&copies[0], &copies[1]).map(|(_, r)| r);
    let slot = opts
        .slot
        .unwrap_or_else(|| default_slot(&layout, &boot, cur.as_ref()));
    if slot == Slot::Golden && !opts.allow_golden {
        return Err(FlashError::GoldenNeedsFlag);
    }
    img.check(cap.board, &slot.to_string(), layout.region(slot))?;
    // the record's choice holds the known-good image: keep it, unless it is flagged bad, just
    // failed to configure, or its data no longer matches its header and the record (`verify` found
    // it corrupt: rewriting it is the repair)
    let known_good = |r: &BootRecord| !r.is_bad(slot) && failed_slot(&layout, &boot) != Some(slot);
    if slot != Slot::Golden
        && cur
            .as_ref()
            .is_some_and(|r| r.active == slot && known_good(r))
        && slot_verifies(dev, &layout, slot, cur.as_ref())?
    {
        return Err(FlashError::ActiveSlot {
            slot,
            other: slot.other(),
            running: if running_slot(&layout, &boot) == Some(slot) {
                " and the one running"
            } else {
                ""
            },
        });
    }
    Ok((cap, layout, slot, boot))
}

/// Whether `slot` holds a complete image whose data matches its header's sha256 and, when the record
/// names an image for it, the record's sha256 too.
pub fn slot_verifies(
    dev: &mut dyn FlashDevice,
    layout: &Layout,
    slot: Slot,
    rec: Option<&BootRecord>,
) -> Result<bool> {
    let region = layout.region(slot);
    let Some(h) = read_header(dev, region)? else {
        return Ok(false);
    };
    if h.data_len == 0 || h.data_len > region.max_image() {
        return Ok(false);
    }
    if let Some(rs) = rec
        .filter(|r| r.slot(slot).is_some_and(|(_, l)| l > 0))
        .and_then(|r| r.sha(slot))
    {
        if *rs != h.sha256 {
            return Ok(false);
        }
    }
    let mut hasher = sha2::Sha256::default();
    let mut buf = vec![0u8; SECTOR as usize];
    let mut at = region.base;
    let mut left = h.data_len as usize;
    while left > 0 {
        let n = left.min(buf.len());
        dev.read(at, &mut buf[..n])?;
        sha2::Digest::update(&mut hasher, &buf[..n]);
        at += n as u32;
        left -= n;
    }
    let got: [u8; 32] = sha2::Digest::finalize(hasher).into();
    Ok(got == h.sha256)
}

/// `tsnic flash write`.
pub fn write(
    dev: &mut dyn FlashDevice,
    img: &Image,
    opts: &WriteOptions,
    p: &mut dyn Progress,
) -> Result<WriteReport> {
    let (_, layout, slot, boot) = plan_write(dev, img, opts)?;
    let t0 = dev.sim_ns();
    let r0 = dev.reg_accesses();
    let region = layout.region(slot);
    if slot == Slot::Golden {
        // open golden, keep the factory image protected (all but its last 8 KB, which the guard keeps)
        dev.write_status(layout.golden_write_sr)?;
    }
    let result = write_region(dev, &layout, img, region, slot, p);
    if slot == Slot::Golden {
        // protect golden again whatever happened (the write's own error comes first)
        let restore = dev.write_status(layout.protect_sr);
        if result.is_ok() {
            restore?;
        }
    }
    let pages = result?;
    let (generation, record_copy) = if slot == Slot::Golden {
        (None, None)
    } else {
        p.phase("boot record", 1);
        let len = img.data.len() as u32;
        let sha = img.sha256;
        let (g, c) = write_record(dev, &layout, &boot, |r| {
            r.active = slot;
            r.set_bad(slot, false);
            match slot {
                Slot::A => {
                    r.slot_a = (region.base, len);
                    r.sha_a = sha;
                }
                _ => {
                    r.slot_b = (region.base, len);
                    r.sha_b = sha;
                }
            }
        })?;
        p.advance(1);
        (Some(g), Some(c))
    };
    Ok(WriteReport {
        slot,
        bytes: img.data.len(),
        pages,
        generation,
        record_copy,
        sim_ns: dev.sim_ns().zip(t0).map(|(a, b)| a - b),
        reg_accesses: dev.reg_accesses().zip(r0).map(|(a, b)| a - b),
    })
}

fn write_region(
    dev: &mut dyn FlashDevice,
    layout: &Layout,
    img: &Image,
    region: Region,
    slot: Slot,
    p: &mut dyn Progress,
) -> Result<u64> {
    // the old header first: from here on the slot holds no complete image
    erase4(dev, layout, region.header_addr())?;
    erase_range(dev, layout, region.base, img.data.len() as u32, p)?;
    let pages = program(dev, layout, region.base, &img.data, p)?;
    if let Err(addr) = verify_bytes(dev, region.base, &img.data, &img.sha256, p)? {
        return Err(FlashError::VerifyFailed { slot, addr });
    }
    let h = ImageHeader::for_image(img, unix_now()).encode();
    program_page(dev, layout, region.header_addr(), &h)?;
    let mut back = [0u8; HEADER_LEN];
    dev.read(region.header_addr(), &mut back)?;
    if back != h {
        return Err(FlashError::VerifyFailed {
            slot,
            addr: region.header_addr(),
        });
    }
    Ok(pages + 1)
}

/// One image's verification result.
#[derive(Debug, Clone, serde::Serialize)]
pub struct SlotCheck {
    /// Which.
    pub slot: Slot,
    /// Empty (no header): nothing to check.
    pub empty: bool,
    /// Data matches its header's sha256.
    pub ok: bool,
    /// The record's sha256 differs from the header's (the record names another image).
    pub record_mismatch: bool,
    /// The record selects it.
    pub selected: bool,
}

/// `tsnic flash verify`: read every image back and check its sha256 against its header and the
/// boot record. Returns the checks; the caller fails when any image that has a header, or the slot
/// the record selects, is not ok.
pub fn verify(dev: &mut dyn FlashDevice, p: &mut dyn Progress) -> Result<Vec<SlotCheck>> {
    let (_, layout, _) = preflight(dev)?;
    let copies = read_records(dev, &layout)?;
    let cur = record::current(&copies[0], &copies[1]).map(|(_, r)| r);
    let mut out = Vec::new();
    for s in [Slot::Golden, Slot::A, Slot::B] {
        let region = layout.region(s);
        let selected = cur.as_ref().is_some_and(|r| r.active == s);
        let Some(h) = read_header(dev, region)? else {
            out.push(SlotCheck {
                slot: s,
                empty: true,
                ok: false,
                record_mismatch: false,
                selected,
            });
            continue;
        };
        let mut data = vec![0u8; h.data_len.min(region.max_image()) as usize];
        p.phase("verify", data.len() as u64);
        for (i, c) in data.chunks_mut(SECTOR as usize).enumerate() {
            dev.read(region.base + i as u32 * SECTOR, c)?;
            p.advance(c.len() as u64);
        }
        let ok = h.data_len <= region.max_image() && sha256(&data) == h.sha256;
        let record_mismatch = cur
            .as_ref()
            .and_then(|r| r.slot(s).filter(|(_, l)| *l > 0).map(|_| r.sha(s).copied()))
            .flatten()
            .is_some_and(|rs| rs != h.sha256);
        out.push(SlotCheck {
            slot: s,
            empty: false,
            ok,
            record_mismatch,
            selected,
        });
    }
    Ok(out)
}

/// `tsnic flash boot`: reboot into `slot` (IPROG to its warm-boot address); with `make_default`,
/// first make it the record's active slot (golden: stay golden). Refuses a slot without a complete
/// image (its header, and its data's sha256).
pub fn boot(dev: &mut dyn FlashDevice, slot: Slot, make_default: bool) -> Result<()> {
    let (_, layout, _) = preflight(dev)?;
    let region = layout.region(slot);
    let h = read_header(dev, region)?;
    let ok = match &h {
        Some(h) if h.data_len <= region.max_image() => {
            let mut data = vec![0u8; h.data_len as usize];
            dev.read(region.base, &mut data)?;
            sha256(&data) == h.sha256
        }
        _ => false,
    };
    if !ok {
        return Err(FlashError::BadArgument(format!(
            "slot {slot} holds no complete image (no valid header, or its data does not match it): the FPGA would fall back to golden; write an image there first (`tsnic flash write IMAGE --slot {slot}`); nothing was changed"
        )));
    }
    if make_default {
        let boot = dev.boot_state()?;
        write_record(dev, &layout, &boot, |r| {
            r.active = slot;
            r.set_bad(slot, false);
        })?;
    }
    dev.iprog(region.base)
}

#[cfg(test)]
mod tests {
    use super::super::layout::{Board, LAYOUT_128M};
    use super::super::model::ModelCard;
    use super::*;

    #[test]
    fn the_guard_refuses_the_factory_region_before_touching_the_part() {
        let mut card = ModelCard::factory(Board::U50);
        // clear the protection: only the software guard stands between tsnic and the factory image
        card.chip.set_status_nv(0);
        let before = card.chip.clone();
        let l = LAYOUT_128M;
        for (addr, len) in [(0u32, 4096u32), (0x0100_0000, 0x3000), (0x0100_1000, 8192)] {
            let e = erase_range(&mut card, &l, addr, len, &mut NoProgress).unwrap_err();
            assert!(matches!(e, FlashError::FactoryRegion { .. }), "{e}");
            assert!(e.to_string().contains("AMD's factory image"), "{e}");
            assert!(e.to_string().contains("--slot A"), "{e}");
        }
        let e = program(&mut card, &l, 0x0100_1F00, &[0u8; 256], &mut NoProgress).unwrap_err();
        assert!(matches!(e, FlashError::FactoryRegion { .. }), "{e}");
        for s in 0..(l.size / SECTOR) as usize {
            assert!(
                before.sector_bytes(s) == card.chip.sector_bytes(s),
                "sector {s} changed"
            );
        }
        // from 0x01002000 on it erases 4 KB subsectors up to the sector boundary
        erase_range(&mut card, &l, l.golden.base, 0x1_0000, &mut NoProgress).unwrap();
        let mut b = [0u8; 16];
        card.chip.peek(l.factory.header_addr(), &mut b);
        let mut want = [0u8; 16];
        before.peek(l.factory.header_addr(), &mut want);
        assert!(
            want != [0xFF; 16],
            "the model's factory image has its header there"
        );
        assert_eq!(b, want, "the factory image's last bytes survive");
    }
}
