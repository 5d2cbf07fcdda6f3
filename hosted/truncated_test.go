package hosted

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/internal/cuttest"
	"github.com/pfcsdk/pfc-go/pfc"
)

// startCuttingService serves the API under /v2, its answers cut off as
// cuts says (routes "upload", "pfc", "status", "file"; see cuttest), and
// returns a client with millisecond retry and poll waits.
func startCuttingService(t *testing.T, cuts map[string]int) (*Client, *cuttest.Cutter, string) {
	t.Helper()
	s := cuttest.New(cuts)
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	jsonOf := func(v any) []byte {
		b, err := json.Marshal(v)
		require.NoError(t, err)
		return b
	}
	var polls atomic.Int32
	mux.HandleFunc("GET /v2/upload", func(w http.ResponseWriter, r *http.Request) {
		s.Write(w, "upload", "", jsonOf(UploadTicket{FileKey: "fk1", UploadURL: srv.URL + "/store/fk1?sig=abc"}))
	})
	mux.HandleFunc("PUT /store/{key}", func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
	})
	mux.HandleFunc("GET /v2/pfc", func(w http.ResponseWriter, r *http.Request) {
		s.Write(w, "pfc", "", jsonOf(map[string]string{"statusEndpoint": srv.URL + "/v2/status/j1"}))
	})
	mux.HandleFunc("GET /v2/status/j1", func(w http.ResponseWriter, r *http.Request) {
		st := StatusProcessing
		if polls.Add(1) >= 3 {
			st = StatusCompleted
		}
		s.Write(w, "status", "", jsonOf(jobJSON("j1", st, map[string]any{"correctedFile": srv.URL + "/files/j1"})))
	})
	mux.HandleFunc("GET /files/j1", func(w http.ResponseWriter, r *http.Request) {
		s.Write(w, "file", "", bytes.Repeat([]byte("x"), 1000))
	})
	c, err := NewClient(testKey, pfc.WithBaseURL(srv.URL+"/v2"), pfc.WithRetries(2, time.Millisecond, time.Millisecond),
		WithPolling(pfc.WaitOptions{MinDelay: time.Millisecond, MaxDelay: time.Millisecond}))
	require.NoError(t, err)
	return c, s, srv.URL
}

// TestWaitSurvivesTruncatedPoll: one /status answer cut off mid-body is
// retried by the transport; the wait completes.
func TestWaitSurvivesTruncatedPoll(t *testing.T) {
	t.Parallel()
	c, s, _ := startCuttingService(t, map[string]int{"status": 1})
	job, err := c.Wait(context.Background(), "j1", nil)
	require.NoError(t, err)
	assert.Equal(t, StatusCompleted, job.Status)
	// The first answer is cut and resent by the transport within the same
	// poll; the third request's answer says COMPLETED.
	assert.Equal(t, 3, s.Count("status"))
}

// TestCorrectFileSurvivesTruncatedJSON: cut /upload, /pfc and /status
// answers are retried within the budget; the corrected file is written.
// A cut /pfc answer is retried too: its job exists and a second one
// starts (see the transport's retry policy: cache=true makes it harmless).
func TestCorrectFileSurvivesTruncatedJSON(t *testing.T) {
	t.Parallel()
	c, s, _ := startCuttingService(t, map[string]int{"upload": 2, "pfc": 1, "status": 1})
	_, in, out := cuttest.Input(t, []byte("\xff\xd8\xff\xe0 jpeg"))
	_, err := c.CorrectFile(context.Background(), in, out, nil, nil)
	require.NoError(t, err)
	b, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.Len(t, b, 1000)
	assert.Equal(t, 3, s.Count("upload"))
	assert.Equal(t, 2, s.Count("pfc"))
}

// TestDownloadCutOff: a download is never retried: a body cut off before
// its Content-Length fails with pfc.ErrTruncatedResponse (io.ErrUnexpectedEOF
// in the chain) after the bytes that arrived, and CorrectFile leaves no
// file behind.
func TestDownloadCutOff(t *testing.T) {
	t.Parallel()
	c, s, base := startCuttingService(t, map[string]int{"file": 10})
	var buf bytes.Buffer
	n, err := c.Download(context.Background(), &Job{ID: "j1", Status: StatusCompleted, CorrectedFile: base + "/files/j1"}, &buf)
	require.Error(t, err)
	assert.ErrorIs(t, err, pfc.ErrTruncatedResponse)
	assert.ErrorIs(t, err, io.ErrUnexpectedEOF)
	assert.Contains(t, err.Error(), "500 of 1000 bytes")
	assert.Equal(t, int64(500), n)
	assert.Equal(t, 1, s.Count("file"), "a download is not retried")

	dir, in, out := cuttest.Input(t, []byte("\xff\xd8\xff\xe0 jpeg"))
	_, err = c.CorrectFile(context.Background(), in, out, nil, nil)
	require.ErrorIs(t, err, pfc.ErrTruncatedResponse)
	assert.NotContains(t, err.Error(), testKey)
	cuttest.OnlyInput(t, dir)
}

// TestDownloadReset: a file whose connection is reset before its
// Content-Length also fails with pfc.ErrTruncatedResponse (it matched only
// syscall.ECONNRESET).
func TestDownloadReset(t *testing.T) {
	t.Parallel()
	c, s, base := startCuttingService(t, map[string]int{"file": 10})
	s.SetReset()
	var buf bytes.Buffer
	_, err := c.Download(context.Background(), &Job{ID: "j1", Status: StatusCompleted, CorrectedFile: base + "/files/j1"}, &buf)
	require.ErrorIs(t, err, pfc.ErrTruncatedResponse)
	assert.ErrorIs(t, err, syscall.ECONNRESET)
	assert.Equal(t, 1, s.Count("file"), "a download is not retried")
}
