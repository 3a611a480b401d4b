// Lint stub of the pcie4c_uscale_plus IP as board/<board>/ip/*.tcl generates it (module name pcie4c_uscale_plus_0): the user-side ports
// the board tops use, named and sized as PG213 (UltraScale+ Devices Integrated Block for PCI Express), 512-bit interface, Gen3 x16 documents them. Ports not listed here are left
// unconnected in the tops (Vivado accepts an instance that omits ports). No behaviour: outputs are zero.
`resetall
`timescale 1ns / 1ps
`default_nettype none
/* verilator lint_off UNUSEDSIGNAL */
module pcie4c_uscale_plus_0 (
    // PCIe lanes and system clock/reset
    output wire [15:0]  pci_exp_txn,
    output wire [15:0]  pci_exp_txp,
    input  wire [15:0]  pci_exp_rxn,
    input  wire [15:0]  pci_exp_rxp,
    input  wire         sys_clk,        // IBUFDS_GTE4 ODIV2 straight (the IP has its own BUFG_GT)
    input  wire         sys_clk_gt,     // IBUFDS_GTE4 O
    input  wire         sys_reset,      // PERST#, active low (PG213)
    output wire         phy_rdy_out,
    // user clock
    output wire         user_clk,       // 250 MHz (axisten_freq)
    output wire         user_reset,     // active high, synchronous to user_clk
    output wire         user_lnk_up,
    // requester request (user -> IP)
    input  wire [511:0] s_axis_rq_tdata,
    input  wire [15:0]  s_axis_rq_tkeep,
    input  wire         s_axis_rq_tlast,
    output wire [3:0]   s_axis_rq_tready,
    input  wire [136:0] s_axis_rq_tuser,
    input  wire         s_axis_rq_tvalid,
    // requester completion (IP -> user)
    output wire [511:0] m_axis_rc_tdata,
    output wire [15:0]  m_axis_rc_tkeep,
    output wire         m_axis_rc_tlast,
    input  wire         m_axis_rc_tready,
    output wire [160:0] m_axis_rc_tuser,
    output wire         m_axis_rc_tvalid,
    // completer request (IP -> user)
    output wire [511:0] m_axis_cq_tdata,
    output wire [15:0]  m_axis_cq_tkeep,
    output wire         m_axis_cq_tlast,
    input  wire         m_axis_cq_tready,
    output wire [182:0] m_axis_cq_tuser,
    output wire         m_axis_cq_tvalid,
    // completer completion (user -> IP)
    input  wire [511:0] s_axis_cc_tdata,
    input  wire [15:0]  s_axis_cc_tkeep,
    input  wire         s_axis_cc_tlast,
    output wire [3:0]   s_axis_cc_tready,
    input  wire [80:0]  s_axis_cc_tuser,
    input  wire         s_axis_cc_tvalid,
    // flow control of non-posted requests on CQ
    input  wire [1:0]   pcie_cq_np_req,
    output wire [5:0]   pcie_cq_np_req_count,
    // configuration status
    output wire         cfg_phy_link_down,
    output wire [1:0]   cfg_phy_link_status,
    output wire [2:0]   cfg_negotiated_width,
    output wire [1:0]   cfg_current_speed,
    output wire [1:0]   cfg_max_payload,    // 0 = 128 B .. 3 = 1024 B
    output wire [2:0]   cfg_max_read_req,   // 0 = 128 B .. 5 = 4096 B
    output wire [15:0]  cfg_function_status, // per PF 4 bits: [2] bus master enable of PF0
    output wire [5:0]   cfg_ltssm_state,
    // legacy interrupt (unused: tied off)
    input  wire [3:0]   cfg_interrupt_int,
    input  wire [3:0]   cfg_interrupt_pending,
    output wire         cfg_interrupt_sent,
    // MSI-X, table and PBA in user logic (the IP's MSI-X "external" mode)
    output wire [3:0]   cfg_interrupt_msix_enable,
    output wire [3:0]   cfg_interrupt_msix_mask,
    input  wire [31:0]  cfg_interrupt_msix_data,
    input  wire [63:0]  cfg_interrupt_msix_address,
    input  wire         cfg_interrupt_msix_int,
    input  wire [1:0]   cfg_interrupt_msix_vec_pending,
    output wire         cfg_interrupt_msix_vec_pending_status,
    output wire         cfg_interrupt_msi_sent,   // MSI-X message sent (shared with MSI)
    output wire         cfg_interrupt_msi_fail,
    // inputs the top ties (PG213 configuration ports; the full list: board/common/stubs, issue 30)
    input  wire         cfg_link_training_enable,
    input  wire         cfg_config_space_enable,
    input  wire         cfg_power_state_change_ack,
    input  wire [63:0]  cfg_dsn,
    input  wire [3:0]   cfg_flr_done,
    input  wire [0:0]   cfg_vf_flr_done,
    input  wire [7:0]   cfg_vf_flr_func_num,
    input  wire         cfg_err_cor_in,
    input  wire         cfg_err_uncor_in,
    input  wire [9:0]   cfg_mgmt_addr,
    input  wire [7:0]   cfg_mgmt_function_number,
    input  wire         cfg_mgmt_write,
    input  wire [31:0]  cfg_mgmt_write_data,
    input  wire [3:0]   cfg_mgmt_byte_enable,
    input  wire         cfg_mgmt_read,
    input  wire         cfg_mgmt_debug_access,
    input  wire         cfg_msg_transmit,
    input  wire [2:0]   cfg_msg_transmit_type,
    input  wire [31:0]  cfg_msg_transmit_data,
    input  wire [2:0]   cfg_fc_sel,
    input  wire         cfg_pm_aspm_l1_entry_reject,
    input  wire         cfg_pm_aspm_tx_l0s_entry_disable,
    input  wire         cfg_req_pm_transition_l23_ready,
    input  wire         cfg_hot_reset_in,
    input  wire [7:0]   cfg_ds_port_number,
    input  wire [7:0]   cfg_ds_bus_number,
    input  wire [4:0]   cfg_ds_device_number,
    input  wire [7:0]   cfg_interrupt_msi_function_number
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
assign pcie_cq_np_req_count = 6'd0;
assign cfg_phy_link_down = 1'b0;
assign cfg_phy_link_status = 2'd0;
assign cfg_negotiated_width = 3'd0;
assign cfg_current_speed = 2'd0;
assign cfg_max_payload = 2'd0;
assign cfg_max_read_req = 3'd0;
assign cfg_function_status = 16'd0;
assign cfg_ltssm_state = 6'd0;
assign cfg_interrupt_sent = 1'b0;
assign cfg_interrupt_msix_enable = 4'd0;
assign cfg_interrupt_msix_mask = 4'd0;
assign cfg_interrupt_msix_vec_pending_status = 1'b0;
assign cfg_interrupt_msi_sent = 1'b0;
assign cfg_interrupt_msi_fail = 1'b0;
endmodule
