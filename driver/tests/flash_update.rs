//! The flash update procedure on the flash model (NOR part + FPGA configuration logic): write and
//! verify both slots and boot each, the default slot, fallback and bad flags, the register path,
//! and 200 power cuts during a write (the next power-up always boots a complete image).

use std::cell::RefCell;
use std::rc::Rc;

use tsnic::flash::image::{self, sha256, Image};
use tsnic::flash::layout::{Board, Slot, LAYOUT_128M};
use tsnic::flash::model::ModelCard;
use tsnic::flash::nor::NorFlash;
use tsnic::flash::regs::RegFlash;
use tsnic::flash::update::{self, NoProgress, WriteOptions};
use tsnic::flash::{record, BootState, FlashCap, FlashDevice, FlashError};

fn img(len: usize, seed: u64) -> Image {
    let f = image::synth_bit(
        &format!("design{seed}"),
        "xcu50-fsvh2104-2-e",
        "2026/12/01",
        "12:00:00",
        len,
        seed,
    );
    image::parse_bit(&format!("img{seed}.bit"), &f).unwrap()
}

fn write(
    dev: &mut dyn FlashDevice,
    i: &Image,
    slot: Option<Slot>,
) -> Result<update::WriteReport, FlashError> {
    update::write(
        dev,
        i,
        &WriteOptions {
            slot,
            allow_golden: false,
        },
        &mut NoProgress,
    )
}

/// sha256 of what the running image's region holds, read straight from the part.
fn running_sha(card: &ModelCard) -> Option<(Slot, [u8; 32])> {
    let slot = card.running.slot?;
    let h = card.running.header.as_ref()?;
    let mut d = vec![0u8; h.data_len as usize];
    card.chip.peek(LAYOUT_128M.region(slot).base, &mut d);
    Some((slot, sha256(&d)))
}

#[test]
fn both_slots_written_verified_and_booted() {
    let mut card = ModelCard::factory(Board::U50);
    assert_eq!(card.running.slot, Some(Slot::Golden));
    let x = img(150_000, 1);
    let y = img(220_000, 2);
    let z = img(90_000, 3);
    // golden runs, no record: the first write goes to A
    let r = write(&mut card, &x, None).unwrap();
    assert_eq!(r.slot, Slot::A);
    assert_eq!(r.generation, Some(1));
    // still golden until a boot
    assert_eq!(card.running.slot, Some(Slot::Golden));
    update::boot(&mut card, Slot::A, false).unwrap();
    assert_eq!(running_sha(&card), Some((Slot::A, x.sha256)));
    // A runs: the second write goes to the other slot
    let r = write(&mut card, &y, None).unwrap();
    assert_eq!(r.slot, Slot::B);
    assert_eq!(r.generation, Some(2));
    let checks = update::verify(&mut card, &mut NoProgress).unwrap();
    assert!(
        checks.iter().all(|c| c.ok && !c.record_mismatch),
        "{checks:?}"
    );
    update::boot(&mut card, Slot::B, false).unwrap();
    assert_eq!(running_sha(&card), Some((Slot::B, y.sha256)));
    // power-up follows the record: B
    card.power_cycle();
    assert_eq!(running_sha(&card), Some((Slot::B, y.sha256)));
    // B runs and is the record's choice: writing B is refused, nothing written
    let before = card.chip.clone();
    let e = write(&mut card, &z, Some(Slot::B)).unwrap_err();
    assert!(matches!(e, FlashError::ActiveSlot { .. }), "{e}");
    assert!(e.to_string().contains("nothing was written"));
    assert_same(&before, &card.chip);
    // the default is A; then boot A one-shot, power-up goes to A (the record says so)
    let r = write(&mut card, &z, None).unwrap();
    assert_eq!(r.slot, Slot::A);
    card.power_cycle();
    assert_eq!(running_sha(&card), Some((Slot::A, z.sha256)));
    // boot golden, then B --default: the record now selects B
    update::boot(&mut card, Slot::Golden, false).unwrap();
    assert_eq!(card.running.slot, Some(Slot::Golden));
    update::boot(&mut card, Slot::B, true).unwrap();
    card.power_cycle();
    assert_eq!(running_sha(&card), Some((Slot::B, y.sha256)));
    let i = update::info(&mut card).unwrap();
    assert_eq!(i.record.as_ref().unwrap().1.active, Slot::B);
    assert!(i.golden_protected);
}

