// Test wrapper for the tsnic_tx_prefetch bench: tsnic_tx_prefetch + tsnic_launch_gate, with
//  - a behavioural descriptor table (written by the bench through tb_dt_wr_*, read by the prefetch
//    with the registered one-cycle read documented in docs/DATAPATH.md),
//  - a PHC: 16.16 fixed-point ns accumulator, increment PHC_INC_FX per cycle, start PHC_START,
//  - a host-read latency line on AR: each AR handshake from the prefetch reaches the host-memory
//    model (cocotbext-axi AxiRamRead on host_axi_*) rd_lat_cycles cycles later; many reads can be
//    in the line at once (pipelined, like a PCIe round trip),
//  - the 4 ns clock (250 MHz simulated time; the PHC increment sets the PHC rate): generated here
//    rather than by a cocotb Clock, which would cost two Python timer wake-ups per cycle.
// Test-only; not part of hdl/.
`resetall
`timescale 1ns / 1ps
`default_nettype none

module tb_tsnic_tx_path #(
    parameter DATA_W     = 64,
    parameter NODE_W     = 8,
    parameter QUEUE_W    = 3,
    parameter AXI_ID_W   = 4,
    parameter BUF_BYTES  = 32768,
    parameter SLOT_W     = 5,
    parameter AXI_MAX_BURST = 256,
    parameter PHC_START  = 64'd1000000,
    parameter PHC_INC_FX = 32'h0004_0000,
    parameter LAT_LOG2   = 7
) (
    output reg                  clk,
    input  wire                 rst,

    output wire [63:0]          phc_ns,
    input  wire [31:0]          tx_lat_comp_ns,
    input  wire                 flush,
    input  wire [15:0]          rd_lat_cycles,

    // descriptor table write (bench)
    input  wire                 tb_dt_wr_en,
    input  wire [NODE_W-1:0]    tb_dt_wr_handle,
    input  wire [63:0]          tb_dt_wr_addr,
    input  wire [15:0]          tb_dt_wr_len,
    input  wire [31:0]          tb_dt_wr_cookie,
    input  wire [63:0]          tb_dt_wr_launch_ns,
    input  wire [15:0]          tb_dt_wr_ring_index,
    input  wire [QUEUE_W-1:0]   tb_dt_wr_queue,

    // calendar release
    input  wire                 s_rel_valid,
    output wire                 s_rel_ready,
    input  wire [QUEUE_W-1:0]   s_rel_queue,
    input  wire [NODE_W-1:0]    s_rel_handle,
    input  wire [63:0]          s_rel_launch_ns,
    input  wire [7:0]           s_rel_status,
    input  wire                 s_rel_capped,

    // host memory model side (AxiRamRead)
    output wire [AXI_ID_W-1:0]  host_axi_arid,
    output wire [63:0]          host_axi_araddr,
    output wire [7:0]           host_axi_arlen,
    output wire [2:0]           host_axi_arsize,
    output wire [1:0]           host_axi_arburst,
    output wire                 host_axi_arvalid,
    input  wire                 host_axi_arready,
    input  wire [AXI_ID_W-1:0]  host_axi_rid,
    input  wire [DATA_W-1:0]    host_axi_rdata,
    input  wire [1:0]           host_axi_rresp,
    input  wire                 host_axi_rlast,
    input  wire                 host_axi_rvalid,
    output wire                 host_axi_rready,

    // prefetch AR (observed by the bench)
    output wire                 pf_arvalid,
    output wire                 pf_arready,
    output wire [7:0]           pf_arlen,
    output wire [63:0]          pf_araddr,

    // MAC
    output wire [DATA_W-1:0]    m_axis_tx_tdata,
    output wire [DATA_W/8-1:0]  m_axis_tx_tkeep,
    output wire                 m_axis_tx_tvalid,
    input  wire                 m_axis_tx_tready,
    output wire                 m_axis_tx_tlast,

    // completion requests: non-wire (prefetch) and wire (gate)
    output wire                 nw_cpl_valid,
    input  wire                 nw_cpl_ready,
    output wire [QUEUE_W-1:0]   nw_cpl_queue,
    output wire [15:0]          nw_cpl_ring_index,
    output wire [31:0]          nw_cpl_cookie,
    output wire [63:0]          nw_cpl_launch_ns,
    output wire [63:0]          nw_cpl_depart_ns,
    output wire [15:0]          nw_cpl_len,
    output wire [7:0]           nw_cpl_status,
    output wire [7:0]           nw_cpl_reason,
    output wire                 nw_cpl_capped,
    output wire [NODE_W-1:0]    nw_cpl_handle,
    output wire                 nw_cpl_handle_valid,

    output wire                 tx_cpl_valid,
    input  wire                 tx_cpl_ready,
    output wire [QUEUE_W-1:0]   tx_cpl_queue,
    output wire [15:0]          tx_cpl_ring_index,
    output wire [31:0]          tx_cpl_cookie,
    output wire [63:0]          tx_cpl_launch_ns,
    output wire [63:0]          tx_cpl_depart_ns,
    output wire [15:0]          tx_cpl_len,
    output wire [7:0]           tx_cpl_status,
    output wire [7:0]           tx_cpl_reason,
    output wire                 tx_cpl_capped,
    output wire [NODE_W-1:0]    tx_cpl_handle,
    output wire                 tx_cpl_handle_valid
);

initial clk = 1'b0;
always #2 clk = ~clk;

// PHC
reg [79:0] phc_fx = {PHC_START, 16'd0};
assign phc_ns = phc_fx[79:16];
always @(posedge clk) begin
    phc_fx <= phc_fx + {48'd0, PHC_INC_FX};
end

// descriptor table (behavioural; same read timing as tsnic_desc_table)
reg [63:0]        t_addr [0:(1<<NODE_W)-1];
reg [15:0]        t_len [0:(1<<NODE_W)-1];
reg [31:0]        t_cookie [0:(1<<NODE_W)-1];
reg [63:0]        t_launch [0:(1<<NODE_W)-1];
reg [15:0]        t_ring [0:(1<<NODE_W)-1];
reg [QUEUE_W-1:0] t_queue [0:(1<<NODE_W)-1];

wire              dt_rd_en;
wire [NODE_W-1:0] dt_rd_handle;
reg [63:0]        dt_rd_addr = 0;
reg [15:0]        dt_rd_len = 0;
reg [31:0]        dt_rd_cookie = 0;
reg [63:0]        dt_rd_launch_ns = 0;
reg [15:0]        dt_rd_ring_index = 0;
reg [QUEUE_W-1:0] dt_rd_queue = 0;

always @(posedge clk) begin
    if (tb_dt_wr_en) begin
        t_addr[tb_dt_wr_handle]   <= tb_dt_wr_addr;
        t_len[tb_dt_wr_handle]    <= tb_dt_wr_len;
        t_cookie[tb_dt_wr_handle] <= tb_dt_wr_cookie;
        t_launch[tb_dt_wr_handle] <= tb_dt_wr_launch_ns;
        t_ring[tb_dt_wr_handle]   <= tb_dt_wr_ring_index;
        t_queue[tb_dt_wr_handle]  <= tb_dt_wr_queue;
    end
    if (dt_rd_en) begin
        dt_rd_addr       <= t_addr[dt_rd_handle];
        dt_rd_len        <= t_len[dt_rd_handle];
        dt_rd_cookie     <= t_cookie[dt_rd_handle];
        dt_rd_launch_ns  <= t_launch[dt_rd_handle];
        dt_rd_ring_index <= t_ring[dt_rd_handle];
        dt_rd_queue      <= t_queue[dt_rd_handle];
    end else begin
        // outputs are only promised for the cycle after a read: scramble them otherwise
        dt_rd_addr <= 64'hDEAD_BEEF_DEAD_BEEF;
        dt_rd_len  <= 16'hFFFF;
    end
end

// AR latency line
localparam LD = 1 << LAT_LOG2;
reg [AXI_ID_W+64+8+3+2+32-1:0] lat_mem [0:LD-1];
reg [LAT_LOG2:0] lat_wr = 0;
reg [LAT_LOG2:0] lat_rd = 0;
reg [31:0]       cycle = 0;
always @(posedge clk) cycle <= cycle + 1;

wire [AXI_ID_W-1:0] pf_arid;
wire [2:0]          pf_arsize;
wire [1:0]          pf_arburst;
wire                pf_arlock;
wire [3:0]          pf_arcache;
wire [2:0]          pf_arprot;

wire lat_full  = (lat_wr - lat_rd) == LD;
wire lat_empty = (lat_wr == lat_rd);
assign pf_arready = !lat_full;
wire [AXI_ID_W+64+8+3+2+32-1:0] lat_head = lat_mem[lat_rd[LAT_LOG2-1:0]];
wire [31:0] head_stamp = lat_head[31:0];
wire head_due = !lat_empty && ((cycle - head_stamp) >= {16'd0, rd_lat_cycles});
assign host_axi_arvalid = head_due;
assign {host_axi_arid, host_axi_araddr, host_axi_arlen, host_axi_arsize, host_axi_arburst} = lat_head[AXI_ID_W+64+8+3+2+32-1:32];

always @(posedge clk) begin
    if (pf_arvalid && pf_arready) begin
        lat_mem[lat_wr[LAT_LOG2-1:0]] <= {pf_arid, pf_araddr, pf_arlen, pf_arsize, pf_arburst, cycle};
        lat_wr <= lat_wr + 1;
    end
    if (host_axi_arvalid && host_axi_arready) begin
        lat_rd <= lat_rd + 1;
    end
    if (rst) begin
        lat_wr <= 0;
        lat_rd <= 0;
    end
end

wire [DATA_W-1:0]   pay_tdata;
wire [DATA_W/8-1:0] pay_tkeep;
wire pay_tlast, pay_tuser, pay_tvalid, pay_tready;
wire frm_valid, frm_ready, frm_late, frm_capped;
wire [63:0] frm_launch_ns, frm_req_launch_ns;
wire [QUEUE_W-1:0] frm_queue;
wire [15:0] frm_ring_index, frm_len;
wire [31:0] frm_cookie;
wire [NODE_W-1:0] frm_handle;

tsnic_tx_prefetch #(
    .DATA_W(DATA_W), .NODE_W(NODE_W), .QUEUE_W(QUEUE_W), .AXI_ID_W(AXI_ID_W),
    .AXI_ARID({1'b1, {(AXI_ID_W-1){1'b0}}}), .AXI_MAX_BURST(AXI_MAX_BURST),
    .BUF_BYTES(BUF_BYTES), .SLOT_W(SLOT_W)
) prefetch (
    .clk(clk), .rst(rst), .phc_ns(phc_ns),
    .s_rel_valid(s_rel_valid), .s_rel_ready(s_rel_ready), .s_rel_queue(s_rel_queue),
    .s_rel_handle(s_rel_handle), .s_rel_launch_ns(s_rel_launch_ns), .s_rel_status(s_rel_status),
    .s_rel_capped(s_rel_capped),
    .dt_rd_en(dt_rd_en), .dt_rd_handle(dt_rd_handle), .dt_rd_addr(dt_rd_addr), .dt_rd_len(dt_rd_len),
    .dt_rd_cookie(dt_rd_cookie), .dt_rd_launch_ns(dt_rd_launch_ns),
    .dt_rd_ring_index(dt_rd_ring_index), .dt_rd_queue(dt_rd_queue),
    .m_axi_arid(pf_arid), .m_axi_araddr(pf_araddr), .m_axi_arlen(pf_arlen), .m_axi_arsize(pf_arsize),
    .m_axi_arburst(pf_arburst), .m_axi_arlock(pf_arlock), .m_axi_arcache(pf_arcache),
    .m_axi_arprot(pf_arprot), .m_axi_arvalid(pf_arvalid), .m_axi_arready(pf_arready),
    .m_axi_rid(host_axi_rid), .m_axi_rdata(host_axi_rdata), .m_axi_rresp(host_axi_rresp),
    .m_axi_rlast(host_axi_rlast), .m_axi_rvalid(host_axi_rvalid), .m_axi_rready(host_axi_rready),
    .m_cpl_req_valid(nw_cpl_valid), .m_cpl_req_ready(nw_cpl_ready), .m_cpl_req_queue(nw_cpl_queue),
    .m_cpl_req_ring_index(nw_cpl_ring_index), .m_cpl_req_cookie(nw_cpl_cookie),
    .m_cpl_req_launch_ns(nw_cpl_launch_ns), .m_cpl_req_depart_ns(nw_cpl_depart_ns),
    .m_cpl_req_len(nw_cpl_len), .m_cpl_req_status(nw_cpl_status), .m_cpl_req_reason(nw_cpl_reason),
    .m_cpl_req_capped(nw_cpl_capped), .m_cpl_req_handle(nw_cpl_handle),
    .m_cpl_req_handle_valid(nw_cpl_handle_valid),
    .m_frm_valid(frm_valid), .m_frm_ready(frm_ready), .m_frm_launch_ns(frm_launch_ns),
    .m_frm_req_launch_ns(frm_req_launch_ns), .m_frm_late(frm_late), .m_frm_capped(frm_capped),
    .m_frm_queue(frm_queue), .m_frm_ring_index(frm_ring_index), .m_frm_cookie(frm_cookie),
    .m_frm_len(frm_len), .m_frm_handle(frm_handle),
    .m_axis_pay_tdata(pay_tdata), .m_axis_pay_tkeep(pay_tkeep), .m_axis_pay_tlast(pay_tlast), .m_axis_pay_tuser(pay_tuser),
    .m_axis_pay_tvalid(pay_tvalid), .m_axis_pay_tready(pay_tready)
);

tsnic_launch_gate #(
    .DATA_W(DATA_W), .NODE_W(NODE_W), .QUEUE_W(QUEUE_W)
) gate (
    .clk(clk), .rst(rst), .phc_ns(phc_ns), .tx_lat_comp_ns(tx_lat_comp_ns), .flush(flush),
    .s_frm_valid(frm_valid), .s_frm_ready(frm_ready), .s_frm_launch_ns(frm_launch_ns),
    .s_frm_req_launch_ns(frm_req_launch_ns), .s_frm_late(frm_late), .s_frm_capped(frm_capped),
    .s_frm_queue(frm_queue), .s_frm_ring_index(frm_ring_index), .s_frm_cookie(frm_cookie),
    .s_frm_len(frm_len), .s_frm_handle(frm_handle),
    .s_axis_pay_tdata(pay_tdata), .s_axis_pay_tkeep(pay_tkeep), .s_axis_pay_tlast(pay_tlast), .s_axis_pay_tuser(pay_tuser),
    .s_axis_pay_tvalid(pay_tvalid), .s_axis_pay_tready(pay_tready),
    .m_axis_tx_tdata(m_axis_tx_tdata), .m_axis_tx_tkeep(m_axis_tx_tkeep),
    .m_axis_tx_tlast(m_axis_tx_tlast), .m_axis_tx_tvalid(m_axis_tx_tvalid),
    .m_axis_tx_tready(m_axis_tx_tready),
    .s_mac_lag_valid(1'b0), .s_mac_lag_ns(16'd0),   // MAC_LAG = 0: the first beat is the departure
    .m_cpl_req_valid(tx_cpl_valid), .m_cpl_req_ready(tx_cpl_ready), .m_cpl_req_queue(tx_cpl_queue),
    .m_cpl_req_ring_index(tx_cpl_ring_index), .m_cpl_req_cookie(tx_cpl_cookie),
    .m_cpl_req_launch_ns(tx_cpl_launch_ns), .m_cpl_req_depart_ns(tx_cpl_depart_ns),
    .m_cpl_req_len(tx_cpl_len), .m_cpl_req_status(tx_cpl_status), .m_cpl_req_reason(tx_cpl_reason),
    .m_cpl_req_capped(tx_cpl_capped), .m_cpl_req_handle(tx_cpl_handle),
    .m_cpl_req_handle_valid(tx_cpl_handle_valid)
);

endmodule

`resetall
