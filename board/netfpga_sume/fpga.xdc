# tsnic on the NetFPGA SUME, part xc7vx690tffg1761-3.
# Pin facts from the board's published master constraints (NetFPGA SUME master XDC, as also used by
# Corundum's fpga/mqnic/NetFPGA_SUME/fpga/fpga.xdc). The PCIe lanes are placed by the IP
# (pcie_blk_locn X0Y1, ip/pcie3_7x_0.tcl) and their pins LOCed here (GTHE2_CHANNEL_X1Y16..X1Y23, checked
# against tests/board/gt_sites.py by tests/board/test_gt_placement.py); the SFP+ lanes of cage 1 are placed here (the PCS/PMA IP of
# 7-series takes its transceiver from the pins).

# ---------------------------------------------------------------------------------------------------
# Configuration: the SUME loads the FPGA from its parallel (BPI) flash through the board's CPLD, not
# from a quad-SPI flash tsnic could reach (FLASH_WRITABLE = 0 in the top). CONFIGFALLBACK takes effect
# for an IPROG through ICAPE2 in master configuration modes.
set_property CFGBVS GND                                [current_design]
set_property CONFIG_VOLTAGE 1.8                        [current_design]
set_property BITSTREAM.CONFIG.CONFIGFALLBACK ENABLE    [current_design]
set_property BITSTREAM.CONFIG.UNUSEDPIN PULLUP         [current_design]
set_property BITSTREAM.GENERAL.COMPRESS TRUE           [current_design]

# ---------------------------------------------------------------------------------------------------
# 200 MHz LVDS system clock (MMCM -> 125 MHz dclk)
set_property -dict {LOC H19 IOSTANDARD LVDS} [get_ports clk_200mhz_p]
set_property -dict {LOC G18 IOSTANDARD LVDS} [get_ports clk_200mhz_n]
create_clock -period 5.000 -name clk_200mhz [get_ports clk_200mhz_p]

