package manifest

import (
	"path"
	"runtime"
	"strings"
)

// target holds the path rules of the system a plugin runs on. It is a value
// rather than path/filepath so the Windows rules run, and are tested, on
// every host; host is the one in use.
type target struct {
	goos    string
	windows bool
}

func targetFor(goos string) target { return target{goos: goos, windows: goos == "windows"} }

var host = targetFor(runtime.GOOS)

func (t target) sep() string {
	if t.windows {
		return `\`
	}
	return "/"
}

// isAbs reports whether p is absolute here. On Windows that needs a drive
// letter and a separator (C:\x) or a UNC or device prefix (\\host\share,
// \\?\C:\x): a path rooted without a drive (\x) is relative to the current
// drive and would run a different program depending on it.
func (t target) isAbs(p string) bool {
	if !t.windows {
		return strings.HasPrefix(p, "/")
	}
	return len(p) >= 3 && hasDrive(p) && isSlash(p[2]) || len(p) >= 2 && isSlash(p[0]) && isSlash(p[1])
}

func isSlash(c byte) bool { return c == '/' || c == '\\' }

// volume returns the Windows volume of an absolute slash-separated path:
// "C:", or "//host/share" (which covers the //?/C: and //./ device forms).
func volume(s string) string {
	if hasDrive(s) {
		return s[:2]
	}
	n := 2
	for part := 0; part < 2; part++ {
		i := strings.IndexByte(s[n:], '/')
		if i < 0 {
			return s
		}
		if part == 0 {
			n += i + 1
		} else {
			n += i
		}
	}
	return s[:n]
}

// clean cleans a path in the system's form: on Windows both separators
// become backslashes and the volume of an absolute path is kept as it is.
func (t target) clean(p string) string {
	if !t.windows {
		return path.Clean(p)
	}
	s := strings.ReplaceAll(p, `\`, "/")
	if !t.isAbs(s) {
		return strings.ReplaceAll(path.Clean(s), "/", `\`)
	}
	vol := volume(s)
	rest := "/"
	switch {
	case len(s) > len(vol):
		rest = path.Clean(s[len(vol):])
	case !hasDrive(s):
		// A bare share (\\host\share) stays without a trailing
		// separator, as filepath.Clean leaves it.
		rest = ""
	}
	return strings.ReplaceAll(vol+rest, "/", `\`)
}

// join puts rel, a path cleanRel accepted, under root, a clean path.
func (t target) join(root, rel string) string {
	if rel == "." {
		return root
	}
	rel = strings.ReplaceAll(rel, "/", t.sep())
	if strings.HasSuffix(root, t.sep()) {
		return root + rel
	}
	return root + t.sep() + rel
}

// samePath reports whether two clean absolute paths name the same place:
// Windows file names ignore case, so its paths compare case-insensitively
// (as Reasonix compares skill roots and lock keys).
func (t target) samePath(a, b string) bool {
	if t.windows {
		return strings.EqualFold(t.clean(a), t.clean(b))
	}
	return t.clean(a) == t.clean(b)
}