fn assert_same(a: &NorFlash, b: &NorFlash) {
    for s in 0..(a.size() / 65536) as usize {
        assert!(a.sector_bytes(s) == b.sector_bytes(s), "sector {s} changed");
    }
    assert_eq!(a.status_nv(), b.status_nv());
}

#[test]
fn refusals_write_nothing() {
    let mut card = ModelCard::factory(Board::U50);
    let before = card.chip.clone();
    // wrong part
    let f = image::synth_bit("d", "xcu280-fsvh2892-2L-e", "", "", 10_000, 1);
    let wrong = image::parse_bit("u280.bit", &f).unwrap();
    let e = write(&mut card, &wrong, None).unwrap_err();
    assert!(e.to_string().contains("build the design for xcu50"), "{e}");
    // oversize (the slot holds 0x02FF0000 - 4096 bytes)
    let big = Image {
        data: vec![0x11; LAYOUT_128M.a.max_image() as usize + 1],
        ..img(1000, 2)
    };
    let e = write(&mut card, &big, Some(Slot::B)).unwrap_err();
    assert!(e.to_string().contains("do not fit slot B"), "{e}");
    // golden without the flag
    let e = write(&mut card, &img(1000, 3), Some(Slot::Golden)).unwrap_err();
    assert!(matches!(e, FlashError::GoldenNeedsFlag));
    assert_same(&before, &card.chip);
    // SUME: not writable over PCIe
    let mut sume = ModelCard::factory(Board::Sume);
    let before = sume.chip.clone();
    let f = image::synth_bit("d", "xc7vx690tffg1761-3", "", "", 10_000, 1);
    let e = write(&mut sume, &image::parse_bit("s.bit", &f).unwrap(), None).unwrap_err();
    assert!(e.to_string().contains("JTAG"), "{e}");
    assert_same(&before, &sume.chip);
}

/// A device that logs every erase, program and status write it passes on.
struct Audit<'a> {
    inner: &'a mut ModelCard,
    changes: Vec<(u32, u32)>,
    srs: Vec<u8>,
}

impl FlashDevice for Audit<'_> {
    fn describe(&self) -> String {
        self.inner.describe()
    }
    fn cap(&mut self) -> tsnic::flash::Result<FlashCap> {
        self.inner.cap()
    }
    fn read_id(&mut self) -> tsnic::flash::Result<[u8; 3]> {
        self.inner.read_id()
    }
    fn read(&mut self, addr: u32, buf: &mut [u8]) -> tsnic::flash::Result<()> {
        self.inner.read(addr, buf)
    }
    fn program_page(&mut self, addr: u32, data: &[u8]) -> tsnic::flash::Result<()> {
        self.changes.push((addr, data.len() as u32));
        self.inner.program_page(addr, data)
    }
    fn erase_4k(&mut self, addr: u32) -> tsnic::flash::Result<()> {
        self.changes.push((addr, 4096));
        self.inner.erase_4k(addr)
    }
    fn erase_64k(&mut self, addr: u32) -> tsnic::flash::Result<()> {
        self.changes.push((addr, 65536));
        self.inner.erase_64k(addr)
    }
    fn status(&mut self) -> tsnic::flash::Result<(u8, u8)> {
        self.inner.status()
    }
    fn write_status(&mut self, sr: u8) -> tsnic::flash::Result<()> {
        self.srs.push(sr);
        self.inner.write_status(sr)
    }
    fn iprog(&mut self, addr: u32) -> tsnic::flash::Result<()> {
        self.inner.iprog(addr)
    }
    fn boot_state(&mut self) -> tsnic::flash::Result<BootState> {
        self.inner.boot_state()
    }
}

