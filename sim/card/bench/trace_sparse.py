#!/usr/bin/env python3
"""A sparse pacing trace: N frames of 60/128/512/1514 bytes on 4 queues at random times over S
seconds (sorted; fixed SEED, so the same arguments give the same trace). Writes the CSV to stdout.

Usage: trace_sparse.py N S SEED > trace.csv   (used by sparse.sh and gate_check.sh)
"""
import random
import sys


def main() -> int:
    try:
        n, span_s, seed = int(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3])
        if len(sys.argv) != 4 or n < 0 or span_s <= 0:
            raise ValueError
    except (IndexError, ValueError):
        print("usage: trace_sparse.py N S SEED  (N frames over S seconds, S > 0; SEED a whole number)",
              file=sys.stderr)
        return 2
    random.seed(seed)
    span = int(span_s * 1e9)
    times = sorted(random.randrange(span) for _ in range(n))
    w = sys.stdout.write
    w("launch_ns,queue,len\n")
    for i, t in enumerate(times):
        w(f"{t},{i % 4},{random.choice([60, 128, 512, 1514])}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
