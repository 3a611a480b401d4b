// Lint stub of the pcie3_7x IP as board/<board>/ip/*.tcl generates it (module name pcie3_7x_0): the user-side ports
// the board tops use, named and sized as PG023 (Virtex-7 FPGA Gen3 Integrated Block for PCI Express), 256-bit interface, Gen3 x8, shared logic (PIPE clock) in the core documents them. Ports not listed here are left
// unconnected in the tops (Vivado accepts an instance that omits ports). No behaviour: outputs are zero.
`resetall
`timescale 1ns / 1ps
`default_nettype none
/* verilator lint_off UNUSEDSIGNAL */
module pcie3_7x_0 (
    output wire [7:0]   pci_exp_txn,
    output wire [7:0]   pci_exp_txp,
    input  wire [7:0]   pci_exp_rxn,
    input  wire [7:0]   pci_exp_rxp,
    input  wire         sys_clk,        // IBUFDS_GTE2 O, 100 MHz
    input  wire         sys_reset,      // active high (PG023): !PERST#
    output wire         user_clk,       // 250 MHz
    output wire         user_reset,
    output wire         user_lnk_up,
    output wire         user_app_rdy,
    input  wire [255:0] s_axis_rq_tdata,
    input  wire [7:0]   s_axis_rq_tkeep,
    input  wire         s_axis_rq_tlast,
    output wire [3:0]   s_axis_rq_tready,
    input  wire [59:0]  s_axis_rq_tuser,
    input  wire         s_axis_rq_tvalid,
    output wire [255:0] m_axis_rc_tdata,
    output wire [7:0]   m_axis_rc_tkeep,
    output wire         m_axis_rc_tlast,
    input  wire         m_axis_rc_tready,
    output wire [74:0]  m_axis_rc_tuser,
    output wire         m_axis_rc_tvalid,
    output wire [255:0] m_axis_cq_tdata,
    output wire [7:0]   m_axis_cq_tkeep,
    output wire         m_axis_cq_tlast,
    input  wire         m_axis_cq_tready,
    output wire [84:0]  m_axis_cq_tuser,
    output wire         m_axis_cq_tvalid,
    input  wire [255:0] s_axis_cc_tdata,
    input  wire [7:0]   s_axis_cc_tkeep,
    input  wire         s_axis_cc_tlast,
    output wire [3:0]   s_axis_cc_tready,
    input  wire [32:0]  s_axis_cc_tuser,
    input  wire         s_axis_cc_tvalid,
    input  wire         pcie_cq_np_req,
    output wire [5:0]   pcie_cq_np_req_count,
    output wire         cfg_phy_link_down,
    output wire [1:0]   cfg_phy_link_status,
    output wire [3:0]   cfg_negotiated_width,
    output wire [2:0]   cfg_current_speed,
    output wire [2:0]   cfg_max_payload,    // 0 = 128 B .. 3 = 1024 B
    output wire [2:0]   cfg_max_read_req,   // 0 = 128 B .. 5 = 4096 B
    output wire [7:0]   cfg_function_status, // per PF 4 bits: [2] bus master enable of PF0
    output wire [5:0]   cfg_ltssm_state,
    input  wire [3:0]   cfg_interrupt_int,
    input  wire [1:0]   cfg_interrupt_pending,
    output wire         cfg_interrupt_sent,
    output wire [1:0]   cfg_interrupt_msix_enable,
    output wire [1:0]   cfg_interrupt_msix_mask,
    output wire [5:0]   cfg_interrupt_msix_vf_enable,
    output wire [5:0]   cfg_interrupt_msix_vf_mask,
    input  wire [31:0]  cfg_interrupt_msix_data,
    input  wire [63:0]  cfg_interrupt_msix_address,
    input  wire         cfg_interrupt_msix_int,
    output wire         cfg_interrupt_msix_sent,
    output wire         cfg_interrupt_msix_fail,
    // inputs the top ties (PG023 configuration ports; the full list: board/common/stubs, issue 30)
    input  wire         cfg_link_training_enable,
    input  wire         cfg_config_space_enable,
    input  wire         cfg_power_state_change_ack,
    input  wire [63:0]  cfg_dsn,
    input  wire [1:0]   cfg_flr_done,
    input  wire [5:0]   cfg_vf_flr_done,
    input  wire         cfg_err_cor_in,
    input  wire         cfg_err_uncor_in,
    input  wire [2:0]   cfg_interrupt_msi_function_number,
    input  wire [15:0]  cfg_subsys_vend_id,
    input  wire [18:0]  cfg_mgmt_addr,
    input  wire         cfg_mgmt_write,
    input  wire [31:0]  cfg_mgmt_write_data,
    input  wire [3:0]   cfg_mgmt_byte_enable,
    input  wire         cfg_mgmt_read,
    input  wire         cfg_mgmt_type1_cfg_reg_access,
    input  wire         cfg_msg_transmit,
    input  wire [2:0]   cfg_msg_transmit_type,
    input  wire [31:0]  cfg_msg_transmit_data,
    input  wire [2:0]   cfg_fc_sel,
    input  wire [2:0]   cfg_per_func_status_control,
    input  wire [2:0]   cfg_per_function_number,
    input  wire         cfg_per_function_output_request,
    input  wire         cfg_req_pm_transition_l23_ready,
    input  wire         cfg_hot_reset_in,
    input  wire [7:0]   cfg_ds_port_number,
    input  wire [7:0]   cfg_ds_bus_number,
    input  wire [4:0]   cfg_ds_device_number,
    input  wire [2:0]   cfg_ds_function_number,
    input  wire [7:0]   int_pclk_sel_slave
);
assign pci_exp_txn = 8'd0;
assign pci_exp_txp = 8'd0;
assign user_clk = 1'b0;
assign user_reset = 1'b0;
assign user_lnk_up = 1'b0;
assign user_app_rdy = 1'b0;
assign s_axis_rq_tready = 4'd0;
assign m_axis_rc_tdata = 256'd0;
assign m_axis_rc_tkeep = 8'd0;
assign m_axis_rc_tlast = 1'b0;
assign m_axis_rc_tuser = 75'd0;
assign m_axis_rc_tvalid = 1'b0;
assign m_axis_cq_tdata = 256'd0;
assign m_axis_cq_tkeep = 8'd0;
assign m_axis_cq_tlast = 1'b0;
assign m_axis_cq_tuser = 85'd0;
assign m_axis_cq_tvalid = 1'b0;
assign s_axis_cc_tready = 4'd0;
assign pcie_cq_np_req_count = 6'd0;
assign cfg_phy_link_down = 1'b0;
assign cfg_phy_link_status = 2'd0;
assign cfg_negotiated_width = 4'd0;
assign cfg_current_speed = 3'd0;
assign cfg_max_payload = 3'd0;
assign cfg_max_read_req = 3'd0;
assign cfg_function_status = 8'd0;
assign cfg_ltssm_state = 6'd0;
assign cfg_interrupt_sent = 1'b0;
assign cfg_interrupt_msix_enable = 2'd0;
assign cfg_interrupt_msix_mask = 2'd0;
assign cfg_interrupt_msix_vf_enable = 6'd0;
assign cfg_interrupt_msix_vf_mask = 6'd0;
assign cfg_interrupt_msix_sent = 1'b0;
assign cfg_interrupt_msix_fail = 1'b0;
endmodule
