// tsnic_si5324_init: after reset, sets up a Silicon Labs Si5324 jitter attenuator behind a PCA9548
// I2C mux and waits for its PLL to lock; holds the transceiver logic that needs its clock until then
// (clk_ready). On NetFPGA SUME the Si5324 makes the SFP+ cages' 156.25 MHz reference clock.
//
// Sequence (all I2C through tsnic_i2c_master at SCL_HZ; each transaction START ... STOP):
//  1. si5324_rst and mux_rst high for RESET_US, then low and POWERUP_US of wait (the Si5324 takes
//     I2C some 10 ms after reset).
//  2. mux: write the control byte MUX_SELECT to MUX_ADDR, then read it back (must match).
//  3. if CHECK_ID: read registers ID_REG and ID_REG + 1 of DEV_ADDR (one register per transaction:
//     write the register number, repeated START, read one byte); (hi << 8 | lo) & ID_MASK must be
//     ID_VALUE (the Si5324's part number 0x018 in bits 15:4, the revision in 3:0 not checked).
//  4. write the INIT_LEN entries of INIT_REGS in order, one register per transaction (address, register,
//     value). Entry i is INIT_REGS[16*i +: 16] = {register, value}. The default list ends with the
//     Si5324's internal calibration (ICAL) command.
//  5. every POLL_US read LOCK_REG; locked when (value & LOCK_MASK) == LOCK_VALUE (Si5324: register 130
//     bit 0, LOL_INT, 0 = locked). The first lock sets done and clk_ready. LOCK_TIMEOUT_POLLS reads
//     without lock is an error. After done the polling goes on: locked / clk_ready follow LOL_INT.
// Waits of X_US last between X and X + 1 microseconds (a free-running 1 us tick).
// Errors: a byte not ACKed fails its transaction; it is repeated after RETRY_US, up to RETRIES more
// times. Then, as for a mux read-back mismatch, a wrong ID, a lock timeout or a transaction that does
// not finish in TXN_TIMEOUT_US (SCL held low; the I2C master is reset), error goes high with
// error_code, and after RESTART_US the whole sequence starts again from step 1 (RESTART_US = 0: it
// stops). Once done, a failed poll only sets error (the Si5324 keeps running; no reset); the next good
// poll clears it. error_code keeps the last failure's code until the next one.
//
// Default register list: the NetFPGA SUME reference design's Si5324 set-up (156.25 MHz on CKOUT1 from
// the 114.285 MHz crystal in free-run mode): N31 = N32 = 30476, N2_HS = 10, N2_LS = 150000,
// N1_HS = 9, NC1_LS = 4: f3 = 114.285 MHz / 30476 = 3.75 kHz, fosc = f3 * 10 * 150000 = 5.625 GHz,
// CKOUT1 = fosc / (9 * 4) = 156.25 MHz. The Si5324 register map is in its datasheet (Si5324 rev 1.x,
// "Register Map"); the register values of a frequency plan come from DSPLLsim.
`resetall
`timescale 1ns / 1ps
`default_nettype none

module tsnic_si5324_init #(
    parameter CLK_HZ             = 125000000,   // clk frequency, Hz
    parameter SCL_HZ             = 100000,      // I2C clock, Hz
    parameter [6:0] MUX_ADDR     = 7'h74,       // PCA9548 7-bit address
    parameter [7:0] MUX_SELECT   = 8'h10,       // PCA9548 control byte (bit n enables channel n): SUME 4
    parameter [6:0] DEV_ADDR     = 7'h68,       // Si5324 7-bit address
    parameter CHECK_ID           = 1,           // 1: read and check the device identity first
    parameter [7:0] ID_REG       = 8'd134,      // identity: registers ID_REG (bits 15:8), ID_REG + 1
    parameter [15:0] ID_MASK     = 16'hFFF0,
    parameter [15:0] ID_VALUE    = 16'h0180,    // Si5324 part number 0x018
    parameter INIT_LEN           = 21,          // entries of INIT_REGS
    parameter [16*INIT_LEN-1:0] INIT_REGS = {   // {register, value}, entry 0 in the low bits
        8'd136, 8'h40,      // ICAL = 1: internal calibration (the PLL locks after it)
        8'd48,  8'h0B,      // N32 = 0x00770B + 1 = 30476
        8'd47,  8'h77,
        8'd46,  8'h00,
        8'd45,  8'h0B,      // N31 = 0x00770B + 1 = 30476
        8'd44,  8'h77,
        8'd43,  8'h00,
        8'd42,  8'hEF,      // N2_LS = 0x249EF + 1 = 150000
        8'd41,  8'h49,
        8'd40,  8'hC2,      // N2_HS = 6 + 4 = 10; N2_LS bits 19:16 = 2
        8'd33,  8'h03,      // NC1_LS = 3 + 1 = 4
        8'd32,  8'h00,
        8'd31,  8'h00,
        8'd25,  8'hA0,      // N1_HS = 5 + 4 = 9
        8'd11,  8'h40,      // CKIN1, CKIN2 powered
        8'd10,  8'h08,      // CKOUT2 disabled, CKOUT1 enabled
        8'd4,   8'h92,      // automatic revertive clock selection, HIST_DEL = 0x12
        8'd3,   8'h15,      // CKIN1 selected, outputs squelched during ICAL
        8'd2,   8'h12,      // BWSEL = 1
        8'd1,   8'hE4,      // CKIN2 second priority
        8'd0,   8'h54       // FREE_RUN = 1: the crystal is the reference
    },
    parameter [7:0] LOCK_REG     = 8'd130,      // Si5324: LOL_INT in bit 0
    parameter [7:0] LOCK_MASK    = 8'h01,
    parameter [7:0] LOCK_VALUE   = 8'h00,
    parameter RESET_US           = 10,          // reset pulse (Si5324: at least 1 us)
    parameter POWERUP_US         = 20000,       // after reset, before the first I2C access
    parameter POLL_US            = 10000,       // between lock status reads
    parameter LOCK_TIMEOUT_POLLS = 2000,        // reads without lock before the error (20 s)
    parameter RETRIES            = 3,           // repeats of a transaction whose byte was not ACKed
    parameter RETRY_US           = 1000,
    parameter TXN_TIMEOUT_US     = 20000,       // a transaction taking longer is a stuck bus
    parameter RESTART_US         = 1000000      // after an error, before starting again; 0: stop
) (
    input  wire       clk,
    input  wire       rst,

    output wire       si5324_rst,   // active high (the board inverts it for the Si5324's RST#)
    output wire       mux_rst,      // active high (likewise for the PCA9548's RESET#)

    output wire       clk_ready,    // set up and locked: the transceivers may leave reset
    output wire       done,         // the set-up finished and the PLL locked once
    output wire       locked,       // the last lock status read said locked
    output wire       busy,         // in the set-up sequence (not yet done, not stopped)
    output wire       error,        // the last attempt failed (see error_code)
    output wire [3:0] error_code,   // last failure: 1 mux NACK, 2 mux read-back, 3 device NACK,
                                    // 4 wrong ID, 5 lock timeout, 6 bus stuck (transaction timeout)
    output wire [7:0] attempts,     // set-up sequences started since reset (saturating)

    input  wire       scl_i,
    output wire       scl_o,
    output wire       scl_t,
    input  wire       sda_i,
    output wire       sda_o,
    output wire       sda_t
);

function integer log2up(input integer value);   // bits to hold 0 .. value
    integer v;
    begin
        log2up = 1;
        for (v = value; v > 1; v = v >> 1) log2up = log2up + 1;
    end
endfunction

localparam CLK_PER_US = (CLK_HZ + 500000) / 1000000;
localparam MAX_US_A = RESET_US > POWERUP_US ? RESET_US : POWERUP_US;
localparam MAX_US_B = POLL_US > RETRY_US ? POLL_US : RETRY_US;
localparam MAX_US_C = TXN_TIMEOUT_US > RESTART_US ? TXN_TIMEOUT_US : RESTART_US;
localparam MAX_US_AB = MAX_US_A > MAX_US_B ? MAX_US_A : MAX_US_B;
localparam MAX_US = MAX_US_AB > MAX_US_C ? MAX_US_AB : MAX_US_C;
localparam US_W = log2up(MAX_US + 1);
localparam DIV_W = log2up(CLK_PER_US);
localparam IDX_W = log2up(INIT_LEN);
localparam POLL_W = log2up(LOCK_TIMEOUT_POLLS);
localparam RETRY_W = log2up(RETRIES);

generate
    if (CLK_PER_US < 1) begin : g_bad_clk
        tsnic_param_error_CLK_HZ_must_be_at_least_1_MHz param_error_inst ();
    end
    if (INIT_LEN < 1) begin : g_bad_len
        tsnic_param_error_INIT_LEN_must_be_at_least_1 param_error_inst ();
    end
    if (LOCK_TIMEOUT_POLLS < 1) begin : g_bad_polls
        tsnic_param_error_LOCK_TIMEOUT_POLLS_must_be_at_least_1 param_error_inst ();
    end
endgenerate

// transaction kinds: the byte commands of each (tsnic_i2c_master)
localparam [1:0]
    K_WRITE1  = 2'd0,   // START addr+W, data, STOP (the mux's control byte)
    K_READ1   = 2'd1,   // START addr+R, read (NACK), STOP (the mux's control byte)
    K_WRITE2  = 2'd2,   // START addr+W, register, value, STOP
    K_READREG = 2'd3;   // START addr+W, register, repeated START addr+R, read (NACK), STOP

localparam [3:0]
    M_RESET      = 4'd0,
    M_POWERUP    = 4'd1,
    M_MUX_WR     = 4'd2,
    M_MUX_RD     = 4'd3,
    M_ID_HI      = 4'd4,
    M_ID_LO      = 4'd5,
    M_WRITE      = 4'd6,
    M_POLL_WAIT  = 4'd7,
    M_POLL       = 4'd8,
    M_RETRY_WAIT = 4'd9,
    M_FAIL_WAIT  = 4'd10,
    M_HALT       = 4'd11;

localparam [3:0]
    E_MUX_NACK     = 4'd1,
    E_MUX_READBACK = 4'd2,
    E_DEV_NACK     = 4'd3,
    E_ID           = 4'd4,
    E_LOCK_TIMEOUT = 4'd5,
    E_BUS_TIMEOUT  = 4'd6;

localparam integer RESET_INT = RESET_US + 1;
localparam integer POWERUP_INT = POWERUP_US + 1;
localparam integer POLL_INT = POLL_US + 1;
localparam integer RETRY_INT = RETRY_US + 1;
localparam integer TXN_INT = TXN_TIMEOUT_US;
localparam integer RESTART_INT = RESTART_US + 1;
localparam integer LAST_IDX_INT = INIT_LEN - 1;
localparam integer LAST_POLL_INT = LOCK_TIMEOUT_POLLS - 1;
localparam integer MAX_RETRY_INT = RETRIES;
localparam integer DIV_LAST_INT = CLK_PER_US - 1;
localparam [US_W-1:0] T_RESET   = RESET_INT[US_W-1:0];
localparam [US_W-1:0] T_POWERUP = POWERUP_INT[US_W-1:0];
localparam [US_W-1:0] T_POLL    = POLL_INT[US_W-1:0];
localparam [US_W-1:0] T_RETRY   = RETRY_INT[US_W-1:0];
localparam [US_W-1:0] T_TXN     = TXN_INT[US_W-1:0];
localparam [US_W-1:0] T_RESTART = RESTART_INT[US_W-1:0];
localparam [IDX_W-1:0] LAST_IDX = LAST_IDX_INT[IDX_W-1:0];
localparam [POLL_W-1:0] LAST_POLL = LAST_POLL_INT[POLL_W-1:0];
localparam [RETRY_W-1:0] MAX_RETRY = MAX_RETRY_INT[RETRY_W-1:0];
localparam [DIV_W-1:0] DIV_LAST = DIV_LAST_INT[DIV_W-1:0];
localparam [7:0] ID_REG_LO = ID_REG + 8'd1;

reg [3:0]         state_reg = M_RESET, state_next;
reg [3:0]         ret_state_reg = M_RESET, ret_state_next;  // the state a retry goes back to
reg [US_W-1:0]    wait_reg = T_RESET, wait_next;            // us left in a wait state
reg [US_W-1:0]    txn_us_reg = {US_W{1'b0}}, txn_us_next;   // us spent in the current transaction
reg [DIV_W-1:0]   div_reg = {DIV_W{1'b0}};
reg               us_tick_reg = 1'b0;
reg [IDX_W-1:0]   idx_reg = {IDX_W{1'b0}}, idx_next;
reg [POLL_W-1:0]  polls_reg = {POLL_W{1'b0}}, polls_next;
reg [RETRY_W-1:0] retry_reg = {RETRY_W{1'b0}}, retry_next;
reg [7:0]         id_hi_reg = 8'd0, id_hi_next;
reg [1:0]         step_reg = 2'd0, step_next;
reg               cmd_valid_reg = 1'b0, cmd_valid_next;
reg               wait_rsp_reg = 1'b0, wait_rsp_next;
reg               i2c_rst_reg = 1'b1, i2c_rst_next;
reg               done_reg = 1'b0, done_next;
reg               locked_reg = 1'b0, locked_next;
reg               error_reg = 1'b0, error_next;
reg [3:0]         error_code_reg = 4'd0, error_code_next;
reg [7:0]         attempts_reg = 8'd1, attempts_next;
reg               clk_ready_reg = 1'b0;
reg               chip_rst_reg = 1'b1;

// the transaction of the current state
reg [1:0] txn_kind;
reg [6:0] txn_addr;
reg [7:0] txn_reg;
reg [7:0] txn_val;
reg       txn_state;
wire [15:0] init_entry = INIT_REGS[16*idx_reg +: 16];

always @* begin
    txn_state = 1'b1;
    txn_kind = K_WRITE2;
    txn_addr = DEV_ADDR;
    txn_reg = 8'd0;
    txn_val = 8'd0;
    case (state_reg)
        M_MUX_WR: begin txn_kind = K_WRITE1; txn_addr = MUX_ADDR; txn_val = MUX_SELECT; end
        M_MUX_RD: begin txn_kind = K_READ1; txn_addr = MUX_ADDR; end
        M_ID_HI:  begin txn_kind = K_READREG; txn_reg = ID_REG; end
        M_ID_LO:  begin txn_kind = K_READREG; txn_reg = ID_REG_LO; end
        M_WRITE:  begin txn_kind = K_WRITE2; txn_reg = init_entry[15:8]; txn_val = init_entry[7:0]; end
        M_POLL:   begin txn_kind = K_READREG; txn_reg = LOCK_REG; end
        default:  txn_state = 1'b0;
    endcase
end

// the byte command of the current step
reg       cmd_start, cmd_read, cmd_stop, step_last;
reg [7:0] cmd_data;
always @* begin
    cmd_start = 1'b0;
    cmd_read = 1'b0;
    cmd_stop = 1'b0;
    cmd_data = {txn_addr, 1'b0};
    step_last = 1'b0;
    case (step_reg)
        2'd0: begin
            cmd_start = 1'b1;
            cmd_data = {txn_addr, txn_kind == K_READ1};
        end
        2'd1: begin
            case (txn_kind)
                K_WRITE1: begin cmd_data = txn_val; cmd_stop = 1'b1; step_last = 1'b1; end
                K_READ1:  begin cmd_read = 1'b1; cmd_stop = 1'b1; step_last = 1'b1; end
                default:  cmd_data = txn_reg;
            endcase
        end
        2'd2: begin
            if (txn_kind == K_WRITE2) begin
                cmd_data = txn_val;
                cmd_stop = 1'b1;
                step_last = 1'b1;
            end else begin
                cmd_start = 1'b1;
                cmd_data = {txn_addr, 1'b1};
            end
        end
        default: begin
            cmd_read = 1'b1;
            cmd_stop = 1'b1;
            step_last = 1'b1;
        end
    endcase
end

wire       i2c_cmd_ready, i2c_rsp_valid, i2c_rsp_nack;
wire [7:0] i2c_rsp_data;
/* verilator lint_off UNUSEDSIGNAL */
wire       i2c_busy;
/* verilator lint_on UNUSEDSIGNAL */

tsnic_i2c_master #(
    .CLK_HZ(CLK_HZ),
    .SCL_HZ(SCL_HZ)
) i2c_inst (
    .clk(clk), .rst(rst || i2c_rst_reg),
    .cmd_valid(cmd_valid_reg), .cmd_ready(i2c_cmd_ready),
    .cmd_start(cmd_start), .cmd_read(cmd_read), .cmd_stop(cmd_stop), .cmd_data(cmd_data),
    .rsp_valid(i2c_rsp_valid), .rsp_data(i2c_rsp_data), .rsp_nack(i2c_rsp_nack),
    .busy(i2c_busy),
    .scl_i(scl_i), .scl_o(scl_o), .scl_t(scl_t),
    .sda_i(sda_i), .sda_o(sda_o), .sda_t(sda_t)
);

wire wait_over = (wait_reg == {US_W{1'b0}});
wire lock_now = (i2c_rsp_data & LOCK_MASK) == LOCK_VALUE;
wire id_ok = ({id_hi_reg, i2c_rsp_data} & ID_MASK) == ID_VALUE;

// start the transaction of state s from its first byte
task enter_txn(input [3:0] s);
    begin
        state_next = s;
        step_next = 2'd0;
        cmd_valid_next = 1'b1;
        wait_rsp_next = 1'b0;
        txn_us_next = {US_W{1'b0}};
    end
endtask

// a failure with code e: restart, stop, or (once done) carry on polling
task fail(input [3:0] e);
    begin
        error_next = 1'b1;
        error_code_next = e;
        retry_next = {RETRY_W{1'b0}};
        cmd_valid_next = 1'b0;
        wait_rsp_next = 1'b0;
        if (done_reg) begin
            state_next = M_POLL_WAIT;
            wait_next = T_POLL;
        end else if (RESTART_US != 0) begin
            state_next = M_FAIL_WAIT;
            wait_next = T_RESTART;
        end else begin
            state_next = M_HALT;
        end
    end
endtask

always @* begin
    state_next = state_reg;
    ret_state_next = ret_state_reg;
    wait_next = (us_tick_reg && !wait_over) ? wait_reg - 1'b1 : wait_reg;
    txn_us_next = (us_tick_reg && txn_state && txn_us_reg != T_TXN) ? txn_us_reg + 1'b1 : txn_us_reg;
    idx_next = idx_reg;
    polls_next = polls_reg;
    retry_next = retry_reg;
    id_hi_next = id_hi_reg;
    step_next = step_reg;
    cmd_valid_next = cmd_valid_reg;
    wait_rsp_next = wait_rsp_reg;
    i2c_rst_next = 1'b0;
    done_next = done_reg;
    locked_next = locked_reg;
    error_next = error_reg;
    error_code_next = error_code_reg;
    attempts_next = attempts_reg;

    // the byte engine of a transaction state
    if (txn_state) begin
        if (cmd_valid_reg && i2c_cmd_ready) begin
            cmd_valid_next = 1'b0;
            wait_rsp_next = 1'b1;
        end
        if (wait_rsp_reg && i2c_rsp_valid && !i2c_rsp_nack && !step_last) begin
            step_next = step_reg + 2'd1;
            cmd_valid_next = 1'b1;
            wait_rsp_next = 1'b0;
        end
    end

    case (state_reg)
        M_RESET: begin
            i2c_rst_next = 1'b1;
            done_next = 1'b0;
            locked_next = 1'b0;
            if (wait_over) begin
                state_next = M_POWERUP;
                wait_next = T_POWERUP;
            end
        end
        M_POWERUP: begin
            i2c_rst_next = 1'b1;
            if (wait_over) begin
                retry_next = {RETRY_W{1'b0}};
                enter_txn(M_MUX_WR);
            end
        end
        M_POLL_WAIT: begin
            if (wait_over) begin
                enter_txn(M_POLL);
            end
        end
        M_RETRY_WAIT: begin
            if (wait_over) begin
                enter_txn(ret_state_reg);
            end
        end
        M_FAIL_WAIT: begin
            if (wait_over) begin
                state_next = M_RESET;
                wait_next = T_RESET;
                attempts_next = (attempts_reg == 8'hFF) ? attempts_reg : attempts_reg + 8'd1;
            end
        end
        M_HALT: begin
        end
        default: begin
            // a transaction state: its result
            if (txn_us_reg == T_TXN) begin
                i2c_rst_next = 1'b1;
                fail(E_BUS_TIMEOUT);
            end else if (wait_rsp_reg && i2c_rsp_valid && i2c_rsp_nack) begin
                if (retry_reg != MAX_RETRY) begin
                    retry_next = retry_reg + 1'b1;
                    ret_state_next = state_reg;
                    state_next = M_RETRY_WAIT;
                    wait_next = T_RETRY;
                    cmd_valid_next = 1'b0;
                    wait_rsp_next = 1'b0;
                end else begin
                    fail((state_reg == M_MUX_WR || state_reg == M_MUX_RD) ? E_MUX_NACK : E_DEV_NACK);
                end
            end else if (wait_rsp_reg && i2c_rsp_valid && step_last) begin
                retry_next = {RETRY_W{1'b0}};
                case (state_reg)
                    M_MUX_WR: enter_txn(M_MUX_RD);
                    M_MUX_RD: begin
                        if (i2c_rsp_data != MUX_SELECT) begin
                            fail(E_MUX_READBACK);
                        end else if (CHECK_ID != 0) begin
                            enter_txn(M_ID_HI);
                        end else begin
                            idx_next = {IDX_W{1'b0}};
                            enter_txn(M_WRITE);
                        end
                    end
                    M_ID_HI: begin
                        id_hi_next = i2c_rsp_data;
                        enter_txn(M_ID_LO);
                    end
                    M_ID_LO: begin
                        if (!id_ok) begin
                            fail(E_ID);
                        end else begin
                            idx_next = {IDX_W{1'b0}};
                            enter_txn(M_WRITE);
                        end
                    end
                    M_WRITE: begin
                        if (idx_reg == LAST_IDX) begin
                            polls_next = {POLL_W{1'b0}};
                            state_next = M_POLL_WAIT;
                            wait_next = T_POLL;
                        end else begin
                            idx_next = idx_reg + 1'b1;
                            enter_txn(M_WRITE);
                        end
                    end
                    default: begin      // M_POLL
                        locked_next = lock_now;
                        if (lock_now) begin
                            done_next = 1'b1;
                            error_next = 1'b0;
                            state_next = M_POLL_WAIT;
                            wait_next = T_POLL;
                        end else if (!done_reg && polls_reg == LAST_POLL) begin
                            fail(E_LOCK_TIMEOUT);
                        end else begin
                            if (done_reg) begin
                                error_next = 1'b0;
                            end else begin
                                polls_next = polls_reg + 1'b1;
                            end
                            state_next = M_POLL_WAIT;
                            wait_next = T_POLL;
                        end
                    end
                endcase
            end
        end
    endcase
end

always @(posedge clk) begin
    us_tick_reg <= 1'b0;
    if (div_reg == DIV_LAST) begin
        div_reg <= {DIV_W{1'b0}};
        us_tick_reg <= 1'b1;
    end else begin
        div_reg <= div_reg + 1'b1;
    end

    state_reg <= state_next;
    ret_state_reg <= ret_state_next;
    wait_reg <= wait_next;
    txn_us_reg <= txn_us_next;
    idx_reg <= idx_next;
    polls_reg <= polls_next;
    retry_reg <= retry_next;
    id_hi_reg <= id_hi_next;
    step_reg <= step_next;
    cmd_valid_reg <= cmd_valid_next;
    wait_rsp_reg <= wait_rsp_next;
    i2c_rst_reg <= i2c_rst_next;
    done_reg <= done_next;
    locked_reg <= locked_next;
    error_reg <= error_next;
    error_code_reg <= error_code_next;
    attempts_reg <= attempts_next;
    clk_ready_reg <= done_next && locked_next;
    chip_rst_reg <= state_next == M_RESET;

    if (rst) begin
        state_reg <= M_RESET;
        wait_reg <= T_RESET;
        div_reg <= {DIV_W{1'b0}};
        us_tick_reg <= 1'b0;
        retry_reg <= {RETRY_W{1'b0}};
        cmd_valid_reg <= 1'b0;
        wait_rsp_reg <= 1'b0;
        i2c_rst_reg <= 1'b1;
        done_reg <= 1'b0;
        locked_reg <= 1'b0;
        error_reg <= 1'b0;
        error_code_reg <= 4'd0;
        attempts_reg <= 8'd1;
        clk_ready_reg <= 1'b0;
        chip_rst_reg <= 1'b1;
    end
end

assign si5324_rst = chip_rst_reg;
assign mux_rst    = chip_rst_reg;
assign clk_ready  = clk_ready_reg;
assign done       = done_reg;
assign locked     = locked_reg;
assign busy       = !done_reg && state_reg != M_HALT;
assign error      = error_reg;
assign error_code = error_code_reg;
assign attempts   = attempts_reg;

endmodule

`resetall
