// tsnic_desc_table: the descriptor table. 2^NODE_W entries, one per descriptor between fetch and
// completion; the handle is the entry's index (the calendar carries only the handle).
//
// - Allocation (tsnic_desc_fetch): alloc_valid says a free handle alloc_handle is offered; asserting
//   wr_en (only while alloc_valid) writes the entry at alloc_handle and takes that handle.
// - Read (tsnic_tx_prefetch): rd_en with rd_handle; one cycle later rd_valid pulses and rd_* hold the
//   entry (they keep it until the next rd_en).
// - Free (tsnic_cpl_write): free_valid/free_ready/free_handle returns a handle; free_ready is 1 unless
//   more handles are freed than were allocated (a caller bug).
// Free list: after reset every handle is "fresh" (a counter hands out 0, 1, ... 2^NODE_W-1), then
// freed handles come back through a FIFO in block RAM, so reset takes one cycle, not 2^NODE_W.
`resetall
`timescale 1ns / 1ps
`default_nettype none

module tsnic_desc_table #(
    parameter NODE_W  = 10,
    parameter QUEUE_W = 3
) (
    input  wire                clk,
    input  wire                rst,

    // allocate + write
    output wire                alloc_valid,
    output wire [NODE_W-1:0]   alloc_handle,
    input  wire                wr_en,
    input  wire [63:0]         wr_addr,
    input  wire [15:0]         wr_len,
    input  wire [31:0]         wr_cookie,
    input  wire [63:0]         wr_launch_ns,
    input  wire [15:0]         wr_ring_index,
    input  wire [QUEUE_W-1:0]  wr_queue,

    // read by handle (fixed latency 1)
    input  wire                rd_en,
    input  wire [NODE_W-1:0]   rd_handle,
    output reg                 rd_valid,
    output wire [63:0]         rd_addr,
    output wire [15:0]         rd_len,
    output wire [31:0]         rd_cookie,
    output wire [63:0]         rd_launch_ns,
    output wire [15:0]         rd_ring_index,
    output wire [QUEUE_W-1:0]  rd_queue,

    // free
    input  wire                free_valid,
    output wire                free_ready,
    input  wire [NODE_W-1:0]   free_handle,

    // status
    output reg  [NODE_W:0]     used_count       // entries allocated and not yet freed
);

localparam ENTRY_W = 64 + 16 + 32 + 64 + 16 + QUEUE_W;

reg  [NODE_W:0]   fresh;            // next never-used handle; 2^NODE_W when all have been used once
wire              fresh_avail = !fresh[NODE_W];

wire              fl_valid;
wire [NODE_W-1:0] fl_handle;
wire              fl_pop = wr_en && !fresh_avail;

assign alloc_valid  = fresh_avail || fl_valid;
assign alloc_handle = fresh_avail ? fresh[NODE_W-1:0] : fl_handle;

/* verilator lint_off PINCONNECTEMPTY */
tsnic_fifo #(
    .WIDTH  (NODE_W),
    .ADDR_W (NODE_W)
) free_list_inst (
    .clk       (clk),
    .rst       (rst),
    .s_valid   (free_valid),
    .s_ready   (free_ready),
    .s_data    (free_handle),
    .m_valid   (fl_valid),
    .m_ready   (fl_pop),
    .m_data    (fl_handle),
    .count()
);
/* verilator lint_on PINCONNECTEMPTY */

wire [ENTRY_W-1:0] rd_entry;

tsnic_ram_sdp #(
    .WIDTH  (ENTRY_W),
    .ADDR_W (NODE_W),
    .BE_W   (1)
) entries_inst (
    .clk     (clk),
    .wr_en   (wr_en),
    .wr_addr (alloc_handle),
    .wr_data ({wr_queue, wr_ring_index, wr_launch_ns, wr_cookie, wr_len, wr_addr}),
    .rd_en   (rd_en),
    .rd_addr (rd_handle),
    .rd_data (rd_entry)
);

assign rd_addr       = rd_entry[63:0];
assign rd_len        = rd_entry[79:64];
assign rd_cookie     = rd_entry[111:80];
assign rd_launch_ns  = rd_entry[175:112];
assign rd_ring_index = rd_entry[191:176];
assign rd_queue      = rd_entry[192 +: QUEUE_W];

always @(posedge clk) begin
    if (rst) begin
        fresh      <= {(NODE_W+1){1'b0}};
        rd_valid   <= 1'b0;
        used_count <= {(NODE_W+1){1'b0}};
    end else begin
        rd_valid <= rd_en;
        if (wr_en && fresh_avail) fresh <= fresh + 1'b1;
        case ({wr_en && alloc_valid, free_valid && free_ready})
            2'b10:   used_count <= used_count + 1'b1;
            2'b01:   used_count <= used_count - 1'b1;
            default: used_count <= used_count;
        endcase
    end
end

endmodule

`resetall
