package pfccontainer

import (
	"testing"

	"github.com/pfcsdk/pfc-go/internal/endpointtest"
)

// TestEndpointsTable: the table declares every route of the API
// documentation once and nothing else, each under the name its errors
// use (the method and route).
func TestEndpointsTable(t *testing.T) {
	t.Parallel()
	endpointtest.Check(t, "testdata/routes.txt", endpoints)
	for _, d := range endpoints {
		if d.Name != d.String() {
			t.Errorf("%s: named %q", d.String(), d.Name)
		}
	}
	for _, ep := range []endpoint{epUpload, epCorrect, epVersion} {
		if decl(ep).Name != ep {
			t.Errorf("%s: wrong line", ep)
		}
	}
}
