// tsnic_pk_parse: the record parser of the packed transmit format (issue 32 item 2; docs/DATAPATH.md
// "Packed transmit format"). It walks the beats of the packed queues' streams as they are read from
// host memory and copied into the packed buffer, and emits one result per FRAME record and per
// malformed record; BASE records set the queue's base_ns and emit nothing.
//
// Input, one beat at a time in read order (the fetch's R beats, several queues interleaved by read):
//   s_data      DATA_W bits = UPB 8-byte units, unit 0 in bits 63:0
//   s_queue     the queue whose stream this is
//   s_unit      stream unit index (modulo 2^16, the Q_PROD/Q_CONS unit) of unit 0 of the beat
//   s_lo, s_hi  the units of the beat that belong to the stream now: [s_lo, s_hi), 0 <= s_lo < s_hi
//               <= UPB (a read's first bus word may start before the unread units, its last may run
//               past PROD; those units are not parsed)
//   s_prod      the queue's PROD (units) the read was issued against: a record that runs past it is
//               REJECTED PK_TRUNCATED and halts the stream
//   s_buf_addr  byte address in the packed buffer of unit 0 of the beat (2^BUF_AW bytes; the fetch
//               keeps each queue's stream in linked 512-byte chunks, so only the beat's own units
//               are known to be contiguous)
//   s_err       the beat came back with a DMA error (rresp != OKAY): its units are not parsed; the
//               queue halts at it and one record says so (m_rec_dma, below)
// Per-queue state (units to skip to the next record, a BASE value pending, halted, base_ns, the open
// frame: the one whose body runs past the beats seen so far, with its record word, unit, address) lives in
// a RAM of 2^QUEUE_W words, written through on every change and read when a beat of another queue
// comes up (one idle cycle per change of queue). s_clr_* zeroes one queue's state (the fetch sends
// it when a packed queue is enabled; taken only while no beat is held here).
//
// Output m_rec_*, one per FRAME or malformed record, in stream order per queue. A FRAME is emitted
// once the beat holding its last unit has come (the whole frame is in the buffer: the transmit side
// may read it at once); a malformed record at its header. Fields:
//   queue, unit (the record's unit index), addr (buffer byte address of the record: the frame's bytes
//   follow it in the queue's chunk chain), len, kind, launch_ns (base_ns + launch_off, base_ns as at
//   the record; the PHC time at emission for ASAP), asap,
//   reason (0: a valid frame to schedule; else the REJECT_* code), halt (the record halted the queue:
//   PK_BAD_TYPE or PK_TRUNCATED), dma (a beat with s_err halted the queue: the open frame, the one
//   whose body the failed beat cuts, with its record's fields, kind FRAME, reason 0, halt 1; or, when
//   no frame was open, a marker with kind 0, len 0, halt 1 and unit = the first unit of the failed
//   beat not yet parsed). Reason order: PK_BAD_TYPE, PK_TRUNCATED, ZERO_LEN, OVERSIZE,
//   BAD_FLAGS, PK_TOO_EARLY (launch_ns > phc_ns + cfg_ahead_ns, not for ASAP).
//
// Throughput: one header and at most one emitted record per cycle, and a beat per cycle while its
// records allow (a beat whose units hold k record starts takes max(1, k) cycles, one more when an
// open frame ends in it and the header after it would emit too), plus one idle cycle when the queue
// changes. DMA read errors come as s_err (the fetch, tsnic_pk_fetch, completes an open frame cut by
// one DMA_ERROR and halts the queue).
`resetall
`timescale 1ns / 1ps
`default_nettype none

`include "tsnic_contract.vh"

