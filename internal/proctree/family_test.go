package proctree

import (
	"fmt"
	"slices"
	"testing"
)

// TestFamilyGrow walks the macOS supervisor's view of a tree through
// snapshots of the process list, as its kqueue fork events would have it
// look. Program 100; launchd is 1.
func TestFamilyGrow(t *testing.T) {
	t.Parallel()
	p := func(pid, ppid, pgid int, start int64) procInfo {
		return procInfo{pid: pid, ppid: ppid, pgid: pgid, start: start}
	}
	zombie := func(i procInfo) procInfo { i.zombie = true; return i }
	launchd := p(1, 0, 1, 1)
	stranger := p(50, 1, 50, 5)
	program := p(100, 40, 100, 10)
	tests := []struct {
		name   string
		steps  [][]procInfo // successive snapshots
		joined [][]int      // what each grow returned
		living []int        // living after the last snapshot
	}{
		{
			name:   "program alone",
			steps:  [][]procInfo{{launchd, stranger, program}},
			joined: [][]int{{100}},
			living: nil,
		},
		{
			name: "children and grandchildren, transitively, in any order",
			steps: [][]procInfo{{
				p(300, 200, 100, 13), launchd, stranger, p(200, 100, 100, 12), program,
			}},
			joined: [][]int{{100, 200, 300}},
			living: []int{200, 300},
		},
		{
			name: "a child that left the group is followed while its parent lives",
			steps: [][]procInfo{
				{launchd, program},
				{launchd, program, p(200, 100, 200, 12)},
				{launchd, program, p(200, 100, 200, 12), p(300, 200, 200, 13)},
				// 200 exits: 300 goes to launchd but stays a member.
				{launchd, program, p(300, 1, 200, 13)},
			},
			joined: [][]int{{100}, {200}, {300}, nil},
			living: []int{300},
		},
		{
			name: "an orphan still in the group is found even when first seen under launchd",
			steps: [][]procInfo{
				{launchd, program},
				{launchd, program, p(400, 1, 100, 20)},
			},
			joined: [][]int{{100}, {400}},
			living: []int{400},
		},
		{
			name: "an orphan that left the group before it was seen escapes (the documented limit)",
			steps: [][]procInfo{
				{launchd, program},
				{launchd, program, p(400, 1, 400, 20)},
			},
			joined: [][]int{{100}, nil},
			living: nil,
		},
		{
			name: "a member's pid reused by a stranger is forgotten, and so are the stranger's children",
			steps: [][]procInfo{
				{launchd, program, p(200, 100, 200, 12)},
				{launchd, program, p(200, 1, 200, 99), p(201, 200, 200, 100)},
			},
			joined: [][]int{{100, 200}, nil},
			living: nil,
		},
		{
			name: "zombies are members but not living",
			steps: [][]procInfo{
				{launchd, zombie(program), zombie(p(200, 100, 100, 12)), p(300, 100, 300, 13)},
			},
			joined: [][]int{{100, 200, 300}},
			living: []int{300},
		},
		{
			name: "once reaped, the program's pid and group name strangers",
			steps: [][]procInfo{
				{launchd, program, p(200, 100, 200, 12)},
				{launchd, p(200, 1, 200, 12)},
				// pid 100 reused, and a process in group 100 again.
				{launchd, p(200, 1, 200, 12), p(100, 1, 100, 50), p(101, 100, 100, 51)},
			},
			joined: [][]int{{100, 200}, nil, nil},
			living: []int{200},
		},
		{
			name: "the program first seen already gone: the group is not followed",
			steps: [][]procInfo{
				{launchd, p(400, 1, 100, 20)},
			},
			joined: [][]int{nil},
			living: nil,
		},
		{
			name: "launchd and the kernel never join, whatever their group",
			steps: [][]procInfo{
				{p(0, 0, 100, 0), p(1, 0, 100, 1), program},
			},
			joined: [][]int{{100}},
			living: nil,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFamily(100)
			var last []procInfo
			for i, list := range tc.steps {
				got := f.grow(list)
				slices.Sort(got)
				if fmt.Sprint(got) != fmt.Sprint(tc.joined[i]) {
					t.Errorf("step %d: joined %v, want %v", i, got, tc.joined[i])
				}
				last = list
			}
			got := f.living(last)
			slices.Sort(got)
			if fmt.Sprint(got) != fmt.Sprint(tc.living) {
				t.Errorf("living %v, want %v", got, tc.living)
			}
		})
	}
}
