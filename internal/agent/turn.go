package agent

import (
	"context"
	"errors"
	"fmt"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/internal/agent/tools"
	"github.com/rx-bridge/rx-bridge/internal/locale"
	"github.com/rx-bridge/rx-bridge/internal/mcphost"
	"github.com/rx-bridge/rx-bridge/internal/providers"
	"github.com/rx-bridge/rx-bridge/internal/redact"
)

// turn is one Prompt from input to turn_end, pinned to one generation.
type turn struct {
	s      *Session
	g      Pinned
	models Models
	model  providers.Model
	effort string
	// mcp is the session's own MCP host (Session.SetMCP), nil for none.
	mcp   *mcphost.Host
	n     int
	steps int
	// tools are this round's tools (toolSet); sub is set in a
	// subagent's turn, current names the parent's tool call running now
	// and subs counts the subagent runs started.
	tools   *tools.Set
	sub     *subRun
	current string
	subs    int
	// stop is set once the turn's outcome is known; block when a
	// plugin's block decided it.
	stop  StopReason
	block *Block
	// usage sums the provider-reported usage of the turn's rounds.
	usage extproto.ProviderUsage
	// openReason answers the calls a turn that ends early leaves open.
	openReason string
	turnHooks
}

// Prompt runs one turn with text as the user's input and returns when the
// turn is over. Updates stream to Options.OnUpdate meanwhile. A turn that
// ends without failing — the model stopped, the step budget ran out, a
// plugin blocked, Cancel or ctx ended it — returns its Result; a failure
// (the provider failed, a required or slot-owning plugin failed, the
// transcript could not be written) returns an error, already redacted,
// that names what failed, beside a Result holding only the turn's number
// and files changed (the turn's edits are kept for UndoTurn either way).
// The model never changes mid-turn, and a failed provider is never
// replaced by another.
func (s *Session) Prompt(ctx context.Context, text string) (Result, error) {
	return s.PromptInput(ctx, Input{Text: text})
}

// PromptInput is Prompt with images beside the text. The images join the
// user message (ProviderMessage.images, as data URLs) after the text has
// passed input.receive, which sees the text only. A prompt whose images
// the session's model does not accept (no vision), or that break the
// limits of checkImages, fails before the turn starts.
func (s *Session) PromptInput(ctx context.Context, in Input) (Result, error) {
	if err := checkImages(in.Images); err != nil {
		return Result{}, err
	}
	if err := s.adoptModel(); err != nil {
		return Result{}, err
	}
	if len(in.Images) > 0 {
		g, release := s.a.opts.Runtime.Acquire()
		err := visionCheck(g.Models(), s.Model())
		release()
		if err != nil {
			return Result{}, err
		}
	}
	// An undo running now finishes before the turn starts (UndoTurn).
	s.a.undoGate.RLock()
	defer s.a.undoGate.RUnlock()
	ctx, err := s.begin(ctx)
	if err != nil {
		return Result{}, err
	}
	g, release := s.a.opts.Runtime.Acquire()
	res, err := s.runTurn(ctx, g, in)
	release()
	// What the turn left in each file it changed, however it ended: a
	// cancelled turn's edits are undone like any other's.
	rctx := context.WithoutCancel(ctx)
	res.Turn, res.Edits = s.undo.end(func(path string) (string, bool, error) { return FileText(rctx, s.a.opts.Editor, path) })
	if ferr := s.finish(); err == nil && ferr != nil {
		err = ferr
	}
	return res, redact.Err(err)
}

// visionCheck fails unless the model ref names a model that takes images.
func visionCheck(models Models, ref string) error {
	m, err := models.Lookup(ref)
	if err != nil {
		return err
	}
	if !m.Descriptor.Vision {
		return visionError(m.Ref)
	}
	return nil
}

// adoptModel gives a session started without a model (a fresh home) the
// default model once one is configured, else fails with ErrNoModel.
func (s *Session) adoptModel() error {
	if s.Model() != "" {
		return nil
	}
	def, err := s.a.defaultModel(s.ws())
	if err != nil {
		return err
	}
	return s.SetModel(def)
}

func (s *Session) runTurn(ctx context.Context, g Pinned, in Input) (Result, error) {
	t := &turn{s: s, g: g, models: g.Models(), effort: s.Effort(), mcp: s.sessionMCP(), n: s.st.turns + 1, steps: s.a.opts.Settings.Steps, tools: s.a.opts.Tools}
	s.jmu.Lock()
	s.j.gen = g
	s.jmu.Unlock()
	defer func() {
		s.jmu.Lock()
		s.j.gen = nil
		s.jmu.Unlock()
	}()
	s.j.commit(&record{Type: recTurn, Turn: t.n, Time: s.a.opts.Now().UTC()})
	s.undo.begin(t.n)

	err := t.start(ctx, in.Text, in.Images)
	if errors.Is(err, errEnded) {
		err = nil
	}
	t.answerOpen(err)
	end := TurnEnd{Stop: t.stop, Usage: t.usage}
	if err != nil {
		end.Stop, end.Error = "", redactErr(err)
	}
	t.emit(Update{Kind: UpdateTurnEnd, End: &end})
	t.endHooks(ctx, err)
	// Saving runs even when the turn was cancelled: the cancel ends the
	// turn, not its bookkeeping.
	if serr := t.save(context.WithoutCancel(ctx)); err == nil {
		err = serr
	}
	if err != nil {
		return Result{}, err
	}
	return Result{Stop: t.stop, Usage: t.usage, Block: t.block}, nil
}

