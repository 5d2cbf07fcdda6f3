package bgcontainer_test

import (
	"bytes"
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/bgcontainer"
	"github.com/pfcsdk/pfc-go/internal/poll"
	"github.com/pfcsdk/pfc-go/internal/replicatest"
	"github.com/pfcsdk/pfc-go/mockserver"
	"github.com/pfcsdk/pfc-go/mockserver/bgmock"
	"github.com/pfcsdk/pfc-go/pfc"
)

// fleetClient returns a client of every replica of fleet.
func fleetClient(t *testing.T, fleet []*bgmock.TestServer, opts ...bgcontainer.Option) *bgcontainer.Client {
	t.Helper()
	var urls []string
	for _, s := range fleet {
		urls = append(urls, s.URL)
	}
	c, err := bgcontainer.NewClient(fleet[0].LicenseKey, append([]bgcontainer.Option{
		pfc.WithReplicas(urls...),
		bgcontainer.WithPolling(pfc.WaitOptions{MinDelay: 5 * time.Millisecond, MaxDelay: 20 * time.Millisecond}),
		pfc.WithRetries(4, time.Millisecond, 5*time.Millisecond),
	}, opts...)...)
	require.NoError(t, err)
	t.Cleanup(c.CloseIdleConnections)
	return c
}

// netFleet is StartFleet on the in-memory network nw, for a test run in a
// synctest bubble (see replicatest.Net): a hung replica's response header
// timeout passes on the bubble's clock, at once, and never while a mock
// is still working. The TestServers have no httptest Server; their
// clients poll and retry as StartFleet's do. It returns the replicas'
// servers too, whose Kill is kill's.
func netFleet(t *testing.T, nw *replicatest.Net, n int, opts bgmock.Options) ([]*bgmock.TestServer, []*replicatest.Server) {
	t.Helper()
	var fleet []*bgmock.TestServer
	var servers []*replicatest.Server
	for range n {
		mock, err := bgmock.New(opts)
		require.NoError(t, err)
		t.Cleanup(func() { assert.NoError(t, mock.Close()) }) // after the server's Kill
		srv := nw.Serve(t, mock)
		c, err := bgcontainer.NewClient(bgmock.DefaultLicenseKey, pfc.WithBaseURL(srv.URL), pfc.WithHTTPClient(nw.Client()),
			bgcontainer.WithPolling(pfc.WaitOptions{MinDelay: 10 * time.Millisecond, MaxDelay: 100 * time.Millisecond}),
			pfc.WithRetries(0, time.Millisecond, 20*time.Millisecond), pfc.WithMaxRetryAfter(20*time.Millisecond))
		require.NoError(t, err)
		fleet = append(fleet, &bgmock.TestServer{URL: srv.URL, LicenseKey: bgmock.DefaultLicenseKey, Mock: mock, Client: c})
		servers = append(servers, srv)
	}
	return fleet, servers
}

// kill makes a replica unreachable, as a host that died: its listener
// closes (new connections are refused) and its connections are cut.
func kill(s *bgmock.TestServer) {
	_ = s.Server.Listener.Close()
	s.Server.CloseClientConnections()
}

