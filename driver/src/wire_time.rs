//! Ethernet wire arithmetic: how many bytes a frame occupies on the line and how long it takes to
//! serialize them.
//!
//! A frame handed to the MAC (Ethernet header to end of payload, without FCS, as every length in the
//! driver is counted) is padded to [`ETH_MIN_FRAME`] bytes and goes out with a preamble and
//! start-of-frame delimiter (8 bytes) before it, the FCS (4 bytes) after it and the minimum
//! inter-frame gap (12 bytes) before the next frame. The EDT sender's software card model
//! ([`crate::edt::card::IdealCardModel`]) and the simulated network's bottleneck use these
//! functions; the Verilated card's MAC model (`tsnic_sim::LineRate::frame_ps`, in picoseconds) is
//! checked against them in this module's tests.

/// Preamble and start-of-frame delimiter, bytes.
pub const ETH_PREAMBLE: u64 = 8;
/// Frame check sequence the MAC appends, bytes.
pub const ETH_FCS: u64 = 4;
/// Minimum inter-frame gap, bytes.
pub const ETH_IFG: u64 = 12;
/// Bytes a frame occupies on an Ethernet wire beyond the bytes handed to the MAC:
/// preamble+SFD (8), FCS (4) and the minimum inter-frame gap (12).
pub const ETH_WIRE_OVERHEAD: u64 = ETH_PREAMBLE + ETH_FCS + ETH_IFG;
/// Minimum Ethernet frame without FCS (the MAC pads shorter frames).
pub const ETH_MIN_FRAME: u64 = 60;

/// Most octets a MAC may take off one inter-frame gap to align the next start (deficit idle count):
/// 3 up to 25 Gb/s (XGMII / 25GMII, starts on 4-octet columns, IEEE 802.3 46.3.1.4), 7 above (the
/// 64B/66B start block of 40/100G puts starts on 8-octet blocks, 802.3 82.2.18.2.3). The gap is 12
/// octets on average; a single one is never shorter than `ETH_IFG - dic_max_bytes`.
pub fn dic_max_bytes(rate_bps: u64) -> u64 {
    if rate_bps <= 25_000_000_000 {
        3
    } else {
        7
    }
}

/// Bytes a frame of `len` bytes (without FCS) takes on the wire, padding and overhead included.
pub fn wire_bytes(len: usize) -> u64 {
    (len as u64).max(ETH_MIN_FRAME) + ETH_WIRE_OVERHEAD
}

/// Nanoseconds to serialize `bytes` at `rate_bps`, rounded up (a frame is never shorter than its
/// bits allow). A rate of 0 counts as 1 bit/s; a result beyond `u64::MAX` saturates.
pub fn serialize_ns(bytes: u64, rate_bps: u64) -> u64 {
    let bits = u128::from(bytes) * 8 * 1_000_000_000;
    let r = u128::from(rate_bps.max(1));
    u64::try_from(bits.div_ceil(r)).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minimum_frame_is_84_wire_bytes() {
        assert_eq!(wire_bytes(0), 84);
        assert_eq!(wire_bytes(60), 84);
        assert_eq!(wire_bytes(1514), 1538);
        // 84 bytes at 10 Gb/s: 67.2 ns, rounded up.
        assert_eq!(serialize_ns(wire_bytes(60), 10_000_000_000), 68);
        assert_eq!(serialize_ns(1538, 10_000_000_000), 1231);
        assert_eq!(serialize_ns(1, 0), 8_000_000_000);
        assert_eq!(serialize_ns(u64::MAX, 1), u64::MAX);
    }

    /// The Verilated card's MAC model counts the same bytes: a frame's wire time there (ps) is
    /// exactly its wire bytes at the line rate, and its deficit idle count has the same bound.
    #[cfg(feature = "sim")]
    #[test]
    fn agrees_with_the_simulated_mac() {
        use tsnic_sim::LineRate;
        for rate in [LineRate::G10, LineRate::G25, LineRate::G100] {
            for len in [0usize, 1, 59, 60, 61, 64, 1500, 1514, 9000] {
                assert_eq!(rate.dic_max(), dic_max_bytes(rate.bits_per_s()), "{rate:?}");
                let ps = rate.frame_ps(len as u64);
                assert_eq!(ps, wire_bytes(len) * rate.byte_ps(), "{rate:?} {len}");
                assert_eq!(
                    serialize_ns(wire_bytes(len), rate.bits_per_s()),
                    ps.div_ceil(1000),
                    "{rate:?} {len}"
                );
            }
        }
    }
}
