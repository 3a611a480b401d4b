// fpga: tsnic on the Xilinx Alveo U50 (xcu50-fsvh2104-2-e). The PCIe hard block, the MAC side, the
// core, flash/ICAP and the LED drivers are board/common/rtl/tsnic_alveo_top.v (shared with the U280
// and U250; its header describes them); this top gives it the card's pins and clocks:
//
// - PCIe: pcie4c_uscale_plus_0 (ip/pcie4c_uscale_plus_0.tcl), Gen3 x16; 100 MHz reference clock from
//   the edge connector on MGTREFCLK0_225.
// - Ethernet: the QSFP28 cage through cmac_usplus_0 (or xxv_ethernet_0 with MAC_10G = 1),
//   161.1328125 MHz reference clock from the SI5394 (OUT0, its factory configuration) on
//   MGTREFCLK0_131. init_clk: the 100 MHz LVDS clock (IBUFDS, BUFG).
// - LEDs: qsfp_led_stat_g = PCIe link up and MAC RX aligned, qsfp_led_stat_y = PPS (100 ms pulse),
//   qsfp_led_act = TX activity (stretched). hbm_cattrip driven low: the HBM is not used (the card's
//   controller shuts the card down when this pin floats high).
`resetall
`timescale 1ns / 1ps
`default_nettype none

module fpga #(
    parameter GOLDEN = 0,   // 1: build the golden (fallback) image with the boot selector
    parameter MAC_10G = 0   // 1: 10GBASE-R on QSFP lane 0 through xxv_ethernet_0 and tsnic's own XGMII MAC
                            //    instead of the CMAC (build option MAC=10g); the GT ports shrink to lane 0
) (
    input  wire        clk_100mhz_1_p,
    input  wire        clk_100mhz_1_n,

    input  wire        pcie_refclk_1_p,
    input  wire        pcie_refclk_1_n,
    input  wire        pcie_reset_n,
    input  wire [15:0] pcie_rx_p,
    input  wire [15:0] pcie_rx_n,
    output wire [15:0] pcie_tx_p,
    output wire [15:0] pcie_tx_n,

    input  wire        qsfp_mgt_refclk_0_p,
    input  wire        qsfp_mgt_refclk_0_n,
    input  wire [(MAC_10G != 0 ? 0 : 3):0] qsfp_rx_p,
    input  wire [(MAC_10G != 0 ? 0 : 3):0] qsfp_rx_n,
    output wire [(MAC_10G != 0 ? 0 : 3):0] qsfp_tx_p,
    output wire [(MAC_10G != 0 ? 0 : 3):0] qsfp_tx_n,

    output wire        qsfp_led_act,
    output wire        qsfp_led_stat_g,
    output wire        qsfp_led_stat_y,
    output wire        hbm_cattrip
);

assign hbm_cattrip = 1'b0;

// 100 MHz free-running clock: CMAC init/DRP clock, and the power-on reset of the CMAC
wire clk_100mhz_ibuf, init_clk;
IBUFDS clk_100mhz_ibufds_inst (.I(clk_100mhz_1_p), .IB(clk_100mhz_1_n), .O(clk_100mhz_ibuf));
BUFG clk_100mhz_bufg_inst (.I(clk_100mhz_ibuf), .O(init_clk));

/* verilator lint_off UNUSEDSIGNAL */   // the U250's clock-chip reset uses it, not this card
wire [12:0] init_rst_cnt;
/* verilator lint_on UNUSEDSIGNAL */

tsnic_alveo_top #(
    .PCIE_IP("pcie4c_uscale_plus_0"),
    .BOARD_ID(1),
    .GOLDEN(GOLDEN),
    .MAC_10G(MAC_10G)
) alveo_inst (
    .init_clk(init_clk), .init_rst_cnt(init_rst_cnt),
    .pcie_refclk_p(pcie_refclk_1_p), .pcie_refclk_n(pcie_refclk_1_n), .pcie_reset_n(pcie_reset_n),
    .pcie_rx_p(pcie_rx_p), .pcie_rx_n(pcie_rx_n), .pcie_tx_p(pcie_tx_p), .pcie_tx_n(pcie_tx_n),
    .qsfp_refclk_p(qsfp_mgt_refclk_0_p), .qsfp_refclk_n(qsfp_mgt_refclk_0_n),
    .qsfp_rx_p(qsfp_rx_p), .qsfp_rx_n(qsfp_rx_n), .qsfp_tx_p(qsfp_tx_p), .qsfp_tx_n(qsfp_tx_n),
    .led_link(qsfp_led_stat_g), .led_pps(qsfp_led_stat_y), .led_act(qsfp_led_act)
);

endmodule

`resetall
