// tsnic_cpl_write: the completion writer.
//
// - N_SRC completion request ports (docs/DATAPATH.md "Completion request"), packed into vectors,
//   served round robin. A request is accepted only when the host completion ring has a free record,
//   so nothing is ever dropped or overwritten: a full ring holds `ready` low (backpressure).
// - Each accepted request becomes one 32-byte record (contract layout, phase bit in the last dword)
//   for ring slot (prod mod size), at CPL_BASE + slot * 32.
// - Coalescing: records for consecutive slots go out as one AXI4 write burst (one PCIe write TLP),
//   up to 2^MAX_BURST_LOG2 records, never across the ring's wrap or a (32 << MAX_BURST_LOG2)-byte
//   boundary of the address (so never across 4 KiB, and a burst of 256 bytes never spans two TLPs at
//   MPS 256). Opportunistic: a record accepted while the write channel is free goes out alone at once
//   (the same timing as one burst per record); records accepted while a burst is being issued, or
//   while 2^OUT_LOG2 + 1 bursts wait for their B, wait in a buffer of 2^BUF_LOG2 records and leave
//   together in the next burst. So bursts grow only when the write path pushes back.
// - All writes use one ID, so their B responses return in order. On a burst's B response (its records
//   are in host memory) its records are retired one per cycle, in order: CPL_PROD advances, the
//   descriptor-table handle is freed (m_free_*), the per-queue counter of that status is incremented,
//   and a one-cycle event (evt_cpl_*) feeds the global counters and the interrupt moderator.
// - Register blocks owned: CPL (BASE_LO/HI, SIZE_LOG2, CTRL, PROD, CONS) and, in each Q block,
//   CNT_SENT..CNT_DMA_ERROR (per-queue 32-bit counters in one block RAM, 8 words per queue).
`resetall
`timescale 1ns / 1ps
`default_nettype none
`include "tsnic_contract.vh"

module tsnic_cpl_write #(
    parameter ADDR_W        = 20,
    parameter NUM_QUEUES    = 8,
    parameter QUEUE_W       = (NUM_QUEUES > 1) ? $clog2(NUM_QUEUES) : 1,
    parameter NODE_W        = 10,
    parameter N_SRC         = 3,
    parameter RING_LOG2_MAX = 16,
    parameter AXI_DATA_W    = 64,
    parameter AXI_ID_W      = 8,
    parameter [AXI_ID_W-1:0] AXI_WR_ID = {AXI_ID_W{1'b0}},
    parameter OUT_LOG2      = 3,     // bursts waiting for B: up to 2^OUT_LOG2 + 1
    parameter MAX_BURST_LOG2 = 3     // records per burst: up to 2^MAX_BURST_LOG2 (0: one per burst)
) (
    input  wire                        clk,
    input  wire                        rst,

    // register interface
    input  wire [ADDR_W-1:0]           reg_wr_addr,
    input  wire [31:0]                 reg_wr_data,
    input  wire [3:0]                  reg_wr_strb,
    input  wire                        reg_wr_en,
    output wire                        reg_wr_wait,
    output wire                        reg_wr_ack,
    input  wire [ADDR_W-1:0]           reg_rd_addr,
    input  wire                        reg_rd_en,
    output wire [31:0]                 reg_rd_data,
    output wire                        reg_rd_wait,
    output wire                        reg_rd_ack,

    // completion requests, source i in bits [i*W +: W]
    input  wire [N_SRC-1:0]            s_cpl_req_valid,
    output wire [N_SRC-1:0]            s_cpl_req_ready,
    input  wire [N_SRC*QUEUE_W-1:0]    s_cpl_req_queue,
    input  wire [N_SRC*16-1:0]         s_cpl_req_ring_index,
    input  wire [N_SRC*32-1:0]         s_cpl_req_cookie,
    input  wire [N_SRC*64-1:0]         s_cpl_req_launch_ns,
    input  wire [N_SRC*64-1:0]         s_cpl_req_depart_ns,
    input  wire [N_SRC*16-1:0]         s_cpl_req_len,
    input  wire [N_SRC*8-1:0]          s_cpl_req_status,
    input  wire [N_SRC*8-1:0]          s_cpl_req_reason,
    input  wire [N_SRC-1:0]            s_cpl_req_capped,
    input  wire [N_SRC*NODE_W-1:0]     s_cpl_req_handle,
    input  wire [N_SRC-1:0]            s_cpl_req_handle_valid,

    // AXI4 write master (host completion ring)
    output wire [AXI_ID_W-1:0]         m_axi_awid,
    output wire [63:0]                 m_axi_awaddr,
    output wire [7:0]                  m_axi_awlen,
    output wire [2:0]                  m_axi_awsize,
    output wire [1:0]                  m_axi_awburst,
    output wire                        m_axi_awlock,
    output wire [3:0]                  m_axi_awcache,
    output wire [2:0]                  m_axi_awprot,
    output wire                        m_axi_awvalid,
    input  wire                        m_axi_awready,
    output wire [AXI_DATA_W-1:0]       m_axi_wdata,
    output wire [AXI_DATA_W/8-1:0]     m_axi_wstrb,
    output wire                        m_axi_wlast,
    output wire                        m_axi_wvalid,
    input  wire                        m_axi_wready,
    input  wire [AXI_ID_W-1:0]         m_axi_bid,
    input  wire [1:0]                  m_axi_bresp,
    input  wire                        m_axi_bvalid,
    output wire                        m_axi_bready,

    // descriptor-table handle free
    output wire                        m_free_valid,
    input  wire                        m_free_ready,
    output wire [NODE_W-1:0]           m_free_handle,

    // events (one cycle per completion made visible to the host)
    output wire                        evt_cpl_valid,
    output wire [7:0]                  evt_cpl_status,
    output wire [15:0]                 evt_cpl_len,
    output wire [QUEUE_W-1:0]          evt_cpl_queue,

    output wire                        ff_quiet   // no request, record, write or counter update under way
);

localparam SRC_W      = (N_SRC > 1) ? $clog2(N_SRC) : 1;
localparam BUS_BYTES  = AXI_DATA_W / 8;
localparam BUS_LOG2   = $clog2(BUS_BYTES);
localparam WIDE       = (AXI_DATA_W > 256);                        // two records per beat (512 bits)
localparam BEATS      = (AXI_DATA_W >= 256) ? 1 : 256 / AXI_DATA_W; // beats per record (narrow buses)
localparam BEAT_LOG2  = (BEATS > 1) ? $clog2(BEATS) : 0;
localparam BEAT_W     = (BEATS > 1) ? $clog2(BEATS) : 1;
localparam CNT_ADDR_W = QUEUE_W + 3;
localparam CNT_WORDS  = NUM_QUEUES * 8;
localparam MB         = 1 << MAX_BURST_LOG2;                       // records per burst, at most
localparam NB_W       = MAX_BURST_LOG2 + 1;                        // a burst's record count
localparam BUF_LOG2   = (MAX_BURST_LOG2 + 1 < 2) ? 2 : MAX_BURST_LOG2 + 1;
                                                                   // record buffer: two bursts
localparam [BUF_LOG2-1:0] KEY_STEP = WIDE ? 2 : 1;                 // keys of one beat (narrow: record)
localparam [NB_W:0] TWO = 2;
localparam MF_LOG2    = OUT_LOG2 + MAX_BURST_LOG2;                 // records between accept and retire
localparam AL_W       = MF_LOG2 + 2;                               // records acknowledged, not retired

generate
    if (AXI_DATA_W != 32 && AXI_DATA_W != 64 && AXI_DATA_W != 128 && AXI_DATA_W != 256 &&
        AXI_DATA_W != 512) begin : g_bad_width
        tsnic_param_error_AXI_DATA_W_must_be_32_64_128_256_or_512 param_error_inst ();
    end
    if (MAX_BURST_LOG2 < 0 || MAX_BURST_LOG2 > 7 || (MB * BEATS) > 256) begin : g_bad_burst
        // 2^7 records = 4 KiB; AXI4 bursts have at most 256 beats
        tsnic_param_error_MAX_BURST_LOG2_too_large param_error_inst ();
    end
    if (RING_LOG2_MAX > 16) begin : g_bad_ring
        tsnic_param_error_RING_LOG2_MAX_must_be_at_most_16 param_error_inst ();
    end
    if (OUT_LOG2 < 1) begin : g_bad_out
        tsnic_param_error_OUT_LOG2_must_be_at_least_1 param_error_inst ();
    end
endgenerate

// ---------------------------------------------------------------------------------------------
// CPL block registers
reg [63:0] base_reg = 64'd0;
reg [7:0]  size_log2_reg = 8'd0;
reg        enable_reg = 1'b0;
reg        en_wait_reg = 1'b0;       // enable written while records of the old ring were in flight
reg [31:0] prod_issue_reg = 32'd0;   // records accepted (next record's index)
reg [31:0] prod_done_reg = 32'd0;    // records written (B received): CPL_PROD
reg [31:0] cons_reg = 32'd0;

