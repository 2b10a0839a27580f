package manifest

import (
	"reflect"
	"strings"
	"testing"

	"github.com/rx-bridge/rx-bridge/extproto"
)

// v1 wraps members into a v1 manifest named "p".
func v1(members string) string {
	if members != "" {
		members = "," + members
	}
	return `{"apiVersion":"reasonix.io/plugin/v1","name":"p"` + members + `}`
}

// rt wraps runtime members, with a valid command unless members set one.
func rt(members string) string {
	if !strings.Contains(members, `"command"`) {
		if members != "" {
			members = "," + members
		}
		members = `"command":"/opt/p/bin/p"` + members
	}
	return v1(`"runtime":{` + members + `}`)
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	const f = "reasonix-plugin.json: "
	tests := []struct {
		name string
		doc  string
		want string
	}{
		{"invalid JSON", `{"name": }`, f + "invalid JSON at line 1, column 10: invalid character '}' looking for beginning of value"},
		{"invalid JSON line", "{\n\"name\": \"p\",\n}", f + "invalid JSON at line 3, column 1: invalid character '}' looking for beginning of object key string"},
		{"not an object", `["p"]`, f + "manifest must be a JSON object, got array"},
		{"too large", `{"name":"` + strings.Repeat("a", MaxManifestBytes) + `"}`, f + "manifest is larger than 1048576 bytes"},

		{"apiVersion not a string", `{"apiVersion":1,"name":"p"}`, f + "apiVersion: must be a string, got number"},
		{"apiVersion invalid", `{"apiVersion":"reasonix/v1","name":"p"}`, f + `apiVersion: invalid apiVersion "reasonix/v1": want reasonix.io/plugin/v<major>[.<minor>]`},
		{"apiVersion v2", `{"apiVersion":"reasonix.io/plugin/v2","name":"p"}`, f + `apiVersion: unsupported apiVersion "reasonix.io/plugin/v2" (this rx-bridge supports reasonix.io/plugin/v1)`},
		{"apiVersion v0", `{"apiVersion":"reasonix.io/plugin/v0.9","name":"p"}`, f + `apiVersion: unsupported apiVersion "reasonix.io/plugin/v0.9" (this rx-bridge supports reasonix.io/plugin/v1)`},

		{"unknown root field", v1(`"nam":"x"`), f + `nam: unknown field (did you mean "name"?)`},
		{"unknown root field far", v1(`"zzzzzz":1`), f + `zzzzzz: unknown field`},
		{"duplicate member", v1(`"name":"q"`), f + "name: duplicate member"},
		{"name missing", `{"apiVersion":"reasonix.io/plugin/v1"}`, f + "name: required"},
		{"name wrong type", `{"apiVersion":"reasonix.io/plugin/v1","name":7}`, f + "name: want a string, got number"},
		{"name upper case", `{"apiVersion":"reasonix.io/plugin/v1","name":"Hello"}`, f + `name: invalid plugin name "Hello": use 1 to 64 lower-case letters, digits, "-", "_" or ".", starting with a letter or digit`},
		{"name leading dash", `{"apiVersion":"reasonix.io/plugin/v1","name":"-x"}`, f + `name: invalid plugin name "-x": use 1 to 64 lower-case letters, digits, "-", "_" or ".", starting with a letter or digit`},
		{"name too long", `{"apiVersion":"reasonix.io/plugin/v1","name":"` + strings.Repeat("a", 65) + `"}`, f + `name: invalid plugin name "` + strings.Repeat("a", 65) + `": use 1 to 64 lower-case letters, digits, "-", "_" or ".", starting with a letter or digit`},
		{"name slash", `{"apiVersion":"reasonix.io/plugin/v1","name":"a/b"}`, f + `name: invalid plugin name "a/b": use 1 to 64 lower-case letters, digits, "-", "_" or ".", starting with a letter or digit`},
		{"version wrong type", v1(`"version":1`), f + "version: want a string, got number"},

		{"unknown contributes field", v1(`"contributes":{"promts":[]}`), f + `contributes.promts: unknown field (did you mean "prompts"?)`},
		{"contributes not object", v1(`"contributes":[]`), f + `contributes: want an object, got array`},
		{"path list wrong type", v1(`"contributes":{"skills":3}`), f + "contributes.skills: want a path or a list of paths, got number"},
		{"path entry wrong type", v1(`"contributes":{"skills":[true]}`), f + `contributes.skills[0]: want a path string or {"path": ...}, got boolean`},
		{"path object unknown member", v1(`"contributes":{"skills":[{"path":"a","glob":true}]}`), f + `contributes.skills[0].glob: unknown field`},
		{"path object without path", v1(`"contributes":{"skills":[{}]}`), f + `contributes.skills[0]: needs a path`},
		{"path dotdot", v1(`"skills":["../x"]`), f + `skills[0]: plugin path "../x" must be relative and stay inside the plugin root`},
		{"path dotdot inside", v1(`"skills":["a/../../b"]`), f + `skills[0]: plugin path "a/../../b" must be relative and stay inside the plugin root`},
		{"path backslash dotdot", v1(`"skills":["..\\x"]`), f + `skills[0]: plugin path "..\\x" must be relative and stay inside the plugin root`},
		{"path absolute", v1(`"contributes":{"agents":"/etc/passwd"}`), f + `contributes.agents: plugin path "/etc/passwd" must be relative and stay inside the plugin root`},
		{"path drive", v1(`"contributes":{"prompts":[{"path":"C:/x"}]}`), f + `contributes.prompts[0].path: plugin path "C:/x" must be relative and stay inside the plugin root`},
		{"path UNC", v1(`"commands":["\\\\server\\share"]`), f + `commands[0]: plugin path "\\\\server\\share" must be relative and stay inside the plugin root`},
		{"path empty", v1(`"commands":["  "]`), f + `commands[0]: plugin path must not be empty`},
		{"path NUL", v1(`"commands":["a\u0000b"]`), f + `commands[0]: plugin path "a\x00b" contains a NUL byte`},
		{"bad glob", v1(`"contributes":{"themes":["themes/[a"]}`), f + `contributes.themes[0]: invalid glob "themes/[a": syntax error in pattern`},
		{"glob escape", v1(`"contributes":{"themes":["../*.reasonix-theme"]}`), f + `contributes.themes[0]: plugin path "../*.reasonix-theme" must be relative and stay inside the plugin root`},

		{"hook unknown field", v1(`"hooks":{"PreToolUse":[{"command":"x","matcher":"y"}]}`), f + `hooks.PreToolUse[0].matcher: unknown field (did you mean "match"?)`},
		{"hook no command", v1(`"contributes":{"hooks":{"Stop":[{"match":"x"}]}}`), f + `contributes.hooks.Stop[0]: a hook needs command or contextFile`},
		{"hook bad shell", v1(`"hooks":{"Stop":[{"command":"x","shell":"tcsh"}]}`), f + `hooks.Stop[0].shell: unknown value "tcsh" (want one of: auto, bash, powershell, pwsh, cmd)`},
		{"hook exec escapes", v1(`"hooks":{"Stop":[{"command":"../bin/x","args":[]}]}`), f + `hooks.Stop[0].command: plugin path "../bin/x" must be relative and stay inside the plugin root`},
		{"hook contextFile escapes", v1(`"hooks":{"Stop":[{"contextFile":"/etc/shadow"}]}`), f + `hooks.Stop[0].contextFile: plugin path "/etc/shadow" must be relative and stay inside the plugin root`},
		{"hook cwd escapes", v1(`"hooks":{"Stop":[{"command":"x","cwd":"../.."}]}`), f + `hooks.Stop[0].cwd: plugin path "../.." must be relative and stay inside the plugin root`},
		{"hook negative timeout", v1(`"hooks":{"Stop":[{"command":"x","timeout":-1}]}`), f + `hooks.Stop[0].timeout: must be a non-negative number`},
		{"hooks not array", v1(`"hooks":{"Stop":{}}`), f + `hooks.Stop: want an array of hooks, got object`},
		{"mcp bad name", v1(`"mcpServers":{"a b":{"command":"x"}}`), f + `mcpServers["a b"]: invalid MCP server name "a b": use 1 to 64 letters, digits, "-", "_" or ".", starting with a letter or digit`},
		{"mcp camelCase autoStart", v1(`"mcpServers":{"s":{"command":"x","autoStart":true}}`), f + `mcpServers.s.autoStart: unknown field (did you mean "auto_start"?)`},
		{"mcp no command", v1(`"contributes":{"mcpServers":{"s":{"type":"stdio"}}}`), f + `contributes.mcpServers.s: an MCP server needs command or url`},

		{"hook conflict", v1(`"hooks":{"Stop":[{"command":"x","match":"a"}]},"contributes":{"hooks":{"Stop":[{"command":"x","match":"b"}]}}`), f + `contributes.hooks.Stop[0]: hook "x" (event Stop) is defined differently in hooks and contributes.hooks`},
		{"mcp conflict", v1(`"mcpServers":{"s":{"command":"a"}},"contributes":{"mcpServers":{"s":{"command":"b"}}}`), f + `contributes.mcpServers.s: MCP server "s" is defined differently in mcpServers and contributes.mcpServers`},

		{"runtime not object", v1(`"runtime":"bin/x"`), f + "runtime: want an object, got string"},
		{"runtime unknown field", rt(`"intercept":["tool.before"]`), f + `runtime.intercept: unknown field (did you mean "intercepts"?)`},
		{"runtime unknown field 2", rt(`"intrcepts":[]`), f + `runtime.intrcepts: unknown field (did you mean "intercepts"?)`},
		{"command missing", v1(`"runtime":{}`), f + "runtime.command: required when a runtime is declared"},
		{"command blank", rt(`"command":"  "`), f + "runtime.command: required when a runtime is declared"},
		{"command wrong type", rt(`"command":["/bin/x"]`), f + "runtime.command: want a string, got array"},
		{"command bare shell", rt(`"command":"bash"`), f + `runtime.command: "bash" is a shell; a runtime is started in exec form only: name the program in command and its arguments in args`},
		{"command sh path", rt(`"command":"/bin/sh"`), f + `runtime.command: "sh" is a shell; a runtime is started in exec form only: name the program in command and its arguments in args`},
		{"command zsh", rt(`"command":"/usr/bin/zsh"`), f + `runtime.command: "zsh" is a shell; a runtime is started in exec form only: name the program in command and its arguments in args`},
		{"command fish dash ksh", rt(`"command":"/usr/local/bin/ksh"`), f + `runtime.command: "ksh" is a shell; a runtime is started in exec form only: name the program in command and its arguments in args`},
		{"command cmd.exe", rt(`"command":"C:\\Windows\\System32\\CMD.EXE"`), f + `runtime.command: "cmd" is a shell; a runtime is started in exec form only: name the program in command and its arguments in args`},
		{"command pwsh.exe", rt(`"command":"${REASONIX_PLUGIN_ROOT}/PWSH.exe"`), f + `runtime.command: "pwsh" is a shell; a runtime is started in exec form only: name the program in command and its arguments in args`},
		{"command powershell", rt(`"command":"powershell"`), f + `runtime.command: "powershell" is a shell; a runtime is started in exec form only: name the program in command and its arguments in args`},
		{"command dash", rt(`"command":"/bin/dash"`), f + `runtime.command: "dash" is a shell; a runtime is started in exec form only: name the program in command and its arguments in args`},
		{"command fish", rt(`"command":"/usr/bin/fish"`), f + `runtime.command: "fish" is a shell; a runtime is started in exec form only: name the program in command and its arguments in args`},
		{"command leaves root", rt(`"command":"${REASONIX_PLUGIN_ROOT}/../../bin/x"`), f + `runtime.command: "${REASONIX_PLUGIN_ROOT}/../../bin/x" leaves the plugin root`},
		{"command is root", rt(`"command":"${REASONIX_PLUGIN_ROOT}/"`), f + `runtime.command: "${REASONIX_PLUGIN_ROOT}/" names the plugin root itself, not a program`},
		{"command is root dot", rt(`"command":"${REASONIX_PLUGIN_ROOT}\\."`), f + `runtime.command: "${REASONIX_PLUGIN_ROOT}\\." names the plugin root itself, not a program`},
		{"command cmd.exe trailing dot", rt(`"command":"C:\\Windows\\System32\\cmd.exe."`), f + `runtime.command: "cmd" is a shell; a runtime is started in exec form only: name the program in command and its arguments in args`},
		{"command pwsh data stream", rt(`"command":"C:\\Program Files\\PowerShell\\7\\pwsh.exe::$DATA"`), f + `runtime.command: "pwsh" is a shell; a runtime is started in exec form only: name the program in command and its arguments in args`},
		{"command var not prefix", rt(`"command":"/opt/${REASONIX_PLUGIN_ROOT}/x"`), f + `runtime.command: ${REASONIX_PLUGIN_ROOT} may appear only at the start of the command`},
		{"command NUL", rt(`"command":"/bin/x\u0000"`), f + `runtime.command: must not contain a NUL byte`},
		{"args not array", rt(`"args":"--x"`), f + "runtime.args: want an array of strings, got string"},
		{"args element type", rt(`"args":["a",2]`), f + "runtime.args[1]: want a string, got number"},
		{"args empty", rt(`"args":["a",""]`), f + "runtime.args[1]: must not be empty"},
		{"args blank", rt(`"args":[" "]`), f + "runtime.args[0]: must not be empty"},
		{"env not object", rt(`"env":["A=1"]`), f + "runtime.env: want an object, got array"},
		{"env value type", rt(`"env":{"A":1}`), f + "runtime.env.A: want a string, got number"},
		{"env empty key", rt(`"env":{"":"x"}`), f + "runtime.env: contains an empty key"},
		{"env key with equals", rt(`"env":{"A=B":"x"}`), f + `runtime.env["A=B"]: an environment variable name cannot contain "=" or NUL`},
		{"env overrides root", rt(`"env":{"REASONIX_PLUGIN_ROOT":"/tmp"}`), f + "runtime.env.REASONIX_PLUGIN_ROOT: the host sets REASONIX_PLUGIN_ROOT for every runtime; a manifest cannot override it"},
		{"env overrides name", rt(`"env":{"REASONIX_PLUGIN_NAME":"other"}`), f + "runtime.env.REASONIX_PLUGIN_NAME: the host sets REASONIX_PLUGIN_NAME for every runtime; a manifest cannot override it"},
		{"env overrides version lower case", rt(`"env":{"reasonix_plugin_version":"9"}`), f + "runtime.env.reasonix_plugin_version: the host sets REASONIX_PLUGIN_VERSION for every runtime; a manifest cannot override it"},
		{"required type", rt(`"required":"yes"`), f + "runtime.required: want a boolean, got string"},
		{"priority high", rt(`"priority":1001`), f + "runtime.priority: 1001 out of range [-1000, 1000]"},
		{"priority low", rt(`"priority":-1001`), f + "runtime.priority: -1001 out of range [-1000, 1000]"},
		{"priority fraction", rt(`"priority":1.5`), f + "runtime.priority: want an integer, got 1.5"},
		{"priority huge", rt(`"priority":1e99`), f + "runtime.priority: want an integer, got 1e99"},
		{"priority string", rt(`"priority":"1"`), f + "runtime.priority: want an integer, got string"},
		{"intercepts unknown", rt(`"intercepts":["tool.before","tool.after","tool.bfore"]`), f + `runtime.intercepts[2]: unknown hook point "tool.bfore"`},
		{"intercepts duplicate", rt(`"intercepts":["tool.before","session.start","tool.before"]`), f + `runtime.intercepts[2]: duplicate hook point "tool.before" (already at [0])`},
		{"intercepts not array", rt(`"intercepts":"tool.before"`), f + `runtime.intercepts: want an array of strings, got string`},
		{"replaces unknown", rt(`"replaces":["systemprompt"]`), f + `runtime.replaces[0]: unknown slot "systemprompt"`},
		{"replaces empty tool", rt(`"replaces":["tool:"]`), f + `runtime.replaces[0]: invalid tool slot "tool:": want tool:<name> with a non-empty name without whitespace`},
		{"replaces bad provider", rt(`"replaces":["provider:x"]`), f + `runtime.replaces[0]: invalid provider slot "provider:x": want provider:<name>/<model> or provider:plugin/<plugin>/<name>/<model>`},
		{"replaces duplicate", rt(`"replaces":["tool:bash","tool:bash"]`), f + `runtime.replaces[1]: duplicate slot "tool:bash" (already at [0])`},
		{"capabilities unknown", rt(`"capabilities":["ui","provider"]`), f + `runtime.capabilities[1]: unknown capability "provider" (want one of: interceptors, strategies, providers, ui)`},
		{"capabilities duplicate", rt(`"capabilities":["ui","ui"]`), f + `runtime.capabilities[1]: duplicate capability "ui" (already at [0])`},
		{"timeout negative", rt(`"timeoutMillis":-1`), f + "runtime.timeoutMillis: must not be negative"},
		{"timeout fraction", rt(`"timeoutMillis":2.5`), f + "runtime.timeoutMillis: want an integer, got 2.5"},

		{"all problems reported", rt(`"priority":5000,"intercepts":["x"]`), f + "runtime.priority: 5000 out of range [-1000, 1000]\n" + f + `runtime.intercepts[0]: unknown hook point "x"`},

		{"legacy still checks paths", `{"name":"p","commands":"../c"}`, f + `commands: plugin path "../c" must be relative and stay inside the plugin root`},
		{"legacy still needs a name", `{"description":"x"}`, f + "name: required"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := Parse(KindReasonix, []byte(tc.doc))
			if err == nil {
				t.Fatalf("Parse succeeded, want error %q", tc.want)
			}
			if got := err.Error(); got != tc.want {
				t.Errorf("error\n got: %s\nwant: %s", got, tc.want)
			}
		})
	}
}

