// Test-only wrapper for the calendar bench: a free-running clock (no Python callback per edge), a
// PHC counter (phc += phc_inc every cycle; phc_load sets it and pulses phc_step for one cycle), and
// the handshake flags and release fields packed into single buses, so the bench does one or two
// simulator accesses per cycle, and the insert fields packed into one input bus (one write per
// insert instead of five). Everything else is driven and read by the cocotb bench.
`timescale 1ns / 1ps
`default_nettype none

module tb_tsnic_calendar #(
    parameter QUEUE_W  = 12,
    parameter NODE_W   = 12,
    parameter HANDLE_W = 16
) (
    input  wire                 rst,
    output reg                  clk,
    input  wire                 phc_load,
    input  wire [63:0]          phc_load_value,
    input  wire [31:0]          phc_inc,
    output reg  [63:0]          phc_ns,
    output reg                  phc_step,
    output wire [3:0]           ev,          // {flush_done, s_flush_ready, m_rel_valid, s_ins_ready}
    output wire                 ev_any,      // |ev: the bench sleeps until it rises when it has nothing to do
    output wire [QUEUE_W+HANDLE_W+72:0] rel_bus,  // {capped, status, launch, queue, handle}
    input  wire [31:0]          lookahead_ns,
    input  wire                 s_ins_valid,
    output wire                 s_ins_ready,
    input  wire [QUEUE_W+HANDLE_W+65:0] s_ins_bus,  // {horizon_policy, late_policy, launch, handle, queue}
    output wire                 m_rel_valid,
    input  wire                 m_rel_ready,
    output wire [QUEUE_W-1:0]   m_rel_queue,
    output wire [HANDLE_W-1:0]  m_rel_handle,
    output wire [63:0]          m_rel_launch_ns,
    output wire [7:0]           m_rel_status,
    output wire                 m_rel_capped,
    input  wire                 s_flush_valid,
    output wire                 s_flush_ready,
    input  wire [QUEUE_W-1:0]   s_flush_queue,
    output wire                 flush_done,
    input  wire                 cfg_quota_wr,
    input  wire [QUEUE_W-1:0]   cfg_quota_queue,
    input  wire [NODE_W:0]      cfg_quota_value,
    output wire [NODE_W:0]      stat_occupancy,
    output wire                 stat_init_busy,
    // test_quota_counter_wrap: the most nodes the calendar held (fcount + ccount) in the cycles after
    // the rising edges that saw held_en high, in all of them and in those that also saw held_late
    // high; the bench reads them once at the end instead of waking Python at every clock edge
    input  wire                 held_en,
    input  wire                 held_late,
    output reg  [NODE_W+1:0]    held_max,
    output reg  [NODE_W+1:0]    held_late_max
);

initial clk = 1'b0;
always #2 clk = ~clk;    // 4 ns, 250 MHz

initial phc_ns = 64'd0;
initial phc_step = 1'b0;
always @(posedge clk) begin
    phc_ns   <= phc_load ? phc_load_value : phc_ns + {32'd0, phc_inc};
    phc_step <= phc_load;
end

// sampled at the falling edge: the counts as the rising edge before left them (a Python coroutine
// woken at that rising edge read the same values)
wire [NODE_W+1:0] held_now = {1'b0, dut.fcount} + {1'b0, dut.ccount};
reg held_en_q = 1'b0, held_late_q = 1'b0;
initial held_max = 0;
initial held_late_max = 0;
always @(posedge clk) begin
    held_en_q   <= held_en;
    held_late_q <= held_en && held_late;
end
always @(negedge clk) begin
    if (held_en_q && held_now > held_max) held_max <= held_now;
    if (held_late_q && held_now > held_late_max) held_late_max <= held_now;
end

assign ev = {flush_done, s_flush_ready, m_rel_valid, s_ins_ready};
assign ev_any = |ev;
assign rel_bus = {m_rel_capped, m_rel_status, m_rel_launch_ns, m_rel_queue, m_rel_handle};

wire [QUEUE_W-1:0]  s_ins_queue          = s_ins_bus[QUEUE_W-1:0];
wire [HANDLE_W-1:0] s_ins_handle         = s_ins_bus[QUEUE_W+HANDLE_W-1:QUEUE_W];
wire [63:0]         s_ins_launch_ns      = s_ins_bus[QUEUE_W+HANDLE_W+63:QUEUE_W+HANDLE_W];
wire                s_ins_late_policy    = s_ins_bus[QUEUE_W+HANDLE_W+64];
wire                s_ins_horizon_policy = s_ins_bus[QUEUE_W+HANDLE_W+65];

tsnic_calendar #(
    .QUEUE_W(QUEUE_W), .NODE_W(NODE_W), .HANDLE_W(HANDLE_W)
) dut (
    .clk(clk), .rst(rst),
    .phc_ns(phc_ns), .phc_step(phc_step), .lookahead_ns(lookahead_ns),
    .s_ins_valid(s_ins_valid), .s_ins_ready(s_ins_ready), .s_ins_queue(s_ins_queue),
    .s_ins_handle(s_ins_handle), .s_ins_launch_ns(s_ins_launch_ns),
    .s_ins_late_policy(s_ins_late_policy), .s_ins_horizon_policy(s_ins_horizon_policy),
    .m_rel_valid(m_rel_valid), .m_rel_ready(m_rel_ready), .m_rel_queue(m_rel_queue),
    .m_rel_handle(m_rel_handle), .m_rel_launch_ns(m_rel_launch_ns), .m_rel_status(m_rel_status),
    .m_rel_capped(m_rel_capped),
    .s_flush_valid(s_flush_valid), .s_flush_ready(s_flush_ready), .s_flush_queue(s_flush_queue),
    .flush_done(flush_done),
    .cfg_quota_wr(cfg_quota_wr), .cfg_quota_queue(cfg_quota_queue), .cfg_quota_value(cfg_quota_value),
    .stat_occupancy(stat_occupancy), .stat_init_busy(stat_init_busy),
    .ff_warp(1'b0),
    .ff_gclk(1'b0)
);

endmodule
