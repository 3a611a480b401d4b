// tsnic_alveo_mac: the MAC side of the Alveo tops (U50, U280, U250), one copy for the three boards:
// the CMAC (100G, MAC_10G = 0) or 10GBASE-R on QSFP lane 0 through xxv_ethernet_0 (PCS/PMA only) and
// tsnic's own XGMII MAC (MAC_10G = 1). It gives the board core one MAC clock (mac_clk) for its TX and
// RX sides, with their resets, takes the core's DATA_W-bit launch-gated TX stream on that clock and
// hands it the MAC's RX stream (DATA_W bits from the CMAC; 64 bits plus the start-of-frame pulses
// from the XGMII MAC, RX_SOF_IN = 1). The boards differ only in which QSFP pins and reference clock
// their top connects here (and in the IP's placement, set by each board's ip/*.tcl).
`resetall
`timescale 1ns / 1ps
`default_nettype none

module tsnic_alveo_mac #(
    parameter MAC_10G = 0,     // 1: 10GBASE-R (xxv_ethernet_0 + tsnic_xgmii_tx/rx) instead of the CMAC
    parameter DATA_W  = 512,   // the core's TX stream width (the CMAC's AXI-Stream width)
    parameter RX_W    = (MAC_10G != 0) ? 64 : DATA_W,
    parameter LANES   = (MAC_10G != 0) ? 1 : 4
) (
    input  wire               init_clk,       // the free-running clock of the IP's reset logic and DRP
    input  wire               init_rst,       // on init_clk
    /* verilator lint_off UNUSEDSIGNAL */
    input  wire               rst,            // the core's reset (user_clk): 10G downsizer and MACs only
    /* verilator lint_on UNUSEDSIGNAL */
    // QSFP: lanes and the GT reference clock (161.1328125 MHz)
    input  wire               refclk_p,
    input  wire               refclk_n,
    input  wire [LANES-1:0]   qsfp_rx_p,
    input  wire [LANES-1:0]   qsfp_rx_n,
    output wire [LANES-1:0]   qsfp_tx_p,
    output wire [LANES-1:0]   qsfp_tx_n,
    // the MAC clock and its resets
    output wire               mac_clk,
    output wire               mac_tx_reset,   // synchronous to mac_clk
    output wire               mac_rx_rst,     // synchronous to mac_clk
    output wire               mac_rx_aligned, // CMAC: stat_rx_aligned; 10G: stat_rx_status
    // the core's TX stream (mac_clk)
    input  wire [DATA_W-1:0]  core_tx_tdata,
    input  wire [DATA_W/8-1:0] core_tx_tkeep,
    input  wire               core_tx_tvalid,
    output wire               core_tx_tready,
    input  wire               core_tx_tlast,
    input  wire               core_tx_tuser,
    // the MAC's RX stream (mac_clk, no backpressure)
    output wire [RX_W-1:0]    core_rx_tdata,
    output wire [RX_W/8-1:0]  core_rx_tkeep,
    output wire               core_rx_tvalid,
    output wire               core_rx_tlast,
    output wire               core_rx_tuser,
    output wire               core_rx_sof,
    output wire               core_rx_sof_lane4,
    // the stream the MAC takes (for an activity LED)
    output wire               mac_tx_tvalid,
    output wire               mac_tx_tready,
    output wire               mac_tx_tlast,
    // line-start reports for the launch gate (mac_clk; board core TX_MAC_LAG = 1): 10G, tsnic_xgmii_tx's
    // per-frame start on the line after the gate's first-beat handshake; CMAC, none (0: the board core
    // derives them, TX_MAC_LAG = 2)
    output wire               mac_lag_valid,
    output wire [15:0]        mac_lag_ns
);

generate
if (MAC_10G == 0) begin : cmac
    /* verilator lint_off UNUSEDSIGNAL */
    wire         mac_refclk_out, mac_rxusrclk2, mac_rx_reset, mac_tx_ovf, mac_tx_unf;
    wire [3:0]   mac_powergood;
    wire [15:0]  mac_drp_do;
    wire         mac_drp_rdy;
    wire         mac_rx_status, mac_rx_rfault, mac_rx_lfault, mac_tx_lfault;
    wire [55:0]  mac_rx_preamble;
    /* verilator lint_on UNUSEDSIGNAL */

    // ctl_rsfec_ieee_error_indication_mode 0 (was 1): the value Corundum's working 100G designs tie it to
    // (fpga/mqnic/AU250/fpga_100g/rtl/fpga.v at 72afcc44, the AU250 design before its AU200 merge); its
    // meaning is PG203's RS-FEC control port (the decoder's IEEE error-indication mode), not tested here
    cmac_usplus_0 cmac_inst (
        .gt_txp_out(qsfp_tx_p), .gt_txn_out(qsfp_tx_n), .gt_rxp_in(qsfp_rx_p), .gt_rxn_in(qsfp_rx_n),
        .gt_ref_clk_p(refclk_p), .gt_ref_clk_n(refclk_n), .gt_ref_clk_out(mac_refclk_out),
        .init_clk(init_clk), .sys_reset(init_rst), .gt_loopback_in(12'd0),
        .gtwiz_reset_tx_datapath(1'b0), .gtwiz_reset_rx_datapath(1'b0), .gt_powergoodout(mac_powergood),
        .gt_txusrclk2(mac_clk), .gt_rxusrclk2(mac_rxusrclk2), .usr_tx_reset(mac_tx_reset), .usr_rx_reset(mac_rx_reset),
        .rx_clk(mac_clk), .core_rx_reset(1'b0), .core_tx_reset(1'b0), .core_drp_reset(1'b0),
        .drp_clk(init_clk), .drp_addr(10'd0), .drp_di(16'd0), .drp_en(1'b0), .drp_we(1'b0),
        .drp_do(mac_drp_do), .drp_rdy(mac_drp_rdy),
        .tx_axis_tready(core_tx_tready), .tx_axis_tvalid(core_tx_tvalid), .tx_axis_tdata(core_tx_tdata),
        .tx_axis_tlast(core_tx_tlast), .tx_axis_tkeep(core_tx_tkeep), .tx_axis_tuser(core_tx_tuser),
        .tx_preamblein(56'd0), .tx_ovfout(mac_tx_ovf), .tx_unfout(mac_tx_unf),
        .rx_axis_tvalid(core_rx_tvalid), .rx_axis_tdata(core_rx_tdata), .rx_axis_tlast(core_rx_tlast),
        .rx_axis_tkeep(core_rx_tkeep), .rx_axis_tuser(core_rx_tuser), .rx_preambleout(mac_rx_preamble),
        .ctl_tx_enable(1'b1), .ctl_tx_send_idle(1'b0), .ctl_tx_send_rfi(1'b0), .ctl_tx_send_lfi(1'b0),
        .ctl_tx_test_pattern(1'b0), .ctl_rx_enable(1'b1), .ctl_rx_force_resync(1'b0), .ctl_rx_test_pattern(1'b0),
        .ctl_rsfec_ieee_error_indication_mode(1'b0), .ctl_rx_rsfec_enable(1'b1),
        .ctl_rx_rsfec_enable_correction(1'b1), .ctl_rx_rsfec_enable_indication(1'b1), .ctl_tx_rsfec_enable(1'b1),
        .stat_rx_aligned(mac_rx_aligned), .stat_rx_status(mac_rx_status), .stat_rx_remote_fault(mac_rx_rfault),
        .stat_rx_local_fault(mac_rx_lfault), .stat_tx_local_fault(mac_tx_lfault),
        // outputs not used (statistics, OTN, RS-FEC status, recovered clocks)
        .gt_rxrecclkout(), .rx_otn_bip8_0(), .rx_otn_bip8_1(), .rx_otn_bip8_2(), .rx_otn_bip8_3(),
        .rx_otn_bip8_4(), .rx_otn_data_0(), .rx_otn_data_1(), .rx_otn_data_2(), .rx_otn_data_3(),
        .rx_otn_data_4(), .rx_otn_ena(), .rx_otn_lane0(), .rx_otn_vlmarker(), .stat_rx_aligned_err(),
        .stat_rx_bad_code(), .stat_rx_bad_fcs(), .stat_rx_bad_preamble(), .stat_rx_bad_sfd(),
        .stat_rx_bip_err_0(), .stat_rx_bip_err_1(), .stat_rx_bip_err_10(), .stat_rx_bip_err_11(),
        .stat_rx_bip_err_12(), .stat_rx_bip_err_13(), .stat_rx_bip_err_14(), .stat_rx_bip_err_15(),
        .stat_rx_bip_err_16(), .stat_rx_bip_err_17(), .stat_rx_bip_err_18(), .stat_rx_bip_err_19(),
        .stat_rx_bip_err_2(), .stat_rx_bip_err_3(), .stat_rx_bip_err_4(), .stat_rx_bip_err_5(),
        .stat_rx_bip_err_6(), .stat_rx_bip_err_7(), .stat_rx_bip_err_8(), .stat_rx_bip_err_9(),
        .stat_rx_block_lock(), .stat_rx_broadcast(), .stat_rx_fragment(), .stat_rx_framing_err_0(),
        .stat_rx_framing_err_1(), .stat_rx_framing_err_10(), .stat_rx_framing_err_11(),
        .stat_rx_framing_err_12(), .stat_rx_framing_err_13(), .stat_rx_framing_err_14(),
        .stat_rx_framing_err_15(), .stat_rx_framing_err_16(), .stat_rx_framing_err_17(),
        .stat_rx_framing_err_18(), .stat_rx_framing_err_19(), .stat_rx_framing_err_2(),
        .stat_rx_framing_err_3(), .stat_rx_framing_err_4(), .stat_rx_framing_err_5(),
        .stat_rx_framing_err_6(), .stat_rx_framing_err_7(), .stat_rx_framing_err_8(),
        .stat_rx_framing_err_9(), .stat_rx_framing_err_valid_0(), .stat_rx_framing_err_valid_1(),
        .stat_rx_framing_err_valid_10(), .stat_rx_framing_err_valid_11(), .stat_rx_framing_err_valid_12(),
        .stat_rx_framing_err_valid_13(), .stat_rx_framing_err_valid_14(), .stat_rx_framing_err_valid_15(),
        .stat_rx_framing_err_valid_16(), .stat_rx_framing_err_valid_17(), .stat_rx_framing_err_valid_18(),
        .stat_rx_framing_err_valid_19(), .stat_rx_framing_err_valid_2(), .stat_rx_framing_err_valid_3(),
        .stat_rx_framing_err_valid_4(), .stat_rx_framing_err_valid_5(), .stat_rx_framing_err_valid_6(),
        .stat_rx_framing_err_valid_7(), .stat_rx_framing_err_valid_8(), .stat_rx_framing_err_valid_9(),
        .stat_rx_got_signal_os(), .stat_rx_hi_ber(), .stat_rx_inrangeerr(), .stat_rx_internal_local_fault(),
        .stat_rx_jabber(), .stat_rx_mf_err(), .stat_rx_mf_len_err(), .stat_rx_mf_repeat_err(),
        .stat_rx_misaligned(), .stat_rx_multicast(), .stat_rx_oversize(), .stat_rx_packet_1024_1518_bytes(),
        .stat_rx_packet_128_255_bytes(), .stat_rx_packet_1519_1522_bytes(),
        .stat_rx_packet_1523_1548_bytes(), .stat_rx_packet_1549_2047_bytes(),
        .stat_rx_packet_2048_4095_bytes(), .stat_rx_packet_256_511_bytes(),
        .stat_rx_packet_4096_8191_bytes(), .stat_rx_packet_512_1023_bytes(), .stat_rx_packet_64_bytes(),
        .stat_rx_packet_65_127_bytes(), .stat_rx_packet_8192_9215_bytes(), .stat_rx_packet_bad_fcs(),
        .stat_rx_packet_large(), .stat_rx_packet_small(), .stat_rx_received_local_fault(),
        .stat_rx_stomped_fcs(), .stat_rx_synced(), .stat_rx_synced_err(), .stat_rx_test_pattern_mismatch(),
        .stat_rx_toolong(), .stat_rx_total_bytes(), .stat_rx_total_good_bytes(),
        .stat_rx_total_good_packets(), .stat_rx_total_packets(), .stat_rx_truncated(), .stat_rx_undersize(),
        .stat_rx_unicast(), .stat_rx_vlan(), .stat_rx_pcsl_demuxed(), .stat_rx_pcsl_number_0(),
        .stat_rx_pcsl_number_1(), .stat_rx_pcsl_number_10(), .stat_rx_pcsl_number_11(),
        .stat_rx_pcsl_number_12(), .stat_rx_pcsl_number_13(), .stat_rx_pcsl_number_14(),
        .stat_rx_pcsl_number_15(), .stat_rx_pcsl_number_16(), .stat_rx_pcsl_number_17(),
        .stat_rx_pcsl_number_18(), .stat_rx_pcsl_number_19(), .stat_rx_pcsl_number_2(),
        .stat_rx_pcsl_number_3(), .stat_rx_pcsl_number_4(), .stat_rx_pcsl_number_5(),
        .stat_rx_pcsl_number_6(), .stat_rx_pcsl_number_7(), .stat_rx_pcsl_number_8(),
        .stat_rx_pcsl_number_9(), .stat_rx_rsfec_am_lock0(), .stat_rx_rsfec_am_lock1(),
        .stat_rx_rsfec_am_lock2(), .stat_rx_rsfec_am_lock3(), .stat_rx_rsfec_corrected_cw_inc(),
        .stat_rx_rsfec_cw_inc(), .stat_rx_rsfec_err_count0_inc(), .stat_rx_rsfec_err_count1_inc(),
        .stat_rx_rsfec_err_count2_inc(), .stat_rx_rsfec_err_count3_inc(), .stat_rx_rsfec_hi_ser(),
        .stat_rx_rsfec_lane_alignment_status(), .stat_rx_rsfec_lane_fill_0(), .stat_rx_rsfec_lane_fill_1(),
        .stat_rx_rsfec_lane_fill_2(), .stat_rx_rsfec_lane_fill_3(), .stat_rx_rsfec_lane_mapping(),
        .stat_rx_rsfec_uncorrected_cw_inc(), .stat_tx_bad_fcs(), .stat_tx_broadcast(),
        .stat_tx_frame_error(), .stat_tx_multicast(), .stat_tx_packet_1024_1518_bytes(),
        .stat_tx_packet_128_255_bytes(), .stat_tx_packet_1519_1522_bytes(),
        .stat_tx_packet_1523_1548_bytes(), .stat_tx_packet_1549_2047_bytes(),
        .stat_tx_packet_2048_4095_bytes(), .stat_tx_packet_256_511_bytes(),
        .stat_tx_packet_4096_8191_bytes(), .stat_tx_packet_512_1023_bytes(), .stat_tx_packet_64_bytes(),
        .stat_tx_packet_65_127_bytes(), .stat_tx_packet_8192_9215_bytes(), .stat_tx_packet_large(),
        .stat_tx_packet_small(), .stat_tx_total_bytes(), .stat_tx_total_good_bytes(),
        .stat_tx_total_good_packets(), .stat_tx_total_packets(), .stat_tx_unicast(), .stat_tx_vlan()
    );

    // the CMAC's RX user reset onto mac_clk (the RX stream's clock) for the board core's RX side
    tsnic_cdc_sync #(.WIDTH(1), .INIT(1'b1)) mac_rx_rst_inst (
        .clk(mac_clk), .rst(1'b0), .in(mac_rx_reset), .out(mac_rx_rst)
    );
    assign core_rx_sof = 1'b0;        // RX_SOF_IN = 0: the core stamps the first beat
    assign core_rx_sof_lane4 = 1'b0;
    assign mac_tx_tvalid = core_tx_tvalid;
    assign mac_tx_tready = core_tx_tready;
    assign mac_tx_tlast = core_tx_tlast;
    // no line-start reports from the CMAC (its IEEE 1588 TX timestamping is not enabled): the board
    // core's tsnic_cmac_tx_lag derives them from these handshakes (docs/BOARDS.md, "Departure stamp")
    assign mac_lag_valid = 1'b0;
    assign mac_lag_ns = 16'd0;
end else begin : xgmii
    // 10GBASE-R PCS/PMA (xxv_ethernet_0, PCS/PMA only, 64-bit XGMII) on the GTY of QSFP lane 0, from
    // the same 161.1328125 MHz reference clock as the CMAC; tx_mii_clk_0 = 156.25 MHz (the GT's
    // 10.3125 Gb/s / 66) clocks the TX XGMII and, through the IP's RX FIFO (rx_core_clk_0), the RX XGMII.
    wire [63:0] xgmii_txd, xgmii_rxd;
    wire [7:0]  xgmii_txc, xgmii_rxc;
    wire pcs_tx_reset, pcs_rx_reset;     // user_tx_reset_0 / user_rx_reset_0
    /* verilator lint_off UNUSEDSIGNAL */
    wire pcs_refclk_out, pcs_rx_clk_out, pcs_rxrecclk, pcs_powergood, pcs_block_lock, pcs_hi_ber;
    wire pcs_unused_tuser = core_tx_tuser;   // the XGMII MAC has no TX error input
    /* verilator lint_on UNUSEDSIGNAL */

    xxv_ethernet_0 pcs_inst (
        .gt_txp_out_0(qsfp_tx_p), .gt_txn_out_0(qsfp_tx_n), .gt_rxp_in_0(qsfp_rx_p), .gt_rxn_in_0(qsfp_rx_n),
        .gt_refclk_p(refclk_p), .gt_refclk_n(refclk_n), .gt_refclk_out(pcs_refclk_out),
        .sys_reset(init_rst), .dclk(init_clk), .qpllreset_in_0(1'b0),
        .gt_loopback_in_0(3'd0), .txoutclksel_in_0(3'b101), .rxoutclksel_in_0(3'b101),
        .gtwiz_reset_tx_datapath_0(1'b0), .gtwiz_reset_rx_datapath_0(1'b0),
        .gtpowergood_out_0(pcs_powergood), .rxrecclkout_0(pcs_rxrecclk),
        .tx_mii_clk_0(mac_clk), .rx_core_clk_0(mac_clk), .rx_clk_out_0(pcs_rx_clk_out),
        .tx_reset_0(1'b0), .rx_reset_0(1'b0), .user_tx_reset_0(pcs_tx_reset), .user_rx_reset_0(pcs_rx_reset),
        .tx_mii_d_0(xgmii_txd), .tx_mii_c_0(xgmii_txc), .rx_mii_d_0(xgmii_rxd), .rx_mii_c_0(xgmii_rxc),
        .ctl_rx_test_pattern_0(1'b0), .ctl_rx_data_pattern_select_0(1'b0),
        .ctl_rx_test_pattern_enable_0(1'b0), .ctl_rx_prbs31_test_pattern_enable_0(1'b0),
        .ctl_tx_test_pattern_0(1'b0), .ctl_tx_data_pattern_select_0(1'b0),
        .ctl_tx_test_pattern_enable_0(1'b0), .ctl_tx_prbs31_test_pattern_enable_0(1'b0),
        .ctl_tx_test_pattern_select_0(1'b0), .ctl_tx_test_pattern_seed_a_0(58'd0), .ctl_tx_test_pattern_seed_b_0(58'd0),
        .stat_rx_block_lock_0(pcs_block_lock), .stat_rx_status_0(mac_rx_aligned), .stat_rx_hi_ber_0(pcs_hi_ber),
        // outputs not used
        .stat_rx_framing_err_valid_0(), .stat_rx_framing_err_0(), .stat_rx_valid_ctrl_code_0(),
        .stat_rx_bad_code_0(), .stat_rx_bad_code_valid_0(), .stat_rx_error_valid_0(), .stat_rx_error_0(),
        .stat_rx_fifo_error_0(), .stat_rx_local_fault_0(), .stat_tx_local_fault_0()
    );

    // the MAC side's resets: the PCS's TX/RX user resets (on tx_mii_clk_0 / rx_core_clk_0 = mac_clk),
    // synchronized; the downsizer and the MAC also reset with the core
    wire pcs_rst_mac, rst_mac_clk;
    tsnic_cdc_sync #(.WIDTH(1), .INIT(1'b1)) pcs_rst_inst (
        .clk(mac_clk), .rst(1'b0), .in(pcs_tx_reset || pcs_rx_reset), .out(pcs_rst_mac)
    );
    tsnic_cdc_sync #(.WIDTH(1), .INIT(1'b1)) core_rst_to_mac_inst (
        .clk(mac_clk), .rst(1'b0), .in(rst), .out(rst_mac_clk)
    );
    assign mac_tx_reset = pcs_rst_mac;
    assign mac_rx_rst = pcs_rst_mac;
    wire mac_side_rst = pcs_rst_mac || rst_mac_clk;

    // RX: the 10G MAC (hdl/rtl/tsnic_xgmii_rx.v) on the RX XGMII: 64 bits and the start-of-frame
    // pulse to the board core (RX_SOF_IN = 1), which widens the frames after the crossing
    tsnic_xgmii_rx mac_rx_inst (
        .clk(mac_clk), .rst(mac_side_rst),
        .xgmii_rxd(xgmii_rxd), .xgmii_rxc(xgmii_rxc),
        .m_axis_tdata(core_rx_tdata), .m_axis_tkeep(core_rx_tkeep), .m_axis_tlast(core_rx_tlast),
        .m_axis_tvalid(core_rx_tvalid), .m_axis_tuser(core_rx_tuser),
        .sof(core_rx_sof), .sof_lane4(core_rx_sof_lane4)
    );

    // TX: the launch-gated 512-bit stream cut to 64 bits (its input is 8x faster than its output, so a
    // frame never pauses), then the 10G MAC (hdl/rtl/tsnic_xgmii_tx.v)
    wire [63:0] mac_tx_tdata;
    wire [7:0]  mac_tx_tkeep;
    tsnic_axis_downsize #(.IN_W(DATA_W), .OUT_W(64)) tx_downsize_inst (
        .clk(mac_clk), .rst(mac_side_rst),
        .s_axis_tdata(core_tx_tdata), .s_axis_tkeep(core_tx_tkeep),
        .s_axis_tvalid(core_tx_tvalid), .s_axis_tready(core_tx_tready), .s_axis_tlast(core_tx_tlast),
        .m_axis_tdata(mac_tx_tdata), .m_axis_tkeep(mac_tx_tkeep), .m_axis_tvalid(mac_tx_tvalid),
        .m_axis_tready(mac_tx_tready), .m_axis_tlast(mac_tx_tlast)
    );
    /* verilator lint_off UNUSEDSIGNAL */
    wire mac_sof;
    /* verilator lint_on UNUSEDSIGNAL */
    // line-start reports from the gate's first-beat handshake (the downsizer's input, STAMP_INPUT = 0)
    // to the /S/, beyond the idle line's 5 cycles (1 downsizer + 4 MAC); mac_side_rst resets it
    // whenever the board core's tsnic_mac_tx resets the gate (the PCS's reset or the core's)
    tsnic_xgmii_tx #(.PERIOD_PS(6400), .STAMP_INPUT(0), .LAG_BASE_CYC(5)) mac_tx_inst (
        .clk(mac_clk), .rst(mac_side_rst),
        .s_axis_tdata(mac_tx_tdata), .s_axis_tkeep(mac_tx_tkeep), .s_axis_tlast(mac_tx_tlast),
        .s_axis_tvalid(mac_tx_tvalid), .s_axis_tready(mac_tx_tready),
        .xgmii_txd(xgmii_txd), .xgmii_txc(xgmii_txc), .sof(mac_sof),
        .stamp_beat(core_tx_tvalid && core_tx_tready), .stamp_last(core_tx_tlast),
        .m_lag_valid(mac_lag_valid), .m_lag_ns(mac_lag_ns)
    );
end
endgenerate

endmodule

`resetall
