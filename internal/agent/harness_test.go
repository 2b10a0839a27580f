package agent

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/rx-bridge/rx-bridge/internal/agent/tools"
	"github.com/rx-bridge/rx-bridge/internal/exthost"
	"github.com/rx-bridge/rx-bridge/internal/manifest"
	"github.com/rx-bridge/rx-bridge/internal/providers"
)

// fakeEditor applies edits to disk, serves a few open documents and
// answers permission prompts from a function.
type fakeEditor struct {
	mu      sync.Mutex
	open    map[string]string
	edits   []FileEdit
	asked   []PermissionRequest
	answers func(PermissionRequest) PermissionOutcome
	// reviews makes it an EditReviewer that reviews edits; rejects
	// rejects every reviewed edit. calls are the calls edits came with.
	reviews, rejects bool
	calls            []tools.Call
}

func (e *fakeEditor) ReviewsEdits() bool { return e.reviews }

func (e *fakeEditor) Document(_ context.Context, path string) (string, bool, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	text, ok := e.open[path]
	return text, ok, nil
}

func (e *fakeEditor) ApplyEdit(ctx context.Context, edit FileEdit) error {
	c, _ := tools.CallOf(ctx)
	e.mu.Lock()
	e.edits = append(e.edits, edit)
	e.calls = append(e.calls, c)
	reject := e.rejects && c.Review
	e.mu.Unlock()
	if reject {
		return tools.ErrEditRejected
	}
	return tools.WriteToDisk(edit)
}

func (e *fakeEditor) RequestPermission(ctx context.Context, req PermissionRequest) (PermissionOutcome, error) {
	e.mu.Lock()
	e.asked = append(e.asked, req)
	answer := e.answers
	e.mu.Unlock()
	if answer == nil {
		return PermissionAllow, nil
	}
	return answer(req), nil
}

func (e *fakeEditor) questions() []PermissionRequest {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]PermissionRequest(nil), e.asked...)
}

// collector keeps every session's updates.
type collector struct {
	mu  sync.Mutex
	got map[string][]Update
}

func (c *collector) add(id string, u Update) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.got == nil {
		c.got = map[string][]Update{}
	}
	c.got[id] = append(c.got[id], u)
}

func (c *collector) of(id string) []Update {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Update(nil), c.got[id]...)
}

func (c *collector) reset(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.got, id)
}

// harness is an agent over a scripted provider in a temp home and
// workspace.
type harness struct {
	t       *testing.T
	home    string
	ws      string
	prov    *scripted
	editor  *fakeEditor
	updates *collector
	agent   *Agent
	opts    Options
}

type option func(*Options)

func withApproval(m Approval) option {
	return func(o *Options) { o.Settings.Approval = m }
}

// managed runs the agent on a manager's generations, each with the same
// catalog.
type managed struct {
	mgr *exthost.Manager
	cat *providers.Catalog
}

func (m managed) Acquire() (Pinned, func()) {
	g, release := m.mgr.Acquire()
	return static{g: g, cat: m.cat}, release
}

// onManager runs the agent on mgr's generations with the models rt
// serves.
func onManager(mgr *exthost.Manager, rt Runtime) Runtime {
	p, release := rt.Acquire()
	defer release()
	return managed{mgr: mgr, cat: p.Models()}
}

func newHarness(t *testing.T, prov *scripted, opts ...option) *harness {
	t.Helper()
	h := &harness{t: t, home: t.TempDir(), ws: t.TempDir(), prov: prov, editor: &fakeEditor{}, updates: &collector{}}
	cat, err := providers.NewCatalog(prov)
	if err != nil {
		t.Fatal(err)
	}
	h.opts = Options{
		Home:     h.home,
		Settings: Settings{Approval: ApproveYolo},
		Runtime:  Static(cat),
		// What the hosts pass: the workspace's .rx-bridge.toml model.
		WorkspaceModel: func(root string) (string, error) {
			w, err := manifest.LoadWorkspace(root)
			if err != nil {
				return "", err
			}
			return w.Model, nil
		},
		Editor:   h.editor,
		OnUpdate: h.updates.add,
	}
	for _, o := range opts {
		o(&h.opts)
	}
	h.agent = h.reopen()
	return h
}

// reopen builds a fresh Agent over the same home, as a restarted process
// would.
func (h *harness) reopen() *Agent {
	a, err := NewAgent(h.opts)
	if err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(func() { _ = a.Close(context.Background()) })
	return a
}

func (h *harness) write(name, content string) {
	h.t.Helper()
	p := filepath.Join(h.ws, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		h.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		h.t.Fatal(err)
	}
}

func (h *harness) session() *Session {
	h.t.Helper()
	s, err := h.agent.New(ctx(h.t), h.ws, "test/m1")
	if err != nil {
		h.t.Fatal(err)
	}
	return s
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return c
}

// kinds lists the kinds of updates, for order checks.
func kinds(us []Update) []UpdateKind {
	out := make([]UpdateKind, len(us))
	for i, u := range us {
		out[i] = u.Kind
	}
	return out
}

// merged is what the transcript keeps of live updates: runs of chunks of
// one kind merged into one.
func merged(us []Update) []Update {
	var out []Update
	for _, u := range us {
		if n := len(out); n > 0 && u.merge(&out[n-1]) {
			out[n-1].Text += u.Text
			continue
		}
		out = append(out, u)
	}
	return out
}

func equalUpdates(t *testing.T, got, want []Update) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d updates, want %d\ngot  %v\nwant %v", len(got), len(want), kinds(got), kinds(want))
	}
	for i := range got {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Fatalf("update %d differs:\ngot  %+v\nwant %+v", i, got[i], want[i])
		}
	}
}

func findTool(us []Update, kind UpdateKind, status ToolStatus) []ToolCall {
	var out []ToolCall
	for _, u := range us {
		if u.Kind == kind && u.ToolCall != nil && (status == "" || u.ToolCall.Status == status) {
			out = append(out, *u.ToolCall)
		}
	}
	return out
}

// acquired is the catalog rt serves now.
func acquired(rt Runtime) *providers.Catalog {
	p, release := rt.Acquire()
	defer release()
	return p.Models()
}
