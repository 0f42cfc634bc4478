# Shortcuts for the commands in README.md.
.PHONY: run test test-deps test-all test-race lint build

run:
	go run ./cmd/switchboard serve

test:
	go test ./...

# test-deps installs the npm packages of the Node.js and Chromium tests
# (scripts/test-deps.sh); test-all then runs every test, failing rather
# than skipping when Node.js or Chromium is missing.
test-deps:
	scripts/test-deps.sh

test-all: test-deps
	SWITCHBOARD_TEST_REQUIRE_NODE=1 SWITCHBOARD_TEST_REQUIRE_BROWSER=1 SWITCHBOARD_TEST_REQUIRE_PYTHON=1 go test ./...

test-race:
	go test -race ./...

lint:
	gofmt -l $$(git ls-files '*.go')
	go vet ./...
	go run honnef.co/go/tools/cmd/staticcheck@v0.8.2 ./...

build:
	go build -o bin/switchboard ./cmd/switchboard
