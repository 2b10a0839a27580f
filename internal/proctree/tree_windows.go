package proctree

import (
	"fmt"
	"os/exec"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

// On Windows each program gets a Job Object with
// JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE, and every process it starts is in
// the job too (breaking away is not allowed). The owner holds the only
// handle, which is not inheritable: when the owner ends, however it ends,
// the system closes the handle and kills the job. Kill terminates the job.
// The program is created suspended and resumed only once it is in the
// job, so it can start nothing outside; if the job cannot be set up, the
// program is killed before it ran (fail closed).

// sysTree holds the job.
type sysTree struct {
	mu  sync.Mutex
	job windows.Handle // 0 once closed
}

func (s *sysTree) kill() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.job != 0 {
		_ = windows.TerminateJobObject(s.job, 1)
	}
}

// reapWait bounds the wait for a terminated job to be empty; the handle
// is closed after it either way, which kills whatever is left again.
const reapWait = 5 * time.Second

// end ends what the program started, once the program has exited: its
// exit ends its tree.
func (s *sysTree) end() {
	s.mu.Lock()
	job := s.job
	_ = windows.TerminateJobObject(job, 1)
	s.mu.Unlock()
	for wait, waited := time.Millisecond, time.Duration(0); activeProcesses(job) > 0 && waited < reapWait; wait = min(2*wait, 50*time.Millisecond) {
		time.Sleep(wait)
		waited += wait
	}
	s.mu.Lock()
	_ = windows.CloseHandle(job)
	s.job = 0
	s.mu.Unlock()
}

func start(c Command) (*Tree, error) {
	path, args, env, stdin, stdout, stderr := c.Path, c.Args, c.Env, c.Stdin, c.Stdout, c.Stderr
	job, err := newJob()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	cmd := &exec.Cmd{
		Path:   path,
		Args:   append([]string{path}, args...),
		Env:    env,
		Dir:    c.Dir,
		Stdin:  stdin,
		Stdout: stdout,
		Stderr: stderr,
		// Its own console process group, so a console's Ctrl-C never
		// reaches it, and no window of its own.
		SysProcAttr: &syscall.SysProcAttr{
			CreationFlags: windows.CREATE_SUSPENDED | windows.CREATE_NEW_PROCESS_GROUP | windows.CREATE_NO_WINDOW,
			HideWindow:    true,
			CmdLine:       c.CmdLine,
		},
	}
	if err := cmd.Start(); err != nil {
		_ = windows.CloseHandle(job)
		return nil, err
	}
	if err := adopt(job, cmd.Process.Pid); err != nil {
		_ = windows.TerminateJobObject(job, 1)
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		_ = windows.CloseHandle(job)
		return nil, fmt.Errorf("%w: %s: %w", ErrUnavailable, path, err)
	}
	t := &Tree{sys: sysTree{job: job}, pid: cmd.Process.Pid, done: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		t.sys.end()
		t.status, t.code = cmd.ProcessState.String(), cmd.ProcessState.ExitCode()
		close(t.done)
	}()
	return t, nil
}

// newJob creates a job that kills its processes when its last handle
// closes. No security attributes: the handle is not inheritable, so no
// child can keep the job open after the owner is gone.
func newJob() (windows.Handle, error) {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return 0, fmt.Errorf("CreateJobObject: %w", err)
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{
		BasicLimitInformation: windows.JOBOBJECT_BASIC_LIMIT_INFORMATION{LimitFlags: windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE},
	}
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation, uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		_ = windows.CloseHandle(job)
		return 0, fmt.Errorf("SetInformationJobObject(KILL_ON_JOB_CLOSE): %w", err)
	}
	return job, nil
}

// adopt puts the suspended process pid in job, then resumes it. Its pid
// cannot be reused meanwhile: exec holds a handle to it.
func adopt(job windows.Handle, pid int) error {
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(pid))
	if err != nil {
		return fmt.Errorf("OpenProcess: %w", err)
	}
	err = windows.AssignProcessToJobObject(job, h)
	_ = windows.CloseHandle(h)
	if err != nil {
		return fmt.Errorf("AssignProcessToJobObject: %w", err)
	}
	return resume(pid)
}

// resume resumes the one thread of a process created suspended, found in
// a Toolhelp snapshot (exec does not hand out the thread's handle).
func resume(pid int) error {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPTHREAD, 0)
	if err != nil {
		return fmt.Errorf("CreateToolhelp32Snapshot: %w", err)
	}
	defer windows.CloseHandle(snap)
	var threads []uint32
	e := windows.ThreadEntry32{Size: uint32(unsafe.Sizeof(windows.ThreadEntry32{}))}
	for err := windows.Thread32First(snap, &e); err == nil; err = windows.Thread32Next(snap, &e) {
		if e.OwnerProcessID == uint32(pid) {
			threads = append(threads, e.ThreadID)
		}
	}
	if len(threads) != 1 {
		return fmt.Errorf("the suspended process has %d threads, want 1", len(threads))
	}
	th, err := windows.OpenThread(windows.THREAD_SUSPEND_RESUME, false, threads[0])
	if err != nil {
		return fmt.Errorf("OpenThread: %w", err)
	}
	defer windows.CloseHandle(th)
	prev, err := windows.ResumeThread(th)
	if err != nil {
		return fmt.Errorf("ResumeThread: %w", err)
	}
	if prev != 1 {
		return fmt.Errorf("the primary thread's suspend count was %d, want 1", prev)
	}
	return nil
}

// jobAccounting is JOBOBJECT_BASIC_ACCOUNTING_INFORMATION.
type jobAccounting struct {
	TotalUserTime, TotalKernelTime                       int64
	ThisPeriodTotalUserTime, ThisPeriodTotalKernelTime   int64
	TotalPageFaultCount, TotalProcesses, ActiveProcesses uint32
	TotalTerminatedProcesses                             uint32
}

// activeProcesses is the number of processes in job still running (0 if
// it cannot be read).
func activeProcesses(job windows.Handle) uint32 {
	var info jobAccounting
	if err := windows.QueryInformationJobObject(job, windows.JobObjectBasicAccountingInformation, uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info)), nil); err != nil {
		return 0
	}
	return info.ActiveProcesses
}
