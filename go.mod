module github.com/rx-bridge/rx-bridge

go 1.26
