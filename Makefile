# rx-bridge build and test entry points. `make test` is what CI runs
# (.ci/run) and what the README tells a newcomer to run; it installs every
# tool it needs itself.

GO          ?= go
BIN         := $(CURDIR)/.bin
STATICCHECK_VERSION := v0.8.2
STATICCHECK := $(BIN)/staticcheck-$(STATICCHECK_VERSION)

# `make quick` is the developer loop: formatting, vet and the short Go tests
# (go's test cache re-runs only the packages a change reaches).

.PHONY: quick test check cross fmt-check vet staticcheck gotest mcp-setup mcp-inspector-setup build fuzz bench bench-all bench-compare bench-serve generate examples vscode-test vsix dist dist-check nvim-test wine-test acp-test

test: check gotest wine-test acp-test vscode-test nvim-test

check: fmt-check vet staticcheck cross

# Every target we ship builds, vets and passes staticcheck (cross-compiled:
# this machine runs only linux/amd64 binaries).
CROSS_TARGETS := linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64
cross: $(STATICCHECK)
	@for t in $(CROSS_TARGETS); do \
		echo "== $$t"; \
		GOOS=$${t%/*} GOARCH=$${t#*/} $(GO) vet ./... || exit 1; \
		GOOS=$${t%/*} GOARCH=$${t#*/} $(STATICCHECK) ./... || exit 1; \
	done

build:
	$(GO) build ./...

# The example plugins, each into its own bin/, where its manifest's
# ${REASONIX_PLUGIN_ROOT}/bin/<name> finds it once installed.
examples:
	$(GO) build -o examples/hello/bin/hello ./examples/hello
	$(GO) build -o examples/echo-provider/bin/echo-provider ./examples/echo-provider

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './.bin/*')); \
	if [ -n "$$out" ]; then echo "gofmt needed on:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

$(STATICCHECK):
	@mkdir -p $(BIN)
	GOBIN=$(BIN) $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)
	mv $(BIN)/staticcheck $(STATICCHECK)

staticcheck: $(STATICCHECK)
	$(STATICCHECK) ./...

# A 30-minute budget per package instead of go test's 10: on a shared
# 2-core machine under load the race-built cmd/rx-bridge suite has run
# past 10 (issue 28). Tests wait for events; this only bounds a hang.
gotest: mcp-setup mcp-inspector-setup
	$(GO) test -race -count=1 -timeout 30m ./...

# The developer loop (about 1.5 minutes warm on 2 cores, most of it
# cmd/rx-bridge's end-to-end tests when a change reaches them): gofmt,
# vet for this machine, and `go test -short` on the whole tree, where go's
# test cache skips every package the change does not reach. -short skips
# whole-binary builds and the slowest scenario tables; `make test` runs
# everything and is what CI runs.
quick: fmt-check vet mcp-setup mcp-inspector-setup
	$(GO) test -short ./...

# The third-party MCP server the mcphost tests run
# (@modelcontextprotocol/server-everything from the npm registry), installed
# once into ~/.cache/rx-bridge-mcp.
mcp-setup:
	internal/mcphost/testdata/setup.sh >/dev/null

# The MCP Inspector (@modelcontextprotocol/inspector from the npm registry,
# pinned in internal/mcpserve/testdata/inspector/package-lock.json) and the
# Node 24 it needs: the client nobody here wrote that cmd/rx-bridge's
# TestMCPInspector drives against a real `rx-bridge mcp`. Installed again
# when the lock changes.
INSPECTOR_DIR := internal/mcpserve/testdata/inspector
INSPECTOR_DEPS := $(INSPECTOR_DIR)/node_modules/.package-lock.json
$(INSPECTOR_DEPS): $(INSPECTOR_DIR)/package.json $(INSPECTOR_DIR)/package-lock.json $(INSPECTOR_DIR)/setup.sh
	$(INSPECTOR_DIR)/setup.sh
