package pfccontainer_test

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/internal/replicatest"
	"github.com/pfcsdk/pfc-go/mockserver/pfcmock"
	"github.com/pfcsdk/pfc-go/pfc"
	"github.com/pfcsdk/pfc-go/pfccontainer"
)

func fleetClient(t *testing.T, fleet []*pfcmock.TestServer, opts ...pfccontainer.Option) *pfccontainer.Client {
	t.Helper()
	var urls []string
	for _, s := range fleet {
		urls = append(urls, s.URL)
	}
	c, err := pfccontainer.NewClient(append([]pfccontainer.Option{pfc.WithReplicas(urls...),
		pfc.WithRetries(4, time.Millisecond, 5*time.Millisecond)}, opts...)...)
	require.NoError(t, err)
	t.Cleanup(c.CloseIdleConnections)
	return c
}

// netFleet is StartFleet on the in-memory network nw, for a test run in a
// synctest bubble (see replicatest.Net): a hung replica's response header
// timeout passes on the bubble's clock, at once, and never while a mock
// is still working. Each mock's site URL is its own; the TestServers have
// no httptest Server, and their clients retry as StartFleet's do.
func netFleet(t *testing.T, nw *replicatest.Net, n int) []*pfcmock.TestServer {
	t.Helper()
	var fleet []*pfcmock.TestServer
	for range n {
		l, url := nw.Listen(t)
		mock, err := pfcmock.New(pfcmock.Options{SiteURL: url})
		require.NoError(t, err)
		t.Cleanup(func() { assert.NoError(t, mock.Close()) }) // after the server's Kill
		replicatest.ServeOn(t, l, mock)
		c, err := pfccontainer.NewClient(pfc.WithBaseURL(url), pfc.WithHTTPClient(nw.Client()),
			pfc.WithRetries(0, time.Millisecond, 20*time.Millisecond), pfc.WithMaxRetryAfter(20*time.Millisecond))
		require.NoError(t, err)
		fleet = append(fleet, &pfcmock.TestServer{URL: url, Mock: mock, Client: c})
	}
	return fleet
}

func killPFC(s *pfcmock.TestServer) {
	_ = s.Server.Listener.Close()
	s.Server.CloseClientConnections()
}

// The correction of an imageKey goes to the replica that accepted its
// upload (the others do not know the key); a client that did not upload
// it finds the replica holding it.
func TestReplicasImageKeyAffinity(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	fleet := pfcmock.StartFleet(t, 3, nil)
	c := fleetClient(t, fleet)
	other := fleetClient(t, fleet)
	for i := range 6 {
		img := jpegOf(t, 48, 40, i)
		key, err := c.Upload(ctx, bytes.NewReader(img), int64(len(img)), "")
		require.NoError(t, err)
		corr, err := c.GetCorrection(ctx, key, nil)
		require.NoError(t, err)
		var out bytes.Buffer
		_, err = c.Download(ctx, corr, &out)
		require.NoError(t, err)
		_, err = other.GetCorrection(ctx, key, nil)
		require.NoError(t, err, "a client that did not upload the key did not find its replica")
	}
	c2 := fleetClient(t, fleet)
	_, err := c2.GetCorrection(ctx, "no-such-key.jpg", nil)
	assert.ErrorIs(t, err, pfccontainer.ErrUnknownImageKey)
}

// Killing one replica in the middle of a CorrectDir run loses nothing and
// duplicates no output; the results name the replica lost, and the
// uploads skip it afterwards.
func TestReplicasCorrectDirSurvivesAKilledReplica(t *testing.T) {
	t.Parallel()
	const n = 45
	fleet := pfcmock.StartFleet(t, 3, nil)
	c := fleetClient(t, fleet)
	in, out := t.TempDir(), t.TempDir()
	writeImages(t, in, n)
	var (
		once   sync.Once
		done   atomic.Int32
		mu     sync.Mutex
		byRepl = map[string]int{}
		lost   = map[string]bool{}
	)
	rep, err := c.CorrectDir(context.Background(), in, out, nil, &pfc.BulkOptions[*pfccontainer.Correction]{
		Concurrency: 6,
		OnResult: func(r pfc.BulkResult[*pfccontainer.Correction]) {
			if done.Add(1) == n/3 {
				once.Do(func() { killPFC(fleet[1]) })
			}
			if corr := r.Result; corr != nil {
				mu.Lock()
				byRepl[corr.Replica]++
				for _, l := range corr.LostReplicas {
					lost[l] = true
				}
				mu.Unlock()
			}
		},
	})
	require.NoError(t, err)
	require.Empty(t, rep.Failures)
	assert.Equal(t, n, rep.Done)
	files := 0
	require.NoError(t, filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Ext(p) != ".jsonl" {
			files++
		}
		return err
	}))
	assert.Equal(t, n, files)
	for _, s := range fleet {
		assert.Positive(t, byRepl[s.URL], "replica %s took no work", s.URL)
	}
	for l := range lost {
		assert.Equal(t, fleet[1].URL, l)
	}
}

