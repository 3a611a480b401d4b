//! Image tools: parse a Vivado `.bit` (its header: design name, part, date, time, data length) or take
//! a raw `.bin`, find the sync word, check the image against the card before anything is written, and
//! the image header each slot keeps in its last 4 KB subsector.
//!
//! A `.bit` file is a sequence of fields after a fixed preamble: `a` design name, `b` part, `c` date,
//! `d` time (each a big-endian u16 length and a NUL-terminated string), then `e` with a big-endian u32
//! length and the configuration data (what the FPGA reads from flash). A `.bin` is that data alone.

use std::path::Path;

use sha2::{Digest, Sha256};
use thiserror::Error;

use super::layout::{Board, Region};

/// The configuration sync word.
pub const SYNC_WORD: [u8; 4] = [0xAA, 0x99, 0x55, 0x66];
/// How far into the data the sync word must appear (dummy/bus-width words come first).
pub const SYNC_SEARCH: usize = 4096;

/// The fixed start of a .bit file: field length 9, the 9-byte preamble, then 0x0001.
const BIT_PREAMBLE: [u8; 13] = [
    0x00, 0x09, 0x0F, 0xF0, 0x0F, 0xF0, 0x0F, 0xF0, 0x0F, 0xF0, 0x00, 0x00, 0x01,
];

/// Why an image is refused. Nothing has been written when one of these is returned.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum ImageError {
    /// The file is not a .bit file it can parse.
    #[error("{path}: not a Vivado .bit file ({why}); give the .bit that write_bitstream made, or the raw .bin (write_bitstream -bin_file) with --part")]
    BadBit {
        /// File.
        path: String,
        /// What is wrong.
        why: String,
    },
    /// No sync word.
    #[error("{path}: no sync word (AA 99 55 66) in the first {SYNC_SEARCH} bytes of the configuration data: this is not an FPGA bitstream (an .mcs/.prm, or a bit-swapped .bin?); give the .bit or the .bin from write_bitstream")]
    NoSync {
        /// File.
        path: String,
    },
    /// Built for another FPGA.
    #[error("{path} is built for {image_part}, but this card ({board}) is a {card_part}: build the design for {card_part} (or pick the right card with --backend / --board)")]
    WrongPart {
        /// File.
        path: String,
        /// Part in the image.
        image_part: String,
        /// Board.
        board: Board,
        /// Card's part.
        card_part: String,
    },
    /// A .bin carries no part name.
    #[error("{path} is a raw .bin, which names no FPGA part: add --part PART (the part it was built for, e.g. {example}) or give the .bit")]
    BinNeedsPart {
        /// File.
        path: String,
        /// An example part.
        example: String,
    },
    /// Too big for the slot.
    #[error("{path}: {len} bytes of configuration data do not fit slot {slot} ({max} bytes): enable bitstream compression (set_property BITSTREAM.GENERAL.COMPRESS TRUE [current_design]) and rebuild")]
    TooLarge {
        /// File.
        path: String,
        /// Data length.
        len: usize,
        /// Slot name.
        slot: String,
        /// The slot's room.
        max: u32,
    },
    /// Empty image.
    #[error("{path} holds no configuration data: give a bitstream")]
    Empty {
        /// File.
        path: String,
    },
    /// Cannot read.
    #[error("cannot read {path}: {why}")]
    Read {
        /// File.
        path: String,
        /// OS error.
        why: String,
    },
}

/// A parsed image, ready to write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Image {
    /// Where it came from (for messages).
    pub path: String,
    /// Design name field (Vivado's `a` field, e.g. `top;UserID=0XFFFFFFFF;Version=2023.2`), or the
    /// file name for a .bin.
    pub design: String,
    /// FPGA part (`b` field, or --part for a .bin).
    pub part: Option<String>,
    /// Build date (`c`), empty for a .bin.
    pub date: String,
    /// Build time (`d`), empty for a .bin.
    pub time: String,
    /// The configuration data (what goes into flash).
    pub data: Vec<u8>,
    /// Offset of the sync word in `data`.
    pub sync_at: usize,
    /// sha256 of `data`.
    pub sha256: [u8; 32],
}

