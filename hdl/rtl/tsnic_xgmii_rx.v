// tsnic_xgmii_rx: 10G Ethernet MAC receive side, 64-bit XGMII (SDR, 156.25 MHz) to AXI-Stream
// (64 bits, no backpressure: a receiver cannot hold the line).
//
// - A frame starts with /S/ in lane 0 or 4 followed by 6 x 0x55 and the SFD 0xD5 (a start whose
//   preamble or SFD differs is ignored) and ends at /T/. The bytes in between (payload + FCS) are
//   packed into a 24-byte lane buffer; a beat leaves when 13 bytes are held, so that at /T/ the last
//   4 bytes (the FCS) can be stripped and at least one payload byte is left for the tlast beat.
// - At /T/ the rest (1..16 payload bytes) leaves as one or two beats on the next cycles, the last with
//   tlast and tuser = bad: CRC-32 over payload + FCS not the residue 0xDEBB20E3, a control character
//   other than /T/ inside the frame, or a frame shorter than 64 bytes with FCS.
// - sof: one-cycle pulse in the cycle after the word carrying /S/ with a good preamble (registered),
//   sof_lane4 says it was in lane 4 (the start is then half a word later than the word's clock
//   edge). For a lane-4 start the SFD is only checked in the next word: a bad one drops the frame
//   after sof has pulsed (no beat is sent for it).
// - Pipeline (issue 16 timing): the CRC runs three cycles behind the frame logic (c1: the word's
//   packed bytes and count; cb, c2: the data's share of the CRC for each byte count, in two steps,
//   the CRC being linear; then crc_reg takes the state's share XOR that, selected by the count), and
//   the residue verdict is registered the cycle after. The beats the frame logic makes (pend_*) pass
//   four more registers (d1..d4) so that the last one meets its frame's verdict: m_axis_* leaves
//   five cycles later than the frame logic made it. sof is not delayed (the cycle after the /S/ word).
// - Gaps between frames on XGMII are at least 5 bytes (/T/ + 4 idles, the lowest the deficit idle
//   count allows at a receiver), so a frame's last beats have left before the next one's first.
`resetall
`timescale 1ns / 1ps
`default_nettype none

module tsnic_xgmii_rx (
    input  wire        clk,
    input  wire        rst,

    input  wire [63:0] xgmii_rxd,
    input  wire [7:0]  xgmii_rxc,

    output wire [63:0] m_axis_tdata,
    output wire [7:0]  m_axis_tkeep,
    output wire        m_axis_tlast,
    output wire        m_axis_tvalid,
    output wire        m_axis_tuser,      // on the tlast beat: bad frame

    output wire        sof,
    output wire        sof_lane4
);

localparam [7:0] C_START = 8'hFB, C_TERM = 8'hFD;
localparam [31:0] CRC_RESIDUE = 32'hDEBB20E3;

function [31:0] crc_bytes;
    input [31:0] crc_in;
    input [63:0] data;
    input [3:0]  n;
    integer i, j;
    reg [31:0] c;
    begin
        c = crc_in;
        for (i = 0; i < 8; i = i + 1) begin
            if (i < n) begin
                c = c ^ {24'd0, data[i*8 +: 8]};
                for (j = 0; j < 8; j = j + 1)
                    c = (c >> 1) ^ ({32{c[0]}} & 32'hEDB88320);   // XOR form: maps to XOR trees
            end
        end
        crc_bytes = c;
    end
endfunction

reg        in_frame_reg = 1'b0;
reg        pre4_reg = 1'b0;           // lane-4 start: lanes 0..3 of this word are preamble
reg        bad_reg = 1'b0;
reg [15:0] len_reg = 16'd0;           // bytes of the frame (payload + FCS), saturating
reg [31:0] crc_reg = 32'hFFFFFFFF;
reg [191:0] buf_reg = 192'd0;
reg [4:0]  cnt_reg = 5'd0;

reg [63:0] pend_data_reg = 64'd0;     // a beat made by the frame logic, one cycle before m_axis_*
reg [7:0]  pend_keep_reg = 8'd0;
reg        pend_last_reg = 1'b0;
reg        pend_valid_reg = 1'b0;
reg        pend_user_reg = 1'b0;
reg        pend_crc_chk_reg = 1'b0;  // a frame's last beat: add the CRC verdict
reg [4*76-1:0] dly_reg = {4*76{1'b0}};  // d1..d4: {crc_chk, user, last, valid, keep, data}
// CRC pipeline
reg        c1_valid_reg = 1'b0, c1_init_reg = 1'b0, c1_final_reg = 1'b0;
reg [63:0] c1_data_reg = 64'd0;
reg [3:0]  c1_n_reg = 4'd0;
reg        cb_valid_reg = 1'b0, cb_init_reg = 1'b0, cb_final_reg = 1'b0;
reg [3:0]  cb_n_reg = 4'd0;
reg [32*8-1:0] cb_part_reg = {256{1'b0}};   // crc(0, low 4 bytes, j), crc(0, high 4 bytes, j), j = 1..4
reg        c2_valid_reg = 1'b0, c2_init_reg = 1'b0, c2_final_reg = 1'b0;
reg [3:0]  c2_n_reg = 4'd0;
reg [32*9-1:0] c2_dcrc_reg = {288{1'b0}};
reg        c3_final_reg = 1'b0;
reg        verdict_bad_reg = 1'b0;
reg [63:0] out_data_reg = 64'd0;
reg [7:0]  out_keep_reg = 8'd0;
reg        out_last_reg = 1'b0;
reg        out_valid_reg = 1'b0;
reg        out_user_reg = 1'b0;
reg [63:0] tail_data_reg = 64'd0;     // second tail beat
reg [7:0]  tail_keep_reg = 8'd0;
reg        tail_valid_reg = 1'b0;
reg        tail_user_reg = 1'b0;
reg        sof_reg = 1'b0;
reg        sof_lane4_reg = 1'b0;

assign m_axis_tdata = out_data_reg;
assign m_axis_tkeep = out_keep_reg;
assign m_axis_tlast = out_last_reg;
assign m_axis_tvalid = out_valid_reg;
assign m_axis_tuser = out_user_reg;
assign sof = sof_reg;
assign sof_lane4 = sof_lane4_reg;

// lane decode of this word
integer i;
reg [3:0] term_lane;                  // 8: none
reg       ctrl_other;                 // a control character other than /T/ before /T/ (from lane first)
reg [2:0] first;                      // first frame byte lane in this word
always @* begin
    first = pre4_reg ? 3'd4 : 3'd0;
    term_lane = 4'd8;
    ctrl_other = 1'b0;
    for (i = 7; i >= 0; i = i - 1) begin
        if (xgmii_rxc[i] && xgmii_rxd[i*8 +: 8] == C_TERM && i >= first) term_lane = i[3:0];
    end
    for (i = 0; i < 8; i = i + 1) begin
        if (xgmii_rxc[i] && i >= first && i < term_lane && xgmii_rxd[i*8 +: 8] != C_TERM) ctrl_other = 1'b1;
    end
end

wire start0 = xgmii_rxc[0] && xgmii_rxd[7:0] == C_START && xgmii_rxc[7:1] == 7'd0 &&
              xgmii_rxd[63:8] == 56'hD5555555555555;
wire start4 = xgmii_rxc[4] && xgmii_rxd[39:32] == C_START && xgmii_rxc[7:5] == 3'd0 &&
              xgmii_rxd[63:40] == 24'h555555;
// a lane-4 start's SFD is in lane 3 of the next word: checked there
wire sfd4_ok = xgmii_rxc[3:0] == 4'd0 && xgmii_rxd[31:0] == 32'hD5555555;

wire [63:0] packed_data = pre4_reg ? {32'd0, xgmii_rxd[63:32]} : xgmii_rxd;
wire [3:0]  n_bytes = term_lane[3:0] - {1'b0, first};
// CRC: the data's share per byte count in two steps (cb: each half's share; then for g > 4,
// crc(0, d, g) = crc(crc(0, low half, 4), 0, g - 4) ^ crc(0, high half, g - 4)), then the state's
// share XOR it, selected (c2)
wire [32*8-1:0] part1;
wire [32*9-1:0] dcrc1;
wire [32*9-1:0] crc_c;
assign dcrc1[31:0] = 32'd0;
genvar g;
generate
    for (g = 1; g <= 4; g = g + 1) begin : part_g
        assign part1[(g-1)*32 +: 32] = crc_bytes(32'd0, {32'd0, c1_data_reg[31:0]}, g);
        assign part1[(g+3)*32 +: 32] = crc_bytes(32'd0, {32'd0, c1_data_reg[63:32]}, g);
        assign dcrc1[g*32 +: 32] = cb_part_reg[(g-1)*32 +: 32];
        assign dcrc1[(g+4)*32 +: 32] = crc_bytes(cb_part_reg[3*32 +: 32], 64'd0, g) ^ cb_part_reg[(g+3)*32 +: 32];
    end
    for (g = 0; g <= 8; g = g + 1) begin : crc_g
        assign crc_c[g*32 +: 32] = crc_bytes(crc_reg, 64'd0, g) ^ c2_dcrc_reg[g*32 +: 32];
    end
endgenerate
wire [31:0] crc_now = crc_c[c2_n_reg*32 +: 32];

always @(posedge clk) begin
    cb_valid_reg <= c1_valid_reg;
    cb_init_reg <= c1_init_reg;
    cb_final_reg <= c1_final_reg;
    cb_n_reg <= c1_n_reg;
    cb_part_reg <= part1;
    c2_valid_reg <= cb_valid_reg;
    c2_init_reg <= cb_init_reg;
    c2_final_reg <= cb_final_reg;
    c2_n_reg <= cb_n_reg;
    c2_dcrc_reg <= dcrc1;
    if (c2_valid_reg) crc_reg <= c2_init_reg ? 32'hFFFFFFFF : crc_now;
    c3_final_reg <= c2_valid_reg && c2_final_reg;
    if (c3_final_reg) verdict_bad_reg <= (crc_reg != CRC_RESIDUE);
    if (rst) begin
        cb_valid_reg <= 1'b0;
        c2_valid_reg <= 1'b0;
        c3_final_reg <= 1'b0;
    end
end
wire [15:0] len_now = (len_reg > 16'd9999) ? len_reg : len_reg + {12'd0, n_bytes};

reg [191:0] buf_app;
reg [4:0]   cnt_app;
integer k, c0;
always @* begin
    buf_app = buf_reg;
    c0 = {27'd0, cnt_reg};
    for (k = 0; k < 24; k = k + 1)
        if (k >= c0 && k < c0 + {28'd0, n_bytes} && k - c0 < 8)
            buf_app[k*8 +: 8] = packed_data[(k - c0)*8 +: 8];
    cnt_app = cnt_reg + {1'b0, n_bytes};
end

function [7:0] keep_of;
    input [4:0] n;
    begin
        keep_of = (n >= 5'd8) ? 8'hFF : ((8'd1 << n[2:0]) - 8'd1);
    end
endfunction

wire [4:0] tail_n = cnt_app - 5'd4;   // payload bytes left at /T/ (1..15 for a frame of >= 5 bytes)

always @(posedge clk) begin
    // output stage: the last beat's FCS check from the registered CRC
    dly_reg <= {dly_reg[3*76-1:0], pend_crc_chk_reg, pend_user_reg, pend_last_reg, pend_valid_reg,
                pend_keep_reg, pend_data_reg};
    {out_last_reg, out_valid_reg, out_keep_reg, out_data_reg} <= dly_reg[4*76-3 -: 74];
    out_user_reg <= dly_reg[4*76-2] || (dly_reg[4*76-1] && verdict_bad_reg);
    c1_valid_reg <= 1'b0;
    c1_init_reg <= 1'b0;
    c1_final_reg <= 1'b0;

    pend_valid_reg <= 1'b0;
    pend_last_reg <= 1'b0;
    pend_user_reg <= 1'b0;
    pend_crc_chk_reg <= 1'b0;
    sof_reg <= 1'b0;
    sof_lane4_reg <= 1'b0;

    if (tail_valid_reg) begin
        // second tail beat: the frame ended on the previous word, crc_reg holds its CRC
        pend_data_reg <= tail_data_reg;
        pend_keep_reg <= tail_keep_reg;
        pend_last_reg <= 1'b1;
        pend_user_reg <= tail_user_reg;
        pend_crc_chk_reg <= 1'b1;
        pend_valid_reg <= 1'b1;
        tail_valid_reg <= 1'b0;
    end

    if (!in_frame_reg) begin
        pre4_reg <= 1'b0;
        if (start0 || start4) begin
            sof_reg <= 1'b1;
            sof_lane4_reg <= start4;
            in_frame_reg <= 1'b1;
            pre4_reg <= start4;
            bad_reg <= 1'b0;
            len_reg <= 16'd0;
            c1_valid_reg <= 1'b1;      // the CRC restarts
            c1_init_reg <= 1'b1;
            cnt_reg <= 5'd0;
        end
    end else if (pre4_reg && !sfd4_ok) begin
        // a lane-4 start whose preamble/SFD (lanes 0..3 of this word) is wrong: not a frame
        in_frame_reg <= 1'b0;
        pre4_reg <= 1'b0;
    end else begin
        pre4_reg <= 1'b0;
        c1_valid_reg <= 1'b1;          // this word's bytes into the CRC
        c1_data_reg <= packed_data;
        c1_n_reg <= n_bytes;
        c1_final_reg <= (term_lane != 4'd8);
        len_reg <= len_now;
        if (ctrl_other) bad_reg <= 1'b1;
        if (term_lane != 4'd8) begin
            // end of frame: strip the FCS, one or two last beats
            in_frame_reg <= 1'b0;
            cnt_reg <= 5'd0;
            if (len_now < 16'd5) begin
                // nothing to deliver (a runt without payload): dropped
            end else if (tail_n > 5'd8) begin
                pend_data_reg <= buf_app[63:0];
                pend_keep_reg <= 8'hFF;
                pend_valid_reg <= 1'b1;
                tail_data_reg <= buf_app[127:64];
                tail_keep_reg <= keep_of(tail_n - 5'd8);
                tail_valid_reg <= 1'b1;
                tail_user_reg <= bad_reg || ctrl_other || len_now < 16'd64;   // + the CRC verdict
            end else begin
                pend_data_reg <= buf_app[63:0];
                pend_keep_reg <= keep_of(tail_n);
                pend_valid_reg <= 1'b1;
                pend_last_reg <= 1'b1;
                pend_user_reg <= bad_reg || ctrl_other || len_now < 16'd64;
                pend_crc_chk_reg <= 1'b1;                                     // + the CRC verdict
            end
        end else if (cnt_app >= 5'd13) begin
            pend_data_reg <= buf_app[63:0];
            pend_keep_reg <= 8'hFF;
            pend_valid_reg <= 1'b1;
            buf_reg <= {64'd0, buf_app[191:64]};
            cnt_reg <= cnt_app - 5'd8;
        end else begin
            buf_reg <= buf_app;
            cnt_reg <= cnt_app;
        end
    end

    if (rst) begin
        in_frame_reg <= 1'b0;
        pre4_reg <= 1'b0;
        pend_valid_reg <= 1'b0;
        pend_crc_chk_reg <= 1'b0;
        dly_reg <= {4*76{1'b0}};
        out_valid_reg <= 1'b0;
        c1_valid_reg <= 1'b0;
        tail_valid_reg <= 1'b0;
        sof_reg <= 1'b0;
        cnt_reg <= 5'd0;
    end
end

endmodule

`resetall
