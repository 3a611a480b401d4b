// tsnic_calendar_sorter: the calendar's release buffer. A small sorted array (systolic shift
// register, 2^SORT_W cells in flip-flops) that orders the entries the wheel hands it exactly by
// (launch_ns, rank), stable (equal keys keep arrival order), and emits one entry per cycle on the
// release port.
//
// * push: up to two entries per cycle, one on each push port (the calendar's loader and its insert
//   stage); the caller guarantees room for both (`count` counts an entry from its push on). Two
//   entries pushed together never share a launch_ns unless one is urgent (they come from different
//   wheel slots). rank is computed here: 0 for the first entry of a queue at a given launch_ns, else
//   1 + the rank of the last non-urgent entry of the same queue and launch_ns in the buffer
//   (saturating); an entry that left in the three cycles before the new one reached the array may
//   still count (the rank is then higher than needed: ties stay in posting order within a queue).
//   Sorting by (launch_ns, rank) with stable insertion serves ties round robin between queues
//   (round r holds each queue's r-th entry, queues in arrival order) and in posting order within a
//   queue. Of two equal keys pushed together (one urgent) the urgent one goes first.
// * pipeline: a push is registered (stage Q: per-cell compares against the array and against the
//   entries of stages P and I, and the two pushes against each other), gets its rank (stage P, from the registered per-cell matches), then
//   is inserted (stage I: positions from the registered compare vectors). Each stage moves the
//   vectors it registers the way the cells move in its cycle, so they always describe the cells of
//   the next cycle. A push of cycle c is a cell from cycle c + 4 on. Nothing waits: every stage
//   takes two entries every cycle.
// * urgent cells (drops decided on insert, flushed entries) carry a fixed status and leave first,
//   from wherever they sit in the array.
// * the head (smallest key) leaves when it is due (launch_ns <= phc_ns + lookahead_ns, passed in as
//   now_l) and nothing smaller can still come: in this cycle and in each of the three before (the
//   entries in flight were pushed then), its wheel slot had been loaded completely (slot < scan_lim)
//   or its launch_ns was at most ord_l (ord_v; the caller knows every entry it pushes from that
//   cycle on is at or after ord_l). There is no forced release: order is exact always.
//   ordb_v overrides that cycle's bound with "launch_ns at most ordb_l" (scan_lim 0, ord_v set): the
//   head is compared with both bounds side by side and ordb_v (a late signal, stage B's class)
//   only picks the result, so no 64-bit compare follows it.
// * bypass: an entry on port 2 that finds the buffer full (byp_req) leaves straight from the port
//   when nothing is in flight and it is due and smaller than the head (the caller guarantees nothing
//   smaller is still to come), or is urgent; byp_take says it went.
// * mark: every cell of mark_queue, and every entry of it in flight, becomes urgent with status
//   FLUSHED (queue flush), one cycle after mark_valid (registered); has_flushed covers that cycle.
`resetall
`timescale 1ns / 1ps
`default_nettype none

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
    input  wire                   ordb_v,      // this cycle's bound is launch_ns <= ordb_l instead
    input  wire [63:0]            ordb_l,

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

localparam S    = 1 << SORT_W;
localparam NR   = 1 << RANK_W;
localparam AS_W = 64 - SLOT_NS_W;
// A cell is a launch_ns word (l_reg) and a meta word (m_reg), LSB first: ustat[2:0], urg, latepol,
// capped, handle, queue, rank; its valid, urgent and urgent-FLUSHED flags are also kept as S-bit
// vectors (v_reg, u_reg, f_reg). Per-cell work is written under the condition that needs it (an
// entry in a stage, a removal, a mark), so a cycle-based simulator does little in an idle cycle.
localparam O_URG  = 3;
localparam O_LP   = 4;
localparam O_CAP  = 5;
localparam O_HND  = 6;
localparam O_Q    = O_HND + HANDLE_W;
localparam O_RANK = O_Q + QUEUE_W;
localparam MW     = O_RANK + RANK_W;
localparam [RANK_W-1:0] RANK_MAX = {RANK_W{1'b1}};
localparam [NR-1:0]     ONE_R    = {{(NR-1){1'b0}}, 1'b1};
localparam [7:0] ST8_FLUSHED = `TSNIC_STATUS_FLUSHED;
localparam [2:0] ST_FLUSHED = ST8_FLUSHED[2:0];

