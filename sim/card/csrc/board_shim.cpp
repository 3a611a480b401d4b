// extern "C" shim around the Verilated tsnic_board_core (the card behind the PCIe hard block), at any of
// its widths (the SUME's 256 bits, the Alveos' 512: scalar ports are set with their own type).
//
// Compiled with -DTSNIC_BTOP=<Verilated class> -DTSNIC_BTOP_HDR="<class>.h"
// -DTSNIC_BFN(x)=tsnic_simb_<config>_##x. One call of step() is one instant at which one or both
// clocks rise (`edges`: bit 0 clk, the PCIe user clock; bit 1 tx_clk = rx_clk, the MAC clock):
// the inputs are set with both clocks low, the model is evaluated (combinational paths settle) and
// the outputs are copied out (the values this instant's handshakes see), then the rising clocks go
// high and the model is evaluated again (registers of those domains update). Plain eval() both
// times: the board core has two clock domains, so the core shim's single-clock edge shortcut
// (csrc/shim.cpp, TSNIC_EDGE) does not apply.
//
// Gated blocks (built with SIM_GATE = 1; docs/ARCHITECTURE.md, "Gated blocks"): with bit 2 of
// `edges` (EDGE_GATE) a PCIe clock edge leaves each of the core's gated blocks unclocked where
// sim_gate_hold (read before the edge, with the outputs) says it holds; without it every block is
// clocked at every PCIe clock edge. The gated clocks never rise at an instant without the PCIe clock.
#include <cstddef>
#include <cstdint>
#include <new>

#include "verilated.h"
#include "board_ports.h"
#include "ports.h"  // tsnic_sim_flash_in / _out: the flash pins, as on the core build
#include TSNIC_BTOP_HDR

