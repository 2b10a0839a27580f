package editorui

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/rx-bridge/rx-bridge/extproto"
)

func TestElicitationSchema(t *testing.T) {
	t.Parallel()
	raw := func(s string) json.RawMessage { return json.RawMessage(s) }
	cases := []struct {
		name     string
		field    Field
		want     map[string]any
		required bool
	}{
		{"input with default", Field{Key: "name", Label: "Your name", Kind: extproto.FieldInput, Default: raw(`"Ada"`), Required: true},
			map[string]any{"title": "Your name", "type": "string", "default": "Ada"}, true},
		{"blank label titles with the key", Field{Key: "k", Label: "  ", Kind: extproto.FieldInput},
			map[string]any{"title": "k", "type": "string"}, false},
		{"select is a string enum", Field{Key: "c", Label: "Colour", Kind: extproto.FieldSelect, Options: []string{"red", "blue"}, Default: raw(`"blue"`)},
			map[string]any{"title": "Colour", "type": "string", "enum": []string{"red", "blue"}, "default": "blue"}, false},
		{"confirm is a boolean", Field{Key: "ok", Label: "Sure?", Kind: extproto.FieldConfirm, Default: raw(`true`)},
			map[string]any{"title": "Sure?", "type": "boolean", "default": true}, false},
		{"a default of the wrong type is left out", Field{Key: "ok", Label: "Sure?", Kind: extproto.FieldConfirm, Default: raw(`"yes"`)},
			map[string]any{"title": "Sure?", "type": "boolean"}, false},
		{"multiselect without options is an empty enum, never null", Field{Key: "m", Label: "Pick", Kind: extproto.FieldMultiselect},
			map[string]any{"title": "Pick", "type": "array", "items": map[string]any{"type": "string", "enum": []string{}}}, false},
		{"multiselect default", Field{Key: "m", Label: "Pick", Kind: extproto.FieldMultiselect, Options: []string{"a", "b"}, Default: raw(`["b"]`), Required: true},
			map[string]any{"title": "Pick", "type": "array", "items": map[string]any{"type": "string", "enum": []string{"a", "b"}}, "default": []string{"b"}}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			props, required := ElicitationSchema([]Field{tc.field})
			if got := props[tc.field.Key]; !reflect.DeepEqual(got, tc.want) {
				t.Errorf("property = %#v, want %#v", got, tc.want)
			}
			if got := len(required) == 1 && required[0] == tc.field.Key; got != tc.required {
				t.Errorf("required = %v, want the key listed: %v", required, tc.required)
			}
			// What goes on the wire must not carry a null enum.
			b, err := json.Marshal(props)
			if err != nil {
				t.Fatal(err)
			}
			if containsNull(b) {
				t.Errorf("schema has a null: %s", b)
			}
		})
	}
}

func containsNull(b []byte) bool {
	var v any
	_ = json.Unmarshal(b, &v)
	var walk func(any) bool
	walk = func(v any) bool {
		switch x := v.(type) {
		case nil:
			return true
		case map[string]any:
			for _, e := range x {
				if walk(e) {
					return true
				}
			}
		case []any:
			for _, e := range x {
				if walk(e) {
					return true
				}
			}
		}
		return false
	}
	return walk(v)
}

func TestElicitedAnswer(t *testing.T) {
	t.Parallel()
	a := ElicitedAnswer(map[string]any{"name": "Ada", "ok": true, "m": []any{"a"}})
	if a.Cancelled {
		t.Fatal("an accepted elicitation was cancelled")
	}
	want := map[string]string{"name": `"Ada"`, "ok": `true`, "m": `["a"]`}
	for k, v := range want {
		if string(a.Values[k]) != v {
			t.Errorf("%s = %s, want %s", k, a.Values[k], v)
		}
	}
	if len(a.Values) != len(want) {
		t.Errorf("values = %v", a.Values)
	}
}
