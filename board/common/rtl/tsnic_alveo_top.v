// tsnic_alveo_top: what the Alveo tops (U50, U280, U250) share, one copy for the three boards. Each
// board's fpga.v keeps its pins, its init_clk buffer (the free-running 100 MHz clock, however the card
// makes it), its clock-chip and QSFP control pins and the mapping of the LED outputs onto its LEDs
// (if it has any), and instantiates this module. What differs between the cards is a parameter here:
// PCIE_IP (the U50 and U280 have PCIE4C hard blocks, pcie4c_uscale_plus_0; the U250 PCIE4,
// pcie4_uscale_plus_0; both IPs have the same user ports) and BOARD_ID (the core's CAP register); the
// placement of the GTs is each board's ip/*.tcl.
//
// - PCIe: PCIE_IP (board/<board>/ip/PCIE_IP.tcl), Gen3 x16, 512-bit CQ/CC/RQ/RC at user_clk = 250 MHz,
//   the core clock. Reference clock: 100 MHz from the edge connector (IBUFDS_GTE4: O to the GTs' sys_clk_gt,
//   ODIV2 straight to the IP's sys_clk, which puts its own BUFG_GT on it: PG213 clocking, as Corundum's
//   fpga/mqnic/Alveo/fpga_100g/rtl/fpga_au50.v and fpga_au200.v wire it). PERST# straight to sys_reset
//   (active low on pcie4/pcie4c: PG213). Every IP input is written here (docs/BOARDS.md, "PCIe IP inputs").
//   Inputs a left-open port would tie to 0 but that must be 1, as Corundum's fpga_au50.v / fpga_au200.v
//   tie them: cfg_link_training_enable (0 = the LTSSM never leaves Detect), cfg_config_space_enable (0 =
//   configuration requests answered with CRS, no enumeration), cfg_power_state_change_ack (0 = a D-state
//   change requested by the host, e.g. D3hot by vfio-pci, never completes). cfg_dsn 0 (no serial number
//   capability is enabled), cfg_flr_done 0 and the VF FLR inputs 0 (no FLR capability in ip/*.tcl; as
//   Corundum), the management, message, error, power-management and downstream-port inputs idle (0).
// - Ethernet: tsnic_alveo_mac on the QSFP28 cage's lanes and 161.1328125 MHz reference clock: the CMAC
//   cmac_usplus_0 (100GBASE-SR4/CR4, CAUI-4 with RS-FEC), TX/RX user clock gt_txusrclk2 =
//   322.265625 MHz; its init/DRP clock and power-on reset: init_clk, 2^12 cycles (41 us).
// - Core: tsnic_board_core (tsnic's PCIe endpoint + tsnic_core) on user_clk with MAC_DOMAIN = 1: its
//   launch gate (tsnic_mac_tx) runs on the CMAC's TX user clock gt_txusrclk2 (tx_clk, reset by the
//   CMAC's usr_tx_reset) with the PHC time carried there (tsnic_td_source -> tsnic_td_sink), and its
//   m_axis_tx_* goes straight to the CMAC's tx_axis. tsnic_mac_tx offers a frame only once all of it
//   is in the MAC domain, so a frame never pauses at the CMAC (tx_unfout).
// - RX: the CMAC's RX AXI-Stream (512 bits on rx_clk = gt_txusrclk2, no backpressure) straight into
//   the board core (rx_clk = the same clock, RX_SOF_IN = 0: the arrival is stamped in the cycle a frame's
//   first beat leaves the CMAC, on that clock, then the frame crosses to user_clk). Its reset: the
//   CMAC's usr_rx_reset brought onto that clock.
// - Flash: the core's quad-SPI pins to STARTUPE3 (the configuration flash MT25QU01G on D00-D03,
//   FCS_B, CCLK); its ICAP port to ICAPE3 on icap_clk = user_clk / 2 (125 MHz, the ICAPE3 limit),
//   the core's icap_ce high every other user_clk cycle. ICAP takes each byte bit-reversed: swapped
//   here (notes/flash.md: the board wrapper does it).
// - LED drivers: led_link = PCIe link up and MAC RX aligned, led_pps = PPS (100 ms pulse), led_act =
//   TX activity (stretched). A card without LEDs leaves them unloaded (synthesis trims them).
// - MAC_10G = 1 (make bitstream MAC=10g): instead of the CMAC, 10GBASE-R on QSFP lane 0 through
//   xxv_ethernet_0 (PCS/PMA only, 64-bit XGMII, same 161.1328125 MHz reference clock) with tsnic's
//   own MAC (tsnic_axis_downsize 512->64 -> tsnic_xgmii_tx; tsnic_xgmii_rx), the board core's MAC
//   domain on tx_mii_clk_0 = 156.25 MHz with RX_DATA_W = 64 and RX_SOF_IN = 1, as on SUME
//   (docs/BOARDS.md, "10G on the Alveo boards").
`resetall
`timescale 1ns / 1ps
`default_nettype none

module tsnic_alveo_top #(
    // the PCIe hard block's IP (board/<board>/ip/*.tcl): pcie4c_uscale_plus_0 or pcie4_uscale_plus_0
    // (a string of up to 32 characters, sized so that the comparisons below are of equal widths)
    parameter [8*32-1:0] PCIE_IP = "pcie4c_uscale_plus_0",
    parameter BOARD_ID = 1,    // the core's board identifier (1 U50, 2 U280, 3 U250)
    parameter GOLDEN = 0,      // 1: build the golden (fallback) image with the boot selector
    parameter MAC_10G = 0,     // 1: 10GBASE-R on QSFP lane 0 through xxv_ethernet_0 and tsnic's own
                               //    XGMII MAC instead of the CMAC; the QSFP ports shrink to lane 0
    parameter LANES = (MAC_10G != 0) ? 1 : 4
) (
    // the free-running 100 MHz clock (CMAC init/DRP clock) and its power-on reset counter
    input  wire               init_clk,
    output wire [12:0]        init_rst_cnt,   // init_clk cycles since configuration, up to 2^12 (41 us):
                                              // the power-on reset ends when bit 12 sets

    // PCIe edge connector: reference clock, PERST#, 16 lanes
    input  wire               pcie_refclk_p,
    input  wire               pcie_refclk_n,
    input  wire               pcie_reset_n,
    input  wire [15:0]        pcie_rx_p,
    input  wire [15:0]        pcie_rx_n,
    output wire [15:0]        pcie_tx_p,
    output wire [15:0]        pcie_tx_n,

    // the QSFP28 cage: 161.1328125 MHz GT reference clock and lanes
    input  wire               qsfp_refclk_p,
    input  wire               qsfp_refclk_n,
    input  wire [LANES-1:0]   qsfp_rx_p,
    input  wire [LANES-1:0]   qsfp_rx_n,
    output wire [LANES-1:0]   qsfp_tx_p,
    output wire [LANES-1:0]   qsfp_tx_n,

    // LED drivers (registered): PCIe link up and MAC RX aligned; PPS (stretched to ~100 ms); TX activity
    output wire               led_link,
    output wire               led_pps,
    output wire               led_act
);

localparam DATA_W = 512;
localparam KEEP_W = DATA_W / 32;

// ------------------------------------------------------------------------------------------------
// power-on reset: held for 2^12 init_clk cycles (41 us) after configuration
reg [12:0] init_rst_cnt_reg = 13'd0;
always @(posedge init_clk) if (!init_rst_cnt_reg[12]) init_rst_cnt_reg <= init_rst_cnt_reg + 13'd1;
wire init_rst = !init_rst_cnt_reg[12];
assign init_rst_cnt = init_rst_cnt_reg;

// ------------------------------------------------------------------------------------------------
// PCIe hard block
// ODIV2 (100 MHz: REFCLK_HROW_CK_SEL 2'b00 = ODIV2 is O, undivided, UG578) goes straight to the IP's sys_clk:
// the IP has its own BUFG_GT on sys_clk, and a BUFG_GT takes its input from a GT or an IBUFDS_GTE ODIV2
// only (UG572), so no BUFG_GT of ours in between (Corundum: fpga_au50.v / fpga_au200.v do the same)
wire pcie_refclk_gt, pcie_sys_clk;
IBUFDS_GTE4 #(.REFCLK_HROW_CK_SEL(2'b00)) pcie_refclk_ibuf_inst (
    .I(pcie_refclk_p), .IB(pcie_refclk_n), .CEB(1'b0), .O(pcie_refclk_gt), .ODIV2(pcie_sys_clk)
);

wire clk;            // user_clk, 250 MHz: the core clock
wire pcie_user_reset;
wire pcie_lnk_up;

wire [DATA_W-1:0] cq_tdata, cc_tdata, rq_tdata, rc_tdata;
wire [KEEP_W-1:0] cq_tkeep, cc_tkeep, rq_tkeep, rc_tkeep;
wire cq_tvalid, cq_tready, cq_tlast, cc_tvalid, cc_tlast, rq_tvalid, rq_tlast, rc_tvalid, rc_tready, rc_tlast;
/* verilator lint_off UNUSEDSIGNAL */   // per-PF / replicated bits: PF0's or bit 0 is used
wire [3:0]   cc_tready4, rq_tready4;
wire [182:0] cq_tuser;
wire [80:0]  cc_tuser;
wire [136:0] rq_tuser;
wire [160:0] rc_tuser;
wire [1:0]   cfg_max_payload;
wire [2:0]   cfg_max_read_req;
wire [15:0]  cfg_function_status;
wire [3:0]   cfg_msix_enable, cfg_msix_mask;
/* verilator lint_on UNUSEDSIGNAL */
wire [63:0]  msix_address;
wire [31:0]  msix_data;
wire         msix_int, msix_sent, msix_fail;

/* verilator lint_off UNUSEDSIGNAL */
wire        pcie_phy_rdy, pcie_link_down, pcie_int_sent, pcie_vec_pending_status;
wire [1:0]  pcie_link_status, pcie_speed;
wire [2:0]  pcie_width;
wire [5:0]  pcie_ltssm, pcie_np_count;
/* verilator lint_on UNUSEDSIGNAL */

// the two hard-block IPs have the same user ports: one connection list for both
`define TSNIC_ALVEO_PCIE_PORTS \
    .pci_exp_txn(pcie_tx_n), .pci_exp_txp(pcie_tx_p), .pci_exp_rxn(pcie_rx_n), .pci_exp_rxp(pcie_rx_p), \
    .sys_clk(pcie_sys_clk), .sys_clk_gt(pcie_refclk_gt), .sys_reset(pcie_reset_n), .phy_rdy_out(pcie_phy_rdy), \
    .user_clk(clk), .user_reset(pcie_user_reset), .user_lnk_up(pcie_lnk_up), \
    .s_axis_rq_tdata(rq_tdata), .s_axis_rq_tkeep(rq_tkeep), .s_axis_rq_tlast(rq_tlast), \
    .s_axis_rq_tready(rq_tready4), .s_axis_rq_tuser(rq_tuser), .s_axis_rq_tvalid(rq_tvalid), \
    .m_axis_rc_tdata(rc_tdata), .m_axis_rc_tkeep(rc_tkeep), .m_axis_rc_tlast(rc_tlast), \
    .m_axis_rc_tready(rc_tready), .m_axis_rc_tuser(rc_tuser), .m_axis_rc_tvalid(rc_tvalid), \
    .m_axis_cq_tdata(cq_tdata), .m_axis_cq_tkeep(cq_tkeep), .m_axis_cq_tlast(cq_tlast), \
    .m_axis_cq_tready(cq_tready), .m_axis_cq_tuser(cq_tuser), .m_axis_cq_tvalid(cq_tvalid), \
    .s_axis_cc_tdata(cc_tdata), .s_axis_cc_tkeep(cc_tkeep), .s_axis_cc_tlast(cc_tlast), \
    .s_axis_cc_tready(cc_tready4), .s_axis_cc_tuser(cc_tuser), .s_axis_cc_tvalid(cc_tvalid), \
    .pcie_cq_np_req(2'b11), .pcie_cq_np_req_count(pcie_np_count), \
    .cfg_phy_link_down(pcie_link_down), .cfg_phy_link_status(pcie_link_status), \
    .cfg_negotiated_width(pcie_width), .cfg_current_speed(pcie_speed), \
    .cfg_max_payload(cfg_max_payload), .cfg_max_read_req(cfg_max_read_req), \
    .cfg_function_status(cfg_function_status), .cfg_ltssm_state(pcie_ltssm), \
    .cfg_interrupt_int(4'd0), .cfg_interrupt_pending(4'd0), .cfg_interrupt_sent(pcie_int_sent), \
    .cfg_interrupt_msix_enable(cfg_msix_enable), .cfg_interrupt_msix_mask(cfg_msix_mask), \
    .cfg_interrupt_msix_data(msix_data), .cfg_interrupt_msix_address(msix_address), \
    .cfg_interrupt_msix_int(msix_int), .cfg_interrupt_msix_vec_pending(2'd0), \
    .cfg_interrupt_msix_vec_pending_status(pcie_vec_pending_status), \
    .cfg_interrupt_msi_sent(msix_sent), .cfg_interrupt_msi_fail(msix_fail), \
    .cfg_interrupt_msi_function_number(8'd0), \
    .cfg_link_training_enable(1'b1), .cfg_config_space_enable(1'b1), .cfg_power_state_change_ack(1'b1), \
    .cfg_dsn(64'd0), .cfg_flr_done(4'd0), .cfg_vf_flr_done(1'b0), .cfg_vf_flr_func_num(8'd0), \
    .cfg_err_cor_in(1'b0), .cfg_err_uncor_in(1'b0), \
    .cfg_mgmt_addr(10'd0), .cfg_mgmt_function_number(8'd0), .cfg_mgmt_write(1'b0), .cfg_mgmt_write_data(32'd0), \
    .cfg_mgmt_byte_enable(4'd0), .cfg_mgmt_read(1'b0), .cfg_mgmt_debug_access(1'b0), \
    .cfg_msg_transmit(1'b0), .cfg_msg_transmit_type(3'd0), .cfg_msg_transmit_data(32'd0), .cfg_fc_sel(3'd0), \
    .cfg_pm_aspm_l1_entry_reject(1'b0), .cfg_pm_aspm_tx_l0s_entry_disable(1'b0), \
    .cfg_req_pm_transition_l23_ready(1'b0), .cfg_hot_reset_in(1'b0), \
    .cfg_ds_port_number(8'd0), .cfg_ds_bus_number(8'd0), .cfg_ds_device_number(5'd0), \
    .pcie_rq_seq_num0(), .pcie_rq_seq_num_vld0(), .pcie_rq_seq_num1(), .pcie_rq_seq_num_vld1(), \
    .pcie_rq_tag0(), .pcie_rq_tag1(), .pcie_rq_tag_av(), .pcie_rq_tag_vld0(), .pcie_rq_tag_vld1(), \
    .pcie_tfc_nph_av(), .pcie_tfc_npd_av(), .cfg_function_power_state(), .cfg_vf_status(), \
    .cfg_vf_power_state(), .cfg_link_power_state(), .cfg_err_cor_out(), .cfg_err_nonfatal_out(), \
    .cfg_err_fatal_out(), .cfg_local_error_valid(), .cfg_local_error_out(), .cfg_rx_pm_state(), \
    .cfg_tx_pm_state(), .cfg_rcb_status(), .cfg_obff_enable(), .cfg_pl_status_change(), \
    .cfg_tph_requester_enable(), .cfg_tph_st_mode(), .cfg_vf_tph_requester_enable(), .cfg_vf_tph_st_mode(), \
    .cfg_mgmt_read_data(), .cfg_mgmt_read_write_done(), .cfg_msg_received(), .cfg_msg_received_data(), \
    .cfg_msg_received_type(), .cfg_msg_transmit_done(), .cfg_fc_ph(), .cfg_fc_pd(), .cfg_fc_nph(), \
    .cfg_fc_npd(), .cfg_fc_cplh(), .cfg_fc_cpld(), .cfg_power_state_change_interrupt(), \
    .cfg_flr_in_process(), .cfg_vf_flr_in_process(), .cfg_interrupt_msix_vf_enable(), \
    .cfg_interrupt_msix_vf_mask(), .cfg_hot_reset_out()

