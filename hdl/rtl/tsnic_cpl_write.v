// tsnic_cpl_write: the completion writer.
//
// - N_SRC completion request ports (docs/DATAPATH.md "Completion request"), packed into vectors,
//   served round robin. A request is accepted only when the host completion ring has a free record,
//   so nothing is ever dropped or overwritten: a full ring holds `ready` low (backpressure).
// - Each accepted request becomes one 32-byte record (contract layout, phase bit in the last dword)
//   written with one AXI4 write burst at CPL_BASE + (prod mod size) * 32. Up to 2^OUT_LOG2 writes
//   are outstanding; all use one ID so their B responses return in order.
// - On each B response (the record is in host memory): CPL_PROD advances, the descriptor-table handle
//   is freed (m_free_*), the per-queue counter of that status is incremented, and a one-cycle event
//   (evt_cpl_*) feeds the global counters and the interrupt moderator in tsnic_regs.
// - Register blocks owned: CPL (BASE_LO/HI, SIZE_LOG2, CTRL, PROD, CONS) and, in each Q block,
//   CNT_SENT..CNT_DMA_ERROR (per-queue 32-bit counters in one block RAM, 8 words per queue).
`resetall
`timescale 1ns / 1ps
`default_nettype none
`include "tsnic_contract.vh"

module tsnic_cpl_write #(
    parameter ADDR_W        = 20,
    parameter NUM_QUEUES    = 8,
    parameter QUEUE_W       = (NUM_QUEUES > 1) ? $clog2(NUM_QUEUES) : 1,
    parameter NODE_W        = 10,
    parameter N_SRC         = 3,
    parameter RING_LOG2_MAX = 16,
    parameter AXI_DATA_W    = 64,
    parameter AXI_ID_W      = 8,
    parameter [AXI_ID_W-1:0] AXI_WR_ID = {AXI_ID_W{1'b0}},
    parameter OUT_LOG2      = 3
) (
    input  wire                        clk,
    input  wire                        rst,

    // register interface
    input  wire [ADDR_W-1:0]           reg_wr_addr,
    input  wire [31:0]                 reg_wr_data,
    input  wire [3:0]                  reg_wr_strb,
    input  wire                        reg_wr_en,
    output wire                        reg_wr_wait,
    output wire                        reg_wr_ack,
    input  wire [ADDR_W-1:0]           reg_rd_addr,
    input  wire                        reg_rd_en,
    output wire [31:0]                 reg_rd_data,
    output wire                        reg_rd_wait,
    output wire                        reg_rd_ack,

    // completion requests, source i in bits [i*W +: W]
    input  wire [N_SRC-1:0]            s_cpl_req_valid,
    output wire [N_SRC-1:0]            s_cpl_req_ready,
    input  wire [N_SRC*QUEUE_W-1:0]    s_cpl_req_queue,
    input  wire [N_SRC*16-1:0]         s_cpl_req_ring_index,
    input  wire [N_SRC*32-1:0]         s_cpl_req_cookie,
    input  wire [N_SRC*64-1:0]         s_cpl_req_launch_ns,
    input  wire [N_SRC*64-1:0]         s_cpl_req_depart_ns,
    input  wire [N_SRC*16-1:0]         s_cpl_req_len,
    input  wire [N_SRC*8-1:0]          s_cpl_req_status,
    input  wire [N_SRC*8-1:0]          s_cpl_req_reason,
    input  wire [N_SRC-1:0]            s_cpl_req_capped,
    input  wire [N_SRC*NODE_W-1:0]     s_cpl_req_handle,
    input  wire [N_SRC-1:0]            s_cpl_req_handle_valid,

    // AXI4 write master (host completion ring)
    output wire [AXI_ID_W-1:0]         m_axi_awid,
    output wire [63:0]                 m_axi_awaddr,
    output wire [7:0]                  m_axi_awlen,
    output wire [2:0]                  m_axi_awsize,
    output wire [1:0]                  m_axi_awburst,
    output wire                        m_axi_awlock,
    output wire [3:0]                  m_axi_awcache,
    output wire [2:0]                  m_axi_awprot,
    output wire                        m_axi_awvalid,
    input  wire                        m_axi_awready,
    output wire [AXI_DATA_W-1:0]       m_axi_wdata,
    output wire [AXI_DATA_W/8-1:0]     m_axi_wstrb,
    output wire                        m_axi_wlast,
    output wire                        m_axi_wvalid,
    input  wire                        m_axi_wready,
    input  wire [AXI_ID_W-1:0]         m_axi_bid,
    input  wire [1:0]                  m_axi_bresp,
    input  wire                        m_axi_bvalid,
    output wire                        m_axi_bready,

    // descriptor-table handle free
    output wire                        m_free_valid,
    input  wire                        m_free_ready,
    output wire [NODE_W-1:0]           m_free_handle,

    // events (one cycle per completion made visible to the host)
    output wire                        evt_cpl_valid,
    output wire [7:0]                  evt_cpl_status,
    output wire [15:0]                 evt_cpl_len,
    output wire [QUEUE_W-1:0]          evt_cpl_queue,

    output wire                        ff_quiet   // no request, record, write or counter update under way
);

localparam SRC_W      = (N_SRC > 1) ? $clog2(N_SRC) : 1;
localparam BUS_BYTES  = AXI_DATA_W / 8;
localparam BUS_LOG2   = $clog2(BUS_BYTES);
localparam BEATS      = (AXI_DATA_W >= 256) ? 1 : 256 / AXI_DATA_W;
localparam BEAT_W     = (BEATS > 1) ? $clog2(BEATS) : 1;
localparam CNT_ADDR_W = QUEUE_W + 3;
localparam CNT_WORDS  = NUM_QUEUES * 8;

// ---------------------------------------------------------------------------------------------
// CPL block registers
reg [63:0] base_reg = 64'd0;
reg [7:0]  size_log2_reg = 8'd0;
reg        enable_reg = 1'b0;
reg [31:0] prod_issue_reg = 32'd0;   // records accepted (next record's index)
reg [31:0] prod_done_reg = 32'd0;    // records written (B received): CPL_PROD
reg [31:0] cons_reg = 32'd0;

