package hostedsvc

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

// TestParseColor: the documented bgColor forms parse, the others do not.
func TestParseColor(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]bool{
		"#00ff7f": true, "#00FF7F": true, "navy": true, "NAVY": true, "transparent": true,
		"RebeccaPurple": true, "#0f7": false, "#00ff7f80": false, " navy": false, "#00ff7g": false,
		"": false, "notacolor": false,
	} {
		if _, ok := parseColor(in); ok != want {
			t.Errorf("parseColor(%q) ok = %v, want %v", in, ok, want)
		}
	}
	if c, _ := parseColor("#0A1b2C"); c.R != 0x0a || c.G != 0x1b || c.B != 0x2c || c.A != 0xff {
		t.Errorf("parseColor(#0A1b2C) = %v", c)
	}
}
