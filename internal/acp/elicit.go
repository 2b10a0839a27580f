package acp

import (
	"context"

	acpsdk "github.com/coder/acp-go-sdk"

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

// elicitSchema is the form of fields (editorui.ElicitationSchema).
func elicitSchema(fields []editorui.Field) acpsdk.UnstableElicitationSchema {
	props, required := editorui.ElicitationSchema(fields)
	return acpsdk.UnstableElicitationSchema{Type: "object", Properties: props, Required: required}
}

// elicitAnswer maps a client's answer to the plugin's: accept gives the
// content's values by key (extproto host/ui/request values); decline,
// cancel and any other action cancel.
func elicitAnswer(res acpsdk.UnstableCreateElicitationResponse) editorui.Answer {
	if res.Accept == nil || res.Accept.Action != "accept" {
		return editorui.Answer{Cancelled: true}
	}
	return editorui.ElicitedAnswer(res.Accept.Content)
}
