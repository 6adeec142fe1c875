#!/usr/bin/env bash
# Interleaved A/B rounds of the assertion phases for two attestd binaries: on a shared VM the machine's speed
# drifts by tens of percent within minutes, so only runs made side by side, alternating, compare.
#
# usage: scripts/bench-ab.sh BINARY_A BINARY_B [ROUNDS (3)]
# Each round runs scripts/bench.sh once per token algorithm (TOKENS, default "RS256 ES256") with A and with B:
# `--phases assertion --no-floor`, the open loop at OPEN_FRACTIONS (default 0.1,0.25), no idle-connection check.
# FLOOR=1 measures the latency floor in each run too (about 10 s more a run). Other scripts/bench.sh settings (STORE,
# CONNECTIONS, STREAMS, BENCH_ARGS, ...) pass through. It prints one line per run (the closed loop's ratio to the
# bound; the p99 at each open-loop load, and with FLOOR=1 the floor's; the server's CPU a request at the last
# open-loop load; its context switches a request one at a time and at the last open-loop load)
# and keeps every run's reports in .bench/ab-<UTC time>/. Odd rounds run A first, even rounds B first: the same
# binary on both sides has come out lower on the second side in 7 of 8 pairs, so a fixed order could pass for a
# difference between the binaries.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 2 ] || { echo "usage: scripts/bench-ab.sh BINARY_A BINARY_B [ROUNDS]" >&2; exit 2; }
a=$(realpath "$1"); b=$(realpath "$2"); rounds="${3:-3}"
for bin in "$a" "$b"; do [ -x "$bin" ] || { echo "bench-ab: $bin is not an executable" >&2; exit 2; }; done
out=".bench/ab-$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$out"
echo "A: $a"
echo "B: $b"
status=0
floor_arg="--no-floor"
[ "${FLOOR:-0}" = 1 ] && floor_arg=""
for round in $(seq 1 "$rounds"); do
  for alg in ${TOKENS:-RS256 ES256}; do
    order="A B"
    [ $((round % 2)) = 0 ] && order="B A"
    for side in $order; do
      if [ "$side" = A ]; then bin="$a"; else bin="$b"; fi
      run="$out/r$round-$alg-$side"
      OUT="$run" ATTESTD_BIN="$bin" TOKENS="$alg" IDLE_CONNECTIONS=0 OPEN_FRACTIONS="${OPEN_FRACTIONS:-0.1,0.25}" \
        BENCH_ARGS="--phases assertion $floor_arg ${BENCH_ARGS:-}" scripts/bench.sh >"$run.log" 2>&1 || status=1
      ratio=$(sed -n 's/^  assertions >= 0.8 x bound: \([0-9.]*\).*/\1/p' "$run.log")
      # Each open-loop phase's p99, from the latency line under its heading.
      open=$(awk '/^assertions, open loop at/ { match($0, /at [0-9]+%/); load = substr($0, RSTART + 3, RLENGTH - 3) }
        load != "" && /latency ms:/ { match($0, /p99 [0-9.]+/); printf "%s %s ms ", load, substr($0, RSTART + 4, RLENGTH - 4); load = "" }' "$run.log" | sed 's/ $//')
      # A phase the run left out (OPEN_FRACTIONS=0, --no-single) prints "?", and does not end the script.
      single=$(grep -A1 '^assertions, one at a time' "$run.log" | sed -n 's/.*context switches \([0-9.]*\)\/request.*/\1/p' || true)
      loaded=$(grep -A1 '^assertions, open loop at' "$run.log" | sed -n 's/.*context switches \([0-9.]*\)\/request.*/\1/p' | tail -1 || true)
      cpu=$(grep -A1 '^assertions, open loop at' "$run.log" | sed -n 's/.*server CPU \([0-9.]*\) ms\/request.*/\1 ms/p' | tail -1 || true)
      floor=$(sed -n 's/.*assertions latency floor, service time \([0-9.]*\) ms: \(.*\)/; service time \1 ms, floor \2/p' "$run.log" | tail -1)
      echo "$(date -u +%H:%M:%S) round $round $alg $side: ratio ${ratio:-?}; open-loop p99 ${open:-?}${floor}; server CPU/request loaded ${cpu:-?}; context switches/request one at a time ${single:-?}, loaded ${loaded:-?}"
    done
  done
done
echo "reports in $out"
exit $status
