//go:build unix

package imageio

import (
	"syscall"
	"testing"
	"time"
)

// processCPU returns the CPU time (user+system) the process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU adds a cpu-ms/op metric: CPU time is far less sensitive than
// wall time to other processes sharing the machine.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(processCPU()-start)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
}
