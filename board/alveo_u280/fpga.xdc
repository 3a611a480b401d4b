# tsnic on the Xilinx Alveo U280, part xcu280-fsvh2892-2L-e.
# Pin facts from the board's published master constraints (Xilinx Alveo U280 XDC, as also used by
# Corundum's fpga/mqnic/Alveo/fpga_100g/fpga_au280.xdc). The PCIe and QSFP28 lanes are placed by the
# IPs (PCIe x16 on GTY quads 224-227; CMAC GT_GROUP_SELECT X0Y40~X0Y43 = quad 134, ip/*.tcl); every GT
# pin is also LOCed here (QSFP lanes 1-3 in qsfp_lanes_cmac.xdc), checked with the IP settings against
# tests/board/gt_sites.py by tests/board/test_gt_placement.py. Placement pblocks: placement.xdc.

# ---------------------------------------------------------------------------------------------------
# Configuration: quad SPI flash MT25QU01G (1 Gbit), 4-bit bus, 32-bit addresses. Address 0 holds AMD's
# factory image, which MultiBoots to tsnic's golden image at 0x01002000 (docs/FIRMWARE.md); a failed
# configuration (IPROG to a bad image, CRC error, watchdog) falls back to address 0, the factory image,
# which then stays (an embedded IPROG is ignored in a fallback: UG570 "Fallback MultiBoot").
set_property CFGBVS GND                                [current_design]
set_property CONFIG_VOLTAGE 1.8                        [current_design]
set_property CONFIG_MODE SPIx4                         [current_design]
set_property BITSTREAM.CONFIG.SPI_BUSWIDTH 4           [current_design]
set_property BITSTREAM.CONFIG.SPI_32BIT_ADDR YES       [current_design]
set_property BITSTREAM.CONFIG.CONFIGRATE 85.0          [current_design]
set_property BITSTREAM.CONFIG.EXTMASTERCCLK_EN DISABLE [current_design]
set_property BITSTREAM.CONFIG.SPI_FALL_EDGE YES        [current_design]
set_property BITSTREAM.CONFIG.CONFIGFALLBACK ENABLE    [current_design]
# no IPROG inside tsnic's bitstreams: the golden image's boot selector (RTL) issues it through ICAPE3
# after reading the boot record, so they carry no NEXT_CONFIG_ADDR jump (the factory image's does)
set_property BITSTREAM.CONFIG.NEXT_CONFIG_REBOOT DISABLE [current_design]
set_property BITSTREAM.CONFIG.UNUSEDPIN PULLUP         [current_design]
set_property BITSTREAM.CONFIG.OVERTEMPSHUTDOWN ENABLE  [current_design]
set_property BITSTREAM.GENERAL.COMPRESS TRUE           [current_design]

# ---------------------------------------------------------------------------------------------------
# 100 MHz LVDS system clock 0: CMAC init / DRP clock
set_property -dict {LOC BJ43 IOSTANDARD LVDS} [get_ports clk_100mhz_0_p]
set_property -dict {LOC BJ44 IOSTANDARD LVDS} [get_ports clk_100mhz_0_n]
create_clock -period 10.000 -name clk_100mhz_0 [get_ports clk_100mhz_0_p]

