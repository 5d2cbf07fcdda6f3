package bgcontainer_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/bgcontainer"
	"github.com/pfcsdk/pfc-go/internal/poll"
	"github.com/pfcsdk/pfc-go/internal/replicatest"
	"github.com/pfcsdk/pfc-go/mockserver/bgmock"
	"github.com/pfcsdk/pfc-go/pfc"
)

// gate is the network between a client and its replicas, switched by the
// test: a host it holds down refuses every connection, as a replica that
// dropped off the network does (the mock behind it keeps its jobs). The
// test's script sees every exchange, refused (Status 0) or answered, and
// switches hosts down and up from it: no timing is involved.
type gate struct {
	base   http.RoundTripper
	script func(g *gate, ev gateEvent)

	mu        sync.Mutex
	down      map[string]bool
	held      map[string]chan struct{} // host: closed when hold ends
	submitted map[string][]string      // host: the process ids it accepted
	dropped   bool                     // dropAfterAccepting dropped a replica
}

type gateEvent struct {
	Host, Method, Path string
	Status             int            // 0: refused
	Resp               *http.Response // the answer; the script may replace its Body
}

func newGate(t *testing.T, script func(g *gate, ev gateEvent)) *gate {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	t.Cleanup(tr.CloseIdleConnections)
	return &gate{base: tr, script: script, down: map[string]bool{}, held: map[string]chan struct{}{}, submitted: map[string][]string{}}
}

// over makes g the network of a test run in a bubble: its requests go
// through nw's transport (see netFleet).
func (g *gate) over(nw *replicatest.Net) *gate {
	g.base = nw.Transport()
	return g
}

// hold makes the replica at baseURL hang: each request waits, unanswered,
// until release (then it goes through) or until the client gives up on it.
func (g *gate) hold(baseURL string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.held[hostOf(baseURL)] == nil {
		g.held[hostOf(baseURL)] = make(chan struct{})
	}
}

func (g *gate) release(baseURL string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if ch := g.held[hostOf(baseURL)]; ch != nil {
		close(ch)
		delete(g.held, hostOf(baseURL))
	}
}

func (g *gate) set(baseURL string, down bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.down[hostOf(baseURL)] = down
}

// accepted returns the process ids the replica at baseURL accepted.
func (g *gate) accepted(baseURL string) []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]string(nil), g.submitted[hostOf(baseURL)]...)
}

func hostOf(baseURL string) string {
	u, err := http.NewRequest(http.MethodGet, baseURL, nil)
	if err != nil {
		panic(err)
	}
	return u.URL.Host
}

func (g *gate) RoundTrip(req *http.Request) (*http.Response, error) {
	ev := gateEvent{Host: req.URL.Host, Method: req.Method, Path: req.URL.Path}
	g.mu.Lock()
	down, held := g.down[ev.Host], g.held[ev.Host]
	g.mu.Unlock()
	if held != nil {
		select {
		case <-held:
		case <-req.Context().Done(): // the response header timeout
			if req.Body != nil {
				_ = req.Body.Close()
			}
			return nil, req.Context().Err()
		}
	}
	if down {
		if req.Body != nil {
			_ = req.Body.Close()
		}
		g.script(g, ev)
		return nil, &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	}
	resp, err := g.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	ev.Status, ev.Resp = resp.StatusCode, resp
	if ev.Method == http.MethodPost && ev.Path == "/SubmitImage" && resp.StatusCode == http.StatusOK {
		body, err := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if err != nil {
			return nil, err
		}
		resp.Body = io.NopCloser(bytes.NewReader(body))
		var job struct {
			ProcessID string `json:"process_id"`
		}
		_ = json.Unmarshal(body, &job)
		g.mu.Lock()
		g.submitted[ev.Host] = append(g.submitted[ev.Host], job.ProcessID)
		g.mu.Unlock()
	}
	g.script(g, ev)
	return resp, nil
}

