// tsnic_calendar_sorter: the calendar's release buffer. A small sorted array (systolic shift
// register, 2^SORT_W cells in flip-flops) that orders the entries the wheel hands it exactly by
// (launch_ns, rank), stable (equal keys keep arrival order), and emits one entry per cycle on the
// release port.
//
// * push: one entry per cycle from the calendar sequencer (caller guarantees count < 2^SORT_W).
//   rank is computed here: 0 for the first entry of a queue at a given launch_ns present in the
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

// combinational next state
reg  [S-1:0]      v_next;
reg  [S*CW-1:0]   c_next;
reg  [S-1:0]      v_sh;        // after removal
reg  [S*CW-1:0]   c_sh;
reg  [S:0]        le;          // cell key <= new key (cell valid)
reg  [S:0]        le_sh;
reg  [S-1:0]      urg_vec;
reg  [S-1:0]      fl_vec;
reg               urg_any;
reg  [SORT_W-1:0] k;
reg  [RANK_W-1:0] new_rank;
reg  [CW-1:0]     new_cell;
reg  [CW-1:0]     sel_cell;
reg  [CW-1:0]     cell_i;
reg               do_remove;
reg               head_due;
reg               head_ord;
reg               rel_head;
reg               out_free;
reg  [7:0]        sel_status;
reg               sel_late;

integer i;
integer f;
reg  [CW-1:0]     cell_f;

// flushed cells still inside (kept out of the main block: no false combinational loop)
always @* begin
    for (f = 0; f < S; f = f + 1) begin
        cell_f = c_reg[f*CW +: CW];
        fl_vec[f] = v_reg[f] && cell_f[O_URG] && (cell_f[2:0] == ST_FLUSHED);
    end
end

always @* begin
    // --- rank of the entry being pushed (max rank of same queue and launch_ns, + 1)
    new_rank = {RANK_W{1'b0}};
    for (i = 0; i < S; i = i + 1) begin
        cell_i = c_reg[i*CW +: CW];
        if (v_reg[i] && !cell_i[O_URG] && cell_i[O_L +: 64] == push_launch &&
            cell_i[O_Q +: QUEUE_W] == push_queue) begin
            new_rank = (cell_i[O_RANK +: RANK_W] == RANK_MAX) ? RANK_MAX : cell_i[O_RANK +: RANK_W] + 1'b1;
        end
    end
    if (push_urg) new_rank = {RANK_W{1'b0}};
    new_cell = {push_launch, new_rank, push_queue, push_handle, push_capped, push_latepol, push_urg, push_ustat};

    // --- compare every cell with the new key
    for (i = 0; i < S; i = i + 1) begin
        cell_i = c_reg[i*CW +: CW];
        le[i] = v_reg[i] && (cell_i[CW-1 -: KW] <= new_cell[CW-1 -: KW]);
        urg_vec[i] = v_reg[i] && cell_i[O_URG];
    end
    le[S] = 1'b0;

    // --- what leaves this cycle
    urg_any = |urg_vec;
    k = {SORT_W{1'b0}};
    for (i = S-1; i >= 0; i = i - 1) begin
        if (urg_vec[i]) k = i[SORT_W-1:0];
    end
    cell_i   = c_reg[0 +: CW];
    head_due = v_reg[0] && (cell_i[O_L +: 64] <= now_l);
    head_ord = ((cell_i[O_L +: 64] >> SLOT_NS_W) < {{SLOT_NS_W{1'b0}}, scan_lim});
    rel_head = head_due && (head_ord || count_reg[SORT_W]);
    out_free = !out_valid_reg || m_rel_ready;
    do_remove = out_free && (urg_any || rel_head);
    sel_cell = c_reg[k*CW +: CW];
    sel_late = sel_cell[O_L +: 64] < phc_ns;
    if (sel_cell[O_URG])
        sel_status = {5'd0, sel_cell[2:0]};
    else if (sel_late)
        sel_status = sel_cell[O_LP] ? `TSNIC_STATUS_DROPPED_LATE : `TSNIC_STATUS_SENT_LATE;
    else
        sel_status = `TSNIC_STATUS_SENT;

    // --- remove cell k (shift the cells above it down)
    for (i = 0; i < S; i = i + 1) begin
        if (do_remove && (i >= k)) begin
            if (i == S-1) begin
                v_sh[i] = 1'b0;
                c_sh[i*CW +: CW] = c_reg[i*CW +: CW];
            end else begin
                v_sh[i] = v_reg[i+1];
                c_sh[i*CW +: CW] = c_reg[(i+1)*CW +: CW];
            end
            le_sh[i] = le[i+1];
        end else begin
            v_sh[i] = v_reg[i];
            c_sh[i*CW +: CW] = c_reg[i*CW +: CW];
            le_sh[i] = le[i];
        end
    end
    le_sh[S] = 1'b0;

    // --- insert the new cell after every cell with key <= its key (stable)
    for (i = 0; i < S; i = i + 1) begin
        if (!push_valid || le_sh[i]) begin
            v_next[i] = v_sh[i];
            c_next[i*CW +: CW] = c_sh[i*CW +: CW];
        end else if (i == 0 || le_sh[i-1]) begin
            v_next[i] = 1'b1;
            c_next[i*CW +: CW] = new_cell;
        end else begin
            v_next[i] = v_sh[i-1];
            c_next[i*CW +: CW] = c_sh[(i-1)*CW +: CW];
        end
    end

    // --- queue flush: mark the queue's cells (never in the same cycle as a push)
    if (mark_valid) begin
        for (i = 0; i < S; i = i + 1) begin
            cell_i = c_next[i*CW +: CW];
            if (v_next[i] && !cell_i[O_URG] && cell_i[O_Q +: QUEUE_W] == mark_queue) begin
                c_next[i*CW + O_URG] = 1'b1;
                c_next[i*CW +: 3] = ST_FLUSHED;
            end
        end
    end
end

always @(posedge clk) begin
    v_reg     <= v_next;
    c_reg     <= c_next;
    count_reg <= count_reg + {{SORT_W{1'b0}}, push_valid} - {{SORT_W{1'b0}}, do_remove};
    if (do_remove) begin
        out_valid_reg  <= 1'b1;
        out_cell_reg   <= sel_cell;
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
