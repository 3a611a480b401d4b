// tsnic_pcie_us: tsnic's PCIe endpoint on the Xilinx PCIe hard block's AXI-Stream interfaces
// (UltraScale+ pcie4_uscale_plus / pcie4c_uscale_plus at 512 bits, or 256-bit pcie3_7x / pcie4
// layouts with US_PLUS_512 = 0). Straddle off, dword-aligned mode, client tags.
//
//   CQ/CC  BAR0 -> m_axil_* (the core's registers), except the MSI-X window  (tsnic_pcie_us_axil)
//          at 0x20000 (table) / 0x28000 (PBA)                                    (tsnic_pcie_msix)
//   RQ/RC  s_axi_ar/r -> memory reads, split at MRRS and 4 KiB, tags, in order  (tsnic_pcie_us_rd)
//          s_axi_aw/w/b -> memory writes, split at MPS                          (tsnic_pcie_us_wr)
//          both onto RQ                                                         (tsnic_pcie_rq_mux)
//   MSI-X  irq[v] -> vector v through cfg_interrupt_msix_*
//
// A read completion with an error (bad status, poisoned, completion timeout reported by the hard
// block) answers the AXI read with SLVERR; so do reads while bus master enable is off (nothing is
// sent then). The AXI side's data width is the PCIe width (DATA_W); arsize/awsize are the bus width
// (a single narrow write beat is also fine); bursts are INCR.
`resetall
`timescale 1ns / 1ps
`default_nettype none

module tsnic_pcie_us #(
    parameter DATA_W       = 512,
    parameter KEEP_W       = DATA_W / 32,
    parameter CQ_USER_W    = 183,
    parameter CC_USER_W    = 81,
    parameter RQ_USER_W    = 137,
    parameter RC_USER_W    = 161,
    parameter US_PLUS_512  = (DATA_W == 512),
    parameter AXIL_ADDR_W  = 20,
    parameter AXI_ID_W     = 8,
    parameter TAG_W        = 5,
    parameter MAX_RD_BYTES = 512,
    parameter MAX_WR_BYTES = 512,
    parameter NUM_VECTORS  = 4,
    // the hard block's completion buffer (headers, 16-byte data credits): see tsnic_pcie_us_rd
    parameter CPLH_LIMIT   = US_PLUS_512 ? 128 : 64,
    parameter CPLD_LIMIT   = US_PLUS_512 ? 1920 : 960
) (
    input  wire                   clk,
    input  wire                   rst,

    input  wire [DATA_W-1:0]      s_axis_cq_tdata,
    input  wire [KEEP_W-1:0]      s_axis_cq_tkeep,
    input  wire                   s_axis_cq_tvalid,
    output wire                   s_axis_cq_tready,
    input  wire                   s_axis_cq_tlast,
    input  wire [CQ_USER_W-1:0]   s_axis_cq_tuser,
    output wire [DATA_W-1:0]      m_axis_cc_tdata,
    output wire [KEEP_W-1:0]      m_axis_cc_tkeep,
    output wire                   m_axis_cc_tvalid,
    input  wire                   m_axis_cc_tready,
    output wire                   m_axis_cc_tlast,
    output wire [CC_USER_W-1:0]   m_axis_cc_tuser,
    output wire [DATA_W-1:0]      m_axis_rq_tdata,
    output wire [KEEP_W-1:0]      m_axis_rq_tkeep,
    output wire                   m_axis_rq_tvalid,
    input  wire                   m_axis_rq_tready,
    output wire                   m_axis_rq_tlast,
    output wire [RQ_USER_W-1:0]   m_axis_rq_tuser,
    input  wire [DATA_W-1:0]      s_axis_rc_tdata,
    input  wire [KEEP_W-1:0]      s_axis_rc_tkeep,
    input  wire                   s_axis_rc_tvalid,
    output wire                   s_axis_rc_tready,
    input  wire                   s_axis_rc_tlast,
    input  wire [RC_USER_W-1:0]   s_axis_rc_tuser,

    input  wire [2:0]             cfg_max_payload,
    input  wire [2:0]             cfg_max_read_req,
    input  wire                   cfg_bus_master_en,
    input  wire                   cfg_interrupt_msix_enable,
    input  wire                   cfg_interrupt_msix_mask,
    output wire [63:0]            cfg_interrupt_msix_address,
    output wire [31:0]            cfg_interrupt_msix_data,
    output wire                   cfg_interrupt_msix_int,
    input  wire                   cfg_interrupt_msix_sent,
    input  wire                   cfg_interrupt_msix_fail,

    // to the core's registers
    output wire [AXIL_ADDR_W-1:0] m_axil_awaddr,
    output wire [2:0]             m_axil_awprot,
    output wire                   m_axil_awvalid,
    input  wire                   m_axil_awready,
    output wire [31:0]            m_axil_wdata,
    output wire [3:0]             m_axil_wstrb,
    output wire                   m_axil_wvalid,
    input  wire                   m_axil_wready,
    input  wire [1:0]             m_axil_bresp,
    input  wire                   m_axil_bvalid,
    output wire                   m_axil_bready,
    output wire [AXIL_ADDR_W-1:0] m_axil_araddr,
    output wire [2:0]             m_axil_arprot,
    output wire                   m_axil_arvalid,
    input  wire                   m_axil_arready,
    input  wire [31:0]            m_axil_rdata,
    input  wire [1:0]             m_axil_rresp,
    input  wire                   m_axil_rvalid,
    output wire                   m_axil_rready,

    // from the core's host-memory master
    /* verilator lint_off UNUSEDSIGNAL */
    input  wire [AXI_ID_W-1:0]    s_axi_awid,
    input  wire [63:0]            s_axi_awaddr,
    input  wire [7:0]             s_axi_awlen,
    input  wire [2:0]             s_axi_awsize,
    input  wire [1:0]             s_axi_awburst,
    input  wire                   s_axi_awlock,
    input  wire [3:0]             s_axi_awcache,
    input  wire [2:0]             s_axi_awprot,
    /* verilator lint_on UNUSEDSIGNAL */
    input  wire                   s_axi_awvalid,
    output wire                   s_axi_awready,
    input  wire [DATA_W-1:0]      s_axi_wdata,
    input  wire [DATA_W/8-1:0]    s_axi_wstrb,
    input  wire                   s_axi_wlast,
    input  wire                   s_axi_wvalid,
    output wire                   s_axi_wready,
    output wire [AXI_ID_W-1:0]    s_axi_bid,
    output wire [1:0]             s_axi_bresp,
    output wire                   s_axi_bvalid,
    input  wire                   s_axi_bready,
    input  wire [AXI_ID_W-1:0]    s_axi_arid,
    input  wire [63:0]            s_axi_araddr,
    input  wire [7:0]             s_axi_arlen,
    /* verilator lint_off UNUSEDSIGNAL */
    input  wire [2:0]             s_axi_arsize,
    input  wire [1:0]             s_axi_arburst,
    input  wire                   s_axi_arlock,
    input  wire [3:0]             s_axi_arcache,
    input  wire [2:0]             s_axi_arprot,
    /* verilator lint_on UNUSEDSIGNAL */
    input  wire                   s_axi_arvalid,
    output wire                   s_axi_arready,
    output wire [AXI_ID_W-1:0]    s_axi_rid,
    output wire [DATA_W-1:0]      s_axi_rdata,
    output wire [1:0]             s_axi_rresp,
    output wire                   s_axi_rlast,
    output wire                   s_axi_rvalid,
    input  wire                   s_axi_rready,

    input  wire [NUM_VECTORS-1:0] irq,

    output wire                   stat_rd_err,     // pulse: a read completion with an error
    output wire                   stat_bad_np,     // pulse: a BAR access answered UR / CA
    output wire                   stat_bad_posted  // pulse: a posted request dropped
);

wire        msix_wr_en;
wire [15:0] msix_addr;
wire [31:0] msix_wr_data;
wire [3:0]  msix_wr_strb;
wire [31:0] msix_rd_data;

tsnic_pcie_us_axil #(
    .DATA_W(DATA_W), .KEEP_W(KEEP_W), .CQ_USER_W(CQ_USER_W), .CC_USER_W(CC_USER_W),
    .US_PLUS_512(US_PLUS_512), .ADDR_W(AXIL_ADDR_W), .MSIX_BASE(20'h20000)
) axil_inst (
    .clk(clk), .rst(rst),
    .s_axis_cq_tdata(s_axis_cq_tdata), .s_axis_cq_tkeep(s_axis_cq_tkeep), .s_axis_cq_tuser(s_axis_cq_tuser),
    .s_axis_cq_tvalid(s_axis_cq_tvalid), .s_axis_cq_tready(s_axis_cq_tready), .s_axis_cq_tlast(s_axis_cq_tlast),
    .m_axis_cc_tdata(m_axis_cc_tdata), .m_axis_cc_tkeep(m_axis_cc_tkeep), .m_axis_cc_tvalid(m_axis_cc_tvalid),
    .m_axis_cc_tready(m_axis_cc_tready), .m_axis_cc_tlast(m_axis_cc_tlast), .m_axis_cc_tuser(m_axis_cc_tuser),
    .m_axil_awaddr(m_axil_awaddr), .m_axil_awprot(m_axil_awprot), .m_axil_awvalid(m_axil_awvalid),
    .m_axil_awready(m_axil_awready), .m_axil_wdata(m_axil_wdata), .m_axil_wstrb(m_axil_wstrb),
    .m_axil_wvalid(m_axil_wvalid), .m_axil_wready(m_axil_wready), .m_axil_bresp(m_axil_bresp),
    .m_axil_bvalid(m_axil_bvalid), .m_axil_bready(m_axil_bready), .m_axil_araddr(m_axil_araddr),
    .m_axil_arprot(m_axil_arprot), .m_axil_arvalid(m_axil_arvalid), .m_axil_arready(m_axil_arready),
    .m_axil_rdata(m_axil_rdata), .m_axil_rresp(m_axil_rresp), .m_axil_rvalid(m_axil_rvalid),
    .m_axil_rready(m_axil_rready),
    .msix_wr_en(msix_wr_en), .msix_addr(msix_addr), .msix_wr_data(msix_wr_data), .msix_wr_strb(msix_wr_strb),
    .msix_rd_data(msix_rd_data),
    .bad_np(stat_bad_np), .bad_posted(stat_bad_posted)
);

tsnic_pcie_msix #(
    .NUM_VECTORS(NUM_VECTORS)
) msix_inst (
    .clk(clk), .rst(rst),
    .irq(irq),
    .wr_en(msix_wr_en), .addr(msix_addr), .wr_data(msix_wr_data), .wr_strb(msix_wr_strb), .rd_data(msix_rd_data),
    .cfg_interrupt_msix_enable(cfg_interrupt_msix_enable), .cfg_interrupt_msix_mask(cfg_interrupt_msix_mask),
    .cfg_interrupt_msix_address(cfg_interrupt_msix_address), .cfg_interrupt_msix_data(cfg_interrupt_msix_data),
    .cfg_interrupt_msix_int(cfg_interrupt_msix_int), .cfg_interrupt_msix_sent(cfg_interrupt_msix_sent),
    .cfg_interrupt_msix_fail(cfg_interrupt_msix_fail)
);

wire [DATA_W-1:0]    rd_rq_tdata, wr_rq_tdata;
wire [KEEP_W-1:0]    rd_rq_tkeep, wr_rq_tkeep;
wire                 rd_rq_tvalid, wr_rq_tvalid, rd_rq_tready, wr_rq_tready, rd_rq_tlast, wr_rq_tlast;
wire [RQ_USER_W-1:0] rd_rq_tuser, wr_rq_tuser;
/* verilator lint_off UNUSEDSIGNAL */
wire                 rd_busy, wr_busy;
/* verilator lint_on UNUSEDSIGNAL */

tsnic_pcie_us_rd #(
    .DATA_W(DATA_W), .KEEP_W(KEEP_W), .RQ_USER_W(RQ_USER_W), .RC_USER_W(RC_USER_W),
    .US_PLUS_512(US_PLUS_512), .AXI_ID_W(AXI_ID_W), .TAG_W(TAG_W), .MAX_RD_BYTES(MAX_RD_BYTES),
    .CPLH_LIMIT(CPLH_LIMIT), .CPLD_LIMIT(CPLD_LIMIT)
) rd_inst (
    .clk(clk), .rst(rst),
    .s_axi_arid(s_axi_arid), .s_axi_araddr(s_axi_araddr), .s_axi_arlen(s_axi_arlen),
    .s_axi_arvalid(s_axi_arvalid), .s_axi_arready(s_axi_arready),
    .s_axi_rid(s_axi_rid), .s_axi_rdata(s_axi_rdata), .s_axi_rresp(s_axi_rresp), .s_axi_rlast(s_axi_rlast),
    .s_axi_rvalid(s_axi_rvalid), .s_axi_rready(s_axi_rready),
    .m_axis_rq_tdata(rd_rq_tdata), .m_axis_rq_tkeep(rd_rq_tkeep), .m_axis_rq_tvalid(rd_rq_tvalid),
    .m_axis_rq_tready(rd_rq_tready), .m_axis_rq_tlast(rd_rq_tlast), .m_axis_rq_tuser(rd_rq_tuser),
    .s_axis_rc_tdata(s_axis_rc_tdata), .s_axis_rc_tkeep(s_axis_rc_tkeep), .s_axis_rc_tvalid(s_axis_rc_tvalid),
    .s_axis_rc_tready(s_axis_rc_tready), .s_axis_rc_tlast(s_axis_rc_tlast), .s_axis_rc_tuser(s_axis_rc_tuser),
    .cfg_max_read_req(cfg_max_read_req), .cfg_bus_master_en(cfg_bus_master_en),
    .stat_err(stat_rd_err), .busy(rd_busy)
);

tsnic_pcie_us_wr #(
    .DATA_W(DATA_W), .KEEP_W(KEEP_W), .RQ_USER_W(RQ_USER_W), .US_PLUS_512(US_PLUS_512),
    .AXI_ID_W(AXI_ID_W), .MAX_WR_BYTES(MAX_WR_BYTES)
) wr_inst (
    .clk(clk), .rst(rst),
    .s_axi_awid(s_axi_awid), .s_axi_awaddr(s_axi_awaddr), .s_axi_awlen(s_axi_awlen),
    .s_axi_awvalid(s_axi_awvalid), .s_axi_awready(s_axi_awready),
    .s_axi_wdata(s_axi_wdata), .s_axi_wstrb(s_axi_wstrb), .s_axi_wlast(s_axi_wlast),
    .s_axi_wvalid(s_axi_wvalid), .s_axi_wready(s_axi_wready),
    .s_axi_bid(s_axi_bid), .s_axi_bresp(s_axi_bresp), .s_axi_bvalid(s_axi_bvalid), .s_axi_bready(s_axi_bready),
    .m_axis_rq_tdata(wr_rq_tdata), .m_axis_rq_tkeep(wr_rq_tkeep), .m_axis_rq_tvalid(wr_rq_tvalid),
    .m_axis_rq_tready(wr_rq_tready), .m_axis_rq_tlast(wr_rq_tlast), .m_axis_rq_tuser(wr_rq_tuser),
    .cfg_max_payload(cfg_max_payload), .cfg_bus_master_en(cfg_bus_master_en),
    .busy(wr_busy)
);

tsnic_pcie_rq_mux #(
    .DATA_W(DATA_W), .KEEP_W(KEEP_W), .RQ_USER_W(RQ_USER_W)
) rq_mux_inst (
    .clk(clk), .rst(rst),
    .s0_tdata(rd_rq_tdata), .s0_tkeep(rd_rq_tkeep), .s0_tvalid(rd_rq_tvalid), .s0_tready(rd_rq_tready),
    .s0_tlast(rd_rq_tlast), .s0_tuser(rd_rq_tuser),
    .s1_tdata(wr_rq_tdata), .s1_tkeep(wr_rq_tkeep), .s1_tvalid(wr_rq_tvalid), .s1_tready(wr_rq_tready),
    .s1_tlast(wr_rq_tlast), .s1_tuser(wr_rq_tuser),
    .m_tdata(m_axis_rq_tdata), .m_tkeep(m_axis_rq_tkeep), .m_tvalid(m_axis_rq_tvalid), .m_tready(m_axis_rq_tready),
    .m_tlast(m_axis_rq_tlast), .m_tuser(m_axis_rq_tuser)
);

endmodule

`resetall
