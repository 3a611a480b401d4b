# tsnic on the Xilinx Alveo U250, part xcu250-figd2104-2L-e.
# Pin facts from the board's published master constraints (Xilinx Alveo U200/U250 XDC: the two cards
# share the board; as also used by Corundum's fpga/mqnic/Alveo/fpga_100g/fpga_au200.xdc). The PCIe and
# QSFP28 lanes are placed by the IPs (the PCIe IP's default block and GT quads for this part; CMAC
# GT_GROUP_SELECT X1Y44~X1Y47 = quad 231 on the xcu250, ip/*.tcl); every GT pin is also LOCed here
# (QSFP lanes 1-3 in qsfp_lanes_cmac.xdc), checked with the IP settings against tests/board/gt_sites.py
# by tests/board/test_gt_placement.py. Placement pblocks: placement.xdc.

# ---------------------------------------------------------------------------------------------------
# Configuration: quad SPI flash MT25QU01G (1 Gbit), 4-bit bus, 32-bit addresses. Address 0 holds AMD's
# factory image, which MultiBoots to tsnic's golden image at 0x01002000 (docs/FIRMWARE.md); a failed
# configuration (IPROG to a bad image, CRC error, watchdog) falls back to address 0, the factory image,
# which then stays (an embedded IPROG is ignored in a fallback: UG570 "Fallback MultiBoot").
set_property CONFIG_VOLTAGE 1.8                        [current_design]
set_property CONFIG_MODE SPIx4                         [current_design]
set_property BITSTREAM.CONFIG.SPI_BUSWIDTH 4           [current_design]
set_property BITSTREAM.CONFIG.SPI_32BIT_ADDR YES       [current_design]
set_property BITSTREAM.CONFIG.CONFIGRATE 63.8          [current_design]
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
# 300 MHz LVDS clock 0 (divided by 3 for the CMAC init / DRP clock)
set_property -dict {LOC AY37 IOSTANDARD LVDS} [get_ports clk_300mhz_0_p]
set_property -dict {LOC AY38 IOSTANDARD LVDS} [get_ports clk_300mhz_0_n]
create_clock -period 3.333 -name clk_300mhz_0 [get_ports clk_300mhz_0_p]

