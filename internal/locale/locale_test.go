package locale

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		tag  string
		want Lang
		ok   bool
	}{
		{"", English, false},
		{"C", English, false},
		{"POSIX", English, false},
		{"C.UTF-8", English, false},
		{"en", English, true},
		{"en_US.UTF-8", English, true},
		{"de-DE", English, true},
		{"zh-cn", SimplifiedChinese, true},
		{"zh-CN", SimplifiedChinese, true},
		{"zh_CN.UTF-8", SimplifiedChinese, true},
		{"zh_CN.GB18030@pinyin", SimplifiedChinese, true},
		{"zh", SimplifiedChinese, true},
		{"zh-Hans", SimplifiedChinese, true},
		{"zh-Hans-CN", SimplifiedChinese, true},
		{"zh_SG", SimplifiedChinese, true},
		{"zh-TW", English, true},
		{"zh_HK.UTF-8", English, true},
		{"zh-Hant-TW", English, true},
		{" zh-cn ", SimplifiedChinese, true},
	} {
		got, ok := Parse(tc.tag)
		if got != tc.want || ok != tc.ok {
			t.Errorf("Parse(%q) = %q, %v; want %q, %v", tc.tag, got, ok, tc.want, tc.ok)
		}
	}
}

func TestFromEnv(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		env  map[string]string
		want Lang
	}{
		{"nothing", nil, English},
		{"LANG", map[string]string{"LANG": "zh_CN.UTF-8"}, SimplifiedChinese},
		{"LC_ALL beats LANG", map[string]string{"LC_ALL": "en_US.UTF-8", "LANG": "zh_CN.UTF-8"}, English},
		{"LC_MESSAGES beats LANG", map[string]string{"LC_MESSAGES": "zh_CN", "LANG": "en_US"}, SimplifiedChinese},
		{"C is no language", map[string]string{"LC_ALL": "C", "LANG": "zh_CN.UTF-8"}, SimplifiedChinese},
		{"RX_BRIDGE_LANG first", map[string]string{"RX_BRIDGE_LANG": "en", "LC_ALL": "zh_CN.UTF-8"}, English},
		{"RX_BRIDGE_LANG zh", map[string]string{"RX_BRIDGE_LANG": "zh-CN", "LANG": "en_US"}, SimplifiedChinese},
	} {
		if got := FromEnv(func(k string) string { return tc.env[k] }); got != tc.want {
			t.Errorf("%s: FromEnv = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestTranslate(t *testing.T) {
	t.Parallel()
	if got := SimplifiedChinese.T("Default model: %s", "local/x"); got != "默认模型：local/x" {
		t.Errorf("zh-CN = %q", got)
	}
	if got := English.T("Default model: %s", "local/x"); got != "Default model: local/x" {
		t.Errorf("en = %q", got)
	}
	// Indexed verbs put the arguments where Chinese wants them.
	if got := SimplifiedChinese.T("Install plugin %s from %s", "hello", "/src/hello"); got != "从 /src/hello 安装插件 hello" {
		t.Errorf("indexed = %q", got)
	}
	// Not in the catalogue: English, formatted.
	if got := SimplifiedChinese.T("no such text %d", 7); got != "no such text 7" {
		t.Errorf("missing = %q", got)
	}
	// Without arguments the text is not a format: a % stays.
	if got := SimplifiedChinese.T("100% sure"); got != "100% sure" {
		t.Errorf("no args = %q", got)
	}
}

// verbs lists a format's verbs as "argument:verb", sorted, so a
// translation that reorders arguments with %[n] still matches.
func verbs(t *testing.T, format string) []string {
	t.Helper()
	var out []string
	arg := 0
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			continue
		}
		i++
		if i < len(format) && format[i] == '%' {
			continue
		}
		for i < len(format) && strings.IndexByte("+-# 0", format[i]) >= 0 {
			i++
		}
		index := func() {
			if i < len(format) && format[i] == '[' {
				end := strings.IndexByte(format[i:], ']')
				if end < 0 {
					t.Fatalf("%q: unclosed %%[", format)
				}
				n, err := strconv.Atoi(format[i+1 : i+end])
				if err != nil {
					t.Fatalf("%q: bad index: %v", format, err)
				}
				arg = n - 1
				i += end + 1
			}
		}
		index()
		for i < len(format) && (format[i] >= '0' && format[i] <= '9' || format[i] == '.') {
			i++
		}
		index() // "%.1[2]f": an index after the precision (fmt rejects "%[2].1f")
		if i >= len(format) {
			t.Fatalf("%q: ends inside a verb", format)
		}
		out = append(out, strconv.Itoa(arg)+":"+string(format[i]))
		arg++
	}
	sort.Strings(out)
	return out
}

// TestCatalogueVerbs: every translation takes the same arguments with the
// same verbs as its English text.
func TestCatalogueVerbs(t *testing.T) {
	t.Parallel()
	for en, zh := range zhCN {
		if a, b := strings.Join(verbs(t, en), " "), strings.Join(verbs(t, zh), " "); a != b {
			t.Errorf("%q: verbs %s, translation %q has %s", en, a, zh, b)
		}
		if strings.TrimSpace(zh) == "" {
			t.Errorf("%q: empty translation", en)
		}
	}
}

// TestCatalogueCoversTheSource: every text the module's code passes to
// locale.T as a literal has a translation, and every translation is of a
// text some code still has (no stale entries).
func TestCatalogueCoversTheSource(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root not found at %s: %v", root, err)
	}
	here, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	literals := map[string]bool{}
	translated := map[string]string{} // text → where
	fset := token.NewFileSet()
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); path != root && (strings.HasPrefix(n, ".") || n == "testdata" || n == "node_modules" || n == "vscode-client" || n == "nvim") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		own := filepath.Dir(path) == here // the catalogue's keys are no use
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.BasicLit:
				if n.Kind == token.STRING && !own {
					if s, err := strconv.Unquote(n.Value); err == nil {
						literals[s] = true
					}
				}
			case *ast.CallExpr:
				sel, ok := n.Fun.(*ast.SelectorExpr)
				if !ok || sel.Sel.Name != "T" || len(n.Args) == 0 {
					return true
				}
				if x, ok := sel.X.(*ast.Ident); !ok || x.Name != "locale" {
					return true
				}
				if lit, ok := n.Args[0].(*ast.BasicLit); ok && lit.Kind == token.STRING {
					if s, err := strconv.Unquote(lit.Value); err == nil {
						translated[s] = fset.Position(lit.Pos()).String()
					}
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(translated) < 20 {
		t.Fatalf("found only %d locale.T texts: is the walk broken?", len(translated))
	}
	for s, where := range translated {
		if _, ok := zhCN[s]; !ok {
			t.Errorf("%s: %q has no zh-CN translation in catalog_zh.go", where, s)
		}
	}
	for s := range zhCN {
		if !literals[s] {
			t.Errorf("catalog_zh.go: %q is no text of the code any more", s)
		}
	}
}
