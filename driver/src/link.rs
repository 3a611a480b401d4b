//! MAC_LINK_STATUS in words: the PCIe link (generation, lanes, LTSSM state) and the MAC's receive
//! side (CMAC alignment or 10GBASE-R block lock), for `tsnic info` and the bring-up guide
//! (docs/BRINGUP.md). The register is 0 on a core with no board around it (the simulated card).

use crate::contract::reg;
use serde::Serialize;
use std::fmt;

/// What MAC_LINK_STATUS.MAC_RX_UP reports on this board.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MacKind {
    /// No MAC status (MAC_KIND 0).
    None,
    /// 100G CMAC: RX lanes aligned (stat_rx_aligned, PG203).
    Cmac,
    /// 10GBASE-R: PCS block lock (PG068 core_status[0] / PG210 stat_rx_status).
    TenGBaseR,
    /// A MAC_KIND value the contract does not define.
    Unknown(u8),
}

/// Most the PHC copy in a board's MAC TX domain lags the PHC once locked, ps: 0.41 ns
/// (tsnic_td_sink's margin and loop noise; the board bench's TD_LAG_NS, tests/cocotb/tsnic_board_core,
/// measured in docs/BENCHMARKS.md).
pub const TD_LAG_PS: u64 = 410;

/// MAC_LINK_STATUS decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct LinkStatus {
    /// The raw register value.
    pub raw: u32,
    /// A board drives the register (0: the simulated card or a core alone).
    pub board: bool,
    /// The hard block's user_lnk_up.
    pub pcie_link_up: bool,
    /// cfg_ltssm_state, raw.
    pub ltssm: u8,
    /// PCIe generation 1..4 (0: the block reported a code that is none of these).
    pub pcie_gen: u8,
    /// Negotiated lanes 1..16 (0: the block reported a code that is none of these).
    pub pcie_lanes: u8,
    /// What `mac_rx_up` means here.
    pub mac_kind: MacKind,
    /// CMAC aligned / PCS block lock.
    pub mac_rx_up: bool,
}

fn field(v: u32, mask: u32) -> u32 {
    (v & mask) >> mask.trailing_zeros()
}

impl LinkStatus {
    /// Decode a MAC_LINK_STATUS value (every value decodes; unknown codes are kept and shown raw).
    pub fn from_raw(raw: u32) -> Self {
        let kind = field(raw, reg::MAC_LINK_STATUS_MAC_KIND) as u8;
        LinkStatus {
            raw,
            board: field(raw, reg::MAC_LINK_STATUS_BOARD) != 0,
            pcie_link_up: field(raw, reg::MAC_LINK_STATUS_PCIE_LINK_UP) != 0,
            ltssm: field(raw, reg::MAC_LINK_STATUS_PCIE_LTSSM) as u8,
            pcie_gen: field(raw, reg::MAC_LINK_STATUS_PCIE_SPEED) as u8,
            pcie_lanes: field(raw, reg::MAC_LINK_STATUS_PCIE_WIDTH) as u8,
            mac_kind: match kind {
                0 => MacKind::None,
                1 => MacKind::Cmac,
                2 => MacKind::TenGBaseR,
                k => MacKind::Unknown(k),
            },
            mac_rx_up: field(raw, reg::MAC_LINK_STATUS_MAC_RX_UP) != 0,
        }
    }

    /// The PCIe link in words, e.g. "PCIe Gen3 x16, LTSSM L0 (0x10)".
    pub fn pcie_words(&self) -> String {
        let gen = match self.pcie_gen {
            0 => "speed ?".to_string(),
            g => format!("Gen{g}"),
        };
        let lanes = match self.pcie_lanes {
            0 => "x?".to_string(),
            n => format!("x{n}"),
        };
        let up = if self.pcie_link_up {
            ""
        } else {
            " (link down)"
        };
        format!(
            "PCIe {gen} {lanes}, LTSSM {} ({:#04x}){up}",
            ltssm_name(self.ltssm),
            self.ltssm
        )
    }

