// tsnic_core: the card core. Ports and parameters: docs/DATAPATH.md "tsnic_core ports".
//
// Wires the AXI-Lite register bridge, the register blocks (tsnic_regs, tsnic_phc, tsnic_desc_fetch's
// Q block, tsnic_cpl_write's CPL block and Q counters), the descriptor fetch, the descriptor table, the
// calendar, the payload prefetch, the launch gate, the completion writer, the configuration flash
// controller (FLASH block, tsnic_flash_ctrl: quad-SPI and ICAP pins) and the receive path
// (tsnic_rx_ts -> tsnic_rx_buf + tsnic_rx_steer -> tsnic_rx_dma, registers in tsnic_rx_regs).
// Host-memory reads: the fetch (ID {0, ...}), the prefetch (ID {1, 0, ...}) and the RX descriptor
// reads (ID {1, 1, ...}) share m_axi_ar/r through two tsnic_axi_rd_arb; writes: the completion writer
// (ID {0, ...}) and the RX DMA (frame data and RX completions, ID {1, ...}) share m_axi_aw/w/b through
// tsnic_axi_wr_arb (a burst at a time, alternating). AXI_DATA_W must equal AXIS_DATA_W (the prefetch
// moves payload words from host reads straight into the TX buffer; RX frames go the other way).
`resetall
`timescale 1ns / 1ps
`default_nettype none
`include "tsnic_contract.vh"

module tsnic_core #(
    parameter NUM_QUEUES           = 8,          // TX queues, power of two, 1..4096
    parameter NODE_W               = 10,         // 2^NODE_W descriptor-table entries (= calendar nodes)
    parameter RING_LOG2_MAX        = 16,         // largest Q_SIZE_LOG2 / CPL_SIZE_LOG2
    parameter MAX_FRAME_LEN        = 9600,       // bytes, without FCS
    parameter CLK_FREQ_HZ          = 250000000,  // nominal core clock (CAP_CLK_FREQ_HZ, PHC period reset value)
    parameter SLOT_NS              = 64,         // calendar fine slot width
    parameter SLOTS                = 1024,       // calendar fine slots
    parameter TX_BUF_BYTES         = 32768,      // on-card TX buffer (payload prefetch)
    parameter LOOKAHEAD_NS_DEFAULT = 4000,       // CTRL_LOOKAHEAD_NS after reset
    parameter AXI_DATA_W           = 64,         // host-memory AXI4 data width (32..512)
    parameter AXI_ID_W             = 8,          // AXI4 ID width (>= 3)
    parameter AXIS_DATA_W          = 64,         // TX AXI-Stream data width (64 for 10G, 512 for 100G)
    parameter AXIS_USER_W          = 1,
    parameter PF_SLOT_W            = 8,          // payload prefetch: 2^PF_SLOT_W frames in flight (added; must cover
                                                 //   host read latency x frame rate: 800 ns x 148.8 Mpps = 119)
    parameter DF_MAX_OUT_LOG2      = 5,          // descriptor fetch: read bursts outstanding (added)
    parameter DF_FIFO_LOG2         = 8,          // descriptor fetch: descriptors in flight (buffer credits) (added)
    parameter CPL_MAX_BURST_LOG2   = 3,          // completion writer: up to 2^N records per write burst (N = 0: one;
                                                 //   32 << N bytes must not exceed the PCIe write path's largest TLP)
    parameter CPL_OUT_LOG2         = 3,          // completion writer: up to 2^N + 1 write bursts waiting for B
    parameter CSLOT_W              = 12,         // calendar coarse slots: 2^CSLOT_W of SLOTS/2 fine slots (init sweep 2^CSLOT_W cycles)
    parameter [63:0] HORIZON_NS    = 64'd100000000,  // calendar horizon, CAP_HORIZON_NS (< 2^CSLOT_W * SLOTS/2 * SLOT_NS)
    parameter SIM_FAST_FORWARD     = 0,              // 1: the sim_ff_* ports work (co-simulation only; 0 leaves no logic)
    parameter SIM_GATE             = 0,              // 1 (with SIM_FAST_FORWARD): the calendar on sim_gclk (co-simulation only)
    parameter BOARD_ID             = 0,          // FLASH_CAP: 0 generic/sim, 1 U50, 2 U280, 3 U250, 4 SUME
    parameter FLASH_SIZE_LOG2      = 27,         // configuration flash size (128 MB)
    parameter FLASH_WRITABLE       = 1,          // 0: flash not reachable from the host (SUME)
    parameter GOLDEN               = 0,          // 1: golden image, its boot selector runs after configuration
    parameter [31:0] FLASH_BOOT_BASE = 32'h07FF0000, // boot record copy 0 (copy 1 at +4096); docs/FIRMWARE.md
    parameter TX_GATE_EXTERNAL     = 0,              // 0: launch gate inside, on clk (sim, core bench); 1: boards:
                                                     //   m_tx_frm_* / m_axis_tx_pay_* / s_tx_cpl_* / td_* go to
                                                     //   tsnic_mac_tx in the MAC TX domain, m_axis_tx_* unused
    parameter TX_MAC_LAG           = 0,              // internal gate: 1 = the MAC reports each frame's line start
                                                     //   (s_mac_tx_lag_*; tsnic_launch_gate MAC_LAG), departures
                                                     //   are the start on the line; 0 = the first beat's PHC
    parameter RX_NUM_QUEUES        = 4,          // RX queues (RX_NUM_QUEUES, RXQ blocks), 1..256
    parameter RX_STEER_ENTRIES     = 16,         // 5-tuple steering entries (flip-flop CAM), 1..256
    parameter RX_STEER_ET_RULES    = 2,          // EtherType steering rules (e.g. 0x88F7, L2 PTP), 1..256
    parameter RX_BUF_BYTES         = 32768,      // on-card RX frame buffer (power of two, >= RX max frame)
    parameter RX_INFO_LOG2         = 5,          // frames the RX buffer can hold at once: 2^RX_INFO_LOG2
    parameter RX_TS_EXTERNAL       = 0,          // 0: stamp arrival from the PHC here; 1: take s_axis_rx_tuser[64:1]
    parameter RX_USER_W            = 65          // s_axis_rx_tuser: [0] bad frame, [64:1] arrival ns (external stamp)
) (
    input  wire                     clk,
    input  wire                     rst,

    // BAR0: AXI-Lite slave, 20-bit byte address, 32-bit data
    input  wire [19:0]              s_axil_awaddr,
    input  wire [2:0]               s_axil_awprot,
    input  wire                     s_axil_awvalid,
    output wire                     s_axil_awready,
    input  wire [31:0]              s_axil_wdata,
    input  wire [3:0]               s_axil_wstrb,
    input  wire                     s_axil_wvalid,
    output wire                     s_axil_wready,
    output wire [1:0]               s_axil_bresp,
    output wire                     s_axil_bvalid,
    input  wire                     s_axil_bready,
    input  wire [19:0]              s_axil_araddr,
    input  wire [2:0]               s_axil_arprot,
    input  wire                     s_axil_arvalid,
    output wire                     s_axil_arready,
    output wire [31:0]              s_axil_rdata,
    output wire [1:0]               s_axil_rresp,
    output wire                     s_axil_rvalid,
    input  wire                     s_axil_rready,

    // host memory: AXI4 master, 64-bit address
    output wire [AXI_ID_W-1:0]      m_axi_awid,
    output wire [63:0]              m_axi_awaddr,
    output wire [7:0]               m_axi_awlen,
    output wire [2:0]               m_axi_awsize,
    output wire [1:0]               m_axi_awburst,
    output wire                     m_axi_awlock,
    output wire [3:0]               m_axi_awcache,
    output wire [2:0]               m_axi_awprot,
    output wire                     m_axi_awvalid,
    input  wire                     m_axi_awready,
    output wire [AXI_DATA_W-1:0]    m_axi_wdata,
    output wire [AXI_DATA_W/8-1:0]  m_axi_wstrb,
    output wire                     m_axi_wlast,
    output wire                     m_axi_wvalid,
    input  wire                     m_axi_wready,
    input  wire [AXI_ID_W-1:0]      m_axi_bid,
    input  wire [1:0]               m_axi_bresp,
    input  wire                     m_axi_bvalid,
    output wire                     m_axi_bready,
    output wire [AXI_ID_W-1:0]      m_axi_arid,
    output wire [63:0]              m_axi_araddr,
    output wire [7:0]               m_axi_arlen,
    output wire [2:0]               m_axi_arsize,
    output wire [1:0]               m_axi_arburst,
    output wire                     m_axi_arlock,
    output wire [3:0]               m_axi_arcache,
    output wire [2:0]               m_axi_arprot,
    output wire                     m_axi_arvalid,
    input  wire                     m_axi_arready,
    input  wire [AXI_ID_W-1:0]      m_axi_rid,
    input  wire [AXI_DATA_W-1:0]    m_axi_rdata,
    input  wire [1:0]               m_axi_rresp,
    input  wire                     m_axi_rlast,
    input  wire                     m_axi_rvalid,
    output wire                     m_axi_rready,

    // TX to the MAC: AXI-Stream master
    output wire [AXIS_DATA_W-1:0]   m_axis_tx_tdata,
    output wire [AXIS_DATA_W/8-1:0] m_axis_tx_tkeep,
    output wire                     m_axis_tx_tvalid,
    input  wire                     m_axis_tx_tready,
    output wire                     m_axis_tx_tlast,
    output wire [AXIS_USER_W-1:0]   m_axis_tx_tuser,
    // TX_MAC_LAG = 1: per frame the MAC took, in order, how long after its first beat's handshake the
    // frame started on the line, ns (tsnic_launch_gate; the co-simulation's wire model drives it)
    input  wire                     s_mac_tx_lag_valid,
    input  wire [15:0]              s_mac_tx_lag_ns,

    // TX_GATE_EXTERNAL = 1: the pre-gate frame stream (tsnic_mac_tx s_frm_* / s_axis_pay_*), its
    // completion requests back (tsnic_mac_tx m_cpl_req_*), the gate's controls and PHC samples for
    // tsnic_td_sink (docs/ARCHITECTURE.md, "Clock domains and time distribution"). With
    // TX_GATE_EXTERNAL = 0 the outputs are 0 and the inputs unused (tie s_tx_cpl_valid to 0).
    output wire                     m_tx_frm_valid,
    input  wire                     m_tx_frm_ready,
    output wire [63:0]              m_tx_frm_launch_ns,
    output wire [63:0]              m_tx_frm_req_launch_ns,
    output wire                     m_tx_frm_late,
    output wire                     m_tx_frm_capped,
    output wire [((NUM_QUEUES > 1) ? $clog2(NUM_QUEUES) : 1)-1:0] m_tx_frm_queue,
    output wire [15:0]              m_tx_frm_ring_index,
    output wire [31:0]              m_tx_frm_cookie,
    output wire [15:0]              m_tx_frm_len,
    output wire [NODE_W-1:0]        m_tx_frm_handle,
    output wire [AXIS_DATA_W-1:0]   m_axis_tx_pay_tdata,
    output wire [AXIS_DATA_W/8-1:0] m_axis_tx_pay_tkeep,
    output wire                     m_axis_tx_pay_tlast,
    output wire                     m_axis_tx_pay_tuser,   // 1 on a beat whose host read failed (DMA_ERROR)
    output wire                     m_axis_tx_pay_tvalid,
    input  wire                     m_axis_tx_pay_tready,
    input  wire                     s_tx_cpl_valid,
    output wire                     s_tx_cpl_ready,
    input  wire [((NUM_QUEUES > 1) ? $clog2(NUM_QUEUES) : 1)-1:0] s_tx_cpl_queue,
    input  wire [15:0]              s_tx_cpl_ring_index,
    input  wire [31:0]              s_tx_cpl_cookie,
    input  wire [63:0]              s_tx_cpl_launch_ns,
    input  wire [63:0]              s_tx_cpl_depart_ns,
    input  wire [15:0]              s_tx_cpl_len,
    input  wire [7:0]               s_tx_cpl_status,
    input  wire [7:0]               s_tx_cpl_reason,
    input  wire                     s_tx_cpl_capped,
    input  wire [NODE_W-1:0]        s_tx_cpl_handle,
    input  wire                     s_tx_cpl_handle_valid,
    output wire                     tx_gate_flush,
    output wire [31:0]              tx_gate_lat_comp_ns,
    output wire [63:0]              td_ns,
    output wire [31:0]              td_fns,
    output wire [39:0]              td_inc,
    output wire                     td_step,
    output wire                     td_toggle,
    input  wire                     mac_tx_time_locked,   // tsnic_td_sink locked (TX domain; asynchronous)
    input  wire                     mac_rx_time_locked,   // tsnic_td_sink locked (RX domain; asynchronous)
    input  wire [7:0]               phy_status,           // MAC_PHY_STATUS bits from the board (asynchronous)
    input  wire [31:0]              link_status,          // MAC_LINK_STATUS from the board (on clk; 0: not a board)
    output wire [31:0]              mac_rx_lat_comp_ns,   // RX_LAT_COMP_NS, for tsnic_mac_rx
    input  wire [31:0]              mac_rx_drop_count,    // frames tsnic_mac_rx dropped (on clk; RX_TS_EXTERNAL only)

    // RX from the MAC: AXI-Stream slave (always ready: a frame that cannot be kept is dropped and counted)
    input  wire [AXIS_DATA_W-1:0]   s_axis_rx_tdata,
    input  wire [AXIS_DATA_W/8-1:0] s_axis_rx_tkeep,
    input  wire                     s_axis_rx_tvalid,
    output wire                     s_axis_rx_tready,
    input  wire                     s_axis_rx_tlast,
    input  wire [RX_USER_W-1:0]     s_axis_rx_tuser,

    output wire                     irq,
    output wire                     pps,

    // configuration flash, quad SPI (STARTUPE3/E2 in board/); tie qspi_dq_i high when absent
    output wire                     qspi_clk,
    output wire                     qspi_cs_n,
    output wire [3:0]               qspi_dq_o,
    output wire [3:0]               qspi_dq_oe,
    input  wire [3:0]               qspi_dq_i,

    // configuration port (ICAPE3/E2 in board/): changes only on cycles with icap_ce; plain
    // configuration words (the board wrapper does ICAP's bit swap); tie icap_o to 0 when absent
    input  wire                     icap_ce,
    output wire                     icap_csib,
    output wire                     icap_rdwrb,
    output wire [31:0]              icap_i,
    input  wire [31:0]              icap_o,

    // co-simulation idle fast-forward (docs/ARCHITECTURE.md, "Idle fast-forward"); tie sim_ff_warp to 0 on a board
    input  wire [31:0]              sim_ff_warp,      // fold this many extra PHC increments into this cycle
    output wire                     sim_ff_quiet,     // nothing but time-following state changes before sim_ff_wake_ns
    output wire [63:0]              sim_ff_wake_ns,   // PHC time at which something may happen
    output wire [63:0]              sim_ff_phc_ns,    // PHC time of this cycle
    output wire [63:0]              sim_ff_inc,       // PHC increment per cycle (16.48 ns)
    output wire [63:0]              sim_ff_chunk_ns,  // longest single jump that stays exact
    // co-simulation clock gating (docs/ARCHITECTURE.md, "Gated blocks"); tie sim_gclk to 0 on a board
    /* verilator lint_off UNUSEDSIGNAL */   // no reader without SIM_GATE
    input  wire                     sim_gclk,         // the calendar's clock: clk, held low where sim_gate_hold[0]
    input  wire                     sim_gclk_df,      // the descriptor fetch's clock: clk, held low where sim_gate_hold[1]
    input  wire                     sim_gclk_cw,      // the completion writer's: sim_gate_hold[2]
    input  wire                     sim_gclk_fl,      // the flash controller's: sim_gate_hold[3]
    input  wire                     sim_gclk_rx,      // the receive path's (rx_ts, rx_buf, rx_steer, rx_regs, rx_dma): [4]
    input  wire                     sim_gclk_rg,      // the register interface's (axil_reg_if, regs): [5]
    /* verilator lint_on UNUSEDSIGNAL */
    output wire [5:0]               sim_gate_hold     // no register on that clock changes at this edge
);

