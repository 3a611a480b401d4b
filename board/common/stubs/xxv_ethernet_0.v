// Lint stub of the xxv_ethernet IP (10G/25G High Speed Ethernet Subsystem, PG210) as
// board/alveo_*/ip/xxv_ethernet_0.tcl generates it (module name xxv_ethernet_0): one core, PCS/PMA only
// ("Ethernet PCS/PMA 64-bit"), 10GBASE-R, UltraScale+ GTY, 64-bit SDR XGMII at tx_mii_clk_0 = 156.25 MHz,
// shared logic (QPLL, GT reset) in the core. Every port of that configuration, so board/lint.sh sees any
// port a top leaves out (Verilator PINMISSING) or leaves empty (PINCONNECTEMPTY on an input). Sources:
// the port list of a public direct instance of xxv_ethernet_0 in that mode (find_string ".tx_mii_d_0(":
// the one with gt_refclk_p/n, qpllreset_in_0, rx_core_clk_0 and txoutclksel_in_0 3'h5) and the widths of
// the Xilinx instantiation template of the same IP in PCS/PMA 64-bit mode (xxv_ethernet:3.0, the
// variant with shared logic outside the core, whose qpll*/gt_reset_* ports and rx_serdes_reset_0 this
// variant replaces by gt_refclk_p/n, gt_refclk_out and qpllreset_in_0). Only a generated IP can confirm
// it (docs/BOARDS.md). No behaviour: outputs are zero.
`resetall
`timescale 1ns / 1ps
`default_nettype none
/* verilator lint_off UNUSEDSIGNAL */
module xxv_ethernet_0 (
    // ports (instance order)
    input  wire           gt_rxp_in_0,
    input  wire           gt_rxn_in_0,
    output wire           gt_txp_out_0,
    output wire           gt_txn_out_0,
    input  wire           gt_refclk_p,                       // 161.1328125 MHz on the Alveo boards
    input  wire           gt_refclk_n,
    output wire           gt_refclk_out,
    input  wire           sys_reset,                         // asynchronous, active high
    input  wire           dclk,                              // DRP / GT helper clock (GT_DRP_CLK)
    input  wire           qpllreset_in_0,
    input  wire [2:0]     gt_loopback_in_0,
    input  wire [2:0]     txoutclksel_in_0,                  // 3'b101: TXPROGDIVCLK
    input  wire [2:0]     rxoutclksel_in_0,
    input  wire           gtwiz_reset_tx_datapath_0,
    input  wire           gtwiz_reset_rx_datapath_0,
    output wire           gtpowergood_out_0,
    output wire           rxrecclkout_0,
    output wire           tx_mii_clk_0,                      // 156.25 MHz: the TX XGMII clock
    input  wire           rx_core_clk_0,                     // the RX XGMII clock (through the IP RX FIFO)
    output wire           rx_clk_out_0,
    input  wire           tx_reset_0,
    input  wire           rx_reset_0,
    output wire           user_tx_reset_0,                   // on tx_mii_clk_0
    output wire           user_rx_reset_0,                   // on rx_core_clk_0
    input  wire [63:0]    tx_mii_d_0,
    input  wire [7:0]     tx_mii_c_0,
    output wire [63:0]    rx_mii_d_0,
    output wire [7:0]     rx_mii_c_0,
    input  wire           ctl_rx_test_pattern_0,
    input  wire           ctl_rx_data_pattern_select_0,
    input  wire           ctl_rx_test_pattern_enable_0,
    input  wire           ctl_rx_prbs31_test_pattern_enable_0,
    input  wire           ctl_tx_test_pattern_0,
    input  wire           ctl_tx_test_pattern_enable_0,
    input  wire           ctl_tx_test_pattern_select_0,
    input  wire           ctl_tx_data_pattern_select_0,
    input  wire [57:0]    ctl_tx_test_pattern_seed_a_0,
    input  wire [57:0]    ctl_tx_test_pattern_seed_b_0,
    input  wire           ctl_tx_prbs31_test_pattern_enable_0,
    output wire           stat_rx_block_lock_0,
    output wire           stat_rx_framing_err_valid_0,
    output wire           stat_rx_framing_err_0,
    output wire           stat_rx_hi_ber_0,
    output wire           stat_rx_valid_ctrl_code_0,
    output wire           stat_rx_bad_code_0,
    output wire           stat_rx_bad_code_valid_0,
    output wire           stat_rx_error_valid_0,
    output wire [7:0]     stat_rx_error_0,
    output wire           stat_rx_fifo_error_0,
    output wire           stat_rx_local_fault_0,
    output wire           stat_rx_status_0,
    output wire           stat_tx_local_fault_0
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
assign stat_rx_framing_err_valid_0 = 1'b0;
assign stat_rx_framing_err_0 = 1'b0;
assign stat_rx_hi_ber_0 = 1'b0;
assign stat_rx_valid_ctrl_code_0 = 1'b0;
assign stat_rx_bad_code_0 = 1'b0;
assign stat_rx_bad_code_valid_0 = 1'b0;
assign stat_rx_error_valid_0 = 1'b0;
assign stat_rx_error_0 = 8'd0;
assign stat_rx_fifo_error_0 = 1'b0;
assign stat_rx_local_fault_0 = 1'b0;
assign stat_rx_status_0 = 1'b0;
assign stat_tx_local_fault_0 = 1'b0;
endmodule
/* verilator lint_on UNUSEDSIGNAL */
`resetall
