package bgcontainer

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/pfc"
)

func pngResponder(t *testing.T, data []byte) httpmock.Responder {
	return func(r *http.Request) (*http.Response, error) {
		assert.Equal(t, "image/png, application/json", r.Header.Get("Accept"))
		resp := httpmock.NewBytesResponse(200, data)
		resp.Header.Set("Content-Type", "image/png")
		return resp, nil
	}
}

func TestDownloadImageStreamsThePNG(t *testing.T) {
	t.Parallel()
	img := pngBytes(t, 5, 4)
	f := newFixture(t, secretKey)
	f.on(t, http.MethodGet, "/DownloadImage/"+jobID, pngResponder(t, img))
	var out bytes.Buffer
	n, err := f.c.DownloadImage(context.Background(), jobID, &out)
	require.NoError(t, err)
	assert.Equal(t, int64(len(img)), n)
	assert.Equal(t, img, out.Bytes())
}

func TestDownloadImageFileIsAtomic(t *testing.T) {
	t.Parallel()
	img := pngBytes(t, 5, 4)
	f := newFixture(t, secretKey)
	f.on(t, http.MethodGet, "/DownloadImage/"+jobID, pngResponder(t, img))
	f.json(t, http.MethodGet, "/DownloadImage/"+otherJob, 500, errorBody(500, "internal_error", "processing failed: boom", ""))
	dir := t.TempDir()
	dst := filepath.Join(dir, "out.png")
	require.NoError(t, os.WriteFile(dst, []byte("old"), 0o600))

	_, err := f.c.DownloadImageFile(context.Background(), otherJob, dst)
	require.ErrorIs(t, err, pfc.ErrJobFailed)
	got, err := os.ReadFile(dst)
	require.NoError(t, err)
	assert.Equal(t, "old", string(got), "untouched on failure")

	n, err := f.c.DownloadImageFile(context.Background(), jobID, dst)
	require.NoError(t, err)
	assert.Equal(t, int64(len(img)), n)
	got, err = os.ReadFile(dst)
	require.NoError(t, err)
	assert.Equal(t, img, got)
	st, err := os.Stat(dst)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), st.Mode().Perm(), "an overwritten file keeps its mode")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 1, "no temporary file left")
}

// TestDownloadImageErrors covers the seed's rows for /DownloadImage: 500
// (processing failed) is final, not retried.
func TestDownloadImageErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		status int
		want   error
		tries  int
	}{
		{400, ErrInvalidProcessID, 1},
		{404, ErrJobNotFound, 1},
		{500, pfc.ErrJobFailed, 1},
		{502, pfc.ErrServer, 3},
	}
	for _, tt := range tests {
		t.Run(http.StatusText(tt.status), func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, secretKey)
			f.json(t, http.MethodGet, "/DownloadImage/"+jobID, tt.status, errorBody(tt.status, "c", "m", ""))
			var out bytes.Buffer
			_, err := f.c.DownloadImage(context.Background(), jobID, &out)
			require.ErrorIs(t, err, tt.want)
			assert.Zero(t, out.Len())
			assert.Equal(t, tt.tries, f.mt.GetTotalCallCount())
		})
	}
}

func TestDownloadImageRefusesWhatIsNotAPNG(t *testing.T) {
	t.Parallel()
	f := newFixture(t, secretKey)
	f.on(t, http.MethodGet, "/DownloadImage/"+jobID, httpmock.NewStringResponder(200, `{"status":"processing"}`))
	var out bytes.Buffer
	_, err := f.c.DownloadImage(context.Background(), jobID, &out)
	require.ErrorIs(t, err, pfc.ErrInvalidResponse)
	assert.Zero(t, out.Len())
	_, err = f.c.DownloadImage(context.Background(), jobID, nil)
	require.ErrorIs(t, err, pfc.ErrInvalidParameter)
}

// A RoundTripper that hands a final 102 over as a response (httpmock does)
// still gives pfc.ErrStillProcessing.
func TestDownloadImageFinal102FromARoundTripper(t *testing.T) {
	t.Parallel()
	f := newFixture(t, secretKey)
	f.on(t, http.MethodGet, "/DownloadImage/"+jobID, httpmock.NewStringResponder(102, ""))
	var out bytes.Buffer
	_, err := f.c.DownloadImage(context.Background(), jobID, &out)
	require.ErrorIs(t, err, pfc.ErrStillProcessing)
	assert.Zero(t, out.Len())
}

func TestDownloadImageMaxSize(t *testing.T) {
	t.Parallel()
	img := pngBytes(t, 40, 40)
	mt := httpmock.NewMockTransport()
	c, err := NewClient(secretKey, pfc.WithBaseURL(testBase), pfc.WithHTTPClient(&http.Client{Transport: mt}), pfc.WithMaxDownloadSize(int64(len(img)-1)))
	require.NoError(t, err)
	mt.RegisterResponder(http.MethodGet, testBase+"/DownloadImage/"+jobID, func(r *http.Request) (*http.Response, error) {
		assert.Equal(t, "identity", r.Header.Get("Accept-Encoding"))
		return httpmock.NewBytesResponse(200, img), nil
	})
	var out bytes.Buffer
	_, err = c.DownloadImage(context.Background(), jobID, &out)
	require.ErrorIs(t, err, pfc.ErrDownloadTooLarge)
	var te *pfc.DownloadTooLargeError
	require.ErrorAs(t, err, &te)
	assert.Equal(t, jobID, te.Name)
	assert.Equal(t, int64(len(img)-1), te.Limit)

	dst := filepath.Join(t.TempDir(), "out.png")
	_, err = c.DownloadImageFile(context.Background(), jobID, dst)
	require.ErrorIs(t, err, pfc.ErrDownloadTooLarge)
	assert.NoFileExists(t, dst)
}
