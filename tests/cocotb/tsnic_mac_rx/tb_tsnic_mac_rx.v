// Bench top for the RX path on a board: XGMII -> tsnic_xgmii_rx -> tsnic_mac_rx (arrival stamp on
// the MAC RX clock, time from tsnic_td_source/tsnic_td_sink) -> the core-domain AXI-Stream.
// start_true_ns / start_true_fr: the true PHC time at the start of the latest /S/ on the line (the
// start of its word's cycle, plus half a period for lane 4); start_count counts them.
`timescale 1ns / 1fs
`default_nettype none

module tb_tsnic_mac_rx #(
    parameter [63:0] CLK_HALF_FS = 64'd2000000,    // core clock: half period in fs (250 MHz +- ppm)
    parameter [63:0] MAC_HALF_FS = 64'd3200000,    // MAC clock: half period in fs
    parameter [63:0] MAC_PERIOD_FX = 64'd27487790694,
    parameter FIFO_LOG2 = 12
) (
    output reg         clk = 1'b1,
    input  wire        rst,
    output reg         mac_clk = 1'b1,
    input  wire        mac_rst,

    input  wire [19:0] reg_wr_addr,
    input  wire [31:0] reg_wr_data,
    input  wire [3:0]  reg_wr_strb,
    input  wire        reg_wr_en,
    output wire        reg_wr_wait,
    output wire        reg_wr_ack,
    input  wire [19:0] reg_rd_addr,
    input  wire        reg_rd_en,
    output wire [31:0] reg_rd_data,
    output wire        reg_rd_wait,
    output wire        reg_rd_ack,

    input  wire [31:0] rx_lat_comp_ns,
    input  wire [63:0] xgmii_rxd,
    input  wire [7:0]  xgmii_rxc,

    output wire [63:0] m_axis_rx_tdata,
    output wire [7:0]  m_axis_rx_tkeep,
    output wire        m_axis_rx_tvalid,
    input  wire        m_axis_rx_tready,
    output wire        m_axis_rx_tlast,
    output wire [64:0] m_axis_rx_tuser,
    output wire        drop_pulse,
    output wire        mac_locked,
    output wire [63:0] phc_ns
);

// Both clocks are made here rather than by cocotb (a Python wake-up at every edge of each); they
// start high at time 0, as cocotb's Clock did.
always #(CLK_HALF_FS * 1.0e-6) clk = ~clk;
always #(MAC_HALF_FS * 1.0e-6) mac_clk = ~mac_clk;

wire [47:0] phc_fns;
wire        phc_step;
wire [63:0] phc_inc;
wire [63:0] td_ns;
wire [31:0] td_fns;
wire [39:0] td_inc;
wire        td_step, td_toggle;
wire [63:0] mac_ns;
wire [31:0] mac_fns;
wire        mac_valid, mac_step;

/* verilator lint_off PINCONNECTEMPTY */
tsnic_phc #(.PERIOD_NUM(4), .PERIOD_DEN(1), .SIM_FAST_FORWARD(1)) phc_inst (
    .clk(clk), .rst(rst),
    .reg_wr_addr(reg_wr_addr), .reg_wr_data(reg_wr_data), .reg_wr_strb(reg_wr_strb), .reg_wr_en(reg_wr_en),
    .reg_wr_wait(reg_wr_wait), .reg_wr_ack(reg_wr_ack),
    .reg_rd_addr(reg_rd_addr), .reg_rd_en(reg_rd_en), .reg_rd_data(reg_rd_data),
    .reg_rd_wait(reg_rd_wait), .reg_rd_ack(reg_rd_ack),
    .phc_ns(phc_ns), .phc_fns(phc_fns), .phc_sec(), .phc_nsec(), .phc_sec_valid(),
    .phc_step(phc_step), .pps(),
    .ff_warp(32'd0), .ff_quiet(), .ff_wake_ns(), .ff_inc(phc_inc)
);
/* verilator lint_on PINCONNECTEMPTY */

