package pfccontainer_test

import (
	"flag"
	"os"
	"runtime"
	"strconv"
	"testing"

	"go.uber.org/goleak"
)

// TestMain runs up to 4×GOMAXPROCS parallel tests unless -parallel is
// given: the replica tests spend most of their time waiting out a hung
// replica's 2 s response-header timeout, and at the default (GOMAXPROCS,
// 2 on the CI machine) those waits held the slots one after another.
func TestMain(m *testing.M) {
	flag.Parse()
	if !flagSet("test.parallel") {
		if err := flag.Set("test.parallel", strconv.Itoa(4*runtime.GOMAXPROCS(0))); err != nil {
			os.Exit(2)
		}
	}
	goleak.VerifyTestMain(m)
}

// flagSet reports whether the command line set the flag name.
func flagSet(name string) bool {
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
