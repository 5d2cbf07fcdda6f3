package main

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/png"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/bgcontainer"
	"github.com/pfcsdk/pfc-go/pfc"
)

// TestRunFleet: -bg-replicas 3 and -container-replicas 2 print one line
// per replica in order; the replicas are independent (activating one
// leaves the others unlicensed; a job exists only on its replica) and tag
// their JSON log lines with "replica".
func TestRunFleet(t *testing.T) {
	const key = "fleet-key-1a2b3c4d"
	cmd := startCommand(t, 5, "-hosted-addr", "", "-container-addr", "127.0.0.1:0", "-bg-addr", "127.0.0.1:0",
		"-bg-replicas", "3", "-container-replicas", "2", "-license-key", key, "-data-dir", t.TempDir())
	ctx, cancel, done, stderr, urls := t.Context(), cmd.cancel, cmd.done, cmd.stderr, cmd.urls
	require.Equal(t, []string{"container", "container", "bg", "bg", "bg"}, cmd.names)
	seen := map[string]bool{}
	for _, u := range urls {
		require.False(t, seen[u], "two replicas on %s", u)
		seen[u] = true
	}
	bg := urls[2:]

	hc := &http.Client{}
	defer hc.CloseIdleConnections()
	for _, u := range urls[:2] {
		resp, err := hc.Get(u + "/version")
		require.NoError(t, err)
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		assert.Equal(t, http.StatusOK, resp.StatusCode)
	}

	c0, err := bgcontainer.NewClient(key, pfc.WithBaseURL(bg[0]))
	require.NoError(t, err)
	defer c0.CloseIdleConnections()
	st, err := c0.Authorize(ctx)
	require.NoError(t, err)
	require.True(t, st.IsLicensed())
	var img bytes.Buffer
	require.NoError(t, png.Encode(&img, image.NewNRGBA(image.Rect(0, 0, 8, 8))))
	job, err := c0.SubmitImage(ctx, bytes.NewReader(img.Bytes()), int64(img.Len()), nil)
	require.NoError(t, err)
	for _, u := range bg[1:] {
		c, err := bgcontainer.NewClient(key, pfc.WithBaseURL(u))
		require.NoError(t, err)
		st, err := c.Status(ctx)
		require.NoError(t, err)
		assert.False(t, st.IsLicensed(), "activating replica 0 activated %s", u)
		_, err = c.Authorize(ctx)
		require.NoError(t, err)
		_, err = c.CheckImage(ctx, job.ProcessID)
		assert.ErrorIs(t, err, bgcontainer.ErrJobNotFound, "replica 0's job found on %s", u)
		c.CloseIdleConnections()
	}

	cancel()
	assert.Equal(t, 0, <-done)
	replicas := map[string]map[float64]bool{}
	for _, line := range strings.Split(stderr.String(), "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) != nil {
			continue
		}
		r, ok := m["replica"].(float64)
		if !ok {
			continue
		}
		b, _ := m["backend"].(string)
		if b == "" {
			b = "container" // the container's own log lines
		}
		if replicas[b] == nil {
			replicas[b] = map[float64]bool{}
		}
		replicas[b][r] = true
	}
	assert.Equal(t, map[float64]bool{0: true, 1: true, 2: true}, replicas["bg"])
	assert.Equal(t, map[float64]bool{0: true, 1: true}, replicas["container"])
	assert.NotContains(t, stderr.String(), key)
}

func TestReplicaAddr(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		addr string
		r    int
		want string
		bad  bool
	}{
		{"127.0.0.1:8000", 0, "127.0.0.1:8000", false},
		{"127.0.0.1:8000", 2, "127.0.0.1:8002", false},
		{":0", 3, ":0", false},
		{"[::1]:9000", 1, "[::1]:9001", false},
		{"127.0.0.1:http", 1, "", true},
		{"127.0.0.1:65535", 1, "", true},
	} {
		got, err := replicaAddr(c.addr, c.r)
		if c.bad {
			assert.Error(t, err, c.addr)
			continue
		}
		require.NoError(t, err)
		assert.Equal(t, c.want, got)
	}
	var stdout, stderr bytes.Buffer
	assert.Equal(t, 2, run(context.Background(), []string{"-hosted-addr", "", "-bg-replicas", "0"}, &stdout, &stderr))
}
