// fpga: tsnic on the NetFPGA SUME (Virtex-7 xc7vx690tffg1761-3).
//
// - PCIe: pcie3_7x_0 (ip/pcie3_7x_0.tcl), Gen3 x8, 256-bit CQ/CC/RQ/RC at user_clk = 250 MHz, the
//   core clock; the PIPE clocking is inside the IP (shared logic in core). Reference clock: 100 MHz
//   from the edge connector on MGTREFCLK1_115 (IBUFDS_GTE2). sys_reset of pcie3_7x is active high (PG023;
//   Corundum's fpga/mqnic/NetFPGA_SUME/fpga/rtl/fpga.v passes !pcie_reset_n): PERST# inverted. Every IP
//   input is written (docs/BOARDS.md, "PCIe IP inputs"): cfg_link_training_enable, cfg_config_space_enable
//   and cfg_power_state_change_ack 1, cfg_dsn / FLR done 0, the rest idle, as Corundum's SUME top.
// - Ethernet: SFP+ cage 1 at 10GBASE-R through ten_gig_eth_pcs_pma_0 (GTH, shared logic in core),
//   64-bit SDR XGMII at coreclk_out = 156.25 MHz, our MAC tsnic_xgmii_tx on the TX side.
//   Reference clock: 156.25 MHz on MGTREFCLK0_118 from the board's Si5324 jitter attenuator, which
//   has no output until it is programmed over I2C: tsnic_si5324_init (board/common/rtl) on dclk resets
//   the Si5324 and the PCA9548 I2C mux, selects the mux's channel 4, checks the Si5324's identity,
//   writes the NetFPGA SUME reference design's register list (156.25 MHz from its 114.285 MHz
//   crystal) and polls LOL_INT until the PLL locks; the PCS/PMA is held in reset until then.
//   sfp_2_led[0] = Si5324 set up and locked, sfp_2_led[1] = Si5324 set-up error (it retries);
//   software reads the same in MAC_PHY_STATUS (the core's phy_status input).
// - Core: tsnic_board_core at DATA_W = 256 on user_clk with MAC_DOMAIN = 1: its launch gate
//   (tsnic_mac_tx) runs on the XGMII clock coreclk_out (tx_clk) with the PHC time carried there
//   (tsnic_td_source -> tsnic_td_sink); its 256-bit m_axis_tx_* (on coreclk_out) is cut to 64 bits by
//   tsnic_axis_downsize (board/common/rtl) for tsnic_xgmii_tx. A frame leaves the gate without a
//   pause, and the downsizer keeps it so (its input is 4x faster than its output). The departure time
//   is taken at the gate's first beat; the downsizer and the MAC add a fixed latency after it (for
//   CTRL_TX_LAT_COMP_NS).
// - RX: the PCS's RX XGMII (on coreclk_out) into our MAC tsnic_xgmii_rx; its 64-bit stream and
//   start-of-frame pulse go to the board core (rx_clk = coreclk_out, RX_DATA_W = 64, RX_SOF_IN = 1),
//   which stamps the arrival on coreclk_out and widens the frames to 256 bits after the crossing.
// - Flash: SUME configures from its BPI flash through the board's CPLD, out of reach of tsnic's
//   quad-SPI controller: FLASH_WRITABLE = 0 and qspi_dq_i tied high (notes/flash.md). ICAPE2 is
//   connected (IPROG, boot status) on icap_clk = user_clk / 4 (62.5 MHz; ICAPE2 runs at most
//   100 MHz), the core's icap_ce high one user_clk cycle in four, so each ICAP word is held for one
//   ICAP clock period whatever the phase. ICAPE2 takes each byte bit-reversed (swapped here).
//   STARTUPE2 is instantiated for its end-of-startup flag only (CCLK is not driven).
// - Clocks: 200 MHz system clock -> MMCME2_BASE -> 125 MHz dclk for the PCS/PMA (its DRP and reset
//   logic) and the power-on reset; user_clk from the PCIe IP; coreclk_out from the PCS/PMA.
// - LEDs: led[0] = PCIe link up, led[1] = PPS (100 ms pulse); sfp_1_led[0] = PCS block lock,
//   sfp_1_led[1] = TX activity (stretched).
`resetall
`timescale 1ns / 1ps
`default_nettype none

module fpga #(
    parameter GOLDEN = 0
) (
    input  wire        clk_200mhz_p,
    input  wire        clk_200mhz_n,

    input  wire        pcie_mgt_refclk_p,
    input  wire        pcie_mgt_refclk_n,
    input  wire        pcie_reset_n,
    input  wire [7:0]  pcie_rx_p,
    input  wire [7:0]  pcie_rx_n,
    output wire [7:0]  pcie_tx_p,
    output wire [7:0]  pcie_tx_n,

    input  wire        sfp_mgt_refclk_p,
    input  wire        sfp_mgt_refclk_n,
    output wire        sfp_clk_rst,
    inout  wire        i2c_scl,
    inout  wire        i2c_sda,
    output wire        i2c_mux_reset,
    input  wire        sfp_1_rx_p,
    input  wire        sfp_1_rx_n,
    output wire        sfp_1_tx_p,
    output wire        sfp_1_tx_n,
    input  wire        sfp_1_mod_detect,
    input  wire        sfp_1_los,
    input  wire        sfp_1_tx_fault,
    output wire        sfp_1_tx_disable,
    output wire [1:0]  sfp_1_rs,

    output wire [1:0]  led,
    output wire [1:0]  sfp_1_led,
    output wire [1:0]  sfp_2_led
);

localparam DATA_W = 256;
localparam KEEP_W = DATA_W / 32;

assign sfp_1_tx_disable = 1'b0;
assign sfp_1_rs = 2'b11;    // full rate

// ------------------------------------------------------------------------------------------------
// 200 MHz system clock -> 125 MHz free-running clock (PCS/PMA dclk, power-on reset)
wire clk_200mhz_ibuf, mmcm_fb, mmcm_clk125, mmcm_locked, dclk;
IBUFDS clk_200mhz_ibufds_inst (.I(clk_200mhz_p), .IB(clk_200mhz_n), .O(clk_200mhz_ibuf));
/* verilator lint_off UNUSEDSIGNAL */
wire mmcm_fbb, mmcm_c0b, mmcm_c1, mmcm_c1b, mmcm_c2, mmcm_c2b, mmcm_c3, mmcm_c3b, mmcm_c4, mmcm_c5, mmcm_c6;
/* verilator lint_on UNUSEDSIGNAL */
MMCME2_BASE #(
    .CLKIN1_PERIOD(5.000), .DIVCLK_DIVIDE(1), .CLKFBOUT_MULT_F(5.0), .CLKOUT0_DIVIDE_F(8.0)
) mmcm_inst (
    .CLKIN1(clk_200mhz_ibuf), .CLKFBIN(mmcm_fb), .RST(1'b0), .PWRDWN(1'b0),
    .CLKFBOUT(mmcm_fb), .CLKFBOUTB(mmcm_fbb), .CLKOUT0(mmcm_clk125), .CLKOUT0B(mmcm_c0b),
    .CLKOUT1(mmcm_c1), .CLKOUT1B(mmcm_c1b), .CLKOUT2(mmcm_c2), .CLKOUT2B(mmcm_c2b),
    .CLKOUT3(mmcm_c3), .CLKOUT3B(mmcm_c3b), .CLKOUT4(mmcm_c4), .CLKOUT5(mmcm_c5), .CLKOUT6(mmcm_c6),
    .LOCKED(mmcm_locked)
);
BUFG dclk_bufg_inst (.I(mmcm_clk125), .O(dclk));

// power-on reset on dclk: 2^12 cycles (33 us) after the MMCM locks
reg [12:0] init_rst_cnt = 13'd0;
always @(posedge dclk) begin
    if (!mmcm_locked) init_rst_cnt <= 13'd0;
    else if (!init_rst_cnt[12]) init_rst_cnt <= init_rst_cnt + 13'd1;
end
wire init_rst = !init_rst_cnt[12];

// ------------------------------------------------------------------------------------------------
// Si5324 (the SFP+ reference clock) set up over I2C behind the PCA9548 mux, on dclk; both chips'
// resets are active high at the FPGA pins. The PCS/PMA stays in reset until the Si5324 has locked.
wire si5324_ready, si5324_error;
/* verilator lint_off UNUSEDSIGNAL */
wire si5324_done, si5324_locked, si5324_busy;
wire [3:0] si5324_error_code;
wire [7:0] si5324_attempts;
/* verilator lint_on UNUSEDSIGNAL */
wire i2c_scl_i, i2c_scl_o, i2c_scl_t, i2c_sda_i, i2c_sda_o, i2c_sda_t;
tsnic_si5324_init #(
    .CLK_HZ(125000000),
    .SCL_HZ(100000),
    .MUX_ADDR(7'h74),
    .MUX_SELECT(8'h10),     // channel 4: the Si5324
    .DEV_ADDR(7'h68)
) si5324_init_inst (
    .clk(dclk), .rst(init_rst),
    .si5324_rst(sfp_clk_rst), .mux_rst(i2c_mux_reset),
    .clk_ready(si5324_ready), .done(si5324_done), .locked(si5324_locked), .busy(si5324_busy),
    .error(si5324_error), .error_code(si5324_error_code), .attempts(si5324_attempts),
    .scl_i(i2c_scl_i), .scl_o(i2c_scl_o), .scl_t(i2c_scl_t),
    .sda_i(i2c_sda_i), .sda_o(i2c_sda_o), .sda_t(i2c_sda_t)
);
IOBUF i2c_scl_iobuf_inst (.I(i2c_scl_o), .T(i2c_scl_t), .O(i2c_scl_i), .IO(i2c_scl));
IOBUF i2c_sda_iobuf_inst (.I(i2c_sda_o), .T(i2c_sda_t), .O(i2c_sda_i), .IO(i2c_sda));
wire pcs_rst = init_rst || !si5324_ready;

// status LEDs: ready steady; error blinking at about 2 Hz (dclk / 2^26)
reg [25:0] si5324_blink = 26'd0;
reg [1:0]  si5324_led = 2'b00;
always @(posedge dclk) begin
    si5324_blink <= si5324_blink + 26'd1;
    si5324_led <= {si5324_error && si5324_blink[25], si5324_ready};
end
assign sfp_2_led = si5324_led;

// ------------------------------------------------------------------------------------------------
// PCIe hard block
wire pcie_refclk;
/* verilator lint_off UNUSEDSIGNAL */
wire pcie_refclk_div2;
/* verilator lint_on UNUSEDSIGNAL */
IBUFDS_GTE2 pcie_refclk_ibuf_inst (
    .I(pcie_mgt_refclk_p), .IB(pcie_mgt_refclk_n), .CEB(1'b0), .O(pcie_refclk), .ODIV2(pcie_refclk_div2)
);

wire clk;            // user_clk, 250 MHz: the core clock
wire pcie_user_reset;
wire pcie_lnk_up;

wire [DATA_W-1:0] cq_tdata, cc_tdata, rq_tdata, rc_tdata;
wire [KEEP_W-1:0] cq_tkeep, cc_tkeep, rq_tkeep, rc_tkeep;
wire cq_tvalid, cq_tready, cq_tlast, cc_tvalid, cc_tlast, rq_tvalid, rq_tlast, rc_tvalid, rc_tready, rc_tlast;
wire [84:0] cq_tuser;
wire [32:0] cc_tuser;
wire [59:0] rq_tuser;
wire [74:0] rc_tuser;
wire [2:0]  cfg_max_payload, cfg_max_read_req;
wire [63:0] msix_address;
wire [31:0] msix_data;
wire        msix_int, msix_sent, msix_fail;

/* verilator lint_off UNUSEDSIGNAL */   // per-PF / replicated bits: PF0's or bit 0 is used
wire [3:0]  cc_tready4, rq_tready4;
wire [7:0]  cfg_function_status;
wire [1:0]  cfg_msix_enable, cfg_msix_mask;
wire [5:0]  cfg_msix_vf_enable, cfg_msix_vf_mask;
wire        pcie_app_rdy, pcie_link_down, pcie_int_sent;
wire [1:0]  pcie_link_status;
wire [3:0]  pcie_width;
wire [2:0]  pcie_speed;
wire [5:0]  pcie_ltssm, pcie_np_count;
/* verilator lint_on UNUSEDSIGNAL */

pcie3_7x_0 pcie_inst (
    .pci_exp_txn(pcie_tx_n), .pci_exp_txp(pcie_tx_p), .pci_exp_rxn(pcie_rx_n), .pci_exp_rxp(pcie_rx_p),
    .sys_clk(pcie_refclk), .sys_reset(!pcie_reset_n),   // sys_reset: active high (PG023; Corundum: !pcie_reset_n)
    .user_clk(clk), .user_reset(pcie_user_reset), .user_lnk_up(pcie_lnk_up), .user_app_rdy(pcie_app_rdy),
    .s_axis_rq_tdata(rq_tdata), .s_axis_rq_tkeep(rq_tkeep), .s_axis_rq_tlast(rq_tlast),
    .s_axis_rq_tready(rq_tready4), .s_axis_rq_tuser(rq_tuser), .s_axis_rq_tvalid(rq_tvalid),
    .m_axis_rc_tdata(rc_tdata), .m_axis_rc_tkeep(rc_tkeep), .m_axis_rc_tlast(rc_tlast),
    .m_axis_rc_tready({22{rc_tready}}), .m_axis_rc_tuser(rc_tuser), .m_axis_rc_tvalid(rc_tvalid),
    .m_axis_cq_tdata(cq_tdata), .m_axis_cq_tkeep(cq_tkeep), .m_axis_cq_tlast(cq_tlast),
    .m_axis_cq_tready({22{cq_tready}}), .m_axis_cq_tuser(cq_tuser), .m_axis_cq_tvalid(cq_tvalid),
    .s_axis_cc_tdata(cc_tdata), .s_axis_cc_tkeep(cc_tkeep), .s_axis_cc_tlast(cc_tlast),
    .s_axis_cc_tready(cc_tready4), .s_axis_cc_tuser(cc_tuser), .s_axis_cc_tvalid(cc_tvalid),
    .pcie_cq_np_req(1'b1), .pcie_cq_np_req_count(pcie_np_count),
    .cfg_phy_link_down(pcie_link_down), .cfg_phy_link_status(pcie_link_status),
    .cfg_negotiated_width(pcie_width), .cfg_current_speed(pcie_speed),
    .cfg_max_payload(cfg_max_payload), .cfg_max_read_req(cfg_max_read_req),
    .cfg_function_status(cfg_function_status), .cfg_ltssm_state(pcie_ltssm),
    .cfg_interrupt_int(4'd0), .cfg_interrupt_pending(2'd0), .cfg_interrupt_sent(pcie_int_sent),
    .cfg_interrupt_msix_enable(cfg_msix_enable), .cfg_interrupt_msix_mask(cfg_msix_mask),
    .cfg_interrupt_msix_vf_enable(cfg_msix_vf_enable), .cfg_interrupt_msix_vf_mask(cfg_msix_vf_mask),
    .cfg_interrupt_msix_data(msix_data), .cfg_interrupt_msix_address(msix_address),
    .cfg_interrupt_msix_int(msix_int), .cfg_interrupt_msix_sent(msix_sent), .cfg_interrupt_msix_fail(msix_fail),
    // inputs a left-open port would tie to 0 (Vivado) but that must be 1 (Corundum's SUME top ties them so):
    // link training on, configuration space on (else CRS to every configuration request), D-state changes
    // acknowledged at once (else a move to D3hot never completes)
    .cfg_link_training_enable(1'b1), .cfg_config_space_enable(1'b1), .cfg_power_state_change_ack(1'b1),
    // no device serial number, no FLR (none advertised by ip/pcie3_7x_0.tcl), no errors reported by us
    .cfg_dsn(64'd0), .cfg_flr_done(2'd0), .cfg_vf_flr_done(6'd0), .cfg_err_cor_in(1'b0), .cfg_err_uncor_in(1'b0),
    .cfg_interrupt_msi_function_number(3'd0),
    .cfg_subsys_vend_id(16'h10ee),   // = PF0_SUBSYSTEM_VENDOR_ID of ip/pcie3_7x_0.tcl (Corundum: its board vendor)
    .cfg_mgmt_addr(19'd0), .cfg_mgmt_write(1'b0), .cfg_mgmt_write_data(32'd0), .cfg_mgmt_byte_enable(4'd0),
    .cfg_mgmt_read(1'b0), .cfg_mgmt_type1_cfg_reg_access(1'b0),
    .cfg_msg_transmit(1'b0), .cfg_msg_transmit_type(3'd0), .cfg_msg_transmit_data(32'd0), .cfg_fc_sel(3'd0),
    .cfg_per_func_status_control(3'd0), .cfg_per_function_number(3'd0), .cfg_per_function_output_request(1'b0),
    .cfg_req_pm_transition_l23_ready(1'b0), .cfg_hot_reset_in(1'b0),
    .cfg_ds_port_number(8'd0), .cfg_ds_bus_number(8'd0), .cfg_ds_device_number(5'd0), .cfg_ds_function_number(3'd0),
    .int_pclk_sel_slave(8'd0),  // shared logic in core: no slave PIPE clock users (0, as public instances of it)
    .pipe_mmcm_rst_n(1'b1),     // the PIPE MMCM out of reset (active low; see board/common/stubs/pcie3_7x_0.v)
    // outputs not used
    .mmcm_lock(), .int_pclk_out_slave(), .int_pipe_rxusrclk_out(), .int_rxoutclk_out(), .int_dclk_out(),
    .int_userclk1_out(), .int_userclk2_out(), .int_oobclk_out(), .int_qplllock_out(), .int_qplloutclk_out(),
    .int_qplloutrefclk_out(), .pcie_rq_seq_num(), .pcie_rq_seq_num_vld(), .pcie_rq_tag(), .pcie_rq_tag_vld(),
    .pcie_tfc_nph_av(), .pcie_tfc_npd_av(), .cfg_function_power_state(), .cfg_vf_status(),
    .cfg_vf_power_state(), .cfg_link_power_state(), .cfg_err_cor_out(), .cfg_err_nonfatal_out(),
    .cfg_err_fatal_out(), .cfg_ltr_enable(), .cfg_rcb_status(), .cfg_dpa_substate_change(),
    .cfg_obff_enable(), .cfg_pl_status_change(), .cfg_tph_requester_enable(), .cfg_tph_st_mode(),
    .cfg_vf_tph_requester_enable(), .cfg_vf_tph_st_mode(), .cfg_mgmt_read_data(),
    .cfg_mgmt_read_write_done(), .cfg_msg_received(), .cfg_msg_received_data(), .cfg_msg_received_type(),
    .cfg_msg_transmit_done(), .cfg_fc_ph(), .cfg_fc_pd(), .cfg_fc_nph(), .cfg_fc_npd(), .cfg_fc_cplh(),
    .cfg_fc_cpld(), .cfg_per_func_status_data(), .cfg_per_function_update_done(),
    .cfg_power_state_change_interrupt(), .cfg_flr_in_process(), .cfg_vf_flr_in_process(),
    .cfg_hot_reset_out()
);

reg rst = 1'b1;
always @(posedge clk) rst <= pcie_user_reset;

// ------------------------------------------------------------------------------------------------
// 10GBASE-R PCS/PMA, SFP+ cage 1
wire mac_clk;        // coreclk_out, 156.25 MHz: the XGMII clock
wire [63:0] xgmii_txd;
wire [7:0]  xgmii_txc;
wire [63:0] xgmii_rxd;
wire [7:0]  xgmii_rxc;
/* verilator lint_off UNUSEDSIGNAL */
wire [7:0]  pcs_core_status;    // [0] PCS block lock
/* verilator lint_on UNUSEDSIGNAL */
wire pcs_resetdone;

/* verilator lint_off UNUSEDSIGNAL */
wire        pcs_rxrecclk, pcs_qplllock, pcs_qplloutclk, pcs_qplloutrefclk, pcs_txusrclk, pcs_txusrclk2;
wire        pcs_areset_datapathclk, pcs_gttxreset, pcs_gtrxreset, pcs_txuserrdy, pcs_reset_counter_done;
wire        pcs_tx_disable;
wire [447:0] pcs_status_vector;
/* verilator lint_on UNUSEDSIGNAL */
wire        drp_req, drp_den, drp_dwe, drp_drdy;
wire [15:0] drp_daddr, drp_di, drp_drpdo;

ten_gig_eth_pcs_pma_0 pcs_inst (
    .refclk_p(sfp_mgt_refclk_p), .refclk_n(sfp_mgt_refclk_n), .reset(pcs_rst),
    .resetdone_out(pcs_resetdone), .coreclk_out(mac_clk), .rxrecclk_out(pcs_rxrecclk), .dclk(dclk),
    .txp(sfp_1_tx_p), .txn(sfp_1_tx_n), .rxp(sfp_1_rx_p), .rxn(sfp_1_rx_n),
    .sim_speedup_control(1'b0),
    .xgmii_txd(xgmii_txd), .xgmii_txc(xgmii_txc), .xgmii_rxd(xgmii_rxd), .xgmii_rxc(xgmii_rxc),
    .qplllock_out(pcs_qplllock), .qplloutclk_out(pcs_qplloutclk), .qplloutrefclk_out(pcs_qplloutrefclk),
    .txusrclk_out(pcs_txusrclk), .txusrclk2_out(pcs_txusrclk2),
    .areset_datapathclk_out(pcs_areset_datapathclk), .gttxreset_out(pcs_gttxreset),
    .gtrxreset_out(pcs_gtrxreset), .txuserrdy_out(pcs_txuserrdy), .reset_counter_done_out(pcs_reset_counter_done),
    .configuration_vector(536'd0), .status_vector(pcs_status_vector), .core_status(pcs_core_status),
    .signal_detect(!sfp_1_los), .tx_fault(sfp_1_tx_fault), .tx_disable(pcs_tx_disable),
    .pma_pmd_type(3'b111),  // 10GBASE-SR
    // the core's DRP master straight to its transceiver port (no other DRP user)
    .drp_req(drp_req), .drp_gnt(drp_req),
    .drp_den_o(drp_den), .drp_dwe_o(drp_dwe), .drp_daddr_o(drp_daddr), .drp_di_o(drp_di),
    .drp_drdy_o(drp_drdy), .drp_drpdo_o(drp_drpdo),
    .drp_den_i(drp_den), .drp_dwe_i(drp_dwe), .drp_daddr_i(drp_daddr), .drp_di_i(drp_di),
    .drp_drdy_i(drp_drdy), .drp_drpdo_i(drp_drpdo)
);

// the MAC side's reset: PCS/PMA not ready (its resetdone, synchronized); the downsizer and the MAC
// also reset with the core (the board core resets tsnic_mac_tx's MAC side with it too)
wire pcs_resetdone_mac, rst_mac_clk;
tsnic_cdc_sync #(.WIDTH(1), .INIT(1'b0)) pcs_done_inst (
    .clk(mac_clk), .rst(1'b0), .in(pcs_resetdone), .out(pcs_resetdone_mac)
);
wire mac_rst = !pcs_resetdone_mac;
tsnic_cdc_sync #(.WIDTH(1), .INIT(1'b1)) core_rst_to_mac_inst (
    .clk(mac_clk), .rst(1'b0), .in(rst), .out(rst_mac_clk)
);
wire mac_side_rst = mac_rst || rst_mac_clk;

// ------------------------------------------------------------------------------------------------
// RX: the 10G MAC (hdl/rtl/tsnic_xgmii_rx.v) on the PCS's RX XGMII; no backpressure
wire [63:0] mac_rx_tdata;
wire [7:0]  mac_rx_tkeep;
wire mac_rx_tvalid, mac_rx_tlast, mac_rx_tuser, mac_rx_sof, mac_rx_sof_lane4;
tsnic_xgmii_rx mac_rx_inst (
    .clk(mac_clk), .rst(mac_side_rst),
    .xgmii_rxd(xgmii_rxd), .xgmii_rxc(xgmii_rxc),
    .m_axis_tdata(mac_rx_tdata), .m_axis_tkeep(mac_rx_tkeep), .m_axis_tlast(mac_rx_tlast),
    .m_axis_tvalid(mac_rx_tvalid), .m_axis_tuser(mac_rx_tuser),
    .sof(mac_rx_sof), .sof_lane4(mac_rx_sof_lane4)
);

// ------------------------------------------------------------------------------------------------
// the core
wire [DATA_W-1:0]   core_tx_tdata;    // on mac_clk
wire [DATA_W/8-1:0] core_tx_tkeep;
wire core_tx_tvalid, core_tx_tready, core_tx_tlast;
wire [0:0] core_tx_tuser;
wire        mac_lag_valid;    // tsnic_xgmii_tx line-start reports to the launch gate, on mac_clk
wire [15:0] mac_lag_ns;
wire pps;
/* verilator lint_off UNUSEDSIGNAL */
wire qspi_clk, qspi_cs_n;
wire [3:0] qspi_dq_o, qspi_dq_oe;
wire core_rx_tready, stat_dma_rd_err, stat_bar_bad_np, stat_bar_bad_posted;
/* verilator lint_off UNUSEDSIGNAL */
wire [5:0] sim_gate_hold_nc;   // the core's co-simulation gating output (0 with SIM_GATE = 0)
/* verilator lint_on UNUSEDSIGNAL */
/* verilator lint_on UNUSEDSIGNAL */
wire icap_csib, icap_rdwrb;
wire [31:0] icap_i, icap_o;

reg [1:0] icap_div = 2'd0;
always @(posedge clk) icap_div <= icap_div + 2'd1;
reg icap_ce = 1'b0;   // one user_clk cycle in four: the ICAP port changes at icap_clk's rate
always @(posedge clk) icap_ce <= icap_div == 2'd2;

tsnic_board_core #(
    .DATA_W(DATA_W),
    .CQ_USER_W(85), .CC_USER_W(33), .RQ_USER_W(60), .RC_USER_W(75),
    .AXIS_DATA_W(DATA_W),
    .AXIS_USER_W(1),
    .CLK_FREQ_HZ(250000000),
    .CPLH_LIMIT(64), .CPLD_LIMIT(960),   // Gen3 block completion buffer: 64 CPH, 15872 B (BOARDS.md)
    .BOARD_ID(4),
    .FLASH_SIZE_LOG2(27),
    .FLASH_WRITABLE(0),
    .GOLDEN(GOLDEN),
    .MAC_DOMAIN(1),
    .TX_MAC_LAG(1),   // tsnic_xgmii_tx reports each frame's start on the line: stamps are that start
    .TX_PERIOD_FX(64'd27487790694),  // coreclk_out: 156.25 MHz = 6.4 ns
    .RX_PERIOD_FX(64'd27487790694),  // RX XGMII on coreclk_out too
    .RX_DATA_W(64),
    .RX_SOF_IN(1),
    .PCIE_STATUS_ENC(1),   // pcie3_7x codes (PG023): width = lane count, speed one-hot
    .MAC_KIND(2)           // MAC_LINK_STATUS.MAC_RX_UP = PCS block lock
) core_inst (
    .clk(clk), .rst(rst), .tx_clk(mac_clk), .tx_rst(mac_rst), .rx_clk(mac_clk), .rx_rst(mac_rst),
    .s_axis_cq_tdata(cq_tdata), .s_axis_cq_tkeep(cq_tkeep), .s_axis_cq_tvalid(cq_tvalid),
    .s_axis_cq_tready(cq_tready), .s_axis_cq_tlast(cq_tlast), .s_axis_cq_tuser(cq_tuser),
    .m_axis_cc_tdata(cc_tdata), .m_axis_cc_tkeep(cc_tkeep), .m_axis_cc_tvalid(cc_tvalid),
    .m_axis_cc_tready(cc_tready4[0]), .m_axis_cc_tlast(cc_tlast), .m_axis_cc_tuser(cc_tuser),
    .m_axis_rq_tdata(rq_tdata), .m_axis_rq_tkeep(rq_tkeep), .m_axis_rq_tvalid(rq_tvalid),
    .m_axis_rq_tready(rq_tready4[0]), .m_axis_rq_tlast(rq_tlast), .m_axis_rq_tuser(rq_tuser),
    .s_axis_rc_tdata(rc_tdata), .s_axis_rc_tkeep(rc_tkeep), .s_axis_rc_tvalid(rc_tvalid),
    .s_axis_rc_tready(rc_tready), .s_axis_rc_tlast(rc_tlast), .s_axis_rc_tuser(rc_tuser),
    .cfg_max_payload(cfg_max_payload), .cfg_max_read_req(cfg_max_read_req),
    .cfg_bus_master_en(cfg_function_status[2]),
    .cfg_interrupt_msix_enable(cfg_msix_enable[0]), .cfg_interrupt_msix_mask(cfg_msix_mask[0]),
    .cfg_interrupt_msix_address(msix_address), .cfg_interrupt_msix_data(msix_data),
    .cfg_interrupt_msix_int(msix_int), .cfg_interrupt_msix_sent(msix_sent), .cfg_interrupt_msix_fail(msix_fail),
    .m_axis_tx_tdata(core_tx_tdata), .m_axis_tx_tkeep(core_tx_tkeep), .m_axis_tx_tvalid(core_tx_tvalid),
    .m_axis_tx_tready(core_tx_tready), .m_axis_tx_tlast(core_tx_tlast), .m_axis_tx_tuser(core_tx_tuser),
    .s_mac_tx_lag_valid(mac_lag_valid), .s_mac_tx_lag_ns(mac_lag_ns),
    .s_axis_rx_tdata(mac_rx_tdata), .s_axis_rx_tkeep(mac_rx_tkeep), .s_axis_rx_tuser(mac_rx_tuser),
    .s_axis_rx_tvalid(mac_rx_tvalid), .s_axis_rx_tready(core_rx_tready), .s_axis_rx_tlast(mac_rx_tlast),
    .rx_sof(mac_rx_sof), .rx_sof_lane4(mac_rx_sof_lane4),
    .pps(pps),
    .stat_dma_rd_err(stat_dma_rd_err), .stat_bar_bad_np(stat_bar_bad_np),
    .stat_bar_bad_posted(stat_bar_bad_posted),
    // co-simulation clock gating only (SIM_GATE = 0): no logic
    .sim_gclk(1'b0), .sim_gclk_df(1'b0), .sim_gclk_cw(1'b0), .sim_gclk_fl(1'b0), .sim_gclk_rx(1'b0),
    .sim_gclk_rg(1'b0), .sim_gate_hold(sim_gate_hold_nc),
    .qspi_clk(qspi_clk), .qspi_cs_n(qspi_cs_n), .qspi_dq_o(qspi_dq_o), .qspi_dq_oe(qspi_dq_oe),
    .qspi_dq_i(4'hf),
    .icap_ce(icap_ce), .icap_csib(icap_csib), .icap_rdwrb(icap_rdwrb), .icap_i(icap_i), .icap_o(icap_o),
    .phy_status({si5324_error_code, 2'b00, si5324_error, si5324_ready}),  // MAC_PHY_STATUS: the Si5324 set-up (dclk, synchronized in the core)
    // MAC_LINK_STATUS (docs/BOARDS.md, "Link status"): the hard block's status on user_clk; PCS block lock
    // (core_status[0], PG068) on coreclk_out, synchronized in the board core
    .pcie_lnk_up(pcie_lnk_up), .pcie_ltssm(pcie_ltssm), .pcie_width(pcie_width), .pcie_speed(pcie_speed),
    .mac_rx_up(pcs_core_status[0])
);

// ------------------------------------------------------------------------------------------------
// TX stream (already on coreclk_out, launch-gated): 256 -> 64 bits, then the MAC; tuser (0) is not
// used by the XGMII MAC
/* verilator lint_off UNUSEDSIGNAL */
wire unused_tuser = core_tx_tuser[0];
/* verilator lint_on UNUSEDSIGNAL */

wire [63:0] mac_tx_tdata;
wire [7:0]  mac_tx_tkeep;
wire mac_tx_tvalid, mac_tx_tready, mac_tx_tlast;
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
// the 10G MAC (hdl/rtl/tsnic_xgmii_tx.v). Its line-start reports go to the launch gate (board core
// TX_MAC_LAG = 1): per frame, the time from the gate's first-beat handshake (the downsizer's input,
// STAMP_INPUT = 0) to the /S/ on the XGMII, beyond the idle line's 5 cycles (1 downsizer + 4 MAC:
// tests/cocotb/tsnic_xgmii_tx DATA_W=256 checks this arrangement). mac_side_rst resets it whenever the
// board core's tsnic_mac_tx resets the gate (mac_rst or the core's reset), so the two count frames in step.
tsnic_xgmii_tx #(.PERIOD_PS(6400), .STAMP_INPUT(0), .LAG_BASE_CYC(5)) mac_tx_inst (
    .clk(mac_clk), .rst(mac_side_rst),
    .s_axis_tdata(mac_tx_tdata), .s_axis_tkeep(mac_tx_tkeep), .s_axis_tlast(mac_tx_tlast),
    .s_axis_tvalid(mac_tx_tvalid), .s_axis_tready(mac_tx_tready),
    .xgmii_txd(xgmii_txd), .xgmii_txc(xgmii_txc), .sof(mac_sof),
    .stamp_beat(core_tx_tvalid && core_tx_tready), .stamp_last(core_tx_tlast),
    .m_lag_valid(mac_lag_valid), .m_lag_ns(mac_lag_ns)
);

// ------------------------------------------------------------------------------------------------
// ICAPE2 (IPROG, boot status) and STARTUPE2. icap_clk = user_clk / 4 from a counter bit on a BUFG
// (fpga.xdc declares it a generated clock of user_clk, so the core -> ICAP paths are timed).
wire icap_clk;
BUFG icap_bufg_inst (.I(icap_div[1]), .O(icap_clk));

function [31:0] icap_swap(input [31:0] w);
    integer b, k;
    begin
        for (b = 0; b < 4; b = b + 1)
            for (k = 0; k < 8; k = k + 1)
                icap_swap[8*b + k] = w[8*b + 7 - k];
    end
endfunction

wire [31:0] icap_o_raw;
ICAPE2 #(.ICAP_WIDTH("X32")) icap_inst (
    .O(icap_o_raw), .CLK(icap_clk), .CSIB(icap_csib), .I(icap_swap(icap_i)), .RDWRB(icap_rdwrb)
);
assign icap_o = icap_swap(icap_o_raw);

/* verilator lint_off UNUSEDSIGNAL */
wire startup_cfgclk, startup_cfgmclk, startup_eos, startup_preq;
/* verilator lint_on UNUSEDSIGNAL */
STARTUPE2 #(.PROG_USR("FALSE"), .SIM_CCLK_FREQ(0.0)) startup_inst (
    .CFGCLK(startup_cfgclk), .CFGMCLK(startup_cfgmclk), .EOS(startup_eos), .PREQ(startup_preq),
    .CLK(1'b0), .GSR(1'b0), .GTS(1'b0), .KEYCLEARB(1'b1), .PACK(1'b0),
    .USRCCLKO(1'b0), .USRCCLKTS(1'b1), .USRDONEO(1'b1), .USRDONETS(1'b1)
);

// ------------------------------------------------------------------------------------------------
// LEDs
wire block_lock_clk;
tsnic_cdc_sync #(.WIDTH(1), .INIT(1'b0)) lock_to_core_inst (
    .clk(clk), .rst(1'b0), .in(pcs_core_status[0]), .out(block_lock_clk)
);
reg [24:0] pps_led_cnt = 25'd0;
always @(posedge clk) begin
    if (pps) pps_led_cnt <= 25'h1ffffff;
    else if (pps_led_cnt != 25'd0) pps_led_cnt <= pps_led_cnt - 25'd1;
end
reg [23:0] act_led_cnt = 24'd0;
always @(posedge mac_clk) begin
    if (mac_tx_tvalid && mac_tx_tready && mac_tx_tlast) act_led_cnt <= 24'hffffff;
    else if (act_led_cnt != 24'd0) act_led_cnt <= act_led_cnt - 24'd1;
end
reg [1:0] led_reg = 2'b00;
reg       led_lock = 1'b0, led_act = 1'b0;
always @(posedge clk) begin
    led_reg <= {pps_led_cnt != 25'd0, pcie_lnk_up};
    led_lock <= block_lock_clk;
end
always @(posedge mac_clk) led_act <= act_led_cnt != 24'd0;
assign led = led_reg;
assign sfp_1_led = {led_act, led_lock};

// inputs read by nobody yet (module presence): kept as ports so the XDC can pull them up
/* verilator lint_off UNUSEDSIGNAL */
wire unused_in = sfp_1_mod_detect;
/* verilator lint_on UNUSEDSIGNAL */

endmodule

`resetall
