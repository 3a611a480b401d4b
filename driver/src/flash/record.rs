//! The boot record (docs/FIRMWARE.md): two 128-byte copies in two 4 KB subsectors,
//! little-endian, each with a crc32 and a generation; the valid copy with the higher generation wins.
//! An update erases and rewrites only the older (or invalid) copy, so a power cut at any point leaves
//! at least one valid copy, either the old decision or the new one.
//!
//! Also here: the golden image's boot selector as a pure function ([`golden_select`]), the same rule
//! the RTL's selector (parameter GOLDEN=1) applies at power-up.

use super::layout::{Layout, Slot};

/// 'T','S','B','R' as a little-endian u32.
pub const MAGIC: u32 = 0x5242_5354;
/// Record format version.
pub const VERSION: u16 = 1;
/// Bytes per copy.
pub const LEN: usize = 128;
/// flags bit 0: slot A failed to configure.
pub const FLAG_A_BAD: u32 = 1;
/// flags bit 1: slot B failed to configure.
pub const FLAG_B_BAD: u32 = 2;

/// A decoded boot record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BootRecord {
    /// Slot to boot (A, B, or golden = stay golden).
    pub active: Slot,
    /// Generation (higher wins, wrapping compare).
    pub generation: u32,
    /// Slot A's address and image length (0: empty).
    pub slot_a: (u32, u32),
    /// Slot B's address and image length (0: empty).
    pub slot_b: (u32, u32),
    /// FLAG_* bits.
    pub flags: u32,
    /// sha256 of slot A's image.
    pub sha_a: [u8; 32],
    /// sha256 of slot B's image.
    pub sha_b: [u8; 32],
}

fn le32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

impl BootRecord {
    /// An empty record for a layout (both slots empty, stay golden, generation 0).
    pub fn empty(layout: &Layout) -> BootRecord {
        BootRecord {
            active: Slot::Golden,
            generation: 0,
            slot_a: (layout.a.base, 0),
            slot_b: (layout.b.base, 0),
            flags: 0,
            sha_a: [0; 32],
            sha_b: [0; 32],
        }
    }

    /// The 128 bytes of one copy.
    pub fn encode(&self) -> [u8; LEN] {
        let mut b = [0u8; LEN];
        b[0..4].copy_from_slice(&MAGIC.to_le_bytes());
        b[4..6].copy_from_slice(&VERSION.to_le_bytes());
        b[6] = self.active.record_code();
        b[7] = 0;
        b[8..12].copy_from_slice(&self.generation.to_le_bytes());
        b[12..16].copy_from_slice(&self.slot_a.0.to_le_bytes());
        b[16..20].copy_from_slice(&self.slot_a.1.to_le_bytes());
        b[20..24].copy_from_slice(&self.slot_b.0.to_le_bytes());
        b[24..28].copy_from_slice(&self.slot_b.1.to_le_bytes());
        b[28..32].copy_from_slice(&self.flags.to_le_bytes());
        b[32..64].copy_from_slice(&self.sha_a);
        b[64..96].copy_from_slice(&self.sha_b);
        let crc = crc32fast::hash(&b[0..124]);
        b[124..128].copy_from_slice(&crc.to_le_bytes());
        b
    }

    /// Decode a copy; `None` unless magic, version and crc32 match (and `active` is a known code).
    pub fn decode(b: &[u8]) -> Option<BootRecord> {
        if b.len() < LEN || le32(b, 0) != MAGIC || u16::from_le_bytes([b[4], b[5]]) != VERSION {
            return None;
        }
        if crc32fast::hash(&b[0..124]) != le32(b, 124) {
            return None;
        }
        let mut sha_a = [0; 32];
        let mut sha_b = [0; 32];
        sha_a.copy_from_slice(&b[32..64]);
        sha_b.copy_from_slice(&b[64..96]);
        Some(BootRecord {
            active: Slot::from_record_code(b[6])?,
            generation: le32(b, 8),
            slot_a: (le32(b, 12), le32(b, 16)),
            slot_b: (le32(b, 20), le32(b, 24)),
            flags: le32(b, 28),
            sha_a,
            sha_b,
        })
    }

    /// Address and length of a user slot's image as recorded (golden: none).
    pub fn slot(&self, s: Slot) -> Option<(u32, u32)> {
        match s {
            Slot::A => Some(self.slot_a),
            Slot::B => Some(self.slot_b),
            Slot::Golden => None,
        }
    }

