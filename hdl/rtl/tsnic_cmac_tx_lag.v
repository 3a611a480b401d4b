// tsnic_cmac_tx_lag: line-start reports for a MAC that has none of its own (the Alveo boards' CMAC),
// derived from the stream the MAC takes: per frame, in order, how long after its first beat's
// handshake the frame starts on the line, beyond the MAC's fixed latency, in whole ns rounded down
// (m_lag_valid for one cycle, m_lag_ns; the launch gate's MAC_LAG interface, tsnic_launch_gate).
//
// The line, as IEEE 802.3 and PG203 have it (docs/BOARDS.md, "Departure stamp"):
// - A frame reaches the line's serialiser a fixed latency after its first beat's handshake (its start
//   on an idle line); that latency is the same for every frame, so it is left to CTRL_TX_LAT_COMP_NS
//   and everything here is on the handshake's time scale.
// - On the line a frame takes its preamble and SFD (8 octets), its bytes (padded to MIN_LEN), its FCS
//   (4) and the inter-packet gap; the next frame starts at its own first beat or when that gap ends,
//   whichever is later.
// - The gap: the Start goes only in the first octet of a COL-octet column (100GBASE-R: the one
//   start block type of 802.3 clause 82, 8 octets), so after each frame the IFG-octet gap
//   (PG203 CTL_TX_IPG_VALUE: 12) is shortened to the column before (deleting idles) while the
//   deficit idle count stays within 0..COL-1, else lengthened to the column after (inserting idles;
//   the count drops by as many, not below 0): 802.3 46.3.1.4's deficit idle count on COL-octet
//   columns.
// - Time: one MAC clock cycle is CYCLE_U units and one line octet OCTET_U units, exactly (322.265625
//   MHz at 100 Gb/s: 1280/33 octets a cycle, so units of 1/33 octet = 80/33 ps), so no error builds up
//   over a busy line. A unit is OCTET_PS / OCTET_U ps; the report is the lag in units times
//   NS_MUL / 2^NS_SHIFT (exact floor for lags below 2^25 units; NS_SHIFT must make it so,
//   the bench checks the defaults), at most 65535 ns.
//
// Pipeline (all on clk, the MAC's TX clock; reports come 12 cycles after a frame's last beat,
// one per frame, at most one per cycle, never stalled):
//   in  the handshake, registered
//   s1  at the last beat: beats before it, its tkeep, cycles since the first beat's handshake
//   s2  length: beats * DATA_W/8 + bytes in the last (its tkeep packed)
//   s3  octets on the line before the gap, its column remainder
//   s4  the deficit idle count (a loop over frames): octets the frame holds the line, gap included
//   s5  both in units, with the first beat's age at the loop
//   loop  backlog_reg = when the line is free, relative to this cycle's edge, in units (signed;
//         no lower than -AGE_MAX cycles' worth): the frame starts max(0, backlog + age) after its
//         first beat; the line is then free that start plus its octets later; every cycle one
//         cycle less
//   c1..c4  the lag in ns: clamp, multiply (digit tables and adds), shift
`resetall
`timescale 1ns / 1ps
`default_nettype none

module tsnic_cmac_tx_lag #(
    parameter DATA_W        = 512,    // the stream's width (tkeep DATA_W/8)
    parameter CYCLE_U       = 1280,   // one clk cycle, units
    parameter OCTET_U       = 33,     // one line octet, units
    parameter OCTET_PS      = 80,     // one line octet, ps (100 Gb/s)
    parameter COL_LOG2      = 3,      // a Start only in the first octet of a 2^COL_LOG2-octet column
    parameter IFG           = 12,     // inter-packet gap, octets (the average)
    parameter PREAMBLE      = 8,      // preamble and SFD, octets
    parameter FCS           = 4,      // the MAC appends it, octets
    parameter MIN_LEN       = 60,     // shorter frames are padded to this (without FCS)
    parameter LEN_W         = 14,     // frame length bits (9600-byte frames fit)
    parameter AGE_W         = 12,     // cycles from a first beat to its last beat: saturate at 2^AGE_W - 1
    parameter B_W           = 32,     // backlog register, signed units (2^31 units = 5.2 ms of line)
    parameter NS_SHIFT      = 31      // units -> ns: (lag * NS_MUL) >> NS_SHIFT
) (
    input  wire               clk,
    input  wire               rst,
    // the stream the MAC takes (observed only)
    input  wire               s_axis_tvalid,
    input  wire               s_axis_tready,
    input  wire               s_axis_tlast,
    input  wire [DATA_W/8-1:0] s_axis_tkeep,
    // one report per frame, in order
    output wire               m_lag_valid,
    output wire [15:0]        m_lag_ns
);

localparam BYTES = DATA_W / 8;
localparam BYTES_LOG2 = $clog2(BYTES);
localparam KEEP_W = $clog2(BYTES + 1);
localparam COL = 1 << COL_LOG2;
localparam DIC_MAX = COL - 1;
localparam LAG_CLAMP_W = 25;   // lags of 2^25 units (81 us at 100G) or more report 65535 ns
localparam PIPE = 6;     // cycles from a last beat's handshake to the loop's (in, s1 .. s5)
localparam [63:0] NS_DEN = OCTET_U * 1000;
localparam [63:0] NS_MUL = (((64'd1 << NS_SHIFT) * OCTET_PS) + NS_DEN - 64'd1) / NS_DEN;
localparam MUL_W = $clog2(NS_MUL + 64'd1);
localparam O_W = LEN_W + 1;                          // octets a frame holds the line
localparam signed [B_W-1:0] CYC = CYCLE_U;
// the backlog never goes below the oldest first beat the loop can see: -(AGE_MAX + PIPE + 1) cycles
localparam signed [B_W-1:0] B_LOW = -(((1 << AGE_W) + PIPE + 1) * CYCLE_U);

// ---- s0: the handshake, registered (the stream's signals reach only these flip-flops), then the
// frame's beats and the cycles since its first beat's handshake
reg                 in_fire = 1'b0;
reg                 in_last = 1'b0;
reg  [BYTES-1:0]    in_keep = {BYTES{1'b0}};
always @(posedge clk) begin
    in_fire <= s_axis_tvalid && s_axis_tready;
    in_last <= s_axis_tlast;
    in_keep <= s_axis_tkeep;
    if (rst) in_fire <= 1'b0;
end

reg                 mid_reg = 1'b0;                 // inside a frame
reg  [LEN_W-1:0]    nb_reg = {LEN_W{1'b0}};         // beats of this frame taken so far
reg  [AGE_W-1:0]    age_reg = {AGE_W{1'b0}};        // cycles since its first beat's handshake
wire                age_max = &age_reg;

always @(posedge clk) begin
    if (!age_max) age_reg <= age_reg + 1'b1;
    if (in_fire) begin
        mid_reg <= !in_last;
        nb_reg <= in_last ? {LEN_W{1'b0}} : nb_reg + 1'b1;
        if (!mid_reg) age_reg <= {{(AGE_W-1){1'b0}}, 1'b1};
    end
    if (rst) begin
        mid_reg <= 1'b0;
        nb_reg <= {LEN_W{1'b0}};
    end
end

// ---- s1: the last beat
reg                 s1_valid = 1'b0;
reg  [LEN_W-1:0]    s1_nb = {LEN_W{1'b0}};
reg  [BYTES-1:0]    s1_keep = {BYTES{1'b0}};
reg  [AGE_W-1:0]    s1_age = {AGE_W{1'b0}};
always @(posedge clk) begin
    s1_valid <= in_fire && in_last;
    s1_nb <= nb_reg;
    s1_keep <= in_keep;
    s1_age <= mid_reg ? age_reg : {AGE_W{1'b0}};
    if (rst) begin   // (the age's resets, here to s4: flip-flops, not a shift-register LUT's slow output)
        s1_valid <= 1'b0;
        s1_age <= {AGE_W{1'b0}};
    end
end

// ---- s2: the length. tkeep is packed (its ones from bit 0: the launch gate's frames, and what an
// AXI4-Stream MAC takes), so bit j of its count of ones is the parity of bits 2^j - 1, 2 * 2^j - 1, ...
// (each says "at least k * 2^j bytes"): XORs, no adder tree.
function [KEEP_W-1:0] ones(input [BYTES-1:0] k);
    integer i, j;
    begin
        ones = {KEEP_W{1'b0}};
        for (j = 0; j < KEEP_W; j = j + 1)
            for (i = (1 << j) - 1; i < BYTES; i = i + (1 << j)) ones[j] = ones[j] ^ k[i];
    end
endfunction

reg                 s2_valid = 1'b0;
reg  [LEN_W-1:0]    s2_len = {LEN_W{1'b0}};
reg  [AGE_W-1:0]    s2_age = {AGE_W{1'b0}};
always @(posedge clk) begin
    s2_valid <= s1_valid;
    s2_len <= (s1_nb << BYTES_LOG2) + {{(LEN_W-KEEP_W){1'b0}}, ones(s1_keep)};
    s2_age <= s1_age;
    if (rst) begin
        s2_valid <= 1'b0;
        s2_age <= {AGE_W{1'b0}};
    end
end

// ---- s3: octets before the gap, and their column remainder
localparam [O_W-1:0] FIXED = PREAMBLE + FCS + IFG;
wire [LEN_W-1:0]    s2_padded = (s2_len < MIN_LEN) ? MIN_LEN[LEN_W-1:0] : s2_len;
wire [O_W-1:0]      s2_total = {1'b0, s2_padded} + FIXED;   // with the full IFG
reg                 s3_valid = 1'b0;
reg  [O_W-1:0]      s3_down = {O_W{1'b0}};       // the total rounded down to a column
reg  [COL_LOG2-1:0] s3_rem = {COL_LOG2{1'b0}};
reg  [AGE_W-1:0]    s3_age = {AGE_W{1'b0}};
always @(posedge clk) begin
    s3_valid <= s2_valid;
    s3_down <= {s2_total[O_W-1:COL_LOG2], {COL_LOG2{1'b0}}};
    s3_rem <= s2_total[COL_LOG2-1:0];
    s3_age <= s2_age;
    if (rst) begin
        s3_valid <= 1'b0;
        s3_age <= {AGE_W{1'b0}};
    end
end

// ---- s4: the deficit idle count: delete the remainder while the count stays <= DIC_MAX, else insert
// up to the next column (the count drops by the idles inserted, not below 0)
reg  [COL_LOG2-1:0] dic_reg = {COL_LOG2{1'b0}};
wire [COL_LOG2:0]   dic_sum = {1'b0, dic_reg} + {1'b0, s3_rem};
wire                del = (dic_sum <= DIC_MAX);
wire [COL_LOG2:0]   ins = COL[COL_LOG2:0] - {1'b0, s3_rem};       // idles inserted (1..COL-1)
wire [COL_LOG2:0]   dic_diff = {1'b0, dic_reg} - ins;                 // -COL..COL-2: its top bit is the sign
wire [COL_LOG2-1:0] dic_ins = dic_diff[COL_LOG2] ? {COL_LOG2{1'b0}} : dic_diff[COL_LOG2-1:0];
reg                 s4_valid = 1'b0;
reg  [O_W-1:0]      s4_oct = {O_W{1'b0}};         // octets the frame holds the line, its gap included
reg  [AGE_W-1:0]    s4_age = {AGE_W{1'b0}};
always @(posedge clk) begin
    s4_valid <= s3_valid;
    s4_age <= s3_age;
    s4_oct <= (s3_rem == 0 || del) ? s3_down : s3_down + COL[O_W-1:0];
    if (s3_valid && s3_rem != 0) dic_reg <= del ? dic_sum[COL_LOG2-1:0] : dic_ins;
    if (rst) begin
        s4_valid <= 1'b0;
        s4_age <= {AGE_W{1'b0}};
        dic_reg <= {COL_LOG2{1'b0}};
    end
end

// ---- s5: in units, at the loop's cycle: the first beat's age a, and the line time less one cycle
// (constant products as shifts and adds: no DSP on these paths)
function [B_W-1:0] times(input [B_W-1:0] x, input [31:0] k);
    integer i;
    begin
        times = {B_W{1'b0}};
        for (i = 0; i < 32; i = i + 1) if (k[i]) times = times + (x << i);
    end
endfunction

reg                 s5_valid = 1'b0;
reg  signed [B_W-1:0] s5_age_u = {B_W{1'b0}};     // a
reg  signed [B_W-1:0] s5_occ_c = {B_W{1'b0}};     // octets * OCTET_U - CYCLE_U
reg  signed [B_W-1:0] s5_idle = {B_W{1'b0}};      // octets * OCTET_U - CYCLE_U - a
wire signed [B_W-1:0] s4_age_u = times({{(B_W-AGE_W){1'b0}}, s4_age} + PIPE, CYCLE_U);
wire signed [B_W-1:0] s4_occ_c = times({{(B_W-O_W){1'b0}}, s4_oct}, OCTET_U) - CYC;
always @(posedge clk) begin
    s5_valid <= s4_valid;
    s5_age_u <= s4_age_u;
    s5_occ_c <= s4_occ_c;
    s5_idle <= s4_occ_c - s4_age_u;
    if (rst) s5_valid <= 1'b0;
end

// ---- the loop: one frame a cycle at most
reg  signed [B_W-1:0] backlog_reg = B_LOW;
wire signed [B_W-1:0] behind = backlog_reg + s5_age_u;          // line free, after the first beat
wire                  busy = !behind[B_W-1] && (behind != 0);   // > 0: it waited for the line
wire                  floor_hit = (backlog_reg < B_LOW + CYC);
reg                   l_valid = 1'b0;
reg  [B_W-2:0]        l_lag_u = {(B_W-1){1'b0}};
always @(posedge clk) begin
    if (s5_valid) begin
        backlog_reg <= busy ? backlog_reg + s5_occ_c : s5_idle;
    end else begin
        backlog_reg <= floor_hit ? B_LOW : backlog_reg - CYC;
    end
    l_valid <= s5_valid;
    l_lag_u <= busy ? behind[B_W-2:0] : {(B_W-1){1'b0}};
    if (rst) begin
        backlog_reg <= B_LOW;
        l_valid <= 1'b0;
    end
end

// ---- c1: clamp, in five 5-bit digits; c2: each digit times NS_MUL from a 32-entry table (one LUT
// level a bit; no DSP); c3, c4, out: three adds, then shift and saturate
localparam DIG_W = 5;
localparam P_W = DIG_W + MUL_W;                      // one digit's product
localparam S_W = LAG_CLAMP_W + MUL_W;                // the whole product
wire [MUL_W-1:0] mul = NS_MUL[MUL_W-1:0];
function [P_W-1:0] dig_times(input [DIG_W-1:0] d);
    integer v;
    reg [DIG_W-1:0] vd;
    begin
        dig_times = {P_W{1'b0}};
        for (v = 0; v < (1 << DIG_W); v = v + 1) begin
            vd = v[DIG_W-1:0];
            if (d == vd) dig_times = {{MUL_W{1'b0}}, vd} * {{DIG_W{1'b0}}, mul};
        end
    end
endfunction

reg                   c1_valid = 1'b0;
reg                   c1_over = 1'b0;
reg  [LAG_CLAMP_W-1:0] c1_lag = {LAG_CLAMP_W{1'b0}};
reg                   c2_valid = 1'b0;
reg                   c2_over = 1'b0;
reg  [P_W-1:0]        c2_p0 = {P_W{1'b0}}, c2_p1 = {P_W{1'b0}}, c2_p2 = {P_W{1'b0}}, c2_p3 = {P_W{1'b0}},
                      c2_p4 = {P_W{1'b0}};
reg                   c3_valid = 1'b0;
reg                   c3_over = 1'b0;
reg  [S_W-1:0]        c3_a = {S_W{1'b0}}, c3_b = {S_W{1'b0}}, c3_c = {S_W{1'b0}};
reg                   c4_valid = 1'b0;
reg                   c4_over = 1'b0;
reg  [S_W-1:0]        c4_a = {S_W{1'b0}}, c4_c = {S_W{1'b0}};
reg                   o_valid = 1'b0;
reg  [15:0]           o_ns = 16'd0;
wire [S_W-1:0]        c4_sum = c4_a + c4_c;
wire [S_W-1:0]        c4_ns = c4_sum >> NS_SHIFT;
always @(posedge clk) begin
    c1_valid <= l_valid;
    c1_over <= |(l_lag_u >> LAG_CLAMP_W);
    c1_lag <= l_lag_u[LAG_CLAMP_W-1:0];
    c2_valid <= c1_valid;
    c2_over <= c1_over;
    c2_p0 <= dig_times(c1_lag[0 * DIG_W +: DIG_W]);
    c2_p1 <= dig_times(c1_lag[1 * DIG_W +: DIG_W]);
    c2_p2 <= dig_times(c1_lag[2 * DIG_W +: DIG_W]);
    c2_p3 <= dig_times(c1_lag[3 * DIG_W +: DIG_W]);
    c2_p4 <= dig_times(c1_lag[4 * DIG_W +: DIG_W]);
    c3_valid <= c2_valid;
    c3_over <= c2_over;
    c3_a <= {{(S_W-P_W){1'b0}}, c2_p0} + ({{(S_W-P_W){1'b0}}, c2_p1} << (1 * DIG_W));
    c3_b <= ({{(S_W-P_W){1'b0}}, c2_p2} << (2 * DIG_W)) + ({{(S_W-P_W){1'b0}}, c2_p3} << (3 * DIG_W));
    c3_c <= {{(S_W-P_W){1'b0}}, c2_p4} << (4 * DIG_W);
    c4_valid <= c3_valid;
    c4_over <= c3_over;
    c4_a <= c3_a + c3_b;
    c4_c <= c3_c;
    o_valid <= c4_valid;
    o_ns <= (c4_over || |(c4_ns >> 16)) ? 16'hFFFF : c4_ns[15:0];
    if (rst) begin
        c1_valid <= 1'b0;
        c2_valid <= 1'b0;
        c3_valid <= 1'b0;
        c4_valid <= 1'b0;
        o_valid <= 1'b0;
    end
end

assign m_lag_valid = o_valid;
assign m_lag_ns = o_ns;

endmodule

`resetall
