// tsnic_mac_rx: RX arrival timestamp in the MAC's RX clock domain, and the crossing of received
// frames into the core clock domain.
//
// MAC side (mac_clk): frames from the MAC (tsnic_xgmii_rx, or a CMAC's RX AXI-Stream), without
// backpressure, and the MAC's start-of-frame pulse. Arrival time = the MAC-domain PHC copy
// (tsnic_td_sink on mac_clk) at the start of frame + rx_lat_comp_ns (the PCS/PMA's fixed receive
// latency, a core register carried over with tsnic_cdc_bus):
//     arrival = round(rx_time - SOF_DELAY_FX + (sof_lane4 ? PERIOD_FX / 2 : 0) + LAG_FX) + rx_lat_comp_ns
// where SOF_DELAY_FX is how long after the /S/ word's cycle start the sof pulse is seen (one period
// for tsnic_xgmii_rx's registered sof), a lane-4 start is half a word later, and LAG_FX is the local
// time's mean lag behind the PHC (tsnic_td_sink MARGIN_FX), so that the stamp is centred on the
// truth; it is rounded to the nearest ns.
// Core side (clk): m_axis_rx_* as the core's RX input expects it: tuser[64:1] = arrival_ns on the
// first beat of a frame, tuser[0] = bad frame (FCS error, /E/, runt) on the tlast beat (the MAC
// knows only at the end).
// - A frame is written into the async FIFO only if, at its first beat, the FIFO has room for
//   MAX_FRAME_LEN bytes (the MAC cannot wait): otherwise the whole frame is dropped and
//   drop_pulse (mac_clk) counts it. No frame is ever truncated.
// - One arrival stamp is held from sof to the frame's first beat: a MAC's next sof always follows
//   the previous frame's first beat (frames are >= 64 bytes and the first beat leaves within a few
//   cycles of sof).
// Constraints: those of tsnic_cdc_async_fifo and tsnic_cdc_bus.
`resetall
`timescale 1ns / 1ps
`default_nettype none

/* verilator lint_off PINCONNECTEMPTY */
module tsnic_mac_rx #(
    parameter DATA_W        = 64,
    parameter MAX_FRAME_LEN = 9600,   // bytes, without FCS
    parameter FIFO_LOG2     = 12,     // 2^FIFO_LOG2 beats, >= two MAX_FRAME_LEN frames
    parameter [63:0] PERIOD_FX    = 64'd27487790694,   // mac_clk nominal period, ns * 2^32
    parameter [63:0] SOF_DELAY_FX = 64'd27487790694,   // sof pulse after the start of frame, ns * 2^32
    parameter [63:0] LAG_FX       = 64'd1288490189     // mean lag of rx_time behind the PHC, ns * 2^32
) (
    input  wire                  clk,
    input  wire                  rst,
    input  wire [31:0]           rx_lat_comp_ns,

    output wire [DATA_W-1:0]     m_axis_rx_tdata,
    output wire [DATA_W/8-1:0]   m_axis_rx_tkeep,
    output wire                  m_axis_rx_tvalid,
    input  wire                  m_axis_rx_tready,
    output wire                  m_axis_rx_tlast,
    output wire [64:0]           m_axis_rx_tuser,

    input  wire                  mac_clk,
    input  wire                  mac_rst,
    input  wire [63:0]           rx_time_ns,     // tsnic_td_sink on mac_clk
    input  wire [31:0]           rx_time_fns,
    input  wire                  sof,
    input  wire                  sof_lane4,
    input  wire [DATA_W-1:0]     s_axis_mac_tdata,
    input  wire [DATA_W/8-1:0]   s_axis_mac_tkeep,
    input  wire                  s_axis_mac_tvalid,
    input  wire                  s_axis_mac_tlast,
    input  wire                  s_axis_mac_tuser,  // bad frame, on tlast
    output wire                  drop_pulse
);

localparam KEEP_W = DATA_W / 8;
localparam MAX_BEATS = (MAX_FRAME_LEN + 4 + KEEP_W - 1) / KEEP_W;
localparam W = DATA_W + KEEP_W + 1 + 65;

initial begin
    if ((1 << FIFO_LOG2) < 2 * MAX_BEATS) begin
        $display("tsnic_mac_rx %m: FIFO_LOG2 = %0d: %0d beats, need 2 x %0d for a frame in flight and one arriving",
                 FIFO_LOG2, 1 << FIFO_LOG2, MAX_BEATS);
        $finish;
    end
end

wire [31:0] mac_lat_comp_ns;
wire        unused_update;

tsnic_cdc_bus #(.WIDTH(32)) lat_comp_cdc_inst (
    .s_clk(clk), .s_rst(rst), .s_data(rx_lat_comp_ns),
    .m_clk(mac_clk), .m_rst(mac_rst), .m_data(mac_lat_comp_ns), .m_update(unused_update)
);

// arrival stamp (two stages: the fixed-point correction, then the latency register)
reg [95:0] stamp_fx_reg = 96'd0;
reg        stamp_fx_valid_reg = 1'b0;
reg [63:0] stamp_reg = 64'd0;
reg        in_frame_reg = 1'b0;      // a frame's first beat has been seen, tlast not yet
reg        dropping_reg = 1'b0;
reg        drop_pulse_reg = 1'b0;

wire [95:0] time_fx = {rx_time_ns, rx_time_fns};
wire [95:0] lane_fx = sof_lane4 ? ({32'd0, PERIOD_FX} >> 1) : 96'd0;

wire [FIFO_LOG2+1:0] fifo_used;
wire                 fifo_s_ready;
wire [31:0]          fifo_used32 = {{(30-FIFO_LOG2){1'b0}}, fifo_used};
wire                 room = (fifo_used32 + MAX_BEATS) <= (32'd1 << FIFO_LOG2);

wire first_beat = s_axis_mac_tvalid && !in_frame_reg;
wire accept = first_beat ? room : !dropping_reg;
wire push = s_axis_mac_tvalid && accept && fifo_s_ready;

assign drop_pulse = drop_pulse_reg;

always @(posedge mac_clk) begin
    drop_pulse_reg <= 1'b0;
    if (sof) begin
        stamp_fx_reg <= time_fx - {32'd0, SOF_DELAY_FX} + lane_fx + {32'd0, LAG_FX} + 96'h80000000;
    end
    stamp_fx_valid_reg <= sof;
    if (stamp_fx_valid_reg) begin
        stamp_reg <= stamp_fx_reg[95:32] + {{32{mac_lat_comp_ns[31]}}, mac_lat_comp_ns};   // signed
    end
    if (s_axis_mac_tvalid) begin
        in_frame_reg <= !s_axis_mac_tlast;
        if (first_beat) begin
            dropping_reg <= !room;
            if (!room) drop_pulse_reg <= 1'b1;
        end
    end
    if (mac_rst) begin
        in_frame_reg <= 1'b0;
        dropping_reg <= 1'b0;
        drop_pulse_reg <= 1'b0;
        stamp_fx_valid_reg <= 1'b0;
    end
end

wire [64:0] mac_user = first_beat ? {stamp_reg, s_axis_mac_tlast && s_axis_mac_tuser}
                                  : {64'd0, s_axis_mac_tlast && s_axis_mac_tuser};
wire [W-1:0] fifo_out;

tsnic_cdc_async_fifo #(
    .WIDTH(W),
    .DEPTH_LOG2(FIFO_LOG2)
) fifo_inst (
    .s_clk(mac_clk), .s_rst(mac_rst),
    .s_data({mac_user, s_axis_mac_tlast, s_axis_mac_tkeep, s_axis_mac_tdata}),
    .s_valid(push), .s_ready(fifo_s_ready), .s_count(fifo_used),
    .m_clk(clk), .m_rst(rst),
    .m_data(fifo_out), .m_valid(m_axis_rx_tvalid), .m_ready(m_axis_rx_tready), .m_count()
);

assign m_axis_rx_tdata = fifo_out[DATA_W-1:0];
assign m_axis_rx_tkeep = fifo_out[DATA_W +: KEEP_W];
assign m_axis_rx_tlast = fifo_out[DATA_W + KEEP_W];
assign m_axis_rx_tuser = fifo_out[W-1 -: 65];

/* verilator lint_off UNUSEDSIGNAL */
wire unused_ok = &{1'b0, unused_update, stamp_fx_reg[31:0]};
/* verilator lint_on UNUSEDSIGNAL */

endmodule
/* verilator lint_on PINCONNECTEMPTY */

`resetall
