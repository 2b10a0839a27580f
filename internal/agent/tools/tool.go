package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/rx-bridge/rx-bridge/extproto"
)

// Kind classifies a tool for display, after the Agent Client Protocol's
// tool kinds.
type Kind string

// The tool kinds the built-ins use.
const (
	KindRead    Kind = "read"
	KindEdit    Kind = "edit"
	KindSearch  Kind = "search"
	KindExecute Kind = "execute"
)

// Documents is the editor's view of the workspace's files: the text of
// open documents (which may differ from disk) and the way edits are
// applied. The agent's Editor implements it.
type Documents interface {
	// Document returns the text of the document at path (absolute) if
	// the editor has it open; open is false otherwise, and the tool
	// reads the disk.
	Document(ctx context.Context, path string) (text string, open bool, err error)
	// ApplyEdit applies one file's edit and returns once it is applied
	// (or refused, as an error saying why).
	ApplyEdit(ctx context.Context, edit FileEdit) error
}

// Env is what a tool call runs with.
type Env struct {
	Workspace *Workspace
	Docs      Documents
	// Timeout bounds one call; run_command also uses it as the ceiling
	// of the timeout a call may ask for.
	Timeout time.Duration
	// Terminal, if set, runs run_command's commands (the editor's
	// terminal); a command it cannot start runs here.
	Terminal Terminal
}

// Tool is one tool the model can call.
type Tool interface {
	// Schema is the name, description and JSON schema of the arguments
	// the model sees.
	Schema() extproto.ProviderToolSchema
	// ReadOnly reports whether the tool never changes anything; the
	// auto approval mode allows these without asking.
	ReadOnly() bool
	Kind() Kind
	// Describe renders a call for people (a title such as "Read
	// main.go") and the workspace paths it touches; args are unchecked.
	Describe(args json.RawMessage) (title string, locations []string)
	// Run performs the call. An error is the tool's failure, reported to
	// the model as an error result; it never fails the turn.
	Run(ctx context.Context, env *Env, args json.RawMessage) (string, error)
}

// Set is the tools of a session, by name.
type Set struct {
	list    []Tool
	schemas []extproto.ProviderToolSchema
}

// Builtins returns the built-in tools.
func Builtins() *Set {
	return NewSet(readFile{}, listFiles{}, searchText{}, applyEdit{}, runCommand{}, todoWrite{})
}

// NewSet returns a set of ts, sorted by name.
func NewSet(ts ...Tool) *Set {
	s := &Set{list: slices.Clone(ts)}
	slices.SortFunc(s.list, func(a, b Tool) int { return strings.Compare(a.Schema().Name, b.Schema().Name) })
	for _, t := range s.list {
		s.schemas = append(s.schemas, t.Schema())
	}
	return s
}

// Arranged returns the set's tools with those that have a rank first,
// by rank, then the others in their order in s (name order for a set
// NewSet made); ranks are 0 to len(rank)-1: a session ranks the tools it
// has sent so a tool that arrives later is appended after them and the
// request's prefix stays the same bytes for a provider's prompt cache.
// It returns s itself when that is already its order.
func (s *Set) Arranged(rank map[string]int) *Set {
	pos := func(t Tool) int {
		if r, ok := rank[t.Schema().Name]; ok {
			return r
		}
		return len(rank)
	}
	// list is in name order, so a stable sort by rank keeps the unranked
	// ones in name order.
	if slices.IsSortedFunc(s.list, func(a, b Tool) int { return pos(a) - pos(b) }) {
		return s
	}
	list := slices.Clone(s.list)
	slices.SortStableFunc(list, func(a, b Tool) int { return pos(a) - pos(b) })
	out := &Set{list: list}
	for _, t := range list {
		out.schemas = append(out.schemas, t.Schema())
	}
	return out
}

// Lookup returns the tool named name.
func (s *Set) Lookup(name string) (Tool, bool) {
	for i, sc := range s.schemas {
		if sc.Name == name {
			return s.list[i], true
		}
	}
	return nil, false
}

// Len is the number of tools.
func (s *Set) Len() int { return len(s.list) }

// Schemas returns every tool's schema, in the set's order (name order
// unless Arranged). The slice is shared by every request (it is built
// once): callers must not modify it.
func (s *Set) Schemas() []extproto.ProviderToolSchema { return s.schemas }

// ObjectArgs reports whether args is empty or the text of a JSON object,
// the shape every tool call's arguments must have.
func ObjectArgs(args string) bool {
	b := bytes.TrimSpace([]byte(args))
	if len(b) == 0 {
		return true
	}
	var m map[string]json.RawMessage
	return b[0] == '{' && json.Unmarshal(b, &m) == nil
}

// decodeArgs strictly decodes a call's arguments into v: unknown members
// are refused so a misspelt argument is reported, not silently dropped.
// Member names are matched exactly, unlike encoding/json, which would take
// "Path" for "path": a plugin inspecting the same arguments (a tool.before
// policy) reads them case-sensitively and must see what the tool uses.
func decodeArgs(args json.RawMessage, v any) error {
	if len(bytes.TrimSpace(args)) == 0 {
		args = json.RawMessage("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("invalid arguments: %w", err)
	}
	if dec.More() {
		return errors.New("invalid arguments: trailing data after the JSON object")
	}
	if err := exactMembers(args, reflect.TypeOf(v), ""); err != nil {
		return fmt.Errorf("invalid arguments: %w", err)
	}
	return nil
}

// exactMembers checks that every member name in raw is exactly the JSON
// name of a field of t, at every depth; at is where raw is, for messages.
func exactMembers(raw json.RawMessage, t reflect.Type, at string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Slice:
		var elems []json.RawMessage
		if json.Unmarshal(raw, &elems) != nil {
			return nil
		}
		for i, e := range elems {
			if err := exactMembers(e, t.Elem(), fmt.Sprintf("%s[%d]", at, i)); err != nil {
				return err
			}
		}
	case reflect.Struct:
		var members map[string]json.RawMessage
		if json.Unmarshal(raw, &members) != nil {
			return nil
		}
		for name, value := range members {
			where := strings.TrimPrefix(at+"."+name, ".")
			f, ok := fieldByJSONName(t, name)
			if !ok {
				for i := range t.NumField() {
					if want := jsonName(t.Field(i)); strings.EqualFold(want, name) {
						return fmt.Errorf("unknown member %q (names are case-sensitive: did you mean %q?)", where, strings.TrimPrefix(at+"."+want, "."))
					}
				}
				return fmt.Errorf("unknown member %q", where)
			}
			if err := exactMembers(value, f.Type, where); err != nil {
				return err
			}
		}
	}
	return nil
}

func fieldByJSONName(t reflect.Type, name string) (reflect.StructField, bool) {
	for i := range t.NumField() {
		if f := t.Field(i); jsonName(f) == name {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

func jsonName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	if name == "" {
		return f.Name
	}
	return name
}

// describePath is Describe for the tools whose main argument is a path.
func describePath(verb string, args json.RawMessage, dflt string) (string, []string) {
	var a struct {
		Path string `json:"path"`
	}
	_ = json.Unmarshal(args, &a)
	if a.Path == "" {
		a.Path = dflt
	}
	if a.Path == "" {
		return verb, nil
	}
	return verb + " " + a.Path, []string{a.Path}
}
