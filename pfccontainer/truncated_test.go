package pfccontainer

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/internal/cuttest"
	"github.com/pfcsdk/pfc-go/pfc"
)

// corrected is the corrected file the double serves: a JPEG signature and
// padding.
var corrected = append([]byte{0xff, 0xd8, 0xff, 0xe0}, bytes.Repeat([]byte("j"), 996)...)

// startCuttingContainer serves the one HTTP test double of this file: a
// container whose answers are cut off as cuts says (routes "upload",
// "correct", "version", "file"; see cuttest).
func startCuttingContainer(t *testing.T, cuts map[string]int) (*Client, *cuttest.Cutter) {
	t.Helper()
	s := cuttest.New(cuts)
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	mux.HandleFunc("PUT /pfc", func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		s.Write(w, "upload", "application/json", []byte(`{"imageKey":"0123abcd.jpg"}`))
	})
	mux.HandleFunc("GET /pfc/{key}", func(w http.ResponseWriter, r *http.Request) {
		s.Write(w, "correct", "application/json",
			[]byte(`{"corrected_url":"`+srv.URL+`/output/0123abcd.jpg","scene":2}`))
	})
	mux.HandleFunc("GET /version", func(w http.ResponseWriter, r *http.Request) {
		s.Write(w, "version", "application/json", []byte(`{"sdkVersion":"1.2.3","buildDate":"2026-01-01"}`))
	})
	mux.HandleFunc("GET /output/{name}", func(w http.ResponseWriter, r *http.Request) {
		s.Write(w, "file", "image/jpeg", corrected)
	})
	c, err := NewClient(pfc.WithBaseURL(srv.URL), pfc.WithRetries(2, time.Millisecond, time.Millisecond))
	require.NoError(t, err)
	t.Cleanup(c.CloseIdleConnections)
	return c, s
}

// TestTruncatedJSONAnswersAreRetried: cut answers of PUT /pfc, GET
// /pfc/{imageKey} and GET /version are resent by the transport within the
// retry budget; beyond it the call fails with pfc.ErrTruncatedResponse.
func TestTruncatedJSONAnswersAreRetried(t *testing.T) {
	t.Parallel()
	c, s := startCuttingContainer(t, map[string]int{"upload": 1, "correct": 2, "version": 3})
	key, err := c.Upload(context.Background(), bytes.NewReader(corrected), int64(len(corrected)), "image/jpeg")
	require.NoError(t, err)
	assert.Equal(t, "0123abcd.jpg", key)
	assert.Equal(t, 2, s.Count("upload"))

	corr, err := c.GetCorrection(context.Background(), key, nil)
	require.NoError(t, err)
	assert.Equal(t, 3, s.Count("correct"))
	assert.NotEmpty(t, corr.CorrectedURL)

	_, err = c.Version(context.Background())
	require.ErrorIs(t, err, pfc.ErrTruncatedResponse)
	assert.ErrorIs(t, err, io.ErrUnexpectedEOF)
	assert.Contains(t, err.Error(), "(3 attempts)")
	assert.Equal(t, 3, s.Count("version"), "MaxRetries 2: three requests in all")
}

// TestDownloadCutOff: a download is never retried: a file cut off before
// its Content-Length fails with pfc.ErrTruncatedResponse, and CorrectFile and
// DownloadFile leave no file behind.
func TestDownloadCutOff(t *testing.T) {
	t.Parallel()
	c, s := startCuttingContainer(t, map[string]int{"file": 10})
	dir, in, out := cuttest.Input(t, corrected)
	corr, err := c.CorrectFile(context.Background(), in, out, nil, nil)
	require.ErrorIs(t, err, pfc.ErrTruncatedResponse)
	assert.ErrorIs(t, err, io.ErrUnexpectedEOF)
	assert.Nil(t, corr)
	assert.Equal(t, 1, s.Count("file"), "not retried")

	corr, err = c.GetCorrection(context.Background(), "0123abcd.jpg", nil)
	require.NoError(t, err)
	var buf bytes.Buffer
	n, err := c.Download(context.Background(), corr, &buf)
	require.ErrorIs(t, err, pfc.ErrTruncatedResponse)
	assert.Equal(t, int64(500), n)
	assert.Contains(t, err.Error(), "500 of 1000 bytes")
	_, err = c.DownloadFile(context.Background(), corr, out)
	require.ErrorIs(t, err, pfc.ErrTruncatedResponse)
	cuttest.OnlyInput(t, dir)
}

// TestDownloadReset: a corrected file whose connection is reset before its
// Content-Length also fails with pfc.ErrTruncatedResponse (it matched only
// syscall.ECONNRESET), and CorrectFile and DownloadFile leave no file.
func TestDownloadReset(t *testing.T) {
	t.Parallel()
	c, s := startCuttingContainer(t, map[string]int{"file": 10})
	s.SetReset()
	dir, in, out := cuttest.Input(t, corrected)
	_, err := c.CorrectFile(context.Background(), in, out, nil, nil)
	require.ErrorIs(t, err, pfc.ErrTruncatedResponse)
	assert.ErrorIs(t, err, syscall.ECONNRESET)
	corr, err := c.GetCorrection(context.Background(), "0123abcd.jpg", nil)
	require.NoError(t, err)
	var buf bytes.Buffer
	_, err = c.Download(context.Background(), corr, &buf)
	require.ErrorIs(t, err, pfc.ErrTruncatedResponse)
	_, err = c.DownloadFile(context.Background(), corr, out)
	require.ErrorIs(t, err, pfc.ErrTruncatedResponse)
	cuttest.OnlyInput(t, dir)
}
