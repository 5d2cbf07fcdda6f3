package bgcontainer

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/pfc"
)

// flowFixture mocks a container for RemoveBackground: SubmitImage answers
// 403 not_activated until Authorize was called (when activate is true),
// CheckImage answers check, DownloadImage download, and RemoveImage
// records that it ran on a live context.
type flowFixture struct {
	*fixture
	authorized atomic.Bool
	removed    atomic.Int32
}

func newFlow(t *testing.T, notActivated bool, check map[string]any, download httpmock.Responder) *flowFixture {
	t.Helper()
	ff := &flowFixture{fixture: newFixture(t, secretKey)}
	ff.authorized.Store(!notActivated)
	ff.on(t, http.MethodGet, "/Authorize/"+secretKey, func(*http.Request) (*http.Response, error) {
		ff.authorized.Store(true)
		return httpmock.NewJsonResponse(200, map[string]string{"status": "Licensed", "licensed org": "Acme", "expiration date": "2027-11"})
	})
	ff.on(t, http.MethodPost, "/SubmitImage", func(*http.Request) (*http.Response, error) {
		if !ff.authorized.Load() {
			return httpmock.NewJsonResponse(403, errorBody(403, "not_activated", "not activated", ""))
		}
		return httpmock.NewJsonResponse(200, submitAnswer)
	})
	ff.on(t, http.MethodGet, "/CheckImage/"+jobID, func(*http.Request) (*http.Response, error) {
		return httpmock.NewJsonResponse(200, check)
	})
	ff.on(t, http.MethodGet, "/DownloadImage/"+jobID, download)
	ff.on(t, http.MethodDelete, "/RemoveImage/"+jobID, func(r *http.Request) (*http.Response, error) {
		assert.NoError(t, r.Context().Err(), "the removal runs on a live context")
		ff.removed.Add(1)
		return httpmock.NewJsonResponse(200, map[string]any{"status": "deleted", "process_id": jobID, "files_deleted": 2, "previous_status": check["status"]})
	})
	return ff
}

var completed = map[string]any{"status": "completed", "original_name": "image.png", "mode": "portrait", "processing_time": 0.5}

func TestRemoveBackgroundActivatesAndCleansUp(t *testing.T) {
	t.Parallel()
	img := pngBytes(t, 6, 6)
	ff := newFlow(t, true, completed, pngResponder(t, img))
	var out bytes.Buffer
	var seen int
	res, err := ff.c.RemoveBackground(context.Background(), bytes.NewReader(img), int64(len(img)),
		nil, &out, &pfc.FlowOptions{Wait: &pfc.WaitOptions{OnProgress: func(string, string) { seen++ }}})
	require.NoError(t, err)
	assert.True(t, res.Activated)
	assert.Equal(t, jobID, res.Job.ProcessID)
	assert.Equal(t, StatusCompleted, res.Check.Status)
	assert.Equal(t, int64(len(img)), res.Bytes)
	assert.Equal(t, img, out.Bytes())
	require.NotNil(t, res.Removed)
	assert.NoError(t, res.RemoveErr)
	assert.Equal(t, 1, seen)
	assert.Equal(t, 2, ff.calls(http.MethodPost, "/SubmitImage"))
	assert.Equal(t, int32(1), ff.removed.Load())
	ff.noSecret(t, secretKey)
}

// TestRemoveBackgroundRemovesAfterFailure: a failed job, a failed
// download and a cancelled wait all end with RemoveImage.
func TestRemoveBackgroundRemovesAfterFailure(t *testing.T) {
	t.Parallel()
	img := pngBytes(t, 2, 2)
	failed := map[string]any{"status": "failed", "mode": "general", "error": "engine error"}
	queued := map[string]any{"status": "queued", "mode": "general"}
	tests := []struct {
		name     string
		check    map[string]any
		download httpmock.Responder
		cancel   bool
		want     error
	}{
		{"job failed", failed, nil, false, pfc.ErrJobFailed},
		{"download failed", completed, httpmock.NewJsonResponderOrPanic(500, errorBody(500, "internal_error", "processing failed", "")), false, pfc.ErrJobFailed},
		{"cancelled while waiting", queued, nil, true, context.Canceled},
		{"download not a PNG", completed, httpmock.NewStringResponder(200, "nope"), false, pfc.ErrInvalidResponse},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ff := newFlow(t, false, tt.check, tt.download)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			flow := &pfc.FlowOptions{}
			if tt.cancel {
				flow.Wait = &pfc.WaitOptions{OnProgress: func(string, string) { cancel() }}
			}
			var out bytes.Buffer
			res, err := ff.c.RemoveBackground(ctx, bytes.NewReader(img), int64(len(img)), nil, &out, flow)
			require.ErrorIs(t, err, tt.want)
			require.NotNil(t, res)
			assert.Equal(t, jobID, res.Job.ProcessID)
			assert.NotNil(t, res.Removed)
			assert.NoError(t, res.RemoveErr)
			assert.Equal(t, int32(1), ff.removed.Load(), "removed once")
			assert.Zero(t, out.Len())
		})
	}
}

