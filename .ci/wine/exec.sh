#!/usr/bin/env bash
# `go test -exec` wrapper: runs a windows/amd64 test binary under Wine in
# the prefix setup.sh made (WINEPREFIX must be set by the caller).
set -euo pipefail
: "${WINEPREFIX:?run .ci/wine/setup.sh and export its WINEPREFIX}"
export WINEDEBUG="${WINEDEBUG:--all}" WINEARCH=win64
# The wine server and the prefix's own processes (services.exe, …) outlive
# the test binary by seconds; started from here they would inherit its
# stdout, and go test would wait for them to let go of it. Start them with
# nothing of ours (a no-op if they run), persisting a minute.
wineserver -p 60 </dev/null >/dev/null 2>&1 || true
wine cmd /c exit </dev/null >/dev/null 2>&1 || true
exec wine "$@"
