// Icarus speed bench for tsnic_core: the same RTL and default parameters as the Verilated `w64`
// configuration, held idle after reset (BAR0 idle, host memory always ready, MAC always ready),
// clocked for CYCLES cycles. sim/card/bench/speed.sh times it against the Verilator build.
`timescale 1ns/1ps
module tb_speed;
    parameter CYCLES = 200000;
    reg clk = 1'b0;
    reg rst = 1'b1;
    always #2 clk = ~clk;  // 250 MHz

    wire        s_axil_awready, s_axil_wready, s_axil_bvalid, s_axil_arready, s_axil_rvalid;
    wire [1:0]  s_axil_bresp, s_axil_rresp;
    wire [31:0] s_axil_rdata;
    wire [7:0]  m_axi_awid, m_axi_arid, m_axi_awlen, m_axi_arlen;
    wire [63:0] m_axi_awaddr, m_axi_araddr, m_axi_wdata, m_axis_tx_tdata;
    wire [2:0]  m_axi_awsize, m_axi_arsize, m_axi_awprot, m_axi_arprot;
    wire [1:0]  m_axi_awburst, m_axi_arburst;
    wire        m_axi_awlock, m_axi_arlock, m_axi_awvalid, m_axi_wlast, m_axi_wvalid, m_axi_bready;
    wire        m_axi_arvalid, m_axi_rready, m_axis_tx_tvalid, m_axis_tx_tlast;
    wire [3:0]  m_axi_awcache, m_axi_arcache;
    wire [7:0]  m_axi_wstrb, m_axis_tx_tkeep;
    wire [0:0]  m_axis_tx_tuser;
    wire        irq, pps;

    tsnic_core dut (
        .clk(clk), .rst(rst),
        .s_axil_awaddr(20'd0), .s_axil_awprot(3'd0), .s_axil_awvalid(1'b0), .s_axil_awready(s_axil_awready),
        .s_axil_wdata(32'd0), .s_axil_wstrb(4'd0), .s_axil_wvalid(1'b0), .s_axil_wready(s_axil_wready),
        .s_axil_bresp(s_axil_bresp), .s_axil_bvalid(s_axil_bvalid), .s_axil_bready(1'b1),
        .s_axil_araddr(20'd0), .s_axil_arprot(3'd0), .s_axil_arvalid(1'b0), .s_axil_arready(s_axil_arready),
        .s_axil_rdata(s_axil_rdata), .s_axil_rresp(s_axil_rresp), .s_axil_rvalid(s_axil_rvalid), .s_axil_rready(1'b1),
        .m_axi_awid(m_axi_awid), .m_axi_awaddr(m_axi_awaddr), .m_axi_awlen(m_axi_awlen), .m_axi_awsize(m_axi_awsize),
        .m_axi_awburst(m_axi_awburst), .m_axi_awlock(m_axi_awlock), .m_axi_awcache(m_axi_awcache),
        .m_axi_awprot(m_axi_awprot), .m_axi_awvalid(m_axi_awvalid), .m_axi_awready(1'b1),
        .m_axi_wdata(m_axi_wdata), .m_axi_wstrb(m_axi_wstrb), .m_axi_wlast(m_axi_wlast),
        .m_axi_wvalid(m_axi_wvalid), .m_axi_wready(1'b1),
        .m_axi_bid(8'd0), .m_axi_bresp(2'd0), .m_axi_bvalid(1'b0), .m_axi_bready(m_axi_bready),
        .m_axi_arid(m_axi_arid), .m_axi_araddr(m_axi_araddr), .m_axi_arlen(m_axi_arlen), .m_axi_arsize(m_axi_arsize),
        .m_axi_arburst(m_axi_arburst), .m_axi_arlock(m_axi_arlock), .m_axi_arcache(m_axi_arcache),
        .m_axi_arprot(m_axi_arprot), .m_axi_arvalid(m_axi_arvalid), .m_axi_arready(1'b1),
        .m_axi_rid(8'd0), .m_axi_rdata(64'd0), .m_axi_rresp(2'd0), .m_axi_rlast(1'b0), .m_axi_rvalid(1'b0),
        .m_axi_rready(m_axi_rready),
        .m_axis_tx_tdata(m_axis_tx_tdata), .m_axis_tx_tkeep(m_axis_tx_tkeep), .m_axis_tx_tvalid(m_axis_tx_tvalid),
        .m_axis_tx_tready(1'b1), .m_axis_tx_tlast(m_axis_tx_tlast), .m_axis_tx_tuser(m_axis_tx_tuser),
        .irq(irq), .pps(pps)
    );

    initial begin
        repeat (16) @(posedge clk);
        rst <= 1'b0;
        repeat (CYCLES) @(posedge clk);
        $finish;
    end
endmodule
