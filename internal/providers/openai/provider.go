package openai

import (
	"context"
	"errors"
	"maps"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/internal/providers"
	"github.com/rx-bridge/rx-bridge/internal/redact"
)

// Provider is one configured OpenAI-compatible server.
type Provider struct {
	cfg      Config
	endpoint string
	models   map[string]ModelConfig // by ref
	descs    []extproto.ProviderDescriptor
	client   *http.Client
	lookup   func(string) (string, bool)

	retry retryPolicy
	// Indirections for tests: the random jitter source, the sleep between
	// retries (so a Retry-After can be checked without waiting), the clock.
	rnd   func() float64
	sleep func(context.Context, time.Duration) error
	now   func() time.Time
}

var _ providers.Provider = (*Provider)(nil)

// Option adjusts a Provider.
type Option func(*Provider)

// WithLookupEnv replaces os.LookupEnv as the source of the API key, for
// hosts that resolve the environment themselves.
func WithLookupEnv(f func(string) (string, bool)) Option {
	return func(p *Provider) { p.lookup = f }
}

// New validates cfg and returns its provider. The API key is not read
// here but on every Stream, so listing models works without it and a key
// exported later is picked up.
func New(cfg Config, opts ...Option) (*Provider, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	// The server may echo a header back in an error body: its values
	// are secrets to the redactor. The provider's name is an identifier.
	redact.AddIdentifiers(cfg.Name)
	redact.AddSecrets(slices.Collect(maps.Values(cfg.Headers))...)
	p := &Provider{
		cfg:      cfg,
		endpoint: strings.TrimRight(cfg.BaseURL, "/") + "/chat/completions",
		models:   make(map[string]ModelConfig, len(cfg.Models)),
		lookup:   os.LookupEnv,
		retry:    retryPolicy{attempts: cfg.MaxAttempts, base: defaultRetry.base, max: defaultRetry.max},
		rnd:      jitter,
		sleep:    sleepCtx,
		now:      time.Now,
	}
	dialer := &net.Dialer{Timeout: cfg.ConnectTimeout, KeepAlive: 30 * time.Second}
	p.client = &http.Client{Transport: &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           dialer.DialContext,
		TLSHandshakeTimeout:   cfg.ConnectTimeout,
		ResponseHeaderTimeout: cfg.HeaderTimeout,
		IdleConnTimeout:       90 * time.Second,
		MaxIdleConnsPerHost:   4,
		ForceAttemptHTTP2:     true,
	}}
	for _, m := range cfg.Models {
		ref := cfg.Name + "/" + m.refSegment()
		p.models[ref] = m
		p.descs = append(p.descs, descriptor(ref, m))
	}
	for _, o := range opts {
		o(p)
	}
	return p, nil
}

func descriptor(ref string, m ModelConfig) extproto.ProviderDescriptor {
	name := m.DisplayName
	if name == "" {
		name = m.ID
	}
	return extproto.ProviderDescriptor{
		Ref:                ref,
		DisplayName:        name,
		Model:              m.ID,
		ContextWindow:      m.ContextWindow,
		Tools:              m.Tools,
		Vision:             m.Vision,
		Reasoning:          m.Reasoning,
		Efforts:            append([]string(nil), m.Efforts...),
		DefaultEffort:      m.DefaultEffort,
		ReasoningRoundTrip: m.ReasoningRoundTrip,
		PricingCurrency:    m.PricingCurrency,
		InputPerMillion:    m.InputPerMillion,
		OutputPerMillion:   m.OutputPerMillion,
		CacheHitPerMillion: m.CacheHitPerMillion,
	}
}

// Origin is the built-in origin named after the configured provider.
func (p *Provider) Origin() providers.Origin { return providers.Builtin(p.cfg.Name) }

// Models describes the configured models; descriptors carry no endpoint,
// header or key.
func (p *Provider) Models() []extproto.ProviderDescriptor {
	out := make([]extproto.ProviderDescriptor, len(p.descs))
	for i, d := range p.descs {
		d.Efforts = append([]string(nil), d.Efforts...)
		out[i] = d
	}
	return out
}

// Close drops the provider's idle connections.
func (p *Provider) Close() { p.client.CloseIdleConnections() }

// Stream sends req to the server and returns once it started streaming.
// Failures before that are retried (429, 5xx, connection errors) within
// the configured attempts; the error of the last try says what the server
// answered.
func (p *Provider) Stream(ctx context.Context, req providers.Request) (providers.Stream, error) {
	m, ok := p.models[req.Ref]
	if !ok {
		return nil, p.errorf(extproto.ReasonProviderFailed, "", "does not serve %q", req.Ref)
	}
	if err := req.Body.Validate(); err != nil {
		return nil, p.errorf(extproto.ReasonProviderFailed, "", "invalid request for %q: %v", req.Ref, err)
	}
	body, err := buildRequest(m, req.Effort, req.Body)
	if err != nil {
		return nil, p.errorf(extproto.ReasonProviderFailed, "", "%s: %v", req.Ref, err)
	}
	key, err := p.apiKey()
	if err != nil {
		return nil, err
	}
	return p.open(ctx, req.Ref, body, key)
}

// apiKey reads the key from the configured environment variable or key
// file. A variable that is named but unset or empty, or a key file that
// cannot be read or is empty, is an error: sending no key would turn a
// config mistake into a confusing 401.
func (p *Provider) apiKey() (string, error) {
	switch {
	case p.cfg.APIKeyFile != "":
		b, err := os.ReadFile(p.cfg.APIKeyFile)
		if err != nil {
			return "", p.errorf(extproto.ReasonProviderFailed, "", "key file %s (api_key_file) cannot be read: %v", p.cfg.APIKeyFile, pathErr(err))
		}
		key := strings.TrimSpace(string(b))
		if key == "" {
			return "", p.errorf(extproto.ReasonProviderFailed, "", "key file %s (api_key_file) is empty", p.cfg.APIKeyFile)
		}
		// Whatever its shape, the key is a secret to every message the
		// bridge shows from now on, not only to this provider's.
		redact.AddSecrets(key)
		return key, nil
	case p.cfg.APIKeyEnv != "":
		v, ok := p.lookup(p.cfg.APIKeyEnv)
		if !ok || strings.TrimSpace(v) == "" {
			return "", p.errorf(extproto.ReasonProviderFailed, "", "environment variable %s (api_key_env) is not set", p.cfg.APIKeyEnv)
		}
		return strings.TrimSpace(v), nil
	}
	return "", nil
}

// currentKey is the key apiKey would send, or "" when there is none (for
// masking; errors are apiKey's).
func (p *Provider) currentKey() string {
	switch {
	case p.cfg.APIKeyFile != "":
		b, err := os.ReadFile(p.cfg.APIKeyFile)
		if err != nil {
			return ""
		}
		return strings.TrimSpace(string(b))
	case p.cfg.APIKeyEnv != "":
		v, _ := p.lookup(p.cfg.APIKeyEnv)
		return strings.TrimSpace(v)
	}
	return ""
}

// pathErr drops the path an *os.PathError repeats (the message names it).
func pathErr(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// setHeaders puts the configured headers and the key on r.
func (p *Provider) setHeaders(r *http.Request, key string) {
	for k, v := range p.cfg.Headers {
		r.Header.Set(k, v)
	}
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "text/event-stream")
	if key == "" {
		return
	}
	if strings.EqualFold(p.cfg.APIKeyHeader, "Authorization") {
		r.Header.Set("Authorization", "Bearer "+key)
	} else {
		r.Header.Set(p.cfg.APIKeyHeader, key)
	}
}
