#!/usr/bin/env bash
# Runs the Swift test suite under a sanitizer: scripts/sanitizers.sh address|thread [swift test args...]
# Builds in .build/<sanitizer> (its own scratch path, so the plain debug build is not invalidated) and fails on any
# sanitizer report. Suppressions (toolchain libraries only, each with its reason) are in scripts/sanitizers/.
set -euo pipefail
cd "$(dirname "$0")/.."

sanitizer=${1:?usage: scripts/sanitizers.sh address|thread [swift test args...]}
shift
case "$sanitizer" in
    address) export ASAN_OPTIONS="detect_leaks=1:halt_on_error=1:detect_stack_use_after_return=0"
             export LSAN_OPTIONS="suppressions=$PWD/scripts/sanitizers/lsan.supp:print_suppressions=0" ;;
    thread)  export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$PWD/scripts/sanitizers/tsan.supp" ;;
    *) echo "unknown sanitizer $sanitizer (address or thread)" >&2; exit 2 ;;
esac
# Swift's crash backtracer and the sanitizers' reports would interleave.
export SWIFT_BACKTRACE=enable=no
scratch=.build/$sanitizer

started=$(date +%s)
swift build --build-tests --sanitize="$sanitizer" --scratch-path "$scratch" 2>&1 | { grep -v '^\[' || true; }
built=$(date +%s)
swift test --skip-build --sanitize="$sanitizer" --scratch-path "$scratch" "$@"
echo "sanitizers: $sanitizer: build $(( built - started ))s, tests $(( $(date +%s) - built ))s"
