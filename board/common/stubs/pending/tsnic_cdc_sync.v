// STAND-IN (ports only) for hdl/rtl/tsnic_cdc_sync.v of the mac branch (port list 2026-12-01): a level
// into another clock domain through two flops. board/lint.sh only.
`resetall
`timescale 1ns / 1ps
`default_nettype none
/* verilator lint_off UNUSEDSIGNAL */
/* verilator lint_off UNUSEDPARAM */
module tsnic_cdc_sync #(
    parameter WIDTH = 1,
    parameter [WIDTH-1:0] INIT = 0
) (
    input  wire             clk,
    input  wire             rst,
    input  wire [WIDTH-1:0] in,
    output wire [WIDTH-1:0] out
);
assign out = INIT;
endmodule
