package main

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/mockserver/bgmock"
	"github.com/pfcsdk/pfc-go/mockserver/pfcmock"
)

// -api bg -url URL1,URL2,URL3: a replica killed while it holds a job is
// named in the summary, and its photo is done on the others (waiting
// -cleanup-timeout, not 10 s, for it to answer again). The third replica
// dies at its first CheckImage: it then holds a job whose submission's
// answer the run has, and, the photos being done one at a time, nothing
// else of the run is on its way to it. (With six at once, the kill, once
// the replica held a job, sometimes cut a SubmitImage on its way, whose
// photo then failed as documented: it may have started a job.)
func TestRunBGReplicasSurviveAKill(t *testing.T) {
	t.Parallel()
	fleet := bgmock.StartFleet(t, 2, nil)
	mock, err := bgmock.New(bgmock.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = mock.Close() })
	var dying atomic.Pointer[httptest.Server]
	var once sync.Once
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/CheckImage/") {
			once.Do(func() {
				s := dying.Load()
				_ = s.Listener.Close()
				s.CloseClientConnections()
			})
			return
		}
		mock.ServeHTTP(w, r)
	}))
	dying.Store(srv)
	t.Cleanup(srv.Close) // before the mock's Close
	urls := []string{fleet[0].URL, fleet[1].URL, srv.URL}
	in, out := t.TempDir(), filepath.Join(t.TempDir(), "out")
	writeTinyImages(t, in, 12) // tiny: the subject is the kill, not the image work
	var stdout, stderr bytes.Buffer
	code, err := run(context.Background(), []string{"-api", "bg", "-url", strings.Join(urls, ","),
		"-license-key", fleet[0].LicenseKey, "-in", in, "-out", out, "-concurrency", "1", "-cleanup-timeout", "1s"}, &stdout, &stderr)
	require.NoError(t, err)
	assert.Equal(t, 0, code, stdout.String())
	assert.Contains(t, stdout.String(), "12 processed, 0 already done, 0 failed")
	assert.Contains(t, stdout.String(), "replica down: "+srv.URL)
}

// -api container -url with a replica that is down from the start: every
// photo is done on the others.
func TestRunContainerReplicas(t *testing.T) {
	t.Parallel()
	fleet := pfcmock.StartFleet(t, 2, nil)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	dead := "http://" + ln.Addr().String()
	require.NoError(t, ln.Close())
	in, out := t.TempDir(), filepath.Join(t.TempDir(), "out")
	require.NoError(t, writeSamples(in, 6))
	var stdout, stderr bytes.Buffer
	code, err := run(context.Background(), []string{"-api", "container", "-url", fleet[0].URL + "," + dead + "," + fleet[1].URL,
		"-in", in, "-out", out}, &stdout, &stderr)
	require.NoError(t, err)
	assert.Equal(t, 0, code, stdout.String())
	assert.Contains(t, stdout.String(), "6 processed, 0 already done, 0 failed")
}
