// The tsnic_board_core port image exchanged with Rust once per clock edge (mirrored by
// src/board/ffi.rs). Every field is a uint64_t (no padding rules involved); wide buses are
// little-endian arrays of TSNIC_SIM_WIDE_WORDS words (word 0 = bits 63:0), tuser buses of 2 words.
#ifndef TSNIC_SIM_BOARD_PORTS_H
#define TSNIC_SIM_BOARD_PORTS_H
#include <stdint.h>

#ifndef TSNIC_SIM_WIDE_WORDS
#define TSNIC_SIM_WIDE_WORDS 8
#endif

typedef struct {
    uint64_t rst, tx_rst;
    // completer request (hard block -> endpoint)
    uint64_t cq_tdata[TSNIC_SIM_WIDE_WORDS];
    uint64_t cq_tuser[4];
    uint64_t cq_tkeep, cq_tvalid, cq_tlast;
    // completer completion ready
    uint64_t cc_tready;
    // requester request ready
    uint64_t rq_tready;
    // requester completion (hard block -> endpoint)
    uint64_t rc_tdata[TSNIC_SIM_WIDE_WORDS];
    uint64_t rc_tuser[4];
    uint64_t rc_tkeep, rc_tvalid, rc_tlast;
    // configuration
    uint64_t cfg_max_payload, cfg_max_read_req, cfg_bus_master_en;
    uint64_t cfg_msix_enable, cfg_msix_mask, cfg_msix_sent, cfg_msix_fail;
    uint64_t pcie_lnk_up, pcie_ltssm, pcie_width, pcie_speed;
    // MAC TX side (tx_clk)
    uint64_t tx_tready, mac_lag_valid, mac_lag_ns;
    // MAC RX side (rx_clk): s_axis_rx_* (64 bits on the SUME, 512 on the Alveos), the MAC's start
    // of frame (RX_SOF_IN = 1: tsnic_xgmii_rx's sof / sof_lane4)
    uint64_t mac_rx_up;
    uint64_t rx_tdata[TSNIC_SIM_WIDE_WORDS];
    uint64_t rx_tkeep, rx_tvalid, rx_tlast, rx_tuser, rx_sof, rx_sof_lane4;
} tsnic_board_in;

typedef struct {
    uint64_t cq_tready;
    uint64_t cc_tdata[TSNIC_SIM_WIDE_WORDS];
    uint64_t cc_tuser[4];
    uint64_t cc_tkeep, cc_tvalid, cc_tlast;
    uint64_t rq_tdata[TSNIC_SIM_WIDE_WORDS];
    uint64_t rq_tuser[4];
    uint64_t rq_tkeep, rq_tvalid, rq_tlast;
    uint64_t rc_tready;
    uint64_t msix_address, msix_data, msix_int;
    uint64_t tx_tdata[TSNIC_SIM_WIDE_WORDS];
    uint64_t tx_tkeep, tx_tvalid, tx_tlast, tx_tuser;
    uint64_t pps, stat_dma_rd_err, stat_bar_bad_np, stat_bar_bad_posted;
    // the core's gated blocks holding at this instant (bits as tsnic_sim_out's sim_gate_hold)
    uint64_t sim_gate_hold;
} tsnic_board_out;

#endif
