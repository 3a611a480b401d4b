// tsnic_rx_ts: the RX arrival-timestamp stage (docs/ARCHITECTURE.md "Receive path").
//
// One register stage between the MAC's RX AXI-Stream and the RX buffer. It marks each beat with
// the frame's arrival time and its bad flag:
// - RX_TS_EXTERNAL = 0 (single clock domain: Verilated sim, core bench): arrival = PHC time of the
//   cycle the frame's first beat is accepted at s_axis (start of frame) + the signed lat_comp_ns.
// - RX_TS_EXTERNAL = 1 (boards: the MAC domain stamps): arrival = s_axis_tuser[64:1] of the first
//   beat, as the MAC side produced it; lat_comp_ns is not applied (the MAC side applies its own).
// - tuser[0] = bad frame (FCS error from the MAC) on any beat; it is passed per beat (m_axis_bad)
//   and the consumer ORs it over the frame.
// m_axis_ts is the frame's arrival time on every beat of the frame; m_axis_nbytes the number of
// bytes of the beat (tkeep, contiguous from lane 0, counted here so the RX buffer's length adder does
// not follow a popcount in the same cycle).
`resetall
`timescale 1ns / 1ps
`default_nettype none

module tsnic_rx_ts #(
    parameter DATA_W         = 64,
    parameter USER_W         = 65,      // tuser[0] bad, tuser[64:1] arrival ns (external stamp)
    parameter RX_TS_EXTERNAL = 0,
    parameter NB_W           = $clog2(DATA_W / 8) + 1   // width of m_axis_nbytes (do not set)
) (
    input  wire                clk,
    input  wire                rst,

    input  wire [63:0]         phc_ns,
    input  wire [31:0]         lat_comp_ns,    // signed

    input  wire [DATA_W-1:0]   s_axis_tdata,
    input  wire [DATA_W/8-1:0] s_axis_tkeep,
    input  wire                s_axis_tvalid,
    output wire                s_axis_tready,
    input  wire                s_axis_tlast,
    input  wire [USER_W-1:0]   s_axis_tuser,

    output wire [DATA_W-1:0]   m_axis_tdata,
    output wire [DATA_W/8-1:0] m_axis_tkeep,
    output wire                m_axis_tvalid,
    input  wire                m_axis_tready,
    output wire                m_axis_tlast,
    output wire                m_axis_bad,
    output wire [63:0]         m_axis_ts,
    output wire [NB_W-1:0]     m_axis_nbytes,

    output wire                busy            // a beat is held or a frame is open (fast-forward)
);

reg [DATA_W-1:0]   data_reg = {DATA_W{1'b0}};
reg [DATA_W/8-1:0] keep_reg = {(DATA_W/8){1'b0}};
reg                valid_reg = 1'b0;
reg                last_reg = 1'b0;
reg                bad_reg = 1'b0;
reg [63:0]         ts_reg = 64'd0;
reg [NB_W-1:0]     nb_reg = {NB_W{1'b0}};
reg                in_frame_reg = 1'b0;    // a first beat has been taken, its last not yet

wire take = s_axis_tvalid && s_axis_tready;

// The byte count of a beat as a tree, not a chain of DATA_W/8 increments (at 512 bits a chain is 63
// LUT levels after the crossing's RAM): each group of 8 lanes counted alone (a function of 8 inputs,
// two LUT levels), then the 8 group counts summed pairwise in three adder levels. Lanes above DATA_W/8
// (and so whole groups) read as zero. Up to 64 lanes (DATA_W 512).
localparam LANES = DATA_W / 8;

function [3:0] pop8;
    input [7:0] x;
    integer j;
    begin
        pop8 = 4'd0;
        for (j = 0; j < 8; j = j + 1) pop8 = pop8 + {3'd0, x[j]};
    end
endfunction

wire [63:0] keep64;
generate
    if (LANES > 64) begin : g_bad_lanes
        tsnic_param_error_rx_ts_DATA_W_must_be_at_most_512 param_error_inst ();
    end else if (LANES == 64) begin : g_keep_full
        assign keep64 = s_axis_tkeep;
    end else begin : g_keep_pad
        assign keep64 = {{(64 - LANES){1'b0}}, s_axis_tkeep};
    end
endgenerate
wire [6:0] pc0 = {3'd0, pop8(keep64[7:0])}   + {3'd0, pop8(keep64[15:8])};
wire [6:0] pc1 = {3'd0, pop8(keep64[23:16])} + {3'd0, pop8(keep64[31:24])};
wire [6:0] pc2 = {3'd0, pop8(keep64[39:32])} + {3'd0, pop8(keep64[47:40])};
wire [6:0] pc3 = {3'd0, pop8(keep64[55:48])} + {3'd0, pop8(keep64[63:56])};
wire [6:0] pc_all = (pc0 + pc1) + (pc2 + pc3);
wire [NB_W-1:0] nb_c = pc_all[NB_W-1:0];
// verilator lint_off UNUSEDSIGNAL
wire [6:0] unused_pc = pc_all;      // above NB_W-1: zero (at most LANES bytes)
// verilator lint_on UNUSEDSIGNAL
wire [63:0] own_ts = phc_ns + {{32{lat_comp_ns[31]}}, lat_comp_ns};
wire [63:0] ext_ts;

generate
    if (RX_TS_EXTERNAL != 0) begin : g_ext
        assign ext_ts = s_axis_tuser[64:1];
        // verilator lint_off UNUSEDSIGNAL
        wire [63:0] unused_own_ts = own_ts;   // the MAC side applies its own compensation
        // verilator lint_on UNUSEDSIGNAL
    end else begin : g_own
        assign ext_ts = own_ts;
        // verilator lint_off UNUSEDSIGNAL
        wire [USER_W-2:0] unused_user = s_axis_tuser[USER_W-1:1];
        // verilator lint_on UNUSEDSIGNAL
    end
endgenerate

assign s_axis_tready = !valid_reg || m_axis_tready;
assign m_axis_tdata  = data_reg;
assign m_axis_tkeep  = keep_reg;
assign m_axis_tvalid = valid_reg;
assign m_axis_tlast  = last_reg;
assign m_axis_bad    = bad_reg;
assign m_axis_ts     = ts_reg;
assign m_axis_nbytes = nb_reg;
assign busy = valid_reg || in_frame_reg || s_axis_tvalid;

always @(posedge clk) begin
    if (m_axis_tready) valid_reg <= 1'b0;
    if (take) begin
        valid_reg <= 1'b1;
        data_reg <= s_axis_tdata;
        keep_reg <= s_axis_tkeep;
        nb_reg <= nb_c;
        last_reg <= s_axis_tlast;
        bad_reg <= s_axis_tuser[0];
        if (!in_frame_reg) ts_reg <= ext_ts;
        in_frame_reg <= !s_axis_tlast;
    end
    if (rst) begin
        valid_reg <= 1'b0;
        in_frame_reg <= 1'b0;
    end
end

endmodule

`resetall
