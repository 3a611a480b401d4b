// tsnic_axi_rd_arb: two AXI4 read masters onto one.
//
// AR: round robin between s0 and s1 through one register stage (m_axi_ar* are registered and stay
// stable while m_axi_arvalid waits for m_axi_arready). The master-side ID is {source, s_arid}:
// its MSB says which source issued the read. R: each beat is routed combinationally by the MSB of
// m_axi_rid to that source, with the MSB stripped; m_axi_rready is that source's rready.
// Interleaved R beats of different IDs are routed beat by beat, so no ordering is assumed.
`resetall
`timescale 1ns / 1ps
`default_nettype none

module tsnic_axi_rd_arb #(
    parameter DATA_W = 64,
    parameter ADDR_W = 64,
    parameter S_ID_W = 7,
    parameter M_ID_W = S_ID_W + 1
) (
    input  wire              clk,
    input  wire              rst,

    input  wire [S_ID_W-1:0] s0_axi_arid,
    input  wire [ADDR_W-1:0] s0_axi_araddr,
    input  wire [7:0]        s0_axi_arlen,
    input  wire [2:0]        s0_axi_arsize,
    input  wire [1:0]        s0_axi_arburst,
    input  wire              s0_axi_arlock,
    input  wire [3:0]        s0_axi_arcache,
    input  wire [2:0]        s0_axi_arprot,
    input  wire              s0_axi_arvalid,
    output wire              s0_axi_arready,
    output wire [S_ID_W-1:0] s0_axi_rid,
    output wire [DATA_W-1:0] s0_axi_rdata,
    output wire [1:0]        s0_axi_rresp,
    output wire              s0_axi_rlast,
    output wire              s0_axi_rvalid,
    input  wire              s0_axi_rready,

    input  wire [S_ID_W-1:0] s1_axi_arid,
    input  wire [ADDR_W-1:0] s1_axi_araddr,
    input  wire [7:0]        s1_axi_arlen,
    input  wire [2:0]        s1_axi_arsize,
    input  wire [1:0]        s1_axi_arburst,
    input  wire              s1_axi_arlock,
    input  wire [3:0]        s1_axi_arcache,
    input  wire [2:0]        s1_axi_arprot,
    input  wire              s1_axi_arvalid,
    output wire              s1_axi_arready,
    output wire [S_ID_W-1:0] s1_axi_rid,
    output wire [DATA_W-1:0] s1_axi_rdata,
    output wire [1:0]        s1_axi_rresp,
    output wire              s1_axi_rlast,
    output wire              s1_axi_rvalid,
    input  wire              s1_axi_rready,

    output wire [M_ID_W-1:0] m_axi_arid,
    output wire [ADDR_W-1:0] m_axi_araddr,
    output wire [7:0]        m_axi_arlen,
    output wire [2:0]        m_axi_arsize,
    output wire [1:0]        m_axi_arburst,
    output wire              m_axi_arlock,
    output wire [3:0]        m_axi_arcache,
    output wire [2:0]        m_axi_arprot,
    output wire              m_axi_arvalid,
    input  wire              m_axi_arready,
    input  wire [M_ID_W-1:0] m_axi_rid,
    input  wire [DATA_W-1:0] m_axi_rdata,
    input  wire [1:0]        m_axi_rresp,
    input  wire              m_axi_rlast,
    input  wire              m_axi_rvalid,
    output wire              m_axi_rready
);

// ---------------------------------------------------------------------------------------------
// AR: round robin into one holding register
reg              ar_valid_reg = 1'b0;
reg [M_ID_W-1:0] ar_id_reg = 0;
reg [ADDR_W-1:0] ar_addr_reg = 0;
reg [7:0]        ar_len_reg = 8'd0;
reg [2:0]        ar_size_reg = 3'd0;
reg [1:0]        ar_burst_reg = 2'd0;
reg              ar_lock_reg = 1'b0;
reg [3:0]        ar_cache_reg = 4'd0;
reg [2:0]        ar_prot_reg = 3'd0;
reg              last_reg = 1'b1;      // source granted last

wire load = !ar_valid_reg || m_axi_arready;
// s1 when only s1 wants, or both want and s0 went last
wire sel = s1_axi_arvalid && (!s0_axi_arvalid || !last_reg);
wire take = load && (s0_axi_arvalid || s1_axi_arvalid);

assign s0_axi_arready = take && !sel;
assign s1_axi_arready = take && sel;

assign m_axi_arid    = ar_id_reg;
assign m_axi_araddr  = ar_addr_reg;
assign m_axi_arlen   = ar_len_reg;
assign m_axi_arsize  = ar_size_reg;
assign m_axi_arburst = ar_burst_reg;
assign m_axi_arlock  = ar_lock_reg;
assign m_axi_arcache = ar_cache_reg;
assign m_axi_arprot  = ar_prot_reg;
assign m_axi_arvalid = ar_valid_reg;

always @(posedge clk) begin
    if (load) begin
        ar_valid_reg <= take;
        if (take) begin
            last_reg <= sel;
            ar_id_reg    <= sel ? {1'b1, s1_axi_arid} : {1'b0, s0_axi_arid};
            ar_addr_reg  <= sel ? s1_axi_araddr  : s0_axi_araddr;
            ar_len_reg   <= sel ? s1_axi_arlen   : s0_axi_arlen;
            ar_size_reg  <= sel ? s1_axi_arsize  : s0_axi_arsize;
            ar_burst_reg <= sel ? s1_axi_arburst : s0_axi_arburst;
            ar_lock_reg  <= sel ? s1_axi_arlock  : s0_axi_arlock;
            ar_cache_reg <= sel ? s1_axi_arcache : s0_axi_arcache;
            ar_prot_reg  <= sel ? s1_axi_arprot  : s0_axi_arprot;
        end
    end
    if (rst) begin
        ar_valid_reg <= 1'b0;
        last_reg <= 1'b1;
    end
end

// ---------------------------------------------------------------------------------------------
// R: route by the ID's MSB
wire r_to1 = m_axi_rid[M_ID_W-1];

assign s0_axi_rid    = m_axi_rid[S_ID_W-1:0];
assign s0_axi_rdata  = m_axi_rdata;
assign s0_axi_rresp  = m_axi_rresp;
assign s0_axi_rlast  = m_axi_rlast;
assign s0_axi_rvalid = m_axi_rvalid && !r_to1;
assign s1_axi_rid    = m_axi_rid[S_ID_W-1:0];
assign s1_axi_rdata  = m_axi_rdata;
assign s1_axi_rresp  = m_axi_rresp;
assign s1_axi_rlast  = m_axi_rlast;
assign s1_axi_rvalid = m_axi_rvalid && r_to1;
assign m_axi_rready  = r_to1 ? s1_axi_rready : s0_axi_rready;

endmodule

`resetall