// The ring as the writer uses it: BASE and SIZE_LOG2 are taken while no record is between accept and
// retire, so records accepted before a reconfiguration still land where their slot was.
reg [63:0] l_base_reg = 64'd0;
reg [4:0]  l_log2_reg = 5'd0;
wire [4:0]  size_log2_eff = (size_log2_reg > RING_LOG2_MAX) ? RING_LOG2_MAX[4:0] : size_log2_reg[4:0];
wire [31:0] ring_size = 32'd1 << l_log2_reg;
wire [31:0] ring_mask = ring_size - 32'd1;
wire [31:0] ring_used = prod_issue_reg - cons_reg;
// whether the ring has a free record, registered (timing): worked out one cycle ahead both for "no
// record accepted" and for "one accepted" (prod_issue + 1), the right one picked by that cycle's
// accept. A CONS advance shows a cycle late (it only frees records); a fresh ring starts empty.
reg         space0_reg = 1'b0;   // ring_used < size
reg         space1_reg = 1'b0;   // ring_used + 1 < size
reg         acc_reg = 1'b0;
wire        ring_space = acc_reg ? space1_reg : space0_reg;

// ---------------------------------------------------------------------------------------------
// record metadata FIFO: {handle, handle_valid, queue, status, len} of every record from its accept to
// its retirement (needed after the B response). Its output word comes straight from a register; a
// record's B cannot come before the second cycle after its accept, when its word shows at the output.
localparam MF_W = NODE_W + 1 + QUEUE_W + 8 + 16;
wire              mf_s_ready;
wire              mf_m_valid;
wire [MF_W-1:0]   mf_m_data;
wire [MF_LOG2+1:0] mf_count;
wire [NODE_W-1:0]  mf_handle;
wire               mf_hvalid;
wire [QUEUE_W-1:0] mf_queue;
wire [7:0]         mf_status;
wire [15:0]        mf_len;
assign {mf_handle, mf_hvalid, mf_queue, mf_status, mf_len} = mf_m_data;
wire quiet_recs = (mf_count == 0);   // no record between accept and retirement

// ---------------------------------------------------------------------------------------------
// request arbitration (round robin after the last grant)
reg [SRC_W-1:0] last_reg = N_SRC - 1;
reg [SRC_W-1:0] grant_idx;
reg             grant_found;
integer k, idx;

