// Bench wrapper: tsnic_board_core with the hard block's port names and widths for cocotbext-pcie's
// model (function-0 bits picked out of the per-function buses, as a board top does): UltraScale+ at
// 512 bits by default, DATA_W=256 with the 7-series pcie3_7x tuser widths (85/33/60/75).
// MAC_DOMAIN = 1 (the boards' configuration): m_axis_tx_* is on tx_clk, TX_PERIOD_FX its nominal period.
// RX as the board tops wire it: RX_XGMII = 1 (SUME, DATA_W 256): xgmii_rxd/xgmii_rxc on rx_clk into
// tsnic_xgmii_rx, its 64-bit stream and sof into the board core (RX_DATA_W 64, RX_SOF_IN 1);
// RX_XGMII = 0 (the CMAC's RX AXI-Stream, DATA_W 512): s_axis_rx_* on rx_clk straight in (RX_SOF_IN 0).
// MAC_DOMAIN = 0: s_axis_rx_* on clk, as wide as DATA_W (RX_XGMII must be 0).
// tx_clk and rx_clk are made here under Icarus (TB_HDL_CLOCKS; MAC_HALF_FS, RX_HALF_FS from the Makefile);
// clk is the PCIe model's.
`timescale 1ns / 1fs
`default_nettype none

module tb_tsnic_board_core #(
    parameter DATA_W    = 512,
    parameter CQ_USER_W = 183,
    parameter CC_USER_W = 81,
    parameter RQ_USER_W = 137,
    parameter RC_USER_W = 161,
    parameter FN_W      = 4,
    parameter MAC_DOMAIN = 1,
    parameter [63:0] TX_PERIOD_FX = 64'd13327413670,
    parameter [63:0] RX_PERIOD_FX = TX_PERIOD_FX,
    parameter RX_XGMII = 0,
    parameter [63:0] MAC_HALF_FS = 64'd1551386,    // tx_clk: half period in fs (MAC rate +- ppm)
    parameter [63:0] RX_HALF_FS = 64'd1551610,     // rx_clk: half period in fs
    // the hard block's link status codes: UltraScale+ (512 bits, PG213) 3-bit width / 2-bit speed;
    // the Gen3 block of the 256-bit layout (PG023 / PG156) 4-bit width / 3-bit one-hot speed
    parameter STATUS_ENC = (DATA_W == 512) ? 0 : 1,
    parameter NW_W = (STATUS_ENC == 0) ? 3 : 4,
    parameter CS_W = (STATUS_ENC == 0) ? 2 : 3
) (
    input  wire          clk,
    input  wire          rst,
    input  wire          tx_clk,
    input  wire          tx_rst,
    input  wire [DATA_W-1:0]  s_axis_cq_tdata,
    input  wire [DATA_W/32-1:0] s_axis_cq_tkeep,
    input  wire          s_axis_cq_tvalid,
    output wire          s_axis_cq_tready,
    input  wire          s_axis_cq_tlast,
    input  wire [CQ_USER_W-1:0]  s_axis_cq_tuser,
    output wire [DATA_W-1:0]  m_axis_cc_tdata,
    output wire [DATA_W/32-1:0] m_axis_cc_tkeep,
    output wire          m_axis_cc_tvalid,
    input  wire          m_axis_cc_tready,
    output wire          m_axis_cc_tlast,
    output wire [CC_USER_W-1:0]   m_axis_cc_tuser,
    output wire [DATA_W-1:0]  m_axis_rq_tdata,
    output wire [DATA_W/32-1:0] m_axis_rq_tkeep,
    output wire          m_axis_rq_tvalid,
    input  wire          m_axis_rq_tready,
    output wire          m_axis_rq_tlast,
    output wire [RQ_USER_W-1:0]  m_axis_rq_tuser,
    input  wire [DATA_W-1:0]  s_axis_rc_tdata,
    input  wire [DATA_W/32-1:0] s_axis_rc_tkeep,
    input  wire          s_axis_rc_tvalid,
    output wire          s_axis_rc_tready,
    input  wire          s_axis_rc_tlast,
    input  wire [RC_USER_W-1:0]  s_axis_rc_tuser,
    input  wire [2:0]    cfg_max_payload,
    input  wire [2:0]    cfg_max_read_req,
    input  wire [15:0]   cfg_function_status,
    input  wire [FN_W-1:0] cfg_interrupt_msix_enable,
    input  wire [FN_W-1:0] cfg_interrupt_msix_mask,
    output wire [63:0]   cfg_interrupt_msix_address,
    output wire [31:0]   cfg_interrupt_msix_data,
    output wire          cfg_interrupt_msix_int,
    input  wire          cfg_interrupt_msix_sent,
    input  wire          cfg_interrupt_msix_fail,

    output wire [DATA_W-1:0]  m_axis_tx_tdata,
    output wire [DATA_W/8-1:0] m_axis_tx_tkeep,
    output wire          m_axis_tx_tvalid,
    input  wire          m_axis_tx_tready,
    output wire          m_axis_tx_tlast,
    output wire [0:0]    m_axis_tx_tuser,
    input  wire [7:0]    phy_status,
    // link status: user_lnk_up, cfg_negotiated_width and cfg_current_speed from cocotbext-pcie's model,
    // cfg_ltssm_state (the model leaves it alone) and the MAC's RX up from the test
    input  wire          user_lnk_up,
    input  wire [NW_W-1:0] cfg_negotiated_width,
    input  wire [CS_W-1:0] cfg_current_speed,
    input  wire [5:0]    cfg_ltssm_state,
    input  wire          mac_rx_up,
    input  wire          rx_clk,
    input  wire          rx_rst,
    input  wire [63:0]   xgmii_rxd,
    input  wire [7:0]    xgmii_rxc,
    input  wire [DATA_W-1:0]  s_axis_rx_tdata,
    input  wire [DATA_W/8-1:0] s_axis_rx_tkeep,
    input  wire          s_axis_rx_tvalid,
    input  wire          s_axis_rx_tlast,
    input  wire          s_axis_rx_tuser,
    output wire          pps,
    output wire          stat_dma_rd_err
);

