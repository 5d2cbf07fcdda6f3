package hosted

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/pfc"
)

// setup starts an httptest server whose mux serves the API under /v2 and
// fails the test on any request outside it (a base-path guard), and returns
// a client pointed at it with millisecond retries.
func setup(t *testing.T) (*Client, *http.ServeMux, *httptest.Server) {
	t.Helper()
	apiMux := http.NewServeMux()
	root := http.NewServeMux()
	root.Handle(basePath+"/", http.StripPrefix(basePath, apiMux))
	root.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("request outside the base path: %s %s", r.Method, r.URL)
		http.Error(w, "outside base path", http.StatusBadGateway)
	})
	srv := httptest.NewServer(root)
	t.Cleanup(srv.Close)
	c, err := NewClient(testKey,
		pfc.WithBaseURL(srv.URL+basePath),
		pfc.WithRetries(2, time.Millisecond, 2*time.Millisecond),
		WithPolling(pfc.WaitOptions{MinDelay: time.Millisecond, MaxDelay: 2 * time.Millisecond}),
	)
	require.NoError(t, err)
	return c, apiMux, srv
}

// fakeService is a tiny stateful stand-in of the hosted API on httptest,
// enough to drive Correct end to end over real HTTP.
func fakeService(t *testing.T, mux *http.ServeMux, srvURL string, finalStatus JobStatus) *atomic.Int32 {
	var polls atomic.Int32
	stored := map[string][]byte{}
	mux.HandleFunc("GET /upload", func(w http.ResponseWriter, r *http.Request) {
		assert.Equal(t, testKey, r.Header.Get("X-API-KEY"))
		json.NewEncoder(w).Encode(UploadTicket{FileKey: "fk1", UploadURL: srvURL + "/v2/store/fk1?sig=abc"})
	})
	mux.HandleFunc("PUT /store/{key}", func(w http.ResponseWriter, r *http.Request) {
		assert.Empty(t, r.Header.Get("X-API-KEY"))
		b, _ := io.ReadAll(r.Body)
		stored[r.PathValue("key")] = b
	})
	mux.HandleFunc("GET /pfc", func(w http.ResponseWriter, r *http.Request) {
		assert.Equal(t, "fk1", r.URL.Query().Get("fileKey"))
		json.NewEncoder(w).Encode(map[string]string{"statusEndpoint": srvURL + "/v2/status/j1"})
	})
	mux.HandleFunc("GET /status/j1", func(w http.ResponseWriter, r *http.Request) {
		assert.Equal(t, "true", r.URL.Query().Get("noRedirect"))
		s := StatusProcessing
		if polls.Add(1) >= 3 {
			s = finalStatus
		}
		json.NewEncoder(w).Encode(jobJSON("j1", s, map[string]any{"correctedFile": srvURL + "/v2/files/j1"}))
	})
	mux.HandleFunc("GET /files/j1", func(w http.ResponseWriter, r *http.Request) {
		assert.Empty(t, r.Header.Get("X-API-KEY"))
		w.Write(bytes.ToUpper(stored["fk1"]))
	})
	return &polls
}

func TestCorrectEndToEnd(t *testing.T) {
	t.Parallel()
	c, mux, srv := setup(t)
	polls := fakeService(t, mux, srv.URL, StatusCompleted)
	var out bytes.Buffer
	src := []byte("raw image bytes")
	job, err := c.Correct(context.Background(), bytes.NewReader(src), int64(len(src)), NewCorrection().WithPreset(PresetPro), &out, nil)
	require.NoError(t, err)
	assert.Equal(t, StatusCompleted, job.Status)
	assert.Equal(t, "RAW IMAGE BYTES", out.String())
	assert.Equal(t, int32(3), polls.Load())
}

func TestCorrectFileAtomic(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jpg")
	require.NoError(t, os.WriteFile(in, []byte("abc"), 0o600))

	t.Run("success", func(t *testing.T) {
		c, mux, srv := setup(t)
		fakeService(t, mux, srv.URL, StatusCompleted)
		out := filepath.Join(dir, "ok.jpg")
		_, err := c.CorrectFile(context.Background(), in, out, nil, nil)
		require.NoError(t, err)
		got, err := os.ReadFile(out)
		require.NoError(t, err)
		assert.Equal(t, "ABC", string(got))
		st, err := os.Stat(out)
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o644), st.Mode().Perm())

		require.NoError(t, os.Chmod(out, 0o600))
		_, err = c.CorrectFile(context.Background(), in, out, nil, nil)
		require.NoError(t, err)
		st, err = os.Stat(out)
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o600), st.Mode().Perm(), "an overwritten file keeps its mode")
	})
	t.Run("failed job leaves nothing", func(t *testing.T) {
		c, mux, srv := setup(t)
		fakeService(t, mux, srv.URL, StatusFailed)
		out := filepath.Join(dir, "bad.jpg")
		_, err := c.CorrectFile(context.Background(), in, out, nil, nil)
		assert.ErrorIs(t, err, pfc.ErrJobFailed)
		_, statErr := os.Stat(out)
		assert.ErrorIs(t, statErr, os.ErrNotExist)
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			assert.False(t, strings.HasSuffix(e.Name(), ".partial"), "temporary file left: %s", e.Name())
		}
	})
}

