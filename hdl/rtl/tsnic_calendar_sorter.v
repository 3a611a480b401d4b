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
//   now_l) and nothing smaller can still come: its wheel slot has been loaded completely
//   (slot < scan_lim) or its launch_ns is at most ord_l (ord_v; the caller knows every entry still to
//   come is at or after ord_l). There is no forced release: order is exact always.
// * bypass: an entry on port 2 that finds the array full (byp_req) leaves straight from the port
//   when it is due and smaller than the head (the caller guarantees nothing smaller is still to
//   come), or is urgent; byp_take says it went.
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
    input  wire                   ord_v,       // every entry still to come has launch_ns >= ord_l
    input  wire [63:0]            ord_l,

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

    input  wire                   byp_req,     // port 2 holds an entry but the array is full
    output wire                   byp_take,    // ... and it went to the release register

    input  wire                   mark_valid,
    input  wire [QUEUE_W-1:0]     mark_queue,

    output wire [SORT_W:0]        count,
    output wire                   has_flushed,

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
// capped, handle, queue, rank; its valid, urgent and urgent-FLUSHED flags are also kept as S-bit
// vectors (v_reg, u_reg, f_reg). Every value is at most 64 bits wide, and the per-cell work (key
// compares, the shift) is written under the condition that needs it (a push, a removal, a mark), so a
// cycle-based simulator does almost nothing for the buffer in a cycle where it does not change.
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

reg  [S-1:0]      v_reg;       // cell valid
reg  [S-1:0]      u_reg;       // cell urgent (meaningful where valid)
reg  [S-1:0]      f_reg;       // cell urgent with status FLUSHED (meaningful where valid)
reg  [63:0]       l_reg [0:S-1];
reg  [MW-1:0]     m_reg [0:S-1];
reg  [SORT_W:0]   count_reg;

reg               out_valid_reg;
reg  [63:0]       out_l_reg;
reg  [MW-1:0]     out_m_reg;
reg  [7:0]        out_status_reg;

wire              any_push = push_valid || push2_valid;
wire              two_push = push_valid && push2_valid;

