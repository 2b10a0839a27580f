package mcphost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"html"

	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"

	"github.com/rx-bridge/rx-bridge/internal/locale"
	"github.com/rx-bridge/rx-bridge/internal/redact"
)

// OAuth for Streamable HTTP servers, as MCP's authorization spec has a
// client do it, on the SDK's client auth (auth.AuthorizationCodeHandler):
// a 401 starts the authorization-code flow with PKCE: protected resource
// and authorization server metadata discovery, dynamic client
// registration of a native client whose redirect URI is a loopback
// listener the host opens for the one flow, the authorization page shown
// through Client.OpenURL, the code exchanged for tokens. Tokens are kept
// per server (Client.TokenDir), refreshed when they expire, and never
// shown: they become known secrets of the redactor.

// authWait bounds how long an authorization waits for the user to finish
// it in the browser. The startup timeout is paused meanwhile.
const authWait = 5 * time.Minute

// oauthClientName is the client_name the host registers with.
const oauthClientName = "rx-bridge"

// storedAuth is a server's token file.
type storedAuth struct {
	// URL is the server's endpoint the tokens are for.
	URL          string        `json:"url"`
	ClientID     string        `json:"client_id"`
	ClientSecret string        `json:"client_secret,omitempty"`
	TokenURL     string        `json:"token_url"`
	AuthStyle    int           `json:"auth_style,omitempty"`
	Token        *oauth2.Token `json:"token"`
}

// oauthHandler is one HTTP server's auth.OAuthHandler, kept across its
// connections.
type oauthHandler struct {
	h      *Host
	server string
	url    string
	path   string // the token file; "" keeps tokens in memory
	client *http.Client
	own    *http.Transport // the client's transport when the host made it

	mu sync.Mutex
	ts oauth2.TokenSource
	// loaded is set once the token file was read.
	loaded bool
}

// oauthOf is server s's OAuth handler for endpoint, kept across its
// connections (a changed endpoint gets a new one); h.mu is not held.
func (h *Host) oauthOf(s *server, endpoint string) *oauthHandler {
	h.mu.Lock()
	defer h.mu.Unlock()
	if s.oauth != nil && s.oauth.url == endpoint {
		return s.oauth
	}
	if s.oauth != nil {
		s.oauth.close()
	}
	o := &oauthHandler{h: h, server: s.cfg.Name, url: endpoint}
	rt := h.opts.HTTPTransport
	if rt == nil {
		o.own = http.DefaultTransport.(*http.Transport).Clone()
		rt = o.own
	}
	o.client = &http.Client{Transport: rt, Timeout: 30 * time.Second}
	if dir := h.opts.TokenDir; dir != "" {
		f := fnv.New32a()
		f.Write([]byte(endpoint))
		o.path = filepath.Join(dir, fmt.Sprintf("%s-%08x.json", Norm(s.cfg.Name), f.Sum32()))
	}
	s.oauth = o
	return o
}

// close drops the handler's idle connections.
func (o *oauthHandler) close() {
	if o.own != nil {
		o.own.CloseIdleConnections()
	}
}

// refreshCtx is the context token refreshes run in: not tied to any one
// request, using the host's HTTP transport.
func (o *oauthHandler) refreshCtx() context.Context {
	return context.WithValue(context.Background(), oauth2.HTTPClient, o.client)
}

// TokenSource returns the server's tokens: the stored ones, refreshed
// when expired, or those of the last authorization; nil before any.
func (o *oauthHandler) TokenSource(context.Context) (oauth2.TokenSource, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.ts == nil && !o.loaded && o.path != "" {
		o.loaded = true
		if st, err := readAuth(o.path); err == nil && st.URL == o.url && st.Token != nil && st.ClientID != "" {
			redact.AddSecrets(st.Token.AccessToken, st.Token.RefreshToken, st.ClientSecret)
			cfg := &oauth2.Config{ClientID: st.ClientID, ClientSecret: st.ClientSecret,
				Endpoint: oauth2.Endpoint{TokenURL: st.TokenURL, AuthStyle: oauth2.AuthStyle(st.AuthStyle)}}
			o.ts = o.saving(cfg, st.Token)
		}
	}
	return o.ts, nil
}

// saving is cfg's refreshing token source that stores every new token.
func (o *oauthHandler) saving(cfg *oauth2.Config, tok *oauth2.Token) oauth2.TokenSource {
	return &savingSource{o: o, cfg: cfg, base: cfg.TokenSource(o.refreshCtx(), tok), last: tok.AccessToken}
}

type savingSource struct {
	o    *oauthHandler
	cfg  *oauth2.Config
	base oauth2.TokenSource

	mu   sync.Mutex
	last string
}

