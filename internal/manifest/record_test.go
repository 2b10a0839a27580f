package manifest

import (
	"os"
	"path/filepath"
	"runtime"
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

// A records file Reasonix wrote on Windows, read here (a Reasonix home on
// a shared or mounted drive): relative roots use backslashes, linked ones
// a drive letter.
func TestRecordsFromAnotherSystem(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	other := `C:\\Users\\u\\src\\linked`
	if runtime.GOOS == "windows" {
		other = "/home/u/src/linked"
	}
	data := []byte(`{"plugins":[{"name":"copied","root":"plugins\\copied","enabled":true},{"name":"linked","root":"` + other + `","enabled":true}]}`)
	set, warnings, err := decodeRecords(home, data, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(set.records) != 1 || set.records[0].Name != "copied" {
		t.Fatalf("records = %+v", set.records)
	}
	if got, want := set.records[0].Dir(), filepath.Join(home, "plugins", "copied"); got != want {
		t.Errorf("relative root with backslashes resolved to %s, want %s", got, want)
	}
	if set.records[0].Linked() {
		t.Error("the copy under plugins/ counts as linked")
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], `plugins[1]: skipped: root "`+other+`" is a path on another operating system`) {
		t.Errorf("warnings = %q", warnings)
	}
	// The bridge's own records are never dropped (it rewrites the file):
	// the record stays, and its root is not taken for one under the home.
	own, _, err := decodeRecords(home, data, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(own.records) != 2 {
		t.Fatalf("own records = %+v", own.records)
	}
	if got, want := own.records[1].Dir(), strings.ReplaceAll(other, `\\`, `\`); got != want || !own.records[1].Linked() {
		t.Errorf("root from another system resolved to %s (linked %v), want %s as written", got, own.records[1].Linked(), want)
	}
}

func TestRecordDirOS(t *testing.T) {
	t.Parallel()
	const winHome = `C:\Users\u\AppData\Roaming\reasonix`
	tests := []struct{ goos, home, root, want string }{
		{"windows", winHome, "plugins/hello", winHome + `\plugins\hello`},
		{"windows", winHome, `plugins\hello`, winHome + `\plugins\hello`},
		{"windows", winHome, `D:/src/hello/`, `D:\src\hello`},
		{"windows", winHome, `\\srv\share\hello`, `\\srv\share\hello`},
		{"windows", winHome, "/home/u/src/hello", "/home/u/src/hello"},
		{"linux", "/home/u/.reasonix", "plugins/hello", "/home/u/.reasonix/plugins/hello"},
		{"linux", "/home/u/.reasonix", `plugins\hello`, "/home/u/.reasonix/plugins/hello"},
		{"linux", "/home/u/.reasonix", "/home/u/src/hello/", "/home/u/src/hello"},
		{"linux", "/home/u/.reasonix", `C:\Users\u\src\hello`, `C:\Users\u\src\hello`},
		{"linux", "/home/u/.reasonix", `D:/src/hello`, `D:/src/hello`},
	}
	for _, tc := range tests {
		if got := recordDir(targetFor(tc.goos), tc.home, tc.root); got != tc.want {
			t.Errorf("%s: recordDir(%q, %q) = %q, want %q", tc.goos, tc.home, tc.root, got, tc.want)
		}
	}
}
