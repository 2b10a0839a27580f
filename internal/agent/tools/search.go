package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path"
	"regexp"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/rx-bridge/rx-bridge/extproto"
)

// searchText is search_text: a regular-expression search over the
// workspace's text files, gitignore-aware.
type searchText struct{}

func (searchText) Schema() extproto.ProviderToolSchema {
	return extproto.ProviderToolSchema{
		Name:        "search_text",
		Description: fmt.Sprintf("Search the workspace's text files for a regular expression (RE2 syntax) and return matching lines as path:line: text. Files ignored by .gitignore, binary files and files over %d MiB are skipped. At most %d matches (default %d).", MaxFileBytes>>20, MaxMatches, DefaultMatches),
		Parameters: json.RawMessage(`{"type":"object","properties":{` +
			`"pattern":{"type":"string","description":"Regular expression (RE2) matched against each line"},` +
			`"path":{"type":"string","description":"File or directory to search, relative to the workspace root (default: the root)"},` +
			`"include":{"type":"string","description":"Only search files matching this glob, as ripgrep -g takes it: *.go or *.{ts,tsx} match the file name at any depth; src/**/*.go or **/test/*.ts match the path from the workspace root"},` +
			`"ignoreCase":{"type":"boolean","description":"Match case-insensitively"},` +
			`"maxResults":{"type":"integer","minimum":1,"description":"Maximum number of matches to return"}},` +
			`"required":["pattern"],"additionalProperties":false}`),
	}
}

func (searchText) ReadOnly() bool { return true }
func (searchText) Kind() Kind     { return KindSearch }

func (searchText) Describe(args json.RawMessage) (string, []string) {
	var a struct {
		Pattern string `json:"pattern"`
		Path    string `json:"path"`
	}
	_ = json.Unmarshal(args, &a)
	title := fmt.Sprintf("Search %q", a.Pattern)
	if a.Path == "" {
		return title, nil
	}
	return title + " in " + a.Path, []string{a.Path}
}

type searchArgs struct {
	Pattern    string `json:"pattern"`
	Path       string `json:"path"`
	Include    string `json:"include"`
	IgnoreCase bool   `json:"ignoreCase"`
	MaxResults int    `json:"maxResults"`
}

func (searchText) Run(ctx context.Context, env *Env, args json.RawMessage) (string, error) {
	var a searchArgs
	if err := decodeArgs(args, &a); err != nil {
		return "", err
	}
	if a.Pattern == "" {
		return "", fmt.Errorf("pattern is required")
	}
	expr := a.Pattern
	if a.IgnoreCase {
		expr = "(?i)" + expr
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return "", fmt.Errorf("invalid pattern: %w", err)
	}
	var include *includeGlob
	if a.Include != "" {
		if include, err = compileInclude(a.Include); err != nil {
			return "", err
		}
	}
	limit := a.MaxResults
	if limit <= 0 {
		limit = DefaultMatches
	}
	limit = min(limit, MaxMatches)
	ws := env.Workspace
	abs, err := ws.Resolve(a.Path)
	if err != nil {
		return "", err
	}
	st, err := os.Stat(abs)
	if err != nil {
		return "", fmt.Errorf("%s: %w", ws.Rel(abs), unwrapPath(err))
	}
	s := &searcher{ws: ws, re: re, include: include, limit: limit}
	if st.IsDir() {
		s.under = ws.Rel(abs)
	}
	if !st.IsDir() {
		s.file(ws.Rel(abs), abs)
	} else {
		err = ws.walk(ctx, abs, true, func(rel string, d fs.DirEntry) error {
			if !d.Type().IsRegular() {
				return nil
			}
			s.file(rel, ws.abs(rel))
			if s.capped {
				return errStop
			}
			return ctx.Err()
		})
		if err != nil {
			return "", err
		}
	}
	return s.result(), nil
}

// searcher accumulates matches up to the limit.
type searcher struct {
	ws      *Workspace
	re      *regexp.Regexp
	include *includeGlob
	under   string // the searched directory, relative to the root
	limit   int
	out     strings.Builder
	matches int
	capped  bool
}

func (s *searcher) file(rel, abs string) {
	if s.include != nil && !s.include.match(rel, s.under) {
		return
	}
	st, err := os.Stat(abs)
	if err != nil || st.Size() > MaxFileBytes {
		return
	}
	data, err := os.ReadFile(abs)
	if err != nil || bytes.IndexByte(data[:min(len(data), 8000)], 0) >= 0 {
		return
	}
	for n, line := range bytes.Split(data, []byte("\n")) {
		if !s.re.Match(line) {
			continue
		}
		if s.matches == s.limit {
			s.capped = true
			return
		}
		s.matches++
		text := strings.TrimRight(string(line), "\r")
		if len(text) > MaxMatchLine {
			text = validUTF8Prefix(text, MaxMatchLine) + "…"
		}
		fmt.Fprintf(&s.out, "%s:%d: %s\n", rel, n+1, text)
	}
}

func (s *searcher) result() string {
	if s.matches == 0 {
		return "[no matches]"
	}
	out := strings.TrimSuffix(s.out.String(), "\n")
	if s.capped {
		out += fmt.Sprintf("\n[results stopped at %d matches; narrow the pattern or the path]", s.limit)
	}
	return out
}

// includeGlob is search_text's include: a glob as ripgrep's -g takes it
// (doublestar syntax: *, ?, [...], {a,b}, ** across directories). One
// without a slash matches the file name at any depth, as in gitignore;
// one with a slash matches the path from the workspace root or from the
// searched directory. A leading ./ or / is dropped.
type includeGlob struct {
	pattern string
	name    bool // no slash: match the base name
}

func compileInclude(g string) (*includeGlob, error) {
	p := strings.TrimPrefix(strings.TrimPrefix(g, "./"), "/")
	if p == "" || !doublestar.ValidatePattern(p) {
		return nil, fmt.Errorf("invalid include glob %q: use *, ?, [...], {a,b} and ** (e.g. *.go, src/**/*.ts, *.{js,jsx})", g)
	}
	return &includeGlob{pattern: p, name: !strings.Contains(p, "/")}, nil
}

// match reports whether the file at rel (slash path from the root) is
// included; under is the searched directory ("." or "" for the root).
func (g *includeGlob) match(rel, under string) bool {
	if g.name {
		ok, _ := doublestar.Match(g.pattern, path.Base(rel))
		return ok
	}
	if ok, _ := doublestar.Match(g.pattern, rel); ok {
		return true
	}
	if under != "" && under != "." {
		if sub, ok := strings.CutPrefix(rel, under+"/"); ok {
			ok, _ := doublestar.Match(g.pattern, sub)
			return ok
		}
	}
	return false
}