# PCIe: 100 MHz reference clock (MGTREFCLK0_225), PERST#
set_property -dict {LOC AR15} [get_ports pcie_refclk_1_p]
set_property -dict {LOC AR14} [get_ports pcie_refclk_1_n]
# PCIe lanes: each GT pin LOCed, so a lane of the IP's placement that disagrees fails in Vivado and the
# pins/channels are checked against tests/board/gt_sites.py (test_gt_placement.py). Source: Corundum's fpga/mqnic/Alveo/fpga_100g/fpga_au280.xdc.
set_property -dict {LOC AL2 } [get_ports {pcie_rx_p[0]}]       ;# GTYE4_CHANNEL_X1Y15
set_property -dict {LOC AL1 } [get_ports {pcie_rx_n[0]}]       ;# GTYE4_CHANNEL_X1Y15
set_property -dict {LOC AL11} [get_ports {pcie_tx_p[0]}]       ;# GTYE4_CHANNEL_X1Y15
set_property -dict {LOC AL10} [get_ports {pcie_tx_n[0]}]       ;# GTYE4_CHANNEL_X1Y15
set_property -dict {LOC AM4 } [get_ports {pcie_rx_p[1]}]       ;# GTYE4_CHANNEL_X1Y14
set_property -dict {LOC AM3 } [get_ports {pcie_rx_n[1]}]       ;# GTYE4_CHANNEL_X1Y14
set_property -dict {LOC AM9 } [get_ports {pcie_tx_p[1]}]       ;# GTYE4_CHANNEL_X1Y14
set_property -dict {LOC AM8 } [get_ports {pcie_tx_n[1]}]       ;# GTYE4_CHANNEL_X1Y14
set_property -dict {LOC AN6 } [get_ports {pcie_rx_p[2]}]       ;# GTYE4_CHANNEL_X1Y13
set_property -dict {LOC AN5 } [get_ports {pcie_rx_n[2]}]       ;# GTYE4_CHANNEL_X1Y13
set_property -dict {LOC AN11} [get_ports {pcie_tx_p[2]}]       ;# GTYE4_CHANNEL_X1Y13
set_property -dict {LOC AN10} [get_ports {pcie_tx_n[2]}]       ;# GTYE4_CHANNEL_X1Y13
set_property -dict {LOC AN2 } [get_ports {pcie_rx_p[3]}]       ;# GTYE4_CHANNEL_X1Y12
set_property -dict {LOC AN1 } [get_ports {pcie_rx_n[3]}]       ;# GTYE4_CHANNEL_X1Y12
set_property -dict {LOC AP9 } [get_ports {pcie_tx_p[3]}]       ;# GTYE4_CHANNEL_X1Y12
set_property -dict {LOC AP8 } [get_ports {pcie_tx_n[3]}]       ;# GTYE4_CHANNEL_X1Y12
set_property -dict {LOC AP4 } [get_ports {pcie_rx_p[4]}]       ;# GTYE4_CHANNEL_X1Y11
set_property -dict {LOC AP3 } [get_ports {pcie_rx_n[4]}]       ;# GTYE4_CHANNEL_X1Y11
set_property -dict {LOC AR11} [get_ports {pcie_tx_p[4]}]       ;# GTYE4_CHANNEL_X1Y11
set_property -dict {LOC AR10} [get_ports {pcie_tx_n[4]}]       ;# GTYE4_CHANNEL_X1Y11
set_property -dict {LOC AR2 } [get_ports {pcie_rx_p[5]}]       ;# GTYE4_CHANNEL_X1Y10
set_property -dict {LOC AR1 } [get_ports {pcie_rx_n[5]}]       ;# GTYE4_CHANNEL_X1Y10
set_property -dict {LOC AR7 } [get_ports {pcie_tx_p[5]}]       ;# GTYE4_CHANNEL_X1Y10
set_property -dict {LOC AR6 } [get_ports {pcie_tx_n[5]}]       ;# GTYE4_CHANNEL_X1Y10
set_property -dict {LOC AT4 } [get_ports {pcie_rx_p[6]}]       ;# GTYE4_CHANNEL_X1Y9
set_property -dict {LOC AT3 } [get_ports {pcie_rx_n[6]}]       ;# GTYE4_CHANNEL_X1Y9
set_property -dict {LOC AT9 } [get_ports {pcie_tx_p[6]}]       ;# GTYE4_CHANNEL_X1Y9
set_property -dict {LOC AT8 } [get_ports {pcie_tx_n[6]}]       ;# GTYE4_CHANNEL_X1Y9
set_property -dict {LOC AU2 } [get_ports {pcie_rx_p[7]}]       ;# GTYE4_CHANNEL_X1Y8
set_property -dict {LOC AU1 } [get_ports {pcie_rx_n[7]}]       ;# GTYE4_CHANNEL_X1Y8
set_property -dict {LOC AU11} [get_ports {pcie_tx_p[7]}]       ;# GTYE4_CHANNEL_X1Y8
set_property -dict {LOC AU10} [get_ports {pcie_tx_n[7]}]       ;# GTYE4_CHANNEL_X1Y8
set_property -dict {LOC AV4 } [get_ports {pcie_rx_p[8]}]       ;# GTYE4_CHANNEL_X1Y7
set_property -dict {LOC AV3 } [get_ports {pcie_rx_n[8]}]       ;# GTYE4_CHANNEL_X1Y7
set_property -dict {LOC AU7 } [get_ports {pcie_tx_p[8]}]       ;# GTYE4_CHANNEL_X1Y7
set_property -dict {LOC AU6 } [get_ports {pcie_tx_n[8]}]       ;# GTYE4_CHANNEL_X1Y7
set_property -dict {LOC AW6 } [get_ports {pcie_rx_p[9]}]       ;# GTYE4_CHANNEL_X1Y6
set_property -dict {LOC AW5 } [get_ports {pcie_rx_n[9]}]       ;# GTYE4_CHANNEL_X1Y6
set_property -dict {LOC AV9 } [get_ports {pcie_tx_p[9]}]       ;# GTYE4_CHANNEL_X1Y6
set_property -dict {LOC AV8 } [get_ports {pcie_tx_n[9]}]       ;# GTYE4_CHANNEL_X1Y6
set_property -dict {LOC AW2 } [get_ports {pcie_rx_p[10]}]      ;# GTYE4_CHANNEL_X1Y5
set_property -dict {LOC AW1 } [get_ports {pcie_rx_n[10]}]      ;# GTYE4_CHANNEL_X1Y5
set_property -dict {LOC AW11} [get_ports {pcie_tx_p[10]}]      ;# GTYE4_CHANNEL_X1Y5
set_property -dict {LOC AW10} [get_ports {pcie_tx_n[10]}]      ;# GTYE4_CHANNEL_X1Y5
set_property -dict {LOC AY4 } [get_ports {pcie_rx_p[11]}]      ;# GTYE4_CHANNEL_X1Y4
set_property -dict {LOC AY3 } [get_ports {pcie_rx_n[11]}]      ;# GTYE4_CHANNEL_X1Y4
set_property -dict {LOC AY9 } [get_ports {pcie_tx_p[11]}]      ;# GTYE4_CHANNEL_X1Y4
set_property -dict {LOC AY8 } [get_ports {pcie_tx_n[11]}]      ;# GTYE4_CHANNEL_X1Y4
set_property -dict {LOC BA6 } [get_ports {pcie_rx_p[12]}]      ;# GTYE4_CHANNEL_X1Y3
set_property -dict {LOC BA5 } [get_ports {pcie_rx_n[12]}]      ;# GTYE4_CHANNEL_X1Y3
set_property -dict {LOC BA11} [get_ports {pcie_tx_p[12]}]      ;# GTYE4_CHANNEL_X1Y3
set_property -dict {LOC BA10} [get_ports {pcie_tx_n[12]}]      ;# GTYE4_CHANNEL_X1Y3
set_property -dict {LOC BA2 } [get_ports {pcie_rx_p[13]}]      ;# GTYE4_CHANNEL_X1Y2
set_property -dict {LOC BA1 } [get_ports {pcie_rx_n[13]}]      ;# GTYE4_CHANNEL_X1Y2
set_property -dict {LOC BB9 } [get_ports {pcie_tx_p[13]}]      ;# GTYE4_CHANNEL_X1Y2
set_property -dict {LOC BB8 } [get_ports {pcie_tx_n[13]}]      ;# GTYE4_CHANNEL_X1Y2
set_property -dict {LOC BB4 } [get_ports {pcie_rx_p[14]}]      ;# GTYE4_CHANNEL_X1Y1
set_property -dict {LOC BB3 } [get_ports {pcie_rx_n[14]}]      ;# GTYE4_CHANNEL_X1Y1
set_property -dict {LOC BC11} [get_ports {pcie_tx_p[14]}]      ;# GTYE4_CHANNEL_X1Y1
set_property -dict {LOC BC10} [get_ports {pcie_tx_n[14]}]      ;# GTYE4_CHANNEL_X1Y1
set_property -dict {LOC BC2 } [get_ports {pcie_rx_p[15]}]      ;# GTYE4_CHANNEL_X1Y0
set_property -dict {LOC BC1 } [get_ports {pcie_rx_n[15]}]      ;# GTYE4_CHANNEL_X1Y0
set_property -dict {LOC BC7 } [get_ports {pcie_tx_p[15]}]      ;# GTYE4_CHANNEL_X1Y0
set_property -dict {LOC BC6 } [get_ports {pcie_tx_n[15]}]      ;# GTYE4_CHANNEL_X1Y0
create_clock -period 10.000 -name pcie_refclk [get_ports pcie_refclk_1_p]
set_property -dict {LOC BH26 IOSTANDARD LVCMOS18 PULLUP true} [get_ports pcie_reset_n]
set_false_path -from [get_ports pcie_reset_n]
set_input_delay 0 [get_ports pcie_reset_n]

