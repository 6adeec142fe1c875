#!/usr/bin/env bash
# Installs the Debian packages attestd builds and tests with, and only those that are missing.
set -euo pipefail
packages=(
  pkg-config libssl-dev libnghttp2-dev libprotobuf-c-dev protobuf-c-compiler libhttp-parser-dev
  nghttp2-client curl openssl python3-venv gnuplot-nox
  libsqlite3-dev libhiredis-dev redis-server haproxy
  libcurl4-openssl-dev
  nginx
  prometheus
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi
