package mcphost

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/rx-bridge/rx-bridge/internal/redact"
)

// fakeAuthServer is an OAuth 2.1 authorization server on 127.0.0.1 for
// one resource: RFC 8414 metadata, dynamic client registration, the
// authorization endpoint (which, as a signed-in user would, grants at
// once and redirects to the client's registered redirect URI), and the
// token endpoint with PKCE S256 and refresh tokens.
type fakeAuthServer struct {
	srv *httptest.Server

	mu        sync.Mutex
	clients   map[string][]string // client id → redirect URIs
	codes     map[string]authCode
	access    map[string]bool // valid access tokens
	refresh   map[string]bool // valid refresh tokens
	grants    []string        // the grant types served, in order
	authorize int             // authorization requests
}

type authCode struct {
	client, redirect, challenge, resource string
}

func token() string {
	b := make([]byte, 24)
	rand.Read(b)
	return "tok_" + base64.RawURLEncoding.EncodeToString(b)
}

func newFakeAuthServer(t *testing.T) *fakeAuthServer {
	a := &fakeAuthServer{clients: map[string][]string{}, codes: map[string]authCode{}, access: map[string]bool{}, refresh: map[string]bool{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		u := a.srv.URL
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"issuer": u, "authorization_endpoint": u + "/authorize", "token_endpoint": u + "/token", "registration_endpoint": u + "/register",
			"response_types_supported": []string{"code"}, "grant_types_supported": []string{"authorization_code", "refresh_token"},
			"code_challenge_methods_supported": []string{"S256"}, "token_endpoint_auth_methods_supported": []string{"none"},
			"scopes_supported": []string{"tools", "offline_access"},
		})
	})
	mux.HandleFunc("POST /register", func(w http.ResponseWriter, r *http.Request) {
		var m oauthex.ClientRegistrationMetadata
		if err := json.NewDecoder(r.Body).Decode(&m); err != nil || len(m.RedirectURIs) == 0 {
			http.Error(w, `{"error":"invalid_client_metadata"}`, http.StatusBadRequest)
			return
		}
		id := "client-" + token()
		a.mu.Lock()
		a.clients[id] = m.RedirectURIs
		a.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		json.NewEncoder(w).Encode(map[string]any{"client_id": id, "redirect_uris": m.RedirectURIs, "token_endpoint_auth_method": "none"})
	})
	mux.HandleFunc("GET /authorize", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		a.mu.Lock()
		defer a.mu.Unlock()
		a.authorize++
		redirects := a.clients[q.Get("client_id")]
		redirect := q.Get("redirect_uri")
		if !contains(redirects, redirect) || q.Get("response_type") != "code" || q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" {
			http.Error(w, "bad authorization request", http.StatusBadRequest)
			return
		}
		code := token()
		a.codes[code] = authCode{client: q.Get("client_id"), redirect: redirect, challenge: q.Get("code_challenge"), resource: q.Get("resource")}
		http.Redirect(w, r, redirect+"?"+url.Values{"code": {code}, "state": {q.Get("state")}}.Encode(), http.StatusFound)
	})
	mux.HandleFunc("POST /token", func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		a.mu.Lock()
		defer a.mu.Unlock()
		grant := r.PostForm.Get("grant_type")
		a.grants = append(a.grants, grant)
		fail := func() {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprint(w, `{"error":"invalid_grant"}`)
		}
		switch grant {
		case "authorization_code":
			c, ok := a.codes[r.PostForm.Get("code")]
			delete(a.codes, r.PostForm.Get("code"))
			sum := sha256.Sum256([]byte(r.PostForm.Get("code_verifier")))
			if !ok || c.client != r.PostForm.Get("client_id") || c.redirect != r.PostForm.Get("redirect_uri") ||
				base64.RawURLEncoding.EncodeToString(sum[:]) != c.challenge {
				fail()
				return
			}
		case "refresh_token":
			if !a.refresh[r.PostForm.Get("refresh_token")] {
				fail()
				return
			}
			delete(a.refresh, r.PostForm.Get("refresh_token"))
		default:
			fail()
			return
		}
		at, rt := token(), token()
		a.access[at], a.refresh[rt] = true, true
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"access_token": at, "refresh_token": rt, "token_type": "Bearer", "expires_in": 3600})
	})
	a.srv = httptest.NewServer(mux)
	t.Cleanup(a.srv.Close)
	return a
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// newProtectedServer is a Streamable HTTP MCP server on 127.0.0.1 that
// accepts only the fake authorization server's access tokens, with
// RFC 9728 protected resource metadata naming that server.
func newProtectedServer(t *testing.T, as *fakeAuthServer) string {
	s := mcp.NewServer(&mcp.Implementation{Name: "protected", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: "secret-tool", Description: "needs authorization", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "authorized as " + r.Extra.TokenInfo.UserID}}}, nil
		})
	var srv *httptest.Server
	verify := func(_ context.Context, tok string, _ *http.Request) (*auth.TokenInfo, error) {
		as.mu.Lock()
		defer as.mu.Unlock()
		if !as.access[tok] {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{UserID: "ada", Expiration: time.Now().Add(time.Hour)}, nil
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(oauthex.ProtectedResourceMetadata{Resource: srv.URL + "/mcp", AuthorizationServers: []string{as.srv.URL}, ScopesSupported: []string{"tools"}})
	})
	handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
	mux.Handle("/mcp", auth.RequireBearerToken(verify, &auth.RequireBearerTokenOptions{})(handler))
	srv = httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp"
}

