package bgcontainer

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/jarcoal/httpmock"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pfcsdk/pfc-go/pfc"
)

func TestRemoveImage(t *testing.T) {
	t.Parallel()
	f := newFixture(t, secretKey)
	f.json(t, http.MethodDelete, "/RemoveImage/"+jobID, 200, map[string]any{
		"status": "deleted", "process_id": jobID, "files_deleted": 2, "previous_status": "completed",
	})
	d, err := f.c.RemoveImage(context.Background(), jobID)
	require.NoError(t, err)
	assert.Equal(t, &DeleteResult{Status: "deleted", ProcessID: jobID, FilesDeleted: 2, PreviousStatus: StatusCompleted}, d)
}

// TestRemoveImageErrors covers the seed's rows for /RemoveImage.
func TestRemoveImageErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		status int
		want   error
	}{
		{400, ErrInvalidProcessID},
		{404, ErrJobNotFound},
		{500, pfc.ErrServer},
	}
	for _, tt := range tests {
		t.Run(http.StatusText(tt.status), func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, secretKey)
			f.json(t, http.MethodDelete, "/RemoveImage/"+jobID, tt.status, errorBody(tt.status, "c", "m", ""))
			_, err := f.c.RemoveImage(context.Background(), jobID)
			require.ErrorIs(t, err, tt.want)
			var ae *Error
			require.ErrorAs(t, err, &ae)
			assert.Equal(t, string(epRemoveImage), ae.Endpoint)
			assert.NotErrorIs(t, err, pfc.ErrJobFailed)
		})
	}
}

// TestRemoveImageAnswerLost: the first DELETE removes the job but its
// answer is lost (a connection reset); the retry gets 404, which is the
// job gone, not an error. A 404 on the first attempt stays ErrJobNotFound
// (TestRemoveImageErrors).
func TestRemoveImageAnswerLost(t *testing.T) {
	t.Parallel()
	f := newFixture(t, secretKey)
	attempt := 0
	f.on(t, http.MethodDelete, "/RemoveImage/"+jobID, func(r *http.Request) (*http.Response, error) {
		attempt++
		if attempt == 1 {
			return nil, errors.New("connection reset by peer")
		}
		return httpmock.NewJsonResponse(404, errorBody(404, "not_found", "no such job", ""))
	})
	d, err := f.c.RemoveImage(context.Background(), jobID)
	require.NoError(t, err)
	assert.Equal(t, &DeleteResult{Status: "deleted", ProcessID: jobID, AnswerLost: true}, d)
	assert.Equal(t, 2, f.calls(http.MethodDelete, "/RemoveImage/"+jobID))
}

// TestRemoveImageRefusedThenNotFound: an attempt the container refused
// (503, 429) removed nothing, so a retry's 404 means the job never
// existed or was already gone: ErrJobNotFound, not a removal whose answer
// was lost.
func TestRemoveImageRefusedThenNotFound(t *testing.T) {
	t.Parallel()
	for _, first := range []int{http.StatusServiceUnavailable, http.StatusTooManyRequests} {
		t.Run(http.StatusText(first), func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, secretKey)
			attempt := 0
			f.on(t, http.MethodDelete, "/RemoveImage/"+jobID, func(r *http.Request) (*http.Response, error) {
				attempt++
				if attempt == 1 {
					return httpmock.NewJsonResponse(first, errorBody(first, "busy", "try later", ""))
				}
				return httpmock.NewJsonResponse(404, errorBody(404, "not_found", "no such job", ""))
			})
			d, err := f.c.RemoveImage(context.Background(), jobID)
			require.ErrorIs(t, err, ErrJobNotFound)
			assert.Nil(t, d)
			assert.Equal(t, 2, f.calls(http.MethodDelete, "/RemoveImage/"+jobID))
		})
	}
}
