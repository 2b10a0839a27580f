package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The import table of docs/ARCHITECTURE.md ("Layout and import rules") is
// generated from layerRules, testLayers and lspLayers, so the document
// cannot drift from what TestImportRules enforces.
// RX_UPDATE_DOCS=1 go test ./cmd/rx-bridge -run TestArchitectureImportTable
// rewrites it.
const (
	layerTableBegin = "<!-- import table: generated from cmd/rx-bridge/layers_test.go by TestArchitectureImportTable (RX_UPDATE_DOCS=1 rewrites it) -->\n"
	layerTableEnd   = "<!-- end of import table -->\n"
)

// layerTable renders the rules as a Markdown table, lowest layers first.
func layerTable() string {
	short := func(l string) string { return "`" + strings.TrimPrefix(l, "internal/") + "`" }
	layers := make([]string, 0, len(layerRules))
	for l := range layerRules {
		layers = append(layers, l)
	}
	// Fewest allowed imports first, then by name: the ground floor leads.
	slices.SortFunc(layers, func(a, b string) int {
		if d := len(layerRules[a]) - len(layerRules[b]); d != 0 {
			return d
		}
		return strings.Compare(a, b)
	})
	var b strings.Builder
	b.WriteString("| package | may import (besides itself and its subpackages) |\n| --- | --- |\n")
	for _, l := range layers {
		deps := slices.Sorted(slices.Values(layerRules[l]))
		for i, d := range deps {
			deps[i] = short(d)
		}
		list := strings.Join(deps, ", ")
		if list == "" {
			list = "nothing of this module"
		}
		if slices.Contains(lspLayers, l) {
			list += "; go.lsp.dev/*"
		}
		b.WriteString("| " + short(l) + " | " + list + " |\n")
	}
	tests := make([]string, 0, len(testLayers))
	for _, l := range testLayers {
		tests = append(tests, short(l))
	}
	b.WriteString("\nAny package's tests may also import " + strings.Join(tests, ", ") +
		". go.lsp.dev/* appears only in " + strings.Join(func() []string {
		var s []string
		for _, l := range lspLayers {
			s = append(s, short(l))
		}
		return s
	}(), ", ") + ", in code and tests alike.\n")
	return b.String()
}

func TestArchitectureImportTable(t *testing.T) {
	t.Parallel()
	path := filepath.Join("..", "..", "docs", "ARCHITECTURE.md")
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	i := strings.Index(text, layerTableBegin)
	j := strings.Index(text, layerTableEnd)
	if i < 0 || j < i {
		t.Fatalf("%s has no generated import table (markers %q … %q)", path, layerTableBegin, layerTableEnd)
	}
	want := text[:i+len(layerTableBegin)] + layerTable() + text[j:]
	if want == text {
		return
	}
	if os.Getenv("RX_UPDATE_DOCS") == "1" {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s's import table differs from layerRules; run RX_UPDATE_DOCS=1 go test ./cmd/rx-bridge -run TestArchitectureImportTable", path)
}