func (s *savingSource) Token() (*oauth2.Token, error) {
	tok, err := s.base.Token()
	if err != nil {
		return nil, redact.Err(err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if tok.AccessToken != s.last {
		s.last = tok.AccessToken
		s.o.store(s.cfg, tok)
	}
	return tok, nil
}

// store remembers the tokens (and the client that may refresh them).
func (o *oauthHandler) store(cfg *oauth2.Config, tok *oauth2.Token) {
	redact.AddSecrets(tok.AccessToken, tok.RefreshToken, cfg.ClientSecret)
	if o.path == "" {
		return
	}
	st := storedAuth{URL: o.url, ClientID: cfg.ClientID, ClientSecret: cfg.ClientSecret, TokenURL: cfg.Endpoint.TokenURL,
		AuthStyle: int(cfg.Endpoint.AuthStyle), Token: tok}
	if err := writeAuth(o.path, st); err != nil {
		o.h.notify(Notice{Server: o.server, Text: redact.String(locale.T("%s: the OAuth tokens could not be stored: %v", o.server, err)), Error: true})
	}
}

// Authorize runs the authorization-code flow after a 401 (or a 403 asking
// for more scope).
func (o *oauthHandler) Authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	if o.h.opts.OpenURL == nil {
		resp.Body.Close()
		return fmt.Errorf("the server requires OAuth authorization, which needs an editor to open its page")
	}
	if c, ok := ctx.Value(startClockKey{}).(*startClock); ok {
		c.pause()
		defer c.resume()
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		resp.Body.Close()
		return fmt.Errorf("listening for the OAuth redirect: %w", err)
	}
	redirect := fmt.Sprintf("http://127.0.0.1:%d/callback", ln.Addr().(*net.TCPAddr).Port)
	results := make(chan *auth.AuthorizationResult, 1)
	failures := make(chan string, 1)
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/callback" {
			http.NotFound(w, r)
			return
		}
		q := r.URL.Query()
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if e := q.Get("error"); e != "" {
			fmt.Fprintf(w, "<p>%s</p>", html.EscapeString(locale.T("The authorization failed: %s. You can close this page.", e)))
			select {
			case failures <- e + " " + q.Get("error_description"):
			default:
			}
			return
		}
		fmt.Fprintf(w, "<p>%s</p>", html.EscapeString(locale.T("rx-bridge is authorized. You can close this page.")))
		select {
		case results <- &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}:
		default:
		}
	})}
	served := make(chan struct{})
	go func() {
		defer close(served)
		_ = srv.Serve(ln)
	}()
	defer func() {
		_ = srv.Close()
		<-served
	}()
	inner, err := auth.NewAuthorizationCodeHandler(&auth.AuthorizationCodeHandlerConfig{
		DynamicClientRegistrationConfig: &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
			RedirectURIs: []string{redirect}, ClientName: oauthClientName, TokenEndpointAuthMethod: "none",
			GrantTypes: []string{"authorization_code", "refresh_token"}, ResponseTypes: []string{"code"},
		}},
		RedirectURL:         redirect,
		RequestRefreshToken: true,
		Client:              o.client,
		AuthorizationCodeFetcher: func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
			if err := o.h.opts.OpenURL(ctx, o.server, args.URL); err != nil {
				return nil, fmt.Errorf("opening the authorization page: %w", err)
			}
			t := time.NewTimer(authWait)
			defer t.Stop()
			select {
			case r := <-results:
				return r, nil
			case e := <-failures:
				return nil, fmt.Errorf("the authorization server answered: %s", e)
			case <-t.C:
				return nil, fmt.Errorf("the authorization was not finished within %s", authWait)
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		},
		NewTokenSource: func(_ context.Context, cfg *oauth2.Config, tok *oauth2.Token) (oauth2.TokenSource, error) {
			o.store(cfg, tok)
			ts := o.saving(cfg, tok)
			o.mu.Lock()
			o.ts = ts
			o.mu.Unlock()
			return ts, nil
		},
	})
	if err != nil {
		resp.Body.Close()
		return err
	}
	if err := inner.Authorize(ctx, req, resp); err != nil {
		return redact.Err(fmt.Errorf("OAuth authorization: %w", err))
	}
	return nil
}

func readAuth(path string) (*storedAuth, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var st storedAuth
	if err := json.Unmarshal(b, &st); err != nil {
		return nil, err
	}
	return &st, nil
}

// writeAuth writes the token file atomically, readable by its owner
// only.
func writeAuth(path string, st storedAuth) error {
	b, err := json.Marshal(st)
	if err != nil {
		return err
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".token-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	// CreateTemp makes the file 0600 already; Chmod keeps that true
	// whatever the platform's default.
	err = f.Chmod(0o600)
	if err == nil || errors.Is(err, errors.ErrUnsupported) {
		_, err = f.Write(b)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// startClock is the startup timeout, paused while an authorization waits
// for the user.
type startClock struct {
	mu      sync.Mutex
	d       time.Duration
	timer   *time.Timer
	paused  int
	expired bool
	cancel  context.CancelFunc
}

type startClockKey struct{}

// withStartClock bounds ctx by d, pausable through the clock.
func withStartClock(parent context.Context, d time.Duration) (context.Context, *startClock, context.CancelFunc) {
	ctx, cancel := context.WithCancel(parent)
	c := &startClock{d: d, cancel: cancel}
	c.timer = time.AfterFunc(d, c.expire)
	ctx = context.WithValue(ctx, startClockKey{}, c)
	return ctx, c, func() {
		c.mu.Lock()
		c.timer.Stop()
		c.mu.Unlock()
		cancel()
	}
}

func (c *startClock) expire() {
	c.mu.Lock()
	if c.paused > 0 {
		c.mu.Unlock()
		return
	}
	c.expired = true
	c.mu.Unlock()
	c.cancel()
}

func (c *startClock) pause() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.paused++
	c.timer.Stop()
}

// resume restarts the full timeout once nothing pauses it.
func (c *startClock) resume() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.paused--
	if c.paused == 0 && !c.expired {
		c.timer.Reset(c.d)
	}
}

// expiredNow reports whether the timeout ended the startup.
func (c *startClock) expiredNow() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.expired
}
