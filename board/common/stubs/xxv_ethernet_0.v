// Lint stub of the xxv_ethernet IP (10G/25G High Speed Ethernet Subsystem, PG210) as
// board/alveo_*/ip/xxv_ethernet_0.tcl generates it (module name xxv_ethernet_0): one core, PCS/PMA only
// ("Ethernet PCS/PMA 64-bit"), 10GBASE-R, UltraScale+ GTY, 64-bit SDR XGMII (the MII ports) at
// tx_mii_clk_0 = 156.25 MHz. The user-side ports the Alveo tops use, named and sized as that
// configuration's instantiation template has them; ports not listed are left unconnected in the tops
// (Vivado accepts an instance that omits ports). No behaviour: outputs are zero.
`resetall
`timescale 1ns / 1ps
`default_nettype none
/* verilator lint_off UNUSEDSIGNAL */
module xxv_ethernet_0 (
    input  wire         gt_rxp_in_0,
    input  wire         gt_rxn_in_0,
    output wire         gt_txp_out_0,
    output wire         gt_txn_out_0,
    input  wire         gt_refclk_p,        // 161.1328125 MHz on the Alveo boards
    input  wire         gt_refclk_n,
    output wire         gt_refclk_out,
    input  wire         sys_reset,          // asynchronous, active high
    input  wire         dclk,               // DRP / GT helper clock (GT_DRP_CLK)
    input  wire         qpllreset_in_0,
    input  wire [2:0]   gt_loopback_in_0,
    input  wire [2:0]   txoutclksel_in_0,   // 3'b101: TXPROGDIVCLK
    input  wire [2:0]   rxoutclksel_in_0,
    input  wire         gtwiz_reset_tx_datapath_0,
    input  wire         gtwiz_reset_rx_datapath_0,
    output wire         gtpowergood_out_0,
    output wire         rxrecclkout_0,
    output wire         tx_mii_clk_0,       // 156.25 MHz: the TX XGMII clock
    input  wire         rx_core_clk_0,      // the RX XGMII clock (through the IP's RX FIFO)
    output wire         rx_clk_out_0,
    input  wire         tx_reset_0,
    input  wire         rx_reset_0,
    output wire         user_tx_reset_0,    // on tx_mii_clk_0
    output wire         user_rx_reset_0,    // on rx_core_clk_0
    input  wire [63:0]  tx_mii_d_0,
    input  wire [7:0]   tx_mii_c_0,
    output wire [63:0]  rx_mii_d_0,
    output wire [7:0]   rx_mii_c_0,
    input  wire         ctl_rx_test_pattern_0,
    input  wire         ctl_rx_data_pattern_select_0,
    input  wire         ctl_rx_test_pattern_enable_0,
    input  wire         ctl_rx_prbs31_test_pattern_enable_0,
    input  wire         ctl_tx_test_pattern_0,
    input  wire         ctl_tx_data_pattern_select_0,
    input  wire         ctl_tx_test_pattern_enable_0,
    input  wire         ctl_tx_prbs31_test_pattern_enable_0,
    output wire         stat_rx_block_lock_0,
    output wire         stat_rx_status_0,
    output wire         stat_rx_hi_ber_0
);
assign gt_txp_out_0 = 1'b0;
assign gt_txn_out_0 = 1'b0;
assign gt_refclk_out = 1'b0;
assign gtpowergood_out_0 = 1'b0;
assign rxrecclkout_0 = 1'b0;
assign tx_mii_clk_0 = 1'b0;
assign rx_clk_out_0 = 1'b0;
assign user_tx_reset_0 = 1'b0;
assign user_rx_reset_0 = 1'b0;
assign rx_mii_d_0 = 64'd0;
assign rx_mii_c_0 = 8'd0;
assign stat_rx_block_lock_0 = 1'b0;
assign stat_rx_status_0 = 1'b0;
assign stat_rx_hi_ber_0 = 1'b0;
endmodule
/* verilator lint_on UNUSEDSIGNAL */
`resetall
