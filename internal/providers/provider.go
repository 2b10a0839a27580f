package providers

import (
	"context"
	"strconv"

	"github.com/rx-bridge/rx-bridge/extproto"
)

// Provider is one source of models: it describes the models it serves and
// opens streams for them.
type Provider interface {
	// Origin says where the provider's models come from.
	Origin() Origin
	// Models describes every model the provider serves. Descriptors never
	// carry endpoints, headers or credentials.
	Models() []extproto.ProviderDescriptor
	// Stream opens one completion for req.Ref. It returns once the
	// provider accepted the request (for HTTP providers: once the server
	// answered and started streaming), with an error otherwise. ctx governs
	// the whole stream: when it ends, the stream stops and Next fails.
	Stream(ctx context.Context, req Request) (Stream, error)
}

// Request is one completion request as the catalog hands it to a provider.
type Request struct {
	// Ref is the catalog ref the caller selected.
	Ref string
	// Model is the descriptor's model (the name the backend knows); empty
	// when the descriptor names none.
	Model string
	// Effort is the reasoning effort, empty for the model's default or for
	// models without efforts.
	Effort string
	// Body is the conversation, tools and limits.
	Body extproto.ProviderRequest
}

// Stream yields the chunks of one completion in order.
//
// Next returns the next chunk. After the `done` chunk it returns io.EOF. A
// failure is returned as an error, never as an `error` chunk: a
// *extproto.Error with reason provider_failed, or provider_interrupted when
// the stream was cut (including by the caller's context, whose error is
// then in the chain). Close releases the stream; it is safe to call at any
// time, more than once, and must be called.
type Stream interface {
	Next() (extproto.ProviderChunk, error)
	Close() error
}

// OriginKind tells built-in providers from plugin ones.
type OriginKind string

// The origin kinds.
const (
	OriginBuiltin OriginKind = "builtin"
	OriginPlugin  OriginKind = "plugin"
)

// Origin names where a model comes from: a built-in provider from the
// bridge's config (ID is its configured name) or a plugin (ID is the
// installed plugin id).
type Origin struct {
	Kind OriginKind
	ID   string
}

// Builtin returns the origin of the built-in provider configured as name.
func Builtin(name string) Origin { return Origin{Kind: OriginBuiltin, ID: name} }

// Plugin returns the origin of plugin id's providers.
func Plugin(id string) Origin { return Origin{Kind: OriginPlugin, ID: id} }

// String renders the origin for people: `built-in "local"`, `plugin "hello"`.
func (o Origin) String() string {
	switch o.Kind {
	case OriginBuiltin:
		return "built-in " + strconv.Quote(o.ID)
	case OriginPlugin:
		return "plugin " + strconv.Quote(o.ID)
	}
	return string(o.Kind) + " " + strconv.Quote(o.ID)
}
