package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// tree writes files (slash paths -> content) under a new temp dir and
// returns its workspace.
func tree(t *testing.T, files map[string]string) *Workspace {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := NewWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

// memDocs is an editor with some open documents that applies edits to
// them (or to disk for documents it does not hold) and records them.
type memDocs struct {
	mu    sync.Mutex
	open  map[string]string
	edits []FileEdit
	fail  error
}

func (m *memDocs) Document(_ context.Context, path string) (string, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	text, ok := m.open[path]
	return text, ok, nil
}

func (m *memDocs) ApplyEdit(_ context.Context, e FileEdit) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.fail != nil {
		return m.fail
	}
	m.edits = append(m.edits, e)
	text, ok := m.open[e.Path]
	if !ok {
		return WriteToDisk(e)
	}
	if e.Whole {
		m.open[e.Path] = e.Content
		return nil
	}
	next, err := ApplyText(text, e.Edits)
	if err != nil {
		return err
	}
	m.open[e.Path] = next
	return nil
}

func run(t *testing.T, env *Env, name string, args any) (string, error) {
	t.Helper()
	tool, ok := Builtins().Lookup(name)
	if !ok {
		t.Fatalf("no tool %s", name)
	}
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return tool.Run(ctx, env, raw)
}
