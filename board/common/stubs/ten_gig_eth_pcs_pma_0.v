// Lint stub of the ten_gig_eth_pcs_pma IP (10G Ethernet PCS/PMA, PG068) as
// board/netfpga_sume/ip/ten_gig_eth_pcs_pma_0.tcl generates it (module name ten_gig_eth_pcs_pma_0):
// 10GBASE-R, 7-series GTH, shared logic in the core, no MDIO (configuration and status vectors), 64-bit SDR
// XGMII. Every port of that configuration, so board/lint.sh sees any port the top leaves out (Verilator
// PINMISSING) or leaves empty (PINCONNECTEMPTY on an input). Source: the port list of Corundum's
// fpga/mqnic/NetFPGA_SUME/fpga/rtl/fpga.v instance of ten_gig_eth_pcs_pma_0 (its ip/ten_gig_eth_pcs_pma_0.tcl
// has the same four settings as ours); widths as PG068's port tables give them. Only a generated IP can
// confirm it. No behaviour: outputs are zero.
`resetall
`timescale 1ns / 1ps
`default_nettype none
/* verilator lint_off UNUSEDSIGNAL */
module ten_gig_eth_pcs_pma_0 (
    input  wire         refclk_p,           // 156.25 MHz
    input  wire         refclk_n,
    input  wire         reset,
    output wire         resetdone_out,      // (tx_resetdone/rx_resetdone exist only without shared logic)
    output wire         coreclk_out,        // 156.25 MHz: the XGMII clock (TX and RX)
    output wire         rxrecclk_out,
    input  wire         dclk,               // DRP / management clock
    output wire         txp,
    output wire         txn,
    input  wire         rxp,
    input  wire         rxn,
    input  wire         sim_speedup_control,
    input  wire [63:0]  xgmii_txd,
    input  wire [7:0]   xgmii_txc,
    output wire [63:0]  xgmii_rxd,
    output wire [7:0]   xgmii_rxc,
    output wire         qplllock_out,
    output wire         qplloutclk_out,
    output wire         qplloutrefclk_out,
    output wire         txusrclk_out,
    output wire         txusrclk2_out,
    output wire         areset_datapathclk_out,
    output wire         gttxreset_out,
    output wire         gtrxreset_out,
    output wire         txuserrdy_out,
    output wire         reset_counter_done_out,
    input  wire [535:0] configuration_vector,
    output wire [447:0] status_vector,
    output wire [7:0]   core_status,        // [0] PCS block lock
    input  wire         signal_detect,
    input  wire         tx_fault,
    output wire         tx_disable,
    input  wire [2:0]   pma_pmd_type,
    // DRP arbitration: the core's DRP master (o) looped to the transceiver's port (i)
    output wire         drp_req,
    input  wire         drp_gnt,
    output wire         drp_den_o,
    output wire         drp_dwe_o,
    output wire [15:0]  drp_daddr_o,
    output wire [15:0]  drp_di_o,
    output wire         drp_drdy_o,
    output wire [15:0]  drp_drpdo_o,
    input  wire         drp_den_i,
    input  wire         drp_dwe_i,
    input  wire [15:0]  drp_daddr_i,
    input  wire [15:0]  drp_di_i,
    input  wire         drp_drdy_i,
    input  wire [15:0]  drp_drpdo_i
);
assign resetdone_out = 1'b0;
assign coreclk_out = 1'b0;
assign rxrecclk_out = 1'b0;
assign txp = 1'b0;
assign txn = 1'b0;
assign xgmii_rxd = 64'd0;
assign xgmii_rxc = 8'd0;
assign qplllock_out = 1'b0;
assign qplloutclk_out = 1'b0;
assign qplloutrefclk_out = 1'b0;
assign txusrclk_out = 1'b0;
assign txusrclk2_out = 1'b0;
assign areset_datapathclk_out = 1'b0;
assign gttxreset_out = 1'b0;
assign gtrxreset_out = 1'b0;
assign txuserrdy_out = 1'b0;
assign reset_counter_done_out = 1'b0;
assign status_vector = 448'd0;
assign core_status = 8'd0;
assign tx_disable = 1'b0;
assign drp_req = 1'b0;
assign drp_den_o = 1'b0;
assign drp_dwe_o = 1'b0;
assign drp_daddr_o = 16'd0;
assign drp_di_o = 16'd0;
assign drp_drdy_o = 1'b0;
assign drp_drpdo_o = 16'd0;
endmodule