// A job's later calls go to the replica that accepted it, also from a
// client that did not submit it (it finds the replica holding the id);
// each replica is activated on its own.
func TestReplicasAffinity(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	fleet := bgmock.StartFleet(t, 3, nil)
	c := fleetClient(t, fleet)
	st, err := c.Authorize(ctx)
	require.NoError(t, err)
	require.True(t, st.IsLicensed())
	var jobs []*bgcontainer.Job
	for i := range 6 {
		img := bulkJPEG(t, i)
		job, err := c.SubmitImage(ctx, bytes.NewReader(img), int64(len(img)), nil)
		require.NoError(t, err)
		jobs = append(jobs, job)
	}
	held := 0
	for _, s := range fleet {
		n := s.Mock.JobCount()
		assert.Positive(t, n, "a replica got no job")
		held += n
	}
	require.Equal(t, 6, held)
	other := fleetClient(t, fleet) // knows no job
	for _, job := range jobs {
		_, err := c.WaitImage(ctx, job.ProcessID, nil)
		require.NoError(t, err)
		var png bytes.Buffer
		_, err = c.DownloadImage(ctx, job.ProcessID, &png)
		require.NoError(t, err)
		chk, err := other.CheckImage(ctx, job.ProcessID)
		require.NoError(t, err)
		assert.Equal(t, bgcontainer.StatusCompleted, chk.Status)
		_, err = other.RemoveImage(ctx, job.ProcessID)
		require.NoError(t, err)
		_, err = c.CheckImage(ctx, job.ProcessID)
		assert.ErrorIs(t, err, bgcontainer.ErrJobNotFound)
	}
}

// A replica that is not activated holds no job: a client looking for a
// process id it did not submit asks the next replica instead of stopping
// at the first one's 403 (it returned ErrNotActivated for a job another
// replica held).
func TestReplicasLookupSkipsAReplicaNotActivated(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	fleet := bgmock.StartFleet(t, 2, nil)
	_, err := fleet[1].Client.Authorize(ctx)
	require.NoError(t, err)
	img := bulkJPEG(t, 1)
	job, err := fleet[1].Client.SubmitImage(ctx, bytes.NewReader(img), int64(len(img)), nil)
	require.NoError(t, err)
	other := fleetClient(t, fleet) // knows no job; replica 0 is not activated
	chk, err := other.CheckImage(ctx, job.ProcessID)
	require.NoError(t, err)
	assert.Equal(t, job.ProcessID, chk.ProcessID)
}

// Authorize applies the key to every replica, also past one that is down:
// the error is reported, and the others are activated (it stopped at the
// first replica that failed).
func TestReplicasAuthorizePastADeadReplica(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	fleet := bgmock.StartFleet(t, 3, nil)
	kill(fleet[0])
	c := fleetClient(t, fleet)
	_, err := c.Authorize(ctx)
	require.Error(t, err, "replica 0 is down")
	for _, i := range []int{1, 2} {
		st, err := fleet[i].Client.Status(ctx)
		require.NoError(t, err)
		assert.True(t, st.IsLicensed(), "replica %d not activated", i)
	}
}

// New work moves to another replica only when the request provably never
// reached the first: a dead replica is skipped, and RemoveBackground
// activates each live replica on first use.
func TestReplicasSubmitSkipsADeadReplica(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	fleet := bgmock.StartFleet(t, 3, nil)
	kill(fleet[1])
	c := fleetClient(t, fleet)
	for i := range 6 {
		img := bulkJPEG(t, i)
		var out bytes.Buffer
		res, err := c.RemoveBackground(ctx, bytes.NewReader(img), int64(len(img)), nil, &out, nil)
		require.NoError(t, err)
		assert.NotEqual(t, fleet[1].URL, res.Replica)
	}
	for _, i := range []int{0, 2} {
		st, err := fleet[i].Client.Status(ctx)
		require.NoError(t, err)
		assert.True(t, st.IsLicensed(), "replica %d not activated on first use", i)
	}
}

// A submission whose answer was lost is reported, never sent twice: the
// container's connection is cut after it read the request.
func TestReplicasSubmissionAnswerLostNotResent(t *testing.T) {
	t.Parallel()
	fleet := bgmock.StartFleet(t, 2, &bgmock.Options{
		Activated: true,
		Faults:    mustFaults(t, "bg:rate=1,kinds=reset-after,routes=submit"),
	})
	c := fleetClient(t, fleet)
	img := bulkJPEG(t, 1)
	_, err := c.SubmitImage(context.Background(), bytes.NewReader(img), int64(len(img)), nil)
	require.Error(t, err, "the answer was cut off")
	n := 0
	for _, s := range fleet {
		n += s.Mock.JobCount()
	}
	assert.Equal(t, 1, n, "the submission was sent once, to one replica")
}

