package bridge

import (
	"time"

	"github.com/rx-bridge/rx-bridge/internal/manifest"
)

// statusWriter keeps <home>/status/<pid>.json (manifest.StatusDir) saying
// how this bridge's plugin runtimes are doing, so `rx-bridge plugin list`
// shows a crash the editor saw. Writes happen on its own goroutine: a
// crash is reported from the sidecar's crash path, which must not wait on
// the disk. Without a status (no advisory locks, an unwritable home) the
// bridge runs as before.
type statusWriter struct {
	s     *Server
	dirty chan struct{}
	quit  chan struct{}
	done  chan struct{}
}

func newStatusWriter(s *Server) *statusWriter {
	w := &statusWriter{s: s, dirty: make(chan struct{}, 1), quit: make(chan struct{}), done: make(chan struct{})}
	f, err := manifest.OpenStatus(s.opts.Home)
	if err != nil {
		s.log.Debug("no plugin status for rx-bridge plugin list", "err", err)
		close(w.done)
		return w
	}
	go w.run(f)
	return w
}

// update asks for the status to be written again; it never blocks.
func (w *statusWriter) update() {
	select {
	case w.dirty <- struct{}{}:
	default:
	}
}

func (w *statusWriter) run(f *manifest.StatusFile) {
	defer close(w.done)
	defer f.Close()
	for {
		select {
		case <-w.dirty:
		case <-w.quit:
			return
		}
		entries, err := w.s.pluginEntries()
		if err != nil {
			continue
		}
		st := manifest.BridgeStatus{Workspace: w.s.workspace, Plugins: make([]manifest.PluginStatus, 0, len(entries))}
		for _, p := range entries {
			st.Plugins = append(st.Plugins, manifest.PluginStatus{Name: p.Name, State: string(p.State), Reason: p.Reason, Since: p.Since, Recover: p.Recover})
		}
		st.Updated = time.Now()
		if err := f.Write(st); err != nil {
			w.s.log.Debug("writing the plugin status", "err", err)
		}
	}
}

// close deletes the status and stops the writer.
func (w *statusWriter) close() {
	select {
	case <-w.quit:
	default:
		close(w.quit)
	}
	<-w.done
}
