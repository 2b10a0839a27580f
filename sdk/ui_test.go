package sdk_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/sdk"
	"github.com/rx-bridge/rx-bridge/sdk/sdktest"
)

// answerAll answers every single-question prompt: confirm yes, input
// "Ada", select the last option, multiselect the first and last.
func answerAll(p *extproto.UIRequestParams) extproto.UIRequestResult {
	form, _ := extproto.DecodeRequestPayload(p.Kind, p.Payload)
	opts := form.Fields[0].Options
	var v any
	switch p.Kind {
	case extproto.RequestConfirm:
		v = true
	case extproto.RequestInput:
		v = "Ada"
	case extproto.RequestSelect:
		v = opts[len(opts)-1]
	case extproto.RequestMultiselect:
		v = []string{opts[0], opts[len(opts)-1]}
	}
	raw, _ := json.Marshal(v)
	return extproto.UIRequestResult{Values: map[string]json.RawMessage{extproto.SingleQuestionKey: raw}}
}

func TestUIActionRequestRoundTrip(t *testing.T) {
	t.Parallel()
	p := minimalPlugin()
	p.Action("ask", "Ask everything", func(ctx context.Context, a *extproto.UIActionParams) (string, error) {
		h := sdk.HostFrom(ctx)
		ok, err := h.Confirm(ctx, "Proceed?")
		if err != nil {
			return "", err
		}
		name, err := h.Input(ctx, "Your name", "nobody")
		if err != nil {
			return "", err
		}
		style, err := h.Select(ctx, "Style", []string{"plain", "loud"})
		if err != nil {
			return "", err
		}
		many, err := h.MultiSelect(ctx, "Pick", []string{"a", "b", "c"})
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("%v %s %s %v %s", ok, name, style, many, a.Args["k"]), nil
	})
	h := sdktest.Start(t, p, sdktest.Options{Answer: answerAll})
	res, err := h.Action("ask", map[string]string{"k": "v"})
	if err != nil {
		t.Fatal(err)
	}
	if want := (extproto.UIActionResult{Accepted: true, Message: "true Ada loud [a c] v"}); *res != want {
		t.Errorf("action answered %+v, want %+v", *res, want)
	}
	reqs := h.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d prompts, want 4", len(reqs))
	}
	want := extproto.UIRequestParams{SurfaceID: "confirm-1", SessionID: "sess-1", Generation: 7, Kind: extproto.RequestConfirm,
		Payload: json.RawMessage(`{"fields":[{"key":"value","kind":"confirm","label":"Proceed?"}],"message":"Proceed?"}`)}
	if !reflect.DeepEqual(reqs[0], want) {
		t.Errorf("confirm prompt\n%+v\nwant\n%+v", reqs[0], want)
	}
	if got := string(reqs[1].Payload); got != `{"fields":[{"default":"nobody","key":"value","kind":"input","label":"Your name"}],"message":"Your name"}` {
		t.Errorf("input prompt %s", got)
	}
}

func TestUIActionFailures(t *testing.T) {
	t.Parallel()
	p := minimalPlugin()
	p.Action("dismissable", "", func(ctx context.Context, _ *extproto.UIActionParams) (string, error) {
		_, err := sdk.HostFrom(ctx).Confirm(ctx, "Sure?")
		if !errors.Is(err, sdk.ErrDismissed) {
			return "", fmt.Errorf("want ErrDismissed, got %v", err)
		}
		return "", errors.New("you said no")
	})
	h := sdktest.Start(t, p, sdktest.Options{}) // no Answer: every prompt dismissed
	for id, want := range map[string]extproto.UIActionResult{
		"dismissable": {Accepted: false, Message: "you said no"},
		"missing":     {Accepted: false, Message: "unknown action missing"},
	} {
		res, err := h.Action(id, nil)
		if err != nil || *res != want {
			t.Errorf("%s: %+v, %v; want %+v", id, res, err, want)
		}
	}
}

func TestUIWithoutCallbacksIsUnknownMethod(t *testing.T) {
	t.Parallel()
	h := sdktest.Start(t, minimalPlugin(), sdktest.Options{})
	_, err := h.Action("x", nil)
	wantReason(t, err, extproto.ReasonUnknownMethod)
	_, err = h.Submit("form-1", map[string]json.RawMessage{})
	wantReason(t, err, extproto.ReasonUnknownMethod)
}