func TestParseWarnings(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		doc  string
		want []string
	}{
		{"timeout clamped", rt(`"timeoutMillis":600000`), []string{"runtime.timeoutMillis: 600000 is above the 60000 ms ceiling; intercepts get 60000 ms"}},
		{"relative command", rt(`"command":"node"`), []string{`runtime.command: "node" is not an absolute path; the runtime cannot start until it is one (use ${REASONIX_PLUGIN_ROOT}/... for a program inside the plugin)`}},
		{"command with spaces", rt(`"command":"node server.js"`), []string{`runtime.command: "node server.js" is not an absolute path and contains spaces; put the program in command and its arguments in args (use ${REASONIX_PLUGIN_ROOT}/... for a program inside the plugin)`}},
		{"root var in args", rt(`"args":["${REASONIX_PLUGIN_ROOT}/x"]`), []string{"runtime.args[0]: ${REASONIX_PLUGIN_ROOT} is expanded only at the start of runtime.command; here it is passed literally"}},
		{"env PATH twice on windows", rt(`"env":{"PATH":"/a","Path":"/b"}`), []string{`runtime.env.Path: "PATH" and "Path" are one variable on Windows, where only "Path" is set`}},
		{"root var in env", rt(`"env":{"DATA":"${REASONIX_PLUGIN_ROOT}/d"}`), []string{"runtime.env.DATA: ${REASONIX_PLUGIN_ROOT} is expanded only at the start of runtime.command; here it is passed literally"}},
		{"legacy runtime", `{"name":"p","runtime":{"command":"/bin/p"}}`, []string{`runtime: ignored: a manifest without apiVersion can never start a runtime (add "apiVersion": "reasonix.io/plugin/v1")`}},
		{"legacy contributes", `{"name":"p","contributes":{"skills":["s"]}}`, []string{`contributes: ignored: contributes needs "apiVersion": "reasonix.io/plugin/v1"`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m, err := Parse(KindReasonix, []byte(tc.doc))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, w := range m.Warnings {
				got = append(got, w.String())
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("warnings\n got: %q\nwant: %q", got, tc.want)
			}
		})
	}
}

