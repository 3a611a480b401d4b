# Sourced by the benchmark scripts in this folder: `bench_footer "<command to rerun>"` prints what a
# figure needs beside it in docs/BENCHMARKS.md: date, machine (CPU model, cores, load), the Verilator
# and C++ compiler the model was built with, the commit, and the command that reproduces it.
bench_footer() {
    local cpu load verilator cxx commit
    cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -1)
    load=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)
    verilator=$("${TSNIC_SIM_VERILATOR:-verilator}" --version 2>/dev/null | head -1)
    cxx=$("${CXX:-g++}" --version 2>/dev/null | head -1)
    commit=$(git rev-parse --short HEAD 2>/dev/null)$(git diff --quiet HEAD 2>/dev/null || echo ' (with uncommitted changes)')
    echo "-- $(date -u '+%Y-%m-%d %H:%M UTC'); ${cpu:-unknown CPU}, $(nproc) cores, load ${load:-?}"
    echo "-- ${verilator:-verilator: not found}; ${cxx:-C++ compiler: not found}${TSNIC_SIM_PGO:+; profile-guided: $TSNIC_SIM_PGO}; commit ${commit:-?}"
    echo "-- rerun: $1"
}
