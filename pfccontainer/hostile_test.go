package pfccontainer

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/pfc"
)

// The one HTTP test double of this file: a real httptest server playing a
// broken or hostile container (or a proxy in front of one).

// hostile starts a server answering every request with h and returns a
// client of it that does not retry.
func hostile(t *testing.T, h http.HandlerFunc) (*Client, string) {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	c, err := NewClient(pfc.WithBaseURL(srv.URL), pfc.WithRetries(-1, 0, 0), pfc.WithResponseHeaderTimeout(time.Minute))
	require.NoError(t, err)
	t.Cleanup(c.CloseIdleConnections)
	return c, srv.URL
}

// TestInvalidAnswersAreResponseErrors: a 2xx whose body is not the
// documented JSON is a *pfc.ResponseError naming the call (and the member at
// fault), never an untyped decoding error.
func TestInvalidAnswersAreResponseErrors(t *testing.T) {
	t.Parallel()
	img := testPNG(t)
	tests := []struct {
		name  string
		body  string
		call  func(*Client) error
		ep    endpoint
		field string
	}{
		{"upload garbage", "{{{", func(c *Client) error {
			_, err := c.Upload(t.Context(), bytes.NewReader(img), int64(len(img)), "")
			return err
		}, epUpload, ""},
		{"upload html", "<html>proxy login</html>", func(c *Client) error {
			_, err := c.Upload(t.Context(), bytes.NewReader(img), int64(len(img)), "")
			return err
		}, epUpload, ""},
		{"upload empty", "", func(c *Client) error {
			_, err := c.Upload(t.Context(), bytes.NewReader(img), int64(len(img)), "")
			return err
		}, epUpload, ""},
		{"upload number key", `{"imageKey":7}`, func(c *Client) error {
			_, err := c.Upload(t.Context(), bytes.NewReader(img), int64(len(img)), "")
			return err
		}, epUpload, "imageKey"},
		{"correct wrong type", `{"corrected_url":5,"scene":1}`, func(c *Client) error { _, err := c.GetCorrection(t.Context(), "k.jpg", nil); return err }, epCorrect, "corrected_url"},
		{"correct endless", `{"corrected_url":"` + strings.Repeat("a", maxJSONBody) + `"}`, func(c *Client) error { _, err := c.GetCorrection(t.Context(), "k.jpg", nil); return err }, epCorrect, ""},
		{"version array", `[1]`, func(c *Client) error { _, err := c.Version(t.Context()); return err }, epVersion, ""},
		{"version features", `{"version":"1","features":3}`, func(c *Client) error { _, err := c.Version(t.Context()); return err }, epVersion, "features"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, _ := hostile(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte(tt.body))
			})
			err := tt.call(c)
			require.ErrorIs(t, err, pfc.ErrInvalidResponse)
			var re *pfc.ResponseError
			require.ErrorAs(t, err, &re)
			assert.Equal(t, string(tt.ep), re.Endpoint)
			assert.Equal(t, tt.field, re.Field)
			assert.True(t, strings.HasPrefix(err.Error(), "pfc: "), err.Error())
			assert.Less(t, len(err.Error()), 300, "the body is not quoted whole")
		})
	}
}

