module github.com/rx-bridge/rx-bridge

go 1.26.0

require (
	github.com/BurntSushi/toml v1.6.0
	github.com/gofrs/flock v0.13.2
	go.lsp.dev/jsonrpc2 v1.0.1
	go.lsp.dev/protocol v1.0.1
	go.lsp.dev/uri v1.0.1
	go.uber.org/goleak v1.3.0
	golang.org/x/sync v0.25.0
	golang.org/x/sys v0.49.0
)

require github.com/go-json-experiment/json v0.0.0-20260623181947-01eb4420fa68 // indirect
