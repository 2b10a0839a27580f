package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The Neovim client is Lua: it cannot use generated types, so this test
// checks the field names it reads and writes against the description.
//
// What is checked, per file of nvim/lua/rx_bridge:
//   - every "rx/..." method name it mentions is a described method;
//   - a handler `M["rx/m"] = function(err, params, ...)` reads params as
//     m's params type, and the tables it returns are m's result type;
//   - `local err, res = async.request(c, "rx/m", {...})` (and
//     compat.request, compat.notify) writes m's params type and reads res
//     as m's result type; `local res = compat.request_sync(c, "rx/m", ...)`
//     reads res.result as m's result type;
//   - LuaLS annotations bind the rest: `---@param name rx.T` before a
//     function, `---@type rx.T` before `local name = ...` (a table literal
//     there is checked as a T), `---@return rx.T` before a function (its
//     returned table literals are checked);
//   - `for _, v in ipairs(x.path)` binds v to the element type of x.path.
//
// A bound variable's scope is the indented block it is declared in. Every
// `name.a.b` of a bound variable must be a member of its type (of the
// member's type, and so on, while those are structures); every key of a
// checked table literal must be a member. Each rx/ method the client
// handles or calls must have at least one checked use.

type luaBinding struct {
	name   string
	typ    *Type
	prefix string // "result" for compat.request_sync's wrapper
	from   int    // first line of the scope (0-based)
	indent int    // the scope is the following lines indented more than this (or, for locals, at least this)
	local  bool
}

type luaProblem struct{ file, msg string }

var (
	reHandler   = regexp.MustCompile(`^M\["(rx/[^"]+)"\]\s*=\s*function\s*\(\s*\w+\s*,\s*(\w+)`)
	reRequest   = regexp.MustCompile(`(?:async\.request|compat\.request|compat\.notify|\.request|\.notify)\(\s*[\w.]+\s*,\s*"(rx/[^"]+)"\s*,\s*(\{)?`)
	reResult    = regexp.MustCompile(`^\s*local\s+\w+\s*,\s*(\w+)\s*=\s*async\.request\(\s*[\w.]+\s*,\s*"(rx/[^"]+)"`)
	reSync      = regexp.MustCompile(`^\s*local\s+(\w+)\s*=\s*[\w.()"]*request_sync\(\s*[\w.]+\s*,\s*"(rx/[^"]+)"`)
	reAnnParam  = regexp.MustCompile(`^\s*---@param\s+(\w+)\s+rx\.([\w\[\]]+)`)
	reAnnType   = regexp.MustCompile(`^\s*---@type\s+rx\.([\w\[\]]+)`)
	reAnnReturn = regexp.MustCompile(`^\s*---@return\s+rx\.([\w\[\]]+)`)
	reLocal     = regexp.MustCompile(`^\s*local\s+(\w+)\s*=\s*(\{)?`)
	reFunction  = regexp.MustCompile(`\bfunction\b`)
	reFor       = regexp.MustCompile(`^\s*for\s+\w+\s*,\s*(\w+)\s+in\s+ipairs\(\s*(?:type\([\w.]+\)\s*==\s*"table"\s+and\s+)?([\w.]+)`)
	reLocalExpr = regexp.MustCompile(`^\s*local\s+(\w+)\s*=\s*(?:type\([\w.]+\)\s*==\s*"table"\s+and\s+)?([A-Za-z_][\w]*\.[\w.]+)(?:\s+or\b.*)?\s*$`)
	reMethodStr = regexp.MustCompile(`"(rx/[A-Za-z/]+)"`)
)

func indentOf(line string) int { return len(line) - len(strings.TrimLeft(line, " \t")) }

// inScope reports whether line j is in b's scope.
func (b luaBinding) inScope(lines []string, j int) bool {
	if j < b.from {
		return false
	}
	for k := b.from; k <= j; k++ {
		if strings.TrimSpace(lines[k]) == "" {
			continue
		}
		in := indentOf(lines[k])
		if in < b.indent || (!b.local && in == b.indent) {
			return false
		}
	}
	return true
}

