package exthost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/internal/redact"
)

// Ruling is what one plugin said at a hook point, for diagnostics and the
// `rx-bridge hook` tool.
type Ruling struct {
	Plugin string
	// Owner marks the slot owner's final say after the chain.
	Owner    bool
	Decision extproto.InterceptDecision // empty when the call failed
	Reason   string                     // redacted
	Latency  time.Duration
	// Err is the call failure or contract violation: an *InterceptError
	// (its text redacted) whose chain keeps the protocol reason. With
	// Skipped set, it came from an optional plugin and was ignored.
	Err     error
	Skipped bool
}

// Outcome is the result of one Intercept walk.
type Outcome struct {
	Point extproto.HookPoint
	// Payload is the final payload (the input when nothing replaced it).
	Payload extproto.Payload
	// Changed reports whether any replacement was applied.
	Changed bool
	// Blocked ends the operation; Reason (redacted) is shown to the user.
	Blocked   bool
	BlockedBy string
	Reason    string
	// Verdict is the final permission at permission.decision: allow or
	// deny (the host's own unless an extension ruled).
	Verdict  extproto.HostDecision
	Rulings  []Ruling
	Warnings []string
	// Audit records every extension allow that overrode a host deny.
	Audit []string
}

// InterceptError fails the operation: a required-class plugin's call
// failed or broke the contract. It unwraps to the cause, so
// errors.Is(err, extproto.ErrInterceptTimeout) works.
type InterceptError struct {
	Plugin    string
	Point     extproto.HookPoint
	Violation bool
	Err       error
}

func (e *InterceptError) Error() string {
	if e.Violation {
		return fmt.Sprintf("extension %s violated the intercept contract at %s: %s", e.Plugin, e.Point, redact.String(e.Err.Error()))
	}
	return fmt.Sprintf("extension %s failed at %s: %s", e.Plugin, e.Point, redact.String(e.Err.Error()))
}
func (e *InterceptError) Unwrap() error { return e.Err }

// Warning categories for warn-once, per generation, plugin and category.
const (
	warnCallError = "call error"
	warnViolation = "violation"
	warnDropped   = "dropped event"
)

// Intercept walks point's interceptor chain (SPEC §3 order) and then the
// owner of the slot ruling point (SPEC §4), applying each ruling to the
// payload, and then sends the outcome to every observer of point as an
// event. At the strategy points (system_prompt.build and session.*)
// there is no chain: only the owner rules, and the plugins that list the
// point in their intercepts only observe it. It returns the final payload
// and every ruling; an error means the operation must fail (a
// required-class plugin failed or broke the contract, or ctx ended). With
// no plugin at point it does no JSON work.
func (g *Generation) Intercept(ctx context.Context, point extproto.HookPoint, payload extproto.Payload) (Outcome, error) {
	out := Outcome{Point: point, Payload: payload}
	if perm, ok := payload.(*extproto.PermissionDecisionPayload); ok {
		out.Verdict = perm.HostDecision
	}
	owner := g.owner(point, payload)
	chain := g.chains[point]
	if extproto.IsStrategyPoint(point) {
		if owner == nil {
			// Nobody rules: the plugins of the point observe it.
			if len(chain) > 0 {
				out.Warnings = g.eventFor(SessionOf(ctx), point, payload)
			}
			return out, nil
		}
		chain = nil
	}
	if len(chain) == 0 && owner == nil {
		return out, nil
	}
	return g.interceptChain(ctx, out, chain, owner)
}

// Asked is who Intercept of point with payload asks for a ruling: the
// chain members in order (none at a strategy point, where the chain only
// observes), then the slot owner ruling it ("" when none).
func (g *Generation) Asked(point extproto.HookPoint, payload extproto.Payload) (chain []string, owner string) {
	if !extproto.IsStrategyPoint(point) {
		for _, s := range g.chains[point] {
			chain = append(chain, s.Plugin.ID)
		}
	}
	if o := g.owner(point, payload); o != nil {
		owner = o.Plugin.ID
	}
	return chain, owner
}

// Observers is how many plugins get point's extension/event.
func (g *Generation) Observers(point extproto.HookPoint, payload extproto.Payload) int {
	return len(g.observersOf(point, payload))
}

