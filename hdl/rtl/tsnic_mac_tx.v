// tsnic_mac_tx: the launch gate in the MAC's TX clock domain (boards: tsnic_core with
// TX_GATE_EXTERNAL = 1 hands it the pre-gate frame stream and takes the completion requests back).
//
// Core side (clk): frames from tsnic_tx_prefetch (metadata s_frm_*, payload s_axis_pay_*) enter two
// tsnic_cdc_async_fifo: the payload beats, and the metadata, pushed with the frame's last beat.
// MAC side (mac_clk): tsnic_launch_gate, unchanged, on the MAC-domain PHC copy tx_time_ns
// (tsnic_td_sink). The gate sees a frame only when the payload FIFO already holds all of its beats,
// so once the first beat leaves, the frame streams to the MAC without a gap (a CMAC must not see
// one: TX underflow) and the departure time is the MAC-domain time of the first beat's handshake
// plus CTRL_TX_LAT_COMP_NS, plus with MAC_LAG = 1 the MAC's line-start report for the frame
// (s_mac_lag_* on mac_clk, tsnic_launch_gate MAC_LAG: tsnic_xgmii_tx's m_lag_*), so the stamp is the
// frame's start on the line, on a busy line too. The completion requests (SENT / SENT_LATE / FLUSHED, one per frame)
// cross back through a third async FIFO to m_cpl_req_* on clk. flush (the core reset's drain) and
// tx_lat_comp_ns cross with tsnic_cdc_sync / tsnic_cdc_bus.
//
// - No frame is offered before tx_time_valid (the MAC-domain time has had its first sample).
// - PAY_FIFO_LOG2 must hold a whole MAX_FRAME_LEN frame (checked at elaboration); frames then
//   stream back to back as long as the core keeps up (two frames of room: one leaving, one filling).
// - Latency added to the TX path: about 4 MAC cycles (payload FIFO) before a frame can be gated; the
//   prefetch's lookahead covers it. Completions: about 4 core cycles more.
// - Resets: rst is the core's reset (clk), mac_rst the MAC's own (mac_clk: link down, PLL loss); each
//   held at least 4 cycles of the slower clock. Either one resets both sides of the crossings
//   (tsnic_cdc_async_fifo wants that), each side seeing the other's through a synchronizer.
// - Nothing is lost to a MAC reset: the core side keeps a record of every frame handed over (a
//   tsnic_fifo, reset by rst only) and completes frames in that order, taking only the departure
//   time and status from the MAC side. A MAC reset alone loses whatever the crossings held: every
//   frame recorded at that moment is completed FLUSHED (depart_ns = phc_ns of the core side when it
//   is given up), and the rest of a frame whose first beats had crossed is taken from the prefetch
//   and completed FLUSHED without reaching the MAC. A frame that was leaving or had just left when
//   the MAC reset began is reported FLUSHED too (its completion was in the crossing): "not known to
//   have left whole". New frames are held until the reset is over.
// Constraints: those of tsnic_cdc_async_fifo (three instances), tsnic_cdc_sync and tsnic_cdc_bus;
// TRK_FIFO_LOG2 >= 1 (a full record stalls the prefetch, it never overflows).
`resetall
`timescale 1ns / 1ps
`default_nettype none
`include "tsnic_contract.vh"