// browser is the editor's "open this URL": it follows the authorization
// page to its redirect, as a browser whose user is signed in does.
type browser struct {
	mu     sync.Mutex
	opened []string
}

func (b *browser) open(ctx context.Context, server, u string) error {
	b.mu.Lock()
	b.opened = append(b.opened, server+" "+u)
	b.mu.Unlock()
	go func() {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
		http.DefaultClient.CloseIdleConnections()
	}()
	return nil
}

func (b *browser) count() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.opened)
}

// A Streamable HTTP server that requires OAuth is connected through the
// whole flow (metadata discovery, dynamic registration, the page opened
// through the editor, the redirect to the loopback listener, the code
// exchanged with PKCE) and its tool called; the tokens are stored 0600
// and serve the next host without a new authorization, refreshed when
// they have expired; they never reach a text anyone sees.
func TestOAuthAuthorizationCodeFlow(t *testing.T) {
	t.Parallel()
	as := newFakeAuthServer(t)
	endpoint := newProtectedServer(t, as)
	dir := filepath.Join(t.TempDir(), "mcp-auth")
	srv := Server{Name: "protected", URL: endpoint, Source: SourceUser}

	b := &browser{}
	h, n, _ := newHost(t, []Server{srv}, Options{Client: Client{OpenURL: b.open, TokenDir: dir}})
	ctx := ctxT(t)
	if _, err := h.Connect(ctx, "protected"); err != nil {
		t.Fatalf("Connect: %v", err)
	}
	r, err := h.Call(ctx, "mcp__protected__secret-tool", json.RawMessage(`{}`))
	if err != nil || r.Text != "authorized as ada" {
		t.Fatalf("call = %+v, %v", r, err)
	}
	if b.count() != 1 || !strings.HasPrefix(b.opened[0], "protected "+as.srv.URL+"/authorize?") || !strings.Contains(b.opened[0], "code_challenge_method=S256") {
		t.Errorf("opened %q", b.opened)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "protected-*.json"))
	if len(files) != 1 {
		t.Fatalf("token files %v", files)
	}
	fi, err := os.Stat(files[0])
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
		t.Errorf("token file mode %v", fi.Mode().Perm())
	}
	st, err := readAuth(files[0])
	if err != nil || st.Token == nil || !as.access[st.Token.AccessToken] || st.URL != endpoint || st.ClientID == "" {
		t.Fatalf("stored %+v, %v", st, err)
	}
	if got := redact.String("Bearer " + st.Token.AccessToken + " " + st.Token.RefreshToken); strings.Contains(got, st.Token.AccessToken) || strings.Contains(got, st.Token.RefreshToken) {
		t.Errorf("tokens are not redacted: %q", got)
	}
	n.mu.Lock()
	for _, x := range n.list {
		if strings.Contains(x.Text, st.Token.AccessToken) {
			t.Errorf("a notice shows the token: %q", x.Text)
		}
	}
	n.mu.Unlock()
	h.Close()

	// The next host uses the stored token: no page opened.
	b2 := &browser{}
	h2, _, _ := newHost(t, []Server{srv}, Options{Client: Client{OpenURL: b2.open, TokenDir: dir}})
	if _, err := h2.Connect(ctx, "protected"); err != nil {
		t.Fatal(err)
	}
	if r, err := h2.Call(ctx, "mcp__protected__secret-tool", json.RawMessage(`{}`)); err != nil || r.Text != "authorized as ada" || b2.count() != 0 {
		t.Errorf("with the stored token: %+v, %v, %d pages opened", r, err, b2.count())
	}
	h2.Close()

	// An expired stored token is refreshed, and the new one stored.
	st.Token.Expiry = time.Now().Add(-time.Hour)
	if err := writeAuth(files[0], *st); err != nil {
		t.Fatal(err)
	}
	b3 := &browser{}
	h3, _, _ := newHost(t, []Server{srv}, Options{Client: Client{OpenURL: b3.open, TokenDir: dir}})
	if _, err := h3.Connect(ctx, "protected"); err != nil {
		t.Fatal(err)
	}
	if r, err := h3.Call(ctx, "mcp__protected__secret-tool", json.RawMessage(`{}`)); err != nil || r.Text != "authorized as ada" || b3.count() != 0 {
		t.Errorf("after the refresh: %+v, %v, %d pages opened", r, err, b3.count())
	}
	now, err := readAuth(files[0])
	if err != nil || now.Token.AccessToken == st.Token.AccessToken || !as.access[now.Token.AccessToken] {
		t.Errorf("after the refresh the file holds %+v, %v", now, err)
	}
	as.mu.Lock()
	if got := strings.Join(as.grants, ","); got != "authorization_code,refresh_token" {
		t.Errorf("grants served: %s", got)
	}
	as.mu.Unlock()
	h3.Close()

	// A refresh token the server no longer accepts (invalid_grant)
	// leads to a new authorization.
	now.Token.Expiry = time.Now().Add(-time.Hour)
	if err := writeAuth(files[0], *now); err != nil {
		t.Fatal(err)
	}
	as.mu.Lock()
	clear(as.refresh)
	as.mu.Unlock()
	b5 := &browser{}
	h5, _, _ := newHost(t, []Server{srv}, Options{Client: Client{OpenURL: b5.open, TokenDir: dir}})
	if _, err := h5.Connect(ctx, "protected"); err != nil {
		t.Fatal(err)
	}
	if r, err := h5.Call(ctx, "mcp__protected__secret-tool", json.RawMessage(`{}`)); err != nil || r.Text != "authorized as ada" || b5.count() != 1 {
		t.Errorf("after a refused refresh: %+v, %v, %d pages opened", r, err, b5.count())
	}
	h5.Close()

	// Without a way to open the page, the server fails, saying why.
	h4, _, _ := newHost(t, []Server{srv}, Options{})
	if _, err := h4.Connect(ctx, "protected"); err == nil {
		t.Errorf("Connect without OpenURL succeeded")
	}
}

// The startup timeout does not run out while an authorization waits for
// the user: a timer that fires while paused is ignored, and resuming
// restarts it.
func TestStartClockPause(t *testing.T) {
	t.Parallel()
	ctx, c, cancel := withStartClock(context.Background(), time.Hour)
	defer cancel()
	if got, _ := ctx.Value(startClockKey{}).(*startClock); got != c {
		t.Fatal("the clock is not in the context")
	}
	c.pause()
	c.expire() // fired while paused
	if c.expiredNow() || ctx.Err() != nil {
		t.Fatal("expired while paused")
	}
	c.resume()
	if c.expiredNow() || ctx.Err() != nil {
		t.Fatal("expired on resume")
	}
	c.expire()
	if !c.expiredNow() || ctx.Err() == nil {
		t.Fatal("did not expire")
	}
}