// Rules reports whether a plugin may rule on point in g: a member of its
// chain (none at the strategy points) or the owner of the slot ruling it.
// Without one, Intercept of point never waits on a sidecar.
func (g *Generation) Rules(point extproto.HookPoint) bool {
	return g.owner(point, nil) != nil || (!extproto.IsStrategyPoint(point) && len(g.chains[point]) > 0)
}

// interceptChain is Intercept's slow path, kept apart so the fast path allocates
// nothing.
func (g *Generation) interceptChain(ctx context.Context, out Outcome, chain []*Sidecar, owner *Sidecar) (Outcome, error) {
	point := out.Point
	w := walk{g: g, point: point, out: &out}
	raw, err := extproto.MarshalPayload(out.Payload)
	if err != nil {
		return out, fmt.Errorf("encode %s payload: %w", point, err)
	}
	w.raw = raw
	for _, s := range chain {
		if stop, err := w.member(ctx, s); err != nil || stop {
			if err == nil {
				g.broadcast(SessionOf(ctx), g.observersOf(point, out.Payload), point, w.raw, &out)
			}
			return out, err
		}
	}
	if owner != nil {
		if err := w.strategy(ctx, owner); err != nil {
			return out, err
		}
	}
	g.broadcast(SessionOf(ctx), g.observersOf(point, out.Payload), point, w.raw, &out)
	return out, nil
}

// owner returns the sidecar owning the slot that rules point for this
// payload: a named slot, or tool:<name> at tool.before/tool.after.
func (g *Generation) owner(point extproto.HookPoint, payload extproto.Payload) *Sidecar {
	var id string
	var ok bool
	switch p := payload.(type) {
	case *extproto.ToolBeforePayload:
		id, ok = g.Slots.ToolOwner(p.Name)
	case *extproto.ToolAfterPayload:
		id, ok = g.Slots.ToolOwner(p.Name)
	default:
		id, ok = g.Slots.OwnerAt(point)
	}
	if !ok {
		return nil
	}
	s, running := g.byID[id]
	if !running {
		return nil
	}
	return s
}

// walk is the state of one Intercept.
type walk struct {
	g     *Generation
	point extproto.HookPoint
	out   *Outcome
	raw   json.RawMessage // the current payload as sent
}

// member asks one chain member; stop reports a block or a terminal
// permission ruling.
func (w *walk) member(ctx context.Context, s *Sidecar) (stop bool, err error) {
	res, latency, err := w.ask(ctx, s)
	r := Ruling{Plugin: s.Plugin.ID, Latency: latency}
	if err != nil {
		return false, w.failure(ctx, s, r, err, false)
	}
	r.Decision, r.Reason = res.Decision, redact.String(res.Reason)
	switch res.Decision {
	case extproto.DecisionContinue:
	case extproto.DecisionBlock:
		w.out.Rulings = append(w.out.Rulings, r)
		w.block(s, r.Reason)
		return true, nil
	case extproto.DecisionReplace:
		if err := w.replace(res); err != nil {
			return false, w.failure(ctx, s, r, err, true)
		}
	case extproto.DecisionAllow, extproto.DecisionDeny:
		if w.point != extproto.PermissionDecision {
			return false, w.failure(ctx, s, r, fmt.Errorf("decision %q is only legal at permission.decision", res.Decision), true)
		}
		w.out.Rulings = append(w.out.Rulings, r)
		w.rule(s, extproto.HostDecision(res.Decision))
		return true, nil
	default:
		return false, w.failure(ctx, s, r, fmt.Errorf("unknown decision %q", res.Decision), true)
	}
	w.out.Rulings = append(w.out.Rulings, r)
	return false, nil
}

// strategy asks the slot owner for its final say: continue keeps the
// payload, replace is final; anything else fails the operation.
func (w *walk) strategy(ctx context.Context, s *Sidecar) error {
	res, latency, err := w.ask(ctx, s)
	r := Ruling{Plugin: s.Plugin.ID, Owner: true, Latency: latency}
	if err != nil {
		return w.fatal(ctx, s, r, err, false)
	}
	r.Decision, r.Reason = res.Decision, redact.String(res.Reason)
	switch res.Decision {
	case extproto.DecisionContinue:
	case extproto.DecisionReplace:
		before := w.out.Verdict
		if err := w.replace(res); err != nil {
			return w.fatal(ctx, s, r, err, true)
		}
		if perm, ok := w.out.Payload.(*extproto.PermissionDecisionPayload); ok {
			// The permission owner's replacement is final, verdict
			// included; overriding a deny is audited like an allow.
			w.out.Verdict = before
			w.rule(s, perm.HostDecision)
		}
	case extproto.DecisionBlock:
		w.out.Rulings = append(w.out.Rulings, r)
		w.block(s, r.Reason)
		return nil
	default:
		return w.fatal(ctx, s, r, fmt.Errorf("strategy ruling %q is not continue or replace", res.Decision), true)
	}
	w.out.Rulings = append(w.out.Rulings, r)
	return nil
}

