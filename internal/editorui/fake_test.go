package editorui

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"go.uber.org/goleak"

	"github.com/rx-bridge/rx-bridge/extproto"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// fakeEditor records every call; answer decides what prompts return.
type fakeEditor struct {
	kinds  map[Kind]bool
	answer func(method string, p Prompt) (Answer, error)
	choose func(text string, choices []string) (int, bool)

	mu    sync.Mutex
	calls []string
}

func newFake(kinds ...Kind) *fakeEditor {
	f := &fakeEditor{kinds: map[Kind]bool{}}
	for _, k := range kinds {
		f.kinds[k] = true
	}
	return f
}

func (f *fakeEditor) record(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, fmt.Sprintf(format, args...))
}

func (f *fakeEditor) log() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return strings.Join(f.calls, "\n")
}

func (f *fakeEditor) Supports(k Kind) bool { return f.kinds[k] }

func (f *fakeEditor) prompt(ctx context.Context, method string, p Prompt) (Answer, error) {
	b, _ := json.Marshal(p.Fields)
	f.record("%s %s/%s gen=%d title=%q message=%q fields=%s", method, p.Plugin, p.SurfaceID, p.Generation, p.Title, p.Message, b)
	if f.answer == nil {
		<-ctx.Done()
		return Answer{Cancelled: true}, nil
	}
	return f.answer(method, p)
}

func (f *fakeEditor) Select(ctx context.Context, p Prompt) (Answer, error) {
	return f.prompt(ctx, "Select", p)
}
func (f *fakeEditor) MultiSelect(ctx context.Context, p Prompt) (Answer, error) {
	return f.prompt(ctx, "MultiSelect", p)
}
func (f *fakeEditor) Input(ctx context.Context, p Prompt) (Answer, error) {
	return f.prompt(ctx, "Input", p)
}
func (f *fakeEditor) Confirm(ctx context.Context, p Prompt) (Answer, error) {
	return f.prompt(ctx, "Confirm", p)
}
func (f *fakeEditor) Form(ctx context.Context, p Prompt) (Answer, error) {
	return f.prompt(ctx, "Form", p)
}
func (f *fakeEditor) Notify(_ context.Context, n Notification) error {
	f.record("Notify %s %q %q %s", n.Plugin, n.Title, n.Body, n.Severity)
	return nil
}
func (f *fakeEditor) Status(_ context.Context, s Status) error {
	f.record("Status %s/%s %q %q", s.Plugin, s.SurfaceID, s.Label, s.Detail)
	return nil
}
func (f *fakeEditor) Card(_ context.Context, c Card) error {
	var names []string
	for _, a := range c.Actions {
		names = append(names, a.Name)
	}
	f.record("Card %s %q actions=%v", c.Plugin, c.Title, names)
	return nil
}
func (f *fakeEditor) ShowForm(_ context.Context, fm Form) error {
	f.record("ShowForm %s/%s %d fields", fm.Plugin, fm.SurfaceID, len(fm.Fields))
	return nil
}
func (f *fakeEditor) ShowMessage(_ context.Context, sev Severity, text string) error {
	f.record("ShowMessage %s %s", sev, text)
	return nil
}
func (f *fakeEditor) ShowMessageRequest(_ context.Context, sev Severity, text string, choices []string) (int, bool, error) {
	f.record("ShowMessageRequest %s %s %v", sev, text, choices)
	if f.choose == nil {
		return 0, false, nil
	}
	i, ok := f.choose(text, choices)
	return i, ok, nil
}
func (f *fakeEditor) LogMessage(_ context.Context, sev Severity, text string) error {
	f.record("LogMessage %s %s", sev, text)
	return nil
}

func mask(s string) string { return strings.ReplaceAll(s, "SECRET", "****") }

func newTestHub(t *testing.T, ed *fakeEditor, opts ...func(*Options)) *Hub {
	t.Helper()
	o := Options{Editor: ed, Redact: mask, SessionID: "s-1"}
	for _, f := range opts {
		f(&o)
	}
	h, err := NewHub(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.Close)
	h.Bind(3, extproto.Actions{{Plugin: "hello", ActionID: "greet", Label: "Greet"}})
	return h
}