namespace {

template <typename T>
inline void bput(T& port, const uint64_t* w) { port = static_cast<T>(w[0]); }
template <std::size_t N>
inline void bput(VlWide<N>& port, const uint64_t* w) {
    for (std::size_t i = 0; i < N; i++) port[i] = static_cast<uint32_t>(w[i / 2] >> (32 * (i % 2)));
}
template <typename T>
inline void bget(const T& port, uint64_t* w, int words) {
    for (int i = 0; i < words; i++) w[i] = 0;
    w[0] = static_cast<uint64_t>(port);
}
template <std::size_t N>
inline void bget(const VlWide<N>& port, uint64_t* w, int words) {
    for (int i = 0; i < words; i++) w[i] = 0;
    for (std::size_t i = 0; i < N && i / 2 < static_cast<std::size_t>(words); i++)
        w[i / 2] |= static_cast<uint64_t>(port.at(i)) << (32 * (i % 2));
}

struct BoardModel {
    VerilatedContext ctx;
    TSNIC_BTOP* top;
    tsnic_sim_flash_in flash_in;  // applied at every step (defaults: ports.h)
    BoardModel() : top(nullptr) {
        flash_in.qspi_dq_i = 0xF;
        flash_in.icap_ce = 1;
        flash_in.icap_o = 0;
        ctx.randReset(0);  // X and uninitialized state start at 0: same inputs, same outputs
        top = new TSNIC_BTOP(&ctx, "tsnic_board_core");
    }
    ~BoardModel() {
        top->final();
        delete top;
    }
};

void set_inputs(TSNIC_BTOP* t, const tsnic_sim_flash_in* fin, const tsnic_board_in* in) {
    t->rst = static_cast<uint8_t>(in->rst);
    t->tx_rst = static_cast<uint8_t>(in->tx_rst);
    t->rx_rst = static_cast<uint8_t>(in->tx_rst);
    bput(t->s_axis_cq_tdata, in->cq_tdata);
    bput(t->s_axis_cq_tuser, in->cq_tuser);
    bput(t->s_axis_cq_tkeep, &in->cq_tkeep);  // 8 or 16 bits
    t->s_axis_cq_tvalid = static_cast<uint8_t>(in->cq_tvalid);
    t->s_axis_cq_tlast = static_cast<uint8_t>(in->cq_tlast);
    t->m_axis_cc_tready = static_cast<uint8_t>(in->cc_tready);
    t->m_axis_rq_tready = static_cast<uint8_t>(in->rq_tready);
    bput(t->s_axis_rc_tdata, in->rc_tdata);
    bput(t->s_axis_rc_tuser, in->rc_tuser);
    bput(t->s_axis_rc_tkeep, &in->rc_tkeep);
    t->s_axis_rc_tvalid = static_cast<uint8_t>(in->rc_tvalid);
    t->s_axis_rc_tlast = static_cast<uint8_t>(in->rc_tlast);
    t->cfg_max_payload = static_cast<uint8_t>(in->cfg_max_payload);
    t->cfg_max_read_req = static_cast<uint8_t>(in->cfg_max_read_req);
    t->cfg_bus_master_en = static_cast<uint8_t>(in->cfg_bus_master_en);
    t->cfg_interrupt_msix_enable = static_cast<uint8_t>(in->cfg_msix_enable);
    t->cfg_interrupt_msix_mask = static_cast<uint8_t>(in->cfg_msix_mask);
    t->cfg_interrupt_msix_sent = static_cast<uint8_t>(in->cfg_msix_sent);
    t->cfg_interrupt_msix_fail = static_cast<uint8_t>(in->cfg_msix_fail);
    t->m_axis_tx_tready = static_cast<uint8_t>(in->tx_tready);
    t->s_mac_tx_lag_valid = static_cast<uint8_t>(in->mac_lag_valid);
    t->s_mac_tx_lag_ns = static_cast<uint16_t>(in->mac_lag_ns);
    // RX from the MAC model (src/board/xgmii_rx.rs on the SUME, the RX line on the Alveos)
    bput(t->s_axis_rx_tdata, in->rx_tdata);  // 64 (SUME) or 512 bits (Alveo)
    bput(t->s_axis_rx_tkeep, &in->rx_tkeep);
    t->s_axis_rx_tuser = static_cast<uint8_t>(in->rx_tuser);
    t->s_axis_rx_tvalid = static_cast<uint8_t>(in->rx_tvalid);
    t->s_axis_rx_tlast = static_cast<uint8_t>(in->rx_tlast);
    t->rx_sof = static_cast<uint8_t>(in->rx_sof);
    t->rx_sof_lane4 = static_cast<uint8_t>(in->rx_sof_lane4);
    // flash and ICAP pins: what TSNIC_BFN(flash_io) last set (pulled up, ICAP idle until then)
    t->qspi_dq_i = static_cast<uint8_t>(fin->qspi_dq_i);
    t->icap_ce = static_cast<uint8_t>(fin->icap_ce);
    t->icap_o = static_cast<uint32_t>(fin->icap_o);
    t->phy_status = 0x01;
    t->pcie_lnk_up = static_cast<uint8_t>(in->pcie_lnk_up);
    bput(t->pcie_ltssm, &in->pcie_ltssm);
    bput(t->pcie_width, &in->pcie_width);
    bput(t->pcie_speed, &in->pcie_speed);
    t->mac_rx_up = static_cast<uint8_t>(in->mac_rx_up);
}

void get_outputs(TSNIC_BTOP* t, tsnic_board_out* out) {
    out->cq_tready = t->s_axis_cq_tready;
    bget(t->m_axis_cc_tdata, out->cc_tdata, TSNIC_SIM_WIDE_WORDS);
    bget(t->m_axis_cc_tuser, out->cc_tuser, 4);
    out->cc_tkeep = t->m_axis_cc_tkeep;
    out->cc_tvalid = t->m_axis_cc_tvalid;
    out->cc_tlast = t->m_axis_cc_tlast;
    bget(t->m_axis_rq_tdata, out->rq_tdata, TSNIC_SIM_WIDE_WORDS);
    bget(t->m_axis_rq_tuser, out->rq_tuser, 4);
    out->rq_tkeep = t->m_axis_rq_tkeep;
    out->rq_tvalid = t->m_axis_rq_tvalid;
    out->rq_tlast = t->m_axis_rq_tlast;
    out->rc_tready = t->s_axis_rc_tready;
    out->msix_address = t->cfg_interrupt_msix_address;
    out->msix_data = t->cfg_interrupt_msix_data;
    out->msix_int = t->cfg_interrupt_msix_int;
    bget(t->m_axis_tx_tdata, out->tx_tdata, TSNIC_SIM_WIDE_WORDS);
    out->tx_tkeep = t->m_axis_tx_tkeep;
    out->tx_tvalid = t->m_axis_tx_tvalid;
    out->tx_tlast = t->m_axis_tx_tlast;
    out->tx_tuser = t->m_axis_tx_tuser;
    out->pps = t->pps;
    out->stat_dma_rd_err = t->stat_dma_rd_err;
    out->stat_bar_bad_np = t->stat_bar_bad_np;
    out->stat_bar_bad_posted = t->stat_bar_bad_posted;
    out->sim_gate_hold = t->sim_gate_hold;
}

}  // namespace

