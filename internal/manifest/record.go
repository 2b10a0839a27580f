package manifest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
)

// File and directory names inside a home (the Reasonix home layout).
const (
	RecordsFile = "plugin-packages.json"
	PluginsDir  = "plugins"
)

// Record is one entry of plugin-packages.json: an installed plugin. An
// enabled record whose manifest has a runtime is itself the trust record
// for that runtime.
type Record struct {
	Name   string `json:"name"`
	Source string `json:"source,omitempty"`
	// Root is the plugin directory: absolute as this bridge writes it,
	// possibly relative to the home in records Reasonix wrote.
	Root         string `json:"root"`
	Version      string `json:"version,omitempty"`
	Description  string `json:"description,omitempty"`
	ManifestKind Kind   `json:"manifestKind,omitempty"`
	Enabled      bool   `json:"enabled"`
	Commit       string `json:"commit,omitempty"`
	Status       string `json:"status,omitempty"`
	StatusReason string `json:"statusReason,omitempty"`

	// Home is the home whose records file holds the record; it is not
	// written.
	Home string `json:"-"`

	// extra keeps members this version does not know, so rewriting a
	// records file (possibly one Reasonix also writes) never drops them.
	extra map[string]json.RawMessage
}

// Dir returns the record's plugin directory as an absolute path.
func (r Record) Dir() string { return recordDir(host, r.Home, r.Root) }

