// tsnic_rx_regs: the RX global register block (contract block RX at 0x1000).
//
// RX_CTRL.ENABLE, RX_LAT_COMP_NS, RX_DEFAULT_QUEUE, the identity registers (queues, steering
// entries, longest frame, buffer size), the staged steering entry and STEER_CMD (WRITE copies the
// staged registers into entry STEER_INDEX through tbl_wr_*, READ copies the entry back), and the
// global RX counters (32-bit, wrapping) counted from the RX buffer's and the steering table's events.
// Acknowledges one cycle after the access.
`resetall
`timescale 1ns / 1ps
`default_nettype none
`include "tsnic_contract.vh"

module tsnic_rx_regs #(
    parameter ADDR_W        = 20,
    parameter NUM_RXQ       = 4,
    parameter ENTRIES       = 16,
    parameter ENT_W         = (ENTRIES > 1) ? $clog2(ENTRIES) : 1,
    parameter ET_RULES      = 2,
    parameter ET_W          = (ET_RULES > 1) ? $clog2(ET_RULES) : 1,
    parameter MAX_FRAME_LEN = 9600,
    parameter BUF_BYTES     = 16384
) (
    input  wire              clk,
    input  wire              rst,

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

    output reg               rx_enable = 1'b0,
    output reg  [31:0]       lat_comp_ns = 32'd0,
    output reg  [15:0]       default_queue = 16'd0,

    // steering table access
    output reg               tbl_wr_en = 1'b0,
    output wire [ENT_W-1:0]  tbl_wr_idx,
    output wire              tbl_wr_valid,
    output wire [31:0]       tbl_wr_src_ip,
    output wire [31:0]       tbl_wr_dst_ip,
    output wire [7:0]        tbl_wr_proto,
    output wire [15:0]       tbl_wr_src_port,
    output wire [15:0]       tbl_wr_dst_port,
    output wire [15:0]       tbl_wr_queue,
    output wire [ENT_W-1:0]  tbl_rd_idx,
    input  wire              tbl_rd_valid,
    input  wire [31:0]       tbl_rd_src_ip,
    input  wire [31:0]       tbl_rd_dst_ip,
    input  wire [7:0]        tbl_rd_proto,
    input  wire [15:0]       tbl_rd_src_port,
    input  wire [15:0]       tbl_rd_dst_port,
    input  wire [15:0]       tbl_rd_queue,

    // EtherType rule access
    output reg               et_wr_en = 1'b0,
    output wire [ET_W-1:0]   et_wr_idx,
    output wire              et_wr_valid,
    output wire [15:0]       et_wr_ethertype,
    output wire [15:0]       et_wr_queue,
    output wire [ET_W-1:0]   et_rd_idx,
    input  wire              et_rd_valid,
    input  wire [15:0]       et_rd_ethertype,
    input  wire [15:0]       et_rd_queue,

    // events
    input  wire              evt_frame,
    input  wire [15:0]       evt_frame_len,
    input  wire              evt_drop_disabled,
    input  wire              evt_drop_full,
    input  wire              evt_bad,
    input  wire              evt_too_long,
    input  wire              evt_steered,
    input  wire [31:0]       mac_drop_count,     // RX_CNT_DROP_MAC: a count kept by the MAC side (clk)

    output wire              busy
);

reg [31:0] index_reg = 32'd0;
reg [31:0] src_reg = 32'd0;
reg [31:0] dst_reg = 32'd0;
reg [31:0] ports_reg = 32'd0;
reg [31:0] sctrl_reg = 32'd0;
reg [31:0] set_reg = 32'd0;     // staged EtherType rule

reg [31:0] cnt_frames = 32'd0;
reg [31:0] cnt_bytes = 32'd0;
reg [31:0] cnt_dis = 32'd0;
reg [31:0] cnt_full = 32'd0;
reg [31:0] cnt_bad = 32'd0;
reg [31:0] cnt_long = 32'd0;
reg [31:0] cnt_steered = 32'd0;