    /// The recorded sha256 of a user slot.
    pub fn sha(&self, s: Slot) -> Option<&[u8; 32]> {
        match s {
            Slot::A => Some(&self.sha_a),
            Slot::B => Some(&self.sha_b),
            Slot::Golden => None,
        }
    }

    /// Whether a user slot is flagged bad.
    pub fn is_bad(&self, s: Slot) -> bool {
        match s {
            Slot::A => self.flags & FLAG_A_BAD != 0,
            Slot::B => self.flags & FLAG_B_BAD != 0,
            Slot::Golden => false,
        }
    }

    /// Set or clear a slot's bad flag.
    pub fn set_bad(&mut self, s: Slot, bad: bool) {
        let bit = match s {
            Slot::A => FLAG_A_BAD,
            Slot::B => FLAG_B_BAD,
            Slot::Golden => return,
        };
        if bad {
            self.flags |= bit;
        } else {
            self.flags &= !bit;
        }
    }

    /// A slot the golden selector would boot: holds an image (length > 0) and is not flagged bad.
    pub fn bootable(&self, s: Slot) -> bool {
        matches!(self.slot(s), Some((_, len)) if len > 0) && !self.is_bad(s)
    }
}

/// `a` is newer than `b` in wrapping order.
pub fn newer(a: u32, b: u32) -> bool {
    (a.wrapping_sub(b) as i32) > 0
}

/// The current record from the two copies' bytes: the valid one with the higher generation (copy 0
/// on a tie). Returns the copy index with it.
pub fn current(copy0: &[u8], copy1: &[u8]) -> Option<(usize, BootRecord)> {
    match (BootRecord::decode(copy0), BootRecord::decode(copy1)) {
        (Some(a), Some(b)) => {
            if newer(b.generation, a.generation) {
                Some((1, b))
            } else {
                Some((0, a))
            }
        }
        (Some(a), None) => Some((0, a)),
        (None, Some(b)) => Some((1, b)),
        (None, None) => None,
    }
}

/// Which copy an update overwrites: an invalid one, else the older one (never the current one).
pub fn copy_to_overwrite(copy0: &[u8], copy1: &[u8]) -> usize {
    match current(copy0, copy1) {
        Some((i, _)) => 1 - i,
        None => 0,
    }
}

/// What the golden image's boot selector does at start-up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Selection {
    /// IPROG to this slot at this warm-boot address.
    Boot(Slot, u32),
    /// Stay in the golden image.
    StayGolden,
}

/// The slot the golden selector picks from a record: the active slot if it holds an image and is not
/// flagged bad, else the other slot if that one does, else none (also when the record says "stay
/// golden", active = 0xFF).
pub fn golden_pick(rec: &BootRecord) -> Option<Slot> {
    match rec.active {
        Slot::Golden => None,
        a if rec.bootable(a) => Some(a),
        a if rec.bootable(a.other()) => Some(a.other()),
        _ => None,
    }
}

/// The golden image's boot selector, the rule of docs/FIRMWARE.md as the RTL (`tsnic_boot_select.v`,
/// GOLDEN=1) implements it: read both copies, take the valid one with the higher generation, pick a
/// slot ([`golden_pick`]). Not after a fallback: IPROG to the pick. After a fallback (BOOTSTS): the
/// pick is taken as the slot that failed; IPROG to the other slot if it holds an image and is not
/// flagged bad, else stay golden. It never writes the flash.
///
/// On the Alveo cards the fallback branch never runs: a failed configuration restarts at address 0,
/// AMD's factory image, whose embedded IPROG is ignored during a fallback (UG570, "Fallback
/// MultiBoot"), so tsnic's selector only ever starts from the factory image's IPROG at power-up
/// ([`super::config`], docs/FIRMWARE.md "Fallback"). The branch stays for a card whose selector sits
/// at address 0 itself. Its limit (shared with the RTL): BOOTSTS does not tell a second fallback from
/// the first, so with both slots broken and not flagged bad it would IPROG to the other slot after
/// every fallback.
pub fn golden_select(copy0: &[u8], copy1: &[u8], fallback: bool) -> Selection {
    let Some((_, rec)) = current(copy0, copy1) else {
        return Selection::StayGolden;
    };
    let addr = |s: Slot| rec.slot(s).map(|(a, _)| a).unwrap_or(0);
    let Some(pick) = golden_pick(&rec) else {
        return Selection::StayGolden;
    };
    if !fallback {
        return Selection::Boot(pick, addr(pick));
    }
    let other = pick.other();
    if rec.bootable(other) {
        Selection::Boot(other, addr(other))
    } else {
        Selection::StayGolden
    }
}

