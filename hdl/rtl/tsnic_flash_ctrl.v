// tsnic_flash_ctrl: the FLASH register block (BAR0 0x0800): a command-level quad-SPI NOR flash
// controller (MT25QU01G class), the ICAP sequences (startup WBSTAR/BOOTSTS read, IPROG), and with
// GOLDEN=1 the golden image's boot selector. docs/ARCHITECTURE.md "Flash controller".
//
// One FLASH_CMD write runs one command to its end, busy polling included:
//   READ_ID      9Fh, 3 bytes                                   -> FLASH_JEDEC_ID
//   READ         6Ch (4-byte quad output fast read, 8 dummy)    LEN bytes -> read FIFO
//   PROGRAM      06h; 34h (4-byte quad input page program)      LEN bytes <- write FIFO; poll
//   ERASE_64K    06h; DCh (4-byte sector erase); poll
//   ERASE_4K     06h; 21h (4-byte 4 KB subsector erase); poll
//   READ_STATUS  70h (flag status), 05h (status)                -> FLASH_SR
//   WRITE_STATUS 06h; 01h + FLASH_DATA_SR; poll
//   IPROG        ICAP: WBSTAR <- ADDR, CMD <- IPROG
//   FIFO_RESET   empties both FIFOs
// poll = 70h until flag status bit 7 (ready), then 05h; flag status bits 5 (erase), 4 (program) or
// 1 (protection) set -> ERROR, and 50h clears them. No ready within 2^POLL_TIMEOUT_LOG2 core cycles
// -> ERROR. Commands and addresses use DQ0 (single line); the data of READ and PROGRAM use all four.
// Refused with ERROR, nothing sent to the flash: a command while BUSY, an unknown op, LEN outside
// 1..256, a PROGRAM that crosses a 256-byte page, an address range beyond the flash, a READ without
// room for it in the read FIFO, a PROGRAM with fewer bytes in the write FIFO than LEN, any flash
// command when the flash is not writable from the host (FLASH_WRITABLE=0). A FLASH_DATA write to a
// full write FIFO is dropped and sets ERROR.
`resetall
`timescale 1ns / 1ps
`default_nettype none
`include "tsnic_contract.vh"

module tsnic_flash_ctrl #(
    parameter ADDR_W            = 20,
    parameter CLK_FREQ_HZ       = 250000000,
    parameter BOARD_ID          = 0,          // FLASH_CAP bits 7:0
    parameter FLASH_SIZE_LOG2   = 27,         // 128 MB
    parameter FLASH_WRITABLE    = 1,
    parameter GOLDEN            = 0,          // 1: the boot selector runs after reset
    parameter [31:0] BOOT_BASE  = 32'h07FF0000,  // boot record copy 0 (copy 1 at +4096)
    parameter SPI_MAX_HZ        = 50000000,   // FLASH_CLK_DIV reset value gives at most this
    parameter POLL_TIMEOUT_LOG2 = 30,         // busy poll gives up after 2^this core cycles (4.3 s)
    parameter POLL_GAP_NS       = 2000,       // wait between two busy polls (PHC time, or 2x in cycles)
    parameter ERASE_POLL_GAP_NS = 100000,     // the same during an erase (typ. 50-150 ms: <= 0.2 % late)
    parameter CS_HIGH_CYCLES    = 16,
    parameter ICAP_READ_WAIT    = 8
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

    // quad-SPI pins (STARTUPE3/E2 on boards)
    output wire              qspi_clk,
    output wire              qspi_cs_n,
    output wire [3:0]        qspi_dq_o,
    output wire [3:0]        qspi_dq_oe,
    input  wire [3:0]        qspi_dq_i,

    // configuration port (ICAPE3/E2 on boards); changes only on cycles with icap_ce
    input  wire              icap_ce,
    output wire              icap_csib,
    output wire              icap_rdwrb,
    output wire [31:0]       icap_i,
    input  wire [31:0]       icap_o,

    // PHC time: the wait between busy polls ends at a PHC time, so the co-simulation's idle
    // fast-forward can jump over it (it also ends after twice its length in core cycles, whatever the PHC)
    input  wire [63:0]       phc_ns,

    output wire              ff_quiet,       // idle, or waiting between polls; no register access
    output wire [63:0]       ff_wake_ns      // the end of the wait between polls (all ones otherwise)
);

