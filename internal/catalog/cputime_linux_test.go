package catalog

import (
	"syscall"
	"time"
)

// threadCPU is the CPU time the calling OS thread has used (the caller
// locks its goroutine to the thread), so that a timing does not count the
// time other processes of a busy machine held the CPU.
func threadCPU() time.Duration {
	const rusageThread = 1 // RUSAGE_THREAD
	var r syscall.Rusage
	if err := syscall.Getrusage(rusageThread, &r); err != nil {
		return 0
	}
	return time.Duration(r.Utime.Nano() + r.Stime.Nano())
}