func TestParseV1Full(t *testing.T) {
	t.Parallel()
	doc := `{
	  "apiVersion": " reasonix.io/plugin/v1.2 ",
	  "name": "hello.world_2",
	  "version": " 1.0.0 ",
	  "description": "Says hello",
	  "homepage": "https://example.com",
	  "skills": ["skills/b", "skills/a"],
	  "commands": "commands/x.md",
	  "hooks": {"Stop": [{"command": "hooks/stop", "args": []}]},
	  "mcpServers": {"srv": {"command": "srv", "auto_start": true}},
	  "contributes": {
	    "skills": ["./skills/a/", {"path": "skills/c"}],
	    "agents": ["agents/*.md"],
	    "prompts": "commands/x.md",
	    "themes": ["themes/*.reasonix-theme"],
	    "hooks": {"Stop": [{"command": "hooks/stop", "args": []}], "Start": [{"contextFile": "ctx.md"}]},
	    "mcpServers": {"srv": {"command": "srv", "auto_start": true}, "web": {"url": "https://x"}}
	  },
	  "runtime": {
	    "command": "${REASONIX_PLUGIN_ROOT}/bin/hello",
	    "args": ["--stdio"],
	    "env": {"HELLO": "1"},
	    "required": true,
	    "priority": -1000,
	    "intercepts": ["tool.before", "session.start"],
	    "replaces": ["tool:bash", "system_prompt", "provider:plugin/hello.world_2/echo/v1"],
	    "capabilities": ["interceptors", "providers", "ui", "strategies"],
	    "timeoutMillis": 250
	  }
	}`
	m, err := Parse(KindReasonix, []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if m.APIVersion != "reasonix.io/plugin/v1.2" || m.Name != "hello.world_2" || m.Version != "1.0.0" || m.Legacy() {
		t.Errorf("header = %q %q %q", m.APIVersion, m.Name, m.Version)
	}
	wantRes := Resources{
		Skills:   []string{"skills/a", "skills/b", "skills/c"},
		Agents:   []string{"agents/*.md"},
		Commands: []string{"commands/x.md"},
		Prompts:  []string{"commands/x.md"},
		Themes:   []string{"themes/*.reasonix-theme"},
		Hooks: map[string][]Hook{
			"Stop":  {{Command: "hooks/stop", Args: []string{}}},
			"Start": {{ContextFile: "ctx.md"}},
		},
		MCPServers: map[string]MCPServer{
			"srv": {Command: "srv", AutoStart: ptr(true)},
			"web": {URL: "https://x"},
		},
	}
	if !reflect.DeepEqual(m.Resources, wantRes) {
		t.Errorf("resources\n got: %+v\nwant: %+v", m.Resources, wantRes)
	}
	wantRT := &Runtime{
		Command:       "${REASONIX_PLUGIN_ROOT}/bin/hello",
		Args:          []string{"--stdio"},
		Env:           map[string]string{"HELLO": "1"},
		Required:      true,
		Priority:      -1000,
		Intercepts:    []extproto.HookPoint{extproto.ToolBefore, extproto.SessionStart},
		Replaces:      []extproto.Slot{{Kind: extproto.SlotTool, Arg: "bash"}, {Kind: extproto.SlotSystemPrompt}, {Kind: extproto.SlotProvider, Arg: "plugin/hello.world_2/echo/v1"}},
		Capabilities:  []extproto.Capability{extproto.CapInterceptors, extproto.CapProviders, extproto.CapUI, extproto.CapStrategies},
		TimeoutMillis: 250,
	}
	if !reflect.DeepEqual(m.Runtime, wantRT) {
		t.Errorf("runtime\n got: %+v\nwant: %+v", m.Runtime, wantRT)
	}
	if len(m.Warnings) != 0 {
		t.Errorf("warnings = %v", m.Warnings)
	}
}

func ptr[T any](v T) *T { return &v }

func TestParseRuntimeDefaults(t *testing.T) {
	t.Parallel()
	m, err := Parse(KindReasonix, []byte(rt(`"priority":null,"timeoutMillis":0`)))
	if err != nil {
		t.Fatal(err)
	}
	r := m.Runtime
	if r.Priority != 0 || r.Required || r.TimeoutMillis != 0 || r.Intercepts != nil || r.Env != nil {
		t.Errorf("defaults = %+v", r)
	}
	if got := extproto.ToolBefore.InterceptTimeout(r.TimeoutMillis); got != extproto.InterceptTimeoutShort {
		t.Errorf("default budget = %v", got)
	}
}

func TestParseLegacy(t *testing.T) {
	t.Parallel()
	doc := `{"name":"old","version":"2","author":{"n":1},"skills":"s","agents":["a"],"themes":["t.reasonix-theme"],
	  "hooks":"./hooks.json","mcpServers":{"x":{"anything":true}},"runtime":{"command":"bash"},"contributes":{"zzz":1}}`
	m, err := Parse(KindReasonix, []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if !m.Legacy() || m.Runtime != nil || !m.IgnoredRuntime || !m.HasRuntime() {
		t.Errorf("legacy = %v runtime = %v ignored = %v", m.Legacy(), m.Runtime, m.IgnoredRuntime)
	}
	if string(m.LegacyHooks) != `"./hooks.json"` || string(m.LegacyMCPServers) != `{"x":{"anything":true}}` {
		t.Errorf("legacy raw = %s %s", m.LegacyHooks, m.LegacyMCPServers)
	}
	if !reflect.DeepEqual(m.Resources.Skills, []string{"s"}) || !reflect.DeepEqual(m.Resources.Themes, []string{"t.reasonix-theme"}) {
		t.Errorf("resources = %+v", m.Resources)
	}
}

func TestParseOtherKinds(t *testing.T) {
	t.Parallel()
	// Codex and Claude manifests are always legacy: an apiVersion there is
	// just an unknown member, and nothing in them can start a runtime.
	for _, k := range []Kind{KindCodex, KindClaude} {
		m, err := Parse(k, []byte(`{"apiVersion":"reasonix.io/plugin/v9","name":"c","runtime":{"command":"/bin/x"},"commands":["c.md"]}`))
		if err != nil {
			t.Fatalf("%s: %v", k, err)
		}
		if m.Runtime != nil || m.IgnoredRuntime || m.APIVersion != "" {
			t.Errorf("%s: runtime = %v ignored = %v api = %q", k, m.Runtime, m.IgnoredRuntime, m.APIVersion)
		}
		_, err = Parse(k, []byte(`{"name":"BAD"}`))
		if want := k.File() + `: name: invalid plugin name "BAD": use 1 to 64 lower-case letters, digits, "-", "_" or ".", starting with a letter or digit`; err == nil || err.Error() != want {
			t.Errorf("%s: err = %v, want %s", k, err, want)
		}
	}
}

func TestParseMergeDedupe(t *testing.T) {
	t.Parallel()
	m, err := Parse(KindReasonix, []byte(v1(`"skills":["a","b"],"hooks":{"E":[{"command":"x"}]},"mcpServers":{"s":{"url":"u"}},
	  "contributes":{"skills":["b","./a","c"],"hooks":{"E":[{"command":"x"}]},"mcpServers":{"s":{"url":"u"}}}`)))
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Resources.Skills; !reflect.DeepEqual(got, []string{"a", "b", "c"}) {
		t.Errorf("skills = %q", got)
	}
	if got := m.Resources.Hooks["E"]; len(got) != 1 {
		t.Errorf("hooks = %+v", got)
	}
	if got := m.Resources.MCPServers; len(got) != 1 {
		t.Errorf("servers = %+v", got)
	}
}