// TestCorrectWithoutSceneIsUnknown: an answer that omits scene does not
// read as scene 0 (a real category).
func TestCorrectWithoutSceneIsUnknown(t *testing.T) {
	t.Parallel()
	c, _ := hostile(t, func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"corrected_url":"http://localhost/output/a.jpg"}`))
	})
	corr, err := c.GetCorrection(t.Context(), "k.jpg", nil)
	require.NoError(t, err)
	assert.Equal(t, SceneUnknown, corr.Scene)
}

// TestDownloadWritesOnlyTheImage: a download answered in an encoding the
// client did not ask for (a gzip bomb, whose bytes would be written as the
// "image"), or with a page that is not a JPEG or PNG file, writes nothing
// and leaves no file.
func TestDownloadWritesOnlyTheImage(t *testing.T) {
	t.Parallel()
	img := testPNG(t)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, _ = zw.Write(img)
	_, _ = zw.Write(make([]byte, 8<<20))
	require.NoError(t, zw.Close())
	tests := []struct {
		name     string
		encoding string
		body     []byte
	}{
		{"gzip although identity asked", "gzip", gz.Bytes()},
		{"html page", "", []byte("<!doctype html><title>Sign in</title>")},
		{"empty", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, base := hostile(t, func(w http.ResponseWriter, r *http.Request) {
				assert.Equal(t, "identity", r.Header.Get("Accept-Encoding"))
				if tt.encoding != "" {
					w.Header().Set("Content-Encoding", tt.encoding)
				}
				_, _ = w.Write(tt.body)
			})
			corr := &Correction{CorrectedURL: base + "/output/a.png"}
			var buf bytes.Buffer
			n, err := c.Download(t.Context(), corr, &buf)
			require.ErrorIs(t, err, pfc.ErrInvalidResponse)
			assert.Zero(t, n)
			assert.Zero(t, buf.Len())
			dir := t.TempDir()
			_, err = c.DownloadFile(t.Context(), corr, filepath.Join(dir, "a.png"))
			require.ErrorIs(t, err, pfc.ErrInvalidResponse)
			entries, _ := os.ReadDir(dir)
			assert.Empty(t, entries, "nothing half-written")
		})
	}
}

// TestErrorNamesEndpointAndRequestID: a row of the container's table
// carries the call and the request id, like bgcontainer.Error; a proxy's
// 401 and 429 match the shared class sentinels.
func TestErrorNamesEndpointAndRequestID(t *testing.T) {
	t.Parallel()
	c, _ := hostile(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/pfc/k.jpg":
			w.Header().Set("X-Request-Id", "req-42")
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprint(w, `{"status":400,"code":"unknownPresetMessage","message":"preset \"X\" is not uploaded or mounted","parameter":"preset"}`)
		case "/version":
			w.WriteHeader(http.StatusUnauthorized)
		default:
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(http.StatusTooManyRequests)
		}
	})
	_, err := c.GetCorrection(t.Context(), "k.jpg", NewCorrection().WithPreset("X"))
	var e *Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, string(epCorrect), e.Endpoint)
	assert.Equal(t, "req-42", e.RequestID)
	assert.ErrorIs(t, err, ErrUnknownPreset)
	assert.Equal(t, `pfc: GET /pfc/{imageKey}: 400 Bad Request: unknownPresetMessage: preset "X" is not uploaded or mounted (request id req-42)`, err.Error())

	_, err = c.Version(t.Context())
	assert.ErrorIs(t, err, pfc.ErrUnauthorized)
	img := testPNG(t)
	_, err = c.Upload(t.Context(), bytes.NewReader(img), int64(len(img)), "")
	assert.ErrorIs(t, err, pfc.ErrRateLimited)
}

// TestWrongTypeQuotesAShortExcerpt: the decoder's error copies a whole
// offending number, which the *pfc.ResponseError quoted whole (a 512 KiB
// scene made a 512 KiB error string); it quotes a short excerpt.
func TestWrongTypeQuotesAShortExcerpt(t *testing.T) {
	t.Parallel()
	huge := "9" + strings.Repeat("1", 512<<10)
	c, _ := hostile(t, func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"corrected_url":"http://localhost/output/a.jpg","scene":` + huge + `}`))
	})
	_, err := c.GetCorrection(t.Context(), "k.jpg", nil)
	var re *pfc.ResponseError
	require.ErrorAs(t, err, &re)
	assert.Equal(t, "scene", re.Field)
	assert.Contains(t, re.Reason, "has the wrong type number 9111")
	assert.Less(t, len(err.Error()), 300, "%.300s", err.Error())
}
