// tsnic_ram_sdp: the project's one simple dual-port RAM. One write port (byte-lane enables), one
// read port with a registered read; OUT_REG=1 adds a second output register (the block RAM's own
// output register on Xilinx parts, for RAM-sourced paths that would otherwise miss timing).
//
//   read latency: 1 cycle (OUT_REG=0) or 2 cycles (OUT_REG=1) after rd_en; rd_en low holds rd_data.
//   read-during-write to the same address returns the old word (read-first); callers that need the
//   new word forward around the RAM.
//   contents start at zero in simulation; on the FPGA, block RAM and UltraRAM also configure to zero.
//   Infers block RAM / UltraRAM at large sizes and LUT RAM when small.
//
// Parameter rules are checked at elaboration (see tsnic_param_check below): WIDTH a multiple of BE_W,
// ADDR_W >= 1, OUT_REG 0 or 1.
`resetall
`timescale 1ns / 1ps
`default_nettype none

module tsnic_ram_sdp #(
    parameter WIDTH   = 32,   // word width in bits
    parameter ADDR_W  = 4,    // 2^ADDR_W words
    parameter BE_W    = 1,    // write-enable lanes of WIDTH/BE_W bits each
    parameter OUT_REG = 0     // 1: one more output register (read latency 2)
) (
    input  wire              clk,
    input  wire [BE_W-1:0]   wr_en,
    input  wire [ADDR_W-1:0] wr_addr,
    input  wire [WIDTH-1:0]  wr_data,
    input  wire              rd_en,
    input  wire [ADDR_W-1:0] rd_addr,
    output wire [WIDTH-1:0]  rd_data
);

localparam LANE_W = WIDTH / BE_W;

generate
    if (BE_W < 1 || WIDTH % BE_W != 0) begin : g_bad_be
        tsnic_param_error_WIDTH_must_be_a_multiple_of_BE_W param_error_inst ();
    end
    if (ADDR_W < 1) begin : g_bad_addr
        tsnic_param_error_ADDR_W_must_be_at_least_1 param_error_inst ();
    end
    if (OUT_REG != 0 && OUT_REG != 1) begin : g_bad_out
        tsnic_param_error_OUT_REG_must_be_0_or_1 param_error_inst ();
    end
endgenerate

reg [WIDTH-1:0] mem [0:(1<<ADDR_W)-1];
reg [WIDTH-1:0] rd_q = {WIDTH{1'b0}};

// Simulation only: zeros instead of X. Not for synthesis: Yosys would unroll the loop over every word
// (up to 2^16 here), and the FPGA's RAM configures to zero anyway.
`ifndef SYNTHESIS
integer n;
initial begin
    for (n = 0; n < (1<<ADDR_W); n = n + 1) mem[n] = {WIDTH{1'b0}};
end
`endif

// The read comes first and the write is a blocking one: `mem` belongs to this block alone (nothing
// else reads or writes it), so the read still returns the old word (read-first) and the RAM is the
// same; a cycle-based simulator (Verilator) then stores the written word directly instead of keeping
// per-instance delayed-write state (a flag, an address and a value set and tested in every cycle).
integer i;
always @(posedge clk) begin
    if (rd_en) rd_q <= mem[rd_addr];
    for (i = 0; i < BE_W; i = i + 1) begin
        /* verilator lint_off BLKSEQ */
        if (wr_en[i]) mem[wr_addr][i*LANE_W +: LANE_W] = wr_data[i*LANE_W +: LANE_W];
        /* verilator lint_on BLKSEQ */
    end
end

generate
    if (OUT_REG == 1) begin : g_out_reg
        reg             rd_en_q = 1'b0;
        reg [WIDTH-1:0] rd_qq = {WIDTH{1'b0}};
        always @(posedge clk) begin
            rd_en_q <= rd_en;
            if (rd_en_q) rd_qq <= rd_q;
        end
        assign rd_data = rd_qq;
    end else begin : g_no_out_reg
        assign rd_data = rd_q;
    end
endgenerate

endmodule

`resetall
