// tsnic_regs: the CAP, CTRL and CNT register blocks of BAR0.
//
// - CAP: identity and capabilities, from parameters.
// - CTRL: global enable, core reset (write-1 pulse), lookahead, TX latency compensation, interrupt
//   control; the interrupt moderator (tsnic_irq_mod) and the IRQ_STATUS pending bit live here. TX and
//   RX completions feed the same moderator (one interrupt; one event when both come in one cycle).
// - CNT: global 64-bit counters fed by event strobes (a descriptor fetched; a completion made visible
//   to the host, with its status and length). Reading a _LO register latches that counter's _HI half,
//   so LO then HI never tears.
// The CPL and Q blocks are decoded elsewhere (tsnic_cpl_write, tsnic_desc_fetch).
// Register interface: Corundum style, see docs/DATAPATH.md; one-cycle registered ack, no wait states.
`resetall
`timescale 1ns / 1ps
`default_nettype none
`include "tsnic_contract.vh"

module tsnic_regs #(
    parameter ADDR_W               = 20,
    parameter NUM_QUEUES           = 8,
    parameter CLK_FREQ_HZ          = 250000000,
    parameter SLOT_NS              = 64,
    parameter SLOTS                = 1024,
    parameter [63:0] HORIZON_NS    = 64'd65536,
    parameter [31:0] FEATURES      = 32'h0000001f,
    parameter RING_LOG2_MAX        = 16,
    parameter MAX_FRAME_LEN        = 9600,
    parameter TX_DATA_WIDTH        = 64,
    parameter NODES                = 1024,
    parameter LOOKAHEAD_NS_DEFAULT = 4000,
    parameter TX_LAT_COMP_DEFAULT  = 0
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

    // control
    output wire              ctrl_enable,       // CONTROL.ENABLE
    output wire              ctrl_reset,        // one-cycle pulse: CONTROL.RESET written 1
    input  wire              reset_busy,        // core reset still completing outstanding work
    output wire [31:0]       lookahead_ns,
    output wire [31:0]       tx_lat_comp_ns,

    // PHC time (interrupt moderation timer)
    input  wire [63:0]       phc_ns,
    input  wire              phc_step,

    // events
    input  wire              evt_posted,        // one descriptor fetched from a host ring
    input  wire              evt_cpl_valid,     // one completion record visible to the host
    input  wire              evt_rx_cpl,        // one RX completion visible to the host (interrupt only)
    input  wire [7:0]        evt_cpl_status,
    input  wire [15:0]       evt_cpl_len,

    output wire              irq,

    // fast-forward (docs/ARCHITECTURE.md, "Idle fast-forward")
    output wire              ff_quiet,       // no access, event, reset pulse or interrupt firing
    output wire [63:0]       ff_wake_ns      // the interrupt moderation deadline, if its timer runs
);

localparam NCNT = 9;

// ---------------------------------------------------------------------------------------------
// control registers
reg        enable_reg = 1'b0;
reg        reset_pulse_reg = 1'b0;
reg [31:0] lookahead_reg = LOOKAHEAD_NS_DEFAULT;
reg [31:0] tx_lat_comp_reg = TX_LAT_COMP_DEFAULT;
reg        irq_enable_reg = 1'b0;
reg [31:0] irq_mod_count_reg = 32'd0;
reg [31:0] irq_mod_time_reg = 32'd0;
reg        irq_pending_reg = 1'b0;

assign ctrl_enable = enable_reg;
assign ctrl_reset = reset_pulse_reg;
assign lookahead_ns = lookahead_reg;
assign tx_lat_comp_ns = tx_lat_comp_reg;
assign irq = irq_pending_reg && irq_enable_reg;

wire irq_fire;
wire irq_mod_quiet;

tsnic_irq_mod irq_mod_inst (
    .clk(clk),
    .rst(rst),
    .evt(evt_cpl_valid || evt_rx_cpl),
    .mod_count(irq_mod_count_reg),
    .mod_time_ns(irq_mod_time_reg),
    .phc_ns(phc_ns),
    .phc_step(phc_step),
    .fire(irq_fire),
    .ff_quiet(irq_mod_quiet),
    .ff_wake_ns(ff_wake_ns)
);

assign ff_quiet = irq_mod_quiet && !irq_fire && !reg_wr_en && !reg_rd_en && !wr_ack_reg && !rd_ack_reg &&
                  !reset_pulse_reg && !evt_posted && !evt_cpl_valid && !evt_rx_cpl;