always @* begin
    grant_found = 1'b0;
    grant_idx = {SRC_W{1'b0}};
    for (k = 1; k <= N_SRC; k = k + 1) begin
        idx = {{(32-SRC_W){1'b0}}, last_reg} + k;
        if (idx >= N_SRC) idx = idx - N_SRC;
        if (!grant_found && s_cpl_req_valid[idx]) begin
            grant_found = 1'b1;
            grant_idx = idx[SRC_W-1:0];
        end
    end
end

reg  init_done_reg = 1'b0;   // counter RAM cleared

// record buffer occupancy: records accepted whose burst has not finished its W beats
reg [BUF_LOG2:0] occ_reg = 0;
wire buf_room = !occ_reg[BUF_LOG2];
wire can_accept = init_done_reg && enable_reg && ring_space && buf_room && mf_s_ready;
wire accept = can_accept && grant_found;

assign s_cpl_req_ready = accept ? ({{(N_SRC-1){1'b0}}, 1'b1} << grant_idx) : {N_SRC{1'b0}};

// the granted request's fields and the record, formed only in a cycle that accepts one (they are
// used only then; a cycle-based simulator skips the selection in every other cycle)
reg [QUEUE_W-1:0] g_queue;
reg [15:0]        g_index;
reg [31:0]        g_cookie;
reg [63:0]        g_launch;
reg [63:0]        g_depart;
reg [15:0]        g_len;
reg [7:0]         g_status;
reg [7:0]         g_reason;
reg               g_capped;
reg [NODE_W-1:0]  g_handle;
reg               g_hvalid;
always @* begin
    g_queue = {QUEUE_W{1'b0}}; g_index = 16'd0; g_cookie = 32'd0; g_launch = 64'd0; g_depart = 64'd0;
    g_len = 16'd0; g_status = 8'd0; g_reason = 8'd0; g_capped = 1'b0; g_handle = {NODE_W{1'b0}};
    g_hvalid = 1'b0;
    if (accept) begin
        g_queue  = s_cpl_req_queue[grant_idx*QUEUE_W +: QUEUE_W];
        g_index  = s_cpl_req_ring_index[grant_idx*16 +: 16];
        g_cookie = s_cpl_req_cookie[grant_idx*32 +: 32];
        g_launch = s_cpl_req_launch_ns[grant_idx*64 +: 64];
        g_depart = s_cpl_req_depart_ns[grant_idx*64 +: 64];
        g_len    = s_cpl_req_len[grant_idx*16 +: 16];
        g_status = s_cpl_req_status[grant_idx*8 +: 8];
        g_reason = s_cpl_req_reason[grant_idx*8 +: 8];
        g_capped = s_cpl_req_capped[grant_idx];
        g_handle = s_cpl_req_handle[grant_idx*NODE_W +: NODE_W];
        g_hvalid = s_cpl_req_handle_valid[grant_idx];
    end
end

wire retire;
tsnic_fifo #(.WIDTH(MF_W), .ADDR_W(MF_LOG2)) meta_fifo_inst (
    .clk(clk), .rst(rst),
    .s_valid(accept), .s_ready(mf_s_ready), .s_data({g_handle, g_hvalid, g_queue, g_status, g_len}),
    .m_valid(mf_m_valid), .m_ready(retire), .m_data(mf_m_data),
    .count(mf_count));

// the record, in the contract's layout; its buffer slot (key) is its address bits [5 +: BUF_LOG2],
// so the records of one 512-bit bus word sit at one index of the two banks (even / odd 32 bytes)
wire [BUF_LOG2-1:0] a_slot = prod_issue_reg[BUF_LOG2-1:0] & ring_mask[BUF_LOG2-1:0];
wire                phase = ~|((prod_issue_reg >> l_log2_reg) & 32'd1);   // first pass writes 1
wire [BUF_LOG2-1:0] a_key = l_base_reg[5 +: BUF_LOG2] + a_slot;

reg [255:0] rec;
always @* begin
    rec = 256'd0;
    if (accept) begin
        rec[`TSNIC_CPL_DEPART_NS_LSB +: `TSNIC_CPL_DEPART_NS_W] = g_depart;
        rec[`TSNIC_CPL_LAUNCH_NS_LSB +: `TSNIC_CPL_LAUNCH_NS_W] = g_launch;
        rec[`TSNIC_CPL_COOKIE_LSB +: `TSNIC_CPL_COOKIE_W] = g_cookie;
        rec[`TSNIC_CPL_RING_INDEX_LSB +: `TSNIC_CPL_RING_INDEX_W] = g_index;
        rec[`TSNIC_CPL_QUEUE_LSB +: `TSNIC_CPL_QUEUE_W] = {{(`TSNIC_CPL_QUEUE_W-QUEUE_W){1'b0}}, g_queue};
        rec[`TSNIC_CPL_STATUS_LSB +: `TSNIC_CPL_STATUS_W] = g_status;
        rec[`TSNIC_CPL_REASON_LSB +: `TSNIC_CPL_REASON_W] = g_reason;
        rec[`TSNIC_CPL_LEN_LSB +: `TSNIC_CPL_LEN_W] = g_len;
        rec[`TSNIC_CPL_FLAGS_LSB + `TSNIC_CPL_FLAG_CAPPED_BIT] = g_capped;
        rec[`TSNIC_CPL_FLAGS_LSB + `TSNIC_CPL_FLAG_PHASE_BIT] = phase;
    end
end

// ---------------------------------------------------------------------------------------------
// burst issue
reg [31:0]         sent_reg = 32'd0;    // records put into bursts (the next burst's first record)
reg [BUF_LOG2:0]   pend_reg = 0;        // records accepted, not yet in a burst (prod_issue - sent)
reg [63:0]         awaddr_reg = 64'd0;
reg [7:0]          awlen_reg = 8'd0;
reg                awvalid_reg = 1'b0;
reg                wvalid_reg = 1'b0;
reg                wlast_reg = 1'b0;
reg                w_byp_reg = 1'b0;    // the burst is the one record taken in its accept cycle
reg [255:0]        byp_reg = 256'd0;    // that record
reg [NB_W-1:0]     w_n_reg = 0;         // records of the burst on W
reg [NB_W-1:0]     w_rem_reg = 0;       // of them, records after the current beat's
reg [BUF_LOG2-1:0] w_key_reg = 0;       // key of the current beat's (first) record

// where the next burst starts, and how many records it may take
wire [31:0]         s_slot = sent_reg & ring_mask;
wire [63:0]         s_addr = l_base_reg + {27'd0, s_slot, 5'd0};
wire [BUF_LOG2-1:0] s_key = l_base_reg[5 +: BUF_LOG2] + s_slot[BUF_LOG2-1:0];
wire [16:0]         to_wrap = ring_size[16:0] - s_slot[16:0];         // >= 1
wire [NB_W-1:0]     to_chunk;                                         // 1..MB
generate
    if (MAX_BURST_LOG2 > 0) begin : g_chunk
        assign to_chunk = MB[NB_W-1:0] - {1'b0, s_key[MAX_BURST_LOG2-1:0]};
    end else begin : g_chunk1
        assign to_chunk = 1'b1;
    end
endgenerate
wire [NB_W-1:0] n_lim = ({{(17-NB_W){1'b0}}, to_chunk} <= to_wrap) ? to_chunk : to_wrap[NB_W-1:0];
// the limit is registered (timing): it is that of sent_reg one cycle late, so a burst of waiting
// records is not launched in the cycle after a launch or a fresh ring (lim_ok_reg low)
reg  [NB_W-1:0] lim_reg = 1;
reg             lim_ok_reg = 1'b0;
wire [NB_W-1:0] n_buf = (pend_reg < {{(BUF_LOG2+1-NB_W){1'b0}}, lim_reg}) ? pend_reg[NB_W-1:0] : lim_reg;

// bursts waiting for their B response: their record counts, in order
wire            bq_s_ready;
wire            bq_m_valid;
wire [NB_W-1:0] bq_n;
wire            b_fire;

wire w_hs = wvalid_reg && m_axi_wready;
wire ch_free = (!awvalid_reg || m_axi_awready) && (!wvalid_reg || (m_axi_wready && wlast_reg));
wire byp = (pend_reg == 0);
wire launch = ch_free && bq_s_ready && (byp ? accept : lim_ok_reg);
wire [NB_W-1:0] n_new = byp ? {{(NB_W-1){1'b0}}, 1'b1} : n_buf;

// the buffer counts after this cycle's launch and last W beat, before its accept (timing: `accept`
// comes late, so it only picks one of two sums). In a bypass launch the one record is the accepted one.
wire [BUF_LOG2:0] occ_left = occ_reg -
                             ((w_hs && wlast_reg) ? {{(BUF_LOG2+1-NB_W){1'b0}}, w_n_reg} : {(BUF_LOG2+1){1'b0}});
wire [BUF_LOG2:0] pend_left = byp ? (launch ? {(BUF_LOG2+1){1'b1}} : {(BUF_LOG2+1){1'b0}})
                                  : pend_reg - ((ch_free && bq_s_ready && lim_ok_reg) ?
                                                {{(BUF_LOG2+1-NB_W){1'b0}}, n_buf} : {(BUF_LOG2+1){1'b0}});

/* verilator lint_off PINCONNECTEMPTY */
tsnic_fifo #(.WIDTH(NB_W), .ADDR_W(OUT_LOG2)) burst_fifo_inst (
    .clk(clk), .rst(rst),
    .s_valid(launch), .s_ready(bq_s_ready), .s_data(n_new),
    .m_valid(bq_m_valid), .m_ready(b_fire), .m_data(bq_n),
    .count());
/* verilator lint_on PINCONNECTEMPTY */

// the burst's beats and the first beat's lanes
wire [8:0]          beats_new;
wire [NB_W-1:0]     rem_new;            // records after the first beat's
wire                wlast_new;
reg  [1:0]          lanes_reg = 2'b00;  // 512 bits: the current beat's 32-byte lanes {hi, lo}
reg  [BEAT_W-1:0]   beat_reg = 0;       // narrow buses: beat within the record
wire [NB_W-1:0]     rem_next;           // after the current beat's W handshake
wire                wlast_next;
wire [1:0]          lanes_next;
wire                rd_next;            // the next beat needs the next buffer word

generate
    if (WIDE) begin : g_wide_ctl
        wire l0 = s_key[0];
        wire [NB_W:0] span = {1'b0, n_new} + {{NB_W{1'b0}}, l0};
        assign beats_new = {{(8-NB_W){1'b0}}, span} + 9'd1 >> 1;
        /* verilator lint_off CMPCONST */
        wire two = (n_new > 1);         // (both constant with MAX_BURST_LOG2 = 0)
        wire more2 = (w_rem_reg > 1);
        /* verilator lint_on CMPCONST */
        assign rem_new = l0 ? n_new - 1'b1 : (two ? n_new - TWO[NB_W-1:0] : {NB_W{1'b0}});
        assign wlast_new = (rem_new == 0);
        wire [1:0] lanes_new = l0 ? 2'b10 : (two ? 2'b11 : 2'b01);
        assign lanes_next = more2 ? 2'b11 : 2'b01;
        assign rem_next = more2 ? w_rem_reg - TWO[NB_W-1:0] : {NB_W{1'b0}};
        assign wlast_next = (rem_next == 0);
        assign rd_next = 1'b1;
        always @(posedge clk) begin
            if (launch) lanes_reg <= lanes_new;
            else if (w_hs && !wlast_reg) lanes_reg <= lanes_next;
        end
        wire unused_beat = &{1'b0, beat_reg};
    end else begin : g_narrow_ctl
        assign beats_new = {{(9-NB_W){1'b0}}, n_new} << BEAT_LOG2;
        assign rem_new = n_new - 1'b1;
        assign wlast_new = (rem_new == 0) && (BEATS == 1);
        wire rec_end = ({{(32-BEAT_W){1'b0}}, beat_reg} == BEATS - 1);
        assign rem_next = rec_end ? w_rem_reg - 1'b1 : w_rem_reg;
        assign wlast_next = (rem_next == 0) && (BEATS == 1 || ({{(32-BEAT_W){1'b0}}, beat_reg} == BEATS - 2));
        assign rd_next = rec_end;
        assign lanes_next = 2'b00;
        always @(posedge clk) begin
            if (launch) beat_reg <= 0;
            else if (w_hs && !wlast_reg) beat_reg <= rec_end ? {BEAT_W{1'b0}} : beat_reg + 1'b1;
        end
        wire unused_lanes = &{1'b0, lanes_reg, lanes_next};
    end
endgenerate

// record buffer: one RAM (two banks at 512 bits, even and odd 32-byte lanes), read one beat ahead;
// its read register is the W data (the bypass record instead for a burst launched in its accept cycle)
wire                ram_rd_launch = launch && !byp;
wire                ram_rd_step = w_hs && !wlast_reg && !w_byp_reg && rd_next;
wire                rb_rd = ram_rd_launch || ram_rd_step;
wire [BUF_LOG2-1:0] rb_rkey = ram_rd_launch ? s_key : w_key_reg + KEY_STEP;
wire [AXI_DATA_W-1:0] w_data;

generate
    if (WIDE) begin : g_wide_buf
        wire [255:0] rb_q0, rb_q1;
        tsnic_ram_sdp #(.WIDTH(256), .ADDR_W(BUF_LOG2 - 1), .BE_W(1), .OUT_REG(0)) rec_ram0_inst (
            .clk(clk),
            .wr_en(accept && !a_key[0]), .wr_addr(a_key[BUF_LOG2-1:1]), .wr_data(rec),
            .rd_en(rb_rd), .rd_addr(rb_rkey[BUF_LOG2-1:1]), .rd_data(rb_q0));
        tsnic_ram_sdp #(.WIDTH(256), .ADDR_W(BUF_LOG2 - 1), .BE_W(1), .OUT_REG(0)) rec_ram1_inst (
            .clk(clk),
            .wr_en(accept && a_key[0]), .wr_addr(a_key[BUF_LOG2-1:1]), .wr_data(rec),
            .rd_en(rb_rd), .rd_addr(rb_rkey[BUF_LOG2-1:1]), .rd_data(rb_q1));
        wire [511:0] wd = w_byp_reg ? {byp_reg, byp_reg} : {rb_q1, rb_q0};
        assign w_data = wd[AXI_DATA_W-1:0];
        assign m_axi_wstrb = {{32{lanes_reg[1]}}, {32{lanes_reg[0]}}};
        wire unused_rkey = rb_rkey[0];
    end else begin : g_narrow_buf
        wire [255:0] rb_q0;
        tsnic_ram_sdp #(.WIDTH(256), .ADDR_W(BUF_LOG2), .BE_W(1), .OUT_REG(0)) rec_ram0_inst (
            .clk(clk),
            .wr_en(accept), .wr_addr(a_key), .wr_data(rec),
            .rd_en(rb_rd), .rd_addr(rb_rkey), .rd_data(rb_q0));
        wire [255:0] wr = w_byp_reg ? byp_reg : rb_q0;
        assign w_data = wr[beat_reg*AXI_DATA_W +: AXI_DATA_W];
        assign m_axi_wstrb = {BUS_BYTES{1'b1}};
    end
endgenerate

assign m_axi_awid    = AXI_WR_ID;
assign m_axi_awaddr  = awaddr_reg;
assign m_axi_awlen   = awlen_reg;
assign m_axi_awsize  = BUS_LOG2[2:0];
assign m_axi_awburst = 2'b01;
assign m_axi_awlock  = 1'b0;
assign m_axi_awcache = 4'b0011;
assign m_axi_awprot  = 3'b010;
assign m_axi_awvalid = awvalid_reg;
assign m_axi_wvalid  = wvalid_reg;
assign m_axi_wlast   = wlast_reg;
assign m_axi_wdata   = w_data;

// ---------------------------------------------------------------------------------------------
// per-queue counter RAM and its sequencer (B responses and register reads share the read port)
wire [31:0]          cnt_q;
reg                  ram_re;
reg [CNT_ADDR_W-1:0] ram_ra;
reg                  ram_we;
reg [CNT_ADDR_W-1:0] ram_wa;
reg [31:0]           ram_wd;

tsnic_ram_sdp #(.WIDTH(32), .ADDR_W(CNT_ADDR_W), .BE_W(1), .OUT_REG(0)) cnt_ram_inst (
    .clk(clk),
    .wr_en(ram_we), .wr_addr(ram_wa), .wr_data(ram_wd),
    .rd_en(ram_re), .rd_addr(ram_ra), .rd_data(cnt_q));

// Pipeline, one record retired per cycle: cycle 1 reads the counter (retire), cycle 2 writes it + 1
// (upd_reg). A read in the same cycle as a write to the same word returns the old word, so that
// case is forwarded (fwd_reg). Register reads take the read port when they come (2-cycle answer).
reg                  init_reg = 1'b1;        // clearing the RAM after reset
reg [CNT_ADDR_W-1:0] caddr_reg = 0;          // init pointer, then the word being updated
reg                  upd_reg = 1'b0;
reg                  rdp_reg = 1'b0;         // register read issued last cycle
reg                  fwd_reg = 1'b0;
reg [31:0]           fwd_data_reg = 32'd0;
wire [31:0]          cnt_cur = fwd_reg ? fwd_data_reg : cnt_q;

localparam [31:0] WORD_SENT_32 = (`TSNIC_Q_CNT_SENT - `TSNIC_Q_CNT_POSTED) / 4;
localparam [31:0] WORD_SENT_LATE_32 = (`TSNIC_Q_CNT_SENT_LATE - `TSNIC_Q_CNT_POSTED) / 4;
localparam [31:0] WORD_DROPPED_LATE_32 = (`TSNIC_Q_CNT_DROPPED_LATE - `TSNIC_Q_CNT_POSTED) / 4;
localparam [31:0] WORD_DROPPED_HORIZON_32 = (`TSNIC_Q_CNT_DROPPED_HORIZON - `TSNIC_Q_CNT_POSTED) / 4;
localparam [31:0] WORD_FLUSHED_32 = (`TSNIC_Q_CNT_FLUSHED - `TSNIC_Q_CNT_POSTED) / 4;
localparam [31:0] WORD_REJECTED_32 = (`TSNIC_Q_CNT_REJECTED - `TSNIC_Q_CNT_POSTED) / 4;
localparam [31:0] WORD_DMA_ERROR_32 = (`TSNIC_Q_CNT_DMA_ERROR - `TSNIC_Q_CNT_POSTED) / 4;
localparam [2:0] WORD_SENT = WORD_SENT_32[2:0];
localparam [2:0] WORD_SENT_LATE = WORD_SENT_LATE_32[2:0];
localparam [2:0] WORD_DROPPED_LATE = WORD_DROPPED_LATE_32[2:0];
localparam [2:0] WORD_DROPPED_HORIZON = WORD_DROPPED_HORIZON_32[2:0];
localparam [2:0] WORD_FLUSHED = WORD_FLUSHED_32[2:0];
localparam [2:0] WORD_REJECTED = WORD_REJECTED_32[2:0];
localparam [2:0] WORD_DMA_ERROR = WORD_DMA_ERROR_32[2:0];

function [2:0] status_word(input [7:0] st);   // word index in a queue's counter block (0: none)
    begin
        case (st)
            `TSNIC_STATUS_SENT:            status_word = WORD_SENT;
            `TSNIC_STATUS_SENT_LATE:       status_word = WORD_SENT_LATE;
            `TSNIC_STATUS_DROPPED_LATE:    status_word = WORD_DROPPED_LATE;
            `TSNIC_STATUS_DROPPED_HORIZON: status_word = WORD_DROPPED_HORIZON;
            `TSNIC_STATUS_FLUSHED:         status_word = WORD_FLUSHED;
            `TSNIC_STATUS_REJECTED:        status_word = WORD_REJECTED;
            `TSNIC_STATUS_DMA_ERROR:       status_word = WORD_DMA_ERROR;
            default:                       status_word = 3'd0;
        endcase
    end
endfunction

// register decode
wire [31:0] rd_a = {{(32-ADDR_W){1'b0}}, reg_rd_addr[ADDR_W-1:2], 2'b00};
wire [31:0] wr_a = {{(32-ADDR_W){1'b0}}, reg_wr_addr[ADDR_W-1:2], 2'b00};
wire [31:0] rd_qrel = rd_a - `TSNIC_Q_BASE;
wire [31:0] rd_qnum = rd_qrel >> `TSNIC_Q_STRIDE_LOG2;
wire [31:0] rd_qoff = rd_qrel & (`TSNIC_Q_STRIDE - 1);
wire        rd_qcnt = (rd_a >= `TSNIC_Q_BASE) && (rd_qnum < NUM_QUEUES)
                   && (rd_qoff >= `TSNIC_Q_CNT_SENT) && (rd_qoff <= `TSNIC_Q_CNT_DMA_ERROR);
wire [31:0] rd_qword = (rd_qoff - `TSNIC_Q_CNT_POSTED) >> 2;
wire [CNT_ADDR_W-1:0] rd_caddr = {rd_qnum[QUEUE_W-1:0], rd_qword[2:0]};

wire rd_cpl = (rd_a == `TSNIC_CPL_BASE_LO) || (rd_a == `TSNIC_CPL_BASE_HI) || (rd_a == `TSNIC_CPL_SIZE_LOG2)
           || (rd_a == `TSNIC_CPL_CTRL) || (rd_a == `TSNIC_CPL_PROD) || (rd_a == `TSNIC_CPL_CONS);
wire wr_cpl = (wr_a == `TSNIC_CPL_BASE_LO) || (wr_a == `TSNIC_CPL_BASE_HI) || (wr_a == `TSNIC_CPL_SIZE_LOG2)
           || (wr_a == `TSNIC_CPL_CTRL) || (wr_a == `TSNIC_CPL_PROD) || (wr_a == `TSNIC_CPL_CONS);
wire [31:0] wr_qrel = wr_a - `TSNIC_Q_BASE;
wire [31:0] wr_qnum = wr_qrel >> `TSNIC_Q_STRIDE_LOG2;
wire [31:0] wr_qoff = wr_qrel & (`TSNIC_Q_STRIDE - 1);
wire        wr_qcnt = (wr_a >= `TSNIC_Q_BASE) && (wr_qnum < NUM_QUEUES)
                   && (wr_qoff >= `TSNIC_Q_CNT_SENT) && (wr_qoff <= `TSNIC_Q_CNT_DMA_ERROR);

reg        wr_ack_reg = 1'b0;
reg        rd_ack_reg = 1'b0;
reg [31:0] rd_data_reg = 32'd0;

assign reg_wr_wait = 1'b0;
assign reg_wr_ack = wr_ack_reg;
assign reg_rd_ack = rd_ack_reg;
assign reg_rd_data = rd_data_reg;
assign reg_rd_wait = reg_rd_en && rd_qcnt && !rd_ack_reg;

// verilator lint_off UNUSEDSIGNAL
wire [3:0]  unused_addr_lsbs = {reg_wr_addr[1:0], reg_rd_addr[1:0]};
wire [95:0] unused_q = {rd_qnum, rd_qword, wr_qnum};
wire [AXI_ID_W+1:0] unused_b = {m_axi_bid, m_axi_bresp};
wire                unused_beats = beats_new[8];
// verilator lint_on UNUSEDSIGNAL

function [31:0] apply_strb(input [31:0] old, input [31:0] val, input [3:0] strb);
    integer b;
    begin
        apply_strb = old;
        for (b = 0; b < 4; b = b + 1)
            if (strb[b]) apply_strb[b*8 +: 8] = val[b*8 +: 8];
    end
endfunction

// B response handling
reg               free_valid_reg = 1'b0;
reg [NODE_W-1:0]  free_handle_reg = 0;
reg               evt_valid_reg = 1'b0;
reg [7:0]         evt_status_reg = 8'd0;
reg [15:0]        evt_len_reg = 16'd0;
reg [QUEUE_W-1:0] evt_queue_reg = 0;

assign m_free_valid = free_valid_reg;
assign m_free_handle = free_handle_reg;
assign evt_cpl_valid = evt_valid_reg;
assign evt_cpl_status = evt_status_reg;
assign evt_cpl_len = evt_len_reg;
assign evt_cpl_queue = evt_queue_reg;

wire [2:0]          b_word = status_word(mf_status);

// B responses: each adds its burst's records to those acknowledged; records are retired one per cycle
// (the cycle of their B at the earliest), in order, when the counter RAM's port and the free port allow
reg  [AL_W-1:0] ack_left_reg = 0;
wire reg_cnt_rd = reg_rd_en && rd_qcnt && !rd_ack_reg && !rdp_reg && !init_reg;
assign m_axi_bready = bq_m_valid;
assign b_fire = bq_m_valid && m_axi_bvalid;
wire retire_ok = !init_reg && !reg_cnt_rd && mf_m_valid && (!free_valid_reg || m_free_ready);
assign retire = retire_ok && ((ack_left_reg != 0) || b_fire);

always @* begin
    ram_re = 1'b0;
    ram_ra = {CNT_ADDR_W{1'b0}};
    ram_we = 1'b0;
    ram_wa = caddr_reg;
    ram_wd = cnt_cur + 32'd1;
    if (init_reg) begin
        ram_we = 1'b1;
        ram_wd = 32'd0;
    end else begin
        ram_we = upd_reg;
        if (reg_cnt_rd) begin
            ram_re = 1'b1;
            ram_ra = rd_caddr;
        end else if (retire) begin
            ram_re = 1'b1;
            ram_ra = {mf_queue, b_word};
        end
    end
end

always @(posedge clk) begin
    wr_ack_reg <= 1'b0;
    rd_ack_reg <= 1'b0;
    rd_data_reg <= 32'd0;
    evt_valid_reg <= 1'b0;
    if (m_free_ready) free_valid_reg <= 1'b0;

    // ---- CPL block register writes
    if (reg_wr_en && !wr_ack_reg && (wr_cpl || wr_qcnt)) begin
        wr_ack_reg <= 1'b1;
        case (wr_a)
            `TSNIC_CPL_BASE_LO:   base_reg[31:0] <= apply_strb(base_reg[31:0], reg_wr_data, reg_wr_strb);
            `TSNIC_CPL_BASE_HI:   base_reg[63:32] <= apply_strb(base_reg[63:32], reg_wr_data, reg_wr_strb);
            `TSNIC_CPL_SIZE_LOG2: if (reg_wr_strb[0]) size_log2_reg <= reg_wr_data[7:0];
            `TSNIC_CPL_CTRL: begin
                if (reg_wr_strb[0]) begin
                    if (!reg_wr_data[0]) begin
                        enable_reg <= 1'b0;
                        en_wait_reg <= 1'b0;
                    end else if (!enable_reg) begin
                        en_wait_reg <= 1'b1;    // the fresh ring starts below
                    end
                end
            end
            `TSNIC_CPL_CONS:      cons_reg <= apply_strb(cons_reg, reg_wr_data, reg_wr_strb);
            default: ;
        endcase
    end

    // ---- register reads
    if (reg_rd_en && !rd_ack_reg && rd_cpl) begin
        rd_ack_reg <= 1'b1;
        case (rd_a)
            `TSNIC_CPL_BASE_LO:   rd_data_reg <= base_reg[31:0];
            `TSNIC_CPL_BASE_HI:   rd_data_reg <= base_reg[63:32];
            `TSNIC_CPL_SIZE_LOG2: rd_data_reg <= {24'd0, size_log2_reg};
            `TSNIC_CPL_CTRL:      rd_data_reg <= {31'd0, enable_reg || en_wait_reg};
            `TSNIC_CPL_PROD:      rd_data_reg <= prod_done_reg;
            `TSNIC_CPL_CONS:      rd_data_reg <= cons_reg;
            default: ;
        endcase
    end

    space0_reg <= ring_used < ring_size;
    space1_reg <= ring_used < ring_mask;     // + 1 < size
    acc_reg <= accept;

    // ---- accept a request (its record goes into the buffer at its key)
    if (accept) begin
        last_reg <= grant_idx;
        prod_issue_reg <= prod_issue_reg + 32'd1;
    end
    occ_reg <= accept ? occ_left + 1'b1 : occ_left;
    pend_reg <= accept ? pend_left + 1'b1 : pend_left;

    // ---- issue AW and W
    if (awvalid_reg && m_axi_awready) begin
        awvalid_reg <= 1'b0;
    end
    if (w_hs) begin
        if (wlast_reg) begin
            wvalid_reg <= 1'b0;
        end else begin
            wlast_reg <= wlast_next;
            w_rem_reg <= rem_next;
            if (rd_next) w_key_reg <= w_key_reg + KEY_STEP;
        end
    end
    lim_reg <= n_lim;
    lim_ok_reg <= !launch;
    if (launch) begin
        sent_reg <= sent_reg + {{(32-NB_W){1'b0}}, n_new};
        awaddr_reg <= s_addr;
        awlen_reg <= beats_new[7:0] - 8'd1;   // 256 beats: 0 - 1
        awvalid_reg <= 1'b1;
        wvalid_reg <= 1'b1;
        wlast_reg <= wlast_new;
        w_byp_reg <= byp;
        if (byp) byp_reg <= rec;
        w_n_reg <= n_new;
        w_rem_reg <= rem_new;
        w_key_reg <= s_key;
    end

    // ---- the ring geometry the writer uses, and a fresh ring once the old one's records are out
    if (quiet_recs) begin
        l_base_reg <= base_reg;
        l_log2_reg <= size_log2_eff;
    end
    if (en_wait_reg && quiet_recs) begin
        // enabling starts a fresh ring: index 0, phase 1, nothing consumed
        en_wait_reg <= 1'b0;
        enable_reg <= 1'b1;
        prod_issue_reg <= 32'd0;
        prod_done_reg <= 32'd0;
        cons_reg <= 32'd0;
        sent_reg <= 32'd0;
        lim_ok_reg <= 1'b0;
    end

    // ---- B responses and the counter RAM
    fwd_reg <= ram_re && ram_we && (ram_ra == ram_wa);
    fwd_data_reg <= ram_wd;
    upd_reg <= 1'b0;
    rdp_reg <= reg_cnt_rd;
    if (rdp_reg) begin
        rd_ack_reg <= 1'b1;
        rd_data_reg <= cnt_cur;
    end
    if (init_reg) begin
        caddr_reg <= caddr_reg + 1'b1;
        if ({{(32-CNT_ADDR_W){1'b0}}, caddr_reg} == CNT_WORDS - 1) begin
            init_reg <= 1'b0;
            init_done_reg <= 1'b1;
        end
    end else if (retire) begin
        prod_done_reg <= prod_done_reg + 32'd1;
        if (mf_hvalid) begin
            free_valid_reg <= 1'b1;
            free_handle_reg <= mf_handle;
        end
        evt_valid_reg <= 1'b1;
        evt_status_reg <= mf_status;
        evt_len_reg <= mf_len;
        evt_queue_reg <= mf_queue;
        caddr_reg <= {mf_queue, b_word};
        upd_reg <= (b_word != 3'd0);
    end
    ack_left_reg <= ack_left_reg + (b_fire ? {{(AL_W-NB_W){1'b0}}, bq_n} : {AL_W{1'b0}}) -
                    {{(AL_W-1){1'b0}}, retire};

    if (rst) begin
        base_reg <= 64'd0;
        size_log2_reg <= 8'd0;
        enable_reg <= 1'b0;
        en_wait_reg <= 1'b0;
        prod_issue_reg <= 32'd0;
        prod_done_reg <= 32'd0;
        cons_reg <= 32'd0;
        l_base_reg <= 64'd0;
        l_log2_reg <= 5'd0;
        last_reg <= N_SRC - 1;
        occ_reg <= 0;
        pend_reg <= 0;
        sent_reg <= 32'd0;
        awvalid_reg <= 1'b0;
        wvalid_reg <= 1'b0;
        wlast_reg <= 1'b0;
        ack_left_reg <= 0;
        lim_ok_reg <= 1'b0;
        init_done_reg <= 1'b0;
        init_reg <= 1'b1;
        caddr_reg <= 0;
        upd_reg <= 1'b0;
        rdp_reg <= 1'b0;
        fwd_reg <= 1'b0;
        wr_ack_reg <= 1'b0;
        rd_ack_reg <= 1'b0;
        rd_data_reg <= 32'd0;
        free_valid_reg <= 1'b0;
        evt_valid_reg <= 1'b0;
    end
end

// fast-forward (docs/ARCHITECTURE.md, "Idle fast-forward")
// (no record between accept and retirement covers the buffer, the bursts on AW/W and those awaiting B)
assign ff_quiet = init_done_reg && quiet_recs && !en_wait_reg &&
                  (s_cpl_req_valid == {N_SRC{1'b0}}) && !m_free_valid && !upd_reg && !rdp_reg && !fwd_reg &&
                  !wr_ack_reg && !rd_ack_reg && !reg_wr_en && !reg_rd_en;

endmodule

`resetall
