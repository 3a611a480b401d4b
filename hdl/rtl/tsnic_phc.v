// tsnic_phc: PTP hardware clock (PHC block of the register map, hdl/contract/tsnic.toml).
//
// Time is TAI: a u64 count of ns plus a 48-bit fraction of a ns. Every clock the 112-bit value
// {ns, fns} grows by the effective increment `inc` (16.48 fixed-point ns):
//     inc = period + trunc(period * ppb / 10^9)           (tsnic_phc_incr, exact integer math)
// The nominal period after reset is PERIOD_NUM / PERIOD_DEN ns rounded to 48 fractional bits
// (32/5 = 6.4 ns for 156.25 MHz, 512/165 ns for 322.265625 MHz: relative error < 2e-15).
//
// A seconds view {sec, nsec} = divmod(ns, 10^9) is kept one pipeline stage behind the ns count (it
// describes the time of the previous cycle, so the 112-bit adder's carry never feeds it): it advances
// with the same whole-ns steps, rolling nsec over at 10^9 (that edge starts the `pps` pulse, which
// therefore rises one cycle after the first cycle of the new second). After a SET, an ADJ or a 2^64 ns
// wrap it is recomputed by a serial divider (66 cycles, STATUS.BUSY), while the clock keeps running;
// a TIME_LO read waits (reg_rd_wait) until the view is valid, so a snapshot is always consistent:
// snap_sec * 10^9 + snap_nsec == snap_ns.
//
// Register interface: Corundum style (docs/DATAPATH.md), full BAR0 byte addresses; only the defined
// PHC registers are acknowledged. Timing, in cycles of `clk` (the cycle in which reg_*_ack is high is
// the "ack cycle"):
//   TIME_LO read  : the snapshot is the time of the cycle two before the ack cycle (the sampling
//                   cycle's delayed copy, to which the seconds view belongs).
//   CMD.SET       : phc_ns equals SET_HI:SET_LO (fraction 0) in the ack cycle; phc_step high then.
//   CMD.ADJ       : from the ack cycle on, time is what it would have been plus ADJ_HI:ADJ_LO ns.
//   PERIOD_HI / ADJFINE_PPB write: the new increment is used from a fixed latency on
//                   (tsnic_phc_incr: 131 cycles after the ack cycle; STATUS.BUSY until then).
`timescale 1ns / 1ps
`default_nettype none
`include "tsnic_contract.vh"

module tsnic_phc #(
    parameter ADDR_W = 20,          // register interface address width (BAR0 byte address), 12..31
    parameter PERIOD_NUM = 32,      // nominal clock period = PERIOD_NUM / PERIOD_DEN ns
    parameter PERIOD_DEN = 5,
    parameter PPS_WIDTH = 32,       // pps pulse width in clock cycles (>= 1)
    parameter PPS_CNT_W = 16,       // width of the pps pulse counter: PPS_WIDTH < 2^PPS_CNT_W
    parameter SIM_FAST_FORWARD = 0  // 1: honour ff_warp (co-simulation only; 0 leaves no logic)
) (
    input  wire              clk,
    input  wire              rst,

    // register interface
    input  wire [ADDR_W-1:0] reg_wr_addr,
    input  wire [31:0]       reg_wr_data,
    input  wire [3:0]        reg_wr_strb,
    input  wire              reg_wr_en,
    output wire              reg_wr_wait,
    output wire              reg_wr_ack,
    input  wire [ADDR_W-1:0] reg_rd_addr,
    input  wire              reg_rd_en,
    output wire [31:0]       reg_rd_data,
    output wire              reg_rd_wait,
    output wire              reg_rd_ack,

    // time
    output wire [63:0]       phc_ns,
    output wire [47:0]       phc_fns,
    output wire [47:0]       phc_sec,        // divmod(phc_ns of the previous cycle, 10^9),
    output wire [29:0]       phc_nsec,       //   valid when phc_sec_valid
    output wire              phc_sec_valid,
    output wire              phc_step,       // one-cycle pulse: time was set or adjusted
    output wire              pps,

    // co-simulation fast-forward (docs/ARCHITECTURE.md, "Idle fast-forward")
    input  wire [31:0]       ff_warp,        // extra increments folded into this cycle (0: a normal cycle)
    output wire              ff_quiet,       // only the time registers change while phc_ns < ff_wake_ns
    output wire [63:0]       ff_wake_ns,     // the next second boundary (seconds view, pps)
    output wire [63:0]       ff_inc          // the increment added every cycle (16.48 ns)
);

localparam [111:0] P_NUM = PERIOD_NUM;
localparam [111:0] P_DEN = PERIOD_DEN;
localparam [111:0] P_INIT_FULL = ((P_NUM << 48) + (P_DEN >> 1)) / P_DEN;
localparam [63:0]  PERIOD_INIT = P_INIT_FULL[63:0];
localparam [30:0]  NS_PER_SEC = 31'd1000000000;

// ---------------------------------------------------------------------------------------------
// address decode (32-bit aligned, full byte address)
wire [31:0] wa = {{(32-ADDR_W){1'b0}}, reg_wr_addr} & 32'hFFFFFFFC;
wire [31:0] ra = {{(32-ADDR_W){1'b0}}, reg_rd_addr} & 32'hFFFFFFFC;

function is_phc_reg;
    input [31:0] a;
    begin
        case (a)
            `TSNIC_PHC_TIME_LO, `TSNIC_PHC_TIME_HI, `TSNIC_PHC_TIME_FNS,
            `TSNIC_PHC_SET_LO, `TSNIC_PHC_SET_HI, `TSNIC_PHC_ADJ_LO, `TSNIC_PHC_ADJ_HI,
            `TSNIC_PHC_CMD, `TSNIC_PHC_PERIOD_LO, `TSNIC_PHC_PERIOD_HI, `TSNIC_PHC_ADJFINE_PPB,
            `TSNIC_PHC_STATUS, `TSNIC_PHC_STEP_COUNT,
            `TSNIC_PHC_SEC_LO, `TSNIC_PHC_SEC_HI, `TSNIC_PHC_NSEC: is_phc_reg = 1'b1;
            default: is_phc_reg = 1'b0;
        endcase
    end
endfunction

function [31:0] merge;     // byte-strobed write
    input [31:0] old;
    input [31:0] data;
    input [3:0]  strb;
    integer i;
    begin
        for (i = 0; i < 4; i = i + 1)
            merge[i*8 +: 8] = strb[i] ? data[i*8 +: 8] : old[i*8 +: 8];
    end
endfunction

// ---------------------------------------------------------------------------------------------
// state
reg [63:0] ns_reg = 64'd0;
reg [47:0] fns_reg = 48'd0;
reg [47:0] sec_reg = 48'd0;
reg [29:0] nsec_reg = 30'd0;
reg        sv_busy_reg = 1'b0;     // seconds view being recomputed
reg        sv_start_reg = 1'b0;
reg [23:0] sv_delta_reg = 24'd0;   // ns added since the divided value
reg        step_reg = 1'b0;
reg [31:0] step_cnt_reg = 32'd0;
reg [PPS_CNT_W-1:0] pps_cnt_reg = {PPS_CNT_W{1'b0}};
// the previous cycle, for the seconds view and the snapshot
reg [63:0] ns_d_reg = 64'd0;
reg [47:16] fns_d_reg = 32'd0;   // the bits TIME_FNS shows
reg [16:0] delta_d_reg = 17'd0;
reg        restart_d_reg = 1'b0;

reg [63:0] set_reg = 64'd0;
reg [63:0] adj_reg = 64'd0;
reg [31:0] period_lo_stage_reg = PERIOD_INIT[31:0];
reg [63:0] period_reg = PERIOD_INIT;
reg [31:0] ppb_reg = 32'd0;
reg        calc_start_reg = 1'b0;

reg [31:0] snap_hi_reg = 32'd0;
reg [31:0] snap_fns_reg = 32'd0;
reg [47:0] snap_sec_reg = 48'd0;
reg [29:0] snap_nsec_reg = 30'd0;

reg        wr_ack_reg = 1'b0;
reg        rd_ack_reg = 1'b0;
reg [31:0] rd_data_reg = 32'd0;

// ---------------------------------------------------------------------------------------------
// register access strobes
wire wr_go = reg_wr_en && !wr_ack_reg && is_phc_reg(wa);
wire wr_cmd = wr_go && (wa == `TSNIC_PHC_CMD) && reg_wr_strb[0];
wire do_set = wr_cmd && reg_wr_data[`TSNIC_PHC_CMD_SET_BIT];
wire do_adj = wr_cmd && reg_wr_data[`TSNIC_PHC_CMD_ADJ_BIT] && !reg_wr_data[`TSNIC_PHC_CMD_SET_BIT];
wire step_now = do_set || do_adj;

wire sv_wait = sv_busy_reg || restart_d_reg;   // seconds view invalid or about to be recomputed
wire rd_time_lo = reg_rd_en && !rd_ack_reg && (ra == `TSNIC_PHC_TIME_LO);
wire rd_go = reg_rd_en && !rd_ack_reg && is_phc_reg(ra) && !(rd_time_lo && sv_wait);

