package webhook

import (
	"os/exec"
	"strings"
	"testing"
)

// TestImportsNoClientPackage: this package compiles none of the client
// packages (hosted, pfccontainer, bgcontainer), directly or through another
// package, so that its users do not build a client they do not use.
func TestImportsNoClientPackage(t *testing.T) {
	t.Parallel()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to list the dependencies with")
	}
	out, err := exec.Command(goBin, "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		switch strings.TrimPrefix(dep, "github.com/pfcsdk/pfc-go/") {
		case "hosted", "pfccontainer", "bgcontainer":
			t.Errorf("imports the client package %s", dep)
		}
	}
}
