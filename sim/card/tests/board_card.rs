//! The board card (`board` feature): BAR0 through CQ/CC, the two clocks, the MSI-X table.
#![cfg(tsnic_sim_board)]

use tsnic_sim::board::{BoardCard, BoardConfig};

/// CAP_MAGIC (hdl/contract/tsnic.toml) and its value ("TSNC").
const CAP_MAGIC: u32 = 0x0;
const MAGIC: u32 = 0x5453_4e43;

#[test]
fn bar0_reads_cross_the_link_and_both_clocks_run() {
    let t = std::time::Instant::now();
    let mut c = BoardCard::new(BoardConfig::default()).expect("board model");
    let t0 = c.now_ps();
    assert_eq!(c.mmio_read(CAP_MAGIC).unwrap(), MAGIC);
    let rtt_ns = (c.now_ps() - t0) / 1000;
    // two link flights of 150 ns and the card's own cycles: more than 300 ns, well under 1 us
    assert!((300..1000).contains(&rtt_ns), "BAR0 read took {rtt_ns} ns");
    let s = c.pcie().stats();
    assert_eq!((s.bar_reads, s.down.tlps, s.up.tlps), (1, 1, 1));
    // a CQ memory read TLP: 3-dword header + STP + LCRC; its completion adds one dword
    assert_eq!((s.down.tlp_bytes, s.up.tlp_bytes), (20, 24));
    let (k0, m0) = (c.cycle(), c.mac_cycles());
    let end = c.now_ps() + 100_000_000; // 100 us
    c.run_until_ps(end);
    assert!((c.cycle() - k0).abs_diff(25_000) <= 1);
    assert!((c.mac_cycles() - m0).abs_diff(15_625) <= 1);
    eprintln!(
        "board: BAR0 read {rtt_ns} ns; 100 us simulated in {:.2} s wall",
        t.elapsed().as_secs_f64()
    );
}

#[test]
fn msix_table_takes_the_hosts_writes() {
    let mut c = BoardCard::new(BoardConfig::default()).expect("board model");
    c.mmio_write(0x20000, 0xFEE0_0000);
    c.mmio_write(0x20008, 0x41);
    assert_eq!(c.mmio_read(0x20000).unwrap(), 0xFEE0_0000);
    assert_eq!(c.mmio_read(0x20008).unwrap(), 0x41);
    // vector control resets masked (PCIe base spec)
    assert_eq!(c.mmio_read(0x2000c).unwrap() & 1, 1);
}

/// The kept board card: a state taken at a quiet moment restores into a card that saves the same
/// bytes and goes on exactly as the original (BAR0 traffic, the PHC, both clocks); states of
/// another board or damaged ones are refused with the reason.
#[test]
fn a_restored_board_continues_bit_for_bit() {
    let mut a = BoardCard::new(BoardConfig::default()).expect("board model");
    a.mmio_write(0x20000, 0xFEE0_0000);
    a.mmio_write(0x20008, 0x41);
    assert_eq!(a.mmio_read(CAP_MAGIC).unwrap(), MAGIC);
    assert!(a.settle(1_000_000_000), "quiet: {:?}", a.quiet());
    let saved = a.snapshot(b"drv", 7).expect("snapshot");
    let (mut b, info, extra) = BoardCard::restore(BoardConfig::default(), &saved).expect("restore");
    assert_eq!(extra, b"drv");
    assert_eq!(info.board, Some(tsnic_sim::board::BoardModel::Sume));
    assert_eq!(
        (b.now_ps(), b.cycle(), b.mac_cycles()),
        (a.now_ps(), a.cycle(), a.mac_cycles())
    );
    same_state(
        &b.snapshot(b"drv", 7).unwrap(),
        &saved,
        "a restored board saves the same bytes",
    );
    let mut reads = Vec::new();
    for c in [&mut a, &mut b] {
        let t = c.now_ps() + 50_000_000;
        c.run_until_ps(t);
        // the PHC (PHC_TIME_LO, 0x200 in the contract) and the MSI-X table
        reads.push((
            c.mmio_read(0x200).unwrap(),
            c.mmio_read(0x20008).unwrap(),
            c.now_ps(),
        ));
        assert!(c.settle(1_000_000_000));
    }
    assert_eq!(
        reads[0], reads[1],
        "the restored board goes on as the original"
    );
    same_state(
        &a.snapshot(b"", 0).unwrap(),
        &b.snapshot(b"", 0).unwrap(),
        "both go on to the same state",
    );
    // damaged: refused with the reason
    let mut bad = saved.clone();
    let mid = bad.len() / 2;
    bad[mid] ^= 1;
    let e = BoardCard::restore(BoardConfig::default(), &bad)
        .err()
        .unwrap();
    assert!(e.to_string().contains("CRC"), "{e}");
    // a board state is not a core card, and the core card's state is not a board
    let e = tsnic_sim::SimCard::restore(tsnic_sim::Config::small(), &saved)
        .err()
        .unwrap();
    assert!(
        e.to_string().contains("SUME board card") && e.to_string().contains("sim:board"),
        "{e}"
    );
}

/// Two states byte for byte; the failure names the size and the first differing byte only.
fn same_state(a: &[u8], b: &[u8], what: &str) {
    let first = a.iter().zip(b).position(|(x, y)| x != y);
    assert!(
        a.len() == b.len() && first.is_none(),
        "{what}: {} vs {} bytes, first difference at byte {first:?}",
        a.len(),
        b.len()
    );
}