wire [4:0]  size_log2_eff = (size_log2_reg > RING_LOG2_MAX) ? RING_LOG2_MAX[4:0] : size_log2_reg[4:0];
wire [31:0] ring_size = 32'd1 << size_log2_eff;
wire [31:0] ring_used = prod_issue_reg - cons_reg;
wire        ring_space = ring_used < ring_size;

// ---------------------------------------------------------------------------------------------
// outstanding-write FIFO (metadata needed after the B response): the shared FIFO, its output word
// straight from a register. A record's B response cannot come before the cycle after its AW, which
// is the earliest its metadata shows at the FIFO's output (two cycles after the accept).
localparam OF_W = NODE_W + 1 + QUEUE_W + 8 + 16;
wire              of_s_ready;
wire              of_m_valid;
wire [OF_W-1:0]   of_m_data;
wire [OUT_LOG2+1:0] of_count;
wire [NODE_W-1:0]  of_handle;
wire               of_hvalid;
wire [QUEUE_W-1:0] of_queue;
wire [7:0]         of_status;
wire [15:0]        of_len;
assign {of_handle, of_hvalid, of_queue, of_status, of_len} = of_m_data;
wire fifo_full  = !of_s_ready;
wire fifo_empty = !of_m_valid;

// ---------------------------------------------------------------------------------------------
// request arbitration (round robin after the last grant)
reg [SRC_W-1:0] last_reg = N_SRC - 1;
reg [SRC_W-1:0] grant_idx;
reg             grant_found;
integer k, idx;