wire index_ok = index_reg < ENTRIES;
wire et_index_ok = index_reg < ET_RULES;
assign et_wr_idx       = index_reg[ET_W-1:0];
assign et_rd_idx       = index_reg[ET_W-1:0];
assign et_wr_valid     = set_reg[`TSNIC_RX_STEER_ET_VALID_BIT];
assign et_wr_ethertype = set_reg[`TSNIC_RX_STEER_ET_ETHERTYPE_BIT +: 16];
assign et_wr_queue     = {8'd0, set_reg[`TSNIC_RX_STEER_ET_QUEUE_BIT +: 8]};
assign tbl_wr_idx      = index_reg[ENT_W-1:0];
assign tbl_rd_idx      = index_reg[ENT_W-1:0];
assign tbl_wr_valid    = sctrl_reg[`TSNIC_RX_STEER_CTRL_VALID_BIT];
assign tbl_wr_src_ip   = src_reg;
assign tbl_wr_dst_ip   = dst_reg;
assign tbl_wr_proto    = sctrl_reg[`TSNIC_RX_STEER_CTRL_PROTO_BIT +: 8];
assign tbl_wr_src_port = ports_reg[31:16];
assign tbl_wr_dst_port = ports_reg[15:0];
assign tbl_wr_queue    = sctrl_reg[`TSNIC_RX_STEER_CTRL_QUEUE_BIT +: 16];

wire [31:0] rd_a = {{(32-ADDR_W){1'b0}}, reg_rd_addr[ADDR_W-1:2], 2'b00};
wire [31:0] wr_a = {{(32-ADDR_W){1'b0}}, reg_wr_addr[ADDR_W-1:2], 2'b00};
wire rd_hit = (rd_a >= `TSNIC_RX_BASE) && (rd_a <= `TSNIC_RX_CNT_DROP_MAC);
wire wr_hit = (wr_a >= `TSNIC_RX_BASE) && (wr_a <= `TSNIC_RX_CNT_DROP_MAC);

// verilator lint_off UNUSEDSIGNAL
wire [3:0] unused_addr = {reg_wr_addr[1:0], reg_rd_addr[1:0]};
wire [6:0] unused_sctrl = sctrl_reg[30:24];
wire [6:0] unused_set = set_reg[30:24];
wire [7:0] unused_etq = et_rd_queue[15:8];
// verilator lint_on UNUSEDSIGNAL

reg        wr_ack_reg = 1'b0;
reg        rd_ack_reg = 1'b0;
reg [31:0] rd_data_reg = 32'd0;
assign reg_wr_wait = 1'b0;
assign reg_rd_wait = 1'b0;
assign reg_wr_ack = wr_ack_reg;
assign reg_rd_ack = rd_ack_reg;
assign reg_rd_data = rd_data_reg;

function [31:0] apply_strb(input [31:0] old, input [31:0] val, input [3:0] strb);
    integer b;
    begin
        apply_strb = old;
        for (b = 0; b < 4; b = b + 1)
            if (strb[b]) apply_strb[b*8 +: 8] = val[b*8 +: 8];
    end
endfunction

wire [31:0] dq_wv = apply_strb({16'd0, default_queue}, reg_wr_data, reg_wr_strb);
// verilator lint_off UNUSEDSIGNAL
wire [15:0] unused_dq = dq_wv[31:16];
// verilator lint_on UNUSEDSIGNAL

localparam [31:0] NUM_RXQ_32 = NUM_RXQ;
localparam [31:0] ENTRIES_32 = ENTRIES;
localparam [31:0] ET_RULES_32 = ET_RULES;
localparam [31:0] MAX_FRAME_LEN_32 = MAX_FRAME_LEN;
localparam [31:0] BUF_BYTES_32 = BUF_BYTES;

reg [31:0] rd_val;
always @* begin
    rd_val = 32'd0;
    case (rd_a)
        `TSNIC_RX_CTRL:              rd_val = {31'd0, rx_enable};
        `TSNIC_RX_NUM_QUEUES:        rd_val = NUM_RXQ_32;
        `TSNIC_RX_STEER_ENTRIES:     rd_val = ENTRIES_32;
        `TSNIC_RX_STEER_ET_RULES:    rd_val = ET_RULES_32;
        `TSNIC_RX_STEER_ET:          rd_val = set_reg;
        `TSNIC_RX_MAX_FRAME_LEN:     rd_val = MAX_FRAME_LEN_32;
        `TSNIC_RX_LAT_COMP_NS:       rd_val = lat_comp_ns;
        `TSNIC_RX_DEFAULT_QUEUE:     rd_val = {16'd0, default_queue};
        `TSNIC_RX_BUF_BYTES:         rd_val = BUF_BYTES_32;
        `TSNIC_RX_STEER_INDEX:       rd_val = index_reg;
        `TSNIC_RX_STEER_SRC_IP:      rd_val = src_reg;
        `TSNIC_RX_STEER_DST_IP:      rd_val = dst_reg;
        `TSNIC_RX_STEER_PORTS:       rd_val = ports_reg;
        `TSNIC_RX_STEER_CTRL:        rd_val = sctrl_reg;
        `TSNIC_RX_CNT_FRAMES:        rd_val = cnt_frames;
        `TSNIC_RX_CNT_BYTES:         rd_val = cnt_bytes;
        `TSNIC_RX_CNT_DROP_DISABLED: rd_val = cnt_dis;
        `TSNIC_RX_CNT_DROP_FULL:     rd_val = cnt_full;
        `TSNIC_RX_CNT_BAD_FCS:       rd_val = cnt_bad;
        `TSNIC_RX_CNT_TOO_LONG:      rd_val = cnt_long;
        `TSNIC_RX_CNT_STEERED:       rd_val = cnt_steered;
        `TSNIC_RX_CNT_DROP_MAC:      rd_val = mac_drop_count;
        default:                     rd_val = 32'd0;
    endcase
end

always @(posedge clk) begin
    wr_ack_reg <= 1'b0;
    rd_ack_reg <= 1'b0;
    rd_data_reg <= 32'd0;
    tbl_wr_en <= 1'b0;
    et_wr_en <= 1'b0;

    if (reg_wr_en && !wr_ack_reg && wr_hit) begin
        wr_ack_reg <= 1'b1;
        case (wr_a)
            `TSNIC_RX_CTRL:          if (reg_wr_strb[0]) rx_enable <= reg_wr_data[`TSNIC_RX_CTRL_ENABLE_BIT];
            `TSNIC_RX_LAT_COMP_NS:   lat_comp_ns <= apply_strb(lat_comp_ns, reg_wr_data, reg_wr_strb);
            `TSNIC_RX_DEFAULT_QUEUE: default_queue <= dq_wv[15:0];
            `TSNIC_RX_STEER_INDEX:   index_reg <= apply_strb(index_reg, reg_wr_data, reg_wr_strb);
            `TSNIC_RX_STEER_SRC_IP:  src_reg <= apply_strb(src_reg, reg_wr_data, reg_wr_strb);
            `TSNIC_RX_STEER_DST_IP:  dst_reg <= apply_strb(dst_reg, reg_wr_data, reg_wr_strb);
            `TSNIC_RX_STEER_PORTS:   ports_reg <= apply_strb(ports_reg, reg_wr_data, reg_wr_strb);
            `TSNIC_RX_STEER_CTRL:    sctrl_reg <= apply_strb(sctrl_reg, reg_wr_data, reg_wr_strb);
            `TSNIC_RX_STEER_ET:      set_reg <= apply_strb(set_reg, reg_wr_data, reg_wr_strb);
            `TSNIC_RX_STEER_CMD: if (reg_wr_strb[0]) begin
                if (!index_ok) begin
                    // WRITE / READ of an entry that does not exist: ignored
                end else if (reg_wr_data[`TSNIC_RX_STEER_CMD_WRITE_BIT]) begin
                    tbl_wr_en <= 1'b1;
                end else if (reg_wr_data[`TSNIC_RX_STEER_CMD_READ_BIT]) begin
                    src_reg <= tbl_rd_src_ip;
                    dst_reg <= tbl_rd_dst_ip;
                    ports_reg <= {tbl_rd_src_port, tbl_rd_dst_port};
                    sctrl_reg <= ({31'd0, tbl_rd_valid} << `TSNIC_RX_STEER_CTRL_VALID_BIT) |
                                 ({16'd0, tbl_rd_queue} << `TSNIC_RX_STEER_CTRL_QUEUE_BIT) |
                                 ({24'd0, tbl_rd_proto} << `TSNIC_RX_STEER_CTRL_PROTO_BIT);
                end
                if (!et_index_ok) begin
                    // ET_WRITE / ET_READ of a rule that does not exist: ignored
                end else if (reg_wr_data[`TSNIC_RX_STEER_CMD_ET_WRITE_BIT]) begin
                    et_wr_en <= 1'b1;
                end else if (reg_wr_data[`TSNIC_RX_STEER_CMD_ET_READ_BIT]) begin
                    set_reg <= ({31'd0, et_rd_valid} << `TSNIC_RX_STEER_ET_VALID_BIT) |
                               ({24'd0, et_rd_queue[7:0]} << `TSNIC_RX_STEER_ET_QUEUE_BIT) |
                               ({16'd0, et_rd_ethertype} << `TSNIC_RX_STEER_ET_ETHERTYPE_BIT);
                end
            end
            default: ;
        endcase
    end
    if (reg_rd_en && !rd_ack_reg && rd_hit) begin
        rd_ack_reg <= 1'b1;
        rd_data_reg <= rd_val;
    end

    if (evt_frame) begin
        cnt_frames <= cnt_frames + 32'd1;
        cnt_bytes <= cnt_bytes + {16'd0, evt_frame_len};
    end
    if (evt_drop_disabled) cnt_dis <= cnt_dis + 32'd1;
    if (evt_drop_full) cnt_full <= cnt_full + 32'd1;
    if (evt_bad) cnt_bad <= cnt_bad + 32'd1;
    if (evt_too_long) cnt_long <= cnt_long + 32'd1;
    if (evt_steered) cnt_steered <= cnt_steered + 32'd1;

    if (rst) begin
        rx_enable <= 1'b0;
        lat_comp_ns <= 32'd0;
        default_queue <= 16'd0;
        index_reg <= 32'd0;
        src_reg <= 32'd0;
        dst_reg <= 32'd0;
        ports_reg <= 32'd0;
        sctrl_reg <= 32'd0;
        set_reg <= 32'd0;
        tbl_wr_en <= 1'b0;
        et_wr_en <= 1'b0;
        cnt_frames <= 32'd0;
        cnt_bytes <= 32'd0;
        cnt_dis <= 32'd0;
        cnt_full <= 32'd0;
        cnt_bad <= 32'd0;
        cnt_long <= 32'd0;
        cnt_steered <= 32'd0;
        wr_ack_reg <= 1'b0;
        rd_ack_reg <= 1'b0;
    end
end

assign busy = wr_ack_reg || rd_ack_reg || tbl_wr_en || et_wr_en || evt_frame || evt_drop_disabled || evt_drop_full ||
              evt_bad || evt_too_long || evt_steered;

endmodule

`resetall
