//go:build unix

package refserver

import (
	"syscall"
	"time"
)

// processCPU is the CPU time the process has used (user and system), which
// other processes on a busy machine do not inflate as they do wall time.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
