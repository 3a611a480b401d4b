# PCIe hard block of the Alveo U280 (PCIE4CE4, CCIX-capable variant): Gen3 x16, 512-bit AXI-Stream at
# 250 MHz, the configuration tsnic_board_core expects (hdl/rtl/tsnic_board_core.v header):
# straddle off on all four interfaces, client tags, 5-bit tags (no extended tags), MSI-X with the
# table and PBA in user logic (BAR0 0x20000 / 0x28000, hdl/contract/tsnic.toml), BAR0 64-bit 1 MiB.
# Sourced by board/common/vivado/build.tcl, which sets ip_dir. PCI IDs: see docs/BOARDS.md (the driver
# recognises the card by the identity register in BAR0, not by the PCI ID).
create_ip -name pcie4c_uscale_plus -vendor xilinx.com -library ip -module_name pcie4c_uscale_plus_0 -dir $ip_dir

set_property -dict [list \
    CONFIG.mode_selection {Advanced} \
    CONFIG.PL_LINK_CAP_MAX_LINK_SPEED {8.0_GT/s} \
    CONFIG.PL_LINK_CAP_MAX_LINK_WIDTH {X16} \
    CONFIG.axisten_if_width {512_bit} \
    CONFIG.axisten_freq {250} \
    CONFIG.AXISTEN_IF_EXT_512_CQ_STRADDLE {false} \
    CONFIG.AXISTEN_IF_EXT_512_CC_STRADDLE {false} \
    CONFIG.AXISTEN_IF_EXT_512_RQ_STRADDLE {false} \
    CONFIG.AXISTEN_IF_EXT_512_RC_STRADDLE {false} \
    CONFIG.AXISTEN_IF_EXT_512_RC_4TLP_STRADDLE {false} \
    CONFIG.AXISTEN_IF_CQ_ALIGNMENT_MODE {DWORD_Aligned} \
    CONFIG.AXISTEN_IF_CC_ALIGNMENT_MODE {DWORD_Aligned} \
    CONFIG.AXISTEN_IF_RQ_ALIGNMENT_MODE {DWORD_Aligned} \
    CONFIG.AXISTEN_IF_RC_ALIGNMENT_MODE {DWORD_Aligned} \
    CONFIG.axisten_if_enable_client_tag {true} \
    CONFIG.extended_tag_field {false} \
    CONFIG.pf0_dev_cap_max_payload {512_bytes} \
    CONFIG.vendor_id {1234} \
    CONFIG.PF0_DEVICE_ID {7502} \
    CONFIG.PF0_SUBSYSTEM_VENDOR_ID {10ee} \
    CONFIG.PF0_SUBSYSTEM_ID {0002} \
    CONFIG.PF0_Use_Class_Code_Lookup_Assistant {false} \
    CONFIG.PF0_CLASS_CODE {020000} \
    CONFIG.pf0_bar0_enabled {true} \
    CONFIG.pf0_bar0_type {Memory} \
    CONFIG.pf0_bar0_64bit {true} \
    CONFIG.pf0_bar0_prefetchable {false} \
    CONFIG.pf0_bar0_scale {Megabytes} \
    CONFIG.pf0_bar0_size {1} \
    CONFIG.pf0_msi_enabled {false} \
    CONFIG.pf0_msix_enabled {true} \
    CONFIG.MSI_X_OPTIONS {MSI-X_External} \
    CONFIG.PF0_MSIX_CAP_TABLE_SIZE {003} \
    CONFIG.PF0_MSIX_CAP_TABLE_BIR {BAR_1:0} \
    CONFIG.PF0_MSIX_CAP_TABLE_OFFSET {00020000} \
    CONFIG.PF0_MSIX_CAP_PBA_BIR {BAR_1:0} \
    CONFIG.PF0_MSIX_CAP_PBA_OFFSET {00028000} \
] [get_ips pcie4c_uscale_plus_0]