mcp-inspector-setup: $(INSPECTOR_DEPS)

# The Windows side of process ownership, manifests and transcripts, as
# windows/amd64 test binaries run under Wine (.ci/wine/setup.sh installs
# wine and mingw-w64 with apt-get once and keeps a private prefix in
# ~/.cache/rx-bridge-wine; docs/ARCHITECTURE.md says what Wine shows and
# which tests it skips). About 45 s warm; on a fresh machine about a
# minute more (the ~700 MB prefix, then a cold windows build), plus the
# apt-get install.
WINE_PKGS := ./internal/proctree/ ./internal/exthost/ ./internal/manifest/ ./internal/agent/transcript/
wine-test:
	@set -e; vars=$$(GO=$(GO) .ci/wine/setup.sh); eval "$$vars"; export WINEPREFIX; \
	GOOS=windows GOARCH=amd64 $(GO) test -count=1 -overlay "$$GO_OVERLAY" -exec $(CURDIR)/.ci/wine/exec.sh $(WINE_PKGS)

generate:
	$(GO) generate ./...

ROUNDS ?= 5

# The table of docs/PERFORMANCE.md: every row a benchmark against its
# floor in the same loop, in ROUNDS rounds on every vCPU and pinned to one,
# as medians with their spread and the goal (about 10 minutes at ROUNDS=5).
bench:
	@mkdir -p $(BIN); internal/benchmed/bench.sh $(ROUNDS) >$(BIN)/bench.txt
	$(GO) run ./internal/benchmed -table <$(BIN)/bench.txt

# Every benchmark of the module, five times each (about 8 minutes).
BENCH_PKGS := ./internal/exthost/... ./extproto ./extproto/wire ./contentref ./internal/providers ./sdk ./cmd/rx-bridge
bench-all:
	$(GO) test -run '^$$' -bench . -benchmem -count 5 $(BENCH_PKGS)

# `rx-bridge serve` end to end as docs/PERFORMANCE.md records it: its
# ratio and RSS benchmarks in ROUNDS rounds on every vCPU, then pinned to
# vCPU 0 (taskset: serve and its sidecars inherit the pin), as medians
# (about 2 minutes).
bench-serve:
	@mkdir -p $(BIN); $(GO) test -c -o $(BIN)/rx-bridge.test ./cmd/rx-bridge
	@for pin in "" "taskset -c 0"; do \
		tag=all; [ -n "$$pin" ] && tag=pinned; \
		for _ in $$(seq $(ROUNDS)); do \
			out=$$(cd cmd/rx-bridge && $$pin $(BIN)/rx-bridge.test -test.run '^$$' -test.bench 'ServeRatio' -test.benchtime 3000x 2>&1 && \
				$$pin $(BIN)/rx-bridge.test -test.run '^$$' -test.bench 'ServeRSS' -test.benchtime 5x 2>&1) || \
				{ echo "$$out" >&2; exit 1; }; \
			echo "$$out" | grep '^Benchmark' | sed "s/^/$$tag /"; \
		done; \
	done >$(BIN)/bench-serve.txt
	$(GO) run ./internal/benchmed <$(BIN)/bench-serve.txt

# Before and after in the same run (docs/PERFORMANCE.md): the table's
# benchmarks on BASE's code (a git ref) and on this tree in ROUNDS
# interleaved rounds, on every vCPU and pinned to one, as the table.
BASE ?= main
bench-compare:
	@mkdir -p $(BIN); internal/benchmed/compare.sh $(BASE) $(ROUNDS) >$(BIN)/bench-compare.txt
	$(GO) run ./internal/benchmed -table <$(BIN)/bench-compare.txt

