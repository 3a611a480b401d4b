// tsnic_pk_rdmux: the ordered read mux of the packed transmit format (issue 32 item 2; docs/DATAPATH.md
// "Packed transmit format", transmit side). Sits between tsnic_tx_prefetch's AXI4 read master and
// the host read path: reads with araddr[63] set go to the packed buffer's read port (tsnic_pk_buf
// s_ar_*: chunk = araddr[16 +: CHUNK_W], byte offset = araddr[15:0], beats = arlen + 1), the others
// to the host, unchanged. R beats come back to the prefetch in AR order, whatever the targets: a FIFO
// of 2^ORD_LOG2 targets (and IDs) says whose beats are next; the other side waits (its rready, or
// the buffer's m_r_ready, low). With no on-card read outstanding the host path is a pass-through.
// Rule for the user: an on-card read must not wait for bytes that come over the same host R channel
// (tsnic_pk_parse emits a frame only once it is whole in the buffer), or the held host beats would
// block them.
`resetall
`timescale 1ns / 1ps
`default_nettype none

module tsnic_pk_rdmux #(
    parameter DATA_W   = 512,
    parameter AXI_ID_W = 8,
    parameter CHUNK_W  = 8,
    parameter ORD_LOG2 = 5         // reads outstanding: up to 2^ORD_LOG2
) (
    input  wire                 clk,
    input  wire                 rst,

    // from tsnic_tx_prefetch (AXI4 read slave)
    input  wire [AXI_ID_W-1:0]  s_axi_arid,
    input  wire [63:0]          s_axi_araddr,
    input  wire [7:0]           s_axi_arlen,
    input  wire [2:0]           s_axi_arsize,
    input  wire [1:0]           s_axi_arburst,
    input  wire                 s_axi_arlock,
    input  wire [3:0]           s_axi_arcache,
    input  wire [2:0]           s_axi_arprot,
    input  wire                 s_axi_arvalid,
    output wire                 s_axi_arready,
    output wire [AXI_ID_W-1:0]  s_axi_rid,
    output wire [DATA_W-1:0]    s_axi_rdata,
    output wire [1:0]           s_axi_rresp,
    output wire                 s_axi_rlast,
    output wire                 s_axi_rvalid,
    input  wire                 s_axi_rready,

    // to the host (AXI4 read master)
    output wire [AXI_ID_W-1:0]  m_axi_arid,
    output wire [63:0]          m_axi_araddr,
    output wire [7:0]           m_axi_arlen,
    output wire [2:0]           m_axi_arsize,
    output wire [1:0]           m_axi_arburst,
    output wire                 m_axi_arlock,
    output wire [3:0]           m_axi_arcache,
    output wire [2:0]           m_axi_arprot,
    output wire                 m_axi_arvalid,
    input  wire                 m_axi_arready,
    input  wire [AXI_ID_W-1:0]  m_axi_rid,
    input  wire [DATA_W-1:0]    m_axi_rdata,
    input  wire [1:0]           m_axi_rresp,
    input  wire                 m_axi_rlast,
    input  wire                 m_axi_rvalid,
    output wire                 m_axi_rready,

    // to tsnic_pk_buf's read port
    output wire                 m_pk_ar_valid,
    input  wire                 m_pk_ar_ready,
    output wire [CHUNK_W-1:0]   m_pk_ar_chunk,
    output wire [15:0]          m_pk_ar_off,
    output wire [8:0]           m_pk_ar_beats,
    input  wire                 s_pk_r_valid,
    output wire                 s_pk_r_ready,
    input  wire [DATA_W-1:0]    s_pk_r_data,
    input  wire                 s_pk_r_last
);

generate
    if (CHUNK_W < 1 || CHUNK_W > 47) begin : g_bad_c
        tsnic_param_error_pk_rdmux_CHUNK_W_out_of_range param_error_inst ();
    end
    if (ORD_LOG2 < 1 || ORD_LOG2 > 8) begin : g_bad_o
        tsnic_param_error_pk_rdmux_ORD_LOG2_must_be_1_to_8 param_error_inst ();
    end
endgenerate

// order FIFO: target (1 = on-card) and ID of each read accepted, in order
reg [AXI_ID_W:0]    ord [0:(1<<ORD_LOG2)-1];
reg [ORD_LOG2:0]    ord_wr = {(ORD_LOG2+1){1'b0}};
reg [ORD_LOG2:0]    ord_rd = {(ORD_LOG2+1){1'b0}};
wire [ORD_LOG2:0]   ord_count = ord_wr - ord_rd;
reg                 ord_room = 1'b1;       // registered: count < 2^ORD_LOG2 - 1 after this cycle
wire                ord_any = (ord_count != {(ORD_LOG2+1){1'b0}});
wire [AXI_ID_W:0]   head = ord[ord_rd[ORD_LOG2-1:0]];
wire                head_local = head[AXI_ID_W];

integer i;
initial begin
    for (i = 0; i < (1 << ORD_LOG2); i = i + 1) ord[i] = {(AXI_ID_W+1){1'b0}};
end

wire local_ar = s_axi_araddr[63];

assign m_axi_arid    = s_axi_arid;
assign m_axi_araddr  = s_axi_araddr;
assign m_axi_arlen   = s_axi_arlen;
assign m_axi_arsize  = s_axi_arsize;
assign m_axi_arburst = s_axi_arburst;
assign m_axi_arlock  = s_axi_arlock;
assign m_axi_arcache = s_axi_arcache;
assign m_axi_arprot  = s_axi_arprot;
assign m_axi_arvalid = s_axi_arvalid && !local_ar && ord_room;

assign m_pk_ar_valid = s_axi_arvalid && local_ar && ord_room;
assign m_pk_ar_chunk = s_axi_araddr[16 +: CHUNK_W];
assign m_pk_ar_off   = s_axi_araddr[15:0];
assign m_pk_ar_beats = {1'b0, s_axi_arlen} + 9'd1;

assign s_axi_arready = ord_room && (local_ar ? m_pk_ar_ready : m_axi_arready);
wire ar_fire = s_axi_arvalid && s_axi_arready;

// R: the head's side through, the other side held
assign s_axi_rvalid  = ord_any && (head_local ? s_pk_r_valid : m_axi_rvalid);
assign s_axi_rdata   = head_local ? s_pk_r_data : m_axi_rdata;
assign s_axi_rlast   = head_local ? s_pk_r_last : m_axi_rlast;
assign s_axi_rresp   = head_local ? 2'b00 : m_axi_rresp;
assign s_axi_rid     = head_local ? head[AXI_ID_W-1:0] : m_axi_rid;
assign m_axi_rready  = ord_any && !head_local && s_axi_rready;
assign s_pk_r_ready  = ord_any && head_local && s_axi_rready;
wire r_done = s_axi_rvalid && s_axi_rready && s_axi_rlast;

always @(posedge clk) begin
    if (ar_fire) begin
        ord[ord_wr[ORD_LOG2-1:0]] <= {local_ar, s_axi_arid};
    end
    ord_wr <= ord_wr + {{ORD_LOG2{1'b0}}, ar_fire};
    ord_rd <= ord_rd + {{ORD_LOG2{1'b0}}, r_done};
    // room for one more after this cycle's push (a pop frees a slot a cycle late: conservative)
    ord_room <= (ord_count + {{ORD_LOG2{1'b0}}, ar_fire}) < ((1 << ORD_LOG2) - 1);
    if (rst) begin
        ord_wr <= {(ORD_LOG2+1){1'b0}};
        ord_rd <= {(ORD_LOG2+1){1'b0}};
        ord_room <= 1'b1;
    end
end

endmodule

`resetall
