package providers

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/rx-bridge/rx-bridge/extproto"
)

// Model is one catalog entry: a ref, where it comes from, and what it can
// do. The descriptor carries the capabilities (context window, tools,
// vision, reasoning, efforts, default effort, pricing).
type Model struct {
	Ref        string
	Origin     Origin
	Descriptor extproto.ProviderDescriptor
	// Replaces is the origin of the entry this one replaced through a
	// provider:<ref> claim, or the zero Origin.
	Replaces Origin
}

type entry struct {
	model    Model
	provider Provider
}

// Catalog is every model a session can use, keyed by ref. The zero value is
// an empty catalog ready to use; it is safe for concurrent use.
type Catalog struct {
	mu      sync.RWMutex
	entries map[string]entry
}

// NewCatalog returns a catalog holding every model of ps, in order.
func NewCatalog(ps ...Provider) (*Catalog, error) {
	c := &Catalog{}
	for _, p := range ps {
		if err := c.Add(p); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// Add registers every model p describes, or none of them when any is
// invalid. A ref the catalog already holds is an error naming both origins,
// unless claims holds the slot provider:<ref>: then p's model replaces the
// existing entry. Claims are the provider slots the plugin owns (its
// manifest's runtime.replaces, resolved to a single owner by package
// slots); a claim for a ref p does not declare is an error.
func (c *Catalog) Add(p Provider, claims ...extproto.Slot) error {
	origin := p.Origin()
	claimed := map[string]bool{}
	for _, s := range claims {
		if s.Kind != extproto.SlotProvider {
			return fmt.Errorf("%v: %q is not a provider slot", origin, s.String())
		}
		claimed[s.Arg] = true
	}
	if len(claimed) > 0 && origin.Kind != OriginPlugin {
		return fmt.Errorf("%v: only a plugin can claim provider slots", origin)
	}
	descs := p.Models()

	c.mu.Lock()
	defer c.mu.Unlock()
	fresh := make(map[string]entry, len(descs))
	for _, d := range descs {
		if err := extproto.ValidateProviderRef(d.Ref); err != nil {
			return fmt.Errorf("%v: %w", origin, err)
		}
		if _, dup := fresh[d.Ref]; dup {
			return fmt.Errorf("%v declares provider ref %q twice", origin, d.Ref)
		}
		m := Model{Ref: d.Ref, Origin: origin, Descriptor: d}
		if old, ok := c.entries[d.Ref]; ok {
			if !claimed[d.Ref] {
				return conflictError(d.Ref, old.model.Origin, origin)
			}
			if old.model.Replaces != (Origin{}) {
				return fmt.Errorf("%v claims provider:%s, but %v already replaced it", origin, d.Ref, old.model.Origin)
			}
			m.Replaces = old.model.Origin
		}
		if err := checkNamespace(origin, d.Ref, claimed[d.Ref]); err != nil {
			return err
		}
		fresh[d.Ref] = entry{model: m, provider: p}
	}
	for ref := range claimed {
		if _, ok := fresh[ref]; !ok {
			return fmt.Errorf("%v claims provider:%s but does not declare that ref", origin, ref)
		}
	}
	if c.entries == nil {
		c.entries = make(map[string]entry, len(fresh))
	}
	for ref, e := range fresh {
		c.entries[ref] = e
	}
	return nil
}

// checkNamespace enforces the ref shapes: built-in models are `<name>/<model>`
// under their provider's name, plugin models `plugin/<id>/<provider>/<model>`
// under their plugin's id, so no source can shadow another's namespace. The
// one exception is a ref the plugin claimed with provider:<ref>: owning that
// slot is what entitles it to serve a ref outside its namespace.
func checkNamespace(origin Origin, ref string, claimed bool) error {
	if claimed {
		return nil
	}
	switch origin.Kind {
	case OriginPlugin:
		if prefix := extproto.PluginProviderPrefix(origin.ID); !strings.HasPrefix(ref, prefix) {
			return fmt.Errorf("%v declares provider ref %q outside %q", origin, ref, prefix)
		}
	case OriginBuiltin:
		if prefix := origin.ID + "/"; !strings.HasPrefix(ref, prefix) || strings.Count(ref, "/") != 1 {
			return fmt.Errorf("%v declares provider ref %q; built-in refs are %s<model>", origin, ref, prefix)
		}
	default:
		return fmt.Errorf("provider ref %q has no origin", ref)
	}
	return nil
}

func conflictError(ref string, held, by Origin) error {
	if by.Kind == OriginPlugin && held.Kind == OriginBuiltin {
		return fmt.Errorf("extension provider conflict: plugin %q declares provider ref %q that the host provider catalog already serves (from %v); declare %q in the plugin manifest's runtime.replaces to override it",
			by.ID, ref, held, "provider:"+ref)
	}
	return fmt.Errorf("provider ref %q is declared by both %v and %v", ref, held, by)
}

// UnknownRefError is the error for a ref no provider declares. It lists the
// refs that exist so the message says what to pick instead.
type UnknownRefError struct {
	Ref   string
	Known []string
}

func (e *UnknownRefError) Error() string {
	if len(e.Known) == 0 {
		return fmt.Sprintf("unknown model ref %q: the catalog is empty (configure [[providers.openai]] in config.toml or install a provider plugin)", e.Ref)
	}
	return fmt.Sprintf("unknown model ref %q; available: %s", e.Ref, strings.Join(e.Known, ", "))
}

// Lookup returns the model with exactly this ref.
func (c *Catalog) Lookup(ref string) (Model, error) {
	e, err := c.lookup(ref)
	return e.model, err
}

func (c *Catalog) lookup(ref string) (entry, error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	e, ok := c.entries[ref]
	if !ok {
		return entry{}, &UnknownRefError{Ref: ref, Known: c.refsLocked()}
	}
	return e, nil
}

// Models returns every entry, sorted by ref.
func (c *Catalog) Models() []Model {
	c.mu.RLock()
	defer c.mu.RUnlock()
	out := make([]Model, 0, len(c.entries))
	for _, ref := range c.refsLocked() {
		out = append(out, c.entries[ref].model)
	}
	return out
}

func (c *Catalog) refsLocked() []string {
	refs := make([]string, 0, len(c.entries))
	for ref := range c.entries {
		refs = append(refs, ref)
	}
	slices.Sort(refs)
	return refs
}

// Open starts a completion on the model ref with the given effort. An
// empty effort is passed on as none chosen: the provider applies its own
// default (a plugin provider's stream/open then carries no effort, as in
// Reasonix). It never substitutes another model: an unknown ref, an
// effort the model does not declare or an invalid request is an error.
func (c *Catalog) Open(ctx context.Context, ref, effort string, body extproto.ProviderRequest) (Stream, error) {
	e, err := c.lookup(ref)
	if err != nil {
		return nil, err
	}
	if err := body.Validate(); err != nil {
		return nil, fmt.Errorf("request for %q: %w", ref, err)
	}
	d := e.model.Descriptor
	if err := checkEffort(d, effort); err != nil {
		return nil, err
	}
	s, err := e.provider.Stream(ctx, Request{Ref: ref, Model: d.Model, Effort: effort, Body: body})
	if err != nil {
		return nil, err
	}
	if s == nil {
		return nil, errors.New(e.model.Origin.String() + " returned no stream for " + ref)
	}
	return s, nil
}

// checkEffort refuses an effort the model does not declare; "" (none
// chosen) is always fine.
func checkEffort(d extproto.ProviderDescriptor, effort string) error {
	switch {
	case effort == "":
		return nil
	case len(d.Efforts) == 0:
		return fmt.Errorf("model %q takes no reasoning effort (got %q)", d.Ref, effort)
	case !slices.Contains(d.Efforts, effort):
		return fmt.Errorf("model %q has no effort %q; it accepts %s", d.Ref, effort, strings.Join(d.Efforts, ", "))
	}
	return nil
}
