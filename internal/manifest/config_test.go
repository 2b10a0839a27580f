package manifest

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadConfig(t *testing.T) {
	t.Parallel()
	rhome := "/home/u/.reasonix"
	if runtime.GOOS == "windows" {
		rhome = `C:\Users\u\.reasonix`
	}
	p := writeFile(t, t.TempDir(), "config.toml", `
model = "openai/gpt-4o"
tool_approval = "auto"
step_budget = 40
reasonix_home = '`+rhome+`'

[timeouts]
startup = "45s"
tool = "10m"

[ui]
theme = "plugin:hello:dark"
show_thoughts = true

[hooks]
project = true

[plugins.hello]
enabled = false

[plugins."a.b"]
enabled = true
`)
	c, err := LoadConfig(p)
	if err != nil {
		t.Fatal(err)
	}
	if c.Model != "openai/gpt-4o" || c.Approval() != ApproveAuto || c.Steps() != 40 || c.ReasonixHome != rhome {
		t.Errorf("config = %+v", c)
	}
	if c.StartupTimeout() != 45*time.Second || c.ToolTimeout() != 10*time.Minute || c.ShutdownTimeout() != 5*time.Second {
		t.Errorf("timeouts = %v %v %v", c.StartupTimeout(), c.ToolTimeout(), c.ShutdownTimeout())
	}
	if !c.PluginDisabled("hello") || c.PluginDisabled("a.b") || c.PluginDisabled("other") {
		t.Errorf("plugins = %+v", c.Plugins)
	}
	if c.UI.Theme != "plugin:hello:dark" || c.UI.ShowThoughts == nil || !*c.UI.ShowThoughts {
		t.Errorf("ui = %+v", c.UI)
	}
	if !c.Hooks.Project {
		t.Errorf("hooks = %+v", c.Hooks)
	}
}

func TestLoadConfigDefaults(t *testing.T) {
	t.Parallel()
	c, err := LoadConfig(filepath.Join(t.TempDir(), "missing.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if c.Approval() != ApproveAsk || c.Steps() != 25 || c.StartupTimeout() != 30*time.Second || c.ToolTimeout() != 2*time.Minute {
		t.Errorf("defaults = %+v", c)
	}
}

func TestLoadConfigErrors(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, src, want string }{
		{"unknown top key", "model = \"a/b\"\nstep_budgte = 3\n", `:2: step_budgte: unknown field (did you mean "step_budget"?)`},
		{"unknown table", "model = \"a/b\"\n\n[agent.limits]\nturns = 3\n", ":3: agent: unknown field"},
		{"unknown nested key", "[timeouts]\nstartup = \"1s\"\nstrtup = \"2s\"\n", `:3: timeouts.strtup: unknown field (did you mean "startup"?)`},
		{"unknown plugin key", "[plugins.hello]\nenable = false\n", `:2: plugins.hello.enable: unknown field (did you mean "enabled"?)`},
		{"dotted unknown", "ui.colour = \"x\"\n", ":1: ui.colour: unknown field"},
		{"syntax", "model = \n", ":1: model: expected value but found '\\n' instead"},
		// Found by FuzzConfig: BurntSushi reports an error at the end of
		// the input one line early (line 0 on the first line), with a NUL for the end.
		{"unterminated string on line 1", "\"\\", ":1: invalid escape in string '\\'"},
		{"unterminated string on line 3", "model = \"a/b\"\n\n\"\\", ":3: invalid escape in string '\\'"},
		{"duplicate key", "model = \"a/b\"\nmodel = \"c/d\"\n", ":2: model: Key 'model' has already been defined."},
		{"wrong type", "\n\nstep_budget = \"many\"\n", ":3: step_budget: want an integer, got a string"},
		{"wrong type bool", "[plugins.x]\nenabled = 1\n", ":2: plugins.x.enabled: want a boolean, got an integer"},
		{"approval", "tool_approval = \"always\"\n", `:1: tool_approval: unknown mode "always" (want ask, auto or yolo)`},
		{"approval empty", "tool_approval = \"\"\n", `:1: tool_approval: unknown mode "" (want ask, auto or yolo)`},
		{"step budget zero", "step_budget = 0\n", ":1: step_budget: 0 must be at least 1"},
		{"bad duration", "[timeouts]\ntool = \"forever\"\n", `:2: timeouts.tool: invalid duration "forever": want a duration such as "30s" or "2m"`},
		{"negative duration", "[timeouts]\ntool = \"-1s\"\n", `:2: timeouts.tool: duration "-1s" must be positive`},
		{"bad model", "model = \"gpt4\"\n", `:1: model: invalid provider ref "gpt4": want <provider>/<model> or plugin/<plugin>/<provider>/<model>`},
		{"relative reasonix home", "reasonix_home = \".reasonix\"\n", `:1: reasonix_home: ".reasonix" must be an absolute path or start with ~/`},
		// Found by FuzzConfig: BurntSushi decodes a key into a field whatever
		// its case, which slipped past every check that asks for the key by
		// its name (a relative reasonix_home was accepted).
		{"mis-cased key", "reAsoniX_home = \"0\"\n", `:1: reAsoniX_home: unknown field (did you mean "reasonix_home"?)`},
		{"mis-cased nested key", "[Timeouts]\nTool = \"1s\"\n", `:1: Timeouts: unknown field (did you mean "timeouts"?)`},
		{"mis-cased plugin key", "[plugins.x]\nEnabled = false\n", `:2: plugins.x.Enabled: unknown field (did you mean "enabled"?)`},
		{"unknown hooks key", "[hooks]\nprojects = true\n", `:2: hooks.projects: unknown field (did you mean "project"?)`},
		{"hooks project not a bool", "[hooks]\nproject = \"yes\"\n", ":2: hooks.project: want a boolean, got a string"},
		{"bad plugin name", "[plugins.Hello]\nenabled = false\n", `:1: plugins.Hello: invalid plugin name "Hello": use 1 to 64 lower-case letters, digits, "-", "_" or ".", starting with a letter or digit`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := writeFile(t, t.TempDir(), "config.toml", tc.src)
			_, err := LoadConfig(p)
			if err == nil || err.Error() != p+tc.want {
				t.Errorf("err = %v\nwant %s", err, p+tc.want)
			}
		})
	}
}

