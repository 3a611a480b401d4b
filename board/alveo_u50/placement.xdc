# Placement of tsnic on the xcu50 (2 SLRs): the PCIe hard block's logic next to the PCIe GTs, the MAC
# side next to the QSFP GTs, the core in the PCIe block's SLR. The clock regions are those of Corundum's
# fpga/mqnic/Alveo/fpga_100g/placement_au50.xdc (pblock_pcie, pblock_eth; its DMA/interface logic in the
# SLR0 pblock); they hold the GT sites this board uses: PCIe GTY quads 224-227 = GTYE4_CHANNEL_X1Y0..X1Y15 (clock regions Y0-Y3);
# QSFP quad 131 = X0Y28..X0Y31 (clock region Y7) (board/<board>/fpga.xdc and tests/board/test_gt_placement.py).
# Cell names: fpga.v's alveo_inst (board/common/rtl/tsnic_alveo_top.v: the generate block pcie4c, its
# pcie_inst; mac_inst; core_inst) and, inside tsnic_board_core (hdl/rtl), the MAC-domain halves
# mac_domain.mac_tx_inst and mac_rx_domain.mac_rx_inst, whose clock-crossing FIFOs go with the MAC side
# (as Corundum puts its port async FIFOs in pblock_eth). tests/board/test_gt_placement.py checks that each
# path names instances of the RTL. Whether it closes timing only Vivado can tell.

# the core: in the PCIe block's SLR
create_pblock pblock_core
add_cells_to_pblock [get_pblocks pblock_core] [get_cells alveo_inst/core_inst]
resize_pblock [get_pblocks pblock_core] -add {SLR0}

# the PCIe hard block's IP: the clock regions of its GTs
create_pblock pblock_pcie
add_cells_to_pblock [get_pblocks pblock_pcie] [get_cells alveo_inst/pcie4c.pcie_inst]
resize_pblock [get_pblocks pblock_pcie] -add {CLOCKREGION_X6Y0:CLOCKREGION_X7Y3}

# the MAC side (CMAC or 10G PCS/PMA and tsnic's XGMII MAC) and the core's MAC-domain halves (launch gate,
# RX stamp, their clock-crossing FIFOs): the clock regions of the QSFP GTs
create_pblock pblock_eth
add_cells_to_pblock [get_pblocks pblock_eth] [get_cells alveo_inst/mac_inst]
add_cells_to_pblock [get_pblocks pblock_eth] [get_cells alveo_inst/core_inst/mac_domain.mac_tx_inst]
add_cells_to_pblock [get_pblocks pblock_eth] [get_cells alveo_inst/core_inst/mac_rx_domain.mac_rx_inst]
resize_pblock [get_pblocks pblock_eth] -add {CLOCKREGION_X0Y6:CLOCKREGION_X0Y7}
