// Bench helper (not RTL): the clock of a single-clock bench, made in Verilog.
//
// A cocotb Clock wakes Python up at every edge, which costs a short bench a fifth to a third of its
// run time. Under Icarus, clock_force.mk compiles this module as a second root beside the toplevel
// and forces its clock onto the toplevel's clock input (TB_CLOCK_TARGET, e.g. tsnic_rx_buf.clk):
// high at time 0, then a toggle every HALF_PS, as cocotb's Clock did (tsnic_clock.start_clock).
`timescale 1ns / 1ps
`default_nettype none

module tb_clock_force #(
    parameter HALF_PS = 2000    // half period in ps
) ();

reg clk = 1'b1;

always #(HALF_PS / 1000.0) clk = ~clk;

initial force `TB_CLOCK_TARGET = clk;

endmodule

`default_nettype wire
