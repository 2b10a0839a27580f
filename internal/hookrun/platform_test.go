package hookrun

import (
	"encoding/base64"
	"errors"
	"reflect"
	"testing"
	"unicode/utf16"
)

// fakePlatform is an OS with the given env, PATH entries and files.
func fakePlatform(goos string, env map[string]string, path map[string]string, files []string, bashOK bool) platform {
	fs := map[string]bool{}
	for _, f := range files {
		fs[f] = true
	}
	return platform{
		goos:   goos,
		getenv: func(k string) string { return env[k] },
		lookPath: func(n string) (string, error) {
			if p, ok := path[n]; ok {
				return p, nil
			}
			return "", errors.New("exec: \"" + n + "\": executable file not found in $PATH")
		},
		isFile:    func(p string) bool { return fs[p] },
		bashWorks: func(string) bool { return bashOK },
	}
}

func decodePS(t *testing.T, b64 string) string {
	t.Helper()
	b, err := base64.StdEncoding.DecodeString(b64)
	if err != nil || len(b)%2 != 0 {
		t.Fatalf("bad encoding %q", b64)
	}
	u := make([]uint16, len(b)/2)
	for i := range u {
		u[i] = uint16(b[2*i]) | uint16(b[2*i+1])<<8
	}
	return string(utf16.Decode(u))
}

