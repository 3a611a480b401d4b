// tsnic_pcie_us_axil: BAR0 of the Xilinx PCIe hard block's completer interfaces (CQ in, CC out) to
// the core's AXI-Lite registers and to the endpoint's own MSI-X table/PBA window.
//
// One request at a time. A request takes the whole CQ TLP (extra beats are drained), then:
//   - MemWr to BAR0, 1 dword: an AXI-Lite write (wstrb = first BE), or a write to the MSI-X window.
//   - MemRd from BAR0, 1 dword: an AXI-Lite read (or MSI-X window read), then a CC completion with data.
//   - MemRd of another length, or any AXI-Lite read answered with SLVERR/DECERR: completer abort.
//   - any other non-posted request (I/O, atomics, locked read, config) or a BAR other than 0:
//     unsupported request. Posted requests that cannot be served (other BARs, messages, MemWr of
//     another length) are dropped and counted on bad_posted.
// The MSI-X window is [MSIX_BASE, MSIX_BASE + 64 KiB): table at +0, PBA at +0x8000 (tsnic_pcie_msix).
// CQ/CC descriptors: Xilinx PG213 / PG156 layout, dword-aligned mode, straddle off. US_PLUS_512 = 1
// selects the 512-bit UltraScale+ tuser layout (is_sop/is_eop fields), 0 the 256-bit one (pcie3_7x,
// pcie4 at 256 bits).
`resetall
`timescale 1ns / 1ps
`default_nettype none

module tsnic_pcie_us_axil #(
    parameter DATA_W       = 512,
    parameter KEEP_W       = DATA_W / 32,
    parameter CQ_USER_W    = 183,
    parameter CC_USER_W    = 81,
    parameter US_PLUS_512  = 1,
    parameter ADDR_W       = 20,              // BAR0 size 2^ADDR_W bytes (AXI-Lite address width)
    parameter [19:0] MSIX_BASE = 20'h20000    // 64 KiB aligned
) (
    input  wire                 clk,
    input  wire                 rst,

    // CQ (from the hard block)
    /* verilator lint_off UNUSEDSIGNAL */
    input  wire [DATA_W-1:0]    s_axis_cq_tdata,
    input  wire [KEEP_W-1:0]    s_axis_cq_tkeep,
    input  wire [CQ_USER_W-1:0] s_axis_cq_tuser,
    /* verilator lint_on UNUSEDSIGNAL */
    input  wire                 s_axis_cq_tvalid,
    output wire                 s_axis_cq_tready,
    input  wire                 s_axis_cq_tlast,

    // CC (to the hard block)
    output wire [DATA_W-1:0]    m_axis_cc_tdata,
    output wire [KEEP_W-1:0]    m_axis_cc_tkeep,
    output wire                 m_axis_cc_tvalid,
    input  wire                 m_axis_cc_tready,
    output wire                 m_axis_cc_tlast,
    output wire [CC_USER_W-1:0] m_axis_cc_tuser,

    // AXI-Lite master (to the core's registers)
    output wire [ADDR_W-1:0]    m_axil_awaddr,
    output wire [2:0]           m_axil_awprot,
    output wire                 m_axil_awvalid,
    input  wire                 m_axil_awready,
    output wire [31:0]          m_axil_wdata,
    output wire [3:0]           m_axil_wstrb,
    output wire                 m_axil_wvalid,
    input  wire                 m_axil_wready,
    /* verilator lint_off UNUSEDSIGNAL */
    input  wire [1:0]           m_axil_bresp,
    input  wire                 m_axil_bvalid,
    output wire                 m_axil_bready,
    output wire [ADDR_W-1:0]    m_axil_araddr,
    output wire [2:0]           m_axil_arprot,
    output wire                 m_axil_arvalid,
    input  wire                 m_axil_arready,
    input  wire [31:0]          m_axil_rdata,
    input  wire [1:0]           m_axil_rresp,
    /* verilator lint_on UNUSEDSIGNAL */
    input  wire                 m_axil_rvalid,
    output wire                 m_axil_rready,

    // MSI-X window (tsnic_pcie_msix): writes take effect at once, reads are combinational
    output reg                  msix_wr_en,
    output reg  [15:0]          msix_addr,
    output reg  [31:0]          msix_wr_data,
    output reg  [3:0]           msix_wr_strb,
    input  wire [31:0]          msix_rd_data,    // combinational from msix_addr

    output reg                  bad_np,       // pulse: a non-posted request answered UR or CA
    output reg                  bad_posted    // pulse: a posted request dropped
);

localparam [3:0] S_IDLE = 4'd0, S_DRAIN = 4'd1, S_DISPATCH = 4'd2, S_AXIL_W = 4'd3, S_AXIL_B = 4'd4,
                 S_AXIL_AR = 4'd5, S_AXIL_R = 4'd6, S_MSIX_R = 4'd7, S_CC = 4'd8;

localparam [2:0] CPL_SC = 3'b000, CPL_UR = 3'b001, CPL_CA = 3'b100;

reg [3:0]  state = S_IDLE;

// request fields
reg [ADDR_W-1:2] q_addr = 0;
reg [10:0] q_dwords = 11'd0;
reg [3:0]  q_type = 4'd0;
reg [15:0] q_req_id = 16'd0;
reg [7:0]  q_tag = 8'd0;
reg [7:0]  q_func = 8'd0;
reg [2:0]  q_bar = 3'd0;
reg [2:0]  q_tc = 3'd0;
reg [2:0]  q_attr = 3'd0;
reg [31:0] q_data = 32'd0;
reg [3:0]  q_fbe = 4'd0;

// completion
reg [2:0]  c_status = CPL_SC;
reg [31:0] c_data = 32'd0;

reg awvalid_reg = 1'b0, wvalid_reg = 1'b0, arvalid_reg = 1'b0;
reg cc_valid_reg = 1'b0;

initial begin
    msix_wr_en = 1'b0;
    msix_addr = 16'd0;
    msix_wr_data = 32'd0;
    msix_wr_strb = 4'd0;
    bad_np = 1'b0;
    bad_posted = 1'b0;
end

wire [3:0] cq_fbe = s_axis_cq_tuser[3:0];

assign s_axis_cq_tready = (state == S_IDLE) || (state == S_DRAIN);

// request classification (after the TLP is in)
wire is_mem_rd  = (q_type == 4'b0000);
wire is_mem_wr  = (q_type == 4'b0001);
wire non_posted = (q_type == 4'b0000) || (q_type >= 4'b0010 && q_type <= 4'b1011);
wire in_msix    = ({q_addr, 2'b00} >> 16) == ({{(ADDR_W > 20 ? ADDR_W - 20 : 0){1'b0}}, MSIX_BASE} >> 16);

// byte count and lower address of a 1-dword read (PCIe base spec table 2-38)
reg [2:0] bc1;
reg [1:0] la1;
always @* begin
    casez (q_fbe)
        4'b1??1: bc1 = 3'd4;
        4'b01?1: bc1 = 3'd3;
        4'b1?10: bc1 = 3'd3;
        4'b0011: bc1 = 3'd2;
        4'b0110: bc1 = 3'd2;
        4'b1100: bc1 = 3'd2;
        default: bc1 = 3'd1;
    endcase
    casez (q_fbe)
        4'b???1: la1 = 2'd0;
        4'b??10: la1 = 2'd1;
        4'b?100: la1 = 2'd2;
        4'b1000: la1 = 2'd3;
        default: la1 = 2'd0;
    endcase
end

wire [12:0] c_bytes = (q_dwords == 11'd1) ? {10'd0, bc1} : {q_dwords, 2'b00};

// CC descriptor (96 bits) + one data dword
wire [127:0] cc_word;
assign cc_word[6:0]    = {q_addr[6:2], la1};
assign cc_word[7]      = 1'b0;
assign cc_word[9:8]    = 2'b00;           // AT
assign cc_word[15:10]  = 6'd0;
assign cc_word[28:16]  = c_bytes;
assign cc_word[29]     = 1'b0;            // locked read completion
assign cc_word[31:30]  = 2'b00;
assign cc_word[42:32]  = (c_status == CPL_SC) ? 11'd1 : 11'd0;
assign cc_word[45:43]  = c_status;
assign cc_word[46]     = 1'b0;            // poisoned
assign cc_word[47]     = 1'b0;
assign cc_word[63:48]  = q_req_id;
assign cc_word[71:64]  = q_tag;
assign cc_word[79:72]  = q_func;
assign cc_word[87:80]  = 8'd0;            // completer bus (hard block fills it: ID enable = 0)
assign cc_word[88]     = 1'b0;
assign cc_word[91:89]  = q_tc;
assign cc_word[94:92]  = q_attr;
assign cc_word[95]     = 1'b0;
assign cc_word[127:96] = c_data;

wire [3:0] cc_dw_last = (c_status == CPL_SC) ? 4'd3 : 4'd2;

assign m_axis_cc_tdata  = {{(DATA_W-128){1'b0}}, cc_word};
assign m_axis_cc_tkeep  = (c_status == CPL_SC) ? {{(KEEP_W-4){1'b0}}, 4'b1111} : {{(KEEP_W-3){1'b0}}, 3'b111};
assign m_axis_cc_tvalid = cc_valid_reg;
assign m_axis_cc_tlast  = 1'b1;
generate
    if (US_PLUS_512) begin : g_cc_user_512
        // is_sop[1:0], is_sop0_ptr[3:2], is_sop1_ptr[5:4], is_eop[7:6], is_eop0_ptr[11:8], is_eop1_ptr[15:12]
        assign m_axis_cc_tuser = {{(CC_USER_W-12){1'b0}}, cc_dw_last, 2'b01, 4'b0000, 2'b01};
    end else begin : g_cc_user_256
        assign m_axis_cc_tuser = {CC_USER_W{1'b0}};
        wire unused_256 = &{1'b0, cc_dw_last};
    end
endgenerate

assign m_axil_awaddr  = {q_addr, 2'b00};
assign m_axil_awprot  = 3'b010;
assign m_axil_awvalid = awvalid_reg;
assign m_axil_wdata   = q_data;
assign m_axil_wstrb   = q_fbe;
assign m_axil_wvalid  = wvalid_reg;
assign m_axil_bready  = (state == S_AXIL_B);
assign m_axil_araddr  = {q_addr, 2'b00};
assign m_axil_arprot  = 3'b010;
assign m_axil_arvalid = arvalid_reg;
assign m_axil_rready  = (state == S_AXIL_R);

always @(posedge clk) begin
    msix_wr_en <= 1'b0;
    bad_np <= 1'b0;
    bad_posted <= 1'b0;

    case (state)
        S_IDLE: begin
            if (s_axis_cq_tvalid) begin
                q_addr   <= s_axis_cq_tdata[ADDR_W-1:2];
                q_dwords <= s_axis_cq_tdata[74:64];
                q_type   <= s_axis_cq_tdata[78:75];
                q_req_id <= s_axis_cq_tdata[95:80];
                q_tag    <= s_axis_cq_tdata[103:96];
                q_func   <= s_axis_cq_tdata[111:104];
                q_bar    <= s_axis_cq_tdata[114:112];
                q_tc     <= s_axis_cq_tdata[123:121];
                q_attr   <= s_axis_cq_tdata[126:124];
                q_data   <= s_axis_cq_tdata[159:128];
                q_fbe    <= cq_fbe;
                state    <= s_axis_cq_tlast ? S_DISPATCH : S_DRAIN;
            end
        end
        S_DRAIN: begin
            if (s_axis_cq_tvalid && s_axis_cq_tlast) state <= S_DISPATCH;
        end
        S_DISPATCH: begin
            c_data <= 32'd0;
            if (q_bar != 3'd0 || !(is_mem_rd || is_mem_wr)) begin
                if (non_posted) begin
                    c_status <= CPL_UR;
                    cc_valid_reg <= 1'b1;
                    bad_np <= 1'b1;
                    state <= S_CC;
                end else begin
                    bad_posted <= 1'b1;
                    state <= S_IDLE;
                end
            end else if (q_dwords != 11'd1) begin
                if (is_mem_rd) begin
                    c_status <= CPL_CA;
                    cc_valid_reg <= 1'b1;
                    bad_np <= 1'b1;
                    state <= S_CC;
                end else begin
                    bad_posted <= 1'b1;
                    state <= S_IDLE;
                end
            end else if (in_msix) begin
                msix_addr    <= {q_addr[15:2], 2'b00};
                msix_wr_data <= q_data;
                msix_wr_strb <= q_fbe;
                if (is_mem_wr) begin
                    msix_wr_en <= 1'b1;
                    state <= S_IDLE;
                end else begin
                    state <= S_MSIX_R;
                end
            end else if (is_mem_wr) begin
                awvalid_reg <= 1'b1;
                wvalid_reg <= 1'b1;
                state <= S_AXIL_W;
            end else begin
                arvalid_reg <= 1'b1;
                state <= S_AXIL_AR;
            end
        end
        S_AXIL_W: begin
            if (m_axil_awready) awvalid_reg <= 1'b0;
            if (m_axil_wready) wvalid_reg <= 1'b0;
            if ((!awvalid_reg || m_axil_awready) && (!wvalid_reg || m_axil_wready)) state <= S_AXIL_B;
        end
        S_AXIL_B: begin
            if (m_axil_bvalid) state <= S_IDLE;
        end
        S_AXIL_AR: begin
            if (m_axil_arready) begin
                arvalid_reg <= 1'b0;
                state <= S_AXIL_R;
            end
        end
        S_AXIL_R: begin
            if (m_axil_rvalid) begin
                c_data <= m_axil_rdata;
                c_status <= (m_axil_rresp[1]) ? CPL_CA : CPL_SC;
                bad_np <= m_axil_rresp[1];
                cc_valid_reg <= 1'b1;
                state <= S_CC;
            end
        end
        S_MSIX_R: begin
            c_data <= msix_rd_data;
            c_status <= CPL_SC;
            cc_valid_reg <= 1'b1;
            state <= S_CC;
        end
        S_CC: begin
            if (m_axis_cc_tready) begin
                cc_valid_reg <= 1'b0;
                state <= S_IDLE;
            end
        end
        default: state <= S_IDLE;
    endcase

    if (rst) begin
        state <= S_IDLE;
        awvalid_reg <= 1'b0;
        wvalid_reg <= 1'b0;
        arvalid_reg <= 1'b0;
        cc_valid_reg <= 1'b0;
        msix_wr_en <= 1'b0;
    end
end

endmodule

`resetall