fn factory_bytes(chip: &NorFlash) -> Vec<u8> {
    let mut d = vec![0u8; LAYOUT_128M.factory.len as usize];
    chip.peek(0, &mut d);
    d
}

#[test]
fn golden_write_with_the_flag_keeps_golden_protected_and_the_factory_image_untouched() {
    let mut card = ModelCard::factory(Board::U50);
    let factory = factory_bytes(&card.chip);
    // a golden image as large as its region allows: it reaches the last 4 KB before the header
    let g = Image {
        data: {
            let mut d = img(1000, 9).data;
            d.resize(LAYOUT_128M.golden.max_image() as usize, 0x5A);
            d
        },
        ..img(1000, 9)
    };
    let g = Image {
        sha256: sha256(&g.data),
        ..g
    };
    let mut audit = Audit {
        inner: &mut card,
        changes: Vec::new(),
        srs: Vec::new(),
    };
    let r = update::write(
        &mut audit,
        &g,
        &WriteOptions {
            slot: Some(Slot::Golden),
            allow_golden: true,
        },
        &mut NoProgress,
    )
    .unwrap();
    assert_eq!(r.slot, Slot::Golden);
    assert_eq!(r.generation, None, "golden does not touch the record");
    // nothing below 0x01002000 was erased or programmed, and the 64 KB sector shared with the
    // factory image was erased 4 KB at a time
    let (changes, srs) = (audit.changes, audit.srs);
    assert!(
        changes.iter().all(|&(a, _)| a >= 0x0100_2000),
        "{:x?}",
        &changes[..4]
    );
    assert!(
        changes.contains(&(0x0100_2000, 4096)),
        "{:x?}",
        &changes[..4]
    );
    // the status register was never opened below 16 MB, and ends protecting factory and golden
    assert_eq!(
        srs,
        vec![LAYOUT_128M.golden_write_sr, LAYOUT_128M.protect_sr]
    );
    assert_eq!(card.chip.status_nv(), LAYOUT_128M.protect_sr);
    assert!(
        factory_bytes(&card.chip) == factory,
        "the factory image changed"
    );
    card.power_cycle();
    assert_eq!(running_sha(&card), Some((Slot::Golden, g.sha256)));
    // one byte more does not fit
    let big = Image {
        data: vec![0x11; LAYOUT_128M.golden.max_image() as usize + 1],
        ..img(1000, 10)
    };
    let e = update::write(
        &mut card,
        &big,
        &WriteOptions {
            slot: Some(Slot::Golden),
            allow_golden: true,
        },
        &mut NoProgress,
    )
    .unwrap_err();
    assert!(e.to_string().contains("do not fit slot golden"), "{e}");
}

