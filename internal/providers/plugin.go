package providers

import (
	"context"
	"fmt"
	"strings"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/internal/exthost"
)

// pluginProvider serves the models one sidecar declared at its handshake
// through extension/provider/stream/*. With aliases set it instead serves
// the refs the plugin claimed with provider:<ref> slots, each through its
// own declared model of the same <provider>/<model>.
type pluginProvider struct {
	s       *exthost.Sidecar
	models  []extproto.ProviderDescriptor
	backing map[string]string // catalog ref -> the sidecar's own ref
}

func (p *pluginProvider) Origin() Origin                        { return Plugin(p.s.Plugin.ID) }
func (p *pluginProvider) Models() []extproto.ProviderDescriptor { return p.models }

func (p *pluginProvider) Stream(ctx context.Context, req Request) (Stream, error) {
	ref, ok := p.backing[req.Ref]
	if !ok {
		return nil, fmt.Errorf("unknown provider ref %q: extension plugin %q does not declare it", req.Ref, p.s.Plugin.ID)
	}
	ps, err := p.s.OpenStream(ctx, ref, req.Model, req.Effort, req.Body)
	if err != nil {
		return nil, err
	}
	return ps, nil
}

// AddGeneration adds the providers of every sidecar of g to c: first each
// plugin's own plugin/<id>/... models, then the refs plugins claimed with
// provider:<ref> slots, which replace the entries they name (SPEC §4). The
// handshake's descriptors drive routing; where the sidecar answers
// extension/provider/catalog, its descriptor of the same ref supplies what
// the model picker shows. A catalog entry the handshake did not declare is
// left out: the host could not route it.
func AddGeneration(ctx context.Context, c *Catalog, g *exthost.Generation) error {
	own := map[string][]extproto.ProviderDescriptor{}
	for _, pp := range g.Providers {
		own[pp.Plugin] = append(own[pp.Plugin], pp.Descriptor)
	}
	var aliased []*pluginProvider
	for _, s := range g.Sidecars {
		descs := own[s.Plugin.ID]
		if len(descs) == 0 {
			continue
		}
		descs = enrich(ctx, s, descs)
		p := &pluginProvider{s: s, models: descs, backing: map[string]string{}}
		for _, d := range descs {
			p.backing[d.Ref] = d.Ref
		}
		if err := c.Add(p); err != nil {
			return err
		}
		if a, err := aliases(s, descs, g); err != nil {
			return err
		} else if a != nil {
			aliased = append(aliased, a)
		}
	}
	for _, a := range aliased {
		var claims []extproto.Slot
		for ref := range a.backing {
			claims = append(claims, extproto.Slot{Kind: extproto.SlotProvider, Arg: ref})
		}
		if err := c.Add(a, claims...); err != nil {
			return err
		}
	}
	return nil
}

// enrich overlays the sidecar's catalog answer on its handshake
// descriptors; a failed catalog call leaves the handshake's.
func enrich(ctx context.Context, s *exthost.Sidecar, descs []extproto.ProviderDescriptor) []extproto.ProviderDescriptor {
	listed, err := s.Catalog(ctx)
	if err != nil {
		return descs
	}
	byRef := make(map[string]extproto.ProviderDescriptor, len(listed))
	for _, d := range listed {
		byRef[d.Ref] = d
	}
	out := make([]extproto.ProviderDescriptor, len(descs))
	for i, d := range descs {
		if l, ok := byRef[d.Ref]; ok {
			d = l
		}
		out[i] = d
	}
	return out
}

// aliases builds the provider serving the refs s claimed with
// provider:<ref> slots: the claimed ref <provider>/<model> (or
// plugin/<other>/<provider>/<model>) is served by s's own
// plugin/<id>/<provider>/<model>.
func aliases(s *exthost.Sidecar, descs []extproto.ProviderDescriptor, g *exthost.Generation) (*pluginProvider, error) {
	var a *pluginProvider
	for _, claim := range g.Slots.Claims() {
		if claim.Plugin != s.Plugin.ID || claim.Slot.Kind != extproto.SlotProvider {
			continue
		}
		ref := claim.Slot.Arg
		tail := ref
		if parts := strings.Split(ref, "/"); len(parts) == 4 {
			tail = parts[2] + "/" + parts[3]
		}
		backing := extproto.PluginProviderPrefix(s.Plugin.ID) + tail
		var found *extproto.ProviderDescriptor
		for i := range descs {
			if descs[i].Ref == backing {
				found = &descs[i]
			}
		}
		if found == nil {
			return nil, fmt.Errorf("extension %s claims provider:%s but declares no provider %q to serve it", s.Plugin.ID, ref, backing)
		}
		if a == nil {
			a = &pluginProvider{s: s, backing: map[string]string{}}
		}
		d := *found
		d.Ref = ref
		a.models = append(a.models, d)
		a.backing[ref] = backing
	}
	return a, nil
}
