# tsnic on the Xilinx Alveo U50, part xcu50-fsvh2104-2-e.
# Pin facts from the board's published master constraints (Xilinx Alveo U50 XDC, as also used by
# Corundum's fpga/mqnic/Alveo/fpga_100g/fpga_au50.xdc). The PCIe IP places its GTs
# (x16 at PCIE4CE4_X1Y0, lanes on GTY quads 224-227) and the CMAC IP its four lanes (GT_GROUP_SELECT
# X0Y28~X0Y31 = quad 131) from ip/*.tcl; every GT pin is also LOCed here (lanes 1-3 of the QSFP in
# qsfp_lanes_cmac.xdc), and tests/board/test_gt_placement.py checks pins, channels, refclk pins and the IP
# settings against tests/board/gt_sites.py. Placement pblocks: placement.xdc.

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
# PCIe lanes: each GT pin LOCed, so a lane of the IP's placement that disagrees fails in Vivado and the
# pins/channels are checked against tests/board/gt_sites.py (test_gt_placement.py). Source: Corundum's fpga/mqnic/Alveo/fpga_100g/fpga_au50.xdc.
set_property -dict {LOC AL2 } [get_ports {pcie_rx_p[0]}]       ;# GTYE4_CHANNEL_X1Y15
set_property -dict {LOC AL1 } [get_ports {pcie_rx_n[0]}]       ;# GTYE4_CHANNEL_X1Y15
set_property -dict {LOC Y5  } [get_ports {pcie_tx_p[0]}]       ;# GTYE4_CHANNEL_X1Y15
set_property -dict {LOC Y4  } [get_ports {pcie_tx_n[0]}]       ;# GTYE4_CHANNEL_X1Y15
set_property -dict {LOC AM4 } [get_ports {pcie_rx_p[1]}]       ;# GTYE4_CHANNEL_X1Y14
set_property -dict {LOC AM3 } [get_ports {pcie_rx_n[1]}]       ;# GTYE4_CHANNEL_X1Y14
set_property -dict {LOC AA7 } [get_ports {pcie_tx_p[1]}]       ;# GTYE4_CHANNEL_X1Y14
set_property -dict {LOC AA6 } [get_ports {pcie_tx_n[1]}]       ;# GTYE4_CHANNEL_X1Y14
set_property -dict {LOC AK4 } [get_ports {pcie_rx_p[2]}]       ;# GTYE4_CHANNEL_X1Y13
set_property -dict {LOC AK3 } [get_ports {pcie_rx_n[2]}]       ;# GTYE4_CHANNEL_X1Y13
set_property -dict {LOC AB5 } [get_ports {pcie_tx_p[2]}]       ;# GTYE4_CHANNEL_X1Y13
set_property -dict {LOC AB4 } [get_ports {pcie_tx_n[2]}]       ;# GTYE4_CHANNEL_X1Y13
set_property -dict {LOC AN2 } [get_ports {pcie_rx_p[3]}]       ;# GTYE4_CHANNEL_X1Y12
set_property -dict {LOC AN1 } [get_ports {pcie_rx_n[3]}]       ;# GTYE4_CHANNEL_X1Y12
set_property -dict {LOC AC7 } [get_ports {pcie_tx_p[3]}]       ;# GTYE4_CHANNEL_X1Y12
set_property -dict {LOC AC6 } [get_ports {pcie_tx_n[3]}]       ;# GTYE4_CHANNEL_X1Y12
set_property -dict {LOC AP4 } [get_ports {pcie_rx_p[4]}]       ;# GTYE4_CHANNEL_X1Y11
set_property -dict {LOC AP3 } [get_ports {pcie_rx_n[4]}]       ;# GTYE4_CHANNEL_X1Y11
set_property -dict {LOC AD5 } [get_ports {pcie_tx_p[4]}]       ;# GTYE4_CHANNEL_X1Y11
set_property -dict {LOC AD4 } [get_ports {pcie_tx_n[4]}]       ;# GTYE4_CHANNEL_X1Y11
set_property -dict {LOC AR2 } [get_ports {pcie_rx_p[5]}]       ;# GTYE4_CHANNEL_X1Y10
set_property -dict {LOC AR1 } [get_ports {pcie_rx_n[5]}]       ;# GTYE4_CHANNEL_X1Y10
set_property -dict {LOC AF5 } [get_ports {pcie_tx_p[5]}]       ;# GTYE4_CHANNEL_X1Y10
set_property -dict {LOC AF4 } [get_ports {pcie_tx_n[5]}]       ;# GTYE4_CHANNEL_X1Y10
set_property -dict {LOC AT4 } [get_ports {pcie_rx_p[6]}]       ;# GTYE4_CHANNEL_X1Y9
set_property -dict {LOC AT3 } [get_ports {pcie_rx_n[6]}]       ;# GTYE4_CHANNEL_X1Y9
set_property -dict {LOC AE7 } [get_ports {pcie_tx_p[6]}]       ;# GTYE4_CHANNEL_X1Y9
set_property -dict {LOC AE6 } [get_ports {pcie_tx_n[6]}]       ;# GTYE4_CHANNEL_X1Y9
set_property -dict {LOC AU2 } [get_ports {pcie_rx_p[7]}]       ;# GTYE4_CHANNEL_X1Y8
set_property -dict {LOC AU1 } [get_ports {pcie_rx_n[7]}]       ;# GTYE4_CHANNEL_X1Y8
set_property -dict {LOC AH5 } [get_ports {pcie_tx_p[7]}]       ;# GTYE4_CHANNEL_X1Y8
set_property -dict {LOC AH4 } [get_ports {pcie_tx_n[7]}]       ;# GTYE4_CHANNEL_X1Y8
set_property -dict {LOC AV4 } [get_ports {pcie_rx_p[8]}]       ;# GTYE4_CHANNEL_X1Y7
set_property -dict {LOC AV3 } [get_ports {pcie_rx_n[8]}]       ;# GTYE4_CHANNEL_X1Y7
set_property -dict {LOC AG7 } [get_ports {pcie_tx_p[8]}]       ;# GTYE4_CHANNEL_X1Y7
set_property -dict {LOC AG6 } [get_ports {pcie_tx_n[8]}]       ;# GTYE4_CHANNEL_X1Y7
set_property -dict {LOC AW2 } [get_ports {pcie_rx_p[9]}]       ;# GTYE4_CHANNEL_X1Y6
set_property -dict {LOC AW1 } [get_ports {pcie_rx_n[9]}]       ;# GTYE4_CHANNEL_X1Y6
set_property -dict {LOC AJ7 } [get_ports {pcie_tx_p[9]}]       ;# GTYE4_CHANNEL_X1Y6
set_property -dict {LOC AJ6 } [get_ports {pcie_tx_n[9]}]       ;# GTYE4_CHANNEL_X1Y6
set_property -dict {LOC BA2 } [get_ports {pcie_rx_p[10]}]      ;# GTYE4_CHANNEL_X1Y5
set_property -dict {LOC BA1 } [get_ports {pcie_rx_n[10]}]      ;# GTYE4_CHANNEL_X1Y5
set_property -dict {LOC AL7 } [get_ports {pcie_tx_p[10]}]      ;# GTYE4_CHANNEL_X1Y5
set_property -dict {LOC AL6 } [get_ports {pcie_tx_n[10]}]      ;# GTYE4_CHANNEL_X1Y5
set_property -dict {LOC BC2 } [get_ports {pcie_rx_p[11]}]      ;# GTYE4_CHANNEL_X1Y4
set_property -dict {LOC BC1 } [get_ports {pcie_rx_n[11]}]      ;# GTYE4_CHANNEL_X1Y4
set_property -dict {LOC AM9 } [get_ports {pcie_tx_p[11]}]      ;# GTYE4_CHANNEL_X1Y4
set_property -dict {LOC AM8 } [get_ports {pcie_tx_n[11]}]      ;# GTYE4_CHANNEL_X1Y4
set_property -dict {LOC AY4 } [get_ports {pcie_rx_p[12]}]      ;# GTYE4_CHANNEL_X1Y3
set_property -dict {LOC AY3 } [get_ports {pcie_rx_n[12]}]      ;# GTYE4_CHANNEL_X1Y3
set_property -dict {LOC AN7 } [get_ports {pcie_tx_p[12]}]      ;# GTYE4_CHANNEL_X1Y3
set_property -dict {LOC AN6 } [get_ports {pcie_tx_n[12]}]      ;# GTYE4_CHANNEL_X1Y3
set_property -dict {LOC BB4 } [get_ports {pcie_rx_p[13]}]      ;# GTYE4_CHANNEL_X1Y2
set_property -dict {LOC BB3 } [get_ports {pcie_rx_n[13]}]      ;# GTYE4_CHANNEL_X1Y2
set_property -dict {LOC AP9 } [get_ports {pcie_tx_p[13]}]      ;# GTYE4_CHANNEL_X1Y2
set_property -dict {LOC AP8 } [get_ports {pcie_tx_n[13]}]      ;# GTYE4_CHANNEL_X1Y2
set_property -dict {LOC BD4 } [get_ports {pcie_rx_p[14]}]      ;# GTYE4_CHANNEL_X1Y1
set_property -dict {LOC BD3 } [get_ports {pcie_rx_n[14]}]      ;# GTYE4_CHANNEL_X1Y1
set_property -dict {LOC AR7 } [get_ports {pcie_tx_p[14]}]      ;# GTYE4_CHANNEL_X1Y1
set_property -dict {LOC AR6 } [get_ports {pcie_tx_n[14]}]      ;# GTYE4_CHANNEL_X1Y1
set_property -dict {LOC BE6 } [get_ports {pcie_rx_p[15]}]      ;# GTYE4_CHANNEL_X1Y0
set_property -dict {LOC BE5 } [get_ports {pcie_rx_n[15]}]      ;# GTYE4_CHANNEL_X1Y0
set_property -dict {LOC AT9 } [get_ports {pcie_tx_p[15]}]      ;# GTYE4_CHANNEL_X1Y0
set_property -dict {LOC AT8 } [get_ports {pcie_tx_n[15]}]      ;# GTYE4_CHANNEL_X1Y0
create_clock -period 10.000 -name pcie_refclk [get_ports pcie_refclk_1_p]
set_property -dict {LOC AW27 IOSTANDARD LVCMOS18 PULLUP true} [get_ports pcie_reset_n]
set_false_path -from [get_ports pcie_reset_n]
set_input_delay 0 [get_ports pcie_reset_n]

# QSFP28: 161.1328125 MHz reference clock (SI5394 OUT0, MGTREFCLK0_131)
set_property -dict {LOC N36} [get_ports qsfp_mgt_refclk_0_p]
set_property -dict {LOC N37} [get_ports qsfp_mgt_refclk_0_n]
# QSFP28 cage lane 0 (quad 131; the 10G option's only lane). Lanes 1-3: qsfp_lanes_cmac.xdc (the CMAC build only,
# the 10G build's top has lane 0 only). Source: Corundum's fpga/mqnic/Alveo/fpga_100g/fpga_au50.xdc.
set_property -dict {LOC J45 } [get_ports {qsfp_rx_p[0]}]       ;# GTYE4_CHANNEL_X0Y28
set_property -dict {LOC J46 } [get_ports {qsfp_rx_n[0]}]       ;# GTYE4_CHANNEL_X0Y28
set_property -dict {LOC D42 } [get_ports {qsfp_tx_p[0]}]       ;# GTYE4_CHANNEL_X0Y28
set_property -dict {LOC D43 } [get_ports {qsfp_tx_n[0]}]       ;# GTYE4_CHANNEL_X0Y28
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
