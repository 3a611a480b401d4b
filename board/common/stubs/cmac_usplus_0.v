// Lint stub of the cmac_usplus IP (UltraScale+ integrated 100G Ethernet, PG203) as
// board/alveo_*/ip/cmac_usplus_0.tcl generates it: CAUI-4 4x25G, AXI4-Stream user interface, RS-FEC, no
// pause-frame processing, no AXI4-Lite, no time stamping. Every port of that configuration, so
// board/lint.sh sees any port a top leaves out (Verilator PINMISSING) or leaves empty (PINCONNECTEMPTY on
// an input). Source: the instance of cmac_usplus_0 in Corundum's AU250 design before its AU200 merge
// (fpga/mqnic/AU250/fpga_100g/rtl/fpga.v at 72afcc44; ip/cmac_usplus_0.tcl there: CAUI4, 4x25, AXIS,
// RS-FEC, no flow control, the same configuration), which names every port with its direction and width
// in a comment as the IP's instantiation template gives them; its GT lane buses [3:0]. Only a generated
// IP of the Vivado version used can confirm it (port sets differ between IP versions). No behaviour:
// outputs are zero.
`resetall
`timescale 1ns / 1ps
`default_nettype none
/* verilator lint_off UNUSEDSIGNAL */
module cmac_usplus_0 (
    // inputs
    input  wire [3:0]     gt_rxp_in,
    input  wire [3:0]     gt_rxn_in,
    input  wire [11:0]    gt_loopback_in,
    input  wire           gtwiz_reset_tx_datapath,
    input  wire           gtwiz_reset_rx_datapath,
    input  wire           sys_reset,
    input  wire           gt_ref_clk_p,
    input  wire           gt_ref_clk_n,
    input  wire           init_clk,
    input  wire           ctl_rx_enable,
    input  wire           ctl_rx_force_resync,
    input  wire           ctl_rx_test_pattern,
    input  wire           ctl_rsfec_ieee_error_indication_mode,
    input  wire           ctl_rx_rsfec_enable,
    input  wire           ctl_rx_rsfec_enable_correction,
    input  wire           ctl_rx_rsfec_enable_indication,
    input  wire           core_rx_reset,
    input  wire           rx_clk,
    input  wire           ctl_tx_enable,
    input  wire           ctl_tx_test_pattern,
    input  wire           ctl_tx_rsfec_enable,
    input  wire           ctl_tx_send_idle,
    input  wire           ctl_tx_send_rfi,
    input  wire           ctl_tx_send_lfi,
    input  wire           core_tx_reset,
    input  wire           tx_axis_tvalid,
    input  wire [511:0]   tx_axis_tdata,
    input  wire           tx_axis_tlast,
    input  wire [63:0]    tx_axis_tkeep,
    input  wire           tx_axis_tuser,
    input  wire [55:0]    tx_preamblein,
    input  wire           core_drp_reset,
    input  wire           drp_clk,
    input  wire [9:0]     drp_addr,
    input  wire [15:0]    drp_di,
    input  wire           drp_en,
    input  wire           drp_we,
    // outputs
    output wire [3:0]     gt_txp_out,
    output wire [3:0]     gt_txn_out,
    output wire           gt_txusrclk2,
    output wire [3:0]     gt_rxrecclkout,
    output wire [3:0]     gt_powergoodout,
    output wire           gt_ref_clk_out,
    output wire           rx_axis_tvalid,
    output wire [511:0]   rx_axis_tdata,
    output wire           rx_axis_tlast,
    output wire [63:0]    rx_axis_tkeep,
    output wire           rx_axis_tuser,
    output wire [7:0]     rx_otn_bip8_0,
    output wire [7:0]     rx_otn_bip8_1,
    output wire [7:0]     rx_otn_bip8_2,
    output wire [7:0]     rx_otn_bip8_3,
    output wire [7:0]     rx_otn_bip8_4,
    output wire [65:0]    rx_otn_data_0,
    output wire [65:0]    rx_otn_data_1,
    output wire [65:0]    rx_otn_data_2,
    output wire [65:0]    rx_otn_data_3,
    output wire [65:0]    rx_otn_data_4,
    output wire           rx_otn_ena,
    output wire           rx_otn_lane0,
    output wire           rx_otn_vlmarker,
    output wire [55:0]    rx_preambleout,
    output wire           usr_rx_reset,
    output wire           gt_rxusrclk2,
    output wire           stat_rx_aligned,
    output wire           stat_rx_aligned_err,
    output wire [2:0]     stat_rx_bad_code,
    output wire [2:0]     stat_rx_bad_fcs,
    output wire           stat_rx_bad_preamble,
    output wire           stat_rx_bad_sfd,
    output wire           stat_rx_bip_err_0,
    output wire           stat_rx_bip_err_1,
    output wire           stat_rx_bip_err_10,
    output wire           stat_rx_bip_err_11,
    output wire           stat_rx_bip_err_12,
    output wire           stat_rx_bip_err_13,
    output wire           stat_rx_bip_err_14,
    output wire           stat_rx_bip_err_15,
    output wire           stat_rx_bip_err_16,
    output wire           stat_rx_bip_err_17,
    output wire           stat_rx_bip_err_18,
    output wire           stat_rx_bip_err_19,
    output wire           stat_rx_bip_err_2,
    output wire           stat_rx_bip_err_3,
    output wire           stat_rx_bip_err_4,
    output wire           stat_rx_bip_err_5,
    output wire           stat_rx_bip_err_6,
    output wire           stat_rx_bip_err_7,
    output wire           stat_rx_bip_err_8,
    output wire           stat_rx_bip_err_9,
    output wire [19:0]    stat_rx_block_lock,
    output wire           stat_rx_broadcast,
    output wire [2:0]     stat_rx_fragment,
    output wire [1:0]     stat_rx_framing_err_0,
    output wire [1:0]     stat_rx_framing_err_1,
    output wire [1:0]     stat_rx_framing_err_10,
    output wire [1:0]     stat_rx_framing_err_11,
    output wire [1:0]     stat_rx_framing_err_12,
    output wire [1:0]     stat_rx_framing_err_13,
    output wire [1:0]     stat_rx_framing_err_14,
    output wire [1:0]     stat_rx_framing_err_15,
    output wire [1:0]     stat_rx_framing_err_16,
    output wire [1:0]     stat_rx_framing_err_17,
    output wire [1:0]     stat_rx_framing_err_18,
    output wire [1:0]     stat_rx_framing_err_19,
    output wire [1:0]     stat_rx_framing_err_2,
    output wire [1:0]     stat_rx_framing_err_3,
    output wire [1:0]     stat_rx_framing_err_4,
    output wire [1:0]     stat_rx_framing_err_5,
    output wire [1:0]     stat_rx_framing_err_6,
    output wire [1:0]     stat_rx_framing_err_7,
    output wire [1:0]     stat_rx_framing_err_8,
    output wire [1:0]     stat_rx_framing_err_9,
    output wire           stat_rx_framing_err_valid_0,
    output wire           stat_rx_framing_err_valid_1,
    output wire           stat_rx_framing_err_valid_10,
    output wire           stat_rx_framing_err_valid_11,
    output wire           stat_rx_framing_err_valid_12,
    output wire           stat_rx_framing_err_valid_13,
    output wire           stat_rx_framing_err_valid_14,
    output wire           stat_rx_framing_err_valid_15,
    output wire           stat_rx_framing_err_valid_16,
    output wire           stat_rx_framing_err_valid_17,
    output wire           stat_rx_framing_err_valid_18,
    output wire           stat_rx_framing_err_valid_19,
    output wire           stat_rx_framing_err_valid_2,
    output wire           stat_rx_framing_err_valid_3,
    output wire           stat_rx_framing_err_valid_4,
    output wire           stat_rx_framing_err_valid_5,
    output wire           stat_rx_framing_err_valid_6,
    output wire           stat_rx_framing_err_valid_7,
    output wire           stat_rx_framing_err_valid_8,
    output wire           stat_rx_framing_err_valid_9,
    output wire           stat_rx_got_signal_os,
    output wire           stat_rx_hi_ber,
    output wire           stat_rx_inrangeerr,
    output wire           stat_rx_internal_local_fault,
    output wire           stat_rx_jabber,
    output wire           stat_rx_local_fault,
    output wire [19:0]    stat_rx_mf_err,
    output wire [19:0]    stat_rx_mf_len_err,
    output wire [19:0]    stat_rx_mf_repeat_err,
    output wire           stat_rx_misaligned,
    output wire           stat_rx_multicast,
    output wire           stat_rx_oversize,
    output wire           stat_rx_packet_1024_1518_bytes,
    output wire           stat_rx_packet_128_255_bytes,
    output wire           stat_rx_packet_1519_1522_bytes,
    output wire           stat_rx_packet_1523_1548_bytes,
    output wire           stat_rx_packet_1549_2047_bytes,
    output wire           stat_rx_packet_2048_4095_bytes,
    output wire           stat_rx_packet_256_511_bytes,
    output wire           stat_rx_packet_4096_8191_bytes,
    output wire           stat_rx_packet_512_1023_bytes,
    output wire           stat_rx_packet_64_bytes,
    output wire           stat_rx_packet_65_127_bytes,
    output wire           stat_rx_packet_8192_9215_bytes,
    output wire           stat_rx_packet_bad_fcs,
    output wire           stat_rx_packet_large,
    output wire [2:0]     stat_rx_packet_small,
    output wire           stat_rx_received_local_fault,
    output wire           stat_rx_remote_fault,
    output wire           stat_rx_status,
    output wire [2:0]     stat_rx_stomped_fcs,
    output wire [19:0]    stat_rx_synced,
    output wire [19:0]    stat_rx_synced_err,
    output wire [2:0]     stat_rx_test_pattern_mismatch,
    output wire           stat_rx_toolong,
    output wire [6:0]     stat_rx_total_bytes,
    output wire [13:0]    stat_rx_total_good_bytes,
    output wire           stat_rx_total_good_packets,
    output wire [2:0]     stat_rx_total_packets,
    output wire           stat_rx_truncated,
    output wire [2:0]     stat_rx_undersize,
    output wire           stat_rx_unicast,
    output wire           stat_rx_vlan,
    output wire [19:0]    stat_rx_pcsl_demuxed,
    output wire [4:0]     stat_rx_pcsl_number_0,
    output wire [4:0]     stat_rx_pcsl_number_1,
    output wire [4:0]     stat_rx_pcsl_number_10,
    output wire [4:0]     stat_rx_pcsl_number_11,
    output wire [4:0]     stat_rx_pcsl_number_12,
    output wire [4:0]     stat_rx_pcsl_number_13,
    output wire [4:0]     stat_rx_pcsl_number_14,
    output wire [4:0]     stat_rx_pcsl_number_15,
    output wire [4:0]     stat_rx_pcsl_number_16,
    output wire [4:0]     stat_rx_pcsl_number_17,
    output wire [4:0]     stat_rx_pcsl_number_18,
    output wire [4:0]     stat_rx_pcsl_number_19,
    output wire [4:0]     stat_rx_pcsl_number_2,
    output wire [4:0]     stat_rx_pcsl_number_3,
    output wire [4:0]     stat_rx_pcsl_number_4,
    output wire [4:0]     stat_rx_pcsl_number_5,
    output wire [4:0]     stat_rx_pcsl_number_6,
    output wire [4:0]     stat_rx_pcsl_number_7,
    output wire [4:0]     stat_rx_pcsl_number_8,
    output wire [4:0]     stat_rx_pcsl_number_9,
    output wire           stat_rx_rsfec_am_lock0,
    output wire           stat_rx_rsfec_am_lock1,
    output wire           stat_rx_rsfec_am_lock2,
    output wire           stat_rx_rsfec_am_lock3,
    output wire           stat_rx_rsfec_corrected_cw_inc,
    output wire           stat_rx_rsfec_cw_inc,
    output wire [2:0]     stat_rx_rsfec_err_count0_inc,
    output wire [2:0]     stat_rx_rsfec_err_count1_inc,
    output wire [2:0]     stat_rx_rsfec_err_count2_inc,
    output wire [2:0]     stat_rx_rsfec_err_count3_inc,
    output wire           stat_rx_rsfec_hi_ser,
    output wire           stat_rx_rsfec_lane_alignment_status,
    output wire [13:0]    stat_rx_rsfec_lane_fill_0,
    output wire [13:0]    stat_rx_rsfec_lane_fill_1,
    output wire [13:0]    stat_rx_rsfec_lane_fill_2,
    output wire [13:0]    stat_rx_rsfec_lane_fill_3,
    output wire [7:0]     stat_rx_rsfec_lane_mapping,
    output wire           stat_rx_rsfec_uncorrected_cw_inc,
    output wire           stat_tx_bad_fcs,
    output wire           stat_tx_broadcast,
    output wire           stat_tx_frame_error,
    output wire           stat_tx_local_fault,
    output wire           stat_tx_multicast,
    output wire           stat_tx_packet_1024_1518_bytes,
    output wire           stat_tx_packet_128_255_bytes,
    output wire           stat_tx_packet_1519_1522_bytes,
    output wire           stat_tx_packet_1523_1548_bytes,
    output wire           stat_tx_packet_1549_2047_bytes,
    output wire           stat_tx_packet_2048_4095_bytes,
    output wire           stat_tx_packet_256_511_bytes,
    output wire           stat_tx_packet_4096_8191_bytes,
    output wire           stat_tx_packet_512_1023_bytes,
    output wire           stat_tx_packet_64_bytes,
    output wire           stat_tx_packet_65_127_bytes,
    output wire           stat_tx_packet_8192_9215_bytes,
    output wire           stat_tx_packet_large,
    output wire           stat_tx_packet_small,
    output wire [5:0]     stat_tx_total_bytes,
    output wire [13:0]    stat_tx_total_good_bytes,
    output wire           stat_tx_total_good_packets,
    output wire           stat_tx_total_packets,
    output wire           stat_tx_unicast,
    output wire           stat_tx_vlan,
    output wire           tx_axis_tready,
    output wire           tx_ovfout,
    output wire           tx_unfout,
    output wire           usr_tx_reset,
    output wire [15:0]    drp_do,
    output wire           drp_rdy
);
assign gt_txp_out = 4'd0;
assign gt_txn_out = 4'd0;
assign gt_txusrclk2 = 1'b0;
assign gt_rxrecclkout = 4'd0;
assign gt_powergoodout = 4'd0;
assign gt_ref_clk_out = 1'b0;
assign rx_axis_tvalid = 1'b0;
assign rx_axis_tdata = 512'd0;
assign rx_axis_tlast = 1'b0;
assign rx_axis_tkeep = 64'd0;
assign rx_axis_tuser = 1'b0;
assign rx_otn_bip8_0 = 8'd0;
assign rx_otn_bip8_1 = 8'd0;
assign rx_otn_bip8_2 = 8'd0;
assign rx_otn_bip8_3 = 8'd0;
assign rx_otn_bip8_4 = 8'd0;
assign rx_otn_data_0 = 66'd0;
assign rx_otn_data_1 = 66'd0;
assign rx_otn_data_2 = 66'd0;
assign rx_otn_data_3 = 66'd0;
assign rx_otn_data_4 = 66'd0;
assign rx_otn_ena = 1'b0;
assign rx_otn_lane0 = 1'b0;
assign rx_otn_vlmarker = 1'b0;
assign rx_preambleout = 56'd0;
assign usr_rx_reset = 1'b0;
assign gt_rxusrclk2 = 1'b0;
assign stat_rx_aligned = 1'b0;
assign stat_rx_aligned_err = 1'b0;
assign stat_rx_bad_code = 3'd0;
assign stat_rx_bad_fcs = 3'd0;
assign stat_rx_bad_preamble = 1'b0;
assign stat_rx_bad_sfd = 1'b0;
assign stat_rx_bip_err_0 = 1'b0;
assign stat_rx_bip_err_1 = 1'b0;
assign stat_rx_bip_err_10 = 1'b0;
assign stat_rx_bip_err_11 = 1'b0;
assign stat_rx_bip_err_12 = 1'b0;
assign stat_rx_bip_err_13 = 1'b0;
assign stat_rx_bip_err_14 = 1'b0;
assign stat_rx_bip_err_15 = 1'b0;
assign stat_rx_bip_err_16 = 1'b0;
assign stat_rx_bip_err_17 = 1'b0;
assign stat_rx_bip_err_18 = 1'b0;
assign stat_rx_bip_err_19 = 1'b0;
assign stat_rx_bip_err_2 = 1'b0;
assign stat_rx_bip_err_3 = 1'b0;
assign stat_rx_bip_err_4 = 1'b0;
assign stat_rx_bip_err_5 = 1'b0;
assign stat_rx_bip_err_6 = 1'b0;
assign stat_rx_bip_err_7 = 1'b0;
assign stat_rx_bip_err_8 = 1'b0;
assign stat_rx_bip_err_9 = 1'b0;
assign stat_rx_block_lock = 20'd0;
assign stat_rx_broadcast = 1'b0;
assign stat_rx_fragment = 3'd0;
assign stat_rx_framing_err_0 = 2'd0;
assign stat_rx_framing_err_1 = 2'd0;
assign stat_rx_framing_err_10 = 2'd0;
assign stat_rx_framing_err_11 = 2'd0;
assign stat_rx_framing_err_12 = 2'd0;
assign stat_rx_framing_err_13 = 2'd0;
assign stat_rx_framing_err_14 = 2'd0;
assign stat_rx_framing_err_15 = 2'd0;
assign stat_rx_framing_err_16 = 2'd0;
assign stat_rx_framing_err_17 = 2'd0;
assign stat_rx_framing_err_18 = 2'd0;
assign stat_rx_framing_err_19 = 2'd0;
assign stat_rx_framing_err_2 = 2'd0;
assign stat_rx_framing_err_3 = 2'd0;
assign stat_rx_framing_err_4 = 2'd0;
assign stat_rx_framing_err_5 = 2'd0;
assign stat_rx_framing_err_6 = 2'd0;
assign stat_rx_framing_err_7 = 2'd0;
assign stat_rx_framing_err_8 = 2'd0;
assign stat_rx_framing_err_9 = 2'd0;
assign stat_rx_framing_err_valid_0 = 1'b0;
assign stat_rx_framing_err_valid_1 = 1'b0;
assign stat_rx_framing_err_valid_10 = 1'b0;
assign stat_rx_framing_err_valid_11 = 1'b0;
assign stat_rx_framing_err_valid_12 = 1'b0;
assign stat_rx_framing_err_valid_13 = 1'b0;
assign stat_rx_framing_err_valid_14 = 1'b0;
assign stat_rx_framing_err_valid_15 = 1'b0;
assign stat_rx_framing_err_valid_16 = 1'b0;
assign stat_rx_framing_err_valid_17 = 1'b0;
assign stat_rx_framing_err_valid_18 = 1'b0;
assign stat_rx_framing_err_valid_19 = 1'b0;
assign stat_rx_framing_err_valid_2 = 1'b0;
assign stat_rx_framing_err_valid_3 = 1'b0;
assign stat_rx_framing_err_valid_4 = 1'b0;
assign stat_rx_framing_err_valid_5 = 1'b0;
assign stat_rx_framing_err_valid_6 = 1'b0;
assign stat_rx_framing_err_valid_7 = 1'b0;
assign stat_rx_framing_err_valid_8 = 1'b0;
assign stat_rx_framing_err_valid_9 = 1'b0;
assign stat_rx_got_signal_os = 1'b0;
assign stat_rx_hi_ber = 1'b0;
assign stat_rx_inrangeerr = 1'b0;
assign stat_rx_internal_local_fault = 1'b0;
assign stat_rx_jabber = 1'b0;
assign stat_rx_local_fault = 1'b0;
assign stat_rx_mf_err = 20'd0;
assign stat_rx_mf_len_err = 20'd0;
assign stat_rx_mf_repeat_err = 20'd0;
assign stat_rx_misaligned = 1'b0;
assign stat_rx_multicast = 1'b0;
assign stat_rx_oversize = 1'b0;
assign stat_rx_packet_1024_1518_bytes = 1'b0;
assign stat_rx_packet_128_255_bytes = 1'b0;
assign stat_rx_packet_1519_1522_bytes = 1'b0;
assign stat_rx_packet_1523_1548_bytes = 1'b0;
assign stat_rx_packet_1549_2047_bytes = 1'b0;
assign stat_rx_packet_2048_4095_bytes = 1'b0;
assign stat_rx_packet_256_511_bytes = 1'b0;
assign stat_rx_packet_4096_8191_bytes = 1'b0;
assign stat_rx_packet_512_1023_bytes = 1'b0;
assign stat_rx_packet_64_bytes = 1'b0;
assign stat_rx_packet_65_127_bytes = 1'b0;
assign stat_rx_packet_8192_9215_bytes = 1'b0;
assign stat_rx_packet_bad_fcs = 1'b0;
assign stat_rx_packet_large = 1'b0;
assign stat_rx_packet_small = 3'd0;
assign stat_rx_received_local_fault = 1'b0;
assign stat_rx_remote_fault = 1'b0;
assign stat_rx_status = 1'b0;
assign stat_rx_stomped_fcs = 3'd0;
assign stat_rx_synced = 20'd0;
assign stat_rx_synced_err = 20'd0;
assign stat_rx_test_pattern_mismatch = 3'd0;
assign stat_rx_toolong = 1'b0;
assign stat_rx_total_bytes = 7'd0;
assign stat_rx_total_good_bytes = 14'd0;
assign stat_rx_total_good_packets = 1'b0;
assign stat_rx_total_packets = 3'd0;
assign stat_rx_truncated = 1'b0;
assign stat_rx_undersize = 3'd0;
assign stat_rx_unicast = 1'b0;
assign stat_rx_vlan = 1'b0;
assign stat_rx_pcsl_demuxed = 20'd0;
assign stat_rx_pcsl_number_0 = 5'd0;
assign stat_rx_pcsl_number_1 = 5'd0;
assign stat_rx_pcsl_number_10 = 5'd0;
assign stat_rx_pcsl_number_11 = 5'd0;
assign stat_rx_pcsl_number_12 = 5'd0;
assign stat_rx_pcsl_number_13 = 5'd0;
assign stat_rx_pcsl_number_14 = 5'd0;
assign stat_rx_pcsl_number_15 = 5'd0;
assign stat_rx_pcsl_number_16 = 5'd0;
assign stat_rx_pcsl_number_17 = 5'd0;
assign stat_rx_pcsl_number_18 = 5'd0;
assign stat_rx_pcsl_number_19 = 5'd0;
assign stat_rx_pcsl_number_2 = 5'd0;
assign stat_rx_pcsl_number_3 = 5'd0;
assign stat_rx_pcsl_number_4 = 5'd0;
assign stat_rx_pcsl_number_5 = 5'd0;
assign stat_rx_pcsl_number_6 = 5'd0;
assign stat_rx_pcsl_number_7 = 5'd0;
assign stat_rx_pcsl_number_8 = 5'd0;
assign stat_rx_pcsl_number_9 = 5'd0;
assign stat_rx_rsfec_am_lock0 = 1'b0;
assign stat_rx_rsfec_am_lock1 = 1'b0;
assign stat_rx_rsfec_am_lock2 = 1'b0;
assign stat_rx_rsfec_am_lock3 = 1'b0;
assign stat_rx_rsfec_corrected_cw_inc = 1'b0;
assign stat_rx_rsfec_cw_inc = 1'b0;
assign stat_rx_rsfec_err_count0_inc = 3'd0;
assign stat_rx_rsfec_err_count1_inc = 3'd0;
assign stat_rx_rsfec_err_count2_inc = 3'd0;
assign stat_rx_rsfec_err_count3_inc = 3'd0;
assign stat_rx_rsfec_hi_ser = 1'b0;
assign stat_rx_rsfec_lane_alignment_status = 1'b0;
assign stat_rx_rsfec_lane_fill_0 = 14'd0;
assign stat_rx_rsfec_lane_fill_1 = 14'd0;
assign stat_rx_rsfec_lane_fill_2 = 14'd0;
assign stat_rx_rsfec_lane_fill_3 = 14'd0;
assign stat_rx_rsfec_lane_mapping = 8'd0;
assign stat_rx_rsfec_uncorrected_cw_inc = 1'b0;
assign stat_tx_bad_fcs = 1'b0;
assign stat_tx_broadcast = 1'b0;
assign stat_tx_frame_error = 1'b0;
assign stat_tx_local_fault = 1'b0;
assign stat_tx_multicast = 1'b0;
assign stat_tx_packet_1024_1518_bytes = 1'b0;
assign stat_tx_packet_128_255_bytes = 1'b0;
assign stat_tx_packet_1519_1522_bytes = 1'b0;
assign stat_tx_packet_1523_1548_bytes = 1'b0;
assign stat_tx_packet_1549_2047_bytes = 1'b0;
assign stat_tx_packet_2048_4095_bytes = 1'b0;
assign stat_tx_packet_256_511_bytes = 1'b0;
assign stat_tx_packet_4096_8191_bytes = 1'b0;
assign stat_tx_packet_512_1023_bytes = 1'b0;
assign stat_tx_packet_64_bytes = 1'b0;
assign stat_tx_packet_65_127_bytes = 1'b0;
assign stat_tx_packet_8192_9215_bytes = 1'b0;
assign stat_tx_packet_large = 1'b0;
assign stat_tx_packet_small = 1'b0;
assign stat_tx_total_bytes = 6'd0;
assign stat_tx_total_good_bytes = 14'd0;
assign stat_tx_total_good_packets = 1'b0;
assign stat_tx_total_packets = 1'b0;
assign stat_tx_unicast = 1'b0;
assign stat_tx_vlan = 1'b0;
assign tx_axis_tready = 1'b0;
assign tx_ovfout = 1'b0;
assign tx_unfout = 1'b0;
assign usr_tx_reset = 1'b0;
assign drp_do = 16'd0;
assign drp_rdy = 1'b0;
endmodule
/* verilator lint_on UNUSEDSIGNAL */
`resetall
