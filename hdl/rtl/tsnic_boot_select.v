// tsnic_boot_select: the golden image's boot selector (docs/ARCHITECTURE.md "Flash controller").
//
// After the ICAP startup reads, it reads the two 128-byte boot-record copies (RECORD0 = BOOT_BASE,
// RECORD1 = BOOT_BASE + 4096) through the flash controller's command engine, checks each (magic
// 'TSBR', version 1, crc32 of bytes 0..123 as zlib.crc32), keeps the valid one with the higher
// generation (wrapping compare; record 0 on a tie), and decides:
// - no valid record, or active not 0/1: stay golden;
// - the slot golden picks ("tried") is the active slot if usable (length != 0 and not flagged bad),
//   else the other slot if usable, else none;
// - not a fallback configuration: IPROG to tried's address (stay golden if none);
// - a fallback (BOOTSTS FALLBACK_0): the slot tried last time failed; IPROG to the other slot if
//   usable, else stay golden. fallback_seen/tried_slot feed FLASH_BOOT_STATUS bits 1 and 3:2.
// It never writes the flash. On the Alveo cards this image sits at 0x01002000, started by AMD's
// factory image at address 0; a failed configuration falls back to address 0 and the factory image
// stays (an embedded IPROG is ignored in a fallback), so the fallback branch does not run there
// (docs/FIRMWARE.md, "Power-up chain and fallback"). The slot addresses come from the record.
`resetall
`timescale 1ns / 1ps
`default_nettype none

module tsnic_boot_select #(
    parameter [31:0] BOOT_BASE = 32'h07FF0000
) (
    input  wire        clk,
    input  wire        rst,

    input  wire        boot_valid,       // ICAP startup reads done
    input  wire        fallback,         // BOOTSTS FALLBACK_0

    // command port into the controller's engine
    output reg         req_valid = 1'b0,
    input  wire        req_ready,
    output reg  [3:0]  req_op = 4'd0,    // 2 READ, 8 IPROG
    output reg  [31:0] req_addr = 32'd0,
    output wire [8:0]  req_len,
    input  wire        cmd_done,         // the accepted command finished
    input  wire        rx_valid,         // READ data bytes, in address order
    input  wire [7:0]  rx_data,

    output wire        active,           // owns the engine (the controller shows BUSY)
    output reg         fallback_seen = 1'b0,
    output reg  [1:0]  tried_slot = 2'd0
);

localparam [3:0] OP_READ = 4'd2, OP_IPROG = 4'd8;
localparam [31:0] MAGIC = 32'h52425354;

localparam [2:0] B_WAIT = 3'd0, B_REQ = 3'd1, B_READ = 3'd2, B_DECIDE = 3'd3, B_IPROG = 3'd4,
                 B_IPWAIT = 3'd5, B_DONE = 3'd6;

reg [2:0]  state_reg = B_WAIT;
reg        rec_reg = 1'b0;         // which copy is being read
reg [6:0]  idx_reg = 7'd0;         // byte index in the copy
reg [23:0] w_reg = 24'd0;          // little-endian word assembly (the last three bytes)
reg [31:0] crc_reg = 32'hFFFFFFFF;
reg [31:0] crc_calc_reg = 32'd0;

// the copy being parsed
reg [31:0] c_magic = 0, c_gen = 0, c_a_addr = 0, c_a_len = 0, c_b_addr = 0, c_b_len = 0, c_flags = 0;
reg [15:0] c_version = 0;
reg [7:0]  c_active = 0;
// the best valid copy so far
reg        b_valid = 1'b0;
reg [31:0] b_gen = 0, b_a_addr = 0, b_a_len = 0, b_b_addr = 0, b_b_len = 0;
reg [1:0]  b_flags = 0;
reg [7:0]  b_active = 0;

assign active = (state_reg != B_DONE);
assign req_len = 9'd128;

function [31:0] crc32_byte(input [31:0] c, input [7:0] d);
    integer k;
    reg [31:0] x;
    begin
        x = c ^ {24'd0, d};
        for (k = 0; k < 8; k = k + 1)
            x = x[0] ? ((x >> 1) ^ 32'hEDB88320) : (x >> 1);
        crc32_byte = x;
    end
endfunction

wire [31:0] word_now = {rx_data, w_reg};   // complete on idx % 4 == 3
wire [31:0] gen_diff = c_gen - b_gen;
wire        c_ok = (c_magic == MAGIC) && (c_version == 16'd1) && (word_now == crc_calc_reg);

// decision on the best copy
wire        a_usable = (b_a_len != 32'd0) && !b_flags[0];
wire        b_usable = (b_b_len != 32'd0) && !b_flags[1];
wire        act_ok = b_valid && (b_active == 8'd0 || b_active == 8'd1);
wire        act_b = b_active[0];
wire        try_valid = act_ok && ((act_b ? b_usable : a_usable) || (act_b ? a_usable : b_usable));
wire        try_b = (act_b ? b_usable : a_usable) ? act_b : !act_b;

always @(posedge clk) begin
    case (state_reg)
        B_WAIT: begin
            if (boot_valid) begin
                state_reg <= B_REQ;
                rec_reg <= 1'b0;
            end
        end
        B_REQ: begin
            req_valid <= 1'b1;
            req_op <= OP_READ;
            req_addr <= BOOT_BASE + (rec_reg ? 32'd4096 : 32'd0);
            idx_reg <= 7'd0;
            crc_reg <= 32'hFFFFFFFF;
            if (req_valid && req_ready) begin
                req_valid <= 1'b0;
                state_reg <= B_READ;
            end
        end
        B_READ: begin
            if (rx_valid) begin
                idx_reg <= idx_reg + 7'd1;
                w_reg <= word_now[31:8];
                crc_reg <= crc32_byte(crc_reg, rx_data);
                if (idx_reg == 7'd123) crc_calc_reg <= ~crc32_byte(crc_reg, rx_data);
                if (idx_reg[1:0] == 2'd3) begin
                    case (idx_reg[6:2])
                        5'd0: c_magic <= word_now;
                        5'd1: begin
                            c_version <= word_now[15:0];
                            c_active <= word_now[23:16];
                        end
                        5'd2: c_gen <= word_now;
                        5'd3: c_a_addr <= word_now;
                        5'd4: c_a_len <= word_now;
                        5'd5: c_b_addr <= word_now;
                        5'd6: c_b_len <= word_now;
                        5'd7: c_flags <= word_now;
                        5'd31: begin
                            // last word: the stored crc32; keep this copy if valid and newer
                            if (c_ok && (!b_valid || (!gen_diff[31] && gen_diff != 32'd0))) begin
                                b_valid <= 1'b1;
                                b_gen <= c_gen;
                                b_a_addr <= c_a_addr;
                                b_a_len <= c_a_len;
                                b_b_addr <= c_b_addr;
                                b_b_len <= c_b_len;
                                b_flags <= c_flags[1:0];
                                b_active <= c_active;
                            end
                        end
                        default: ;
                    endcase
                end
            end
            if (cmd_done) begin
                // a short or failed read leaves the copy unparsed: it does not count
                rec_reg <= 1'b1;
                state_reg <= rec_reg ? B_DECIDE : B_REQ;
            end
        end
        B_DECIDE: begin
            state_reg <= B_DONE;
            if (try_valid) begin
                if (!fallback) begin
                    state_reg <= B_IPROG;
                    req_addr <= try_b ? b_b_addr : b_a_addr;
                end else begin
                    fallback_seen <= 1'b1;
                    tried_slot <= {1'b0, try_b};
                    if (try_b ? a_usable : b_usable) begin
                        state_reg <= B_IPROG;
                        req_addr <= try_b ? b_a_addr : b_b_addr;
                    end
                end
            end
        end
        B_IPROG: begin
            req_valid <= 1'b1;
            req_op <= OP_IPROG;
            if (req_valid && req_ready) begin
                req_valid <= 1'b0;
                state_reg <= B_IPWAIT;
            end
        end
        B_IPWAIT: if (cmd_done) state_reg <= B_DONE;
        default: state_reg <= B_DONE;
    endcase

    if (rst) begin
        state_reg <= B_WAIT;
        req_valid <= 1'b0;
        b_valid <= 1'b0;
        fallback_seen <= 1'b0;
        tried_slot <= 2'd0;
    end
end

// verilator lint_off UNUSEDSIGNAL
wire [29:0] unused_flags = c_flags[31:2];
// verilator lint_on UNUSEDSIGNAL

endmodule

`resetall
