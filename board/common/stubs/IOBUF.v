// Lint stub of IOBUF: the port list and parameters as documented in UG953 (7 Series) / UG974
// (UltraScale), IOBUF: bidirectional buffer (T = 1: the pad is high impedance and O follows it).
// No behaviour: outputs are tied to zero. Used only by board/lint.sh (Verilator); Vivado uses the real
// primitive.
`resetall
`timescale 1ns / 1ps
`default_nettype none
/* verilator lint_off UNUSEDSIGNAL */
/* verilator lint_off UNUSEDPARAM */
module IOBUF #(
    parameter DRIVE        = 12,
    parameter IBUF_LOW_PWR = "TRUE",
    parameter IOSTANDARD   = "DEFAULT",
    parameter SLEW         = "SLOW"
) (
    output wire O,
    inout  wire IO,
    input  wire I,
    input  wire T
);
assign O = 1'b0;
endmodule
