package plugincontent

import (
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"
)

// FrontMatter is the parsed front matter of a markdown file: keys trimmed
// and lower-cased, every value a trimmed, non-empty string.
type FrontMatter map[string]string

// ParseFrontMatter splits text (already decoded, LF line ends) into its
// front matter and body, with the reference's rules: front matter exists
// only when the first line, trimmed, is "---", and ends at the next line
// that is "---" once trimmed; without that closing line the whole text is
// body. The block is YAML; text that is not YAML or not a mapping gives an
// empty map (never an error: a stray front matter must not hide a
// command). Nested mappings are flattened (their keys lifted to the top,
// no prefix), sequences become one string joined with ", " (wrapped in
// "[...]" for argument-hint), empty scalars are dropped. The body is
// returned untrimmed.
func ParseFrontMatter(text string) (FrontMatter, string) {
	p := parseFrontMatter(text, false)
	return p.fm, p.body
}

// ParseClaudeFrontMatter is ParseFrontMatter for a part written in Claude
// Code's format, which reads front matter as forgivingly as Claude Code
// does: a block that is not valid YAML is read entry by entry
// (parseLenient) instead of being dropped.
func ParseClaudeFrontMatter(text string) (FrontMatter, string) {
	p := parseFrontMatter(text, true)
	return p.fm, p.body
}

// parsed is a parsed markdown file.
type parsed struct {
	fm FrontMatter
	// keys is every key present, empty values included (the
	// .claude/skills marker rule counts a key with an empty value).
	keys map[string]bool
	// unreadable are the keys present whose value could not be read as
	// written: a mapping where a scalar or list belongs (flattened away),
	// a value strict YAML rejects and that was taken as raw text, a key
	// of a front matter that never closes. An allow-list among them must
	// narrow what it governs, never widen it.
	unreadable map[string]bool
	body       string
}

// maxLenientLines bounds how many lines of an unclosed front matter are
// searched for keys that must not be silently lost.
const maxLenientLines = 64

// topKey is a top-level "key:" line of a front matter block, as Claude
// Code's lenient reading finds them.
var topKey = regexp.MustCompile(`^([A-Za-z0-9_][A-Za-z0-9_.-]*)[ \t]*:(?:[ \t]|$)`)

func parseFrontMatter(text string, lenient bool) parsed {
	p := parsed{fm: FrontMatter{}, keys: map[string]bool{}, unreadable: map[string]bool{}, body: text}
	lines := strings.Split(text, "\n")
	if strings.TrimSpace(lines[0]) != "---" {
		return p
	}
	end := -1
	for i := 1; i < len(lines); i++ {
		if strings.TrimSpace(lines[i]) == "---" {
			end = i
			break
		}
	}
	if end < 0 {
		// No front matter; but a key written where it would have been
		// is remembered as unreadable.
		markUnreadable(lines[1:min(len(lines), maxLenientLines+1)], &p)
		return p
	}
	block := strings.Join(lines[1:end], "\n")
	p.body = strings.Join(lines[end+1:], "\n")
	// Decoding into a map first applies yaml's own checks (duplicate keys
	// among them), which the node walk below would not.
	var probe map[string]any
	if yaml.Unmarshal([]byte(block), &probe) != nil {
		if lenient {
			parseLenient(lines[1:end], &p)
		} else {
			markUnreadable(lines[1:end], &p)
		}
		return p
	}
	var doc yaml.Node
	if yaml.Unmarshal([]byte(block), &doc) != nil || len(doc.Content) == 0 {
		return p
	}
	flatten(deref(doc.Content[0]), &p, 0)
	return p
}

// markUnreadable remembers the keys of lines (a block that could not be
// read) as unreadable.
func markUnreadable(lines []string, p *parsed) {
	for _, l := range lines {
		if m := topKey.FindStringSubmatch(l); m != nil {
			p.unreadable[strings.ToLower(m[1])] = true
		}
	}
}

