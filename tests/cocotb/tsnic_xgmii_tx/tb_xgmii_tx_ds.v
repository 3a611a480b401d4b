// Bench wrapper: the SUME / Alveo-10G TX arrangement, the launch gate's wide stream through
// tsnic_axis_downsize (board/common/rtl) into tsnic_xgmii_tx, which reports each frame's line start
// from the first-beat handshake at the wide input (the launch gate's stamp point): STAMP_INPUT = 0,
// LAG_BASE_CYC = 5 (one cycle in the downsizer, four in the MAC).
`resetall
`timescale 1ns / 1ps
`default_nettype none

module tb_xgmii_tx_ds #(
    parameter IN_W = 256
) (
    input  wire              clk,
    input  wire              rst,
    input  wire [IN_W-1:0]   s_axis_tdata,
    input  wire [IN_W/8-1:0] s_axis_tkeep,
    input  wire              s_axis_tlast,
    input  wire              s_axis_tvalid,
    output wire              s_axis_tready,
    output wire [63:0]       xgmii_txd,
    output wire [7:0]        xgmii_txc,
    output wire              sof,
    output wire              m_lag_valid,
    output wire [15:0]       m_lag_ns
);

wire [63:0] n_tdata;
wire [7:0]  n_tkeep;
wire        n_tvalid, n_tready, n_tlast;

tsnic_axis_downsize #(.IN_W(IN_W), .OUT_W(64)) ds_inst (
    .clk(clk), .rst(rst),
    .s_axis_tdata(s_axis_tdata), .s_axis_tkeep(s_axis_tkeep), .s_axis_tvalid(s_axis_tvalid),
    .s_axis_tready(s_axis_tready), .s_axis_tlast(s_axis_tlast),
    .m_axis_tdata(n_tdata), .m_axis_tkeep(n_tkeep), .m_axis_tvalid(n_tvalid),
    .m_axis_tready(n_tready), .m_axis_tlast(n_tlast)
);

tsnic_xgmii_tx #(.STAMP_INPUT(0), .LAG_BASE_CYC(5)) mac_inst (
    .clk(clk), .rst(rst),
    .s_axis_tdata(n_tdata), .s_axis_tkeep(n_tkeep), .s_axis_tlast(n_tlast),
    .s_axis_tvalid(n_tvalid), .s_axis_tready(n_tready),
    .xgmii_txd(xgmii_txd), .xgmii_txc(xgmii_txc), .sof(sof),
    .stamp_beat(s_axis_tvalid && s_axis_tready), .stamp_last(s_axis_tlast), .m_lag_valid(m_lag_valid), .m_lag_ns(m_lag_ns)
);

endmodule

`resetall
