// tsnic_pk_fetch: the packed transmit format's fetch engine (issue 32 item 2; docs/DATAPATH.md
// "Packed transmit format", "tsnic_pk_fetch"). It reads the packed queues' streams from host memory
// into the chunked on-card buffer (tsnic_pk_buf, inside), walks them with the record parser
// (tsnic_pk_parse, inside), and turns every FRAME record into a descriptor-table entry plus a
// calendar insert, or a REJECTED / DMA_ERROR completion request, as tsnic_desc_fetch does for
// classic descriptors.
//
// Per-queue state (RAMs indexed by queue, changed by one command at a time in a three-cycle engine:
// pick + RAM read, compute, write): PROD, RD (units issued for reading), CONS (units copied into the
// buffer), enable, halted, in-active-FIFO, the queue's chunk chain (head chunk and its block, current
// chunk, chunks held), reads outstanding; base address, SIZE_LOG2, policies.
//
// - Control ports (the register decode is not here: a later step steers the Q block's registers of
//   packed queues to them): s_qcfg_* sets a queue's base, SIZE_LOG2 (9..16: 4 KiB .. 512 KiB),
//   policies and enable; with s_qcfg_init it also resets the stream to unit s_qcfg_ptr (PROD = CONS
//   = ptr, halt cleared, parser state cleared). An init is taken only when the queue holds no chunk,
//   has no read outstanding and nothing of it is left in the parser (halted, or every unit read was
//   parsed into records); until then s_qcfg_ready stays low (other commands go on). s_db_* is the
//   PROD doorbell (clamped to CONS + size, never behind RD). s_st_* reads PROD, CONS, enable, halted
//   and chunks held (Q_STATUS's halt bit comes from here).
// - Reads: queues with unread units sit in an active FIFO; each turn issues one AXI read for the
//   queue, of the units from RD up to PROD or the next MAX_RD_BYTES boundary (at most 512: a read
//   never crosses a 512-byte block), whole bus words (bytes outside the stream are read, not parsed).
//   A read that starts a block (or finds no current chunk) takes a fresh chunk from tsnic_pk_buf's
//   free list, linked after the queue's current one; it is not issued while the queue holds
//   cfg_share_bytes (0: PK_SHARE_BYTES) or while the free list is empty (the queue goes back to the
//   active FIFO's tail and tries again). A read is issued only with room for all its beats reserved
//   in the beat FIFO before the parser, so rready stays high (low for one cycle only when an init's
//   clear marker enters that FIFO).
// - R beats: written into the read's chunk at once, then (through the beat FIFO) to the parser with
//   their unit, [lo, hi), PROD and buffer address; a beat with rresp != OKAY goes with s_err (the
//   parser emits the open frame it cuts as a DMA error record, or a marker, and halts the queue).
//   CONS moves to the read's end when its last beat is written.
// - Records: a valid FRAME takes a table handle: entry addr = {1 (ON_CARD, bit 63), chunk at bit 16,
//   byte offset of the record in bits 15:0 (below 512)}, cookie 0, ring_index = the record's unit,
//   launch, len, queue; then a calendar insert with the queue's policies (ASAP: late policy SEND).
//   A rejected record becomes a REJECTED completion request with its reason; a DMA error record of a
//   frame a DMA_ERROR request (cookie, len, launch_ns 0, as tsnic_desc_fetch). A halting record
//   (PK_BAD_TYPE, PK_TRUNCATED, DMA error) halts the queue: no more reads, CONS set back to that
//   record's unit (the first unit not read, for a DMA error without an open frame).
// - Reclaim: each chunk counts the inserted frames whose record is in it (up at the insert, down at a
//   free of the frame's handle: s_free_*, tsnic_cpl_write's m_free tapped, with s_free_packed the
//   entry's ON_CARD bit); a queue's "frontier" (the unit after its last record out of the parser) is
//   kept in a RAM. Queues holding chunks circulate in a hold FIFO; at its turn the engine frees the
//   queue's head chunk when its count is 0 and the frontier has passed its block (or the queue is
//   halted or disabled and has nothing outstanding), in stream order, one chunk a turn.
// - cfg_ahead_ns (the PK_TOO_EARLY bound), cfg_share_bytes and cap_buf_bytes are ports; the registers
//   CTRL_PK_AHEAD_NS, CTRL_PK_SHARE_BYTES and CAP_PK_BUF_BYTES are not in the contract yet.
// Not here: the quota rule of tsnic_desc_fetch (a packed queue's frames are bounded by its share of
// the buffer instead), calendar flushes on disable (tsnic_desc_fetch / the core), the Q_CTRL.FORMAT
// register decode.
`resetall
`timescale 1ns / 1ps
`default_nettype none
`include "tsnic_contract.vh"

module tsnic_pk_fetch #(
    parameter QUEUE_W        = 3,          // packed queues: 2^QUEUE_W
    parameter NODE_W         = 10,         // descriptor-table handles
    parameter DATA_W         = 512,        // AXI data width, 64..512
    parameter AXI_ADDR_W     = 64,
    parameter AXI_ID_W       = 8,
    parameter [AXI_ID_W-1:0] AXI_ID = 0,   // the one ID of the stream reads (responses in order)
    parameter MAX_RD_BYTES   = 512,        // read size limit, a power of 2, DATA_W/8 .. 512
    parameter MAX_OUT_LOG2   = 5,          // reads outstanding: up to 2^MAX_OUT_LOG2
    parameter CHUNK_W        = 8,          // buffer: 2^CHUNK_W chunks of 512 bytes (8: 128 KiB)
    parameter PK_SHARE_BYTES = (512 << CHUNK_W) / 4,   // a queue's buffer share when cfg_share_bytes is 0
    parameter MAX_FRAME_LEN  = 9600,
    // the beat FIFO: 2^BF_LOG2 beats; room for every read outstanding (less caps the rate: reads wait
    // for room there)
    parameter BF_LOG2        = MAX_OUT_LOG2 + $clog2(MAX_RD_BYTES / (DATA_W / 8))
) (
    input  wire                   clk,
    input  wire                   rst,

    input  wire                   enable,          // CTRL.CONTROL.ENABLE: issue reads when 1
    input  wire [63:0]            phc_ns,
    input  wire [31:0]            cfg_ahead_ns,    // PK_AHEAD_NS
    input  wire [31:0]            cfg_share_bytes, // PK_SHARE_BYTES (0: the parameter)
    output wire [31:0]            cap_buf_bytes,   // PK_BUF_BYTES

    // queue configuration
    input  wire                   s_qcfg_valid,
    output wire                   s_qcfg_ready,
    input  wire [QUEUE_W-1:0]     s_qcfg_queue,
    input  wire [63:0]            s_qcfg_base,
    input  wire [4:0]             s_qcfg_size_log2,
    input  wire                   s_qcfg_enable,
    input  wire                   s_qcfg_late_policy,
    input  wire                   s_qcfg_horizon_policy,
    input  wire                   s_qcfg_init,
    input  wire [15:0]            s_qcfg_ptr,

    // PROD doorbell
    input  wire                   s_db_valid,
    output wire                   s_db_ready,
    input  wire [QUEUE_W-1:0]     s_db_queue,
    input  wire [15:0]            s_db_prod,

    // status read
    input  wire                   s_st_valid,
    output wire                   s_st_ready,
    input  wire [QUEUE_W-1:0]     s_st_queue,
    output reg                    m_st_valid,
    output reg  [15:0]            m_st_prod,
    output reg  [15:0]            m_st_cons,
    output reg                    m_st_enabled,
    output reg                    m_st_halted,
    output reg  [15:0]            m_st_chunks,

    // AXI4 read master (the streams)
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
    input  wire [DATA_W-1:0]      m_axi_rdata,
    input  wire [1:0]             m_axi_rresp,
    input  wire                   m_axi_rlast,
    input  wire                   m_axi_rvalid,
    output wire                   m_axi_rready,

    // the buffer's read port (the transmit side, through tsnic_pk_rdmux)
    input  wire                   s_pk_ar_valid,
    output wire                   s_pk_ar_ready,
    input  wire [CHUNK_W-1:0]     s_pk_ar_chunk,
    input  wire [15:0]            s_pk_ar_off,
    input  wire [8:0]             s_pk_ar_beats,
    output wire                   m_pk_r_valid,
    input  wire                   m_pk_r_ready,
    output wire [DATA_W-1:0]      m_pk_r_data,
    output wire                   m_pk_r_last,

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

    // completion request (REJECTED, DMA_ERROR)
    output reg                    m_cpl_req_valid,
    input  wire                   m_cpl_req_ready,
    output reg  [QUEUE_W-1:0]     m_cpl_req_queue,
    output reg  [15:0]            m_cpl_req_ring_index,
    output wire [31:0]            m_cpl_req_cookie,
    output reg  [63:0]            m_cpl_req_launch_ns,
    output reg  [63:0]            m_cpl_req_depart_ns,
    output reg  [15:0]            m_cpl_req_len,
    output wire [7:0]             m_cpl_req_status,
    output reg  [7:0]             m_cpl_req_reason,
    output wire                   m_cpl_req_capped,
    output wire [NODE_W-1:0]      m_cpl_req_handle,
    output wire                   m_cpl_req_handle_valid,

    // handles freed (tsnic_cpl_write's m_free, tapped): packed = the entry was ON_CARD
    input  wire                   s_free_valid,
    input  wire [NODE_W-1:0]      s_free_handle,
    input  wire                   s_free_packed,

    output reg                    evt_posted       // one pulse per FRAME record taken (inserted or not)
);

