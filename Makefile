# attestd: the two commands a new user needs are `make run` and `make test`.
SWIFT_BUILD_FLAGS := -Xswiftc -warnings-as-errors
CONFIG ?= config/dev.json
# The simulated device's CAs, trusted by config/dev.json (`trust`): development only.
SIM_DIR ?= .keys/simulator
DEMO_URL ?= http://127.0.0.1:8080

.PHONY: run demo test deps build release unit-tests e2e-tests protos check-protos module-graph check-module-graph check-ops-kit bench bench-stores bench-challenge bench-verify bench-gateway clean \
	fuzz fuzz-tests test-asan test-tsan

deps:
	@scripts/install-deps.sh

build: deps
	swift build $(SWIFT_BUILD_FLAGS)

release: deps
	swift build -c release $(SWIFT_BUILD_FLAGS)

# attestd with config/dev.json, beside attestd-apple-sim (the local stand-in for Apple's DeviceCheck and risk-metric
# servers), started in the background and stopped when attestd exits.
run: build
	@scripts/run-dev.sh $(CONFIG) $(SIM_DIR)

# With `make run` serving in another terminal: a simulated device's whole App Attest flow, step by step.
demo:
	@swift build --quiet --product attestd-sim $(SWIFT_BUILD_FLAGS)
	.build/debug/attestd-sim flow --url $(DEMO_URL) --project attestd-dev --app 1:123456789012:ios:0123456789abcdef \
		--app-id DEVTEAM123.dev.attestd.example --environment development --dir $(SIM_DIR) --assertions 3

test: deps check-protos check-module-graph check-ops-kit unit-tests e2e-tests fuzz-tests test-asan

unit-tests:
	swift build --build-tests $(SWIFT_BUILD_FLAGS)
	swift test --skip-build

e2e-tests: build
	@scripts/e2e.sh

# libFuzzer targets under Fuzz/ (Fuzz/Corpus holds their seeds): each runs FUZZ_SECONDS, FUZZ_JOBS at a time, and
# the run fails on any crash. `make test` gives each FUZZ_TEST_SECONDS, in a debug build (much quicker to build).
FUZZ_SECONDS ?= 60
FUZZ_TEST_SECONDS ?= 15
fuzz: deps
	FUZZ_SECONDS=$(FUZZ_SECONDS) scripts/fuzz.sh

fuzz-tests: deps
	FUZZ_SECONDS=$(FUZZ_TEST_SECONDS) FUZZ_CONFIG=debug scripts/fuzz.sh

# The Swift test suite under AddressSanitizer (with LeakSanitizer) and ThreadSanitizer.
test-asan: deps
	scripts/sanitizers.sh address

test-tsan: deps
	scripts/sanitizers.sh thread

protos: deps
	scripts/generate-protos.sh

check-protos: deps
	scripts/generate-protos.sh --check

# docs/module-graph.md, drawn from Package.swift.
module-graph:
	scripts/module-graph.py

check-module-graph:
	scripts/module-graph.py --check

# deploy/observability's alerting rules (valid, and passing their unit tests) and dashboard queries, by promtool.
check-ops-kit: deps
	scripts/check-ops-kit.sh

bench: release
	scripts/bench.sh

bench-stores: release
	scripts/bench-stores.sh

bench-challenge: release
	scripts/bench-challenge.sh

bench-gateway: release
	scripts/bench-gateway.py

bench-verify: release
	.build/release/attestd-verify-bench

clean:
	rm -rf .build