# QSFP28 cage 0: 161.1328125 MHz reference clock from the SI546 (MGTREFCLK1_134), its enable and
# frequency select
set_property -dict {LOC R40} [get_ports qsfp0_mgt_refclk_1_p]
set_property -dict {LOC R41} [get_ports qsfp0_mgt_refclk_1_n]
# QSFP28 cage 0 lane 0 (quad 134; the 10G option's only lane). Lanes 1-3: qsfp_lanes_cmac.xdc (the CMAC build only,
# the 10G build's top has lane 0 only). Source: Corundum's fpga/mqnic/Alveo/fpga_100g/fpga_au280.xdc.
set_property -dict {LOC L53 } [get_ports {qsfp0_rx_p[0]}]      ;# GTYE4_CHANNEL_X0Y40
set_property -dict {LOC L54 } [get_ports {qsfp0_rx_n[0]}]      ;# GTYE4_CHANNEL_X0Y40
set_property -dict {LOC L48 } [get_ports {qsfp0_tx_p[0]}]      ;# GTYE4_CHANNEL_X0Y40
set_property -dict {LOC L49 } [get_ports {qsfp0_tx_n[0]}]      ;# GTYE4_CHANNEL_X0Y40
create_clock -period 6.206 -name qsfp0_mgt_refclk_1 [get_ports qsfp0_mgt_refclk_1_p]
set_property -dict {LOC H32 IOSTANDARD LVCMOS18 SLEW SLOW DRIVE 8} [get_ports qsfp0_refclk_oe_b]
set_property -dict {LOC G32 IOSTANDARD LVCMOS18 SLEW SLOW DRIVE 8} [get_ports qsfp0_refclk_fs]

# HBM catastrophic-temperature output
set_property -dict {LOC D32 IOSTANDARD LVCMOS18} [get_ports hbm_cattrip]
set_false_path -to [get_ports {qsfp0_refclk_oe_b qsfp0_refclk_fs hbm_cattrip}]
set_output_delay 0 [get_ports {qsfp0_refclk_oe_b qsfp0_refclk_fs hbm_cattrip}]

# ---------------------------------------------------------------------------------------------------
# user_clk (250 MHz, PCIe IP) and gt_txusrclk2 (322.265625 MHz, CMAC IP) come from the IPs'
# constraints; the paths between them are CDC modules constrained by board/common/vivado/cdc.tcl.
set_clock_groups -asynchronous -group [get_clocks clk_100mhz_0]
# MAC RX (issue 11): the CMAC's RX stream (its rx_clk is gt_txusrclk2) is stamped on that clock and crosses to user_clk in
# the board core through the same CDC modules (tsnic_mac_rx's tsnic_cdc_async_fifo and tsnic_cdc_bus,
# the RX drop count's tsnic_cdc_bus, a second tsnic_td_sink, tsnic_cdc_sync on the resets): cdc.tcl
# constrains every instance it finds, so RX needs no line of its own here.
