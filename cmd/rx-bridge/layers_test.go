package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// The import rules of docs/ARCHITECTURE.md ("Layout and import rules"),
// checked against `go list`. Each package belongs to the layer with the
// longest matching path (extproto/wire is its own layer, not part of
// extproto); a package may import its own layer and the layers listed
// for it, nothing else of this module.
const module = "github.com/rx-bridge/rx-bridge"

// layerRules: layer → the other layers its non-test code may import.
var layerRules = map[string][]string{
	"extproto":               {},
	"internal/redact":        {},
	"internal/proctree":      {},
	"internal/fsbound":       {},
	"internal/locale":        {},
	"extproto/wire":          {"extproto"},
	"contentref":             {"extproto"},
	"internal/manifest":      {"extproto", "internal/locale"},
	"internal/slots":         {"extproto", "internal/manifest"},
	"internal/exthost":       {"extproto", "extproto/wire", "contentref", "internal/slots", "internal/manifest", "internal/redact", "internal/proctree"},
	"sdk":                    {"extproto", "extproto/wire", "contentref"},
	"internal/providers":     {"internal/exthost", "extproto", "internal/redact"},
	"internal/editorui":      {"extproto", "internal/locale"},
	"internal/plugincontent": {"internal/manifest", "extproto", "internal/redact", "internal/fsbound"},
	"internal/mcphost":       {"internal/manifest", "extproto", "internal/redact", "internal/proctree", "internal/locale"},
	"internal/hookrun":       {"internal/manifest", "extproto", "internal/redact", "internal/proctree", "internal/fsbound"},
	"internal/agent":         {"internal/providers", "internal/exthost", "internal/slots", "internal/plugincontent", "internal/mcphost", "internal/hookrun", "extproto", "internal/redact", "internal/proctree", "internal/fsbound", "internal/locale"},
	"internal/pluginrt":      {"internal/providers", "internal/exthost", "internal/manifest", "internal/plugincontent", "internal/mcphost", "internal/hookrun", "extproto", "internal/redact", "internal/proctree", "internal/fsbound", "internal/locale"},
	"internal/engine":        {"internal/pluginrt", "internal/agent", "internal/editorui", "internal/exthost", "internal/manifest", "internal/mcphost", "extproto", "internal/redact", "internal/locale"},
	"internal/bridge":        {"internal/engine", "internal/pluginrt", "internal/agent", "internal/providers", "internal/editorui", "internal/exthost", "internal/slots", "internal/manifest", "internal/plugincontent", "internal/mcphost", "internal/hookrun", "contentref", "extproto", "internal/redact", "internal/proctree", "internal/fsbound", "internal/locale"},
	"internal/acp":           {"internal/engine", "internal/pluginrt", "internal/agent", "internal/providers", "internal/editorui", "internal/exthost", "internal/slots", "internal/manifest", "internal/plugincontent", "internal/mcphost", "internal/hookrun", "contentref", "extproto", "internal/redact", "internal/proctree", "internal/fsbound", "internal/locale"},
	"internal/mcpserve":      {"internal/engine", "internal/pluginrt", "internal/agent", "internal/editorui", "internal/exthost", "internal/plugincontent", "extproto", "internal/redact", "internal/locale"},
	"cmd":                    {"internal/engine", "internal/bridge", "internal/acp", "internal/mcpserve", "internal/pluginrt", "internal/agent", "internal/providers", "internal/editorui", "internal/exthost", "internal/slots", "internal/manifest", "internal/plugincontent", "internal/mcphost", "internal/hookrun", "contentref", "extproto", "extproto/wire", "internal/redact", "internal/proctree", "internal/fsbound", "internal/locale"},
	"examples":               {"sdk", "extproto", "internal/manifest"},
	// internal/benchratio is a test helper (the benchmarks' floor loop);
	// it imports nothing of the module.
	"internal/benchratio": {},
	// internal/testenv is a test helper (scaled test deadlines); it
	// imports nothing of the module.
	"internal/testenv": {},
}