localparam [3:0] OP_READ_ID = 4'd1, OP_READ = 4'd2, OP_PROGRAM = 4'd3, OP_ERASE_64K = 4'd4,
                 OP_ERASE_4K = 4'd5, OP_READ_STATUS = 4'd6, OP_WRITE_STATUS = 4'd7, OP_IPROG = 4'd8,
                 OP_FIFO_RESET = 4'd9;

localparam [3:0] E_IDLE = 4'd0, E_WREN = 4'd1, E_MAIN = 4'd2, E_FSR = 4'd3, E_SR = 4'd4,
                 E_CLFSR = 4'd5, E_ICAP = 4'd6, E_END = 4'd7, E_CHECK = 4'd8, E_GO = 4'd9,
                 E_PWAIT = 4'd10;

localparam FIFO_LOG2 = 6;                              // 64 words = 256 bytes each way
localparam [32:0] FLASH_BYTES = 33'd1 << FLASH_SIZE_LOG2;
localparam integer DIV_CALC = (CLK_FREQ_HZ + 2 * SPI_MAX_HZ - 1) / (2 * SPI_MAX_HZ) - 1;
localparam [7:0] CLK_DIV_DEFAULT = (DIV_CALC < 0) ? 8'd0 : (DIV_CALC > 255) ? 8'd255 : DIV_CALC[7:0];
localparam integer GAP_CYC = (POLL_GAP_NS / 1000) * (CLK_FREQ_HZ / 1000000) * 2
                            + ((POLL_GAP_NS % 1000) * (CLK_FREQ_HZ / 1000000) * 2) / 1000;
localparam [23:0] GAP_CYCLES = (GAP_CYC < 2) ? 24'd2 : GAP_CYC[23:0];
localparam integer EGAP_CYC = (ERASE_POLL_GAP_NS / 1000) * (CLK_FREQ_HZ / 1000000) * 2
                             + ((ERASE_POLL_GAP_NS % 1000) * (CLK_FREQ_HZ / 1000000) * 2) / 1000;
