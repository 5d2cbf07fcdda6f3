package pfccontainer

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/internal/endpointtest"
	"github.com/pfcsdk/pfc-go/pfc"
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

// TestHops: Upload reaches http.Client.Do in at most six function hops
// (docs/architecture.md, "An endpoint per line").
func TestHops(t *testing.T) {
	t.Parallel()
	mt := httpmock.NewMockTransport()
	mt.RegisterResponder(http.MethodPut, testBase+"/pfc", httpmock.NewStringResponder(200, `{"imageKey":"k1.jpg"}`))
	hc := &endpointtest.HopCounter{Next: mt}
	c, err := NewClient(pfc.WithBaseURL(testBase), pfc.WithHTTPClient(&http.Client{Transport: hc}),
		pfc.WithRetries(0, time.Millisecond, time.Millisecond))
	require.NoError(t, err)
	_, err = c.Upload(context.Background(), strings.NewReader("\xff\xd8\xff\xe0 jpeg"), 9, "image/jpeg")
	require.NoError(t, err)
	hc.Check(t, "pfccontainer.(*Client).Upload")
}
