package openai

import (
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
)

// Config is one `[[providers.openai]]` table of the bridge's config.toml:
// one server and the models it serves. It holds the *name* of the
// environment variable with the API key, or the path of a file holding it
// (api_key_file, which `rx-bridge setup` writes with mode 0600), never the
// key, so the file can be shared and committed.
type Config struct {
	// Name is the first segment of every ref this server's models get:
	// `<name>/<model>`.
	Name string `toml:"name"`
	// BaseURL is the API root, ending before `/chat/completions`
	// (e.g. http://127.0.0.1:8080/v1).
	BaseURL string `toml:"base_url"`
	// APIKeyEnv names the environment variable holding the API key; empty
	// for servers without authentication.
	APIKeyEnv string `toml:"api_key_env"`
	// APIKeyFile is the path of a file holding the API key (its content,
	// trimmed of surrounding white space), read on every request like
	// APIKeyEnv. It must be absolute here; the runtime resolves a relative
	// path in config.toml against the bridge home before New. At most one
	// of APIKeyEnv and APIKeyFile is set.
	APIKeyFile string `toml:"api_key_file"`
	// APIKeyHeader is the header that carries the key: "Authorization"
	// (the default) sends "Bearer <key>"; any other name sends the bare key,
	// for servers such as Azure that want `api-key`.
	APIKeyHeader string `toml:"api_key_header"`
	// Headers are extra request headers. Credential-looking names are
	// refused: credentials belong in the environment, not the file. The
	// values (8 bytes or more) are still masked in every message the
	// bridge shows (redact.AddSecrets), since a server may echo them.
	Headers map[string]string `toml:"headers"`
	// ConnectTimeout bounds dialing and the TLS handshake (default 10s).
	ConnectTimeout time.Duration `toml:"connect_timeout"`
	// HeaderTimeout bounds the wait for response headers once the request
	// is sent (default 120s: a local server may process a long prompt
	// before it answers).
	HeaderTimeout time.Duration `toml:"header_timeout"`
	// IdleTimeout bounds the silence between two reads of the streamed body
	// (default 120s).
	IdleTimeout time.Duration `toml:"idle_timeout"`
	// MaxAttempts bounds the tries of one request, the first included
	// (default 4; 1 disables retries).
	MaxAttempts int `toml:"max_attempts"`
	// Models are the models this server offers to sessions.
	Models []ModelConfig `toml:"models"`
}

// ModelConfig is one `[[providers.openai.models]]` table.
type ModelConfig struct {
	// ID is the model name the server expects in the request body.
	ID string `toml:"id"`
	// RefName is the model segment of the ref; it defaults to ID and must be
	// set when ID contains a slash (vLLM and Hugging Face ids often do).
	RefName string `toml:"ref_name"`
	// DisplayName is what a model picker shows; defaults to ID.
	DisplayName   string `toml:"display_name"`
	ContextWindow int    `toml:"context_window"`
	Tools         bool   `toml:"tools"`
	Vision        bool   `toml:"vision"`
	Reasoning     bool   `toml:"reasoning"`
	// Efforts are the accepted reasoning efforts, sent as
	// `reasoning_effort`; empty means the server takes none.
	Efforts       []string `toml:"efforts"`
	DefaultEffort string   `toml:"default_effort"`
	// ReasoningRoundTrip sends earlier assistant reasoning back as
	// `reasoning_content`; some servers need it, others reject it.
	ReasoningRoundTrip bool    `toml:"reasoning_round_trip"`
	PricingCurrency    string  `toml:"pricing_currency"`
	InputPerMillion    float64 `toml:"input_per_million"`
	OutputPerMillion   float64 `toml:"output_per_million"`
	CacheHitPerMillion float64 `toml:"cache_hit_per_million"`
}

// Defaults for the zero values of Config.
const (
	DefaultConnectTimeout = 10 * time.Second
	DefaultHeaderTimeout  = 120 * time.Second
	DefaultIdleTimeout    = 120 * time.Second
	DefaultMaxAttempts    = 4
)

var (
	namePattern   = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)
	envPattern    = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	headerPattern = regexp.MustCompile("^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")
	// secretHeader matches header names that carry credentials.
	secretHeader = regexp.MustCompile(`(?i)auth|key|token|secret|password|cookie`)
)

