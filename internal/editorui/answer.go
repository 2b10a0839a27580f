package editorui

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/rx-bridge/rx-bridge/extproto"
)

// checkAll keeps the answers that fit their field: a bool for confirm, a
// string for input and select (an option, when there are options; not
// blank when required), a string array of options for multiselect.
// Anything else — an unknown key, a wrong type, an invented option — is
// dropped, so a missing required answer cancels the request.
func checkAll(fields []Field, values map[string]json.RawMessage) Answer {
	out := map[string]json.RawMessage{}
	for _, f := range fields {
		raw, ok := values[f.Key]
		if !ok {
			continue
		}
		if v, ok := check(f, raw); ok {
			out[f.Key] = v
		}
	}
	for _, f := range fields {
		if _, ok := out[f.Key]; f.Required && !ok {
			return Answer{Cancelled: true}
		}
	}
	return Answer{Values: out}
}

func check(f Field, raw json.RawMessage) (json.RawMessage, bool) {
	switch f.Kind {
	case extproto.FieldConfirm:
		var b bool
		if json.Unmarshal(raw, &b) != nil {
			return nil, false
		}
		return jsonOf(b), true
	case extproto.FieldInput, extproto.FieldSelect:
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return nil, false
		}
		if f.Required && strings.TrimSpace(s) == "" {
			return nil, false
		}
		if f.Kind == extproto.FieldSelect && len(f.Options) > 0 && !slices.Contains(f.Options, s) {
			return nil, false
		}
		return jsonOf(s), true
	case extproto.FieldMultiselect:
		var list []string
		if json.Unmarshal(raw, &list) != nil {
			return nil, false
		}
		for _, s := range list {
			if len(f.Options) > 0 && !slices.Contains(f.Options, s) {
				return nil, false
			}
		}
		if list == nil {
			list = []string{}
		}
		if f.Required && len(list) == 0 {
			return nil, false
		}
		return jsonOf(list), true
	}
	return nil, false
}

func jsonOf(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}
