// tsnic_phc_div: serial unsigned division by a constant divisor, one quotient bit per cycle.
//
// `start` (one cycle, may restart a running division) loads `dividend`; W cycles later `done` is high
// for one cycle with `quotient` = dividend / DIVISOR and `remainder` = dividend % DIVISOR. The latency
// is fixed (W + 1 cycles from the start edge to the done cycle) so the PHC's behaviour is exactly
// predictable. Restoring division: the partial remainder is always < DIVISOR < 2^DIV_W.
`timescale 1ns / 1ps
`default_nettype none

module tsnic_phc_div #(
    parameter W = 64,                     // dividend and quotient width
    parameter DIV_W = 30,                 // divisor width: DIVISOR < 2^DIV_W
    parameter [DIV_W-1:0] DIVISOR = 30'd1000000000,
    parameter CNT_W = 7                   // enough bits to count W
) (
    input  wire             clk,
    input  wire             rst,
    input  wire             start,
    input  wire [W-1:0]     dividend,
    output wire             busy,
    output wire             done,
    output wire [W-1:0]     quotient,
    output wire [DIV_W-1:0] remainder
);

reg [W-1:0]     sh_reg = {W{1'b0}};      // dividend bits shift out at the top, quotient bits in at the bottom
reg [DIV_W-1:0] rem_reg = {DIV_W{1'b0}};
reg [CNT_W-1:0] cnt_reg = {CNT_W{1'b0}};
reg             busy_reg = 1'b0;
reg             done_reg = 1'b0;

wire [DIV_W:0] trial = {rem_reg, sh_reg[W-1]};
wire           ge = trial >= {1'b0, DIVISOR};
// when trial >= DIVISOR the difference is < DIVISOR, so DIV_W bits of modular subtraction hold it
wire [DIV_W-1:0] trial_sub = trial[DIV_W-1:0] - DIVISOR;

assign busy = busy_reg;
assign done = done_reg;
assign quotient = sh_reg;
assign remainder = rem_reg;

always @(posedge clk) begin
    done_reg <= 1'b0;
    if (start) begin
        sh_reg <= dividend;
        rem_reg <= {DIV_W{1'b0}};
        cnt_reg <= W[CNT_W-1:0];
        busy_reg <= 1'b1;
    end else if (busy_reg) begin
        sh_reg <= {sh_reg[W-2:0], ge};
        rem_reg <= ge ? trial_sub : trial[DIV_W-1:0];
        cnt_reg <= cnt_reg - 1'b1;
        if (cnt_reg == {{(CNT_W-1){1'b0}}, 1'b1}) begin
            busy_reg <= 1'b0;
            done_reg <= 1'b1;
        end
    end
    if (rst) begin
        busy_reg <= 1'b0;
        done_reg <= 1'b0;
        cnt_reg <= {CNT_W{1'b0}};
    end
end

endmodule

`resetall
