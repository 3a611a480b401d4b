//! Captures: writing the wire as pcapng with nanosecond timestamps, and reading pcap or pcapng back
//! (for `tsnic replay` and the tests).

use std::borrow::Cow;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;
use std::time::Duration;

use pcap_file::pcapng::blocks::enhanced_packet::EnhancedPacketBlock;
use pcap_file::pcapng::blocks::interface_description::{
    InterfaceDescriptionBlock, InterfaceDescriptionOption,
};
use pcap_file::pcapng::{Block, PcapNgReader, PcapNgWriter};
use pcap_file::DataLink;
use thiserror::Error;

pub use crate::pipeline::capture::tsresol_to_ns;

/// One packet of a capture.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Packet {
    /// Timestamp in ns since the epoch of the capture (TAI ns for tsnic's own captures).
    pub ts_ns: u64,
    /// Captured bytes.
    pub data: Vec<u8>,
    /// Length on the wire (may exceed `data.len()` for a truncated capture).
    pub orig_len: u32,
}

/// Capture errors.
#[derive(Debug, Error)]
pub enum CaptureError {
    /// The file could not be opened, read or written.
    #[error("{path}: {source}")]
    Io {
        /// File.
        path: String,
        /// OS error.
        #[source]
        source: std::io::Error,
    },
    /// The file is not a capture this tool reads.
    #[error("{path}: {why}")]
    Format {
        /// File.
        path: String,
        /// What is wrong.
        why: String,
    },
}

/// Writes a pcapng file: one Ethernet interface with `if_tsresol` = 9 (ns), one EPB per packet.
pub struct PcapNgOut {
    w: PcapNgWriter<BufWriter<Box<dyn Write>>>,
    path: String,
}

impl PcapNgOut {
    /// Create `path` and write the section and interface headers.
    pub fn create(path: &Path) -> Result<PcapNgOut, CaptureError> {
        let p = path.display().to_string();
        let io = |e| CaptureError::Io {
            path: p.clone(),
            source: e,
        };
        let f = File::create(path).map_err(io)?;
        Self::to_writer(Box::new(f), p)
    }

    /// Write the capture to `w` (e.g. standard output), named `name` in messages.
    pub fn to_writer(w: Box<dyn Write>, name: String) -> Result<PcapNgOut, CaptureError> {
        let p = name;
        let fmt = |e: pcap_file::PcapError| CaptureError::Format {
            path: p.clone(),
            why: e.to_string(),
        };
        let mut w = PcapNgWriter::new(BufWriter::with_capacity(1 << 16, w)).map_err(fmt)?;
        let idb = InterfaceDescriptionBlock {
            linktype: DataLink::ETHERNET,
            snaplen: 0,
            options: vec![
                InterfaceDescriptionOption::IfName(Cow::Borrowed("tsnic0")),
                InterfaceDescriptionOption::IfTsResol(9),
            ],
        };
        w.write_pcapng_block(idb).map_err(fmt)?;
        Ok(PcapNgOut { w, path: p })
    }

    /// Append one packet with its timestamp in ns.
    pub fn write(&mut self, ts_ns: u64, data: &[u8]) -> Result<(), CaptureError> {
        let epb = EnhancedPacketBlock {
            interface_id: 0,
            timestamp: Duration::from_nanos(ts_ns),
            original_len: data.len() as u32,
            data: Cow::Borrowed(data),
            options: vec![],
        };
        self.w
            .write_pcapng_block(epb)
            .map(|_| ())
            .map_err(|e| CaptureError::Format {
                path: self.path.clone(),
                why: e.to_string(),
            })
    }

    /// Flush and close.
    pub fn finish(self) -> Result<(), CaptureError> {
        let path = self.path;
        self.w
            .into_inner()
            .flush()
            .map_err(|e| CaptureError::Io { path, source: e })
    }
}

