//go:build !unix

package resize

import (
	"testing"
	"time"
)

func processCPU() time.Duration { return 0 }

func reportCPU(*testing.B, time.Duration) {}
