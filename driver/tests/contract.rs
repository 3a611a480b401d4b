//! The generated contract module agrees with itself and with the layout rules of the source.

use tsnic::contract::{self, reg, Completion, Status, TxDescriptor, REGISTERS};

#[test]
fn descriptor_round_trips_little_endian() {
    let d = TxDescriptor {
        addr: 0x1122_3344_5566_7788,
        len: 1514,
        cookie: 0xdead_beef,
        launch_ns: (1 << 63) + 5,
        flags: contract::DESC_FLAG_ASAP,
        reserved: 0,
    };
    let b = d.to_bytes();
    assert_eq!(b.len(), contract::DESC_SIZE);
    assert_eq!(TxDescriptor::from_bytes(&b), d);
    assert_eq!(&b[16..24], &((1u64 << 63) + 5).to_le_bytes());
}

#[test]
fn completion_phase_bit_is_in_the_last_byte() {
    let c = Completion {
        flags: contract::CPL_FLAG_PHASE,
        status: Status::Sent as u8,
        ..Default::default()
    };
    let b = c.to_bytes();
    assert_eq!(b[31] & 0x80, 0x80);
    assert_eq!(Completion::from_bytes(&b), c);
}

#[test]
fn status_codes_decode_and_unknown_codes_do_not() {
    for s in Status::ALL {
        assert_eq!(Status::from_code(s as u8), Some(s));
    }
    assert_eq!(Status::from_code(0), None);
    assert_eq!(Status::from_code(0xff), None);
}

#[test]
fn register_offsets_are_aligned_unique_and_inside_bar0() {
    let mut seen = std::collections::HashSet::new();
    for r in REGISTERS {
        assert_eq!(r.offset % 4, 0, "{}", r.name);
        if r.per_queue {
            assert!(r.offset < reg::Q_STRIDE, "{}", r.name);
        } else {
            assert!(r.offset < reg::Q_BASE, "{}", r.name);
            assert!(seen.insert(r.offset), "{} reuses an offset", r.name);
        }
    }
}

// The largest queue map fits in BAR0: checked when this test compiles.
const _: () = assert!(reg::Q_BASE + reg::Q_STRIDE * reg::Q_MAX_COUNT <= contract::BAR0_SIZE);
