package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/rx-bridge/rx-bridge/extproto"
)

// listFiles is list_files: the entries of a directory, gitignore-aware.
type listFiles struct{}

func (listFiles) Schema() extproto.ProviderToolSchema {
	return extproto.ProviderToolSchema{
		Name:        "list_files",
		Description: fmt.Sprintf("List the files and directories under a workspace directory (directories end in /). Entries ignored by .gitignore and the .git directory are left out. At most %d entries.", MaxListEntries),
		Parameters: json.RawMessage(`{"type":"object","properties":{` +
			`"path":{"type":"string","description":"Directory relative to the workspace root (default: the root)"},` +
			`"recursive":{"type":"boolean","description":"Descend into subdirectories (default false)"}},` +
			`"additionalProperties":false}`),
	}
}

func (listFiles) ReadOnly() bool { return true }
func (listFiles) Kind() Kind     { return KindSearch }

func (listFiles) Describe(args json.RawMessage) (string, []string) {
	return describePath("List", args, ".")
}

func (listFiles) Run(ctx context.Context, env *Env, args json.RawMessage) (string, error) {
	var a struct {
		Path      string `json:"path"`
		Recursive bool   `json:"recursive"`
	}
	if err := decodeArgs(args, &a); err != nil {
		return "", err
	}
	return list(ctx, env.Workspace, a.Path, a.Recursive, MaxListEntries)
}

// list is list_files with the entry cap as a parameter.
func list(ctx context.Context, ws *Workspace, dir string, recursive bool, limit int) (string, error) {
	abs, err := ws.Resolve(dir)
	if err != nil {
		return "", err
	}
	st, err := os.Stat(abs)
	if err != nil {
		return "", fmt.Errorf("%s: %w", ws.Rel(abs), unwrapPath(err))
	}
	if !st.IsDir() {
		return "", fmt.Errorf("%s is a file; use read_file", ws.Rel(abs))
	}
	var b strings.Builder
	n, capped := 0, false
	err = ws.walk(ctx, abs, recursive, func(rel string, d fs.DirEntry) error {
		if n == limit {
			capped = true
			return errStop
		}
		n++
		b.WriteString(rel)
		switch {
		case d.IsDir():
			b.WriteByte('/')
		case d.Type()&fs.ModeSymlink != 0:
			b.WriteString("@")
		}
		b.WriteByte('\n')
		return nil
	})
	if err != nil {
		return "", err
	}
	if n == 0 {
		return "[no entries]", nil
	}
	if capped {
		fmt.Fprintf(&b, "[listing stopped at %d entries; list a subdirectory for the rest]", limit)
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}