// sickReplica starts a replica that answers every request 503 or, with
// hang, accepts it and never answers (until the test ends): on nw, or on
// loopback when nw is nil (a 503 only: a hung replica's test runs in a
// bubble, see netFleet).
func sickReplica(t *testing.T, nw *replicatest.Net, hang bool) string {
	t.Helper()
	switch {
	case nw == nil:
		return replicatest.Sick(t, http.StatusServiceUnavailable, "")
	case hang:
		u, _ := nw.Hung(t)
		return u
	}
	return nw.Sick(t, http.StatusServiceUnavailable, "")
}

// sickFleetClient returns a client of a sick replica (first) and the
// replicas of fleet, whose calls are not retried and wait at most 2 s for
// an answer (on a bubble's clock where the test runs in one).
func sickFleetClient(t *testing.T, sick string, fleet []*pfcmock.TestServer, opts ...pfccontainer.Option) *pfccontainer.Client {
	t.Helper()
	urls := []string{sick}
	for _, s := range fleet {
		urls = append(urls, s.URL)
	}
	return fleetClient(t, fleet, append([]pfccontainer.Option{pfc.WithReplicas(urls...), pfc.WithRetries(-1, 0, 0),
		pfc.WithResponseHeaderTimeout(2 * time.Second)}, opts...)...)
}

// A replica that accepts connections and never answers is set aside, and
// the image a call of it timed out on is done again on another replica:
// no file fails (10 of 30 failed when the hung replica kept its share of
// new work, then 3 of 30: those it took before it was set aside).
func TestReplicasHungReplicaSetAside(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) { replicasHungReplicaSetAside(t, replicatest.NewNet(t)) })
}

// replicasHungReplicaSetAside is TestReplicasHungReplicaSetAside in a synctest bubble, on nw.
func replicasHungReplicaSetAside(t *testing.T, nw *replicatest.Net) {
	const n = 30
	fleet := netFleet(t, nw, 2)
	hung := sickReplica(t, nw, true)
	c := sickFleetClient(t, hung, fleet, pfc.WithHTTPClient(nw.Client()))
	in, out := t.TempDir(), t.TempDir()
	rels := writeImages(t, in, n)
	var failed, moved int
	for _, rel := range rels {
		corr, err := c.CorrectFile(context.Background(), filepath.Join(in, rel), filepath.Join(out, filepath.Base(rel)), nil, nil)
		if err != nil {
			failed++
			t.Log(err)
			continue
		}
		assert.NotEqual(t, hung, corr.Replica)
		if len(corr.LostReplicas) > 0 {
			assert.Equal(t, []string{hung}, corr.LostReplicas)
			moved++
		}
		assert.FileExists(t, filepath.Join(out, filepath.Base(rel)))
	}
	assert.Zero(t, failed, "%d of %d files failed", failed, n)
	assert.Positive(t, moved, "no file was done again elsewhere: the hung replica took no work")
}

// A fleet's Version (and Health) answers from a replica that works, not
// with a sick replica's 503 or its timeout.
func TestReplicasVersionSkipsASickReplica(t *testing.T) {
	t.Parallel()
	for name, hang := range map[string]bool{"503": false, "hang": true} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				nw := replicatest.NewNet(t)
				fleet := netFleet(t, nw, 2)
				c := sickFleetClient(t, sickReplica(t, nw, hang), fleet, pfc.WithHTTPClient(nw.Client()))
				failed := 0
				for range 6 {
					if err := c.Health(context.Background()); err != nil {
						failed++
						t.Log(err)
					}
				}
				assert.Zero(t, failed, "%d of 6 Health calls failed", failed)
			})
		})
	}
}
