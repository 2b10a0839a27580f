package extproto

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestDecodeSurfacePayloadAccepts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		kind UISurfaceKind
		raw  string
		want SurfacePayload
	}{
		{SurfaceStatus, `{"label":"Indexing","detail":"3/6","severity":"warn","progress":0.5}`, &UIStatusPayload{Label: "Indexing", Detail: "3/6", Severity: SeverityWarn, Progress: ptr(0.5)}},
		{SurfaceCard, `{}`, &UICardPayload{}},
		{SurfaceCard, `{"title":"t","markdown":"**m**","fields":[{"key":"k","value":""}],"progress":1,"actions":[{"actionId":"open-1","label":"Open"}]}`,
			&UICardPayload{Title: "t", Markdown: "**m**", Fields: []UIKeyValue{{Key: "k"}}, Progress: ptr(1.0), Actions: []UIActionRef{{ActionID: "open-1", Label: "Open"}}}},
		{SurfaceForm, `{"title":"t","fields":[{"key":"env","label":"Env","kind":"select","options":["dev","prod"],"default":"dev","required":true}]}`,
			&UIFormPayload{Title: "t", Fields: []UIFormField{{Key: "env", Label: "Env", Kind: FieldSelect, Options: []string{"dev", "prod"}, Default: json.RawMessage(`"dev"`), Required: true}}}},
		{SurfaceForm, `{"fields":[]}`, &UIFormPayload{Fields: []UIFormField{}}},
		{SurfaceNotification, `{"title":"Done","body":"b","severity":"info"}`, &UINotificationPayload{Title: "Done", Body: "b", Severity: SeverityInfo}},
	}
	for _, tt := range tests {
		t.Run(string(tt.kind), func(t *testing.T) {
			t.Parallel()
			got, err := DecodeSurfacePayload(tt.kind, json.RawMessage(tt.raw))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) || got.Kind() != tt.kind {
				t.Fatalf("got  %#v\nwant %#v", got, tt.want)
			}
		})
	}
}

func TestDecodeSurfacePayloadRejects(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		kind UISurfaceKind
		raw  string
		msg  string // after "invalid <kind> surface payload: "
	}{
		{"status without label", SurfaceStatus, `{"detail":"d"}`, "/label: required field missing"},
		{"status blank label", SurfaceStatus, `{"label":" "}`, "/label: must not be blank"},
		{"status severity fatal", SurfaceStatus, `{"label":"l","severity":"fatal"}`, `/severity: value "fatal" not in [error info warn]`},
		{"status progress above 1", SurfaceStatus, `{"label":"l","progress":1.5}`, "/progress: must be between 0 and 1"},
		{"status progress below 0", SurfaceStatus, `{"label":"l","progress":-0.1}`, "/progress: must be between 0 and 1"},
		{"status html member", SurfaceStatus, `{"label":"l","html":"<b>x</b>"}`, "/html: unknown field"},
		{"card field without key", SurfaceCard, `{"fields":[{"value":"v"}]}`, "/fields/0/key: required field missing"},
		{"card field without value", SurfaceCard, `{"fields":[{"key":"k"}]}`, "/fields/0/value: required field missing"},
		{"card action id", SurfaceCard, `{"actions":[{"actionId":"Open_It","label":"Open"}]}`, `/actions/0/actionId: "Open_It" does not match ^[a-z0-9-]+$`},
		{"card action label", SurfaceCard, `{"actions":[{"actionId":"open"}]}`, "/actions/0/label: required field missing"},
		{"card url member", SurfaceCard, `{"title":"t","url":"https://x"}`, "/url: unknown field"},
		{"card progress", SurfaceCard, `{"progress":2}`, "/progress: must be between 0 and 1"},
		{"form without fields", SurfaceForm, `{"title":"t"}`, "/fields: required field missing"},
		{"form null fields", SurfaceForm, `{"fields":null}`, "/fields: must not be null"},
		{"field kind textarea", SurfaceForm, `{"fields":[{"key":"k","kind":"textarea"}]}`, `/fields/0/kind: value "textarea" not in [confirm input multiselect select]`},
		{"field without kind", SurfaceForm, `{"fields":[{"key":"k"}]}`, "/fields/0/kind: required field missing"},
		{"select without options", SurfaceForm, `{"fields":[{"key":"k","kind":"select"}]}`, "/fields/0/options: a select field needs at least one option"},
		{"multiselect empty options", SurfaceForm, `{"fields":[{"key":"k","kind":"multiselect","options":[]}]}`, "/fields/0/options: a multiselect field needs at least one option"},
		{"blank option", SurfaceForm, `{"fields":[{"key":"k","kind":"select","options":["a",""]}]}`, "/fields/0/options/1: must not be blank"},
		{"duplicate key", SurfaceForm, `{"fields":[{"key":"k","kind":"input"},{"key":"k","kind":"confirm"}]}`, `/fields/1/key: duplicate key "k"`},
		{"notification without title", SurfaceNotification, `{"body":"b"}`, "/title: required field missing"},
		{"notification severity", SurfaceNotification, `{"title":"t","severity":"debug"}`, `/severity: value "debug" not in [error info warn]`},
		{"payload not an object", SurfaceNotification, `"hello"`, "want object, got string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			v, err := DecodeSurfacePayload(tt.kind, json.RawMessage(tt.raw))
			if err == nil {
				t.Fatalf("accepted: %#v", v)
			}
			assertDecodeError(t, err, ReasonInvalidParams, "invalid "+string(tt.kind)+" surface payload: "+tt.msg)
		})
	}
	t.Run("unknown kind", func(t *testing.T) {
		t.Parallel()
		_, err := DecodeSurfacePayload("banner", json.RawMessage(`{}`))
		assertProtocolError(t, err, ReasonInvalidParams, `unknown surface kind "banner"`)
	})
}

