// tsnic_td_idle: benchmark top (sim/card/bench/td_idle.sh, not part of the card). The state of
// tsnic_board_core that keeps changing while the card is idle, alone: the core's tsnic_td_source
// (on clk, the PCIe user clock), the MAC side's two tsnic_td_sink PHC copies (TX and RX, on the MAC
// clock) and the three tsnic_cdc_bus value crossings that hand shake without end (the RX drop count
// MAC -> clk, the TX and RX latency compensations clk -> MAC), each with the board core's parameters
// (MAC_PERIOD_FX: TX_PERIOD_FX of the build). The PHC is an input (the bench drives it as the core's
// tsnic_phc counts); resets are off (the card is long out of reset).
`resetall
`timescale 1ns / 1ps
`default_nettype none

module tsnic_td_idle #(
    parameter [63:0] MAC_PERIOD_FX = 64'd27487790694   // 6.4 ns (the SUME's 156.25 MHz)
) (
    input  wire        clk,
    input  wire        mac_clk,
    input  wire [63:0] phc_ns,
    input  wire [47:0] phc_fns,
    output wire [63:0] probe       // everything folded, so that nothing is optimised away
);

wire [63:0] td_ns;
wire [31:0] td_fns;
wire [39:0] td_inc;
wire        td_step, td_toggle;

tsnic_td_source src_inst (
    .clk(clk), .rst(1'b0), .phc_ns(phc_ns), .phc_fns(phc_fns), .phc_step(1'b0),
    .td_ns(td_ns), .td_fns(td_fns), .td_inc(td_inc), .td_step(td_step), .td_toggle(td_toggle)
);

wire [63:0] tx_ns, rx_ns;
wire [31:0] tx_fns, rx_fns;
wire        tx_valid, rx_valid, tx_locked, rx_locked, tx_step, rx_step;

tsnic_td_sink #(.PERIOD_FX(MAC_PERIOD_FX), .SRC_PERIOD_FX(64'd17179869184)) tx_sink_inst (
    .clk(mac_clk), .rst(1'b0),
    .td_ns(td_ns), .td_fns(td_fns), .td_inc(td_inc), .td_step(td_step), .td_toggle(td_toggle),
    .time_ns(tx_ns), .time_fns(tx_fns), .time_valid(tx_valid), .locked(tx_locked), .time_step(tx_step)
);

tsnic_td_sink #(.PERIOD_FX(MAC_PERIOD_FX), .SRC_PERIOD_FX(64'd17179869184)) rx_sink_inst (
    .clk(mac_clk), .rst(1'b0),
    .td_ns(td_ns), .td_fns(td_fns), .td_inc(td_inc), .td_step(td_step), .td_toggle(td_toggle),
    .time_ns(rx_ns), .time_fns(rx_fns), .time_valid(rx_valid), .locked(rx_locked), .time_step(rx_step)
);

wire [31:0] drop_m, tx_lat_m, rx_lat_m;
wire        drop_u, tx_lat_u, rx_lat_u;

tsnic_cdc_bus #(.WIDTH(32)) drop_cdc_inst (
    .s_clk(mac_clk), .s_rst(1'b0), .s_data(32'd3),
    .m_clk(clk), .m_rst(1'b0), .m_data(drop_m), .m_update(drop_u)
);
tsnic_cdc_bus #(.WIDTH(32)) tx_lat_cdc_inst (
    .s_clk(clk), .s_rst(1'b0), .s_data(32'd5),
    .m_clk(mac_clk), .m_rst(1'b0), .m_data(tx_lat_m), .m_update(tx_lat_u)
);
tsnic_cdc_bus #(.WIDTH(32)) rx_lat_cdc_inst (
    .s_clk(clk), .s_rst(1'b0), .s_data(32'd7),
    .m_clk(mac_clk), .m_rst(1'b0), .m_data(rx_lat_m), .m_update(rx_lat_u)
);

assign probe = tx_ns ^ rx_ns ^ {tx_fns, rx_fns} ^ {32'd0, drop_m ^ tx_lat_m ^ rx_lat_m}
             ^ {58'd0, tx_valid, rx_valid, tx_locked, rx_locked, tx_step ^ rx_step, drop_u ^ tx_lat_u ^ rx_lat_u};

endmodule

`resetall
