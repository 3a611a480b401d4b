// Lint stub of the pcie4_uscale_plus IP (PCIE40E4 block) as board/<board>/ip/pcie4_uscale_plus_0.tcl generates it: Gen3 x16, 512-bit
// interface, MSI-X with the table in user logic (MSI_X_OPTIONS MSI-X_External). Every port of that
// configuration, so board/lint.sh sees any port a top leaves out (Verilator PINMISSING) or leaves empty
// (PINCONNECTEMPTY on an input). Sources (PG213 names these ports; no generated stub of exactly this
// configuration was found): the names, directions and widths of a Vivado 2020.2 synth stub of
// pcie4_uscale_plus at 512 bit x16 (ssrg-vt/popcorn-kernel, fpga/lib/remap/ip/pcie4_uscale_plus_0/
// pcie4_uscale_plus_0_stub.v); its MSI interrupt ports replaced by the MSI-X External ones Corundum's
// fpga/mqnic/Alveo/fpga_100g/rtl/fpga_au50.v (pcie4c) and fpga_au200.v (pcie4) connect, with the widths
// of Corundum's wires; the two Corundum port lists are the same. cfg_bus_number (an output of the MSI
// stub, absent from Corundum's MSI-X External instances) is left out: not confirmed for this
// configuration, and an output hides no tie. What only a generated IP can confirm: docs/BOARDS.md.
// No behaviour: outputs are zero.
`resetall
`timescale 1ns / 1ps
`default_nettype none
/* verilator lint_off UNUSEDSIGNAL */
module pcie4_uscale_plus_0 (
    // PCIe lanes, clocks, resets
    output wire [15:0]    pci_exp_txn,
    output wire [15:0]    pci_exp_txp,
    input  wire [15:0]    pci_exp_rxn,
    input  wire [15:0]    pci_exp_rxp,
    input  wire           sys_clk,                           // IBUFDS_GTE4 ODIV2 straight (the IP has its own BUFG_GT)
    input  wire           sys_clk_gt,                        // IBUFDS_GTE4 O
    input  wire           sys_reset,                         // PERST#, active low (PG213)
    output wire           phy_rdy_out,
    output wire           user_clk,                          // 250 MHz (axisten_freq)
    output wire           user_reset,                        // active high, synchronous to user_clk
    output wire           user_lnk_up,
    // requester request (user -> IP)
    input  wire [511:0]   s_axis_rq_tdata,
    input  wire [15:0]    s_axis_rq_tkeep,
    input  wire           s_axis_rq_tlast,
    output wire [3:0]     s_axis_rq_tready,
    input  wire [136:0]   s_axis_rq_tuser,
    input  wire           s_axis_rq_tvalid,
    // requester completion (IP -> user)
    output wire [511:0]   m_axis_rc_tdata,
    output wire [15:0]    m_axis_rc_tkeep,
    output wire           m_axis_rc_tlast,
    input  wire           m_axis_rc_tready,
    output wire [160:0]   m_axis_rc_tuser,
    output wire           m_axis_rc_tvalid,
    // completer request (IP -> user)
    output wire [511:0]   m_axis_cq_tdata,
    output wire [15:0]    m_axis_cq_tkeep,
    output wire           m_axis_cq_tlast,
    input  wire           m_axis_cq_tready,
    output wire [182:0]   m_axis_cq_tuser,
    output wire           m_axis_cq_tvalid,
    // completer completion (user -> IP)
    input  wire [511:0]   s_axis_cc_tdata,
    input  wire [15:0]    s_axis_cc_tkeep,
    input  wire           s_axis_cc_tlast,
    output wire [3:0]     s_axis_cc_tready,
    input  wire [80:0]    s_axis_cc_tuser,
    input  wire           s_axis_cc_tvalid,
    // sequence numbers, tags, flow control
    output wire [5:0]     pcie_rq_seq_num0,
    output wire           pcie_rq_seq_num_vld0,
    output wire [5:0]     pcie_rq_seq_num1,
    output wire           pcie_rq_seq_num_vld1,
    output wire [7:0]     pcie_rq_tag0,
    output wire [7:0]     pcie_rq_tag1,
    output wire [3:0]     pcie_rq_tag_av,
    output wire           pcie_rq_tag_vld0,
    output wire           pcie_rq_tag_vld1,
    output wire [3:0]     pcie_tfc_nph_av,
    output wire [3:0]     pcie_tfc_npd_av,
    input  wire [1:0]     pcie_cq_np_req,
    output wire [5:0]     pcie_cq_np_req_count,
    // configuration status
    output wire           cfg_phy_link_down,
    output wire [1:0]     cfg_phy_link_status,
    output wire [2:0]     cfg_negotiated_width,
    output wire [1:0]     cfg_current_speed,
    output wire [1:0]     cfg_max_payload,                   // 0 = 128 B .. 3 = 1024 B
    output wire [2:0]     cfg_max_read_req,                  // 0 = 128 B .. 5 = 4096 B
    output wire [15:0]    cfg_function_status,               // per PF 4 bits: [2] bus master enable of PF0
    output wire [11:0]    cfg_function_power_state,
    output wire [503:0]   cfg_vf_status,
    output wire [755:0]   cfg_vf_power_state,
    output wire [1:0]     cfg_link_power_state,
    output wire           cfg_err_cor_out,
    output wire           cfg_err_nonfatal_out,
    output wire           cfg_err_fatal_out,
    output wire           cfg_local_error_valid,
    output wire [4:0]     cfg_local_error_out,
    output wire [5:0]     cfg_ltssm_state,
    output wire [1:0]     cfg_rx_pm_state,
    output wire [1:0]     cfg_tx_pm_state,
    output wire [3:0]     cfg_rcb_status,
    output wire [1:0]     cfg_obff_enable,
    output wire           cfg_pl_status_change,
    output wire [3:0]     cfg_tph_requester_enable,
    output wire [11:0]    cfg_tph_st_mode,
    output wire [251:0]   cfg_vf_tph_requester_enable,
    output wire [755:0]   cfg_vf_tph_st_mode,
    // configuration management
    input  wire [9:0]     cfg_mgmt_addr,
    input  wire [7:0]     cfg_mgmt_function_number,
    input  wire           cfg_mgmt_write,
    input  wire [31:0]    cfg_mgmt_write_data,
    input  wire [3:0]     cfg_mgmt_byte_enable,
    input  wire           cfg_mgmt_read,
    output wire [31:0]    cfg_mgmt_read_data,
    output wire           cfg_mgmt_read_write_done,
    input  wire           cfg_mgmt_debug_access,
    // messages and flow-control credits
    output wire           cfg_msg_received,
    output wire [7:0]     cfg_msg_received_data,
    output wire [4:0]     cfg_msg_received_type,
    input  wire           cfg_msg_transmit,
    input  wire [2:0]     cfg_msg_transmit_type,
    input  wire [31:0]    cfg_msg_transmit_data,
    output wire           cfg_msg_transmit_done,
    output wire [7:0]     cfg_fc_ph,
    output wire [11:0]    cfg_fc_pd,
    output wire [7:0]     cfg_fc_nph,
    output wire [11:0]    cfg_fc_npd,
    output wire [7:0]     cfg_fc_cplh,
    output wire [11:0]    cfg_fc_cpld,
    input  wire [2:0]     cfg_fc_sel,
    // configuration control (the inputs Vivado would tie to 0 if left open)
    input  wire [63:0]    cfg_dsn,
    input  wire           cfg_power_state_change_ack,        // must be 1 (or a handshake): else a D-state change never completes
    output wire           cfg_power_state_change_interrupt,
    input  wire           cfg_err_cor_in,
    input  wire           cfg_err_uncor_in,
    output wire [3:0]     cfg_flr_in_process,
    input  wire [3:0]     cfg_flr_done,
    output wire [251:0]   cfg_vf_flr_in_process,
    input  wire [7:0]     cfg_vf_flr_func_num,
    input  wire           cfg_vf_flr_done,
    input  wire           cfg_link_training_enable,          // must be 1: else the link never trains
    // interrupts: legacy (tied off) and MSI-X with the table in user logic (MSI-X_External)
    input  wire [3:0]     cfg_interrupt_int,
    input  wire [3:0]     cfg_interrupt_pending,
    output wire           cfg_interrupt_sent,
    output wire [3:0]     cfg_interrupt_msix_enable,
    output wire [3:0]     cfg_interrupt_msix_mask,
    output wire [251:0]   cfg_interrupt_msix_vf_enable,
    output wire [251:0]   cfg_interrupt_msix_vf_mask,
    input  wire [63:0]    cfg_interrupt_msix_address,
    input  wire [31:0]    cfg_interrupt_msix_data,
    input  wire           cfg_interrupt_msix_int,
    input  wire [1:0]     cfg_interrupt_msix_vec_pending,
    output wire           cfg_interrupt_msix_vec_pending_status,
    output wire           cfg_interrupt_msi_sent,            // MSI-X message sent (shared with MSI)
    output wire           cfg_interrupt_msi_fail,
    input  wire [7:0]     cfg_interrupt_msi_function_number,
    // power management, hot reset, configuration space, downstream port
    input  wire           cfg_pm_aspm_l1_entry_reject,
    input  wire           cfg_pm_aspm_tx_l0s_entry_disable,
    output wire           cfg_hot_reset_out,
    input  wire           cfg_config_space_enable,           // must be 1: else configuration requests get CRS (no enumeration)
    input  wire           cfg_req_pm_transition_l23_ready,
    input  wire           cfg_hot_reset_in,
    input  wire [7:0]     cfg_ds_port_number,
    input  wire [7:0]     cfg_ds_bus_number,
    input  wire [4:0]     cfg_ds_device_number
);
assign pci_exp_txn = 16'd0;
assign pci_exp_txp = 16'd0;
assign phy_rdy_out = 1'b0;
assign user_clk = 1'b0;
assign user_reset = 1'b0;
assign user_lnk_up = 1'b0;
assign s_axis_rq_tready = 4'd0;
assign m_axis_rc_tdata = 512'd0;
assign m_axis_rc_tkeep = 16'd0;
assign m_axis_rc_tlast = 1'b0;
assign m_axis_rc_tuser = 161'd0;
assign m_axis_rc_tvalid = 1'b0;
assign m_axis_cq_tdata = 512'd0;
assign m_axis_cq_tkeep = 16'd0;
assign m_axis_cq_tlast = 1'b0;
assign m_axis_cq_tuser = 183'd0;
assign m_axis_cq_tvalid = 1'b0;
assign s_axis_cc_tready = 4'd0;
assign pcie_rq_seq_num0 = 6'd0;
assign pcie_rq_seq_num_vld0 = 1'b0;
assign pcie_rq_seq_num1 = 6'd0;
assign pcie_rq_seq_num_vld1 = 1'b0;
assign pcie_rq_tag0 = 8'd0;
assign pcie_rq_tag1 = 8'd0;
assign pcie_rq_tag_av = 4'd0;
assign pcie_rq_tag_vld0 = 1'b0;
assign pcie_rq_tag_vld1 = 1'b0;
assign pcie_tfc_nph_av = 4'd0;
assign pcie_tfc_npd_av = 4'd0;
assign pcie_cq_np_req_count = 6'd0;
assign cfg_phy_link_down = 1'b0;
assign cfg_phy_link_status = 2'd0;
assign cfg_negotiated_width = 3'd0;
assign cfg_current_speed = 2'd0;
assign cfg_max_payload = 2'd0;
assign cfg_max_read_req = 3'd0;
assign cfg_function_status = 16'd0;
assign cfg_function_power_state = 12'd0;
assign cfg_vf_status = 504'd0;
assign cfg_vf_power_state = 756'd0;
assign cfg_link_power_state = 2'd0;
assign cfg_err_cor_out = 1'b0;
assign cfg_err_nonfatal_out = 1'b0;
assign cfg_err_fatal_out = 1'b0;
assign cfg_local_error_valid = 1'b0;
assign cfg_local_error_out = 5'd0;
assign cfg_ltssm_state = 6'd0;
assign cfg_rx_pm_state = 2'd0;
assign cfg_tx_pm_state = 2'd0;
assign cfg_rcb_status = 4'd0;
assign cfg_obff_enable = 2'd0;
assign cfg_pl_status_change = 1'b0;
assign cfg_tph_requester_enable = 4'd0;
assign cfg_tph_st_mode = 12'd0;
assign cfg_vf_tph_requester_enable = 252'd0;
assign cfg_vf_tph_st_mode = 756'd0;
assign cfg_mgmt_read_data = 32'd0;
assign cfg_mgmt_read_write_done = 1'b0;
assign cfg_msg_received = 1'b0;
assign cfg_msg_received_data = 8'd0;
assign cfg_msg_received_type = 5'd0;
assign cfg_msg_transmit_done = 1'b0;
assign cfg_fc_ph = 8'd0;
assign cfg_fc_pd = 12'd0;
assign cfg_fc_nph = 8'd0;
assign cfg_fc_npd = 12'd0;
assign cfg_fc_cplh = 8'd0;
assign cfg_fc_cpld = 12'd0;
assign cfg_power_state_change_interrupt = 1'b0;
assign cfg_flr_in_process = 4'd0;
assign cfg_vf_flr_in_process = 252'd0;
assign cfg_interrupt_sent = 1'b0;
assign cfg_interrupt_msix_enable = 4'd0;
assign cfg_interrupt_msix_mask = 4'd0;
assign cfg_interrupt_msix_vf_enable = 252'd0;
assign cfg_interrupt_msix_vf_mask = 252'd0;
assign cfg_interrupt_msix_vec_pending_status = 1'b0;
assign cfg_interrupt_msi_sent = 1'b0;
assign cfg_interrupt_msi_fail = 1'b0;
assign cfg_hot_reset_out = 1'b0;
endmodule
/* verilator lint_on UNUSEDSIGNAL */
`resetall