localparam QUEUE_W   = (NUM_QUEUES > 1) ? $clog2(NUM_QUEUES) : 1;
localparam SLOT_NS_W = $clog2(SLOT_NS);
localparam SLOT_W    = $clog2(SLOTS);
localparam S_ID_W    = AXI_ID_W - 1;   // behind one arbiter (fetch; completion writer, RX DMA writes)
localparam S2_ID_W   = AXI_ID_W - 2;   // behind two (prefetch, RX descriptor reads)
localparam ADDR_W    = 20;
localparam DATA_W    = AXIS_DATA_W;     // tx_prefetch: AXI read data = TX buffer = stream width

// ---------------------------------------------------------------------------------------------
// register bus: AXI-Lite bridge -> regs, phc, desc_fetch (Q block), cpl_write (CPL + Q counters)
wire [ADDR_W-1:0] reg_wr_addr;
wire [31:0]       reg_wr_data;
wire [3:0]        reg_wr_strb;
wire              reg_wr_en;
wire [ADDR_W-1:0] reg_rd_addr;
wire              reg_rd_en;

wire        regs_wr_wait, regs_wr_ack, regs_rd_wait, regs_rd_ack;
wire [31:0] regs_rd_data;
wire        phc_wr_wait, phc_wr_ack, phc_rd_wait, phc_rd_ack;
wire [31:0] phc_rd_data;
wire        df_wr_wait, df_wr_ack, df_rd_wait, df_rd_ack;
wire [31:0] df_rd_data;
wire        cw_wr_wait, cw_wr_ack, cw_rd_wait, cw_rd_ack;
wire [31:0] cw_rd_data;
wire        rxr_wr_wait, rxr_wr_ack, rxr_rd_wait, rxr_rd_ack;
wire [31:0] rxr_rd_data;
wire        rxd_wr_wait, rxd_wr_ack, rxd_rd_wait, rxd_rd_ack;
wire [31:0] rxd_rd_data;
wire        fl_wr_wait, fl_wr_ack, fl_rd_wait, fl_rd_ack;
wire [31:0] fl_rd_data;
wire        mr_wr_wait, mr_wr_ack, mr_rd_wait, mr_rd_ack;
wire [31:0] mr_rd_data;

// the gated blocks' clocks: clk, or the co-simulation's gated copies (SIM_GATE; "Gated blocks")
wire df_clk, cw_clk, fl_clk, rx_clk, rg_clk;
generate
    if (SIM_GATE != 0) begin : g_gclk
        assign df_clk = sim_gclk_df;
        assign cw_clk = sim_gclk_cw;
        assign fl_clk = sim_gclk_fl;
        assign rx_clk = sim_gclk_rx;
        assign rg_clk = sim_gclk_rg;
    end else begin : g_clk
        assign df_clk = clk;
        assign cw_clk = clk;
        assign fl_clk = clk;
        assign rx_clk = clk;
        assign rg_clk = clk;
    end
endgenerate

tsnic_axil_reg_if #(
    .ADDR_W(ADDR_W)
) axil_reg_if_inst (
    .clk(rg_clk), .rst(rst),
    .s_axil_awaddr(s_axil_awaddr), .s_axil_awprot(s_axil_awprot), .s_axil_awvalid(s_axil_awvalid),
    .s_axil_awready(s_axil_awready), .s_axil_wdata(s_axil_wdata), .s_axil_wstrb(s_axil_wstrb),
    .s_axil_wvalid(s_axil_wvalid), .s_axil_wready(s_axil_wready), .s_axil_bresp(s_axil_bresp),
    .s_axil_bvalid(s_axil_bvalid), .s_axil_bready(s_axil_bready), .s_axil_araddr(s_axil_araddr),
    .s_axil_arprot(s_axil_arprot), .s_axil_arvalid(s_axil_arvalid), .s_axil_arready(s_axil_arready),
    .s_axil_rdata(s_axil_rdata), .s_axil_rresp(s_axil_rresp), .s_axil_rvalid(s_axil_rvalid),
    .s_axil_rready(s_axil_rready),
    .reg_wr_addr(reg_wr_addr), .reg_wr_data(reg_wr_data), .reg_wr_strb(reg_wr_strb), .reg_wr_en(reg_wr_en),
    .reg_wr_wait(regs_wr_wait | phc_wr_wait | df_wr_wait | cw_wr_wait | fl_wr_wait | mr_wr_wait | rxr_wr_wait | rxd_wr_wait),
    .reg_wr_ack(regs_wr_ack | phc_wr_ack | df_wr_ack | cw_wr_ack | fl_wr_ack | mr_wr_ack | rxr_wr_ack | rxd_wr_ack),
    .reg_rd_addr(reg_rd_addr), .reg_rd_en(reg_rd_en),
    .reg_rd_data(regs_rd_data | phc_rd_data | df_rd_data | cw_rd_data | fl_rd_data | mr_rd_data | rxr_rd_data | rxd_rd_data),
    .reg_rd_wait(regs_rd_wait | phc_rd_wait | df_rd_wait | cw_rd_wait | fl_rd_wait | mr_rd_wait | rxr_rd_wait | rxd_rd_wait),
    .reg_rd_ack(regs_rd_ack | phc_rd_ack | df_rd_ack | cw_rd_ack | fl_rd_ack | mr_rd_ack | rxr_rd_ack | rxd_rd_ack)
);

