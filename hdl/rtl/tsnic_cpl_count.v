// tsnic_cpl_count: per-queue count of completions written, for tsnic_desc_fetch's quota rule.
//
// One event per completion record written (tsnic_cpl_write's evt_cpl_valid / evt_cpl_queue, every
// status) adds 1 to its queue's 16-bit modular count. The count lives in a read-modify-write RAM
// (cycle 1 reads the queue's word, cycle 2 writes it + 1, forwarded when the next event of the same
// queue reads it in that cycle: one event per cycle) and in a write-only mirror RAM written with it,
// whose read port is the reader's (tsnic_desc_fetch's engine reads it in its pick stage, like its
// other per-queue RAMs). upd_valid / upd_queue show each mirror write (the reader's "count changed"
// flag): a read in the cycle of a write returns the old word (read-first), later reads the new one.
// The reset clears both RAMs, one word per cycle (2^QUEUE_W cycles, busy high); an event during the
// clear is not counted, so the core's reset must clear the completion writer too (it does: the
// completion writer takes no request for longer, until its own counter RAM is clear).
// See docs/DATAPATH.md, "tsnic_desc_fetch" (quota rule).
`resetall
`timescale 1ns / 1ps
`default_nettype none

module tsnic_cpl_count #(
    parameter NUM_QUEUES = 8,
    parameter QUEUE_W    = 3          // >= log2(NUM_QUEUES), >= 1
) (
    input  wire               clk,
    input  wire               rst,

    input  wire               evt_valid,     // one completion written
    input  wire [QUEUE_W-1:0] evt_queue,

    // the mirror's read port (registered read, latency 1)
    input  wire               rd_en,
    input  wire [QUEUE_W-1:0] rd_addr,
    output wire [15:0]        rd_data,

    output reg                upd_valid,     // the count of upd_queue is written this cycle
    output reg  [QUEUE_W-1:0] upd_queue,
    output wire               busy,          // clearing after reset
    output wire               ff_quiet       // no event being counted, not clearing
);

generate
    if (QUEUE_W < 1 || NUM_QUEUES > (1 << QUEUE_W)) begin : g_bad_qw
        tsnic_param_error_QUEUE_W_must_hold_NUM_QUEUES param_error_inst ();
    end
endgenerate

reg               init_busy;
reg [QUEUE_W-1:0] init_q;
reg               s1_valid;          // an event read its word last cycle
reg [QUEUE_W-1:0] s1_q;
reg               fwd;               // the word read last cycle was written in that cycle
reg [15:0]        fwd_data;
reg [15:0]        upd_data;

wire [15:0] cnt_ram;
wire [15:0] cnt_cur = fwd ? fwd_data : cnt_ram;
wire        take = evt_valid && !init_busy;

always @* begin
    upd_valid = s1_valid;
    upd_queue = s1_q;
    upd_data  = cnt_cur + 16'd1;
end

wire               we    = init_busy || upd_valid;
wire [QUEUE_W-1:0] waddr = init_busy ? init_q : upd_queue;
wire [15:0]        wdata = init_busy ? 16'd0 : upd_data;

tsnic_ram_sdp #(.WIDTH(16), .ADDR_W(QUEUE_W), .BE_W(1)) cnt_ram_inst (
    .clk(clk), .wr_en(we), .wr_addr(waddr), .wr_data(wdata),
    .rd_en(take), .rd_addr(evt_queue), .rd_data(cnt_ram));

tsnic_ram_sdp #(.WIDTH(16), .ADDR_W(QUEUE_W), .BE_W(1)) mirror_ram_inst (
    .clk(clk), .wr_en(we), .wr_addr(waddr), .wr_data(wdata),
    .rd_en(rd_en), .rd_addr(rd_addr), .rd_data(rd_data));

always @(posedge clk) begin
    if (rst) begin
        init_busy <= 1'b1;
        init_q    <= {QUEUE_W{1'b0}};
        s1_valid  <= 1'b0;
        s1_q      <= {QUEUE_W{1'b0}};
        fwd       <= 1'b0;
        fwd_data  <= 16'd0;
    end else begin
        if (init_busy) begin
            init_q <= init_q + 1'b1;
            if (&init_q) init_busy <= 1'b0;
        end
        s1_valid <= take;
        if (take) s1_q <= evt_queue;
        fwd      <= take && upd_valid && (upd_queue == evt_queue);
        if (take) fwd_data <= upd_data;
    end
end

assign busy     = init_busy;
assign ff_quiet = !init_busy && !s1_valid && !evt_valid;

endmodule

`resetall
