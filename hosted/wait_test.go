package hosted

import (
	"context"
	"errors"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/pfc"
)

func TestWaitProgressAndCompletion(t *testing.T) {
	t.Parallel()
	c, mt := mockClient(t)
	states := []JobStatus{StatusPending, StatusProcessing, StatusProcessing, StatusCompleted}
	var n atomic.Int32
	mt.RegisterResponder("GET", "https://api.example.test/v2/status/j1?noRedirect=true", func(r *http.Request) (*http.Response, error) {
		s := states[min(int(n.Add(1))-1, len(states)-1)]
		extra := map[string]any{}
		if s == StatusCompleted {
			extra["correctedFile"] = "https://files.test/j1.jpg"
		}
		return httpmock.NewJsonResponse(200, jobJSON("j1", s, extra))
	})
	var seen []JobStatus
	job, err := c.Wait(context.Background(), "j1", &pfc.WaitOptions{
		MinDelay: time.Millisecond, MaxDelay: 2 * time.Millisecond,
		OnProgress: func(_, status string) { seen = append(seen, JobStatus(status)) },
	})
	require.NoError(t, err)
	assert.Equal(t, StatusCompleted, job.Status)
	assert.Equal(t, states, seen)
}

func TestWaitTerminalFailures(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		status JobStatus
		want   error
	}{{StatusFailed, pfc.ErrJobFailed}, {StatusRejected, ErrJobRejected}} {
		t.Run(string(tc.status), func(t *testing.T) {
			c, mt := mockClient(t)
			expectAPI(t, mt, "GET", `=~/v2/status/j1`, 200, map[string]any{
				"_id": "j1", "status": tc.status, "statusText": "input too small", "code": 413,
			})
			job, err := c.Wait(context.Background(), "j1", nil)
			assert.ErrorIs(t, err, tc.want)
			var je *JobError
			require.ErrorAs(t, err, &je)
			assert.Equal(t, 413, je.Job.Code)
			assert.Equal(t, "input too small", je.Job.StatusText)
			assert.Same(t, je.Job, job, "the record is returned too")
			assert.Contains(t, err.Error(), "input too small")
		})
	}
}

func TestWaitTimeoutCarriesLastRecord(t *testing.T) {
	t.Parallel()
	c, mt := mockClient(t)
	expectAPI(t, mt, "GET", `=~/v2/status/j1`, 200, jobJSON("j1", StatusProcessing, nil))
	_, err := c.Wait(context.Background(), "j1", &pfc.WaitOptions{MinDelay: time.Millisecond, MaxDelay: time.Millisecond, MaxWait: 20 * time.Millisecond})
	var te *pfc.WaitTimeoutError
	require.ErrorAs(t, err, &te)
	assert.ErrorIs(t, err, pfc.ErrWaitTimeout)
	require.IsType(t, &Job{}, te.Last)
	assert.Equal(t, StatusProcessing, te.Last.(*Job).Status)
	assert.GreaterOrEqual(t, mt.GetTotalCallCount(), 1)
}

func TestWaitCancelledPromptly(t *testing.T) {
	t.Parallel()
	c, mt := mockClient(t)
	ctx, cancel := context.WithCancel(context.Background())
	expectAPI(t, mt, "GET", `=~/v2/status/j1`, 200, jobJSON("j1", StatusPending, nil))
	done := make(chan error, 1)
	go func() {
		// An hour between polls: only cancellation can end this wait.
		_, err := c.Wait(ctx, "j1", &pfc.WaitOptions{MinDelay: time.Hour, MaxDelay: time.Hour,
			OnProgress: func(string, string) { cancel() }})
		done <- err
	}()
	select {
	case err := <-done:
		assert.ErrorIs(t, err, context.Canceled)
	case <-time.After(30 * time.Second):
		t.Fatal("Wait did not return after cancellation")
	}
}

func TestWaitRejectsBadOptions(t *testing.T) {
	t.Parallel()
	c, mt := mockClient(t)
	_, err := c.Wait(context.Background(), "j1", &pfc.WaitOptions{MinDelay: -1, MaxWait: -1})
	var ve *pfc.ValidationError
	require.ErrorAs(t, err, &ve)
	assert.ElementsMatch(t, []string{"MinDelay", "MaxWait"}, ve.Fields())
	assert.Zero(t, mt.GetTotalCallCount())
}

func TestWaitNilContext(t *testing.T) {
	t.Parallel()
	c, _ := mockClient(t)
	//lint:ignore SA1012 a nil context is the case under test
	_, err := c.Wait(nil, "j1", nil)
	assert.ErrorContains(t, err, "nil context")
}

func TestWaitReportsContextDeadline(t *testing.T) {
	t.Parallel()
	c, mt := mockClient(t)
	expectAPI(t, mt, "GET", `=~/v2/status/j1`, 200, jobJSON("j1", StatusProcessing, nil))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	// MaxWait is far away: the context's deadline is what ends the wait.
	_, err := c.Wait(ctx, "j1", &pfc.WaitOptions{MinDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond, MaxWait: time.Hour})
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	var te *pfc.WaitTimeoutError
	assert.False(t, errors.As(err, &te), "a context deadline is not a MaxWait timeout")
}

// TestWaitRefusesAnotherJobsRecord: a status answer that turns into
// another job's COMPLETED record ends the wait with an
// *pfc.ResponseError, not with that job as jobID's.
func TestWaitRefusesAnotherJobsRecord(t *testing.T) {
	t.Parallel()
	c, mt := mockClient(t)
	var n atomic.Int32
	mt.RegisterResponder("GET", "https://api.example.test/v2/status/j1?noRedirect=true", func(r *http.Request) (*http.Response, error) {
		if n.Add(1) == 1 {
			return httpmock.NewJsonResponse(200, jobJSON("j1", StatusProcessing, nil))
		}
		return httpmock.NewJsonResponse(200, jobJSON("j2", StatusCompleted, map[string]any{"correctedFile": "https://files.test/j2.jpg"}))
	})
	job, err := c.Wait(context.Background(), "j1", nil)
	assert.Nil(t, job)
	require.ErrorIs(t, err, pfc.ErrInvalidResponse)
	var ie *pfc.ResponseError
	require.ErrorAs(t, err, &ie)
	assert.Equal(t, "_id", ie.Field)
}
