#!/usr/bin/env bash
# What OpenSSL keeps per idle TLS server connection (BENCHMARKS.md, twelfth session): builds
# Benchmarks/TLSMemory/tls_connection_memory.c against the system's OpenSSL and runs it with a fresh P-256
# certificate. Arguments: [CONNECTIONS (2000)] [tls1.2 (the client offers TLS 1.2 at most)].
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 -subj /CN=attestd \
  -keyout "$work/key.pem" -out "$work/cert.pem" 2>/dev/null
cc -O1 -Wall -o "$work/tls-connection-memory" Benchmarks/TLSMemory/tls_connection_memory.c -lssl -lcrypto
ulimit -n 65536 2>/dev/null || true
echo "$(openssl version)"
"$work/tls-connection-memory" "$work/cert.pem" "$work/key.pem" "${1:-2000}" ${2:-}
