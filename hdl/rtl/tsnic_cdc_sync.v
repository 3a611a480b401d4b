// tsnic_cdc_sync: a level (or a slowly changing bit) into another clock domain: two flops.
//
// out follows in two to three cycles of clk later. Only for signals whose every level lasts longer
// than three cycles of clk (a reset request, a flush, an enable); pulses use tsnic_cdc_bus or a toggle.
// Constraints: the first flop carries ASYNC_REG (set here); set_false_path -to sync1_reg, or
// set_max_delay -datapath_only <clk period> to it.
`resetall
`timescale 1ns / 1ps
`default_nettype none

module tsnic_cdc_sync #(
    parameter WIDTH = 1,              // independent bits (each crosses on its own: not a bus)
    parameter [WIDTH-1:0] INIT = 0    // value after reset
) (
    input  wire             clk,
    input  wire             rst,
    input  wire [WIDTH-1:0] in,
    output wire [WIDTH-1:0] out
);

(* ASYNC_REG = "TRUE" *) reg [WIDTH-1:0] sync1_reg = INIT;
(* ASYNC_REG = "TRUE" *) reg [WIDTH-1:0] sync2_reg = INIT;

assign out = sync2_reg;

always @(posedge clk) begin
    sync1_reg <= in;
    sync2_reg <= sync1_reg;
    if (rst) begin
        sync1_reg <= INIT;
        sync2_reg <= INIT;
    end
end

endmodule

`resetall