    /// How late after its launch time a frame may leave an idle line and still be on time, ps: one
    /// clock of the launch gate, plus on a board the lag of the MAC domain's PHC copy. A core alone
    /// (not a board, or a MAC_KIND without a known clock) gates on its own clock (`clk_freq_hz`,
    /// CAP_CLK_FREQ_HZ; 0 when the card gives none). A board gates on its MAC TX clock (docs/ARCHITECTURE.md, "Clock
    /// domains and time distribution"): 156.25 MHz (6.4 ns) at 10GBASE-R, tsnic's XGMII MAC (SUME,
    /// Alveo `MAC=10g`); 322.265625 MHz (3.103 ns) for the 100G CMAC's TX AXI-Stream (PG203); the
    /// copy there lags the PHC by up to [`TD_LAG_PS`].
    pub fn gate_tolerance_ps(&self, clk_freq_hz: u32) -> u64 {
        let core = if clk_freq_hz == 0 {
            0
        } else {
            1_000_000_000_000 / u64::from(clk_freq_hz)
        };
        if !self.board {
            return core;
        }
        match self.mac_kind {
            MacKind::TenGBaseR => 6400 + TD_LAG_PS,
            // 512/165 ns
            MacKind::Cmac => 3104 + TD_LAG_PS,
            MacKind::None | MacKind::Unknown(_) => core,
        }
    }

    /// The MAC's receive side in words, e.g. "CMAC aligned".
    pub fn mac_words(&self) -> String {
        match (self.mac_kind, self.mac_rx_up) {
            (MacKind::None, _) => "no MAC status".into(),
            (MacKind::Cmac, true) => "CMAC aligned".into(),
            (MacKind::Cmac, false) => {
                "CMAC not aligned (no 100G signal: cable, module, far end)".into()
            }
            (MacKind::TenGBaseR, true) => "10GBASE-R block lock".into(),
            (MacKind::TenGBaseR, false) => {
                "10GBASE-R no block lock (no 10G signal: cable, module, far end)".into()
            }
            (MacKind::Unknown(k), up) => format!("MAC kind {k} (unknown), rx up {}", up as u8),
        }
    }
}

impl fmt::Display for LinkStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.board {
            if self.raw == 0 {
                return write!(f, "not a board (no PCIe link or MAC behind this backend)");
            }
            // BOARD clear with other bits set: no design of ours reads like this
            return write!(f, "not a board, but other bits set ({:#010x})", self.raw);
        }
        write!(f, "{}; {}", self.pcie_words(), self.mac_words())
    }
}

