package plugincontent

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Command is a custom slash command: a markdown file of a commands (or
// prompts) root.
type Command struct {
	// Name is what the user types after "/": "<plugin>:<short>" for a
	// plugin command, the short name for a hidden alias and for the
	// user's and project's own commands.
	Name string
	// ShortName is the name inside its root ("git:commit" for
	// git/commit.md); set for plugin commands.
	ShortName string
	// Plugin is the owning plugin's installed name, "" for the user's and
	// project's own commands.
	Plugin      string
	Description string
	ArgHint     string
	// Hidden marks the unambiguous short alias of a plugin command: it
	// runs when typed but is listed nowhere.
	Hidden bool
	// Body is the template, trimmed, that Render expands.
	Body string
	// Path is the file.
	Path string
	// Kind is KindCommands or KindPrompts.
	Kind Kind
}

// Render expands the command's body with args.
func (c Command) Render(args []string) string { return Render(c.Body, args) }

var argToken = regexp.MustCompile(`\$(\$|ARGUMENTS|[0-9]+)`)

// Render substitutes args into body in one pass: $ARGUMENTS is every
// argument joined with one space, $1…$N the N-th argument (empty when
// absent; $0 is empty), $$ a literal $. Text produced by a substitution is
// never substituted again.
func Render(body string, args []string) string {
	return argToken.ReplaceAllStringFunc(body, func(tok string) string {
		switch t := tok[1:]; t {
		case "$":
			return "$"
		case "ARGUMENTS":
			return strings.Join(args, " ")
		default:
			n, err := strconv.Atoi(t)
			if err != nil || n < 1 || n > len(args) {
				return ""
			}
			return args[n-1]
		}
	})
}

// loadCommands reads every commands and prompts root (lowest priority
// first) and applies the reference's namespacing: a user or project
// command is its name, a later root winning; a plugin command is
// "<plugin>:<name>" unless a user or project command already has that
// exact name; its short name becomes a hidden alias when nothing else
// has that name and exactly one plugin command carries it. The result
// is sorted by Name and includes the hidden aliases.
func loadCommands(roots []Root) ([]Command, []Warning) {
	var warns []Warning
	byName := map[string]Command{}
	plugin := map[string]map[string]Command{}
	for _, r := range roots {
		for _, c := range walkCommands(r, &warns) {
			if r.Plugin == "" {
				byName[c.Name] = c
				continue
			}
			if plugin[r.Plugin] == nil {
				plugin[r.Plugin] = map[string]Command{}
			}
			plugin[r.Plugin][c.Name] = c
		}
	}
	shorts := map[string][]Command{}
	for _, p := range sortedKeys(plugin) {
		for _, short := range sortedKeys(plugin[p]) {
			c := plugin[p][short]
			shorts[short] = append(shorts[short], c)
			qualified := p + ":" + short
			if _, taken := byName[qualified]; taken {
				continue
			}
			c.Name, c.ShortName, c.Plugin = qualified, short, p
			byName[qualified] = c
		}
	}
	for _, short := range sortedKeys(shorts) {
		cs := shorts[short]
		if _, taken := byName[short]; taken || len(cs) != 1 {
			continue
		}
		c := cs[0]
		c.Name, c.ShortName, c.Hidden = short, short, true
		byName[short] = c
	}
	out := make([]Command, 0, len(byName))
	for _, name := range sortedKeys(byName) {
		out = append(out, byName[name])
	}
	return out, warns
}

// walkCommands returns the commands of one root, named by their path
// inside it. A root that is a single .md file is one command named by its
// stem.
func walkCommands(r Root, warns *[]Warning) []Command {
	var out []Command
	add := func(rel, path string) {
		text, err := readText(path)
		if err != nil {
			*warns = append(*warns, Warning{Path: path, Plugin: r.Plugin, Msg: "command load: " + err.Error()})
			return
		}
		fm, body := ParseFrontMatter(text)
		name := strings.ReplaceAll(strings.TrimSuffix(filepath.ToSlash(rel), ".md"), "/", ":")
		out = append(out, Command{
			Name:        name,
			Plugin:      r.Plugin,
			Description: fm["description"],
			ArgHint:     fm["argument-hint"],
			Body:        strings.TrimSpace(body),
			Path:        path,
			Kind:        r.Kind,
		})
	}
	fi, err := os.Stat(r.Path)
	if err != nil {
		return nil
	}
	if !fi.IsDir() {
		if isMarkdown(r.Path) {
			add(filepath.Base(r.Path), r.Path)
		}
		return out
	}
	seen := visited{}
	var walk func(dir, rel string)
	walk = func(dir, rel string) {
		if !seen.enter(dir) {
			return
		}
		for _, e := range readDir(dir) {
			erel := filepath.Join(rel, e.name)
			switch {
			case e.info.IsDir():
				walk(e.path, erel)
			case e.info.Mode().IsRegular() && isMarkdown(e.name):
				add(erel, e.path)
			}
		}
	}
	walk(r.Path, "")
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func isMarkdown(name string) bool { return strings.EqualFold(filepath.Ext(name), ".md") }

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