/// sha256 of bytes.
pub fn sha256(b: &[u8]) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(b);
    h.finalize().into()
}

/// Lower-case hex.
pub fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn find_sync(data: &[u8]) -> Option<usize> {
    let n = data.len().min(SYNC_SEARCH + 4);
    data[..n].windows(4).position(|w| w == SYNC_WORD)
}

fn cstr(b: &[u8]) -> String {
    let end = b.iter().position(|&x| x == 0).unwrap_or(b.len());
    String::from_utf8_lossy(&b[..end]).into_owned()
}

/// Parse the bytes of a .bit file.
pub fn parse_bit(path: &str, b: &[u8]) -> Result<Image, ImageError> {
    let bad = |why: &str| ImageError::BadBit {
        path: path.into(),
        why: why.into(),
    };
    if b.len() < BIT_PREAMBLE.len() || b[..BIT_PREAMBLE.len()] != BIT_PREAMBLE {
        return Err(bad(
            "it does not start with the .bit preamble 00 09 0F F0 ...",
        ));
    }
    let mut at = BIT_PREAMBLE.len();
    let (mut design, mut part, mut date, mut time) = (None, None, None, None);
    loop {
        let key = *b
            .get(at)
            .ok_or_else(|| bad("it ends before the data field `e`"))?;
        at += 1;
        if key == b'e' {
            let len_b = b
                .get(at..at + 4)
                .ok_or_else(|| bad("the data field's length is cut off"))?;
            let len = u32::from_be_bytes([len_b[0], len_b[1], len_b[2], len_b[3]]) as usize;
            at += 4;
            let data = b.get(at..at + len).ok_or_else(|| {
                bad(&format!(
                    "the data field says {len} bytes but the file has {} after it (truncated copy?)",
                    b.len() - at
                ))
            })?;
            let data = data.to_vec();
            if data.is_empty() {
                return Err(ImageError::Empty { path: path.into() });
            }
            let sync_at = find_sync(&data).ok_or(ImageError::NoSync { path: path.into() })?;
            let sha256 = sha256(&data);
            return Ok(Image {
                path: path.into(),
                design: design.unwrap_or_default(),
                part,
                date: date.unwrap_or_default(),
                time: time.unwrap_or_default(),
                data,
                sync_at,
                sha256,
            });
        }
        let len_b = b
            .get(at..at + 2)
            .ok_or_else(|| bad("a header field's length is cut off"))?;
        let len = u16::from_be_bytes([len_b[0], len_b[1]]) as usize;
        at += 2;
        let v = b
            .get(at..at + len)
            .ok_or_else(|| bad("a header field runs past the end"))?;
        at += len;
        let s = cstr(v);
        match key {
            b'a' => design = Some(s),
            b'b' => part = Some(s),
            b'c' => date = Some(s),
            b'd' => time = Some(s),
            k => return Err(bad(&format!("unknown header field {:?}", k as char))),
        }
    }
}

/// Take a raw .bin (configuration data alone); `part` is what the user says it was built for.
pub fn parse_bin(path: &str, b: &[u8], part: Option<&str>) -> Result<Image, ImageError> {
    if b.is_empty() {
        return Err(ImageError::Empty { path: path.into() });
    }
    let sync_at = find_sync(b).ok_or(ImageError::NoSync { path: path.into() })?;
    let name = Path::new(path)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    Ok(Image {
        path: path.into(),
        design: name,
        part: part.map(str::to_string),
        date: String::new(),
        time: String::new(),
        data: b.to_vec(),
        sync_at,
        sha256: sha256(b),
    })
}

/// Read and parse an image file: `.bit` by its preamble, anything else as a raw `.bin`.
pub fn load(path: &Path, part: Option<&str>) -> Result<Image, ImageError> {
    let shown = path.display().to_string();
    let b = std::fs::read(path).map_err(|e| ImageError::Read {
        path: shown.clone(),
        why: e.to_string(),
    })?;
    let is_bit_name = path
        .extension()
        .map(|e| e.eq_ignore_ascii_case("bit"))
        .unwrap_or(false);
    if is_bit_name || b.starts_with(&BIT_PREAMBLE) {
        parse_bit(&shown, &b)
    } else {
        parse_bin(&shown, &b, part)
    }
}