# Short local fuzzing of every decoder of untrusted bytes (FUZZTIME=2m for the real run).
FUZZTIME ?= 30s
fuzz:
	@grep -rl --include='*_test.go' '^func Fuzz' . | while read f; do \
		pkg=$$(dirname $$f); \
		for fn in $$(grep -o '^func Fuzz[A-Za-z0-9_]*' $$f | sed 's/^func //'); do \
			echo "== $$pkg $$fn"; $(GO) test -run '^$$' -fuzz "^$$fn$$" -fuzztime $(FUZZTIME) $$pkg || exit 1; \
		done; \
	done

# The VS Code client's npm packages, installed again when the lock changes.
VSCODE_DEPS := vscode-client/node_modules/.package-lock.json
$(VSCODE_DEPS): vscode-client/package.json vscode-client/package-lock.json
	cd vscode-client && npm ci --no-audit --no-fund --loglevel=error

# The VS Code extension (vscode-client/): type check, unit tests (a fake
# vscode against scripted and real `rx-bridge serve` children), then the
# end-to-end test in code-server + headless Chromium, which installs the
# linux-x64 release package (built here twice, as make dist-check does)
# without any rxBridge.path; its setup script installs code-server, Node 24
# and Chromium once into ~/.cache/rx-bridge-e2e.
# Screenshots and logs: vscode-client/out/e2e/.
vscode-test: examples $(VSCODE_DEPS)
	$(GO) build -o $(BIN)/rx-bridge ./cmd/rx-bridge
	$(MAKE) dist-check DIST_TARGETS=linux/amd64
	cd vscode-client && RX_BRIDGE_BIN=$(BIN)/rx-bridge npm test
	cd vscode-client && RX_BRIDGE_BIN=$(BIN)/rx-bridge RX_E2E_VSIX=$(CURDIR)/dist/rx-bridge-linux-x64.vsix npm run e2e

# The release files (docs/RELEASING.md), reproducibly, into dist/:
# rx-bridge_<goos>_<goarch>.tar.gz (.zip for windows), rx-bridge-<vscode
# target>.vsix with the binary inside, and SHA256SUMS. DIST_TARGETS (e.g.
# linux/amd64) limits the platforms; VERSION=, COMMIT= and
# SOURCE_DATE_EPOCH= override git describe, git rev-parse HEAD and the
# commit's time.
DIST_TARGETS ?=
dist: $(VSCODE_DEPS)
	$(GO) run ./internal/dist $(DIST_TARGETS)

# make dist, then again into .bin/dist-again: the same bytes both times.
dist-check: dist
	$(GO) run ./internal/dist -o $(BIN)/dist-again $(DIST_TARGETS)
	cmp dist/SHA256SUMS $(BIN)/dist-again/SHA256SUMS
	@echo "dist-check: two runs wrote the same bytes"

# This machine's VS Code package only: dist/rx-bridge-linux-x64.vsix.
vsix:
	$(MAKE) dist DIST_TARGETS=linux/amd64

# The ACP front end against a client nobody here wrote: the ACP project's
# TypeScript SDK (@agentclientprotocol/sdk from npm, internal/acp/test/) drives a
# real `rx-bridge acp` with examples/echo-provider and examples/hello
# installed in a temporary home.
ACP_DEPS := internal/acp/test/node_modules/.package-lock.json
$(ACP_DEPS): internal/acp/test/package.json internal/acp/test/package-lock.json
	cd internal/acp/test && npm ci --no-audit --no-fund --loglevel=error
acp-test: examples $(ACP_DEPS)
	$(GO) build -o $(BIN)/rx-bridge ./cmd/rx-bridge
	cd internal/acp/test && RX_BRIDGE_BIN=$(BIN)/rx-bridge npm test

# The Neovim plugin (nvim/): headless tests against a scripted bridge and
# the real `rx-bridge serve` with examples/hello and examples/echo-provider;
# runs them on Neovim 0.10 and 0.12 (0.11 has no allowed source), each fetched
# once into ~/.cache/rx-bridge-nvim/<version> (nvim/scripts/fetch-nvim.sh).
nvim-test:
	GO=$(GO) nvim/scripts/test.sh all
