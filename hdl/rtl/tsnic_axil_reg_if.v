// tsnic_axil_reg_if: AXI-Lite slave (BAR0) to the Corundum-style register interface of
// docs/DATAPATH.md.
//
// One write and one read in flight at a time; the two channels are independent and may be busy
// together. A write needs both AW and W (in any order); then reg_wr_en is held with the address,
// data and strobes until a block answers with reg_wr_ack. Reads likewise with reg_rd_en / reg_rd_ack,
// capturing reg_rd_data in the ack cycle. An access that no block acknowledges completes after
// TIMEOUT cycles (read data 0, OKAY): undefined offsets read 0 and writes to them do nothing.
// reg_*_wait from a block restarts the TIMEOUT count, but an access never lasts more than
// WAIT_TIMEOUT cycles, so the bus never hangs. Responses are always OKAY.
`timescale 1ns / 1ps
`default_nettype none

module tsnic_axil_reg_if #(
    parameter ADDR_W = 20,          // AXI-Lite and register interface byte address width
    parameter TIMEOUT = 16,         // cycles without ack (and without wait) before completing anyway
    parameter WAIT_TIMEOUT = 1024,  // absolute limit of one access in cycles, wait or not
    parameter CNT_W = 16            // timer width: WAIT_TIMEOUT < 2^CNT_W
) (
    input  wire              clk,
    input  wire              rst,

    // AXI-Lite slave
    input  wire [ADDR_W-1:0] s_axil_awaddr,
    /* verilator lint_off UNUSEDSIGNAL */
    input  wire [2:0]        s_axil_awprot,
    /* verilator lint_on UNUSEDSIGNAL */
    input  wire              s_axil_awvalid,
    output wire              s_axil_awready,
    input  wire [31:0]       s_axil_wdata,
    input  wire [3:0]        s_axil_wstrb,
    input  wire              s_axil_wvalid,
    output wire              s_axil_wready,
    output wire [1:0]        s_axil_bresp,
    output wire              s_axil_bvalid,
    input  wire              s_axil_bready,
    input  wire [ADDR_W-1:0] s_axil_araddr,
    /* verilator lint_off UNUSEDSIGNAL */
    input  wire [2:0]        s_axil_arprot,
    /* verilator lint_on UNUSEDSIGNAL */
    input  wire              s_axil_arvalid,
    output wire              s_axil_arready,
    output wire [31:0]       s_axil_rdata,
    output wire [1:0]        s_axil_rresp,
    output wire              s_axil_rvalid,
    input  wire              s_axil_rready,

    // register interface
    output wire [ADDR_W-1:0] reg_wr_addr,
    output wire [31:0]       reg_wr_data,
    output wire [3:0]        reg_wr_strb,
    output wire              reg_wr_en,
    input  wire              reg_wr_wait,
    input  wire              reg_wr_ack,
    output wire [ADDR_W-1:0] reg_rd_addr,
    output wire              reg_rd_en,
    input  wire [31:0]       reg_rd_data,
    input  wire              reg_rd_wait,
    input  wire              reg_rd_ack
);

localparam [CNT_W-1:0] T_IDLE = TIMEOUT - 1;
localparam [CNT_W-1:0] T_MAX = WAIT_TIMEOUT - 1;