// blipFleet starts two activated replicas and a client of both through g;
// the first replica is picked first.
func blipFleet(t *testing.T, g *gate) ([]*bgmock.TestServer, *bgcontainer.Client) {
	t.Helper()
	fleet := bgmock.StartFleet(t, 2, &bgmock.Options{Activated: true})
	c := fleetClient(t, fleet, pfc.WithHTTPClient(&http.Client{Transport: g}), pfc.WithReplicaWeight(fleet[0].URL, 100))
	return fleet, c
}

// dropAfterAccepting is the script of a replica that drops off the
// network as soon as it accepted a job (the first submission's answer is
// delivered, every later call is refused).
func dropAfterAccepting(g *gate, ev gateEvent) bool {
	if ev.Method != http.MethodPost || ev.Path != "/SubmitImage" || ev.Status != http.StatusOK {
		return false
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.dropped {
		return false
	}
	g.dropped, g.down[ev.Host] = true, true
	return true
}

func jobs(fleet []*bgmock.TestServer) []int {
	var n []int
	for _, s := range fleet {
		n = append(n, s.Mock.JobCount())
	}
	return n
}

// assertAbandonedRemoved checks that res names one abandoned job, the one
// the first replica accepted, and that it was removed: no job stayed on a
// replica.
func assertAbandonedRemoved(t *testing.T, g *gate, fleet []*bgmock.TestServer, res *bgcontainer.Result) {
	t.Helper()
	require.Len(t, res.Abandoned, 1, "the result names the abandoned job")
	a := res.Abandoned[0]
	assert.Equal(t, g.accepted(fleet[0].URL), []string{a.Job.ProcessID})
	require.NoError(t, a.RemoveErr)
	assert.NotNil(t, a.Removed)
	assert.Equal(t, []int{0, 0}, jobs(fleet), "a job stayed on a replica")
}

// A replica that drops for a moment just after accepting a job: the image
// is done again on the other one, and the first job is not forgotten. It
// is removed once its replica answers again (here at the flow's third
// attempt to remove it), and the Result names it (it stayed on the
// replica, and no one was told).
func TestReplicaBlipAbandonedJobRemoved(t *testing.T) {
	t.Parallel()
	var fleet []*bgmock.TestServer
	refusedRemovals := 0
	g := newGate(t, func(g *gate, ev gateEvent) {
		dropAfterAccepting(g, ev)
		if ev.Status == 0 && ev.Method == http.MethodDelete {
			if refusedRemovals++; refusedRemovals == 2 {
				g.set(fleet[0].URL, false) // back on the network
			}
		}
	})
	fleet, c := blipFleet(t, g)
	img := bulkJPEG(t, 1)
	var out bytes.Buffer
	res, err := c.RemoveBackground(context.Background(), bytes.NewReader(img), int64(len(img)), nil, &out, nil)
	require.NoError(t, err)
	assert.Equal(t, []int{0, 0}, jobs(fleet), "a job stayed on a replica")
	require.Len(t, g.accepted(fleet[0].URL), 1, "the first replica accepted the job")
	abandonedID := g.accepted(fleet[0].URL)[0]
	assert.Equal(t, fleet[1].URL, res.Replica)
	assert.Equal(t, []string{fleet[0].URL}, res.LostReplicas)
	require.Len(t, res.Abandoned, 1, "the result names the abandoned job")
	a := res.Abandoned[0]
	assert.Equal(t, abandonedID, a.Job.ProcessID)
	assert.Equal(t, fleet[0].URL, a.Replica)
	require.NoError(t, a.RemoveErr)
	require.NotNil(t, a.Removed)
	assert.Equal(t, abandonedID, a.Removed.ProcessID)
	assert.NotNil(t, res.Removed, "the job of the result is removed too")
	assert.NotZero(t, out.Len())
}

// The abandoned job is also removed when the flow then fails on the other
// replica (its CheckImage answers 500), or is cancelled there.
func TestReplicaBlipAbandonedJobRemovedAfterFailure(t *testing.T) {
	t.Parallel()
	for _, cancelled := range []bool{false, true} {
		t.Run(map[bool]string{false: "failed", true: "cancelled"}[cancelled], func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var fleet []*bgmock.TestServer
			g := newGate(t, func(g *gate, ev gateEvent) {
				if dropAfterAccepting(g, ev) || ev.Host != hostOf(fleet[1].URL) || ev.Method != http.MethodGet || !strings.HasPrefix(ev.Path, "/CheckImage/") {
					return
				}
				g.set(fleet[0].URL, false) // back, while the flow goes wrong
				if cancelled {
					cancel()
				}
			})
			fleet = []*bgmock.TestServer{
				bgmock.Start(t, &bgmock.Options{Activated: true}),
				bgmock.Start(t, &bgmock.Options{
					Activated: true, Faults: mustFaults(t, "bg:rate=1,kinds=500,routes=check"),
				}),
			}
			c := fleetClient(t, fleet, pfc.WithHTTPClient(&http.Client{Transport: g}), pfc.WithReplicaWeight(fleet[0].URL, 100))
			img := bulkJPEG(t, 2)
			res, err := c.RemoveBackground(ctx, bytes.NewReader(img), int64(len(img)), nil, io.Discard, nil)
			require.Error(t, err)
			if cancelled {
				assert.ErrorIs(t, err, context.Canceled)
			} else {
				assert.ErrorIs(t, err, pfc.ErrServer)
			}
			require.NotNil(t, res)
			assertAbandonedRemoved(t, g, fleet, res)
		})
	}
}

