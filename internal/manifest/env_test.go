package manifest

import (
	"reflect"
	"testing"
)

// A runtime.env entry replaces the host's variable; on Windows, whatever
// the case of its name.
func TestSetEnv(t *testing.T) {
	t.Parallel()
	base := []string{`=C:=C:\work`, "Path=C:\\Windows", "HOME=/u", "path2=x"}
	tests := []struct {
		goos, key string
		want      []string
	}{
		{"windows", "PATH", []string{`=C:=C:\work`, "HOME=/u", "path2=x", "PATH=new"}},
		{"windows", "home", []string{`=C:=C:\work`, "Path=C:\\Windows", "path2=x", "home=new"}},
		{"windows", "=C:", []string{"Path=C:\\Windows", "HOME=/u", "path2=x", "=C:=new"}},
		{"linux", "PATH", []string{`=C:=C:\work`, "Path=C:\\Windows", "HOME=/u", "path2=x", "PATH=new"}},
		{"linux", "HOME", []string{`=C:=C:\work`, "Path=C:\\Windows", "path2=x", "HOME=new"}},
	}
	for _, tc := range tests {
		in := append([]string(nil), base...)
		got := setEnv(targetFor(tc.goos), in, tc.key, "new")
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: set %s\n got %q\nwant %q", tc.goos, tc.key, got, tc.want)
		}
		if !reflect.DeepEqual(in, base) {
			t.Errorf("%s: the input was modified: %q", tc.goos, in)
		}
	}
}
