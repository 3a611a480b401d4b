// tsnic_mac_regs: the MAC block of the register map (hdl/contract/tsnic.toml, base 0x0600).
//
// (The RX latency compensation is RX_LAT_COMP_NS of the RX block, one register for the core's own
// stamp and tsnic_mac_rx's.)
// - TD_STATUS (ro): TX_LOCKED / RX_LOCKED, the MAC-domain time copies' `locked` levels, each through
//   a two-flop synchronizer (tsnic_cdc_sync) into clk. Writes to it are acknowledged and ignored.
// - PHY_STATUS (ro): the board's phy_status bits (reference clock ready / error / error code), each
//   through the same synchronizer; writes acknowledged and ignored.
// - LINK_STATUS (ro): link_status as given (already on clk: tsnic_board_core assembles it from the PCIe
//   hard block's user_clk outputs and a synchronized MAC bit; 0 on a core with no board around it);
//   writes acknowledged and ignored.
// Register interface as tsnic_regs: an access to this address is acknowledged in the
// cycle after reg_*_en; other addresses are left to the other blocks.
`resetall
`timescale 1ns / 1ps
`default_nettype none
`include "tsnic_contract.vh"

module tsnic_mac_regs #(
    parameter ADDR_W = 20
) (
    input  wire              clk,
    input  wire              rst,

    input  wire [ADDR_W-1:0] reg_wr_addr,
    /* verilator lint_off UNUSEDSIGNAL */
    input  wire [31:0]       reg_wr_data,   // (nothing here is writable)
    input  wire [3:0]        reg_wr_strb,
    /* verilator lint_on UNUSEDSIGNAL */
    input  wire              reg_wr_en,
    output wire              reg_wr_wait,
    output wire              reg_wr_ack,
    input  wire [ADDR_W-1:0] reg_rd_addr,
    input  wire              reg_rd_en,
    output wire [31:0]       reg_rd_data,
    output wire              reg_rd_wait,
    output wire              reg_rd_ack,

    input  wire              tx_time_locked,    // asynchronous (MAC TX domain)
    input  wire              rx_time_locked,    // asynchronous (MAC RX domain)
    input  wire [7:0]        phy_status,        // asynchronous (board): PHY_STATUS bits 7:0
    input  wire [31:0]       link_status        // on clk: LINK_STATUS (0: not a board)
);

wire [31:0] wa = {{(32-ADDR_W){1'b0}}, reg_wr_addr} & 32'hFFFFFFFC;
wire [31:0] ra = {{(32-ADDR_W){1'b0}}, reg_rd_addr} & 32'hFFFFFFFC;
wire wr_hit = (wa == `TSNIC_MAC_TD_STATUS) || (wa == `TSNIC_MAC_PHY_STATUS) || (wa == `TSNIC_MAC_LINK_STATUS);
wire rd_td = (ra == `TSNIC_MAC_TD_STATUS);
wire rd_phy = (ra == `TSNIC_MAC_PHY_STATUS);
wire rd_link = (ra == `TSNIC_MAC_LINK_STATUS);
wire rd_hit = rd_td || rd_phy || rd_link;

reg        wr_ack_reg = 1'b0;
reg        rd_ack_reg = 1'b0;
reg [31:0] rd_data_reg = 32'd0;
wire [1:0] locked_sync;
wire [7:0] phy_status_sync;

tsnic_cdc_sync #(.WIDTH(10)) locked_sync_inst (
    .clk(clk), .rst(rst), .in({phy_status, rx_time_locked, tx_time_locked}),
    .out({phy_status_sync, locked_sync})
);

assign reg_wr_wait = 1'b0;
assign reg_wr_ack = wr_ack_reg;
assign reg_rd_wait = 1'b0;
assign reg_rd_ack = rd_ack_reg;
assign reg_rd_data = rd_data_reg;

always @(posedge clk) begin
    wr_ack_reg <= 1'b0;
    rd_ack_reg <= 1'b0;
    rd_data_reg <= 32'd0;
    if (reg_wr_en && !wr_ack_reg && wr_hit) begin
        wr_ack_reg <= 1'b1;             // read-only: acknowledged, ignored
    end
    if (reg_rd_en && !rd_ack_reg && rd_hit) begin
        rd_ack_reg <= 1'b1;
        rd_data_reg <= rd_link ? link_status : rd_phy ? {24'd0, phy_status_sync} : {30'd0, locked_sync};
    end
    if (rst) begin
        wr_ack_reg <= 1'b0;
        rd_ack_reg <= 1'b0;
    end
end

endmodule

`resetall
