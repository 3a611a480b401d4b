// tsnic_rx_dma: RX queues and the RX DMA engine (docs/ARCHITECTURE.md "Receive path").
//
// - Register block RXQ (one per RX queue, NUM_RXQ of them, state in flip-flops: the RX queue count
//   is small): descriptor and completion ring bases, size, enable, PROD doorbell, CONS, STATUS and
//   four 32-bit counters.
// - Engine, one frame at a time, in frame-queue order (tsnic_rx_buf): a frame for a disabled queue or
//   a queue without a posted buffer (PROD == CONS) is dropped at once and counted in that queue's
//   CNT_DROP_NOBUF (no head-of-line blocking of the other queues). Otherwise: read the RX descriptor
//   at CONS (one AXI4 read), write the frame into the buffer (AXI4 write bursts of full bus words,
//   split at 4 KiB boundaries and at 256 beats; the last beat's strobes cover the frame's bytes only),
//   wait for their B responses, write the 32-byte RX completion at the same index of the completion
//   ring (phase bit in the last dword), wait for its B, then CONS advances, the counters count and
//   evt_cpl pulses (the interrupt moderator), and the frame's words go back to the RX buffer.
// - A descriptor with length 0, an address not 64-byte aligned or a read error (RRESP) completes
//   BAD_DESC with nothing written. A buffer shorter than the frame is filled and completes TRUNCATED
//   (unless the frame is already BAD_FCS or TOO_LONG, which take precedence).
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
    parameter RING_LOG2_MAX = 15
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
localparam DBEATS  = (DATA_W >= 128) ? 1 : 128 / DATA_W;   // beats of one 16-byte descriptor
localparam CBEATS  = (DATA_W >= 256) ? 1 : 256 / DATA_W;   // beats of one 32-byte completion
localparam CB_W    = (CBEATS > 1) ? $clog2(CBEATS) : 1;
localparam DB_W    = (DBEATS > 1) ? $clog2(DBEATS) : 1;
localparam [31:0] BYTES_32 = BYTES;
localparam [16:0] BYTES17 = BYTES_32[16:0];
localparam DW_N    = (DATA_W < 128) ? DATA_W : 128;              // descriptor bits per beat

// ---------------------------------------------------------------------------------------------
// per-queue state
reg [63:0] dbase [0:NUM_RXQ-1];
reg [63:0] cbase [0:NUM_RXQ-1];
reg [3:0]  slog2 [0:NUM_RXQ-1];
reg        qen   [0:NUM_RXQ-1];
reg [15:0] prod  [0:NUM_RXQ-1];
reg [15:0] cons  [0:NUM_RXQ-1];
reg [31:0] c_frames [0:NUM_RXQ-1];
reg [31:0] c_bytes  [0:NUM_RXQ-1];
reg [31:0] c_nobuf  [0:NUM_RXQ-1];
reg [31:0] c_err    [0:NUM_RXQ-1];

integer i;
initial begin
    for (i = 0; i < NUM_RXQ; i = i + 1) begin
        dbase[i] = 64'd0; cbase[i] = 64'd0; slog2[i] = 4'd0; qen[i] = 1'b0; prod[i] = 16'd0; cons[i] = 16'd0;
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
wire [2*AXI_ID_W+1:0] unused_ids = {m_axi_rid, m_axi_bid, m_axi_bresp};
wire unused_start_msb = start_reg[PTR_W-1];
wire [31:0] unused_desc = desc_reg[127:96];
// verilator lint_on UNUSEDSIGNAL

reg        wr_ack_reg = 1'b0;
reg        rd_ack_reg = 1'b0;
reg [31:0] rd_data_reg = 32'd0;
assign reg_wr_wait = 1'b0;
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
// engine
localparam [3:0] S_IDLE = 4'd0, S_AR = 4'd1, S_R = 4'd2, S_PLAN = 4'd3, S_AW = 4'd4, S_W = 4'd5,
                 S_WAIT_B = 4'd6, S_CPL = 4'd7, S_CPL_W = 4'd8, S_CPL_B = 4'd9;
