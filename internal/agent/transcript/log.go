package transcript

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

// Log appends records to one session's live file. It is safe for
// concurrent use; records land in the order Append is called.
type Log struct {
	dir, id string

	mu     sync.Mutex
	f      *os.File
	size   int64
	unlock func()
	buf    []byte
	closed bool
}

// Create starts the transcript of a new session in dir (created if
// missing). It fails if the session already exists.
func Create(dir, id string) (*Log, error) {
	if err := checkID(id); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	unlock, err := lock(dir, id)
	if err != nil {
		return nil, err
	}
	if Exists(dir, id) {
		unlock()
		return nil, fmt.Errorf("session %s already exists", id)
	}
	f, err := os.OpenFile(LivePath(dir, id), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		unlock()
		return nil, err
	}
	if err := syncDir(dir); err != nil {
		f.Close()
		unlock()
		return nil, err
	}
	return &Log{dir: dir, id: id, f: f, unlock: unlock}, nil
}

// Open reopens session id for appending and returns its records as Read
// does. A torn last line is cut off the file before anything is
// appended, so the next record starts on a line of its own.
func Open(dir, id string) (*Log, []json.RawMessage, *Torn, error) {
	if err := checkID(id); err != nil {
		return nil, nil, nil, err
	}
	if !Exists(dir, id) {
		return nil, nil, nil, fmt.Errorf("session %s: %w", id, os.ErrNotExist)
	}
	unlock, err := lock(dir, id)
	if err != nil {
		return nil, nil, nil, err
	}
	recs, torn, err := Read(dir, id)
	if err != nil {
		unlock()
		return nil, nil, nil, err
	}
	f, err := os.OpenFile(LivePath(dir, id), os.O_WRONLY|os.O_CREATE, 0o600)
	if err != nil {
		unlock()
		return nil, nil, nil, err
	}
	size, err := f.Seek(0, 2)
	if err == nil && torn != nil {
		size = torn.Offset
		if err = f.Truncate(size); err == nil {
			_, err = f.Seek(size, 0)
		}
	}
	if err != nil {
		f.Close()
		unlock()
		return nil, nil, nil, err
	}
	return &Log{dir: dir, id: id, f: f, size: size, unlock: unlock}, recs, torn, nil
}

// ErrClosed is returned by a Log after Close.
var ErrClosed = errors.New("transcript is closed")

// Append writes v (and anything buffered before it) now.
func (l *Log) Append(v any) error {
	if err := l.Buffer(v); err != nil {
		return err
	}
	return l.Flush()
}

// Buffer adds v as one JSON line to the records Flush writes next. A
// caller buffers the records of one moment and flushes before anything
// that may take long, so each write is one syscall and a crash loses
// only what was still in memory.
func (l *Log) Buffer(v any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return ErrClosed
	}
	l.buf = append(append(l.buf, raw...), '\n')
	return nil
}

// Flush writes the buffered records with a single write, so a crash can
// tear only the last of them.
func (l *Log) Flush() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return ErrClosed
	}
	return l.flushLocked()
}

func (l *Log) flushLocked() error {
	if len(l.buf) == 0 {
		return nil
	}
	n, err := l.f.Write(l.buf)
	l.size += int64(n)
	l.buf = l.buf[:0]
	return err
}

// Sync writes what is buffered and makes every record durable.
func (l *Log) Sync() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return ErrClosed
	}
	if err := l.flushLocked(); err != nil {
		return err
	}
	return l.f.Sync()
}

// Size is the live file's size in bytes, buffered records included.
func (l *Log) Size() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.size + int64(len(l.buf))
}

// Path is the live file.
func (l *Log) Path() string { return LivePath(l.dir, l.id) }

// Rotate archives the live file as the next segment and starts an empty
// live file. It syncs first, so an archived segment is always complete.
//
// The live file is closed before it is renamed: Windows renames no file
// that is open without delete sharing, which is how Go opens every file.
// A crash after the rename leaves a session without a live file, which
// Read and Open accept. If the rename fails (on Windows another process
// may be reading the live file), the log reopens the live file and keeps
// appending to it.
func (l *Log) Rotate() (archived string, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return "", ErrClosed
	}
	if err := l.flushLocked(); err != nil {
		return "", err
	}
	if err := l.f.Sync(); err != nil {
		return "", err
	}
	ns, err := segments(l.dir, l.id)
	if err != nil {
		return "", err
	}
	next := 1
	if len(ns) > 0 {
		next = ns[len(ns)-1] + 1
	}
	archived = segmentPath(l.dir, l.id, next)
	if err := l.f.Close(); err != nil {
		return "", l.reopen(err, os.O_WRONLY|os.O_APPEND, l.size)
	}
	if err := rename(l.Path(), archived); err != nil {
		return "", l.reopen(err, os.O_WRONLY|os.O_APPEND, l.size)
	}
	if err := l.reopen(nil, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0); err != nil {
		return "", err
	}
	return archived, syncDir(filepath.Dir(archived))
}

// reopen opens the live file again after Rotate closed it, with flag, as
// a file of size bytes, and returns cause. If the file cannot be opened
// the log is closed: nothing more can be appended, and the error says so.
func (l *Log) reopen(cause error, flag int, size int64) error {
	f, err := os.OpenFile(l.Path(), flag, 0o600)
	if err != nil {
		l.closed = true
		l.unlock()
		return errors.Join(cause, fmt.Errorf("transcript %s cannot be reopened, so it is closed: %w", l.Path(), err))
	}
	l.f, l.size = f, size
	return cause
}

// Close syncs and closes the file and releases the session's lock. It is
// idempotent.
func (l *Log) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil
	}
	l.closed = true
	err := l.flushLocked()
	if serr := l.f.Sync(); err == nil {
		err = serr
	}
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	l.unlock()
	return err
}
