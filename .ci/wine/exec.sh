#!/usr/bin/env bash
# `go test -exec` wrapper: runs a windows/amd64 test binary under Wine in
# the prefix setup.sh made (WINEPREFIX must be set by the caller).
set -euo pipefail
: "${WINEPREFIX:?run .ci/wine/setup.sh and export its WINEPREFIX}"
export WINEDEBUG="${WINEDEBUG:--all}" WINEARCH=win64
exec wine "$@"
