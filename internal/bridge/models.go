package bridge

import (
	"context"

	"github.com/rx-bridge/rx-bridge/internal/bridge/rxproto"
)

// models serves rx/models: every model of the current generation's
// catalog, and the default a new session gets.
func (s *Server) models(context.Context, []byte) (any, error) {
	cat := s.rt.set.Current().Catalog
	out := rxproto.ModelsResult{Models: []rxproto.ModelInfo{}}
	for _, m := range cat.Models() {
		d := m.Descriptor
		out.Models = append(out.Models, rxproto.ModelInfo{
			Ref: m.Ref, DisplayName: d.DisplayName, Origin: rxproto.ModelOrigin{Kind: string(m.Origin.Kind), ID: m.Origin.ID},
			ContextWindow: int64(d.ContextWindow), Tools: d.Tools, Vision: d.Vision, Reasoning: d.Reasoning,
			Efforts: orEmpty(d.Efforts), DefaultEffort: d.DefaultEffort,
			Pricing: rxproto.Pricing{Currency: d.PricingCurrency, InputPerMillion: d.InputPerMillion, OutputPerMillion: d.OutputPerMillion, CacheHitPerMillion: d.CacheHitPerMillion},
		})
	}
	out.Default = s.defaultModel()
	return out, nil
}

// defaultModel is the model a new session gets when the editor names
// none: the configured default, else the catalog's first ref, else "".
func (s *Server) defaultModel() string {
	if def := s.home.Config.Model; def != "" {
		return def
	}
	if models := s.rt.set.Current().Catalog.Models(); len(models) > 0 {
		return models[0].Ref
	}
	return ""
}
