// tsnic_phc_incr: the PHC's effective increment from the nominal period and the ppb trim.
//
//   inc = period + trunc(period * ppb / 10^9)        (16.48 fixed-point ns; ppb signed 32-bit)
//
// computed exactly with integer arithmetic: a serial 64x32 shift-and-add multiply (32 cycles) then a
// serial division of the 96-bit product by 10^9 (tsnic_phc_div, 96 cycles), truncating toward zero.
// The result saturates to [0, 2^64-1]. `start` (may restart a running computation) samples `period`
// and `ppb`; `inc` changes exactly LATENCY cycles later, whatever the values, so the clock's
// behaviour can be predicted cycle by cycle. Until then the previous `inc` stays in force.
`timescale 1ns / 1ps
`default_nettype none

module tsnic_phc_incr #(
    parameter [63:0] INC_INIT = 64'd0     // increment after reset (the nominal period, ppb = 0)
) (
    input  wire        clk,
    input  wire        rst,
    input  wire        start,
    input  wire [63:0] period,
    input  wire [31:0] ppb,
    output wire        busy,
    output wire [63:0] inc
);

localparam [1:0] ST_IDLE = 2'd0, ST_MUL = 2'd1, ST_DIV = 2'd2;

reg [1:0]  state_reg = ST_IDLE;
reg [63:0] per_reg = 64'd0;
reg [31:0] mb_reg = 32'd0;        // |ppb|, consumed MSB first
reg        neg_reg = 1'b0;
reg [95:0] acc_reg = 96'd0;       // period * |ppb|
reg [5:0]  cnt_reg = 6'd0;
reg        div_start_reg = 1'b0;
reg [63:0] inc_reg = INC_INIT;

wire [95:0] q;
wire        div_done;
/* verilator lint_off UNUSEDSIGNAL */
wire        div_busy;
wire [29:0] div_rem;
/* verilator lint_on UNUSEDSIGNAL */

tsnic_phc_div #(
    .W(96),
    .DIV_W(30),
    .DIVISOR(30'd1000000000),
    .CNT_W(7)
) div_inst (
    .clk(clk),
    .rst(rst),
    .start(div_start_reg),
    .dividend(acc_reg),
    .busy(div_busy),
    .done(div_done),
    .quotient(q),
    .remainder(div_rem)
);

wire [31:0] ppb_abs = ppb[31] ? (~ppb + 32'd1) : ppb;   // -2^31 gives 2^31, still correct unsigned
wire [95:0] mul_next = {acc_reg[94:0], 1'b0} + (mb_reg[31] ? {32'd0, per_reg} : 96'd0);

// apply: per +/- q, saturated
wire        q_big = |q[95:64];
wire [64:0] sum_pos = {1'b0, per_reg} + {1'b0, q[63:0]};
wire [64:0] sum_neg = {1'b0, per_reg} - {1'b0, q[63:0]};     // bit 64 set: borrow, result < 0
wire [63:0] inc_new = neg_reg ? ((q_big || sum_neg[64]) ? 64'd0 : sum_neg[63:0])
                              : ((q_big || sum_pos[64]) ? {64{1'b1}} : sum_pos[63:0]);

assign busy = (state_reg != ST_IDLE) || start;
assign inc = inc_reg;

always @(posedge clk) begin
    div_start_reg <= 1'b0;
    if (start) begin
        per_reg <= period;
        neg_reg <= ppb[31];
        mb_reg <= ppb_abs;
        acc_reg <= 96'd0;
        cnt_reg <= 6'd32;
        state_reg <= ST_MUL;
    end else begin
        case (state_reg)
            ST_MUL: begin
                acc_reg <= mul_next;
                mb_reg <= {mb_reg[30:0], 1'b0};
                cnt_reg <= cnt_reg - 6'd1;
                if (cnt_reg == 6'd1) begin
                    div_start_reg <= 1'b1;
                    state_reg <= ST_DIV;
                end
            end
            ST_DIV: begin
                if (div_done && !div_start_reg) begin   // a done from an aborted run ends with the new start
                    inc_reg <= inc_new;
                    state_reg <= ST_IDLE;
                end
            end
            default: state_reg <= ST_IDLE;
        endcase
    end
    if (rst) begin
        state_reg <= ST_IDLE;
        div_start_reg <= 1'b0;
        inc_reg <= INC_INIT;
        cnt_reg <= 6'd0;
    end
end

endmodule

`resetall
