package manifest

import (
	"encoding/json"
	"regexp"
	"strings"
)

// APIVersionV1 is the only manifest major this bridge reads strictly.
const APIVersionV1 = "reasonix.io/plugin/v1"

var apiVersionPattern = regexp.MustCompile(`^reasonix\.io/plugin/v([0-9]+)(?:\.([0-9]+))?$`)

// gateVersion classifies a manifest by its apiVersion member: absent or
// null selects the legacy reader, v1 and v1.<minor> the strict one, and
// anything else is refused rather than guessed at (a v2 manifest may mean
// things a v1 reader cannot see).
func gateVersion(r *reader, raw json.RawMessage, present bool) (version string, ok bool) {
	if !present || isNull(raw) {
		return "", true
	}
	var v string
	if jsonKind(raw) != "string" || json.Unmarshal(raw, &v) != nil {
		r.addf("apiVersion", "must be a string, got %s", jsonKind(raw))
		return "", false
	}
	v = strings.TrimSpace(v)
	m := apiVersionPattern.FindStringSubmatch(v)
	if m == nil {
		r.addf("apiVersion", "invalid apiVersion %q: want reasonix.io/plugin/v<major>[.<minor>]", v)
		return "", false
	}
	if strings.TrimLeft(m[1], "0") != "1" {
		r.addf("apiVersion", "unsupported apiVersion %q (this rx-bridge supports %s)", v, APIVersionV1)
		return "", false
	}
	return v, true
}
