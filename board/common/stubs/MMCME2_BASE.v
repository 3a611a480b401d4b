// Lint stub of MMCME2_BASE: the port list and parameters as documented in UG953 (7 Series Libraries
// Guide), MMCME2_BASE: mixed-mode clock manager, basic ports.
// No behaviour: outputs are tied to zero. Used only by board/lint.sh (Verilator).
`resetall
`timescale 1ns / 1ps
`default_nettype none
/* verilator lint_off UNUSEDSIGNAL */
/* verilator lint_off UNUSEDPARAM */
module MMCME2_BASE #(
    parameter BANDWIDTH = "OPTIMIZED",
    parameter real CLKFBOUT_MULT_F = 5.0,
    parameter real CLKFBOUT_PHASE = 0.0,
    parameter real CLKIN1_PERIOD = 0.0,
    parameter real CLKOUT0_DIVIDE_F = 1.0,
    parameter real CLKOUT0_DUTY_CYCLE = 0.5,
    parameter real CLKOUT0_PHASE = 0.0,
    parameter integer CLKOUT1_DIVIDE = 1,
    parameter integer CLKOUT2_DIVIDE = 1,
    parameter integer CLKOUT3_DIVIDE = 1,
    parameter integer CLKOUT4_DIVIDE = 1,
    parameter integer CLKOUT5_DIVIDE = 1,
    parameter integer CLKOUT6_DIVIDE = 1,
    parameter CLKOUT4_CASCADE = "FALSE",
    parameter integer DIVCLK_DIVIDE = 1,
    parameter real REF_JITTER1 = 0.010,
    parameter STARTUP_WAIT = "FALSE"
) (
    output wire CLKFBOUT,
    output wire CLKFBOUTB,
    output wire CLKOUT0,
    output wire CLKOUT0B,
    output wire CLKOUT1,
    output wire CLKOUT1B,
    output wire CLKOUT2,
    output wire CLKOUT2B,
    output wire CLKOUT3,
    output wire CLKOUT3B,
    output wire CLKOUT4,
    output wire CLKOUT5,
    output wire CLKOUT6,
    output wire LOCKED,
    input  wire CLKFBIN,
    input  wire CLKIN1,
    input  wire PWRDWN,
    input  wire RST
);
assign CLKFBOUT = 1'b0;
assign CLKFBOUTB = 1'b0;
assign CLKOUT0 = 1'b0;
assign CLKOUT0B = 1'b0;
assign CLKOUT1 = 1'b0;
assign CLKOUT1B = 1'b0;
assign CLKOUT2 = 1'b0;
assign CLKOUT2B = 1'b0;
assign CLKOUT3 = 1'b0;
assign CLKOUT3B = 1'b0;
assign CLKOUT4 = 1'b0;
assign CLKOUT5 = 1'b0;
assign CLKOUT6 = 1'b0;
assign LOCKED = 1'b0;
endmodule
