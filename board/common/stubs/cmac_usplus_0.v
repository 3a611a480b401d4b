// Lint stub of the cmac_usplus IP as board/<board>/ip/*.tcl generates it (module name cmac_usplus_0): the user-side ports
// the board tops use, named and sized as PG203 (UltraScale+ Integrated 100G Ethernet Subsystem), AXI4-Stream user interface, CAUI-4 4x25G with RS-FEC documents them. Ports not listed here are left
// unconnected in the tops (Vivado accepts an instance that omits ports). No behaviour: outputs are zero.
`resetall
`timescale 1ns / 1ps
`default_nettype none
/* verilator lint_off UNUSEDSIGNAL */
module cmac_usplus_0 (
    output wire [3:0]   gt_txp_out,
    output wire [3:0]   gt_txn_out,
    input  wire [3:0]   gt_rxp_in,
    input  wire [3:0]   gt_rxn_in,
    input  wire         gt_ref_clk_p,     // 161.1328125 MHz
    input  wire         gt_ref_clk_n,
    output wire         gt_ref_clk_out,
    input  wire         init_clk,         // free-running (DRP/init clock)
    input  wire         sys_reset,
    input  wire [11:0]  gt_loopback_in,
    input  wire         gtwiz_reset_tx_datapath,
    input  wire         gtwiz_reset_rx_datapath,
    output wire [3:0]   gt_powergoodout,
    output wire         gt_txusrclk2,     // 322.265625 MHz TX user clock
    output wire         gt_rxusrclk2,
    output wire         usr_tx_reset,
    output wire         usr_rx_reset,
    input  wire         rx_clk,           // RX user-side clock (tied to gt_txusrclk2)
    input  wire         core_rx_reset,
    input  wire         core_tx_reset,
    input  wire         core_drp_reset,
    input  wire         drp_clk,
    input  wire [9:0]   drp_addr,
    input  wire [15:0]  drp_di,
    input  wire         drp_en,
    input  wire         drp_we,
    output wire [15:0]  drp_do,
    output wire         drp_rdy,
    // TX AXI-Stream (gt_txusrclk2)
    output wire         tx_axis_tready,
    input  wire         tx_axis_tvalid,
    input  wire [511:0] tx_axis_tdata,
    input  wire         tx_axis_tlast,
    input  wire [63:0]  tx_axis_tkeep,
    input  wire         tx_axis_tuser,    // 1 on the last beat: abort (bad FCS)
    input  wire [55:0]  tx_preamblein,
    output wire         tx_ovfout,
    output wire         tx_unfout,        // TX underflow: the stream stalled inside a frame
    // RX AXI-Stream (rx_clk); no tready: the MAC does not wait
    output wire         rx_axis_tvalid,
    output wire [511:0] rx_axis_tdata,
    output wire         rx_axis_tlast,
    output wire [63:0]  rx_axis_tkeep,
    output wire         rx_axis_tuser,
    output wire [55:0]  rx_preambleout,
    // control
    input  wire         ctl_tx_enable,
    input  wire         ctl_tx_send_idle,
    input  wire         ctl_tx_send_rfi,
    input  wire         ctl_tx_send_lfi,
    input  wire         ctl_tx_test_pattern,
    input  wire         ctl_rx_enable,
    input  wire         ctl_rx_force_resync,
    input  wire         ctl_rx_test_pattern,
    input  wire         ctl_rsfec_ieee_error_indication_mode,
    input  wire         ctl_rx_rsfec_enable,
    input  wire         ctl_rx_rsfec_enable_correction,
    input  wire         ctl_rx_rsfec_enable_indication,
    input  wire         ctl_tx_rsfec_enable,
    // status (a subset)
    output wire         stat_rx_aligned,
    output wire         stat_rx_status,
    output wire         stat_rx_remote_fault,
    output wire         stat_rx_local_fault,
    output wire         stat_tx_local_fault
);
assign gt_txp_out = 4'd0;
assign gt_txn_out = 4'd0;
assign gt_ref_clk_out = 1'b0;
assign gt_powergoodout = 4'd0;
assign gt_txusrclk2 = 1'b0;
assign gt_rxusrclk2 = 1'b0;
assign usr_tx_reset = 1'b0;
assign usr_rx_reset = 1'b0;
assign drp_do = 16'd0;
assign drp_rdy = 1'b0;
assign tx_axis_tready = 1'b0;
assign tx_ovfout = 1'b0;
assign tx_unfout = 1'b0;
assign rx_axis_tvalid = 1'b0;
assign rx_axis_tdata = 512'd0;
assign rx_axis_tlast = 1'b0;
assign rx_axis_tkeep = 64'd0;
assign rx_axis_tuser = 1'b0;
assign rx_preambleout = 56'd0;
assign stat_rx_aligned = 1'b0;
assign stat_rx_status = 1'b0;
assign stat_rx_remote_fault = 1'b0;
assign stat_rx_local_fault = 1'b0;
assign stat_tx_local_fault = 1'b0;
endmodule