// parseLenient reads a front matter block that is not valid YAML the way
// Claude Code does rather than dropping it: every line starting (at
// column 0) with "key:" opens an entry, and the lines up to the next one
// belong to it. An entry that is valid YAML on its own is read as YAML (a
// "tools:" list keeps working beside a broken description); one that is
// not is taken as text: the rest of its first line and its following
// lines, each trimmed, joined with newlines. That is how a published
// agent's "description: Use this agent … Context: … <example>…</example>"
// (": " inside a plain scalar, which strict YAML rejects) reaches the
// model whole. Lines before the first key are ignored.
func parseLenient(lines []string, p *parsed) {
	type entry struct {
		key   string
		lines []string
	}
	var entries []entry
	for _, l := range lines {
		if m := topKey.FindStringSubmatch(l); m != nil {
			entries = append(entries, entry{key: m[1], lines: []string{l}})
			continue
		}
		if len(entries) > 0 {
			entries[len(entries)-1].lines = append(entries[len(entries)-1].lines, l)
		}
	}
	for _, e := range entries {
		var doc yaml.Node
		if yaml.Unmarshal([]byte(strings.Join(e.lines, "\n")), &doc) == nil && len(doc.Content) > 0 {
			if n := deref(doc.Content[0]); n != nil && n.Kind == yaml.MappingNode {
				flatten(n, p, 0)
				continue
			}
		}
		key := strings.ToLower(e.key)
		first := e.lines[0]
		first = strings.TrimSpace(first[strings.Index(first, ":")+1:])
		var parts []string
		if first != "" {
			parts = append(parts, first)
		}
		for _, l := range e.lines[1:] {
			if l = strings.TrimSpace(l); l != "" || len(parts) > 0 {
				parts = append(parts, l)
			}
		}
		p.keys[key] = true
		p.unreadable[key] = true
		if s := strings.TrimSpace(strings.Join(parts, "\n")); s != "" {
			p.fm[key] = s
		} else {
			delete(p.fm, key)
		}
	}
}

// maxNesting bounds how deep flatten follows nested mappings; front matter
// is flat in practice, and the bound keeps hostile input cheap.
const maxNesting = 16

func flatten(n *yaml.Node, p *parsed, depth int) {
	if n == nil || n.Kind != yaml.MappingNode || depth > maxNesting {
		return
	}
	fm, keys := p.fm, p.keys
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := deref(n.Content[i]), deref(n.Content[i+1])
		if k == nil || v == nil || k.Kind != yaml.ScalarNode {
			continue
		}
		key := strings.ToLower(strings.TrimSpace(k.Value))
		switch v.Kind {
		case yaml.MappingNode:
			p.unreadable[key] = true
			flatten(v, p, depth+1)
			continue
		case yaml.SequenceNode:
			var items []string
			for _, it := range v.Content {
				if s := scalar(deref(it)); s != "" {
					items = append(items, s)
				} else if it := deref(it); it == nil || it.Kind != yaml.ScalarNode {
					p.unreadable[key] = true
				}
			}
			keys[key] = true
			s := strings.Join(items, ", ")
			if key == "argument-hint" && s != "" {
				s = "[" + s + "]"
			}
			if s != "" {
				fm[key] = s
			} else {
				delete(fm, key)
			}
			continue
		}
		keys[key] = true
		if s := scalar(v); s != "" {
			fm[key] = s
		} else {
			delete(fm, key)
		}
	}
}

// scalar is the trimmed text of a scalar node; null and non-scalars are
// empty.
func scalar(n *yaml.Node) string {
	if n == nil || n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		return ""
	}
	return strings.TrimSpace(n.Value)
}

// deref follows an alias to the node it names.
func deref(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < maxNesting; i++ {
		n = n.Alias
	}
	if n != nil && n.Kind == yaml.AliasNode {
		return nil
	}
	if n != nil && n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		return n.Content[0]
	}
	return n
}
