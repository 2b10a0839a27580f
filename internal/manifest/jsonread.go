package manifest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

// reader decodes JSON member by member instead of through struct tags, so
// every problem carries the exact path of the member that caused it and
// strict documents can reject unknown members at any depth.
type reader struct {
	problems
	// strict makes unknown members problems; lenient readers skip them.
	strict bool
}

// member is one object member in document order.
type member struct {
	key string
	raw json.RawMessage
}

// field handles the value of one known member at its path.
type field func(path string, raw json.RawMessage)

// jsonKind names the JSON type of raw for "want X, got Y" messages.
func jsonKind(raw json.RawMessage) string {
	raw = bytes.TrimLeft(raw, " \t\r\n")
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}

func isNull(raw json.RawMessage) bool { return jsonKind(raw) == "null" }

// syntaxCheck reports invalid JSON with its line and column, which is what
// someone editing the file by hand needs.
func syntaxCheck(data []byte) error {
	var v any
	err := json.Unmarshal(data, &v)
	if err == nil {
		return nil
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		// Offset counts the bytes read, the offending one included.
		line, col := lineCol(data, se.Offset-1)
		return fmt.Errorf("invalid JSON at line %d, column %d: %v", line, col, se)
	}
	return fmt.Errorf("invalid JSON: %v", err)
}

func lineCol(data []byte, offset int64) (line, col int) {
	offset = max(0, min(offset, int64(len(data))))
	line, col = 1, 1
	for _, c := range data[:offset] {
		if c == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return line, col
}

// members splits an object into its members, reporting a non-object value
// and duplicate keys (encoding/json would silently keep the last one, which
// lets a manifest show one value to a reviewer and use another).
func (r *reader) members(path string, raw json.RawMessage) ([]member, bool) {
	if k := jsonKind(raw); k != "object" {
		r.addf(path, "want an object, got %s", k)
		return nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil {
		r.addf(path, "%v", err)
		return nil, false
	}
	var out []member
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			r.addf(path, "%v", err)
			return nil, false
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			r.addf(joinPath(path, key), "%v", err)
			return nil, false
		}
		if seen[key] {
			r.addf(joinPath(path, key), "duplicate member")
			continue
		}
		seen[key] = true
		out = append(out, member{key: key, raw: v})
	}
	return out, true
}

// object dispatches each member to its field; a member without a field is a
// problem when the reader is strict. null members count as absent.
func (r *reader) object(path string, raw json.RawMessage, fields map[string]field) bool {
	ms, ok := r.members(path, raw)
	if !ok {
		return false
	}
	var known []string
	for _, m := range ms {
		f, ok := fields[m.key]
		if !ok {
			if r.strict {
				if known == nil {
					known = sortedKeys(fields)
				}
				r.addf(joinPath(path, m.key), "%s", unknownField(m.key, known))
			}
			continue
		}
		if isNull(m.raw) {
			continue
		}
		f(joinPath(path, m.key), m.raw)
	}
	return true
}

func (r *reader) str(path string, raw json.RawMessage, dst *string) bool {
	if k := jsonKind(raw); k != "string" {
		r.addf(path, "want a string, got %s", k)
		return false
	}
	if err := json.Unmarshal(raw, dst); err != nil {
		r.addf(path, "%v", err)
		return false
	}
	return true
}

func (r *reader) boolean(path string, raw json.RawMessage, dst *bool) bool {
	if k := jsonKind(raw); k != "boolean" {
		r.addf(path, "want a boolean, got %s", k)
		return false
	}
	return json.Unmarshal(raw, dst) == nil
}

func (r *reader) integer(path string, raw json.RawMessage, dst *int64) bool {
	if k := jsonKind(raw); k != "number" {
		r.addf(path, "want an integer, got %s", k)
		return false
	}
	n, err := strconv.ParseInt(string(bytes.TrimSpace(raw)), 10, 64)
	if err != nil {
		r.addf(path, "want an integer, got %s", bytes.TrimSpace(raw))
		return false
	}
	*dst = n
	return true
}

func (r *reader) strings(path string, raw json.RawMessage, dst *[]string) bool {
	if k := jsonKind(raw); k != "array" {
		r.addf(path, "want an array of strings, got %s", k)
		return false
	}
	var elems []json.RawMessage
	if err := json.Unmarshal(raw, &elems); err != nil {
		r.addf(path, "%v", err)
		return false
	}
	out := make([]string, 0, len(elems))
	ok := true
	for i, e := range elems {
		var s string
		if !r.str(indexPath(path, i), e, &s) {
			ok = false
			continue
		}
		out = append(out, s)
	}
	*dst = out
	return ok
}

// stringMap decodes an object of strings; keys come back in document order
// so problems about them are reported in the order a reader sees them.
func (r *reader) stringMap(path string, raw json.RawMessage, dst *map[string]string) ([]string, bool) {
	ms, ok := r.members(path, raw)
	if !ok {
		return nil, false
	}
	out := make(map[string]string, len(ms))
	keys := make([]string, 0, len(ms))
	for _, m := range ms {
		var s string
		if !r.str(joinPath(path, m.key), m.raw, &s) {
			ok = false
			continue
		}
		out[m.key] = s
		keys = append(keys, m.key)
	}
	*dst = out
	return keys, ok
}
