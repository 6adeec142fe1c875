#!/usr/bin/env bash
# attestd-store-bench against a Redis Cluster of 3 primaries and 3 replicas on loopback (started here, keeping
# nothing on disk, always torn down): the figures of deploy/README.md, "Capacity". Arguments go to the bench, e.g.
# `scripts/bench-store-cluster.sh --replicas 0`. Builds nothing: `swift build -c release --product attestd-store-bench`.
# Prints the bench's lines, then the CPU the six redis-servers spent during the bench, in all.
# Environment: BENCH_BIN (.build/release/attestd-store-bench).
set -euo pipefail
cd "$(dirname "$0")/.."
bench="${BENCH_BIN:-.build/release/attestd-store-bench}"
[ -x "$bench" ] || { echo "bench-store-cluster: $bench is missing; build it first" >&2; exit 1; }
dir=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$dir"
}
trap cleanup EXIT
ports=()
for index in 0 1 2 3 4 5; do
  port=$((31000 + RANDOM % 2000 + index * 2000))
  mkdir -p "$dir/$index"
  redis-server --port "$port" --bind 127.0.0.1 --cluster-enabled yes --cluster-config-file nodes.conf \
    --cluster-port $((port + 1)) --cluster-node-timeout 1000 --appendonly no --save "" --dir "$dir/$index" \
    --repl-diskless-sync-delay 0 --loglevel warning >"$dir/$index/log" 2>&1 &
  pids+=($!)
  ports+=("$port")
done
for port in "${ports[@]}"; do
  until redis-cli -p "$port" PING >/dev/null 2>&1; do sleep 0.05; done
done
redis-cli -p "${ports[0]}" --cluster create $(printf '127.0.0.1:%s ' "${ports[@]}") --cluster-replicas 1 --cluster-yes \
  >"$dir/create.log"
for port in "${ports[@]}"; do
  until redis-cli -p "$port" CLUSTER INFO | grep -q cluster_state:ok; do sleep 0.1; done
done
until [ "$(for port in "${ports[@]}"; do redis-cli -p "$port" INFO replication; done | grep -c 'state=online')" -ge 3 ]; do
  sleep 0.1
done
# User plus system CPU of the six servers, in clock ticks (/proc/PID/stat fields 14 and 15).
redis_ticks() { for pid in "${pids[@]}"; do cut -d' ' -f14,15 "/proc/$pid/stat"; done | awk '{t += $1 + $2} END {print t}'; }
before=$(redis_ticks)
"$bench" --store redisCluster --redis-port "${ports[0]}" "$@"
after=$(redis_ticks)
echo "redis-server CPU during the bench (6 servers): $(awk -v t=$((after - before)) -v hz="$(getconf CLK_TCK)" 'BEGIN {printf "%.2f", t / hz}') s"
