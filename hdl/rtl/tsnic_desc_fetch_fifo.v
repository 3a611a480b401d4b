// tsnic_desc_fetch_fifo: first-word-fall-through FIFO whose storage is an inferred RAM with a
// registered read; the RAM's output register is the FIFO's output register. Capacity 2^ADDR_W
// words in the RAM plus one in the output register. One push and one pop per cycle.
`resetall
`timescale 1ns / 1ps
`default_nettype none

module tsnic_desc_fetch_fifo #(
    parameter WIDTH  = 8,
    parameter ADDR_W = 3          // >= 1
) (
    input  wire              clk,
    input  wire              rst,

    input  wire              s_valid,
    output wire              s_ready,
    input  wire [WIDTH-1:0]  s_data,

    output wire              m_valid,
    input  wire              m_ready,
    output wire [WIDTH-1:0]  m_data,

    output wire [ADDR_W:0]   ram_count      // words in the RAM (not counting the output register)
);

reg [WIDTH-1:0] mem [0:(1<<ADDR_W)-1];
reg [WIDTH-1:0] out_data;
reg             out_valid;
reg [ADDR_W:0]  wr_ptr;
reg [ADDR_W:0]  rd_ptr;

wire empty = (wr_ptr == rd_ptr);
wire full  = (wr_ptr == {~rd_ptr[ADDR_W], rd_ptr[ADDR_W-1:0]});
wire push  = s_valid && !full;
wire ram_rd = !empty && (!out_valid || m_ready);

assign s_ready   = !full;
assign m_valid   = out_valid;
assign m_data    = out_data;
assign ram_count = wr_ptr - rd_ptr;

// Simulation only: start from zeros instead of X. Not for synthesis (Yosys would unroll the loop
// over every word; the calendar's free list is 2^16 deep).
`ifndef SYNTHESIS
integer i;
initial begin
    out_data = {WIDTH{1'b0}};
    for (i = 0; i < (1<<ADDR_W); i = i + 1) mem[i] = {WIDTH{1'b0}};
end
`endif

always @(posedge clk) begin
    if (push) mem[wr_ptr[ADDR_W-1:0]] <= s_data;
    if (ram_rd) out_data <= mem[rd_ptr[ADDR_W-1:0]];
end

always @(posedge clk) begin
    if (rst) begin
        wr_ptr    <= {(ADDR_W+1){1'b0}};
        rd_ptr    <= {(ADDR_W+1){1'b0}};
        out_valid <= 1'b0;
    end else begin
        if (push) wr_ptr <= wr_ptr + 1'b1;
        if (ram_rd) begin
            rd_ptr    <= rd_ptr + 1'b1;
            out_valid <= 1'b1;
        end else if (m_ready) begin
            out_valid <= 1'b0;
        end
    end
end

endmodule

`resetall
