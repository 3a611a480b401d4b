// tsnic_rx_buf: RX ingress, on-card frame buffer and frame queue (docs/ARCHITECTURE.md "Receive path").
//
// - Takes the timestamped RX stream (tsnic_rx_ts, with each beat's byte count) and is always ready: a MAC cannot be held off, so
//   a frame that cannot be kept is dropped whole and counted, never cut short silently:
//   RX disabled at its first beat (evt_drop_disabled), or no room (evt_drop_full): the frame queue
//   is full at its first beat, or the frame buffer fills up under it (its words are taken back).
// - Keeps at most MAX_FRAME_LEN bytes of a frame (the rest is counted, not stored: status TOO_LONG).
// - Parses the Ethernet/IPv4/TCP-UDP header on the fly (any beat width, IHL honoured) into the
//   5-tuple key; the cycle after the last beat the key goes to tsnic_rx_steer (from a register) with
//   the frame's record as its tag, and the steering result enters the frame queue two cycles later.
// - Frame data: a ring of BUF_BYTES in block RAM, one word per beat, each frame from a word boundary;
//   read port for the DMA (rd_en/rd_addr -> rd_data the next cycle, held while rd_en is low); the DMA
//   gives a frame's words back with rel_valid/rel_ptr (its end pointer) in frame order.
// - Frame queue (m_info_*): one record per kept frame {start word, end word, bytes kept, frame length,
//   status, arrival, steering result}, 2^INFO_LOG2 deep; a frame takes its place at its first beat,
//   so the queue cannot overflow.
`resetall
`timescale 1ns / 1ps
`default_nettype none
`include "tsnic_contract.vh"

module tsnic_rx_buf #(
    parameter DATA_W        = 64,
    parameter BUF_BYTES     = 16384,     // power of two, at least MAX_FRAME_LEN rounded up to words
    parameter MAX_FRAME_LEN = 9600,
    parameter INFO_LOG2     = 5,
    parameter ENT_W         = 4,
    parameter RXQ_W         = 2,
    parameter PTR_W         = $clog2(BUF_BYTES / (DATA_W / 8)) + 1,  // word pointer with wrap bit
    parameter TAG_W         = 2 * PTR_W + 16 + 16 + 8 + 64             // the frame record (do not set)
) (
    input  wire                clk,
    input  wire                rst,

    input  wire                enable,

    input  wire [DATA_W-1:0]   s_axis_tdata,
    input  wire [DATA_W/8-1:0] s_axis_tkeep,
    input  wire                s_axis_tvalid,
    output wire                s_axis_tready,
    input  wire                s_axis_tlast,
    input  wire                s_axis_bad,
    input  wire [63:0]         s_axis_ts,
    input  wire [$clog2(DATA_W/8):0] s_axis_nbytes,   // bytes in this beat (tsnic_rx_ts counts tkeep)

    // to / from the steering table
    output wire                m_key_valid,
    output wire                m_key_ok,
    output wire [31:0]         m_key_src_ip,
    output wire [31:0]         m_key_dst_ip,
    output wire [7:0]          m_key_proto,
    output wire [15:0]         m_key_src_port,
    output wire [15:0]         m_key_dst_port,
    output wire                m_key_et_ok,      // the frame holds its EtherType (>= 14 bytes)
    output wire [15:0]         m_key_ethertype,  // bytes 12-13 (no 802.1Q tag looked behind)
    output wire [TAG_W-1:0]    m_key_tag,
    input  wire                s_res_valid,
    input  wire                s_res_hit,
    input  wire [ENT_W-1:0]    s_res_entry,
    input  wire [RXQ_W-1:0]    s_res_queue,
    input  wire [TAG_W-1:0]    s_res_tag,

    // frame queue
    output wire                m_info_valid,
    input  wire                m_info_ready,
    output wire [PTR_W-1:0]    m_info_start,
    output wire [PTR_W-1:0]    m_info_end,
    output wire [15:0]         m_info_len,        // bytes kept (<= MAX_FRAME_LEN)
    output wire [15:0]         m_info_frame_len,  // frame length, saturated
    output wire [7:0]          m_info_status,     // RX_STATUS_OK / BAD_FCS / TOO_LONG
    output wire [63:0]         m_info_ts,
    output wire                m_info_hit,
    output wire [ENT_W-1:0]    m_info_entry,
    output wire [RXQ_W-1:0]    m_info_queue,

    // frame data read port and release
    input  wire                rd_en,
    input  wire [PTR_W-2:0]    rd_addr,
    output wire [DATA_W-1:0]   rd_data,
    input  wire                rel_valid,
    input  wire [PTR_W-1:0]    rel_ptr,

    // events (one cycle, at a frame's last beat)
    output reg                 evt_frame = 1'b0,
    output reg  [15:0]         evt_frame_len = 16'd0,
    output reg                 evt_drop_disabled = 1'b0,
    output reg                 evt_drop_full = 1'b0,
    output reg                 evt_bad = 1'b0,
    output reg                 evt_too_long = 1'b0,

    output wire                busy
);