/* verilator lint_off PINCONNECTEMPTY */
module tsnic_mac_tx #(
    parameter DATA_W        = 64,     // TX stream width (64: XGMII MAC, 512: CMAC)
    parameter NODE_W        = 10,
    parameter QUEUE_W       = 3,
    parameter MAX_FRAME_LEN = 9600,   // bytes, without FCS
    parameter PAY_FIFO_LOG2 = 11,     // payload FIFO: 2^PAY_FIFO_LOG2 beats, >= one MAX_FRAME_LEN frame
    parameter META_FIFO_LOG2 = 5,     // frames waiting in the MAC domain
    parameter CPL_FIFO_LOG2 = 4,      // completion requests crossing back
    parameter TRK_FIFO_LOG2 = 6,      // frames handed over and not completed yet (core side)
    parameter MAC_LAG       = 0       // 1: the MAC reports each frame's line start (s_mac_lag_*)
) (
    // core domain
    input  wire                   clk,
    input  wire                   rst,
    input  wire                   flush,
    input  wire [31:0]            tx_lat_comp_ns,
    input  wire [63:0]            phc_ns,          // core-side time, for frames given up after a MAC reset

    input  wire                   s_frm_valid,
    output wire                   s_frm_ready,
    input  wire [63:0]            s_frm_launch_ns,
    input  wire [63:0]            s_frm_req_launch_ns,
    input  wire                   s_frm_late,
    input  wire                   s_frm_capped,
    input  wire [QUEUE_W-1:0]     s_frm_queue,
    input  wire [15:0]            s_frm_ring_index,
    input  wire [31:0]            s_frm_cookie,
    input  wire [15:0]            s_frm_len,
    input  wire [NODE_W-1:0]      s_frm_handle,

    input  wire [DATA_W-1:0]      s_axis_pay_tdata,
    input  wire [DATA_W/8-1:0]    s_axis_pay_tkeep,
    input  wire                   s_axis_pay_tlast,
    input  wire                   s_axis_pay_tuser,    // the beat's host read failed (DMA_ERROR)
    input  wire                   s_axis_pay_tvalid,
    output wire                   s_axis_pay_tready,

    output wire                   m_cpl_req_valid,
    input  wire                   m_cpl_req_ready,
    output wire [QUEUE_W-1:0]     m_cpl_req_queue,
    output wire [15:0]            m_cpl_req_ring_index,
    output wire [31:0]            m_cpl_req_cookie,
    output wire [63:0]            m_cpl_req_launch_ns,
    output wire [63:0]            m_cpl_req_depart_ns,
    output wire [15:0]            m_cpl_req_len,
    output wire [7:0]             m_cpl_req_status,
    output wire [7:0]             m_cpl_req_reason,
    output wire                   m_cpl_req_capped,
    output wire [NODE_W-1:0]      m_cpl_req_handle,
    output wire                   m_cpl_req_handle_valid,

    // MAC TX domain
    input  wire                   mac_clk,
    input  wire                   mac_rst,
    input  wire [63:0]            tx_time_ns,      // tsnic_td_sink time_ns on mac_clk
    input  wire                   tx_time_valid,

    output wire [DATA_W-1:0]      m_axis_tx_tdata,
    output wire [DATA_W/8-1:0]    m_axis_tx_tkeep,
    output wire                   m_axis_tx_tlast,
    output wire                   m_axis_tx_tvalid,
    input  wire                   m_axis_tx_tready,
    // MAC_LAG = 1: per frame the MAC took, in order, its start on the line after its first beat's
    // handshake, ns (tsnic_launch_gate s_mac_lag_*; the MAC resets with mac_rst / rst as the gate does)
    input  wire                   s_mac_lag_valid,
    input  wire [15:0]            s_mac_lag_ns
);

localparam KEEP_W = DATA_W / 8;
localparam BEAT_SHIFT = $clog2(KEEP_W);
localparam MAX_BEATS = (MAX_FRAME_LEN + KEEP_W - 1) / KEEP_W;
localparam PAY_W = DATA_W + KEEP_W + 2;   // data, keep, tuser, tlast
localparam META_W = 64 + 64 + 1 + 1 + QUEUE_W + 16 + 32 + 16 + NODE_W;
localparam CPL_W = 64 + 8;                // depart_ns, status (the rest comes from the record)
localparam TRK_W = 1 + QUEUE_W + 16 + 32 + 64 + 16 + 1 + NODE_W;   // dead + the completion's fields

generate
    if (TRK_FIFO_LOG2 < 1) begin : g_bad_trk
        tsnic_param_error_TRK_FIFO_LOG2_must_be_at_least_1 param_error_inst ();
    end
endgenerate

initial begin
    if ((1 << PAY_FIFO_LOG2) < MAX_BEATS) begin
        $display("tsnic_mac_tx %m: PAY_FIFO_LOG2 = %0d holds %0d beats, a %0d-byte frame needs %0d",
                 PAY_FIFO_LOG2, 1 << PAY_FIFO_LOG2, MAX_FRAME_LEN, MAX_BEATS);
        $finish;
    end
end

