package manifest

import (
	"bytes"
	"encoding/json"
	"errors"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
	"github.com/rx-bridge/rx-bridge/extproto"
)

// FuzzRecords feeds arbitrary bytes to the plugin-packages.json reader:
// the file is the trust record, and Reasonix (or a user's editor) writes it
// too. An error locates every problem; an accepted file has unique valid
// names, and writing it back and reading that again gives the same records,
// unknown members included, and the same bytes when written once more.
func FuzzRecords(f *testing.F) {
	for _, s := range []string{
		`{"version":0,"future":{"a":[1]},"plugins":[
		  {"name":"zeta","root":"plugins/zeta","enabled":false,"status":"disabled_incompatible","statusReason":"why","x-extra":"kept"},
		  {"name":"alpha","source":"/src/a&b","root":"/abs/alpha","version":"1.0","description":"<A>","manifestKind":"reasonix","enabled":true,"commit":"abc"}]}`,
		"{\n  \"version\": 1,\n  \"plugins\": []\n}\n",
		`{"version":1,"plugins":[{"name":"hello","source":"/home/me/src/hello","root":"/home/me/.config/rx-bridge/plugins/hello","version":"0.1.0","description":"Greets you from a sidecar","manifestKind":"reasonix","enabled":true}]}`,
		`{"plugins":[{"name":"Bad Name","root":"x","enabled":true},{"name":"a","root":"a","enabled":true},{"name":"a","root":"b","enabled":1}]}`,
		`{"version":2,"plugins":{}}`, `{"plugins":null,"x":"\u2028"}`, `{"plugins":[{"name":"a","root":" ","enabled":true,"manifestKind":"other"}]}`,
		`{"plugins":[{"name":"a","root":"r","enabled":true,"name":"b"}]}`,
		`[]`, `{`, ``, `null`, `{"version":1e400}`,
	} {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	home := filepath.FromSlash("/home/fuzz")
	f.Fuzz(func(t *testing.T, data []byte, foreign bool) {
		set, warnings, err := decodeRecords(home, data, foreign)
		if err != nil {
			var me *Error
			if !errors.As(err, &me) || len(me.Problems) == 0 || me.File != RecordsFile {
				t.Fatalf("error is not a located *Error: %#v", err)
			}
			for _, p := range me.Problems {
				if p.Msg == "" || (p.Path == "" && !strings.Contains(p.Msg, "rx-bridge will not reset it") && !strings.HasPrefix(p.Msg, "want an object")) {
					t.Fatalf("problem %+v does not say where", p)
				}
			}
			return
		}
		if !foreign && len(warnings) > 0 {
			t.Fatalf("warnings for an own records file: %q", warnings)
		}
		seen := map[string]bool{}
		for _, r := range set.records {
			if ValidateName(r.Name) != nil || seen[r.Name] || strings.TrimSpace(r.Root) == "" || r.Home != home {
				t.Fatalf("accepted record %+v", r)
			}
			seen[r.Name] = true
		}
		if !slices.IsSortedFunc(set.records, func(a, b Record) int { return strings.Compare(a.Name, b.Name) }) {
			t.Fatal("records not sorted")
		}
		out, err := encodeRecords(set)
		if err != nil {
			t.Fatalf("encode: %v", err)
		}
		again, _, err := decodeRecords(home, out, false)
		if err != nil {
			t.Fatalf("what was written does not read back: %v\n%s", err, out)
		}
		if !sameRecords(set, again) {
			t.Fatalf("round trip changed the records:\n%+v\n%+v", set, again)
		}
		if out2, _ := encodeRecords(again); !bytes.Equal(out, out2) {
			t.Fatalf("written twice differently:\n%s\n%s", out, out2)
		}
	})
}

// sameRecords compares two sets, unknown members by their compact JSON.
func sameRecords(a, b recordSet) bool {
	norm := func(m map[string]json.RawMessage) map[string]string {
		out := map[string]string{}
		for k, v := range m {
			var c bytes.Buffer
			json.Compact(&c, v)
			out[k] = c.String()
		}
		return out
	}
	if len(a.records) != len(b.records) || !reflect.DeepEqual(norm(a.extra), norm(b.extra)) {
		return false
	}
	for i := range a.records {
		ra, rb := a.records[i], b.records[i]
		ea, eb := norm(ra.extra), norm(rb.extra)
		ra.extra, rb.extra = nil, nil
		if !reflect.DeepEqual(ra, rb) || !reflect.DeepEqual(ea, eb) {
			return false
		}
	}
	return true
}

// FuzzConfig feeds arbitrary bytes to the config.toml reader. An error
// locates each problem by key or line; an accepted config satisfies every
// rule the reader enforces, and writing its settings back as TOML and
// reading that gives the same settings.
func FuzzConfig(f *testing.F) {
	for _, s := range []string{
		"model = \"openai/gpt\"\ntool_approval = \"auto\"\nstep_budget = 10\nreasonix_home = \"~/.reasonix\"\n[timeouts]\nstartup = \"45s\"\nshutdown = \"2s\"\ntool = \"5m\"\n[ui]\ntheme = \"plugin:hello:dark\"\nshow_thoughts = false\n[plugins.hello]\nenabled = false\n",
		"[[providers.openai]]\nname = \"local\"\nbase_url = \"http://127.0.0.1:8080/v1\"\n[[providers.openai.models]]\nid = \"m\"\n",
		"model = \"plugin/echo/echo/model\"\n[plugins.\"Bad Name\"]\nenabled = true\n",
		"tool_approval = \"\"\nstep_budget = 0\n", "[timeouts]\ntool = \"-1s\"\n", "[timeouts]\ntool = 5\n",
		"reasonix_home = \"relative\"\n", "modle = \"x\"\n", "[ui]\ncolour = 1\n",
		"model = \"\"\"\nx\n\"\"\"\n", "[ui\n", "= 1", "\"\" = 1\n", "a.b.c = 1\n", "",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := parseConfig("config.toml", data)
		if err != nil {
			var me *Error
			if !errors.As(err, &me) || len(me.Problems) == 0 || me.File != "config.toml" {
				t.Fatalf("error is not a located *Error: %#v", err)
			}
			for _, p := range me.Problems {
				if p.Msg == "" || (p.Path == "" && p.Line == 0) {
					t.Fatalf("problem %+v names neither a key nor a line", p)
				}
			}
			return
		}
		if a := c.Approval(); a != ApproveAsk && a != ApproveAuto && a != ApproveYolo {
			t.Fatalf("approval %q", a)
		}
		if c.Steps() < 1 || c.StartupTimeout() <= 0 || c.ShutdownTimeout() <= 0 || c.ToolTimeout() <= 0 {
			t.Fatalf("accepted bounds %+v", c)
		}
		if c.Model != "" && extproto.ValidateProviderRef(c.Model) != nil {
			t.Fatalf("accepted model %q", c.Model)
		}
		if h := c.ReasonixHome; h != "" && !filepath.IsAbs(h) && !strings.HasPrefix(h, "~/") {
			t.Fatalf("accepted reasonix_home %q", h)
		}
		for name := range c.Plugins {
			if ValidateName(name) != nil {
				t.Fatalf("accepted plugin name %q", name)
			}
		}
		var providers map[string]any
		_ = c.DecodeSection("providers", &providers)

		var buf bytes.Buffer
		if err := toml.NewEncoder(&buf).Encode(settingsOf(c)); err != nil {
			t.Fatalf("encode: %v", err)
		}
		back, err := parseConfig("config.toml", buf.Bytes())
		if err != nil {
			t.Fatalf("the settings written back do not read: %v\n%s", err, buf.Bytes())
		}
		if !reflect.DeepEqual(settingsOf(c), settingsOf(back)) {
			t.Fatalf("round trip changed the settings:\n%+v\n%+v\n%s", settingsOf(c), settingsOf(back), buf.Bytes())
		}
	})
}

