// tsnic_axi_wr_arb: two AXI4 write masters onto one.
//
// A source is granted a whole burst: its AW and all its W beats (up to WLAST) pass through before the
// next grant, so W beats stay in AW order without a W-routing FIFO. Grants alternate (round robin)
// when both sources wait, so neither can starve the other: each waits at most one burst of the other.
// No idle cycle between grants: while no burst is granted the pick (round robin over the sources
// whose AWVALID is up) is passed through combinationally, so a burst can start in the cycle its
// source raises AWVALID (a single-beat burst, AW and W together, completes in that cycle); the grant
// register then holds the source until its AW and WLAST have been taken. The master-side ID is {source, s_awid}; B is routed by its MSB, with the MSB
// stripped. AW and W of the granted source may handshake in either order.
`resetall
`timescale 1ns / 1ps
`default_nettype none

module tsnic_axi_wr_arb #(
    parameter DATA_W = 64,
    parameter ADDR_W = 64,
    parameter S_ID_W = 7,
    parameter M_ID_W = S_ID_W + 1
) (
    input  wire                clk,
    input  wire                rst,

    input  wire [S_ID_W-1:0]   s0_axi_awid,
    input  wire [ADDR_W-1:0]   s0_axi_awaddr,
    input  wire [7:0]          s0_axi_awlen,
    input  wire [2:0]          s0_axi_awsize,
    input  wire [1:0]          s0_axi_awburst,
    input  wire                s0_axi_awlock,
    input  wire [3:0]          s0_axi_awcache,
    input  wire [2:0]          s0_axi_awprot,
    input  wire                s0_axi_awvalid,
    output wire                s0_axi_awready,
    input  wire [DATA_W-1:0]   s0_axi_wdata,
    input  wire [DATA_W/8-1:0] s0_axi_wstrb,
    input  wire                s0_axi_wlast,
    input  wire                s0_axi_wvalid,
    output wire                s0_axi_wready,
    output wire [S_ID_W-1:0]   s0_axi_bid,
    output wire [1:0]          s0_axi_bresp,
    output wire                s0_axi_bvalid,
    input  wire                s0_axi_bready,

    input  wire [S_ID_W-1:0]   s1_axi_awid,
    input  wire [ADDR_W-1:0]   s1_axi_awaddr,
    input  wire [7:0]          s1_axi_awlen,
    input  wire [2:0]          s1_axi_awsize,
    input  wire [1:0]          s1_axi_awburst,
    input  wire                s1_axi_awlock,
    input  wire [3:0]          s1_axi_awcache,
    input  wire [2:0]          s1_axi_awprot,
    input  wire                s1_axi_awvalid,
    output wire                s1_axi_awready,
    input  wire [DATA_W-1:0]   s1_axi_wdata,
    input  wire [DATA_W/8-1:0] s1_axi_wstrb,
    input  wire                s1_axi_wlast,
    input  wire                s1_axi_wvalid,
    output wire                s1_axi_wready,
    output wire [S_ID_W-1:0]   s1_axi_bid,
    output wire [1:0]          s1_axi_bresp,
    output wire                s1_axi_bvalid,
    input  wire                s1_axi_bready,

    output wire [M_ID_W-1:0]   m_axi_awid,
    output wire [ADDR_W-1:0]   m_axi_awaddr,
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
    input  wire [M_ID_W-1:0]   m_axi_bid,
    input  wire [1:0]          m_axi_bresp,
    input  wire                m_axi_bvalid,
    output wire                m_axi_bready,

    output wire                busy
);

reg active_reg = 1'b0;   // a burst is granted
reg sel_reg = 1'b0;      // the granted source
reg last_reg = 1'b1;     // source granted last
reg aw_done_reg = 1'b0;  // the granted burst's AW has been taken
reg w_done_reg = 1'b0;   // its WLAST has been taken

// next grant: s1 when only s1 waits, or both wait and s0 went last
wire want0 = s0_axi_awvalid;
wire want1 = s1_axi_awvalid;
wire pick1 = want1 && (!want0 || !last_reg);

// the source served this cycle: the held grant, or the pick when nothing is held
wire act    = active_reg || want0 || want1;
wire sel    = active_reg ? sel_reg : pick1;
wire aw_dn  = active_reg && aw_done_reg;
wire w_dn   = active_reg && w_done_reg;
wire g0 = act && !sel;
wire g1 = act && sel;

assign m_axi_awid    = sel ? {1'b1, s1_axi_awid} : {1'b0, s0_axi_awid};
assign m_axi_awaddr  = sel ? s1_axi_awaddr  : s0_axi_awaddr;
assign m_axi_awlen   = sel ? s1_axi_awlen   : s0_axi_awlen;
assign m_axi_awsize  = sel ? s1_axi_awsize  : s0_axi_awsize;
assign m_axi_awburst = sel ? s1_axi_awburst : s0_axi_awburst;
assign m_axi_awlock  = sel ? s1_axi_awlock  : s0_axi_awlock;
assign m_axi_awcache = sel ? s1_axi_awcache : s0_axi_awcache;
assign m_axi_awprot  = sel ? s1_axi_awprot  : s0_axi_awprot;
assign m_axi_awvalid = act && !aw_dn && (sel ? s1_axi_awvalid : s0_axi_awvalid);
assign m_axi_wdata   = sel ? s1_axi_wdata : s0_axi_wdata;
assign m_axi_wstrb   = sel ? s1_axi_wstrb : s0_axi_wstrb;
assign m_axi_wlast   = sel ? s1_axi_wlast : s0_axi_wlast;
assign m_axi_wvalid  = act && !w_dn && (sel ? s1_axi_wvalid : s0_axi_wvalid);

assign s0_axi_awready = g0 && !aw_dn && m_axi_awready;
assign s1_axi_awready = g1 && !aw_dn && m_axi_awready;
assign s0_axi_wready  = g0 && !w_dn && m_axi_wready;
assign s1_axi_wready  = g1 && !w_dn && m_axi_wready;

wire aw_fire = m_axi_awvalid && m_axi_awready;
wire wl_fire = m_axi_wvalid && m_axi_wready && m_axi_wlast;
wire aw_end  = aw_dn || aw_fire;
wire w_end   = w_dn || wl_fire;

always @(posedge clk) begin
    if (!active_reg) begin
        if (want0 || want1) begin
            // the picked burst started this cycle; hold the grant unless it also ended
            last_reg <= pick1;
            sel_reg <= pick1;
            active_reg <= !(aw_fire && wl_fire);
            aw_done_reg <= aw_fire;
            w_done_reg <= wl_fire;
        end
    end else begin
        if (aw_fire) aw_done_reg <= 1'b1;
        if (wl_fire) w_done_reg <= 1'b1;
        if (aw_end && w_end) active_reg <= 1'b0;
    end
    if (rst) begin
        active_reg <= 1'b0;
        sel_reg <= 1'b0;
        last_reg <= 1'b1;
        aw_done_reg <= 1'b0;
        w_done_reg <= 1'b0;
    end
end

// B: route by the ID's MSB
wire b_to1 = m_axi_bid[M_ID_W-1];
assign s0_axi_bid    = m_axi_bid[S_ID_W-1:0];
assign s0_axi_bresp  = m_axi_bresp;
assign s0_axi_bvalid = m_axi_bvalid && !b_to1;
assign s1_axi_bid    = m_axi_bid[S_ID_W-1:0];
assign s1_axi_bresp  = m_axi_bresp;
assign s1_axi_bvalid = m_axi_bvalid && b_to1;
assign m_axi_bready  = b_to1 ? s1_axi_bready : s0_axi_bready;

assign busy = active_reg || s0_axi_awvalid || s1_axi_awvalid || s0_axi_wvalid || s1_axi_wvalid;

endmodule

`resetall
