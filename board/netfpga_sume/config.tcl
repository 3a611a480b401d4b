# NetFPGA SUME: what board/common/vivado/build.tcl builds (paths relative to this board's folder).
set part          xc7vx690tffg1761-3
set ip_tcl        {ip/pcie3_7x_0.tcl ip/ten_gig_eth_pcs_pma_0.tcl}
set xdc           {fpga.xdc}
set board_rtl     {rtl/fpga.v}
# configuration flash: BPI (parallel NOR) behind the board's CPLD; the image is written as a BPI x16
# file for the NetFPGA SUME's own flash tools. flash_part "" = not programmable through Vivado's
# cfgmem flow (program.tcl flash mode refuses and says so).
set flash_part    ""
set flash_size_mb 128
set flash_iface   BPIx16
# modules of the RTL tree (hdl/rtl) the top needs: its own and tsnic_board_core's MAC-side ones
set rtl_modules   {tsnic_board_core tsnic_mac_tx tsnic_td_sink tsnic_cdc_async_fifo tsnic_cdc_sync tsnic_xgmii_tx}
