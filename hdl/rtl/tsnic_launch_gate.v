// tsnic_launch_gate: holds each prefetched frame until phc_ns >= launch_ns, then streams it.
//
// - Frames come in release order: metadata on s_frm_*, payload on s_axis_pay_* (whole frame already
//   in the TX buffer). The head frame's first beat is offered on m_axis_tx_* only in a cycle where
//   phc_ns >= s_frm_launch_ns (combinational compare on the PHC register), so it never leaves early
//   and, on an idle line with the frame already buffered, it leaves in the first such cycle:
//   depart error < one PHC increment. Once offered, tvalid stays up until the MAC takes the beat.
// - depart_ns = phc_ns in the cycle of the first beat's handshake + tx_lat_comp_ns.
// - Status SENT_LATE when the calendar said so (s_frm_late), or when the frame could already have
//   left a cycle earlier (the PHC value of the previous cycle was already >= launch_ns: the frame
//   waited for the frame ahead, for the MAC, or for its payload). Otherwise SENT.
// - flush (level): a frame whose first beat has not been offered yet is consumed without being
//   sent and completed FLUSHED (depart_ns = PHC time of the decision).
// - s_axis_pay_tuser (its payload read failed): the frame is consumed as soon as it is at the head,
//   without waiting for its launch time, never sent, and completed DMA_ERROR (depart_ns = decision).
// - One completion request per frame, queued in a small FIFO; a frame starts only when that FIFO
//   has room, so its completion is never held up.
// - MAC_LAG = 1: the departure is the frame's start on the line, not its first beat at the MAC. A MAC
//   with a FIFO takes a beat before the line is free (on a busy line, up to its FIFO depth), so for
//   every frame whose first beat it took it reports, in order, how long after that beat's handshake
//   the frame's preamble started on the line (s_mac_lag_valid / s_mac_lag_ns, at any later cycle, at
//   most one per cycle, never stalled). The completion of a sent frame waits for its report:
//   depart_ns = first-beat PHC + tx_lat_comp_ns + lag, and a lag of LAG_LATE_NS or more makes it
//   SENT_LATE (it waited for the line). Dropped frames never reach the MAC and take no report.
//   MAC_LAG = 0: the lag is 0 (the MAC starts every frame at its first beat).
`resetall
`timescale 1ns / 1ps
`default_nettype none
`include "tsnic_contract.vh"

module tsnic_launch_gate #(
    parameter DATA_W        = 64,
    parameter NODE_W        = 10,
    parameter QUEUE_W       = 3,
    parameter CPL_FIFO_LOG2 = 2,
    parameter MAC_LAG       = 0,        // 1: departures wait for the MAC's line-start report (above)
    parameter LAG_LATE_NS   = 4         // a lag of this many ns or more is a wait for the line
) (
    input  wire                   clk,
    input  wire                   rst,

    input  wire [63:0]            phc_ns,
    input  wire [31:0]            tx_lat_comp_ns,
    input  wire                   flush,

    // frame metadata (tsnic_tx_prefetch m_frm_*)
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

    // payload (tsnic_tx_prefetch m_axis_pay_*)
    input  wire [DATA_W-1:0]      s_axis_pay_tdata,
    input  wire [DATA_W/8-1:0]    s_axis_pay_tkeep,
    input  wire                   s_axis_pay_tlast,
    input  wire                   s_axis_pay_tuser,    // payload read failed: drop, complete DMA_ERROR
    input  wire                   s_axis_pay_tvalid,
    output wire                   s_axis_pay_tready,

    // to the MAC
    output wire [DATA_W-1:0]      m_axis_tx_tdata,
    output wire [DATA_W/8-1:0]    m_axis_tx_tkeep,
    output wire                   m_axis_tx_tlast,
    output wire                   m_axis_tx_tvalid,
    input  wire                   m_axis_tx_tready,

    // the MAC's line-start report, one per frame it took, in order (MAC_LAG = 1; ignored otherwise)
    input  wire                   s_mac_lag_valid,
    input  wire [15:0]            s_mac_lag_ns,

    // completion request: SENT / SENT_LATE / FLUSHED
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
    output wire                   m_cpl_req_handle_valid
);

