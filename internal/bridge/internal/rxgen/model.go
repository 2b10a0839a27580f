// Command rxgen generates the Go and TypeScript types of the rx/ editor
// protocol from its one machine-readable description,
// docs/editor-protocol.json: internal/bridge/rxproto/types_gen.go and
// vscode-client/src/protocol.gen.ts (`go generate ./internal/bridge/rxproto` runs
// it). Its tests check that both files are current, that the
// extension-protocol types the description names match extproto, and
// that the Neovim client reads and writes only described field names.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
)

// Paths relative to the module root.
const (
	descPath = "docs/editor-protocol.json"
	goPath   = "internal/bridge/rxproto/types_gen.go"
	tsPath   = "vscode-client/src/protocol.gen.ts"
)

// Model is the description.
type Model struct {
	Comment      string        `json:"$comment"`
	Version      int           `json:"version"`
	Methods      []Method      `json:"methods"`
	Commands     []Command     `json:"commands"`
	Structures   []Structure   `json:"structures"`
	Enumerations []Enumeration `json:"enumerations"`

	structs map[string]*Structure
	enums   map[string]*Enumeration
}

// Method is one rx/ request or notification.
type Method struct {
	Method    string `json:"method"`
	Kind      string `json:"kind"`      // request, notification
	Direction string `json:"direction"` // clientToServer, serverToClient
	Params    string `json:"params"`
	Result    string `json:"result,omitempty"`
	Doc       string `json:"doc"`
}

// Command is one workspace/executeCommand command.
type Command struct {
	Command   string   `json:"command"`
	Arguments []string `json:"arguments"`
	Result    string   `json:"result"`
	Doc       string   `json:"doc"`
}

// Structure is a JSON object type.
type Structure struct {
	Name       string     `json:"name"`
	Doc        string     `json:"doc"`
	Extends    string     `json:"extends,omitempty"`
	External   string     `json:"external,omitempty"` // Go package that owns it (extproto)
	Properties []Property `json:"properties"`
}

// Property is one member of a structure.
type Property struct {
	Name     string `json:"name"`
	Type     string `json:"type"`
	Optional bool   `json:"optional,omitempty"`
	Doc      string `json:"doc,omitempty"`

	typ *Type
}

// Enumeration is a closed set of string values.
type Enumeration struct {
	Name   string   `json:"name"`
	Doc    string   `json:"doc"`
	Values []string `json:"values"`
}

// Type is a parsed type expression.
type Type struct {
	Kind  string // base, literal, ref, array, map, union
	Name  string // base or ref name, literal value
	Elem  *Type  // array, map
	Alts  []*Type
	Null  bool // a union with null
	Array bool
}

var baseTypes = []string{"string", "integer", "number", "boolean", "json"}

// load reads and checks the description.
func load(data []byte) (*Model, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var m Model
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("%s: %w", descPath, err)
	}
	m.structs = map[string]*Structure{}
	m.enums = map[string]*Enumeration{}
	for i := range m.Structures {
		s := &m.Structures[i]
		if m.structs[s.Name] != nil || slices.Contains(baseTypes, s.Name) {
			return nil, fmt.Errorf("%s: structure %s is defined twice", descPath, s.Name)
		}
		m.structs[s.Name] = s
	}
	for i := range m.Enumerations {
		e := &m.Enumerations[i]
		if m.structs[e.Name] != nil || m.enums[e.Name] != nil {
			return nil, fmt.Errorf("%s: enumeration %s is defined twice", descPath, e.Name)
		}
		m.enums[e.Name] = e
	}
	for i := range m.Structures {
		s := &m.Structures[i]
		if s.Extends != "" && m.structs[s.Extends] == nil {
			return nil, fmt.Errorf("%s: %s extends unknown %s", descPath, s.Name, s.Extends)
		}
		seen := map[string]bool{}
		for j := range s.Properties {
			p := &s.Properties[j]
			if seen[p.Name] {
				return nil, fmt.Errorf("%s: %s.%s is defined twice", descPath, s.Name, p.Name)
			}
			seen[p.Name] = true
			t, err := m.parse(p.Type)
			if err != nil {
				return nil, fmt.Errorf("%s: %s.%s: %w", descPath, s.Name, p.Name, err)
			}
			p.typ = t
		}
	}
	for _, me := range m.Methods {
		if !strings.HasPrefix(me.Method, "rx/") {
			return nil, fmt.Errorf("%s: method %s is not in the rx/ namespace", descPath, me.Method)
		}
		names := []string{me.Params}
		switch me.Kind {
		case "request":
			names = append(names, me.Result)
		case "notification":
			if me.Result != "" {
				return nil, fmt.Errorf("%s: notification %s has a result", descPath, me.Method)
			}
		default:
			return nil, fmt.Errorf("%s: %s: kind %q is neither request nor notification", descPath, me.Method, me.Kind)
		}
		if me.Direction != "clientToServer" && me.Direction != "serverToClient" {
			return nil, fmt.Errorf("%s: %s: direction %q", descPath, me.Method, me.Direction)
		}
		for _, n := range names {
			if m.structs[n] == nil {
				return nil, fmt.Errorf("%s: %s names unknown structure %q", descPath, me.Method, n)
			}
		}
	}
	for _, c := range m.Commands {
		if m.structs[c.Result] == nil {
			return nil, fmt.Errorf("%s: command %s names unknown structure %q", descPath, c.Command, c.Result)
		}
		for _, a := range c.Arguments {
			if _, err := m.parse(a); err != nil {
				return nil, fmt.Errorf("%s: command %s: %w", descPath, c.Command, err)
			}
		}
	}
	return &m, nil
}

