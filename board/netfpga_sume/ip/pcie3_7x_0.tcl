# PCIe hard block of the NetFPGA SUME (Virtex-7 Gen3 integrated block, X0Y1): Gen3 x8, 256-bit
# AXI-Stream at 250 MHz, the configuration tsnic_board_core expects (hdl/rtl/tsnic_board_core.v
# header): straddle off, client tags, 5-bit tags, MSI-X with the table and PBA in user logic (BAR0
# 0x20000 / 0x28000), BAR0 64-bit 1 MiB; the PIPE clock module inside the IP (shared logic in core).
# axisten_if_enable_client_tag {false}: on pcie3_7x this GUI setting is inverted, {false} gives the HDL
# AXISTEN_IF_ENABLE_CLIENT_TAG = TRUE, the user logic picks the tags (Corundum's
# fpga/mqnic/NetFPGA_SUME/fpga/ip/pcie3_7x_0.tcl sets {false}, its comment noting the inversion);
# tsnic_pcie_us_rd matches completions by its own tag. aspm_support {No_ASPM}: no
# L0s/L1 ASPM advertised (as Corundum's SUME script). Only a generated IP's parameters can confirm the
# inversion (docs/BOARDS.md).
# Sourced by board/common/vivado/build.tcl, which sets ip_dir.
create_ip -name pcie3_7x -vendor xilinx.com -library ip -module_name pcie3_7x_0 -dir $ip_dir

set_property -dict [list \
    CONFIG.mode_selection {Advanced} \
    CONFIG.pcie_blk_locn {X0Y1} \
    CONFIG.PL_LINK_CAP_MAX_LINK_SPEED {8.0_GT/s} \
    CONFIG.PL_LINK_CAP_MAX_LINK_WIDTH {X8} \
    CONFIG.axisten_if_width {256_bit} \
    CONFIG.axisten_freq {250} \
    CONFIG.AXISTEN_IF_RC_STRADDLE {false} \
    CONFIG.axisten_if_enable_client_tag {false} \
    CONFIG.extended_tag_field {false} \
    CONFIG.shared_logic_in_core {true} \
    CONFIG.pf0_dev_cap_max_payload {512_bytes} \
    CONFIG.vendor_id {1234} \
    CONFIG.PF0_DEVICE_ID {7504} \
    CONFIG.PF0_SUBSYSTEM_VENDOR_ID {10ee} \
    CONFIG.PF0_SUBSYSTEM_ID {0004} \
    CONFIG.PF0_Use_Class_Code_Lookup_Assistant {false} \
    CONFIG.pf0_class_code_base {02} \
    CONFIG.pf0_class_code_sub {00} \
    CONFIG.pf0_class_code_interface {00} \
    CONFIG.pf0_bar0_64bit {true} \
    CONFIG.pf0_bar0_prefetchable {false} \
    CONFIG.pf0_bar0_scale {Megabytes} \
    CONFIG.pf0_bar0_size {1} \
    CONFIG.pf0_msi_enabled {false} \
    CONFIG.pf0_msix_enabled {true} \
    CONFIG.PF0_MSIX_CAP_TABLE_SIZE {003} \
    CONFIG.PF0_MSIX_CAP_TABLE_BIR {BAR_1:0} \
    CONFIG.PF0_MSIX_CAP_TABLE_OFFSET {00020000} \
    CONFIG.PF0_MSIX_CAP_PBA_BIR {BAR_1:0} \
    CONFIG.PF0_MSIX_CAP_PBA_OFFSET {00028000} \
    CONFIG.aspm_support {No_ASPM} \
] [get_ips pcie3_7x_0]
