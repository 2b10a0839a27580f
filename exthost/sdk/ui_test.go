package sdk_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/rx-bridge/rx-bridge/exthost/protocol"
	"github.com/rx-bridge/rx-bridge/exthost/sdk"
	"github.com/rx-bridge/rx-bridge/exthost/sdk/sdktest"
)

// answerAll answers every single-question prompt: confirm yes, input
// "Ada", select the last option, multiselect the first and last.
func answerAll(p *protocol.UIRequestParams) protocol.UIRequestResult {
	form, _ := protocol.DecodeRequestPayload(p.Kind, p.Payload)
	opts := form.Fields[0].Options
	var v any
	switch p.Kind {
	case protocol.RequestConfirm:
		v = true
	case protocol.RequestInput:
		v = "Ada"
	case protocol.RequestSelect:
		v = opts[len(opts)-1]
	case protocol.RequestMultiselect:
		v = []string{opts[0], opts[len(opts)-1]}
	}
	raw, _ := json.Marshal(v)
	return protocol.UIRequestResult{Values: map[string]json.RawMessage{protocol.SingleQuestionKey: raw}}
}

func TestUIActionRequestRoundTrip(t *testing.T) {
	t.Parallel()
	p := minimalPlugin()
	p.Action("ask", "Ask everything", func(ctx context.Context, a *protocol.UIActionParams) (string, error) {
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
	if want := (protocol.UIActionResult{Accepted: true, Message: "true Ada loud [a c] v"}); *res != want {
		t.Errorf("action answered %+v, want %+v", *res, want)
	}
	reqs := h.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d prompts, want 4", len(reqs))
	}
	want := protocol.UIRequestParams{SurfaceID: "confirm-1", SessionID: "sess-1", Generation: 7, Kind: protocol.RequestConfirm,
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
	p.Action("dismissable", "", func(ctx context.Context, _ *protocol.UIActionParams) (string, error) {
		_, err := sdk.HostFrom(ctx).Confirm(ctx, "Sure?")
		if !errors.Is(err, sdk.ErrDismissed) {
			return "", fmt.Errorf("want ErrDismissed, got %v", err)
		}
		return "", errors.New("you said no")
	})
	h := sdktest.Start(t, p, sdktest.Options{}) // no Answer: every prompt dismissed
	for id, want := range map[string]protocol.UIActionResult{
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
	wantReason(t, err, protocol.ReasonUnknownMethod)
	_, err = h.Submit("form-1", map[string]json.RawMessage{})
	wantReason(t, err, protocol.ReasonUnknownMethod)
}

func TestUISubmit(t *testing.T) {
	t.Parallel()
	got := make(chan *protocol.UISubmitParams, 2)
	p := minimalPlugin()
	p.OnSubmit(func(_ context.Context, s *protocol.UISubmitParams) error {
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
	p.Action("publish", "", func(ctx context.Context, _ *protocol.UIActionParams) (string, error) {
		h := sdk.HostFrom(ctx)
		if ok, err := h.Publish(ctx, "status-1", protocol.UIStatusPayload{Label: "Indexing", Detail: "3/6", Severity: protocol.SeverityWarn, Progress: &progress}); err != nil || !ok {
			return "", fmt.Errorf("status: %v %v", ok, err)
		}
		if ok, err := h.Publish(ctx, "form-1", protocol.UIFormPayload{Title: "T", Fields: []protocol.UIFormField{{Key: "k", Label: "L", Kind: protocol.FieldSelect, Options: []string{"a"}, Default: json.RawMessage(`"a"`), Required: true}}}); err != nil || !ok {
			return "", fmt.Errorf("form: %v %v", ok, err)
		}
		for name, bad := range map[string]protocol.SurfacePayload{
			"status without label":       protocol.UIStatusPayload{},
			"unknown severity":           protocol.UIStatusPayload{Label: "x", Severity: "fatal"},
			"notification without title": protocol.UINotificationPayload{},
			"form without fields":        protocol.UIFormPayload{},
			"field kind textarea":        protocol.UIFormPayload{Fields: []protocol.UIFormField{{Key: "k", Kind: "textarea"}}},
			"card field without key":     protocol.UICardPayload{Fields: []protocol.UIKeyValue{{Value: "v"}}},
			"select without options":     protocol.UIFormPayload{Fields: []protocol.UIFormField{{Key: "k", Kind: protocol.FieldSelect}}},
		} {
			if _, err := h.Publish(ctx, "bad", bad); protocol.ReasonOf(err) != protocol.ReasonInvalidParams {
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
	want := protocol.UIPublishParams{SurfaceID: "status-1", SessionID: "sess-1", Generation: 7, Kind: protocol.SurfaceStatus,
		Payload: json.RawMessage(`{"detail":"3/6","label":"Indexing","progress":0.5,"severity":"warn"}`)}
	if !reflect.DeepEqual(pub[0], want) {
		t.Errorf("status publish\n%+v\nwant\n%+v", pub[0], want)
	}
	if got := string(pub[1].Payload); got != `{"fields":[{"default":"a","key":"k","kind":"select","label":"L","options":["a"],"required":true}],"title":"T"}` {
		t.Errorf("form publish %s", got)
	}
}
