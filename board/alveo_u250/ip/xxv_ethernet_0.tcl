# 10GBASE-R PCS/PMA of the Alveo U250's QSFP28 cage 0 (build option MAC=10g): the 10G/25G High Speed Ethernet
# Subsystem (xxv_ethernet, PG210) with one core, PCS/PMA only ("Ethernet PCS/PMA 64-bit": 64-bit SDR
# XGMII, tsnic_xgmii_tx/rx are the MAC), 10.3125 Gb/s on the GTY of QSFP lane 0 (X1Y44 / quad 231 = Quad_X1Y11, the CMAC build's
# lane 1), from the cage's 161.1328125 MHz reference clock (the one the CMAC uses), 100 MHz DRP/GT
# helper clock (init_clk), no AXI4-Lite and no statistics counters (the ctl/stat ports are used).
# Sourced by board/common/vivado/build.tcl, which sets ip_dir.
create_ip -name xxv_ethernet -vendor xilinx.com -library ip -module_name xxv_ethernet_0 -dir $ip_dir

set_property -dict [list \
    CONFIG.CORE {Ethernet PCS/PMA 64-bit} \
    CONFIG.NUM_OF_CORES {1} \
    CONFIG.LINE_RATE {10} \
    CONFIG.BASE_R_KR {BASE-R} \
    CONFIG.GT_TYPE {GTY} \
    CONFIG.GT_REF_CLK_FREQ {161.1328125} \
    CONFIG.GT_DRP_CLK {100} \
    CONFIG.INCLUDE_AXI4_INTERFACE {0} \
    CONFIG.INCLUDE_STATISTICS_COUNTERS {0} \
    CONFIG.GT_GROUP_SELECT {Quad_X1Y11} \
    CONFIG.LANE1_GT_LOC {X1Y44} \
] [get_ips xxv_ethernet_0]