// recordDir is Record.Dir on system t. A relative root, as Reasonix writes
// it (plugins/<name>, with backslashes on Windows), is under home. A root
// that is absolute only on another system (C:\... on Linux, /home/... on
// Windows) is never taken for a relative one: it is returned as written,
// and loading the plugin fails naming it.
func recordDir(t target, home, root string) string {
	switch {
	case t.isAbs(root):
		return t.clean(root)
	case otherSystemPath(t, root):
		return root
	}
	return t.clean(home + t.sep() + strings.ReplaceAll(root, `\`, "/"))
}

// otherSystemPath reports whether p is an absolute path for some system
// but not for t.
func otherSystemPath(t target, p string) bool { return !t.isAbs(p) && isAbsAnyOS(p) }

// Linked reports whether the plugin is used in place rather than copied
// into its home's plugins directory.
func (r Record) Linked() bool {
	return !within(filepath.Join(r.Home, PluginsDir), r.Dir())
}

// MarshalJSON writes the known members in the documented order, then any
// preserved unknown ones sorted by name.
func (r Record) MarshalJSON() ([]byte, error) {
	type plain Record
	b, err := marshalNoEscape(plain(r))
	if err != nil || len(r.extra) == 0 {
		return b, err
	}
	var buf bytes.Buffer
	buf.Write(b[:len(b)-1])
	for _, k := range sortedKeys(r.extra) {
		kb, _ := marshalNoEscape(k)
		buf.WriteByte(',')
		buf.Write(kb)
		buf.WriteByte(':')
		buf.Write(r.extra[k])
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

func marshalNoEscape(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// recordSet is a whole records file.
type recordSet struct {
	records []Record
	// extra keeps unknown top-level members, as Record.extra does.
	extra map[string]json.RawMessage
}

// readRecords reads <home>/plugin-packages.json. A missing file is an
// empty set; anything unreadable or malformed is an error naming the file,
// because resetting it would silently uninstall (and so un-trust or, worse,
// re-trust) plugins. With foreign set, records whose names this bridge
// cannot use are skipped with a warning instead of failing the whole home.
func readRecords(home string, foreign bool) (recordSet, []string, error) {
	file := filepath.Join(home, RecordsFile)
	data, err := readReplaced(file)
	if errors.Is(err, fs.ErrNotExist) {
		return recordSet{}, nil, nil
	}
	if err != nil {
		return recordSet{}, nil, fmt.Errorf("cannot read install records %s: %w", file, unwrapPath(err))
	}
	set, warnings, err := decodeRecords(home, data, foreign)
	if err != nil {
		var me *Error
		if errors.As(err, &me) {
			me.File = file
		}
		return recordSet{}, nil, err
	}
	return set, warnings, nil
}

func decodeRecords(home string, data []byte, foreign bool) (recordSet, []string, error) {
	if err := syntaxCheck(data); err != nil {
		return recordSet{}, nil, &Error{File: RecordsFile, Problems: []Problem{{Msg: err.Error() + " (the file is corrupt; fix or restore it, rx-bridge will not reset it)"}}}
	}
	r := &reader{}
	var set recordSet
	var warnings []string
	version := int64(1)
	seen := map[string]int{}
	ms, ok := r.members("", data)
	if !ok {
		return recordSet{}, nil, r.err(RecordsFile)
	}
	for _, m := range ms {
		switch m.key {
		case "version":
			if r.integer("version", m.raw, &version) && version == 0 {
				version = 1
			}
		case "plugins":
			if isNull(m.raw) {
				continue
			}
			if jsonKind(m.raw) != "array" {
				r.addf("plugins", "want an array, got %s", jsonKind(m.raw))
				continue
			}
			var elems []json.RawMessage
			_ = json.Unmarshal(m.raw, &elems)
			for i, e := range elems {
				at := indexPath("plugins", i)
				rec, ok := r.record(at, e)
				if !ok {
					continue
				}
				if err := ValidateName(rec.Name); err != nil {
					if foreign {
						warnings = append(warnings, fmt.Sprintf("%s: %s: skipped: %v", filepath.Join(home, RecordsFile), at, err))
						continue
					}
					r.addf(joinPath(at, "name"), "%v", err)
					continue
				}
				if foreign && otherSystemPath(host, rec.Root) {
					warnings = append(warnings, fmt.Sprintf("%s: %s: skipped: root %q is a path on another operating system", filepath.Join(home, RecordsFile), at, rec.Root))
					continue
				}
				if j, dup := seen[rec.Name]; dup {
					r.addf(joinPath(at, "name"), "plugin %q is recorded twice (also at plugins[%d])", rec.Name, j)
					continue
				}
				seen[rec.Name] = i
				rec.Home = home
				set.records = append(set.records, rec)
			}
		default:
			if set.extra == nil {
				set.extra = map[string]json.RawMessage{}
			}
			set.extra[m.key] = m.raw
		}
	}
	if version != 1 {
		r.addf("version", "unsupported records version %d (this rx-bridge reads version 1)", version)
	}
	if err := r.err(RecordsFile); err != nil {
		return recordSet{}, nil, err
	}
	sortRecords(set.records)
	return set, warnings, nil
}

func (r *reader) record(at string, raw json.RawMessage) (Record, bool) {
	var rec Record
	before := len(r.problems)
	ms, ok := r.members(at, raw)
	if !ok {
		return rec, false
	}
	haveEnabled := false
	for _, m := range ms {
		p := joinPath(at, m.key)
		switch m.key {
		case "name":
			r.str(p, m.raw, &rec.Name)
		case "source":
			r.str(p, m.raw, &rec.Source)
		case "root":
			r.str(p, m.raw, &rec.Root)
		case "version":
			r.str(p, m.raw, &rec.Version)
		case "description":
			r.str(p, m.raw, &rec.Description)
		case "manifestKind":
			var k string
			r.enum(p, m.raw, &k, []string{string(KindReasonix), string(KindCodex), string(KindClaude)})
			rec.ManifestKind = Kind(k)
		case "enabled":
			haveEnabled = r.boolean(p, m.raw, &rec.Enabled)
		case "commit":
			r.str(p, m.raw, &rec.Commit)
		case "status":
			r.str(p, m.raw, &rec.Status)
		case "statusReason":
			r.str(p, m.raw, &rec.StatusReason)
		default:
			if rec.extra == nil {
				rec.extra = map[string]json.RawMessage{}
			}
			rec.extra[m.key] = m.raw
		}
	}
	if rec.Name == "" && !r.hasProblemAt(joinPath(at, "name")) {
		r.addf(joinPath(at, "name"), "required")
	}
	if strings.TrimSpace(rec.Root) == "" && !r.hasProblemAt(joinPath(at, "root")) {
		r.addf(joinPath(at, "root"), "required")
	}
	if !haveEnabled && !r.hasProblemAt(joinPath(at, "enabled")) {
		r.addf(joinPath(at, "enabled"), "required")
	}
	return rec, len(r.problems) == before
}

// encodeRecords writes the file as Reasonix does: sorted by name, two-space
// indentation, trailing newline.
func encodeRecords(set recordSet) ([]byte, error) {
	recs := append([]Record(nil), set.records...)
	sortRecords(recs)
	if recs == nil {
		recs = []Record{}
	}
	var buf bytes.Buffer
	buf.WriteString("{\n  \"version\": 1,\n  \"plugins\": ")
	var pb bytes.Buffer
	enc := json.NewEncoder(&pb)
	enc.SetEscapeHTML(false)
	enc.SetIndent("  ", "  ")
	if err := enc.Encode(recs); err != nil {
		return nil, err
	}
	buf.Write(bytes.TrimRight(pb.Bytes(), "\n"))
	for _, k := range sortedKeys(set.extra) {
		kb, _ := marshalNoEscape(k)
		var vb bytes.Buffer
		if err := json.Indent(&vb, set.extra[k], "  ", "  "); err != nil {
			return nil, err
		}
		fmt.Fprintf(&buf, ",\n  %s: %s", kb, vb.Bytes())
	}
	buf.WriteString("\n}\n")
	return buf.Bytes(), nil
}

func sortRecords(recs []Record) {
	sort.Slice(recs, func(i, j int) bool { return recs[i].Name < recs[j].Name })
}
