// Test wrapper: tsnic_pk_rdmux with a real tsnic_pk_buf on its on-card side; the bench drives the
// prefetch side (s_axi_*), models the host (m_axi_*) and fills the buffer (alloc_*, wr_*).
`resetall
`timescale 1ns / 1ps
`default_nettype none

module tb_tsnic_pk_rdmux #(
    parameter DATA_W   = 64,
    parameter CHUNK_W  = 5,
    parameter AXI_ID_W = 4
) (
    input  wire                 clk,
    input  wire                 rst,
    input  wire [AXI_ID_W-1:0]  s_axi_arid,
    input  wire [63:0]          s_axi_araddr,
    input  wire [7:0]           s_axi_arlen,
    input  wire                 s_axi_arvalid,
    output wire                 s_axi_arready,
    output wire [AXI_ID_W-1:0]  s_axi_rid,
    output wire [DATA_W-1:0]    s_axi_rdata,
    output wire [1:0]           s_axi_rresp,
    output wire                 s_axi_rlast,
    output wire                 s_axi_rvalid,
    input  wire                 s_axi_rready,
    output wire [AXI_ID_W-1:0]  m_axi_arid,
    output wire [63:0]          m_axi_araddr,
    output wire [7:0]           m_axi_arlen,
    output wire                 m_axi_arvalid,
    input  wire                 m_axi_arready,
    input  wire [AXI_ID_W-1:0]  m_axi_rid,
    input  wire [DATA_W-1:0]    m_axi_rdata,
    input  wire [1:0]           m_axi_rresp,
    input  wire                 m_axi_rlast,
    input  wire                 m_axi_rvalid,
    output wire                 m_axi_rready,
    output wire                 alloc_valid,
    output wire [CHUNK_W-1:0]   alloc_chunk,
    input  wire                 alloc_en,
    input  wire                 alloc_link,
    input  wire [CHUNK_W-1:0]   alloc_prev,
    input  wire                 wr_en,
    input  wire [CHUNK_W-1:0]   wr_chunk,
    input  wire [$clog2(4096 / DATA_W)-1:0] wr_word,
    input  wire [DATA_W-1:0]    wr_data
);

wire               pk_ar_valid, pk_ar_ready, pk_r_valid, pk_r_ready, pk_r_last;
wire [CHUNK_W-1:0] pk_ar_chunk;
wire [15:0]        pk_ar_off;
wire [8:0]         pk_ar_beats;
wire [DATA_W-1:0]  pk_r_data;

/* verilator lint_off PINCONNECTEMPTY */
tsnic_pk_rdmux #(.DATA_W(DATA_W), .AXI_ID_W(AXI_ID_W), .CHUNK_W(CHUNK_W), .ORD_LOG2(3)) dut (
    .clk(clk), .rst(rst),
    .s_axi_arid(s_axi_arid), .s_axi_araddr(s_axi_araddr), .s_axi_arlen(s_axi_arlen),
    .s_axi_arsize(3'd0), .s_axi_arburst(2'b01), .s_axi_arlock(1'b0), .s_axi_arcache(4'b0011),
    .s_axi_arprot(3'b010), .s_axi_arvalid(s_axi_arvalid), .s_axi_arready(s_axi_arready),
    .s_axi_rid(s_axi_rid), .s_axi_rdata(s_axi_rdata), .s_axi_rresp(s_axi_rresp),
    .s_axi_rlast(s_axi_rlast), .s_axi_rvalid(s_axi_rvalid), .s_axi_rready(s_axi_rready),
    .m_axi_arid(m_axi_arid), .m_axi_araddr(m_axi_araddr), .m_axi_arlen(m_axi_arlen),
    .m_axi_arsize(), .m_axi_arburst(), .m_axi_arlock(), .m_axi_arcache(), .m_axi_arprot(),
    .m_axi_arvalid(m_axi_arvalid), .m_axi_arready(m_axi_arready),
    .m_axi_rid(m_axi_rid), .m_axi_rdata(m_axi_rdata), .m_axi_rresp(m_axi_rresp),
    .m_axi_rlast(m_axi_rlast), .m_axi_rvalid(m_axi_rvalid), .m_axi_rready(m_axi_rready),
    .m_pk_ar_valid(pk_ar_valid), .m_pk_ar_ready(pk_ar_ready), .m_pk_ar_chunk(pk_ar_chunk),
    .m_pk_ar_off(pk_ar_off), .m_pk_ar_beats(pk_ar_beats),
    .s_pk_r_valid(pk_r_valid), .s_pk_r_ready(pk_r_ready), .s_pk_r_data(pk_r_data),
    .s_pk_r_last(pk_r_last)
);
/* verilator lint_on PINCONNECTEMPTY */

tsnic_pk_buf #(.DATA_W(DATA_W), .CHUNK_W(CHUNK_W), .BEATS_W(9)) buf_inst (
    .clk(clk), .rst(rst),
    .alloc_valid(alloc_valid), .alloc_chunk(alloc_chunk), .alloc_en(alloc_en),
    .alloc_link(alloc_link), .alloc_prev(alloc_prev),
    .wr_en(wr_en), .wr_chunk(wr_chunk), .wr_word(wr_word), .wr_data(wr_data),
    .free_en(1'b0), .free_chunk({CHUNK_W{1'b0}}),
    .s_ar_valid(pk_ar_valid), .s_ar_ready(pk_ar_ready), .s_ar_chunk(pk_ar_chunk),
    .s_ar_off(pk_ar_off), .s_ar_beats(pk_ar_beats),
    .m_r_valid(pk_r_valid), .m_r_ready(pk_r_ready), .m_r_data(pk_r_data), .m_r_last(pk_r_last)
);

endmodule

`resetall
