// tsnic_tx_buffer: the on-card TX buffer. Simple dual-port block RAM, 2^ADDR_W words of DATA_W
// bits, one synchronous write port and one read port with a registered output (read data is on
// rd_data the cycle after rd_en). Written by tsnic_tx_prefetch's DMA side, read by its stream side.
`resetall
`timescale 1ns / 1ps
`default_nettype none

module tsnic_tx_buffer #(
    parameter DATA_W = 64,
    parameter ADDR_W = 12
) (
    input  wire              clk,

    input  wire              wr_en,
    input  wire [ADDR_W-1:0] wr_addr,
    input  wire [DATA_W-1:0] wr_data,

    input  wire              rd_en,
    input  wire [ADDR_W-1:0] rd_addr,
    output wire [DATA_W-1:0] rd_data
);

reg [DATA_W-1:0] mem [0:(1<<ADDR_W)-1];
reg [DATA_W-1:0] rd_data_reg = {DATA_W{1'b0}};

assign rd_data = rd_data_reg;

always @(posedge clk) begin
    if (wr_en) begin
        mem[wr_addr] <= wr_data;
    end
end

always @(posedge clk) begin
    if (rd_en) begin
        rd_data_reg <= mem[rd_addr];
    end
end

endmodule

`resetall
