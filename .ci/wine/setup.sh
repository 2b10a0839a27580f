#!/usr/bin/env bash
# Prepares running Go test binaries for windows/amd64 under Wine
# (`make wine-test`), idempotently, into a cache outside the repository:
#   - Debian: wine, wine64 and gcc-mingw-w64-x86-64 (apt-get, once)
#   - a private 64-bit Wine prefix, never the user's ~/.wine
#   - bcryptprimitives.dll, built from bcryptprimitives.c into the prefix:
#     Wine 8 (Debian 12) has none, and Go's runtime (1.24 and later) dies
#     at start without its ProcessPrng
#   - a go build overlay for the standard library's deleteat: Wine 8 answers
#     FileDispositionInformationEx with STATUS_NOT_IMPLEMENTED, and Go falls
#     back to the older FileDispositionInformation (as on Windows before 10
#     1607) only for three other statuses, so every os.RemoveAll of a
#     non-empty directory (each t.TempDir cleanup) failed
# Prints progress on stderr, then the variables the caller needs on stdout
# (WINEPREFIX=…, GO_OVERLAY=…); exits non-zero with the reason on failure.
set -euo pipefail

HERE="$(cd "$(dirname "$0")" && pwd)"
CACHE="${RX_WINE_CACHE:-$HOME/.cache/rx-bridge-wine}"
GO="${GO:-go}"
APT_PACKAGES=(wine wine64 gcc-mingw-w64-x86-64)
PREFIX="$CACHE/prefix"

mkdir -p "$CACHE"
log() { echo "wine-setup: $*" >&2; }

. "$HERE/../apt-need.sh"
apt_need "$CACHE/apt.log" "${APT_PACKAGES[@]}" || exit 1

export WINEPREFIX="$PREFIX" WINEARCH=win64 WINEDEBUG=-all
if [ ! -f "$PREFIX/system.reg" ]; then
	log "creating the Wine prefix $PREFIX"
	# No Mono or Gecko: nothing here needs .NET or a browser engine.
	WINEDLLOVERRIDES="mscoree,mshtml=" wine wineboot --init >"$CACHE/wineboot.log" 2>&1 || {
		tail -20 "$CACHE/wineboot.log" >&2
		log "wineboot failed (log: $CACHE/wineboot.log)"
		exit 1
	}
	wineserver --wait
fi

DLL="$PREFIX/drive_c/windows/system32/bcryptprimitives.dll"
if [ ! -f "$DLL" ] || [ "$HERE/bcryptprimitives.c" -nt "$DLL" ]; then
	log "building bcryptprimitives.dll"
	x86_64-w64-mingw32-gcc -shared -O2 -s -o "$DLL.tmp" "$HERE/bcryptprimitives.c" -ladvapi32
	mv "$DLL.tmp" "$DLL"
fi

# The overlay follows the Go in use: regenerated when GOROOT's file changes.
SRC="$("$GO" env GOROOT)/src/internal/syscall/windows/at_windows.go"
OV="$CACHE/overlay/at_windows.go"
if [ ! -f "$OV" ] || [ "$SRC" -nt "$OV" ] || ! grep -q "$SRC" "$CACHE/overlay.json" 2>/dev/null; then
	mkdir -p "$CACHE/overlay"
	# The fallback's case list gains STATUS_NOT_IMPLEMENTED (0xC0000002).
	sed 's|^\(\t\tSTATUS_NOT_SUPPORTED\):\( *//.*\)$|\1,\2\n\t\tNTStatus(0xC0000002): // STATUS_NOT_IMPLEMENTED: Wine 8 has no FileDispositionInformationEx|' \
		"$SRC" >"$OV.tmp"
	if ! grep -q 'NTStatus(0xC0000002)' "$OV.tmp" || ! grep -q 'return deleteatFallback(h)' "$OV.tmp"; then
		rm -f "$OV.tmp"
		log "$SRC no longer has the deleteat fallback this overlay extends; update .ci/wine/setup.sh"
		exit 1
	fi
	mv "$OV.tmp" "$OV"
	printf '{"Replace":{"%s":"%s"}}\n' "$SRC" "$OV" >"$CACHE/overlay.json"
fi

# Go's runtime starts, finds ProcessPrng, and the overlay builds.
probe="$CACHE/probe"
mkdir -p "$probe"
cat >"$probe/main.go" <<'EOF'
package main

import (
	"crypto/rand"
	"fmt"
	"os"
)

func main() {
	d, err := os.MkdirTemp("", "probe")
	if err == nil {
		err = os.WriteFile(d+`\f`, []byte(rand.Text()), 0o600)
	}
	if err == nil {
		err = os.RemoveAll(d)
	}
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	fmt.Println("ok")
}
EOF
[ -f "$probe/go.mod" ] || printf 'module probe\n\ngo 1.22\n' >"$probe/go.mod"
(cd "$probe" && GOOS=windows GOARCH=amd64 GOFLAGS= "$GO" build -overlay "$CACHE/overlay.json" -o probe.exe .)
if ! out="$(wine "$probe/probe.exe" 2>&1)" || [ "$out" != "ok" ]; then
	log "a Go program does not run under Wine: $out"
	exit 1
fi

echo "WINEPREFIX=$PREFIX"
echo "GO_OVERLAY=$CACHE/overlay.json"
