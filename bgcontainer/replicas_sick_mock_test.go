package bgcontainer_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/bgcontainer"
	"github.com/pfcsdk/pfc-go/internal/replicatest"
	"github.com/pfcsdk/pfc-go/mockserver/bgmock"
	"github.com/pfcsdk/pfc-go/pfc"
)

// Every replica sick (503, hung, refused): Status ends with one of their
// errors, typed, after asking each once.
func TestReplicasEverySickStatus(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) { replicasEverySickStatus(t, replicatest.NewNet(t)) })
}

// replicasEverySickStatus is TestReplicasEverySickStatus in a synctest bubble, on nw.
func replicasEverySickStatus(t *testing.T, nw *replicatest.Net) {
	urls, nHung := nw.EverySick(t, `{"status":503,"message":"overloaded"}`)
	c, err := bgcontainer.NewClient("k", append(replicatest.SickClientOptions[bgcontainer.Option](urls...), pfc.WithHTTPClient(nw.Client()))...)
	require.NoError(t, err)
	t.Cleanup(c.CloseIdleConnections)
	ctx := replicatest.HangGuard(t)
	for range 3 {
		_, err := c.Status(ctx)
		require.Error(t, err)
		require.NoError(t, ctx.Err(), "Status hung")
		var ae *pfc.APIError
		t.Log(err)
		assert.True(t, errors.As(err, &ae) || errors.Is(err, pfc.ErrResponseHeaderTimeout) || strings.Contains(err.Error(), "refused"), "untyped: %v", err)
	}
	// Set aside, it is still asked once per call (last), when every
	// other replica failed too: each call waits one header timeout on it.
	assert.LessOrEqual(t, nHung.Load(), int32(3), "the hung replica was asked more than once per call")
}

// A job no replica holds: every replica answering 404 gives the 404; one
// answering 503 gives the 503 (that replica may hold it).
func TestReplicasLookupUnknownJob(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	fleet := bgmock.StartFleet(t, 2, &bgmock.Options{Activated: true})
	c := fleetClient(t, fleet, pfc.WithRetries(-1, 0, 0))
	id := "00000000-0000-4000-8000-000000000000"
	_, err := c.CheckImage(ctx, id)
	var ae *pfc.APIError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, http.StatusNotFound, ae.StatusCode)
	t.Log(err)
	c = sickFleetClient(t, sickReplica(t, nil, false), fleet)
	_, err = c.CheckImage(ctx, id)
	require.ErrorAs(t, err, &ae)
	t.Log(err)
	assert.Equal(t, http.StatusServiceUnavailable, ae.StatusCode)
}

// A replica that hangs only once the job is done (its DownloadImage gets
// no answer within the response header timeout): the image is done again
// on the other replica, nothing reached the writer twice, and the first
// job is removed once the replica answers again.
func TestReplicaHungOnDownloadRedone(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) { replicaHungOnDownloadRedone(t, replicatest.NewNet(t)) })
}

// replicaHungOnDownloadRedone is TestReplicaHungOnDownloadRedone in a synctest bubble, on nw.
func replicaHungOnDownloadRedone(t *testing.T, nw *replicatest.Net) {
	var fleet []*bgmock.TestServer
	g := newGate(t, func(g *gate, ev gateEvent) {
		switch {
		case ev.Host == hostOf(fleet[0].URL) && ev.Method == http.MethodGet && strings.HasPrefix(ev.Path, "/CheckImage/") &&
			ev.Status == http.StatusOK:
			g.hold(fleet[0].URL) // done, then silent: the download hangs
		case ev.Host == hostOf(fleet[1].URL) && ev.Path == "/SubmitImage":
			g.release(fleet[0].URL)
		}
	}).over(nw)
	fleet, _ = netFleet(t, nw, 2, bgmock.Options{Activated: true})
	c := fleetClient(t, fleet, pfc.WithHTTPClient(&http.Client{Transport: g}), pfc.WithReplicaWeight(fleet[0].URL, 100),
		pfc.WithRetries(-1, 0, 0), pfc.WithResponseHeaderTimeout(2*time.Second))
	img := bulkJPEG(t, 7)
	var out bytes.Buffer
	res, err := c.RemoveBackground(context.Background(), bytes.NewReader(img), int64(len(img)), nil, &out, nil)
	require.NoError(t, err)
	assert.Equal(t, res.Bytes, int64(out.Len()), "one PNG in the writer")
	assert.Equal(t, fleet[1].URL, res.Replica)
	require.Len(t, res.Abandoned, 1)
	require.NoError(t, res.Abandoned[0].RemoveErr)
	assert.NotNil(t, res.Abandoned[0].Removed)
	assert.Equal(t, []int{0, 0}, jobs(fleet), "a job stayed on a replica")
}

