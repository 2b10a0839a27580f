package editorui

import (
	"encoding/json"
	"strings"

	"github.com/rx-bridge/rx-bridge/extproto"
)

// ElicitationSchema is fields as the restricted JSON Schema that MCP's
// elicitation/create and ACP's form elicitation share (an object of flat
// primitive properties): an input a string with its default, a select a
// string enum, a confirm a boolean, a multiselect an array of its options'
// strings; each property titled with the field's label (its key when the
// label is blank) and keyed by the field's key. required lists the
// required fields' keys in field order (nil when none is).
func ElicitationSchema(fields []Field) (properties map[string]any, required []string) {
	properties = map[string]any{}
	for _, f := range fields {
		title := f.Label
		if strings.TrimSpace(title) == "" {
			title = f.Key
		}
		prop := map[string]any{"title": title}
		options := f.Options
		if options == nil {
			options = []string{}
		}
		switch f.Kind {
		case extproto.FieldConfirm:
			prop["type"] = "boolean"
			var def bool
			if f.Default != nil && json.Unmarshal(f.Default, &def) == nil {
				prop["default"] = def
			}
		case extproto.FieldMultiselect:
			prop["type"] = "array"
			prop["items"] = map[string]any{"type": "string", "enum": options}
			var def []string
			if f.Default != nil && json.Unmarshal(f.Default, &def) == nil && def != nil {
				prop["default"] = def
			}
		default: // input, select
			prop["type"] = "string"
			if f.Kind == extproto.FieldSelect && len(f.Options) > 0 {
				prop["enum"] = options
			}
			var def string
			if f.Default != nil && json.Unmarshal(f.Default, &def) == nil {
				prop["default"] = def
			}
		}
		properties[f.Key] = prop
		if f.Required {
			required = append(required, f.Key)
		}
	}
	return properties, required
}

// ElicitedAnswer is an accepted elicitation's content as the plugin's
// answer: the values by key. The values are not trusted: the hub drops
// what does not fit its field. (A declined or cancelled elicitation is
// Answer{Cancelled: true}; the caller knows its protocol's action.)
func ElicitedAnswer(content map[string]any) Answer {
	values := map[string]json.RawMessage{}
	for k, v := range content {
		if b, err := json.Marshal(v); err == nil {
			values[k] = b
		}
	}
	return Answer{Values: values}
}