reg [3:0]        st = S_IDLE;
reg [RXQ_W-1:0]  q_reg = {RXQ_W{1'b0}};
reg [PTR_W-1:0]  start_reg = {PTR_W{1'b0}};
reg [PTR_W-1:0]  end_reg = {PTR_W{1'b0}};
reg [15:0]       len_reg = 16'd0;
reg [15:0]       flen_reg = 16'd0;
reg [7:0]        istat_reg = 8'd0;
reg [63:0]       ts_reg = 64'd0;
reg              hit_reg = 1'b0;
reg [ENT_W-1:0]  ent_reg = {ENT_W{1'b0}};
reg [15:0]       idx_reg = 16'd0;
reg [3:0]        l2_reg = 4'd0;
reg [63:0]       cbase_reg = 64'd0;

reg [127:0]      desc_reg = 128'd0;
reg [DB_W-1:0]   rbeat_reg = {DB_W{1'b0}};
reg              rerr_reg = 1'b0;
reg [63:0]       ar_addr_reg = 64'd0;
reg              arvalid_reg = 1'b0;

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
reg [3:0]        bout_reg = 4'd0;       // writes awaiting B

reg [63:0]       awaddr_reg = 64'd0;
reg [7:0]        awlen_reg = 8'd0;
reg [2:0]        awsize_reg = 3'd0;
reg              awvalid_reg = 1'b0;
reg [255:0]      rec_reg = 256'd0;
reg [CB_W-1:0]   cbeat_reg = {CB_W{1'b0}};
reg              cwvalid_reg = 1'b0;

assign s_info_ready = (st == S_IDLE);
wire   take = s_info_valid && (st == S_IDLE);
wire   q_ok = qen[s_info_queue] && (prod[s_info_queue] != cons[s_info_queue]);

// descriptor read
assign m_axi_arid    = AXI_RID;
assign m_axi_araddr  = ar_addr_reg;
assign m_axi_arlen   = DBEATS[7:0] - 8'd1;
assign m_axi_arsize  = (DATA_W >= 128) ? 3'd4 : BLOG2[2:0];
assign m_axi_arburst = 2'b01;
assign m_axi_arlock  = 1'b0;
assign m_axi_arcache = 4'b0011;
assign m_axi_arprot  = 3'b010;
assign m_axi_arvalid = arvalid_reg;
assign m_axi_rready  = (st == S_R);

// verilator lint_off UNUSEDSIGNAL
wire [127:0] desc_beat;   // (upper bits unused below 128-bit buses)
// verilator lint_on UNUSEDSIGNAL
generate
    if (DATA_W > 128) begin : g_dwide
        wire [BLOG2-5:0] dlane = ar_addr_reg[BLOG2-1:4];
        assign desc_beat = m_axi_rdata[dlane*128 +: 128];
    end else if (DATA_W == 128) begin : g_d128
        assign desc_beat = m_axi_rdata;
    end else begin : g_dnarrow
        assign desc_beat = {{(128-DATA_W){1'b0}}, m_axi_rdata};
    end
endgenerate

wire [63:0] d_addr = desc_reg[`TSNIC_RXD_ADDR_LSB +: 64];
wire [31:0] d_len  = desc_reg[`TSNIC_RXD_LEN_LSB +: 32];
wire        d_bad  = rerr_reg || (d_len == 32'd0) || (d_addr[5:0] != 6'd0);
wire [15:0] d_len16 = (d_len > 32'd65535) ? 16'hffff : d_len[15:0];
wire        d_short = len_reg > d_len16;

// burst planning (S_AW): full words left, room to the next 4 KiB boundary, 256 beats
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

// W channel: frame data in S_W, the completion record in S_CPL_W
wire data_w = (st == S_W);
wire ren = data_w && (fetched_reg != bb_reg) && (!qv_reg || m_axi_wready);
assign buf_rd_en = ren;
assign buf_rd_addr = dptr_reg;
wire w_fire = m_axi_wvalid && m_axi_wready;

wire [DATA_W/8-1:0] data_strb = (wleft_reg >= BYTES17) ? {(DATA_W/8){1'b1}}
                                : ~({(DATA_W/8){1'b1}} << wleft_reg[BLOG2:0]);

wire [DATA_W-1:0]   rec_data;
wire [DATA_W/8-1:0] rec_strb;
generate
    if (DATA_W > 256) begin : g_cwide
        wire [BLOG2-6:0] lane = awaddr_reg[BLOG2-1:5];
        assign rec_data = {{(DATA_W-256){1'b0}}, rec_reg} << (lane * 256);
        assign rec_strb = {{(BYTES-32){1'b0}}, 32'hffffffff} << (lane * 32);
    end else begin : g_cnarrow
        assign rec_data = rec_reg[cbeat_reg*DATA_W +: DATA_W];
        assign rec_strb = {(DATA_W/8){1'b1}};
    end
endgenerate

assign m_axi_awid    = AXI_WID;
assign m_axi_awaddr  = awaddr_reg;
assign m_axi_awlen   = awlen_reg;
assign m_axi_awsize  = awsize_reg;
assign m_axi_awburst = 2'b01;
assign m_axi_awlock  = 1'b0;
assign m_axi_awcache = 4'b0011;
assign m_axi_awprot  = 3'b010;
assign m_axi_awvalid = awvalid_reg;
assign m_axi_wvalid  = data_w ? qv_reg : cwvalid_reg;
assign m_axi_wdata   = data_w ? buf_rd_data : rec_data;
assign m_axi_wstrb   = data_w ? data_strb : rec_strb;
assign m_axi_wlast   = data_w ? (sent_reg == bb_reg - 9'd1)
                              : ({{(32-CB_W){1'b0}}, cbeat_reg} == CBEATS - 1);
assign m_axi_bready  = 1'b1;

wire aw_fire = awvalid_reg && m_axi_awready;
wire b_fire = m_axi_bvalid;

// the completion record
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

always @(posedge clk) begin
    wr_ack_reg <= 1'b0;
    rd_ack_reg <= 1'b0;
    rd_data_reg <= 32'd0;
    evt_cpl <= 1'b0;
    buf_rel_valid <= 1'b0;

    // ---- registers
    if (reg_wr_en && !wr_ack_reg && wr_hit) begin
        wr_ack_reg <= 1'b1;
        case (wr_off)
            `TSNIC_RXQ_DESC_BASE_LO: dbase[wq][31:0]  <= apply_strb(dbase[wq][31:0], reg_wr_data, reg_wr_strb);
            `TSNIC_RXQ_DESC_BASE_HI: dbase[wq][63:32] <= apply_strb(dbase[wq][63:32], reg_wr_data, reg_wr_strb);
            `TSNIC_RXQ_CPL_BASE_LO:  cbase[wq][31:0]  <= apply_strb(cbase[wq][31:0], reg_wr_data, reg_wr_strb);
            `TSNIC_RXQ_CPL_BASE_HI:  cbase[wq][63:32] <= apply_strb(cbase[wq][63:32], reg_wr_data, reg_wr_strb);
            `TSNIC_RXQ_SIZE_LOG2:    if (reg_wr_strb[0]) slog2[wq] <= (reg_wr_data[7:0] > 8'd15) ? 4'd15 : reg_wr_data[3:0];
            `TSNIC_RXQ_CTRL: if (reg_wr_strb[0]) begin
                qen[wq] <= reg_wr_data[`TSNIC_RXQ_CTRL_ENABLE_BIT];
                if (reg_wr_data[`TSNIC_RXQ_CTRL_ENABLE_BIT] && !qen[wq]) begin
                    prod[wq] <= 16'd0;
                    cons[wq] <= 16'd0;
                end
            end
            `TSNIC_RXQ_PROD: begin : w_prod
                reg [15:0] v, ahead, sz;
                v = prod_wv[15:0];
                sz = 16'd1 << eff_log2(slog2[wq]);
                ahead = v - cons[wq];
                prod[wq] <= (ahead > sz) ? cons[wq] + sz : v;
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
            `TSNIC_RXQ_STATUS:       rd_data_reg <= {30'd0, (st != S_IDLE) && (q_reg == rq), qen[rq]};
            `TSNIC_RXQ_CNT_FRAMES:   rd_data_reg <= c_frames[rq];
            `TSNIC_RXQ_CNT_BYTES:    rd_data_reg <= c_bytes[rq];
            `TSNIC_RXQ_CNT_DROP_NOBUF: rd_data_reg <= c_nobuf[rq];
            `TSNIC_RXQ_CNT_ERRORS:   rd_data_reg <= c_err[rq];
            default: ;
        endcase
    end

    // ---- write responses
    bout_reg <= bout_reg + (aw_fire ? 4'd1 : 4'd0) - (b_fire ? 4'd1 : 4'd0);
    if (aw_fire) awvalid_reg <= 1'b0;

    // ---- engine
    case (st)
        S_IDLE: if (take) begin
            q_reg <= s_info_queue;
            start_reg <= s_info_start;
            end_reg <= s_info_end;
            len_reg <= s_info_len;
            flen_reg <= s_info_frame_len;
            istat_reg <= s_info_status;
            ts_reg <= s_info_ts;
            hit_reg <= s_info_hit;
            ent_reg <= s_info_entry;
            idx_reg <= cons[s_info_queue];
            l2_reg <= eff_log2(slog2[s_info_queue]);
            cbase_reg <= cbase[s_info_queue];
            if (q_ok) begin
                ar_addr_reg <= dbase[s_info_queue] +
                               {44'd0, (cons[s_info_queue] & ((16'd1 << eff_log2(slog2[s_info_queue])) - 16'd1)), 4'd0};
                arvalid_reg <= 1'b1;
                st <= S_AR;
            end else begin
                c_nobuf[s_info_queue] <= c_nobuf[s_info_queue] + 32'd1;
                buf_rel_valid <= 1'b1;
                buf_rel_ptr <= s_info_end;
            end
        end
        S_AR: if (m_axi_arready) begin
            arvalid_reg <= 1'b0;
            rbeat_reg <= {DB_W{1'b0}};
            rerr_reg <= 1'b0;
            st <= S_R;
        end
        S_R: if (m_axi_rvalid) begin
            // constant part-selects, one per beat (a variable one became a 2 ns shifter)
            for (i = 0; i < DBEATS; i = i + 1) begin
                if ({{(32-DB_W){1'b0}}, rbeat_reg} == i) desc_reg[i*DW_N +: DW_N] <= desc_beat[DW_N-1:0];
            end
            rbeat_reg <= rbeat_reg + 1'b1;
            if (m_axi_rresp != 2'b00) rerr_reg <= 1'b1;
            if (m_axi_rlast) st <= S_PLAN;
        end
        S_PLAN: begin
            if (d_bad) begin
                ostat_reg <= `TSNIC_RX_STATUS_BAD_DESC;
                wlen_reg <= 16'd0;
                st <= S_CPL;
            end else begin
                ostat_reg <= (istat_reg != `TSNIC_RX_STATUS_OK) ? istat_reg :
                             (d_short ? `TSNIC_RX_STATUS_TRUNCATED : `TSNIC_RX_STATUS_OK);
                wlen_reg <= d_short ? d_len16 : len_reg;
                left_reg <= {1'b0, d_short ? d_len16 : len_reg};
                wleft_reg <= {1'b0, d_short ? d_len16 : len_reg};
                cur_addr_reg <= d_addr;
                dptr_reg <= start_reg[PTR_W-2:0];
                st <= ((d_short ? d_len16 : len_reg) == 16'd0) ? S_CPL : S_AW;
            end
        end
        S_AW: begin
            awaddr_reg <= cur_addr_reg;
            awlen_reg <= plan_beats[7:0] - 8'd1;
            awsize_reg <= BLOG2[2:0];
            awvalid_reg <= 1'b1;
            bb_reg <= plan_beats;
            fetched_reg <= 9'd0;
            sent_reg <= 9'd0;
            qv_reg <= 1'b0;
            cur_addr_reg <= cur_addr_reg + {47'd0, plan_bytes};
            left_reg <= (left_reg > plan_bytes) ? left_reg - plan_bytes : 17'd0;
            st <= S_W;
        end
        S_W: begin
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
                st <= (left_reg == 17'd0) ? S_WAIT_B : S_AW;
            end
        end
        S_WAIT_B: if (bout_reg == 4'd0) st <= S_CPL;
        S_CPL: begin
            rec_reg <= rec;
            awaddr_reg <= cbase_reg + {43'd0, (idx_reg & ring_mask), 5'd0};
            awlen_reg <= CBEATS[7:0] - 8'd1;
            awsize_reg <= (DATA_W > 256) ? 3'd5 : BLOG2[2:0];
            awvalid_reg <= 1'b1;
            cwvalid_reg <= 1'b1;
            cbeat_reg <= {CB_W{1'b0}};
            st <= S_CPL_W;
        end
        S_CPL_W: begin
            if (w_fire) begin
                cbeat_reg <= cbeat_reg + 1'b1;
                if (m_axi_wlast) cwvalid_reg <= 1'b0;
            end
            if ((!cwvalid_reg || (w_fire && m_axi_wlast)) && (!awvalid_reg || aw_fire)) st <= S_CPL_B;
        end
        S_CPL_B: if (bout_reg == 4'd0) begin
            cons[q_reg] <= idx_reg + 16'd1;
            c_frames[q_reg] <= c_frames[q_reg] + 32'd1;
            c_bytes[q_reg] <= c_bytes[q_reg] + {16'd0, wlen_reg};
            if (ostat_reg != `TSNIC_RX_STATUS_OK) c_err[q_reg] <= c_err[q_reg] + 32'd1;
            evt_cpl <= 1'b1;
            buf_rel_valid <= 1'b1;
            buf_rel_ptr <= end_reg;
            st <= S_IDLE;
        end
        default: st <= S_IDLE;
    endcase

    if (rst) begin
        st <= S_IDLE;
        arvalid_reg <= 1'b0;
        awvalid_reg <= 1'b0;
        cwvalid_reg <= 1'b0;
        qv_reg <= 1'b0;
        bout_reg <= 4'd0;
        evt_cpl <= 1'b0;
        buf_rel_valid <= 1'b0;
        wr_ack_reg <= 1'b0;
        rd_ack_reg <= 1'b0;
        for (i = 0; i < NUM_RXQ; i = i + 1) begin
            qen[i] <= 1'b0; prod[i] <= 16'd0; cons[i] <= 16'd0;
            c_frames[i] <= 32'd0; c_bytes[i] <= 32'd0; c_nobuf[i] <= 32'd0; c_err[i] <= 32'd0;
        end
    end
end

assign busy = (st != S_IDLE) || s_info_valid || evt_cpl || buf_rel_valid || (bout_reg != 4'd0) ||
              wr_ack_reg || rd_ack_reg;

endmodule

`resetall