func mustFaults(t *testing.T, spec string) *mockserver.FaultSpec {
	t.Helper()
	f, err := mockserver.ParseFaults(spec)
	require.NoError(t, err)
	return f
}

// Killing one replica in the middle of a bulk run loses nothing and
// duplicates no output: the run finishes on the others and the results
// name the replica that was lost, and each job left on it, not removed
// (the wait for the replica to answer again runs out on a fake clock).
func TestReplicasBulkSurvivesAKilledReplica(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) { replicasBulkSurvivesAKilledReplica(t, replicatest.NewNet(t)) })
}

// replicasBulkSurvivesAKilledReplica is TestReplicasBulkSurvivesAKilledReplica in a synctest bubble, on nw.
func replicasBulkSurvivesAKilledReplica(t *testing.T, nw *replicatest.Net) {
	// 30 images: the kill comes after the 10th, with 6 in flight and
	// 20 still to do on the two left (the count is not the subject).
	const n = 30
	// The delay keeps jobs in flight on every replica when one dies.
	fleet, servers := netFleet(t, nw, 3, bgmock.Options{
		ProcessingDelay: 50 * time.Millisecond, MemoryBudget: oneAtATime,
	})
	c := fleetClient(t, fleet, pfc.WithHTTPClient(nw.Client()))
	clk := poll.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	bgcontainer.SetRetryClock(c, clk)
	in, out := t.TempDir(), t.TempDir()
	writeBulkImages(t, in, n)
	var (
		once   sync.Once
		done   atomic.Int32
		mu     sync.Mutex
		lost   = map[string]bool{}
		byRepl = map[string]int{}
		left   []*bgcontainer.Result
	)
	rep, err := poll.Drive(clk, func() (*pfc.BulkReport[*bgcontainer.Result], error) {
		return c.RemoveDir(context.Background(), in, out, nil, &pfc.BulkOptions[*bgcontainer.Result]{
			Concurrency: 6,
			OnResult: func(r pfc.BulkResult[*bgcontainer.Result]) {
				if done.Add(1) == n/3 {
					once.Do(servers[2].Kill)
				}
				if res := r.Result; res != nil {
					mu.Lock()
					byRepl[res.Replica]++
					for _, l := range res.LostReplicas {
						lost[l] = true
					}
					left = append(left, res.Abandoned...)
					mu.Unlock()
				}
			},
		})
	})
	require.NoError(t, err)
	require.Empty(t, rep.Failures)
	assert.Equal(t, n, rep.Done)
	var outputs int
	require.NoError(t, filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Ext(p) != ".jsonl" {
			require.Equal(t, ".png", filepath.Ext(p), "a stray file %s", p)
			outputs++
		}
		return err
	}))
	assert.Equal(t, n, outputs)
	for _, s := range fleet {
		assert.Positive(t, byRepl[s.URL], "replica %s took no work", s.URL)
	}
	assert.Equal(t, map[string]bool{fleet[2].URL: true}, lost, "the results name the replica lost")
	// Every job reported left is on the dead replica; a submission whose
	// answer the kill cut off left one that no one knows of.
	for _, a := range left {
		assert.Equal(t, fleet[2].URL, a.Replica)
		assert.Nil(t, a.Removed)
		assert.ErrorIs(t, a.RemoveErr, context.DeadlineExceeded)
	}
	assert.LessOrEqual(t, len(left), fleet[2].Mock.JobCount())
}

// staticResolver resolves every name to its addresses.
type staticResolver []string

func (r staticResolver) LookupHost(context.Context, string) ([]string, error) { return r, nil }

