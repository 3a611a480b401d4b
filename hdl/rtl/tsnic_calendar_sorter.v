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
// cell layout, LSB first: ustat[2:0], urg, latepol, capped, handle, queue, rank, launch
localparam O_URG  = 3;
localparam O_LP   = 4;
localparam O_CAP  = 5;
localparam O_HND  = 6;
localparam O_Q    = O_HND + HANDLE_W;
localparam O_RANK = O_Q + QUEUE_W;
localparam O_L    = O_RANK + RANK_W;
localparam CW     = O_L + 64;
localparam KW     = 64 + RANK_W;          // key = {launch, rank} = top KW bits of a cell
localparam [RANK_W-1:0] RANK_MAX = {RANK_W{1'b1}};
localparam [7:0] ST8_FLUSHED = `TSNIC_STATUS_FLUSHED;
localparam [2:0] ST_FLUSHED = ST8_FLUSHED[2:0];

reg  [S-1:0]      v_reg;
reg  [S*CW-1:0]   c_reg;
reg  [SORT_W:0]   count_reg;

reg               out_valid_reg;
reg  [CW-1:0]     out_cell_reg;
reg  [7:0]        out_status_reg;

wire [S-1:0]      le_a;        // valid cell with key <= the key of the entry on port 1
wire [S-1:0]      le_b;        // ... on port 2
wire [S-1:0]      urg_vec;
wire [S-1:0]      fl_vec;
wire [S-1:0]      mt_a;        // same queue and launch_ns as the entry on port 1 (not urgent)
wire [S-1:0]      mt_b;        // ... on port 2
wire [S*RANK_W-1:0] rk1;       // each cell's rank + 1 (saturating)
reg  [RANK_W-1:0] rk_last_a;   // rank + 1 of the last matching cell (ranks of one queue and
reg               mt_any_a;    // launch_ns grow with the index, so the last holds the largest)
reg  [RANK_W-1:0] rk_last_b;
reg               mt_any_b;
reg  [SORT_W-1:0] k_first;     // index of the first urgent cell
integer n;
always @* begin
    rk_last_a = {RANK_W{1'b0}};
    mt_any_a  = 1'b0;
    rk_last_b = {RANK_W{1'b0}};
    mt_any_b  = 1'b0;
    k_first = {SORT_W{1'b0}};
    for (n = 0; n < S; n = n + 1) begin
        if (mt_a[n]) begin
            rk_last_a = rk1[n*RANK_W +: RANK_W];
            mt_any_a  = 1'b1;
        end
        if (mt_b[n]) begin
            rk_last_b = rk1[n*RANK_W +: RANK_W];
            mt_any_b  = 1'b1;
        end
    end
    for (n = S-1; n >= 0; n = n - 1) begin
        if (urg_vec[n]) k_first = n[SORT_W-1:0];
    end
end
wire [S-1:0]      ge;          // cell index >= removal index (and removing)
wire [S-1:0]      v_sh;
wire [S*CW-1:0]   c_sh;
wire [S-1:0]      lo_sh;       // after the removal shift: cell key <= the lower new key
wire [S-1:0]      hi_sh;       // ... <= the higher new key (every valid cell if only one push)

wire [RANK_W-1:0] rank_a = (push_urg || !mt_any_a) ? {RANK_W{1'b0}} : rk_last_a;
wire [RANK_W-1:0] rank_b = (push2_urg || !mt_any_b) ? {RANK_W{1'b0}} : rk_last_b;
wire [CW-1:0]     cell_a = {push_launch, rank_a, push_queue, push_handle, push_capped, push_latepol, push_urg, push_ustat};
wire [CW-1:0]     cell_b = {push2_launch, rank_b, push2_queue, push2_handle, push2_capped, push2_latepol, push2_urg, push2_ustat};
wire [KW-1:0]     key_a  = cell_a[CW-1 -: KW];
wire [KW-1:0]     key_b  = cell_b[CW-1 -: KW];
wire              any_push = push_valid || push2_valid;
wire              two_push = push_valid && push2_valid;
// the lower of the new entries goes in first; with one push it is that one
wire              lo_is_a  = push_valid && (!push2_valid || key_a <= key_b);
wire [CW-1:0]     cell_lo  = lo_is_a ? cell_a : cell_b;
wire [CW-1:0]     cell_hi  = lo_is_a ? cell_b : cell_a;
wire [S-1:0]      le_lo    = lo_is_a ? le_a : le_b;
wire [S-1:0]      le_hi    = !two_push ? v_reg : (lo_is_a ? le_b : le_a);

// --- what leaves this cycle: the first urgent cell, else the head when it may go
wire              urg_any  = |urg_vec;
wire [SORT_W-1:0] k        = k_first;
wire [63:0]       head_l   = c_reg[O_L +: 64];
wire              head_due = v_reg[0] && (head_l <= now_l);
wire              head_ord = (head_l[63:SLOT_NS_W] < scan_lim);
wire              rel_head = head_due && (head_ord || count_reg[SORT_W]);
wire              out_free = !out_valid_reg || m_rel_ready;
wire              do_remove = out_free && (urg_any || rel_head);
wire [CW-1:0]     sel_cell = c_reg[k*CW +: CW];
wire              sel_late = sel_cell[O_L +: 64] < phc_ns;
wire [7:0]        sel_status = sel_cell[O_URG] ? {5'd0, sel_cell[2:0]} :
                               sel_late ? (sel_cell[O_LP] ? `TSNIC_STATUS_DROPPED_LATE : `TSNIC_STATUS_SENT_LATE) :
                               `TSNIC_STATUS_SENT;

genvar g;
generate
for (g = 0; g < S; g = g + 1) begin : g_cell
    wire [CW-1:0] c   = c_reg[g*CW +: CW];
    wire [CW-1:0] cup = (g == S-1) ? {CW{1'b0}} : c_reg[((g+1)%S)*CW +: CW];
    wire          vup = (g == S-1) ? 1'b0 : v_reg[(g+1)%S];
    wire          loup = (g == S-1) ? 1'b0 : le_lo[(g+1)%S];
    wire          hiup = (g == S-1) ? 1'b0 : le_hi[(g+1)%S];

    assign le_a[g]    = v_reg[g] && (c[CW-1 -: KW] <= key_a);
    assign le_b[g]    = v_reg[g] && (c[CW-1 -: KW] <= key_b);
    assign urg_vec[g] = v_reg[g] && c[O_URG];
    assign fl_vec[g]  = v_reg[g] && c[O_URG] && (c[2:0] == ST_FLUSHED);
    assign mt_a[g]    = v_reg[g] && !c[O_URG] && (c[O_L +: 64] == push_launch) && (c[O_Q +: QUEUE_W] == push_queue);
    assign mt_b[g]    = v_reg[g] && !c[O_URG] && (c[O_L +: 64] == push2_launch) && (c[O_Q +: QUEUE_W] == push2_queue);

    assign rk1[g*RANK_W +: RANK_W] = (c[O_RANK +: RANK_W] == RANK_MAX) ? RANK_MAX : c[O_RANK +: RANK_W] + 1'b1;

    // remove cell k: cells at or above it take their upper neighbour
    /* verilator lint_off CMPCONST */
    assign ge[g]    = do_remove && (g >= k);
    /* verilator lint_on CMPCONST */
    assign v_sh[g]  = ge[g] ? vup : v_reg[g];
    assign c_sh[g*CW +: CW] = ge[g] ? cup : c;
    assign lo_sh[g] = ge[g] ? loup : le_lo[g];
    assign hi_sh[g] = ge[g] ? hiup : le_hi[g];

    // insert the new cells after every cell with key <= theirs (stable): cells up to the lower
    // key stay, then the lower new cell, the cells up to the higher key move up one, then the
    // higher new cell, the rest move up two
    wire          lo1  = (g == 0) ? 1'b1 : lo_sh[(g+S-1)%S];
    wire          hi1  = (g == 0) ? 1'b1 : hi_sh[(g+S-1)%S];
    wire          hi2  = (g <= 1) ? 1'b1 : hi_sh[(g+S-2)%S];
    wire          v1   = (g == 0) ? 1'b0 : v_sh[(g+S-1)%S];
    wire [CW-1:0] c1   = (g == 0) ? {CW{1'b0}} : c_sh[((g+S-1)%S)*CW +: CW];
    wire          v2   = (g <= 1) ? 1'b0 : v_sh[(g+S-2)%S];
    wire [CW-1:0] c2   = (g <= 1) ? {CW{1'b0}} : c_sh[((g+S-2)%S)*CW +: CW];
    reg           v_n;
    reg  [CW-1:0] c_n;
    always @* begin
        if (!any_push || lo_sh[g]) begin
            v_n = v_sh[g];  c_n = c_sh[g*CW +: CW];
        end else if (lo1) begin
            v_n = 1'b1;     c_n = cell_lo;
        end else if (hi1) begin
            v_n = v1;       c_n = c1;
        end else if (hi2) begin
            v_n = two_push; c_n = cell_hi;
        end else begin
            v_n = v2;       c_n = c2;
        end
    end
    // queue flush marks the queue's cells (never in the same cycle as a push)
    wire          mark = mark_valid && v_n && !c_n[O_URG] && (c_n[O_Q +: QUEUE_W] == mark_queue);

    always @(posedge clk) begin
        v_reg[g] <= rst ? 1'b0 : v_n;
        c_reg[g*CW +: CW] <= mark ? {c_n[CW-1:O_URG+1], 1'b1, ST_FLUSHED} : c_n;
    end
end
endgenerate

always @(posedge clk) begin
    count_reg <= count_reg + {{SORT_W{1'b0}}, push_valid} + {{SORT_W{1'b0}}, push2_valid}
                           - {{SORT_W{1'b0}}, do_remove};
    if (do_remove) begin
        out_valid_reg  <= 1'b1;
        out_cell_reg   <= sel_cell;
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
assign m_rel_queue     = out_cell_reg[O_Q +: QUEUE_W];
assign m_rel_handle    = out_cell_reg[O_HND +: HANDLE_W];
assign m_rel_launch_ns = out_cell_reg[O_L +: 64];
assign m_rel_status    = out_status_reg;
assign m_rel_capped    = out_cell_reg[O_CAP];

endmodule

`resetall
