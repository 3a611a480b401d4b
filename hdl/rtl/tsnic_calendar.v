// tsnic_calendar: the time-scheduled transmit calendar (timing wheel).
//
// Takes entries (queue, handle, launch_ns, policies) and releases each one exactly once: on the
// release port when phc_ns + lookahead_ns >= launch_ns (SENT / SENT_LATE / DROPPED_LATE, decided at
// release against phc_ns), or as an urgent completion (DROPPED_LATE / DROPPED_HORIZON decided on
// insert, FLUSHED by a queue flush). See docs/CALENDAR.md for the design and its guarantees.
//
// Structure
//   * node pool (2^NODE_W entries) in block RAM: payload, next pointer, state (FREE/LIVE/DEAD);
//     free nodes come from a bump counter, then from a free-list FIFO (block RAM).
//   * fine wheel: 2^SLOT_W slots of 2^SLOT_NS_W ns, each a FIFO linked list {valid, head, tail};
//     holds absolute slots [scan, fine_limit), fine_limit - scan <= 2^SLOT_W.
//   * coarse wheel: 2^CSLOT_W slots of 2^(SLOT_W-1) fine slots each (default 262 us, 17.2 s span);
//     a coarse slot is cascaded into the fine wheel (in FIFO order) before the scan reaches it.
//   * release buffer (tsnic_calendar_sorter): 2^SORT_W cells sorted by (launch_ns, rank); the
//     loader moves slot `scan` into it, slot by slot; an entry leaves only when due and when its
//     slot has been loaded completely, so order is exact while a slot fits in the buffer.
//   * one sequencer owns every RAM write port, so list operations never race; it serves insert,
//     load, cascade and flush-sweep round robin (2, 4, 4 and 2 cycles per operation).
`resetall
`timescale 1ns / 1ps
`default_nettype none

module tsnic_calendar #(
    parameter QUEUE_W    = 12,                // 2^QUEUE_W queues
    parameter NODE_W     = 16,                // 2^NODE_W entries in the node pool
    parameter HANDLE_W   = 16,                // opaque handle, carried through
    parameter SLOT_NS_W  = 6,                 // fine slot = 2^SLOT_NS_W ns (64 ns)
    parameter SLOT_W     = 13,                // 2^SLOT_W fine slots (8192 x 64 ns = 524 us)
    parameter CSLOT_W    = 16,                // 2^CSLOT_W coarse slots of 2^(SLOT_W-1) fine slots
    parameter [63:0] HORIZON_NS = 64'd10_000_000_000,
    parameter DEFAULT_QUOTA = (1 << NODE_W) / 4,  // per-queue node quota when cfg value is 0
    parameter SORT_W     = 5,                 // release buffer: 2^SORT_W cells
    parameter RANK_W     = 4,                 // tie rounds counted exactly up to 2^RANK_W - 1
    parameter GROUP_W    = 6,                 // fine slots per occupancy counter = 2^GROUP_W
    parameter CGROUP_W   = 6                  // 2^CGROUP_W occupancy counters over the coarse ring
) (
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
    output wire [31:0]          stat_forced,     // releases made in overflow mode (order not exact)
    output wire                 stat_init_busy   // RAM clear after reset in progress
);

`include "tsnic_contract.vh"

localparam AS_W   = 64 - SLOT_NS_W;          // absolute fine slot number width
localparam CWB    = SLOT_W - 1;               // coarse slot = 2^CWB fine slots
localparam AC_W   = AS_W - CWB;               // absolute coarse slot number width
localparam SL_W   = 1 + 2*NODE_W;             // slot word {valid, head, tail}
localparam ND_W   = 66 + HANDLE_W + QUEUE_W;  // node payload {launch, queue, handle, capped, latepol}
localparam INIT_W = (CSLOT_W > SLOT_W) ? ((CSLOT_W > QUEUE_W) ? CSLOT_W : QUEUE_W)
                                       : ((SLOT_W > QUEUE_W) ? SLOT_W : QUEUE_W);
