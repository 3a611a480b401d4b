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
//   tx_clk, tx_rst (in)            MAC TX clock and its reset (active high, synchronous to tx_clk; MAC_DOMAIN = 1;
//                                  unused with MAC_DOMAIN = 0: tie to clk / rst or 0)
//   m_axis_tx_*  (out)             TX frames to the MAC: tdata[AXIS_DATA_W] tkeep tvalid tready tlast tuser[AXIS_USER_W]
//                                  (tuser 0); on tx_clk with MAC_DOMAIN = 1 (launch-gated there), on clk with 0.
//                                  A frame never pauses once its first beat is out (MAC_DOMAIN = 1: the CMAC's
//                                  no-underflow rule); its departure time (completion depart_ns) is the time in
//                                  that domain at the first beat's handshake + CTRL_TX_LAT_COMP_NS (+ the
//                                  MAC's line-start report with TX_MAC_LAG = 1)
//   s_mac_tx_lag_valid, s_mac_tx_lag_ns[15:0] (in)  TX_MAC_LAG = 1: per frame the MAC took from m_axis_tx_*,
//                                  in order, how long after its first beat's handshake the frame started on
//                                  the line, ns (tsnic_xgmii_tx m_lag_*); same clock as m_axis_tx_*; the MAC
//                                  resets whenever rst or tx_rst does. TX_MAC_LAG = 0 or 2: tie to 0
//                                  (2, MAC_DOMAIN = 1 only: tsnic_cmac_tx_lag derives the reports from
//                                  m_axis_tx_* and the line's rules, for a MAC with a fixed latency and no
//                                  report of its own: the CMAC)
//   rx_clk, rx_rst (in)            MAC RX clock and its reset (as tx_clk / tx_rst; MAC_DOMAIN = 1)
//   s_axis_rx_*  (in)              RX frames from the MAC: tdata[RX_DATA_W] tkeep tvalid tready tlast, tuser = bad
//                                  frame (FCS) on the last beat. MAC_DOMAIN = 1: on rx_clk, no backpressure
//                                  (tready is 1; a frame the crossing cannot take whole is dropped and counted
//                                  in RX_CNT_DROP_MAC); MAC_DOMAIN = 0: on clk, RX_DATA_W = AXIS_DATA_W, straight
//                                  into the core's RX path (always ready: a frame it cannot keep is dropped and
//                                  counted in the RX block)
//   rx_sof, rx_sof_lane4 (in)      RX_SOF_IN = 1: the MAC's start-of-frame pulse (tsnic_xgmii_rx's sof /
//                                  sof_lane4, one rx_clk cycle after the word with /S/); the arrival stamp is
//                                  taken there. RX_SOF_IN = 0 (a CMAC): tie 0; the stamp is taken in the cycle
//                                  a frame's first beat is on s_axis_rx_* (which is then delayed two cycles)
//   qspi_*, icap_*                 configuration flash and ICAP of tsnic_core (board: STARTUPE3/E2,
//                                  ICAPE3/E2 with the bit swap; tie qspi_dq_i high, icap_o 0 if absent)
//   phy_status                     MAC_PHY_STATUS bits (asynchronous; board): reference clock ready,
//                                  set-up error and its code; 8'h01 on a board with nothing to set up
//   pcie_lnk_up, pcie_ltssm[5:0],  MAC_LINK_STATUS: the hard block's user_lnk_up, cfg_ltssm_state,
//   pcie_width[3:0], pcie_speed[2:0]  cfg_negotiated_width and cfg_current_speed, raw (a narrower IP port
//                                  zero-extended), synchronous to clk (the hard block's user_clk: its
//                                  configuration interface is on user_clk, PG213 / PG023), so registered
//                                  here, not crossed; decoded per PCIE_STATUS_ENC
//   mac_rx_up                      MAC_LINK_STATUS.MAC_RX_UP (asynchronous, the MAC RX clock): CMAC
//                                  stat_rx_aligned or 10GBASE-R block lock (MAC_KIND); a two-flop synchronizer
//   pps (out)                      PHC pulse per second
//   stat_* (out)                   one-cycle event pulses for board LEDs / debug
//
// Widths: UltraScale+ pcie4(c)_uscale_plus Gen3 x16: DATA_W 512, CQ/CC/RQ/RC tuser 183/81/137/161
// (the defaults). 256-bit layouts (pcie3_7x Gen3 x8: 85/33/60/75; pcie4 at 256 bits: 88/33/62/75)
// with DATA_W 256. Hard block configuration the endpoint expects: straddle off on all four
// interfaces, dword-aligned mode, client tags (enable_client_tag), no extended tags (TAG_W 5),
// MSI-X with the table/PBA in BAR0 at 0x20000 / 0x28000 served by the user logic, BAR0 1 MiB,
// pcie_cq_np_req tied high. The core runs on clk with AXI_DATA_W = AXIS_DATA_W = DATA_W.
//
// MAC_DOMAIN = 1 (boards, the default): tsnic_core with TX_GATE_EXTERNAL = 1, its pre-gate frame stream
// into tsnic_mac_tx, whose launch gate runs on tx_clk with the PHC time carried by the core's
// tsnic_td_source to a tsnic_td_sink on tx_clk (TX_PERIOD_FX = tx_clk's nominal period; its lock shows in
// MAC_TD_STATUS). Resets: tsnic_mac_tx takes rst and tx_rst and resets both halves of its crossings
// on either; a MAC TX reset alone (link down) loses the frames in flight but not their completions:
// they complete FLUSHED from the core side's record, and the core runs on.
// RX with MAC_DOMAIN = 1: the arrival timestamp is taken at the start of frame on rx_clk by tsnic_mac_rx
// from a second tsnic_td_sink on rx_clk (RX_PERIOD_FX; its lock is MAC_TD_STATUS.RX_LOCKED), plus
// RX_LAT_COMP_NS (carried to rx_clk by tsnic_mac_rx), and crosses to clk with the frame in tsnic_mac_rx's
// async FIFO (room for two RX_MAX_FRAME_LEN frames); frames narrower than the core's stream
// (RX_DATA_W < AXIS_DATA_W: the 64-bit XGMII MAC) are widened on clk by tsnic_axis_upsize. The core
// takes the stamp from tuser (RX_TS_EXTERNAL = 1). Frames tsnic_mac_rx drops (no room at their first
// beat) are counted on rx_clk and the count crosses with tsnic_cdc_bus (RX_CNT_DROP_MAC). Resets as on
// the TX side: rst OR rx_rst on both sides of the crossing.
// MAC_DOMAIN = 0: the gate stays in the core on clk and m_axis_tx_* is on clk (the single-clock
// configuration), and RX is stamped in the core on clk from its PHC (RX_TS_EXTERNAL = 0).
`resetall
`timescale 1ns / 1ps
`default_nettype none
`include "tsnic_contract.vh"

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
    parameter CPL_MAX_BURST_LOG2 = 3,    // completion records per write burst: up to 2^N (32 << N <= MAX_WR_BYTES)
    parameter CPLH_LIMIT    = (DATA_W == 512) ? 128 : 64,    // the PCIe block's completion buffer:
    parameter CPLD_LIMIT    = (DATA_W == 512) ? 1920 : 960,  // headers, 16-byte data credits (BOARDS.md)
    parameter NUM_VECTORS   = 4,         // MSI-X table size; vector 0 = the core's irq
    parameter BOARD_ID      = 0,         // FLASH_CAP board id (docs/FIRMWARE.md)
    parameter FLASH_SIZE_LOG2 = 27,      // configuration flash size (128 MB)
    parameter FLASH_WRITABLE = 1,        // 0: the configuration flash is not reachable (SUME)
    parameter GOLDEN        = 0,         // 1: the golden image (its boot selector runs)
    parameter MAC_DOMAIN    = 1,         // 1: launch gate on tx_clk (tsnic_mac_tx); 0: on clk, in the core
    parameter TX_MAC_LAG    = 0,         // 1: the MAC reports line starts (s_mac_tx_lag_*): stamps are them;
                                         // 2: tsnic_cmac_tx_lag derives them (100G CMAC line; MAC_DOMAIN = 1)
    parameter [63:0] TX_PERIOD_FX = 64'd13327413670,  // tx_clk nominal period, ns * 2^32 (322.265625 MHz;
                                                      //   156.25 MHz: 27487790694)
    parameter [63:0] RX_PERIOD_FX = TX_PERIOD_FX,     // rx_clk nominal period, ns * 2^32
    parameter RX_DATA_W     = AXIS_DATA_W,            // s_axis_rx_* width (MAC_DOMAIN = 1: 64 for XGMII)
    parameter RX_SOF_IN     = 0,                      // 1: rx_sof / rx_sof_lane4 give the start of frame
    parameter RX_MAX_FRAME_LEN = 9600,                // bytes without FCS the RX crossing holds two of
    parameter PCIE_STATUS_ENC = 0,   // pcie_width / pcie_speed codes: 0 UltraScale+ pcie4(c) (PG213: width
                                     //   log2(lanes), speed gen - 1); 1 7-series Gen3 pcie3_7x (PG023) and
                                     //   UltraScale Gen3 (PG156): width = lane count, speed one-hot
    parameter MAC_KIND = 1,          // MAC_LINK_STATUS.MAC_KIND: 1 CMAC (mac_rx_up = RX aligned), 2 10GBASE-R
                                     //   (block lock), 0 none
    parameter SIM_GATE = 0           // 1: the core's gated blocks on sim_gclk* (co-simulation only; 0 leaves
                                     //   no logic: tie sim_gclk* to 0 on a board)
) (
    input  wire                     clk,
    input  wire                     rst,
    input  wire                     tx_clk,
    input  wire                     tx_rst,

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
    input  wire                     s_mac_tx_lag_valid,
    input  wire [15:0]              s_mac_tx_lag_ns,

    input  wire                     rx_clk,
    input  wire                     rx_rst,
    input  wire [RX_DATA_W-1:0]     s_axis_rx_tdata,
    input  wire [RX_DATA_W/8-1:0]   s_axis_rx_tkeep,
    input  wire                     s_axis_rx_tuser,      // bad frame (FCS error), on the last beat
    input  wire                     s_axis_rx_tvalid,
    output wire                     s_axis_rx_tready,
    input  wire                     s_axis_rx_tlast,
    input  wire                     rx_sof,
    input  wire                     rx_sof_lane4,

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

    input  wire [7:0]               phy_status,

    input  wire                     pcie_lnk_up,
    input  wire [5:0]               pcie_ltssm,
    input  wire [3:0]               pcie_width,
    input  wire [2:0]               pcie_speed,
    input  wire                     mac_rx_up,

    output wire                     pps,
    output wire                     stat_dma_rd_err,
    output wire                     stat_bar_bad_np,
    output wire                     stat_bar_bad_posted,

    // co-simulation clock gating of the core's blocks (tsnic_core's sim_gclk*, docs/ARCHITECTURE.md,
    // "Gated blocks"): clk, held low at an edge where sim_gate_hold says the block holds
    /* verilator lint_off UNUSEDSIGNAL */   // no reader without SIM_GATE
    input  wire                     sim_gclk,
    input  wire                     sim_gclk_df,
    input  wire                     sim_gclk_cw,
    input  wire                     sim_gclk_fl,
    input  wire                     sim_gclk_rx,
    input  wire                     sim_gclk_rg,
    /* verilator lint_on UNUSEDSIGNAL */
    output wire [5:0]               sim_gate_hold
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
    .NUM_VECTORS(NUM_VECTORS), .CPLH_LIMIT(CPLH_LIMIT), .CPLD_LIMIT(CPLD_LIMIT)
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

// the core's pre-gate TX stream and the time distribution (MAC_DOMAIN = 1; unused with 0)
wire                    frm_valid, frm_ready, frm_late, frm_capped;
wire [63:0]             frm_launch_ns, frm_req_launch_ns;
wire [QUEUE_W-1:0]      frm_queue;
wire [15:0]             frm_ring_index, frm_len;
wire [31:0]             frm_cookie;
wire [CORE_NODE_W-1:0]  frm_handle;
wire [AXIS_DATA_W-1:0]  pay_tdata;
wire [AXIS_DATA_W/8-1:0] pay_tkeep;
wire                    pay_tlast, pay_tuser, pay_tvalid, pay_tready;
wire                    cpl_valid, cpl_ready, cpl_late_capped, cpl_handle_valid;
wire [QUEUE_W-1:0]      cpl_queue;
wire [15:0]             cpl_ring_index, cpl_len;
wire [31:0]             cpl_cookie;
wire [63:0]             cpl_launch_ns, cpl_depart_ns;
wire [7:0]              cpl_status, cpl_reason;
wire [CORE_NODE_W-1:0]  cpl_handle;
wire                    gate_flush;
wire [31:0]             gate_lat_comp_ns;
wire [63:0]             td_ns;
wire [31:0]             td_fns;
wire [39:0]             td_inc;
wire                    td_step, td_toggle;
wire                    tx_time_locked;
wire [AXIS_DATA_W-1:0]  core_tx_tdata;
wire [AXIS_DATA_W/8-1:0] core_tx_tkeep;
wire                    core_tx_tvalid, core_tx_tready, core_tx_tlast;
wire [AXIS_USER_W-1:0]  core_tx_tuser;
wire [31:0]             rx_lat_comp_ns;
wire                    rx_time_locked;
wire [31:0]             rx_drop_count;
// the core's RX input (MAC_DOMAIN = 1: out of the crossing; 0: s_axis_rx_* as it comes)
wire [AXIS_DATA_W-1:0]  core_rx_tdata;
wire [AXIS_DATA_W/8-1:0] core_rx_tkeep;
wire                    core_rx_tvalid, core_rx_tready, core_rx_tlast;
wire [64:0]             core_rx_tuser;

// ------------------------------------------------------------------------------------------------
// MAC_LINK_STATUS: the PCIe fields are on clk already (registered once, decoded); MAC_RX_UP crosses
// from the MAC RX clock (one bit: a synchronizer, no bus to tear)
reg        lnk_up_reg = 1'b0;
reg [5:0]  ltssm_reg = 6'd0;
reg [3:0]  width_raw_reg = 4'd0;
reg [2:0]  speed_raw_reg = 3'd0;
always @(posedge clk) begin
    lnk_up_reg <= pcie_lnk_up;
    ltssm_reg <= pcie_ltssm;
    width_raw_reg <= pcie_width;
    speed_raw_reg <= pcie_speed;
end

reg [4:0] width_lanes;   // 1..16; 0 = a code that is none of these
reg [2:0] speed_gen;     // 1..4; 0 = a code that is none of these
always @* begin
    width_lanes = 5'd0;
    speed_gen = 3'd0;
    if (PCIE_STATUS_ENC == 0) begin
        case (width_raw_reg)
            4'd0: width_lanes = 5'd1;
            4'd1: width_lanes = 5'd2;
            4'd2: width_lanes = 5'd4;
            4'd3: width_lanes = 5'd8;
            4'd4: width_lanes = 5'd16;
            default: width_lanes = 5'd0;
        endcase
        case (speed_raw_reg)
            3'd0: speed_gen = 3'd1;
            3'd1: speed_gen = 3'd2;
            3'd2: speed_gen = 3'd3;
            3'd3: speed_gen = 3'd4;
            default: speed_gen = 3'd0;
        endcase
    end else begin
        case (width_raw_reg)
            4'b0001: width_lanes = 5'd1;
            4'b0010: width_lanes = 5'd2;
            4'b0100: width_lanes = 5'd4;
            4'b1000: width_lanes = 5'd8;
            default: width_lanes = 5'd0;
        endcase
        case (speed_raw_reg)
            3'b001: speed_gen = 3'd1;
            3'b010: speed_gen = 3'd2;
            3'b100: speed_gen = 3'd3;
            default: speed_gen = 3'd0;
        endcase
    end
end

wire mac_rx_up_clk;
tsnic_cdc_sync #(.WIDTH(1), .INIT(1'b0)) mac_rx_up_sync_inst (
    .clk(clk), .rst(1'b0), .in(mac_rx_up), .out(mac_rx_up_clk)
);

localparam [1:0] MAC_KIND_BITS = MAC_KIND;
reg [31:0] link_status_reg = 32'd0;
always @(posedge clk) begin
    link_status_reg <= 32'd0;
    link_status_reg[`TSNIC_MAC_LINK_STATUS_BOARD_BIT] <= 1'b1;
    link_status_reg[`TSNIC_MAC_LINK_STATUS_PCIE_LINK_UP_BIT] <= lnk_up_reg;
    link_status_reg[`TSNIC_MAC_LINK_STATUS_MAC_RX_UP_BIT] <= (MAC_KIND != 0) && mac_rx_up_clk;
    link_status_reg[`TSNIC_MAC_LINK_STATUS_MAC_KIND_BIT +: 2] <= MAC_KIND_BITS;
    link_status_reg[`TSNIC_MAC_LINK_STATUS_PCIE_LTSSM_BIT +: 6] <= ltssm_reg;
    link_status_reg[`TSNIC_MAC_LINK_STATUS_PCIE_SPEED_BIT +: 3] <= speed_gen;
    link_status_reg[`TSNIC_MAC_LINK_STATUS_PCIE_WIDTH_BIT +: 5] <= width_lanes;
end
wire [31:0] link_status = link_status_reg;

/* verilator lint_off PINCONNECTEMPTY */
tsnic_core #(
    .NUM_QUEUES(NUM_QUEUES),
    .CLK_FREQ_HZ(CLK_FREQ_HZ),
    .AXI_DATA_W(DATA_W),
    .AXI_ID_W(AXI_ID_W),
    .CPL_MAX_BURST_LOG2(CPL_MAX_BURST_LOG2),
    .AXIS_DATA_W(AXIS_DATA_W),
    .AXIS_USER_W(AXIS_USER_W),
    .BOARD_ID(BOARD_ID),
    .FLASH_SIZE_LOG2(FLASH_SIZE_LOG2),
    .FLASH_WRITABLE(FLASH_WRITABLE),
    .GOLDEN(GOLDEN),
    .SIM_FAST_FORWARD(SIM_GATE),   // the gated blocks' holds need the quiet signals (sim_ff_warp stays 0)
    .SIM_GATE(SIM_GATE),
    .TX_GATE_EXTERNAL(MAC_DOMAIN != 0),
    .TX_MAC_LAG((MAC_DOMAIN == 0 && TX_MAC_LAG == 1) ? 1 : 0),
    .RX_TS_EXTERNAL(MAC_DOMAIN != 0)
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
    // MAC_DOMAIN = 0: the launch gate's output; 1: zeros (the gate is tsnic_mac_tx's)
    .m_axis_tx_tdata(core_tx_tdata), .m_axis_tx_tkeep(core_tx_tkeep), .m_axis_tx_tvalid(core_tx_tvalid),
    .m_axis_tx_tready(core_tx_tready), .m_axis_tx_tlast(core_tx_tlast), .m_axis_tx_tuser(core_tx_tuser),
    // MAC_DOMAIN = 0: the MAC's line-start reports on clk (TX_MAC_LAG); 1: tsnic_mac_tx takes them
    .s_mac_tx_lag_valid((MAC_DOMAIN == 0) && s_mac_tx_lag_valid), .s_mac_tx_lag_ns(s_mac_tx_lag_ns),
    .m_tx_frm_valid(frm_valid), .m_tx_frm_ready(frm_ready), .m_tx_frm_launch_ns(frm_launch_ns),
    .m_tx_frm_req_launch_ns(frm_req_launch_ns), .m_tx_frm_late(frm_late), .m_tx_frm_capped(frm_capped),
    .m_tx_frm_queue(frm_queue), .m_tx_frm_ring_index(frm_ring_index), .m_tx_frm_cookie(frm_cookie),
    .m_tx_frm_len(frm_len), .m_tx_frm_handle(frm_handle),
    .m_axis_tx_pay_tdata(pay_tdata), .m_axis_tx_pay_tkeep(pay_tkeep), .m_axis_tx_pay_tlast(pay_tlast),
    .m_axis_tx_pay_tuser(pay_tuser), .m_axis_tx_pay_tvalid(pay_tvalid), .m_axis_tx_pay_tready(pay_tready),
    .s_tx_cpl_valid(cpl_valid), .s_tx_cpl_ready(cpl_ready), .s_tx_cpl_queue(cpl_queue),
    .s_tx_cpl_ring_index(cpl_ring_index), .s_tx_cpl_cookie(cpl_cookie), .s_tx_cpl_launch_ns(cpl_launch_ns),
    .s_tx_cpl_depart_ns(cpl_depart_ns), .s_tx_cpl_len(cpl_len), .s_tx_cpl_status(cpl_status),
    .s_tx_cpl_reason(cpl_reason), .s_tx_cpl_capped(cpl_late_capped), .s_tx_cpl_handle(cpl_handle),
    .s_tx_cpl_handle_valid(cpl_handle_valid),
    .tx_gate_flush(gate_flush), .tx_gate_lat_comp_ns(gate_lat_comp_ns),
    .td_ns(td_ns), .td_fns(td_fns), .td_inc(td_inc), .td_step(td_step), .td_toggle(td_toggle),
    .mac_tx_time_locked(tx_time_locked), .mac_rx_time_locked(rx_time_locked), .mac_rx_lat_comp_ns(rx_lat_comp_ns),
    .mac_rx_drop_count(rx_drop_count),
    // RX: MAC_DOMAIN = 1: stamped on rx_clk (tuser[64:1], RX_TS_EXTERNAL = 1); 0: stamped in the core
    .s_axis_rx_tdata(core_rx_tdata), .s_axis_rx_tkeep(core_rx_tkeep), .s_axis_rx_tvalid(core_rx_tvalid),
    .s_axis_rx_tready(core_rx_tready), .s_axis_rx_tlast(core_rx_tlast), .s_axis_rx_tuser(core_rx_tuser),
    .qspi_clk(qspi_clk), .qspi_cs_n(qspi_cs_n), .qspi_dq_o(qspi_dq_o), .qspi_dq_oe(qspi_dq_oe),
    .qspi_dq_i(qspi_dq_i),
    .icap_ce(icap_ce), .icap_csib(icap_csib), .icap_rdwrb(icap_rdwrb), .icap_i(icap_i), .icap_o(icap_o),
    .phy_status(phy_status),
    .link_status(link_status),
    .irq(core_irq),
    .pps(pps),
    .sim_ff_warp(32'd0), .sim_ff_quiet(ff_quiet), .sim_ff_wake_ns(ff_wake_ns), .sim_ff_phc_ns(ff_phc_ns),
    .sim_ff_inc(ff_inc), .sim_ff_chunk_ns(ff_chunk_ns),
    .sim_gclk(sim_gclk), .sim_gclk_df(sim_gclk_df), .sim_gclk_cw(sim_gclk_cw), .sim_gclk_fl(sim_gclk_fl),
    .sim_gclk_rx(sim_gclk_rx), .sim_gclk_rg(sim_gclk_rg),
    .sim_gate_hold(sim_gate_hold)
);
/* verilator lint_on PINCONNECTEMPTY */

generate
if (MAC_DOMAIN != 0) begin : mac_domain
    // the MAC-domain time restarts with either reset (tsnic_mac_tx combines the two itself, and
    // completes the frames a lone MAC reset loses)
    wire rst_tx_clk;
    tsnic_cdc_sync #(.WIDTH(1), .INIT(1'b1)) rst_to_tx_clk_inst (
        .clk(tx_clk), .rst(1'b0), .in(rst), .out(rst_tx_clk)
    );
    reg mtx_mac_rst_reg = 1'b1;
    always @(posedge tx_clk) mtx_mac_rst_reg <= tx_rst || rst_tx_clk;

    wire [63:0] tx_time_ns;
    wire        tx_time_valid;
    /* verilator lint_off UNUSEDSIGNAL */
    wire [31:0] unused_tx_time_fns;
    wire        unused_tx_time_step;
    /* verilator lint_on UNUSEDSIGNAL */

    tsnic_td_sink #(
        .PERIOD_FX(TX_PERIOD_FX),
        .SRC_PERIOD_FX(64'd17179869184)   // clk: 4 ns
    ) td_sink_inst (
        .clk(tx_clk), .rst(mtx_mac_rst_reg),
        .td_ns(td_ns), .td_fns(td_fns), .td_inc(td_inc), .td_step(td_step), .td_toggle(td_toggle),
        .time_ns(tx_time_ns), .time_fns(unused_tx_time_fns), .time_valid(tx_time_valid),
        .locked(tx_time_locked), .time_step(unused_tx_time_step)
    );

    tsnic_mac_tx #(
        .DATA_W(AXIS_DATA_W),
        .NODE_W(CORE_NODE_W),
        .QUEUE_W(QUEUE_W),
        .MAX_FRAME_LEN(9600),
        .PAY_FIFO_LOG2($clog2((9600 + AXIS_DATA_W / 8 - 1) / (AXIS_DATA_W / 8))),
        .MAC_LAG(TX_MAC_LAG != 0 ? 1 : 0)
    ) mac_tx_inst (
        .clk(clk), .rst(rst), .flush(gate_flush), .tx_lat_comp_ns(gate_lat_comp_ns), .phc_ns(td_ns),
        .s_frm_valid(frm_valid), .s_frm_ready(frm_ready), .s_frm_launch_ns(frm_launch_ns),
        .s_frm_req_launch_ns(frm_req_launch_ns), .s_frm_late(frm_late), .s_frm_capped(frm_capped),
        .s_frm_queue(frm_queue), .s_frm_ring_index(frm_ring_index), .s_frm_cookie(frm_cookie),
        .s_frm_len(frm_len), .s_frm_handle(frm_handle),
        .s_axis_pay_tdata(pay_tdata), .s_axis_pay_tkeep(pay_tkeep), .s_axis_pay_tlast(pay_tlast),
        .s_axis_pay_tuser(pay_tuser), .s_axis_pay_tvalid(pay_tvalid), .s_axis_pay_tready(pay_tready),
        .m_cpl_req_valid(cpl_valid), .m_cpl_req_ready(cpl_ready), .m_cpl_req_queue(cpl_queue),
        .m_cpl_req_ring_index(cpl_ring_index), .m_cpl_req_cookie(cpl_cookie),
        .m_cpl_req_launch_ns(cpl_launch_ns), .m_cpl_req_depart_ns(cpl_depart_ns), .m_cpl_req_len(cpl_len),
        .m_cpl_req_status(cpl_status), .m_cpl_req_reason(cpl_reason), .m_cpl_req_capped(cpl_late_capped),
        .m_cpl_req_handle(cpl_handle), .m_cpl_req_handle_valid(cpl_handle_valid),
        .mac_clk(tx_clk), .mac_rst(tx_rst), .tx_time_ns(tx_time_ns), .tx_time_valid(tx_time_valid),
        .m_axis_tx_tdata(m_axis_tx_tdata), .m_axis_tx_tkeep(m_axis_tx_tkeep), .m_axis_tx_tlast(m_axis_tx_tlast),
        .m_axis_tx_tvalid(m_axis_tx_tvalid), .m_axis_tx_tready(m_axis_tx_tready),
        .s_mac_lag_valid(mac_lag_valid), .s_mac_lag_ns(mac_lag_ns)
    );
    assign m_axis_tx_tuser = {AXIS_USER_W{1'b0}};

    // the line-start reports: the MAC's own (TX_MAC_LAG = 1), or derived here from the stream the
    // MAC takes (TX_MAC_LAG = 2: the CMAC, 100G, its AXIS clock 322.265625 MHz; docs/BOARDS.md,
    // "Departure stamp"), reset with the gate's MAC side
    wire        mac_lag_valid;
    wire [15:0] mac_lag_ns;
    if (TX_MAC_LAG == 2) begin : derived_lag
        tsnic_cmac_tx_lag #(.DATA_W(AXIS_DATA_W)) cmac_lag_inst (
            .clk(tx_clk), .rst(mtx_mac_rst_reg),
            .s_axis_tvalid(m_axis_tx_tvalid), .s_axis_tready(m_axis_tx_tready),
            .s_axis_tlast(m_axis_tx_tlast), .s_axis_tkeep(m_axis_tx_tkeep),
            .m_lag_valid(mac_lag_valid), .m_lag_ns(mac_lag_ns)
        );
        /* verilator lint_off UNUSEDSIGNAL */
        wire unused_mac_lag = &{1'b0, s_mac_tx_lag_valid, s_mac_tx_lag_ns};
        /* verilator lint_on UNUSEDSIGNAL */
    end else begin : mac_lag
        assign mac_lag_valid = s_mac_tx_lag_valid;
        assign mac_lag_ns = s_mac_tx_lag_ns;
    end
    assign core_tx_tready = 1'b0;

    /* verilator lint_off UNUSEDSIGNAL */
    wire unused_core_tx = &{1'b0, core_tx_tdata, core_tx_tkeep, core_tx_tvalid, core_tx_tlast, core_tx_tuser};
    /* verilator lint_on UNUSEDSIGNAL */
end else begin : clk_domain
    assign m_axis_tx_tdata = core_tx_tdata;
    assign m_axis_tx_tkeep = core_tx_tkeep;
    assign m_axis_tx_tvalid = core_tx_tvalid;
    assign m_axis_tx_tlast = core_tx_tlast;
    assign m_axis_tx_tuser = core_tx_tuser;
    assign core_tx_tready = m_axis_tx_tready;
    assign frm_ready = 1'b0;
    assign pay_tready = 1'b0;
    assign cpl_valid = 1'b0;
    assign cpl_queue = {QUEUE_W{1'b0}};
    assign cpl_ring_index = 16'd0;
    assign cpl_cookie = 32'd0;
    assign cpl_launch_ns = 64'd0;
    assign cpl_depart_ns = 64'd0;
    assign cpl_len = 16'd0;
    assign cpl_status = 8'd0;
    assign cpl_reason = 8'd0;
    assign cpl_late_capped = 1'b0;
    assign cpl_handle = {CORE_NODE_W{1'b0}};
    assign cpl_handle_valid = 1'b0;
    assign tx_time_locked = 1'b0;

    /* verilator lint_off UNUSEDSIGNAL */
    wire unused_ext = &{1'b0, tx_clk, tx_rst, frm_valid, frm_launch_ns, frm_req_launch_ns, frm_late,
                        frm_capped, frm_queue, frm_ring_index, frm_cookie, frm_len, frm_handle, pay_tdata,
                        pay_tkeep, pay_tlast, pay_tuser, pay_tvalid, cpl_ready, gate_flush, gate_lat_comp_ns,
                        td_ns, td_fns, td_inc, td_step, td_toggle};
    /* verilator lint_on UNUSEDSIGNAL */
end
endgenerate



// ------------------------------------------------------------------------------------------------
// RX
localparam RX_KEEP_W = RX_DATA_W / 8;
localparam RX_MAX_BEATS = (RX_MAX_FRAME_LEN + 4 + RX_KEEP_W - 1) / RX_KEEP_W;
localparam RX_FIFO_LOG2 = $clog2(2 * RX_MAX_BEATS);

generate
if (MAC_DOMAIN == 0 && RX_DATA_W != AXIS_DATA_W) begin : g_bad_rx_w
    tsnic_param_error_board_core_rx_data_w_must_equal_axis_data_w_with_mac_domain_0 bad_rx_w_inst ();
end
if (RX_DATA_W > AXIS_DATA_W || AXIS_DATA_W % RX_DATA_W != 0) begin : g_bad_rx_ratio
    tsnic_param_error_board_core_axis_data_w_multiple_of_rx_data_w bad_rx_ratio_inst ();
end
if ((32 << CPL_MAX_BURST_LOG2) > MAX_WR_BYTES) begin : g_bad_cpl_burst
    // a completion burst must fit one write TLP of tsnic_pcie_us_wr (it cuts at the MPS, too)
    tsnic_param_error_board_core_cpl_burst_over_max_wr_bytes bad_cpl_burst_inst ();
end

if (MAC_DOMAIN != 0) begin : mac_rx_domain
    // both sides of the crossing reset together: rst OR rx_rst on each side
    wire rx_rst_clk, rst_rx_clk;
    tsnic_cdc_sync #(.WIDTH(1), .INIT(1'b1)) rx_rst_to_clk_inst (
        .clk(clk), .rst(1'b0), .in(rx_rst), .out(rx_rst_clk)
    );
    tsnic_cdc_sync #(.WIDTH(1), .INIT(1'b1)) rst_to_rx_clk_inst (
        .clk(rx_clk), .rst(1'b0), .in(rst), .out(rst_rx_clk)
    );
    reg mrx_rst_reg = 1'b1, mrx_mac_rst_reg = 1'b1;
    always @(posedge clk) mrx_rst_reg <= rst || rx_rst_clk;
    always @(posedge rx_clk) mrx_mac_rst_reg <= rx_rst || rst_rx_clk;

    // the PHC time on rx_clk
    wire [63:0] rx_time_ns;
    wire [31:0] rx_time_fns;
    /* verilator lint_off UNUSEDSIGNAL */
    wire        unused_rx_time_valid, unused_rx_time_step;
    /* verilator lint_on UNUSEDSIGNAL */
    tsnic_td_sink #(
        .PERIOD_FX(RX_PERIOD_FX),
        .SRC_PERIOD_FX(64'd17179869184)   // clk: 4 ns
    ) rx_td_sink_inst (
        .clk(rx_clk), .rst(mrx_mac_rst_reg),
        .td_ns(td_ns), .td_fns(td_fns), .td_inc(td_inc), .td_step(td_step), .td_toggle(td_toggle),
        .time_ns(rx_time_ns), .time_fns(rx_time_fns), .time_valid(unused_rx_time_valid),
        .locked(rx_time_locked), .time_step(unused_rx_time_step)
    );

    // start of frame: the MAC's (XGMII) or the first beat's own cycle (CMAC: no sof of its own; the
    // stream is then delayed two cycles so that tsnic_mac_rx has the stamp ready at the first beat)
    wire                 mac_sof, mac_sof_lane4;
    wire [RX_DATA_W-1:0] mac_tdata;
    wire [RX_KEEP_W-1:0] mac_tkeep;
    wire                 mac_tvalid, mac_tlast, mac_tuser;
    if (RX_SOF_IN != 0) begin : g_sof_in
        assign mac_sof = rx_sof;
        assign mac_sof_lane4 = rx_sof_lane4;
        assign mac_tdata = s_axis_rx_tdata;
        assign mac_tkeep = s_axis_rx_tkeep;
        assign mac_tvalid = s_axis_rx_tvalid;
        assign mac_tlast = s_axis_rx_tlast;
        assign mac_tuser = s_axis_rx_tuser;
    end else begin : g_sof_first_beat
        reg in_frame_reg = 1'b0;
        reg [RX_DATA_W-1:0] d1_data_reg = {RX_DATA_W{1'b0}}, d2_data_reg = {RX_DATA_W{1'b0}};
        reg [RX_KEEP_W-1:0] d1_keep_reg = {RX_KEEP_W{1'b0}}, d2_keep_reg = {RX_KEEP_W{1'b0}};
        reg d1_valid_reg = 1'b0, d2_valid_reg = 1'b0;
        reg d1_last_reg = 1'b0, d2_last_reg = 1'b0;
        reg d1_user_reg = 1'b0, d2_user_reg = 1'b0;
        always @(posedge rx_clk) begin
            if (s_axis_rx_tvalid) in_frame_reg <= !s_axis_rx_tlast;
            d1_data_reg <= s_axis_rx_tdata;
            d1_keep_reg <= s_axis_rx_tkeep;
            d1_valid_reg <= s_axis_rx_tvalid;
            d1_last_reg <= s_axis_rx_tlast;
            d1_user_reg <= s_axis_rx_tuser;
            d2_data_reg <= d1_data_reg;
            d2_keep_reg <= d1_keep_reg;
            d2_valid_reg <= d1_valid_reg;
            d2_last_reg <= d1_last_reg;
            d2_user_reg <= d1_user_reg;
            if (mrx_mac_rst_reg) begin
                in_frame_reg <= 1'b0;
                d1_valid_reg <= 1'b0;
                d2_valid_reg <= 1'b0;
            end
        end
        assign mac_sof = s_axis_rx_tvalid && !in_frame_reg && !mrx_mac_rst_reg;
        assign mac_sof_lane4 = 1'b0;
        assign mac_tdata = d2_data_reg;
        assign mac_tkeep = d2_keep_reg;
        assign mac_tvalid = d2_valid_reg;
        assign mac_tlast = d2_last_reg;
        assign mac_tuser = d2_user_reg;
        /* verilator lint_off UNUSEDSIGNAL */
        wire unused_sof = &{1'b0, rx_sof, rx_sof_lane4};
        /* verilator lint_on UNUSEDSIGNAL */
    end
    assign s_axis_rx_tready = 1'b1;

    wire [RX_DATA_W-1:0] x_tdata;
    wire [RX_KEEP_W-1:0] x_tkeep;
    wire                 x_tvalid, x_tready, x_tlast;
    wire [64:0]          x_tuser;
    wire                 rx_drop_pulse;

    tsnic_mac_rx #(
        .DATA_W(RX_DATA_W),
        .MAX_FRAME_LEN(RX_MAX_FRAME_LEN),
        .FIFO_LOG2(RX_FIFO_LOG2),
        .PERIOD_FX(RX_PERIOD_FX),
        .SOF_DELAY_FX((RX_SOF_IN != 0) ? RX_PERIOD_FX : 64'd0)
    ) mac_rx_inst (
        .clk(clk), .rst(mrx_rst_reg), .rx_lat_comp_ns(rx_lat_comp_ns),
        .m_axis_rx_tdata(x_tdata), .m_axis_rx_tkeep(x_tkeep), .m_axis_rx_tvalid(x_tvalid),
        .m_axis_rx_tready(x_tready), .m_axis_rx_tlast(x_tlast), .m_axis_rx_tuser(x_tuser),
        .mac_clk(rx_clk), .mac_rst(mrx_mac_rst_reg), .rx_time_ns(rx_time_ns), .rx_time_fns(rx_time_fns),
        .sof(mac_sof), .sof_lane4(mac_sof_lane4),
        .s_axis_mac_tdata(mac_tdata), .s_axis_mac_tkeep(mac_tkeep), .s_axis_mac_tvalid(mac_tvalid),
        .s_axis_mac_tlast(mac_tlast), .s_axis_mac_tuser(mac_tuser),
        .drop_pulse(rx_drop_pulse)
    );

    // frames dropped at the crossing: counted on rx_clk, the count carried to clk (a value, so no
    // event is lost however close together they come)
    reg [31:0] drop_cnt_reg = 32'd0;
    always @(posedge rx_clk) begin
        if (rx_drop_pulse) drop_cnt_reg <= drop_cnt_reg + 32'd1;
        if (mrx_mac_rst_reg) drop_cnt_reg <= 32'd0;
    end
    /* verilator lint_off UNUSEDSIGNAL */
    wire unused_drop_update;
    /* verilator lint_on UNUSEDSIGNAL */
    tsnic_cdc_bus #(.WIDTH(32)) rx_drop_cdc_inst (
        .s_clk(rx_clk), .s_rst(mrx_mac_rst_reg), .s_data(drop_cnt_reg),
        .m_clk(clk), .m_rst(mrx_rst_reg), .m_data(rx_drop_count), .m_update(unused_drop_update)
    );

    if (RX_DATA_W < AXIS_DATA_W) begin : g_upsize
        tsnic_axis_upsize #(.IN_W(RX_DATA_W), .OUT_W(AXIS_DATA_W), .USER_W(65)) rx_upsize_inst (
            .clk(clk), .rst(mrx_rst_reg),
            .s_axis_tdata(x_tdata), .s_axis_tkeep(x_tkeep), .s_axis_tvalid(x_tvalid), .s_axis_tready(x_tready),
            .s_axis_tlast(x_tlast), .s_axis_tuser(x_tuser),
            .m_axis_tdata(core_rx_tdata), .m_axis_tkeep(core_rx_tkeep), .m_axis_tvalid(core_rx_tvalid),
            .m_axis_tready(core_rx_tready), .m_axis_tlast(core_rx_tlast), .m_axis_tuser(core_rx_tuser)
        );
    end else begin : g_same_w
        assign core_rx_tdata = x_tdata;
        assign core_rx_tkeep = x_tkeep;
        assign core_rx_tvalid = x_tvalid;
        assign core_rx_tlast = x_tlast;
        assign core_rx_tuser = x_tuser;
        assign x_tready = core_rx_tready;
    end
end else begin : clk_rx_domain
    assign core_rx_tdata = s_axis_rx_tdata;
    assign core_rx_tkeep = s_axis_rx_tkeep;
    assign core_rx_tvalid = s_axis_rx_tvalid;
    assign core_rx_tlast = s_axis_rx_tlast;
    assign core_rx_tuser = {64'd0, s_axis_rx_tuser};
    assign s_axis_rx_tready = core_rx_tready;
    assign rx_time_locked = 1'b0;
    assign rx_drop_count = 32'd0;

    /* verilator lint_off UNUSEDSIGNAL */
    wire unused_rx_ext = &{1'b0, rx_clk, rx_rst, rx_sof, rx_sof_lane4, rx_lat_comp_ns};
    /* verilator lint_on UNUSEDSIGNAL */
end
endgenerate

endmodule

`resetall
