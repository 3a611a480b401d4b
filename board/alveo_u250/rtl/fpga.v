// fpga: tsnic on the Xilinx Alveo U250 (xcu250-figd2104-2L-e). The PCIe hard block, the MAC side, the
// core, flash/ICAP and the LED drivers are board/common/rtl/tsnic_alveo_top.v (shared with the U50
// and U280; its header describes them); this top gives it the card's pins and clocks:
//
// - PCIe: pcie4_uscale_plus_0 (ip/pcie4_uscale_plus_0.tcl), Gen3 x16; 100 MHz reference clock from
//   the edge connector on MGTREFCLK0_226.
// - Ethernet: QSFP28 cage 0 through cmac_usplus_0 (or xxv_ethernet_0 with MAC_10G = 1),
//   161.1328125 MHz reference clock from the SI5335 clock generator (qsfp0_fs = 2'b10 selects
//   161.1328125 MHz; qsfp0_refclk_reset pulsed after configuration) on MGTREFCLK1_231. init_clk:
//   the 300 MHz LVDS clock 0 divided by 3 (BUFGCE_DIV). The QSFP module: selected (modsell low), out
//   of reset, high-power mode.
// - LEDs: led[0] = PCIe link up and MAC RX aligned, led[1] = PPS (100 ms pulse), led[2] = TX
//   activity (stretched).
`resetall
`timescale 1ns / 1ps
`default_nettype none

module fpga #(
    parameter GOLDEN = 0,   // 1: build the golden (fallback) image with the boot selector
    parameter MAC_10G = 0   // 1: 10GBASE-R on QSFP lane 0 through xxv_ethernet_0 and tsnic's own XGMII MAC
                            //    instead of the CMAC (build option MAC=10g); the GT ports shrink to lane 0
) (
    input  wire        clk_300mhz_0_p,
    input  wire        clk_300mhz_0_n,

    input  wire        pcie_refclk_p,
    input  wire        pcie_refclk_n,
    input  wire        pcie_reset_n,
    input  wire [15:0] pcie_rx_p,
    input  wire [15:0] pcie_rx_n,
    output wire [15:0] pcie_tx_p,
    output wire [15:0] pcie_tx_n,

    input  wire        qsfp0_mgt_refclk_1_p,
    input  wire        qsfp0_mgt_refclk_1_n,
    output wire        qsfp0_refclk_reset,
    output wire [1:0]  qsfp0_fs,
    input  wire [(MAC_10G != 0 ? 0 : 3):0] qsfp0_rx_p,
    input  wire [(MAC_10G != 0 ? 0 : 3):0] qsfp0_rx_n,
    output wire [(MAC_10G != 0 ? 0 : 3):0] qsfp0_tx_p,
    output wire [(MAC_10G != 0 ? 0 : 3):0] qsfp0_tx_n,
    output wire        qsfp0_modsell,
    output wire        qsfp0_resetl,
    output wire        qsfp0_lpmode,

    output wire [2:0]  led
);

assign qsfp0_fs = 2'b10;
assign qsfp0_modsell = 1'b0;
assign qsfp0_resetl = 1'b1;
assign qsfp0_lpmode = 1'b0;

// 100 MHz free-running clock (300 MHz / 3): CMAC init/DRP clock, and the power-on resets
wire clk_300mhz_ibuf, init_clk;
IBUFDS clk_300mhz_ibufds_inst (.I(clk_300mhz_0_p), .IB(clk_300mhz_0_n), .O(clk_300mhz_ibuf));
BUFGCE_DIV #(.BUFGCE_DIVIDE(3)) init_clk_inst (.I(clk_300mhz_ibuf), .CE(1'b1), .CLR(1'b0), .O(init_clk));

/* verilator lint_off UNUSEDSIGNAL */   // bits 11 and 12: the SI5335's reset below
wire [12:0] init_rst_cnt;   // init_clk cycles since configuration (the shared power-on reset's count)
/* verilator lint_on UNUSEDSIGNAL */

// the SI5335's reset: the first 2^11 cycles (20 us), then the CMAC waits another 20 us for its clock
reg qsfp0_refclk_reset_reg = 1'b1;
always @(posedge init_clk) qsfp0_refclk_reset_reg <= !init_rst_cnt[11] && !init_rst_cnt[12];
assign qsfp0_refclk_reset = qsfp0_refclk_reset_reg;

tsnic_alveo_top #(
    .PCIE_IP("pcie4_uscale_plus_0"),
    .BOARD_ID(3),
    .GOLDEN(GOLDEN),
    .MAC_10G(MAC_10G)
) alveo_inst (
    .init_clk(init_clk), .init_rst_cnt(init_rst_cnt),
    .pcie_refclk_p(pcie_refclk_p), .pcie_refclk_n(pcie_refclk_n), .pcie_reset_n(pcie_reset_n),
    .pcie_rx_p(pcie_rx_p), .pcie_rx_n(pcie_rx_n), .pcie_tx_p(pcie_tx_p), .pcie_tx_n(pcie_tx_n),
    .qsfp_refclk_p(qsfp0_mgt_refclk_1_p), .qsfp_refclk_n(qsfp0_mgt_refclk_1_n),
    .qsfp_rx_p(qsfp0_rx_p), .qsfp_rx_n(qsfp0_rx_n), .qsfp_tx_p(qsfp0_tx_p), .qsfp_tx_n(qsfp0_tx_n),
    .led_link(led[0]), .led_pps(led[1]), .led_act(led[2])
);

endmodule

`resetall
