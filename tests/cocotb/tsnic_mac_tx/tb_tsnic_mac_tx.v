// Bench top for tsnic_mac_tx: the real PHC on clk, time carried to mac_clk (tsnic_td_source ->
// tsnic_td_sink), the MAC-domain launch gate, and tb_phc_truth for the bench's own notion of time.
// sof_true_ns / sof_true_fr: the true PHC time at the start of the cycle whose ending edge took the
// latest frame's first beat (the instant the gate reports as t_depart); sof_count counts them.
`timescale 1ns / 1fs
`default_nettype none

module tb_tsnic_mac_tx #(
    parameter [63:0] CLK_HALF_FS = 64'd2000000,    // core clock: half period in fs (250 MHz +- ppm)
    parameter [63:0] MAC_HALF_FS = 64'd3200000,    // MAC clock: half period in fs
    parameter DATA_W = 64,
    parameter [63:0] MAC_PERIOD_FX = 64'd27487790694,
    parameter [63:0] MARGIN_FX = 64'd1288490189,
    parameter PAY_FIFO_LOG2 = 11,
    parameter MAC_LAG = 0                          // 1: the bench's MAC reports line starts (s_mac_lag_*)
) (
    output reg                  clk = 1'b1,
    input  wire                 rst,
    output reg                  mac_clk = 1'b1,
    input  wire                 mac_rst,

    input  wire [19:0]          reg_wr_addr,
    input  wire [31:0]          reg_wr_data,
    input  wire [3:0]           reg_wr_strb,
    input  wire                 reg_wr_en,
    output wire                 reg_wr_wait,
    output wire                 reg_wr_ack,
    input  wire [19:0]          reg_rd_addr,
    input  wire                 reg_rd_en,
    output wire [31:0]          reg_rd_data,
    output wire                 reg_rd_wait,
    output wire                 reg_rd_ack,

    input  wire                 flush,
    input  wire [31:0]          tx_lat_comp_ns,

    input  wire                 s_frm_valid,
    output wire                 s_frm_ready,
    input  wire [63:0]          s_frm_launch_ns,
    input  wire [63:0]          s_frm_req_launch_ns,
    input  wire                 s_frm_late,
    input  wire                 s_frm_capped,
    input  wire [2:0]           s_frm_queue,
    input  wire [15:0]          s_frm_ring_index,
    input  wire [31:0]          s_frm_cookie,
    input  wire [15:0]          s_frm_len,
    input  wire [9:0]           s_frm_handle,
    input  wire [DATA_W-1:0]    s_axis_pay_tdata,
    input  wire [DATA_W/8-1:0]  s_axis_pay_tkeep,
    input  wire                 s_axis_pay_tlast,
    input  wire                 s_axis_pay_tvalid,
    output wire                 s_axis_pay_tready,

    output wire                 m_cpl_req_valid,
    input  wire                 m_cpl_req_ready,
    output wire [2:0]           m_cpl_req_queue,
    output wire [15:0]          m_cpl_req_ring_index,
    output wire [31:0]          m_cpl_req_cookie,
    output wire [63:0]          m_cpl_req_launch_ns,
    output wire [63:0]          m_cpl_req_depart_ns,
    output wire [15:0]          m_cpl_req_len,
    output wire [7:0]           m_cpl_req_status,
    output wire [7:0]           m_cpl_req_reason,
    output wire                 m_cpl_req_capped,
    output wire [9:0]           m_cpl_req_handle,
    output wire                 m_cpl_req_handle_valid,

    output wire [DATA_W-1:0]    m_axis_tx_tdata,
    output wire [DATA_W/8-1:0]  m_axis_tx_tkeep,
    output wire                 m_axis_tx_tlast,
    output wire                 m_axis_tx_tvalid,
    input  wire                 m_axis_tx_tready,
    input  wire                 s_mac_lag_valid,
    input  wire [15:0]          s_mac_lag_ns,

    output wire [63:0]          phc_ns,
    output wire                 mac_locked
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

tsnic_td_sink #(
    .PERIOD_FX(MAC_PERIOD_FX),
    .SRC_PERIOD_FX(64'd17179869184),
    .MARGIN_FX(MARGIN_FX)
) td_sink_inst (
    .clk(mac_clk), .rst(mac_rst),
    .td_ns(td_ns), .td_fns(td_fns), .td_inc(td_inc), .td_step(td_step), .td_toggle(td_toggle),
    .time_ns(mac_ns), .time_fns(mac_fns), .time_valid(mac_valid), .locked(mac_locked),
    .time_step(mac_step)
);

tsnic_mac_tx #(
    .DATA_W(DATA_W),
    .NODE_W(10),
    .QUEUE_W(3),
    .PAY_FIFO_LOG2(PAY_FIFO_LOG2),
    .MAC_LAG(MAC_LAG)
) dut (
    .clk(clk), .rst(rst), .flush(flush), .tx_lat_comp_ns(tx_lat_comp_ns), .phc_ns(phc_ns),
    .s_frm_valid(s_frm_valid), .s_frm_ready(s_frm_ready), .s_frm_launch_ns(s_frm_launch_ns),
    .s_frm_req_launch_ns(s_frm_req_launch_ns), .s_frm_late(s_frm_late), .s_frm_capped(s_frm_capped),
    .s_frm_queue(s_frm_queue), .s_frm_ring_index(s_frm_ring_index), .s_frm_cookie(s_frm_cookie),
    .s_frm_len(s_frm_len), .s_frm_handle(s_frm_handle),
    .s_axis_pay_tdata(s_axis_pay_tdata), .s_axis_pay_tkeep(s_axis_pay_tkeep),
    .s_axis_pay_tlast(s_axis_pay_tlast), .s_axis_pay_tuser(1'b0), .s_axis_pay_tvalid(s_axis_pay_tvalid),
    .s_axis_pay_tready(s_axis_pay_tready),
    .m_cpl_req_valid(m_cpl_req_valid), .m_cpl_req_ready(m_cpl_req_ready),
    .m_cpl_req_queue(m_cpl_req_queue), .m_cpl_req_ring_index(m_cpl_req_ring_index),
    .m_cpl_req_cookie(m_cpl_req_cookie), .m_cpl_req_launch_ns(m_cpl_req_launch_ns),
    .m_cpl_req_depart_ns(m_cpl_req_depart_ns), .m_cpl_req_len(m_cpl_req_len),
    .m_cpl_req_status(m_cpl_req_status), .m_cpl_req_reason(m_cpl_req_reason),
    .m_cpl_req_capped(m_cpl_req_capped), .m_cpl_req_handle(m_cpl_req_handle),
    .m_cpl_req_handle_valid(m_cpl_req_handle_valid),
    .mac_clk(mac_clk), .mac_rst(mac_rst), .tx_time_ns(mac_ns), .tx_time_valid(mac_valid),
    .m_axis_tx_tdata(m_axis_tx_tdata), .m_axis_tx_tkeep(m_axis_tx_tkeep), .m_axis_tx_tlast(m_axis_tx_tlast),
    .m_axis_tx_tvalid(m_axis_tx_tvalid), .m_axis_tx_tready(m_axis_tx_tready),
    .s_mac_lag_valid(s_mac_lag_valid), .s_mac_lag_ns(s_mac_lag_ns)
);

tb_phc_truth truth_inst (
    .phc_clk(clk), .phc_ns(phc_ns), .phc_fns(phc_fns), .phc_inc(phc_inc),
    .mac_clk(mac_clk), .mac_ns(mac_ns), .mac_fns(mac_fns), .stats_en(mac_locked)
);

// the true PHC time of each frame's first-beat cycle
reg        in_frame = 1'b0;
reg        hs_first = 1'b0;
reg [63:0] prev_ns = 64'd0;
real       prev_fr = 0.0;
reg [63:0] sof_true_ns = 64'd0;
real       sof_true_fr = 0.0;
integer    sof_count = 0;

always @(posedge mac_clk) begin
    hs_first = m_axis_tx_tvalid && m_axis_tx_tready && !in_frame;
    if (m_axis_tx_tvalid && m_axis_tx_tready) in_frame = !m_axis_tx_tlast;
    #0.003;
    if (hs_first) begin
        sof_true_ns = prev_ns;
        sof_true_fr = prev_fr;
        sof_count = sof_count + 1;
    end
    prev_ns = truth_inst.true_ns;
    prev_fr = truth_inst.true_fr;
end

endmodule