localparam [AS_W-1:0] N_SLOTS = {{(AS_W-SLOT_W-1){1'b0}}, 1'b1, {SLOT_W{1'b0}}};
localparam [NODE_W:0] POOL    = {1'b1, {NODE_W{1'b0}}};
localparam [NODE_W:0] DEF_Q   = DEFAULT_QUOTA;

localparam [7:0] ST8_DROP_LATE = `TSNIC_STATUS_DROPPED_LATE;
localparam [7:0] ST8_DROP_HOR  = `TSNIC_STATUS_DROPPED_HORIZON;
localparam [7:0] ST8_FLUSHED   = `TSNIC_STATUS_FLUSHED;
localparam [2:0] US_DROP_LATE  = ST8_DROP_LATE[2:0];
localparam [2:0] US_DROP_HOR   = ST8_DROP_HOR[2:0];
localparam [2:0] US_FLUSHED    = ST8_FLUSHED[2:0];

localparam [1:0] NS_FREE = 2'd0, NS_LIVE = 2'd1, NS_DEAD = 2'd2;

// insert classes
localparam [2:0] C_URG = 3'd0, C_SORT = 3'd1, C_FINE = 3'd2, C_COARSE = 3'd3, C_STALL = 3'd4;

// sequencer states
localparam [3:0] S_INIT = 4'd0, S_IDLE = 4'd1, S_INS1 = 4'd2, S_LD1 = 4'd3, S_LDB = 4'd4,
                 S_LDE = 4'd5, S_CS1 = 4'd6, S_CS2 = 4'd7, S_CS3 = 4'd8, S_SWB = 4'd9,
                 S_FST = 4'd10;

// burst lengths: the loader pops up to LD_BURST entries of one slot at one per cycle, the flush
// sweep visits up to SW_BURST nodes at one per cycle, before the round robin moves on
localparam LD_BURST = 16;
localparam SW_BURST = 64;
localparam CS_BURST = 64;
localparam NG_W     = SLOT_W - GROUP_W;       // fine-slot groups, each with an entry counter
localparam CGS_W    = CSLOT_W - CGROUP_W;     // coarse slots per coarse group = 2^CGS_W
localparam [SORT_W:0] SRT_LAST = (1 << SORT_W) - 1;

// ------------------------------------------------------------------ state
reg  [3:0]        st;
reg  [INIT_W:0]   init_ptr;
reg  [AS_W-1:0]   scan;
reg  [AC_W-1:0]   ccur;
reg  [NODE_W:0]   fcount;
reg  [NODE_W:0]   ccount;
reg  [NODE_W:0]   bump;
reg  [NODE_W-1:0] free_rd;
reg  [NODE_W-1:0] free_wr;
reg  [NODE_W:0]   free_cnt;
reg  [NODE_W:0]   occ;
reg  [31:0]       forced_cnt;
reg               scan_empty_known;
reg               rewind_req;
reg  [1:0]        rr;
reg               fl_active;
reg  [QUEUE_W-1:0] fl_q;
reg  [NODE_W:0]   sw_ptr;
reg  [6:0]        burst;
reg               dq_valid;      // loader: qcount read issued last cycle for queue dq_q
reg  [QUEUE_W-1:0] dq_q;
reg               wq_valid;      // loader: qcount written last cycle (forwarding)
reg  [QUEUE_W-1:0] wq_q;
reg  [NODE_W:0]   wq_val;
reg  [(1<<GROUP_W)-1:0] fbits [0:(1<<NG_W)-1];  // fine slot non-empty bits, one word per group
reg  [NODE_W:0]   cgcnt [0:(1<<CGROUP_W)-1]; // entries per group of 2^CGS_W coarse ring slots
reg  [NODE_W:0]   sw_lim;
reg               flush_done_reg;

// operation context
reg  [2:0]        i_cls;
reg  [63:0]       i_launch;
reg               i_capped;
reg  [2:0]        i_ustat;
reg  [NODE_W-1:0] op_head;
reg  [NODE_W-1:0] op_tail;
reg  [NODE_W-1:0] op_next;
reg  [SLOT_W-1:0] op_fidx;

// ------------------------------------------------------------------ RAMs
reg  [SLOT_W-1:0]  fs_ra;  wire [SL_W-1:0] fs_rd;
reg                fs_we;  reg [SLOT_W-1:0] fs_wa;   reg [SL_W-1:0] fs_wd;
reg  [CSLOT_W-1:0] cs_ra;  wire [SL_W-1:0] cs_rd;
reg                cs_we;  reg [CSLOT_W-1:0] cs_wa;  reg [SL_W-1:0] cs_wd;
reg  [NODE_W-1:0]  nd_ra;  wire [ND_W-1:0] nd_rd;
reg                nd_we;  reg [NODE_W-1:0] nd_wa;   reg [ND_W-1:0] nd_wd;
reg  [NODE_W-1:0]  nx_ra;  wire [NODE_W-1:0] nx_rd;
reg                nx_we;  reg [NODE_W-1:0] nx_wa;   reg [NODE_W-1:0] nx_wd;
reg  [NODE_W-1:0]  ns_ra;  wire [1:0] ns_rd;
reg                ns_we;  reg [NODE_W-1:0] ns_wa;   reg [1:0] ns_wd;
reg  [NODE_W-1:0]  fr_ra;  wire [NODE_W-1:0] fr_rd;
reg                fr_we;  reg [NODE_W-1:0] fr_wa;   reg [NODE_W-1:0] fr_wd;
reg  [QUEUE_W-1:0] qc_ra;  wire [NODE_W:0] qc_rd;
reg                qc_we;  reg [QUEUE_W-1:0] qc_wa;  reg [NODE_W:0] qc_wd;
reg  [QUEUE_W-1:0] qq_ra;  wire [NODE_W:0] qq_rd;
reg                qq_we;  reg [QUEUE_W-1:0] qq_wa;  reg [NODE_W:0] qq_wd;

tsnic_calendar_ram #(.WIDTH(SL_W),   .ADDR_W(SLOT_W))  u_fslot (.clk(clk), .wr_en(fs_we), .wr_addr(fs_wa), .wr_data(fs_wd), .rd_addr(fs_ra), .rd_data(fs_rd));
tsnic_calendar_ram #(.WIDTH(SL_W),   .ADDR_W(CSLOT_W)) u_cslot (.clk(clk), .wr_en(cs_we), .wr_addr(cs_wa), .wr_data(cs_wd), .rd_addr(cs_ra), .rd_data(cs_rd));
tsnic_calendar_ram #(.WIDTH(ND_W),   .ADDR_W(NODE_W))  u_ndata (.clk(clk), .wr_en(nd_we), .wr_addr(nd_wa), .wr_data(nd_wd), .rd_addr(nd_ra), .rd_data(nd_rd));
tsnic_calendar_ram #(.WIDTH(NODE_W), .ADDR_W(NODE_W))  u_nnext (.clk(clk), .wr_en(nx_we), .wr_addr(nx_wa), .wr_data(nx_wd), .rd_addr(nx_ra), .rd_data(nx_rd));
tsnic_calendar_ram #(.WIDTH(2),      .ADDR_W(NODE_W))  u_nstate(.clk(clk), .wr_en(ns_we), .wr_addr(ns_wa), .wr_data(ns_wd), .rd_addr(ns_ra), .rd_data(ns_rd));
tsnic_calendar_ram #(.WIDTH(NODE_W), .ADDR_W(NODE_W))  u_free  (.clk(clk), .wr_en(fr_we), .wr_addr(fr_wa), .wr_data(fr_wd), .rd_addr(fr_ra), .rd_data(fr_rd));
tsnic_calendar_ram #(.WIDTH(NODE_W+1), .ADDR_W(QUEUE_W)) u_qcount(.clk(clk), .wr_en(qc_we), .wr_addr(qc_wa), .wr_data(qc_wd), .rd_addr(qc_ra), .rd_data(qc_rd));
tsnic_calendar_ram #(.WIDTH(NODE_W+1), .ADDR_W(QUEUE_W)) u_quota (.clk(clk), .wr_en(qq_we), .wr_addr(qq_wa), .wr_data(qq_wd), .rd_addr(qq_ra), .rd_data(qq_rd));

// RAM word fields
wire              fs_v    = fs_rd[SL_W-1];
wire [NODE_W-1:0] fs_head = fs_rd[2*NODE_W-1:NODE_W];
wire [NODE_W-1:0] fs_tail = fs_rd[NODE_W-1:0];
wire              cs_v    = cs_rd[SL_W-1];
wire [NODE_W-1:0] cs_head = cs_rd[2*NODE_W-1:NODE_W];
wire [NODE_W-1:0] cs_tail = cs_rd[NODE_W-1:0];
wire [63:0]          nd_launch = nd_rd[ND_W-1 -: 64];
wire [QUEUE_W-1:0]   nd_queue  = nd_rd[HANDLE_W+2 +: QUEUE_W];
wire [HANDLE_W-1:0]  nd_handle = nd_rd[2 +: HANDLE_W];
wire                 nd_capped = nd_rd[1];
wire                 nd_latepol = nd_rd[0];

// ------------------------------------------------------------------ time
wire [63:0]     now_l      = phc_ns + {32'd0, lookahead_ns};
wire [AS_W-1:0] due_slot   = now_l[63:SLOT_NS_W];
wire [63:0]     phc_h      = phc_ns + HORIZON_NS;
wire [AS_W-1:0] fine_limit = {ccur, {CWB{1'b0}}};
wire [AC_W-1:0] ccur_end   = ccur + {{(AC_W-CSLOT_W-1){1'b0}}, 1'b1, {CSLOT_W{1'b0}}};
wire [AS_W-1:0] coarse_limit = {ccur_end, {CWB{1'b0}}};
wire [AS_W-1:0] scan_n     = scan + N_SLOTS;
wire [AC_W-1:0] ccur_p1    = ccur + 1'b1;
wire [AS_W-1:0] due_p1     = due_slot + 1'b1;

// ------------------------------------------------------------------ insert classification
wire            i_late   = s_ins_launch_ns < phc_ns;
wire            i_beyond = s_ins_launch_ns > phc_h;
wire            i_cap    = i_beyond && (s_ins_horizon_policy == `TSNIC_HORIZON_POLICY_CAP);
wire [63:0]     i_eff    = i_cap ? phc_h : s_ins_launch_ns;
wire [AS_W-1:0] i_slot   = i_eff[63:SLOT_NS_W];
reg  [2:0]      i_cls_c;
reg  [2:0]      i_ustat_c;
always @* begin
    i_ustat_c = 3'd0;
    if (fl_active && s_ins_queue == fl_q) begin
        i_cls_c = C_URG; i_ustat_c = US_FLUSHED;
    end else if (i_late && s_ins_late_policy == `TSNIC_LATE_POLICY_DROP) begin
        i_cls_c = C_URG; i_ustat_c = US_DROP_LATE;
    end else if (i_beyond && !i_cap) begin
        i_cls_c = C_URG; i_ustat_c = US_DROP_HOR;
    end else if (i_slot < scan) begin
        i_cls_c = C_SORT;
    end else if (i_slot < fine_limit) begin
        i_cls_c = C_FINE;
    end else if (i_slot < coarse_limit) begin
        i_cls_c = C_COARSE;
    end else begin
        i_cls_c = C_STALL;
    end
end

// ------------------------------------------------------------------ sorter
wire [SORT_W:0] srt_count;
wire            srt_room = !srt_count[SORT_W];
wire            srt_has_flushed;
wire            srt_forced;
reg             sp_valid;
reg  [63:0]     sp_launch;
reg  [QUEUE_W-1:0] sp_queue;
reg  [HANDLE_W-1:0] sp_handle;
reg             sp_capped;
reg             sp_latepol;
reg             sp_urg;
reg  [2:0]      sp_ustat;
reg             mark_valid;

tsnic_calendar_sorter #(
    .SORT_W(SORT_W), .QUEUE_W(QUEUE_W), .HANDLE_W(HANDLE_W), .RANK_W(RANK_W), .SLOT_NS_W(SLOT_NS_W)
) u_sorter (
    .clk(clk), .rst(rst),
    .phc_ns(phc_ns), .now_l(now_l), .scan_lim(scan),
    .push_valid(sp_valid), .push_launch(sp_launch), .push_queue(sp_queue), .push_handle(sp_handle),
    .push_capped(sp_capped), .push_latepol(sp_latepol), .push_urg(sp_urg), .push_ustat(sp_ustat),
    .mark_valid(mark_valid), .mark_queue(s_flush_queue),
    .count(srt_count), .has_flushed(srt_has_flushed), .forced(srt_forced),
    .m_rel_valid(m_rel_valid), .m_rel_ready(m_rel_ready), .m_rel_queue(m_rel_queue),
    .m_rel_handle(m_rel_handle), .m_rel_launch_ns(m_rel_launch_ns), .m_rel_status(m_rel_status),
    .m_rel_capped(m_rel_capped)
);

// ------------------------------------------------------------------ sequencer decisions
wire [NODE_W:0] quota_eff = (qq_rd == {(NODE_W+1){1'b0}}) ? DEF_Q : qq_rd;
wire            node_avail = (free_cnt != {(NODE_W+1){1'b0}}) || (bump != POOL);
wire [NODE_W-1:0] alloc_node = (free_cnt != {(NODE_W+1){1'b0}}) ? fr_rd : bump[NODE_W-1:0];
reg             ins_ok;
always @* begin
    case (i_cls)
        C_URG, C_SORT:     ins_ok = srt_room;
        C_FINE, C_COARSE:  ins_ok = node_avail && (qc_rd < quota_eff);
        default:           ins_ok = 1'b0;
    endcase
end

wire r_ins = s_ins_valid;
wire r_ld  = (scan < fine_limit) && srt_room && (fcount != {(NODE_W+1){1'b0}}) &&
             ((scan <= due_slot) || (scan == due_p1 && !scan_empty_known));
wire r_cs  = (ccount != {(NODE_W+1){1'b0}}) && ({ccur_p1, {CWB{1'b0}}} <= scan_n);
wire r_sw  = fl_active && (sw_ptr < sw_lim) && srt_room;

// IDLE housekeeping
wire act_fin    = fl_active && (sw_ptr == sw_lim) && !srt_has_flushed;
wire act_fstart = s_flush_valid && !fl_active;
wire both_empty = (fcount == {(NODE_W+1){1'b0}}) && (ccount == {(NODE_W+1){1'b0}});
wire act_jump   = both_empty && (scan < due_p1);
wire [AS_W-1:0] fskip_t = (due_p1 < fine_limit) ? due_p1 : fine_limit;
wire act_fskip  = (fcount == {(NODE_W+1){1'b0}}) && (scan < fskip_t);
wire [AC_W-1:0] scan_n_sh = scan_n[AS_W-1:CWB];
wire [AC_W-1:0] cskip_t = scan_n_sh - 1'b1;
wire act_cskip  = (ccount == {(NODE_W+1){1'b0}}) && (cskip_t > ccur);
wire [AS_W-1:0] rw_floor = (fine_limit > N_SLOTS) ? (fine_limit - N_SLOTS) : {AS_W{1'b0}};
wire [AS_W-1:0] rw_t    = (due_p1 > rw_floor) ? due_p1 : rw_floor;
wire [AC_W-1:0] jump_c  = due_p1[AS_W-1:CWB];
wire [AC_W-1:0] jump_cc = jump_c + 1'b1;

// round robin choice among INS(0) LD(1) CS(2) SW(3)
wire [3:0] req = {r_sw, r_cs, r_ld, r_ins};
reg  [1:0] pick;
reg        pick_v;
reg  [1:0] pidx;
integer j;
always @* begin
    pick = 2'd0; pick_v = 1'b0;
    for (j = 3; j >= 0; j = j - 1) begin
        pidx = rr + j[1:0];
        if (req[pidx]) begin
            pick = pidx; pick_v = 1'b1;
        end
    end
end

// fine-slot group occupancy: skip a whole empty group at once
wire [NG_W-1:0] scan_g    = scan[SLOT_W-1:GROUP_W];
wire [(1<<GROUP_W)-1:0] g_word = fbits[scan_g];
wire [(1<<GROUP_W)-1:0] g_rest = g_word & ({(1<<GROUP_W){1'b1}} << scan[GROUP_W-1:0]);
reg  [GROUP_W-1:0] g_next;       // first non-empty slot at or after scan in its group
integer gb;
always @* begin
    g_next = {GROUP_W{1'b0}};
    for (gb = (1<<GROUP_W)-1; gb >= 0; gb = gb - 1) begin
        if (g_rest[gb]) g_next = gb[GROUP_W-1:0];
    end
end
wire [AS_W-GROUP_W-1:0] scan_gn = scan[AS_W-1:GROUP_W] + 1'b1;
wire [AS_W-1:0] g_end     = {scan_gn, {GROUP_W{1'b0}}};
wire [AS_W-1:0] g_hit     = {scan[AS_W-1:GROUP_W], g_next};
wire [AS_W-1:0] g_tgt     = (g_rest == {(1<<GROUP_W){1'b0}}) ? g_end : g_hit;
wire [AS_W-1:0] gskip_t   = (g_tgt < fskip_t) ? g_tgt : fskip_t;
// skip empty fine slots (up to the next non-empty one, the group end, due_slot+1 or the fine limit)
wire            act_gskip = (fcount != {(NODE_W+1){1'b0}}) && !g_word[scan[GROUP_W-1:0]] && (scan < gskip_t);
// cascade: empty coarse slots pass at one per cycle while the fine wheel is empty
wire [AS_W-1:0] fl_next   = {ccur_p1, {CWB{1'b0}}};
wire            cs_more   = (fcount == {(NODE_W+1){1'b0}}) && (due_p1 >= fl_next) &&
                            (burst != CS_BURST - 1) && (ccount != {(NODE_W+1){1'b0}});

// coarse group occupancy: with the fine wheel empty, pass a whole empty coarse group at once
wire [CGROUP_W-1:0] ccur_g = ccur[CSLOT_W-1:CGS_W];
wire            cg_empty  = (cgcnt[ccur_g] == {(NODE_W+1){1'b0}});
wire [AC_W-CGS_W-1:0] ccur_gn = ccur[AC_W-1:CGS_W] + 1'b1;
wire [AC_W-1:0] cg_end    = {ccur_gn, {CGS_W{1'b0}}};
wire [AC_W-1:0] cg_lim    = due_p1[AS_W-1:CWB];          // fine limit may not pass due_p1
wire [AC_W-1:0] cgskip_t  = (cg_end < cg_lim) ? cg_end : cg_lim;
wire            act_cgskip = (fcount == {(NODE_W+1){1'b0}}) && (ccount != {(NODE_W+1){1'b0}}) &&
                             cg_empty && (cgskip_t > ccur);
wire idle_house = act_fin || act_fstart || rewind_req || act_jump || act_fskip || act_cskip || act_gskip || act_cgskip;
wire go_ins = (st == S_IDLE) && !idle_house && pick_v && pick == 2'd0;

wire ins_hs = (st == S_INS1) && ins_ok;   // handshake this cycle (s_ins_valid is held by AXI rules)

// loader burst: continue with the next node of the slot?
wire            ld_more  = (op_head != op_tail) && (burst != LD_BURST - 1) && (srt_count < SRT_LAST);
wire [NODE_W:0] dq_base  = (wq_valid && wq_q == dq_q) ? wq_val : qc_rd;
// sweep burst
wire [NODE_W:0] sw_ptr_p1 = sw_ptr + 1'b1;
wire            sw_more  = (sw_ptr_p1 < sw_lim) && (burst != SW_BURST - 1) && (srt_count < SRT_LAST);

// ------------------------------------------------------------------ RAM port control
always @* begin
    fs_ra = scan[SLOT_W-1:0];
    cs_ra = ccur[CSLOT_W-1:0];
    nd_ra = sw_ptr[NODE_W-1:0];
    nx_ra = fs_head;
    ns_ra = sw_ptr[NODE_W-1:0];
    fr_ra = free_rd;
    qc_ra = s_ins_queue;
    qq_ra = s_ins_queue;
    fs_we = 1'b0; fs_wa = op_fidx; fs_wd = {SL_W{1'b0}};
    cs_we = 1'b0; cs_wa = ccur[CSLOT_W-1:0]; cs_wd = {SL_W{1'b0}};
    nd_we = 1'b0; nd_wa = alloc_node; nd_wd = {i_launch, s_ins_queue, s_ins_handle, i_capped, s_ins_late_policy};
    nx_we = 1'b0; nx_wa = fs_tail; nx_wd = alloc_node;
    ns_we = 1'b0; ns_wa = alloc_node; ns_wd = NS_LIVE;
    fr_we = 1'b0; fr_wa = free_wr; fr_wd = op_head;
    qc_we = 1'b0; qc_wa = s_ins_queue; qc_wd = qc_rd + 1'b1;
    qq_we = cfg_quota_wr; qq_wa = cfg_quota_queue; qq_wd = cfg_quota_value;
    sp_valid = 1'b0; sp_launch = i_launch; sp_queue = s_ins_queue; sp_handle = s_ins_handle;
    sp_capped = i_capped; sp_latepol = s_ins_late_policy; sp_urg = 1'b0; sp_ustat = i_ustat;
    mark_valid = 1'b0;

    case (st)
        S_INIT: begin
            fs_we = 1'b1; fs_wa = init_ptr[SLOT_W-1:0];
            cs_we = 1'b1; cs_wa = init_ptr[CSLOT_W-1:0];
            qc_we = 1'b1; qc_wa = init_ptr[QUEUE_W-1:0]; qc_wd = {(NODE_W+1){1'b0}};
            qq_we = 1'b1; qq_wa = init_ptr[QUEUE_W-1:0]; qq_wd = {(NODE_W+1){1'b0}};
        end
        S_IDLE: begin
            if (go_ins) begin
                fs_ra = i_slot[SLOT_W-1:0];
                cs_ra = i_slot[CWB +: CSLOT_W];
            end
        end
        S_FST: begin
            mark_valid = 1'b1;
        end
        S_INS1: begin
            if (ins_ok) begin
                if (i_cls == C_URG || i_cls == C_SORT) begin
                    sp_valid = 1'b1;
                    sp_urg   = (i_cls == C_URG);
                end else begin
                    nd_we = 1'b1;
                    ns_we = 1'b1;
                    qc_we = 1'b1;
                    if (i_cls == C_FINE) begin
                        fs_we = 1'b1; fs_wa = op_fidx;
                        fs_wd = fs_v ? {1'b1, fs_head, alloc_node} : {1'b1, alloc_node, alloc_node};
                        nx_we = fs_v; nx_wa = fs_tail;
                    end else begin
                        cs_we = 1'b1; cs_wa = i_launch[SLOT_NS_W+CWB +: CSLOT_W];
                        cs_wd = cs_v ? {1'b1, cs_head, alloc_node} : {1'b1, alloc_node, alloc_node};
                        nx_we = cs_v; nx_wa = cs_tail;
                    end
                end
            end
        end
        S_LD1: begin
            nd_ra = fs_head; nx_ra = fs_head; ns_ra = fs_head;
        end
        S_LDB: begin
            // node op_head is on the RAM outputs: hand it to the sorter, free it
            if (ns_rd == NS_LIVE) begin
                sp_valid = 1'b1; sp_launch = nd_launch; sp_queue = nd_queue; sp_handle = nd_handle;
                sp_capped = nd_capped; sp_latepol = nd_latepol;
                sp_urg = fl_active && (nd_queue == fl_q); sp_ustat = US_FLUSHED;
            end
            ns_we = 1'b1; ns_wa = op_head; ns_wd = NS_FREE;
            fr_we = 1'b1; fr_wa = free_wr; fr_wd = op_head;
            qc_ra = nd_queue;
            qc_we = dq_valid; qc_wa = dq_q; qc_wd = dq_base - 1'b1;
            if (ld_more) begin
                nd_ra = nx_rd; nx_ra = nx_rd; ns_ra = nx_rd;
            end else begin
                fs_we = 1'b1; fs_wa = op_fidx;
                fs_wd = (op_head == op_tail) ? {SL_W{1'b0}} : {1'b1, nx_rd, op_tail};
            end
        end
        S_LDE: begin
            qc_we = dq_valid; qc_wa = dq_q; qc_wd = dq_base - 1'b1;
        end
        S_CS1: begin
            nd_ra = cs_head; nx_ra = cs_head;
            cs_ra = ccur_p1[CSLOT_W-1:0];     // next coarse slot, for an empty-slot burst
        end
        S_CS2: begin
            fs_ra = nd_launch[SLOT_NS_W +: SLOT_W];
        end
        S_CS3: begin
            fs_we = 1'b1; fs_wa = op_fidx;
            fs_wd = fs_v ? {1'b1, fs_head, op_head} : {1'b1, op_head, op_head};
            nx_we = fs_v; nx_wa = fs_tail; nx_wd = op_head;
            cs_we = 1'b1; cs_wa = ccur[CSLOT_W-1:0];
            cs_wd = (op_head == op_tail) ? {SL_W{1'b0}} : {1'b1, op_next, op_tail};
        end
        S_SWB: begin
            // node sw_ptr is on the RAM outputs; the read of sw_ptr + 1 goes out now
            if (ns_rd == NS_LIVE && nd_queue == fl_q) begin
                sp_valid = 1'b1; sp_launch = nd_launch; sp_queue = nd_queue; sp_handle = nd_handle;
                sp_capped = nd_capped; sp_latepol = nd_latepol; sp_urg = 1'b1; sp_ustat = US_FLUSHED;
                ns_we = 1'b1; ns_wa = sw_ptr[NODE_W-1:0]; ns_wd = NS_DEAD;
            end
            nd_ra = sw_ptr_p1[NODE_W-1:0]; ns_ra = sw_ptr_p1[NODE_W-1:0];
        end
        default: begin end
    endcase
end

// ------------------------------------------------------------------ group counters
reg             g_set;
reg             g_clr;
wire [NG_W-1:0] g_idx = op_fidx[SLOT_W-1:GROUP_W];
wire [(1<<GROUP_W)-1:0] g_bit = {{((1<<GROUP_W)-1){1'b0}}, 1'b1} << op_fidx[GROUP_W-1:0];
always @* begin
    g_set = ((st == S_INS1) && ins_ok && (i_cls == C_FINE)) || (st == S_CS3);
    g_clr = (st == S_LDB) && !ld_more && (op_head == op_tail);      // slot emptied
end
always @(posedge clk) begin
    if (st == S_INIT) begin
        fbits[init_ptr[NG_W-1:0]] <= {(1<<GROUP_W){1'b0}};   // INIT runs >= 2^NG_W cycles
    end else if (g_set) begin
        fbits[g_idx] <= fbits[g_idx] | g_bit;
    end else if (g_clr) begin
        fbits[g_idx] <= fbits[g_idx] & ~g_bit;
    end
end

wire [CGROUP_W-1:0] cg_idx = (st == S_INS1) ? i_launch[SLOT_NS_W+CWB+CGS_W +: CGROUP_W] : ccur_g;
wire            cg_inc = (st == S_INS1) && ins_ok && (i_cls == C_COARSE);
wire            cg_dec = (st == S_CS3);
always @(posedge clk) begin
    if (st == S_INIT) begin
        cgcnt[init_ptr[CGROUP_W-1:0]] <= {(NODE_W+1){1'b0}};
    end else if (cg_inc) begin
        cgcnt[cg_idx] <= cgcnt[cg_idx] + 1'b1;
    end else if (cg_dec) begin
        cgcnt[cg_idx] <= cgcnt[cg_idx] - 1'b1;
    end
end

// ------------------------------------------------------------------ sequencer
always @(posedge clk) begin
    flush_done_reg <= 1'b0;
    if (phc_step) rewind_req <= 1'b1;
    if (srt_forced) forced_cnt <= forced_cnt + 1'b1;
    occ <= occ + {{NODE_W{1'b0}}, ins_hs} - {{NODE_W{1'b0}}, (m_rel_valid && m_rel_ready)};

    case (st)
        S_INIT: begin
            init_ptr <= init_ptr + 1'b1;
            if (init_ptr == {1'b0, {INIT_W{1'b1}}}) st <= S_IDLE;
        end
        S_IDLE: begin
            if (act_fin) begin
                fl_active <= 1'b0;
                flush_done_reg <= 1'b1;
            end else if (act_fstart) begin
                st <= S_FST;
            end else if (rewind_req) begin
                rewind_req <= phc_step;
                if (rw_t < scan) begin
                    scan <= rw_t;
                    scan_empty_known <= 1'b0;
                end
            end else if (act_jump) begin
                scan <= due_p1;
                scan_empty_known <= 1'b0;
                if (jump_cc > ccur) ccur <= jump_cc;
            end else if (act_fskip) begin
                scan <= fskip_t;
                scan_empty_known <= 1'b0;
            end else if (act_cskip) begin
                ccur <= cskip_t;
            end else if (act_gskip) begin
                scan <= gskip_t;
                scan_empty_known <= 1'b0;
            end else if (act_cgskip) begin
                ccur <= cgskip_t;
                scan <= {cgskip_t, {CWB{1'b0}}};
                scan_empty_known <= 1'b0;
            end else if (pick_v) begin
                rr <= pick + 1'b1;
                case (pick)
                    2'd0: begin
                        st <= S_INS1;
                        i_cls <= i_cls_c;
                        i_launch <= i_eff;
                        i_capped <= i_cap;
                        i_ustat <= i_ustat_c;
                        op_fidx <= i_slot[SLOT_W-1:0];
                    end
                    2'd1: begin
                        st <= S_LD1;
                        op_fidx <= scan[SLOT_W-1:0];
                    end
                    2'd2: begin
                        st <= S_CS1;
                        burst <= 7'd0;
                    end
                    default: begin
                        st <= S_SWB;
                        burst <= 7'd0;
                    end
                endcase
            end
        end
        S_INS1: begin
            st <= S_IDLE;
            if (ins_ok && (i_cls == C_FINE || i_cls == C_COARSE)) begin
                if (free_cnt != {(NODE_W+1){1'b0}}) begin
                    free_rd  <= free_rd + 1'b1;
                    free_cnt <= free_cnt - 1'b1;
                end else begin
                    bump <= bump + 1'b1;
                end
                if (i_cls == C_FINE) begin
                    fcount <= fcount + 1'b1;
                    if (op_fidx == scan[SLOT_W-1:0]) scan_empty_known <= 1'b0;
                end else begin
                    ccount <= ccount + 1'b1;
                end
            end
        end
        S_LD1: begin
            if (!fs_v) begin
                st <= S_IDLE;
                if (scan <= due_slot) begin
                    scan <= scan + 1'b1;
                    scan_empty_known <= 1'b0;
                end else begin
                    scan_empty_known <= 1'b1;
                end
            end else begin
                st <= S_LDB;
                op_head <= fs_head;
                op_tail <= fs_tail;
                burst <= 7'd0;
                dq_valid <= 1'b0;
                wq_valid <= 1'b0;
            end
        end
        S_LDB: begin
            free_wr  <= free_wr + 1'b1;
            free_cnt <= free_cnt + 1'b1;
            fcount   <= fcount - 1'b1;
            burst    <= burst + 1'b1;
            dq_valid <= 1'b1;
            dq_q     <= nd_queue;
            wq_valid <= dq_valid;
            wq_q     <= dq_q;
            wq_val   <= dq_base - 1'b1;
            if (ld_more) begin
                op_head <= nx_rd;
            end else begin
                st <= S_LDE;
            end
        end
        S_LDE: begin
            st <= S_IDLE;
            dq_valid <= 1'b0;
            wq_valid <= 1'b0;
        end
        S_CS1: begin
            if (!cs_v) begin
                ccur <= ccur_p1;
                burst <= burst + 1'b1;
                if (cs_more) begin
                    scan <= fl_next;          // fine wheel empty: keep scan at the fine limit
                    scan_empty_known <= 1'b0;
                end else begin
                    st <= S_IDLE;
                end
            end else begin
                st <= S_CS2;
                op_head <= cs_head;
                op_tail <= cs_tail;
            end
        end
        S_CS2: begin
            st <= S_CS3;
            op_next <= nx_rd;
            op_fidx <= nd_launch[SLOT_NS_W +: SLOT_W];
        end
        S_CS3: begin
            st <= S_IDLE;
            fcount <= fcount + 1'b1;
            ccount <= ccount - 1'b1;
            if (op_fidx == scan[SLOT_W-1:0]) scan_empty_known <= 1'b0;
        end
        S_FST: begin
            // s_flush_ready is high in this state only (s_flush_valid was seen in IDLE)
            st <= S_IDLE;
            fl_active <= 1'b1;
            fl_q <= s_flush_queue;
            sw_ptr <= {(NODE_W+1){1'b0}};
            sw_lim <= bump;
        end
        S_SWB: begin
            sw_ptr <= sw_ptr_p1;
            burst  <= burst + 1'b1;
            if (!sw_more) st <= S_IDLE;
        end
        default: st <= S_IDLE;
    endcase

    if (rst) begin
        st <= S_INIT;
        init_ptr <= {(INIT_W+1){1'b0}};
        scan <= {AS_W{1'b0}};
        ccur <= {AC_W{1'b0}};
        fcount <= {(NODE_W+1){1'b0}};
        ccount <= {(NODE_W+1){1'b0}};
        bump <= {(NODE_W+1){1'b0}};
        free_rd <= {NODE_W{1'b0}};
        free_wr <= {NODE_W{1'b0}};
        free_cnt <= {(NODE_W+1){1'b0}};
        occ <= {(NODE_W+1){1'b0}};
        forced_cnt <= 32'd0;
        scan_empty_known <= 1'b0;
        rewind_req <= 1'b0;
        rr <= 2'd0;
        fl_active <= 1'b0;
        fl_q <= {QUEUE_W{1'b0}};
        sw_ptr <= {(NODE_W+1){1'b0}};
        sw_lim <= {(NODE_W+1){1'b0}};
        flush_done_reg <= 1'b0;
        burst <= 7'd0;
        dq_valid <= 1'b0;
        dq_q <= {QUEUE_W{1'b0}};
        wq_valid <= 1'b0;
        wq_q <= {QUEUE_W{1'b0}};
        wq_val <= {(NODE_W+1){1'b0}};
    end
end

assign s_ins_ready    = ins_hs;
assign s_flush_ready  = (st == S_FST);
assign flush_done     = flush_done_reg;
assign stat_occupancy = occ;
assign stat_forced    = forced_cnt;
assign stat_init_busy = (st == S_INIT);

endmodule

`resetall