/// Parse a classic pcap file (libpcap format: either byte order, micro- or nanosecond timestamps),
/// with errors that say what is wrong with the file and what to do. A record's captured length may
/// be below its original length (a capture with a snap length: the caller decides); above the
/// file's snap length, or past the end of the file, it is damaged.
fn read_pcap(b: &[u8]) -> Result<Vec<Packet>, String> {
    if b.len() < 24 {
        return Err(format!(
            "neither pcap nor pcapng: {} bytes, shorter than a pcap file header (24 bytes)",
            b.len()
        ));
    }
    let magic = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
    let (le, nanos) = match magic {
        0xa1b2_c3d4 => (true, false),
        0xa1b2_3c4d => (true, true),
        0xd4c3_b2a1 => (false, false),
        0x4d3c_b2a1 => (false, true),
        _ => {
            return Err(format!(
                "neither pcap nor pcapng (it starts with {:02x} {:02x} {:02x} {:02x}): give a capture written by tcpdump, Wireshark or `tsnic push --pcap`",
                b[0], b[1], b[2], b[3]
            ))
        }
    };
    let u32_at = |o: usize| {
        let w = [b[o], b[o + 1], b[o + 2], b[o + 3]];
        if le {
            u32::from_le_bytes(w)
        } else {
            u32::from_be_bytes(w)
        }
    };
    let snaplen = u32_at(16);
    let linktype = u32_at(20) & 0x0fff_ffff;
    if linktype != 1 {
        return Err(format!(
            "link type {linktype}: only Ethernet captures (link type 1) can be replayed"
        ));
    }
    let mut out = Vec::new();
    let mut o = 24usize;
    while o < b.len() {
        let n = out.len();
        if b.len() - o < 16 {
            return Err(format!(
                "the file ends inside the header of packet {n} ({} of 16 bytes): it was cut short (a capture still being written, or a partial copy); copy it whole or recapture (the {n} packets before it are complete)",
                b.len() - o
            ));
        }
        let (sec, frac, incl, orig) = (u32_at(o), u32_at(o + 4), u32_at(o + 8), u32_at(o + 12));
        if incl > snaplen.max(262_144) {
            return Err(format!(
                "packet {n} claims {incl} captured bytes, more than the file's snap length ({snaplen}): the file is damaged (or not a pcap file); recapture it"
            ));
        }
        let data_at = o + 16;
        let incl = incl as usize;
        if b.len() - data_at < incl {
            return Err(format!(
                "the file ends inside packet {n} ({} of its {incl} captured bytes): it was cut short (a capture still being written, or a partial copy); copy it whole or recapture (the {n} packets before it are complete)",
                b.len() - data_at
            ));
        }
        let ns = u64::from(sec) * 1_000_000_000
            + if nanos {
                u64::from(frac)
            } else {
                u64::from(frac) * 1000
            };
        out.push(Packet {
            ts_ns: ns,
            data: b[data_at..data_at + incl].to_vec(),
            orig_len: orig,
        });
        o = data_at + incl;
    }
    Ok(out)
}

