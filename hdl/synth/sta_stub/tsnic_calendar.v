// timing stub of the calendar (for timing the rest of tsnic_core only): the real module's ports and
// parameters; every input ends in a register, every output comes from a register, so a core run
// times every path up to and from the calendar's boundary but none inside it
`resetall
`timescale 1ns / 1ps
`default_nettype none
/* verilator lint_off UNUSEDPARAM */   // the real calendar's parameters; the stub needs only the port widths
module tsnic_calendar #(
    parameter QUEUE_W    = 12,
    parameter NODE_W     = 16,
    parameter HANDLE_W   = 16,
    parameter SLOT_NS_W  = 6,
    parameter SLOT_W     = 13,
    parameter CSLOT_W    = 16,
    parameter [63:0] HORIZON_NS = 64'd10_000_000_000,
    parameter DEFAULT_QUOTA = (1 << NODE_W) / 4,
    parameter SORT_W     = 5,
    parameter RANK_W     = 4,
    parameter GROUP_W    = 6,
    parameter CGROUP_W   = 6,
    parameter SIM_FAST_FORWARD = 0,
    parameter SIM_GATE   = 0
) (
/* verilator lint_on UNUSEDPARAM */
    input  wire                 clk,
    input  wire                 rst,
    input  wire [63:0]          phc_ns,
    input  wire                 phc_step,
    input  wire [31:0]          lookahead_ns,
    input  wire                 s_ins_valid,
    output wire                 s_ins_ready,
    input  wire [QUEUE_W-1:0]   s_ins_queue,
    input  wire [HANDLE_W-1:0]  s_ins_handle,
    input  wire [63:0]          s_ins_launch_ns,
    input  wire                 s_ins_late_policy,
    input  wire                 s_ins_horizon_policy,
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
    output wire                 ff_quiet,
    output wire [63:0]          ff_wake_ns,
    output wire [63:0]          ff_chunk_ns,
    /* verilator lint_off UNUSEDSIGNAL */   // the co-simulation's gated clock: no reader in a board build
    input  wire                 ff_gclk,
    /* verilator lint_on UNUSEDSIGNAL */
    output wire                 ff_hold
);
localparam WI = 1+64+1+32+1+QUEUE_W+HANDLE_W+64+1+1+1+1+QUEUE_W+1+QUEUE_W+NODE_W+1;
localparam WO = 1+1+QUEUE_W+HANDLE_W+64+8+1+1+1+NODE_W+1+1+1+64+64+1;
localparam WA = WI > WO ? WI : WO;
(* keep *) reg [WI-1:0] in_q;
/* verilator lint_off UNUSEDSIGNAL */   // the bits beyond the outputs when the inputs are wider
reg [WA-1:0] acc;
/* verilator lint_on UNUSEDSIGNAL */
always @(posedge clk) begin
    in_q <= {rst, phc_ns, phc_step, lookahead_ns, s_ins_valid, s_ins_queue, s_ins_handle, s_ins_launch_ns,
             s_ins_late_policy, s_ins_horizon_policy, m_rel_ready, s_flush_valid, s_flush_queue,
             cfg_quota_wr, cfg_quota_queue, cfg_quota_value};
end
genvar i;
generate
    for (i = 0; i < WA; i = i + 1) begin : g_acc
        always @(posedge clk) acc[i] <= acc[(i + 1) % WA] ^ in_q[i % WI];
    end
endgenerate
assign {s_ins_ready, m_rel_valid, m_rel_queue, m_rel_handle, m_rel_launch_ns, m_rel_status, m_rel_capped,
        s_flush_ready, flush_done, stat_occupancy, stat_init_busy, ff_quiet, ff_wake_ns,
        ff_chunk_ns, ff_hold} = acc[WO-1:0];
endmodule
`resetall
