package manifest

import (
	"fmt"
	"regexp"
	"sort"
)

// pluginName is SPEC §8's plugin id rule (lower-case letters, digits, "-",
// "_", "."), anchored on a letter or digit and bounded at 64 characters as
// the Reasonix host bounds it. The id becomes a directory name, an
// environment value and part of provider refs, so it is deliberately narrow.
var pluginName = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,63}$`)

// serverName is the Reasonix rule for MCP server names, which (unlike
// plugin ids) may use upper case.
var serverName = regexp.MustCompile(`^[a-zA-Z0-9][a-zA-Z0-9._-]{0,63}$`)

// ValidateName reports whether name may be a plugin id.
func ValidateName(name string) error {
	if pluginName.MatchString(name) {
		return nil
	}
	return fmt.Errorf("invalid plugin name %q: use 1 to 64 lower-case letters, digits, \"-\", \"_\" or \".\", starting with a letter or digit", name)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