// A replica answering 200 with garbage to the lookup of a job is passed
// over, and the job found on the replica holding it (the garbage replica
// got the job bound to it: 3 of 3 CheckImage failed with "not a JSON
// object").
func TestReplicasLookupPassesOverGarbage(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	fleet := bgmock.StartFleet(t, 1, &bgmock.Options{Activated: true})
	img := bulkJPEG(t, 3)
	job, err := fleetClient(t, fleet).SubmitImage(ctx, bytes.NewReader(img), int64(len(img)), nil)
	require.NoError(t, err)
	c := sickFleetClient(t, replicatest.Junk(t), fleet) // a fresh client: no binding
	for range 3 {
		_, err := c.CheckImage(ctx, job.ProcessID)
		assert.NoError(t, err)
	}
}

// A replica answering 503 to everything: the image whose step it failed,
// its retries spent, is done again on another replica (before, each flow
// that picked it failed with its 503 until it was set aside).
func TestReplicas503ReplicaRedone(t *testing.T) {
	t.Parallel()
	const n = 9
	fleet := bgmock.StartFleet(t, 2, &bgmock.Options{Activated: true})
	sick := sickReplica(t, nil, false)
	c := fleetClient(t, fleet, pfc.WithReplicas(sick, fleet[0].URL, fleet[1].URL), pfc.WithRetries(2, time.Millisecond, 5*time.Millisecond))
	var failed, moved int
	for i := range n {
		img := bulkJPEG(t, i)
		var out bytes.Buffer
		res, err := c.RemoveBackground(context.Background(), bytes.NewReader(img), int64(len(img)), nil, &out, nil)
		if err != nil {
			failed++
			t.Log(err)
			continue
		}
		assert.NotEqual(t, sick, res.Replica)
		if len(res.LostReplicas) > 0 {
			assert.Equal(t, []string{sick}, res.LostReplicas)
			moved++
		}
	}
	assert.Zero(t, failed, "%d of %d images failed", failed, n)
	assert.Positive(t, moved, "no image was done again elsewhere: the sick replica took no work")
	assert.Equal(t, []int{0, 0}, jobs(fleet), "a job stayed on a replica")
}

// A replica that accepts the job, then answers 503 to CheckImage: the
// image is done again on another replica, and the job accepted there is
// abandoned and removed (the flow failed with the 503).
func TestReplicas503AfterSubmitAbandonsTheJob(t *testing.T) {
	t.Parallel()
	fleet := bgmock.StartFleet(t, 2, &bgmock.Options{Activated: true})
	target, err := url.Parse(fleet[0].URL)
	require.NoError(t, err)
	proxy := httputil.NewSingleHostReverseProxy(target)
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/CheckImage/") {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write([]byte(`{"status":503,"message":"overloaded"}`))
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	c := fleetClient(t, fleet, pfc.WithReplicas(front.URL, fleet[1].URL), pfc.WithReplicaWeight(front.URL, 100),
		pfc.WithRetries(2, time.Millisecond, 5*time.Millisecond))
	img := bulkJPEG(t, 1)
	var out bytes.Buffer
	res, err := c.RemoveBackground(context.Background(), bytes.NewReader(img), int64(len(img)), nil, &out, nil)
	require.NoError(t, err)
	assert.Equal(t, fleet[1].URL, res.Replica)
	assert.Equal(t, []string{front.URL}, res.LostReplicas)
	require.Len(t, res.Abandoned, 1)
	assert.NoError(t, res.Abandoned[0].RemoveErr)
	assert.NotNil(t, res.Abandoned[0].Removed)
	assert.Equal(t, []int{0, 0}, jobs(fleet), "a job stayed on a replica")
}
