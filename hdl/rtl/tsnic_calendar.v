// tsnic_calendar: the time-scheduled transmit calendar (timing wheel).
//
// Takes entries (queue, handle, launch_ns, policies) and releases each one exactly once: on the
// release port when phc_ns + lookahead_ns >= launch_ns (SENT / SENT_LATE / DROPPED_LATE, decided at
// release against phc_ns), or as an urgent completion (DROPPED_LATE / DROPPED_HORIZON decided on
// insert, FLUSHED by a queue flush). See docs/CALENDAR.md for the design and its guarantees.
//
// Structure
//   * node pool (2^NODE_W entries) in block RAM: payload, next pointers (direct, cascaded, coarse
//     and split lists), a back-end state {generation, dead}; free nodes come from a bump counter,
//     then from a free-list FIFO.
//   * fine wheel: 2^SLOT_W slots of 2^SLOT_NS_W ns, each two FIFO linked lists {valid, epoch,
//     count, head, tail}: direct (appended by the insert) and cascaded (by the cascade), each with
//     its own write port; holds absolute slots [scan, scan + 2^SLOT_W).
//   * coarse wheel: 2^CSLOT_W slots of 2^(SLOT_W-1) fine slots each (default 262 us, 17.2 s span);
//     a coarse slot is cascaded into the fine wheel (in FIFO order) before the scan reaches it.
//   * release buffer (tsnic_calendar_sorter): 2^SORT_W cells sorted by (launch_ns, rank).
//
// Four engines run concurrently, each with its own RAM ports, so that one insert and one release
// can happen in every cycle:
//   * insert (stage B): the handshake reads the target slot words and the queue counters; the next
//     cycle decides with the data (forwarded from the previous cycle's writes) and appends the entry
//     to a fine or coarse slot list, or pushes it into the release buffer. One entry per cycle.
//   * loader: claims slot `scan` once due, walks its cascaded then its direct list at one node per
//     cycle into the release buffer (following entries appended behind it) and claims the next slot
//     ahead, so consecutive slots chain without a bubble; interleaved with the flush sweep. A slot
//     with more entries than SPLIT_LIM is first split into one list per ns, then loaded ns by ns,
//     so launch order is exact for any slot (no forced release).
//   * the release buffer has a push port for the insert stage and one for the loader/sweep.
//   * cascade: moves coarse slot `ccur` into the cascaded lists of the fine wheel (3 cycles per
//     entry) on its own write port.
//   * the sorter releases one entry per cycle.
// Ownership keeps them apart: only the insert stage (direct lists) and the cascade (cascaded lists)
// write slot lists, only the loader and the sweep write node states, the loader marks a list empty
// by flipping its epoch instead of writing the slot word; a word is read one cycle before it is used
// and the previous cycle's write to it is forwarded.
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
    parameter GROUP_W    = 6,                 // fine slots per occupancy word = 2^GROUP_W
    parameter CGROUP_W   = 6,                 // 2^CGROUP_W occupancy counters over the coarse ring
    parameter SIM_FAST_FORWARD = 0,           // 1: ff_* outputs for the co-simulation (0: constant, no logic)
    parameter SIM_GATE   = 0                  // 1 (needs SIM_FAST_FORWARD): all but the time copies on ff_gclk
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
    output wire                 stat_init_busy,  // RAM clear after reset in progress

    // co-simulation fast-forward (docs/ARCHITECTURE.md, "Idle fast-forward")
    /* verilator lint_off UNUSEDSIGNAL */   // no reader without SIM_FAST_FORWARD
    input  wire                 ff_warp,         // this cycle's edge carries a jump (0 on a board)
    /* verilator lint_on UNUSEDSIGNAL */
    output wire                 ff_quiet,        // only time-following updates while phc_ns < ff_wake_ns
    output wire [63:0]          ff_wake_ns,      // first PHC time at which the loader or cascade may have work
    output wire [63:0]          ff_chunk_ns,     // longest single jump that stays exact (all ones: any)
    // co-simulation clock gating (docs/ARCHITECTURE.md, "Gated blocks"): with SIM_GATE, every
    // register but the time copies is clocked by ff_gclk, which the co-simulation holds low in a cycle
    // where ff_hold says that no such register would change
    /* verilator lint_off UNUSEDSIGNAL */   // no reader without SIM_GATE
    input  wire                 ff_gclk,
    /* verilator lint_on UNUSEDSIGNAL */
    output wire                 ff_hold
);

`include "tsnic_contract.vh"

localparam AS_W   = 64 - SLOT_NS_W;          // absolute fine slot number width
localparam CWB    = SLOT_W - 1;               // coarse slot = 2^CWB fine slots
localparam AC_W   = AS_W - CWB;               // absolute coarse slot number width
localparam CNT_W  = 6;                       // entries per fine slot, counted up to 2^CNT_W - 1
localparam FW_W   = 2 + CNT_W + 2*NODE_W;     // fine slot word {valid, epoch, count, head, tail}
localparam CW_W   = 1 + 2*NODE_W;             // coarse slot word {valid, head, tail}
localparam ND_W   = 67 + HANDLE_W + QUEUE_W;  // node payload {gen, launch, queue, handle, capped, latepol}
localparam IW1    = (CSLOT_W > SLOT_W) ? CSLOT_W : SLOT_W;
localparam IW2    = (QUEUE_W > NODE_W) ? QUEUE_W : NODE_W;
localparam INIT_W = (IW1 > IW2) ? IW1 : IW2;
localparam [AS_W-1:0] N_SLOTS  = {{(AS_W-SLOT_W-1){1'b0}}, 1'b1, {SLOT_W{1'b0}}};
localparam [AS_W-1:0] SLOT_MAX = {AS_W{1'b1}};
localparam [AC_W-1:0] CSLOT_MAX = {AC_W{1'b1}};
localparam [AC_W-1:0] C_SLOTS  = {{(AC_W-CSLOT_W-1){1'b0}}, 1'b1, {CSLOT_W{1'b0}}};
localparam [NODE_W:0] POOL    = {1'b1, {NODE_W{1'b0}}};
localparam [NODE_W:0] DEF_Q   = DEFAULT_QUOTA;
localparam [NODE_W:0] ZN      = {(NODE_W+1){1'b0}};
// a fine slot with more entries than SPLIT_LIM is loaded in two passes (split into one list per ns);
// appends behind a walk stop at SPLIT_LIM, so a slot walked in one pass fills at most SPLIT_LIM + 1
// cells of the release buffer and never all of it
localparam [CNT_W-1:0] SPLIT_LIM = (1 << SORT_W) - 8;
localparam [CNT_W-1:0] CNT_MAX   = {CNT_W{1'b1}};
localparam NSUB   = 1 << SLOT_NS_W;           // per-ns lists of a split slot

localparam [7:0] ST8_DROP_LATE = `TSNIC_STATUS_DROPPED_LATE;
localparam [7:0] ST8_DROP_HOR  = `TSNIC_STATUS_DROPPED_HORIZON;
localparam [7:0] ST8_FLUSHED   = `TSNIC_STATUS_FLUSHED;
localparam [2:0] US_DROP_LATE  = ST8_DROP_LATE[2:0];
localparam [2:0] US_DROP_HOR   = ST8_DROP_HOR[2:0];
localparam [2:0] US_FLUSHED    = ST8_FLUSHED[2:0];

// insert classes (re-evaluated every cycle while the entry sits in stage B)
localparam [2:0] K_URG = 3'd0, K_SORT = 3'd1, K_FINE = 3'd2, K_COARSE = 3'd3, K_WAIT = 3'd4;

// back-end (loader + flush sweep) states
localparam [2:0] BE_IDLE = 3'd0, BE_LHEAD = 3'd1, BE_LWALK = 3'd2, BE_LRES = 3'd3,
                 BE_SWRES = 3'd4, BE_SW = 3'd5, BE_LSEEK = 3'd6;
// loader walk modes: one pass (list order), split pass (each node to the list of its ns), sub-list walk
localparam [1:0] LM_ONE = 2'd0, LM_SPLIT = 2'd1, LM_SUB = 2'd2;
// cascade states
localparam [2:0] CS_IDLE = 3'd0, CS_HEAD = 3'd1, CS_RD = 3'd2, CS_SL = 3'd3, CS_WR = 3'd4;

// the loader hands the back-end to a pending flush sweep after LD_BURST nodes; the sweep visits up
// to SW_BURST nodes per turn
localparam LD_BURST = 16;
localparam SW_BURST = 64;
localparam NG_W     = SLOT_W - GROUP_W;       // fine-slot occupancy words
// scan_k: the scan stayed or moved by one inside its occupancy word (g_* valid), moved to the first slot
// of the next word (gn_* valid), or moved otherwise (neither valid this cycle)
localparam [1:0] SK_SAME = 2'd0, SK_NEXT = 2'd1, SK_NONE = 2'd2;
localparam CGS_W    = CSLOT_W - CGROUP_W;     // coarse slots per coarse group = 2^CGS_W

// the clock of every register but the time copies below: clk, or the co-simulation's gated copy
wire wclk;
generate
    if (SIM_GATE != 0) begin : g_wclk
        assign wclk = ff_gclk;
    end else begin : g_clk
        assign wclk = clk;
    end
endgenerate

// ------------------------------------------------------------------ state
reg               init;
reg  [INIT_W:0]   init_ptr;
reg  [AS_W-1:0]   scan;          // next fine slot the loader takes (absolute)
reg               ld_claim;      // the loader holds slot `scan` (walking its list)
reg  [AC_W-1:0]   ccur;          // next coarse slot to cascade (absolute)
reg  [NODE_W:0]   fcount;        // entries in fine lists (but the insert's write of the cycle before, f_we_q)
reg                f_we_q;
reg  [NODE_W:0]   ccount;        // entries in coarse lists
reg  [NODE_W:0]   bump;
reg  [NODE_W:0]   occ;
reg               occ_in, occ_out;
reg               rewind_req;
reg               lt_fl_q;       // scan < fine_lim, registered (the cascade-append gate)
reg  [AC_W-1:0]   rw_c_q;        // rewind target (computed ahead): the window's top last cycle
reg               rw_same_q;     // ... unchanged from the cycle before
reg  [AC_W-1:0]   rw_cm_q;       // rw_c_q - 1 (so the compare with rw_c needs no increment of ccur)
reg  [AS_W-1:0]   rw_fl_q;       // ... the fine window's floor from rw_c_q
reg  [AS_W-1:0]   rw_t_q;        // ... max(due slot + 1, rw_fl_q, hi_s) of last cycle
reg  [AS_W-1:0]   rw_hs_q;       // ... the hi_s it used
reg               rw_v;          // ... computed with rewind_req up and no PHC step
reg               fl_active;
reg  [QUEUE_W-1:0] fl_q;
reg               f_st;          // flush start cycle (s_flush_ready)
reg  [NODE_W:0]   sw_ptr;
reg  [NODE_W:0]   sw_lim;
reg               flush_done_reg;
reg               be_rr;         // back-end: 1 = the sweep's turn
reg  [(1<<GROUP_W)-1:0] fbits [0:(1<<NG_W)-1];  // fine slot non-empty bits
reg  [NODE_W:0]   cgcnt [0:(1<<CGROUP_W)-1];     // entries per group of 2^CGS_W coarse ring slots

// stage B: the accepted insert
reg               b_valid;
reg  [QUEUE_W-1:0] b_q;
reg  [HANDLE_W-1:0] b_h;
reg  [63:0]       b_launch;      // effective (capped) launch time
reg               b_capped;
reg               b_lp;
reg  [2:0]        b_ustat;       // drop decided on insert (0: none)
reg  [AS_W-1:0]   b_slot_m1;     // its slot - 1
reg  [AS_W-1:0]   b_slot_mn;     // its slot - 2^SLOT_W (b_small_n: below 2^SLOT_W)
reg               b_small_n;
reg  [AC_W-1:0]   b_cslot_mc;    // its coarse slot - 2^CSLOT_W (b_small_c: below 2^CSLOT_W)
reg               b_small_c;

// back-end
reg  [2:0]        be_st;
reg  [NODE_W-1:0] l_cur;
reg  [NODE_W-1:0] l_tail;
reg               l_ed, l_ec;    // the walked slot's direct / cascaded list epochs
reg               l_ud, l_uc;    // ... and whether each list is in use (its epoch flips at the end)
reg  [4:0]        l_burst;
reg  [6:0]        sw_burst;
reg  [NODE_W-1:0] be_ra_q;       // node read issued last cycle
reg  [1:0]        pc_st;         // slot scan+1 claimed ahead: 1 word read issued, 2 word held
reg  [NODE_W-1:0] nx_head;
reg  [NODE_W-1:0] nx_tail;
reg               nx_ed, nx_ec, nx_ud, nx_uc;
reg  [CNT_W-1:0]  nx_cnt;        // entries in the slot claimed ahead
reg               nx_list;       // its first list: 0 cascaded, 1 direct (then nx_d* unused)
reg               nx_dv;         // its direct list (walked after the cascaded one)
reg  [NODE_W-1:0] nx_dh;
reg  [NODE_W-1:0] nx_dt;
reg               l_list;        // list being walked: 0 cascaded, 1 direct
reg               d_v;           // walking the cascaded list: the direct list that follows
reg  [NODE_W-1:0] d_head;
reg  [NODE_W-1:0] d_tail;
reg  [SLOT_W-1:0] fb_ra_q;       // slot word address the loader read last cycle
reg  [1:0]        l_mode;        // LM_*
reg  [CNT_W-1:0]  l_cnt;         // entries in the slot walked in one pass (appends stop at SPLIT_LIM)
reg  [NODE_W-1:0] sub_h [0:NSUB-1];   // split slot: one list per ns of the slot (next pointers in snext_inst)
reg  [NODE_W-1:0] sub_t [0:NSUB-1];
reg  [NSUB-1:0]   sub_m;         // non-empty sub-lists (not yet walked)
reg  [SLOT_NS_W-1:0] sub_nx_q;  // first non-empty sub-list (registered search)
reg               seek_w;        // BE_LSEEK waits a cycle for sub_nx_q
reg  [NODE_W-1:0] sub_tq;        // tail of the sub-list being walked
reg               sub_more;      // ... and whether another sub-list follows it
reg  [AS_W-1:0]   g_tgt_q;       // registered in-word search of the scan's occupancy word (after the scan)
reg  [GROUP_W:0]  g_off_q;
reg  [(1<<GROUP_W)-1:0] g_setm; // slots of the scan's occupancy word set at the last edge
reg  [AS_W-1:0]   gn_tgt_q;      // ... and of the next occupancy word (from its first slot)
reg  [GROUP_W:0]  gn_off_q;
reg  [(1<<GROUP_W)-1:0] gn_setm; // slots of the next occupancy word set at the last edge
reg  [(1<<GROUP_W)-1:0] g_rngm_q, gn_rngm_q;   // the slots below g_off_q / gn_off_q (the skip's range)
reg  [1:0]        scan_k;        // how the scan moved at the last edge (SK_*): which search is valid
reg  [SLOT_NS_W-1:0] o_cur;      // sub-list being walked: everything below {scan, o_cur} is loaded
reg  [63:0]       ord_done;      // ... i.e. everything at or below ord_done = {scan, o_cur} - 1
reg  [AS_W-1:0]   hi_s;          // every cell of the release buffer lies in a slot below hi_s
reg               rq_v;          // per-queue release counter: read issued last cycle
reg  [QUEUE_W-1:0] rq_q;
reg               wq_v;          // ... written last cycle (forwarding)
reg  [QUEUE_W-1:0] wq_q;
reg  [NODE_W:0]   wq_d;

// cascade
reg  [2:0]        cs_st;
reg  [NODE_W-1:0] cw_node;
reg  [NODE_W-1:0] cw_tail;
reg  [NODE_W-1:0] cw_next;
reg  [SLOT_W-1:0] cw_fidx;

// previous-cycle writes, forwarded to reads issued in that cycle
reg               ffw_v;  reg [SLOT_W-1:0]  ffw_a;  reg [FW_W-1:0]   ffw_d;
reg               cfw_v;  reg [CSLOT_W-1:0] cfw_a;  reg [CW_W-1:0]   cfw_d;
reg               qfw_v;  reg [QUEUE_W-1:0] qfw_a;  reg [NODE_W:0]   qfw_d;
reg               bfw_v;  reg [NODE_W-1:0]  bfw_a;  reg [1:0]        bfw_d;
reg               xfw_v;  reg [NODE_W-1:0]  xfw_a;  reg [NODE_W-1:0] xfw_d;
reg               fcw_v;  reg [SLOT_W-1:0]  fcw_a;  reg [FW_W-1:0]   fcw_d;
reg               xcw_v;  reg [NODE_W-1:0]  xcw_a;  reg [NODE_W-1:0] xcw_d;
reg               dfw_v;  reg [SLOT_W-1:0]  dfw_a;  reg              dfw_d;
reg               rfw_v;  reg [QUEUE_W-1:0] rfw_a;  reg [NODE_W:0]   rfw_d;
reg               qqfw_v; reg [QUEUE_W-1:0] qqfw_a; reg [NODE_W:0]   qqfw_d;
// stage B's words while its entry waits (b_first: its first cycle, words on the RAM outputs)
reg               b_first;
reg  [FW_W-1:0]   h_fw;
reg               h_di;
reg  [CW_W-1:0]   h_cw;
reg  [NODE_W:0]   h_qi, h_ri, h_qq;

