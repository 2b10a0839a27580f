package manifest

import (
	"path/filepath"
	"strings"
	"testing"
)

// The launch rules of runtime.command for Linux and Windows, both run on
// this machine: expandCommand is pure but for the exists probe, which only
// makes an error more helpful.
func TestExpandCommandOS(t *testing.T) {
	t.Parallel()
	const winRoot = `C:\Users\A B\plugins\hello`
	const unixRoot = "/home/u/.config/rx-bridge/plugins/hello"
	tests := []struct {
		name, goos, root, command string
		exists                    []string // files the hint may find
		want, err                 string
	}{
		{"windows backslashes", "windows", winRoot, `${REASONIX_PLUGIN_ROOT}\bin\hello.exe`, nil, `C:\Users\A B\plugins\hello\bin\hello.exe`, ""},
		{"windows slashes", "windows", winRoot, `${REASONIX_PLUGIN_ROOT}/bin/hello.exe`, nil, `C:\Users\A B\plugins\hello\bin\hello.exe`, ""},
		{"windows upper-case EXE", "windows", winRoot, `${REASONIX_PLUGIN_ROOT}/bin/HELLO.EXE`, nil, `C:\Users\A B\plugins\hello\bin\HELLO.EXE`, ""},
		{"windows .com", "windows", winRoot, `${REASONIX_PLUGIN_ROOT}/bin/hello.com`, nil, `C:\Users\A B\plugins\hello\bin\hello.com`, ""},
		{"windows root is a drive", "windows", `C:\`, `${REASONIX_PLUGIN_ROOT}/x.exe`, nil, `C:\x.exe`, ""},
		{"windows unc root", "windows", `\\srv\share\plugins\hello`, `${REASONIX_PLUGIN_ROOT}/bin/./hello.exe`, nil, `\\srv\share\plugins\hello\bin\hello.exe`, ""},
		{"windows absolute with slashes", "windows", winRoot, `C:/Tools/../Tools/node.exe`, nil, `C:\Tools\node.exe`, ""},
		{"windows missing .exe, hint", "windows", winRoot, "${REASONIX_PLUGIN_ROOT}/bin/hello", []string{`C:\Users\A B\plugins\hello\bin\hello.exe`}, "",
			`runtime.command C:\Users\A B\plugins\hello\bin\hello is not a Windows program: on Windows the file name needs its .exe suffix, which is never added for you (hello.exe exists: name it in runtime.command)`},
		{"windows missing .exe, no hint", "windows", winRoot, "${REASONIX_PLUGIN_ROOT}/bin/hello", nil, "",
			`runtime.command C:\Users\A B\plugins\hello\bin\hello is not a Windows program: on Windows the file name needs its .exe suffix, which is never added for you`},
		{"windows script", "windows", winRoot, "${REASONIX_PLUGIN_ROOT}/bin/hello.ps1", nil, "",
			`runtime.command C:\Users\A B\plugins\hello\bin\hello.ps1 is not a Windows program: on Windows the file name needs its .exe suffix, which is never added for you`},
		{"windows batch file", "windows", winRoot, "${REASONIX_PLUGIN_ROOT}/bin/start.CMD", nil, "",
			`runtime.command C:\Users\A B\plugins\hello\bin\start.CMD is a batch file, which Windows runs through the shell cmd.exe; runtimes run in exec form only: name the program's .exe`},
		{"windows bat", "windows", winRoot, `D:\tools\run.bat`, nil, "",
			`runtime.command D:\tools\run.bat is a batch file, which Windows runs through the shell cmd.exe; runtimes run in exec form only: name the program's .exe`},
		{"windows cmd.exe", "windows", winRoot, `c:\windows\system32\CMD.EXE`, nil, "", `runtime.command "c:\\windows\\system32\\CMD.EXE" is the shell cmd; runtimes run in exec form only`},
		{"windows powershell trailing dot", "windows", winRoot, `C:\Windows\System32\WindowsPowerShell\v1.0\powershell.exe.`, nil, "",
			`runtime.command "C:\\Windows\\System32\\WindowsPowerShell\\v1.0\\powershell.exe." is the shell powershell; runtimes run in exec form only`},
		{"windows pwsh in root", "windows", winRoot, `${REASONIX_PLUGIN_ROOT}\pwsh.exe`, nil, "", `runtime.command "${REASONIX_PLUGIN_ROOT}\\pwsh.exe" is the shell pwsh; runtimes run in exec form only`},
		{"windows git bash", "windows", winRoot, `C:\Program Files\Git\bin\bash.exe`, nil, "", `runtime.command "C:\\Program Files\\Git\\bin\\bash.exe" is the shell bash; runtimes run in exec form only`},
		{"windows trailing space", "windows", winRoot, `${REASONIX_PLUGIN_ROOT}\bin \hello.exe`, nil, "",
			`runtime.command "${REASONIX_PLUGIN_ROOT}\\bin \\hello.exe": "bin " is not a Windows file name (it drops the dots and spaces that end one, and ":" names a stream)`},
		{"windows trailing dot", "windows", winRoot, `${REASONIX_PLUGIN_ROOT}/hello.exe.`, nil, "",
			`runtime.command "${REASONIX_PLUGIN_ROOT}/hello.exe.": "hello.exe." is not a Windows file name (it drops the dots and spaces that end one, and ":" names a stream)`},
		{"windows stream", "windows", winRoot, `${REASONIX_PLUGIN_ROOT}/hello.exe:x`, nil, "",
			`runtime.command "${REASONIX_PLUGIN_ROOT}/hello.exe:x": "hello.exe:x" is not a Windows file name (it drops the dots and spaces that end one, and ":" names a stream)`},
		{"linux leading space is kept", "linux", unixRoot, `${REASONIX_PLUGIN_ROOT}/ bin/hello`, nil, unixRoot + "/ bin/hello", ""},
		{"windows rooted without drive", "windows", winRoot, "/usr/bin/node", nil, "",
			`runtime.command "/usr/bin/node" is not an absolute path after expansion; on Windows it starts with a drive letter (C:\...)`},
		{"windows drive-relative", "windows", winRoot, `C:node.exe`, nil, "", `runtime.command "C:node.exe" is not an absolute path after expansion`},
		{"windows root from another system", "windows", unixRoot, "${REASONIX_PLUGIN_ROOT}/bin/hello.exe", nil, "",
			`runtime.command "${REASONIX_PLUGIN_ROOT}/bin/hello.exe": the plugin root /home/u/.config/rx-bridge/plugins/hello is not an absolute path on windows`},

		{"linux backslashes", "linux", unixRoot, `${REASONIX_PLUGIN_ROOT}\bin\hello`, nil, unixRoot + "/bin/hello", ""},
		{"linux .exe everywhere", "linux", unixRoot, "${REASONIX_PLUGIN_ROOT}/bin/hello.exe", nil, unixRoot + "/bin/hello.exe", ""},
		{"linux extension-less", "linux", unixRoot, "${REASONIX_PLUGIN_ROOT}/bin/../bin/hello", nil, unixRoot + "/bin/hello", ""},
		{"linux .cmd is just a name", "linux", unixRoot, "${REASONIX_PLUGIN_ROOT}/bin/start.cmd", nil, unixRoot + "/bin/start.cmd", ""},
		{"linux windows path", "linux", unixRoot, `C:\Tools\node.exe`, nil, "",
			`runtime.command "C:\\Tools\\node.exe" is not an absolute path after expansion; it is a Windows path and this system is linux`},
		{"linux shell", "linux", unixRoot, "/usr/bin/../bin/BASH", nil, "", `runtime.command "/usr/bin/../bin/BASH" is the shell bash; runtimes run in exec form only`},
		{"linux relative", "linux", unixRoot, "node", nil, "", `runtime.command "node" is not an absolute path after expansion`},
		{"linux root from another system", "linux", winRoot, "${REASONIX_PLUGIN_ROOT}/bin/hello", nil, "",
			`runtime.command "${REASONIX_PLUGIN_ROOT}/bin/hello": the plugin root C:\Users\A B\plugins\hello is not an absolute path on linux`},
	}
	for _, goos := range []string{"linux", "windows"} {
		root := map[string]string{"linux": unixRoot, "windows": winRoot}[goos]
		for _, c := range []string{"${REASONIX_PLUGIN_ROOT}/../x", `${REASONIX_PLUGIN_ROOT}\..\..\x`, "${REASONIX_PLUGIN_ROOT}/.", "${REASONIX_PLUGIN_ROOT}", "${REASONIX_PLUGIN_ROOT}/C:/x"} {
			tests = append(tests, struct {
				name, goos, root, command string
				exists                    []string
				want, err                 string
			}{goos + " outside root " + c, goos, root, c, nil, "", `runtime.command "` + strings.ReplaceAll(c, `\`, `\\`) + `" does not name a program inside the plugin root`})
		}
		tests = append(tests, struct {
			name, goos, root, command string
			exists                    []string
			want, err                 string
		}{goos + " var inside", goos, root, "/opt/${REASONIX_PLUGIN_ROOT}/x", nil, "", `runtime.command "/opt/${REASONIX_PLUGIN_ROOT}/x": ${REASONIX_PLUGIN_ROOT} may appear only at its start`})
	}
	for _, tc := range tests {
		exists := func(p string) bool {
			for _, e := range tc.exists {
				if e == p {
					return true
				}
			}
			return false
		}
		got, err := expandCommand(targetFor(tc.goos), tc.root, tc.command, exists)
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("%s: got %q, %v\nwant error %s", tc.name, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s: got %q, %v; want %q", tc.name, got, err, tc.want)
		}
	}
}

func TestShellName(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"/bin/sh": "sh", "/usr/bin/bash": "bash", "/bin/ZSH": "zsh", "fish": "fish", "/bin/dash": "dash", "/bin/ksh": "ksh",
		`C:\Windows\System32\cmd.exe`: "cmd", `C:\Windows\System32\CMD.EXE`: "cmd", "cmd": "cmd",
		`C:\Windows\System32\WindowsPowerShell\v1.0\PowerShell.exe`: "powershell",
		`C:\Program Files\PowerShell\7\pwsh.exe`:                    "pwsh", "pwsh": "pwsh",
		`C:\Program Files\Git\bin\bash.exe`: "bash", `C:/msys64/usr/bin/sh.exe`: "sh",
		`C:\Windows\System32\cmd.exe.`: "cmd", `C:\Windows\System32\cmd.exe. . `: "cmd", `C:\Windows\System32\cmd.exe::$DATA`: "cmd",
		`C:cmd.exe`: "cmd", `C:\Windows\System32\cmd`: "cmd",
		"/usr/bin/node": "", `C:\nodejs\node.exe`: "", "/opt/bashful": "", "/opt/sh.d/tool": "", `C:\tools\cmdline.exe`: "", "": "",
		"/bin/bash.sh": "", `C:\x\pwsh.exe.old`: "",
	}
	for in, want := range tests {
		if got := shellName(in); got != want {
			t.Errorf("shellName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSamePath(t *testing.T) {
	t.Parallel()
	tests := []struct {
		goos, a, b string
		same       bool
	}{
		{"windows", `C:\Users\U\AppData\Roaming\rx-bridge\plugins\hello`, `c:\users\u\appdata\roaming\RX-BRIDGE\plugins\hello`, true},
		{"windows", `C:\p\hello`, `C:/p/hello/`, true},
		{"windows", `C:\p\hello`, `C:\p\hello2`, false},
		{"windows", `C:\p\hello`, `D:\p\hello`, false},
		{"linux", "/h/plugins/hello", "/h/plugins/hello/", true},
		{"linux", "/h/plugins/hello", "/h/plugins/Hello", false},
	}
	for _, tc := range tests {
		if got := targetFor(tc.goos).samePath(tc.a, tc.b); got != tc.same {
			t.Errorf("%s: samePath(%q, %q) = %v", tc.goos, tc.a, tc.b, got)
		}
	}
}

// The Windows rules clean as filepath.Clean does on Windows (the values
// below are what it returns there), on every host.
func TestCleanWindows(t *testing.T) {
	t.Parallel()
	win := targetFor("windows")
	for in, want := range map[string]string{
		`C:\a\..\b`: `C:\b`, `C:/a/b/`: `C:\a\b`, `C:\`: `C:\`, `c:\x\.\y`: `c:\x\y`,
		`\\srv\share\a\..\b`: `\\srv\share\b`, `\\srv\share`: `\\srv\share`, `\\srv\share\`: `\\srv\share\`,
		`//srv/share/x/`: `\\srv\share\x`, `\\srv\share\..`: `\\srv\share\`, "rel/x/": `rel\x`,
	} {
		if got := win.clean(in); got != want {
			t.Errorf("clean(%q) = %q, want %q", in, got, want)
		}
	}
}

// The hand-written rules of the host's own system agree with path/filepath
// (on a Windows machine this checks the Windows rules against the real
// thing).
func TestHostTargetMatchesFilepath(t *testing.T) {
	t.Parallel()
	for _, p := range []string{"/", "/a/b/../c/", "/a//b/./c", `C:\a\..\b`, `C:/a/b/`, `C:\`, `\\srv\share\a\..\b`, `\\srv\share`, `\\srv\share\`, `\\srv\share\..`, `//srv/share/x/`, "rel/x", `\rooted\x`, `C:rel`} {
		if host.isAbs(p) != filepath.IsAbs(p) {
			t.Errorf("isAbs(%q) = %v, filepath says %v", p, host.isAbs(p), filepath.IsAbs(p))
			continue
		}
		if host.isAbs(p) && host.clean(p) != filepath.Clean(p) {
			t.Errorf("clean(%q) = %q, filepath says %q", p, host.clean(p), filepath.Clean(p))
		}
	}
}
