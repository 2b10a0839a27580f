package editorui

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/rx-bridge/rx-bridge/extproto"
)

// sessionEditor is a fakeEditor that records the session the hub named
// for every prompt and surface.
type sessionEditor struct {
	*fakeEditor
	mu   sync.Mutex
	seen []string
}

func (e *sessionEditor) saw(what string, o Origin) {
	e.mu.Lock()
	e.seen = append(e.seen, what+"@"+o.Session)
	e.mu.Unlock()
}

func (e *sessionEditor) got() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := strings.Join(e.seen, " ")
	e.seen = nil
	return out
}

func (e *sessionEditor) Confirm(_ context.Context, p Prompt) (Answer, error) {
	e.saw("confirm", p.Origin)
	return Answer{Values: map[string]json.RawMessage{"value": json.RawMessage("true")}}, nil
}
func (e *sessionEditor) Status(ctx context.Context, s Status) error {
	e.saw("status", s.Origin)
	return e.fakeEditor.Status(ctx, s)
}
func (e *sessionEditor) Card(ctx context.Context, c Card) error {
	e.saw("card", c.Origin)
	return e.fakeEditor.Card(ctx, c)
}
func (e *sessionEditor) Notify(ctx context.Context, n Notification) error {
	e.saw("notification", n.Origin)
	return e.fakeEditor.Notify(ctx, n)
}

// TestHubNamesTheAttributedSession: the hub names, in every prompt's and
// surface's Origin.Session, the session the engine attributed the
// traffic to (ForSession), and "" for session-less traffic, which a front
// end with several sessions shows in all of them (a surface) or asks in
// its most recently active one (a question).
func TestHubNamesTheAttributedSession(t *testing.T) {
	t.Parallel()
	ed := &sessionEditor{fakeEditor: newFake(KindConfirm, KindStatus, KindCard, KindNotification)}
	h, err := NewHub(Options{Editor: ed, Redact: mask, SessionID: "rt"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.Close)
	h.Bind(1, nil)
	publish := func(ctx context.Context, kind extproto.UISurfaceKind, payload string) {
		t.Helper()
		res, err := h.Publish(ctx, "p", &extproto.UIPublishParams{SurfaceID: string(kind), SessionID: "rt", Generation: 1, Kind: kind, Payload: json.RawMessage(payload)})
		if err != nil || !res.Accepted {
			t.Fatalf("publish %s: %v %v", kind, res, err)
		}
	}
	ask := func(ctx context.Context) {
		t.Helper()
		res, err := h.Request(ctx, "p", request(1, "rt", extproto.RequestConfirm, `{"message":"ok?","fields":[]}`))
		if err != nil || res.Cancelled {
			t.Fatalf("request: %v %v", res, err)
		}
	}
	a, b := ForSession(t.Context(), "A"), ForSession(t.Context(), "B")
	publish(a, extproto.SurfaceStatus, `{"label":"ready"}`)
	publish(a, extproto.SurfaceCard, `{"title":"hi"}`)
	ask(a)
	publish(b, extproto.SurfaceNotification, `{"title":"done"}`)
	ask(b)
	if got, want := ed.got(), "status@A card@A confirm@A notification@B confirm@B"; got != want {
		t.Errorf("attributed:\n got %s\nwant %s", got, want)
	}
	publish(t.Context(), extproto.SurfaceStatus, `{"label":"idle"}`)
	ask(ForSession(t.Context(), ""))
	if got, want := ed.got(), "status@ confirm@"; got != want {
		t.Errorf("session-less:\n got %s\nwant %s", got, want)
	}
}

// TestHubTextFallbackDedupsPerSession: a text fallback does not repeat a
// surface re-published unchanged in the same session, but the same
// surface shown in another session is new there.
func TestHubTextFallbackDedupsPerSession(t *testing.T) {
	t.Parallel()
	ed := newFake()
	h := newTestHub(t, ed)
	status := &extproto.UIPublishParams{SurfaceID: "st", SessionID: "s-1", Generation: 3, Kind: extproto.SurfaceStatus, Payload: json.RawMessage(`{"label":"ready"}`)}
	for _, id := range []string{"A", "A", "B", "A"} {
		if _, err := h.Publish(ForSession(t.Context(), id), "p", status); err != nil {
			t.Fatal(err)
		}
	}
	if n := strings.Count(ed.log(), "LogMessage"); n != 2 {
		t.Errorf("the status was logged %d times, want 2 (once in A, once in B):\n%s", n, ed.log())
	}
}

// TestHubFormSubmitsForItsSession: a published form the hub asks field by
// field is submitted on behalf of the session it was shown in.
func TestHubFormSubmitsForItsSession(t *testing.T) {
	t.Parallel()
	ed := newFake(KindInput)
	ed.answer = answerWith(map[string]any{"name": "Ada"})
	submitted := make(chan string, 1)
	h := newTestHub(t, ed, func(o *Options) {
		o.Submit = func(ctx context.Context, _ Origin, _ map[string]json.RawMessage) error {
			submitted <- SessionFor(ctx)
			return nil
		}
	})
	form := &extproto.UIPublishParams{SurfaceID: "f", SessionID: "s-1", Generation: 3, Kind: extproto.SurfaceForm, Payload: json.RawMessage(`{"fields":[{"key":"name","label":"Name","kind":"input"}]}`)}
	if _, err := h.Publish(ForSession(t.Context(), "A"), "p", form); err != nil {
		t.Fatal(err)
	}
	select {
	case got := <-submitted:
		if got != "A" {
			t.Errorf("submitted for %q, want A", got)
		}
	case <-t.Context().Done():
		t.Fatal("never submitted")
	}
}