// MAC block (0x0600): MAC-domain time status. A single-clock core has no
// MAC domains: TX_LOCKED reads 1 (its gate runs on the PHC itself), RX_LOCKED 0.
tsnic_mac_regs #(
    .ADDR_W(ADDR_W)
) mac_regs_inst (
    .clk(clk), .rst(rst),
    .reg_wr_addr(reg_wr_addr), .reg_wr_data(reg_wr_data), .reg_wr_strb(reg_wr_strb), .reg_wr_en(reg_wr_en),
    .reg_wr_wait(mr_wr_wait), .reg_wr_ack(mr_wr_ack),
    .reg_rd_addr(reg_rd_addr), .reg_rd_en(reg_rd_en), .reg_rd_data(mr_rd_data),
    .reg_rd_wait(mr_rd_wait), .reg_rd_ack(mr_rd_ack),
    .tx_time_locked((TX_GATE_EXTERNAL != 0) ? mac_tx_time_locked : 1'b1),
    .rx_time_locked((TX_GATE_EXTERNAL != 0) ? mac_rx_time_locked : 1'b0),
    .phy_status((TX_GATE_EXTERNAL != 0) ? phy_status : 8'h01),
    .link_status(link_status)
);

// ---------------------------------------------------------------------------------------------
// PHC
wire [63:0] phc_ns;
wire        phc_step;
wire        phc_ff_quiet;
wire [63:0] phc_ff_wake_ns;
wire [63:0] phc_ff_inc;

// verilator lint_off UNUSEDSIGNAL
wire        unused_mac_locked = mac_tx_time_locked & mac_rx_time_locked;   // used only with TX_GATE_EXTERNAL
wire [47:0] phc_fns;
wire [47:0] phc_sec;
wire [29:0] phc_nsec;
wire        phc_sec_valid;
// verilator lint_on UNUSEDSIGNAL

tsnic_phc #(
    .ADDR_W(ADDR_W),
    .PERIOD_NUM(1000000000),
    .PERIOD_DEN(CLK_FREQ_HZ),
    .SIM_FAST_FORWARD(SIM_FAST_FORWARD)
) phc_inst (
    .clk(clk), .rst(rst),
    .reg_wr_addr(reg_wr_addr), .reg_wr_data(reg_wr_data), .reg_wr_strb(reg_wr_strb), .reg_wr_en(reg_wr_en),
    .reg_wr_wait(phc_wr_wait), .reg_wr_ack(phc_wr_ack),
    .reg_rd_addr(reg_rd_addr), .reg_rd_en(reg_rd_en), .reg_rd_data(phc_rd_data),
    .reg_rd_wait(phc_rd_wait), .reg_rd_ack(phc_rd_ack),
    .phc_ns(phc_ns), .phc_fns(phc_fns), .phc_sec(phc_sec), .phc_nsec(phc_nsec),
    .phc_sec_valid(phc_sec_valid), .phc_step(phc_step), .pps(pps),
    .ff_warp(sim_ff_warp), .ff_quiet(phc_ff_quiet), .ff_wake_ns(phc_ff_wake_ns), .ff_inc(phc_ff_inc)
);

// ---------------------------------------------------------------------------------------------
// CAP / CTRL / CNT registers and the interrupt
wire        ctrl_enable;
wire        ctrl_reset;
wire        reset_busy;
// CTRL_STATUS shows RESET_BUSY (and not RUNNING) until the core reset sequence is over AND the
// calendar has cleared its RAMs: entries inserted during that sweep would leave in insertion order.
wire        cal_init_busy;
wire        status_reset_busy = reset_busy || cal_init_busy;
wire [31:0] lookahead_ns;
wire [31:0] tx_lat_comp_ns;
wire        evt_posted;
wire        evt_cpl_valid;
wire [QUEUE_W-1:0] evt_cpl_queue;
wire [7:0]  evt_cpl_status;
wire [15:0] evt_cpl_len;
wire        regs_ff_quiet;
wire [63:0] regs_ff_wake_ns;

tsnic_regs #(
    .ADDR_W(ADDR_W),
    .NUM_QUEUES(NUM_QUEUES),
    .CLK_FREQ_HZ(CLK_FREQ_HZ),
    .SLOT_NS(SLOT_NS),
    .SLOTS(SLOTS),
    .HORIZON_NS(HORIZON_NS),
    .FEATURES((32'd1 << `TSNIC_FEATURE_LATE_POLICY_BIT) | (32'd1 << `TSNIC_FEATURE_HORIZON_POLICY_BIT)
            | (32'd1 << `TSNIC_FEATURE_PHC_ADJFINE_BIT) | (32'd1 << `TSNIC_FEATURE_PPS_OUT_BIT)
            | (32'd1 << `TSNIC_FEATURE_IRQ_MODERATION_BIT) | (32'd1 << `TSNIC_FEATURE_RX_PATH_BIT)),
    .RING_LOG2_MAX(RING_LOG2_MAX),
    .MAX_FRAME_LEN(MAX_FRAME_LEN),
    .TX_DATA_WIDTH(AXIS_DATA_W),
    .NODES(1 << NODE_W),
    .LOOKAHEAD_NS_DEFAULT(LOOKAHEAD_NS_DEFAULT)
) regs_inst (
    .clk(rg_clk), .rst(rst),
    .reg_wr_addr(reg_wr_addr), .reg_wr_data(reg_wr_data), .reg_wr_strb(reg_wr_strb), .reg_wr_en(reg_wr_en),
    .reg_wr_wait(regs_wr_wait), .reg_wr_ack(regs_wr_ack),
    .reg_rd_addr(reg_rd_addr), .reg_rd_en(reg_rd_en), .reg_rd_data(regs_rd_data),
    .reg_rd_wait(regs_rd_wait), .reg_rd_ack(regs_rd_ack),
    .ctrl_enable(ctrl_enable), .ctrl_reset(ctrl_reset), .reset_busy(status_reset_busy),
    .lookahead_ns(lookahead_ns), .tx_lat_comp_ns(tx_lat_comp_ns),
    .phc_ns(phc_ns), .phc_step(phc_step),
    .evt_posted(evt_posted), .evt_cpl_valid(evt_cpl_valid), .evt_cpl_status(evt_cpl_status),
    .evt_cpl_len(evt_cpl_len), .evt_rx_cpl(rx_evt_cpl),
    .irq(irq),
    .ff_quiet(regs_ff_quiet), .ff_wake_ns(regs_ff_wake_ns)
);

// ---------------------------------------------------------------------------------------------
// core reset sequencer (CTRL_CONTROL.RESET): stop fetching, wait for the fetch to drain, flush
// every queue in the calendar, then hold the launch gate in flush until every descriptor-table
// entry has been completed (its completion written and its handle freed).
localparam [2:0] R_IDLE = 3'd0, R_STOP = 3'd1, R_FLUSH = 3'd2, R_FWAIT = 3'd3, R_DRAIN = 3'd4;
reg  [2:0]         rseq_reg = R_IDLE;
reg  [QUEUE_W:0]   rq_reg = 0;
reg                fetch_fl_out_reg = 1'b0;   // a fetch-issued calendar flush is outstanding

wire               df_idle;
wire               df_ff_quiet;
wire               df_flush_valid;
wire [QUEUE_W-1:0] df_flush_queue;
wire               cal_flush_ready;
wire               cal_flush_done;
wire [NODE_W:0]    tbl_used;

assign reset_busy = (rseq_reg != R_IDLE);
wire seq_owns_flush = (rseq_reg == R_FLUSH) || (rseq_reg == R_FWAIT);
wire cal_flush_valid = seq_owns_flush ? (rseq_reg == R_FLUSH) : df_flush_valid;
wire [QUEUE_W-1:0] cal_flush_queue = seq_owns_flush ? rq_reg[QUEUE_W-1:0] : df_flush_queue;
wire df_flush_ready = !seq_owns_flush && cal_flush_ready;
wire df_flush_done = !seq_owns_flush && cal_flush_done;
wire gate_flush = (rseq_reg == R_DRAIN);

always @(posedge clk) begin
    if (df_flush_valid && df_flush_ready) fetch_fl_out_reg <= 1'b1;
    else if (df_flush_done) fetch_fl_out_reg <= 1'b0;

    case (rseq_reg)
        R_IDLE: if (ctrl_reset) rseq_reg <= R_STOP;
        R_STOP: begin
            rq_reg <= 0;
            if (df_idle && !fetch_fl_out_reg && !df_flush_valid) rseq_reg <= R_FLUSH;
        end
        R_FLUSH: if (cal_flush_ready) rseq_reg <= R_FWAIT;
        R_FWAIT: begin
            if (cal_flush_done) begin
                rq_reg <= rq_reg + 1'b1;
                rseq_reg <= (rq_reg == NUM_QUEUES - 1) ? R_DRAIN : R_FLUSH;
            end
        end
        R_DRAIN: if (tbl_used == 0) rseq_reg <= R_IDLE;
        default: rseq_reg <= R_IDLE;
    endcase

    if (rst) begin
        rseq_reg <= R_IDLE;
        rq_reg <= 0;
        fetch_fl_out_reg <= 1'b0;
    end
end

// ---------------------------------------------------------------------------------------------
// descriptor fetch, descriptor table, calendar
wire [S_ID_W-1:0]  df_arid, df_rid;
wire [S2_ID_W-1:0] pf_arid, pf_rid;
wire [63:0]        df_araddr, pf_araddr;
wire [7:0]         df_arlen, pf_arlen;
wire [2:0]         df_arsize, pf_arsize, df_arprot, pf_arprot;
wire [1:0]         df_arburst, pf_arburst, df_rresp, pf_rresp;
wire               df_arlock, pf_arlock;
wire [3:0]         df_arcache, pf_arcache;
wire               df_arvalid, pf_arvalid, df_arready, pf_arready;
wire [AXI_DATA_W-1:0] df_rdata, pf_rdata;
wire               df_rlast, pf_rlast, df_rvalid, pf_rvalid, df_rready, pf_rready;

wire               tbl_alloc_valid;
wire [NODE_W-1:0]  tbl_alloc_handle;
wire               tbl_wr_en;
wire [63:0]        tbl_wr_addr;
wire [15:0]        tbl_wr_len;
wire [31:0]        tbl_wr_cookie;
wire [63:0]        tbl_wr_launch_ns;
wire [15:0]        tbl_wr_ring_index;
wire [QUEUE_W-1:0] tbl_wr_queue;

wire               ins_valid, ins_ready, ins_late_policy, ins_horizon_policy;
wire [QUEUE_W-1:0] ins_queue;
wire [NODE_W-1:0]  ins_handle;
wire [63:0]        ins_launch_ns;
wire               quota_wr;
wire [QUEUE_W-1:0] quota_queue;
wire [31:0]        quota_value;

// completion request ports: 0 = fetch (REJECTED), 1 = prefetch (non-wire), 2 = launch gate
wire [2:0]          cr_valid, cr_ready, cr_capped, cr_hvalid;
wire [3*QUEUE_W-1:0] cr_queue;
wire [3*16-1:0]     cr_index, cr_len;
wire [3*32-1:0]     cr_cookie;
wire [3*64-1:0]     cr_launch, cr_depart;
wire [3*8-1:0]      cr_status, cr_reason;
wire [3*NODE_W-1:0] cr_handle;

wire df_en = ctrl_enable && !reset_busy;

tsnic_desc_fetch #(
    .NUM_QUEUES(NUM_QUEUES),
    .QUEUE_W(QUEUE_W),
    .NODE_W(NODE_W),
    .ADDR_W(ADDR_W),
    .AXI_DATA_W(AXI_DATA_W),
    .AXI_ADDR_W(64),
    .AXI_ID_W(S_ID_W),
    .AXI_ID({S_ID_W{1'b0}}),
    .RING_LOG2_MAX(RING_LOG2_MAX),
    .MAX_FRAME_LEN(MAX_FRAME_LEN),
    .MAX_OUT_LOG2(DF_MAX_OUT_LOG2),
    .DESC_FIFO_LOG2(DF_FIFO_LOG2)
) desc_fetch_inst (
    .clk(df_clk), .rst(rst),
    .enable(df_en),
    .phc_ns(phc_ns),
    .idle(df_idle),
    .ff_quiet(df_ff_quiet),
    .reg_wr_addr(reg_wr_addr), .reg_wr_data(reg_wr_data), .reg_wr_strb(reg_wr_strb), .reg_wr_en(reg_wr_en),
    .reg_wr_wait(df_wr_wait), .reg_wr_ack(df_wr_ack),
    .reg_rd_addr(reg_rd_addr), .reg_rd_en(reg_rd_en), .reg_rd_data(df_rd_data),
    .reg_rd_wait(df_rd_wait), .reg_rd_ack(df_rd_ack),
    .m_axi_arid(df_arid), .m_axi_araddr(df_araddr), .m_axi_arlen(df_arlen), .m_axi_arsize(df_arsize),
    .m_axi_arburst(df_arburst), .m_axi_arlock(df_arlock), .m_axi_arcache(df_arcache), .m_axi_arprot(df_arprot),
    .m_axi_arvalid(df_arvalid), .m_axi_arready(df_arready),
    .m_axi_rid(df_rid), .m_axi_rdata(df_rdata), .m_axi_rresp(df_rresp), .m_axi_rlast(df_rlast),
    .m_axi_rvalid(df_rvalid), .m_axi_rready(df_rready),
    .tbl_alloc_valid(tbl_alloc_valid), .tbl_alloc_handle(tbl_alloc_handle),
    .tbl_wr_en(tbl_wr_en), .tbl_wr_addr(tbl_wr_addr), .tbl_wr_len(tbl_wr_len), .tbl_wr_cookie(tbl_wr_cookie),
    .tbl_wr_launch_ns(tbl_wr_launch_ns), .tbl_wr_ring_index(tbl_wr_ring_index), .tbl_wr_queue(tbl_wr_queue),
    .m_ins_valid(ins_valid), .m_ins_ready(ins_ready), .m_ins_queue(ins_queue), .m_ins_handle(ins_handle),
    .m_ins_launch_ns(ins_launch_ns), .m_ins_late_policy(ins_late_policy),
    .m_ins_horizon_policy(ins_horizon_policy),
    .m_flush_valid(df_flush_valid), .m_flush_ready(df_flush_ready), .m_flush_queue(df_flush_queue),
    .flush_done(df_flush_done),
    .cfg_quota_wr(quota_wr), .cfg_quota_queue(quota_queue), .cfg_quota_value(quota_value),
    .m_cpl_req_valid(cr_valid[0]), .m_cpl_req_ready(cr_ready[0]),
    .m_cpl_req_queue(cr_queue[0*QUEUE_W +: QUEUE_W]), .m_cpl_req_ring_index(cr_index[0*16 +: 16]),
    .m_cpl_req_cookie(cr_cookie[0*32 +: 32]), .m_cpl_req_launch_ns(cr_launch[0*64 +: 64]),
    .m_cpl_req_depart_ns(cr_depart[0*64 +: 64]), .m_cpl_req_len(cr_len[0*16 +: 16]),
    .m_cpl_req_status(cr_status[0*8 +: 8]), .m_cpl_req_reason(cr_reason[0*8 +: 8]),
    .m_cpl_req_capped(cr_capped[0]), .m_cpl_req_handle(cr_handle[0*NODE_W +: NODE_W]),
    .m_cpl_req_handle_valid(cr_hvalid[0]),
    .evt_cpl_valid(evt_cpl_valid), .evt_cpl_queue(evt_cpl_queue),
    .evt_posted(evt_posted)
);

wire               dt_rd_en;
wire [NODE_W-1:0]  dt_rd_handle;
wire [63:0]        dt_rd_addr;
wire [15:0]        dt_rd_len;
wire [31:0]        dt_rd_cookie;
wire [63:0]        dt_rd_launch_ns;
wire [15:0]        dt_rd_ring_index;
wire [QUEUE_W-1:0] dt_rd_queue;
wire               free_valid, free_ready;
wire [NODE_W-1:0]  free_handle;

// verilator lint_off UNUSEDSIGNAL
wire               dt_rd_valid;
wire [NODE_W:0]    cal_occupancy;
// verilator lint_on UNUSEDSIGNAL

tsnic_desc_table #(
    .NODE_W(NODE_W),
    .QUEUE_W(QUEUE_W)
) desc_table_inst (
    .clk(clk), .rst(rst),
    .alloc_valid(tbl_alloc_valid), .alloc_handle(tbl_alloc_handle),
    .wr_en(tbl_wr_en), .wr_addr(tbl_wr_addr), .wr_len(tbl_wr_len), .wr_cookie(tbl_wr_cookie),
    .wr_launch_ns(tbl_wr_launch_ns), .wr_ring_index(tbl_wr_ring_index), .wr_queue(tbl_wr_queue),
    .rd_en(dt_rd_en), .rd_handle(dt_rd_handle), .rd_valid(dt_rd_valid), .rd_addr(dt_rd_addr),
    .rd_len(dt_rd_len), .rd_cookie(dt_rd_cookie), .rd_launch_ns(dt_rd_launch_ns),
    .rd_ring_index(dt_rd_ring_index), .rd_queue(dt_rd_queue),
    .free_valid(free_valid), .free_ready(free_ready), .free_handle(free_handle),
    .used_count(tbl_used)
);

wire               rel_valid, rel_ready, rel_capped;
wire [QUEUE_W-1:0] rel_queue;
wire [NODE_W-1:0]  rel_handle;
wire [63:0]        rel_launch_ns;
wire [7:0]         rel_status;
wire               cal_ff_quiet;
wire [63:0]        cal_ff_wake_ns;
wire [63:0]        cal_ff_chunk_ns;
wire               cal_ff_hold;

// quota: 0 = the calendar's default; larger than the pool saturates to the pool size
wire [NODE_W:0] quota_sat = (quota_value > (32'd1 << NODE_W)) ? ({1'b1, {NODE_W{1'b0}}}) : quota_value[NODE_W:0];

tsnic_calendar #(
    .QUEUE_W(QUEUE_W),
    .NODE_W(NODE_W),
    .HANDLE_W(NODE_W),
    .SLOT_NS_W(SLOT_NS_W),
    .SLOT_W(SLOT_W),
    .CSLOT_W(CSLOT_W),
    .HORIZON_NS(HORIZON_NS),
    .SIM_FAST_FORWARD(SIM_FAST_FORWARD),
    .SIM_GATE(SIM_GATE)
) calendar_inst (
    .clk(clk), .rst(rst),
    .phc_ns(phc_ns), .phc_step(phc_step), .lookahead_ns(lookahead_ns),
    .s_ins_valid(ins_valid), .s_ins_ready(ins_ready), .s_ins_queue(ins_queue), .s_ins_handle(ins_handle),
    .s_ins_launch_ns(ins_launch_ns), .s_ins_late_policy(ins_late_policy),
    .s_ins_horizon_policy(ins_horizon_policy),
    .m_rel_valid(rel_valid), .m_rel_ready(rel_ready), .m_rel_queue(rel_queue), .m_rel_handle(rel_handle),
    .m_rel_launch_ns(rel_launch_ns), .m_rel_status(rel_status), .m_rel_capped(rel_capped),
    .s_flush_valid(cal_flush_valid), .s_flush_ready(cal_flush_ready), .s_flush_queue(cal_flush_queue),
    .flush_done(cal_flush_done),
    .cfg_quota_wr(quota_wr), .cfg_quota_queue(quota_queue), .cfg_quota_value(quota_sat),
    .stat_occupancy(cal_occupancy), .stat_init_busy(cal_init_busy),
    .ff_warp(sim_ff_warp != 32'd0),
    .ff_quiet(cal_ff_quiet), .ff_wake_ns(cal_ff_wake_ns), .ff_chunk_ns(cal_ff_chunk_ns),
    .ff_gclk(sim_gclk), .ff_hold(cal_ff_hold)
);

// ---------------------------------------------------------------------------------------------
// payload prefetch and launch gate
wire               frm_valid, frm_ready, frm_late, frm_capped;
wire [63:0]        frm_launch_ns, frm_req_launch_ns;
wire [QUEUE_W-1:0] frm_queue;
wire [15:0]        frm_ring_index, frm_len;
wire [31:0]        frm_cookie;
wire [NODE_W-1:0]  frm_handle;
wire [DATA_W-1:0]  pay_tdata;
wire [DATA_W/8-1:0] pay_tkeep;
wire               pay_tlast, pay_tuser, pay_tvalid, pay_tready;   // pay_tuser: payload read failed
wire               pf_ff_quiet;

tsnic_tx_prefetch #(
    .DATA_W(DATA_W),
    .NODE_W(NODE_W),
    .QUEUE_W(QUEUE_W),
    .AXI_ID_W(S2_ID_W),
    .AXI_ARID({S2_ID_W{1'b0}}),
    .BUF_BYTES(TX_BUF_BYTES),
    .SLOT_W(PF_SLOT_W)
) tx_prefetch_inst (
    .clk(clk), .rst(rst),
    .phc_ns(phc_ns),
    .s_rel_valid(rel_valid), .s_rel_ready(rel_ready), .s_rel_queue(rel_queue), .s_rel_handle(rel_handle),
    .s_rel_launch_ns(rel_launch_ns), .s_rel_status(rel_status), .s_rel_capped(rel_capped),
    .dt_rd_en(dt_rd_en), .dt_rd_handle(dt_rd_handle), .dt_rd_addr(dt_rd_addr), .dt_rd_len(dt_rd_len),
    .dt_rd_cookie(dt_rd_cookie), .dt_rd_launch_ns(dt_rd_launch_ns), .dt_rd_ring_index(dt_rd_ring_index),
    .dt_rd_queue(dt_rd_queue),
    .m_axi_arid(pf_arid), .m_axi_araddr(pf_araddr), .m_axi_arlen(pf_arlen), .m_axi_arsize(pf_arsize),
    .m_axi_arburst(pf_arburst), .m_axi_arlock(pf_arlock), .m_axi_arcache(pf_arcache), .m_axi_arprot(pf_arprot),
    .m_axi_arvalid(pf_arvalid), .m_axi_arready(pf_arready),
    .m_axi_rid(pf_rid), .m_axi_rdata(pf_rdata), .m_axi_rresp(pf_rresp), .m_axi_rlast(pf_rlast),
    .m_axi_rvalid(pf_rvalid), .m_axi_rready(pf_rready),
    .m_cpl_req_valid(cr_valid[1]), .m_cpl_req_ready(cr_ready[1]),
    .m_cpl_req_queue(cr_queue[1*QUEUE_W +: QUEUE_W]), .m_cpl_req_ring_index(cr_index[1*16 +: 16]),
    .m_cpl_req_cookie(cr_cookie[1*32 +: 32]), .m_cpl_req_launch_ns(cr_launch[1*64 +: 64]),
    .m_cpl_req_depart_ns(cr_depart[1*64 +: 64]), .m_cpl_req_len(cr_len[1*16 +: 16]),
    .m_cpl_req_status(cr_status[1*8 +: 8]), .m_cpl_req_reason(cr_reason[1*8 +: 8]),
    .m_cpl_req_capped(cr_capped[1]), .m_cpl_req_handle(cr_handle[1*NODE_W +: NODE_W]),
    .m_cpl_req_handle_valid(cr_hvalid[1]),
    .m_frm_valid(frm_valid), .m_frm_ready(frm_ready), .m_frm_launch_ns(frm_launch_ns),
    .m_frm_req_launch_ns(frm_req_launch_ns), .m_frm_late(frm_late), .m_frm_capped(frm_capped),
    .m_frm_queue(frm_queue), .m_frm_ring_index(frm_ring_index), .m_frm_cookie(frm_cookie),
    .m_frm_len(frm_len), .m_frm_handle(frm_handle),
    .m_axis_pay_tdata(pay_tdata), .m_axis_pay_tkeep(pay_tkeep), .m_axis_pay_tlast(pay_tlast), .m_axis_pay_tuser(pay_tuser),
    .m_axis_pay_tvalid(pay_tvalid), .m_axis_pay_tready(pay_tready),
    .ff_quiet(pf_ff_quiet)
);

wire               gate_frm_valid, gate_pay_tvalid;

generate
if (TX_GATE_EXTERNAL == 0) begin : gate_internal
    tsnic_launch_gate #(
        .DATA_W(DATA_W),
        .NODE_W(NODE_W),
        .QUEUE_W(QUEUE_W),
        .MAC_LAG(TX_MAC_LAG)
    ) launch_gate_inst (
        .clk(clk), .rst(rst),
        .phc_ns(phc_ns), .tx_lat_comp_ns(tx_lat_comp_ns), .flush(gate_flush),
        .s_frm_valid(frm_valid), .s_frm_ready(frm_ready), .s_frm_launch_ns(frm_launch_ns),
        .s_frm_req_launch_ns(frm_req_launch_ns), .s_frm_late(frm_late), .s_frm_capped(frm_capped),
        .s_frm_queue(frm_queue), .s_frm_ring_index(frm_ring_index), .s_frm_cookie(frm_cookie),
        .s_frm_len(frm_len), .s_frm_handle(frm_handle),
        .s_axis_pay_tdata(pay_tdata), .s_axis_pay_tkeep(pay_tkeep), .s_axis_pay_tlast(pay_tlast),
        .s_axis_pay_tuser(pay_tuser),
        .s_axis_pay_tvalid(pay_tvalid), .s_axis_pay_tready(pay_tready),
        .m_axis_tx_tdata(m_axis_tx_tdata), .m_axis_tx_tkeep(m_axis_tx_tkeep), .m_axis_tx_tlast(m_axis_tx_tlast),
        .m_axis_tx_tvalid(m_axis_tx_tvalid), .m_axis_tx_tready(m_axis_tx_tready),
        .s_mac_lag_valid(s_mac_tx_lag_valid), .s_mac_lag_ns(s_mac_tx_lag_ns),
        .m_cpl_req_valid(cr_valid[2]), .m_cpl_req_ready(cr_ready[2]),
        .m_cpl_req_queue(cr_queue[2*QUEUE_W +: QUEUE_W]), .m_cpl_req_ring_index(cr_index[2*16 +: 16]),
        .m_cpl_req_cookie(cr_cookie[2*32 +: 32]), .m_cpl_req_launch_ns(cr_launch[2*64 +: 64]),
        .m_cpl_req_depart_ns(cr_depart[2*64 +: 64]), .m_cpl_req_len(cr_len[2*16 +: 16]),
        .m_cpl_req_status(cr_status[2*8 +: 8]), .m_cpl_req_reason(cr_reason[2*8 +: 8]),
        .m_cpl_req_capped(cr_capped[2]), .m_cpl_req_handle(cr_handle[2*NODE_W +: NODE_W]),
        .m_cpl_req_handle_valid(cr_hvalid[2])
    );

    assign m_tx_frm_valid = 1'b0;
    assign m_tx_frm_launch_ns = 64'd0;
    assign m_tx_frm_req_launch_ns = 64'd0;
    assign m_tx_frm_late = 1'b0;
    assign m_tx_frm_capped = 1'b0;
    assign m_tx_frm_queue = {QUEUE_W{1'b0}};
    assign m_tx_frm_ring_index = 16'd0;
    assign m_tx_frm_cookie = 32'd0;
    assign m_tx_frm_len = 16'd0;
    assign m_tx_frm_handle = {NODE_W{1'b0}};
    assign m_axis_tx_pay_tdata = {AXIS_DATA_W{1'b0}};
    assign m_axis_tx_pay_tkeep = {(AXIS_DATA_W/8){1'b0}};
    assign m_axis_tx_pay_tlast = 1'b0;
    assign m_axis_tx_pay_tuser = 1'b0;
    assign m_axis_tx_pay_tvalid = 1'b0;
    assign s_tx_cpl_ready = 1'b0;
    assign tx_gate_flush = 1'b0;
    assign tx_gate_lat_comp_ns = 32'd0;
    assign td_ns = 64'd0;
    assign td_fns = 32'd0;
    assign td_inc = 40'd0;
    assign td_step = 1'b0;
    assign td_toggle = 1'b0;
    assign gate_frm_valid = frm_valid;
    assign gate_pay_tvalid = pay_tvalid;

    /* verilator lint_off UNUSEDSIGNAL */
    wire unused_ext = &{1'b0, m_tx_frm_ready, m_axis_tx_pay_tready, s_tx_cpl_valid, s_tx_cpl_queue,
                        s_tx_cpl_ring_index, s_tx_cpl_cookie, s_tx_cpl_launch_ns, s_tx_cpl_depart_ns,
                        s_tx_cpl_len, s_tx_cpl_status, s_tx_cpl_reason, s_tx_cpl_capped, s_tx_cpl_handle,
                        s_tx_cpl_handle_valid};
    /* verilator lint_on UNUSEDSIGNAL */
end else begin : gate_external
    // the frame stream leaves as the prefetch presents it; tsnic_mac_tx gates it in the MAC domain
    assign m_tx_frm_valid = frm_valid;
    assign frm_ready = m_tx_frm_ready;
    assign m_tx_frm_launch_ns = frm_launch_ns;
    assign m_tx_frm_req_launch_ns = frm_req_launch_ns;
    assign m_tx_frm_late = frm_late;
    assign m_tx_frm_capped = frm_capped;
    assign m_tx_frm_queue = frm_queue;
    assign m_tx_frm_ring_index = frm_ring_index;
    assign m_tx_frm_cookie = frm_cookie;
    assign m_tx_frm_len = frm_len;
    assign m_tx_frm_handle = frm_handle;
    assign m_axis_tx_pay_tdata = pay_tdata;
    assign m_axis_tx_pay_tkeep = pay_tkeep;
    assign m_axis_tx_pay_tlast = pay_tlast;
    assign m_axis_tx_pay_tuser = pay_tuser;
    assign m_axis_tx_pay_tvalid = pay_tvalid;
    assign pay_tready = m_axis_tx_pay_tready;

    assign cr_valid[2] = s_tx_cpl_valid;
    assign s_tx_cpl_ready = cr_ready[2];
    assign cr_queue[2*QUEUE_W +: QUEUE_W] = s_tx_cpl_queue;
    assign cr_index[2*16 +: 16] = s_tx_cpl_ring_index;
    assign cr_cookie[2*32 +: 32] = s_tx_cpl_cookie;
    assign cr_launch[2*64 +: 64] = s_tx_cpl_launch_ns;
    assign cr_depart[2*64 +: 64] = s_tx_cpl_depart_ns;
    assign cr_len[2*16 +: 16] = s_tx_cpl_len;
    assign cr_status[2*8 +: 8] = s_tx_cpl_status;
    assign cr_reason[2*8 +: 8] = s_tx_cpl_reason;
    assign cr_capped[2] = s_tx_cpl_capped;
    assign cr_handle[2*NODE_W +: NODE_W] = s_tx_cpl_handle;
    assign cr_hvalid[2] = s_tx_cpl_handle_valid;

    assign tx_gate_flush = gate_flush;
    assign tx_gate_lat_comp_ns = tx_lat_comp_ns;

    tsnic_td_source td_source_inst (
        .clk(clk), .rst(rst),
        .phc_ns(phc_ns), .phc_fns(phc_fns), .phc_step(phc_step),
        .td_ns(td_ns), .td_fns(td_fns), .td_inc(td_inc), .td_step(td_step), .td_toggle(td_toggle)
    );

    assign m_axis_tx_tdata = {AXIS_DATA_W{1'b0}};
    assign m_axis_tx_tkeep = {(AXIS_DATA_W/8){1'b0}};
    assign m_axis_tx_tlast = 1'b0;
    assign m_axis_tx_tvalid = 1'b0;
    // the external gate's state is not visible here: the idle fast-forward is for the sim only
    assign gate_frm_valid = frm_valid || s_tx_cpl_valid;
    /* verilator lint_off UNUSEDSIGNAL */
    wire unused_lag = &{1'b0, s_mac_tx_lag_valid, s_mac_tx_lag_ns};   // tsnic_mac_tx stamps on boards
    /* verilator lint_on UNUSEDSIGNAL */
    assign gate_pay_tvalid = pay_tvalid;

    /* verilator lint_off UNUSEDSIGNAL */
    wire unused_ext = &{1'b0, m_axis_tx_tready};
    /* verilator lint_on UNUSEDSIGNAL */
end
endgenerate

assign m_axis_tx_tuser = {AXIS_USER_W{1'b0}};

// ---------------------------------------------------------------------------------------------
// receive path: timestamp stage -> RX buffer (+ steering table) -> RX DMA; RX global registers
localparam RXQ_W     = (RX_NUM_QUEUES > 1) ? $clog2(RX_NUM_QUEUES) : 1;
localparam RX_ENT_W  = (RX_STEER_ENTRIES > 1) ? $clog2(RX_STEER_ENTRIES) : 1;
localparam RX_ET_W   = (RX_STEER_ET_RULES > 1) ? $clog2(RX_STEER_ET_RULES) : 1;
localparam RX_PTR_W  = $clog2(RX_BUF_BYTES / (AXIS_DATA_W / 8)) + 1;
localparam RX_TAG_W  = 2 * RX_PTR_W + 16 + 16 + 8 + 64;
localparam RX_MAX_FRAME_LEN = (MAX_FRAME_LEN < 65535) ? MAX_FRAME_LEN : 65535;

wire               rx_enable;
wire [31:0]        rx_lat_comp_ns;
assign mac_rx_lat_comp_ns = rx_lat_comp_ns;
wire [15:0]        rx_default_queue;
wire               rx_evt_cpl;
wire               rxt_busy, rxb_busy, rxs_busy, rxd_busy, rxr_busy, wa_busy;

wire [AXIS_DATA_W-1:0]   rxt_tdata;
wire [AXIS_DATA_W/8-1:0] rxt_tkeep;
wire                     rxt_tvalid, rxt_tready, rxt_tlast, rxt_bad;
wire [63:0]              rxt_ts;
wire [$clog2(AXIS_DATA_W/8):0] rxt_nbytes;

tsnic_rx_ts #(
    .DATA_W(AXIS_DATA_W),
    .USER_W(RX_USER_W),
    .RX_TS_EXTERNAL(RX_TS_EXTERNAL)
) rx_ts_inst (
    .clk(rx_clk), .rst(rst),
    .phc_ns(phc_ns), .lat_comp_ns(rx_lat_comp_ns),
    .s_axis_tdata(s_axis_rx_tdata), .s_axis_tkeep(s_axis_rx_tkeep), .s_axis_tvalid(s_axis_rx_tvalid),
    .s_axis_tready(s_axis_rx_tready), .s_axis_tlast(s_axis_rx_tlast), .s_axis_tuser(s_axis_rx_tuser),
    .m_axis_tdata(rxt_tdata), .m_axis_tkeep(rxt_tkeep), .m_axis_tvalid(rxt_tvalid), .m_axis_tready(rxt_tready),
    .m_axis_tlast(rxt_tlast), .m_axis_bad(rxt_bad), .m_axis_ts(rxt_ts), .m_axis_nbytes(rxt_nbytes),
    .busy(rxt_busy)
);

wire               key_valid, key_ok;
wire [31:0]        key_src, key_dst;
wire [7:0]         key_proto;
wire [15:0]        key_sport, key_dport;
wire               key_et_ok;
wire [15:0]        key_et;
wire [RX_TAG_W-1:0] key_tag, res_tag;
wire               res_valid, res_hit;
wire [RX_ENT_W-1:0] res_entry;
wire [RXQ_W-1:0]   res_queue;

wire               rinfo_valid, rinfo_ready, rinfo_hit;
wire [RX_PTR_W-1:0] rinfo_start, rinfo_end;
wire [15:0]        rinfo_len, rinfo_flen;
wire [7:0]         rinfo_status;
wire [63:0]        rinfo_ts;
wire [RX_ENT_W-1:0] rinfo_entry;
wire [RXQ_W-1:0]   rinfo_queue;
wire               rbuf_rd_en, rbuf_rel_valid;
wire [RX_PTR_W-2:0] rbuf_rd_addr;
wire [AXIS_DATA_W-1:0] rbuf_rd_data;
wire [RX_PTR_W-1:0] rbuf_rel_ptr;
wire               ev_frame, ev_dis, ev_full, ev_bad, ev_long;
wire [15:0]        ev_flen;

tsnic_rx_buf #(
    .DATA_W(AXIS_DATA_W),
    .BUF_BYTES(RX_BUF_BYTES),
    .MAX_FRAME_LEN(RX_MAX_FRAME_LEN),
    .INFO_LOG2(RX_INFO_LOG2),
    .ENT_W(RX_ENT_W),
    .RXQ_W(RXQ_W),
    .PTR_W(RX_PTR_W),
    .TAG_W(RX_TAG_W)
) rx_buf_inst (
    .clk(rx_clk), .rst(rst),
    .enable(rx_enable),
    .s_axis_tdata(rxt_tdata), .s_axis_tkeep(rxt_tkeep), .s_axis_tvalid(rxt_tvalid), .s_axis_tready(rxt_tready),
    .s_axis_tlast(rxt_tlast), .s_axis_bad(rxt_bad), .s_axis_ts(rxt_ts), .s_axis_nbytes(rxt_nbytes),
    .m_key_valid(key_valid), .m_key_ok(key_ok), .m_key_src_ip(key_src), .m_key_dst_ip(key_dst),
    .m_key_proto(key_proto), .m_key_src_port(key_sport), .m_key_dst_port(key_dport), .m_key_tag(key_tag),
    .m_key_et_ok(key_et_ok), .m_key_ethertype(key_et),
    .s_res_valid(res_valid), .s_res_hit(res_hit), .s_res_entry(res_entry), .s_res_queue(res_queue),
    .s_res_tag(res_tag),
    .m_info_valid(rinfo_valid), .m_info_ready(rinfo_ready), .m_info_start(rinfo_start), .m_info_end(rinfo_end),
    .m_info_len(rinfo_len), .m_info_frame_len(rinfo_flen), .m_info_status(rinfo_status), .m_info_ts(rinfo_ts),
    .m_info_hit(rinfo_hit), .m_info_entry(rinfo_entry), .m_info_queue(rinfo_queue),
    .rd_en(rbuf_rd_en), .rd_addr(rbuf_rd_addr), .rd_data(rbuf_rd_data),
    .rel_valid(rbuf_rel_valid), .rel_ptr(rbuf_rel_ptr),
    .evt_frame(ev_frame), .evt_frame_len(ev_flen), .evt_drop_disabled(ev_dis), .evt_drop_full(ev_full),
    .evt_bad(ev_bad), .evt_too_long(ev_long),
    .busy(rxb_busy)
);

wire               st_wr_en, st_wr_valid, st_rd_valid;
wire [RX_ENT_W-1:0] st_wr_idx, st_rd_idx;
wire [31:0]        st_wr_src, st_wr_dst, st_rd_src, st_rd_dst;
wire [7:0]         st_wr_proto, st_rd_proto;
wire [15:0]        st_wr_sport, st_wr_dport, st_wr_queue, st_rd_sport, st_rd_dport, st_rd_queue;
wire               et_wr_en, et_wr_valid, et_rd_valid;
wire [RX_ET_W-1:0] et_wr_idx, et_rd_idx;
wire [15:0]        et_wr_et, et_wr_queue, et_rd_et, et_rd_queue;

tsnic_rx_steer #(
    .ENTRIES(RX_STEER_ENTRIES),
    .ENT_W(RX_ENT_W),
    .NUM_RXQ(RX_NUM_QUEUES),
    .RXQ_W(RXQ_W),
    .TAG_W(RX_TAG_W),
    .ET_RULES(RX_STEER_ET_RULES),
    .ET_W(RX_ET_W)
) rx_steer_inst (
    .clk(rx_clk), .rst(rst),
    .tbl_wr_en(st_wr_en), .tbl_wr_idx(st_wr_idx), .tbl_wr_valid(st_wr_valid), .tbl_wr_src_ip(st_wr_src),
    .tbl_wr_dst_ip(st_wr_dst), .tbl_wr_proto(st_wr_proto), .tbl_wr_src_port(st_wr_sport),
    .tbl_wr_dst_port(st_wr_dport), .tbl_wr_queue(st_wr_queue),
    .tbl_rd_idx(st_rd_idx), .tbl_rd_valid(st_rd_valid), .tbl_rd_src_ip(st_rd_src), .tbl_rd_dst_ip(st_rd_dst),
    .tbl_rd_proto(st_rd_proto), .tbl_rd_src_port(st_rd_sport), .tbl_rd_dst_port(st_rd_dport),
    .tbl_rd_queue(st_rd_queue),
    .et_wr_en(et_wr_en), .et_wr_idx(et_wr_idx), .et_wr_valid(et_wr_valid), .et_wr_ethertype(et_wr_et),
    .et_wr_queue(et_wr_queue), .et_rd_idx(et_rd_idx), .et_rd_valid(et_rd_valid), .et_rd_ethertype(et_rd_et),
    .et_rd_queue(et_rd_queue),
    .default_queue(rx_default_queue),
    .s_valid(key_valid), .s_key_valid(key_ok), .s_src_ip(key_src), .s_dst_ip(key_dst), .s_proto(key_proto),
    .s_src_port(key_sport), .s_dst_port(key_dport), .s_et_valid(key_et_ok), .s_ethertype(key_et),
    .s_tag(key_tag),
    .m_valid(res_valid), .m_hit(res_hit), .m_entry(res_entry), .m_queue(res_queue), .m_tag(res_tag),
    .busy(rxs_busy)
);

tsnic_rx_regs #(
    .ADDR_W(ADDR_W),
    .NUM_RXQ(RX_NUM_QUEUES),
    .ENTRIES(RX_STEER_ENTRIES),
    .ENT_W(RX_ENT_W),
    .ET_RULES(RX_STEER_ET_RULES),
    .ET_W(RX_ET_W),
    .MAX_FRAME_LEN(RX_MAX_FRAME_LEN),
    .BUF_BYTES(RX_BUF_BYTES)
) rx_regs_inst (
    .clk(rx_clk), .rst(rst),
    .reg_wr_addr(reg_wr_addr), .reg_wr_data(reg_wr_data), .reg_wr_strb(reg_wr_strb), .reg_wr_en(reg_wr_en),
    .reg_wr_wait(rxr_wr_wait), .reg_wr_ack(rxr_wr_ack),
    .reg_rd_addr(reg_rd_addr), .reg_rd_en(reg_rd_en), .reg_rd_data(rxr_rd_data),
    .reg_rd_wait(rxr_rd_wait), .reg_rd_ack(rxr_rd_ack),
    .rx_enable(rx_enable), .lat_comp_ns(rx_lat_comp_ns), .default_queue(rx_default_queue),
    .tbl_wr_en(st_wr_en), .tbl_wr_idx(st_wr_idx), .tbl_wr_valid(st_wr_valid), .tbl_wr_src_ip(st_wr_src),
    .tbl_wr_dst_ip(st_wr_dst), .tbl_wr_proto(st_wr_proto), .tbl_wr_src_port(st_wr_sport),
    .tbl_wr_dst_port(st_wr_dport), .tbl_wr_queue(st_wr_queue),
    .tbl_rd_idx(st_rd_idx), .tbl_rd_valid(st_rd_valid), .tbl_rd_src_ip(st_rd_src), .tbl_rd_dst_ip(st_rd_dst),
    .tbl_rd_proto(st_rd_proto), .tbl_rd_src_port(st_rd_sport), .tbl_rd_dst_port(st_rd_dport),
    .tbl_rd_queue(st_rd_queue),
    .et_wr_en(et_wr_en), .et_wr_idx(et_wr_idx), .et_wr_valid(et_wr_valid), .et_wr_ethertype(et_wr_et),
    .et_wr_queue(et_wr_queue), .et_rd_idx(et_rd_idx), .et_rd_valid(et_rd_valid), .et_rd_ethertype(et_rd_et),
    .et_rd_queue(et_rd_queue),
    .evt_frame(ev_frame), .evt_frame_len(ev_flen), .evt_drop_disabled(ev_dis), .evt_drop_full(ev_full),
    .evt_bad(ev_bad), .evt_too_long(ev_long), .evt_steered(res_valid && res_hit),
    .mac_drop_count((RX_TS_EXTERNAL != 0) ? mac_rx_drop_count : 32'd0),
    .busy(rxr_busy)
);

// RX DMA: descriptor reads behind the inner read arbiter, writes behind the write arbiter
wire [S2_ID_W-1:0] rx_arid, rx_rid;
wire [63:0]        rx_araddr;
wire [7:0]         rx_arlen;
wire [2:0]         rx_arsize, rx_arprot;
wire [1:0]         rx_arburst, rx_rresp;
wire               rx_arlock, rx_arvalid, rx_arready, rx_rlast, rx_rvalid, rx_rready;
wire [3:0]         rx_arcache;
wire [AXI_DATA_W-1:0] rx_rdata;
wire [S_ID_W-1:0]  rx_awid, rx_bid, cw_awid, cw_bid;
wire [63:0]        rx_awaddr, cw_awaddr;
wire [7:0]         rx_awlen, cw_awlen;
wire [2:0]         rx_awsize, rx_awprot, cw_awsize, cw_awprot;
wire [1:0]         rx_awburst, rx_bresp, cw_awburst, cw_bresp;
wire               rx_awlock, rx_awvalid, rx_awready, rx_wlast, rx_wvalid, rx_wready, rx_bvalid, rx_bready;
wire               cw_awlock, cw_awvalid, cw_awready, cw_wlast, cw_wvalid, cw_wready, cw_bvalid, cw_bready;
wire [3:0]         rx_awcache, cw_awcache;
wire [AXI_DATA_W-1:0]   rx_wdata, cw_wdata;
wire [AXI_DATA_W/8-1:0] rx_wstrb, cw_wstrb;

tsnic_rx_dma #(
    .ADDR_W(ADDR_W),
    .NUM_RXQ(RX_NUM_QUEUES),
    .RXQ_W(RXQ_W),
    .ENT_W(RX_ENT_W),
    .PTR_W(RX_PTR_W),
    .DATA_W(AXI_DATA_W),
    .AXI_ID_W(S_ID_W),
    .AXI_RID({S_ID_W{1'b0}}),
    .AXI_WID({S_ID_W{1'b0}}),
    .RING_LOG2_MAX((RING_LOG2_MAX < 15) ? RING_LOG2_MAX : 15)
) rx_dma_inst (
    .clk(rx_clk), .rst(rst),
    .reg_wr_addr(reg_wr_addr), .reg_wr_data(reg_wr_data), .reg_wr_strb(reg_wr_strb), .reg_wr_en(reg_wr_en),
    .reg_wr_wait(rxd_wr_wait), .reg_wr_ack(rxd_wr_ack),
    .reg_rd_addr(reg_rd_addr), .reg_rd_en(reg_rd_en), .reg_rd_data(rxd_rd_data),
    .reg_rd_wait(rxd_rd_wait), .reg_rd_ack(rxd_rd_ack),
    .s_info_valid(rinfo_valid), .s_info_ready(rinfo_ready), .s_info_start(rinfo_start), .s_info_end(rinfo_end),
    .s_info_len(rinfo_len), .s_info_frame_len(rinfo_flen), .s_info_status(rinfo_status), .s_info_ts(rinfo_ts),
    .s_info_hit(rinfo_hit), .s_info_entry(rinfo_entry), .s_info_queue(rinfo_queue),
    .buf_rd_en(rbuf_rd_en), .buf_rd_addr(rbuf_rd_addr), .buf_rd_data(rbuf_rd_data),
    .buf_rel_valid(rbuf_rel_valid), .buf_rel_ptr(rbuf_rel_ptr),
    .m_axi_arid(rx_arid_full), .m_axi_araddr(rx_araddr), .m_axi_arlen(rx_arlen), .m_axi_arsize(rx_arsize),
    .m_axi_arburst(rx_arburst), .m_axi_arlock(rx_arlock), .m_axi_arcache(rx_arcache), .m_axi_arprot(rx_arprot),
    .m_axi_arvalid(rx_arvalid), .m_axi_arready(rx_arready),
    .m_axi_rid({1'b0, rx_rid}), .m_axi_rdata(rx_rdata), .m_axi_rresp(rx_rresp), .m_axi_rlast(rx_rlast),
    .m_axi_rvalid(rx_rvalid), .m_axi_rready(rx_rready),
    .m_axi_awid(rx_awid), .m_axi_awaddr(rx_awaddr), .m_axi_awlen(rx_awlen), .m_axi_awsize(rx_awsize),
    .m_axi_awburst(rx_awburst), .m_axi_awlock(rx_awlock), .m_axi_awcache(rx_awcache), .m_axi_awprot(rx_awprot),
    .m_axi_awvalid(rx_awvalid), .m_axi_awready(rx_awready),
    .m_axi_wdata(rx_wdata), .m_axi_wstrb(rx_wstrb), .m_axi_wlast(rx_wlast), .m_axi_wvalid(rx_wvalid),
    .m_axi_wready(rx_wready),
    .m_axi_bid(rx_bid), .m_axi_bresp(rx_bresp), .m_axi_bvalid(rx_bvalid), .m_axi_bready(rx_bready),
    .evt_cpl(rx_evt_cpl),
    .busy(rxd_busy)
);

// verilator lint_off UNUSEDSIGNAL
wire [S_ID_W-1:0]  rx_arid_full;   // the RX DMA's one read ID (0); the inner arbiter carries S2_ID_W bits
// verilator lint_on UNUSEDSIGNAL
assign rx_arid = rx_arid_full[S2_ID_W-1:0];

// ---------------------------------------------------------------------------------------------
// host memory reads: fetch (s0) | inner {prefetch (s0), RX descriptors (s1)} (s1)
wire [S_ID_W-1:0]  in_arid, in_rid;
wire [63:0]        in_araddr;
wire [7:0]         in_arlen;
wire [2:0]         in_arsize, in_arprot;
wire [1:0]         in_arburst, in_rresp;
wire               in_arlock, in_arvalid, in_arready, in_rlast, in_rvalid, in_rready;
wire [3:0]         in_arcache;
wire [AXI_DATA_W-1:0] in_rdata;

tsnic_axi_rd_arb #(
    .DATA_W(AXI_DATA_W),
    .ADDR_W(64),
    .S_ID_W(S2_ID_W),
    .M_ID_W(S_ID_W)
) axi_rd_arb_inner_inst (
    .clk(clk), .rst(rst),
    .s0_axi_arid(pf_arid), .s0_axi_araddr(pf_araddr), .s0_axi_arlen(pf_arlen), .s0_axi_arsize(pf_arsize),
    .s0_axi_arburst(pf_arburst), .s0_axi_arlock(pf_arlock), .s0_axi_arcache(pf_arcache),
    .s0_axi_arprot(pf_arprot), .s0_axi_arvalid(pf_arvalid), .s0_axi_arready(pf_arready),
    .s0_axi_rid(pf_rid), .s0_axi_rdata(pf_rdata), .s0_axi_rresp(pf_rresp), .s0_axi_rlast(pf_rlast),
    .s0_axi_rvalid(pf_rvalid), .s0_axi_rready(pf_rready),
    .s1_axi_arid(rx_arid), .s1_axi_araddr(rx_araddr), .s1_axi_arlen(rx_arlen), .s1_axi_arsize(rx_arsize),
    .s1_axi_arburst(rx_arburst), .s1_axi_arlock(rx_arlock), .s1_axi_arcache(rx_arcache),
    .s1_axi_arprot(rx_arprot), .s1_axi_arvalid(rx_arvalid), .s1_axi_arready(rx_arready),
    .s1_axi_rid(rx_rid), .s1_axi_rdata(rx_rdata), .s1_axi_rresp(rx_rresp), .s1_axi_rlast(rx_rlast),
    .s1_axi_rvalid(rx_rvalid), .s1_axi_rready(rx_rready),
    .m_axi_arid(in_arid), .m_axi_araddr(in_araddr), .m_axi_arlen(in_arlen),
    .m_axi_arsize(in_arsize), .m_axi_arburst(in_arburst), .m_axi_arlock(in_arlock),
    .m_axi_arcache(in_arcache), .m_axi_arprot(in_arprot), .m_axi_arvalid(in_arvalid),
    .m_axi_arready(in_arready),
    .m_axi_rid(in_rid), .m_axi_rdata(in_rdata), .m_axi_rresp(in_rresp), .m_axi_rlast(in_rlast),
    .m_axi_rvalid(in_rvalid), .m_axi_rready(in_rready)
);

tsnic_axi_rd_arb #(
    .DATA_W(AXI_DATA_W),
    .ADDR_W(64),
    .S_ID_W(S_ID_W),
    .M_ID_W(AXI_ID_W)
) axi_rd_arb_inst (
    .clk(clk), .rst(rst),
    .s0_axi_arid(df_arid), .s0_axi_araddr(df_araddr), .s0_axi_arlen(df_arlen), .s0_axi_arsize(df_arsize),
    .s0_axi_arburst(df_arburst), .s0_axi_arlock(df_arlock), .s0_axi_arcache(df_arcache),
    .s0_axi_arprot(df_arprot), .s0_axi_arvalid(df_arvalid), .s0_axi_arready(df_arready),
    .s0_axi_rid(df_rid), .s0_axi_rdata(df_rdata), .s0_axi_rresp(df_rresp), .s0_axi_rlast(df_rlast),
    .s0_axi_rvalid(df_rvalid), .s0_axi_rready(df_rready),
    .s1_axi_arid(in_arid), .s1_axi_araddr(in_araddr), .s1_axi_arlen(in_arlen), .s1_axi_arsize(in_arsize),
    .s1_axi_arburst(in_arburst), .s1_axi_arlock(in_arlock), .s1_axi_arcache(in_arcache),
    .s1_axi_arprot(in_arprot), .s1_axi_arvalid(in_arvalid), .s1_axi_arready(in_arready),
    .s1_axi_rid(in_rid), .s1_axi_rdata(in_rdata), .s1_axi_rresp(in_rresp), .s1_axi_rlast(in_rlast),
    .s1_axi_rvalid(in_rvalid), .s1_axi_rready(in_rready),
    .m_axi_arid(m_axi_arid), .m_axi_araddr(m_axi_araddr), .m_axi_arlen(m_axi_arlen),
    .m_axi_arsize(m_axi_arsize), .m_axi_arburst(m_axi_arburst), .m_axi_arlock(m_axi_arlock),
    .m_axi_arcache(m_axi_arcache), .m_axi_arprot(m_axi_arprot), .m_axi_arvalid(m_axi_arvalid),
    .m_axi_arready(m_axi_arready),
    .m_axi_rid(m_axi_rid), .m_axi_rdata(m_axi_rdata), .m_axi_rresp(m_axi_rresp), .m_axi_rlast(m_axi_rlast),
    .m_axi_rvalid(m_axi_rvalid), .m_axi_rready(m_axi_rready)
);

// host memory writes: completion writer (s0) | RX DMA (s1), a burst at a time
tsnic_axi_wr_arb #(
    .DATA_W(AXI_DATA_W),
    .ADDR_W(64),
    .S_ID_W(S_ID_W),
    .M_ID_W(AXI_ID_W)
) axi_wr_arb_inst (
    .clk(clk), .rst(rst),
    .s0_axi_awid(cw_awid), .s0_axi_awaddr(cw_awaddr), .s0_axi_awlen(cw_awlen), .s0_axi_awsize(cw_awsize),
    .s0_axi_awburst(cw_awburst), .s0_axi_awlock(cw_awlock), .s0_axi_awcache(cw_awcache),
    .s0_axi_awprot(cw_awprot), .s0_axi_awvalid(cw_awvalid), .s0_axi_awready(cw_awready),
    .s0_axi_wdata(cw_wdata), .s0_axi_wstrb(cw_wstrb), .s0_axi_wlast(cw_wlast), .s0_axi_wvalid(cw_wvalid),
    .s0_axi_wready(cw_wready),
    .s0_axi_bid(cw_bid), .s0_axi_bresp(cw_bresp), .s0_axi_bvalid(cw_bvalid), .s0_axi_bready(cw_bready),
    .s1_axi_awid(rx_awid), .s1_axi_awaddr(rx_awaddr), .s1_axi_awlen(rx_awlen), .s1_axi_awsize(rx_awsize),
    .s1_axi_awburst(rx_awburst), .s1_axi_awlock(rx_awlock), .s1_axi_awcache(rx_awcache),
    .s1_axi_awprot(rx_awprot), .s1_axi_awvalid(rx_awvalid), .s1_axi_awready(rx_awready),
    .s1_axi_wdata(rx_wdata), .s1_axi_wstrb(rx_wstrb), .s1_axi_wlast(rx_wlast), .s1_axi_wvalid(rx_wvalid),
    .s1_axi_wready(rx_wready),
    .s1_axi_bid(rx_bid), .s1_axi_bresp(rx_bresp), .s1_axi_bvalid(rx_bvalid), .s1_axi_bready(rx_bready),
    .m_axi_awid(m_axi_awid), .m_axi_awaddr(m_axi_awaddr), .m_axi_awlen(m_axi_awlen), .m_axi_awsize(m_axi_awsize),
    .m_axi_awburst(m_axi_awburst), .m_axi_awlock(m_axi_awlock), .m_axi_awcache(m_axi_awcache),
    .m_axi_awprot(m_axi_awprot), .m_axi_awvalid(m_axi_awvalid), .m_axi_awready(m_axi_awready),
    .m_axi_wdata(m_axi_wdata), .m_axi_wstrb(m_axi_wstrb), .m_axi_wlast(m_axi_wlast),
    .m_axi_wvalid(m_axi_wvalid), .m_axi_wready(m_axi_wready),
    .m_axi_bid(m_axi_bid), .m_axi_bresp(m_axi_bresp), .m_axi_bvalid(m_axi_bvalid), .m_axi_bready(m_axi_bready),
    .busy(wa_busy)
);

tsnic_cpl_write #(
    .ADDR_W(ADDR_W),
    .NUM_QUEUES(NUM_QUEUES),
    .QUEUE_W(QUEUE_W),
    .NODE_W(NODE_W),
    .N_SRC(3),
    .RING_LOG2_MAX(RING_LOG2_MAX),
    .AXI_DATA_W(AXI_DATA_W),
    .AXI_ID_W(S_ID_W),
    .AXI_WR_ID({S_ID_W{1'b0}}),
    .OUT_LOG2(CPL_OUT_LOG2),
    .MAX_BURST_LOG2(CPL_MAX_BURST_LOG2)
) cpl_write_inst (
    .clk(cw_clk), .rst(rst),
    .reg_wr_addr(reg_wr_addr), .reg_wr_data(reg_wr_data), .reg_wr_strb(reg_wr_strb), .reg_wr_en(reg_wr_en),
    .reg_wr_wait(cw_wr_wait), .reg_wr_ack(cw_wr_ack),
    .reg_rd_addr(reg_rd_addr), .reg_rd_en(reg_rd_en), .reg_rd_data(cw_rd_data),
    .reg_rd_wait(cw_rd_wait), .reg_rd_ack(cw_rd_ack),
    .s_cpl_req_valid(cr_valid), .s_cpl_req_ready(cr_ready), .s_cpl_req_queue(cr_queue),
    .s_cpl_req_ring_index(cr_index), .s_cpl_req_cookie(cr_cookie), .s_cpl_req_launch_ns(cr_launch),
    .s_cpl_req_depart_ns(cr_depart), .s_cpl_req_len(cr_len), .s_cpl_req_status(cr_status),
    .s_cpl_req_reason(cr_reason), .s_cpl_req_capped(cr_capped), .s_cpl_req_handle(cr_handle),
    .s_cpl_req_handle_valid(cr_hvalid),
    .m_axi_awid(cw_awid), .m_axi_awaddr(cw_awaddr), .m_axi_awlen(cw_awlen), .m_axi_awsize(cw_awsize),
    .m_axi_awburst(cw_awburst), .m_axi_awlock(cw_awlock), .m_axi_awcache(cw_awcache),
    .m_axi_awprot(cw_awprot), .m_axi_awvalid(cw_awvalid), .m_axi_awready(cw_awready),
    .m_axi_wdata(cw_wdata), .m_axi_wstrb(cw_wstrb), .m_axi_wlast(cw_wlast),
    .m_axi_wvalid(cw_wvalid), .m_axi_wready(cw_wready),
    .m_axi_bid(cw_bid), .m_axi_bresp(cw_bresp), .m_axi_bvalid(cw_bvalid), .m_axi_bready(cw_bready),
    .m_free_valid(free_valid), .m_free_ready(free_ready), .m_free_handle(free_handle),
    .evt_cpl_valid(evt_cpl_valid), .evt_cpl_status(evt_cpl_status), .evt_cpl_len(evt_cpl_len),
    .evt_cpl_queue(evt_cpl_queue),
    .ff_quiet(cw_ff_quiet)
);

// ---------------------------------------------------------------------------------------------
// configuration flash controller and ICAP (FLASH block)
wire        fl_ff_quiet;
wire [63:0] fl_ff_wake_ns;

tsnic_flash_ctrl #(
    .ADDR_W(ADDR_W),
    .CLK_FREQ_HZ(CLK_FREQ_HZ),
    .BOARD_ID(BOARD_ID),
    .FLASH_SIZE_LOG2(FLASH_SIZE_LOG2),
    .FLASH_WRITABLE(FLASH_WRITABLE),
    .GOLDEN(GOLDEN),
    .BOOT_BASE(FLASH_BOOT_BASE)
) flash_ctrl_inst (
    .clk(fl_clk), .rst(rst),
    .reg_wr_addr(reg_wr_addr), .reg_wr_data(reg_wr_data), .reg_wr_strb(reg_wr_strb), .reg_wr_en(reg_wr_en),
    .reg_wr_wait(fl_wr_wait), .reg_wr_ack(fl_wr_ack),
    .reg_rd_addr(reg_rd_addr), .reg_rd_en(reg_rd_en), .reg_rd_data(fl_rd_data),
    .reg_rd_wait(fl_rd_wait), .reg_rd_ack(fl_rd_ack),
    .qspi_clk(qspi_clk), .qspi_cs_n(qspi_cs_n), .qspi_dq_o(qspi_dq_o), .qspi_dq_oe(qspi_dq_oe),
    .qspi_dq_i(qspi_dq_i),
    .icap_ce(icap_ce), .icap_csib(icap_csib), .icap_rdwrb(icap_rdwrb), .icap_i(icap_i), .icap_o(icap_o),
    .phc_ns(phc_ns),
    .ff_quiet(fl_ff_quiet), .ff_wake_ns(fl_ff_wake_ns)
);

// ---------------------------------------------------------------------------------------------
// idle fast-forward: every block quiet, no transaction on any port; the earliest wake of the PHC
// (second boundary), the interrupt moderation timer, the calendar's cascade and the flash controller's
// wait between busy polls
wire        cw_ff_quiet;
wire        gate_ff_quiet = !gate_frm_valid && !gate_pay_tvalid && (cr_valid == 3'd0);
wire        bus_ff_quiet = !s_axil_awvalid && !s_axil_wvalid && !s_axil_arvalid && !s_axil_bvalid &&
                           !s_axil_rvalid && !reg_wr_en && !reg_rd_en &&
                           !m_axi_arvalid && !m_axi_rvalid && !m_axi_awvalid && !m_axi_wvalid && !m_axi_bvalid &&
                           !m_axis_tx_tvalid && !s_axis_rx_tvalid;
wire        rx_ff_quiet = !rxt_busy && !rxb_busy && !rxs_busy && !rxd_busy && !rxr_busy && !wa_busy;
// The same AND in steps: the ports and the core's own state first, then the blocks that are busy
// longest (the fetch engine and the completion writer, also during the post-reset clear; the
// prefetcher and the calendar while frames wait), the rest last. A cycle-based simulator stops at
// the first step that fails instead of evaluating the whole AND in every cycle (simulation-only:
// nothing reads it when SIM_FAST_FORWARD = 0).
reg         all_ff_quiet;
always @* begin
    all_ff_quiet = 1'b0;
    if (bus_ff_quiet && gate_ff_quiet && (rseq_reg == R_IDLE) && !fetch_fl_out_reg && !rst) begin
        if (df_ff_quiet && cw_ff_quiet) begin
            if (pf_ff_quiet && cal_ff_quiet)
                all_ff_quiet = phc_ff_quiet && regs_ff_quiet && fl_ff_quiet && rx_ff_quiet;
        end
    end
end
wire [63:0] wake_a = (phc_ff_wake_ns < regs_ff_wake_ns) ? phc_ff_wake_ns : regs_ff_wake_ns;
wire [63:0] wake_b = (wake_a < cal_ff_wake_ns) ? wake_a : cal_ff_wake_ns;
wire [63:0] wake_c = (wake_b < fl_ff_wake_ns) ? wake_b : fl_ff_wake_ns;   // flash: end of a busy-poll gap

assign sim_ff_quiet   = (SIM_FAST_FORWARD != 0) && all_ff_quiet;
assign sim_ff_wake_ns = (SIM_FAST_FORWARD != 0) ? wake_c : 64'd0;
assign sim_ff_phc_ns  = (SIM_FAST_FORWARD != 0) ? phc_ns : 64'd0;
assign sim_ff_inc     = (SIM_FAST_FORWARD != 0) ? phc_ff_inc : 64'd0;
assign sim_ff_chunk_ns = (SIM_FAST_FORWARD != 0) ? cal_ff_chunk_ns : 64'd0;
// Gated blocks (co-simulation only, docs/ARCHITECTURE.md): a block holds while it is quiet and sees
// no register access, no reset and nothing on its inputs that it would take, and was so at the last
// two edges too (its registers that follow the last activity, such as RAM read data and what is
// loaded from it, settle within two edges). The descriptor fetch also needs no read data and no change
// of its enable; the completion writer no request and no write response; the flash controller no
// wait between busy polls (its gap counters run: ff_wake_ns all ones); the receive path no beat.
wire gb_idle   = !reg_wr_en && !reg_rd_en && !rst;
wire df_hold_c = df_ff_quiet && gb_idle && !df_rvalid;
wire cw_hold_c = cw_ff_quiet && gb_idle && (cr_valid == 3'd0) && !cw_bvalid;
wire fl_hold_c = fl_ff_quiet && gb_idle && (fl_ff_wake_ns == {64{1'b1}});
wire rx_hold_c = rx_ff_quiet && gb_idle && !s_axis_rx_tvalid;
// the register interface: no BAR0 transaction in progress, the register file quiet (no event, no
// interrupt moderation due before its wake time, no PHC step)
wire rg_hold_c = regs_ff_quiet && gb_idle && !phc_step && (phc_ns < regs_ff_wake_ns) &&
                 !s_axil_awvalid && !s_axil_wvalid && !s_axil_arvalid && !s_axil_bvalid && !s_axil_rvalid;
wire [4:0] gb_hold_c = {rg_hold_c, rx_hold_c, fl_hold_c, cw_hold_c, df_hold_c};
reg  df_en_q;
reg  [4:0] gb_hold_p1, gb_hold_p2;
always @(posedge clk) begin
    df_en_q    <= df_en;
    gb_hold_p1 <= gb_hold_c;
    gb_hold_p2 <= gb_hold_p1;
end
wire [4:0] gb_hold = gb_hold_c & gb_hold_p1 & gb_hold_p2 & {4'b1111, df_en == df_en_q};
assign sim_gate_hold   = (SIM_GATE != 0) ? {gb_hold, cal_ff_hold} : 6'd0;

endmodule

`resetall
