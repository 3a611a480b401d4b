// Bench helper (not RTL): the true PHC time, seen from another clock domain.
//
// The PHC register {phc_ns, phc_fns} takes a new value at every rising edge of phc_clk; between edges
// the bench's notion of PHC time grows linearly with simulated time at the rate of the current
// increment (phc_inc, 16.48 ns per phc_clk period, the period measured from the last two edges).
// At every rising edge of mac_clk, true_ns/true_fr give the PHC time at that instant (ns and a real
// fraction), and err_ns = true - {mac_ns, mac_fns} (a real, ns) compares a local copy against it.
// While stats_en is high, err_ns is accumulated: count, min, max, mean, sum of squares, and the
// number of edges with err_ns < 0 (local time ahead of the PHC). Each window (stats_en rising) starts
// from empty statistics, cleared here: a bench cannot write `real` variables under Verilator.
`timescale 1ns / 1fs
`default_nettype none

module tb_phc_truth (
    input  wire        phc_clk,
    input  wire [63:0] phc_ns,
    input  wire [47:0] phc_fns,
    input  wire [63:0] phc_inc,
    input  wire        mac_clk,
    input  wire [63:0] mac_ns,
    input  wire [31:0] mac_fns,
    input  wire        stats_en
);

real t_cur = -1.0, t_prev = -1.0, period = 4.0;
reg [63:0] ns_cur = 0, ns_prev = 0;
real fr_cur = 0.0, fr_prev = 0.0, inc_cur = 0.0, inc_prev = 0.0;

always @(posedge phc_clk) begin
    #0.001;
    t_prev = t_cur; ns_prev = ns_cur; fr_prev = fr_cur; inc_prev = inc_cur;
    t_cur = $realtime - 0.001;
    ns_cur = phc_ns;
    fr_cur = phc_fns / 281474976710656.0;
    inc_cur = phc_inc / 281474976710656.0;
    if (t_prev >= 0.0) period = t_cur - t_prev;
end

// PHC time now, relative to the integer ns `base` (keeps the real arithmetic small)
real    true_fr = 0.0;     // true time = true_ns + true_fr
reg [63:0] true_ns = 0;
real    err_ns = 0.0;
real    err_min = 1.0e9, err_max = -1.0e9, err_sum = 0.0, err_sumsq = 0.0;
integer err_count = 0, ahead_count = 0;
reg     stats_en_q = 1'b0;
// The statistics as IEEE-754 bit patterns: Verilator's VPI does not read `real` variables (cocotb
// gets 0 or 1 from them), a 64-bit vector reads the same in every simulator.
wire [63:0] err_min_bits   = $realtobits(err_min);
wire [63:0] err_max_bits   = $realtobits(err_max);
wire [63:0] err_sum_bits   = $realtobits(err_sum);
wire [63:0] err_sumsq_bits = $realtobits(err_sumsq);
real    t_mac, dt, adv, d;
reg [63:0] b_ns;
real    b_fr, b_inc;

always @(posedge mac_clk) begin
    #0.002;
    t_mac = $realtime - 0.002;
    if (t_cur <= t_mac + 1.0e-9) begin
        dt = t_mac - t_cur; b_ns = ns_cur; b_fr = fr_cur; b_inc = inc_cur;
    end else begin
        dt = t_mac - t_prev; b_ns = ns_prev; b_fr = fr_prev; b_inc = inc_prev;
    end
    adv = dt / period * b_inc;
    true_ns = b_ns;
    true_fr = b_fr + adv;
    d = $signed(b_ns - mac_ns);
    err_ns = d + true_fr - mac_fns / 4294967296.0;
    if (stats_en && !stats_en_q) clear_stats;  // a new window starts from empty statistics
    stats_en_q = stats_en;
    if (stats_en) begin
        err_count = err_count + 1;
        if (err_ns < err_min) err_min = err_ns;
        if (err_ns > err_max) err_max = err_ns;
        err_sum = err_sum + err_ns;
        err_sumsq = err_sumsq + err_ns * err_ns;
        if (err_ns < 0.0) ahead_count = ahead_count + 1;
    end
end

task clear_stats;
    begin
        err_min = 1.0e9; err_max = -1.0e9; err_sum = 0.0; err_sumsq = 0.0;
        err_count = 0; ahead_count = 0;
    end
endtask

endmodule
