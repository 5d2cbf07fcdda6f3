package streamtest

import (
	"flag"
	"runtime"
	"strconv"
	"testing"

	"go.uber.org/goleak"
)

// WaitingMain is the TestMain of a package whose tests spend most of their
// time waiting (a hung server's header timeout, a slow body): MoreParallel,
// then goleak.VerifyTestMain.
func WaitingMain(m *testing.M) {
	MoreParallel()
	goleak.VerifyTestMain(m)
}

// MoreParallel parses the flags and, unless the command line gives
// -parallel, runs up to 4×GOMAXPROCS parallel tests instead of GOMAXPROCS
// (2 on the CI machine), so that waits overlap instead of holding the
// slots in turn. Under the race detector it keeps the default: a healthy
// mock, twenty times slower, must still answer within the tests' header
// timeouts.
func MoreParallel() {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set && !raceDetector {
		_ = flag.Set("test.parallel", strconv.Itoa(4*runtime.GOMAXPROCS(0)))
	}
}
