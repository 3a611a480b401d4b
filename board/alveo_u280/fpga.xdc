# tsnic on the Xilinx Alveo U280, part xcu280-fsvh2892-2L-e.
# Pin facts from the board's published master constraints (Xilinx Alveo U280 XDC, as also used by
# Corundum's fpga/mqnic/Alveo/fpga_100g/fpga_au280.xdc). The PCIe and QSFP28 lanes are placed by the
# IPs (PCIe x16 on GTY quads 224-227; CMAC GT_GROUP_SELECT X0Y40~X0Y43 = quad 134, ip/*.tcl).

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
create_clock -period 10.000 -name pcie_refclk [get_ports pcie_refclk_1_p]
set_property -dict {LOC BH26 IOSTANDARD LVCMOS18 PULLUP true} [get_ports pcie_reset_n]
set_false_path -from [get_ports pcie_reset_n]
set_input_delay 0 [get_ports pcie_reset_n]

# QSFP28 cage 0: 161.1328125 MHz reference clock from the SI546 (MGTREFCLK1_134), its enable and
# frequency select
set_property -dict {LOC R40} [get_ports qsfp0_mgt_refclk_1_p]
set_property -dict {LOC R41} [get_ports qsfp0_mgt_refclk_1_n]
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
