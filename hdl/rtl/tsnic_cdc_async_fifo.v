// tsnic_cdc_async_fifo: first-word-fall-through FIFO between two unrelated clocks (s_clk -> m_clk).
//
// - Storage: 2^DEPTH_LOG2 words in an inferred simple dual-port RAM (written on s_clk, read on m_clk
//   into the output register, the RAM's read register: block RAM or LUT RAM). Capacity 2^DEPTH_LOG2
//   words in the RAM plus the output register.
// - Pointers are DEPTH_LOG2+1 bits; each side keeps its pointer in binary and in Gray code (registered)
//   and the other side samples the Gray copy through a two-flop synchronizer. Only one bit of a Gray
//   pointer changes per increment, so a sample caught mid-change is either the old or the new value.
// - Timing, in cycles of the reading clock: a word pushed on s_clk is visible on m_* about 3-4 m_clk
//   cycles later (2 synchronizer flops, pointer conversion register, RAM read into the output
//   register). Free space seen by the writer lags by the mirror amount. Full throughput on both sides.
// - m_count: words the reader can take (output register + RAM words whose write it has seen); it only
//   under-counts, never over-counts, so "m_count >= N" means N words can be popped back to back.
// - Resets: s_rst and m_rst must be asserted together (board tops derive both from one reset, held
//   at least 4 cycles of the slower clock); a FIFO reset while the other side runs loses words.
//
// Constraints for the board XDC (Vivado), per instance:
//   set_max_delay -datapath_only <min(s_clk, m_clk) period> from s_gray_reg to m_wr_gray_sync1_reg and
//   from m_gray_reg to s_rd_gray_sync1_reg (the Gray bits must arrive within one cycle of each other);
//   the same on the RAM's read path (mem -> m_data_reg) if it is LUT RAM: a word is read at least two
//   m_clk cycles after its write, so one period of datapath delay is always enough. The *_sync1_reg
//   and *_sync2_reg flops carry ASYNC_REG (set here as an attribute).
`resetall
`timescale 1ns / 1ps
`default_nettype none

module tsnic_cdc_async_fifo #(
    parameter WIDTH      = 64,   // bits per word
    parameter DEPTH_LOG2 = 5     // log2 of the RAM depth in words (>= 2)
) (
    input  wire                  s_clk,
    input  wire                  s_rst,
    input  wire [WIDTH-1:0]      s_data,
    input  wire                  s_valid,
    output wire                  s_ready,
    output wire [DEPTH_LOG2+1:0] s_count,    // words held as the writer sees it (never under-counts)

    input  wire                  m_clk,
    input  wire                  m_rst,
    output wire [WIDTH-1:0]      m_data,
    output wire                  m_valid,
    input  wire                  m_ready,
    output wire [DEPTH_LOG2+1:0] m_count
);

localparam P_W = DEPTH_LOG2 + 1;

initial begin
    if (DEPTH_LOG2 < 2) begin
        $display("tsnic_cdc_async_fifo %m: DEPTH_LOG2 = %0d, must be >= 2", DEPTH_LOG2);
        $finish;
    end
end

function [P_W-1:0] bin2gray;
    input [P_W-1:0] b;
    begin
        bin2gray = b ^ (b >> 1);
    end
endfunction

function [P_W-1:0] gray2bin;
    input [P_W-1:0] g;
    integer i;
    begin
        gray2bin[P_W-1] = g[P_W-1];
        for (i = P_W - 2; i >= 0; i = i - 1)
            gray2bin[i] = gray2bin[i+1] ^ g[i];
    end
endfunction

reg [WIDTH-1:0] mem [0:(1<<DEPTH_LOG2)-1];

// ---------------------------------------------------------------------------------------------
// write side (s_clk)
reg [P_W-1:0] s_ptr_reg = {P_W{1'b0}};
reg [P_W-1:0] s_gray_reg = {P_W{1'b0}};
(* ASYNC_REG = "TRUE" *) reg [P_W-1:0] s_rd_gray_sync1_reg = {P_W{1'b0}};
(* ASYNC_REG = "TRUE" *) reg [P_W-1:0] s_rd_gray_sync2_reg = {P_W{1'b0}};

// full: the write pointer is one lap ahead of the (synchronized) read pointer
wire s_full = (s_gray_reg == {~s_rd_gray_sync2_reg[P_W-1:P_W-2], s_rd_gray_sync2_reg[P_W-3:0]});
assign s_ready = !s_full && !s_rst;
wire s_push = s_valid && s_ready;
reg [P_W-1:0] s_used_reg = {P_W{1'b0}};
assign s_count = {1'b0, s_used_reg};
wire [P_W-1:0] s_ptr_next = s_ptr_reg + 1'b1;

always @(posedge s_clk) begin
    if (s_push) begin
        mem[s_ptr_reg[DEPTH_LOG2-1:0]] <= s_data;
    end
end

always @(posedge s_clk) begin
    s_rd_gray_sync1_reg <= m_gray_reg;
    s_rd_gray_sync2_reg <= s_rd_gray_sync1_reg;
    s_used_reg <= (s_push ? s_ptr_next : s_ptr_reg) - gray2bin(s_rd_gray_sync2_reg);
    if (s_push) begin
        s_ptr_reg  <= s_ptr_next;
        s_gray_reg <= bin2gray(s_ptr_next);
    end
    if (s_rst) begin
        s_ptr_reg <= {P_W{1'b0}};
        s_gray_reg <= {P_W{1'b0}};
        s_rd_gray_sync1_reg <= {P_W{1'b0}};
        s_rd_gray_sync2_reg <= {P_W{1'b0}};
        s_used_reg <= {P_W{1'b0}};
    end
end

// ---------------------------------------------------------------------------------------------
// read side (m_clk)
reg [P_W-1:0] m_ptr_reg = {P_W{1'b0}};
reg [P_W-1:0] m_gray_reg = {P_W{1'b0}};
(* ASYNC_REG = "TRUE" *) reg [P_W-1:0] m_wr_gray_sync1_reg = {P_W{1'b0}};
(* ASYNC_REG = "TRUE" *) reg [P_W-1:0] m_wr_gray_sync2_reg = {P_W{1'b0}};
reg [P_W-1:0] m_wr_ptr_reg = {P_W{1'b0}};     // synchronized write pointer, in binary
reg [WIDTH-1:0] m_data_reg = {WIDTH{1'b0}};
reg           m_valid_reg = 1'b0;

wire [P_W-1:0] m_ram_words = m_wr_ptr_reg - m_ptr_reg;
wire m_ram_has = (m_ram_words != {P_W{1'b0}});
wire m_load = m_ram_has && (!m_valid_reg || m_ready);
wire [P_W-1:0] m_ptr_next = m_ptr_reg + 1'b1;

assign m_data  = m_data_reg;
assign m_valid = m_valid_reg;
assign m_count = {1'b0, m_ram_words} + {{P_W{1'b0}}, m_valid_reg};

always @(posedge m_clk) begin
    if (m_load) begin
        m_data_reg <= mem[m_ptr_reg[DEPTH_LOG2-1:0]];
    end
end

always @(posedge m_clk) begin
    m_wr_gray_sync1_reg <= s_gray_reg;
    m_wr_gray_sync2_reg <= m_wr_gray_sync1_reg;
    m_wr_ptr_reg <= gray2bin(m_wr_gray_sync2_reg);
    if (m_load) begin
        m_ptr_reg  <= m_ptr_next;
        m_gray_reg <= bin2gray(m_ptr_next);
        m_valid_reg <= 1'b1;
    end else if (m_ready) begin
        m_valid_reg <= 1'b0;
    end
    if (m_rst) begin
        m_ptr_reg <= {P_W{1'b0}};
        m_gray_reg <= {P_W{1'b0}};
        m_wr_gray_sync1_reg <= {P_W{1'b0}};
        m_wr_gray_sync2_reg <= {P_W{1'b0}};
        m_wr_ptr_reg <= {P_W{1'b0}};
        m_valid_reg <= 1'b0;
    end
end

endmodule

`resetall