#[test]
fn a_slot_that_fails_falls_back_to_the_factory_image() {
    let mut card = ModelCard::factory(Board::U50);
    let x = img(150_000, 1);
    let y = img(150_000, 2);
    write(&mut card, &x, Some(Slot::A)).unwrap();
    card.power_cycle();
    assert_eq!(running_sha(&card), Some((Slot::A, x.sha256)));
    // a one-shot boot of a slot that does not configure: the FPGA falls back to address 0 and stays
    // in AMD's factory image (its IPROG is ignored in a fallback); tsnic's registers are gone
    write(&mut card, &y, Some(Slot::B)).unwrap(); // the record now selects B
    update::boot(&mut card, Slot::A, true).unwrap(); // A again by default
    card.chip.poke(LAYOUT_128M.b.base + 5000, &[0]);
    // `boot` refuses a slot whose data does not match its header: IPROG directly, as a card would
    card.iprog(LAYOUT_128M.b.base).unwrap();
    assert!(card.running.factory && card.running.slot.is_none());
    assert!(card.running.state.fallback);
    let e = update::info(&mut card).unwrap_err();
    assert!(matches!(e, FlashError::FactoryImage { .. }), "{e}");
    let msg = e.to_string();
    assert!(
        msg.contains("AMD's factory image") && msg.contains("B (") && msg.contains("Power-cycle"),
        "{msg}"
    );
    // a power cycle runs the record's choice again: A
    card.power_cycle();
    assert_eq!(running_sha(&card), Some((Slot::A, x.sha256)));
    assert!(!card.running.state.fallback && !card.running.factory);
    // the record selecting a slot that does not configure: every power-up lands in the factory
    // image (the limit docs/FIRMWARE.md states: recovery over JTAG)
    let mut rec = {
        let copies = update::read_records(&mut card, &LAYOUT_128M).unwrap();
        record::current(&copies[0], &copies[1]).unwrap().1
    };
    rec.active = Slot::B;
    rec.generation += 1;
    for at in LAYOUT_128M.records() {
        card.chip.poke(at, &[0xFF; 4096]);
        card.chip.poke(at, &rec.encode());
    }
    for _ in 0..2 {
        card.power_cycle();
        assert!(card.running.factory, "{:?}", card.running.attempts);
        assert!(matches!(card.cap(), Err(FlashError::FactoryImage { .. })));
    }
}

#[test]
fn register_path_writes_what_the_model_path_writes() {
    let x = img(100_000, 4);
    let mut direct = ModelCard::factory(Board::U50);
    write(&mut direct, &x, None).unwrap();

    let card = Rc::new(RefCell::new(ModelCard::factory(Board::U50)));
    let mut mem = tsnic::flash::ctrl_model::mem_backend(card.clone());
    let mut dev = RegFlash::new(&mut mem);
    let r = write(&mut dev, &x, None).unwrap();
    assert_eq!(r.slot, Slot::A);
    let per_kb = r.reg_accesses.unwrap() as f64 / (x.data.len() as f64 / 1024.0);
    // 64 data words + address + command + status per 256-byte page written and read back
    assert!(
        (500.0..600.0).contains(&per_kb),
        "{per_kb} register accesses per KB"
    );
    let info = update::info(&mut dev).unwrap();
    assert_eq!(info.jedec_id, "20 bb 21");
    assert_eq!(info.cap.board, Board::U50);
    update::boot(&mut dev, Slot::A, false).unwrap();
    let st = dev.boot_state().unwrap();
    assert_eq!(st.wbstar, LAYOUT_128M.a.base);
    drop(dev);
    {
        let c = card.borrow();
        // same bytes, except the header's written-at time
        for s in 0..(LAYOUT_128M.size / 65536) as usize {
            let (a, b) = (direct.chip.sector_bytes(s), c.chip.sector_bytes(s));
            if s as u32 * 65536 == LAYOUT_128M.a.header_addr() & !0xFFFF {
                let off = (LAYOUT_128M.a.header_addr() & 0xFFFF) as usize;
                assert_eq!(a[..off], b[..off]);
                assert_eq!(a[off..off + 12], b[off..off + 12]);
                assert_eq!(a[off + 20..off + 252], b[off + 20..off + 252]);
            } else {
                assert!(a == b, "sector {s} differs");
            }
        }
    }
    // a command while busy sets ERROR, protection is reported as such
    let mut dev = RegFlash::new(&mut mem);
    let e = dev.erase_64k(0).unwrap_err();
    assert!(matches!(e, FlashError::Protected { .. }), "{e}");
    let _ = (FlashCap::from_reg(0).is_err(), BootState::default());
}

/// What one FlashDevice call was, with the simulated time it started and ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    EraseData,
    EraseHeader,
    EraseRecord,
    ProgramData,
    ProgramHeader,
    ProgramRecord,
    Other,
}

