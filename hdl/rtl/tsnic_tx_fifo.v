// tsnic_tx_fifo: small synchronous FIFO, first-word-fall-through.
//
// Storage is an inferred RAM (2^DEPTH_LOG2 words, synchronous write, registered read); the RAM's read
// register is the output register, so m_data comes straight from a flop. A pushed word is visible on
// m_* two cycles after the push. Capacity is 2^DEPTH_LOG2 + 1 words (the RAM plus the output
// register); s_ready is high while the RAM has room. `count` is the number of words held (RAM plus
// output register). Full throughput: one push and one pop per cycle.
`resetall
`timescale 1ns / 1ps
`default_nettype none

module tsnic_tx_fifo #(
    parameter W          = 32,
    parameter DEPTH_LOG2 = 4
) (
    input  wire                  clk,
    input  wire                  rst,

    input  wire                  s_valid,
    output wire                  s_ready,
    input  wire [W-1:0]          s_data,

    output wire                  m_valid,
    input  wire                  m_ready,
    output wire [W-1:0]          m_data,

    output wire [DEPTH_LOG2+1:0] count
);

localparam DEPTH = 1 << DEPTH_LOG2;

reg [W-1:0] mem [0:DEPTH-1];
reg [W-1:0] out_reg = {W{1'b0}};
reg         out_valid = 1'b0;

reg [DEPTH_LOG2:0] wr_ptr = {(DEPTH_LOG2+1){1'b0}};
reg [DEPTH_LOG2:0] rd_ptr = {(DEPTH_LOG2+1){1'b0}};

wire [DEPTH_LOG2:0] ram_count = wr_ptr - rd_ptr;
wire ram_full  = ram_count[DEPTH_LOG2];
wire ram_empty = (ram_count == {(DEPTH_LOG2+1){1'b0}});

wire push = s_valid && !ram_full;
wire rd_en = !ram_empty && (!out_valid || m_ready);

assign s_ready = !ram_full;
assign m_valid = out_valid;
assign m_data  = out_reg;
assign count   = {1'b0, ram_count} + {{(DEPTH_LOG2+1){1'b0}}, out_valid};

always @(posedge clk) begin
    if (push) begin
        mem[wr_ptr[DEPTH_LOG2-1:0]] <= s_data;
    end
end

always @(posedge clk) begin
    if (rd_en) begin
        out_reg <= mem[rd_ptr[DEPTH_LOG2-1:0]];
    end
end

always @(posedge clk) begin
    if (push) begin
        wr_ptr <= wr_ptr + 1'b1;
    end
    if (rd_en) begin
        rd_ptr <= rd_ptr + 1'b1;
        out_valid <= 1'b1;
    end else if (m_ready) begin
        out_valid <= 1'b0;
    end
    if (rst) begin
        wr_ptr <= {(DEPTH_LOG2+1){1'b0}};
        rd_ptr <= {(DEPTH_LOG2+1){1'b0}};
        out_valid <= 1'b0;
    end
end

endmodule

`resetall
