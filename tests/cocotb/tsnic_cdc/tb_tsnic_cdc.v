// Bench top: tsnic_cdc_async_fifo (s_clk -> m_clk) and tsnic_cdc_bus (s_clk -> m_clk) side by side.
`timescale 1ns / 1ps
`default_nettype none

module tb_tsnic_cdc #(
    parameter WIDTH = 32,
    parameter DEPTH_LOG2 = 4
) (
    input  wire                  s_clk,
    input  wire                  s_rst,
    input  wire                  m_clk,
    input  wire                  m_rst,

    input  wire [WIDTH-1:0]      s_data,
    input  wire                  s_valid,
    output wire                  s_ready,
    output wire [DEPTH_LOG2+1:0] s_count,
    output wire [WIDTH-1:0]      m_data,
    output wire                  m_valid,
    input  wire                  m_ready,
    output wire [DEPTH_LOG2+1:0] m_count,

    input  wire [31:0]           bus_s_data,
    output wire [31:0]           bus_m_data,
    output wire                  bus_m_update
);

tsnic_cdc_async_fifo #(.WIDTH(WIDTH), .DEPTH_LOG2(DEPTH_LOG2)) fifo_inst (
    .s_clk(s_clk), .s_rst(s_rst), .s_data(s_data), .s_valid(s_valid), .s_ready(s_ready), .s_count(s_count),
    .m_clk(m_clk), .m_rst(m_rst), .m_data(m_data), .m_valid(m_valid), .m_ready(m_ready), .m_count(m_count)
);

tsnic_cdc_bus #(.WIDTH(32)) bus_inst (
    .s_clk(s_clk), .s_rst(s_rst), .s_data(bus_s_data),
    .m_clk(m_clk), .m_rst(m_rst), .m_data(bus_m_data), .m_update(bus_m_update)
);

endmodule
