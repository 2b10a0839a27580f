package bridge

import (
	"context"
	"encoding/base64"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/internal/agent"
	"github.com/rx-bridge/rx-bridge/internal/bridge/rxproto"
	"github.com/rx-bridge/rx-bridge/internal/locale"
)

// chatText collects each session's answer of the running turn, for the
// prompt's result.
type chatText struct {
	mu   sync.Mutex
	text map[string]*strings.Builder
}

func (c *chatText) start(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.text == nil {
		c.text = map[string]*strings.Builder{}
	}
	c.text[id] = &strings.Builder{}
}

func (c *chatText) add(id, text string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if b := c.text[id]; b != nil {
		b.WriteString(text)
	}
}

func (c *chatText) take(id string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	b := c.text[id]
	delete(c.text, id)
	if b == nil {
		return ""
	}
	return b.String()
}

// onUpdate forwards a session's updates to the editor in order.
func (s *Server) onUpdate(id string, u agent.Update) {
	if u.Kind == agent.UpdateAgentMessage {
		s.chat.add(id, u.Text)
	}
	if !s.client.sessionUpdates() {
		return
	}
	if body := wireUpdate(u); body != nil {
		s.notify(rxproto.MethodSessionUpdate, rxproto.SessionUpdate{SessionID: id, Update: body})
	}
}

func (s *Server) openSession(raw []byte) (*agent.Session, error) {
	var p rxproto.SessionParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	sess, ok := s.agent.Session(p.SessionID)
	if !ok {
		return nil, invalidParams("no open session %q (rx/session/load reopens a stored one)", p.SessionID)
	}
	return sess, nil
}

func (s *Server) sessionNew(ctx context.Context, raw []byte) (any, error) {
	var p rxproto.SessionNewParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	if p.Model == "" {
		// As rx/models' "default" says (EDITOR_PROTOCOL.md §4.1, §5).
		p.Model = s.defaultModel()
	}
	sess, err := s.agent.New(ctx, s.workspace, p.Model, s.eng.Roots()...)
	if err != nil {
		return nil, sessionError(err)
	}
	return sessionRef(sess), nil
}

// sessionPrompt runs one turn; $/cancelRequest (or rx/session/cancel)
// ends it as cancelled.
func (s *Server) sessionPrompt(ctx context.Context, raw []byte) (any, error) {
	var p rxproto.PromptParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	sess, ok := s.agent.Session(p.SessionID)
	if !ok {
		return nil, invalidParams("no open session %q", p.SessionID)
	}
	images, err := promptImages(p.Images)
	if err != nil {
		return nil, err
	}
	done := s.beginProgress("Reasonix: " + sess.Model())
	s.chat.start(sess.ID())
	res, err := sess.PromptInput(ctx, agent.Input{Text: promptWithResources(p.Prompt, p.Resources), Images: images})
	text := s.chat.take(sess.ID())
	if err != nil {
		done(locale.T("failed"))
		if errors.Is(err, agent.ErrImages) {
			return nil, invalidParams("%s", err.Error())
		}
		if errors.Is(err, context.Canceled) {
			return promptResult(rxproto.StopReasonCancelled, text, res), nil
		}
		return nil, domainError(err)
	}
	if res.Block != nil {
		reason := locale.T("extension %s blocked %s", res.Block.Plugin, res.Block.Point)
		if res.Block.Reason != "" {
			reason = locale.T("extension %s blocked %s: %s", res.Block.Plugin, res.Block.Point, res.Block.Reason)
		}
		s.onUpdate(sess.ID(), agent.Update{Kind: agent.UpdateAgentMessage, Text: reason})
		text = reason
	}
	done(string(res.Stop))
	return promptResult(rxproto.StopReason(res.Stop), text, res), nil
}

// promptResult is the rx/session/prompt result of a turn that ended:
// with the files it changed and its number, however it ended, or neither
// when it changed no file.
func promptResult(stop rxproto.StopReason, text string, res agent.Result) *rxproto.PromptResult {
	out := &rxproto.PromptResult{StopReason: stop, Text: text}
	if len(res.Edits) == 0 {
		return out
	}
	out.Turn = int64(res.Turn)
	for _, e := range res.Edits {
		out.Edits = append(out.Edits, rxproto.TurnEdit{Path: e.Path, Created: e.Created})
	}
	return out
}

// promptImages decodes a prompt's image blocks; the agent checks what
// they hold (PromptInput).
func promptImages(blocks []rxproto.ImageContent) ([]agent.Image, error) {
	var out []agent.Image
	for i, b := range blocks {
		if b.Type != "image" {
			return nil, invalidParams("images[%d]: type %q is not \"image\"", i, b.Type)
		}
		data, err := base64.StdEncoding.DecodeString(b.Data)
		if err != nil {
			return nil, invalidParams("images[%d]: data is not base64: %v", i, err)
		}
		out = append(out, agent.Image{MimeType: b.MimeType, Data: data})
	}
	return out, nil
}

