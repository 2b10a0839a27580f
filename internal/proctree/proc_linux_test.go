package proctree

import (
	"bytes"
	"fmt"
	"os"
)

// alive: the process exists and is not a zombie (the state follows the
// last ')' of /proc/<pid>/stat).
func (w *procWatch) alive() bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", w.pid))
	i := bytes.LastIndexByte(stat, ')')
	return err == nil && i >= 0 && i+2 < len(stat) && stat[i+2] != 'Z'
}
