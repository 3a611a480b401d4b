# QSFP28 cage lanes 1-3 of the CMAC build (MAC=cmac, the default; config.tcl: xdc), each GT pin LOCed; lane 0 is
# in fpga.xdc (both builds). Checked against tests/board/gt_sites.py by tests/board/test_gt_placement.py.
# Source: Corundum's fpga/mqnic/Alveo/fpga_100g/fpga_au50.xdc.
set_property -dict {LOC G45 } [get_ports {qsfp_rx_p[1]}]       ;# GTYE4_CHANNEL_X0Y29
set_property -dict {LOC G46 } [get_ports {qsfp_rx_n[1]}]       ;# GTYE4_CHANNEL_X0Y29
set_property -dict {LOC C40 } [get_ports {qsfp_tx_p[1]}]       ;# GTYE4_CHANNEL_X0Y29
set_property -dict {LOC C41 } [get_ports {qsfp_tx_n[1]}]       ;# GTYE4_CHANNEL_X0Y29
set_property -dict {LOC F43 } [get_ports {qsfp_rx_p[2]}]       ;# GTYE4_CHANNEL_X0Y30
set_property -dict {LOC F44 } [get_ports {qsfp_rx_n[2]}]       ;# GTYE4_CHANNEL_X0Y30
set_property -dict {LOC B42 } [get_ports {qsfp_tx_p[2]}]       ;# GTYE4_CHANNEL_X0Y30
set_property -dict {LOC B43 } [get_ports {qsfp_tx_n[2]}]       ;# GTYE4_CHANNEL_X0Y30
set_property -dict {LOC E45 } [get_ports {qsfp_rx_p[3]}]       ;# GTYE4_CHANNEL_X0Y31
set_property -dict {LOC E46 } [get_ports {qsfp_rx_n[3]}]       ;# GTYE4_CHANNEL_X0Y31
set_property -dict {LOC A40 } [get_ports {qsfp_tx_p[3]}]       ;# GTYE4_CHANNEL_X0Y31
set_property -dict {LOC A41 } [get_ports {qsfp_tx_n[3]}]       ;# GTYE4_CHANNEL_X0Y31
