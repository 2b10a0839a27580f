package proctree

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// start runs every program under a supervisor.
func start(c Command) (*Tree, error) { return startSupervised(c) }

// selfExe is this binary as the system recorded it at its start. macOS has
// no /proc/self/exe: if the file was replaced since, the new one runs,
// which still knows superviseArg as long as its version suffix is kept.
func selfExe() (string, error) { return os.Executable() }

// programAttr puts the program in its own group. macOS has no
// parent-death signal: a supervisor killed from outside (the owner never
// does it) leaves the program running, on its stdin's EOF to end.
func programAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// sZOMB is a zombie's p_stat (sys/proc.h).
const sZOMB = 5

// watcher follows the program's tree without a subreaper: each member is
// watched through kqueue (EVFILT_PROC) for its forks and the program for
// its exit; every fork triggers a look at the kernel's process list
// (sysctl kern.proc.all), which adds the new children to the family
// before their parent can exit and hand them to launchd.
type watcher struct {
	kq  int
	fam *family
}

func newWatcher() (*watcher, error) {
	kq, err := unix.Kqueue()
	if err != nil {
		return nil, fmt.Errorf("kqueue: %w", err)
	}
	unix.CloseOnExec(kq)
	return &watcher{kq: kq}, nil
}

// follow registers pid's forks and exit with the kqueue; false if pid is
// already gone (or a zombie).
func (w *watcher) follow(pid int) bool {
	var ev unix.Kevent_t
	unix.SetKevent(&ev, pid, unix.EVFILT_PROC, unix.EV_ADD|unix.EV_CLEAR)
	ev.Fflags = unix.NOTE_FORK | unix.NOTE_EXIT
	for {
		_, err := unix.Kevent(w.kq, []unix.Kevent_t{ev}, nil, nil)
		if err != unix.EINTR {
			return err == nil
		}
	}
}

// processes is the kernel's list of every process.
func processes() ([]procInfo, error) {
	kps, err := unix.SysctlKinfoProcSlice("kern.proc.all")
	if err != nil {
		return nil, fmt.Errorf("sysctl kern.proc.all: %w", err)
	}
	out := make([]procInfo, 0, len(kps))
	for i := range kps {
		kp := &kps[i]
		out = append(out, procInfo{
			pid:    int(kp.Proc.P_pid),
			ppid:   int(kp.Eproc.Ppid),
			pgid:   int(kp.Eproc.Pgid),
			start:  kp.Proc.P_starttime.Sec*1e6 + int64(kp.Proc.P_starttime.Usec),
			zombie: kp.Proc.P_stat == sZOMB,
		})
	}
	return out, nil
}

// look updates the family from the process list until it stops growing,
// following each new member's forks, and returns the list last read.
func (w *watcher) look() []procInfo {
	for {
		list, err := processes()
		if err != nil {
			return nil
		}
		joined := w.fam.grow(list)
		if len(joined) == 0 {
			return list
		}
		// A new member may have forked before it was followed: look again.
		for _, pid := range joined {
			w.follow(pid)
		}
	}
}

// watch returns once the program has ended (it stays a zombie until end
// reaps it), the lifeline is lost or a signal arrives, following the
// program's descendants meanwhile.
func (w *watcher) watch(pid int, lost <-chan struct{}, stop <-chan os.Signal) {
	w.fam = newFamily(pid)
	if !w.follow(pid) {
		w.look()
		return
	}
	forked := make(chan struct{}, 1)
	exited := make(chan struct{})
	go func() {
		evs := make([]unix.Kevent_t, 16)
		for {
			n, err := unix.Kevent(w.kq, nil, evs, nil)
			if errors.Is(err, unix.EINTR) {
				continue
			}
			if err != nil {
				return
			}
			for _, ev := range evs[:n] {
				if ev.Fflags&unix.NOTE_FORK != 0 {
					select {
					case forked <- struct{}{}:
					default:
					}
				}
				if ev.Fflags&unix.NOTE_EXIT != 0 && int(ev.Ident) == pid {
					close(exited)
					return
				}
			}
		}
	}()
	w.look()
	for {
		select {
		case <-forked:
			w.look()
		case <-exited:
			w.look()
			return
		case <-lost:
			return
		case <-stop:
			return
		}
	}
}

// end stops the program's group and every member, looks for members'
// children until no new one appears (a stopped process cannot fork), then
// kills them all, reaps the program, and kills again until no member is
// left alive. Members are signalled by pid only after the list showed the
// same identity; the group while the program is unreaped.
func (w *watcher) end(pid int, cmd *exec.Cmd) {
	_ = syscall.Kill(-pid, syscall.SIGSTOP)
	list := w.look()
	for {
		for _, m := range w.fam.living(list) {
			_ = syscall.Kill(m, syscall.SIGSTOP)
		}
		next, err := processes()
		if err != nil || len(w.fam.grow(next)) == 0 {
			list = next
			break
		}
		list = next
	}
	_ = syscall.Kill(-pid, syscall.SIGKILL)
	for _, m := range w.fam.living(list) {
		_ = syscall.Kill(m, syscall.SIGKILL)
	}
	_ = cmd.Wait()
	// The members are not our children: launchd (or a dying member) reaps
	// them. Wait until none is alive, killing again any that is.
	for {
		list, err := processes()
		if err != nil {
			return
		}
		w.fam.grow(list)
		live := w.fam.living(list)
		if len(live) == 0 {
			return
		}
		for _, m := range live {
			_ = syscall.Kill(m, syscall.SIGKILL)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
