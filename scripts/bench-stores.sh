#!/usr/bin/env bash
# What state costs: the same closed-loop phases against attestd with each store (memory, SQLite, Redis) in turn,
# for several rounds, each round in another order, then a summary of each store's throughput beside the memory
# store's. One run alone says little on a machine whose speed drifts by 20 % from minute to minute; interleaved
# rounds put every store through the same drift.
# Called by `make bench-stores`, which builds first; this script builds nothing.
#
# Environment: ROUNDS (3), TOKENS (ES256; "RS256 ES256" for both), PHASES (attestation,assertion), DURATION (5),
# OUT (.bench/stores-<time>), and what scripts/bench.sh takes (ATTESTD_BIN, BENCH_BIN, CONNECTIONS, STREAMS).
set -euo pipefail
cd "$(dirname "$0")/.."
rounds="${ROUNDS:-3}"
tokens="${TOKENS:-ES256}"
phases="${PHASES:-attestation,assertion}"
out="${OUT:-.bench/stores-$(date -u +%Y%m%dT%H%M%SZ)}"
mkdir -p "$out"
out=$(cd "$out" && pwd)
orders=("memory sqlite redis" "sqlite redis memory" "redis memory sqlite")
for round in $(seq 1 "$rounds"); do
  for store in ${orders[$(((round - 1) % 3))]}; do
    for alg in $tokens; do
      echo "bench-stores: round $round, $store, $alg"
      STORE="$store" TOKENS="$alg" IDLE_CONNECTIONS=0 DURATION="${DURATION:-5}" OUT="$out/$round-$store" \
        BENCH_ARGS="--phases $phases --open-fraction 0 --no-single" scripts/bench.sh >"$out/$round-$store-$alg.log" 2>&1 \
        || { echo "bench-stores: the run failed:" >&2; tail -20 "$out/$round-$store-$alg.log" >&2; exit 1; }
    done
  done
done
python3 scripts/bench-stores-summary.py "$out" | tee "$out/summary.txt"