// --- the new entries' ranks and where they go (only in a cycle with a push on that port)
reg  [S-1:0]      le_a;        // valid cell with key {launch, rank} <= the key of the entry on port 1
reg  [S-1:0]      le_b;        // ... on port 2
reg  [RANK_W-1:0] rank_a;      // 1 + rank of the last cell of the same queue and launch_ns (not urgent;
reg  [RANK_W-1:0] rank_b;      //   ranks of one queue and launch_ns grow with the index), saturating
reg  [RANK_W-1:0] rk_n;
integer n;
always @* begin
    le_a   = {S{1'b0}};
    le_b   = {S{1'b0}};
    rank_a = {RANK_W{1'b0}};
    rank_b = {RANK_W{1'b0}};
    rk_n   = {RANK_W{1'b0}};
    if (push_valid) begin
        for (n = 0; n < S; n = n + 1) begin
            rk_n = m_reg[n][O_RANK +: RANK_W];
            if (v_reg[n] && !u_reg[n] && l_reg[n] == push_launch && m_reg[n][O_Q +: QUEUE_W] == push_queue)
                rank_a = (rk_n == RANK_MAX) ? RANK_MAX : rk_n + 1'b1;
        end
        if (push_urg) rank_a = {RANK_W{1'b0}};
        for (n = 0; n < S; n = n + 1) begin
            le_a[n] = v_reg[n] && ((l_reg[n] < push_launch) ||
                                   (l_reg[n] == push_launch && m_reg[n][O_RANK +: RANK_W] <= rank_a));
        end
    end
    if (push2_valid) begin
        for (n = 0; n < S; n = n + 1) begin
            rk_n = m_reg[n][O_RANK +: RANK_W];
            if (v_reg[n] && !u_reg[n] && l_reg[n] == push2_launch && m_reg[n][O_Q +: QUEUE_W] == push2_queue)
                rank_b = (rk_n == RANK_MAX) ? RANK_MAX : rk_n + 1'b1;
        end
        if (push2_urg) rank_b = {RANK_W{1'b0}};
        for (n = 0; n < S; n = n + 1) begin
            le_b[n] = v_reg[n] && ((l_reg[n] < push2_launch) ||
                                   (l_reg[n] == push2_launch && m_reg[n][O_RANK +: RANK_W] <= rank_b));
        end
    end
end

wire [MW-1:0]     meta_a = {rank_a, push_queue, push_handle, push_capped, push_latepol, push_urg, push_ustat};
wire [MW-1:0]     meta_b = {rank_b, push2_queue, push2_handle, push2_capped, push2_latepol, push2_urg, push2_ustat};
// the lower of the new entries goes in first; with one push it is that one
wire              a_le_b   = (push_launch < push2_launch) || (push_launch == push2_launch && rank_a <= rank_b);
wire              lo_is_a  = push_valid && (!push2_valid || a_le_b);
wire [63:0]       lo_l     = lo_is_a ? push_launch : push2_launch;
wire [MW-1:0]     lo_m     = lo_is_a ? meta_a : meta_b;
wire [63:0]       hi_l     = lo_is_a ? push2_launch : push_launch;
wire [MW-1:0]     hi_m     = lo_is_a ? meta_b : meta_a;
wire              lo_u     = lo_m[O_URG];
wire              lo_f     = lo_m[O_URG] && (lo_m[2:0] == ST_FLUSHED);
wire              hi_u     = hi_m[O_URG];
wire              hi_f     = hi_m[O_URG] && (hi_m[2:0] == ST_FLUSHED);

// --- what leaves this cycle: the first urgent cell, else the head when it may go
wire [S-1:0]      urg_vec  = v_reg & u_reg;
wire              urg_any  = |urg_vec;
reg  [SORT_W-1:0] k;           // index of the first urgent cell (0 when there is none: the head)
always @* begin
    k = {SORT_W{1'b0}};
    if (urg_any) begin
        for (n = S-1; n >= 0; n = n - 1) begin
            if (urg_vec[n]) k = n[SORT_W-1:0];
        end
    end
end
wire [63:0]       head_l   = l_reg[0];
wire              head_due = v_reg[0] && (head_l <= now_l);
wire              head_ord = (head_l[63:SLOT_NS_W] < scan_lim) || (ord_v && head_l <= ord_l);
wire              rel_head = head_due && head_ord;
wire              out_free = !out_valid_reg || m_rel_ready;
wire              do_remove = out_free && (urg_any || rel_head);
// bypass: the entry on port 2 is due and below the head (so below every cell), or urgent
wire              byp_ok   = push2_urg || ((push2_launch <= now_l) && (!v_reg[0] || push2_launch < head_l));
wire              do_byp   = byp_req && out_free && !urg_any && !rel_head && byp_ok;
wire [63:0]       sel_l_c  = l_reg[k];
wire [MW-1:0]     sel_m_c  = m_reg[k];
wire [63:0]       sel_l    = do_byp ? push2_launch : sel_l_c;
wire [MW-1:0]     sel_m    = do_byp ? {{RANK_W{1'b0}}, push2_queue, push2_handle, push2_capped, push2_latepol,
                                       push2_urg, push2_ustat} : sel_m_c;
wire              sel_late = sel_l < phc_ns;
wire [7:0]        sel_status = sel_m[O_URG] ? {5'd0, sel_m[2:0]} :
                               sel_late ? (sel_m[O_LP] ? `TSNIC_STATUS_DROPPED_LATE : `TSNIC_STATUS_SENT_LATE) :
                               `TSNIC_STATUS_SENT;

// --- the next state (only in a cycle that changes the buffer), as S-bit vectors: bit g = cell g
wire              upd = any_push || do_remove || mark_valid;
reg  [S-1:0]      ge;          // cell index >= removal index (and removing): takes its upper neighbour
reg  [S-1:0]      lo_sh;       // after the removal shift: cell key <= the lower new key
reg  [S-2:0]      hi_sh;       // ... <= the higher new key (every valid cell if only one push); cell S-1 never moves up
reg  [S-1:0]      s_0;         // cell g keeps c_sh[g] (the cell after the removal shift)
reg  [S-1:0]      s_lo;        // takes the lower new cell
reg  [S-1:0]      s_1;         // takes c_sh[g-1]
reg  [S-1:0]      s_hi;        // takes the higher new cell
reg  [S-1:0]      v_sh, u_sh, f_sh;
reg  [S-1:0]      v_n, u_n, f_n;
reg  [S-1:0]      mark_vec;    // cells of mark_queue, after this cycle's shift (a flush never comes with a push)
reg  [S-1:0]      le_lo, le_hi;
always @* begin
    ge = {S{1'b0}}; lo_sh = {S{1'b0}}; hi_sh = {(S-1){1'b0}};
    s_0 = {S{1'b1}}; s_lo = {S{1'b0}}; s_1 = {S{1'b0}}; s_hi = {S{1'b0}};
    v_sh = v_reg; u_sh = u_reg; f_sh = f_reg;
    v_n = v_reg; u_n = u_reg; f_n = f_reg;
    mark_vec = {S{1'b0}};
    le_lo = {S{1'b0}}; le_hi = {S{1'b0}};
    if (upd) begin
        ge    = do_remove ? ({S{1'b1}} << k) : {S{1'b0}};
        le_lo = lo_is_a ? le_a : le_b;
        le_hi = !two_push ? v_reg : (lo_is_a ? le_b : le_a);
        v_sh  = (ge & {1'b0, v_reg[S-1:1]}) | (~ge & v_reg);
        u_sh  = (ge & {1'b0, u_reg[S-1:1]}) | (~ge & u_reg);
        f_sh  = (ge & {1'b0, f_reg[S-1:1]}) | (~ge & f_reg);
        lo_sh = (ge & {1'b0, le_lo[S-1:1]}) | (~ge & le_lo);
        hi_sh = (ge[S-2:0] & le_hi[S-1:1]) | (~ge[S-2:0] & le_hi[S-2:0]);
        // insert the new cells after every cell with key <= theirs (stable): cells up to the lower
        // key stay, then the lower new cell, the cells up to the higher key move up one, then the
        // higher new cell, the rest move up two
        s_0  = {S{!any_push}} | lo_sh;
        s_lo = ~s_0 & {lo_sh[S-2:0], 1'b1};
        s_1  = ~s_0 & ~{lo_sh[S-2:0], 1'b1} & {hi_sh[S-2:0], 1'b1};
        s_hi = ~s_0 & ~{lo_sh[S-2:0], 1'b1} & ~{hi_sh[S-2:0], 1'b1} & {hi_sh[S-3:0], 2'b11};
        v_n  = (s_0 & v_sh) | s_lo | (s_1 & {v_sh[S-2:0], 1'b0}) | (s_hi & {S{two_push}}) |
               (~s_0 & ~s_lo & ~s_1 & ~s_hi & {v_sh[S-3:0], 2'b00});
        u_n  = (s_0 & u_sh) | (s_lo & {S{lo_u}}) | (s_1 & {u_sh[S-2:0], 1'b0}) | (s_hi & {S{hi_u}}) |
               (~s_0 & ~s_lo & ~s_1 & ~s_hi & {u_sh[S-3:0], 2'b00});
        f_n  = (s_0 & f_sh) | (s_lo & {S{lo_f}}) | (s_1 & {f_sh[S-2:0], 1'b0}) | (s_hi & {S{hi_f}}) |
               (~s_0 & ~s_lo & ~s_1 & ~s_hi & {f_sh[S-3:0], 2'b00});
        if (mark_valid) begin
            for (n = 0; n < S; n = n + 1) begin
                // no push in a mark cycle: cell n holds c_sh[n] (its upper neighbour if ge[n])
                if (ge[n]) begin
                    if (n < S-1)
                        mark_vec[n] = v_n[n] && !u_n[n] && (m_reg[(n+1)%S][O_Q +: QUEUE_W] == mark_queue);
                end else begin
                    mark_vec[n] = v_n[n] && !u_n[n] && (m_reg[n][O_Q +: QUEUE_W] == mark_queue);
                end
            end
            u_n = u_n | mark_vec;
            f_n = f_n | mark_vec;
        end
    end
end

// the cell a cell takes: its own (0), its upper neighbour (1), the one below (2), two below (3) after the
// removal shift, or a new one
function [63:0] pick_l;
    input          sel0, sello, sel1, selhi, ge0, ge1, ge2;
    input [63:0]   up, own, d1, d2, lo, hi;
    begin
        if (sel0)       pick_l = ge0 ? up : own;
        else if (sello) pick_l = lo;
        else if (sel1)  pick_l = ge1 ? own : d1;
        else if (selhi) pick_l = hi;
        else            pick_l = ge2 ? d1 : d2;
    end
endfunction
function [MW-1:0] pick_m;
    input          sel0, sello, sel1, selhi, ge0, ge1, ge2;
    input [MW-1:0] up, own, d1, d2, lo, hi;
    begin
        if (sel0)       pick_m = ge0 ? up : own;
        else if (sello) pick_m = lo;
        else if (sel1)  pick_m = ge1 ? own : d1;
        else if (selhi) pick_m = hi;
        else            pick_m = ge2 ? d1 : d2;
    end
endfunction
// a marked cell becomes urgent with status FLUSHED
function [MW-1:0] mark_m;
    input          mk;
    input [MW-1:0] m;
    begin
        mark_m = mk ? {m[MW-1:O_URG+1], 1'b1, ST_FLUSHED} : m;
    end
endfunction

genvar g;
generate
for (g = 0; g < S; g = g + 1) begin : g_cell
    // neighbours (cells outside the array read as zero; they are never selected while valid)
    localparam integer UP = (g + 1) % S;
    localparam integer D1 = (g + S - 1) % S;
    localparam integer D2 = (g + S - 2) % S;
    always @(posedge clk) begin
        if (upd) begin
            l_reg[g] <= pick_l(s_0[g], s_lo[g], s_1[g], s_hi[g], ge[g],
                               (g == 0) ? 1'b0 : ge[D1], (g <= 1) ? 1'b0 : ge[D2],
                               (g == S-1) ? 64'd0 : l_reg[UP], l_reg[g],
                               (g == 0) ? 64'd0 : l_reg[D1], (g <= 1) ? 64'd0 : l_reg[D2], lo_l, hi_l);
            m_reg[g] <= mark_m(mark_vec[g],
                               pick_m(s_0[g], s_lo[g], s_1[g], s_hi[g], ge[g],
                                      (g == 0) ? 1'b0 : ge[D1], (g <= 1) ? 1'b0 : ge[D2],
                                      (g == S-1) ? {MW{1'b0}} : m_reg[UP], m_reg[g],
                                      (g == 0) ? {MW{1'b0}} : m_reg[D1], (g <= 1) ? {MW{1'b0}} : m_reg[D2],
                                      lo_m, hi_m));
        end
    end
end
endgenerate

always @(posedge clk) begin
    v_reg     <= v_n;
    u_reg     <= u_n;
    f_reg     <= f_n;
    count_reg <= count_reg + {{SORT_W{1'b0}}, push_valid} + {{SORT_W{1'b0}}, push2_valid}
                           - {{SORT_W{1'b0}}, do_remove};
    if (do_remove || do_byp) begin
        out_valid_reg  <= 1'b1;
        out_l_reg      <= sel_l;
        out_m_reg      <= sel_m;
        out_status_reg <= sel_status;
    end else if (m_rel_ready) begin
        out_valid_reg  <= 1'b0;
    end
    if (rst) begin
        v_reg         <= {S{1'b0}};
        count_reg     <= {(SORT_W+1){1'b0}};
        out_valid_reg <= 1'b0;
    end
end

assign count           = count_reg;
assign has_flushed     = (|(v_reg & f_reg)) || (out_valid_reg && out_status_reg == `TSNIC_STATUS_FLUSHED);
assign byp_take        = do_byp;
assign m_rel_valid     = out_valid_reg;
assign m_rel_queue     = out_m_reg[O_Q +: QUEUE_W];
assign m_rel_handle    = out_m_reg[O_HND +: HANDLE_W];
assign m_rel_launch_ns = out_l_reg;
assign m_rel_status    = out_status_reg;
assign m_rel_capped    = out_m_reg[O_CAP];

endmodule

`resetall