func TestShellSelectionBuildsExactInterpreterArgv(t *testing.T) {
	t.Parallel()
	winEnv := map[string]string{"SystemRoot": `C:\Windows`, "ProgramFiles": `C:\Program Files`, "LOCALAPPDATA": `C:\Users\u\AppData\Local`}
	gitBash := `C:\Program Files\Git\bin\bash.exe`
	winPS := `C:\Windows\System32\WindowsPowerShell\v1.0\powershell.exe`
	pwsh7 := `C:\Program Files\PowerShell\7\pwsh.exe`
	linux := fakePlatform("linux", nil, map[string]string{"sh": "/bin/sh", "bash": "/usr/bin/bash", "pwsh": "/usr/bin/pwsh"}, nil, true)
	winFull := fakePlatform("windows", winEnv, map[string]string{"bash": `C:\Windows\System32\bash.exe`}, []string{gitBash, winPS, pwsh7}, true)
	winPathBash := fakePlatform("windows", winEnv, map[string]string{"bash": `D:\msys\bash.exe`}, nil, true)
	winBrokenBash := fakePlatform("windows", winEnv, map[string]string{"bash": `D:\msys\bash.exe`}, []string{winPS}, false)
	winNone := fakePlatform("windows", winEnv, nil, nil, true)
	winUserGit := fakePlatform("windows", winEnv, nil, []string{`C:\Users\u\AppData\Local\Programs\Git\usr\bin\bash.exe`}, true)

	tests := []struct {
		name    string
		pl      platform
		h       Hook
		path    string
		args    []string
		cmdLine string
		ps      string // decoded -EncodedCommand script, when PowerShell
		err     string
	}{
		{"unix auto", linux, Hook{Form: FormShell, Command: "a && b"}, "/bin/sh", []string{"-c", "a && b"}, "", "", ""},
		{"unix legacy", linux, Hook{Form: FormLegacy, Command: "/r/x.sh arg"}, "/bin/sh", []string{"-c", "/r/x.sh arg"}, "", "", ""},
		{"unix bash", linux, Hook{Form: FormShell, Shell: "bash", Command: "echo $0"}, "/usr/bin/bash", []string{"-c", "echo $0"}, "", "", ""},
		{"unix pwsh", linux, Hook{Form: FormShell, Shell: "pwsh", Command: `Write-Output "a"`}, "/usr/bin/pwsh", nil, "", psPrologue + `Write-Output "a"`, ""},
		{"unix cmd", linux, Hook{Form: FormShell, Shell: "cmd", Command: "dir"}, "", nil, "", "", `hook shell "cmd" is only available on Windows`},
		{"unsupported", linux, Hook{Form: FormShell, Shell: "fish", Command: "x"}, "", nil, "", "", `unsupported hook shell "fish"`},
		{"unix exec", linux, Hook{Form: FormExec, Command: "/r/bin/x", Args: []string{"a b"}}, "/r/bin/x", []string{"a b"}, "", "", ""},
		{"unix exec on PATH", linux, Hook{Form: FormExec, Command: "bash", Args: []string{"-c", "x"}}, "/usr/bin/bash", []string{"-c", "x"}, "", "", ""},
		{"unix exec relative to dir", linux, Hook{Form: FormExec, Command: "./t", Dir: "/d"}, "/d/t", nil, "", "", ""},
		{"windows auto skips WSL bash", winFull, Hook{Form: FormShell, Command: "echo hi"}, gitBash, []string{"-c", "echo hi"}, "", "", ""},
		{"windows auto bash on PATH", winPathBash, Hook{Form: FormShell, Command: "x"}, `D:\msys\bash.exe`, []string{"-c", "x"}, "", "", ""},
		{"windows auto broken bash falls to PowerShell", winBrokenBash, Hook{Form: FormShell, Command: "x"}, winPS, nil, "", psPrologue + "x", ""},
		{"windows auto none", winNone, Hook{Form: FormShell, Command: "x"}, "", nil, "", "", errNoWindowsShell},
		{"windows bash from user Git", winUserGit, Hook{Form: FormShell, Shell: "bash", Command: "x"}, `C:\Users\u\AppData\Local\Programs\Git\usr\bin\bash.exe`, []string{"-c", "x"}, "", "", ""},
		{"windows bash missing", winNone, Hook{Form: FormShell, Shell: "bash", Command: "x"}, "", nil, "", "", errNoGitBash},
		{"windows powershell prefers 7", winFull, Hook{Form: FormShell, Shell: "powershell", Command: "x"}, pwsh7, nil, "", psPrologue + "x", ""},
		{"windows powershell missing", winNone, Hook{Form: FormShell, Shell: "powershell", Command: "x"}, "", nil, "", "", "hook requires powershell, but no usable PowerShell was found"},
		{"windows cmd", winNone, Hook{Form: FormShell, Shell: "cmd", Command: `"C:\a b\x.cmd" & echo %X%`}, `C:\Windows\System32\cmd.exe`, []string{"/d", "/s", "/c", `"C:\a b\x.cmd" & echo %X%`}, `cmd.exe /d /s /c ""C:\a b\x.cmd" & echo %X%"`, "", ""},
		{"windows legacy", winFull, Hook{Form: FormLegacy, Command: `C:\r\x.bat`}, `C:\Windows\System32\cmd.exe`, []string{"/d", "/s", "/c", `C:\r\x.bat`}, `cmd.exe /d /s /c "C:\r\x.bat"`, "", ""},
		{"context starts nothing", linux, Hook{Form: FormContext}, "", nil, "", "", `hook form "context" starts no process`},
	}
	for _, tc := range tests {
		c, err := tc.pl.command(&tc.h, tc.h.Dir)
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("%s: err %v, want %q", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if tc.ps != "" {
			if c.Path != tc.path || len(c.Args) != 4 || !reflect.DeepEqual(c.Args[:3], []string{"-NoProfile", "-NonInteractive", "-EncodedCommand"}) || decodePS(t, c.Args[3]) != tc.ps {
				t.Errorf("%s: got %+v", tc.name, c)
			}
			continue
		}
		if c.Path != tc.path || !reflect.DeepEqual(c.Args, tc.args) || c.CmdLine != tc.cmdLine {
			t.Errorf("%s:\n got %q %q %q\nwant %q %q %q", tc.name, c.Path, c.Args, c.CmdLine, tc.path, tc.args, tc.cmdLine)
		}
	}
}

func TestPowerShellCommandEncodesScriptWithoutQuoteReparsing(t *testing.T) {
	t.Parallel()
	script := `Write-Output "a 'b' ""c"" $env:X 🎉" ; & 'C:\p q\x.ps1'`
	c := psCommand("pwsh", script)
	if got := decodePS(t, c.Args[3]); got != psPrologue+script {
		t.Fatalf("decoded %q", got)
	}
}
