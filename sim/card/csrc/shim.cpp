// extern "C" shim around one Verilated tsnic_core configuration.
//
// Compiled once per configuration with -DTSNIC_TOP=<Verilated class> -DTSNIC_TOP_HDR="<class>.h"
// -DTSNIC_FN(x)=tsnic_sim_<config>_##x. peek() is the first half of step(): inputs, eval, outputs,
// no clock edge. One call of step() is one core clock cycle:
//   set the inputs (clk low), eval (combinational paths settle), copy the outputs out (these are the
//   values the handshakes of this cycle see), raise clk and run the edge (registers update; see
//   rising_edge: not a second full eval). The next settle() lowers clk.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <new>

#include "verilated.h"
#include "ports.h"
#include TSNIC_TOP_HDR
#include TSNIC_ROOT_HDR

// The clock edge without a second input-region pass (see rising_edge below). TSNIC_EDGE is set by
// build.rs from the shape of the generated scheduler: 1 = Verilator 5.006's trigger loops
// (___eval_triggers__act / ___eval_nba), 2 = the phase functions of later 5.0xx releases
// (___eval_phase__act / ___eval_phase__nba), 0 = unknown: call eval().
#ifndef TSNIC_EDGE
#define TSNIC_EDGE 0
#endif
#ifndef TSNIC_SETTLE
#define TSNIC_SETTLE 0
#endif
#if TSNIC_EDGE == 1
void TSNIC_ROOT_FN(eval_triggers__act)(TSNIC_ROOT* vlSelf);
#if TSNIC_SETTLE == 1
void TSNIC_ROOT_FN(eval_triggers__ico)(TSNIC_ROOT* vlSelf);
void TSNIC_ROOT_FN(eval_ico)(TSNIC_ROOT* vlSelf);
#endif
void TSNIC_ROOT_FN(eval_act)(TSNIC_ROOT* vlSelf);
void TSNIC_ROOT_FN(eval_nba)(TSNIC_ROOT* vlSelf);
#elif TSNIC_EDGE == 2
bool TSNIC_ROOT_FN(eval_phase__act)(TSNIC_ROOT* vlSelf);
bool TSNIC_ROOT_FN(eval_phase__nba)(TSNIC_ROOT* vlSelf);
#endif

namespace {

// Scalar ports (CData/SData/IData/QData): word 0.
template <typename T>
inline void put(T& port, const uint64_t* w) { port = static_cast<T>(w[0]); }
template <typename T>
inline void get(const T& port, uint64_t* w) {
    for (int i = 0; i < TSNIC_SIM_WIDE_WORDS; i++) w[i] = 0;
    w[0] = static_cast<uint64_t>(port);
}
// Wide ports (VlWide<N>: N 32-bit words).
template <std::size_t N>
inline void put(VlWide<N>& port, const uint64_t* w) {
    static_assert(N <= 2 * TSNIC_SIM_WIDE_WORDS, "bus wider than 512 bits");
    for (std::size_t i = 0; i < N; i++) port[i] = static_cast<uint32_t>(w[i / 2] >> (32 * (i % 2)));
}
template <std::size_t N>
inline void get(const VlWide<N>& port, uint64_t* w) {
    static_assert(N <= 2 * TSNIC_SIM_WIDE_WORDS, "bus wider than 512 bits");
    for (int i = 0; i < TSNIC_SIM_WIDE_WORDS; i++) w[i] = 0;
    for (std::size_t i = 0; i < N; i++) w[i / 2] |= static_cast<uint64_t>(port.at(i)) << (32 * (i % 2));
}
template <typename T>
inline uint64_t get1(const T& port) { return static_cast<uint64_t>(port); }

struct GateCheck;

struct Model {
    VerilatedContext ctx;
    TSNIC_TOP* top;
    tsnic_sim_flash_in flash_in;   // applied at every settle (see ports.h for the defaults)
    GateCheck* gate_check = nullptr;  // the gated blocks' check (sim_gate 2 or 3), once asked for
    Model() : top(nullptr) {
        flash_in.qspi_dq_i = 0xF;
        flash_in.icap_ce = 1;
        flash_in.icap_o = 0;
        ctx.randReset(0);  // X and uninitialized state start at 0: same inputs, same outputs
        top = new TSNIC_TOP(&ctx, "tsnic_core");
    }
    ~Model() {
        top->final();
        delete top;
    }
};

}  // namespace