struct Logged<'a> {
    inner: &'a mut ModelCard,
    log: Vec<(Kind, u64, u64)>,
}

impl Logged<'_> {
    fn op<T>(
        &mut self,
        k: Kind,
        f: impl FnOnce(&mut ModelCard) -> tsnic::flash::Result<T>,
    ) -> tsnic::flash::Result<T> {
        let t0 = self.inner.chip.now();
        let r = f(self.inner);
        self.log.push((k, t0, self.inner.chip.now()));
        r
    }
}

fn classify_erase(addr: u32, size: u32) -> Kind {
    let l = LAYOUT_128M;
    if l.records().contains(&addr) {
        Kind::EraseRecord
    } else if size == 4096 {
        Kind::EraseHeader
    } else {
        Kind::EraseData
    }
}

fn classify_program(addr: u32) -> Kind {
    let l = LAYOUT_128M;
    if l.records().contains(&addr) {
        Kind::ProgramRecord
    } else if [l.golden, l.a, l.b].iter().any(|r| r.header_addr() == addr) {
        Kind::ProgramHeader
    } else {
        Kind::ProgramData
    }
}

impl FlashDevice for Logged<'_> {
    fn describe(&self) -> String {
        self.inner.describe()
    }
    fn cap(&mut self) -> tsnic::flash::Result<FlashCap> {
        self.inner.cap()
    }
    fn read_id(&mut self) -> tsnic::flash::Result<[u8; 3]> {
        self.op(Kind::Other, |c| c.read_id())
    }
    fn read(&mut self, addr: u32, buf: &mut [u8]) -> tsnic::flash::Result<()> {
        self.op(Kind::Other, |c| c.read(addr, buf))
    }
    fn program_page(&mut self, addr: u32, data: &[u8]) -> tsnic::flash::Result<()> {
        self.op(classify_program(addr), |c| c.program_page(addr, data))
    }
    fn erase_4k(&mut self, addr: u32) -> tsnic::flash::Result<()> {
        self.op(classify_erase(addr, 4096), |c| c.erase_4k(addr))
    }
    fn erase_64k(&mut self, addr: u32) -> tsnic::flash::Result<()> {
        self.op(classify_erase(addr, 65536), |c| c.erase_64k(addr))
    }
    fn status(&mut self) -> tsnic::flash::Result<(u8, u8)> {
        self.op(Kind::Other, |c| c.status())
    }
    fn write_status(&mut self, sr: u8) -> tsnic::flash::Result<()> {
        self.op(Kind::Other, |c| c.write_status(sr))
    }
    fn iprog(&mut self, addr: u32) -> tsnic::flash::Result<()> {
        self.inner.iprog(addr)
    }
    fn boot_state(&mut self) -> tsnic::flash::Result<BootState> {
        self.inner.boot_state()
    }
    fn sim_ns(&self) -> Option<u64> {
        self.inner.sim_ns()
    }
}

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// Cut the power at `cut` during a write of `new` over `before`; power up; return what runs.
fn cut_and_power_up(
    before: &NorFlash,
    new: &Image,
    cut: u64,
    seed: u64,
) -> (Option<(Slot, [u8; 32])>, bool) {
    let mut chip = before.clone();
    chip.set_power_cut(cut, seed);
    let mut card = ModelCard::with_chip(Board::U50, chip);
    let r = write(&mut card, new, None);
    let completed = match r {
        Ok(_) => true,
        Err(FlashError::PowerLost) => false,
        Err(e) => panic!("write failed with {e} at cut {cut}"),
    };
    card.power_cycle();
    (running_sha(&card), completed)
}

