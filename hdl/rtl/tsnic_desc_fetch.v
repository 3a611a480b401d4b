// tsnic_desc_fetch: per-queue TX ring registers and descriptor fetch.
//
// Owns the Q block registers BASE_LO..QUOTA and CNT_POSTED (CNT_SENT..CNT_REJECTED belong to
// tsnic_cpl_write). Per-queue state lives in inferred RAMs indexed by queue; one command at a time
// goes through a read-modify-write "engine" (pick -> RAM read -> compute + write back, with forwarding,
// one command per cycle). Commands: flush done, burst done, register write (PROD doorbell, CTRL),
// register read, schedule. Queues with work sit in an active-queue FIFO (each at most once): the
// scheduler pops one, issues one AXI4 read burst of up to 2^MAX_BURST_LOG2 descriptors for it and puts
// it back at the tail if it still has work (round robin, one burst per turn).
//
// Quota rule: a burst of n descriptors is issued for queue q only while
// (issued(q) - completed(q)) + n <= quota(q) (QUOTA 0: DEFAULT_QUOTA; capped at min(2^NODE_W, 2^15)),
// issued = the ring's issue index, completed = tsnic_cpl_count's count of q's completions. So a queue
// never has more descriptors fetched than its quota lets the calendar hold, and its inserts never
// wait at the calendar's quota (which would hold every queue's inserts behind them). A queue without
// room waits off the active FIFO (its wait bit) until a completion of q (or a QUOTA write) re-arms it.
//
// Reads use one AXI ID, so responses come back in issue order; a burst is issued only when the
// descriptor FIFO has room reserved for all its descriptors, so rready never waits on the calendar or
// the table (the R channel, shared with the payload prefetch, is never blocked by a full calendar).
// Each descriptor is validated (zero length, oversize, reserved flag, outside the DMA window) and then
// either sent as a REJECTED completion request or written to a freshly allocated tsnic_desc_table
// entry and inserted into the calendar. A descriptor any of whose read beats came back with rresp !=
// OKAY takes the REJECTED path with status DMA_ERROR (cookie, len, launch_ns 0) whatever its contents. See docs/DATAPATH.md, section "tsnic_desc_fetch".
`resetall
`timescale 1ns / 1ps
`default_nettype none
`include "tsnic_contract.vh"

module tsnic_desc_fetch #(
    parameter NUM_QUEUES      = 8,
    parameter QUEUE_W         = 3,        // >= log2(NUM_QUEUES), >= 1
    parameter NODE_W          = 10,
    parameter ADDR_W          = 20,       // register interface address width
    parameter AXI_DATA_W      = 64,       // 64, 128, 256, 512 or 1024
    parameter AXI_ADDR_W      = 64,
    parameter AXI_ID_W        = 8,
    parameter [AXI_ID_W-1:0] AXI_ID = 0,  // the one ID every descriptor read uses
    parameter MAX_BURST_LOG2  = 3,        // descriptors per read burst, at most 2^7
    parameter MAX_OUT_LOG2    = 4,        // read bursts outstanding
    parameter DESC_FIFO_LOG2  = 7,        // descriptor buffer (>= MAX_BURST_LOG2)
    parameter RING_LOG2_MAX   = 16,
    parameter MAX_FRAME_LEN   = 9600,
    parameter DEFAULT_QUOTA   = (1 << NODE_W) / 4   // the calendar's: the quota of a queue whose QUOTA is 0
) (
    input  wire                   clk,
    input  wire                   rst,

    input  wire                   enable,          // CTRL.CONTROL.ENABLE: schedule reads when 1
    input  wire [63:0]            phc_ns,
    output wire                   idle,            // nothing fetched or in flight
    output wire                   ff_quiet,        // idle, no queue waiting to be fetched, no register access

    // register interface (Q block)
    input  wire [ADDR_W-1:0]      reg_wr_addr,
    input  wire [31:0]            reg_wr_data,
    input  wire [3:0]             reg_wr_strb,
    input  wire                   reg_wr_en,
    output wire                   reg_wr_wait,
    output wire                   reg_wr_ack,
    input  wire [ADDR_W-1:0]      reg_rd_addr,
    input  wire                   reg_rd_en,
    output wire [31:0]            reg_rd_data,
    output wire                   reg_rd_wait,
    output wire                   reg_rd_ack,

    // AXI4 read master (descriptors)
    output wire [AXI_ID_W-1:0]    m_axi_arid,
    output wire [AXI_ADDR_W-1:0]  m_axi_araddr,
    output wire [7:0]             m_axi_arlen,
    output wire [2:0]             m_axi_arsize,
    output wire [1:0]             m_axi_arburst,
    output wire                   m_axi_arlock,
    output wire [3:0]             m_axi_arcache,
    output wire [2:0]             m_axi_arprot,
    output wire                   m_axi_arvalid,
    input  wire                   m_axi_arready,
    input  wire [AXI_ID_W-1:0]    m_axi_rid,
    input  wire [AXI_DATA_W-1:0]  m_axi_rdata,
    input  wire [1:0]             m_axi_rresp,
    input  wire                   m_axi_rlast,
    input  wire                   m_axi_rvalid,
    output wire                   m_axi_rready,

    // descriptor table: allocate + write
    input  wire                   tbl_alloc_valid,
    input  wire [NODE_W-1:0]      tbl_alloc_handle,
    output wire                   tbl_wr_en,
    output wire [63:0]            tbl_wr_addr,
    output wire [15:0]            tbl_wr_len,
    output wire [31:0]            tbl_wr_cookie,
    output wire [63:0]            tbl_wr_launch_ns,
    output wire [15:0]            tbl_wr_ring_index,
    output wire [QUEUE_W-1:0]     tbl_wr_queue,

    // calendar insert
    output reg                    m_ins_valid,
    input  wire                   m_ins_ready,
    output reg  [QUEUE_W-1:0]     m_ins_queue,
    output reg  [NODE_W-1:0]      m_ins_handle,
    output reg  [63:0]            m_ins_launch_ns,
    output reg                    m_ins_late_policy,
    output reg                    m_ins_horizon_policy,

    // calendar flush and quota
    output reg                    m_flush_valid,
    input  wire                   m_flush_ready,
    output reg  [QUEUE_W-1:0]     m_flush_queue,
    input  wire                   flush_done,
    output reg                    cfg_quota_wr,
    output reg  [QUEUE_W-1:0]     cfg_quota_queue,
    output reg  [31:0]            cfg_quota_value,

    // completion request (REJECTED)
    output reg                    m_cpl_req_valid,
    input  wire                   m_cpl_req_ready,
    output reg  [QUEUE_W-1:0]     m_cpl_req_queue,
    output reg  [15:0]            m_cpl_req_ring_index,
    output reg  [31:0]            m_cpl_req_cookie,
    output reg  [63:0]            m_cpl_req_launch_ns,
    output reg  [63:0]            m_cpl_req_depart_ns,
    output reg  [15:0]            m_cpl_req_len,
    output wire [7:0]             m_cpl_req_status,
    output reg  [7:0]             m_cpl_req_reason,
    output wire                   m_cpl_req_capped,
    output wire [NODE_W-1:0]      m_cpl_req_handle,
    output wire                   m_cpl_req_handle_valid,

    // completions written (tsnic_cpl_write's events, every status): the quota rule's count
    input  wire                   evt_cpl_valid,
    input  wire [QUEUE_W-1:0]     evt_cpl_queue,

    // events
    output reg                    evt_posted       // one pulse per descriptor fetched
);

