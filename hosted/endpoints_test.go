package hosted

import (
	"testing"

	"github.com/pfcsdk/pfc-go/internal/endpointtest"
)

// TestEndpointsTable: the table declares every route of the API
// documentation once and nothing else; GET /pfc without the cache is the
// same route, never replayed.
func TestEndpointsTable(t *testing.T) {
	t.Parallel()
	endpointtest.Check(t, "testdata/routes.txt", endpoints)
	if epStartJobUncached.String() != epStartJob.String() || epStartJobUncached.Replay || !epStartJob.Replay {
		t.Errorf("StartJob: %+v, uncached %+v", *epStartJob, *epStartJobUncached)
	}
}
