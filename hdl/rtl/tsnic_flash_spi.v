// tsnic_flash_spi: one quad-SPI NOR flash transaction per start pulse (SPI mode 0: SCK idles low).
//
// A transaction is: CS# low, the 8-bit command on DQ0, optionally a 32-bit address on DQ0 (4-byte
// addressing), optionally `dummy` clocks, optionally a data phase of `nbytes` bytes either written or
// read, on DQ0/DQ1 (single line) or on DQ3..DQ0 (quad, high nibble first), then CS# high for at least
// CS_HIGH_CYCLES core cycles (tSHSL) before `done`.
// SCK = clk / (2 * (clk_div + 1)). The controller changes DQ at each SCK falling edge and samples the
// flash at the end of each SCK high phase, i.e. at the core clock edge that makes SCK fall again: the
// flash drives its bit from the previous falling edge, so the flash's output delay plus the board's
// round trip may take up to a full SCK period minus one core cycle (late sampling).
// While not driving data, DQ2 (W#) and DQ3 (HOLD#/RESET#) are driven high.
// The first transaction after reset is preceded by 4 SCK periods with CS# high: on the
// FPGA, STARTUPE3/E2 uses the first three edges on USRCCLKO to hand CCLK over to the user (UG570) and
// they never reach the flash; a flash ignores SCK while deselected, so they cost nothing elsewhere.
`resetall
`timescale 1ns / 1ps
`default_nettype none

module tsnic_flash_spi #(
    parameter CS_HIGH_CYCLES = 16     // CS# high time between transactions in core cycles (>= 50 ns)
) (
    input  wire        clk,
    input  wire        rst,

    input  wire [7:0]  clk_div,       // half SCK period = clk_div + 1 core cycles

    input  wire        start,         // accepted when !busy
    input  wire [7:0]  cmd,
    input  wire        addr_en,
    input  wire [31:0] addr,
    input  wire [4:0]  dummy,         // dummy clocks after the address
    input  wire        wr_en,         // data phase: write nbytes (tx_req/tx_data)
    input  wire        rd_en,         // data phase: read nbytes (rx_valid/rx_data)
    input  wire        quad,          // data phase on four lines
    input  wire [8:0]  nbytes,
    output wire        busy,
    output reg         done = 1'b0,   // one-cycle pulse: transaction over, CS# high long enough

    output reg         tx_req = 1'b0, // one-cycle pulse: tx_data taken this cycle (present it before)
    input  wire [7:0]  tx_data,
    output reg         rx_valid = 1'b0,
    output reg  [7:0]  rx_data = 8'd0,

    output wire        sck,
    output wire        cs_n,
    output wire [3:0]  dq_o,
    output wire [3:0]  dq_oe,
    input  wire [3:0]  dq_i
);

localparam [2:0] S_IDLE = 3'd0, S_CMD = 3'd1, S_ADDR = 3'd2, S_DUMMY = 3'd3, S_DATA = 3'd4,
                 S_END = 3'd5, S_DESEL = 3'd6, S_WARM = 3'd7;
localparam [3:0] WARM_HALVES = 4'd8;    // 4 SCK periods (STARTUPE3 needs 3 edges)

localparam [7:0] DESEL_LAST = CS_HIGH_CYCLES - 1;
localparam [3:0] OE_SINGLE = 4'b1101;   // DQ0 out, DQ1 in (flash output), DQ2/DQ3 held high
localparam [3:0] DQ_IDLE   = 4'b1100;

reg [2:0]  seg_reg = S_IDLE;
reg [3:0]  warm_reg = 4'd0;         // SCK half periods given after reset
reg        warm_done_reg = 1'b0;    // the hand-over edges were given
reg [7:0]  hcnt_reg = 8'd0;
reg        sck_reg = 1'b0;
reg        cs_n_reg = 1'b1;
reg [3:0]  dq_o_reg = DQ_IDLE;
reg [3:0]  dq_oe_reg = OE_SINGLE;
reg [31:0] sh_reg = 32'd0;          // bits still to send, MSB first
reg [6:0]  in_reg = 7'd0;
reg [4:0]  cnt_reg = 5'd0;          // clocks left in this segment/byte after the current one
reg [8:0]  left_reg = 9'd0;         // data bytes left after the current one
reg        addr_en_reg = 1'b0, wr_reg = 1'b0, rd_reg = 1'b0, quad_reg = 1'b0;
reg [4:0]  dummy_reg = 5'd0;
reg [31:0] addr_reg = 32'd0;
reg [7:0]  desel_reg = 8'd0;

assign busy  = (seg_reg != S_IDLE);
assign sck   = sck_reg;
assign cs_n  = cs_n_reg;
assign dq_o  = dq_o_reg;
assign dq_oe = dq_oe_reg;

wire half_end = (hcnt_reg == clk_div);

// the segment that follows `s` for this transaction
function [2:0] next_seg(input [2:0] s, input a_en, input [4:0] dmy, input data);
    begin
        next_seg = S_END;
        if (s == S_CMD && a_en) next_seg = S_ADDR;
        else if ((s == S_CMD || s == S_ADDR) && dmy != 5'd0) next_seg = S_DUMMY;
        else if (s != S_DATA && data) next_seg = S_DATA;
    end
endfunction

always @(posedge clk) begin
    done <= 1'b0;
    tx_req <= 1'b0;
    rx_valid <= 1'b0;

    case (seg_reg)
        S_IDLE: begin
            sck_reg <= 1'b0;
            if (start) begin
                // first command bit goes out with CS# (a half period before the first rising edge)
                seg_reg <= S_CMD;
                cs_n_reg <= 1'b0;
                sh_reg <= {cmd[6:0], 25'd0};
                dq_o_reg <= {2'b11, 1'b0, cmd[7]};
                dq_oe_reg <= OE_SINGLE;
                cnt_reg <= 5'd7;
                hcnt_reg <= 8'd0;
                addr_en_reg <= addr_en;
                addr_reg <= addr;
                dummy_reg <= dummy;
                wr_reg <= wr_en && nbytes != 9'd0;
                rd_reg <= rd_en && nbytes != 9'd0;
                quad_reg <= quad;
                left_reg <= nbytes;       // counts down once per byte started
                if (!warm_done_reg) begin
                    // first transaction since reset: the hand-over edges first, CS# still high
                    seg_reg <= S_WARM;
                    cs_n_reg <= 1'b1;
                    sh_reg <= {cmd, 24'd0};
                    dq_o_reg <= DQ_IDLE;
                    warm_reg <= 4'd0;
                end
            end
        end
        S_CMD, S_ADDR, S_DUMMY, S_DATA: begin
            hcnt_reg <= half_end ? 8'd0 : hcnt_reg + 8'd1;
            if (half_end && !sck_reg) begin
                sck_reg <= 1'b1;                       // rising edge: the flash samples
            end else if (half_end && sck_reg) begin
                sck_reg <= 1'b0;                       // falling edge: sample the flash, drive the next bit
                if (seg_reg == S_DATA && rd_reg) begin
                    if (quad_reg) in_reg <= {in_reg[2:0], dq_i};
                    else in_reg <= {in_reg[5:0], dq_i[1]};
                    if (cnt_reg == 5'd0) begin
                        rx_valid <= 1'b1;
                        rx_data <= quad_reg ? {in_reg[3:0], dq_i} : {in_reg[6:0], dq_i[1]};
                    end
                end
                if (cnt_reg != 5'd0) begin
                    cnt_reg <= cnt_reg - 5'd1;
                    if (quad_reg && seg_reg == S_DATA) begin
                        dq_o_reg <= sh_reg[31:28];
                        sh_reg <= {sh_reg[27:0], 4'd0};
                    end else begin
                        dq_o_reg <= {2'b11, 1'b0, sh_reg[31]};
                        sh_reg <= {sh_reg[30:0], 1'b0};
                    end
                end else if (seg_reg == S_DATA && left_reg != 9'd0) begin
                    // next byte of the data phase
                    cnt_reg <= quad_reg ? 5'd1 : 5'd7;
                    left_reg <= left_reg - 9'd1;
                    if (wr_reg) begin
                        tx_req <= 1'b1;
                        if (quad_reg) begin
                            dq_o_reg <= tx_data[7:4];
                            sh_reg <= {tx_data[3:0], 28'd0};
                        end else begin
                            dq_o_reg <= {2'b11, 1'b0, tx_data[7]};
                            sh_reg <= {tx_data[6:0], 25'd0};
                        end
                    end
                end else begin
                    case (next_seg(seg_reg, addr_en_reg, dummy_reg, (wr_reg || rd_reg) && left_reg != 9'd0))
                        S_ADDR: begin
                            seg_reg <= S_ADDR;
                            cnt_reg <= 5'd31;
                            dq_o_reg <= {2'b11, 1'b0, addr_reg[31]};
                            sh_reg <= {addr_reg[30:0], 1'b0};
                        end
                        S_DUMMY: begin
                            seg_reg <= S_DUMMY;
                            cnt_reg <= dummy_reg - 5'd1;
                            dq_o_reg <= DQ_IDLE;
                            dq_oe_reg <= quad_reg ? 4'b0000 : OE_SINGLE;
                        end
                        S_DATA: begin
                            seg_reg <= S_DATA;
                            cnt_reg <= quad_reg ? 5'd1 : 5'd7;
                            left_reg <= left_reg - 9'd1;
                            if (wr_reg) begin
                                tx_req <= 1'b1;
                                if (quad_reg) begin
                                    dq_o_reg <= tx_data[7:4];
                                    dq_oe_reg <= 4'b1111;
                                    sh_reg <= {tx_data[3:0], 28'd0};
                                end else begin
                                    dq_o_reg <= {2'b11, 1'b0, tx_data[7]};
                                    sh_reg <= {tx_data[6:0], 25'd0};
                                end
                            end else begin
                                dq_o_reg <= DQ_IDLE;
                                dq_oe_reg <= quad_reg ? 4'b0000 : OE_SINGLE;
                            end
                        end
                        default: begin
                            seg_reg <= S_END;
                            dq_o_reg <= DQ_IDLE;
                            dq_oe_reg <= OE_SINGLE;
                        end
                    endcase
                end
            end
        end
        S_END: begin
            // SCK low for a half period after the last falling edge, then CS# high
            hcnt_reg <= half_end ? 8'd0 : hcnt_reg + 8'd1;
            if (half_end) begin
                cs_n_reg <= 1'b1;
                seg_reg <= S_DESEL;
                desel_reg <= 8'd0;
            end
        end
        S_WARM: begin
            // SCK toggles with CS# high: STARTUPE3/E2's hand-over edges (see the header)
            hcnt_reg <= half_end ? 8'd0 : hcnt_reg + 8'd1;
            if (half_end) begin
                sck_reg <= ~sck_reg;
                warm_reg <= warm_reg + 4'd1;
                if (warm_reg == WARM_HALVES - 4'd1) begin
                    // then the transaction as S_IDLE would have started it (parameters captured)
                    warm_done_reg <= 1'b1;
                    seg_reg <= S_CMD;
                    cs_n_reg <= 1'b0;
                    sh_reg <= {sh_reg[30:0], 1'b0};
                    dq_o_reg <= {2'b11, 1'b0, sh_reg[31]};
                    cnt_reg <= 5'd7;
                end
            end
        end
        S_DESEL: begin
            desel_reg <= desel_reg + 8'd1;
            if (desel_reg == DESEL_LAST) begin
                seg_reg <= S_IDLE;
                done <= 1'b1;
            end
        end
        default: seg_reg <= S_IDLE;
    endcase

    if (rst) begin
        seg_reg <= S_IDLE;
        warm_reg <= 4'd0;
        warm_done_reg <= 1'b0;
        sck_reg <= 1'b0;
        cs_n_reg <= 1'b1;
        dq_o_reg <= DQ_IDLE;
        dq_oe_reg <= OE_SINGLE;
        done <= 1'b0;
        tx_req <= 1'b0;
        rx_valid <= 1'b0;
    end
end

endmodule

`resetall
