// This file only fences clients/typescript off from the repository's Go
// module: npm packages may ship Go sources (flatted, under eslint, does),
// and without it `go vet ./...`, staticcheck and `go test ./...` would
// build whatever node_modules holds. There is no Go code here.
module github.com/switchboard-gw/switchboard/clients/typescript

go 1.26.8
