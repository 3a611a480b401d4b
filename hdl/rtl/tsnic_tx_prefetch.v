// tsnic_tx_prefetch: payload prefetch between the calendar and the launch gate.
//
// 1. Release intake: takes calendar releases (s_rel_*), reads the descriptor table by handle
//    (dt_rd_*, registered read, data the cycle after dt_rd_en) and queues a job (small FIFO).
// 2. Non-wire statuses (anything but SENT / SENT_LATE) leave at once as a completion request on
//    m_cpl_req_* (depart_ns = PHC time at which the release was accepted).
// 3. Wire statuses: when a frame slot (2^SLOT_W frames in flight) and room in the TX buffer are
//    free, the frame is allocated a contiguous run of buffer words, its metadata is queued for the
//    gate (m_frm_*), and the AXI4 read issuer reads [addr, addr+len) from host memory in bursts
//    (at most AXI_MAX_BURST beats, never across a 4 KiB boundary). Reads of many frames are
//    outstanding at once; all use ID AXI_ARID, so the slave returns them in order.
// 4. DMA write side: returning beats are realigned (frame byte 0 to lane 0, whatever the host
//    address alignment) and written to the TX buffer (tsnic_ram_sdp, block RAM). When a frame's
//    last word is written, the frame is ready.
// 5. Stream side: ready frames are read from the buffer in release order into a small output FIFO
//    and presented on m_axis_pay_* with tkeep/tlast. A frame's words are freed as they are read.
// Beats of a frame reach m_axis_pay_* only after the whole frame is in the buffer (store and
// forward), so the gate never underruns the MAC. A frame any of whose payload beats came back with
// rresp != OKAY is still streamed (so the buffer is freed in order), flagged on m_axis_pay_tuser: the
// gate drops it and completes it DMA_ERROR.
`resetall
`timescale 1ns / 1ps
`default_nettype none
`include "tsnic_contract.vh"

