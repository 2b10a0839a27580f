package editorui

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/rx-bridge/rx-bridge/extproto"
)

// answerForm asks one field of every kind.
const answerForm = `{"title":"Profile","fields":[
 {"key":"name","label":"Name","kind":"input","required":true},
 {"key":"ok","label":"Sure?","kind":"confirm"},
 {"key":"style","label":"Style","kind":"select","options":["formal","casual"]},
 {"key":"tags","label":"Tags","kind":"multiselect","options":["a","b","c"],"required":true}]}`

// FuzzEditorAnswer feeds arbitrary bytes as the editor's result of
// rx/ui/request (decoded as the bridge decodes it), to a form asked all at
// once or field by field. What reaches the plugin must be a cancel or
// answers that fit the form: only its keys, each of its field's type, a
// select or multiselect value among the options, every required field
// answered and not blank.
func FuzzEditorAnswer(f *testing.F) {
	for _, seed := range []string{
		`{"cancelled":false,"values":{"name":"Ada","ok":true,"style":"casual","tags":["a","c"]}}`,
		`{"cancelled":true}`,
		`{"values":{"name":" ","tags":[]}}`,
		`{"values":{"name":"x","tags":["z"],"style":"rude","ok":"yes","extra":1}}`,
		`{"values":{"name":null,"tags":null}}`,
		`{"values":{"name":"\u0000","tags":["a","a"],"ok":1}}`,
		`{"values":[]}`, `null`, `{`, ``,
	} {
		f.Add([]byte(seed), true)
		f.Add([]byte(seed), false)
	}
	form, err := extproto.DecodeRequestPayload(extproto.RequestInput, json.RawMessage(answerForm))
	if err != nil {
		f.Fatal(err)
	}
	fields := map[string]extproto.UIFormField{}
	for _, q := range form.Questions(extproto.RequestInput) {
		fields[q.Key] = q
	}
	f.Fuzz(func(t *testing.T, data []byte, native bool) {
		kinds := []Kind{KindInput, KindConfirm, KindSelect, KindMultiSelect}
		if native {
			kinds = append(kinds, KindForm)
		}
		ed := newFake(kinds...)
		ed.answer = func(string, Prompt) (Answer, error) {
			var a struct {
				Cancelled bool                       `json:"cancelled"`
				Values    map[string]json.RawMessage `json:"values,omitempty"`
			}
			if err := json.Unmarshal(data, &a); err != nil {
				return Answer{}, err
			}
			return Answer{Cancelled: a.Cancelled, Values: a.Values}, nil
		}
		h := newTestHub(t, ed)
		res, err := h.Request(context.Background(), "hello", request(3, "s-1", extproto.RequestInput, answerForm))
		if err != nil {
			return // the editor's answer did not decode: the request fails
		}
		if res.Cancelled {
			if len(res.Values) != 0 {
				t.Fatalf("cancelled with values %s", res.Values)
			}
			return
		}
		for key, raw := range res.Values {
			q, ok := fields[key]
			if !ok {
				t.Fatalf("answer for %q, which the form does not ask", key)
			}
			var v any
			if err := json.Unmarshal(raw, &v); err != nil {
				t.Fatalf("%s: invalid JSON %s", key, raw)
			}
			switch q.Kind {
			case extproto.FieldConfirm:
				if _, ok := v.(bool); !ok {
					t.Fatalf("%s: %s is no bool", key, raw)
				}
			case extproto.FieldInput, extproto.FieldSelect:
				s, ok := v.(string)
				if !ok || (q.Required && strings.TrimSpace(s) == "") || (q.Kind == extproto.FieldSelect && !slices.Contains(q.Options, s)) {
					t.Fatalf("%s: %s does not fit %+v", key, raw, q)
				}
			case extproto.FieldMultiselect:
				var list []string
				if json.Unmarshal(raw, &list) != nil || list == nil || (q.Required && len(list) == 0) {
					t.Fatalf("%s: %s does not fit %+v", key, raw, q)
				}
				for _, s := range list {
					if !slices.Contains(q.Options, s) {
						t.Fatalf("%s: %q is not an option", key, s)
					}
				}
			}
		}
		for key, q := range fields {
			if _, ok := res.Values[key]; q.Required && !ok {
				t.Fatalf("required %q missing from %s", key, values(t, res))
			}
		}
		if _, err := json.Marshal(res); err != nil {
			t.Fatalf("result does not encode: %v", err)
		}
	})
}
