// tsnic_td_sink: time distribution, sink side. A local copy of the PHC in this module's clock domain
// (the MAC's TX or RX clock), disciplined from the samples of tsnic_td_source.
//
// - Local time {time_ns, time_fns} (64.32 fixed point ns) grows by `inc` every cycle; inc starts at
//   PERIOD_FX (this clock's nominal period) and is trimmed by the loop below, so it ends up as this
//   clock's true period measured in PHC time (both clocks' ppm offsets and the PHC's adjfine).
// - Capture: td_toggle passes three flops (sync1, sync2, sync3); in the cycle sync2 != sync3 the
//   source's registers have been stable for at least one cycle and are captured. The sample S was the
//   PHC value one source period before the source's edge t_s, and the capturing edge comes 2 to 3 sink
//   periods after t_s, so the PHC time at the capturing edge is S + SRC_PERIOD_FX + (2..3) * period.
//   A second flop on the falling edge (neg1) halves that window: if it saw the toggle before the
//   rising-edge flop did, the toggle came in the first half of the period and the capturing edge is
//   2.5..3 periods after t_s, otherwise 2..2.5. Because the two clocks are unrelated (and the source
//   varies its spacing), where in that half period the truth lies is spread evenly over many
//   samples, so the loop's average converges on its middle, 2.75 or 2.25 periods.
// - Loop (per sample): err = target - local time at the capturing edge; time += err >> KP_SHIFT (one
//   cycle's increment is enlarged by that amount), inc += err >> KI_SHIFT (a proportional-integral
//   loop: no steady-state phase error for a constant frequency offset).
//   target = S + SRC_PERIOD_FX + (2.25 or 2.75) * period - MARGIN_FX: the local time runs MARGIN_FX
//   behind the PHC on average, so the sample noise left after the loop's averaging (about 0.14 *
//   period * sqrt(2^-(KP_SHIFT+1)) rms) does not make it run ahead: a launch gate fed by it never opens early.
// - Acquisition: after reset, after a PHC step/adjtime (td_step flips) or when |err| >= 2^STEP_LOG2 ns,
//   the local time is set to the lower bound S + SRC_PERIOD_FX + 2 * period (minus 1/64 period for a
//   clock rate error) - never ahead of the PHC - and the target lags by 3/8 period more than
//   MARGIN_FX. The loop runs in three gears: a wide phase-only loop (KP_ACQ_SHIFT; a step does not
//   change the frequency, and a frequency trim this wide would be mostly noise) for
//   2^ACQ_SAMPLES_LOG2 samples; the middle gains (KP_MID_SHIFT, and KI_MID_SHIFT at the first
//   acquisition after reset, when the frequency is unknown; phase only at later ones: the frequency
//   is known, and an integrator would learn the moving target's speed as a frequency error) for 16x as many samples (4x
//   after a step); then the narrow gains with the frequency trim held off for 4 x 2^ACQ_SAMPLES_LOG2
//   samples, after which locked = 1. From the middle gear on, the extra lag decays by 1/256 per
//   sample: the target moves forward smoothly, which the loops follow from behind (a step forward
//   would make an integrating loop overshoot past it, ahead of the PHC).
// - Frequency feed-forward: every sample carries the PHC's increment per source cycle (td_inc). When it
//   changes (adjfine, PERIOD), inc moves by the change times PERIOD_FX / SRC_PERIOD_FX at once (the
//   ratio of the nominal periods; its ppm error times the change is negligible), so an adjfine does
//   not have to be learnt by the slow loop (it would run the local time ahead of a slowed PHC). A
//   change of 0.5 ns per cycle or more re-acquires instead.
// - Latencies: a sample acts on the time three cycles after its capture; a step reaches time_ns about
//   GAP_MIN_CYCLES source cycles + 6 sink cycles after phc_step.
//
// Constraints: td_toggle -> sync1_reg and neg1_reg carry ASYNC_REG (set here; neg1_reg -> early1_reg
// is a half-period path inside this domain, which Vivado times as such); set_max_delay -datapath_only
// <this clock's period> from the source's td_* registers to sync1_reg and to the capture registers
// (cap_*). No other path crosses.
`resetall
`timescale 1ns / 1ps
`default_nettype none

module tsnic_td_sink #(
    parameter [63:0] PERIOD_FX     = 64'd27487790694,   // this clock's nominal period, ns * 2^32 (6.4 ns)
    parameter [63:0] SRC_PERIOD_FX = 64'd17179869184,   // the source clock's nominal period, ns * 2^32 (4 ns)
    parameter [63:0] MARGIN_FX     = 64'd1288490189,    // locked: mean lag behind the PHC, ns * 2^32 (0.3 ns)
    parameter KP_SHIFT     = 8,    // locked loop: phase gain 2^-KP_SHIFT per sample
    parameter KI_SHIFT     = 21,   // locked loop: frequency gain 2^-KI_SHIFT per sample
    parameter KP_MID_SHIFT = 6,    // second acquisition gear
    parameter KI_MID_SHIFT = 19,
    parameter KP_ACQ_SHIFT = 4,    // first acquisition gear (phase only: the frequency is kept)
    parameter ACQ_SAMPLES_LOG2 = 7, // first gear: 2^ACQ_SAMPLES_LOG2 samples, second gear 16x (4x after a step)
    parameter STEP_LOG2    = 6     // |err| >= 2^STEP_LOG2 ns: re-acquire (a step)
) (
    input  wire        clk,
    input  wire        rst,

    // from tsnic_td_source (another clock domain)
    input  wire [63:0] td_ns,
    input  wire [31:0] td_fns,
    input  wire [39:0] td_inc,
    input  wire        td_step,
    input  wire        td_toggle,

    output wire [63:0] time_ns,
    output wire [31:0] time_fns,
    output wire        time_valid,    // the first sample has arrived (time_ns is 0 before)
    output wire        locked,        // narrow loop running and settled: the error is the measured one
    output wire        time_step      // one-cycle pulse: the local time was set (acquisition start)
);

localparam INC_W = 48;
localparam [95:0] RATIO_FULL = ({32'd0, PERIOD_FX} << 16) / {32'd0, SRC_PERIOD_FX};
localparam [19:0] RATIO_FX = RATIO_FULL[19:0];      // PERIOD_FX / SRC_PERIOD_FX, 4.16 fixed point                     // signed increment / correction, 15.32 fixed point
localparam [95:0] TRACK_DELAY = {32'd0, SRC_PERIOD_FX} + {32'd0, PERIOD_FX} * 96'd9 / 96'd4
                                - {32'd0, MARGIN_FX};         // late half: + period / 2
localparam [47:0] ACQ_EXTRA   = PERIOD_FX[47:0] * 48'd3 / 48'd8;   // extra lag after a (re)set
// the hard set lands three cycles after the capturing edge
localparam [95:0] HARD_DELAY  = {32'd0, SRC_PERIOD_FX} + {32'd0, PERIOD_FX} * 96'd2
                                - ({32'd0, PERIOD_FX} >> 6) + {32'd0, PERIOD_FX} * 96'd3;

initial begin
    if (STEP_LOG2 < 1 || STEP_LOG2 > 12 || KP_SHIFT > 30 || KI_SHIFT > 40 || KP_ACQ_SHIFT > 30 || KP_MID_SHIFT > 30 || KI_MID_SHIFT > 40 || ACQ_SAMPLES_LOG2 < 1 || ACQ_SAMPLES_LOG2 > 14 || PERIOD_FX[63:45] != 0) begin
        $display("tsnic_td_sink %m: parameter out of range (STEP_LOG2 1..12, shifts <= 30/40, ACQ_SAMPLES_LOG2 1..14, PERIOD_FX < 8192 ns)");
        $finish;
    end
    if (RATIO_FULL >= 96'd524288) begin
        $display("tsnic_td_sink %m: PERIOD_FX / SRC_PERIOD_FX must be below 8");
        $finish;
    end
    if (MARGIN_FX >= PERIOD_FX) begin
        $display("tsnic_td_sink %m: MARGIN_FX must be below one period");
        $finish;
    end
end

(* ASYNC_REG = "TRUE" *) reg sync1_reg = 1'b0;
(* ASYNC_REG = "TRUE" *) reg sync2_reg = 1'b0;
reg sync3_reg = 1'b0;
(* ASYNC_REG = "TRUE" *) reg neg1_reg = 1'b0;
reg early1_reg = 1'b0;
reg early2_reg = 1'b0;

reg [95:0] time_reg = 96'd0;              // {ns, fraction}
reg [INC_W-1:0] inc_reg = PERIOD_FX[INC_W-1:0];
reg [INC_W-1:0] inc_use_reg = PERIOD_FX[INC_W-1:0];   // what the next cycle adds
reg        valid_reg = 1'b0;
reg        locked_reg = 1'b0;
reg        step_pulse_reg = 1'b0;
reg        last_step_reg = 1'b0;
reg [ACQ_SAMPLES_LOG2+4:0] acq_count_reg = 0;
reg        freq_known_reg = 1'b0;          // a first acquisition has completed
reg        mid_reg = 1'b0;                 // second gear
reg        settle_reg = 1'b0;              // narrow gains, frequency trim still held off

// pipeline: s1 = captured sample (targets), s2 = error, s3 = decision
reg [39:0] last_inc_reg = 40'd0;
reg [39:0] s1_dinc_reg = 40'd0;
reg [47:0] extra_reg = ACQ_EXTRA;          // extra lag of the target, decaying once acquired
reg [95:0] target_off_reg = TRACK_DELAY - {48'd0, ACQ_EXTRA};
reg [INC_W-1:0] s2_ff_reg = {INC_W{1'b0}};   // feed-forward product
reg        s2_ff_big_reg = 1'b0;
reg [INC_W-1:0] s3_ff_reg = {INC_W{1'b0}};
reg        s3_ff_valid_reg = 1'b0;
reg [INC_W-1:0] s4_ff_reg = {INC_W{1'b0}};
reg        s4_ff_apply_reg = 1'b0;
reg        s1_valid_reg = 1'b0;
reg        s1_step_reg = 1'b0;
reg [95:0] s1_target_reg = 96'd0;
reg [95:0] s1_hard_reg = 96'd0;
reg        s2_valid_reg = 1'b0;
reg        s2_step_reg = 1'b0;
reg [95:0] s2_err_reg = 96'd0;
reg [95:0] s2_hard_reg = 96'd0;
reg        s3_hard_reg = 1'b0;
reg [95:0] s3_hard_val_reg = 96'd0;

assign time_ns = time_reg[95:32];
assign time_fns = time_reg[31:0];
assign time_valid = valid_reg;
assign locked = locked_reg && !settle_reg;
assign time_step = step_pulse_reg;

wire capture = sync2_reg ^ sync3_reg;
wire capture_late = (early2_reg == sync2_reg);   // the falling-edge flop saw the toggle first
localparam [95:0] HALF_PERIOD = {32'd0, PERIOD_FX} >> 1;
wire [95:0] sample = {td_ns, td_fns};

// |err| >= 2^STEP_LOG2 ns: the bits above (and including) that weight are not all copies of the sign
wire [95-32-STEP_LOG2:0] err_high = s2_err_reg[95:32+STEP_LOG2];
wire err_big = !((&err_high) || !(|err_high));
wire [INC_W-1:0] err_small = s2_err_reg[INC_W-1:0];
wire [INC_W-1:0] corr = locked_reg ? ($signed(err_small) >>> KP_SHIFT)
                      : mid_reg ? ($signed(err_small) >>> KP_MID_SHIFT) : ($signed(err_small) >>> KP_ACQ_SHIFT);
wire [INC_W-1:0] trim = settle_reg ? $signed({INC_W{1'b0}})
                      : locked_reg ? ($signed(err_small) >>> KI_SHIFT)
                      : (mid_reg && !freq_known_reg) ? ($signed(err_small) >>> KI_MID_SHIFT)
                      : $signed({INC_W{1'b0}});
// feed-forward: signed 32-bit increment change times the 4.16 period ratio, floor(dinc * ratio / 2^16),
// as a sum of shifted copies of dinc (the ratio is a constant: an adder tree in LUTs and carries,
// 1.4 ns; a DSP48E2 without its pipeline registers, which yosys does not pack, times 1.9 ns A->P);
// registered, copied once and applied the cycle after: samples are at least 5 cycles apart, so these
// stages never overlap the next sample's
function [63:0] mul_ratio;
    input [31:0] x;           // signed
    integer i;
    reg [63:0] xe, acc;
    begin
        xe = {{32{x[31]}}, x};
        acc = 64'd0;
        for (i = 0; i < 20; i = i + 1)
            if (RATIO_FX[i]) acc = acc + (xe << i);
        mul_ratio = acc;
    end
endfunction
wire [63:0] ff_prod = mul_ratio(s1_dinc_reg[31:0]);
wire [INC_W-1:0] ff_sum = s3_ff_reg;
wire [95:0] inc_use_ext = {{(96-INC_W){inc_use_reg[INC_W-1]}}, inc_use_reg};

always @(negedge clk) begin
    neg1_reg <= td_toggle;
end

always @(posedge clk) begin
    target_off_reg <= TRACK_DELAY - {48'd0, extra_reg};
    early1_reg <= neg1_reg;
    early2_reg <= early1_reg;
    sync1_reg <= td_toggle;
    sync2_reg <= sync1_reg;
    sync3_reg <= sync2_reg;

    // stage 1: capture
    s1_valid_reg <= capture;
    if (capture) begin
        s1_step_reg <= (td_step != last_step_reg) || !valid_reg;
        last_step_reg <= td_step;
        s1_target_reg <= sample + target_off_reg
                         + (capture_late ? HALF_PERIOD : 96'd0);
        s1_hard_reg <= sample + HARD_DELAY;
        s1_dinc_reg <= td_inc - last_inc_reg;
        last_inc_reg <= td_inc;
    end

    // stage 2: error against the local time of the capturing edge (time_reg holds it now)
    s2_valid_reg <= s1_valid_reg;
    s2_step_reg <= s1_step_reg;
    s2_err_reg <= s1_target_reg - time_reg;
    s2_hard_reg <= s1_hard_reg;
    s2_ff_big_reg <= !((&s1_dinc_reg[39:31]) || !(|s1_dinc_reg[39:31]));
    s2_ff_reg <= ff_prod[16 +: INC_W];
    s3_ff_reg <= s2_ff_reg;
    s3_ff_valid_reg <= s2_valid_reg && !s2_ff_big_reg;
    s4_ff_reg <= ff_sum;
    s4_ff_apply_reg <= s3_ff_valid_reg;
    if (s4_ff_apply_reg) inc_reg <= inc_reg + s4_ff_reg;

    // stage 3: decide; the correction rides on the next cycle's increment
    s3_hard_reg <= 1'b0;
    inc_use_reg <= inc_reg;
    step_pulse_reg <= 1'b0;
    if (s2_valid_reg) begin
        if (s2_step_reg || err_big || s2_ff_big_reg) begin
            s3_hard_reg <= 1'b1;
            s3_hard_val_reg <= s2_hard_reg;
            locked_reg <= 1'b0;
            mid_reg <= 1'b0;
            settle_reg <= 1'b0;
            acq_count_reg <= 0;
            extra_reg <= ACQ_EXTRA;
        end else begin
            if (mid_reg || locked_reg) extra_reg <= extra_reg - (extra_reg >> 8);
            inc_use_reg <= inc_reg + corr;
            inc_reg <= inc_reg + trim;
            if (settle_reg) begin
                acq_count_reg <= acq_count_reg + 1'b1;
                if (acq_count_reg[ACQ_SAMPLES_LOG2+2]) settle_reg <= 1'b0;
            end
            if (!locked_reg) begin
                acq_count_reg <= acq_count_reg + 1'b1;
                if (!mid_reg && acq_count_reg[ACQ_SAMPLES_LOG2]) begin
                    mid_reg <= 1'b1;
                    acq_count_reg <= 0;
                end
                if (mid_reg && (freq_known_reg ? acq_count_reg[ACQ_SAMPLES_LOG2+2]
                                               : acq_count_reg[ACQ_SAMPLES_LOG2+4])) begin
                    locked_reg <= 1'b1;
                    settle_reg <= 1'b1;
                    acq_count_reg <= 0;
                    freq_known_reg <= 1'b1;
                end
            end
        end
    end

    // the local time
    if (s3_hard_reg) begin
        time_reg <= s3_hard_val_reg;
        valid_reg <= 1'b1;
        step_pulse_reg <= 1'b1;
    end else if (valid_reg) begin
        time_reg <= time_reg + inc_use_ext;
    end

    if (rst) begin
        sync1_reg <= 1'b0;
        sync2_reg <= 1'b0;
        sync3_reg <= 1'b0;
        s1_valid_reg <= 1'b0;
        s2_valid_reg <= 1'b0;
        s3_hard_reg <= 1'b0;
        time_reg <= 96'd0;
        inc_reg <= PERIOD_FX[INC_W-1:0];
        inc_use_reg <= PERIOD_FX[INC_W-1:0];
        valid_reg <= 1'b0;
        locked_reg <= 1'b0;
        mid_reg <= 1'b0;
        settle_reg <= 1'b0;
        freq_known_reg <= 1'b0;
        step_pulse_reg <= 1'b0;
        last_step_reg <= 1'b0;
        acq_count_reg <= 0;
        last_inc_reg <= 40'd0;
        s3_ff_valid_reg <= 1'b0;
        s4_ff_apply_reg <= 1'b0;
        extra_reg <= ACQ_EXTRA;
    end
end

/* verilator lint_off UNUSEDSIGNAL */
wire unused_ok = &{1'b0, s2_err_reg[95:INC_W], ff_prod[15:0]};
/* verilator lint_on UNUSEDSIGNAL */

endmodule

`resetall
