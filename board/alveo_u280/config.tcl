# Alveo U280: what board/common/vivado/build.tcl builds (paths relative to this board's folder).
set part          xcu280-fsvh2892-2L-e
set ip_tcl        {ip/pcie4c_uscale_plus_0.tcl ip/cmac_usplus_0.tcl}
set xdc           {fpga.xdc}
set board_rtl     {rtl/fpga.v}
# configuration flash: MT25QU01G, 128 MB, quad SPI
set flash_part    mt25qu01g-spi-x1_x2_x4
set flash_size_mb 128
set flash_iface   SPIx4
# modules of the RTL tree (hdl/rtl) the top needs: its own and tsnic_board_core's MAC-side ones
set rtl_modules   {tsnic_board_core tsnic_mac_tx tsnic_td_sink tsnic_cdc_async_fifo tsnic_cdc_sync}
