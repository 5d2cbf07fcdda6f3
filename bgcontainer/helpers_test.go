package bgcontainer

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/internal/streamtest"
	"github.com/pfcsdk/pfc-go/pfc"
)

// testBase is the base URL of the mocked container.
const testBase = "http://gpu-box.test:8000"

// Process ids used by the tests.
const (
	jobID    = "0b8f6c1e-3a52-4c8e-9d21-7f6a2b9e4c10"
	otherJob = "5d0c8b7a-1e2f-4a3b-8c9d-0e1f2a3b4c5d"
)

// syncBuffer is a log destination safe for concurrent writes.
type syncBuffer = streamtest.SyncBuffer

// fixture is a client on a fresh httpmock transport, logging at Debug
// level into logs.
type fixture struct {
	c    *Client
	mt   *httpmock.MockTransport
	logs *syncBuffer
}

func newFixture(t *testing.T, key string) *fixture {
	t.Helper()
	f := &fixture{mt: httpmock.NewMockTransport(), logs: &syncBuffer{}}
	var err error
	f.c, err = NewClient(key,
		pfc.WithBaseURL(testBase),
		pfc.WithHTTPClient(&http.Client{Transport: f.mt}),
		pfc.WithRetries(2, time.Millisecond, 2*time.Millisecond),
		WithPolling(pfc.WaitOptions{MinDelay: time.Millisecond, MaxDelay: 2 * time.Millisecond}),
		pfc.WithLogger(slog.New(slog.NewTextHandler(f.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))),
	)
	require.NoError(t, err)
	return f
}

// on registers a responder for method and path (no query allowed unless
// the path has one) that checks the request's headers.
func (f *fixture) on(t *testing.T, method, path string, fn httpmock.Responder) {
	t.Helper()
	f.mt.RegisterResponder(method, testBase+path, func(r *http.Request) (*http.Response, error) {
		assert.True(t, strings.HasPrefix(r.Header.Get("User-Agent"), "pfc-go/"), "User-Agent")
		for name := range r.Header {
			assert.NotContains(t, strings.ToLower(name), "key", "no credential header")
		}
		return fn(r)
	})
}

// json registers a JSON answer.
func (f *fixture) json(t *testing.T, method, path string, status int, body any) {
	t.Helper()
	f.on(t, method, path, func(r *http.Request) (*http.Response, error) {
		assert.Contains(t, r.Header.Get("Accept"), "application/json")
		return httpmock.NewJsonResponse(status, body)
	})
}

// calls returns how many requests matched "METHOD URL".
func (f *fixture) calls(method, path string) int {
	return f.mt.GetCallCountInfo()[method+" "+testBase+path]
}

// noSecret fails if any text, or the logs, hold the licence key.
func (f *fixture) noSecret(t *testing.T, key string, texts ...string) {
	t.Helper()
	for _, s := range append(texts, f.logs.String()) {
		assert.NotContains(t, s, key)
	}
}

// errText is err's text ("" for nil).
func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// pngBytes encodes a w×h PNG.
func pngBytes(t *testing.T, w, h int) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = byte(i)
	}
	img.Set(0, 0, color.NRGBA{A: 0})
	var b bytes.Buffer
	require.NoError(t, png.Encode(&b, img))
	return b.Bytes()
}

// errorBody is the mock's error body.
func errorBody(status int, code, message, parameter string) map[string]any {
	return map[string]any{"status": status, "code": code, "message": message, "parameter": parameter}
}

// writeFile writes data to a new file at path.
func writeFile(path string, data []byte) error { return os.WriteFile(path, data, 0o644) }
