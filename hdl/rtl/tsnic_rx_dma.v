// tsnic_rx_dma: RX queues and the RX DMA engine (docs/ARCHITECTURE.md "Receive path").
//
// - Register block RXQ (one per RX queue, NUM_RXQ of them, state in flip-flops: the RX queue count
//   is small): descriptor and completion ring bases, size, enable, PROD doorbell, CONS, STATUS and
//   four 32-bit counters.
// - Descriptor prefetch: each queue keeps up to 2^DC_LOG2 of its posted descriptors on the card, in
//   one RAM (tsnic_ram_sdp, {queue, ring index mod 2^DC_LOG2}) as {bad, length, address[63:6]}: LUT RAM
//   at 4 queues (128 x 75 bits), block RAM from about 16 queues.
//   A scan visits one queue per cycle; a queue with posted descriptors not yet read asks for a read
//   when at least half its cache is free or all it has posted fits: one AXI4 read burst of up to
//   2^(DC_LOG2-1) descriptors, not across the ring's wrap or a 4 KiB boundary, up to 2^RD_OUT_LOG2
//   bursts outstanding (one read ID: data comes back in issue order; rready is never held by the
//   engine for long: one descriptor a cycle goes into the RAM). Indices per queue: PROD (posted),
//   REQ (read requested), HAVE (in the cache), TAKE (given to a frame), CONS (completion written).
// - Engine, in frame-queue order (tsnic_rx_buf): a frame for a disabled queue or a queue without a
//   posted buffer (PROD == TAKE) is dropped and counted in that queue's CNT_DROP_NOBUF (no head-of-line
//   blocking of the other queues). A frame whose descriptor is posted but still being read waits.
//   Otherwise it takes the cached descriptor at TAKE (the RAM read happens while the previous frame is
//   being written), its data is written into the buffer (AXI4 write bursts of full bus words, split at
//   4 KiB boundaries and at 256 beats; the last beat's strobes cover the frame's bytes only) and its
//   32-byte completion record joins the open batch. A batch holds the records of consecutive frames
//   of one queue (consecutive ring indices), up to 2^CB_LOG2, not across the ring's wrap or a 4 KiB
//   boundary of the completion ring; it is written when the next frame does not fit it or no frame is
//   ready: the engine waits for the B responses of every data write before it (so a record never
//   becomes visible before its frame's bytes), then writes all its records in one burst (phase bit in
//   each record's last dword). When that burst's B comes back CONS advances by the batch, and evt_cpl
//   pulses once per record (one a cycle: the interrupt moderator counts completions). Counters count
//   when a frame's record is made; the frame's words go back to the RX buffer when its data is sent.
// - A descriptor with length 0, an address not 64-byte aligned or a read error (RRESP) completes
//   BAD_DESC with nothing written. A buffer shorter than the frame is filled and completes TRUNCATED
//   (unless the frame is already BAD_FCS or TOO_LONG, which take precedence).
// - Queue reset: enabling a disabled queue sets PROD/REQ/HAVE/TAKE/CONS to 0; the cached descriptors
//   are forgotten, and the descriptors of reads still in flight for the queue (counted per queue) are
//   thrown away when they come back, so a new ring never sees an old one's descriptor. The enabling
//   CTRL write waits (reg_wr_wait) while a frame of that queue is still in the engine. A PROD write
//   is clamped to at most the ring size past TAKE (not CONS: a driver may repost a slot as soon as it
//   sees its completion, before that completion's B has come back) and never below REQ. STATUS.BUSY: frames taken and
//   not yet completed, or descriptor reads out (the rings may be freed once it reads 0).
// One read ID and one write ID: responses come back in order.
`resetall
`timescale 1ns / 1ps
`default_nettype none
`include "tsnic_contract.vh"