func TestUISubmit(t *testing.T) {
	t.Parallel()
	got := make(chan *extproto.UISubmitParams, 2)
	p := minimalPlugin()
	p.OnSubmit(func(_ context.Context, s *extproto.UISubmitParams) error {
		got <- s
		if s.SurfaceID == "bad" {
			return errors.New("no")
		}
		return nil
	})
	h := sdktest.Start(t, p, sdktest.Options{})
	res, err := h.Submit("form-1", map[string]json.RawMessage{"k": json.RawMessage(`"v"`)})
	if err != nil || !res.Accepted {
		t.Fatalf("submit: %+v, %v", res, err)
	}
	if s := <-got; s.SurfaceID != "form-1" || string(s.Values["k"]) != `"v"` || s.SessionID != "sess-1" || s.Generation != 7 {
		t.Errorf("submission %+v", s)
	}
	if res, err := h.Submit("bad", map[string]json.RawMessage{}); err != nil || res.Accepted {
		t.Errorf("refused submit: %+v, %v", res, err)
	}
}

func TestUIPublish(t *testing.T) {
	t.Parallel()
	progress := 0.5
	p := minimalPlugin()
	p.Action("publish", "", func(ctx context.Context, _ *extproto.UIActionParams) (string, error) {
		h := sdk.HostFrom(ctx)
		if ok, err := h.Publish(ctx, "status-1", extproto.UIStatusPayload{Label: "Indexing", Detail: "3/6", Severity: extproto.SeverityWarn, Progress: &progress}); err != nil || !ok {
			return "", fmt.Errorf("status: %v %v", ok, err)
		}
		if ok, err := h.Publish(ctx, "form-1", extproto.UIFormPayload{Title: "T", Fields: []extproto.UIFormField{{Key: "k", Label: "L", Kind: extproto.FieldSelect, Options: []string{"a"}, Default: json.RawMessage(`"a"`), Required: true}}}); err != nil || !ok {
			return "", fmt.Errorf("form: %v %v", ok, err)
		}
		for name, bad := range map[string]extproto.SurfacePayload{
			"status without label":       extproto.UIStatusPayload{},
			"unknown severity":           extproto.UIStatusPayload{Label: "x", Severity: "fatal"},
			"notification without title": extproto.UINotificationPayload{},
			"form without fields":        extproto.UIFormPayload{},
			"field kind textarea":        extproto.UIFormPayload{Fields: []extproto.UIFormField{{Key: "k", Kind: "textarea"}}},
			"card field without key":     extproto.UICardPayload{Fields: []extproto.UIKeyValue{{Value: "v"}}},
			"select without options":     extproto.UIFormPayload{Fields: []extproto.UIFormField{{Key: "k", Kind: extproto.FieldSelect}}},
		} {
			if _, err := h.Publish(ctx, "bad", bad); extproto.ReasonOf(err) != extproto.ReasonInvalidParams {
				return "", fmt.Errorf("%s: %v", name, err)
			}
		}
		return "", nil
	})
	h := sdktest.Start(t, p, sdktest.Options{})
	if res, err := h.Action("publish", nil); err != nil || !res.Accepted {
		t.Fatalf("action: %+v, %v", res, err)
	}
	pub := h.Published()
	if len(pub) != 2 {
		t.Fatalf("%d surfaces reached the host, want 2 (invalid ones are refused locally)", len(pub))
	}
	want := extproto.UIPublishParams{SurfaceID: "status-1", SessionID: "sess-1", Generation: 7, Kind: extproto.SurfaceStatus,
		Payload: json.RawMessage(`{"detail":"3/6","label":"Indexing","progress":0.5,"severity":"warn"}`)}
	if !reflect.DeepEqual(pub[0], want) {
		t.Errorf("status publish\n%+v\nwant\n%+v", pub[0], want)
	}
	if got := string(pub[1].Payload); got != `{"fields":[{"default":"a","key":"k","kind":"select","label":"L","options":["a"],"required":true}],"title":"T"}` {
		t.Errorf("form publish %s", got)
	}
}