reg        in_frame = 1'b0;    // first beat sent, rest of the frame going out
reg        offered = 1'b0;     // first beat offered (tvalid high) but not yet taken
reg        dropping = 1'b0;    // frame being consumed under flush or for a DMA error
reg        drop_err = 1'b0;    // ... for a DMA error
reg [63:0] dep_q = 64'd0;
reg        late_q = 1'b0;
reg [63:0] phc_prev = 64'd0;   // phc_ns of the previous cycle

wire cpl_space;

wire time_ok  = (phc_ns >= s_frm_launch_ns);
wire head_ok  = s_frm_valid && s_axis_pay_tvalid && cpl_space;
wire idle     = !in_frame && !dropping;
wire pay_err    = s_axis_pay_tuser;
wire fire_first = idle && head_ok && !pay_err && (offered || (time_ok && !flush));
wire drop_start = idle && head_ok && !offered && (flush || pay_err);

assign m_axis_tx_tdata  = s_axis_pay_tdata;
assign m_axis_tx_tkeep  = s_axis_pay_tkeep;
assign m_axis_tx_tlast  = s_axis_pay_tlast;
assign m_axis_tx_tvalid = in_frame ? s_axis_pay_tvalid : fire_first;

assign s_axis_pay_tready = (in_frame || fire_first) ? m_axis_tx_tready : (dropping || drop_start);

wire pay_fire  = s_axis_pay_tvalid && s_axis_pay_tready;
wire tx_first  = fire_first && m_axis_tx_tready;
wire frame_end = pay_fire && s_axis_pay_tlast;

wire [63:0] dep_now  = phc_ns + {32'd0, tx_lat_comp_ns};
wire        late_now = s_frm_late || (phc_prev >= s_frm_launch_ns);

wire [63:0] cpl_depart = (tx_first || drop_start) ? (drop_start ? phc_ns : dep_now) : dep_q;
wire        cpl_flushed = dropping || drop_start;
wire        cpl_dma_err = drop_start ? pay_err : (dropping && drop_err);
wire        cpl_late = tx_first ? late_now : late_q;
wire [7:0]  cpl_status = cpl_dma_err ? `TSNIC_STATUS_DMA_ERROR
                       : cpl_flushed ? `TSNIC_STATUS_FLUSHED
                       : (cpl_late ? `TSNIC_STATUS_SENT_LATE : `TSNIC_STATUS_SENT);

assign s_frm_ready = frame_end;

always @(posedge clk) begin
    phc_prev <= phc_ns;
    if (fire_first && !m_axis_tx_tready) begin
        offered <= 1'b1;
    end
    if (tx_first) begin
        offered  <= 1'b0;
        dep_q    <= dep_now;
        late_q   <= late_now;
        in_frame <= !s_axis_pay_tlast;
    end
    if (drop_start) begin
        dep_q    <= phc_ns;
        dropping <= !s_axis_pay_tlast;
        drop_err <= pay_err;
    end
    if (in_frame && frame_end) begin
        in_frame <= 1'b0;
    end
    if (dropping && frame_end) begin
        dropping <= 1'b0;
    end
    if (rst) begin
        in_frame <= 1'b0;
        offered  <= 1'b0;
        dropping <= 1'b0;
    end
end

// completion FIFO
localparam C_W = 1 + QUEUE_W + 16 + 32 + 64 + 64 + 16 + 8 + 1 + NODE_W;
wire           cpl_wire = !(cpl_flushed || cpl_dma_err);   // went to the MAC: takes a lag report
wire [C_W-1:0] c_in = {cpl_wire, s_frm_queue, s_frm_ring_index, s_frm_cookie, s_frm_req_launch_ns, cpl_depart,
                       s_frm_len, cpl_status, s_frm_capped, s_frm_handle};
wire [C_W-1:0] c_out;
wire           c_valid;
wire           c_pop;
wire [CPL_FIFO_LOG2+1:0] unused_count;

tsnic_fifo #(.WIDTH(C_W), .ADDR_W(CPL_FIFO_LOG2)) cpl_fifo_inst (
    .clk(clk), .rst(rst),
    .s_valid(frame_end), .s_ready(cpl_space),
    .s_data(c_in),
    .m_valid(c_valid), .m_ready(c_pop), .m_data(c_out),
    .count(unused_count)
);