// A replica that never comes back within the bound: the flow still
// returns the image, and the Result reports the job not removed, with a
// typed reason. The bound runs out on a fake clock.
func TestReplicaGoneAbandonedJobReported(t *testing.T) {
	t.Parallel()
	g := newGate(t, func(g *gate, ev gateEvent) { dropAfterAccepting(g, ev) })
	fleet, c := blipFleet(t, g)
	clk := poll.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	bgcontainer.SetRetryClock(c, clk)
	img := bulkJPEG(t, 3)
	dst := filepath.Join(t.TempDir(), "out.png")
	src := filepath.Join(t.TempDir(), "in.jpg")
	require.NoError(t, os.WriteFile(src, img, 0o600))
	res, err := poll.Drive(clk, func() (*bgcontainer.Result, error) {
		return c.RemoveBackgroundFile(context.Background(), src, dst, nil, &pfc.FlowOptions{CleanupTimeout: time.Minute})
	})
	require.NoError(t, err, "the image was done on the other replica")
	assert.FileExists(t, dst)
	require.Len(t, res.Abandoned, 1)
	a := res.Abandoned[0]
	assert.Equal(t, g.accepted(fleet[0].URL), []string{a.Job.ProcessID})
	assert.Nil(t, a.Removed)
	require.Error(t, a.RemoveErr)
	assert.ErrorIs(t, a.RemoveErr, context.DeadlineExceeded, "%v", a.RemoveErr)
	assert.Contains(t, a.RemoveErr.Error(), a.Job.ProcessID)
	assert.Equal(t, []int{1, 0}, jobs(fleet), "the abandoned job is reported, not removed")
}

// The wait for a replica to come back ends with the caller's context: a
// call cancelled once the image is done tries the abandoned job once more,
// and reports it not removed with the context's error.
func TestReplicaGoneWaitEndsWithTheContext(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var fleet []*bgmock.TestServer
	g := newGate(t, func(g *gate, ev gateEvent) {
		dropAfterAccepting(g, ev)
		if ev.Host == hostOf(fleet[1].URL) && ev.Method == http.MethodDelete {
			cancel() // the image is done and its job removed
		}
	})
	fleet, c := blipFleet(t, g)
	img := bulkJPEG(t, 5)
	var out bytes.Buffer
	res, err := c.RemoveBackground(ctx, bytes.NewReader(img), int64(len(img)), nil, &out, nil)
	require.NoError(t, err)
	assert.NotZero(t, out.Len())
	require.Len(t, res.Abandoned, 1)
	a := res.Abandoned[0]
	assert.Nil(t, a.Removed)
	assert.ErrorIs(t, a.RemoveErr, context.Canceled)
	assert.Equal(t, []int{1, 0}, jobs(fleet))
}