# PCIe: 100 MHz reference clock (MGTREFCLK0_226), PERST#
set_property -dict {LOC AM11} [get_ports pcie_refclk_p]
set_property -dict {LOC AM10} [get_ports pcie_refclk_n]
# PCIe lanes: each GT pin LOCed, so a lane of the IP's placement that disagrees fails in Vivado and the
# pins/channels are checked against tests/board/gt_sites.py (test_gt_placement.py). Source: Corundum's fpga/mqnic/AU250/fpga_100g/fpga.xdc at 858dc5ac (AU250 numbering, before the AU200 merge).
set_property -dict {LOC AF2 } [get_ports {pcie_rx_p[0]}]       ;# GTYE4_CHANNEL_X1Y31
set_property -dict {LOC AF1 } [get_ports {pcie_rx_n[0]}]       ;# GTYE4_CHANNEL_X1Y31
set_property -dict {LOC AF7 } [get_ports {pcie_tx_p[0]}]       ;# GTYE4_CHANNEL_X1Y31
set_property -dict {LOC AF6 } [get_ports {pcie_tx_n[0]}]       ;# GTYE4_CHANNEL_X1Y31
set_property -dict {LOC AG4 } [get_ports {pcie_rx_p[1]}]       ;# GTYE4_CHANNEL_X1Y30
set_property -dict {LOC AG3 } [get_ports {pcie_rx_n[1]}]       ;# GTYE4_CHANNEL_X1Y30
set_property -dict {LOC AG9 } [get_ports {pcie_tx_p[1]}]       ;# GTYE4_CHANNEL_X1Y30
set_property -dict {LOC AG8 } [get_ports {pcie_tx_n[1]}]       ;# GTYE4_CHANNEL_X1Y30
set_property -dict {LOC AH2 } [get_ports {pcie_rx_p[2]}]       ;# GTYE4_CHANNEL_X1Y29
set_property -dict {LOC AH1 } [get_ports {pcie_rx_n[2]}]       ;# GTYE4_CHANNEL_X1Y29
set_property -dict {LOC AH7 } [get_ports {pcie_tx_p[2]}]       ;# GTYE4_CHANNEL_X1Y29
set_property -dict {LOC AH6 } [get_ports {pcie_tx_n[2]}]       ;# GTYE4_CHANNEL_X1Y29
set_property -dict {LOC AJ4 } [get_ports {pcie_rx_p[3]}]       ;# GTYE4_CHANNEL_X1Y28
set_property -dict {LOC AJ3 } [get_ports {pcie_rx_n[3]}]       ;# GTYE4_CHANNEL_X1Y28
set_property -dict {LOC AJ9 } [get_ports {pcie_tx_p[3]}]       ;# GTYE4_CHANNEL_X1Y28
set_property -dict {LOC AJ8 } [get_ports {pcie_tx_n[3]}]       ;# GTYE4_CHANNEL_X1Y28
set_property -dict {LOC AK2 } [get_ports {pcie_rx_p[4]}]       ;# GTYE4_CHANNEL_X1Y27
set_property -dict {LOC AK1 } [get_ports {pcie_rx_n[4]}]       ;# GTYE4_CHANNEL_X1Y27
set_property -dict {LOC AK7 } [get_ports {pcie_tx_p[4]}]       ;# GTYE4_CHANNEL_X1Y27
set_property -dict {LOC AK6 } [get_ports {pcie_tx_n[4]}]       ;# GTYE4_CHANNEL_X1Y27
set_property -dict {LOC AL4 } [get_ports {pcie_rx_p[5]}]       ;# GTYE4_CHANNEL_X1Y26
set_property -dict {LOC AL3 } [get_ports {pcie_rx_n[5]}]       ;# GTYE4_CHANNEL_X1Y26
set_property -dict {LOC AL9 } [get_ports {pcie_tx_p[5]}]       ;# GTYE4_CHANNEL_X1Y26
set_property -dict {LOC AL8 } [get_ports {pcie_tx_n[5]}]       ;# GTYE4_CHANNEL_X1Y26
set_property -dict {LOC AM2 } [get_ports {pcie_rx_p[6]}]       ;# GTYE4_CHANNEL_X1Y25
set_property -dict {LOC AM1 } [get_ports {pcie_rx_n[6]}]       ;# GTYE4_CHANNEL_X1Y25
set_property -dict {LOC AM7 } [get_ports {pcie_tx_p[6]}]       ;# GTYE4_CHANNEL_X1Y25
set_property -dict {LOC AM6 } [get_ports {pcie_tx_n[6]}]       ;# GTYE4_CHANNEL_X1Y25
set_property -dict {LOC AN4 } [get_ports {pcie_rx_p[7]}]       ;# GTYE4_CHANNEL_X1Y24
set_property -dict {LOC AN3 } [get_ports {pcie_rx_n[7]}]       ;# GTYE4_CHANNEL_X1Y24
set_property -dict {LOC AN9 } [get_ports {pcie_tx_p[7]}]       ;# GTYE4_CHANNEL_X1Y24
set_property -dict {LOC AN8 } [get_ports {pcie_tx_n[7]}]       ;# GTYE4_CHANNEL_X1Y24
set_property -dict {LOC AP2 } [get_ports {pcie_rx_p[8]}]       ;# GTYE4_CHANNEL_X1Y23
set_property -dict {LOC AP1 } [get_ports {pcie_rx_n[8]}]       ;# GTYE4_CHANNEL_X1Y23
set_property -dict {LOC AP7 } [get_ports {pcie_tx_p[8]}]       ;# GTYE4_CHANNEL_X1Y23
set_property -dict {LOC AP6 } [get_ports {pcie_tx_n[8]}]       ;# GTYE4_CHANNEL_X1Y23
set_property -dict {LOC AR4 } [get_ports {pcie_rx_p[9]}]       ;# GTYE4_CHANNEL_X1Y22
set_property -dict {LOC AR3 } [get_ports {pcie_rx_n[9]}]       ;# GTYE4_CHANNEL_X1Y22
set_property -dict {LOC AR9 } [get_ports {pcie_tx_p[9]}]       ;# GTYE4_CHANNEL_X1Y22
set_property -dict {LOC AR8 } [get_ports {pcie_tx_n[9]}]       ;# GTYE4_CHANNEL_X1Y22
set_property -dict {LOC AT2 } [get_ports {pcie_rx_p[10]}]      ;# GTYE4_CHANNEL_X1Y21
set_property -dict {LOC AT1 } [get_ports {pcie_rx_n[10]}]      ;# GTYE4_CHANNEL_X1Y21
set_property -dict {LOC AT7 } [get_ports {pcie_tx_p[10]}]      ;# GTYE4_CHANNEL_X1Y21
set_property -dict {LOC AT6 } [get_ports {pcie_tx_n[10]}]      ;# GTYE4_CHANNEL_X1Y21
set_property -dict {LOC AU4 } [get_ports {pcie_rx_p[11]}]      ;# GTYE4_CHANNEL_X1Y20
set_property -dict {LOC AU3 } [get_ports {pcie_rx_n[11]}]      ;# GTYE4_CHANNEL_X1Y20
set_property -dict {LOC AU9 } [get_ports {pcie_tx_p[11]}]      ;# GTYE4_CHANNEL_X1Y20
set_property -dict {LOC AU8 } [get_ports {pcie_tx_n[11]}]      ;# GTYE4_CHANNEL_X1Y20
set_property -dict {LOC AV2 } [get_ports {pcie_rx_p[12]}]      ;# GTYE4_CHANNEL_X1Y19
set_property -dict {LOC AV1 } [get_ports {pcie_rx_n[12]}]      ;# GTYE4_CHANNEL_X1Y19
set_property -dict {LOC AV7 } [get_ports {pcie_tx_p[12]}]      ;# GTYE4_CHANNEL_X1Y19
set_property -dict {LOC AV6 } [get_ports {pcie_tx_n[12]}]      ;# GTYE4_CHANNEL_X1Y19
set_property -dict {LOC AW4 } [get_ports {pcie_rx_p[13]}]      ;# GTYE4_CHANNEL_X1Y18
set_property -dict {LOC AW3 } [get_ports {pcie_rx_n[13]}]      ;# GTYE4_CHANNEL_X1Y18
set_property -dict {LOC BB5 } [get_ports {pcie_tx_p[13]}]      ;# GTYE4_CHANNEL_X1Y18
set_property -dict {LOC BB4 } [get_ports {pcie_tx_n[13]}]      ;# GTYE4_CHANNEL_X1Y18
set_property -dict {LOC BA2 } [get_ports {pcie_rx_p[14]}]      ;# GTYE4_CHANNEL_X1Y17
set_property -dict {LOC BA1 } [get_ports {pcie_rx_n[14]}]      ;# GTYE4_CHANNEL_X1Y17
set_property -dict {LOC BD5 } [get_ports {pcie_tx_p[14]}]      ;# GTYE4_CHANNEL_X1Y17
set_property -dict {LOC BD4 } [get_ports {pcie_tx_n[14]}]      ;# GTYE4_CHANNEL_X1Y17
set_property -dict {LOC BC2 } [get_ports {pcie_rx_p[15]}]      ;# GTYE4_CHANNEL_X1Y16
set_property -dict {LOC BC1 } [get_ports {pcie_rx_n[15]}]      ;# GTYE4_CHANNEL_X1Y16
set_property -dict {LOC BF5 } [get_ports {pcie_tx_p[15]}]      ;# GTYE4_CHANNEL_X1Y16
set_property -dict {LOC BF4 } [get_ports {pcie_tx_n[15]}]      ;# GTYE4_CHANNEL_X1Y16
create_clock -period 10.000 -name pcie_refclk [get_ports pcie_refclk_p]
set_property -dict {LOC BD21 IOSTANDARD LVCMOS12 PULLUP true} [get_ports pcie_reset_n]
set_false_path -from [get_ports pcie_reset_n]
set_input_delay 0 [get_ports pcie_reset_n]