module tsnic_pk_parse #(
    parameter DATA_W        = 512,    // beat width, 64..512, a multiple of 64
    parameter QUEUE_W       = 3,      // queues 2^QUEUE_W
    parameter BUF_AW        = 17,     // packed buffer bytes 2^BUF_AW
    parameter MAX_FRAME_LEN = 9600,
    parameter UPB           = DATA_W / 64,                    // units per beat (do not set)
    parameter CW            = (UPB > 1) ? $clog2(UPB) : 1     // cursor width (do not set)
) (
    input  wire                 clk,
    input  wire                 rst,
    input  wire [63:0]          phc_ns,
    input  wire [31:0]          cfg_ahead_ns,

    input  wire                 s_valid,
    output wire                 s_ready,
    input  wire [DATA_W-1:0]    s_data,
    input  wire [QUEUE_W-1:0]   s_queue,
    input  wire [15:0]          s_unit,
    input  wire [CW-1:0]        s_lo,
    input  wire [CW:0]          s_hi,
    input  wire [15:0]          s_prod,
    input  wire [BUF_AW-1:0]    s_buf_addr,
    input  wire                 s_err,

    input  wire                 s_clr_valid,
    output wire                 s_clr_ready,
    input  wire [QUEUE_W-1:0]   s_clr_queue,

    output reg                  m_rec_valid,
    input  wire                 m_rec_ready,
    output reg  [QUEUE_W-1:0]   m_rec_queue,
    output reg  [15:0]          m_rec_unit,
    output reg  [BUF_AW-1:0]    m_rec_addr,
    output reg  [15:0]          m_rec_len,
    output reg  [7:0]           m_rec_kind,
    output reg  [63:0]          m_rec_launch_ns,
    output reg                  m_rec_asap,
    output reg  [7:0]           m_rec_reason,
    output reg                  m_rec_halt,
    output reg                  m_rec_dma
);

generate
    if (DATA_W < 64 || DATA_W > 512 || DATA_W % 64 != 0 || (UPB & (UPB - 1)) != 0) begin : g_bad_w
        tsnic_param_error_pk_parse_DATA_W_must_be_64_128_256_or_512 param_error_inst ();
    end
    if (BUF_AW < $clog2(DATA_W / 8) + 1 || BUF_AW > 30) begin : g_bad_aw
        tsnic_param_error_pk_parse_BUF_AW_out_of_range param_error_inst ();
    end
endgenerate

localparam SPAN_W = 14;                  // units after a record header: ceil(65535 / 8) = 8192
// per-queue state: skip, pend, halted, base_ns, and the open frame (one whose body runs past the
// beats seen so far): open, its record word, unit and buffer address
localparam ST_W   = SPAN_W + 2 + 64 + 1 + 64 + 16 + BUF_AW;

// ------------------------------------------------------------------------------------------------
// Input skid (s_ready from a register) and the lane precompute of the beat entering the work stage

