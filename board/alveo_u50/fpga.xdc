# tsnic on the Xilinx Alveo U50, part xcu50-fsvh2104-2-e.
# Pin facts from the board's published master constraints (Xilinx Alveo U50 XDC, as also used by
# Corundum's fpga/mqnic/Alveo/fpga_100g/fpga_au50.xdc). The PCIe and QSFP28 lanes are not placed here:
# the PCIe IP places its GTs (x16 at PCIE4CE4_X1Y0, lanes on GTY quads 224-227) and the CMAC IP its
# four lanes (GT_GROUP_SELECT X0Y28~X0Y31 = quad 131) from ip/*.tcl.

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
# 100 MHz LVDS system clock (SI5394 OUT3): CMAC init / DRP clock
set_property -dict {LOC BB18 IOSTANDARD LVDS} [get_ports clk_100mhz_1_p]
set_property -dict {LOC BC18 IOSTANDARD LVDS} [get_ports clk_100mhz_1_n]
create_clock -period 10.000 -name clk_100mhz_1 [get_ports clk_100mhz_1_p]

# PCIe: 100 MHz reference clock from the edge connector (MGTREFCLK0_225, lanes 8-15 / x16), PERST#
set_property -dict {LOC AF9} [get_ports pcie_refclk_1_p]
set_property -dict {LOC AF8} [get_ports pcie_refclk_1_n]
create_clock -period 10.000 -name pcie_refclk [get_ports pcie_refclk_1_p]
set_property -dict {LOC AW27 IOSTANDARD LVCMOS18 PULLUP true} [get_ports pcie_reset_n]
set_false_path -from [get_ports pcie_reset_n]
set_input_delay 0 [get_ports pcie_reset_n]

# QSFP28: 161.1328125 MHz reference clock (SI5394 OUT0, MGTREFCLK0_131)
set_property -dict {LOC N36} [get_ports qsfp_mgt_refclk_0_p]
set_property -dict {LOC N37} [get_ports qsfp_mgt_refclk_0_n]
create_clock -period 6.206 -name qsfp_mgt_refclk_0 [get_ports qsfp_mgt_refclk_0_p]

# LEDs (QSFP activity / status green / status yellow), HBM catastrophic-temperature output
set_property -dict {LOC E18 IOSTANDARD LVCMOS18 SLEW SLOW DRIVE 8} [get_ports qsfp_led_act]
set_property -dict {LOC E16 IOSTANDARD LVCMOS18 SLEW SLOW DRIVE 8} [get_ports qsfp_led_stat_g]
set_property -dict {LOC F17 IOSTANDARD LVCMOS18 SLEW SLOW DRIVE 8} [get_ports qsfp_led_stat_y]
set_property -dict {LOC J18 IOSTANDARD LVCMOS18} [get_ports hbm_cattrip]
set_false_path -to [get_ports {qsfp_led_act qsfp_led_stat_g qsfp_led_stat_y hbm_cattrip}]
set_output_delay 0 [get_ports {qsfp_led_act qsfp_led_stat_g qsfp_led_stat_y hbm_cattrip}]

# ---------------------------------------------------------------------------------------------------
# Clocks generated inside the IP (user_clk 250 MHz of the PCIe block, gt_txusrclk2 322.265625 MHz of the
# CMAC) are created by the IPs' own constraints. They are unrelated: every path between them goes
# through a clock-domain-crossing module, constrained by board/common/vivado/cdc.tcl (read after this
# file: set_max_delay -datapath_only on the Gray pointers / captured words, ASYNC_REG synchronizers).
# The ICAP clock is user_clk / 2 from a BUFGCE_DIV: Vivado derives it and times it as related.
set_clock_groups -asynchronous -group [get_clocks clk_100mhz_1]
# MAC RX (issue 11): the CMAC's RX stream (its rx_clk is gt_txusrclk2) is stamped on that clock and crosses to user_clk in
# the board core through the same CDC modules (tsnic_mac_rx's tsnic_cdc_async_fifo and tsnic_cdc_bus,
# the RX drop count's tsnic_cdc_bus, a second tsnic_td_sink, tsnic_cdc_sync on the resets): cdc.tcl
# constrains every instance it finds, so RX needs no line of its own here.