wire                c_wire;
wire [QUEUE_W-1:0]  c_queue;
wire [15:0]         c_ring_index;
wire [31:0]         c_cookie;
wire [63:0]         c_launch_ns;
wire [63:0]         c_depart_ns;
wire [15:0]         c_len;
wire [7:0]          c_status;
wire                c_capped;
wire [NODE_W-1:0]   c_handle;
assign {c_wire, c_queue, c_ring_index, c_cookie, c_launch_ns, c_depart_ns, c_len, c_status, c_capped,
        c_handle} = c_out;

generate
if (MAC_LAG != 0) begin : g_lag
    // Lag reports: one per frame whose first beat the MAC took, so at most the frames in the
    // completion FIFO plus the one going out are owed one: twice the FIFO's depth never fills.
    wire        l_valid;
    wire [15:0] l_ns;
    wire [CPL_FIFO_LOG2+2:0] unused_l_count;
    wire        unused_l_ready;
    tsnic_fifo #(.WIDTH(16), .ADDR_W(CPL_FIFO_LOG2 + 1)) lag_fifo_inst (
        .clk(clk), .rst(rst),
        .s_valid(s_mac_lag_valid), .s_ready(unused_l_ready), .s_data(s_mac_lag_ns),
        .m_valid(l_valid), .m_ready(c_pop && c_wire), .m_data(l_ns),
        .count(unused_l_count)
    );
    // one output register: the 64-bit add stays off the completion writer's paths
    reg                 o_valid = 1'b0;
    reg  [C_W-2:0]      o_data = {(C_W-1){1'b0}};
    wire                o_take = !o_valid || m_cpl_req_ready;
    wire [16:0]         lag_late = {1'b0, l_ns} - LAG_LATE_NS;
    wire                l_late = !lag_late[16];
    wire [7:0]          st_l = (c_status == `TSNIC_STATUS_SENT && l_late) ? `TSNIC_STATUS_SENT_LATE : c_status;
    assign c_pop = c_valid && (!c_wire || l_valid) && o_take;
    always @(posedge clk) begin
        if (o_take) o_valid <= c_pop;
        if (c_pop) begin
            o_data <= c_wire ? {c_queue, c_ring_index, c_cookie, c_launch_ns, c_depart_ns + {48'd0, l_ns},
                                c_len, st_l, c_capped, c_handle}
                             : c_out[C_W-2:0];
        end
        if (rst) o_valid <= 1'b0;
    end
    assign m_cpl_req_valid = o_valid;
    assign {m_cpl_req_queue, m_cpl_req_ring_index, m_cpl_req_cookie, m_cpl_req_launch_ns,
            m_cpl_req_depart_ns, m_cpl_req_len, m_cpl_req_status, m_cpl_req_capped,
            m_cpl_req_handle} = o_data;
    /* verilator lint_off UNUSED */
    wire unused_lag = &{1'b0, unused_l_count, unused_l_ready, lag_late[15:0]};
    /* verilator lint_on UNUSED */
end else begin : g_nolag
    assign c_pop = m_cpl_req_ready;
    assign m_cpl_req_valid = c_valid;
    assign {m_cpl_req_queue, m_cpl_req_ring_index, m_cpl_req_cookie, m_cpl_req_launch_ns,
            m_cpl_req_depart_ns, m_cpl_req_len, m_cpl_req_status, m_cpl_req_capped,
            m_cpl_req_handle} = c_out[C_W-2:0];
    /* verilator lint_off UNUSED */
    wire unused_lag = &{1'b0, s_mac_lag_valid, s_mac_lag_ns, c_wire, c_queue, c_ring_index, c_cookie,
                         c_launch_ns, c_depart_ns, c_len, c_status, c_capped, c_handle};
    /* verilator lint_on UNUSED */
end
endgenerate
assign m_cpl_req_reason       = `TSNIC_REJECT_NONE;
assign m_cpl_req_handle_valid = 1'b1;

/* verilator lint_off UNUSED */
wire unused_ok = &{1'b0, unused_count, LAG_LATE_NS[0]};
/* verilator lint_on UNUSED */

endmodule

`resetall
