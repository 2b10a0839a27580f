package proctree

// The macOS supervisor has no subreaper: a descendant whose parent dies is
// handed to launchd, and nothing links it to the program any more. So the
// supervisor follows the tree as it grows, from the kernel's process list
// (supervise_darwin.go), and keeps what it found in a family. The logic is
// here, free of OS calls, so its tests run on every system.

// procInfo is one entry of a process list.
type procInfo struct {
	pid, ppid, pgid int
	start           int64 // start time, µs: with the pid, the process's identity
	zombie          bool
}

// family is every process found to descend from one program, by identity
// (pid and start time), so a pid reused by a stranger is never taken for a
// member.
type family struct {
	program int           // the program's pid, also its process group's number
	members map[int]int64 // pid → start time, the program included
	began   bool          // the program has been looked for
}

func newFamily(program int) *family {
	return &family{program: program, members: map[int]int64{}}
}

// grow brings the family up to date with list, a snapshot of every
// process: members that are gone, or whose pid now names another process,
// are forgotten; then every process whose parent is a member joins,
// transitively, and so does every process in the program's group while
// the program is a member (until it is reaped, the group's number cannot
// name another group). The program joins on
// the first call only: later, its pid may name a stranger. It returns the
// pids that joined.
//
// A member's child is found as long as the member is alive when list is
// taken: once a parent has exited, its children's parent is launchd. The
// group catches such an orphan unless it also left the group.
func (f *family) grow(list []procInfo) []int {
	byPid := make(map[int]procInfo, len(list))
	for _, p := range list {
		byPid[p.pid] = p
	}
	for pid, start := range f.members {
		if p, ok := byPid[pid]; !ok || p.start != start {
			delete(f.members, pid)
		}
	}
	var joined []int
	if !f.began {
		f.began = true
		if p, ok := byPid[f.program]; ok {
			f.members[p.pid] = p.start
			joined = append(joined, p.pid)
		}
	}
	_, group := f.members[f.program]
	for grew := true; grew; {
		grew = false
		for _, p := range list {
			if _, ok := f.members[p.pid]; ok || p.pid == f.program || p.pid <= 1 {
				continue
			}
			// In one snapshot a pid names one process, and a member's
			// identity was checked against this very snapshot.
			_, parentIn := f.members[p.ppid]
			if parentIn || (group && p.pgid == f.program) {
				f.members[p.pid] = p.start
				joined = append(joined, p.pid)
				grew = true
			}
		}
	}
	return joined
}

// living returns the members that list shows alive (not zombies), the
// program excluded.
func (f *family) living(list []procInfo) []int {
	var out []int
	for _, p := range list {
		if start, ok := f.members[p.pid]; ok && start == p.start && !p.zombie && p.pid != f.program {
			out = append(out, p.pid)
		}
	}
	return out
}