# QSFP28 cage 0: 161.1328125 MHz reference clock from the SI5335 (MGTREFCLK1_231), its reset and
# frequency select, and the module's sideband pins
set_property -dict {LOC K11} [get_ports qsfp0_mgt_refclk_1_p]
set_property -dict {LOC K10} [get_ports qsfp0_mgt_refclk_1_n]
# QSFP28 cage 0 lane 0 (quad 231; the 10G option's only lane). Lanes 1-3: qsfp_lanes_cmac.xdc (the CMAC build only,
# the 10G build's top has lane 0 only). Source: Corundum's fpga/mqnic/AU250/fpga_100g/fpga.xdc at 858dc5ac (AU250 numbering, before the AU200 merge).
set_property -dict {LOC N4  } [get_ports {qsfp0_rx_p[0]}]      ;# GTYE4_CHANNEL_X1Y44
set_property -dict {LOC N3  } [get_ports {qsfp0_rx_n[0]}]      ;# GTYE4_CHANNEL_X1Y44
set_property -dict {LOC N9  } [get_ports {qsfp0_tx_p[0]}]      ;# GTYE4_CHANNEL_X1Y44
set_property -dict {LOC N8  } [get_ports {qsfp0_tx_n[0]}]      ;# GTYE4_CHANNEL_X1Y44
create_clock -period 6.206 -name qsfp0_mgt_refclk_1 [get_ports qsfp0_mgt_refclk_1_p]
set_property -dict {LOC AT22 IOSTANDARD LVCMOS12 SLEW SLOW DRIVE 8} [get_ports qsfp0_refclk_reset]
set_property -dict {LOC AT20 IOSTANDARD LVCMOS12 SLEW SLOW DRIVE 8} [get_ports {qsfp0_fs[0]}]
set_property -dict {LOC AU22 IOSTANDARD LVCMOS12 SLEW SLOW DRIVE 8} [get_ports {qsfp0_fs[1]}]
set_property -dict {LOC BE16 IOSTANDARD LVCMOS12 SLEW SLOW DRIVE 8} [get_ports qsfp0_modsell]
set_property -dict {LOC BE17 IOSTANDARD LVCMOS12 SLEW SLOW DRIVE 8} [get_ports qsfp0_resetl]
set_property -dict {LOC BD18 IOSTANDARD LVCMOS12 SLEW SLOW DRIVE 8} [get_ports qsfp0_lpmode]