#[test]
fn power_cut_at_200_points_always_boots_a_complete_image() {
    // the card runs A (old), the record selects A; the write under test goes to B
    let mut setup = ModelCard::factory(Board::U50);
    let old = img(180_000, 11);
    let new = img(200_000, 12);
    write(&mut setup, &old, Some(Slot::A)).unwrap();
    setup.power_cycle();
    assert_eq!(running_sha(&setup), Some((Slot::A, old.sha256)));
    let before = setup.chip.clone();

    // reference run: where every operation starts and ends
    let mut refcard = ModelCard::with_chip(Board::U50, before.clone());
    let t_start = refcard.chip.now();
    let mut logged = Logged {
        inner: &mut refcard,
        log: Vec::new(),
    };
    let r = write(&mut logged, &new, None).unwrap();
    assert_eq!(r.slot, Slot::B);
    let log = logged.log;
    let t_end = refcard.chip.now();
    let rec_start = log
        .iter()
        .find(|(k, ..)| *k == Kind::EraseRecord)
        .unwrap()
        .1;
    let rec_done = log
        .iter()
        .find(|(k, ..)| *k == Kind::ProgramRecord)
        .unwrap()
        .2;
    let of = |k: Kind| -> Vec<(u64, u64)> {
        log.iter()
            .filter(|(x, ..)| *x == k)
            .map(|&(_, a, b)| (a, b))
            .collect()
    };
    let first_program = of(Kind::ProgramData)[0].0;
    let last_erase_end = of(Kind::EraseData).last().unwrap().1;

    let mut rng = Rng(0x5eed_1234_abcd_0001);
    let mut points: Vec<(&str, u64)> = Vec::new();
    let inside =
        |rng: &mut Rng, k: Kind, n: usize, name: &'static str, pts: &mut Vec<(&str, u64)>| {
            let ops = of(k);
            assert!(!ops.is_empty(), "{k:?}");
            for _ in 0..n {
                let (a, b) = ops[rng.below(ops.len() as u64) as usize];
                pts.push((name, a + 1 + rng.below(b - a - 1)));
            }
        };
    inside(&mut rng, Kind::EraseData, 40, "mid-erase", &mut points);
    inside(&mut rng, Kind::ProgramData, 40, "mid-page", &mut points);
    inside(&mut rng, Kind::EraseHeader, 8, "header erase", &mut points);
    inside(
        &mut rng,
        Kind::ProgramHeader,
        8,
        "header program",
        &mut points,
    );
    inside(&mut rng, Kind::EraseRecord, 20, "record erase", &mut points);
    inside(
        &mut rng,
        Kind::ProgramRecord,
        20,
        "record program",
        &mut points,
    );
    // between erase and program
    for i in 0..14 {
        points.push((
            "erase/program gap",
            last_erase_end + (first_program - last_erase_end) * i / 14,
        ));
    }
    // at random operation boundaries
    for _ in 0..20 {
        let (_, a, b) = log[rng.below(log.len() as u64) as usize];
        points.push(("op boundary", if rng.next() & 1 == 0 { a } else { b }));
    }
    // after the new record copy is complete (its read-back, the end of the job)
    for i in 1..=6 {
        points.push(("record written", rec_done + (t_end - rec_done) * i / 6));
    }
    // anywhere
    while points.len() < 200 {
        points.push(("anywhere", t_start + rng.below(t_end - t_start + 1)));
    }
    assert_eq!(points.len(), 200);

    let mut old_boots = 0;
    let mut new_boots = 0;
    for (i, (what, cut)) in points.iter().enumerate() {
        let (run, completed) = cut_and_power_up(&before, &new, *cut, i as u64 + 1);
        let run =
            run.unwrap_or_else(|| panic!("cut {i} ({what}) at {cut}: the FPGA did not configure"));
        assert!(
            run == (Slot::A, old.sha256) || run == (Slot::B, new.sha256),
            "cut {i} ({what}) at {cut}: runs {:?}, neither the old A nor the complete new B",
            run.0
        );
        if *cut < rec_start {
            assert_eq!(
                run.0,
                Slot::A,
                "cut {i} ({what}) before the record update must boot the old slot"
            );
            assert!(!completed);
        }
        if *cut > rec_done {
            assert_eq!(
                run.0,
                Slot::B,
                "cut {i} ({what}) after the record was written must boot the new slot"
            );
        }
        if run.0 == Slot::A {
            old_boots += 1;
        } else {
            new_boots += 1;
        }
    }
    // the record phase is short: most cuts boot the old slot, some (in and after it) the new one
    assert!(
        old_boots > 150 && new_boots >= 6,
        "old {old_boots}, new {new_boots}"
    );
}