localparam [23:0] EGAP_CYCLES = (EGAP_CYC < 2) ? 24'd2 : EGAP_CYC[23:0];
// the gaps (under 4.29 s) as 64-bit PHC intervals, widened by a function: a default is an unsized
// number, a value given by verilator -G a sized 32-bit one, and either passes lint this way
function [63:0] widen32;
    input [31:0] v;
    widen32 = {32'd0, v};
endfunction
localparam [63:0] GAP_NS64 = widen32(POLL_GAP_NS);
localparam [63:0] EGAP_NS64 = widen32(ERASE_POLL_GAP_NS);
localparam [31:0] CAP_VALUE = {7'd0, GOLDEN[0], FLASH_SIZE_LOG2[7:0], 7'd0, FLASH_WRITABLE[0], BOARD_ID[7:0]};

// ---------------------------------------------------------------------------------------------
// registers
reg [31:0] addr_reg = 32'd0;
reg [31:0] len_reg = 32'd0;
reg [7:0]  data_sr_reg = 8'd0;
reg [7:0]  clk_div_reg = CLK_DIV_DEFAULT;
reg [23:0] jedec_reg = 24'd0;
reg [7:0]  sr_reg = 8'd0;
reg [7:0]  fsr_reg = 8'd0;
reg        error_reg = 1'b0;

// engine
reg [3:0]  est_reg = E_IDLE;
reg        spi_go_reg = 1'b0;
reg [3:0]  op_reg = 4'd0;
reg [31:0] op_addr_reg = 32'd0;
reg [8:0]  op_len_reg = 9'd0;
reg        op_bs_reg = 1'b0;        // the boot selector issued it
reg        poll_reg = 1'b0;         // wait for ready in E_FSR (program/erase/write status)
reg [POLL_TIMEOUT_LOG2:0] poll_timer_reg = 0;
reg [63:0] gap_wake_reg = 64'd0;
reg [23:0] gap_cnt_reg = 24'd0;
// erases wait longer between polls (their busy time is a thousand times a page program's)
wire        op_erase   = (op_reg == OP_ERASE_64K) || (op_reg == OP_ERASE_4K);
wire [23:0] gap_cycles = op_erase ? EGAP_CYCLES : GAP_CYCLES;

// FIFO byte packing
reg [1:0]  pk_idx_reg = 2'd0;
reg [23:0] pk_word_reg = 24'd0;
reg [8:0]  pk_left_reg = 9'd0;
reg [1:0]  up_idx_reg = 2'd0;
reg [8:0]  up_left_reg = 9'd0;

// ---------------------------------------------------------------------------------------------
// FIFOs
wire [FIFO_LOG2:0] rdf_level, wrf_level;
wire [31:0]        rdf_head, wrf_head;
reg                rdf_push;
reg  [31:0]        rdf_push_data;
wire               rdf_pop;
wire               wrf_push;
wire               wrf_pop;
reg                fifo_clear_reg = 1'b0;

// The shared FIFO (first-word-fall-through, capacity 2^FIFO_LOG2 + 1 words; the controller keeps
// at most 2^FIFO_LOG2 in each by its own level checks). A word pushed is at the head two cycles
// later, long before the next register access or SPI byte can ask for it.
wire [FIFO_LOG2+1:0] rdf_count, wrf_count;
/* verilator lint_off PINCONNECTEMPTY */
tsnic_fifo #(.WIDTH(32), .ADDR_W(FIFO_LOG2)) rd_fifo_inst (
    .clk(clk), .rst(rst || fifo_clear_reg),
    .s_valid(rdf_push), .s_ready(), .s_data(rdf_push_data),
    .m_valid(), .m_ready(rdf_pop && rdf_level != 0), .m_data(rdf_head), .count(rdf_count)
);

tsnic_fifo #(.WIDTH(32), .ADDR_W(FIFO_LOG2)) wr_fifo_inst (
    .clk(clk), .rst(rst || fifo_clear_reg),
    .s_valid(wrf_push), .s_ready(), .s_data(reg_wr_data),
    .m_valid(), .m_ready(wrf_pop && wrf_level != 0), .m_data(wrf_head), .count(wrf_count)
);
/* verilator lint_on PINCONNECTEMPTY */
assign rdf_level = rdf_count[FIFO_LOG2:0];
assign wrf_level = wrf_count[FIFO_LOG2:0];
/* verilator lint_off UNUSEDSIGNAL */
wire unused_fifo_msb = rdf_count[FIFO_LOG2+1] | wrf_count[FIFO_LOG2+1];
/* verilator lint_on UNUSEDSIGNAL */

wire rd_empty = (rdf_level == 0);
wire wr_full  = (wrf_level >= (1 << FIFO_LOG2));

// ---------------------------------------------------------------------------------------------
// SPI engine
reg  [7:0]  spi_cmd;
reg         spi_addr_en;
reg  [4:0]  spi_dummy;
reg         spi_wr, spi_rd, spi_quad;
reg  [8:0]  spi_nbytes;
wire        spi_done, spi_tx_req, spi_rx_valid;
wire [7:0]  spi_rx_data;
wire [7:0]  spi_tx_data = (op_reg == OP_WRITE_STATUS) ? data_sr_reg : wrf_head[up_idx_reg * 8 +: 8];
// verilator lint_off UNUSEDSIGNAL
wire        spi_busy;
// verilator lint_on UNUSEDSIGNAL