/// The device field of a part name (`xcu50` of `xcu50-fsvh2104-2-e`; 7-series names like
/// `xc7vx690tffg1761-3` carry the package without a dash).
pub fn device_of(part: &str) -> String {
    let p = part.trim().to_ascii_lowercase();
    let first = p.split('-').next().unwrap_or("").to_string();
    // 7-series: xc7vx690tffg1761 -> xc7vx690t (cut at the package letters after the size)
    if first.starts_with("xc7") {
        if let Some(i) = first.find('t').filter(|i| *i > 4) {
            return first[..=i].to_string();
        }
    }
    first
}

impl Image {
    /// Every check before writing `slot` of `board`: part, size. (The sync word was checked when
    /// parsing.) Returns the first failure.
    pub fn check(&self, board: Board, slot_name: &str, region: Region) -> Result<(), ImageError> {
        if let Some(want) = board.fpga_device() {
            let Some(part) = &self.part else {
                return Err(ImageError::BinNeedsPart {
                    path: self.path.clone(),
                    example: board.part().into(),
                });
            };
            if device_of(part) != want {
                return Err(ImageError::WrongPart {
                    path: self.path.clone(),
                    image_part: part.clone(),
                    board,
                    card_part: board.part().into(),
                });
            }
        }
        if self.data.len() > region.max_image() as usize {
            return Err(ImageError::TooLarge {
                path: self.path.clone(),
                len: self.data.len(),
                slot: slot_name.into(),
                max: region.max_image(),
            });
        }
        Ok(())
    }
}

/// 'T','S','I','H': the image header magic.
pub const HEADER_MAGIC: u32 = 0x4849_5354;
/// Image header bytes (one program page).
pub const HEADER_LEN: usize = 256;

/// The header a slot keeps in its last subsector, written after the data has been verified: its
/// presence (valid crc) means the data before it is complete. The configuration-logic model checks
/// the data's sha256 against it, standing in for the bitstream CRC the FPGA checks.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ImageHeader {
    /// Bytes of configuration data at the slot's start.
    pub data_len: u32,
    /// sha256 of the data.
    #[serde(serialize_with = "ser_hex")]
    pub sha256: [u8; 32],
    /// Design name (truncated to 95 bytes).
    pub design: String,
    /// Part (truncated to 31 bytes).
    pub part: String,
    /// Build date.
    pub date: String,
    /// Build time.
    pub time: String,
    /// When it was written (Unix seconds).
    pub written_unix: u64,
}

fn ser_hex<S: serde::Serializer>(v: &[u8; 32], s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&hex(v))
}

fn put_str(b: &mut [u8], s: &str) {
    let n = s.len().min(b.len() - 1);
    b[..n].copy_from_slice(&s.as_bytes()[..n]);
}

impl ImageHeader {
    /// The header for an image.
    pub fn for_image(img: &Image, written_unix: u64) -> ImageHeader {
        ImageHeader {
            data_len: img.data.len() as u32,
            sha256: img.sha256,
            design: img.design.clone(),
            part: img.part.clone().unwrap_or_default(),
            date: img.date.clone(),
            time: img.time.clone(),
            written_unix,
        }
    }

    /// Layout: 0 magic, 4 version u16 = 1, 8 data_len, 12 written_unix u64, 20 sha256[32],
    /// 52 design[96], 148 part[32], 180 date[16], 196 time[16], 212..252 zero, 252 crc32 of 0..252.
    pub fn encode(&self) -> [u8; HEADER_LEN] {
        let mut b = [0u8; HEADER_LEN];
        b[0..4].copy_from_slice(&HEADER_MAGIC.to_le_bytes());
        b[4..6].copy_from_slice(&1u16.to_le_bytes());
        b[8..12].copy_from_slice(&self.data_len.to_le_bytes());
        b[12..20].copy_from_slice(&self.written_unix.to_le_bytes());
        b[20..52].copy_from_slice(&self.sha256);
        put_str(&mut b[52..148], &self.design);
        put_str(&mut b[148..180], &self.part);
        put_str(&mut b[180..196], &self.date);
        put_str(&mut b[196..212], &self.time);
        let crc = crc32fast::hash(&b[0..252]);
        b[252..256].copy_from_slice(&crc.to_le_bytes());
        b
    }

