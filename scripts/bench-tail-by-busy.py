#!/usr/bin/env python3
"""How often the open-loop target held, by how busy the machine's cores were, for attestd and for the latency floor.

On this project's VM an open-loop tail follows the cores' busyness more than the server's code (BENCHMARKS.md,
twenty-second session). This pools the open-loop points of many runs, attestd's and the floor's, into bins of busy
cores and prints, per bin, how many met p99 <= 3 x service time and the median multiple.

usage: scripts/bench-tail-by-busy.py FILE...   (the bench's printed output: .bench/*/standard-*.txt, and
       .bench/ab-*/*/standard-*.txt for scripts/bench-ab.sh's runs)
"""
import math
import re
import sys
from collections import defaultdict

ATTESTD = re.compile(
    r"(attestations|assertions), open loop at \d+%: p99 [\d.]+ ms <= 3 x service time [\d.]+ ms: ([\d.]+) x "
    r"(?:met|MISSED) \(cores busy ([\d.]+) of \d+")
FLOOR = re.compile(r"latency floor at (?:that load|attestd's busy cores[^:]*): .*?([\d.]+) x its service time .*"
                   r"cores busy ([\d.]+) of \d+")
BINS = [(0.0, 0.8), (0.8, 1.0), (1.0, 1.2), (1.2, 1.4), (1.4, 1.6), (1.6, math.inf)]
ALLOWED = 3.0


def points(path):
    """(who, algorithm, cores busy, p99 multiple) for each open-loop point in one run's output."""
    algorithm = "ES256" if "es256" in path.lower() else "RS256"
    with open(path, errors="replace") as text:
        for line in text:
            if match := ATTESTD.search(line):
                yield "attestd", algorithm, float(match.group(3)), float(match.group(2))
            elif match := FLOOR.search(line):
                yield "floor", algorithm, float(match.group(2)), float(match.group(1))


def main(paths):
    if not paths:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    binned = defaultdict(list)
    count = 0
    for path in paths:
        for who, algorithm, busy, multiple in points(path):
            for low, high in BINS:
                if low <= busy < high:
                    binned[who, algorithm, low, high].append(multiple)
                    count += 1
    print(f"{count} open-loop points from {len(paths)} files; met = p99 <= {ALLOWED:g} x service time")
    for algorithm in ("RS256", "ES256"):
        for who in ("attestd", "floor"):
            cells = []
            for low, high in BINS:
                multiples = sorted(binned.get((who, algorithm, low, high), []))
                if multiples:
                    met = sum(1 for m in multiples if m <= ALLOWED)
                    label = f">={low:.1f}" if high == math.inf else f"{low:.1f}-{high:.1f}"
                    cells.append(f"{label}: met {met}/{len(multiples)}, median {multiples[len(multiples) // 2]:.2f}")
            print(f"{algorithm} {who:8s} " + " | ".join(cells))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