/// The name of a cfg_ltssm_state value (the encoding PG213 gives for the UltraScale+ block; the
/// value is always printed beside it, so a state named wrongly is still there raw).
pub fn ltssm_name(v: u8) -> &'static str {
    match v {
        0x00 => "Detect.Quiet",
        0x01 => "Detect.Active",
        0x02 => "Polling.Active",
        0x03 => "Polling.Compliance",
        0x04 => "Polling.Configuration",
        0x05 => "Configuration.Linkwidth.Start",
        0x06 => "Configuration.Linkwidth.Accept",
        0x07 => "Configuration.Lanenum.Accept",
        0x08 => "Configuration.Lanenum.Wait",
        0x09 => "Configuration.Complete",
        0x0A => "Configuration.Idle",
        0x0B => "Recovery.RcvrLock",
        0x0C => "Recovery.Speed",
        0x0D => "Recovery.RcvrCfg",
        0x0E => "Recovery.Idle",
        0x10 => "L0",
        0x11 => "Rx_L0s.Entry",
        0x12 => "Rx_L0s.Idle",
        0x13 => "Rx_L0s.FTS",
        0x14 => "Tx_L0s.Entry",
        0x15 => "Tx_L0s.Idle",
        0x16 => "Tx_L0s.FTS",
        0x17 => "L1.Entry",
        0x18 => "L1.Idle",
        0x19 => "L2.Idle",
        0x1A => "L2.TransmitWake",
        0x20 => "Disabled",
        0x21 => "Loopback.Entry (master)",
        0x22 => "Loopback.Active (master)",
        0x23 => "Loopback.Exit (master)",
        0x24 => "Loopback.Entry (slave)",
        0x25 => "Loopback.Active (slave)",
        0x26 => "Loopback.Exit (slave)",
        0x27 => "Hot Reset",
        0x28 => "Recovery.Equalization phase 0",
        0x29 => "Recovery.Equalization phase 1",
        0x2A => "Recovery.Equalization phase 2",
        0x2B => "Recovery.Equalization phase 3",
        _ => "unknown",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A register value from its fields, built from the contract's masks independently of the decoder.
    fn pack(board: u32, up: u32, mac_up: u32, kind: u32, ltssm: u32, gen: u32, lanes: u32) -> u32 {
        (board * reg::MAC_LINK_STATUS_BOARD)
            | (up * reg::MAC_LINK_STATUS_PCIE_LINK_UP)
            | (mac_up * reg::MAC_LINK_STATUS_MAC_RX_UP)
            | (kind << 4)
            | (ltssm << 8)
            | (gen << 16)
            | (lanes << 20)
    }

    #[test]
    fn field_positions_are_the_contracts() {
        assert_eq!(reg::MAC_LINK_STATUS_MAC_KIND, 0x3 << 4);
        assert_eq!(reg::MAC_LINK_STATUS_PCIE_LTSSM, 0x3f << 8);
        assert_eq!(reg::MAC_LINK_STATUS_PCIE_SPEED, 0x7 << 16);
        assert_eq!(reg::MAC_LINK_STATUS_PCIE_WIDTH, 0x1f << 20);
    }

    #[test]
    fn alveo_at_gen3_x16_with_the_cmac_aligned() {
        let s = LinkStatus::from_raw(pack(1, 1, 1, 1, 0x10, 3, 16));
        assert_eq!(
            s.to_string(),
            "PCIe Gen3 x16, LTSSM L0 (0x10); CMAC aligned"
        );
    }

    #[test]
    fn sume_at_gen3_x8_without_block_lock() {
        let s = LinkStatus::from_raw(pack(1, 1, 0, 2, 0x10, 3, 8));
        assert_eq!(
            s.to_string(),
            "PCIe Gen3 x8, LTSSM L0 (0x10); 10GBASE-R no block lock (no 10G signal: cable, module, far end)"
        );
    }

    #[test]
    fn a_narrow_slow_link_and_odd_codes_are_said_so() {
        let s = LinkStatus::from_raw(pack(1, 0, 0, 1, 0x0B, 1, 4));
        assert_eq!(
            s.pcie_words(),
            "PCIe Gen1 x4, LTSSM Recovery.RcvrLock (0x0b) (link down)"
        );
        let s = LinkStatus::from_raw(pack(1, 1, 1, 3, 0x3F, 0, 0));
        assert_eq!(s.pcie_words(), "PCIe speed ? x?, LTSSM unknown (0x3f)");
        assert_eq!(s.mac_words(), "MAC kind 3 (unknown), rx up 1");
    }

    #[test]
    fn the_simulated_card_reads_as_not_a_board() {
        let s = LinkStatus::from_raw(0);
        assert!(!s.board);
        assert_eq!(
            s.to_string(),
            "not a board (no PCIe link or MAC behind this backend)"
        );
        // garbage with BOARD clear is not dressed up as a link
        assert_eq!(
            LinkStatus::from_raw(0xffff_fffe).to_string(),
            "not a board, but other bits set (0xfffffffe)"
        );
    }

    #[test]
    fn on_time_within_one_clock_of_the_gate() {
        // a core alone (the simulated card reads 0): its own clock
        assert_eq!(LinkStatus::from_raw(0).gate_tolerance_ps(250_000_000), 4000);
        assert_eq!(LinkStatus::from_raw(0).gate_tolerance_ps(0), 0);
        // a 10G board: the XGMII clock (6.4 ns) and the MAC domain's lag; the 100G CMAC's 3.103 ns
        let ten_g = LinkStatus::from_raw(pack(1, 1, 1, 2, 0x10, 3, 8));
        assert_eq!(ten_g.gate_tolerance_ps(250_000_000), 6810);
        let cmac = LinkStatus::from_raw(pack(1, 1, 1, 1, 0x10, 3, 16));
        assert_eq!(cmac.gate_tolerance_ps(250_000_000), 3514);
        // a board whose MAC kind names no clock: the core's
        let none = LinkStatus::from_raw(pack(1, 1, 0, 0, 0x10, 3, 16));
        assert_eq!(none.gate_tolerance_ps(250_000_000), 4000);
    }
}
