// tsnic_flash_fifo: the flash controller's small word FIFO (read and write FIFO, 2^DEPTH_LOG2 words).
// Distributed RAM with an asynchronous read port: the head word is on m_data whenever level != 0, so a
// register read can return it and pop it in the same cycle. clear empties it. A push when full or a pop
// when empty is ignored (the controller checks level first and reports it).
`resetall
`timescale 1ns / 1ps
`default_nettype none

module tsnic_flash_fifo #(
    parameter WIDTH      = 32,
    parameter DEPTH_LOG2 = 6
) (
    input  wire                  clk,
    input  wire                  rst,
    input  wire                  clear,
    input  wire                  push,
    input  wire [WIDTH-1:0]      s_data,
    input  wire                  pop,
    output wire [WIDTH-1:0]      m_data,
    output wire [DEPTH_LOG2:0]   level
);

reg [WIDTH-1:0]    mem [0:(1 << DEPTH_LOG2)-1];
reg [DEPTH_LOG2:0] wr_ptr_reg = 0;
reg [DEPTH_LOG2:0] rd_ptr_reg = 0;

wire full  = (wr_ptr_reg - rd_ptr_reg) == (1 << DEPTH_LOG2);
wire empty = (wr_ptr_reg == rd_ptr_reg);

assign level  = wr_ptr_reg - rd_ptr_reg;
assign m_data = mem[rd_ptr_reg[DEPTH_LOG2-1:0]];

always @(posedge clk) begin
    if (push && !full) begin
        mem[wr_ptr_reg[DEPTH_LOG2-1:0]] <= s_data;
        wr_ptr_reg <= wr_ptr_reg + 1'b1;
    end
    if (pop && !empty) begin
        rd_ptr_reg <= rd_ptr_reg + 1'b1;
    end
    if (rst || clear) begin
        wr_ptr_reg <= 0;
        rd_ptr_reg <= 0;
    end
end

endmodule

`resetall
