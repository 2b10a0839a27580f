package tools

// Output bounds. A model's context is the scarce resource: every tool
// caps what it returns and says when it did, so the model can narrow the
// request instead of guessing.
const (
	// MaxReadBytes and MaxReadLines cap one read_file result.
	MaxReadBytes = 128 << 10
	MaxReadLines = 2000
	// MaxFileBytes is the largest file read_file and search_text open.
	MaxFileBytes = 8 << 20
	// MaxListEntries caps list_files.
	MaxListEntries = 1000
	// DefaultMatches and MaxMatches cap search_text; MaxMatchLine cuts
	// each matching line.
	DefaultMatches = 100
	MaxMatches     = 500
	MaxMatchLine   = 240
	// MaxCommandOutput caps run_command's combined stdout and stderr:
	// the first and the last half are kept.
	MaxCommandOutput = 64 << 10
)