// Validate reports every problem of c, each naming the provider and the
// offending field, joined into one error.
func (c Config) Validate() error {
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("providers.openai %q: "+format, append([]any{c.Name}, args...)...))
	}
	if !namePattern.MatchString(c.Name) {
		bad("name must match %s", namePattern)
	}
	if u, err := url.Parse(c.BaseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		bad("base_url must be an absolute http(s) URL")
	} else if u.User != nil {
		bad("base_url must not carry credentials; name an environment variable in api_key_env")
	} else if u.RawQuery != "" || u.Fragment != "" {
		bad("base_url must not have a query or fragment")
	}
	if c.APIKeyEnv != "" && !envPattern.MatchString(c.APIKeyEnv) {
		bad("api_key_env must be an environment variable name")
	}
	if c.APIKeyHeader != "" && !headerPattern.MatchString(c.APIKeyHeader) {
		bad("api_key_header %q is not a valid header name", c.APIKeyHeader)
	}
	if c.APIKeyEnv != "" && c.APIKeyFile != "" {
		bad("api_key_env and api_key_file exclude each other; set one")
	}
	if c.APIKeyFile != "" && !filepath.IsAbs(c.APIKeyFile) {
		bad("api_key_file must be an absolute path (in config.toml, a relative path is relative to the bridge home)")
	}
	if c.APIKeyHeader != "" && c.APIKeyEnv == "" && c.APIKeyFile == "" {
		bad("api_key_header needs api_key_env or api_key_file")
	}
	for _, name := range sortedKeys(c.Headers) {
		switch {
		case !headerPattern.MatchString(name):
			bad("headers: %q is not a valid header name", name)
		case secretHeader.MatchString(name):
			bad("headers: %q looks like a credential; put the key in the environment variable named by api_key_env", name)
		case strings.ContainsAny(c.Headers[name], "\r\n"):
			bad("headers: value of %q contains a line break", name)
		}
	}
	for field, d := range map[string]time.Duration{"connect_timeout": c.ConnectTimeout, "header_timeout": c.HeaderTimeout, "idle_timeout": c.IdleTimeout} {
		if d < 0 {
			bad("%s must not be negative", field)
		}
	}
	if c.MaxAttempts < 0 {
		bad("max_attempts must not be negative")
	}
	if len(c.Models) == 0 {
		bad("models: at least one [[providers.openai.models]] is required")
	}
	seen := map[string]bool{}
	for i, m := range c.Models {
		for _, err := range m.validate() {
			bad("models[%d] (%q): %v", i, m.ID, err)
		}
		if seg := m.refSegment(); seen[seg] {
			bad("models[%d]: ref %q is declared twice", i, c.Name+"/"+seg)
		} else {
			seen[seg] = true
		}
	}
	slices.SortStableFunc(errs, func(a, b error) int { return strings.Compare(a.Error(), b.Error()) })
	return errors.Join(errs...)
}

func (m ModelConfig) validate() []error {
	var errs []error
	if strings.TrimSpace(m.ID) == "" {
		errs = append(errs, errors.New("id is required"))
	}
	seg := m.refSegment()
	if m.RefName == "" && strings.Contains(m.ID, "/") {
		errs = append(errs, errors.New("id contains a slash; set ref_name to the model segment of its ref"))
	} else if seg != "" && (strings.ContainsAny(seg, "/ \t\r\n")) {
		errs = append(errs, fmt.Errorf("ref_name %q must not contain a slash or whitespace", seg))
	}
	if m.ContextWindow < 0 {
		errs = append(errs, errors.New("context_window must not be negative"))
	}
	for _, p := range []float64{m.InputPerMillion, m.OutputPerMillion, m.CacheHitPerMillion} {
		if p < 0 {
			errs = append(errs, errors.New("prices must not be negative"))
			break
		}
	}
	seen := map[string]bool{}
	for _, e := range m.Efforts {
		if strings.TrimSpace(e) == "" || seen[e] {
			errs = append(errs, fmt.Errorf("efforts must be distinct non-empty strings, got %q", m.Efforts))
			break
		}
		seen[e] = true
	}
	if m.DefaultEffort != "" && !seen[m.DefaultEffort] {
		errs = append(errs, fmt.Errorf("default_effort %q is not one of efforts %q", m.DefaultEffort, m.Efforts))
	}
	return errs
}

// refSegment is the model part of the model's ref.
func (m ModelConfig) refSegment() string {
	if m.RefName != "" {
		return m.RefName
	}
	return m.ID
}

// withDefaults returns c with zero timeouts and attempts replaced by the
// documented defaults.
func (c Config) withDefaults() Config {
	if c.ConnectTimeout == 0 {
		c.ConnectTimeout = DefaultConnectTimeout
	}
	if c.HeaderTimeout == 0 {
		c.HeaderTimeout = DefaultHeaderTimeout
	}
	if c.IdleTimeout == 0 {
		c.IdleTimeout = DefaultIdleTimeout
	}
	if c.MaxAttempts == 0 {
		c.MaxAttempts = DefaultMaxAttempts
	}
	if c.APIKeyHeader == "" {
		c.APIKeyHeader = "Authorization"
	}
	return c
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