// checkLua checks one Lua source; it returns the problems and, per rx/
// method, how many uses it checked.
func (m *Model) checkLua(file, src string, uses map[string]int) []luaProblem {
	lines := strings.Split(src, "\n")
	var probs []luaProblem
	bad := func(i int, format string, args ...any) {
		probs = append(probs, luaProblem{file, fmt.Sprintf("%s:%d: %s", file, i+1, fmt.Sprintf(format, args...))})
	}
	ref := func(name string) *Type {
		t, err := m.parse(name)
		if err != nil {
			return nil
		}
		return t
	}
	var binds []luaBinding
	var returns []luaBinding // functions whose returned tables are checked
	count := func(method string) { uses[method]++ }
	var pendingParams []luaBinding
	var pendingType, pendingReturn *Type

	for i, line := range lines {
		for _, mm := range reMethodStr.FindAllStringSubmatch(line, -1) {
			if _, ok := m.method(mm[1]); !ok {
				bad(i, "%q is not a method of %s", mm[1], descPath)
			}
		}
		if mm := reAnnParam.FindStringSubmatch(line); mm != nil {
			t := ref(mm[2])
			if t == nil {
				bad(i, "rx.%s is not a type of %s", mm[2], descPath)
				continue
			}
			pendingParams = append(pendingParams, luaBinding{name: mm[1], typ: t})
			continue
		}
		if mm := reAnnType.FindStringSubmatch(line); mm != nil {
			if pendingType = ref(mm[1]); pendingType == nil {
				bad(i, "rx.%s is not a type of %s", mm[1], descPath)
			}
			continue
		}
		if mm := reAnnReturn.FindStringSubmatch(line); mm != nil {
			if pendingReturn = ref(mm[1]); pendingReturn == nil {
				bad(i, "rx.%s is not a type of %s", mm[1], descPath)
			}
			continue
		}
		in := indentOf(line)
		if reFunction.MatchString(line) && (len(pendingParams) > 0 || pendingReturn != nil) {
			for _, b := range pendingParams {
				b.from, b.indent = i+1, in
				binds = append(binds, b)
			}
			if pendingReturn != nil {
				returns = append(returns, luaBinding{typ: pendingReturn, from: i + 1, indent: in})
			}
			pendingParams, pendingReturn = nil, nil
		}
		if mm := reHandler.FindStringSubmatch(line); mm != nil {
			if me, ok := m.method(mm[1]); ok {
				binds = append(binds, luaBinding{name: mm[2], typ: ref(me.Params), from: i + 1, indent: in})
				if me.Kind == "request" {
					returns = append(returns, luaBinding{typ: ref(me.Result), from: i + 1, indent: in})
				}
			}
		}
		if pendingType != nil {
			if mm := reLocal.FindStringSubmatch(line); mm != nil {
				binds = append(binds, luaBinding{name: mm[1], typ: pendingType, from: i + 1, indent: in, local: true})
				if mm[2] != "" {
					m.checkTable(lines, i, strings.Index(line, "{"), pendingType, bad)
				}
			}
			pendingType = nil
		}
		if mm := reResult.FindStringSubmatch(line); mm != nil {
			if me, ok := m.method(mm[2]); ok && me.Kind == "request" {
				binds = append(binds, luaBinding{name: mm[1], typ: ref(me.Result), from: i + 1, indent: in, local: true})
			}
		}
		if mm := reSync.FindStringSubmatch(line); mm != nil {
			if me, ok := m.method(mm[2]); ok && me.Kind == "request" {
				binds = append(binds, luaBinding{name: mm[1], typ: ref(me.Result), prefix: "result", from: i + 1, indent: in, local: true})
			}
		}
		if loc := reRequest.FindStringSubmatchIndex(line); loc != nil {
			method := line[loc[2]:loc[3]]
			if me, ok := m.method(method); ok && loc[4] >= 0 {
				m.checkTable(lines, i, loc[4], ref(me.Params), bad)
				count(method)
			}
		}
		if mm := reLocalExpr.FindStringSubmatch(line); mm != nil && pendingType == nil {
			if t := m.resolve(lines, binds, i, mm[2]); t != nil {
				binds = append(binds, luaBinding{name: mm[1], typ: t, from: i + 1, indent: in, local: true})
			}
		}
		if mm := reFor.FindStringSubmatch(line); mm != nil {
			if t := m.resolve(lines, binds, i, mm[2]); t != nil && t.Kind == "array" {
				binds = append(binds, luaBinding{name: mm[1], typ: t.Elem, from: i + 1, indent: in})
			}
		}
		// Field reads of bound variables.
		for _, b := range binds {
			if !b.inScope(lines, i) {
				continue
			}
			re := regexp.MustCompile(`(^|[^\w.:])` + b.name + `((?:\.[A-Za-z_]\w*)+)`)
			for _, mm := range re.FindAllStringSubmatch(stripLuaString(line), -1) {
				path := strings.Split(strings.TrimPrefix(mm[2], "."), ".")
				if b.prefix != "" {
					if path[0] != b.prefix {
						continue
					}
					path = path[1:]
				}
				if err := m.walk(b.typ, path); err != nil {
					bad(i, "%s%s: %v", b.name, mm[2], err)
				}
				for _, me := range m.Methods {
					if b.typ.Kind == "ref" && (me.Params == b.typ.Name || me.Result == b.typ.Name) {
						count(me.Method)
					}
				}
			}
		}
		if strings.HasPrefix(strings.TrimSpace(line), "return {") {
			for _, r := range returns {
				if r.inScope(lines, i) {
					m.checkTable(lines, i, strings.Index(line, "{"), r.typ, bad)
				}
			}
		}
	}
	return probs
}