// ---------------------------------------------------------------------------------------------
// resets of the crossings: the core's or the MAC's, on both sides
wire mac_rst_clk, rst_mac_clk;
tsnic_cdc_sync #(.WIDTH(1), .INIT(1'b1)) mac_rst_sync_inst (
    .clk(clk), .rst(1'b0), .in(mac_rst), .out(mac_rst_clk)
);
tsnic_cdc_sync #(.WIDTH(1), .INIT(1'b1)) rst_sync_inst (
    .clk(mac_clk), .rst(1'b0), .in(rst), .out(rst_mac_clk)
);
reg x_rst_reg = 1'b1;       // core side of the crossings
reg x_mac_rst_reg = 1'b1;   // MAC side (and the launch gate)
always @(posedge clk) x_rst_reg <= rst || mac_rst_clk;
always @(posedge mac_clk) x_mac_rst_reg <= mac_rst || rst_mac_clk;

// ---------------------------------------------------------------------------------------------
// core side: payload beats, metadata with the last beat, and the record of every frame handed over
wire pay_fifo_s_ready, meta_fifo_s_ready, trk_s_ready;
reg  part_reg = 1'b0;    // the frame on the port has beats in the payload FIFO, its last not yet
reg  skip_reg = 1'b0;    // the rest of a frame cut by a crossing reset: taken, not forwarded
wire last_ok = !s_axis_pay_tlast || (s_frm_valid && trk_s_ready && (skip_reg || meta_fifo_s_ready));
assign s_axis_pay_tready = !x_rst_reg && (skip_reg || pay_fifo_s_ready) && last_ok;
wire beat      = s_axis_pay_tvalid && s_axis_pay_tready;
wire pay_push  = beat && !skip_reg;
wire meta_push = pay_push && s_axis_pay_tlast;
wire trk_push  = beat && s_axis_pay_tlast;
assign s_frm_ready = trk_push;

always @(posedge clk) begin
    if (beat) part_reg <= !s_axis_pay_tlast && !skip_reg;
    if (beat && s_axis_pay_tlast) skip_reg <= 1'b0;
    if (x_rst_reg) begin
        if (part_reg) skip_reg <= 1'b1;
        part_reg <= 1'b0;
    end
    if (rst) begin
        part_reg <= 1'b0;
        skip_reg <= 1'b0;
    end
end

wire [PAY_W-1:0]  mac_pay_data;
wire              mac_pay_valid, mac_pay_ready;
wire [PAY_FIFO_LOG2+1:0] mac_pay_count;

tsnic_cdc_async_fifo #(
    .WIDTH(PAY_W),
    .DEPTH_LOG2(PAY_FIFO_LOG2)
) pay_fifo_inst (
    .s_clk(clk), .s_rst(x_rst_reg),
    .s_data({s_axis_pay_tlast, s_axis_pay_tuser, s_axis_pay_tkeep, s_axis_pay_tdata}),
    .s_valid(pay_push), .s_ready(pay_fifo_s_ready), .s_count(),
    .m_clk(mac_clk), .m_rst(x_mac_rst_reg),
    .m_data(mac_pay_data), .m_valid(mac_pay_valid), .m_ready(mac_pay_ready), .m_count(mac_pay_count)
);

wire [META_W-1:0] mac_meta_data;
wire              mac_meta_valid, mac_meta_ready;
wire [META_FIFO_LOG2+1:0] unused_meta_count;

tsnic_cdc_async_fifo #(
    .WIDTH(META_W),
    .DEPTH_LOG2(META_FIFO_LOG2)
) meta_fifo_inst (
    .s_clk(clk), .s_rst(x_rst_reg),
    .s_data({s_frm_launch_ns, s_frm_req_launch_ns, s_frm_late, s_frm_capped, s_frm_queue,
             s_frm_ring_index, s_frm_cookie, s_frm_len, s_frm_handle}),
    .s_valid(meta_push), .s_ready(meta_fifo_s_ready), .s_count(),
    .m_clk(mac_clk), .m_rst(x_mac_rst_reg),
    .m_data(mac_meta_data), .m_valid(mac_meta_valid), .m_ready(mac_meta_ready), .m_count(unused_meta_count)
);

// ---------------------------------------------------------------------------------------------
// MAC side: the launch gate, offered a frame once all its beats are here
wire [63:0]        g_launch_ns, g_req_launch_ns;
wire               g_late, g_capped;
wire [QUEUE_W-1:0] g_queue;
wire [15:0]        g_ring_index, g_len;
wire [31:0]        g_cookie;
wire [NODE_W-1:0]  g_handle;
assign {g_launch_ns, g_req_launch_ns, g_late, g_capped, g_queue, g_ring_index, g_cookie, g_len,
        g_handle} = mac_meta_data;