// ------------------------------------------------------------------------------------------------
// constants
localparam MAX_BURST     = (1 << MAX_BURST_LOG2);
localparam MAX_OUT       = (1 << MAX_OUT_LOG2);
localparam [31:0] MB_M1  = MAX_BURST - 1;
localparam DESC_FIFO     = (1 << DESC_FIFO_LOG2);
localparam BEAT_BYTES    = AXI_DATA_W / 8;
localparam BEAT_LOG2     = $clog2(BEAT_BYTES);
localparam BPD           = (AXI_DATA_W < 256) ? (256 / AXI_DATA_W) : 1;   // beats per descriptor
localparam LANES         = (AXI_DATA_W > 256) ? (AXI_DATA_W / 256) : 1;   // descriptors per beat
localparam LANES_LOG2    = (LANES > 1) ? $clog2(LANES) : 1;
localparam BPD_LOG2      = (BPD > 1) ? $clog2(BPD) : 1;
localparam RB_ADDR_W     = (MAX_BURST_LOG2 > LANES_LOG2 + 1) ? (MAX_BURST_LOG2 - LANES_LOG2) : 1; // R-beat FIFO
localparam [31:0] Q_BASE32 = `TSNIC_Q_BASE;
localparam [ADDR_W-1:0] Q_BASE = Q_BASE32[ADDR_W-1:0];
localparam [31:0] BEAT_LOG2_32 = BEAT_LOG2;
localparam [31:0] BPD_LAST_32 = BPD - 1;
localparam [31:0] LANES_M1_32 = LANES - 1;
localparam [31:0] NQ32 = NUM_QUEUES;
localparam [31:0] QUOTA_MAX = 32'd1 << NODE_W;     // more than the node pool means nothing
// the quota rule's own limit: its outstanding count is a 16-bit modular difference, exact while the
// limit is at most 2^15 (a larger quota, possible when NODE_W >= 16, fetches at most 2^15)
localparam [31:0] QCAP32    = (NODE_W >= 15) ? 32'd32768 : (32'd1 << NODE_W);
localparam [31:0] QDEF32    = (DEFAULT_QUOTA > QCAP32) ? QCAP32 : DEFAULT_QUOTA;
localparam [15:0] QDEF      = QDEF32[15:0];
localparam BPD_SH = (BPD > 1) ? $clog2(BPD) : 0;
localparam SL            = `TSNIC_Q_STRIDE_LOG2;
localparam [4:0] RL2MAX  = RING_LOG2_MAX;
localparam [31:0] MAXLEN = MAX_FRAME_LEN;

// engine commands
// PROD and SCHED take two passes through stage B (the second, PROD2 / SCHED2, is picked in the
// cycle after the first, for the same queue, before anything else): the first computes the long
// arithmetic (doorbell distance and clamp; burst size) into registers and writes nothing, the second
// writes the state from those registers. This keeps the state RAM's write data a short path from the
// forwarded state (issue 16: 2.65 ns of logic before).
localparam [3:0] C_FDONE = 4'd1, C_BDONE = 4'd2, C_PROD = 4'd3, C_CTRL = 4'd4, C_READ = 4'd5,
                 C_SCHED = 4'd6, C_PROD2 = 4'd7, C_SCHED2 = 4'd8;

