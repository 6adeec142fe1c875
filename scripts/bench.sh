#!/usr/bin/env bash
# The standard benchmark: starts a release attestd on a temporary copy of config/dev.json (its own port and keys,
# the bench's simulated App Attest root trusted), runs attestd-bench's standard profile against it, once with RS256
# tokens (all phases) and once with ES256 tokens (attestations and assertions), and writes the reports to .bench/.
# Called by `make bench`, which builds first; this script builds nothing.
#
# Environment: ATTESTD_BIN (.build/release/attestd), BENCH_BIN (.build/release/attestd-bench), OUT (.bench/<time>),
# FRAMING (grpc), CONNECTIONS (8), STREAMS (16), WARMUP (1), DURATION (3), TOKENS ("RS256 ES256"),
# IDLE_CONNECTIONS (10000; 0 skips the idle-connection memory checks, over h2c in the RS256 run and over TLS in a
# short run of its own), STORE (sqlite, as config/dev.json: a fresh file in the temporary folder; memory; or redis:
# a redis-server on a free loopback port, started and stopped here),
# VERIFIER_THREADS (0: one per core), OPEN_FRACTIONS (0.1,0.25: the open-loop loads, as fractions of each
# exchange's saturating rate; their p99 is reported beside the latency floor's, as a figure, not a target), TLS (1: the listener speaks TLS with a fresh self-signed
# P-256 certificate for 127.0.0.1, and the bench connects with ALPN h2 and checks it), BENCH_ARGS (more attestd-bench
# options, after these).
set -euo pipefail
cd "$(dirname "$0")/.."
attestd="${ATTESTD_BIN:-.build/release/attestd}"
bench="${BENCH_BIN:-.build/release/attestd-bench}"
out="${OUT:-.bench/$(date -u +%Y%m%dT%H%M%SZ)}"
framing="${FRAMING:-grpc}"
tokens="${TOKENS:-RS256 ES256}"
idle="${IDLE_CONNECTIONS:-10000}"
redis_pid=""
case "${STORE:-sqlite}" in
  sqlite) store='{ "kind": "sqlite", "path": "state/attestd.sqlite" }' ;;
  memory) store='{ "kind": "memory" }' ;;
  redis)
    redis_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    redis-server --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no >/dev/null 2>&1 &
    redis_pid=$!
    until redis-cli -p "$redis_port" ping >/dev/null 2>&1; do sleep 0.05; done
    store="{ \"kind\": \"redis\", \"redis\": { \"host\": \"127.0.0.1\", \"port\": $redis_port } }" ;;
  *) echo "bench: STORE is sqlite, memory or redis" >&2; exit 1 ;;
esac
for bin in "$attestd" "$bench"; do
  [ -x "$bin" ] || { echo "bench: $bin not found; run 'make bench' (it builds a release first)" >&2; exit 1; }
done
mkdir -p "$out"
out=$(cd "$out" && pwd)