    /// Decode; `None` unless magic, version and crc32 match.
    pub fn decode(b: &[u8]) -> Option<ImageHeader> {
        if b.len() < HEADER_LEN {
            return None;
        }
        let u32le = |a: usize| u32::from_le_bytes([b[a], b[a + 1], b[a + 2], b[a + 3]]);
        if u32le(0) != HEADER_MAGIC || b[4] != 1 || b[5] != 0 {
            return None;
        }
        if crc32fast::hash(&b[0..252]) != u32le(252) {
            return None;
        }
        let mut sha = [0u8; 32];
        sha.copy_from_slice(&b[20..52]);
        let mut w = [0u8; 8];
        w.copy_from_slice(&b[12..20]);
        Some(ImageHeader {
            data_len: u32le(8),
            written_unix: u64::from_le_bytes(w),
            sha256: sha,
            design: cstr(&b[52..148]),
            part: cstr(&b[148..180]),
            date: cstr(&b[180..196]),
            time: cstr(&b[196..212]),
        })
    }
}

/// Make a synthetic bitstream's configuration data: 16 dummy words, the bus-width pattern, two more
/// dummies, the sync word, then `len` bytes in all of deterministic pseudo-random packets (seeded by
/// `seed`) that never contain the sync word again. Not loadable into a real FPGA: for the model
/// and tests.
pub fn synth_data(len: usize, seed: u64) -> Vec<u8> {
    let mut d = Vec::with_capacity(len.max(96));
    d.extend(std::iter::repeat_n(0xFF, 64));
    d.extend_from_slice(&[0x00, 0x00, 0x00, 0xBB, 0x11, 0x22, 0x00, 0x44]);
    d.extend(std::iter::repeat_n(0xFF, 8));
    d.extend_from_slice(&SYNC_WORD);
    d.extend_from_slice(&[0x20, 0, 0, 0, 0x20, 0, 0, 0]); // two NOOPs
    let mut x = seed | 1;
    while d.len() < len {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        // keep the high bit of each byte clear so AA 99 never appears again
        d.push((x >> 24) as u8 & 0x7F);
    }
    d.truncate(len.max(92));
    d
}

/// A synthetic `.bit` file for `part` with `len` bytes of configuration data (see [`synth_data`]).
pub fn synth_bit(
    design: &str,
    part: &str,
    date: &str,
    time: &str,
    len: usize,
    seed: u64,
) -> Vec<u8> {
    let mut b = BIT_PREAMBLE.to_vec();
    for (k, v) in [(b'a', design), (b'b', part), (b'c', date), (b'd', time)] {
        b.push(k);
        let mut s = v.as_bytes().to_vec();
        s.push(0);
        b.extend_from_slice(&(s.len() as u16).to_be_bytes());
        b.extend_from_slice(&s);
    }
    let data = synth_data(len, seed);
    b.push(b'e');
    b.extend_from_slice(&(data.len() as u32).to_be_bytes());
    b.extend_from_slice(&data);
    b
}

#[cfg(test)]
mod tests {
    use super::super::layout::LAYOUT_128M;
    use super::*;

    #[test]
    fn parses_the_bit_header_fields() {
        let f = synth_bit(
            "tsnic_top;UserID=0XFFFFFFFF;Version=2023.2",
            "xcu50-fsvh2104-2-e",
            "2026/12/01",
            "14:00:00",
            5000,
            7,
        );
        let img = parse_bit("x.bit", &f).unwrap();
        assert_eq!(img.design, "tsnic_top;UserID=0XFFFFFFFF;Version=2023.2");
        assert_eq!(img.part.as_deref(), Some("xcu50-fsvh2104-2-e"));
        assert_eq!(img.date, "2026/12/01");
        assert_eq!(img.time, "14:00:00");
        assert_eq!(img.data.len(), 5000);
        assert_eq!(&img.data[img.sync_at..img.sync_at + 4], &SYNC_WORD);
        assert_eq!(img.sync_at, 80);
        img.check(Board::U50, "A", LAYOUT_128M.a).unwrap();
    }