// One host name resolving to several addresses gives one replica each.
func TestReplicaHost(t *testing.T) {
	t.Parallel()
	fleet := bgmock.StartFleet(t, 2, &bgmock.Options{Activated: true})
	// Both replicas listen on 127.0.0.1 with different ports; a host
	// name gives one port, so serve the second on another loopback
	// address: only the first is reachable through the name's port.
	u, err := url.Parse(fleet[0].URL)
	require.NoError(t, err)
	_, port, _ := net.SplitHostPort(u.Host)
	c, err := bgcontainer.NewClient(fleet[0].LicenseKey,
		pfc.WithReplicaHost("http://bg.test:"+port), bgcontainer.WithResolver(staticResolver{"127.0.0.1"}))
	require.NoError(t, err)
	defer c.CloseIdleConnections()
	st, err := c.Status(context.Background())
	require.NoError(t, err)
	assert.True(t, st.IsLicensed())
	_, err = bgcontainer.NewClient("k", pfc.WithReplicaHost("http://bg.test:1"), bgcontainer.WithResolver(staticResolver{}))
	require.Error(t, err)
	_, err = bgcontainer.NewClient("k", pfc.WithReplicas("http://a:1", "http://a:1"))
	var ve *pfc.ValidationError
	require.True(t, errors.As(err, &ve), "%v", err)
}

// A replica that refuses a submission as not activated and dies before
// the licence key reaches it is lost like one that died at any other
// step: the image is done on another replica (the activation failed with
// "connection refused" and ended the flow).
func TestReplicasActivationOnADeadReplicaMovesOn(t *testing.T) {
	t.Parallel()
	var submits atomic.Int32
	var dying *httptest.Server
	dying = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/SubmitImage" {
			submits.Add(1)
		}
		_ = dying.Listener.Close() // every later connection is refused
		w.Header().Set("Connection", "close")
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusForbidden)
		_, _ = w.Write([]byte(`{"status":403,"code":"not_activated","message":"not activated"}`))
	}))
	t.Cleanup(dying.Close)
	live := bgmock.Start(t, nil)
	c, err := bgcontainer.NewClient(live.LicenseKey,
		pfc.WithReplicas(dying.URL, live.URL),
		pfc.WithReplicaWeight(dying.URL, 100), // picked first
		bgcontainer.WithPolling(pfc.WaitOptions{MinDelay: 5 * time.Millisecond, MaxDelay: 20 * time.Millisecond}),
		pfc.WithRetries(2, time.Millisecond, 5*time.Millisecond))
	require.NoError(t, err)
	t.Cleanup(c.CloseIdleConnections)
	img := bulkJPEG(t, 1)
	var out bytes.Buffer
	res, err := c.RemoveBackground(context.Background(), bytes.NewReader(img), int64(len(img)), nil, &out, nil)
	require.NoError(t, err)
	assert.Equal(t, int32(1), submits.Load(), "the dying replica was tried first")
	assert.Equal(t, live.URL, res.Replica)
	assert.Contains(t, res.LostReplicas, dying.URL)
	assert.NotZero(t, out.Len())
}

// sickReplica starts a replica that answers every request 503 or, with
// hang, accepts it and never answers (until the test ends): on nw, or on
// loopback when nw is nil (a 503 only: a hung replica's test runs in a
// bubble, see netFleet).
func sickReplica(t *testing.T, nw *replicatest.Net, hang bool) string {
	t.Helper()
	const body = `{"status":503,"message":"overloaded"}`
	switch {
	case nw == nil:
		return replicatest.Sick(t, http.StatusServiceUnavailable, body)
	case hang:
		u, _ := nw.Hung(t)
		return u
	}
	return nw.Sick(t, http.StatusServiceUnavailable, body)
}

