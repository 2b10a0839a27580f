package editorui

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/rx-bridge/rx-bridge/extproto"
)

// everythingSchema is part of the schema server-everything's
// trigger-elicitation-request sends (@modelcontextprotocol/server-everything).
const everythingSchema = `{"type":"object","properties":{
 "name":{"title":"String","type":"string","description":"Your full, legal name"},
 "check":{"title":"Boolean","type":"boolean","description":"Agree to the terms"},
 "firstLine":{"title":"String with default","type":"string","default":"It was a dark and stormy night."},
 "integer":{"title":"Integer","type":"integer","minimum":1,"maximum":100,"default":42},
 "number":{"title":"Number","type":"number","default":3.14},
 "friend":{"type":"string","title":"Untitled Single Select Enum","enum":["Monica","Rachel"],"default":"Rachel"},
 "instruments":{"type":"array","title":"Instruments","items":{"type":"string","enum":["Guitar","Piano"]},"default":["Guitar"]},
 "hero":{"type":"string","title":"Hero","oneOf":[{"const":"hero-1","title":"Superman"},{"const":"hero-2","title":"Wonder Woman"}],"default":"hero-2"},
 "fish":{"type":"array","title":"Fish","items":{"anyOf":[{"const":"fish-1","title":"Tuna"},{"const":"fish-2","title":"Salmon"}]},"default":["fish-1"]},
 "pet":{"type":"string","title":"Pet","enum":["pet-1","pet-2"],"enumNames":["Cats","Dogs"],"default":"pet-1"}
},"required":["name"]}`

func TestParseElicitation(t *testing.T) {
	t.Parallel()
	form, err := ParseElicitation(json.RawMessage(everythingSchema))
	if err != nil {
		t.Fatal(err)
	}
	type want struct {
		key      string
		kind     extproto.UIFieldKind
		label    string
		options  []string
		def      string
		required bool
	}
	wants := []want{
		{"name", extproto.FieldInput, "String — Your full, legal name", nil, "", true},
		{"check", extproto.FieldConfirm, "Boolean — Agree to the terms", nil, "", false},
		{"firstLine", extproto.FieldInput, "String with default", nil, `"It was a dark and stormy night."`, false},
		{"integer", extproto.FieldInput, "Integer", nil, `"42"`, false},
		{"number", extproto.FieldInput, "Number", nil, `"3.14"`, false},
		{"friend", extproto.FieldSelect, "Untitled Single Select Enum", []string{"Monica", "Rachel"}, `"Rachel"`, false},
		{"instruments", extproto.FieldMultiselect, "Instruments", []string{"Guitar", "Piano"}, `["Guitar"]`, false},
		{"hero", extproto.FieldSelect, "Hero", []string{"Superman", "Wonder Woman"}, `"Wonder Woman"`, false},
		{"fish", extproto.FieldMultiselect, "Fish", []string{"Tuna", "Salmon"}, `["Tuna"]`, false},
		{"pet", extproto.FieldSelect, "Pet", []string{"Cats", "Dogs"}, `"Cats"`, false},
	}
	if len(form.Fields) != len(wants) {
		t.Fatalf("fields %+v", form.Fields)
	}
	for i, w := range wants {
		f := form.Fields[i]
		if f.Key != w.key || f.Kind != w.kind || f.Label != w.label || !reflect.DeepEqual(f.Options, w.options) || string(f.Default) != w.def || f.Required != w.required {
			t.Errorf("field %d = %+v (default %s), want %+v", i, f, f.Default, w)
		}
	}

	for _, c := range []struct {
		name    string
		values  map[string]string
		want    string
		invalid bool
	}{
		{"every kind", map[string]string{"name": `"Ada"`, "check": `true`, "integer": `" 7 "`, "number": `"2.5"`, "friend": `"Monica"`,
			"instruments": `["Piano","Guitar"]`, "hero": `"Superman"`, "fish": `["Salmon"]`, "pet": `"Dogs"`},
			`{"check":true,"fish":["fish-2"],"friend":"Monica","hero":"hero-1","instruments":["Piano","Guitar"],"integer":7,"name":"Ada","number":2.5,"pet":"pet-2"}`, false},
		{"optional left out", map[string]string{"name": `"Ada"`}, `{"name":"Ada"}`, false},
		{"required missing", map[string]string{"check": `true`}, "", true},
		{"integer in words", map[string]string{"name": `"Ada"`, "integer": `"seven"`}, "", true},
		{"fraction for an integer", map[string]string{"name": `"Ada"`, "integer": `"7.5"`}, "", true},
		{"unknown option", map[string]string{"name": `"Ada"`, "hero": `"Batman"`}, "", true},
	} {
		values := map[string]json.RawMessage{}
		for k, v := range c.values {
			values[k] = json.RawMessage(v)
		}
		got, err := form.Content(values)
		if c.invalid {
			if !errors.Is(err, ErrInvalidAnswer) {
				t.Errorf("%s: Content = %v, %v; want ErrInvalidAnswer", c.name, got, err)
			}
			continue
		}
		b, _ := json.Marshal(got)
		if err != nil || string(b) != c.want {
			t.Errorf("%s: Content = %s, %v; want %s", c.name, b, err, c.want)
		}
	}

	for _, bad := range []string{
		`[]`, `{"type":"string"}`, `{"type":"object"}`, `{"type":"object","properties":{}}`,
		`{"type":"object","properties":{"a":{"type":"object"}}}`,
		`{"type":"object","properties":{"a":{"type":"array"}}}`,
		`{"type":"object","properties":{"a":{"type":"array","items":{"type":"string"}}}}`,
		`{"type":"object","properties":{"a":{"type":"string"},"a":{"type":"string"}}}`,
	} {
		if _, err := ParseElicitation(json.RawMessage(bad)); err == nil {
			t.Errorf("ParseElicitation(%s) took it", bad)
		}
	}
}