tsnic_td_source td_source_inst (
    .clk(clk), .rst(rst),
    .phc_ns(phc_ns), .phc_fns(phc_fns), .phc_step(phc_step),
    .td_ns(td_ns), .td_fns(td_fns), .td_inc(td_inc), .td_step(td_step), .td_toggle(td_toggle)
);

tsnic_td_sink #(.PERIOD_FX(MAC_PERIOD_FX), .SRC_PERIOD_FX(64'd17179869184)) td_sink_inst (
    .clk(mac_clk), .rst(mac_rst),
    .td_ns(td_ns), .td_fns(td_fns), .td_inc(td_inc), .td_step(td_step), .td_toggle(td_toggle),
    .time_ns(mac_ns), .time_fns(mac_fns), .time_valid(mac_valid), .locked(mac_locked),
    .time_step(mac_step)
);

wire [63:0] rx_tdata;
wire [7:0]  rx_tkeep;
wire        rx_tvalid, rx_tlast, rx_tuser, sof, sof_lane4;

tsnic_xgmii_rx xgmii_rx_inst (
    .clk(mac_clk), .rst(mac_rst), .xgmii_rxd(xgmii_rxd), .xgmii_rxc(xgmii_rxc),
    .m_axis_tdata(rx_tdata), .m_axis_tkeep(rx_tkeep), .m_axis_tlast(rx_tlast), .m_axis_tvalid(rx_tvalid),
    .m_axis_tuser(rx_tuser), .sof(sof), .sof_lane4(sof_lane4)
);

tsnic_mac_rx #(.DATA_W(64), .FIFO_LOG2(FIFO_LOG2), .PERIOD_FX(MAC_PERIOD_FX), .SOF_DELAY_FX(MAC_PERIOD_FX)) dut (
    .clk(clk), .rst(rst), .rx_lat_comp_ns(rx_lat_comp_ns),
    .m_axis_rx_tdata(m_axis_rx_tdata), .m_axis_rx_tkeep(m_axis_rx_tkeep), .m_axis_rx_tvalid(m_axis_rx_tvalid),
    .m_axis_rx_tready(m_axis_rx_tready), .m_axis_rx_tlast(m_axis_rx_tlast), .m_axis_rx_tuser(m_axis_rx_tuser),
    .mac_clk(mac_clk), .mac_rst(mac_rst), .rx_time_ns(mac_ns), .rx_time_fns(mac_fns),
    .sof(sof), .sof_lane4(sof_lane4),
    .s_axis_mac_tdata(rx_tdata), .s_axis_mac_tkeep(rx_tkeep), .s_axis_mac_tvalid(rx_tvalid),
    .s_axis_mac_tlast(rx_tlast), .s_axis_mac_tuser(rx_tuser), .drop_pulse(drop_pulse)
);

tb_phc_truth truth_inst (
    .phc_clk(clk), .phc_ns(phc_ns), .phc_fns(phc_fns), .phc_inc(phc_inc),
    .mac_clk(mac_clk), .mac_ns(mac_ns), .mac_fns(mac_fns), .stats_en(1'b0)
);

reg [63:0] prev_ns = 64'd0;
real       prev_fr = 0.0, period = 6.4, t_last = 0.0;
reg [63:0] start_true_ns = 64'd0;
real       start_true_fr = 0.0;
integer    start_count = 0;
reg        st0, st4;

always @(posedge mac_clk) begin
    st0 = xgmii_rxc[0] && xgmii_rxd[7:0] == 8'hFB;
    st4 = xgmii_rxc[4] && xgmii_rxd[39:32] == 8'hFB;
    #0.003;
    if ($realtime - t_last < 100.0) period = $realtime - t_last;
    t_last = $realtime;
    if (st0 || st4) begin
        start_true_ns = prev_ns;
        start_true_fr = prev_fr + (st4 ? period / 2.0 : 0.0);
        start_count = start_count + 1;
    end
    prev_ns = truth_inst.true_ns;
    prev_fr = truth_inst.true_fr;
end

endmodule
