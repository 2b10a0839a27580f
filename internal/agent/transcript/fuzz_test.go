package transcript

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// FuzzReadLive feeds arbitrary bytes as a session's live file, as a crash,
// a full disk or a hand edit may leave it. Read either fails naming the
// file and line, or returns JSON records that, with the torn tail it
// reports, are exactly the file; reopening for append drops the torn tail
// and the next record reads back after the others.
func FuzzReadLive(f *testing.F) {
	for _, s := range []string{
		"{\"type\":\"session\",\"session\":{\"version\":1,\"id\":\"s1\",\"workspace\":\"/w\",\"model\":\"a/b\",\"created\":\"2025-01-02T03:04:05Z\"}}\n{\"type\":\"turn\",\"turn\":1}\n",
		"{\"n\":1}\n{\"n\":2}\n{\"n\":3,\"s\":\"to",
		"{\"n\":1}\nnot json\n{\"n\":2}\n",
		"{\"n\":1}\r\n", "\n", "", "{", "[]\n\"s\"\n1\nnull\n", "{\"n\":1}\n\xff\xfe",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		if err := os.WriteFile(LivePath(dir, "s1"), data, 0o600); err != nil {
			t.Fatal(err)
		}
		recs, torn, err := Read(dir, "s1")
		if err != nil {
			if !strings.HasPrefix(err.Error(), LivePath(dir, "s1")+":") {
				t.Fatalf("error does not name the file and line: %v", err)
			}
			return
		}
		var again bytes.Buffer
		for _, r := range recs {
			if !json.Valid(r) || bytes.IndexByte(r, '\n') >= 0 {
				t.Fatalf("record %q", r)
			}
			again.Write(r)
			again.WriteByte('\n')
		}
		if torn != nil {
			if torn.Offset != int64(again.Len()) || torn.Bytes != len(data)-again.Len() || torn.Bytes == 0 {
				t.Fatalf("torn %+v after %d bytes of records in %d", torn, again.Len(), len(data))
			}
			again.Write(data[torn.Offset:])
		}
		if !bytes.Equal(again.Bytes(), data) {
			t.Fatalf("records and torn tail are not the file")
		}

		l, reopened, _, err := Open(dir, "s1")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		if len(reopened) != len(recs) {
			t.Fatalf("Open read %d records, Read %d", len(reopened), len(recs))
		}
		if err := l.Append(map[string]int{"next": 1}); err != nil {
			t.Fatal(err)
		}
		after, torn, err := Read(dir, "s1")
		if err != nil || torn != nil || len(after) != len(recs)+1 || string(after[len(recs)]) != `{"next":1}` {
			t.Fatalf("after an append: %d records (want %d), torn %v, %v", len(after), len(recs)+1, torn, err)
		}
	})
}