localparam BYTES      = DATA_W / 8;
localparam BLOG2      = $clog2(BYTES);
localparam WORDS      = BUF_BYTES / BYTES;
localparam MAX_WORDS  = (MAX_FRAME_LEN + BYTES - 1) / BYTES;
localparam INFO_DEPTH = 1 << INFO_LOG2;
localparam [31:0] BYTES_32 = BYTES;
localparam [16:0] BYTES17 = BYTES_32[16:0];
localparam [31:0] MAX_WORDS_32 = MAX_WORDS;
localparam [15:0] MAX_WORDS16 = MAX_WORDS_32[15:0];
localparam INFO_W     = TAG_W + 1 + ENT_W + RXQ_W;

// ---------------------------------------------------------------------------------------------
// frame RAM
wire               ram_we;
wire [PTR_W-2:0]   ram_wa;
tsnic_ram_sdp #(
    .WIDTH(DATA_W),
    .ADDR_W(PTR_W - 1),
    .BE_W(1),
    .OUT_REG(0)
) ram_inst (
    .clk(clk),
    .wr_en(ram_we), .wr_addr(ram_wa), .wr_data(s_axis_tdata),
    .rd_en(rd_en), .rd_addr(rd_addr), .rd_data(rd_data)
);

// ---------------------------------------------------------------------------------------------
// ingress
reg [PTR_W-1:0] wr_ptr_reg = {PTR_W{1'b0}};
reg [PTR_W-1:0] sof_ptr_reg = {PTR_W{1'b0}};
reg [PTR_W-1:0] rd_ptr_reg = {PTR_W{1'b0}};     // words given back by the DMA
reg             in_frame_reg = 1'b0;
reg             drop_dis_reg = 1'b0;
reg             drop_full_reg = 1'b0;
reg             bad_reg = 1'b0;
reg [16:0]      len_reg = 17'd0;                 // bytes so far, saturates at 2^17-1
reg [15:0]      words_reg = 16'd0;               // words stored of this frame
reg [63:0]      ts_reg = 64'd0;
reg [INFO_LOG2:0] held_reg = {(INFO_LOG2+1){1'b0}};   // frames with a place in the frame queue
reg             place_reg = 1'b0;                // this frame has a place
integer pi;     // the header-byte loop (each always block has its own loop variable)

// header bytes
reg [15:0] et_reg = 16'd0;
reg [7:0]  vihl_reg = 8'd0;
reg [15:0] frag_reg = 16'd0;
reg [7:0]  proto_reg = 8'd0;
reg [31:0] src_reg = 32'd0;
reg [31:0] dst_reg = 32'd0;
reg [31:0] ports_reg = 32'd0;

wire beat = s_axis_tvalid;   // always ready
wire first = beat && !in_frame_reg;

wire [PTR_W-1:0] used = wr_ptr_reg - rd_ptr_reg;
localparam [31:0] WORDS_32 = WORDS;
localparam [PTR_W-1:0] WORDS_P = WORDS_32[PTR_W-1:0];
wire             space = used != WORDS_P;   // used never exceeds WORDS
wire             queue_room = held_reg < INFO_DEPTH;

// the frame's drop decisions as of this beat
wire drop_dis_now  = first ? !enable : drop_dis_reg;
wire drop_full_first = first && enable && !queue_room;
wire drop_full_pre = first ? drop_full_first : drop_full_reg;
wire [15:0] words_cur = first ? 16'd0 : words_reg;
wire store_want = !drop_dis_now && !drop_full_pre && (words_cur < MAX_WORDS16);
wire overflow = store_want && !space;
wire store = store_want && space;

assign ram_we = beat && store;
assign ram_wa = wr_ptr_reg[PTR_W-2:0];
assign s_axis_tready = 1'b1;

// bytes in this beat: counted from tkeep by tsnic_rx_ts (tkeep is used for nothing else here)
wire [BLOG2:0] beat_bytes = s_axis_nbytes;
// verilator lint_off UNUSEDSIGNAL
wire [DATA_W/8-1:0] unused_keep = s_axis_tkeep;
// verilator lint_on UNUSEDSIGNAL

// byte offset of this beat in the frame
wire [16:0] off = first ? 17'd0 : len_reg;
function in_beat(input [16:0] o, input [16:0] b);
    in_beat = (b >= o) && (b < o + BYTES17);
endfunction
// verilator lint_off UNUSEDSIGNAL
function [7:0] byte_at(input [DATA_W-1:0] d, input [16:0] o, input [16:0] b);
    reg [16:0] k;
    begin
        k = b - o;
        byte_at = d[k[BLOG2-1:0]*8 +: 8];
    end
endfunction
// verilator lint_on UNUSEDSIGNAL

reg [16:0] len_next;
always @* begin
    len_next = off + {{(16-BLOG2){1'b0}}, beat_bytes};
    if (len_next < off) len_next = 17'h1ffff;
end

// end of frame
wire [15:0] frame_len_sat = (len_next > 17'd65535) ? 16'hffff : len_next[15:0];
wire        too_long = len_next > MAX_FRAME_LEN;
wire [15:0] kept_len = too_long ? MAX_FRAME_LEN[15:0] : len_next[15:0];
wire        bad_all = (first ? 1'b0 : bad_reg) | s_axis_bad;
wire [7:0]  status = bad_all ? `TSNIC_RX_STATUS_BAD_FCS : (too_long ? `TSNIC_RX_STATUS_TOO_LONG : `TSNIC_RX_STATUS_OK);
wire        eof = beat && s_axis_tlast;
wire        keep_frame = eof && !drop_dis_now && !drop_full_pre && !overflow;
wire        place_take = first && enable && queue_room;
wire        place_now = first ? place_take : place_reg;
wire        place_give = eof && place_now && !keep_frame;   // a frame with a place dropped for room
wire [PTR_W-1:0] sof_now = first ? wr_ptr_reg : sof_ptr_reg;
wire [PTR_W-1:0] end_now = wr_ptr_reg + {{(PTR_W-1){1'b0}}, store};
wire [63:0] ts_now = first ? s_axis_ts : ts_reg;

// key (the header bytes, including those of this last beat). Read only with a beat (the header
// registers load with one, the key register with keep_frame): taken from the beat only then, the
// stored bytes otherwise, so a Verilated model skips the byte selects in cycles without a beat.
reg  [15:0] et_k, frag_k;
reg  [7:0]  vihl_k, proto_k;
reg  [3:0]  ihl_now;
reg  [31:0] src_k, dst_k, ports_k;
reg  [16:0] bi, pbase;
always @* begin
    et_k = et_reg;
    vihl_k = vihl_reg;
    frag_k = frag_reg;
    proto_k = proto_reg;
    src_k = src_reg;
    dst_k = dst_reg;
    ports_k = ports_reg;
    bi = 17'd0;
    if (beat) begin
        if (in_beat(off, 17'd12)) et_k[15:8] = byte_at(s_axis_tdata, off, 17'd12);
        if (in_beat(off, 17'd13)) et_k[7:0] = byte_at(s_axis_tdata, off, 17'd13);
        if (in_beat(off, 17'd14)) vihl_k = byte_at(s_axis_tdata, off, 17'd14);
        if (in_beat(off, 17'd20)) frag_k[15:8] = byte_at(s_axis_tdata, off, 17'd20);
        if (in_beat(off, 17'd21)) frag_k[7:0] = byte_at(s_axis_tdata, off, 17'd21);
        if (in_beat(off, 17'd23)) proto_k = byte_at(s_axis_tdata, off, 17'd23);
    end
    ihl_now = vihl_k[3:0];
    pbase = 17'd14 + {11'd0, ihl_now, 2'b00};
    if (beat) begin
        for (pi = 0; pi < 4; pi = pi + 1) begin
            bi = pi[16:0];
            if (in_beat(off, 17'd26 + bi)) src_k[(3-pi)*8 +: 8] = byte_at(s_axis_tdata, off, 17'd26 + bi);
            if (in_beat(off, 17'd30 + bi)) dst_k[(3-pi)*8 +: 8] = byte_at(s_axis_tdata, off, 17'd30 + bi);
            if (in_beat(off, pbase + bi)) ports_k[(3-pi)*8 +: 8] = byte_at(s_axis_tdata, off, pbase + bi);
        end
    end
end
// the header checks; the length check (ports inside the frame) is made from registers, below
wire key_hdr_ok = (et_k == 16'h0800) && (vihl_k[7:4] == 4'd4) && (vihl_k[3:0] >= 4'd5) &&
                  (frag_k[13:0] == 14'd0) && ((proto_k == 8'd6) || (proto_k == 8'd17));

// the key leaves through a register: the header parse of the last beat and the steering table's
// compares do not fit one cycle together (whole-core timing, issue 16)
reg             key_valid_reg = 1'b0;
reg             key_ok_reg = 1'b0;       // header checks
reg [16:0]      key_len_reg = 17'd0;     // frame bytes
reg [3:0]       key_ihl_reg = 4'd0;
reg [31:0]      key_src_reg = 32'd0;
reg [31:0]      key_dst_reg = 32'd0;
reg [7:0]       key_proto_reg = 8'd0;
reg [31:0]      key_ports_reg = 32'd0;
reg [15:0]      key_et_reg = 16'd0;
reg [TAG_W-1:0] key_tag_reg = {TAG_W{1'b0}};
always @(posedge clk) begin
    key_valid_reg <= keep_frame;
    if (keep_frame) begin
        key_ok_reg <= key_hdr_ok;
        key_len_reg <= len_next;
        key_ihl_reg <= ihl_now;
        key_src_reg <= src_k;
        key_dst_reg <= dst_k;
        key_proto_reg <= proto_k;
        key_ports_reg <= ports_k;
        key_et_reg <= et_k;
        key_tag_reg <= {sof_now, end_now, kept_len, frame_len_sat, status, ts_now};
    end
    if (rst) key_valid_reg <= 1'b0;
end

assign m_key_valid    = key_valid_reg;
// the ports lie inside the frame: bytes >= 14 (Ethernet) + 4 * IHL + 4
assign m_key_ok       = key_ok_reg && (key_len_reg >= 17'd18 + {11'd0, key_ihl_reg, 2'b00});
assign m_key_src_ip   = key_src_reg;
assign m_key_dst_ip   = key_dst_reg;
assign m_key_proto    = key_proto_reg;
assign m_key_src_port = key_ports_reg[31:16];
assign m_key_dst_port = key_ports_reg[15:0];
assign m_key_tag      = key_tag_reg;
assign m_key_et_ok    = key_len_reg >= 17'd14;
assign m_key_ethertype = key_et_reg;

// ---------------------------------------------------------------------------------------------
// frame queue: the shared FIFO (its output word comes from a register). It never refuses a record:
// every record had its place (held_reg <= INFO_DEPTH) since its frame's first beat.
wire [INFO_W-1:0]   info_q;
wire [INFO_LOG2+1:0] info_count;
wire                info_s_ready;
wire info_pop = m_info_valid && m_info_ready;

tsnic_fifo #(.WIDTH(INFO_W), .ADDR_W(INFO_LOG2)) info_fifo_inst (
    .clk(clk), .rst(rst),
    .s_valid(s_res_valid), .s_ready(info_s_ready), .s_data({s_res_tag, s_res_hit, s_res_entry, s_res_queue}),
    .m_valid(m_info_valid), .m_ready(m_info_ready), .m_data(info_q),
    .count(info_count));

// verilator lint_off UNUSEDSIGNAL
wire unused_info_s_ready = info_s_ready;   // always high (see above)
// verilator lint_on UNUSEDSIGNAL

assign {m_info_start, m_info_end, m_info_len, m_info_frame_len, m_info_status, m_info_ts,
        m_info_hit, m_info_entry, m_info_queue} = info_q;

always @(posedge clk) begin
    evt_frame <= 1'b0;
    evt_drop_disabled <= 1'b0;
    evt_drop_full <= 1'b0;
    evt_bad <= 1'b0;
    evt_too_long <= 1'b0;

    if (rel_valid) rd_ptr_reg <= rel_ptr;

    // a frame takes its place in the frame queue at its first beat (if kept so far) and gives it
    // back when it is dropped or when its record leaves the queue
    held_reg <= held_reg + {{INFO_LOG2{1'b0}}, place_take}
                         - {{INFO_LOG2{1'b0}}, place_give}
                         - {{INFO_LOG2{1'b0}}, info_pop};
    if (beat) place_reg <= place_now;

    if (beat) begin
        in_frame_reg <= !s_axis_tlast;
        if (first) begin
            sof_ptr_reg <= wr_ptr_reg;
            ts_reg <= s_axis_ts;
        end
        drop_dis_reg <= drop_dis_now;
        drop_full_reg <= drop_full_pre || overflow;
        bad_reg <= bad_all;
        len_reg <= len_next;
        words_reg <= words_cur + (store ? 16'd1 : 16'd0);
        if (store) wr_ptr_reg <= wr_ptr_reg + 1'b1;
        et_reg <= et_k;
        vihl_reg <= vihl_k;
        frag_reg <= frag_k;
        proto_reg <= proto_k;
        src_reg <= src_k;
        dst_reg <= dst_k;
        ports_reg <= ports_k;
        if (s_axis_tlast) begin
            evt_frame <= 1'b1;
            evt_frame_len <= frame_len_sat;
            evt_bad <= bad_all;
            evt_too_long <= too_long;
            evt_drop_disabled <= drop_dis_now;
            evt_drop_full <= !drop_dis_now && (drop_full_pre || overflow);
            if (!drop_dis_now && (drop_full_pre || overflow)) wr_ptr_reg <= sof_now;   // take the words back
        end
    end

    if (rst) begin
        wr_ptr_reg <= {PTR_W{1'b0}};
        sof_ptr_reg <= {PTR_W{1'b0}};
        rd_ptr_reg <= {PTR_W{1'b0}};
        in_frame_reg <= 1'b0;
        drop_dis_reg <= 1'b0;
        drop_full_reg <= 1'b0;
        place_reg <= 1'b0;
        held_reg <= {(INFO_LOG2+1){1'b0}};
        evt_frame <= 1'b0;
        evt_drop_disabled <= 1'b0;
        evt_drop_full <= 1'b0;
        evt_bad <= 1'b0;
        evt_too_long <= 1'b0;
    end
end

assign busy = in_frame_reg || beat || key_valid_reg || (info_count != 0) || (held_reg != 0) || evt_frame;

endmodule

`resetall