#[cfg(test)]
mod tests {
    use super::super::layout::LAYOUT_128M;
    use super::*;
    use proptest::prelude::*;

    fn rec(active: Slot, gen: u32) -> BootRecord {
        let mut r = BootRecord::empty(&LAYOUT_128M);
        r.active = active;
        r.generation = gen;
        r.slot_a.1 = 1000;
        r.slot_b.1 = 2000;
        r.sha_a = [0xA5; 32];
        r
    }

    #[test]
    fn layout_of_a_copy_matches_the_agreed_bytes() {
        let b = rec(Slot::B, 7).encode();
        assert_eq!(&b[0..4], b"TSBR");
        assert_eq!(b[4], 1);
        assert_eq!(b[6], 1);
        assert_eq!(u32::from_le_bytes(b[8..12].try_into().unwrap()), 7);
        assert_eq!(
            u32::from_le_bytes(b[12..16].try_into().unwrap()),
            0x0200_0000
        );
        assert!(b[96..124].iter().all(|&x| x == 0));
        // zlib.crc32(b"123456789") == 0xCBF43926: the IEEE 802.3 CRC the RTL computes
        assert_eq!(crc32fast::hash(b"123456789"), 0xCBF4_3926);
    }

    #[test]
    fn newer_copy_wins_and_the_older_is_overwritten() {
        let a = rec(Slot::A, 1).encode();
        let b = rec(Slot::B, 2).encode();
        assert_eq!(current(&a, &b).unwrap().0, 1);
        assert_eq!(copy_to_overwrite(&a, &b), 0);
        // wrapping: generation 0 is newer than u32::MAX
        let c = rec(Slot::A, u32::MAX).encode();
        let d = rec(Slot::B, 0).encode();
        assert_eq!(current(&c, &d).unwrap().1.active, Slot::B);
        // a torn copy loses
        let mut torn = b;
        torn[40] ^= 1;
        assert_eq!(current(&a, &torn).unwrap().0, 0);
        assert_eq!(copy_to_overwrite(&a, &torn), 1);
        let blank = [0xFFu8; LEN];
        assert!(current(&blank, &blank).is_none());
        assert_eq!(copy_to_overwrite(&blank, &blank), 0);
    }

    #[test]
    fn golden_selector_follows_the_record_and_falls_back() {
        let blank = [0xFFu8; LEN];
        let r = rec(Slot::A, 3).encode();
        assert_eq!(
            golden_select(&r, &blank, false),
            Selection::Boot(Slot::A, 0x0200_0000)
        );
        // after a fallback the pick (A) failed: B is bootable
        assert_eq!(
            golden_select(&r, &blank, true),
            Selection::Boot(Slot::B, 0x04FF_0000)
        );
        // A flagged bad: the pick is B; after B fails, A is bad: stay golden
        let mut bad = rec(Slot::A, 4);
        bad.set_bad(Slot::A, true);
        assert_eq!(
            golden_select(&bad.encode(), &r, false),
            Selection::Boot(Slot::B, 0x04FF_0000)
        );
        assert_eq!(
            golden_select(&bad.encode(), &r, true),
            Selection::StayGolden
        );
        // an empty slot is never booted
        let mut empty_b = rec(Slot::B, 5);
        empty_b.slot_b.1 = 0;
        empty_b.slot_a.1 = 0;
        assert_eq!(
            golden_select(&empty_b.encode(), &blank, false),
            Selection::StayGolden
        );
        // stay golden (active 0xFF), and no valid record
        assert_eq!(
            golden_select(&rec(Slot::Golden, 6).encode(), &blank, false),
            Selection::StayGolden
        );
        assert_eq!(golden_select(&blank, &blank, false), Selection::StayGolden);
    }

    proptest! {
        #[test]
        fn encode_decode_round_trip(gen in any::<u32>(), act in 0u8..3, flags in 0u32..4, la in any::<u32>(), sha in any::<[u8; 32]>()) {
            let mut r = rec([Slot::A, Slot::B, Slot::Golden][act as usize], gen);
            r.flags = flags;
            r.slot_a.1 = la;
            r.sha_b = sha;
            prop_assert_eq!(BootRecord::decode(&r.encode()), Some(r));
        }

        #[test]
        fn any_single_bit_flip_is_caught(bit in 0usize..(LEN * 8)) {
            let mut b = rec(Slot::B, 9).encode();
            b[bit / 8] ^= 1 << (bit % 8);
            prop_assert!(BootRecord::decode(&b).is_none());
        }
    }
}
