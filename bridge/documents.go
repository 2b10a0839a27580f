package bridge

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"unicode/utf8"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// documents are the editor's open buffers, kept current by full and
// incremental textDocument sync; agent tools read them instead of disk.
type documents struct {
	mu   sync.Mutex
	open map[string]*document // by absolute, cleaned path
}

type document struct {
	version int32
	text    string
}

func (d *documents) init() { d.open = map[string]*document{} }

func docPath(u protocol.DocumentURI) (string, bool) {
	if !strings.HasPrefix(string(u), "file:") {
		return "", false
	}
	p := uri.URI(u).Filename()
	if p == "" {
		return "", false
	}
	return filepath.Clean(p), true
}

func (s *Server) didOpen(params []byte) {
	var p protocol.DidOpenTextDocumentParams
	if json.Unmarshal(params, &p) != nil {
		return
	}
	if path, ok := docPath(p.TextDocument.URI); ok {
		s.docs.mu.Lock()
		s.docs.open[path] = &document{version: p.TextDocument.Version, text: p.TextDocument.Text}
		s.docs.mu.Unlock()
	}
}

func (s *Server) didClose(params []byte) {
	var p protocol.DidCloseTextDocumentParams
	if json.Unmarshal(params, &p) != nil {
		return
	}
	if path, ok := docPath(p.TextDocument.URI); ok {
		s.docs.mu.Lock()
		delete(s.docs.open, path)
		s.docs.mu.Unlock()
	}
}

// contentChange is one content change. Range is a pointer because
// go.lsp.dev/protocol's TextDocumentContentChangeEvent cannot tell a
// full-text change (no range) from an insertion at 0:0.
type contentChange struct {
	Range *protocol.Range `json:"range"`
	Text  string          `json:"text"`
}

func (s *Server) didChange(params []byte) {
	var p struct {
		TextDocument   protocol.VersionedTextDocumentIdentifier `json:"textDocument"`
		ContentChanges []contentChange                          `json:"contentChanges"`
	}
	if json.Unmarshal(params, &p) != nil {
		return
	}
	path, ok := docPath(p.TextDocument.URI)
	if !ok {
		return
	}
	s.docs.mu.Lock()
	defer s.docs.mu.Unlock()
	d := s.docs.open[path]
	if d == nil {
		return
	}
	for _, c := range p.ContentChanges {
		if c.Range == nil {
			d.text = c.Text
			continue
		}
		text, err := applyChange(d.text, *c.Range, c.Text)
		if err != nil {
			// The buffer is out of step with the editor: forget it, so
			// tools read the disk rather than a wrong text.
			s.log.Warn(fmt.Sprintf("textDocument/didChange for %s: %v; the buffer is dropped until it is opened again", path, err))
			delete(s.docs.open, path)
			return
		}
		d.text = text
	}
	d.version = p.TextDocument.Version
}

// applyChange replaces r (UTF-16 positions, as LSP counts by default) of
// text with repl.
func applyChange(text string, r protocol.Range, repl string) (string, error) {
	start, err := offsetOf(text, r.Start)
	if err != nil {
		return "", err
	}
	end, err := offsetOf(text, r.End)
	if err != nil {
		return "", err
	}
	if end < start {
		return "", fmt.Errorf("range end %d:%d is before its start", r.End.Line, r.End.Character)
	}
	return text[:start] + repl + text[end:], nil
}

// offsetOf turns a position into a byte offset. A character past the end
// of its line means the line's end, as LSP says.
func offsetOf(text string, pos protocol.Position) (int, error) {
	off := 0
	for line := uint32(0); line < pos.Line; line++ {
		i := strings.IndexByte(text[off:], '\n')
		if i < 0 {
			return 0, fmt.Errorf("line %d is past the end of the document", pos.Line)
		}
		off += i + 1
	}
	units := uint32(0)
	for off < len(text) && text[off] != '\n' && units < pos.Character {
		r, size := utf8.DecodeRuneInString(text[off:])
		n := uint32(1)
		if r >= 0x10000 {
			n = 2
		}
		if units+n > pos.Character {
			break // inside a surrogate pair: stay before the rune
		}
		units += n
		off += size
	}
	return off, nil
}

// Document implements the tools' view of open buffers.
func (s *Server) document(path string) (text string, version int32, open bool) {
	s.docs.mu.Lock()
	defer s.docs.mu.Unlock()
	d := s.docs.open[filepath.Clean(path)]
	if d == nil {
		return "", 0, false
	}
	return d.text, d.version, true
}