// The engine takes these only with start (spi_go_reg): decoded only then, so a cycle-based
// simulator does not decode them in every cycle of an idle controller.
always @* begin
    spi_cmd = 8'h00;
    spi_addr_en = 1'b0;
    spi_dummy = 5'd0;
    spi_wr = 1'b0;
    spi_rd = 1'b0;
    spi_quad = 1'b0;
    spi_nbytes = 9'd1;
    if (spi_go_reg) case (est_reg)
        E_WREN:  spi_cmd = 8'h06;
        E_FSR:   begin spi_cmd = 8'h70; spi_rd = 1'b1; end
        E_SR:    begin spi_cmd = 8'h05; spi_rd = 1'b1; end
        E_CLFSR: spi_cmd = 8'h50;
        default: begin
            case (op_reg)
                OP_READ_ID: begin spi_cmd = 8'h9F; spi_rd = 1'b1; spi_nbytes = 9'd3; end
                OP_READ: begin
                    spi_cmd = 8'h6C; spi_addr_en = 1'b1; spi_dummy = 5'd8; spi_rd = 1'b1;
                    spi_quad = 1'b1; spi_nbytes = op_len_reg;
                end
                OP_PROGRAM: begin
                    spi_cmd = 8'h34; spi_addr_en = 1'b1; spi_wr = 1'b1; spi_quad = 1'b1;
                    spi_nbytes = op_len_reg;
                end
                OP_ERASE_64K: begin spi_cmd = 8'hDC; spi_addr_en = 1'b1; end
                OP_ERASE_4K:  begin spi_cmd = 8'h21; spi_addr_en = 1'b1; end
                default:      begin spi_cmd = 8'h01; spi_wr = 1'b1; end   // WRITE_STATUS
            endcase
        end
    endcase
end

tsnic_flash_spi #(.CS_HIGH_CYCLES(CS_HIGH_CYCLES)) spi_inst (
    .clk(clk), .rst(rst), .clk_div(clk_div_reg),
    .start(spi_go_reg), .cmd(spi_cmd), .addr_en(spi_addr_en), .addr(op_addr_reg), .dummy(spi_dummy),
    .wr_en(spi_wr), .rd_en(spi_rd), .quad(spi_quad), .nbytes(spi_nbytes),
    .busy(spi_busy), .done(spi_done),
    .tx_req(spi_tx_req), .tx_data(spi_tx_data), .rx_valid(spi_rx_valid), .rx_data(spi_rx_data),
    .sck(qspi_clk), .cs_n(qspi_cs_n), .dq_o(qspi_dq_o), .dq_oe(qspi_dq_oe), .dq_i(qspi_dq_i)
);

// ---------------------------------------------------------------------------------------------
// ICAP
wire        boot_valid;
wire [31:0] boot_wbstar, boot_bootsts;
wire        icap_busy, iprog_done;
reg         iprog_go_reg = 1'b0;

tsnic_flash_icap #(.READ_WAIT(ICAP_READ_WAIT)) icap_inst (
    .clk(clk), .rst(rst),
    .boot_valid(boot_valid), .boot_wbstar(boot_wbstar), .boot_bootsts(boot_bootsts),
    .iprog_start(iprog_go_reg), .iprog_addr(op_addr_reg), .busy(icap_busy), .iprog_done(iprog_done),
    .icap_ce(icap_ce), .icap_csib(icap_csib), .icap_rdwrb(icap_rdwrb), .icap_i(icap_i), .icap_o(icap_o)
);

// ---------------------------------------------------------------------------------------------
// boot selector (GOLDEN=1)
wire        bs_active;
wire        bs_req_valid;
wire [3:0]  bs_req_op;
wire [31:0] bs_req_addr;
wire [8:0]  bs_req_len;
wire        bs_fallback_seen;
wire [1:0]  bs_tried;
wire        eng_idle = (est_reg == E_IDLE);
reg         cmd_done_reg = 1'b0;     // a command ended (pulse)