// ------------------------------------------------------------------ RAM ports
reg  [SLOT_W-1:0]  fa_ra, fb_ra, fc_ra;
wire [FW_W-1:0]    fa_rd, fb_rd, fc_rd, fcb_rd;
wire               dl_rd, cl_rd;
reg                fc_we;  reg [SLOT_W-1:0]  fc_wa; reg [FW_W-1:0] fc_wd;
wire [NODE_W-1:0]  fxc_rd;
reg                xc_we;  reg [NODE_W-1:0]  xc_wa; reg [NODE_W-1:0] xc_wd;
reg                f_we;   reg [SLOT_W-1:0]  f_wa;  reg [FW_W-1:0] f_wd;
reg  [CSLOT_W-1:0] ca_ra, cb_ra;
wire [CW_W-1:0]    ca_rd, cb_rd;
reg                c_we;   reg [CSLOT_W-1:0] c_wa;  reg [CW_W-1:0] c_wd;
reg  [NODE_W-1:0]  be_ra;                   // back-end node reads (payload, fine next, state)
wire [ND_W-1:0]    nd_rd;
reg                nd_we;  reg [NODE_W-1:0]  nd_wa; reg [ND_W-1:0] nd_wd;
reg  [NODE_W-1:0]  nf_ra;  wire [SLOT_W-1:0] nf_rd;
wire [NODE_W-1:0]  fx_rd;
reg                fx_we;  reg [NODE_W-1:0]  fx_wa; reg [NODE_W-1:0] fx_wd;
reg  [NODE_W-1:0]  cx_ra;  wire [NODE_W-1:0] cx_rd;
reg                cx_we;  reg [NODE_W-1:0]  cx_wa; reg [NODE_W-1:0] cx_wd;
wire [1:0]         bs_rd;
reg                bs_we;  reg [NODE_W-1:0]  bs_wa; reg [1:0] bs_wd;
reg  [QUEUE_W-1:0] q_ra;                    // insert-side per-queue reads
wire [NODE_W:0]    qi_rd, ri_rd, qq_rd, qif_rd, rf_rd;
reg                qi_we;  reg [QUEUE_W-1:0] qi_wa; reg [NODE_W:0] qi_wd;
reg  [QUEUE_W-1:0] rl_ra;  wire [NODE_W:0]   rl_rd;
wire [NODE_W-1:0]  sn_rd;
reg                sn_we;  reg [NODE_W-1:0]  sn_wa; reg [NODE_W-1:0] sn_wd;
reg                r_we;   reg [QUEUE_W-1:0] r_wa;  reg [NODE_W:0] r_wd;
reg                qq_we;  reg [QUEUE_W-1:0] qq_wa; reg [NODE_W:0] qq_wd;
reg  [SLOT_W-1:0]  dk_ra;
wire               di_rd, dk_rd;
reg                d_we;   reg [SLOT_W-1:0]  d_wa;  reg d_wd;
reg                e_we;   reg e_wd;

// Every fine slot holds two lists, each with its own write port: the direct list (entries the insert
// appends; next pointers in fnext_inst) and the cascaded list (entries the cascade moves in from the
// coarse wheel; next pointers in fxnext_inst). The loader walks the cascaded one first: its entries
// were all posted before any direct entry of the slot.
// direct list words: read by insert (A), loader (B)
tsnic_ram_sdp #(.WIDTH(FW_W), .ADDR_W(SLOT_W)) fslot_a_inst (.clk(wclk), .wr_en(f_we), .wr_addr(f_wa), .wr_data(f_wd), .rd_en(1'b1), .rd_addr(fa_ra), .rd_data(fa_rd));
tsnic_ram_sdp #(.WIDTH(FW_W), .ADDR_W(SLOT_W)) fslot_b_inst (.clk(wclk), .wr_en(f_we), .wr_addr(f_wa), .wr_data(f_wd), .rd_en(1'b1), .rd_addr(fb_ra), .rd_data(fb_rd));
// cascaded list words: read by loader (B), cascade (C)
tsnic_ram_sdp #(.WIDTH(FW_W), .ADDR_W(SLOT_W)) fcas_b_inst (.clk(wclk), .wr_en(fc_we), .wr_addr(fc_wa), .wr_data(fc_wd), .rd_en(1'b1), .rd_addr(fb_ra), .rd_data(fcb_rd));
tsnic_ram_sdp #(.WIDTH(FW_W), .ADDR_W(SLOT_W)) fcas_c_inst (.clk(wclk), .wr_en(fc_we), .wr_addr(fc_wa), .wr_data(fc_wd), .rd_en(1'b1), .rd_addr(fc_ra), .rd_data(fc_rd));
// list epochs, one per list of a slot (a list word is valid while its epoch matches; the loader flips
// the epoch of each list it emptied, so a word left from an earlier use never matches):
// direct lists: insert (I), loader (L); cascaded lists: cascade (K), loader (L)
tsnic_ram_sdp #(.WIDTH(1), .ADDR_W(SLOT_W)) dep_i_inst (.clk(wclk), .wr_en(d_we), .wr_addr(d_wa), .wr_data(d_wd), .rd_en(1'b1), .rd_addr(fa_ra), .rd_data(di_rd));
tsnic_ram_sdp #(.WIDTH(1), .ADDR_W(SLOT_W)) dep_l_inst (.clk(wclk), .wr_en(d_we), .wr_addr(d_wa), .wr_data(d_wd), .rd_en(1'b1), .rd_addr(fb_ra), .rd_data(dl_rd));
tsnic_ram_sdp #(.WIDTH(1), .ADDR_W(SLOT_W)) cep_k_inst (.clk(wclk), .wr_en(e_we), .wr_addr(d_wa), .wr_data(e_wd), .rd_en(1'b1), .rd_addr(dk_ra), .rd_data(dk_rd));
tsnic_ram_sdp #(.WIDTH(1), .ADDR_W(SLOT_W)) cep_l_inst (.clk(wclk), .wr_en(e_we), .wr_addr(d_wa), .wr_data(e_wd), .rd_en(1'b1), .rd_addr(fb_ra), .rd_data(cl_rd));
// coarse slot lists: insert (A), cascade (B)
tsnic_ram_sdp #(.WIDTH(CW_W), .ADDR_W(CSLOT_W)) cslot_a_inst (.clk(wclk), .wr_en(c_we), .wr_addr(c_wa), .wr_data(c_wd), .rd_en(1'b1), .rd_addr(ca_ra), .rd_data(ca_rd));
tsnic_ram_sdp #(.WIDTH(CW_W), .ADDR_W(CSLOT_W)) cslot_b_inst (.clk(wclk), .wr_en(c_we), .wr_addr(c_wa), .wr_data(c_wd), .rd_en(1'b1), .rd_addr(cb_ra), .rd_data(cb_rd));
// node pool
tsnic_ram_sdp #(.WIDTH(ND_W),   .ADDR_W(NODE_W)) ndata_inst (.clk(wclk), .wr_en(nd_we), .wr_addr(nd_wa), .wr_data(nd_wd), .rd_en(1'b1), .rd_addr(be_ra), .rd_data(nd_rd));
tsnic_ram_sdp #(.WIDTH(SLOT_W), .ADDR_W(NODE_W)) nfidx_inst (.clk(wclk), .wr_en(nd_we), .wr_addr(nd_wa), .wr_data(nd_wd[SLOT_NS_W+HANDLE_W+QUEUE_W+2 +: SLOT_W]), .rd_en(1'b1), .rd_addr(nf_ra), .rd_data(nf_rd));
tsnic_ram_sdp #(.WIDTH(NODE_W), .ADDR_W(NODE_W)) fnext_inst (.clk(wclk), .wr_en(fx_we), .wr_addr(fx_wa), .wr_data(fx_wd), .rd_en(1'b1), .rd_addr(be_ra), .rd_data(fx_rd));
// sub-list next pointers of a split slot (written by the split pass, read by the sub-list walk)
tsnic_ram_sdp #(.WIDTH(NODE_W), .ADDR_W(NODE_W)) fxnext_inst (.clk(wclk), .wr_en(xc_we), .wr_addr(xc_wa), .wr_data(xc_wd), .rd_en(1'b1), .rd_addr(be_ra), .rd_data(fxc_rd));
tsnic_ram_sdp #(.WIDTH(NODE_W), .ADDR_W(NODE_W)) snext_inst (.clk(wclk), .wr_en(sn_we), .wr_addr(sn_wa), .wr_data(sn_wd), .rd_en(1'b1), .rd_addr(be_ra), .rd_data(sn_rd));
tsnic_ram_sdp #(.WIDTH(NODE_W), .ADDR_W(NODE_W)) cnext_inst (.clk(wclk), .wr_en(cx_we), .wr_addr(cx_wa), .wr_data(cx_wd), .rd_en(1'b1), .rd_addr(cx_ra), .rd_data(cx_rd));
tsnic_ram_sdp #(.WIDTH(2),      .ADDR_W(NODE_W)) nstate_inst (.clk(wclk), .wr_en(bs_we), .wr_addr(bs_wa), .wr_data(bs_wd), .rd_en(1'b1), .rd_addr(be_ra), .rd_data(bs_rd));
// per-queue counters: inserted into the wheel (insert), freed by the loader (two copies), quota
tsnic_ram_sdp #(.WIDTH(NODE_W+1), .ADDR_W(QUEUE_W)) qins_inst (.clk(wclk), .wr_en(qi_we), .wr_addr(qi_wa), .wr_data(qi_wd), .rd_en(1'b1), .rd_addr(q_ra),  .rd_data(qi_rd));
tsnic_ram_sdp #(.WIDTH(NODE_W+1), .ADDR_W(QUEUE_W)) qrel_l_inst (.clk(wclk), .wr_en(r_we),  .wr_addr(r_wa),  .wr_data(r_wd),  .rd_en(1'b1), .rd_addr(rl_ra), .rd_data(rl_rd));
tsnic_ram_sdp #(.WIDTH(NODE_W+1), .ADDR_W(QUEUE_W)) qrel_i_inst (.clk(wclk), .wr_en(r_we),  .wr_addr(r_wa),  .wr_data(r_wd),  .rd_en(1'b1), .rd_addr(q_ra),  .rd_data(ri_rd));
tsnic_ram_sdp #(.WIDTH(NODE_W+1), .ADDR_W(QUEUE_W)) quota_inst (.clk(wclk), .wr_en(qq_we), .wr_addr(qq_wa), .wr_data(qq_wd), .rd_en(1'b1), .rd_addr(q_ra),  .rd_data(qq_rd));
// ... and a copy of the insert and free counters for the flush start, read at the flushed queue while
// a flush is requested: a queue with no node in the wheel needs no sweep (see fq_empty)
tsnic_ram_sdp #(.WIDTH(NODE_W+1), .ADDR_W(QUEUE_W)) qins_f_inst (.clk(wclk), .wr_en(qi_we), .wr_addr(qi_wa), .wr_data(qi_wd), .rd_en(s_flush_valid), .rd_addr(s_flush_queue), .rd_data(qif_rd));
tsnic_ram_sdp #(.WIDTH(NODE_W+1), .ADDR_W(QUEUE_W)) qrel_f_inst (.clk(wclk), .wr_en(r_we),  .wr_addr(r_wa),  .wr_data(r_wd),  .rd_en(s_flush_valid), .rd_addr(s_flush_queue), .rd_data(rf_rd));

// free list: {node, generation of its next use}
wire              fr_push;
wire [NODE_W:0]   fr_push_d;
wire              fr_pop;
wire              fr_valid;
wire [NODE_W:0]   fr_data;
/* verilator lint_off PINCONNECTEMPTY */
tsnic_fifo #(.WIDTH(NODE_W+1), .ADDR_W(NODE_W)) free_inst (
    .clk(wclk), .rst(rst || init),
    .s_valid(fr_push), .s_ready(), .s_data(fr_push_d),
    .m_valid(fr_valid), .m_ready(fr_pop), .m_data(fr_data),
    .count()
);
/* verilator lint_on PINCONNECTEMPTY */

// payload fields
wire                 nd_gen     = nd_rd[ND_W-1];
wire [63:0]          nd_launch  = nd_rd[ND_W-2 -: 64];
wire [QUEUE_W-1:0]   nd_queue   = nd_rd[HANDLE_W+2 +: QUEUE_W];
wire [HANDLE_W-1:0]  nd_handle  = nd_rd[2 +: HANDLE_W];
wire                 nd_capped  = nd_rd[1];
wire                 nd_latepol = nd_rd[0];
wire [1:0]           bs_eff     = (bfw_v && bfw_a == be_ra_q) ? bfw_d : bs_rd;
wire                 bs_bgen    = bs_eff[1];
wire [NODE_W-1:0]    fx_eff     = (xfw_v && xfw_a == be_ra_q) ? xfw_d : fx_rd;
// next node of the list being walked (the cascade never writes a list the loader walks)
wire [NODE_W-1:0]    lnx_eff    = l_list ? fx_eff : fxc_rd;
wire                 bs_dead    = bs_eff[0];

