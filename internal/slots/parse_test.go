package slots

import "testing"

func TestParse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    string // canonical form; "" means rejected
		wantErr string
	}{
		{in: "system_prompt", want: "system_prompt"},
		{in: "context", want: "context"},
		{in: "provider_request", want: "provider_request"},
		{in: "provider_response", want: "provider_response"},
		{in: "compaction", want: "compaction"},
		{in: "session_policy", want: "session_policy"},
		{in: "permission", want: "permission"},
		{in: "frontend_events", want: "frontend_events"},
		{in: "tool:read_file", want: "tool:read_file"},
		{in: "provider:openai/gpt-4o", want: "provider:openai/gpt-4o"},
		{in: "provider:plugin/echo-provider/echo/small", want: "provider:plugin/echo-provider/echo/small"},
		{in: "system-prompt", wantErr: `unknown slot "system-prompt"`},
		{in: "", wantErr: `unknown slot ""`},
		{in: "tool:", wantErr: `invalid tool slot "tool:": want tool:<name> with a non-empty name without whitespace`},
		{in: "tool:rm -rf", wantErr: `invalid tool slot "tool:rm -rf": want tool:<name> with a non-empty name without whitespace`},
		{in: "provider:gpt-4o", wantErr: `invalid provider slot "provider:gpt-4o": want provider:<name>/<model> or provider:plugin/<plugin>/<name>/<model>`},
		{in: "provider:a/b/c", wantErr: `invalid provider slot "provider:a/b/c": want provider:<name>/<model> or provider:plugin/<plugin>/<name>/<model>`},
		// Exactly one slash is always <name>/<model>, even when the name is "plugin".
		{in: "provider:plugin/x", want: "provider:plugin/x"},
		{in: "provider:/model", wantErr: `invalid provider slot "provider:/model": want provider:<name>/<model> or provider:plugin/<plugin>/<name>/<model>`},
		{in: "provider:plugin//echo/m", wantErr: `invalid provider slot "provider:plugin//echo/m": want provider:<name>/<model> or provider:plugin/<plugin>/<name>/<model>`},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			t.Parallel()
			slot, err := Parse(tc.in)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("Parse(%q) error = %v, want %q", tc.in, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Parse(%q): %v", tc.in, err)
			}
			if slot.String() != tc.want {
				t.Fatalf("Parse(%q) = %q want %q", tc.in, slot.String(), tc.want)
			}
		})
	}
}