// stripLuaString blanks string literals and comments, so "a.b" in a
// message is not read as a field access.
func stripLuaString(line string) string {
	if i := strings.Index(line, "--"); i >= 0 {
		line = line[:i]
	}
	return regexp.MustCompile(`"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'`).ReplaceAllString(line, `""`)
}

// resolve gives the type of a dotted expression of a bound variable.
func (m *Model) resolve(lines []string, binds []luaBinding, i int, expr string) *Type {
	parts := strings.Split(expr, ".")
	for _, b := range slices.Backward(binds) {
		if b.name != parts[0] || !b.inScope(lines, i) {
			continue
		}
		path := parts[1:]
		if b.prefix != "" {
			if len(path) == 0 || path[0] != b.prefix {
				return nil
			}
			path = path[1:]
		}
		t := b.typ
		for _, seg := range path {
			p, ok, _, _ := m.member(t, seg)
			if !ok {
				return nil
			}
			t = p.typ
		}
		return t
	}
	return nil
}

// member finds a member of t: of the structure it names, or of any
// structure of a union. ok is false when t has structures and none has
// the member; known is false when t is not made of structures.
func (m *Model) member(t *Type, name string) (p Property, ok, known bool, what string) {
	if s := m.structOf(t); s != nil {
		p, ok = m.property(s, name)
		return p, ok, true, s.Name
	}
	if t == nil || t.Kind != "union" {
		return Property{}, false, false, ""
	}
	var names []string
	for _, a := range t.Alts {
		s := m.structOf(a)
		if s == nil {
			return Property{}, false, false, ""
		}
		names = append(names, s.Name)
		if q, found := m.property(s, name); found && !ok {
			p, ok = q, true
		}
	}
	return p, ok, true, strings.Join(names, " | ")
}

// structOf is the structure t names, if it names one.
func (m *Model) structOf(t *Type) *Structure {
	if t == nil || t.Kind != "ref" {
		return nil
	}
	return m.structs[t.Name]
}

// walk checks a member path on t, as far as t's types are structures.
func (m *Model) walk(t *Type, path []string) error {
	for _, seg := range path {
		p, ok, known, what := m.member(t, seg)
		if !known {
			return nil
		}
		if !ok {
			return fmt.Errorf("%s has no member %q", what, seg)
		}
		t = p.typ
	}
	return nil
}

var reKey = regexp.MustCompile(`^\s*([A-Za-z_]\w*)\s*=[^=]`)

// checkTable checks the keys of the table literal opening at lines[i][col]
// (and its nested literals) against t.
func (m *Model) checkTable(lines []string, i, col int, t *Type, bad func(int, string, ...any)) {
	var stack []*Type // the type of each open literal; nil when unknown
	pending := t      // the type of the next literal to open
	for li := i; li < len(lines); li++ {
		line := stripLuaString(lines[li])
		start := 0
		if li == i {
			// col is in the raw line; find the same brace in the stripped one.
			start = strings.Count(lines[li][:col], "{") // braces before it
			for k, n := 0, 0; k < len(line); k++ {
				if line[k] == '{' {
					if n == start {
						start = k
						break
					}
					n++
				}
			}
		}
		for c := start; c < len(line); c++ {
			switch line[c] {
			case '{':
				stack = append(stack, pending)
				pending = nil
				// A key right after the brace.
				m.checkKey(line[c+1:], stack[len(stack)-1], li, &pending, bad)
			case '}':
				if len(stack) <= 1 {
					return
				}
				stack = stack[:len(stack)-1]
			case ',':
				if len(stack) > 0 {
					m.checkKey(line[c+1:], stack[len(stack)-1], li, &pending, bad)
				}
			}
		}
		if len(stack) > 0 && li+1 < len(lines) {
			// A key at the start of the next line.
			next := stripLuaString(lines[li+1])
			if !strings.HasPrefix(strings.TrimSpace(next), "}") {
				m.checkKey(next, stack[len(stack)-1], li+1, &pending, bad)
			}
		}
	}
}

// checkKey checks `key =` at the start of rest against the open literal's
// type, and sets the type a nested literal there has.
func (m *Model) checkKey(rest string, t *Type, li int, pending **Type, bad func(int, string, ...any)) {
	mm := reKey.FindStringSubmatch(rest)
	if mm == nil {
		return
	}
	if t != nil && t.Kind == "map" {
		*pending = t.Elem
		return
	}
	p, ok, known, what := m.member(t, mm[1])
	if !known {
		return
	}
	if !ok {
		bad(li, "%s has no member %q", what, mm[1])
		return
	}
	*pending = p.typ
	if p.typ.Kind == "array" {
		*pending = nil
	}
}

