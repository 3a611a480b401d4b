# Alveo U50: what board/common/vivado/build.tcl builds (paths relative to this board's folder).
set part          xcu50-fsvh2104-2-e
set ip_tcl        {ip/pcie4c_uscale_plus_0.tcl ip/cmac_usplus_0.tcl}
# MAC options (make bitstream MAC=...), the first the default: cmac = 100G through the CMAC (the IP
# above); 10g = 10GBASE-R on QSFP lane 0 through xxv_ethernet_0 (PCS/PMA only) and tsnic's XGMII MAC,
# the top's MAC_10G = 1. Same XDC (the GT lanes are placed by the IP).
set mac_options   {cmac 10g}
set ip_tcl_10g    {ip/pcie4c_uscale_plus_0.tcl ip/xxv_ethernet_0.tcl}
set generic_10g   {MAC_10G=1}
# constraints: the CMAC build LOCs QSFP lanes 1-3 too (qsfp_lanes_cmac.xdc); the 10G build's top has lane 0 only
set xdc           {fpga.xdc qsfp_lanes_cmac.xdc placement.xdc}
set xdc_10g       {fpga.xdc placement.xdc}
set board_rtl     {rtl/fpga.v}
# configuration flash: MT25QU01G, 128 MB, quad SPI
set flash_part    mt25qu01g-spi-x1_x2_x4
set flash_size_mb 128
set flash_iface   SPIx4
# where the image goes: AMD's factory image keeps 0x0..0x01001FFF and MultiBoots to 0x01002000
# (UG1289 "MCS File Generation and Alveo Card Programming"; Corundum's Alveo Makefiles load there too);
# tsnic's golden image (boot selector) is written there, 16 MB - 8 KB up to slot A (docs/FIRMWARE.md)
set flash_load_addr  0x01002000
set flash_golden_max 0x00FFD000
# modules of the RTL tree (hdl/rtl) the top needs: its own and tsnic_board_core's MAC-side ones
set rtl_modules   {tsnic_board_core tsnic_mac_tx tsnic_td_sink tsnic_cdc_async_fifo tsnic_cdc_sync tsnic_cmac_tx_lag}
set rtl_modules_10g {tsnic_xgmii_tx tsnic_xgmii_rx}
