package extproto

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"
)

// referenceSchemaPath is where the canonical schema lives relative to any
// ancestor of this package: ../shared/protocol/... beside the repo root.
var referenceSchemaPath = filepath.Join("shared", "protocol", "reasonix.extension.v1.schema.json")

func TestSchemaFileMatchesGenerator(t *testing.T) {
	t.Parallel()
	got, err := GenerateSchema()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, schemaJSON) {
		t.Fatalf("schema.json is stale: run `go generate ./extproto` (first difference: %s)", firstDiff(got, schemaJSON))
	}
}

func TestSchemaHashIsCanonical(t *testing.T) {
	t.Parallel()
	if got := SchemaSHA256(); got != CanonicalSchemaSHA256 {
		t.Fatalf("SchemaSHA256() = %s, want the canonical %s", got, CanonicalSchemaSHA256)
	}
}

func TestSchemaEqualsReference(t *testing.T) {
	t.Parallel()
	path := findReferenceSchema(t)
	ref, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var want, got any
	if err := json.Unmarshal(ref, &want); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if err := json.Unmarshal(SchemaJSON(), &got); err != nil {
		t.Fatal(err)
	}
	if diffs := jsonDiff("", got, want); len(diffs) > 0 {
		for _, d := range diffs {
			t.Error(d)
		}
		t.Fatalf("our schema differs from %s in %d places", path, len(diffs))
	}
}

// findReferenceSchema walks up from the package directory looking for the
// canonical schema and skips the test when no ancestor has it.
func findReferenceSchema(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		p := filepath.Join(dir, referenceSchemaPath)
		if _, err := os.Stat(p); err == nil {
			return p
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Skipf("no %s above the package directory", referenceSchemaPath)
		}
		dir = parent
	}
}

// jsonDiff lists every place where two decoded JSON trees differ, by JSON
// pointer.
func jsonDiff(ptr string, got, want any) []string {
	if reflect.TypeOf(got) != reflect.TypeOf(want) {
		return []string{fmt.Sprintf("%s: got %s, want %s", orRoot(ptr), brief(got), brief(want))}
	}
	var out []string
	switch w := want.(type) {
	case map[string]any:
		g := got.(map[string]any)
		keys := map[string]bool{}
		for k := range g {
			keys[k] = true
		}
		for k := range w {
			keys[k] = true
		}
		sorted := make([]string, 0, len(keys))
		for k := range keys {
			sorted = append(sorted, k)
		}
		sort.Strings(sorted)
		for _, k := range sorted {
			p := ptr + "/" + escapePointer(k)
			gv, gok := g[k]
			wv, wok := w[k]
			switch {
			case !gok:
				out = append(out, fmt.Sprintf("%s: missing, want %s", p, brief(wv)))
			case !wok:
				out = append(out, fmt.Sprintf("%s: unexpected %s", p, brief(gv)))
			default:
				out = append(out, jsonDiff(p, gv, wv)...)
			}
		}
	case []any:
		g := got.([]any)
		if len(g) != len(w) {
			return []string{fmt.Sprintf("%s: got %s, want %s", orRoot(ptr), brief(g), brief(w))}
		}
		for i := range w {
			out = append(out, jsonDiff(fmt.Sprintf("%s/%d", ptr, i), g[i], w[i])...)
		}
	default:
		if got != want {
			out = append(out, fmt.Sprintf("%s: got %s, want %s", orRoot(ptr), brief(got), brief(want)))
		}
	}
	return out
}

func orRoot(ptr string) string {
	if ptr == "" {
		return "(document)"
	}
	return ptr
}

func brief(v any) string {
	b, _ := json.Marshal(v)
	return clip(string(b))
}

func firstDiff(a, b []byte) string {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return fmt.Sprintf("byte %d", i)
		}
	}
	return fmt.Sprintf("lengths %d and %d", len(a), len(b))
}

func TestJSONDiffReportsPaths(t *testing.T) {
	t.Parallel()
	var a, b any
	_ = json.Unmarshal([]byte(`{"$defs":{"X":{"required":["a","b"],"type":"object"}},"m":1}`), &a)
	_ = json.Unmarshal([]byte(`{"$defs":{"X":{"required":["a"],"type":"string"}},"n":1}`), &b)
	got := jsonDiff("", a, b)
	want := []string{
		`/$defs/X/required: got ["a","b"], want ["a"]`,
		`/$defs/X/type: got "object", want "string"`,
		`/m: unexpected 1`,
		`/n: missing, want 1`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("jsonDiff = %q, want %q", got, want)
	}
}
