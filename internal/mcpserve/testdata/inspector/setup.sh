#!/usr/bin/env bash
# Installs the MCP Inspector (package.json's pinned version, through
# package-lock.json) into node_modules/ here, run under Node 24 (the
# Inspector needs Node >= 22.19; the machine has 20), which .ci/node24.sh
# installs into the cache it shares with the VS Code end-to-end test,
# linked as node_modules/.bin/node24 for cmd/rx-bridge's TestMCPInspector.
# Idempotent; `make mcp-inspector-setup` runs it when the lock changes.
set -euo pipefail
cd "$(dirname "$0")"

log() { echo "mcp-inspector-setup: $*" >&2; }

. ../../../../.ci/node24.sh
npm_env_clean
node24_need

log "installing the MCP Inspector (npm ci)"
PATH="$(dirname "$NODE24"):$PATH" npm ci --no-audit --no-fund --loglevel=error >&2
mkdir -p node_modules/.bin
ln -sfn "$NODE24" node_modules/.bin/node24
[ -f node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js ] || { log "the Inspector's launcher is missing after npm ci"; exit 1; }
touch node_modules/.package-lock.json
