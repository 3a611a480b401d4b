// tsnic_calendar_sorter: the calendar's release buffer. A small sorted array (systolic shift
// register, 2^SORT_W cells in flip-flops) that orders the entries the wheel hands it exactly by
// (launch_ns, rank), stable (equal keys keep arrival order), and emits one entry per cycle on the
// release port.
//
// * push: up to two entries per cycle, one on each push port (the calendar's loader and its insert
//   stage); the caller guarantees room for both. Two entries pushed together never share a
//   launch_ns unless one is urgent (they come from different wheel slots), so their ranks are
//   independent; of two equal keys the one on port 1 goes first. rank is computed here: 0 for the first entry of a queue at a given launch_ns present in the
//   array, previous rank + 1 for the next one of the same queue and launch_ns (saturating). Sorting
//   by (launch_ns, rank) with stable insertion serves ties round robin between queues (round r holds
//   each queue's r-th entry, queues in arrival order) and in posting order within a queue.
// * urgent cells (drops decided on insert, flushed entries) carry a fixed status and leave first,
//   from wherever they sit in the array.
// * the head (smallest key) leaves when it is due (launch_ns <= phc_ns + lookahead_ns, passed in as
//   now_l) and its wheel slot has been loaded completely (slot < scan_lim), or, when the array is
//   full, as soon as it is due (overflow; counted on `forced`).
// * mark: every cell of mark_queue becomes urgent with status FLUSHED (queue flush).
`resetall
`timescale 1ns / 1ps
`default_nettype none

module tsnic_calendar_sorter #(
    parameter SORT_W    = 5,
    parameter QUEUE_W   = 12,
    parameter HANDLE_W  = 16,
    parameter RANK_W    = 4,
    parameter SLOT_NS_W = 6
) (
    input  wire                   clk,
    input  wire                   rst,

    input  wire [63:0]            phc_ns,
    input  wire [63:0]            now_l,       // phc_ns + lookahead_ns
    input  wire [63-SLOT_NS_W:0]  scan_lim,    // wheel slots below this are fully loaded

    input  wire                   push_valid,
    input  wire [63:0]            push_launch,
    input  wire [QUEUE_W-1:0]     push_queue,
    input  wire [HANDLE_W-1:0]    push_handle,
    input  wire                   push_capped,
    input  wire                   push_latepol,
    input  wire                   push_urg,
    input  wire [2:0]             push_ustat,

    input  wire                   push2_valid,
    input  wire [63:0]            push2_launch,
    input  wire [QUEUE_W-1:0]     push2_queue,
    input  wire [HANDLE_W-1:0]    push2_handle,
    input  wire                   push2_capped,
    input  wire                   push2_latepol,
    input  wire                   push2_urg,
    input  wire [2:0]             push2_ustat,

    input  wire                   mark_valid,
    input  wire [QUEUE_W-1:0]     mark_queue,

    output wire [SORT_W:0]        count,
    output wire                   has_flushed,
    output wire                   forced,

    output wire                   m_rel_valid,
    input  wire                   m_rel_ready,
    output wire [QUEUE_W-1:0]     m_rel_queue,
    output wire [HANDLE_W-1:0]    m_rel_handle,
    output wire [63:0]            m_rel_launch_ns,
    output wire [7:0]             m_rel_status,
    output wire                   m_rel_capped
);

`include "tsnic_contract.vh"

