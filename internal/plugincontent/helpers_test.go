package plugincontent

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// writeTree writes files (slash-separated paths relative to base) and
// returns base.
func writeTree(t testing.TB, base string, files map[string]string) string {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(base, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return base
}

func mustLoad(t testing.TB, roots ...Root) *Set {
	t.Helper()
	set, _ := Load(roots, Options{})
	return set
}

func names[T any](xs []T, name func(T) string) []string {
	out := []string{}
	for _, x := range xs {
		out = append(out, name(x))
	}
	return out
}

func cmdNames(cs []Command) []string { return names(cs, func(c Command) string { return c.Name }) }

func equal(t testing.TB, what string, got, want any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s:\n got  %#v\n want %#v", what, got, want)
	}
}

// tool returns the named tool of set.Tools(env).
func tool(t testing.TB, set *Set, env Env, name string) Tool {
	t.Helper()
	for _, tl := range set.Tools(env) {
		if tl.Schema.Name == name {
			return tl
		}
	}
	t.Fatalf("no tool %s", name)
	return Tool{}
}

func call(t testing.TB, tl Tool, args any) (string, error) {
	t.Helper()
	b, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	return tl.Call(context.Background(), b)
}

// recordingRunner is a SubagentRunner that records each request and
// answers with the task.
type recordingRunner struct{ got []SubagentRequest }

func (r *recordingRunner) RunSubagent(_ context.Context, req SubagentRequest) (string, error) {
	r.got = append(r.got, req)
	return "answer to " + req.Task, nil
}
