// fpga: tsnic on the Xilinx Alveo U280 (xcu280-fsvh2892-2L-e). The PCIe hard block, the MAC side, the
// core, flash/ICAP and the LED drivers are board/common/rtl/tsnic_alveo_top.v (shared with the U50
// and U250; its header describes them); this top gives it the card's pins and clocks:
//
// - PCIe: pcie4c_uscale_plus_0 (ip/pcie4c_uscale_plus_0.tcl), Gen3 x16; 100 MHz reference clock from
//   the edge connector on MGTREFCLK0_225.
// - Ethernet: QSFP28 cage 0 through cmac_usplus_0 (or xxv_ethernet_0 with MAC_10G = 1),
//   161.1328125 MHz reference clock from the SI546 next to the cage (qsfp0_refclk_fs = 1 selects
//   161.1328125 MHz, 0 would give 156.25; qsfp0_refclk_oe_b = 0 enables it) on MGTREFCLK1_134.
//   init_clk: the 100 MHz LVDS clock 0 (IBUFDS, BUFG).
// - No user LEDs are wired to the FPGA on this card: the shared module's LED outputs stay unloaded.
//   hbm_cattrip driven low: the HBM is not used (the card's controller shuts the card down when this
//   pin floats high).
`resetall
`timescale 1ns / 1ps
`default_nettype none

module fpga #(
    parameter GOLDEN = 0,   // 1: build the golden (fallback) image with the boot selector
    parameter MAC_10G = 0   // 1: 10GBASE-R on QSFP lane 0 through xxv_ethernet_0 and tsnic's own XGMII MAC
                            //    instead of the CMAC (build option MAC=10g); the GT ports shrink to lane 0
) (
    input  wire        clk_100mhz_0_p,
    input  wire        clk_100mhz_0_n,

    input  wire        pcie_refclk_1_p,
    input  wire        pcie_refclk_1_n,
    input  wire        pcie_reset_n,
    input  wire [15:0] pcie_rx_p,
    input  wire [15:0] pcie_rx_n,
    output wire [15:0] pcie_tx_p,
    output wire [15:0] pcie_tx_n,

    input  wire        qsfp0_mgt_refclk_1_p,
    input  wire        qsfp0_mgt_refclk_1_n,
    output wire        qsfp0_refclk_oe_b,
    output wire        qsfp0_refclk_fs,
    input  wire [(MAC_10G != 0 ? 0 : 3):0] qsfp0_rx_p,
    input  wire [(MAC_10G != 0 ? 0 : 3):0] qsfp0_rx_n,
    output wire [(MAC_10G != 0 ? 0 : 3):0] qsfp0_tx_p,
    output wire [(MAC_10G != 0 ? 0 : 3):0] qsfp0_tx_n,

    output wire        hbm_cattrip
);

assign hbm_cattrip = 1'b0;
assign qsfp0_refclk_oe_b = 1'b0;
assign qsfp0_refclk_fs = 1'b1;

// 100 MHz free-running clock: CMAC init/DRP clock, and the power-on reset of the CMAC
wire clk_100mhz_ibuf, init_clk;
IBUFDS clk_100mhz_ibufds_inst (.I(clk_100mhz_0_p), .IB(clk_100mhz_0_n), .O(clk_100mhz_ibuf));
BUFG clk_100mhz_bufg_inst (.I(clk_100mhz_ibuf), .O(init_clk));

/* verilator lint_off UNUSEDSIGNAL */   // no LEDs on this card; the U250's clock-chip reset uses the count
wire [12:0] init_rst_cnt;
wire led_link, led_pps, led_act;
/* verilator lint_on UNUSEDSIGNAL */

tsnic_alveo_top #(
    .PCIE_IP("pcie4c_uscale_plus_0"),
    .BOARD_ID(2),
    .GOLDEN(GOLDEN),
    .MAC_10G(MAC_10G)
) alveo_inst (
    .init_clk(init_clk), .init_rst_cnt(init_rst_cnt),
    .pcie_refclk_p(pcie_refclk_1_p), .pcie_refclk_n(pcie_refclk_1_n), .pcie_reset_n(pcie_reset_n),
    .pcie_rx_p(pcie_rx_p), .pcie_rx_n(pcie_rx_n), .pcie_tx_p(pcie_tx_p), .pcie_tx_n(pcie_tx_n),
    .qsfp_refclk_p(qsfp0_mgt_refclk_1_p), .qsfp_refclk_n(qsfp0_mgt_refclk_1_n),
    .qsfp_rx_p(qsfp0_rx_p), .qsfp_rx_n(qsfp0_rx_n), .qsfp_tx_p(qsfp0_tx_p), .qsfp_tx_n(qsfp0_tx_n),
    .led_link(led_link), .led_pps(led_pps), .led_act(led_act)
);

endmodule

`resetall
