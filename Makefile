# attestd: the two commands a new user needs are `make run` and `make test`.
SWIFT_BUILD_FLAGS := -Xswiftc -warnings-as-errors
CONFIG ?= config/dev.json

.PHONY: run test deps build release unit-tests e2e-tests protos check-protos bench bench-challenge bench-verify clean

deps:
	@scripts/install-deps.sh

build: deps
	swift build $(SWIFT_BUILD_FLAGS)

release: deps
	swift build -c release $(SWIFT_BUILD_FLAGS)

run: build
	.build/debug/attestd serve --config $(CONFIG)

test: deps check-protos unit-tests e2e-tests

unit-tests:
	swift build --build-tests $(SWIFT_BUILD_FLAGS)
	swift test --skip-build

e2e-tests: build
	@scripts/e2e.sh

protos: deps
	scripts/generate-protos.sh

check-protos: deps
	scripts/generate-protos.sh --check

bench: release
	scripts/bench.sh

bench-challenge: release
	scripts/bench-challenge.sh

bench-verify: release
	.build/release/attestd-verify-bench

clean:
	rm -rf .build
