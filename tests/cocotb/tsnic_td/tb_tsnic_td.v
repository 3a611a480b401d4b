// Bench top for tsnic_td_source -> tsnic_td_sink: the real PHC (tsnic_phc, register interface driven
// by the bench) on clk, the sink on mac_clk, tb_phc_truth measuring the sink's error.
`timescale 1ns / 1fs
`default_nettype none

module tb_tsnic_td #(
    parameter [63:0] MAC_PERIOD_FX = 64'd27487790694,
    parameter [63:0] MARGIN_FX = 64'd1288490189,
    parameter [63:0] CLK_HALF_FS = 64'd2000000,    // core clock: half period in fs (250 MHz +- ppm)
    parameter [63:0] MAC_HALF_FS = 64'd3200000     // MAC clock: half period in fs
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

    input  wire        stats_en,
    output wire [63:0] phc_ns,
    output wire [63:0] mac_ns,
    output wire        mac_valid,
    output wire        mac_locked,
    output wire        mac_step
);

// Both clocks are made here rather than by cocotb: a Python wake-up at every edge of two clocks was
// most of the bench's run time. They start high at time 0, as cocotb's Clock did.
always #(CLK_HALF_FS * 1.0e-6) clk = ~clk;
always #(MAC_HALF_FS * 1.0e-6) mac_clk = ~mac_clk;

wire [47:0] phc_fns;
wire        phc_step;
wire [63:0] phc_inc;
wire [63:0] td_ns;
wire [31:0] td_fns;
wire [39:0] td_inc;
wire        td_step, td_toggle;
wire [31:0] mac_fns;

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

tb_phc_truth truth_inst (
    .phc_clk(clk), .phc_ns(phc_ns), .phc_fns(phc_fns), .phc_inc(phc_inc),
    .mac_clk(mac_clk), .mac_ns(mac_ns), .mac_fns(mac_fns), .stats_en(stats_en)
);

endmodule
