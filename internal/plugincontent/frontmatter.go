package plugincontent

import (
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
	fm, _, body := parseFrontMatter(text)
	return fm, body
}

// parseFrontMatter is ParseFrontMatter that also returns every key
// present, empty values included (the .claude/skills marker rule counts a
// key with an empty value).
func parseFrontMatter(text string) (fm FrontMatter, keys map[string]bool, body string) {
	fm, keys = FrontMatter{}, map[string]bool{}
	lines := strings.Split(text, "\n")
	if strings.TrimSpace(lines[0]) != "---" {
		return fm, keys, text
	}
	end := -1
	for i := 1; i < len(lines); i++ {
		if strings.TrimSpace(lines[i]) == "---" {
			end = i
			break
		}
	}
	if end < 0 {
		return fm, keys, text
	}
	block := strings.Join(lines[1:end], "\n")
	body = strings.Join(lines[end+1:], "\n")
	// Decoding into a map first applies yaml's own checks (duplicate keys
	// among them), which the node walk below would not.
	var probe map[string]any
	if yaml.Unmarshal([]byte(block), &probe) != nil {
		return fm, keys, body
	}
	var doc yaml.Node
	if yaml.Unmarshal([]byte(block), &doc) != nil || len(doc.Content) == 0 {
		return fm, keys, body
	}
	flatten(deref(doc.Content[0]), fm, keys, 0)
	return fm, keys, body
}

// maxNesting bounds how deep flatten follows nested mappings; front matter
// is flat in practice, and the bound keeps hostile input cheap.
const maxNesting = 16

func flatten(n *yaml.Node, fm FrontMatter, keys map[string]bool, depth int) {
	if n == nil || n.Kind != yaml.MappingNode || depth > maxNesting {
		return
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := deref(n.Content[i]), deref(n.Content[i+1])
		if k == nil || v == nil || k.Kind != yaml.ScalarNode {
			continue
		}
		key := strings.ToLower(strings.TrimSpace(k.Value))
		switch v.Kind {
		case yaml.MappingNode:
			flatten(v, fm, keys, depth+1)
			continue
		case yaml.SequenceNode:
			var items []string
			for _, it := range v.Content {
				if s := scalar(deref(it)); s != "" {
					items = append(items, s)
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
