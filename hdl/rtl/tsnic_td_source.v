// tsnic_td_source: time distribution, source side (core clock). Samples the PHC for tsnic_td_sink in
// another clock domain.
//
// - Every GAP_CYCLES + (0..15) cycles (a 16-bit LFSR varies the spacing so that the sample instants
//   sweep the phase of the receiving clock evenly even when the two clocks are in a simple ratio,
//   e.g. 250 / 156.25 MHz = 8 / 5; a short LFSR visits some phases more often than others and biases
//   the sink's average) the time of the previous cycle is latched into td_ns / td_fns (the PHC
//   register value that the sampling edge sees) and td_toggle flips in the same cycle. td_step flips
//   with every PHC step or adjtime (phc_step) so the sink knows to re-acquire instead of slewing.
// - td_inc is the PHC's increment per source cycle (8.32 fixed-point ns: the difference of two
//   consecutive PHC values, taken over two cycles without a step), sent with every sample: the sink
//   scales an adjfine change straight into its own increment instead of waiting for its loop.
// - After a phc_step the next sample goes out as soon as GAP_MIN_CYCLES have passed since the last
//   one (the sink learns of a step within GAP_MIN_CYCLES + 1 source cycles + its sync latency).
// - The outputs are registers and stay stable between toggles: the sink captures them when it sees
//   the toggle, two flops later. Spacing requirement (not checkable here, clocks are board facts):
//   GAP_MIN_CYCLES * source period >= 5 sink periods.
//
// Constraints: set_max_delay -datapath_only <sink period> from td_ns/td_fns/td_step/td_toggle
// registers to the sink's capture flops (tsnic_td_sink header).
`resetall
`timescale 1ns / 1ps
`default_nettype none

module tsnic_td_source #(
    parameter GAP_CYCLES     = 16,   // base spacing of samples in clk cycles (>= GAP_MIN_CYCLES)
    parameter GAP_MIN_CYCLES = 8     // shortest spacing (after a step), >= 5 sink periods
) (
    input  wire        clk,
    input  wire        rst,

    input  wire [63:0] phc_ns,
    input  wire [47:0] phc_fns,
    input  wire        phc_step,

    output wire [63:0] td_ns,
    output wire [31:0] td_fns,       // top 32 bits of the PHC fraction
    output wire [39:0] td_inc,       // PHC increment per cycle, ns * 2^32
    output wire        td_step,
    output wire        td_toggle
);

initial begin
    if (GAP_MIN_CYCLES < 2 || GAP_CYCLES < GAP_MIN_CYCLES || GAP_CYCLES > 240) begin
        $display("tsnic_td_source %m: need 2 <= GAP_MIN_CYCLES (%0d) <= GAP_CYCLES (%0d) <= 240",
                 GAP_MIN_CYCLES, GAP_CYCLES);
        $finish;
    end
end

reg [63:0] ns_reg = 64'd0;
reg [31:0] fns_reg = 32'd0;
reg        step_reg = 1'b0;
reg        toggle_reg = 1'b0;
reg [7:0]  count_reg = 8'd0;      // cycles since the last sample
reg [7:0]  target_reg = GAP_CYCLES;
reg        step_pending_reg = 1'b0;
reg [39:0] prev_low_reg = 40'd0;    // {ns[7:0], fns[47:16]} of the previous cycle
reg        prev_step_reg = 1'b1;
reg [39:0] inc_reg = 40'd0;
reg [39:0] td_inc_reg = 40'd0;
reg [15:0] lfsr_reg = 16'hACE1;

assign td_ns = ns_reg;
assign td_fns = fns_reg;
assign td_step = step_reg;
assign td_toggle = toggle_reg;
assign td_inc = td_inc_reg;

wire [39:0] cur_low = {phc_ns[7:0], phc_fns[47:16]};

wire due = (count_reg >= target_reg) || (step_pending_reg && count_reg >= GAP_MIN_CYCLES);

always @(posedge clk) begin
    prev_low_reg <= cur_low;
    prev_step_reg <= phc_step;
    if (!phc_step && !prev_step_reg) inc_reg <= cur_low - prev_low_reg;
    if (phc_step) step_pending_reg <= 1'b1;
    if (count_reg != 8'hFF) count_reg <= count_reg + 1'b1;
    if (due) begin
        ns_reg <= phc_ns;
        fns_reg <= phc_fns[47:16];
        td_inc_reg <= inc_reg;
        toggle_reg <= !toggle_reg;
        if (step_pending_reg) step_reg <= !step_reg;
        step_pending_reg <= phc_step;
        count_reg <= 8'd1;
        // x^16 + x^14 + x^13 + x^11 + 1 (maximal length), four steps per sample
        lfsr_reg <= {lfsr_reg[11:0], lfsr_reg[15:12] ^ lfsr_reg[13:10] ^ lfsr_reg[12:9] ^ lfsr_reg[10:7]};
        target_reg <= GAP_CYCLES[7:0] + {4'd0, lfsr_reg[3:0]};
    end
    if (rst) begin
        toggle_reg <= 1'b0;
        step_reg <= 1'b0;
        step_pending_reg <= 1'b0;
        count_reg <= 8'd0;
        target_reg <= GAP_CYCLES[7:0];
        lfsr_reg <= 16'hACE1;
        prev_step_reg <= 1'b1;
    end
end

/* verilator lint_off UNUSEDSIGNAL */
wire unused_ok = &{1'b0, phc_fns[15:0]};
/* verilator lint_on UNUSEDSIGNAL */

endmodule

`resetall
