package exthost

import (
	"os/exec"
	"runtime"
	"sync"
)

// Linux delivers Pdeathsig when the *thread* that forked the child exits,
// not the process. Go may terminate a thread when a goroutine locked to it
// exits, so a fork from an arbitrary goroutine could kill a healthy
// sidecar later (golang/go#27505). Every spawn therefore happens on one
// goroutine locked to its thread for the life of the process.
var (
	spawnOnce sync.Once
	spawnReqs chan spawnReq
)

type spawnReq struct {
	cmd  *exec.Cmd
	done chan error
}

func startLocked(cmd *exec.Cmd) error {
	spawnOnce.Do(func() {
		spawnReqs = make(chan spawnReq)
		go func() {
			runtime.LockOSThread() // never unlocked: the thread must outlive every sidecar
			for r := range spawnReqs {
				r.done <- r.cmd.Start()
			}
		}()
	})
	done := make(chan error, 1)
	spawnReqs <- spawnReq{cmd: cmd, done: done}
	return <-done
}