// A replica that hangs just after accepting a job (its CheckImage gets no
// answer within the response header timeout) is lost like one that drops:
// the image is done again on the other replica and the first job is
// abandoned, then removed once the replica answers again (the flow
// returned the timeout, and the job stayed).
func TestReplicaHungAbandonedJobRemoved(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) { replicaHungAbandonedJobRemoved(t, replicatest.NewNet(t)) })
}

// replicaHungAbandonedJobRemoved is TestReplicaHungAbandonedJobRemoved in a synctest bubble, on nw.
func replicaHungAbandonedJobRemoved(t *testing.T, nw *replicatest.Net) {
	var fleet []*bgmock.TestServer
	g := newGate(t, func(g *gate, ev gateEvent) {
		if ev.Method != http.MethodPost || ev.Path != "/SubmitImage" || ev.Status != http.StatusOK {
			return
		}
		if ev.Host == hostOf(fleet[0].URL) {
			g.hold(fleet[0].URL) // accepted, then silent
		} else {
			g.release(fleet[0].URL) // answers again while the image is redone
		}
	}).over(nw)
	fleet, _ = netFleet(t, nw, 2, bgmock.Options{Activated: true})
	// No retries: a retried call would wait out the timeout each time.
	c := fleetClient(t, fleet, pfc.WithHTTPClient(&http.Client{Transport: g}), pfc.WithReplicaWeight(fleet[0].URL, 100),
		pfc.WithRetries(-1, 0, 0), pfc.WithResponseHeaderTimeout(2*time.Second))
	img := bulkJPEG(t, 6)
	var out bytes.Buffer
	res, err := c.RemoveBackground(context.Background(), bytes.NewReader(img), int64(len(img)), nil, &out, nil)
	require.NoError(t, err)
	assert.NotZero(t, out.Len())
	require.Len(t, g.accepted(fleet[0].URL), 1, "the first replica accepted the job")
	assert.Equal(t, fleet[1].URL, res.Replica)
	assert.Equal(t, []string{fleet[0].URL}, res.LostReplicas)
	assertAbandonedRemoved(t, g, fleet, res)
}

// The removal of an abandoned job starts when the image is done again,
// alongside the redo, not once the redo is over (a replica gone for good
// then made each flow wait up to CleanupTimeout after its image was
// done): here the redo's replica answers only once the abandoned job's
// first removal attempt was made.
func TestReplicaAbandonedJobRemovalRunsAlongsideTheRedo(t *testing.T) {
	t.Parallel()
	var fleet []*bgmock.TestServer
	g := newGate(t, func(g *gate, ev gateEvent) {
		switch {
		case dropAfterAccepting(g, ev):
			g.hold(fleet[1].URL)
		case ev.Status == 0 && ev.Method == http.MethodDelete:
			g.release(fleet[1].URL)
			g.set(fleet[0].URL, false) // back for the next attempt
		}
	})
	fleet = bgmock.StartFleet(t, 2, &bgmock.Options{Activated: true})
	// The timeout only ends the test if the removal waits for the redo.
	c := fleetClient(t, fleet, pfc.WithHTTPClient(&http.Client{Transport: g}), pfc.WithReplicaWeight(fleet[0].URL, 100),
		pfc.WithResponseHeaderTimeout(2*time.Second))
	img := bulkJPEG(t, 7)
	var out bytes.Buffer
	res, err := c.RemoveBackground(context.Background(), bytes.NewReader(img), int64(len(img)), nil, &out, nil)
	require.NoError(t, err, "the redo waited for the removal that waited for the redo")
	assert.Equal(t, fleet[1].URL, res.Replica)
	assertAbandonedRemoved(t, g, fleet, res)
}

