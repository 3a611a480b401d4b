// tsnic_board_core: the card as the board tops see it: tsnic's PCIe endpoint (tsnic_pcie_us) on the
// Xilinx PCIe hard block's user interfaces, joined to tsnic_core. Everything but the vendor IP.
//
// Ports (board tops are written against this list):
//   clk, rst                       PCIe user clock (250 MHz) and its reset (active high, synchronous)
//   s_axis_cq_*  (in)              completer request   tdata[DATA_W] tkeep[DATA_W/32] tvalid tready tlast tuser[CQ_USER_W]
//   m_axis_cc_*  (out)             completer completion                                      tuser[CC_USER_W]
//   m_axis_rq_*  (out)             requester request                                         tuser[RQ_USER_W]
//   s_axis_rc_*  (in)              requester completion                                      tuser[RC_USER_W]
//   cfg_max_payload[2:0]           hard block cfg_max_payload (encoded: 128 << n bytes)
//   cfg_max_read_req[2:0]          hard block cfg_max_read_req (encoded: 128 << n bytes)
//   cfg_bus_master_en              function 0 bus master enable (cfg_function_status[2])
//   cfg_interrupt_msix_enable      function 0 (cfg_interrupt_msix_enable[0])
//   cfg_interrupt_msix_mask        function 0 (cfg_interrupt_msix_mask[0])
//   cfg_interrupt_msix_address[63:0], cfg_interrupt_msix_data[31:0], cfg_interrupt_msix_int (out)
//   cfg_interrupt_msix_sent, cfg_interrupt_msix_fail (in)
//   m_axis_tx_*  (out)             TX frames to the MAC: tdata[AXIS_DATA_W] tkeep tvalid tready tlast tuser[AXIS_USER_W]
//   s_axis_rx_*  (in)              RX frames from the MAC: tdata tkeep tvalid tready tlast, tuser = bad
//                                  frame (FCS) on the last beat; the core's RX path (always ready: a
//                                  frame it cannot keep is dropped and counted in the RX block)
//   qspi_*, icap_*                 configuration flash and ICAP of tsnic_core (board: STARTUPE3/E2,
//                                  ICAPE3/E2 with the bit swap; tie qspi_dq_i high, icap_o 0 if absent)
//   pps (out)                      PHC pulse per second
//   stat_* (out)                   one-cycle event pulses for board LEDs / debug
//
// Widths: UltraScale+ pcie4(c)_uscale_plus Gen3 x16: DATA_W 512, CQ/CC/RQ/RC tuser 183/81/137/161
// (the defaults). 256-bit layouts (pcie3_7x Gen3 x8: 85/33/60/75; pcie4 at 256 bits: 88/33/62/75)
// with DATA_W 256. Hard block configuration the endpoint expects: straddle off on all four
// interfaces, dword-aligned mode, client tags (enable_client_tag), no extended tags (TAG_W 5),
// MSI-X with the table/PBA in BAR0 at 0x20000 / 0x28000 served by the user logic, BAR0 1 MiB,
// pcie_cq_np_req tied high. The core runs on clk with AXI_DATA_W = AXIS_DATA_W = DATA_W; the MAC
// side width/clock adaptation belongs to the board (the launch gate moves to the MAC domain there).
`resetall
`timescale 1ns / 1ps
`default_nettype none

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
    parameter NUM_VECTORS   = 4,         // MSI-X table size; vector 0 = the core's irq
    parameter BOARD_ID      = 0,         // FLASH_CAP board id (docs/FIRMWARE.md)
    parameter FLASH_SIZE_LOG2 = 27,      // configuration flash size (128 MB)
    parameter FLASH_WRITABLE = 1,        // 0: the configuration flash is not reachable (SUME)
    parameter GOLDEN        = 0          // 1: the golden image (its boot selector runs)
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
    input  wire                     s_axis_rx_tuser,      // bad frame (FCS error), on the last beat
    input  wire                     s_axis_rx_tvalid,
    output wire                     s_axis_rx_tready,
    input  wire                     s_axis_rx_tlast,

    // configuration flash (to STARTUPE3/E2) and configuration port (to ICAPE3/E2), see tsnic_core
    output wire                     qspi_clk,
    output wire                     qspi_cs_n,
    output wire [3:0]               qspi_dq_o,
    output wire [3:0]               qspi_dq_oe,
    input  wire [3:0]               qspi_dq_i,
    input  wire                     icap_ce,
    output wire                     icap_csib,
    output wire                     icap_rdwrb,
    output wire [31:0]              icap_i,
    input  wire [31:0]              icap_o,

    output wire                     pps,
    output wire                     stat_dma_rd_err,
    output wire                     stat_bar_bad_np,
    output wire                     stat_bar_bad_posted
);

localparam AXI_ID_W = 8;
localparam QUEUE_W = (NUM_QUEUES > 1) ? $clog2(NUM_QUEUES) : 1;
localparam CORE_NODE_W = 10;   // tsnic_core's NODE_W default (not overridden here)

wire [19:0] axil_awaddr, axil_araddr;
wire [2:0]  axil_awprot, axil_arprot;
wire        axil_awvalid, axil_awready, axil_wvalid, axil_wready, axil_bvalid, axil_bready;
wire        axil_arvalid, axil_arready, axil_rvalid, axil_rready;
wire [31:0] axil_wdata, axil_rdata;
wire [3:0]  axil_wstrb;
wire [1:0]  axil_bresp, axil_rresp;

wire [AXI_ID_W-1:0] axi_awid, axi_bid, axi_arid, axi_rid;
wire [63:0]         axi_awaddr, axi_araddr;
wire [7:0]          axi_awlen, axi_arlen;
wire [2:0]          axi_awsize, axi_arsize, axi_awprot, axi_arprot;
wire [1:0]          axi_awburst, axi_arburst, axi_bresp, axi_rresp;
wire                axi_awlock, axi_arlock;
wire [3:0]          axi_awcache, axi_arcache;
wire                axi_awvalid, axi_awready, axi_wlast, axi_wvalid, axi_wready, axi_bvalid, axi_bready;
wire                axi_arvalid, axi_arready, axi_rlast, axi_rvalid, axi_rready;
wire [DATA_W-1:0]   axi_wdata, axi_rdata;
wire [DATA_W/8-1:0] axi_wstrb;

wire core_irq;
reg  core_irq_d = 1'b0;
always @(posedge clk) core_irq_d <= rst ? 1'b0 : core_irq;
// the core's irq is a level (pending && enabled): its rising edge raises vector 0
wire [NUM_VECTORS-1:0] irq_vec = {{(NUM_VECTORS-1){1'b0}}, core_irq && !core_irq_d};

tsnic_pcie_us #(
    .DATA_W(DATA_W), .KEEP_W(KEEP_W), .CQ_USER_W(CQ_USER_W), .CC_USER_W(CC_USER_W),
    .RQ_USER_W(RQ_USER_W), .RC_USER_W(RC_USER_W), .US_PLUS_512(DATA_W == 512), .AXIL_ADDR_W(20),
    .AXI_ID_W(AXI_ID_W), .TAG_W(TAG_W), .MAX_RD_BYTES(MAX_RD_BYTES), .MAX_WR_BYTES(MAX_WR_BYTES),
    .NUM_VECTORS(NUM_VECTORS)
) pcie_inst (
    .clk(clk), .rst(rst),
    .s_axis_cq_tdata(s_axis_cq_tdata), .s_axis_cq_tkeep(s_axis_cq_tkeep), .s_axis_cq_tvalid(s_axis_cq_tvalid),
    .s_axis_cq_tready(s_axis_cq_tready), .s_axis_cq_tlast(s_axis_cq_tlast), .s_axis_cq_tuser(s_axis_cq_tuser),
    .m_axis_cc_tdata(m_axis_cc_tdata), .m_axis_cc_tkeep(m_axis_cc_tkeep), .m_axis_cc_tvalid(m_axis_cc_tvalid),
    .m_axis_cc_tready(m_axis_cc_tready), .m_axis_cc_tlast(m_axis_cc_tlast), .m_axis_cc_tuser(m_axis_cc_tuser),
    .m_axis_rq_tdata(m_axis_rq_tdata), .m_axis_rq_tkeep(m_axis_rq_tkeep), .m_axis_rq_tvalid(m_axis_rq_tvalid),
    .m_axis_rq_tready(m_axis_rq_tready), .m_axis_rq_tlast(m_axis_rq_tlast), .m_axis_rq_tuser(m_axis_rq_tuser),
    .s_axis_rc_tdata(s_axis_rc_tdata), .s_axis_rc_tkeep(s_axis_rc_tkeep), .s_axis_rc_tvalid(s_axis_rc_tvalid),
    .s_axis_rc_tready(s_axis_rc_tready), .s_axis_rc_tlast(s_axis_rc_tlast), .s_axis_rc_tuser(s_axis_rc_tuser),
    .cfg_max_payload(cfg_max_payload), .cfg_max_read_req(cfg_max_read_req), .cfg_bus_master_en(cfg_bus_master_en),
    .cfg_interrupt_msix_enable(cfg_interrupt_msix_enable), .cfg_interrupt_msix_mask(cfg_interrupt_msix_mask),
    .cfg_interrupt_msix_address(cfg_interrupt_msix_address), .cfg_interrupt_msix_data(cfg_interrupt_msix_data),
    .cfg_interrupt_msix_int(cfg_interrupt_msix_int), .cfg_interrupt_msix_sent(cfg_interrupt_msix_sent),
    .cfg_interrupt_msix_fail(cfg_interrupt_msix_fail),
    .m_axil_awaddr(axil_awaddr), .m_axil_awprot(axil_awprot), .m_axil_awvalid(axil_awvalid),
    .m_axil_awready(axil_awready), .m_axil_wdata(axil_wdata), .m_axil_wstrb(axil_wstrb),
    .m_axil_wvalid(axil_wvalid), .m_axil_wready(axil_wready), .m_axil_bresp(axil_bresp),
    .m_axil_bvalid(axil_bvalid), .m_axil_bready(axil_bready), .m_axil_araddr(axil_araddr),
    .m_axil_arprot(axil_arprot), .m_axil_arvalid(axil_arvalid), .m_axil_arready(axil_arready),
    .m_axil_rdata(axil_rdata), .m_axil_rresp(axil_rresp), .m_axil_rvalid(axil_rvalid),
    .m_axil_rready(axil_rready),
    .s_axi_awid(axi_awid), .s_axi_awaddr(axi_awaddr), .s_axi_awlen(axi_awlen), .s_axi_awsize(axi_awsize),
    .s_axi_awburst(axi_awburst), .s_axi_awlock(axi_awlock), .s_axi_awcache(axi_awcache),
    .s_axi_awprot(axi_awprot), .s_axi_awvalid(axi_awvalid), .s_axi_awready(axi_awready),
    .s_axi_wdata(axi_wdata), .s_axi_wstrb(axi_wstrb), .s_axi_wlast(axi_wlast), .s_axi_wvalid(axi_wvalid),
    .s_axi_wready(axi_wready), .s_axi_bid(axi_bid), .s_axi_bresp(axi_bresp), .s_axi_bvalid(axi_bvalid),
    .s_axi_bready(axi_bready),
    .s_axi_arid(axi_arid), .s_axi_araddr(axi_araddr), .s_axi_arlen(axi_arlen), .s_axi_arsize(axi_arsize),
    .s_axi_arburst(axi_arburst), .s_axi_arlock(axi_arlock), .s_axi_arcache(axi_arcache),
    .s_axi_arprot(axi_arprot), .s_axi_arvalid(axi_arvalid), .s_axi_arready(axi_arready),
    .s_axi_rid(axi_rid), .s_axi_rdata(axi_rdata), .s_axi_rresp(axi_rresp), .s_axi_rlast(axi_rlast),
    .s_axi_rvalid(axi_rvalid), .s_axi_rready(axi_rready),
    .irq(irq_vec),
    .stat_rd_err(stat_dma_rd_err), .stat_bad_np(stat_bar_bad_np), .stat_bad_posted(stat_bar_bad_posted)
);

/* verilator lint_off UNUSEDSIGNAL */
wire        ff_quiet;
wire [63:0] ff_wake_ns, ff_phc_ns, ff_inc, ff_chunk_ns;
/* verilator lint_on UNUSEDSIGNAL */

/* verilator lint_off PINCONNECTEMPTY */
tsnic_core #(
    .NUM_QUEUES(NUM_QUEUES),
    .CLK_FREQ_HZ(CLK_FREQ_HZ),
    .AXI_DATA_W(DATA_W),
    .AXI_ID_W(AXI_ID_W),
    .AXIS_DATA_W(AXIS_DATA_W),
    .AXIS_USER_W(AXIS_USER_W),
    .BOARD_ID(BOARD_ID),
    .FLASH_SIZE_LOG2(FLASH_SIZE_LOG2),
    .FLASH_WRITABLE(FLASH_WRITABLE),
    .GOLDEN(GOLDEN)
) core_inst (
    .clk(clk), .rst(rst),
    .s_axil_awaddr(axil_awaddr), .s_axil_awprot(axil_awprot), .s_axil_awvalid(axil_awvalid),
    .s_axil_awready(axil_awready), .s_axil_wdata(axil_wdata), .s_axil_wstrb(axil_wstrb),
    .s_axil_wvalid(axil_wvalid), .s_axil_wready(axil_wready), .s_axil_bresp(axil_bresp),
    .s_axil_bvalid(axil_bvalid), .s_axil_bready(axil_bready), .s_axil_araddr(axil_araddr),
    .s_axil_arprot(axil_arprot), .s_axil_arvalid(axil_arvalid), .s_axil_arready(axil_arready),
    .s_axil_rdata(axil_rdata), .s_axil_rresp(axil_rresp), .s_axil_rvalid(axil_rvalid),
    .s_axil_rready(axil_rready),
    .m_axi_awid(axi_awid), .m_axi_awaddr(axi_awaddr), .m_axi_awlen(axi_awlen), .m_axi_awsize(axi_awsize),
    .m_axi_awburst(axi_awburst), .m_axi_awlock(axi_awlock), .m_axi_awcache(axi_awcache),
    .m_axi_awprot(axi_awprot), .m_axi_awvalid(axi_awvalid), .m_axi_awready(axi_awready),
    .m_axi_wdata(axi_wdata), .m_axi_wstrb(axi_wstrb), .m_axi_wlast(axi_wlast), .m_axi_wvalid(axi_wvalid),
    .m_axi_wready(axi_wready), .m_axi_bid(axi_bid), .m_axi_bresp(axi_bresp), .m_axi_bvalid(axi_bvalid),
    .m_axi_bready(axi_bready),
    .m_axi_arid(axi_arid), .m_axi_araddr(axi_araddr), .m_axi_arlen(axi_arlen), .m_axi_arsize(axi_arsize),
    .m_axi_arburst(axi_arburst), .m_axi_arlock(axi_arlock), .m_axi_arcache(axi_arcache),
    .m_axi_arprot(axi_arprot), .m_axi_arvalid(axi_arvalid), .m_axi_arready(axi_arready),
    .m_axi_rid(axi_rid), .m_axi_rdata(axi_rdata), .m_axi_rresp(axi_rresp), .m_axi_rlast(axi_rlast),
    .m_axi_rvalid(axi_rvalid), .m_axi_rready(axi_rready),
    .m_axis_tx_tdata(m_axis_tx_tdata), .m_axis_tx_tkeep(m_axis_tx_tkeep), .m_axis_tx_tvalid(m_axis_tx_tvalid),
    .m_axis_tx_tready(m_axis_tx_tready), .m_axis_tx_tlast(m_axis_tx_tlast), .m_axis_tx_tuser(m_axis_tx_tuser),
    // launch gate inside the core, on clk (TX_GATE_EXTERNAL = 0): the MAC-domain gate
    // (tsnic_mac_tx, tsnic_td_*) is not wired into the board core yet
    .m_tx_frm_valid(), .m_tx_frm_ready(1'b0), .m_tx_frm_launch_ns(), .m_tx_frm_req_launch_ns(),
    .m_tx_frm_late(), .m_tx_frm_capped(), .m_tx_frm_queue(), .m_tx_frm_ring_index(), .m_tx_frm_cookie(),
    .m_tx_frm_len(), .m_tx_frm_handle(),
    .m_axis_tx_pay_tdata(), .m_axis_tx_pay_tkeep(), .m_axis_tx_pay_tlast(), .m_axis_tx_pay_tuser(),
    .m_axis_tx_pay_tvalid(), .m_axis_tx_pay_tready(1'b0),
    .s_tx_cpl_valid(1'b0), .s_tx_cpl_ready(), .s_tx_cpl_queue({QUEUE_W{1'b0}}), .s_tx_cpl_ring_index(16'd0),
    .s_tx_cpl_cookie(32'd0), .s_tx_cpl_launch_ns(64'd0), .s_tx_cpl_depart_ns(64'd0), .s_tx_cpl_len(16'd0),
    .s_tx_cpl_status(8'd0), .s_tx_cpl_reason(8'd0), .s_tx_cpl_capped(1'b0), .s_tx_cpl_handle({CORE_NODE_W{1'b0}}),
    .s_tx_cpl_handle_valid(1'b0),
    .tx_gate_flush(), .tx_gate_lat_comp_ns(), .td_ns(), .td_fns(), .td_inc(), .td_step(), .td_toggle(),
    .mac_tx_time_locked(1'b0), .mac_rx_time_locked(1'b0), .mac_rx_lat_comp_ns(),
    // RX: stamped in the core from its PHC (RX_TS_EXTERNAL = 0) until the MAC-domain stamp
    // (tsnic_mac_rx) is wired in; the core's RX block counts every frame it cannot keep
    .s_axis_rx_tdata(s_axis_rx_tdata), .s_axis_rx_tkeep(s_axis_rx_tkeep), .s_axis_rx_tvalid(s_axis_rx_tvalid),
    .s_axis_rx_tready(s_axis_rx_tready), .s_axis_rx_tlast(s_axis_rx_tlast),
    .s_axis_rx_tuser({64'd0, s_axis_rx_tuser}),
    .qspi_clk(qspi_clk), .qspi_cs_n(qspi_cs_n), .qspi_dq_o(qspi_dq_o), .qspi_dq_oe(qspi_dq_oe),
    .qspi_dq_i(qspi_dq_i),
    .icap_ce(icap_ce), .icap_csib(icap_csib), .icap_rdwrb(icap_rdwrb), .icap_i(icap_i), .icap_o(icap_o),
    .irq(core_irq),
    .pps(pps),
    .sim_ff_warp(32'd0), .sim_ff_quiet(ff_quiet), .sim_ff_wake_ns(ff_wake_ns), .sim_ff_phc_ns(ff_phc_ns),
    .sim_ff_inc(ff_inc), .sim_ff_chunk_ns(ff_chunk_ns)
);
/* verilator lint_on PINCONNECTEMPTY */


endmodule

`resetall