// ---------------------------------------------------------------------------------------------
// global counters: index 0 POSTED, 1..6 by status (SENT..REJECTED), 7 TX_BYTES, 8 DMA_ERROR
reg [63:0] cnt_reg [0:NCNT-1];
reg [31:0] cnt_hi_latch_reg [0:NCNT-1];

function [3:0] status_idx(input [7:0] st);
    begin
        case (st)
            `TSNIC_STATUS_SENT:            status_idx = 4'd1;
            `TSNIC_STATUS_SENT_LATE:       status_idx = 4'd2;
            `TSNIC_STATUS_DROPPED_LATE:    status_idx = 4'd3;
            `TSNIC_STATUS_DROPPED_HORIZON: status_idx = 4'd4;
            `TSNIC_STATUS_FLUSHED:         status_idx = 4'd5;
            `TSNIC_STATUS_REJECTED:        status_idx = 4'd6;
            `TSNIC_STATUS_DMA_ERROR:       status_idx = 4'd8;
            default:                       status_idx = 4'd0;   // unknown status: not counted
        endcase
    end
endfunction

wire [3:0] evt_idx = status_idx(evt_cpl_status);
wire       evt_wire = (evt_cpl_status == `TSNIC_STATUS_SENT) || (evt_cpl_status == `TSNIC_STATUS_SENT_LATE);

// counter register decode: a CNT address -> counter index, and whether it is the _LO half
function [5:0] cnt_decode(input [31:0] a);   // {hit, is_lo, idx[3:0]}
    begin
        case (a)
            `TSNIC_CNT_POSTED_LO:          cnt_decode = {2'b11, 4'd0};
            `TSNIC_CNT_POSTED_HI:          cnt_decode = {2'b10, 4'd0};
            `TSNIC_CNT_SENT_LO:            cnt_decode = {2'b11, 4'd1};
            `TSNIC_CNT_SENT_HI:            cnt_decode = {2'b10, 4'd1};
            `TSNIC_CNT_SENT_LATE_LO:       cnt_decode = {2'b11, 4'd2};
            `TSNIC_CNT_SENT_LATE_HI:       cnt_decode = {2'b10, 4'd2};
            `TSNIC_CNT_DROPPED_LATE_LO:    cnt_decode = {2'b11, 4'd3};
            `TSNIC_CNT_DROPPED_LATE_HI:    cnt_decode = {2'b10, 4'd3};
            `TSNIC_CNT_DROPPED_HORIZON_LO: cnt_decode = {2'b11, 4'd4};
            `TSNIC_CNT_DROPPED_HORIZON_HI: cnt_decode = {2'b10, 4'd4};
            `TSNIC_CNT_FLUSHED_LO:         cnt_decode = {2'b11, 4'd5};
            `TSNIC_CNT_FLUSHED_HI:         cnt_decode = {2'b10, 4'd5};
            `TSNIC_CNT_REJECTED_LO:        cnt_decode = {2'b11, 4'd6};
            `TSNIC_CNT_REJECTED_HI:        cnt_decode = {2'b10, 4'd6};
            `TSNIC_CNT_TX_BYTES_LO:        cnt_decode = {2'b11, 4'd7};
            `TSNIC_CNT_TX_BYTES_HI:        cnt_decode = {2'b10, 4'd7};
            `TSNIC_CNT_DMA_ERROR_LO:       cnt_decode = {2'b11, 4'd8};
            `TSNIC_CNT_DMA_ERROR_HI:       cnt_decode = {2'b10, 4'd8};
            default:                       cnt_decode = 6'd0;
        endcase
    end
endfunction

function [31:0] apply_strb(input [31:0] old, input [31:0] val, input [3:0] strb);
    integer b;
    begin
        apply_strb = old;
        for (b = 0; b < 4; b = b + 1)
            if (strb[b]) apply_strb[b*8 +: 8] = val[b*8 +: 8];
    end
endfunction

// ---------------------------------------------------------------------------------------------
// register access
reg        wr_ack_reg = 1'b0;
reg        rd_ack_reg = 1'b0;
reg [31:0] rd_data_reg = 32'd0;

assign reg_wr_wait = 1'b0;
assign reg_wr_ack = wr_ack_reg;
assign reg_rd_wait = 1'b0;
assign reg_rd_ack = rd_ack_reg;
assign reg_rd_data = rd_data_reg;

// addresses as 32-bit word-aligned byte addresses, to compare with the contract's 32-bit defines
wire [31:0] rd_a = {{(32-ADDR_W){1'b0}}, reg_rd_addr[ADDR_W-1:2], 2'b00};
wire [31:0] wr_a = {{(32-ADDR_W){1'b0}}, reg_wr_addr[ADDR_W-1:2], 2'b00};

wire [5:0] rd_cnt = cnt_decode(rd_a);

// verilator lint_off UNUSEDSIGNAL
wire [3:0] unused_addr_lsbs = {reg_wr_addr[1:0], reg_rd_addr[1:0]};
// verilator lint_on UNUSEDSIGNAL

wire [31:0] ctrl_status = ({31'd0, enable_reg && !reset_busy} << `TSNIC_CTRL_STATUS_RUNNING_BIT)
                        | ({31'd0, reset_busy} << `TSNIC_CTRL_STATUS_RESET_BUSY_BIT);

reg        rd_hit;
reg [31:0] rd_val;

always @* begin
    rd_hit = 1'b1;
    rd_val = 32'd0;
    case (rd_a)
        `TSNIC_CAP_MAGIC:          rd_val = `TSNIC_MAGIC;
        `TSNIC_CAP_VERSION:        rd_val = `TSNIC_VERSION;
        `TSNIC_CAP_NUM_QUEUES:     rd_val = NUM_QUEUES;
        `TSNIC_CAP_CLK_FREQ_HZ:    rd_val = CLK_FREQ_HZ;
        `TSNIC_CAP_SLOT_NS:        rd_val = SLOT_NS;
        `TSNIC_CAP_SLOTS:          rd_val = SLOTS;
        `TSNIC_CAP_HORIZON_NS_LO:  rd_val = HORIZON_NS[31:0];
        `TSNIC_CAP_HORIZON_NS_HI:  rd_val = HORIZON_NS[63:32];
        `TSNIC_CAP_FEATURES:       rd_val = FEATURES;
        `TSNIC_CAP_RING_LOG2_MAX:  rd_val = RING_LOG2_MAX;
        `TSNIC_CAP_MAX_FRAME_LEN:  rd_val = MAX_FRAME_LEN;
        `TSNIC_CAP_TX_DATA_WIDTH:  rd_val = TX_DATA_WIDTH;
        `TSNIC_CAP_NODES:          rd_val = NODES;
        `TSNIC_CAP_QUEUE_BASE:     rd_val = `TSNIC_Q_BASE;
        `TSNIC_CAP_QUEUE_STRIDE:   rd_val = `TSNIC_Q_STRIDE;
        `TSNIC_CTRL_CONTROL:       rd_val = {31'd0, enable_reg} << `TSNIC_CTRL_CONTROL_ENABLE_BIT;
        `TSNIC_CTRL_STATUS:        rd_val = ctrl_status;
        `TSNIC_CTRL_LOOKAHEAD_NS:  rd_val = lookahead_reg;
        `TSNIC_CTRL_TX_LAT_COMP_NS: rd_val = tx_lat_comp_reg;
        `TSNIC_CTRL_IRQ_CTRL:      rd_val = {31'd0, irq_enable_reg} << `TSNIC_CTRL_IRQ_CTRL_ENABLE_BIT;
        `TSNIC_CTRL_IRQ_MOD_COUNT: rd_val = irq_mod_count_reg;
        `TSNIC_CTRL_IRQ_MOD_TIME_NS: rd_val = irq_mod_time_reg;
        `TSNIC_CTRL_IRQ_STATUS:    rd_val = {31'd0, irq_pending_reg};
        default: begin
            if (rd_cnt[5]) begin
                rd_val = rd_cnt[4] ? cnt_reg[rd_cnt[3:0]][31:0] : cnt_hi_latch_reg[rd_cnt[3:0]];
            end else begin
                rd_hit = 1'b0;
            end
        end
    endcase
end

wire wr_hit = (wr_a == `TSNIC_CTRL_CONTROL) || (wr_a == `TSNIC_CTRL_LOOKAHEAD_NS)
           || (wr_a == `TSNIC_CTRL_TX_LAT_COMP_NS) || (wr_a == `TSNIC_CTRL_IRQ_CTRL)
           || (wr_a == `TSNIC_CTRL_IRQ_MOD_COUNT) || (wr_a == `TSNIC_CTRL_IRQ_MOD_TIME_NS)
           || (wr_a == `TSNIC_CTRL_IRQ_STATUS) || (wr_a == `TSNIC_CTRL_STATUS)
           || ((wr_a - `TSNIC_CAP_BASE) <= (`TSNIC_CAP_QUEUE_STRIDE - `TSNIC_CAP_BASE)) || (cnt_decode(wr_a) != 6'd0);

wire do_wr = reg_wr_en && !wr_ack_reg && wr_hit;
wire do_rd = reg_rd_en && !rd_ack_reg && rd_hit;

integer i;

always @(posedge clk) begin
    wr_ack_reg <= 1'b0;
    rd_ack_reg <= 1'b0;
    rd_data_reg <= 32'd0;
    reset_pulse_reg <= 1'b0;

    if (irq_fire) begin
        irq_pending_reg <= 1'b1;
    end

    // writes (read-only registers of these blocks are acknowledged and ignored)
    if (do_wr) begin
        wr_ack_reg <= 1'b1;
        case (wr_a)
            `TSNIC_CTRL_CONTROL: begin
                if (reg_wr_strb[0]) begin
                    enable_reg <= reg_wr_data[`TSNIC_CTRL_CONTROL_ENABLE_BIT];
                    reset_pulse_reg <= reg_wr_data[`TSNIC_CTRL_CONTROL_RESET_BIT];
                end
            end
            `TSNIC_CTRL_LOOKAHEAD_NS:    lookahead_reg <= apply_strb(lookahead_reg, reg_wr_data, reg_wr_strb);
            `TSNIC_CTRL_TX_LAT_COMP_NS:  tx_lat_comp_reg <= apply_strb(tx_lat_comp_reg, reg_wr_data, reg_wr_strb);
            `TSNIC_CTRL_IRQ_CTRL: begin
                if (reg_wr_strb[0]) irq_enable_reg <= reg_wr_data[`TSNIC_CTRL_IRQ_CTRL_ENABLE_BIT];
            end
            `TSNIC_CTRL_IRQ_MOD_COUNT:   irq_mod_count_reg <= apply_strb(irq_mod_count_reg, reg_wr_data, reg_wr_strb);
            `TSNIC_CTRL_IRQ_MOD_TIME_NS: irq_mod_time_reg <= apply_strb(irq_mod_time_reg, reg_wr_data, reg_wr_strb);
            `TSNIC_CTRL_IRQ_STATUS: begin
                if (reg_wr_strb[0] && reg_wr_data[0] && !irq_fire) irq_pending_reg <= 1'b0;
            end
            default: ;
        endcase
    end

    // reads
    if (do_rd) begin
        rd_ack_reg <= 1'b1;
        rd_data_reg <= rd_val;
        if (rd_cnt[5] && rd_cnt[4]) begin
            cnt_hi_latch_reg[rd_cnt[3:0]] <= cnt_reg[rd_cnt[3:0]][63:32];
        end
    end

    // counters
    if (evt_posted) begin
        cnt_reg[0] <= cnt_reg[0] + 64'd1;
    end
    if (evt_cpl_valid) begin
        if (evt_idx != 4'd0) cnt_reg[evt_idx] <= cnt_reg[evt_idx] + 64'd1;
        if (evt_wire) cnt_reg[7] <= cnt_reg[7] + {48'd0, evt_cpl_len};
    end

    if (rst) begin
        wr_ack_reg <= 1'b0;
        rd_ack_reg <= 1'b0;
        rd_data_reg <= 32'd0;
        reset_pulse_reg <= 1'b0;
        enable_reg <= 1'b0;
        lookahead_reg <= LOOKAHEAD_NS_DEFAULT;
        tx_lat_comp_reg <= TX_LAT_COMP_DEFAULT;
        irq_enable_reg <= 1'b0;
        irq_mod_count_reg <= 32'd0;
        irq_mod_time_reg <= 32'd0;
        irq_pending_reg <= 1'b0;
        for (i = 0; i < NCNT; i = i + 1) begin
            cnt_reg[i] <= 64'd0;
            cnt_hi_latch_reg[i] <= 32'd0;
        end
    end
end

endmodule

`resetall
