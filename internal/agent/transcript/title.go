package transcript

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// titlePath is the file holding the title a user gave session id; it
// overrides the title taken from the session's first prompt.
func titlePath(dir, id string) string { return filepath.Join(dir, id+".title") }

// SetTitle stores the title the user gave session id ("" removes it, so
// the session is named by its first prompt again). The session must be
// stored in dir. The file is replaced whole: a reader sees the old
// title or the new one.
func SetTitle(dir, id, title string) error {
	if err := checkID(id); err != nil {
		return err
	}
	if !Exists(dir, id) {
		return fmt.Errorf("session %s: %w", id, os.ErrNotExist)
	}
	path := titlePath(dir, id)
	if title == "" {
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		return nil
	}
	tmp, err := os.CreateTemp(dir, "."+id+".title.tmp*")
	if err != nil {
		return err
	}
	_, werr := tmp.WriteString(title)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		_ = os.Remove(tmp.Name())
		return err
	}
	if err := rename(tmp.Name(), path); err != nil {
		_ = os.Remove(tmp.Name())
		return err
	}
	return nil
}

// Title returns the title the user gave session id, if any.
func Title(dir, id string) (string, bool) {
	if !ValidID(id) {
		return "", false
	}
	b, err := os.ReadFile(titlePath(dir, id))
	if err != nil {
		return "", false
	}
	t := strings.TrimSpace(string(b))
	return t, t != ""
}
