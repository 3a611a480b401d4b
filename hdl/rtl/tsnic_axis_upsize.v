// tsnic_axis_upsize: AXI-Stream width up-conversion, IN_W bits to OUT_W bits (OUT_W a multiple of
// IN_W), one clock. Used by tsnic_board_core between a narrow MAC's RX stream (64-bit XGMII MAC,
// after the crossing into the core clock) and the core's RX input (as wide as the PCIe datapath).
//
// - Input beats must be packed: contiguous tkeep from bit 0, only a frame's last beat partial (what
//   tsnic_xgmii_rx / tsnic_mac_rx give). RATIO = OUT_W / IN_W input beats fill one output beat, which
//   leaves when it is full or holds the frame's last input beat (then with tlast and its tkeep).
// - tuser: bit 0 (bad frame) is ORed over the input beats of an output beat; bits [USER_W-1:1] (the
//   arrival stamp, meaningful on a frame's first beat) are those of the output beat's first input beat.
//   So an output frame's first beat carries the input frame's first-beat stamp.
// - Throughput: one input beat per cycle while the output is taken (s_axis_tready = output register
//   free or being taken this cycle); the output side then sees one beat per RATIO input beats.
`resetall
`timescale 1ns / 1ps
`default_nettype none

module tsnic_axis_upsize #(
    parameter IN_W   = 64,
    parameter OUT_W  = 512,
    parameter USER_W = 65
) (
    input  wire                 clk,
    input  wire                 rst,
    input  wire [IN_W-1:0]      s_axis_tdata,
    input  wire [IN_W/8-1:0]    s_axis_tkeep,
    input  wire                 s_axis_tvalid,
    output wire                 s_axis_tready,
    input  wire                 s_axis_tlast,
    input  wire [USER_W-1:0]    s_axis_tuser,
    output wire [OUT_W-1:0]     m_axis_tdata,
    output wire [OUT_W/8-1:0]   m_axis_tkeep,
    output wire                 m_axis_tvalid,
    input  wire                 m_axis_tready,
    output wire                 m_axis_tlast,
    output wire [USER_W-1:0]    m_axis_tuser
);

localparam RATIO = OUT_W / IN_W;
localparam IN_K  = IN_W / 8;
localparam CNT_W = (RATIO > 1) ? $clog2(RATIO) : 1;
localparam [31:0] LAST_SEG_32 = RATIO - 1;
localparam [CNT_W-1:0] LAST_SEG = LAST_SEG_32[CNT_W-1:0];

generate
    if (RATIO < 1 || RATIO * IN_W != OUT_W || IN_W % 8 != 0) begin : g_bad_width
        tsnic_param_error_upsize_out_w_multiple_of_in_w bad_width_inst ();
    end
    if (USER_W < 1) begin : g_bad_user
        tsnic_param_error_upsize_user_w_at_least_1 bad_user_inst ();
    end
endgenerate

// the beat being filled
reg [OUT_W-1:0]   acc_data_reg = {OUT_W{1'b0}};
reg [OUT_W/8-1:0] acc_keep_reg = {(OUT_W/8){1'b0}};
reg [USER_W-1:0]  acc_user_reg = {USER_W{1'b0}};
reg [CNT_W-1:0]   acc_cnt_reg = {CNT_W{1'b0}};
// the beat offered
reg [OUT_W-1:0]   out_data_reg = {OUT_W{1'b0}};
reg [OUT_W/8-1:0] out_keep_reg = {(OUT_W/8){1'b0}};
reg [USER_W-1:0]  out_user_reg = {USER_W{1'b0}};
reg               out_last_reg = 1'b0;
reg               out_valid_reg = 1'b0;

assign s_axis_tready = !out_valid_reg || m_axis_tready;
assign m_axis_tdata  = out_data_reg;
assign m_axis_tkeep  = out_keep_reg;
assign m_axis_tvalid = out_valid_reg;
assign m_axis_tlast  = out_last_reg;
assign m_axis_tuser  = out_user_reg;

wire take = s_axis_tvalid && s_axis_tready;
wire done = s_axis_tlast || (acc_cnt_reg == LAST_SEG);

// the current beat merged into the one being filled (segments above it are zero)
reg [OUT_W-1:0]   merged_data;
reg [OUT_W/8-1:0] merged_keep;
reg [USER_W-1:0]  merged_user;
integer i;
always @* begin
    merged_data = acc_data_reg;
    merged_keep = acc_keep_reg;
    for (i = 0; i < RATIO; i = i + 1) begin
        if ({{(32-CNT_W){1'b0}}, acc_cnt_reg} == i) begin
            merged_data[i*IN_W +: IN_W] = s_axis_tdata;
            merged_keep[i*IN_K +: IN_K] = s_axis_tkeep;
        end
    end
    merged_user = acc_user_reg;
    if (acc_cnt_reg == {CNT_W{1'b0}}) merged_user = s_axis_tuser;
    else merged_user[0] = acc_user_reg[0] | s_axis_tuser[0];
end

always @(posedge clk) begin
    if (m_axis_tready) out_valid_reg <= 1'b0;
    if (take) begin
        if (done) begin
            out_data_reg <= merged_data;
            out_keep_reg <= merged_keep;
            out_user_reg <= merged_user;
            out_last_reg <= s_axis_tlast;
            out_valid_reg <= 1'b1;
            acc_data_reg <= {OUT_W{1'b0}};
            acc_keep_reg <= {(OUT_W/8){1'b0}};
            acc_user_reg <= {USER_W{1'b0}};
            acc_cnt_reg <= {CNT_W{1'b0}};
        end else begin
            acc_data_reg <= merged_data;
            acc_keep_reg <= merged_keep;
            acc_user_reg <= merged_user;
            acc_cnt_reg <= acc_cnt_reg + 1'b1;
        end
    end
    if (rst) begin
        out_valid_reg <= 1'b0;
        acc_keep_reg <= {(OUT_W/8){1'b0}};
        acc_user_reg <= {USER_W{1'b0}};
        acc_cnt_reg <= {CNT_W{1'b0}};
    end
end

endmodule

`resetall