# PCIe: 100 MHz reference clock (MGTREFCLK1_115), PERST#
set_property -dict {LOC AB8} [get_ports pcie_mgt_refclk_p]
set_property -dict {LOC AB7} [get_ports pcie_mgt_refclk_n]
# PCIe lanes: each GT pin LOCed, so a lane of the IP's placement that disagrees fails in Vivado and the
# pins/channels are checked against tests/board/gt_sites.py (test_gt_placement.py). Source: Corundum's fpga/mqnic/NetFPGA_SUME/fpga/fpga.xdc.
set_property -dict {LOC Y4  } [get_ports {pcie_rx_p[0]}]       ;# GTHE2_CHANNEL_X1Y23
set_property -dict {LOC Y3  } [get_ports {pcie_rx_n[0]}]       ;# GTHE2_CHANNEL_X1Y23
set_property -dict {LOC W2  } [get_ports {pcie_tx_p[0]}]       ;# GTHE2_CHANNEL_X1Y23
set_property -dict {LOC W1  } [get_ports {pcie_tx_n[0]}]       ;# GTHE2_CHANNEL_X1Y23
set_property -dict {LOC AA6 } [get_ports {pcie_rx_p[1]}]       ;# GTHE2_CHANNEL_X1Y22
set_property -dict {LOC AA5 } [get_ports {pcie_rx_n[1]}]       ;# GTHE2_CHANNEL_X1Y22
set_property -dict {LOC AA2 } [get_ports {pcie_tx_p[1]}]       ;# GTHE2_CHANNEL_X1Y22
set_property -dict {LOC AA1 } [get_ports {pcie_tx_n[1]}]       ;# GTHE2_CHANNEL_X1Y22
set_property -dict {LOC AB4 } [get_ports {pcie_rx_p[2]}]       ;# GTHE2_CHANNEL_X1Y21
set_property -dict {LOC AB3 } [get_ports {pcie_rx_n[2]}]       ;# GTHE2_CHANNEL_X1Y21
set_property -dict {LOC AC2 } [get_ports {pcie_tx_p[2]}]       ;# GTHE2_CHANNEL_X1Y21
set_property -dict {LOC AC1 } [get_ports {pcie_tx_n[2]}]       ;# GTHE2_CHANNEL_X1Y21
set_property -dict {LOC AC6 } [get_ports {pcie_rx_p[3]}]       ;# GTHE2_CHANNEL_X1Y20
set_property -dict {LOC AC5 } [get_ports {pcie_rx_n[3]}]       ;# GTHE2_CHANNEL_X1Y20
set_property -dict {LOC AE2 } [get_ports {pcie_tx_p[3]}]       ;# GTHE2_CHANNEL_X1Y20
set_property -dict {LOC AE1 } [get_ports {pcie_tx_n[3]}]       ;# GTHE2_CHANNEL_X1Y20
set_property -dict {LOC AD4 } [get_ports {pcie_rx_p[4]}]       ;# GTHE2_CHANNEL_X1Y19
set_property -dict {LOC AD3 } [get_ports {pcie_rx_n[4]}]       ;# GTHE2_CHANNEL_X1Y19
set_property -dict {LOC AG2 } [get_ports {pcie_tx_p[4]}]       ;# GTHE2_CHANNEL_X1Y19
set_property -dict {LOC AG1 } [get_ports {pcie_tx_n[4]}]       ;# GTHE2_CHANNEL_X1Y19
set_property -dict {LOC AE6 } [get_ports {pcie_rx_p[5]}]       ;# GTHE2_CHANNEL_X1Y18
set_property -dict {LOC AE5 } [get_ports {pcie_rx_n[5]}]       ;# GTHE2_CHANNEL_X1Y18
set_property -dict {LOC AH4 } [get_ports {pcie_tx_p[5]}]       ;# GTHE2_CHANNEL_X1Y18
set_property -dict {LOC AH3 } [get_ports {pcie_tx_n[5]}]       ;# GTHE2_CHANNEL_X1Y18
set_property -dict {LOC AF4 } [get_ports {pcie_rx_p[6]}]       ;# GTHE2_CHANNEL_X1Y17
set_property -dict {LOC AF3 } [get_ports {pcie_rx_n[6]}]       ;# GTHE2_CHANNEL_X1Y17
set_property -dict {LOC AJ2 } [get_ports {pcie_tx_p[6]}]       ;# GTHE2_CHANNEL_X1Y17
set_property -dict {LOC AJ1 } [get_ports {pcie_tx_n[6]}]       ;# GTHE2_CHANNEL_X1Y17
set_property -dict {LOC AG6 } [get_ports {pcie_rx_p[7]}]       ;# GTHE2_CHANNEL_X1Y16
set_property -dict {LOC AG5 } [get_ports {pcie_rx_n[7]}]       ;# GTHE2_CHANNEL_X1Y16
set_property -dict {LOC AK4 } [get_ports {pcie_tx_p[7]}]       ;# GTHE2_CHANNEL_X1Y16
set_property -dict {LOC AK3 } [get_ports {pcie_tx_n[7]}]       ;# GTHE2_CHANNEL_X1Y16
create_clock -period 10.000 -name pcie_mgt_refclk [get_ports pcie_mgt_refclk_p]
set_property -dict {LOC AY35 IOSTANDARD LVCMOS18 PULLUP true} [get_ports pcie_reset_n]
set_false_path -from [get_ports pcie_reset_n]
set_input_delay 0 [get_ports pcie_reset_n]

# SFP+ cage 1 (GTHE2_CHANNEL_X1Y39, quad 119) and the 156.25 MHz reference clock from the SI5324
# (MGTREFCLK0_118); the SI5324's reset
set_property -dict {LOC A6} [get_ports sfp_1_rx_p]
set_property -dict {LOC A5} [get_ports sfp_1_rx_n]
set_property -dict {LOC B4} [get_ports sfp_1_tx_p]
set_property -dict {LOC B3} [get_ports sfp_1_tx_n]
set_property -dict {LOC E10} [get_ports sfp_mgt_refclk_p]
set_property -dict {LOC E9} [get_ports sfp_mgt_refclk_n]
create_clock -period 6.400 -name sfp_mgt_refclk [get_ports sfp_mgt_refclk_p]
set_property -dict {LOC BA29 IOSTANDARD LVCMOS18 SLEW SLOW DRIVE 12} [get_ports sfp_clk_rst]

