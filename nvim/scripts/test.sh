#!/usr/bin/env bash
# Runs the Neovim plugin's headless tests: `unit` against the scripted fake
# bridge (tests/fake), `e2e` against a freshly built `rx-bridge serve` with
# examples/hello and examples/echo-provider installed in a temporary home
# (contents_spec.lua makes its own, with a package of commands and an MCP
# server), and :RxInstall against release archives made from that build.
# Runs them on every Neovim version of RX_NVIM_VERSIONS (default "0.10 0.11
# 0.12"), each fetched once by scripts/fetch-nvim.sh (cached); a version no
# allowed source has (0.11, see fetch-nvim.sh) is reported and skipped.
# The e2e specs save a text screenshot of the screen per step in
# nvim/out/e2e/<version>/<spec>/<nn>-<step>.txt (git ignores nvim/out/).
#
#   nvim/scripts/test.sh [unit|e2e|all] [SPEC...]   (default: all; SPECs
#   name spec files without _spec.lua, e.g. `e2e chat context`)
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
nvim_dir="$(dirname "$here")"
repo="$(dirname "$nvim_dir")"
suite="${1:-all}"
shift || true
only=("$@")

versions=()
launchers=()
for v in ${RX_NVIM_VERSIONS:-0.10 0.11 0.12}; do
  rc=0
  launcher="$("$here/fetch-nvim.sh" "$v")" || rc=$?
  if [ "$rc" = 3 ]; then
    echo "nvim $v: skipped (no allowed source has it; see scripts/fetch-nvim.sh)"
    continue
  elif [ "$rc" != 0 ]; then
    exit "$rc"
  fi
  versions+=("$v")
  launchers+=("$launcher")
done
[ "${#versions[@]}" -gt 0 ] || { echo "no Neovim to test with" >&2; exit 1; }

specs=()
case "$suite" in
  unit|all) specs+=("$nvim_dir"/tests/unit/*_spec.lua) ;;
esac

work=""
cleanup() { if [ -n "$work" ]; then rm -rf "$work"; fi; }
trap cleanup EXIT

if [ "$suite" = e2e ] || [ "$suite" = all ]; then
  work="$(mktemp -d "${TMPDIR:-/tmp}/rx-nvim-e2e.XXXXXX")"
  export RX_E2E_BIN="$work/bin/rx-bridge"
  export RX_BRIDGE_HOME="$work/home"
  (cd "$repo" && ${GO:-go} build -o "$RX_E2E_BIN" ./cmd/rx-bridge)
  # The specs get their own XDG_CACHE_HOME; the source build of
  # install_spec.lua keeps using the Go build cache of this machine
  # and finds this Go as `go`.
  GOCACHE="$(${GO:-go} env GOCACHE)"
  PATH="$(dirname "$(command -v "${GO:-go}")"):$PATH"
  export GOCACHE PATH
  # Each example is built in a copy, so the work tree is left alone.
  for ex in hello echo-provider; do
    mkdir -p "$work/src/$ex/bin"
    cp "$repo/examples/$ex/reasonix-plugin.json" "$work/src/$ex/"
    (cd "$repo" && ${GO:-go} build -o "$work/src/$ex/bin/$ex" "./examples/$ex")
    "$RX_E2E_BIN" plugin install "$work/src/$ex" --yes >/dev/null
  done
  # contents_spec.lua runs the real @modelcontextprotocol/server-everything
  # (make mcp-setup) as a package's MCP server.
  eval "$("$repo/internal/mcphost/testdata/setup.sh" | grep '^SERVER_EVERYTHING=')"
  export SERVER_EVERYTHING
  specs+=("$nvim_dir"/tests/e2e/*_spec.lua)
fi

if [ "${#only[@]}" -gt 0 ]; then
  picked=()
  for s in "${specs[@]}"; do
    for o in "${only[@]}"; do
      [ "$(basename "$s")" = "${o}_spec.lua" ] && picked+=("$s")
    done
  done
  [ "${#picked[@]}" -gt 0 ] || { echo "no spec named ${only[*]}" >&2; exit 1; }
  specs=("${picked[@]}")
fi

failed=0
for i in "${!versions[@]}"; do
  echo "== Neovim ${versions[$i]}"
  export RX_TEST_NVIM="${launchers[$i]}"
  # Text screenshots of the e2e steps (T.shot), kept after the run.
  export RX_TEST_SHOTS_ROOT="$nvim_dir/out/e2e/${versions[$i]}"
  "$RX_TEST_NVIM" --clean -l "$nvim_dir/tests/run.lua" --timeout 240 "${specs[@]}" || failed=1
done
exit "$failed"
