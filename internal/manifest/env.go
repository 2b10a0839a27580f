package manifest

import "strings"

// SetEnv returns a copy of env, a list of KEY=value entries, with key set
// to value: every entry for key is dropped and one appended. On Windows
// PATH and Path are one variable, so keys compare without case there;
// keeping both would leave which one a sidecar sees to the sort order of
// its environment block.
func SetEnv(env []string, key, value string) []string { return setEnv(host, env, key, value) }

func setEnv(t target, env []string, key, value string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		k := envKey(t, kv)
		if k == key || t.windows && strings.EqualFold(k, key) {
			continue
		}
		out = append(out, kv)
	}
	return append(out, key+"="+value)
}

// envKey is the name of a KEY=value entry. Windows keeps per-drive
// directories in entries such as "=C:=C:\work", whose name starts with "=".
func envKey(t target, kv string) string {
	from := 0
	if t.windows && strings.HasPrefix(kv, "=") {
		from = 1
	}
	if i := strings.IndexByte(kv[from:], '='); i >= 0 {
		return kv[:from+i]
	}
	return kv
}