/// Read a pcap (micro- or nanosecond) or pcapng capture, whichever the file is.
pub fn read(path: &Path) -> Result<Vec<Packet>, CaptureError> {
    let p = path.display().to_string();
    // Read once, whole: a capture given as a pipe (`tsnic replay <(zcat x.pcap.gz)`) cannot be
    // opened twice.
    let bytes = std::fs::read(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::IsADirectory => CaptureError::Format {
            path: p.clone(),
            why: format!("too short to be a capture ({e})"),
        },
        _ => CaptureError::Io {
            path: p.clone(),
            source: e,
        },
    })?;
    if bytes.len() < 4 {
        return Err(CaptureError::Format {
            path: p.clone(),
            why: format!(
                "too short to be a capture ({} bytes; an empty file, or not a capture)",
                bytes.len()
            ),
        });
    }
    let magic = [bytes[0], bytes[1], bytes[2], bytes[3]];
    let f = std::io::Cursor::new(&bytes[..]);
    let fmt = |why: String| CaptureError::Format {
        path: p.clone(),
        why,
    };
    let mut out = Vec::new();
    match magic {
        [0x0a, 0x0d, 0x0d, 0x0a] => {
            let mut r = PcapNgReader::new(f)
                .map_err(|e| fmt(format!("not a readable pcapng file: {e}")))?;
            let mut resol: Vec<u8> = Vec::new();
            let mut offset_s: Vec<i64> = Vec::new();
            let mut link_ok: Vec<bool> = Vec::new();
            while let Some(block) = r.next_block() {
                let block = block.map_err(|e| {
                    // say why in words that name the fix: a file cut short, or a damaged block
                    let why = pcapng_damage(&bytes).unwrap_or_else(|| {
                        format!("bad pcapng block after {} packets: {e}", out.len())
                    });
                    fmt(why)
                })?;
                match block {
                    Block::SectionHeader(_) => {
                        resol.clear();
                        offset_s.clear();
                        link_ok.clear();
                    }
                    Block::InterfaceDescription(idb) => {
                        let r = idb
                            .options
                            .iter()
                            .find_map(|o| match o {
                                InterfaceDescriptionOption::IfTsResol(v) => Some(*v),
                                _ => None,
                            })
                            .unwrap_or(6);
                        resol.push(r);
                        // if_tsoffset: seconds added to every timestamp of the interface (signed)
                        offset_s.push(
                            idb.options
                                .iter()
                                .find_map(|o| match o {
                                    InterfaceDescriptionOption::IfTsOffset(v) => Some(*v as i64),
                                    _ => None,
                                })
                                .unwrap_or(0),
                        );
                        link_ok.push(idb.linktype == DataLink::ETHERNET);
                    }
                    Block::EnhancedPacket(epb) => {
                        let i = epb.interface_id as usize;
                        let res = *resol.get(i).ok_or_else(|| {
                            fmt(format!(
                                "packet {} names interface {i}, which is not described",
                                out.len()
                            ))
                        })?;
                        if !link_ok[i] {
                            return Err(fmt(format!("packet {} is not Ethernet (only Ethernet captures can be replayed)", out.len())));
                        }
                        let raw = epb.timestamp.as_nanos() as u64; // the crate stores raw units as ns
                        let ts = i128::from(tsresol_to_ns(raw, res))
                            + i128::from(offset_s[i]) * 1_000_000_000;
                        out.push(Packet {
                            ts_ns: ts.clamp(0, u64::MAX as i128) as u64,
                            data: epb.data.into_owned(),
                            orig_len: epb.original_len,
                        });
                    }
                    Block::SimplePacket(_) | Block::Packet(_) => {
                        return Err(fmt(format!(
                            "packet {} has no timestamp (simple/obsolete packet block)",
                            out.len()
                        )));
                    }
                    _ => {}
                }
            }
        }
        _ => {
            out = read_pcap(&bytes).map_err(fmt)?;
        }
    }
    Ok(out)
}