work=$(mktemp -d)
pid=""
cleanup() {
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then kill -TERM "$pid"; wait "$pid" || true; fi
  if [ -n "$redis_pid" ]; then kill -TERM "$redis_pid" 2>/dev/null; wait "$redis_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

# Room for the idle-connection check (both ends of every connection live on this machine).
if [ "$idle" -gt 0 ]; then
  ulimit -n $((idle * 2 + 1024)) 2>/dev/null || ulimit -n "$(ulimit -Hn)" || true
fi

machine="$(nproc) cores, $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1), $(awk '/MemTotal/ {printf "%.1f GB", $2 / 1048576}' /proc/meminfo), $(uname -r)"
build="attestd $(git describe --always --dirty 2>/dev/null || echo '?'), ${STORE:-sqlite} store"
transport() { if [ "${TLS:-0}" = 1 ]; then echo TLS; else echo h2c; fi; }
version="$build, $(transport)"

run() { # run NAME ALG PHASES [extra bench options...]
  local name="$1" alg="$2" phases="$3"; shift 3
  local dir="$work/$name"
  mkdir -p "$dir/keys" "$dir/state"
  if [ "$alg" = "ES256" ]; then
    openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$dir/keys/token-signing.pem" 2>/dev/null
  fi
  local port listener tls_args=()
  port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  listener="{ \"address\": \"127.0.0.1\", \"port\": $port }"
  if [ "${TLS:-0}" = 1 ]; then
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj /CN=attestd-bench \
      -addext subjectAltName=IP:127.0.0.1 -keyout "$dir/keys/tls-key.pem" -out "$dir/keys/tls-cert.pem" 2>/dev/null
    listener="{ \"address\": \"127.0.0.1\", \"port\": $port, \"tls\": { \"certificate\": \"keys/tls-cert.pem\", \"privateKey\": \"keys/tls-key.pem\" } }"
    tls_args=(--tls --ca "$dir/keys/tls-cert.pem")
  fi
  cat >"$dir/config.json" <<JSON
{
  "listeners": [ $listener ],
  "eventLoops": 0,
  "logLevel": "warning",
  "limits": { "maxConcurrentStreams": 100, "maxHeaderListBytes": 16384, "maxMessageBytes": 65536,
              "maxBufferedOutputBytes": 1048576, "idleTimeoutSeconds": 300, "shutdownGraceSeconds": 10 },
  "keys": { "challengeKey": "keys/challenge.json", "artifactKey": "keys/artifact.json",
            "tokenSigning": ["keys/token-signing.pem"], "generateMissing": true },
  "challengeTtlSeconds": 300,
  "tokens": { "algorithm": "$alg" },
  "verifier": { "threads": ${VERIFIER_THREADS:-0} },
  "store": $store,
  "projects": [ { "number": "123456789012", "id": "attestd-dev",
                  "apps": [ { "appId": "1:123456789012:ios:0123456789abcdef", "teamId": "DEVTEAM123",
                              "bundleIds": ["dev.attestd.example"], "environment": "development" } ] } ]
}
JSON
  # The bench makes its simulated CA and writes the root first; the server starts trusting it; the bench waits
  # for the server to answer before it measures anything.
  "$bench" --port "$port" --framing "$framing" --phases "$phases" \
    --open-fraction "${OPEN_FRACTIONS:-0.1,0.25}" "${tls_args[@]}" \
    --connections "${CONNECTIONS:-8}" --streams "${STREAMS:-16}" --warmup "${WARMUP:-1}" --duration "${DURATION:-3}" \
    --write-roots "$dir/root.pem" --server-pid-file "$dir/server.pid" --report "$out/$name" --label "$build, $(transport), $alg tokens, $framing" \
    "$@" ${BENCH_ARGS:-} >"$out/$name.txt" 2>&1 &
  local bench_pid=$!
  for _ in $(seq 1 200); do [ -s "$dir/root.pem" ] && break; sleep 0.05; done
  [ -s "$dir/root.pem" ] || { echo "bench: attestd-bench wrote no root:" >&2; cat "$out/$name.txt" >&2; exit 1; }
  "$attestd" serve --config "$dir/config.json" --extra-trust-root "$dir/root.pem" 2>"$out/$name.attestd.log" &
  pid=$!
  echo "$pid" >"$dir/server.pid"
  local status=0
  wait "$bench_pid" || status=$?
  cat "$out/$name.txt"
  if kill -0 "$pid" 2>/dev/null; then
    # The server's own metrics over the whole run, every phase together: among them where requests waited
    # (attestd_request_stage_seconds: for a verifier thread, and for their loop once answered).
    local scheme=http curl_tls=(--http2-prior-knowledge)
    [ "${TLS:-0}" = 1 ] && { scheme=https; curl_tls=(--http2 --cacert "$dir/keys/tls-cert.pem"); }
    mkdir -p "$out/$name"
    curl -sS --max-time 10 "${curl_tls[@]}" "$scheme://127.0.0.1:$port/metrics" >"$out/$name/metrics.txt" \
      || echo "bench: could not read the server's /metrics" >&2
    kill -TERM "$pid"; wait "$pid" || true
  else
    # Gone before the bench finished: say how (a crash, or a signal from something else on this machine).
    local server_status=0
    wait "$pid" || server_status=$?
    echo "bench: attestd exited during the run with status $server_status" | tee -a "$out/$name.txt" >&2
    status=1
  fi
  pid=""
  if [ ! -f "$out/$name/plot.gp" ]; then
    echo "bench: no report for $name" >&2
  elif command -v gnuplot >/dev/null; then
    (cd "$out/$name" && gnuplot plot.gp) || echo "bench: gnuplot failed" >&2
  else
    echo "bench: gnuplot missing (gnuplot-nox; scripts/install-deps.sh installs it): no picture" >&2
  fi
  return "$status"
}

echo "$version on $machine; load average now: $(cut -d' ' -f1-3 /proc/loadavg)" | tee "$out/machine.txt"
failed=0
for alg in $tokens; do
  if [ "$alg" = "RS256" ]; then
    extra=()
    [ "$idle" -gt 0 ] && extra=(--idle-connections "$idle")
    run "standard-rs256" RS256 "challenge,attestation,assertion,mixed" "${extra[@]}" || failed=1
  else
    run "standard-$(tr 'A-Z' 'a-z' <<<"$alg")" "$alg" "attestation,assertion" || failed=1
  fi
done
# The idle-connection check again over TLS, in a short run of its own: a node that terminates TLS itself holds more
# per connection than one behind a TLS-terminating load balancer.
if [ "$idle" -gt 0 ] && [ "${TLS:-0}" != 1 ]; then
  TLS=1 run "idle-tls" RS256 challenge --idle-connections "$idle" \
    --warmup 0.2 --duration 0.5 --no-single --open-fraction 0 || failed=1
fi
echo "reports in $out (report.json, bench.png per run)"
# Only a run of its own is the latest (bench-stores keeps its runs in folders of its own).
[ "$(dirname "$out")" = "$(pwd)/.bench" ] && { ln -sfn "$(basename "$out")" .bench/latest 2>/dev/null || true; }
exit "$failed"