func TestLoadWorkspace(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, dir, WorkspaceFile, "model = \"plugin/hello/echo/v1\"\n[ui]\ntheme = \"t\"\n")
	w, err := LoadWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	if w.Model != "plugin/hello/echo/v1" || w.UI.Theme != "t" {
		t.Errorf("workspace = %+v", w)
	}
	if w, err := LoadWorkspace(t.TempDir()); err != nil || w.Model != "" {
		t.Errorf("missing workspace file = %+v, %v", w, err)
	}
}

// TestWorkspaceCannotDeclareRuntime: SPEC §8, project configuration can
// never declare or enable a runtime, however it is spelled.
func TestWorkspaceCannotDeclareRuntime(t *testing.T) {
	t.Parallel()
	const refusal = "project configuration can never declare or enable a plugin runtime; only plugins installed with \"rx-bridge plugin install\" (recorded in the rx-bridge home) can run"
	tests := []struct{ name, src, want string }{
		{"plugins table", "model = \"a/b\"\n[plugins.evil]\nenabled = true\n", ":2: plugins: " + refusal},
		{"runtime table", "[runtime]\ncommand = \"/bin/evil\"\n", ":1: runtime: " + refusal},
		{"bare command", "command = \"/bin/evil\"\n", ":1: command: " + refusal},
		{"enable list", "enable = [\"evil\"]\n", ":1: enable: " + refusal},
		{"nested under ui", "[ui]\nenv = {A = \"1\"}\n", ":2: ui.env: " + refusal},
		{"reasonix home", "reasonix_home = \"/tmp/evil\"\n", ":1: reasonix_home: " + refusal},
		{"project hooks are home only", "[hooks]\nproject = true\n", ":1: hooks: only the rx-bridge home's config.toml can set this; a workspace may set model and [ui] only"},
		{"approval is home only", "tool_approval = \"yolo\"\n", ":1: tool_approval: only the rx-bridge home's config.toml can set this; a workspace may set model and [ui] only"},
		{"unknown key", "modle = \"a/b\"\n", `:1: modle: unknown field (did you mean "model"?); a workspace may set model and [ui] only`},
		{"bad model", "model = \"x\"\n", `:1: model: invalid provider ref "x": want <provider>/<model> or plugin/<plugin>/<provider>/<model>`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			p := writeFile(t, dir, WorkspaceFile, tc.src)
			_, err := LoadWorkspace(dir)
			if err == nil || err.Error() != p+tc.want {
				t.Errorf("err = %v\nwant %s", err, p+tc.want)
			}
		})
	}
}

func TestConfigProvidersSection(t *testing.T) {
	t.Parallel()
	p := writeFile(t, t.TempDir(), "config.toml", `model = "local/qwen"

[[providers.openai]]
name = "local"
base_url = "http://127.0.0.1:8080/v1"

[[providers.openai.models]]
id = "qwen"
tols = true
`)
	c, err := LoadConfig(p)
	if err != nil {
		t.Fatal(err)
	}
	var section struct {
		OpenAI []struct {
			Name    string `toml:"name"`
			BaseURL string `toml:"base_url"`
			Models  []struct {
				ID    string `toml:"id"`
				Tools bool   `toml:"tools"`
			} `toml:"models"`
		} `toml:"openai"`
	}
	err = c.DecodeSection("providers", &section)
	if want := p + ":9: providers.openai.models.tols: unknown field"; err == nil || err.Error() != want {
		t.Fatalf("err = %v\nwant %s", err, want)
	}
	if len(section.OpenAI) != 1 || section.OpenAI[0].BaseURL != "http://127.0.0.1:8080/v1" || section.OpenAI[0].Models[0].ID != "qwen" {
		t.Errorf("section = %+v", section)
	}
	empty, _ := LoadConfig(writeFile(t, t.TempDir(), "config.toml", "model = \"a/b\"\n"))
	if err := empty.DecodeSection("providers", &section); err != nil {
		t.Errorf("absent section: %v", err)
	}
}
