# 10GBASE-R PCS/PMA for SFP+ cage 1 of the NetFPGA SUME (GTH), 64-bit SDR XGMII at 156.25 MHz, no MDIO
# (the configuration and status vectors are used instead), shared logic (QPLL, clocking, resets) in
# the core, 125 MHz DRP clock (dclk). Sourced by board/common/vivado/build.tcl, which sets ip_dir.
create_ip -name ten_gig_eth_pcs_pma -vendor xilinx.com -library ip -module_name ten_gig_eth_pcs_pma_0 -dir $ip_dir

set_property -dict [list \
    CONFIG.MDIO_Management {false} \
    CONFIG.base_kr {BASE-R} \
    CONFIG.SupportLevel {1} \
    CONFIG.DClkRate {125} \
] [get_ips ten_gig_eth_pcs_pma_0]
