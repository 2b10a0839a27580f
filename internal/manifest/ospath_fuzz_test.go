package manifest

import (
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// FuzzExpandCommand feeds arbitrary runtime.command strings (manifest
// bytes nobody reviewed) to the launch expansion for Linux and Windows. It
// must never panic, and whatever it accepts is a clean absolute path that
// is no shell, an .exe or .com on Windows, and inside the plugin root when
// the command names it with ${REASONIX_PLUGIN_ROOT}.
func FuzzExpandCommand(f *testing.F) {
	for _, s := range []string{
		"${REASONIX_PLUGIN_ROOT}/bin/hello", `${REASONIX_PLUGIN_ROOT}\bin\hello.exe`, "${REASONIX_PLUGIN_ROOT}/../x.exe",
		"${REASONIX_PLUGIN_ROOT}/.", "${REASONIX_PLUGIN_ROOT}/C:/x.exe", `C:\Windows\System32\cmd.exe.`, `c:/tools/node.EXE`,
		`\\srv\share\x.exe`, `//?/C:/x/../y.exe`, "/usr/bin/node", `C:node.exe`, `${REASONIX_PLUGIN_ROOT}\\..\\a\\..\\..\\b.exe`,
		"/opt/${REASONIX_PLUGIN_ROOT}/x", `D:\run.bat`, "//", `\\`, "C:", `C:\`,
	} {
		f.Add(s)
	}
	roots := map[string]string{"linux": "/home/u/plugins/p", "windows": `C:\Users\A B\plugins\p`}
	f.Fuzz(func(t *testing.T, command string) {
		for goos, root := range roots {
			tg := targetFor(goos)
			got, err := expandCommand(tg, root, command, func(string) bool { return true })
			if err != nil {
				continue
			}
			if !tg.isAbs(got) || tg.clean(got) != got {
				t.Fatalf("%s: %q expanded to %q, not a clean absolute path", goos, command, got)
			}
			if sh := shellName(got); sh != "" {
				t.Fatalf("%s: %q expanded to the shell %q", goos, command, got)
			}
			if ext := strings.ToLower(filepath.Ext(got)); goos == "windows" && ext != ".exe" && ext != ".com" {
				t.Fatalf("%s: %q expanded to %q, not an .exe", goos, command, got)
			}
			rest, prefixed := strings.CutPrefix(strings.TrimSpace(command), RootVar)
			if !prefixed {
				continue
			}
			if !strings.HasPrefix(got, root+tg.sep()) {
				t.Fatalf("%s: %q expanded to %q, outside %s", goos, command, got, root)
			}
			if goos == runtime.GOOS {
				if want := filepath.Join(root, filepath.FromSlash(strings.ReplaceAll(rest, `\`, "/"))); got != want {
					t.Fatalf("%s: %q expanded to %q, filepath.Join gives %q", goos, command, got, want)
				}
			}
		}
	})
}
