// tsnic_pcie_us_wr: AXI4 write slave (the core's host-memory writes) to PCIe memory write TLPs on the
// hard block's RQ interface.
//
// A burst's bytes run from awaddr to the last strobe of its last beat (strobes must be contiguous,
// as the core writes them; a single narrow beat is fine). It is cut into TLPs that end
// at multiples of MPS = min(128 << cfg_max_payload, MAX_WR_BYTES): each piece is collected in a
// small buffer (one 32-bit RAM per dword lane, written already rotated from address lanes to the TLP's
// dword positions after the 4-dword descriptor) and then sent. B is answered once the burst's last
// TLP has been accepted by RQ: OKAY, or SLVERR when bus master enable was off (nothing is sent).
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
localparam BUF_WORDS = MAX_WR_BYTES / BYTES + 2;
localparam BW    = $clog2(BUF_WORDS);

localparam [2:0] S_IDLE = 3'd0, S_CALC = 3'd1, S_COLLECT = 3'd2, S_LEN = 3'd3, S_HDR = 3'd4, S_SEND = 3'd5,
                 S_B = 3'd6;
reg [2:0] state = S_IDLE;

reg [AXI_ID_W-1:0] w_id = {AXI_ID_W{1'b0}};
reg [63:0]         w_addr = 64'd0;       // first byte of the current piece
reg [12:0]         w_max = 13'd0;        // bytes from w_addr to the MPS boundary
reg [BW-1:0]       w_beat = 0;           // beats collected in this piece
reg [BW-1:0]       w_nbeats = 0;         // beats this piece may take
reg [12:0]         w_len = 13'd0;        // bytes in the piece
reg                w_final = 1'b0;       // the piece holds wlast
reg                w_err = 1'b0;
reg [BYTES-1:0]    l_strb = {BYTES{1'b0}};   // strobes of the burst's last beat
reg [BW-1:0]       l_beat = 0;               // its beat number in the piece
reg [LL-1:0]       w_k = {LL{1'b0}};     // (4 - a0) mod LANES: rotation from address lane to TLP lane
reg [1:0]          w_kw = 2'd0;          // (4 - a0 + LANES) / LANES: word bias

// MPS
reg [12:0] mps;
always @(*) begin
    mps = 13'd128 << cfg_max_payload;
    if (cfg_max_payload > 3'd5 || mps > MAX_WR_BYTES) mps = MAX_WR_BYTES;
end

// end of the burst's last beat's strobes (registered first: they come straight from the core). With
// contiguous strobes exactly one byte ends the run (strobe set, next one clear): a one-hot vector,
// encoded by ORs (a priority encoder over 64 strobes was 9 LUT levels).
wire [BYTES-1:0] run_end = l_strb & ~{1'b0, l_strb[BYTES-1:1]};
reg  [BL:0] top;
integer i;
always @(*) begin
    top = {(BL+1){1'b0}};
    for (i = 0; i < BYTES; i = i + 1)
        top = top | ({(BL+1){run_end[i]}} & (i[BL:0] + 1'b1));
end

wire [LL-1:0] a0 = w_addr[BL-1:2];
localparam integer K_BASE = 4 + LANES;
wire [LL+1:0] k_full = K_BASE[LL+1:0] - {2'b00, a0};

assign s_axi_awready = (state == S_IDLE);
assign s_axi_wready  = (state == S_COLLECT);

// collect buffer: lane RAMs, each lane written at its own word address
wire [BW-1:0] rd_word;
wire [DATA_W-1:0] buf_q;
genvar l;
generate
    for (l = 0; l < LANES; l = l + 1) begin : g_lane
        reg [31:0] ram [0:(1 << BW)-1];
        integer j;
        initial for (j = 0; j < (1 << BW); j = j + 1) ram[j] = 32'd0;
        // source address lane of this TLP lane, and whether it came across a word boundary
        wire [LL-1:0] src = l[LL-1:0] - w_k;
        /* verilator lint_off UNUSEDSIGNAL */
        wire [LL+1:0] sum = {2'b00, src} + k_full;           // src + 4 - a0 + LANES
        wire [BW+1:0] word = {2'b00, w_beat} + {{BW{1'b0}}, sum[LL+1:LL]} - 1'b1;
        /* verilator lint_on UNUSEDSIGNAL */
        wire we = (state == S_COLLECT) && s_axi_wvalid && !(w_beat == 0 && src < a0);
        always @(posedge clk)
            if (we) ram[word[BW-1:0]] <= s_axi_wdata[src*32 +: 32];
        assign buf_q[l*32 +: 32] = ram[rd_word];
    end
endgenerate

/* verilator lint_off UNUSEDSIGNAL */
wire [12:0] nb_calc = ((({{(13-BL){1'b0}}, w_addr[BL-1:0]} + mps - ({1'b0, w_addr[11:0]} & (mps - 13'd1)) - 13'd1) >> BL) + 13'd1);
/* verilator lint_on UNUSEDSIGNAL */

// TLP fields of the piece
/* verilator lint_off UNUSEDSIGNAL */
wire [63:0] p_end    = w_addr + {51'd0, w_len};
wire [12:0] p_dw_end = {11'd0, w_addr[1:0]} + w_len + 13'd3;
/* verilator lint_on UNUSEDSIGNAL */
wire [10:0] p_dwords = p_dw_end[12:2];
wire [3:0]  fbe_raw  = 4'b1111 << w_addr[1:0];
wire [1:0]  end_m1   = p_end[1:0] - 2'd1;
wire [3:0]  lbe_raw  = 4'b1111 >> (2'd3 - end_m1);
wire [3:0]  p_fbe    = (p_dwords == 11'd1) ? (fbe_raw & lbe_raw) : fbe_raw;
wire [3:0]  p_lbe    = (p_dwords == 11'd1) ? 4'b0000 : lbe_raw;
wire [12:0] p_tot    = {2'b00, p_dwords} + 13'd4;              // dwords on the wire
localparam integer LANES_M1 = LANES - 1;
wire [12:0] p_beats  = (p_tot + LANES_M1[12:0]) >> LL;

reg [127:0]        o_desc = 128'd0;
reg [3:0]          o_fbe = 4'd0, o_lbe = 4'd0;
reg [12:0]         o_beats = 13'd0;
reg [LL-1:0]       o_lastlane = {LL{1'b0}};
reg [12:0]         o_beat = 13'd0;
reg                o_valid = 1'b0;
reg [DATA_W-1:0]   o_data = {DATA_W{1'b0}};
reg [KEEP_W-1:0]   o_keep = {KEEP_W{1'b0}};
reg                o_last = 1'b0;
reg                o_sop = 1'b0;
reg [3:0]          o_eop_ptr = 4'd0;

assign rd_word = o_beat[BW-1:0];

wire o_take = !o_valid || m_axis_rq_tready;

always @(posedge clk) begin
    if (o_valid && m_axis_rq_tready) o_valid <= 1'b0;

    case (state)
        S_IDLE: begin
            if (s_axi_awvalid) begin
                w_id    <= s_axi_awid;
                w_addr  <= s_axi_awaddr;
                w_err   <= !cfg_bus_master_en;
                state   <= S_CALC;
            end
        end
        S_CALC: begin
            w_max    <= mps - ({1'b0, w_addr[11:0]} & (mps - 13'd1));
            w_nbeats <= nb_calc[BW-1:0];
            w_k      <= k_full[LL-1:0];
            w_kw     <= k_full[LL+1:LL];
            w_beat   <= 0;
            state    <= S_COLLECT;
        end
        S_COLLECT: begin
            if (s_axi_wvalid) begin
                w_beat <= w_beat + 1'b1;
                if (s_axi_wlast) begin
                    // piece ends at the last strobe of this beat (length worked out in S_LEN)
                    l_strb  <= s_axi_wstrb;
                    l_beat  <= w_beat;
                    w_final <= 1'b1;
                    state   <= S_LEN;
                end else if (w_beat == w_nbeats - 1'b1) begin
                    w_len   <= w_max;
                    w_final <= 1'b0;
                    state   <= S_HDR;
                end
            end
        end
        S_LEN: begin
            w_len <= ({{(13-BW){1'b0}}, l_beat} << BL) + {{(12-BL){1'b0}}, top} - {{(13-BL){1'b0}}, w_addr[BL-1:0]};
            state <= S_HDR;
        end
        S_HDR: begin
            o_desc <= {1'b0, 3'b000, 3'b000, 1'b0, 16'd0, 8'd0, 16'd0, 1'b0, 4'b0001, p_dwords, w_addr[63:2], 2'b00};
            o_fbe <= p_fbe;
            o_lbe <= p_lbe;
            o_beats <= p_beats;
            o_lastlane <= p_tot[LL-1:0] - 1'b1;
            o_beat <= 13'd0;
            state <= w_err ? (w_final ? S_B : S_CALC) : S_SEND;
            if (w_err && !w_final) w_addr <= w_addr + {51'd0, w_len};
        end
        S_SEND: begin
            if (o_take) begin
                o_valid <= 1'b1;
                o_data  <= buf_q;
                if (o_beat == 13'd0) o_data[127:0] <= o_desc;
                o_sop   <= (o_beat == 13'd0);
                o_last  <= (o_beat == o_beats - 1'b1);
                o_keep  <= {KEEP_W{1'b1}};
                o_eop_ptr <= 4'd0;
                if (o_beat == o_beats - 1'b1) begin
                    o_keep <= {KEEP_W{1'b1}} >> (~o_lastlane);
                    o_eop_ptr <= {{(4-LL){1'b0}}, o_lastlane};
                    if (w_final) begin
                        state <= S_B;
                    end else begin
                        w_addr <= w_addr + {51'd0, w_len};
                        state <= S_CALC;
                    end
                end
                o_beat <= o_beat + 1'b1;
            end
        end
        S_B: begin
            // B after the last TLP has been taken by RQ
            if (s_axi_bready && !o_valid) state <= S_IDLE;
        end
        default: state <= S_IDLE;
    endcase

    if (rst) begin
        state <= S_IDLE;
        o_valid <= 1'b0;
    end
end

assign s_axi_bvalid = (state == S_B) && !o_valid;
assign s_axi_bresp  = w_err ? 2'b10 : 2'b00;
assign s_axi_bid    = w_id;

assign m_axis_rq_tdata  = o_data;
assign m_axis_rq_tkeep  = o_keep;
assign m_axis_rq_tvalid = o_valid;
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

assign busy = (state != S_IDLE) || o_valid;

// the word bias is folded into `sum`; keep the register for reference in waveforms
wire unused_ok = &{1'b0, w_kw, s_axi_awlen};

endmodule

`resetall
