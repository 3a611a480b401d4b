#!/usr/bin/env python3
"""The 10G push benchmark's pacing trace: N frames of 60/128/512/1514 bytes on 4 queues, each
launched 200 ns after the previous one's wire time ends at 10 Gb/s. Writes the CSV to stdout.

Usage: trace_10g.py N > trace.csv   (used by push_10g.sh and gate_check.sh)
"""
import sys


def main() -> int:
    if len(sys.argv) != 2 or not sys.argv[1].isdigit():
        print("usage: trace_10g.py N  (N frames, a whole number)", file=sys.stderr)
        return 2
    w = sys.stdout.write
    w("launch_ns,queue,len\n")
    t = 0
    for i in range(int(sys.argv[1])):
        n = [60, 128, 512, 1514][i % 4]
        w(f"{t},{i % 4},{n}\n")
        t += (8 + n + 4 + 12) * 8 // 10 + 200
    return 0


if __name__ == "__main__":
    sys.exit(main())
