#!/usr/bin/env bash
# End-to-end tests: real attestd process, real sockets, real clients (grpcio, curl, h2load, raw HTTP/2 frames).
# Called by `make e2e-tests` after `swift build`; needs the Debian packages of scripts/install-deps.sh.
# Arguments are passed to pytest (e.g. scripts/e2e.sh -k "grpc or http1"); so are the words of $PYTEST_ARGS.
# Environment: ATTESTD_BIN (default .build/debug/attestd).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
venv="$root/.venv"
requirements="$root/Tests/e2e/requirements.txt"
generated="$root/Tests/e2e/generated"

# A virtualenv pinned to requirements.txt; rebuilt only when the pins change.
want=$(sha256sum "$requirements" | cut -d' ' -f1)
if [ ! -x "$venv/bin/python" ] || [ "$(cat "$venv/.requirements.sha256" 2>/dev/null)" != "$want" ]; then
  echo "e2e: preparing $venv"
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install --disable-pip-version-check -q -r "$requirements"
  echo "$want" >"$venv/.requirements.sha256"
fi

# Python stubs from Protos/, regenerated on every run so they can never be stale. The well-known types
# (google/protobuf/*) come with the protobuf package; generating them again would only shadow it. Envoy's
# ext_authz subset (envoy/*, google/rpc/*) is left out too: the gateway tests call it with stubs generated from
# Envoy's own definitions (Tests/e2e/envoy_protos), which share its full names, and googleapis-common-protos
# already provides google.rpc.Status.
mapfile -t protos < <(cd Protos && find . -name '*.proto' -not -path './google/protobuf/*' -not -path './google/rpc/*' \
  -not -path './envoy/*' | sed 's|^\./||' | sort)
if [ ${#protos[@]} -eq 0 ]; then
  echo "e2e: no .proto files under Protos/" >&2
  exit 1
fi
rm -rf "$generated"
mkdir -p "$generated"
(cd Protos && "$venv/bin/python" -m grpc_tools.protoc -I. \
  --python_out="$generated" --grpc_python_out="$generated" "${protos[@]}")

export ATTESTD_BIN="${ATTESTD_BIN:-$root/.build/debug/attestd}"
cd Tests/e2e
# shellcheck disable=SC2086 # PYTEST_ARGS is a list of words on purpose.
exec "$venv/bin/python" -m pytest -q -rfEs -p no:cacheprovider --timeout=120 ${PYTEST_ARGS:-} "$@" .
