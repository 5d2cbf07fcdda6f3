package bgcontainer

import (
	"context"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/internal/endpointtest"
	"github.com/pfcsdk/pfc-go/internal/transport"
	"github.com/pfcsdk/pfc-go/pfc"
)

// TestEndpointsTable: the table declares every route of the API
// documentation once and nothing else, and every name the client calls
// has its line.
func TestEndpointsTable(t *testing.T) {
	t.Parallel()
	endpointtest.Check(t, "testdata/routes.txt", endpoints)
	for _, ep := range []endpoint{epAuthorize, epStatus, epSubmitImage, epCheckImage, epDownloadImage, epRemoveImage} {
		if ep.decl().Name != string(ep) {
			t.Errorf("%s: wrong line", ep)
		}
	}
	if epSubmitImage.decl().Replay {
		t.Error("SubmitImage starts a job per request: it must not be replayed")
	}
	if d := epDownloadImage.decl(); !d.Final102 || d.Buffer || !d.Final(500) {
		t.Errorf("DownloadImage: final 102 and 500, streamed: %+v", *d)
	}
	// May a call move to another replica: new work while it never
	// reached one, GET /Status to any; the calls about a job stay.
	for _, d := range endpoints {
		want := transport.Stay
		switch endpoint(d.Name) {
		case epSubmitImage:
			want = transport.MoveUnsent
		case epStatus:
			want = transport.MoveAny
		}
		assert.Equal(t, want, d.Move, d.Name)
	}
}

// TestLogsNameRoute: the log records of a call name its route template,
// never the path with the process id or the licence key.
func TestLogsNameRoute(t *testing.T) {
	t.Parallel()
	f := newFixture(t, secretKey)
	f.json(t, http.MethodGet, "/Authorize/"+secretKey, 200, map[string]any{"status": "Licensed"})
	f.json(t, http.MethodGet, "/CheckImage/"+jobID, 200, map[string]any{"status": "completed"})
	_, err := f.c.Authorize(context.Background())
	require.NoError(t, err)
	_, err = f.c.CheckImage(context.Background(), jobID)
	require.NoError(t, err)
	logs := f.logs.String()
	routes := regexp.MustCompile(`route=(\S+)`).FindAllStringSubmatch(logs, -1)
	require.NotEmpty(t, routes, logs)
	seen := map[string]bool{}
	for _, r := range routes {
		seen[r[1]] = true
	}
	assert.Equal(t, map[string]bool{"/Authorize/{license_key}": true, "/CheckImage/{process_id}": true}, seen)
	assert.NotContains(t, logs, secretKey)
}

// TestHops: a call reaches http.Client.Do in at most six function hops
// (docs/architecture.md, "An endpoint per line"): CheckImage,
// DownloadImage and Authorize on one replica; on two, CheckImage of a job bound to no replica yet (the
// lookup asks each in turn), SubmitImage (new work) and Status (asked of
// any replica).
func TestHops(t *testing.T) {
	t.Parallel()
	mt := httpmock.NewMockTransport()
	mt.RegisterResponder(http.MethodGet, testBase+"/CheckImage/"+jobID,
		httpmock.NewJsonResponderOrPanic(200, map[string]any{"status": "completed"}))
	mt.RegisterResponder(http.MethodGet, testBase+"/DownloadImage/"+jobID, httpmock.NewStringResponder(200, "\x89PNG\r\n\x1a\n"))
	mt.RegisterResponder(http.MethodGet, testBase+"/Authorize/"+secretKey,
		httpmock.NewJsonResponderOrPanic(200, map[string]any{"status": "Licensed"}))
	hc := &endpointtest.HopCounter{Next: mt}
	c, err := NewClient(secretKey, pfc.WithBaseURL(testBase), pfc.WithHTTPClient(&http.Client{Transport: hc}),
		pfc.WithRetries(0, time.Millisecond, time.Millisecond))
	require.NoError(t, err)
	_, err = c.CheckImage(context.Background(), jobID)
	require.NoError(t, err)
	hc.Check(t, "bgcontainer.(*Client).CheckImage")
	_, err = c.DownloadImage(context.Background(), jobID, io.Discard)
	require.NoError(t, err)
	hc.Check(t, "bgcontainer.(*Client).DownloadImage")
	_, err = c.Authorize(context.Background())
	require.NoError(t, err)
	hc.Check(t, "bgcontainer.(*Client).Authorize")

	const a, b = "http://replica-a.test:8000", "http://replica-b.test:8000"
	mt = httpmock.NewMockTransport()
	mt.RegisterResponder(http.MethodGet, a+"/CheckImage/"+jobID, httpmock.NewStringResponder(404, `{"error":"not found"}`))
	mt.RegisterResponder(http.MethodGet, b+"/CheckImage/"+jobID,
		httpmock.NewJsonResponderOrPanic(200, map[string]any{"status": "completed"}))
	for _, u := range []string{a, b} {
		mt.RegisterResponder(http.MethodGet, u+"/Status", httpmock.NewJsonResponderOrPanic(200, map[string]any{"status": "Licensed"}))
		mt.RegisterResponder(http.MethodPost, u+"/SubmitImage", httpmock.NewJsonResponderOrPanic(200, map[string]any{"process_id": jobID}))
	}
	hc = &endpointtest.HopCounter{Next: mt}
	c, err = NewClient(secretKey, pfc.WithReplicas(a, b), pfc.WithHTTPClient(&http.Client{Transport: hc}),
		pfc.WithRetries(0, time.Millisecond, time.Millisecond))
	require.NoError(t, err)
	_, err = c.CheckImage(context.Background(), jobID)
	require.NoError(t, err)
	assert.Equal(t, 2, mt.GetTotalCallCount(), "the lookup asks both replicas")
	hc.Check(t, "bgcontainer.(*Client).CheckImage")
	_, err = c.SubmitImage(context.Background(), strings.NewReader("\x89PNG\r\n\x1a\n"), 8, nil)
	require.NoError(t, err)
	hc.Check(t, "bgcontainer.(*Client).SubmitImage")
	_, err = c.Status(context.Background())
	require.NoError(t, err)
	hc.Check(t, "bgcontainer.(*Client).Status")
}