// beats of the frame: whole beats plus one for a partial last beat
wire [16:0] g_beats = {1'b0, g_len >> BEAT_SHIFT} + {16'd0, |g_len[BEAT_SHIFT-1:0]};
wire        g_whole = ({{(30-PAY_FIFO_LOG2){1'b0}}, mac_pay_count} >= {15'd0, g_beats});
wire        g_frm_valid = mac_meta_valid && g_whole && tx_time_valid;
wire        g_frm_ready;
assign mac_meta_ready = g_frm_ready;

wire        mac_flush;
wire [31:0] mac_lat_comp_ns;
wire        unused_lat_update;

tsnic_cdc_sync #(.WIDTH(1)) flush_sync_inst (
    .clk(mac_clk), .rst(x_mac_rst_reg), .in(flush), .out(mac_flush)
);

tsnic_cdc_bus #(.WIDTH(32)) lat_comp_cdc_inst (
    .s_clk(clk), .s_rst(x_rst_reg), .s_data(tx_lat_comp_ns),
    .m_clk(mac_clk), .m_rst(x_mac_rst_reg), .m_data(mac_lat_comp_ns), .m_update(unused_lat_update)
);

wire               g_cpl_valid, g_cpl_ready, g_cpl_capped;
wire [QUEUE_W-1:0] g_cpl_queue;
wire [15:0]        g_cpl_ring_index, g_cpl_len;
wire [31:0]        g_cpl_cookie;
wire [63:0]        g_cpl_launch_ns, g_cpl_depart_ns;
wire [7:0]         g_cpl_status;
wire [NODE_W-1:0]  g_cpl_handle;
wire [7:0]         unused_g_reason;
wire               unused_g_handle_valid;

// MAC_LAG: a sent frame's completion waits for the MAC's line-start report (tsnic_cmac_tx_lag's
// comes 12 cycles after the frame's last beat), and a frame starts only when the gate's completion
// FIFO has room: 16 entries keep one-beat frames going at 100G (one every 2.2 cycles of 322 MHz)
tsnic_launch_gate #(
    .DATA_W(DATA_W),
    .NODE_W(NODE_W),
    .QUEUE_W(QUEUE_W),
    .CPL_FIFO_LOG2(MAC_LAG != 0 ? 4 : 2),
    .MAC_LAG(MAC_LAG)
) launch_gate_inst (
    .clk(mac_clk), .rst(x_mac_rst_reg),
    .phc_ns(tx_time_ns), .tx_lat_comp_ns(mac_lat_comp_ns), .flush(mac_flush),
    .s_frm_valid(g_frm_valid), .s_frm_ready(g_frm_ready), .s_frm_launch_ns(g_launch_ns),
    .s_frm_req_launch_ns(g_req_launch_ns), .s_frm_late(g_late), .s_frm_capped(g_capped),
    .s_frm_queue(g_queue), .s_frm_ring_index(g_ring_index), .s_frm_cookie(g_cookie),
    .s_frm_len(g_len), .s_frm_handle(g_handle),
    .s_axis_pay_tdata(mac_pay_data[DATA_W-1:0]), .s_axis_pay_tkeep(mac_pay_data[DATA_W +: KEEP_W]),
    .s_axis_pay_tlast(mac_pay_data[PAY_W-1]), .s_axis_pay_tuser(mac_pay_data[PAY_W-2]),
    .s_axis_pay_tvalid(mac_pay_valid),
    .s_axis_pay_tready(mac_pay_ready),
    .m_axis_tx_tdata(m_axis_tx_tdata), .m_axis_tx_tkeep(m_axis_tx_tkeep), .m_axis_tx_tlast(m_axis_tx_tlast),
    .m_axis_tx_tvalid(m_axis_tx_tvalid), .m_axis_tx_tready(m_axis_tx_tready),
    .s_mac_lag_valid(s_mac_lag_valid), .s_mac_lag_ns(s_mac_lag_ns),
    .m_cpl_req_valid(g_cpl_valid), .m_cpl_req_ready(g_cpl_ready),
    .m_cpl_req_queue(g_cpl_queue), .m_cpl_req_ring_index(g_cpl_ring_index),
    .m_cpl_req_cookie(g_cpl_cookie), .m_cpl_req_launch_ns(g_cpl_launch_ns),
    .m_cpl_req_depart_ns(g_cpl_depart_ns), .m_cpl_req_len(g_cpl_len),
    .m_cpl_req_status(g_cpl_status), .m_cpl_req_reason(unused_g_reason),
    .m_cpl_req_capped(g_cpl_capped), .m_cpl_req_handle(g_cpl_handle),
    .m_cpl_req_handle_valid(unused_g_handle_valid)
);

