// Lint stub of the pcie3_7x IP (Virtex-7 Gen3 integrated block) as board/netfpga_sume/ip/pcie3_7x_0.tcl
// generates it: Gen3 x8, 256-bit interface, MSI-X (table in user logic), shared logic (PIPE clock) in the
// core. Every port of that configuration, so board/lint.sh sees any port the top leaves out (Verilator
// PINMISSING) or leaves empty (PINCONNECTEMPTY on an input). Sources (PG023 names these ports):
// - names, directions, widths: the Xilinx-generated instantiation template of pcie3_7x at x8 / 256 bit
//   (warclab/dyract hw/vivado_flow/13.4/vc709/dyract.srcs/sources_1/ip/pcie3_7x_0/pcie3_7x_0.veo; note
//   m_axis_cq_tready and m_axis_rc_tready are 22 bits there), with its MSI ports replaced by the MSI-X ones
//   of Corundum's fpga/mqnic/NetFPGA_SUME/fpga/rtl/fpga.v instance (same block, x8 / 256 bit, MSI-X); the
//   port set equals that instance's minus its pipe_*_in/out ports (shared logic outside the core there);
// - shared logic in core: the int_* ports as a public direct instance of pcie3_7x_0 with that option
//   connects them (find_string "int_pclk_sel_slave": an x8 design, int_pclk_sel_slave [7:0]).
// pipe_mmcm_rst_n (the PIPE MMCM's active-low reset; an input of the template above) is listed although
// that core-mode instance does not name it: were the port there and left open, Vivado would tie it to 0
// and hold the PIPE clock's MMCM in reset; were it not there, synthesis stops naming it (then delete it
// here and in the top). Only a generated IP can tell (docs/BOARDS.md). Not listed: int_mmcm_lock_out (an
// output, unconfirmed) and cfg_ext_* (only with the extended configuration interface, not enabled by
// ip/pcie3_7x_0.tcl). No behaviour: outputs are zero.
`resetall
`timescale 1ns / 1ps
`default_nettype none
/* verilator lint_off UNUSEDSIGNAL */
module pcie3_7x_0 (
    // PCIe lanes, clocks, resets
    output wire [7:0]     pci_exp_txn,
    output wire [7:0]     pci_exp_txp,
    input  wire [7:0]     pci_exp_rxn,
    input  wire [7:0]     pci_exp_rxp,
    input  wire           sys_clk,                           // IBUFDS_GTE2 O, 100 MHz
    input  wire           sys_reset,                         // active high (PG023): !PERST#
    output wire           mmcm_lock,
    output wire           user_clk,                          // 250 MHz
    output wire           user_reset,
    output wire           user_lnk_up,
    output wire           user_app_rdy,
    // PIPE clock module shared from the core (shared_logic_in_core)
    output wire           int_pclk_out_slave,
    output wire           int_pipe_rxusrclk_out,
    output wire [7:0]     int_rxoutclk_out,
    output wire           int_dclk_out,
    output wire           int_userclk1_out,
    output wire           int_userclk2_out,
    output wire           int_oobclk_out,
    output wire [1:0]     int_qplllock_out,
    output wire [1:0]     int_qplloutclk_out,
    output wire [1:0]     int_qplloutrefclk_out,
    input  wire [7:0]     int_pclk_sel_slave,
    input  wire           pipe_mmcm_rst_n,                   // active low; unconfirmed in this variant (see the header)
    // requester request (user -> IP)
    input  wire [255:0]   s_axis_rq_tdata,
    input  wire [7:0]     s_axis_rq_tkeep,
    input  wire           s_axis_rq_tlast,
    output wire [3:0]     s_axis_rq_tready,
    input  wire [59:0]    s_axis_rq_tuser,
    input  wire           s_axis_rq_tvalid,
    // requester completion (IP -> user)
    output wire [255:0]   m_axis_rc_tdata,
    output wire [7:0]     m_axis_rc_tkeep,
    output wire           m_axis_rc_tlast,
    input  wire [21:0]    m_axis_rc_tready,                  // 22 bits (Xilinx template); all driven alike
    output wire [74:0]    m_axis_rc_tuser,
    output wire           m_axis_rc_tvalid,
    // completer request (IP -> user)
    output wire [255:0]   m_axis_cq_tdata,
    output wire [7:0]     m_axis_cq_tkeep,
    output wire           m_axis_cq_tlast,
    input  wire [21:0]    m_axis_cq_tready,                  // 22 bits (Xilinx template); all driven alike
    output wire [84:0]    m_axis_cq_tuser,
    output wire           m_axis_cq_tvalid,
    // completer completion (user -> IP)
    input  wire [255:0]   s_axis_cc_tdata,
    input  wire [7:0]     s_axis_cc_tkeep,
    input  wire           s_axis_cc_tlast,
    output wire [3:0]     s_axis_cc_tready,
    input  wire [32:0]    s_axis_cc_tuser,
    input  wire           s_axis_cc_tvalid,
    // sequence numbers, tags, flow control
    output wire [3:0]     pcie_rq_seq_num,
    output wire           pcie_rq_seq_num_vld,
    output wire [5:0]     pcie_rq_tag,
    output wire           pcie_rq_tag_vld,
    output wire [1:0]     pcie_tfc_nph_av,
    output wire [1:0]     pcie_tfc_npd_av,
    input  wire           pcie_cq_np_req,
    output wire [5:0]     pcie_cq_np_req_count,
    // configuration status
    output wire           cfg_phy_link_down,
    output wire [1:0]     cfg_phy_link_status,
    output wire [3:0]     cfg_negotiated_width,
    output wire [2:0]     cfg_current_speed,
    output wire [2:0]     cfg_max_payload,                   // 0 = 128 B .. 3 = 1024 B
    output wire [2:0]     cfg_max_read_req,                  // 0 = 128 B .. 5 = 4096 B
    output wire [7:0]     cfg_function_status,               // per PF 4 bits: [2] bus master enable of PF0
    output wire [5:0]     cfg_function_power_state,
    output wire [11:0]    cfg_vf_status,
    output wire [17:0]    cfg_vf_power_state,
    output wire [1:0]     cfg_link_power_state,
    output wire           cfg_err_cor_out,
    output wire           cfg_err_nonfatal_out,
    output wire           cfg_err_fatal_out,
    output wire           cfg_ltr_enable,
    output wire [5:0]     cfg_ltssm_state,
    output wire [1:0]     cfg_rcb_status,
    output wire [1:0]     cfg_dpa_substate_change,
    output wire [1:0]     cfg_obff_enable,
    output wire           cfg_pl_status_change,
    output wire [1:0]     cfg_tph_requester_enable,
    output wire [5:0]     cfg_tph_st_mode,
    output wire [5:0]     cfg_vf_tph_requester_enable,
    output wire [17:0]    cfg_vf_tph_st_mode,
    // configuration management
    input  wire [18:0]    cfg_mgmt_addr,
    input  wire           cfg_mgmt_write,
    input  wire [31:0]    cfg_mgmt_write_data,
    input  wire [3:0]     cfg_mgmt_byte_enable,
    input  wire           cfg_mgmt_read,
    output wire [31:0]    cfg_mgmt_read_data,
    output wire           cfg_mgmt_read_write_done,
    input  wire           cfg_mgmt_type1_cfg_reg_access,
    // messages, flow-control credits, per-function status
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
    input  wire [2:0]     cfg_per_func_status_control,
    output wire [15:0]    cfg_per_func_status_data,
    input  wire [2:0]     cfg_per_function_number,
    input  wire           cfg_per_function_output_request,
    output wire           cfg_per_function_update_done,
    // configuration control (the inputs Vivado would tie to 0 if left open)
    input  wire [63:0]    cfg_dsn,
    input  wire           cfg_power_state_change_ack,        // must be 1 (or a handshake): else a D-state change never completes
    output wire           cfg_power_state_change_interrupt,
    input  wire           cfg_err_cor_in,
    input  wire           cfg_err_uncor_in,
    output wire [1:0]     cfg_flr_in_process,
    input  wire [1:0]     cfg_flr_done,
    output wire [5:0]     cfg_vf_flr_in_process,
    input  wire [5:0]     cfg_vf_flr_done,
    input  wire           cfg_link_training_enable,          // must be 1: else the link never trains
    input  wire [15:0]    cfg_subsys_vend_id,
    // interrupts: legacy (tied off) and MSI-X with the table in user logic
    input  wire [3:0]     cfg_interrupt_int,
    input  wire [1:0]     cfg_interrupt_pending,
    output wire           cfg_interrupt_sent,
    output wire [1:0]     cfg_interrupt_msix_enable,
    output wire [1:0]     cfg_interrupt_msix_mask,
    output wire [5:0]     cfg_interrupt_msix_vf_enable,
    output wire [5:0]     cfg_interrupt_msix_vf_mask,
    input  wire [63:0]    cfg_interrupt_msix_address,
    input  wire [31:0]    cfg_interrupt_msix_data,
    input  wire           cfg_interrupt_msix_int,
    output wire           cfg_interrupt_msix_sent,
    output wire           cfg_interrupt_msix_fail,
    input  wire [2:0]     cfg_interrupt_msi_function_number,
    // power management, hot reset, configuration space, downstream port
    output wire           cfg_hot_reset_out,
    input  wire           cfg_config_space_enable,           // must be 1: else configuration requests get CRS (no enumeration)
    input  wire           cfg_req_pm_transition_l23_ready,
    input  wire           cfg_hot_reset_in,
    input  wire [7:0]     cfg_ds_port_number,
    input  wire [7:0]     cfg_ds_bus_number,
    input  wire [4:0]     cfg_ds_device_number,
    input  wire [2:0]     cfg_ds_function_number
);
assign pci_exp_txn = 8'd0;
assign pci_exp_txp = 8'd0;
assign mmcm_lock = 1'b0;
assign user_clk = 1'b0;
assign user_reset = 1'b0;
assign user_lnk_up = 1'b0;
assign user_app_rdy = 1'b0;
assign int_pclk_out_slave = 1'b0;
assign int_pipe_rxusrclk_out = 1'b0;
assign int_rxoutclk_out = 8'd0;
assign int_dclk_out = 1'b0;
assign int_userclk1_out = 1'b0;
assign int_userclk2_out = 1'b0;
assign int_oobclk_out = 1'b0;
assign int_qplllock_out = 2'd0;
assign int_qplloutclk_out = 2'd0;
assign int_qplloutrefclk_out = 2'd0;
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
assign pcie_rq_seq_num = 4'd0;
assign pcie_rq_seq_num_vld = 1'b0;
assign pcie_rq_tag = 6'd0;
assign pcie_rq_tag_vld = 1'b0;
assign pcie_tfc_nph_av = 2'd0;
assign pcie_tfc_npd_av = 2'd0;
assign pcie_cq_np_req_count = 6'd0;
assign cfg_phy_link_down = 1'b0;
assign cfg_phy_link_status = 2'd0;
assign cfg_negotiated_width = 4'd0;
assign cfg_current_speed = 3'd0;
assign cfg_max_payload = 3'd0;
assign cfg_max_read_req = 3'd0;
assign cfg_function_status = 8'd0;
assign cfg_function_power_state = 6'd0;
assign cfg_vf_status = 12'd0;
assign cfg_vf_power_state = 18'd0;
assign cfg_link_power_state = 2'd0;
assign cfg_err_cor_out = 1'b0;
assign cfg_err_nonfatal_out = 1'b0;
assign cfg_err_fatal_out = 1'b0;
assign cfg_ltr_enable = 1'b0;
assign cfg_ltssm_state = 6'd0;
assign cfg_rcb_status = 2'd0;
assign cfg_dpa_substate_change = 2'd0;
assign cfg_obff_enable = 2'd0;
assign cfg_pl_status_change = 1'b0;
assign cfg_tph_requester_enable = 2'd0;
assign cfg_tph_st_mode = 6'd0;
assign cfg_vf_tph_requester_enable = 6'd0;
assign cfg_vf_tph_st_mode = 18'd0;
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
assign cfg_per_func_status_data = 16'd0;
assign cfg_per_function_update_done = 1'b0;
assign cfg_power_state_change_interrupt = 1'b0;
assign cfg_flr_in_process = 2'd0;
assign cfg_vf_flr_in_process = 6'd0;
assign cfg_interrupt_sent = 1'b0;
assign cfg_interrupt_msix_enable = 2'd0;
assign cfg_interrupt_msix_mask = 2'd0;
assign cfg_interrupt_msix_vf_enable = 6'd0;
assign cfg_interrupt_msix_vf_mask = 6'd0;
assign cfg_interrupt_msix_sent = 1'b0;
assign cfg_interrupt_msix_fail = 1'b0;
assign cfg_hot_reset_out = 1'b0;
endmodule
/* verilator lint_on UNUSEDSIGNAL */
`resetall
