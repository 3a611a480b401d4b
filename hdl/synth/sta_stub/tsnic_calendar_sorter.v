// timing stub of the release buffer (for measuring the calendar's own paths only): every input ends
// in a register (the new sorter registers its push inputs), every output comes from a register
`resetall
`timescale 1ns / 1ps
`default_nettype none
/* verilator lint_off UNUSEDPARAM */   // RANK_W and rst: the real sorter's ports, unused by the stub
/* verilator lint_off UNUSEDSIGNAL */
module tsnic_calendar_sorter #(
    parameter SORT_W = 5, parameter QUEUE_W = 12, parameter HANDLE_W = 16, parameter RANK_W = 4,
    parameter SLOT_NS_W = 6
) (
/* verilator lint_on UNUSEDPARAM */
    input wire clk, input wire rst,
/* verilator lint_on UNUSEDSIGNAL */
    input wire [63:0] phc_ns, input wire [63:0] now_l, input wire [63-SLOT_NS_W:0] scan_lim,
    input wire ord_v, input wire [63:0] ord_l, input wire ordb_v, input wire [63:0] ordb_l,
    input wire push_valid, input wire [63:0] push_launch, input wire [QUEUE_W-1:0] push_queue,
    input wire [HANDLE_W-1:0] push_handle, input wire push_capped, input wire push_latepol,
    input wire push_urg, input wire [2:0] push_ustat,
    input wire push2_valid, input wire [63:0] push2_launch, input wire [QUEUE_W-1:0] push2_queue,
    input wire [HANDLE_W-1:0] push2_handle, input wire push2_capped, input wire push2_latepol,
    input wire push2_urg, input wire [2:0] push2_ustat,
    input wire byp_req, output wire byp_take,
    input wire mark_valid, input wire [QUEUE_W-1:0] mark_queue,
    output wire [SORT_W:0] count, output wire has_flushed,
    output wire m_rel_valid, input wire m_rel_ready, output wire [QUEUE_W-1:0] m_rel_queue,
    output wire [HANDLE_W-1:0] m_rel_handle, output wire [63:0] m_rel_launch_ns,
    output wire [7:0] m_rel_status, output wire m_rel_capped
);
localparam W = 64+64+64-SLOT_NS_W+1+64+1+64+1+64+QUEUE_W+HANDLE_W+1+1+1+3+1+64+QUEUE_W+HANDLE_W+1+1+1+3+1+1+QUEUE_W+1;
(* keep *) reg [W-1:0] in_q;
reg [W-1:0] acc;
always @(posedge clk) begin
    in_q <= {phc_ns, now_l, scan_lim, ord_v, ord_l, ordb_v, ordb_l, push_valid, push_launch, push_queue, push_handle,
             push_capped, push_latepol, push_urg, push_ustat, push2_valid, push2_launch, push2_queue,
             push2_handle, push2_capped, push2_latepol, push2_urg, push2_ustat, byp_req, mark_valid,
             mark_queue, m_rel_ready};
    acc <= acc ^ in_q;
end
assign byp_take = acc[0];
assign count = acc[SORT_W+1:1];
assign has_flushed = acc[SORT_W+2];
assign m_rel_valid = acc[SORT_W+3];
assign m_rel_queue = acc[SORT_W+4 +: QUEUE_W];
assign m_rel_handle = acc[SORT_W+4+QUEUE_W +: HANDLE_W];
assign m_rel_launch_ns = acc[SORT_W+4+QUEUE_W+HANDLE_W +: 64];
assign m_rel_status = acc[SORT_W+68+QUEUE_W+HANDLE_W +: 8];
assign m_rel_capped = acc[SORT_W+76+QUEUE_W+HANDLE_W];
endmodule
`resetall
