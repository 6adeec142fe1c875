#!/usr/bin/env bash
# Benchmark: h2load against gRPC GenerateAppAttestChallenge on a release build of attestd (h2c, loopback).
# Called by `make bench-challenge`, which builds first; this script builds nothing.
# Environment: ATTESTD_BIN (default .build/release/attestd), REQUESTS (400000), CONNECTIONS (8), STREAMS (32),
# WARMUP (20000), LOG_LEVEL (warning: per-request logs are not what this measures).
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${ATTESTD_BIN:-.build/release/attestd}"
requests="${REQUESTS:-400000}"
connections="${CONNECTIONS:-8}"
streams="${STREAMS:-32}"
warmup="${WARMUP:-20000}"
log_level="${LOG_LEVEL:-warning}"
[ -x "$bin" ] || { echo "bench-challenge: $bin not found; run 'make bench-challenge' (it builds a release first)" >&2; exit 1; }
command -v h2load >/dev/null || { echo "bench-challenge: h2load missing (nghttp2-client); run scripts/install-deps.sh" >&2; exit 1; }

work=$(mktemp -d)
pid=""
cleanup() {
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then kill -TERM "$pid"; wait "$pid" || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat >"$work/config.json" <<JSON
{
  "listeners": [ { "address": "127.0.0.1", "port": $port } ],
  "eventLoops": 0,
  "logLevel": "$log_level",
  "limits": { "maxConcurrentStreams": 100, "maxHeaderListBytes": 16384, "maxMessageBytes": 65536,
              "maxBufferedOutputBytes": 1048576, "idleTimeoutSeconds": 300, "shutdownGraceSeconds": 10 },
  "keys": { "challengeKey": "keys/challenge.json", "artifactKey": "keys/artifact.json",
            "tokenSigning": ["keys/token-signing.pem"], "generateMissing": true },
  "challengeTtlSeconds": 300,
  "projects": [ { "number": "123456789012", "id": "attestd-dev",
                  "apps": [ { "appId": "1:123456789012:ios:0123456789abcdef", "teamId": "DEVTEAM123",
                              "bundleIds": ["dev.attestd.example"], "environment": "development" } ] } ]
}
JSON

# The request body: one gRPC message (flag 0, 4-byte big-endian length) holding
# GenerateAppAttestChallengeRequest { string app = 1; } written by hand (tag 0x0a, one-byte length).
app="projects/123456789012/apps/1:123456789012:ios:0123456789abcdef"
[ ${#app} -lt 126 ] || { echo "bench-challenge: app name too long for a one-byte length" >&2; exit 1; }
printf "\\x00\\x00\\x00\\x00\\x$(printf %02x $((${#app} + 2)))\\x0a\\x$(printf %02x ${#app})%s" "$app" >"$work/request.grpc"

"$bin" serve --config "$work/config.json" 2>"$work/attestd.log" &
pid=$!
for _ in $(seq 1 200); do
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then break; fi
  kill -0 "$pid" 2>/dev/null || { echo "bench-challenge: attestd exited:" >&2; tail -20 "$work/attestd.log" >&2; exit 1; }
  sleep 0.05
done

url="http://127.0.0.1:$port/google.firebase.appcheck.v1.TokenExchangeService/GenerateAppAttestChallenge"
grpc=(-d "$work/request.grpc" -H "content-type: application/grpc" -H "te: trailers")

# h2load sees only HTTP statuses: check once that the body really earns grpc-status 0 before timing it.
answer=$(curl -sS --noproxy '*' --http2-prior-knowledge -D - -o /dev/null --data-binary "@$work/request.grpc" \
  -H "content-type: application/grpc" -H "te: trailers" "$url" | tr -d '\r')
grep -qx "grpc-status: 0" <<<"$answer" || { echo "bench-challenge: the request does not succeed:" >&2; echo "$answer" >&2; exit 1; }

# The machine is shared: say how busy it was, since h2load and attestd compete with everything else for the cores.
echo "load average before the run: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "attestd $(git describe --always --dirty 2>/dev/null || echo '?'), $(nproc) cores, h2load -n $requests -c $connections -m $streams (gRPC GenerateAppAttestChallenge, h2c)"
h2load -n "$warmup" -c "$connections" -m "$streams" "${grpc[@]}" "$url" >"$work/warmup.txt" || { cat "$work/warmup.txt"; exit 1; }
h2load -n "$requests" -c "$connections" -m "$streams" --log-file="$work/requests.log" "${grpc[@]}" "$url" >"$work/run.txt" \
  || { cat "$work/run.txt"; exit 1; }
grep -E "^(finished in|requests:|status codes:|time for request:)" "$work/run.txt"

# Latency percentiles from h2load's per-request log (third column: microseconds until the response ended).
cut -f3 "$work/requests.log" | sort -n | awk '
  { v[NR] = $1 }
  END {
    if (NR == 0) { print "no per-request log"; exit 1 }
    n = split("50 90 99 99.9", p, " ")
    line = "latency:"
    for (i = 1; i <= n; i++) { k = int(NR * p[i] / 100 + 0.999999); if (k < 1) k = 1; if (k > NR) k = NR;
      line = line sprintf(" p%s %.2fms", p[i], v[k] / 1000) }
    print line sprintf(" max %.2fms", v[NR] / 1000)
  }'
rps=$(sed -nE 's/^finished in [^,]+, ([0-9.]+) req\/s.*/\1/p' "$work/run.txt")
failed=$(sed -nE 's/^requests: .* ([0-9]+) failed, ([0-9]+) errored.*/\1 \2/p' "$work/run.txt")
echo "result: ${rps} requests/s (failed, errored: ${failed})"

kill -TERM "$pid"
status=0; wait "$pid" || status=$?
pid=""
[ "$status" -eq 0 ] || { echo "bench-challenge: attestd exited with $status after SIGTERM" >&2; tail -20 "$work/attestd.log" >&2; exit 1; }
