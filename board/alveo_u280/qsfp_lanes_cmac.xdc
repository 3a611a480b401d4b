# QSFP28 cage 0 lanes 1-3 of the CMAC build (MAC=cmac, the default; config.tcl: xdc), each GT pin LOCed; lane 0 is
# in fpga.xdc (both builds). Checked against tests/board/gt_sites.py by tests/board/test_gt_placement.py.
# Source: Corundum's fpga/mqnic/Alveo/fpga_100g/fpga_au280.xdc.
set_property -dict {LOC K51 } [get_ports {qsfp0_rx_p[1]}]      ;# GTYE4_CHANNEL_X0Y41
set_property -dict {LOC K52 } [get_ports {qsfp0_rx_n[1]}]      ;# GTYE4_CHANNEL_X0Y41
set_property -dict {LOC L44 } [get_ports {qsfp0_tx_p[1]}]      ;# GTYE4_CHANNEL_X0Y41
set_property -dict {LOC L45 } [get_ports {qsfp0_tx_n[1]}]      ;# GTYE4_CHANNEL_X0Y41
set_property -dict {LOC J53 } [get_ports {qsfp0_rx_p[2]}]      ;# GTYE4_CHANNEL_X0Y42
set_property -dict {LOC J54 } [get_ports {qsfp0_rx_n[2]}]      ;# GTYE4_CHANNEL_X0Y42
set_property -dict {LOC K46 } [get_ports {qsfp0_tx_p[2]}]      ;# GTYE4_CHANNEL_X0Y42
set_property -dict {LOC K47 } [get_ports {qsfp0_tx_n[2]}]      ;# GTYE4_CHANNEL_X0Y42
set_property -dict {LOC H51 } [get_ports {qsfp0_rx_p[3]}]      ;# GTYE4_CHANNEL_X0Y43
set_property -dict {LOC H52 } [get_ports {qsfp0_rx_n[3]}]      ;# GTYE4_CHANNEL_X0Y43
set_property -dict {LOC J48 } [get_ports {qsfp0_tx_p[3]}]      ;# GTYE4_CHANNEL_X0Y43
set_property -dict {LOC J49 } [get_ports {qsfp0_tx_n[3]}]      ;# GTYE4_CHANNEL_X0Y43
