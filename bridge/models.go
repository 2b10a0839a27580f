package bridge

import (
	"context"

	"github.com/rx-bridge/rx-bridge/providers"
)

// modelJSON is one entry of rx/models (EDITOR_PROTOCOL.md §4.1).
type modelJSON struct {
	Ref           string      `json:"ref"`
	DisplayName   string      `json:"displayName"`
	Origin        originJSON  `json:"origin"`
	ContextWindow int         `json:"contextWindow"`
	Tools         bool        `json:"tools"`
	Vision        bool        `json:"vision"`
	Reasoning     bool        `json:"reasoning"`
	Efforts       []string    `json:"efforts"`
	DefaultEffort string      `json:"defaultEffort"`
	Pricing       pricingJSON `json:"pricing"`
}

type originJSON struct {
	Kind providers.OriginKind `json:"kind"`
	ID   string               `json:"id"`
}

type pricingJSON struct {
	Currency           string  `json:"currency"`
	InputPerMillion    float64 `json:"inputPerMillion"`
	OutputPerMillion   float64 `json:"outputPerMillion"`
	CacheHitPerMillion float64 `json:"cacheHitPerMillion"`
}

type modelsResult struct {
	Models  []modelJSON `json:"models"`
	Default string      `json:"default,omitempty"`
}

// models serves rx/models: every model of the current generation's
// catalog, and the default a new session gets.
func (s *Server) models(context.Context, []byte) (any, error) {
	cat := s.rt.set.Current().Catalog
	out := modelsResult{Models: []modelJSON{}}
	for _, m := range cat.Models() {
		d := m.Descriptor
		out.Models = append(out.Models, modelJSON{
			Ref: m.Ref, DisplayName: d.DisplayName, Origin: originJSON{Kind: m.Origin.Kind, ID: m.Origin.ID},
			ContextWindow: d.ContextWindow, Tools: d.Tools, Vision: d.Vision, Reasoning: d.Reasoning,
			Efforts: orEmpty(d.Efforts), DefaultEffort: d.DefaultEffort,
			Pricing: pricingJSON{Currency: d.PricingCurrency, InputPerMillion: d.InputPerMillion, OutputPerMillion: d.OutputPerMillion, CacheHitPerMillion: d.CacheHitPerMillion},
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