extern "C" {

void* TSNIC_BFN(new)(void) {
    BoardModel* m = new (std::nothrow) BoardModel();
    if (m == nullptr) return nullptr;
    TSNIC_BTOP* t = m->top;
    t->clk = 0;
    t->tx_clk = 0;
    t->rx_clk = 0;
    t->rst = 1;
    t->tx_rst = 1;
    t->rx_rst = 1;
    t->eval();
    return m;
}

void TSNIC_BFN(free)(void* handle) { delete static_cast<BoardModel*>(handle); }

void TSNIC_BFN(step)(void* handle, const tsnic_board_in* in, tsnic_board_out* out, uint64_t edges) {
    BoardModel* m = static_cast<BoardModel*>(handle);
    TSNIC_BTOP* t = m->top;
    t->clk = 0;
    t->tx_clk = 0;
    t->rx_clk = 0;
    t->sim_gclk = 0;
    t->sim_gclk_df = 0;
    t->sim_gclk_cw = 0;
    t->sim_gclk_fl = 0;
    t->sim_gclk_rx = 0;
    t->sim_gclk_rg = 0;
    set_inputs(t, &m->flash_in, in);
    t->eval();
    get_outputs(t, out);
    if (edges & 1) {
        const uint64_t held = (edges & 4) ? out->sim_gate_hold : 0;
        t->clk = 1;
        t->sim_gclk = (held & 1) ? 0 : 1;
        t->sim_gclk_df = (held & 2) ? 0 : 1;
        t->sim_gclk_cw = (held & 4) ? 0 : 1;
        t->sim_gclk_fl = (held & 8) ? 0 : 1;
        t->sim_gclk_rx = (held & 16) ? 0 : 1;
        t->sim_gclk_rg = (held & 32) ? 0 : 1;
    }
    if (edges & 2) {
        t->tx_clk = 1;
        t->rx_clk = 1;
    }
    t->eval();
}

// The configuration-flash and ICAP pins, as the core shim's flash_io (csrc/shim.cpp): `out` gets the
// pins as the last step left them (after its clock edges: they are registers on clk), `in` is applied
// from the next step on. Either may be null.
void TSNIC_BFN(flash_io)(void* handle, const tsnic_sim_flash_in* in, tsnic_sim_flash_out* out) {
    BoardModel* m = static_cast<BoardModel*>(handle);
    TSNIC_BTOP* t = m->top;
    if (in != nullptr) m->flash_in = *in;
    if (out != nullptr) {
        out->qspi_clk = t->qspi_clk;
        out->qspi_cs_n = t->qspi_cs_n;
        out->qspi_dq_o = t->qspi_dq_o;
        out->qspi_dq_oe = t->qspi_dq_oe;
        out->icap_csib = t->icap_csib;
        out->icap_rdwrb = t->icap_rdwrb;
        out->icap_i = t->icap_i;
    }
}

}  // extern "C"

// Save/restore of the board model (the kept board card): csrc/save.cpp, as on the core build, with
// this shim's model and symbol prefix (TSNIC_BFN(save), TSNIC_BFN(restore)).
namespace {
typedef BoardModel Model;
}  // namespace
#define TSNIC_FN(x) TSNIC_BFN(x)
#include "save.cpp"
