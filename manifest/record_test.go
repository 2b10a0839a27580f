package manifest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRecordsRoundTrip(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	in := `{"version":0,"future":{"a":[1]},"plugins":[
	  {"name":"zeta","root":"plugins/zeta","enabled":false,"status":"disabled_incompatible","statusReason":"why","x-extra":"kept"},
	  {"name":"alpha","source":"/src/a&b","root":"/abs/alpha","version":"1.0","description":"<A>","manifestKind":"reasonix","enabled":true,"commit":"abc"}
	]}`
	set, _, err := decodeRecords(home, []byte(in), false)
	if err != nil {
		t.Fatal(err)
	}
	if got := set.records[1].Dir(); got != filepath.Join(home, "plugins", "zeta") {
		t.Errorf("relative root resolved to %s", got)
	}
	if set.records[1].Linked() || !set.records[0].Linked() {
		t.Errorf("linked = %v %v", set.records[0].Linked(), set.records[1].Linked())
	}
	out, err := encodeRecords(set)
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "version": 1,
  "plugins": [
    {
      "name": "alpha",
      "source": "/src/a&b",
      "root": "/abs/alpha",
      "version": "1.0",
      "description": "<A>",
      "manifestKind": "reasonix",
      "enabled": true,
      "commit": "abc"
    },
    {
      "name": "zeta",
      "root": "plugins/zeta",
      "enabled": false,
      "status": "disabled_incompatible",
      "statusReason": "why",
      "x-extra": "kept"
    }
  ],
  "future": {
    "a": [
      1
    ]
  }
}
`
	if string(out) != want {
		t.Errorf("encoded\n%s\nwant\n%s", out, want)
	}
	empty, _ := encodeRecords(recordSet{})
	if string(empty) != "{\n  \"version\": 1,\n  \"plugins\": []\n}\n" {
		t.Errorf("empty = %q", empty)
	}
}

func TestRecordsErrors(t *testing.T) {
	t.Parallel()
	const f = "plugin-packages.json: "
	tests := []struct{ name, doc, want string }{
		{"corrupt", `{"version":1,"plugins":[`, f + "invalid JSON at line 1, column 24: unexpected end of JSON input (the file is corrupt; fix or restore it, rx-bridge will not reset it)"},
		{"not object", `[]`, f + "want an object, got array"},
		{"version", `{"version":2,"plugins":[]}`, f + "version: unsupported records version 2 (this rx-bridge reads version 1)"},
		{"plugins type", `{"plugins":{}}`, f + "plugins: want an array, got object"},
		{"name missing", `{"plugins":[{"root":"/r","enabled":true}]}`, f + "plugins[0].name: required"},
		{"root missing", `{"plugins":[{"name":"a","enabled":true}]}`, f + "plugins[0].root: required"},
		{"enabled missing", `{"plugins":[{"name":"a","root":"/r"}]}`, f + "plugins[0].enabled: required"},
		{"enabled type", `{"plugins":[{"name":"a","root":"/r","enabled":"yes"}]}`, f + "plugins[0].enabled: want a boolean, got string"},
		{"bad kind", `{"plugins":[{"name":"a","root":"/r","enabled":true,"manifestKind":"npm"}]}`, f + `plugins[0].manifestKind: unknown value "npm" (want one of: reasonix, codex, claude)`},
		{"bad name", `{"plugins":[{"name":"A","root":"/r","enabled":true}]}`, f + `plugins[0].name: invalid plugin name "A": use 1 to 64 lower-case letters, digits, "-", "_" or ".", starting with a letter or digit`},
		{"duplicate", `{"plugins":[{"name":"a","root":"/r","enabled":true},{"name":"a","root":"/s","enabled":true}]}`, f + `plugins[1].name: plugin "a" is recorded twice (also at plugins[0])`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, _, err := decodeRecords(t.TempDir(), []byte(tc.doc), false)
			if err == nil || err.Error() != tc.want {
				t.Errorf("err = %v\nwant %s", err, tc.want)
			}
		})
	}
}

func TestReadRecordsNamesTheFile(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	file := filepath.Join(home, RecordsFile)
	os.WriteFile(file, []byte("garbage"), 0o644)
	_, _, err := readRecords(home, false)
	if err == nil || !strings.HasPrefix(err.Error(), file+": invalid JSON") {
		t.Fatalf("err = %v", err)
	}
	os.Remove(file)
	os.Mkdir(file, 0o755)
	_, _, err = readRecords(home, false)
	if err == nil || !strings.HasPrefix(err.Error(), "cannot read install records "+file+": ") {
		t.Fatalf("err = %v", err)
	}
}

func TestForeignRecordsSkipBadNames(t *testing.T) {
	t.Parallel()
	set, warnings, err := decodeRecords("/rh", []byte(`{"plugins":[{"name":"Mixed","root":"plugins/Mixed","enabled":true},{"name":"ok","root":"plugins/ok","enabled":true}]}`), true)
	if err != nil {
		t.Fatal(err)
	}
	if len(set.records) != 1 || set.records[0].Name != "ok" || len(warnings) != 1 {
		t.Fatalf("records = %+v warnings = %q", set.records, warnings)
	}
	if !strings.Contains(warnings[0], `plugins[0]: skipped: invalid plugin name "Mixed"`) {
		t.Errorf("warning = %q", warnings[0])
	}
}