module tsnic_rx_dma #(
    parameter ADDR_W        = 20,
    parameter NUM_RXQ       = 4,
    parameter RXQ_W         = (NUM_RXQ > 1) ? $clog2(NUM_RXQ) : 1,
    parameter ENT_W         = 4,
    parameter PTR_W         = 12,
    parameter DATA_W        = 64,
    parameter AXI_ID_W      = 6,
    parameter [AXI_ID_W-1:0] AXI_RID = {AXI_ID_W{1'b0}},
    parameter [AXI_ID_W-1:0] AXI_WID = {AXI_ID_W{1'b0}},
    parameter RING_LOG2_MAX = 15,
    parameter DC_LOG2       = 5,    // log2 of the descriptors cached per queue (2..8); reads of half that
    parameter RD_OUT_LOG2   = 2,    // log2 of the descriptor read bursts outstanding
    parameter CB_LOG2       = 3     // log2 of the most completion records written in one burst (1..5)
) (
    input  wire                clk,
    input  wire                rst,

    // register interface
    input  wire [ADDR_W-1:0]   reg_wr_addr,
    input  wire [31:0]         reg_wr_data,
    input  wire [3:0]          reg_wr_strb,
    input  wire                reg_wr_en,
    output wire                reg_wr_wait,
    output wire                reg_wr_ack,
    input  wire [ADDR_W-1:0]   reg_rd_addr,
    input  wire                reg_rd_en,
    output wire [31:0]         reg_rd_data,
    output wire                reg_rd_wait,
    output wire                reg_rd_ack,

    // frame queue
    input  wire                s_info_valid,
    output wire                s_info_ready,
    input  wire [PTR_W-1:0]    s_info_start,
    input  wire [PTR_W-1:0]    s_info_end,
    input  wire [15:0]         s_info_len,
    input  wire [15:0]         s_info_frame_len,
    input  wire [7:0]          s_info_status,
    input  wire [63:0]         s_info_ts,
    input  wire                s_info_hit,
    input  wire [ENT_W-1:0]    s_info_entry,
    input  wire [RXQ_W-1:0]    s_info_queue,

    // frame data
    output wire                buf_rd_en,
    output wire [PTR_W-2:0]    buf_rd_addr,
    input  wire [DATA_W-1:0]   buf_rd_data,
    output reg                 buf_rel_valid = 1'b0,
    output reg  [PTR_W-1:0]    buf_rel_ptr = {PTR_W{1'b0}},

    // AXI4 read master (descriptors)
    output wire [AXI_ID_W-1:0] m_axi_arid,
    output wire [63:0]         m_axi_araddr,
    output wire [7:0]          m_axi_arlen,
    output wire [2:0]          m_axi_arsize,
    output wire [1:0]          m_axi_arburst,
    output wire                m_axi_arlock,
    output wire [3:0]          m_axi_arcache,
    output wire [2:0]          m_axi_arprot,
    output wire                m_axi_arvalid,
    input  wire                m_axi_arready,
    input  wire [AXI_ID_W-1:0] m_axi_rid,
    input  wire [DATA_W-1:0]   m_axi_rdata,
    input  wire [1:0]          m_axi_rresp,
    input  wire                m_axi_rlast,
    input  wire                m_axi_rvalid,
    output wire                m_axi_rready,

    // AXI4 write master (frame data, completions)
    output wire [AXI_ID_W-1:0] m_axi_awid,
    output wire [63:0]         m_axi_awaddr,
    output wire [7:0]          m_axi_awlen,
    output wire [2:0]          m_axi_awsize,
    output wire [1:0]          m_axi_awburst,
    output wire                m_axi_awlock,
    output wire [3:0]          m_axi_awcache,
    output wire [2:0]          m_axi_awprot,
    output wire                m_axi_awvalid,
    input  wire                m_axi_awready,
    output wire [DATA_W-1:0]   m_axi_wdata,
    output wire [DATA_W/8-1:0] m_axi_wstrb,
    output wire                m_axi_wlast,
    output wire                m_axi_wvalid,
    input  wire                m_axi_wready,
    input  wire [AXI_ID_W-1:0] m_axi_bid,
    input  wire [1:0]          m_axi_bresp,
    input  wire                m_axi_bvalid,
    output wire                m_axi_bready,

    output reg                 evt_cpl = 1'b0,   // one RX completion visible to the host

    output wire                busy
);

localparam BYTES   = DATA_W / 8;
localparam BLOG2   = $clog2(BYTES);
localparam [31:0] BYTES_32 = BYTES;
localparam [16:0] BYTES17 = BYTES_32[16:0];
localparam DC        = 1 << DC_LOG2;                  // descriptors cached per queue
localparam HALF      = DC / 2;                        // most descriptors in one read
localparam [16:0] DC17   = DC;
localparam [16:0] HALF17 = HALF;
localparam CB        = 1 << CB_LOG2;                  // most records in one completion burst
localparam CBN_W     = CB_LOG2 + 1;                   // a record count 0..CB
localparam RD_OUT    = 1 << RD_OUT_LOG2;
localparam LANES     = (DATA_W > 128) ? DATA_W / 128 : 1;           // descriptors per read beat
localparam LANES_LOG2 = (LANES > 1) ? $clog2(LANES) : 1;
localparam DBEATS    = (DATA_W >= 128) ? 1 : 128 / DATA_W;          // read beats per descriptor
localparam RPB       = (DATA_W > 256) ? DATA_W / 256 : 1;           // records per write beat
localparam RPB_LOG2  = (RPB > 1) ? $clog2(RPB) : 1;
localparam BPR       = (DATA_W >= 256) ? 1 : 256 / DATA_W;          // write beats per record
localparam BPR_LOG2  = (BPR > 1) ? $clog2(BPR) : 1;
localparam CE_W      = 1 + 16 + 58;                                 // cache entry {bad, len, addr[63:6]}
localparam CA_W      = RXQ_W + DC_LOG2;                             // cache address {queue, slot}
localparam BOUT_W    = 6;                                           // data write bursts awaiting B
localparam [31:0] CB_M1_32     = CB - 1;
localparam [31:0] LANE_LAST_32 = LANES - 1;
localparam [31:0] LAST_Q_32    = NUM_RXQ - 1;
localparam [CBN_W-1:0]      CB_M1     = CB_M1_32[CBN_W-1:0];
localparam [LANES_LOG2-1:0] LANE_LAST = LANE_LAST_32[LANES_LOG2-1:0];
localparam [RXQ_W-1:0]      LAST_Q    = LAST_Q_32[RXQ_W-1:0];
localparam [RD_OUT_LOG2:0]  RD_ONE    = 1;
localparam [BOUT_W-1:0]     BOUT_ONE  = 1;
localparam [31:0] LANES_M1_32 = LANES - 1;
localparam [31:0] RPB_M1_32   = RPB - 1;
localparam [31:0] DB_SH_32    = (DBEATS > 1) ? 1 : 0;
localparam [31:0] BPR_SH_32   = (BPR > 1) ? BPR_LOG2 : 0;

generate
    if (DC_LOG2 < 2 || DC_LOG2 > 8) begin : g_bad_dc
        tsnic_param_error_DC_LOG2_must_be_2_to_8 param_error_inst ();
    end
    if (CB_LOG2 < 1 || CB_LOG2 > 5) begin : g_bad_cb
        tsnic_param_error_CB_LOG2_must_be_1_to_5 param_error_inst ();
    end
    if (RD_OUT_LOG2 < 0 || RD_OUT_LOG2 > 4) begin : g_bad_rd
        tsnic_param_error_RD_OUT_LOG2_must_be_0_to_4 param_error_inst ();
    end
    if (DATA_W < 64 || DATA_W > 1024) begin : g_bad_dw
        tsnic_param_error_DATA_W_must_be_64_to_1024 param_error_inst ();
    end
endgenerate

// ---------------------------------------------------------------------------------------------
// per-queue state
reg [63:0] dbase [0:NUM_RXQ-1];
reg [63:0] cbase [0:NUM_RXQ-1];
reg [3:0]  slog2 [0:NUM_RXQ-1];
reg        qen   [0:NUM_RXQ-1];
reg [15:0] prod  [0:NUM_RXQ-1];
reg [15:0] dreq  [0:NUM_RXQ-1];   // next ring index to request
reg [15:0] dhave [0:NUM_RXQ-1];   // next ring index to arrive in the cache
reg [15:0] take  [0:NUM_RXQ-1];   // next ring index to give to a frame
reg [15:0] cons  [0:NUM_RXQ-1];   // next ring index whose completion is not yet written (CONS)
reg [RD_OUT_LOG2:0] rdout [0:NUM_RXQ-1];   // descriptor reads in flight
reg [RD_OUT_LOG2:0] stale [0:NUM_RXQ-1];   // of those, issued before the queue was last reset
reg [31:0] c_frames [0:NUM_RXQ-1];
reg [31:0] c_bytes  [0:NUM_RXQ-1];
reg [31:0] c_nobuf  [0:NUM_RXQ-1];
reg [31:0] c_err    [0:NUM_RXQ-1];

integer i;
initial begin
    for (i = 0; i < NUM_RXQ; i = i + 1) begin
        dbase[i] = 64'd0; cbase[i] = 64'd0; slog2[i] = 4'd0; qen[i] = 1'b0; prod[i] = 16'd0;
        dreq[i] = 16'd0; dhave[i] = 16'd0; take[i] = 16'd0; cons[i] = 16'd0;
        rdout[i] = {(RD_OUT_LOG2+1){1'b0}}; stale[i] = {(RD_OUT_LOG2+1){1'b0}};
        c_frames[i] = 32'd0; c_bytes[i] = 32'd0; c_nobuf[i] = 32'd0; c_err[i] = 32'd0;
    end
end

function [3:0] eff_log2(input [3:0] l);
    eff_log2 = ({28'd0, l} > RING_LOG2_MAX) ? RING_LOG2_MAX[3:0] : l;
endfunction

// ---------------------------------------------------------------------------------------------
// register decode
wire [31:0] rd_a = {{(32-ADDR_W){1'b0}}, reg_rd_addr[ADDR_W-1:2], 2'b00};
wire [31:0] wr_a = {{(32-ADDR_W){1'b0}}, reg_wr_addr[ADDR_W-1:2], 2'b00};
wire [31:0] rd_rel = rd_a - `TSNIC_RXQ_BASE;
wire [31:0] wr_rel = wr_a - `TSNIC_RXQ_BASE;
wire [31:0] rd_qn = rd_rel >> `TSNIC_RXQ_STRIDE_LOG2;
wire [31:0] wr_qn = wr_rel >> `TSNIC_RXQ_STRIDE_LOG2;
wire [31:0] rd_off = rd_rel & (`TSNIC_RXQ_STRIDE - 1);
wire [31:0] wr_off = wr_rel & (`TSNIC_RXQ_STRIDE - 1);
wire        rd_hit = (rd_a >= `TSNIC_RXQ_BASE) && (rd_qn < NUM_RXQ) && (rd_off <= `TSNIC_RXQ_CNT_ERRORS);
wire        wr_hit = (wr_a >= `TSNIC_RXQ_BASE) && (wr_qn < NUM_RXQ) && (wr_off <= `TSNIC_RXQ_CNT_ERRORS);
wire [RXQ_W-1:0] rq = rd_qn[RXQ_W-1:0];
wire [RXQ_W-1:0] wq = wr_qn[RXQ_W-1:0];

// verilator lint_off UNUSEDSIGNAL
wire [3:0]  unused_addr = {reg_wr_addr[1:0], reg_rd_addr[1:0]};
wire [63:0] unused_qn = {rd_qn, wr_qn};
wire [2*AXI_ID_W+2:0] unused_ids = {m_axi_rid, m_axi_bid, m_axi_bresp, m_axi_rlast};
wire unused_start_msb = t_start[PTR_W-1];
// verilator lint_on UNUSEDSIGNAL

reg        wr_ack_reg = 1'b0;
reg        rd_ack_reg = 1'b0;
reg [31:0] rd_data_reg = 32'd0;
assign reg_rd_wait = 1'b0;
assign reg_wr_ack = wr_ack_reg;
assign reg_rd_ack = rd_ack_reg;
assign reg_rd_data = rd_data_reg;

function [31:0] apply_strb(input [31:0] old, input [31:0] val, input [3:0] strb);
    integer b;
    begin
        apply_strb = old;
        for (b = 0; b < 4; b = b + 1)
            if (strb[b]) apply_strb[b*8 +: 8] = val[b*8 +: 8];
    end
endfunction
wire [31:0] prod_wv = apply_strb({16'd0, prod[wq]}, reg_wr_data, reg_wr_strb);
// verilator lint_off UNUSEDSIGNAL
wire [15:0] unused_prod_wv = prod_wv[31:16];
// verilator lint_on UNUSEDSIGNAL

// ---------------------------------------------------------------------------------------------
// descriptor cache
wire                ce_wr_en;
wire [CA_W-1:0]     ce_wr_addr;
wire [CE_W-1:0]     ce_wr_data;
wire                ce_rd_en;
wire [CA_W-1:0]     ce_rd_addr;
wire [CE_W-1:0]     ce_rd_data;

tsnic_ram_sdp #(.WIDTH(CE_W), .ADDR_W(CA_W), .BE_W(1), .OUT_REG(0)) cache_inst (
    .clk(clk),
    .wr_en(ce_wr_en), .wr_addr(ce_wr_addr), .wr_data(ce_wr_data),
    .rd_en(ce_rd_en), .rd_addr(ce_rd_addr), .rd_data(ce_rd_data)
);

// ---------------------------------------------------------------------------------------------
// prefetch: which queues want a read (registered state only)
reg [NUM_RXQ-1:0] want;
always @* begin : w_want
    reg [15:0] inuse, pend;
    integer k;
    for (k = 0; k < NUM_RXQ; k = k + 1) begin
        inuse = dreq[k] - take[k];
        pend  = prod[k] - take[k];
        want[k] = qen[k] && (prod[k] != dreq[k]) && (stale[k] == 0) &&
                  (({1'b0, inuse} <= HALF17) || ({1'b0, pend} <= DC17));
    end
end

// read tags: {queue, descriptors - 1, first lane}
reg [RXQ_W-1:0]      tag_q    [0:RD_OUT-1];
reg [8:0]            tag_nm1  [0:RD_OUT-1];   // descriptors in the read, minus 1
reg [LANES_LOG2-1:0] tag_lane [0:RD_OUT-1];
reg [RD_OUT_LOG2:0]  tag_wp = {(RD_OUT_LOG2+1){1'b0}};
reg [RD_OUT_LOG2:0]  tag_rp = {(RD_OUT_LOG2+1){1'b0}};
wire [RD_OUT_LOG2:0] tag_cnt = tag_wp - tag_rp;
wire                 tag_full = tag_cnt[RD_OUT_LOG2];
wire                 tag_any = (tag_wp != tag_rp);
wire [RD_OUT_LOG2-1:0] tag_rpi;
wire [RD_OUT_LOG2-1:0] tag_wpi;
generate
    if (RD_OUT_LOG2 > 0) begin : g_tagp
        assign tag_rpi = tag_rp[RD_OUT_LOG2-1:0];
        assign tag_wpi = tag_wp[RD_OUT_LOG2-1:0];
    end else begin : g_tagp1
        assign tag_rpi = 1'b0;
        assign tag_wpi = 1'b0;
    end
endgenerate

// a read is planned in steps (pf_q's state registered, then the limits, then their minimum, then
// the issue); a CTRL write to pf_q meanwhile (a reset) abandons it
localparam [2:0] PF_SCAN = 3'd0, PF_LOAD = 3'd1, PF_LIM = 3'd2, PF_MIN = 3'd3, PF_ISSUE = 3'd4, PF_AR = 3'd5;
reg [2:0]        pf_st = PF_SCAN;
reg [RXQ_W-1:0]  pf_scan = {RXQ_W{1'b0}};
reg [RXQ_W-1:0]  pf_q = {RXQ_W{1'b0}};
reg              pf_abort = 1'b0;
reg [3:0]        pr_l2 = 4'd0;
reg [15:0]       pr_dreq = 16'd0;
reg [15:0]       pr_prod = 16'd0;
reg [15:0]       pr_take = 16'd0;
reg [63:0]       pr_dbase = 64'd0;
reg [63:0]       pf_daddr = 64'd0;
reg [8:0]        pf_lim_a = 9'd0;      // min(HALF, to the ring's wrap)
reg [8:0]        pf_lim_b = 9'd0;      // min(posted and not requested, room in the cache)
reg [8:0]        pf_lim_c = 9'd0;      // to the next 4 KiB boundary
reg [8:0]        pf_n = 9'd0;          // descriptors in the read
reg [63:0]       ar_addr_reg = 64'd0;
reg [7:0]        ar_len_reg = 8'd0;
reg              arvalid_reg = 1'b0;

// PF_LIM: the ring offset, the descriptor's address and the limits
wire [15:0] pf_mask   = (16'd1 << pr_l2) - 16'd1;
wire [15:0] pf_off    = pr_dreq & pf_mask;
wire [16:0] pf_towrap = {1'b0, pf_mask} + 17'd1 - {1'b0, pf_off};
wire [16:0] pf_avail  = {1'b0, pr_prod - pr_dreq};
wire [16:0] pf_room   = DC17 - {1'b0, pr_dreq - pr_take};
wire [7:0]  pf_d4k    = pr_dbase[11:4] + pf_off[7:0];       // descriptor slot within its 4 KiB page
wire [8:0]  pf_to4k   = 9'd256 - {1'b0, pf_d4k};
// verilator lint_off UNUSEDSIGNAL
wire [16:0] pf_a      = (pf_towrap < HALF17) ? pf_towrap : HALF17;   // <= HALF
wire [16:0] pf_b      = (pf_avail < pf_room) ? pf_avail : pf_room;   // <= the cache's size
// verilator lint_on UNUSEDSIGNAL
// PF_MIN
wire [8:0]  pf_ab     = (pf_lim_a < pf_lim_b) ? pf_lim_a : pf_lim_b;
// PF_ISSUE
wire        pf_ok     = qen[pf_q] && (stale[pf_q] == 0) && (pf_n != 9'd0) && !tag_full && !pf_abort;
wire [LANES_LOG2-1:0] pf_lane0;
wire [63:0] pf_araddr;
wire [7:0]  pf_arlen;
generate
    if (LANES > 1) begin : g_ar_lanes
        // verilator lint_off UNUSEDSIGNAL
        wire [9:0] beats = ({{(10-LANES_LOG2){1'b0}}, pf_daddr[BLOG2-1:4]} + {1'b0, pf_n} + LANES_M1_32[9:0]) >> LANES_LOG2;
        // verilator lint_on UNUSEDSIGNAL
        assign pf_lane0  = pf_daddr[BLOG2-1:4];
        // verilator lint_off UNUSEDSIGNAL
        wire [3:0] unused_daddr = pf_daddr[3:0];   // descriptors are 16-byte aligned
        // verilator lint_on UNUSEDSIGNAL
        assign pf_araddr = {pf_daddr[63:BLOG2], {BLOG2{1'b0}}};
        assign pf_arlen  = beats[7:0] - 8'd1;
    end else begin : g_ar_beats
        // verilator lint_off UNUSEDSIGNAL
        wire [9:0] beats = {1'b0, pf_n} << DB_SH_32;
        // verilator lint_on UNUSEDSIGNAL
        assign pf_lane0  = 1'b0;
        // verilator lint_off UNUSEDSIGNAL
        wire unused_lane = tag_lane[tag_rpi];
        // verilator lint_on UNUSEDSIGNAL
        assign pf_araddr = pf_daddr;
        assign pf_arlen  = beats[7:0] - 8'd1;
    end
endgenerate
wire pf_issue = (pf_st == PF_ISSUE) && pf_ok;

assign m_axi_arid    = AXI_RID;
assign m_axi_araddr  = ar_addr_reg;
assign m_axi_arlen   = ar_len_reg;
assign m_axi_arsize  = BLOG2[2:0];
assign m_axi_arburst = 2'b01;
assign m_axi_arlock  = 1'b0;
assign m_axi_arcache = 4'b0011;
assign m_axi_arprot  = 3'b010;
assign m_axi_arvalid = arvalid_reg;

// ---------------------------------------------------------------------------------------------
// descriptor return: one descriptor a cycle into the cache
wire [RXQ_W-1:0] u_q    = tag_q[tag_rpi];
reg  [8:0]       u_cnt = 9'd0;       // descriptors of the head burst already taken
wire             u_last_desc = (u_cnt == tag_nm1[tag_rpi]);
wire             u_emit;
wire [127:0]     u_desc;
wire             u_err;

generate
    if (LANES > 1) begin : g_unpack_lanes
        reg [DATA_W-1:0]     hb = {DATA_W{1'b0}};
        reg                  hb_v = 1'b0;
        reg                  hb_err = 1'b0;
        reg [LANES_LOG2-1:0] ln = {LANES_LOG2{1'b0}};
        wire [LANES_LOG2-1:0] cur = (u_cnt == 9'd0) ? tag_lane[tag_rpi] : ln;
        wire last_in_beat = (cur == LANE_LAST) || u_last_desc;
        assign m_axi_rready = !hb_v;
        assign u_emit = hb_v;
        assign u_desc = hb[cur*128 +: 128];
        assign u_err  = hb_err;
        always @(posedge clk) begin
            if (m_axi_rvalid && !hb_v) begin
                hb <= m_axi_rdata;
                hb_v <= 1'b1;
                hb_err <= (m_axi_rresp != 2'b00);
            end
            if (hb_v) begin
                ln <= cur + 1'b1;
                if (last_in_beat) hb_v <= 1'b0;
            end
            if (rst) hb_v <= 1'b0;
        end
    end else if (DBEATS == 1) begin : g_unpack_one
        assign m_axi_rready = 1'b1;
        assign u_emit = m_axi_rvalid;
        assign u_desc = m_axi_rdata[127:0];
        assign u_err  = (m_axi_rresp != 2'b00);
    end else begin : g_unpack_two
        // DATA_W = 64: two beats per descriptor
        reg [63:0] lo = 64'd0;
        reg        lo_v = 1'b0;
        reg        lo_err = 1'b0;
        assign m_axi_rready = 1'b1;
        assign u_emit = m_axi_rvalid && lo_v;
        assign u_desc = {m_axi_rdata[63:0], lo};
        assign u_err  = lo_err || (m_axi_rresp != 2'b00);
        always @(posedge clk) begin
            if (m_axi_rvalid) begin
                lo <= m_axi_rdata[63:0];
                lo_v <= !lo_v;
                lo_err <= (m_axi_rresp != 2'b00);
            end
            if (rst) lo_v <= 1'b0;
        end
    end
endgenerate

wire [63:0] u_addr = u_desc[`TSNIC_RXD_ADDR_LSB +: 64];
wire [31:0] u_len  = u_desc[`TSNIC_RXD_LEN_LSB +: 32];
wire        u_bad  = u_err || (u_len == 32'd0) || (u_addr[5:0] != 6'd0);
wire [15:0] u_len16 = (u_len > 32'd65535) ? 16'hffff : u_len[15:0];
wire        u_keep = qen[u_q] && (stale[u_q] == 0);
wire        u_pop  = u_emit && u_last_desc;
// verilator lint_off UNUSEDSIGNAL
wire [31:0] unused_desc = u_desc[127:96];
// verilator lint_on UNUSEDSIGNAL
assign ce_wr_en   = u_emit && u_keep;
assign ce_wr_addr = {u_q, dhave[u_q][DC_LOG2-1:0]};
assign ce_wr_data = {u_bad, u_len16, u_addr[63:6]};

// ---------------------------------------------------------------------------------------------
// take: the frame at the head of the frame queue
reg              t_valid = 1'b0;
reg              t_drop = 1'b0;
reg [RXQ_W-1:0]  t_q = {RXQ_W{1'b0}};
reg [PTR_W-1:0]  t_start = {PTR_W{1'b0}};
reg [PTR_W-1:0]  t_end = {PTR_W{1'b0}};
reg [15:0]       t_len = 16'd0;
reg [15:0]       t_flen = 16'd0;
reg [7:0]        t_stat = 8'd0;
reg [63:0]       t_ts = 64'd0;
reg              t_hit = 1'b0;
reg [ENT_W-1:0]  t_ent = {ENT_W{1'b0}};
reg [15:0]       t_idx = 16'd0;
reg [3:0]        t_l2 = 4'd0;

wire [RXQ_W-1:0] sq = s_info_queue;
wire   s_drop = !qen[sq] || (prod[sq] == take[sq]);
wire   s_wait = !s_drop && (dhave[sq] == take[sq]);
assign s_info_ready = !t_valid && !s_wait;
wire   s_take = s_info_valid && s_info_ready;
assign ce_rd_en   = s_take && !s_drop;
assign ce_rd_addr = {sq, take[sq][DC_LOG2-1:0]};

// ---------------------------------------------------------------------------------------------
// write engine
localparam [2:0] W_IDLE = 3'd0, W_AW = 3'd1, W_DATA = 3'd2, W_REC = 3'd3, W_FLUSH = 3'd4, W_CPL = 3'd5;
reg [2:0]        w_st = W_IDLE;
reg [RXQ_W-1:0]  q_reg = {RXQ_W{1'b0}};
reg [PTR_W-1:0]  end_reg = {PTR_W{1'b0}};
reg [15:0]       flen_reg = 16'd0;
reg [63:0]       ts_reg = 64'd0;
reg              hit_reg = 1'b0;
reg [ENT_W-1:0]  ent_reg = {ENT_W{1'b0}};
reg [15:0]       idx_reg = 16'd0;
reg [3:0]        l2_reg = 4'd0;
reg [7:0]        ostat_reg = 8'd0;
reg [15:0]       wlen_reg = 16'd0;      // bytes written into the buffer
reg [63:0]       cur_addr_reg = 64'd0;
reg [16:0]       left_reg = 17'd0;      // bytes not yet covered by an AW
reg [16:0]       wleft_reg = 17'd0;     // bytes not yet sent on W
reg [PTR_W-2:0]  dptr_reg = {(PTR_W-1){1'b0}};
reg [8:0]        bb_reg = 9'd0;         // beats in this burst
reg [8:0]        fetched_reg = 9'd0;
reg [8:0]        sent_reg = 9'd0;
reg              qv_reg = 1'b0;         // buf_rd_data holds the next W beat
reg [BOUT_W-1:0] bout_reg = {BOUT_W{1'b0}};   // writes awaiting B

reg [63:0]       awaddr_reg = 64'd0;
reg [7:0]        awlen_reg = 8'd0;
reg              awvalid_reg = 1'b0;

// the open batch of completion records
reg [255:0]      rec_mem [0:CB-1];
reg [CBN_W-1:0]  bt_n = {CBN_W{1'b0}};
reg [RXQ_W-1:0]  bt_q = {RXQ_W{1'b0}};
reg [15:0]       bt_next = 16'd0;       // ring index the next record must have
reg              bt_close = 1'b0;       // full, or the next record would wrap or cross 4 KiB
reg [63:0]       bt_addr = 64'd0;       // address of the first record
reg [8:0]        cbeat_reg = 9'd0;
reg [8:0]        cbeats_reg = 9'd0;
reg              cwvalid_reg = 1'b0;
// the batch whose burst awaits its B
reg              ret_v = 1'b0;
reg [RXQ_W-1:0]  ret_q = {RXQ_W{1'b0}};
reg [15:0]       ret_next = 16'd0;
reg [CBN_W-1:0]  ret_n = {CBN_W{1'b0}};
reg [15:0]       evt_pend = 16'd0;

integer rm;
initial begin
    for (rm = 0; rm < CB; rm = rm + 1) rec_mem[rm] = 256'd0;
end

// the descriptor of the frame in T (the cache's read data, held)
wire        d_bad   = ce_rd_data[CE_W-1];
wire [15:0] d_len16 = ce_rd_data[CE_W-2 -: 16];
wire [63:0] d_addr  = {ce_rd_data[57:0], 6'd0};
wire        d_short = t_len > d_len16;
wire [15:0] d_wlen  = d_short ? d_len16 : t_len;

// burst planning (W_AW): full words left, room to the next 4 KiB boundary, 256 beats
wire [16:0] words_left = (left_reg + BYTES17 - 17'd1) >> BLOG2;
wire [12:0] to4k_bytes = 13'd4096 - {1'b0, cur_addr_reg[11:0]};
wire [12:0] to4k_words = to4k_bytes >> BLOG2;
reg  [8:0]  plan_beats;
always @* begin
    plan_beats = 9'd256;
    if (words_left < {8'd0, plan_beats}) plan_beats = words_left[8:0];
    if (to4k_words < {4'd0, plan_beats}) plan_beats = to4k_words[8:0];
end
wire [16:0] plan_bytes = {8'd0, plan_beats} << BLOG2;

// W channel: frame data in W_AW / W_DATA, the records in W_CPL
wire data_w = (w_st == W_DATA);
wire ren = (w_st == W_AW && bout_reg[BOUT_W-1] == 1'b0) ||
           (data_w && (fetched_reg != bb_reg) && (!qv_reg || m_axi_wready));
assign buf_rd_en = ren;
assign buf_rd_addr = dptr_reg;
wire w_fire = m_axi_wvalid && m_axi_wready;

wire [DATA_W/8-1:0] data_strb = (wleft_reg >= BYTES17) ? {(DATA_W/8){1'b1}}
                                : ~({(DATA_W/8){1'b1}} << wleft_reg[BLOG2:0]);

wire [DATA_W-1:0]   rec_data;
wire [DATA_W/8-1:0] rec_strb;
generate
    if (DATA_W > 256) begin : g_cwide
        // record j of the batch in lane (lane0 + j) mod RPB of beat (lane0 + j) / RPB
        wire [RPB_LOG2-1:0] lane0 = bt_addr[BLOG2-1:5];
        genvar l;
        for (l = 0; l < RPB; l = l + 1) begin : g_lane
            wire [15:0] j = ({7'd0, cbeat_reg} << RPB_LOG2) + l[15:0] - {{(16-RPB_LOG2){1'b0}}, lane0};
            wire        v = (j[15] == 1'b0) && (j < {{(16-CBN_W){1'b0}}, bt_n});
            assign rec_data[l*256 +: 256] = v ? rec_mem[j[CB_LOG2-1:0]] : 256'd0;
            assign rec_strb[l*32 +: 32] = {32{v}};
        end
    end else if (DATA_W == 256) begin : g_c256
        assign rec_data = rec_mem[cbeat_reg[CB_LOG2-1:0]];
        assign rec_strb = {(DATA_W/8){1'b1}};
    end else begin : g_cnarrow
        wire [255:0] r = rec_mem[cbeat_reg[CB_LOG2 + BPR_LOG2 - 1:BPR_LOG2]];
        assign rec_data = r[cbeat_reg[BPR_LOG2-1:0]*DATA_W +: DATA_W];
        assign rec_strb = {(DATA_W/8){1'b1}};
    end
endgenerate

assign m_axi_awid    = AXI_WID;
assign m_axi_awaddr  = awaddr_reg;
assign m_axi_awlen   = awlen_reg;
assign m_axi_awsize  = BLOG2[2:0];
assign m_axi_awburst = 2'b01;
assign m_axi_awlock  = 1'b0;
assign m_axi_awcache = 4'b0011;
assign m_axi_awprot  = 3'b010;
assign m_axi_awvalid = awvalid_reg;
assign m_axi_wvalid  = data_w ? qv_reg : cwvalid_reg;
assign m_axi_wdata   = data_w ? buf_rd_data : rec_data;
assign m_axi_wstrb   = data_w ? data_strb : rec_strb;
assign m_axi_wlast   = data_w ? (sent_reg == bb_reg - 9'd1) : (cbeat_reg == cbeats_reg - 9'd1);
assign m_axi_bready  = 1'b1;

wire aw_fire = awvalid_reg && m_axi_awready;
wire b_fire = m_axi_bvalid;

// the record of the frame in the engine
wire [15:0] ring_mask = (16'd1 << l2_reg) - 16'd1;
wire        phase = ~idx_reg[l2_reg];
reg [255:0] rec;
always @* begin
    rec = 256'd0;
    rec[`TSNIC_RXC_ARRIVAL_NS_LSB +: 64] = ts_reg;
    rec[`TSNIC_RXC_LEN_LSB +: 16] = wlen_reg;
    rec[`TSNIC_RXC_FRAME_LEN_LSB +: 16] = flen_reg;
    rec[`TSNIC_RXC_RING_INDEX_LSB +: 16] = idx_reg;
    rec[`TSNIC_RXC_QUEUE_LSB +: 16] = {{(16-RXQ_W){1'b0}}, q_reg};
    rec[`TSNIC_RXC_STATUS_LSB +: 8] = ostat_reg;
    rec[`TSNIC_RXC_STEER_ENTRY_LSB +: 8] = hit_reg ? {{(8-ENT_W){1'b0}}, ent_reg} : 8'd0;
    rec[`TSNIC_RXC_FLAGS_LSB + `TSNIC_RXC_FLAG_STEERED_BIT] = hit_reg;
    rec[`TSNIC_RXC_FLAGS_LSB + `TSNIC_RXC_FLAG_PHASE_BIT] = phase;
end
// where the record goes, and whether the batch must close after it
wire [15:0] rec_next   = idx_reg + 16'd1;
wire [15:0] rec_nslot  = rec_next & ring_mask;
wire [6:0]  rec_next4k = cbase[q_reg][11:5] + rec_nslot[6:0];
wire        rec_close  = (bt_n == CB_M1) || (rec_nslot == 16'd0) || (rec_next4k == 7'd0);
wire [63:0] rec_addr   = cbase[q_reg] + {43'd0, (idx_reg & ring_mask), 5'd0};

// the frame in T fits the open batch
wire t_fits = (bt_n == {CBN_W{1'b0}}) || (!bt_close && t_q == bt_q && t_idx == bt_next);
// the completion burst
wire [8:0] cpl_beats;
generate
    if (DATA_W > 256) begin : g_cb_wide
        // verilator lint_off UNUSEDSIGNAL
        wire [9:0] b = ({{(10-RPB_LOG2){1'b0}}, bt_addr[BLOG2-1:5]} + {{(10-CBN_W){1'b0}}, bt_n} + RPB_M1_32[9:0]) >> RPB_LOG2;
        // verilator lint_on UNUSEDSIGNAL
        assign cpl_beats = b[8:0];
    end else begin : g_cb_narrow
        // verilator lint_off UNUSEDSIGNAL
        wire [9:0] b = {{(10-CBN_W){1'b0}}, bt_n} << BPR_SH_32;
        // verilator lint_on UNUSEDSIGNAL
        assign cpl_beats = b[8:0];
    end
endgenerate

// the enabling CTRL write of a queue waits while a frame of that queue is in the engine
wire wq_busy = (t_valid && !t_drop && t_q == wq) || ((w_st == W_AW || w_st == W_DATA || w_st == W_REC) && q_reg == wq) ||
               ((bt_n != {CBN_W{1'b0}}) && bt_q == wq) || (ret_v && ret_q == wq);
wire wr_enable = (wr_off == `TSNIC_RXQ_CTRL) && reg_wr_strb[0] && reg_wr_data[`TSNIC_RXQ_CTRL_ENABLE_BIT] && !qen[wq];
wire wr_hold = reg_wr_en && wr_hit && wr_enable && wq_busy;
assign reg_wr_wait = wr_hold;

always @(posedge clk) begin : engine
    reg [15:0] v, ahead, sz, inflight;
    reg        t_consume;            // the engine takes the T stage this cycle
    wr_ack_reg <= 1'b0;
    rd_ack_reg <= 1'b0;
    rd_data_reg <= 32'd0;
    buf_rel_valid <= 1'b0;
    t_consume = 1'b0;

    // ---- prefetch
    case (pf_st)
        PF_SCAN: begin
            // the scan moves only while a queue wants a read: quiet (not busy) means no change
            if (|want) pf_scan <= (pf_scan == LAST_Q) ? {RXQ_W{1'b0}} : pf_scan + 1'b1;
            if (want[pf_scan] && !tag_full) begin
                pf_q <= pf_scan;
                pf_abort <= 1'b0;
                pf_st <= PF_LOAD;
            end
        end
        PF_LOAD: begin
            pr_l2 <= eff_log2(slog2[pf_q]);
            pr_dreq <= dreq[pf_q];
            pr_prod <= prod[pf_q];
            pr_take <= take[pf_q];
            pr_dbase <= dbase[pf_q];
            pf_st <= PF_LIM;
        end
        PF_LIM: begin
            pf_daddr <= pr_dbase + {44'd0, pf_off, 4'd0};
            pf_lim_a <= pf_a[8:0];
            pf_lim_b <= pf_b[8:0];
            pf_lim_c <= pf_to4k;
            pf_st <= PF_MIN;
        end
        PF_MIN: begin
            pf_n <= (pf_lim_c < pf_ab) ? pf_lim_c : pf_ab;
            pf_st <= PF_ISSUE;
        end
        PF_ISSUE: begin
            if (pf_ok) begin
                ar_addr_reg <= pf_araddr;
                ar_len_reg <= pf_arlen;
                arvalid_reg <= 1'b1;
                tag_q[tag_wpi] <= pf_q;
                tag_nm1[tag_wpi] <= pf_n - 9'd1;
                tag_lane[tag_wpi] <= pf_lane0;
                tag_wp <= tag_wp + 1'b1;
                dreq[pf_q] <= dreq[pf_q] + {7'd0, pf_n};
                pf_st <= PF_AR;
            end else begin
                pf_st <= PF_SCAN;
            end
        end
        PF_AR: if (m_axi_arready) begin
            arvalid_reg <= 1'b0;
            pf_st <= PF_SCAN;
        end
        default: pf_st <= PF_SCAN;
    endcase

    // ---- descriptor return
    if (u_emit) begin
        u_cnt <= u_last_desc ? 9'd0 : u_cnt + 9'd1;
        if (u_keep) dhave[u_q] <= dhave[u_q] + 16'd1;
        if (u_pop) tag_rp <= tag_rp + 1'b1;
    end
    for (i = 0; i < NUM_RXQ; i = i + 1) begin
        if ((pf_issue && pf_q == i[RXQ_W-1:0]) && !(u_pop && u_q == i[RXQ_W-1:0])) rdout[i] <= rdout[i] + RD_ONE;
        if (!(pf_issue && pf_q == i[RXQ_W-1:0]) && (u_pop && u_q == i[RXQ_W-1:0])) rdout[i] <= rdout[i] - RD_ONE;
        if (u_pop && u_q == i[RXQ_W-1:0] && stale[i] != 0) stale[i] <= stale[i] - RD_ONE;
    end

    // ---- take
    if (s_take) begin
        t_valid <= 1'b1;
        t_drop <= s_drop;
        t_q <= sq;
        t_start <= s_info_start;
        t_end <= s_info_end;
        t_len <= s_info_len;
        t_flen <= s_info_frame_len;
        t_stat <= s_info_status;
        t_ts <= s_info_ts;
        t_hit <= s_info_hit;
        t_ent <= s_info_entry;
        t_idx <= take[sq];
        t_l2 <= eff_log2(slog2[sq]);
        if (s_drop) c_nobuf[sq] <= c_nobuf[sq] + 32'd1;
        else take[sq] <= take[sq] + 16'd1;
    end

    // ---- write responses
    if ((aw_fire && w_st != W_CPL) && !(b_fire && !ret_v)) bout_reg <= bout_reg + BOUT_ONE;
    if (!(aw_fire && w_st != W_CPL) && (b_fire && !ret_v)) bout_reg <= bout_reg - BOUT_ONE;
    if (aw_fire) awvalid_reg <= 1'b0;
    if (b_fire && ret_v) begin
        // the completion burst's B: the first B after it was issued (every data B was in before)
        ret_v <= 1'b0;
        cons[ret_q] <= ret_next;
        evt_pend <= evt_pend + {{(16-CBN_W){1'b0}}, ret_n} - (evt_pend != 16'd0 ? 16'd1 : 16'd0);
    end else if (evt_pend != 16'd0) begin
        evt_pend <= evt_pend - 16'd1;
    end
    evt_cpl <= (evt_pend != 16'd0);

    // ---- engine
    case (w_st)
        W_IDLE: begin
            if (t_valid && t_drop) begin
                // nothing written: give the words back (every frame before it has been sent)
                buf_rel_valid <= 1'b1;
                buf_rel_ptr <= t_end;
                t_consume = 1'b1;
            end else if (bt_n != {CBN_W{1'b0}} && (!t_valid || !t_fits)) begin
                w_st <= W_FLUSH;
            end else if (t_valid) begin
                t_consume = 1'b1;
                q_reg <= t_q;
                end_reg <= t_end;
                flen_reg <= t_flen;
                ts_reg <= t_ts;
                hit_reg <= t_hit;
                ent_reg <= t_ent;
                idx_reg <= t_idx;
                l2_reg <= t_l2;
                if (d_bad) begin
                    ostat_reg <= `TSNIC_RX_STATUS_BAD_DESC;
                    wlen_reg <= 16'd0;
                    w_st <= W_REC;
                end else begin
                    ostat_reg <= (t_stat != `TSNIC_RX_STATUS_OK) ? t_stat :
                                 (d_short ? `TSNIC_RX_STATUS_TRUNCATED : `TSNIC_RX_STATUS_OK);
                    wlen_reg <= d_wlen;
                    left_reg <= {1'b0, d_wlen};
                    wleft_reg <= {1'b0, d_wlen};
                    cur_addr_reg <= d_addr;
                    dptr_reg <= t_start[PTR_W-2:0];
                    w_st <= (d_wlen == 16'd0) ? W_REC : W_AW;
                end
            end
        end
        W_AW: if (bout_reg[BOUT_W-1] == 1'b0) begin
            awaddr_reg <= cur_addr_reg;
            awlen_reg <= plan_beats[7:0] - 8'd1;
            awvalid_reg <= 1'b1;
            bb_reg <= plan_beats;
            fetched_reg <= 9'd1;            // the burst's first word is read now
            dptr_reg <= dptr_reg + 1'b1;
            qv_reg <= 1'b1;
            sent_reg <= 9'd0;
            cur_addr_reg <= cur_addr_reg + {47'd0, plan_bytes};
            left_reg <= (left_reg > plan_bytes) ? left_reg - plan_bytes : 17'd0;
            w_st <= W_DATA;
        end
        W_DATA: begin
            if (ren) begin
                dptr_reg <= dptr_reg + 1'b1;
                fetched_reg <= fetched_reg + 9'd1;
                qv_reg <= 1'b1;
            end else if (w_fire) begin
                qv_reg <= 1'b0;
            end
            if (w_fire) begin
                sent_reg <= sent_reg + 9'd1;
                wleft_reg <= (wleft_reg > BYTES17) ? wleft_reg - BYTES17 : 17'd0;
            end
            if ((sent_reg == bb_reg || (w_fire && sent_reg == bb_reg - 9'd1)) && (!awvalid_reg || aw_fire)) begin
                w_st <= (left_reg == 17'd0) ? W_REC : W_AW;
            end
        end
        W_REC: begin
            // the frame's record joins the batch; its words go back to the buffer
            rec_mem[bt_n[CB_LOG2-1:0]] <= rec;
            bt_n <= bt_n + 1'b1;
            bt_next <= rec_next;
            bt_close <= rec_close;
            if (bt_n == {CBN_W{1'b0}}) begin
                bt_q <= q_reg;
                bt_addr <= rec_addr;
            end
            c_frames[q_reg] <= c_frames[q_reg] + 32'd1;
            c_bytes[q_reg] <= c_bytes[q_reg] + {16'd0, wlen_reg};
            if (ostat_reg != `TSNIC_RX_STATUS_OK) c_err[q_reg] <= c_err[q_reg] + 32'd1;
            buf_rel_valid <= 1'b1;
            buf_rel_ptr <= end_reg;
            w_st <= W_IDLE;
        end
        W_FLUSH: if (bout_reg == {BOUT_W{1'b0}} && !ret_v) begin
            // every data write before it is acknowledged: write the batch's records
            // the first record's own address (at 512 bits possibly mid-beat: the burst's bytes then
            // start there, the first beat's lower lanes unstrobed), so no byte before it is written
            awaddr_reg <= bt_addr;
            awlen_reg <= cpl_beats[7:0] - 8'd1;
            awvalid_reg <= 1'b1;
            cwvalid_reg <= 1'b1;
            cbeat_reg <= 9'd0;
            cbeats_reg <= cpl_beats;
            ret_v <= 1'b1;
            ret_q <= bt_q;
            ret_next <= bt_next;
            ret_n <= bt_n;
            w_st <= W_CPL;
        end
        W_CPL: begin
            if (w_fire) begin
                cbeat_reg <= cbeat_reg + 9'd1;
                if (m_axi_wlast) cwvalid_reg <= 1'b0;
            end
            if ((!cwvalid_reg || (w_fire && m_axi_wlast)) && (!awvalid_reg || aw_fire)) begin
                bt_n <= {CBN_W{1'b0}};
                bt_close <= 1'b0;
                w_st <= W_IDLE;
            end
        end
        default: w_st <= W_IDLE;
    endcase
    if (t_consume) t_valid <= 1'b0;

    // ---- registers (a queue's reset overrides the engine's updates of that queue in this cycle)
    if (reg_wr_en && !wr_ack_reg && wr_hit && !wr_hold) begin
        wr_ack_reg <= 1'b1;
        case (wr_off)
            `TSNIC_RXQ_DESC_BASE_LO: dbase[wq][31:0]  <= apply_strb(dbase[wq][31:0], reg_wr_data, reg_wr_strb);
            `TSNIC_RXQ_DESC_BASE_HI: dbase[wq][63:32] <= apply_strb(dbase[wq][63:32], reg_wr_data, reg_wr_strb);
            `TSNIC_RXQ_CPL_BASE_LO:  cbase[wq][31:0]  <= apply_strb(cbase[wq][31:0], reg_wr_data, reg_wr_strb);
            `TSNIC_RXQ_CPL_BASE_HI:  cbase[wq][63:32] <= apply_strb(cbase[wq][63:32], reg_wr_data, reg_wr_strb);
            `TSNIC_RXQ_SIZE_LOG2:    if (reg_wr_strb[0]) slog2[wq] <= (reg_wr_data[7:0] > 8'd15) ? 4'd15 : reg_wr_data[3:0];
            `TSNIC_RXQ_CTRL: if (reg_wr_strb[0]) begin
                qen[wq] <= reg_wr_data[`TSNIC_RXQ_CTRL_ENABLE_BIT];
                if (wq == pf_q) pf_abort <= 1'b1;
                if (wr_enable) begin
                    prod[wq] <= 16'd0;
                    dreq[wq] <= 16'd0;
                    dhave[wq] <= 16'd0;
                    take[wq] <= 16'd0;
                    cons[wq] <= 16'd0;
                    // reads still in flight (after this cycle's issue / return) are thrown away
                    stale[wq] <= rdout[wq] + ((pf_issue && pf_q == wq) ? RD_ONE : {(RD_OUT_LOG2+1){1'b0}})
                                           - ((u_pop && u_q == wq) ? RD_ONE : {(RD_OUT_LOG2+1){1'b0}});
                end
            end
            `TSNIC_RXQ_PROD: begin
                v = prod_wv[15:0];
                sz = 16'd1 << eff_log2(slog2[wq]);
                ahead = v - take[wq];
                inflight = dreq[wq] - take[wq];
                prod[wq] <= (ahead > sz) ? take[wq] + sz : ((ahead < inflight) ? dreq[wq] : v);
            end
            default: ;
        endcase
    end
    if (reg_rd_en && !rd_ack_reg && rd_hit) begin
        rd_ack_reg <= 1'b1;
        case (rd_off)
            `TSNIC_RXQ_DESC_BASE_LO: rd_data_reg <= dbase[rq][31:0];
            `TSNIC_RXQ_DESC_BASE_HI: rd_data_reg <= dbase[rq][63:32];
            `TSNIC_RXQ_CPL_BASE_LO:  rd_data_reg <= cbase[rq][31:0];
            `TSNIC_RXQ_CPL_BASE_HI:  rd_data_reg <= cbase[rq][63:32];
            `TSNIC_RXQ_SIZE_LOG2:    rd_data_reg <= {28'd0, slog2[rq]};
            `TSNIC_RXQ_CTRL:         rd_data_reg <= {31'd0, qen[rq]};
            `TSNIC_RXQ_PROD:         rd_data_reg <= {16'd0, prod[rq]};
            `TSNIC_RXQ_CONS:         rd_data_reg <= {16'd0, cons[rq]};
            `TSNIC_RXQ_STATUS:       rd_data_reg <= {30'd0, (take[rq] != cons[rq]) || (rdout[rq] != 0), qen[rq]};
            `TSNIC_RXQ_CNT_FRAMES:   rd_data_reg <= c_frames[rq];
            `TSNIC_RXQ_CNT_BYTES:    rd_data_reg <= c_bytes[rq];
            `TSNIC_RXQ_CNT_DROP_NOBUF: rd_data_reg <= c_nobuf[rq];
            `TSNIC_RXQ_CNT_ERRORS:   rd_data_reg <= c_err[rq];
            default: ;
        endcase
    end

    if (rst) begin
        w_st <= W_IDLE;
        pf_st <= PF_SCAN;
        t_valid <= 1'b0;
        arvalid_reg <= 1'b0;
        awvalid_reg <= 1'b0;
        cwvalid_reg <= 1'b0;
        qv_reg <= 1'b0;
        bout_reg <= {BOUT_W{1'b0}};
        bt_n <= {CBN_W{1'b0}};
        bt_close <= 1'b0;
        ret_v <= 1'b0;
        evt_pend <= 16'd0;
        evt_cpl <= 1'b0;
        u_cnt <= 9'd0;
        tag_wp <= {(RD_OUT_LOG2+1){1'b0}};
        tag_rp <= {(RD_OUT_LOG2+1){1'b0}};
        // (reset also keeps the few tags in flip-flops: their head feeds the per-queue counters)
        for (i = 0; i < RD_OUT; i = i + 1) begin
            tag_q[i] <= {RXQ_W{1'b0}}; tag_nm1[i] <= 9'd0; tag_lane[i] <= {LANES_LOG2{1'b0}};
        end
        buf_rel_valid <= 1'b0;
        wr_ack_reg <= 1'b0;
        rd_ack_reg <= 1'b0;
        for (i = 0; i < NUM_RXQ; i = i + 1) begin
            qen[i] <= 1'b0; prod[i] <= 16'd0; dreq[i] <= 16'd0; dhave[i] <= 16'd0; take[i] <= 16'd0; cons[i] <= 16'd0;
            rdout[i] <= {(RD_OUT_LOG2+1){1'b0}}; stale[i] <= {(RD_OUT_LOG2+1){1'b0}};
            c_frames[i] <= 32'd0; c_bytes[i] <= 32'd0; c_nobuf[i] <= 32'd0; c_err[i] <= 32'd0;
        end
    end
end

assign busy = (w_st != W_IDLE) || t_valid || s_info_valid || (bt_n != {CBN_W{1'b0}}) || ret_v ||
              (evt_pend != 16'd0) || evt_cpl || buf_rel_valid || (bout_reg != {BOUT_W{1'b0}}) ||
              (pf_st != PF_SCAN) || (|want) || tag_any || wr_ack_reg || rd_ack_reg;

endmodule

`resetall
