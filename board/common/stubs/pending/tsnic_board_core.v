// STAND-IN (ports only) for hdl/rtl/tsnic_board_core.v of the pcie branch, port list as of 2026-12-01,
// plus the flash controller's pins and parameters (qspi_*, icap_*, BOARD_ID, FLASH_*, GOLDEN) that the
// flash branch adds to tsnic_core: the board core must pass them through to the board top.
// Used only by board/lint.sh while hdl/rtl/tsnic_board_core.v is absent. Outputs are zero.
`resetall
`timescale 1ns / 1ps
`default_nettype none
/* verilator lint_off UNUSEDSIGNAL */
/* verilator lint_off UNUSEDPARAM */
module tsnic_board_core #(
    parameter DATA_W        = 512,
    parameter KEEP_W        = DATA_W / 32,
    parameter CQ_USER_W     = 183,
    parameter CC_USER_W     = 81,
    parameter RQ_USER_W     = 137,
    parameter RC_USER_W     = 161,
    parameter AXIS_DATA_W   = DATA_W,
    parameter AXIS_USER_W   = 1,
    parameter NUM_QUEUES    = 8,
    parameter CLK_FREQ_HZ   = 250000000,
    parameter TAG_W         = 5,
    parameter MAX_RD_BYTES  = 512,
    parameter MAX_WR_BYTES  = 512,
    parameter NUM_VECTORS   = 4,
    parameter BOARD_ID        = 0,
    parameter FLASH_SIZE_LOG2 = 27,
    parameter FLASH_WRITABLE  = 1,
    parameter GOLDEN          = 0,
    parameter [31:0] FLASH_BOOT_BASE = 32'h07FF0000
) (
    input  wire                     clk,
    input  wire                     rst,
    input  wire [DATA_W-1:0]        s_axis_cq_tdata,
    input  wire [KEEP_W-1:0]        s_axis_cq_tkeep,
    input  wire                     s_axis_cq_tvalid,
    output wire                     s_axis_cq_tready,
    input  wire                     s_axis_cq_tlast,
    input  wire [CQ_USER_W-1:0]     s_axis_cq_tuser,
    output wire [DATA_W-1:0]        m_axis_cc_tdata,
    output wire [KEEP_W-1:0]        m_axis_cc_tkeep,
    output wire                     m_axis_cc_tvalid,
    input  wire                     m_axis_cc_tready,
    output wire                     m_axis_cc_tlast,
    output wire [CC_USER_W-1:0]     m_axis_cc_tuser,
    output wire [DATA_W-1:0]        m_axis_rq_tdata,
    output wire [KEEP_W-1:0]        m_axis_rq_tkeep,
    output wire                     m_axis_rq_tvalid,
    input  wire                     m_axis_rq_tready,
    output wire                     m_axis_rq_tlast,
    output wire [RQ_USER_W-1:0]     m_axis_rq_tuser,
    input  wire [DATA_W-1:0]        s_axis_rc_tdata,
    input  wire [KEEP_W-1:0]        s_axis_rc_tkeep,
    input  wire                     s_axis_rc_tvalid,
    output wire                     s_axis_rc_tready,
    input  wire                     s_axis_rc_tlast,
    input  wire [RC_USER_W-1:0]     s_axis_rc_tuser,
    input  wire [2:0]               cfg_max_payload,
    input  wire [2:0]               cfg_max_read_req,
    input  wire                     cfg_bus_master_en,
    input  wire                     cfg_interrupt_msix_enable,
    input  wire                     cfg_interrupt_msix_mask,
    output wire [63:0]              cfg_interrupt_msix_address,
    output wire [31:0]              cfg_interrupt_msix_data,
    output wire                     cfg_interrupt_msix_int,
    input  wire                     cfg_interrupt_msix_sent,
    input  wire                     cfg_interrupt_msix_fail,
    output wire [AXIS_DATA_W-1:0]   m_axis_tx_tdata,
    output wire [AXIS_DATA_W/8-1:0] m_axis_tx_tkeep,
    output wire                     m_axis_tx_tvalid,
    input  wire                     m_axis_tx_tready,
    output wire                     m_axis_tx_tlast,
    output wire [AXIS_USER_W-1:0]   m_axis_tx_tuser,
    input  wire [AXIS_DATA_W-1:0]   s_axis_rx_tdata,
    input  wire [AXIS_DATA_W/8-1:0] s_axis_rx_tkeep,
    input  wire [AXIS_USER_W-1:0]   s_axis_rx_tuser,
    input  wire                     s_axis_rx_tvalid,
    output wire                     s_axis_rx_tready,
    input  wire                     s_axis_rx_tlast,
    output wire                     pps,
    output wire                     stat_dma_rd_err,
    output wire                     stat_bar_bad_np,
    output wire                     stat_bar_bad_posted,
    output wire                     stat_rx_frames_dropped,
    // flash (notes/flash.md; tsnic_core of the flash branch)
    output wire                     qspi_clk,
    output wire                     qspi_cs_n,
    output wire [3:0]               qspi_dq_o,
    output wire [3:0]               qspi_dq_oe,
    input  wire [3:0]               qspi_dq_i,
    input  wire                     icap_ce,
    output wire                     icap_csib,
    output wire                     icap_rdwrb,
    output wire [31:0]              icap_i,
    input  wire [31:0]              icap_o
);
assign s_axis_cq_tready = 1'b0;
assign m_axis_cc_tdata = {DATA_W{1'b0}};
assign m_axis_cc_tkeep = {KEEP_W{1'b0}};
assign m_axis_cc_tvalid = 1'b0;
assign m_axis_cc_tlast = 1'b0;
assign m_axis_cc_tuser = {CC_USER_W{1'b0}};
assign m_axis_rq_tdata = {DATA_W{1'b0}};
assign m_axis_rq_tkeep = {KEEP_W{1'b0}};
assign m_axis_rq_tvalid = 1'b0;
assign m_axis_rq_tlast = 1'b0;
assign m_axis_rq_tuser = {RQ_USER_W{1'b0}};
assign s_axis_rc_tready = 1'b0;
assign cfg_interrupt_msix_address = 64'd0;
assign cfg_interrupt_msix_data = 32'd0;
assign cfg_interrupt_msix_int = 1'b0;
assign m_axis_tx_tdata = {AXIS_DATA_W{1'b0}};
assign m_axis_tx_tkeep = {(AXIS_DATA_W/8){1'b0}};
assign m_axis_tx_tvalid = 1'b0;
assign m_axis_tx_tlast = 1'b0;
assign m_axis_tx_tuser = {AXIS_USER_W{1'b0}};
assign s_axis_rx_tready = 1'b0;
assign pps = 1'b0;
assign stat_dma_rd_err = 1'b0;
assign stat_bar_bad_np = 1'b0;
assign stat_bar_bad_posted = 1'b0;
assign stat_rx_frames_dropped = 1'b0;
assign qspi_clk = 1'b0;
assign qspi_cs_n = 1'b1;
assign qspi_dq_o = 4'd0;
assign qspi_dq_oe = 4'd0;
assign icap_csib = 1'b1;
assign icap_rdwrb = 1'b1;
assign icap_i = 32'd0;
endmodule
