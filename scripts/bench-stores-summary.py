#!/usr/bin/env python3
"""Summarises scripts/bench-stores.sh: per token algorithm and phase, each store's mean throughput over the
rounds beside the memory store's, and whether state costs at most 10 % of it (the target).

Usage: scripts/bench-stores-summary.py DIR, where DIR holds ROUND-STORE/standard-ALG/report.json."""
import json
import pathlib
import statistics
import sys

STORES = ("memory", "sqlite", "redis")
TARGET = 0.10


def main(directory: pathlib.Path) -> int:
    runs = {}  # (alg, phase) -> store -> [phase report]
    def round_number(report: pathlib.Path) -> tuple:
        head = report.parent.parent.name.split("-", 1)[0]
        return (int(head) if head.isdigit() else 0, str(report))

    for report in sorted(directory.glob("*-*/standard-*/report.json"), key=round_number):
        store = report.parent.parent.name.split("-", 1)[1]
        data = json.loads(report.read_text())
        for phase in data["phases"]:
            if phase["pacing"] != "closed" or phase["streamsPerConnection"] == 1:
                continue
            runs.setdefault((data["tokenAlgorithm"], phase["name"]), {}).setdefault(store, []).append(phase)
    if not runs:
        print(f"bench-stores: no reports under {directory}", file=sys.stderr)
        return 1
    missed = False
    for (alg, name), by_store in sorted(runs.items()):
        print(f"{name}, {alg} tokens, closed loop:")
        memory = by_store.get("memory")
        base = statistics.mean(p["okPerSecond"] for p in memory) if memory else None
        for store in STORES:
            phases = by_store.get(store)
            if not phases:
                continue
            ok = statistics.mean(p["okPerSecond"] for p in phases)
            ratio = statistics.mean(p["ratioToBound"] for p in phases)
            cpu = statistics.mean(p["serverCPUSecondsPerRequest"] for p in phases) * 1000
            other = statistics.mean(p["otherProcessesCPUSeconds"] / p["measuredSeconds"] for p in phases)
            rounds = " ".join(f"{p['okPerSecond']:.0f}" for p in phases)
            line = (f"  {store:<7} {ok:8.0f} ok/s (rounds: {rounds}), ratio to bound {ratio:.3f}, "
                    f"server CPU {cpu:.3f} ms/request, other processes {other:.2f} cores")
            if base and store != "memory":
                cost = 1 - ok / base
                met = cost <= TARGET
                missed |= not met
                side = "below" if cost > 0 else "above"
                line += f"; {abs(cost) * 100:.1f} % {side} memory's: {'met' if met else 'MISSED'}"
            print(line)
    print("target: each store within 10 % of the memory store's throughput:", "MISSED" if missed else "met")
    return 0


if __name__ == "__main__":
    sys.exit(main(pathlib.Path(sys.argv[1])))