// promptWithResources is the text the agent gets for a prompt and its
// attachments: the prompt, then each attachment after a blank line, as
// "Resource <uri>:" and its text, or "Resource <uri>" alone for a link
// (the model reads it with its tools) — what the ACP front end makes of
// a prompt's resource blocks.
func promptWithResources(prompt string, res []rxproto.PromptResource) string {
	if len(res) == 0 {
		return prompt
	}
	parts := []string{prompt}
	for _, r := range res {
		if r.Text == "" {
			parts = append(parts, "Resource "+r.URI)
			continue
		}
		parts = append(parts, "Resource "+r.URI+":\n"+r.Text)
	}
	return strings.TrimSpace(strings.Join(parts, "\n\n"))
}

func (s *Server) sessionCancel(raw []byte) {
	var p rxproto.SessionParams
	if err := decodeParams(raw, &p); err != nil {
		return
	}
	s.prompts.cancel(p.SessionID)
	if sess, ok := s.agent.Session(p.SessionID); ok {
		sess.Cancel()
	}
}

func (s *Server) sessionSetModel(_ context.Context, raw []byte) (any, error) {
	var p rxproto.SetModelParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	sess, ok := s.agent.Session(p.SessionID)
	if !ok {
		return nil, invalidParams("no open session %q", p.SessionID)
	}
	if err := sess.SetModel(p.Model); err != nil {
		return nil, sessionError(err)
	}
	return rxproto.Empty{}, nil
}

func (s *Server) sessionSetMode(_ context.Context, raw []byte) (any, error) {
	var p rxproto.SetModeParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	sess, ok := s.agent.Session(p.SessionID)
	if !ok {
		return nil, invalidParams("no open session %q", p.SessionID)
	}
	if p.Mode != string(agent.ModeNormal) && p.Mode != string(agent.ModePlan) {
		return nil, invalidParams("mode %q: a session's mode is %q or %q", p.Mode, agent.ModeNormal, agent.ModePlan)
	}
	if err := sess.SetMode(agent.Mode(p.Mode)); err != nil {
		return nil, sessionError(err)
	}
	return rxproto.Empty{}, nil
}

// sessionRef describes an open session to the editor; the mode only when
// it is not the normal one.
func sessionRef(sess *agent.Session) rxproto.SessionRef {
	ref := rxproto.SessionRef{SessionID: sess.ID(), Model: sess.Model()}
	if m := sess.Mode(); m != agent.ModeNormal {
		ref.Mode = string(m)
	}
	return ref
}

func (s *Server) sessionList(context.Context, []byte) (any, error) {
	infos, err := s.agent.List(s.workspace)
	if err != nil {
		return nil, err
	}
	out := rxproto.SessionListResult{Sessions: []rxproto.SessionInfo{}}
	for _, i := range infos {
		out.Sessions = append(out.Sessions, rxproto.SessionInfo{SessionID: i.ID, Title: i.Title, Model: i.Model, UpdatedAt: i.Updated.UTC().Format(time.RFC3339Nano)})
	}
	return out, nil
}

func (s *Server) sessionLoad(ctx context.Context, raw []byte) (any, error) {
	var p rxproto.SessionParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	sess, err := s.agent.Load(ctx, p.SessionID)
	if err != nil {
		return nil, sessionError(err)
	}
	// A stored session works in the editor's folders too (its own
	// primary root stays).
	if err := sess.SetRoots(s.eng.Roots()); err != nil {
		s.log.Warn("rx/session/load: " + err.Error())
	}
	return sessionRef(sess), nil
}

func (s *Server) sessionClose(ctx context.Context, raw []byte) (any, error) {
	sess, err := s.openSession(raw)
	if err != nil {
		return nil, err
	}
	if err := sess.Close(context.WithoutCancel(ctx)); err != nil {
		return nil, err
	}
	return rxproto.Empty{}, nil
}

func (s *Server) sessionDelete(ctx context.Context, raw []byte) (any, error) {
	var p rxproto.SessionParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	if err := s.agent.Delete(context.WithoutCancel(ctx), p.SessionID); err != nil {
		return nil, sessionError(err)
	}
	return rxproto.Empty{}, nil
}

func (s *Server) sessionRename(_ context.Context, raw []byte) (any, error) {
	var p rxproto.RenameParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	if err := s.agent.Rename(p.SessionID, p.Title); err != nil {
		return nil, sessionError(err)
	}
	return rxproto.Empty{}, nil
}

// sessionError makes the registry's and the catalog's refusals -32602 and
// keeps a plugin's failure a -32000.
func sessionError(err error) error {
	switch {
	case errors.Is(err, agent.ErrNoSession), errors.Is(err, agent.ErrInvalid), errors.Is(err, agent.ErrSessionOpen), errors.Is(err, agent.ErrBusy), errors.Is(err, agent.ErrSessionClosed):
		return invalidParams("%s", err.Error())
	case extproto.ReasonOf(err) != "":
		return domainError(err)
	}
	return err
}
