//go:build !linux

package catalog

import "time"

var processStart = time.Now()

// threadCPU falls back to the wall clock where a thread's CPU time is not
// at hand.
func threadCPU() time.Duration { return time.Since(processStart) }
