//go:build !unix

package redact

import "time"

// cpuTime is not measured here.
func cpuTime() time.Duration { return 0 }
