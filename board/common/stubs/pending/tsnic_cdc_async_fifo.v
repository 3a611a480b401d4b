// STAND-IN (ports only) for hdl/rtl/tsnic_cdc_async_fifo.v of the mac branch (port list 2026-12-01, with s_count of its commit 7183431):
// first-word-fall-through FIFO between two unrelated clocks, s_clk -> m_clk. board/lint.sh only.
`resetall
`timescale 1ns / 1ps
`default_nettype none
/* verilator lint_off UNUSEDSIGNAL */
/* verilator lint_off UNUSEDPARAM */
module tsnic_cdc_async_fifo #(
    parameter WIDTH      = 64,
    parameter DEPTH_LOG2 = 5
) (
    input  wire                  s_clk,
    input  wire                  s_rst,
    input  wire [WIDTH-1:0]      s_data,
    input  wire                  s_valid,
    output wire                  s_ready,
    output wire [DEPTH_LOG2+1:0] s_count,
    input  wire                  m_clk,
    input  wire                  m_rst,
    output wire [WIDTH-1:0]      m_data,
    output wire                  m_valid,
    input  wire                  m_ready,
    output wire [DEPTH_LOG2+1:0] m_count
);
assign s_ready = 1'b0;
assign s_count = {(DEPTH_LOG2+2){1'b0}};
assign m_data = {WIDTH{1'b0}};
assign m_valid = 1'b0;
assign m_count = {(DEPTH_LOG2+2){1'b0}};
endmodule
