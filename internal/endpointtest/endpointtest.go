// Package endpointtest checks a client's table of endpoints against the
// routes of the API documentation, kept in a testdata file of the client:
// one "METHOD /route/{param}" a line, "#" comments and blank lines
// ignored.
package endpointtest

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/pfcsdk/pfc-go/internal/transport"
)

// Check fails t unless table declares every route of the file at path
// once, and nothing else: each endpoint with a name, a method and a route
// starting with "/", no two with one name or one method and route.
func Check(t testing.TB, path string, table []*transport.Endpoint) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var documented []string
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if slices.Contains(documented, line) {
			t.Errorf("%s: %q listed twice", path, line)
		}
		documented = append(documented, line)
	}
	if len(documented) == 0 {
		t.Fatalf("%s lists no route", path)
	}
	names := map[string]bool{}
	declared := map[string]bool{}
	for _, e := range table {
		switch {
		case e.Name == "" || e.Method == "" || !strings.HasPrefix(e.Route, "/"):
			t.Errorf("endpoint %+v: name, method and a route starting with / are required", *e)
		case names[e.Name]:
			t.Errorf("endpoint name %q declared twice", e.Name)
		case declared[e.String()]:
			t.Errorf("route %q declared twice", e.String())
		case !slices.Contains(documented, e.String()):
			t.Errorf("route %q declared but not in the API documentation (%s)", e.String(), path)
		}
		names[e.Name], declared[e.String()] = true, true
	}
	for _, d := range documented {
		if !declared[d] {
			t.Errorf("documented route %q not declared", d)
		}
	}
}