func TestRedirectToOtherHostNeverCarriesKey(t *testing.T) {
	t.Parallel()
	var leaked atomic.Bool
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-API-KEY") != "" {
			leaked.Store(true)
		}
		json.NewEncoder(w).Encode(UploadTicket{FileKey: "k", UploadURL: "https://x.test/u"})
	}))
	defer other.Close()
	c, mux, _ := setup(t)
	mux.HandleFunc("GET /upload", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/upload", http.StatusTemporaryRedirect)
	})
	_, err := c.RequestUpload(context.Background(), "")
	require.NoError(t, err)
	assert.False(t, leaked.Load(), "X-API-KEY crossed to another host")
}

// Progress and polling can be set for one call, without a client of their
// own; the caller's options are not modified.
func TestCorrectFilePerCallOptions(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jpg")
	require.NoError(t, os.WriteFile(in, []byte("abc"), 0o600))

	t.Run("progress", func(t *testing.T) {
		t.Parallel()
		c, mux, srv := setup(t)
		fakeService(t, mux, srv.URL, StatusCompleted)
		opts := NewCorrection().WithPreset(PresetPro)
		var seen []JobStatus
		// The call's own delays too: its options replace the client's
		// polling, and the defaults, made for the real service, would
		// wait 1.5 s for the three polls.
		job, err := c.CorrectFile(context.Background(), in, filepath.Join(dir, "p.jpg"), opts,
			&pfc.FlowOptions{Wait: &pfc.WaitOptions{MinDelay: time.Millisecond, MaxDelay: 2 * time.Millisecond,
				OnProgress: func(_, status string) { seen = append(seen, JobStatus(status)) }}})
		require.NoError(t, err)
		assert.Equal(t, StatusCompleted, job.Status)
		assert.Equal(t, []JobStatus{StatusProcessing, StatusProcessing, StatusCompleted}, seen)
		assert.Empty(t, opts.FileKey, "the caller's options are left alone")
	})
	t.Run("polling bound", func(t *testing.T) {
		t.Parallel()
		c, mux, srv := setup(t)
		fakeService(t, mux, srv.URL, StatusCompleted)
		var seen int
		// MaxWait of 1ns runs out at the first delay: the call's own
		// polling is used, and its progress callback sees the record.
		_, err := c.CorrectFile(context.Background(), in, filepath.Join(dir, "w.jpg"), nil,
			&pfc.FlowOptions{Wait: &pfc.WaitOptions{MinDelay: time.Hour, MaxDelay: time.Hour, MaxWait: 1, OnProgress: func(string, string) { seen++ }}})
		assert.ErrorIs(t, err, pfc.ErrWaitTimeout)
		assert.LessOrEqual(t, seen, 1)
		_, statErr := os.Stat(filepath.Join(dir, "w.jpg"))
		assert.ErrorIs(t, statErr, os.ErrNotExist)
	})
	t.Run("download limit", func(t *testing.T) {
		t.Parallel()
		c, mux, srv := setup(t)
		fakeService(t, mux, srv.URL, StatusCompleted)
		_, err := c.CorrectFile(context.Background(), in, filepath.Join(dir, "d.jpg"), nil, &pfc.FlowOptions{MaxDownloadSize: 2})
		var te *pfc.DownloadTooLargeError
		require.ErrorAs(t, err, &te)
		assert.Equal(t, int64(2), te.Limit)
	})
}

// TestCorrectRefusesAnotherJobsRecord: when /status answers with another
// job's COMPLETED record, Correct fails with an
// *pfc.ResponseError and never fetches that job's file.
func TestCorrectRefusesAnotherJobsRecord(t *testing.T) {
	t.Parallel()
	c, mux, srv := setup(t)
	mux.HandleFunc("GET /upload", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(UploadTicket{FileKey: "fk1", UploadURL: srv.URL + "/v2/store/fk1?sig=abc"})
	})
	mux.HandleFunc("PUT /store/{key}", func(w http.ResponseWriter, r *http.Request) { _, _ = io.Copy(io.Discard, r.Body) })
	mux.HandleFunc("GET /pfc", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]string{"statusEndpoint": srv.URL + "/v2/status/j1"})
	})
	mux.HandleFunc("GET /status/j1", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(jobJSON("j2", StatusCompleted, map[string]any{"correctedFile": srv.URL + "/v2/files/j2"}))
	})
	var fetched atomic.Bool
	mux.HandleFunc("GET /files/j2", func(w http.ResponseWriter, r *http.Request) {
		fetched.Store(true)
		w.Write([]byte("another customer's image"))
	})
	var out bytes.Buffer
	job, err := c.Correct(context.Background(), strings.NewReader("img"), 3, nil, &out, nil)
	assert.Nil(t, job)
	require.ErrorIs(t, err, pfc.ErrInvalidResponse)
	assert.False(t, fetched.Load(), "the other job's file was downloaded")
	assert.Zero(t, out.Len())
}