module tsnic_tx_prefetch #(
    parameter DATA_W        = 64,       // AXI4 read data = TX buffer word = payload stream width
    parameter NODE_W        = 10,
    parameter QUEUE_W       = 3,
    parameter AXI_ID_W      = 8,
    parameter [AXI_ID_W-1:0] AXI_ARID = {AXI_ID_W{1'b0}},
    parameter AXI_MAX_BURST = 256,      // beats per read burst, 1..256
    parameter BUF_BYTES     = 32768,    // TX buffer size, power of two, >= MAX_FRAME_LEN + DATA_W/8
    parameter SLOT_W        = 5         // 2^SLOT_W frames between allocation and the gate's completion
) (
    input  wire                   clk,
    input  wire                   rst,

    input  wire [63:0]            phc_ns,

    // calendar release
    input  wire                   s_rel_valid,
    output wire                   s_rel_ready,
    input  wire [QUEUE_W-1:0]     s_rel_queue,
    input  wire [NODE_W-1:0]      s_rel_handle,
    input  wire [63:0]            s_rel_launch_ns,
    input  wire [7:0]             s_rel_status,
    input  wire                   s_rel_capped,

    // descriptor table read (registered read, one-cycle latency)
    output wire                   dt_rd_en,
    output wire [NODE_W-1:0]      dt_rd_handle,
    input  wire [63:0]            dt_rd_addr,
    input  wire [15:0]            dt_rd_len,
    input  wire [31:0]            dt_rd_cookie,
    input  wire [63:0]            dt_rd_launch_ns,
    input  wire [15:0]            dt_rd_ring_index,
    input  wire [QUEUE_W-1:0]     dt_rd_queue,

    // AXI4 read master (payload)
    output wire [AXI_ID_W-1:0]    m_axi_arid,
    output wire [63:0]            m_axi_araddr,
    output wire [7:0]             m_axi_arlen,
    output wire [2:0]             m_axi_arsize,
    output wire [1:0]             m_axi_arburst,
    output wire                   m_axi_arlock,
    output wire [3:0]             m_axi_arcache,
    output wire [2:0]             m_axi_arprot,
    output wire                   m_axi_arvalid,
    input  wire                   m_axi_arready,
    input  wire [AXI_ID_W-1:0]    m_axi_rid,
    input  wire [DATA_W-1:0]      m_axi_rdata,
    input  wire [1:0]             m_axi_rresp,
    input  wire                   m_axi_rlast,
    input  wire                   m_axi_rvalid,
    output wire                   m_axi_rready,

    // completion request: non-wire statuses
    output wire                   m_cpl_req_valid,
    input  wire                   m_cpl_req_ready,
    output wire [QUEUE_W-1:0]     m_cpl_req_queue,
    output wire [15:0]            m_cpl_req_ring_index,
    output wire [31:0]            m_cpl_req_cookie,
    output wire [63:0]            m_cpl_req_launch_ns,
    output wire [63:0]            m_cpl_req_depart_ns,
    output wire [15:0]            m_cpl_req_len,
    output wire [7:0]             m_cpl_req_status,
    output wire [7:0]             m_cpl_req_reason,
    output wire                   m_cpl_req_capped,
    output wire [NODE_W-1:0]      m_cpl_req_handle,
    output wire                   m_cpl_req_handle_valid,

    // frame metadata to the gate (release order)
    output wire                   m_frm_valid,
    input  wire                   m_frm_ready,
    output wire [63:0]            m_frm_launch_ns,
    output wire [63:0]            m_frm_req_launch_ns,
    output wire                   m_frm_late,
    output wire                   m_frm_capped,
    output wire [QUEUE_W-1:0]     m_frm_queue,
    output wire [15:0]            m_frm_ring_index,
    output wire [31:0]            m_frm_cookie,
    output wire [15:0]            m_frm_len,
    output wire [NODE_W-1:0]      m_frm_handle,

    // payload stream to the gate
    output wire [DATA_W-1:0]      m_axis_pay_tdata,
    output wire [DATA_W/8-1:0]    m_axis_pay_tkeep,
    output wire                   m_axis_pay_tlast,
    output wire                   m_axis_pay_tuser,    // the frame's payload read failed (every beat)
    output wire                   m_axis_pay_tvalid,
    input  wire                   m_axis_pay_tready,

    output wire                   ff_quiet         // nothing released, looked up, fetched, buffered or sent
);

localparam BYTES    = DATA_W / 8;
localparam OB       = $clog2(BYTES);                 // byte-offset bits inside a word
localparam BUF_AW   = $clog2(BUF_BYTES) - OB;        // TX buffer word address bits
localparam CNT_W    = 18;                            // beat/word counts of one frame
localparam SLOTS    = 1 << SLOT_W;
localparam KB_W     = OB + 1;                        // bytes in the last word, 1..BYTES
localparam [CNT_W:0]   BUF_WORDS = 1 << BUF_AW;
localparam [SLOT_W:0]  SLOTS_V   = SLOTS;
localparam [CNT_W-1:0] MAX_BURST = AXI_MAX_BURST;
localparam [31:0]      OB32      = OB;
localparam [2:0]       ARSIZE    = OB32[2:0];

// ---------------------------------------------------------------------------------------------
// 1. release intake and descriptor-table read
// (the FIFOs' s_ready outputs are not needed: room is guaranteed by construction, see below)
wire job_s_ready, frm_s_ready, rf_s_ready, df_s_ready, of_s_ready;
reg                lk_valid = 1'b0;
reg [NODE_W-1:0]   lk_handle = {NODE_W{1'b0}};
reg [63:0]         lk_launch_ns = 64'd0;
reg [7:0]          lk_status = 8'd0;
reg                lk_capped = 1'b0;
reg [63:0]         lk_phc_ns = 64'd0;

wire [SLOT_W+1:0]  frm_count;
wire [2+1:0]       job_count;

// job FIFO capacity 5; at most 4 entries ever (count + a lookup in flight <= 3 when accepting)
assign s_rel_ready = ({1'b0, job_count} + {4'd0, lk_valid}) <= 5'd3;
wire rel_fire = s_rel_valid && s_rel_ready;

assign dt_rd_en     = rel_fire;
assign dt_rd_handle = s_rel_handle;

always @(posedge clk) begin
    lk_valid <= rel_fire;
    if (rel_fire) begin
        lk_handle    <= s_rel_handle;
        lk_launch_ns <= s_rel_launch_ns;
        lk_status    <= s_rel_status;
        lk_capped    <= s_rel_capped;
        lk_phc_ns    <= phc_ns;
    end
    if (rst) begin
        lk_valid <= 1'b0;
    end
end

// frame geometry from the table data (len >= 1; tsnic_desc_fetch rejects zero lengths)
wire [OB-1:0]    lk_off      = dt_rd_addr[OB-1:0];
wire [CNT_W-1:0] lk_len_ext  = {{(CNT_W-16){1'b0}}, dt_rd_len};
wire [CNT_W-1:0] lk_off_ext  = {{(CNT_W-OB){1'b0}}, lk_off};
wire [CNT_W-1:0] lk_round    = {{(CNT_W-OB){1'b0}}, {OB{1'b1}}};
wire [CNT_W-1:0] lk_beats_in = (lk_off_ext + lk_len_ext + lk_round) >> OB;   // host beats
wire [CNT_W-1:0] lk_words    = (lk_len_ext + lk_round) >> OB;                // buffer words / stream beats
wire             lk_flush    = (lk_off != {OB{1'b0}}) && (lk_beats_in == lk_words);
wire [KB_W-1:0]  lk_lastb    = {1'b0, dt_rd_len[OB-1:0] - 1'b1} + 1'b1;      // ((len-1) mod BYTES) + 1
wire             lk_wire     = (lk_status == `TSNIC_STATUS_SENT) || (lk_status == `TSNIC_STATUS_SENT_LATE);
wire             lk_late     = (lk_status == `TSNIC_STATUS_SENT_LATE);

// job record
localparam J_W = NODE_W + 64 + 8 + 1 + 64 + 64 + 16 + 32 + 64 + 16 + QUEUE_W + 1 + 1
               + CNT_W + CNT_W + 1 + KB_W;
wire [J_W-1:0] job_in = {lk_handle, lk_launch_ns, lk_status, lk_capped, lk_phc_ns,
                         dt_rd_addr, dt_rd_len, dt_rd_cookie, dt_rd_launch_ns, dt_rd_ring_index,
                         dt_rd_queue, lk_wire, lk_late, lk_beats_in, lk_words, lk_flush, lk_lastb};
wire [J_W-1:0] job;
wire           job_valid;
wire           job_pop;

tsnic_fifo #(.WIDTH(J_W), .ADDR_W(2)) job_fifo_inst (
    .clk(clk), .rst(rst),
    .s_valid(lk_valid), .s_ready(job_s_ready),
    .s_data(job_in),
    .m_valid(job_valid), .m_ready(job_pop), .m_data(job),
    .count(job_count)
);

wire [NODE_W-1:0]  j_handle;
wire [63:0]        j_launch_ns;
wire [7:0]         j_status;
wire               j_capped;
wire [63:0]        j_phc_ns;
wire [63:0]        j_addr;
wire [15:0]        j_len;
wire [31:0]        j_cookie;
wire [63:0]        j_req_launch_ns;
wire [15:0]        j_ring_index;
wire [QUEUE_W-1:0] j_queue;
wire               j_wire;
wire               j_late;
wire [CNT_W-1:0]   j_beats_in;
wire [CNT_W-1:0]   j_words;
wire               j_flush;
wire [KB_W-1:0]    j_lastb;
assign {j_handle, j_launch_ns, j_status, j_capped, j_phc_ns, j_addr, j_len, j_cookie,
        j_req_launch_ns, j_ring_index, j_queue, j_wire, j_late, j_beats_in, j_words, j_flush,
        j_lastb} = job;

// ---------------------------------------------------------------------------------------------
// 2. non-wire statuses: straight to a completion request
assign m_cpl_req_valid        = job_valid && !j_wire;
assign m_cpl_req_queue        = j_queue;
assign m_cpl_req_ring_index   = j_ring_index;
assign m_cpl_req_cookie       = j_cookie;
assign m_cpl_req_launch_ns    = j_req_launch_ns;
assign m_cpl_req_depart_ns    = j_phc_ns;
assign m_cpl_req_len          = j_len;
assign m_cpl_req_status       = j_status;
assign m_cpl_req_reason       = `TSNIC_REJECT_NONE;
assign m_cpl_req_capped       = j_capped;
assign m_cpl_req_handle       = j_handle;
assign m_cpl_req_handle_valid = 1'b1;

// ---------------------------------------------------------------------------------------------
// 3. allocation and the AXI4 read issuer
reg [SLOT_W:0]   slots_used = {(SLOT_W+1){1'b0}};
reg [BUF_AW:0]   alloc_ptr = {(BUF_AW+1){1'b0}};  // words reserved (running, modulo 2^(BUF_AW+1))
reg [BUF_AW:0]   rd_ptr = {(BUF_AW+1){1'b0}};     // words read out (freed)

wire [BUF_AW:0]  buf_used = alloc_ptr - rd_ptr;
wire [CNT_W:0]   buf_free = BUF_WORDS - {{(CNT_W-BUF_AW){1'b0}}, buf_used};

reg              is_valid = 1'b0;
reg [63:0]       is_addr = 64'd0;
reg [CNT_W-1:0]  is_beats = {CNT_W{1'b0}};

wire [12:0]      is_to4k = (13'd4096 - {1'b0, is_addr[11:0]}) >> OB;
wire [CNT_W-1:0] is_to4k_ext = {{(CNT_W-13){1'b0}}, is_to4k};
wire [CNT_W-1:0] is_b1 = (is_beats < MAX_BURST) ? is_beats : MAX_BURST;
wire [CNT_W-1:0] is_burst = (is_b1 < is_to4k_ext) ? is_b1 : is_to4k_ext;
wire             ar_fire = is_valid && m_axi_arready;
wire             is_last = (is_beats == is_burst);

wire             frm_pop = m_frm_valid && m_frm_ready;

wire alloc = job_valid && j_wire
          && (slots_used < SLOTS_V)
          && ({1'b0, j_words} <= buf_free)
          && (!is_valid || (ar_fire && is_last));

assign job_pop = alloc || (m_cpl_req_valid && m_cpl_req_ready);

assign m_axi_arid    = AXI_ARID;
assign m_axi_araddr  = is_addr;
assign m_axi_arlen   = is_burst[7:0] - 8'd1;
assign m_axi_arsize  = ARSIZE;
assign m_axi_arburst = 2'b01;        // INCR
assign m_axi_arlock  = 1'b0;
assign m_axi_arcache = 4'b0011;      // normal, bufferable, non-cacheable
assign m_axi_arprot  = 3'b010;
assign m_axi_arvalid = is_valid;

always @(posedge clk) begin
    if (ar_fire) begin
        is_addr  <= is_addr + ({{(64-CNT_W){1'b0}}, is_burst} << OB);
        is_beats <= is_beats - is_burst;
        if (is_last) begin
            is_valid <= 1'b0;
        end
    end
    if (alloc) begin
        is_valid <= 1'b1;
        is_addr  <= {j_addr[63:OB], {OB{1'b0}}};
        is_beats <= j_beats_in;
        alloc_ptr <= alloc_ptr + j_words[BUF_AW:0];
    end
    case ({alloc, frm_pop})
        2'b10: slots_used <= slots_used + 1'b1;
        2'b01: slots_used <= slots_used - 1'b1;
        default: ;
    endcase
    if (rst) begin
        is_valid   <= 1'b0;
        alloc_ptr  <= {(BUF_AW+1){1'b0}};
        slots_used <= {(SLOT_W+1){1'b0}};
    end
end

// gate metadata FIFO (popped by the gate at the frame's last beat)
localparam G_W = 64 + 64 + 1 + 1 + QUEUE_W + 16 + 32 + 16 + NODE_W;
wire [G_W-1:0] g_in = {j_launch_ns, j_req_launch_ns, j_late, j_capped, j_queue, j_ring_index,
                       j_cookie, j_len, j_handle};
wire [G_W-1:0] g_out;

tsnic_fifo #(.WIDTH(G_W), .ADDR_W(SLOT_W)) frm_fifo_inst (
    .clk(clk), .rst(rst),
    .s_valid(alloc), .s_ready(frm_s_ready),
    .s_data(g_in),
    .m_valid(m_frm_valid), .m_ready(m_frm_ready), .m_data(g_out),
    .count(frm_count)
);

assign {m_frm_launch_ns, m_frm_req_launch_ns, m_frm_late, m_frm_capped, m_frm_queue,
        m_frm_ring_index, m_frm_cookie, m_frm_len, m_frm_handle} = g_out;

// return-side frame info (in issue order)
localparam RF_W = OB + CNT_W + 1 + CNT_W + KB_W;
wire [RF_W-1:0] rf_in = {j_addr[OB-1:0], j_beats_in, j_flush, j_words, j_lastb};
wire [RF_W-1:0] rf_out;
wire            rf_valid;
wire            rf_pop;
wire [SLOT_W+1:0] rf_count;

tsnic_fifo #(.WIDTH(RF_W), .ADDR_W(SLOT_W)) rf_fifo_inst (
    .clk(clk), .rst(rst),
    .s_valid(alloc), .s_ready(rf_s_ready),
    .s_data(rf_in),
    .m_valid(rf_valid), .m_ready(rf_pop), .m_data(rf_out),
    .count(rf_count)
);

wire [OB-1:0]    rf_off;
wire [CNT_W-1:0] rf_beats_in;
wire             rf_flush;
wire [CNT_W-1:0] rf_words;
wire [KB_W-1:0]  rf_lastb;
assign {rf_off, rf_beats_in, rf_flush, rf_words, rf_lastb} = rf_out;

// ---------------------------------------------------------------------------------------------
// 4. DMA write side: realign and write into the TX buffer
reg [CNT_W-1:0]  w_cnt = {CNT_W{1'b0}};       // beats of the current frame received
reg [DATA_W-1:0] w_prev = {DATA_W{1'b0}};
reg              w_flush_pend = 1'b0;
reg [BUF_AW-1:0] w_ptr = {BUF_AW{1'b0}};
reg              w_err = 1'b0;                  // a beat of the current frame came back with an error

assign m_axi_rready = rf_valid && !w_flush_pend;
wire r_fire  = m_axi_rvalid && m_axi_rready;
wire r_first = (w_cnt == {CNT_W{1'b0}});
wire r_last  = (w_cnt == rf_beats_in - 1'b1);
wire r_off0  = (rf_off == {OB{1'b0}});

wire [2*DATA_W-1:0] w_cat = {(w_flush_pend ? {DATA_W{1'b0}} : m_axi_rdata), w_prev};
/* verilator lint_off UNUSEDSIGNAL */
wire [2*DATA_W-1:0] w_cat_sh = w_cat >> {rf_off, 3'b000};
/* verilator lint_on UNUSEDSIGNAL */
wire [DATA_W-1:0]   w_shifted = w_cat_sh[DATA_W-1:0];

wire             buf_wr_en   = w_flush_pend || (r_fire && (r_off0 || !r_first));
wire [DATA_W-1:0] buf_wr_data = (r_off0 && !w_flush_pend) ? m_axi_rdata : w_shifted;
wire             frame_done  = w_flush_pend || (r_fire && r_last && (r_off0 || !rf_flush));
wire             frame_err   = w_err || (r_fire && m_axi_rresp[1]);

assign rf_pop = frame_done;

always @(posedge clk) begin
    if (buf_wr_en) begin
        w_ptr <= w_ptr + 1'b1;
    end
    if (w_flush_pend) begin
        w_flush_pend <= 1'b0;
    end
    w_err <= frame_done ? 1'b0 : frame_err;
    if (r_fire) begin
        w_prev <= m_axi_rdata;
        if (r_last) begin
            w_cnt <= {CNT_W{1'b0}};
            if (!r_off0 && rf_flush) begin
                w_flush_pend <= 1'b1;
            end
        end else begin
            w_cnt <= w_cnt + 1'b1;
        end
    end
    if (rst) begin
        w_cnt        <= {CNT_W{1'b0}};
        w_flush_pend <= 1'b0;
        w_ptr        <= {BUF_AW{1'b0}};
        w_err        <= 1'b0;
    end
end

// frames fully written, waiting for the stream side
localparam DF_W = 1 + CNT_W + KB_W;
wire [DF_W-1:0] df_out;
wire            df_valid;
wire            df_pop;
wire [SLOT_W+1:0] df_count;

tsnic_fifo #(.WIDTH(DF_W), .ADDR_W(SLOT_W)) df_fifo_inst (
    .clk(clk), .rst(rst),
    .s_valid(frame_done), .s_ready(df_s_ready),
    .s_data({frame_err, rf_words, rf_lastb}),
    .m_valid(df_valid), .m_ready(df_pop), .m_data(df_out),
    .count(df_count)
);

wire             df_err   = df_out[DF_W-1];
wire [CNT_W-1:0] df_words = df_out[CNT_W+KB_W-1:KB_W];
wire [KB_W-1:0]  df_lastb = df_out[KB_W-1:0];

// ---------------------------------------------------------------------------------------------
// TX buffer
wire              buf_rd_en;
wire [DATA_W-1:0] buf_rd_data;

tsnic_ram_sdp #(.WIDTH(DATA_W), .ADDR_W(BUF_AW)) tx_buffer_inst (
    .clk(clk),
    .wr_en(buf_wr_en), .wr_addr(w_ptr), .wr_data(buf_wr_data),
    .rd_en(buf_rd_en), .rd_addr(rd_ptr[BUF_AW-1:0]), .rd_data(buf_rd_data)
);

// ---------------------------------------------------------------------------------------------
// 5. stream side: read ready frames in order into the output FIFO
reg              rd_act = 1'b0;
reg [CNT_W-1:0]  rd_left = {CNT_W{1'b0}};     // words still to read after the current one
reg [KB_W-1:0]   rd_lastb = {KB_W{1'b0}};
reg              rd_q_valid = 1'b0;           // a buffer read is in flight (data next cycle)
reg              rd_q_last = 1'b0;
reg [KB_W-1:0]   rd_q_lastb = {KB_W{1'b0}};
reg              rd_err = 1'b0;
reg              rd_q_err = 1'b0;

wire [3:0]       of_count;
wire             credit = ({1'b0, of_count} + {4'd0, rd_q_valid}) <= 5'd3;

wire rd_start = !rd_act && df_valid && credit;
wire rd_cont  = rd_act && credit;
assign buf_rd_en = rd_start || rd_cont;
assign df_pop    = rd_start;

wire rd_is_last = rd_start ? (df_words == {{(CNT_W-1){1'b0}}, 1'b1})
                           : (rd_left == {{(CNT_W-1){1'b0}}, 1'b1});

always @(posedge clk) begin
    rd_q_valid <= buf_rd_en;
    if (buf_rd_en) begin
        rd_ptr     <= rd_ptr + 1'b1;
        rd_q_last  <= rd_is_last;
        rd_q_lastb <= rd_start ? df_lastb : rd_lastb;
        rd_q_err   <= rd_start ? df_err : rd_err;
    end
    if (rd_start) begin
        rd_act   <= !rd_is_last;
        rd_left  <= df_words - 1'b1;
        rd_lastb <= df_lastb;
        rd_err   <= df_err;
    end else if (rd_cont) begin
        rd_left <= rd_left - 1'b1;
        if (rd_is_last) begin
            rd_act <= 1'b0;
        end
    end
    if (rst) begin
        rd_act     <= 1'b0;
        rd_q_valid <= 1'b0;
        rd_ptr     <= {(BUF_AW+1){1'b0}};
    end
end

/* verilator lint_off UNUSEDSIGNAL */
wire [BYTES:0]   keep_ext  = ~({(BYTES+1){1'b1}} << rd_q_lastb);
/* verilator lint_on UNUSEDSIGNAL */
wire [BYTES-1:0] rd_q_keep = rd_q_last ? keep_ext[BYTES-1:0] : {BYTES{1'b1}};

localparam O_W = DATA_W + BYTES + 2;
wire [O_W-1:0] of_out;

tsnic_fifo #(.WIDTH(O_W), .ADDR_W(2)) out_fifo_inst (
    .clk(clk), .rst(rst),
    .s_valid(rd_q_valid), .s_ready(of_s_ready),
    .s_data({buf_rd_data, rd_q_keep, rd_q_last, rd_q_err}),
    .m_valid(m_axis_pay_tvalid), .m_ready(m_axis_pay_tready), .m_data(of_out),
    .count(of_count)
);

assign {m_axis_pay_tdata, m_axis_pay_tkeep, m_axis_pay_tlast, m_axis_pay_tuser} = of_out;

// unused inputs (the frame's queue comes from the table; IDs are routed by the arbiter; an error
// response is SLVERR or DECERR, told apart by rresp[1] alone)
/* verilator lint_off UNUSED */
wire unused_ok = &{1'b0, s_rel_queue, m_axi_rid, m_axi_rresp[0], m_axi_rlast,
                   job_s_ready, frm_s_ready, rf_s_ready, df_s_ready, of_s_ready};
/* verilator lint_on UNUSED */

// fast-forward (docs/ARCHITECTURE.md, "Idle fast-forward"): no frame anywhere in the prefetch
assign ff_quiet = !s_rel_valid && !lk_valid && (job_count == 0) && (slots_used == 0) && (frm_count == 0) &&
                  (rf_count == 0) && (df_count == 0) && (of_count == 0) && !is_valid && !rd_act && !rd_q_valid &&
                  !w_flush_pend && !m_cpl_req_valid && !m_frm_valid && !m_axis_pay_tvalid;

endmodule

`resetall
