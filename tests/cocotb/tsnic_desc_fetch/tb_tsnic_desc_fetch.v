// Bench wrapper: tsnic_desc_fetch + tsnic_desc_table, a free-running PHC (4 ns per cycle) and
// the table's read/free ports brought out so the bench can play tsnic_tx_prefetch/tsnic_cpl_write
// (and its per-completion events, evt_cpl_*).
// The 4 ns clock is generated here rather than by a cocotb Clock (two Python wake-ups per cycle).
`resetall
`timescale 1ns / 1ps
`default_nettype none

module tb_tsnic_desc_fetch #(
    parameter NUM_QUEUES     = 8,
    parameter QUEUE_W        = 3,
    parameter NODE_W         = 5,
    parameter AXI_DATA_W     = 64,
    parameter AXI_ID_W       = 4,
    parameter MAX_BURST_LOG2 = 3,
    parameter MAX_OUT_LOG2   = 2,
    parameter DESC_FIFO_LOG2 = 4,
    parameter MAX_FRAME_LEN  = 9600
) (
    output reg                   clk,
    input  wire                  rst,
    input  wire                  enable,
    output reg  [63:0]           phc_ns,
    output wire                  idle,

    input  wire [19:0]           reg_wr_addr,
    input  wire [31:0]           reg_wr_data,
    input  wire [3:0]            reg_wr_strb,
    input  wire                  reg_wr_en,
    output wire                  reg_wr_wait,
    output wire                  reg_wr_ack,
    input  wire [19:0]           reg_rd_addr,
    input  wire                  reg_rd_en,
    output wire [31:0]           reg_rd_data,
    output wire                  reg_rd_wait,
    output wire                  reg_rd_ack,

    output wire [AXI_ID_W-1:0]   m_axi_arid,
    output wire [63:0]           m_axi_araddr,
    output wire [7:0]            m_axi_arlen,
    output wire [2:0]            m_axi_arsize,
    output wire [1:0]            m_axi_arburst,
    output wire                  m_axi_arlock,
    output wire [3:0]            m_axi_arcache,
    output wire [2:0]            m_axi_arprot,
    output wire                  m_axi_arvalid,
    input  wire                  m_axi_arready,
    input  wire [AXI_ID_W-1:0]   m_axi_rid,
    input  wire [AXI_DATA_W-1:0] m_axi_rdata,
    input  wire [1:0]            m_axi_rresp,
    input  wire                  m_axi_rlast,
    input  wire                  m_axi_rvalid,
    output wire                  m_axi_rready,

    output wire                  m_ins_valid,
    input  wire                  m_ins_ready,
    output wire [QUEUE_W-1:0]    m_ins_queue,
    output wire [NODE_W-1:0]     m_ins_handle,
    output wire [63:0]           m_ins_launch_ns,
    output wire                  m_ins_late_policy,
    output wire                  m_ins_horizon_policy,

    output wire                  m_flush_valid,
    input  wire                  m_flush_ready,
    output wire [QUEUE_W-1:0]    m_flush_queue,
    input  wire                  flush_done,
    output wire                  cfg_quota_wr,
    output wire [QUEUE_W-1:0]    cfg_quota_queue,
    output wire [31:0]           cfg_quota_value,

    output wire                  m_cpl_req_valid,
    input  wire                  m_cpl_req_ready,
    output wire [QUEUE_W-1:0]    m_cpl_req_queue,
    output wire [15:0]           m_cpl_req_ring_index,
    output wire [31:0]           m_cpl_req_cookie,
    output wire [63:0]           m_cpl_req_launch_ns,
    output wire [63:0]           m_cpl_req_depart_ns,
    output wire [15:0]           m_cpl_req_len,
    output wire [7:0]            m_cpl_req_status,
    output wire [7:0]            m_cpl_req_reason,
    output wire                  m_cpl_req_capped,
    output wire [NODE_W-1:0]     m_cpl_req_handle,
    output wire                  m_cpl_req_handle_valid,
    output wire                  evt_posted,
    input  wire                  evt_cpl_valid,
    input  wire [QUEUE_W-1:0]    evt_cpl_queue,

    input  wire                  tbl_rd_en,
    input  wire [NODE_W-1:0]     tbl_rd_handle,
    output wire                  tbl_rd_valid,
    output wire [63:0]           tbl_rd_addr,
    output wire [15:0]           tbl_rd_len,
    output wire [31:0]           tbl_rd_cookie,
    output wire [63:0]           tbl_rd_launch_ns,
    output wire [15:0]           tbl_rd_ring_index,
    output wire [QUEUE_W-1:0]    tbl_rd_queue,
    input  wire                  tbl_free_valid,
    output wire                  tbl_free_ready,
    input  wire [NODE_W-1:0]     tbl_free_handle,
    output wire [NODE_W:0]       tbl_used_count
);

initial clk = 1'b0;
always #2 clk = ~clk;   // CLK_NS = 4 in the bench

always @(posedge clk) begin
    if (rst) phc_ns <= 64'd1000000;
    else     phc_ns <= phc_ns + 64'd4;
end

wire                tbl_alloc_valid;
wire [NODE_W-1:0]   tbl_alloc_handle;
wire                tbl_wr_en;
wire [63:0]         tbl_wr_addr;
wire [15:0]         tbl_wr_len;
wire [31:0]         tbl_wr_cookie;
wire [63:0]         tbl_wr_launch_ns;
wire [15:0]         tbl_wr_ring_index;
wire [QUEUE_W-1:0]  tbl_wr_queue;

tsnic_desc_fetch #(
    .NUM_QUEUES(NUM_QUEUES), .QUEUE_W(QUEUE_W), .NODE_W(NODE_W), .ADDR_W(20),
    .AXI_DATA_W(AXI_DATA_W), .AXI_ADDR_W(64), .AXI_ID_W(AXI_ID_W), .AXI_ID(1),
    .MAX_BURST_LOG2(MAX_BURST_LOG2), .MAX_OUT_LOG2(MAX_OUT_LOG2), .DESC_FIFO_LOG2(DESC_FIFO_LOG2),
    .RING_LOG2_MAX(16), .MAX_FRAME_LEN(MAX_FRAME_LEN)
) dut (
    .clk(clk), .rst(rst), .enable(enable), .phc_ns(phc_ns), .idle(idle),
    .reg_wr_addr(reg_wr_addr), .reg_wr_data(reg_wr_data), .reg_wr_strb(reg_wr_strb),
    .reg_wr_en(reg_wr_en), .reg_wr_wait(reg_wr_wait), .reg_wr_ack(reg_wr_ack),
    .reg_rd_addr(reg_rd_addr), .reg_rd_en(reg_rd_en), .reg_rd_data(reg_rd_data),
    .reg_rd_wait(reg_rd_wait), .reg_rd_ack(reg_rd_ack),
    .m_axi_arid(m_axi_arid), .m_axi_araddr(m_axi_araddr), .m_axi_arlen(m_axi_arlen),
    .m_axi_arsize(m_axi_arsize), .m_axi_arburst(m_axi_arburst), .m_axi_arlock(m_axi_arlock),
    .m_axi_arcache(m_axi_arcache), .m_axi_arprot(m_axi_arprot), .m_axi_arvalid(m_axi_arvalid),
    .m_axi_arready(m_axi_arready), .m_axi_rid(m_axi_rid), .m_axi_rdata(m_axi_rdata),
    .m_axi_rresp(m_axi_rresp), .m_axi_rlast(m_axi_rlast), .m_axi_rvalid(m_axi_rvalid),
    .m_axi_rready(m_axi_rready),
    .tbl_alloc_valid(tbl_alloc_valid), .tbl_alloc_handle(tbl_alloc_handle), .tbl_wr_en(tbl_wr_en),
    .tbl_wr_addr(tbl_wr_addr), .tbl_wr_len(tbl_wr_len), .tbl_wr_cookie(tbl_wr_cookie),
    .tbl_wr_launch_ns(tbl_wr_launch_ns), .tbl_wr_ring_index(tbl_wr_ring_index), .tbl_wr_queue(tbl_wr_queue),
    .m_ins_valid(m_ins_valid), .m_ins_ready(m_ins_ready), .m_ins_queue(m_ins_queue),
    .m_ins_handle(m_ins_handle), .m_ins_launch_ns(m_ins_launch_ns),
    .m_ins_late_policy(m_ins_late_policy), .m_ins_horizon_policy(m_ins_horizon_policy),
    .m_flush_valid(m_flush_valid), .m_flush_ready(m_flush_ready), .m_flush_queue(m_flush_queue),
    .flush_done(flush_done),
    .cfg_quota_wr(cfg_quota_wr), .cfg_quota_queue(cfg_quota_queue), .cfg_quota_value(cfg_quota_value),
    .m_cpl_req_valid(m_cpl_req_valid), .m_cpl_req_ready(m_cpl_req_ready), .m_cpl_req_queue(m_cpl_req_queue),
    .m_cpl_req_ring_index(m_cpl_req_ring_index), .m_cpl_req_cookie(m_cpl_req_cookie),
    .m_cpl_req_launch_ns(m_cpl_req_launch_ns), .m_cpl_req_depart_ns(m_cpl_req_depart_ns),
    .m_cpl_req_len(m_cpl_req_len), .m_cpl_req_status(m_cpl_req_status), .m_cpl_req_reason(m_cpl_req_reason),
    .m_cpl_req_capped(m_cpl_req_capped), .m_cpl_req_handle(m_cpl_req_handle),
    .m_cpl_req_handle_valid(m_cpl_req_handle_valid),
    .evt_cpl_valid(evt_cpl_valid), .evt_cpl_queue(evt_cpl_queue),
    .evt_posted(evt_posted)
);

tsnic_desc_table #(.NODE_W(NODE_W), .QUEUE_W(QUEUE_W)) table_i (
    .clk(clk), .rst(rst),
    .alloc_valid(tbl_alloc_valid), .alloc_handle(tbl_alloc_handle),
    .wr_en(tbl_wr_en), .wr_addr(tbl_wr_addr), .wr_len(tbl_wr_len), .wr_cookie(tbl_wr_cookie),
    .wr_launch_ns(tbl_wr_launch_ns), .wr_ring_index(tbl_wr_ring_index), .wr_queue(tbl_wr_queue),
    .rd_en(tbl_rd_en), .rd_handle(tbl_rd_handle), .rd_valid(tbl_rd_valid), .rd_addr(tbl_rd_addr),
    .rd_len(tbl_rd_len), .rd_cookie(tbl_rd_cookie), .rd_launch_ns(tbl_rd_launch_ns),
    .rd_ring_index(tbl_rd_ring_index), .rd_queue(tbl_rd_queue),
    .free_valid(tbl_free_valid), .free_ready(tbl_free_ready), .free_handle(tbl_free_handle),
    .used_count(tbl_used_count)
);

endmodule

`resetall
