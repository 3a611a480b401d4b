// tsnic_pcie_us_wr: AXI4 write slave (the core's host-memory writes) to PCIe memory write TLPs on the
// hard block's RQ interface, pipelined: one TLP per cycle for writes whose TLP fits one RQ beat, and
// one RQ beat per cycle for long ones.
//
// A burst's bytes run from awaddr to the last strobe of its last beat (strobes contiguous, as the
// core writes them; a single narrow beat is fine). It is cut into TLPs that end at multiples of
// MPS = min(128 << cfg_max_payload, MAX_WR_BYTES) (so none crosses 4 KiB).
//
//   AW, W      each into a small FIFO (tsnic_fifo), so AW and W of a burst are taken in the same
//              cycle and the next burst can follow in the next one (the core's write arbiter presents
//              them together)
//   beat stage the burst at the head of the AW FIFO is current; each W beat is written, rotated from
//              address dword lanes to TLP dword lanes (after the 4-dword descriptor), into a ring of
//              TLP-shaped words: one 32-bit tsnic_ram_sdp per dword lane, each lane at its own word
//              address. A piece (TLP) ends at wlast or at an MPS boundary; its words are reserved in
//              the ring as it is written
//   header     one stage works out the piece's dword count, byte enables and RQ beat count from the
//              position of the last strobed dword, then the piece enters the header FIFO
//   reader     reads the piece's words (registered read), puts the descriptor into the first beat's
//              dwords 0-3 and drives RQ; the ring words are free once read
// B is answered (through a FIFO, in order) once the burst's last TLP has been accepted by RQ: OKAY,
// or SLVERR when bus master enable was off as one of its TLPs came to be sent (that TLP is not sent).
// Up to OUTSTANDING bursts are in flight between AW and B.
`resetall
`timescale 1ns / 1ps
`default_nettype none

module tsnic_pcie_us_wr #(
    parameter DATA_W       = 512,
    parameter KEEP_W       = DATA_W / 32,
    parameter RQ_USER_W    = 137,
    parameter US_PLUS_512  = 1,
    parameter AXI_ID_W     = 8,
    parameter MAX_WR_BYTES = 512       // largest write TLP payload used (power of two, 128..4096)
) (
    input  wire                 clk,
    input  wire                 rst,

    input  wire [AXI_ID_W-1:0]  s_axi_awid,
    input  wire [63:0]          s_axi_awaddr,
    input  wire [7:0]           s_axi_awlen,
    input  wire                 s_axi_awvalid,
    output wire                 s_axi_awready,
    input  wire [DATA_W-1:0]    s_axi_wdata,
    input  wire [DATA_W/8-1:0]  s_axi_wstrb,
    input  wire                 s_axi_wlast,
    input  wire                 s_axi_wvalid,
    output wire                 s_axi_wready,
    output wire [AXI_ID_W-1:0]  s_axi_bid,
    output wire [1:0]           s_axi_bresp,
    output wire                 s_axi_bvalid,
    input  wire                 s_axi_bready,

    output wire [DATA_W-1:0]    m_axis_rq_tdata,
    output wire [KEEP_W-1:0]    m_axis_rq_tkeep,
    output wire                 m_axis_rq_tvalid,
    input  wire                 m_axis_rq_tready,
    output wire                 m_axis_rq_tlast,
    output wire [RQ_USER_W-1:0] m_axis_rq_tuser,

    input  wire [2:0]           cfg_max_payload,
    input  wire                 cfg_bus_master_en,

    output wire                 busy
);

localparam BYTES = DATA_W / 8;
localparam BL    = $clog2(BYTES);
localparam LANES = KEEP_W;
localparam LL    = $clog2(LANES);
// ring: two longest pieces (MPS / BYTES words + 1 for the descriptor) and slack for the pipeline
localparam PIECE_WORDS = MAX_WR_BYTES / BYTES + 1;
localparam BW    = $clog2(2 * PIECE_WORDS + 8);
localparam B_AW  = 4;                          // B FIFO: 2^B_AW + 1 entries
localparam OUTSTANDING = 1 << B_AW;            // bursts between AW and B
localparam HDR_W = 62 + 11 + 4 + 4 + BW + LL + BW + (BW + 1) + 1 + AXI_ID_W;

generate
    if (DATA_W != 256 && DATA_W != 512) begin : g_bad_width
        tsnic_param_error_DATA_W_must_be_256_or_512 param_error_inst ();
    end
    if (MAX_WR_BYTES < 128 || MAX_WR_BYTES > 4096 || (MAX_WR_BYTES & (MAX_WR_BYTES - 1)) != 0) begin : g_bad_mwb
        tsnic_param_error_MAX_WR_BYTES_must_be_a_power_of_two_128_to_4096 param_error_inst ();
    end
endgenerate

// MPS - 1 (registered: cfg_max_payload changes only at configuration)
reg [11:0] m1 = 12'd127;
always @(posedge clk) begin
    if (cfg_max_payload > 3'd5 || (13'd128 << cfg_max_payload) > MAX_WR_BYTES)
        m1 <= MAX_WR_BYTES[11:0] - 12'd1;
    else
        m1 <= (12'd128 << cfg_max_payload) - 12'd1;
end

// ---------------------------------------------------------------------------------------------
// AW and W FIFOs, outstanding bursts
reg  [B_AW:0] outst = 0;
wire          out_ok = (outst != OUTSTANDING[B_AW:0]);
wire          af_s_ready, af_valid;
wire [AXI_ID_W+63:0] af_data;
wire          af_pop;
wire          wf_s_ready, wf_valid;
wire [DATA_W+BYTES:0] wf_data;
wire          wf_pop;

assign s_axi_awready = af_s_ready && out_ok;
assign s_axi_wready  = wf_s_ready;

/* verilator lint_off PINCONNECTEMPTY */
tsnic_fifo #(.WIDTH(AXI_ID_W + 64), .ADDR_W(2)) aw_fifo_inst (
    .clk(clk), .rst(rst),
    .s_valid(s_axi_awvalid && out_ok), .s_ready(af_s_ready), .s_data({s_axi_awid, s_axi_awaddr}),
    .m_valid(af_valid), .m_ready(af_pop), .m_data(af_data), .count());

tsnic_fifo #(.WIDTH(DATA_W + BYTES + 1), .ADDR_W(2)) w_fifo_inst (
    .clk(clk), .rst(rst),
    .s_valid(s_axi_wvalid), .s_ready(wf_s_ready), .s_data({s_axi_wlast, s_axi_wstrb, s_axi_wdata}),
    .m_valid(wf_valid), .m_ready(wf_pop), .m_data(wf_data), .count());
/* verilator lint_on PINCONNECTEMPTY */

wire [AXI_ID_W-1:0] a_id   = af_data[AXI_ID_W+63:64];
wire [63:0]         a_addr = af_data[63:0];
wire [DATA_W-1:0]   w_data = wf_data[DATA_W-1:0];
wire [BYTES-1:0]    w_strb = wf_data[DATA_W +: BYTES];
wire                w_last = wf_data[DATA_W + BYTES];

// ---------------------------------------------------------------------------------------------
// beat stage: the current burst and piece
reg                c_valid = 1'b0;
reg [AXI_ID_W-1:0] c_id = {AXI_ID_W{1'b0}};
reg [63:0]         c_addr = 64'd0;          // first byte of the piece
reg [LL-1:0]       c_a0 = {LL{1'b0}};       // its dword lane in the bus word
reg [LL-1:0]       c_k = {LL{1'b0}};        // (4 - a0) mod LANES: address lane -> TLP lane
reg                c_d = 1'b0;              // a0 > 4: TLP word j holds data from beats j and j+1
reg [BW-1:0]       c_beat = 0;              // beat within the piece
reg [BW-1:0]       c_left = 0;              // beats left to the MPS boundary, minus one
reg [BW:0]         c_base = 0;              // ring word of the piece's first TLP word
reg [BW:0]         c_hi = 0;                // highest ring word the current beat may write
reg [BW-1:0]       c_wp = 0;                // c_base + c_beat - c_d
reg [BW:0]         free_ptr = 0;            // first ring word still to be read

wire [BW:0] c_used = c_hi - free_ptr;
wire        room   = !c_used[BW];
wire        w_go   = c_valid && wf_valid && room;
wire        p_end  = w_go && (w_last || c_left == 0);
wire        b_end  = w_go && w_last;
wire        a_load = af_valid && (!c_valid || b_end);
assign af_pop = a_load;
assign wf_pop = w_go;

// the new burst's rotation
wire [LL-1:0] a_a0 = a_addr[BL-1:2];
localparam [LL-1:0] K_ALIGNED = 4;             // rotation of a bus-word-aligned piece
wire [LL-1:0] a_k  = K_ALIGNED - a_a0;
wire          a_d  = (a_a0 > 4);
wire          a_lo = (a_a0 < 4);
wire [BW:0]   base_eff = b_end ? c_hi + 1'b1 : c_base;
/* verilator lint_off UNUSEDSIGNAL */
wire [11:0]   mps_beats_w = m1 >> BL;                          // < 2^BW (MPS <= MAX_WR_BYTES)
wire [11:0]   a_left_w    = (m1 & ~a_addr[11:0]) >> BL;        // beats to the boundary, minus one
/* verilator lint_on UNUSEDSIGNAL */

always @(posedge clk) begin
    if (w_go && !p_end) begin
        c_beat <= c_beat + 1'b1;
        c_left <= c_left - 1'b1;
        c_hi   <= c_hi + 1'b1;
        c_wp   <= c_wp + 1'b1;
    end else if (p_end && !w_last) begin
        // next piece of the burst: starts at the MPS boundary, bus-word aligned
        c_addr <= {c_addr[63:12], c_addr[11:0] | m1} + 64'd1;
        c_a0   <= {LL{1'b0}};
        c_k    <= K_ALIGNED;
        c_d    <= 1'b0;
        c_beat <= 0;
        c_left <= mps_beats_w[BW-1:0];
        c_base <= c_hi + 1'b1;
        c_hi   <= c_hi + {{(BW-1){1'b0}}, 2'd2};
        c_wp   <= c_hi[BW-1:0] + 1'b1;
    end else if (b_end) begin
        c_valid <= 1'b0;
        c_base  <= c_hi + 1'b1;
    end
    if (a_load) begin
        c_valid <= 1'b1;
        c_id    <= a_id;
        c_addr  <= a_addr;
        c_a0    <= a_a0;
        c_k     <= a_k;
        c_d     <= a_d;
        c_beat  <= 0;
        c_left  <= a_left_w[BW-1:0];
        c_base  <= base_eff;
        c_hi    <= base_eff + {{BW{1'b0}}, a_lo};
        c_wp    <= base_eff[BW-1:0] - {{(BW-1){1'b0}}, a_d};
    end
    if (rst) begin
        c_valid <= 1'b0;
        c_base  <= 0;
        c_hi    <= 0;
    end
end

// last strobed dword of the beat (strobes contiguous: exactly one dword ends the run), its index and
// its byte strobes, by OR encoding (no priority chain)
wire [LANES-1:0] dw_any;
genvar q;
generate
    for (q = 0; q < LANES; q = q + 1) begin : g_any
        assign dw_any[q] = |w_strb[q*4 +: 4];
    end
endgenerate
wire [LANES-1:0] dw_end = dw_any & ~{1'b0, dw_any[LANES-1:1]};
reg  [LL-1:0] l_idx;
reg  [3:0]    l_strb;
integer i;
always @(*) begin
    l_idx = {LL{1'b0}};
    l_strb = 4'd0;
    for (i = 0; i < LANES; i = i + 1) begin
        l_idx  = l_idx | ({LL{dw_end[i]}} & i[LL-1:0]);
        l_strb = l_strb | ({4{dw_end[i]}} & w_strb[i*4 +: 4]);
    end
end

// ring: one RAM per TLP dword lane
wire [BW-1:0]     rd_addr;
wire              rd_en;
wire [DATA_W-1:0] ring_q;
generate
    for (q = 0; q < LANES; q = q + 1) begin : g_lane
        // source address lane of TLP lane q; it lands one word further when it wrapped (q < k)
        wire [LL-1:0] src  = q[LL-1:0] - c_k;
        /* verilator lint_off CMPCONST */
        wire          wrap = (q[LL-1:0] < c_k);
        /* verilator lint_on CMPCONST */
        wire          we   = w_go && dw_any[src] && !(c_beat == 0 && src < c_a0);
        tsnic_ram_sdp #(.WIDTH(32), .ADDR_W(BW), .BE_W(1), .OUT_REG(0)) ring_inst (
            .clk(clk),
            .wr_en(we), .wr_addr(c_wp + {{(BW-1){1'b0}}, wrap}), .wr_data(w_data[src*32 +: 32]),
            .rd_en(rd_en), .rd_addr(rd_addr), .rd_data(ring_q[q*32 +: 32]));
    end
endgenerate

// ---------------------------------------------------------------------------------------------
// header stage: registered at the piece's last beat; works out the TLP fields into the header FIFO
reg                h_valid = 1'b0;
reg [61:0]         h_addr = 62'd0;
reg [1:0]          h_alo = 2'd0;
reg [LL-1:0]       h_a0 = {LL{1'b0}};
reg [LL-1:0]       h_k = {LL{1'b0}};
reg                h_d = 1'b0;
reg [BW-1:0]       h_beat = 0;
reg [LL-1:0]       h_idx = {LL{1'b0}};      // last dword's lane in the last beat
reg [3:0]          h_lstrb = 4'd0;          // its byte strobes
reg                h_final = 1'b0;
reg [AXI_ID_W-1:0] h_id = {AXI_ID_W{1'b0}};
reg [BW-1:0]       h_base = 0;
reg [BW:0]         h_next = 0;              // ring word after the piece's reservation

always @(posedge clk) begin
    h_valid <= p_end;
    if (p_end) begin
        h_addr  <= c_addr[63:2];
        h_alo   <= c_addr[1:0];
        h_a0    <= c_a0;
        h_k     <= c_k;
        h_d     <= c_d;
        h_beat  <= c_beat;
        h_idx   <= w_last ? l_idx : {LL{1'b1}};
        h_lstrb <= w_last ? l_strb : 4'b1111;
        h_final <= w_last;
        h_id    <= c_id;
        h_base  <= c_base[BW-1:0];
        h_next  <= c_hi + 1'b1;
    end
    if (rst) h_valid <= 1'b0;
end

/* verilator lint_off UNUSEDSIGNAL */
wire [12:0] e_dw     = ({{(13-BW){1'b0}}, h_beat} << LL) | {{(13-LL){1'b0}}, h_idx};  // last dword, from beat 0 lane 0
wire [12:0] h_dw13   = e_dw + 13'd1 - {{(13-LL){1'b0}}, h_a0};
wire [10:0] h_dwords = h_dw13[10:0];
wire [LL:0] h_lk     = {1'b0, h_idx} + {1'b0, h_k};             // TLP lane of the last dword (+ wrap)
/* verilator lint_on UNUSEDSIGNAL */
wire [BW-1:0] h_beats_m1 = h_beat - {{(BW-1){1'b0}}, h_d} + {{(BW-1){1'b0}}, h_lk[LL]};
wire        h_single = (h_beat == 0) && (h_idx == h_a0);
wire [3:0]  fbe_raw  = 4'b1111 << h_alo;
wire [3:0]  h_fbe    = h_single ? (fbe_raw & h_lstrb) : fbe_raw;
wire [3:0]  h_lbe    = h_single ? 4'b0000 : h_lstrb;

wire              hf_valid;
wire [HDR_W-1:0]  hf_data;
wire              hf_pop;
/* verilator lint_off PINCONNECTEMPTY */
tsnic_fifo #(.WIDTH(HDR_W), .ADDR_W(BW)) hdr_fifo_inst (
    .clk(clk), .rst(rst),
    .s_valid(h_valid), .s_ready(),
    .s_data({h_addr, h_dwords, h_fbe, h_lbe, h_beats_m1, h_lk[LL-1:0], h_base, h_next, h_final, h_id}),
    .m_valid(hf_valid), .m_ready(hf_pop), .m_data(hf_data), .count());
/* verilator lint_on PINCONNECTEMPTY */

// ---------------------------------------------------------------------------------------------
// reader: RAM address (issue) -> ring_q + metadata (s1) -> RQ output register (o)
wire [61:0]         r_addr;
wire [10:0]         r_dwords;
wire [3:0]          r_fbe, r_lbe;
wire [BW-1:0]       r_beats_m1;
wire [LL-1:0]       r_lastlane;
wire [BW-1:0]       r_base;
wire [BW:0]         r_next;
wire                r_final;
wire [AXI_ID_W-1:0] r_id;
assign {r_addr, r_dwords, r_fbe, r_lbe, r_beats_m1, r_lastlane, r_base, r_next, r_final, r_id} = hf_data;

reg [BW-1:0] r_beat = 0;
reg          r_acc_err = 1'b0;        // an earlier piece of this burst was not sent

reg                s1_valid = 1'b0, s1_send = 1'b0, s1_sop = 1'b0, s1_eop = 1'b0, s1_bfinal = 1'b0;
reg                s1_berr = 1'b0;
reg [127:0]        s1_desc = 128'd0;
reg [3:0]          s1_fbe = 4'd0, s1_lbe = 4'd0;
reg [LL-1:0]       s1_lastlane = {LL{1'b0}};
reg [AXI_ID_W-1:0] s1_id = {AXI_ID_W{1'b0}};

reg                o_full = 1'b0, o_send = 1'b0, o_bfinal = 1'b0, o_berr = 1'b0;
reg [AXI_ID_W-1:0] o_id = {AXI_ID_W{1'b0}};
reg [DATA_W-1:0]   o_data = {DATA_W{1'b0}};
reg [KEEP_W-1:0]   o_keep = {KEEP_W{1'b0}};
reg                o_last = 1'b0, o_sop = 1'b0;
reg [3:0]          o_fbe = 4'd0, o_lbe = 4'd0;
reg [3:0]          o_eop_ptr = 4'd0;

wire o_leave = o_full && (!o_send || m_axis_rq_tready);
wire adv     = !o_full || o_leave;               // s1 -> o, issue -> s1
wire r_drop  = !cfg_bus_master_en;                // decided at a piece's first beat
wire r_issue = hf_valid && adv;
wire r_lastb = (r_beat == r_beats_m1) || (r_beat == 0 && r_drop);
assign hf_pop  = r_issue && r_lastb;
assign rd_en   = adv;
assign rd_addr = r_base + r_beat;

always @(posedge clk) begin
    if (r_issue) begin
        r_beat <= r_lastb ? 0 : r_beat + 1'b1;
        if (r_lastb) begin
            free_ptr <= r_next;
            r_acc_err <= r_final ? 1'b0 : (r_acc_err || (r_beat == 0 && r_drop));
        end
    end
    if (adv) begin
        s1_valid  <= r_issue;
        s1_send   <= !(r_beat == 0 && r_drop);
        s1_sop    <= (r_beat == 0);
        s1_eop    <= r_lastb;
        s1_bfinal <= r_lastb && r_final;
        s1_berr   <= r_acc_err || (r_beat == 0 && r_drop);
        if (r_beat == 0)
            s1_desc <= {1'b0, 3'b000, 3'b000, 1'b0, 16'd0, 8'd0, 16'd0, 1'b0, 4'b0001, r_dwords, r_addr, 2'b00};
        s1_fbe    <= r_fbe;
        s1_lbe    <= r_lbe;
        s1_lastlane <= r_lastlane;
        s1_id     <= r_id;

        o_full    <= s1_valid;
        o_send    <= s1_send;
        o_bfinal  <= s1_bfinal;
        o_berr    <= s1_berr;
        o_id      <= s1_id;
        o_data    <= ring_q;
        if (s1_sop) o_data[127:0] <= s1_desc;
        o_sop     <= s1_sop;
        o_last    <= s1_eop;
        o_keep    <= s1_eop ? ({KEEP_W{1'b1}} >> (~s1_lastlane)) : {KEEP_W{1'b1}};
        o_eop_ptr <= s1_eop ? {{(4-LL){1'b0}}, s1_lastlane} : 4'd0;
        o_fbe     <= s1_fbe;
        o_lbe     <= s1_lbe;
    end
    if (rst) begin
        r_beat <= 0;
        r_acc_err <= 1'b0;
        free_ptr <= 0;
        s1_valid <= 1'b0;
        o_full <= 1'b0;
    end
end

// ---------------------------------------------------------------------------------------------
// B, in order, after the burst's last TLP has left on RQ
wire b_push = o_leave && o_bfinal;
/* verilator lint_off PINCONNECTEMPTY */
tsnic_fifo #(.WIDTH(AXI_ID_W + 1), .ADDR_W(B_AW)) b_fifo_inst (
    .clk(clk), .rst(rst),
    .s_valid(b_push), .s_ready(), .s_data({o_id, o_berr}),
    .m_valid(s_axi_bvalid), .m_ready(s_axi_bready), .m_data({s_axi_bid, s_axi_bresp[1]}), .count());
/* verilator lint_on PINCONNECTEMPTY */
assign s_axi_bresp[0] = 1'b0;

always @(posedge clk) begin
    case ({s_axi_awvalid && s_axi_awready, s_axi_bvalid && s_axi_bready})
        2'b10: outst <= outst + 1'b1;
        2'b01: outst <= outst - 1'b1;
        default: ;
    endcase
    if (rst) outst <= 0;
end

assign m_axis_rq_tdata  = o_data;
assign m_axis_rq_tkeep  = o_keep;
assign m_axis_rq_tvalid = o_full && o_send;
assign m_axis_rq_tlast  = o_last;
generate
    if (US_PLUS_512) begin : g_rq_user_512
        assign m_axis_rq_tuser = {{(RQ_USER_W-32){1'b0}}, o_eop_ptr, 1'b0, o_last, 2'b00, 2'b00,
                                  1'b0, o_sop, 4'd0, 4'd0, o_lbe, 4'd0, o_fbe};
    end else begin : g_rq_user_256
        assign m_axis_rq_tuser = {{(RQ_USER_W-8){1'b0}}, o_lbe, o_fbe};
        wire unused_256 = &{1'b0, o_sop, o_eop_ptr};
    end
endgenerate

assign busy = (outst != 0);

wire unused_ok = &{1'b0, s_axi_awlen};

endmodule

`resetall
