// Benchmark driver of tsnic_td_idle (sim/card/bench/td_idle.sh): the board core's idle cross-domain
// state stepped alone through the board co-simulation's instants (csrc/board_shim.cpp's order:
// both clocks low, eval, the rising clocks high, eval), the PCIe user clock every 4000 ps, MAC edge k
// at 1700 + floor(k * MP / MD) ps (src/board/mod.rs), the PHC counting 4 ns per PCIe edge.
//
//   td_idle cost MS MP MD         step MS ms; print instants and CPU time
//   td_idle period CYC MP MD N [D]  from 20 ms on, compare every register (td_idle_regs.inc,
//                                 written by td_idle.sh from the model) at N MAC edges CYC PCIe clock
//                                 cycles apart with the first: the absolute times less the PHC's
//                                 advance; D: the PHC's increment is 4 ns + D x 2^-48 ns (a trim)
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <vector>

#include "Vtsnic_td_idle.h"
#include "Vtsnic_td_idle___024root.h"
#include "verilated.h"

typedef std::vector<unsigned __int128> State;

// shift: the PHC's advance, 2^-48 ns; an absolute register with `frac` fraction bits is compared
// less shift >> (48 - frac) (exact when the advance is a whole number of its units)
static State dump(Vtsnic_td_idle___024root* r, unsigned __int128 shift) {
    State out;
    const unsigned __int128 one = 1;
#define REL(name, bits) out.push_back(static_cast<unsigned __int128>(r->name));
#define REL_W(name, bits) { unsigned __int128 v = 0; for (int i = 0; i < (bits + 31) / 32; i++) v |= static_cast<unsigned __int128>(r->name[i]) << (32 * i); out.push_back(v); }
    // absolute PHC times: less the PHC's advance, in the register's fixed point (frac bits), mod 2^bits
#define ABS(name, bits, frac) out.push_back((static_cast<unsigned __int128>(r->name) - (shift >> (48 - frac))) & ((one << bits) - 1));
#define ABS_W(name, bits, frac) { unsigned __int128 v = 0; for (int i = 0; i < (bits + 31) / 32; i++) v |= static_cast<unsigned __int128>(r->name[i]) << (32 * i); out.push_back((v - (shift >> (48 - frac))) & ((one << bits) - 1)); }
    // the sample: {ns_reg, fns_reg} as one 64.32 time
#define ABS_NS(ns, fns) out.push_back(((static_cast<unsigned __int128>(r->ns) << 32 | r->fns) - (shift >> 16)) & ((one << 96) - 1));
#include "td_idle_regs.inc"
    return out;
}

struct Clocks {
    unsigned long long mp, md, nclk = 0, nmac = 0, next_clk = 0, next_mac = 1700;
    unsigned __int128 inc = static_cast<unsigned __int128>(4) << 48;   // PHC increment, 2^-48 ns
    // one instant; returns its time (ps) and whether the MAC clock rose
    unsigned long long step(Vtsnic_td_idle* t, bool* mac) {
        unsigned long long now = next_clk < next_mac ? next_clk : next_mac;
        bool e_clk = next_clk == now, e_mac = next_mac == now;
        t->clk = 0;
        t->mac_clk = 0;
        const unsigned __int128 phc = inc * nclk;
        t->phc_ns = static_cast<unsigned long long>(phc >> 48);
        t->phc_fns = static_cast<unsigned long long>(phc) & ((1ull << 48) - 1);
        t->eval();
        if (e_clk) t->clk = 1;
        if (e_mac) t->mac_clk = 1;
        t->eval();
        if (e_clk) { nclk++; next_clk += 4000; }
        if (e_mac) { nmac++; next_mac = 1700 + nmac * mp / md; }
        *mac = e_mac;
        return now;
    }
};

int main(int argc, char** argv) {
    if (argc < 5) {
        std::fprintf(stderr, "usage: td_idle cost MS MP MD | td_idle period CYC MP MD N\n");
        return 2;
    }
    VerilatedContext ctx;
    Vtsnic_td_idle t(&ctx);
    Clocks c;
    c.mp = std::strtoull(argv[3], nullptr, 10);
    c.md = std::strtoull(argv[4], nullptr, 10);
    bool mac = false;
    if (std::strcmp(argv[1], "cost") == 0) {
        const unsigned long long end = static_cast<unsigned long long>(std::atof(argv[2]) * 1e9);
        unsigned long long n = 0, x = 0;
        std::clock_t c0 = std::clock();
        while ((c.next_clk < c.next_mac ? c.next_clk : c.next_mac) < end) {
            c.step(&t, &mac);
            x ^= t.probe;
            n++;
        }
        double cpu = double(std::clock() - c0) / CLOCKS_PER_SEC;
        std::printf("%s ms: %llu instants (%llu PCIe, %llu MAC edges), %.3f s CPU, %.1f ns an instant (probe %llx)\n",
                    argv[2], n, c.nclk, c.nmac, cpu, cpu * 1e9 / double(n), x);
        return 0;
    }
    const unsigned long long cyc = std::strtoull(argv[2], nullptr, 10);
    const int reps = argc > 5 ? std::atoi(argv[5]) : 3;
    if (argc > 6) c.inc += std::strtoull(argv[6], nullptr, 10);
    State first;
    for (int rep = 0; rep < reps; rep++) {
        const unsigned long long end = 20000000000ull + rep * cyc * 4000;
        for (;;) {
            unsigned long long now = c.step(&t, &mac);
            if (mac && now >= end) {
                State s = dump(t.rootp, c.inc * (static_cast<unsigned long long>(rep) * cyc));
                if (rep == 0) first = s;
                size_t diff = 0;
                for (size_t i = 0; i < s.size(); i++) diff += s[i] != first[i];
                std::printf("MAC edge %llu at %.6f ms (%llu PCIe cycles on): %zu of %zu registers differ from the first\n",
                            c.nmac, now / 1e9, rep * cyc, diff, s.size());
                break;
            }
        }
    }
    return 0;
}
