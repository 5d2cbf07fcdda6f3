package main

import (
	"bytes"
	"context"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/mockserver/bgmock"
	"github.com/pfcsdk/pfc-go/mockserver/pfcmock"
)

// -api bg -url URL1,URL2,URL3: a replica killed while it holds jobs is
// named in the summary, and its photos are done on the others (each
// waiting -cleanup-timeout, not 10 s, for it to answer again).
func TestRunBGReplicasSurviveAKill(t *testing.T) {
	t.Parallel()
	fleet := bgmock.StartFleet(t, 3, &bgmock.Options{ProcessingDelay: 200 * time.Millisecond})
	var urls []string
	for _, s := range fleet {
		urls = append(urls, s.URL)
	}
	in, out := t.TempDir(), filepath.Join(t.TempDir(), "out")
	writeTinyImages(t, in, 12) // tiny: the subject is the kill, not the image work
	stop := make(chan struct{})
	defer close(stop)
	go func() { // kill replica 2 once it holds a job
		for fleet[2].Mock.JobCount() == 0 {
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
			}
		}
		_ = fleet[2].Server.Listener.Close()
		fleet[2].Server.CloseClientConnections()
	}()
	var stdout, stderr bytes.Buffer
	code, err := run(context.Background(), []string{"-api", "bg", "-url", strings.Join(urls, ","),
		"-license-key", fleet[0].LicenseKey, "-in", in, "-out", out, "-concurrency", "6", "-cleanup-timeout", "1s"}, &stdout, &stderr)
	require.NoError(t, err)
	assert.Equal(t, 0, code, stdout.String())
	assert.Contains(t, stdout.String(), "12 processed, 0 already done, 0 failed")
	assert.Contains(t, stdout.String(), "replica down: "+fleet[2].URL)
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
