package main

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// providerBlock is the [[providers.openai]] table setup writes.
type providerBlock struct {
	Name    string
	BaseURL string
	KeyEnv  string // api_key_env, or
	KeyFile string // api_key_file (as written: relative to the home or absolute)
	Model   serverModel
	RefName string // ref_name when the id cannot be the ref's segment
}

// ref is the model ref the block declares.
func (b providerBlock) ref() string {
	if b.RefName != "" {
		return b.Name + "/" + b.RefName
	}
	return b.Name + "/" + b.Model.ID
}

// text is the block as TOML.
func (b providerBlock) text() string {
	var s strings.Builder
	s.WriteString("[[providers.openai]]  # written by rx-bridge setup\n")
	fmt.Fprintf(&s, "name = %s\n", tomlString(b.Name))
	fmt.Fprintf(&s, "base_url = %s\n", tomlString(b.BaseURL))
	if b.KeyEnv != "" {
		fmt.Fprintf(&s, "api_key_env = %s\n", tomlString(b.KeyEnv))
	}
	if b.KeyFile != "" {
		fmt.Fprintf(&s, "api_key_file = %s\n", tomlString(b.KeyFile))
	}
	s.WriteString("\n[[providers.openai.models]]\n")
	fmt.Fprintf(&s, "id = %s\n", tomlString(b.Model.ID))
	if b.RefName != "" {
		fmt.Fprintf(&s, "ref_name = %s\n", tomlString(b.RefName))
	}
	if b.Model.ContextWindow > 0 {
		fmt.Fprintf(&s, "context_window = %d\n", b.Model.ContextWindow)
	}
	s.WriteString("tools = true\n")
	return s.String()
}

// refSegment is the ref's model segment for a server's model id: the id
// itself, or (for ids with a slash or white space, which a ref segment
// cannot hold) its last path segment with white space as dashes.
func refSegment(id string) (seg string, renamed bool) {
	seg = id
	if i := strings.LastIndex(seg, "/"); i >= 0 && i < len(seg)-1 {
		seg = seg[i+1:]
	}
	seg = strings.Join(strings.Fields(strings.ReplaceAll(seg, "/", "-")), "-")
	return seg, seg != id
}

// tomlString quotes s as a TOML basic string.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, "\\u%04X", r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// errProviderExists: config.toml already declares a provider of the name.
var errProviderExists = errors.New("provider exists")

// headerLine matches a table header line: [a.b] or [[a.b]], with an
// optional comment.
var headerLine = regexp.MustCompile(`^\s*(\[\[?)\s*([^\[\]#]+?)\s*(\]\]?)\s*(#.*)?$`)

// modelLine matches a top-level `model = ...` line.
var modelLine = regexp.MustCompile(`^\s*("model"|'model'|model)\s*=`)

// editConfig returns config.toml's text old with the default model set to
// block's ref and block appended; with replace, the [[providers.openai]]
// table of the same name (and its models) is taken out first. It edits
// the text, so every other line — comments and layout included — stays as
// it was, and then checks its work: the result, decoded, must equal old
// decoded with exactly those changes. A file laid out so that the edit
// would change anything else (an inline providers array, a multi-line
// string that looks like a table) is refused, never rewritten.
func editConfig(old []byte, block providerBlock, replace bool) ([]byte, error) {
	before, err := decodeTOML(old)
	if err != nil {
		return nil, fmt.Errorf("config.toml does not parse (%v); fix it first", err)
	}
	existing := -1
	entries, _ := providerEntries(before)
	for i, e := range entries {
		if e["name"] == block.Name {
			existing = i
		}
	}
	if existing >= 0 && !replace {
		return nil, errProviderExists
	}
	text := string(old)
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	lines := splitLines(text)
	if existing >= 0 {
		var ok bool
		if lines, ok = dropProviderTable(lines, existing); !ok {
			return nil, errors.New("config.toml declares [[providers.openai]] in a form setup does not edit; remove the table named " + strconv.Quote(block.Name) + " by hand, then run setup again")
		}
	}
	lines = setModel(lines, block.ref())
	text = strings.Join(lines, "")
	if strings.TrimSpace(text) != "" {
		text += "\n"
	}
	text += block.text()

	// The check: only model and the one provider table changed.
	after, err := decodeTOML([]byte(text))
	want, _ := decodeTOML(old)
	if err == nil {
		added, _ := decodeTOML([]byte(block.text()))
		newEntries, _ := providerEntries(added)
		want["model"] = block.ref()
		prov, _ := want["providers"].(map[string]any)
		if prov == nil {
			prov = map[string]any{}
			want["providers"] = prov
		}
		kept, _ := providerEntries(want)
		if existing >= 0 {
			kept = append(kept[:existing:existing], kept[existing+1:]...)
		}
		prov["openai"] = append(kept, newEntries...)
	}
	if err != nil || !reflect.DeepEqual(after, want) {
		return nil, errors.New("config.toml is laid out so that setup cannot add to it without changing other settings; add the provider by hand (docs/PROVIDERS.md) or move the file away and run setup again")
	}
	return []byte(text), nil
}

