// tsnic_pk_buf: the packed transmit format's on-card buffer (issue 32 item 2; docs/DATAPATH.md
// "Packed transmit format"): 2^CHUNK_W chunks of 512 bytes, each holding one 512-byte block of one
// queue's stream as read from host memory, linked per queue in stream order, with a read port that
// follows the links and waits for bytes not written yet.
//
// - Allocation (the fetch, when it issues a read that starts a new block): alloc_valid says a free
//   chunk alloc_chunk is offered (fresh chunks 0, 1, ... first, then freed ones from a FIFO);
//   alloc_en takes it: its fill level becomes 0 and its link "not yet"; with alloc_link, the chunk
//   alloc_prev (the queue's chunk of the block before) links to it.
// - Write (the R beats of the reads): wr_en writes wr_data at word wr_word of chunk wr_chunk; a
//   chunk's words are written in order (a read that starts mid-block continues the block's chunk),
//   so its fill level is the last word written + 1.
// - Free (the reclaim): free_en returns chunk free_chunk to the free list. The caller frees a chunk
//   only when nothing will read it again.
// - Read port (the transmit side): s_ar_chunk, s_ar_off (byte offset from the chunk's start, may
//   run past 512: the port follows the links), s_ar_beats (>= 1) words of DATA_W from the word that
//   holds byte s_ar_off; one request at a time, words in order on m_r_* (m_r_last on the last). A
//   word is read only once written (fill level) and a link followed only once made: the port waits,
//   never returns stale bytes. One word a cycle, also across chunk boundaries whose link is made.
`resetall
`timescale 1ns / 1ps
`default_nettype none

module tsnic_pk_buf #(
    parameter DATA_W  = 512,      // 64..512
    parameter CHUNK_W = 8,        // 2^CHUNK_W chunks of 512 bytes
    parameter BEATS_W = 12,       // width of s_ar_beats
    parameter WW      = $clog2(512 * 8 / DATA_W)   // words per chunk, log2 (do not set)
) (
    input  wire                 clk,
    input  wire                 rst,

    output wire                 alloc_valid,
    output wire [CHUNK_W-1:0]   alloc_chunk,
    input  wire                 alloc_en,
    input  wire                 alloc_link,
    input  wire [CHUNK_W-1:0]   alloc_prev,

    input  wire                 wr_en,
    input  wire [CHUNK_W-1:0]   wr_chunk,
    input  wire [WW-1:0]        wr_word,
    input  wire [DATA_W-1:0]    wr_data,

    input  wire                 free_en,
    input  wire [CHUNK_W-1:0]   free_chunk,

    input  wire                 s_ar_valid,
    output wire                 s_ar_ready,
    input  wire [CHUNK_W-1:0]   s_ar_chunk,
    /* verilator lint_off UNUSEDSIGNAL */
    input  wire [15:0]          s_ar_off,      // its bits below the word are the reader's (lane offset)
    /* verilator lint_on UNUSEDSIGNAL */
    input  wire [BEATS_W-1:0]   s_ar_beats,
    output wire                 m_r_valid,
    input  wire                 m_r_ready,
    output wire [DATA_W-1:0]    m_r_data,
    output wire                 m_r_last
);

generate
    if (DATA_W < 64 || DATA_W > 512 || (DATA_W & (DATA_W - 1)) != 0) begin : g_bad_w
        tsnic_param_error_pk_buf_DATA_W_must_be_64_128_256_or_512 param_error_inst ();
    end
    if (CHUNK_W < 1 || CHUNK_W > 12) begin : g_bad_c
        tsnic_param_error_pk_buf_CHUNK_W_must_be_1_to_12 param_error_inst ();
    end
endgenerate

localparam NCH  = 1 << CHUNK_W;
localparam WPC  = 1 << WW;                 // words per chunk
localparam BW   = $clog2(DATA_W / 8);      // byte-offset bits inside a word

// ------------------------------------------------------------------------------------------------
// free list: fresh chunks by a counter, then freed ones from a FIFO

reg  [CHUNK_W:0]    fresh = {(CHUNK_W+1){1'b0}};
wire                fresh_left = !fresh[CHUNK_W];
wire                fl_valid;
wire [CHUNK_W-1:0]  fl_data;
/* verilator lint_off UNUSEDSIGNAL */
wire                fl_s_ready;              // always 1: it holds 2^CHUNK_W + 1 >= every chunk
wire [CHUNK_W+1:0]  fl_count;
/* verilator lint_on UNUSEDSIGNAL */

assign alloc_valid = fresh_left || fl_valid;
assign alloc_chunk = fresh_left ? fresh[CHUNK_W-1:0] : fl_data;

tsnic_fifo #(.WIDTH(CHUNK_W), .ADDR_W(CHUNK_W)) free_fifo (
    .clk(clk), .rst(rst),
    .s_valid(free_en), .s_ready(fl_s_ready), .s_data(free_chunk),
    .m_valid(fl_valid), .m_ready(alloc_en && !fresh_left), .m_data(fl_data),
    .count(fl_count)
);

always @(posedge clk) begin
    if (alloc_en && fresh_left) fresh <= fresh + 1'b1;
    if (rst) fresh <= {(CHUNK_W+1){1'b0}};
end

// ------------------------------------------------------------------------------------------------
// per chunk: fill level, link (flip-flops: read asynchronously by the read port)

reg [WW:0]          fill [0:NCH-1];
reg [CHUNK_W-1:0]   nxt [0:NCH-1];
reg [NCH-1:0]       nxt_ok = {NCH{1'b0}};

integer i;
initial begin
    for (i = 0; i < NCH; i = i + 1) begin
        fill[i] = {(WW+1){1'b0}};
        nxt[i] = {CHUNK_W{1'b0}};
    end
end

always @(posedge clk) begin
    if (wr_en) fill[wr_chunk] <= {1'b0, wr_word} + 1'b1;
    if (alloc_en) fill[alloc_chunk] <= {(WW+1){1'b0}};
    if (alloc_en && alloc_link) nxt[alloc_prev] <= alloc_chunk;
end

always @(posedge clk) begin
    if (alloc_en) nxt_ok[alloc_chunk] <= 1'b0;
    if (alloc_en && alloc_link) nxt_ok[alloc_prev] <= 1'b1;
    if (rst) nxt_ok <= {NCH{1'b0}};
end

// ------------------------------------------------------------------------------------------------
// data RAM, and the read port

wire [DATA_W-1:0]   ram_q;
reg                 rd_fire;
reg [CHUNK_W+WW-1:0] rd_addr;

tsnic_ram_sdp #(.WIDTH(DATA_W), .ADDR_W(CHUNK_W + WW)) data_ram (
    .clk(clk), .wr_en(wr_en), .wr_addr({wr_chunk, wr_word}), .wr_data(wr_data),
    .rd_en(rd_fire), .rd_addr(rd_addr), .rd_data(ram_q)
);

reg                 rp_busy = 1'b0;
reg [CHUNK_W-1:0]   rp_chunk = {CHUNK_W{1'b0}};
reg [WW-1:0]        rp_word = {WW{1'b0}};
reg [6:0]           rp_hops = 7'd0;        // links to follow before the next word
reg [BEATS_W-1:0]   rp_left = {BEATS_W{1'b0}};
reg                 q_valid = 1'b0;        // a word read last cycle: ram_q this cycle
reg                 q_last = 1'b0;

// output FIFO (5 words): a word is read only while the words held plus the one in the RAM's
// register leave room, so the FIFO never refuses one (of_s_ready is then always 1)
/* verilator lint_off UNUSEDSIGNAL */
wire                of_s_ready;
/* verilator lint_on UNUSEDSIGNAL */
wire [3:0]          of_count;
wire                room = (of_count + {3'b000, q_valid}) <= 4'd3;

assign s_ar_ready = !rp_busy;

wire                cur_filled = (fill[rp_chunk] > {1'b0, rp_word});
wire                cur_link = nxt_ok[rp_chunk];
wire [CHUNK_W-1:0]  cur_next = nxt[rp_chunk];

always @* begin
    rd_fire = rp_busy && rp_hops == 7'd0 && room && cur_filled;
    rd_addr = {rp_chunk, rp_word};
end

always @(posedge clk) begin
    q_valid <= rd_fire;
    q_last <= rd_fire && rp_left == {{(BEATS_W-1){1'b0}}, 1'b1};
    if (!rp_busy) begin
        if (s_ar_valid) begin
            rp_busy <= 1'b1;
            rp_chunk <= s_ar_chunk;
            rp_word <= s_ar_off[BW +: WW];
            rp_hops <= s_ar_off[15:9];
            rp_left <= s_ar_beats;
        end
    end else if (rp_hops != 7'd0) begin
        if (cur_link) begin
            rp_chunk <= cur_next;
            rp_hops <= rp_hops - 1'b1;
        end
    end else if (rd_fire) begin
        rp_left <= rp_left - 1'b1;
        if (rp_left == {{(BEATS_W-1){1'b0}}, 1'b1}) rp_busy <= 1'b0;
        rp_word <= rp_word + 1'b1;
        if (rp_word == WPC[WW-1:0] - 1'b1) begin
            // the chunk's last word: on to the next chunk now if linked, else after the link
            if (cur_link) rp_chunk <= cur_next;
            else rp_hops <= 7'd1;
        end
    end
    if (rst) begin
        rp_busy <= 1'b0;
        q_valid <= 1'b0;
    end
end

tsnic_fifo #(.WIDTH(DATA_W + 1), .ADDR_W(2)) out_fifo (
    .clk(clk), .rst(rst),
    .s_valid(q_valid), .s_ready(of_s_ready), .s_data({q_last, ram_q}),
    .m_valid(m_r_valid), .m_ready(m_r_ready), .m_data({m_r_last, m_r_data}),
    .count(of_count)
);

endmodule

`resetall
