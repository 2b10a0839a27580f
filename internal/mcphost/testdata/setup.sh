#!/usr/bin/env bash
# Installs the third-party MCP server the mcphost tests run,
# @modelcontextprotocol/server-everything, idempotently into a cache outside
# the repository (CI runs on a clean clone). The tests find it at
#   ${RX_MCP_CACHE:-$HOME/.cache/rx-bridge-mcp}/node_modules/@modelcontextprotocol/server-everything/dist/index.js
# and skip, saying to run `make mcp-setup`, when it is not there.
set -euo pipefail

CACHE="${RX_MCP_CACHE:-$HOME/.cache/rx-bridge-mcp}"
VERSION=2026.8.31
PKG=@modelcontextprotocol/server-everything
ENTRY="$CACHE/node_modules/$PKG/dist/index.js"
STAMP="$CACHE/.installed-$VERSION"

log() { echo "mcp-setup: $*" >&2; }
command -v node >/dev/null || { log "node is required (apt-get install nodejs npm)"; exit 1; }
command -v npm >/dev/null || { log "npm is required (apt-get install npm)"; exit 1; }

if [ ! -f "$STAMP" ] || [ ! -f "$ENTRY" ]; then
	log "installing $PKG@$VERSION into $CACHE"
	mkdir -p "$CACHE"
	[ -f "$CACHE/package.json" ] || echo '{"name":"rx-bridge-mcp-test","private":true}' >"$CACHE/package.json"
	npm install --no-audit --no-fund --loglevel=error --prefix "$CACHE" "$PKG@$VERSION" >&2
	[ -f "$ENTRY" ] || { log "$PKG installed but $ENTRY is missing"; exit 1; }
	rm -f "$CACHE"/.installed-*
	touch "$STAMP"
fi
echo "SERVER_EVERYTHING=$ENTRY"
