// tsnic_xgmii_tx_lag: tsnic_xgmii_tx's line-start report for the launch gate (tsnic_launch_gate
// MAC_LAG): per frame, in order, the time from the stamp point's first-beat handshake to the cycle its
// /S/ is on txd, less the idle line's LAG_BASE_CYC cycles, plus half a word for a lane-4 start, in
// whole ns rounded down (m_lag_valid for one cycle, m_lag_ns). Part of tsnic_xgmii_tx (see there).
//
// - Time: ns + ps (0..999) advancing PERIOD_PS a cycle, so a lag is exact: floor((a - b) / 1000) =
//   (a_ns - b_ns) + floor((a_ps - b_ps) / 1000), the second term -2..1 after the constants.
// - Each frame's handshake time waits in a tsnic_fifo (8 frames; the MAC's two input registers, its
//   lane buffer and an upstream downsizer hold 4 at most) and leaves with the frame's /S/ (sof: the
//   word on txd carries an /S/, sof_lane4: in lane 4). Two register stages, then the report.
// - The handshake: this module's own first beat at s_axis (STAMP_INPUT = 1) or the first of the beats
//   stamp_beat marks, stamp_last giving tlast (STAMP_INPUT = 0).
`resetall
`timescale 1ns / 1ps
`default_nettype none

module tsnic_xgmii_tx_lag #(
    parameter PERIOD_PS    = 6400,   // clk period, ps
    parameter STAMP_INPUT  = 1,      // 1: the handshake is s_axis's; 0: stamp_beat / stamp_last
    parameter LAG_BASE_CYC = 4       // cycles from that handshake to the /S/ word on an idle line
) (
    input  wire        clk,
    input  wire        rst,
    input  wire        s_axis_tvalid,
    input  wire        s_axis_tready,
    input  wire        s_axis_tlast,
    input  wire        stamp_beat,
    input  wire        stamp_last,
    input  wire        sof,
    input  wire        sof_lane4,
    output wire        m_lag_valid,
    output wire [15:0] m_lag_ns
);

localparam integer P_NS = PERIOD_PS / 1000;
localparam integer P_PS = PERIOD_PS % 1000;
localparam integer B_NS = (LAG_BASE_CYC * PERIOD_PS) / 1000;
localparam integer B_PS = (LAG_BASE_CYC * PERIOD_PS) % 1000;
localparam integer H_NS = (PERIOD_PS / 2) / 1000;          // lane 4: half a word later
localparam integer H_PS = (PERIOD_PS / 2) % 1000;

reg  [15:0] t_ns_reg = 16'd0;
reg  [9:0]  t_ps_reg = 10'd0;
wire [10:0] t_ps_sum = {1'b0, t_ps_reg} + P_PS[10:0];
wire        t_carry = (t_ps_sum >= 11'd1000);

reg         s_mid_reg = 1'b0;               // inside a frame at the stamp point
wire        s_fire = (STAMP_INPUT != 0) ? (s_axis_tvalid && s_axis_tready) : stamp_beat;
wire        s_last = (STAMP_INPUT != 0) ? s_axis_tlast : stamp_last;
wire        hs_first = s_fire && !s_mid_reg;

wire        hs_valid;
wire [25:0] hs_time;
wire [3+1:0] unused_hs_count;
wire        unused_hs_ready;
tsnic_fifo #(.WIDTH(26), .ADDR_W(3)) hs_fifo_inst (
    .clk(clk), .rst(rst),
    .s_valid(hs_first), .s_ready(unused_hs_ready), .s_data({t_ns_reg, t_ps_reg}),
    .m_valid(hs_valid), .m_ready(sof), .m_data(hs_time),
    .count(unused_hs_count)
);

// stage 1: the difference at the /S/ word; stage 2: whole ns, less the base, plus lane 4's half word
reg               l1_valid_reg = 1'b0;
reg               l1_lane4_reg = 1'b0;
reg  [15:0]       l1_dns_reg = 16'd0;
reg  signed [11:0] l1_dps_reg = 12'sd0;      // -999..999
reg               lag_valid_reg = 1'b0;
reg  [15:0]       lag_ns_reg = 16'd0;

localparam signed [12:0] B_PS13 = B_PS[12:0];
localparam signed [12:0] H_PS13 = H_PS[12:0];
localparam signed [17:0] B_NS18 = B_NS[17:0];
localparam signed [17:0] H_NS18 = H_NS[17:0];
wire signed [12:0] l2_frac = {l1_dps_reg[11], l1_dps_reg} - B_PS13 + (l1_lane4_reg ? H_PS13 : 13'sd0);
wire signed [2:0]  l2_adj = (l2_frac < -13'sd1000) ? -3'sd2 : (l2_frac < 13'sd0) ? -3'sd1
                          : (l2_frac >= 13'sd1000) ? 3'sd1 : 3'sd0;
wire signed [17:0] l2_lag = $signed({2'b00, l1_dns_reg}) - B_NS18 + (l1_lane4_reg ? H_NS18 : 18'sd0)
                          + {{15{l2_adj[2]}}, l2_adj};

always @(posedge clk) begin
    t_ps_reg <= t_carry ? t_ps_sum[9:0] - 10'd1000 : t_ps_sum[9:0];
    t_ns_reg <= t_ns_reg + P_NS[15:0] + {15'd0, t_carry};
    if (s_fire) s_mid_reg <= !s_last;
    l1_valid_reg <= sof && hs_valid;
    l1_lane4_reg <= sof_lane4;
    l1_dns_reg <= t_ns_reg - hs_time[25:10];
    l1_dps_reg <= $signed({2'b00, t_ps_reg}) - $signed({2'b00, hs_time[9:0]});
    lag_valid_reg <= l1_valid_reg;
    lag_ns_reg <= l2_lag[17] ? 16'd0 : (|l2_lag[16:16] ? 16'hFFFF : l2_lag[15:0]);
    if (rst) begin
        s_mid_reg <= 1'b0;
        l1_valid_reg <= 1'b0;
        lag_valid_reg <= 1'b0;
    end
end

assign m_lag_valid = lag_valid_reg;
assign m_lag_ns = lag_ns_reg;

/* verilator lint_off UNUSEDSIGNAL */
wire unused_ok = &{1'b0, unused_hs_count, unused_hs_ready,   // and the handshake STAMP_INPUT does not use
                   stamp_beat, stamp_last, s_axis_tvalid, s_axis_tready, s_axis_tlast};
/* verilator lint_on UNUSEDSIGNAL */

endmodule

`resetall
