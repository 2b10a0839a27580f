package acp

import (
	"context"
	"encoding/json"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/internal/editorui"
	"github.com/rx-bridge/rx-bridge/internal/redact"
)

// elicits reports whether the client declared form elicitation
// (clientCapabilities.elicitation.form).
func (s *server) elicits() bool {
	c := s.clientCaps()
	return c.Elicitation != nil && c.Elicitation.Form != nil
}

// elicit asks p's fields as one form-mode elicitation/create in the
// session it is asked in (server.askIn). accept answers with the content (the hub keeps what
// fits each field: a string for input and select, a bool for confirm,
// options for multiselect); decline, cancel, anything else and a failed
// request cancel the prompt.
func (u *clientUI) elicit(ctx context.Context, p editorui.Prompt) (editorui.Answer, error) {
	id := u.s.askIn(p.Origin)
	if id == "" || len(p.Fields) == 0 {
		return editorui.Answer{Cancelled: true}, nil
	}
	res, err := u.s.client().UnstableCreateElicitation(ctx, elicitRequest(id, p))
	if err != nil {
		if ctx.Err() != nil {
			return editorui.Answer{}, ctx.Err()
		}
		u.s.log.Warn("elicitation/create failed; the question is cancelled", "plugin", p.Plugin, "err", redact.String(err.Error()))
		return editorui.Answer{Cancelled: true}, nil
	}
	return elicitAnswer(res), nil
}

// elicitRequest is the elicitation of p in session: form mode, the
// session as its scope (scopeElicitation puts it where the schema wants
// it), the plugin's title and message as the message, one property per
// field keyed by the field's key.
func elicitRequest(session string, p editorui.Prompt) acpsdk.UnstableCreateElicitationRequest {
	return acpsdk.UnstableCreateElicitationRequest{Form: &acpsdk.UnstableCreateElicitationForm{
		Meta:            map[string]any{scopeKey: map[string]any{"sessionId": session}},
		Mode:            "form",
		Message:         editorui.QuestionText(p),
		RequestedSchema: elicitSchema(p.Fields),
	}}
}

// elicitSchema is the form of fields: an input a string with its default,
// a select a string enum, a confirm a boolean, a multiselect an array of
// its options; the required fields listed.
func elicitSchema(fields []editorui.Field) acpsdk.UnstableElicitationSchema {
	props := map[string]any{}
	var required []string
	for _, f := range fields {
		prop := map[string]any{"title": orDefault(f.Label, f.Key)}
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
		props[f.Key] = prop
		if f.Required {
			required = append(required, f.Key)
		}
	}
	return acpsdk.UnstableElicitationSchema{Type: "object", Properties: props, Required: required}
}

// elicitAnswer maps a client's answer to the plugin's: accept gives the
// content's values by key (extproto host/ui/request values); decline,
// cancel and any other action cancel. The values are not trusted: the
// hub drops what does not fit its field.
func elicitAnswer(res acpsdk.UnstableCreateElicitationResponse) editorui.Answer {
	if res.Accept == nil || res.Accept.Action != "accept" {
		return editorui.Answer{Cancelled: true}
	}
	values := map[string]json.RawMessage{}
	for k, v := range res.Accept.Content {
		if b, err := json.Marshal(v); err == nil {
			values[k] = b
		}
	}
	return editorui.Answer{Values: values}
}