// ------------------------------------------------------------------------------------------------
// constants
localparam UPB     = DATA_W / 64;                       // units per beat
localparam UL2     = $clog2(UPB);
localparam CW      = (UPB > 1) ? UL2 : 1;               // the parser's cursor width
localparam BB      = DATA_W / 8;
localparam BL2     = $clog2(BB);
localparam WW      = $clog2(512 / BB);                  // words per chunk, log2
localparam BUF_AW  = CHUNK_W + 9;
localparam MRU     = MAX_RD_BYTES / 8;                  // units per read, at most
localparam MRL2    = $clog2(MRU);
localparam MAXB    = MRU / UPB;                         // beats per read, at most
localparam BT_W    = MRL2 - UL2 + 1;                    // width of a read's beat count
localparam NCH     = 1 << CHUNK_W;
localparam MAXOUT  = 1 << MAX_OUT_LOG2;
localparam BFN     = 1 << BF_LOG2;
localparam HELD_W  = CHUNK_W + 1;
localparam NRD_W   = MAX_OUT_LOG2 + 1;
localparam [31:0]         MRU32   = MRU;
localparam [31:0]         UPB32   = UPB;
localparam [31:0]         UPBM32  = UPB - 1;
localparam [31:0]         BL2_32  = BL2;
localparam [MRL2:0]       MRU_C   = MRU32[MRL2:0];
localparam [MRL2:0]       UPB_M1  = UPBM32[MRL2:0];
localparam [CW:0]         UPB_C   = UPB32[CW:0];
localparam [MAX_OUT_LOG2:0] MAXOUT_C = MAXOUT;
localparam [BF_LOG2:0]    BFN_C   = BFN;
localparam [HELD_W-1:0]   NCH_C   = NCH;

generate
    if (DATA_W < 64 || DATA_W > 512 || (DATA_W & (DATA_W - 1)) != 0) begin : g_bad_w
        tsnic_param_error_pk_fetch_DATA_W_must_be_64_128_256_or_512 param_error_inst ();
    end
    if (MAX_RD_BYTES < BB || MAX_RD_BYTES > 512 || (MAX_RD_BYTES & (MAX_RD_BYTES - 1)) != 0) begin : g_bad_rd
        tsnic_param_error_pk_fetch_MAX_RD_BYTES_must_be_a_power_of_2_from_DATA_W_div_8_to_512 param_error_inst ();
    end
    if (CHUNK_W < 2 || CHUNK_W > 10) begin : g_bad_c
        tsnic_param_error_pk_fetch_CHUNK_W_must_be_2_to_10 param_error_inst ();
    end
    if (BFN < 2 * MAXB) begin : g_bad_bf
        tsnic_param_error_pk_fetch_BF_LOG2_too_small param_error_inst ();
    end
    if (MAX_OUT_LOG2 < 1 || MAX_OUT_LOG2 > 7) begin : g_bad_out
        tsnic_param_error_pk_fetch_MAX_OUT_LOG2_must_be_1_to_7 param_error_inst ();
    end
endgenerate

localparam [31:0] BUF_BYTES32 = 32'd512 << CHUNK_W;
localparam [31:0] SHARE_DEF32 = PK_SHARE_BYTES;
assign cap_buf_bytes = BUF_BYTES32;