reg  [S-1:0]      v_reg;       // cell valid (the valid cells are 0 .. n-1)
reg  [S-1:0]      u_reg;       // cell urgent (meaningful where valid)
reg  [S-1:0]      f_reg;       // cell urgent with status FLUSHED (meaningful where valid)
reg  [63:0]       l_reg [0:S-1];
reg  [MW-1:0]     m_reg [0:S-1];
reg  [SORT_W:0]   count_reg;

reg               out_valid_reg;
reg  [63:0]       out_l_reg;
reg  [MW-1:0]     out_m_reg;
reg  [7:0]        out_status_reg;

// stage Q: the pushes of the last cycle (rank field 0; port 1 = a, port 2 = b)
reg               qa_v, qb_v;
reg  [63:0]       qa_l, qb_l;
reg  [MW-1:0]     qa_m, qb_m;
// stage P: the same entries a cycle later, with their compare vectors against this cycle's cells:
// lt (cell launch < entry launch), eq (==), mt (valid, not urgent, same launch and queue), and the
// same three bits against the two entries that were in stage P with them (now in stage I, as a / b)
reg               pa_v, pb_v;
reg  [63:0]       pa_l, pb_l;
reg  [MW-1:0]     pa_m, pb_m;
reg  [S-1:0]      pa_lt, pa_eq, pa_mt, pb_lt, pb_eq, pb_mt;
reg  [2:0]        pa_za, pa_zb, pb_za, pb_zb;   // {lt, eq, mt} against the entry a / b now in stage I
reg               p_ab_lt, p_ab_eq;             // pa_l < pb_l, pa_l == pb_l (compared in stage Q)
// stage I: the entries to insert this cycle, the lower one first (lo; hi only with two), with their
// compare vectors against the cells as they stand in this cycle: lt (cell launch < entry launch),
// eq (cell launch == entry launch)
reg               i_lo_v, i_hi_v;
reg  [63:0]       i_lo_l, i_hi_l;
reg  [MW-1:0]     i_lo_m, i_hi_m;
reg  [S-1:0]      i_lo_lt, i_lo_eq, i_hi_lt, i_hi_eq;
reg               i_lo_a;      // the lower entry came from port a
// the release-order inputs of the last three cycles (cover the entries in stages Q, P and I)
reg  [AS_W-1:0]   lim1, lim2, lim3;
reg               ov1, ov2, ov3;
reg  [63:0]       ol1, ol2, ol3;
// the mark, registered
reg               mk_v;
reg  [QUEUE_W-1:0] mk_q;

integer n;