assign reg_wr_wait = 1'b0;
assign reg_wr_ack = wr_ack_reg;
assign reg_rd_wait = rd_time_lo && sv_wait;   // snapshot waits for a valid seconds view
assign reg_rd_ack = rd_ack_reg;
assign reg_rd_data = rd_data_reg;

// ---------------------------------------------------------------------------------------------
// effective increment
wire [63:0] inc;
wire        incr_busy;

tsnic_phc_incr #(
    .INC_INIT(PERIOD_INIT)
) incr_inst (
    .clk(clk),
    .rst(rst),
    .start(calc_start_reg),
    .period(period_reg),
    .ppb(ppb_reg),
    .busy(incr_busy),
    .inc(inc)
);

// ---------------------------------------------------------------------------------------------
// time
// one 112-bit carry chain; an ADJ folds its offset into the whole-ns addend (from registers only)
wire [63:0]  addend_ns = do_adj ? adj_reg + {48'd0, inc[63:48]} : {48'd0, inc[63:48]};
wire [112:0] t_next = {1'b0, ns_reg, fns_reg} + {1'b0, addend_ns, inc[47:0]};
// whole ns added this cycle (without any ADJ), for the seconds view
/* verilator lint_off UNUSEDSIGNAL */
wire [48:0]  fns_sum = {1'b0, fns_reg} + {1'b0, inc[47:0]};      // only the carry is used
/* verilator lint_on UNUSEDSIGNAL */
wire [16:0]  ns_delta = {1'b0, inc[63:48]} + {16'd0, fns_sum[48]};
wire         wrap_now = !step_now && t_next[112];
wire        restart = step_now || wrap_now;