// Hub.Ask takes the path plugin questions take: one native form when the
// editor has one, else the fields one after another; texts redacted; a
// dismissal cancels.
func TestHubAsk(t *testing.T) {
	t.Parallel()
	form, err := ParseElicitation(json.RawMessage(`{"type":"object","properties":{"who":{"type":"string","title":"Who SECRET"},"ok":{"type":"boolean"}},"required":["who"]}`))
	if err != nil {
		t.Fatal(err)
	}
	t.Run("native form", func(t *testing.T) {
		t.Parallel()
		ed := newFake(KindForm)
		ed.answer = func(method string, p Prompt) (Answer, error) {
			return Answer{Values: map[string]json.RawMessage{"who": json.RawMessage(`"Ada"`), "ok": json.RawMessage(`true`)}}, nil
		}
		h := newTestHub(t, ed)
		a, err := h.Ask(context.Background(), "everything", "elicitation", "everything", "Tell me SECRET", form.Fields)
		if err != nil || a.Cancelled {
			t.Fatalf("Ask = %+v, %v", a, err)
		}
		got, err := form.Content(a.Values)
		if err != nil || got["who"] != "Ada" || got["ok"] != true {
			t.Errorf("Content = %v, %v", got, err)
		}
		if log := ed.log(); !strings.HasPrefix(log, "Form everything/elicitation") || strings.Contains(log, "SECRET") || !strings.Contains(log, "Who ****") {
			t.Errorf("editor saw:\n%s", log)
		}
	})
	t.Run("one by one, dismissed", func(t *testing.T) {
		t.Parallel()
		ed := newFake(KindInput, KindConfirm)
		ed.answer = func(method string, p Prompt) (Answer, error) { return Answer{Cancelled: true}, nil }
		h := newTestHub(t, ed)
		a, err := h.Ask(context.Background(), "everything", "elicitation", "everything", "Tell me", form.Fields)
		if err != nil || !a.Cancelled {
			t.Fatalf("Ask = %+v, %v", a, err)
		}
		if log := ed.log(); !strings.HasPrefix(log, "Input everything/elicitation") {
			t.Errorf("editor saw:\n%s", log)
		}
	})
	t.Run("hub closed", func(t *testing.T) {
		t.Parallel()
		ed := newFake(KindForm)
		h := newTestHub(t, ed)
		h.Close()
		if a, err := h.Ask(context.Background(), "everything", "elicitation", "", "", form.Fields); err != nil || !a.Cancelled {
			t.Errorf("Ask after Close = %+v, %v", a, err)
		}
	})
}

func FuzzParseElicitation(f *testing.F) {
	f.Add([]byte(everythingSchema))
	f.Add([]byte(`{"type":"object","properties":{"a":{"type":"array","items":{"anyOf":[{"const":"x"}]}}}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		form, err := ParseElicitation(b)
		if err != nil {
			return
		}
		if len(form.Fields) != len(form.props) || len(form.Fields) == 0 {
			t.Fatalf("form %+v", form)
		}
		values := map[string]json.RawMessage{}
		for _, fd := range form.Fields {
			if fd.Default != nil {
				values[fd.Key] = fd.Default
			}
		}
		_, _ = form.Content(values)
	})
}
