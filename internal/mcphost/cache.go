package mcphost

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// The schema cache: one JSON file per server under Options.CacheDir,
// holding the tools and prompts of its last successful discovery and the
// fingerprint of the definition they came from. A valid entry lets the
// server stay process-idle until its first call.

const (
	cacheVersion = 1
	// maxCacheBytes bounds a cache file; a server with thousands of large
	// schemas stays well under it.
	maxCacheBytes = 8 << 20
)

type cacheFile struct {
	Version     int           `json:"version"`
	Server      string        `json:"server"`
	Fingerprint string        `json:"fingerprint"`
	Tools       []cacheTool   `json:"tools"`
	Prompts     []cachePrompt `json:"prompts,omitempty"`
}

type cacheTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"inputSchema"`
	ReadOnly    bool            `json:"readOnly,omitempty"`
	Destructive bool            `json:"destructive,omitempty"`
}

type cachePrompt struct {
	Name        string           `json:"name"`
	Description string           `json:"description,omitempty"`
	Arguments   []PromptArgument `json:"arguments,omitempty"`
}

// fingerprint identifies the definition a cache entry belongs to: a
// changed command, argument, URL, environment or header invalidates it.
func fingerprint(s Server) string {
	h := sha256.New()
	t, _ := s.transport()
	b, _ := json.Marshal([]any{t, s.Name, s.Command, s.Args, s.URL, s.Env, s.Headers, s.Dir})
	h.Write(b)
	return hex.EncodeToString(h.Sum(nil))
}

func cachePath(dir, server string) string {
	return filepath.Join(dir, Norm(server)+".json")
}

// decodeCache reads a cache file's bytes. Anything unexpected (another
// version, another definition, a tool without a name or with a schema that
// is not an object) makes the whole entry invalid: a cache is only a
// shortcut, and a miss costs one discovery.
func decodeCache(data []byte, server, fp string) (*cacheFile, error) {
	if len(data) > maxCacheBytes {
		return nil, fmt.Errorf("schema cache is larger than %d bytes", maxCacheBytes)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var c cacheFile
	if err := dec.Decode(&c); err != nil {
		return nil, fmt.Errorf("schema cache: %v", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("schema cache: trailing data")
	}
	switch {
	case c.Version != cacheVersion:
		return nil, fmt.Errorf("schema cache: version %d, want %d", c.Version, cacheVersion)
	case c.Server != server || c.Fingerprint != fp:
		return nil, fmt.Errorf("schema cache: written for another definition of the server")
	case len(c.Tools) == 0:
		return nil, fmt.Errorf("schema cache: no tools")
	}
	seen := map[string]bool{}
	for i, t := range c.Tools {
		if strings.TrimSpace(t.Name) == "" {
			return nil, fmt.Errorf("schema cache: tools[%d] has no name", i)
		}
		if seen[t.Name] {
			return nil, fmt.Errorf("schema cache: tool %q listed twice", t.Name)
		}
		seen[t.Name] = true
		if !isObject(t.InputSchema) {
			return nil, fmt.Errorf("schema cache: tool %q input schema is not a JSON object", t.Name)
		}
	}
	for i, p := range c.Prompts {
		if strings.TrimSpace(p.Name) == "" {
			return nil, fmt.Errorf("schema cache: prompts[%d] has no name", i)
		}
	}
	return &c, nil
}

func isObject(raw json.RawMessage) bool {
	var m map[string]json.RawMessage
	return json.Unmarshal(raw, &m) == nil && m != nil
}

func readCache(dir string, s Server) (*cacheFile, error) {
	data, err := os.ReadFile(cachePath(dir, s.Name))
	if err != nil {
		return nil, err
	}
	return decodeCache(data, s.Name, fingerprint(s))
}

// writeCache replaces the server's cache file atomically (a temporary
// file renamed over it), so a reader never sees half a file.
func writeCache(dir string, s Server, tools []Tool, prompts []Prompt) error {
	c := cacheFile{Version: cacheVersion, Server: s.Name, Fingerprint: fingerprint(s)}
	for _, t := range tools {
		c.Tools = append(c.Tools, cacheTool{Name: t.RawName, Description: t.Description, InputSchema: t.InputSchema, ReadOnly: t.ReadOnly, Destructive: t.Destructive})
	}
	for _, p := range prompts {
		c.Prompts = append(c.Prompts, cachePrompt{Name: p.RawName, Description: p.Description, Arguments: p.Arguments})
	}
	data, err := json.Marshal(c)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return err
	}
	_, werr := f.Write(data)
	cerr := f.Close()
	if werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(f.Name(), cachePath(dir, s.Name))
	}
	if werr != nil {
		os.Remove(f.Name())
	}
	return werr
}
