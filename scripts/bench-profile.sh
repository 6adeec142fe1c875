#!/usr/bin/env bash
# Runs a command against attestd while one measured window of a scripts/bench.sh run is open, so that a profiler
# sees that window and not the set-up before it: attestd-bench prints "(WINDOW: measuring for S s)" as each window
# opens, and this script starts COMMAND DELAY seconds later, with the server's process ID in $PID.
#
# usage: scripts/bench-profile.sh WINDOW COMMAND
#   WINDOW   the window's name as the bench prints it: "assertions" (the closed loop), "assertions, one at a time",
#            "assertions, open loop at 50%", "attestations", ...
#   COMMAND  a shell command; $PID is attestd's. For example
#            'perf record -F 1999 -g -o /tmp/window.data -p $PID -- sleep 2'
#            'perf stat -e "syscalls:sys_enter_*" -p $PID -- sleep 2'
#
# Environment: DELAY (0.3 s), and every scripts/bench.sh setting (TOKENS, STORE, OPEN_FRACTIONS, BENCH_ARGS, OUT,
# ...). The bench's own output goes to OUT (default .bench/profile-<UTC time>), COMMAND's to this script's output.
# The run's phases are bench.sh's unless BENCH_ARGS narrows them (e.g. BENCH_ARGS="--phases assertion --no-floor").
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -eq 2 ] || { echo "usage: scripts/bench-profile.sh WINDOW COMMAND" >&2; exit 2; }
window="$1"; command="$2"
out="${OUT:-.bench/profile-$(date -u +%Y%m%dT%H%M%SZ)}"
mkdir -p "$out"
out=$(cd "$out" && pwd)
bench=$(realpath "${BENCH_BIN:-.build/release/attestd-bench}")
[ -x "$bench" ] || { echo "bench-profile: $bench not found; run 'make release' first" >&2; exit 1; }

# The bench's output line-buffered, so that the window's line is in the file as the window opens.
wrapper=$(mktemp)
trap 'rm -f "$wrapper"' EXIT
printf '#!/bin/sh\nexec stdbuf -oL %q "$@"\n' "$bench" >"$wrapper"
chmod +x "$wrapper"

OUT="$out" BENCH_BIN="$wrapper" scripts/bench.sh >"$out/bench.log" 2>&1 &
run=$!
marker="($window: measuring"
found=""
while kill -0 "$run" 2>/dev/null; do
  if grep -qsF "$marker" "$out"/*.txt; then found=1; break; fi
  sleep 0.05
done
if [ -z "$found" ]; then
  wait "$run" || true
  echo "bench-profile: the run ended without a window named \"$window\" (see $out/bench.log)" >&2
  exit 1
fi
# bench.sh's own attestd, its child (one per token algorithm, and only the current one runs): not whichever
# attestd on this machine started last, which may be a `make run` beside it.
PID=$(pgrep -P "$run" -f -- " serve --config " || true)
[ -n "$PID" ] || { echo "bench-profile: no attestd running" >&2; wait "$run" || true; exit 1; }
sleep "${DELAY:-0.3}"
PID="$PID" sh -c "$command" || echo "bench-profile: the command failed" >&2
status=0
wait "$run" || status=$?
echo "bench: $out/bench.log"
exit "$status"
