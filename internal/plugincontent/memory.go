package plugincontent

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/rx-bridge/rx-bridge/internal/fsbound"
)

// The bounds of the memory block.
const (
	// MaxMemoryFileBytes bounds one memory file (Claude Code warns above
	// 40k characters); the rest is cut with a note.
	MaxMemoryFileBytes = 40 << 10
	// MaxMemoryBytes bounds the memory block's files together; files past
	// it are left out with a note.
	MaxMemoryBytes = 120 << 10
	// MaxImportDepth is how deep "@path" imports are followed (Claude
	// Code's bound).
	MaxImportDepth = 5
)

const memoryIntro = "Codebase and user instructions are shown below. Be sure to adhere to these instructions. " +
	"IMPORTANT: These instructions OVERRIDE any default behavior and you MUST follow them exactly as written."

// memoryFile is one memory file to load: where, inside which bound, and
// how the block describes it.
type memoryFile struct {
	bound, boundName, rel, what string
}

// Memory is the project and user memory block for the system prompt, as
// Claude Code loads it at session start: the user's ~/.claude/CLAUDE.md
// ("user's private global instructions for all projects"), then the
// workspace's CLAUDE.md, .claude/CLAUDE.md and CLAUDE.local.md ("project
// instructions") and AGENTS.md — then those of every other workspace
// folder (Places.Folders), in the folders' order — each as "Contents of <path> (<what>):"
// followed by its text, after one introductory sentence. "@path" imports
// in them (outside code) are followed, relative to the importing file,
// MaxImportDepth levels deep, each imported file once, as a section of
// its own. Every file resolves inside its bound (the workspace, the
// user's home; symlinks followed, never outside) and is cut at
// MaxMemoryFileBytes; the block stops at MaxMemoryBytes. A missing file
// is skipped; an unreadable or outside one is a warning. It is "" when
// there is no memory. Its text depends only on the files, so every turn
// of a generation sends the same bytes.
func Memory(places Places) (string, []Warning) {
	var files []memoryFile
	if places.UserHome != "" {
		files = append(files, memoryFile{places.UserHome, "the user's home", ".claude/CLAUDE.md", "user's private global instructions for all projects"})
	}
	for i, dir := range append([]string{places.Workspace}, places.Folders...) {
		if dir == "" {
			continue
		}
		name := "the workspace"
		if i > 0 {
			name = "the workspace folder " + dir
		}
		for _, rel := range []string{"CLAUDE.md", ".claude/CLAUDE.md"} {
			files = append(files, memoryFile{dir, name, rel, "project instructions, checked into the codebase"})
		}
		files = append(files,
			memoryFile{dir, name, "CLAUDE.local.md", "user's private project instructions, not checked in"},
			memoryFile{dir, name, "AGENTS.md", "project instructions for agents, checked into the codebase"})
	}
	m := memoryLoad{seen: map[string]bool{}, content: map[string]bool{}}
	bounds := map[string]*fsbound.Root{}
	for _, f := range files {
		b, ok := bounds[f.bound]
		if !ok {
			b, _ = fsbound.New(f.bound, f.boundName)
			bounds[f.bound] = b
		}
		if b == nil {
			continue
		}
		m.load(b, filepath.Join(b.Real(), filepath.FromSlash(f.rel)), f.what, 0, true)
	}
	if len(m.sections) == 0 {
		return "", m.warns
	}
	return memoryIntro + "\n\n" + strings.Join(m.sections, "\n\n"), m.warns
}

type memoryLoad struct {
	sections []string
	warns    []Warning
	seen     map[string]bool // files loaded, by resolved path
	content  map[string]bool // texts loaded (AGENTS.md linked to CLAUDE.md is said once)
	size     int
	full     bool
}

// load adds the memory file p and what it imports; a missing file is
// skipped silently when optional.
func (m *memoryLoad) load(b *fsbound.Root, p, what string, depth int, optional bool) {
	if m.full {
		return
	}
	text, real, truncated, err := readRef(b, "", p, MaxMemoryFileBytes)
	switch {
	case err != nil && optional && errors.Is(err, fs.ErrNotExist):
		return
	case err != nil:
		m.warns = append(m.warns, Warning{Path: p, Msg: "memory file " + p + ": " + err.Error() + "; not loaded"})
		return
	case m.seen[real]:
		return
	}
	m.seen[real] = true
	text = strings.TrimSpace(text)
	if text == "" || m.content[text] {
		return
	}
	m.content[text] = true
	if truncated {
		text += "\n[truncated: the file is larger than " + strconv.Itoa(MaxMemoryFileBytes) + " bytes]"
	}
	if m.size+len(text) > MaxMemoryBytes {
		m.full = true
		m.sections = append(m.sections, "[memory truncated: "+p+" and what follows it were left out; the memory files together exceed "+strconv.Itoa(MaxMemoryBytes)+" bytes]")
		return
	}
	m.size += len(text)
	m.sections = append(m.sections, "Contents of "+p+" ("+what+"):\n\n"+text)
	if depth >= MaxImportDepth {
		return
	}
	for _, ref := range atRefs(text) {
		if strings.HasPrefix(ref, "~/") {
			continue // the home is another bound; not followed
		}
		m.load(b, resolveFrom(filepath.Dir(p), ref), "imported by "+filepath.Base(p), depth+1, true)
	}
}

// resolveFrom is ref (slash-separated, relative or absolute) from dir.
func resolveFrom(dir, ref string) string {
	ref = filepath.FromSlash(ref)
	if filepath.IsAbs(ref) {
		return ref
	}
	return filepath.Join(dir, ref)
}
