// tsnic_desc_fetch_ram: simple dual-port RAM, one write port with byte enables and one read port
// with a registered read (read enable holds the output). Infers block RAM (or LUT RAM when small).
// Read-during-write to the same address returns the old word; callers forward around it.
`resetall
`timescale 1ns / 1ps
`default_nettype none

module tsnic_desc_fetch_ram #(
    parameter WIDTH  = 32,
    parameter ADDR_W = 3,
    parameter BE_W   = 1          // byte-enable lanes; WIDTH must be a multiple of BE_W
) (
    input  wire              clk,
    input  wire [BE_W-1:0]   wr_en,
    input  wire [ADDR_W-1:0] wr_addr,
    input  wire [WIDTH-1:0]  wr_data,
    input  wire              rd_en,
    input  wire [ADDR_W-1:0] rd_addr,
    output reg  [WIDTH-1:0]  rd_data
);

localparam LANE_W = WIDTH / BE_W;

reg [WIDTH-1:0] mem [0:(1<<ADDR_W)-1];

integer i;

initial begin
    rd_data = {WIDTH{1'b0}};
    for (i = 0; i < (1<<ADDR_W); i = i + 1) mem[i] = {WIDTH{1'b0}};
end

always @(posedge clk) begin
    for (i = 0; i < BE_W; i = i + 1) begin
        if (wr_en[i]) mem[wr_addr][i*LANE_W +: LANE_W] <= wr_data[i*LANE_W +: LANE_W];
    end
    if (rd_en) rd_data <= mem[rd_addr];
end

endmodule

`resetall
