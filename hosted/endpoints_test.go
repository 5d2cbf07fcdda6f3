package hosted

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/internal/endpointtest"
	"github.com/pfcsdk/pfc-go/pfc"
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

// TestHops: GetJob reaches http.Client.Do in at most six function hops
// (docs/architecture.md, "An endpoint per line").
func TestHops(t *testing.T) {
	t.Parallel()
	mt := httpmock.NewMockTransport()
	mt.RegisterResponder(http.MethodGet, "https://api.example.test/v2/status/j1?noRedirect=true",
		httpmock.NewJsonResponderOrPanic(200, map[string]any{"_id": "j1", "status": "PENDING"}))
	hc := &endpointtest.HopCounter{Next: mt}
	c, err := NewClient(testKey, pfc.WithBaseURL("https://api.example.test/v2"),
		pfc.WithHTTPClient(&http.Client{Transport: hc}), pfc.WithRetries(0, time.Millisecond, time.Millisecond))
	require.NoError(t, err)
	_, err = c.GetJob(context.Background(), "j1")
	require.NoError(t, err)
	hc.Check(t, "hosted.(*Client).GetJob")
}