// configSettings is Config without its [providers] section and source.
type configSettings struct {
	Model        string                  `toml:"model,omitempty"`
	ToolApproval ApprovalMode            `toml:"tool_approval,omitempty"`
	StepBudget   int                     `toml:"step_budget,omitzero"`
	ReasonixHome string                  `toml:"reasonix_home,omitempty"`
	Timeouts     timeoutSettings         `toml:"timeouts"`
	UI           UIConfig                `toml:"ui"`
	Plugins      map[string]PluginConfig `toml:"plugins,omitempty"`
}

type timeoutSettings struct {
	Startup  *Duration `toml:"startup,omitempty"`
	Shutdown *Duration `toml:"shutdown,omitempty"`
	Tool     *Duration `toml:"tool,omitempty"`
}

func settingsOf(c *Config) configSettings {
	d := func(d Duration) *Duration {
		if d.Duration == 0 {
			return nil
		}
		return &d
	}
	plugins := c.Plugins
	if len(plugins) == 0 {
		plugins = nil
	}
	return configSettings{c.Model, c.ToolApproval, c.StepBudget, c.ReasonixHome,
		timeoutSettings{d(c.Timeouts.Startup), d(c.Timeouts.Shutdown), d(c.Timeouts.Tool)}, c.UI, plugins}
}