// sickFleetClient returns a client of a sick replica (first) and the
// replicas of fleet, whose calls are not retried and wait at most 2 s for
// an answer (on a bubble's clock where the test runs in one), with opts.
func sickFleetClient(t *testing.T, sick string, fleet []*bgmock.TestServer, opts ...bgcontainer.Option) *bgcontainer.Client {
	t.Helper()
	urls := []string{sick}
	for _, s := range fleet {
		urls = append(urls, s.URL)
	}
	return fleetClient(t, fleet, append([]bgcontainer.Option{pfc.WithReplicas(urls...), pfc.WithRetries(-1, 0, 0),
		pfc.WithResponseHeaderTimeout(2 * time.Second)}, opts...)...)
}

// A replica that accepts connections and never answers: the flow whose
// submission it swallowed does the image again on another replica (it
// failed with the timeout), never sends that submission to it again, and
// the replica is set aside, so the other flows do not wait on it.
func TestReplicasHungReplicaRemoveBackground(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) { replicasHungReplicaRemoveBackground(t, replicatest.NewNet(t)) })
}

// replicasHungReplicaRemoveBackground is TestReplicasHungReplicaRemoveBackground in a synctest bubble, on nw.
func replicasHungReplicaRemoveBackground(t *testing.T, nw *replicatest.Net) {
	var submits atomic.Int32
	release := make(chan struct{})
	hung := nw.Serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/SubmitImage" {
			submits.Add(1)
		}
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(func() { close(release) }) // runs before the server's Kill
	fleet, _ := netFleet(t, nw, 2, bgmock.Options{Activated: true})
	c := sickFleetClient(t, hung.URL, fleet, pfc.WithHTTPClient(nw.Client()))
	failed := 0
	for i := range 6 {
		img := bulkJPEG(t, i)
		var out bytes.Buffer
		res, err := c.RemoveBackground(context.Background(), bytes.NewReader(img), int64(len(img)), nil, &out, nil)
		if err != nil {
			failed++
			t.Log(err)
			continue
		}
		assert.NotEqual(t, hung.URL, res.Replica)
		assert.NotZero(t, out.Len())
	}
	assert.Zero(t, failed, "%d of 6 images failed", failed)
	assert.Equal(t, int32(1), submits.Load(), "the hung replica got one submission, once")
}

// A job no binding is known for is found on the replica that holds it
// behind a replica answering 503 or not answering at all: the sick
// replica's answer is skipped, not taken as the lookup's (6 of 6 calls
// failed with the 503, 3 of 3 with the timeout).
func TestReplicasLookupSkipsASickReplica(t *testing.T) {
	t.Parallel()
	for name, calls := range map[string]int{"503": 6, "hang": 3} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				ctx := context.Background()
				nw := replicatest.NewNet(t)
				fleet, _ := netFleet(t, nw, 2, bgmock.Options{Activated: true})
				img := bulkJPEG(t, 1)
				job, err := fleet[1].Client.SubmitImage(ctx, bytes.NewReader(img), int64(len(img)), nil)
				require.NoError(t, err)
				c := sickFleetClient(t, sickReplica(t, nw, name == "hang"), fleet, pfc.WithHTTPClient(nw.Client())) // knows no job
				failed := 0
				for range calls {
					chk, err := c.CheckImage(ctx, job.ProcessID)
					if err != nil {
						failed++
						t.Log(err)
						continue
					}
					assert.Equal(t, job.ProcessID, chk.ProcessID)
				}
				assert.Zero(t, failed, "%d of %d CheckImage calls failed", failed, calls)
			})
		})
	}
}

// A fleet's Status answers from a replica that works, not with a sick
// replica's 503 (it returned the 503 whenever that replica was the least
// busy).
func TestReplicasStatusSkipsASickReplica(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	fleet := bgmock.StartFleet(t, 2, &bgmock.Options{Activated: true})
	c := sickFleetClient(t, sickReplica(t, nil, false), fleet)
	failed := 0
	for range 6 {
		st, err := c.Status(ctx)
		if err != nil {
			failed++
			t.Log(err)
			continue
		}
		assert.True(t, st.IsLicensed())
	}
	assert.Zero(t, failed, "%d of 6 Status calls failed", failed)
}