func TestDecodeRequestPayload(t *testing.T) {
	t.Parallel()
	confirm, err := DecodeRequestPayload(RequestConfirm, json.RawMessage(`{"message":"Delete everything?","fields":[{"key":"value","label":"Delete everything?","kind":"confirm"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if q := confirm.Questions(RequestConfirm); len(q) != 1 || q[0].Key != SingleQuestionKey || q[0].Kind != FieldConfirm {
		t.Fatalf("questions %+v", q)
	}

	bare, err := DecodeRequestPayload(RequestInput, json.RawMessage(`{"message":"Your name?","fields":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	want := []UIFormField{{Key: SingleQuestionKey, Label: "Your name?", Kind: FieldInput}}
	if q := bare.Questions(RequestInput); !reflect.DeepEqual(q, want) {
		t.Fatalf("a request without fields asks %+v, want %+v", q, want)
	}

	rejects := []struct {
		name string
		kind UIRequestKind
		raw  string
		msg  string
	}{
		{"select without fields", RequestSelect, `{"message":"Pick","fields":[]}`, "/fields: a select request needs a field with options"},
		{"multiselect without fields", RequestMultiselect, `{"fields":[]}`, "/fields: a multiselect request needs a field with options"},
		{"select field without options", RequestSelect, `{"fields":[{"key":"value","kind":"select"}]}`, "/fields/0/options: a select field needs at least one option"},
		{"missing fields", RequestConfirm, `{"message":"ok?"}`, "/fields: required field missing"},
		{"unknown member", RequestInput, `{"fields":[],"script":"alert(1)"}`, "/script: unknown field"},
	}
	for _, tt := range rejects {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := DecodeRequestPayload(tt.kind, json.RawMessage(tt.raw))
			assertDecodeError(t, err, ReasonInvalidParams, "invalid "+string(tt.kind)+" request payload: "+tt.msg)
		})
	}
	t.Run("unknown kind", func(t *testing.T) {
		t.Parallel()
		_, err := DecodeRequestPayload("textarea", json.RawMessage(`{"fields":[]}`))
		assertProtocolError(t, err, ReasonInvalidParams, `unknown request kind "textarea"`)
	})
}

func TestValidActionID(t *testing.T) {
	t.Parallel()
	for id, want := range map[string]bool{"demo": true, "open-2": true, "": false, "Open": false, "a_b": false, "a b": false, "a:b": false} {
		if got := ValidActionID(id); got != want {
			t.Errorf("ValidActionID(%q) = %v, want %v", id, got, want)
		}
	}
}
