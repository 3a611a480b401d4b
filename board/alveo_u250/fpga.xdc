# tsnic on the Xilinx Alveo U250, part xcu250-figd2104-2L-e.
# Pin facts from the board's published master constraints (Xilinx Alveo U200/U250 XDC: the two cards
# share the board; as also used by Corundum's fpga/mqnic/Alveo/fpga_100g/fpga_au200.xdc). The PCIe and
# QSFP28 lanes are placed by the IPs (the PCIe IP's default block and GT quads for this part; CMAC
# GT_GROUP_SELECT X1Y48~X1Y51 = quad 231, ip/*.tcl).

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
create_clock -period 10.000 -name pcie_refclk [get_ports pcie_refclk_p]
set_property -dict {LOC BD21 IOSTANDARD LVCMOS12 PULLUP true} [get_ports pcie_reset_n]
set_false_path -from [get_ports pcie_reset_n]
set_input_delay 0 [get_ports pcie_reset_n]

# QSFP28 cage 0: 161.1328125 MHz reference clock from the SI5335 (MGTREFCLK1_231), its reset and
# frequency select, and the module's sideband pins
set_property -dict {LOC K11} [get_ports qsfp0_mgt_refclk_1_p]
set_property -dict {LOC K10} [get_ports qsfp0_mgt_refclk_1_n]
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
