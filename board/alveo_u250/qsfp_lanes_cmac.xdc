# QSFP28 cage 0 lanes 1-3 of the CMAC build (MAC=cmac, the default; config.tcl: xdc), each GT pin LOCed; lane 0 is
# in fpga.xdc (both builds). Checked against tests/board/gt_sites.py by tests/board/test_gt_placement.py.
# Source: Corundum's fpga/mqnic/AU250/fpga_100g/fpga.xdc at 858dc5ac (AU250 numbering, before the AU200 merge).
set_property -dict {LOC M2  } [get_ports {qsfp0_rx_p[1]}]      ;# GTYE4_CHANNEL_X1Y45
set_property -dict {LOC M1  } [get_ports {qsfp0_rx_n[1]}]      ;# GTYE4_CHANNEL_X1Y45
set_property -dict {LOC M7  } [get_ports {qsfp0_tx_p[1]}]      ;# GTYE4_CHANNEL_X1Y45
set_property -dict {LOC M6  } [get_ports {qsfp0_tx_n[1]}]      ;# GTYE4_CHANNEL_X1Y45
set_property -dict {LOC L4  } [get_ports {qsfp0_rx_p[2]}]      ;# GTYE4_CHANNEL_X1Y46
set_property -dict {LOC L3  } [get_ports {qsfp0_rx_n[2]}]      ;# GTYE4_CHANNEL_X1Y46
set_property -dict {LOC L9  } [get_ports {qsfp0_tx_p[2]}]      ;# GTYE4_CHANNEL_X1Y46
set_property -dict {LOC L8  } [get_ports {qsfp0_tx_n[2]}]      ;# GTYE4_CHANNEL_X1Y46
set_property -dict {LOC K2  } [get_ports {qsfp0_rx_p[3]}]      ;# GTYE4_CHANNEL_X1Y47
set_property -dict {LOC K1  } [get_ports {qsfp0_rx_n[3]}]      ;# GTYE4_CHANNEL_X1Y47
set_property -dict {LOC K7  } [get_ports {qsfp0_tx_p[3]}]      ;# GTYE4_CHANNEL_X1Y47
set_property -dict {LOC K6  } [get_ports {qsfp0_tx_n[3]}]      ;# GTYE4_CHANNEL_X1Y47
