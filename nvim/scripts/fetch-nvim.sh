#!/usr/bin/env bash
# Installs a Neovim from Debian packages into a cache folder this script
# owns, without touching the machine's apt state, and prints the path of a
# launcher for it.
#
#   nvim/scripts/fetch-nvim.sh [VERSION]     (default 0.10)
#
#   0.10  Debian 13 (trixie): 0.10.4
#   0.12  Debian forky (testing): 0.12.x, the current stable
#   0.11  not packaged by any Debian suite this machine reaches (trixie has
#         0.10, trixie-backports none, forky, sid and experimental 0.12);
#         the script says so and exits 3
#
# Debian 12 ships Neovim 0.7, which the plugin does not support. apt checks
# every package against the Debian archive keyring (signed Release,
# SHA-256 in the package index), as for an ordinary install.
#
# Idempotent: a second run only checks the launcher and prints its path.
# The launcher is for --headless use (the tests): the TUI re-executes
# v:progpath, which here is the dynamic loader, so for a screen use
# `<launcher> --headless --listen SOCK` and `<launcher> --remote-ui --server SOCK`.
#
#   RX_NVIM_CACHE   the folder (default ${XDG_CACHE_HOME:-$HOME/.cache}/rx-bridge-nvim);
#                   each version has its own subfolder
#   RX_NVIM_MIRROR  the Debian mirror (default: the first Debian mirror of the
#                   machine's own apt sources, else http://deb.debian.org/debian)
set -euo pipefail

version="${1:-0.10}"
case "$version" in
  0.10)
    suite=trixie
    packages=(neovim neovim-runtime libc6 libluajit-5.1-2 libmsgpack-c2 libtree-sitter0.22
      libunibilium4 libuv1t64 libvterm0 lua-lpeg lua-luv)
    ;;
  0.12)
    suite=forky
    packages=(neovim neovim-runtime libc6 libgcc-s1 libluajit-5.1-2 libtree-sitter0.26
      libunibilium4 libutf8proc3 libuv1t64 lua-lpeg lua-luv)
    ;;
  0.11)
    echo "fetch-nvim: Neovim 0.11 is in no Debian suite this machine reaches (trixie 0.10, forky/sid 0.12, no backport); not installed" >&2
    exit 3
    ;;
  *)
    echo "fetch-nvim: unknown version $version (0.10 or 0.12)" >&2
    exit 2
    ;;
esac

cache_root="${RX_NVIM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rx-bridge-nvim}"
cache="$cache_root/$version"
launcher="$cache/bin/nvim"
# Bump when the package set or the launcher changes, so caches are rebuilt.
stamp_want="$suite-2"

ready() {
  [ -x "$launcher" ] && [ "$(cat "$cache/stamp" 2>/dev/null)" = "$stamp_want" ] &&
    "$launcher" --headless --clean -u NONE -i NONE -es "+lua if vim.fn.has('nvim-$version') == 1 and vim.fn.has('nvim-$version.99') == 0 then os.exit(0) else os.exit(3) end" >/dev/null 2>&1
}

if ready; then
  echo "$launcher"
  exit 0
fi

mkdir -p "$cache"
exec 9>"$cache/.lock"
flock 9
if ready; then
  echo "$launcher"
  exit 0
fi

mirror_from_sources() {
  local f
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    # deb822 "URIs:" lines and one-line "deb [opts] URI suite ..." entries.
    sed -n -e 's/^URIs:[[:space:]]*//p' \
      -e 's/^deb[[:space:]]\+\(\[[^]]*\][[:space:]]\+\)\?\([^[:space:]]\+\).*/\2/p' "$f"
  done | grep -E '^https?://[^ ]*/debian/?$' | head -n1 | sed 's:/*$::'
}

mirror="${RX_NVIM_MIRROR:-$(mirror_from_sources || true)}"
mirror="${mirror:-http://deb.debian.org/debian}"

apt_dir="$cache/apt"
mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$apt_dir/parts" "$apt_dir/debs"
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
echo "deb [signed-by=$keyring] $mirror $suite main" >"$apt_dir/sources.list"

apt_opts=(
  -o "Dir::Etc::SourceList=$apt_dir/sources.list"
  -o "Dir::Etc::SourceParts=$apt_dir/parts"
  -o "Dir::State::Lists=$apt_dir/lists"
  -o "Dir::Cache=$apt_dir/cache"
  -o "Dir::State::status=/dev/null"
  -o "APT::Architecture=amd64"
  -o "APT::Architectures=amd64"
  -o "Debug::NoLocking=1"
)
# The cache belongs to the caller, so apt's _apt download user may not write it.
if [ "$(id -u)" = 0 ]; then
  apt_opts+=(-o "APT::Sandbox::User=root")
fi

echo "fetch-nvim: downloading Neovim $version from $mirror $suite into $cache" >&2
apt-get "${apt_opts[@]}" -qq update >&2
rm -f "$apt_dir/debs"/*.deb
(cd "$apt_dir/debs" && apt-get "${apt_opts[@]}" -qq download "${packages[@]}" >&2)

root_tmp="$cache/root.tmp"
rm -rf "$root_tmp"
mkdir -p "$root_tmp"
for deb in "$apt_dir/debs"/*.deb; do
  dpkg -x "$deb" "$root_tmp"
done
rm -rf "$cache/root"
mv "$root_tmp" "$cache/root"

mkdir -p "$cache/bin"
cat >"$launcher.tmp" <<'EOF'
#!/bin/sh
# Written by nvim/scripts/fetch-nvim.sh: runs the Debian Neovim with its own
# dynamic loader and libraries.
root="$(cd "$(dirname "$0")/../root" && pwd)"
lib="$root/usr/lib/x86_64-linux-gnu"
VIMRUNTIME="$root/usr/share/nvim/runtime"
export VIMRUNTIME
exec "$lib/ld-linux-x86-64.so.2" --library-path "$lib:/usr/lib/x86_64-linux-gnu" "$root/usr/bin/nvim" "$@"
EOF
chmod +x "$launcher.tmp"
mv "$launcher.tmp" "$launcher"
echo "$stamp_want" >"$cache/stamp"

if ! ready; then
  echo "fetch-nvim: $launcher does not start Neovim $version" >&2
  exit 1
fi
echo "$launcher"