// ------------------------------------------------------------------ time
// The times the calendar compares against are registered (issue 16): each is the previous cycle's
// phc_ns (and lookahead_ns) through at most one carry chain, so no path runs from the PHC through
// an adder into the compares. A one-cycle-old time is smaller (the PHC only moves forward outside a
// step), so it only delays a release by one cycle; in the cycle of a PHC step (phc_step, high with
// the new time) the copies still hold the old time, and the release buffer releases nothing then
// (now_l reads 0). docs/CALENDAR.md, "Release interface" and guarantee 7.
wire [63:0]     la64       = {32'd0, lookahead_ns};
wire [63:0]     now_l_n    = phc_ns + la64;
// phc_ns + lookahead_ns + 2^SLOT_NS_W in one carry chain (carry-save of the three terms first)
wire [63:0]     dp_one     = {{(63-SLOT_NS_W){1'b0}}, 1'b1, {SLOT_NS_W{1'b0}}};
wire [63:0]     dp_s       = phc_ns ^ la64 ^ dp_one;
wire [63:0]     dp_c       = ((phc_ns & la64) | ((phc_ns | la64) & dp_one)) << 1;
/* verilator lint_off UNUSEDSIGNAL */   // the slot's ns bits
wire [63:0]     due_n      = dp_s + dp_c;
/* verilator lint_on UNUSEDSIGNAL */
reg  [63:0]     now_lq;      // phc_ns + lookahead_ns of the previous cycle
reg  [AS_W-1:0] due_p1q;     // ... its slot + 1
reg  [63:0]     phc_hq;      // phc_ns + HORIZON_NS of the previous cycle
always @(posedge clk) begin
    now_lq  <= now_l_n;
    due_p1q <= due_n[63:SLOT_NS_W];
    phc_hq  <= phc_ns + HORIZON_NS;
end
wire [63:0]     now_l      = now_lq;
wire [AS_W-1:0] due_slot   = now_lq[63:SLOT_NS_W];
wire [AS_W-1:0] due_p1     = due_p1q;
wire [63:0]     phc_h      = phc_hq;
wire [AS_W-1:0] fine_lim   = {ccur, {CWB{1'b0}}};
wire [AC_W-1:0] ccur_p1    = ccur + 1'b1;
wire [AS_W-1:0] scan_n     = scan + N_SLOTS;
wire [AS_W-1:0] scan_p1    = scan + 1'b1;
wire            cs_busy    = (cs_st != CS_IDLE);

// ------------------------------------------------------------------ insert: handshake side
wire            i_late   = s_ins_launch_ns < phc_ns;
// beyond the horizon of the previous cycle's PHC (phc_h registered); a late entry is never beyond
// (after a forward step larger than the horizon both compares could hold: late decides)
wire            i_beyond = (s_ins_launch_ns > phc_h) && !i_late;
wire            i_cap    = i_beyond && (s_ins_horizon_policy == `TSNIC_HORIZON_POLICY_CAP);
wire [63:0]     i_eff    = i_cap ? phc_h : s_ins_launch_ns;
wire [AS_W-1:0] i_slot   = i_eff[63:SLOT_NS_W];
wire [AC_W-1:0] i_cslot  = i_slot[AS_W-1:CWB];
wire [2:0]      i_ustat  = (i_late && s_ins_late_policy == `TSNIC_LATE_POLICY_DROP) ? US_DROP_LATE :
                           (i_beyond && !i_cap) ? US_DROP_HOR : 3'd0;

// ------------------------------------------------------------------ insert: stage B decision
wire [AS_W-1:0]   b_slot   = b_launch[63:SLOT_NS_W];
wire [AC_W-1:0]   b_cslot  = b_slot[AS_W-1:CWB];
wire [SLOT_W-1:0] b_fidx   = b_slot[SLOT_W-1:0];
wire [CSLOT_W-1:0] b_cidx  = b_cslot[CSLOT_W-1:0];
// stage B's queue is being flushed: the queue compare registered like b_lt_scan (fq_i for the entry
// on the port, fq_b for the one in stage B, each against the flushed queue of the next cycle)
reg               fq_i, fq_b;
wire [QUEUE_W-1:0] fl_q_n  = f_st ? s_flush_queue : fl_q;
wire              b_flq    = fl_active && (b_first ? fq_i : fq_b);
wire              b_urg    = (b_ustat != 3'd0) || b_flq;
wire [2:0]        b_ustat_e = (b_ustat != 3'd0) ? b_ustat : US_FLUSHED;
// "the entry's slot is below the scan" (b_slot < scan), registered: at every edge lts_i is set for
// the entry on the port and lts_b for the entry in stage B, each against the value the scan takes at
// that edge (see the sequential block); the next cycle picks lts_i for an entry that just came in
// (b_first), else lts_b. A waiting entry needs no compare for most moves: skips and jumps never
// pass the slot of a waiting entry at or beyond the scan, so only a move by one slot (its slot ==
// scan) or a rewind changes its bit.
reg  [1:0]        lts_i;
reg               lts_b;
wire              b_lt_scan = b_first ? lts_i[b_capped] : lts_b;
// compares against sums of registers, with the sum moved to the entry's side (computed at the
// handshake): b_slot < scan + 2^SLOT_W, b_slot < (ccur + 2^CSLOT_W) * 2^CWB
wire              b_lt_win   = b_small_n || (b_slot_mn < scan);
wire              b_lt_cspan = b_small_c || (b_cslot_mc < ccur);
// an entry for the split slot being walked below the sub-list being walked: below everything still
// in the wheel, so bound for the buffer like an entry behind the scan
wire              b_below_sub = (b_slot == scan) && ld_claim && (l_mode == LM_SUB) && (b_launch[SLOT_NS_W-1:0] < o_cur);
wire              b_sortb  = b_valid && !b_urg && (b_lt_scan || b_below_sub);
// the class uses b_below_sub of the cycle before (bsub_q; never in the entry's first cycle): the entry
// may go to the buffer a cycle later, never earlier (it waits meanwhile: a slot walked by ns takes no
// appends); the release order (b_sortb) uses the exact bit
reg               bsub_q;
wire              b_bsub_r = !b_first && bsub_q;
wire              b_ge_fine = (b_cslot >= ccur);          // b_slot >= fine_lim (its low bits are 0)
// slots the loader holds: an entry may be appended to the list it walks (it follows the new tail),
// except in the cycle its word is read (LHEAD) or the cycle it takes the last node
// Stage B's slot at the claimed slot (b_at_claim: b_slot == scan with a claim) or at the slot claimed
// ahead (b_at_pc: b_slot == scan + 1), from compares of the cycle before (no 45-bit compare with
// the scan in front of stage B's class): the loader holds a claim only after the scan stayed or
// moved by one at the edge before (mv1), and a claim ahead only after it stayed, so "slot == scan"
// and "slot == scan + 1" of the cycle before give the answer. eq*_i: for the entry on the port (its
// launch slot, [0], and the horizon's, [1], picked by b_capped in its first cycle), eq*_b: for the
// entry in stage B.
reg  [1:0]        eq0_i, eq1_i;
reg               eq0_b, eq1_b, mv1;
wire              b_eq0      = b_first ? eq0_i[b_capped] : eq0_b;   // b_slot == scan of the cycle before
wire              b_eq1      = b_first ? eq1_i[b_capped] : eq1_b;   // b_slot == that scan + 1
wire              b_at_claim = ld_claim && (mv1 ? b_eq1 : b_eq0);
wire              b_at_pc    = (pc_st != 2'd0) && b_eq1;
// the coarse slot being cascaded: appends go behind the cascade's walk (it follows the new tail),
// except in the cycle its word is read and the cycle it moves the last entry (and clears the word)
wire              b_at_ccur  = (b_cslot == ccur) && cs_busy;
// (and not while the loader has reached the fine limit and waits for the cascade to finish: appends
// must not keep the cascade from ending)
// (scan < fine_lim of the cycle before, lt_fl_q: only liveness depends on it, and a stale value
// allows at most one more append or delays one by a cycle)
wire              cs_app     = ((cs_st == CS_RD) || (cs_st == CS_SL) || ((cs_st == CS_WR) && (cw_node != cw_tail))) &&
                               lt_fl_q;
wire              ld_app     = (be_st == BE_LWALK) || (be_st == BE_LRES) || (be_st == BE_SWRES) ||
                               (be_st == BE_SW);
reg  [2:0]        b_cls;
always @* begin
    if (b_urg)                                   b_cls = K_URG;
    else if (b_lt_scan || b_bsub_r)              b_cls = K_SORT;
    else if (b_at_claim)                         b_cls = (ld_app && l_mode == LM_ONE && l_cnt < SPLIT_LIM) ? K_FINE : K_WAIT;   // append behind the walk
    else if (b_at_pc)                            b_cls = (pc_st == 2'd2 && nx_cnt < SPLIT_LIM) ? K_FINE : K_WAIT;
    else if (!b_ge_fine)                         b_cls = b_lt_win ? K_FINE : K_WAIT;
    else if (b_at_ccur)                          b_cls = cs_app ? K_COARSE : K_WAIT;  // append behind the cascade
    else if (b_lt_cspan)                         b_cls = K_COARSE;
    else                                         b_cls = K_WAIT;
end
// a non-urgent entry in stage B at or beyond the scan: skips must not pass its slot
wire              b_hold    = b_valid && !b_urg && !b_lt_scan;
wire [AS_W-1:0]   cap_s     = b_hold ? b_slot : SLOT_MAX;
wire [AC_W-1:0]   cap_c     = (b_hold && b_ge_fine) ? b_cslot : CSLOT_MAX;

// Stage B's words: read for the entry on the port (the read address never depends on stage B's
// decision); in the entry's first cycle in stage B they are on the RAM outputs, and while it waits
// they are kept in hold registers (h_*). Either way the previous cycle's write to the word is
// forwarded, so the hold registers follow every write made while the entry waits.
wire [FW_W-1:0]   bf_word  = (ffw_v && ffw_a == b_fidx) ? ffw_d : b_first ? fa_rd : h_fw;
wire              b_di     = (dfw_v && dfw_a == b_fidx) ? dfw_d : b_first ? di_rd : h_di;
wire              bf_v     = bf_word[FW_W-1] && (bf_word[FW_W-2] == b_di);
wire [CW_W-1:0]   bc_word  = (cfw_v && cfw_a == b_cidx) ? cfw_d : b_first ? ca_rd : h_cw;
wire              bc_v     = bc_word[CW_W-1];
wire [NODE_W:0]   b_qins   = (qfw_v && qfw_a == b_q) ? qfw_d : b_first ? qi_rd : h_qi;
wire [NODE_W:0]   b_qrel   = (rfw_v && rfw_a == b_q) ? rfw_d : b_first ? ri_rd : h_ri;
wire [NODE_W:0]   b_qq     = (qqfw_v && qqfw_a == b_q) ? qqfw_d : b_first ? qq_rd : h_qq;
// Under quota: count = ins - rel < quota, i.e. (quota - 1) - count >= 0, i.e. the sign of
// quota + rel + ~ins (NODE_W+1 bits) is clear. count is in 0..2^NODE_W and quota in 1..2^NODE_W, so
// (quota - 1) - count lies in -2^NODE_W .. 2^NODE_W - 1 and its sign bit is exact although both
// counters wrap. The three operands are added carry-save (one LUT level: sum and carry per bit),
// then one carry chain: one chain behind the RAM outputs instead of a subtract and a compare.
// The quota RAM holds the quota XOR DEFAULT_QUOTA (see qq_wd), so its cleared value 0 is the
// default and the effective quota needs no zero test.
wire [NODE_W:0]   b_qeff   = b_qq ^ DEF_Q;
wire [NODE_W:0]   b_qa     = ~b_qins;
wire [NODE_W:0]   b_qs     = b_qeff ^ b_qrel ^ b_qa;
wire [NODE_W-1:0] b_qk     = (b_qeff[NODE_W-1:0] & b_qrel[NODE_W-1:0]) | (b_qeff[NODE_W-1:0] & b_qa[NODE_W-1:0]) |
                             (b_qrel[NODE_W-1:0] & b_qa[NODE_W-1:0]);
wire [NODE_W:0]   b_qt     = b_qs + {b_qk, 1'b0};
wire              b_q_ok   = !b_qt[NODE_W];
wire              alloc_bump = (bump != POOL);
wire              node_avail = alloc_bump || fr_valid;
wire [NODE_W-1:0] alloc_node = alloc_bump ? bump[NODE_W-1:0] : fr_data[NODE_W-1:0];
wire              alloc_gen  = alloc_bump ? 1'b1 : fr_data[NODE_W];
wire              b_wheel_ok = b_valid && !f_st && node_avail && b_q_ok;

generate
    if (DEFAULT_QUOTA < 1 || DEFAULT_QUOTA > (1 << NODE_W)) begin : g_bad_quota
        tsnic_param_error_DEFAULT_QUOTA_must_be_1_to_the_pool_size param_error_inst ();
    end
endgenerate
// the quota as stored: 0 (the default) stays 0, a larger value than the pool saturates to the pool
wire [NODE_W:0]   qq_sat   = (cfg_quota_value > POOL) ? POOL : cfg_quota_value;
wire [NODE_W:0]   qq_cfg   = (cfg_quota_value == ZN) ? ZN : (qq_sat ^ DEF_Q);

// ------------------------------------------------------------------ sorter and its push port
wire [SORT_W:0] srt_count;
wire            srt_room = !srt_count[SORT_W];
wire            srt_has_flushed;
wire            push_b;          // stage B -> push port 2
wire            push_e;          // back-end (loader, sweep) -> push port 1
// release order: the buffer's head may leave when nothing smaller can still come. Without an entry
// in stage B bound for the buffer: its slot is below the scan, or (walking a split slot's per-ns
// lists) its launch_ns is below the list being walked (ord_done), or at most it when the buffer is
// full (ties of one ns beyond the buffer: posting order). With one: its launch_ns is at most that
// entry's (which is posted after every entry inside, so ties with it are in posting order).
// (stage B's bound goes in on a port of its own, ordb: b_sortb is late and only picks the result of
// two compares made side by side)
wire [63:0]     ord_sub  = srt_count[SORT_W] ? {scan, o_cur} : ord_done;
wire            srt_ordv = ld_claim && l_mode == LM_SUB;
wire            srt_byp;

tsnic_calendar_sorter #(
    .SORT_W(SORT_W), .QUEUE_W(QUEUE_W), .HANDLE_W(HANDLE_W), .RANK_W(RANK_W), .SLOT_NS_W(SLOT_NS_W)
) sorter_inst (
    .clk(wclk), .rst(rst),
    .phc_ns(phc_ns), .now_l(phc_step ? 64'd0 : now_l), .scan_lim(scan), .ord_v(srt_ordv), .ord_l(ord_sub),
    .ordb_v(b_sortb), .ordb_l(b_launch),
    .push_valid(push_e), .push_launch(nd_launch), .push_queue(nd_queue), .push_handle(nd_handle),
    .push_capped(nd_capped), .push_latepol(nd_latepol), .push_urg((be_st == BE_SW) || l_urg),
    .push_ustat(US_FLUSHED),
    .push2_valid(push_b), .push2_launch(b_launch), .push2_queue(b_q), .push2_handle(b_h),
    .push2_capped(b_capped), .push2_latepol(b_lp), .push2_urg(b_cls == K_URG), .push2_ustat(b_ustat_e),
    .byp_req(req_b && !srt_room), .byp_take(srt_byp),
    .mark_valid(f_st), .mark_queue(s_flush_queue),
    .count(srt_count), .has_flushed(srt_has_flushed),
    .m_rel_valid(m_rel_valid), .m_rel_ready(m_rel_ready), .m_rel_queue(m_rel_queue),
    .m_rel_handle(m_rel_handle), .m_rel_launch_ns(m_rel_launch_ns), .m_rel_status(m_rel_status),
    .m_rel_capped(m_rel_capped)
);

// ------------------------------------------------------------------ back-end requests
wire            sweep_pend = fl_active && (sw_ptr < sw_lim);
// The flushed queue holds no node in the wheel (inserted == freed), so the sweep would find nothing:
// the flush then ends as soon as the buffer, stage B and the loader have given up the queue's
// entries, instead of visiting every node ever allocated (13 us per flush after 3,000 frames, and a
// disable of N queues flushes N times in a row). Valid in the f_st cycle: the copies were read at
// s_flush_queue in the cycle before (s_flush_valid holds its queue), the insert of that cycle is
// forwarded (qfw_*), and no insert goes into the wheel in the f_st cycle (b_wheel_ok). The free
// counter may lag the loader by two cycles: it then reads smaller, which only ever makes the queue
// look non-empty (a sweep that finds nothing), never the reverse.
// (both compares in parallel behind the RAM outputs, the forwarding hit picks one)
wire            fq_hit     = qfw_v && (qfw_a == s_flush_queue);
wire            fq_empty   = fq_hit ? (qfw_d == rf_rd) : (qif_rd == rf_rd);
wire            l_urg      = fl_active && (nd_queue == fl_q);
wire            l_need     = (be_st == BE_LWALK) && !bs_dead && (l_mode != LM_SPLIT);  // node to hand on
wire            sw_need    = (be_st == BE_SW) && (nd_gen != bs_bgen) && !bs_dead && (nd_queue == fl_q);
wire            req_e      = (l_need || sw_need) && !f_st;
wire            req_b      = b_valid && !f_st && (b_cls == K_URG || b_cls == K_SORT);
// Stage B and the back-end have a push port each; stage B goes first. The insert port accepts only
// while a cell is left after this cycle's pushes, so an accepted entry bound for the buffer finds
// a cell the next cycle. (An entry that waits in stage B and only later turns out bound for the
// buffer, e.g. behind the loader's last node, may find it full; the buffer then frees cells by
// releasing due entries, in overflow by force. Keeping a cell back for such an entry instead
// would let the loader wait for stage B while stage B waits for a node only the loader frees.)
assign          push_b     = req_b && srt_room;
// room after the pushes: from the count's top values (registers), no adder behind push_b
wire            srt_c31    = (srt_count == {1'b0, {SORT_W{1'b1}}});
wire            srt_c30    = (srt_count == {1'b0, {(SORT_W-1){1'b1}}, 1'b0});
wire            e_room     = srt_room && !(push_b && srt_c31);
assign          push_e     = req_e && e_room;
wire            l_go       = (be_st == BE_LWALK) && (!l_need || push_e);
wire            sw_go      = (be_st == BE_SW) && (!sw_need || push_e);
// the node on the RAM output ends the slot (l_last) or, walking a split slot, one of its sub-lists
wire            l_sub_t    = (l_cur == sub_tq);
// end of the cascaded list with a direct list to follow (one pass or split pass)
wire            l_sw       = (l_mode != LM_SUB) && !l_list && d_v && (l_cur == l_tail);
wire            l_ltail    = (l_cur == l_tail) && (l_list || !d_v);
wire            l_last     = (l_mode == LM_ONE) ? l_ltail :
                             (l_mode == LM_SUB) ? (l_sub_t && !sub_more) : 1'b0;
wire            l_sub_end  = (l_mode == LM_SUB) && l_sub_t && sub_more;
wire            l_spl_end  = (l_mode == LM_SPLIT) && l_ltail;
wire            l_fin      = l_go && (l_mode != LM_SPLIT);   // node handed on (or dropped, dead): close, free
wire [SLOT_NS_W-1:0] spl_o = nd_launch[SLOT_NS_W-1:0];
// first non-empty sub-list, registered (sub_nx_q): BE_LSEEK uses it, and sub_m does not
// change in the cycle before (after the split pass's last append, BE_LSEEK waits a cycle: seek_w)
// (one-hot to index: index bit k is the OR of the one-hot bits whose index has bit k set, a masked
// reduction per bit: the same OR as a loop over the bits, which a Verilated model ran every cycle)
wire [SLOT_NS_W-1:0] sub_nx;
wire [NSUB-1:0]      sub_oh = sub_m & (~sub_m + 1'b1);     // its lowest set bit, one-hot
genvar sbk;
generate
    for (sbk = 0; sbk < SLOT_NS_W; sbk = sbk + 1) begin : g_sub_enc
        localparam [NSUB-1:0] M = {(1 << (SLOT_NS_W - 1 - sbk)){{(1 << sbk){1'b1}}, {(1 << sbk){1'b0}}}};
        assign sub_nx[sbk] = |(sub_oh & M);
    end
endgenerate
wire [NSUB-1:0] sub_nx_oh  = {{(NSUB-1){1'b0}}, 1'b1} << sub_nx_q;
wire [NODE_W:0] sw_ptr_p1  = sw_ptr + 1'b1;
wire [CNT_W-1:0] nx_cnt_p1 = nx_cnt + 1'b1;

// the slot the loader read last cycle (scan at a claim, scan + 1 claimed ahead): its two lists
wire [FW_W-1:0] ls_wd    = (ffw_v && ffw_a == fb_ra_q) ? ffw_d : fb_rd;     // direct
wire [FW_W-1:0] ls_wc    = (fcw_v && fcw_a == fb_ra_q) ? fcw_d : fcb_rd;    // cascaded
wire            ls_vd    = ls_wd[FW_W-1] && (ls_wd[FW_W-2] == dl_rd);
wire            ls_vc    = ls_wc[FW_W-1] && (ls_wc[FW_W-2] == cl_rd);
wire [CNT_W:0]  ls_sum   = (ls_vd ? {1'b0, ls_wd[2*NODE_W +: CNT_W]} : {(CNT_W+1){1'b0}}) +
                           (ls_vc ? {1'b0, ls_wc[2*NODE_W +: CNT_W]} : {(CNT_W+1){1'b0}});
wire [CNT_W-1:0] ls_cnt  = ls_sum[CNT_W] ? CNT_MAX : ls_sum[CNT_W-1:0];
wire [NODE_W-1:0] ls_head = ls_vc ? ls_wc[2*NODE_W-1:NODE_W] : ls_wd[2*NODE_W-1:NODE_W];
wire [NODE_W-1:0] ls_tail = ls_vc ? ls_wc[NODE_W-1:0] : ls_wd[NODE_W-1:0];

// The walk's list registers (the tail of the list walked, the direct list behind a cascaded one:
// d_v, d_head, d_tail, and l_ud): their next values without an append of this cycle are nets of
// their own (keep), and an append (stage B's go, behind the quota test: the latest signal here) only
// picks between them and the new node, so no wide multiplexer follows the quota test.
wire            wl_head  = (be_st == BE_LHEAD) && fbit_scan;        // a slot claimed: its lists
wire            wl_step  = l_go && !l_spl_end && !l_sub_end;
wire            wl_pc2   = wl_step && l_last && (pc_st == 2'd2);    // on into the slot claimed ahead
wire            wl_pc1   = wl_step && l_last && (pc_st == 2'd1);    // on into the slot read last cycle
wire            wl_sw    = wl_step && !l_last && l_sw;              // cascaded list done: on into the direct one
(* keep *) reg [NODE_W-1:0] l_tail_nx, d_tail_nx, d_head_nx;
(* keep *) reg  d_v_nx, l_ud_nx;
always @* begin
    l_tail_nx = l_tail;
    d_tail_nx = d_tail;
    d_head_nx = d_head;
    d_v_nx    = d_v;
    l_ud_nx   = l_ud;
    if (wl_head || wl_pc1) begin
        l_tail_nx = ls_tail;
        d_tail_nx = ls_wd[NODE_W-1:0];
        d_head_nx = ls_wd[2*NODE_W-1:NODE_W];
        d_v_nx    = ls_vc && ls_vd;
        l_ud_nx   = ls_vd;
    end else if (wl_pc2) begin
        l_tail_nx = nx_tail;
        if (!nx_list) begin
            d_tail_nx = nx_dt;
            d_head_nx = nx_dv ? nx_dh : alloc_node;
        end
        d_v_nx    = !nx_list && nx_dv;
        l_ud_nx   = nx_ud;
    end else if (wl_sw) begin
        l_tail_nx = d_tail;
        d_v_nx    = 1'b0;
    end
end
// appends: behind the walk (to the list walked, or the direct list it goes on into: l_tail; else the
// direct list behind the cascaded one: d_*), or into the slot claimed ahead as the walk moves on into
// it (its cascaded list walked first: d_*, else l_tail)
wire            app_cl   = b_go_fine && b_at_claim;
wire            app_pc   = b_go_fine && b_at_pc && wl_pc2;
wire            app_cl_l = l_list || (l_go && l_sw);       // an append behind the walk goes to the list walked
wire            app_lt   = (app_cl && app_cl_l) || (app_pc && nx_list);
wire            app_d    = (app_cl && !app_cl_l) || (app_pc && !nx_list);
always @(posedge wclk) begin
    l_tail <= app_lt ? alloc_node : l_tail_nx;
    d_tail <= app_d ? alloc_node : d_tail_nx;
    d_head <= (app_cl && !app_cl_l && !d_v) ? alloc_node : d_head_nx;
    d_v    <= app_d || d_v_nx;
    l_ud   <= app_cl || app_pc || l_ud_nx;
    if (rst) d_v <= 1'b0;
end

// ------------------------------------------------------------------ cascade requests
wire [CW_W-1:0] cs_word  = (cfw_v && cfw_a == ccur[CSLOT_W-1:0]) ? cfw_d : cb_rd;
// The cascade writes the fine lists in the cycles stage B does not (entries it moves were inserted
// through the coarse port, which left those cycles free), and first only when the loader has
// reached the fine limit and waits for it.
wire            cs_wr     = (cs_st == CS_WR);     // the cascaded lists have a write port of their own
wire            cs_clr    = cs_wr && (cw_node == cw_tail);   // the list is moved: clear its word
wire [FW_W-1:0] cf_word  = (fcw_v && fcw_a == cw_fidx) ? fcw_d : fc_rd;
wire            cf_v     = cf_word[FW_W-1] && (cf_word[FW_W-2] == dk_rd);

// stage B handshake
wire            b_go_fine   = (b_cls == K_FINE) && b_wheel_ok &&
                              !(b_at_claim && be_st == BE_LWALK && l_last);   // not while it may take the last
wire            b_go_coarse = (b_cls == K_COARSE) && b_wheel_ok && !cs_clr;
wire            b_go_wheel  = b_go_fine || b_go_coarse;
wire            b_go        = b_go_wheel || push_b || srt_byp;
wire            srt_full_a  = !srt_room || (srt_c31 && (push_b || push_e)) || (srt_c30 && push_b && push_e);
wire            ins_ready   = !init && !f_st && (!b_valid || b_go) && !srt_full_a;
wire            ins_hs      = s_ins_valid && ins_ready;

// ------------------------------------------------------------------ occupancy words, skips
wire [NG_W-1:0] scan_g    = scan[SLOT_W-1:GROUP_W];
wire [(1<<GROUP_W)-1:0] g_word = fbits[scan_g];
// fbit_scan is registered: fw_q holds the scan's occupancy word as it was before the last edge, and
// fs_q / fc_q that edge's sets and clear in it (registered masks: the stage-B and loader decisions
// behind them end in a register, not in the word), so cur_w is the word now. Each edge loads them for
// the word the scan has after the edge: its own word when it stays or moves inside it, the next word
// when it moves to that word's first slot (+1 from a word's last slot, a skip to the word end).
// fn_q / fns_q / fnc_q do the same for the next word (scan_g + 1), so both in-word searches start
// from registers. After any other move (jump, rewind, skip to a limit) fw_v is low for a cycle:
// claims and in-word skips wait, the searches of that cycle are not used (scan_k is SK_NONE after),
// and the next edge loads the words. So the 2^SLOT_W:1 bit select is off the claim's path
// (CAL_CHECK compares cur_w / cur_n with the occupancy words every cycle).
reg  [(1<<GROUP_W)-1:0] fw_q, fs_q, fc_q;
reg  [(1<<GROUP_W)-1:0] fn_q, fns_q, fnc_q;
reg             fw_v;
wire [(1<<GROUP_W)-1:0] cur_w = (fw_q | fs_q) & ~fc_q;
wire [(1<<GROUP_W)-1:0] cur_n = (fn_q | fns_q) & ~fnc_q;
wire            fbit_scan = cur_w[scan[GROUP_W-1:0]];
// slots after the scan in its word (the scan's own slot is claimed, not skipped, when it is set)
wire [(1<<GROUP_W)-1:0] g_rest = cur_w & (({(1<<GROUP_W){1'b1}} << scan[GROUP_W-1:0]) << 1);
// the next occupancy word, read at scan_g + 1 (an NG_W-bit increment in front of the multiplexer;
// before, a rotated copy of all words, which cost the co-simulation a 2^NG_W-word copy per evaluation)
// (scan_g + 1 is a register, sg1_q, kept where the scan moves: no increment in front of the
// 2^NG_W:1 word read). When the scan moves into the next word, that word becomes fw_q (from this
// read) and the word after it is not read at all: fn_v is low for a cycle and the next edge loads
// fn_q from the same read at the new sg1_q. A third word read (scan_g + 2) cost ~17k LUT at the
// middle configuration through how the occupancy writes map; the price is that the next word's
// search of that one cycle is not used (a skip over empty words takes two cycles per word, not one).
reg  [NG_W-1:0] sg1_q;
reg             sg_v;            // sg1_q is scan_g + 1 (low for a cycle after a jump-like move)
reg             fn_v;            // fn_q .. fnc_q hold word scan_g + 1 (cur_n is exact)
wire [NG_W-1:0] scan_g1   = sg1_q;
wire [(1<<GROUP_W)-1:0] gn_rest = cur_n;
wire [(1<<GROUP_W)-1:0] gn_word = fbits[scan_g1];
// lowest set bit: isolate it (x & -x, one carry chain), then encode the one-hot vector (each index
// bit an OR of half the bits): a few LUT levels instead of a chain of halving steps
wire [(1<<GROUP_W)-1:0] g_oh  = g_rest & (~g_rest + 1'b1);
wire [(1<<GROUP_W)-1:0] gn_oh = gn_rest & (~gn_rest + 1'b1);
wire [GROUP_W-1:0] g_next;       // first non-empty slot after the scan in its word (0 if none)
wire [GROUP_W-1:0] gn_next;      // first non-empty slot of the next word (0 if none)
genvar gbk;
generate
    for (gbk = 0; gbk < GROUP_W; gbk = gbk + 1) begin : g_word_enc
        localparam [(1<<GROUP_W)-1:0] M = {(1 << (GROUP_W - 1 - gbk)){{(1 << gbk){1'b1}}, {(1 << gbk){1'b0}}}};
        assign g_next[gbk]  = |(g_oh & M);
        assign gn_next[gbk] = |(gn_oh & M);
    end
endgenerate
wire [AS_W-GROUP_W-1:0] scan_gn = scan[AS_W-1:GROUP_W] + 1'b1;
wire [AS_W-GROUP_W-1:0] scan_gn2 = scan[AS_W-1:GROUP_W] + {{(AS_W-GROUP_W-2){1'b0}}, 2'd2};
wire            g_none    = (g_rest == {(1<<GROUP_W){1'b0}});
wire            gn_none   = (gn_rest == {(1<<GROUP_W){1'b0}});
wire [AS_W-1:0] g_tgt     = g_none  ? {scan_gn, {GROUP_W{1'b0}}}  : {scan[AS_W-1:GROUP_W], g_next};
wire [AS_W-1:0] gn_tgt    = gn_none ? {scan_gn2, {GROUP_W{1'b0}}} : {scan_gn, gn_next};
wire [GROUP_W:0] g_off    = g_none  ? {1'b1, {GROUP_W{1'b0}}} : {1'b0, g_next};
wire [GROUP_W:0] gn_off   = gn_none ? {1'b1, {GROUP_W{1'b0}}} : {1'b0, gn_next};
// the slots below the offset: below the lowest set bit, all of them when none is set
wire [(1<<GROUP_W)-1:0] g_rngm  = (g_rest - 1'b1) & ~g_rest;
wire [(1<<GROUP_W)-1:0] gn_rngm = (gn_rest - 1'b1) & ~gn_rest;
// The in-word searches are registered: each cycle searches the scan's word after the scan and the
// next word from its start; the cycle after uses the first if the scan stayed or moved by one slot
// inside its word, the second if it moved to the next word's first slot (a skip to the word end,
// or one slot on from the word's last), neither after any other move (rewind, jump, skip to a limit).
// So catching up over empty words takes one cycle per word, as before the search was registered. A
// cleared slot only makes the target conservative; a slot set at the last edge between the scan and
// the target makes it stale (a slot set again at or beyond it does not: appends to a non-empty slot
// do not stop the skips), and the skip waits for the next search. The range tested has no lower
// bound at the scan: no slot below the scan is set at an edge the scan stays or moves by one (inserts
// and the cascade write at or beyond the scan, and no append reaches a slot the loader leaves), so
// it needs no decode of the scan's low bits (a self-check holds that no such bit is set).
wire            sk_next   = (scan_k == SK_NEXT);
wire [AS_W-1:0] gs_tgt_q  = sk_next ? gn_tgt_q : g_tgt_q;
wire [GROUP_W:0] gs_off_q = sk_next ? gn_off_q : g_off_q;
// (the range, the slots below the target's offset, is registered with the search as a mask, and both
// searches' tests are made before sk_next picks one: no decode or multiplexer in front of the AND)
wire            g_ok_g    = ((g_setm & g_rngm_q) == {(1<<GROUP_W){1'b0}});
wire            g_ok_n    = ((gn_setm & gn_rngm_q) == {(1<<GROUP_W){1'b0}});
wire            g_ok      = (scan_k != SK_NONE) && (sk_next ? g_ok_n : g_ok_g);
wire            g_in_rng  = sk_next ? ({1'b0, scan[GROUP_W-1:0]} < gn_off_q) : ({1'b0, scan[GROUP_W-1:0]} < g_off_q);
// The limits of a skip (and of a claim), each compared with the scan on its own (no chain of
// minimums in front of the compare): the due slot + 1, the fine window's top, the slot of a
// non-urgent entry waiting in stage B at or beyond the scan.
wire            lt_due    = (scan < due_p1);
wire            lt_fl     = (scan < fine_lim);
// ... and for the loader's decisions registered, ltf_r: at every edge the compare of the value the
// scan takes with this cycle's fine_lim (the scan staying: lt_fl; moving: the target's compare, made
// side by side with the others below). fine_lim only grows, so ltf_r may be low a cycle after ccur
// passed the scan (the loader waits that cycle) but is never high with the scan at or beyond it.
reg             ltf_r;
wire            due_lt_fl = (due_p1 < fine_lim);
wire            cap_lt_fl = b_hold && !b_ge_fine;                 // cap_s < fine_lim
wire            ltf_fsk   = (df_le && dc_le) ? due_lt_fl : (!df_le && fc_le) ? 1'b0 : cap_lt_fl;
wire            ltf_inc   = (scan_p1 < fine_lim);
wire            ltf_jmp   = (b_hold && !due_lt_b) ? !b_ge_fine : due_lt_fl;
wire            ltf_rw    = (rw_t_q < fine_lim);
wire            lt_cap    = !b_hold || (scan < b_slot);
// skip targets: the minimum of the limits (pairwise compares, side by side)
wire            df_le     = (due_p1 <= fine_lim);
wire            dc_le     = !b_hold || (due_p1 <= b_slot);
wire            fc_le     = !b_hold || (fine_lim <= b_slot);
wire [AS_W-1:0] fskip_t   = (df_le && dc_le) ? due_p1 : (!df_le && fc_le) ? fine_lim : cap_s;
// (the in-word skip target's compares made for both searches' targets, g_tgt_q and gn_tgt_q, and
// picked by sk_next after them: no multiplexer in front of the carry chains)
wire [1:0]      gd_le2    = {(gn_tgt_q <= due_p1),   (g_tgt_q <= due_p1)};
wire [1:0]      gf_le2    = {(gn_tgt_q <= fine_lim), (g_tgt_q <= fine_lim)};
wire [1:0]      gc_le2    = {(gn_tgt_q <= b_slot),   (g_tgt_q <= b_slot)};
wire [1:0]      gf_lt2    = {(gn_tgt_q < fine_lim),  (g_tgt_q < fine_lim)};
wire            gd_le     = sk_next ? gd_le2[1] : gd_le2[0];
wire            gf_le     = sk_next ? gf_le2[1] : gf_le2[0];
wire            gc_le     = !b_hold || (sk_next ? gc_le2[1] : gc_le2[0]);
wire            gf_lt     = sk_next ? gf_lt2[1] : gf_lt2[0];
wire            g_take    = gd_le && gf_le && gc_le;
wire            ltf_gsk   = g_take ? gf_lt : ltf_fsk;
wire [AS_W-1:0] gskip_t   = g_take ? gs_tgt_q : fskip_t;
// how a skip moves the scan: to the word end (the next word's search is valid next cycle) or elsewhere
// (SK_NEXT only when this cycle's next-word search ran on a loaded word)
wire [1:0]      sk_nw     = fn_v ? SK_NEXT : SK_NONE;
wire [1:0]      gskip_k   = (g_take && gs_off_q[GROUP_W]) ? sk_nw : SK_NONE;
// how a move by one slot does
wire            inc_nw    = (scan[GROUP_W-1:0] == {GROUP_W{1'b1}});   // +1 enters the next word
wire [1:0]      inc_k     = inc_nw ? sk_nw : SK_SAME;
// fcount takes the insert's write (f_we, behind the quota test) a cycle later, f_we_q: the count is
// fcount + f_we_q (fcount itself never below 0: a node written at an edge is not freed before it)
wire            fc_zero   = (fcount == ZN) && !f_we_q;
wire            cc_zero   = (ccount == ZN);
wire            act_fskip = fc_zero && lt_due && ltf_r && lt_cap;
wire            act_gskip = fw_v && !fc_zero && !fbit_scan && g_ok && g_in_rng &&
                            lt_due && ltf_r && lt_cap;
wire            b_at_scan = b_hold && (b_slot == scan);
wire            ld_can    = !ld_claim && ltf_r;
wire            act_claim = fw_v && ld_can && (fbit_scan || b_at_scan) && lt_due;
// claim ahead: while the loader walks slot scan, it claims scan+1 and reads its word, so that the
// walk goes on into the next slot without a bubble
// first slot of the next occupancy word: bit 0 of the rotated copy gn_rest (no increment in front
// of the multiplexer)
wire            g1_bit0   = cur_n[0] && fn_v;   // (not loaded: no claim ahead into it)
wire [(1<<GROUP_W)-1:0] g_word_n = {g1_bit0, cur_w[(1<<GROUP_W)-1:1]};   // bit k: slot scan_g*64 + k + 1
wire            fbit_next = g_word_n[scan[GROUP_W-1:0]];
wire            pc_issue  = ld_claim && (pc_st == 2'd0) && (be_st == BE_LWALK || (be_st == BE_LHEAD && fbit_scan)) &&
                            fbit_next && ltf_inc && (scan < due_slot);

// backward PHC step: rewind the scan to max(due slot + 1, the fine window's floor, hi_s: not below a
// cell of the buffer), computed ahead in two registered steps: the floor from ccur (rw_fl_q), then
// the maximum (rw_t_q, three compares side by side). The rewind uses rw_t_q only when it is exact for
// the floor and hi_s: the window's top (rw_c) did not change over the two cycles and hi_s not over
// the last one, and no PHC step came in the cycle it was computed (rw_v). Its due slot may be one
// cycle old, i.e. lower: the scan then catches up over due slots, as after any rewind.
wire [AC_W-1:0] rw_c      = cs_busy ? ccur_p1 : ccur;
wire [AS_W-1:0] rw_top    = {rw_c, {CWB{1'b0}}};
wire [AS_W-1:0] rw_floor  = (rw_top > N_SLOTS) ? (rw_top - N_SLOTS) : {AS_W{1'b0}};
wire            rw_df     = (due_p1 >= rw_fl_q);
wire            rw_dh     = (due_p1 >= hi_s);
wire            rw_fh     = (rw_fl_q >= hi_s);
wire [AS_W-1:0] rw_t      = (rw_df && rw_dh) ? due_p1 : (!rw_df && rw_fh) ? rw_fl_q : hi_s;
// rw_c == rw_c_q without the increment of ccur in front: ccur + 1 == rw_c_q is ccur == rw_c_q - 1
wire            rw_c_same = cs_busy ? (ccur == rw_cm_q) : (ccur == rw_c_q);
wire            rw_rdy    = rw_v && rw_same_q && rw_c_same && (hi_s == rw_hs_q);

// both wheels empty: jump scan and ccur to the present at once
wire [AC_W-1:0] jump_c1   = due_p1[AS_W-1:CWB] + 1'b1;
// (minimums with cap_s / cap_c from compares with b_slot / b_cslot side by side with b_hold: no
// multiplexer in front of a compare; scan < jump_s is lt_due && lt_cap)
wire            capc_on   = b_hold && b_ge_fine;
wire            due_lt_b  = (due_p1 < b_slot);
wire            jump_capc = capc_on && !(jump_c1 < b_cslot);
wire [AC_W-1:0] jump_cc   = jump_capc ? b_cslot : jump_c1;
// jump_cc > ccur with both compares side by side (no multiplexer in front of the compare)
wire            jump_c_up = jump_capc ? (b_cslot > ccur) : (jump_c1 > ccur);
wire [AS_W-1:0] jump_s    = (b_hold && !due_lt_b) ? b_slot : due_p1;
// b_lts for the next cycle: the entry on the port (i_*) and the waiting entry (b_*) against every value
// the scan can take at this edge (it stays; +1; fskip_t, gskip_t, jump_s, rw_t_q)
// (each compare twice, for the launch time on the port (lts_i[0]) and for the horizon's slot
// (lts_i[1]); the entry's first cycle picks by b_capped, so the horizon compare (i_cap) is in front
// of neither)
wire [AS_W-1:0] il_slot   = s_ins_launch_ns[63:SLOT_NS_W];
wire [AS_W-1:0] ih_slot   = phc_h[63:SLOT_NS_W];
wire [1:0]      i_lt_s    = {(ih_slot < scan),     (il_slot < scan)};
wire [1:0]      i_le_s    = {(ih_slot <= scan),    (il_slot <= scan)};
wire [1:0]      i_lt_due  = {(ih_slot < due_p1),   (il_slot < due_p1)};
wire [1:0]      i_lt_fl   = {(ih_slot < fine_lim), (il_slot < fine_lim)};
wire [1:0]      i_lt_cap  = !b_hold ? {(ih_slot != SLOT_MAX), (il_slot != SLOT_MAX)} : {(ih_slot < b_slot), (il_slot < b_slot)};
wire [1:0]      i_lt_gg   = {(ih_slot < g_tgt_q),  (il_slot < g_tgt_q)};
wire [1:0]      i_lt_gn   = {(ih_slot < gn_tgt_q), (il_slot < gn_tgt_q)};
wire [1:0]      i_lt_gt   = sk_next ? i_lt_gn : i_lt_gg;
wire [1:0]      i_lt_rw   = {(ih_slot < rw_t_q),   (il_slot < rw_t_q)};
wire [1:0]      i_lt_fsk  = (df_le && dc_le) ? i_lt_due : (!df_le && fc_le) ? i_lt_fl : i_lt_cap;
wire [1:0]      i_lt_gsk  = g_take ? i_lt_gt : i_lt_fsk;
wire [1:0]      i_lt_jmp  = (b_hold && !due_lt_b) ? i_lt_cap : i_lt_due;
wire            b_eq_s    = (b_slot == scan);
wire            b_lt_rw   = (b_slot < rw_t_q);
wire            lts_binc  = b_lt_scan || b_eq_s;      // the waiting entry when the scan moves by one
wire            act_jump  = !init && (be_st == BE_IDLE) && !ld_claim && !rewind_req && !sweep_pend &&
                            (cs_st == CS_IDLE) && fc_zero && cc_zero && lt_due && lt_cap;

// The scan's moves as one-hot signals, flat (the back-end's case above keeps only its own state):
// the idle moves in the case's priority, written out with what makes them exclusive (fc_zero: a
// jump or a fine skip, never an in-word skip; !fbit_scan: an in-word skip, a claim only at stage
// B's slot), so each register of the scan's loads through one AND-OR select at the end of its
// cone, not through the case's chain of multiplexers (the 2.34 ns path into fs_q of the core).
wire            be_free   = (be_st == BE_IDLE) && !init && !(sweep_pend && be_rr) && !ld_claim;
// Each idle move is (its terms other than lt_due / lt_cap) && lt_due && lt_cap: the two scan compares
// (58-bit carry chains, the latest signals here) enter the moves' last LUT, the rest is computed
// beside them (kept nets, so the mapper does not fold the compares in deeper).
wire            claim_pre = fw_v && ld_can && (fbit_scan || b_at_scan);                     // act_claim / lt_due
(* keep *) wire j_pre;
assign j_pre = be_free && !rewind_req && !sweep_pend && (cs_st == CS_IDLE) && fc_zero && cc_zero;
(* keep *) wire f_pre;
assign f_pre = be_free && !rewind_req && fc_zero && ltf_r && !claim_pre &&
               (sweep_pend || (cs_st != CS_IDLE) || !cc_zero);                 // (!act_jump)
(* keep *) wire g_pre;
assign g_pre = be_free && !rewind_req && fw_v && !fc_zero && !fbit_scan && g_ok &&
               g_in_rng && ltf_r && !(ld_can && b_at_scan);
(* keep *) wire gnw_pre;
assign gnw_pre = g_pre && g_take && gs_off_q[GROUP_W];
(* keep *) wire grl_pre;
assign grl_pre = g_pre && !g_take;
(* keep *) wire m_rw;
assign m_rw = be_free && rewind_req && rw_rdy && (rw_t_q < scan);
(* keep *) wire m_inc;
assign m_inc = ((be_st == BE_LHEAD) && !fbit_scan) || (l_go && !l_spl_end && !l_sub_end && l_last);
(* keep *) wire inc_nw_m;
assign inc_nw_m = m_inc && inc_nw;
wire            lt_dc     = lt_due && lt_cap;
wire            m_jump    = j_pre && lt_dc;             // == be_free && act_jump
wire            m_fskip   = f_pre && lt_dc;             // act_fskip, none before it
wire            m_gskip   = g_pre && lt_dc;             // act_gskip, none before it
wire            m_mv      = m_jump || m_rw || m_fskip || m_gskip || m_inc;
// into the next word (its words become the scan's), or to a slot whose words are not loaded
wire            m_nw      = (gnw_pre && lt_dc) || inc_nw_m;
wire            m_rl      = ((j_pre || f_pre || grl_pre) && lt_dc) || m_rw;
wire [AS_W-1:0] scan_mv   = ({AS_W{m_jump}} & jump_s) | ({AS_W{m_rw}} & rw_t_q) | ({AS_W{m_fskip}} & fskip_t) |
                            ({AS_W{m_gskip}} & gskip_t) | ({AS_W{m_inc}} & scan_p1) | ({AS_W{!m_mv}} & scan);
wire            ltf_mv    = (m_jump && ltf_jmp) || (m_rw && ltf_rw) || (m_fskip && ltf_fsk) ||
                            (m_gskip && ltf_gsk) || (m_inc && ltf_inc) || (!m_mv && lt_fl);
wire [1:0]      lts_i_mv  = ({2{m_jump}} & i_lt_jmp) | ({2{m_rw}} & i_lt_rw) | ({2{m_fskip}} & i_lt_fsk) |
                            ({2{m_gskip}} & i_lt_gsk) | ({2{m_inc}} & i_le_s) | ({2{!m_mv}} & i_lt_s);
// sg1_q: +1 into the next word, scan_g + 1 after a reload (both increments kept apart, so that no
// multiplexer in front of one shared adder puts the move's decision before a carry chain)
(* keep *) wire [NG_W-1:0] sg1_inc;
assign sg1_inc = sg1_q + 1'b1;
(* keep *) wire [NG_W-1:0] sgs_inc;
assign sgs_inc = scan_g + 1'b1;
wire [NG_W-1:0] sg1_mv    = ({NG_W{m_nw}} & sg1_inc) | ({NG_W{!m_nw && !sg_v}} & sgs_inc) |
                            ({NG_W{!m_nw && sg_v}} & sg1_q);

// coarse skips
// with the coarse wheel empty, ccur follows the fine window's top: fine_lim <= scan + 2^SLOT_W
wire [AC_W-1:0] cskip_l   = scan_n[AS_W-1:CWB];
wire [AC_W-1:0] cskip_t   = (capc_on && !(cskip_l < b_cslot)) ? b_cslot : cskip_l;
// cskip_t > ccur without the minimum in front of the compare: both limits above ccur
wire            cap_c_gt  = capc_on ? (b_cslot > ccur) : (ccur != CSLOT_MAX);
wire            act_cskip = cc_zero && (cskip_l > ccur) && cap_c_gt;
wire [CGROUP_W-1:0] ccur_g = ccur[CSLOT_W-1:CGS_W];
wire            cg_empty  = (cgcnt[ccur_g] == ZN);
wire [AC_W-CGS_W-1:0] ccur_gn = ccur[AC_W-1:CGS_W] + 1'b1;
wire [AC_W-1:0] cg_end    = {ccur_gn, {CGS_W{1'b0}}};
wire [AC_W-1:0] cg_lim    = due_p1[AS_W-1:CWB];
// the minimum of the group's end, the due slot's coarse slot and cap_c, from pairwise compares side
// by side (the group's end compared through its group number: no increment in front of a compare);
// it lies above ccur when the two others do (the group's end always does)
wire            cg_el     = (ccur[AC_W-1:CGS_W] < cg_lim[AC_W-1:CGS_W]);    // cg_end <= cg_lim
wire            cg_ec     = capc_on ? (ccur[AC_W-1:CGS_W] < b_cslot[AC_W-1:CGS_W])    // cg_end <= cap_c
                                    : (ccur[AC_W-1:CGS_W] != CSLOT_MAX[AC_W-1:CGS_W]);
wire            cg_lc     = !capc_on || (cg_lim <= b_cslot);
wire [AC_W-1:0] cgskip_t  = (cg_el && cg_ec) ? cg_end : (!cg_el && cg_lc) ? cg_lim : cap_c;
wire            act_cgskip = fc_zero && !cc_zero && cg_empty && (cg_lim > ccur) && cap_c_gt;
wire            cs_start  = !cc_zero && ({ccur_p1, {CWB{1'b0}}} <= scan_n);
// co-simulation only (g_ff below; constant 0 without SIM_FAST_FORWARD): right after a fast-forward
// jump, ccur moves at once over the empty coarse slots the cascade would have stepped over one by one
wire            ff_cfix;
wire [AC_W-1:0] ff_cfix_t;

// ------------------------------------------------------------------ RAM port control
function [CNT_W-1:0] cnt_inc;      // saturating slot entry count
    input [CNT_W-1:0] c;
    begin
        cnt_inc = (c == CNT_MAX) ? CNT_MAX : c + 1'b1;
    end
endfunction

always @* begin
    // insert-side reads: always for the entry on the port (a waiting entry's words are held)
    fa_ra = i_eff[SLOT_NS_W +: SLOT_W];
    ca_ra = i_eff[SLOT_NS_W+CWB +: CSLOT_W];
    q_ra  = s_ins_queue;
    fb_ra = pc_issue ? scan_p1[SLOT_W-1:0] : scan[SLOT_W-1:0];
    cb_ra = ccur[CSLOT_W-1:0];
    fc_ra = nf_rd;
    dk_ra = nf_rd;
    nf_ra = cw_node;
    cx_ra = cw_node;
    rl_ra = nd_queue;

    f_we = 1'b0; f_wa = b_fidx; f_wd = {FW_W{1'b0}};
    c_we = 1'b0; c_wa = b_cidx; c_wd = {CW_W{1'b0}};
    nd_we = 1'b0; nd_wa = alloc_node; nd_wd = {alloc_gen, b_launch, b_q, b_h, b_capped, b_lp};
    fx_we = 1'b0; fx_wa = bf_word[NODE_W-1:0]; fx_wd = alloc_node;
    cx_we = 1'b0; cx_wa = bc_word[NODE_W-1:0]; cx_wd = alloc_node;
    bs_we = 1'b0; bs_wa = l_cur; bs_wd = {nd_gen, 1'b0};
    sn_we = 1'b0; sn_wa = sub_t[spl_o]; sn_wd = l_cur;
    fc_we = 1'b0; fc_wa = cw_fidx; fc_wd = {FW_W{1'b0}};
    xc_we = 1'b0; xc_wa = cf_word[NODE_W-1:0]; xc_wd = cw_node;
    qi_we = 1'b0; qi_wa = b_q; qi_wd = b_qins + 1'b1;
    r_we  = 1'b0; r_wa = rq_q; r_wd = ((wq_v && wq_q == rq_q) ? wq_d : rl_rd) + 1'b1;
    qq_we = cfg_quota_wr; qq_wa = cfg_quota_queue; qq_wd = qq_cfg;
    d_we  = 1'b0; d_wa = scan[SLOT_W-1:0]; d_wd = !l_ed;
    e_we  = 1'b0; e_wd = !l_ec;

    // back-end node reads
    case (be_st)
        BE_LHEAD: be_ra = ls_head;
        BE_LWALK: be_ra = !l_go ? l_cur :
                          l_sw ? d_head :
                          (l_mode == LM_SPLIT) ? lnx_eff :
                          (l_mode == LM_SUB && !l_last) ? (l_sub_t ? l_cur : sn_rd) :
                          !l_last ? lnx_eff : (pc_st == 2'd2) ? nx_head :
                          (pc_st == 2'd1) ? ls_head : l_cur;
        BE_LSEEK: be_ra = sub_h[sub_nx_q];
        BE_SWRES: be_ra = sw_ptr[NODE_W-1:0];
        BE_SW:    be_ra = sw_go ? sw_ptr_p1[NODE_W-1:0] : sw_ptr[NODE_W-1:0];
        default:  be_ra = l_cur;
    endcase

    if (init) begin
        f_we = 1'b1; f_wa = init_ptr[SLOT_W-1:0];
        fc_we = 1'b1; fc_wa = init_ptr[SLOT_W-1:0];
        c_we = 1'b1; c_wa = init_ptr[CSLOT_W-1:0];
        bs_we = 1'b1; bs_wa = init_ptr[NODE_W-1:0]; bs_wd = 2'b00;
        qi_we = 1'b1; qi_wa = init_ptr[QUEUE_W-1:0]; qi_wd = ZN;
        r_we  = 1'b1; r_wa = init_ptr[QUEUE_W-1:0]; r_wd = ZN;
        qq_we = 1'b1; qq_wa = init_ptr[QUEUE_W-1:0]; qq_wd = ZN;
    end else begin
        // fine-list write ports: the cascade's (cascaded lists) and the insert's (direct lists)
        if (cs_wr) begin
            fc_we = 1'b1;
            fc_wd = cf_v ? {1'b1, cf_word[FW_W-2], cnt_inc(cf_word[2*NODE_W +: CNT_W]), cf_word[2*NODE_W-1:NODE_W], cw_node}
                         : {1'b1, dk_rd, {{(CNT_W-1){1'b0}}, 1'b1}, cw_node, cw_node};
            xc_we = cf_v;
        end
        if (b_go_fine) begin
            f_we = 1'b1; f_wa = b_fidx;
            f_wd = bf_v ? {1'b1, bf_word[FW_W-2], cnt_inc(bf_word[2*NODE_W +: CNT_W]), bf_word[2*NODE_W-1:NODE_W], alloc_node}
                        : {1'b1, b_di, {{(CNT_W-1){1'b0}}, 1'b1}, alloc_node, alloc_node};
            fx_we = bf_v;
        end
        // coarse-list write port: cascade clear first, else the insert
        if (cs_clr) begin
            c_we = 1'b1; c_wa = ccur[CSLOT_W-1:0]; c_wd = {CW_W{1'b0}};
        end else if (b_go_coarse) begin
            c_we = 1'b1; c_wa = b_cidx;
            c_wd = bc_v ? {1'b1, bc_word[2*NODE_W-1:NODE_W], alloc_node} : {1'b1, alloc_node, alloc_node};
            cx_we = bc_v;
        end
        if (b_go_wheel) begin
            nd_we = 1'b1;
            qi_we = 1'b1;
        end
        // back-end: close the node it handed on / skipped, or mark a swept node dead
        if (l_go && l_mode == LM_SPLIT) begin
            sn_we = sub_m[spl_o];     // append to the node's sub-list
        end
        if (l_fin) begin
            bs_we = 1'b1; bs_wa = l_cur; bs_wd = {nd_gen, 1'b0};
        end else if (sw_go && sw_need) begin
            bs_we = 1'b1; bs_wa = sw_ptr[NODE_W-1:0]; bs_wd = {bs_bgen, 1'b1};
        end
        r_we = rq_v;
        if (l_go && l_last) begin
            d_we = l_ud;
            e_we = l_uc;
        end
    end
end

assign fr_push   = l_fin;
assign fr_push_d = {!nd_gen, l_cur};
assign fr_pop    = b_go_wheel && !alloc_bump;

// ------------------------------------------------------------------ occupancy words and counters
// set by either list's writer (insert: direct, cascade: cascaded), cleared by the loader
wire            fset     = f_we && !init;
wire [SLOT_W-1:0] fset_i = f_wa;
wire            fset2    = fc_we && !init;
wire [SLOT_W-1:0] fset2_i = fc_wa;
wire            fclr     = l_go && l_last;
wire [SLOT_W-1:0] fclr_i = scan[SLOT_W-1:0];
wire [NG_W-1:0] fw1      = fset_i[SLOT_W-1:GROUP_W];
wire [NG_W-1:0] fw2      = fset2_i[SLOT_W-1:GROUP_W];
wire [NG_W-1:0] fw3      = fclr_i[SLOT_W-1:GROUP_W];
wire [(1<<GROUP_W)-1:0] fset_b  = {{((1<<GROUP_W)-1){1'b0}}, 1'b1} << fset_i[GROUP_W-1:0];
wire [(1<<GROUP_W)-1:0] fset2_b = {{((1<<GROUP_W)-1){1'b0}}, 1'b1} << fset2_i[GROUP_W-1:0];
wire [(1<<GROUP_W)-1:0] fclr_b  = {{((1<<GROUP_W)-1){1'b0}}, 1'b1} << fclr_i[GROUP_W-1:0];
wire [(1<<GROUP_W)-1:0] fs2_1   = (fset2 && fw2 == fw1) ? fset2_b : {(1<<GROUP_W){1'b0}};
wire [(1<<GROUP_W)-1:0] fc_1    = (fclr && fw3 == fw1) ? fclr_b : {(1<<GROUP_W){1'b0}};
wire [(1<<GROUP_W)-1:0] fc_2    = (fclr && fw3 == fw2) ? fclr_b : {(1<<GROUP_W){1'b0}};
wire [(1<<GROUP_W)-1:0] fw1_n   = (fbits[fw1] | fset_b | fs2_1) & ~fc_1;
wire [(1<<GROUP_W)-1:0] fw2_n   = (fbits[fw2] | fset2_b) & ~fc_2;
wire [(1<<GROUP_W)-1:0] fw3_n   = fbits[fw3] & ~fclr_b;
// this edge's changes to the scan's word and to the next one (sets from either writer, the loader's clear)
wire [(1<<GROUP_W)-1:0] g_setm_d  = ((fset && fw1 == scan_g) ? fset_b : {(1<<GROUP_W){1'b0}}) |
                                    ((fset2 && fw2 == scan_g) ? fset2_b : {(1<<GROUP_W){1'b0}});
wire [(1<<GROUP_W)-1:0] gn_setm_d = ((fset && fw1 == scan_g1) ? fset_b : {(1<<GROUP_W){1'b0}}) |
                                    ((fset2 && fw2 == scan_g1) ? fset2_b : {(1<<GROUP_W){1'b0}});
wire [(1<<GROUP_W)-1:0] g_clrm_d  = (fclr && fw3 == scan_g) ? fclr_b : {(1<<GROUP_W){1'b0}};
wire [(1<<GROUP_W)-1:0] gn_clrm_d = (fclr && fw3 == scan_g1) ? fclr_b : {(1<<GROUP_W){1'b0}};
// fnz: one bit per occupancy word, set while the word is non-empty; read only by the co-simulation's
// next-event search (g_ff), which finds the next non-empty word in it by halving instead of testing
// 2^NG_W words in a loop every cycle (without SIM_FAST_FORWARD it has no reader and synthesis drops it)
/* verilator lint_off UNUSEDSIGNAL */   // no reader without SIM_FAST_FORWARD
reg  [(1<<NG_W)-1:0] fnz;
/* verilator lint_on UNUSEDSIGNAL */
// The occupancy bits are written bit by bit (two sets, then the clear, which wins: the loader
// clears a slot in a cycle no append reaches it), so no word is read to be written back (written
// as whole words, each a read of fbits[fw*] modified and written back).
// The post-reset clear goes through the clear's port, one bit per cycle (init runs >= 2^SLOT_W
// cycles): a fourth, whole-word write port would add an input to every bit's logic.
wire            fclr_w   = init || fclr;
wire [SLOT_W-1:0] fclr_wi = init ? init_ptr[SLOT_W-1:0] : fclr_i;
always @(posedge wclk) begin
    if (fset)   fbits[fw1][fset_i[GROUP_W-1:0]]  <= 1'b1;     // (fset, fset2: never during init)
    if (fset2)  fbits[fw2][fset2_i[GROUP_W-1:0]] <= 1'b1;
    if (fclr_w) fbits[fclr_wi[SLOT_W-1:GROUP_W]][fclr_wi[GROUP_W-1:0]] <= 1'b0;
end
// fnz (co-simulation only) from the words as written (fw*_n: reads of fbits[fw*] that synthesis
// drops with fnz when nothing reads it)
always @(posedge wclk) begin
    if (init) begin
        fnz[init_ptr[NG_W-1:0]]   <= 1'b0;
    end else begin
        // up to three words change; where two changes hit one word, one assignment takes both
        if (fset) fnz[fw1] <= |fw1_n;
        if (fset2 && !(fset && fw1 == fw2)) fnz[fw2] <= |fw2_n;
        if (fclr && !(fset && fw1 == fw3) && !(fset2 && fw2 == fw3)) fnz[fw3] <= |fw3_n;
    end
end

wire            cg_inc  = b_go_coarse;
wire [CGROUP_W-1:0] cg_ii = b_cidx[CSLOT_W-1:CGS_W];
wire            cg_dec  = cs_wr;
integer cgi;
always @(posedge wclk) begin
    if (init) begin
        for (cgi = 0; cgi < (1 << CGROUP_W); cgi = cgi + 1) cgcnt[cgi] <= ZN;
    end else if (!(cg_inc && cg_dec && cg_ii == ccur_g)) begin   // one in and one out: unchanged
        if (cg_inc) cgcnt[cg_ii] <= cgcnt[cg_ii] + 1'b1;
        if (cg_dec) cgcnt[ccur_g] <= cgcnt[ccur_g] - 1'b1;
    end
end

// ------------------------------------------------------------------ sequential
always @(posedge wclk) begin
    flush_done_reg <= 1'b0;
    scan_k  <= SK_SAME;              // set below where the scan moves
    lt_fl_q <= lt_fl;
    bsub_q  <= b_below_sub;
    fq_i    <= (s_ins_queue == fl_q_n);
    fq_b    <= (b_q == fl_q_n);
    eq0_i   <= {(ih_slot == scan), (il_slot == scan)};
    eq1_i   <= {(ih_slot == scan_p1), (il_slot == scan_p1)};
    eq0_b   <= b_eq_s;
    eq1_b   <= (b_slot_m1 == scan);
    lts_b   <= b_lt_scan;            // (lts_b, ltf_r, lts_i, mv1: below, with the scan's moves)
    g_setm  <= g_setm_d;
    gn_setm <= gn_setm_d;
    fw_q    <= g_word;               // (fw_q .. fnc_q, fw_v: set below where the scan moves)
    fs_q    <= g_setm_d;
    fc_q    <= g_clrm_d;
    fn_q    <= gn_word;
    fns_q   <= gn_setm_d;
    fnc_q   <= gn_clrm_d;
    fw_v    <= !init && sg_v;        // the words loaded at this edge were read at valid addresses
    fn_v    <= !init && sg_v;        // (cleared below where the scan moves into the next word)
    sg_v    <= !init;
    sg1_q   <= sg1_mv;               // (scan_g + 1 after a reload: jump-like moves clear sg_v)
    g_tgt_q  <= g_tgt;
    g_off_q  <= g_off;
    g_rngm_q <= g_rngm;
    gn_tgt_q <= gn_tgt;
    gn_off_q <= gn_off;
    gn_rngm_q <= gn_rngm;
    if (phc_step) rewind_req <= 1'b1;
    rw_c_q    <= rw_c;
    rw_cm_q   <= cs_busy ? ccur : ccur - 1'b1;
    rw_same_q <= rw_c_same;
    rw_fl_q   <= rw_floor;
    rw_t_q    <= rw_t;
    rw_hs_q   <= hi_s;
    rw_v      <= rewind_req && !phc_step;
    // the occupancy counts the handshakes of the cycle before (registered: ins_hs ends a long path)
    occ_in  <= ins_hs;
    occ_out <= m_rel_valid && m_rel_ready;
    occ    <= occ + {{NODE_W{1'b0}}, occ_in} - {{NODE_W{1'b0}}, occ_out};
    fcount <= fcount + {{NODE_W{1'b0}}, f_we_q} + {{NODE_W{1'b0}}, (fc_we && !init)} - {{NODE_W{1'b0}}, l_fin};
    f_we_q <= f_we && !init;
    ccount <= ccount + {{NODE_W{1'b0}}, b_go_coarse} - {{NODE_W{1'b0}}, cs_wr};
    if (b_go_wheel && alloc_bump) bump <= bump + 1'b1;

    // forwarding registers: this cycle's writes
    ffw_v <= f_we; ffw_a <= f_wa; ffw_d <= f_wd;
    cfw_v <= c_we; cfw_a <= c_wa; cfw_d <= c_wd;
    qfw_v <= qi_we; qfw_a <= qi_wa; qfw_d <= qi_wd;
    bfw_v <= bs_we; bfw_a <= bs_wa; bfw_d <= bs_wd;
    xfw_v <= fx_we; xfw_a <= fx_wa; xfw_d <= fx_wd;
    fcw_v <= fc_we; fcw_a <= fc_wa; fcw_d <= fc_wd;
    fb_ra_q <= fb_ra;
    xcw_v <= cx_we; xcw_a <= cx_wa; xcw_d <= cx_wd;
    dfw_v <= d_we; dfw_a <= d_wa; dfw_d <= d_wd;
    rfw_v <= r_we; rfw_a <= r_wa; rfw_d <= r_wd;
    qqfw_v <= qq_we; qqfw_a <= qq_wa; qqfw_d <= qq_wd;
    b_first <= ins_hs;
    h_fw <= bf_word;
    h_di <= b_di;
    h_cw <= bc_word;
    h_qi <= b_qins;
    h_ri <= b_qrel;
    h_qq <= b_qq;
    be_ra_q <= be_ra;

    // per-queue release counter pipeline (read, then write with forwarding)
    rq_v <= l_fin && !init;
    rq_q <= nd_queue;
    wq_v <= rq_v;
    wq_q <= rq_q;
    wq_d <= r_wd;

    // ---- init
    if (init) begin
        init_ptr <= init_ptr + 1'b1;
        if (init_ptr == {1'b0, {INIT_W{1'b1}}}) init <= 1'b0;
    end

    // ---- flush control
    if (f_st) begin
        f_st <= 1'b0;
        fl_active <= 1'b1;
        fl_q <= s_flush_queue;
        sw_ptr <= ZN;
        sw_lim <= fq_empty ? ZN : bump;
    end else if (s_flush_valid && !fl_active && !init) begin
        f_st <= 1'b1;
    end
    if (fl_active && !sweep_pend && !srt_has_flushed && !(b_valid && b_flq) &&
        !(l_need && l_urg && !push_e)) begin
        fl_active <= 1'b0;
        flush_done_reg <= 1'b1;
    end

    // ---- stage B
    if (ins_hs) begin
        b_valid  <= 1'b1;
        b_q      <= s_ins_queue;
        b_h      <= s_ins_handle;
        b_launch <= i_eff;
        b_slot_m1 <= i_slot - 1'b1;
        b_slot_mn <= i_slot - N_SLOTS;
        b_small_n <= (i_slot < N_SLOTS);
        b_cslot_mc <= i_cslot - C_SLOTS;
        b_small_c <= (i_cslot < C_SLOTS);
        b_capped <= i_cap;
        b_lp     <= s_ins_late_policy;
        b_ustat  <= i_ustat;
    end else if (b_go) begin
        b_valid  <= 1'b0;
    end

    // ---- claim ahead
    if (pc_issue) pc_st <= 2'd1;
    if (pc_st == 2'd1) begin
        pc_st   <= 2'd2;
        nx_head <= ls_head;
        nx_tail <= ls_tail;
        nx_ed   <= dl_rd;
        nx_ec   <= cl_rd;
        nx_ud   <= ls_vd;
        nx_uc   <= ls_vc;
        nx_cnt  <= ls_cnt;
        nx_list <= !ls_vc;
        nx_dv   <= ls_vc && ls_vd;
        nx_dh   <= ls_wd[2*NODE_W-1:NODE_W];
        nx_dt   <= ls_wd[NODE_W-1:0];
    end

    // ---- back-end: loader and flush sweep
    case (be_st)
        BE_IDLE: begin
            if (init) begin
                be_st <= BE_IDLE;
            end else if (sweep_pend && be_rr) begin
                be_st <= BE_SWRES;
                be_rr <= 1'b0;
            end else if (ld_claim) begin
                be_st <= BE_LRES;
            end else if (act_jump) begin
                // (the scan's moves: below the case, from m_jump .. m_inc)
            end else if (rewind_req) begin
                if (rw_rdy) rewind_req <= phc_step;
            end else if (act_claim) begin
                ld_claim <= 1'b1;
                be_st <= BE_LHEAD;
                be_rr <= 1'b1;
            end else if (act_fskip || act_gskip) begin
                // (the scan skips: m_fskip, m_gskip below)
            end else if (sweep_pend) begin
                be_st <= BE_SWRES;
                be_rr <= 1'b0;
            end
        end
        BE_LHEAD: begin
            // slot word on the RAM output; the read of its head goes out now
            if (!fbit_scan) begin
                ld_claim <= 1'b0;          // empty (claimed only to let a waiting insert by; the scan
                be_st <= BE_IDLE;          // moves on by one: m_inc)
            end else begin
                l_cur   <= be_ra;
                l_ed    <= dl_rd;
                l_ec    <= cl_rd;
                l_uc    <= ls_vc;
                l_cnt   <= ls_cnt;
                l_mode  <= (ls_cnt > SPLIT_LIM) ? LM_SPLIT : LM_ONE;
                l_list  <= !ls_vc;
                o_cur   <= {SLOT_NS_W{1'b0}};
                l_burst <= 5'd0;
                be_st   <= BE_LWALK;
            end
        end
        BE_LWALK: begin
            if (l_go) begin
                if (l_spl_end) begin
                    // split pass done: walk the sub-lists from the lowest ns
                    l_mode <= LM_SUB;
                    ord_done <= {scan, {SLOT_NS_W{1'b0}}} - 1'b1;
                    be_st  <= BE_LSEEK;
                    seek_w <= 1'b1;
                end else if (l_sub_end) begin
                    be_st  <= BE_LSEEK;
                end else if (l_last) begin
                    // (the scan moves on by one: m_inc)
                    pc_st <= 2'd0;
                    o_cur <= {SLOT_NS_W{1'b0}};
                    if (pc_st == 2'd2) begin
                        // straight on into the slot claimed ahead (its head read goes out now)
                        l_cur  <= nx_head;
                        l_ed   <= nx_ed;
                        l_ec   <= nx_ec;
                        l_uc   <= nx_uc;
                        l_list <= nx_list;
                        // an append at this edge goes to its direct list
                        l_cnt  <= (b_go_fine && b_at_pc) ? nx_cnt_p1 : nx_cnt;
                        l_mode <= (nx_cnt > SPLIT_LIM) ? LM_SPLIT : LM_ONE;
                    end else if (pc_st == 2'd1) begin
                        // its word is on the RAM output now
                        l_cur  <= ls_head;
                        l_ed   <= dl_rd;
                        l_ec   <= cl_rd;
                        l_uc   <= ls_vc;
                        l_cnt  <= ls_cnt;
                        l_mode <= (ls_cnt > SPLIT_LIM) ? LM_SPLIT : LM_ONE;
                        l_list <= !ls_vc;
                    end else if (pc_issue) begin
                        l_mode <= LM_ONE;
                        be_st <= BE_LHEAD;      // its word is on the RAM output next cycle
                    end else begin
                        l_mode <= LM_ONE;
                        ld_claim <= 1'b0;
                        be_st <= BE_IDLE;
                    end
                end else begin
                    l_cur <= (l_mode == LM_SUB) ? sn_rd : l_sw ? d_head : lnx_eff;
                    if (l_sw) begin
                        // end of the cascaded list: on into the direct one (an append at this edge
                        // is its new tail, below)
                        l_list <= 1'b1;
                    end
                    l_burst <= l_burst + 1'b1;
                    if (sweep_pend && l_burst == LD_BURST - 1) begin
                        be_st <= BE_SWRES;
                        be_rr <= 1'b0;
                    end
                end
            end else if (sweep_pend) begin
                // the walk waits for a buffer cell (the buffer full of entries not yet due can hold
                // it for as long as real time takes): the flush sweep takes its turn meanwhile and
                // the walk resumes at the same node (BE_LRES reads it again)
                be_st <= BE_SWRES;
                be_rr <= 1'b0;
            end
        end
        BE_LSEEK: begin
            // next sub-list of a split slot: its head read goes out now (after the split pass, a
            // cycle later: sub_nx_q is then up to date)
            if (seek_w) begin
                seek_w <= 1'b0;
            end else begin
                l_cur <= sub_h[sub_nx_q];
                o_cur <= sub_nx_q;
                ord_done <= {scan, sub_nx_q} - 1'b1;
                sub_tq <= sub_t[sub_nx_q];
                sub_more <= (sub_m & ~sub_nx_oh) != {NSUB{1'b0}};
                be_st <= BE_LWALK;
            end
        end
        BE_LRES: begin
            be_rr <= 1'b1;
            l_burst <= 5'd0;
            be_st <= BE_LWALK;
        end
        BE_SWRES: begin
            sw_burst <= 7'd0;
            be_st <= BE_SW;
        end
        BE_SW: begin
            if (sw_go) begin
                sw_ptr <= sw_ptr_p1;
                sw_burst <= sw_burst + 1'b1;
                if (sw_ptr_p1 == sw_lim || sw_burst == SW_BURST - 1) begin
                    be_st <= ld_claim ? BE_LRES : BE_IDLE;
                end
            end
        end
        default: be_st <= BE_IDLE;
    endcase

    // ---- the scan's moves (m_*: one of them or none), each register of the scan's from one
    // AND-OR select behind them (defaults above: the scan staying)
    scan   <= scan_mv;
    ltf_r  <= ltf_mv;
    lts_i  <= lts_i_mv;
    if (m_rw || m_inc) lts_b <= m_rw ? b_lt_rw : lts_binc;
    mv1    <= m_inc;
    if (m_mv) scan_k <= m_gskip ? gskip_k : m_inc ? inc_k : SK_NONE;
    if (m_rl) begin
        fw_v <= 1'b0;
        sg_v <= 1'b0;
    end
    if (m_rl || m_nw) fn_v <= 1'b0;
    if (m_nw) begin
        fw_q  <= gn_word;
        fs_q  <= gn_setm_d;
        fc_q  <= gn_clrm_d;
    end

    // an entry appended to a slot the loader holds becomes the walk's new tail
    // (direct list: while the cascaded list is walked, the direct list that follows it)
    // (the tails, d_v, d_head and l_ud: in the walk-list block above the cascade requests)
    if (app_cl) l_cnt <= l_cnt + 1'b1;
    if (b_go_fine && b_at_pc && pc_st == 2'd2) begin
        if (nx_list) begin
            nx_tail <= alloc_node;
        end else begin
            nx_dt <= alloc_node;
            if (!nx_dv) nx_dh <= alloc_node;
            nx_dv <= 1'b1;
        end
        nx_ud   <= 1'b1;
        nx_cnt  <= nx_cnt + 1'b1;
    end

    // split slot: the split pass appends each node to the list of its ns; the walk empties them
    if (l_go && l_mode == LM_SPLIT) begin
        if (!sub_m[spl_o]) sub_h[spl_o] <= l_cur;
        sub_t[spl_o] <= l_cur;
    end
    if (l_go && l_mode == LM_SPLIT) sub_m[spl_o] <= 1'b1;
    else if (be_st == BE_LSEEK && !seek_w) sub_m[sub_nx_q] <= 1'b0;
    sub_nx_q <= sub_nx;

    // the buffer's cells lie below hi_s (a rewind of the scan stops there)
    if (srt_count == {(SORT_W+1){1'b0}} && !push_e && !push_b) begin
        hi_s <= {AS_W{1'b0}};
    end else if (push_e && be_st == BE_LWALK && !l_urg) begin
        if (scan_p1 > hi_s) hi_s <= scan_p1;
    end else if (push_b && !b_urg) begin
        if (b_slot >= hi_s) hi_s <= b_slot + 1'b1;
    end
    if (b_go_coarse && b_at_ccur) cw_tail <= alloc_node;

    // ---- cascade
    case (cs_st)
        CS_IDLE: begin
            if (init || act_jump) begin
                if (act_jump && jump_c_up) ccur <= jump_cc;
            end else if ((SIM_FAST_FORWARD != 0) && ff_cfix) begin   // (a constant-false branch in a board build)
                ccur <= ff_cfix_t;
            end else if (cs_start) begin
                cs_st <= CS_HEAD;
            end else if (act_cskip) begin
                ccur <= cskip_t;
            end else if (act_cgskip) begin
                ccur <= cgskip_t;
            end
        end
        CS_HEAD: begin
            if (!cs_word[CW_W-1]) begin
                ccur <= ccur_p1;
                cs_st <= CS_IDLE;
            end else begin
                cw_node <= cs_word[2*NODE_W-1:NODE_W];
                cw_tail <= cs_word[NODE_W-1:0];
                cs_st <= CS_RD;
            end
        end
        CS_RD: begin
            cs_st <= CS_SL;
        end
        CS_SL: begin
            cw_next <= (b_go_coarse && b_at_ccur && cw_node == cw_tail) ? alloc_node :
                       (xcw_v && xcw_a == cw_node) ? xcw_d : cx_rd;
            cw_fidx <= nf_rd;
            cs_st <= CS_WR;
        end
        CS_WR: if (cs_wr) begin
            if (cw_node == cw_tail) begin
                ccur <= ccur_p1;
                cs_st <= CS_IDLE;
            end else begin
                cw_node <= cw_next;
                cs_st <= CS_RD;
            end
        end
        default: cs_st <= CS_IDLE;
    endcase

    if (!fw_v) scan_k <= SK_NONE;    // this cycle's searches ran on words not loaded yet

    if (rst) begin
        init <= 1'b1;
        init_ptr <= {(INIT_W+1){1'b0}};
        scan <= {AS_W{1'b0}};
        ltf_r <= 1'b0;
        mv1 <= 1'b0;
        scan_k <= SK_NONE;
        fw_v <= 1'b0;
        sg_v <= 1'b0;
        fn_v <= 1'b0;
        ld_claim <= 1'b0;
        pc_st <= 2'd0;
        l_mode <= LM_ONE;
        l_cnt <= {CNT_W{1'b0}};
        nx_cnt <= {CNT_W{1'b0}};
        sub_m <= {NSUB{1'b0}};
        seek_w <= 1'b0;
        o_cur <= {SLOT_NS_W{1'b0}};
        hi_s <= {AS_W{1'b0}};
        ccur <= {AC_W{1'b0}};
        fcount <= ZN;
        f_we_q <= 1'b0;
        ccount <= ZN;
        bump <= ZN;
        occ <= ZN;
        occ_in <= 1'b0;
        occ_out <= 1'b0;
        rewind_req <= 1'b0;
        fl_active <= 1'b0;
        fl_q <= {QUEUE_W{1'b0}};
        f_st <= 1'b0;
        sw_ptr <= ZN;
        sw_lim <= ZN;
        flush_done_reg <= 1'b0;
        be_rr <= 1'b0;
        b_valid <= 1'b0;
        be_st <= BE_IDLE;
        cs_st <= CS_IDLE;
        l_burst <= 5'd0;
        sw_burst <= 7'd0;
        rq_v <= 1'b0;
        wq_v <= 1'b0;
        ffw_v <= 1'b0;
        cfw_v <= 1'b0;
        qfw_v <= 1'b0;
        bfw_v <= 1'b0;
        xfw_v <= 1'b0;
        fcw_v <= 1'b0;
        l_list <= 1'b1;
        xcw_v <= 1'b0;
        dfw_v <= 1'b0;
        rfw_v <= 1'b0;
        qqfw_v <= 1'b0;
        b_first <= 1'b0;
    end
end





`ifdef TSNIC_CAL_CHECK
// bench-only self-check of the registered compare (tests/cocotb/tsnic_calendar: CAL_CHECK=1)
// The idle moves are written twice: act_* keep the back-end case's priority (and the fast-forward's
// quiet test), the flat m_* load the scan. They must be the same decision: the case's branch taken
// and the move (be_free is the case's way into its idle branches).
wire chk_skip = be_free && !act_jump && !rewind_req && !act_claim;
always @(posedge wclk) begin
    if (!rst && (m_jump != (be_free && act_jump) || m_fskip != (chk_skip && act_fskip) ||
                 m_gskip != (chk_skip && act_gskip))) begin
        $display("tsnic_calendar: flat moves jump/fskip/gskip %0d%0d%0d but the case's %0d%0d%0d (scan %0d)",
                 m_jump, m_fskip, m_gskip, be_free && act_jump, chk_skip && act_fskip, chk_skip && act_gskip, scan);
        $finish;
    end
    if (!rst && !init && b_valid && !b_urg && (b_lt_scan != (b_slot < scan))) begin
        $display("tsnic_calendar: b_lt_scan %0d but b_slot %0d scan %0d", b_lt_scan, b_slot, scan);
        $finish;
    end
    if (!rst && !init && (rw_c_same != (rw_c == rw_c_q))) begin
        $display("tsnic_calendar: rw_c_same %0d but rw_c %0d rw_c_q %0d", rw_c_same, rw_c, rw_c_q);
        $finish;
    end
    // stage B's registered slot compares: as the compares with this cycle's scan would be
    if (!rst && !init && b_valid && (b_at_claim != ((b_slot == scan) && ld_claim) ||
                                     b_at_pc != ((b_slot_m1 == scan) && (pc_st != 2'd0)))) begin
        $display("tsnic_calendar: b_at_claim %0d b_at_pc %0d wrong (b_slot %0d scan %0d ld_claim %0d pc_st %0d mv1 %0d)",
                 b_at_claim, b_at_pc, b_slot, scan, ld_claim, pc_st, mv1);
        $finish;
    end
    // the skip's range test without a lower bound: no slot below the scan set at the last edge
    if (!rst && !init && scan_k != SK_NONE && ((sk_next ? gn_setm : g_setm) & ~({(1<<GROUP_W){1'b1}} << scan[GROUP_W-1:0])) != {(1<<GROUP_W){1'b0}}) begin
        $display("tsnic_calendar: slot below the scan set at the last edge (setm %h, scan %0d)", sk_next ? gn_setm : g_setm, scan);
        $finish;
    end
    // the registered range masks: the slots below the registered offsets
    if (!rst && (g_rngm_q != (g_off_q[GROUP_W] ? {(1<<GROUP_W){1'b1}} : ~({(1<<GROUP_W){1'b1}} << g_off_q[GROUP_W-1:0])) ||
                 gn_rngm_q != (gn_off_q[GROUP_W] ? {(1<<GROUP_W){1'b1}} : ~({(1<<GROUP_W){1'b1}} << gn_off_q[GROUP_W-1:0])))) begin
        $display("tsnic_calendar: range mask %h / %h but offsets %0d / %0d", g_rngm_q, gn_rngm_q, g_off_q, gn_off_q);
        $finish;
    end
    // the registered fine-limit compare: never high with the scan at or beyond the limit
    if (!rst && !init && ltf_r && !lt_fl) begin
        $display("tsnic_calendar: ltf_r high but scan %0d >= fine_lim %0d", scan, fine_lim);
        $finish;
    end
    // the next words' addresses: exact whenever valid
    if (!rst && !init && sg_v && sg1_q != scan_g + 1'b1) begin
        $display("tsnic_calendar: sg1_q %0d but scan_g %0d", sg1_q, scan_g);
        $finish;
    end
    // the registered occupancy word: exact whenever valid, and valid while the loader holds a slot
    if (!rst && !init && ((fw_v && cur_w != g_word) || (fn_v && cur_n != gn_word))) begin
        $display("tsnic_calendar: cur_w %h cur_n %h but occupancy words %h %h (scan %0d)", cur_w, cur_n, g_word, gn_word, scan);
        $finish;
    end
    // (the flush sweep, BE_SWRES / BE_SW, reads no occupancy word and may start while they reload)
    if (!rst && !init && !fw_v && (ld_claim || (be_st != BE_IDLE && be_st != BE_SWRES && be_st != BE_SW))) begin
        $display("tsnic_calendar: fw_v low in loader state %0d (scan %0d)", be_st, scan);
        $finish;
    end
end
`endif

assign s_ins_ready    = ins_ready;
assign s_flush_ready  = f_st;
assign flush_done     = flush_done_reg;
assign stat_occupancy = occ;
assign stat_init_busy = init;

// Fast-forward (docs/ARCHITECTURE.md, "Idle fast-forward"). Quiet: no entry in stage B or the release
// buffer, every engine idle, nothing on the ports, no slot claimable now. Then the only updates are the
// scan's and ccur's moves towards the present (act_jump, act_fskip, act_gskip), until
// - the loader claims the first non-empty fine slot at or after the scan: from now_l = slot << SLOT_NS_W;
// - with the coarse wheel holding entries, the cascade starts on the first non-empty coarse slot c*
//   at or after ccur once due_p1 + 2^SLOT_W reaches (c* + 1) * 2^CWB, i.e. from
//   now_l = (((c* + 1) << CWB) - 2^SLOT_W - 1) << SLOT_NS_W. Stepping, the empty slots before it
//   are cascaded one by one as time reaches them (cs_start, CS_HEAD: two cycles each, not quiet);
//   after a jump, ff_cfix moves ccur over them at once to where those cascades would have left it,
//   max(ccur, min(c*, (due_p1 + 2^SLOT_W) >> CWB)), in the four cycles after the jump's edge.
// act_jump and act_fskip set the scan to max(scan, f(phc)) with f monotonic in one cycle, so skipping
// cycles of them and then taking one gives the same scan. act_gskip moves the scan at most to the end
// of its occupancy word per cycle, and over empty words it crosses two words every three cycles (a
// move into the next word leaves the word after it unloaded for a cycle, fn_v): a jump is taken in
// steps of half a word's time (ff_chunk_ns), one clock edge each, so the scan gains on the due slot
// and trails it by at most a few words (a skip to the due limit costs it four edges), which it
// catches up in the stepped cycles before the wake (FF_SETTLE in sim/card). With steps of a whole
// word's time it would fall a third of a word further behind at every step.
generate
    if (SIM_FAST_FORWARD != 0) begin : g_ff
        // Both searches below are memoised (sim only, for the co-simulation's speed): each keeps its last
        // result in registers with the state it was computed from, and an evaluation re-runs the search
        // only when that state moved in a way that may change the result; otherwise it returns the kept
        // result, which is then the search's own answer (so the outputs are those of the plain search).
        // The conditions read registered state only (no top-level input), so the searches stay in the
        // clocked region and cost nothing in the cycles where they hit.
        //
        // Fine: the first non-empty slot at or after the scan (absolute; in [scan, scan + 2^SLOT_W)).
        // Kept result (fm_found, fm_slot) for scan fm_scan holds while no occupancy word was written
        // (fm_v) and the scan has not moved back nor past fm_slot: slots [fm_scan, fm_slot) are empty,
        // so those the window loses or gains as the scan moves within them change nothing; with nothing
        // found every word is empty and the scan does not matter (occ_slot is then not used).
        reg             fm_v, fm_found;
        reg  [AS_W-1:0] fm_scan, fm_slot;
        // During the post-reset clear (init) no output reads either result (ff_quiet and ff_cfix are
        // low): no search then either; the first cycle after it searches (fm_v, cm_v low).
        wire            fm_hit = init || (fm_v && (!fm_found || (scan >= fm_scan && scan <= fm_slot)));
        localparam integer NWD = 1 << NG_W;
        reg                     occ_found;
        reg  [AS_W-1:0]         occ_slot;
        reg  [(1<<GROUP_W)-1:0] first_word_hi, occ_word;
        reg  [NG_W-1:0]         s1, nz_j, wi;   // nz_j: lowest set bit of nz_rot (halving)
        reg  [NWD-1:0]          nz_rot, nz_t;
        reg                     occ_here;
        reg  [NG_W:0]           occ_woff;
        reg  [GROUP_W-1:0]      occ_bit;
        integer                 h, b;
        always @* begin
            first_word_hi = {(1<<GROUP_W){1'b0}};
            s1 = {NG_W{1'b0}};
            nz_rot = {NWD{1'b0}};
            nz_t = {NWD{1'b0}};
            nz_j = {NG_W{1'b0}};
            occ_here = 1'b0;
            occ_woff = {(NG_W+1){1'b0}};
            wi = {NG_W{1'b0}};
            occ_word = {(1<<GROUP_W){1'b0}};
            occ_bit = {GROUP_W{1'b0}};
            if (fm_hit) begin
                occ_found = fm_found;
                occ_slot  = fm_slot;
            end else begin
                // the first non-empty occupancy word at or after the scan's (offset in words; the
                // scan's own word again at offset 2^NG_W, for its slots below the scan), then the slot
                first_word_hi = g_word & ({(1<<GROUP_W){1'b1}} << scan[GROUP_W-1:0]);
                // fnz rotated so that bit j is word scan_g + 1 + j (j = 2^NG_W - 1: the scan's own word)
                s1     = scan_g + 1'b1;
                nz_rot = (fnz >> s1) | (fnz << (NWD - {{(32-NG_W){1'b0}}, s1}));
                nz_t   = nz_rot;
                for (h = NG_W - 1; h >= 0; h = h - 1) begin
                    if ((nz_t & ({NWD{1'b1}} >> (NWD - (1 << h)))) == {NWD{1'b0}}) begin
                        nz_j = nz_j | (1 << h);
                        nz_t = nz_t >> (1 << h);
                    end
                end
                occ_here  = (first_word_hi != {(1<<GROUP_W){1'b0}});
                occ_found = occ_here || (nz_rot != {NWD{1'b0}});
                // word offset from the scan's word: 0 (its slots at or after the scan), else 1 + nz_j
                occ_woff  = occ_here ? {(NG_W+1){1'b0}} :
                            !occ_found ? {(NG_W+1){1'b0}} : {1'b0, nz_j} + 1'b1;
                wi        = scan_g + occ_woff[NG_W-1:0];
                occ_word  = occ_here ? first_word_hi : !occ_found ? {(1<<GROUP_W){1'b0}} : fbits[wi];
                for (b = (1 << GROUP_W) - 1; b >= 0; b = b - 1) begin
                    if (occ_word[b]) occ_bit = b[GROUP_W-1:0];
                end
                // absolute slot: the scan's word base plus the word offset, plus the bit
                occ_slot = {scan[AS_W-1:GROUP_W], {GROUP_W{1'b0}}} +
                           {{(AS_W-NG_W-1-GROUP_W){1'b0}}, occ_woff, occ_bit};
            end
        end
        always @(posedge wclk) begin
            // fset / fset2 / fclr / init are the writes of fbits (and fnz)
            fm_v    <= !(init || fset || fset2 || fclr);
            fm_scan <= scan;
            fm_found <= occ_found;
            fm_slot <= occ_slot;
            if (rst) fm_v <= 1'b0;
        end
        wire [63:0]     occ_l    = {occ_slot, {SLOT_NS_W{1'b0}}};
        wire [63:0]     occ_phc  = (occ_l > {32'd0, lookahead_ns}) ? occ_l - {32'd0, lookahead_ns} : 64'd0;

        // Coarse occupancy (sim only): one bit per coarse ring slot, set where the insert appends to
        // a coarse list and cleared where the cascade clears the slot's word, in words of 2^CB slots.
        // cstar: the first coarse slot at or after ccur that may hold entries (a lower bound: every
        // slot in [ccur, cstar) is empty), searched by the group counts (cgcnt), then the words of
        // the group, then the bits of the word; each step a halving search of at most 64 bits.
        localparam integer CB    = (CGS_W < 6) ? CGS_W : 6;     // slots per occupancy word: 2^CB
        localparam integer CWW   = CSLOT_W - CB;                // word index width
        localparam integer WPG_W = CGS_W - CB;                  // words per coarse group: 2^WPG_W
        localparam integer NCG   = 1 << CGROUP_W;
        localparam integer WPG   = 1 << WPG_W;
        if (CB < 1 || WPG_W > 6 || CGROUP_W > 6 || CSLOT_W < 7) begin : g_bad_coarse_search
            tsnic_param_error_calendar_ff_needs_cslot_w_7_up_cgs_w_1_to_12_cgroup_w_up_to_6 bad_ff_inst ();
        end
        reg  [(1<<CB)-1:0] cocc [0:(1<<CWW)-1];
        reg  [3:0]         ff_w;      // one of the last four edges carried a jump (covers the PHC's path to due_p1)
        wire [CWW-1:0]     cs_wi = ccur[CSLOT_W-1:CB];
        wire [CB-1:0]      cs_bi = ccur[CB-1:0];
        wire [CWW-1:0]     in_wi = b_cidx[CSLOT_W-1:CB];
        wire [CB-1:0]      in_bi = b_cidx[CB-1:0];
        always @(posedge wclk) begin
            ff_w <= {ff_w[2:0], ff_warp};
            if (init) begin
                cocc[init_ptr[CSLOT_W-1:CB]] <= {(1<<CB){1'b0}};
            end else if (cs_clr) begin
                cocc[cs_wi] <= cocc[cs_wi] & ~({{((1<<CB)-1){1'b0}}, 1'b1} << cs_bi);
            end else if (b_go_coarse) begin
                cocc[in_wi] <= cocc[in_wi] | ({{((1<<CB)-1){1'b0}}, 1'b1} << in_bi);
            end
            if (rst) ff_w <= 4'd0;
        end
        // lowest set bit of up to 64 bits (halving; 63 if none: the callers test for zero first)
        function [5:0] lsb64;
            input [63:0] v;
            reg   [63:0] t;
            integer      st;
            begin
                lsb64 = 6'd0;
                t = v;
                for (st = 5; st >= 0; st = st - 1) begin
                    if ((t & ((64'd1 << (1 << st)) - 64'd1)) == 64'd0) begin
                        lsb64 = lsb64 | (6'd1 << st);
                        t = t >> (1 << st);
                    end
                end
            end
        endfunction
        // Memoised like the fine search: the kept result (cm_idx, cm_any) holds while ccur is the one it
        // was computed for and neither the coarse occupancy (cocc) nor the group counts (cgcnt) were
        // written since (cm_v).
        reg                cm_v, cm_any;
        reg  [AC_W-1:0]    cm_ccur;
        reg  [CSLOT_W-1:0] cm_idx;
        wire               cm_hit = init || (cm_v && (ccur == cm_ccur));
        wire [CSLOT_W-1:0] g_base = {ccur_g, {CGS_W{1'b0}}};
        // groups after ccur's, rotated: bit m is group ccur_g + 1 + m (m = NCG - 1: ccur's own, left out)
        reg  [63:0]         cg_nz, cg_rot;
        reg  [5:0]          cg_m;
        reg  [CGROUP_W-1:0] cg_s1, cg_f;      // cg_f: the next non-empty group
        // non-empty words of ccur's group (after ccur's word) and of the found group
        reg  [63:0]        ow_nz, fw_nz;    // bit k: word k of the group is non-empty
        reg  [63:0]        ow_w, fw_w;      // the first such word
        reg  [5:0]         ow_j, fw_j;
        reg  [63:0]        own_w;
        // ring index of the found slot; the bound when nothing is found (ccur's group again, one ring
        // later: only its slots below ccur are left)
        reg  [CSLOT_W-1:0] cf_idx;
        reg                cf_any;
        integer            cgk, wk, og_i, fg_i, ow_i;
        always @* begin
            cg_nz = 64'd0;
            cg_s1 = {CGROUP_W{1'b0}};
            cg_rot = 64'd0;
            cg_m = 6'd0;
            cg_f = {CGROUP_W{1'b0}};
            og_i = 0;
            fg_i = 0;
            ow_i = 0;
            ow_nz = 64'd0;
            fw_nz = 64'd0;
            ow_j = 6'd0;
            fw_j = 6'd0;
            ow_w = 64'd0;
            fw_w = 64'd0;
            own_w = 64'd0;
            if (cm_hit) begin
                cf_idx = cm_idx;
                cf_any = cm_any;
            end else begin
                for (cgk = 0; cgk < NCG; cgk = cgk + 1) cg_nz[cgk] = (cgcnt[cgk] != ZN);
                cg_s1  = ccur_g + 1'b1;
                cg_rot = ((cg_nz >> cg_s1) | (cg_nz << (NCG - {{(32-CGROUP_W){1'b0}}, cg_s1}))) &
                         ((64'd1 << (NCG - 1)) - 64'd1);
                cg_m   = lsb64(cg_rot);
                cg_f   = cg_s1 + cg_m[CGROUP_W-1:0];
                og_i = {{(32-CGROUP_W){1'b0}}, ccur_g};
                fg_i = {{(32-CGROUP_W){1'b0}}, cg_f};
                ow_i = {{(32-CWW){1'b0}}, cs_wi};
                for (wk = 0; wk < WPG; wk = wk + 1) begin
                    ow_nz[wk] = (cocc[og_i * WPG + wk] != {(1<<CB){1'b0}}) && (wk > ow_i % WPG);
                    fw_nz[wk] = (cocc[fg_i * WPG + wk] != {(1<<CB){1'b0}});
                end
                ow_j = lsb64(ow_nz);
                fw_j = lsb64(fw_nz);
                ow_w = {{(64-(1<<CB)){1'b0}}, cocc[og_i * WPG + {26'd0, ow_j}]};
                fw_w = {{(64-(1<<CB)){1'b0}}, cocc[fg_i * WPG + {26'd0, fw_j}]};
                own_w = {{(64-(1<<CB)){1'b0}}, cocc[cs_wi] & ({(1<<CB){1'b1}} << cs_bi)};
                cf_any = 1'b1;
                if (own_w != 64'd0)
                    cf_idx = {cs_wi, {CB{1'b0}}} + {{(CSLOT_W-6){1'b0}}, lsb64(own_w)};
                else if (ow_nz != 64'd0)
                    cf_idx = g_base + ({{(CSLOT_W-6){1'b0}}, ow_j} << CB) + {{(CSLOT_W-6){1'b0}}, lsb64(ow_w)};
                else if (cg_rot != 64'd0)
                    cf_idx = {cg_f, {CGS_W{1'b0}}} + ((fw_nz != 64'd0) ? (({{(CSLOT_W-6){1'b0}}, fw_j} << CB) + {{(CSLOT_W-6){1'b0}}, lsb64(fw_w)})
                                                                        : {CSLOT_W{1'b0}});
                else begin
                    cf_idx = g_base;
                    cf_any = 1'b0;
                end
            end
        end
        always @(posedge wclk) begin
            // init / cs_clr / b_go_coarse write cocc; init / cg_inc / cg_dec write cgcnt
            cm_v    <= !(init || cs_clr || b_go_coarse || cg_inc || cg_dec);
            cm_ccur <= ccur;
            cm_idx  <= cf_idx;
            cm_any  <= cf_any;
            if (rst) cm_v <= 1'b0;
        end
        // its distance from ccur
        wire [CSLOT_W-1:0] cf_d   = cf_idx - ccur[CSLOT_W-1:0];
        wire [AC_W-1:0]    cstar  = ccur + ((!cf_any) ? (C_SLOTS - {{(AC_W-CGS_W){1'b0}}, ccur[CGS_W-1:0]})
                                                      : {{(AC_W-CSLOT_W){1'b0}}, cf_d});
        // right after a jump: ccur where the cascade of empty slots would have left it,
        // max(ccur, min(cstar, (due slot + 1 + 2^SLOT_W) >> CWB)) (the scan is at the due slot + 1)
        wire [AC_W-1:0]    fx_l   = due_p1[AS_W-1:CWB] + {{(AC_W-2){1'b0}}, 2'd2};     // (due_p1 + 2^SLOT_W) >> CWB
        wire [AC_W-1:0]    fx_t   = (cstar < fx_l) ? cstar : fx_l;
        assign ff_cfix   = (ff_w != 4'd0) && !init && !cc_zero && !cs_busy && !b_valid && !rewind_req &&
                           !phc_step && (fx_t > ccur);
        assign ff_cfix_t = fx_t;

        wire [AS_W-1:0] cs_slot = {cstar + 1'b1, {CWB{1'b0}}} - N_SLOTS - 1'b1;
        wire            cs_low  = ({cstar + 1'b1, {CWB{1'b0}}} <= N_SLOTS);  // the cascade may start at once
        wire [63:0]     cs_l    = {cs_slot, {SLOT_NS_W{1'b0}}};
        wire [63:0]     cs_phc  = (cs_l > {32'd0, lookahead_ns}) ? cs_l - {32'd0, lookahead_ns} : 64'd0;

        wire [63:0]     wake_f  = (!fc_zero && occ_found) ? occ_phc : {64{1'b1}};
        wire [63:0]     wake_c  = cc_zero ? {64{1'b1}} : cs_phc;

        assign ff_quiet = !init && !rst && (be_st == BE_IDLE) && !ld_claim && (pc_st == 2'd0) && !cs_busy &&
                          !b_valid && (srt_count == {(SORT_W+1){1'b0}}) && !m_rel_valid && !rewind_req &&
                          !phc_step && !fl_active && !f_st && !flush_done_reg && !s_flush_valid &&
                          !s_ins_valid && !cfg_quota_wr && !act_claim && !cs_start && !act_cgskip && g_ok && fw_v &&
                          !(cc_zero ? 1'b0 : cs_low) && (fc_zero || occ_found);
        assign ff_wake_ns = (wake_f < wake_c) ? wake_f : wake_c;
        assign ff_chunk_ns = fc_zero ? {64{1'b1}} : (64'd1 << (GROUP_W + SLOT_NS_W - 1));
        // Gated clock (sim only): hold in a quiet cycle in which none of the time-following moves
        // happens either (the scan's and ccur's moves, the scan's lt flags), so that no register on
        // wclk changes at this edge; the time copies are on clk.
        if (SIM_GATE != 0) begin : g_hold
            wire hold_c = ff_quiet && !ff_warp && (phc_ns < ff_wake_ns) && !m_mv && !m_nw && !m_rl &&
                          !act_cskip && !ff_cfix && (ltf_mv == ltf_r) && (lts_i_mv == lts_i) &&
                          (ff_w == 4'd0);
            // registers that follow the last activity settle in the three edges after it: write
            // forwarding, RAM read data and what is loaded from it (node data -> rq_q -> wq_q), the
            // memoised searches, the release buffer's three-cycle line of release-order inputs (the
            // scan's limit, so after every scan move): hold only when hold_c held at the last three
            // edges too
            reg [2:0] hold_p;
            always @(posedge clk) begin
                hold_p <= {hold_p[1:0], hold_c && !rst};
            end
            assign ff_hold = hold_c && (hold_p == 3'b111);
        end else begin : g_no_hold
            assign ff_hold = 1'b0;
        end
    end else begin : g_no_ff
        assign ff_quiet = 1'b0;
        assign ff_wake_ns = 64'd0;
        assign ff_chunk_ns = 64'd0;
        assign ff_cfix = 1'b0;
        assign ff_cfix_t = {AC_W{1'b0}};
        assign ff_hold = 1'b0;
    end
endgenerate

endmodule

`resetall