// ---------------------------------------------------------------------------------------------
// write channel
reg              aw_ok_reg = 1'b0;
reg              w_ok_reg = 1'b0;
reg              wr_active_reg = 1'b0;
reg              bvalid_reg = 1'b0;
reg [ADDR_W-1:0] wr_addr_reg = {ADDR_W{1'b0}};
reg [31:0]       wr_data_reg = 32'd0;
reg [3:0]        wr_strb_reg = 4'd0;
reg [CNT_W-1:0]  wr_idle_cnt_reg = {CNT_W{1'b0}};
reg [CNT_W-1:0]  wr_total_cnt_reg = {CNT_W{1'b0}};

wire wr_free = !wr_active_reg && !bvalid_reg;
assign s_axil_awready = wr_free && !aw_ok_reg;
assign s_axil_wready = wr_free && !w_ok_reg;
assign s_axil_bresp = 2'b00;
assign s_axil_bvalid = bvalid_reg;
assign reg_wr_addr = wr_addr_reg;
assign reg_wr_data = wr_data_reg;
assign reg_wr_strb = wr_strb_reg;
assign reg_wr_en = wr_active_reg;

always @(posedge clk) begin
    if (s_axil_awvalid && s_axil_awready) begin
        wr_addr_reg <= s_axil_awaddr;
        aw_ok_reg <= 1'b1;
    end
    if (s_axil_wvalid && s_axil_wready) begin
        wr_data_reg <= s_axil_wdata;
        wr_strb_reg <= s_axil_wstrb;
        w_ok_reg <= 1'b1;
    end
    if (aw_ok_reg && w_ok_reg && wr_free) begin
        wr_active_reg <= 1'b1;
        wr_idle_cnt_reg <= {CNT_W{1'b0}};
        wr_total_cnt_reg <= {CNT_W{1'b0}};
    end
    if (wr_active_reg) begin
        wr_total_cnt_reg <= wr_total_cnt_reg + 1'b1;
        wr_idle_cnt_reg <= reg_wr_wait ? {CNT_W{1'b0}} : wr_idle_cnt_reg + 1'b1;
        if (reg_wr_ack || (!reg_wr_wait && wr_idle_cnt_reg == T_IDLE) || wr_total_cnt_reg == T_MAX) begin
            wr_active_reg <= 1'b0;
            aw_ok_reg <= 1'b0;
            w_ok_reg <= 1'b0;
            bvalid_reg <= 1'b1;
        end
    end
    if (bvalid_reg && s_axil_bready) begin
        bvalid_reg <= 1'b0;
    end
    if (rst) begin
        aw_ok_reg <= 1'b0;
        w_ok_reg <= 1'b0;
        wr_active_reg <= 1'b0;
        bvalid_reg <= 1'b0;
    end
end

// ---------------------------------------------------------------------------------------------
// read channel
reg              rd_active_reg = 1'b0;
reg              rvalid_reg = 1'b0;
reg [ADDR_W-1:0] rd_addr_reg = {ADDR_W{1'b0}};
reg [31:0]       rdata_reg = 32'd0;
reg [CNT_W-1:0]  rd_idle_cnt_reg = {CNT_W{1'b0}};
reg [CNT_W-1:0]  rd_total_cnt_reg = {CNT_W{1'b0}};

assign s_axil_arready = !rd_active_reg && !rvalid_reg;
assign s_axil_rdata = rdata_reg;
assign s_axil_rresp = 2'b00;
assign s_axil_rvalid = rvalid_reg;
assign reg_rd_addr = rd_addr_reg;
assign reg_rd_en = rd_active_reg;

always @(posedge clk) begin
    if (s_axil_arvalid && s_axil_arready) begin
        rd_addr_reg <= s_axil_araddr;
        rd_active_reg <= 1'b1;
        rd_idle_cnt_reg <= {CNT_W{1'b0}};
        rd_total_cnt_reg <= {CNT_W{1'b0}};
    end
    if (rd_active_reg) begin
        rd_total_cnt_reg <= rd_total_cnt_reg + 1'b1;
        rd_idle_cnt_reg <= reg_rd_wait ? {CNT_W{1'b0}} : rd_idle_cnt_reg + 1'b1;
        if (reg_rd_ack) begin
            rd_active_reg <= 1'b0;
            rvalid_reg <= 1'b1;
            rdata_reg <= reg_rd_data;
        end else if ((!reg_rd_wait && rd_idle_cnt_reg == T_IDLE) || rd_total_cnt_reg == T_MAX) begin
            rd_active_reg <= 1'b0;
            rvalid_reg <= 1'b1;
            rdata_reg <= 32'd0;
        end
    end
    if (rvalid_reg && s_axil_rready) begin
        rvalid_reg <= 1'b0;
    end
    if (rst) begin
        rd_active_reg <= 1'b0;
        rvalid_reg <= 1'b0;
        rdata_reg <= 32'd0;
    end
end

endmodule

`resetall
