// tsnic_fifo: the project's one synchronous FIFO, first-word-fall-through.
//
// Storage is tsnic_ram_sdp (2^ADDR_W words, registered read); the RAM's read register is the output
// register, so m_data comes straight from a flop. A pushed word reaches m_* two cycles after the push.
// Capacity 2^ADDR_W + 1 words (the RAM plus the output register); s_ready is high while the RAM has
// room. `count` is the number of words held (RAM plus output register). One push and one pop per
// cycle. ADDR_W >= 1 is checked at elaboration.
`resetall
`timescale 1ns / 1ps
`default_nettype none

module tsnic_fifo #(
    parameter WIDTH  = 32,
    parameter ADDR_W = 4
) (
    input  wire              clk,
    input  wire              rst,

    input  wire              s_valid,
    output wire              s_ready,
    input  wire [WIDTH-1:0]  s_data,

    output wire              m_valid,
    input  wire              m_ready,
    output wire [WIDTH-1:0]  m_data,

    output wire [ADDR_W+1:0] count
);

generate
    if (ADDR_W < 1) begin : g_bad_addr
        tsnic_param_error_ADDR_W_must_be_at_least_1 param_error_inst ();
    end
endgenerate

reg [ADDR_W:0] wr_ptr = {(ADDR_W+1){1'b0}};
reg [ADDR_W:0] rd_ptr = {(ADDR_W+1){1'b0}};
reg            out_valid = 1'b0;

wire [ADDR_W:0] ram_count = wr_ptr - rd_ptr;
wire ram_full  = ram_count[ADDR_W];
wire ram_empty = (wr_ptr == rd_ptr);
wire push      = s_valid && !ram_full;
wire ram_rd    = !ram_empty && (!out_valid || m_ready);

assign s_ready = !ram_full;
assign m_valid = out_valid;
assign count   = {1'b0, ram_count} + {{(ADDR_W+1){1'b0}}, out_valid};

tsnic_ram_sdp #(.WIDTH(WIDTH), .ADDR_W(ADDR_W), .BE_W(1), .OUT_REG(0)) mem_inst (
    .clk(clk),
    .wr_en(push), .wr_addr(wr_ptr[ADDR_W-1:0]), .wr_data(s_data),
    .rd_en(ram_rd), .rd_addr(rd_ptr[ADDR_W-1:0]), .rd_data(m_data));

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