reg                 sk_valid = 1'b0;
reg [DATA_W-1:0]    sk_data = {DATA_W{1'b0}};
reg [QUEUE_W-1:0]   sk_queue = {QUEUE_W{1'b0}};
reg [15:0]          sk_unit = 16'd0;
reg [CW-1:0]        sk_lo = {CW{1'b0}};
reg [CW:0]          sk_hi = {(CW+1){1'b0}};
reg [15:0]          sk_prod = 16'd0;
reg [BUF_AW-1:0]    sk_buf = {BUF_AW{1'b0}};
reg                 sk_err = 1'b0;

reg                 init_busy = 1'b1;
reg [QUEUE_W-1:0]   init_q = {QUEUE_W{1'b0}};

assign s_ready     = !sk_valid && !init_busy;
assign s_clr_ready = !init_busy && !sk_valid && !w_valid && !s_valid;

// the beat that the work stage loads next: the skid's if it holds one, else the input's
wire [DATA_W-1:0]   n_data = sk_valid ? sk_data  : s_data;
wire [QUEUE_W-1:0]  n_queue = sk_valid ? sk_queue : s_queue;
wire [15:0]         n_unit = sk_valid ? sk_unit  : s_unit;
wire [CW-1:0]       n_lo   = sk_valid ? sk_lo    : s_lo;
wire [CW:0]         n_hi   = sk_valid ? sk_hi    : s_hi;
wire [15:0]         n_prod = sk_valid ? sk_prod  : s_prod;
wire [BUF_AW-1:0]   n_buf  = sk_valid ? sk_buf   : s_buf_addr;
wire                n_err  = sk_valid ? sk_err   : s_err;
wire                n_valid = sk_valid || (s_valid && s_ready);

// per lane i, independent of the queue's state:
//   span: units after the header to the next record (FRAME ceil(len/8), BASE 1, bad 0)
//   bad, base, trunc (record runs past PROD), ge (the record reaches the beat's end: rem <= span),
//   d = span - rem (units to skip in later beats), nxt = i + 1 + span (next header, when !ge)
wire [UPB-1:0]        n_bad, n_base, n_trunc, n_ge, n_opens;
wire [UPB*SPAN_W-1:0] n_d;
wire [UPB*CW-1:0]     n_nxt;

genvar gi;
generate
    for (gi = 0; gi < UPB; gi = gi + 1) begin : g_lane
        localparam [15:0] LI    = gi;
        wire [23:0]       w     = n_data[64*gi +: 24];          // len, kind (flags/offset: stage A)
        wire [15:0]       len   = w[`TSNIC_PKR_LEN_LSB +: 16];
        wire [7:0]        kind  = w[`TSNIC_PKR_KIND_LSB +: 8];
        wire              isf   = (kind == `TSNIC_PK_TYPE_FRAME);
        wire              isb   = (kind == `TSNIC_PK_TYPE_BASE);
        wire [SPAN_W-1:0] flen  = {1'b0, len[15:3]} + {{(SPAN_W-1){1'b0}}, |len[2:0]};
        wire [SPAN_W-1:0] span  = isf ? flen : (isb ? {{(SPAN_W-1){1'b0}}, 1'b1} : {SPAN_W{1'b0}});
        wire [15:0]       avail = n_prod - (n_unit + LI);       // units posted from this one on
        wire [16:0]       need  = {3'b000, span} + 17'd1;
        wire [CW:0]       rem   = n_hi - LI[CW:0] - 1'b1;       // units after lane i in the beat
        assign n_bad[gi]   = !(isf || isb);
        assign n_base[gi]  = isb;
        assign n_trunc[gi] = (isf || isb) && (need > {1'b0, avail});
        assign n_ge[gi]    = ({{(SPAN_W-CW-1){1'b0}}, rem} <= span);
        assign n_d[SPAN_W*gi +: SPAN_W] = span - {{(SPAN_W-CW-1){1'b0}}, rem};
        // a FRAME whose body runs past this beat (rem < span): emitted when its body ends
        assign n_opens[gi] = isf && ({{(SPAN_W-CW-1){1'b0}}, rem} < span)
                             && !((isf || isb) && (need > {1'b0, avail}));
        assign n_nxt[CW*gi +: CW] = LI[CW-1:0] + 1'b1 + span[CW-1:0];
    end
endgenerate

// ------------------------------------------------------------------------------------------------
// Work stage: the current beat with its lane facts, the cursor, and the queue's state

reg                 w_valid = 1'b0;
reg [DATA_W-1:0]    w_data = {DATA_W{1'b0}};
reg [15:0]          w_unit = 16'd0;
reg [CW:0]          w_hi = {(CW+1){1'b0}};
reg [BUF_AW-1:0]    w_buf = {BUF_AW{1'b0}};
reg                 w_err = 1'b0;
reg [UPB-1:0]       w_bad = {UPB{1'b0}}, w_base = {UPB{1'b0}}, w_trunc = {UPB{1'b0}}, w_ge = {UPB{1'b0}};
reg [UPB-1:0]       w_opens = {UPB{1'b0}};
reg [UPB*SPAN_W-1:0] w_d = {(UPB*SPAN_W){1'b0}};
reg [UPB*CW-1:0]    w_nxt = {(UPB*CW){1'b0}};
reg [CW-1:0]        c = {CW{1'b0}};          // cursor: the next unit of the beat to look at

// the queue's state in registers (valid for st_q when st_ok), and its RAM
reg                 st_ok = 1'b0;
reg [QUEUE_W-1:0]   st_q = {QUEUE_W{1'b0}};
reg                 st_load = 1'b0;          // this cycle the RAM output is w_queue's state
reg [SPAN_W-1:0]    skip = {SPAN_W{1'b0}};
reg                 pend = 1'b0;
reg                 halted = 1'b0;
reg [63:0]          base = 64'd0;
reg                 open = 1'b0;
reg [63:0]          o_w = 64'd0;
reg [15:0]          o_unit = 16'd0;
reg [BUF_AW-1:0]    o_addr = {BUF_AW{1'b0}};

wire [ST_W-1:0]     ram_rd;
reg                 ram_we;
reg [QUEUE_W-1:0]   ram_wa;
reg [ST_W-1:0]      ram_wd;

tsnic_ram_sdp #(.WIDTH(ST_W), .ADDR_W(QUEUE_W)) st_ram (
    .clk(clk), .wr_en(ram_we), .wr_addr(ram_wa), .wr_data(ram_wd),
    .rd_en(w_load), .rd_addr(n_queue), .rd_data(ram_rd)
);

// emit register (stage E) and the pipeline's advance
reg                 e_valid = 1'b0;
reg [QUEUE_W-1:0]   e_queue = {QUEUE_W{1'b0}};
reg [15:0]          e_unit = 16'd0;
reg [BUF_AW-1:0]    e_addr = {BUF_AW{1'b0}};
reg [63:0]          e_w = 64'd0;
reg [63:0]          e_base = 64'd0;
reg                 e_bad = 1'b0, e_trunc = 1'b0, e_dma = 1'b0;
reg                 a_valid = 1'b0;

wire adv_m = !m_rec_valid || m_rec_ready;
wire adv_a = !a_valid || adv_m;
wire adv_e = !e_valid || adv_a;

// one step of the work stage (combinational)
wire                w_run = w_valid && st_ok && !st_load && adv_e;
wire [CW:0]         n_left = w_hi - {1'b0, c};                     // units left in the beat, >= 1
wire                skip_all = (skip >= {{(SPAN_W-CW-1){1'b0}}, n_left});
// lane indexes masked to the beat (a no-op but at UPB = 1, where the 1-bit cursor is always 0)
localparam integer  LMASK_I = UPB - 1;
localparam [CW-1:0] LMASK = LMASK_I[CW-1:0];
wire [CW-1:0]       cm = c & LMASK;
wire [CW-1:0]       pos = (c + skip[CW-1:0]) & LMASK;              // header position (when !skip_all)
wire [CW-1:0]       pos1 = (pos + 1'b1) & LMASK;
wire [63:0]         u_c = w_data[64*cm +: 64];
wire [63:0]         u_pos = w_data[64*pos +: 64];
wire [63:0]         u_val = w_data[64*pos1 +: 64];                 // a BASE's value, when in this beat
wire [CW:0]         pos_rem = w_hi - {1'b0, pos} - 1'b1;
wire                h_bad = w_bad[pos], h_trunc = w_trunc[pos], h_base = w_base[pos], h_ge = w_ge[pos];
wire [SPAN_W-1:0]   h_d = w_d[SPAN_W*pos +: SPAN_W];
wire [CW-1:0]       h_nxt = w_nxt[CW*pos +: CW];
wire [CW:0]         c_inc = {1'b0, c} + 1'b1;
wire [BUF_AW-1:0]   pos_off = {{(BUF_AW-CW-3){1'b0}}, pos, 3'b000};   // 8 * pos: the record's address

// the header at pos: a FRAME whose body runs past this beat opens (emitted when the body ends);
// anything else that is not a BASE is emitted now
wire                h_opens = w_opens[pos];
wire                h_emits = !h_base && !h_opens;

reg                 pop;                     // the beat is done this cycle
reg                 emit;
reg                 emit_open;               // the record emitted is the open frame
reg                 emit_dma;                // a DMA error halts the queue: the open frame or a marker
reg [CW-1:0]        c_n;
reg [SPAN_W-1:0]    skip_n;
reg                 pend_n, halted_n;
reg [63:0]          base_n;
reg                 open_n;
reg                 take_open;               // the header at pos becomes the open frame

always @* begin
    pop = 1'b0;
    emit = 1'b0;
    emit_open = 1'b0;
    emit_dma = 1'b0;
    c_n = c;
    skip_n = skip;
    pend_n = pend;
    halted_n = halted;
    base_n = base;
    open_n = open;
    take_open = 1'b0;
    if (w_run) begin
        if (halted) begin
            pop = 1'b1;
        end else if (w_err) begin
            // a failed beat: the open frame (if any) is emitted as the DMA error record, else a
            // marker at the cursor; the queue halts
            emit = 1'b1;
            emit_dma = 1'b1;
            emit_open = open;
            open_n = 1'b0;
            halted_n = 1'b1;
            pop = 1'b1;
        end else if (pend) begin
            base_n = u_c;
            pend_n = 1'b0;
            c_n = c_inc[CW-1:0];
            pop = (c_inc >= w_hi);
        end else if (skip_all) begin
            skip_n = skip - {{(SPAN_W-CW-1){1'b0}}, n_left};
            pop = 1'b1;
            if (open && skip_n == {SPAN_W{1'b0}}) begin
                // the open frame's body ends with this beat
                emit = 1'b1;
                emit_open = 1'b1;
                open_n = 1'b0;
            end
        end else if (open && h_emits) begin
            // the open frame's body ends inside this beat, and the header after it would emit
            // too: the open frame now, the header next cycle
            emit = 1'b1;
            emit_open = 1'b1;
            open_n = 1'b0;
            skip_n = {SPAN_W{1'b0}};
            c_n = pos;
        end else begin
            skip_n = {SPAN_W{1'b0}};
            if (open) begin
                emit = 1'b1;
                emit_open = 1'b1;
                open_n = 1'b0;
            end
            if (h_bad || h_trunc) begin
                emit = 1'b1;
                halted_n = 1'b1;
                pop = 1'b1;
            end else begin
                if (h_emits) emit = 1'b1;
                if (h_opens) begin
                    open_n = 1'b1;
                    take_open = 1'b1;
                end
                if (h_base) base_n = u_val;
                if (h_base && pos_rem == {(CW+1){1'b0}}) begin
                    // the BASE value is the first unit of the queue's next beat
                    base_n = base;
                    pend_n = 1'b1;
                    pop = 1'b1;
                end else if (h_ge) begin
                    skip_n = h_d;
                    pop = 1'b1;
                end else begin
                    c_n = h_nxt;
                end
            end
        end
    end
end

wire [15:0]         h_unit = w_unit + {{(16-CW){1'b0}}, pos};
wire [BUF_AW-1:0]   h_addr = w_buf + pos_off;
wire [63:0]         o_w_n = take_open ? u_pos : o_w;
wire [15:0]         o_unit_n = take_open ? h_unit : o_unit;
wire [BUF_AW-1:0]   o_addr_n = take_open ? h_addr : o_addr;

wire w_take = !w_valid || pop;               // the work stage loads the next beat
wire w_load = w_take && n_valid;

always @* begin
    ram_we = 1'b0;
    ram_wa = st_q;
    ram_wd = {skip_n, pend_n, halted_n, base_n, open_n, o_w_n, o_unit_n, o_addr_n};
    if (init_busy) begin
        ram_we = 1'b1;
        ram_wa = init_q;
        ram_wd = {ST_W{1'b0}};
    end else if (s_clr_valid && s_clr_ready) begin
        ram_we = 1'b1;
        ram_wa = s_clr_queue;
        ram_wd = {ST_W{1'b0}};
    end else if (w_run) begin
        ram_we = 1'b1;
    end
end

always @(posedge clk) begin
    // input skid
    if (s_valid && s_ready && !(w_take && !sk_valid)) begin
        sk_valid <= 1'b1;
        sk_data <= s_data;
        sk_queue <= s_queue;
        sk_unit <= s_unit;
        sk_lo <= s_lo;
        sk_hi <= s_hi;
        sk_prod <= s_prod;
        sk_buf <= s_buf_addr;
        sk_err <= s_err;
    end else if (w_take && sk_valid) begin
        sk_valid <= 1'b0;
    end

    // work stage
    if (w_take) begin
        w_valid <= n_valid;
    end
    if (w_load) begin
        w_data <= n_data;
        w_unit <= n_unit;
        w_hi <= n_hi;
        w_buf <= n_buf;
        w_err <= n_err;
        w_bad <= n_bad;
        w_base <= n_base;
        w_trunc <= n_trunc;
        w_ge <= n_ge;
        w_opens <= n_opens;
        w_d <= n_d;
        w_nxt <= n_nxt;
        c <= n_lo;
    end else begin
        c <= c_n;
    end
    skip <= skip_n;
    pend <= pend_n;
    halted <= halted_n;
    base <= base_n;
    open <= open_n;
    o_w <= o_w_n;
    o_unit <= o_unit_n;
    o_addr <= o_addr_n;
    // a beat of another queue: its state comes from the RAM (read at this load) next cycle
    st_load <= 1'b0;
    if (w_load && !(st_ok && n_queue == st_q)) begin
        st_load <= 1'b1;
        st_q <= n_queue;
        st_ok <= 1'b1;
    end
    if (st_load) begin
        {skip, pend, halted, base, open, o_w, o_unit, o_addr} <= ram_rd;
    end
    if (s_clr_valid && s_clr_ready && s_clr_queue == st_q) begin
        st_ok <= 1'b0;
    end

    // stage E: the record's raw facts
    if (adv_e) begin
        e_valid <= emit;
    end
    if (emit) begin
        e_queue <= st_q;
        e_base <= base;
        e_dma <= emit_dma;
        if (emit_dma && !emit_open) begin
            e_unit <= w_unit + {{(16-CW){1'b0}}, c};
            e_addr <= w_buf + {{(BUF_AW-CW-3){1'b0}}, c, 3'b000};
            e_w <= 64'd0;
            e_bad <= 1'b0;
            e_trunc <= 1'b0;
        end else if (emit_open) begin
            e_unit <= o_unit;
            e_addr <= o_addr;
            e_w <= o_w;
            e_bad <= 1'b0;
            e_trunc <= 1'b0;
        end else begin
            e_unit <= h_unit;
            e_addr <= h_addr;
            e_w <= u_pos;
            e_bad <= h_bad;
            e_trunc <= h_trunc;
        end
    end

    if (rst) begin
        sk_valid <= 1'b0;
        w_valid <= 1'b0;
        c <= {CW{1'b0}};
        st_ok <= 1'b0;
        st_load <= 1'b0;
        skip <= {SPAN_W{1'b0}};
        pend <= 1'b0;
        halted <= 1'b0;
        base <= 64'd0;
        open <= 1'b0;
        e_valid <= 1'b0;
    end
end

// init sweep: every queue's state zeroed after reset
always @(posedge clk) begin
    if (init_busy) begin
        init_q <= init_q + 1'b1;
        if (init_q == {QUEUE_W{1'b1}}) init_busy <= 1'b0;
    end
    if (rst) begin
        init_busy <= 1'b1;
        init_q <= {QUEUE_W{1'b0}};
    end
end

// ------------------------------------------------------------------------------------------------
// Stage A: launch time and the early limit; stage M: the reason, to the output register

reg [QUEUE_W-1:0]   a_queue = {QUEUE_W{1'b0}};
reg [15:0]          a_unit = 16'd0;
reg [BUF_AW-1:0]    a_addr = {BUF_AW{1'b0}};
reg [15:0]          a_len = 16'd0;
reg [7:0]           a_kind = 8'd0;
reg [63:0]          a_launch = 64'd0;
reg [64:0]          a_limit = 65'd0;
reg                 a_asap = 1'b0;
reg [7:0]           a_reason = 8'd0;     // every reason but PK_TOO_EARLY
reg                 a_halt = 1'b0;
reg                 a_dma = 1'b0;

wire [15:0] e_len   = e_w[`TSNIC_PKR_LEN_LSB +: 16];
wire [7:0]  e_flags = e_w[`TSNIC_PKR_FLAGS_LSB +: 8];
wire        e_asap  = e_flags[`TSNIC_PK_FLAG_ASAP_BIT];

always @(posedge clk) begin
    if (adv_a) begin
        a_valid <= e_valid;
    end
    if (adv_a && e_valid) begin
        a_queue <= e_queue;
        a_unit <= e_unit;
        a_addr <= e_addr;
        a_len <= e_len;
        a_kind <= e_w[`TSNIC_PKR_KIND_LSB +: 8];
        a_asap <= e_asap;
        a_launch <= e_asap ? phc_ns : e_base + {32'd0, e_w[`TSNIC_PKR_LAUNCH_OFF_LSB +: 32]};
        a_limit <= {1'b0, phc_ns} + {33'd0, cfg_ahead_ns};
        a_halt <= e_bad || e_trunc || e_dma;
        a_dma <= e_dma;
        if (e_dma)                                   a_reason <= `TSNIC_REJECT_NONE;
        else if (e_bad)                                   a_reason <= `TSNIC_REJECT_PK_BAD_TYPE;
        else if (e_trunc)                            a_reason <= `TSNIC_REJECT_PK_TRUNCATED;
        else if (e_len == 16'd0)                     a_reason <= `TSNIC_REJECT_ZERO_LEN;
        else if (e_len > MAX_FRAME_LEN)              a_reason <= `TSNIC_REJECT_OVERSIZE;
        else if ((e_flags & ~(8'd1 << `TSNIC_PK_FLAG_ASAP_BIT)) != 8'd0)
                                                     a_reason <= `TSNIC_REJECT_BAD_FLAGS;
        else                                         a_reason <= `TSNIC_REJECT_NONE;
    end

    if (adv_m) begin
        m_rec_valid <= a_valid;
    end
    if (adv_m && a_valid) begin
        m_rec_queue <= a_queue;
        m_rec_unit <= a_unit;
        m_rec_addr <= a_addr;
        m_rec_len <= a_len;
        m_rec_kind <= a_kind;
        m_rec_launch_ns <= a_launch;
        m_rec_asap <= a_asap;
        m_rec_halt <= a_halt;
        m_rec_dma <= a_dma;
        if (a_reason == `TSNIC_REJECT_NONE && !a_asap && !a_dma && {1'b0, a_launch} > a_limit)
            m_rec_reason <= `TSNIC_REJECT_PK_TOO_EARLY;
        else
            m_rec_reason <= a_reason;
    end

    if (rst) begin
        a_valid <= 1'b0;
        m_rec_valid <= 1'b0;
    end
end

initial begin
    m_rec_valid = 1'b0;
    m_rec_queue = {QUEUE_W{1'b0}};
    m_rec_unit = 16'd0;
    m_rec_addr = {BUF_AW{1'b0}};
    m_rec_len = 16'd0;
    m_rec_kind = 8'd0;
    m_rec_launch_ns = 64'd0;
    m_rec_asap = 1'b0;
    m_rec_reason = 8'd0;
    m_rec_halt = 1'b0;
    m_rec_dma = 1'b0;
end

endmodule

`resetall
