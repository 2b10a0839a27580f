module github.com/rx-bridge/rx-bridge

go 1.26.0

require (
	github.com/BurntSushi/toml v1.6.0
	go.uber.org/goleak v1.3.0 // indirect
	golang.org/x/sync v0.25.0 // indirect
)
