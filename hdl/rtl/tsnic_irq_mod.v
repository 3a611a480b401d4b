// tsnic_irq_mod: interrupt moderation by count and by time.
//
// Counts completion events not yet signalled. Fires (one-cycle `fire`) when
//   - the count reaches max(1, mod_count), or
//   - mod_time_ns != 0 and PHC time has reached (time of the first unsignalled event + mod_time_ns),
//     or the PHC was stepped while events were unsignalled (a step makes the deadline meaningless;
//     firing early is always allowed, firing late is not).
// Firing clears the count and stops the timer.
`resetall
`timescale 1ns / 1ps
`default_nettype none

module tsnic_irq_mod (
    input  wire        clk,
    input  wire        rst,
    input  wire        evt,          // one completion made visible to the host
    input  wire [31:0] mod_count,
    input  wire [31:0] mod_time_ns,
    input  wire [63:0] phc_ns,
    input  wire        phc_step,
    output wire        fire,
    output wire        ff_quiet,      // not firing this cycle (fast-forward)
    output wire [63:0] ff_wake_ns     // the time deadline while the timer runs, else all ones
);

reg  [31:0] count_reg = 32'd0;
reg         timer_reg = 1'b0;
reg  [63:0] deadline_reg = 64'd0;
reg         fire_reg = 1'b0;

wire [31:0] count_next = count_reg + 32'd1;
wire [31:0] limit = (mod_count == 32'd0) ? 32'd1 : mod_count;
wire        count_hit = evt && (count_next >= limit);
wire        time_hit = timer_reg && ((phc_ns >= deadline_reg) || phc_step);

assign fire = fire_reg;
assign ff_quiet = !fire_reg && !evt && !(timer_reg && phc_step);
assign ff_wake_ns = timer_reg ? deadline_reg : {64{1'b1}};

always @(posedge clk) begin
    fire_reg <= 1'b0;
    if (count_hit || time_hit) begin
        fire_reg <= 1'b1;
        count_reg <= 32'd0;
        timer_reg <= 1'b0;
    end else if (evt) begin
        count_reg <= count_next;
        if (!timer_reg && mod_time_ns != 32'd0) begin
            timer_reg <= 1'b1;
            deadline_reg <= phc_ns + {32'd0, mod_time_ns};
        end
    end

    if (rst) begin
        count_reg <= 32'd0;
        timer_reg <= 1'b0;
        deadline_reg <= 64'd0;
        fire_reg <= 1'b0;
    end
end

endmodule

`resetall