func TestRemoveBackgroundKeepJobAndRemoveErr(t *testing.T) {
	t.Parallel()
	img := pngBytes(t, 2, 2)
	ff := newFlow(t, false, completed, pngResponder(t, img))
	res, err := ff.c.RemoveBackground(context.Background(), bytes.NewReader(img), int64(len(img)), nil, &bytes.Buffer{}, &pfc.FlowOptions{KeepJob: true})
	require.NoError(t, err)
	assert.Nil(t, res.Removed)
	assert.Zero(t, ff.removed.Load())

	ff2 := newFixture(t, secretKey)
	ff2.json(t, http.MethodPost, "/SubmitImage", 200, submitAnswer)
	ff2.json(t, http.MethodGet, "/CheckImage/"+jobID, 200, completed)
	ff2.on(t, http.MethodGet, "/DownloadImage/"+jobID, pngResponder(t, img))
	ff2.json(t, http.MethodDelete, "/RemoveImage/"+jobID, 404, errorBody(404, "not_found", "gone", ""))
	res, err = ff2.c.RemoveBackground(context.Background(), bytes.NewReader(img), int64(len(img)), nil, &bytes.Buffer{}, nil)
	require.NoError(t, err, "a failed removal does not fail the call")
	assert.ErrorIs(t, res.RemoveErr, ErrJobNotFound)
}

func TestRemoveBackgroundUnlicensed(t *testing.T) {
	t.Parallel()
	f := newFixture(t, secretKey)
	f.json(t, http.MethodPost, "/SubmitImage", 403, errorBody(403, "not_activated", "not activated", ""))
	f.json(t, http.MethodGet, "/Authorize/"+secretKey, 200, map[string]string{"status": "Unlicensed", "message": "Invalid license key " + secretKey})
	img := pngBytes(t, 2, 2)
	res, err := f.c.RemoveBackground(context.Background(), bytes.NewReader(img), int64(len(img)), nil, &bytes.Buffer{}, nil)
	assert.Nil(t, res)
	require.ErrorIs(t, err, ErrNotActivated)
	var le *LicenseError
	require.ErrorAs(t, err, &le)
	assert.Equal(t, "pfc: activation failed: Unlicensed: Invalid license key REDACTED", err.Error())
	assert.Equal(t, 1, f.calls(http.MethodPost, "/SubmitImage"))
}

func TestRemoveBackgroundFile(t *testing.T) {
	t.Parallel()
	img := pngBytes(t, 4, 4)
	dir := t.TempDir()
	src := filepath.Join(dir, "in.png")
	require.NoError(t, os.WriteFile(src, img, 0o644))

	ff := newFlow(t, false, completed, pngResponder(t, img))
	dst := filepath.Join(dir, "out.png")
	res, err := ff.c.RemoveBackgroundFile(context.Background(), src, dst, nil, nil)
	require.NoError(t, err)
	assert.Equal(t, int64(len(img)), res.Bytes)
	got, err := os.ReadFile(dst)
	require.NoError(t, err)
	assert.Equal(t, img, got)

	bad := newFlow(t, false, map[string]any{"status": "failed", "error": "x"}, nil)
	dst2 := filepath.Join(dir, "never.png")
	_, err = bad.c.RemoveBackgroundFile(context.Background(), src, dst2, nil, nil)
	require.ErrorIs(t, err, pfc.ErrJobFailed)
	assert.NoFileExists(t, dst2)
	assert.Equal(t, int32(1), bad.removed.Load())
}

func TestRemoveBackgroundValidatesBeforeSending(t *testing.T) {
	t.Parallel()
	f := newFixture(t, secretKey)
	ctx := context.Background()
	img := bytes.NewReader([]byte("x"))
	_, err := f.c.RemoveBackground(ctx, img, 1, nil, nil, nil)
	require.ErrorIs(t, err, pfc.ErrInvalidParameter)
	_, err = f.c.RemoveBackground(ctx, img, 1, &SubmitOptions{Mode: "x"}, &bytes.Buffer{},
		&pfc.FlowOptions{CleanupTimeout: -1, Wait: &pfc.WaitOptions{MaxWait: -1}})
	var ve *pfc.ValidationError
	require.ErrorAs(t, err, &ve)
	var fields []string
	for _, e := range ve.Errors {
		fields = append(fields, e.Field)
	}
	assert.Equal(t, []string{"CleanupTimeout", "MaxWait", "mode"}, fields)
	_, err = f.c.RemoveBackgroundFile(ctx, "", "", nil, nil)
	require.ErrorIs(t, err, pfc.ErrInvalidParameter)
	_, err = f.c.RemoveBackgroundFile(ctx, t.TempDir(), filepath.Join(t.TempDir(), "o.png"), nil, nil)
	require.ErrorIs(t, err, pfc.ErrInvalidParameter)
	assert.Zero(t, f.mt.GetTotalCallCount())
}
