#!/usr/bin/env bash
# Builds the libFuzzer targets under Fuzz/ (-sanitize=fuzzer,address; release by default) and runs each for FUZZ_SECONDS,
# FUZZ_JOBS at a time, starting from its checked-in seeds in Fuzz/Corpus/<target>. Fails if any target crashes,
# trips AddressSanitizer, times out on one input or runs out of memory; the input that did it is kept in
# .build/fuzz-<config>/artifacts/ (fix the bug, then add the input to the corpus and a regression test to the module's tests).
#
#   scripts/fuzz.sh [target...]        targets: cbor authdata attestation assertion receipt der-certificate protobuf json
#                                      grpc-deframe http2 (default: all)
#   FUZZ_SECONDS=60 FUZZ_JOBS=2        seconds per target, targets run at once
#   FUZZ_CONFIG=release                debug builds in a fraction of the time and runs about half as fast: what
#                                      `make test` uses for its short runs
#
# Inputs the fuzzer finds go to .build/fuzz-<config>/corpus/<target> (kept between runs, never into the checked-in seeds).
set -euo pipefail
cd "$(dirname "$0")/.."

ALL_TARGETS=(cbor authdata attestation assertion receipt der-certificate protobuf json grpc-deframe http2)
SECONDS_PER_TARGET=${FUZZ_SECONDS:-60}
JOBS=${FUZZ_JOBS:-2}
TARGETS=("${@:-${ALL_TARGETS[@]}}")
CONFIG=${FUZZ_CONFIG:-release}
SCRATCH=.build/fuzz-$CONFIG
# -DFUZZING makes FuzzSupport call libFuzzer's driver; lld because gold cannot link libFuzzer with Swift's
# renamed entry point (an internal error in its DWARF reader).
FLAGS=(-c "$CONFIG" --scratch-path "$SCRATCH" -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING -Xswiftc -use-ld=lld)

started=$(date +%s)
for target in "${TARGETS[@]}"; do
    [ -d "Fuzz/Corpus/$target" ] || { echo "fuzz: unknown target $target (no Fuzz/Corpus/$target)" >&2; exit 2; }
    swift build "${FLAGS[@]}" --product "fuzz-$target" 2>&1 | { grep -v '^\[' || true; }
done
echo "fuzz: built ${#TARGETS[@]} targets ($CONFIG) in $(( $(date +%s) - started ))s; running each for ${SECONDS_PER_TARGET}s, $JOBS at a time"

mkdir -p "$SCRATCH/logs" "$SCRATCH/artifacts"
run() {
    local target=$1
    local work="$SCRATCH/corpus/$target"
    mkdir -p "$work"
    # Swift's own crash backtracer would race libFuzzer's handler; ASan's leak check is off because the Swift
    # runtime's caches (metadata, conformances) look like leaks to a per-input check.
    SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1 \
        "$SCRATCH/$CONFIG/fuzz-$target" -max_total_time="$SECONDS_PER_TARGET" -timeout=10 -rss_limit_mb=2560 \
        -max_len=65536 -print_final_stats=1 -artifact_prefix="$SCRATCH/artifacts/$target-" \
        "$work" "Fuzz/Corpus/$target" >"$SCRATCH/logs/$target.log" 2>&1
}

failed=()
pids=()
names=()
wait_one() {
    local pid=${pids[0]} name=${names[0]}
    pids=("${pids[@]:1}")
    names=("${names[@]:1}")
    if wait "$pid"; then
        local runs
        runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$SCRATCH/logs/$name.log" | grep -o '[0-9]*$' || echo '?')
        local cov
        cov=$(grep -o 'cov: [0-9]*' "$SCRATCH/logs/$name.log" | tail -1 | grep -o '[0-9]*' || echo '?')
        printf 'fuzz: %-15s ok   %9s runs, coverage %s\n' "$name" "$runs" "$cov"
    else
        printf 'fuzz: %-15s FAILED (log: %s)\n' "$name" "$SCRATCH/logs/$name.log"
        grep -E 'ERROR|SUMMARY|Fatal error|panic|Test unit written|Base64' "$SCRATCH/logs/$name.log" | head -20 | sed 's/^/    /'
        failed+=("$name")
    fi
}
for target in "${TARGETS[@]}"; do
    run "$target" &
    pids+=($!)
    names+=("$target")
    if [ ${#pids[@]} -ge "$JOBS" ]; then wait_one; fi
done
while [ ${#pids[@]} -gt 0 ]; do wait_one; done

echo "fuzz: done in $(( $(date +%s) - started ))s"
if [ ${#failed[@]} -gt 0 ]; then
    echo "fuzz: crashes in: ${failed[*]}" >&2
    exit 1
fi
