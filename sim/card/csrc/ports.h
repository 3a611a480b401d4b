// The tsnic_core port image exchanged with Rust once per clock cycle (mirrored by src/ffi.rs).
// Every field is a uint64_t so the C and Rust layouts agree with no padding rules involved; wide buses
// (up to 512 bits) are little-endian arrays of 8 words (word 0 = bits 63:0).
#ifndef TSNIC_SIM_PORTS_H
#define TSNIC_SIM_PORTS_H
#include <stdint.h>

#define TSNIC_SIM_WIDE_WORDS 8

typedef struct {
    uint64_t rst;
    // BAR0: AXI-Lite slave inputs
    uint64_t s_axil_awaddr, s_axil_awprot, s_axil_awvalid;
    uint64_t s_axil_wdata, s_axil_wstrb, s_axil_wvalid;
    uint64_t s_axil_bready;
    uint64_t s_axil_araddr, s_axil_arprot, s_axil_arvalid;
    uint64_t s_axil_rready;
    // host memory: AXI4 master inputs
    uint64_t m_axi_awready, m_axi_wready;
    uint64_t m_axi_bid, m_axi_bresp, m_axi_bvalid;
    uint64_t m_axi_arready;
    uint64_t m_axi_rid, m_axi_rresp, m_axi_rlast, m_axi_rvalid;
    uint64_t m_axi_rdata[TSNIC_SIM_WIDE_WORDS];
    // TX AXI-Stream
    uint64_t m_axis_tx_tready;
    // the MAC's line-start report for each frame it took (tsnic_core TX_MAC_LAG = 1): valid, lag ns
    uint64_t s_mac_tx_lag_valid;
    uint64_t s_mac_tx_lag_ns;
    // RX AXI-Stream (from the MAC model); tuser[0] = bad frame, tuser[64:1] = external stamp (unused here)
    uint64_t s_axis_rx_tdata[TSNIC_SIM_WIDE_WORDS];
    uint64_t s_axis_rx_tkeep, s_axis_rx_tvalid, s_axis_rx_tlast;
    uint64_t s_axis_rx_tuser[2];
    // idle fast-forward: extra PHC increments folded into this cycle
    uint64_t sim_ff_warp;
    // gated blocks (docs/ARCHITECTURE.md, "Gated blocks"): 0 = every block clocked in every cycle,
    // 1 = a block is not clocked in a cycle where it says it holds, 2 = check: clocked as with 0, and
    // every held cycle verified, stopping at a change; 3 = the same, recording changes (csrc/shim.cpp)
    uint64_t sim_gate;
} tsnic_sim_in;

typedef struct {
    // BAR0: AXI-Lite slave outputs
    uint64_t s_axil_awready, s_axil_wready, s_axil_bresp, s_axil_bvalid;
    uint64_t s_axil_arready, s_axil_rdata, s_axil_rresp, s_axil_rvalid;
    // host memory: AXI4 master outputs
    uint64_t m_axi_awid, m_axi_awaddr, m_axi_awlen, m_axi_awsize, m_axi_awburst, m_axi_awvalid;
    uint64_t m_axi_wstrb, m_axi_wlast, m_axi_wvalid, m_axi_bready;
    uint64_t m_axi_arid, m_axi_araddr, m_axi_arlen, m_axi_arsize, m_axi_arburst, m_axi_arvalid;
    uint64_t m_axi_rready;
    uint64_t m_axi_wdata[TSNIC_SIM_WIDE_WORDS];
    // TX AXI-Stream
    uint64_t m_axis_tx_tdata[TSNIC_SIM_WIDE_WORDS];
    uint64_t m_axis_tx_tkeep, m_axis_tx_tvalid, m_axis_tx_tlast, m_axis_tx_tuser;
    uint64_t irq, pps;
    // RX AXI-Stream
    uint64_t s_axis_rx_tready;
    // idle fast-forward
    uint64_t sim_ff_quiet, sim_ff_wake_ns, sim_ff_phc_ns, sim_ff_inc, sim_ff_chunk_ns;
    // gated blocks holding (no register on the block's gated clock changes at this edge): bit 0 the
    // calendar, 1 the descriptor fetch, 2 the completion writer, 3 the flash controller, 4 the
    // receive path, 5 the register interface
    uint64_t sim_gate_hold;
} tsnic_sim_out;

// The configuration-flash and ICAP pins, kept out of the per-cycle image above so that the card runs as
// before when nothing is attached: until TSNIC_FN(flash_io) is called the shim drives qspi_dq_i = 0xF
// (the board's pull-ups: READ_ID reads 0xFFFFFF, flag status reads ready with every error bit, so a
// flash command ends at once with FLASH_STATUS.ERROR), icap_ce = 1 and icap_o = 0 (WBSTAR 0, BOOTSTS 0).
typedef struct {
    uint64_t qspi_dq_i;   // bits 3:0, the level on DQ3..DQ0 (1 where nothing drives)
    uint64_t icap_ce;     // 1: the core may change its ICAP outputs this cycle
    uint64_t icap_o;      // ICAP read data (plain configuration words)
} tsnic_sim_flash_in;

typedef struct {
    uint64_t qspi_clk, qspi_cs_n;
    uint64_t qspi_dq_o, qspi_dq_oe;   // bits 3:0
    uint64_t icap_csib, icap_rdwrb, icap_i;
} tsnic_sim_flash_out;

#endif
