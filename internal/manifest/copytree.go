package manifest

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// copyTree copies the plugin at src into dst (which must exist and be
// empty). Regular files keep their permission bits, so programs stay
// executable. Symlinks are recreated only when they stay inside src: a copy
// must not smuggle a link to the user's files into the plugin. .git
// directories are skipped; a plugin never needs its history to run and it
// can be most of the tree's size. Devices, sockets and pipes are errors.
func copyTree(src, dst string) error {
	realSrc, err := filepath.EvalSymlinks(src)
	if err != nil {
		return fmt.Errorf("copy %s: %w", src, unwrapPath(err))
	}
	return filepath.WalkDir(realSrc, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("copy %s: %w", p, unwrapPath(err))
		}
		rel, _ := filepath.Rel(realSrc, p)
		if rel == "." {
			return nil
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		to := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return fmt.Errorf("copy %s: %w", p, unwrapPath(err))
		}
		switch mode := info.Mode(); {
		case mode.IsDir():
			return mkdir(to, mode.Perm()|0o700)
		case mode.IsRegular():
			return copyFile(p, to, mode.Perm())
		case mode&fs.ModeSymlink != 0:
			return copyLink(realSrc, p, to, rel)
		default:
			return fmt.Errorf("cannot copy %s: not a regular file, directory or symlink", filepath.Join(src, rel))
		}
	})
}

func mkdir(p string, perm fs.FileMode) error {
	if err := os.Mkdir(p, perm); err != nil {
		return fmt.Errorf("copy: %w", err)
	}
	return nil
}

func copyFile(from, to string, perm fs.FileMode) error {
	in, err := os.Open(from)
	if err != nil {
		return fmt.Errorf("copy %s: %w", from, unwrapPath(err))
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm|0o200)
	if err != nil {
		return fmt.Errorf("copy to %s: %w", to, unwrapPath(err))
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return fmt.Errorf("copy %s: %w", from, err)
	}
	if err := out.Sync(); err != nil {
		out.Close()
		return fmt.Errorf("copy to %s: flush: %w", to, unwrapPath(err))
	}
	if err := out.Close(); err != nil {
		return fmt.Errorf("copy to %s: %w", to, unwrapPath(err))
	}
	return os.Chmod(to, perm)
}

func copyLink(realSrc, p, to, rel string) error {
	target, err := os.Readlink(p)
	if err != nil {
		return fmt.Errorf("copy %s: %w", p, unwrapPath(err))
	}
	resolved, err := filepath.EvalSymlinks(p)
	escapes := filepath.IsAbs(target) ||
		!within(realSrc, filepath.Join(filepath.Dir(p), target)) ||
		(err == nil && !within(realSrc, resolved))
	if escapes {
		return fmt.Errorf("cannot copy %s: it is a symlink to %s, outside the plugin (use --link to install the directory in place)", filepath.ToSlash(rel), target)
	}
	if strings.ContainsRune(target, 0) {
		return fmt.Errorf("cannot copy %s: invalid symlink", rel)
	}
	if err := os.Symlink(target, to); err != nil {
		return fmt.Errorf("copy %s: %w", rel, err)
	}
	return nil
}