localparam S   = 1 << SORT_W;
// A cell is a launch_ns word (l_reg) and a meta word (m_reg), LSB first: ustat[2:0], urg, latepol,
// capped, handle, queue, rank. Every value a cell computes with is at most 64 bits wide (a cycle-based
// simulator then evaluates the array with native machine words instead of one 3264-bit vector).
localparam O_URG  = 3;
localparam O_LP   = 4;
localparam O_CAP  = 5;
localparam O_HND  = 6;
localparam O_Q    = O_HND + HANDLE_W;
localparam O_RANK = O_Q + QUEUE_W;
localparam MW     = O_RANK + RANK_W;
localparam [RANK_W-1:0] RANK_MAX = {RANK_W{1'b1}};
localparam [7:0] ST8_FLUSHED = `TSNIC_STATUS_FLUSHED;
localparam [2:0] ST_FLUSHED = ST8_FLUSHED[2:0];

reg  [S-1:0]      v_reg;
reg  [63:0]       l_reg [0:S-1];
reg  [MW-1:0]     m_reg [0:S-1];
reg  [SORT_W:0]   count_reg;

reg               out_valid_reg;
reg  [63:0]       out_l_reg;
reg  [MW-1:0]     out_m_reg;
reg  [7:0]        out_status_reg;

wire [S-1:0]      le_a;        // valid cell with key {launch, rank} <= the key of the entry on port 1
wire [S-1:0]      le_b;        // ... on port 2
wire [S-1:0]      urg_vec;
wire [S-1:0]      fl_vec;
wire [S-1:0]      mt_a;        // same queue and launch_ns as the entry on port 1 (not urgent)
wire [S-1:0]      mt_b;        // ... on port 2
reg  [RANK_W-1:0] rk_last_a;   // rank + 1 (saturating) of the last matching cell (ranks of one
reg               mt_any_a;    // queue and launch_ns grow with the index, so the last holds the largest)
reg  [RANK_W-1:0] rk_last_b;
reg               mt_any_b;
reg  [SORT_W-1:0] k_first;     // index of the first urgent cell
reg  [RANK_W-1:0] rk_n;
integer n;
always @* begin
    rk_last_a = {RANK_W{1'b0}};
    mt_any_a  = 1'b0;
    rk_last_b = {RANK_W{1'b0}};
    mt_any_b  = 1'b0;
    k_first = {SORT_W{1'b0}};
    rk_n = {RANK_W{1'b0}};
    for (n = 0; n < S; n = n + 1) begin
        rk_n = m_reg[n][O_RANK +: RANK_W];
        rk_n = (rk_n == RANK_MAX) ? RANK_MAX : rk_n + 1'b1;
        if (mt_a[n]) begin
            rk_last_a = rk_n;
            mt_any_a  = 1'b1;
        end
        if (mt_b[n]) begin
            rk_last_b = rk_n;
            mt_any_b  = 1'b1;
        end
    end
    for (n = S-1; n >= 0; n = n - 1) begin
        if (urg_vec[n]) k_first = n[SORT_W-1:0];
    end
end

wire [RANK_W-1:0] rank_a = (push_urg || !mt_any_a) ? {RANK_W{1'b0}} : rk_last_a;
wire [RANK_W-1:0] rank_b = (push2_urg || !mt_any_b) ? {RANK_W{1'b0}} : rk_last_b;
wire [MW-1:0]     meta_a = {rank_a, push_queue, push_handle, push_capped, push_latepol, push_urg, push_ustat};
wire [MW-1:0]     meta_b = {rank_b, push2_queue, push2_handle, push2_capped, push2_latepol, push2_urg, push2_ustat};
wire              any_push = push_valid || push2_valid;
wire              two_push = push_valid && push2_valid;
// the lower of the new entries goes in first; with one push it is that one
wire              a_le_b   = (push_launch < push2_launch) || (push_launch == push2_launch && rank_a <= rank_b);
wire              lo_is_a  = push_valid && (!push2_valid || a_le_b);
wire [63:0]       lo_l     = lo_is_a ? push_launch : push2_launch;
wire [MW-1:0]     lo_m     = lo_is_a ? meta_a : meta_b;
wire [63:0]       hi_l     = lo_is_a ? push2_launch : push_launch;
wire [MW-1:0]     hi_m     = lo_is_a ? meta_b : meta_a;
wire [S-1:0]      le_lo    = lo_is_a ? le_a : le_b;
wire [S-1:0]      le_hi    = !two_push ? v_reg : (lo_is_a ? le_b : le_a);

// --- what leaves this cycle: the first urgent cell, else the head when it may go
wire              urg_any  = |urg_vec;
wire [SORT_W-1:0] k        = k_first;
wire [63:0]       head_l   = l_reg[0];
wire              head_due = v_reg[0] && (head_l <= now_l);
wire              head_ord = (head_l[63:SLOT_NS_W] < scan_lim);
wire              rel_head = head_due && (head_ord || count_reg[SORT_W]);
wire              out_free = !out_valid_reg || m_rel_ready;
wire              do_remove = out_free && (urg_any || rel_head);
wire [63:0]       sel_l    = l_reg[k];
wire [MW-1:0]     sel_m    = m_reg[k];
wire              sel_late = sel_l < phc_ns;
wire [7:0]        sel_status = sel_m[O_URG] ? {5'd0, sel_m[2:0]} :
                               sel_late ? (sel_m[O_LP] ? `TSNIC_STATUS_DROPPED_LATE : `TSNIC_STATUS_SENT_LATE) :
                               `TSNIC_STATUS_SENT;

// --- the next state as S-bit vectors (bit g = cell g)
// remove cell k: cells at or above it take their upper neighbour
wire [S-1:0]      ge    = do_remove ? ({S{1'b1}} << k) : {S{1'b0}};
wire [S-1:0]      v_sh  = (ge & {1'b0, v_reg[S-1:1]}) | (~ge & v_reg);
wire [S-1:0]      lo_sh = (ge & {1'b0, le_lo[S-1:1]}) | (~ge & le_lo);   // after the removal shift: cell key <= the lower new key
wire [S-2:0]      hi_sh = (ge[S-2:0] & le_hi[S-1:1]) | (~ge[S-2:0] & le_hi[S-2:0]);  // ... <= the higher new key (every valid cell if only one push); cell S-1 never moves up
// insert the new cells after every cell with key <= theirs (stable): cells up to the lower key stay,
// then the lower new cell, the cells up to the higher key move up one, then the higher new cell, the
// rest move up two
wire [S-1:0]      lo1   = {lo_sh[S-2:0], 1'b1};
wire [S-1:0]      hi1   = {hi_sh[S-2:0], 1'b1};
wire [S-1:0]      hi2   = {hi_sh[S-3:0], 2'b11};
wire [S-1:0]      s_0   = {S{!any_push}} | lo_sh;          // cell g keeps c_sh[g]
wire [S-1:0]      s_lo  = ~s_0 & lo1;                      // takes the lower new cell
wire [S-1:0]      s_1   = ~s_0 & ~lo1 & hi1;               // takes c_sh[g-1]
wire [S-1:0]      s_hi  = ~s_0 & ~lo1 & ~hi1 & hi2;        // takes the higher new cell
wire [S-1:0]      s_2   = ~s_0 & ~lo1 & ~hi1 & ~hi2;       // takes c_sh[g-2]
wire [S-1:0]      v_n   = (s_0 & v_sh) | s_lo | (s_1 & {v_sh[S-2:0], 1'b0}) |
                          (s_hi & {S{two_push}}) | (s_2 & {v_sh[S-3:0], 2'b00});

genvar g;
generate
for (g = 0; g < S; g = g + 1) begin : g_cell
    wire [63:0]   l    = l_reg[g];
    wire [MW-1:0] m    = m_reg[g];

    assign le_a[g]    = v_reg[g] && ((l < push_launch) || (l == push_launch && m[O_RANK +: RANK_W] <= rank_a));
    assign le_b[g]    = v_reg[g] && ((l < push2_launch) || (l == push2_launch && m[O_RANK +: RANK_W] <= rank_b));
    assign urg_vec[g] = v_reg[g] && m[O_URG];
    assign fl_vec[g]  = v_reg[g] && m[O_URG] && (m[2:0] == ST_FLUSHED);
    assign mt_a[g]    = v_reg[g] && !m[O_URG] && (l == push_launch) && (m[O_Q +: QUEUE_W] == push_queue);
    assign mt_b[g]    = v_reg[g] && !m[O_URG] && (l == push2_launch) && (m[O_Q +: QUEUE_W] == push2_queue);

    // neighbours (cells outside the array read as zero; they are never selected while valid)
    wire [63:0]   l_up = (g == S-1) ? 64'd0 : l_reg[(g+1)%S];
    wire [MW-1:0] m_up = (g == S-1) ? {MW{1'b0}} : m_reg[(g+1)%S];
    wire [63:0]   l_d1 = (g == 0) ? 64'd0 : l_reg[(g+S-1)%S];
    wire [MW-1:0] m_d1 = (g == 0) ? {MW{1'b0}} : m_reg[(g+S-1)%S];
    wire [63:0]   l_d2 = (g <= 1) ? 64'd0 : l_reg[(g+S-2)%S];
    wire [MW-1:0] m_d2 = (g <= 1) ? {MW{1'b0}} : m_reg[(g+S-2)%S];
    wire          ge1  = (g == 0) ? 1'b0 : ge[(g+S-1)%S];
    wire          ge2  = (g <= 1) ? 1'b0 : ge[(g+S-2)%S];
    reg  [63:0]   l_n;
    reg  [MW-1:0] m_n;
    always @* begin
        if (s_0[g]) begin
            l_n = ge[g] ? l_up : l;     m_n = ge[g] ? m_up : m;      // c_sh[g]
        end else if (s_lo[g]) begin
            l_n = lo_l;                 m_n = lo_m;
        end else if (s_1[g]) begin
            l_n = ge1 ? l : l_d1;       m_n = ge1 ? m : m_d1;        // c_sh[g-1]
        end else if (s_hi[g]) begin
            l_n = hi_l;                 m_n = hi_m;
        end else begin
            l_n = ge2 ? l_d1 : l_d2;    m_n = ge2 ? m_d1 : m_d2;     // c_sh[g-2]
        end
    end
    // queue flush marks the queue's cells (never in the same cycle as a push)
    wire          mark = mark_valid && v_n[g] && !m_n[O_URG] && (m_n[O_Q +: QUEUE_W] == mark_queue);

    always @(posedge clk) begin
        l_reg[g] <= l_n;
        m_reg[g] <= mark ? {m_n[MW-1:O_URG+1], 1'b1, ST_FLUSHED} : m_n;
    end
end
endgenerate

always @(posedge clk) begin
    v_reg     <= rst ? {S{1'b0}} : v_n;
    count_reg <= count_reg + {{SORT_W{1'b0}}, push_valid} + {{SORT_W{1'b0}}, push2_valid}
                           - {{SORT_W{1'b0}}, do_remove};
    if (do_remove) begin
        out_valid_reg  <= 1'b1;
        out_l_reg      <= sel_l;
        out_m_reg      <= sel_m;
        out_status_reg <= sel_status;
    end else if (m_rel_ready) begin
        out_valid_reg  <= 1'b0;
    end
    if (rst) begin
        count_reg     <= {(SORT_W+1){1'b0}};
        out_valid_reg <= 1'b0;
    end
end

assign count           = count_reg;
assign has_flushed     = (|fl_vec) || (out_valid_reg && out_status_reg == `TSNIC_STATUS_FLUSHED);
assign forced          = do_remove && !urg_any && !head_ord;
assign m_rel_valid     = out_valid_reg;
assign m_rel_queue     = out_m_reg[O_Q +: QUEUE_W];
assign m_rel_handle    = out_m_reg[O_HND +: HANDLE_W];
assign m_rel_launch_ns = out_l_reg;
assign m_rel_status    = out_status_reg;
assign m_rel_capped    = out_m_reg[O_CAP];

endmodule

`resetall
