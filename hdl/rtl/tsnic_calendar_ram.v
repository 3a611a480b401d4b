// tsnic_calendar_ram: simple dual-port RAM for the calendar (one write port, one read port with a
// registered read). Infers block RAM / UltraRAM at calendar sizes, LUT RAM when small.
// Read-during-write to the same address returns the old word (read-first); the calendar's
// sequencer never reads a word in the cycle it writes it, so it needs no forwarding.
`resetall
`timescale 1ns / 1ps
`default_nettype none

module tsnic_calendar_ram #(
    parameter WIDTH  = 32,
    parameter ADDR_W = 4
) (
    input  wire              clk,
    input  wire              wr_en,
    input  wire [ADDR_W-1:0] wr_addr,
    input  wire [WIDTH-1:0]  wr_data,
    input  wire [ADDR_W-1:0] rd_addr,
    output reg  [WIDTH-1:0]  rd_data
);

reg [WIDTH-1:0] mem [0:(1<<ADDR_W)-1];

// Simulation only: start from zeros instead of X (the calendar clears what it relies on after reset).
// Not for synthesis: Yosys would unroll the loop over up to 65536 words.
`ifndef SYNTHESIS
integer i;

initial begin
    rd_data = {WIDTH{1'b0}};
    for (i = 0; i < (1<<ADDR_W); i = i + 1) mem[i] = {WIDTH{1'b0}};
end
`endif

always @(posedge clk) begin
    if (wr_en) mem[wr_addr] <= wr_data;
    rd_data <= mem[rd_addr];
end

endmodule

`resetall
