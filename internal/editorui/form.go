package editorui

import "github.com/rx-bridge/rx-bridge/extproto"

// askForm puts a published form to an editor without a native form: its
// fields are asked one after another in the background and the answer is
// submitted to the plugin. A form with no fields, no submit path, or a
// field the editor cannot ask gets the text fallback instead.
func (h *Hub) askForm(f Form) {
	if h.opts.Submit == nil || len(f.Fields) == 0 || !h.canAsk(f.Fields) {
		if err := h.opts.Editor.ShowMessage(h.ctx, SeverityWarn, cannotShow(f.Plugin, f.Title, f.Message)); err != nil {
			h.warn("editorui: " + err.Error())
		}
		return
	}
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		ctx, done, ok := h.open(h.ctx, f.Generation)
		if !ok {
			return
		}
		defer done()
		a, err := h.ask(ctx, Prompt{Origin: f.Origin, Kind: extproto.RequestInput, Title: f.Title, Message: f.Message, Fields: f.Fields})
		if err != nil || a.Cancelled || ctx.Err() != nil {
			return
		}
		// The submission serves the session the form was shown in.
		if err := h.opts.Submit(ForSession(ctx, f.Session), f.Origin, a.Values); err != nil {
			h.warn("editorui: submitting " + f.Plugin + "'s form " + f.SurfaceID + ": " + err.Error())
		}
	}()
}

// canAsk reports whether every field can be asked natively or through a
// button fallback.
func (h *Hub) canAsk(fields []Field) bool {
	ed := h.opts.Editor
	if ed.Supports(KindForm) {
		return true
	}
	for _, f := range fields {
		switch f.Kind {
		case extproto.FieldSelect:
			if !ed.Supports(KindSelect) && (len(f.Options) == 0 || len(f.Options) > MaxChoiceButtons) {
				return false
			}
		case extproto.FieldInput:
			if !ed.Supports(KindInput) {
				return false
			}
		case extproto.FieldMultiselect:
			if !ed.Supports(KindMultiSelect) {
				return false
			}
		}
	}
	return true
}
