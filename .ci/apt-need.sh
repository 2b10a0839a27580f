# Sourced by the setup scripts that need Debian packages on the machine.
# apt_need LOGFILE PACKAGE...: installs the packages not yet installed
# (apt-get, through sudo unless root), quietly, with the output in LOGFILE;
# on failure prints its tail and returns non-zero. Uses the caller's log().
apt_need() {
	local logfile=$1 p
	shift
	local missing=()
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
	done
	[ "${#missing[@]}" -gt 0 ] || return 0
	log "apt-get install ${missing[*]}"
	local sudo=""
	[ "$(id -u)" -eq 0 ] || sudo="sudo"
	if ! { $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq && $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"; } >"$logfile" 2>&1; then
		tail -40 "$logfile" >&2
		log "apt-get install failed (full log: $logfile)"
		return 1
	fi
}