// start runs the pipeline of SPEC §12 up to the end of the turn.
func (t *turn) start(ctx context.Context, text string, images []Image) error {
	model, err := t.models.Lookup(t.s.st.model)
	if err != nil {
		return err
	}
	t.model = model
	t.tools = t.toolSet()
	// A typed slash command works on its expansion from here on, as if
	// the user had typed that; the user sees the line they typed.
	sl, text, err := t.slash(ctx, text)
	if err != nil || t.stop != "" {
		return err
	}
	out, err := t.hook(ctx, &extproto.InputReceivePayload{Text: text})
	if err != nil {
		return err
	}
	text = out.Payload.(*extproto.InputReceivePayload).Text
	prompt, err := t.userPromptSubmit(ctx, text)
	if err != nil {
		return err
	}
	shown := text
	if out.Changed {
		// A plugin wrote this text: the user sees it redacted; the model
		// gets it as written.
		shown = redact.String(text)
	}
	if sl.typed != "" {
		shown = sl.typed
	}
	t.emit(Update{Kind: UpdateUserMessage, Text: shown, Images: imageInfos(images)})
	if t.sub == nil {
		// Servers still starting on a cold schema cache are awaited
		// (bounded), so the first round offers their tools.
		t.waitMCP(ctx)
		t.tools = t.toolSet()
	}
	// A block here aborts the turn before the user's message joins the
	// history.
	if _, err := t.hook(ctx, &extproto.AgentBeforeStartPayload{Model: model.Ref, ToolCount: t.tools.Len(), SessionID: t.s.id}); err != nil {
		return err
	}
	if sl.sub != nil {
		if len(images) > 0 {
			return errors.New(locale.T("a subagent command takes text only: send the images in a prompt of their own"))
		}
		return t.direct(ctx, sl, text)
	}
	t.addMessage(&extproto.ProviderMessage{Role: extproto.RoleUser, Content: t.withStartContext(prompt), Images: imageURLs(images)})
	return t.loop(ctx, t.systemPrompt())
}

// loop runs provider rounds and their tool calls until the model stops,
// the step budget ends or something ends the turn. A subagent's turn is
// never compacted: it starts fresh and its history is thrown away.
func (t *turn) loop(ctx context.Context, system string) error {
	for step := 1; ; step++ {
		if t.sub == nil {
			if err := t.compact(ctx, system); err != nil {
				return err
			}
		}
		t.tools = t.toolSet()
		calls, err := t.round(ctx, system)
		if err != nil || t.stop != "" {
			return err
		}
		if len(calls) == 0 {
			if t.stopHooks(ctx, step) {
				continue
			}
			t.stop = StopEndTurn
			return nil
		}
		if step >= t.steps {
			t.stop = StopMaxTurnRequests
			t.openReason = fmt.Sprintf("not run: the turn reached its step budget of %d model requests", t.steps)
			return nil
		}
		if err := t.runCalls(ctx, calls); err != nil {
			return err
		}
	}
}

// answerOpen answers every tool call the turn left open, so the history
// stays one a provider accepts, and shows each as failed.
func (t *turn) answerOpen(err error) {
	open := unansweredCalls(t.s.st.history)
	if len(open) == 0 {
		return
	}
	reason := t.openReason
	switch {
	case err != nil:
		reason = "not run: the turn failed"
	case t.stop == StopCancelled:
		reason = "not run: the turn was cancelled"
	case t.block != nil:
		reason = "not run: " + string(t.block.Point) + " was blocked"
	case reason == "":
		reason = "not run: the turn ended"
	}
	for _, c := range open {
		tc := t.describe(c, false)
		tc.Status, tc.Output = ToolFailed, reason
		t.emit(Update{Kind: UpdateToolCallUpdate, ToolCall: &tc})
		t.s.j.commit(&record{Type: recMessage, Message: toolMessage(c, reason)})
	}
}

// history is the model history this turn works on: the session's, or a
// subagent's own.
func (t *turn) history() []extproto.ProviderMessage {
	if t.sub != nil {
		return t.sub.history
	}
	return t.s.st.history
}

// addMessage adds m to the turn's history: the session's (recorded), or
// a subagent's own (kept in memory only).
func (t *turn) addMessage(m *extproto.ProviderMessage) {
	if t.sub != nil {
		t.sub.history = append(t.sub.history, *m)
		return
	}
	t.s.j.commit(&record{Type: recMessage, Message: m})
}

// emit shows and records one update of this turn. The tool call is
// copied: the pipeline keeps changing its own while the update lives on
// in the receiver and the transcript.
func (t *turn) emit(u Update) {
	u.Turn = t.n
	if t.sub != nil {
		u.Subagent = t.sub.ref
	}
	if u.ToolCall != nil {
		c := *u.ToolCall
		u.ToolCall = &c
	}
	t.s.j.emit(u)
}