// the share limit in chunks (at least 1, at most every chunk), registered
reg  [HELD_W-1:0] share_ch = {HELD_W{1'b0}};
wire [31:0]       share_b  = (cfg_share_bytes == 32'd0) ? SHARE_DEF32 : cfg_share_bytes;
wire [22:0]       share_c  = share_b[31:9];
always @(posedge clk) begin
    if (share_c == 23'd0)                             share_ch <= {{(HELD_W-1){1'b0}}, 1'b1};
    else if (share_c >= {{(22-CHUNK_W){1'b0}}, 1'b1, {CHUNK_W{1'b0}}}) share_ch <= NCH_C;
    else                                              share_ch <= share_c[HELD_W-1:0];
end

// ------------------------------------------------------------------------------------------------
// reset sweep: every queue's state, configuration and frontier zeroed
reg               init_busy = 1'b1;
reg [QUEUE_W-1:0] init_q = {QUEUE_W{1'b0}};
always @(posedge clk) begin
    if (init_busy) begin
        init_q <= init_q + 1'b1;
        if (&init_q) init_busy <= 1'b0;
    end
    if (rst) begin
        init_busy <= 1'b1;
        init_q <= {QUEUE_W{1'b0}};
    end
end

// ------------------------------------------------------------------------------------------------
// the buffer

wire               pb_alloc_valid;
wire [CHUNK_W-1:0] pb_alloc_chunk;
reg                pb_alloc_en;
reg                pb_alloc_link;
reg  [CHUNK_W-1:0] pb_alloc_prev;
wire               pb_wr_en;
wire [CHUNK_W-1:0] pb_wr_chunk;
wire [WW-1:0]      pb_wr_word;
reg                pb_free_en;
reg  [CHUNK_W-1:0] pb_free_chunk;

tsnic_pk_buf #(.DATA_W(DATA_W), .CHUNK_W(CHUNK_W), .BEATS_W(9)) buf_inst (
    .clk(clk), .rst(rst),
    .alloc_valid(pb_alloc_valid), .alloc_chunk(pb_alloc_chunk), .alloc_en(pb_alloc_en),
    .alloc_link(pb_alloc_link), .alloc_prev(pb_alloc_prev),
    .wr_en(pb_wr_en), .wr_chunk(pb_wr_chunk), .wr_word(pb_wr_word), .wr_data(m_axi_rdata),
    .free_en(pb_free_en), .free_chunk(pb_free_chunk),
    .s_ar_valid(s_pk_ar_valid), .s_ar_ready(s_pk_ar_ready), .s_ar_chunk(s_pk_ar_chunk),
    .s_ar_off(s_pk_ar_off), .s_ar_beats(s_pk_ar_beats),
    .m_r_valid(m_pk_r_valid), .m_r_ready(m_pk_r_ready), .m_r_data(m_pk_r_data), .m_r_last(m_pk_r_last)
);

// ------------------------------------------------------------------------------------------------
// engine: per-queue state

// dynamic state word
localparam S_PROD = 0;
localparam S_RD   = 16;
localparam S_CONS = 32;
localparam S_EN   = 48;
localparam S_HALT = 49;
localparam S_INF  = 50;                        // in the active FIFO (or being scheduled)
localparam S_INH  = 51;                        // in the hold FIFO (or being reclaimed)
localparam S_CUOK = 52;
localparam S_HDOK = 53;
localparam S_HBLK = 54;                        // 10 bits: the head chunk's block (unit >> 6)
localparam S_CUR  = 64;
localparam S_HEAD = S_CUR + CHUNK_W;
localparam S_HELD = S_HEAD + CHUNK_W;
localparam S_NRD  = S_HELD + HELD_W;
localparam ST_W   = S_NRD + NRD_W;
// configuration word: base[63:12], size_log2
localparam CF_W   = 52 + 5;

localparam [3:0] C_NONE = 4'd0, C_HALT = 4'd1, C_DONE = 4'd2, C_ST = 4'd3, C_DB = 4'd4,
                 C_QCFG = 4'd5, C_RECL = 4'd6, C_SCHED = 4'd7;

reg  [3:0]          e_cmd_n;                   // the command picked this cycle
reg  [1:0]          ph = 2'd0;                 // 0: pick, 1: compute (B), 2: write (W)
reg  [3:0]          e_cmd = C_NONE;
reg  [QUEUE_W-1:0]  e_q = {QUEUE_W{1'b0}};
reg  [15:0]         e_arg = 16'd0;             // DONE: read end; HALT: unit; DB: prod; QCFG: ptr
reg  [63:0]         e_base = 64'd0;
reg  [4:0]          e_size = 5'd0;
reg  [2:0]          e_flags = 3'd0;            // QCFG: {init, horizon, late}
reg                 e_en = 1'b0;

wire [ST_W-1:0]     st_q;                      // the RAM's output in B
wire [CF_W-1:0]     cf_q;
wire [15:0]         fr_q;
reg                 st_we;
reg  [ST_W-1:0]     st_wd;
reg                 cf_we;
wire                pick;
reg  [QUEUE_W-1:0]  p_q;

tsnic_ram_sdp #(.WIDTH(ST_W), .ADDR_W(QUEUE_W)) st_ram (
    .clk(clk), .wr_en(init_busy || st_we), .wr_addr(init_busy ? init_q : e_q),
    .wr_data(init_busy ? {ST_W{1'b0}} : st_wd), .rd_en(pick), .rd_addr(p_q), .rd_data(st_q));

wire [CF_W-1:0] cf_wd = {e_base[63:12], (e_size < 5'd9) ? 5'd9 : ((e_size > 5'd16) ? 5'd16 : e_size)};
tsnic_ram_sdp #(.WIDTH(CF_W), .ADDR_W(QUEUE_W)) cf_ram (
    .clk(clk), .wr_en(init_busy || cf_we), .wr_addr(init_busy ? init_q : e_q),
    .wr_data(init_busy ? {CF_W{1'b0}} : cf_wd), .rd_en(pick), .rd_addr(p_q), .rd_data(cf_q));

// policies, read by the record path
wire [1:0]          pol_q;
wire                r1_load;
wire [QUEUE_W-1:0]  rf_queue;
tsnic_ram_sdp #(.WIDTH(2), .ADDR_W(QUEUE_W)) pol_ram (
    .clk(clk), .wr_en(init_busy || cf_we), .wr_addr(init_busy ? init_q : e_q),
    .wr_data(init_busy ? 2'd0 : e_flags[1:0]), .rd_en(r1_load), .rd_addr(rf_queue), .rd_data(pol_q));

// frontier: the unit after the queue's last record out of the parser (written by the record path,
// and by an init)
reg                 fr_eng_we;                 // the engine writes it this cycle (W of an init)
wire                fr_rec_we;
wire [15:0]         fr_rec_wd;
wire [QUEUE_W-1:0]  fr_rec_wa;
tsnic_ram_sdp #(.WIDTH(16), .ADDR_W(QUEUE_W)) fr_ram (
    .clk(clk), .wr_en(init_busy || fr_eng_we || fr_rec_we),
    .wr_addr(init_busy ? init_q : (fr_eng_we ? e_q : fr_rec_wa)),
    .wr_data(init_busy ? 16'd0 : (fr_eng_we ? e_arg : fr_rec_wd)),
    .rd_en(pick), .rd_addr(p_q), .rd_data(fr_q));

// per chunk: the next chunk of its queue (for the reclaim), and the count of inserted frames
reg                 nx_we;
reg  [CHUNK_W-1:0]  nx_wa;
reg  [CHUNK_W-1:0]  nx_wd;
reg  [CHUNK_W-1:0]  nx_ra;
wire [CHUNK_W-1:0]  nx_q;
tsnic_ram_sdp #(.WIDTH(CHUNK_W), .ADDR_W(CHUNK_W)) nx_ram (
    .clk(clk), .wr_en(nx_we), .wr_addr(nx_wa), .wr_data(nx_wd),
    .rd_en(ph == 2'd1), .rd_addr(nx_ra), .rd_data(nx_q));

// ------------------------------------------------------------------------------------------------
// command sources

// done FIFO: a read's last beat written (queue, read end)
wire                dn_valid;
wire [QUEUE_W+15:0] dn_data;
wire                dn_push;
wire [QUEUE_W+15:0] dn_push_data;
/* verilator lint_off PINCONNECTEMPTY */
tsnic_fifo #(.WIDTH(QUEUE_W + 16), .ADDR_W(MAX_OUT_LOG2)) done_fifo (
    .clk(clk), .rst(rst), .s_valid(dn_push), .s_ready(), .s_data(dn_push_data),
    .m_valid(dn_valid), .m_ready(pick && e_cmd_n == C_DONE), .m_data(dn_data), .count());
/* verilator lint_on PINCONNECTEMPTY */

// active FIFO (queues with unread units) and hold FIFO (queues holding chunks): each queue at most
// once in each, pushed only by the engine's W step
reg                 act_push, hold_push;
wire                act_valid, hold_valid;
wire [QUEUE_W-1:0]  act_q, hold_q;
/* verilator lint_off PINCONNECTEMPTY */
tsnic_fifo #(.WIDTH(QUEUE_W), .ADDR_W(QUEUE_W)) act_fifo (
    .clk(clk), .rst(rst), .s_valid(act_push), .s_ready(), .s_data(e_q),
    .m_valid(act_valid), .m_ready(pick && e_cmd_n == C_SCHED), .m_data(act_q), .count());
tsnic_fifo #(.WIDTH(QUEUE_W), .ADDR_W(QUEUE_W)) hold_fifo (
    .clk(clk), .rst(rst), .s_valid(hold_push), .s_ready(), .s_data(e_q),
    .m_valid(hold_valid), .m_ready(pick && e_cmd_n == C_RECL), .m_data(hold_q), .count());
/* verilator lint_on PINCONNECTEMPTY */

// halt requests from the record path (one at a time)
reg                 hq_v = 1'b0;
reg  [QUEUE_W-1:0]  hq_q = {QUEUE_W{1'b0}};
reg  [15:0]         hq_unit = 16'd0;

// resources of a read: outstanding reads, beat FIFO credits
reg  [MAX_OUT_LOG2:0] nout = {(MAX_OUT_LOG2+1){1'b0}};
reg  [BF_LOG2:0]      credits = BFN_C;
localparam [BF_LOG2:0] MAXB_C = MAXB[BF_LOG2:0];
wire can_sched = act_valid && enable && (nout < MAXOUT_C) && (credits >= MAXB_C);
reg  qc_retry = 1'b0;                          // an init was refused: qcfg below the rest now
reg  rs_turn = 1'b0;                           // reclaim and schedule take turns
reg  mk_pend = 1'b0;                           // an init's clear marker waits to enter the beat FIFO

always @* begin
    e_cmd_n = C_NONE;
    p_q = e_q;
    if (init_busy || ph != 2'd0 || mk_pend) begin
        e_cmd_n = C_NONE;
    end else if (hq_v) begin
        e_cmd_n = C_HALT; p_q = hq_q;
    end else if (dn_valid) begin
        e_cmd_n = C_DONE; p_q = dn_data[QUEUE_W+15:16];
    end else if (s_st_valid) begin
        e_cmd_n = C_ST; p_q = s_st_queue;
    end else if (s_db_valid) begin
        e_cmd_n = C_DB; p_q = s_db_queue;
    end else if (s_qcfg_valid && !qc_retry) begin
        e_cmd_n = C_QCFG; p_q = s_qcfg_queue;
    end else if (hold_valid && (rs_turn || !can_sched)) begin
        e_cmd_n = C_RECL; p_q = hold_q;
    end else if (can_sched) begin
        e_cmd_n = C_SCHED; p_q = act_q;
    end else if (s_qcfg_valid) begin
        e_cmd_n = C_QCFG; p_q = s_qcfg_queue;
    end
end
assign pick = (e_cmd_n != C_NONE);
assign s_st_ready = pick && e_cmd_n == C_ST;
assign s_db_ready = pick && e_cmd_n == C_DB;

// ------------------------------------------------------------------------------------------------
// engine: compute (B), from the RAM outputs; results registered for W

wire [15:0]         t_prod = st_q[S_PROD +: 16];
wire [15:0]         t_rd   = st_q[S_RD +: 16];
wire [15:0]         t_cons = st_q[S_CONS +: 16];
wire                t_en   = st_q[S_EN];
wire                t_halt = st_q[S_HALT];
wire                t_inf  = st_q[S_INF];
wire                t_inh  = st_q[S_INH];
wire                t_cuok = st_q[S_CUOK];
wire                t_hdok = st_q[S_HDOK];
wire [9:0]          t_hblk = st_q[S_HBLK +: 10];
wire [CHUNK_W-1:0]  t_cur  = st_q[S_CUR +: CHUNK_W];
wire [CHUNK_W-1:0]  t_head = st_q[S_HEAD +: CHUNK_W];
wire [HELD_W-1:0]   t_held = st_q[S_HELD +: HELD_W];
wire [NRD_W-1:0]    t_nrd  = st_q[S_NRD +: NRD_W];
wire [51:0]         t_base = cf_q[CF_W-1:5];
wire [4:0]          t_slog = cf_q[4:0];
wire [16:0]         t_size = 17'd1 << t_slog;
wire [15:0]         t_mask = t_size[15:0] - 16'd1;     // 2^16: 0xffff

// doorbell clamp (as tsnic_desc_fetch): at most CONS + size, never behind RD
wire [15:0] db_dist  = e_arg - t_cons;
wire [15:0] db_infl  = t_rd - t_cons;
wire        db_over  = ({1'b0, db_dist} > t_size);
wire [15:0] db_prod  = db_over ? (t_cons + t_size[15:0]) : ((db_dist < db_infl) ? t_rd : e_arg);

// schedule: the read [rd, rd + n), n = min(units posted, units to the next MAX_RD_BYTES boundary)
wire [15:0]      sc_avail = t_prod - t_rd;
wire [MRL2:0]    sc_nmax  = MRU_C - {1'b0, t_rd[MRL2-1:0]};
wire [MRL2:0]    sc_n     = (sc_avail < {{(15-MRL2){1'b0}}, sc_nmax}) ? sc_avail[MRL2:0] : sc_nmax;
wire             sc_new   = (t_rd[5:0] == 6'd0) || !t_cuok;     // the read needs a fresh chunk
wire             sc_ok    = t_en && !t_halt && (sc_avail != 16'd0);
wire             sc_room  = !sc_new || (pb_alloc_valid && (t_held < share_ch));
wire [15:0]      sc_slot  = t_rd & t_mask;
wire [51:0]      sc_page  = t_base + {45'd0, sc_slot[15:9]};
wire [11:0]      sc_boff  = {sc_slot[8:0], 3'd0} >> BL2 << BL2;     // the bus word's byte offset
wire [63:0]      sc_addr  = {sc_page, sc_boff};
wire [CW-1:0]    sc_lo;
wire [MRL2:0]    sc_tot;
wire [BT_W-1:0]  sc_beats;
wire [CW:0]      sc_hil;
generate
    if (UPB > 1) begin : g_lo
        assign sc_lo    = t_rd[UL2-1:0];
        assign sc_tot   = {{(MRL2+1-UL2){1'b0}}, t_rd[UL2-1:0]} + sc_n;
        /* verilator lint_off UNUSEDSIGNAL */
        wire [MRL2:0] bt = (sc_tot + UPB_M1) >> UL2;
        /* verilator lint_on UNUSEDSIGNAL */
        assign sc_beats = bt[BT_W-1:0];
        // units of the last beat: tot - (beats - 1) * UPB, 1..UPB
        assign sc_hil   = (sc_tot[UL2-1:0] == {UL2{1'b0}}) ? UPB_C : {1'b0, sc_tot[UL2-1:0]};
    end else begin : g_lo1
        assign sc_lo    = 1'b0;
        assign sc_tot   = sc_n;
        assign sc_beats = sc_n[BT_W-1:0];
        assign sc_hil   = 2'd1;
    end
endgenerate

// reclaim: the head chunk is free when no inserted frame of it is outstanding and the queue is past it
wire [NCH-1:0]  cnt_zero;                      // per chunk: no inserted frame of it outstanding
wire [15:0] rc_dist   = fr_q - {t_hblk, 6'd0};
wire        rc_sealed = (t_nrd == {NRD_W{1'b0}}) && (t_halt || (!t_en && fr_q == t_rd));
wire        rc_free   = t_hdok && (cnt_zero[t_head]) && (rc_sealed || rc_dist[15:6] != 10'd0);

// init: nothing of the queue left anywhere
wire        qc_initok = (t_held == {HELD_W{1'b0}}) && (t_nrd == {NRD_W{1'b0}}) && (t_halt || fr_q == t_rd);

// B -> W registers
reg  [ST_W-1:0]      w_st = {ST_W{1'b0}};
reg                  w_ar = 1'b0;              // SCHED: issue the read
reg                  w_free = 1'b0;            // RECL: the head chunk is freed
reg                  w_qc_take = 1'b0;
reg  [CHUNK_W-1:0]   w_chunk = {CHUNK_W{1'b0}};
reg  [63:0]          w_araddr = 64'd0;
reg  [7:0]           w_arlen = 8'd0;
reg  [BT_W-1:0]      w_beats = {BT_W{1'b0}};
reg  [CW-1:0]        w_lo = {CW{1'b0}};
reg  [CW:0]          w_hil = {(CW+1){1'b0}};
reg  [WW-1:0]        w_word0 = {WW{1'b0}};
reg  [15:0]          w_unit0 = 16'd0;
reg  [15:0]          w_end = 16'd0;
reg  [15:0]          w_prod = 16'd0;
reg                  w_last_free = 1'b0;       // RECL: the chunk freed was the last one held

reg  [ST_W-1:0] b_st;
reg             b_act, b_hold, b_ar, b_alloc, b_link, b_free, b_cfg, b_init, b_take, b_refuse, b_done;
always @* begin
    b_st = st_q;
    b_act = 1'b0; b_hold = 1'b0; b_ar = 1'b0; b_alloc = 1'b0; b_link = 1'b0; b_free = 1'b0;
    b_cfg = 1'b0; b_init = 1'b0; b_take = 1'b0; b_refuse = 1'b0; b_done = 1'b0;
    case (e_cmd)
        C_HALT: begin
            if (!t_halt) begin
                b_st[S_HALT] = 1'b1;
                b_st[S_CONS +: 16] = e_arg;
            end
        end
        C_DONE: begin
            b_done = 1'b1;
            b_st[S_NRD +: NRD_W] = t_nrd - 1'b1;
            if (!t_halt) b_st[S_CONS +: 16] = e_arg;
        end
        C_DB: begin
            b_st[S_PROD +: 16] = db_prod;
            if (t_en && !t_halt && !t_inf && db_prod != t_rd) begin
                b_st[S_INF] = 1'b1;
                b_act = 1'b1;
            end
        end
        C_QCFG: begin
            if (e_flags[2] && !qc_initok) begin
                b_refuse = 1'b1;
            end else begin
                b_take = 1'b1;
                b_cfg = 1'b1;
                b_st[S_EN] = e_en;
                if (e_flags[2]) begin
                    b_init = 1'b1;
                    b_st[S_PROD +: 16] = e_arg;
                    b_st[S_RD +: 16] = e_arg;
                    b_st[S_CONS +: 16] = e_arg;
                    b_st[S_HALT] = 1'b0;
                    b_st[S_CUOK] = 1'b0;
                    b_st[S_HDOK] = 1'b0;
                end
                if (e_en && !t_inf && !e_flags[2] && !t_halt && t_prod != t_rd) begin
                    b_st[S_INF] = 1'b1;
                    b_act = 1'b1;
                end
            end
        end
        C_RECL: begin
            // the queue is held by this turn (INH stays set): back to the hold FIFO unless it holds
            // nothing after it
            if (rc_free) begin
                b_free = 1'b1;
                b_st[S_HELD +: HELD_W] = t_held - 1'b1;
                b_st[S_HBLK +: 10] = t_hblk + 10'd1;
                if (t_held == {{(HELD_W-1){1'b0}}, 1'b1}) begin
                    b_st[S_HDOK] = 1'b0;
                    b_st[S_CUOK] = 1'b0;
                    b_st[S_INH] = 1'b0;
                end else begin
                    b_hold = 1'b1;
                end
            end else if (t_held == {HELD_W{1'b0}}) begin
                b_st[S_INH] = 1'b0;
            end else begin
                b_hold = 1'b1;
            end
        end
        C_SCHED: begin
            if (!sc_ok) begin
                b_st[S_INF] = 1'b0;
            end else if (!sc_room) begin
                b_act = 1'b1;                      // share or free list: try again at its next turn
            end else begin
                b_ar = 1'b1;
                b_st[S_RD +: 16] = t_rd + {{(15-MRL2){1'b0}}, sc_n};
                b_st[S_NRD +: NRD_W] = t_nrd + 1'b1;
                if (t_rd + {{(15-MRL2){1'b0}}, sc_n} != t_prod) b_act = 1'b1;
                else b_st[S_INF] = 1'b0;
                if (sc_new) begin
                    b_alloc = 1'b1;
                    b_link = t_cuok;
                    b_st[S_CUR +: CHUNK_W] = pb_alloc_chunk;
                    b_st[S_CUOK] = 1'b1;
                    b_st[S_HELD +: HELD_W] = t_held + 1'b1;
                    if (!t_hdok) begin
                        b_st[S_HEAD +: CHUNK_W] = pb_alloc_chunk;
                        b_st[S_HDOK] = 1'b1;
                        b_st[S_HBLK +: 10] = t_rd[15:6];
                    end
                    if (!t_inh) begin
                        b_st[S_INH] = 1'b1;
                        b_hold = 1'b1;
                    end
                end
            end
        end
        default: begin
        end
    endcase
end

always @* begin
    nx_ra = t_head;
end

// ------------------------------------------------------------------------------------------------
// engine: sequencing, W

always @(posedge clk) begin
    st_we <= 1'b0;
    cf_we <= 1'b0;
    fr_eng_we <= 1'b0;
    act_push <= 1'b0;
    hold_push <= 1'b0;
    pb_alloc_en <= 1'b0;
    pb_free_en <= 1'b0;
    nx_we <= 1'b0;
    m_st_valid <= 1'b0;
    case (ph)
        2'd0: if (pick) begin
            ph <= 2'd1;
            e_cmd <= e_cmd_n;
            e_q <= p_q;
            case (e_cmd_n)
                C_HALT: e_arg <= hq_unit;
                C_DONE: e_arg <= dn_data[15:0];
                C_DB:   e_arg <= s_db_prod;
                C_QCFG: e_arg <= s_qcfg_ptr;
                default: e_arg <= 16'd0;
            endcase
            e_base <= s_qcfg_base;
            e_size <= s_qcfg_size_log2;
            e_flags <= {s_qcfg_init, s_qcfg_horizon_policy, s_qcfg_late_policy};
            e_en <= s_qcfg_enable;
            if (e_cmd_n == C_RECL) rs_turn <= 1'b0;
            if (e_cmd_n == C_SCHED) rs_turn <= 1'b1;
            // a refused init is tried again after anything that may free its way (a reclaim turn,
            // a read done, a halt)
            if (e_cmd_n == C_RECL || e_cmd_n == C_DONE || e_cmd_n == C_HALT) qc_retry <= 1'b0;
        end
        2'd1: begin
            ph <= 2'd2;
            w_st <= b_st;
            w_ar <= b_ar;
            w_free <= b_free;
            w_qc_take <= b_take;
            w_chunk <= sc_new ? pb_alloc_chunk : t_cur;
            w_araddr <= sc_addr;
            w_arlen <= {{(8-BT_W){1'b0}}, sc_beats} - 8'd1;
            w_beats <= sc_beats;
            w_lo <= sc_lo;
            w_hil <= sc_hil;
            w_word0 <= t_rd[5:6-WW];
            w_unit0 <= t_rd >> UL2 << UL2;
            w_end <= t_rd + {{(15-MRL2){1'b0}}, sc_n};
            w_prod <= t_prod;
            w_last_free <= (t_held == {{(HELD_W-1){1'b0}}, 1'b1});
            // status
            m_st_prod <= t_prod;
            m_st_cons <= t_cons;
            m_st_enabled <= t_en;
            m_st_halted <= t_halt;
            m_st_chunks <= {{(16-HELD_W){1'b0}}, t_held};
            // the reclaim's chunk
            pb_free_chunk <= t_head;
            // SCHED's fresh chunk, and its link
            pb_alloc_link <= b_link;
            pb_alloc_prev <= t_cur;
            nx_wa <= t_cur;
            nx_wd <= pb_alloc_chunk;
        end
        default: begin
            ph <= 2'd0;
        end
    endcase
    // W (ph == 2): the writes, the FIFO pushes and the buffer's allocation / free, one cycle later
    // for those that are registers (st_we etc. are the write enables of this cycle's W)
    if (ph == 2'd1) begin
        st_we <= !b_refuse && e_cmd != C_ST;
        cf_we <= b_cfg;
        fr_eng_we <= b_init;
        act_push <= b_act;
        hold_push <= b_hold;
        pb_alloc_en <= b_alloc;
        pb_free_en <= b_free;
        nx_we <= b_alloc && b_link;
        m_st_valid <= (e_cmd == C_ST);
    end
    if (ph == 2'd1 && b_refuse) qc_retry <= 1'b1;
    if (ph == 2'd1 && b_take) qc_retry <= 1'b0;
    if (rst) begin
        ph <= 2'd0;
        e_cmd <= C_NONE;
        qc_retry <= 1'b0;
        rs_turn <= 1'b0;
        st_we <= 1'b0; cf_we <= 1'b0; fr_eng_we <= 1'b0; act_push <= 1'b0; hold_push <= 1'b0;
        pb_alloc_en <= 1'b0; pb_free_en <= 1'b0; nx_we <= 1'b0; m_st_valid <= 1'b0;
    end
end

always @* begin
    st_wd = w_st;
    // RECL: the new head is the freed chunk's successor (the next-chunk RAM was read in B)
    if (w_free && !w_last_free) st_wd[S_HEAD +: CHUNK_W] = nx_q;
end

assign s_qcfg_ready = (ph == 2'd2) && w_qc_take;

// ------------------------------------------------------------------------------------------------
// read issue: AR FIFO and read context FIFO (pushed in W)

localparam CTX_W = QUEUE_W + CHUNK_W + WW + 16 + CW + (CW + 1) + BT_W + 16 + 16;
wire             ar_valid;
wire [71:0]      ar_data;
wire             ctx_valid;
wire [CTX_W-1:0] ctx_data;
wire             ctx_pop;
wire             ar_push = (ph == 2'd2) && w_ar;
/* verilator lint_off PINCONNECTEMPTY */
tsnic_fifo #(.WIDTH(72), .ADDR_W(MAX_OUT_LOG2)) ar_fifo (
    .clk(clk), .rst(rst), .s_valid(ar_push), .s_ready(), .s_data({w_arlen, w_araddr}),
    .m_valid(ar_valid), .m_ready(m_axi_arready), .m_data(ar_data), .count());
tsnic_fifo #(.WIDTH(CTX_W), .ADDR_W(MAX_OUT_LOG2)) ctx_fifo (
    .clk(clk), .rst(rst), .s_valid(ar_push),  .s_ready(),
    .s_data({e_q, w_chunk, w_word0, w_unit0, w_lo, w_hil, w_beats, w_end, w_prod}),
    .m_valid(ctx_valid), .m_ready(ctx_pop), .m_data(ctx_data), .count());
/* verilator lint_on PINCONNECTEMPTY */

localparam [2:0] BL2_3 = BL2_32[2:0];
assign m_axi_arid    = AXI_ID;
assign m_axi_araddr  = ar_data[AXI_ADDR_W-1:0];
assign m_axi_arlen   = ar_data[71:64];
assign m_axi_arsize  = BL2_3;
assign m_axi_arburst = 2'b01;
assign m_axi_arlock  = 1'b0;
assign m_axi_arcache = 4'b0011;
assign m_axi_arprot  = 3'b010;
assign m_axi_arvalid = ar_valid;

wire [15:0]        x_prod  = ctx_data[15:0];
wire [15:0]        x_end   = ctx_data[31:16];
wire [BT_W-1:0]    x_beats = ctx_data[32 +: BT_W];
wire [CW:0]        x_hil   = ctx_data[32+BT_W +: CW+1];
wire [CW-1:0]      x_lo    = ctx_data[33+BT_W+CW +: CW];
wire [15:0]        x_unit0 = ctx_data[33+BT_W+2*CW +: 16];
wire [WW-1:0]      x_word0 = ctx_data[49+BT_W+2*CW +: WW];
wire [CHUNK_W-1:0] x_chunk = ctx_data[49+BT_W+2*CW+WW +: CHUNK_W];
wire [QUEUE_W-1:0] x_q     = ctx_data[49+BT_W+2*CW+WW+CHUNK_W +: QUEUE_W];

// ------------------------------------------------------------------------------------------------
// R beats: into the chunk, and to the beat FIFO with the parser's fields

reg  [BT_W-1:0]    rk = {BT_W{1'b0}};          // beat index in the read
wire               r_take = m_axi_rvalid && m_axi_rready;
wire               r_last = (rk == x_beats - 1'b1);
assign m_axi_rready = !mk_pend;
assign ctx_pop = r_take && r_last;
assign dn_push = ctx_pop;
assign dn_push_data = {x_q, x_end};
assign pb_wr_en = r_take;
assign pb_wr_chunk = x_chunk;
wire [WW-1:0]      rk_w;                       // the beat index as a word index
generate
    if (BT_W > WW) begin : g_rk_cut
        assign rk_w = rk[WW-1:0];
    end else if (BT_W == WW) begin : g_rk_same
        assign rk_w = rk;
    end else begin : g_rk_ext
        assign rk_w = {{(WW-BT_W){1'b0}}, rk};
    end
endgenerate
assign pb_wr_word = x_word0 + rk_w;

always @(posedge clk) begin
    if (r_take) rk <= r_last ? {BT_W{1'b0}} : rk + 1'b1;
    if (rst) rk <= {BT_W{1'b0}};
end

// beat FIFO entry: {marker, err, queue, unit, lo, hi, prod, buffer address, data}
localparam BF_W = 2 + QUEUE_W + 16 + CW + (CW + 1) + 16 + BUF_AW + DATA_W;
reg  [QUEUE_W-1:0] mk_q = {QUEUE_W{1'b0}};
wire [15:0]        r_unit = x_unit0 + ({{(16-BT_W){1'b0}}, rk} << UL2);
wire [CW-1:0]      r_lo   = (rk == {BT_W{1'b0}}) ? x_lo : {CW{1'b0}};
wire [CW:0]        r_hi   = r_last ? x_hil : UPB_C;
wire [BUF_AW-1:0]  r_buf  = {x_chunk, pb_wr_word, {BL2{1'b0}}};
wire               bf_push = r_take || mk_pend;
wire [BF_W-1:0]    bf_in  = mk_pend ? {2'b10, mk_q, {(BF_W-2-QUEUE_W){1'b0}}}
                                    : {1'b0, m_axi_rresp[1], x_q, r_unit, r_lo, r_hi, x_prod, r_buf, m_axi_rdata};
wire               bf_valid;
wire [BF_W-1:0]    bf_out;
wire               bf_pop;
/* verilator lint_off PINCONNECTEMPTY */
tsnic_fifo #(.WIDTH(BF_W), .ADDR_W(BF_LOG2)) beat_fifo (
    .clk(clk), .rst(rst), .s_valid(bf_push), .s_ready(), .s_data(bf_in),
    .m_valid(bf_valid), .m_ready(bf_pop), .m_data(bf_out), .count());
/* verilator lint_on PINCONNECTEMPTY */

wire               f_mk   = bf_out[BF_W-1];
wire               f_err  = bf_out[BF_W-2];
wire [QUEUE_W-1:0] f_q    = bf_out[BF_W-3 -: QUEUE_W];
wire [15:0]        f_unit = bf_out[BF_W-3-QUEUE_W -: 16];
wire [CW-1:0]      f_lo   = bf_out[BF_W-19-QUEUE_W -: CW];
wire [CW:0]        f_hi   = bf_out[BF_W-19-QUEUE_W-CW -: CW+1];
wire [15:0]        f_prod = bf_out[BUF_AW+DATA_W +: 16];
wire [BUF_AW-1:0]  f_buf  = bf_out[DATA_W +: BUF_AW];
wire [DATA_W-1:0]  f_data = bf_out[DATA_W-1:0];

// init's clear marker: set in W of an init, into the beat FIFO in the next cycle (rready low then)
always @(posedge clk) begin
    if (mk_pend) mk_pend <= 1'b0;
    if (ph == 2'd1 && b_init) begin
        mk_pend <= 1'b1;
        mk_q <= e_q;
    end
    if (rst) mk_pend <= 1'b0;
end

// credits: beat FIFO room reserved by issued reads (and markers), back as the parser takes entries
always @(posedge clk) begin
    credits <= credits - (ar_push ? {{(BF_LOG2+1-BT_W){1'b0}}, w_beats} : {(BF_LOG2+1){1'b0}})
                       - {{BF_LOG2{1'b0}}, (ph == 2'd1 && b_init)}
                       + {{BF_LOG2{1'b0}}, bf_pop};
    nout <= nout + {{MAX_OUT_LOG2{1'b0}}, (ph == 2'd1 && b_ar)}
                 - {{MAX_OUT_LOG2{1'b0}}, (ph == 2'd1 && b_done)};
    if (rst) begin
        credits <= BFN_C;
        nout <= {(MAX_OUT_LOG2+1){1'b0}};
    end
end

// ------------------------------------------------------------------------------------------------
// the parser

wire               ps_ready, pc_ready;
wire               pr_valid;
wire               pr_ready;
wire [QUEUE_W-1:0] pr_queue;
wire [15:0]        pr_unit;
wire [BUF_AW-1:0]  pr_addr;
wire [15:0]        pr_len;
wire [7:0]         pr_kind;
wire [63:0]        pr_launch;
wire               pr_asap;
wire [7:0]         pr_reason;
wire               pr_halt;
wire               pr_dma;

assign bf_pop = bf_valid && (f_mk ? pc_ready : ps_ready);

tsnic_pk_parse #(.DATA_W(DATA_W), .QUEUE_W(QUEUE_W), .BUF_AW(BUF_AW), .MAX_FRAME_LEN(MAX_FRAME_LEN))
parse_inst (
    .clk(clk), .rst(rst), .phc_ns(phc_ns), .cfg_ahead_ns(cfg_ahead_ns),
    .s_valid(bf_valid && !f_mk), .s_ready(ps_ready), .s_data(f_data), .s_queue(f_q), .s_unit(f_unit),
    .s_lo(f_lo), .s_hi(f_hi), .s_prod(f_prod), .s_buf_addr(f_buf), .s_err(f_err),
    .s_clr_valid(bf_valid && f_mk), .s_clr_ready(pc_ready), .s_clr_queue(f_q),
    .m_rec_valid(pr_valid), .m_rec_ready(pr_ready), .m_rec_queue(pr_queue), .m_rec_unit(pr_unit),
    .m_rec_addr(pr_addr), .m_rec_len(pr_len), .m_rec_kind(pr_kind), .m_rec_launch_ns(pr_launch),
    .m_rec_asap(pr_asap), .m_rec_reason(pr_reason), .m_rec_halt(pr_halt), .m_rec_dma(pr_dma)
);

// records FIFO: the parser's ready comes from the FIFO's room, never from the table or calendar
localparam RF_W = QUEUE_W + 16 + BUF_AW + 16 + 8 + 64 + 1 + 8 + 1 + 1;
wire            rf_valid;
wire [RF_W-1:0] rf_data;
wire            rf_pop;
/* verilator lint_off PINCONNECTEMPTY */
tsnic_fifo #(.WIDTH(RF_W), .ADDR_W(2)) rec_fifo (
    .clk(clk), .rst(rst), .s_valid(pr_valid), .s_ready(pr_ready),
    .s_data({pr_queue, pr_unit, pr_addr, pr_len, pr_kind, pr_launch, pr_asap, pr_reason, pr_halt, pr_dma}),
    .m_valid(rf_valid), .m_ready(rf_pop), .m_data(rf_data), .count());
/* verilator lint_on PINCONNECTEMPTY */
assign rf_queue = rf_data[RF_W-1 -: QUEUE_W];

// ------------------------------------------------------------------------------------------------
// record stage R1: table + insert, or a completion request; halts; the frontier

reg                r1_valid = 1'b0;
reg [QUEUE_W-1:0]  r1_q = {QUEUE_W{1'b0}};
reg [15:0]         r1_unit = 16'd0;
reg [BUF_AW-1:0]   r1_addr = {BUF_AW{1'b0}};
reg [15:0]         r1_len = 16'd0;
reg [7:0]          r1_kind = 8'd0;
reg [63:0]         r1_launch = 64'd0;
reg                r1_asap = 1'b0;
reg [7:0]          r1_reason = 8'd0;
reg                r1_halt = 1'b0;
reg                r1_dma = 1'b0;

wire r1_frame = (r1_kind == `TSNIC_PK_TYPE_FRAME);
wire r1_ins   = !r1_dma && r1_reason == `TSNIC_REJECT_NONE;   // a valid frame
wire r1_cpl   = !r1_ins && (!r1_dma || r1_frame);              // a completion request
wire r1_hok   = !r1_halt || !hq_v;
wire r1_sk_free;
wire r1_cpl_free = !m_cpl_req_valid || m_cpl_req_ready;
wire r1_go = r1_valid && r1_hok && !fr_eng_we
          && (r1_ins ? (tbl_alloc_valid && r1_sk_free) : (!r1_cpl || r1_cpl_free));
assign r1_load = rf_valid && (!r1_valid || r1_go);
assign rf_pop = r1_load;

always @(posedge clk) begin
    if (r1_load) begin
        {r1_q, r1_unit, r1_addr, r1_len, r1_kind, r1_launch, r1_asap, r1_reason, r1_halt, r1_dma} <= rf_data;
    end
    if (r1_load) r1_valid <= 1'b1;
    else if (r1_go) r1_valid <= 1'b0;
    if (rst) r1_valid <= 1'b0;
end

// the frontier after a record that did not halt: unit + 1 + ceil(len / 8)
wire [12:0] r1_span = r1_len[15:3] + {12'd0, |r1_len[2:0]};
assign fr_rec_we = r1_go && !r1_halt;
assign fr_rec_wa = r1_q;
assign fr_rec_wd = r1_unit + 16'd1 + {3'd0, r1_span};

// halt requests to the engine
always @(posedge clk) begin
    if (pick && e_cmd_n == C_HALT) hq_v <= 1'b0;
    if (r1_go && r1_halt) begin
        hq_v <= 1'b1;
        hq_q <= r1_q;
        hq_unit <= r1_unit;
    end
    if (rst) hq_v <= 1'b0;
end

// per chunk: inserted frames outstanding (up at an insert, down at the free of its handle)
wire [CHUNK_W-1:0] r1_chunk = r1_addr[BUF_AW-1:9];
wire               ins_go = r1_go && r1_ins;

// handle -> chunk, read at a free
wire [CHUNK_W-1:0] hc_q;
reg                fp_v = 1'b0;                // a packed handle's free, its chunk read this cycle
tsnic_ram_sdp #(.WIDTH(CHUNK_W), .ADDR_W(NODE_W)) hc_ram (
    .clk(clk), .wr_en(ins_go), .wr_addr(tbl_alloc_handle), .wr_data(r1_chunk),
    .rd_en(s_free_valid && s_free_packed), .rd_addr(s_free_handle), .rd_data(hc_q));

always @(posedge clk) begin
    fp_v <= s_free_valid && s_free_packed;
    if (rst) fp_v <= 1'b0;
end

genvar gc;
generate
    for (gc = 0; gc < NCH; gc = gc + 1) begin : g_cnt
        localparam [CHUNK_W-1:0] CI = gc;
        // the count (at most 32 frames start in a chunk) and its "zero" flag, both registered
        reg  [5:0] n = 6'd0;
        reg        z = 1'b1;
        wire [5:0] n_nx = n + {5'd0, (ins_go && r1_chunk == CI)} - {5'd0, (fp_v && hc_q == CI)};
        always @(posedge clk) begin
            n <= n_nx;
            z <= (n_nx == 6'd0);
            if (rst) begin
                n <= 6'd0;
                z <= 1'b1;
            end
        end
        assign cnt_zero[gc] = z;
    end
endgenerate

// table write, calendar insert with its skid register (as tsnic_desc_fetch)
reg               sk_valid = 1'b0;
reg [QUEUE_W-1:0] sk_queue = {QUEUE_W{1'b0}};
reg [NODE_W-1:0]  sk_handle = {NODE_W{1'b0}};
reg [63:0]        sk_launch = 64'd0;
reg [1:0]         sk_pol = 2'd0;
assign r1_sk_free = !sk_valid;

localparam PAD_W = 63 - 16 - CHUNK_W;
assign tbl_wr_en         = ins_go;
assign tbl_wr_addr       = {1'b1, {PAD_W{1'b0}}, r1_chunk, 7'd0, r1_addr[8:0]};
assign tbl_wr_len        = r1_len;
assign tbl_wr_cookie     = 32'd0;
assign tbl_wr_launch_ns  = r1_launch;
assign tbl_wr_ring_index = r1_unit;
assign tbl_wr_queue      = r1_q;

// ASAP: late policy SEND, whatever the queue's (as tsnic_desc_fetch)
wire [1:0] r1_pol = r1_asap ? {pol_q[1], `TSNIC_LATE_POLICY_SEND} : pol_q;

reg cpl_dma = 1'b0;
assign m_cpl_req_status       = cpl_dma ? `TSNIC_STATUS_DMA_ERROR : `TSNIC_STATUS_REJECTED;
assign m_cpl_req_cookie       = 32'd0;
assign m_cpl_req_capped       = 1'b0;
assign m_cpl_req_handle       = {NODE_W{1'b0}};
assign m_cpl_req_handle_valid = 1'b0;

always @(posedge clk) begin
    evt_posted <= r1_go && (r1_ins || r1_cpl);
    if (m_cpl_req_valid && m_cpl_req_ready) m_cpl_req_valid <= 1'b0;
    if (m_ins_valid && m_ins_ready) begin
        m_ins_valid          <= sk_valid;
        m_ins_queue          <= sk_queue;
        m_ins_handle         <= sk_handle;
        m_ins_launch_ns      <= sk_launch;
        m_ins_late_policy    <= sk_pol[0];
        m_ins_horizon_policy <= sk_pol[1];
        sk_valid             <= 1'b0;
    end
    if (ins_go) begin
        if (!m_ins_valid || m_ins_ready) begin
            m_ins_valid          <= 1'b1;
            m_ins_queue          <= r1_q;
            m_ins_handle         <= tbl_alloc_handle;
            m_ins_launch_ns      <= r1_launch;
            m_ins_late_policy    <= r1_pol[0];
            m_ins_horizon_policy <= r1_pol[1];
        end else begin
            sk_valid  <= 1'b1;
            sk_queue  <= r1_q;
            sk_handle <= tbl_alloc_handle;
            sk_launch <= r1_launch;
            sk_pol    <= r1_pol;
        end
    end
    if (r1_go && r1_cpl) begin
        m_cpl_req_valid      <= 1'b1;
        m_cpl_req_queue      <= r1_q;
        m_cpl_req_ring_index <= r1_unit;
        m_cpl_req_launch_ns  <= r1_dma ? 64'd0 : r1_launch;
        m_cpl_req_depart_ns  <= phc_ns;
        m_cpl_req_len        <= r1_dma ? 16'd0 : r1_len;
        m_cpl_req_reason     <= r1_dma ? `TSNIC_REJECT_NONE : r1_reason;
        cpl_dma              <= r1_dma;
    end
    if (rst) begin
        evt_posted <= 1'b0;
        m_cpl_req_valid <= 1'b0;
        m_ins_valid <= 1'b0;
        sk_valid <= 1'b0;
    end
end

initial begin
    m_st_valid = 1'b0; m_st_prod = 16'd0; m_st_cons = 16'd0; m_st_enabled = 1'b0; m_st_halted = 1'b0;
    m_st_chunks = 16'd0;
    m_ins_valid = 1'b0; m_ins_queue = {QUEUE_W{1'b0}}; m_ins_handle = {NODE_W{1'b0}};
    m_ins_launch_ns = 64'd0; m_ins_late_policy = 1'b0; m_ins_horizon_policy = 1'b0;
    m_cpl_req_valid = 1'b0; m_cpl_req_queue = {QUEUE_W{1'b0}}; m_cpl_req_ring_index = 16'd0;
    m_cpl_req_launch_ns = 64'd0; m_cpl_req_depart_ns = 64'd0; m_cpl_req_len = 16'd0;
    m_cpl_req_reason = 8'd0; evt_posted = 1'b0;
    pb_alloc_en = 1'b0; pb_alloc_link = 1'b0; pb_alloc_prev = {CHUNK_W{1'b0}};
    pb_free_en = 1'b0; pb_free_chunk = {CHUNK_W{1'b0}};
    st_we = 1'b0; cf_we = 1'b0; fr_eng_we = 1'b0; act_push = 1'b0; hold_push = 1'b0;
    nx_we = 1'b0; nx_wa = {CHUNK_W{1'b0}}; nx_wd = {CHUNK_W{1'b0}};
end

// unused
/* verilator lint_off UNUSEDSIGNAL */
wire unused_ok = &{1'b0, m_axi_rid, m_axi_rresp[0], m_axi_rlast, ctx_valid, sc_tot, share_b[8:0],
                   e_base[11:0], rc_dist[5:0]};
/* verilator lint_on UNUSEDSIGNAL */

endmodule

`resetall
