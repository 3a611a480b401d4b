// tsnic_flash_icap: the configuration-port (ICAPE3 / ICAPE2) sequences of the flash controller.
//
// - After reset: reads WBSTAR (register 10000b) and then BOOTSTS (10110b), each as
//   dummy, sync, NOOP, type-1 read header, NOOP, NOOP, [switch to read, READ_WAIT enabled cycles,
//   the last word on icap_o is the value], switch back, CMD <- DESYNC, NOOP.
// - On iprog_start: dummy, sync, NOOP, WBSTAR <- iprog_addr, CMD <- IPROG, NOOP (UG570 "IPROG Using
//   ICAP"; UG470 has the same words for 7-series).
// The ports run on the core clock; every change happens only on a cycle with icap_ce high, so the
// board can clock ICAPE3 (<= 125 MHz) from a divided clock and give the matching enable. icap_i and
// icap_o carry configuration words as the user guides print them (0xAA995566 for sync): the
// bit swap within each byte that ICAPE3/ICAPE2 expect belongs to the board wrapper.
`resetall
`timescale 1ns / 1ps
`default_nettype none

module tsnic_flash_icap #(
    parameter READ_WAIT = 8          // enabled cycles with RDWRB=1, CSIB=0 before the read word is taken
) (
    input  wire        clk,
    input  wire        rst,

    output wire        boot_valid,   // the startup reads are over (boot_wbstar, boot_bootsts valid)
    output reg  [31:0] boot_wbstar = 32'd0,
    output reg  [31:0] boot_bootsts = 32'd0,

    input  wire        iprog_start,  // accepted when !busy and boot_valid
    input  wire [31:0] iprog_addr,
    output wire        busy,
    output reg         iprog_done = 1'b0,

    input  wire        icap_ce,
    output reg         icap_csib = 1'b1,
    output reg         icap_rdwrb = 1'b0,
    output reg  [31:0] icap_i = 32'd0,
    input  wire [31:0] icap_o
);

localparam [31:0] W_DUMMY  = 32'hFFFFFFFF;
localparam [31:0] W_SYNC   = 32'hAA995566;
localparam [31:0] W_NOOP   = 32'h20000000;
localparam [31:0] W_RD_WB  = 32'h28020001;   // type 1 read, 1 word, WBSTAR
localparam [31:0] W_RD_BS  = 32'h2802C001;   // type 1 read, 1 word, BOOTSTS
localparam [31:0] W_WR_WB  = 32'h30020001;   // type 1 write, 1 word, WBSTAR
localparam [31:0] W_WR_CMD = 32'h30008001;   // type 1 write, 1 word, CMD
localparam [31:0] C_IPROG  = 32'h0000000F;
localparam [31:0] C_DESYNC = 32'h0000000D;

localparam [1:0] M_RD_WB = 2'd0, M_RD_BS = 2'd1, M_IPROG = 2'd2, M_IDLE = 2'd3;

// step kinds
localparam [2:0] K_WR = 3'd0, K_TO_RD = 3'd1, K_RD = 3'd2, K_TO_WR = 3'd3, K_END = 3'd4;

reg [1:0]  mode_reg = M_RD_WB;
reg [3:0]  step_reg = 4'd0;
reg [7:0]  wait_reg = 8'd0;
reg [31:0] addr_reg = 32'd0;
reg        boot_valid_reg = 1'b0;

assign boot_valid = boot_valid_reg;
assign busy = (mode_reg != M_IDLE);

// The step's kind and, for K_WR, its word: functions called only in a cycle with icap_ce while a
// sequence runs (a cycle-based simulator does not decode them in every idle cycle).
function [2:0] kind_of(input [1:0] mode, input [3:0] step);
begin
    kind_of = K_WR;
    if (mode == M_IPROG) begin
        if (step > 4'd7) kind_of = K_END;
    end else begin
        case (step)
            4'd6: kind_of = K_TO_RD;
            4'd7: kind_of = K_RD;
            4'd8: kind_of = K_TO_WR;
            4'd0, 4'd1, 4'd2, 4'd3, 4'd4, 4'd5, 4'd9, 4'd10, 4'd11: kind_of = K_WR;
            default: kind_of = K_END;
        endcase
    end
end
endfunction

function [31:0] word_of(input [1:0] mode, input [3:0] step, input [31:0] addr);
begin
    word_of = W_NOOP;
    if (mode == M_IPROG) begin
        case (step)
            4'd0: word_of = W_DUMMY;
            4'd1: word_of = W_SYNC;
            4'd2: word_of = W_NOOP;
            4'd3: word_of = W_WR_WB;
            4'd4: word_of = addr;
            4'd5: word_of = W_WR_CMD;
            4'd6: word_of = C_IPROG;
            default: word_of = W_NOOP;
        endcase
    end else begin
        case (step)
            4'd0: word_of = W_DUMMY;
            4'd1: word_of = W_SYNC;
            4'd2: word_of = W_NOOP;
            4'd3: word_of = (mode == M_RD_WB) ? W_RD_WB : W_RD_BS;
            4'd9: word_of = W_WR_CMD;
            4'd10: word_of = C_DESYNC;
            default: word_of = W_NOOP;
        endcase
    end
end
endfunction

always @(posedge clk) begin
    iprog_done <= 1'b0;

    if (mode_reg == M_IDLE) begin
        if (iprog_start && boot_valid_reg) begin
            mode_reg <= M_IPROG;
            step_reg <= 4'd0;
            addr_reg <= iprog_addr;
        end
    end else if (icap_ce) begin
        case (kind_of(mode_reg, step_reg))
            K_WR: begin
                icap_csib <= 1'b0;
                icap_rdwrb <= 1'b0;
                icap_i <= word_of(mode_reg, step_reg, addr_reg);
                step_reg <= step_reg + 4'd1;
            end
            K_TO_RD: begin
                icap_csib <= 1'b1;
                icap_rdwrb <= 1'b1;
                wait_reg <= 8'd0;
                step_reg <= step_reg + 4'd1;
            end
            K_RD: begin
                icap_csib <= 1'b0;
                icap_rdwrb <= 1'b1;
                wait_reg <= wait_reg + 8'd1;
                if (wait_reg == READ_WAIT[7:0]) begin
                    // icap_o has been presenting the register for READ_WAIT enabled cycles
                    if (mode_reg == M_RD_WB) boot_wbstar <= icap_o;
                    else boot_bootsts <= icap_o;
                    icap_csib <= 1'b1;
                    step_reg <= step_reg + 4'd1;
                end
            end
            K_TO_WR: begin
                icap_csib <= 1'b1;
                icap_rdwrb <= 1'b0;
                step_reg <= step_reg + 4'd1;
            end
            default: begin
                icap_csib <= 1'b1;
                icap_rdwrb <= 1'b0;
                icap_i <= 32'd0;
                step_reg <= 4'd0;
                case (mode_reg)
                    M_RD_WB: mode_reg <= M_RD_BS;
                    M_RD_BS: begin
                        mode_reg <= M_IDLE;
                        boot_valid_reg <= 1'b1;
                    end
                    default: begin
                        mode_reg <= M_IDLE;
                        iprog_done <= 1'b1;
                    end
                endcase
            end
        endcase
    end

    if (rst) begin
        mode_reg <= M_RD_WB;
        step_reg <= 4'd0;
        boot_valid_reg <= 1'b0;
        icap_csib <= 1'b1;
        icap_rdwrb <= 1'b0;
        icap_i <= 32'd0;
        iprog_done <= 1'b0;
    end
end

endmodule

`resetall
