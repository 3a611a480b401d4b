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
