// tsnic_rx_steer: the RX 5-tuple steering table (docs/ARCHITECTURE.md "Receive path").
//
// ENTRIES exact-match entries {valid, IPv4 src, IPv4 dst, proto, src port, dst port, queue} kept in
// flip-flops and compared all at once (a small CAM: ENTRIES x 104-bit compares). A lookup enters on
// s_valid with its key and an opaque tag and leaves exactly two cycles later on m_valid (no
// backpressure; one lookup per cycle):
//   cycle 1 registers the per-entry match vector, cycle 2 the lowest matching entry.
// A key with key_valid = 0 (not IPv4 TCP/UDP, or a fragment) matches nothing.
// ET_RULES EtherType rules {valid, EtherType, queue} (e.g. 0x88F7, L2 PTP): a lookup that hits no
// 5-tuple entry goes to the queue of the lowest valid rule whose EtherType equals s_ethertype (with
// s_et_valid: the frame holds bytes 12-13); m_hit stays 0 (it names 5-tuple entries only).
// A miss of both goes to default_queue. Queue numbers >= NUM_RXQ select queue 0.
// (The rules are resolved in stage 1, beside the 104-bit compares, into the "no entry" queue, so
// stage 2 is as without them.)
// The table is written through tbl_wr_* (visible to lookups entering from the next cycle) and read
// combinationally through tbl_rd_* (the register block's STEER_CMD.READ).
`resetall
`timescale 1ns / 1ps
`default_nettype none

module tsnic_rx_steer #(
    parameter ENTRIES = 16,
    parameter ENT_W   = (ENTRIES > 1) ? $clog2(ENTRIES) : 1,
    parameter NUM_RXQ = 4,
    parameter RXQ_W   = (NUM_RXQ > 1) ? $clog2(NUM_RXQ) : 1,
    parameter TAG_W   = 8,
    parameter ET_RULES = 2,
    parameter ET_W    = (ET_RULES > 1) ? $clog2(ET_RULES) : 1
) (
    input  wire              clk,
    input  wire              rst,

    // table access
    input  wire              tbl_wr_en,
    input  wire [ENT_W-1:0]  tbl_wr_idx,
    input  wire              tbl_wr_valid,
    input  wire [31:0]       tbl_wr_src_ip,
    input  wire [31:0]       tbl_wr_dst_ip,
    input  wire [7:0]        tbl_wr_proto,
    input  wire [15:0]       tbl_wr_src_port,
    input  wire [15:0]       tbl_wr_dst_port,
    input  wire [15:0]       tbl_wr_queue,
    input  wire [ENT_W-1:0]  tbl_rd_idx,
    output wire              tbl_rd_valid,
    output wire [31:0]       tbl_rd_src_ip,
    output wire [31:0]       tbl_rd_dst_ip,
    output wire [7:0]        tbl_rd_proto,
    output wire [15:0]       tbl_rd_src_port,
    output wire [15:0]       tbl_rd_dst_port,
    output wire [15:0]       tbl_rd_queue,

    // EtherType rule access (as the table's)
    input  wire              et_wr_en,
    input  wire [ET_W-1:0]   et_wr_idx,
    input  wire              et_wr_valid,
    input  wire [15:0]       et_wr_ethertype,
    input  wire [15:0]       et_wr_queue,
    input  wire [ET_W-1:0]   et_rd_idx,
    output wire              et_rd_valid,
    output wire [15:0]       et_rd_ethertype,
    output wire [15:0]       et_rd_queue,

    input  wire [15:0]       default_queue,

    // lookup
    input  wire              s_valid,
    input  wire              s_key_valid,
    input  wire [31:0]       s_src_ip,
    input  wire [31:0]       s_dst_ip,
    input  wire [7:0]        s_proto,
    input  wire [15:0]       s_src_port,
    input  wire [15:0]       s_dst_port,
    input  wire              s_et_valid,
    input  wire [15:0]       s_ethertype,
    input  wire [TAG_W-1:0]  s_tag,

    output wire              m_valid,
    output wire              m_hit,
    output wire [ENT_W-1:0]  m_entry,
    output wire [RXQ_W-1:0]  m_queue,
    output wire [TAG_W-1:0]  m_tag,

    output wire              busy      // a lookup is in the pipeline (fast-forward)
);

reg              e_valid [0:ENTRIES-1];
reg [31:0]       e_src   [0:ENTRIES-1];
reg [31:0]       e_dst   [0:ENTRIES-1];
reg [7:0]        e_proto [0:ENTRIES-1];
reg [15:0]       e_sport [0:ENTRIES-1];
reg [15:0]       e_dport [0:ENTRIES-1];
reg [15:0]       e_queue [0:ENTRIES-1];

integer i;
initial begin
    for (i = 0; i < ENTRIES; i = i + 1) begin
        e_valid[i] = 1'b0; e_src[i] = 32'd0; e_dst[i] = 32'd0; e_proto[i] = 8'd0;
        e_sport[i] = 16'd0; e_dport[i] = 16'd0; e_queue[i] = 16'd0;
    end
end

always @(posedge clk) begin
    if (tbl_wr_en) begin
        e_valid[tbl_wr_idx] <= tbl_wr_valid;
        e_src[tbl_wr_idx]   <= tbl_wr_src_ip;
        e_dst[tbl_wr_idx]   <= tbl_wr_dst_ip;
        e_proto[tbl_wr_idx] <= tbl_wr_proto;
        e_sport[tbl_wr_idx] <= tbl_wr_src_port;
        e_dport[tbl_wr_idx] <= tbl_wr_dst_port;
        e_queue[tbl_wr_idx] <= tbl_wr_queue;
    end
    if (rst) begin
        for (i = 0; i < ENTRIES; i = i + 1) e_valid[i] <= 1'b0;
    end
end

assign tbl_rd_valid    = e_valid[tbl_rd_idx];
assign tbl_rd_src_ip   = e_src[tbl_rd_idx];
assign tbl_rd_dst_ip   = e_dst[tbl_rd_idx];
assign tbl_rd_proto    = e_proto[tbl_rd_idx];
assign tbl_rd_src_port = e_sport[tbl_rd_idx];
assign tbl_rd_dst_port = e_dport[tbl_rd_idx];
assign tbl_rd_queue    = e_queue[tbl_rd_idx];

reg              r_valid [0:ET_RULES-1];
reg [15:0]       r_et    [0:ET_RULES-1];
reg [15:0]       r_queue [0:ET_RULES-1];

integer ri;
initial begin
    for (ri = 0; ri < ET_RULES; ri = ri + 1) begin
        r_valid[ri] = 1'b0; r_et[ri] = 16'd0; r_queue[ri] = 16'd0;
    end
end

always @(posedge clk) begin
    if (et_wr_en) begin
        r_valid[et_wr_idx] <= et_wr_valid;
        r_et[et_wr_idx]    <= et_wr_ethertype;
        r_queue[et_wr_idx] <= et_wr_queue;
    end
    if (rst) begin
        for (ri = 0; ri < ET_RULES; ri = ri + 1) r_valid[ri] <= 1'b0;
    end
end

assign et_rd_valid     = r_valid[et_rd_idx];
assign et_rd_ethertype = r_et[et_rd_idx];
assign et_rd_queue     = r_queue[et_rd_idx];

// ---------------------------------------------------------------------------------------------
// stage 1: match vector, and each entry's queue as of the same cycle (so that a write between the
// two stages cannot pair one version's match with another version's queue)
function [RXQ_W-1:0] map_q(input [15:0] q);
    map_q = ({16'd0, q} < NUM_RXQ) ? q[RXQ_W-1:0] : {RXQ_W{1'b0}};
endfunction

reg [ENTRIES-1:0] match_reg = {ENTRIES{1'b0}};
// (one vector, entry i at bits i*RXQ_W: a Verilated model then keeps one copy of it for the
// clocked update instead of a delayed-write flag per entry, set and tested in every cycle)
reg [ENTRIES*RXQ_W-1:0] q1_reg = {(ENTRIES*RXQ_W){1'b0}};
reg               v1_reg = 1'b0;
reg [TAG_W-1:0]   tag1_reg = {TAG_W{1'b0}};
reg [RXQ_W-1:0]   defq1_reg = {RXQ_W{1'b0}};   // the queue without a 5-tuple hit (rule or default)

// the lowest matching EtherType rule's queue, else the default queue
reg [RXQ_W-1:0] noent_q_c;
integer         rp;
always @* begin
    noent_q_c = map_q(default_queue);
    for (rp = ET_RULES - 1; rp >= 0; rp = rp - 1) begin
        if (s_et_valid && r_valid[rp] && (r_et[rp] == s_ethertype)) noent_q_c = map_q(r_queue[rp]);
    end
end

// The stage registers load only with a lookup (a clock enable): m_hit, m_entry, m_queue and m_tag
// mean something only with m_valid, and the co-simulation skips the ENTRIES compares in the cycles
// without one (nearly all of them).
always @(posedge clk) begin
    v1_reg <= s_valid;
    if (s_valid) begin
        tag1_reg <= s_tag;
        defq1_reg <= noent_q_c;
        for (i = 0; i < ENTRIES; i = i + 1) begin
            q1_reg[i*RXQ_W +: RXQ_W] <= map_q(e_queue[i]);
            match_reg[i] <= s_key_valid && e_valid[i] && (e_src[i] == s_src_ip) && (e_dst[i] == s_dst_ip) &&
                            (e_proto[i] == s_proto) && (e_sport[i] == s_src_port) && (e_dport[i] == s_dst_port);
        end
    end
    if (rst) v1_reg <= 1'b0;
end

// stage 2: lowest matching entry, its queue
reg             hit_c;
reg [ENT_W-1:0] ent_c;
integer         pe;   // this block's own loop variable
// (the search only with a match: no match gives the same 0 / 0, and a Verilated model then skips
// the ENTRIES steps in nearly every cycle)
always @* begin
    hit_c = 1'b0;
    ent_c = {ENT_W{1'b0}};
    if (|match_reg) begin
        for (pe = ENTRIES - 1; pe >= 0; pe = pe - 1) begin
            if (match_reg[pe]) begin
                hit_c = 1'b1;
                ent_c = pe[ENT_W-1:0];
            end
        end
    end
end

wire [RXQ_W-1:0] q_c = hit_c ? q1_reg[ent_c*RXQ_W +: RXQ_W] : defq1_reg;

reg             v2_reg = 1'b0;
reg             hit2_reg = 1'b0;
reg [ENT_W-1:0] ent2_reg = {ENT_W{1'b0}};
reg [RXQ_W-1:0] q2_reg = {RXQ_W{1'b0}};
reg [TAG_W-1:0] tag2_reg = {TAG_W{1'b0}};

always @(posedge clk) begin
    v2_reg <= v1_reg;
    if (v1_reg) begin
        hit2_reg <= hit_c;
        ent2_reg <= ent_c;
        q2_reg <= q_c;
        tag2_reg <= tag1_reg;
    end
    if (rst) v2_reg <= 1'b0;
end

assign m_valid = v2_reg;
assign m_hit   = hit2_reg;
assign m_entry = ent2_reg;
assign m_queue = q2_reg;
assign m_tag   = tag2_reg;
assign busy    = v1_reg || v2_reg || s_valid;

endmodule

`resetall