/// What is wrong with a pcapng file's block structure, in words that name the fix (None: the blocks
/// are whole, the trouble is elsewhere). Walks the blocks by their lengths, in the byte order of
/// the section they belong to.
fn pcapng_damage(b: &[u8]) -> Option<String> {
    let mut at = 0usize;
    let mut packets = 0usize;
    let mut le = true;
    let cut = |what: String, packets: usize| {
        format!("the file ends inside {what}: it was cut short (a capture still being written, or a partial copy); copy it whole or recapture (the {packets} packets before it are complete)")
    };
    while at < b.len() {
        let left = b.len() - at;
        if left < 12 {
            return Some(cut(
                format!("the header of the block at byte {at} ({left} of 12 bytes) after packet {packets}"),
                packets,
            ));
        }
        if b[at..at + 4] == [0x0a, 0x0d, 0x0d, 0x0a] {
            le = b[at + 8..at + 12] == [0x4d, 0x3c, 0x2b, 0x1a];
        }
        let word = |o: usize| {
            let w = [b[at + o], b[at + o + 1], b[at + o + 2], b[at + o + 3]];
            if le {
                u32::from_le_bytes(w)
            } else {
                u32::from_be_bytes(w)
            }
        };
        let ty = word(0);
        let len = word(4) as usize;
        if len < 12 || !len.is_multiple_of(4) {
            return Some(format!("the block at byte {at} (after packet {packets}) claims {len} bytes, not a pcapng block length: the file is damaged (or not pcapng); recapture it"));
        }
        if len > left {
            return Some(cut(
                format!(
                    "the block at byte {at} ({left} of its {len} bytes) after packet {packets}"
                ),
                packets,
            ));
        }
        if word(len - 4) as usize != len {
            return Some(format!("the block at byte {at} (after packet {packets}) ends with another length than it starts with: the file is damaged; recapture it"));
        }
        if matches!(ty, 2 | 3 | 6) {
            packets += 1;
        }
        at += len;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tmp(name: &str) -> std::path::PathBuf {
        std::env::temp_dir().join(format!("tsnic-capture-{}-{name}", std::process::id()))
    }

    #[test]
    fn pcapng_roundtrip_keeps_ns() {
        let p = tmp("rt.pcapng");
        let mut w = PcapNgOut::create(&p).unwrap();
        let pkts: Vec<(u64, Vec<u8>)> = (0..10u64)
            .map(|i| {
                (
                    1_700_000_000_123_456_789 + i * 67,
                    vec![i as u8; 60 + i as usize],
                )
            })
            .collect();
        for (t, d) in &pkts {
            w.write(*t, d).unwrap();
        }
        w.finish().unwrap();
        let back = read(&p).unwrap();
        assert_eq!(back.len(), 10);
        for (b, (t, d)) in back.iter().zip(&pkts) {
            assert_eq!(b.ts_ns, *t);
            assert_eq!(&b.data, d);
        }
        std::fs::remove_file(&p).ok();
    }

    #[test]
    fn legacy_pcap_in_us_and_ns() {
        use pcap_file::pcap::{PcapHeader, PcapPacket, PcapWriter};
        use pcap_file::TsResolution;
        for (res, t) in [
            (TsResolution::MicroSecond, 1_500_000_000_000_001_000u64),
            (TsResolution::NanoSecond, 1_500_000_000_000_000_123),
        ] {
            let p = tmp("legacy.pcap");
            let hdr = PcapHeader {
                ts_resolution: res,
                ..Default::default()
            };
            let mut w = PcapWriter::with_header(File::create(&p).unwrap(), hdr).unwrap();
            w.write_packet(&PcapPacket::new(Duration::from_nanos(t), 64, &[0xaa; 64]))
                .unwrap();
            drop(w);
            let back = read(&p).unwrap();
            assert_eq!(back[0].ts_ns, t);
            assert_eq!(back[0].data, vec![0xaa; 64]);
            std::fs::remove_file(&p).ok();
        }
    }

    #[test]
    fn garbage_is_a_format_error() {
        let p = tmp("garbage");
        std::fs::write(&p, b"this is not a capture at all").unwrap();
        assert!(matches!(read(&p), Err(CaptureError::Format { .. })));
        std::fs::remove_file(&p).ok();
        assert!(matches!(
            read(Path::new("/nonexistent/x.pcap")),
            Err(CaptureError::Io { .. })
        ));
    }

    #[test]
    fn tsresol_units() {
        assert_eq!(tsresol_to_ns(5, 6), 5000);
        assert_eq!(tsresol_to_ns(5, 9), 5);
        assert_eq!(tsresol_to_ns(5000, 12), 5);
        assert_eq!(tsresol_to_ns(1 << 20, 0x80 | 20), 1_000_000_000);
    }
}
