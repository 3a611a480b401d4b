# 100G Ethernet MAC of the Alveo U250's QSFP28 cage 0: the CMACE4 hard block nearest GTY quad 231, CAUI-4
# (4 x 25.78125 Gb/s) with RS-FEC (100GBASE-SR4/CR4), 512-bit AXI-Stream at 322.265625 MHz,
# 161.1328125 MHz reference clock, 100 MHz init/DRP clock, no pause frames.
# Lanes: QSFP0 = GTY quad 231 = GTYE4_CHANNEL_X1Y44..X1Y47 / GTYE4_COMMON_X1Y11 on the xcu250 (the
# xcu200's numbering of the same quad is X1Y48..X1Y51, Corundum's AU200 cmac_usplus_0.tcl at 5ddff9d1:
# not this part). Source: Corundum's AU250 design
# before its AU200 merge, fpga/mqnic/AU250/fpga_100g/ip/cmac_usplus_0.tcl (CMAC_CORE_SELECT CMACE4_X0Y8,
# GT_GROUP_SELECT X1Y44~X1Y47) and fpga.xdc at 72afcc44 and at 18ac7cc4^, the last before the merge (pins N4/N9.. = MGTY*_231 = X1Y44..X1Y47,
# refclk K11 = MGTREFCLK1P_231); checked against board/alveo_u250/fpga.xdc by tests/board/test_gt_placement.py.
# IEEE 1588 TX/RX time stamping off (ENABLE_TIME_STAMPING, PG203): the stub
# (board/common/stubs/cmac_usplus_0.v) has no timestamp ports; departure stamps are each frame's line start as
# the board core's tsnic_cmac_tx_lag derives it from tx_axis handshakes, + CTRL_TX_LAT_COMP_NS
# (docs/BOARDS.md, "Departure stamp"; it assumes TX_FLOW_CONTROL 0: no pause frames).
# Sourced by board/common/vivado/build.tcl, which sets ip_dir.
create_ip -name cmac_usplus -vendor xilinx.com -library ip -module_name cmac_usplus_0 -dir $ip_dir

set_property -dict [list \
    CONFIG.CMAC_CAUI4_MODE {1} \
    CONFIG.NUM_LANES {4x25} \
    CONFIG.USER_INTERFACE {AXIS} \
    CONFIG.GT_REF_CLK_FREQ {161.1328125} \
    CONFIG.GT_DRP_CLK {100} \
    CONFIG.INCLUDE_RS_FEC {1} \
    CONFIG.TX_FLOW_CONTROL {0} \
    CONFIG.RX_FLOW_CONTROL {0} \
    CONFIG.ENABLE_PIPELINE_REG {1} \
    CONFIG.ENABLE_TIME_STAMPING {0} \
    CONFIG.CMAC_CORE_SELECT {CMACE4_X0Y8} \
    CONFIG.GT_GROUP_SELECT {X1Y44~X1Y47} \
    CONFIG.LANE1_GT_LOC {X1Y44} \
    CONFIG.LANE2_GT_LOC {X1Y45} \
    CONFIG.LANE3_GT_LOC {X1Y46} \
    CONFIG.LANE4_GT_LOC {X1Y47} \
] [get_ips cmac_usplus_0]