// Check of the gated blocks (sim_gate 2 or 3; docs/ARCHITECTURE.md, "Gated blocks"): in each cycle
// where a block would hold, it is clocked as usual and every register of its gated clock
// (TSNIC_GATE_REGS, the list sim/card/bench/gate_regs.py took from this model and the RTL, written by
// build.rs into tsnic_gate_check.h; memories of up to `max_bytes` each) is compared across the edge.
// A change means the hold was wrong (the gated co-simulation would have diverged there). sim_gate 2
// prints the names of the changed registers and stops the process; 3 records the first and counts
// them (TSNIC_FN(gate_check_stats)). Compiled into every model: it costs a cycle that is not checked
// nothing but the test of sim_gate the shim makes anyway.
#include <cstdlib>
#include <cstring>
#include <vector>
#include "tsnic_gate_check.h"
namespace {
constexpr int GATE_BLOCKS = 6;
struct GateCheck {
    std::vector<unsigned char> before;
    uint64_t max_bytes;
    uint64_t held[GATE_BLOCKS] = {};      // cycles in which the block would hold, checked
    uint64_t compared[GATE_BLOCKS] = {};  // registers compared, summed over those cycles
    uint64_t listed[GATE_BLOCKS] = {};    // the block's registers in the list, memories <= max_bytes
    uint64_t changes = 0;                 // registers found changed at an edge where they held
    uint64_t cycles = 0;                  // cycles checked (any block holding)
    char first[256] = "";                 // the first change: register and cycle
    explicit GateCheck(uint64_t max) : max_bytes(max) {
#define TSNIC_GC_LIST(bit, name) \
    if (sizeof(static_cast<TSNIC_ROOT*>(nullptr)->name) <= max_bytes) listed[bit]++;
        TSNIC_GATE_REGS(TSNIC_GC_LIST)
#undef TSNIC_GC_LIST
    }
};
__attribute__((noinline, cold)) void gate_check_before(TSNIC_ROOT* r, uint64_t hold, GateCheck& g) {
    g.before.clear();
#define TSNIC_GC_SAVE(bit, name)                                                   \
    if ((hold & (1u << (bit))) && sizeof(r->name) <= g.max_bytes) {                \
        const unsigned char* p = reinterpret_cast<const unsigned char*>(&r->name); \
        g.before.insert(g.before.end(), p, p + sizeof(r->name));                   \
    }
    TSNIC_GATE_REGS(TSNIC_GC_SAVE)
#undef TSNIC_GC_SAVE
}
__attribute__((noinline, cold)) void gate_check_after(TSNIC_ROOT* r, uint64_t hold, GateCheck& g,
                                                      bool stop) {
    size_t off = 0;
    bool bad = false;
    g.cycles++;
    for (int b = 0; b < GATE_BLOCKS; b++) g.held[b] += (hold >> b) & 1;
#define TSNIC_GC_CMP(bit, name)                                                                \
    if ((hold & (1u << (bit))) && sizeof(r->name) <= g.max_bytes) {                            \
        g.compared[bit]++;                                                                     \
        if (std::memcmp(g.before.data() + off, &r->name, sizeof(r->name)) != 0) {              \
            bad = true;                                                                        \
            if (g.changes++ == 0)                                                              \
                std::snprintf(g.first, sizeof g.first, "%s, in checked cycle %llu", #name,     \
                              static_cast<unsigned long long>(g.cycles));                      \
            if (stop)                                                                          \
                std::fprintf(stderr, "gate check: %s changed at an edge where its block held\n", \
                             #name);                                                           \
        }                                                                                      \
        off += sizeof(r->name);                                                                \
    }
    TSNIC_GATE_REGS(TSNIC_GC_CMP)
#undef TSNIC_GC_CMP
    if (bad && stop) {
        std::fprintf(stderr, "gate check: wrong hold in checked cycle %llu; stopping\n",
                     static_cast<unsigned long long>(g.cycles));
        std::abort();
    }
}
// The largest memory compared when nothing set it (TSNIC_FN(gate_check_setup)): bytes.
constexpr uint64_t GATE_CHECK_MAX_DEFAULT = 16384;
}  // namespace

extern "C" {

void* TSNIC_FN(new)(void) {
    Model* m = new (std::nothrow) Model();
    if (m == nullptr) return nullptr;
    m->top->clk = 0;
    m->top->rst = 1;
    m->top->eval();
    return m;
}

void TSNIC_FN(free)(void* handle) {
    Model* m = static_cast<Model*>(handle);
    delete m->gate_check;
    delete m;
}

// The evaluation with clk low (see settle). TSNIC_SETTLE=1 (set by build.rs with TSNIC_EDGE=1 when the
// generated scheduler has one input-region trigger, "first iteration", and only rising edges of
// top-level inputs as active triggers: clk and the gated blocks' clocks) runs what eval() would run
// at clk low without its loops and wrapper: one pass of the input region, then the active triggers,
// which find no edge and record the clocks as low for the next one. With clk low nothing reaches the
// NBA region, so eval() runs exactly these two. 0: eval().
static inline void falling_eval(TSNIC_TOP* t) {
#if TSNIC_EDGE == 1 && TSNIC_SETTLE == 1
    TSNIC_ROOT* r = t->rootp;
    r->__VicoIterCount = 0;
    TSNIC_ROOT_FN(eval_triggers__ico)(r);
    r->__VicoIterCount = 1;
    TSNIC_ROOT_FN(eval_ico)(r);
    r->__VicoTriggered.clear();  // the scheduler's own state as eval() leaves it (same state file)
    r->__VnbaTriggered.clear();
    r->__VactIterCount = 0;
    TSNIC_ROOT_FN(eval_triggers__act)(r);
#else
    t->eval();
#endif
}

// Drive the inputs with clk low and let the combinational paths settle; copy the outputs out.
static void settle(TSNIC_TOP* t, const tsnic_sim_flash_in* fin, const tsnic_sim_in* in, tsnic_sim_out* out) {
    t->clk = 0;
    t->sim_gclk = 0;
    t->sim_gclk_df = 0;
    t->sim_gclk_cw = 0;
    t->sim_gclk_fl = 0;
    t->sim_gclk_rx = 0;
    t->sim_gclk_rg = 0;
    t->link_status = 0;   // MAC_LINK_STATUS: not a board (no PCIe hard block, no MAC around the core)
    t->qspi_dq_i = static_cast<uint8_t>(fin->qspi_dq_i & 0xF);
    t->icap_ce = static_cast<uint8_t>(fin->icap_ce & 1);
    t->icap_o = static_cast<uint32_t>(fin->icap_o);
    t->rst = static_cast<uint8_t>(in->rst);
    t->s_axil_awaddr = static_cast<uint32_t>(in->s_axil_awaddr);
    t->s_axil_awprot = static_cast<uint8_t>(in->s_axil_awprot);
    t->s_axil_awvalid = static_cast<uint8_t>(in->s_axil_awvalid);
    t->s_axil_wdata = static_cast<uint32_t>(in->s_axil_wdata);
    t->s_axil_wstrb = static_cast<uint8_t>(in->s_axil_wstrb);
    t->s_axil_wvalid = static_cast<uint8_t>(in->s_axil_wvalid);
    t->s_axil_bready = static_cast<uint8_t>(in->s_axil_bready);
    t->s_axil_araddr = static_cast<uint32_t>(in->s_axil_araddr);
    t->s_axil_arprot = static_cast<uint8_t>(in->s_axil_arprot);
    t->s_axil_arvalid = static_cast<uint8_t>(in->s_axil_arvalid);
    t->s_axil_rready = static_cast<uint8_t>(in->s_axil_rready);
    t->m_axi_awready = static_cast<uint8_t>(in->m_axi_awready);
    t->m_axi_wready = static_cast<uint8_t>(in->m_axi_wready);
    put(t->m_axi_bid, &in->m_axi_bid);
    t->m_axi_bresp = static_cast<uint8_t>(in->m_axi_bresp);
    t->m_axi_bvalid = static_cast<uint8_t>(in->m_axi_bvalid);
    t->m_axi_arready = static_cast<uint8_t>(in->m_axi_arready);
    put(t->m_axi_rid, &in->m_axi_rid);
    t->m_axi_rresp = static_cast<uint8_t>(in->m_axi_rresp);
    t->m_axi_rlast = static_cast<uint8_t>(in->m_axi_rlast);
    t->m_axi_rvalid = static_cast<uint8_t>(in->m_axi_rvalid);
    put(t->m_axi_rdata, in->m_axi_rdata);
    t->m_axis_tx_tready = static_cast<uint8_t>(in->m_axis_tx_tready);
    t->s_mac_tx_lag_valid = static_cast<uint8_t>(in->s_mac_tx_lag_valid);
    t->s_mac_tx_lag_ns = static_cast<uint16_t>(in->s_mac_tx_lag_ns);
    put(t->s_axis_rx_tdata, in->s_axis_rx_tdata);
    put(t->s_axis_rx_tkeep, &in->s_axis_rx_tkeep);
    t->s_axis_rx_tvalid = static_cast<uint8_t>(in->s_axis_rx_tvalid);
    t->s_axis_rx_tlast = static_cast<uint8_t>(in->s_axis_rx_tlast);
    put(t->s_axis_rx_tuser, in->s_axis_rx_tuser);
    t->sim_ff_warp = static_cast<uint32_t>(in->sim_ff_warp);
    falling_eval(t);

    out->s_axil_awready = get1(t->s_axil_awready);
    out->s_axil_wready = get1(t->s_axil_wready);
    out->s_axil_bresp = get1(t->s_axil_bresp);
    out->s_axil_bvalid = get1(t->s_axil_bvalid);
    out->s_axil_arready = get1(t->s_axil_arready);
    out->s_axil_rdata = get1(t->s_axil_rdata);
    out->s_axil_rresp = get1(t->s_axil_rresp);
    out->s_axil_rvalid = get1(t->s_axil_rvalid);
    out->m_axi_awid = get1(t->m_axi_awid);
    out->m_axi_awaddr = get1(t->m_axi_awaddr);
    out->m_axi_awlen = get1(t->m_axi_awlen);
    out->m_axi_awsize = get1(t->m_axi_awsize);
    out->m_axi_awburst = get1(t->m_axi_awburst);
    out->m_axi_awvalid = get1(t->m_axi_awvalid);
    {
        uint64_t w[TSNIC_SIM_WIDE_WORDS];
        get(t->m_axi_wstrb, w);
        out->m_axi_wstrb = w[0];
        get(t->m_axis_tx_tkeep, w);
        out->m_axis_tx_tkeep = w[0];
    }
    out->m_axi_wlast = get1(t->m_axi_wlast);
    out->m_axi_wvalid = get1(t->m_axi_wvalid);
    out->m_axi_bready = get1(t->m_axi_bready);
    out->m_axi_arid = get1(t->m_axi_arid);
    out->m_axi_araddr = get1(t->m_axi_araddr);
    out->m_axi_arlen = get1(t->m_axi_arlen);
    out->m_axi_arsize = get1(t->m_axi_arsize);
    out->m_axi_arburst = get1(t->m_axi_arburst);
    out->m_axi_arvalid = get1(t->m_axi_arvalid);
    out->m_axi_rready = get1(t->m_axi_rready);
    get(t->m_axi_wdata, out->m_axi_wdata);
    get(t->m_axis_tx_tdata, out->m_axis_tx_tdata);
    out->m_axis_tx_tvalid = get1(t->m_axis_tx_tvalid);
    out->m_axis_tx_tlast = get1(t->m_axis_tx_tlast);
    out->m_axis_tx_tuser = get1(t->m_axis_tx_tuser);
    out->irq = get1(t->irq);
    out->pps = get1(t->pps);
    out->s_axis_rx_tready = get1(t->s_axis_rx_tready);
    out->sim_ff_quiet = get1(t->sim_ff_quiet);
    out->sim_ff_wake_ns = get1(t->sim_ff_wake_ns);
    out->sim_ff_phc_ns = get1(t->sim_ff_phc_ns);
    out->sim_ff_inc = get1(t->sim_ff_inc);
    out->sim_ff_chunk_ns = get1(t->sim_ff_chunk_ns);
    out->sim_gate_hold = get1(t->sim_gate_hold);
}

// The outputs of the cycle about to be clocked, without clocking it (the fast-forward's look ahead).
void TSNIC_FN(peek)(void* handle, const tsnic_sim_in* in, tsnic_sim_out* out) {
    Model* m = static_cast<Model*>(handle);
    settle(m->top, &m->flash_in, in, out);
}

// Raise clk and let the registers update. eval() would first run the input region again (every
// signal that depends on a top-level input: about a tenth of the model's work per cycle), although
// only clk changed since settle() ran it with the same inputs, and no logic reads clk but the edge.
// So this runs the rest of the generated ___eval() directly: its active/NBA loop with the same
// trigger bookkeeping and convergence limit, without the input-region loop in front. The edge is
// evaluated exactly as eval() would evaluate it (the co-simulation tests compare the wire and the
// reports, and TSNIC_EDGE=0 keeps plain eval() for any other scheduler).
// `held`: the gated blocks not clocked at this edge (sim_gate_hold's bits: the calendar, the descriptor
// fetch, the completion writer, the flash controller, the receive path, the register interface).
static inline void rising_edge(TSNIC_TOP* t, uint64_t held) {
    t->clk = 1;
    t->sim_gclk = (held & 1) ? 0 : 1;
    t->sim_gclk_df = (held & 2) ? 0 : 1;
    t->sim_gclk_cw = (held & 4) ? 0 : 1;
    t->sim_gclk_fl = (held & 8) ? 0 : 1;
    t->sim_gclk_rx = (held & 16) ? 0 : 1;
    t->sim_gclk_rg = (held & 32) ? 0 : 1;
#if TSNIC_EDGE == 1 && TSNIC_SETTLE == 1
    // The same when every trigger is the rising edge of a top-level input, clk and the gated blocks'
    // clocks (TSNIC_SETTLE): the edge triggers the NBA region once; the loop's later trigger checks
    // read only those inputs, which nothing in the model drives, and find nothing.
    TSNIC_ROOT* r = t->rootp;
    r->__VnbaTriggered.clear();
    r->__VactIterCount = 0;
    TSNIC_ROOT_FN(eval_triggers__act)(r);
    if (r->__VactTriggered.any()) {
        r->__VnbaTriggered.set(r->__VactTriggered);
        TSNIC_ROOT_FN(eval_act)(r);
        TSNIC_ROOT_FN(eval_nba)(r);
        r->__VactTriggered.clear();  // as eval() leaves them
        r->__VnbaTriggered.clear();
    }
#elif TSNIC_EDGE == 1
    TSNIC_ROOT* r = t->rootp;
    for (;;) {
        r->__VnbaTriggered.clear();
        r->__VactIterCount = 0;
        r->__VactContinue = 1;
        while (r->__VactContinue) {
            r->__VactContinue = 0;
            TSNIC_ROOT_FN(eval_triggers__act)(r);
            if (r->__VactTriggered.any()) {
                r->__VactContinue = 1;
                if (VL_UNLIKELY(r->__VactIterCount > 100)) {
                    VL_FATAL_MT(__FILE__, __LINE__, "", "Active region did not converge.");
                }
                r->__VactIterCount += 1;
                r->__VnbaTriggered.set(r->__VactTriggered);
                TSNIC_ROOT_FN(eval_act)(r);
            }
        }
        if (!r->__VnbaTriggered.any()) break;
        TSNIC_ROOT_FN(eval_nba)(r);
    }
#elif TSNIC_EDGE == 2
    TSNIC_ROOT* r = t->rootp;
    uint32_t nba_iter = 0;
    do {
        if (VL_UNLIKELY(++nba_iter > 10000)) {
            VL_FATAL_MT(__FILE__, __LINE__, "", "NBA region did not converge.");
        }
        r->__VactIterCount = 0;
        do {
            if (VL_UNLIKELY(r->__VactIterCount > 10000)) {
                VL_FATAL_MT(__FILE__, __LINE__, "", "Active region did not converge.");
            }
            r->__VactIterCount += 1;
            r->__VactPhaseResult = TSNIC_ROOT_FN(eval_phase__act)(r);
        } while (r->__VactPhaseResult);
        r->__VnbaPhaseResult = TSNIC_ROOT_FN(eval_phase__nba)(r);
    } while (r->__VnbaPhaseResult);
#else
    t->eval();
#endif
}

void TSNIC_FN(step)(void* handle, const tsnic_sim_in* in, tsnic_sim_out* out) {
    Model* m = static_cast<Model*>(handle);
    TSNIC_TOP* t = m->top;
    settle(t, &m->flash_in, in, out);
    // Gated blocks: a block's clock stays low at this edge where it holds (sim_gate 1)
    const uint64_t hold = out->sim_gate_hold;
    if (in->sim_gate >= 2 && hold != 0) {
        if (m->gate_check == nullptr) m->gate_check = new GateCheck(GATE_CHECK_MAX_DEFAULT);
        gate_check_before(t->rootp, hold, *m->gate_check);
        rising_edge(t, 0);
        gate_check_after(t->rootp, hold, *m->gate_check, in->sim_gate == 2);
        return;
    }
    rising_edge(t, in->sim_gate == 1 ? hold : 0);
}

// The flash/configuration model's hook, once per cycle between two step() calls: `out` gets the
// quad-SPI and ICAP outputs as they are after the last clock edge (all registered in the core: the
// levels a flash sees during the coming cycle), and `in` (if not null) is what the core sees from the
// next step() on. The controller samples qspi_dq_i at least one cycle after the SCK falling edge the
// flash answers, so answering here, from the pins just read, meets its timing at any FLASH_CLK_DIV.
void TSNIC_FN(flash_io)(void* handle, const tsnic_sim_flash_in* in, tsnic_sim_flash_out* out) {
    Model* m = static_cast<Model*>(handle);
    TSNIC_TOP* t = m->top;
    if (in != nullptr) m->flash_in = *in;
    if (out != nullptr) {
        out->qspi_clk = get1(t->qspi_clk);
        out->qspi_cs_n = get1(t->qspi_cs_n);
        out->qspi_dq_o = get1(t->qspi_dq_o);
        out->qspi_dq_oe = get1(t->qspi_dq_oe);
        out->icap_csib = get1(t->icap_csib);
        out->icap_rdwrb = get1(t->icap_rdwrb);
        out->icap_i = get1(t->icap_i);
    }
}

// The gated blocks' check: start it afresh (its counts at 0) comparing memories of up to `max_bytes`
// each. Without this call the first checked cycle starts it with GATE_CHECK_MAX_DEFAULT.
void TSNIC_FN(gate_check_setup)(void* handle, uint64_t max_bytes) {
    Model* m = static_cast<Model*>(handle);
    delete m->gate_check;
    m->gate_check = new GateCheck(max_bytes);
}

// What the check did: out[0..6) the cycles each block (sim_gate_hold's bits) would hold and was
// checked, [6..12) the registers compared for it summed over those cycles, [12..18) its registers in
// the list (memories of up to the limit), [18] changes found, [19] cycles checked, [20] the memory
// limit, [21] the list's length in this build (all blocks, any size). `first` gets the first change
// ("" if none), at most `cap` bytes with its NUL. Zeros before the first checked cycle or setup.
void TSNIC_FN(gate_check_stats)(void* handle, uint64_t* out, char* first, size_t cap) {
    Model* m = static_cast<Model*>(handle);
    for (int i = 0; i < 22; i++) out[i] = 0;
    uint64_t n = 0;
#define TSNIC_GC_COUNT(bit, name) n++;
    TSNIC_GATE_REGS(TSNIC_GC_COUNT)
#undef TSNIC_GC_COUNT
    out[21] = n;
    if (cap > 0) first[0] = 0;
    const GateCheck* g = m->gate_check;
    if (g == nullptr) return;
    for (int b = 0; b < GATE_BLOCKS; b++) {
        out[b] = g->held[b];
        out[6 + b] = g->compared[b];
        out[12 + b] = g->listed[b];
    }
    out[18] = g->changes;
    out[19] = g->cycles;
    out[20] = g->max_bytes;
    if (cap > 0) std::snprintf(first, cap, "%s", g->first);
}

}  // extern "C"

// Save/restore of the model (the persistent simulated card): its own file, it needs `Model`.
#include "save.cpp"
