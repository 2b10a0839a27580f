package agent

import "testing"

func TestActionArgs(t *testing.T) {
	t.Parallel()
	got := ActionArgs([]string{"name=Ada", "x", "k=v=w", "y"})
	want := map[string]string{"name": "Ada", "arg1": "x", "k": "v=w", "arg2": "y"}
	if len(got) != len(want) {
		t.Fatalf("ActionArgs = %v", got)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("ActionArgs[%q] = %q, want %q", k, got[k], v)
		}
	}
	if ActionArgs(nil) != nil {
		t.Error("no words: want nil args")
	}
}
