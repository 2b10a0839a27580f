package exthost

import (
	"bytes"
	"fmt"
	"os"
)

// pidAlive: pid exists and is not a zombie (the state follows the last
// ')' of /proc/<pid>/stat).
func pidAlive(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	i := bytes.LastIndexByte(stat, ')')
	return err == nil && i >= 0 && i+2 < len(stat) && stat[i+2] != 'Z'
}
