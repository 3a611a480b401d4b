//! pcapng output of the frames the card sent, timestamped with their departure time in ns
//! (the interface declares if_tsresol = 9).

use std::borrow::Cow;
use std::io::Write;
use std::time::Duration;

use pcap_file::pcapng::blocks::enhanced_packet::EnhancedPacketBlock;
use pcap_file::pcapng::blocks::interface_description::{
    InterfaceDescriptionBlock, InterfaceDescriptionOption,
};
use pcap_file::pcapng::PcapNgWriter;
use pcap_file::DataLink;

use super::EdtError;

/// Write `frames` as (departure ns, bytes) to `out` as pcapng.
pub fn write_pcapng<W: Write>(out: W, frames: &[(u64, Vec<u8>)]) -> Result<(), EdtError> {
    let err = |e: pcap_file::PcapError| EdtError::Pcap(e.to_string());
    let mut w = PcapNgWriter::new(out).map_err(err)?;
    w.write_pcapng_block(InterfaceDescriptionBlock {
        linktype: DataLink::ETHERNET,
        snaplen: 0,
        options: vec![
            InterfaceDescriptionOption::IfName(Cow::Borrowed("tsnic0")),
            InterfaceDescriptionOption::IfTsResol(9),
        ],
    })
    .map_err(err)?;
    for (ts, f) in frames {
        w.write_pcapng_block(EnhancedPacketBlock {
            interface_id: 0,
            timestamp: Duration::from_nanos(*ts),
            original_len: f.len() as u32,
            data: Cow::Borrowed(f),
            options: vec![],
        })
        .map_err(err)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use pcap_file::pcapng::{Block, PcapNgReader};

    #[test]
    fn round_trip_ns_timestamps() {
        let mut buf = Vec::new();
        write_pcapng(&mut buf, &[(1_234_567_891, vec![0xaa; 60])]).unwrap();
        let mut r = PcapNgReader::new(&buf[..]).unwrap();
        let mut seen = false;
        while let Some(b) = r.next_block() {
            if let Block::EnhancedPacket(p) = b.unwrap() {
                assert_eq!(p.timestamp, Duration::from_nanos(1_234_567_891));
                seen = true;
            }
        }
        assert!(seen);
    }
}