generate
if (PCIE_IP == "pcie4c_uscale_plus_0") begin : pcie4c
    pcie4c_uscale_plus_0 pcie_inst (`TSNIC_ALVEO_PCIE_PORTS);
end else if (PCIE_IP == "pcie4_uscale_plus_0") begin : pcie4
    pcie4_uscale_plus_0 pcie_inst (`TSNIC_ALVEO_PCIE_PORTS);
end else begin : g_bad_pcie_ip
    tsnic_param_error_alveo_pcie_ip_pcie4c_or_pcie4_uscale_plus_0 param_error_inst ();
end
endgenerate
`undef TSNIC_ALVEO_PCIE_PORTS

// the core's reset: the hard block's user_reset, registered (it is synchronous to user_clk)
reg rst = 1'b1;
always @(posedge clk) rst <= pcie_user_reset;

// ------------------------------------------------------------------------------------------------
// the MAC: the CMAC (100G, MAC_10G = 0) or 10GBASE-R with tsnic's XGMII MAC (MAC_10G = 1). Both give
// the board core one MAC clock (mac_clk) for its TX and RX sides, with their resets, and take the
// core's 512-bit launch-gated TX stream on that clock.
localparam RX_W = MAC_10G != 0 ? 64 : DATA_W;   // the MAC's RX stream width
localparam [63:0] MAC_PERIOD_FX = MAC_10G != 0 ? 64'd27487790694   // tx_mii_clk_0: 156.25 MHz = 6.4 ns
                                               : 64'd13327413670;  // gt_txusrclk2: 322.265625 MHz = 3.1030 ns

wire mac_clk;        // TX and RX clock of the MAC side
wire mac_tx_reset;   // synchronous to mac_clk
wire mac_rx_rst;     // synchronous to mac_clk
wire mac_rx_aligned; // CMAC: stat_rx_aligned; 10G: stat_rx_status (block lock, no high BER)
wire [DATA_W-1:0]   core_tx_tdata;   // the core's TX stream, on mac_clk
wire [DATA_W/8-1:0] core_tx_tkeep;
wire core_tx_tvalid, core_tx_tready, core_tx_tlast, core_tx_tuser;
wire [RX_W-1:0]   core_rx_tdata;     // the MAC's RX stream, on mac_clk, no backpressure
wire [RX_W/8-1:0] core_rx_tkeep;
wire core_rx_tvalid, core_rx_tlast, core_rx_tuser, core_rx_sof, core_rx_sof_lane4;
wire mac_tx_tvalid, mac_tx_tready, mac_tx_tlast;   // the stream the MAC takes (for the activity LED)
wire        mac_lag_valid;   // line-start reports to the launch gate (10G: tsnic_xgmii_tx; CMAC: unused)
wire [15:0] mac_lag_ns;

tsnic_alveo_mac #(.MAC_10G(MAC_10G), .DATA_W(DATA_W)) mac_inst (
    .init_clk(init_clk), .init_rst(init_rst), .rst(rst),
    .refclk_p(qsfp_refclk_p), .refclk_n(qsfp_refclk_n),
    .qsfp_rx_p(qsfp_rx_p), .qsfp_rx_n(qsfp_rx_n), .qsfp_tx_p(qsfp_tx_p), .qsfp_tx_n(qsfp_tx_n),
    .mac_clk(mac_clk), .mac_tx_reset(mac_tx_reset), .mac_rx_rst(mac_rx_rst), .mac_rx_aligned(mac_rx_aligned),
    .core_tx_tdata(core_tx_tdata), .core_tx_tkeep(core_tx_tkeep), .core_tx_tvalid(core_tx_tvalid),
    .core_tx_tready(core_tx_tready), .core_tx_tlast(core_tx_tlast), .core_tx_tuser(core_tx_tuser),
    .core_rx_tdata(core_rx_tdata), .core_rx_tkeep(core_rx_tkeep), .core_rx_tvalid(core_rx_tvalid),
    .core_rx_tlast(core_rx_tlast), .core_rx_tuser(core_rx_tuser),
    .core_rx_sof(core_rx_sof), .core_rx_sof_lane4(core_rx_sof_lane4),
    .mac_tx_tvalid(mac_tx_tvalid), .mac_tx_tready(mac_tx_tready), .mac_tx_tlast(mac_tx_tlast),
    .mac_lag_valid(mac_lag_valid), .mac_lag_ns(mac_lag_ns)
);

// ------------------------------------------------------------------------------------------------
// the core
wire pps;
wire qspi_clk, qspi_cs_n;
wire [3:0] qspi_dq_o, qspi_dq_oe, qspi_dq_i;
wire icap_csib, icap_rdwrb;
wire [31:0] icap_i, icap_o;

reg icap_ce = 1'b0;   // high in every other user_clk cycle: the ICAP port changes at icap_clk's rate
always @(posedge clk) icap_ce <= !icap_ce;

/* verilator lint_off UNUSEDSIGNAL */
wire core_rx_tready, stat_dma_rd_err, stat_bar_bad_np, stat_bar_bad_posted;
/* verilator lint_off UNUSEDSIGNAL */
wire [5:0] sim_gate_hold_nc;   // the core's co-simulation gating output (0 with SIM_GATE = 0)
/* verilator lint_on UNUSEDSIGNAL */
/* verilator lint_on UNUSEDSIGNAL */

tsnic_board_core #(
    .DATA_W(DATA_W),
    .CQ_USER_W(183), .CC_USER_W(81), .RQ_USER_W(137), .RC_USER_W(161),
    .AXIS_DATA_W(DATA_W),
    .AXIS_USER_W(1),
    .CLK_FREQ_HZ(250000000),
    .CPLH_LIMIT(128), .CPLD_LIMIT(1920), // pcie4(c) completion buffer: PG213 128 CPH, 32768 B (BOARDS.md)
    .BOARD_ID(BOARD_ID),
    .FLASH_SIZE_LOG2(27),
    .FLASH_WRITABLE(1),
    .GOLDEN(GOLDEN),
    .MAC_DOMAIN(1),
    // stamps are each frame's start on the line (docs/BOARDS.md, "Departure stamp"): 10G, as
    // tsnic_xgmii_tx reports it; CMAC, as the board core's tsnic_cmac_tx_lag derives it from the
    // CMAC's tx_axis handshakes and the 100G line's rules (the CMAC has no report of its own here)
    .TX_MAC_LAG(MAC_10G != 0 ? 1 : 2),
    .TX_PERIOD_FX(MAC_PERIOD_FX),    // mac_clk (gt_txusrclk2 or tx_mii_clk_0)
    .RX_PERIOD_FX(MAC_PERIOD_FX),    // rx_clk is mac_clk too
    .RX_DATA_W(RX_W),
    .RX_SOF_IN(MAC_10G != 0 ? 1 : 0), // 10G: tsnic_xgmii_rx's start-of-frame pulse stamps the arrival
    .PCIE_STATUS_ENC(0),              // pcie4(c)_uscale_plus codes (PG213)
    .MAC_KIND(MAC_10G != 0 ? 2 : 1)   // MAC_LINK_STATUS.MAC_RX_UP: 10G block lock / CMAC RX aligned
) core_inst (
    .clk(clk), .rst(rst), .tx_clk(mac_clk), .tx_rst(mac_tx_reset), .rx_clk(mac_clk), .rx_rst(mac_rx_rst),
    .s_axis_cq_tdata(cq_tdata), .s_axis_cq_tkeep(cq_tkeep), .s_axis_cq_tvalid(cq_tvalid),
    .s_axis_cq_tready(cq_tready), .s_axis_cq_tlast(cq_tlast), .s_axis_cq_tuser(cq_tuser),
    .m_axis_cc_tdata(cc_tdata), .m_axis_cc_tkeep(cc_tkeep), .m_axis_cc_tvalid(cc_tvalid),
    .m_axis_cc_tready(cc_tready4[0]), .m_axis_cc_tlast(cc_tlast), .m_axis_cc_tuser(cc_tuser),
    .m_axis_rq_tdata(rq_tdata), .m_axis_rq_tkeep(rq_tkeep), .m_axis_rq_tvalid(rq_tvalid),
    .m_axis_rq_tready(rq_tready4[0]), .m_axis_rq_tlast(rq_tlast), .m_axis_rq_tuser(rq_tuser),
    .s_axis_rc_tdata(rc_tdata), .s_axis_rc_tkeep(rc_tkeep), .s_axis_rc_tvalid(rc_tvalid),
    .s_axis_rc_tready(rc_tready), .s_axis_rc_tlast(rc_tlast), .s_axis_rc_tuser(rc_tuser),
    .cfg_max_payload({1'b0, cfg_max_payload}), .cfg_max_read_req(cfg_max_read_req),
    .cfg_bus_master_en(cfg_function_status[2]),
    .cfg_interrupt_msix_enable(cfg_msix_enable[0]), .cfg_interrupt_msix_mask(cfg_msix_mask[0]),
    .cfg_interrupt_msix_address(msix_address), .cfg_interrupt_msix_data(msix_data),
    .cfg_interrupt_msix_int(msix_int), .cfg_interrupt_msix_sent(msix_sent), .cfg_interrupt_msix_fail(msix_fail),
    .m_axis_tx_tdata(core_tx_tdata), .m_axis_tx_tkeep(core_tx_tkeep), .m_axis_tx_tvalid(core_tx_tvalid),
    .m_axis_tx_tready(core_tx_tready), .m_axis_tx_tlast(core_tx_tlast), .m_axis_tx_tuser(core_tx_tuser),
    .s_mac_tx_lag_valid(mac_lag_valid), .s_mac_tx_lag_ns(mac_lag_ns),
    .s_axis_rx_tdata(core_rx_tdata), .s_axis_rx_tkeep(core_rx_tkeep), .s_axis_rx_tuser(core_rx_tuser),
    .s_axis_rx_tvalid(core_rx_tvalid), .s_axis_rx_tready(core_rx_tready), .s_axis_rx_tlast(core_rx_tlast),
    .rx_sof(core_rx_sof), .rx_sof_lane4(core_rx_sof_lane4),
    .pps(pps),
    .stat_dma_rd_err(stat_dma_rd_err), .stat_bar_bad_np(stat_bar_bad_np),
    .stat_bar_bad_posted(stat_bar_bad_posted),
    // co-simulation clock gating only (SIM_GATE = 0): no logic
    .sim_gclk(1'b0), .sim_gclk_df(1'b0), .sim_gclk_cw(1'b0), .sim_gclk_fl(1'b0), .sim_gclk_rx(1'b0),
    .sim_gclk_rg(1'b0), .sim_gate_hold(sim_gate_hold_nc),
    .qspi_clk(qspi_clk), .qspi_cs_n(qspi_cs_n), .qspi_dq_o(qspi_dq_o), .qspi_dq_oe(qspi_dq_oe),
    .qspi_dq_i(qspi_dq_i),
    .icap_ce(icap_ce), .icap_csib(icap_csib), .icap_rdwrb(icap_rdwrb), .icap_i(icap_i), .icap_o(icap_o),
    .phy_status(8'h01),  // MAC_PHY_STATUS: the reference clock needs no set-up
    // MAC_LINK_STATUS (docs/BOARDS.md, "Link status"): the hard block's status on user_clk, the MAC's RX up
    .pcie_lnk_up(pcie_lnk_up), .pcie_ltssm(pcie_ltssm), .pcie_width({1'b0, pcie_width}),
    .pcie_speed({1'b0, pcie_speed}), .mac_rx_up(mac_rx_aligned)
);

// ------------------------------------------------------------------------------------------------
// configuration flash (STARTUPE3) and ICAPE3
/* verilator lint_off UNUSEDSIGNAL */
wire startup_cfgclk, startup_cfgmclk, startup_eos, startup_preq;
wire icap_avail, icap_prdone, icap_prerror;
/* verilator lint_on UNUSEDSIGNAL */
STARTUPE3 #(.PROG_USR("FALSE"), .SIM_CCLK_FREQ(0.0)) startup_inst (
    .CFGCLK(startup_cfgclk), .CFGMCLK(startup_cfgmclk), .DI(qspi_dq_i), .EOS(startup_eos), .PREQ(startup_preq),
    .DO(qspi_dq_o), .DTS(~qspi_dq_oe), .FCSBO(qspi_cs_n), .FCSBTS(1'b0), .GSR(1'b0), .GTS(1'b0),
    .KEYCLEARB(1'b1), .PACK(1'b0), .USRCCLKO(qspi_clk), .USRCCLKTS(1'b0), .USRDONEO(1'b1), .USRDONETS(1'b1)
);

wire icap_clk;
BUFGCE_DIV #(.BUFGCE_DIVIDE(2)) icap_clk_inst (.I(clk), .CE(1'b1), .CLR(1'b0), .O(icap_clk));

// ICAPE3 takes (and gives) the bits of each byte in reverse order
function [31:0] icap_swap(input [31:0] w);
    integer b, k;
    begin
        for (b = 0; b < 4; b = b + 1)
            for (k = 0; k < 8; k = k + 1)
                icap_swap[8*b + k] = w[8*b + 7 - k];
    end
endfunction

wire [31:0] icap_o_raw;
ICAPE3 #(.ICAP_AUTO_SWITCH("DISABLE")) icap_inst (
    .AVAIL(icap_avail), .O(icap_o_raw), .PRDONE(icap_prdone), .PRERROR(icap_prerror),
    .CLK(icap_clk), .CSIB(icap_csib), .I(icap_swap(icap_i)), .RDWRB(icap_rdwrb)
);
assign icap_o = icap_swap(icap_o_raw);

// ------------------------------------------------------------------------------------------------
// LEDs
wire mac_rx_aligned_clk, pcie_lnk_up_reg;
tsnic_cdc_sync #(.WIDTH(1), .INIT(1'b0)) aligned_to_core_inst (
    .clk(clk), .rst(1'b0), .in(mac_rx_aligned), .out(mac_rx_aligned_clk)
);
assign pcie_lnk_up_reg = pcie_lnk_up;

// pulse stretchers: 2^24 cycles of user_clk = 67 ms; 2^25 of the CMAC clock = 104 ms
reg [24:0] pps_led_cnt = 25'd0;
always @(posedge clk) begin
    if (pps) pps_led_cnt <= 25'h1ffffff;
    else if (pps_led_cnt != 25'd0) pps_led_cnt <= pps_led_cnt - 25'd1;
end
reg [24:0] act_led_cnt = 25'd0;
always @(posedge mac_clk) begin
    if (mac_tx_tvalid && mac_tx_tready && mac_tx_tlast) act_led_cnt <= 25'h1ffffff;
    else if (act_led_cnt != 25'd0) act_led_cnt <= act_led_cnt - 25'd1;
end

reg led_stat_g = 1'b0, led_stat_y = 1'b0, led_act_reg = 1'b0;
always @(posedge clk) begin
    led_stat_g <= pcie_lnk_up_reg && mac_rx_aligned_clk;
    led_stat_y <= pps_led_cnt != 25'd0;
end
always @(posedge mac_clk) led_act_reg <= act_led_cnt != 25'd0;
assign led_link = led_stat_g;
assign led_pps = led_stat_y;
assign led_act = led_act_reg;

endmodule

`resetall
