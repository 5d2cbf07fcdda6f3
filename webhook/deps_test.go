package webhook

import (
	"os/exec"
	"strings"
	"testing"
)

// TestImportsNoClientPackage: this package, and the hosted mock's service
// (whose records are the deliveries'), compile none of the client packages
// (hosted, pfccontainer, bgcontainer), directly or through another
// package, so that their users do not build a client they do not use.
func TestImportsNoClientPackage(t *testing.T) {
	t.Parallel()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to list the dependencies with")
	}
	for _, pkg := range []string{".", "../mockserver/internal/hostedsvc"} {
		out, err := exec.Command(goBin, "list", "-deps", pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		for _, dep := range strings.Fields(string(out)) {
			switch strings.TrimPrefix(dep, "github.com/pfcsdk/pfc-go/") {
			case "hosted", "pfccontainer", "bgcontainer":
				t.Errorf("%s imports the client package %s", pkg, dep)
			}
		}
	}
}
