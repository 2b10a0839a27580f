package mcphost

import (
	"encoding/json"
	"testing"
)

// FuzzDecodeCache: a schema cache file is bytes on disk anyone could have
// written. Decoding never panics, and whatever it accepts is usable: named
// tools with object schemas, for the server and definition asked for.
func FuzzDecodeCache(f *testing.F) {
	srv := Server{Name: "s", Command: "x"}
	fp := fingerprint(srv)
	good, _ := json.Marshal(cacheFile{Version: 1, Server: "s", Fingerprint: fp, Tools: []cacheTool{{Name: "echo", InputSchema: json.RawMessage(`{"type":"object"}`)}},
		Prompts: []cachePrompt{{Name: "p", Arguments: []PromptArgument{{Name: "a", Required: true}}}}})
	f.Add(good)
	f.Add([]byte(`{"version":1,"server":"s","fingerprint":"` + fp + `","tools":[{"name":"","inputSchema":{}}]}`))
	f.Add([]byte(`{"version":1,"server":"s","fingerprint":"` + fp + `","tools":[{"name":"a","inputSchema":[]}]}`))
	f.Add([]byte(`{"version":2}`))
	f.Add([]byte(`{} {}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := decodeCache(data, "s", fp)
		if err != nil {
			return
		}
		if c.Server != "s" || c.Fingerprint != fp || len(c.Tools) == 0 {
			t.Fatalf("accepted %+v", c)
		}
		for _, tl := range c.tools("s") {
			if tl.RawName == "" || !isObject(tl.InputSchema) || !tl.Placeholder {
				t.Fatalf("accepted tool %+v", tl)
			}
		}
	})
}

// FuzzImportClaude: a package's .mcp.json is untrusted. Import never
// panics; every server it keeps has a valid name, can start (command or
// URL per its type) and waits for connect.
func FuzzImportClaude(f *testing.F) {
	f.Add([]byte(`{"mcpServers":{"a":{"command":"npx","args":["-y","x"],"env":{"K":"v"}}}}`))
	f.Add([]byte(`{"bad name!":{"type":"streamable-http","url":"https://x/mcp","headers":{"A":"b"},"title":"T"}}`))
	f.Add([]byte(`{"s":{"type":"sse","url":""},"t":{"type":"local","command":"c"}}`))
	f.Add([]byte("\xef\xbb\xbf{\"mcpServers\":{}}"))
	f.Add([]byte(`{"mcpServers":null}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		decls, _, err := importClaude(data)
		if err != nil {
			return
		}
		seen := map[string]bool{}
		for _, d := range decls {
			if !validServerName.MatchString(d.name) || seen[d.name] {
				t.Fatalf("kept name %q", d.name)
			}
			seen[d.name] = true
			s := Server{Name: d.name, Type: d.decl.Type, Command: d.decl.Command, URL: d.decl.URL}
			if _, err := s.check(); err != nil {
				t.Fatalf("kept a server that cannot start: %v", err)
			}
			if d.decl.AutoStart == nil || *d.decl.AutoStart || !d.decl.Imported {
				t.Fatalf("kept %+v", d.decl)
			}
		}
	})
}
