package extproto

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unsafe"
)

// The scanner must agree with encoding/json on what is valid JSON and on
// what a string decodes to.
func FuzzScanner(f *testing.F) {
	for _, s := range []string{
		`{}`, ` {"a":[1,2.5e-3,{"b":null}],"c":"\u00e9\ud83d\ude00"} `, `[1]`, `"x"`,
		`"\ud800\udc00\ud800x\udfff"`, "\"\xff\xfe\"", `{"a":01}`, `{"a" 1}`, `[1,]`,
		`"\u12"`, `-`, `1.`, `1e+`, `tru`, `{"a":1}{}`, "\"a\tb\"",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		valid := json.Valid(b)
		trimmed := bytes.TrimLeft(b, " \t\r\n")
		if got, want := isJSONObject(b), valid && len(trimmed) > 0 && trimmed[0] == '{'; got != want {
			t.Fatalf("isJSONObject(%q) = %v, encoding/json says %v", b, got, want)
		}
		d := decoder{data: b}
		d.skipWS()
		skipErr := d.skipValue()
		d.skipWS()
		if ours := skipErr == nil && d.pos == len(b); ours != valid {
			t.Fatalf("skipValue(%q) valid=%v, encoding/json says %v", b, ours, valid)
		}
		if !valid || len(trimmed) == 0 || trimmed[0] != '"' {
			return
		}
		var want string
		if err := json.Unmarshal(b, &want); err != nil {
			t.Fatal(err)
		}
		d = decoder{data: trimmed}
		got, err := d.str()
		if err != nil || string(got) != want {
			t.Fatalf("str(%q) = %q, %v; encoding/json says %q", trimmed, got, err, want)
		}
	})
}

func TestScannerNestingBound(t *testing.T) {
	t.Parallel()
	deep := bytes.Repeat([]byte("["), maxDepth+1)
	deep = append(deep, bytes.Repeat([]byte("]"), maxDepth+1)...)
	d := decoder{data: deep}
	if err := d.skipValue(); err == nil || err.Msg != "invalid JSON: nesting exceeds the maximum depth" {
		t.Fatalf("skipValue of %d nested arrays: %v", maxDepth+1, err)
	}
	ok := deep[1 : len(deep)-1]
	d = decoder{data: ok}
	if err := d.skipValue(); err != nil {
		t.Fatalf("skipValue of %d nested arrays: %v", maxDepth, err)
	}
}

// The bound counts the whole document, DTO levels included, exactly like
// encoding/json: a payload one level short of it is accepted, one more is
// not.
func TestNestingBoundCountsTheWholeDocument(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		inner int
		ok    bool
	}{{maxDepth - 1, true}, {maxDepth, false}} {
		raw := []byte(`{"event":"input.receive","seq":1,"timeoutMillis":1,"payload":` +
			string(bytes.Repeat([]byte("["), tt.inner)) + string(bytes.Repeat([]byte("]"), tt.inner)) + `}`)
		_, err := DecodeParams(MethodIntercept, raw)
		lenient := json.Unmarshal(raw, new(InterceptParams))
		if (err == nil) != tt.ok || (lenient == nil) != tt.ok {
			t.Fatalf("payload nested %d deep: strict %v, encoding/json %v, want ok=%v", tt.inner, err, lenient, tt.ok)
		}
	}
}

// TestBigStringsShareMemory: a big string decoded with escapes keeps the
// buffer it was unescaped into, one decoded from an owned input keeps the
// input, and neither changes what is decoded; a raw that is not handed
// over is never shared.
func TestBigStringsShareMemory(t *testing.T) {
	t.Parallel()
	inside := func(s string, mem []byte) bool {
		p, lo := uintptr(unsafe.Pointer(unsafe.StringData(s))), uintptr(unsafe.Pointer(unsafe.SliceData(mem)))
		return p >= lo && p < lo+uintptr(len(mem))
	}
	page := strings.Repeat("QUJD", bigString/4+1)
	raw := []byte(`{"contentRef":"r","dataBase64":"` + page + `","encoding":"utf8","offset":0,"sha256":"` + strings.Repeat("a", 64) + `","totalBytes":3}`)
	for _, owned := range []bool{false, true} {
		decode := DecodeResult
		if owned {
			decode = DecodeResultOwned
		}
		v, err := decode(MethodContentRead, append(json.RawMessage(nil), raw...))
		if err != nil {
			t.Fatal(err)
		}
		r := v.(*ContentReadResult)
		if r.DataBase64 != page {
			t.Fatalf("owned=%v: dataBase64 differs", owned)
		}
	}
	mine := append([]byte(nil), raw...)
	v, err := DecodeResultOwned(MethodContentRead, mine)
	if err != nil {
		t.Fatal(err)
	}
	if !inside(v.(*ContentReadResult).DataBase64, mine) {
		t.Fatal("an owned raw's big string was copied")
	}
	theirs := append([]byte(nil), raw...)
	if v, err = DecodeResult(MethodContentRead, theirs); err != nil {
		t.Fatal(err)
	}
	if inside(v.(*ContentReadResult).DataBase64, theirs) {
		t.Fatal("a raw not handed over shares memory with the result")
	}

	// Two big escaped strings in one document: the first keeps its
	// buffer, so the second must not be unescaped into it.
	type two struct {
		A string `json:"a"`
		B string `json:"b"`
	}
	a, b := strings.Repeat("a\n", bigString), strings.Repeat("b\t", bigString)
	doc, _ := json.Marshal(two{a, b})
	var got two
	if err := Decode(doc, &got); err != nil {
		t.Fatal(err)
	}
	if got.A != a || got.B != b {
		t.Fatal("two big escaped strings decoded into each other")
	}

	for _, tc := range []struct {
		name string
		text string
	}{
		{"escapes", strings.Repeat("\tfmt.Println(\"hi\")\n", bigString/16)},
		{"escapes that shrink past a quarter", strings.Repeat("\u0001", bigString)},
		{"small", "a\tb"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			enc, _ := json.Marshal(InputReceivePayload{Text: tc.text})
			p, err := DecodePayload(InputReceive, enc)
			if err != nil {
				t.Fatal(err)
			}
			if got := p.(*InputReceivePayload).Text; got != tc.text {
				t.Fatalf("decoded %d bytes, want %d", len(got), len(tc.text))
			}
		})
	}
}
