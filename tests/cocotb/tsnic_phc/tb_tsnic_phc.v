// Test-only wrapper for the PHC bench: AXI-Lite -> tsnic_axil_reg_if -> tsnic_phc, a free-running
// clock (fast in Icarus), a cycle counter and the cycle of the last register acknowledge so the
// Python model can be told exactly when each access took effect.
// A second PHC with the 322.265625 MHz period parameter (512/165 ns) runs untouched beside it.
`timescale 1ns / 1ps
`default_nettype none

module tb_tsnic_phc #(
    parameter ADDR_W = 20,
    parameter PERIOD_NUM = 32,
    parameter PERIOD_DEN = 5,
    parameter PPS_WIDTH = 4,
    parameter TIMEOUT = 16
) (
    input  wire              rst,

    input  wire [ADDR_W-1:0] s_axil_awaddr,
    input  wire [2:0]        s_axil_awprot,
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
    input  wire [2:0]        s_axil_arprot,
    input  wire              s_axil_arvalid,
    output wire              s_axil_arready,
    output wire [31:0]       s_axil_rdata,
    output wire [1:0]        s_axil_rresp,
    output wire              s_axil_rvalid,
    input  wire              s_axil_rready,

    output wire [63:0]       phc_ns,
    output wire [47:0]       phc_fns,
    output wire [47:0]       phc_sec,
    output wire [29:0]       phc_nsec,
    output wire              phc_sec_valid,
    output wire              phc_step,
    output wire              pps,
    output wire [63:0]       phc2_ns,
    output wire [47:0]       phc2_fns
);

reg clk = 1'b0;
always #2 clk = ~clk;

reg [63:0] cyc = 64'd0;
reg [63:0] wr_ack_cyc = 64'd0;
reg [63:0] rd_ack_cyc = 64'd0;
reg [31:0] wr_ack_cnt = 32'd0;
reg [31:0] rd_ack_cnt = 32'd0;

wire [ADDR_W-1:0] reg_wr_addr;
wire [31:0]       reg_wr_data;
wire [3:0]        reg_wr_strb;
wire              reg_wr_en;
wire              reg_wr_wait;
wire              reg_wr_ack;
wire [ADDR_W-1:0] reg_rd_addr;
wire              reg_rd_en;
wire [31:0]       reg_rd_data;
wire              reg_rd_wait;
wire              reg_rd_ack;

always @(posedge clk) begin
    cyc <= rst ? 64'd0 : cyc + 64'd1;
    if (reg_wr_ack) begin
        wr_ack_cyc <= cyc;
        wr_ack_cnt <= wr_ack_cnt + 32'd1;
    end
    if (reg_rd_ack) begin
        rd_ack_cyc <= cyc;
        rd_ack_cnt <= rd_ack_cnt + 32'd1;
    end
end

tsnic_axil_reg_if #(
    .ADDR_W(ADDR_W),
    .TIMEOUT(TIMEOUT)
) bridge (
    .clk(clk), .rst(rst),
    .s_axil_awaddr(s_axil_awaddr), .s_axil_awprot(s_axil_awprot), .s_axil_awvalid(s_axil_awvalid),
    .s_axil_awready(s_axil_awready), .s_axil_wdata(s_axil_wdata), .s_axil_wstrb(s_axil_wstrb),
    .s_axil_wvalid(s_axil_wvalid), .s_axil_wready(s_axil_wready), .s_axil_bresp(s_axil_bresp),
    .s_axil_bvalid(s_axil_bvalid), .s_axil_bready(s_axil_bready), .s_axil_araddr(s_axil_araddr),
    .s_axil_arprot(s_axil_arprot), .s_axil_arvalid(s_axil_arvalid), .s_axil_arready(s_axil_arready),
    .s_axil_rdata(s_axil_rdata), .s_axil_rresp(s_axil_rresp), .s_axil_rvalid(s_axil_rvalid),
    .s_axil_rready(s_axil_rready),
    .reg_wr_addr(reg_wr_addr), .reg_wr_data(reg_wr_data), .reg_wr_strb(reg_wr_strb),
    .reg_wr_en(reg_wr_en), .reg_wr_wait(reg_wr_wait), .reg_wr_ack(reg_wr_ack),
    .reg_rd_addr(reg_rd_addr), .reg_rd_en(reg_rd_en), .reg_rd_data(reg_rd_data),
    .reg_rd_wait(reg_rd_wait), .reg_rd_ack(reg_rd_ack)
);

tsnic_phc #(
    .ADDR_W(ADDR_W),
    .PERIOD_NUM(PERIOD_NUM),
    .PERIOD_DEN(PERIOD_DEN),
    .PPS_WIDTH(PPS_WIDTH)
) phc (
    .clk(clk), .rst(rst),
    .reg_wr_addr(reg_wr_addr), .reg_wr_data(reg_wr_data), .reg_wr_strb(reg_wr_strb),
    .reg_wr_en(reg_wr_en), .reg_wr_wait(reg_wr_wait), .reg_wr_ack(reg_wr_ack),
    .reg_rd_addr(reg_rd_addr), .reg_rd_en(reg_rd_en), .reg_rd_data(reg_rd_data),
    .reg_rd_wait(reg_rd_wait), .reg_rd_ack(reg_rd_ack),
    .phc_ns(phc_ns), .phc_fns(phc_fns), .phc_sec(phc_sec), .phc_nsec(phc_nsec),
    .phc_sec_valid(phc_sec_valid), .phc_step(phc_step), .pps(pps),
    .ff_warp(32'd0), .ff_quiet(), .ff_wake_ns(), .ff_inc()
);

// 322.265625 MHz period from the parameters alone; its register port is idle
/* verilator lint_off PINCONNECTEMPTY */
tsnic_phc #(
    .ADDR_W(ADDR_W),
    .PERIOD_NUM(512),
    .PERIOD_DEN(165)
) phc2 (
    .clk(clk), .rst(rst),
    .reg_wr_addr({ADDR_W{1'b0}}), .reg_wr_data(32'd0), .reg_wr_strb(4'd0),
    .reg_wr_en(1'b0), .reg_wr_wait(), .reg_wr_ack(),
    .reg_rd_addr({ADDR_W{1'b0}}), .reg_rd_en(1'b0), .reg_rd_data(), .reg_rd_wait(), .reg_rd_ack(),
    .phc_ns(phc2_ns), .phc_fns(phc2_fns), .phc_sec(), .phc_nsec(), .phc_sec_valid(), .phc_step(), .pps(),
    .ff_warp(32'd0), .ff_quiet(), .ff_wake_ns(), .ff_inc()
);
/* verilator lint_on PINCONNECTEMPTY */

endmodule

`resetall
