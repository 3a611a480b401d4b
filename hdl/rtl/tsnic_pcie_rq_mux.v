// tsnic_pcie_rq_mux: two RQ TLP sources (memory reads, memory writes) onto the hard block's RQ
// interface, a whole TLP at a time, alternating when both wait.
`resetall
`timescale 1ns / 1ps
`default_nettype none

module tsnic_pcie_rq_mux #(
    parameter DATA_W    = 512,
    parameter KEEP_W    = DATA_W / 32,
    parameter RQ_USER_W = 137
) (
    input  wire                 clk,
    input  wire                 rst,

    input  wire [DATA_W-1:0]    s0_tdata,
    input  wire [KEEP_W-1:0]    s0_tkeep,
    input  wire                 s0_tvalid,
    output wire                 s0_tready,
    input  wire                 s0_tlast,
    input  wire [RQ_USER_W-1:0] s0_tuser,

    input  wire [DATA_W-1:0]    s1_tdata,
    input  wire [KEEP_W-1:0]    s1_tkeep,
    input  wire                 s1_tvalid,
    output wire                 s1_tready,
    input  wire                 s1_tlast,
    input  wire [RQ_USER_W-1:0] s1_tuser,

    output wire [DATA_W-1:0]    m_tdata,
    output wire [KEEP_W-1:0]    m_tkeep,
    output wire                 m_tvalid,
    input  wire                 m_tready,
    output wire                 m_tlast,
    output wire [RQ_USER_W-1:0] m_tuser
);

reg in_pkt = 1'b0;    // a TLP is part way through (or its first beat waits)
reg sel = 1'b0;       // source of the current / next TLP
reg pref = 1'b0;      // source preferred when both wait

wire cur = in_pkt ? sel : (s0_tvalid && s1_tvalid) ? pref : s1_tvalid;

assign m_tdata   = cur ? s1_tdata : s0_tdata;
assign m_tkeep   = cur ? s1_tkeep : s0_tkeep;
assign m_tvalid  = cur ? s1_tvalid : s0_tvalid;
assign m_tlast   = cur ? s1_tlast : s0_tlast;
assign m_tuser   = cur ? s1_tuser : s0_tuser;
assign s0_tready = m_tready && !cur;
assign s1_tready = m_tready && cur;

always @(posedge clk) begin
    if (m_tvalid) begin
        // hold the choice while a beat waits (AXI-Stream: no change under tvalid) and until tlast
        in_pkt <= !(m_tready && m_tlast);
        sel <= cur;
        if (m_tready && m_tlast) pref <= !cur;
    end
    if (rst) begin
        in_pkt <= 1'b0;
        sel <= 1'b0;
        pref <= 1'b0;
    end
end

endmodule

`resetall