// ask sends one extension/intercept with the runtime's budget for the
// point and decodes the ruling strictly.
func (w *walk) ask(ctx context.Context, s *Sidecar) (*extproto.InterceptResult, time.Duration, error) {
	budget := w.point.InterceptTimeout(s.Plugin.TimeoutMillis)
	began := time.Now()
	res, err := s.intercept(ctx, w.point, w.raw, budget)
	latency := time.Since(began)
	if err != nil && ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
		err = extproto.Errorf(extproto.ReasonInterceptTimeout, "extension %s did not answer %s within %s", s.Plugin.ID, w.point, budget)
	}
	return res, latency, err
}

// replace strictly re-decodes the replacement as the point's DTO and makes
// it the payload. Members a replacement omits become empty: nothing is
// merged with the previous payload.
func (w *walk) replace(res *extproto.InterceptResult) error {
	raw := res.Replacement
	if len(raw) == 0 || string(raw) == "null" {
		return errors.New("decision replace without a replacement")
	}
	p, err := extproto.DecodePayload(w.point, raw)
	if err != nil {
		return err
	}
	canon, err := extproto.MarshalPayload(p)
	if err != nil {
		return err
	}
	// The verdict changes only through rule, never by a chain member
	// rewriting hostDecision.
	w.out.Payload, w.raw, w.out.Changed = p, canon, true
	return nil
}

func (w *walk) block(s *Sidecar, reason string) {
	w.out.Blocked, w.out.BlockedBy, w.out.Reason = true, s.Plugin.ID, reason
}

// rule records an extension's permission verdict; an allow over a host
// deny is audited.
func (w *walk) rule(s *Sidecar, verdict extproto.HostDecision) {
	if verdict == extproto.HostAllow && w.out.Verdict == extproto.HostDeny {
		note := fmt.Sprintf("extension %s allowed the tool overriding the host deny", s.Plugin.ID)
		if perm, ok := w.out.Payload.(*extproto.PermissionDecisionPayload); ok && perm.Name != "" {
			note = fmt.Sprintf("extension %s allowed the tool %q overriding the host deny", s.Plugin.ID, perm.Name)
		}
		w.out.Audit = append(w.out.Audit, note)
		w.g.audit(note)
	}
	w.out.Verdict = verdict
}

// failure applies the chain failure policy: required-class plugins fail
// the operation; optional ones are warned about once and skipped, the
// payload left as it was.
func (w *walk) failure(ctx context.Context, s *Sidecar, r Ruling, err error, violation bool) error {
	if w.g.RequiredClass(s) || ctx.Err() != nil {
		return w.fatal(ctx, s, r, err, violation)
	}
	ie := &InterceptError{Plugin: s.Plugin.ID, Point: w.point, Violation: violation, Err: err}
	r.Err, r.Skipped = ie, true
	w.out.Rulings = append(w.out.Rulings, r)
	category := warnCallError
	if violation {
		category = warnViolation
	}
	// The reason stays tagged here (plugin authors look it up: `rx-bridge
	// hook`, the log); editors show notices without the tags.
	msg := ie.Error() + "; the agent went on without this plugin's answer"
	if w.g.warnOnce(s.Plugin.ID, category, msg) {
		w.out.Warnings = append(w.out.Warnings, msg)
	}
	return nil
}

func (w *walk) fatal(ctx context.Context, s *Sidecar, r Ruling, err error, violation bool) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	ie := &InterceptError{Plugin: s.Plugin.ID, Point: w.point, Violation: violation, Err: err}
	r.Err = ie
	w.out.Rulings = append(w.out.Rulings, r)
	return ie
}
