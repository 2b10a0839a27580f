package bridge

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"unicode/utf8"

	"go.lsp.dev/protocol"
)

// documents are the editor's open buffers, kept current by full and
// incremental textDocument sync; agent tools read them instead of disk.
// The text held is capped in total: a document past the cap is not kept,
// so tools read it from disk.
type documents struct {
	mu     sync.Mutex
	open   map[string]*document // by docKey
	held   int                  // bytes of text in open
	limit  int                  // the cap on held
	capped bool                 // the cap was reached (and said so)
}

type document struct {
	version int32
	text    string
}

// DefaultMaxDocuments is the default cap on the text of open documents
// the bridge holds (Options.MaxDocuments).
const DefaultMaxDocuments = 64 << 20

func (d *documents) init(limit int) {
	d.open = map[string]*document{}
	d.limit = limit
}

// put keeps a document's text if it fits under the cap. first is true the
// first time the cap refuses one.
func (d *documents) put(key string, version int32, text string) (kept, first bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.dropLocked(key)
	if d.held+len(text) > d.limit {
		first, d.capped = !d.capped, true
		return false, first
	}
	d.open[key] = &document{version: version, text: text}
	d.held += len(text)
	return true, false
}

func (d *documents) drop(key string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.dropLocked(key)
}

func (d *documents) dropLocked(key string) {
	if old := d.open[key]; old != nil {
		d.held -= len(old.text)
		delete(d.open, key)
	}
}

// heldBytes is the text the documents hold.
func (d *documents) heldBytes() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.held
}

// docKey is where a document is kept: the cleaned path of a file: URI,
// else the URI itself (untitled:, vscode-remote://…, vscode-vfs://…, and
// a file: URI that names no local path, which err explains).
func docKey(u string) (key string, err error) {
	path, isFile, err := localPath(u)
	if isFile && err == nil {
		return path, nil
	}
	return u, err
}

// textDocument is the textDocument member of the sync notifications,
// with the URI as the editor sent it: go.lsp.dev/uri rewrites a URI it
// decodes (file:///a%zzb becomes file:///a%25zzb, another file; "+" is
// escaped), and the bridge keys buffers by, and reports, the editor's
// own URI.
type textDocument struct {
	URI     string `json:"uri"`
	Version int32  `json:"version"`
	Text    string `json:"text"`
}

// localPath returns the local path a file: URI names. isFile is false for
// any other scheme; err says why a file: URI names no local path (a host
// other than localhost, which go.lsp.dev/uri would turn into a UNC path, a
// relative path, bad escapes).
func localPath(u string) (path string, isFile bool, err error) {
	scheme, _, ok := strings.Cut(u, ":")
	if !ok || !strings.EqualFold(scheme, "file") {
		return "", false, nil
	}
	p, err := url.Parse(u)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return "", true, fmt.Errorf("%s is not a valid file URI: %w", u, err)
	}
	if p.Host != "" && p.Host != "localhost" {
		return "", true, fmt.Errorf("%s names the host %q, not a local file", u, p.Host)
	}
	path = p.Path
	if len(path) > 2 && path[0] == '/' && filepath.VolumeName(path[1:]) != "" {
		path = path[1:] // file:///C:/x on Windows
	}
	path = filepath.FromSlash(path)
	if !filepath.IsAbs(path) {
		return "", true, fmt.Errorf("%s names no absolute path", u)
	}
	return filepath.Clean(path), true, nil
}

func (s *Server) didOpen(params []byte) {
	var p struct {
		TextDocument textDocument `json:"textDocument"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		s.log.Warn("textDocument/didOpen: invalid params: " + err.Error())
		return
	}
	key, err := docKey(p.TextDocument.URI)
	if err != nil {
		s.log.Warn(fmt.Sprintf("textDocument/didOpen: %v; the buffer is kept by its URI and agent tools cannot read it", err))
	}
	s.keep(key, p.TextDocument.Version, p.TextDocument.Text)
}

// keep holds a document's text, or says once per connection that the cap
// is reached.
func (s *Server) keep(key string, version int32, text string) {
	if kept, first := s.docs.put(key, version, text); !kept && first {
		s.log.Warn(fmt.Sprintf("open documents would exceed the %d MiB the bridge holds in memory: %s and any further document past that are not kept, and agent tools read them from disk (without unsaved changes); this is said once",
			s.docs.limit>>20, key))
	}
}

func (s *Server) didClose(params []byte) {
	var p struct {
		TextDocument textDocument `json:"textDocument"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		s.log.Warn("textDocument/didClose: invalid params: " + err.Error())
		return
	}
	key, _ := docKey(p.TextDocument.URI)
	s.docs.drop(key)
}

func (s *Server) didChange(params []byte) {
	var p struct {
		TextDocument   textDocument                              `json:"textDocument"`
		ContentChanges []protocol.TextDocumentContentChangeEvent `json:"contentChanges"`
	}
	if err := protocol.Unmarshal(params, &p); err != nil {
		s.log.Warn("textDocument/didChange: invalid params: " + err.Error())
		return
	}
	key, _ := docKey(p.TextDocument.URI)
	s.docs.mu.Lock()
	d := s.docs.open[key]
	if d == nil {
		s.docs.mu.Unlock()
		return
	}
	text := d.text
	var err error
	for _, c := range p.ContentChanges {
		switch c := c.(type) {
		case *protocol.TextDocumentContentChangeWholeDocument:
			text = c.Text
		case *protocol.TextDocumentContentChangePartial:
			text, err = applyChange(text, c.Range, c.Text)
		default:
			err = errors.New("a content change is neither a whole text nor a range and its text")
		}
		if err != nil {
			break
		}
	}
	s.docs.mu.Unlock()
	if err != nil {
		// The buffer is out of step with the editor: forget it, so
		// tools read the disk rather than a wrong text.
		s.log.Warn(fmt.Sprintf("textDocument/didChange for %s: %v; the buffer is dropped until it is opened again", key, err))
		s.docs.drop(key)
		return
	}
	s.keep(key, p.TextDocument.Version, text)
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

// document returns the open buffer kept under key (a clean path, or the
// URI of a buffer that is not a local file).
func (s *Server) document(key string) (text string, version int32, open bool) {
	s.docs.mu.Lock()
	defer s.docs.mu.Unlock()
	d := s.docs.open[key]
	if d == nil {
		return "", 0, false
	}
	return d.text, d.version, true
}