// ---------------------------------------------------------------------------------------------
// completion requests back to the core: departure time and status cross back; the fields come from
// the record, in the same (handing-over) order
wire [CPL_W-1:0] cpl_data;
wire             cpl_valid, cpl_ready;
wire [CPL_FIFO_LOG2+1:0] unused_cpl_count;

tsnic_cdc_async_fifo #(
    .WIDTH(CPL_W),
    .DEPTH_LOG2(CPL_FIFO_LOG2)
) cpl_fifo_inst (
    .s_clk(mac_clk), .s_rst(x_mac_rst_reg),
    .s_data({g_cpl_depart_ns, g_cpl_status}),
    .s_valid(g_cpl_valid), .s_ready(g_cpl_ready), .s_count(),
    .m_clk(clk), .m_rst(x_rst_reg),
    .m_data(cpl_data), .m_valid(cpl_valid), .m_ready(cpl_ready), .m_count(unused_cpl_count)
);

wire [TRK_W-1:0]         trk_data;
wire                     trk_valid, trk_pop;
wire [TRK_FIFO_LOG2+1:0] trk_count;

tsnic_fifo #(.WIDTH(TRK_W), .ADDR_W(TRK_FIFO_LOG2)) trk_fifo_inst (
    .clk(clk), .rst(rst),
    .s_valid(trk_push), .s_ready(trk_s_ready),
    .s_data({skip_reg, s_frm_queue, s_frm_ring_index, s_frm_cookie, s_frm_req_launch_ns, s_frm_len,
             s_frm_capped, s_frm_handle}),
    .m_valid(trk_valid), .m_ready(trk_pop), .m_data(trk_data),
    .count(trk_count)
);

// records whose frames a crossing reset lost: every record held while the reset is on (nothing is
// handed over then), counted down as they are given up
reg  [TRK_FIFO_LOG2+1:0] lost_reg = {(TRK_FIFO_LOG2+2){1'b0}};
wire trk_dead = trk_data[TRK_W-1];
wire give_up  = trk_valid && (trk_dead || (lost_reg != {(TRK_FIFO_LOG2+2){1'b0}}));
wire from_mac = trk_valid && !give_up && !x_rst_reg && cpl_valid;
assign m_cpl_req_valid = give_up || from_mac;
assign trk_pop   = m_cpl_req_valid && m_cpl_req_ready;
assign cpl_ready = from_mac && m_cpl_req_ready;

always @(posedge clk) begin
    if (x_rst_reg) begin
        lost_reg <= trk_count - {{(TRK_FIFO_LOG2+1){1'b0}}, trk_pop};
    end else if (trk_pop && (lost_reg != {(TRK_FIFO_LOG2+2){1'b0}})) begin
        lost_reg <= lost_reg - 1'b1;
    end
    if (rst) lost_reg <= {(TRK_FIFO_LOG2+2){1'b0}};
end

assign {m_cpl_req_queue, m_cpl_req_ring_index, m_cpl_req_cookie, m_cpl_req_launch_ns, m_cpl_req_len,
        m_cpl_req_capped, m_cpl_req_handle} = trk_data[TRK_W-2:0];
assign m_cpl_req_depart_ns = give_up ? phc_ns : cpl_data[CPL_W-1:8];
assign m_cpl_req_status    = give_up ? `TSNIC_STATUS_FLUSHED : cpl_data[7:0];
assign m_cpl_req_reason = `TSNIC_REJECT_NONE;
assign m_cpl_req_handle_valid = 1'b1;

/* verilator lint_off UNUSEDSIGNAL */
wire unused_ok = &{1'b0, unused_meta_count, unused_lat_update, unused_g_reason, unused_g_handle_valid,
                   unused_cpl_count, g_cpl_queue, g_cpl_ring_index, g_cpl_cookie, g_cpl_launch_ns, g_cpl_len,
                   g_cpl_capped, g_cpl_handle};
/* verilator lint_on UNUSEDSIGNAL */

endmodule
/* verilator lint_on PINCONNECTEMPTY */

`resetall