# The FPGA's I2C bus (PCA9548 mux at 0x74; the Si5324 at 0x68 on its channel 4) and the mux's reset,
# both resets active high at the pins (NetFPGA SUME reference design nf_sume_general.xdc: i2c_clk AK24,
# i2c_data AK25 LVCMOS18 with pull-ups, i2c_reset[0] = mux AM39 LVCMOS15, i2c_reset[1] = Si5324 BA29
# LVCMOS18; it uses DRIVE 16, Corundum's SUME XDC DRIVE 12: the lines are open drain, only pulled low).
# Set up by tsnic_si5324_init at 100 kHz on dclk: asynchronous to the pins, no I/O timing.
set_property -dict {LOC AK24 IOSTANDARD LVCMOS18 SLEW SLOW DRIVE 12 PULLUP true} [get_ports i2c_scl]
set_property -dict {LOC AK25 IOSTANDARD LVCMOS18 SLEW SLOW DRIVE 12 PULLUP true} [get_ports i2c_sda]
set_property -dict {LOC AM39 IOSTANDARD LVCMOS15 SLEW SLOW DRIVE 12} [get_ports i2c_mux_reset]
set_false_path -to [get_ports {i2c_scl i2c_sda i2c_mux_reset}]
set_false_path -from [get_ports {i2c_scl i2c_sda}]
set_input_delay 0 [get_ports {i2c_scl i2c_sda}]
set_output_delay 0 [get_ports {i2c_scl i2c_sda i2c_mux_reset}]

# SFP+ cage 1 sideband
set_property -dict {LOC N18 IOSTANDARD LVCMOS15 PULLUP true} [get_ports sfp_1_mod_detect]
set_property -dict {LOC L17 IOSTANDARD LVCMOS15 PULLUP true} [get_ports sfp_1_los]
set_property -dict {LOC M19 IOSTANDARD LVCMOS15 PULLUP true} [get_ports sfp_1_tx_fault]
set_property -dict {LOC M18 IOSTANDARD LVCMOS15 SLEW SLOW DRIVE 12} [get_ports sfp_1_tx_disable]
set_property -dict {LOC N19 IOSTANDARD LVCMOS15 SLEW SLOW DRIVE 12} [get_ports {sfp_1_rs[0]}]
set_property -dict {LOC P18 IOSTANDARD LVCMOS15 SLEW SLOW DRIVE 12} [get_ports {sfp_1_rs[1]}]
set_false_path -from [get_ports {sfp_1_mod_detect sfp_1_los sfp_1_tx_fault}]
set_input_delay 0 [get_ports {sfp_1_mod_detect sfp_1_los sfp_1_tx_fault}]

# LEDs
set_property -dict {LOC AR22 IOSTANDARD LVCMOS15 SLEW SLOW DRIVE 12} [get_ports {led[0]}]
set_property -dict {LOC AR23 IOSTANDARD LVCMOS15 SLEW SLOW DRIVE 12} [get_ports {led[1]}]
set_property -dict {LOC G13 IOSTANDARD LVCMOS15 SLEW SLOW DRIVE 12} [get_ports {sfp_1_led[0]}]
set_property -dict {LOC L15 IOSTANDARD LVCMOS15 SLEW SLOW DRIVE 12} [get_ports {sfp_1_led[1]}]
# SFP+ cage 2's LEDs (the cage is not used): Si5324 ready, Si5324 set-up error
set_property -dict {LOC AL22 IOSTANDARD LVCMOS15 SLEW SLOW DRIVE 12} [get_ports {sfp_2_led[0]}]
set_property -dict {LOC BA20 IOSTANDARD LVCMOS15 SLEW SLOW DRIVE 12} [get_ports {sfp_2_led[1]}]
set_false_path -to [get_ports {sfp_2_led[*]}]
set_output_delay 0 [get_ports {sfp_2_led[*]}]
set_false_path -to [get_ports {led[*] sfp_1_led[*] sfp_clk_rst sfp_1_tx_disable sfp_1_rs[*]}]
set_output_delay 0 [get_ports {led[*] sfp_1_led[*] sfp_clk_rst sfp_1_tx_disable sfp_1_rs[*]}]

# ---------------------------------------------------------------------------------------------------
# user_clk (250 MHz, PCIe IP) and coreclk_out (156.25 MHz, PCS/PMA IP) come from the IPs' constraints;
# the paths between them are CDC modules constrained by board/common/vivado/cdc.tcl. The ICAP clock is
# user_clk / 4 from a counter bit: declared here so the core -> ICAPE2 paths are timed against it.
create_generated_clock -name icap_clk -source [get_pins {icap_div_reg[1]/C}] -divide_by 4 [get_pins {icap_div_reg[1]/Q}]
set_clock_groups -asynchronous -group [get_clocks -include_generated_clocks clk_200mhz]
# MAC RX (issue 11): the RX XGMII (also on coreclk_out) is stamped on that clock and crosses to user_clk in
# the board core through the same CDC modules (tsnic_mac_rx's tsnic_cdc_async_fifo and tsnic_cdc_bus,
# the RX drop count's tsnic_cdc_bus, a second tsnic_td_sink, tsnic_cdc_sync on the resets): cdc.tcl
# constrains every instance it finds, so RX needs no line of its own here.