// ------------------------------------------------------------------ release: what leaves this cycle
wire [S-1:0]      urg_vec  = v_reg & u_reg;
wire              urg_any  = |urg_vec;
reg  [S-1:0]      kge;         // cell index >= the removal index (the first urgent cell, else 0)
reg  [S-1:0]      oh;          // the cell that would leave (one-hot)
reg               pre;
always @* begin
    pre = 1'b0;
    // no urgent cell (nearly every cycle): the loop's result written directly (a Verilated model
    // then skips the loop; the same function)
    oh  = {{(S-1){1'b0}}, 1'b1};
    kge = {S{1'b1}};
    if (urg_any) begin
        for (n = 0; n < S; n = n + 1) begin
            oh[n]  = urg_vec[n] && !pre;
            pre    = pre || urg_vec[n];
            kge[n] = pre;
        end
    end
end
wire [63:0]       head_l   = l_reg[0];
wire              head_due = v_reg[0] && (head_l <= now_l);
wire [AS_W-1:0]   head_s   = head_l[63:SLOT_NS_W];
wire              ord0a    = (head_s < scan_lim) || (ord_v && head_l <= ord_l);
wire              ord0b    = head_l <= ordb_l;
wire              ord0     = ordb_v ? ord0b : ord0a;
wire              ord1     = (head_s < lim1)     || (ov1   && head_l <= ol1);
wire              ord2     = (head_s < lim2)     || (ov2   && head_l <= ol2);
wire              ord3     = (head_s < lim3)     || (ov3   && head_l <= ol3);
wire              rel_head = head_due && ord0 && ord1 && ord2 && ord3;
wire              out_free = !out_valid_reg || m_rel_ready;
wire              do_remove = out_free && (urg_any || rel_head);
wire              in_flight = qa_v || qb_v || pa_v || pb_v || i_lo_v;
// bypass: the entry on port 2 is due and below the head (so below every cell; nothing in flight), or urgent
wire              byp_ok   = push2_urg || ((push2_launch <= now_l) && (!v_reg[0] || push2_launch < head_l));
wire              do_byp   = byp_req && out_free && !urg_any && !rel_head && byp_ok && !in_flight;
reg  [63:0]       sel_l_c;
reg  [MW-1:0]     sel_m_c;
always @* begin
    sel_l_c = 64'd0;
    sel_m_c = {MW{1'b0}};
    if (do_remove) begin
        for (n = 0; n < S; n = n + 1) begin
            sel_l_c = sel_l_c | ({64{oh[n]}} & l_reg[n]);
            sel_m_c = sel_m_c | ({MW{oh[n]}} & m_reg[n]);
        end
    end
end
wire [MW-1:0]     byp_m    = {{RANK_W{1'b0}}, push2_queue, push2_handle, push2_capped, push2_latepol,
                              push2_urg, push2_ustat};
wire              head_late = head_l < phc_ns;
wire              byp_late  = push2_launch < phc_ns;
wire [7:0]        head_st  = !head_late ? `TSNIC_STATUS_SENT :
                             m_reg[0][O_LP] ? `TSNIC_STATUS_DROPPED_LATE : `TSNIC_STATUS_SENT_LATE;
wire [7:0]        byp_st   = push2_urg ? {5'd0, push2_ustat} : !byp_late ? `TSNIC_STATUS_SENT :
                             push2_latepol ? `TSNIC_STATUS_DROPPED_LATE : `TSNIC_STATUS_SENT_LATE;
wire [7:0]        rem_st   = urg_any ? {5'd0, sel_m_c[2:0]} : head_st;

// ------------------------------------------------------------------ mark (registered)
// a marked cell / entry becomes urgent with status FLUSHED (not one that is urgent already)
function [MW-1:0] mark_m;
    input          mk;
    input [MW-1:0] m;
    begin
        mark_m = mk ? {m[MW-1:O_URG+1], 1'b1, ST_FLUSHED} : m;
    end
endfunction
function mark_hit;
    input                 mv;
    input [QUEUE_W-1:0]   mq;
    input [MW-1:0]        m;
    begin
        mark_hit = mv && !m[O_URG] && (m[O_Q +: QUEUE_W] == mq);
    end
endfunction
// an entry as marked by a flush of queue q (v: a mark this cycle; without one the mark logic does
// not run, which a Verilated model then skips)
function [MW-1:0] mark_if;
    input                 v;
    input [QUEUE_W-1:0]   q;
    input [MW-1:0]        m;
    begin
        mark_if = m;
        if (v) mark_if = mark_m(mark_hit(1'b1, q, m), m);
    end
endfunction
reg  [S-1:0]      mk_vec;
always @* begin
    mk_vec = {S{1'b0}};
    if (mk_v) begin
        for (n = 0; n < S; n = n + 1)
            mk_vec[n] = v_reg[n] && !u_reg[n] && (m_reg[n][O_Q +: QUEUE_W] == mk_q);
    end
end
// the stage-I entries as marked
wire [MW-1:0]     lo_m    = mark_if(mk_v, mk_q, i_lo_m);
wire [MW-1:0]     hi_m    = mark_if(mk_v, mk_q, i_hi_m);
wire              lo_u    = lo_m[O_URG];
wire              lo_f    = lo_m[O_URG] && (lo_m[2:0] == ST_FLUSHED);
wire              hi_u    = hi_m[O_URG];
wire              hi_f    = hi_m[O_URG] && (hi_m[2:0] == ST_FLUSHED);
wire [S-1:0]      u_src   = u_reg | mk_vec;
wire [S-1:0]      f_src   = f_reg | mk_vec;

// ------------------------------------------------------------------ stage I: where the entries go
// le_*: valid cell with key {launch, rank} <= the entry's (from the registered compare vectors);
// bit S is the place above the array (never <= an entry; "stays" when there is no entry). Cell g
// takes its own cell, the lower new entry, the cell below, the higher new entry or the cell two
// below, each after the removal shift. The shift seen from cell g has four cases (the first-urgent
// prefix kge is monotone): no removal at or below g (variant 0), removal at g (1), at g-1 (2), below
// g-1 (3). Each variant's selects come from le_* alone; kge and do_remove pick among the four values
// only at the last mux (per cell, in the cell loop), so the prefix does not precede the selects.
wire              upd = i_lo_v || do_remove || mk_v;
reg  [S:0]        le_lo;
reg  [S-1:0]      le_hi;
always @* begin
    le_lo = {1'b0, {S{1'b1}}};   // no entry: every cell stays where it is (after the removal shift)
    le_hi = {S{1'b0}};
    if (i_lo_v) begin
        for (n = 0; n < S; n = n + 1) begin
            le_lo[n] = v_reg[n] && (i_lo_lt[n] ||
                                    (i_lo_eq[n] && m_reg[n][O_RANK +: RANK_W] <= i_lo_m[O_RANK +: RANK_W]));
            le_hi[n] = v_reg[n] && (!i_hi_v || i_hi_lt[n] ||
                                    (i_hi_eq[n] && m_reg[n][O_RANK +: RANK_W] <= i_hi_m[O_RANK +: RANK_W]));
        end
    end else begin
        le_lo[S] = 1'b1;             // ... and the top cell takes the place above (empty) on a removal
    end
end

// the value a cell takes: its own (0), its upper neighbour (1), the one below (2), two below (3)
// after the removal shift, or a new one
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
function pick_b;
    input          sel0, sello, sel1, selhi, ge0, ge1, ge2;
    input          up, own, d1, d2, lo, hi;
    begin
        if (sel0)       pick_b = ge0 ? up : own;
        else if (sello) pick_b = lo;
        else if (sel1)  pick_b = ge1 ? own : d1;
        else if (selhi) pick_b = hi;
        else            pick_b = ge2 ? d1 : d2;
    end
endfunction

// ------------------------------------------------------------------ stage Q: compares
// xa_* / xb_*: the entry of stage Q on port a / b against every cell; ya_* / yb_*: against the
// entries of stage I (which become cells at the end of this cycle); za_* / zb_*: against the
// entries of stage P (stage I's next cycle)
function x_mt;                 // same queue, not urgent (launch compared apart)
    input          yv;
    input [MW-1:0] ym;
    input [QUEUE_W-1:0] xq;
    begin
        x_mt = yv && !ym[O_URG] && (ym[O_Q +: QUEUE_W] == xq);
    end
endfunction
reg  [S-1:0]      xa_lt, xa_eq, xa_mt, xb_lt, xb_eq, xb_mt;
always @* begin
    xa_lt = {S{1'b0}}; xa_eq = {S{1'b0}}; xa_mt = {S{1'b0}};
    xb_lt = {S{1'b0}}; xb_eq = {S{1'b0}}; xb_mt = {S{1'b0}};
    if (qa_v) begin
        for (n = 0; n < S; n = n + 1) begin
            xa_lt[n] = l_reg[n] < qa_l;
            xa_eq[n] = l_reg[n] == qa_l;
            xa_mt[n] = xa_eq[n] && x_mt(v_reg[n] && !u_reg[n], m_reg[n], qa_m[O_Q +: QUEUE_W]);
        end
    end
    if (qb_v) begin
        for (n = 0; n < S; n = n + 1) begin
            xb_lt[n] = l_reg[n] < qb_l;
            xb_eq[n] = l_reg[n] == qb_l;
            xb_mt[n] = xb_eq[n] && x_mt(v_reg[n] && !u_reg[n], m_reg[n], qb_m[O_Q +: QUEUE_W]);
        end
    end
end
// {lt, eq, mt} of an entry against a stage-Q entry
function [2:0] x_cmp;
    input          yv;
    input [63:0]   yl;
    input [MW-1:0] ym;
    input [63:0]   xl;
    input [QUEUE_W-1:0] xq;
    begin
        x_cmp = {yl < xl, yl == xl, (yl == xl) && x_mt(yv, ym, xq)};
    end
endfunction
wire [2:0]        ya_lo = x_cmp(i_lo_v, i_lo_l, i_lo_m, qa_l, qa_m[O_Q +: QUEUE_W]);
wire [2:0]        ya_hi = x_cmp(i_hi_v, i_hi_l, i_hi_m, qa_l, qa_m[O_Q +: QUEUE_W]);
wire [2:0]        yb_lo = x_cmp(i_lo_v, i_lo_l, i_lo_m, qb_l, qb_m[O_Q +: QUEUE_W]);
wire [2:0]        yb_hi = x_cmp(i_hi_v, i_hi_l, i_hi_m, qb_l, qb_m[O_Q +: QUEUE_W]);
wire [2:0]        za_a  = x_cmp(pa_v, pa_l, pa_m, qa_l, qa_m[O_Q +: QUEUE_W]);
wire [2:0]        za_b  = x_cmp(pb_v, pb_l, pb_m, qa_l, qa_m[O_Q +: QUEUE_W]);
wire [2:0]        zb_a  = x_cmp(pa_v, pa_l, pa_m, qb_l, qb_m[O_Q +: QUEUE_W]);
wire [2:0]        zb_b  = x_cmp(pb_v, pb_l, pb_m, qb_l, qb_m[O_Q +: QUEUE_W]);

// ------------------------------------------------------------------ stage P: ranks
// rank: 1 + the highest rank among the cells (mt) and the stage-I entries of the entry's queue and
// launch_ns, not urgent (saturating), else 0; from a one-hot OR of the ranks
function [RANK_W-1:0] rank_of;
    input [NR-1:0] hot;   // ranks present
    integer r;
    begin
        rank_of = {RANK_W{1'b0}};
        for (r = 0; r < NR; r = r + 1)
            if (hot[r]) rank_of = (r == NR-1) ? RANK_MAX : r[RANK_W-1:0] + 1'b1;
    end
endfunction
// the stage-I entries as they came from port a / b
wire [RANK_W-1:0] ia_rank = i_lo_a ? i_lo_m[O_RANK +: RANK_W] : i_hi_m[O_RANK +: RANK_W];
wire [RANK_W-1:0] ib_rank = i_lo_a ? i_hi_m[O_RANK +: RANK_W] : i_lo_m[O_RANK +: RANK_W];
reg  [NR-1:0]     hot_a, hot_b;
reg  [RANK_W-1:0] rank_a, rank_b;
always @* begin
    hot_a = {NR{1'b0}}; hot_b = {NR{1'b0}};
    if (pa_v) begin
        for (n = 0; n < S; n = n + 1)
            if (pa_mt[n]) hot_a = hot_a | (ONE_R << m_reg[n][O_RANK +: RANK_W]);
        if (pa_za[0]) hot_a = hot_a | (ONE_R << ia_rank);
        if (pa_zb[0]) hot_a = hot_a | (ONE_R << ib_rank);
    end
    if (pb_v) begin
        for (n = 0; n < S; n = n + 1)
            if (pb_mt[n]) hot_b = hot_b | (ONE_R << m_reg[n][O_RANK +: RANK_W]);
        if (pb_za[0]) hot_b = hot_b | (ONE_R << ia_rank);
        if (pb_zb[0]) hot_b = hot_b | (ONE_R << ib_rank);
    end
    // rank_of of no rank present is 0: the 16-step search only when one is
    rank_a = {RANK_W{1'b0}};
    rank_b = {RANK_W{1'b0}};
    if (!pa_m[O_URG] && (|hot_a)) rank_a = rank_of(hot_a);
    if (!pb_m[O_URG] && (|hot_b)) rank_b = rank_of(hot_b);
end
// the lower of the two goes in first (with one entry, that one); equal launch_ns only with an urgent
// entry, which then goes first (rank 0, and its place does not matter: it leaves first anyway)
// (the launch compare of a against b is done in stage Q and registered)
wire              a_le_b  = p_ab_lt || (p_ab_eq && pa_m[O_URG]);
wire              lo_is_a = pa_v && (!pb_v || a_le_b);
wire [63:0]       n_lo_l  = lo_is_a ? pa_l : pb_l;
wire [63:0]       n_hi_l  = lo_is_a ? pb_l : pa_l;
wire [MW-1:0]     n_lo_m0 = lo_is_a ? {rank_a, pa_m[O_RANK-1:0]} : {rank_b, pb_m[O_RANK-1:0]};
wire [MW-1:0]     n_hi_m0 = lo_is_a ? {rank_b, pb_m[O_RANK-1:0]} : {rank_a, pa_m[O_RANK-1:0]};
wire [MW-1:0]     n_lo_m  = mark_if(mk_v, mk_q, n_lo_m0);
wire [MW-1:0]     n_hi_m  = mark_if(mk_v, mk_q, n_hi_m0);
// their compare vectors against this cycle's cells, and bits against the stage-I entries (lo, hi)
wire [S-1:0]      x_lo_lt = lo_is_a ? pa_lt : pb_lt;
wire [S-1:0]      x_lo_eq = lo_is_a ? pa_eq : pb_eq;
wire [S-1:0]      x_hi_lt = lo_is_a ? pb_lt : pa_lt;
wire [S-1:0]      x_hi_eq = lo_is_a ? pb_eq : pa_eq;
wire [1:0]        pa_ilo  = i_lo_a ? pa_za[2:1] : pa_zb[2:1];
wire [1:0]        pa_ihi  = i_lo_a ? pa_zb[2:1] : pa_za[2:1];
wire [1:0]        pb_ilo  = i_lo_a ? pb_za[2:1] : pb_zb[2:1];
wire [1:0]        pb_ihi  = i_lo_a ? pb_zb[2:1] : pb_za[2:1];
// {lt vs lo, eq vs lo, lt vs hi, eq vs hi}
wire [3:0]        y_lo    = lo_is_a ? {pa_ilo, pa_ihi} : {pb_ilo, pb_ihi};
wire [3:0]        y_hi    = lo_is_a ? {pb_ilo, pb_ihi} : {pa_ilo, pa_ihi};

// ------------------------------------------------------------------ the cells and the stage-P vectors move
genvar g;
generate
for (g = 0; g < S; g = g + 1) begin : g_cell
    // neighbours (cells outside the array read as zero; they are never selected while valid)
    localparam integer UP = (g + 1) % S;
    localparam integer D1 = (g + S - 1) % S;
    localparam integer D2 = (g + S - 2) % S;
    // the shift case at this cell: r0 removal at or below g, r1 below g, r2 below g-1
    wire r0 = do_remove && kge[g];
    wire r1 = (g == 0) ? 1'b0 : kge[D1];
    wire r2 = (g <= 1) ? 1'b0 : kge[D2];
    // le after the shift: at g (a), g-1 (b; 1 for g = 0), hi at g-1 (c; 1 for g = 0), hi at g-2
    // (d; 1 for g <= 1), per variant
    wire la0 = le_lo[g];
    wire la1 = le_lo[g+1];
    wire lb0 = (g == 0) ? 1'b1 : le_lo[D1];
    wire lb2 = le_lo[g];
    wire hc0 = (g == 0) ? 1'b1 : le_hi[D1];
    wire hc2 = le_hi[g];
    wire hd0 = (g <= 1) ? 1'b1 : le_hi[D2];
    wire hd3 = (g == 0) ? 1'b1 : (g == 1) ? 1'b1 : le_hi[D1];
    // the four variants' le bits {a, b, c, d}, priority-encoded by the pick functions into the
    // selects {s0, slo, s1, shi} (a; !a && b; !a && !b && c; !a && !b && !c && d). They are passed
    // as bits and decoded inside the (clock-enabled) assignments, not held in per-cell wires: the
    // same logic, but a Verilated model then evaluates them only in cycles that move the cells.
    // A vector moved like the cells (W bits per cell; own / up / d1 / d2 are this cell's, the one
    // above, below and two below; lo / hi the bits of the two new cells)
    `define SRT_SEL(P, up, own, d1, d2, lo, hi) \
        (!r0 ? P(la0, lb0, hc0, hd0, 1'b0, 1'b0, 1'b0, up, own, d1, d2, lo, hi) : \
         !r1 ? P(la1, lb0, hc0, hd0, 1'b1, 1'b0, 1'b0, up, own, d1, d2, lo, hi) : \
         !r2 ? P(la1, lb2, hc2, hd0, 1'b1, 1'b1, 1'b0, up, own, d1, d2, lo, hi) : \
               P(la1, lb2, hc2, hd3, 1'b1, 1'b1, 1'b1, up, own, d1, d2, lo, hi))
    `define SRT_MOVE(vec, blo, bhi) \
        `SRT_SEL(pick_b, (g == S-1) ? 1'b0 : vec[UP], vec[g], (g == 0) ? 1'b0 : vec[D1], \
                 (g <= 1) ? 1'b0 : vec[D2], blo, bhi)
    always @(posedge clk) begin
        if (upd) begin
            l_reg[g] <= `SRT_SEL(pick_l, (g == S-1) ? 64'd0 : l_reg[UP], l_reg[g],
                                 (g == 0) ? 64'd0 : l_reg[D1], (g <= 1) ? 64'd0 : l_reg[D2],
                                 i_lo_l, i_hi_l);
            m_reg[g] <= `SRT_SEL(pick_m, (g == S-1) ? {MW{1'b0}} : mark_m(mk_vec[UP], m_reg[UP]),
                                 mark_m(mk_vec[g], m_reg[g]),
                                 (g == 0) ? {MW{1'b0}} : mark_m(mk_vec[D1], m_reg[D1]),
                                 (g <= 1) ? {MW{1'b0}} : mark_m(mk_vec[D2], m_reg[D2]), lo_m, hi_m);
            v_reg[g] <= `SRT_MOVE(v_reg, 1'b1, i_hi_v);
            u_reg[g] <= `SRT_MOVE(u_src, lo_u, hi_u);
            f_reg[g] <= `SRT_MOVE(f_src, lo_f, hi_f);
        end
        // the entries of stage Q reach stage P with their vectors against next cycle's cells
        if (qa_v) begin
            pa_lt[g] <= `SRT_MOVE(xa_lt, ya_lo[2], ya_hi[2]);
            pa_eq[g] <= `SRT_MOVE(xa_eq, ya_lo[1], ya_hi[1]);
            pa_mt[g] <= `SRT_MOVE(xa_mt, ya_lo[0], ya_hi[0]);
        end
        if (qb_v) begin
            pb_lt[g] <= `SRT_MOVE(xb_lt, yb_lo[2], yb_hi[2]);
            pb_eq[g] <= `SRT_MOVE(xb_eq, yb_lo[1], yb_hi[1]);
            pb_mt[g] <= `SRT_MOVE(xb_mt, yb_lo[0], yb_hi[0]);
        end
        // the entries of stage P reach stage I with their vectors against next cycle's cells
        if (pa_v || pb_v) begin
            i_lo_lt[g] <= `SRT_MOVE(x_lo_lt, y_lo[3], y_lo[1]);
            i_lo_eq[g] <= `SRT_MOVE(x_lo_eq, y_lo[2], y_lo[0]);
            i_hi_lt[g] <= `SRT_MOVE(x_hi_lt, y_hi[3], y_hi[1]);
            i_hi_eq[g] <= `SRT_MOVE(x_hi_eq, y_hi[2], y_hi[0]);
        end
        if (rst) v_reg[g] <= 1'b0;
    end
    `undef SRT_MOVE
    `undef SRT_SEL
end
endgenerate

always @(posedge clk) begin
    count_reg <= count_reg + {{SORT_W{1'b0}}, push_valid} + {{SORT_W{1'b0}}, push2_valid}
                           - {{SORT_W{1'b0}}, do_remove};
    // stage Q <- the push ports
    qa_v <= push_valid;
    qb_v <= push2_valid;
    if (push_valid) begin
        qa_l <= push_launch;
        qa_m <= {{RANK_W{1'b0}}, push_queue, push_handle, push_capped, push_latepol, push_urg, push_ustat};
    end
    if (push2_valid) begin
        qb_l <= push2_launch;
        qb_m <= {{RANK_W{1'b0}}, push2_queue, push2_handle, push2_capped, push2_latepol, push2_urg, push2_ustat};
    end
    // stage P <- stage Q (the vectors move in the cell loop)
    pa_v <= qa_v;
    pb_v <= qb_v;
    if (qa_v && qb_v) begin
        p_ab_lt <= qa_l < qb_l;
        p_ab_eq <= qa_l == qb_l;
    end
    if (qa_v) begin
        pa_l  <= qa_l;
        pa_m  <= mark_m(mark_hit(mk_v, mk_q, qa_m), qa_m);
        pa_za <= za_a;
        pa_zb <= za_b;
    end
    if (qb_v) begin
        pb_l  <= qb_l;
        pb_m  <= mark_m(mark_hit(mk_v, mk_q, qb_m), qb_m);
        pb_za <= zb_a;
        pb_zb <= zb_b;
    end
    // stage I <- stage P
    i_lo_v <= pa_v || pb_v;
    i_hi_v <= pa_v && pb_v;
    if (pa_v || pb_v) begin
        i_lo_l <= n_lo_l;
        i_hi_l <= n_hi_l;
        i_lo_m <= n_lo_m;
        i_hi_m <= n_hi_m;
        i_lo_a <= lo_is_a;
    end
    // release order inputs of the last three cycles
    lim1 <= ordb_v ? {AS_W{1'b0}} : scan_lim;
    ov1  <= ordb_v || ord_v;
    ol1  <= ordb_v ? ordb_l : ord_l;
    lim2 <= lim1;      ov2 <= ov1;    ol2 <= ol1;
    lim3 <= lim2;      ov3 <= ov2;    ol3 <= ol2;
    mk_v <= mark_valid;
    mk_q <= mark_queue;
    if (do_remove) begin
        out_valid_reg  <= 1'b1;
        out_l_reg      <= urg_any ? sel_l_c : head_l;
        out_m_reg      <= urg_any ? sel_m_c : m_reg[0];
        out_status_reg <= rem_st;
    end else if (do_byp) begin
        out_valid_reg  <= 1'b1;
        out_l_reg      <= push2_launch;
        out_m_reg      <= byp_m;
        out_status_reg <= byp_st;
    end else if (m_rel_ready) begin
        out_valid_reg  <= 1'b0;
    end
    if (rst) begin
        count_reg     <= {(SORT_W+1){1'b0}};
        out_valid_reg <= 1'b0;
        qa_v          <= 1'b0;
        qb_v          <= 1'b0;
        pa_v          <= 1'b0;
        pb_v          <= 1'b0;
        i_lo_v        <= 1'b0;
        i_hi_v        <= 1'b0;
        lim1          <= {AS_W{1'b0}};
        lim2          <= {AS_W{1'b0}};
        lim3          <= {AS_W{1'b0}};
        ov1           <= 1'b0;
        ov2           <= 1'b0;
        ov3           <= 1'b0;
        mk_v          <= 1'b0;
    end
end

// a flush is done when no FLUSHED entry is left: in the cells, in flight, in the output register,
// or still to be marked
assign count           = count_reg;
assign has_flushed     = (|(v_reg & f_reg)) || mk_v ||
                         (out_valid_reg && out_status_reg == `TSNIC_STATUS_FLUSHED) ||
                         (qa_v && qa_m[O_URG] && qa_m[2:0] == ST_FLUSHED) ||
                         (qb_v && qb_m[O_URG] && qb_m[2:0] == ST_FLUSHED) ||
                         (pa_v && pa_m[O_URG] && pa_m[2:0] == ST_FLUSHED) ||
                         (pb_v && pb_m[O_URG] && pb_m[2:0] == ST_FLUSHED) ||
                         (i_lo_v && i_lo_m[O_URG] && i_lo_m[2:0] == ST_FLUSHED) ||
                         (i_hi_v && i_hi_m[O_URG] && i_hi_m[2:0] == ST_FLUSHED);
assign byp_take        = do_byp;
assign m_rel_valid     = out_valid_reg;
assign m_rel_queue     = out_m_reg[O_Q +: QUEUE_W];
assign m_rel_handle    = out_m_reg[O_HND +: HANDLE_W];
assign m_rel_launch_ns = out_l_reg;
assign m_rel_status    = out_status_reg;
assign m_rel_capped    = out_m_reg[O_CAP];

endmodule

`resetall
