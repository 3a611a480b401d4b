// tsnic_pcie_us_rd: AXI4 read slave (the core's host-memory reads) to PCIe memory read requests on
// the hard block's RQ interface, and completions from RC back to AXI R, in order.
//
// Split: an AR burst covers bytes [araddr, end of beat arlen]. It becomes requests that end at
// multiples of the read request size MRRS = min(128 << cfg_max_read_req, MAX_RD_BYTES), so none
// crosses a 4 KiB boundary and every request after the first starts bus-word aligned. Whole dwords
// are read (first/last BE 0xF).
// Tags: TAGS tags used as a ring in issue order; a tag is free again when its data has left on R,
// so completions are returned in request order whatever order they arrive in.
// Reassembly: every tag owns a slot of MAX_RD_BYTES in a completion RAM made of one 32-bit RAM per
// dword lane (tsnic_ram_sdp), so a completion's dwords, rotated from the RC stream's dword alignment
// to their address lanes, are written in one cycle per beat (each lane at its own word address).
// Completion credits: the hard block advertises infinite completion credits to the link and holds
// received completions in a buffer of CPLH_LIMIT headers and CPLD_LIMIT 16-byte data credits; a
// completion arriving to a full buffer is dropped (PG213/PG156 appendix "Managing Receive-Buffer Space
// for Inbound Completions"). So a request goes out only while the worst case of all requests in
// flight fits (the guides' PACKET_FC method): ceil((addr mod 64 + bytes) / 64) headers (one per
// 64-byte read completion boundary the request touches, the smallest RCB) and ceil((addr mod 16 +
// bytes) / 16) data credits are taken at issue and given back when the request's last completion
// has passed RC. CPLH_LIMIT must be at least MAX_RD_BYTES / 64 + 1 and CPLD_LIMIT at least
// MAX_RD_BYTES / 16 + 1 (one unaligned request of the largest size), else reads stall forever.
// Errors: a completion with an error code (poisoned, bad status UR/CA/CRS, completion timeout 1001,
// mismatch, ...) marks its request failed: its R beats carry SLVERR. With bus master enable off no
// request is sent: bursts accepted then are answered with SLVERR at once.
// Assumes arburst INCR and arsize = bus width (the core's readers do both).
`resetall
`timescale 1ns / 1ps
`default_nettype none

module tsnic_pcie_us_rd #(
    parameter DATA_W       = 512,
    parameter KEEP_W       = DATA_W / 32,
    parameter RQ_USER_W    = 137,
    parameter RC_USER_W    = 161,
    parameter US_PLUS_512  = 1,
    parameter AXI_ID_W     = 8,
    parameter TAG_W        = 5,         // 2^TAG_W tags outstanding (5 without extended tags)
    parameter MAX_RD_BYTES = 512,       // largest read request used (power of two, 128..4096)
    parameter CPLH_LIMIT   = US_PLUS_512 ? 128 : 64,     // completion headers the block's buffer holds
    parameter CPLD_LIMIT   = US_PLUS_512 ? 1920 : 960    // completion data credits (16 bytes) it holds
) (
    input  wire                 clk,
    input  wire                 rst,

    input  wire [AXI_ID_W-1:0]  s_axi_arid,
    input  wire [63:0]          s_axi_araddr,
    input  wire [7:0]           s_axi_arlen,
    input  wire                 s_axi_arvalid,
    output wire                 s_axi_arready,
    output wire [AXI_ID_W-1:0]  s_axi_rid,
    output wire [DATA_W-1:0]    s_axi_rdata,
    output wire [1:0]           s_axi_rresp,
    output wire                 s_axi_rlast,
    output wire                 s_axi_rvalid,
    input  wire                 s_axi_rready,

    output wire [DATA_W-1:0]    m_axis_rq_tdata,
    output wire [KEEP_W-1:0]    m_axis_rq_tkeep,
    output wire                 m_axis_rq_tvalid,
    input  wire                 m_axis_rq_tready,
    output wire                 m_axis_rq_tlast,
    output wire [RQ_USER_W-1:0] m_axis_rq_tuser,

    input  wire [DATA_W-1:0]    s_axis_rc_tdata,
    input  wire [KEEP_W-1:0]    s_axis_rc_tkeep,
    input  wire                 s_axis_rc_tvalid,
    output wire                 s_axis_rc_tready,
    input  wire                 s_axis_rc_tlast,
    /* verilator lint_off UNUSEDSIGNAL */
    input  wire [RC_USER_W-1:0] s_axis_rc_tuser,
    /* verilator lint_on UNUSEDSIGNAL */

    input  wire [2:0]           cfg_max_read_req,
    input  wire                 cfg_bus_master_en,

    output reg                  stat_err,      // pulse: a completion with an error
    output wire                 busy           // requests outstanding
);

localparam BYTES      = DATA_W / 8;
localparam BL         = $clog2(BYTES);         // byte offset bits in a bus word
localparam integer BYTES_M1 = BYTES - 1;
localparam LANES      = KEEP_W;                // dwords per bus word
localparam LL         = $clog2(LANES);
localparam TAGS       = 1 << TAG_W;
localparam SLOT_WORDS = MAX_RD_BYTES / BYTES;
localparam SW         = (SLOT_WORDS > 1) ? $clog2(SLOT_WORDS) : 1;
localparam RAM_AW     = TAG_W + SW;
localparam CH_W       = ($clog2(CPLH_LIMIT + 1) > 8) ? $clog2(CPLH_LIMIT + 1) : 8;   // > need_h's 7 bits
localparam CD_W       = ($clog2(CPLD_LIMIT + 1) > 10) ? $clog2(CPLD_LIMIT + 1) : 10; // > need_d's 9 bits

// ---------------------------------------------------------------------------------------------
// request generator
reg [63:0]         g_addr = 64'd0;
reg [16:0]         g_rem = 17'd0;       // bytes left in the burst
reg [AXI_ID_W-1:0] g_id = {AXI_ID_W{1'b0}};
reg                g_active = 1'b0;
reg                g_calc = 1'b0;       // chunk registers valid
reg [12:0]         g_chunk = 13'd0;
reg                g_last = 1'b0;
reg [TAG_W:0]      req_ptr = 0;
reg [TAG_W:0]      ret_ptr = 0;

reg                rq_valid = 1'b0;
reg [127:0]        rq_desc = 128'd0;
reg [10:0]         rq_dwords = 11'd0;

// per-tag metadata (written at issue)
reg [AXI_ID_W-1:0] meta_id    [0:TAGS-1];
reg [SW:0]         meta_words [0:TAGS-1];
reg                meta_last  [0:TAGS-1];
reg [11:BL]        meta_base  [0:TAGS-1];   // bus word of the request's first byte, within 4 KiB
reg [6:0]          meta_cplh  [0:TAGS-1];   // completion credits the request holds (0 if not sent)
reg [8:0]          meta_cpld  [0:TAGS-1];
reg [TAGS-1:0]     t_done = {TAGS{1'b0}};
reg [TAGS-1:0]     t_err  = {TAGS{1'b0}};
reg [TAGS-1:0]     t_cred = {TAGS{1'b0}};   // the tag's request holds completion credits

integer i;
initial begin
    stat_err = 1'b0;
    for (i = 0; i < TAGS; i = i + 1) begin
        meta_id[i] = {AXI_ID_W{1'b0}};
        meta_words[i] = {(SW+1){1'b0}};
        meta_last[i] = 1'b0;
        meta_base[i] = {(12-BL){1'b0}};
        meta_cplh[i] = 7'd0;
        meta_cpld[i] = 9'd0;
    end
end

// read request size (registered: cfg_max_read_req is static while reads run)
reg [12:0] mrrs_c;
reg [12:0] mrrs = 13'd128;
reg [12:0] mrrs_m1 = 13'd127;
always @* begin
    mrrs_c = 13'd128 << cfg_max_read_req;
    if (cfg_max_read_req > 3'd5 || mrrs_c > MAX_RD_BYTES) mrrs_c = MAX_RD_BYTES;
end
always @(posedge clk) begin
    mrrs <= mrrs_c;
    mrrs_m1 <= mrrs_c - 13'd1;
end
wire [12:0] to_bound = mrrs - ({1'b0, g_addr[11:0]} & mrrs_m1);
wire        to_rem   = g_rem < {4'd0, to_bound};      // the burst ends before the MRRS boundary
wire [12:0] chunk_n  = to_rem ? g_rem[12:0] : to_bound;

wire [TAG_W-1:0] g_tag     = req_ptr[TAG_W-1:0];
wire             tag_free  = (req_ptr - ret_ptr) != TAGS[TAG_W:0];
// completion credits: free counts, and what the request in g_chunk needs in the worst case
// (registered with g_chunk in the calc cycle, from the same chunk_n)
reg  [CH_W-1:0]  cplh_free = CPLH_LIMIT[CH_W-1:0];
reg  [CD_W-1:0]  cpld_free = CPLD_LIMIT[CD_W-1:0];
reg  [6:0]       need_h = 7'd0;
reg  [8:0]       need_d = 9'd0;
// ceil((addr mod 64 + chunk) / 64) and ceil((addr mod 16 + chunk) / 16), both ways the chunk may end
// (at the burst's end, or at the MRRS boundary: then mrrs/64 - (addr mod mrrs) div 64), selected
// like chunk_n, so that no adder follows its compare
/* verilator lint_off UNUSEDSIGNAL */
wire [17:0]      h_rem     = {12'd0, g_addr[5:0]} + {1'b0, g_rem} + 18'd63;
wire [17:0]      d_rem     = {14'd0, g_addr[3:0]} + {1'b0, g_rem} + 18'd15;
/* verilator lint_on UNUSEDSIGNAL */
wire [6:0]       h_bound   = mrrs[12:6] - ({1'b0, g_addr[11:6]} & mrrs_m1[12:6]);
wire [8:0]       d_bound   = mrrs[12:4] - ({1'b0, g_addr[11:4]} & mrrs_m1[12:4]);
wire [CH_W-1:0]  need_hx   = {{(CH_W-7){1'b0}}, need_h};
wire [CD_W-1:0]  need_dx   = {{(CD_W-9){1'b0}}, need_d};
wire             credit_ok = (need_hx <= cplh_free) && (need_dx <= cpld_free);
wire             can_issue = g_active && g_calc && tag_free && (!rq_valid || m_axis_rq_tready)
                          && (credit_ok || !cfg_bus_master_en);
/* verilator lint_off UNUSEDSIGNAL */
wire [13:0]      end_off   = {{(14-BL){1'b0}}, g_addr[BL-1:0]} + {1'b0, g_chunk} + BYTES_M1[13:0];
wire [13:0]      g_words   = end_off >> BL;
wire [13:0]      dw_end    = {12'd0, g_addr[1:0]} + {1'b0, g_chunk} + 14'd3;
/* verilator lint_on UNUSEDSIGNAL */

assign s_axi_arready = !g_active;

always @(posedge clk) begin
    if (rq_valid && m_axis_rq_tready) rq_valid <= 1'b0;

    if (s_axi_arvalid && s_axi_arready) begin
        g_active <= 1'b1;
        g_calc   <= 1'b0;
        g_addr   <= s_axi_araddr;
        g_id     <= s_axi_arid;
        g_rem    <= (({9'd0, s_axi_arlen} + 17'd1) << BL) - {{(17-BL){1'b0}}, s_axi_araddr[BL-1:0]};
    end else if (g_active && !g_calc) begin
        g_chunk <= chunk_n;
        g_last  <= (g_rem == {4'd0, chunk_n});
        need_h  <= to_rem ? h_rem[12:6] : h_bound;
        need_d  <= to_rem ? d_rem[12:4] : d_bound;
        g_calc  <= 1'b1;
    end else if (can_issue) begin
        meta_id[g_tag]    <= g_id;
        meta_words[g_tag] <= g_words[SW:0];
        meta_last[g_tag]  <= g_last;
        meta_base[g_tag]  <= g_addr[11:BL];
        meta_cplh[g_tag]  <= cfg_bus_master_en ? need_h : 7'd0;
        meta_cpld[g_tag]  <= cfg_bus_master_en ? need_d : 9'd0;
        req_ptr <= req_ptr + 1'b1;
        if (cfg_bus_master_en) begin
            rq_valid <= 1'b1;
            rq_dwords <= dw_end[12:2];
            rq_desc <= {1'b0, 3'b000, 3'b000, 1'b0, 16'd0, {(8-TAG_W){1'b0}}, g_tag, 16'd0, 1'b0, 4'b0000,
                        dw_end[12:2], g_addr[63:2], 2'b00};
        end
        g_addr <= g_addr + {51'd0, g_chunk};
        g_rem  <= g_rem - {4'd0, g_chunk};
        g_calc <= 1'b0;
        if (g_last) g_active <= 1'b0;
    end

    if (rst) begin
        g_active <= 1'b0;
        g_calc <= 1'b0;
        rq_valid <= 1'b0;
        req_ptr <= 0;
    end
end

assign m_axis_rq_tdata  = {{(DATA_W-128){1'b0}}, rq_desc};
assign m_axis_rq_tkeep  = {{(KEEP_W-4){1'b0}}, 4'b1111};
assign m_axis_rq_tvalid = rq_valid;
assign m_axis_rq_tlast  = 1'b1;
wire [3:0] rq_last_be = (rq_dwords == 11'd1) ? 4'b0000 : 4'b1111;
generate
    if (US_PLUS_512) begin : g_rq_user_512
        // first_be[7:0], last_be[15:8], addr_offset[19:16], is_sop[21:20], is_sop0_ptr[23:22],
        // is_sop1_ptr[25:24], is_eop[27:26], is_eop0_ptr[31:28]
        assign m_axis_rq_tuser = {{(RQ_USER_W-32){1'b0}}, 4'd3, 2'b01, 2'b00, 2'b00, 2'b01, 4'd0,
                                  4'd0, rq_last_be, 4'd0, 4'b1111};
    end else begin : g_rq_user_256
        assign m_axis_rq_tuser = {{(RQ_USER_W-8){1'b0}}, rq_last_be, 4'b1111};
    end
endgenerate

// ---------------------------------------------------------------------------------------------
// completions: stage 1 registers the RC beat, stage 2 rotates it into the completion RAM
assign s_axis_rc_tready = 1'b1;

reg              c1_valid = 1'b0;
reg              c1_sop = 1'b0;
reg [DATA_W-1:0] c1_data = {DATA_W{1'b0}};
reg [KEEP_W-1:0] c1_keep = {KEEP_W{1'b0}};
reg              c1_last = 1'b0;
reg              rc_in_pkt = 1'b0;

always @(posedge clk) begin
    c1_valid <= s_axis_rc_tvalid;
    if (s_axis_rc_tvalid) begin
        c1_data <= s_axis_rc_tdata;
        c1_keep <= s_axis_rc_tkeep;
        c1_last <= s_axis_rc_tlast;
        c1_sop  <= !rc_in_pkt;
        rc_in_pkt <= !s_axis_rc_tlast;
    end
    if (rst) begin
        c1_valid <= 1'b0;
        rc_in_pkt <= 1'b0;
    end
end

// descriptor of the beat in stage 1 (valid when c1_sop)
/* verilator lint_off UNUSEDSIGNAL */
wire [11:0]      d_lower  = c1_data[11:0];
wire [3:0]       d_errc   = c1_data[15:12];
wire             d_done   = c1_data[30];
wire [2:0]       d_status = c1_data[45:43];
wire             d_pois   = c1_data[46];
wire [TAG_W-1:0] d_tag    = c1_data[64 +: TAG_W];
wire             d_bad    = (d_errc != 4'd0) || (d_status != 3'd0) || d_pois;
// dword offset of the first payload dword from the request's first bus word, plus LANES - 3 so
// that it is never negative (the payload starts at dword 3 of the first beat)
wire [11:0]      d_a0     = {d_lower[11:2], 2'b00} - {meta_base[d_tag], {BL{1'b0}}};
wire [12:0]      d_s      = {3'd0, d_a0[11:2]} + LANES[12:0] - 13'd3;
/* verilator lint_on UNUSEDSIGNAL */

// stage 2 parameters
reg              c2_valid = 1'b0;
reg [DATA_W-1:0] c2_data = {DATA_W{1'b0}};
reg [KEEP_W-1:0] c2_keep = {KEEP_W{1'b0}};
reg              c2_sop = 1'b0;
reg              c2_last = 1'b0;
reg [TAG_W-1:0]  p_tag = {TAG_W{1'b0}};
reg [LL-1:0]     p_rot = {LL{1'b0}};       // lane offset
reg [SW+1:0]     p_word = 0;               // biased word counter (word = p_word - 1 + wrap)
reg              p_bad = 1'b0;
reg              p_done = 1'b0;

always @(posedge clk) begin
    c2_valid <= c1_valid;
    if (c1_valid) begin
        c2_data <= c1_data;
        c2_keep <= c1_keep;
        c2_sop  <= c1_sop;
        c2_last <= c1_last;
        if (c1_sop) begin
            p_tag  <= d_tag;
            p_rot  <= d_s[LL-1:0];
            p_word <= d_s[LL+SW+1:LL];
            p_bad  <= d_bad;
            p_done <= d_done;
        end else begin
            p_word <= p_word + 1'b1;
        end
    end
    if (rst) c2_valid <= 1'b0;
end

// completion RAM: LANES RAMs of 32 bits x TAGS*SLOT_WORDS (tsnic_ram_sdp), lane l written at its own
// address; read with one register (rd_ram_q valid the cycle after the address)
wire [RAM_AW-1:0] rd_ram_addr;
wire [DATA_W-1:0] rd_ram_q;

genvar l;
generate
    for (l = 0; l < LANES; l = l + 1) begin : g_lane
        // source dword of this lane in the beat: (l - rot) mod LANES; it lands one word further
        // when l < rot (wrapped)
        /* verilator lint_off CMPCONST */
        /* verilator lint_off UNUSEDSIGNAL */
        wire [LL-1:0] src  = l[LL-1:0] - p_rot;
        wire          wrap = (l[LL-1:0] < p_rot);
        wire [SW+1:0] widx = p_word - 1'b1 + {{(SW+1){1'b0}}, wrap};
        /* verilator lint_on UNUSEDSIGNAL */
        /* verilator lint_on CMPCONST */
        wire          we   = c2_valid && !p_bad && c2_keep[src] && !(c2_sop && src < 3);
        tsnic_ram_sdp #(.WIDTH(32), .ADDR_W(RAM_AW), .BE_W(1), .OUT_REG(0)) cpl_ram_inst (
            .clk(clk),
            .wr_en(we), .wr_addr({p_tag, widx[SW-1:0]}), .wr_data(c2_data[src*32 +: 32]),
            .rd_en(1'b1), .rd_addr(rd_ram_addr), .rd_data(rd_ram_q[l*32 +: 32]));
    end
endgenerate

// ---------------------------------------------------------------------------------------------
// readout in tag order: the RAM address comes from registers, the data is in rd_ram_q next cycle
// (r1), and enters the output FIFO (tsnic_fifo, 4 words + its output register) the cycle after. A
// read is issued only while fewer than 4 words are between issue and R (r_held, a register).
wire [TAG_W-1:0]   r_tag = ret_ptr[TAG_W-1:0];
reg  [SW:0]        r_word = 0;
reg                r1_valid = 1'b0;
reg                r1_last = 1'b0;
reg                r1_err = 1'b0;
reg [AXI_ID_W-1:0] r1_id = {AXI_ID_W{1'b0}};
reg  [2:0]         r_held = 3'd0;      // words issued and not yet taken on R

assign rd_ram_addr = {r_tag, r_word[SW-1:0]};

wire r_ready = (ret_ptr != req_ptr) && t_done[r_tag];
wire r_issue = r_ready && !r_held[2];
wire r_end   = r_issue && (r_word == meta_words[r_tag] - 1'b1);

/* verilator lint_off PINCONNECTEMPTY */
tsnic_fifo #(.WIDTH(DATA_W + 2 + 1 + AXI_ID_W), .ADDR_W(2)) r_fifo_inst (
    .clk(clk), .rst(rst),
    .s_valid(r1_valid), .s_ready(), .s_data({rd_ram_q, r1_err ? 2'b10 : 2'b00, r1_last, r1_id}),
    .m_valid(s_axi_rvalid), .m_ready(s_axi_rready),
    .m_data({s_axi_rdata, s_axi_rresp, s_axi_rlast, s_axi_rid}), .count());
/* verilator lint_on PINCONNECTEMPTY */

always @(posedge clk) begin
    r1_valid <= r_issue;
    if (r_issue) begin
        r1_last <= r_end && meta_last[r_tag];
        r1_err  <= t_err[r_tag];
        r1_id   <= meta_id[r_tag];
        r_word  <= r_end ? 0 : r_word + 1'b1;
        if (r_end) ret_ptr <= ret_ptr + 1'b1;
    end
    case ({r_issue, s_axi_rvalid && s_axi_rready})
        2'b10: r_held <= r_held + 3'd1;
        2'b01: r_held <= r_held - 3'd1;
        default: ;
    endcase
    if (rst) begin
        r_held <= 3'd0;
        r1_valid <= 1'b0;
        r_word <= 0;
        ret_ptr <= 0;
    end
end

// per-tag state: done (all completions in, or failed), err (R beats carry SLVERR); each bit decodes
// its own tag compares (an indexed write became a shifter with a carry chain in front)
integer t;
always @(posedge clk) begin
    stat_err <= 1'b0;
    if (c2_valid && c2_sop && p_bad) stat_err <= 1'b1;
    for (t = 0; t < TAGS; t = t + 1) begin
        if (c2_valid && p_bad && p_tag == t[TAG_W-1:0]) t_err[t] <= 1'b1;
        if (c2_valid && c2_last && p_done && p_tag == t[TAG_W-1:0]) t_done[t] <= 1'b1;
        if (r_end && r_tag == t[TAG_W-1:0]) t_done[t] <= 1'b0;
        if (c2_valid && c2_last && p_done && p_tag == t[TAG_W-1:0]) t_cred[t] <= 1'b0;
        if (can_issue && g_tag == t[TAG_W-1:0]) begin
            t_err[t]  <= !cfg_bus_master_en;
            t_done[t] <= !cfg_bus_master_en;
            t_cred[t] <= cfg_bus_master_en;
        end
    end
    if (rst) begin
        t_done <= {TAGS{1'b0}};
        t_err <= {TAGS{1'b0}};
        t_cred <= {TAGS{1'b0}};
        stat_err <= 1'b0;
    end
end

// credits: taken at issue (a request actually sent; subtracted the cycle after, which is a calc
// cycle: requests are at least two cycles apart), given back when the request's last completion
// (request completed, or the block's error report that ends it) leaves stage 2
reg        cr_take = 1'b0;
reg [6:0]  take_h = 7'd0;
reg [8:0]  take_d = 9'd0;
// (only a tag that holds credits gives them back: a completion of a request sent before a reset
// does not inflate the free counts)
wire       cr_give = c2_valid && c2_last && p_done && t_cred[p_tag];
wire [6:0] give_h  = meta_cplh[p_tag];
wire [8:0] give_d  = meta_cpld[p_tag];
always @(posedge clk) begin
    cr_take <= can_issue && cfg_bus_master_en;
    take_h <= need_h;
    take_d <= need_d;
    cplh_free <= cplh_free - (cr_take ? {{(CH_W-7){1'b0}}, take_h} : {CH_W{1'b0}})
                           + (cr_give ? {{(CH_W-7){1'b0}}, give_h} : {CH_W{1'b0}});
    cpld_free <= cpld_free - (cr_take ? {{(CD_W-9){1'b0}}, take_d} : {CD_W{1'b0}})
                           + (cr_give ? {{(CD_W-9){1'b0}}, give_d} : {CD_W{1'b0}});
    if (rst) begin
        cr_take <= 1'b0;
        cplh_free <= CPLH_LIMIT[CH_W-1:0];
        cpld_free <= CPLD_LIMIT[CD_W-1:0];
    end
end

assign busy = g_active || (req_ptr != ret_ptr);

endmodule

`resetall