// parse reads a type expression.
func (m *Model) parse(s string) (*Type, error) {
	s = strings.TrimSpace(s)
	if parts := splitTop(s); len(parts) > 1 {
		u := &Type{Kind: "union"}
		for _, p := range parts {
			if p == "null" {
				u.Null = true
				continue
			}
			t, err := m.parse(p)
			if err != nil {
				return nil, err
			}
			u.Alts = append(u.Alts, t)
		}
		if u.Null && len(u.Alts) == 1 {
			t := *u.Alts[0]
			t.Null = true
			return &t, nil
		}
		return u, nil
	}
	switch {
	case strings.HasSuffix(s, "[]"):
		e, err := m.parse(s[:len(s)-2])
		if err != nil {
			return nil, err
		}
		return &Type{Kind: "array", Elem: e}, nil
	case strings.HasPrefix(s, "map<string,") && strings.HasSuffix(s, ">"):
		e, err := m.parse(s[len("map<string,") : len(s)-1])
		if err != nil {
			return nil, err
		}
		return &Type{Kind: "map", Elem: e}, nil
	case len(s) >= 2 && s[0] == '\'' && s[len(s)-1] == '\'':
		return &Type{Kind: "literal", Name: s[1 : len(s)-1]}, nil
	case slices.Contains(baseTypes, s):
		return &Type{Kind: "base", Name: s}, nil
	case m.structs[s] != nil || m.enums[s] != nil:
		return &Type{Kind: "ref", Name: s}, nil
	}
	return nil, fmt.Errorf("unknown type %q", s)
}

// splitTop splits on | outside <>.
func splitTop(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, c := range s {
		switch c {
		case '<':
			depth++
		case '>':
			depth--
		case '|':
			if depth == 0 {
				out = append(out, strings.TrimSpace(s[start:i]))
				start = i + 1
			}
		}
	}
	return append(out, strings.TrimSpace(s[start:]))
}

// literals reports whether t is a literal or a union of literals only.
func (t *Type) literals() bool {
	if t.Kind == "literal" {
		return true
	}
	if t.Kind != "union" {
		return false
	}
	for _, a := range t.Alts {
		if a.Kind != "literal" {
			return false
		}
	}
	return true
}

// properties are s's members, those it extends first.
func (m *Model) properties(s *Structure) []Property {
	var out []Property
	if s.Extends != "" {
		out = m.properties(m.structs[s.Extends])
	}
	return append(out, s.Properties...)
}

// property finds a member of s (or of what it extends).
func (m *Model) property(s *Structure, name string) (Property, bool) {
	for _, p := range m.properties(s) {
		if p.Name == name {
			return p, true
		}
	}
	return Property{}, false
}

func (m *Model) method(name string) (Method, bool) {
	i := slices.IndexFunc(m.Methods, func(me Method) bool { return me.Method == name })
	if i < 0 {
		return Method{}, false
	}
	return m.Methods[i], true
}

// moduleRoot walks up from the working directory to go.mod.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(dir + "/go.mod"); err == nil {
			return dir, nil
		}
		parent := dir[:max(strings.LastIndexByte(dir, '/'), 0)]
		if parent == "" || parent == dir {
			return "", fmt.Errorf("no go.mod above %s", dir)
		}
		dir = parent
	}
}