generate
if (GOLDEN != 0) begin : g_boot
    tsnic_boot_select #(.BOOT_BASE(BOOT_BASE)) boot_select_inst (
        .clk(clk), .rst(rst),
        .boot_valid(boot_valid), .fallback(boot_bootsts[1]),
        .req_valid(bs_req_valid), .req_ready(eng_idle), .req_op(bs_req_op), .req_addr(bs_req_addr),
        .req_len(bs_req_len), .cmd_done(cmd_done_reg && op_bs_reg),
        .rx_valid(spi_rx_valid && op_bs_reg && est_reg == E_MAIN), .rx_data(spi_rx_data),
        .active(bs_active), .fallback_seen(bs_fallback_seen), .tried_slot(bs_tried)
    );
end else begin : g_no_boot
    assign bs_active = 1'b0;
    assign bs_req_valid = 1'b0;
    assign bs_req_op = 4'd0;
    assign bs_req_addr = 32'd0;
    assign bs_req_len = 9'd0;
    assign bs_fallback_seen = 1'b0;
    assign bs_tried = 2'd0;
end
endgenerate

wire busy = !eng_idle || bs_active || !boot_valid;

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

wire [31:0] rd_a = {{(32-ADDR_W){1'b0}}, reg_rd_addr[ADDR_W-1:2], 2'b00};
wire [31:0] wr_a = {{(32-ADDR_W){1'b0}}, reg_wr_addr[ADDR_W-1:2], 2'b00};

// verilator lint_off UNUSEDSIGNAL
wire [3:0] unused_addr_lsbs = {reg_wr_addr[1:0], reg_rd_addr[1:0]};
// verilator lint_on UNUSEDSIGNAL

wire rd_hit = (rd_a >= `TSNIC_FLASH_BASE) && (rd_a <= `TSNIC_FLASH_CLK_DIV);
wire wr_hit = (wr_a >= `TSNIC_FLASH_BASE) && (wr_a <= `TSNIC_FLASH_CLK_DIV);
wire do_wr = reg_wr_en && !wr_ack_reg && wr_hit;
wire do_rd = reg_rd_en && !rd_ack_reg && rd_hit;
wire wr_all = (reg_wr_strb == 4'hF);

assign rdf_pop  = do_rd && (rd_a == `TSNIC_FLASH_DATA);
assign wrf_push = do_wr && (wr_a == `TSNIC_FLASH_DATA) && wr_all && !wr_full;

// read data of a register (called only in a cycle that reads one)
function [31:0] rd_val(input [31:0] a);
begin
    rd_val = 32'd0;
    case (a)
        `TSNIC_FLASH_CAP:         rd_val = CAP_VALUE;
        `TSNIC_FLASH_ADDR:        rd_val = addr_reg;
        `TSNIC_FLASH_LEN:         rd_val = len_reg;
        `TSNIC_FLASH_STATUS:      rd_val = {8'd0, {(8-FIFO_LOG2-1){1'b0}}, wrf_level,
                                            {(8-FIFO_LOG2-1){1'b0}}, rdf_level,
                                            4'd0, wr_full, rd_empty, error_reg, busy};
        `TSNIC_FLASH_DATA:        rd_val = rd_empty ? 32'd0 : rdf_head;
        `TSNIC_FLASH_JEDEC_ID:    rd_val = {8'd0, jedec_reg};
        `TSNIC_FLASH_SR:          rd_val = {16'd0, fsr_reg, sr_reg};
        `TSNIC_FLASH_DATA_SR:     rd_val = {24'd0, data_sr_reg};
        `TSNIC_FLASH_BOOT_WBSTAR: rd_val = boot_wbstar;
        `TSNIC_FLASH_BOOT_STATUS: rd_val = {boot_bootsts[15:0], 12'd0, bs_tried, bs_fallback_seen,
                                            boot_bootsts[1]};
        `TSNIC_FLASH_CLK_DIV:     rd_val = {24'd0, clk_div_reg};
        default:                  rd_val = 32'd0;
    endcase
end
endfunction

// ---------------------------------------------------------------------------------------------
// command acceptance and argument checks: E_IDLE latches the command, E_CHECK registers each check
// (from registers only), E_GO combines them and starts the command or refuses it
wire        host_cmd = do_wr && (wr_a == `TSNIC_FLASH_CMD) && reg_wr_strb[0];
wire        take_bs = eng_idle && bs_req_valid;                 // the selector owns the engine
wire        take_host = host_cmd && !busy;

reg  [31:0] op_len32_reg = 32'd0;
reg  [6:0]  chk_reg = 7'd0;
// E_CHECK's checks, {writable, wrf_has, rdf_room, page_ok, range_in, addr_in, len_ok}, and E_GO's
// verdict: functions called in those states only (a cycle-based simulator computes them only there)
function [6:0] op_checks(input [31:0] a, input [31:0] len);
    reg [32:0] op_end;
    reg [6:0]  need_words;
begin
    op_end = {1'b0, a} + {1'b0, len};
    need_words = len[8:2] + {6'd0, len[1:0] != 2'd0};
    op_checks[0] = (len != 32'd0) && (len <= 32'd256);
    op_checks[1] = ({1'b0, a} < FLASH_BYTES);
    op_checks[2] = (op_end <= FLASH_BYTES);
    op_checks[3] = ({24'd0, a[7:0]} + len) <= 32'd256;
    op_checks[4] = ((7'd64 - rdf_level) >= need_words) || op_bs_reg;
    op_checks[5] = (wrf_level >= need_words);
    op_checks[6] = (FLASH_WRITABLE != 0) || !((op_reg >= OP_READ_ID) && (op_reg <= OP_WRITE_STATUS));
end
endfunction

function arg_ok(input [3:0] op, input [6:0] chk);
begin
    case (op)
        OP_READ_ID, OP_READ_STATUS: arg_ok = 1'b1;
        OP_READ:                    arg_ok = chk[0] && chk[2] && chk[4];
        OP_PROGRAM:                 arg_ok = chk[0] && chk[2] && chk[3] && chk[5];
        OP_ERASE_64K, OP_ERASE_4K:  arg_ok = chk[1];
        OP_WRITE_STATUS:            arg_ok = 1'b1;
        OP_IPROG, OP_FIFO_RESET:    arg_ok = 1'b1;
        default:                    arg_ok = 1'b0;
    endcase
    if (!chk[6]) arg_ok = 1'b0;
end
endfunction

wire fsr_err = (fsr_reg & 8'h32) != 8'd0;
wire poll_timeout = poll_timer_reg[POLL_TIMEOUT_LOG2];

integer b;

always @(posedge clk) begin
    wr_ack_reg <= 1'b0;
    rd_ack_reg <= 1'b0;
    rd_data_reg <= 32'd0;
    spi_go_reg <= 1'b0;
    iprog_go_reg <= 1'b0;
    fifo_clear_reg <= 1'b0;
    cmd_done_reg <= 1'b0;
    rdf_push <= 1'b0;

    // register writes
    if (do_wr) begin
        wr_ack_reg <= 1'b1;
        case (wr_a)
            `TSNIC_FLASH_ADDR: begin
                for (b = 0; b < 4; b = b + 1) if (reg_wr_strb[b]) addr_reg[b*8 +: 8] <= reg_wr_data[b*8 +: 8];
            end
            `TSNIC_FLASH_LEN: begin
                for (b = 0; b < 4; b = b + 1) if (reg_wr_strb[b]) len_reg[b*8 +: 8] <= reg_wr_data[b*8 +: 8];
            end
            `TSNIC_FLASH_DATA_SR: if (reg_wr_strb[0]) data_sr_reg <= reg_wr_data[7:0];
            `TSNIC_FLASH_CLK_DIV: if (reg_wr_strb[0]) clk_div_reg <= reg_wr_data[7:0];
            `TSNIC_FLASH_DATA:    if (wr_full || !wr_all) error_reg <= 1'b1;   // dropped: say so
            default: ;
        endcase
    end
    if (do_rd) begin
        rd_ack_reg <= 1'b1;
        rd_data_reg <= rd_val(rd_a);
    end

    // read data: READ into the read FIFO (packed little-endian), READ_ID, status registers
    if (spi_rx_valid) begin
        case (est_reg)
            E_FSR: fsr_reg <= spi_rx_data;
            E_SR:  sr_reg <= spi_rx_data;
            default: begin
                if (op_reg == OP_READ_ID) jedec_reg <= {spi_rx_data, jedec_reg[23:8]};
                if (op_reg == OP_READ && !op_bs_reg) begin
                    pk_left_reg <= pk_left_reg - 9'd1;
                    if (pk_idx_reg == 2'd3 || pk_left_reg == 9'd1) begin
                        rdf_push <= 1'b1;
                        rdf_push_data <= ({8'd0, pk_word_reg} & ((32'd1 << (pk_idx_reg * 8)) - 32'd1))
                                       | ({24'd0, spi_rx_data} << (pk_idx_reg * 8));
                        pk_idx_reg <= 2'd0;
                    end else begin
                        pk_word_reg <= (pk_word_reg & ((24'd1 << (pk_idx_reg * 8)) - 24'd1))
                                     | ({16'd0, spi_rx_data} << (pk_idx_reg * 8));
                        pk_idx_reg <= pk_idx_reg + 2'd1;
                    end
                end
            end
        endcase
    end
    // write data: PROGRAM takes bytes from the write FIFO's head word, pops it after its last byte
    if (spi_tx_req && op_reg == OP_PROGRAM) begin
        up_left_reg <= up_left_reg - 9'd1;
        up_idx_reg <= (up_idx_reg == 2'd3 || up_left_reg == 9'd1) ? 2'd0 : up_idx_reg + 2'd1;
    end

    // the engine
    case (est_reg)
        E_IDLE: begin
            if (host_cmd && busy) error_reg <= 1'b1;   // refused: a command is in progress
            if (take_bs || take_host) begin
                op_reg <= take_bs ? bs_req_op : reg_wr_data[3:0];
                op_addr_reg <= take_bs ? bs_req_addr : addr_reg;
                op_len32_reg <= take_bs ? {23'd0, bs_req_len} : len_reg;
                op_bs_reg <= take_bs;
                error_reg <= 1'b0;
                est_reg <= E_CHECK;
            end
        end
        E_CHECK: begin
            chk_reg <= op_checks(op_addr_reg, op_len32_reg);
            op_len_reg <= op_len32_reg[8:0];
            pk_idx_reg <= 2'd0;
            pk_left_reg <= op_len32_reg[8:0];
            up_idx_reg <= 2'd0;
            up_left_reg <= op_len32_reg[8:0];
            poll_timer_reg <= 0;
            est_reg <= E_GO;
        end
        E_GO: begin
            if (!arg_ok(op_reg, chk_reg)) begin
                error_reg <= 1'b1;
                est_reg <= E_END;
            end else begin
                case (op_reg)
                    OP_READ_ID, OP_READ: begin
                        est_reg <= E_MAIN;
                        spi_go_reg <= 1'b1;
                    end
                    OP_PROGRAM, OP_ERASE_64K, OP_ERASE_4K, OP_WRITE_STATUS: begin
                        est_reg <= E_WREN;
                        spi_go_reg <= 1'b1;
                    end
                    OP_READ_STATUS: begin
                        est_reg <= E_FSR;
                        poll_reg <= 1'b0;
                        spi_go_reg <= 1'b1;
                    end
                    OP_IPROG: begin
                        est_reg <= E_ICAP;
                        iprog_go_reg <= 1'b1;
                    end
                    default: begin             // FIFO_RESET
                        fifo_clear_reg <= 1'b1;
                        est_reg <= E_END;
                    end
                endcase
            end
        end
        E_WREN: begin
            if (spi_done) begin
                est_reg <= E_MAIN;
                spi_go_reg <= 1'b1;
            end
        end
        E_MAIN: begin
            if (spi_done) begin
                if (op_reg == OP_READ_ID || op_reg == OP_READ) begin
                    est_reg <= E_END;
                end else begin
                    est_reg <= E_FSR;
                    poll_reg <= 1'b1;
                    spi_go_reg <= 1'b1;
                end
            end
        end
        E_FSR: begin
            if (poll_reg) poll_timer_reg <= poll_timer_reg + 1'b1;
            if (spi_done) begin
                if (!poll_reg || fsr_reg[7]) begin
                    est_reg <= E_SR;
                    spi_go_reg <= 1'b1;
                end else if (poll_timeout) begin
                    error_reg <= 1'b1;
                    est_reg <= E_END;
                end else begin
                    est_reg <= E_PWAIT;              // poll again after the gap
                    gap_wake_reg <= phc_ns + (op_erase ? EGAP_NS64 : GAP_NS64);
                    gap_cnt_reg <= 24'd0;
                end
            end
        end
        E_PWAIT: begin
            poll_timer_reg <= poll_timer_reg + 1'b1;
            gap_cnt_reg <= gap_cnt_reg + 24'd1;
            if (phc_ns >= gap_wake_reg || gap_cnt_reg == gap_cycles) begin
                est_reg <= E_FSR;
                spi_go_reg <= 1'b1;
            end
        end
        E_SR: begin
            if (spi_done) begin
                if (poll_reg && fsr_err) begin
                    error_reg <= 1'b1;
                    est_reg <= E_CLFSR;
                    spi_go_reg <= 1'b1;
                end else begin
                    est_reg <= E_END;
                end
            end
        end
        E_CLFSR: if (spi_done) est_reg <= E_END;
        E_ICAP: if (iprog_done) est_reg <= E_END;
        default: begin                             // E_END
            est_reg <= E_IDLE;
            cmd_done_reg <= 1'b1;
            if (host_cmd) error_reg <= 1'b1;
        end
    endcase
    if (est_reg != E_IDLE && est_reg != E_END && host_cmd) error_reg <= 1'b1;

    if (rst) begin
        est_reg <= E_IDLE;
        error_reg <= 1'b0;
        clk_div_reg <= CLK_DIV_DEFAULT;
        addr_reg <= 32'd0;
        len_reg <= 32'd0;
        data_sr_reg <= 8'd0;
        jedec_reg <= 24'd0;
        sr_reg <= 8'd0;
        fsr_reg <= 8'd0;
        wr_ack_reg <= 1'b0;
        rd_ack_reg <= 1'b0;
        spi_go_reg <= 1'b0;
        iprog_go_reg <= 1'b0;
        cmd_done_reg <= 1'b0;
        rdf_push <= 1'b0;
    end
end

assign wrf_pop = spi_tx_req && op_reg == OP_PROGRAM && (up_idx_reg == 2'd3 || up_left_reg == 9'd1);

wire waiting = (est_reg == E_PWAIT) && !(phc_ns >= gap_wake_reg || gap_cnt_reg == gap_cycles);
assign ff_quiet = ((eng_idle && !bs_active && boot_valid && !icap_busy) || waiting) &&
                  !reg_wr_en && !reg_rd_en && !wr_ack_reg && !rd_ack_reg;
assign ff_wake_ns = (est_reg == E_PWAIT) ? gap_wake_reg : {64{1'b1}};

// verilator lint_off UNUSEDSIGNAL
wire unused_sig = spi_busy | |boot_bootsts[31:16] | cmd_done_reg;
// verilator lint_on UNUSEDSIGNAL

endmodule

`resetall