    #[test]
    fn refuses_bad_images_with_the_fix() {
        let f = synth_bit("d", "xcu280-fsvh2892-2L-e", "", "", 500, 1);
        let img = parse_bit("x.bit", &f).unwrap();
        let e = img.check(Board::U50, "A", LAYOUT_128M.a).unwrap_err();
        assert!(matches!(e, ImageError::WrongPart { .. }));
        assert!(e.to_string().contains("build the design for xcu50"), "{e}");
        img.check(Board::U280, "A", LAYOUT_128M.a).unwrap();
        img.check(Board::Generic, "A", LAYOUT_128M.a).unwrap();
        // truncated
        let e = parse_bit("x.bit", &f[..f.len() - 1]).unwrap_err();
        assert!(e.to_string().contains("truncated"), "{e}");
        // no sync word
        let mut nosync = f.clone();
        let at = nosync.windows(4).position(|w| w == SYNC_WORD).unwrap();
        nosync[at] = 0;
        assert!(matches!(
            parse_bit("x.bit", &nosync).unwrap_err(),
            ImageError::NoSync { .. }
        ));
        // not a .bit
        assert!(matches!(
            parse_bit("x.bit", b"hello").unwrap_err(),
            ImageError::BadBit { .. }
        ));
        // a .bin needs --part on a real board
        let bin = parse_bin("x.bin", &synth_data(300, 2), None).unwrap();
        assert!(matches!(
            bin.check(Board::U250, "B", LAYOUT_128M.b).unwrap_err(),
            ImageError::BinNeedsPart { .. }
        ));
        let bin = parse_bin("x.bin", &synth_data(300, 2), Some("xcu250-figd2104-2L-e")).unwrap();
        bin.check(Board::U250, "B", LAYOUT_128M.b).unwrap();
        // too large: a small region stands in for the slot
        let small = Region {
            base: 0,
            len: 4096 + 400,
        };
        let e = img.check(Board::U280, "A", small).unwrap_err();
        assert!(e.to_string().contains("COMPRESS"), "{e}");
    }

    #[test]
    fn device_names() {
        assert_eq!(device_of("xcu50-fsvh2104-2-e"), "xcu50");
        assert_eq!(device_of("XCU250-FIGD2104-2L-E"), "xcu250");
        assert_eq!(device_of("xc7vx690tffg1761-3"), "xc7vx690t");
    }

    #[test]
    fn header_round_trip_and_torn_header() {
        let f = synth_bit("d", "xcu50-fsvh2104-2-e", "2026/01/02", "03:04:05", 500, 1);
        let img = parse_bit("x.bit", &f).unwrap();
        let h = ImageHeader::for_image(&img, 1_700_000_000);
        let b = h.encode();
        assert_eq!(ImageHeader::decode(&b), Some(h));
        let mut t = b;
        t[100] ^= 0x10;
        assert_eq!(ImageHeader::decode(&t), None);
        assert_eq!(ImageHeader::decode(&[0xFF; 256]), None);
    }

    use proptest::prelude::*;

    proptest! {
        /// Any bytes: a parse result or an error, never a panic; a truncated .bit is an error.
        #[test]
        fn parsing_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..400), cut in 0usize..200) {
            let _ = parse_bit("x.bit", &bytes);
            let _ = parse_bin("x.bin", &bytes, None);
            let mut f = synth_bit("d", "xcu50-fsvh2104-2-e", "", "", 300, 3);
            let keep = f.len() - 1 - cut.min(f.len() - 1);
            f.truncate(keep);
            prop_assert!(parse_bit("x.bit", &f).is_err());
            let mut g = BIT_PREAMBLE.to_vec();
            g.extend_from_slice(&bytes);
            let _ = parse_bit("x.bit", &g);
        }
    }
}
