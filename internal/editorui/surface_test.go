package editorui

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/rx-bridge/rx-bridge/extproto"
)

func publish(t *testing.T, h *Hub, gen int64, kind extproto.UISurfaceKind, id, payload string) bool {
	t.Helper()
	res, err := h.Publish(context.Background(), "hello", &extproto.UIPublishParams{SurfaceID: id, SessionID: "s-1", Generation: gen, Kind: kind, Payload: json.RawMessage(payload)})
	if err != nil {
		t.Fatal(err)
	}
	return res.Accepted
}

func TestPublish(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		kinds   []Kind
		kind    extproto.UISurfaceKind
		payload string
		want    []string
		notWant string
	}{
		{name: "native status", kinds: []Kind{KindStatus}, kind: extproto.SurfaceStatus, payload: `{"label":"ready SECRET","detail":"1 greeting","progress":0.5}`, want: []string{`Status hello/st "ready ****" "1 greeting"`}},
		{name: "status fallback logs", kind: extproto.SurfaceStatus, payload: `{"label":"ready","detail":"1 greeting"}`, want: []string{"LogMessage info hello: ready — 1 greeting"}, notWant: "ShowMessage"},
		{name: "error status fallback also shows", kind: extproto.SurfaceStatus, payload: `{"label":"broken","severity":"error"}`, want: []string{"LogMessage info hello: broken", "ShowMessage error hello: broken"}},
		{name: "native notification", kinds: []Kind{KindNotification}, kind: extproto.SurfaceNotification, payload: `{"title":"Hi","body":"b","severity":"warn"}`, want: []string{`Notify hello "Hi" "b" warn`}},
		{name: "notification fallback", kind: extproto.SurfaceNotification, payload: `{"title":"Hi","body":"token=SECRET"}`, want: []string{"ShowMessage info hello: Hi\ntoken=****"}},
		{name: "card keeps declared actions only", kinds: []Kind{KindCard}, kind: extproto.SurfaceCard, payload: `{"title":"T","actions":[{"actionId":"greet","label":"Again"},{"actionId":"rm-rf","label":"x"}]}`, want: []string{`Card hello "T" actions=[/hello:greet]`}},
		{name: "card fallback", kind: extproto.SurfaceCard, payload: `{"title":"T","markdown":"**m**","fields":[{"key":"k","value":"v"}]}`, want: []string{"ShowMessage info hello: T\n**m**\nk: v"}},
		{name: "native form", kinds: []Kind{KindForm}, kind: extproto.SurfaceForm, payload: `{"title":"F","fields":[{"key":"a","kind":"input"}]}`, want: []string{"ShowForm hello/st 1 fields"}},
		{name: "form without any way to ask", kind: extproto.SurfaceForm, payload: `{"title":"F","fields":[{"key":"a","kind":"input"}]}`, want: []string{`ShowMessage warn hello asked "F", which this editor cannot show`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ed := newFake(tt.kinds...)
			h := newTestHub(t, ed)
			if !publish(t, h, 3, tt.kind, "st", tt.payload) {
				t.Fatal("not accepted")
			}
			log := ed.log()
			for _, w := range tt.want {
				if !strings.Contains(log, w) {
					t.Errorf("editor calls do not contain %q:\n%s", w, log)
				}
			}
			if tt.notWant != "" && strings.Contains(log, tt.notWant) {
				t.Errorf("editor calls contain %q:\n%s", tt.notWant, log)
			}
		})
	}
}

func TestPublishStaleAndInvalid(t *testing.T) {
	t.Parallel()
	ed := newFake(KindStatus)
	h := newTestHub(t, ed)
	if publish(t, h, 2, extproto.SurfaceStatus, "st", `{"label":"old"}`) {
		t.Error("older generation accepted")
	}
	res, err := h.Publish(context.Background(), "hello", &extproto.UIPublishParams{SurfaceID: "st", SessionID: "nope", Generation: 3, Kind: extproto.SurfaceStatus, Payload: json.RawMessage(`{"label":"x"}`)})
	if err != nil || res.Accepted {
		t.Errorf("other session: %+v, %v", res, err)
	}
	_, err = h.Publish(context.Background(), "hello", &extproto.UIPublishParams{SurfaceID: "st", SessionID: "s-1", Generation: 3, Kind: extproto.SurfaceStatus, Payload: json.RawMessage(`{"label":""}`)})
	if !errors.Is(err, extproto.ErrInvalidParams) || !strings.Contains(err.Error(), "invalid status surface payload") {
		t.Errorf("err = %v", err)
	}
	if ed.log() != "" {
		t.Errorf("shown: %s", ed.log())
	}
}

func TestStatusFallbackUpdatesInPlace(t *testing.T) {
	t.Parallel()
	ed := newFake()
	h := newTestHub(t, ed)
	publish(t, h, 3, extproto.SurfaceStatus, "st", `{"label":"a"}`)
	publish(t, h, 3, extproto.SurfaceStatus, "st", `{"label":"a"}`)
	publish(t, h, 3, extproto.SurfaceStatus, "st", `{"label":"b"}`)
	if got := strings.Count(ed.log(), "LogMessage"); got != 2 {
		t.Fatalf("logged %d times, want 2 (a repeat is not shown again):\n%s", got, ed.log())
	}
}

func TestPublishedFormAskedFieldByField(t *testing.T) {
	t.Parallel()
	ed := newFake(KindInput, KindConfirm)
	ed.answer = answerWith(map[string]any{"name": "Ada", "ok": true})
	var mu sync.Mutex
	var got []string
	submitted := make(chan struct{})
	h := newTestHub(t, ed, func(o *Options) {
		o.Submit = func(_ context.Context, o Origin, v map[string]json.RawMessage) error {
			b, _ := json.Marshal(v)
			mu.Lock()
			got = append(got, o.Plugin+"/"+o.SurfaceID+" "+string(b))
			mu.Unlock()
			close(submitted)
			return nil
		}
	})
	publish(t, h, 3, extproto.SurfaceForm, "f-1", `{"title":"Profile","fields":[{"key":"name","kind":"input"},{"key":"ok","kind":"confirm"}]}`)
	<-submitted
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 1 || got[0] != `hello/f-1 {"name":"Ada","ok":true}` {
		t.Fatalf("submitted %v", got)
	}
}

func TestActions(t *testing.T) {
	t.Parallel()
	h := newTestHub(t, newFake())
	h.Bind(4, extproto.Actions{{Plugin: "hello", ActionID: "greet", Label: "Greet"}, {Plugin: "zed", ActionID: "b", Label: "B"}})
	gen, list := h.Actions()
	if gen != 4 || len(list) != 2 || list[0].Name() != "/hello:greet" || list[1].Name() != "/zed:b" {
		t.Fatalf("actions = %d %+v", gen, list)
	}
	h.Bind(3, nil) // older: ignored
	if gen, list := h.Actions(); gen != 4 || len(list) != 2 {
		t.Fatalf("after an older Bind: %d %+v", gen, list)
	}
}
