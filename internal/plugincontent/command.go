package plugincontent

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/rx-bridge/rx-bridge/internal/fsbound"
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
	// UserOnly (disable-model-invocation: true) keeps the command out of
	// the slash_command tool: the model neither sees nor runs it; the
	// user still types it.
	UserOnly bool
	// Body is the template, trimmed, that Render expands.
	Body string
	// Path is the file.
	Path string
	// Kind is KindCommands or KindPrompts.
	Kind Kind
	// Claude marks a command written in Claude Code's format (its root's
	// Root.Claude): Expand follows Claude Code's contract.
	Claude bool
	// pluginRoot is the owning plugin's root, for ${CLAUDE_PLUGIN_ROOT}.
	pluginRoot string
}

// Render expands the command's body with args, by Reasonix's rules.
func (c Command) Render(args []string) string { return Render(c.Body, args) }

// Expand is the command's text for the argument string args as typed.
// A native command is Render with args split on blanks. A Claude-format
// command follows Claude Code: RenderClaude (shell-style $1…, $ARGUMENTS
// as typed, "ARGUMENTS: <args>" appended when the body has no
// placeholder, ${CLAUDE_PLUGIN_ROOT}) and then InlineRefs in env's
// workspace ("@path" files attached). Its !`cmd` lines are left as
// written: ShellLines finds them for the host to run.
func (c Command) Expand(args string, env Env) string {
	text, _ := c.ExpandShell(args, env)
	return text
}

// ExpandShell is Expand that also returns the shell lines (ShellLines)
// of a Claude-format command, found before the "@path" files are
// attached (an attached file's text is never run); their ranges hold in
// text.
func (c Command) ExpandShell(args string, env Env) (string, []ShellLine) {
	if !c.Claude {
		return Render(c.Body, strings.Fields(args)), nil
	}
	rendered := RenderClaude(c.Body, args, c.pluginRoot)
	return InlineRefs(rendered, env.Workspace, env.Folders...), ShellLines(rendered)
}

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
func loadCommands(roots []Root, opts Options) ([]Command, []Warning) {
	var warns []Warning
	byName := map[string]Command{}
	plugin := map[string]map[string]Command{}
	bounds := map[string]*fsbound.Root{}
	for _, r := range roots {
		w := newWalker(r, bounds, opts.maxWalkEntries(), &warns)
		if w == nil {
			continue
		}
		for _, c := range walkCommands(w) {
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

// walkCommands returns the commands of w's root, named by their path
// inside it. A root that is a single .md file is one command named by its
// stem. A file whose name is not a valid command name is a warning.
func walkCommands(w *walker) []Command {
	r := w.root
	var out []Command
	add := func(rel, path, real string) {
		name := strings.ReplaceAll(strings.TrimSuffix(filepath.ToSlash(rel), ".md"), "/", ":")
		if !ValidCommandName(name) {
			w.warn(path, fmt.Sprintf("command file %s: %q is not a valid command name (no newline, \";\", control character or path separator in a command or folder name); not served", path, name))
			return
		}
		text, err := readText(real)
		if err != nil {
			w.warn(path, "command load: "+err.Error())
			return
		}
		p := parseFrontMatter(text, r.Claude)
		fm, body := p.fm, p.body
		pluginRoot := ""
		if r.Plugin != "" {
			pluginRoot = r.Bound
		}
		out = append(out, Command{
			Claude:      r.Claude,
			pluginRoot:  pluginRoot,
			Name:        name,
			Plugin:      r.Plugin,
			Description: fm["description"],
			ArgHint:     fm["argument-hint"],
			UserOnly:    truthy(fm["disable-model-invocation"]),
			Body:        strings.TrimSpace(body),
			Path:        path,
			Kind:        r.Kind,
		})
	}
	real, err := w.resolve(r.Path)
	if err != nil {
		return nil
	}
	fi, err := os.Stat(real)
	if err != nil {
		return nil
	}
	if !fi.IsDir() {
		if isMarkdown(r.Path) && fi.Mode().IsRegular() {
			add(filepath.Base(r.Path), r.Path, real)
		}
		return out
	}
	var walk func(dir, real, rel string, level int)
	walk = func(dir, real, rel string, level int) {
		if !w.enter(real) {
			return
		}
		if level > MaxWalkDepth {
			w.tooDeep(dir, MaxWalkDepth)
			return
		}
		for _, e := range w.readDir(dir) {
			erel := filepath.Join(rel, e.name)
			switch {
			case e.info.IsDir():
				walk(e.path, e.real, erel, level+1)
			case e.info.Mode().IsRegular() && isMarkdown(e.name):
				add(erel, e.path, e.real)
			}
		}
	}
	walk(r.Path, real, "", 1)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// ValidCommandName reports whether name, a command's name as derived
// from its path (folders joined with ":"), can be one: valid UTF-8, no
// empty part between colons, and no newline or other control character,
// no invisible format character (a bidi override, …), no ";" and no path
// separator. A file named otherwise is refused with a warning: its name
// would be sent to the model and shown in every listing.
func ValidCommandName(name string) bool {
	if !utf8.ValidString(name) {
		return false
	}
	for _, part := range strings.Split(name, ":") {
		if part == "" {
			return false
		}
	}
	for _, c := range name {
		if unicode.IsControl(c) || unicode.Is(unicode.Cf, c) || c == ';' || c == '/' || c == '\\' {
			return false
		}
	}
	return true
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
