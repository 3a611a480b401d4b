// tsnic_pcie_msix: the MSI-X table and PBA of function 0, served by the endpoint (BAR0 window at
// 0x20000: table at +0, PBA at +0x8000), and the sender that raises a vector through the hard block's
// cfg_interrupt_msix_* interface (address/data taken from the table; the hard block writes them).
//
// One vector per interrupt source: irq[v] (a one-cycle pulse) sets pending[v]. A pending vector is
// sent when MSI-X is enabled, the function is not masked and the vector's mask bit is clear; its
// pending bit clears when the hard block reports `sent` (a `fail` leaves it pending for a retry).
// Lowest vector first. Table entries reset masked (PCIe base spec). Reads are combinational.
`resetall
`timescale 1ns / 1ps
`default_nettype none

module tsnic_pcie_msix #(
    parameter NUM_VECTORS = 4      // 1..32 (table size; PBA is one dword)
) (
    input  wire                   clk,
    input  wire                   rst,

    input  wire [NUM_VECTORS-1:0] irq,

    // register window (offset within the 64 KiB MSI-X window)
    input  wire                   wr_en,
    /* verilator lint_off UNUSEDSIGNAL */
    input  wire [15:0]            addr,          // dword aligned
    /* verilator lint_on UNUSEDSIGNAL */
    input  wire [31:0]            wr_data,
    input  wire [3:0]             wr_strb,
    output reg  [31:0]            rd_data,

    // hard block, function 0
    input  wire                   cfg_interrupt_msix_enable,
    input  wire                   cfg_interrupt_msix_mask,
    output reg  [63:0]            cfg_interrupt_msix_address,
    output reg  [31:0]            cfg_interrupt_msix_data,
    output reg                    cfg_interrupt_msix_int,
    input  wire                   cfg_interrupt_msix_sent,
    input  wire                   cfg_interrupt_msix_fail
);

localparam V_W = (NUM_VECTORS > 1) ? $clog2(NUM_VECTORS) : 1;

reg [31:0] tbl_addr_lo [0:NUM_VECTORS-1];
reg [31:0] tbl_addr_hi [0:NUM_VECTORS-1];
reg [31:0] tbl_data    [0:NUM_VECTORS-1];
reg [NUM_VECTORS-1:0] tbl_mask = {NUM_VECTORS{1'b1}};
reg [NUM_VECTORS-1:0] pending = {NUM_VECTORS{1'b0}};

integer i;
initial begin
    for (i = 0; i < NUM_VECTORS; i = i + 1) begin
        tbl_addr_lo[i] = 32'd0;
        tbl_addr_hi[i] = 32'd0;
        tbl_data[i] = 32'd0;
    end
end

// register window decode
wire        is_pba  = addr[15];
wire [10:0] entry   = addr[14:4];
wire [1:0]  word    = addr[3:2];
wire        hit     = !is_pba && (entry < NUM_VECTORS);
wire [V_W-1:0] ev   = entry[V_W-1:0];

function [31:0] merge(input [31:0] old, input [31:0] d, input [3:0] s);
    merge = {s[3] ? d[31:24] : old[31:24], s[2] ? d[23:16] : old[23:16],
             s[1] ? d[15:8] : old[15:8], s[0] ? d[7:0] : old[7:0]};
endfunction

always @* begin
    rd_data = 32'd0;
    if (is_pba) begin
        if (addr[14:2] == 13'd0) rd_data = {{(32-NUM_VECTORS){1'b0}}, pending};
    end else if (hit) begin
        case (word)
            2'd0: rd_data = tbl_addr_lo[ev];
            2'd1: rd_data = tbl_addr_hi[ev];
            2'd2: rd_data = tbl_data[ev];
            default: rd_data = {31'd0, tbl_mask[ev]};
        endcase
    end
end

// sender
reg          busy = 1'b0;
reg [V_W-1:0] cur = {V_W{1'b0}};

wire [NUM_VECTORS-1:0] ready_v = pending & ~tbl_mask;
reg  [V_W-1:0] pick;
always @* begin
    pick = {V_W{1'b0}};
    for (i = NUM_VECTORS - 1; i >= 0; i = i - 1)
        if (ready_v[i]) pick = i[V_W-1:0];
end

always @(posedge clk) begin
    cfg_interrupt_msix_int <= 1'b0;

    if (wr_en && hit) begin
        case (word)
            2'd0: tbl_addr_lo[ev] <= merge(tbl_addr_lo[ev], wr_data, wr_strb);
            2'd1: tbl_addr_hi[ev] <= merge(tbl_addr_hi[ev], wr_data, wr_strb);
            2'd2: tbl_data[ev]    <= merge(tbl_data[ev], wr_data, wr_strb);
            default: if (wr_strb[0]) tbl_mask[ev] <= wr_data[0];
        endcase
    end

    if (!busy) begin
        if (|ready_v && cfg_interrupt_msix_enable && !cfg_interrupt_msix_mask) begin
            busy <= 1'b1;
            cur <= pick;
            cfg_interrupt_msix_address <= {tbl_addr_hi[pick], tbl_addr_lo[pick]};
            cfg_interrupt_msix_data <= tbl_data[pick];
            cfg_interrupt_msix_int <= 1'b1;
        end
    end else if (cfg_interrupt_msix_sent || cfg_interrupt_msix_fail) begin
        busy <= 1'b0;
    end

    // pending: set by a source pulse, cleared when its message went out (a new pulse wins)
    for (i = 0; i < NUM_VECTORS; i = i + 1) begin
        if (busy && cfg_interrupt_msix_sent && cur == i[V_W-1:0]) pending[i] <= 1'b0;
        if (irq[i]) pending[i] <= 1'b1;
    end

    if (rst) begin
        tbl_mask <= {NUM_VECTORS{1'b1}};
        pending <= {NUM_VECTORS{1'b0}};
        busy <= 1'b0;
        cfg_interrupt_msix_int <= 1'b0;
    end
end

initial begin
    cfg_interrupt_msix_address = 64'd0;
    cfg_interrupt_msix_data = 32'd0;
    cfg_interrupt_msix_int = 1'b0;
end

endmodule

`resetall
