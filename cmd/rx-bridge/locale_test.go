package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/rivo/uniseg"
)

// TestChineseTexts: a user whose environment asks for Chinese reads the
// bridge's own texts in Chinese (the install preview's FULL TRUST block,
// the models hint), while what a plugin wrote (its description) and what
// the user types or reads in files (paths, commands, config keys) stay
// as they are. English stays the default.
func TestChineseTexts(t *testing.T) {
	t.Parallel()
	e := newPluginEnv(t)
	src := e.hello()
	for _, tc := range []struct {
		name, lang string
		want, not  []string
	}{
		{"zh-CN from RX_BRIDGE_LANG", "RX_BRIDGE_LANG=zh-CN",
			[]string{"从 " + src + " 安装插件 \"hello\" 0.1.0", "runtime：FULL TRUST（完全信任）", "风险：此运行时在任何沙箱之外", "MCP 服务器 greeter", "试运行：没有写入任何内容。", "description: Greets you from a sidecar", "--greeting \"hello world\""},
			[]string{"Dry run", "outside any sandbox"}},
		{"zh-CN from LANG", "LANG=zh_CN.UTF-8",
			[]string{"试运行：没有写入任何内容。"}, []string{"Dry run"}},
		{"English from LANG", "LANG=en_US.UTF-8",
			[]string{"Install plugin \"hello\" 0.1.0 from " + src, "risk: this runtime runs outside any sandbox", "Dry run: nothing was written."}, []string{"试运行"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := []string{"RX_BRIDGE_LANG=", "LC_ALL=", "LC_MESSAGES=", tc.lang}
			code, stdout, stderr := runBridge(t, e.home, "", env, "plugin", "install", "--dry-run", src)
			if code != 0 {
				t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(stdout, w) {
					t.Errorf("output lacks %q:\n%s", w, stdout)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(stdout, n) {
					t.Errorf("output has %q:\n%s", n, stdout)
				}
			}
		})
	}
	code, _, stderr := runBridge(t, t.TempDir(), "", []string{"RX_BRIDGE_LANG=zh-CN"}, "models")
	if code != 0 || !strings.Contains(stderr, "没有模型；运行 rx-bridge setup 选择提供方和模型") {
		t.Errorf("models in a fresh home: exit %d, stderr %q", code, stderr)
	}
}

// TestServeFollowsTheEditorsLocale: the bridge's own texts follow the
// locale the editor sends in initialize, over the environment's.
func TestServeFollowsTheEditorsLocale(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ locale, env, want string }{
		{"zh-cn", "LANG=en_US.UTF-8", "rx-bridge: 没有可用的插件动作；请安装声明了 UI 动作的插件"},
		{"en", "LANG=zh_CN.UTF-8", "rx-bridge: no plugin action is available; install a plugin that declares UI actions"},
	} {
		t.Run(tc.locale, func(t *testing.T) {
			t.Parallel()
			e := newServeEnv(t)
			e.env = []string{"RX_BRIDGE_LANG=", tc.env}
			c := e.start()
			caps := clientCaps(nil, nil)
			if err := c.Call(ctxT(t), "initialize", map[string]any{"processId": os.Getpid(), "capabilities": caps, "locale": tc.locale}, nil); err != nil {
				t.Fatalf("initialize: %v", err)
			}
			if err := c.Notify(ctxT(t), "initialized", map[string]any{}); err != nil {
				t.Fatal(err)
			}
			waitGeneration(t, c, caps)
			if err := c.Call(ctxT(t), "workspace/executeCommand", map[string]any{"command": "rx.runAction", "arguments": []any{}}, nil); err != nil {
				t.Fatal(err)
			}
			want, _ := json.Marshal(tc.want)
			if _, err := c.Wait(ctxT(t), "window/showMessage", func(p json.RawMessage) bool {
				return strings.Contains(string(p), strings.Trim(string(want), `"`))
			}); err != nil {
				t.Errorf("no window/showMessage %q: %v", tc.want, err)
			}
		})
	}
}

// TestPluginCommandsInChinese: plugin list, show and doctor speak the
// user's language in their headings, labels and statuses, keep the table
// aligned in terminal columns (a Chinese character takes two), and keep
// --json, plugin names, paths and commands as they are.
func TestPluginCommandsInChinese(t *testing.T) {
	t.Parallel()
	e := newPluginEnv(t)
	e.mustRun(0, "install", "--yes", e.hello())
	zh := []string{"RX_BRIDGE_LANG=zh-CN"}
	for _, tc := range []struct {
		args      []string
		code      int
		want, not []string
	}{
		{[]string{"plugin", "list"}, 0,
			[]string{"名称", "版本", "状态", "运行时", "已启用", "FULL TRUST（完全信任）运行时", "复制"},
			[]string{"NAME", "enabled", "FULL TRUST runtime"}},
		{[]string{"plugin", "show", "hello"}, 0,
			[]string{"状态：已启用", "根目录：", "记录于：", "清单：reasonix-plugin.json", "拦截超时：每个钩子点 250 毫秒", "runtime：FULL TRUST（完全信任）", "description: Greets you from a sidecar"},
			[]string{"state:", "recorded in", "intercept timeout"}},
		{[]string{"plugin", "doctor", "--static", "hello"}, 0,
			[]string{"hello: 正常", "已检查 1 个：1 个正常，0 个失败。"},
			[]string{"checked:", "hello: ok"}},
		{[]string{"plugin", "doctor", "--static", "--json", "hello"}, 0,
			[]string{`"state": "enabled"`, `"level": "ok"`}, []string{"正常", "已启用"}},
	} {
		code, stdout, stderr := runBridge(t, e.home, "", zh, tc.args...)
		if code != tc.code {
			t.Fatalf("%v: exit %d\n%s\n%s", tc.args, code, stdout, stderr)
		}
		for _, w := range tc.want {
			if !strings.Contains(stdout, w) {
				t.Errorf("%v: output lacks %q:\n%s", tc.args, w, stdout)
			}
		}
		for _, n := range tc.not {
			if strings.Contains(stdout, n) {
				t.Errorf("%v: output has %q:\n%s", tc.args, n, stdout)
			}
		}
		if tc.args[1] == "list" {
			// The second column starts at the same terminal column in
			// the heading and the row.
			lines := strings.Split(strings.TrimSpace(stdout), "\n")
			head, row := lines[0], lines[1]
			if c, r := uniseg.StringWidth(head[:strings.Index(head, "版本")]), uniseg.StringWidth(row[:strings.Index(row, "0.1.0")]); c != r {
				t.Errorf("VERSION column at %d in the heading, %d in the row:\n%s", c, r, stdout)
			}
		}
	}
	// Every doctor check line starts with a level padded to the same
	// columns, in Chinese too.
	_, stdout, _ := runBridge(t, e.home, "", zh, "plugin", "doctor", "--static", "hello")
	for _, l := range strings.Split(stdout, "\n") {
		for _, lv := range []string{"正常", "提示", "警告", "失败"} {
			if rest, ok := strings.CutPrefix(l, "  "+lv); ok && !strings.HasPrefix(rest, "  ") {
				t.Errorf("level %s not padded to five columns: %q", lv, l)
			}
		}
	}
}