// testLayers may also be imported by any package's tests: the SDK and the
// examples build real sidecars, manifest writes real homes, lspclient
// plays the editor, benchratio measures benchmarks against their floor.
var testLayers = []string{"sdk", "examples", "internal/manifest", "internal/bridge/lspclient", "internal/benchratio", "internal/testenv"}

// lspLayers are the only layers that may import go.lsp.dev/*, in code and
// tests alike.
var lspLayers = []string{"internal/bridge"}

// knownExceptions are violations that are being removed; each names the
// issue item that removes it.
var knownExceptions = map[string]string{}

type listedPackage struct {
	ImportPath   string
	Imports      []string
	TestImports  []string
	XTestImports []string
}

// layerOf is the layer of an import path of this module ("" outside it).
func layerOf(path string) string {
	rel, ok := strings.CutPrefix(path, module+"/")
	if !ok {
		return ""
	}
	best := ""
	for l := range layerRules {
		if (rel == l || strings.HasPrefix(rel, l+"/")) && len(l) > len(best) {
			best = l
		}
	}
	if best == "" {
		return rel // an unknown top-level folder is its own layer, allowed nothing
	}
	return best
}

// violations lists every import that breaks the rules, as
// "<pkg> imports <path>" or "<pkg> (test) imports <path>".
func violations(pkgs []listedPackage) []string {
	var out []string
	for _, p := range pkgs {
		from := layerOf(p.ImportPath)
		rel := strings.TrimPrefix(p.ImportPath, module+"/")
		check := func(imp string, test bool) {
			short := strings.TrimPrefix(imp, module+"/")
			what := rel + " imports " + short
			if test {
				what = rel + " (test) imports " + short
			}
			if strings.HasPrefix(imp, "go.lsp.dev/") {
				if !slices.Contains(lspLayers, from) {
					out = append(out, what)
				}
				return
			}
			to := layerOf(imp)
			switch {
			case to == "", to == from, slices.Contains(layerRules[from], to):
			case test && (slices.Contains(testLayers, to) || slices.Contains(testLayers, short)):
			default:
				out = append(out, what)
			}
		}
		for _, imp := range p.Imports {
			check(imp, false)
		}
		for _, imp := range slices.Concat(p.TestImports, p.XTestImports) {
			if imp != p.ImportPath {
				check(imp, true)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func TestImportRules(t *testing.T) {
	t.Parallel()
	cmd := exec.Command("go", "list", "-json=ImportPath,Imports,TestImports,XTestImports", module+"/...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	var pkgs []listedPackage
	for dec := json.NewDecoder(bytes.NewReader(out)); ; {
		var p listedPackage
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("decoding go list: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) < 10 {
		t.Fatalf("go list found only %d packages", len(pkgs))
	}
	found := violations(pkgs)
	for _, v := range found {
		if issue, ok := knownExceptions[v]; ok {
			t.Logf("known exception (%s): %s", issue, v)
			continue
		}
		t.Errorf("import rule broken: %s (docs/ARCHITECTURE.md, Layout and import rules)", v)
	}
	for v, issue := range knownExceptions {
		if !slices.Contains(found, v) {
			t.Errorf("%q no longer happens (%s is done): remove it from knownExceptions", v, issue)
		}
	}
}

// TestImportRulesCatch feeds the checker imports that break each kind of
// rule, so TestImportRules cannot pass by checking nothing.
func TestImportRulesCatch(t *testing.T) {
	t.Parallel()
	m := func(p string) string { return module + "/" + p }
	tests := []struct {
		pkg  listedPackage
		want string // "" when allowed
	}{
		{listedPackage{ImportPath: m("extproto"), Imports: []string{m("internal/redact")}}, "extproto imports " + m("internal/redact")},
		{listedPackage{ImportPath: m("extproto"), Imports: []string{m("extproto/wire")}}, "extproto imports " + m("extproto/wire")},
		{listedPackage{ImportPath: m("sdk"), Imports: []string{m("internal/exthost")}}, "sdk imports " + m("internal/exthost")},
		{listedPackage{ImportPath: m("sdk/sdktest"), Imports: []string{m("internal/exthost")}}, "sdk/sdktest imports " + m("internal/exthost")},
		{listedPackage{ImportPath: m("internal/agent"), Imports: []string{"go.lsp.dev/protocol"}}, "internal/agent imports go.lsp.dev/protocol"},
		{listedPackage{ImportPath: m("internal/exthost"), TestImports: []string{"go.lsp.dev/jsonrpc2"}}, "internal/exthost (test) imports go.lsp.dev/jsonrpc2"},
		{listedPackage{ImportPath: m("internal/editorui"), Imports: []string{m("internal/exthost")}}, "internal/editorui imports " + m("internal/exthost")},
		{listedPackage{ImportPath: m("internal/exthost"), Imports: []string{m("internal/bridge")}}, "internal/exthost imports " + m("internal/bridge")},
		{listedPackage{ImportPath: m("internal/agent"), Imports: []string{m("cmd/rx-bridge")}}, "internal/agent imports " + m("cmd/rx-bridge")},
		{listedPackage{ImportPath: m("internal/exthost"), TestImports: []string{m("internal/agent")}}, "internal/exthost (test) imports " + m("internal/agent")},
		{listedPackage{ImportPath: m("newthing"), Imports: []string{m("extproto")}}, "newthing imports " + m("extproto")},
		{listedPackage{ImportPath: m("internal/proctree"), Imports: []string{m("extproto")}}, "internal/proctree imports " + m("extproto")},
		{listedPackage{ImportPath: m("internal/providers"), Imports: []string{m("internal/proctree")}}, "internal/providers imports " + m("internal/proctree")},
		// Allowed.
		{listedPackage{ImportPath: m("internal/bridge"), Imports: []string{"go.lsp.dev/protocol", m("internal/agent"), m("internal/bridge/internal/lspframe")}}, ""},
		{listedPackage{ImportPath: m("extproto/internal/gen"), Imports: []string{m("extproto")}}, ""},
		{listedPackage{ImportPath: m("internal/exthost"), TestImports: []string{m("examples/examplestest"), m("sdk")}}, ""},
		{listedPackage{ImportPath: m("internal/redact"), Imports: []string{"regexp"}}, ""},
		{listedPackage{ImportPath: m("internal/agent/tools"), Imports: []string{m("internal/proctree")}}, ""},
	}
	for _, tc := range tests {
		got := violations([]listedPackage{tc.pkg})
		var want []string
		if tc.want != "" {
			want = []string{strings.ReplaceAll(tc.want, module+"/", "")}
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: got %q, want %q", tc.pkg.ImportPath, got, want)
		}
	}
}

// publicAPI are the only packages outside internal/ a module user may
// import (docs/ARCHITECTURE.md): the SDK, the wire contract and the
// content store. cmd/ and examples/ are programs and plugins, not API.
var publicAPI = []string{"sdk", "extproto", "contentref"}

// nonPublic lists the packages that sit outside internal/, cmd/ and
// examples/ without being public API.
func nonPublic(paths []string) []string {
	var out []string
	for _, p := range paths {
		rel, ok := strings.CutPrefix(p, module+"/")
		if !ok {
			continue
		}
		top, _, _ := strings.Cut(rel, "/")
		if top == "internal" || top == "cmd" || top == "examples" || slices.Contains(publicAPI, top) {
			continue
		}
		out = append(out, rel)
	}
	return out
}

func TestPublicAPIOnlyOutsideInternal(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	paths := strings.Fields(string(out))
	if len(paths) < 10 {
		t.Fatalf("go list found only %d packages", len(paths))
	}
	for _, p := range nonPublic(paths) {
		t.Errorf("%s is outside internal/ but not public API (only %v are): move it under internal/", p, publicAPI)
	}
	// The check catches a package left outside.
	if got := nonPublic([]string{module + "/agent", module + "/sdk/sdktest", module + "/internal/agent", module + "/cmd/rx-bridge"}); fmt.Sprint(got) != "[agent]" {
		t.Errorf("nonPublic caught %v, want [agent]", got)
	}
}