#[test]
fn power_cut_during_the_first_write_boots_golden_or_the_new_image() {
    // (golden here is tsnic's boot selector at 0x01002000, started by AMD's factory image)
    let factory = ModelCard::factory(Board::U50);
    let golden_sha = running_sha(&factory).unwrap().1;
    let before = factory.chip.clone();
    let new = img(150_000, 21);
    let mut refcard = ModelCard::with_chip(Board::U50, before.clone());
    let t0 = refcard.chip.now();
    write(&mut refcard, &new, None).unwrap();
    let t1 = refcard.chip.now();
    let mut rng = Rng(77);
    for i in 0..50 {
        let cut = t0 + rng.below(t1 - t0);
        let (run, _) = cut_and_power_up(&before, &new, cut, i + 100);
        let run = run.expect("configures");
        assert!(
            run == (Slot::Golden, golden_sha) || run == (Slot::A, new.sha256),
            "cut {i}: {:?}",
            run.0
        );
    }
}

/// A power cut anywhere in a golden write (the one write that lowers the protection) never touches
/// AMD's factory image nor leaves the part unprotected below 16 MB: the next power-up runs the new
/// golden image or, with golden torn, the factory image (a card that still enumerates), never nothing.
#[test]
fn power_cut_during_a_golden_write_leaves_the_factory_image_running() {
    let factory = ModelCard::factory(Board::U50);
    let before = factory.chip.clone();
    let amd = factory_bytes(&before);
    let g = img(300_000, 31);
    let opts = WriteOptions {
        slot: Some(Slot::Golden),
        allow_golden: true,
    };
    let mut refcard = ModelCard::with_chip(Board::U50, before.clone());
    let t0 = refcard.chip.now();
    update::write(&mut refcard, &g, &opts, &mut NoProgress).unwrap();
    let t1 = refcard.chip.now();
    let mut rng = Rng(0x601d);
    let (mut new_golden, mut in_factory) = (0, 0);
    for i in 0..21u64 {
        // 20 random points of the write, then one just after its end (the complete write)
        let cut = if i < 20 {
            t0 + rng.below(t1 - t0)
        } else {
            t1 + 1
        };
        let mut chip = before.clone();
        chip.set_power_cut(cut, i + 500);
        let mut card = ModelCard::with_chip(Board::U50, chip);
        match update::write(&mut card, &g, &opts, &mut NoProgress) {
            Ok(_) | Err(FlashError::PowerLost) => {}
            Err(e) => panic!("cut {i}: {e}"),
        }
        card.power_cycle();
        assert!(
            factory_bytes(&card.chip) == amd,
            "cut {i}: the factory image changed"
        );
        let sr = card.chip.status_nv();
        assert!(
            sr == LAYOUT_128M.protect_sr || sr == LAYOUT_128M.golden_write_sr,
            "cut {i}: SR {sr:#04x}"
        );
        if card.running.factory {
            in_factory += 1;
        } else {
            assert_eq!(
                running_sha(&card),
                Some((Slot::Golden, g.sha256)),
                "cut {i}"
            );
            new_golden += 1;
        }
    }
    assert!(
        in_factory >= 15 && new_golden >= 1,
        "factory {in_factory}, new golden {new_golden}"
    );
}