always @* begin
    grant_found = 1'b0;
    grant_idx = {SRC_W{1'b0}};
    for (k = 1; k <= N_SRC; k = k + 1) begin
        idx = {{(32-SRC_W){1'b0}}, last_reg} + k;
        if (idx >= N_SRC) idx = idx - N_SRC;
        if (!grant_found && s_cpl_req_valid[idx]) begin
            grant_found = 1'b1;
            grant_idx = idx[SRC_W-1:0];
        end
    end
end

reg  rec_valid_reg = 1'b0;   // a record is being issued on AW/W
reg  init_done_reg = 1'b0;   // counter RAM cleared

// the record register is free, or its last AW/W handshakes happen this cycle
wire aw_done_now = !awvalid_reg || m_axi_awready;
wire w_done_now = !wvalid_reg || (m_axi_wready && m_axi_wlast);
wire rec_free = !rec_valid_reg || (aw_done_now && w_done_now);
wire can_accept = init_done_reg && enable_reg && ring_space && rec_free && !fifo_full;
wire accept = can_accept && grant_found;

assign s_cpl_req_ready = accept ? ({{(N_SRC-1){1'b0}}, 1'b1} << grant_idx) : {N_SRC{1'b0}};

// the granted request's fields and the record, formed only in a cycle that accepts one (they are
// used only then; a cycle-based simulator skips the selection in every other cycle)
reg [QUEUE_W-1:0] g_queue;
reg [15:0]        g_index;
reg [31:0]        g_cookie;
reg [63:0]        g_launch;
reg [63:0]        g_depart;
reg [15:0]        g_len;
reg [7:0]         g_status;
reg [7:0]         g_reason;
reg               g_capped;
reg [NODE_W-1:0]  g_handle;
reg               g_hvalid;
always @* begin
    g_queue = {QUEUE_W{1'b0}}; g_index = 16'd0; g_cookie = 32'd0; g_launch = 64'd0; g_depart = 64'd0;
    g_len = 16'd0; g_status = 8'd0; g_reason = 8'd0; g_capped = 1'b0; g_handle = {NODE_W{1'b0}};
    g_hvalid = 1'b0;
    if (accept) begin
        g_queue  = s_cpl_req_queue[grant_idx*QUEUE_W +: QUEUE_W];
        g_index  = s_cpl_req_ring_index[grant_idx*16 +: 16];
        g_cookie = s_cpl_req_cookie[grant_idx*32 +: 32];
        g_launch = s_cpl_req_launch_ns[grant_idx*64 +: 64];
        g_depart = s_cpl_req_depart_ns[grant_idx*64 +: 64];
        g_len    = s_cpl_req_len[grant_idx*16 +: 16];
        g_status = s_cpl_req_status[grant_idx*8 +: 8];
        g_reason = s_cpl_req_reason[grant_idx*8 +: 8];
        g_capped = s_cpl_req_capped[grant_idx];
        g_handle = s_cpl_req_handle[grant_idx*NODE_W +: NODE_W];
        g_hvalid = s_cpl_req_handle_valid[grant_idx];
    end
end

wire b_fire;
tsnic_fifo #(.WIDTH(OF_W), .ADDR_W(OUT_LOG2)) out_fifo_inst (
    .clk(clk), .rst(rst),
    .s_valid(accept), .s_ready(of_s_ready), .s_data({g_handle, g_hvalid, g_queue, g_status, g_len}),
    .m_valid(of_m_valid), .m_ready(b_fire), .m_data(of_m_data),
    .count(of_count));

// the record, in the contract's layout
wire [31:0] ring_mask = ring_size - 32'd1;
wire [31:0] slot = prod_issue_reg & ring_mask;
wire        phase = ~|((prod_issue_reg >> size_log2_eff) & 32'd1);   // first pass writes 1
wire [63:0] slot_addr = base_reg + {27'd0, slot, 5'd0};

reg [255:0] rec;
always @* begin
    rec = 256'd0;
    if (accept) begin
        rec[`TSNIC_CPL_DEPART_NS_LSB +: `TSNIC_CPL_DEPART_NS_W] = g_depart;
        rec[`TSNIC_CPL_LAUNCH_NS_LSB +: `TSNIC_CPL_LAUNCH_NS_W] = g_launch;
        rec[`TSNIC_CPL_COOKIE_LSB +: `TSNIC_CPL_COOKIE_W] = g_cookie;
        rec[`TSNIC_CPL_RING_INDEX_LSB +: `TSNIC_CPL_RING_INDEX_W] = g_index;
        rec[`TSNIC_CPL_QUEUE_LSB +: `TSNIC_CPL_QUEUE_W] = {{(`TSNIC_CPL_QUEUE_W-QUEUE_W){1'b0}}, g_queue};
        rec[`TSNIC_CPL_STATUS_LSB +: `TSNIC_CPL_STATUS_W] = g_status;
        rec[`TSNIC_CPL_REASON_LSB +: `TSNIC_CPL_REASON_W] = g_reason;
        rec[`TSNIC_CPL_LEN_LSB +: `TSNIC_CPL_LEN_W] = g_len;
        rec[`TSNIC_CPL_FLAGS_LSB + `TSNIC_CPL_FLAG_CAPPED_BIT] = g_capped;
        rec[`TSNIC_CPL_FLAGS_LSB + `TSNIC_CPL_FLAG_PHASE_BIT] = phase;
    end
end

// ---------------------------------------------------------------------------------------------
// AW / W issue
reg [63:0]       awaddr_reg = 64'd0;
reg              awvalid_reg = 1'b0;
reg [255:0]      rec_reg = 256'd0;
reg [BEAT_W-1:0] beat_reg = 0;
reg              wvalid_reg = 1'b0;

assign m_axi_awid    = AXI_WR_ID;
assign m_axi_awaddr  = awaddr_reg;
assign m_axi_awlen   = BEATS[7:0] - 8'd1;
assign m_axi_awsize  = (AXI_DATA_W > 256) ? 3'd5 : BUS_LOG2[2:0];
assign m_axi_awburst = 2'b01;
assign m_axi_awlock  = 1'b0;
assign m_axi_awcache = 4'b0011;
assign m_axi_awprot  = 3'b010;
assign m_axi_awvalid = awvalid_reg;
assign m_axi_wvalid  = wvalid_reg;
assign m_axi_wlast   = ({{(32-BEAT_W){1'b0}}, beat_reg} == BEATS - 1);

generate
    if (AXI_DATA_W > 256) begin : g_wide
        // one narrow beat: the 32-byte record sits in the byte lanes its address selects
        wire [BUS_LOG2-6:0] lane = awaddr_reg[BUS_LOG2-1:5];
        assign m_axi_wdata = {{(AXI_DATA_W-256){1'b0}}, rec_reg} << (lane * 256);
        assign m_axi_wstrb = {{(BUS_BYTES-32){1'b0}}, 32'hffffffff} << (lane * 32);
    end else begin : g_narrow
        assign m_axi_wdata = rec_reg[beat_reg*AXI_DATA_W +: AXI_DATA_W];
        assign m_axi_wstrb = {BUS_BYTES{1'b1}};
    end
endgenerate

// ---------------------------------------------------------------------------------------------
// per-queue counter RAM and its sequencer (B responses and register reads share the read port)
wire [31:0]          cnt_q;
reg                  ram_re;
reg [CNT_ADDR_W-1:0] ram_ra;
reg                  ram_we;
reg [CNT_ADDR_W-1:0] ram_wa;
reg [31:0]           ram_wd;

tsnic_ram_sdp #(.WIDTH(32), .ADDR_W(CNT_ADDR_W), .BE_W(1), .OUT_REG(0)) cnt_ram_inst (
    .clk(clk),
    .wr_en(ram_we), .wr_addr(ram_wa), .wr_data(ram_wd),
    .rd_en(ram_re), .rd_addr(ram_ra), .rd_data(cnt_q));

// Pipeline, one B response per cycle: cycle 1 reads the counter (b_fire), cycle 2 writes it + 1
// (upd_reg). A read in the same cycle as a write to the same word returns the old word, so that
// case is forwarded (fwd_reg). Register reads take the read port when they come (2-cycle answer).
reg                  init_reg = 1'b1;        // clearing the RAM after reset
reg [CNT_ADDR_W-1:0] caddr_reg = 0;          // init pointer, then the word being updated
reg                  upd_reg = 1'b0;
reg                  rdp_reg = 1'b0;         // register read issued last cycle
reg                  fwd_reg = 1'b0;
reg [31:0]           fwd_data_reg = 32'd0;
wire [31:0]          cnt_cur = fwd_reg ? fwd_data_reg : cnt_q;

localparam [31:0] WORD_SENT_32 = (`TSNIC_Q_CNT_SENT - `TSNIC_Q_CNT_POSTED) / 4;
localparam [31:0] WORD_SENT_LATE_32 = (`TSNIC_Q_CNT_SENT_LATE - `TSNIC_Q_CNT_POSTED) / 4;
localparam [31:0] WORD_DROPPED_LATE_32 = (`TSNIC_Q_CNT_DROPPED_LATE - `TSNIC_Q_CNT_POSTED) / 4;
localparam [31:0] WORD_DROPPED_HORIZON_32 = (`TSNIC_Q_CNT_DROPPED_HORIZON - `TSNIC_Q_CNT_POSTED) / 4;
localparam [31:0] WORD_FLUSHED_32 = (`TSNIC_Q_CNT_FLUSHED - `TSNIC_Q_CNT_POSTED) / 4;
localparam [31:0] WORD_REJECTED_32 = (`TSNIC_Q_CNT_REJECTED - `TSNIC_Q_CNT_POSTED) / 4;
localparam [31:0] WORD_DMA_ERROR_32 = (`TSNIC_Q_CNT_DMA_ERROR - `TSNIC_Q_CNT_POSTED) / 4;
localparam [2:0] WORD_SENT = WORD_SENT_32[2:0];
localparam [2:0] WORD_SENT_LATE = WORD_SENT_LATE_32[2:0];
localparam [2:0] WORD_DROPPED_LATE = WORD_DROPPED_LATE_32[2:0];
localparam [2:0] WORD_DROPPED_HORIZON = WORD_DROPPED_HORIZON_32[2:0];
localparam [2:0] WORD_FLUSHED = WORD_FLUSHED_32[2:0];
localparam [2:0] WORD_REJECTED = WORD_REJECTED_32[2:0];
localparam [2:0] WORD_DMA_ERROR = WORD_DMA_ERROR_32[2:0];

function [2:0] status_word(input [7:0] st);   // word index in a queue's counter block (0: none)
    begin
        case (st)
            `TSNIC_STATUS_SENT:            status_word = WORD_SENT;
            `TSNIC_STATUS_SENT_LATE:       status_word = WORD_SENT_LATE;
            `TSNIC_STATUS_DROPPED_LATE:    status_word = WORD_DROPPED_LATE;
            `TSNIC_STATUS_DROPPED_HORIZON: status_word = WORD_DROPPED_HORIZON;
            `TSNIC_STATUS_FLUSHED:         status_word = WORD_FLUSHED;
            `TSNIC_STATUS_REJECTED:        status_word = WORD_REJECTED;
            `TSNIC_STATUS_DMA_ERROR:       status_word = WORD_DMA_ERROR;
            default:                       status_word = 3'd0;
        endcase
    end
endfunction

// register decode
wire [31:0] rd_a = {{(32-ADDR_W){1'b0}}, reg_rd_addr[ADDR_W-1:2], 2'b00};
wire [31:0] wr_a = {{(32-ADDR_W){1'b0}}, reg_wr_addr[ADDR_W-1:2], 2'b00};
wire [31:0] rd_qrel = rd_a - `TSNIC_Q_BASE;
wire [31:0] rd_qnum = rd_qrel >> `TSNIC_Q_STRIDE_LOG2;
wire [31:0] rd_qoff = rd_qrel & (`TSNIC_Q_STRIDE - 1);
wire        rd_qcnt = (rd_a >= `TSNIC_Q_BASE) && (rd_qnum < NUM_QUEUES)
                   && (rd_qoff >= `TSNIC_Q_CNT_SENT) && (rd_qoff <= `TSNIC_Q_CNT_DMA_ERROR);
wire [31:0] rd_qword = (rd_qoff - `TSNIC_Q_CNT_POSTED) >> 2;
wire [CNT_ADDR_W-1:0] rd_caddr = {rd_qnum[QUEUE_W-1:0], rd_qword[2:0]};

wire rd_cpl = (rd_a == `TSNIC_CPL_BASE_LO) || (rd_a == `TSNIC_CPL_BASE_HI) || (rd_a == `TSNIC_CPL_SIZE_LOG2)
           || (rd_a == `TSNIC_CPL_CTRL) || (rd_a == `TSNIC_CPL_PROD) || (rd_a == `TSNIC_CPL_CONS);
wire wr_cpl = (wr_a == `TSNIC_CPL_BASE_LO) || (wr_a == `TSNIC_CPL_BASE_HI) || (wr_a == `TSNIC_CPL_SIZE_LOG2)
           || (wr_a == `TSNIC_CPL_CTRL) || (wr_a == `TSNIC_CPL_PROD) || (wr_a == `TSNIC_CPL_CONS);
wire [31:0] wr_qrel = wr_a - `TSNIC_Q_BASE;
wire [31:0] wr_qnum = wr_qrel >> `TSNIC_Q_STRIDE_LOG2;
wire [31:0] wr_qoff = wr_qrel & (`TSNIC_Q_STRIDE - 1);
wire        wr_qcnt = (wr_a >= `TSNIC_Q_BASE) && (wr_qnum < NUM_QUEUES)
                   && (wr_qoff >= `TSNIC_Q_CNT_SENT) && (wr_qoff <= `TSNIC_Q_CNT_DMA_ERROR);

reg        wr_ack_reg = 1'b0;
reg        rd_ack_reg = 1'b0;
reg [31:0] rd_data_reg = 32'd0;

assign reg_wr_wait = 1'b0;
assign reg_wr_ack = wr_ack_reg;
assign reg_rd_ack = rd_ack_reg;
assign reg_rd_data = rd_data_reg;
assign reg_rd_wait = reg_rd_en && rd_qcnt && !rd_ack_reg;

// verilator lint_off UNUSEDSIGNAL
wire [3:0]  unused_addr_lsbs = {reg_wr_addr[1:0], reg_rd_addr[1:0]};
wire [95:0] unused_q = {rd_qnum, rd_qword, wr_qnum};
wire [AXI_ID_W+1:0] unused_b = {m_axi_bid, m_axi_bresp};
// verilator lint_on UNUSEDSIGNAL

function [31:0] apply_strb(input [31:0] old, input [31:0] val, input [3:0] strb);
    integer b;
    begin
        apply_strb = old;
        for (b = 0; b < 4; b = b + 1)
            if (strb[b]) apply_strb[b*8 +: 8] = val[b*8 +: 8];
    end
endfunction

// B response handling
reg               free_valid_reg = 1'b0;
reg [NODE_W-1:0]  free_handle_reg = 0;
reg               evt_valid_reg = 1'b0;
reg [7:0]         evt_status_reg = 8'd0;
reg [15:0]        evt_len_reg = 16'd0;
reg [QUEUE_W-1:0] evt_queue_reg = 0;

assign m_free_valid = free_valid_reg;
assign m_free_handle = free_handle_reg;
assign evt_cpl_valid = evt_valid_reg;
assign evt_cpl_status = evt_status_reg;
assign evt_cpl_len = evt_len_reg;
assign evt_cpl_queue = evt_queue_reg;

wire [2:0]          b_word = status_word(of_status);

wire reg_cnt_rd = reg_rd_en && rd_qcnt && !rd_ack_reg && !rdp_reg && !init_reg;
wire b_ok = !init_reg && !reg_cnt_rd && !fifo_empty && (!free_valid_reg || m_free_ready);
assign m_axi_bready = b_ok;
assign b_fire = b_ok && m_axi_bvalid;

always @* begin
    ram_re = 1'b0;
    ram_ra = {CNT_ADDR_W{1'b0}};
    ram_we = 1'b0;
    ram_wa = caddr_reg;
    ram_wd = cnt_cur + 32'd1;
    if (init_reg) begin
        ram_we = 1'b1;
        ram_wd = 32'd0;
    end else begin
        ram_we = upd_reg;
        if (reg_cnt_rd) begin
            ram_re = 1'b1;
            ram_ra = rd_caddr;
        end else if (b_fire) begin
            ram_re = 1'b1;
            ram_ra = {of_queue, b_word};
        end
    end
end

always @(posedge clk) begin
    wr_ack_reg <= 1'b0;
    rd_ack_reg <= 1'b0;
    rd_data_reg <= 32'd0;
    evt_valid_reg <= 1'b0;
    if (m_free_ready) free_valid_reg <= 1'b0;

    // ---- CPL block register writes
    if (reg_wr_en && !wr_ack_reg && (wr_cpl || wr_qcnt)) begin
        wr_ack_reg <= 1'b1;
        case (wr_a)
            `TSNIC_CPL_BASE_LO:   base_reg[31:0] <= apply_strb(base_reg[31:0], reg_wr_data, reg_wr_strb);
            `TSNIC_CPL_BASE_HI:   base_reg[63:32] <= apply_strb(base_reg[63:32], reg_wr_data, reg_wr_strb);
            `TSNIC_CPL_SIZE_LOG2: if (reg_wr_strb[0]) size_log2_reg <= reg_wr_data[7:0];
            `TSNIC_CPL_CTRL: begin
                if (reg_wr_strb[0]) begin
                    enable_reg <= reg_wr_data[0];
                    if (reg_wr_data[0] && !enable_reg) begin
                        // enabling starts a fresh ring: index 0, phase 1, nothing consumed
                        prod_issue_reg <= 32'd0;
                        prod_done_reg <= 32'd0;
                        cons_reg <= 32'd0;
                    end
                end
            end
            `TSNIC_CPL_CONS:      cons_reg <= apply_strb(cons_reg, reg_wr_data, reg_wr_strb);
            default: ;
        endcase
    end

    // ---- register reads
    if (reg_rd_en && !rd_ack_reg && rd_cpl) begin
        rd_ack_reg <= 1'b1;
        case (rd_a)
            `TSNIC_CPL_BASE_LO:   rd_data_reg <= base_reg[31:0];
            `TSNIC_CPL_BASE_HI:   rd_data_reg <= base_reg[63:32];
            `TSNIC_CPL_SIZE_LOG2: rd_data_reg <= {24'd0, size_log2_reg};
            `TSNIC_CPL_CTRL:      rd_data_reg <= {31'd0, enable_reg};
            `TSNIC_CPL_PROD:      rd_data_reg <= prod_done_reg;
            `TSNIC_CPL_CONS:      rd_data_reg <= cons_reg;
            default: ;
        endcase
    end

    // ---- issue AW and W
    if (awvalid_reg && m_axi_awready) begin
        awvalid_reg <= 1'b0;
    end
    if (wvalid_reg && m_axi_wready) begin
        if (m_axi_wlast) begin
            wvalid_reg <= 1'b0;
        end else begin
            beat_reg <= beat_reg + 1'b1;
        end
    end
    if (rec_valid_reg && !(awvalid_reg && !m_axi_awready) && !(wvalid_reg && !(m_axi_wready && m_axi_wlast))) begin
        rec_valid_reg <= 1'b0;
    end

    // ---- accept a request
    if (accept) begin
        last_reg <= grant_idx;
        rec_valid_reg <= 1'b1;
        rec_reg <= rec;
        awaddr_reg <= slot_addr;
        awvalid_reg <= 1'b1;
        wvalid_reg <= 1'b1;
        beat_reg <= 0;
        prod_issue_reg <= prod_issue_reg + 32'd1;
    end

    // ---- B responses and the counter RAM
    fwd_reg <= ram_re && ram_we && (ram_ra == ram_wa);
    fwd_data_reg <= ram_wd;
    upd_reg <= 1'b0;
    rdp_reg <= reg_cnt_rd;
    if (rdp_reg) begin
        rd_ack_reg <= 1'b1;
        rd_data_reg <= cnt_cur;
    end
    if (init_reg) begin
        caddr_reg <= caddr_reg + 1'b1;
        if ({{(32-CNT_ADDR_W){1'b0}}, caddr_reg} == CNT_WORDS - 1) begin
            init_reg <= 1'b0;
            init_done_reg <= 1'b1;
        end
    end else if (b_fire) begin
        prod_done_reg <= prod_done_reg + 32'd1;
        if (of_hvalid) begin
            free_valid_reg <= 1'b1;
            free_handle_reg <= of_handle;
        end
        evt_valid_reg <= 1'b1;
        evt_status_reg <= of_status;
        evt_len_reg <= of_len;
        evt_queue_reg <= of_queue;
        caddr_reg <= {of_queue, b_word};
        upd_reg <= (b_word != 3'd0);
    end

    if (rst) begin
        base_reg <= 64'd0;
        size_log2_reg <= 8'd0;
        enable_reg <= 1'b0;
        prod_issue_reg <= 32'd0;
        prod_done_reg <= 32'd0;
        cons_reg <= 32'd0;
        last_reg <= N_SRC - 1;
        rec_valid_reg <= 1'b0;
        awvalid_reg <= 1'b0;
        wvalid_reg <= 1'b0;
        beat_reg <= 0;
        init_done_reg <= 1'b0;
        init_reg <= 1'b1;
        caddr_reg <= 0;
        upd_reg <= 1'b0;
        rdp_reg <= 1'b0;
        fwd_reg <= 1'b0;
        wr_ack_reg <= 1'b0;
        rd_ack_reg <= 1'b0;
        rd_data_reg <= 32'd0;
        free_valid_reg <= 1'b0;
        evt_valid_reg <= 1'b0;
    end
end

// fast-forward (docs/ARCHITECTURE.md, "Idle fast-forward")
assign ff_quiet = init_done_reg && (of_count == 0) && !rec_valid_reg && !awvalid_reg && !wvalid_reg &&
                  (s_cpl_req_valid == {N_SRC{1'b0}}) && !m_free_valid && !upd_reg && !rdp_reg && !fwd_reg &&
                  !wr_ack_reg && !rd_ack_reg && !reg_wr_en && !reg_rd_en;

endmodule

`resetall