// TB_HDL_CLOCKS (defined by the Makefile under Icarus): the MAC clocks are made here rather than by
// cocotb (a Python wake-up at every edge of each) and forced onto the two input ports; with MAC_DOMAIN
// they start high at time 0, as cocotb's Clock did, without it both stay at 0. Otherwise the bench
// drives the ports (test_tsnic_board_core.py): they stay inputs, which a Verilated model needs.
`ifdef TB_HDL_CLOCKS
reg tx_clk_gen = (MAC_DOMAIN != 0);
reg rx_clk_gen = (MAC_DOMAIN != 0);
generate
if (MAC_DOMAIN != 0) begin : g_mac_clocks
    always #(MAC_HALF_FS * 1.0e-6) tx_clk_gen = ~tx_clk_gen;
    always #(RX_HALF_FS * 1.0e-6) rx_clk_gen = ~rx_clk_gen;
end
endgenerate
initial begin
    force tx_clk = tx_clk_gen;
    force rx_clk = rx_clk_gen;
end
`endif

// For the bench (RX_XGMII): the starts of frame at the XGMII RX pins, counted at the rx_clk edge that
// takes them (the /S/ word was on the pins the cycle before), tb_rx_sof_l4 set when the last was on
// lane 4; the bench wakes on the count instead of looking at the pins at every rx_clk edge.
reg [31:0] tb_rx_sof_cnt = 32'd0;
reg        tb_rx_sof_l4 = 1'b0;
always @(posedge rx_clk) begin
    if (xgmii_rxc[0] && xgmii_rxd[7:0] == 8'hFB) begin
        tb_rx_sof_cnt <= tb_rx_sof_cnt + 32'd1;
        tb_rx_sof_l4  <= 1'b0;
    end else if (xgmii_rxc[4] && xgmii_rxd[39:32] == 8'hFB) begin
        tb_rx_sof_cnt <= tb_rx_sof_cnt + 32'd1;
        tb_rx_sof_l4  <= 1'b1;
    end
end

localparam RX_DATA_W = (RX_XGMII != 0) ? 64 : DATA_W;
wire [RX_DATA_W-1:0]   rx_tdata;
wire [RX_DATA_W/8-1:0] rx_tkeep;
wire rx_tvalid, rx_tlast, rx_tuser, rx_sof, rx_sof_lane4;
generate
if (RX_XGMII != 0) begin : g_xgmii
    tsnic_xgmii_rx mac_rx_inst (
        .clk(rx_clk), .rst(rx_rst), .xgmii_rxd(xgmii_rxd), .xgmii_rxc(xgmii_rxc),
        .m_axis_tdata(rx_tdata), .m_axis_tkeep(rx_tkeep), .m_axis_tlast(rx_tlast),
        .m_axis_tvalid(rx_tvalid), .m_axis_tuser(rx_tuser), .sof(rx_sof), .sof_lane4(rx_sof_lane4)
    );
    /* verilator lint_off UNUSEDSIGNAL */
    wire unused_axis = &{1'b0, s_axis_rx_tdata, s_axis_rx_tkeep, s_axis_rx_tvalid, s_axis_rx_tlast, s_axis_rx_tuser};
    /* verilator lint_on UNUSEDSIGNAL */
end else begin : g_axis
    assign rx_tdata = s_axis_rx_tdata;
    assign rx_tkeep = s_axis_rx_tkeep;
    assign rx_tvalid = s_axis_rx_tvalid;
    assign rx_tlast = s_axis_rx_tlast;
    assign rx_tuser = s_axis_rx_tuser;
    assign rx_sof = 1'b0;
    assign rx_sof_lane4 = 1'b0;
    /* verilator lint_off UNUSEDSIGNAL */
    wire unused_xgmii = &{1'b0, xgmii_rxd, xgmii_rxc};
    /* verilator lint_on UNUSEDSIGNAL */
end
endgenerate

/* verilator lint_off PINCONNECTEMPTY */
// the model's codes zero-extended to the board core's port widths
wire [7:0] width_x = {{(8-NW_W){1'b0}}, cfg_negotiated_width};
wire [7:0] speed_x = {{(8-CS_W){1'b0}}, cfg_current_speed};
/* verilator lint_off UNUSEDSIGNAL */
wire unused_status_x = &{1'b0, width_x[7:4], speed_x[7:3]};
/* verilator lint_on UNUSEDSIGNAL */

tsnic_board_core #(
    .DATA_W(DATA_W), .CQ_USER_W(CQ_USER_W), .CC_USER_W(CC_USER_W), .RQ_USER_W(RQ_USER_W), .RC_USER_W(RC_USER_W),
    .NUM_QUEUES(8), .MAC_DOMAIN(MAC_DOMAIN), .TX_PERIOD_FX(TX_PERIOD_FX),
    .RX_PERIOD_FX(RX_PERIOD_FX), .RX_DATA_W(RX_DATA_W), .RX_SOF_IN(RX_XGMII != 0),
    .PCIE_STATUS_ENC(STATUS_ENC), .MAC_KIND(RX_XGMII != 0 ? 2 : 1)
) board_inst (
    .clk(clk), .rst(rst), .tx_clk(tx_clk), .tx_rst(tx_rst), .rx_clk(rx_clk), .rx_rst(rx_rst),
    .s_axis_cq_tdata(s_axis_cq_tdata), .s_axis_cq_tkeep(s_axis_cq_tkeep), .s_axis_cq_tvalid(s_axis_cq_tvalid),
    .s_axis_cq_tready(s_axis_cq_tready), .s_axis_cq_tlast(s_axis_cq_tlast), .s_axis_cq_tuser(s_axis_cq_tuser),
    .m_axis_cc_tdata(m_axis_cc_tdata), .m_axis_cc_tkeep(m_axis_cc_tkeep), .m_axis_cc_tvalid(m_axis_cc_tvalid),
    .m_axis_cc_tready(m_axis_cc_tready), .m_axis_cc_tlast(m_axis_cc_tlast), .m_axis_cc_tuser(m_axis_cc_tuser),
    .m_axis_rq_tdata(m_axis_rq_tdata), .m_axis_rq_tkeep(m_axis_rq_tkeep), .m_axis_rq_tvalid(m_axis_rq_tvalid),
    .m_axis_rq_tready(m_axis_rq_tready), .m_axis_rq_tlast(m_axis_rq_tlast), .m_axis_rq_tuser(m_axis_rq_tuser),
    .s_axis_rc_tdata(s_axis_rc_tdata), .s_axis_rc_tkeep(s_axis_rc_tkeep), .s_axis_rc_tvalid(s_axis_rc_tvalid),
    .s_axis_rc_tready(s_axis_rc_tready), .s_axis_rc_tlast(s_axis_rc_tlast), .s_axis_rc_tuser(s_axis_rc_tuser),
    .cfg_max_payload(cfg_max_payload), .cfg_max_read_req(cfg_max_read_req),
    .cfg_bus_master_en(cfg_function_status[2]),
    .cfg_interrupt_msix_enable(cfg_interrupt_msix_enable[0]), .cfg_interrupt_msix_mask(cfg_interrupt_msix_mask[0]),
    .cfg_interrupt_msix_address(cfg_interrupt_msix_address), .cfg_interrupt_msix_data(cfg_interrupt_msix_data),
    .cfg_interrupt_msix_int(cfg_interrupt_msix_int), .cfg_interrupt_msix_sent(cfg_interrupt_msix_sent),
    .cfg_interrupt_msix_fail(cfg_interrupt_msix_fail),
    .m_axis_tx_tdata(m_axis_tx_tdata), .m_axis_tx_tkeep(m_axis_tx_tkeep), .m_axis_tx_tvalid(m_axis_tx_tvalid),
    .m_axis_tx_tready(m_axis_tx_tready), .m_axis_tx_tlast(m_axis_tx_tlast), .m_axis_tx_tuser(m_axis_tx_tuser),
    // TX_MAC_LAG = 0: the bench's MAC takes each frame at its first beat (stamps as before)
    .s_mac_tx_lag_valid(1'b0), .s_mac_tx_lag_ns(16'd0),
    .s_axis_rx_tdata(rx_tdata), .s_axis_rx_tkeep(rx_tkeep), .s_axis_rx_tuser(rx_tuser), .s_axis_rx_tvalid(rx_tvalid),
    .s_axis_rx_tready(), .s_axis_rx_tlast(rx_tlast), .rx_sof(rx_sof), .rx_sof_lane4(rx_sof_lane4),
    // no flash on this bench (the flash bench has one): DQ pulled up, ICAP reads 0
    .qspi_clk(), .qspi_cs_n(), .qspi_dq_o(), .qspi_dq_oe(), .qspi_dq_i(4'hF),
    .icap_ce(1'b1), .icap_csib(), .icap_rdwrb(), .icap_i(), .icap_o(32'd0),
    .phy_status(phy_status),
    .pcie_lnk_up(user_lnk_up), .pcie_ltssm(cfg_ltssm_state),
    .pcie_width(width_x[3:0]), .pcie_speed(speed_x[2:0]),
    .mac_rx_up(mac_rx_up),
    .pps(pps),
    .stat_dma_rd_err(stat_dma_rd_err), .stat_bar_bad_np(), .stat_bar_bad_posted(),
    // co-simulation clock gating (SIM_GATE = 0 here, as on the boards): tied off as the board tops do
    .sim_gclk(1'b0), .sim_gclk_df(1'b0), .sim_gclk_cw(1'b0), .sim_gclk_fl(1'b0), .sim_gclk_rx(1'b0),
    .sim_gclk_rg(1'b0), .sim_gate_hold()
);
/* verilator lint_on PINCONNECTEMPTY */

endmodule
