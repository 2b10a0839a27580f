package transcript

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
)

// ErrLocked is wrapped when another log holds a session.
var ErrLocked = errors.New("the session is open in another process")

// Torn describes an incomplete last line of the live file: the bytes a
// crash left half written. They are not a record.
type Torn struct {
	Path   string
	Offset int64 // where the torn line starts
	Bytes  int
}

func (t *Torn) String() string {
	return fmt.Sprintf("%s: the last %d bytes (from offset %d) are an incomplete record, left from a crash; they are dropped", t.Path, t.Bytes, t.Offset)
}

// Read returns every record of session id in order (archived segments,
// then the live file). A torn last line of the live file is left out and
// described; anything else that is not a JSON line is an error naming the
// file and line.
func Read(dir, id string) ([]json.RawMessage, *Torn, error) {
	if err := checkID(id); err != nil {
		return nil, nil, err
	}
	ns, err := segments(dir, id)
	if err != nil {
		return nil, nil, err
	}
	var out []json.RawMessage
	for _, n := range ns {
		path := segmentPath(dir, id, n)
		recs, torn, err := readFile(path)
		if err != nil {
			return nil, nil, err
		}
		if torn != nil {
			return nil, nil, fmt.Errorf("%s: archived segment ends in an incomplete record", path)
		}
		out = append(out, recs...)
	}
	path := LivePath(dir, id)
	recs, torn, err := readFile(path)
	if errors.Is(err, os.ErrNotExist) && len(ns) > 0 {
		// Rotation renamed the live file and crashed before creating
		// the next one.
		return out, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	return append(out, recs...), torn, nil
}

func readFile(path string) ([]json.RawMessage, *Torn, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	var out []json.RawMessage
	off := 0
	for line := 1; off < len(data); line++ {
		end := bytes.IndexByte(data[off:], '\n')
		if end < 0 {
			return out, &Torn{Path: path, Offset: int64(off), Bytes: len(data) - off}, nil
		}
		raw := data[off : off+end]
		// A record is written in one write ending in its only newline,
		// so only an unterminated tail can be a crash's leftover; an
		// invalid terminated line is damage of another kind.
		if !json.Valid(raw) {
			return nil, nil, fmt.Errorf("%s:%d: not a JSON record", path, line)
		}
		out = append(out, json.RawMessage(raw))
		off += end + 1
	}
	return out, nil, nil
}

// Head returns up to n records from the start of session id (its oldest
// segment, else the live file), without reading the rest: enough for a
// listing's header and title.
func Head(dir, id string, n int) ([]json.RawMessage, error) {
	if err := checkID(id); err != nil {
		return nil, err
	}
	path := LivePath(dir, id)
	if ns, err := segments(dir, id); err == nil && len(ns) > 0 {
		path = segmentPath(dir, id, ns[0])
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	var out []json.RawMessage
	for len(out) < n && sc.Scan() {
		if !json.Valid(sc.Bytes()) {
			break
		}
		out = append(out, json.RawMessage(bytes.Clone(sc.Bytes())))
	}
	return out, nil
}

// Last returns the last record of session id whose line starts with
// prefix, searching from the newest file (the live one, then the archived
// segments newest first) and reading no older file once one has it. A
// listing uses it for what can change at any time of a session (its
// model), which Head does not reach.
func Last(dir, id string, prefix []byte) (json.RawMessage, bool, error) {
	if err := checkID(id); err != nil {
		return nil, false, err
	}
	ns, err := segments(dir, id)
	if err != nil {
		return nil, false, err
	}
	paths := []string{LivePath(dir, id)}
	for i := len(ns) - 1; i >= 0; i-- {
		paths = append(paths, segmentPath(dir, id, ns[i]))
	}
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, false, err
		}
		var last []byte
		for off := 0; off < len(data); {
			end := bytes.IndexByte(data[off:], '\n')
			if end < 0 {
				break // a torn last line is no record
			}
			if line := data[off : off+end]; bytes.HasPrefix(line, prefix) && json.Valid(line) {
				last = line
			}
			off += end + 1
		}
		if last != nil {
			return json.RawMessage(bytes.Clone(last)), true, nil
		}
	}
	return nil, false, nil
}
