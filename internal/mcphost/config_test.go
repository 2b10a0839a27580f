package mcphost

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rx-bridge/rx-bridge/internal/manifest"
)

func TestNorm(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, want string }{
		{"echo", "echo"},
		{"get-sum", "get-sum"},
		{"Tool_9", "Tool_9"},
		{"odd name!", "odd_name_fc53dd"},
		{"__x__", "x_d48d7a"},
		{"get.sum", "get_sum_0b0a9c"},
		{"日本", "unnamed_9f26ee"},
		{"", "unnamed_811c9d"},
	} {
		if got := Norm(c.in); got != c.want {
			t.Errorf("Norm(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if got := ToolName("my server", "get.sum"); got != "mcp__my_server_"+Norm("my server")[len("my_server_"):]+"__get_sum_0b0a9c" {
		t.Errorf("ToolName = %q", got)
	}
}

func TestExpandVars(t *testing.T) {
	t.Parallel()
	env := map[string]string{"A": "1", "EMPTY": ""}
	getenv := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	for _, c := range []struct{ in, want string }{
		{"x${A}y", "x1y"},
		{"${B}", ""},
		{"${B:-dflt}", "dflt"},
		{"${A:-dflt}", "1"},
		{"${EMPTY:-dflt}", "dflt"},
		{"${EMPTY}", ""},
		{"$A and %A%", "$A and %A%"},
		{"${A", "${A"},
		{"${A}${A}/${B:-b}/", "11/b/"},
	} {
		if got := expandVars(c.in, getenv); got != c.want {
			t.Errorf("expandVars(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// writePackage writes a package root: the manifest of the kind and extra
// files, and parses the manifest as install would.
func writePackage(t *testing.T, kind manifest.Kind, manifestJSON string, files map[string]string) (string, *manifest.Manifest) {
	t.Helper()
	root := t.TempDir()
	files[kind.File()] = manifestJSON
	for rel, body := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	m, err := manifest.Parse(kind, []byte(manifestJSON))
	if err != nil {
		t.Fatal(err)
	}
	return root, m
}

func TestLoadMergesInstalledPluginMCP(t *testing.T) {
	t.Parallel()
	root, m := writePackage(t, manifest.KindReasonix, `{"apiVersion":"reasonix.io/plugin/v1","name":"tools-pkg","version":"1.2.0",
		"contributes":{"mcpServers":{
			"search":{"command":"bin/search","args":["--root","${CLAUDE_PLUGIN_ROOT}/data"],"auto_start":false},
			"notes":{"url":"https://notes.example/mcp","headers":{"Authorization":"Bearer ${NOTES_TOKEN}"}},
			"dup":{"command":"node"}}}}`, map[string]string{})
	ws := t.TempDir()
	pkg, warnings := PackageServers(Package{Name: "tools", Root: root, Version: "1.2.0", Manifest: m}, ws)
	if len(warnings) != 0 || len(pkg) != 3 {
		t.Fatalf("servers %+v, warnings %v", pkg, warnings)
	}
	byName := map[string]Server{}
	for _, s := range pkg {
		byName[s.Name] = s
		if s.Source != SourcePackage || s.Owner != "tools" || s.Imported {
			t.Errorf("%s: source %q owner %q imported %v", s.Name, s.Source, s.Owner, s.Imported)
		}
		want := map[string]string{"REASONIX_PLUGIN_ROOT": root, "REASONIX_PLUGIN_NAME": "tools", "CLAUDE_PLUGIN_ROOT": root,
			"CLAUDE_PROJECT_DIR": ws, "REASONIX_WORKSPACE_ROOT": ws, "REASONIX_PLUGIN_VERSION": "1.2.0"}
		for k, v := range want {
			if s.Env[k] != v {
				t.Errorf("%s: env %s = %q, want %q", s.Name, k, s.Env[k], v)
			}
		}
	}
	search := byName["search"]
	if search.Command != filepath.Join(root, "bin", "search") || search.Args[1] != filepath.Join(root, "data") || search.AutoStart {
		t.Errorf("search = %+v", search)
	}
	if n := byName["notes"]; !n.AutoStart || n.Headers["Authorization"] != "Bearer ${NOTES_TOKEN}" || n.Target() != "https://notes.example/mcp" {
		t.Errorf("notes = %+v", n)
	}
	if d := byName["dup"]; d.Command != "node" {
		t.Errorf("a bare command is looked up on PATH, not joined to the root: %q", d.Command)
	}

	user := []Server{{Name: "dup", Command: "my-dup", Source: SourceUser, AutoStart: true}}
	merged, warnings := Merge(user, pkg)
	if got := []string{merged[0].Name, merged[0].Command}; !slices.Equal(got, []string{"dup", "my-dup"}) {
		t.Errorf("the user's server lost: %+v", merged[0])
	}
	if len(merged) != 3 || !slices.Equal(warnings, []string{`tools: plugin MCP server "dup" skipped because config already defines that name`}) {
		t.Errorf("merged %d servers, warnings %q", len(merged), warnings)
	}
}

// TestClaudePackageMCPExpandsRootAndStartsWithTheSession: a Claude
// .mcp.json's servers start with the session, as Claude Code starts them
// (Reasonix imports them stopped: TestPackageMCPAutoStartByFormat).
func TestClaudePackageMCPExpandsRootAndStartsWithTheSession(t *testing.T) {
	t.Parallel()
	root, m := writePackage(t, manifest.KindClaude, `{"name":"db-tools"}`, map[string]string{
		".mcp.json": `{"mcpServers":{
			"db":{"command":"${CLAUDE_PLUGIN_ROOT}/servers/db-server","args":["--config","$CLAUDE_PLUGIN_ROOT/config.json","--project","${CLAUDE_PROJECT_DIR}"],
			      "env":{"DB_PATH":"${CLAUDE_PROJECT_DIR}/data","KEEP":"${REASONIX_PLUGIN_ROOT}/x"}},
			"remote":{"type":"streamable-http","url":"https://api.example/mcp","title":"Remote API"},
			"local":{"type":"local","command":"npx","args":["-y","@acme/mcp"]}}}`,
	})
	ws := t.TempDir()
	servers, warnings := PackageServers(Package{Name: "db", Root: root, Manifest: m}, ws)
	if len(warnings) != 0 || len(servers) != 3 {
		t.Fatalf("servers %+v, warnings %v", servers, warnings)
	}
	for _, s := range servers {
		if !s.AutoStart || !s.Imported {
			t.Errorf("%s: auto_start %v imported %v; a .mcp.json server starts with the session", s.Name, s.AutoStart, s.Imported)
		}
	}
	db := servers[0]
	if db.Name != "db" || db.Command != filepath.Join(root, "servers", "db-server") {
		t.Errorf("db command = %q", db.Command)
	}
	if want := []string{"--config", filepath.Join(root, "config.json"), "--project", ws}; !slices.Equal(db.Args, want) {
		t.Errorf("db args = %q, want %q", db.Args, want)
	}
	if db.Env["DB_PATH"] != filepath.Join(ws, "data") {
		t.Errorf("DB_PATH = %q", db.Env["DB_PATH"])
	}
	// ${REASONIX_PLUGIN_ROOT} is not a placeholder here (the reference's
	// quirk): it stays, and at connect time it is an ordinary ${VAR} of
	// the host's environment.
	if db.Env["KEEP"] != "${REASONIX_PLUGIN_ROOT}/x" {
		t.Errorf("KEEP = %q", db.Env["KEEP"])
	}
	if x := db.expanded(func(string) (string, bool) { return "", false }); x.Env["KEEP"] != "/x" || x.Env["REASONIX_PLUGIN_ROOT"] != root {
		t.Errorf("at connect time KEEP = %q, REASONIX_PLUGIN_ROOT = %q", x.Env["KEEP"], x.Env["REASONIX_PLUGIN_ROOT"])
	}
	if l := servers[1]; l.Name != "local" || l.Type != TypeStdio || l.Command != "npx" {
		t.Errorf("local = %+v", l)
	}
	if r := servers[2]; r.Type != TypeHTTP || r.DisplayName != "Remote API" {
		t.Errorf("remote = %+v", r)
	}
}

func TestClaudeMCPServerIDUsesConnectionIdentityAndPreservesValidNames(t *testing.T) {
	t.Parallel()
	decls, warnings, err := importClaude([]byte(`{
		"github":{"command":"npx","args":["-y","@acme/mcp"]},
		"my server!":{"command":"npx","args":["-y","@acme/mcp"]},
		"other one!":{"command":"npx","args":["-y","@acme/mcp"]},
		"bad":{"type":"websocket","url":"ws://x"},
		"nothing":{},
		"wrong":{"args":"not a list","command":"x"}}`))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range decls {
		names = append(names, d.name)
	}
	// The ID hashes the connection, not the name: "my server!" and
	// "other one!" run the same thing, so they get the same hash.
	want := []string{"github", "my_server_cd711f6d", "other_one_cd711f6d"}
	if !slices.Equal(names, want) {
		t.Errorf("names = %q, want %q", names, want)
	}
	if len(warnings) != 3 {
		t.Errorf("warnings = %q; want one per bad entry", warnings)
	}
	for _, w := range []string{`"bad" uses unsupported transport "websocket"`, `"nothing" command is required`, `"wrong" skipped`} {
		if !slices.ContainsFunc(warnings, func(s string) bool { return strings.Contains(s, w) }) {
			t.Errorf("no warning says %s: %q", w, warnings)
		}
	}
	for _, bad := range []string{`[]`, `"x"`, `{"mcpServers":[1]}`, `nope`} {
		if _, _, err := importClaude([]byte(bad)); err == nil {
			t.Errorf("importClaude(%s) accepted it", bad)
		}
	}
	if d, _, err := importClaude([]byte(`{"x":{"command":"a"}}`)); err != nil || len(d) != 1 {
		t.Errorf("a bare server map: %v %v", d, err)
	}
}

func TestClaudePackageMCPDeduplicatesSameConnectionAcrossPackages(t *testing.T) {
	t.Parallel()
	same := `{"mcpServers":{"acme":{"command":"npx","args":["-y","@acme/mcp"]}}}`
	var pkg []Server
	for i, body := range []string{same, same, `{"mcpServers":{"acme":{"command":"npx","args":["-y","@other/mcp"]}}}`} {
		name := []string{"alpha", "beta", "gamma"}[i]
		root, m := writePackage(t, manifest.KindClaude, `{"name":"`+name+`"}`, map[string]string{".mcp.json": body})
		s, w := PackageServers(Package{Name: name, Root: root, Manifest: m}, "")
		if len(w) != 0 {
			t.Fatal(w)
		}
		pkg = append(pkg, s...)
	}
	merged, warnings := Merge(nil, pkg)
	if len(merged) != 1 || merged[0].Owner != "alpha" {
		t.Errorf("merged = %+v", merged)
	}
	if !slices.Equal(warnings, []string{`gamma: plugin MCP server "acme" conflicts with package alpha and was skipped`}) {
		t.Errorf("warnings = %q", warnings)
	}
}

// A legacy manifest's mcpServers: inline or a path to a file; the root
// .mcp.json comes after the manifest's and loses a name clash.
func TestLegacyManifestMCPServers(t *testing.T) {
	t.Parallel()
	root, m := writePackage(t, manifest.KindClaude, `{"name":"legacy","mcpServers":"./config/servers.json"}`, map[string]string{
		"config/servers.json": `{"mcpServers":{"a":{"command":"./bin/a"}}}`,
		".mcp.json":           `{"a":{"command":"other"},"b":{"url":"http://127.0.0.1:1/mcp"}}`,
	})
	servers, warnings := PackageServers(Package{Name: "legacy", Root: root, Manifest: m}, "")
	if len(servers) != 2 || servers[0].Command != filepath.Join(root, "bin", "a") || servers[1].Name != "b" {
		t.Errorf("servers = %+v", servers)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], `MCP server "a" from .mcp.json skipped: already defined by ./config/servers.json`) {
		t.Errorf("warnings = %q", warnings)
	}
	root2, m2 := writePackage(t, manifest.KindReasonix, `{"name":"native","mcpServers":{"n":{"command":"x","auto_start":true},"o":{"command":"y","auto_start":false}}}`, map[string]string{})
	servers, _ = PackageServers(Package{Name: "native", Root: root2, Manifest: m2}, "")
	if len(servers) != 2 || !servers[0].AutoStart || servers[0].Imported || servers[1].AutoStart {
		t.Errorf("native legacy servers = %+v", servers)
	}
	_, m3 := writePackage(t, manifest.KindClaude, `{"name":"escape","mcpServers":"../outside.json"}`, map[string]string{})
	if _, w := PackageServers(Package{Name: "escape", Root: root, Manifest: m3}, ""); len(w) == 0 || !strings.Contains(w[0], "stay inside the plugin root") {
		t.Errorf("an escaping path: %q", w)
	}
}

// HTTP servers get the configured headers (expanded at connect time) on
// every request, and no request leaves the configured origin: an SSE
// endpoint on another origin is rejected.
func TestHTTPHeadersAndOrigin(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var auths []string
	handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return testServer() }, nil)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auths = append(auths, r.Header.Get("Authorization"))
		mu.Unlock()
		handler.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	foreign := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write([]byte("event: endpoint\ndata: http://127.0.0.2:9/message\n\n"))
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	t.Cleanup(foreign.Close)
	getenv := func(k string) (string, bool) { return map[string]string{"TOKEN": "t0k"}[k], k == "TOKEN" }
	h, n, _ := newHost(t, []Server{
		{Name: "web", URL: ts.URL, Headers: map[string]string{"Authorization": "Bearer ${TOKEN}"}, AutoStart: true},
		{Name: "evil", Type: "sse", URL: foreign.URL, AutoStart: true},
	}, Options{Getenv: getenv})
	ctx := ctxT(t)
	if _, err := h.Connect(ctx, "web"); err != nil {
		t.Fatal(err)
	}
	if r, err := h.Call(ctx, "mcp__web__echo", json.RawMessage(`{"message":"over http"}`)); err != nil || r.Text != "echo: over http" {
		t.Errorf("echo = %+v, %v", r, err)
	}
	mu.Lock()
	for _, a := range auths {
		if a != "Bearer t0k" {
			t.Errorf("a request carried Authorization %q", a)
		}
	}
	mu.Unlock()
	x := n.waitFor(t, `"evil" failed to start`)
	if !strings.Contains(x.Text, "refusing a request to http://127.0.0.2:9") {
		t.Errorf("evil notice = %q", x.Text)
	}
	h.Close()
	if _, err := h.Connect(context.Background(), "web"); err == nil {
		t.Error("Connect after Close succeeded")
	}
}

func TestSameDefinitionIgnoresIdentityEnv(t *testing.T) {
	t.Parallel()
	a := Server{Name: "s", Command: "x", Env: map[string]string{"REASONIX_PLUGIN_NAME": "a", "K": "v"}, Owner: "a", Source: SourcePackage}
	b := Server{Name: "s", Command: "x", Env: map[string]string{"REASONIX_PLUGIN_NAME": "b", "K": "v"}, Owner: "b", Source: SourcePackage}
	if !sameDefinition(a, b) {
		t.Error("identity variables made two definitions differ")
	}
	b.Env["K"] = "w"
	if sameDefinition(a, b) || !reflect.DeepEqual(a.Env["K"], "v") {
		t.Error("a different env value compared equal")
	}
}

// TestPackageMCPAutoStartByFormat: whether a package's server starts with
// the session follows the format of the file that declares it: a Claude
// .mcp.json or a Claude manifest's mcpServers start (unless the entry
// says "auto_start": false), a Codex manifest's wait for connect as in
// Reasonix, a native legacy manifest's keep what they declare (issue 27
// item 12).
func TestPackageMCPAutoStartByFormat(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		kind     manifest.Kind
		manifest string
		files    map[string]string
		want     map[string]bool
	}{
		{"claude .mcp.json", manifest.KindClaude, `{"name":"p"}`,
			map[string]string{".mcp.json": `{"mcpServers":{"on":{"command":"a"},"off":{"command":"b","auto_start":false}}}`},
			map[string]bool{"on": true, "off": false}},
		{"claude manifest mcpServers", manifest.KindClaude, `{"name":"p","mcpServers":{"inline":{"command":"a"}}}`, nil,
			map[string]bool{"inline": true}},
		{"claude manifest mcpServers file", manifest.KindClaude, `{"name":"p","mcpServers":"./servers.json"}`,
			map[string]string{"servers.json": `{"mcpServers":{"fromfile":{"command":"a"}}}`},
			map[string]bool{"fromfile": true}},
		{"codex manifest mcpServers", manifest.KindCodex, `{"name":"p","mcpServers":{"codex":{"command":"a"}}}`, nil,
			map[string]bool{"codex": false}},
		{"codex .mcp.json", manifest.KindCodex, `{"name":"p"}`,
			map[string]string{".mcp.json": `{"mcpServers":{"file":{"command":"a"}}}`},
			map[string]bool{"file": true}},
		{"reasonix legacy", manifest.KindReasonix, `{"name":"p","mcpServers":{"dflt":{"command":"a"},"off":{"command":"b","auto_start":false}}}`, nil,
			map[string]bool{"dflt": true, "off": false}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			files := map[string]string{}
			for k, v := range tc.files {
				files[k] = v
			}
			root, m := writePackage(t, tc.kind, tc.manifest, files)
			servers, warnings := PackageServers(Package{Name: "p", Root: root, Manifest: m}, t.TempDir())
			got := map[string]bool{}
			for _, s := range servers {
				got[s.Name] = s.AutoStart
			}
			if !reflect.DeepEqual(got, tc.want) || len(warnings) != 0 {
				t.Errorf("auto_start = %v, want %v (warnings %v)", got, tc.want, warnings)
			}
		})
	}
}
