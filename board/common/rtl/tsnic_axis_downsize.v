// tsnic_axis_downsize: AXI-Stream width down-conversion, IN_W bits to OUT_W bits (IN_W a multiple of
// OUT_W), one clock. Board-side glue: the core's stream is as wide as its PCIe datapath (256 bits on
// the 7-series board), the 10G MAC takes 64.
//
// - Input beats must have contiguous tkeep from bit 0 (a packed stream: only a frame's last beat is
//   partial), which is what tsnic_core emits. An input beat leaves as ceil(bytes / (OUT_W/8)) output
//   beats; tlast goes with the output beat holding the frame's last byte.
// - One input beat is held; the next is accepted in the cycle its last segment leaves, so a stream
//   that is IN_W/OUT_W times slower on the output side runs without gaps.
`resetall
`timescale 1ns / 1ps
`default_nettype none

module tsnic_axis_downsize #(
    parameter IN_W  = 256,
    parameter OUT_W = 64
) (
    input  wire                 clk,
    input  wire                 rst,
    input  wire [IN_W-1:0]      s_axis_tdata,
    input  wire [IN_W/8-1:0]    s_axis_tkeep,
    input  wire                 s_axis_tvalid,
    output wire                 s_axis_tready,
    input  wire                 s_axis_tlast,
    output wire [OUT_W-1:0]     m_axis_tdata,
    output wire [OUT_W/8-1:0]   m_axis_tkeep,
    output wire                 m_axis_tvalid,
    input  wire                 m_axis_tready,
    output wire                 m_axis_tlast
);

localparam IN_B  = IN_W / 8;
localparam OUT_B = OUT_W / 8;

reg [IN_W-1:0] data_reg  = {IN_W{1'b0}};
reg [IN_B-1:0] keep_reg  = {IN_B{1'b0}};
reg            last_reg  = 1'b0;
reg            valid_reg = 1'b0;

// the segment on the output is the held beat's last when the next one holds no byte
wire final_seg = !keep_reg[OUT_B];

assign m_axis_tdata  = data_reg[OUT_W-1:0];
assign m_axis_tkeep  = keep_reg[OUT_B-1:0];
assign m_axis_tvalid = valid_reg;
assign m_axis_tlast  = last_reg && final_seg;
assign s_axis_tready = !valid_reg || (m_axis_tready && final_seg);

always @(posedge clk) begin
    if (rst) begin
        valid_reg <= 1'b0;
        keep_reg  <= {IN_B{1'b0}};
    end else if (s_axis_tvalid && s_axis_tready) begin
        data_reg  <= s_axis_tdata;
        keep_reg  <= s_axis_tkeep;
        last_reg  <= s_axis_tlast;
        valid_reg <= 1'b1;
    end else if (valid_reg && m_axis_tready) begin
        if (final_seg) begin
            valid_reg <= 1'b0;
        end else begin
            data_reg <= {{OUT_W{1'b0}}, data_reg[IN_W-1:OUT_W]};
            keep_reg <= {{OUT_B{1'b0}}, keep_reg[IN_B-1:OUT_B]};
        end
    end
end

endmodule

`resetall
