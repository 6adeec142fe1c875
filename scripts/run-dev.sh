#!/usr/bin/env bash
# `make run`: attestd with the development configuration, beside attestd-apple-sim, a local stand-in for Apple's
# DeviceCheck and risk-metric servers (Apple's real hosts cannot be reached from a development machine, and would
# refuse the simulator's devices anyway). Development keys are made once under .keys/ when missing; the stand-in
# runs in the background over TLS and is stopped when attestd exits.
# Usage: scripts/run-dev.sh [CONFIG] [SIMULATOR_DIR]; APPLE_SIM_PORT overrides the stand-in's port (8443, as in
# config/dev.json).
set -euo pipefail
cd "$(dirname "$0")/.."
config=${1:-config/dev.json}
sim_dir=${2:-.keys/simulator}
apple_dir=.keys/apple-sim
port=${APPLE_SIM_PORT:-8443}
bin=.build/debug
# Team and Key ID of the development developer key: config/dev.json names the same ones.
team=DEVTEAM123
key_id=DEVKEY1234

[ -f .keys/token-signing.pem ] || "$bin/attestd" keygen --out .keys
"$bin/attestd-sim" init --dir "$sim_dir"

mkdir -p "$apple_dir"
chmod 700 "$apple_dir"
p8="$apple_dir/AuthKey_$key_id.p8"
if [ ! -f "$p8" ]; then
  echo "run: making a development developer key $p8 (a stand-in for Apple's .p8)"
  (umask 077 && openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$p8")
fi
openssl pkey -in "$p8" -pubout -out "$apple_dir/AuthKey_$key_id.pub.pem" 2>/dev/null
if [ ! -f "$apple_dir/tls-cert.pem" ]; then
  (umask 077 && openssl req -x509 -newkey rsa:2048 -nodes -days 825 -subj /CN=localhost \
    -addext subjectAltName=DNS:localhost,IP:127.0.0.1 \
    -keyout "$apple_dir/tls-key.pem" -out "$apple_dir/tls-cert.pem" 2>/dev/null)
fi

log="$apple_dir/apple-sim.log"
# Receipts may be refreshed again a minute after they are made (Apple: a day), so the walkthrough sees it happen.
"$bin/attestd-apple-sim" serve --environment development \
  --developer-key "$team:$key_id:$apple_dir/AuthKey_$key_id.pub.pem" \
  --host 127.0.0.1 --port "$port" --tls-cert "$apple_dir/tls-cert.pem" --tls-key "$apple_dir/tls-key.pem" \
  --state "$apple_dir/two-bits.json" --receipt-ca "$sim_dir" --receipt-not-before 60 >"$log" 2>&1 &
apple_sim=$!
trap 'kill "$apple_sim" 2>/dev/null; wait "$apple_sim" 2>/dev/null || true' EXIT
for _ in $(seq 100); do
  grep -q "^listening on port" "$log" && break
  kill -0 "$apple_sim" 2>/dev/null || { echo "run: attestd-apple-sim did not start:" >&2; cat "$log" >&2; exit 1; }
  sleep 0.1
done
grep -q "^listening on port" "$log" || { echo "run: attestd-apple-sim did not start in 10 s:" >&2; cat "$log" >&2; exit 1; }
echo "run: Apple stand-in on https://127.0.0.1:$port (log: $log)"
if [ "$config" = config/dev.json ]; then
  # config/dev.json stores only these tokens' SHA-256; they are for this machine and never for a deployment.
  echo "run: development callers: 'authorization: Bearer dev-backend-token' (VerifyAppCheckToken and the two bits" \
    "of project attestd-dev), 'authorization: Bearer dev-admin-token' (the KeyService)"
fi

"$bin/attestd" serve --config "$config"
