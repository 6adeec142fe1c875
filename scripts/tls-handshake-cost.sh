#!/usr/bin/env bash
# What a TLS handshake costs attestd, full and resumed from a session ticket: starts attestd (release by default) with
# one TLS listener on loopback and a fresh certificate, then runs `openssl s_time` against it for SECONDS each way,
# new sessions (`-new`: every connection a full handshake) and resumed ones (`-reuse`: every connection after the
# first offers the session's ticket), each connection fetching /healthz. s_time is the client and counts the
# connections; it runs on the same machine (on a 2-core machine, client and server each take about a core), so the
# wall-clock rate is client and server together; attestd's own CPU time per connection (from /proc) is its cost.
#
# Environment: ATTESTD_BIN (.build/release/attestd), SECONDS_EACH (10), KEY (ec: a P-256 certificate; rsa: RSA-2048),
# VERSION (tls1_3 or tls1_2), ROUNDS (2: new and reuse interleaved, this many times).
set -euo pipefail
cd "$(dirname "$0")/.."
attestd="${ATTESTD_BIN:-.build/release/attestd}"
seconds="${SECONDS_EACH:-10}"
version="${VERSION:-tls1_3}"
[ -x "$attestd" ] || { echo "$attestd missing: swift build -c release --product attestd" >&2; exit 2; }
attestd=$(realpath "$attestd")
work=$(mktemp -d)
pid=""
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
case "${KEY:-ec}" in
  ec) key_args=(-newkey ec -pkeyopt ec_paramgen_curve:P-256) ;;
  rsa) key_args=(-newkey rsa:2048) ;;
  *) echo "KEY must be ec or rsa" >&2; exit 2 ;;
esac
openssl req -x509 "${key_args[@]}" -nodes -days 1 -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 \
  -keyout "$work/key.pem" -out "$work/cert.pem" 2>/dev/null
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
cat >"$work/config.json" <<JSON
{ "listeners": [ { "address": "127.0.0.1", "port": $port, "tls": { "certificate": "cert.pem", "privateKey": "key.pem" } } ],
  "logLevel": "warning",
  "keys": { "challengeKey": "keys/challenge.json", "artifactKey": "keys/artifact.json", "tokenSigning": ["keys/token-signing.pem"],
            "sessionTicketKey": "keys/session-tickets.json", "generateMissing": true },
  "store": { "kind": "memory" },
  "projects": [ { "number": "123456789012", "id": "attestd-dev", "apps": [ { "appId": "1:123456789012:ios:0123456789abcdef",
    "teamId": "DEVTEAM123", "bundleIds": ["dev.attestd.example"], "environment": "development" } ] } ] }
JSON
(cd "$work" && exec "$attestd" serve --config config.json 2>"$work/attestd.log") &
pid=$!
for _ in $(seq 100); do
  (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
  sleep 0.1
done
echo "$(openssl version); attestd $attestd; $(nproc) cores; ${KEY:-ec} certificate; $version; ${seconds}s each"
# attestd's CPU time so far, in clock ticks (user + system).
server_ticks() { awk '{ print $14 + $15 }' "/proc/$pid/stat"; }
# One s_time run: the connections it made over the wall-clock time it took (s_time's own "real seconds" are whole
# seconds), the client's CPU rate as s_time reports it, and attestd's CPU time per connection.
measure() {
  local begin end output ticks_before ticks_after
  ticks_before=$(server_ticks)
  begin=$(date +%s.%N)
  output=$(openssl s_time -connect "127.0.0.1:$port" "-$version" -www /healthz -time "$seconds" "$1" 2>&1) \
    || { echo "s_time $1 failed: $output" | tail -5 >&2; tail -5 "$work/attestd.log" >&2; return 1; }
  end=$(date +%s.%N)
  ticks_after=$(server_ticks)
  awk -v mode="$1" -v wall="$(echo "$end - $begin" | bc)" -v server="$(( ticks_after - ticks_before ))" -v hz="$(getconf CLK_TCK)" '
    /connections in [0-9.]+s;/ { count = $1; client = $5 }
    END {
      printf "%-7s %6d connections in %.1f s: %5.0f/s; attestd %.0f us CPU each (%.0f per CPU second); client %s per CPU second\n",
        mode, count, wall, count / wall, 1e6 * server / hz / count, count / (server / hz), client
    }' <<<"$output"
}
for _ in $(seq "${ROUNDS:-2}"); do
  measure -new
  measure -reuse
done
