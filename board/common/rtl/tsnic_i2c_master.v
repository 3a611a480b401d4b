// tsnic_i2c_master: single-master I2C byte engine with open-drain pins, for board set-up chips
// (clock synthesizers, muxes). One command moves one byte.
//
// - Command (cmd_valid/cmd_ready): cmd_start puts a START before the byte (a repeated START when the
//   bus is already held since the last byte; a byte sent while the bus is free always gets a START);
//   cmd_read = 0 sends cmd_data and samples the slave's ACK, cmd_read = 1 reads a byte and ACKs it,
//   or NACKs it when cmd_stop is set (the last byte of a read); cmd_stop puts a STOP after the byte.
// - Response: rsp_valid for one cycle per command once its byte (and STOP) is on the wire, with
//   rsp_data (the byte read, or the byte seen on SDA when writing) and rsp_nack (a written byte was not
//   ACKed). After a NACK the master always sends STOP, whatever cmd_stop said, and the bus is free.
// - Bit timing: a quarter period Q = ceil(CLK_HZ / (4 * SCL_HZ)) clk cycles. SCL low 2Q, high 2Q
//   (longer if a slave stretches the clock: the high phase is counted from when SCL reads high);
//   SDA changes Q after SCL falls and is sampled Q after SCL rises; START hold, repeated START setup,
//   STOP setup and the bus-free time after STOP are 2Q each. At SCL_HZ <= 100 kHz this meets every
//   standard-mode minimum of the I2C specification (UM10204 table 10: tLOW 4.7 us, tHIGH 4.0 us,
//   tHD;STA 4.0, tSU;STA 4.7, tSU;STO 4.0, tBUF 4.7, tSU;DAT 0.25); at <= 384 kHz fast mode's.
// - Pins: *_t = 1 releases the line (pulled up on the board), *_t = 0 drives *_o = 0: wire them to an
//   IOBUF (T, I, O). scl_i/sda_i are synchronized here (two flops).
// - After reset the master waits 2Q with both lines released before it takes a command (bus free).
// - No arbitration: the master assumes it is alone on the bus.
`resetall
`timescale 1ns / 1ps
`default_nettype none

module tsnic_i2c_master #(
    parameter CLK_HZ = 125000000,   // clk frequency, Hz
    parameter SCL_HZ = 100000       // SCL rate, Hz (at most; a stretching slave makes it slower)
) (
    input  wire       clk,
    input  wire       rst,

    input  wire       cmd_valid,
    output wire       cmd_ready,
    input  wire       cmd_start,
    input  wire       cmd_read,
    input  wire       cmd_stop,
    input  wire [7:0] cmd_data,

    output wire       rsp_valid,
    output wire [7:0] rsp_data,
    output wire       rsp_nack,

    output wire       busy,         // a command is running or the bus is held between START and STOP

    input  wire       scl_i,
    output wire       scl_o,
    output wire       scl_t,
    input  wire       sda_i,
    output wire       sda_o,
    output wire       sda_t
);

localparam QUARTER = (CLK_HZ + 4 * SCL_HZ - 1) / (4 * SCL_HZ);
localparam TIMER_W = 16;
localparam integer Q1_INT = QUARTER - 1;
localparam integer Q2_INT = 2 * QUARTER - 1;
localparam [TIMER_W-1:0] Q1 = Q1_INT[TIMER_W-1:0];  // timer load: one quarter
localparam [TIMER_W-1:0] Q2 = Q2_INT[TIMER_W-1:0];  // timer load: two quarters

generate
    if (QUARTER < 4) begin : g_bad_rate
        tsnic_param_error_SCL_HZ_must_be_at_most_CLK_HZ_over_16 param_error_inst ();
    end
    if (QUARTER * 2 >= (1 << TIMER_W)) begin : g_bad_slow
        tsnic_param_error_SCL_HZ_too_slow_for_the_16_bit_timer param_error_inst ();
    end
endgenerate

localparam [3:0]
    S_IDLE      = 4'd0,     // bus free, lines released
    S_HOLD      = 4'd1,     // bus held after a byte: SCL low, waiting for the next command
    S_START     = 4'd2,     // SDA low with SCL high (START): hold 2Q, then SCL low
    S_RSTART_A  = 4'd3,     // SCL low: Q, then release SDA
    S_RSTART_B  = 4'd4,     // SCL low, SDA high: Q, then release SCL
    S_RSTART_C  = 4'd5,     // wait for SCL high, 2Q (repeated START setup), then SDA low
    S_BIT_LOW_A = 4'd6,     // SCL low: Q after the falling edge, then put the bit on SDA
    S_BIT_LOW_B = 4'd7,     // SCL low: Q of data setup, then release SCL
    S_BIT_HIGH_A = 4'd8,    // wait for SCL high, Q, then sample SDA
    S_BIT_HIGH_B = 4'd9,    // SCL high: Q, then SCL low
    S_STOP_A    = 4'd10,    // SCL low: Q, then SDA low
    S_STOP_B    = 4'd11,    // SCL low, SDA low: Q, then release SCL
    S_STOP_C    = 4'd12,    // wait for SCL high, 2Q (STOP setup), then release SDA
    S_STOP_D    = 4'd13;    // bus free time: 2Q, then idle

reg [3:0]         state_reg = S_STOP_D, state_next;
reg [TIMER_W-1:0] timer_reg = Q2, timer_next;
reg [3:0]         bit_cnt_reg = 4'd0, bit_cnt_next;      // 0..7 data bits (MSB first), 8 = ACK bit
reg [7:0]         shift_reg = 8'd0, shift_next;
reg               read_reg = 1'b0, read_next;
reg               stop_reg = 1'b0, stop_next;
reg               nack_reg = 1'b0, nack_next;
reg               scl_low_reg = 1'b0, scl_low_next;
reg               sda_low_reg = 1'b0, sda_low_next;
reg               rsp_valid_reg = 1'b0, rsp_valid_next;
reg [7:0]         rsp_data_reg = 8'd0, rsp_data_next;
reg               rsp_nack_reg = 1'b0, rsp_nack_next;

// input synchronizers
reg [1:0] scl_sync_reg = 2'b11;
reg [1:0] sda_sync_reg = 2'b11;
wire scl_in = scl_sync_reg[1];
wire sda_in = sda_sync_reg[1];

wire timer_done = (timer_reg == {TIMER_W{1'b0}});
wire accept = cmd_valid && cmd_ready;

assign cmd_ready = (state_reg == S_IDLE || state_reg == S_HOLD) && !rsp_valid_reg;
assign rsp_valid = rsp_valid_reg;
assign rsp_data  = rsp_data_reg;
assign rsp_nack  = rsp_nack_reg;
assign busy      = state_reg != S_IDLE;
assign scl_o = 1'b0;
assign sda_o = 1'b0;
assign scl_t = !scl_low_reg;
assign sda_t = !sda_low_reg;

always @* begin
    state_next = state_reg;
    timer_next = timer_done ? timer_reg : timer_reg - 1'b1;
    bit_cnt_next = bit_cnt_reg;
    shift_next = shift_reg;
    read_next = read_reg;
    stop_next = stop_reg;
    nack_next = nack_reg;
    scl_low_next = scl_low_reg;
    sda_low_next = sda_low_reg;
    rsp_valid_next = 1'b0;
    rsp_data_next = rsp_data_reg;
    rsp_nack_next = rsp_nack_reg;

    case (state_reg)
        S_IDLE: begin
            scl_low_next = 1'b0;
            sda_low_next = 1'b0;
            if (accept) begin
                shift_next = cmd_read ? 8'hFF : cmd_data;
                read_next = cmd_read;
                stop_next = cmd_stop;
                nack_next = 1'b0;
                bit_cnt_next = 4'd0;
                sda_low_next = 1'b1;                    // START: SDA falls while SCL is high
                timer_next = Q2;
                state_next = S_START;
            end
        end
        S_HOLD: begin
            if (accept) begin
                shift_next = cmd_read ? 8'hFF : cmd_data;
                read_next = cmd_read;
                stop_next = cmd_stop;
                nack_next = 1'b0;
                bit_cnt_next = 4'd0;
                timer_next = Q1;
                state_next = cmd_start ? S_RSTART_A : S_BIT_LOW_A;
            end
        end
        S_START: begin
            if (timer_done) begin
                scl_low_next = 1'b1;
                timer_next = Q1;
                state_next = S_BIT_LOW_A;
            end
        end
        S_RSTART_A: begin
            if (timer_done) begin
                sda_low_next = 1'b0;
                timer_next = Q1;
                state_next = S_RSTART_B;
            end
        end
        S_RSTART_B: begin
            if (timer_done) begin
                scl_low_next = 1'b0;
                timer_next = Q2;
                state_next = S_RSTART_C;
            end
        end
        S_RSTART_C: begin
            if (!scl_in) begin
                timer_next = Q2;           // counted from SCL high
            end else if (timer_done) begin
                sda_low_next = 1'b1;
                timer_next = Q2;
                state_next = S_START;
            end
        end
        S_BIT_LOW_A: begin
            if (timer_done) begin
                if (bit_cnt_reg[3]) begin
                    sda_low_next = read_reg && !stop_reg;   // ACK bit: ours on a read (NACK the last)
                end else begin
                    sda_low_next = !read_reg && !shift_reg[7];
                end
                timer_next = Q1;
                state_next = S_BIT_LOW_B;
            end
        end
        S_BIT_LOW_B: begin
            if (timer_done) begin
                scl_low_next = 1'b0;
                timer_next = Q1;
                state_next = S_BIT_HIGH_A;
            end
        end
        S_BIT_HIGH_A: begin
            if (!scl_in) begin
                timer_next = Q1;               // counted from SCL high (clock stretching)
            end else if (timer_done) begin
                if (bit_cnt_reg[3]) begin
                    nack_next = sda_in;
                end else begin
                    shift_next = {shift_reg[6:0], sda_in};
                end
                timer_next = Q1;
                state_next = S_BIT_HIGH_B;
            end
        end
        S_BIT_HIGH_B: begin
            if (timer_done) begin
                scl_low_next = 1'b1;
                timer_next = Q1;
                if (!bit_cnt_reg[3]) begin
                    bit_cnt_next = bit_cnt_reg + 4'd1;
                    state_next = S_BIT_LOW_A;
                end else if (stop_reg || (!read_reg && nack_reg)) begin
                    state_next = S_STOP_A;
                end else begin
                    rsp_valid_next = 1'b1;
                    rsp_data_next = shift_reg;
                    rsp_nack_next = 1'b0;
                    state_next = S_HOLD;
                end
            end
        end
        S_STOP_A: begin
            if (timer_done) begin
                sda_low_next = 1'b1;
                timer_next = Q1;
                state_next = S_STOP_B;
            end
        end
        S_STOP_B: begin
            if (timer_done) begin
                scl_low_next = 1'b0;
                timer_next = Q2;
                state_next = S_STOP_C;
            end
        end
        S_STOP_C: begin
            if (!scl_in) begin
                timer_next = Q2;
            end else if (timer_done) begin
                sda_low_next = 1'b0;
                timer_next = Q2;
                state_next = S_STOP_D;
            end
        end
        S_STOP_D: begin
            if (timer_done) begin
                if (stop_reg || nack_reg) begin
                    rsp_valid_next = 1'b1;
                    rsp_data_next = shift_reg;
                    rsp_nack_next = !read_reg && nack_reg;
                end
                stop_next = 1'b0;
                nack_next = 1'b0;
                state_next = S_IDLE;
            end
        end
        default: begin
            state_next = S_STOP_D;
        end
    endcase
end

always @(posedge clk) begin
    scl_sync_reg <= {scl_sync_reg[0], scl_i};
    sda_sync_reg <= {sda_sync_reg[0], sda_i};

    state_reg <= state_next;
    timer_reg <= timer_next;
    bit_cnt_reg <= bit_cnt_next;
    shift_reg <= shift_next;
    read_reg <= read_next;
    stop_reg <= stop_next;
    nack_reg <= nack_next;
    scl_low_reg <= scl_low_next;
    sda_low_reg <= sda_low_next;
    rsp_valid_reg <= rsp_valid_next;
    rsp_data_reg <= rsp_data_next;
    rsp_nack_reg <= rsp_nack_next;

    if (rst) begin
        state_reg <= S_STOP_D;                          // bus free time before the first START
        timer_reg <= Q2;
        stop_reg <= 1'b0;
        nack_reg <= 1'b0;
        scl_low_reg <= 1'b0;
        sda_low_reg <= 1'b0;
        rsp_valid_reg <= 1'b0;
    end
end

endmodule

`resetall