// A replica that drops in the middle of RemoveBackground's download: part
// of the PNG already reached the caller's writer, so the image is not
// done again elsewhere (it wrote a second PNG after the first one's
// start, and returned success); the error says the answer was cut off,
// and the job is removed once its replica answers again.
func TestReplicaDropMidDownloadNotRedoneIntoAWriter(t *testing.T) {
	t.Parallel()
	var fleet []*bgmock.TestServer
	g := newGate(t, func(g *gate, ev gateEvent) {
		switch {
		case ev.Host == hostOf(fleet[0].URL) && strings.HasPrefix(ev.Path, "/DownloadImage/") && ev.Status == http.StatusOK:
			// Half the PNG, then the connection dies with the replica.
			body := ev.Resp.Body
			half := ev.Resp.ContentLength / 2
			ev.Resp.Body = &cutBody{r: io.LimitReader(body, half), c: body}
			g.set(fleet[0].URL, true)
		case ev.Status == 0 && ev.Method == http.MethodDelete:
			g.set(fleet[0].URL, false) // back for the removal
		}
	})
	fleet, c := blipFleet(t, g)
	img := bulkJPEG(t, 4)
	var out bytes.Buffer
	res, err := c.RemoveBackground(context.Background(), bytes.NewReader(img), int64(len(img)), nil, &out, nil)
	require.Error(t, err)
	assert.ErrorIs(t, err, pfc.ErrTruncatedResponse)
	assert.Equal(t, 1, bytes.Count(out.Bytes(), []byte("\x89PNG\r\n\x1a\n")), "one PNG started in the writer")
	assert.Empty(t, g.accepted(fleet[1].URL), "the image was done again into the same writer")
	require.NotNil(t, res)
	assert.Equal(t, fleet[0].URL, res.Replica)
	assert.Equal(t, int64(out.Len()), res.Bytes)
	require.NoError(t, res.RemoveErr)
	assert.NotNil(t, res.Removed)
	assert.Equal(t, []int{0, 0}, jobs(fleet), "a job stayed on a replica")
}

// cutBody reads r, then fails as a connection that died.
type cutBody struct {
	r io.Reader
	c io.Closer
}

func (b *cutBody) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if err == io.EOF {
		err = io.ErrUnexpectedEOF // what net/http reports for a connection closed mid-body
	}
	return n, err
}

func (b *cutBody) Close() error { return b.c.Close() }

// A bulk run tells of a job it could not remove: the done file's manifest
// record lists it under "leftJobs" with its replica, so that it can be
// removed later.
func TestBulkManifestNamesJobsLeft(t *testing.T) {
	t.Parallel()
	g := newGate(t, func(g *gate, ev gateEvent) { dropAfterAccepting(g, ev) })
	fleet, c := blipFleet(t, g)
	clk := poll.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	bgcontainer.SetRetryClock(c, clk)
	in, out := t.TempDir(), t.TempDir()
	writeBulkImages(t, in, 1)
	manifest := filepath.Join(t.TempDir(), "run.jsonl")
	rep, err := poll.Drive(clk, func() (*pfc.BulkReport[*bgcontainer.Result], error) {
		return c.RemoveDir(context.Background(), in, out, nil, &pfc.BulkOptions[*bgcontainer.Result]{Manifest: manifest})
	})
	require.NoError(t, err)
	require.Equal(t, 1, rep.Done)
	b, err := os.ReadFile(manifest)
	require.NoError(t, err)
	var left []map[string]string
	for _, line := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		var rec struct {
			Result struct {
				Left []map[string]string `json:"leftJobs"`
			} `json:"result"`
		}
		require.NoError(t, json.Unmarshal(line, &rec), "%s", line)
		left = append(left, rec.Result.Left...)
	}
	require.Len(t, g.accepted(fleet[0].URL), 1)
	assert.Equal(t, []map[string]string{{"processId": g.accepted(fleet[0].URL)[0], "replica": fleet[0].URL}}, left)
}
