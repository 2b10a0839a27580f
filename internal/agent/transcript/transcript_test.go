package transcript

import (
	"encoding/json"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
)

type rec struct {
	N int    `json:"n"`
	S string `json:"s,omitempty"`
}

func decode(t *testing.T, raws []json.RawMessage) []int {
	t.Helper()
	var ns []int
	for _, raw := range raws {
		var r rec
		if err := json.Unmarshal(raw, &r); err != nil {
			t.Fatal(err)
		}
		ns = append(ns, r.N)
	}
	return ns
}

func TestAppendRotateRead(t *testing.T) {
	t.Parallel()
	dir := t.TempDir() + "/sessions"
	l, err := Create(dir, "s1")
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 3; i++ {
		if err := l.Append(rec{N: i}); err != nil {
			t.Fatal(err)
		}
	}
	if l.Size() != int64(3*len(`{"n":1}`+"\n")) {
		t.Errorf("size %d", l.Size())
	}
	archived, err := l.Rotate()
	if err != nil || !strings.HasSuffix(archived, "s1.1.jsonl") {
		t.Fatalf("rotate: %s, %v", archived, err)
	}
	if l.Size() != 0 {
		t.Errorf("size after rotate %d", l.Size())
	}
	_ = l.Append(rec{N: 4})
	if _, err := l.Rotate(); err != nil {
		t.Fatal(err)
	}
	_ = l.Append(rec{N: 5})
	if err := l.Sync(); err != nil {
		t.Fatal(err)
	}
	if _, err := Create(dir, "s1"); err == nil {
		t.Error("second Create of a locked session succeeded")
	}
	if _, _, _, err := Open(dir, "s1"); !errors.Is(err, ErrLocked) {
		t.Errorf("Open of a session another log holds: %v", err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if err := l.Append(rec{}); !errors.Is(err, ErrClosed) {
		t.Errorf("append after close: %v", err)
	}
	recs, torn, err := Read(dir, "s1")
	if err != nil || torn != nil {
		t.Fatal(err, torn)
	}
	if got := decode(t, recs); len(got) != 5 || got[0] != 1 || got[4] != 5 {
		t.Fatalf("records %v", got)
	}
	ids, err := List(dir)
	if err != nil || len(ids) != 1 || ids[0] != "s1" {
		t.Fatalf("List = %v, %v", ids, err)
	}
	if _, err := Create(dir, "s1"); err == nil {
		t.Error("Create of an existing session succeeded")
	}
	if err := Remove(dir, "s1"); err != nil {
		t.Fatal(err)
	}
	if ids, _ := List(dir); len(ids) != 0 {
		t.Errorf("after Remove: %v", ids)
	}
}

// A reader has the live file open while the log rotates (a sidecar told
// the session's path, say). Unix renames it anyway; Windows refuses while
// the reader holds it, and the log must go on appending to the live file
// rather than lose records or write into an archived segment.
func TestRotateWhileRead(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	l, err := Create(dir, "s")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if err := l.Append(rec{N: 1}); err != nil {
		t.Fatal(err)
	}
	r, err := os.Open(l.Path())
	if err != nil {
		t.Fatal(err)
	}
	archived, rerr := l.Rotate()
	if err := l.Append(rec{N: 2}); err != nil {
		t.Fatalf("append after rotate (%q, %v): %v", archived, rerr, err)
	}
	r.Close()
	if rerr == nil {
		if _, err := os.Stat(archived); err != nil {
			t.Fatalf("rotated to %s: %v", archived, err)
		}
	} else if archived != "" {
		t.Fatalf("failed rotation (%v) names an archive %q", rerr, archived)
	}
	if _, err := l.Rotate(); err != nil {
		t.Fatalf("rotate with no reader: %v", err)
	}
	if err := l.Append(rec{N: 3}); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	recs, torn, err := Read(dir, "s")
	if err != nil || torn != nil {
		t.Fatal(err, torn)
	}
	if got := decode(t, recs); !slices.Equal(got, []int{1, 2, 3}) {
		t.Fatalf("records %v, want [1 2 3] (rotation while read: %v)", got, rerr)
	}
}

func TestTornLastLine(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	l, err := Create(dir, "s")
	if err != nil {
		t.Fatal(err)
	}
	_ = l.Append(rec{N: 1})
	_ = l.Append(rec{N: 2})
	_ = l.Close()
	f, _ := os.OpenFile(LivePath(dir, "s"), os.O_APPEND|os.O_WRONLY, 0)
	_, _ = f.WriteString(`{"n":3,"s":"half wri`)
	f.Close()

	recs, torn, err := Read(dir, "s")
	if err != nil || torn == nil || torn.Bytes != len(`{"n":3,"s":"half wri`) || torn.Offset != int64(2*len(`{"n":1}`+"\n")) {
		t.Fatalf("Read: %v, torn %+v", err, torn)
	}
	if got := decode(t, recs); len(got) != 2 {
		t.Fatalf("records %v", got)
	}
	if !strings.Contains(torn.String(), "incomplete record") {
		t.Errorf("torn message %q", torn.String())
	}
	l, recs, torn, err = Open(dir, "s")
	if err != nil || torn == nil || len(recs) != 2 {
		t.Fatalf("Open: %v %v %d", err, torn, len(recs))
	}
	_ = l.Append(rec{N: 3})
	_ = l.Close()
	recs, torn, err = Read(dir, "s")
	if err != nil || torn != nil {
		t.Fatalf("after append: %v %v", err, torn)
	}
	if got := decode(t, recs); len(got) != 3 || got[2] != 3 {
		t.Fatalf("records %v", got)
	}
}

func TestCorruptionIsAnError(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(LivePath(dir, "s"), []byte("{\"n\":1}\nnot json\n{\"n\":2}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Read(dir, "s"); err == nil || !strings.Contains(err.Error(), "s.jsonl:2: not a JSON record") {
		t.Fatalf("err = %v", err)
	}
}

func TestCrashBetweenRenameAndCreate(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(segmentPath(dir, "s", 1), []byte("{\"n\":1}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	recs, torn, err := Read(dir, "s")
	if err != nil || torn != nil || len(recs) != 1 {
		t.Fatalf("Read: %v %v %d", err, torn, len(recs))
	}
	l, recs, _, err := Open(dir, "s")
	if err != nil || len(recs) != 1 {
		t.Fatalf("Open: %v", err)
	}
	_ = l.Append(rec{N: 2})
	_ = l.Close()
	recs, _, _ = Read(dir, "s")
	if got := decode(t, recs); len(got) != 2 {
		t.Fatalf("records %v", got)
	}
}

func TestInvalidIDs(t *testing.T) {
	t.Parallel()
	for _, id := range []string{"", "../x", "a/b", "a.b", strings.Repeat("x", 129)} {
		if _, err := Create(t.TempDir(), id); err == nil {
			t.Errorf("Create(%q) succeeded", id)
		}
	}
}
