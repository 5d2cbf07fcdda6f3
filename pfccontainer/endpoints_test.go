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
	"github.com/pfcsdk/pfc-go/internal/transport"
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
	// May a call move to another replica: an upload while it never
	// reached one, GET /version to any; a correction stays with its key.
	for ep, want := range map[endpoint]transport.Move{epUpload: transport.MoveUnsent, epCorrect: transport.Stay, epVersion: transport.MoveAny} {
		if decl(ep).Move != want {
			t.Errorf("%s: Move %d, want %d", ep, decl(ep).Move, want)
		}
	}
}

// TestHops: a call reaches http.Client.Do in at most six function hops
// (docs/architecture.md, "An endpoint per line"): Upload on one replica;
// on two, GetCorrection of a key bound to no replica yet (the lookup asks
// each in turn), Upload (new work) and Version (asked of any replica).
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

	const a, b = "http://replica-a.test:8081", "http://replica-b.test:8081"
	mt = httpmock.NewMockTransport()
	mt.RegisterResponder(http.MethodGet, a+"/pfc/k1.jpg",
		jsonAnswer(400, `{"status":400,"code":"unknownImageIdMessage","message":"unknown image id"}`))
	mt.RegisterResponder(http.MethodGet, b+"/pfc/k1.jpg", jsonAnswer(200, `{"corrected_url":"`+b+`/output/k1.jpg"}`))
	for _, u := range []string{a, b} {
		mt.RegisterResponder(http.MethodPut, u+"/pfc", jsonAnswer(200, `{"imageKey":"k2.jpg"}`))
		mt.RegisterResponder(http.MethodGet, u+"/version", jsonAnswer(200, `{"features":[]}`))
	}
	hc = &endpointtest.HopCounter{Next: mt}
	c, err = NewClient(pfc.WithReplicas(a, b), pfc.WithHTTPClient(&http.Client{Transport: hc}),
		pfc.WithRetries(0, time.Millisecond, time.Millisecond))
	require.NoError(t, err)
	_, err = c.GetCorrection(context.Background(), "k1.jpg", nil)
	require.NoError(t, err)
	require.Equal(t, 2, mt.GetTotalCallCount(), "the lookup asks both replicas")
	hc.Check(t, "pfccontainer.(*Client).GetCorrection")
	_, err = c.Upload(context.Background(), strings.NewReader("\xff\xd8\xff\xe0 jpeg"), 9, "image/jpeg")
	require.NoError(t, err)
	hc.Check(t, "pfccontainer.(*Client).Upload")
	_, err = c.Version(context.Background())
	require.NoError(t, err)
	hc.Check(t, "pfccontainer.(*Client).Version")
}