func luaSources(t *testing.T) map[string]string {
	t.Helper()
	dir := filepath.Join(root(t), "nvim/lua/rx_bridge")
	paths, err := filepath.Glob(filepath.Join(dir, "*.lua"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no Lua sources in %s: %v", dir, err)
	}
	out := map[string]string{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out["nvim/lua/rx_bridge/"+filepath.Base(p)] = string(b)
	}
	return out
}

// unchecked are rx/ methods the Neovim client handles without reading
// any member.
var unchecked = map[string]string{
	"rx/lm/chunk": "the handler ignores chunks: Neovim has no rx/lm/chat caller",
}

func TestLuaFieldNames(t *testing.T) {
	t.Parallel()
	m := model(t)
	uses := map[string]int{}
	mentioned := map[string]bool{}
	for file, src := range luaSources(t) {
		for _, p := range m.checkLua(file, src, uses) {
			t.Error(p.msg)
		}
		for _, mm := range reMethodStr.FindAllStringSubmatch(src, -1) {
			mentioned[mm[1]] = true
		}
	}
	for method := range mentioned {
		if uses[method] == 0 && unchecked[method] == "" {
			t.Errorf("no use of %s in the Neovim client is checked: annotate the variable holding it (---@param/---@type rx.<Type>)", method)
		}
	}
	t.Logf("checked uses per method: %v", uses)
}

// TestLuaCheckerCatches: names the description does not have are found in
// each kind of use.
func TestLuaCheckerCatches(t *testing.T) {
	t.Parallel()
	m := model(t)
	tests := []struct{ src, want string }{
		{"M[\"rx/actionsChanged\"] = function(_, params, ctx)\n  local g = params.generaton\nend\n", `ActionsChanged has no member "generaton"`},
		{"M[\"rx/ui/request\"] = function(_, params, ctx)\n  if params.kind then\n    return { canceled = true }\n  end\nend\n", `UIAnswer has no member "canceled"`},
		{"local function f(c)\n  local err, res = async.request(c, \"rx/session/new\", { modle = \"x\" })\n  return res.sessionID\nend\n", `SessionNewParams has no member "modle"`},
		{"local function f(c)\n  local err, res = async.request(c, \"rx/session/new\", {})\n  return res.sessionID\nend\n", `SessionRef has no member "sessionID"`},
		{"---@param params rx.UISurface\nlocal function show(id, params)\n  local x = params.payload\n  return params.surfaceID\nend\n", `UISurface has no member "surfaceID"`},
		{"---@type rx.StatusPayload\nlocal p = params.payload\nlocal l = p.lable\n", `StatusPayload has no member "lable"`},
		{"local function f(res)\n  local res = compat.request_sync(c, \"rx/plugins\", {}, 1)\n  for _, p in ipairs(res.result.plugins) do\n    print(p.nmae)\n  end\nend\n", `PluginInfo has no member "nmae"`},
		{"local function f(c)\n  compat.notify(c, \"rx/session/cancle\", {})\nend\n", `"rx/session/cancle" is not a method`},
		{"---@param params rx.SessionUpdate\nfunction M.on_update(id, params)\n  local u = params.update\n  local c = type(u.content) == \"table\" and u.content or {}\n  print(c.txt)\nend\n", `TextContent has no member "txt"`},
		{"---@param params rx.SessionUpdate\nfunction M.on_update(id, params)\n  local u = params.update\n  print(u.bye)\nend\n", `has no member "bye"`},
		{"---@param params rx.PermissionRequest\nfunction M.p(id, params)\n  for _, o in ipairs(type(params.options) == \"table\" and params.options or {}) do\n    print(o.optionID)\n  end\nend\n", `PermissionOption has no member "optionID"`},
		{"M[\"rx/session/requestPermission\"] = function(_, params, ctx)\n  return { outcome = { outcome = \"selected\", option = \"allow\" } }\nend\n", `PermissionOutcome has no member "option"`},
	}
	for _, tc := range tests {
		probs := m.checkLua("t.lua", tc.src, map[string]int{})
		var msgs []string
		for _, p := range probs {
			msgs = append(msgs, p.msg)
		}
		if !strings.Contains(strings.Join(msgs, "\n"), tc.want) {
			t.Errorf("%s\ngot %q, want %q", tc.src, msgs, tc.want)
		}
	}
	// And a correct use passes.
	ok := "M[\"rx/ui/request\"] = function(_, params, ctx)\n  if params.generation and params.fields then\n    return { cancelled = true, values = { value = true } }\n  end\nend\n"
	if probs := m.checkLua("t.lua", ok, map[string]int{}); len(probs) > 0 {
		t.Errorf("a correct handler: %v", probs)
	}
}
