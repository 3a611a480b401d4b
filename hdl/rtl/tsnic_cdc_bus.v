// tsnic_cdc_bus: a multi-bit value into another clock domain, always as a consistent snapshot
// (a register such as CTRL_TX_LAT_COMP_NS that the destination uses continuously).
//
// Toggle handshake: the source latches s_data and flips req; the destination sees req change through
// two flops, latches the (by then stable) data into m_data and flips ack back; the source sees ack
// through two flops and takes the next snapshot. m_data is therefore always a value s_data had, and
// a change of s_data reaches m_data within about 3 source + 3 destination cycles (two round trips when
// it changes just after a snapshot). m_update pulses for one m_clk cycle with every snapshot taken
// (also when the value did not change).
//
// Constraints: req_sync1_reg / ack_sync1_reg carry ASYNC_REG (set here). In the XDC:
//   set_max_delay -datapath_only <m_clk period> from s_data_reg to m_data_reg and from req_reg to
//   req_sync1_reg; set_max_delay -datapath_only <s_clk period> from ack_reg to ack_sync1_reg.
`resetall
`timescale 1ns / 1ps
`default_nettype none

module tsnic_cdc_bus #(
    parameter WIDTH = 32,
    parameter [WIDTH-1:0] INIT = 0   // m_data after reset, until the first snapshot arrives
) (
    input  wire             s_clk,
    input  wire             s_rst,
    input  wire [WIDTH-1:0] s_data,

    input  wire             m_clk,
    input  wire             m_rst,
    output wire [WIDTH-1:0] m_data,
    output wire             m_update
);

// source side
reg [WIDTH-1:0] s_data_reg = INIT;
reg             req_reg = 1'b0;
(* ASYNC_REG = "TRUE" *) reg ack_sync1_reg = 1'b0;
(* ASYNC_REG = "TRUE" *) reg ack_sync2_reg = 1'b0;

always @(posedge s_clk) begin
    ack_sync1_reg <= ack_reg;
    ack_sync2_reg <= ack_sync1_reg;
    if (ack_sync2_reg == req_reg) begin     // previous snapshot taken: offer the next
        s_data_reg <= s_data;
        req_reg <= !req_reg;
    end
    if (s_rst) begin
        req_reg <= 1'b0;
        ack_sync1_reg <= 1'b0;
        ack_sync2_reg <= 1'b0;
    end
end

// destination side
(* ASYNC_REG = "TRUE" *) reg req_sync1_reg = 1'b0;
(* ASYNC_REG = "TRUE" *) reg req_sync2_reg = 1'b0;
reg             ack_reg = 1'b0;
reg [WIDTH-1:0] m_data_reg = INIT;
reg             m_update_reg = 1'b0;

assign m_data = m_data_reg;
assign m_update = m_update_reg;

always @(posedge m_clk) begin
    req_sync1_reg <= req_reg;
    req_sync2_reg <= req_sync1_reg;
    m_update_reg <= 1'b0;
    if (req_sync2_reg != ack_reg) begin
        m_data_reg <= s_data_reg;
        ack_reg <= req_sync2_reg;
        m_update_reg <= 1'b1;
    end
    if (m_rst) begin
        req_sync1_reg <= 1'b0;
        req_sync2_reg <= 1'b0;
        ack_reg <= 1'b0;
        m_data_reg <= INIT;
        m_update_reg <= 1'b0;
    end
end

endmodule

`resetall