# LEDs
set_property -dict {LOC BC21 IOSTANDARD LVCMOS12 SLEW SLOW DRIVE 8} [get_ports {led[0]}]
set_property -dict {LOC BB21 IOSTANDARD LVCMOS12 SLEW SLOW DRIVE 8} [get_ports {led[1]}]
set_property -dict {LOC BA20 IOSTANDARD LVCMOS12 SLEW SLOW DRIVE 8} [get_ports {led[2]}]
set_false_path -to [get_ports {led[*] qsfp0_refclk_reset qsfp0_fs[*] qsfp0_modsell qsfp0_resetl qsfp0_lpmode}]
set_output_delay 0 [get_ports {led[*] qsfp0_refclk_reset qsfp0_fs[*] qsfp0_modsell qsfp0_resetl qsfp0_lpmode}]

# ---------------------------------------------------------------------------------------------------
# user_clk (250 MHz, PCIe IP) and gt_txusrclk2 (322.265625 MHz, CMAC IP) come from the IPs'
# constraints; the paths between them are CDC modules constrained by board/common/vivado/cdc.tcl.
# init_clk = clk_300mhz_0 / 3 is derived by Vivado from the BUFGCE_DIV.
set_clock_groups -asynchronous -group [get_clocks -include_generated_clocks clk_300mhz_0]
# MAC RX (issue 11): the CMAC's RX stream (its rx_clk is gt_txusrclk2) is stamped on that clock and crosses to user_clk in
# the board core through the same CDC modules (tsnic_mac_rx's tsnic_cdc_async_fifo and tsnic_cdc_bus,
# the RX drop count's tsnic_cdc_bus, a second tsnic_td_sink, tsnic_cdc_sync on the resets): cdc.tcl
# constrains every instance it finds, so RX needs no line of its own here.