func decodeTOML(b []byte) (map[string]any, error) {
	m := map[string]any{}
	if _, err := toml.NewDecoder(bytes.NewReader(b)).Decode(&m); err != nil {
		return nil, err
	}
	return m, nil
}

// providerEntries is the [[providers.openai]] array of a decoded config
// (ok false when it is there in another shape).
func providerEntries(m map[string]any) ([]map[string]any, bool) {
	prov, _ := m["providers"].(map[string]any)
	if prov == nil || prov["openai"] == nil {
		return nil, true
	}
	e, ok := prov["openai"].([]map[string]any)
	return e, ok
}

// configuredProviders is the names of config.toml's [[providers.openai]]
// tables (for choosing a free one).
func configuredProviders(old []byte) map[string]bool {
	m, err := decodeTOML(old)
	names := map[string]bool{}
	if err != nil {
		return names
	}
	entries, _ := providerEntries(m)
	for _, e := range entries {
		if n, ok := e["name"].(string); ok {
			names[n] = true
		}
	}
	return names
}

// splitLines splits s after each "\n", keeping it.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// tableKey is the key of a header line ("" and false for other lines),
// with white space around its dots removed.
func tableKey(line string) (key string, array, ok bool) {
	m := headerLine.FindStringSubmatch(strings.TrimRight(line, "\r\n"))
	if m == nil || (m[1] == "[[") != (m[3] == "]]") {
		return "", false, false
	}
	parts := strings.Split(m[2], ".")
	for i, p := range parts {
		parts[i] = strings.TrimSpace(p)
	}
	return strings.Join(parts, "."), m[1] == "[[", true
}

// dropProviderTable removes the n-th [[providers.openai]] table with its
// sub-tables ([[providers.openai.models]], [providers.openai.headers]).
// ok is false when the text does not have n+1 such tables.
func dropProviderTable(lines []string, n int) ([]string, bool) {
	seen := -1
	start, end := -1, len(lines)
	for i, l := range lines {
		key, array, ok := tableKey(l)
		if !ok {
			continue
		}
		if start >= 0 {
			if !strings.HasPrefix(key, "providers.openai.") {
				end = i
				break
			}
			continue
		}
		if key == "providers.openai" && array {
			if seen++; seen == n {
				start = i
			}
		}
	}
	if start < 0 {
		return lines, false
	}
	out := append(append([]string(nil), lines[:start]...), lines[end:]...)
	return out, true
}

// setModel sets the top-level model: the existing `model = ...` line
// before the first table is replaced, or one is added after the last
// top-level line (at the top when there is none).
func setModel(lines []string, ref string) []string {
	line := "model = " + tomlString(ref) + "\n"
	first := len(lines)
	for i, l := range lines {
		if _, _, ok := tableKey(l); ok {
			first = i
			break
		}
	}
	insert := 0
	for i := range first {
		t := strings.TrimSpace(lines[i])
		if modelLine.MatchString(lines[i]) {
			out := append([]string(nil), lines...)
			out[i] = line
			return out
		}
		if t != "" && !strings.HasPrefix(t, "#") {
			insert = i + 1
		}
	}
	out := append([]string(nil), lines[:insert]...)
	out = append(out, line)
	return append(out, lines[insert:]...)
}
