package bgcontainer

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/pfc"
)

func TestCheckImage(t *testing.T) {
	t.Parallel()
	f := newFixture(t, secretKey)
	f.json(t, http.MethodGet, "/CheckImage/"+jobID, 200, map[string]any{
		"status": "completed", "original_name": "cat.png", "mode": "general", "processing_time": 1.5,
	})
	r, err := f.c.CheckImage(context.Background(), jobID)
	require.NoError(t, err)
	assert.Equal(t, &CheckResult{ProcessID: jobID, Status: StatusCompleted, OriginalName: "cat.png", Mode: ModeGeneral,
		ProcessingTime: 1500 * time.Millisecond, HasProcessingTime: true}, r)
}

// TestCheckImageErrors covers the seed's rows for /CheckImage.
func TestCheckImageErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		status int
		want   error
		tries  int
	}{
		{400, ErrInvalidProcessID, 1},
		{404, ErrJobNotFound, 1},
		{500, pfc.ErrServer, 3},
		{403, ErrNotActivated, 1},
	}
	for _, tt := range tests {
		t.Run(http.StatusText(tt.status), func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, secretKey)
			f.json(t, http.MethodGet, "/CheckImage/"+jobID, tt.status, errorBody(tt.status, "c", "m", "process_id"))
			_, err := f.c.CheckImage(context.Background(), jobID)
			require.ErrorIs(t, err, tt.want)
			var ae *Error
			require.ErrorAs(t, err, &ae)
			assert.Equal(t, jobID, ae.ProcessID)
			assert.Equal(t, string(epCheckImage), ae.Endpoint)
			assert.Equal(t, tt.tries, f.mt.GetTotalCallCount())
		})
	}
}

// TestProcessIDValidatedBeforeAnyRequest checks every call taking a
// process id; the licence key given as an id is not quoted back.
func TestProcessIDValidatedBeforeAnyRequest(t *testing.T) {
	t.Parallel()
	f := newFixture(t, secretKey)
	ctx := context.Background()
	for _, id := range []string{"", "42", jobID + "0", "../Status", secretKey} {
		_, err := f.c.CheckImage(ctx, id)
		require.ErrorIs(t, err, ErrInvalidProcessID, id)
		require.ErrorIs(t, err, pfc.ErrInvalidParameter, id)
		_, err2 := f.c.RemoveImage(ctx, id)
		require.ErrorIs(t, err2, ErrInvalidProcessID)
		_, err3 := f.c.DownloadImage(ctx, id, &nopWriter{})
		require.ErrorIs(t, err3, ErrInvalidProcessID)
		_, err4 := f.c.DownloadImageFile(ctx, id, t.TempDir()+"/x.png")
		require.ErrorIs(t, err4, ErrInvalidProcessID)
		_, err5 := f.c.WaitImage(ctx, id, nil)
		require.ErrorIs(t, err5, ErrInvalidProcessID)
		f.noSecret(t, secretKey, errText(err), errText(err2), errText(err3), errText(err4), errText(err5))
	}
	assert.Zero(t, f.mt.GetTotalCallCount())
}

type nopWriter struct{ n int }

func (w *nopWriter) Write(p []byte) (int, error) { w.n += len(p); return len(p), nil }

// states answers CheckImage with the given states in turn, repeating the
// last.
func states(f *fixture, t *testing.T, seq ...map[string]any) *atomic.Int32 {
	var n atomic.Int32
	f.on(t, http.MethodGet, "/CheckImage/"+jobID, func(*http.Request) (*http.Response, error) {
		i := int(n.Add(1)) - 1
		return httpmock.NewJsonResponse(200, seq[min(i, len(seq)-1)])
	})
	return &n
}

func TestWaitImageReportsProgressUntilCompleted(t *testing.T) {
	t.Parallel()
	f := newFixture(t, secretKey)
	states(f, t,
		map[string]any{"status": "queued", "original_name": "a.png", "mode": "general"},
		map[string]any{"status": "processing", "original_name": "a.png", "mode": "general"},
		map[string]any{"status": "processing", "original_name": "a.png", "mode": "general"},
		map[string]any{"status": "completed", "original_name": "a.png", "mode": "general", "processing_time": 0.25})
	var seen []JobStatus
	r, err := f.c.WaitImage(context.Background(), jobID, &pfc.WaitOptions{MinDelay: time.Microsecond, MaxDelay: time.Millisecond,
		OnProgress: func(_, status string) { seen = append(seen, JobStatus(status)) }})
	require.NoError(t, err)
	assert.Equal(t, StatusCompleted, r.Status)
	assert.Equal(t, []JobStatus{StatusQueued, StatusProcessing, StatusProcessing, StatusCompleted}, seen)
}

func TestWaitImageFailedJob(t *testing.T) {
	t.Parallel()
	f := newFixture(t, secretKey)
	states(f, t, map[string]any{"status": "failed", "mode": "general", "error": "decoder said " + secretKey})
	r, err := f.c.WaitImage(context.Background(), jobID, nil)
	require.ErrorIs(t, err, pfc.ErrJobFailed)
	var je *JobError
	require.ErrorAs(t, err, &je)
	assert.Same(t, r, je.Result)
	assert.Equal(t, "pfc: job "+jobID+" failed: decoder said REDACTED", err.Error())
}

func TestWaitImageMaxWait(t *testing.T) {
	t.Parallel()
	f := newFixture(t, secretKey)
	states(f, t, map[string]any{"status": "processing"})
	_, err := f.c.WaitImage(context.Background(), jobID, &pfc.WaitOptions{MinDelay: time.Millisecond, MaxDelay: time.Millisecond, MaxWait: 5 * time.Millisecond})
	require.ErrorIs(t, err, pfc.ErrWaitTimeout)
	var te *pfc.WaitTimeoutError
	require.ErrorAs(t, err, &te)
	assert.Equal(t, jobID, te.JobID)
	if te.Last != nil {
		assert.Equal(t, StatusProcessing, te.Last.(*CheckResult).Status)
	}
}

func TestWaitImageCancelled(t *testing.T) {
	t.Parallel()
	f := newFixture(t, secretKey)
	states(f, t, map[string]any{"status": "queued"})
	ctx, cancel := context.WithCancel(context.Background())
	_, err := f.c.WaitImage(ctx, jobID, &pfc.WaitOptions{MinDelay: time.Hour, MaxDelay: time.Hour,
		OnProgress: func(string, string) { cancel() }})
	require.ErrorIs(t, err, context.Canceled)
}

func TestWaitImageStopsOnAnError(t *testing.T) {
	t.Parallel()
	f := newFixture(t, secretKey)
	f.json(t, http.MethodGet, "/CheckImage/"+jobID, 404, errorBody(404, "not_found", "gone", "process_id"))
	_, err := f.c.WaitImage(context.Background(), jobID, nil)
	require.ErrorIs(t, err, ErrJobNotFound)
	_, err = f.c.WaitImage(context.Background(), jobID, &pfc.WaitOptions{MinDelay: time.Second, MaxDelay: time.Millisecond})
	require.ErrorIs(t, err, pfc.ErrInvalidParameter)
	assert.Equal(t, 1, f.mt.GetTotalCallCount())
}