// dynamic per-queue state word
localparam ST_W = 83;
`define ST_PROD  15:0
`define ST_ISSUE 31:16
`define ST_CONS  47:32
`define ST_CNT   79:48
`define ST_EN    80
`define ST_FP    81
`define ST_INF   82

// context of one read burst
localparam CTX_W = QUEUE_W + 16 + 8 + LANES_LOG2 + 64 + 64 + 2;
// descriptor buffer entry
localparam DF_W  = 1 + 64 + 16 + 32 + 64 + QUEUE_W + 16 + 2 + 8 + 1 + 16 + 8;   // MSB: DMA error
// burst done entry
localparam DN_W  = QUEUE_W + 16 + 8;

function [31:0] apply_strb(input [31:0] old, input [31:0] val, input [3:0] strb);
    integer j;
    begin
        for (j = 0; j < 4; j = j + 1) apply_strb[j*8 +: 8] = strb[j] ? val[j*8 +: 8] : old[j*8 +: 8];
    end
endfunction

// offsets of the Q block this module answers (word addresses)
`define TSNIC_DF_OWNED(o) ( \
    ({o[6:2], 2'b00} == `TSNIC_Q_BASE_LO)     || ({o[6:2], 2'b00} == `TSNIC_Q_BASE_HI)     || \
    ({o[6:2], 2'b00} == `TSNIC_Q_SIZE_LOG2)   || ({o[6:2], 2'b00} == `TSNIC_Q_CTRL)        || \
    ({o[6:2], 2'b00} == `TSNIC_Q_PROD)        || ({o[6:2], 2'b00} == `TSNIC_Q_CONS)        || \
    ({o[6:2], 2'b00} == `TSNIC_Q_WIN_BASE_LO) || ({o[6:2], 2'b00} == `TSNIC_Q_WIN_BASE_HI) || \
    ({o[6:2], 2'b00} == `TSNIC_Q_WIN_LEN_LO)  || ({o[6:2], 2'b00} == `TSNIC_Q_WIN_LEN_HI)  || \
    ({o[6:2], 2'b00} == `TSNIC_Q_STATUS)      || ({o[6:2], 2'b00} == `TSNIC_Q_QUOTA)       || \
    ({o[6:2], 2'b00} == `TSNIC_Q_CNT_POSTED))

// ------------------------------------------------------------------------------------------------
// reset sweep: zero every queue's state
reg               init_busy;
reg [QUEUE_W-1:0] init_q;

always @(posedge clk) begin
    if (rst) begin
        init_busy <= 1'b1;
        init_q    <= {QUEUE_W{1'b0}};
    end else if (init_busy) begin
        init_q <= init_q + 1'b1;
        if (&init_q) init_busy <= 1'b0;
    end
end

// ------------------------------------------------------------------------------------------------
// register address decode
wire [ADDR_W-1:0] wr_rel = reg_wr_addr - Q_BASE;
wire [ADDR_W-1:0] rd_rel = reg_rd_addr - Q_BASE;
wire [ADDR_W-1:0] wr_qi  = wr_rel >> SL;
wire [6:2]        wr_off = reg_wr_addr[6:2];
wire [6:2]        rd_off = reg_rd_addr[6:2];
wire [ADDR_W-1:0] rd_qi  = rd_rel >> SL;
wire wr_hit = (reg_wr_addr >= Q_BASE) && ({{(32-ADDR_W){1'b0}}, wr_qi} < NQ32) && `TSNIC_DF_OWNED(wr_off);
wire rd_hit = (reg_rd_addr >= Q_BASE) && ({{(32-ADDR_W){1'b0}}, rd_qi} < NQ32) && `TSNIC_DF_OWNED(rd_off);

// write side
reg               wr_busy, wr_ack_r, wr_cmd_req;
reg [QUEUE_W-1:0] wr_q;
reg [6:0]         wr_o;
reg [31:0]        wr_d;
reg [3:0]         wr_s;
wire              wr_grant;
wire              wr_done = wr_busy && (!wr_cmd_req || wr_grant);

// read side
reg               rd_busy, rd_ack_r, rd_cmd_req;
reg [QUEUE_W-1:0] rd_q;
reg [6:0]         rd_o;
reg [31:0]        rd_data_r;
wire              rd_grant;

assign reg_wr_ack  = wr_ack_r;
assign reg_wr_wait = wr_busy;
assign reg_rd_ack  = rd_ack_r;
assign reg_rd_wait = rd_busy;
assign reg_rd_data = rd_ack_r ? rd_data_r : 32'd0;

wire [6:0] wr_o_al = {wr_o[6:2], 2'b00};

always @(posedge clk) begin
    if (rst) begin
        wr_busy <= 1'b0; wr_ack_r <= 1'b0; wr_cmd_req <= 1'b0;
        wr_q <= {QUEUE_W{1'b0}}; wr_o <= 7'd0; wr_d <= 32'd0; wr_s <= 4'd0;
        cfg_quota_wr <= 1'b0; cfg_quota_queue <= {QUEUE_W{1'b0}}; cfg_quota_value <= 32'd0;
    end else begin
        wr_ack_r     <= 1'b0;
        cfg_quota_wr <= 1'b0;
        if (!wr_busy && !wr_ack_r && reg_wr_en && wr_hit && !init_busy) begin
            wr_busy    <= 1'b1;
            wr_q       <= wr_qi[QUEUE_W-1:0];
            wr_o       <= reg_wr_addr[6:0];
            wr_d       <= reg_wr_data;
            wr_s       <= reg_wr_strb;
            wr_cmd_req <= ({reg_wr_addr[6:2], 2'b00} == `TSNIC_Q_PROD && reg_wr_strb[1:0] != 2'b00)
                       || ({reg_wr_addr[6:2], 2'b00} == `TSNIC_Q_CTRL && reg_wr_strb[0]);
        end else if (wr_done) begin
            wr_busy    <= 1'b0;
            wr_cmd_req <= 1'b0;
            wr_ack_r   <= 1'b1;
            if (wr_o_al == `TSNIC_Q_QUOTA) begin
                cfg_quota_wr    <= 1'b1;
                cfg_quota_queue <= wr_q;
                cfg_quota_value <= (wr_d > QUOTA_MAX) ? QUOTA_MAX : wr_d;
            end
        end
    end
end

// configuration RAM writes (done when the write access completes; zeroed by the reset sweep)
wire              cfg_wr   = wr_done;
wire [QUEUE_W-1:0] cfg_addr = init_busy ? init_q : wr_q;
wire [3:0] we_base_lo = init_busy ? 4'hf : ((cfg_wr && wr_o_al == `TSNIC_Q_BASE_LO)     ? wr_s : 4'h0);
wire [3:0] we_base_hi = init_busy ? 4'hf : ((cfg_wr && wr_o_al == `TSNIC_Q_BASE_HI)     ? wr_s : 4'h0);
wire [3:0] we_wb_lo   = init_busy ? 4'hf : ((cfg_wr && wr_o_al == `TSNIC_Q_WIN_BASE_LO) ? wr_s : 4'h0);
wire [3:0] we_wb_hi   = init_busy ? 4'hf : ((cfg_wr && wr_o_al == `TSNIC_Q_WIN_BASE_HI) ? wr_s : 4'h0);
wire [3:0] we_wl_lo   = init_busy ? 4'hf : ((cfg_wr && wr_o_al == `TSNIC_Q_WIN_LEN_LO)  ? wr_s : 4'h0);
wire [3:0] we_wl_hi   = init_busy ? 4'hf : ((cfg_wr && wr_o_al == `TSNIC_Q_WIN_LEN_HI)  ? wr_s : 4'h0);
wire [3:0] we_quota   = init_busy ? 4'hf : ((cfg_wr && wr_o_al == `TSNIC_Q_QUOTA)       ? wr_s : 4'h0);
wire       we_size    = init_busy || (cfg_wr && wr_o_al == `TSNIC_Q_SIZE_LOG2 && wr_s[0]);
wire       we_pol     = init_busy || (cfg_wr && wr_o_al == `TSNIC_Q_CTRL && wr_s[0]);
wire [31:0] cfg_d     = init_busy ? 32'd0 : wr_d;
wire [4:0]  size_wr   = (wr_d[7:0] > {3'd0, RL2MAX}) ? RL2MAX : wr_d[4:0];
wire [4:0]  cfg_size_d = init_busy ? 5'd0 : size_wr;
wire [1:0]  cfg_pol_d  = init_busy ? 2'd0 : {wr_d[`TSNIC_Q_CTRL_HORIZON_POLICY_BIT], wr_d[`TSNIC_Q_CTRL_LATE_POLICY_BIT]};
// the quota rule's limit, from the value the calendar gets (cfg_quota_value: the whole word, 0 = the
// default), stored XOR the default so that the cleared RAM holds the default (as the calendar does)
wire        we_qlim   = init_busy || (cfg_wr && wr_o_al == `TSNIC_Q_QUOTA);
wire [15:0] qlim_wr   = (wr_d > QCAP32) ? QCAP32[15:0] : wr_d[15:0];
wire [15:0] cfg_qlim_d = (init_busy || wr_d == 32'd0) ? 16'd0 : (qlim_wr ^ QDEF);

// ------------------------------------------------------------------------------------------------
// engine: pick
wire              act_valid, fl_valid_unused;
wire [QUEUE_W-1:0] act_q;
wire              dn_valid;
wire [DN_W-1:0]   dn_data;
reg               fd_req;
reg  [QUEUE_W-1:0] fd_q;
reg               b_valid;
reg  [3:0]        b_cmd;
reg  [QUEUE_W-1:0] b_q;
reg  [31:0]       b_data;
reg  [3:0]        b_strb;
reg  [6:0]        b_off;
reg  [15:0]       b_new_cons;
reg  [7:0]        b_n;
reg  [MAX_OUT_LOG2:0]   ctx_cnt;
reg  [DESC_FIFO_LOG2:0] credits;

// While a SCHED2 is in stage B its burst is not yet counted in ctx_cnt / credits: leave room for it.
wire b_sched2  = b_valid && b_cmd == C_SCHED2;
wire can_sched = act_valid && enable
              && (b_sched2 ? ({1'b0, ctx_cnt} + 1 < MAX_OUT && {1'b0, credits} >= 2 * MAX_BURST)
                           : (ctx_cnt < MAX_OUT && credits >= MAX_BURST));

reg               p_valid;
reg  [3:0]        p_cmd;
reg  [QUEUE_W-1:0] p_q;
always @* begin
    p_valid = 1'b1;
    p_cmd   = C_SCHED;
    p_q     = act_q;
    if (init_busy) begin
        p_valid = 1'b0; p_cmd = 4'd0;
    end else if (b_valid && b_cmd == C_PROD) begin
        p_cmd = C_PROD2; p_q = b_q;
    end else if (b_valid && b_cmd == C_SCHED) begin
        p_cmd = C_SCHED2; p_q = b_q;
    end else if (fd_req) begin
        p_cmd = C_FDONE; p_q = fd_q;
    end else if (dn_valid) begin
        p_cmd = C_BDONE; p_q = dn_data[DN_W-1 -: QUEUE_W];
    end else if (wr_cmd_req) begin
        p_cmd = ({wr_o[6:2], 2'b00} == `TSNIC_Q_PROD) ? C_PROD : C_CTRL; p_q = wr_q;
    end else if (rd_cmd_req) begin
        p_cmd = C_READ; p_q = rd_q;
    end else if (!can_sched) begin
        p_valid = 1'b0; p_cmd = 4'd0;
    end
end

wire fd_grant  = p_valid && p_cmd == C_FDONE;
wire dn_pop    = p_valid && p_cmd == C_BDONE;
assign wr_grant = p_valid && (p_cmd == C_PROD || p_cmd == C_CTRL);
assign rd_grant = p_valid && p_cmd == C_READ;
wire act_pop   = p_valid && p_cmd == C_SCHED;

// state RAMs
wire [ST_W-1:0] st_ram;
reg  [ST_W-1:0] st_new;
reg             st_we;
reg             fwd;
reg  [ST_W-1:0] fwd_data;
wire [ST_W-1:0] st = fwd ? fwd_data : st_ram;

tsnic_ram_sdp #(.WIDTH(ST_W), .ADDR_W(QUEUE_W), .BE_W(1)) ram_state_inst (
    .clk(clk), .wr_en(init_busy || st_we), .wr_addr(init_busy ? init_q : b_q),
    .wr_data(init_busy ? {ST_W{1'b0}} : st_new), .rd_en(p_valid), .rd_addr(p_q), .rd_data(st_ram));

wire [31:0] c_base_lo, c_base_hi, c_wb_lo, c_wb_hi, c_wl_lo, c_wl_hi, c_quota;
wire [4:0]  c_size;
wire [1:0]  c_pol;

tsnic_ram_sdp #(.WIDTH(32), .ADDR_W(QUEUE_W), .BE_W(4)) ram_base_lo_inst (
    .clk(clk), .wr_en(we_base_lo), .wr_addr(cfg_addr), .wr_data({cfg_d[31:5], 5'd0}),
    .rd_en(p_valid), .rd_addr(p_q), .rd_data(c_base_lo));
tsnic_ram_sdp #(.WIDTH(32), .ADDR_W(QUEUE_W), .BE_W(4)) ram_base_hi_inst (
    .clk(clk), .wr_en(we_base_hi), .wr_addr(cfg_addr), .wr_data(cfg_d),
    .rd_en(p_valid), .rd_addr(p_q), .rd_data(c_base_hi));
tsnic_ram_sdp #(.WIDTH(32), .ADDR_W(QUEUE_W), .BE_W(4)) ram_wb_lo_inst (
    .clk(clk), .wr_en(we_wb_lo), .wr_addr(cfg_addr), .wr_data(cfg_d),
    .rd_en(p_valid), .rd_addr(p_q), .rd_data(c_wb_lo));
tsnic_ram_sdp #(.WIDTH(32), .ADDR_W(QUEUE_W), .BE_W(4)) ram_wb_hi_inst (
    .clk(clk), .wr_en(we_wb_hi), .wr_addr(cfg_addr), .wr_data(cfg_d),
    .rd_en(p_valid), .rd_addr(p_q), .rd_data(c_wb_hi));
tsnic_ram_sdp #(.WIDTH(32), .ADDR_W(QUEUE_W), .BE_W(4)) ram_wl_lo_inst (
    .clk(clk), .wr_en(we_wl_lo), .wr_addr(cfg_addr), .wr_data(cfg_d),
    .rd_en(p_valid), .rd_addr(p_q), .rd_data(c_wl_lo));
tsnic_ram_sdp #(.WIDTH(32), .ADDR_W(QUEUE_W), .BE_W(4)) ram_wl_hi_inst (
    .clk(clk), .wr_en(we_wl_hi), .wr_addr(cfg_addr), .wr_data(cfg_d),
    .rd_en(p_valid), .rd_addr(p_q), .rd_data(c_wl_hi));
tsnic_ram_sdp #(.WIDTH(32), .ADDR_W(QUEUE_W), .BE_W(4)) ram_quota_inst (
    .clk(clk), .wr_en(we_quota), .wr_addr(cfg_addr), .wr_data(cfg_d),
    .rd_en(p_valid), .rd_addr(p_q), .rd_data(c_quota));
tsnic_ram_sdp #(.WIDTH(5), .ADDR_W(QUEUE_W), .BE_W(1)) ram_size_inst (
    .clk(clk), .wr_en(we_size), .wr_addr(cfg_addr), .wr_data(cfg_size_d),
    .rd_en(p_valid), .rd_addr(p_q), .rd_data(c_size));
tsnic_ram_sdp #(.WIDTH(2), .ADDR_W(QUEUE_W), .BE_W(1)) ram_pol_inst (
    .clk(clk), .wr_en(we_pol), .wr_addr(cfg_addr), .wr_data(cfg_pol_d),
    .rd_en(p_valid), .rd_addr(p_q), .rd_data(c_pol));
wire [15:0] c_qlim_x;
tsnic_ram_sdp #(.WIDTH(16), .ADDR_W(QUEUE_W), .BE_W(1)) ram_qlim_inst (
    .clk(clk), .wr_en(we_qlim), .wr_addr(cfg_addr), .wr_data(cfg_qlim_d),
    .rd_en(p_valid), .rd_addr(p_q), .rd_data(c_qlim_x));
wire [15:0] c_qlim = c_qlim_x ^ QDEF;        // 1 .. QCAP

// completions of each queue (the quota rule), read in the pick stage like the RAMs above
wire [15:0]        c_done;
wire               cc_upd;
wire [QUEUE_W-1:0] cc_upd_q;
wire               cc_quiet;
/* verilator lint_off PINCONNECTEMPTY */
tsnic_cpl_count #(.NUM_QUEUES(NUM_QUEUES), .QUEUE_W(QUEUE_W)) cpl_count_inst (
    .clk(clk), .rst(rst),
    .evt_valid(evt_cpl_valid), .evt_queue(evt_cpl_queue),
    .rd_en(p_valid), .rd_addr(p_q), .rd_data(c_done),
    .upd_valid(cc_upd), .upd_queue(cc_upd_q), .busy(), .ff_quiet(cc_quiet));
/* verilator lint_on PINCONNECTEMPTY */

// ------------------------------------------------------------------------------------------------
// engine: compute (stage B)
wire [63:0] c_base = {c_base_hi, c_base_lo[31:5], 5'd0};
wire [63:0] c_wb   = {c_wb_hi, c_wb_lo};
wire [63:0] c_wl   = {c_wl_hi, c_wl_lo};

wire [16:0] size     = 17'd1 << c_size;
wire [15:0] mask     = ~(16'hffff << c_size);                    // size - 1 (2^16 -> 0xffff)
wire [15:0] s_prod   = st[`ST_PROD];
wire [15:0] s_issue  = st[`ST_ISSUE];
wire [15:0] s_cons   = st[`ST_CONS];

// doorbell: clamp to CONS + ring size; never move behind what was already issued
wire [31:0] prod_raw   = apply_strb({16'd0, s_prod}, b_data, b_strb);
wire [15:0] db_dist    = prod_raw[15:0] - s_cons;
wire [15:0] db_infl    = s_issue - s_cons;
// pass 1 registers: the raw value, whether it is over the ring size, whether it is behind the issue
// index (clamped or not); pass 2 picks (s_cons + db_dist_cl == prod_raw when not clamped)
reg  [15:0] pd_raw;
reg         pd_over, pd_lt_dist, pd_lt_size;
wire        db_over    = ({1'b0, db_dist} > size);
wire        db_behind  = pd_over ? pd_lt_size : pd_lt_dist;
wire [15:0] db_prod    = db_behind ? s_issue : (pd_over ? (s_cons + size[15:0]) : pd_raw);

// schedule: burst size
wire [7:0]  sc_avail  = s_prod[7:0] - s_issue[7:0];     // the burst size when it takes all (<= 128)
wire [15:0] sc_slot   = s_issue & mask;
wire [63:0] sc_daddr  = c_base + {43'd0, sc_slot, 5'd0};
wire [6:0]  sc_pg     = c_base[11:5] + sc_slot[6:0];      // 32-byte slot of the first descriptor in its 4 KiB page
// limits minus one, so that none needs a subtraction: descriptors to the ring's end (size - slot - 1
// = ~issue & mask), to the 4 KiB page's end (127 - pg = ~pg), and the burst limit; the smallest of
// the three from three compares made in parallel
wire [15:0] sc_wrap_m1 = ~s_issue & mask;
wire [6:0]  sc_4k_m1   = ~sc_pg;
wire [6:0]  sc_mb_m1   = MB_M1[6:0];
wire        sc_w_lt_b  = (sc_wrap_m1 < {9'd0, sc_mb_m1});
wire        sc_p_lt_b  = (sc_4k_m1 < sc_mb_m1);
wire        sc_p_lt_w  = ({9'd0, sc_4k_m1} < sc_wrap_m1);
wire [6:0]  sc_lim_m1  = sc_w_lt_b ? (sc_p_lt_w ? sc_4k_m1 : sc_wrap_m1[6:0])
                                   : (sc_p_lt_b ? sc_4k_m1 : sc_mb_m1);
// this burst takes all the queue's work: avail <= lim, i.e. avail - 1 <= lim - 1 (avail >= 1 whenever
// the burst is issued at all; avail - 1 = prod + ~issue needs no carry-in)
wire [15:0] sc_avail_m1 = s_prod + ~s_issue;
wire        sc_all  = (sc_avail_m1 <= {9'd0, sc_lim_m1});
wire [7:0]  sc_n0   = sc_all ? sc_avail : ({1'b0, sc_lim_m1} + 8'd1);
// the quota rule: room - 1 = quota - (issue - completed) - 1 = quota + completed + ~issue, exact as a
// 16-bit signed number (quota <= 2^15 and issue - completed <= the largest quota: -2^15 .. 2^15 - 2);
// negative: no room. The room caps the burst when it is below both other limits (compares made in
// parallel with sc_all's, one more 2:1 pick after it).
wire [15:0] sc_rm_m1  = c_qlim + c_done + ~s_issue;
wire        sc_room   = !sc_rm_m1[15];
wire        sc_r_lt_l = (sc_rm_m1 < {9'd0, sc_lim_m1});
wire        sc_r_lt_a = (sc_rm_m1 < sc_avail_m1);
wire [7:0]  sc_n1     = (sc_r_lt_l && sc_r_lt_a) ? (sc_rm_m1[7:0] + 8'd1) : sc_n0;
wire        sc_all1   = sc_all && !(sc_r_lt_l && sc_r_lt_a);
// pass 1 result, used by pass 2 (the issue index has not moved in between)
reg  [7:0]  sc_n;
reg         sc_all_r;
reg         sc_room_r;

wire [LANES_LOG2-1:0] sc_lane0;
wire [7:0]            sc_arlen;
wire [63:0]           sc_araddr;
generate
    if (LANES > 1) begin : g_lanes_ar
        /* verilator lint_off UNUSEDSIGNAL */
        wire [8:0] beats = ({{(9-LANES_LOG2){1'b0}}, sc_daddr[BEAT_LOG2-1:5]} + {1'b0, sc_n} + LANES_M1_32[8:0]) >> LANES_LOG2;
        /* verilator lint_on UNUSEDSIGNAL */
        assign sc_lane0  = sc_daddr[BEAT_LOG2-1:5];
        assign sc_arlen  = beats[7:0] - 8'd1;
        assign sc_araddr = {sc_daddr[63:BEAT_LOG2], {BEAT_LOG2{1'b0}}};
    end else begin : g_beats_ar
        /* verilator lint_off UNUSEDSIGNAL */
        wire [15:0] beats = {8'd0, sc_n} << BPD_SH;
        /* verilator lint_on UNUSEDSIGNAL */
        assign sc_lane0  = {LANES_LOG2{1'b0}};
        assign sc_arlen  = beats[7:0] - 8'd1;
        assign sc_araddr = sc_daddr;
    end
endgenerate

wire sched_want = b_valid && b_cmd == C_SCHED2 && st[`ST_EN] && !st[`ST_FP] && (s_issue != s_prod);
wire sched_go   = sched_want && sc_room_r;
wire sched_wait = sched_want && !sc_room_r;   // no room: the queue waits (wait bit), ST_INF stays set
// count writes of the last two cycles and this one (the SCHED pass's read missed them; see wq below)
reg               cc_h1_v, cc_h2_v;
reg [QUEUE_W-1:0] cc_h1_q, cc_h2_q;
wire sched_wait_now = (cc_upd && cc_upd_q == b_q) || (cc_h1_v && cc_h1_q == b_q) || (cc_h2_v && cc_h2_q == b_q);

reg        act_push, fl_push;
// work left after a PROD / CTRL / FDONE command (these never move the issued index)
wire       act_work = (b_cmd == C_PROD2) ? (s_issue != db_prod) : (s_issue != s_prod);
reg [31:0] rd_val;

always @* begin
    st_new   = st;
    st_we    = b_valid && b_cmd != C_READ && b_cmd != C_PROD && b_cmd != C_SCHED;
    act_push = 1'b0;
    fl_push  = 1'b0;
    rd_val   = 32'd0;
    case (b_cmd)
        C_PROD, C_SCHED: begin
            st_we = 1'b0;            // first pass: computes only
        end
        C_PROD2: begin
            st_new[`ST_PROD] = db_prod;
        end
        C_CTRL: begin
            st_new[`ST_EN] = b_data[`TSNIC_Q_CTRL_ENABLE_BIT];
            if ((b_data[`TSNIC_Q_CTRL_FLUSH_BIT] || (st[`ST_EN] && !b_data[`TSNIC_Q_CTRL_ENABLE_BIT]))
                    && !st[`ST_FP]) begin
                st_new[`ST_FP] = 1'b1;
                fl_push = (s_issue == s_cons);
            end
        end
        C_FDONE: begin
            st_new[`ST_FP] = 1'b0;
        end
        C_BDONE: begin
            st_new[`ST_CONS] = b_new_cons;
            st_new[`ST_CNT]  = st[`ST_CNT] + {24'd0, b_n};
            fl_push = st[`ST_FP] && (s_issue == b_new_cons);
        end
        C_SCHED2: begin
            if (sched_go) begin
                st_new[`ST_ISSUE] = s_issue + {8'd0, sc_n};
                if (!sc_all_r) act_push = 1'b1;
                else st_new[`ST_INF] = 1'b0;
            end else if (sched_wait) begin
                act_push = sched_wait_now;     // a count write it may have missed: back at once
            end else begin
                st_new[`ST_INF] = 1'b0;
            end
        end
        C_READ: begin
            case ({b_off[6:2], 2'b00})
                `TSNIC_Q_BASE_LO:     rd_val = {c_base_lo[31:5], 5'd0};
                `TSNIC_Q_BASE_HI:     rd_val = c_base_hi;
                `TSNIC_Q_SIZE_LOG2:   rd_val = {27'd0, c_size};
                `TSNIC_Q_CTRL:        rd_val = ({31'd0, st[`ST_EN]} << `TSNIC_Q_CTRL_ENABLE_BIT)
                                             | ({31'd0, c_pol[0]} << `TSNIC_Q_CTRL_LATE_POLICY_BIT)
                                             | ({31'd0, c_pol[1]} << `TSNIC_Q_CTRL_HORIZON_POLICY_BIT);
                `TSNIC_Q_PROD:        rd_val = {16'd0, s_prod};
                `TSNIC_Q_CONS:        rd_val = {16'd0, s_cons};
                `TSNIC_Q_WIN_BASE_LO: rd_val = c_wb_lo;
                `TSNIC_Q_WIN_BASE_HI: rd_val = c_wb_hi;
                `TSNIC_Q_WIN_LEN_LO:  rd_val = c_wl_lo;
                `TSNIC_Q_WIN_LEN_HI:  rd_val = c_wl_hi;
                `TSNIC_Q_STATUS:      rd_val = ({31'd0, st[`ST_EN]} << `TSNIC_Q_STATUS_ENABLED_BIT)
                                             | ({31'd0, st[`ST_FP]} << `TSNIC_Q_STATUS_FLUSH_BUSY_BIT);
                `TSNIC_Q_QUOTA:       rd_val = c_quota;
                `TSNIC_Q_CNT_POSTED:  rd_val = st[`ST_CNT];
                default:              rd_val = 32'd0;
            endcase
        end
        default: begin
            st_we = 1'b0;
        end
    endcase
    // activation: a queue with work, enabled and not flushing goes to the active FIFO once
    if (b_valid && (b_cmd == C_PROD2 || b_cmd == C_CTRL || b_cmd == C_FDONE)) begin
        if (st_new[`ST_EN] && !st_new[`ST_FP] && act_work && !st[`ST_INF]) begin
            st_new[`ST_INF] = 1'b1;
            act_push = 1'b1;
        end
    end
    if (!b_valid) begin
        act_push = 1'b0;
        fl_push  = 1'b0;
    end
end

always @(posedge clk) begin
    if (rst) begin
        b_valid <= 1'b0; b_cmd <= 4'd0; b_q <= {QUEUE_W{1'b0}}; b_data <= 32'd0; b_strb <= 4'd0;
        b_off <= 7'd0; b_new_cons <= 16'd0; b_n <= 8'd0;
        fwd <= 1'b0; fwd_data <= {ST_W{1'b0}};
        pd_raw <= 16'd0; pd_over <= 1'b0; pd_lt_dist <= 1'b0; pd_lt_size <= 1'b0;
        sc_n <= 8'd0; sc_all_r <= 1'b0; sc_room_r <= 1'b0;
        rd_busy <= 1'b0; rd_ack_r <= 1'b0; rd_cmd_req <= 1'b0; rd_q <= {QUEUE_W{1'b0}}; rd_o <= 7'd0;
        rd_data_r <= 32'd0;
    end else begin
        b_valid <= p_valid;
        b_cmd   <= p_cmd;
        b_q     <= p_q;
        b_data  <= wr_d;
        b_strb  <= wr_s;
        b_off   <= rd_o;
        b_new_cons <= dn_data[23:8];
        b_n        <= dn_data[7:0];
        fwd      <= p_valid && st_we && (b_q == p_q);
        fwd_data <= st_new;
        pd_raw     <= prod_raw[15:0];
        pd_over    <= db_over;
        pd_lt_dist <= (db_dist < db_infl);
        pd_lt_size <= (size < {1'b0, db_infl});
        sc_n       <= sc_n1;
        sc_all_r   <= sc_all1;
        sc_room_r  <= sc_room;

        // register read side
        rd_ack_r <= 1'b0;
        if (!rd_busy && !rd_ack_r && reg_rd_en && rd_hit && !init_busy) begin
            rd_busy    <= 1'b1;
            rd_cmd_req <= 1'b1;
            rd_q       <= rd_qi[QUEUE_W-1:0];
            rd_o       <= reg_rd_addr[6:0];
        end
        if (rd_grant) rd_cmd_req <= 1'b0;
        if (b_valid && b_cmd == C_READ) begin
            rd_data_r <= rd_val;
            rd_ack_r  <= 1'b1;
            rd_busy   <= 1'b0;
        end
    end
end

// Queues waiting for quota room: a SCHED2 found none, so the queue leaves the scheduler (ST_INF stays
// set: no doorbell pushes it) with its bit in wq set. A completion of a waiting queue (tsnic_cpl_count
// writing its count) clears the bit and puts the queue in the release FIFO, from which it goes back to
// the active FIFO in a cycle the engine pushes nothing there. The count SCHED read (pick, 2 cycles
// before SCHED2) misses writes of that cycle and the next two: a SCHED2 that finds no room and sees
// one of those writes for its queue (cc_h1, cc_h2 and this cycle's) puts the queue back at once.
// The completion's look at wq takes two cycles (the 64-bit word of wq, then its bit), so a long
// multiplexer never feeds wq's own update; a kick of the same queue in the cycle before has cleared the
// bit this word was read with, so it does not count twice.
// Each queue is in at most one of: active FIFO, engine, wq, release FIFO (so neither FIFO fills).
localparam WQ_N   = 1 << QUEUE_W;
localparam WQ_L2  = (QUEUE_W < 6) ? QUEUE_W : 6;
localparam WQ_W   = 1 << WQ_L2;
reg  [WQ_N-1:0]       wq;
reg                   ka_v, kp_v;             // a count write looked at wq last cycle; a kick last cycle
reg  [QUEUE_W-1:0]    ka_q, kp_q;
reg  [WQ_W-1:0]       ka_w;                   // the word of wq holding ka_q's bit, as it was then
wire [WQ_W-1:0]       wq_word;
generate
    if (QUEUE_W > 6) begin : g_wq_words
        wire [QUEUE_W-7:0] wsel = cc_upd_q[QUEUE_W-1:6];
        assign wq_word = wq[wsel*WQ_W +: WQ_W];
    end else begin : g_wq_one
        assign wq_word = wq;
    end
endgenerate
wire [WQ_L2-1:0]   ka_bit = ka_q[WQ_L2-1:0];
wire               rel_valid;
wire [QUEUE_W-1:0] rel_q;
wire wq_set  = sched_wait && !sched_wait_now;
wire wq_kick = ka_v && ka_w[ka_bit] && !(kp_v && kp_q == ka_q);
// the release FIFO gives a queue to the active FIFO in a cycle whose engine command cannot push one
// (decided from registers only, so the engine's long push decision does not reach the FIFO's pop)
wire b_may_push = b_valid && (b_cmd == C_SCHED2 || b_cmd == C_PROD2 || b_cmd == C_CTRL || b_cmd == C_FDONE);
wire rel_pop = rel_valid && !b_may_push;

always @(posedge clk) begin
    if (rst) begin
        wq <= {WQ_N{1'b0}};
        cc_h1_v <= 1'b0; cc_h2_v <= 1'b0; cc_h1_q <= {QUEUE_W{1'b0}}; cc_h2_q <= {QUEUE_W{1'b0}};
        ka_v <= 1'b0; kp_v <= 1'b0; ka_q <= {QUEUE_W{1'b0}}; kp_q <= {QUEUE_W{1'b0}}; ka_w <= {WQ_W{1'b0}};
    end else begin
        cc_h1_v <= cc_upd; cc_h2_v <= cc_h1_v;
        if (cc_upd)  cc_h1_q <= cc_upd_q;
        if (cc_h1_v) cc_h2_q <= cc_h1_q;
        ka_v <= cc_upd;
        if (cc_upd) begin
            ka_q <= cc_upd_q;
            ka_w <= wq_word;
        end
        kp_v <= wq_kick;
        if (wq_kick) kp_q <= ka_q;
        if (wq_kick) wq[ka_q] <= 1'b0;
        if (wq_set)  wq[b_q] <= 1'b1;
    end
end

/* verilator lint_off PINCONNECTEMPTY */
tsnic_fifo #(.WIDTH(QUEUE_W), .ADDR_W(QUEUE_W)) rel_fifo_inst (
    .clk(clk), .rst(rst),
    .s_valid(wq_kick), .s_ready(), .s_data(ka_q),
    .m_valid(rel_valid), .m_ready(rel_pop), .m_data(rel_q), .count());
/* verilator lint_on PINCONNECTEMPTY */

// active-queue FIFO and flush FIFO (each queue at most once in each: never full)
/* verilator lint_off PINCONNECTEMPTY */
tsnic_fifo #(.WIDTH(QUEUE_W), .ADDR_W(QUEUE_W)) act_fifo_inst (
    .clk(clk), .rst(rst),
    .s_valid(act_push || rel_pop), .s_ready(), .s_data(rel_pop ? rel_q : b_q),
    .m_valid(act_valid), .m_ready(act_pop), .m_data(act_q), .count());

// the insert output's skid register (see ins_free below)
reg               sk_valid;
reg [QUEUE_W-1:0] sk_queue;
reg [NODE_W-1:0]  sk_handle;
reg [63:0]        sk_launch;
reg [1:0]         sk_pol;
wire               flq_valid;
wire [QUEUE_W-1:0] flq_q;
reg                fl_busy;
wire               fl_issue = flq_valid && !fl_busy && !(m_ins_valid && m_ins_queue == flq_q) &&
                              !(sk_valid && sk_queue == flq_q);

tsnic_fifo #(.WIDTH(QUEUE_W), .ADDR_W(QUEUE_W)) flush_fifo_inst (
    .clk(clk), .rst(rst),
    .s_valid(fl_push), .s_ready(), .s_data(b_q),
    .m_valid(flq_valid), .m_ready(fl_issue), .m_data(flq_q), .count());
/* verilator lint_on PINCONNECTEMPTY */
assign fl_valid_unused = 1'b0;

// one calendar flush at a time; flush_done answers the one outstanding
always @(posedge clk) begin
    if (rst) begin
        m_flush_valid <= 1'b0; m_flush_queue <= {QUEUE_W{1'b0}};
        fl_busy <= 1'b0; fd_req <= 1'b0; fd_q <= {QUEUE_W{1'b0}};
    end else begin
        if (m_flush_valid && m_flush_ready) m_flush_valid <= 1'b0;
        if (fl_issue) begin
            m_flush_valid <= 1'b1;
            m_flush_queue <= flq_q;
            fl_busy       <= 1'b1;
        end
        if (flush_done && fl_busy && !fd_req) begin
            fd_req <= 1'b1;
            fd_q   <= m_flush_queue;
        end
        if (fd_grant) begin
            fd_req  <= 1'b0;
            fl_busy <= 1'b0;
        end
    end
end

// ------------------------------------------------------------------------------------------------
// read issue: AR FIFO and burst context FIFO
wire ar_fifo_valid;
wire [63+8:0] ar_fifo_data;
wire ctx_valid;
wire [CTX_W-1:0] ctx_data;
wire ctx_pop;
wire [CTX_W-1:0] ctx_push_data = {b_q, s_issue, sc_n, sc_lane0, c_wb, c_wl, c_pol};

/* verilator lint_off PINCONNECTEMPTY */
tsnic_fifo #(.WIDTH(72), .ADDR_W(MAX_OUT_LOG2)) ar_fifo_inst (
    .clk(clk), .rst(rst),
    .s_valid(sched_go), .s_ready(), .s_data({sc_arlen, sc_araddr}),
    .m_valid(ar_fifo_valid), .m_ready(m_axi_arready), .m_data(ar_fifo_data), .count());

tsnic_fifo #(.WIDTH(CTX_W), .ADDR_W(MAX_OUT_LOG2)) ctx_fifo_inst (
    .clk(clk), .rst(rst),
    .s_valid(sched_go), .s_ready(), .s_data(ctx_push_data),
    .m_valid(ctx_valid), .m_ready(ctx_pop), .m_data(ctx_data), .count());
/* verilator lint_on PINCONNECTEMPTY */

assign m_axi_arid    = AXI_ID;
assign m_axi_araddr  = ar_fifo_data[AXI_ADDR_W-1:0];
assign m_axi_arlen   = ar_fifo_data[71:64];
assign m_axi_arsize  = BEAT_LOG2_32[2:0];
assign m_axi_arburst = 2'b01;
assign m_axi_arlock  = 1'b0;
assign m_axi_arcache = 4'b0011;
assign m_axi_arprot  = 3'b010;
assign m_axi_arvalid = ar_fifo_valid;

// ctx fields
wire [1:0]            x_pol   = ctx_data[1:0];
wire [63:0]           x_wl    = ctx_data[65:2];
wire [63:0]           x_wb    = ctx_data[129:66];
wire [LANES_LOG2-1:0] x_lane0 = ctx_data[130 +: LANES_LOG2];
wire [7:0]            x_n     = ctx_data[130+LANES_LOG2 +: 8];
wire [15:0]           x_start = ctx_data[138+LANES_LOG2 +: 16];
wire [QUEUE_W-1:0]    x_q     = ctx_data[154+LANES_LOG2 +: QUEUE_W];

// ------------------------------------------------------------------------------------------------
// unpack R beats into descriptors
reg  [7:0]   k;
wire         emit;
wire [255:0] emit_desc;
wire         emit_err;     // a beat of this descriptor came back with rresp != OKAY
wire         emit_last = (k == x_n - 8'd1);
assign ctx_pop = emit && emit_last;

generate
    if (LANES > 1) begin : g_unpack_lanes
        // R beats go into a small FIFO (a burst's worth of beats), so the unpacker's one descriptor
        // per cycle never holds rready low on the R channel it shares with the payload prefetch
        // (a 512-bit beat carries 2 descriptors; holding it 2 cycles blocked the payload beats
        // queued behind it in the host's in-order read return).
        wire [AXI_DATA_W-1:0] hb;
        wire                  hb_valid;
        reg [LANES_LOG2-1:0]  ln;
        wire [LANES_LOG2-1:0] cur_lane = (k == 8'd0) ? x_lane0 : ln;
        wire last_in_beat = (cur_lane == LANES_M1_32[LANES_LOG2-1:0]) || emit_last;
        assign emit = hb_valid && ctx_valid;
        assign emit_desc = hb[cur_lane*256 +: 256];
        /* verilator lint_off PINCONNECTEMPTY */
        wire                  hb_err;
        tsnic_fifo #(.WIDTH(AXI_DATA_W + 1), .ADDR_W(RB_ADDR_W)) rbeat_fifo_inst (
            .clk(clk), .rst(rst),
            .s_valid(m_axi_rvalid), .s_ready(m_axi_rready), .s_data({m_axi_rresp[1], m_axi_rdata}),
            .m_valid(hb_valid), .m_ready(emit && last_in_beat), .m_data({hb_err, hb}), .count());
        assign emit_err = hb_err;
        /* verilator lint_on PINCONNECTEMPTY */
        always @(posedge clk) begin
            if (rst) begin
                ln <= {LANES_LOG2{1'b0}};
            end else begin
                if (emit) ln <= last_in_beat ? {LANES_LOG2{1'b0}} : cur_lane + 1'b1;
            end
        end
    end else if (BPD > 1) begin : g_unpack_beats
        /* verilator lint_off UNUSEDSIGNAL */
        reg [255:0]        sh;
        /* verilator lint_on UNUSEDSIGNAL */
        reg [BPD_LOG2-1:0] bcnt;
        reg                sh_err;     // an earlier beat of this descriptor had an error
        wire [255:0] asm_desc = {m_axi_rdata, sh[255:AXI_DATA_W]};
        assign m_axi_rready = 1'b1;
        assign emit = m_axi_rvalid && (bcnt == BPD_LAST_32[BPD_LOG2-1:0]);
        assign emit_desc = asm_desc;
        assign emit_err = sh_err || m_axi_rresp[1];
        always @(posedge clk) begin
            if (rst) begin
                bcnt <= {BPD_LOG2{1'b0}}; sh <= 256'd0; sh_err <= 1'b0;
            end else if (m_axi_rvalid) begin
                sh   <= asm_desc;
                sh_err <= emit ? 1'b0 : emit_err;
                bcnt <= (bcnt == BPD_LAST_32[BPD_LOG2-1:0]) ? {BPD_LOG2{1'b0}} : bcnt + 1'b1;
            end
        end
    end else begin : g_unpack_one
        assign m_axi_rready = 1'b1;
        assign emit = m_axi_rvalid;
        assign emit_desc = m_axi_rdata[255:0];
        assign emit_err = m_axi_rresp[1];
    end
endgenerate

reg              u_valid;
reg              u_err;
reg [255:0]      u_desc;
reg [QUEUE_W-1:0] u_q;
reg [15:0]       u_idx;
reg              u_last;
reg [15:0]       u_new_cons;
reg [7:0]        u_n;
reg [63:0]       u_wb, u_wl;
reg [1:0]        u_pol;

always @(posedge clk) begin
    if (rst) begin
        k <= 8'd0; u_valid <= 1'b0; u_err <= 1'b0; u_desc <= 256'd0; u_q <= {QUEUE_W{1'b0}}; u_idx <= 16'd0;
        u_last <= 1'b0; u_new_cons <= 16'd0; u_n <= 8'd0; u_wb <= 64'd0; u_wl <= 64'd0; u_pol <= 2'd0;
    end else begin
        u_valid <= emit;
        if (emit) begin
            k          <= emit_last ? 8'd0 : k + 8'd1;
            u_desc     <= emit_desc;
            u_err      <= emit_err;
            u_q        <= x_q;
            u_idx      <= x_start + {8'd0, k};
            u_last     <= emit_last;
            u_new_cons <= x_start + {8'd0, x_n};
            u_n        <= x_n;
            u_wb       <= x_wb;
            u_wl       <= x_wl;
            u_pol      <= x_pol;
        end
    end
end

// validate, in two registered steps: (1) the sums and the simple checks, (2) the window compare
wire [63:0] d_addr   = u_desc[`TSNIC_DESC_ADDR_LSB +: 64];
wire [31:0] d_len    = u_desc[`TSNIC_DESC_LEN_LSB +: 32];
wire [31:0] d_flags  = u_desc[`TSNIC_DESC_FLAGS_LSB +: 32];

reg               v_valid, v_asap, v_bad, v_zero, v_over, v_below, v_last, v_err;
reg [63:0]        v_addr, v_launch;
reg [15:0]        v_len, v_idx, v_new_cons;
reg [31:0]        v_cookie;
reg [64:0]        v_dend, v_wend;
reg [QUEUE_W-1:0] v_q;
reg [1:0]         v_pol;
reg [7:0]         v_n;

always @(posedge clk) begin
    if (rst) begin
        v_valid <= 1'b0; v_err <= 1'b0; v_asap <= 1'b0; v_bad <= 1'b0; v_zero <= 1'b0; v_over <= 1'b0; v_below <= 1'b0;
        v_last <= 1'b0; v_addr <= 64'd0; v_launch <= 64'd0; v_len <= 16'd0; v_idx <= 16'd0;
        v_new_cons <= 16'd0; v_cookie <= 32'd0; v_dend <= 65'd0; v_wend <= 65'd0;
        v_q <= {QUEUE_W{1'b0}}; v_pol <= 2'd0; v_n <= 8'd0;
    end else begin
        v_valid <= u_valid;
        if (u_valid) begin
            v_addr     <= d_addr;
            v_err      <= u_err;
            v_len      <= d_len[15:0];
            v_cookie   <= u_desc[`TSNIC_DESC_COOKIE_LSB +: 32];
            v_launch   <= u_desc[`TSNIC_DESC_LAUNCH_NS_LSB +: 64];
            v_asap     <= d_flags[`TSNIC_DESC_FLAG_ASAP_BIT];
            v_bad      <= |(d_flags & ~(32'd1 << `TSNIC_DESC_FLAG_ASAP_BIT));
            v_zero     <= (d_len == 32'd0);
            v_over     <= (d_len > MAXLEN);
            v_below    <= (d_addr < u_wb);
            v_dend     <= {1'b0, d_addr} + {33'd0, d_len};
            v_wend     <= {1'b0, u_wb} + {1'b0, u_wl};
            v_q        <= u_q;
            v_idx      <= u_idx;
            v_pol      <= u_pol;
            v_last     <= u_last;
            v_new_cons <= u_new_cons;
            v_n        <= u_n;
        end
    end
end

wire        d_out    = v_below || (v_dend > v_wend);
wire [7:0]  d_reason = v_zero ? `TSNIC_REJECT_ZERO_LEN :
                       v_over ? `TSNIC_REJECT_OVERSIZE :
                       v_bad  ? `TSNIC_REJECT_BAD_FLAGS :
                       d_out  ? `TSNIC_REJECT_OUTSIDE_WINDOW : `TSNIC_REJECT_NONE;
wire [63:0] d_lt     = (v_asap && d_reason == `TSNIC_REJECT_NONE) ? phc_ns : v_launch;

// An ASAP descriptor is stamped with the PHC time of its validation, so by the time the calendar sees
// it that time has passed: it is sent with late policy SEND whatever the queue's policy, since "as soon as
// possible" cannot be late enough to drop.
wire [1:0]  d_pol    = v_asap ? {v_pol[1], `TSNIC_LATE_POLICY_SEND} : v_pol;

wire [DF_W-1:0] df_in = {v_err, v_addr, v_len, v_cookie, d_lt, v_q, v_idx, d_pol, d_reason, v_last,
                         v_new_cons, v_n};

// descriptor buffer
wire            df_valid;
wire [DF_W-1:0] df_data;
wire            df_pop;
/* verilator lint_off PINCONNECTEMPTY */
tsnic_fifo #(.WIDTH(DF_W), .ADDR_W(DESC_FIFO_LOG2)) desc_fifo_inst (
    .clk(clk), .rst(rst),
    .s_valid(v_valid), .s_ready(), .s_data(df_in),
    .m_valid(df_valid), .m_ready(df_pop), .m_data(df_data), .count());
/* verilator lint_on PINCONNECTEMPTY */

wire [7:0]         f_n        = df_data[7:0];
wire [15:0]        f_new_cons = df_data[23:8];
wire               f_last     = df_data[24];
wire [7:0]         f_reason   = df_data[32:25];
wire [1:0]         f_pol      = df_data[34:33];
wire [15:0]        f_idx      = df_data[50:35];
wire [QUEUE_W-1:0] f_q        = df_data[51 +: QUEUE_W];
wire [63:0]        f_launch   = df_data[51+QUEUE_W +: 64];
wire [31:0]        f_cookie   = df_data[115+QUEUE_W +: 32];
wire [15:0]        f_len      = df_data[147+QUEUE_W +: 16];
wire [63:0]        f_addr     = df_data[163+QUEUE_W +: 64];
wire               f_err      = df_data[DF_W-1];       // the descriptor read failed: DMA_ERROR
wire               f_rej      = (f_reason != `TSNIC_REJECT_NONE) || f_err;

// progress to the engine: consecutive descriptors of one queue leaving the buffer are merged into one
// "done" update (queue, new CONS, count); the update goes out the cycle after the run breaks: another
// queue, a cycle without a descriptor, or the end of a burst. So CONS trails the descriptors that have
// left by a few cycles at most, even when the calendar stalls in the middle of a burst.
reg               acc_valid, acc_last;
reg [QUEUE_W-1:0] acc_q;
reg [15:0]        acc_cons;
reg [7:0]         acc_n;
wire dn_ready;
wire acc_push_go;
wire acc_merge = acc_valid && !acc_last && (acc_q == f_q);
/* verilator lint_off PINCONNECTEMPTY */
tsnic_fifo #(.WIDTH(DN_W), .ADDR_W(2)) done_fifo_inst (
    .clk(clk), .rst(rst),
    .s_valid(acc_push_go), .s_ready(dn_ready), .s_data({acc_q, acc_cons, acc_n}),
    .m_valid(dn_valid), .m_ready(dn_pop), .m_data(dn_data), .count());
/* verilator lint_on PINCONNECTEMPTY */

// The calendar's s_ins_ready is combinational from its own stage-B decision (which follows phc_ns), so it
// must not reach df_pop, the descriptor table's allocation and used count: a skid register behind m_ins
// takes one more descriptor while the calendar holds, and df_pop looks only at registers (sk_valid).
// The calendar sees the same stream at the same cycles; a descriptor held in the skid register has its
// table entry (and CONS progress) one descriptor earlier than before.
wire ins_free = !sk_valid;
wire cpl_free = !m_cpl_req_valid || m_cpl_req_ready;
assign df_pop = df_valid && (acc_merge || !acc_valid || dn_ready)
             && (f_rej ? cpl_free : (tbl_alloc_valid && ins_free));
// push the accumulated run when a descriptor of another run leaves, or when none leaves
assign acc_push_go = acc_valid && dn_ready && (df_pop ? !acc_merge : 1'b1);

always @(posedge clk) begin
    if (rst) begin
        acc_valid <= 1'b0; acc_last <= 1'b0; acc_q <= {QUEUE_W{1'b0}}; acc_cons <= 16'd0; acc_n <= 8'd0;
    end else begin
        if (df_pop) begin
            acc_valid <= 1'b1;
            acc_q     <= f_q;
            acc_cons  <= f_idx + 16'd1;
            acc_last  <= f_last;
            acc_n     <= acc_merge ? acc_n + 8'd1 : 8'd1;
        end else if (acc_push_go) begin
            acc_valid <= 1'b0;
        end
    end
end

assign tbl_wr_en         = df_pop && !f_rej;
assign tbl_wr_addr       = f_addr;
assign tbl_wr_len        = f_len;
assign tbl_wr_cookie     = f_cookie;
assign tbl_wr_launch_ns  = f_launch;
assign tbl_wr_ring_index = f_idx;
assign tbl_wr_queue      = f_q;

reg cpl_err_r;
assign m_cpl_req_status       = cpl_err_r ? `TSNIC_STATUS_DMA_ERROR : `TSNIC_STATUS_REJECTED;
assign m_cpl_req_capped       = 1'b0;
assign m_cpl_req_handle       = {NODE_W{1'b0}};
assign m_cpl_req_handle_valid = 1'b0;

always @(posedge clk) begin
    if (rst) begin
        m_ins_valid <= 1'b0; m_ins_queue <= {QUEUE_W{1'b0}}; m_ins_handle <= {NODE_W{1'b0}};
        m_ins_launch_ns <= 64'd0; m_ins_late_policy <= 1'b0; m_ins_horizon_policy <= 1'b0;
        m_cpl_req_valid <= 1'b0; m_cpl_req_queue <= {QUEUE_W{1'b0}}; m_cpl_req_ring_index <= 16'd0;
        m_cpl_req_cookie <= 32'd0; m_cpl_req_launch_ns <= 64'd0; m_cpl_req_depart_ns <= 64'd0;
        m_cpl_req_len <= 16'd0; m_cpl_req_reason <= 8'd0; cpl_err_r <= 1'b0;
        evt_posted <= 1'b0;
        sk_valid <= 1'b0; sk_queue <= {QUEUE_W{1'b0}}; sk_handle <= {NODE_W{1'b0}}; sk_launch <= 64'd0;
        sk_pol <= 2'd0;
    end else begin
        evt_posted <= df_pop;
        if (m_cpl_req_valid && m_cpl_req_ready) m_cpl_req_valid <= 1'b0;
        // insert output with its skid register (df_pop inserts only while the skid register is empty)
        if (m_ins_valid && m_ins_ready) begin
            m_ins_valid          <= sk_valid;
            m_ins_queue          <= sk_queue;
            m_ins_handle         <= sk_handle;
            m_ins_launch_ns      <= sk_launch;
            m_ins_late_policy    <= sk_pol[0];
            m_ins_horizon_policy <= sk_pol[1];
            sk_valid             <= 1'b0;
        end
        if (df_pop && !f_rej) begin
            if (!m_ins_valid || m_ins_ready) begin
                m_ins_valid          <= 1'b1;
                m_ins_queue          <= f_q;
                m_ins_handle         <= tbl_alloc_handle;
                m_ins_launch_ns      <= f_launch;
                m_ins_late_policy    <= f_pol[0];
                m_ins_horizon_policy <= f_pol[1];
            end else begin
                sk_valid  <= 1'b1;
                sk_queue  <= f_q;
                sk_handle <= tbl_alloc_handle;
                sk_launch <= f_launch;
                sk_pol    <= f_pol;
            end
        end
        if (df_pop && f_rej) begin
            m_cpl_req_valid      <= 1'b1;
            m_cpl_req_queue      <= f_q;
            m_cpl_req_ring_index <= f_idx;
            m_cpl_req_cookie     <= f_err ? 32'd0 : f_cookie;
            m_cpl_req_launch_ns  <= f_err ? 64'd0 : f_launch;
            m_cpl_req_depart_ns  <= phc_ns;
            m_cpl_req_len        <= f_err ? 16'd0 : f_len;
            m_cpl_req_reason     <= f_err ? `TSNIC_REJECT_NONE : f_reason;
            cpl_err_r            <= f_err;
        end
    end
end

// ------------------------------------------------------------------------------------------------
// credits (descriptor buffer room reserved by issued bursts) and outstanding bursts
// sc_n is 8 bits and DESC_FIFO_LOG2 may be 8 or more: widen, then take the credit width
/* verilator lint_off UNUSEDSIGNAL */
wire [15:0] sc_n16 = {8'd0, sc_n};
/* verilator lint_on UNUSEDSIGNAL */
always @(posedge clk) begin
    if (rst) begin
        credits <= DESC_FIFO;
        ctx_cnt <= {(MAX_OUT_LOG2+1){1'b0}};
    end else begin
        credits <= credits - (sched_go ? sc_n16[DESC_FIFO_LOG2:0] : {(DESC_FIFO_LOG2+1){1'b0}})
                           + {{DESC_FIFO_LOG2{1'b0}}, df_pop};
        ctx_cnt <= ctx_cnt + {{MAX_OUT_LOG2{1'b0}}, sched_go} - {{MAX_OUT_LOG2{1'b0}}, ctx_pop};
    end
end

assign idle = !init_busy && (ctx_cnt == 0) && (credits == DESC_FIFO) && !u_valid && !v_valid && !m_ins_valid && !sk_valid
           && !m_cpl_req_valid && !dn_valid && !b_valid && !acc_valid;
// fast-forward (docs/ARCHITECTURE.md, "Idle fast-forward"): nothing fetched, no queue waiting to be
// fetched or flushed, no register access
assign ff_quiet = idle && !act_valid && !flq_valid && !fd_req && !p_valid && !fl_busy && !wr_busy && !wr_ack_r &&
                  !rd_busy && !rd_ack_r && cc_quiet && !rel_valid && !cc_h1_v && !cc_h2_v && !ka_v && !kp_v;

// unused inputs
/* verilator lint_off UNUSEDSIGNAL */
wire unused_ok = &{1'b0, m_axi_rid, m_axi_rresp[0], m_axi_rlast, u_desc[255:224], fl_valid_unused, f_n, f_new_cons, ctx_valid,
                   x_lane0, wr_o[1:0], b_off[1:0], c_base_lo[4:0], prod_raw[31:16], sc_daddr[4:0]};
/* verilator lint_on UNUSEDSIGNAL */

`undef TSNIC_DF_OWNED
`undef ST_PROD
`undef ST_ISSUE
`undef ST_CONS
`undef ST_CNT
`undef ST_EN
`undef ST_FP
`undef ST_INF

endmodule

`resetall
