# Shortcuts for the commands in README.md.
.PHONY: run test test-race lint build

run:
	go run ./cmd/switchboard serve

test:
	go test ./...

test-race:
	go test -race ./...

lint:
	gofmt -l $$(git ls-files '*.go')
	go vet ./...
	go run honnef.co/go/tools/cmd/staticcheck@v0.8.2 ./...

build:
	go build -o bin/switchboard ./cmd/switchboard