// seconds view
wire [29:0] div_r;
wire        div_done;
/* verilator lint_off UNUSEDSIGNAL */
wire [63:0] div_q;                 // < 2^35: bits 63:48 are always 0
wire        div_busy;
/* verilator lint_on UNUSEDSIGNAL */

tsnic_phc_div #(
    .W(64),
    .DIV_W(30),
    .DIVISOR(30'd1000000000),
    .CNT_W(7)
) sec_div_inst (
    .clk(clk),
    .rst(rst),
    .start(sv_start_reg),
    .dividend(ns_d_reg),
    .busy(div_busy),
    .done(div_done),
    .quotient(div_q),
    .remainder(div_r)
);

wire [30:0] nsec_sum = {1'b0, nsec_reg} + {14'd0, delta_d_reg};
wire [31:0] fin_sum = {2'b00, div_r} + {8'd0, sv_delta_reg} + {15'd0, delta_d_reg};
wire        fin_wrap = fin_sum >= {1'b0, NS_PER_SEC};
/* verilator lint_off UNUSEDSIGNAL */
wire [31:0] fin_nsec = fin_wrap ? fin_sum - {1'b0, NS_PER_SEC} : fin_sum;   // < 10^9: 30 bits
wire        run_wrap = nsec_sum >= NS_PER_SEC;
wire [30:0] run_nsec = run_wrap ? nsec_sum - NS_PER_SEC : nsec_sum;        // < 10^9: 30 bits
/* verilator lint_on UNUSEDSIGNAL */
wire [47:0] q_plus1 = div_q[47:0] + 48'd1;
wire [47:0] fin_sec = fin_wrap ? q_plus1 : div_q[47:0];

// fast-forward: a cycle with ff_warp = W is W + 1 cycles of the clock at once. Only allowed while
// ff_quiet and while the W + 1 steps stay before ff_wake_ns (the co-simulation keeps to both): then
// nothing but the time, its one-cycle-delayed copy and the running seconds view would have changed.
wire         warp_go;
/* verilator lint_off UNUSEDSIGNAL */
wire [111:0] warp_tw;       // time after W steps (its low 16 fraction bits are not kept)
/* verilator lint_on UNUSEDSIGNAL */
wire [111:0] warp_tw1;      // and after W + 1
wire [29:0]  warp_dns;      // whole ns of the first W steps (mod 2^30)
generate
    if (SIM_FAST_FORWARD != 0) begin : g_warp
        // computed only in a warp cycle (zero otherwise, and unused): the co-simulation then skips the
        // 112-bit multiply in every other cycle (it was a tenth of the model's work per cycle)
        reg [111:0] tw_c;
        reg [111:0] tw1_c;
        reg [29:0]  dns_c;
        always @* begin
            tw_c  = 112'd0;
            tw1_c = 112'd0;
            dns_c = 30'd0;
            if (ff_warp != 32'd0) begin
                tw_c  = {ns_reg, fns_reg} + ({48'd0, ff_warp} * {48'd0, inc});
                tw1_c = tw_c + {48'd0, inc};
                dns_c = tw_c[77:48] - ns_reg[29:0];
            end
        end
        assign warp_go  = (ff_warp != 32'd0);
        assign warp_tw  = tw_c;
        assign warp_tw1 = tw1_c;
        assign warp_dns = dns_c;
    end else begin : g_no_warp
        // no fast-forward: no logic at all (ff_warp is ignored)
        /* verilator lint_off UNUSEDSIGNAL */
        wire unused_warp = &{1'b0, ff_warp};
        /* verilator lint_on UNUSEDSIGNAL */
        assign warp_go  = 1'b0;
        assign warp_tw  = 112'd0;
        assign warp_tw1 = 112'd0;
        assign warp_dns = 30'd0;
    end
endgenerate

always @(posedge clk) begin
    // time
    if (do_set) begin
        ns_reg <= set_reg;
        fns_reg <= 48'd0;
    end else begin
        ns_reg <= t_next[111:48];
        fns_reg <= t_next[47:0];
    end
    step_reg <= step_now;
    if (step_now) begin
        step_cnt_reg <= step_cnt_reg + 32'd1;
    end

    ns_d_reg <= ns_reg;
    fns_d_reg <= fns_reg[47:16];
    delta_d_reg <= ns_delta;
    restart_d_reg <= restart;

    // seconds view (of the previous cycle) and pps
    if (pps_cnt_reg != {PPS_CNT_W{1'b0}}) begin
        pps_cnt_reg <= pps_cnt_reg - 1'b1;
    end
    sv_start_reg <= 1'b0;
    if (restart_d_reg) begin
        sv_busy_reg <= 1'b1;
        sv_start_reg <= 1'b1;      // the divider takes ns_d_reg of the next cycle: the new time
        sv_delta_reg <= 24'd0;
    end else if (sv_busy_reg) begin
        sv_delta_reg <= sv_delta_reg + {7'd0, delta_d_reg};
        if (div_done && !sv_start_reg) begin
            sv_busy_reg <= 1'b0;
            sec_reg <= fin_sec;
            nsec_reg <= fin_nsec[29:0];
            if (fin_wrap) begin
                pps_cnt_reg <= PPS_WIDTH[PPS_CNT_W-1:0];
            end
        end
    end else begin
        nsec_reg <= run_nsec[29:0];
        if (run_wrap) begin
            sec_reg <= sec_reg + 48'd1;
            pps_cnt_reg <= PPS_WIDTH[PPS_CNT_W-1:0];
        end
    end

    if (warp_go) begin
        ns_reg <= warp_tw1[111:48];
        fns_reg <= warp_tw1[47:0];
        ns_d_reg <= warp_tw[111:48];
        fns_d_reg <= warp_tw[47:16];
        delta_d_reg <= warp_tw1[64:48] - warp_tw[64:48];
        nsec_reg <= nsec_reg + {13'd0, delta_d_reg} + warp_dns;
    end

    if (rst) begin
        ns_reg <= 64'd0;
        fns_reg <= 48'd0;
        sec_reg <= 48'd0;
        nsec_reg <= 30'd0;
        sv_busy_reg <= 1'b0;
        sv_start_reg <= 1'b0;
        sv_delta_reg <= 24'd0;
        step_reg <= 1'b0;
        step_cnt_reg <= 32'd0;
        pps_cnt_reg <= {PPS_CNT_W{1'b0}};
        ns_d_reg <= 64'd0;
        fns_d_reg <= 32'd0;
        delta_d_reg <= 17'd0;
        restart_d_reg <= 1'b0;
    end
end

// ---------------------------------------------------------------------------------------------
// registers
always @(posedge clk) begin
    wr_ack_reg <= 1'b0;
    calc_start_reg <= 1'b0;
    if (wr_go) begin
        wr_ack_reg <= 1'b1;
        case (wa)
            `TSNIC_PHC_SET_LO: set_reg[31:0] <= merge(set_reg[31:0], reg_wr_data, reg_wr_strb);
            `TSNIC_PHC_SET_HI: set_reg[63:32] <= merge(set_reg[63:32], reg_wr_data, reg_wr_strb);
            `TSNIC_PHC_ADJ_LO: adj_reg[31:0] <= merge(adj_reg[31:0], reg_wr_data, reg_wr_strb);
            `TSNIC_PHC_ADJ_HI: adj_reg[63:32] <= merge(adj_reg[63:32], reg_wr_data, reg_wr_strb);
            `TSNIC_PHC_PERIOD_LO: period_lo_stage_reg <= merge(period_lo_stage_reg, reg_wr_data, reg_wr_strb);
            `TSNIC_PHC_PERIOD_HI: begin
                period_reg <= {merge(period_reg[63:32], reg_wr_data, reg_wr_strb), period_lo_stage_reg};
                calc_start_reg <= 1'b1;
            end
            `TSNIC_PHC_ADJFINE_PPB: begin
                ppb_reg <= merge(ppb_reg, reg_wr_data, reg_wr_strb);
                calc_start_reg <= 1'b1;
            end
            default: ;   // CMD acts through do_set/do_adj; read-only registers ignore writes
        endcase
    end

    rd_ack_reg <= 1'b0;
    rd_data_reg <= 32'd0;
    if (rd_go) begin
        rd_ack_reg <= 1'b1;
        case (ra)
            `TSNIC_PHC_TIME_LO: begin
                rd_data_reg <= ns_d_reg[31:0];
                snap_hi_reg <= ns_d_reg[63:32];
                snap_fns_reg <= fns_d_reg[47:16];
                snap_sec_reg <= sec_reg;
                snap_nsec_reg <= nsec_reg;
            end
            `TSNIC_PHC_TIME_HI: rd_data_reg <= snap_hi_reg;
            `TSNIC_PHC_TIME_FNS: rd_data_reg <= snap_fns_reg;
            `TSNIC_PHC_SET_LO: rd_data_reg <= set_reg[31:0];
            `TSNIC_PHC_SET_HI: rd_data_reg <= set_reg[63:32];
            `TSNIC_PHC_ADJ_LO: rd_data_reg <= adj_reg[31:0];
            `TSNIC_PHC_ADJ_HI: rd_data_reg <= adj_reg[63:32];
            `TSNIC_PHC_PERIOD_LO: rd_data_reg <= period_reg[31:0];
            `TSNIC_PHC_PERIOD_HI: rd_data_reg <= period_reg[63:32];
            `TSNIC_PHC_ADJFINE_PPB: rd_data_reg <= ppb_reg;
            `TSNIC_PHC_STATUS: rd_data_reg <= {31'd0, sv_wait || incr_busy};
            `TSNIC_PHC_STEP_COUNT: rd_data_reg <= step_cnt_reg;
            `TSNIC_PHC_SEC_LO: rd_data_reg <= snap_sec_reg[31:0];
            `TSNIC_PHC_SEC_HI: rd_data_reg <= {16'd0, snap_sec_reg[47:32]};
            `TSNIC_PHC_NSEC: rd_data_reg <= {2'b00, snap_nsec_reg};
            default: rd_data_reg <= 32'd0;   // CMD is write-only
        endcase
    end

    if (rst) begin
        wr_ack_reg <= 1'b0;
        rd_ack_reg <= 1'b0;
        rd_data_reg <= 32'd0;
        calc_start_reg <= 1'b0;
        set_reg <= 64'd0;
        adj_reg <= 64'd0;
        period_lo_stage_reg <= PERIOD_INIT[31:0];
        period_reg <= PERIOD_INIT;
        ppb_reg <= 32'd0;
        snap_hi_reg <= 32'd0;
        snap_fns_reg <= 32'd0;
        snap_sec_reg <= 48'd0;
        snap_nsec_reg <= 30'd0;
    end
end

assign phc_ns = ns_reg;
assign phc_fns = fns_reg;
assign phc_sec = sec_reg;
assign phc_nsec = nsec_reg;
assign phc_sec_valid = !sv_busy_reg;   // sec/nsec = divmod(ns of the previous cycle)
assign phc_step = step_reg;
assign pps = pps_cnt_reg != {PPS_CNT_W{1'b0}};

// quiet: no register access, no step or recomputation under way, the incrementer settled, no pps
// pulse, and the running seconds view does not roll over in this cycle
assign ff_quiet = (SIM_FAST_FORWARD != 0) && !reg_wr_en && !reg_rd_en && !wr_ack_reg && !rd_ack_reg && !calc_start_reg && !incr_busy &&
                  !step_reg && !restart_d_reg && !sv_busy_reg && !sv_start_reg &&
                  (pps_cnt_reg == {PPS_CNT_W{1'b0}}) && !run_wrap;
// the first whole second after the time of this cycle: nsec + delta_d is this cycle's ns within its second
assign ff_wake_ns = (SIM_FAST_FORWARD != 0) ? ns_reg + {33'd0, NS_PER_SEC} - {33'd0, nsec_sum} : 64'd0;
assign ff_inc = (SIM_FAST_FORWARD != 0) ? inc : 64'd0;

endmodule

`resetall
