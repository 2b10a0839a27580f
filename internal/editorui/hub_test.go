package editorui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rx-bridge/rx-bridge/extproto"
)

func request(gen int64, session string, kind extproto.UIRequestKind, payload string) *extproto.UIRequestParams {
	return &extproto.UIRequestParams{SurfaceID: "q-1", SessionID: session, Generation: gen, Kind: kind, Payload: json.RawMessage(payload)}
}

func values(t *testing.T, r *extproto.UIRequestResult) string {
	t.Helper()
	if r.Cancelled {
		return "cancelled"
	}
	b, err := json.Marshal(r.Values)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func answerWith(v map[string]any) func(string, Prompt) (Answer, error) {
	return func(_ string, p Prompt) (Answer, error) {
		out := map[string]json.RawMessage{}
		for _, f := range p.Fields {
			if x, ok := v[f.Key]; ok {
				out[f.Key] = jsonOf(x)
			}
		}
		return Answer{Values: out}, nil
	}
}

const selectStyle = `{"message":"How SECRET?","fields":[{"key":"value","label":"How SECRET?","kind":"select","options":["formal","casual","SECRET"],"default":"SECRET"}]}`

func TestRequest(t *testing.T) {
	t.Parallel()
	many := `{"message":"pick","fields":[{"key":"value","kind":"select","options":["1","2","3","4","5","6","7","8","9"]}]}`
	twoFields := `{"title":"Profile","fields":[{"key":"name","label":"Name","kind":"input","required":true},{"key":"ok","label":"Sure?","kind":"confirm"}]}`
	tests := []struct {
		name    string
		kinds   []Kind
		params  *extproto.UIRequestParams
		answer  map[string]any
		choose  func(string, []string) (int, bool)
		want    string
		wantLog []string
	}{
		{name: "native select, texts redacted", kinds: []Kind{KindSelect}, params: request(3, "s-1", extproto.RequestSelect, selectStyle), answer: map[string]any{"value": "casual"},
			want: `{"value":"casual"}`, wantLog: []string{`Select hello/q-1 gen=3 title="" message="How ****?"`, `"options":["formal","casual","****"],"default":"****"`}},
		{name: "answer outside the options is dropped", kinds: []Kind{KindSelect}, params: request(3, "s-1", extproto.RequestSelect, selectStyle), answer: map[string]any{"value": "rude"}, want: "cancelled"},
		{name: "wrong session is stale", kinds: []Kind{KindSelect}, params: request(3, "other", extproto.RequestSelect, selectStyle), want: "cancelled"},
		{name: "older generation is stale", kinds: []Kind{KindSelect}, params: request(2, "s-1", extproto.RequestSelect, selectStyle), want: "cancelled"},
		{name: "no fields asks the message", kinds: []Kind{KindConfirm}, params: request(3, "s-1", extproto.RequestConfirm, `{"message":"Delete?","fields":[]}`), answer: map[string]any{"value": true},
			want: `{"value":true}`, wantLog: []string{`"key":"value","label":"Delete?","kind":"confirm"`}},
		{name: "confirm fallback Yes", params: request(3, "s-1", extproto.RequestConfirm, `{"message":"Delete?","fields":[]}`), choose: func(string, []string) (int, bool) { return 0, true },
			want: `{"value":true}`, wantLog: []string{"ShowMessageRequest info hello: Delete? [Yes No]"}},
		{name: "confirm fallback No", params: request(3, "s-1", extproto.RequestConfirm, `{"message":"Delete?","fields":[]}`), choose: func(string, []string) (int, bool) { return 1, true }, want: `{"value":false}`},
		{name: "confirm fallback dismissed", params: request(3, "s-1", extproto.RequestConfirm, `{"message":"Delete?","fields":[]}`), want: "cancelled"},
		{name: "small select fallback", params: request(3, "s-1", extproto.RequestSelect, selectStyle), choose: func(string, []string) (int, bool) { return 1, true },
			want: `{"value":"casual"}`, wantLog: []string{"ShowMessageRequest info hello: How ****? [formal casual ****]"}},
		{name: "big select cannot be shown", params: request(3, "s-1", extproto.RequestSelect, many), want: "cancelled",
			wantLog: []string{`ShowMessage warn hello asked "pick", which this editor cannot show; use an rx-bridge client (VS Code or Neovim) to answer plugin questions`}},
		{name: "input cannot be shown", kinds: []Kind{KindSelect}, params: request(3, "s-1", extproto.RequestInput, `{"message":"Name?","fields":[]}`), want: "cancelled", wantLog: []string{`hello asked "Name?"`}},
		{name: "input with a default offers it as a button", params: request(3, "s-1", extproto.RequestInput, `{"message":"Name?","fields":[{"key":"value","kind":"input","default":"Ada"}]}`),
			choose: func(string, []string) (int, bool) { return 0, true }, want: `{"value":"Ada"}`, wantLog: []string{`ShowMessageRequest info hello: Name? [Use "Ada"]`}},
		{name: "input with a default dismissed", params: request(3, "s-1", extproto.RequestInput, `{"message":"Name?","fields":[{"key":"value","kind":"input","default":"Ada"}]}`), want: "cancelled"},
		{name: "native form asks all fields at once", kinds: []Kind{KindForm, KindInput, KindConfirm}, params: request(3, "s-1", extproto.RequestInput, twoFields), answer: map[string]any{"name": "Ada", "ok": true},
			want: `{"name":"Ada","ok":true}`, wantLog: []string{`Form hello/q-1 gen=3 title="Profile"`}},
		{name: "without a native form fields are asked in turn", kinds: []Kind{KindInput, KindConfirm}, params: request(3, "s-1", extproto.RequestInput, twoFields), answer: map[string]any{"name": "Ada", "ok": false},
			want: `{"name":"Ada","ok":false}`, wantLog: []string{`Input hello/q-1`, `Confirm hello/q-1`}},
		{name: "blank required input cancels", kinds: []Kind{KindForm}, params: request(3, "s-1", extproto.RequestInput, twoFields), answer: map[string]any{"name": " ", "ok": true}, want: "cancelled"},
		// Found by FuzzEditorAnswer: asked in turn, a required field's bad
		// answer was dropped and the other answers went to the plugin.
		{name: "blank required input cancels when asked in turn", kinds: []Kind{KindInput, KindConfirm}, params: request(3, "s-1", extproto.RequestInput, twoFields), answer: map[string]any{"name": " ", "ok": true}, want: "cancelled"},
		{name: "multiselect", kinds: []Kind{KindMultiSelect}, params: request(3, "s-1", extproto.RequestMultiselect, `{"message":"Which?","fields":[{"key":"value","kind":"multiselect","options":["a","b"]}]}`), answer: map[string]any{"value": []string{"b"}}, want: `{"value":["b"]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ed := newFake(tt.kinds...)
			if tt.answer != nil {
				ed.answer = answerWith(tt.answer)
			}
			ed.choose = tt.choose
			h := newTestHub(t, ed)
			res, err := h.Request(context.Background(), "hello", tt.params)
			if err != nil {
				t.Fatal(err)
			}
			if got := values(t, res); got != tt.want {
				t.Errorf("result = %s, want %s", got, tt.want)
			}
			log := ed.log()
			for _, w := range tt.wantLog {
				if !strings.Contains(log, w) {
					t.Errorf("editor calls do not contain %q:\n%s", w, log)
				}
			}
		})
	}
}

func TestRequestInvalidPayload(t *testing.T) {
	t.Parallel()
	h := newTestHub(t, newFake(KindSelect))
	_, err := h.Request(context.Background(), "hello", request(3, "s-1", extproto.RequestSelect, `{"fields":[{"key":"value","kind":"select","html":"<b>"}]}`))
	if !errors.Is(err, extproto.ErrInvalidParams) || !strings.Contains(err.Error(), "invalid select request payload") {
		t.Fatalf("err = %v", err)
	}
	// A stale request is answered before its payload is looked at.
	res, err := h.Request(context.Background(), "hello", request(1, "s-1", extproto.RequestSelect, `{"bogus":1}`))
	if err != nil || !res.Cancelled {
		t.Fatalf("stale = %+v, %v", res, err)
	}
}

func TestBindCancelsOpenPrompts(t *testing.T) {
	t.Parallel()
	ed := newFake(KindSelect) // never answers: waits for ctx
	h := newTestHub(t, ed)
	done := make(chan *extproto.UIRequestResult)
	go func() {
		res, _ := h.Request(context.Background(), "hello", request(3, "s-1", extproto.RequestSelect, selectStyle))
		done <- res
	}()
	waitFor(t, func() bool { return strings.Contains(ed.log(), "Select") })
	h.Bind(4, nil)
	select {
	case res := <-done:
		if !res.Cancelled {
			t.Fatalf("got %+v", res)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("prompt of a superseded generation still open")
	}
}

func TestUpcomingGenerationWaitsForBind(t *testing.T) {
	t.Parallel()
	ed := newFake(KindSelect, KindStatus)
	ed.answer = answerWith(map[string]any{"value": "formal"})
	h := newTestHub(t, ed)
	done := make(chan *extproto.UIRequestResult)
	go func() {
		res, _ := h.Request(context.Background(), "hello", request(5, "s-1", extproto.RequestSelect, selectStyle))
		done <- res
	}()
	pub, err := h.Publish(context.Background(), "hello", &extproto.UIPublishParams{SurfaceID: "st", SessionID: "s-1", Generation: 5, Kind: extproto.SurfaceStatus, Payload: json.RawMessage(`{"label":"starting"}`)})
	if err != nil || !pub.Accepted {
		t.Fatalf("publish = %+v, %v", pub, err)
	}
	time.Sleep(20 * time.Millisecond)
	if log := ed.log(); log != "" {
		t.Fatalf("shown before its generation was bound:\n%s", log)
	}
	h.Bind(5, nil)
	if res := <-done; values(t, res) != `{"value":"formal"}` {
		t.Fatalf("got %+v", res)
	}
	if !strings.Contains(ed.log(), `Status hello/st "starting"`) {
		t.Fatalf("held surface not shown after Bind:\n%s", ed.log())
	}

	// A generation that never gets bound (its build failed, a later one
	// won) answers cancelled.
	go func() {
		res, _ := h.Request(context.Background(), "hello", request(6, "s-1", extproto.RequestSelect, selectStyle))
		done <- res
	}()
	time.Sleep(20 * time.Millisecond)
	h.Bind(7, nil)
	if res := <-done; !res.Cancelled {
		t.Fatalf("got %+v", res)
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestFieldByFieldDismissal: asked field by field (no native form), a
// dismissed optional field is left out and the answered ones are kept, as
// Reasonix does; a dismissed required field, or every field dismissed,
// cancels the request.
func TestFieldByFieldDismissal(t *testing.T) {
	t.Parallel()
	form := `{"title":"Profile","fields":[{"key":"name","label":"Name","kind":"input"},{"key":"ok","label":"Sure?","kind":"confirm"%s},{"key":"pet","label":"Pet","kind":"select","options":["cat","dog"]}]}`
	tests := []struct {
		name     string
		required string
		dismiss  map[string]bool // methods the user dismisses
		want     string
	}{
		{name: "a dismissed optional field keeps the others", dismiss: map[string]bool{"Confirm": true}, want: `{"name":"Ada","pet":"cat"}`},
		{name: "a dismissed required field cancels", required: `,"required":true`, dismiss: map[string]bool{"Confirm": true}, want: "cancelled"},
		{name: "nothing answered cancels", dismiss: map[string]bool{"Input": true, "Confirm": true, "Select": true}, want: "cancelled"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ed := newFake(KindInput, KindConfirm, KindSelect)
			answer := answerWith(map[string]any{"name": "Ada", "ok": true, "pet": "cat"})
			ed.answer = func(method string, p Prompt) (Answer, error) {
				if tt.dismiss[method] {
					return Answer{Cancelled: true}, nil
				}
				return answer(method, p)
			}
			h := newTestHub(t, ed)
			res, err := h.Request(context.Background(), "hello", request(3, "s-1", extproto.RequestInput, fmt.Sprintf(form, tt.required)))
			if err != nil {
				t.Fatal(err)
			}
			if got := values(t, res); got != tt.want {
				t.Errorf("result = %s, want %s\n%s", got, tt.want, ed.log())
			}
		})
	}
}

func TestPick(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		kinds   []Kind
		answer  map[string]any
		choose  func(string, []string) (int, bool)
		want    int
		wantOK  bool
		wantLog string
	}{
		{name: "native select", kinds: []Kind{KindSelect}, answer: map[string]any{"choice": "/b:y"}, want: 1, wantOK: true, wantLog: `Select rx-bridge/rx.runAction gen=3 title="Run which action?"`},
		{name: "native select, answer not offered", kinds: []Kind{KindSelect}, answer: map[string]any{"choice": "/c:z"}},
		{name: "native select dismissed", kinds: []Kind{KindSelect}, answer: map[string]any{}},
		{name: "buttons", choose: func(string, []string) (int, bool) { return 0, true }, want: 0, wantOK: true, wantLog: "ShowMessageRequest info rx-bridge: Run which action? [/a:x /b:y]"},
		{name: "buttons dismissed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ed := newFake(tt.kinds...)
			ed.answer = answerWith(tt.answer)
			ed.choose = tt.choose
			h := newTestHub(t, ed)
			got, ok, err := h.Pick(context.Background(), "rx.runAction", "Run which action?", []string{"/a:x", "/b:y"})
			if err != nil || got != tt.want || ok != tt.wantOK {
				t.Errorf("Pick = %d, %v, %v; want %d, %v", got, ok, err, tt.want, tt.wantOK)
			}
			if !strings.Contains(ed.log(), tt.wantLog) {
				t.Errorf("editor calls do not contain %q:\n%s", tt.wantLog, ed.log())
			}
		})
	}
}
