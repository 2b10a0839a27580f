package plugincontent

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParseFrontMatter(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, text string
		want       FrontMatter
		body       string
	}{
		{"none", "just body\n", FrontMatter{}, "just body\n"},
		{"simple", "---\ndescription: hi\n---\nbody", FrontMatter{"description": "hi"}, "body"},
		{"fences trimmed", "  ---  \ndescription: hi\n --- \nbody", FrontMatter{"description": "hi"}, "body"},
		{"keys lower-cased and trimmed", "---\nrunAs: subagent\n\"  Allowed-Tools \": x\n---\n", FrontMatter{"runas": "subagent", "allowed-tools": "x"}, ""},
		{"values trimmed, empties dropped", "---\na: '  padded  '\nb: ''\nc:\nd: ~\n---\n", FrontMatter{"a": "padded"}, ""},
		{"sequences joined", "---\ntools: [Read, Grep]\nempty: []\n---\n", FrontMatter{"tools": "Read, Grep"}, ""},
		{"argument-hint sequence bracketed", "---\nargument-hint: [file, mode]\n---\n", FrontMatter{"argument-hint": "[file, mode]"}, ""},
		{"argument-hint string kept", "---\nargument-hint: <file>\n---\n", FrontMatter{"argument-hint": "<file>"}, ""},
		{"nested mappings flattened", "---\nname: top\nmetadata:\n  Version: 2\n  deeper:\n    color: red\n---\n", FrontMatter{"name": "top", "version": "2", "color": "red"}, ""},
		{"scalars as written", "---\nn: 1.0\nb: true\nd: 2001-12-14\n---\n", FrontMatter{"n": "1.0", "b": "true", "d": "2001-12-14"}, ""},
		{"block scalar", "---\ndescription: |\n  line one\n  line two\n---\n", FrontMatter{"description": "line one\nline two"}, ""},
		{"aliases followed", "---\nx: &a hello\ny: *a\n---\n", FrontMatter{"x": "hello", "y": "hello"}, ""},
		{"invalid yaml is empty", "---\na: [\n---\nbody", FrontMatter{}, "body"},
		{"not a mapping is empty", "---\njust a string\n---\nbody", FrontMatter{}, "body"},
		{"no closing fence is all body", "---\na: b\nbody", FrontMatter{}, "---\na: b\nbody"},
		{"opening fence only", "---", FrontMatter{}, "---"},
		{"empty block", "---\n---\nbody", FrontMatter{}, "body"},
		{"body keeps later fences", "---\na: b\n---\none\n---\ntwo", FrontMatter{"a": "b"}, "one\n---\ntwo"},
		{"fence must be the first line", "\n---\na: b\n---\n", FrontMatter{}, "\n---\na: b\n---\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fm, body := ParseFrontMatter(tc.text)
			equal(t, "front matter", fm, tc.want)
			equal(t, "body", body, tc.body)
		})
	}
}

// A Claude-format part's front matter is read as Claude Code reads it:
// what strict YAML rejects is read entry by entry, not dropped.
func TestParseClaudeFrontMatter(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, text string
		want       FrontMatter
		body       string
	}{
		{"valid yaml as ParseFrontMatter", "---\ntools: [Read, Grep]\nmeta:\n  color: red\n---\nB", FrontMatter{"tools": "Read, Grep", "color": "red"}, "B"},
		{"invalid yaml is read entry by entry", "---\na: [\n---\nbody", FrontMatter{"a": "["}, "body"},
		{"lenient: colons in a plain scalar", "---\nname: r\ndescription: Use it when done. Context: the user said: \"go\" <example>x</example>\ntools: Read, Grep\n---\nB",
			FrontMatter{"name": "r", "description": `Use it when done. Context: the user said: "go" <example>x</example>`, "tools": "Read, Grep"}, "B"},
		{"lenient: a list beside a broken key", "---\ndescription: a: b\ntools:\n  - Read\n  - Grep\n---\n",
			FrontMatter{"description": "a: b", "tools": "Read, Grep"}, ""},
		{"lenient: continuation lines", "---\ndescription: one: two\n  three\n\n<example>\nx: y\n---\n",
			FrontMatter{"description": "one: two\nthree\n\n<example>", "x": "y"}, ""},
		{"lenient: duplicate keys, the last wins", "---\na: 1\na: 2\n---\n", FrontMatter{"a": "2"}, ""},
		{"lenient: lines before any key ignored", "---\n  stray: [\nk: v: w\n---\n", FrontMatter{"k": "v: w"}, ""},
		{"no closing fence is all body", "---\na: b: c\nbody", FrontMatter{}, "---\na: b: c\nbody"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fm, body := ParseClaudeFrontMatter(tc.text)
			equal(t, "front matter", fm, tc.want)
			equal(t, "body", body, tc.body)
		})
	}
}

// FuzzFrontMatter feeds untrusted bytes (any file in a plugin) through
// decoding and the front-matter parser, strict and lenient: it must never
// panic, every key
// must be lower-cased and trimmed, every value trimmed and non-empty, and
// the body must be a suffix of the text.
func FuzzFrontMatter(f *testing.F) {
	for _, seed := range []string{
		"---\ndescription: hi\n---\nbody",
		"\uFEFF---\r\nname: x\r\ntools: [a, b]\r\n---\r\n",
		"---\nmeta:\n  a: 1\n  b: [x, {y: z}]\n---\n",
		"---\na: &x [*x]\n---\n",
		"---\nx: &a [a, a, a]\ny: &b [*a, *a, *a]\nz: [*b, *b, *b]\n---\n",
		"---\n? [a, b]\n: c\n---\n",
		"---\n- 1\n---\n",
		"no front matter",
		"\xff\xfe-\x00-\x00-\x00",
		"---\n\x81\x30\x81\x30: v\n---\n",
		"---\ndescription: Use this agent when done. Examples: <example>Context: x user: \"y\"</example>\ntools: Glob, Read\n---\nB",
		"---\ndescription: a: b\n\n<example>\nContext: c\n</example>\ntools:\n  - Read\n---\n",
		"---\nname: x\ntools: Read\nno closing fence",
		"---\nA: b: c\n a: [\n---\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		text := strings.ReplaceAll(decodeText(data), "\r\n", "\n")
		if !utf8.ValidString(text) {
			t.Fatalf("decoded text is not UTF-8: %q", text)
		}
		for _, lenient := range []bool{false, true} {
			p := parseFrontMatter(text, lenient)
			if !strings.HasSuffix(text, p.body) {
				t.Fatalf("body %q is not a suffix of %q", p.body, text)
			}
			for k, v := range p.fm {
				if k != strings.ToLower(strings.TrimSpace(k)) {
					t.Fatalf("key %q not normalised", k)
				}
				if v == "" || v != strings.TrimSpace(v) {
					t.Fatalf("value %q of %q not trimmed or empty", v, k)
				}
			}
			for k := range p.unreadable {
				if k != strings.ToLower(k) {
					t.Fatalf("unreadable key %q not lower-cased", k)
				}
			}
		}
	})
}
